/* Embedding API benchmarks, each against a baseline measured in the same
 * run, in two batch shapes: 16 KiB batches of 100 records and 1-record
 * batches of a 100 B value, built once with the public batch builder
 * (docs/performance.md, "Embedding APIs"):
 *  - the public partition API (<logrep/partition.h>): three replicas in
 *    one thread over memory storage, the bench as their transport (each
 *    follower's fetch carried to the leader, the slice copied out with
 *    logrep_partition_read_slice and handed back) and their controller
 *    (one election, all three in the ISR). acks=-1 batches are produced
 *    WINDOW at a time between two rounds of follower fetches; the clock
 *    stops when the high watermark has passed every batch and every
 *    produce's event has been taken. Baselines: the same batches appended
 *    with logrep_log_append_leader to one log on memory storage (no
 *    replication), and a memcpy of the same bytes into segment-sized heap
 *    blocks (the ceiling of storing them once). Three logs are written for
 *    one, so 0.33x of the log-only append is the natural bound on one
 *    thread. Each produce stamps the same buffer again (offsets and epoch
 *    are outside the CRC), as a host produces from its receive buffer;
 *  - a node's in-process produce (<logrep/inproc.h>: logrep_node_produce +
 *    logrep_node_poll) against the same node fed Kafka Produce frames
 *    (v9, encoded once with the public proto API) through
 *    logrep_node_request, on a single node (broker and controller) over
 *    memory storage, acks=1. The transport counts the bytes answered to
 *    the client and carries the node's connection to its own controller.
 *    The host ticks the node when the time it asked for has come (checked
 *    every 64 inputs) on both paths; for 1-record batches the wire path is
 *    also run with a tick after every request, node.h's rule for a host
 *    that reads one request at a time;
 *  - in-process fetch (logrep_node_fetch + poll) against a wire Fetch
 *    (v12) of the same bytes, 1 MiB and one batch at a time.
 * Slices of each alternate with their baseline; medians are reported with
 * the range of the slices' ratios. Timing is wall clock: on a shared
 * machine the last line says how much of a core the bench had.
 * LOGREP_BENCH_EMBED_MB (default 64) is the data per slice of the 16 KiB
 * loads; the small-batch loads scale with it. LOGREP_BENCH_EMBED_ONLY=
 * partition or =node runs one half (for profiling). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include <logrep.h>
#include <logrep/inproc.h>
#include <logrep/log.h>
#include <logrep/node.h>
#include <logrep/partition.h>
#include <logrep/proto.h>
#include <logrep/storage.h>

#define SLICES 5
#define SEGMENT "16777216"  /* segment.bytes of every log here */
#define SEGMENT_SIZE (16u << 20)
#define WINDOW 8 /* acks=-1 produces between two rounds of follower fetches */
#define NREP 3

static void die(const char *what, logrep_err e)
{
    fprintf(stderr, "bench_embed: %s: %s\n", what, logrep_err_name(e));
    exit(1);
}

static int64_t clock_ms(void)
{
    return (int64_t)(bench_now() * 1000.0);
}

