/* The group coordinator served by nodes over the wire: FindCoordinator
 * creating the offsets topic, a member's JoinGroup (with the
 * MEMBER_ID_REQUIRED round trip), SyncGroup, Heartbeat, commits answered
 * once committed, OffsetFetch, ListGroups, DescribeGroups, LeaveGroup,
 * DeleteGroups, offsets surviving a restart of the coordinator's node,
 * and the errors Kafka gives for each. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"
#include <logrep/groups.h>

static const char *const group_conf[] = {
    "offsets.topic.num.partitions", "3", "group.initial.rebalance.delay.ms", "0",
    "offsets.topic.replication.factor", "3", NULL};

static logrep_msg *req(int api, int version)
{
    logrep_msg *m;
    cr_assert_eq(logrep_msg_new(NULL, &m), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 7, "tester"), LOGREP_OK);
    return m;
}

static void set_str(logrep_struct *s, const char *f, const char *v)
{
    logrep_struct_set_bytes(s, logrep_struct_field(s, f), v, (int32_t)strlen(v));
}

static logrep_struct *sub(logrep_struct *s, const char *f, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, f), i);
}

/* Sends m to node `to` and decodes the answer into r (asserting one). */
static logrep_struct *call(net *w, int to, logrep_msg *m, logrep_msg *r, int64_t max_ms)
{
    uint64_t c = client_send(w, to, m);
    client_wait(w, c, logrep_msg_api_key(m), logrep_msg_version(m), r, max_ms);
    logrep_msg_free(m);
    return logrep_msg_root(r);
}

static int str_eq(logrep_struct *s, const char *f, const char *v)
{
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(s, logrep_struct_field(s, f), &p, &len);
    return len == (int32_t)strlen(v) && (len == 0 || memcmp(p, v, (size_t)len) == 0);
}

/* FindCoordinator v4 for g until it names a node (the first asks create
 * the offsets topic). */
static int32_t coordinator(net *w, const char *g)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    for (int i = 0; i < 50; i++) {
        logrep_msg *m = req(LOGREP_API_FIND_COORDINATOR, 4);
        logrep_struct *q = logrep_msg_root(m);
        int fk = logrep_struct_field(q, "CoordinatorKeys");
        logrep_struct_set_count(q, fk, 1);
        logrep_struct_set_elem_bytes(q, fk, 0, g, (int32_t)strlen(g));
        logrep_struct *ce = sub(call(w, 1, m, r, 1000), "Coordinators", 0);
        if (fint(ce, "ErrorCode") == 0) {
            int32_t id = (int32_t)fint(ce, "NodeId");
            logrep_msg_free(r);
            return id;
        }
        cr_assert_eq(fint(ce, "ErrorCode"), LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
        run(w, 200);
    }
    cr_assert_fail("no coordinator for %s", g);
    return -1;
}

static logrep_msg *join_req(const char *member, int version)
{
    logrep_msg *m = req(LOGREP_API_JOIN_GROUP, version);
    logrep_struct *q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "SessionTimeoutMs"), 10000);
    logrep_struct_set_int(q, logrep_struct_field(q, "RebalanceTimeoutMs"), 10000);
    set_str(q, "MemberId", member);
    set_str(q, "ProtocolType", "consumer");
    logrep_struct_set_count(q, logrep_struct_field(q, "Protocols"), 1);
    logrep_struct *p = sub(q, "Protocols", 0);
    set_str(p, "Name", "range");
    logrep_struct_set_bytes(p, logrep_struct_field(p, "Metadata"), "\0\0\0\0\0\0", 6);
    return m;
}

static logrep_msg *commit_req(const char *member, int32_t gen, const char *topic, int64_t off)
{
    logrep_msg *m = req(LOGREP_API_OFFSET_COMMIT, 8);
    logrep_struct *q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "GenerationIdOrMemberEpoch"), gen);
    set_str(q, "MemberId", member);
    logrep_struct_set_count(q, logrep_struct_field(q, "Topics"), 1);
    logrep_struct *t = sub(q, "Topics", 0);
    set_str(t, "Name", topic);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 2);
    for (int32_t i = 0; i < 2; i++) {
        logrep_struct *p = sub(t, "Partitions", i);
        logrep_struct_set_int(p, logrep_struct_field(p, "PartitionIndex"), i);
        logrep_struct_set_int(p, logrep_struct_field(p, "CommittedOffset"), off + i);
        set_str(p, "CommittedMetadata", "meta");
    }
    return m;
}

