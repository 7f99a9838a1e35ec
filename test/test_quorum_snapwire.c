/* FetchSnapshot and a Fetch answer's SnapshotId on the wire (qwire.h,
 * qwire_snap.c): round trips at every version, golden bytes of a v0
 * request and answer built by hand from the schema, every refusal, every
 * prefix of a frame, random damage, and the random cluster with snapshots
 * with every message on the wire. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/prng.h"
#include "lib/quorum_testutil.h"
#include "lib/qwire_testutil.h"
#include "quorum/qwire.h"

/* b decoded into in as the kind of message `like` is. */
static logrep_err decode_as(logrep_msg *in, logrep_msg *like, const uint8_t *b, size_t n)
{
    if (!logrep_msg_is_response(like))
        return logrep_msg_decode_request(in, b, n);
    return logrep_msg_decode_response(in, logrep_msg_api_key(like), logrep_msg_version(like), b,
                                      n);
}

/* m encoded by w into out for node `to`, opened at `ver` of its API. */
static int put_to(wire *c, const lr_qwire *w, const lr_qmsg *m, int ver, int32_t to)
{
    open_type(c, m->type, ver);
    return lr_qwire_encode(w, c->tx, m, to, 0, &c->recs);
}

static int put(wire *c, const lr_qwire *w, const lr_qmsg *m, int ver)
{
    return put_to(c, w, m, ver, 2);
}

/* What node r makes of in; req is the request an answer answers. */
static int take(wire *c, const lr_qwire *r, const lr_qmsg *req, int32_t from, lr_qmsg *got)
{
    return logrep_msg_is_response(c->rx) ? lr_qwire_decode_response(r, c->rx, req, from, got)
                                         : lr_qwire_decode_request(r, c->rx, got);
}

/* Node 2 asks for snapshot (100, 4) from byte 16 in epoch 5. */
static lr_qmsg fsnap_req(void)
{
    lr_qmsg m = blank(LR_QM_FSNAP_REQ, 2, 5);
    m.snap_end = 100;
    m.snap_epoch = 4;
    m.position = 16;
    return m;
}

/* Leader 1 of epoch 5 answers it: the bytes at 16 of a 40-byte file. */
static lr_qmsg fsnap_resp(const void *b, size_t len)
{
    lr_qmsg m = blank(LR_QM_FSNAP_RESP, 1, 5);
    m.leader_id = 1;
    m.snap_end = 100;
    m.snap_epoch = 4;
    m.position = 16;
    m.size = 40;
    m.data = b;
    m.len = len;
    return m;
}

static const uint8_t PIECE[10] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'};

/* ---------------------------------------------------------- round trips */

Test(quorum_snapwire, version_spoken)
{
    int v = -1;
    cr_assert_eq(lr_qwire_api(LR_QM_FSNAP_REQ, &v), LOGREP_API_FETCH_SNAPSHOT);
    cr_assert_eq(v, 1);
    cr_assert_eq(lr_qwire_api(LR_QM_FSNAP_RESP, &v), LOGREP_API_FETCH_SNAPSHOT);
    cr_assert_eq(v, LR_QWIRE_FSNAP_V);
    cr_assert_eq(logrep_proto_api(LOGREP_API_FETCH_SNAPSHOT)->max_version, LR_QWIRE_FSNAP_V);
}

