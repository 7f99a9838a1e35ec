/* The quorum state machine, one test per rule (docs/quorum.md), in the
 * spirit of a Raft paper test suite: each drives a small simulated cluster
 * (test/lib/quorum_testutil.h) by hand and looks at what came out. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/quorum_testutil.h"

static const qt_params CALM = {0, 0, 0, 0, 0, 0, 0, 0};

static qt_cluster *cluster(int voters, int observers, uint64_t seed)
{
    return qt_new(voters, observers, seed, &CALM);
}

static lr_quorum_role role(qt_cluster *c, int32_t id)
{
    return lr_quorum_role_of(qt_node_of(c, id)->q);
}

static qt_node *elect(qt_cluster *c)
{
    qt_node *l = qt_elect(c, 2000);
    cr_assert_not_null(l, "no leader");
    return l;
}

/* Replaces a (crashed) node's log with entries of the given epochs. */
static void set_log(qt_node *nd, const int32_t *epochs, size_t n)
{
    free(nd->log.e);
    nd->log.e = calloc(n ? n : 1, sizeof(qt_entry));
    nd->log.cap = n ? n : 1;
    for (size_t i = 0; i < n; i++) {
        nd->log.e[i].epoch = epochs[i];
        nd->log.e[i].len = (size_t)snprintf((char *)nd->log.e[i].data, QT_DATA, "e%d-%zu",
                                            epochs[i], i);
    }
    nd->log.n = nd->log.durable = n;
}

/* Node id's clock jumps past its election timeout, nobody else's. */
static void make_candidate(qt_cluster *c, int32_t id)
{
    qt_node *nd = qt_node_of(c, id);
    nd->clock_off += 250;
    lr_quorum_tick(nd->q, qt_now(c, nd));
    cr_assert_eq(lr_quorum_role_of(nd->q), LR_QR_CANDIDATE);
}

/* Node 1 stands and its votes come back; its leadership not yet durable. */
static void win_votes(qt_cluster *c)
{
    make_candidate(c, 1);
    qt_complete_persist(c, qt_node_of(c, 1));
    qt_deliver(c, LR_QM_VOTE_REQ);
    qt_complete_persist(c, qt_node_of(c, 2));
    qt_complete_persist(c, qt_node_of(c, 3));
    qt_deliver(c, LR_QM_VOTE_RESP);
}

static lr_qmsg vote_req(int32_t from, int32_t epoch, int32_t last_epoch, int64_t end)
{
    return (lr_qmsg){.type = LR_QM_VOTE_REQ, .from = from, .epoch = epoch, .leader_id = -1,
                     .last_epoch = last_epoch, .end_offset = end, .div_end_offset = -1};
}

/* The first queued message from -> to of type; fails when none. */
static lr_qmsg *queued(qt_cluster *c, int32_t from, int32_t to, lr_qmsg_type type)
{
    for (size_t i = 0; i < c->n_net; i++)
        if (c->net[i].from == from && c->net[i].to == to && c->net[i].m.type == type)
            return &c->net[i].m;
    cr_assert_fail("no message %d -> %d of type %d", from, to, type);
    return NULL;
}

Test(quorum, new_refuses_a_bad_conf)
{
    int32_t dup[] = {1, 2, 1}, ok[] = {1, 2, 3};
    lr_quorum_conf conf = {.node_id = 1, .voters = dup, .n_voters = 3, .election_timeout_ms = 1,
                           .fetch_timeout_ms = 1, .request_timeout_ms = 1};
    lr_quorum_boot boot = {0};
    lr_quorum_log log = {0};
    lr_quorum_fx fx = {0};
    cr_assert_null(lr_quorum_new(&conf, &boot, &log, &fx, NULL, 0));
    conf.voters = ok;
    conf.election_timeout_ms = 0;
    cr_assert_null(lr_quorum_new(&conf, &boot, &log, &fx, NULL, 0));
    conf.election_timeout_ms = 1;
    cr_assert_null(lr_quorum_new(&conf, &boot, &log, &fx, NULL, 0)); /* no log ops */
    cr_assert_null(lr_quorum_new(NULL, &boot, &log, &fx, NULL, 0));
}

