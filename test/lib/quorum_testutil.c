/* The simulated quorum cluster (quorum_testutil.h). */
#include "lib/quorum_testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <logrep/storage.h>

void qt_fail(qt_cluster *c, const char *fmt, ...)
{
    if (c->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(c->why, sizeof(c->why), "seed %llu step %ld t=%lld: ",
                     (unsigned long long)c->seed, c->steps, (long long)c->now);
    vsnprintf(c->why + k, sizeof(c->why) - (size_t)k, fmt, ap);
    va_end(ap);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * size);
    if (!q)
        abort();
    memset((char *)q + *cap * size, 0, (n - *cap) * size);
    *cap = n;
    return q;
}

static int64_t rnd(qt_cluster *c, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return hi <= lo ? lo : lo + (int64_t)lr_prng_below(&c->rng, (uint64_t)(hi - lo + 1));
}

static int pct(qt_cluster *c, int p)
{
    return p > 0 && (int)lr_prng_below(&c->rng, 100) < p;
}

qt_node *qt_node_of(qt_cluster *c, int32_t id)
{
    for (int i = 0; i < c->n; i++)
        if (c->nodes[i].id == id)
            return &c->nodes[i];
    return NULL;
}

int64_t qt_now(const qt_cluster *c, const qt_node *nd)
{
    return c->now + nd->clock_off;
}

/* --- the host side of one node ------------------------------------------ */

static qt_ctx ctxs[QT_MAX_NODES]; /* one cluster at a time per process */

static int64_t log_end(void *x) { return (int64_t)((qt_ctx *)x)->nd->log.n; }

/* The snapshot that stands for the entries below the log start. */
static int snap_at_start(const qt_log *l)
{
    return l->snap.end > 0 && (size_t)l->snap.end == l->start;
}

static int32_t log_last_epoch(void *x)
{
    qt_log *l = &((qt_ctx *)x)->nd->log;
    if (l->n > l->start)
        return l->e[l->n - 1].epoch;
    return snap_at_start(l) ? l->snap.epoch : -1;
}

static void log_epoch_end(void *x, int32_t epoch, int32_t *oe, int64_t *end)
{
    qt_log *l = &((qt_ctx *)x)->nd->log;
    *oe = -1;
    *end = -1;
    for (size_t i = l->n; i > l->start; i--)
        if (l->e[i - 1].epoch <= epoch) {
            *oe = l->e[i - 1].epoch;
            *end = (int64_t)i;
            return;
        }
    if (snap_at_start(l) && epoch >= l->snap.epoch) {
        *oe = l->snap.epoch;
        *end = (int64_t)l->start;
    }
}

static int log_append(void *x, int64_t base, const lr_qentry *e, size_t n)
{
    qt_ctx *cx = x;
    qt_log *l = &cx->nd->log;
    if (base != (int64_t)l->n) {
        qt_fail(cx->c, "node %d: append at %lld, end %zu", cx->nd->id, (long long)base, l->n);
        return LOGREP_ERR__INVALID_ARG;
    }
    l->e = grow(l->e, &l->cap, l->n + n, sizeof(*l->e));
    for (size_t i = 0; i < n; i++) {
        if (e[i].len > QT_DATA)
            return LOGREP_ERR__INVALID_ARG;
        qt_entry *d = &l->e[l->n + i];
        d->epoch = e[i].epoch;
        d->control = e[i].control;
        d->len = e[i].len;
        if (e[i].len)
            memcpy(d->data, e[i].data, e[i].len);
    }
    l->n += n;
    if (cx->nd->flush_at < 0)
        cx->nd->flush_at = cx->c->now + rnd(cx->c, 0, cx->c->p.flush_delay);
    return 0;
}

static int log_truncate(void *x, int64_t off)
{
    qt_ctx *cx = x;
    qt_log *l = &cx->nd->log;
    if (off < 0)
        return LOGREP_ERR__INVALID_ARG;
    if ((size_t)off < l->start) {
        qt_fail(cx->c, "node %d truncates to %lld below its log start %zu", cx->nd->id,
                (long long)off, l->start);
        return LOGREP_ERR__INVALID_ARG;
    }
    if (off < cx->nd->hw)
        qt_fail(cx->c, "node %d truncates to %lld below its hw %lld", cx->nd->id, (long long)off,
             (long long)cx->nd->hw);
    if ((size_t)off < l->n)
        l->n = (size_t)off;
    if (l->durable > l->n)
        l->durable = l->n;
    return 0;
}