Test(quorum_snapwire, fetch_snapshot_round_trips_at_every_version)
{
    wire c;
    wire_init(&c);
    for (int ver = 0; ver <= 1; ver++) {
        lr_qmsg q = fsnap_req(), got;
        for (int obs = 0; obs <= ver; obs++) {
            q.observer = (uint8_t)obs;
            q.len = 0;
            cr_assert_eq(send_msg(&c, &W1, &W2, &q, ver, NULL, &got), 0);
            same(&q, &got);
            cr_assert_eq(got.len, LR_QWIRE_FSNAP_MAX_BYTES, "MaxBytes by default");
            q.len = 4096;
            cr_assert_eq(send_msg(&c, &W1, &W2, &q, ver, NULL, &got), 0);
            cr_assert_eq(got.len, 4096);
            q.len = (size_t)INT32_MAX + 10; /* capped */
            cr_assert_eq(send_msg(&c, &W1, &W2, &q, ver, NULL, &got), 0);
            cr_assert_eq(got.len, INT32_MAX);
        }
        q = fsnap_req();

        /* A piece: its bytes point into the frame, not a copy. */
        lr_qmsg a = fsnap_resp(PIECE, sizeof PIECE);
        cr_assert_eq(send_msg(&c, &W1, &W2, &a, ver, &q, &got), 0);
        same(&a, &got);
        cr_assert(got.data >= c.frame && got.data + got.len <= c.frame + c.len);
        /* The last piece, up to the size; an empty file. */
        a.position = q.position = 30;
        cr_assert_eq(send_msg(&c, &W1, &W2, &a, ver, &q, &got), 0);
        same(&a, &got);
        a.position = q.position = 0;
        a.size = 0;
        a.len = 0;
        cr_assert_eq(send_msg(&c, &W1, &W2, &a, ver, &q, &got), 0);
        same(&a, &got);
        cr_assert_eq(got.len, 0);

        /* An error names no snapshot (Kafka's are left at 0): the answer is
         * about the request's snapshot and position, and has no bytes. */
        q = fsnap_req();
        a = fsnap_resp(PIECE, sizeof PIECE);
        a.error = LOGREP_ERR_SNAPSHOT_NOT_FOUND;
        a.snap_end = a.snap_epoch = 0;
        a.position = a.size = 0;
        cr_assert_eq(send_msg(&c, &W1, &W2, &a, ver, &q, &got), 0);
        cr_assert_eq(got.error, LOGREP_ERR_SNAPSHOT_NOT_FOUND);
        cr_assert_eq(got.snap_end, 100);
        cr_assert_eq(got.snap_epoch, 4);
        cr_assert_eq(got.position, 16);
        cr_assert_eq(got.len, 0);
        cr_assert_eq(got.leader_id, 1);
        a = fsnap_resp(NULL, 0);
        a.error = LOGREP_ERR_FENCED_LEADER_EPOCH;
        a.epoch = 6;
        a.leader_id = -1;
        cr_assert_eq(send_msg(&c, &W1, &W2, &a, ver, &q, &got), 0);
        same(&a, &got);
    }
    wire_free(&c);
}