Test(quorum, formatted_voter_starts_unattached_in_epoch_0)
{
    qt_cluster *c = cluster(3, 0, 1);
    cr_assert_eq(role(c, 1), LR_QR_UNATTACHED);
    cr_assert_eq(lr_quorum_epoch(qt_node_of(c, 1)->q), 0);
    cr_assert_eq(lr_quorum_leader(qt_node_of(c, 1)->q), -1);
    cr_assert_eq(lr_quorum_hw(qt_node_of(c, 1)->q), -1);
    qt_free(c);
}

Test(quorum, election_timeout_is_drawn_from_T_to_2T)
{
    int64_t seen_min = 1 << 30, seen_max = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        qt_cluster *c = cluster(3, 0, seed);
        memset(c->cut, 1, sizeof(c->cut)); /* nobody hears anybody */
        int64_t t = 0;
        while (role(c, 1) != LR_QR_CANDIDATE && t < 1000) {
            qt_advance(c, 1);
            t++;
            qt_drop_all(c);
        }
        cr_assert(t >= 100 && t < 200, "seed %llu: timeout %lld", (unsigned long long)seed,
                  (long long)t);
        seen_min = t < seen_min ? t : seen_min;
        seen_max = t > seen_max ? t : seen_max;
        qt_free(c);
    }
    cr_assert_gt(seen_max - seen_min, 10, "timeouts are not spread");
}

Test(quorum, candidate_persists_its_vote_before_asking)
{
    qt_cluster *c = cluster(3, 0, 2);
    qt_node *n1 = qt_node_of(c, 1);
    make_candidate(c, 1);
    cr_assert_eq(n1->pending_state.epoch, 1);
    cr_assert_eq(n1->pending_state.voted_for, 1);
    cr_assert_neq(n1->pending_seq, 0);
    cr_assert_eq(qt_count(c, 1, -1, LR_QM_VOTE_REQ), 0, "asked before the vote was durable");
    qt_complete_persist(c, n1);
    cr_assert_eq(qt_count(c, 1, -1, LR_QM_VOTE_REQ), 2);
    lr_qmsg *m = queued(c, 1, 2, LR_QM_VOTE_REQ);
    cr_assert_eq(m->epoch, 1);
    cr_assert_eq(m->last_epoch, -1);
    cr_assert_eq(m->end_offset, 0);
    qt_free(c);
}

Test(quorum, vote_is_sent_only_once_durable)
{
    qt_cluster *c = cluster(3, 0, 3);
    qt_node *n1 = qt_node_of(c, 1);
    lr_qmsg r = vote_req(2, 1, -1, 0);
    cr_assert_eq(qt_inject(c, 1, &r), 0);
    cr_assert_eq(role(c, 1), LR_QR_VOTED);
    cr_assert_eq(qt_count(c, 1, 2, LR_QM_VOTE_RESP), 0);
    cr_assert_eq(n1->pending_state.voted_for, 2);
    qt_complete_persist(c, n1);
    cr_assert_eq(n1->durable_state.voted_for, 2);
    cr_assert_eq(n1->durable_state.epoch, 1);
    cr_assert(queued(c, 1, 2, LR_QM_VOTE_RESP)->granted);
    qt_free(c);
}

Test(quorum, at_most_one_vote_per_epoch)
{
    qt_cluster *c = cluster(3, 0, 4);
    lr_qmsg r2 = vote_req(2, 1, -1, 0), r3 = vote_req(3, 1, -1, 0);
    qt_inject(c, 1, &r2);
    qt_settle(c); /* delivers the grant to 2 */
    qt_inject(c, 1, &r3);
    qt_complete_persist(c, qt_node_of(c, 1));
    cr_assert_not(queued(c, 1, 3, LR_QM_VOTE_RESP)->granted);
    qt_drop_all(c);
    qt_inject(c, 1, &r2); /* a retried request is granted again */
    cr_assert(queued(c, 1, 2, LR_QM_VOTE_RESP)->granted);
    qt_free(c);
}

