/* The quorum's messages on the wire (lib/quorum/qwire.h): every message
 * type through lr_qwire_encode -> frame bytes -> lr_qwire_decode, golden
 * bytes computed by hand from the schemas, every refusal of a malformed
 * message, and DescribeQuorum from a running quorum with a voter that
 * lags. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/prng.h"
#include "lib/quorum_testutil.h"
#include "quorum/qbatch.h"
#include "quorum/qwire.h"

/* One exchange: tx is filled and encoded, its frame copied (the decoder
 * borrows it) and decoded into rx. */
typedef struct wire {
    logrep_msg *tx, *rx;
    uint8_t *frame;
    size_t len;
    lr_buf recs;
} wire;

static const lr_qwire W1 = {1, "cluster-a"}; /* node 1 */
static const lr_qwire W2 = {2, "cluster-a"}; /* node 2 */

static void wire_init(wire *x)
{
    memset(x, 0, sizeof(*x));
    cr_assert_eq(logrep_msg_new(NULL, &x->tx), LOGREP_OK);
    cr_assert_eq(logrep_msg_new(NULL, &x->rx), LOGREP_OK);
    lr_buf_init(&x->recs, &lr_alloc_default);
}

static void wire_free(wire *x)
{
    logrep_msg_free(x->tx);
    logrep_msg_free(x->rx);
    free(x->frame);
    lr_buf_free(&x->recs);
}

static int is_resp(lr_qmsg_type t)
{
    return t == LR_QM_VOTE_RESP || t == LR_QM_BEGIN_RESP || t == LR_QM_END_RESP ||
           t == LR_QM_FETCH_RESP;
}

/* Opens tx as the message of api `key` at `ver`. */
static logrep_struct *open_as(wire *x, int key, int ver, int resp)
{
    logrep_err err = resp ? logrep_msg_init_response(x->tx, key, ver, 7)
                          : logrep_msg_init_request(x->tx, key, ver, 7, "q");
    cr_assert_eq(err, LOGREP_OK, "open api %d v%d: %s", key, ver, logrep_err_name(err));
    return logrep_msg_root(x->tx);
}

static void open_type(wire *x, lr_qmsg_type t, int ver)
{
    open_as(x, lr_qwire_api(t, NULL), ver, is_resp(t));
}

/* tx -> bytes -> rx. */
static void transmit(wire *x)
{
    const uint8_t *p;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(x->tx, &p, &len), LOGREP_OK, "%s",
                 logrep_msg_errmsg(x->tx));
    free(x->frame);
    x->frame = malloc(len);
    memcpy(x->frame, p, len);
    x->len = len;
    logrep_err err = logrep_msg_is_response(x->tx)
                         ? logrep_msg_decode_response(x->rx, logrep_msg_api_key(x->tx),
                                                      logrep_msg_version(x->tx), x->frame, len)
                         : logrep_msg_decode_request(x->rx, x->frame, len);
    cr_assert_eq(err, LOGREP_OK, "decode: %s", logrep_msg_errmsg(x->rx));
}

/* m -> frame -> lr_qmsg. For responses, req is the request answered. */
static int send_msg(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
                    const lr_qmsg *req, lr_qmsg *out)
{
    open_type(x, m->type, ver);
    int err = lr_qwire_encode(w, x->tx, m, 2, 1000, &x->recs);
    cr_assert_eq(err, 0, "encode type %d v%d: %d", m->type, ver, err);
    transmit(x);
    return is_resp(m->type) ? lr_qwire_decode_response(wr, x->rx, req, m->from, out)
                            : lr_qwire_decode_request(wr, x->rx, out);
}

static void same(const lr_qmsg *a, const lr_qmsg *b);

/* m through the wire comes back the same. */
static void trip(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
                 const lr_qmsg *req)
{
    lr_qmsg out;
    cr_assert_eq(send_msg(x, w, wr, m, ver, req, &out), 0, "type %d v%d", m->type, ver);
    same(m, &out);
}

static lr_qmsg blank(lr_qmsg_type t, int32_t from, int32_t epoch)
{
    return (lr_qmsg){.type = t, .from = from, .epoch = epoch, .leader_id = -1, .last_epoch = -1,
                     .last_fetched_epoch = -1, .hw = -1, .div_epoch = -1, .div_end_offset = -1};
}

