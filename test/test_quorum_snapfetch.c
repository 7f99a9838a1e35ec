/* Snapshots in the quorum (docs/quorum.md, "Snapshots in the quorum"): a
 * leader answers a fetch below its log start with its snapshot id, the
 * follower fetches it with FetchSnapshot in pieces and installs it; lost,
 * duplicated and reordered pieces, a leader change and failed writes or
 * installs start it over; a voter restarted on a snapshot votes with its
 * id; nothing is truncated below a log start. On the simulated cluster of
 * test/lib/quorum_testutil.h, whose snapshots quorum_snap.c keeps. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lib/quorum_testutil.h"

static const qt_params SNAP = {.snapshots = 1};

/* What went through the network, by type. */
typedef struct tap {
    long n[LR_QM_FSNAP_RESP + 1];
    long from_zero; /* FetchSnapshot requests at position 0 */
    long budget;    /* >= 0: FetchSnapshot requests delivered before the rest are lost */
} tap;

static int tap_relay(void *ctx, int32_t from, int32_t to, lr_qmsg *m)
{
    (void)from;
    (void)to;
    tap *t = ctx;
    if (m->type == LR_QM_FSNAP_REQ && t->budget >= 0 && t->budget-- == 0) {
        t->budget = 0;
        return 1;
    }
    t->n[m->type]++;
    t->from_zero += m->type == LR_QM_FSNAP_REQ && m->position == 0;
    return 0;
}

static qt_cluster *cluster(const qt_params *p, uint64_t seed, tap *t)
{
    qt_cluster *c = qt_new(3, 0, seed, p);
    memset(t, 0, sizeof *t);
    t->budget = -1;
    c->relay = tap_relay;
    c->relay_ctx = t;
    return c;
}

static qt_node *elect(qt_cluster *c)
{
    qt_node *l = qt_elect(c, 3000);
    cr_assert_not_null(l, "no leader");
    return l;
}

/* n entries proposed at l, then 50 ms for the followers to fetch (they
 * wait T/10 after an empty answer) and the HW to move everywhere. */
static void commit_n(qt_cluster *c, qt_node *l, int n)
{
    for (int i = 0; i < n; i++) {
        cr_assert_eq(qt_propose(c, l), 0);
        qt_settle(c);
    }
    for (int i = 0; i < 50; i++) {
        qt_advance(c, 1);
        qt_settle(c);
    }
}

/* Time passes (settling at every ms when asked) until f holds what l
 * holds; fails after limit ms. */
static void catch_up(qt_cluster *c, qt_node *f, int settle, int64_t limit)
{
    for (int64_t t = 0; t < limit; t++) {
        qt_node *l = qt_leader(c);
        if (l && f->log.n == l->log.n && lr_quorum_hw(f->q) >= lr_quorum_hw(l->q) &&
            lr_quorum_hw(f->q) > 0)
            return;
        qt_advance(c, 1);
        if (settle)
            qt_settle(c);
        cr_assert_eq(qt_check(c), 0, "%s", c->why);
    }
    cr_assert_fail("node %d did not catch up: end %zu start %zu", f->id, f->log.n, f->log.start);
}

static void same_tail(const qt_node *a, const qt_node *b)
{
    size_t from = a->log.start > b->log.start ? a->log.start : b->log.start;
    cr_assert_eq(a->log.n, b->log.n);
    for (size_t o = from; o < a->log.n; o++)
        cr_assert_eq(memcmp(&a->log.e[o], &b->log.e[o], sizeof(qt_entry)), 0, "offset %zu", o);
}

/* Leader l trimmed at its snapshot after 20 entries, follower f down all
 * along: f's fetch is below the leader's start. */
static qt_node *trimmed_leader(qt_cluster *c, qt_node **f)
{
    qt_node *l = elect(c);
    *f = qt_node_of(c, l->id == 3 ? 2 : 3);
    qt_crash(c, *f, 0);
    commit_n(c, l, 20);
    cr_assert_eq(qt_snapshot(c, l), 0);
    cr_assert_gt(l->log.start, 10);
    commit_n(c, l, 3);
    return l;
}