static size_t log_read(void *x, int64_t off, lr_qentry *out, size_t cap)
{
    qt_log *l = &((qt_ctx *)x)->nd->log;
    size_t k = 0;
    if ((size_t)off < l->start)
        return 0;
    for (size_t i = (size_t)off; i < l->n && k < cap; i++, k++) {
        out[k].epoch = l->e[i].epoch;
        out[k].control = l->e[i].control;
        out[k].data = l->e[i].data;
        out[k].len = l->e[i].len;
    }
    return k;
}

static const lr_quorum_log qt_log_ops = {log_end, log_last_epoch, log_epoch_end, log_append,
                                         log_truncate, log_read};
static const lr_quorum_log qt_snap_log_ops = {
    log_end,        log_last_epoch, log_epoch_end, log_append,    log_truncate,
    log_read,       qt_snap_start,  qt_snap_latest, qt_snap_read, qt_snap_write,
    qt_snap_install, qt_snap_abort};

static void enqueue(qt_cluster *c, int32_t from, int32_t to, const lr_qmsg *m, int64_t delay)
{
    c->net = grow(c->net, &c->cap_net, c->n_net + 1, sizeof(*c->net));
    qt_msg *q = &c->net[c->n_net++];
    q->from = from;
    q->to = to;
    q->at = c->now + delay;
    q->order = c->order++;
    q->m = *m;
    q->entries = NULL;
    if (m->n_entries) {
        q->entries = calloc(m->n_entries, sizeof(*q->entries));
        for (size_t i = 0; i < m->n_entries; i++) {
            q->entries[i].epoch = m->entries[i].epoch;
            q->entries[i].control = m->entries[i].control;
            q->entries[i].len = m->entries[i].len;
            memcpy(q->entries[i].data, m->entries[i].data, m->entries[i].len);
        }
    }
    q->m.entries = NULL;
    q->data = NULL;
    if (m->len) {
        q->data = malloc(m->len);
        memcpy(q->data, m->data, m->len);
    }
    q->m.data = NULL;
}

static void fx_send(void *x, int32_t to, const lr_qmsg *m)
{
    qt_ctx *cx = x;
    qt_cluster *c = cx->c;
    if (cx->nd->q && !lr_quorum_durable(cx->nd->q))
        qt_fail(c, "node %d sends while a quorum-state write is outstanding", cx->nd->id);
    if (!qt_node_of(c, to))
        return; /* an answer to a forged sender */
    if (pct(c, c->p.drop_pct))
        return;
    int copies = pct(c, c->p.dup_pct) ? 2 : 1;
    for (int i = 0; i < copies; i++)
        enqueue(c, cx->nd->id, to, m, rnd(c, c->p.min_delay, c->p.max_delay));
}

static void fx_persist(void *x, const lr_quorum_state *s, uint64_t seq)
{
    qt_ctx *cx = x;
    cx->nd->pending_state = *s;
    cx->nd->pending_seq = seq;
    cx->nd->persist_at = cx->c->now + rnd(cx->c, 0, cx->c->p.persist_delay);
}

static int entry_eq(const qt_entry *a, const qt_entry *b)
{
    return a->epoch == b->epoch && a->control == b->control && a->len == b->len &&
           memcmp(a->data, b->data, a->len) == 0;
}

/* State machine safety: what a node reports committed is the model's
 * prefix, extended but never changed. */