static void same_entries(const lr_qmsg *a, const lr_qmsg *b)
{
    cr_assert_eq(a->n_entries, b->n_entries);
    for (size_t i = 0; i < a->n_entries; i++) {
        cr_assert_eq(a->entries[i].epoch, b->entries[i].epoch, "entry %zu", i);
        cr_assert_eq(a->entries[i].control, b->entries[i].control, "entry %zu", i);
        cr_assert_eq(a->entries[i].len, b->entries[i].len, "entry %zu", i);
        if (a->entries[i].len)
            cr_assert_arr_eq(a->entries[i].data, b->entries[i].data, a->entries[i].len);
    }
}

/* Everything the quorum reads of m's type came back. */
static void same(const lr_qmsg *a, const lr_qmsg *b)
{
    cr_assert_eq(a->type, b->type);
    cr_assert_eq(a->from, b->from);
    cr_assert_eq(a->epoch, b->epoch);
    switch (a->type) {
    case LR_QM_VOTE_REQ:
        cr_assert_eq(a->last_epoch, b->last_epoch);
        cr_assert_eq(a->end_offset, b->end_offset);
        cr_assert_eq(a->pre_vote, b->pre_vote);
        break;
    case LR_QM_END_REQ:
        cr_assert_eq(a->n_successors, b->n_successors);
        for (size_t i = 0; i < a->n_successors; i++)
            cr_assert_eq(a->successors[i], b->successors[i]);
        /* fall through */
    case LR_QM_BEGIN_REQ: cr_assert_eq(a->leader_id, b->leader_id); break;
    case LR_QM_FETCH_REQ:
        cr_assert_eq(a->fetch_offset, b->fetch_offset);
        cr_assert_eq(a->last_fetched_epoch, b->last_fetched_epoch);
        cr_assert_eq(a->observer, b->observer);
        break;
    case LR_QM_VOTE_RESP:
        cr_assert_eq(a->granted, b->granted);
        cr_assert_eq(a->pre_vote, b->pre_vote);
        /* fall through */
    case LR_QM_BEGIN_RESP:
    case LR_QM_END_RESP:
        cr_assert_eq(a->error, b->error);
        cr_assert_eq(a->leader_id, b->leader_id);
        break;
    case LR_QM_FETCH_RESP:
        cr_assert_eq(a->error, b->error);
        cr_assert_eq(a->leader_id, b->leader_id);
        cr_assert_eq(a->hw, b->hw);
        cr_assert_eq(a->div_epoch, b->div_epoch);
        cr_assert_eq(a->div_end_offset, b->div_end_offset);
        cr_assert_eq(a->base_offset, b->base_offset);
        cr_assert_eq(a->last_fetched_epoch, b->last_fetched_epoch);
        same_entries(a, b);
        break;
    case LR_QM_FSNAP_REQ:
    case LR_QM_FSNAP_RESP: cr_assert_fail("FetchSnapshot has no codec yet"); break;
    }
}

static const uint8_t LC[6] = {0, 0, 0, 0, 0, 1};

/* ---------------------------------------------------------- round trips */

Test(quorum_wire, versions_spoken)
{
    int v = -1;
    cr_assert_eq(lr_qwire_api(LR_QM_VOTE_REQ, &v), LOGREP_API_VOTE);
    cr_assert_eq(v, 2);
    cr_assert_eq(lr_qwire_api(LR_QM_BEGIN_RESP, &v), LOGREP_API_BEGIN_QUORUM_EPOCH);
    cr_assert_eq(v, 1);
    cr_assert_eq(lr_qwire_api(LR_QM_END_REQ, &v), LOGREP_API_END_QUORUM_EPOCH);
    cr_assert_eq(v, 1);
    cr_assert_eq(lr_qwire_api(LR_QM_FETCH_RESP, &v), LOGREP_API_FETCH);
    cr_assert_eq(v, 17);
    cr_assert_eq(lr_qwire_api((lr_qmsg_type)0, &v), -1);
    /* Each is the newest version the codec has. */
    cr_assert_eq(logrep_proto_api(LOGREP_API_VOTE)->max_version, LR_QWIRE_VOTE_V);
    cr_assert_eq(logrep_proto_api(LOGREP_API_BEGIN_QUORUM_EPOCH)->max_version, LR_QWIRE_BEGIN_V);
    cr_assert_eq(logrep_proto_api(LOGREP_API_END_QUORUM_EPOCH)->max_version, LR_QWIRE_END_V);
    cr_assert_eq(logrep_proto_api(LOGREP_API_FETCH)->max_version, LR_QWIRE_FETCH_V);
    cr_assert_eq(logrep_proto_api(LOGREP_API_DESCRIBE_QUORUM)->max_version, 2);
}

