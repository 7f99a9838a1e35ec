/* The checker of a controller quorum (docs/simulator.md, "A controller
 * quorum"): ghost state of the metadata log and the invariants of the
 * voters and of the brokers following them, after every step.
 *
 * - The model M: every metadata entry ever committed, in order. A voter
 *   reports its committed prefix (the smaller of its commit point and its
 *   log end); the entries below it must equal M, and those past M's end
 *   extend it (Q2). Within an incarnation a voter's log never ends below
 *   what it already reported committed. Below a log trimmed to a
 *   snapshot the entries are not read again: the log never starts above
 *   M's end, and a standby voter's image (replayed, or loaded from a
 *   snapshot) is M's image at its offset, as for brokers (Q2).
 * - The committed image: M replayed into a standby controller of the
 *   simulator's own. It is the checker's controller view (check.c): what
 *   brokers can learn. Unclean elections are seen in its records.
 * - One active controller per quorum epoch, one quorum leader per epoch,
 *   over the whole run (Q1); a voter's quorum epoch never decreases
 *   within an incarnation.
 * - Brokers: a broker's metadata image never passes M, and at its offset
 *   every partition of the topic is what M's image was at that offset
 *   (Q3: the same sequence, in order, never an uncommitted record). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/metadata.h"
#include "node/ctl_role.h"
#include "sim/sim_int.h"

typedef struct qentry {
    int32_t epoch;
    int16_t control;
    uint32_t len;
    uint8_t *data;
} qentry;

/* A partition of the committed image, after the record that changed it. */
typedef struct qhist {
    int64_t next;   /* the image's next offset once applied */
    int32_t leader; /* -2: the partition does not exist */
    int32_t leader_epoch, partition_epoch;
    uint64_t isr;   /* bit per node id */
} qhist;

/* A partition before a record, to see unclean elections. */
typedef struct qprev {
    uint8_t id[16];
    int32_t part, leader;
    uint64_t isr, elr, lke;
} qprev;

struct lr_sim_qck {
    qentry *m;
    size_t n, cap;
    uint32_t inc[LR_SIM_MAXN + 1];
    int64_t verified[LR_SIM_MAXN + 1];
    int32_t epoch[LR_SIM_MAXN + 1];
    int32_t *active_of, *leader_of; /* by quorum epoch, 0 none */
    size_t n_epochs;
    logrep_conf *conf;
    lr_ctl *ghost;
    qhist *h[LR_SIM_MAXP];
    size_t nh[LR_SIM_MAXP], caph[LR_SIM_MAXP];
    qprev *prev;
    size_t n_prev, cap_prev;
    uint32_t binc[LR_SIM_MAXN + 1];
    int64_t bnext[LR_SIM_MAXN + 1];
    uint32_t vinc[LR_SIM_MAXN + 1]; /* standby images checked, as for brokers */
    int64_t vnext[LR_SIM_MAXN + 1];
};

static uint64_t mask_of(const int32_t *ids, int32_t n)
{
    uint64_t m = 0;
    for (int32_t i = 0; i < n; i++)
        if (ids[i] >= 0 && ids[i] < 64)
            m |= 1ull << ids[i];
    return m;
}

int lr_sim_qck_init(logrep_sim *s)
{
    struct lr_sim_qck *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    s->qck = q;
    char buf[32], err[128];
    if (!(q->conf = logrep_conf_new()))
        return -1;
    snprintf(buf, sizeof buf, "%d", s->conf.min_isr);
    logrep_conf_set(q->conf, "min.insync.replicas", buf, err, sizeof err);
    logrep_conf_set(q->conf, "unclean.leader.election.enable", s->conf.unclean ? "true" : "false",
                    err, sizeof err);
    logrep_conf_set(q->conf, "eligible.leader.replicas.enable",
                    s->conf.elr_disabled ? "false" : "true", err, sizeof err);
    if (!(q->ghost = lr_ctl_new(q->conf, NULL, NULL)))
        return -1;
    lr_ctl_set_standby(q->ghost, 1);
    return 0;
}