/* What the encoder will not send. */
Test(quorum_snapwire, encoder_refusals)
{
    wire c;
    wire_init(&c);
    lr_qmsg q = fsnap_req();
    q.observer = 1; /* no directory id in v0 */
    cr_assert_eq(put(&c, &W1, &q, 0), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(put(&c, &W1, &q, 1), 0);
    q = fsnap_req();
    q.snap_end = 0;
    cr_assert_eq(put(&c, &W1, &q, 1), LOGREP_ERR__INVALID_ARG);
    q = fsnap_req();
    q.snap_epoch = -1;
    cr_assert_eq(put(&c, &W1, &q, 1), LOGREP_ERR__INVALID_ARG);
    q = fsnap_req();
    q.position = -1;
    cr_assert_eq(put(&c, &W1, &q, 1), LOGREP_ERR__INVALID_ARG);

    lr_qmsg a = fsnap_resp(PIECE, sizeof PIECE);
    a.size = 20; /* 16 + 10 > 20 */
    cr_assert_eq(put(&c, &W1, &a, 1), LOGREP_ERR__INVALID_ARG);
    a = fsnap_resp(PIECE, sizeof PIECE);
    a.position = 41;
    cr_assert_eq(put(&c, &W1, &a, 1), LOGREP_ERR__INVALID_ARG);
    a = fsnap_resp(NULL, 3);
    cr_assert_eq(put(&c, &W1, &a, 1), LOGREP_ERR__INVALID_ARG);
    a = fsnap_resp(NULL, 0);
    a.size = -1;
    cr_assert_eq(put(&c, &W1, &a, 1), LOGREP_ERR__INVALID_ARG);
    a.error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER; /* errors carry no piece */
    cr_assert_eq(put(&c, &W1, &a, 1), 0);
    wire_free(&c);
}

/* ---------------------------------------------------------- golden bytes */

/* FetchSnapshot v0 (flexible from 0) from node 2 in epoch 5 for snapshot
 * (100, 4) from byte 16, cluster "abc", correlation id 7, client "q":
 *
 *   0000004f              size: 79 = 12 header + 67 body
 *   003b 0000 00000007    api key 59, version 0, correlation id
 *   0001 71 00            client id "q" (int16 length), header tags
 *   00000002              ReplicaId
 *   00100000              MaxBytes: 1 MiB (the message's len is 0)
 *   02                    Topics: one (compact: count + 1)
 *   13 5f5f636c75737465725f6d65746164617461   Name: 18 bytes + 1
 *   02                    Partitions: one
 *   00000000 00000005     Partition 0, CurrentLeaderEpoch
 *   0000000000000064 00000004 00   SnapshotId: EndOffset, Epoch, its tags
 *   0000000000000010      Position
 *   00 00                 partition and topic tags (v0: no directory id)
 *   01 00 04 04616263     body tags: one, tag 0 = ClusterId, 4 bytes:
 *                         a compact nullable string, length + 1 */
static const char GOLDEN_REQ[] =
    "0000004f 003b 0000 00000007 0001 71 00"
    "00000002 00100000 02 13 5f5f636c75737465725f6d65746164617461 02"
    "00000000 00000005 0000000000000064 00000004 00 0000000000000010 00 00"
    "01 00 04 04616263";

/* Its answer from leader 1: bytes "hello" at 16 of a 40-byte file:
 *
 *   00000057              size: 87 = 5 header + 82 body
 *   00000007 00           correlation id, header tags (v1 header)
 *   00000000 0000         ThrottleTimeMs, ErrorCode
 *   02 13 5f5f...61       Topics: one, Name
 *   02 00000000 0000      Partitions: one; Index 0, ErrorCode 0
 *   0000000000000064 00000004 00   SnapshotId
 *   0000000000000028      Size: 40
 *   0000000000000010      Position: 16
 *   06 68656c6c6f         UnalignedRecords: compact, length + 1
 *   01 00 09 00000001 00000005 00   partition tags: one, tag 0 =
 *                         CurrentLeader (9 bytes: LeaderId, LeaderEpoch,
 *                         its tags)
 *   00 00                 topic and body tags (v0: no NodeEndpoints) */
static const char GOLDEN_RESP[] =
    "00000057 00000007 00 00000000 0000"
    "02 13 5f5f636c75737465725f6d65746164617461 02 00000000 0000"
    "0000000000000064 00000004 00 0000000000000028 0000000000000010 06 68656c6c6f"
    "01 00 09 00000001 00000005 00 00 00";

Test(quorum_snapwire, fetch_snapshot_v0_golden_bytes)
{
    wire c;
    wire_init(&c);
    const lr_qwire wa = {2, "abc"}, wb = {1, "abc"};
    lr_qmsg q = fsnap_req(), got;
    cr_assert_eq(put(&c, &wa, &q, 0), 0);
    transmit(&c);
    hex_eq(c.frame, c.len, GOLDEN_REQ);
    cr_assert_eq(take(&c, &wb, NULL, 0, &got), 0);
    same(&q, &got);

    lr_qmsg a = fsnap_resp("hello", 5);
    cr_assert_eq(put(&c, &wb, &a, 0), 0);
    transmit(&c);
    hex_eq(c.frame, c.len, GOLDEN_RESP);
    cr_assert_eq(take(&c, &wa, &q, 1, &got), 0);
    same(&a, &got);
    wire_free(&c);
}

/* ---------------------------------------------------------- Fetch answers */

static lr_qmsg fetch_req(void)
{
    lr_qmsg f = blank(LR_QM_FETCH_REQ, 2, 5);
    f.fetch_offset = 40;
    f.last_fetched_epoch = 3;
    return f;
}

static lr_qmsg fetch_snap_resp(void)
{
    lr_qmsg r = blank(LR_QM_FETCH_RESP, 1, 5);
    r.leader_id = 1;
    r.hw = 120;
    r.base_offset = 40;
    r.last_fetched_epoch = 3;
    r.snap_end = 100;
    r.snap_epoch = 4;
    return r;
}

static logrep_struct *fetch_part(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, "Responses"), 0);
    return logrep_struct_elem(t, logrep_struct_field(t, "Partitions"), 0);
}

