/* One partition replica on one broker: the leader and follower state
 * machine of Kafka's ISR replication (docs/replication.md §1), on top of a
 * logrep_log. No I/O besides the log, no clock: every call carries now_ms.
 *
 * Roles follow the controller's metadata (lr_partition_apply). As leader
 * the partition appends produce batches, tracks each follower's position
 * from its fetches, computes the high watermark over the maximal ISR,
 * proposes ISR changes (one at a time) and completes acks=all produce
 * requests once the high watermark passes them. As follower it builds the
 * next fetch (fetch offset = LEO, last fetched epoch) and applies the
 * response: records, or truncation at a diverging epoch.
 *
 * Outputs that cannot be returned at once (acks=all completions, ISR change
 * proposals) are queued inside the partition and taken with
 * lr_partition_next_completion() / lr_partition_take_alter().
 *
 * Invariants kept here (checked by the simulator):
 *  - logStart <= HW <= LEO on every replica;
 *  - the leader's HW never decreases within one leader epoch and never
 *    exceeds the LEO of a maximal-ISR member as reported by a fetch in
 *    the current epoch; it does not move while the committed ISR is below
 *    min(min.insync.replicas, replication factor);
 *  - follower positions count only after a fetch in the current leader
 *    epoch that did not answer a diverging epoch.
 */
#ifndef LR_REPLICA_PARTITION_H
#define LR_REPLICA_PARTITION_H

#include <stdint.h>

#include "base/alloc.h"
#include "base/log.h"
#include <logrep.h>
#include <logrep/log.h>

enum lr_role { LR_ROLE_NONE = 0, LR_ROLE_LEADER = 1, LR_ROLE_FOLLOWER = 2 };

enum { LR_MAX_REPLICAS = 16 };

/* The controller's view of a partition, as delivered by metadata. */
typedef struct lr_part_meta {
    int32_t leader;          /* -1: offline */
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t n_replicas;
    int32_t replicas[LR_MAX_REPLICAS];
    int32_t n_isr;
    int32_t isr[LR_MAX_REPLICAS];
    /* Racks of the replicas (same order; "" when unknown), borrowed for
     * the call and copied. */
    const char *racks[LR_MAX_REPLICAS];
    /* 1 for a replica whose broker is fenced, in controlled shutdown or
     * not registered (same order): outside the ISR it neither holds the
     * HW back nor is proposed for the ISR, as the controller would refuse
     * it (docs/replication.md 1.3, 1.5). */
    uint8_t ineligible[LR_MAX_REPLICAS];
} lr_part_meta;

/* Per-partition settings, from the topic's and the broker's conf. */
typedef struct lr_part_conf {
    int32_t node_id;
    int32_t min_insync_replicas;
    int64_t replica_lag_time_max_ms;
    int32_t max_message_bytes;
} lr_part_conf;

/* A fetch as the leader (or a follower serving consumers) receives it. */
typedef struct lr_fetch_req {
    int32_t replica_id;            /* >= 0: a follower; -1: a consumer */
    int64_t replica_epoch;         /* follower's broker epoch, -1 unknown */
    int32_t current_leader_epoch;  /* -1: not given */
    int32_t last_fetched_epoch;    /* -1: not given */
    int64_t fetch_offset;
    uint64_t max_bytes;
    int min_one;                   /* return the first batch even if larger */
    int read_committed;
    const char *client_rack;       /* NULL or "": no rack preference */
    /* A parked fetch tried again for new data: the follower's position was
     * recorded when the request arrived; do not count it twice (that would
     * overwrite the leader LEO its catch-up is judged against). */
    int retry;
    int leader_only; /* a consumer that cannot read from a follower (Fetch < v11) */
} lr_fetch_req;

typedef struct lr_fetch_res {
    logrep_err error;
    int64_t high_watermark;
    int64_t last_stable_offset;
    int64_t log_start_offset;
    int32_t diverging_epoch;       /* -1: none */
    int64_t diverging_end_offset;  /* -1: none */
    int32_t preferred_read_replica; /* -1: none */
    logrep_log_slice slice;        /* records to send (length 0: none) */
} lr_fetch_res;

/* The follower's half of a fetch: what to ask its leader. */
typedef struct lr_follower_fetch {
    int32_t leader;
    int32_t current_leader_epoch;
    int32_t last_fetched_epoch;
    int64_t fetch_offset;
    int64_t log_start_offset;
} lr_follower_fetch;