static double median(double *v, int n)
{
    double s[SLICES * 2];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* A baseline label with the range of the slices' ratios:
 * "<what> (slices lo-hi<extra>)". */
static const char *slices(char *buf, size_t size, const char *what, const double *r,
                          const char *extra)
{
    double lo = r[0], hi = r[0];
    for (int i = 1; i < SLICES; i++) {
        lo = r[i] < lo ? r[i] : lo;
        hi = r[i] > hi ? r[i] : hi;
    }
    snprintf(buf, size, "%s (slices %.3f-%.3f%s)", what, lo, hi, extra);
    return buf;
}

/* One batch of `records` records of vsize-byte values (key "k"), built with
 * the public builder; caller frees. */
static uint8_t *make_batch(int records, size_t vsize, size_t *len)
{
    logrep_batch_builder *b;
    logrep_err e = logrep_batch_builder_new(NULL, &b);
    if (e)
        die("batch builder", e);
    char *v = malloc(vsize);
    for (size_t i = 0; i < vsize; i++)
        v[i] = (char)('a' + i % 26);
    for (int i = 0; i < records; i++)
        if ((e = logrep_batch_builder_add(b, 1700000000000LL + i, "k", 1, v, (int32_t)vsize, NULL,
                                          0)))
            die("batch add", e);
    const uint8_t *out;
    if ((e = logrep_batch_builder_finish(b, &out, len)))
        die("batch finish", e);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    free(v);
    return copy;
}

typedef struct shape {
    const char *name;
    int records;
    size_t vsize;
    uint8_t *batch;
    size_t len;
    long n; /* produces per slice */
} shape;

/* ================================================= 1. the partition API */

typedef struct trio {
    logrep_conf *conf;
    logrep_storage *st[NREP + 1];
    logrep_partition *p[NREP + 1]; /* by replica id 1..NREP; 1 leads */
    uint8_t *fbuf;
    size_t fcap;
    long completed;
} trio;

static logrep_conf *log_conf(void)
{
    logrep_conf *c = logrep_conf_new();
    logrep_conf_set(c, "segment.bytes", SEGMENT, NULL, 0);
    return c;
}

static void trio_open(trio *t)
{
    memset(t, 0, sizeof *t);
    t->conf = log_conf();
    logrep_conf_set(t->conf, "min.insync.replicas", "2", NULL, 0);
    logrep_leadership l = {.leader = 1, .leader_epoch = 0, .partition_epoch = 0};
    int64_t now = clock_ms();
    logrep_err e;
    for (int id = 1; id <= NREP; id++) {
        logrep_log *log;
        if ((e = logrep_storage_memory_new(NULL, &t->st[id])) ||
            (e = logrep_log_open(t->conf, t->st[id], "bench-0", now, &log)) ||
            (e = logrep_partition_new(t->conf, id, log, &t->p[id])))
            die("replica", e);
        l.replicas[l.n_replicas++] = id;
        l.isr[l.n_isr++] = id;
    }
    for (int id = 1; id <= NREP; id++)
        if ((e = logrep_partition_apply(t->p[id], &l, now)))
            die("apply", e);
    t->fcap = 1 << 20;
    t->fbuf = malloc(t->fcap);
}

static void trio_close(trio *t)
{
    for (int id = 1; id <= NREP; id++) {
        logrep_partition_free(t->p[id], 1);
        logrep_storage_free(t->st[id]);
    }
    logrep_conf_free(t->conf);
    free(t->fbuf);
}

/* One fetch of follower `id`, carried to the leader and its answer back. */
static void trio_fetch(trio *t, int id, int64_t now)
{
    logrep_follower_fetch ff;
    logrep_err e = logrep_partition_next_fetch(t->p[id], &ff);
    if (e)
        die("next_fetch", e);
    logrep_fetch_request req = {id, ff.current_leader_epoch, ff.last_fetched_epoch,
                                ff.fetch_offset, t->fcap, 0};
    logrep_fetch_result res;
    if ((e = logrep_partition_fetch(t->p[ff.leader], &req, now, &res)))
        die("leader fetch", e);
    size_t len = (size_t)res.slice.length;
    if (len > t->fcap)
        die("fetch larger than its buffer", LOGREP_ERR__LIMIT);
    if (len && (e = logrep_partition_read_slice(t->p[ff.leader], &res.slice, t->fbuf, len)))
        die("read_slice", e);
    if ((e = logrep_partition_fetch_response(t->p[id], &ff, &res, t->fbuf, len, now)))
        die("fetch_response", e);
}

/* The leader's events: completed produces are counted; nothing else is
 * expected in a run this short (an ISR proposal would mean a lagging
 * follower). */
static void trio_events(trio *t, int64_t now)
{
    logrep_partition_event ev;
    while (logrep_partition_poll(t->p[1], now, &ev)) {
        if (ev.type == LOGREP_PARTITION_EV_PRODUCE) {
            if (ev.produce.error)
                die("acks=-1 produce", ev.produce.error);
            t->completed++;
        } else if (ev.type == LOGREP_PARTITION_EV_ISR_CHANGE) {
            die("unexpected ISR proposal", LOGREP_ERR__INVALID_ARG);
        }
    }
}

/* Produces s->n batches acks=-1 and replicates them; seconds until the
 * high watermark passed the last and every completion was taken. */
static double run_replicated(const shape *s)
{
    trio t;
    trio_open(&t);
    uint8_t *b = malloc(s->len);
    memcpy(b, s->batch, s->len);
    long produced = 0;
    double t0 = bench_now();
    int64_t now = clock_ms();
    while (produced < s->n || t.completed < s->n) {
        for (int w = 0; w < WINDOW && produced < s->n; w++, produced++) {
            logrep_produce_result r;
            logrep_err e =
                logrep_partition_produce(t.p[1], b, s->len, -1, 30000, (uint64_t)produced, now, &r);
            if (e || !r.pending)
                die("produce", e);
        }
        for (int id = 2; id <= NREP; id++)
            trio_fetch(&t, id, now);
        trio_events(&t, now);
        now = clock_ms();
        logrep_partition_tick(t.p[1], now);
    }
    double el = bench_now() - t0;
    int64_t end = logrep_partition_log_end_offset(t.p[1]);
    if (end != s->n * s->records || logrep_partition_high_watermark(t.p[1]) != end)
        die("replicated run: wrong log end or high watermark", LOGREP_ERR__INVALID_ARG);
    for (int id = 2; id <= NREP; id++)
        if (logrep_partition_log_end_offset(t.p[id]) != end)
            die("replicated run: a follower is behind", LOGREP_ERR__INVALID_ARG);
    trio_close(&t);
    free(b);
    return el;
}

/* The same batches appended to one log: no replication. */
static double run_log_only(const shape *s)
{
    logrep_storage *st;
    logrep_log *log;
    logrep_conf *c = log_conf();
    logrep_err e;
    if ((e = logrep_storage_memory_new(NULL, &st)) ||
        (e = logrep_log_open(c, st, "bench-0", clock_ms(), &log)))
        die("log", e);
    logrep_conf_free(c);
    uint8_t *b = malloc(s->len);
    memcpy(b, s->batch, s->len);
    double t0 = bench_now();
    for (long i = 0; i < s->n; i++)
        if ((e = logrep_log_append_leader(log, b, s->len, 0, 0, NULL)))
            die("append", e);
    double el = bench_now() - t0;
    if (logrep_log_end_offset(log) != s->n * s->records)
        die("log-only run: wrong log end", LOGREP_ERR__INVALID_ARG);
    logrep_log_abandon(log);
    logrep_storage_free(st);
    free(b);
    return el;
}

/* The same bytes copied once into segment-sized heap blocks, as the
 * memory storage holds a log (without its growth by doubling). */
static double run_memcpy(const shape *s)
{
    enum { MAXBLK = 1024 };
    uint8_t *blk[MAXBLK];
    int nb = 0;
    size_t used = SEGMENT_SIZE;
    double t0 = bench_now();
    for (long i = 0; i < s->n; i++) {
        if (used + s->len > SEGMENT_SIZE) {
            if (nb == MAXBLK || !(blk[nb++] = malloc(SEGMENT_SIZE)))
                die("memcpy baseline", LOGREP_ERR__NOMEM);
            used = 0;
        }
        memcpy(blk[nb - 1] + used, s->batch, s->len);
        used += s->len;
    }
    bench_sink(blk[nb - 1]);
    double el = bench_now() - t0;
    for (int i = 0; i < nb; i++)
        free(blk[i]);
    return el;
}

static void bench_partition_api(shape *s)
{
    double rep[SLICES], lo[SLICES], mc[SLICES], ratio[SLICES], ceil_ratio[SLICES];
    run_replicated(s); /* warm-up: the heap grows to its size once */
    for (int i = 0; i < SLICES; i++) {
        mc[i] = run_memcpy(s);
        lo[i] = run_log_only(s);
        rep[i] = run_replicated(s);
        ratio[i] = lo[i] / rep[i];
        ceil_ratio[i] = mc[i] / lo[i];
    }
    double bytes = (double)s->len * (double)s->n;
    double r = median(rep, SLICES), l = median(lo, SLICES), m = median(mc, SLICES);
    printf("-- partition API, %s (%zu B, %d records), %ld produces per slice, %d slices\n",
           s->name, s->len, s->records, s->n, SLICES);
    char base[64];
    bench_report("  memcpy of the same bytes (ceiling)", bytes / m / 1e6, "MB/s", 1.0, "", 0, 1);
    bench_report("  one log, logrep_log_append_leader", bytes / l / 1e6, "MB/s",
                 median(ceil_ratio, SLICES), "of memcpy", 0, 1);
    bench_report("  3 replicas, acks=-1, HW past every batch", bytes / r / 1e6, "MB/s",
                 median(ratio, SLICES),
                 slices(base, sizeof base, "of log-only", ratio, "; bound 0.33"), 0, 1);
    printf("%-46s %12.0f %-10s %12.0f log-only\n", "  batches/s, replicated", s->n / r,
           "batches/s", s->n / l);
    double per_rep = r / s->n * 1e6, per_log = l / s->n * 1e6;
    printf("%-46s %12.3f %-10s %12.3f us log-only; beyond 3 appends: %.3f us\n",
           "  time per produce, replicated", per_rep, "us", per_log, per_rep - 3 * per_log);
}

/* ======================================== 2, 3. a node, in-process vs wire */

/* The node's transport: the client's connection (CLIENT_CONN, accepted)
 * only counts the bytes of the answers; the node's connections to its own
 * controller are carried back to it, queued and delivered by host_pump
 * (never from inside a transport method). Node-opened connections are even
 * ids from 1000, their accepted ends the next odd id. */
#define CLIENT_CONN 1
#define QMAX 256

typedef struct qframe {
    uint64_t conn;
    int response; /* 1: deliver with logrep_node_response */
    uint8_t *data;
    size_t len;
} qframe;

typedef struct host {
    logrep_node *node;
    logrep_storage *st;
    logrep_transport tr;
    uint64_t next_conn;
    qframe q[QMAX];
    size_t qhead, qlen;
    uint64_t client_frames, client_bytes;
    int64_t wake; /* when the node asked to be ticked */
} host;

static logrep_err host_send(void *ctx, uint64_t conn, const logrep_seg *segs, size_t nsegs)
{
    host *h = ctx;
    size_t len = 0;
    for (size_t i = 0; i < nsegs; i++) {
        if (!segs[i].data)
            die("a file segment from memory storage", LOGREP_ERR__INVALID_ARG);
        len += (size_t)segs[i].len;
    }
    if (conn == CLIENT_CONN) {
        h->client_frames++;
        h->client_bytes += len;
        return LOGREP_OK;
    }
    if (h->qlen == QMAX)
        die("loopback queue full", LOGREP_ERR__LIMIT);
    qframe *f = &h->q[(h->qhead + h->qlen++) % QMAX];
    f->data = malloc(len);
    f->len = 0;
    for (size_t i = 0; i < nsegs; i++) {
        memcpy(f->data + f->len, segs[i].data, (size_t)segs[i].len);
        f->len += (size_t)segs[i].len;
    }
    f->response = conn % 2; /* sent on an accepted end: an answer */
    f->conn = f->response ? conn - 1 : conn + 1;
    return LOGREP_OK;
}

static logrep_err host_connect(void *ctx, int32_t node_id, const char *hostname, int32_t port,
                               uint64_t *conn)
{
    host *h = ctx;
    (void)node_id;
    (void)hostname;
    (void)port;
    *conn = h->next_conn;
    h->next_conn += 2;
    return LOGREP_OK;
}

static void host_close(void *ctx, uint64_t conn)
{
    (void)ctx;
    fprintf(stderr, "bench_embed: the node closed connection %llu\n", (unsigned long long)conn);
    exit(1);
}

/* Delivers the loopback frames, and ticks when the node asked for it. */
static void host_pump(host *h, int64_t now)
{
    for (;;) {
        while (h->qlen) {
            qframe f = h->q[h->qhead];
            h->qhead = (h->qhead + 1) % QMAX;
            h->qlen--;
            logrep_err e = f.response ? logrep_node_response(h->node, f.conn, f.data, f.len, now)
                                      : logrep_node_request(h->node, f.conn, f.data, f.len, now);
            free(f.data);
            if (e)
                die("loopback frame", e);
        }
        if (now < h->wake)
            return;
        h->wake = logrep_node_tick(h->node, now);
        if (!h->qlen) /* (a wake of `now`: an in-process event waits for the caller's poll) */
            return;
    }
}

static logrep_node_event *host_wait(host *h, logrep_node_event *ev, int type, double max_s)
{
    double until = bench_now() + max_s;
    while (bench_now() < until) {
        int64_t now = clock_ms();
        h->wake = now;
        host_pump(h, now);
        if (logrep_node_poll(h->node, ev)) {
            if (ev->type != type)
                die("unexpected event", LOGREP_ERR__INVALID_ARG);
            return ev;
        }
        usleep(1000);
    }
    die("no event in time", LOGREP_ERR__TIMED_OUT);
    return NULL;
}

static int leads(host *h)
{
    logrep_node_partition_info pi;
    return logrep_node_partition_count(h->node) == 1 &&
           logrep_node_partition(h->node, 0, &pi) == LOGREP_OK && pi.role == 1;
}

static int64_t log_end(host *h)
{
    logrep_node_partition_info pi;
    if (logrep_node_partition(h->node, 0, &pi))
        die("partition info", LOGREP_ERR__INVALID_ARG);
    return pi.log_end_offset;
}

static int64_t log_start(host *h)
{
    logrep_node_partition_info pi;
    if (logrep_node_partition(h->node, 0, &pi))
        die("partition info", LOGREP_ERR__INVALID_ARG);
    return pi.log_start_offset;
}

static void host_start(host *h)
{
    memset(h, 0, sizeof *h);
    h->next_conn = 1000;
    h->tr = (logrep_transport){LOGREP_TRANSPORT_VERSION, h, host_send, host_connect, host_close};
    logrep_err e;
    if ((e = logrep_storage_memory_new(NULL, &h->st)))
        die("storage", e);
    logrep_conf *c = logrep_conf_new();
    logrep_conf_set(c, "node.id", "1", NULL, 0);
    logrep_conf_set(c, "process.roles", "broker,controller", NULL, 0);
    logrep_conf_set(c, "controller.quorum.voters", "1@n1:9093", NULL, 0);
    logrep_conf_set(c, "advertised.listeners", "PLAINTEXT://n1:9092", NULL, 0);
    logrep_conf_set(c, "log.dirs", "data", NULL, 0);
    /* Bounded memory: 16 MiB segments, the partition kept at about 64 MiB
     * (retention checked every 20 ms, files removed at once). */
    logrep_conf_set(c, "segment.bytes", SEGMENT, NULL, 0);
    logrep_conf_set(c, "retention.bytes", "67108864", NULL, 0);
    logrep_conf_set(c, "log.retention.check.interval.ms", "20", NULL, 0);
    logrep_conf_set(c, "file.delete.delay.ms", "0", NULL, 0);
    char err[200] = "";
    if ((e = logrep_node_new(c, h->st, &h->tr, clock_ms(), err, sizeof err, &h->node))) {
        fprintf(stderr, "bench_embed: node: %s %s\n", logrep_err_name(e), err);
        exit(1);
    }
    logrep_conf_free(c);
    if ((e = logrep_node_accepted(h->node, CLIENT_CONN, "PLAINTEXT")))
        die("accepted", e);
    /* Registration with its own controller, then the topic. */
    logrep_node_event ev;
    double until = bench_now() + 10;
    for (;;) {
        if ((e = logrep_node_create_topic(h->node, "bench", 1, 1, NULL, NULL, 0, 5000, 1,
                                          clock_ms())))
            die("create_topic", e);
        host_wait(h, &ev, LOGREP_NODE_EV_CREATE_TOPIC, 10);
        if (ev.error == LOGREP_OK)
            break;
        if (bench_now() > until)
            die("create_topic event", ev.error);
        usleep(10000); /* no broker registered yet */
    }
    while (!leads(h)) {
        if (bench_now() > until)
            die("the node does not lead its topic", LOGREP_ERR__TIMED_OUT);
        int64_t now = clock_ms();
        h->wake = now;
        host_pump(h, now);
        usleep(1000);
    }
}

static void host_stop(host *h)
{
    logrep_node_free(h->node, 1);
    logrep_storage_free(h->st);
    for (size_t i = 0; i < h->qlen; i++)
        free(h->q[(h->qhead + i) % QMAX].data);
}

/* A request frame encoded once with the public proto API; caller frees. */
static uint8_t *encode_once(logrep_msg *m, size_t *len)
{
    const uint8_t *out;
    logrep_err e = logrep_msg_encode_flat(m, &out, len);
    if (e)
        die(logrep_msg_errmsg(m), e);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    return copy;
}

static logrep_struct *elem(logrep_struct *s, const char *name, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, name), i);
}

