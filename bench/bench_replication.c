/* Replication benchmarks: three nodes in one process over an in-memory
 * transport, POSIX storage in a temporary directory, RF 3, min ISR 2,
 * acks=all. The produced topic has 3 partitions (a leader on each node) and
 * 5 produce requests in flight per partition, each one 16 KiB batch: the
 * shape of Kafka's default idempotent producer.
 *  - records/s and MB/s for 100 B and 1 KiB records against a
 *    single-replica append of the same batches (target >= 0.5x), with a
 *    thread per node, as separate brokers would have, in slices alternated
 *    with the local append (medians). Beside it, two ceilings of this
 *    machine measured in the same slices: three plain local appends at once
 *    on their own threads (RF 3 with no protocol at all), and the lockstep
 *    run where one thread does all three replicas' work (at most 1/3);
 *  - CPU microseconds per committed batch;
 *  - idempotent against non-idempotent acks=all throughput (>= 0.9x);
 *  - memory per replica and idle tick cost with 9,999 partitions per node (one
 *    topic record and 9,999 partition records: Kafka's bound on one operation)
 *    (LOGREP_BENCH_PARTITIONS to change it; memory storage there: 30,000
 *    open logs would exceed descriptor limits with POSIX files).
 * LOGREP_BENCH_WINDOW, LOGREP_BENCH_BATCH_BYTES, LOGREP_BENCH_REPL_PARTS
 * and LOGREP_BENCH_REPL_BATCHES change the load's shape. In lockstep, time
 * is virtual (advanced 1 ms whenever the network is idle); with threads it
 * follows the wall clock. Figures are wall-clock and whole-process CPU. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include <logrep.h>
#include <logrep/log.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "sim/memnet.h"

#define NN 3
#define CLIENT (-1)

typedef lr_memnet_msg frame;

typedef struct cluster {
    logrep_node *node[NN + 1];
    logrep_storage *st[NN + 1];
    lr_memnet *net;
    int64_t now;
} cluster;

static cluster W;

/* Appends f to the queue (head, tail). */
static void fq_push(frame **head, frame **tail, frame *f)
{
    f->next = NULL;
    if (*tail)
        (*tail)->next = f;
    else
        *head = f;
    *tail = f;
}

/* Threaded mode: one inbox per node (index 0: the bench client). */
typedef struct box {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    frame *head, *tail;
} box;

static box boxes[NN + 1];
static int threaded;
static atomic_int halt;
static double t_base;
static int64_t now_base;
static pthread_mutex_t net_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t threads[NN + 1];

static int64_t now_ms(void)
{
    return threaded ? now_base + (int64_t)((bench_now() - t_base) * 1000.0) : W.now;
}

static void box_push(int to, frame *f)
{
    box *b = &boxes[to];
    pthread_mutex_lock(&b->mu);
    int was_empty = !b->head;
    fq_push(&b->head, &b->tail, f);
    pthread_mutex_unlock(&b->mu);
    if (was_empty)
        pthread_cond_signal(&b->cv);
}

/* Takes everything queued for `to`, waiting up to 1 ms for something. */
static frame *box_take(int to)
{
    box *b = &boxes[to];
    pthread_mutex_lock(&b->mu);
    if (!b->head) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&b->cv, &b->mu, &ts);
    }
    frame *f = b->head;
    b->head = b->tail = NULL;
    pthread_mutex_unlock(&b->mu);
    return f;
}

static int box_of(const frame *f)
{
    return f->to >= 1 && f->to <= NN ? f->to : 0;
}

/* The network: a memnet, locked only while node threads run (the mode
 * changes while they are stopped); with them every message goes straight
 * to its endpoint's box. */
static void net_lock(void *ctx)
{
    (void)ctx;
    if (threaded)
        pthread_mutex_lock(&net_mu);
}

static void net_unlock(void *ctx)
{
    (void)ctx;
    if (threaded)
        pthread_mutex_unlock(&net_mu);
}

