/* Replication benchmarks: three nodes in one process over an in-memory
 * transport, POSIX storage in a temporary directory, RF 3, min ISR 2,
 * acks=all.
 *  - records/s and MB/s for 100 B and 1 KiB records against a
 *    single-replica append of the same batches (target >= 0.5x);
 *  - CPU microseconds per committed batch;
 *  - idempotent against non-idempotent acks=all throughput (>= 0.9x);
 *  - memory per replica and idle tick cost with 10,000 partitions per node
 *    (LOGREP_BENCH_PARTITIONS to change it; memory storage there: 30,000
 *    open logs would exceed descriptor limits with POSIX files).
 * Time in the cluster is virtual (advanced 1 ms whenever the network is
 * idle); the figures are wall-clock and CPU time of the whole process. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "logrep.h"
#include "logrep/log.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "logrep/storage.h"

#define NN 3
#define MAXC 4096
#define CLIENT (-1)

typedef struct frame {
    struct frame *next;
    uint64_t conn;
    size_t len;
    uint8_t data[];
} frame;

typedef struct end {
    int used, owner, accepted;
    uint64_t peer;
} end;

typedef struct cluster {
    logrep_node *node[NN + 1];
    logrep_storage *st[NN + 1];
    logrep_transport tr[NN + 1];
    int ctx[NN + 1];
    end ends[MAXC];
    frame *head, *tail, *inbox, *inbox_tail;
    int64_t now;
} cluster;

static cluster W;

static void enqueue(uint64_t c, const logrep_seg *segs, size_t nsegs)
{
    size_t total = 0;
    for (size_t i = 0; i < nsegs; i++)
        total += segs[i].len;
    frame *f = malloc(sizeof *f + total);
    f->next = NULL;
    f->conn = c;
    f->len = total;
    size_t at = 0;
    for (size_t i = 0; i < nsegs; i++) {
        if (segs[i].data) {
            memcpy(f->data + at, segs[i].data, segs[i].len);
        } else {
            ssize_t r = pread(segs[i].file, f->data + at, segs[i].len, (off_t)segs[i].pos);
            if (r != (ssize_t)segs[i].len) {
                fprintf(stderr, "pread of a file segment failed\n");
                exit(1);
            }
        }
        at += segs[i].len;
    }
    if (W.tail)
        W.tail->next = f;
    else
        W.head = f;
    W.tail = f;
}

static logrep_err t_send(void *ctx, uint64_t c, const logrep_seg *segs, size_t nsegs)
{
    int id = *(int *)ctx;
    if (c >= MAXC || !W.ends[c].used || W.ends[c].owner != id)
        return LOGREP_ERR__IO;
    enqueue(W.ends[c].peer, segs, nsegs);
    return LOGREP_OK;
}

static uint64_t open_pair(int from, int to)
{
    uint64_t a = 0, b = 0;
    for (uint64_t c = 1; c < MAXC && !b; c++) {
        if (W.ends[c].used)
            continue;
        if (!a)
            a = c;
        else
            b = c;
    }
    if (!b) {
        fprintf(stderr, "out of connections\n");
        exit(1);
    }
    W.ends[a] = (end){1, from, 0, b};
    W.ends[b] = (end){1, to, 1, a};
    return a;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *h, int32_t p, uint64_t *out)
{
    (void)h;
    (void)p;
    if (node_id < 1 || node_id > NN || !W.node[node_id])
        return LOGREP_ERR__IO;
    *out = open_pair(*(int *)ctx, node_id);
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t c)
{
    (void)ctx;
    if (c < MAXC && W.ends[c].used) {
        W.ends[c].used = 0;
        W.ends[W.ends[c].peer].used = 0;
    }
}

/* Delivers queued frames; returns how many. */
static int pump(void)
{
    int n = 0;
    while (W.head) {
        frame *f = W.head;
        W.head = f->next;
        if (!W.head)
            W.tail = NULL;
        end *e = &W.ends[f->conn];
        n++;
        if (!e->used) {
            free(f);
        } else if (e->owner == CLIENT) {
            f->next = NULL;
            if (W.inbox_tail)
                W.inbox_tail->next = f;
            else
                W.inbox = f;
            W.inbox_tail = f;
        } else {
            if (e->accepted)
                logrep_node_request(W.node[e->owner], f->conn, f->data, f->len, W.now);
            else
                logrep_node_response(W.node[e->owner], f->conn, f->data, f->len, W.now);
            free(f);
        }
    }
    return n;
}

