/* The quorum cluster's invariants, random steps and liveness check
 * (quorum_testutil.h; docs/quorum.md "Invariants"). */
#include "lib/quorum_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t rnd(qt_cluster *c, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return hi <= lo ? lo : lo + (int64_t)lr_prng_below(&c->rng, (uint64_t)(hi - lo + 1));
}

static int permille(qt_cluster *c, int p)
{
    return (int)lr_prng_below(&c->rng, 1000) < p;
}

static int entry_eq(const qt_entry *a, const qt_entry *b)
{
    return a->epoch == b->epoch && a->control == b->control && a->len == b->len &&
           memcmp(a->data, b->data, a->len) == 0;
}

#define FAIL(...)                                                                          \
    do {                                                                                   \
        if (!c->why[0]) {                                                                  \
            int k_ = snprintf(c->why, sizeof(c->why), "seed %llu step %ld t=%lld: ",       \
                              (unsigned long long)c->seed, c->steps, (long long)c->now);   \
            snprintf(c->why + k_, sizeof(c->why) - (size_t)k_, __VA_ARGS__);               \
        }                                                                                  \
        return -1;                                                                         \
    } while (0)

/* Log matching: where two logs hold the same epoch at an offset, they are
 * identical up to it (down to the later of their starts); within a log
 * epochs never decrease. */
static int check_matching(qt_cluster *c, const qt_node *a, const qt_node *b)
{
    size_t n = a->log.n < b->log.n ? a->log.n : b->log.n;
    size_t p = a->log.start > b->log.start ? a->log.start : b->log.start;
    while (p < n && entry_eq(&a->log.e[p], &b->log.e[p]))
        p++;
    for (size_t o = p; o < n; o++)
        if (a->log.e[o].epoch == b->log.e[o].epoch)
            FAIL("nodes %d and %d: same epoch %d at %zu but differ at %zu", a->id, b->id,
                 a->log.e[o].epoch, o, p);
    return 0;
}

static int check_leader(qt_cluster *c, qt_node *nd)
{
    int32_t e = lr_quorum_epoch(nd->q);
    if ((size_t)e >= c->n_leader_of) {
        size_t n = (size_t)e + 64;
        c->leader_of = realloc(c->leader_of, n * sizeof(int32_t));
        if (!c->leader_of)
            abort();
        for (size_t i = c->n_leader_of; i < n; i++)
            c->leader_of[i] = -1;
        c->n_leader_of = n;
    }
    if (c->leader_of[e] < 0) {
        c->leader_of[e] = nd->id;
        c->elections++;
    } else if (c->leader_of[e] != nd->id) {
        FAIL("two leaders in epoch %d: %d and %d", e, c->leader_of[e], nd->id);
    }
    /* Leader completeness, once it acts: every entry committed in an
     * earlier epoch is in its log. */
    if (!lr_quorum_durable(nd->q))
        return 0;
    /* Below its log start its snapshot holds them (checked against the
     * model when taken or installed). */
    for (size_t o = nd->log.start; o < c->n_committed; o++) {
        if (c->commit_epoch[o] >= e)
            continue;
        if (o >= nd->log.n || !entry_eq(&nd->log.e[o], &c->committed[o]))
            FAIL("leader %d of epoch %d lacks committed offset %zu (epoch %d)", nd->id, e, o,
                 c->commit_epoch[o]);
    }
    return 0;
}

int qt_check(qt_cluster *c)
{
    if (c->why[0])
        return -1;
    for (int i = 0; i < c->n; i++) {
        qt_node *nd = &c->nodes[i];
        for (size_t o = nd->log.start + 1; o < nd->log.n; o++)
            if (nd->log.e[o].epoch < nd->log.e[o - 1].epoch)
                FAIL("node %d: epoch goes down at %zu", nd->id, o);
        for (int j = 0; j < i; j++)
            if (check_matching(c, nd, &c->nodes[j]))
                return -1;
        if (!nd->up)
            continue;
        int32_t e = lr_quorum_epoch(nd->q);
        if (e < nd->last_epoch)
            FAIL("node %d: epoch %d after %d", nd->id, e, nd->last_epoch);
        nd->last_epoch = e;
        if (lr_quorum_hw(nd->q) > (int64_t)nd->log.n)
            FAIL("node %d: hw %lld past its log end %zu", nd->id, (long long)lr_quorum_hw(nd->q),
                 nd->log.n);
        if (lr_quorum_role_of(nd->q) == LR_QR_LEADER && check_leader(c, nd))
            return -1;
        if (nd->id > c->n_voters && (lr_quorum_role_of(nd->q) == LR_QR_LEADER ||
                                     lr_quorum_role_of(nd->q) == LR_QR_CANDIDATE))
            FAIL("observer %d is %s", nd->id, lr_quorum_role_name(lr_quorum_role_of(nd->q)));
    }
    return 0;
}

static qt_node *pick(qt_cluster *c, int up)
{
    qt_node *v[QT_MAX_NODES];
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (c->nodes[i].up == up)
            v[n++] = &c->nodes[i];
    return n ? v[rnd(c, 0, n - 1)] : NULL;
}

/* Losing a disk is only survivable one voter at a time: the others must
 * all be up and trusted (docs/quorum.md, disk loss). */
