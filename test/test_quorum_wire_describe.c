/* DescribeQuorum on the wire (lib/quorum/qwire.h; test_quorum_wire.c):
 * golden bytes of an answer, and the answers of a running quorum with a
 * voter that lags, observers and epochs. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/quorum_testutil.h"
#include "lib/qwire_testutil.h"
#include "quorum/qwire.h"

/* The request a DescribeQuorum answer needs: exactly the metadata
 * partition (or what `topic` and `part` say), through the wire. */
static void describe_request(wire *x, int ver, const char *topic, int32_t part, int32_t nparts)
{
    logrep_struct *r = open_as(x, LOGREP_API_DESCRIBE_QUORUM, ver, 0);
    int ft = logrep_struct_field(r, "Topics");
    cr_assert_eq(logrep_struct_set_count(r, ft, 1), 0);
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "TopicName"), topic, (int32_t)strlen(topic));
    int fp = logrep_struct_field(t, "Partitions");
    logrep_struct_set_count(t, fp, nparts);
    for (int32_t i = 0; i < nparts; i++) {
        logrep_struct *p = logrep_struct_elem(t, fp, i);
        logrep_struct_set_int(p, logrep_struct_field(p, "PartitionIndex"), part + i);
    }
    transmit(x);
}

/* The response to rx (the decoded request), through the wire: after this
 * x->rx holds the decoded response. */
static int describe_answer(wire *x, const lr_quorum_desc *d, int64_t wall)
{
    logrep_msg *resp;
    cr_assert_eq(logrep_msg_new(NULL, &resp), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_response_to(resp, x->rx), LOGREP_OK);
    int err = lr_qwire_describe_response(resp, x->rx, d, wall);
    logrep_msg *t = x->tx;
    x->tx = resp;
    if (!err)
        transmit(x);
    x->tx = t;
    logrep_msg_free(resp);
    return err;
}

/* DescribeQuorum v1 answered by leader 1 of epoch 3, HW 10, described at
 * quorum time 1000 and sent with wall time 2000 (so every time is +1000):
 *
 *   000000ab              size: 171 = 5 header + 166 body
 *   00000007 00           correlation id, header tagged fields (v1 header)
 *   0000                  ErrorCode
 *   02 13 5f5f...61       Topics: one, "__cluster_metadata"
 *   02 00000000 0000      Partitions: one; index 0, ErrorCode 0
 *   00000001 00000003     LeaderId, LeaderEpoch
 *   000000000000000a      HighWatermark
 *   04                    CurrentVoters: three, each ReplicaId,
 *                         LogEndOffset, LastFetchTimestamp,
 *                         LastCaughtUpTimestamp, tagged fields:
 *     00000001 000000000000000c 00000000000007d0 00000000000007d0 00
 *     00000002 000000000000000a 00000000000007c6 00000000000007c6 00
 *     00000003 0000000000000007 000000000000076c 000000000000073a 00
 *   02                    Observers: one
 *     00000004 000000000000000c 00000000000007cb 00000000000007cb 00
 *   00 00 00              tagged fields: partition, topic, body
 *
 * (v1 has neither ErrorMessage, ReplicaDirectoryId nor Nodes.) */
Test(quorum_wire, describe_quorum_response_golden_bytes)
{
    wire x;
    wire_init(&x);
    lr_quorum_desc d = {.error = 0, .leader_id = 1, .epoch = 3, .hw = 10, .now_ms = 1000};
    d.voters[0] = (lr_quorum_replica){1, 12, 1000, 1000};
    d.voters[1] = (lr_quorum_replica){2, 10, 990, 990};
    d.voters[2] = (lr_quorum_replica){3, 7, 900, 850};
    d.n_voters = 3;
    d.observers[0] = (lr_quorum_replica){4, 12, 995, 995};
    d.n_observers = 1;
    describe_request(&x, 1, LR_QWIRE_TOPIC, 0, 1);
    cr_assert_eq(describe_answer(&x, &d, 2000), 0);
    hex_eq(x.frame, x.len,
           "000000ab 00000007 00 0000 02 13 5f5f636c75737465725f6d65746164617461"
           "02 00000000 0000 00000001 00000003 000000000000000a 04"
           "00000001 000000000000000c 00000000000007d0 00000000000007d0 00"
           "00000002 000000000000000a 00000000000007c6 00000000000007c6 00"
           "00000003 0000000000000007 000000000000076c 000000000000073a 00"
           "02 00000004 000000000000000c 00000000000007cb 00000000000007cb 00"
           "00 00 00");
    wire_free(&x);
}