/* A produce outcome, immediate or completed later. */
typedef struct lr_produce_res {
    logrep_err error;
    int64_t base_offset;        /* -1 on error */
    int64_t log_append_time;    /* -1 unless LogAppendTime */
    int64_t log_start_offset;
    uint64_t token;             /* the caller's token */
    int parked;                 /* 1: answered later through a completion */
} lr_produce_res;

/* An ISR change to send to the controller (AlterPartition). */
typedef struct lr_alter_req {
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t n_isr;
    int32_t isr[LR_MAX_REPLICAS];
    int64_t broker_epochs[LR_MAX_REPLICAS]; /* of the ISR members, -1 unknown */
    uint64_t id; /* names the proposal, so that its answer is told from an older one's */
} lr_alter_req;

/* Observable state, for metrics and describe. */
typedef struct lr_part_status {
    int role;
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t high_watermark;
    int64_t leader_epoch_start_offset;
    int32_t n_isr;
    int32_t n_maximal_isr;
    int32_t n_replicas;
    int under_replicated;
    int under_min_isr;
    int at_min_isr;
    int alter_in_flight;
    int64_t isr_shrinks;
    int64_t isr_expands;
    int64_t parked_produces;
} lr_part_status;

typedef struct lr_partition lr_partition;

/* Creates the replica over an open log, which it takes (closed by
 * lr_partition_free). Starts with no role. Returns 0 or __NOMEM. */
int lr_partition_new(const lr_alloc *a, const lr_log *log_hook, const lr_part_conf *conf,
                     logrep_log *log, lr_partition **out);

/* Closes the log (logrep_log_close) unless abandon is set (a simulated
 * crash: logrep_log_abandon) and frees. Parked produces are dropped
 * without completion. */
void lr_partition_free(lr_partition *p, int abandon);

logrep_log *lr_partition_log(lr_partition *p);

/* Time and size retention of the log, never past the high watermark.
 * *deleted receives the segments removed. Returns 0 or a storage error. */
int lr_partition_retention(lr_partition *p, int64_t now_ms, int32_t *deleted);
/* The replica leaves service (its topic was deleted): parked produces
 * complete with NOT_LEADER_OR_FOLLOWER, as on a leadership change, so
 * their requests are answered before the partition is freed. */
void lr_partition_stop(lr_partition *p, int64_t now_ms);

/* Applies controller metadata. Stale metadata (a lower partition epoch,
 * or a lower leader epoch) is ignored and returns LOGREP_OK. A new leader
 * epoch makes this replica leader (epoch cache gets (epoch, LEO), follower
 * positions reset) or follower; either way parked produces of the old
 * epoch complete with NOT_LEADER_OR_FOLLOWER. Returns 0 or a log error
 * (epoch checkpoint). */
int lr_partition_apply(lr_partition *p, const lr_part_meta *m, int64_t now_ms);

/* Produce as leader: one v2 batch (buf is stamped in place and written).
 * acks 0, 1 or -1. With acks=-1 the result may be `parked`: it completes
 * later with `token` through lr_partition_next_completion(). Refusals are
 * results (res->error), the return value is the same code for callers
 * that only need one. */
logrep_err lr_partition_produce(lr_partition *p, void *buf, size_t len, int16_t acks,
                                int64_t timeout_ms, uint64_t token, int64_t now_ms,
                                lr_produce_res *res);

/* Serves a fetch from a follower (replica_id >= 0: leader only) or a
 * consumer (leader, or a follower up to its own HW). Updates follower
 * state, may advance the HW (completing parked produces) and may propose an
 * ISR expansion. */
logrep_err lr_partition_fetch(lr_partition *p, const lr_fetch_req *req, int64_t now_ms,
                              lr_fetch_res *res);

/* Follower: the next fetch to send; returns 0, or LOGREP_ERR__AGAIN when
 * this replica is not a follower (or a fetch is already in flight). Marks
 * the fetch in flight. */
int lr_partition_follower_fetch(lr_partition *p, lr_follower_fetch *out);

/* Follower: applies the leader's answer to the fetch `sent`. Records are
 * borrowed. A response that no longer matches (another leader epoch,
 * fetch offset no longer the LEO) is dropped. Returns 0 or a log error. */
