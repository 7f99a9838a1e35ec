/* The controller as a metadata quorum of three voters (docs/quorum.md),
 * on the in-memory network, memory storage, driven in lockstep by one
 * thread: messages are delivered at once and virtual time advances 1 ms
 * whenever the network is idle (every node ticked each millisecond).
 *
 * (a) Failover. Three combined nodes (broker and controller, all voters),
 *     topic "bench" of 12 partitions, RF 3. The active controller, which
 *     also leads about a third of the partitions, is killed at a random
 *     moment; the clock is virtual milliseconds from the kill:
 *       - to a new active controller (its LeaderChange record committed:
 *         the first record of its epoch, before which it acts on nothing);
 *       - to every partition the dead node led having a new leader on a
 *         live node.
 *     Over many seeds (min / median / p99 / max), against
 *     controller.quorum.election.timeout.ms and broker.session.timeout.ms,
 *     with Kafka's defaults and with shorter timeouts.
 * (b) Metadata writes. IncrementalAlterConfigs of one topic config (one
 *     ConfigRecord each), 16 in flight on one connection to the active
 *     controller, each answered once its record is committed: three voters
 *     against the same-run baseline of a single controller (node 1 alone
 *     in controller.quorum.voters, the others brokers). Wall clock (CPU of
 *     the whole cluster and the client) and virtual time, in alternating
 *     slices; medians and ratios.
 * Run alone: make B=build build/bench/bench_quorum && build/bench/bench_quorum
 * (LOGREP_BENCH_QUORUM_RUNS sets the failover runs per setting, default 40;
 * LOGREP_BENCH_QUORUM_ONLY=failover or =writes runs one half). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "sim/memnet.h"

#define NN 3
#define CLIENT (-1)
#define NPART 12
#define MAXRUNS 400

typedef struct cluster {
    logrep_node *node[NN + 1];
    logrep_storage *st[NN + 1];
    lr_memnet *net;
    int64_t now;
    int quorum; /* three voters, else node 1 alone */
    int jitter; /* messages take 0-2 ms, else none */
    uint64_t rng;
    lr_memnet_msg *held; /* delayed messages, by delivery time */
} cluster;

static cluster W;
static logrep_msg *M, *R;
static int32_t corr;

static void die(const char *what)
{
    fprintf(stderr, "bench_quorum: %s (virtual time %lld)\n", what, (long long)W.now);
    exit(1);
}

static const char *listener_of(void *ctx, int32_t to, const char *host, int32_t port)
{
    (void)ctx;
    (void)to;
    (void)host;
    return port == 9093 ? "CONTROLLER" : "PLAINTEXT";
}

static uint64_t rnd(void)
{
    W.rng ^= W.rng << 13;
    W.rng ^= W.rng >> 7;
    W.rng ^= W.rng << 17;
    return W.rng;
}

static int64_t *due_of(lr_memnet_msg *m)
{
    return (int64_t *)m->extra;
}

/* With jitter every message is held 0-2 ms (in order on its connection)
 * and delivered by step(). */
static int hold(void *ctx, lr_memnet_msg *m)
{
    (void)ctx;
    if (!W.jitter)
        return 0;
    int64_t at = lr_memnet_fifo_at(W.net, m->end, W.now + (int64_t)(rnd() % 3));
    *due_of(m) = at;
    lr_memnet_msg **pp = &W.held;
    while (*pp && *due_of(*pp) <= at)
        pp = &(*pp)->next;
    m->next = *pp;
    *pp = m;
    return 1;
}

static size_t deliver_due(void)
{
    size_t k = 0;
    while (W.held && *due_of(W.held) <= W.now) {
        lr_memnet_msg *m = W.held;
        W.held = m->next;
        m->next = NULL;
        lr_memnet_deliver(W.net, m, W.now);
        k++;
    }
    return k;
}

static double tick_s; /* wall seconds in the ticks of step() */