static void set_int(logrep_struct *s, const char *name, int64_t v)
{
    logrep_err e = logrep_struct_set_int(s, logrep_struct_field(s, name), v);
    if (e)
        die(name, e);
}

/* Sets the request's one topic ("bench", its array and name fields named)
 * with one partition, and returns that partition. */
static logrep_struct *one_partition(logrep_struct *root, const char *topics, const char *name,
                                    const char *partitions)
{
    logrep_struct_set_count(root, logrep_struct_field(root, topics), 1);
    logrep_struct *t = elem(root, topics, 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, name), "bench", 5);
    logrep_struct_set_count(t, logrep_struct_field(t, partitions), 1);
    return elem(t, partitions, 0);
}

static uint8_t *produce_frame(const shape *s, size_t *len)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 9, 7, "bench");
    logrep_struct *root = logrep_msg_root(m);
    set_int(root, "Acks", 1);
    set_int(root, "TimeoutMs", 5000);
    logrep_struct *p = one_partition(root, "TopicData", "Name", "PartitionData");
    set_int(p, "Index", 0);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), s->batch, (int32_t)s->len);
    uint8_t *f = encode_once(m, len);
    logrep_msg_free(m);
    return f;
}

/* A consumer's sessionless Fetch of partition 0 from `offset`. */
static uint8_t *fetch_frame(int64_t offset, int32_t max_bytes, size_t *len)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    logrep_msg_init_request(m, LOGREP_API_FETCH, 12, 8, "bench");
    logrep_struct *root = logrep_msg_root(m);
    set_int(root, "ReplicaId", -1);
    set_int(root, "MaxWaitMs", 0);
    set_int(root, "MinBytes", 1);
    set_int(root, "MaxBytes", max_bytes);
    logrep_struct *p = one_partition(root, "Topics", "Topic", "Partitions");
    set_int(p, "Partition", 0);
    set_int(p, "FetchOffset", offset);
    set_int(p, "PartitionMaxBytes", max_bytes);
    uint8_t *f = encode_once(m, len);
    logrep_msg_free(m);
    return f;
}

