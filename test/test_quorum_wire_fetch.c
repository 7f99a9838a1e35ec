/* The quorum's Fetch on the wire (lib/quorum/qwire.h; test_quorum_wire.c):
 * round trips from version 12, the entries a response carries, and every
 * refusal of a malformed request or response. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "lib/qwire_testutil.h"
#include "quorum/qbatch.h"
#include "quorum/qwire.h"

Test(quorum_wire, fetch_round_trips_from_version_12)
{
    wire x;
    wire_init(&x);
    lr_qentry ents[3] = {{4, LR_QUORUM_CTL_LEADER_CHANGE, LC, sizeof LC},
                         {4, 0, (const uint8_t *)"record one", 10},
                         {5, 0, NULL, 0}};
    for (int ver = 12; ver <= 17; ver++) {
        for (int obs = 0; obs <= (ver == 17); obs++) {
            lr_qmsg f = blank(LR_QM_FETCH_REQ, 2, 5), out;
            f.fetch_offset = 40;
            f.last_fetched_epoch = 3;
            f.observer = (uint8_t)obs;
            cr_assert_eq(send_msg(&x, &W2, &W1, &f, ver, NULL, &out), 0);
            same(&f, &out);
            cr_assert_eq(out.leader_id, -1); /* not on the wire */

            /* Records from the fetch offset on. */
            lr_qmsg r = blank(LR_QM_FETCH_RESP, 1, 5);
            r.leader_id = 1;
            r.hw = 41;
            r.base_offset = 40;
            r.last_fetched_epoch = 3;
            r.entries = ents;
            r.n_entries = 3;
            trip(&x, &W1, &W2, &r, ver, &f);

            /* Nothing new, HW undefined. */
            r.n_entries = 0;
            r.entries = NULL;
            r.hw = -1;
            trip(&x, &W1, &W2, &r, ver, &f);

            /* A divergence, also one at no epoch (-1, 0). */
            r.div_epoch = 2;
            r.div_end_offset = 30;
            trip(&x, &W1, &W2, &r, ver, &f);
            r.div_epoch = -1;
            r.div_end_offset = 0;
            trip(&x, &W1, &W2, &r, ver, &f);

            /* An error names the leader it knows. */
            r = blank(LR_QM_FETCH_RESP, 3, 6);
            r.error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
            r.leader_id = 1;
            r.base_offset = 40;
            r.last_fetched_epoch = 3;
            trip(&x, &W1, &W2, &r, ver, &f);
        }
    }
    wire_free(&x);
}

/* Entries point into the frame and the message: they stay valid after
 * the records buffer that produced them is gone. */
Test(quorum_wire, fetch_entries_live_with_the_message)
{
    wire x;
    wire_init(&x);
    lr_qentry ents[40];
    char text[40][8];
    for (int i = 0; i < 40; i++) {
        int n = snprintf(text[i], sizeof text[i], "e%d", i);
        ents[i] = (lr_qentry){2 + i / 10, 0, (const uint8_t *)text[i], (size_t)n};
    }
    lr_qmsg f = blank(LR_QM_FETCH_REQ, 2, 5), out;
    f.fetch_offset = 0;
    lr_qmsg r = blank(LR_QM_FETCH_RESP, 1, 5);
    r.leader_id = 1;
    r.entries = ents;
    r.n_entries = 40;
    cr_assert_eq(send_msg(&x, &W1, &W2, &r, 17, &f, &out), 0);
    lr_buf_free(&x.recs);
    memset(text, 'x', sizeof text);
    cr_assert_eq(out.n_entries, 40);
    for (int i = 0; i < 40; i++) {
        char want[8];
        int n = snprintf(want, sizeof want, "e%d", i);
        cr_assert_eq(out.entries[i].len, (size_t)n);
        cr_assert_arr_eq(out.entries[i].data, want, (size_t)n);
        cr_assert_eq(out.entries[i].epoch, 2 + i / 10);
    }
    wire_free(&x);
}

/* A leader that serves whole batches may start before the fetch offset:
 * the entries below it are skipped. */