Test(quorum_wire, vote_round_trips_at_every_version)
{
    wire x;
    wire_init(&x);
    for (int ver = 0; ver <= 2; ver++) {
        for (int pre = 0; pre <= (ver == 2); pre++) {
            lr_qmsg m = blank(LR_QM_VOTE_REQ, 1, 7), out;
            m.last_epoch = 6;
            m.end_offset = 1234567890123;
            m.pre_vote = (uint8_t)pre;
            cr_assert_eq(send_msg(&x, &W1, &W2, &m, ver, NULL, &out), 0);
            same(&m, &out);
            cr_assert_eq(out.leader_id, -1); /* not on the wire */
            lr_qmsg r = blank(LR_QM_VOTE_RESP, 2, 7);
            r.leader_id = 3;
            r.granted = 1;
            r.pre_vote = (uint8_t)pre;
            r.error = pre ? 0 : LOGREP_ERR_FENCED_LEADER_EPOCH;
            trip(&x, &W2, &W1, &r, ver, &m);
        }
    }
    wire_free(&x);
}

Test(quorum_wire, begin_and_end_round_trip_at_every_version)
{
    wire x;
    wire_init(&x);
    for (int ver = 0; ver <= 1; ver++) {
        lr_qmsg b = blank(LR_QM_BEGIN_REQ, 1, 9);
        b.leader_id = 1;
        trip(&x, &W1, &W2, &b, ver, NULL);
        lr_qmsg br = blank(LR_QM_BEGIN_RESP, 2, 9);
        br.leader_id = 1;
        trip(&x, &W2, &W1, &br, ver, &b);

        lr_qmsg e = blank(LR_QM_END_REQ, 1, 9);
        e.leader_id = 1;
        for (int i = 0; i < LR_QUORUM_MAX_VOTERS; i++)
            e.successors[i] = 100 - i;
        e.n_successors = LR_QUORUM_MAX_VOTERS;
        trip(&x, &W1, &W2, &e, ver, NULL);
        e.n_successors = 0;
        trip(&x, &W1, &W2, &e, ver, NULL);
        lr_qmsg er = blank(LR_QM_END_RESP, 2, 10);
        er.error = LOGREP_ERR_INCONSISTENT_VOTER_SET;
        trip(&x, &W2, &W1, &er, ver, &e);
    }
    wire_free(&x);
}

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

Test(quorum_wire, no_cluster_id_is_sent_as_null_and_accepted)
{
    wire x;
    wire_init(&x);
    const lr_qwire anon = {1, NULL};
    lr_qmsg m = blank(LR_QM_VOTE_REQ, 1, 2), out;
    m.end_offset = 0;
    cr_assert_eq(send_msg(&x, &anon, &W2, &m, 2, NULL, &out), 0);
    cr_assert(logrep_struct_is_null(logrep_msg_root(x.rx),
                                    logrep_struct_field(logrep_msg_root(x.rx), "ClusterId")));
    lr_qmsg f = blank(LR_QM_FETCH_REQ, 1, 2);
    f.fetch_offset = 0;
    cr_assert_eq(send_msg(&x, &anon, &W2, &f, 17, NULL, &out), 0);
    cr_assert_not(logrep_struct_tag_present(
        logrep_msg_root(x.rx), logrep_struct_field(logrep_msg_root(x.rx), "ClusterId")));
    wire_free(&x);
}

/* ---------------------------------------------------------- golden bytes */

static void hex_eq(const uint8_t *got, size_t len, const char *hex)
{
    uint8_t want[512];
    size_t n = 0;
    for (const char *p = hex; *p;) {
        if (*p == ' ' || *p == '\n') {
            p++;
            continue;
        }
        unsigned b;
        cr_assert_eq(sscanf(p, "%2x", &b), 1);
        cr_assert_lt(n, sizeof want);
        want[n++] = (uint8_t)b;
        p += 2;
    }
    cr_assert_eq(len, n, "length %zu, want %zu", len, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "byte %zu: %02x, want %02x", i, got[i], want[i]);
}