/* ---------------------------------------------------------- DescribeQuorum */

/* No loss, no delay; pre-vote, so that a voter cut off for a while
 * does not depose the leader when it returns. */
static const qt_params CALM = {0, 0, 0, 0, 0, 0, 0, 0, 1};

static qt_node *other_voter(qt_cluster *c, qt_node *l, int skip)
{
    for (int32_t id = 1; id <= 3; id++)
        if (id != l->id && skip-- == 0)
            return qt_node_of(c, id);
    return NULL;
}

static void cut(qt_cluster *c, int32_t id, uint8_t down)
{
    for (int i = 0; i < c->n; i++) {
        c->cut[id - 1][i] = down;
        c->cut[i][id - 1] = down;
    }
}

static const lr_quorum_replica *replica(const lr_quorum_replica *r, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].id == id)
            return &r[i];
    cr_assert_fail("replica %d not described", id);
    return NULL;
}

static void run(qt_cluster *c, int64_t ms)
{
    for (int64_t i = 0; i < ms; i++) {
        qt_advance(c, 1);
        qt_settle(c);
    }
}

Test(quorum_wire, describe_quorum_from_a_running_quorum_with_a_lagging_voter)
{
    qt_cluster *c = qt_new(3, 1, 5, &CALM); /* voters 1-3, observer 4 */
    qt_node *l = qt_elect(c, 2000);
    cr_assert_not_null(l);
    qt_node *up = other_voter(c, l, 0), *lag = other_voter(c, l, 1), *obs = qt_node_of(c, 4);
    run(c, 100); /* everyone, the observer too, has found the leader */

    /* The lagging voter is cut off for 100 ms (half its fetch timeout)
     * while the leader appends. */
    int64_t cut_at = qt_now(c, l);
    int64_t end_before = (int64_t)l->log.n;
    cut(c, lag->id, 1);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(qt_propose(c, l), 0);
        run(c, 20);
    }
    cr_assert_eq(lr_quorum_role_of(l->q), LR_QR_LEADER);
    int64_t now = qt_now(c, l), end = (int64_t)l->log.n;
    cr_assert_eq(end, end_before + 5);

    lr_quorum_desc d;
    cr_assert_eq(lr_quorum_describe(l->q, now, &d), 0);
    cr_assert_eq(d.error, 0);
    cr_assert_eq(d.leader_id, l->id);
    cr_assert_eq(d.epoch, lr_quorum_epoch(l->q));
    cr_assert_eq(d.hw, end); /* the leader and `up` hold everything */
    cr_assert_eq(d.hw, lr_quorum_hw(l->q));
    cr_assert_eq(d.now_ms, now);
    cr_assert_eq(d.n_voters, 3);
    const lr_quorum_replica *rl = replica(d.voters, 3, l->id);
    cr_assert_eq(rl->log_end, end);
    cr_assert_eq(rl->last_fetch_ms, now);
    cr_assert_eq(rl->caught_up_ms, now);
    const lr_quorum_replica *ru = replica(d.voters, 3, up->id);
    cr_assert_eq(ru->log_end, end);
    cr_assert(now - ru->last_fetch_ms <= 10, "up fetched %lld ms ago",
              (long long)(now - ru->last_fetch_ms));
    cr_assert_eq(ru->caught_up_ms, ru->last_fetch_ms);
    const lr_quorum_replica *rg = replica(d.voters, 3, lag->id);
    cr_assert_eq(rg->log_end, end_before);
    cr_assert_leq(rg->last_fetch_ms, cut_at);
    cr_assert_leq(rg->caught_up_ms, cut_at);
    cr_assert_geq(now - rg->caught_up_ms, 100);
    cr_assert_eq(d.n_observers, 1);
    cr_assert_eq(d.observers[0].id, obs->id);
    cr_assert_eq(d.observers[0].log_end, end);

    /* The same through the wire at v2, with wall-clock times. */
    wire x;
    wire_init(&x);
    const int64_t wall = 1700000000000;
    describe_request(&x, 2, LR_QWIRE_TOPIC, 0, 1);
    cr_assert_eq(describe_answer(&x, &d, wall), 0);
    logrep_struct *r = logrep_msg_root(x.rx);
    cr_assert_eq(logrep_struct_int(r, logrep_struct_field(r, "ErrorCode")), 0);
    logrep_struct *p = partition_of(x.rx, "Topics");
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "ErrorCode")), 0);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "LeaderId")), l->id);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "LeaderEpoch")), d.epoch);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "HighWatermark")), end);
    int fv = logrep_struct_field(p, "CurrentVoters"), fo = logrep_struct_field(p, "Observers");
    cr_assert_eq(logrep_struct_count(p, fv), 3);
    cr_assert_eq(logrep_struct_count(p, fo), 1);
    /* What kafka-metadata-quorum computes: MaxFollowerLag and its time. */
    int64_t min_end = INT64_MAX, oldest = INT64_MAX;
    for (int32_t i = 0; i < 3; i++) {
        logrep_struct *v = logrep_struct_elem(p, fv, i);
        int64_t le = logrep_struct_int(v, logrep_struct_field(v, "LogEndOffset"));
        int64_t cu = logrep_struct_int(v, logrep_struct_field(v, "LastCaughtUpTimestamp"));
        int64_t lf = logrep_struct_int(v, logrep_struct_field(v, "LastFetchTimestamp"));
        const lr_quorum_replica *want =
            replica(d.voters, 3, (int32_t)logrep_struct_int(v, logrep_struct_field(v, "ReplicaId")));
        cr_assert_eq(le, want->log_end);
        cr_assert_eq(lf, wall - (now - want->last_fetch_ms));
        cr_assert_eq(cu, wall - (now - want->caught_up_ms));
        min_end = le < min_end ? le : min_end;
        oldest = cu < oldest ? cu : oldest;
    }
    cr_assert_eq(end - min_end, 5);              /* MaxFollowerLag */
    cr_assert_geq(wall - oldest, 100);           /* MaxFollowerLagTimeMs */
    cr_assert_eq(logrep_struct_count(r, logrep_struct_field(r, "Nodes")), 3);

    /* Healed, the lagging voter catches up. */
    cut(c, lag->id, 0);
    run(c, 100);
    cr_assert_eq(lr_quorum_role_of(l->q), LR_QR_LEADER);
    now = qt_now(c, l);
    cr_assert_eq(lr_quorum_describe(l->q, now, &d), 0);
    rg = replica(d.voters, 3, lag->id);
    cr_assert_eq(rg->log_end, end);
    cr_assert(now - rg->caught_up_ms <= 10);

    /* A follower is not the leader: NOT_LEADER_OR_FOLLOWER, naming it. */
    lr_quorum_desc f;
    cr_assert_eq(lr_quorum_describe(up->q, qt_now(c, up), &f), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(f.leader_id, l->id);
    cr_assert_eq(f.epoch, d.epoch);
    cr_assert_eq(f.n_voters, 0);
    describe_request(&x, 2, LR_QWIRE_TOPIC, 0, 1);
    cr_assert_eq(describe_answer(&x, &f, wall), 0);
    r = logrep_msg_root(x.rx);
    cr_assert_eq(logrep_struct_int(r, logrep_struct_field(r, "ErrorCode")), 0);
    p = partition_of(x.rx, "Topics");
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "ErrorCode")),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "LeaderId")), l->id);
    const uint8_t *msg;
    int32_t mlen;
    logrep_struct_bytes(p, logrep_struct_field(p, "ErrorMessage"), &msg, &mlen);
    cr_assert_gt(mlen, 0);
    cr_assert_eq(logrep_struct_count(p, logrep_struct_field(p, "CurrentVoters")), 0);

    /* Another partition, or two: UNKNOWN_TOPIC_OR_PARTITION on each. */
    describe_request(&x, 2, LR_QWIRE_TOPIC, 1, 1);
    cr_assert_eq(describe_answer(&x, &d, wall), 0);
    p = partition_of(x.rx, "Topics");
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "PartitionIndex")), 1);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "ErrorCode")),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    describe_request(&x, 0, "other", 0, 2);
    cr_assert_eq(describe_answer(&x, &d, wall), 0);
    r = logrep_msg_root(x.rx);
    logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, "Topics"), 0);
    int fp = logrep_struct_field(t, "Partitions");
    cr_assert_eq(logrep_struct_count(t, fp), 2);
    for (int32_t i = 0; i < 2; i++) {
        logrep_struct *e = logrep_struct_elem(t, fp, i);
        cr_assert_eq(logrep_struct_int(e, logrep_struct_field(e, "PartitionIndex")), i);
        cr_assert_eq(logrep_struct_int(e, logrep_struct_field(e, "ErrorCode")),
                     LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    }
    wire_free(&x);
    qt_free(c);
}