Test(quorum_snapwire, fetch_answer_with_a_snapshot_id_from_version_12)
{
    wire c;
    wire_init(&c);
    lr_qentry e = {4, 0, (const uint8_t *)"x", 1};
    for (int ver = 12; ver <= 17; ver++) {
        lr_qmsg f = fetch_req(), r = fetch_snap_resp(), got;
        cr_assert_eq(send_msg(&c, &W1, &W2, &r, ver, &f, &got), 0, "v%d", ver);
        cr_assert_eq(got.snap_end, 100);
        cr_assert_eq(got.snap_epoch, 4);
        cr_assert_eq(got.hw, 120);
        cr_assert_eq(got.n_entries, 0);
        cr_assert_eq(got.div_end_offset, -1);
        cr_assert_eq(got.error, 0);
        cr_assert_eq(got.leader_id, 1);
        cr_assert_eq(got.epoch, 5);
        /* No snapshot (0 or -1): no SnapshotId sent, none decoded. */
        for (int64_t end = -1; end <= 0; end++) {
            r.snap_end = end;
            cr_assert_eq(send_msg(&c, &W1, &W2, &r, ver, &f, &got), 0);
            logrep_struct *p = fetch_part(c.rx);
            cr_assert_not(logrep_struct_tag_present(p, logrep_struct_field(p, "SnapshotId")));
            cr_assert_leq(got.snap_end, 0);
        }
        /* It comes alone: no entries, divergence or error beside it. */
        r = fetch_snap_resp();
        r.entries = &e;
        r.n_entries = 1;
        cr_assert_eq(put(&c, &W1, &r, ver), LOGREP_ERR__INVALID_ARG);
        r = fetch_snap_resp();
        r.div_epoch = 2;
        r.div_end_offset = 30;
        cr_assert_eq(put(&c, &W1, &r, ver), LOGREP_ERR__INVALID_ARG);
        r = fetch_snap_resp();
        r.error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
        cr_assert_eq(put(&c, &W1, &r, ver), LOGREP_ERR__INVALID_ARG);
        r = fetch_snap_resp();
        r.snap_epoch = -1;
        cr_assert_eq(put(&c, &W1, &r, ver), LOGREP_ERR__INVALID_ARG);
    }
    wire_free(&c);
}

/* ---------------------------------------------------------- refusals */

/* An edit and what decoding must then say. */
typedef struct edit_case {
    mutate_fn ed;
    int want;
    const char *name;
} edit_case;
#define CASE(f, w) {f, w, #f}

static void each_case(const lr_qmsg *m, int v0, int v1, const lr_qmsg *req, const edit_case *cs,
                      size_t n)
{
    for (int ver = v0; ver <= v1; ver++)
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(mutated(m, ver, req, cs[i].ed), cs[i].want, "%s at v%d", cs[i].name, ver);
}

static logrep_struct *topic0(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    return logrep_struct_elem(r, ft >= 0 ? ft : logrep_struct_field(r, "Responses"), 0);
}

static logrep_struct *part0(logrep_msg *m)
{
    logrep_struct *t = topic0(m);
    return logrep_struct_elem(t, logrep_struct_field(t, "Partitions"), 0);
}

static logrep_struct *snap_id(logrep_msg *m)
{
    logrep_struct *p = part0(m), *s;
    cr_assert_eq(logrep_struct_set_struct(p, logrep_struct_field(p, "SnapshotId"), &s), 0);
    return s;
}

static void other_topic(logrep_msg *m)
{
    logrep_struct *t = topic0(m);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "__cluster_metadatb", 18);
}
static void partition_one(logrep_msg *m)
{
    logrep_struct *p = part0(m);
    set_int(p, logrep_struct_field(p, "Index") >= 0 ? "Index" : "Partition", 1);
}
static void two_partitions(logrep_msg *m)
{
    logrep_struct *t = topic0(m);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 2);
}
static void two_topics(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 2);
}
static void no_topics(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 0);
}
static void pos_neg(logrep_msg *m) { set_int(part0(m), "Position", -1); }
static void end_zero(logrep_msg *m) { set_int(snap_id(m), "EndOffset", 0); }
static void end_other(logrep_msg *m) { set_int(snap_id(m), "EndOffset", 99); }
static void snap_epoch_neg(logrep_msg *m) { set_int(snap_id(m), "Epoch", -1); }
static void snap_epoch_other(logrep_msg *m) { set_int(snap_id(m), "Epoch", 3); }
static void replica_none(logrep_msg *m) { set_int(logrep_msg_root(m), "ReplicaId", -1); }
static void max_zero(logrep_msg *m) { set_int(logrep_msg_root(m), "MaxBytes", 0); }
static void max_neg(logrep_msg *m) { set_int(logrep_msg_root(m), "MaxBytes", -5); }
static void epoch_neg(logrep_msg *m) { set_int(part0(m), "CurrentLeaderEpoch", -1); }

