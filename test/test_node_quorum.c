/* Nodes whose controller is a quorum of three voters (docs/quorum.md,
 * "In the node"): one active controller elected, brokers registering
 * with it, topics created through any node, and the loss of the active
 * controller survived: another voter takes over, leadership moves off
 * the dead node, writes go on, and nothing acknowledged is lost. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"
#include "node/ctl_role.h"
#include "quorum/qwire.h"

#define VOTERS3 NET_VOTERS3

static const char *const quorum_conf[] = {"broker.session.timeout.ms", "3000", NULL};

static void quorum_setup(net *w, int nodes)
{
    net_quorum_setup(w, nodes, quorum_conf);
}

static void quorum_teardown(net *w)
{
    net_quorum_teardown(w);
}

Test(node_quorum, elects_one_active_controller_and_serves)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    create_topic(&w, 1, "q", 3, 3);
    run(&w, 500);
    for (int p = 0; p < 3; p++) {
        int64_t base;
        cr_assert_eq(produce(&w, leader_of(&w, 1, "q", p, NULL), "q", p, "v0", -1, &base), 0);
    }
    quorum_teardown(&w);
}

/* ------------------------------------------------------------ helpers */

/* A CreateTopics v7 of one topic, RF 3, for node `to`'s listener. */
static uint64_t create_send(net *w, int to, const char *listener, const char *name, int parts)
{
    logrep_msg *m = create_topic_request(name, parts, 3, NULL);
    uint64_t c = client_send_on(w, to, listener, m);
    logrep_msg_free(m);
    return c;
}

/* Its answer's topic error within max_ms; -1 when none came, -2 when
 * the connection was closed. */
static int create_answer(net *w, uint64_t c, int64_t max_ms)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    int got = client_answer(w, c, LOGREP_API_CREATE_TOPICS, 7, r, max_ms);
    int code = got == 1 ? (int)fint(elem(logrep_msg_root(r), "Topics", 0), "ErrorCode")
                        : got == 0 ? -2 : -1;
    logrep_msg_free(r);
    return code;
}

/* ------------------------------------------------------------ failover */

Test(node_quorum, active_controller_killed_another_takes_over)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    create_topic(&w, net_live_other(&w, a), "q", 6, 3);
    run(&w, 500);
    net_produce_all(&w, "q", 6, 0, 5);
    int led = 0;
    for (int p = 0; p < 6; p++)
        led += leader_of(&w, a, "q", p, NULL) == a;
    cr_assert_gt(led, 0, "the active controller leads no partition");

    kill_node(&w, a);
    int b = -1;
    for (int t = 0; t < 100 && b < 0; t++) {
        run(&w, 100);
        b = net_active(&w);
    }
    cr_assert(b >= 1 && b != a, "no new active controller within 10 s");
    /* The dead node's partitions move once its session expires. */
    for (int p = 0; p < 6; p++) {
        int l = -1;
        for (int t = 0; t < 100; t++) {
            l = leader_of(&w, b, "q", p, NULL);
            if (l >= 1 && l != a)
                break;
            run(&w, 100);
        }
        cr_assert(l >= 1 && l != a, "partition %d still led by %d", p, l);
    }
    net_produce_all(&w, "q", 6, 5, 5);
    net_check_all(&w, "q", 6, 10);
    /* A topic created after the failover, through the other live node. */
    create_topic(&w, net_live_other(&w, b), "after", 2, 2);

    start_node(&w, a);
    cr_assert_geq(net_settle(&w, 10000), 1);
    net_produce_all(&w, "q", 6, 10, 2);
    net_check_all(&w, "q", 6, 12);
    quorum_teardown(&w);
}

Test(node_quorum, whole_cluster_killed_and_restarted_serves_everything)
{
    static const int orders[3][3] = {{1, 2, 3}, {3, 2, 1}, {2, 3, 1}};
    net w;
    quorum_setup(&w, 3);
    cr_assert_geq(net_settle(&w, 10000), 1);
    create_topic(&w, 1, "w", 3, 3);
    run(&w, 500);
    int n = 0;
    for (int round = 0; round < 3; round++) {
        net_produce_all(&w, "w", 3, n, 4);
        n += 4;
        for (int id = 1; id <= 3; id++)
            kill_node(&w, id);
        run(&w, 100);
        for (int k = 0; k < 3; k++) {
            start_node(&w, orders[round][k]);
            run(&w, 300);
        }
        int a = net_settle(&w, 10000);
        cr_assert_geq(a, 1, "round %d: no active controller after the restart", round);
        net_check_all(&w, "w", 3, n);
    }
    quorum_teardown(&w);
}