/* n produces acks=1 through logrep_node_produce, each event polled. */
static double run_inproc_produce(host *h, const shape *s)
{
    int64_t before = log_end(h);
    logrep_node_event ev;
    double t0 = bench_now();
    int64_t now = clock_ms();
    for (long i = 0; i < s->n; i++) {
        logrep_err e =
            logrep_node_produce(h->node, "bench", 0, s->batch, s->len, 1, 5000, (uint64_t)i, now);
        if (e)
            die("logrep_node_produce", e);
        int got = 0;
        while (logrep_node_poll(h->node, &ev)) {
            if (ev.type != LOGREP_NODE_EV_PRODUCE || ev.error)
                die("produce event", ev.error);
            got++;
        }
        if (got != 1)
            die("acks=1 produce without its event", LOGREP_ERR__INVALID_ARG);
        if ((i & 63) == 63) {
            now = clock_ms();
            host_pump(h, now);
        }
    }
    double el = bench_now() - t0;
    if (log_end(h) - before != s->n * s->records)
        die("in-process produce: wrong log end", LOGREP_ERR__INVALID_ARG);
    return el;
}

/* n Produce frames through logrep_node_request; answers only counted.
 * With tick_each the node is ticked after every request, as node.h asks
 * of a host after input (one request per read: the most ticks a host
 * makes); else when the time it returned has come, as the in-process
 * loop does. */
