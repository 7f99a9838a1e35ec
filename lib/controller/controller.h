/* The controller: a host-driven state machine over the metadata image.
 *
 * Requests arrive as plain C calls (the node layer decodes them from the
 * wire). Each call validates against the image, then changes it only by
 * appending metadata records: every record is encoded, applied to the
 * controller's own image and handed to the sink, in that order. The sink
 * therefore sees exactly the stream that rebuilds the controller's image
 * (lr_md_apply_bytes of every record, in order, on a fresh image gives an
 * identical image), also when a call fails half-way with
 * LOGREP_ERR__NOMEM: records already emitted stay valid, nothing else was
 * applied.
 *
 * Time is only what the caller passes as now_ms (a monotonic clock in
 * milliseconds); randomness (topic ids, the placement start index) comes
 * from the PRNG seeded with logrep.random.seed. No I/O, no threads; one
 * thread at a time per controller.
 *
 * Configuration read at creation (conf may be NULL for defaults):
 *   min.insync.replicas, unclean.leader.election.enable,
 *   eligible.leader.replicas.enable   image defaults (topics may override
 *                                     the first two with ConfigRecords)
 *   broker.session.timeout.ms         fencing after missed heartbeats
 *   default.replication.factor, num.partitions   create-topic defaults
 *   logrep.random.seed
 *
 * Election rules (docs/controller.md; Kafka's PartitionChangeBuilder):
 * keep a current leader that is still acceptable and in the target ISR;
 * else the first replica in assignment order that is acceptable (registered,
 * unfenced, not in controlled shutdown) and in the ISR, or, only when the
 * ISR is empty, in the ELR (then ISR := {it}); else the last known leader
 * when ISR and ELR are empty, it is the only LastKnownElr entry and
 * acceptable (ISR := {it}, leader recovery RECOVERING); else, when the
 * topic allows unclean election, the first acceptable replica (ISR := {it},
 * ELR cleared, RECOVERING, counted); else no leader (-1). Every leader
 * change bumps the leader epoch; every change bumps the partition epoch.
 * ELR: when the target ISR is below the effective min ISR,
 * ELR := (ELR ∪ old ISR) − new ISR − an uncleanly restarted broker, in
 * assignment order; once the ISR reaches min ISR, ELR and LastKnownElr are
 * cleared. With ELR disabled the last ISR member is never removed.
 */
#ifndef LR_CONTROLLER_CONTROLLER_H
#define LR_CONTROLLER_CONTROLLER_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include "controller/metadata.h"

typedef struct lr_ctl lr_ctl;

/* Receives each record right after the controller applied it: `offset` is
 * its metadata offset, the bytes are valid only during the call. Returns 0
 * once the record is durable, else an error: the image then holds a record
 * the stream does not, so the controller stops (lr_ctl_failed). */
typedef int (*lr_ctl_sink_fn)(void *ctx, int64_t offset, const uint8_t *rec, size_t len);

/* Creates a controller with an empty image. sink may be NULL (records are
 * then only applied). NULL on allocation failure. */
lr_ctl *lr_ctl_new(const logrep_conf *conf, lr_ctl_sink_fn sink, void *sink_ctx);
void lr_ctl_free(lr_ctl *ctl);

/* Applies a record from an existing stream (a controller taking over, or
 * restarting, replays the log first). The sink is not called. Broker
 * sessions of replayed brokers start at the next call that carries a time.
 * Returns what lr_md_apply_bytes returns. */
int lr_ctl_replay(lr_ctl *ctl, const uint8_t *rec, size_t len);

/* The controller's image; borrowed, valid until the next call. After a
 * sink failure it may hold records that are not durable: answer nothing
 * from it then. */
const lr_md_image *lr_ctl_image(const lr_ctl *ctl);

/* 0, or the sink's error that stopped the controller. A stopped controller
 * changes nothing more: every call below then returns
 * LOGREP_ERR_NOT_CONTROLLER (the call that met the failure too). Its host
 * must replace it with one that replays the durable stream. */
int lr_ctl_failed(const lr_ctl *ctl);

/* A standby controller follows a replicated log (lr_ctl_replay of what
 * is committed) and leads nothing: every call below returns
 * LOGREP_ERR_NOT_CONTROLLER and its deadline is INT64_MAX, as a stopped
 * one's, until it is made active again (standby 0). Sessions of the
 * brokers in its image then start at its next call that carries a time,
 * as after a replay. New controllers are active. */