/* Vote v2 (flexible), from node 1 in epoch 5, last entry epoch 4, log end
 * 10, a pre-vote, to node 2, cluster "abc", correlation id 7, client "q".
 *
 *   00000065              size: 101 = 12 header + 89 body
 *   0034 0002 00000007    api key 52, version 2, correlation id
 *   0001 71               client id "q" (int16 length: never compact)
 *   00                    header tagged fields
 *   04 616263             ClusterId: compact nullable, length + 1
 *   00000002              VoterId: the receiver
 *   02                    Topics: one (count + 1)
 *   13 5f5f636c75737465725f6d65746164617461   TopicName, 18 bytes
 *   02                    Partitions: one
 *   00000000              PartitionIndex 0
 *   00000005 00000001     ReplicaEpoch, ReplicaId
 *   00 x 16, 00 x 16      ReplicaDirectoryId, VoterDirectoryId: none
 *   00000004              LastOffsetEpoch
 *   000000000000000a      LastOffset
 *   01                    PreVote
 *   00 00 00              tagged fields: partition, topic, body */
Test(quorum_wire, vote_request_golden_bytes)
{
    wire x;
    wire_init(&x);
    const lr_qwire w = {1, "abc"};
    lr_qmsg m = blank(LR_QM_VOTE_REQ, 1, 5);
    m.last_epoch = 4;
    m.end_offset = 10;
    m.pre_vote = 1;
    open_type(&x, LR_QM_VOTE_REQ, 2);
    cr_assert_eq(lr_qwire_encode(&w, x.tx, &m, 2, 0, NULL), 0);
    transmit(&x);
    hex_eq(x.frame, x.len,
           "00000065 0034 0002 00000007 0001 71 00"
           "04 616263 00000002 02 13 5f5f636c75737465725f6d65746164617461 02"
           "00000000 00000005 00000001"
           "00000000000000000000000000000000 00000000000000000000000000000000"
           "00000004 000000000000000a 01 00 00 00");
    lr_qmsg out;
    const lr_qwire w2 = {2, "abc"};
    cr_assert_eq(lr_qwire_decode_request(&w2, x.rx, &out), 0);
    same(&m, &out);
    wire_free(&x);
}

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

/* ---------------------------------------------------------- refusals */

static logrep_struct *partition_of(logrep_msg *m, const char *topics)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, topics), 0);
    return logrep_struct_elem(t, logrep_struct_field(t, "Partitions"), 0);
}

static void set_int(logrep_struct *s, const char *f, int64_t v)
{
    cr_assert_eq(logrep_struct_set_int(s, logrep_struct_field(s, f), v), 0, "%s", f);
}

typedef void (*mutate_fn)(logrep_msg *m);

/* m encoded, then changed by `mut` before it goes on the wire; what the
 * receiver's decode says. */
static int mutated(const lr_qmsg *m, int ver, const lr_qmsg *req, mutate_fn mut)
{
    wire x;
    wire_init(&x);
    open_type(&x, m->type, ver);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, m, 2, 0, &x.recs), 0);
    mut(x.tx);
    transmit(&x);
    lr_qmsg out;
    int rc = is_resp(m->type) ? lr_qwire_decode_response(&W2, x.rx, req, m->from, &out)
                              : lr_qwire_decode_request(&W2, x.rx, &out);
    wire_free(&x);
    return rc;
}

static void other_topic(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    if (ft < 0)
        ft = logrep_struct_field(r, "Responses");
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    int f = logrep_struct_field(t, "TopicId");
    if (logrep_struct_has(t, f)) {
        uint8_t id[16] = {0};
        id[15] = 2;
        logrep_struct_set_uuid(t, f, id);
        return;
    }
    f = logrep_struct_field(t, "TopicName");
    if (f < 0)
        f = logrep_struct_field(t, "Topic");
    logrep_struct_set_bytes(t, f, "__cluster_metadatb", 18);
}

/* Two topics, both naming the metadata partition. */
static void two_topics(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    if (ft < 0)
        ft = logrep_struct_field(r, "Responses");
    logrep_struct_set_count(r, ft, 2);
    for (int32_t i = 0; i < 2; i++) {
        logrep_struct *t = logrep_struct_elem(r, ft, i);
        int f = logrep_struct_field(t, "TopicName");
        if (f < 0)
            f = logrep_struct_field(t, "Topic");
        logrep_struct_set_bytes(t, f, LR_QWIRE_TOPIC, 18);
        uint8_t id[16] = {0};
        id[15] = 1;
        logrep_struct_set_uuid(t, logrep_struct_field(t, "TopicId"), id);
        logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    }
}

static void no_topics(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    if (ft < 0)
        ft = logrep_struct_field(r, "Responses");
    logrep_struct_set_count(r, ft, 0);
}

static void two_partitions(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    int ft = logrep_struct_field(r, "Topics");
    if (ft < 0)
        ft = logrep_struct_field(r, "Responses");
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 2);
}