static double run_wire_produce(host *h, const shape *s, const uint8_t *frame, size_t flen,
                               int tick_each)
{
    int64_t before = log_end(h);
    uint64_t frames0 = h->client_frames;
    double t0 = bench_now();
    int64_t now = clock_ms();
    for (long i = 0; i < s->n; i++) {
        logrep_err e = logrep_node_request(h->node, CLIENT_CONN, frame, flen, now);
        if (e)
            die("logrep_node_request", e);
        if (tick_each) {
            h->wake = now;
            host_pump(h, now);
        }
        if ((i & 63) == 63) {
            now = clock_ms();
            host_pump(h, now);
        }
    }
    double el = bench_now() - t0;
    if (h->client_frames - frames0 != (uint64_t)s->n)
        die("wire produce: an answer is missing", LOGREP_ERR__INVALID_ARG);
    if (log_end(h) - before != s->n * s->records)
        die("wire produce: wrong log end", LOGREP_ERR__INVALID_ARG);
    return el;
}

static void bench_node_produce(host *h, const shape *s, int tick_each)
{
    size_t flen;
    uint8_t *frame = produce_frame(s, &flen);
    double in[SLICES], wi[SLICES], wt[SLICES], ratio[SLICES], ratio_t[SLICES];
    uint64_t bytes0 = h->client_bytes, frames0 = h->client_frames;
    for (int i = 0; i < SLICES; i++) {
        wi[i] = run_wire_produce(h, s, frame, flen, 0);
        in[i] = run_inproc_produce(h, s);
        ratio[i] = wi[i] / in[i];
        if (tick_each) {
            wt[i] = run_wire_produce(h, s, frame, flen, 1);
            ratio_t[i] = wt[i] / in[i];
        }
    }
    double w = median(wi, SLICES), p = median(in, SLICES);
    double recs = (double)s->n * s->records;
    printf("-- node produce, %s (%zu B, %d records; Produce v9 frame %zu B, answer %.0f B), "
           "acks=1, %ld per slice\n",
           s->name, s->len, s->records, flen,
           (double)(h->client_bytes - bytes0) / (double)(h->client_frames - frames0), s->n);
    char base[64];
    bench_report("  wire: logrep_node_request", recs / w, "records/s", 1.0, "", 0, 1);
    bench_report("  in-process: logrep_node_produce + poll", recs / p, "records/s",
                 median(ratio, SLICES), slices(base, sizeof base, "of wire", ratio, ""), 0, 1);
    printf("%-46s %12.0f %-10s %12.0f wire; %.3f vs %.3f us per produce\n",
           "  produces/s, in-process", s->n / p, "produces/s", s->n / w, p / s->n * 1e6,
           w / s->n * 1e6);
    if (tick_each) {
        double t = median(wt, SLICES);
        bench_report("  wire, tick after every request", recs / t, "records/s",
                     median(ratio_t, SLICES),
                     slices(base, sizeof base, "in-process/this", ratio_t, ""), 0, 1);
        printf("%-46s %12.3f %-10s\n", "  one tick (difference per request)",
               (t - w) / s->n * 1e6, "us");
    }
    free(frame);
}

