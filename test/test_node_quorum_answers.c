/* The quorum's own answers on the active controller (Vote,
 * DescribeQuorum) leave at once: they rest on the quorum's state, not on
 * the controller's records, so they are not held until those commit
 * (lib/node/ctl_hold.c holds only the controller's answers). A Vote held
 * that way was dropped, its connection closed, as soon as granting it
 * cost this voter its leadership: the candidate never got the vote.
 * And a voter's fetch lost with its connection is retried after the
 * quorum's fetch pause, not after the request timeout. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"
#include "quorum/qwire.h"
#include "sim/memnet.h"

#define VOTERS3 "1@sim:9093,2@sim:9093,3@sim:9093"

static const char *const quorum_conf[] = {"broker.session.timeout.ms", "3000", NULL};

static int active_controller(net *w)
{
    for (int id = 1; id <= w->n; id++)
        if (w->node[id] && logrep_node_is_controller(w->node[id]))
            return id;
    return -1;
}

/* Three voters, an active controller, every broker registered (a topic
 * of RF 3 can be created); returns the active controller. */
static int quorum_up(net *w)
{
    net_voters = VOTERS3;
    net_controllers = 3;
    extra_conf = quorum_conf;
    setup(w, 3);
    int rc = -1;
    for (int i = 0; i < 200 && rc != 0; i++) {
        run(w, 100);
        if (active_controller(w) > 0)
            rc = create_topic_full(w, 1, "warm", 1, 3, NULL, NULL, 0, NULL);
    }
    cr_assert_eq(rc, 0, "no quorum serving within 20 s: %s", logrep_err_name(rc));
    run(w, 500);
    int a = active_controller(w);
    cr_assert_geq(a, 1);
    return a;
}

static void quorum_down(net *w)
{
    teardown(w);
    net_voters = NULL;
    net_controllers = 1;
    extra_conf = NULL;
}

/* CreateTopics v7 to node a's controller listener, not waited for: its
 * records are proposed and not committed until a follower fetches them,
 * which takes time to pass. Returns the connection. */
static uint64_t uncommitted_write(net *w, int a, logrep_msg *m)
{
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, 7, 11, "test"), 0);
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_int(r, logrep_struct_field(r, "timeoutMs"), 10000);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 1);
    logrep_struct *t = elem(r, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "held", 4);
    logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), 1);
    logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), 3);
    uint64_t c = client_send_on(w, a, "CONTROLLER", m);
    pump(w); /* no time passes */
    cr_assert_not(client_has(w, c), "the CreateTopics answer did not wait for its commit");
    return c;
}

/* DescribeQuorum v2 of the metadata partition to node a in m; sends it. */
static uint64_t describe_send(net *w, int a, logrep_msg *m)
{
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_DESCRIBE_QUORUM, 2, 12, "test"), 0);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "TopicName"), LR_QWIRE_TOPIC,
                            (int32_t)strlen(LR_QWIRE_TOPIC));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    return client_send_on(w, a, "CONTROLLER", m);
}

/* The quorum's epoch as its leader a describes it. */
static int32_t leader_epoch(net *w, int a, logrep_msg *m, logrep_msg *r)
{
    uint64_t c = describe_send(w, a, m);
    client_wait(w, c, LOGREP_API_DESCRIBE_QUORUM, 2, r, 2000);
    logrep_struct *p = elem(elem(logrep_msg_root(r), "Topics", 0), "Partitions", 0);
    cr_assert_eq(fint(p, "ErrorCode"), 0);
    cr_assert_eq(fint(p, "LeaderId"), a);
    return (int32_t)fint(p, "LeaderEpoch");
}

Test(node_quorum_answers, describe_quorum_not_held_behind_records)
{
    net w;
    int a = quorum_up(&w);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    uint64_t cw = uncommitted_write(&w, a, m);
    uint64_t c = describe_send(&w, a, m);
    pump(&w);
    cr_assert(client_has(&w, c), "DescribeQuorum waited for the controller's records to commit");
    client_wait(&w, c, LOGREP_API_DESCRIBE_QUORUM, 2, r, 10);
    logrep_struct *p = elem(elem(logrep_msg_root(r), "Topics", 0), "Partitions", 0);
    cr_assert_eq(fint(p, "ErrorCode"), 0);
    cr_assert_eq(fint(p, "LeaderId"), a);

    /* The write itself is answered once committed. */
    client_wait(&w, cw, LOGREP_API_CREATE_TOPICS, 7, r, 2000);
    cr_assert_eq(fint(elem(logrep_msg_root(r), "Topics", 0), "ErrorCode"), 0);
    logrep_msg_free(m);
    logrep_msg_free(r);
    quorum_down(&w);
}

/* A candidate in the next epoch, with a log at least as long, asks the
 * active controller for its vote while the controller's records are not
 * committed: the vote is granted and the answer reaches the candidate. */