/* OffsetFetch v8 of g1, every partition: offset of (topic, partition) or
 * -2 when absent; *err the group's error. */
static int64_t fetched(net *w, int to, const char *topic, int32_t part, int64_t *err)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    logrep_msg *m = req(LOGREP_API_OFFSET_FETCH, 8);
    logrep_struct *q = logrep_msg_root(m);
    logrep_struct_set_count(q, logrep_struct_field(q, "Groups"), 1);
    logrep_struct *g = sub(q, "Groups", 0);
    set_str(g, "GroupId", "g1");
    logrep_struct_set_null(g, logrep_struct_field(g, "Topics"));
    logrep_struct *ge = sub(call(w, to, m, r, 1000), "Groups", 0);
    *err = fint(ge, "ErrorCode");
    int64_t off = -2;
    int ft = logrep_struct_field(ge, "Topics");
    for (int32_t i = 0; i < logrep_struct_count(ge, ft); i++) {
        logrep_struct *t = logrep_struct_elem(ge, ft, i);
        if (!str_eq(t, "Name", topic))
            continue;
        int fp = logrep_struct_field(t, "Partitions");
        for (int32_t j = 0; j < logrep_struct_count(t, fp); j++) {
            logrep_struct *p = logrep_struct_elem(t, fp, j);
            if (fint(p, "PartitionIndex") == part) {
                off = fint(p, "CommittedOffset");
                cr_assert(str_eq(p, "Metadata", "meta"));
            }
        }
    }
    logrep_msg_free(r);
    return off;
}

