/* Partition replica state machine: leader and follower (docs/replication.md §1):
 * lifecycle, the roles metadata gives, status. The high watermark and the
 * ISR are partition_hw.c, produce partition_produce.c, fetches and offsets
 * partition_fetch.c. */
#include "replica/partition_int.h"

#include <stdio.h>
#include <string.h>

#ifdef LOGREP_TEST
void lr_partition_set_bug(lr_partition *p, int bug)
{
    p->bug = bug;
}
#endif

static void reset_followers(lr_partition *p, int64_t now_ms)
{
    p->n_followers = 0;
    for (int32_t i = 0; i < p->n_replicas; i++) {
        if (p->replicas[i] == p->conf.node_id)
            continue;
        follower *f = &p->followers[p->n_followers++];
        memset(f, 0, sizeof *f);
        f->id = p->replicas[i];
        f->leo = -1;
        f->broker_epoch = -1;
        /* ISR members get a grace period, others must catch up first. */
        f->last_caught_up_time = contains(p->isr, p->n_isr, f->id) ? now_ms : 0;
    }
}

/* ------------------------------------------------------------ lifecycle */

int lr_partition_new(const lr_alloc *a, const lr_log *log_hook, const lr_part_conf *conf,
                     logrep_log *log, lr_partition **out)
{
    lr_partition *p = lr_calloc(a, 1, sizeof *p);
    if (!p)
        return LOGREP_ERR__NOMEM;
    p->alloc = *a;
    if (log_hook)
        p->logger = *log_hook;
    p->conf = *conf;
    p->log = log;
    p->leader = -1;
    p->leader_epoch = -1;
    p->partition_epoch = -1;
    p->hw = logrep_log_start_offset(log);
    *out = p;
    return 0;
}

void lr_partition_free(lr_partition *p, int abandon)
{
    if (!p)
        return;
    if (abandon)
        logrep_log_abandon(p->log);
    else
        logrep_log_close(p->log);
    lr_free(&p->alloc, p->parked, p->cap_parked * sizeof *p->parked);
    lr_free(&p->alloc, p->done, p->cap_done * sizeof *p->done);
    lr_alloc a = p->alloc;
    lr_free(&a, p, sizeof *p);
}

void lr_partition_stop(lr_partition *p, int64_t now_ms)
{
    lr_part_complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
}

logrep_log *lr_partition_log(lr_partition *p)
{
    return p->log;
}

int lr_partition_retention(lr_partition *p, int64_t now_ms, int32_t *deleted)
{
    return logrep_log_retention_upto(p->log, now_ms, p->hw, deleted);
}

/* Racks and eligibility of the followers, from metadata. */
static void follower_meta(lr_partition *p, const lr_part_meta *m)
{
    for (int32_t i = 0; i < m->n_replicas; i++) {
        follower *f = find_follower(p, m->replicas[i]);
        if (!f)
            continue;
        if (m->racks[i])
            snprintf(f->rack, sizeof f->rack, "%s", m->racks[i]);
        f->ineligible = m->ineligible[i] != 0;
    }
}

int lr_partition_apply(lr_partition *p, const lr_part_meta *m, int64_t now_ms)
{
    if (m->n_replicas > LR_MAX_REPLICAS || m->n_isr > LR_MAX_REPLICAS || m->n_replicas < 0 ||
        m->n_isr < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (m->partition_epoch < p->partition_epoch || m->leader_epoch < p->leader_epoch)
        return 0; /* stale: delayed or reordered metadata */
    int new_epoch = m->leader_epoch > p->leader_epoch;
    p->partition_epoch = m->partition_epoch;
    p->n_replicas = m->n_replicas;
    memcpy(p->replicas, m->replicas, (size_t)m->n_replicas * sizeof *m->replicas);
    p->n_isr = m->n_isr;
    memcpy(p->isr, m->isr, (size_t)m->n_isr * sizeof *m->isr);

    if (!new_epoch) {
        /* Same leader epoch: an ISR change (ours committed, or the
         * controller's). The committed view replaces any proposal made
         * on an older partition epoch; one made on this very state is
         * still in flight and its additions still count (maximal ISR). */
        if (m->partition_epoch > p->alter.partition_epoch)
            p->alter_pending = p->alter_in_flight = 0;
        if (p->role == LR_ROLE_LEADER) {
            follower_meta(p, m);
            lr_part_maybe_advance_hw(p, now_ms);
        }
        return 0;
    }

    int was_leader = p->role == LR_ROLE_LEADER;
    int32_t old_epoch = p->leader_epoch;
    p->leader = m->leader;
    p->leader_epoch = m->leader_epoch;
    p->alter_pending = p->alter_in_flight = 0;
    p->fetch_in_flight = 0;
    if (was_leader || p->n_parked)
        lr_part_complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
    lr_part_clamp_hw(p);

    if (m->leader == p->conf.node_id) {
        int64_t leo = logrep_log_end_offset(p->log);
        int err = logrep_log_epoch_assign(p->log, m->leader_epoch, leo);
        if (err) {
            /* Not leader yet: the same metadata applied again (the host
             * retries) must still be a new epoch. */
            p->role = LR_ROLE_NONE;
            p->leader_epoch = old_epoch;
            return err;
        }
        p->role = LR_ROLE_LEADER;
        p->leso = leo;
        reset_followers(p, now_ms);
        follower_meta(p, m);
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "replica", "leader in epoch %d at LEO %lld HW %lld",
               m->leader_epoch, (long long)leo, (long long)p->hw);
        lr_part_maybe_advance_hw(p, now_ms);
    } else if (m->leader >= 0 && contains(m->replicas, m->n_replicas, p->conf.node_id)) {
        p->role = LR_ROLE_FOLLOWER;
        p->n_followers = 0;
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "replica", "follower of %d in epoch %d", m->leader,
               m->leader_epoch);
    } else {
        p->role = LR_ROLE_NONE;
        p->n_followers = 0;
    }
    return 0;
}

void lr_partition_status(const lr_partition *p, lr_part_status *s)
{
    memset(s, 0, sizeof *s);
    s->role = p->role;
    s->leader = p->leader;
    s->leader_epoch = p->leader_epoch;
    s->partition_epoch = p->partition_epoch;
    s->log_start_offset = logrep_log_start_offset(p->log);
    s->log_end_offset = logrep_log_end_offset(p->log);
    s->high_watermark = p->hw;
    s->leader_epoch_start_offset = p->leso;
    s->n_isr = p->n_isr;
    s->n_maximal_isr = lr_part_maximal_isr_size(p);
    s->n_replicas = p->n_replicas;
    int32_t effmin = effective_min_isr(p);
    s->under_replicated = p->n_isr < p->n_replicas;
    s->under_min_isr = p->n_isr < effmin;
    s->at_min_isr = p->n_isr == effmin;
    s->alter_in_flight = p->alter_pending || p->alter_in_flight;
    s->isr_shrinks = p->isr_shrinks;
    s->isr_expands = p->isr_expands;
    s->parked_produces = (int64_t)p->n_parked;
}

int64_t lr_partition_high_watermark(const lr_partition *p)
{
    return p->hw;
}

int lr_partition_role(const lr_partition *p)
{
    return p->role;
}