Test(quorum, vote_needs_a_log_at_least_as_up_to_date)
{
    qt_cluster *c = cluster(3, 0, 5);
    qt_node *n1 = qt_node_of(c, 1);
    qt_crash(c, n1, 0);
    int32_t ep[] = {1, 1, 1};
    set_log(n1, ep, 3);
    qt_restart(c, n1, 0);
    lr_qmsg shorter = vote_req(2, 2, 1, 2), equal = vote_req(3, 3, 1, 3),
            newer = vote_req(2, 4, 2, 1);
    qt_inject(c, 1, &shorter);
    qt_settle(c);
    cr_assert_eq(role(c, 1), LR_QR_UNATTACHED);
    cr_assert_eq(n1->durable_state.voted_for, -1);
    qt_inject(c, 1, &equal);
    cr_assert_eq(role(c, 1), LR_QR_VOTED);
    qt_inject(c, 1, &newer);
    cr_assert_eq(n1->pending_state.voted_for, 2);
    cr_assert_eq(n1->pending_state.epoch, 4);
    qt_free(c);
}

Test(quorum, older_epoch_is_refused_and_never_lowers_ours)
{
    qt_cluster *c = cluster(3, 0, 6);
    lr_qmsg b = {.type = LR_QM_BEGIN_REQ, .from = 2, .epoch = 5, .leader_id = 2};
    qt_inject(c, 1, &b);
    qt_settle(c);
    qt_drop_all(c);
    lr_qmsg r = vote_req(3, 4, 9, 100);
    qt_inject(c, 1, &r);
    lr_qmsg *resp = queued(c, 1, 3, LR_QM_VOTE_RESP);
    cr_assert_not(resp->granted);
    cr_assert_eq(resp->error, LOGREP_ERR_FENCED_LEADER_EPOCH);
    cr_assert_eq(resp->epoch, 5);
    cr_assert_eq(lr_quorum_epoch(qt_node_of(c, 1)->q), 5);
    qt_free(c);
}

Test(quorum, begin_quorum_epoch_makes_a_follower)
{
    qt_cluster *c = cluster(3, 0, 7);
    lr_qmsg b = {.type = LR_QM_BEGIN_REQ, .from = 2, .epoch = 5, .leader_id = 2};
    qt_inject(c, 1, &b);
    cr_assert_eq(role(c, 1), LR_QR_FOLLOWER);
    cr_assert_eq(lr_quorum_leader(qt_node_of(c, 1)->q), 2);
    cr_assert_eq(qt_node_of(c, 1)->pending_state.leader_id, 2);
    cr_assert_eq(qt_count(c, 1, 2, 0), 0, "spoke before the leader was durable");
    qt_complete_persist(c, qt_node_of(c, 1));
    cr_assert_eq(qt_count(c, 1, 2, LR_QM_FETCH_REQ), 1);
    qt_free(c);
}

Test(quorum, majority_elects_and_leader_change_is_the_epochs_first_record)
{
    qt_cluster *c = cluster(3, 0, 8);
    qt_node *l = elect(c);
    int32_t e = lr_quorum_epoch(l->q);
    cr_assert_eq(l->log.n, 1);
    cr_assert_eq(l->log.e[0].epoch, e);
    cr_assert_eq(l->log.e[0].control, LR_QUORUM_CTL_LEADER_CHANGE);
    int leaders = 0;
    for (int i = 1; i <= 3; i++)
        leaders += role(c, i) == LR_QR_LEADER;
    cr_assert_eq(leaders, 1);
    for (int i = 1; i <= 3; i++)
        cr_assert_eq(qt_node_of(c, i)->log.n, 1, "node %d did not replicate", i);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum, new_leader_acts_only_once_durable)
{
    qt_cluster *c = cluster(3, 0, 9);
    qt_node *n1 = qt_node_of(c, 1);
    win_votes(c);
    cr_assert_eq(role(c, 1), LR_QR_LEADER);
    cr_assert_eq(n1->log.n, 0, "LeaderChange before leadership was durable");
    cr_assert_eq(qt_count(c, 1, -1, LR_QM_BEGIN_REQ), 0);
    qt_complete_persist(c, n1);
    cr_assert_eq(n1->log.n, 1);
    cr_assert_eq(qt_count(c, 1, -1, LR_QM_BEGIN_REQ), 2);
    qt_free(c);
}