void lr_ctl_set_standby(lr_ctl *ctl, int standby);
int lr_ctl_standby(const lr_ctl *ctl);
/* A record of the log that is not a metadata record (a quorum's control
 * record) took the offsets below next_offset: the next record applied
 * gets next_offset. Never moves the image back. */
void lr_ctl_skip_to(lr_ctl *ctl, int64_t next_offset);

/* --- snapshots ---------------------------------------------------------- */

/* Hands one record of a snapshot to the loader; 0 or the record's error. */
typedef int (*lr_ctl_snap_put_fn)(void *put_ctx, const uint8_t *rec, size_t len);
/* Produces a snapshot's records in order, each through put(put_ctx, ...):
 * returns 0 once all were given, else its own error or the first non-zero
 * value put returned (then stop). */
typedef int (*lr_ctl_snap_source_fn)(void *src_ctx, lr_ctl_snap_put_fn put, void *put_ctx);

/* Rebuilds the controller from a snapshot with end offset `end` (>= 0;
 * docs/quorum.md, "Snapshots"): a fresh image made with conf (the conf
 * the controller was made with: the image's defaults come from it) takes
 * every record src gives as lr_md_snapshot_apply does, and only when all
 * applied it replaces the image, whose next offset is then `end`;
 * lr_ctl_replay continues from there. Broker sessions start again as
 * after a replay (the old ones described the old image). Works active or
 * standby (the mode is kept). 0; LOGREP_ERR_NOT_CONTROLLER for a stopped
 * controller; LOGREP_ERR__INVALID_ARG (end < 0, NULL src); LOGREP_ERR__CORRUPT
 * (a record that does not apply, records with end 0); LOGREP_ERR__UNSUPPORTED;
 * LOGREP_ERR__NOMEM; src's own errors. On any error the controller is
 * unchanged. */
int lr_ctl_load_snapshot(lr_ctl *ctl, const logrep_conf *conf, int64_t end,
                         lr_ctl_snap_source_fn src, void *src_ctx);

/* --- brokers ------------------------------------------------------------ */

typedef struct lr_ctl_endpoint {
    const char *name; /* listener name, e.g. "PLAINTEXT" */
    const char *host;
    uint16_t port;
    int16_t security_protocol; /* 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL */
} lr_ctl_endpoint;

typedef struct lr_ctl_register_req {
    int32_t broker_id;
    uint8_t incarnation[16]; /* new per process start */
    const char *rack;        /* NULL: none */
    const lr_ctl_endpoint *endpoints;
    size_t n_endpoints;
    /* Broker epoch read from the clean-shutdown marker, -1 when there was
     * none (first start, crash, lost disk). Equal to the epoch the
     * controller holds for this broker = clean restart. */
    int64_t previous_broker_epoch;
} lr_ctl_register_req;

typedef struct lr_ctl_register_resp {
    int64_t broker_epoch;
    uint8_t clean;   /* 1: a previous registration existed and the restart was clean */
    uint8_t amended; /* 1: same incarnation re-registered, epoch unchanged */
} lr_ctl_register_resp;

/* BrokerRegistration. A new incarnation gets a new broker epoch (the
 * offset of its RegisterBrokerRecord) and starts fenced. If the broker was
 * still unfenced (its session not yet expired) it is fenced first. An
 * unclean restart (previous registration exists, previous_broker_epoch does
 * not match it) removes the broker from every ISR and ELR (KIP-966,
 * KAFKA-15586) before the registration record; it stays in LastKnownElr.
 * Returns 0; LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION when another
 * incarnation that this controller heard from within the session timeout
 * holds the id and previous_broker_epoch does not prove it ended (a
 * session adopted from the replayed log does not block);
 * LOGREP_ERR_INVALID_REGISTRATION
 * for a negative id, empty listener name or host, strings over 32767 bytes;
 * LOGREP_ERR__INVALID_ARG for NULL pointers; LOGREP_ERR__NOMEM. */
int lr_ctl_register_broker(lr_ctl *ctl, const lr_ctl_register_req *req, int64_t now_ms,
                           lr_ctl_register_resp *resp);

typedef struct lr_ctl_heartbeat_req {
    int32_t broker_id;
    int64_t broker_epoch;
    int64_t current_metadata_offset; /* highest metadata offset the broker applied */
    uint8_t want_fence;
    uint8_t want_shutdown;
} lr_ctl_heartbeat_req;

