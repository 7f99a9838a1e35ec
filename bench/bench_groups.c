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
 * LOGREP_BENCH_WINDOW (requests in flight, default 5) change the load. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "bench.h"
#include "group/records.h"
#include "logrep.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "logrep/storage.h"
#include "sim/memnet.h"

#define NN 3
#define CLIENT (-1)
#define NPARTS 100  /* partitions per OffsetCommit, and of the committed topic */
#define NMEMBERS 100
#define SLICES 7
#define OFFSETS_TOPIC "__consumer_offsets"

typedef lr_memnet_msg frame;

typedef struct cluster {
    logrep_node *node[NN + 1];
    logrep_storage *st[NN + 1];
    lr_memnet *net;
    int64_t now;
    uint64_t adm[NN + 1]; /* the bench's request connection to each node */
} cluster;

static cluster W;
static char root[] = "/tmp/logrep-bench-groups-XXXXXX";
static int clusters; /* each cluster gets a directory of its own */
static logrep_msg *M, *R;
static int32_t corr;
static int window = 5;

static void die(const char *what)
{
    fprintf(stderr, "bench_groups: %s (virtual time %lld)\n", what, (long long)W.now);
    bench_rm_rf(root);
    exit(1);
}

static logrep_err net_read_file(void *ctx, int32_t from, const logrep_seg *seg, void *buf)
{
    (void)ctx;
    (void)from;
    if (pread((int)seg->file, buf, (size_t)seg->len, (off_t)seg->pos) != (ssize_t)seg->len)
        die("pread of a file segment failed");
    return LOGREP_OK;
}

static int pump(void)
{
    return (int)lr_memnet_pump(W.net, W.now, 0);
}

static double in_nodes; /* seconds spent delivering to and ticking the nodes */

/* Delivers what is queued, or else lets 1 ms pass. */
static void step(void)
{
    double t = bench_now();
    if (!pump()) {
        W.now += 1;
        for (int i = 1; i <= NN; i++)
            if (W.node[i])
                logrep_node_tick(W.node[i], W.now);
        pump();
    }
    in_nodes += bench_now() - t;
}

static void run_ms(int64_t ms)
{
    int64_t end = W.now + ms;
    while (W.now < end)
        step();
}

static void start(const char *initial_delay)
{
    memset(&W, 0, sizeof W);
    W.now = 1000;
    lr_memnet_conf nc = {.max_node = NN, .read_file = net_read_file};
    if (lr_memnet_new(&nc, &W.net) != LOGREP_OK)
        die("memnet: out of memory");
    clusters++;
    for (int id = 1; id <= NN; id++) {
        logrep_storage_posix_new(NULL, &W.st[id]);
        logrep_conf *c = logrep_conf_new();
        bench_cluster_conf(c, id);
        char buf[256];
        logrep_conf_set(c, "group.initial.rebalance.delay.ms", initial_delay, NULL, 0);
        snprintf(buf, sizeof buf, "%s/c%d-n%d", root, clusters, id);
        logrep_conf_set(c, "log.dirs", buf, NULL, 0);
        char err[200];
        if (logrep_node_new(c, W.st[id], lr_memnet_transport(W.net, id), W.now, err, sizeof err,
                            &W.node[id])) {
            fprintf(stderr, "node %d: %s\n", id, err);
            exit(1);
        }
        lr_memnet_set_node(W.net, id, W.node[id]);
        logrep_conf_free(c);
    }
    run_ms(3000);
}

static void stop(void)
{
    for (int id = 1; id <= NN; id++) {
        logrep_node_free(W.node[id], 0);
        logrep_storage_free(W.st[id]);
    }
    lr_memnet_free(W.net);
    W.net = NULL;
}

static void kill_node(int id)
{
    logrep_node_free(W.node[id], 1);
    W.node[id] = NULL;
    lr_memnet_set_node(W.net, id, NULL); /* its peers see its connections close */
    W.adm[id] = 0;
}

