/* The leader's high watermark and ISR (docs/replication.md 1.3-1.5): the
 * maximal ISR, HW advance, ISR expansion on a follower's fetch and shrink
 * on the tick, eligibility, and the AlterPartition proposal cycle. */
#include "replica/partition_int.h"

#include <string.h>

/* Maximal ISR = committed ISR plus replicas an in-flight change adds. */
static int in_maximal_isr(const lr_partition *p, int32_t id)
{
    if (contains(p->isr, p->n_isr, id))
        return 1;
    return (p->alter_pending || p->alter_in_flight) && contains(p->alter.isr, p->alter.n_isr, id);
}

int32_t lr_part_maximal_isr_size(const lr_partition *p)
{
    int32_t n = p->n_isr;
    if (p->alter_pending || p->alter_in_flight)
        for (int32_t i = 0; i < p->alter.n_isr; i++)
            if (!contains(p->isr, p->n_isr, p->alter.isr[i]))
                n++;
    return n;
}

/* Leader HW per docs/replication.md 1.3: min LEO over the maximal ISR (and caught-up
 * non-ISR followers), frozen while the committed ISR is below min ISR. */
void lr_part_maybe_advance_hw(lr_partition *p, int64_t now_ms)
{
    if (p->role != LR_ROLE_LEADER)
        return;
    int64_t leo = logrep_log_end_offset(p->log);
    int64_t cand = leo;
    if (!HAS_BUG(p, LR_BUG_HW_IGNORES_ISR)) {
        if (p->n_isr < effective_min_isr(p))
            return;
        for (int32_t i = 0; i < p->n_followers; i++) {
            follower *f = &p->followers[i];
            if (in_maximal_isr(p, f->id)) {
                if (f->leo < cand)
                    cand = f->leo; /* unknown (-1) blocks the HW */
            } else if (!f->ineligible && f->leo >= 0 && f->leo < cand &&
                       (f->leo == leo ||
                        now_ms - f->last_caught_up_time <= p->conf.replica_lag_time_max_ms)) {
                cand = f->leo;
            }
        }
    }
    if (cand > p->hw) {
        p->hw = cand;
        lr_part_complete_parked(p, LOGREP_OK, now_ms);
    }
}

static void propose_isr(lr_partition *p, const int32_t *isr, int32_t n)
{
    p->alter.leader_epoch = p->leader_epoch;
    p->alter.partition_epoch = p->partition_epoch;
    p->alter.n_isr = n;
    p->alter.id = ++p->alter_seq;
    for (int32_t i = 0; i < n; i++) {
        p->alter.isr[i] = isr[i];
        follower *f = find_follower(p, isr[i]);
        p->alter.broker_epochs[i] = f ? f->broker_epoch : -1;
    }
    p->alter_pending = 1;
}

int32_t lr_partition_sim_isr(const lr_partition *p, int32_t *ids, int64_t *leos, int32_t cap)
{
    if (p->role != LR_ROLE_LEADER)
        return 0;
    int32_t n = 0;
    for (int32_t i = 0; i < p->n_replicas; i++) {
        int32_t id = p->replicas[i];
        if (!in_maximal_isr(p, id))
            continue;
        if (n < cap) {
            const follower *f = id == p->conf.node_id ? NULL : find_follower((lr_partition *)p, id);
            ids[n] = id;
            leos[n] = id == p->conf.node_id ? logrep_log_end_offset(p->log) : f ? f->leo : -1;
        }
        n++;
    }
    return n;
}


void lr_part_clamp_hw(lr_partition *p)
{
    int64_t start = logrep_log_start_offset(p->log), leo = logrep_log_end_offset(p->log);
    if (p->hw > leo)
        p->hw = leo;
    if (p->hw < start)
        p->hw = start;
}

/* Follower bookkeeping on a valid fetch (docs/replication.md 1.4) and ISR expansion (1.5). */
void lr_part_update_follower(lr_partition *p, follower *f, const lr_fetch_req *req, int64_t now_ms)
{
    int64_t leo = logrep_log_end_offset(p->log);
    if (req->fetch_offset >= leo) {
        if (now_ms > f->last_caught_up_time)
            f->last_caught_up_time = now_ms;
    } else if (f->leo >= 0 && req->fetch_offset >= f->last_fetch_leader_leo) {
        if (f->last_fetch_time > f->last_caught_up_time)
            f->last_caught_up_time = f->last_fetch_time;
    }
    f->leo = req->fetch_offset;
    f->last_fetch_time = now_ms;
    f->last_fetch_leader_leo = leo;
    if (req->replica_epoch >= 0)
        f->broker_epoch = req->replica_epoch;

    if (!contains(p->isr, p->n_isr, f->id) && !p->alter_pending && !p->alter_in_flight &&
        !f->ineligible && f->leo >= p->hw && f->leo >= p->leso && f->broker_epoch >= 0) {
        int32_t isr[LR_MAX_REPLICAS];
        memcpy(isr, p->isr, (size_t)p->n_isr * sizeof *isr);
        isr[p->n_isr] = f->id;
        propose_isr(p, isr, p->n_isr + 1);
        p->isr_expands++;
    }
}

/* ------------------------------------------------------------ periodic */

