/* The checker (check.c): liveness after the heal (I15). Every partition
 * has a leader, a full ISR and an empty ELR; the replicas converged on one
 * log that is C; every acknowledged record was read by a tail consumer. */
#include "controller/metadata.h"
#include "sim/sim_int.h"

/* I15 after a heal: converged replicas and every acked record read. */
int lr_sim_check_liveness(logrep_sim *s)
{
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        const lr_md_partition *mp = lr_sim_ctl_part(s, p);
        if (!mp || mp->leader < 0) {
            lr_sim_fail(s, "I15: partition %d has no leader after the heal", p);
            return -1;
        }
        if (mp->n_isr != mp->n_replicas || mp->n_elr) {
            lr_sim_fail(s, "I15: partition %d: ISR %d of %d replicas, ELR %d after the heal", p,
                        mp->n_isr, mp->n_replicas, mp->n_elr);
            return -1;
        }
        const lr_sim_rlog *lr = lr_sim_replica_log(s, mp->leader, p);
        if (!lr) {
            lr_sim_fail(s, "I15: partition %d: leader %d unreadable", p, mp->leader);
            return -1;
        }
        for (int32_t i = 0; i < mp->n_replicas; i++) {
            int32_t id = mp->replicas[i];
            logrep_sim_replica v;
            const lr_sim_rlog *r = lr_sim_replica_log(s, id, p);
            if (logrep_sim_replica_view(s, id, p, &v) != LOGREP_OK || !r) {
                lr_sim_fail(s, "I15: partition %d: replica %d not running", p, id);
                return -1;
            }
            if (v.high_watermark != v.log_end_offset || r->leo != lr->leo) {
                lr_sim_fail(s, "I15: partition %d: replica %d HW %lld LEO %lld, leader LEO %lld", p, id,
                            (long long)v.high_watermark, (long long)v.log_end_offset,
                            (long long)lr->leo);
                return -1;
            }
            for (int64_t o = r->start > lr->start ? r->start : lr->start; o < r->leo; o++)
                if (lr_sim_rlog_at(r, o) != lr_sim_rlog_at(lr, o)) {
                    lr_sim_fail(s, "I15: partition %d: replicas %d and %d differ at offset %lld", p, id,
                                mp->leader, (long long)o);
                    return -1;
                }
        }
        if (s->cp[p].true_hw != lr->leo) {
            lr_sim_fail(s, "I15: partition %d: true HW %lld, converged LEO %lld", p,
                        (long long)s->cp[p].true_hw, (long long)lr->leo);
            return -1;
        }
    }
    for (size_t i = 0; i < s->nacked; i++) {
        const lr_sim_acked *k = &s->acked[i];
        if (k->gen == s->cp[k->partition].gen && !k->read) {
            char b[40];
            lr_sim_rid_str(k->id, b, sizeof b);
            lr_sim_fail(s, "I15: acked record %s (partition %d offset %lld) was never read by the tail consumer",
                        b, k->partition, (long long)k->offset);
            return -1;
        }
    }
    return 0;
}
