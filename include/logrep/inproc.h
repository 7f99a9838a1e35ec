/* liblogrep: in-process calls on a node.
 *
 * A host that embeds a node can use its partitions without Kafka wire
 * frames: produce a batch, fetch from a partition, list offsets, create
 * and delete topics. The same node serves the wire at the same time; an
 * in-process call takes the same path a request would (the same checks,
 * the same errors, acks=all waits for the high watermark, a broker
 * forwards topic creation to the controller).
 *
 * Every call here completes through the node's event queue: it returns
 * LOGREP_OK when an event will follow, or an error and no event. The
 * host takes events with logrep_node_poll() until it returns 0 after
 * each call here, each logrep_node_tick() and each delivery of input
 * (logrep_node_request, _response, _closed): any of them may complete
 * calls (most complete within the call itself; an acks=all produce, a
 * long-poll fetch or a forwarded topic creation later). While an event
 * waits to be polled, logrep_node_tick() returns now_ms. The commits of
 * <logrep/groups.h> complete through the same queue. Freeing the node
 * frees the events queued and drops the calls still pending (no event).
 *
 * Threads: these are node calls; they belong to the node's thread like
 * every other, and no callback is made from them.
 */
#ifndef LOGREP_INPROC_H
#define LOGREP_INPROC_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/node.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Event types (logrep_node_event.type). */
enum {
    LOGREP_NODE_EV_COMMIT = 1,       /**< logrep_node_commit_offsets (<logrep/groups.h>) */
    LOGREP_NODE_EV_PRODUCE = 2,      /**< logrep_node_produce */
    LOGREP_NODE_EV_FETCH = 3,        /**< logrep_node_fetch */
    LOGREP_NODE_EV_LIST_OFFSETS = 4, /**< logrep_node_list_offsets */
    LOGREP_NODE_EV_CREATE_TOPIC = 5, /**< logrep_node_create_topic */
    LOGREP_NODE_EV_DELETE_TOPIC = 6  /**< logrep_node_delete_topic */
};

/** A completed in-process call. Pointers are owned by the node and valid
 *  until the next logrep_node_poll() or logrep_node_free(). Fields not
 *  named for an event's type are 0 / NULL / -1. */
typedef struct logrep_node_event {
    int type;              /**< LOGREP_NODE_EV_* */
    uint64_t token;        /**< the caller's */
    logrep_err error;      /**< the call's outcome; LOGREP_OK when every item succeeded */
    const int16_t *errors; /**< COMMIT: per item, in the request's order */
    size_t n_errors;

    /* PRODUCE: where the batch went. FETCH: the partition's state. */
    int64_t base_offset;        /**< PRODUCE: offset of the batch's first record; -1 on error */
    int64_t log_append_time;    /**< PRODUCE: -1 unless the topic uses LogAppendTime */
    int64_t log_start_offset;   /**< PRODUCE, FETCH */
    int64_t high_watermark;     /**< FETCH */
    int64_t last_stable_offset; /**< FETCH */

    /* FETCH: whole record batches (Kafka's v2 format, read them with
     * logrep_batch_*), possibly none. */
    const uint8_t *records;
    size_t records_len;

    /* LIST_OFFSETS */
    int64_t offset;        /**< -1 when none matches the timestamp */
    int64_t timestamp;     /**< the found record's timestamp, -1 for none */
    int32_t leader_epoch;  /**< of the found offset, -1 unknown */
} logrep_node_event;

/** Takes the next completed in-process call, oldest completion first.
 *  The previous event's pointers become invalid.
 *  @return 1 with *ev filled, 0 when none is ready (a tick or new input
 *  may complete one) or node or ev is NULL. */
LOGREP_API int logrep_node_poll(logrep_node *node, logrep_node_event *ev);

/** Produces `len` bytes of record batches (Kafka's v2 format, as a
 *  producer builds them with logrep_batch_builder) to topic/partition,
 *  which this node must lead. The node copies the bytes. acks is 0, 1 or
 *  -1 (all in-sync replicas); with -1 the event comes when the high
 *  watermark passes the batch, or after timeout_ms with REQUEST_TIMED_OUT.
 *  With 0 the event comes all the same (the wire sends no answer then).
 *  Idempotent batches are checked like a producer's (sequence numbers).
 *  The event's error is Kafka's (NOT_LEADER_OR_FOLLOWER,
 *  UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, CORRUPT_MESSAGE,
 *  MESSAGE_TOO_LARGE, INVALID_RECORD, INVALID_REQUIRED_ACKS (any other
 *  acks), KAFKA_STORAGE_ERROR ...); produce to internal topics
 *  (__consumer_offsets) is refused with INVALID_TOPIC_EXCEPTION as on the
 *  wire, and so is a name no topic can have. With -1, a leadership
 *  change before the high watermark passes the batch gives
 *  NOT_LEADER_OR_FOLLOWER, an ISR shrunk below min.insync.replicas
 *  meanwhile NOT_ENOUGH_REPLICAS_AFTER_APPEND (base_offset set: the batch
 *  is in the log).
 *  @return LOGREP_OK (an event follows), LOGREP_ERR__INVALID_ARG (NULL
 *  node, topic or batch, len 0, negative partition or timeout),
 *  LOGREP_ERR__NOMEM (nothing was appended). */