void lr_sim_qck_free(logrep_sim *s)
{
    struct lr_sim_qck *q = s->qck;
    if (!q)
        return;
    for (size_t i = 0; i < q->n; i++)
        free(q->m[i].data);
    free(q->m);
    free(q->active_of);
    free(q->leader_of);
    lr_ctl_free(q->ghost);
    logrep_conf_free(q->conf);
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        free(q->h[p]);
    free(q->prev);
    free(q);
    s->qck = NULL;
}

const lr_md_image *lr_sim_qck_image(logrep_sim *s)
{
    return s->qck && s->qck->ghost ? lr_ctl_image(s->qck->ghost) : NULL;
}

LOGREP_API int64_t logrep_sim_metadata_committed(const logrep_sim *s)
{
    return s && s->qck ? (int64_t)s->qck->n : -1;
}

/* ------------------------------------------------------------ the image */

static void snapshot_prev(struct lr_sim_qck *q, const lr_md_image *img)
{
    q->n_prev = 0;
    for (size_t t = 0; t < lr_md_topic_count(img); t++) {
        const lr_md_topic *tp = lr_md_topic_at(img, t);
        for (int32_t p = 0; p < tp->n_parts; p++) {
            if (q->n_prev == q->cap_prev) {
                size_t nc = q->cap_prev ? q->cap_prev * 2 : 32;
                qprev *np = realloc(q->prev, nc * sizeof *np);
                if (!np)
                    return;
                q->prev = np;
                q->cap_prev = nc;
            }
            const lr_md_partition *mp = &tp->parts[p];
            qprev *x = &q->prev[q->n_prev++];
            memcpy(x->id, tp->id, 16);
            x->part = p;
            x->leader = mp->leader;
            x->isr = mask_of(mp->isr, mp->n_isr);
            x->elr = mask_of(mp->elr, mp->n_elr);
            x->lke = mask_of(mp->lke, mp->n_lke);
        }
    }
}

/* A leader elected outside the ISR and the ELR, other than the last
 * known leader of a partition whose ISR and ELR were empty, is an
 * unclean election: what the sanctioned-loss rules expect (check.c). */
static int unclean_after(struct lr_sim_qck *q, const lr_md_image *img, char *why, size_t wn)
{
    for (size_t t = 0; t < lr_md_topic_count(img); t++) {
        const lr_md_topic *tp = lr_md_topic_at(img, t);
        for (int32_t p = 0; p < tp->n_parts; p++) {
            const lr_md_partition *mp = &tp->parts[p];
            for (size_t i = 0; i < q->n_prev; i++) {
                qprev *x = &q->prev[i];
                if (x->part != p || memcmp(x->id, tp->id, 16))
                    continue;
                int32_t l = mp->leader;
                if (l >= 0 && l < 64 && l != x->leader && !((x->isr | x->elr) >> l & 1) &&
                    !(!(x->isr | x->elr) && (x->lke >> l & 1))) {
                    snprintf(why, wn, "unclean election: %s-%d leader %d", tp->name, (int)p,
                             (int)l);
                    return 1;
                }
            }
        }
    }
    return 0;
}

static void record_history(logrep_sim *s, struct lr_sim_qck *q, const lr_md_image *img)
{
    const lr_md_topic *t = lr_md_topic_by_name(img, LR_SIM_TOPIC);
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        const lr_md_partition *mp = t ? lr_md_partition_get(t, p) : NULL;
        qhist h = {lr_md_next_offset(img), -2, -1, -1, 0};
        if (mp) {
            h.leader = mp->leader;
            h.leader_epoch = mp->leader_epoch;
            h.partition_epoch = mp->partition_epoch;
            h.isr = mask_of(mp->isr, mp->n_isr);
        }
        if (q->nh[p]) {
            qhist *l = &q->h[p][q->nh[p] - 1];
            if (l->leader == h.leader && l->leader_epoch == h.leader_epoch &&
                l->partition_epoch == h.partition_epoch && l->isr == h.isr)
                continue;
        }
        if (q->nh[p] == q->caph[p]) {
            size_t nc = q->caph[p] ? q->caph[p] * 2 : 64;
            qhist *nh = realloc(q->h[p], nc * sizeof *nh);
            if (!nh)
                return;
            q->h[p] = nh;
            q->caph[p] = nc;
        }
        q->h[p][q->nh[p]++] = h;
    }
}

