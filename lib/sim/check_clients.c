/* The checker (check.c): what clients are told. Acknowledged writes are in
 * C (I8), refused ones in no log, reads come from C (I9), end offsets never
 * pass the true HW (I9) nor go back for one client (I7). A zombie leader of
 * an epoch a sanctioned loss left behind may still serve what that loss
 * gave up: logged, not a violation. */
#include <stdlib.h>

#include "sim/sim_int.h"

/* A replica of an epoch that a sanctioned loss left behind (a zombie
 * leader that has not heard of the unclean election yet) may still serve
 * what the loss gave up: that is the sanctioned loss itself, logged, not a
 * new violation. */
static int zombie_serve(logrep_sim *s, int32_t part, int32_t epoch)
{
    const lr_sim_cpart *cp = &s->cp[part];
    if (cp->gen == 0 || epoch < 0 || epoch >= cp->gen_epoch)
        return 0;
    lr_sim_trace(s, "checker: partition %d: a replica of epoch %d served data the sanctioned loss "
                    "(generation %u, epoch %d) gave up", part, epoch, cp->gen, cp->gen_epoch);
    return 1;
}

void lr_sim_check_ack(logrep_sim *s, int32_t part, uint64_t first, int32_t n, int64_t base,
                      uint32_t gen_at_send, int32_t served_epoch)
{
    lr_sim_cpart *cp = &s->cp[part];
    if (gen_at_send != cp->gen)
        return;
    for (int32_t i = 0; i < n && !s->failed; i++) {
        int64_t o = base + i;
        uint64_t id = first + (uint64_t)i;
        char b[40];
        lr_sim_rid_str(id, b, sizeof b);
        /* A leader of an epoch before the sanctioned loss acknowledged
         * what the loss gave up: I8 holds only without unclean elections
         * or faults beyond the budget. */
        if ((o < 0 || o >= cp->true_hw || cp->c[o] != id) && zombie_serve(s, part, served_epoch))
            return;
        if (o < 0 || o >= cp->true_hw) {
            lr_sim_fail(s, "I8: record %s acknowledged at offset %lld of partition %d, not below the "
                           "true HW %lld", b, (long long)o, part, (long long)cp->true_hw);
            return;
        }
        if (cp->c[o] != id) {
            char a[40];
            lr_sim_rid_str(cp->c[o], a, sizeof a);
            lr_sim_fail(s, "I8: record %s acknowledged at offset %lld of partition %d, where C has %s",
                        b, (long long)o, part, a);
            return;
        }
        if (s->nacked == s->capacked) {
            size_t ncap = s->capacked ? s->capacked * 2 : 256;
            lr_sim_acked *na = realloc(s->acked, ncap * sizeof *na);
            if (!na)
                return;
            s->acked = na;
            s->capacked = ncap;
        }
        s->acked[s->nacked++] = (lr_sim_acked){id, part, o, cp->gen, 0};
    }
}

void lr_sim_check_not_appended(logrep_sim *s, int32_t part, uint64_t first, int32_t n)
{
    for (int32_t id = 1; id <= s->nb; id++) {
        const lr_sim_rlog *r = s->node[id] ? lr_sim_replica_log(s, id, part) : NULL;
        if (!r)
            continue;
        for (int64_t o = r->start; o < r->leo; o++) {
            uint64_t v = r->ids[o - r->start];
            if (v >= first && v < first + (uint64_t)n) {
                char b[40];
                lr_sim_rid_str(v, b, sizeof b);
                lr_sim_fail(s, "I8: record %s refused with NOT_ENOUGH_REPLICAS is in node %d's log at %lld",
                            b, id, (long long)o);
                return;
            }
        }
    }
}

void lr_sim_check_read(logrep_sim *s, int32_t part, int64_t o, uint64_t id, int32_t batch_epoch)
{
    lr_sim_cpart *cp = &s->cp[part];
    char b[40];
    lr_sim_rid_str(id, b, sizeof b);
    if (o >= cp->true_hw) {
        if (zombie_serve(s, part, batch_epoch))
            return;
        lr_sim_fail(s, "I9: consumer read %s at offset %lld of partition %d, at or above the true HW %lld",
                    b, (long long)o, part, (long long)cp->true_hw);
        return;
    }
    if (cp->c[o] != id) {
        if (cp->cgen[o] != cp->gen)
            return; /* C was rebased (sanctioned) since */
        /* Given-up data below the true HW too: the new leader's log went on
         * with other records at offsets a zombie (or a follower not yet
         * reconciled, as I2 allows) still holds below its own HW. */
        if (zombie_serve(s, part, batch_epoch))
            return;
        char a[40];
        lr_sim_rid_str(cp->c[o], a, sizeof a);
        lr_sim_fail(s, "I9: consumer read %s at offset %lld of partition %d, committed log has %s", b,
                    (long long)o, part, a);
        return;
    }
    for (size_t i = 0; i < s->nacked; i++)
        if (s->acked[i].partition == part && s->acked[i].offset == o && s->acked[i].id == id)
            s->acked[i].read = 1;
}

void lr_sim_check_end_offset(logrep_sim *s, lr_sim_actor *a, int64_t end, int from_list,
                             int32_t epoch)
{
    lr_sim_cpart *cp = &s->cp[a->partition];
    if (end > cp->true_hw && zombie_serve(s, a->partition, epoch)) {
        return;
    }
    if (end > cp->true_hw) {
        lr_sim_fail(s, "I9: client %d was told end offset %lld of partition %d, above the true HW %lld",
                    a->idx, (long long)end, a->partition, (long long)cp->true_hw);
        return;
    }
    if ((uint32_t)a->max_seen_gen != cp->gen || a->max_seen_rebases != cp->rebases) {
        a->max_seen_gen = (int)cp->gen;
        a->max_seen_rebases = cp->rebases;
        a->max_seen_end = 0;
    }
    if (from_list && end < a->max_seen_end) {
        lr_sim_fail(s, "I7: ListOffsets(latest) told client %d %lld for partition %d after it had seen %lld",
                    a->idx, (long long)end, a->partition, (long long)a->max_seen_end);
        return;
    }
    if (end > a->max_seen_end)
        a->max_seen_end = end;
}