Test(quorum_snapfetch, far_behind_follower_fetches_the_snapshot_in_pieces)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 101, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    int64_t end = l->log.snap.end;
    qt_restart(c, f, 0);
    catch_up(c, f, 1, 3000);
    cr_assert_eq(f->installs, 1);
    cr_assert_eq(f->log.start, (size_t)end);
    cr_assert_eq(f->log.snap.end, end);
    cr_assert_eq(f->log.snap.epoch, l->log.snap.epoch);
    same_tail(f, l);
    cr_assert_geq(f->sm_applied, end);
    /* 124..323 bytes by 64: at least two pieces, one request each. */
    cr_assert_geq(t.n[LR_QM_FSNAP_RESP], 2);
    cr_assert_eq(t.n[LR_QM_FSNAP_REQ], t.n[LR_QM_FSNAP_RESP]);
    cr_assert_eq(t.from_zero, 1);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum_snapfetch, lost_duplicated_and_reordered_pieces)
{
    long installs = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        tap t;
        qt_params p = SNAP;
        qt_cluster *c = cluster(&p, 200 + seed, &t);
        qt_node *f, *l = trimmed_leader(c, &f);
        c->p.drop_pct = 25;
        c->p.dup_pct = 25;
        c->p.min_delay = 1;
        c->p.max_delay = 30;
        qt_restart(c, f, 0);
        catch_up(c, f, 0, 30000);
        /* A new leader that never trimmed may send it entries instead. */
        cr_assert(f->installs >= 1 || qt_leader(c) != l, "seed %llu", (unsigned long long)seed);
        installs += f->installs;
        same_tail(f, qt_leader(c));
        cr_assert_eq(qt_check(c), 0, "%s", c->why);
        qt_free(c);
    }
    cr_assert_gt(installs, 6);
}

Test(quorum_snapfetch, leader_change_mid_transfer_aborts_and_starts_over)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 303, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    qt_node *g = qt_node_of(c, 6 - l->id - f->id);
    qt_settle(c);
    qt_snapshot(c, g); /* whoever leads next has one too */
    int32_t e0 = lr_quorum_epoch(l->q);
    qt_restart(c, f, 0);
    t.budget = 1; /* one piece, then the requests are lost */
    lr_quorum_tick(f->q, qt_now(c, f));
    qt_deliver(c, 0);
    t.budget = -1;
    cr_assert_gt(f->log.rgot, 0, "no piece written");
    cr_assert_lt(f->log.rgot, f->log.rsize);
    cr_assert_eq(lr_quorum_resign(l->q, qt_now(c, l)), 0);
    while (lr_quorum_epoch(f->q) == e0)
        qt_advance(c, 1);
    cr_assert_eq(f->aborts, 1, "the partial snapshot was not dropped");
    catch_up(c, f, 1, 5000);
    cr_assert_eq(f->installs, 1);
    cr_assert_geq(t.from_zero, 2);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum_snapfetch, failed_install_or_write_starts_over)
{
    for (int which = 0; which < 2; which++) {
        tap t;
        qt_cluster *c = cluster(&SNAP, 404, &t);
        qt_node *f, *l = trimmed_leader(c, &f);
        if (which)
            f->fail_snap_write = 2;
        else
            f->fail_install = 1;
        qt_restart(c, f, 0);
        catch_up(c, f, 1, 5000);
        cr_assert_eq(f->installs, 1);
        cr_assert_geq(t.from_zero, 2, "the fetch did not start over");
        same_tail(f, l);
        qt_free(c);
    }
}

/* The resend of a lost FetchSnapshot request is in lr_quorum_deadline. */
Test(quorum_snapfetch, lost_request_is_sent_again_at_the_deadline)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 505, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    qt_restart(c, f, 0);
    t.budget = 0; /* the first request is lost */
    lr_quorum_tick(f->q, qt_now(c, f));
    qt_deliver(c, 0);
    cr_assert_eq(c->n_net, 0);
    int64_t d = lr_quorum_deadline(f->q);
    cr_assert_eq(d, qt_now(c, f) + c->conf.request_timeout_ms);
    lr_quorum_tick(f->q, d - 1);
    cr_assert_eq(qt_count(c, f->id, l->id, LR_QM_FSNAP_REQ), 0);
    lr_quorum_tick(f->q, d);
    cr_assert_eq(qt_count(c, f->id, l->id, LR_QM_FSNAP_REQ), 1);
    qt_free(c);
}