Test(quorum, hw_undefined_until_leader_change_is_committed)
{
    qt_cluster *c = cluster(3, 0, 10);
    qt_node *n1 = qt_node_of(c, 1);
    win_votes(c);
    qt_complete_persist(c, n1);
    qt_complete_flush(c, n1);
    cr_assert_eq(role(c, 1), LR_QR_LEADER);
    cr_assert_eq(lr_quorum_hw(n1->q), -1);
    cr_assert_eq(qt_propose(c, n1), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    qt_settle(c);
    cr_assert_eq(lr_quorum_hw(n1->q), 1);
    cr_assert_eq(qt_propose(c, n1), 0);
    qt_advance(c, 20); /* the followers' next fetch */
    qt_settle(c);
    cr_assert_eq(lr_quorum_hw(n1->q), 2);
    cr_assert_eq(qt_node_of(c, 2)->hw, 2);
    qt_free(c);
}

/* Delivers and completes everything except flushes of `hold`. */
static void settle_holding_flush(qt_cluster *c, qt_node *hold)
{
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < c->n; i++) {
            qt_node *nd = &c->nodes[i];
            qt_complete_persist(c, nd);
            if (nd != hold && nd->log.durable < nd->log.n)
                qt_complete_flush(c, nd);
        }
        if (!qt_deliver(c, 0))
            return;
    }
}

Test(quorum, hw_is_what_a_majority_holds_durably)
{
    qt_cluster *c = cluster(5, 0, 11);
    qt_node *l = elect(c);
    int64_t hw0 = lr_quorum_hw(l->q);
    /* Cut the leader from three of its four followers: no majority. */
    int cut = 0;
    for (int i = 0; i < 5 && cut < 3; i++) {
        qt_node *f = &c->nodes[i];
        if (f == l)
            continue;
        c->cut[l->id - 1][f->id - 1] = c->cut[f->id - 1][l->id - 1] = 1;
        cut++;
    }
    cr_assert_eq(qt_propose(c, l), 0);
    qt_settle(c);
    cr_assert_eq(lr_quorum_hw(l->q), hw0, "committed without a majority");
    /* One more follower: leader + 2 of 5 is a majority. */
    memset(c->cut, 0, sizeof(c->cut));
    for (int i = 0, k = 0; i < 5; i++)
        if (&c->nodes[i] != l && k++ < 2)
            c->cut[l->id - 1][i] = c->cut[i][l->id - 1] = 1;
    qt_advance(c, 30);
    qt_settle(c);
    cr_assert_eq(lr_quorum_hw(l->q), hw0 + 1);
    /* The leader's own entry counts only once flushed. */
    memset(c->cut, 0, sizeof(c->cut));
    qt_settle(c);
    cr_assert_eq(qt_propose(c, l), 0);
    l->flush_at = INT64_MAX / 2; /* the leader's disk is slow */
    for (int i = 0, k = 0; i < 5; i++)
        if (&c->nodes[i] != l && k++ < 2) /* leave two followers out */
            for (int j = 0; j < 5; j++)
                c->cut[i][j] = c->cut[j][i] = 1;
    qt_advance(c, 30);
    settle_holding_flush(c, l);
    cr_assert_eq(lr_quorum_hw(l->q), hw0 + 1, "counted its own unflushed entry");
    qt_complete_flush(c, l);
    cr_assert_eq(lr_quorum_hw(l->q), hw0 + 2);
    qt_free(c);
}