static int net_hold(void *ctx, frame *f)
{
    (void)ctx;
    if (!threaded)
        return 0;
    box_push(box_of(f), f);
    return 1;
}

static logrep_err net_read_file(void *ctx, int32_t from, const logrep_seg *seg, void *buf)
{
    (void)ctx;
    (void)from;
    if (pread((int)seg->file, buf, (size_t)seg->len, (off_t)seg->pos) != (ssize_t)seg->len) {
        fprintf(stderr, "pread of a file segment failed\n");
        exit(1);
    }
    return LOGREP_OK;
}

static void *node_thread(void *arg)
{
    int id = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "node%d", id);
    pthread_setname_np(pthread_self(), name);
    int64_t last = now_ms();
    while (!atomic_load(&halt)) {
        frame *f = box_take(id);
        while (f) {
            frame *next = f->next;
            lr_memnet_deliver(W.net, f, now_ms());
            f = next;
        }
        int64_t t = now_ms();
        if (t != last) {
            logrep_node_tick(W.node[id], t);
            last = t;
        }
    }
    return NULL;
}

static void go_threaded(void)
{
    for (int i = 0; i <= NN; i++) {
        pthread_mutex_init(&boxes[i].mu, NULL);
        pthread_cond_init(&boxes[i].cv, NULL);
    }
    /* Whatever the lockstep queue still holds goes to the inboxes. */
    now_base = W.now;
    t_base = bench_now();
    for (frame *f; (f = lr_memnet_take(W.net)) != NULL;)
        box_push(box_of(f), f);
    threaded = 1;
    atomic_store(&halt, 0);
    for (int i = 1; i <= NN; i++)
        pthread_create(&threads[i], NULL, node_thread, (void *)(intptr_t)i);
}

static void go_lockstep(void)
{
    atomic_store(&halt, 1);
    for (int i = 1; i <= NN; i++)
        pthread_join(threads[i], NULL);
    W.now = now_ms() + 1;
    threaded = 0;
    for (int i = 0; i <= NN; i++) {
        frame *f = boxes[i].head;
        boxes[i].head = boxes[i].tail = NULL;
        while (f) {
            frame *next = f->next;
            lr_memnet_queue(W.net, f);
            f = next;
        }
    }
}

static uint64_t open_pair(int from, int to)
{
    uint64_t c;
    if (lr_memnet_open(W.net, from, to, &c) != LOGREP_OK) {
        fprintf(stderr, "out of connections\n");
        exit(1);
    }
    return c;
}