/* ------------------------------------------------------------ answers */

Test(node_quorum, answers_wait_for_the_commit)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    int o1 = a % 3 + 1, o2 = o1 % 3 + 1;
    kill_node(&w, o1);
    kill_node(&w, o2);
    /* Alone, the active controller writes the records but cannot commit
     * them: the answer waits. */
    uint64_t c = create_send(&w, a, "CONTROLLER", "held", 1);
    cr_assert_eq(create_answer(&w, c, 600), -1, "answered before its records committed");
    start_node(&w, o1);
    int code = create_answer(&w, c, 5000);
    cr_assert(code == 0 || code == -2, "after the commit: %d", code);
    if (code == 0) {
        cr_assert_eq(net_active(&w), a);
    } else {
        /* Leadership was lost first: closed unanswered; the client retries. */
        cr_assert_neq(net_active(&w), a);
    }
    start_node(&w, o2);
    int b = net_settle(&w, 10000);
    cr_assert_geq(b, 1);
    int again = create_answer(&w, create_send(&w, b, "CONTROLLER", "held", 1), 5000);
    cr_assert(code == 0 ? again == LOGREP_ERR_TOPIC_ALREADY_EXISTS : again == 0 ||
                                                                      again == LOGREP_ERR_TOPIC_ALREADY_EXISTS,
              "retried: %d", again);
    quorum_teardown(&w);
}

Test(node_quorum, a_leader_cut_off_drops_what_it_could_not_commit)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    int o1 = a % 3 + 1, o2 = o1 % 3 + 1;
    kill_node(&w, o1);
    kill_node(&w, o2);
    uint64_t c = create_send(&w, a, "CONTROLLER", "lost", 1);
    /* Check-quorum: with no voter fetching for 1.5 x the fetch timeout
     * the leader resigns; the held answer is never sent. */
    cr_assert_eq(create_answer(&w, c, 5000), -2);
    cr_assert_eq(net_active(&w), -1);
    quorum_teardown(&w);
}

Test(node_quorum, standby_voters_refuse_and_brokers_forward)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    int s = a % 3 + 1;
    /* A standby's controller listener: NOT_CONTROLLER at once. */
    cr_assert_eq(create_answer(&w, create_send(&w, s, "CONTROLLER", "x", 1), 1000),
                 LOGREP_ERR_NOT_CONTROLLER);
    /* Its broker listener forwards to the active controller. */
    cr_assert_eq(create_answer(&w, create_send(&w, s, "PLAINTEXT", "x", 1), 3000), 0);
    quorum_teardown(&w);
}

/* DescribeQuorum v2 through node `to`'s listener: the answer's error,
 * leader, voter count and (observers not NULL) observer count. */
static int describe_obs(net *w, int to, const char *listener, int32_t *leader, int *voters,
                        int64_t *hw, int *observers)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_DESCRIBE_QUORUM, 2, 9, "test"), LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "TopicName"), "__cluster_metadata", 18);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    uint64_t c = client_send_on(w, to, listener, m);
    cr_assert_eq(client_answer(w, c, LOGREP_API_DESCRIBE_QUORUM, 2, r, 3000), 1);
    logrep_struct *rs = logrep_msg_root(r);
    int code = (int)fint(rs, "ErrorCode");
    if (!code) {
        logrep_struct *p = elem(elem(rs, "Topics", 0), "Partitions", 0);
        code = (int)fint(p, "ErrorCode");
        *leader = (int32_t)fint(p, "LeaderId");
        *hw = fint(p, "HighWatermark");
        *voters = logrep_struct_count(p, logrep_struct_field(p, "CurrentVoters"));
        if (observers)
            *observers = logrep_struct_count(p, logrep_struct_field(p, "Observers"));
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    return code;
}

static int describe(net *w, int to, const char *listener, int32_t *leader, int *voters,
                    int64_t *hw)
{
    return describe_obs(w, to, listener, leader, voters, hw, NULL);
}

Test(node_quorum, describe_quorum)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    int s = a % 3 + 1;
    int32_t leader = -1;
    int voters = 0;
    int64_t hw = -1;
    cr_assert_eq(describe(&w, a, "CONTROLLER", &leader, &voters, &hw), 0);
    cr_assert_eq(leader, a);
    cr_assert_eq(voters, 3);
    cr_assert_gt(hw, 0);
    leader = -1;
    cr_assert_eq(describe(&w, s, "CONTROLLER", &leader, &voters, &hw),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(leader, a, "a standby names the leader");
    /* Any broker listener: forwarded to the active controller. */
    leader = -1;
    cr_assert_eq(describe(&w, s, "PLAINTEXT", &leader, &voters, &hw), 0);
    cr_assert_eq(leader, a);
    quorum_teardown(&w);
}