static void step(void)
{
    if (pump())
        return;
    W.now += 1;
    for (int i = 1; i <= NN; i++)
        logrep_node_tick(W.node[i], W.now);
    pump();
}

static char root[] = "/tmp/logrep-bench-repl-XXXXXX";

static void start(int posix, const logrep_allocator *a)
{
    memset(&W, 0, sizeof W);
    W.now = 1000;
    for (int id = 1; id <= NN; id++) {
        if (posix)
            logrep_storage_posix_new(NULL, &W.st[id]);
        else
            logrep_storage_memory_new(NULL, &W.st[id]);
        logrep_conf *c = logrep_conf_new();
        if (a)
            logrep_conf_set_allocator(c, a);
        char buf[256];
        snprintf(buf, sizeof buf, "%d", id);
        logrep_conf_set(c, "node.id", buf, NULL, 0);
        logrep_conf_set(c, "process.roles", id == 1 ? "broker,controller" : "broker", NULL, 0);
        logrep_conf_set(c, "controller.quorum.voters", "1@b:9093", NULL, 0);
        snprintf(buf, sizeof buf, "PLAINTEXT://n%d:9092", id);
        logrep_conf_set(c, "advertised.listeners", buf, NULL, 0);
        logrep_conf_set(c, "min.insync.replicas", "2", NULL, 0);
        logrep_conf_set(c, "replica.fetch.wait.max.ms", "50", NULL, 0);
        if (posix)
            snprintf(buf, sizeof buf, "%s/n%d", root, id);
        else
            snprintf(buf, sizeof buf, "n%d", id);
        logrep_conf_set(c, "log.dirs", buf, NULL, 0);
        W.ctx[id] = id;
        W.tr[id] = (logrep_transport){LOGREP_TRANSPORT_VERSION, &W.ctx[id], t_send, t_connect, t_close};
        char err[200];
        if (logrep_node_new(c, W.st[id], &W.tr[id], W.now, err, sizeof err, &W.node[id])) {
            fprintf(stderr, "node %d: %s\n", id, err);
            exit(1);
        }
        logrep_conf_free(c);
    }
    for (int i = 0; i < 3000; i++)
        step();
}

static void stop(void)
{
    for (int id = 1; id <= NN; id++) {
        logrep_node_free(W.node[id], 0);
        logrep_storage_free(W.st[id]);
    }
    while (W.head) {
        frame *f = W.head;
        W.head = f->next;
        free(f);
    }
    while (W.inbox) {
        frame *f = W.inbox;
        W.inbox = f->next;
        free(f);
    }
    W.inbox_tail = NULL;
}

static logrep_msg *M, *R;

static logrep_struct *el(logrep_struct *s, const char *n, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, n), i);
}

static void seti(logrep_struct *s, const char *n, int64_t v)
{
    logrep_struct_set_int(s, logrep_struct_field(s, n), v);
}

static int64_t fi(logrep_struct *s, const char *n)
{
    return logrep_struct_int(s, logrep_struct_field(s, n));
}

static void send_on(uint64_t c)
{
    const uint8_t *buf;
    size_t len;
    if (logrep_msg_encode_flat(M, &buf, &len)) {
        fprintf(stderr, "encode: %s\n", logrep_msg_errmsg(M));
        exit(1);
    }
    logrep_seg s = {buf, len, -1, 0};
    enqueue(W.ends[c].peer, &s, 1);
}

/* Waits for the next response on conn c and decodes it into R. */
static void await(uint64_t c, int api, int version)
{
    for (long i = 0; i < 10000000; i++) {
        for (frame **pp = &W.inbox, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
            if ((*pp)->conn != c)
                continue;
            frame *f = *pp;
            *pp = f->next;
            if (W.inbox_tail == f)
                W.inbox_tail = prev;
            static uint8_t keep[4 << 20];
            memcpy(keep, f->data, f->len);
            if (logrep_msg_decode_response(R, api, version, keep, f->len)) {
                fprintf(stderr, "decode: %s\n", logrep_msg_errmsg(R));
                exit(1);
            }
            free(f);
            return;
        }
        step();
    }
    fprintf(stderr, "no response\n");
    exit(1);
}

