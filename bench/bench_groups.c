/* Consumer group benchmarks: three nodes in one process over the in-memory
 * transport, POSIX storage in a temporary directory, driven in lockstep by
 * one thread (virtual time advances 1 ms whenever the network is idle).
 * `__consumer_offsets` has its defaults: 50 partitions, RF 3.
 *  - offset commits per second, each OffsetCommit carrying 100 partitions
 *    (a simple group with generation -1, and a joined member), 5 requests
 *    in flight, against acks=all produces of the same record bytes (one
 *    batch of the 100 commit records per request) to a plain RF 3
 *    partition, in slices alternated with the commits (medians; target
 *    >= 0.8x). Beside it the commit records per second the offsets
 *    partitions' log end offsets grew by. Wall clock: in lockstep it is the
 *    CPU time of the three nodes and the bench's client per request; the
 *    nodes' share is printed per request too;
 *  - virtual time for a group of 100 members to stabilize, from the first
 *    JoinGroup until every member's SyncGroup is answered in one
 *    generation, with group.initial.rebalance.delay.ms 3000 and 0, the
 *    members joining at once and 10 ms apart. They behave as Kafka's
 *    consumer does (heartbeat every 3 s, rejoin on REBALANCE_IN_PROGRESS);
 *  - virtual time from killing a group's coordinator node to the first
 *    OffsetFetch on the new coordinator that returns the committed
 *    offsets, with the controller's detection (broker.session.timeout.ms)
 *    and the new leader's load of the offsets partition on the way.
 * LOGREP_BENCH_COMMITS (commits per variant, default 3500) and
 * LOGREP_BENCH_WINDOW (requests in flight, default 5) change the load.
 * The cluster and the bench's requests to it are in groups_cluster.c;
 * here are the members, the loads and the measurements. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "bench.h"
#include "group/records.h"
#include "groups_cluster.h"
#include <logrep.h>

#define NMEMBERS 100
#define SLICES 7

static int window = 5;

/* ------------------------------------------------------------ members */

enum { M_IDLE, M_JOIN, M_SYNC, M_STABLE };

typedef struct gmember {
    uint64_t conn;
    char id[128];
    int state;
    int api, version, busy; /* the request in flight (one at a time) */
    int32_t gen, synced_gen;
    int leader;
    int64_t next_hb;
    long joins;
} gmember;

static const char *group_name;
static int64_t hb_interval = 3000; /* Kafka consumer's heartbeat.interval.ms */

/* The consumer protocol's subscription to `orders` (version 0). */
static const uint8_t subscription[] = {0, 0, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's',
                                       0xff, 0xff, 0xff, 0xff};

static void member_join(gmember *m)
{
    logrep_struct *r = req(LOGREP_API_JOIN_GROUP, 7);
    sets(r, "GroupId", group_name);
    seti(r, "SessionTimeoutMs", 45000);
    seti(r, "RebalanceTimeoutMs", 300000);
    sets(r, "MemberId", m->id);
    sets(r, "ProtocolType", "consumer");
    setcount(r, "Protocols", 1);
    logrep_struct *p = el(r, "Protocols", 0);
    sets(p, "Name", "range");
    logrep_struct_set_bytes(p, logrep_struct_field(p, "Metadata"), subscription,
                            (int32_t)sizeof subscription);
    send_on(m->conn);
    m->api = LOGREP_API_JOIN_GROUP;
    m->version = 7;
    m->busy = 1;
    m->state = M_JOIN;
    m->joins++;
}

/* The consumer protocol's assignment (version 0) of `orders` partitions
 * i, i+n, i+2n... */
static size_t assignment(int i, int n, uint8_t *out)
{
    size_t k = 0;
    int cnt = 0;
    for (int p = i; p < NPARTS; p += n)
        cnt++;
    const uint8_t head[] = {0, 0, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's'};
    memcpy(out, head, sizeof head);
    k = sizeof head;
    out[k++] = 0;
    out[k++] = 0;
    out[k++] = (uint8_t)(cnt >> 8);
    out[k++] = (uint8_t)cnt;
    for (int p = i; p < NPARTS; p += n) {
        out[k++] = 0;
        out[k++] = 0;
        out[k++] = (uint8_t)(p >> 8);
        out[k++] = (uint8_t)p;
    }
    memset(out + k, 0xff, 4); /* no user data */
    return k + 4;
}