Test(quorum_snapwire, request_refusals)
{
    /* One partition, not ours: the host answers it on the partition. */
    static const edit_case cs[] = {
        CASE(nothing, 0),
        CASE(other_topic, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION),
        CASE(partition_one, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION),
        CASE(two_partitions, LOGREP_ERR__INVALID_ARG),
        CASE(two_topics, LOGREP_ERR__INVALID_ARG),
        CASE(no_topics, LOGREP_ERR__INVALID_ARG),
        CASE(pos_neg, LOGREP_ERR__INVALID_ARG),
        CASE(end_zero, LOGREP_ERR__INVALID_ARG),
        CASE(snap_epoch_neg, LOGREP_ERR__INVALID_ARG),
        CASE(replica_none, LOGREP_ERR__INVALID_ARG),
        CASE(max_zero, LOGREP_ERR__INVALID_ARG),
        CASE(max_neg, LOGREP_ERR__INVALID_ARG),
        CASE(epoch_neg, LOGREP_ERR__INVALID_ARG),
        CASE(cluster_other, LOGREP_ERR_INCONSISTENT_CLUSTER_ID),
    };
    lr_qmsg q = fsnap_req();
    each_case(&q, 0, 1, NULL, cs, sizeof cs / sizeof cs[0]);
}

