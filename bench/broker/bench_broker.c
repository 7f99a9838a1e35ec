/* make bench-broker: the same librdkafka load (idempotent acks=all
 * producer, 100 B and 1 KiB values, none and lz4) against a 3-node
 * logrep-broker cluster (RF 3, min.insync.replicas 2, on disk) and against
 * librdkafka's mock cluster (in memory, no real replication) in the same
 * run, each for a fixed time; prints throughput ratios, the rate at which
 * a consumer reads the whole topic back afterwards, the produce-to-consume
 * p99 (a consumer reads alongside the producer), and where the CPU went:
 * the client's and the cluster's CPU time per record, and the share of
 * the machine other processes took meanwhile. A last run produces one
 * record at a time (the next once the previous is acknowledged) and
 * compares the ack latency of the two clusters. */
#include <dirent.h>
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

typedef struct figures {
    double produce_rps, consume_rps, e2e_p99_ms, ack_p50_ms;
    double client_us, cluster_us; /* CPU time per acknowledged record */
    double others_pct;            /* of the machine, other processes */
    /* The brokers' counters over the produce phase (logrep only). */
    double recs_per_produce, fetches_per_produce, produce_ms, kib_per_fetch;
    int ok, capped;
} figures;

/* ------------------------------------------------------------ counters */

/* The sum over a page's samples of `name` whose labels contain `label`
 * (NULL: any). */
static double metric_sum(const char *page, const char *name, const char *label)
{
    double sum = 0;
    size_t nl = strlen(name);
    for (const char *l = page; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, name, nl) != 0 || (l[nl] != '{' && l[nl] != ' '))
            continue;
        const char *end = strchr(l, '\n'), *sp = NULL;
        for (const char *q = l; q < (end ? end : l + strlen(l)); q++)
            if (*q == ' ')
                sp = q;
        const char *lab = strchr(l, '{');
        if (!sp || (label && (!lab || lab > sp || !memmem(lab, (size_t)(sp - lab), label,
                                                          strlen(label)))))
            continue;
        sum += atof(sp + 1);
    }
    return sum;
}

typedef struct counters {
    double produces, records, fetches, produce_s, bytes_sent;
} counters;

#define PAGE_MAX (1 << 20)

static void counters_take(counters *k, const cluster *c)
{
    memset(k, 0, sizeof *k);
    char *page = c ? malloc(PAGE_MAX) : NULL;
    for (int i = 1; page && i <= c->n; i++) {
        if (cluster_metrics(c, i, page, PAGE_MAX) <= 0)
            continue;
        const char *req = "logrep_broker_requests_total", *lat = "logrep_broker_request_latency_seconds_sum";
        k->produces += metric_sum(page, req, "api=\"Produce\"");
        k->fetches += metric_sum(page, req, "api=\"Fetch\"");
        k->records += metric_sum(page, "logrep_node_produce_records_total", NULL);
        k->produce_s += metric_sum(page, lat, "api=\"Produce\"");
        k->bytes_sent += metric_sum(page, "logrep_broker_socket_bytes_sent_total", NULL);
    }
    free(page);
}

static void counter_figures(figures *f, const counters *a, const counters *b)
{
    double p = b->produces - a->produces, fe = b->fetches - a->fetches;
    if (p <= 0)
        return;
    f->recs_per_produce = (b->records - a->records) / p;
    f->fetches_per_produce = fe / p;
    f->produce_ms = (b->produce_s - a->produce_s) / p * 1000;
    f->kib_per_fetch = fe > 0 ? (b->bytes_sent - a->bytes_sent) / fe / 1024 : 0;
}

/* ------------------------------------------------------------ CPU time */

static long clk_tck;

/* CPU time of a task or process from its schedstat (the scheduler's own
 * sum of run time: tick-sampled utime/stime misses or overcounts tasks
 * that run for microseconds at a time), in microseconds; its comm in comm
 * (when given). -1 when it cannot be read. */
static int64_t task_cpu_us(const char *dir, char *comm, size_t commsz)
{
    char path[300];
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "%s/schedstat", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%llu", &ns) == 1;
    fclose(f);
    if (!ok)
        return -1;
    if (comm) {
        snprintf(path, sizeof path, "%s/comm", dir);
        comm[0] = 0;
        if ((f = fopen(path, "r"))) {
            if (fgets(comm, (int)commsz, f))
                comm[strcspn(comm, "\n")] = 0;
            fclose(f);
        }
    }
    return (int64_t)(ns / 1000);
}

/* A process's CPU time: the sum over its threads. */
static int64_t proc_cpu_us(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    int64_t sum = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char t[330];
        snprintf(t, sizeof t, "%s/%s", dir, e->d_name);
        int64_t us = task_cpu_us(t, NULL, 0);
        sum += us > 0 ? us : 0;
    }
    if (d)
        closedir(d);
    return sum;
}

/* Busy and total time of the whole machine (all CPUs), /proc/stat ticks. */
static void machine_ticks(int64_t *busy, int64_t *total)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    *busy = *total = 0;
    if (!f)
        return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) == 8) {
        for (int i = 0; i < 8; i++)
            *total += (int64_t)v[i];
        *busy = *total - (int64_t)(v[3] + v[4]); /* idle, iowait */
    }
    fclose(f);
}

typedef struct cpu_mark {
    int64_t client, mock, cluster; /* microseconds */
    int64_t busy, total;           /* machine ticks */
} cpu_mark;

/* This process's threads (the mock cluster's thread apart) and the
 * cluster's processes. */