static double run_inproc_fetch(host *h, long n, int64_t offset, int32_t max_bytes,
                               size_t *records_len)
{
    logrep_node_event ev;
    double t0 = bench_now();
    int64_t now = clock_ms();
    for (long i = 0; i < n; i++) {
        logrep_err e = logrep_node_fetch(h->node, "bench", 0, offset, max_bytes, 0, 0, (uint64_t)i,
                                         now);
        if (e)
            die("logrep_node_fetch", e);
        if (!logrep_node_poll(h->node, &ev) || ev.type != LOGREP_NODE_EV_FETCH || ev.error ||
            !ev.records_len)
            die("fetch event", ev.error);
        *records_len = ev.records_len;
        bench_sink(ev.records);
        if ((i & 63) == 63) {
            now = clock_ms();
            host_pump(h, now);
        }
    }
    return bench_now() - t0;
}

static double run_wire_fetch(host *h, long n, const uint8_t *frame, size_t flen)
{
    uint64_t frames0 = h->client_frames;
    double t0 = bench_now();
    int64_t now = clock_ms();
    for (long i = 0; i < n; i++) {
        logrep_err e = logrep_node_request(h->node, CLIENT_CONN, frame, flen, now);
        if (e)
            die("logrep_node_request (fetch)", e);
        if ((i & 63) == 63) {
            now = clock_ms();
            host_pump(h, now);
        }
    }
    double el = bench_now() - t0;
    if (h->client_frames - frames0 != (uint64_t)n)
        die("wire fetch: an answer is missing", LOGREP_ERR__INVALID_ARG);
    return el;
}