int lr_partition_follower_response(lr_partition *p, const lr_follower_fetch *sent,
                                   logrep_err error, int64_t high_watermark,
                                   int64_t log_start_offset, int32_t diverging_epoch,
                                   int64_t diverging_end_offset, const void *records,
                                   size_t records_len, int64_t now_ms);

/* Follower: the fetch in flight failed without an answer (connection
 * lost, timeout): allow the next one. */
void lr_partition_follower_fetch_failed(lr_partition *p);

/* Leader ListOffsets: timestamp -1 latest, -2 earliest, -3 max timestamp,
 * -4 earliest local (the log start), -5 latest tiered (offset -1, no
 * error: nothing is tiered), else by time. */
logrep_err lr_partition_list_offsets(lr_partition *p, int32_t current_leader_epoch,
                                     int64_t timestamp, int read_committed, int64_t *offset,
                                     int64_t *found_timestamp, int32_t *epoch);

/* Leader OffsetsForLeaderEpoch (docs/replication.md 1.7). */
logrep_err lr_partition_epoch_end(lr_partition *p, int32_t current_leader_epoch,
                                  int32_t leader_epoch, int32_t *end_epoch,
                                  int64_t *end_offset);

/* Periodic work: ISR shrink proposals, produce timeouts. */
void lr_partition_tick(lr_partition *p, int64_t now_ms);

/* When the partition next needs a tick or its owner's attention: now_ms
 * with finished produces waiting, an ISR proposal's send time when one is
 * pending, else the earliest parked produce timeout or lagging follower's
 * ISR expiry; INT64_MAX when nothing is timed (new input changes that, and
 * is followed by a tick). */
int64_t lr_partition_deadline(const lr_partition *p, int64_t now_ms);

/* Takes the pending ISR change proposal, if any (at most one in flight)
 * and not held back by a retry delay: returns 1 and fills out, else 0. */
int lr_partition_take_alter(lr_partition *p, lr_alter_req *out, int64_t now_ms);

/* Delay before a proposal whose outcome is unknown is sent again. */
#define LR_ALTER_RETRY_MS 100

/* The controller's answer to the taken proposal `id` (docs/controller.md,
 * "The leader's side"); an answer to another proposal (one metadata
 * superseded before its answer came) is ignored. On success: the new
 * committed ISR and partition epoch.
 * INELIGIBLE_REPLICA and OPERATION_NOT_ATTEMPTED drop the proposal (known
 * not applied). Errors meaning this leader is stale (FENCED_LEADER_EPOCH,
 * INVALID_UPDATE_VERSION, NEW_LEADER_ELECTED, unknown topic) keep it in
 * flight until metadata with a newer partition or leader epoch arrives.
 * Any other error (local I/O, timeout, lost connection: the outcome is
 * unknown) queues it again after LR_ALTER_RETRY_MS. While kept, the
 * proposal's additions count in the maximal ISR, so the HW never passes a
 * replica the controller may already hold in the ISR. */
void lr_partition_alter_done(lr_partition *p, uint64_t id, logrep_err error, int32_t partition_epoch,
                             const int32_t *isr, int32_t n_isr, int64_t now_ms);

/* Next completed parked produce: returns 1 and fills out, else 0. */
int lr_partition_next_completion(lr_partition *p, lr_produce_res *out);

/* A changed min.insync.replicas (topic config) takes effect at once. */
void lr_partition_set_min_isr(lr_partition *p, int32_t min_isr, int64_t now_ms);

void lr_partition_status(const lr_partition *p, lr_part_status *out);
int64_t lr_partition_high_watermark(const lr_partition *p);
int lr_partition_role(const lr_partition *p);

/* Read-only view for the simulator's checker: as leader, the maximal ISR
 * and the LEO each member last reported in the current leader epoch (-1:
 * none yet; the leader's own entry is its LEO). Returns the member count
 * (0 when not leader), at most cap filled. */
int32_t lr_partition_sim_isr(const lr_partition *p, int32_t *ids, int64_t *leos, int32_t cap);

/* Fault injection for checker validation: test builds only (LOGREP_TEST,
 * as the test and soak libraries are built), never in a release library. */
enum {
    LR_BUG_NONE = 0,
    LR_BUG_HW_IGNORES_ISR = 1, /* leader advances HW to its own LEO */
    LR_BUG_NO_TRUNCATE = 2     /* followers ignore diverging epochs */
};
#ifdef LOGREP_TEST
void lr_partition_set_bug(lr_partition *p, int bug);
#endif

#endif