Test(node_groups, member_lifecycle_and_offsets_survive_restart, .timeout = 120)
{
    extra_conf = group_conf;
    net w;
    setup(&w, 1);
    run(&w, 1000);
    create_topic(&w, 1, "t", 2, w.n);
    run(&w, 1500);
    int32_t coord = coordinator(&w, "g1");
    cr_assert_eq(coord, 1);
    run(&w, 500); /* the offsets partition loads */

    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    /* v4+: an unknown member first gets its id with MEMBER_ID_REQUIRED. */
    logrep_struct *rs = call(&w, 1, join_req("", 6), r, 2000);
    cr_assert_eq(fint(rs, "ErrorCode"), LOGREP_ERR_MEMBER_ID_REQUIRED);
    const uint8_t *mid;
    int32_t mlen;
    logrep_struct_bytes(rs, logrep_struct_field(rs, "MemberId"), &mid, &mlen);
    cr_assert_gt(mlen, 0);
    char member[128];
    memcpy(member, mid, (size_t)mlen);
    member[mlen] = 0;
    rs = call(&w, 1, join_req(member, 6), r, 5000);
    cr_assert_eq(fint(rs, "ErrorCode"), 0);
    int32_t gen = (int32_t)fint(rs, "GenerationId");
    cr_assert_eq(gen, 1);
    cr_assert(str_eq(rs, "Leader", member));
    cr_assert(str_eq(rs, "ProtocolName", "range"));
    cr_assert_eq(logrep_struct_count(rs, logrep_struct_field(rs, "Members")), 1);

    logrep_msg *m = req(LOGREP_API_SYNC_GROUP, 5);
    logrep_struct *q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "GenerationId"), gen);
    set_str(q, "MemberId", member);
    set_str(q, "ProtocolType", "consumer");
    set_str(q, "ProtocolName", "range");
    logrep_struct_set_count(q, logrep_struct_field(q, "Assignments"), 1);
    logrep_struct *a = sub(q, "Assignments", 0);
    set_str(a, "MemberId", member);
    logrep_struct_set_bytes(a, logrep_struct_field(a, "Assignment"), "ASSIGN", 6);
    rs = call(&w, 1, m, r, 5000);
    cr_assert_eq(fint(rs, "ErrorCode"), 0);
    cr_assert(str_eq(rs, "Assignment", "ASSIGN"));

    m = req(LOGREP_API_HEARTBEAT, 4);
    q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "GenerationId"), gen);
    set_str(q, "MemberId", member);
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"), 0);
    m = req(LOGREP_API_HEARTBEAT, 4);
    q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "GenerationId"), gen + 5);
    set_str(q, "MemberId", member);
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"), LOGREP_ERR_ILLEGAL_GENERATION);

    /* A commit is answered once stored; a stale generation is refused. */
    rs = call(&w, 1, commit_req(member, gen, "t", 42), r, 5000);
    logrep_struct *tp = sub(sub(rs, "Topics", 0), "Partitions", 1);
    cr_assert_eq(fint(tp, "ErrorCode"), 0);
    rs = call(&w, 1, commit_req(member, gen - 1, "t", 7), r, 5000);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"),
                 LOGREP_ERR_ILLEGAL_GENERATION);
    rs = call(&w, 1, commit_req(member, gen, "no-such-topic", 7), r, 5000);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    int64_t e;
    cr_assert_eq(fetched(&w, 1, "t", 0, &e), 42);
    cr_assert_eq(e, 0);
    cr_assert_eq(fetched(&w, 1, "t", 1, &e), 43);
    cr_assert_eq(fetched(&w, 1, "no-such-topic", 0, &e), -2);

    /* DescribeGroups and ListGroups see the stable group. */
    m = req(LOGREP_API_DESCRIBE_GROUPS, 5);
    q = logrep_msg_root(m);
    logrep_struct_set_count(q, logrep_struct_field(q, "Groups"), 1);
    logrep_struct_set_elem_bytes(q, logrep_struct_field(q, "Groups"), 0, "g1", 2);
    logrep_struct *dg = sub(call(&w, 1, m, r, 1000), "Groups", 0);
    cr_assert_eq(fint(dg, "ErrorCode"), 0);
    cr_assert(str_eq(dg, "GroupState", "Stable"));
    cr_assert(str_eq(dg, "ProtocolData", "range"));
    logrep_struct *dm = sub(dg, "Members", 0);
    cr_assert(str_eq(dm, "MemberId", member));
    cr_assert(str_eq(dm, "ClientId", "tester"));
    cr_assert(str_eq(dm, "MemberAssignment", "ASSIGN"));
    m = req(LOGREP_API_LIST_GROUPS, 4);
    rs = call(&w, 1, m, r, 1000);
    cr_assert_eq(logrep_struct_count(rs, logrep_struct_field(rs, "Groups")), 1);
    cr_assert(str_eq(sub(rs, "Groups", 0), "GroupState", "Stable"));

    /* A group with members cannot be deleted. */
    m = req(LOGREP_API_DELETE_GROUPS, 2);
    q = logrep_msg_root(m);
    logrep_struct_set_count(q, logrep_struct_field(q, "GroupsNames"), 2);
    logrep_struct_set_elem_bytes(q, logrep_struct_field(q, "GroupsNames"), 0, "g1", 2);
    logrep_struct_set_elem_bytes(q, logrep_struct_field(q, "GroupsNames"), 1, "nope", 4);
    rs = call(&w, 1, m, r, 2000);
    cr_assert_eq(fint(sub(rs, "Results", 0), "ErrorCode"), LOGREP_ERR_NON_EMPTY_GROUP);
    cr_assert_eq(fint(sub(rs, "Results", 1), "ErrorCode"), LOGREP_ERR_GROUP_ID_NOT_FOUND);

    /* Offsets are replayed from the log by the restarted coordinator. */
    kill_node(&w, 1);
    start_node(&w, 1);
    run(&w, 3000);
    cr_assert_eq(coordinator(&w, "g1"), 1);
    run(&w, 500);
    cr_assert_eq(fetched(&w, 1, "t", 0, &e), 42);
    cr_assert_eq(fetched(&w, 1, "t", 1, &e), 43);

    /* OffsetDelete: the member subscribes to no topic, so t's offsets may
     * go; an unknown topic is refused. */
    m = req(LOGREP_API_OFFSET_DELETE, 0);
    q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    logrep_struct_set_count(q, logrep_struct_field(q, "Topics"), 2);
    const char *names[2] = {"t", "gone"};
    for (int32_t i = 0; i < 2; i++) {
        logrep_struct *t = sub(q, "Topics", i);
        set_str(t, "Name", names[i]);
        logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
        logrep_struct *p = sub(t, "Partitions", 0);
        logrep_struct_set_int(p, logrep_struct_field(p, "PartitionIndex"), 1);
    }
    rs = call(&w, 1, m, r, 2000);
    cr_assert_eq(fint(rs, "ErrorCode"), 0);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"), 0);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 1), "Partitions", 0), "ErrorCode"),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(fetched(&w, 1, "t", 1, &e), -2);
    cr_assert_eq(fetched(&w, 1, "t", 0, &e), 42);

    /* Only the coordinator writes the offsets topic. */
    m = req(LOGREP_API_PRODUCE, 9);
    q = logrep_msg_root(m);
    logrep_struct_set_int(q, logrep_struct_field(q, "Acks"), 1);
    logrep_struct_set_int(q, logrep_struct_field(q, "TimeoutMs"), 1000);
    logrep_struct_set_count(q, logrep_struct_field(q, "TopicData"), 1);
    logrep_struct *td = sub(q, "TopicData", 0);
    set_str(td, "Name", "__consumer_offsets");
    logrep_struct_set_count(td, logrep_struct_field(td, "PartitionData"), 1);
    logrep_struct *pd = sub(td, "PartitionData", 0);
    logrep_struct_set_int(pd, logrep_struct_field(pd, "Index"), 0);
    logrep_struct_set_bytes(pd, logrep_struct_field(pd, "Records"), "xxxxxxxxxxxxxxxxxxxx", 20);
    rs = call(&w, 1, m, r, 1000);
    cr_assert_eq(fint(sub(sub(rs, "Responses", 0), "PartitionResponses", 0), "ErrorCode"),
                 LOGREP_ERR_INVALID_TOPIC_EXCEPTION);

    /* The member's session ended with the restart: the group is empty and
     * can be deleted, its offsets with it. */
    run(&w, 11000);
    m = req(LOGREP_API_DELETE_GROUPS, 2);
    q = logrep_msg_root(m);
    logrep_struct_set_count(q, logrep_struct_field(q, "GroupsNames"), 1);
    logrep_struct_set_elem_bytes(q, logrep_struct_field(q, "GroupsNames"), 0, "g1", 2);
    rs = call(&w, 1, m, r, 2000);
    cr_assert_eq(fint(sub(rs, "Results", 0), "ErrorCode"), 0);
    cr_assert_eq(fetched(&w, 1, "t", 0, &e), -2);
    logrep_msg_free(r);
    teardown(&w);
    extra_conf = NULL;
}