static void cpu_mark_take(cpu_mark *m, const cluster *c)
{
    memset(m, 0, sizeof *m);
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char dir[300], comm[64];
        snprintf(dir, sizeof dir, "/proc/self/task/%s", e->d_name);
        int64_t us = task_cpu_us(dir, comm, sizeof comm);
        if (us < 0)
            continue;
        if (strcmp(comm, "rdk:mock") == 0)
            m->mock += us;
        else
            m->client += us;
    }
    if (d)
        closedir(d);
    for (int i = 1; c && i <= c->n; i++)
        m->cluster += c->pid[i] > 0 ? proc_cpu_us(c->pid[i]) : 0;
    machine_ticks(&m->busy, &m->total);
}

/* Fills f's CPU figures from two marks around `records` records. */
static void cpu_figures(figures *f, const cpu_mark *a, const cpu_mark *b, int64_t records,
                        int mock)
{
    double per = records > 0 ? 1.0 / (double)records : 0;
    f->client_us = (double)(b->client - a->client) * per;
    f->cluster_us = (double)(mock ? b->mock - a->mock : b->cluster - a->cluster) * per;
    int64_t total = b->total - a->total;
    if (total <= 0)
        return;
    /* Ticks are per CPU: the machine's busy share minus ours. */
    double busy = (double)(b->busy - a->busy) / (double)total;
    double wall_cpu = (double)total / (double)clk_tck * 1e6; /* CPU-us elapsed */
    double ours = (double)(b->client - a->client + b->mock - a->mock + b->cluster - a->cluster);
    double o = busy - ours / wall_cpu;
    f->others_pct = o > 0 ? 100 * o : 0;
}

/* Accounting arrays for this many records per second of run: above what
 * either cluster reaches, so a run ends by time, not by filling them. */
#define CAP_PER_S_SMALL 5000000
#define CAP_PER_S_LARGE 5000000

/* Produces for `seconds` with a consumer reading alongside (its reads
 * give the produce-to-consume latency). With read_back, a fresh consumer
 * then reads the whole topic from the beginning: that read is both the
 * consumer throughput figure and the lost/duplicated check. */
static figures run_load(const cluster *cl, const char *bootstrap, const char *topic,
                        int value_size, const char *codec, double seconds, int read_back)
{
    figures f = {0};
    kc_load L = {0};
    L.bootstrap = bootstrap;
    L.topic = topic;
    L.nparts = 6;
    L.nkeys = 1000;
    L.value_size = value_size;
    L.compression = codec;
    L.max_records = (int64_t)(seconds * (value_size < 512 ? CAP_PER_S_SMALL : CAP_PER_S_LARGE));
    L.idempotent = 1;
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
    cpu_figures(&f, &m0, &m1, L.acked, cl == NULL);
    counter_figures(&f, &k0, &k1);
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
    double cluster_us; /* the cluster's CPU time per record */
    int64_t n;
} latency;

#define LAT_WARMUP 50

static latency run_one_in_flight(const cluster *cl, const char *bootstrap, const char *topic,
                                 double seconds)
{
    latency r = {0};
    kc_load L = {0};
    L.bootstrap = bootstrap;
    L.topic = topic;
    L.nparts = 6;
    L.nkeys = 1000;
    L.value_size = 100;
    L.compression = "none";
    L.max_records = (int64_t)(seconds * 50000) + LAT_WARMUP; /* above 50 k acks/s */
    L.idempotent = 1;
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
        figures f = {0};
        cpu_figures(&f, &m0, &m1, r.n, cl == NULL);
        r.cluster_us = f.cluster_us;
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
    double a50[MAX_ROUNDS] = {0}, a99[MAX_ROUNDS] = {0}, m50[MAX_ROUNDS] = {0},
           m99[MAX_ROUNDS] = {0}, ratio[MAX_ROUNDS] = {0}, acpu[MAX_ROUNDS] = {0},
           mcpu[MAX_ROUNDS] = {0};
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
        a50[r] = a.p50_us, a99[r] = a.p99_us, m50[r] = m.p50_us, m99[r] = m.p99_us;
        acpu[r] = a.cluster_us, mcpu[r] = m.cluster_us;
        ratio[r] = m.p50_us > 0 ? a.p50_us / m.p50_us : 0;
    }
    printf("one record in flight (100 B, acks=all, linger.ms=0): ack p50/p99 logrep %.0f/%.0f us, "
           "mock %.0f/%.0f us, p50 ratio %.2f (target <= 2.0; ratios %.2f..%.2f)\n",
           median(a50, rounds), median(a99, rounds), median(m50, rounds), median(m99, rounds),
           median(ratio, rounds), lowest(ratio, rounds), highest(ratio, rounds));
    printf("%12s cluster CPU us/record: logrep %.1f, mock %.1f\n", "", median(acpu, rounds),
           median(mcpu, rounds));
    fflush(stdout);
    if (!no_logrep)
        cluster_destroy(&c);
    return rc;
}

int main(int argc, char **argv)
{
    clk_tck = sysconf(_SC_CLK_TCK);
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
            printf("%12s CPU us/record: logrep client %.2f + cluster %.2f, mock client %.2f + "
                   "cluster %.2f; other processes took %.0f%%/%.0f%% of the machine\n",
                   "", MEDIAN(a, client_us), MEDIAN(a, cluster_us), MEDIAN(m, client_us),
                   MEDIAN(m, cluster_us), MEDIAN(a, others_pct), MEDIAN(m, others_pct));
            if (!no_logrep)
                printf("%12s logrep brokers: %.0f records per produce request, %.2f fetches per "
                       "produce (followers and consumer), produce answered %.1f ms after arrival "
                       "(mean), %.0f KiB sent per fetch\n",
                       "", MEDIAN(a, recs_per_produce), MEDIAN(a, fetches_per_produce),
                       MEDIAN(a, produce_ms), MEDIAN(a, kib_per_fetch));
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