static void fx_commit(void *x, int64_t hw)
{
    qt_ctx *cx = x;
    qt_cluster *c = cx->c;
    qt_node *nd = cx->nd;
    if (hw <= nd->hw)
        qt_fail(c, "node %d: commit %lld not above %lld", nd->id, (long long)hw, (long long)nd->hw);
    if ((size_t)hw > nd->log.n) {
        qt_fail(c, "node %d: commit %lld past its log end %zu", nd->id, (long long)hw, nd->log.n);
        return;
    }
    if ((size_t)hw > c->n_committed && nd->log.start > c->n_committed)
        qt_fail(c, "node %d commits from %zu, past what was ever committed (%zu)", nd->id,
                nd->log.start, c->n_committed);
    for (size_t o = nd->log.start; o < (size_t)hw; o++) {
        if (o < c->n_committed) {
            if (!entry_eq(&c->committed[o], &nd->log.e[o]))
                qt_fail(c, "node %d commits offset %zu different from the committed one", nd->id, o);
            continue;
        }
        size_t cap = c->cap_committed;
        c->committed = grow(c->committed, &c->cap_committed, o + 1, sizeof(*c->committed));
        if (c->cap_committed != cap &&
            !(c->commit_epoch = realloc(c->commit_epoch, c->cap_committed * sizeof(int32_t))))
            abort();
        c->committed[o] = nd->log.e[o];
        c->commit_epoch[o] = lr_quorum_epoch(nd->q);
        c->n_committed = o + 1;
    }
    nd->hw = hw;
    qt_apply(c, nd, hw);
}

static const lr_quorum_fx qt_fx = {fx_send, fx_persist, fx_commit};

/* --- lifecycle ---------------------------------------------------------- */

static void start(qt_cluster *c, qt_node *nd, int disk_lost)
{
    qt_ctx *cx = &ctxs[nd - c->nodes];
    cx->c = c;
    cx->nd = nd;
    lr_quorum_conf conf = c->conf;
    conf.node_id = nd->id;
    conf.seed = lr_prng_mix(c->seed) + ((uint64_t)nd->incarnation << 32);
    lr_quorum_boot boot = {nd->has_state ? &nd->durable_state : NULL, disk_lost};
    nd->pending_seq = 0;
    nd->flush_at = -1;
    nd->hw = -1;
    qt_sm_reset(nd);
    const lr_quorum_log *ops = c->p.snapshots ? &qt_snap_log_ops : &qt_log_ops;
    nd->q = lr_quorum_new(&conf, &boot, ops, &qt_fx, cx, qt_now(c, nd));
    if (!nd->q)
        abort();
    nd->up = 1;
    nd->last_epoch = lr_quorum_epoch(nd->q);
}

qt_cluster *qt_new(int n_voters, int n_observers, uint64_t seed, const qt_params *p)
{
    qt_cluster *c = calloc(1, sizeof(*c));
    if (!c || n_voters + n_observers > QT_MAX_NODES)
        abort();
    c->seed = seed;
    lr_prng_seed(&c->rng, seed);
    c->p = *p;
    c->n = n_voters + n_observers;
    c->n_voters = n_voters;
    for (int i = 0; i < n_voters; i++)
        c->voters[i] = i + 1;
    c->conf.voters = c->voters;
    c->conf.n_voters = (size_t)n_voters;
    c->conf.election_timeout_ms = 100;
    c->conf.fetch_timeout_ms = 200;
    c->conf.request_timeout_ms = 50;
    c->conf.max_fetch_entries = 8;
    c->conf.pre_vote = p->pre_vote;
    if (p->snap_permille)
        c->p.snapshots = 1;
    /* Snapshots of a few hundred bytes come in several pieces. */
    c->conf.max_snapshot_bytes = 64;
    c->heal_at = -1;
    c->trace = getenv("LOGREP_QUORUM_TRACE") != NULL;
    for (int i = 0; i < c->n; i++) {
        qt_node *nd = &c->nodes[i];
        nd->id = i + 1;
        nd->has_state = 1; /* the format step's {0, -1, -1} */
        nd->durable_state = (lr_quorum_state){0, -1, -1, 0, -1};
        start(c, nd, 0);
    }
    return c;
}

static void free_msg(qt_msg *m)
{
    free(m->entries);
    free(m->data);
}

void qt_drop_all(qt_cluster *c)
{
    for (size_t i = 0; i < c->n_net; i++)
        free_msg(&c->net[i]);
    c->n_net = 0;
}

void qt_free(qt_cluster *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        lr_quorum_free(c->nodes[i].q);
        free(c->nodes[i].log.e);
        free(c->nodes[i].log.rbuf);
    }
    qt_drop_all(c);
    free(c->net);
    free(c->committed);
    free(c->commit_epoch);
    free(c->leader_of);
    free(c);
}