static void partition_one(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    const char *topics = logrep_struct_field(r, "Topics") >= 0 ? "Topics" : "Responses";
    logrep_struct *p = partition_of(m, topics);
    int f = logrep_struct_field(p, "PartitionIndex");
    set_int(p, f >= 0 ? "PartitionIndex" : "Partition", 1);
}

static const mutate_fn WHERE[] = {other_topic, two_topics, no_topics, two_partitions,
                                  partition_one};

static lr_qmsg some(lr_qmsg_type t)
{
    lr_qmsg m = blank(t, is_resp(t) ? 2 : 1, 4);
    m.leader_id = 1;
    m.end_offset = 3;
    m.fetch_offset = 3;
    m.last_epoch = m.last_fetched_epoch = 2;
    m.base_offset = 3;
    if (t == LR_QM_VOTE_REQ || t == LR_QM_FETCH_REQ)
        m.leader_id = -1;
    return m;
}

Test(quorum_wire, another_topic_or_partition_is_refused_everywhere)
{
    static const lr_qmsg_type types[] = {LR_QM_VOTE_REQ, LR_QM_VOTE_RESP, LR_QM_BEGIN_REQ,
                                         LR_QM_BEGIN_RESP, LR_QM_END_REQ, LR_QM_END_RESP,
                                         LR_QM_FETCH_REQ, LR_QM_FETCH_RESP};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        lr_qmsg m = some(types[i]);
        lr_qmsg req = some((lr_qmsg_type)(types[i] - 1));
        int ver;
        lr_qwire_api(types[i], &ver);
        for (size_t k = 0; k < sizeof WHERE / sizeof WHERE[0]; k++)
            cr_assert_eq(mutated(&m, ver, &req, WHERE[k]), LOGREP_ERR__INVALID_ARG,
                         "type %d mutation %zu", types[i], k);
        /* Fetch by topic name (v12) too. */
        if (types[i] == LR_QM_FETCH_REQ || types[i] == LR_QM_FETCH_RESP)
            for (size_t k = 0; k < sizeof WHERE / sizeof WHERE[0]; k++)
                cr_assert_eq(mutated(&m, 12, &req, WHERE[k]), LOGREP_ERR__INVALID_ARG);
    }
}

static void vote_epoch_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "ReplicaEpoch", -1); }
static void vote_id_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "ReplicaId", -1); }
static void vote_last_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "LastOffset", -1); }
static void vote_lastep_bad(logrep_msg *m)
{
    set_int(partition_of(m, "Topics"), "LastOffsetEpoch", -2);
}
static void voter_other(logrep_msg *m) { set_int(logrep_msg_root(m), "VoterId", 3); }
static void voter_bad(logrep_msg *m) { set_int(logrep_msg_root(m), "VoterId", -2); }
static void voter_unset(logrep_msg *m) { set_int(logrep_msg_root(m), "VoterId", -1); }
static void cluster_other(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_bytes(r, logrep_struct_field(r, "ClusterId"), "cluster-b", 9);
}
static void cluster_null(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_null(r, logrep_struct_field(r, "ClusterId"));
}

Test(quorum_wire, vote_request_refusals)
{
    lr_qmsg m = some(LR_QM_VOTE_REQ);
    cr_assert_eq(mutated(&m, 2, NULL, vote_epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&m, 2, NULL, vote_id_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&m, 2, NULL, vote_last_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&m, 2, NULL, vote_lastep_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&m, 2, NULL, voter_other), LOGREP_ERR_INVALID_VOTER_KEY);
    cr_assert_eq(mutated(&m, 2, NULL, voter_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&m, 2, NULL, voter_unset), 0);
    cr_assert_eq(mutated(&m, 2, NULL, cluster_other), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    cr_assert_eq(mutated(&m, 2, NULL, cluster_null), 0);
    /* v0 has no VoterId: nothing to check. */
    cr_assert_eq(mutated(&m, 0, NULL, voter_other), 0);
}

static void leader_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "LeaderId", -1); }
static void epoch_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "LeaderEpoch", -1); }
static void candidates_17(logrep_msg *m)
{
    logrep_struct *p = partition_of(m, "Topics");
    int f = logrep_struct_field(p, "PreferredCandidates");
    logrep_struct_set_count(p, f, 17);
    for (int32_t i = 0; i < 17; i++)
        set_int(logrep_struct_elem(p, f, i), "CandidateId", i + 1);
}
static void candidate_neg(logrep_msg *m)
{
    logrep_struct *p = partition_of(m, "Topics");
    int f = logrep_struct_field(p, "PreferredCandidates");
    logrep_struct_set_count(p, f, 2);
    set_int(logrep_struct_elem(p, f, 0), "CandidateId", 2);
    set_int(logrep_struct_elem(p, f, 1), "CandidateId", -1);
}
static void successors_17(logrep_msg *m)
{
    logrep_struct *p = partition_of(m, "Topics");
    int f = logrep_struct_field(p, "PreferredSuccessors");
    logrep_struct_set_count(p, f, 17);
}