/* Brokers that are not voters follow the committed log on the active
 * controller: DescribeQuorum lists them as observers (combined nodes are
 * voters, and are not listed twice). */
Test(node_quorum, describe_quorum_lists_brokers_as_observers)
{
    net w;
    quorum_setup(&w, 4);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    run(&w, 1000);
    int32_t leader = -1;
    int voters = 0, observers = -1;
    int64_t hw = -1;
    cr_assert_eq(describe_obs(&w, a, "CONTROLLER", &leader, &voters, &hw, &observers), 0);
    cr_assert_eq(voters, 3);
    cr_assert_eq(observers, 1, "observers: %d, want broker 4 alone", observers);
    quorum_teardown(&w);
}

/* ------------------------------------------------------------ disk */

Test(node_quorum, a_voter_without_its_state_abstains)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    create_topic(&w, 1, "d", 1, 3);
    run(&w, 300);
    int lost = a % 3 + 1, other = lost % 3 + 1;
    kill_node(&w, lost);
    cr_assert_eq(w.st[lost]->remove(w.st[lost]->ctx, "data/__cluster_metadata-0/quorum-state"),
                 LOGREP_OK);
    start_node(&w, lost);
    run(&w, 2000);
    cr_assert_eq(net_active(&w), a, "the leader stays");
    /* Without the leader, the voter that lost its state may not vote:
     * the one other voter cannot win alone, so nothing is active. */
    kill_node(&w, a);
    run(&w, 6000);
    cr_assert_eq(net_active(&w), -1, "elected with a voter that lost its state");
    (void)other;
    /* The old leader back: a majority that does not need the abstainer. */
    start_node(&w, a);
    cr_assert_geq(net_settle(&w, 15000), 1);
    net_produce_all(&w, "d", 1, 0, 3);
    net_check_all(&w, "d", 1, 3);
    quorum_teardown(&w);
}

Test(node_quorum, quorum_apis_are_not_served_by_a_single_controller)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    int32_t leader;
    int voters;
    int64_t hw;
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_DESCRIBE_QUORUM, 2, 9, "test"), LOGREP_OK);
    uint64_t c = client_send_on(&w, 1, "CONTROLLER", m);
    cr_assert_eq(client_answer(&w, c, LOGREP_API_DESCRIBE_QUORUM, 2, r, 1000), 0,
                 "a single controller closes the connection");
    (void)leader, (void)voters, (void)hw;
    logrep_msg_free(m);
    logrep_msg_free(r);
    teardown(&w);
}
/* The active controller serves the metadata log to brokers only below
 * the quorum's commit point: records it proposed that no majority holds
 * may be truncated away, and a broker that applied one would disagree
 * with the log for good. Built by construction: the two other voters
 * die, the active controller fences them (records that cannot commit),
 * and the broker-only node 4, which follows the active controller, must
 * never apply past what is committed. */
Test(node_quorum, brokers_never_fetch_uncommitted_metadata)
{
    static const char *const conf[] = {"broker.session.timeout.ms", "800",
                                       "broker.heartbeat.interval.ms", "200", NULL};
    net w;
    net_voters = VOTERS3;
    net_controllers = 3;
    extra_conf = conf;
    setup(&w, 4);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    for (int id = 1; id <= 3; id++)
        if (id != a)
            kill_node(&w, id);
    lr_nq_view v;
    int64_t end0 = -1;
    int proposed = 0;
    for (int t = 0; t < 2500; t += 10) {
        run(&w, 10);
        if (lr_nctl_quorum_view(w.node[a], &v) != 0)
            break;
        if (end0 < 0)
            end0 = v.end;
        proposed |= v.end > end0;
        int64_t next = lr_md_next_offset(w.node[4]->md.img);
        cr_assert_leq(next, v.hw < 0 ? 0 : v.hw,
                      "broker 4 applied metadata up to %lld; node %d committed only %lld (log end %lld)",
                      (long long)next, a, (long long)v.hw, (long long)v.end);
    }
    cr_assert(proposed, "node %d proposed nothing while its voters were down", a);
    quorum_teardown(&w);
}