Test(quorum, follower_truncates_at_the_diverging_epoch)
{
    qt_cluster *c = cluster(3, 0, 12);
    int32_t a[] = {1, 1, 3}, b[] = {1, 1, 2, 2};
    for (int i = 1; i <= 3; i++)
        qt_crash(c, qt_node_of(c, i), 0);
    set_log(qt_node_of(c, 1), a, 3);
    set_log(qt_node_of(c, 2), b, 4);
    set_log(qt_node_of(c, 3), a, 3);
    for (int i = 1; i <= 3; i++) {
        qt_node *nd = qt_node_of(c, i);
        nd->durable_state = (lr_quorum_state){3, -1, -1, 0, -1};
        qt_restart(c, nd, 0);
    }
    qt_node *l = elect(c);
    cr_assert_neq(l->id, 2, "the shorter epoch won");
    qt_settle(c);
    qt_node *n2 = qt_node_of(c, 2);
    cr_assert_eq(n2->log.n, l->log.n);
    for (size_t o = 0; o < l->log.n; o++)
        cr_assert_eq(n2->log.e[o].epoch, l->log.e[o].epoch, "offset %zu", o);
    cr_assert_eq(n2->log.e[2].epoch, 3);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum, stale_fetch_answer_is_ignored)
{
    qt_cluster *c = cluster(3, 0, 13);
    qt_node *l = elect(c);
    qt_node *f = qt_node_of(c, l->id == 1 ? 2 : 1);
    size_t n = f->log.n;
    lr_qentry e = {lr_quorum_epoch(l->q), 0, (const uint8_t *)"x", 1};
    lr_qmsg r = {.type = LR_QM_FETCH_RESP, .from = l->id, .epoch = lr_quorum_epoch(l->q),
                 .leader_id = l->id, .hw = -1, .div_epoch = -1, .div_end_offset = -1,
                 .base_offset = 0, .last_fetched_epoch = -1, .entries = &e, .n_entries = 1};
    qt_inject(c, f->id, &r);
    cr_assert_eq(f->log.n, n, "appended an answer to an older fetch");
    r.div_end_offset = 0; /* nor truncates on one */
    qt_inject(c, f->id, &r);
    cr_assert_eq(f->log.n, n);
    qt_free(c);
}

Test(quorum, no_leader_for_the_fetch_timeout_starts_an_election)
{
    qt_cluster *c = cluster(3, 0, 14);
    qt_node *l = elect(c);
    int32_t e = lr_quorum_epoch(l->q);
    qt_crash(c, l, 0);
    int64_t t = 0;
    int32_t other = l->id == 1 ? 2 : 1;
    while (role(c, other) == LR_QR_FOLLOWER && t < 1000) {
        qt_advance(c, 1);
        t++;
    }
    cr_assert(t >= 150 && t <= 260, "became candidate after %lld ms", (long long)t);
    cr_assert_eq(role(c, other), LR_QR_CANDIDATE);
    cr_assert_eq(lr_quorum_epoch(qt_node_of(c, other)->q), e + 1);
    qt_free(c);
}