Test(node_quorum_answers, vote_granted_while_records_uncommitted_is_answered)
{
    net w;
    int a = quorum_up(&w);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    int32_t epoch = leader_epoch(&w, a, m, r);
    (void)uncommitted_write(&w, a, m);

    int cand = a % 3 + 1;
    lr_qmsg v = {.type = LR_QM_VOTE_REQ, .from = cand, .epoch = epoch + 1, .leader_id = -1,
                 .last_epoch = epoch, .end_offset = (int64_t)1 << 40, .div_epoch = -1,
                 .div_end_offset = -1, .hw = -1};
    int version;
    int api = lr_qwire_api(LR_QM_VOTE_REQ, &version);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 13, "test"), 0);
    const lr_qwire qw = {cand, NULL};
    cr_assert_eq(lr_qwire_encode(&qw, m, &v, a, w.now, NULL), 0); /* a Vote has no records */
    uint64_t c = client_send_on(&w, a, "CONTROLLER", m);
    pump(&w);
    cr_assert(client_has(&w, c), "the Vote answer was held (or dropped with its connection)");
    client_wait(&w, c, api, version, r, 10);
    logrep_struct *p = elem(elem(logrep_msg_root(r), "Topics", 0), "Partitions", 0);
    cr_assert_eq(fint(p, "ErrorCode"), 0);
    cr_assert_eq(fint(p, "LeaderEpoch"), epoch + 1);
    cr_assert_eq(fint(p, "VoteGranted"), 1);
    logrep_msg_free(m);
    logrep_msg_free(r);
    quorum_down(&w);
}

/* ------------------------------------------------------------ a lost fetch */

static int contains(const uint8_t *p, size_t n, const uint8_t *x, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(p + i, x, k))
            return 1;
    return 0;
}

/* Whether a quorum Fetch (API 1 naming the metadata topic id 0...01)
 * from node f waits in the network's queue; the queue is left as it was. */
static int quorum_fetch_queued(net *w, int f)
{
    static const uint8_t meta_id[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    size_t n = lr_memnet_pending(w->mn);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        lr_memnet_msg *m = lr_memnet_take(w->mn);
        if (m->kind == LR_MEMNET_FRAME && m->from == f && m->len > 6 && m->data[4] == 0 &&
            m->data[5] == LOGREP_API_FETCH && contains(m->data, m->len, meta_id, 16))
            found = 1;
        lr_memnet_queue(w->mn, m);
    }
    return found;
}

/* Closes every connection between nodes a and b; both are told. */
static void cut_between(net *w, int a, int b)
{
    uint64_t lim = lr_memnet_end_limit(w->mn);
    for (uint64_t e = 1; e < lim; e++) {
        lr_memnet_end_info in;
        if (lr_memnet_end(w->mn, e, &in) &&
            ((in.owner == a && in.peer_owner == b) || (in.owner == b && in.peer_owner == a)))
            lr_memnet_close(w->mn, e, 1);
    }
}

/* Both followers' fetches are in flight when their connections to the
 * leader close. Each follower's quorum is told the fetch failed and
 * fetches again after its usual pause (election.timeout / 10), instead of
 * waiting controller.quorum.request.timeout.ms (2 s) for an answer that
 * cannot come: a write is committed within a few hundred ms. */
Test(node_quorum_answers, fetch_lost_with_its_connection_is_retried)
{
    net w;
    int a = quorum_up(&w);
    int f1 = a % 3 + 1, f2 = f1 % 3 + 1;
    /* Time passes for the followers alone, nothing delivered, until both
     * have a fetch of the metadata log on its way to the leader. */
    int both = 0;
    for (int i = 0; i < 400 && !both; i++) {
        w.now += 1;
        logrep_node_tick(w.node[f1], w.now);
        logrep_node_tick(w.node[f2], w.now);
        both = quorum_fetch_queued(&w, f1) && quorum_fetch_queued(&w, f2);
    }
    cr_assert(both, "the followers sent no fetch within 400 ms");
    cut_between(&w, a, f1);
    cut_between(&w, a, f2);
    pump(&w); /* the closes reach the nodes; the fetches are dropped */

    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    int64_t t0 = w.now;
    uint64_t c = uncommitted_write(&w, a, m);
    client_wait(&w, c, LOGREP_API_CREATE_TOPICS, 7, r, 5000);
    cr_assert_eq(fint(elem(logrep_msg_root(r), "Topics", 0), "ErrorCode"), 0);
    cr_assert_lt(w.now - t0, 1000, "the write committed after %lld ms: the followers waited "
                 "for their lost fetches to time out", (long long)(w.now - t0));
    cr_assert_eq(active_controller(&w), a);
    logrep_msg_free(m);
    logrep_msg_free(r);
    quorum_down(&w);
}

/* The followers between fetches when their connections to the leader
 * close: their next fetch, due within the connections' reconnect backoff,
 * is sent on a new connection rather than dropped (which left the quorum
 * waiting its request timeout for an answer). */
Test(node_quorum_answers, fetch_during_reconnect_backoff_is_sent)
{
    net w;
    int a = quorum_up(&w);
    int f1 = a % 3 + 1, f2 = f1 % 3 + 1;
    cut_between(&w, a, f1);
    cut_between(&w, a, f2);
    pump(&w);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    int64_t t0 = w.now;
    uint64_t c = uncommitted_write(&w, a, m);
    client_wait(&w, c, LOGREP_API_CREATE_TOPICS, 7, r, 5000);
    cr_assert_eq(fint(elem(logrep_msg_root(r), "Topics", 0), "ErrorCode"), 0);
    cr_assert_lt(w.now - t0, 1000, "the write committed after %lld ms", (long long)(w.now - t0));
    cr_assert_eq(active_controller(&w), a);
    logrep_msg_free(m);
    logrep_msg_free(r);
    quorum_down(&w);
}