static void resp_size(logrep_msg *m, int64_t size) { set_int(part0(m), "Size", size); }
static void size_neg(logrep_msg *m) { resp_size(m, -1); }
static void len_over_size(logrep_msg *m)
{
    set_int(part0(m), "Position", 0);
    resp_size(m, 5); /* 10 bytes */
}
static void piece_past_size(logrep_msg *m) { set_int(part0(m), "Position", 35); } /* 35 + 10 > 40 */
static void pos_past_size(logrep_msg *m)
{
    logrep_struct *p = part0(m);
    set_int(p, "Position", 41);
    logrep_struct_set_records(p, logrep_struct_field(p, "UnalignedRecords"), "", 0);
}
static void no_leader(logrep_msg *m)
{
    logrep_struct *t = topic0(m); /* a partition afresh: no CurrentLeader */
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
}
static void leader_epoch_neg(logrep_msg *m)
{
    logrep_struct *p = part0(m), *cl;
    logrep_struct_set_struct(p, logrep_struct_field(p, "CurrentLeader"), &cl);
    set_int(cl, "LeaderEpoch", -1);
}
static void code_neg(logrep_msg *m) { set_int(part0(m), "ErrorCode", -2); }
static void top_error(logrep_msg *m)
{
    set_int(logrep_msg_root(m), "ErrorCode", LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
}
static void part_error(logrep_msg *m)
{
    set_int(part0(m), "ErrorCode", LOGREP_ERR_POSITION_OUT_OF_RANGE);
    set_int(snap_id(m), "EndOffset", 0); /* and nothing else checked */
    set_int(part0(m), "Position", -9);
}

Test(quorum_snapwire, response_refusals)
{
    /* end_other, snap_epoch_other: an answer for another snapshot. */
    static const edit_case cs[] = {
        CASE(nothing, 0),
        CASE(pos_neg, LOGREP_ERR__INVALID_ARG),
        CASE(size_neg, LOGREP_ERR__INVALID_ARG),
        CASE(len_over_size, LOGREP_ERR__INVALID_ARG),
        CASE(piece_past_size, LOGREP_ERR__INVALID_ARG),
        CASE(pos_past_size, LOGREP_ERR__INVALID_ARG),
        CASE(end_other, LOGREP_ERR__INVALID_ARG),
        CASE(snap_epoch_other, LOGREP_ERR__INVALID_ARG),
        CASE(other_topic, LOGREP_ERR__INVALID_ARG),
        CASE(partition_one, LOGREP_ERR__INVALID_ARG),
        CASE(two_partitions, LOGREP_ERR__INVALID_ARG),
        CASE(two_topics, LOGREP_ERR__INVALID_ARG),
        CASE(no_topics, LOGREP_ERR__INVALID_ARG),
        CASE(no_leader, LOGREP_ERR__INVALID_ARG),
        CASE(leader_epoch_neg, LOGREP_ERR__INVALID_ARG),
        CASE(code_neg, LOGREP_ERR__INVALID_ARG),
        CASE(top_error, LOGREP_ERR_INCONSISTENT_CLUSTER_ID),
        CASE(part_error, 0),
    };
    lr_qmsg q = fsnap_req(), a = fsnap_resp(PIECE, sizeof PIECE), f = fetch_req();
    each_case(&a, 0, 1, &q, cs, sizeof cs / sizeof cs[0]);
    /* An answer to another kind of request. */
    for (int ver = 0; ver <= 1; ver++)
        cr_assert_eq(mutated(&a, ver, &f, nothing), LOGREP_ERR__INVALID_ARG);
}

/* Fetch answers: a SnapshotId that is not {-1, -1} must be a snapshot,
 * alone. */
static void fetch_snap(logrep_msg *m, int64_t end, int64_t epoch)
{
    logrep_struct *p = fetch_part(m), *s;
    logrep_struct_set_struct(p, logrep_struct_field(p, "SnapshotId"), &s);
    set_int(s, "EndOffset", end);
    set_int(s, "Epoch", epoch);
}
static void fsnap_none(logrep_msg *m) { fetch_snap(m, -1, -1); }
static void fsnap_end_zero(logrep_msg *m) { fetch_snap(m, 0, 4); }
static void fsnap_end_half(logrep_msg *m) { fetch_snap(m, -1, 4); }
static void fsnap_epoch_neg(logrep_msg *m) { fetch_snap(m, 100, -1); }
static void fsnap_records(logrep_msg *m)
{
    logrep_struct *p = fetch_part(m);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), "12345678", 8);
}
static void fsnap_diverging(logrep_msg *m)
{
    logrep_struct *p = fetch_part(m), *d;
    logrep_struct_set_struct(p, logrep_struct_field(p, "DivergingEpoch"), &d);
    set_int(d, "Epoch", 2);
    set_int(d, "EndOffset", 30);
}
static void fsnap_error(logrep_msg *m)
{
    set_int(fetch_part(m), "ErrorCode", LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
}

Test(quorum_snapwire, fetch_answer_refusals)
{
    /* fsnap_records: records and a snapshot id together. */
    static const edit_case cs[] = {
        CASE(nothing, 0),
        CASE(fsnap_none, 0),
        CASE(fsnap_end_zero, LOGREP_ERR__INVALID_ARG),
        CASE(fsnap_end_half, LOGREP_ERR__INVALID_ARG),
        CASE(fsnap_epoch_neg, LOGREP_ERR__INVALID_ARG),
        CASE(fsnap_records, LOGREP_ERR__INVALID_ARG),
        CASE(fsnap_diverging, LOGREP_ERR__INVALID_ARG),
        CASE(fsnap_error, LOGREP_ERR__INVALID_ARG),
    };
    lr_qmsg f = fetch_req(), r = fetch_snap_resp();
    each_case(&r, 12, 17, &f, cs, sizeof cs / sizeof cs[0]);
}

/* A request for another partition answered as Kafka does: the error on
 * the partition it named. */
Test(quorum_snapwire, another_partition_is_answered_unknown)
{
    wire c;
    wire_init(&c);
    lr_qmsg q = fsnap_req(), got;
    cr_assert_eq(put(&c, &W2, &q, 1), 0);
    other_topic(c.tx);
    set_int(part0(c.tx), "Partition", 3);
    transmit(&c);
    cr_assert_eq(take(&c, &W1, NULL, 0, &got), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    logrep_msg *resp;
    cr_assert_eq(logrep_msg_new(NULL, &resp), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_response_to(resp, c.rx), LOGREP_OK);
    cr_assert_eq(lr_qwire_fsnap_unknown_response(resp, resp), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qwire_fsnap_unknown_response(c.rx, c.rx), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qwire_fsnap_unknown_response(resp, c.rx), 0);
    logrep_msg *t = c.tx;
    c.tx = resp;
    transmit(&c);
    c.tx = t;
    logrep_msg_free(resp);
    logrep_struct *r = logrep_msg_root(c.rx), *p = part0(c.rx);
    const uint8_t *name;
    int32_t len;
    cr_assert_eq(logrep_struct_int(r, logrep_struct_field(r, "ErrorCode")), 0);
    cr_assert_eq(logrep_struct_count(r, logrep_struct_field(r, "Topics")), 1);
    logrep_struct_bytes(topic0(c.rx), logrep_struct_field(topic0(c.rx), "Name"), &name, &len);
    cr_assert_eq(len, 18);
    cr_assert_arr_eq(name, "__cluster_metadatb", 18);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "Index")), 3);
    cr_assert_eq(logrep_struct_int(p, logrep_struct_field(p, "ErrorCode")),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_not(logrep_struct_tag_present(p, logrep_struct_field(p, "CurrentLeader")));
    /* Not an answer the quorum takes. */
    cr_assert_eq(lr_qwire_decode_response(&W2, c.rx, &q, 1, &got), LOGREP_ERR__INVALID_ARG);

    /* A request with no partition cannot be answered so. */
    cr_assert_eq(put(&c, &W2, &q, 1), 0);
    no_topics(c.tx);
    transmit(&c);
    cr_assert_eq(logrep_msg_new(NULL, &resp), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_response_to(resp, c.rx), LOGREP_OK);
    cr_assert_eq(lr_qwire_fsnap_unknown_response(resp, c.rx), LOGREP_ERR__INVALID_ARG);
    logrep_msg_free(resp);
    wire_free(&c);
}