static int disk_loss_ok(qt_cluster *c, const qt_node *nd)
{
    for (int i = 0; i < c->n; i++) {
        const qt_node *o = &c->nodes[i];
        if (o != nd && (!o->up || lr_quorum_recovering(o->q)))
            return 0;
    }
    return 1;
}

static void chaos(qt_cluster *c)
{
    qt_node *nd;
    if (permille(c, 4) && (nd = pick(c, 1)))
        qt_crash(c, nd, permille(c, 500));
    if (permille(c, 25) && (nd = pick(c, 0)))
        qt_restart(c, nd, nd->id <= c->n_voters && permille(c, 150) && disk_loss_ok(c, nd));
    if (permille(c, 3)) {
        c->partitions++;
        uint32_t side = (uint32_t)lr_prng_below(&c->rng, 1u << c->n);
        for (int i = 0; i < c->n; i++)
            for (int j = 0; j < c->n; j++)
                c->cut[i][j] = ((side >> i) & 1) != ((side >> j) & 1);
        c->heal_at = c->now + rnd(c, 50, 1500);
    }
    if (c->heal_at >= 0 && c->now >= c->heal_at) {
        memset(c->cut, 0, sizeof(c->cut));
        c->heal_at = -1;
    }
    if (permille(c, 2) && (nd = pick(c, 1))) {
        c->jumps++;
        nd->clock_off += rnd(c, 50, 2000);
    }
}

void qt_step(qt_cluster *c)
{
    c->steps++;
    int64_t dt = rnd(c, 1, 5);
    /* Ticks land on every ms so that timers fire in order. */
    qt_advance(c, dt);
    qt_node *l = qt_leader(c);
    if (l && (int)lr_prng_below(&c->rng, 100) < c->p.propose_pct)
        qt_propose(c, l);
    if (c->p.chaos)
        chaos(c);
    qt_node *nd;
    if (c->p.snap_permille > 0 && permille(c, c->p.snap_permille) && (nd = pick(c, 1)))
        qt_snapshot(c, nd);
    qt_check(c);
}

static int rejoin(qt_cluster *c, int64_t end);
static int stuck(qt_cluster *c, const char *what, int64_t limit_ms);

int qt_liveness(qt_cluster *c, int64_t limit_ms)
{
    c->p.chaos = 0;
    c->p.drop_pct = 0;
    c->p.dup_pct = 0;
    memset(c->cut, 0, sizeof(c->cut));
    c->heal_at = -1;
    for (int i = 0; i < c->n; i++)
        qt_restart(c, &c->nodes[i], 0);
    int64_t end = c->now + limit_ms;
    int64_t marker = -1;
    qt_entry want;
    while (c->now < end) {
        qt_step(c);
        if (c->why[0])
            return -1;
        qt_node *l = qt_leader(c);
        if (marker < 0 && l && qt_propose(c, l) == 0) {
            marker = (int64_t)l->log.n - 1;
            want = l->log.e[marker];
        }
        if (marker >= 0 && (int64_t)c->n_committed > marker) {
            if (!entry_eq(&c->committed[marker], &want)) {
                marker = -1; /* that leader lost it before commit: try again */
                continue;
            }
            return rejoin(c, end);
        }
    }
    return stuck(c, "no new entry committed", limit_ms);
}

static int abstaining(const qt_cluster *c)
{
    for (int i = 0; i < c->n; i++)
        if (lr_quorum_recovering(c->nodes[i].q))
            return 1;
    return 0;
}

/* A voter that lost its disk votes again after a leader change it did not
 * vote in: while one abstains, each leader resigns (as an operator would)
 * after leading for 300 ms, and every voter must be trusted again by the
 * deadline. */
static int rejoin(qt_cluster *c, int64_t end)
{
    int64_t limit = end - c->now, since = -1;
    int32_t epoch = -1;
    while (c->now < end && abstaining(c)) {
        qt_node *l = qt_leader(c);
        if (l && lr_quorum_epoch(l->q) != epoch) {
            epoch = lr_quorum_epoch(l->q);
            since = c->now;
        }
        if (l && since >= 0 && c->now - since > 300) {
            lr_quorum_resign(l->q, qt_now(c, l));
            since = -1;
        }
        qt_step(c);
        if (c->why[0])
            return -1;
    }
    return abstaining(c) ? stuck(c, "a voter still abstains", limit) : 0;
}

static int stuck(qt_cluster *c, const char *what, int64_t limit_ms)
{
    int k = snprintf(c->why, sizeof(c->why), "seed %llu: %s within %lld ms of the heal;",
                     (unsigned long long)c->seed, what, (long long)limit_ms);
    for (int i = 0; i < c->n && k > 0 && (size_t)k < sizeof(c->why); i++) {
        const qt_node *nd = &c->nodes[i];
        k += snprintf(c->why + k, sizeof(c->why) - (size_t)k,
                      " [%d %s e%d l%d%s end %zu last %d hw %lld]",
                      nd->id, lr_quorum_role_name(lr_quorum_role_of(nd->q)),
                      lr_quorum_epoch(nd->q), lr_quorum_leader(nd->q),
                      lr_quorum_recovering(nd->q) ? " recovering" : "", nd->log.n,
                      nd->log.n ? nd->log.e[nd->log.n - 1].epoch : -1,
                      (long long)lr_quorum_hw(nd->q));
    }
    return -1;
}