/* The leader's answer to a fetch injected as from `from`. */
static lr_qmsg ask(qt_cluster *c, qt_node *l, int32_t from, const lr_qmsg *m)
{
    qt_drop_all(c);
    cr_assert_eq(qt_inject(c, l->id, m), 0);
    cr_assert_eq(c->n_net, 1);
    cr_assert_eq(c->net[0].to, from);
    return c->net[0].m;
}

static lr_qmsg fetch(qt_cluster *c, qt_node *l, int32_t from, int64_t off, int32_t epoch)
{
    lr_qmsg m = {.type = LR_QM_FETCH_REQ, .from = from, .epoch = lr_quorum_epoch(l->q),
                 .leader_id = l->id, .fetch_offset = off, .last_fetched_epoch = epoch,
                 .hw = -1, .div_epoch = -1, .div_end_offset = -1, .snap_end = -1};
    lr_qmsg r = ask(c, l, from, &m);
    cr_assert_eq(r.type, LR_QM_FETCH_RESP);
    cr_assert_eq(r.error, 0);
    return r;
}

/* ReplicatedLog.validateOffsetAndEpoch's cases. */
Test(quorum_snapfetch, leader_answers_its_snapshot_below_its_start)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 606, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    int64_t s = (int64_t)l->log.start;
    int32_t p = l->log.snap.epoch;
    struct {
        int64_t off;
        int32_t epoch;
        int snap;
    } cases[] = {
        {0, -1, 1},     /* a new follower */
        {s - 1, p, 1},  /* below the start */
        {s, p + 1, 1},  /* at the start, another epoch */
        {s, p - 1, 1},  /* older than the snapshot */
        {s + 1, p - 1, 1},
        {s, p, 0},      /* at the start with its epoch: entries */
        {s + 1, l->log.e[s].epoch, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lr_qmsg r = fetch(c, l, f->id, cases[i].off, cases[i].epoch);
        if (cases[i].snap) {
            cr_assert_eq(r.snap_end, s, "case %zu", i);
            cr_assert_eq(r.snap_epoch, p);
            cr_assert_eq(r.n_entries, 0);
            cr_assert_eq(r.div_end_offset, -1);
            cr_assert_geq(r.hw, s);
        } else {
            cr_assert_leq(r.snap_end, 0, "case %zu", i);
            cr_assert_eq(r.div_end_offset, -1, "case %zu", i);
            cr_assert_gt(c->net[0].m.n_entries + (c->net[0].entries != NULL), 0);
        }
    }
    qt_free(c);
}

static lr_qmsg fsnap(qt_cluster *c, qt_node *to, int32_t from, int32_t epoch, int64_t end,
                     int32_t sepoch, int64_t pos)
{
    lr_qmsg m = {.type = LR_QM_FSNAP_REQ, .from = from, .epoch = epoch, .leader_id = to->id,
                 .snap_end = end, .snap_epoch = sepoch, .position = pos, .hw = -1,
                 .div_epoch = -1, .div_end_offset = -1};
    lr_qmsg r = ask(c, to, from, &m);
    cr_assert_eq(r.type, LR_QM_FSNAP_RESP);
    return r;
}