static void create_topic(const char *name, int parts)
{
    uint64_t c = open_pair(CLIENT, 1);
    logrep_msg_init_request(M, LOGREP_API_CREATE_TOPICS, 5, 1, "b");
    logrep_struct *r = logrep_msg_root(M);
    seti(r, "timeoutMs", 600000);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 1);
    logrep_struct *t = el(r, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    seti(t, "NumPartitions", parts);
    seti(t, "ReplicationFactor", 3);
    send_on(c);
    await(c, LOGREP_API_CREATE_TOPICS, 5);
    int64_t e = fi(el(logrep_msg_root(R), "Topics", 0), "ErrorCode");
    if (e) {
        fprintf(stderr, "create: %s\n", logrep_err_name((int)e));
        exit(1);
    }
    for (int i = 0; i < 2000; i++)
        step();
}

static int leader_of(const char *name)
{
    uint64_t c = open_pair(CLIENT, 2);
    logrep_msg_init_request(M, LOGREP_API_METADATA, 9, 2, "b");
    logrep_struct *r = logrep_msg_root(M);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 1);
    logrep_struct *t = el(r, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    send_on(c);
    await(c, LOGREP_API_METADATA, 9);
    return (int)fi(el(el(logrep_msg_root(R), "Topics", 0), "Partitions", 0), "LeaderId");
}

static int64_t init_pid(int leader)
{
    uint64_t c = open_pair(CLIENT, leader);
    for (;;) {
        logrep_msg_init_request(M, LOGREP_API_INIT_PRODUCER_ID, 1, 3, "b");
        logrep_struct *r = logrep_msg_root(M);
        logrep_struct_set_bytes(r, logrep_struct_field(r, "TransactionalId"), NULL, -1);
        seti(r, "TransactionTimeoutMs", 60000);
        send_on(c);
        await(c, LOGREP_API_INIT_PRODUCER_ID, 1);
        if (fi(logrep_msg_root(R), "ErrorCode") == 0)
            return fi(logrep_msg_root(R), "ProducerId");
        for (int i = 0; i < 100; i++)
            step();
    }
}

/* A 16 KiB batch of `rsize`-byte records. */
static uint8_t *make_batch(int rsize, int64_t pid, int32_t seq, size_t *len, int *nrec)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    if (pid >= 0)
        logrep_batch_builder_set_producer(b, pid, 0, seq);
    uint8_t *v = calloc(1, (size_t)rsize);
    int n = 16384 / (rsize + 20);
    for (int i = 0; i < n; i++) {
        v[0] = (uint8_t)i;
        logrep_batch_builder_add(b, 1700000000000LL, NULL, -1, v, rsize, NULL, 0);
    }
    const uint8_t *p;
    logrep_batch_builder_finish(b, &p, len);
    uint8_t *out = malloc(*len);
    memcpy(out, p, *len);
    logrep_batch_builder_free(b);
    free(v);
    *nrec = n;
    return out;
}

typedef struct result {
    double secs, cpu;
    long batches, records;
    size_t bytes;
} result;

/* Pipelines `batches` acks=all produces (5 in flight on one connection). */
static result produce_run(const char *topic, int rsize, long batches, int idempotent)
{
    int leader = leader_of(topic);
    int64_t pid = idempotent ? init_pid(leader) : -1;
    uint64_t c = open_pair(CLIENT, leader);
    result res = {0};
    long sent = 0, done = 0;
    int32_t seq = 0;
    double t0 = bench_now();
    clock_t c0 = clock();
    while (done < batches) {
        while (sent < batches && sent - done < 5) {
            size_t len;
            int n;
            uint8_t *batch = make_batch(rsize, pid, seq, &len, &n);
            seq += n;
            logrep_msg_init_request(M, LOGREP_API_PRODUCE, 7, (int32_t)sent, "b");
            logrep_struct *r = logrep_msg_root(M);
            seti(r, "Acks", -1);
            seti(r, "TimeoutMs", 30000);
            logrep_struct_set_count(r, logrep_struct_field(r, "TopicData"), 1);
            logrep_struct *t = el(r, "TopicData", 0);
            logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
            logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
            logrep_struct *p = el(t, "PartitionData", 0);
            seti(p, "Index", 0);
            logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)len);
            send_on(c);
            free(batch);
            res.records += n;
            res.bytes += (size_t)n * (size_t)rsize;
            sent++;
        }
        await(c, LOGREP_API_PRODUCE, 7);
        int64_t e = fi(el(el(logrep_msg_root(R), "Responses", 0), "PartitionResponses", 0), "ErrorCode");
        if (e) {
            fprintf(stderr, "produce: %s\n", logrep_err_name((int)e));
            exit(1);
        }
        done++;
    }
    res.secs = bench_now() - t0;
    res.cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    res.batches = batches;
    return res;
}

