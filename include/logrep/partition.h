/* liblogrep: one partition replica as a host-driven state machine.
 *
 * The replica is Kafka's ISR replication for one partition (docs/
 * replication.md) over a partition log (<logrep/log.h>), without a node,
 * a controller or the wire protocol: a host replicates a partition over
 * its own transport and runs whatever controller it likes. It is the same
 * state machine a node runs for each of its partitions.
 *
 * The host drives it:
 *  - leadership comes from the host's controller: logrep_partition_apply()
 *    with the leader, leader epoch, partition epoch, replicas and ISR;
 *  - as leader it takes produce batches (assigns offsets), serves fetches
 *    from followers (their positions move the high watermark) and from
 *    consumers, proposes ISR changes (an event) that the host's
 *    controller answers (logrep_partition_isr_result);
 *  - as follower it says which fetch to send next
 *    (logrep_partition_next_fetch), and applies the leader's answer
 *    (logrep_partition_fetch_response), truncating at a diverging epoch
 *    as OffsetsForLeaderEpoch would;
 *  - logrep_partition_tick() carries the time (ISR shrink, produce
 *    timeouts) and returns when it wants to be called again;
 *  - outputs that come later (acks=all completions, ISR proposals, the
 *    high watermark moving) are events taken with logrep_partition_poll().
 *
 * Rules: one thread at a time per replica; `now_ms` is monotonic and
 * within 0..2^62 (calls that return an error refuse others with
 * LOGREP_ERR__INVALID_ARG); every input the library cannot act on is
 * refused with an error, never asserted. The library keeps no reference to caller memory past a call
 * unless stated.
 */
#ifndef LOGREP_PARTITION_H
#define LOGREP_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most replicas a partition can have. */
#define LOGREP_PARTITION_MAX_REPLICAS 16

/** Roles (logrep_partition_state.role). */
enum {
    LOGREP_ROLE_NONE = 0,     /**< no leadership applied, or not a replica */
    LOGREP_ROLE_LEADER = 1,
    LOGREP_ROLE_FOLLOWER = 2
};

typedef struct logrep_partition logrep_partition;

/** Creates a replica with id `replica_id` over an open log, which it takes:
 *  the log is closed by logrep_partition_free() (also when this call
 *  fails). Reads from conf: min.insync.replicas,
 *  replica.lag.time.max.ms, max.message.bytes, the allocator and the log
 *  hook; NULL conf is all defaults. Starts with no role.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (NULL log or out, negative
 *  replica_id), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_partition_new(const logrep_conf *conf, int32_t replica_id,
                                           logrep_log *log, logrep_partition **out);

/** Closes the log (flushing it) and frees the replica; with `abandon` the
 *  log is dropped without a flush, as a crash would. Pending acks=all
 *  produces are dropped without an event. NULL is a no-op. */
LOGREP_API void logrep_partition_free(logrep_partition *p, int abandon);

/** The replica's log, borrowed for the replica's lifetime: use it for
 *  reads and queries (logrep_log_read, offsets), not for appends or
 *  truncation, which belong to the replica. */
LOGREP_API logrep_log *logrep_partition_log(logrep_partition *p);

/** Leadership and membership as the host's controller decided them. */
typedef struct logrep_leadership {
    int32_t leader;          /**< replica id; -1: no leader (offline) */
    int32_t leader_epoch;    /**< grows with every leader change */
    int32_t partition_epoch; /**< grows with every change (ISR included) */
    int32_t n_replicas;
    int32_t replicas[LOGREP_PARTITION_MAX_REPLICAS];
    int32_t n_isr;
    int32_t isr[LOGREP_PARTITION_MAX_REPLICAS];
} logrep_leadership;

