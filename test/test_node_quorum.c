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

#define VOTERS3 "1@sim:9093,2@sim:9093,3@sim:9093"

static const char *const quorum_conf[] = {"broker.session.timeout.ms", "3000", NULL};

static int active_controller(net *w)
{
    int found = -1;
    for (int id = 1; id <= w->n; id++)
        if (w->node[id] && logrep_node_is_controller(w->node[id])) {
            cr_assert_eq(found, -1, "nodes %d and %d are both active controllers", found, id);
            found = id;
        }
    return found;
}

/* Runs until an active controller exists and every live node is
 * registered and unfenced in it (at most max_ms); its id. */
static int settle(net *w, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 50) {
        run(w, 50);
        int a = active_controller(w);
        if (a < 0)
            continue;
        logrep_node_stats st;
        logrep_node_stats_get(w->node[a], &st);
        int live = 0;
        for (int id = 1; id <= w->n; id++)
            live += w->node[id] != NULL;
        char buf[4096];
        logrep_node_describe(w->node[a], NULL, 0, buf, sizeof buf);
        int unfenced = 0;
        for (int id = 1; id <= w->n; id++) {
            char needle[32];
            snprintf(needle, sizeof needle, "broker %d ", id);
            const char *b = strstr(buf, needle);
            if (w->node[id] && b && !strncmp(b + strlen(needle), "unfenced", 8))
                unfenced++;
        }
        if (unfenced == live)
            return a;
    }
    return active_controller(w);
}

static void quorum_setup(net *w, int nodes)
{
    net_voters = VOTERS3;
    net_controllers = 3;
    extra_conf = quorum_conf;
    setup(w, nodes);
}

static void quorum_teardown(net *w)
{
    teardown(w);
    net_voters = NULL;
    net_controllers = 1;
    extra_conf = NULL;
}

Test(node_quorum, elects_one_active_controller_and_serves)
{
    net w;
    quorum_setup(&w, 3);
    int a = settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    create_topic(&w, 1, "q", 3, 3);
    run(&w, 500);
    for (int p = 0; p < 3; p++) {
        int64_t base;
        cr_assert_eq(produce(&w, leader_of(&w, 1, "q", p, NULL), "q", p, "v0", -1, &base), 0);
    }
    quorum_teardown(&w);
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
    int a = settle(&w, 10000);
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
    int a = settle(&w, 10000);
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
    int a = settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    kill_node(&w, a);
    int b = -1;
    for (int t = 0; t < 8000 && b < 0; t += 50) {
        run(&w, 50);
        b = active_controller(&w);
    }
    cr_assert_geq(b, 1, "no new active controller within 8 s");
    run(&w, 6000); /* two session timeouts */
    cr_assert_eq(active_controller(&w), b);
    const lr_md_broker *b4 = lr_md_broker_get(lr_nctl_image(w.node[b]), 4);
    cr_assert(b4 && !b4->fenced, "broker 4 is %s on the new active controller %d",
              b4 ? "fenced" : "unknown", b);
    cr_assert_eq(w.node[4]->ctl_id, b, "broker 4 asks node %d, not the active controller %d",
                 (int)w.node[4]->ctl_id, b);
    quorum_teardown(&w);
}