/* The same batches appended to one local log (no replication). */
static result local_append(int rsize, long batches)
{
    logrep_storage *st;
    logrep_storage_posix_new(NULL, &st);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/local-%d", root, rsize);
    logrep_log *log;
    if (logrep_log_open(NULL, st, dir, 0, &log)) {
        fprintf(stderr, "local log open failed\n");
        exit(1);
    }
    result res = {0};
    double t0 = bench_now();
    clock_t c0 = clock();
    for (long i = 0; i < batches; i++) {
        size_t len;
        int n;
        uint8_t *batch = make_batch(rsize, -1, 0, &len, &n);
        if (logrep_log_append_leader(log, batch, len, 0, 0, NULL)) {
            fprintf(stderr, "append failed\n");
            exit(1);
        }
        free(batch);
        res.records += n;
        res.bytes += (size_t)n * (size_t)rsize;
    }
    res.secs = bench_now() - t0;
    res.cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    res.batches = batches;
    logrep_log_close(log);
    logrep_storage_free(st);
    return res;
}

static void throughput(int rsize, long batches)
{
    char topic[32];
    snprintf(topic, sizeof topic, "thr-%d", rsize);
    create_topic(topic, 1);
    result rep = produce_run(topic, rsize, batches, 0);
    result loc = local_append(rsize, batches);
    char name[96];
    snprintf(name, sizeof name, "RF3 acks=all %d B records", rsize);
    double rr = rep.records / rep.secs, lr = loc.records / loc.secs;
    bench_report(name, rr, "records/s", rr / lr, "of local append", 0.5, 1);
    snprintf(name, sizeof name, "RF3 acks=all %d B records", rsize);
    bench_report(name, rep.bytes / rep.secs / 1e6, "MB/s", rr / lr, "of local append", 0.5, 1);
    snprintf(name, sizeof name, "CPU per committed batch (%d B records)", rsize);
    bench_report(name, rep.cpu / (double)rep.batches * 1e6, "us", (rep.cpu / rep.batches) / (loc.cpu / loc.batches),
                 "of local append", 0, 0);
}

static void idempotence(long batches)
{
    create_topic("idem", 1);
    create_topic("plain", 1);
    result a = produce_run("plain", 100, batches, 0);
    result b = produce_run("idem", 100, batches, 1);
    double ra = a.records / a.secs, rb = b.records / b.secs;
    bench_report("RF3 acks=all idempotent 100 B records", rb, "records/s", rb / ra,
                 "of non-idempotent", 0.9, 1);
}

static void many_partitions(int parts)
{
    counting cnt = {0};
    logrep_allocator a = {&cnt, c_alloc, c_realloc, c_free};
    start(0, &a);
    long before = cnt.live;
    create_topic("many", parts);
    for (int i = 0; i < 3000; i++)
        step();
    size_t hosted = 0;
    for (int id = 1; id <= NN; id++)
        hosted += logrep_node_partition_count(W.node[id]);
    double per = (double)(cnt.live - before) / (double)(hosted ? hosted : 1);
    char name[96];
    snprintf(name, sizeof name, "memory per replica (%d partitions x RF 3)", parts);
    bench_report(name, per, "bytes", per / 16384.0, "of 16 KiB", 0, 0);
    /* Idle: no traffic beyond the followers' long polls. */
    int rounds = 200;
    double t0 = bench_now();
    for (int r = 0; r < rounds; r++) {
        W.now += 10;
        for (int id = 1; id <= NN; id++)
            logrep_node_tick(W.node[id], W.now);
        pump();
    }
    double per_tick = (bench_now() - t0) / (rounds * NN);
    snprintf(name, sizeof name, "idle tick per node (%zu replicas)", hosted / NN);
    bench_report(name, per_tick * 1e6, "us", per_tick * 1e9 / (double)(hosted / NN),
                 "ns per replica", 0, 0);
    stop();
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    logrep_msg_new(NULL, &M);
    logrep_msg_new(NULL, &R);
    const char *e = getenv("LOGREP_BENCH_REPL_BATCHES");
    long batches = e ? atol(e) : 4000;
    e = getenv("LOGREP_BENCH_PARTITIONS");
    int parts = e ? atoi(e) : 10000;
    start(1, NULL);
    throughput(100, batches);
    throughput(1024, batches);
    idempotence(batches);
    stop();
    many_partitions(parts);
    logrep_msg_free(M);
    logrep_msg_free(R);
    rm_rf(root);
    return 0;
}