void qt_crash(qt_cluster *c, qt_node *nd, int lose_tail)
{
    if (!nd->up)
        return;
    c->crashes++;
    lr_quorum_free(nd->q);
    nd->q = NULL;
    nd->up = 0;
    /* An outstanding quorum-state write may or may not have landed. */
    if (nd->pending_seq && pct(c, 50)) {
        nd->durable_state = nd->pending_state;
        nd->has_state = 1;
    }
    nd->pending_seq = 0;
    /* A partial snapshot is a .part, removed at start-up. */
    nd->log.recv.end = 0;
    nd->log.rgot = 0;
    /* The start moved with the snapshot, durable: a log that lost its
     * tail below it starts empty there (logrep_log's recovery). */
    if (nd->log.durable < nd->log.start)
        nd->log.durable = nd->log.start;
    if (lose_tail)
        nd->log.n = nd->log.durable;
    else
        nd->log.durable = nd->log.n;
}

void qt_restart(qt_cluster *c, qt_node *nd, int disk_lost)
{
    if (nd->up)
        return;
    if (disk_lost) {
        c->disk_losses++;
        nd->log.n = nd->log.durable = nd->log.start = 0;
        nd->log.snap = (qt_snap){0, 0, 0};
        nd->has_state = 0;
        nd->max_durable_epoch = 0;
    }
    nd->incarnation++;
    start(c, nd, disk_lost);
}

void qt_complete_persist(qt_cluster *c, qt_node *nd)
{
    if (!nd->up || !nd->pending_seq)
        return;
    uint64_t seq = nd->pending_seq;
    nd->pending_seq = 0;
    if (nd->pending_state.epoch < nd->max_durable_epoch)
        qt_fail(c, "node %d: durable epoch %d after %d", nd->id, nd->pending_state.epoch,
             nd->max_durable_epoch);
    nd->max_durable_epoch = nd->pending_state.epoch;
    nd->durable_state = nd->pending_state;
    nd->has_state = 1;
    lr_quorum_state_durable(nd->q, seq, qt_now(c, nd));
}

void qt_complete_flush(qt_cluster *c, qt_node *nd)
{
    if (!nd->up)
        return;
    nd->flush_at = -1;
    nd->log.durable = nd->log.n;
    lr_quorum_log_flushed(nd->q, (int64_t)nd->log.n, qt_now(c, nd));
}

static void deliver_one(qt_cluster *c, size_t i)
{
    qt_msg m = c->net[i];
    memmove(&c->net[i], &c->net[i + 1], (c->n_net - i - 1) * sizeof(*c->net));
    c->n_net--;
    qt_node *to = qt_node_of(c, m.to);
    int cut = to && qt_node_of(c, m.from) && c->cut[m.from - 1][m.to - 1];
    if (c->trace)
        fprintf(stderr,
                "t=%lld %d->%d type %d e%d err %d granted %d off %lld epoch %d div %lld n %zu%s\n",
                (long long)c->now, m.from, m.to, m.m.type, m.m.epoch, m.m.error, m.m.granted,
                (long long)(m.m.type == LR_QM_VOTE_REQ ? m.m.end_offset : m.m.fetch_offset),
                m.m.type == LR_QM_VOTE_REQ ? m.m.last_epoch : m.m.last_fetched_epoch,
                (long long)m.m.div_end_offset, m.m.n_entries, to && to->up && !cut ? "" : " lost");
    if (to && to->up && !cut) {
        lr_qentry e[64];
        size_t n = m.m.n_entries < 64 ? m.m.n_entries : 64;
        for (size_t k = 0; k < n; k++)
            e[k] = (lr_qentry){m.entries[k].epoch, m.entries[k].control, m.entries[k].data,
                               m.entries[k].len};
        m.m.entries = n ? e : NULL;
        m.m.n_entries = n;
        m.m.data = m.data;
        if (!c->relay || c->relay(c->relay_ctx, m.from, m.to, &m.m) == 0)
            lr_quorum_receive(to->q, &m.m, qt_now(c, to));
    }
    free_msg(&m);
}