Test(node_groups, coordinator_moves_with_leadership, .timeout = 120)
{
    extra_conf = group_conf;
    net w;
    setup(&w, 3);
    run(&w, 2000);
    create_topic(&w, 1, "t", 2, w.n);
    run(&w, 1500);
    int32_t c1 = coordinator(&w, "g1");
    run(&w, 2000);
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    /* A simple commit (no generation) on the coordinator; others answer
     * NOT_COORDINATOR. */
    int other = c1 == 1 ? 2 : 1;
    logrep_struct *rs = call(&w, other, commit_req("", -1, "t", 100), r, 5000);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"),
                 LOGREP_ERR_NOT_COORDINATOR);
    rs = call(&w, c1, commit_req("", -1, "t", 100), r, 5000);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"), 0);
    /* Its node dies: the offsets partition gets a new leader, which loads
     * the acknowledged commit. */
    kill_node(&w, c1);
    int32_t c2 = -1;
    for (int i = 0; i < 100 && (c2 < 0 || c2 == c1); i++) {
        run(&w, 500);
        int to = c1 == 1 ? 2 : 1;
        logrep_msg *m = req(LOGREP_API_FIND_COORDINATOR, 3);
        set_str(logrep_msg_root(m), "Key", "g1");
        logrep_struct *fr = call(&w, to, m, r, 1000);
        if (fint(fr, "ErrorCode") == 0)
            c2 = (int32_t)fint(fr, "NodeId");
    }
    cr_assert(c2 > 0 && c2 != c1, "coordinator %d after %d died", c2, c1);
    int64_t e = -1, off = -2;
    for (int i = 0; i < 20 && off != 100; i++) {
        run(&w, 200);
        off = fetched(&w, c2, "t", 0, &e);
    }
    cr_assert_eq(off, 100, "group error %lld", (long long)e);
    logrep_msg_free(r);
    teardown(&w);
    extra_conf = NULL;
}