Test(quorum_wire, begin_and_end_request_refusals)
{
    lr_qmsg b = some(LR_QM_BEGIN_REQ), e = some(LR_QM_END_REQ);
    cr_assert_eq(mutated(&b, 1, NULL, leader_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&b, 1, NULL, epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&b, 1, NULL, voter_other), LOGREP_ERR_INVALID_VOTER_KEY);
    cr_assert_eq(mutated(&b, 0, NULL, cluster_other), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    cr_assert_eq(mutated(&e, 1, NULL, leader_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&e, 1, NULL, epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&e, 1, NULL, candidates_17), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&e, 1, NULL, candidate_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&e, 0, NULL, successors_17), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&e, 1, NULL, cluster_other), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
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
static void nothing(logrep_msg *m) { (void)m; }

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

static void resp_top_error(logrep_msg *m)
{
    set_int(logrep_msg_root(m), "ErrorCode", LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
}
static void resp_top_error_neg(logrep_msg *m) { set_int(logrep_msg_root(m), "ErrorCode", -3); }
static void resp_code_neg(logrep_msg *m) { set_int(partition_of(m, "Topics"), "ErrorCode", -3); }
static void resp_top_unknown(logrep_msg *m) { set_int(logrep_msg_root(m), "ErrorCode", -1); }
static void resp_code_unknown(logrep_msg *m)
{
    set_int(partition_of(m, "Topics"), "ErrorCode", -1);
}
static void resp_leader_bad(logrep_msg *m) { set_int(partition_of(m, "Topics"), "LeaderId", -2); }

Test(quorum_wire, response_refusals)
{
    lr_qmsg v = some(LR_QM_VOTE_RESP), vreq = some(LR_QM_VOTE_REQ);
    lr_qmsg b = some(LR_QM_BEGIN_RESP), breq = some(LR_QM_BEGIN_REQ);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_top_error), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_top_error_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_top_unknown), LOGREP_ERR_UNKNOWN_SERVER_ERROR);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_code_unknown), 0);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_code_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&v, 2, &vreq, resp_leader_bad), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&v, 2, &vreq, epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&b, 1, &breq, epoch_neg), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&b, 1, &breq, nothing), 0);
    /* A response to another kind of request, or to a response. */
    cr_assert_eq(mutated(&v, 2, &breq, nothing), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(mutated(&v, 2, &v, nothing), LOGREP_ERR__INVALID_ARG);
    /* A request decoded as a response and the other way round. */
    wire x;
    wire_init(&x);
    lr_qmsg out;
    open_type(&x, LR_QM_VOTE_REQ, 2);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &vreq, 2, 0, NULL), 0);
    transmit(&x);
    cr_assert_eq(lr_qwire_decode_response(&W2, x.rx, &vreq, 1, &out), LOGREP_ERR__INVALID_ARG);
    open_type(&x, LR_QM_VOTE_RESP, 2);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &v, 1, 0, NULL), 0);
    transmit(&x);
    cr_assert_eq(lr_qwire_decode_request(&W2, x.rx, &out), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qwire_decode_response(&W2, x.rx, &vreq, -1, &out), LOGREP_ERR__INVALID_ARG);
    /* An API the quorum does not speak. */
    open_as(&x, LOGREP_API_METADATA, 12, 0);
    transmit(&x);
    cr_assert_eq(lr_qwire_decode_request(&W2, x.rx, &out), LOGREP_ERR__INVALID_ARG);
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