/* SyncGroup; the leader assigns from the members of its JoinGroup answer (in R). */
static void member_sync(gmember *m, logrep_struct *join_answer)
{
    char ids[NMEMBERS][128];
    int n = 0;
    if (m->leader)
        for (int32_t i = 0; i < fcount(join_answer, "Members") && n < NMEMBERS; i++)
            fstr(el(join_answer, "Members", i), "MemberId", ids[n++], sizeof ids[0]);
    logrep_struct *r = req(LOGREP_API_SYNC_GROUP, 5);
    sets(r, "GroupId", group_name);
    seti(r, "GenerationId", m->gen);
    sets(r, "MemberId", m->id);
    sets(r, "ProtocolType", "consumer");
    sets(r, "ProtocolName", "range");
    setcount(r, "Assignments", n);
    for (int i = 0; i < n; i++) {
        uint8_t a[512];
        logrep_struct *e = el(r, "Assignments", i);
        sets(e, "MemberId", ids[i]);
        logrep_struct_set_bytes(e, logrep_struct_field(e, "Assignment"), a,
                                (int32_t)assignment(i, n, a));
    }
    send_on(m->conn);
    m->api = LOGREP_API_SYNC_GROUP;
    m->version = 5;
    m->busy = 1;
    m->state = M_SYNC;
}

static void member_heartbeat(gmember *m)
{
    logrep_struct *r = req(LOGREP_API_HEARTBEAT, 4);
    sets(r, "GroupId", group_name);
    seti(r, "GenerationId", m->gen);
    sets(r, "MemberId", m->id);
    send_on(m->conn);
    m->api = LOGREP_API_HEARTBEAT;
    m->version = 4;
    m->busy = 1;
}

static void answer_error(const char *api, int64_t e)
{
    char what[128];
    snprintf(what, sizeof what, "member: %s answered %s", api, logrep_err_name((int)e));
    die(what);
}

/* A member's answer (in R), as Kafka's consumer reacts to it. */
static void member_answer(gmember *m)
{
    logrep_struct *rs = logrep_msg_root(R);
    int64_t e = fi(rs, "ErrorCode");
    m->busy = 0;
    switch (m->api) {
    case LOGREP_API_JOIN_GROUP:
        if (e == LOGREP_ERR_MEMBER_ID_REQUIRED) {
            fstr(rs, "MemberId", m->id, sizeof m->id);
            member_join(m);
        } else if (e == LOGREP_ERR_UNKNOWN_MEMBER_ID) {
            m->id[0] = 0;
            member_join(m);
        } else if (e == LOGREP_ERR_REBALANCE_IN_PROGRESS) {
            member_join(m);
        } else if (e == 0) {
            char leader[128];
            fstr(rs, "MemberId", m->id, sizeof m->id);
            fstr(rs, "Leader", leader, sizeof leader);
            m->gen = (int32_t)fi(rs, "GenerationId");
            m->leader = !strcmp(leader, m->id);
            member_sync(m, rs);
        } else {
            answer_error("JoinGroup", e);
        }
        break;
    case LOGREP_API_SYNC_GROUP:
        if (e == 0) {
            m->state = M_STABLE;
            m->synced_gen = m->gen;
            m->next_hb = W.now + hb_interval;
        } else if (e == LOGREP_ERR_REBALANCE_IN_PROGRESS || e == LOGREP_ERR_ILLEGAL_GENERATION) {
            member_join(m);
        } else if (e == LOGREP_ERR_UNKNOWN_MEMBER_ID) {
            m->id[0] = 0;
            member_join(m);
        } else {
            answer_error("SyncGroup", e);
        }
        break;
    case LOGREP_API_HEARTBEAT:
        if (e == 0) {
            m->next_hb = W.now + hb_interval;
        } else if (e == LOGREP_ERR_REBALANCE_IN_PROGRESS || e == LOGREP_ERR_ILLEGAL_GENERATION) {
            m->synced_gen = -1;
            member_join(m);
        } else if (e == LOGREP_ERR_UNKNOWN_MEMBER_ID) {
            m->synced_gen = -1;
            m->id[0] = 0;
            member_join(m);
        } else {
            answer_error("Heartbeat", e);
        }
        break;
    default:
        break;
    }
}

