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

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "sim/memnet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXQ = 4096, CLIENT = -1 };

typedef struct loop {
    logrep_node *node;
    lr_memnet *net;
    uint64_t conn; /* the fuzz client's connection */
    int64_t now;
} loop;

/* Answers to the fuzz client are dropped. */
static void drop(void *ctx, lr_memnet_msg *m)
{
    lr_memnet_msg_free(((loop *)ctx)->net, m);
}

static void pump(loop *l)
{
    lr_memnet_pump(l->net, l->now, 10000);
}

static void run(loop *l, int ticks)
{
    for (int i = 0; i < ticks; i++) {
        l->now += 10;
        logrep_node_tick(l->node, l->now);
        pump(l);
    }
}

/* Sends one frame as the client, on a new connection when the node
 * closed the last one (as a client reconnects). */
static void client_send(loop *l, const uint8_t *frame, size_t len)
{
    logrep_seg seg = {frame, len, -1, 0};
    if (l->conn && lr_memnet_send(l->net, CLIENT, l->conn, &seg, 1) == LOGREP_OK)
        return;
    if (lr_memnet_open(l->net, CLIENT, 1, &l->conn) == LOGREP_OK)
        lr_memnet_send(l->net, CLIENT, l->conn, &seg, 1);
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
            client_send(l, buf, len);
    }
    logrep_msg_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const topics[] = {"rdk-none", "kjs-none", "rdk-zstd", "rdk-gzip", "t"};
    loop *l = calloc(1, sizeof *l);
    logrep_storage *st = NULL;
    logrep_conf *conf = logrep_conf_new();
    lr_memnet_conf nc = {.max_node = 1, .max_frames = MAXQ, .ctx = l, .client = drop};
    if (!l || !conf || logrep_storage_memory_new(NULL, &st) != LOGREP_OK ||
        lr_memnet_new(&nc, &l->net) != LOGREP_OK)
        goto out;
    l->now = 1000;
    logrep_conf_set(conf, "node.id", "1", NULL, 0);
    logrep_conf_set(conf, "controller.quorum.voters", "1@fuzz:9093", NULL, 0);
    logrep_conf_set(conf, "advertised.listeners", "PLAINTEXT://fuzz:9092", NULL, 0);
    logrep_conf_set(conf, "socket.request.max.bytes", "1048576", NULL, 0);
    logrep_conf_set(conf, "logrep.decompress.max.bytes", "1048576", NULL, 0);
    logrep_conf_set(conf, "broker.heartbeat.interval.ms", "20", NULL, 0);
    if (logrep_node_new(conf, st, lr_memnet_transport(l->net, 1), l->now, NULL, 0, &l->node) !=
        LOGREP_OK)
        goto out;
    lr_memnet_set_node(l->net, 1, l->node);
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
        client_send(l, data + pos, flen);
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
        lr_memnet_free(l->net);
        free(l);
    }
    logrep_storage_free(st);
    logrep_conf_free(conf);
    return 0;
}
