/* Error codes at the protocol level, as Kafka answers them: Metadata by
 * topic id and v0's empty list, DeleteTopics by topic id, ListOffsets of
 * the tiered-storage timestamps. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"

static logrep_msg *req(int api, int version)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 77, "wire"), LOGREP_OK);
    return m;
}

/* Sends m to node `to`, returns the decoded response; frees m. */
static logrep_msg *call(net *w, int to, logrep_msg *m)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    uint64_t c = client_send(w, to, m);
    client_wait(w, c, logrep_msg_api_key(m), logrep_msg_version(m), r, 2000);
    logrep_msg_free(m);
    cr_assert_eq(logrep_msg_correlation_id(r), 77);
    return r;
}

static void create(net *w, const char *name)
{
    create_topic(w, 1, name, 1, 1);
    run(w, 500);
}

/* Metadata v12 for one topic given by name or (name NULL) by id. */
static logrep_msg *metadata12(net *w, const char *name, const uint8_t id[16])
{
    logrep_msg *m = req(LOGREP_API_METADATA, 12);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    if (name)
        logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    else
        logrep_struct_set_null(t, logrep_struct_field(t, "Name"));
    if (id)
        logrep_struct_set_uuid(t, logrep_struct_field(t, "TopicId"), id);
    return call(w, 1, m);
}

static void topic_id(net *w, const char *name, uint8_t id[16])
{
    logrep_msg *r = metadata12(w, name, NULL);
    logrep_struct *t = elem(logrep_msg_root(r), "Topics", 0);
    cr_assert_eq(fint(t, "ErrorCode"), 0);
    memcpy(id, logrep_struct_uuid(t, logrep_struct_field(t, "TopicId")), 16);
    logrep_msg_free(r);
}

Test(wire, metadata_by_topic_id, .timeout = 60)
{
    net w;
    one_node(&w);
    create(&w, "byid");
    uint8_t id[16];
    topic_id(&w, "byid", id);
    logrep_msg *r = metadata12(&w, NULL, id);
    logrep_struct *t = elem(logrep_msg_root(r), "Topics", 0);
    cr_assert_eq(fint(t, "ErrorCode"), 0);
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(t, logrep_struct_field(t, "Name"), &p, &len);
    cr_assert_eq(len, 4);
    cr_assert_arr_eq(p, "byid", 4);
    cr_assert_eq(logrep_struct_count(t, logrep_struct_field(t, "Partitions")), 1);
    logrep_msg_free(r);

    uint8_t unknown[16] = {9, 9, 9};
    r = metadata12(&w, NULL, unknown);
    t = elem(logrep_msg_root(r), "Topics", 0);
    cr_assert_eq(fint(t, "ErrorCode"), LOGREP_ERR_UNKNOWN_TOPIC_ID);
    cr_assert(logrep_struct_is_null(t, logrep_struct_field(t, "Name")));
    cr_assert_arr_eq(logrep_struct_uuid(t, logrep_struct_field(t, "TopicId")), unknown, 16);
    logrep_msg_free(r);
    teardown(&w);
}

/* Metadata v0 had no null topic list: an empty one means every topic. */
Test(wire, metadata_v0_empty_means_all, .timeout = 60)
{
    net w;
    one_node(&w);
    create(&w, "one");
    create(&w, "two");
    logrep_msg *m = req(LOGREP_API_METADATA, 0);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 0);
    logrep_msg *r = call(&w, 1, m);
    cr_assert_eq(logrep_struct_count(logrep_msg_root(r),
                                     logrep_struct_field(logrep_msg_root(r), "Topics")), 2);
    logrep_msg_free(r);
    /* v1 and later: empty is none. */
    m = req(LOGREP_API_METADATA, 1);
    root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 0);
    r = call(&w, 1, m);
    cr_assert_eq(logrep_struct_count(logrep_msg_root(r),
                                     logrep_struct_field(logrep_msg_root(r), "Topics")), 0);
    logrep_msg_free(r);
    teardown(&w);
}

static int16_t delete_by_id(net *w, const uint8_t id[16], const char *name)
{
    logrep_msg *m = req(LOGREP_API_DELETE_TOPICS, 6);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    if (name)
        logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    else
        logrep_struct_set_null(t, logrep_struct_field(t, "Name"));
    logrep_struct_set_uuid(t, logrep_struct_field(t, "TopicId"), id);
    logrep_msg *r = call(w, 1, m);
    int16_t e = (int16_t)fint(elem(logrep_msg_root(r), "Responses", 0), "ErrorCode");
    logrep_msg_free(r);
    return e;
}

Test(wire, delete_topics_by_id, .timeout = 60)
{
    net w;
    one_node(&w);
    create(&w, "doomed");
    uint8_t id[16];
    topic_id(&w, "doomed", id);
    cr_assert_eq(delete_by_id(&w, id, "doomed"), LOGREP_ERR_INVALID_REQUEST);
    uint8_t unknown[16] = {7, 7};
    cr_assert_eq(delete_by_id(&w, unknown, NULL), LOGREP_ERR_UNKNOWN_TOPIC_ID);
    cr_assert_eq(delete_by_id(&w, id, NULL), 0);
    run(&w, 500);
    logrep_msg *r = metadata12(&w, NULL, id);
    cr_assert_eq(fint(elem(logrep_msg_root(r), "Topics", 0), "ErrorCode"),
                 LOGREP_ERR_UNKNOWN_TOPIC_ID);
    logrep_msg_free(r);
    teardown(&w);
}

