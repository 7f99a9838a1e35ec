/* The quorum's messages on the wire (lib/quorum/qwire.h): every message
 * type through lr_qwire_encode -> frame bytes -> lr_qwire_decode, golden
 * bytes computed by hand from the schemas, every refusal of a malformed
 * message. This file: the versions, Vote and Begin/EndQuorumEpoch, what
 * every type refuses, damaged frames, and a quorum running on the wire;
 * Fetch is test_quorum_wire_fetch.c, DescribeQuorum
 * test_quorum_wire_describe.c (helpers: lib/qwire_testutil.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/prng.h"
#include "lib/quorum_testutil.h"
#include "lib/qwire_testutil.h"
#include "quorum/qwire.h"

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

/* ---------------------------------------------------------- refusals */

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
