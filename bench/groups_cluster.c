/* The cluster bench_groups runs on (three nodes over the in-memory
 * transport, stepped in lockstep) and the bench's requests to it:
 * field helpers, send and await, CreateTopics, Metadata, FindCoordinator,
 * OffsetFetch. Declared in groups_cluster.h. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "groups_cluster.h"

cluster W;
char root[] = "/tmp/logrep-bench-groups-XXXXXX";
static int clusters; /* each cluster gets a directory of its own */
logrep_msg *M, *R;
static int32_t corr;

void die(const char *what)
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

double in_nodes; /* seconds spent delivering to and ticking the nodes */

/* Delivers what is queued, or else lets 1 ms pass. */
void step(void)
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

void run_ms(int64_t ms)
{
    int64_t end = W.now + ms;
    while (W.now < end)
        step();
}

void start(const char *initial_delay)
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

void stop(void)
{
    for (int id = 1; id <= NN; id++) {
        logrep_node_free(W.node[id], 0);
        logrep_storage_free(W.st[id]);
    }
    lr_memnet_free(W.net);
    W.net = NULL;
}

void kill_node(int id)
{
    logrep_node_free(W.node[id], 1);
    W.node[id] = NULL;
    lr_memnet_set_node(W.net, id, NULL); /* its peers see its connections close */
    W.adm[id] = 0;
}

/* ------------------------------------------------------------ requests */

uint64_t open_pair(int to)
{
    uint64_t c;
    if (lr_memnet_open(W.net, CLIENT, to, &c) != LOGREP_OK)
        die("out of connections");
    return c;
}

logrep_struct *el(logrep_struct *s, const char *n, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, n), i);
}

void seti(logrep_struct *s, const char *n, int64_t v)
{
    logrep_struct_set_int(s, logrep_struct_field(s, n), v);
}

void sets(logrep_struct *s, const char *n, const char *v)
{
    logrep_struct_set_bytes(s, logrep_struct_field(s, n), v, (int32_t)strlen(v));
}

void setcount(logrep_struct *s, const char *n, int32_t k)
{
    logrep_struct_set_count(s, logrep_struct_field(s, n), k);
}

int64_t fi(logrep_struct *s, const char *n)
{
    return logrep_struct_int(s, logrep_struct_field(s, n));
}

int32_t fcount(logrep_struct *s, const char *n)
{
    return logrep_struct_count(s, logrep_struct_field(s, n));
}

/* Field n of s into out (at most size-1 bytes). */
void fstr(logrep_struct *s, const char *n, char *out, size_t size)
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

logrep_struct *req(int api, int version)
{
    logrep_msg_init_request(M, api, version, ++corr, "bench");
    return logrep_msg_root(M);
}

void send_on(uint64_t c)
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
void decode(frame *f, int api, int version)
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
logrep_struct *await(uint64_t c, int api, int version)
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
logrep_struct *call(int to, int api, int version)
{
    if (!W.adm[to])
        W.adm[to] = open_pair(to);
    send_on(W.adm[to]);
    return await(W.adm[to], api, version);
}

void create_topic(const char *name, int parts, int rf)
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

int leader_of(const char *name, int partition)
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
int32_t find_coordinator(int ask, const char *g, int64_t *err)
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
int64_t fetch_offsets(int to, const char *g, int64_t *out)
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
int ready_coordinator(const char *g)
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
int64_t offsets_log_end(void)
{
    int64_t sum = 0;
    for (int id = 1; id <= NN; id++) {
        if (!W.node[id])
            continue;
        for (size_t i = 0; i < logrep_node_partition_count(W.node[id]); i++) {
            logrep_node_partition_info pi;
            if (logrep_node_partition(W.node[id], i, &pi) == LOGREP_OK && pi.role == 1 &&
                !strcmp(pi.topic, OFFSETS_TOPIC))
                sum += pi.log_end_offset;
        }
    }
    return sum;
}