typedef struct lr_ctl_heartbeat_resp {
    uint8_t is_caught_up; /* reached its own RegisterBrokerRecord */
    uint8_t is_fenced;
    uint8_t in_controlled_shutdown;
    uint8_t should_shutdown;
} lr_ctl_heartbeat_resp;

/* BrokerHeartbeat: refreshes the session; unfences a fenced broker once
 * current_metadata_offset >= the offset of its registration (and it does
 * not want to be fenced), then elects leaders for leaderless partitions
 * it can lead. want_shutdown on an active broker starts a controlled
 * shutdown: it leaves every ISR and leadership moves away; should_shutdown
 * is granted once it leads nothing and every active broker has applied the
 * records up to that point, and the broker is then fenced (it stays
 * fenced until it registers again).
 * Returns 0; LOGREP_ERR_BROKER_ID_NOT_REGISTERED; LOGREP_ERR_STALE_BROKER_EPOCH;
 * LOGREP_ERR__INVALID_ARG; LOGREP_ERR__NOMEM. */
int lr_ctl_heartbeat(lr_ctl *ctl, const lr_ctl_heartbeat_req *req, int64_t now_ms,
                     lr_ctl_heartbeat_resp *resp);

/* Time passes: fences every unfenced broker whose last heartbeat or
 * registration is older than broker.session.timeout.ms (removing it from
 * ISRs and re-electing), and retries elections of leaderless partitions
 * whose topic allows unclean election. Returns 0 or LOGREP_ERR__NOMEM. */
int lr_ctl_tick(lr_ctl *ctl, int64_t now_ms);

/* When lr_ctl_tick next has work: the earliest session expiry (now_ms when
 * a broker's session has not started); INT64_MAX when none is timed. */
int64_t lr_ctl_deadline(const lr_ctl *ctl, int64_t now_ms);

/* --- topics ------------------------------------------------------------- */

typedef struct lr_ctl_config {
    const char *name;
    const char *value;
} lr_ctl_config;

/* A manually placed partition (CreateTopics Assignments). */
typedef struct lr_ctl_assignment {
    int32_t partition;
    const int32_t *brokers;
    size_t n_brokers;
} lr_ctl_assignment;

typedef struct lr_ctl_create_topic_req {
    const char *name;
    int32_t num_partitions;     /* -1: num.partitions */
    int32_t replication_factor; /* -1: default.replication.factor */
    const lr_ctl_config *configs; /* a NULL value is refused, as Kafka does */
    size_t n_configs;
    const lr_ctl_assignment *assignments; /* in partition order; 0: placed by the controller */
    size_t n_assignments;
    int validate_only; /* run every check, write nothing */
} lr_ctl_create_topic_req;

/* Every check lr_ctl_create_topic makes, in Kafka's order (name, existence,
 * configs, assignment or counts, brokers available), writing nothing.
 * Fills *np and *rf (may be NULL) with the resolved partition count and
 * replication factor, and why (cap bytes, may be 0) with the reason of a
 * refusal. Returns what lr_ctl_create_topic returns. */
int lr_ctl_check_topic(const lr_ctl *ctl, const lr_ctl_create_topic_req *req, int32_t *np,
                       int32_t *rf, char *why, size_t cap);

/* CreateTopics for one topic: TopicRecord, its ConfigRecords, then one
 * PartitionRecord per partition with replicas placed rack-aware round-robin
 * over the active brokers (registered, unfenced, not shutting down): the
 * brokers are interleaved rack by rack, partition p starts at a seeded
 * random index + p, followers follow at a shift, and no rack gets a second
 * replica before every rack has one. Leader = first replica, ISR = all.
 * With assignments the replicas are those given, ISR = the active ones,
 * leader = the first active one.
 * Returns 0 (topic_id filled when non-NULL; nothing is written with
 * validate_only);
 * LOGREP_ERR_INVALID_TOPIC_EXCEPTION (name not [a-zA-Z0-9._-]{1,249}, "."
 * or "..", or colliding with an existing name once '.' and '_' are
 * equated); LOGREP_ERR_TOPIC_ALREADY_EXISTS; LOGREP_ERR_INVALID_PARTITIONS
 * (< 1 or > LR_MD_MAX_PARTITIONS); LOGREP_ERR_INVALID_REPLICATION_FACTOR
 * (< 1, > LR_MD_MAX_REPLICAS, or more than the active brokers);
 * LOGREP_ERR_INVALID_CONFIG (a name that is no topic config, a null value,
 * a value Kafka would not parse or accept: controller/topic_config.h);
 * LOGREP_ERR_INVALID_REQUEST (assignments with a partition count or
 * replication factor other than -1); LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT
 * (an empty replica list, unequal list sizes, an unregistered or repeated
 * broker, partitions not 0..n-1 in order, no active replica);
 * LOGREP_ERR__INVALID_ARG;
 * LOGREP_ERR__NOMEM. */