/* The quorum's own requests are answered at once by the active
 * controller, even while records it proposed wait for their commit:
 * holding a Vote answer until the commit would hold up the fetches
 * behind it on the voter's connection, and with one other voter up those
 * fetches are what the commit waits for. Built by construction: the two
 * other voters die, the active controller proposes records that cannot
 * commit (it fences them), and a Vote from one of them arrives on the
 * controller listener: its answer must come while the controller still
 * acts. */
Test(node_quorum, vote_answered_while_records_wait_for_commit)
{
    static const char *const conf[] = {"broker.session.timeout.ms", "800",
                                       "broker.heartbeat.interval.ms", "200", NULL};
    net w;
    net_voters = VOTERS3;
    net_controllers = 3;
    extra_conf = conf;
    setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    int b = a == 1 ? 2 : 1;
    for (int id = 1; id <= 3; id++)
        if (id != a)
            kill_node(&w, id);
    lr_nq_view v;
    cr_assert_eq(lr_nctl_quorum_view(w.node[a], &v), 0);
    int64_t end0 = v.end;
    for (int t = 0; t < 1500 && v.end == end0; t += 10) {
        run(&w, 10);
        cr_assert_eq(lr_nctl_quorum_view(w.node[a], &v), 0);
    }
    cr_assert_gt(v.end, v.hw, "node %d has no record waiting for its commit", a);
    cr_assert(v.active, "node %d stopped acting before the test could ask", a);
    logrep_msg *m, *resp;
    cr_assert_eq(logrep_msg_new(NULL, &m), LOGREP_OK);
    cr_assert_eq(logrep_msg_new(NULL, &resp), LOGREP_OK);
    int version;
    int api = lr_qwire_api(LR_QM_VOTE_REQ, &version);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 7, "voter"), LOGREP_OK);
    lr_qmsg q;
    memset(&q, 0, sizeof q);
    q.type = LR_QM_VOTE_REQ;
    q.from = b;
    q.epoch = v.epoch; /* a vote it cannot grant: the leader of this epoch */
    q.leader_id = -1;
    q.last_epoch = 0;
    q.end_offset = 0;
    lr_qwire qw = {b, NULL};
    cr_assert_eq(lr_qwire_encode(&qw, m, &q, a, 0, NULL), 0);
    uint64_t c = client_send_on(&w, a, "CONTROLLER", m);
    /* 1 answered, 0 closed, -1 nothing yet */
    cr_assert_eq(client_answer(&w, c, api, version, resp, 300), 1,
                 "node %d holds its Vote answer until records it proposed commit", a);
    logrep_msg_free(m);
    logrep_msg_free(resp);
    quorum_teardown(&w);
}

/* A broker whose controller to ask is a dead voter, and whose connect to
 * it is refused at once (nothing listens there), asks the next voter:
 * without that it keeps asking the dead one and its session expires on
 * the new active controller. Built by construction: the active
 * controller dies, a standby that has not noticed yet names it again in
 * its metadata fetch answers (CurrentLeader), and the broker-only node 4
 * must still register its heartbeats with the new active controller and
 * stay unfenced. */
Test(node_quorum, broker_moves_off_a_dead_controller)
{
    net w;
    quorum_setup(&w, 4);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    kill_node(&w, a);
    int b = -1;
    for (int t = 0; t < 8000 && b < 0; t += 50) {
        run(&w, 50);
        b = net_active(&w);
    }
    cr_assert_geq(b, 1, "no new active controller within 8 s");
    run(&w, 6000); /* two session timeouts */
    cr_assert_eq(net_active(&w), b);
    const lr_md_broker *b4 = lr_md_broker_get(lr_nctl_image(w.node[b]), 4);
    cr_assert(b4 && !b4->fenced, "broker 4 is %s on the new active controller %d",
              b4 ? "fenced" : "unknown", b);
    cr_assert_eq(w.node[4]->ctl_id, b, "broker 4 asks node %d, not the active controller %d",
                 (int)w.node[4]->ctl_id, b);
    quorum_teardown(&w);
}

/* A commit wakes the brokers' metadata fetches parked on the active
 * controller at once, also for records it had applied when it proposed
 * them: a client that created a topic finds it on every broker right
 * after the answer, not a long-poll (500 ms) later. */
Test(node_quorum, brokers_learn_a_commit_at_once)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    run(&w, 1000); /* every broker's metadata fetch parked on the controller */
    uint64_t c = create_send(&w, a, "CONTROLLER", "fast", 1);
    cr_assert_eq(create_answer(&w, c, 3000), 0);
    run(&w, 60);
    for (int id = 1; id <= 3; id++) {
        char buf[512];
        logrep_node_describe(w.node[id], "fast", 0, buf, sizeof buf);
        cr_assert(strstr(buf, "Topic: fast"), "node %d does not know the topic 60 ms after: %s",
                  id, buf);
    }
    quorum_teardown(&w);
}