typedef struct seen {
    int calls;
    char state[32];
    int64_t lag, hw;
} seen;

static void on_group(void *ctx, const logrep_group_info *g)
{
    seen *s = ctx;
    s->calls++;
    snprintf(s->state, sizeof s->state, "%s", g->state);
}

static void on_lag(void *ctx, const logrep_group_lag *l)
{
    seen *s = ctx;
    if (strcmp(l->group, "inproc") == 0 && strcmp(l->topic, "t") == 0 && l->partition == 0) {
        s->lag = l->lag;
        s->hw = l->high_watermark;
    }
}

Test(node_groups, in_process_commit_fetch_describe_lag, .timeout = 120)
{
    extra_conf = group_conf;
    net w;
    setup(&w, 1);
    run(&w, 1000);
    create_topic(&w, 1, "t", 2, 1);
    run(&w, 1500);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(produce(&w, 1, "t", 0, "v", -1, NULL), 0);
    /* In process, as FindCoordinator: the first asks create the offsets
     * topic and answer COORDINATOR_NOT_AVAILABLE until it has a leader. */
    logrep_node *n = w.node[1];
    int32_t cid = 5;
    cr_assert_eq(logrep_node_group_coordinator(NULL, "inproc", w.now, &cid), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_node_group_coordinator(n, NULL, w.now, &cid), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_node_group_coordinator(n, "inproc", w.now, NULL), LOGREP_ERR__INVALID_ARG);
    logrep_err ce = logrep_node_group_coordinator(n, "inproc", w.now, &cid);
    cr_assert_eq(ce, LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
    cr_assert_eq(cid, -1);
    for (int i = 0; i < 50 && ce; i++) {
        run(&w, 200);
        ce = logrep_node_group_coordinator(n, "inproc", w.now, &cid);
    }
    cr_assert_eq(ce, LOGREP_OK);
    cr_assert_eq(cid, 1);
    cr_assert_eq(coordinator(&w, "inproc"), 1); /* the wire agrees */
    run(&w, 500);
    logrep_group_offset o[2] = {{"t", 0, 3, -1, "m0", 0}, {"t", 1, 0, 7, NULL, 0}};
    logrep_group_offset bad = {"missing", 0, 1, -1, NULL, 0};
    cr_assert_eq(logrep_node_commit_offsets(n, "inproc", &bad, 1, 9, w.now),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(logrep_node_commit_offsets(n, "inproc", o, 2, 77, w.now), LOGREP_OK);
    logrep_node_event ev;
    int got = 0;
    for (int i = 0; i < 50 && !got; i++) {
        run(&w, 20);
        got = logrep_node_poll(n, &ev);
    }
    cr_assert(got, "the commit completes");
    cr_assert_eq(ev.type, LOGREP_NODE_EV_COMMIT);
    cr_assert_eq(ev.token, 77);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.n_errors, 2);
    cr_assert_eq(ev.errors[0] + ev.errors[1], 0);
    cr_assert_not(logrep_node_poll(n, &ev), "one event per commit");

    logrep_group_offset f[3] = {{"t", 0, 0, 0, NULL, 0}, {"t", 1, 0, 0, NULL, 0},
                                {"other", 0, 0, 0, NULL, 0}};
    cr_assert_eq(logrep_node_fetch_offsets(n, "inproc", f, 3), 0);
    cr_assert_eq(f[0].offset, 3);
    cr_assert_str_eq(f[0].metadata, "m0");
    cr_assert_eq(f[1].offset, 0);
    cr_assert_eq(f[1].leader_epoch, 7);
    cr_assert_eq(f[2].offset, -1);

    seen s = {0, "", -2, -2};
    cr_assert_eq(logrep_node_describe_group(n, "inproc", on_group, &s), 0);
    cr_assert_eq(s.calls, 1);
    cr_assert_str_eq(s.state, "Empty");
    s.calls = 0;
    cr_assert_eq(logrep_node_list_groups(n, on_group, &s), 0);
    cr_assert_eq(s.calls, 1);
    cr_assert_eq(logrep_node_group_lags(n, on_lag, &s), 0);
    cr_assert_eq(s.hw, 5);
    cr_assert_eq(s.lag, 2);

    /* A restart replays the offsets. */
    kill_node(&w, 1);
    start_node(&w, 1);
    run(&w, 3000);
    memset(&f[0], 0, sizeof f[0]);
    f[0].topic = "t";
    int err = LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    for (int i = 0; i < 50 && err; i++) {
        run(&w, 100);
        err = logrep_node_fetch_offsets(w.node[1], "inproc", f, 1);
    }
    cr_assert_eq(err, 0);
    cr_assert_eq(f[0].offset, 3);
    cr_assert_eq(logrep_node_fetch_offsets(w.node[1], NULL, f, 1), LOGREP_ERR__INVALID_ARG);
    teardown(&w);
    extra_conf = NULL;
}

/* Bad input gets Kafka's error codes on the wire, and nothing breaks. */
Test(node_groups, bad_input_gets_kafka_errors, .timeout = 120)
{
    extra_conf = group_conf;
    net w;
    setup(&w, 1);
    run(&w, 1000);
    create_topic(&w, 1, "t", 1, 1);
    run(&w, 1000);
    cr_assert_eq(coordinator(&w, "g1"), 1);
    run(&w, 500);
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    char big[300];
    memset(big, 'g', sizeof big - 1);
    big[sizeof big - 1] = 0;
    logrep_msg *m = join_req("", 6);
    set_str(logrep_msg_root(m), "GroupId", big);
    cr_assert_eq(fint(call(&w, 1, m, r, 2000), "ErrorCode"), LOGREP_ERR_INVALID_GROUP_ID);
    m = join_req("", 6);
    set_str(logrep_msg_root(m), "ProtocolType", "");
    cr_assert_eq(fint(call(&w, 1, m, r, 2000), "ErrorCode"),
                 LOGREP_ERR_INCONSISTENT_GROUP_PROTOCOL);
    m = join_req("", 6);
    logrep_struct *q = logrep_msg_root(m);
    logrep_struct_set_int(q, logrep_struct_field(q, "SessionTimeoutMs"), 10);
    cr_assert_eq(fint(call(&w, 1, m, r, 2000), "ErrorCode"), LOGREP_ERR_INVALID_SESSION_TIMEOUT);
    m = join_req("nobody-knows-me", 6);
    cr_assert_eq(fint(call(&w, 1, m, r, 2000), "ErrorCode"), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    m = req(LOGREP_API_HEARTBEAT, 4);
    q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    set_str(q, "MemberId", "ghost");
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    m = req(LOGREP_API_SYNC_GROUP, 5);
    q = logrep_msg_root(m);
    set_str(q, "GroupId", "g1");
    set_str(q, "MemberId", "ghost");
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    /* Metadata over offset.metadata.max.bytes. */
    char md[5000];
    memset(md, 'm', sizeof md - 1);
    md[sizeof md - 1] = 0;
    m = commit_req("", -1, "t", 1);
    logrep_struct *p = sub(sub(logrep_msg_root(m), "Topics", 0), "Partitions", 0);
    set_str(p, "CommittedMetadata", md);
    logrep_struct *rs = call(&w, 1, m, r, 2000);
    cr_assert_eq(fint(sub(sub(rs, "Topics", 0), "Partitions", 0), "ErrorCode"),
                 LOGREP_ERR_OFFSET_METADATA_TOO_LARGE);
    /* FindCoordinator: transactions are not coordinated here; a bad key
     * type is refused. */
    m = req(LOGREP_API_FIND_COORDINATOR, 3);
    q = logrep_msg_root(m);
    set_str(q, "Key", "txn");
    logrep_struct_set_int(q, logrep_struct_field(q, "KeyType"), 1);
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"),
                 LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
    m = req(LOGREP_API_FIND_COORDINATOR, 3);
    q = logrep_msg_root(m);
    set_str(q, "Key", "g1");
    logrep_struct_set_int(q, logrep_struct_field(q, "KeyType"), 7);
    cr_assert_eq(fint(call(&w, 1, m, r, 1000), "ErrorCode"), LOGREP_ERR_INVALID_REQUEST);
    logrep_msg_free(r);
    teardown(&w);
    extra_conf = NULL;
}