/* Observers: an abstaining voter is described as a voter (its fetches
 * not counted); observers unheard for LR_QUORUM_OBSERVER_EXPIRE_MS are
 * left out; a new epoch starts afresh. */
Test(quorum_wire, describe_quorum_observers_and_epochs)
{
    qt_cluster *c = qt_new(3, 1, 9, &CALM);
    qt_node *l = qt_elect(c, 2000);
    cr_assert_not_null(l);
    run(c, 100);
    lr_quorum_desc d;
    cr_assert_eq(lr_quorum_describe(l->q, qt_now(c, l), &d), 0);
    cr_assert_eq(d.n_observers, 1, "%zu observers", d.n_observers);

    /* Forged fetches from observers 10..49: the table keeps the 32 most
     * recent, and each is answered. */
    int32_t e = lr_quorum_epoch(l->q);
    for (int32_t id = 10; id < 50; id++) {
        lr_qmsg f = blank(LR_QM_FETCH_REQ, id, e);
        f.fetch_offset = 0;
        f.observer = 1;
        cr_assert_eq(qt_inject(c, l->id, &f), 0); /* answers to no one */
        run(c, 1);
    }
    cr_assert_eq(lr_quorum_describe(l->q, qt_now(c, l), &d), 0);
    cr_assert_eq(d.n_observers, LR_QUORUM_MAX_OBSERVERS);
    int real = 0; /* observer 4 fetches every 10 ms: never the oldest */
    for (size_t i = 0; i < d.n_observers; i++) {
        if (d.observers[i].id == 4) {
            real = 1;
            continue;
        }
        cr_assert_geq(d.observers[i].id, 50 - (LR_QUORUM_MAX_OBSERVERS - 1));
        cr_assert_eq(d.observers[i].log_end, 0);
    }
    cr_assert(real);
    /* Five minutes later only those still fetching are listed. */
    lr_quorum_describe(l->q, qt_now(c, l) + LR_QUORUM_OBSERVER_EXPIRE_MS, &d);
    cr_assert_eq(d.n_observers, 0);

    /* A voter's fetch marked observer (as an abstaining voter's) is the
     * voter's in the description, and not counted. */
    qt_node *v = other_voter(c, l, 0);
    lr_qmsg f = blank(LR_QM_FETCH_REQ, v->id, e);
    f.fetch_offset = 1;
    f.last_fetched_epoch = lr_quorum_epoch(l->q);
    f.observer = 1;
    cr_assert_eq(qt_inject(c, l->id, &f), 0);
    qt_drop_all(c);
    cr_assert_eq(lr_quorum_describe(l->q, qt_now(c, l), &d), 0);
    cr_assert_eq(replica(d.voters, 3, v->id)->log_end, 1);
    for (size_t i = 0; i < d.n_observers; i++)
        cr_assert_neq(d.observers[i].id, v->id);

    /* A new leader describes only what it saw in its own epoch. */
    int64_t resigned = qt_now(c, l);
    cr_assert_eq(lr_quorum_resign(l->q, resigned), 0);
    qt_node *l2 = NULL;
    for (int i = 0; i < 3000; i++) {
        run(c, 1);
        l2 = qt_leader(c);
        if (l2 && lr_quorum_describe(l2->q, qt_now(c, l2), &d) == 0)
            break;
    }
    cr_assert_eq(d.error, 0);
    cr_assert_gt(d.epoch, e);
    cr_assert_leq(d.n_observers, 1);
    for (size_t i = 0; i < d.n_voters; i++)
        if (d.voters[i].id != l2->id && d.voters[i].last_fetch_ms >= 0)
            cr_assert_geq(d.voters[i].last_fetch_ms, resigned);
    qt_free(c);
}