Test(quorum_wire, encode_refuses_what_the_version_cannot_carry)
{
    wire x;
    wire_init(&x);
    lr_qmsg v = some(LR_QM_VOTE_REQ);
    v.pre_vote = 1;
    open_type(&x, LR_QM_VOTE_REQ, 1);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &v, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    lr_qmsg f = some(LR_QM_FETCH_REQ);
    f.observer = 1;
    open_type(&x, LR_QM_FETCH_REQ, 16);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &f, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    f.observer = 0;
    open_type(&x, LR_QM_FETCH_REQ, 11);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &f, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    lr_qmsg r = some(LR_QM_FETCH_RESP);
    open_type(&x, LR_QM_FETCH_RESP, 11);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &r, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    /* Entries need a records buffer. */
    lr_qentry e = {4, 0, (const uint8_t *)"z", 1};
    r.entries = &e;
    r.n_entries = 1;
    open_type(&x, LR_QM_FETCH_RESP, 17);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &r, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    /* The message opened for another API, or as the other direction. */
    open_type(&x, LR_QM_BEGIN_REQ, 1);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &v, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    open_type(&x, LR_QM_VOTE_RESP, 2);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &v, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    /* Begin/EndQuorumEpoch come from the leader they name. */
    lr_qmsg b = some(LR_QM_BEGIN_REQ);
    b.leader_id = 3;
    open_type(&x, LR_QM_BEGIN_REQ, 1);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &b, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    lr_qmsg en = some(LR_QM_END_REQ);
    en.n_successors = LR_QUORUM_MAX_VOTERS + 1;
    open_type(&x, LR_QM_END_REQ, 1);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &en, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    lr_qmsg bad = some(LR_QM_VOTE_REQ);
    bad.type = (lr_qmsg_type)99;
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, &bad, 2, 0, NULL), LOGREP_ERR__INVALID_ARG);
    wire_free(&x);
}