Test(quorum, leader_without_a_majority_resigns)
{
    qt_cluster *c = cluster(3, 0, 15);
    qt_node *l = elect(c);
    for (int j = 0; j < 3; j++)
        c->cut[l->id - 1][j] = c->cut[j][l->id - 1] = 1;
    int64_t t = 0;
    while (role(c, l->id) == LR_QR_LEADER && t < 2000) {
        qt_advance(c, 1);
        t++;
    }
    cr_assert_eq(role(c, l->id), LR_QR_RESIGNED);
    cr_assert(t >= 250 && t <= 400, "resigned after %lld ms", (long long)t);
    cr_assert_geq(qt_count(c, l->id, -1, LR_QM_END_REQ), 2);
    cr_assert_eq(qt_propose(c, l), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    qt_free(c);
}

Test(quorum, graceful_resign_hands_over_to_the_first_successor)
{
    qt_cluster *c = cluster(3, 0, 16);
    qt_node *l = elect(c);
    int32_t e = lr_quorum_epoch(l->q);
    cr_assert_eq(lr_quorum_resign(l->q, qt_now(c, l)), 0);
    lr_qmsg *m = queued(c, l->id, l->id == 1 ? 2 : 1, LR_QM_END_REQ);
    cr_assert_eq(m->n_successors, 2);
    int32_t first = m->successors[0];
    qt_settle(c);
    int64_t t = 0;
    while (role(c, first) != LR_QR_CANDIDATE && role(c, first) != LR_QR_LEADER && t < 500) {
        qt_advance(c, 1);
        t++;
    }
    cr_assert_lt(t, 30, "the first successor waited %lld ms", (long long)t);
    qt_settle(c);
    cr_assert_eq(role(c, first), LR_QR_LEADER);
    cr_assert_gt(lr_quorum_epoch(qt_node_of(c, first)->q), e);
    qt_free(c);
}

Test(quorum, restart_keeps_the_vote)
{
    qt_cluster *c = cluster(3, 0, 17);
    lr_qmsg r2 = vote_req(2, 1, -1, 0), r3 = vote_req(3, 1, -1, 0);
    qt_inject(c, 1, &r2);
    qt_complete_persist(c, qt_node_of(c, 1));
    qt_crash(c, qt_node_of(c, 1), 1);
    qt_restart(c, qt_node_of(c, 1), 0);
    cr_assert_eq(role(c, 1), LR_QR_VOTED);
    qt_drop_all(c);
    qt_inject(c, 1, &r3);
    cr_assert_not(queued(c, 1, 3, LR_QM_VOTE_RESP)->granted);
    qt_free(c);
}

Test(quorum, restarted_leader_does_not_resume)
{
    qt_cluster *c = cluster(3, 0, 18);
    qt_node *l = elect(c);
    int32_t e = lr_quorum_epoch(l->q);
    qt_crash(c, l, 0);
    qt_restart(c, l, 0);
    cr_assert_eq(role(c, l->id), LR_QR_RESIGNED);
    cr_assert_eq(lr_quorum_epoch(l->q), e);
    lr_qmsg r = vote_req(l->id == 1 ? 2 : 1, e, 99, 99);
    qt_inject(c, l->id, &r);
    cr_assert_eq(role(c, l->id), LR_QR_RESIGNED, "voted in the epoch it led");
    qt_free(c);
}

Test(quorum, voter_with_lost_disk_abstains_until_a_newer_epoch)
{
    qt_cluster *c = cluster(3, 0, 19);
    qt_node *l = elect(c);
    qt_node *v = qt_node_of(c, l->id == 3 ? 2 : 3);
    qt_crash(c, v, 0);
    qt_restart(c, v, 1);
    cr_assert(lr_quorum_recovering(v->q));
    int32_t e = lr_quorum_epoch(l->q);
    qt_advance(c, 50);
    qt_settle(c);
    cr_assert_eq(v->log.n, l->log.n, "the observer did not catch up");
    cr_assert(lr_quorum_recovering(v->q), "rejoined in the epoch it may have voted in");
    lr_qmsg r = vote_req(l->id, e + 1, 99, 99);
    qt_inject(c, v->id, &r);
    qt_complete_persist(c, v);
    cr_assert_not(queued(c, v->id, l->id, LR_QM_VOTE_RESP)->granted);
    for (int t = 0; t < 1000; t++) {
        qt_advance(c, 1);
        cr_assert_neq(role(c, v->id), LR_QR_CANDIDATE, "an abstaining voter stood");
    }
    /* A new epoch elected without it, caught up: it votes again. */
    qt_node *l2 = elect(c);
    cr_assert_gt(lr_quorum_epoch(l2->q), e);
    qt_advance(c, 50);
    qt_settle(c);
    cr_assert_not(lr_quorum_recovering(v->q));
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum, missing_quorum_state_is_not_trusted)
{
    qt_cluster *c = cluster(3, 0, 20);
    qt_node *n1 = qt_node_of(c, 1);
    qt_crash(c, n1, 0);
    n1->has_state = 0;
    qt_restart(c, n1, 0);
    cr_assert(lr_quorum_recovering(n1->q));
    lr_qmsg r = vote_req(2, 1, -1, 0);
    qt_inject(c, 1, &r);
    qt_settle(c);
    cr_assert_eq(n1->durable_state.voted_for, -1);
    qt_free(c);
}

Test(quorum, observer_follows_but_never_stands)
{
    qt_cluster *c = cluster(3, 1, 21);
    qt_node *l = elect(c);
    qt_node *o = qt_node_of(c, 4);
    cr_assert_eq(qt_propose(c, l), 0);
    for (int t = 0; t < 300; t++) {
        qt_advance(c, 1);
        qt_settle(c);
    }
    cr_assert_eq(o->log.n, l->log.n);
    cr_assert_eq(lr_quorum_leader(o->q), l->id);
    cr_assert_eq(o->hw, lr_quorum_hw(l->q));
    for (int i = 1; i <= 3; i++)
        qt_crash(c, qt_node_of(c, i), 0);
    for (int t = 0; t < 2000; t++) {
        qt_advance(c, 1);
        cr_assert_neq(role(c, 4), LR_QR_CANDIDATE);
    }
    qt_free(c);
}

Test(quorum, malformed_input_is_refused)
{
    qt_cluster *c = cluster(3, 0, 22);
    lr_qmsg m = vote_req(1, 1, -1, 0); /* from itself */
    cr_assert_eq(qt_inject(c, 1, &m), LOGREP_ERR__INVALID_ARG);
    m = vote_req(2, -1, -1, 0);
    cr_assert_eq(qt_inject(c, 1, &m), LOGREP_ERR__INVALID_ARG);
    m = (lr_qmsg){.type = LR_QM_FETCH_RESP, .from = 2, .epoch = 0, .n_entries = 3};
    cr_assert_eq(qt_inject(c, 1, &m), LOGREP_ERR__INVALID_ARG);
    m = (lr_qmsg){.type = 99, .from = 2};
    cr_assert_eq(qt_inject(c, 1, &m), LOGREP_ERR__INVALID_ARG);
    m = (lr_qmsg){.type = LR_QM_FETCH_REQ, .from = 2, .fetch_offset = -5};
    cr_assert_eq(qt_inject(c, 1, &m), LOGREP_ERR__INVALID_ARG);
    m = vote_req(9, 1, -1, 0); /* not a voter */
    qt_inject(c, 1, &m);
    cr_assert_eq(role(c, 1), LR_QR_UNATTACHED);
    cr_assert_eq(lr_quorum_epoch(qt_node_of(c, 1)->q), 0);
    qt_free(c);
}

Test(quorum, leader_change_record_layout)
{
    uint8_t key[4], val[64];
    int32_t voters[] = {1, 2, 3}, granting[] = {1, 2};
    cr_assert_eq(lr_quorum_leader_change_key(key, sizeof(key)), 4);
    cr_assert_eq(memcmp(key, "\x00\x00\x00\x02", 4), 0);
    size_t n = lr_quorum_leader_change_value(1, voters, 3, granting, 2, val, sizeof(val));
    static const uint8_t want[] = {0, 0,  0, 0, 0, 1,  4, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0,
                                   0, 0,  0, 3, 0, 3,  0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0};
    cr_assert_eq(n, sizeof(want));
    cr_assert_eq(memcmp(val, want, n), 0);
    cr_assert_eq(lr_quorum_leader_change_value(1, voters, 3, granting, 2, val, 10), 0);
}

Test(quorum, abstaining_survives_a_restart)
{
    qt_cluster *c = cluster(3, 0, 23);
    qt_node *l = elect(c);
    qt_node *v = qt_node_of(c, l->id == 3 ? 2 : 3);
    qt_crash(c, v, 0);
    qt_restart(c, v, 1);
    qt_advance(c, 50);
    qt_settle(c); /* learns the epoch: quorum-state written, abstaining */
    cr_assert(v->has_state);
    cr_assert(v->durable_state.abstaining);
    cr_assert_eq(v->durable_state.floor_epoch, lr_quorum_epoch(l->q));
    qt_crash(c, v, 0);
    qt_restart(c, v, 0); /* an ordinary restart does not make it trusted */
    cr_assert(lr_quorum_recovering(v->q));
    lr_qmsg r = vote_req(l->id, lr_quorum_epoch(l->q) + 1, 99, 99);
    qt_inject(c, v->id, &r);
    qt_complete_persist(c, v);
    cr_assert_not(queued(c, v->id, l->id, LR_QM_VOTE_RESP)->granted);
    qt_free(c);
}

Test(quorum, deadline_says_when_the_next_tick_has_work)
{
    qt_cluster *c = cluster(3, 0, 24);
    qt_node *n1 = qt_node_of(c, 1);
    memset(c->cut, 1, sizeof(c->cut));
    int64_t d = lr_quorum_deadline(n1->q);
    cr_assert(d >= 100 && d < 200);
    lr_quorum_tick(n1->q, d - 1);
    cr_assert_eq(role(c, 1), LR_QR_UNATTACHED);
    lr_quorum_tick(n1->q, d);
    cr_assert_eq(role(c, 1), LR_QR_CANDIDATE);
    lr_quorum_tick(n1->q, d - 50); /* time going back changes nothing */
    cr_assert_eq(role(c, 1), LR_QR_CANDIDATE);
    qt_free(c);
}

/* A leader's deadline is always ahead of its clock: after the new
 * leader's grace window, and while a voter is down (a host that ticks at
 * the deadline would otherwise spin). */
Test(quorum, leader_deadline_stays_ahead)
{
    qt_cluster *c = cluster(3, 0, 26);
    qt_node *l = elect(c);
    for (int i = 0; i < 100; i++) { /* 5 s, well past the grace window */
        qt_advance(c, 50);
        cr_assert_gt(lr_quorum_deadline(l->q), qt_now(c, l), "at %d", i);
    }
    qt_node *f = qt_node_of(c, l->id == 1 ? 2 : 1);
    qt_crash(c, f, 0);
    for (int i = 0; i < 200; i++) { /* 10 s with a voter down */
        qt_advance(c, 50);
        cr_assert_eq(lr_quorum_role_of(l->q), LR_QR_LEADER);
        cr_assert_gt(lr_quorum_deadline(l->q), qt_now(c, l), "at %d, a voter down", i);
    }
    qt_free(c);
}

/* Random field values into every message type: nothing crashes and the
 * invariants hold (the harness checks what the node did with them). */
Test(quorum, garbage_messages_change_nothing_unsafe)
{
    qt_cluster *c = cluster(3, 0, 25);
    qt_node *l = elect(c);
    lr_prng r;
    lr_prng_seed(&r, 25);
    lr_qentry e[3] = {{1, 0, (const uint8_t *)"a", 1}, {2, 2, NULL, 0}, {-1, 0, NULL, 5}};
    for (int i = 0; i < 20000; i++) {
        lr_qmsg m = {
            .type = (lr_qmsg_type)lr_prng_below(&r, 10),
            .from = (int32_t)lr_prng_below(&r, 6) - 1,
            .epoch = (int32_t)lr_prng_below(&r, 8) - 1,
            .error = (int16_t)lr_prng_below(&r, 3),
            .leader_id = (int32_t)lr_prng_below(&r, 6) - 1,
            .last_epoch = (int32_t)lr_prng_below(&r, 8) - 1,
            .end_offset = (int64_t)lr_prng_below(&r, 10) - 1,
            .granted = (uint8_t)lr_prng_below(&r, 2),
            .n_successors = (uint8_t)lr_prng_below(&r, 40),
            .fetch_offset = (int64_t)lr_prng_below(&r, 10) - 1,
            .last_fetched_epoch = (int32_t)lr_prng_below(&r, 8) - 1,
            .observer = (uint8_t)lr_prng_below(&r, 2),
            .hw = (int64_t)lr_prng_below(&r, 10) - 1,
            .div_epoch = (int32_t)lr_prng_below(&r, 8) - 1,
            .div_end_offset = (int64_t)lr_prng_below(&r, 10) - 1,
            .base_offset = (int64_t)lr_prng_below(&r, 10) - 1,
        };
        if (lr_prng_below(&r, 2)) {
            m.entries = e;
            m.n_entries = (size_t)lr_prng_below(&r, 4);
        }
        qt_inject(c, (int32_t)lr_prng_below(&r, 3) + 1, &m);
        qt_settle(c);
        qt_advance(c, 1);
    }
    (void)l;
    /* Forged grants could in principle make a second leader (messages are
     * not authenticated); this seed's traffic must leave the invariants
     * intact, and no input may crash or trip the sanitizers. */
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}

Test(quorum, single_voter_leads_alone_and_commits_once_flushed)
{
    qt_cluster *c = cluster(1, 0, 26);
    qt_node *n1 = qt_node_of(c, 1);
    n1->clock_off += 250;
    lr_quorum_tick(n1->q, qt_now(c, n1));
    cr_assert_eq(role(c, 1), LR_QR_LEADER, "a majority of one is itself");
    qt_complete_persist(c, n1);
    cr_assert_eq(n1->log.n, 1);
    cr_assert_eq(lr_quorum_hw(n1->q), -1, "committed before the flush");
    qt_complete_flush(c, n1);
    cr_assert_eq(lr_quorum_hw(n1->q), 1);
    lr_qentry bad[2] = {{0, 0, (const uint8_t *)"a", 1}, {0, 0, NULL, 3}};
    cr_assert_eq(lr_quorum_propose(n1->q, bad, 2, NULL), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(n1->log.n, 1, "half a proposal was appended");
    int64_t base = -1;
    cr_assert_eq(lr_quorum_propose(n1->q, bad, 1, &base), 0);
    cr_assert_eq(base, 1);
    qt_complete_flush(c, n1);
    cr_assert_eq(n1->hw, 2);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}