int lr_ctl_create_topic(lr_ctl *ctl, const lr_ctl_create_topic_req *req, uint8_t topic_id[16]);

/* DeleteTopics for one topic (RemoveTopicRecord). Returns 0,
 * LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION, LOGREP_ERR__NOMEM. */
int lr_ctl_delete_topic(lr_ctl *ctl, const char *name);

/* IncrementalAlterConfigs SET (value) / DELETE (value NULL) of one topic
 * config. Changing min.insync.replicas clears ELR and LastKnownElr of every
 * partition of the topic (docs/controller.md, ELR); enabling unclean election
 * runs elections for the topic's leaderless partitions.
 * Returns 0, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION, LOGREP_ERR_INVALID_CONFIG,
 * LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
int lr_ctl_set_topic_config(lr_ctl *ctl, const char *topic, const char *name, const char *value);

/* IncrementalAlterConfigs operations (Kafka's AlterConfigOp.OpType ids). */
enum { LR_CTL_CFG_SET = 0, LR_CTL_CFG_DELETE = 1, LR_CTL_CFG_APPEND = 2, LR_CTL_CFG_SUBTRACT = 3 };

/* How lr_ctl_alter_topic_configs reads its operations. */
enum {
    LR_CTL_ALTER_INCREMENTAL = 0, /* IncrementalAlterConfigs: each op as given */
    LR_CTL_ALTER_REPLACE = 1      /* AlterConfigs: ops are the whole set (op ignored);
                                     configs not listed are deleted */
};

typedef struct lr_ctl_config_op {
    const char *name;
    const char *value; /* NULL: null on the wire */
    int op;            /* LR_CTL_CFG_*, or any other value (refused) */
} lr_ctl_config_op;

/* AlterConfigs / IncrementalAlterConfigs of one TOPIC resource, all or
 * nothing: every entry is checked and the topic's resulting set computed
 * before any ConfigRecord is written (only for values that change), then
 * each changed config has lr_ctl_set_topic_config's side effects. APPEND
 * and SUBTRACT work on LIST configs, starting from the topic's value or
 * Kafka's default; APPEND adds the elements not already present, SUBTRACT
 * removes them (the last one removed leaves ""). Checked in Kafka's order
 * (the forwarding broker's, then the controller's):
 *   a name given twice                        INVALID_REQUEST
 *   a null value (but for DELETE)             INVALID_REQUEST
 *   an operation other than 0..3              INVALID_REQUEST
 *   an empty topic name                       INVALID_REQUEST
 *   an illegal topic name                     INVALID_TOPIC_EXCEPTION
 *   APPEND/SUBTRACT of a non-LIST config      INVALID_CONFIG
 *   an unknown name or a bad resulting value  INVALID_CONFIG
 *   the topic does not exist                  UNKNOWN_TOPIC_OR_PARTITION
 * (DELETE of a name Kafka does not know changes nothing and passes, as in
 * Kafka). why (cap bytes, may be 0) receives Kafka's message on failure.
 * validate_only writes nothing. LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM
 * (records already written stay valid, see above). */
int lr_ctl_alter_topic_configs(lr_ctl *ctl, const char *topic, const lr_ctl_config_op *ops,
                               size_t n, int mode, int validate_only, char *why, size_t cap);

/* --- partitions ----------------------------------------------------------- */

typedef struct lr_ctl_isr_member {
    int32_t broker_id;
    int64_t broker_epoch; /* -1: not checked (AlterPartition v2 and older) */
} lr_ctl_isr_member;

typedef struct lr_ctl_alter_partition_req {
    int32_t broker_id; /* the leader sending it */
    int64_t broker_epoch;
    uint8_t topic_id[16];
    int32_t partition;
    int32_t leader_epoch;
    int32_t partition_epoch;
    const lr_ctl_isr_member *new_isr;
    size_t n_new_isr;
    int8_t leader_recovery_state; /* LR_MD_RECOVERED or LR_MD_RECOVERING */
} lr_ctl_alter_partition_req;