/* Delivers queued frames; returns how many. */
static int pump(void)
{
    return (int)lr_memnet_pump(W.net, W.now, 0);
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
    lr_memnet_conf nc = {.max_node = NN, .hold = net_hold, .read_file = net_read_file,
                         .lock = net_lock, .unlock = net_unlock};
    if (lr_memnet_new(&nc, &W.net) != LOGREP_OK) {
        fprintf(stderr, "memnet: out of memory\n");
        exit(1);
    }
    for (int id = 1; id <= NN; id++) {
        if (posix)
            logrep_storage_posix_new(NULL, &W.st[id]);
        else
            logrep_storage_memory_new(NULL, &W.st[id]);
        logrep_conf *c = logrep_conf_new();
        if (a)
            logrep_conf_set_allocator(c, a);
        bench_cluster_conf(c, id);
        char buf[256];
        if (posix)
            snprintf(buf, sizeof buf, "%s/n%d", root, id);
        else
            snprintf(buf, sizeof buf, "n%d", id);
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
    for (int i = 0; i < 3000; i++)
        step();
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
    if (lr_memnet_send(W.net, CLIENT, c, &s, 1) != LOGREP_OK) {
        fprintf(stderr, "send: connection closed\n");
        exit(1);
    }
}

/* Waits for the next response on conn c (any connection if c is 0),
 * decodes it into R and returns its connection. */
static uint64_t await(uint64_t c, int api, int version)
{
    for (long i = 0; i < 10000000; i++) {
        frame *f = lr_memnet_inbox_take(W.net, c);
        if (f) {
            static uint8_t keep[4 << 20];
            memcpy(keep, f->data, f->len);
            if (logrep_msg_decode_response(R, api, version, keep, f->len)) {
                fprintf(stderr, "decode: %s\n", logrep_msg_errmsg(R));
                exit(1);
            }
            uint64_t got = f->end;
            lr_memnet_msg_free(W.net, f);
            return got;
        }
        if (!threaded) {
            step();
            continue;
        }
        for (f = box_take(0); f;) {
            frame *next = f->next;
            lr_memnet_deliver(W.net, f, now_ms()); /* into the inbox */
            f = next;
        }
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

static int leader_of(const char *name, int partition)
{
    uint64_t c = open_pair(CLIENT, 2);
    logrep_msg_init_request(M, LOGREP_API_METADATA, 9, 2, "b");
    logrep_struct *r = logrep_msg_root(M);
    logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 1);
    logrep_struct *t = el(r, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    send_on(c);
    await(c, LOGREP_API_METADATA, 9);
    logrep_struct *t0 = el(logrep_msg_root(R), "Topics", 0);
    for (int32_t i = 0; i < logrep_struct_count(t0, logrep_struct_field(t0, "Partitions")); i++) {
        logrep_struct *p = el(t0, "Partitions", i);
        if (fi(p, "PartitionIndex") == partition)
            return (int)fi(p, "LeaderId");
    }
    return -1;
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
        for (int i = 0; i < 100 && !threaded; i++)
            step();
        if (threaded)
            usleep(10000);
    }
}

static int window = 5;       /* produce requests in flight per partition */
static int nparts = 3;       /* partitions of the produced topic */
static int batch_bytes = 16384;

/* A batch of `rsize`-byte records, about batch_bytes long. */
static uint8_t *make_batch(int rsize, int64_t pid, int32_t seq, size_t *len, int *nrec)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    if (pid >= 0)
        logrep_batch_builder_set_producer(b, pid, 0, seq);
    uint8_t *v = calloc(1, (size_t)rsize);
    int n = batch_bytes / (rsize + 20);
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

/* Pipelines `batches` acks=all produces over the topic's `parts`
 * partitions, `window` in flight on each partition leader's connection. */
static result produce_run(const char *topic, int parts, int rsize, long batches, int idempotent)
{
    struct {
        uint64_t conn;
        long sent, done;
        int32_t seq;
    } pp[NN * 4] = {{0}};
    int64_t pid = idempotent ? init_pid(leader_of(topic, 0)) : -1;
    for (int i = 0; i < parts; i++)
        pp[i].conn = open_pair(CLIENT, leader_of(topic, i));
    result res = {0};
    long sent = 0, done = 0;
    double t0 = bench_now();
    clock_t c0 = clock();
    while (done < batches) {
        for (int i = 0; i < parts; i++) {
            while (sent < batches && pp[i].sent - pp[i].done < window) {
                size_t len;
                int n;
                uint8_t *batch = make_batch(rsize, pid, pp[i].seq, &len, &n);
                pp[i].seq += n;
                logrep_msg_init_request(M, LOGREP_API_PRODUCE, 7, (int32_t)sent, "b");
                logrep_struct *r = logrep_msg_root(M);
                seti(r, "Acks", -1);
                seti(r, "TimeoutMs", 30000);
                logrep_struct_set_count(r, logrep_struct_field(r, "TopicData"), 1);
                logrep_struct *t = el(r, "TopicData", 0);
                logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
                logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
                logrep_struct *p = el(t, "PartitionData", 0);
                seti(p, "Index", i);
                logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)len);
                send_on(pp[i].conn);
                free(batch);
                res.records += n;
                res.bytes += (size_t)n * (size_t)rsize;
                sent++;
                pp[i].sent++;
            }
        }
        uint64_t c = await(0, LOGREP_API_PRODUCE, 7);
        int64_t e = fi(el(el(logrep_msg_root(R), "Responses", 0), "PartitionResponses", 0), "ErrorCode");
        if (e) {
            fprintf(stderr, "produce: %s\n", logrep_err_name((int)e));
            exit(1);
        }
        for (int i = 0; i < parts; i++)
            if (pp[i].conn == c)
                pp[i].done++;
        done++;
    }
    res.secs = bench_now() - t0;
    res.cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    res.batches = batches;
    return res;
}

