/* The checker: ghost state (committed log C, true HW, acknowledged writes,
 * consumer reads, lossy events, unclean elections) and the invariants of
 * docs/simulator.md (The checker), evaluated after every simulation step.
 *
 * Sanctioned loss: every entry of C carries the generation it was set in.
 * An unclean election, or more lossy failures among a partition's replicas
 * than the budget (min ISR - 1), starts a new generation. A conflict with
 * an entry of an older generation rebases C there (logged) instead of
 * failing; entries set in the current generation are strict.
 *
 * This file holds C and the per-step invariants of the controller and the
 * replicas. The rest: check_rlog.c (the replica logs as the checker reads
 * them), check_clients.c (what clients are told), check_heal.c (liveness
 * after the heal), check_groups.c (consumer groups). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/metadata.h"
#include "node/node_int.h"
#include "sim/sim_int.h"

/* One controller: its image. A quorum: the image of everything committed
 * (check_quorum.c), which is what brokers can learn; the active
 * controller's own image may hold records that never commit. */
const lr_md_image *lr_sim_ctl_image(logrep_sim *s)
{
    if (s->nc > 1)
        return lr_sim_qck_image(s);
    logrep_node *c = s->node[s->ctl];
    return c ? lr_nctl_image(c) : NULL;
}

const lr_md_partition *lr_sim_ctl_part_of(logrep_sim *s, const char *topic, int32_t part)
{
    const lr_md_image *img = lr_sim_ctl_image(s);
    const lr_md_topic *t = img ? lr_md_topic_by_name(img, topic) : NULL;
    return t ? lr_md_partition_get(t, part) : NULL;
}

const lr_md_partition *lr_sim_ctl_part(logrep_sim *s, int32_t part)
{
    return lr_sim_ctl_part_of(s, LR_SIM_TOPIC, part);
}