void lr_partition_tick(lr_partition *p, int64_t now_ms)
{
    if (p->role != LR_ROLE_LEADER) {
        if (p->n_parked)
            lr_part_complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
        return;
    }
    lr_part_complete_parked(p, LOGREP_OK, now_ms); /* timeouts */
    if (p->alter_pending || p->alter_in_flight)
        return;
    int64_t leo = logrep_log_end_offset(p->log);
    int32_t keep[LR_MAX_REPLICAS], n = 0;
    for (int32_t i = 0; i < p->n_isr; i++) {
        int32_t id = p->isr[i];
        follower *f = id == p->conf.node_id ? NULL : find_follower(p, id);
        if (f && f->leo != leo && now_ms - f->last_caught_up_time > p->conf.replica_lag_time_max_ms)
            continue; /* out of sync */
        keep[n++] = id;
    }
    if (n < p->n_isr) {
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "isr", "shrinking ISR from %d to %d members",
               p->n_isr, n);
        propose_isr(p, keep, n);
        p->isr_shrinks++;
    }
}

int64_t lr_partition_deadline(const lr_partition *p, int64_t now_ms)
{
    if (p->n_done || (p->role != LR_ROLE_LEADER && p->n_parked))
        return now_ms;
    if (p->role != LR_ROLE_LEADER)
        return INT64_MAX;
    if (p->alter_pending) /* to be sent now, or once its retry delay ends */
        return p->alter_after > now_ms ? p->alter_after : now_ms;
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < p->n_parked; i++)
        if (p->parked[i].deadline < next)
            next = p->parked[i].deadline;
    if (p->alter_in_flight)
        return next;
    /* The tick shrinks the ISR once a follower has lagged longer than
     * replica.lag.time.max.ms; one that has caught up starts no clock. */
    int64_t leo = logrep_log_end_offset(p->log);
    for (int32_t i = 0; i < p->n_isr; i++) {
        const follower *f = NULL;
        for (int32_t k = 0; k < p->n_followers; k++)
            if (p->followers[k].id == p->isr[i])
                f = &p->followers[k];
        if (!f || f->leo == leo)
            continue;
        int64_t at = f->last_caught_up_time + p->conf.replica_lag_time_max_ms + 1;
        if (at < next)
            next = at;
    }
    return next < now_ms ? now_ms : next;
}

int lr_partition_take_alter(lr_partition *p, lr_alter_req *out, int64_t now_ms)
{
    if (!p->alter_pending || now_ms < p->alter_after)
        return 0;
    *out = p->alter;
    p->alter_pending = 0;
    p->alter_in_flight = 1;
    return 1;
}

void lr_partition_alter_done(lr_partition *p, uint64_t id, logrep_err error, int32_t partition_epoch,
                             const int32_t *isr, int32_t n_isr, int64_t now_ms)
{
    /* Metadata can supersede a proposal before its answer comes, and a
     * new one be sent meanwhile: the old answer must not settle the new
     * one, or its additions stop counting while the controller may still
     * commit them (the HW would pass a replica it puts in the ISR). */
    if (!p->alter_in_flight || id != p->alter.id)
        return; /* duplicate or stale answer */
    if (p->role != LR_ROLE_LEADER) {
        p->alter_in_flight = 0;
        return;
    }
    switch (error) {
    case LOGREP_OK:
        break;
    case LOGREP_ERR_INELIGIBLE_REPLICA:
    case LOGREP_ERR_OPERATION_NOT_ATTEMPTED:
        /* The controller says it applied nothing, and no controller ever
         * will on this partition epoch: the committed ISR stands. */
        p->alter_in_flight = 0;
        return;
    case LOGREP_ERR_FENCED_LEADER_EPOCH:
    case LOGREP_ERR_INVALID_UPDATE_VERSION:
    case LOGREP_ERR_NEW_LEADER_ELECTED:
    case LOGREP_ERR_UNKNOWN_TOPIC_ID:
    case LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION:
        /* This leader's view is stale; an earlier try of this very
         * proposal may be what moved the controller on. Newer metadata
         * settles it (lr_partition_apply); until then the proposal's
         * additions keep counting in the maximal ISR. */
        return;
    default:
        /* Timeout, lost connection or a retriable error: the controller
         * may have applied it, so it keeps counting and is sent again. */
        p->alter_in_flight = 0;
        p->alter_pending = 1;
        p->alter_after = now_ms + LR_ALTER_RETRY_MS;
        return;
    }
    p->alter_in_flight = 0;
    if (partition_epoch < p->partition_epoch || n_isr > LR_MAX_REPLICAS || n_isr < 0)
        return;
    p->partition_epoch = partition_epoch;
    p->n_isr = n_isr;
    memcpy(p->isr, isr, (size_t)n_isr * sizeof *isr);
    lr_part_maybe_advance_hw(p, now_ms);
}

void lr_partition_set_min_isr(lr_partition *p, int32_t min_isr, int64_t now_ms)
{
    if (min_isr < 1 || min_isr == p->conf.min_insync_replicas)
        return;
    p->conf.min_insync_replicas = min_isr;
    lr_part_maybe_advance_hw(p, now_ms); /* a lower minimum can unfreeze the HW */
}