/** Applies leadership. Older epochs (a lower partition or leader epoch)
 *  are ignored and return LOGREP_OK. A new leader epoch makes this replica
 *  leader (its log end starts the epoch) or follower; pending acks=all
 *  produces of the old epoch complete with NOT_LEADER_OR_FOLLOWER.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (NULL, counts out of range
 *  (1..LOGREP_PARTITION_MAX_REPLICAS replicas, at most as many in the
 *  ISR), a negative epoch or replica id, a replica listed twice, an ISR
 *  member that is not a replica, a leader other than -1 not in the ISR),
 *  storage errors (the epoch checkpoint). */
LOGREP_API logrep_err logrep_partition_apply(logrep_partition *p, const logrep_leadership *l,
                                             int64_t now_ms);

/** A produce outcome. */
typedef struct logrep_produce_result {
    logrep_err error;          /**< Kafka's error, LOGREP_OK on success */
    int64_t base_offset;       /**< offset of the batch's first record; -1 on error */
    int64_t log_append_time;   /**< -1 unless the log uses LogAppendTime */
    int64_t log_start_offset;
    uint64_t token;            /**< the caller's */
    int pending;               /**< 1: acks=all, completes later as an event */
} logrep_produce_result;

/** Appends one record batch (v2; a client sends one batch per partition,
 *  as Kafka requires) as leader. `batch` is stamped in place (base
 *  offset, leader epoch) and borrowed for the call. acks 0 or 1 answer at once; acks -1 answers at once only on
 *  error, else res->pending is set and a LOGREP_PARTITION_EV_PRODUCE
 *  event carrying `token` follows when the high watermark passes the
 *  batch (or after timeout_ms: REQUEST_TIMED_OUT, or on losing
 *  leadership: NOT_LEADER_OR_FOLLOWER).
 *  A refusal is data: res->error, and the same code returned:
 *  NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS (acks -1 with the ISR
 *  below min.insync.replicas), INVALID_REQUIRED_ACKS, CORRUPT_MESSAGE,
 *  INVALID_RECORD (more than one batch, a control batch),
 *  MESSAGE_TOO_LARGE, the idempotent producer's INVALID_PRODUCER_EPOCH
 *  and OUT_OF_ORDER_SEQUENCE_NUMBER, the log's append errors,
 *  KAFKA_STORAGE_ERROR.
 *  @return res->error, or LOGREP_ERR__INVALID_ARG (NULL arguments, a
 *  negative timeout_ms). */
LOGREP_API logrep_err logrep_partition_produce(logrep_partition *p, void *batch, size_t len,
                                               int16_t acks, int64_t timeout_ms, uint64_t token,
                                               int64_t now_ms, logrep_produce_result *res);

/** A fetch as the leader (or a follower serving consumers) receives it. */
typedef struct logrep_fetch_request {
    int32_t replica_id;           /**< >= 0: a follower's id; -1: a consumer */
    int32_t current_leader_epoch; /**< the fetcher's view; -1: not checked */
    int32_t last_fetched_epoch;   /**< follower: epoch of its last batch; -1: none */
    int64_t fetch_offset;
    uint64_t max_bytes;
    int read_committed;           /**< consumer: stop at the last stable offset */
} logrep_fetch_request;

/** What to answer. The bytes are `slice` of the log: copy them with
 *  logrep_partition_read_slice(), or send them from the storage file. */
typedef struct logrep_fetch_result {
    logrep_err error;              /**< Kafka's: NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
                                        UNKNOWN_LEADER_EPOCH, OFFSET_OUT_OF_RANGE ... */
    int64_t high_watermark;
    int64_t last_stable_offset;
    int64_t log_start_offset;
    int32_t diverging_epoch;       /**< -1: none; else the follower must truncate */
    int64_t diverging_end_offset;  /**< -1: none */
    logrep_log_slice slice;        /**< valid until the next call on this replica */
} logrep_fetch_result;

/** Serves a fetch: from a follower (leader only; records its position,
 *  which may move the high watermark, complete produces and propose an
 *  ISR expansion once the follower has caught up) or a consumer (up to
 *  the high watermark). The first batch is returned whole even when
 *  larger than max_bytes.
 *  @return res->error, or LOGREP_ERR__INVALID_ARG (NULL, a replica_id or
 *  an epoch below -1). */