static int contains(const int32_t *ids, int32_t n, int32_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

void lr_sim_rid_str(uint64_t id, char *buf, size_t n)
{
    snprintf(buf, n, "w%u.%u#%u", (unsigned)(id >> 48), (unsigned)((id >> 32) & 0xffff),
             (unsigned)(id & 0xffffffffu));
}

/* ------------------------------------------------------------ C */

static int grow_c(lr_sim_cpart *cp, size_t n)
{
    if (n <= cp->cap)
        return 0;
    size_t ncap = cp->cap ? cp->cap * 2 : 256;
    while (ncap < n)
        ncap *= 2;
    uint64_t *c = realloc(cp->c, ncap * sizeof *c);
    if (!c)
        return -1;
    cp->c = c;
    uint32_t *g = realloc(cp->cgen, ncap * sizeof *g);
    if (!g)
        return -1;
    cp->cgen = g;
    cp->cap = ncap;
    return 0;
}

static void sanction(logrep_sim *s, int32_t part, const char *why)
{
    s->cp[part].gen++;
    /* From here on only leaders of the controller's current epoch or later
     * can commit: a stale leader waking up in an older epoch exposes data
     * the sanctioned loss already gave up. */
    const lr_md_partition *mp = lr_sim_ctl_part(s, part);
    if (mp && mp->leader_epoch > s->cp[part].gen_epoch)
        s->cp[part].gen_epoch = mp->leader_epoch;
    s->stats.sanctioned++;
    lr_sim_trace(s, "checker: partition %d enters sanctioned-loss generation %u: %s", part,
                 s->cp[part].gen, why);
}

void lr_sim_sanction(logrep_sim *s, int32_t part, const char *why)
{
    sanction(s, part, why);
}

/* Truncates C to `at` after a sanctioned loss. */
static void rebase(logrep_sim *s, int32_t part, int64_t at, const char *why)
{
    lr_sim_cpart *cp = &s->cp[part];
    lr_sim_trace(s, "checker: sanctioned loss on partition %d: C rebased from %lld to %lld (%s)", part,
                 (long long)cp->true_hw, (long long)at, why);
    cp->true_hw = at;
    cp->rebases++;
    for (size_t i = 0; i < cp->n_seqs; i++)
        cp->seqs[i].gen = (uint32_t)-1; /* forget sequence expectations */
}

/* I11: an idempotent producer's records enter C once each, in sequence. */
static void check_idempotence(logrep_sim *s, int32_t part, int64_t o, uint64_t id)
{
    uint32_t writer = (uint32_t)(id >> 48);
    if (!writer || writer > s->nactors || !s->actors[writer - 1].idempotent)
        return;
    lr_sim_cpart *cp = &s->cp[part];
    uint32_t ws = (uint32_t)(id >> 32);
    int64_t seq = (int64_t)(id & 0xffffffffu);
    size_t i = 0;
    while (i < cp->n_seqs && cp->seqs[i].writer_session != ws)
        i++;
    if (i == cp->n_seqs) {
        if (cp->n_seqs == cp->cap_seqs) {
            size_t ncap = cp->cap_seqs ? cp->cap_seqs * 2 : 8;
            void *ns = realloc(cp->seqs, ncap * sizeof *cp->seqs);
            if (!ns)
                return;
            cp->seqs = ns;
            cp->cap_seqs = ncap;
        }
        cp->seqs[i].writer_session = ws;
        cp->seqs[i].last_seq = -1;
        cp->seqs[i].gen = cp->gen;
        cp->n_seqs++;
    }
    char b[40];
    lr_sim_rid_str(id, b, sizeof b);
    if (cp->seqs[i].gen != cp->gen) {
        cp->seqs[i].gen = cp->gen; /* expectations restart after a sanctioned loss */
    } else if (seq <= cp->seqs[i].last_seq) {
        lr_sim_fail(s, "I11: idempotent record %s committed again at offset %lld of partition %d "
                       "(sequence %lld after %lld)", b, (long long)o, part, (long long)seq,
                    (long long)cp->seqs[i].last_seq);
        return;
    } else if (seq != cp->seqs[i].last_seq + 1) {
        lr_sim_fail(s, "I11: idempotent record %s at offset %lld of partition %d skips from "
                       "sequence %lld to %lld", b, (long long)o, part,
                    (long long)cp->seqs[i].last_seq, (long long)seq);
        return;
    }
    cp->seqs[i].last_seq = seq;
}

/* I1: a leader's HW rose to hw: C grows to it from the leader's log. */
static void extend_c(logrep_sim *s, int32_t part, int32_t id, const lr_sim_rlog *r, int64_t hw)
{
    lr_sim_cpart *cp = &s->cp[part];
    if (hw <= cp->true_hw)
        return;
    if (grow_c(cp, (size_t)hw) != 0)
        return;
    for (int64_t o = cp->true_hw; o < hw; o++) {
        if (o < r->start || o >= r->leo) {
            lr_sim_fail(s, "I6: leader %d of partition %d has HW %lld outside its log [%lld, %lld)", id,
                        part, (long long)hw, (long long)r->start, (long long)r->leo);
            return;
        }
        uint64_t v = r->ids[o - r->start];
        cp->c[o] = v;
        cp->cgen[o] = cp->gen;
        check_idempotence(s, part, o, v);
    }
    cp->true_hw = hw;
}

/* Compares a replica's records in [from, to) with C. Returns 0, or 1
 * after failing or rebasing. */
static int match_c(logrep_sim *s, int32_t part, int32_t id, const lr_sim_rlog *r, int64_t from,
                   int64_t to, const char *inv)
{
    lr_sim_cpart *cp = &s->cp[part];
    if (from < r->start)
        from = r->start;
    for (int64_t o = from; o < to && o < cp->true_hw; o++) {
        uint64_t v = lr_sim_rlog_at(r, o);
        if (v == cp->c[o])
            continue;
        char a[40], b[40];
        lr_sim_rid_str(v, a, sizeof a);
        lr_sim_rid_str(cp->c[o], b, sizeof b);
        if (cp->cgen[o] != cp->gen) {
            char why[160];
            snprintf(why, sizeof why, "node %d holds %s where C had %s at %lld", id, a, b, (long long)o);
            rebase(s, part, o, why);
            return 1;
        }
        /* A follower still holding data of an epoch a sanctioned loss gave
         * up (it has not reconciled with the new leader yet, its HW is the
         * old one) truncates it on its next fetch. */
        if (inv[1] == '2' && cp->gen_epoch > 0 && o >= r->start && o < r->leo &&
            r->epochs[o - r->start] >= 0 && r->epochs[o - r->start] < cp->gen_epoch)
            continue;
        lr_sim_fail(s, "%s: node %d partition %d offset %lld holds %s, committed log has %s", inv, id,
                    part, (long long)o, a, b);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ per step */

/* Node id is up and the controller holds the registration of this
 * incarnation. */
int lr_sim_registered_now(logrep_sim *s, int32_t id)
{
    logrep_node *n = s->node[id];
    const lr_md_image *img = lr_sim_ctl_image(s);
    const lr_md_broker *b = img ? lr_md_broker_get(img, id) : NULL;
    return n && b && n->life.broker_epoch >= 0 && b->epoch == n->life.broker_epoch;
}

static void check_controller(logrep_sim *s, int32_t part, const lr_md_partition *mp)
{
    lr_sim_cpart *cp = &s->cp[part];
    if (mp->leader_epoch < cp->last_leader_epoch) {
        lr_sim_fail(s, "I7: controller leader epoch of partition %d went from %d to %d", part,
                    cp->last_leader_epoch, mp->leader_epoch);
        return;
    }
    if (mp->partition_epoch != cp->last_partition_epoch) {
        char isr[64] = "", elr[64] = "";
        for (int32_t i = 0, k = 0; i < mp->n_isr && k < 60; i++)
            k += snprintf(isr + k, sizeof isr - (size_t)k, "%s%d", i ? "," : "", mp->isr[i]);
        for (int32_t i = 0, k = 0; i < mp->n_elr && k < 60; i++)
            k += snprintf(elr + k, sizeof elr - (size_t)k, "%s%d", i ? "," : "", mp->elr[i]);
        lr_sim_trace(s, "controller: partition %d leader %d epoch %d partition epoch %d isr {%s} elr {%s}",
                     part, mp->leader, mp->leader_epoch, mp->partition_epoch, isr, elr);
        cp->last_partition_epoch = mp->partition_epoch;
    }
    /* A last-known-leader election (ISR and ELR empty, RECOVERING) of a
     * replica that lost data in a lossy failure is Kafka's unclean
     * recovery with the last leader (KIP-966, docs/simulator.md): what
     * that replica lost is gone, as with an unclean election. */
    if (mp->leader_epoch > cp->last_leader_epoch && mp->leader >= 0 &&
        mp->lrs == LR_MD_RECOVERING && cp->lossy[mp->leader]) {
        char why[96];
        snprintf(why, sizeof why, "last-known-leader election of node %d, which lost data",
                 mp->leader);
        sanction(s, part, why);
    }
    cp->last_leader_epoch = mp->leader_epoch;
    if (mp->leader >= 0 && mp->leader_epoch >= 0 && mp->leader_epoch < 256) {
        int32_t *slot = &cp->epoch_leader[mp->leader_epoch];
        if (*slot && *slot != mp->leader + 1) {
            lr_sim_fail(s, "I7: partition %d epoch %d has two leaders (%d, then %d)", part,
                        mp->leader_epoch, *slot - 1, mp->leader);
            return;
        }
        *slot = mp->leader + 1;
    }
    /* I13 (the image's own structural checks run once per step for all). */
    for (int32_t i = 0; i < mp->n_elr; i++)
        if (contains(mp->isr, mp->n_isr, mp->elr[i])) {
            lr_sim_fail(s, "I13: partition %d: %d is in both ISR and ELR", part, mp->elr[i]);
            return;
        }
    if (mp->n_isr >= s->conf.min_isr && mp->n_elr > 0) {
        lr_sim_fail(s, "I13: partition %d: ISR of %d >= min ISR but ELR has %d", part, mp->n_isr,
                    mp->n_elr);
        return;
    }
    /* Lossy failures end when the replica is back in the ISR under the
     * broker epoch of its new incarnation (a restarted controller may still
     * list the old incarnation in the ISR). */
    int32_t lossy = 0;
    for (int32_t id = 1; id <= s->nb; id++) {
        int in = contains(mp->isr, mp->n_isr, id);
        if (cp->lossy[id] == 1 && !in)
            cp->lossy[id] = 2;
        else if (cp->lossy[id] == 2 && in && lr_sim_registered_now(s, id)) {
            cp->lossy[id] = 0;
            cp->lossy_end_epoch[id] = mp->leader_epoch;
            lr_sim_trace(s, "checker: lossy failure of node %d on partition %d ends (back in ISR)", id, part);
        }
        if (cp->lossy[id])
            lossy++;
    }
    (void)lossy;
}

void lr_sim_mark_lossy(logrep_sim *s, int32_t id)
{
    s->stats.lossy_events++;
    lr_sim_gck_lossy(s, id);
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        lr_sim_cpart *cp = &s->cp[p];
        const lr_md_partition *mp = lr_sim_ctl_part(s, p);
        if (mp && !contains(mp->replicas, mp->n_replicas, id))
            continue;
        int was = cp->lossy[id] != 0;
        cp->lossy[id] = 1;
        int32_t n = 0;
        for (int32_t i = 1; i <= s->nb; i++)
            if (cp->lossy[i])
                n++;
        if (!was && n > s->conf.min_isr - 1) {
            char why[96];
            snprintf(why, sizeof why, "%d lossy failures among its replicas exceed the budget of %d", n,
                     s->conf.min_isr - 1);
            sanction(s, p, why);
        }
    }
}

static void check_replica(logrep_sim *s, int32_t part, int32_t id, const lr_md_partition *mp)
{
    lr_sim_cpart *cp = &s->cp[part];
    lr_npart *np = lr_node_part(s->node[id], LR_SIM_TOPIC, part);
    if (!np)
        return;
    lr_part_status st;
    lr_partition_status(np->rep, &st);
    const lr_sim_rlog *r = lr_sim_replica_log(s, id, part);
    if (!r)
        return;
    /* I6 */
    if (st.log_start_offset > st.high_watermark || st.high_watermark > st.log_end_offset) {
        lr_sim_fail(s, "I6: node %d partition %d: log start %lld, HW %lld, LEO %lld", id, part,
                    (long long)st.log_start_offset, (long long)st.high_watermark,
                    (long long)st.log_end_offset);
        return;
    }
    /* I7: known epochs never decrease within an incarnation. */
    if (cp->known_inc[id] == s->inc[id] && st.leader_epoch < cp->known_epoch[id]) {
        lr_sim_fail(s, "I7: node %d partition %d leader epoch went from %d to %d", id, part,
                    cp->known_epoch[id], st.leader_epoch);
        return;
    }
    cp->known_inc[id] = s->inc[id];
    cp->known_epoch[id] = st.leader_epoch;
    /* I7: batch epochs non-decreasing, epoch cache strictly increasing. */
    for (int64_t o = r->start + 1; o < r->leo; o++)
        if (r->epochs[o - r->start] < r->epochs[o - 1 - r->start]) {
            lr_sim_fail(s, "I7: node %d partition %d: batch epoch drops from %d to %d at offset %lld",
                        id, part, r->epochs[o - 1 - r->start], r->epochs[o - r->start], (long long)o);
            return;
        }
    logrep_log *log = lr_partition_log(np->rep);
    int32_t pe = -1;
    int64_t ps = -1;
    for (size_t i = 0;; i++) {
        int32_t e;
        int64_t so;
        if (logrep_log_epoch_entry(log, i, &e, &so) != LOGREP_OK)
            break;
        if (e <= pe || so < ps || (i > 0 && so == ps)) {
            lr_sim_fail(s, "I7: node %d partition %d: epoch cache not increasing ((%d,%lld) after (%d,%lld))",
                        id, part, e, (long long)so, pe, (long long)ps);
            return;
        }
        pe = e;
        ps = so;
    }
    if (pe > st.leader_epoch && st.leader_epoch >= 0) {
        lr_sim_fail(s, "I7: node %d partition %d caches epoch %d above its known epoch %d", id, part,
                    pe, st.leader_epoch);
        return;
    }
    if (st.role == LR_ROLE_LEADER) {
        /* I10: it leads only in an epoch the controller gave it. */
        int32_t e = st.leader_epoch;
        if (e >= 0 && e < 256 && cp->epoch_leader[e] && cp->epoch_leader[e] != id + 1) {
            lr_sim_fail(s, "I10: node %d leads partition %d in epoch %d, which the controller gave node %d",
                        id, part, e, cp->epoch_leader[e] - 1);
            return;
        }
        /* I7: leader HW monotonic within a tenure. */
        if (cp->ten_epoch[id] != e || cp->ten_inc[id] != s->inc[id]) {
            cp->ten_epoch[id] = e;
            cp->ten_inc[id] = s->inc[id];
            cp->ten_hw0[id] = cp->ten_hw[id] = st.high_watermark;
        } else if (st.high_watermark < cp->ten_hw[id]) {
            lr_sim_fail(s, "I7: leader %d of partition %d lowered its HW from %lld to %lld in epoch %d",
                        id, part, (long long)cp->ten_hw[id], (long long)st.high_watermark, e);
            return;
        }
        cp->ten_hw[id] = st.high_watermark;
        /* I6: HW <= every maximal-ISR member's reported LEO. */
        int32_t ids[LR_MAX_REPLICAS];
        int64_t leos[LR_MAX_REPLICAS];
        int32_t n = lr_partition_sim_isr(np->rep, ids, leos, LR_MAX_REPLICAS);
        for (int32_t i = 0; i < n && i < LR_MAX_REPLICAS; i++) {
            if (ids[i] >= 1 && ids[i] <= s->nb &&
                (cp->lossy[ids[i]] || e < cp->lossy_end_epoch[ids[i]]))
                continue; /* lost data it had reported (seen by this epoch's leader):
                           * a fault, not the leader's doing */
            int64_t bound = leos[i] >= 0 ? leos[i] : cp->ten_hw0[id];
            if (st.high_watermark > bound) {
                lr_sim_fail(s, "I6: leader %d of partition %d has HW %lld above %s %lld of ISR member %d "
                               "(epoch %d)",
                            id, part, (long long)st.high_watermark,
                            leos[i] >= 0 ? "the reported LEO" : "its tenure's first HW (no report yet)",
                            (long long)bound, ids[i], e);
                return;
            }
        }
        /* I1 (leaders of an epoch a sanctioned loss left behind are zombies) */
        if (e >= cp->gen_epoch) {
            if (match_c(s, part, id, r, r->start,
                        st.high_watermark < cp->true_hw ? st.high_watermark : cp->true_hw, "I1"))
                return;
            extend_c(s, part, id, r, st.high_watermark);
            if (s->failed)
                return;
        }
    }
    /* I2: below its HW every replica holds C; a replica still in an epoch
     * a sanctioned loss left behind holds the given-up data until it
     * learns the new epoch and truncates. */
    int64_t lim = st.high_watermark < r->leo ? st.high_watermark : r->leo;
    if (st.leader_epoch >= cp->gen_epoch && match_c(s, part, id, r, r->start, lim, "I2"))
        return;
    /* I3: the designated leader, running in the current epoch, holds C. */
    if (mp && mp->leader == id && st.role == LR_ROLE_LEADER && st.leader_epoch == mp->leader_epoch) {
        if (r->leo < cp->true_hw) {
            if (cp->cgen[r->leo] != cp->gen) {
                rebase(s, part, r->leo, "the new leader's log is shorter");
                return;
            }
            lr_sim_fail(s, "I3: leader %d of partition %d (epoch %d) has LEO %lld below the true HW %lld",
                        id, part, st.leader_epoch, (long long)r->leo, (long long)cp->true_hw);
            return;
        }
        match_c(s, part, id, r, r->start, cp->true_hw, "I3");
    }
}

void lr_sim_check(logrep_sim *s)
{
    logrep_node *c = s->node[s->ctl];
    if (s->nc > 1) {
        /* The quorum's checks; unclean elections are seen in the
         * committed records there. */
        lr_sim_qck_step(s);
        if (s->failed)
            return;
    } else if (c) {
        const lr_md_image *img = lr_nctl_image(c);
        char why[200];
        if (img && lr_md_check_invariants(img, why, sizeof why) != 0) {
            lr_sim_fail(s, "I13: controller image: %s", why);
            return;
        }
        logrep_node_stats ns;
        logrep_node_stats_get(c, &ns);
        /* The controller's counters restart with each incarnation. */
        if (s->ctl_stats_inc != s->inc[s->ctl]) {
            s->ctl_stats_inc = s->inc[s->ctl];
            s->ctl_unclean_seen = 0;
        }
        if (ns.unclean_elections > s->ctl_unclean_seen) {
            s->stats.unclean_elections += ns.unclean_elections - s->ctl_unclean_seen;
            s->ctl_unclean_seen = ns.unclean_elections;
            for (int32_t p = 0; p < s->conf.partitions; p++)
                sanction(s, p, "unclean election");
            lr_sim_gck_unclean(s);
        }
    }
    for (int32_t p = 0; p < s->conf.partitions && !s->failed; p++) {
        const lr_md_partition *mp = lr_sim_ctl_part(s, p);
        if (mp)
            check_controller(s, p, mp);
        for (int32_t id = 1; id <= s->nb && !s->failed; id++)
            if (s->node[id])
                check_replica(s, p, id, mp);
    }
    if (!s->failed && s->gck)
        lr_sim_gck_step(s);
}

/* ------------------------------------------------------------ ghost state */

void lr_sim_check_part_init(lr_sim_cpart *cp)
{
    memset(cp, 0, sizeof *cp);
    cp->last_leader_epoch = -1;
    for (int32_t i = 0; i <= LR_SIM_MAXN; i++)
        cp->ten_epoch[i] = cp->known_epoch[i] = -1;
}

static void part_free(lr_sim_cpart *cp)
{
    free(cp->c);
    free(cp->cgen);
    free(cp->seqs);
    for (int32_t i = 0; i <= LR_SIM_MAXN; i++) {
        free(cp->rlog[i].ids);
        free(cp->rlog[i].epochs);
    }
}

void lr_sim_check_topic_deleted(logrep_sim *s)
{
    /* A deleted topic's records go with it: a re-created topic starts a
     * ghost state of its own (epochs, offsets and C from zero). */
    for (int32_t p = 0; p < LR_SIM_MAXP; p++) {
        part_free(&s->cp[p]);
        lr_sim_check_part_init(&s->cp[p]);
    }
    s->nacked = 0;
}

void lr_sim_check_free(logrep_sim *s)
{
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        part_free(&s->cp[p]);
    free(s->acked);
}