static void bench_node_fetch(host *h, int32_t max_bytes, long n)
{
    size_t flen, rlen = 0;
    /* 8 MiB of 16 KiB batches before the end: retention (which keeps
     * 48-64 MiB) cannot take them while the fetches run. */
    int64_t offset = log_end(h) - 512 * 100;
    if (offset < log_start(h))
        die("fetch offset below the log start", LOGREP_ERR__INVALID_ARG);
    uint8_t *frame = fetch_frame(offset, max_bytes, &flen);
    double in[SLICES], wi[SLICES], ratio[SLICES];
    uint64_t bytes0 = h->client_bytes, frames0 = h->client_frames;
    for (int i = 0; i < SLICES; i++) {
        wi[i] = run_wire_fetch(h, n, frame, flen);
        in[i] = run_inproc_fetch(h, n, offset, max_bytes, &rlen);
        ratio[i] = wi[i] / in[i];
    }
    double answer = (double)(h->client_bytes - bytes0) / (double)(h->client_frames - frames0);
    if (answer < (double)rlen)
        die("wire fetch answers are shorter than the records", LOGREP_ERR__INVALID_ARG);
    double w = median(wi, SLICES), p = median(in, SLICES);
    printf("-- node fetch, max %d B: %zu B of records each (Fetch v12 answer %.0f B), %ld per "
           "slice\n",
           max_bytes, rlen, answer, n);
    char base[64];
    bench_report("  wire: logrep_node_request", (double)rlen * n / w / 1e6, "MB/s", 1.0, "", 0,
                 1);
    bench_report("  in-process: logrep_node_fetch + poll", (double)rlen * n / p / 1e6, "MB/s",
                 median(ratio, SLICES), slices(base, sizeof base, "of wire", ratio, ""), 0, 1);
    printf("%-46s %12.0f %-10s %12.0f wire\n", "  fetches/s, in-process", n / p, "fetches/s",
           n / w);
    free(frame);
}