typedef struct stabilized {
    int64_t ms;     /* virtual, from the first JoinGroup */
    int32_t gen;
    long joins;     /* JoinGroup requests sent */
    double wall;
} stabilized;

/* n members join group g (coordinator `coord`), member i at i * spacing
 * ms; runs until all are stable in one generation. */
static stabilized stabilize(const char *g, int coord, int n, int64_t spacing)
{
    static gmember ms[NMEMBERS];
    memset(ms, 0, sizeof ms);
    group_name = g;
    stabilized res = {0};
    double t0 = bench_now();
    int64_t v0 = W.now;
    int started = 0;
    while (W.now - v0 < 600000) {
        frame *f = lr_memnet_inbox_take(W.net, 0);
        if (f) {
            gmember *m = NULL;
            for (int i = 0; i < n && !m; i++)
                if (ms[i].conn == f->end)
                    m = &ms[i];
            if (!m || !m->busy)
                die("an answer nobody waits for");
            decode(f, m->api, m->version);
            member_answer(m);
            int all = 1;
            for (int i = 0; i < n && all; i++)
                all = ms[i].state == M_STABLE && ms[i].synced_gen == ms[0].synced_gen;
            if (all) {
                res.ms = W.now - v0;
                res.gen = ms[0].synced_gen;
                for (int i = 0; i < n; i++)
                    res.joins += ms[i].joins;
                res.wall = bench_now() - t0;
                return res;
            }
            continue;
        }
        for (; started < n && W.now >= v0 + started * spacing; started++) {
            ms[started].conn = open_pair(coord);
            ms[started].synced_gen = -1;
            member_join(&ms[started]);
        }
        for (int i = 0; i < n; i++)
            if (ms[i].state == M_STABLE && !ms[i].busy && W.now >= ms[i].next_hb)
                member_heartbeat(&ms[i]);
        step();
    }
    die("the group did not stabilize in 600 s");
    return res;
}

/* ------------------------------------------------------------ commits */

typedef struct result {
    double secs, nodes; /* wall clock; of it, inside the nodes */
    long requests;
} result;

static const int32_t leader_epoch = 0;

static void commit_req(const char *g, int32_t gen, const char *member, int64_t base)
{
    logrep_struct *r = req(LOGREP_API_OFFSET_COMMIT, 8);
    sets(r, "GroupId", g);
    seti(r, "GenerationIdOrMemberEpoch", gen);
    sets(r, "MemberId", member);
    setcount(r, "Topics", 1);
    logrep_struct *t = el(r, "Topics", 0);
    sets(t, "Name", "orders");
    setcount(t, "Partitions", NPARTS);
    for (int32_t i = 0; i < NPARTS; i++) {
        logrep_struct *p = el(t, "Partitions", i);
        seti(p, "PartitionIndex", i);
        seti(p, "CommittedOffset", base + i);
        seti(p, "CommittedLeaderEpoch", leader_epoch);
        sets(p, "CommittedMetadata", "");
    }
}

/* A pipelined load: build() fills M with the next request, check() looks
 * at each answer. */
typedef struct load {
    void (*build)(struct load *);
    void (*check)(logrep_struct *);
    int api, version;
    const char *g, *member, *topic;
    int32_t gen;
    int64_t *base;
    logrep_batch_builder *b;
    uint8_t *batch; /* the last produce's records */
    size_t bytes;
} load;

/* `n` requests of l on c, `window` in flight. */
static result pipelined(uint64_t c, long n, load *l)
{
    long sent = 0, done = 0;
    result res = {0};
    double t0 = bench_now(), n0 = in_nodes;
    while (done < n) {
        while (sent < n && sent - done < window) {
            l->build(l);
            send_on(c);
            sent++;
        }
        l->check(await(c, l->api, l->version));
        done++;
    }
    res.secs = bench_now() - t0;
    res.nodes = in_nodes - n0;
    res.requests = n;
    return res;
}

static void commit_build(load *l)
{
    commit_req(l->g, l->gen, l->member, *l->base);
    *l->base += NPARTS;
}

static void commit_check(logrep_struct *rs)
{
    logrep_struct *t = el(rs, "Topics", 0);
    if (fcount(t, "Partitions") != NPARTS)
        die("OffsetCommit: partitions missing from the answer");
    for (int32_t i = 0; i < NPARTS; i++) {
        int64_t e = fi(el(t, "Partitions", i), "ErrorCode");
        if (e)
            answer_error("OffsetCommit", e);
    }
}