/* ------------------------------------------------------------ requests */

static uint64_t open_pair(int to)
{
    uint64_t c;
    if (lr_memnet_open(W.net, CLIENT, to, &c) != LOGREP_OK)
        die("out of connections");
    return c;
}

static logrep_struct *el(logrep_struct *s, const char *n, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, n), i);
}

static void seti(logrep_struct *s, const char *n, int64_t v)
{
    logrep_struct_set_int(s, logrep_struct_field(s, n), v);
}

static void sets(logrep_struct *s, const char *n, const char *v)
{
    logrep_struct_set_bytes(s, logrep_struct_field(s, n), v, (int32_t)strlen(v));
}

static void setcount(logrep_struct *s, const char *n, int32_t k)
{
    logrep_struct_set_count(s, logrep_struct_field(s, n), k);
}

static int64_t fi(logrep_struct *s, const char *n)
{
    return logrep_struct_int(s, logrep_struct_field(s, n));
}

static int32_t fcount(logrep_struct *s, const char *n)
{
    return logrep_struct_count(s, logrep_struct_field(s, n));
}

/* Field n of s into out (at most size-1 bytes). */
static void fstr(logrep_struct *s, const char *n, char *out, size_t size)
{
    const uint8_t *p;
    int32_t len;
    out[0] = 0;
    if (logrep_struct_bytes(s, logrep_struct_field(s, n), &p, &len) == 0 && len > 0 &&
        (size_t)len < size) {
        memcpy(out, p, (size_t)len);
        out[len] = 0;
    }
}

static logrep_struct *req(int api, int version)
{
    logrep_msg_init_request(M, api, version, ++corr, "bench");
    return logrep_msg_root(M);
}

static void send_on(uint64_t c)
{
    const uint8_t *buf;
    size_t len;
    if (logrep_msg_encode_flat(M, &buf, &len))
        die(logrep_msg_errmsg(M));
    logrep_seg s = {buf, len, -1, 0};
    if (lr_memnet_send(W.net, CLIENT, c, &s, 1) != LOGREP_OK)
        die("send: connection closed");
}

/* Decodes frame f (freed) into R. */
static void decode(frame *f, int api, int version)
{
    static uint8_t keep[4 << 20]; /* R borrows the bytes */
    if (f->len > sizeof keep)
        die("response too large");
    memcpy(keep, f->data, f->len);
    size_t len = f->len;
    lr_memnet_msg_free(W.net, f);
    if (logrep_msg_decode_response(R, api, version, keep, len))
        die(logrep_msg_errmsg(R));
}

/* Waits (stepping the cluster) for the next response on c into R. */
static logrep_struct *await(uint64_t c, int api, int version)
{
    int64_t give_up = W.now + 120000;
    while (W.now < give_up) {
        frame *f = lr_memnet_inbox_take(W.net, c);
        if (f) {
            decode(f, api, version);
            return logrep_msg_root(R);
        }
        step();
    }
    char what[64];
    snprintf(what, sizeof what, "no answer to API %d in 120 s", api);
    die(what);
    return NULL;
}

/* Sends M to node `to` on the bench's connection and waits for the answer. */
static logrep_struct *call(int to, int api, int version)
{
    if (!W.adm[to])
        W.adm[to] = open_pair(to);
    send_on(W.adm[to]);
    return await(W.adm[to], api, version);
}

static void create_topic(const char *name, int parts, int rf)
{
    logrep_struct *r = req(LOGREP_API_CREATE_TOPICS, 5);
    seti(r, "timeoutMs", 600000);
    setcount(r, "Topics", 1);
    logrep_struct *t = el(r, "Topics", 0);
    sets(t, "Name", name);
    seti(t, "NumPartitions", parts);
    seti(t, "ReplicationFactor", rf);
    int64_t e = fi(el(call(1, LOGREP_API_CREATE_TOPICS, 5), "Topics", 0), "ErrorCode");
    if (e)
        die(logrep_err_name((int)e));
    run_ms(2000);
}