static pthread_barrier_t lone_start;
static double lone_t0;

/* The same batches appended to one local log (no replication); `which`
 * names the log, and a nonzero one waits at lone_start. */
static result local_append_to(int rsize, long batches, int which)
{
    logrep_storage *st;
    logrep_storage_posix_new(NULL, &st);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/local-%d-%d", root, rsize, which);
    logrep_log *log;
    if (logrep_log_open(NULL, st, dir, 0, &log)) {
        fprintf(stderr, "local log open failed\n");
        exit(1);
    }
    result res = {0};
    if (which)
        pthread_barrier_wait(&lone_start);
    double t0 = which ? lone_t0 : bench_now();
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

static result local_append(int rsize, long batches)
{
    return local_append_to(rsize, batches, 0);
}

/* The machine's ceiling for RF 3 without any replication protocol: three
 * local appends of the same batches at once, a thread each. */
typedef struct lone {
    pthread_t th;
    int rsize, which;
    long batches;
    double secs;
} lone;

static void *lone_thread(void *arg)
{
    lone *l = arg;
    l->secs = local_append_to(l->rsize, l->batches, l->which).secs;
    return NULL;
}

static result three_appends(int rsize, long batches)
{
    lone l[NN];
    result res = {0};
    /* Timed from when all three logs are open to the last append. */
    pthread_barrier_init(&lone_start, NULL, NN + 1);
    for (int i = 0; i < NN; i++) {
        l[i] = (lone){0, rsize, i + 1, batches, 0};
        pthread_create(&l[i].th, NULL, lone_thread, &l[i]);
    }
    lone_t0 = bench_now();
    pthread_barrier_wait(&lone_start);
    for (int i = 0; i < NN; i++) {
        pthread_join(l[i].th, NULL);
        if (l[i].secs > res.secs)
            res.secs = l[i].secs;
    }
    pthread_barrier_destroy(&lone_start);
    res.batches = batches;
    res.records = batches * (batch_bytes / (rsize + 20));
    return res;
}

#define SLICES 7

static void throughput(int rsize, long batches)
{
    char topic[32];
    snprintf(topic, sizeof topic, "thr-%d", rsize);
    create_topic(topic, nparts);
    /* Lockstep: one core does all three replicas' work. */
    result step1 = produce_run(topic, nparts, rsize, batches, 0);
    result loc1 = local_append(rsize, batches);
    /* A thread per node, in slices alternated with the local append, so
     * both see the same load on this shared machine; medians reported. */
    double ratio[SLICES], rate[SLICES], ceil[SLICES], eff[SLICES], cpu = 0, cpu_loc = 0, secs = 0;
    long nb = 0, nb_loc = 0;
    for (int k = 0; k < SLICES; k++) {
        go_threaded();
        result rep = produce_run(topic, nparts, rsize, batches / SLICES, 0);
        go_lockstep();
        result loc = local_append(rsize, batches / SLICES);
        result three = three_appends(rsize, batches / SLICES);
        rate[k] = rep.records / rep.secs;
        ratio[k] = rate[k] / (loc.records / loc.secs);
        ceil[k] = (three.records / three.secs) / (loc.records / loc.secs);
        eff[k] = ratio[k] / ceil[k];
        cpu += rep.cpu;
        cpu_loc += loc.cpu;
        secs += rep.secs;
        nb += rep.batches;
        nb_loc += loc.batches;
    }
    qsort(ratio, SLICES, sizeof *ratio, bench_cmp_double);
    qsort(rate, SLICES, sizeof *rate, bench_cmp_double);
    qsort(ceil, SLICES, sizeof *ceil, bench_cmp_double);
    qsort(eff, SLICES, sizeof *eff, bench_cmp_double);
    double r = ratio[SLICES / 2], rr = rate[SLICES / 2];
    char name[96];
    snprintf(name, sizeof name, "RF3 acks=all %d B, thread per node", rsize);
    bench_report(name, rr, "records/s", r, "of local append", 0.5, 1);
    bench_report(name, rr * rsize / 1e6, "MB/s", r, "of local append", 0.5, 1);
    printf("%-46s %12s %-10s %8s  slices: %.2f..%.2f, %.2f cores busy\n", "", "", "", "", ratio[0],
           ratio[SLICES - 1], cpu / secs);
    printf("%-46s %12s %-10s %7.3fx %s\n", "  three local appends at once (no replication)", "", "",
           ceil[SLICES / 2], "of local append: this machine's RF 3 ceiling");
    printf("%-46s %12s %-10s %7.3fx %s\n", "  RF 3 replication against that ceiling", "", "",
           eff[SLICES / 2], "(median of the slices)");
    snprintf(name, sizeof name, "CPU per committed batch (%d B records)", rsize);
    bench_report(name, cpu / (double)nb * 1e6, "us", (cpu / (double)nb) / (cpu_loc / (double)nb_loc),
                 "of local append", 0, 0);
    double sr = step1.records / step1.secs, slr = loc1.records / loc1.secs;
    snprintf(name, sizeof name, "RF3 acks=all %d B, one thread", rsize);
    bench_report(name, sr, "records/s", sr / slr, "of local append (ceiling 1/3)", 0, 0);
    snprintf(name, sizeof name, "  CPU per committed batch, one thread");
    bench_report(name, step1.cpu / (double)step1.batches * 1e6, "us",
                 (step1.cpu / (double)step1.batches) / (loc1.cpu / (double)loc1.batches),
                 "of local append (3 appends: 3x)", 0, 0);
}

static void idempotence(long batches)
{
    create_topic("idem", nparts);
    create_topic("plain", nparts);
    double ratio[SLICES], rate[SLICES];
    go_threaded();
    for (int k = 0; k < SLICES; k++) {
        result a = produce_run("plain", nparts, 100, batches / SLICES, 0);
        result b = produce_run("idem", nparts, 100, batches / SLICES, 1);
        rate[k] = b.records / b.secs;
        ratio[k] = rate[k] / (a.records / a.secs);
    }
    go_lockstep();
    qsort(ratio, SLICES, sizeof *ratio, bench_cmp_double);
    qsort(rate, SLICES, sizeof *rate, bench_cmp_double);
    bench_report("RF3 acks=all idempotent 100 B records", rate[SLICES / 2], "records/s",
                 ratio[SLICES / 2], "of non-idempotent", 0.9, 1);
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

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    logrep_msg_new(NULL, &M);
    logrep_msg_new(NULL, &R);
    const char *e = getenv("LOGREP_BENCH_REPL_BATCHES");
    long batches = e ? atol(e) : 4000;
    e = getenv("LOGREP_BENCH_WINDOW");
    window = e ? atoi(e) : window;
    e = getenv("LOGREP_BENCH_REPL_PARTS");
    nparts = e ? atoi(e) : nparts;
    if (nparts < 1 || nparts > NN * 4)
        nparts = 3;
    e = getenv("LOGREP_BENCH_BATCH_BYTES");
    batch_bytes = e ? atoi(e) : batch_bytes;
    e = getenv("LOGREP_BENCH_PARTITIONS");
    int parts = e ? atoi(e) : 9999; /* the most one CreateTopics may create */
    start(1, NULL);
    throughput(100, batches);
    throughput(1024, batches);
    idempotence(batches);
    stop();
    many_partitions(parts);
    logrep_msg_free(M);
    logrep_msg_free(R);
    bench_rm_rf(root);
    return 0;
}
