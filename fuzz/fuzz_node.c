/* Fuzz target: arbitrary bytes as client requests to a live node. Each
 * input gets a fresh single node (broker and controller, in-memory storage,
 * a loopback transport to itself) that has registered and holds the topics
 * the captured client frames name; the input is split into frames (a
 * 4-byte size prefix each; a leftover tail becomes one more frame) and fed
 * as requests, then the node runs a few ticks. Nothing may crash, leak or
 * grow without bound; responses are discarded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logrep.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "logrep/storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXQ = 4096, CLIENT_CONN = 1000 };

typedef struct qframe {
    uint64_t conn;
    size_t len;
    uint8_t *data;
} qframe;

typedef struct loop {
    logrep_node *node;
    qframe q[MAXQ];
    size_t head, tail;
    uint64_t next_conn;
    int64_t now;
} loop;

/* Connection ends: odd ids connect (responses arrive), even ids accept. */
static logrep_err t_send(void *ctx, uint64_t conn, const logrep_seg *segs, size_t n)
{
    loop *l = ctx;
    if (conn == CLIENT_CONN)
        return LOGREP_OK; /* answers to the fuzz client are dropped */
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!segs[i].data)
            return LOGREP_OK; /* memory storage: never file segments */
        total += segs[i].len;
    }
    if ((l->tail + 1) % MAXQ == l->head)
        return LOGREP_ERR__IO;
    uint8_t *buf = malloc(total ? total : 1);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + at, segs[i].data, segs[i].len);
        at += segs[i].len;
    }
    l->q[l->tail] = (qframe){conn ^ 1, total, buf};
    l->tail = (l->tail + 1) % MAXQ;
    return LOGREP_OK;
}

static logrep_err t_connect(void *ctx, int32_t id, const char *host, int32_t port, uint64_t *out)
{
    loop *l = ctx;
    (void)id;
    (void)host;
    (void)port;
    *out = l->next_conn;
    l->next_conn += 2;
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t conn)
{
    (void)ctx;
    (void)conn;
}

static void pump(loop *l)
{
    for (int guard = 0; l->head != l->tail && guard < 10000; guard++) {
        qframe f = l->q[l->head];
        l->head = (l->head + 1) % MAXQ;
        if (f.conn & 1)
            logrep_node_response(l->node, f.conn, f.data, f.len, l->now);
        else
            logrep_node_request(l->node, f.conn, f.data, f.len, l->now);
        free(f.data);
    }
}

static void run(loop *l, int ticks)
{
    for (int i = 0; i < ticks; i++) {
        l->now += 10;
        logrep_node_tick(l->node, l->now);
        pump(l);
    }
}

static void create_topic(loop *l, const char *name)
{
    logrep_msg *m;
    if (logrep_msg_new(NULL, &m) != LOGREP_OK)
        return;
    if (logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, 5, 1, "fuzz") == LOGREP_OK) {
        logrep_struct *r = logrep_msg_root(m);
        logrep_struct_set_count(r, logrep_struct_field(r, "Topics"), 1);
        logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, "Topics"), 0);
        logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
        logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), 2);
        logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), 1);
        const uint8_t *buf;
        size_t len;
        if (logrep_msg_encode_flat(m, &buf, &len) == LOGREP_OK)
            logrep_node_request(l->node, CLIENT_CONN, buf, len, l->now);
    }
    logrep_msg_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const topics[] = {"rdk-none", "kjs-none", "rdk-zstd", "rdk-gzip", "t"};
    loop *l = calloc(1, sizeof *l);
    logrep_storage *st = NULL;
    logrep_conf *conf = logrep_conf_new();
    if (!l || !conf || logrep_storage_memory_new(NULL, &st) != LOGREP_OK)
        goto out;
    l->next_conn = 1;
    l->now = 1000;
    logrep_conf_set(conf, "node.id", "1", NULL, 0);
    logrep_conf_set(conf, "controller.quorum.voters", "1@fuzz:9093", NULL, 0);
    logrep_conf_set(conf, "advertised.listeners", "PLAINTEXT://fuzz:9092", NULL, 0);
    logrep_conf_set(conf, "socket.request.max.bytes", "1048576", NULL, 0);
    logrep_conf_set(conf, "logrep.decompress.max.bytes", "1048576", NULL, 0);
    logrep_conf_set(conf, "broker.heartbeat.interval.ms", "20", NULL, 0);
    logrep_transport tr = {LOGREP_TRANSPORT_VERSION, l, t_send, t_connect, t_close};
    if (logrep_node_new(conf, st, &tr, l->now, NULL, 0, &l->node) != LOGREP_OK)
        goto out;
    run(l, 30);
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        create_topic(l, topics[i]);
    run(l, 10);
    size_t pos = 0;
    while (pos < size) {
        size_t flen;
        logrep_err e = logrep_proto_frame(data + pos, size - pos, 1 << 20, &flen);
        if (e != LOGREP_OK)
            flen = size - pos; /* a malformed or partial tail: one more frame */
        logrep_node_request(l->node, CLIENT_CONN, data + pos, flen, l->now);
        pos += flen;
        pump(l);
    }
    run(l, 5);
    if (getenv("LOGREP_FUZZ_NODE_DEBUG")) {
        logrep_node_stats ns;
        logrep_node_stats_get(l->node, &ns);
        fprintf(stderr, "partitions %zu, requests %lld, records produced %lld\n",
                logrep_node_partition_count(l->node), (long long)ns.requests,
                (long long)ns.produce_records);
    }
out:
    if (l) {
        logrep_node_free(l->node, 0);
        while (l->head != l->tail) {
            free(l->q[l->head].data);
            l->head = (l->head + 1) % MAXQ;
        }
        free(l);
    }
    logrep_storage_free(st);
    logrep_conf_free(conf);
    return 0;
}
