/* Internal to lib/replica: the partition's state and the helpers its files
 * share (partition.c: lifecycle, roles from metadata, status;
 * partition_hw.c: the high watermark, the ISR, its expansion and shrink,
 * and the proposals to the controller; partition_produce.c: produce and
 * the acks=all completions; partition_fetch.c: fetches served, the
 * follower's own fetch, ListOffsets and OffsetsForLeaderEpoch). */
#ifndef LR_REPLICA_PARTITION_INT_H
#define LR_REPLICA_PARTITION_INT_H

#include "replica/partition.h"

typedef struct follower {
    int32_t id;
    int64_t leo;               /* -1: unknown in this leader epoch */
    int64_t last_fetch_time;
    int64_t last_fetch_leader_leo;
    int64_t last_caught_up_time;
    int64_t broker_epoch;
    int ineligible; /* fenced or shutting down (lr_part_meta.ineligible) */
    char rack[32];
} follower;

typedef struct parked {
    uint64_t token;
    int64_t required_offset;   /* HW must reach this */
    int64_t deadline;
    int64_t base_offset;
    int64_t log_append_time;
} parked;

struct lr_partition {
    lr_alloc alloc;
    lr_log logger;
    lr_part_conf conf;
    logrep_log *log;
#ifdef LOGREP_TEST
    int bug; /* LR_BUG_* */
#endif

    int role;
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t n_replicas;
    int32_t replicas[LR_MAX_REPLICAS];
    int32_t n_isr;
    int32_t isr[LR_MAX_REPLICAS];

    /* Leader state. */
    int64_t hw;
    int64_t leso;              /* leader epoch start offset */
    follower followers[LR_MAX_REPLICAS];
    int32_t n_followers;
    int alter_pending;         /* a proposal waits to be taken */
    int alter_in_flight;       /* taken, outcome not known yet */
    int64_t alter_after;       /* a retried proposal is not taken before */
    lr_alter_req alter;
    uint64_t alter_seq;        /* ids given to proposals */
    int64_t isr_shrinks, isr_expands;

    /* acks=all produces waiting for the HW, and finished ones. */
    parked *parked;
    size_t n_parked, cap_parked;
    lr_produce_res *done;
    size_t n_done, cap_done, done_head;

    /* Follower state. */
    int fetch_in_flight;
};

#ifdef LOGREP_TEST
#define HAS_BUG(p, b) ((p)->bug == (b))
#else
#define HAS_BUG(p, b) ((void)(p), 0)
#endif

static inline int contains(const int32_t *set, int32_t n, int32_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (set[i] == id)
            return 1;
    return 0;
}

static inline follower *find_follower(lr_partition *p, int32_t id)
{
    for (int32_t i = 0; i < p->n_followers; i++)
        if (p->followers[i].id == id)
            return &p->followers[i];
    return NULL;
}

static inline int32_t effective_min_isr(const lr_partition *p)
{
    int32_t m = p->conf.min_insync_replicas;
    return m < p->n_replicas ? m : p->n_replicas;
}

/* partition_hw.c */
int32_t lr_part_maximal_isr_size(const lr_partition *p);
/* Leader: moves the HW up to what the followers' positions allow,
 * completing the parked produces it passes. */
void lr_part_maybe_advance_hw(lr_partition *p, int64_t now_ms);
/* Keeps logStart <= HW <= LEO after the log moved. */
void lr_part_clamp_hw(lr_partition *p);
void lr_part_update_follower(lr_partition *p, follower *f, const lr_fetch_req *req,
                             int64_t now_ms);

/* partition_produce.c */
void lr_part_complete_parked(lr_partition *p, logrep_err fail, int64_t now_ms);

#endif