int main(void)
{
    const char *env = getenv("LOGREP_BENCH_EMBED_MB");
    long mb = env ? atol(env) : 64;
    if (mb < 1)
        mb = 1;
    /* Every memory storage file is a heap block of at most SEGMENT bytes
     * (segments roll at SEGMENT, the node's retention frees old ones), and
     * freed blocks stay in the process: after a warm-up no slice pays the
     * kernel's first touch of new pages (on this VM a host fault each,
     * docs/performance.md "Page cache"), which otherwise swamps the
     * library's work and varies several times between runs. A fixed
     * mmap threshold keeps glibc from moving it as blocks are freed. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT32_MAX);
    double t_start = bench_now();
    shape big = {"16 KiB batches of 100 records", 100, 153, NULL, 0, 0};
    shape small = {"1-record batches, 100 B values", 1, 100, NULL, 0, 0};
    big.batch = make_batch(big.records, big.vsize, &big.len);
    small.batch = make_batch(small.records, small.vsize, &small.len);
    big.n = (mb << 20) / (long)big.len;
    small.n = mb * 2000;

    const char *only = getenv("LOGREP_BENCH_EMBED_ONLY");
    if (!only || !strcmp(only, "partition")) {
        bench_partition_api(&big);
        bench_partition_api(&small);
    }
    if (!only || !strcmp(only, "node")) {
        host h;
        host_start(&h);
        bench_node_produce(&h, &big, 0);
        bench_node_fetch(&h, 1 << 20, mb * 16); /* reads what the 16 KiB loads wrote */
        bench_node_fetch(&h, 1, mb * 2000);
        bench_node_produce(&h, &small, 1);
        host_stop(&h);
    }

    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    double wall = bench_now() - t_start, used = (double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9;
    printf("total %.1f s, %.1f s of CPU (%.0f%% of one core; other processes had the rest)\n",
           wall, used, 100 * used / wall);
    free(big.batch);
    free(small.batch);
    return 0;
}