/* Applies entry o of M to the committed image. */
static void apply_model(logrep_sim *s, struct lr_sim_qck *q, int64_t o)
{
    const qentry *e = &q->m[o];
    const lr_md_image *img = lr_ctl_image(q->ghost);
    if (!e->control) {
        snapshot_prev(q, img);
        int err = lr_ctl_replay(q->ghost, e->data, e->len);
        if (err) {
            lr_sim_fail(s, "Q2: committed metadata record %lld does not apply to the committed "
                           "image: %s", (long long)o, logrep_err_name(err));
            return;
        }
        char why[128];
        if (unclean_after(q, img, why, sizeof why)) {
            s->stats.unclean_elections++;
            lr_sim_trace(s, "checker: committed %s", why);
            for (int32_t p = 0; p < s->conf.partitions; p++)
                lr_sim_sanction(s, p, "unclean election");
            lr_sim_gck_unclean(s);
        }
    }
    lr_ctl_skip_to(q->ghost, o + 1);
    if (lr_md_next_offset(img) != o + 1) {
        lr_sim_fail(s, "Q2: the committed image is at offset %lld after entry %lld",
                    (long long)lr_md_next_offset(img), (long long)o);
        return;
    }
    char why[200];
    if (lr_md_check_invariants(img, why, sizeof why) != 0) {
        lr_sim_fail(s, "I13: committed image at %lld: %s", (long long)o, why);
        return;
    }
    record_history(s, q, img);
}

/* ------------------------------------------------------------ voters */

static int32_t *epoch_slot(struct lr_sim_qck *q, int32_t **arr, int32_t epoch)
{
    if (epoch < 0)
        return NULL;
    if ((size_t)epoch >= q->n_epochs) {
        size_t nn = q->n_epochs ? q->n_epochs : 64;
        while (nn <= (size_t)epoch)
            nn *= 2;
        int32_t *a = realloc(q->active_of, nn * sizeof *a);
        if (!a)
            return NULL;
        memset(a + q->n_epochs, 0, (nn - q->n_epochs) * sizeof *a);
        q->active_of = a;
        int32_t *l = realloc(q->leader_of, nn * sizeof *l);
        if (!l)
            return NULL;
        memset(l + q->n_epochs, 0, (nn - q->n_epochs) * sizeof *l);
        q->leader_of = l;
        q->n_epochs = nn;
    }
    return &(*arr)[epoch];
}

static int same_entry(const qentry *m, const lr_qentry *e)
{
    return m->epoch == e->epoch && m->control == e->control && m->len == e->len &&
           (!m->len || !memcmp(m->data, e->data, m->len));
}