LOGREP_API logrep_err logrep_partition_fetch(logrep_partition *p, const logrep_fetch_request *req,
                                             int64_t now_ms, logrep_fetch_result *res);

/** Copies the bytes of a fetch result's slice into buf (at least
 *  slice->length bytes). The slice may also come from logrep_log_read()
 *  on logrep_partition_log(p), while it is valid.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (NULL, buf too small, a
 *  slice that is not one of this replica's log files or reaches past its
 *  end), storage errors. */
LOGREP_API logrep_err logrep_partition_read_slice(logrep_partition *p,
                                                  const logrep_log_slice *slice, void *buf,
                                                  size_t size);

/** The fetch a follower sends its leader. */
typedef struct logrep_follower_fetch {
    int32_t leader;               /**< send it to this replica */
    int32_t current_leader_epoch;
    int32_t last_fetched_epoch;
    int64_t fetch_offset;
    int64_t log_start_offset;
} logrep_follower_fetch;

/** Follower: the next fetch to send. At most one is in flight: the next
 *  comes after its answer (logrep_partition_fetch_response) or its
 *  failure (logrep_partition_fetch_failed), or once leadership with a new
 *  leader epoch is applied (the fetch in flight is then forgotten: its
 *  answer changes nothing). Leadership in the same epoch (an ISR change)
 *  keeps it in flight: its answer is still awaited.
 *  @return LOGREP_OK with *out filled, LOGREP_ERR__AGAIN (not a follower,
 *  or a fetch in flight), LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_partition_next_fetch(logrep_partition *p, logrep_follower_fetch *out);

/** Follower: applies the leader's answer to `sent` (as it was returned by
 *  logrep_partition_next_fetch). `res` is the leader's
 *  logrep_fetch_result (its slice is not read), `records` the slice's
 *  bytes, borrowed. A diverging epoch truncates the log first; an answer
 *  that no longer matches (another leader epoch, the log end moved) is
 *  dropped.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, the log's append and
 *  truncation errors (storage errors, CORRUPT_MESSAGE). */
LOGREP_API logrep_err logrep_partition_fetch_response(logrep_partition *p,
                                                      const logrep_follower_fetch *sent,
                                                      const logrep_fetch_result *res,
                                                      const void *records, size_t records_len,
                                                      int64_t now_ms);

/** Follower: the fetch in flight got no answer (lost, timed out). */
LOGREP_API void logrep_partition_fetch_failed(logrep_partition *p);

/** Leader: OffsetsForLeaderEpoch. The end offset of `leader_epoch` (the
 *  start of the next larger epoch, or the log end) and the largest epoch
 *  <= leader_epoch.
 *  @return LOGREP_OK, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
 *  UNKNOWN_LEADER_EPOCH, LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_partition_epoch_end(logrep_partition *p, int32_t current_leader_epoch,
                                                 int32_t leader_epoch, int32_t *end_epoch,
                                                 int64_t *end_offset);

/** Leader: ListOffsets. timestamp -1 latest (the high watermark, or the
 *  last stable offset with read_committed), -2 earliest, -3 the largest
 *  timestamp, -4 earliest local (the log start), -5 latest tiered (offset
 *  -1: nothing is tiered), else the first offset with a timestamp >= it
 *  (offset -1: none, or not committed yet).
 *  @return LOGREP_OK, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
 *  UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE (latest, from a new leader
 *  whose high watermark has not reached the start of its epoch yet:
 *  docs/replication.md 1.3), LOGREP_ERR__INVALID_ARG (NULL, a timestamp
 *  below -5), KAFKA_STORAGE_ERROR. */
LOGREP_API logrep_err logrep_partition_list_offsets(logrep_partition *p, int32_t current_leader_epoch,
                                                    int64_t timestamp, int read_committed,
                                                    int64_t *offset, int64_t *found_timestamp,
                                                    int32_t *epoch);