/* A request refused as a whole: the code at the top level. */
Test(quorum_snapwire, top_level_error_answers)
{
    wire c;
    wire_init(&c);
    lr_qmsg q = fsnap_req(), got;
    for (int ver = 0; ver <= 1; ver++) {
        cr_assert_eq(logrep_msg_init_response(c.tx, LOGREP_API_FETCH_SNAPSHOT, ver, 7),
                     LOGREP_OK);
        cr_assert_eq(lr_qwire_error_response(c.tx, LOGREP_ERR_INCONSISTENT_CLUSTER_ID), 0);
        transmit(&c);
        cr_assert_eq(take(&c, &W2, &q, 1, &got), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    }
    wire_free(&c);
}

/* ---------------------------------------------------------- broken frames */

/* The frames of every message here, with a decoded copy of each (its
 * kind for decoding) and the request an answer answers. */
typedef struct frameset {
    wire c;
    uint8_t *b[5];
    size_t len[5];
    logrep_msg *kind[5];
    lr_qmsg req[5];
    size_t n;
} frameset;

static void keep(frameset *fs, const lr_qmsg *m, int ver, const lr_qmsg *req)
{
    wire *c = &fs->c;
    size_t n = fs->n++;
    cr_assert_eq(put(c, &W1, m, ver), 0);
    transmit(c);
    fs->b[n] = malloc(c->len);
    memcpy(fs->b[n], c->frame, c->len);
    fs->len[n] = c->len;
    cr_assert_eq(logrep_msg_new(NULL, &fs->kind[n]), LOGREP_OK);
    cr_assert_eq(decode_as(fs->kind[n], c->tx, c->frame, c->len), LOGREP_OK);
    fs->req[n] = *req;
}

static void frames_open(frameset *fs)
{
    memset(fs, 0, sizeof(*fs));
    wire_init(&fs->c);
    for (int ver = 0; ver <= 1; ver++) {
        lr_qmsg q = fsnap_req(), a = fsnap_resp(PIECE, sizeof PIECE);
        q.observer = (uint8_t)ver;
        keep(fs, &q, ver, &q);
        keep(fs, &a, ver, &q);
    }
    lr_qmsg f = fetch_req(), r = fetch_snap_resp();
    keep(fs, &r, 17, &f);
}

static void frames_close(frameset *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->b[i]);
        logrep_msg_free(fs->kind[i]);
    }
    wire_free(&fs->c);
}

/* b (n bytes) through both layers as the kind of message `like` is: 1
 * when the quorum would take it. */
static int accepted(logrep_msg *in, logrep_msg *like, const lr_qmsg *req, const uint8_t *b,
                    size_t n)
{
    lr_qmsg got;
    if (decode_as(in, like, b, n) != LOGREP_OK)
        return 0;
    if (logrep_msg_is_response(in))
        return lr_qwire_decode_response(&W2, in, req, 1, &got) == 0;
    return lr_qwire_decode_request(&W2, in, &got) == 0;
}

/* Every prefix of each frame, with its size as sent and rewritten to the
 * prefix, is refused; nothing reads past it (ASan). */
Test(quorum_snapwire, every_prefix_is_refused)
{
    frameset fs;
    frames_open(&fs);
    logrep_msg *in = fs.c.rx;
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert(accepted(in, fs.kind[i], &fs.req[i], fs.b[i], fs.len[i]), "frame %zu whole", i);
        for (size_t n = 0; n < fs.len[i]; n++) {
            for (int fix = 0; fix <= 1; fix++) {
                uint8_t *b = malloc(n ? n : 1);
                memcpy(b, fs.b[i], n);
                if (fix && n >= 4) {
                    uint32_t sz = (uint32_t)(n - 4);
                    b[0] = (uint8_t)(sz >> 24), b[1] = (uint8_t)(sz >> 16);
                    b[2] = (uint8_t)(sz >> 8), b[3] = (uint8_t)sz;
                }
                cr_assert_not(accepted(in, fs.kind[i], &fs.req[i], b, n),
                              "frame %zu: prefix %zu of %zu taken (size %s)", i, n, fs.len[i],
                              fix ? "rewritten" : "as sent");
                free(b);
            }
        }
    }
    frames_close(&fs);
}