/* ListOffsets v9 at one special timestamp: error, offset. */
static int16_t list_offsets(net *w, const char *topic, int64_t ts, int64_t *off)
{
    logrep_msg *m = req(LOGREP_API_LIST_OFFSETS, 9);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionIndex"), 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "CurrentLeaderEpoch"), -1);
    logrep_struct_set_int(p, logrep_struct_field(p, "Timestamp"), ts);
    logrep_msg *r = call(w, 1, m);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Topics", 0), "Partitions", 0);
    int16_t e = (int16_t)fint(rp, "ErrorCode");
    *off = fint(rp, "Offset");
    logrep_msg_free(r);
    return e;
}

Test(wire, list_offsets_tiered_timestamps, .timeout = 60)
{
    net w;
    one_node(&w);
    create(&w, "lo");
    int64_t off = 99;
    cr_assert_eq(list_offsets(&w, "lo", -4, &off), 0);
    cr_assert_eq(off, 0, "earliest-local is the log start");
    cr_assert_eq(list_offsets(&w, "lo", -5, &off), 0);
    cr_assert_eq(off, -1, "latest-tiered: nothing is tiered");
    cr_assert_eq(list_offsets(&w, "lo", -2, &off), 0);
    cr_assert_eq(off, 0);
    teardown(&w);
}

/* A consumer Fetch of topic/0 at offset 0; returns the top-level error
 * and the partition's. */
static int16_t fetch(net *w, int to, int version, const char *topic, int32_t session_id,
                     int32_t session_epoch, int16_t *part_err)
{
    logrep_msg *m = req(LOGREP_API_FETCH, version);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), 0);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_int(root, logrep_struct_field(root, "SessionId"), session_id);
    logrep_struct_set_int(root, logrep_struct_field(root, "SessionEpoch"), session_epoch);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Partition"), 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "CurrentLeaderEpoch"), -1);
    logrep_struct_set_int(p, logrep_struct_field(p, "FetchOffset"), 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
    logrep_msg *r = call(w, to, m);
    logrep_struct *rs = logrep_msg_root(r);
    int16_t top = (int16_t)fint(rs, "ErrorCode");
    *part_err = -1;
    if (logrep_struct_count(rs, logrep_struct_field(rs, "Responses")) > 0)
        *part_err = (int16_t)fint(elem(elem(rs, "Responses", 0), "Partitions", 0), "ErrorCode");
    if (top)
        cr_assert_eq(fint(rs, "SessionId"), 0);
    logrep_msg_free(r);
    return top;
}

/* No fetch session is ever created (SessionId 0 answers every full
 * fetch), so an incremental fetch names an unknown session. */
Test(wire, fetch_session_not_found, .timeout = 60)
{
    net w;
    one_node(&w);
    create(&w, "fs");
    int16_t pe;
    cr_assert_eq(fetch(&w, 1, 11, "fs", 12345, 3, &pe), LOGREP_ERR_FETCH_SESSION_ID_NOT_FOUND);
    cr_assert_eq(pe, -1, "no partitions in the answer");
    cr_assert_eq(fetch(&w, 1, 11, "fs", 0, 1, &pe), LOGREP_ERR_FETCH_SESSION_ID_NOT_FOUND);
    cr_assert_eq(fetch(&w, 1, 11, "fs", 0, 0, &pe), 0);
    cr_assert_eq(pe, 0);
    cr_assert_eq(fetch(&w, 1, 11, "fs", 12345, -1, &pe), 0);
    cr_assert_eq(pe, 0);
    teardown(&w);
}

/* Reading from a follower came with Fetch v11 (KIP-392): below it a
 * follower answers NOT_LEADER_OR_FOLLOWER. */
Test(wire, follower_fetch_needs_v11, .timeout = 60)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    logrep_msg *m = req(LOGREP_API_CREATE_TOPICS, 5);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "ff", 2);
    logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), 1);
    logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), 3);
    logrep_msg_free(call(&w, 1, m));
    run(&w, 1000);
    m = req(LOGREP_API_METADATA, 9);
    root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "ff", 2);
    logrep_msg *r = call(&w, 1, m);
    int leader = (int)fint(elem(elem(logrep_msg_root(r), "Topics", 0), "Partitions", 0), "LeaderId");
    logrep_msg_free(r);
    cr_assert(leader >= 1 && leader <= 3);
    int follower = leader % 3 + 1;
    int16_t pe;
    cr_assert_eq(fetch(&w, follower, 10, "ff", 0, -1, &pe), 0);
    cr_assert_eq(pe, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(fetch(&w, follower, 11, "ff", 0, -1, &pe), 0);
    cr_assert_eq(pe, 0);
    cr_assert_eq(fetch(&w, leader, 10, "ff", 0, -1, &pe), 0);
    cr_assert_eq(pe, 0);
    teardown(&w);
}