int qt_inject(qt_cluster *c, int32_t to, const lr_qmsg *m)
{
    qt_node *nd = qt_node_of(c, to);
    return lr_quorum_receive(nd->q, m, qt_now(c, nd));
}

size_t qt_deliver(qt_cluster *c, lr_qmsg_type type)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n_net;) {
        if (type && c->net[i].m.type != type) {
            i++;
            continue;
        }
        deliver_one(c, i);
        k++;
    }
    return k;
}

size_t qt_count(const qt_cluster *c, int32_t from, int32_t to, lr_qmsg_type type)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n_net; i++)
        k += (from < 0 || c->net[i].from == from) && (to < 0 || c->net[i].to == to) &&
             (!type || c->net[i].m.type == type);
    return k;
}

void qt_settle(qt_cluster *c)
{
    for (int round = 0; round < 1000; round++) {
        int did = 0;
        for (int i = 0; i < c->n; i++) {
            qt_node *nd = &c->nodes[i];
            if (nd->up && nd->pending_seq) {
                qt_complete_persist(c, nd);
                did = 1;
            }
            if (nd->up && nd->log.durable < nd->log.n) {
                qt_complete_flush(c, nd);
                did = 1;
            }
        }
        if (c->n_net) {
            qt_deliver(c, 0);
            did = 1;
        }
        if (!did)
            return;
    }
}

/* Due events in time order: writes, flushes, then messages. */
static void run_due(qt_cluster *c)
{
    for (int i = 0; i < c->n; i++) {
        qt_node *nd = &c->nodes[i];
        if (nd->up && nd->pending_seq && nd->persist_at <= c->now)
            qt_complete_persist(c, nd);
        if (nd->up && nd->flush_at >= 0 && nd->flush_at <= c->now)
            qt_complete_flush(c, nd);
    }
    for (;;) {
        size_t best = c->n_net;
        for (size_t i = 0; i < c->n_net; i++)
            if (c->net[i].at <= c->now &&
                (best == c->n_net || c->net[i].at < c->net[best].at ||
                 (c->net[i].at == c->net[best].at && c->net[i].order < c->net[best].order)))
                best = i;
        if (best == c->n_net)
            return;
        deliver_one(c, best);
    }
}

static void tick_all(qt_cluster *c)
{
    for (int i = 0; i < c->n; i++)
        if (c->nodes[i].up)
            lr_quorum_tick(c->nodes[i].q, qt_now(c, &c->nodes[i]));
}

void qt_advance(qt_cluster *c, int64_t ms)
{
    for (int64_t t = 0; t < ms; t++) {
        c->now++;
        run_due(c);
        tick_all(c);
    }
}

qt_node *qt_leader(qt_cluster *c)
{
    qt_node *best = NULL;
    for (int i = 0; i < c->n; i++) {
        qt_node *nd = &c->nodes[i];
        if (nd->up && lr_quorum_role_of(nd->q) == LR_QR_LEADER &&
            (!best || lr_quorum_epoch(nd->q) > lr_quorum_epoch(best->q)))
            best = nd;
    }
    return best;
}

qt_node *qt_elect(qt_cluster *c, int64_t limit_ms)
{
    for (int64_t i = 0; i < limit_ms; i++) {
        qt_advance(c, 1);
        qt_settle(c);
        qt_node *l = qt_leader(c);
        if (l && lr_quorum_hw(l->q) > 0)
            return l;
    }
    return NULL;
}

int qt_propose(qt_cluster *c, qt_node *nd)
{
    char buf[32];
    int len = snprintf(buf, sizeof(buf), "v%llu", (unsigned long long)c->proposed);
    lr_qentry e = {0, 0, (const uint8_t *)buf, (size_t)len};
    int rc = lr_quorum_propose(nd->q, &e, 1, NULL);
    if (rc == 0)
        c->proposed++;
    return rc;
}

uint32_t qt_crc32c_bits(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1) ? 0x82f63b78u : 0);
    }
    return c ^ 0xffffffffu;
}

logrep_storage *qt_meta_storage(int crash)
{
    logrep_storage *st;
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "meta"), 0);
    cr_assert_eq(st->mkdir(st->ctx, "meta/__cluster_metadata-0"), 0);
    return st;
}