Test(quorum_snapfetch, fetch_snapshot_answers_and_refusals)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 707, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    qt_node *g = qt_node_of(c, 6 - l->id - f->id);
    int64_t s = l->log.snap.end;
    int32_t p = l->log.snap.epoch, e = lr_quorum_epoch(l->q);
    lr_qmsg r = fsnap(c, l, f->id, e, s, p, 0);
    cr_assert_eq(r.error, 0);
    cr_assert_eq(r.position, 0);
    cr_assert_eq(r.len, 64);
    cr_assert_gt(r.size, 100);
    cr_assert_eq(r.snap_end, s);
    cr_assert_not_null(c->net[0].data);
    int64_t size = r.size;
    r = fsnap(c, l, f->id, e, s, p, size - 10);
    cr_assert_eq(r.error, 0);
    cr_assert_eq(r.len, 10);
    cr_assert_eq(fsnap(c, l, f->id, e, s, p, size).error, LOGREP_ERR_POSITION_OUT_OF_RANGE);
    cr_assert_eq(fsnap(c, l, f->id, e, s + 1, p, 0).error, LOGREP_ERR_SNAPSHOT_NOT_FOUND);
    cr_assert_eq(fsnap(c, l, f->id, e, s, p + 1, 0).error, LOGREP_ERR_SNAPSHOT_NOT_FOUND);
    cr_assert_eq(fsnap(c, l, f->id, e - 1, s, p, 0).error, LOGREP_ERR_FENCED_LEADER_EPOCH);
    r = fsnap(c, l, f->id, e + 1, s, p, 0);
    cr_assert_eq(r.error, LOGREP_ERR_UNKNOWN_LEADER_EPOCH);
    cr_assert_eq(lr_quorum_epoch(l->q), e, "moved to the asker's epoch");
    cr_assert_eq(lr_quorum_role_of(l->q), LR_QR_LEADER);
    cr_assert_eq(fsnap(c, g, f->id, e, s, p, 0).error, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    /* Malformed: nothing answered. */
    lr_qmsg m = {.type = LR_QM_FSNAP_REQ, .from = f->id, .epoch = e, .snap_end = 0,
                 .snap_epoch = p};
    qt_drop_all(c);
    cr_assert_eq(qt_inject(c, l->id, &m), LOGREP_ERR__INVALID_ARG);
    m.snap_end = s;
    m.position = -1;
    cr_assert_eq(qt_inject(c, l->id, &m), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(c->n_net, 0);
    qt_free(c);
}

/* A bogus answer (a divergence below the follower's start, a piece at
 * the wrong place, of another snapshot, or past its size) changes
 * nothing: committed entries are never cut. */
Test(quorum_snapfetch, nothing_below_the_log_start_is_truncated)
{
    tap t;
    qt_cluster *c = cluster(&SNAP, 808, &t);
    qt_node *f, *l = trimmed_leader(c, &f);
    qt_restart(c, f, 0);
    catch_up(c, f, 1, 3000);
    size_t n = f->log.n, start = f->log.start;
    lr_qmsg r = {.type = LR_QM_FETCH_RESP, .from = l->id, .epoch = lr_quorum_epoch(l->q),
                 .leader_id = l->id, .hw = -1, .div_epoch = 0, .div_end_offset = 1,
                 .base_offset = (int64_t)n, .last_fetched_epoch = f->log.e[n - 1].epoch,
                 .snap_end = -1};
    cr_assert_eq(qt_inject(c, f->id, &r), 0);
    cr_assert_eq(f->log.n, n);
    cr_assert_eq(f->log.start, start);
    /* A snapshot answer below what it committed is not followed either. */
    r.div_epoch = -1;
    r.div_end_offset = -1;
    r.snap_end = 3;
    r.snap_epoch = 1;
    cr_assert_eq(qt_inject(c, f->id, &r), 0);
    cr_assert_eq(f->installs, 1);
    lr_qmsg s = {.type = LR_QM_FSNAP_RESP, .from = l->id, .epoch = lr_quorum_epoch(l->q),
                 .leader_id = l->id, .snap_end = 3, .snap_epoch = 1, .size = 100, .len = 3,
                 .data = (const uint8_t *)"abc", .hw = -1, .div_epoch = -1,
                 .div_end_offset = -1};
    cr_assert_eq(qt_inject(c, f->id, &s), 0); /* not fetching: ignored */
    cr_assert_eq(f->log.recv.end, 0);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

/* The model as if entries 0..n-1 of nd were committed (hand-made logs). */
static void seed_model(qt_cluster *c, const qt_node *nd, size_t n)
{
    c->committed = realloc(c->committed, n * sizeof(qt_entry));
    c->commit_epoch = realloc(c->commit_epoch, n * sizeof(int32_t));
    memcpy(c->committed, nd->log.e, n * sizeof(qt_entry));
    for (size_t i = 0; i < n; i++)
        c->commit_epoch[i] = nd->log.e[i].epoch;
    c->n_committed = c->cap_committed = n;
}

static void set_log(qt_node *nd, size_t n)
{
    static const int32_t epochs[] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3};
    free(nd->log.e);
    nd->log.e = calloc(n, sizeof(qt_entry));
    nd->log.cap = n;
    for (size_t i = 0; i < n; i++) {
        nd->log.e[i].epoch = epochs[i];
        nd->log.e[i].len = 2;
        nd->log.e[i].data[0] = 'e';
        nd->log.e[i].data[1] = (uint8_t)('0' + i);
    }
    nd->log.n = nd->log.durable = n;
}

/* Voter 3 restarted on a log that is its snapshot (10, 3) alone asks for
 * votes with (last epoch 3, end 10): elected when that is at least the
 * others' logs, refused when they hold one entry more. */
Test(quorum_snapfetch, voter_restarted_at_a_snapshot_votes_with_its_id)
{
    for (size_t others = 10; others <= 11; others++) {
        tap t;
        qt_cluster *c = cluster(&SNAP, 909, &t);
        for (int i = 0; i < 3; i++) {
            qt_node *nd = &c->nodes[i];
            qt_crash(c, nd, 0);
            nd->durable_state = (lr_quorum_state){3, -1, -1, 0, -1};
        }
        qt_node *n1 = qt_node_of(c, 1), *n2 = qt_node_of(c, 2), *n3 = qt_node_of(c, 3);
        set_log(n1, others);
        set_log(n2, others);
        seed_model(c, n1, 10);
        set_log(n3, 10);
        n3->log.start = 10;
        n3->log.snap = (qt_snap){10, 3, qt_model_sum(c, 10)};
        for (int i = 0; i < 3; i++)
            qt_restart(c, &c->nodes[i], 0);
        cr_assert_eq(n3->sm_applied, 10);
        n3->clock_off += 250;
        lr_quorum_tick(n3->q, qt_now(c, n3));
        cr_assert_eq(lr_quorum_role_of(n3->q), LR_QR_CANDIDATE);
        qt_complete_persist(c, n3);
        cr_assert_eq(qt_count(c, 3, -1, LR_QM_VOTE_REQ), 2);
        for (size_t i = 0; i < c->n_net; i++) {
            cr_assert_eq(c->net[i].m.last_epoch, 3);
            cr_assert_eq(c->net[i].m.end_offset, 10);
        }
        qt_settle(c);
        if (others == 10) {
            cr_assert_eq(lr_quorum_role_of(n3->q), LR_QR_LEADER);
            /* Its LeaderChange goes at 10, after the snapshot, and the
             * others fetch it at (10, 3): the snapshot's epoch ends there. */
            cr_assert_eq(n3->log.n, 11);
            cr_assert_eq(n1->log.n, 11);
            cr_assert_eq(n1->log.e[10].control, LR_QUORUM_CTL_LEADER_CHANGE);
            cr_assert_eq(lr_quorum_hw(n3->q), 11);
        } else {
            cr_assert_neq(lr_quorum_role_of(n3->q), LR_QR_LEADER);
        }
        cr_assert_eq(qt_check(c), 0, "%s", c->why);
        qt_free(c);
    }
}

/* Observers and a voter that lost its disk (it abstains) fetch the
 * snapshot too; the abstaining voter is trusted again after a leader
 * change it did not vote in. */
Test(quorum_snapfetch, observer_and_abstaining_voter_fetch_snapshots)
{
    tap t;
    qt_cluster *c = qt_new(3, 1, 1010, &SNAP);
    memset(&t, 0, sizeof t);
    t.budget = -1;
    c->relay = tap_relay;
    c->relay_ctx = &t;
    qt_node *l = elect(c), *obs = qt_node_of(c, 4);
    qt_node *v = qt_node_of(c, l->id == 3 ? 2 : 3);
    qt_crash(c, obs, 0);
    qt_crash(c, v, 0);
    commit_n(c, l, 15);
    cr_assert_eq(qt_snapshot(c, l), 0);
    commit_n(c, l, 2);
    qt_restart(c, obs, 0);
    qt_restart(c, v, 1);
    cr_assert(lr_quorum_recovering(v->q));
    catch_up(c, obs, 1, 3000);
    catch_up(c, v, 1, 3000);
    cr_assert_eq(obs->installs, 1);
    cr_assert_eq(v->installs, 1);
    cr_assert_eq(lr_quorum_resign(l->q, qt_now(c, l)), 0);
    for (int i = 0; i < 5000 && lr_quorum_recovering(v->q); i++) {
        qt_advance(c, 1);
        qt_settle(c);
    }
    cr_assert(!lr_quorum_recovering(v->q), "the voter was not trusted again");
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}