/* A broker that learns of a new active controller heartbeats it at once:
 * that controller started the broker's session when it took over, and a
 * heartbeat a whole interval later can come after the session timeout
 * (simulator seed 22524: a broker cut off until the heal found the new
 * controller 180 ms before its session there expired, and was fenced).
 * Built here: broker 4 asks a standby, as after being cut off, with its
 * last heartbeat just sent; its parked metadata fetch names the active
 * controller, and a heartbeat must reach it well before the interval. */
Test(node_quorum, a_broker_heartbeats_a_new_controller_at_once)
{
    net w;
    quorum_setup(&w, 4);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    run(&w, 1000);
    int standby = a % 3 + 1;
    logrep_node *b4 = w.node[4];
    cr_assert_eq(b4->ctl_id, a);
    run(&w, 1); /* not in the middle of a heartbeat */
    for (int t = 0; t < 3000 && b4->life.heartbeat_in_flight; t++)
        run(&w, 1);
    b4->ctl_id = standby;
    b4->life.last_heartbeat = w.now;
    int64_t sent = w.requests_sent[4][LOGREP_API_BROKER_HEARTBEAT];
    int64_t hb = lr_conf_int(b4->conf, LR_CONF_BROKER_HEARTBEAT_INTERVAL_MS);
    run(&w, 700);
    cr_assert_lt(700, hb / 2, "the heartbeat interval (%lld ms) is too short for this test",
                 (long long)hb);
    cr_assert_eq(b4->ctl_id, a, "broker 4 asks node %d, not the active controller %d",
                 (int)b4->ctl_id, a);
    cr_assert_gt(w.requests_sent[4][LOGREP_API_BROKER_HEARTBEAT], sent,
                 "no heartbeat within 700 ms of learning the active controller");
    quorum_teardown(&w);
}

/* A clean shutdown of the active controller hands the quorum's
 * leadership over before it is done: when the node stops, another voter
 * is already the active controller (without the handover the others
 * would wait for the fetch timeout, 2 s, and an election). */
Test(node_quorum, clean_shutdown_of_the_active_controller_hands_over)
{
    net w;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    cr_assert_eq(logrep_node_shutdown(w.node[a], w.now), LOGREP_OK);
    int64_t t = 0;
    for (; t < 8000 && !logrep_node_shutdown_done(w.node[a]); t += 10)
        run(&w, 10);
    cr_assert(logrep_node_shutdown_done(w.node[a]), "the shutdown did not finish in 8 s");
    cr_assert_lt(t, 4000, "the shutdown took %lld ms: it waited for the handover's timeout",
                 (long long)t);
    kill_node(&w, a);
    run(&w, 100);
    int b = net_active(&w);
    cr_assert(b >= 1 && b != a, "no other active controller 100 ms after node %d stopped", a);
    quorum_teardown(&w);
}

/* A metadata write that fails on the active controller stops its
 * controller (its image holds a record the log does not) and makes it
 * resign the quorum's leadership at once, loudly: another voter is the
 * active controller well within an election timeout or two, instead of
 * the cluster waiting on a leader that still answers fetches but cannot
 * act (it would never lose its leadership). */
Test(node_quorum, a_failed_metadata_write_makes_the_active_controller_resign)
{
    net w;
    net_crash_storage = 1;
    quorum_setup(&w, 3);
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1);
    /* Every write on its disk fails from now on. */
    cr_assert_eq(logrep_storage_crash_inject(w.st[a], LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 1),
                 LOGREP_OK);
    uint64_t c = create_send(&w, a, "CONTROLLER", "doomed", 1);
    int b = -1;
    for (int t = 0; t < 2500 && (b < 0 || b == a); t += 10) {
        run(&w, 10);
        b = net_active(&w);
    }
    cr_assert(b >= 1 && b != a, "no other active controller 2.5 s after node %d's write failed",
              a);
    cr_assert(lr_quorum_role_of(w.node[a]->ctl->nq->q) != LR_QR_LEADER,
              "node %d still leads the quorum", a);
    (void)c;
    logrep_storage_crash_inject(w.st[a], 0, 0, LOGREP_ERR__IO, 0);
    quorum_teardown(&w);
    net_crash_storage = 0;
}