static void check_voter(logrep_sim *s, struct lr_sim_qck *q, int32_t id)
{
    logrep_node *n = s->node[id];
    lr_nq_view v;
    if (!n || lr_nctl_quorum_view(n, &v) != 0)
        return;
    if (q->inc[id] != s->inc[id]) {
        q->inc[id] = s->inc[id];
        q->verified[id] = 0;
        q->epoch[id] = -1;
    }
    if (v.epoch < q->epoch[id]) {
        lr_sim_fail(s, "Q1: voter %d's quorum epoch went from %d to %d", id, q->epoch[id], v.epoch);
        return;
    }
    q->epoch[id] = v.epoch;
    if (v.role == LR_QR_LEADER) {
        int32_t *l = epoch_slot(q, &q->leader_of, v.epoch);
        if (l && *l && *l != id) {
            lr_sim_fail(s, "Q1: voters %d and %d both led quorum epoch %d", *l, id, v.epoch);
            return;
        }
        if (l)
            *l = id;
    }
    if (v.active) {
        int32_t *a = epoch_slot(q, &q->active_of, v.active_epoch);
        if (a && *a && *a != id) {
            lr_sim_fail(s, "Q1: voters %d and %d were both the active controller in quorum epoch %d",
                        *a, id, v.active_epoch);
            return;
        }
        if (a && !*a) {
            *a = id;
            lr_sim_trace(s, "checker: node %d is the active controller of quorum epoch %d", id,
                         v.active_epoch);
        }
    }
    if (v.start > (int64_t)q->n) {
        lr_sim_fail(s, "Q2: voter %d's metadata log starts at %lld, above the %lld entries "
                       "committed", id, (long long)v.start, (long long)q->n);
        return;
    }
    /* Below the start a snapshot stands in for the log: what the voter
     * built from it is checked as an image (below). */
    if (q->verified[id] < v.start)
        q->verified[id] = v.start;
    if (v.end < q->verified[id]) {
        lr_sim_fail(s, "Q2: voter %d's metadata log ends at %lld, below the %lld entries it "
                       "reported committed", id, (long long)v.end, (long long)q->verified[id]);
        return;
    }
    while (q->verified[id] < v.hw && !s->failed) {
        lr_qentry es[64];
        int64_t from = q->verified[id];
        size_t want = (size_t)(v.hw - from) < 64 ? (size_t)(v.hw - from) : 64;
        size_t got = lr_nctl_quorum_read(n, from, es, want);
        if (!got) {
            lr_sim_fail(s, "Q2: voter %d cannot read its committed metadata at %lld", id,
                        (long long)from);
            return;
        }
        for (size_t i = 0; i < got && from + (int64_t)i < v.hw; i++) {
            int64_t o = from + (int64_t)i;
            if ((size_t)o < q->n) {
                if (!same_entry(&q->m[o], &es[i])) {
                    lr_sim_fail(s, "Q2: voter %d's committed metadata entry %lld (epoch %d, %u B) "
                                   "differs from the one committed before (epoch %d, %u B)",
                                id, (long long)o, es[i].epoch, (unsigned)es[i].len,
                                q->m[o].epoch, (unsigned)q->m[o].len);
                    return;
                }
            } else {
                if (q->n == q->cap) {
                    size_t nc = q->cap ? q->cap * 2 : 256;
                    qentry *nm = realloc(q->m, nc * sizeof *nm);
                    if (!nm)
                        return;
                    q->m = nm;
                    q->cap = nc;
                }
                qentry *m = &q->m[q->n];
                m->epoch = es[i].epoch;
                m->control = es[i].control;
                m->len = (uint32_t)es[i].len;
                m->data = m->len ? malloc(m->len) : NULL;
                if (m->len && !m->data)
                    return;
                if (m->len)
                    memcpy(m->data, es[i].data, m->len);
                q->n++;
                apply_model(s, q, o);
            }
            q->verified[id] = o + 1;
        }
    }
}

/* ------------------------------------------------------------ brokers */

/* An image at metadata offset `next` against the committed history: every
 * partition of the simulator's topic as the committed log had it there.
 * 0, or 1 after reporting the difference as `what`. */
static int check_image(logrep_sim *s, struct lr_sim_qck *q, const char *what, int32_t id,
                       const lr_md_image *img, int64_t next)
{
    const lr_md_topic *t = lr_md_topic_by_name(img, LR_SIM_TOPIC);
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        /* The committed image's partition as of offset `next`. */
        qhist want = {0, -2, -1, -1, 0};
        for (size_t i = q->nh[p]; i-- > 0;)
            if (q->h[p][i].next <= next) {
                want = q->h[p][i];
                break;
            }
        const lr_md_partition *mp = t ? lr_md_partition_get(t, p) : NULL;
        qhist got = {next, -2, -1, -1, 0};
        if (mp) {
            got.leader = mp->leader;
            got.leader_epoch = mp->leader_epoch;
            got.partition_epoch = mp->partition_epoch;
            got.isr = mask_of(mp->isr, mp->n_isr);
        }
        if (got.leader != want.leader || got.leader_epoch != want.leader_epoch ||
            got.partition_epoch != want.partition_epoch || got.isr != want.isr) {
            lr_sim_fail(s, "%s %d at metadata offset %lld has partition %d leader %d "
                           "epoch %d partition epoch %d; the committed log has leader %d epoch %d "
                           "partition epoch %d there",
                        what, id, (long long)next, p, got.leader, got.leader_epoch,
                        got.partition_epoch, want.leader, want.leader_epoch,
                        want.partition_epoch);
            return 1;
        }
    }
    return 0;
}

/* A standby voter's image (replayed committed records, or built from a
 * snapshot) is the committed image at its offset. */