/* Random damage: refused or taken, never a crash or a read out of bounds. */
Test(quorum_snapwire, damaged_frames_never_crash)
{
    frameset fs;
    frames_open(&fs);
    lr_prng rng;
    lr_prng_seed(&rng, 59);
    for (size_t i = 0; i < fs.n; i++) {
        uint8_t *b = malloc(fs.len[i]);
        for (int it = 0; it < 2000; it++) {
            memcpy(b, fs.b[i], fs.len[i]);
            int flips = 1 + (int)lr_prng_below(&rng, 4);
            for (int k = 0; k < flips; k++)
                b[4 + lr_prng_below(&rng, fs.len[i] - 4)] ^=
                    (uint8_t)(1 + lr_prng_below(&rng, 255));
            (void)accepted(fs.c.rx, fs.kind[i], &fs.req[i], b, fs.len[i]);
        }
        free(b);
    }
    frames_close(&fs);
}
/* ---------------------------------------------------------- a cluster on the wire */

/* Every message of the random cluster with snapshots goes through the
 * wire. The harness keeps no requests: an answer is decoded against one
 * rebuilt from what it echoes (the node keeps the real one). */
typedef struct relay {
    wire c;
    long n[LR_QM_FSNAP_RESP + 1];
} relay;

static int through_the_wire(void *ctx, int32_t from, int32_t to, lr_qmsg *m)
{
    relay *r = ctx;
    const lr_qwire ws = {from, "cluster-a"}, wr = {to, "cluster-a"};
    int ver;
    lr_qwire_api(m->type, &ver);
    int err = put_to(&r->c, &ws, m, ver, to);
    cr_assert_eq(err, 0, "encode type %d: %d", m->type, err);
    transmit(&r->c);
    lr_qmsg req = blank((lr_qmsg_type)(m->type - 1), to, m->epoch), got;
    req.fetch_offset = m->base_offset;
    req.last_fetched_epoch = m->last_fetched_epoch;
    req.pre_vote = m->pre_vote;
    req.snap_end = m->snap_end;
    req.snap_epoch = m->snap_epoch;
    req.position = m->position;
    err = take(&r->c, &wr, &req, from, &got);
    cr_assert_eq(err, 0, "decode type %d: %d", m->type, err);
    cr_assert_eq(got.snap_end > 0 ? got.snap_end : 0, m->snap_end > 0 ? m->snap_end : 0);
    if (m->type == LR_QM_FSNAP_REQ || m->type == LR_QM_FSNAP_RESP) {
        same(m, &got);
        got.len = m->len; /* a request's len is its MaxBytes on the wire */
    }
    *m = got; /* bytes in r->c, valid until the next message */
    r->n[m->type]++;
    return 0;
}

Test(quorum_snapwire, a_cluster_with_snapshots_runs_on_the_wire)
{
    static const qt_params p = {.drop_pct = 10, .dup_pct = 5, .min_delay = 1, .max_delay = 25,
                                .persist_delay = 8, .flush_delay = 8, .chaos = 1,
                                .propose_pct = 30, .pre_vote = 1, .snap_permille = 15};
    relay r = {0};
    wire_init(&r.c);
    long installs = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qt_cluster *c = qt_new(3, 1, 7000 + seed, &p);
        c->relay = through_the_wire;
        c->relay_ctx = &r;
        for (long i = 0; i < 3000 && !c->why[0]; i++)
            qt_step(c);
        if (!c->why[0])
            qt_liveness(c, 20000);
        cr_assert_eq(c->why[0], 0, "%s", c->why);
        installs += c->installs;
        qt_free(c);
    }
    cr_log_info("%ld installs, %ld FetchSnapshot requests, %ld answers", installs,
                r.n[LR_QM_FSNAP_REQ], r.n[LR_QM_FSNAP_RESP]);
    cr_assert_gt(installs, 0);
    cr_assert_gt(r.n[LR_QM_FSNAP_REQ], 0);
    cr_assert_gt(r.n[LR_QM_FSNAP_RESP], 0);
    wire_free(&r.c);
}