/* Delivers what is due, or else lets 1 ms pass. */
static void step(void)
{
    if (deliver_due() + lr_memnet_pump(W.net, W.now, 0))
        return;
    W.now += 1;
    double t = bench_now();
    for (int i = 1; i <= NN; i++)
        if (W.node[i])
            logrep_node_tick(W.node[i], W.now);
    tick_s += bench_now() - t;
    deliver_due();
    lr_memnet_pump(W.net, W.now, 0);
}

static void run_ms(int64_t ms)
{
    int64_t end = W.now + ms;
    while (W.now < end)
        step();
}

typedef struct timeouts {
    const char *election, *fetch, *session, *heartbeat;
} timeouts;

/* LOGREP_BENCH_QUORUM_LOG=1: the nodes' quorum and controller log lines
 * on stderr, with the virtual time. */
static void log_line(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    (void)level;
    if (!strcmp(subsys, "quorum") || !strcmp(subsys, "controller"))
        fprintf(stderr, "%lld [node %d %s] %.*s\n", (long long)W.now, (int)(intptr_t)ctx, subsys,
                (int)len, msg);
}

static void start(int quorum, int jitter, uint64_t seed, const timeouts *t)
{
    memset(&W, 0, sizeof W);
    W.now = 1000;
    W.quorum = quorum;
    W.jitter = jitter;
    W.rng = seed * 0x9E3779B97F4A7C15ull + 12345;
    lr_memnet_conf nc = {.max_node = NN, .listener = listener_of, .hold = hold,
                         .msg_extra = sizeof(int64_t)};
    if (lr_memnet_new(&nc, &W.net) != LOGREP_OK)
        die("memnet: out of memory");
    for (int id = 1; id <= NN; id++) {
        if (logrep_storage_memory_new(NULL, &W.st[id]) != LOGREP_OK)
            die("storage: out of memory");
        logrep_conf *c = logrep_conf_new();
        char buf[64];
        snprintf(buf, sizeof buf, "%d", id);
        logrep_conf_set(c, "node.id", buf, NULL, 0);
        logrep_conf_set(c, "process.roles", quorum || id == 1 ? "broker,controller" : "broker",
                        NULL, 0);
        logrep_conf_set(c, "controller.quorum.voters",
                        quorum ? "1@n1:9093,2@n2:9093,3@n3:9093" : "1@n1:9093", NULL, 0);
        snprintf(buf, sizeof buf, "PLAINTEXT://n%d:9092", id);
        logrep_conf_set(c, "advertised.listeners", buf, NULL, 0);
        logrep_conf_set(c, "min.insync.replicas", "2", NULL, 0);
        logrep_conf_set(c, "replica.fetch.wait.max.ms", "50", NULL, 0);
        logrep_conf_set(c, "log.dirs", "data", NULL, 0);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)(seed * 7919 + (uint64_t)id));
        logrep_conf_set(c, "logrep.random.seed", buf, NULL, 0);
        if (t) {
            logrep_conf_set(c, "controller.quorum.election.timeout.ms", t->election, NULL, 0);
            logrep_conf_set(c, "controller.quorum.fetch.timeout.ms", t->fetch, NULL, 0);
            logrep_conf_set(c, "broker.session.timeout.ms", t->session, NULL, 0);
            logrep_conf_set(c, "broker.heartbeat.interval.ms", t->heartbeat, NULL, 0);
        }
        if (getenv("LOGREP_BENCH_QUORUM_LOG"))
            logrep_conf_set_logger(c, log_line, (void *)(intptr_t)id, LOGREP_LEVEL_DEBUG);
        char err[200];
        if (logrep_node_new(c, W.st[id], lr_memnet_transport(W.net, id), W.now, err, sizeof err,
                            &W.node[id])) {
            fprintf(stderr, "node %d: %s\n", id, err);
            exit(1);
        }
        lr_memnet_set_node(W.net, id, W.node[id]);
        logrep_conf_free(c);
    }
}