static void check_standby(logrep_sim *s, struct lr_sim_qck *q, int32_t id, const lr_nq_view *v)
{
    const lr_md_image *img = lr_nctl_image(s->node[id]);
    if (!img || v->active)
        return;
    int64_t next = lr_md_next_offset(img);
    if (q->vinc[id] == s->inc[id] && q->vnext[id] == next)
        return;
    q->vinc[id] = s->inc[id];
    q->vnext[id] = next;
    if (next > (int64_t)q->n) {
        lr_sim_fail(s, "Q2: standby voter %d's image is at offset %lld; only %lld entries are "
                       "committed", id, (long long)next, (long long)q->n);
        return;
    }
    check_image(s, q, "Q2: standby voter", id, img, next);
}

static void check_broker(logrep_sim *s, struct lr_sim_qck *q, int32_t id)
{
    logrep_node *n = s->node[id];
    if (!n || !n->md.img)
        return;
    int64_t next = lr_md_next_offset(n->md.img);
    if (q->binc[id] == s->inc[id] && q->bnext[id] == next)
        return;
    if (q->binc[id] == s->inc[id] && next < q->bnext[id]) {
        lr_sim_fail(s, "Q3: broker %d's metadata went back from offset %lld to %lld", id,
                    (long long)q->bnext[id], (long long)next);
        return;
    }
    q->binc[id] = s->inc[id];
    q->bnext[id] = next;
    if (next > (int64_t)q->n) {
        lr_sim_fail(s, "Q3: broker %d applied metadata up to offset %lld; only %lld entries are "
                       "committed", id, (long long)next, (long long)q->n);
        return;
    }
    check_image(s, q, "Q3: broker", id, n->md.img, next);
}

void lr_sim_qck_step(logrep_sim *s)
{
    struct lr_sim_qck *q = s->qck;
    if (!q)
        return;
    for (int32_t id = s->nb + 1; id <= s->nn && !s->failed; id++)
        check_voter(s, q, id);
    for (int32_t id = s->nn; id > s->nb && !s->failed; id--) {
        lr_nq_view v;
        char why[200];
        const lr_md_image *img = s->node[id] ? lr_nctl_image(s->node[id]) : NULL;
        if (!img || lr_nctl_quorum_view(s->node[id], &v) != 0)
            continue;
        if (v.active && lr_md_check_invariants(img, why, sizeof why) != 0)
            lr_sim_fail(s, "I13: active controller %d's image: %s", id, why);
        else
            check_standby(s, q, id, &v);
    }
    for (int32_t id = 1; id <= s->nb && !s->failed; id++)
        check_broker(s, q, id);
}

/* ------------------------------------------------------------ views */

LOGREP_API int32_t logrep_sim_controllers(const logrep_sim *s, int32_t *first)
{
    if (first)
        *first = s ? s->ctl : -1;
    return s ? s->nc : 0;
}

LOGREP_API int32_t logrep_sim_active_controller(const logrep_sim *s)
{
    if (!s)
        return -1;
    int32_t best = -1, best_epoch = -1;
    for (int32_t id = s->nb + 1; id <= s->nn; id++) {
        logrep_node *n = s->node[id];
        if (!n || !logrep_node_is_controller(n))
            continue;
        lr_nq_view v;
        int32_t e = lr_nctl_quorum_view(n, &v) == 0 ? v.active_epoch : 0;
        if (e > best_epoch) {
            best = id;
            best_epoch = e;
        }
    }
    return best;
}

LOGREP_API logrep_err logrep_sim_voter_view(const logrep_sim *s, int32_t id, logrep_sim_voter *out)
{
    if (!s || !out || !lr_sim_is_voter(s, id))
        return LOGREP_ERR__INVALID_ARG;
    memset(out, 0, sizeof *out);
    lr_nq_view v;
    if (!s->node[id] || lr_nctl_quorum_view(s->node[id], &v) != 0)
        return LOGREP_OK;
    out->up = 1;
    out->epoch = v.epoch;
    out->leader = v.leader;
    out->role = v.role;
    out->active = v.active;
    out->abstaining = v.abstaining;
    out->committed = v.hw;
    out->log_end = v.end;
    return LOGREP_OK;
}
