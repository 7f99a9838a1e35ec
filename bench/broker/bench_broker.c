/* make bench-broker: the same librdkafka load (idempotent acks=all
 * producer, 100 B and 1 KiB values, none and lz4) against a 3-node
 * logrep-broker cluster (RF 3, min.insync.replicas 2, on disk) and against
 * librdkafka's mock cluster (in memory, no real replication) in the same
 * run, each for a fixed time; prints throughput ratios, the rate at which
 * a consumer reads the whole topic back afterwards, the produce-to-consume
 * p99 (a consumer reads alongside the producer), and where the CPU went:
 * the client's and the cluster's CPU time per record, the ratio those
 * allow on a CPU-bound machine, the share of the machine other processes
 * took meanwhile, and the brokers' own counters. A last run produces one
 * record at a time (the next once the previous is acknowledged) and
 * compares the ack latency of the two clusters, beside the floor of the
 * commit's message pattern on this machine (measure.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "cluster.h"
#include "kclient.h"
#include "measure.h"

typedef struct figures {
    double produce_rps, consume_rps, e2e_p99_ms, ack_p50_ms;
    cpu_use cpu;        /* per acknowledged record */
    broker_use brokers; /* over the produce phase (logrep only) */
    int ok, capped;
} figures;


/* Accounting arrays for this many records per second of run: above what
 * either cluster reaches, so a run ends by time, not by filling them. */
#define CAP_PER_S_SMALL 5000000
#define CAP_PER_S_LARGE 5000000

/* Produces for `seconds` with a consumer reading alongside (its reads
 * give the produce-to-consume latency). With read_back, a fresh consumer
 * then reads the whole topic from the beginning: that read is both the
 * consumer throughput figure and the lost/duplicated check. */
/* Every run's shape: 6 partitions, 1000 keys, idempotent. */
static void load_init(kc_load *L, const char *bootstrap, const char *topic, int value_size,
                      const char *codec, int64_t max_records)
{
    memset(L, 0, sizeof *L);
    L->bootstrap = bootstrap;
    L->topic = topic;
    L->nparts = 6;
    L->nkeys = 1000;
    L->value_size = value_size;
    L->compression = codec;
    L->max_records = max_records;
    L->idempotent = 1;
}