Test(quorum_wire, fetch_entries_below_the_fetch_offset_are_skipped)
{
    wire x;
    wire_init(&x);
    lr_qentry ents[4] = {{3, 0, (const uint8_t *)"a", 1},
                         {3, 0, (const uint8_t *)"b", 1},
                         {3, 0, (const uint8_t *)"c", 1},
                         {3, 0, (const uint8_t *)"d", 1}};
    lr_qmsg f = blank(LR_QM_FETCH_REQ, 2, 3), out;
    f.fetch_offset = 12;
    f.last_fetched_epoch = 3;
    lr_qmsg r = blank(LR_QM_FETCH_RESP, 1, 3);
    r.leader_id = 1;
    r.base_offset = 10; /* one batch, 10..13 */
    r.entries = ents;
    r.n_entries = 4;
    cr_assert_eq(send_msg(&x, &W1, &W2, &r, 17, &f, &out), 0);
    cr_assert_eq(out.base_offset, 12);
    cr_assert_eq(out.n_entries, 2);
    cr_assert_arr_eq(out.entries[0].data, "c", 1);
    cr_assert_arr_eq(out.entries[1].data, "d", 1);
    wire_free(&x);
}

/* Built afresh without the tagged ReplicaState: no fetcher id. */
static void fetch_no_replica_state(logrep_msg *m)
{
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_FETCH, 17, 7, "q"), LOGREP_OK);
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    logrep_struct_set_count(r, ft, 1);
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    uint8_t id[16] = {0};
    id[15] = 1;
    logrep_struct_set_uuid(t, logrep_struct_field(t, "TopicId"), id);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = partition_of(m, "Topics");
    set_int(p, "CurrentLeaderEpoch", 4);
    set_int(p, "FetchOffset", 3);
    set_int(p, "LastFetchedEpoch", 2);
}
static void fetch_replica_neg(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct *rs = NULL;
    logrep_struct_set_struct(r, logrep_struct_field(r, "ReplicaState"), &rs);
    set_int(rs, "ReplicaId", -1);
}
static void fetch_offset_neg(logrep_msg *m)
{
    set_int(partition_of(m, "Topics"), "FetchOffset", -1);
}
static void fetch_epoch_neg(logrep_msg *m)
{
    set_int(partition_of(m, "Topics"), "CurrentLeaderEpoch", -1);
}
static void fetch_last_bad(logrep_msg *m)
{
    set_int(partition_of(m, "Topics"), "LastFetchedEpoch", -2);
}

Test(quorum_wire, fetch_request_refusals)
{
    lr_qmsg f = some(LR_QM_FETCH_REQ);
    cr_assert_eq(mutated(&f, 17, NULL, fetch_no_replica_state), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, NULL, fetch_replica_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, NULL, fetch_offset_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, NULL, fetch_epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, NULL, fetch_last_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, NULL, cluster_other), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    cr_assert_eq(mutated(&f, 17, NULL, nothing), 0);
    /* Below 12 no LastFetchedEpoch: built by hand, refused. */
    wire x;
    wire_init(&x);
    logrep_struct *r = open_as(&x, LOGREP_API_FETCH, 11, 0);
    set_int(r, "ReplicaId", 2);
    int ft = logrep_struct_field(r, "Topics");
    logrep_struct_set_count(r, ft, 1);
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), LR_QWIRE_TOPIC, 18);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    set_int(partition_of(x.tx, "Topics"), "CurrentLeaderEpoch", 3);
    transmit(&x);
    lr_qmsg out;
    cr_assert_eq(lr_qwire_decode_request(&W1, x.rx, &out), LOGREP_ERR__INVALID_ARG);
    wire_free(&x);
}