LOGREP_API logrep_err logrep_node_produce(logrep_node *node, const char *topic, int32_t partition,
                                          const void *batch, size_t len, int16_t acks,
                                          int32_t timeout_ms, uint64_t token, int64_t now_ms);

/** Fetches from topic/partition at `offset`, as a consumer: at most
 *  max_bytes of whole batches (the first batch whole even when larger, as
 *  Kafka does), up to the high watermark, or to the last stable offset
 *  with read_committed. With max_wait_ms > 0 and nothing to return, the
 *  fetch waits until records arrive or the time passes (ticks carry the
 *  time); with 0 the event comes at once, possibly without records. This
 *  node must lead the partition or follow it (a follower serves up to its
 *  own high watermark). The records are copied into the event.
 *  The event's error is Kafka's (OFFSET_OUT_OF_RANGE, also for a negative
 *  offset, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION,
 *  KAFKA_STORAGE_ERROR ...), or a local one (LOGREP_ERR__NOMEM, a storage
 *  error) when the records could not be copied.
 *  @return LOGREP_OK (an event follows), LOGREP_ERR__INVALID_ARG (NULL
 *  node or topic, negative partition, max_bytes or max_wait_ms),
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_fetch(logrep_node *node, const char *topic, int32_t partition,
                                        int64_t offset, int32_t max_bytes, int read_committed,
                                        int32_t max_wait_ms, uint64_t token, int64_t now_ms);

/** The first offset whose record's timestamp is >= `timestamp`, or one of
 *  the special timestamps LOGREP_OFFSET_* of <logrep/log.h> (LATEST is
 *  the high watermark here, or the last stable offset with
 *  read_committed, as ListOffsets answers), on the partition's leader
 *  (this node). The event is ready when the call returns; offset,
 *  timestamp and leader_epoch are -1 when no record matches.
 *  The event's error is Kafka's (NOT_LEADER_OR_FOLLOWER,
 *  UNKNOWN_TOPIC_OR_PARTITION, OFFSET_NOT_AVAILABLE ...).
 *  @return LOGREP_OK (an event follows), LOGREP_ERR__INVALID_ARG (NULL
 *  node or topic, negative partition), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_list_offsets(logrep_node *node, const char *topic,
                                               int32_t partition, int64_t timestamp,
                                               int read_committed, uint64_t token, int64_t now_ms);

/** Creates a topic through the cluster's controller (this node's own, or
 *  forwarded over the transport as a broker forwards CreateTopics).
 *  partitions and replication_factor -1 take the defaults
 *  (num.partitions, default.replication.factor). config_names/values are
 *  n_configs topic properties ("cleanup.policy", "retention.ms", ...); a
 *  NULL value is sent as null, which Kafka refuses (INVALID_CONFIG).
 *  Strings are copied. On the controller's node the event is ready when
 *  the call returns; a forwarded call waits at most timeout_ms for the
 *  controller's answer. The event's error is Kafka's
 *  (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
 *  INVALID_REPLICATION_FACTOR, INVALID_CONFIG, POLICY_VIOLATION,
 *  NOT_CONTROLLER (the controller stopped, or its connection could not be
 *  made or was lost), REQUEST_TIMED_OUT (no answer within timeout_ms: the
 *  topic may exist all the same) ...). The topic exists when the event
 *  says OK; its partitions get leaders as the metadata reaches the
 *  brokers.
 *  @return LOGREP_OK (an event follows), LOGREP_ERR__INVALID_ARG (NULL
 *  node or topic, negative timeout, n_configs > 0 with NULL names or
 *  values, a NULL name), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_create_topic(logrep_node *node, const char *topic,
                                               int32_t partitions, int16_t replication_factor,
                                               const char *const *config_names,
                                               const char *const *config_values, size_t n_configs,
                                               int32_t timeout_ms, uint64_t token, int64_t now_ms);

/** Deletes a topic through the controller, as DeleteTopics does (the
 *  controller's node at once, a broker forwarding it, waiting at most
 *  timeout_ms). The event's error is Kafka's (UNKNOWN_TOPIC_OR_PARTITION,
 *  NOT_CONTROLLER, REQUEST_TIMED_OUT ...).
 *  @return LOGREP_OK (an event follows), LOGREP_ERR__INVALID_ARG (NULL
 *  node or topic, negative timeout), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_delete_topic(logrep_node *node, const char *topic,
                                               int32_t timeout_ms, uint64_t token, int64_t now_ms);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_INPROC_H */