typedef struct lr_ctl_partition_state {
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int8_t leader_recovery_state;
    const int32_t *isr; /* borrowed from the image until the next call */
    uint16_t n_isr;
} lr_ctl_partition_state;

/* AlterPartition for one partition (KIP-497, docs/replication.md 1.5). Checked
 * in Kafka's order:
 *   sender not registered or broker epoch not current  STALE_BROKER_EPOCH
 *   unknown topic id                                   UNKNOWN_TOPIC_ID
 *   unknown partition                                  UNKNOWN_TOPIC_OR_PARTITION
 *   leader or partition epoch newer than ours          NOT_CONTROLLER
 *   leader epoch older                                 FENCED_LEADER_EPOCH
 *   sender is not the leader                           INVALID_REQUEST
 *   partition epoch older (e.g. a duplicate request)   INVALID_UPDATE_VERSION
 *   ISR with duplicates, non-replicas, or w/o leader   INVALID_REQUEST
 *   RECOVERING with |ISR| > 1, or RECOVERED->RECOVERING INVALID_REQUEST
 *   a member unregistered, fenced, shutting down, or
 *     with a broker epoch other than its current one   INELIGIBLE_REPLICA
 * On success the new ISR (with ELR updated, see above) is committed with
 * a bumped partition epoch, or nothing is written if it equals the current
 * state; LOGREP_ERR_NEW_LEADER_ELECTED when the change also moved the
 * leader away from the sender (the records are written). *out (may be
 * NULL) receives the partition's state after the call whenever the
 * partition exists. LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
int lr_ctl_alter_partition(lr_ctl *ctl, const lr_ctl_alter_partition_req *req,
                           lr_ctl_partition_state *out);

enum { LR_CTL_ELECT_PREFERRED = 0, LR_CTL_ELECT_UNCLEAN = 1 }; /* Kafka's ElectionType */

/* ElectLeaders for one partition. PREFERRED: move leadership to the first
 * assigned replica if it is acceptable and in the ISR. UNCLEAN: elect a
 * leader for a leaderless partition, unclean if need be.
 * Returns 0; LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION; LOGREP_ERR_ELECTION_NOT_NEEDED
 * (preferred replica already leads / the partition has a leader);
 * LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE; LOGREP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE;
 * LOGREP_ERR__INVALID_ARG; LOGREP_ERR__NOMEM. */
int lr_ctl_elect_leader(lr_ctl *ctl, const char *topic, int32_t partition, int type);

/* --- producer ids --------------------------------------------------------- */

/* AllocateProducerIds: hands the broker the next block of
 * LR_MD_PRODUCER_ID_BLOCK ids [*first, *first + *count) through a
 * ProducerIdsRecord, so a controller rebuilt from the stream never hands
 * out an id twice. Returns 0, LOGREP_ERR_STALE_BROKER_EPOCH (unknown broker
 * or old epoch), LOGREP_ERR_UNKNOWN_SERVER_ERROR (id space exhausted),
 * LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
int lr_ctl_allocate_producer_ids(lr_ctl *ctl, int32_t broker_id, int64_t broker_epoch,
                                 int64_t *first, int32_t *count);

/* --- counters --------------------------------------------------------------- */

typedef struct lr_ctl_stats {
    int64_t records;                     /* records emitted */
    int64_t leader_changes;              /* partition changes that moved the leader (incl. to none) */
    int64_t unclean_elections;           /* leaders chosen outside ISR, ELR and last known leader */
    int64_t elr_elections;               /* leaders chosen from the ELR */
    int64_t last_known_leader_elections; /* leaders restored from LastKnownElr */
    int64_t offline_transitions;         /* changes that left a partition without a leader */
    int64_t isr_shrinks;                 /* changes that removed ISR members */
    int64_t isr_expands;                 /* changes that added ISR members */
    int64_t broker_fencings;             /* brokers fenced (timeout, request, shutdown) */
    int64_t session_timeouts;            /* of which: missed heartbeats */
    int64_t unclean_restarts;            /* registrations judged unclean */
    int64_t clean_restarts;
} lr_ctl_stats;

void lr_ctl_get_stats(const lr_ctl *ctl, lr_ctl_stats *out);

#endif