static logrep_struct *fetch_partition(logrep_msg *m) { return partition_of(m, "Responses"); }
static void no_current_leader(logrep_msg *m)
{
    /* Rebuilt without CurrentLeader: a partition element starts afresh. */
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, "Responses"), 0);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
}
static void fetch_resp_epoch_neg(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *cl;
    logrep_struct_set_struct(p, logrep_struct_field(p, "CurrentLeader"), &cl);
    set_int(cl, "LeaderEpoch", -1);
}
static void fetch_resp_leader_bad(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *cl;
    logrep_struct_set_struct(p, logrep_struct_field(p, "CurrentLeader"), &cl);
    set_int(cl, "LeaderId", -7);
}
static void fetch_hw_bad(logrep_msg *m) { set_int(fetch_partition(m), "HighWatermark", -2); }
static void fetch_code_neg(logrep_msg *m) { set_int(fetch_partition(m), "ErrorCode", -2); }
static void fetch_snapshot_none(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *s;
    logrep_struct_set_struct(p, logrep_struct_field(p, "SnapshotId"), &s); /* -1, -1 */
}
static void diverging_no_end(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *d;
    logrep_struct_set_struct(p, logrep_struct_field(p, "DivergingEpoch"), &d);
    set_int(d, "Epoch", 3);
    set_int(d, "EndOffset", -1);
}
static void diverging_bad_end(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *d;
    logrep_struct_set_struct(p, logrep_struct_field(p, "DivergingEpoch"), &d);
    set_int(d, "Epoch", 3);
    set_int(d, "EndOffset", -5);
}
static void diverging_none(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m), *d;
    logrep_struct_set_struct(p, logrep_struct_field(p, "DivergingEpoch"), &d); /* -1, -1 */
}

/* Records set by the test: a buffer the mutation points the message at. */
static uint8_t recs_buf[4096];
static size_t recs_len;
static void set_recs(logrep_msg *m)
{
    logrep_struct *p = fetch_partition(m);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), recs_buf, (int32_t)recs_len);
}

static void make_recs(int64_t base, size_t n, int32_t epoch)
{
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    lr_qentry e[8];
    for (size_t i = 0; i < n; i++)
        e[i] = (lr_qentry){epoch, 0, (const uint8_t *)"xy", 2};
    cr_assert_eq(lr_qbatch_encode(base, e, n, 0, &b), 0);
    cr_assert_leq(b.len, sizeof recs_buf);
    memcpy(recs_buf, b.data, b.len);
    recs_len = b.len;
    lr_buf_free(&b);
}

Test(quorum_wire, fetch_response_refusals)
{
    lr_qmsg f = some(LR_QM_FETCH_RESP), req = some(LR_QM_FETCH_REQ); /* fetch offset 3 */
    cr_assert_eq(mutated(&f, 17, &req, nothing), 0);
    cr_assert_eq(mutated(&f, 17, &req, no_current_leader), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, fetch_resp_epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, fetch_resp_leader_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, fetch_hw_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, fetch_code_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, fetch_snapshot_none), 0);
    cr_assert_eq(mutated(&f, 17, &req, diverging_no_end), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, diverging_bad_end), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&f, 17, &req, diverging_none), 0);
    cr_assert_eq(mutated(&f, 17, &req, resp_top_error), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);

    /* Records: entries from the fetch offset (3) on are wanted; a gap
     * or a corrupt batch is refused. */
    make_recs(3, 2, 2);
    cr_assert_eq(mutated(&f, 17, &req, set_recs), 0);
    make_recs(5, 2, 2);
    cr_assert_eq(mutated(&f, 17, &req, set_recs), LOGREP_ERR__INVALID_ARG);
    make_recs(3, 2, 2);
    recs_buf[recs_len - 1] ^= 1; /* the CRC no longer holds */
    cr_assert_eq(mutated(&f, 17, &req, set_recs), LOGREP_ERR__INVALID_ARG);
    /* A trailing partial batch is left for the next fetch. */
    make_recs(3, 2, 2);
    size_t whole = recs_len;
    make_recs(5, 2, 2);
    memmove(recs_buf + whole, recs_buf, recs_len);
    make_recs(3, 2, 2);
    recs_len = whole + 20;
    cr_assert_eq(mutated(&f, 17, &req, set_recs), 0);
    /* Records in an error or a divergence are not read. */
    make_recs(3, 2, 2);
    recs_buf[recs_len - 1] ^= 1;
    lr_qmsg e = f;
    e.error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    cr_assert_eq(mutated(&e, 17, &req, set_recs), 0);
    e.error = 0;
    e.div_epoch = 1;
    e.div_end_offset = 2;
    cr_assert_eq(mutated(&e, 17, &req, set_recs), 0);
}