/* `n` OffsetCommits of 100 partitions to g's coordinator. */
static result commit_run(int coord, const char *g, int32_t gen, const char *member, long n,
                         int64_t *base)
{
    load l = {.build = commit_build, .check = commit_check, .api = LOGREP_API_OFFSET_COMMIT,
              .version = 8, .g = g, .member = member, .gen = gen, .base = base};
    return pipelined(open_pair(coord), n, &l);
}

/* The batch a commit of g at `base` writes: its 100 offset records. */
static uint8_t *commit_batch(logrep_batch_builder *b, const char *g, int64_t base, size_t *len)
{
    lr_buf k, v;
    lr_buf_init(&k, &lr_alloc_default);
    lr_buf_init(&v, &lr_alloc_default);
    logrep_batch_builder_reset(b);
    for (int32_t i = 0; i < NPARTS; i++) {
        lr_buf_clear(&k);
        lr_buf_clear(&v);
        lr_gr_offset o = {.offset = base + i, .leader_epoch = leader_epoch,
                          .metadata = lr_gr_cstr(""), .commit_ts = W.now, .expire_ts = -1};
        o.version = lr_gr_offset_version(&o);
        if (lr_gr_encode_offset_key(&k, LR_GR_KEY_OFFSET, lr_gr_cstr(g), lr_gr_cstr("orders"), i) ||
            lr_gr_encode_offset(&v, &o) ||
            logrep_batch_builder_add(b, W.now, k.data, (int32_t)k.len, v.data, (int32_t)v.len,
                                     NULL, 0))
            die("building a batch failed");
    }
    lr_buf_free(&k);
    lr_buf_free(&v);
    const uint8_t *p;
    if (logrep_batch_builder_finish(b, &p, len))
        die("building a batch failed");
    uint8_t *out = malloc(*len);
    memcpy(out, p, *len);
    return out;
}

static void produce_build(load *l)
{
    free(l->batch);
    l->batch = commit_batch(l->b, l->g, *l->base, &l->bytes);
    *l->base += NPARTS;
    logrep_struct *r = req(LOGREP_API_PRODUCE, 7);
    seti(r, "Acks", -1);
    seti(r, "TimeoutMs", 30000);
    setcount(r, "TopicData", 1);
    logrep_struct *t = el(r, "TopicData", 0);
    sets(t, "Name", l->topic);
    setcount(t, "PartitionData", 1);
    logrep_struct *p = el(t, "PartitionData", 0);
    seti(p, "Index", 0);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), l->batch, (int32_t)l->bytes);
}

static void produce_check(logrep_struct *rs)
{
    int64_t e = fi(el(el(rs, "Responses", 0), "PartitionResponses", 0), "ErrorCode");
    if (e)
        answer_error("Produce", e);
}

/* `n` acks=all produces of those batches to partition 0 of `topic`. */
static result produce_run(const char *topic, const char *g, long n, int64_t *base, size_t *bytes)
{
    load l = {.build = produce_build, .check = produce_check, .api = LOGREP_API_PRODUCE,
              .version = 7, .g = g, .topic = topic, .base = base};
    logrep_batch_builder_new(NULL, &l.b);
    result res = pipelined(open_pair(leader_of(topic, 0)), n, &l);
    *bytes = l.bytes;
    free(l.batch);
    logrep_batch_builder_free(l.b);
    return res;
}

/* One member joined to g alone: its member id into id, its generation. */
static int32_t join_one(int coord, const char *g, char *id, size_t size)
{
    static gmember m;
    memset(&m, 0, sizeof m);
    group_name = g;
    m.conn = open_pair(coord);
    member_join(&m);
    while (m.state != M_STABLE) {
        await(m.conn, m.api, m.version);
        member_answer(&m);
    }
    snprintf(id, size, "%s", m.id);
    return m.gen;
}

static void heartbeat_one(int coord, const char *g, int32_t gen, const char *id)
{
    logrep_struct *r = req(LOGREP_API_HEARTBEAT, 4);
    sets(r, "GroupId", g);
    seti(r, "GenerationId", gen);
    sets(r, "MemberId", id);
    int64_t e = fi(call(coord, LOGREP_API_HEARTBEAT, 4), "ErrorCode");
    if (e)
        answer_error("Heartbeat", e);
}