static figures run_load(const cluster *cl, const char *bootstrap, const char *topic,
                        int value_size, const char *codec, double seconds, int read_back)
{
    figures f = {0};
    kc_load L;
    load_init(&L, bootstrap, topic, value_size, codec,
              (int64_t)(seconds * (value_size < 512 ? CAP_PER_S_SMALL : CAP_PER_S_LARGE)));
    L.queue_max = "200000";
    char err[512];
    if (kc_producer_start(&L, err, sizeof err) || kc_consumer_start(&L, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        kc_close(&L);
        return f;
    }
    cpu_mark m0, m1;
    counters k0, k1;
    counters_take(&k0, cl);
    cpu_mark_take(&m0, cl);
    int64_t t0 = kc_now_us(), end = t0 + (int64_t)(seconds * 1e6);
    while (kc_now_us() < end) {
        int full = 0;
        for (int k = 0; k < 5000 && !full; k++)
            full = kc_produce_one(&L) != 0;
        kc_poll(&L, full ? 1 : 0);
        kc_consume(&L, 0);
    }
    kc_flush(&L, 30000);
    double ps = (double)(kc_now_us() - t0) / 1e6;
    cpu_mark_take(&m1, cl);
    counters_take(&k1, cl);
    f.cpu = cpu_use_between(&m0, &m1, L.acked, cl == NULL);
    f.brokers = broker_use_between(&k0, &k1);
    f.produce_rps = (double)L.acked / ps;
    f.capped = L.produced >= L.max_records;
    f.e2e_p99_ms = (double)kc_percentile(L.e2e_us, L.n_e2e, 0.99) / 1000;
    f.ack_p50_ms = (double)kc_percentile(L.ack_lat_us, L.n_lat, 0.50) / 1000;
    if (read_back) {
        kc_consumer_stop(&L);
        int64_t c0 = kc_now_us();
        int caught_up = kc_consumer_start(&L, err, sizeof err) == 0 &&
                        kc_consume_to_end(&L, 120000) == 0;
        double cs = (double)(kc_now_us() - c0) / 1e6;
        f.consume_rps = (double)L.consumed / cs;
        kc_result r;
        kc_result_get(&L, &r);
        f.ok = caught_up && !r.lost && !r.duplicated && L.consumed >= L.acked;
    }
    kc_close(&L);
    return f;
}

/* Ack latency with one record in flight: the next record is produced
 * once the previous one is acknowledged (linger.ms=0), for `seconds`.
 * The first records (connections, producer id) are not counted. */
typedef struct latency {
    double p50_us, p99_us;
    double client_us, cluster_us; /* CPU time per record */
    int64_t n;
} latency;

#define LAT_WARMUP 50

static latency run_one_in_flight(const cluster *cl, const char *bootstrap, const char *topic,
                                 double seconds)
{
    latency r = {0};
    kc_load L;
    /* Room for more than 50 k acks/s. */
    load_init(&L, bootstrap, topic, 100, "none", (int64_t)(seconds * 50000) + LAT_WARMUP);
    L.extra[0] = "linger.ms";
    L.extra[1] = "0";
    char err[512];
    if (kc_producer_start(&L, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        kc_close(&L);
        return r;
    }
    int64_t end = 0;
    cpu_mark m0 = {0}, m1;
    while (L.produced < L.max_records && (!end || kc_now_us() < end)) {
        if (kc_produce_one(&L) != 0)
            break;
        /* Blocks until the delivery report: no spinning client. */
        while (L.acked + L.failed < L.produced)
            kc_poll(&L, 1000);
        if (L.failed)
            break;
        if (L.produced == LAT_WARMUP) {
            end = kc_now_us() + (int64_t)(seconds * 1e6);
            cpu_mark_take(&m0, cl);
        }
    }
    cpu_mark_take(&m1, cl);
    if (!L.failed && L.n_lat > LAT_WARMUP) {
        int32_t *v = L.ack_lat_us + LAT_WARMUP;
        r.n = L.n_lat - LAT_WARMUP;
        r.p50_us = (double)kc_percentile(v, r.n, 0.50);
        r.p99_us = (double)kc_percentile(v, r.n, 0.99);
        cpu_use u = cpu_use_between(&m0, &m1, r.n, cl == NULL);
        r.client_us = u.client_us;
        r.cluster_us = u.cluster_us;
    } else {
        fprintf(stderr, "bench: one in flight on %s: %s\n", bootstrap,
                L.failed ? L.last_error : "too few records");
    }
    kc_close(&L);
    return r;
}

#define MAX_ROUNDS 9

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s[n / 2];
}

static double lowest(const double *v, int n)
{
    double x = v[0];
    for (int i = 1; i < n; i++)
        x = v[i] < x ? v[i] : x;
    return x;
}

static double highest(const double *v, int n)
{
    double x = v[0];
    for (int i = 1; i < n; i++)
        x = v[i] > x ? v[i] : x;
    return x;
}

/* The median of one figure (a double at `off` in figures) over n rounds. */
static double median_of(const figures *f, int n, size_t off)
{
    double v[MAX_ROUNDS];
    for (int i = 0; i < n; i++)
        memcpy(&v[i], (const char *)&f[i] + off, sizeof v[i]);
    return median(v, n);
}

#define MEDIAN(arr, field) median_of(arr, rounds, offsetof(figures, field))

static int start_cluster(cluster *c, const char *broker, const char *props)
{
    if (cluster_init(c, broker, 3, props) != 0)
        return -1;
    for (int i = 1; i <= 3; i++)
        cluster_node_start(c, i);
    if (cluster_wait_ready(c, 30000) != 0) {
        fprintf(stderr, "bench: cluster did not start\n");
        cluster_destroy(c);
        return -1;
    }
    return 0;
}

/* The one-in-flight ack latency, rounds alternating the two clusters on
 * a fresh topic each; medians of the rounds' percentiles. Returns 0, or
 * 1 when a side produced nothing. */
static int one_in_flight(const char *broker, const char *props, rd_kafka_mock_cluster_t *mock,
                         double seconds, int rounds, int no_logrep, int no_mock)
{
    char err[512];
    cluster c;
    memset(&c, 0, sizeof c);
    if (!no_logrep && start_cluster(&c, broker, props) != 0)
        return 1;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    enum { A50, A99, M50, M99, RATIO, ACL, ACPU, MCL, MCPU, FLOOR, FLOOR_W, FLOOR_CPU, NF };
    double v[NF][MAX_ROUNDS] = {{0}};
    int rc = 0;
    for (int r = 0; r < rounds; r++) {
        char rt[80];
        snprintf(rt, sizeof rt, "bench-1-inflight-r%d", r);
        if (!no_logrep)
            kc_create_topic(c.bootstrap, rt, 6, 3, "2", err, sizeof err);
        rd_kafka_mock_topic_create(mock, rt, 6, 3);
        latency a = {0}, m = {0};
        if (!no_logrep)
            a = run_one_in_flight(&c, c.bootstrap, rt, seconds);
        if (!no_mock)
            m = run_one_in_flight(NULL, rd_kafka_mock_cluster_bootstraps(mock), rt, seconds);
        if ((!no_logrep && !a.n) || (!no_mock && !m.n))
            rc = 1;
        /* The same messages with nothing else done, on the cluster's disk. */
        v[FLOOR][r] = pattern_floor_us(no_logrep ? tmp : c.dir, 0, 3000, NULL);
        v[FLOOR_W][r] = pattern_floor_us(no_logrep ? tmp : c.dir, 1, 3000, &v[FLOOR_CPU][r]);
        v[A50][r] = a.p50_us, v[A99][r] = a.p99_us, v[M50][r] = m.p50_us, v[M99][r] = m.p99_us;
        v[ACL][r] = a.client_us, v[ACPU][r] = a.cluster_us;
        v[MCL][r] = m.client_us, v[MCPU][r] = m.cluster_us;
        v[RATIO][r] = m.p50_us > 0 ? a.p50_us / m.p50_us : 0;
    }
#define MED(k) median(v[k], rounds)
    printf("one record in flight (100 B, acks=all, linger.ms=0): ack p50/p99 logrep %.0f/%.0f us, "
           "mock %.0f/%.0f us, p50 ratio %.2f (target <= 2.0; ratios %.2f..%.2f)\n",
           MED(A50), MED(A99), MED(M50), MED(M99), MED(RATIO), lowest(v[RATIO], rounds),
           highest(v[RATIO], rounds));
    printf("%12s CPU us/record: logrep client %.1f + cluster %.1f, mock client %.1f + cluster "
           "%.1f\n", "", MED(ACL), MED(ACPU), MED(MCL), MED(MCPU));
    printf("%12s its six messages alone between 4 processes: p50 %.0f us, %.0f us with the 3 "
           "appends (%.2fx the mock's ack p50), the 3 using %.1f CPU us per commit\n",
           "", MED(FLOOR), MED(FLOOR_W), MED(M50) > 0 ? MED(FLOOR_W) / MED(M50) : 0,
           MED(FLOOR_CPU));
#undef MED
    fflush(stdout);
    if (!no_logrep)
        cluster_destroy(&c);
    return rc;
}

int main(int argc, char **argv)
{
    const char *broker = argc > 1 ? argv[1] : "build/logrep-broker";
    double seconds = argc > 2 ? atof(argv[2]) : 4;
    /* For profiling: BENCH_BROKER_ONLY=1024-none (or a list:
     * 100-none,1024-none), BENCH_BROKER_SIDE=logrep or mock to run one
     * side only, BENCH_BROKER_PROPS="a=1;b=2" for more broker properties,
     * BENCH_BROKER_ROUNDS (default 3) for more rounds; "1-inflight" in
     * BENCH_BROKER_ONLY selects the one-record-in-flight latency run. */
    const char *only = getenv("BENCH_BROKER_ONLY");
    int rounds = getenv("BENCH_BROKER_ROUNDS") ? atoi(getenv("BENCH_BROKER_ROUNDS")) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 3;
    const char *side = getenv("BENCH_BROKER_SIDE");
    int no_mock = side && strcmp(side, "logrep") == 0;
    int no_logrep = side && strcmp(side, "mock") == 0;
    char props[1024] = "";
    snprintf(props, sizeof props, "%s", getenv("BENCH_BROKER_PROPS") ? getenv("BENCH_BROKER_PROPS") : "");
    for (char *p = props; *p; p++)
        if (*p == ';')
            *p = '\n';
    char err[512];
    rd_kafka_conf_t *mc = rd_kafka_conf_new();
    rd_kafka_conf_set(mc, "log_level", "2", err, sizeof err);
    rd_kafka_t *mrk = rd_kafka_new(RD_KAFKA_PRODUCER, mc, err, sizeof err);
    rd_kafka_mock_cluster_t *mock = rd_kafka_mock_cluster_new(mrk, 3);
    const char *mock_bs = rd_kafka_mock_cluster_bootstraps(mock);
    printf("bench-broker: idempotent acks=all librdkafka producer, 6 partitions, 1000 keys, %.0f s "
           "per run, medians of %d rounds\n", seconds, rounds);
    printf("%-12s %12s %12s %7s %12s %12s %10s %10s\n", "load", "logrep rec/s", "mock rec/s",
           "ratio", "target", "consume/s", "e2e p99", "ack p50");
    int sizes[] = {100, 1024};
    const char *codecs[] = {"none", "lz4"};
    int rc = 0;
    for (int si = 0; si < 2; si++) {
        for (int ci = 0; ci < 2; ci++) {
            char topic[64];
            snprintf(topic, sizeof topic, "bench-%d-%s", sizes[si], codecs[ci]);
            if (only && !strstr(only, topic + 6))
                continue;
            /* A fresh cluster (empty data directories) for each load, so
             * no load inherits another's page cache, files or writeback.
             * Rounds alternate the two clusters, a fresh topic each, so
             * both see the same load on a shared machine; medians. */
            cluster c;
            memset(&c, 0, sizeof c);
            if (!no_logrep && start_cluster(&c, broker, props) != 0)
                return 1;
            figures a[MAX_ROUNDS] = {{0}}, m[MAX_ROUNDS] = {{0}};
            double ratio[MAX_ROUNDS] = {0};
            int ok = 1, capped = 0;
            for (int r = 0; r < rounds; r++) {
                char rt[80];
                snprintf(rt, sizeof rt, "%s-r%d", topic, r);
                if (!no_logrep)
                    kc_create_topic(c.bootstrap, rt, 6, 3, "2", err, sizeof err);
                rd_kafka_mock_topic_create(mock, rt, 6, 3);
                /* Each run starts with no dirty pages left by the one
                 * before: writeback of earlier loads otherwise lands on
                 * whichever run follows. */
                sync();
                if (!no_logrep)
                    a[r] = run_load(&c, c.bootstrap, rt, sizes[si], codecs[ci], seconds, 1);
                sync();
                if (!no_mock)
                    m[r] = run_load(NULL, mock_bs, rt, sizes[si], codecs[ci], seconds, 0);
                ratio[r] = m[r].produce_rps > 0 ? a[r].produce_rps / m[r].produce_rps : 0;
                ok &= a[r].ok || no_logrep;
                capped |= a[r].capped || m[r].capped;
            }
            double target = sizes[si] < 512 ? 0.9 : 0.6;
            printf("%4d B %-5s %12.0f %12.0f %7.2f %10s%.1f %12.0f %8.1fms %8.1fms  (ratios %.2f..%.2f)%s%s\n",
                   sizes[si], codecs[ci], MEDIAN(a, produce_rps), MEDIAN(m, produce_rps),
                   median(ratio, rounds), ">=", target, MEDIAN(a, consume_rps), MEDIAN(a, e2e_p99_ms),
                   MEDIAN(a, ack_p50_ms), lowest(ratio, rounds), highest(ratio, rounds),
                   ok ? "" : "  (read-back check FAILED)",
                   capped ? "  (record cap reached: ratio not measured)" : "");
            /* Where the CPU went: the client is the same program on both
             * sides; at the same client cost per record, the cluster's
             * cost decides what is left for the client on a small
             * machine. */
            /* On a CPU-bound machine, at the mock's client cost per record,
             * the clusters' costs alone allow this ratio. */
            double mcl = MEDIAN(m, cpu.client_us), ceiling = mcl + MEDIAN(a, cpu.cluster_us) > 0
                ? (mcl + MEDIAN(m, cpu.cluster_us)) / (mcl + MEDIAN(a, cpu.cluster_us)) : 0;
            printf("%12s CPU us/record: logrep client %.2f + cluster %.2f, mock client %.2f + "
                   "cluster %.2f (CPU-bound ceiling %.2f); other processes took %.0f%%/%.0f%% "
                   "of the machine\n",
                   "", MEDIAN(a, cpu.client_us), MEDIAN(a, cpu.cluster_us), mcl, MEDIAN(m, cpu.cluster_us),
                   ceiling, MEDIAN(a, cpu.others_pct), MEDIAN(m, cpu.others_pct));
            if (!no_logrep)
                printf("%12s logrep brokers: %.0f records per produce request, %.2f fetches per "
                       "produce (followers and consumer), produce answered %.1f ms after arrival "
                       "(mean), %.0f KiB sent per fetch\n",
                       "", MEDIAN(a, brokers.recs_per_produce), MEDIAN(a, brokers.fetches_per_produce),
                       MEDIAN(a, brokers.produce_ms), MEDIAN(a, brokers.kib_per_fetch));
            fflush(stdout);
            if (!ok)
                rc = 1;
            if (!no_logrep)
                cluster_destroy(&c);
        }
    }
    if (!only || strstr(only, "1-inflight"))
        rc |= one_in_flight(broker, props, mock, seconds / 2, rounds, no_logrep, no_mock);
    rd_kafka_mock_cluster_destroy(mock);
    rd_kafka_destroy(mrk);
    return rc;
}