Test(quorum_wire, error_response_is_top_level)
{
    wire x;
    wire_init(&x);
    lr_qmsg vreq = some(LR_QM_VOTE_REQ), out;
    open_type(&x, LR_QM_VOTE_RESP, 2);
    cr_assert_eq(lr_qwire_error_response(x.tx, LOGREP_ERR_INCONSISTENT_CLUSTER_ID), 0);
    transmit(&x);
    cr_assert_eq(lr_qwire_decode_response(&W1, x.rx, &vreq, 2, &out),
                 LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    lr_qmsg freq = some(LR_QM_FETCH_REQ);
    open_type(&x, LR_QM_FETCH_RESP, 17);
    cr_assert_eq(lr_qwire_error_response(x.tx, LOGREP_ERR_INVALID_REQUEST), 0);
    transmit(&x);
    cr_assert_eq(lr_qwire_decode_response(&W1, x.rx, &freq, 2, &out), LOGREP_ERR_INVALID_REQUEST);
    cr_assert_eq(lr_qwire_error_response(x.tx, 0), LOGREP_ERR__INVALID_ARG);
    open_type(&x, LR_QM_FETCH_RESP, 6);
    cr_assert_eq(lr_qwire_error_response(x.tx, LOGREP_ERR_INVALID_REQUEST), LOGREP_ERR__INVALID_ARG);
    open_type(&x, LR_QM_FETCH_REQ, 17);
    cr_assert_eq(lr_qwire_error_response(x.tx, LOGREP_ERR_INVALID_REQUEST), LOGREP_ERR__INVALID_ARG);
    wire_free(&x);
}

/* Random damage to valid frames: the proto layer or qwire refuses it, or
 * it decodes to a message the quorum can take; nothing crashes or reads
 * out of bounds (ASan). */
Test(quorum_wire, damaged_frames_never_crash)
{
    lr_prng rng;
    lr_prng_seed(&rng, 17);
    lr_qentry ents[2] = {{4, 0, (const uint8_t *)"abc", 3},
                         {4, LR_QUORUM_CTL_LEADER_CHANGE, LC, sizeof LC}};
    static const lr_qmsg_type types[] = {LR_QM_VOTE_REQ, LR_QM_VOTE_RESP, LR_QM_BEGIN_REQ,
                                         LR_QM_BEGIN_RESP, LR_QM_END_REQ, LR_QM_END_RESP,
                                         LR_QM_FETCH_REQ, LR_QM_FETCH_RESP};
    wire x;
    wire_init(&x);
    logrep_msg *rx;
    cr_assert_eq(logrep_msg_new(NULL, &rx), LOGREP_OK);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        lr_qmsg m = some(types[t]), req = some((lr_qmsg_type)(types[t] - 1));
        m.successors[0] = 2;
        m.n_successors = types[t] == LR_QM_END_REQ;
        if (types[t] == LR_QM_FETCH_RESP) {
            m.entries = ents;
            m.n_entries = 2;
        }
        int ver;
        int key = lr_qwire_api(types[t], &ver);
        open_type(&x, types[t], ver);
        cr_assert_eq(lr_qwire_encode(&W1, x.tx, &m, 2, 0, &x.recs), 0);
        transmit(&x);
        uint8_t *buf = malloc(x.len);
        for (int it = 0; it < 1500; it++) {
            memcpy(buf, x.frame, x.len);
            int flips = 1 + (int)lr_prng_below(&rng, 4);
            for (int k = 0; k < flips; k++)
                buf[4 + lr_prng_below(&rng, x.len - 4)] ^= (uint8_t)(1 + lr_prng_below(&rng, 255));
            lr_qmsg out;
            if (is_resp(types[t])) {
                if (logrep_msg_decode_response(rx, key, ver, buf, x.len) == LOGREP_OK)
                    (void)lr_qwire_decode_response(&W2, rx, &req, 1, &out);
            } else if (logrep_msg_decode_request(rx, buf, x.len) == LOGREP_OK) {
                (void)lr_qwire_decode_request(&W2, rx, &out);
            }
        }
        free(buf);
    }
    logrep_msg_free(rx);
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

/* ---------------------------------------------------------- a quorum on the wire */

/* Every message the harness delivers goes through the wire: encoded as
 * its sender, bytes, decoded as its receiver. The harness keeps no
 * requests, so a response is decoded against one rebuilt from what the
 * quorum echoes (fetch offset and epoch, pre-vote): the node keeps the
 * real one. */
typedef struct relay {
    wire x;
    long n[LR_QM_FETCH_RESP + 1];
} relay;

static int through_the_wire(void *ctx, int32_t from, int32_t to, lr_qmsg *m)
{
    relay *r = ctx;
    const lr_qwire ws = {from, "cluster-a"}, wr = {to, "cluster-a"};
    int ver;
    lr_qwire_api(m->type, &ver);
    open_type(&r->x, m->type, ver);
    int err = lr_qwire_encode(&ws, r->x.tx, m, to, 0, &r->x.recs);
    cr_assert_eq(err, 0, "encode type %d: %d", m->type, err);
    transmit(&r->x);
    lr_qmsg req = blank((lr_qmsg_type)(m->type - 1), to, m->epoch), out;
    req.fetch_offset = m->base_offset;
    req.last_fetched_epoch = m->last_fetched_epoch;
    req.pre_vote = m->pre_vote;
    err = is_resp(m->type) ? lr_qwire_decode_response(&wr, r->x.rx, &req, from, &out)
                           : lr_qwire_decode_request(&wr, r->x.rx, &out);
    cr_assert_eq(err, 0, "decode type %d: %d", m->type, err);
    same(m, &out);
    *m = out; /* entries in r->x.rx, valid until the next message */
    r->n[m->type]++;
    return 0;
}

static const qt_params HOSTILE = {.drop_pct = 10, .dup_pct = 5, .min_delay = 1, .max_delay = 25,
                                  .persist_delay = 8, .flush_delay = 8, .chaos = 1,
                                  .propose_pct = 30, .pre_vote = 1};

/* The random simulation (crashes, disk loss, partitions, clock jumps)
 * with every message on the wire: the invariants hold after every step
 * and a leader commits after the heal. */
Test(quorum_wire, a_quorum_runs_on_the_wire)
{
    relay r = {0};
    wire_init(&r.x);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qt_cluster *c = qt_new(3, 1, 700 + seed, &HOSTILE);
        c->relay = through_the_wire;
        c->relay_ctx = &r;
        for (long i = 0; i < 3000 && !c->why[0]; i++)
            qt_step(c);
        if (!c->why[0])
            qt_liveness(c, 20000);
        /* A resignation: EndQuorumEpoch, then another leader. */
        qt_node *l = qt_leader(c);
        if (!c->why[0] && l && lr_quorum_resign(l->q, qt_now(c, l)) == 0)
            qt_liveness(c, 20000);
        cr_assert_eq(c->why[0], 0, "%s", c->why);
        cr_assert_gt(c->n_committed, 10);
        cr_log_info("seed %llu: %ld steps, %ld elections, %ld crashes, %ld disk losses, %zu "
                    "committed", (unsigned long long)(700 + seed), c->steps, c->elections,
                    c->crashes, c->disk_losses, c->n_committed);
        qt_free(c);
    }
    for (int t = LR_QM_VOTE_REQ; t <= LR_QM_FETCH_RESP; t++) {
        cr_log_info("type %d: %ld messages", t, r.n[t]);
        cr_assert_gt(r.n[t], 0, "no message of type %d crossed", t);
    }
    wire_free(&r.x);
}