static void commits(long n)
{
    create_topic("orders", NPARTS, 1); /* only named by the commits */
    create_topic("plain", 1, 3);
    int cs = ready_coordinator("bench-simple");
    int cm = ready_coordinator("bench-member");
    char member[128];
    int32_t gen = join_one(cm, "bench-member", member, sizeof member);
    double rs[SLICES], rm[SLICES], ps[SLICES], q_s[SLICES], q_m[SLICES];
    result ts = {0}, tm = {0}, tp = {0};
    int64_t base_s = 0, base_m = 0, base_p = 0;
    size_t bytes = 0;
    int64_t end0 = offsets_log_end();
    /* Alternated, so that both see the same load of this shared machine. */
    for (int k = 0; k < SLICES; k++) {
        result s = commit_run(cs, "bench-simple", -1, "", n / SLICES, &base_s);
        result p = produce_run("plain", "bench-simple", n / SLICES, &base_p, &bytes);
        result m = commit_run(cm, "bench-member", gen, member, n / SLICES, &base_m);
        heartbeat_one(cm, "bench-member", gen, member);
        rs[k] = s.requests / s.secs;
        rm[k] = m.requests / m.secs;
        ps[k] = p.requests / p.secs;
        q_s[k] = rs[k] / ps[k];
        q_m[k] = rm[k] / ps[k];
        result *t[3] = {&ts, &tm, &tp}, *r[3] = {&s, &m, &p};
        for (int i = 0; i < 3; i++) {
            t[i]->secs += r[i]->secs;
            t[i]->nodes += r[i]->nodes;
            t[i]->requests += r[i]->requests;
        }
    }
    int64_t written = offsets_log_end() - end0;
    qsort(rs, SLICES, sizeof *rs, bench_cmp_double);
    qsort(rm, SLICES, sizeof *rm, bench_cmp_double);
    qsort(ps, SLICES, sizeof *ps, bench_cmp_double);
    qsort(q_s, SLICES, sizeof *q_s, bench_cmp_double);
    qsort(q_m, SLICES, sizeof *q_m, bench_cmp_double);
    printf("OffsetCommit of %d partitions (one %zu B batch), %d in flight, RF 3, lockstep\n",
           NPARTS, bytes, window);
    bench_report("  commits, simple group (generation -1)", rs[SLICES / 2], "commits/s",
                 q_s[SLICES / 2], "of produce, same bytes", 0.8, 1);
    printf("%-46s %12s %-10s %8s  slices: %.2f..%.2f\n", "", "", "", "", q_s[0], q_s[SLICES - 1]);
    bench_report("  commits, joined member", rm[SLICES / 2], "commits/s", q_m[SLICES / 2],
                 "of produce, same bytes", 0.8, 1);
    printf("%-46s %12s %-10s %8s  slices: %.2f..%.2f\n", "", "", "", "", q_m[0], q_m[SLICES - 1]);
    bench_report("  acks=all produce of the same batches", ps[SLICES / 2], "requests/s", 1,
                 "(the baseline)", 0, 0);
    bench_report("  commit records written", (double)written / (ts.secs + tm.secs), "records/s",
                 (double)written / (double)((ts.requests + tm.requests) * NPARTS),
                 "of partitions committed", 0, 0);
    /* Where the time goes: the nodes (all three) against the bench's own
     * encoding and decoding of requests. */
    double pn = tp.nodes / (double)tp.requests;
    bench_report("  time in the nodes per produce", pn * 1e6, "us",
                 tp.nodes / tp.secs, "of its wall time", 0, 0);
    bench_report("  time in the nodes per commit (simple)", ts.nodes / (double)ts.requests * 1e6,
                 "us", ts.nodes / (double)ts.requests / pn, "of produce's", 0, 0);
    bench_report("  time in the nodes per commit (member)", tm.nodes / (double)tm.requests * 1e6,
                 "us", tm.nodes / (double)tm.requests / pn, "of produce's", 0, 0);
}

/* 100 members of group g stabilizing with this node config's delay,
 * joining at once and then 10 ms apart. */