static int leader_of(const char *name, int partition)
{
    logrep_struct *r = req(LOGREP_API_METADATA, 9);
    setcount(r, "Topics", 1);
    sets(el(r, "Topics", 0), "Name", name);
    logrep_struct *t0 = el(call(1, LOGREP_API_METADATA, 9), "Topics", 0);
    for (int32_t i = 0; i < fcount(t0, "Partitions"); i++) {
        logrep_struct *p = el(t0, "Partitions", i);
        if (fi(p, "PartitionIndex") == partition)
            return (int)fi(p, "LeaderId");
    }
    return -1;
}

/* FindCoordinator v4 for g, asked of node `ask`: the node id, or -1 with
 * *err set. */
static int32_t find_coordinator(int ask, const char *g, int64_t *err)
{
    logrep_struct *r = req(LOGREP_API_FIND_COORDINATOR, 4);
    int fk = logrep_struct_field(r, "CoordinatorKeys");
    logrep_struct_set_count(r, fk, 1);
    logrep_struct_set_elem_bytes(r, fk, 0, g, (int32_t)strlen(g));
    logrep_struct *ce = el(call(ask, LOGREP_API_FIND_COORDINATOR, 4), "Coordinators", 0);
    *err = fi(ce, "ErrorCode");
    return *err ? -1 : (int32_t)fi(ce, "NodeId");
}

/* OffsetFetch v8 of every partition of g from node `to`: the group's
 * error; out[i] the committed offset of (orders, i), -1 when none. */
static int64_t fetch_offsets(int to, const char *g, int64_t *out)
{
    logrep_struct *r = req(LOGREP_API_OFFSET_FETCH, 8);
    setcount(r, "Groups", 1);
    logrep_struct *gr = el(r, "Groups", 0);
    sets(gr, "GroupId", g);
    logrep_struct_set_null(gr, logrep_struct_field(gr, "Topics"));
    logrep_struct *ge = el(call(to, LOGREP_API_OFFSET_FETCH, 8), "Groups", 0);
    for (int i = 0; i < NPARTS; i++)
        out[i] = -1;
    for (int32_t i = 0; i < fcount(ge, "Topics"); i++) {
        logrep_struct *t = el(ge, "Topics", i);
        char name[64];
        fstr(t, "Name", name, sizeof name);
        if (strcmp(name, "orders"))
            continue;
        for (int32_t j = 0; j < fcount(t, "Partitions"); j++) {
            logrep_struct *p = el(t, "Partitions", j);
            int64_t k = fi(p, "PartitionIndex");
            if (k >= 0 && k < NPARTS && fi(p, "ErrorCode") == 0)
                out[k] = fi(p, "CommittedOffset");
        }
    }
    return fi(ge, "ErrorCode");
}

/* The coordinator of g once it is named and its partition loaded. */
static int ready_coordinator(const char *g)
{
    int64_t e, offs[NPARTS];
    for (int i = 0; i < 200; i++) {
        int32_t c = find_coordinator(1, g, &e);
        if (c > 0 && fetch_offsets(c, g, offs) == 0)
            return c;
        run_ms(100);
    }
    die("no coordinator");
    return -1;
}

/* The leader-side sum of the offsets partitions' log end offsets. */
static int64_t offsets_log_end(void)
{
    int64_t sum = 0;
    for (int id = 1; id <= NN; id++) {
        if (!W.node[id])
            continue;
        for (size_t i = 0; i < logrep_node_partition_count(W.node[id]); i++) {
            logrep_partition_info pi;
            if (logrep_node_partition(W.node[id], i, &pi) == LOGREP_OK && pi.role == 1 &&
                !strcmp(pi.topic, OFFSETS_TOPIC))
                sum += pi.log_end_offset;
        }
    }
    return sum;
}

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