/** An ISR change for the host's controller (Kafka's AlterPartition). */
typedef struct logrep_isr_proposal {
    uint64_t id;               /**< pass it back to logrep_partition_isr_result */
    int32_t leader_epoch;
    int32_t partition_epoch;   /**< the epoch the change is based on */
    int32_t n_isr;
    int32_t isr[LOGREP_PARTITION_MAX_REPLICAS];
} logrep_isr_proposal;

/** The controller's answer to proposal `id`. On LOGREP_OK: the new
 *  partition epoch and committed ISR (the replica also accepts the same
 *  through logrep_partition_apply). INELIGIBLE_REPLICA and
 *  OPERATION_NOT_ATTEMPTED drop the proposal; FENCED_LEADER_EPOCH,
 *  INVALID_UPDATE_VERSION and NEW_LEADER_ELECTED keep it until newer
 *  leadership is applied; any other error (the outcome is unknown)
 *  proposes it again shortly. An answer to an older proposal is ignored.
 *  While a proposal is unanswered its additions count for the high
 *  watermark, so it never passes a replica the controller may already
 *  hold in the ISR. `isr` is read only with LOGREP_OK.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (NULL p; with LOGREP_OK: a
 *  negative partition epoch, no ISR, or one that lists a replica twice,
 *  names one not in the applied replicas, or leaves this replica out). */
LOGREP_API logrep_err logrep_partition_isr_result(logrep_partition *p, uint64_t id, logrep_err error,
                                                  int32_t partition_epoch, const int32_t *isr,
                                                  int32_t n_isr, int64_t now_ms);

/** Event types (logrep_partition_event.type). */
enum {
    LOGREP_PARTITION_EV_PRODUCE = 1,    /**< an acks=all produce completed */
    LOGREP_PARTITION_EV_ISR_CHANGE = 2, /**< send this proposal to the controller */
    LOGREP_PARTITION_EV_HIGH_WATERMARK = 3 /**< the high watermark moved */
};

typedef struct logrep_partition_event {
    int type;
    logrep_produce_result produce;  /**< EV_PRODUCE */
    logrep_isr_proposal isr;        /**< EV_ISR_CHANGE */
    int64_t high_watermark;         /**< EV_HIGH_WATERMARK: the new value */
} logrep_partition_event;

/** Takes the next event: completed produces first, then an ISR proposal,
 *  then a high watermark change (one event for any number of moves since
 *  the last).
 *  @return 1 with *ev filled, 0 when there is none. */
LOGREP_API int logrep_partition_poll(logrep_partition *p, int64_t now_ms,
                                     logrep_partition_event *ev);

/** Periodic work: ISR shrink of lagging followers, produce timeouts. Call
 *  it at or after the time it returns (or sooner): the earliest timer the
 *  replica holds, now_ms when events are waiting, and at most
 *  replica.lag.time.max.ms ahead. New input can bring that time forward:
 *  tick again after input. NULL: INT64_MAX. */
LOGREP_API int64_t logrep_partition_tick(logrep_partition *p, int64_t now_ms);

/** What the replica knows now. */
typedef struct logrep_partition_state {
    int role;                  /**< LOGREP_ROLE_* */
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t high_watermark;
    int32_t n_isr;             /**< the committed ISR */
    int32_t n_maximal_isr;     /**< leader: with unanswered additions */
    int32_t n_replicas;
    int under_min_isr;
    int64_t pending_produces;  /**< acks=all waiting for the high watermark */
} logrep_partition_state;

LOGREP_API void logrep_partition_state_get(const logrep_partition *p, logrep_partition_state *out);
LOGREP_API int64_t logrep_partition_high_watermark(const logrep_partition *p);
LOGREP_API int64_t logrep_partition_log_end_offset(const logrep_partition *p);
LOGREP_API int64_t logrep_partition_log_start_offset(const logrep_partition *p);
LOGREP_API int32_t logrep_partition_leader_epoch(const logrep_partition *p);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_PARTITION_H */