static void stable_runs(const char *delay, const char *g)
{
    for (int spacing = 0; spacing <= 10; spacing += 10) {
        char id[48];
        snprintf(id, sizeof id, "%s-%d", g, spacing);
        stabilized s = stabilize(id, ready_coordinator(id), NMEMBERS, spacing);
        char name[96];
        snprintf(name, sizeof name, "  initial delay %s ms, joins %s", delay,
                 spacing ? "10 ms apart" : "at once");
        double d = atof(delay);
        if (d > 0)
            bench_report(name, (double)s.ms, "ms virt.", (double)s.ms / d, "of the delay", 0, 0);
        else
            printf("%-46s %12.3f %-10s\n", name, (double)s.ms, "ms virt.");
        printf("%-46s %12s %-10s %8s  generation %d, %ld JoinGroups, %.2f s wall\n", "", "", "",
               "", s.gen, s.joins, s.wall);
    }
}

/* ------------------------------------------------------------ failover */

static void failover(void)
{
    char g[32];
    int coord = -1;
    /* A group coordinated away from node 1, the controller (it has no
     * standby: killing it would stop the cluster). */
    for (int i = 0; i < 200 && (coord < 0 || coord == 1); i++) {
        snprintf(g, sizeof g, "failover-%d", i);
        int64_t e;
        coord = find_coordinator(1, g, &e);
    }
    if (coord <= 1)
        die("no group coordinated by node 2 or 3");
    coord = ready_coordinator(g);
    int64_t base = 1000000;
    commit_run(coord, g, -1, "", 1, &base);
    int64_t offs[NPARTS];
    if (fetch_offsets(coord, g, offs) || offs[NPARTS - 1] != 1000000 + NPARTS - 1)
        die("the committed offsets are not served");
    /* Killed right after the acknowledgement: an acknowledged commit is
     * below the high watermark, so on every replica of the ISR. */
    int64_t t0 = W.now, fenced = -1, named = -1, served = -1;
    long fetches = 0;
    int64_t first_err = -1;
    kill_node(coord);
    while (served < 0 && W.now - t0 < 120000) {
        logrep_node_stats st;
        logrep_node_stats_get(W.node[1], &st);
        if (fenced < 0 && st.fenced_brokers > 0)
            fenced = W.now - t0;
        int64_t e;
        int32_t c = find_coordinator(1, g, &e);
        if (c > 0 && c != coord) {
            if (named < 0)
                named = W.now - t0;
            int64_t fe = fetch_offsets(c, g, offs);
            if (fetches++ == 0)
                first_err = fe;
            if (fe == 0) {
                int ok = 1;
                for (int i = 0; i < NPARTS; i++)
                    ok &= offs[i] == 1000000 + i;
                if (!ok)
                    die("the new coordinator lost committed offsets");
                served = W.now - t0;
                break;
            }
        }
        run_ms(1); /* the client asks every virtual millisecond */
    }
    if (served < 0)
        die("no coordinator served the offsets within 120 s of the kill");
    /* The controller fences a broker broker.session.timeout.ms (9000)
     * after its last heartbeat (every broker.heartbeat.interval.ms, 2000). */
    bench_report("  committed offsets served again", (double)served, "ms virt.",
                 (double)served / 9000.0, "of broker.session.timeout.ms 9000", 0, 0);
    printf("%-46s %12s %-10s %8s  fenced at %lld ms, new coordinator named at %lld ms\n", "", "",
           "", "", (long long)fenced, (long long)named);
    printf("%-46s %12s %-10s %8s  %ld OffsetFetch tries, the first answered %s\n", "", "", "", "",
           fetches, first_err ? logrep_err_name((int)first_err) : "the offsets");
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    logrep_msg_new(NULL, &M);
    logrep_msg_new(NULL, &R);
    const char *e = getenv("LOGREP_BENCH_COMMITS");
    long n = e ? atol(e) : 3500;
    if (n < SLICES)
        n = SLICES;
    e = getenv("LOGREP_BENCH_WINDOW");
    window = e && atoi(e) > 0 ? atoi(e) : window;

    start("3000");
    commits(n);
    printf("Group of %d members: first JoinGroup to all synced in one generation "
           "(virtual time)\n", NMEMBERS);
    stable_runs("3000", "stable");
    stop();

    start("0");
    create_topic("orders", NPARTS, 1); /* the failover's commits name it */
    stable_runs("0", "stable");
    printf("Coordinator failover: kill to offsets served by the new one (virtual time)\n");
    failover();
    stop();

    logrep_msg_free(M);
    logrep_msg_free(R);
    bench_rm_rf(root);
    return 0;
}