static void stop(void)
{
    while (W.held) {
        lr_memnet_msg *m = W.held;
        W.held = m->next;
        lr_memnet_msg_free(W.net, m);
    }
    for (int id = 1; id <= NN; id++) {
        if (W.node[id])
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
}

static int active_controller(void)
{
    for (int id = 1; id <= NN; id++)
        if (W.node[id] && logrep_node_is_controller(W.node[id]))
            return id;
    return -1;
}

/* ------------------------------------------------------------ requests */

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

static logrep_struct *req(int api, int version)
{
    if (logrep_msg_init_request(M, api, version, ++corr, "bench") != LOGREP_OK)
        die("request");
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

/* The next answer on c decoded into R, stepping the cluster; NULL when
 * the connection closed or nothing came within max_ms. */
static logrep_struct *await(uint64_t c, int api, int version, int64_t max_ms)
{
    static uint8_t keep[1 << 20]; /* R borrows the bytes */
    int64_t give_up = W.now + max_ms;
    while (W.now < give_up) {
        lr_memnet_msg *f = lr_memnet_inbox_take(W.net, c);
        if (f) {
            if (f->len > sizeof keep)
                die("response too large");
            size_t len = f->len;
            memcpy(keep, f->data, len);
            lr_memnet_msg_free(W.net, f);
            if (logrep_msg_decode_response(R, api, version, keep, len))
                die(logrep_msg_errmsg(R));
            return logrep_msg_root(R);
        }
        if (!lr_memnet_end(W.net, c, NULL))
            return NULL;
        step();
    }
    return NULL;
}

static uint64_t open_to(int to)
{
    uint64_t c;
    if (lr_memnet_open(W.net, CLIENT, to, &c) != LOGREP_OK)
        die("out of connections");
    return c;
}

/* CreateTopics v5 to the active controller until it succeeds. */
static void create_topic(const char *name, int parts)
{
    for (int attempt = 0; attempt < 600; attempt++) {
        int a = active_controller();
        if (a > 0) {
            logrep_struct *r = req(LOGREP_API_CREATE_TOPICS, 5);
            seti(r, "timeoutMs", 30000);
            setcount(r, "Topics", 1);
            logrep_struct *t = el(r, "Topics", 0);
            sets(t, "Name", name);
            seti(t, "NumPartitions", parts);
            seti(t, "ReplicationFactor", 3);
            uint64_t c = open_to(a);
            send_on(c);
            logrep_struct *rs = await(c, LOGREP_API_CREATE_TOPICS, 5, 30000);
            int64_t e = rs ? fi(el(rs, "Topics", 0), "ErrorCode") : -1;
            lr_memnet_close(W.net, c, 0);
            if (e == 0 || e == LOGREP_ERR_TOPIC_ALREADY_EXISTS)
                return;
        }
        run_ms(100);
    }
    die("topic not created within 60 s");
}

/* Partition p of "bench": its leader as some live node's replica says
 * (role leader), with *epoch; -1 when none. */
static int leader_now(int32_t p, int32_t *epoch)
{
    for (int id = 1; id <= NN; id++) {
        if (!W.node[id])
            continue;
        size_t n = logrep_node_partition_count(W.node[id]);
        for (size_t i = 0; i < n; i++) {
            logrep_node_partition_info pi;
            if (logrep_node_partition(W.node[id], i, &pi) == LOGREP_OK && pi.role == 1 &&
                pi.partition == p && !strcmp(pi.topic, "bench")) {
                *epoch = pi.leader_epoch;
                return id;
            }
        }
    }
    return -1;
}

/* ------------------------------------------------------------ (a) failover */

typedef struct failover {
    double active_ms, moved_ms;
    int led; /* partitions the dead node led */
} failover;

static void failover_once(uint64_t seed, int jitter, const timeouts *t, failover *out)
{
    start(1, jitter, seed, t);
    run_ms(500);
    create_topic("bench", NPART);
    /* Every partition led, and the cluster settled a while (a random
     * part of a heartbeat interval or two, so the kill falls anywhere
     * between a dead broker's heartbeats). */
    int32_t ep;
    for (int i = 0; i < 600; i++) {
        int all = 1;
        for (int32_t p = 0; p < NPART && all; p++)
            all = leader_now(p, &ep) > 0;
        if (all)
            break;
        run_ms(100);
    }
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    x ^= x >> 29;
    run_ms(1000 + (int64_t)(x % 4000));
    int a = active_controller();
    if (a < 0)
        die("no active controller before the kill");
    int32_t led[NPART], old_epoch[NPART];
    int nled = 0;
    for (int32_t p = 0; p < NPART; p++)
        if (leader_now(p, &ep) == a) {
            led[nled] = p;
            old_epoch[nled++] = ep;
        }
    if (getenv("LOGREP_BENCH_QUORUM_LOG"))
        fprintf(stderr, "%lld killing node %d\n", (long long)W.now, a);
    kill_node(a);
    int64_t t0 = W.now, active_at = -1, moved_at = -1;
    while (W.now - t0 < 120000 && (active_at < 0 || moved_at < 0)) {
        step();
        if (active_at < 0 && active_controller() > 0)
            active_at = W.now;
        if (moved_at < 0) {
            int all = 1;
            for (int i = 0; i < nled && all; i++) {
                int l = leader_now(led[i], &ep);
                all = l > 0 && l != a && ep > old_epoch[i];
            }
            if (all)
                moved_at = W.now;
        }
    }
    if (active_at < 0 || moved_at < 0)
        die("no failover within 120 s");
    out->active_ms = (double)(active_at - t0);
    out->moved_ms = (double)(moved_at - t0);
    out->led = nled;
    stop();
}

static double pct(const double *sorted, int n, double p)
{
    int i = (int)(p * (n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

static void failover_report(const char *label, int jitter, const timeouts *t, int runs)
{
    static double act[MAXRUNS], mov[MAXRUNS];
    long led = 0;
    double w0 = bench_now();
    for (int i = 0; i < runs; i++) {
        failover f;
        failover_once((uint64_t)i + 1, jitter, t, &f);
        act[i] = f.active_ms;
        mov[i] = f.moved_ms;
        led += f.led;
    }
    /* A first-round win comes within a fetch timeout and a few round
     * trips of the kill; a split vote or a refused pre-vote costs another
     * election timeout (random in [T, 2T)). */
    double election = atof(t->election), session = atof(t->session);
    int second = 0;
    for (int i = 0; i < runs; i++)
        second += act[i] > atof(t->fetch) + election / 2;
    qsort(act, (size_t)runs, sizeof act[0], bench_cmp_double);
    qsort(mov, (size_t)runs, sizeof mov[0], bench_cmp_double);
    printf("failover, %s, %s: election.timeout %s ms, fetch.timeout %s ms, session.timeout %s "
           "ms, heartbeat %s ms\n  (%d runs, %.1f partitions led by the dead node on average, "
           "%.1f s wall)\n",
           label, jitter ? "messages take 0-2 ms" : "no network delay", t->election, t->fetch,
           t->session, t->heartbeat, runs, (double)led / runs, bench_now() - w0);
    printf("  %-44s %8s %8s %8s %8s   (virtual ms; ratios to the timeout)\n", "", "min",
           "median", "p99", "max");
    printf("  %-44s %8.0f %8.0f %8.0f %8.0f   %.2fx %.2fx %.2fx %.2fx of election.timeout\n",
           "kill -> new active controller", act[0], pct(act, runs, 0.5), pct(act, runs, 0.99),
           act[runs - 1], act[0] / election, pct(act, runs, 0.5) / election,
           pct(act, runs, 0.99) / election, act[runs - 1] / election);
    printf("  %-44s %8.0f %8.0f %8.0f %8.0f   %.2fx %.2fx %.2fx %.2fx of session.timeout\n",
           "kill -> its partitions led elsewhere", mov[0], pct(mov, runs, 0.5),
           pct(mov, runs, 0.99), mov[runs - 1], mov[0] / session, pct(mov, runs, 0.5) / session,
           pct(mov, runs, 0.99) / session, mov[runs - 1] / session);
    printf("  %d of %d runs needed a second election (over fetch.timeout + election.timeout / 2 "
           "to a new active controller)\n",
           second, runs);
}

/* ------------------------------------------------------------ (b) writes */

#define INFLIGHT 16

typedef struct slice {
    double wall_s, virt_ms, tick_s;
    long writes, records;
} slice;

static void alter_request(long i)
{
    logrep_struct *r = req(LOGREP_API_INCREMENTAL_ALTER_CONFIGS, 1);
    setcount(r, "Resources", 1);
    logrep_struct *res = el(r, "Resources", 0);
    seti(res, "ResourceType", 2); /* topic */
    sets(res, "ResourceName", "bench");
    setcount(res, "Configs", 1);
    logrep_struct *c = el(res, "Configs", 0);
    sets(c, "Name", "retention.ms");
    seti(c, "ConfigOperation", 0); /* SET */
    char v[32];
    snprintf(v, sizeof v, "%ld", 86400000L + i);
    sets(c, "Value", v);
}

static int64_t metadata_offset(int id)
{
    logrep_node_stats st;
    logrep_node_stats_get(W.node[id], &st);
    return st.metadata_offset;
}

/* n writes, `inflight` at a time, to the active controller. */
static void writes(long n, long base, int inflight, slice *s)
{
    int a = active_controller();
    if (a < 0)
        die("no active controller");
    uint64_t c = open_to(a);
    int64_t md0 = metadata_offset(a), v0 = W.now;
    double t0 = bench_now(), k0 = tick_s;
    long sent = 0, done = 0;
    while (done < n) {
        while (sent < n && sent - done < inflight) {
            alter_request(base + sent++);
            send_on(c);
        }
        logrep_struct *rs = await(c, LOGREP_API_INCREMENTAL_ALTER_CONFIGS, 1, 30000);
        if (!rs)
            die("IncrementalAlterConfigs: no answer");
        int64_t e = fi(el(rs, "Responses", 0), "ErrorCode");
        if (e)
            die(logrep_err_name((int)e));
        done++;
    }
    s->wall_s = bench_now() - t0;
    s->tick_s = tick_s - k0;
    s->virt_ms = (double)(W.now - v0);
    s->writes = n;
    lr_memnet_close(W.net, c, 0);
    run_ms(200); /* the active controller's own image has them all */
    s->records = (long)(metadata_offset(a) - md0);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define SLICES 5
#define WRITES 2000
#define SERIAL 200

static void writes_report(void)
{
    double qw[SLICES], sw[SLICES], qv[SLICES], sv[SLICES], ratio_w[SLICES];
    long recs_q = 0, recs_s = 0, n = 0;
    double ticks_q = 0, ticks_s = 0, wall_q = 0, wall_s = 0;
    cluster cl[2]; /* both clusters stay up through every slice */
    for (int q = 0; q <= 1; q++) {
        start(q, 1, 42, NULL);
        run_ms(500);
        create_topic("bench", 1);
        run_ms(1000);
        slice warm;
        writes(200, 0, INFLIGHT, &warm);
        cl[q] = W;
    }
    for (int i = 0; i < SLICES; i++) {
        slice s[2];
        for (int q = 1; q >= 0; q--) {
            W = cl[q];
            writes(WRITES, 1000000L * (i + 1), INFLIGHT, &s[q]);
            cl[q] = W;
        }
        qw[i] = (double)s[1].writes / s[1].wall_s;
        sw[i] = (double)s[0].writes / s[0].wall_s;
        qv[i] = s[1].virt_ms / (double)s[1].writes;
        sv[i] = s[0].virt_ms / (double)s[0].writes;
        ratio_w[i] = qw[i] / sw[i];
        ticks_q += s[1].tick_s;
        ticks_s += s[0].tick_s;
        wall_q += s[1].wall_s;
        wall_s += s[0].wall_s;
        recs_q += s[1].records;
        recs_s += s[0].records;
        n += s[1].writes;
    }
    /* One write at a time: the virtual time of a commit. */
    slice one[2];
    for (int q = 0; q <= 1; q++) {
        W = cl[q];
        writes(SERIAL, 9000000L, 1, &one[q]);
        stop();
    }
    double rmin = ratio_w[0], rmax = ratio_w[0];
    for (int i = 1; i < SLICES; i++) {
        rmin = ratio_w[i] < rmin ? ratio_w[i] : rmin;
        rmax = ratio_w[i] > rmax ? ratio_w[i] : rmax;
    }
    double mq = median(qw, SLICES), ms = median(sw, SLICES);
    double mqv = median(qv, SLICES), msv = median(sv, SLICES);
    printf("metadata writes: IncrementalAlterConfigs, %d in flight, %d per slice, %d slices "
           "(medians)\n",
           INFLIGHT, WRITES, SLICES);
    char what[64];
    snprintf(what, sizeof what, "vs single controller (slices %.2f-%.2f)", rmin, rmax);
    bench_report("committed writes, 3 voters (wall clock)", mq / 1e3, "k/s", median(ratio_w, SLICES),
                 what, 0, 1);
    bench_report("  baseline: single controller", ms / 1e3, "k/s", 1.0, "", 0, 1);
    printf("%-46s %12.3f %-10s %7.3fx %s\n", "virtual time per write, 3 voters", mqv, "ms",
           msv > 0 ? mqv / msv : 0.0, "vs single controller");
    printf("%-46s %12.3f %-10s\n", "  baseline: single controller", msv, "ms");
    printf("%-46s %12.2f records per write (3 voters), %.2f (single)\n", "  metadata records",
           (double)recs_q / (double)n, (double)recs_s / (double)n);
    printf("%-46s %12.2f us per write (3 voters), %.2f (single); of which ticks %.2f, %.2f\n",
           "  wall clock in all", wall_q / (double)n * 1e6, wall_s / (double)n * 1e6,
           ticks_q / (double)n * 1e6, ticks_s / (double)n * 1e6);
    double lq = one[1].virt_ms / (double)SERIAL, ls = one[0].virt_ms / (double)SERIAL;
    printf("%-46s %12.3f %-10s %7.3fx %s\n", "one at a time: virtual ms per write, 3 voters", lq,
           "ms", ls > 0 ? lq / ls : 0.0, "vs single controller");
    printf("%-46s %12.3f %-10s (election.timeout / 10 = %d ms: a follower's pause after an "
           "empty fetch)\n",
           "  baseline: single controller", ls, "ms", 100);
}

int main(void)
{
    if (logrep_msg_new(NULL, &M) != LOGREP_OK || logrep_msg_new(NULL, &R) != LOGREP_OK)
        die("out of memory");
    int runs = 40;
    const char *e = getenv("LOGREP_BENCH_QUORUM_RUNS");
    if (e && atoi(e) > 0)
        runs = atoi(e) < MAXRUNS ? atoi(e) : MAXRUNS;
    printf("metadata quorum, 3 voters (combined nodes), in-memory network, lockstep\n");
    static const timeouts defaults = {"1000", "2000", "9000", "2000"};
    static const timeouts short_t = {"300", "600", "1500", "500"};
    const char *only = getenv("LOGREP_BENCH_QUORUM_ONLY");
    if (!only || !strcmp(only, "failover")) {
        failover_report("Kafka's defaults", 1, &defaults, runs);
        failover_report("Kafka's defaults", 0, &defaults, runs);
        failover_report("short timeouts", 1, &short_t, runs);
    }
    if (!only || !strcmp(only, "writes"))
        writes_report();
    logrep_msg_free(M);
    logrep_msg_free(R);
    return 0;
}
