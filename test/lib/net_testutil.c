/* The in-memory network of nodes (see net_testutil.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "controller/md_snapshot.h"
#include "lib/net_testutil.h"
#include "node/ctl_role.h"
#include "sim/memnet.h"

static long file_segments;

long net_file_segments(void)
{
    return file_segments;
}

static logrep_err t_read_file(void *ctx, int32_t from, const logrep_seg *seg, void *buf)
{
    (void)ctx;
    file_segments++;
    /* A file segment (POSIX storage): read now, as a host that sends at
     * once does. */
    ssize_t n = pread((int)seg->file, buf, seg->len, (off_t)seg->pos);
    cr_assert_eq(n, (ssize_t)seg->len, "node %d: file segment: %zd of %llu bytes", from, n,
                 (unsigned long long)seg->len);
    return n == (ssize_t)seg->len ? LOGREP_OK : LOGREP_ERR__IO;
}

/* Port 9093 is the controller listener (controller.quorum.voters). */
static const char *t_listener(void *ctx, int32_t to, const char *host, int32_t port)
{
    (void)ctx;
    (void)to;
    (void)host;
    return port == 9093 ? "CONTROLLER" : "PLAINTEXT";
}

/* Counts requests by sending node and API key (frames to an accepted
 * end are requests); every message is left to the memnet to queue. */
static int t_hold(void *ctx, lr_memnet_msg *m)
{
    net *w = ctx;
    lr_memnet_end_info in;
    if (m->kind == LR_MEMNET_FRAME && m->len >= 6 && m->from >= 1 && m->from <= MAXN &&
        lr_memnet_end(w->mn, m->end, &in) && in.accepted) {
        int api = m->data[4] << 8 | m->data[5];
        if (api >= 0 && api < 80)
            w->requests_sent[m->from][api]++;
    }
    return 0;
}

static lr_memnet *net_of(net *w)
{
    if (!w->mn) {
        lr_memnet_conf c = {.max_node = MAXN, .ctx = w, .hold = t_hold, .listener = t_listener,
                            .read_file = t_read_file};
        cr_assert_eq(lr_memnet_new(&c, &w->mn), LOGREP_OK);
    }
    return w->mn;
}

static void test_log(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    fprintf(stderr, "[node %d %d %s] %.*s\n", (int)(intptr_t)ctx, level, subsys, (int)len, msg);
}

const char *const *extra_conf;
int net_crash_storage;
const char *net_voters;
int net_controllers = 1;
logrep_logger_fn log_capture;
void *log_capture_ctx;

logrep_err start_node_err(net *w, int id)
{
    logrep_conf *conf = logrep_conf_new();
    for (const char *const *kv = extra_conf; kv && kv[0]; kv += 2)
        cr_assert_eq(logrep_conf_set(conf, kv[0], kv[1], NULL, 0), LOGREP_OK, "%s", kv[0]);
    char buf[64];
    snprintf(buf, sizeof buf, "%d", id);
    cr_assert_eq(logrep_conf_set(conf, "node.id", buf, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "process.roles",
                                 id <= net_controllers ? "broker,controller" : "broker", NULL, 0),
                 LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "controller.quorum.voters",
                                 net_voters ? net_voters : "1@sim:9093", NULL, 0),
                 LOGREP_OK);
    snprintf(buf, sizeof buf, "PLAINTEXT://node%d:9092", id);
    cr_assert_eq(logrep_conf_set(conf, "advertised.listeners", buf, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "min.insync.replicas", "2", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "log.dirs", "data", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "replica.fetch.wait.max.ms", "50", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "file.delete.delay.ms", "500", NULL, 0), LOGREP_OK);
    if (log_capture)
        logrep_conf_set_logger(conf, log_capture, log_capture_ctx, LOGREP_LEVEL_INFO);
    else if (getenv("LOGREP_TEST_LOG"))
        logrep_conf_set_logger(conf, test_log, (void *)(intptr_t)id, LOGREP_LEVEL_DEBUG);
    if (w->alloc[id])
        cr_assert_eq(logrep_conf_set_allocator(conf, w->alloc[id]), LOGREP_OK);
    logrep_err e = logrep_node_new(conf, w->st[id], lr_memnet_transport(net_of(w), id), w->now,
                                   w->err, sizeof w->err, &w->node[id]);
    if (!e)
        lr_memnet_set_node(w->mn, id, w->node[id]);
    logrep_conf_free(conf);
    return e;
}

void start_node(net *w, int id)
{
    logrep_err e = start_node_err(w, id);
    cr_assert_eq(e, LOGREP_OK, "node %d: %s %s", id, logrep_err_name(e), w->err);
}

void setup(net *w, int n)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->now = 1000;
    for (int id = 1; id <= n; id++) {
        if (net_crash_storage)
            cr_assert_eq(logrep_storage_crash_new(NULL, 512, &w->st[id]), LOGREP_OK);
        else
            cr_assert_eq(logrep_storage_memory_new(NULL, &w->st[id]), LOGREP_OK);
        start_node(w, id);
    }
}

void kill_node(net *w, int id)
{
    logrep_node_free(w->node[id], 1);
    w->node[id] = NULL;
    w->down[id] = 1;
    lr_memnet_set_node(w->mn, id, NULL); /* its peers see its connections close */
}

void teardown(net *w)
{
    for (int id = 1; id <= w->n; id++) {
        logrep_node_free(w->node[id], 0);
        logrep_storage_free(w->st[id]);
    }
    lr_memnet_free(w->mn);
    w->mn = NULL;
}

/* Delivers every queued frame (and those they cause). */
void pump(net *w)
{
    lr_memnet_pump(w->mn, w->now, 100000);
}

void run(net *w, int64_t ms)
{
    for (int64_t t = 0; t < ms; t += 10) {
        w->now += 10;
        for (int id = 1; id <= w->n; id++)
            if (w->node[id])
                logrep_node_tick(w->node[id], w->now);
        pump(w);
    }
}

/* Sends a request from the test client to node `to`; returns the conn. */
uint64_t client_send(net *w, int to, logrep_msg *m)
{
    return client_send_on(w, to, "PLAINTEXT", m);
}

uint64_t client_send_on(net *w, int to, const char *listener, logrep_msg *m)
{
    uint64_t c;
    lr_memnet_end_info in;
    cr_assert_eq(lr_memnet_open(w->mn, CLIENT, to, &c), LOGREP_OK);
    cr_assert(lr_memnet_end(w->mn, c, &in));
    /* A connection the node cannot take (out of memory) is closed, as a
     * host does; waiting on it then reports it closed. */
    if (listener && logrep_node_accepted(w->node[to], in.peer, listener) != LOGREP_OK) {
        lr_memnet_close(w->mn, c, 0);
        return c;
    }
    const uint8_t *buf;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(m, &buf, &len), LOGREP_OK, "%s", logrep_msg_errmsg(m));
    logrep_seg s = {buf, len, -1, 0};
    cr_assert_eq(lr_memnet_send(w->mn, CLIENT, c, &s, 1), LOGREP_OK);
    return c;
}

void client_send_again(net *w, uint64_t c, logrep_msg *m)
{
    const uint8_t *buf;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(m, &buf, &len), LOGREP_OK, "%s", logrep_msg_errmsg(m));
    logrep_seg s = {buf, len, -1, 0};
    cr_assert_eq(lr_memnet_send(w->mn, CLIENT, c, &s, 1), LOGREP_OK);
}

int client_answer(net *w, uint64_t c, int api, int version, logrep_msg *resp, int64_t max_ms)
{
    for (int64_t t = 0; t <= max_ms; t += 10) {
        pump(w);
        lr_memnet_msg *f = lr_memnet_inbox_take(w->mn, c);
        if (f) {
            /* resp borrows the frame: keep a copy in a static slot. */
            static uint8_t keep[1 << 20];
            cr_assert_lt(f->len, sizeof keep);
            memcpy(keep, f->data, f->len);
            size_t len = f->len;
            lr_memnet_msg_free(w->mn, f);
            cr_assert_eq(logrep_msg_decode_response(resp, api, version, keep, len), LOGREP_OK,
                         "%s", logrep_msg_errmsg(resp));
            lr_memnet_close(w->mn, c, 0);
            return 1;
        }
        if (!lr_memnet_end(w->mn, c, NULL))
            return 0; /* closed without an answer */
        run(w, 10);
    }
    return -1;
}

/* Waits (running the cluster) for the response on conn and decodes it. */
void client_wait(net *w, uint64_t c, int api, int version, logrep_msg *resp, int64_t max_ms)
{
    int got = client_answer(w, c, api, version, resp, max_ms);
    cr_assert_neq(got, 0, "connection closed without a response");
    cr_assert_gt(got, 0, "no response within %lld ms", (long long)max_ms);
}

int64_t fint(logrep_struct *s, const char *name)
{
    return logrep_struct_int(s, logrep_struct_field(s, name));
}

logrep_struct *elem(logrep_struct *s, const char *name, int32_t i)
{
    return logrep_struct_elem(s, logrep_struct_field(s, name), i);
}


int client_has(net *w, uint64_t c)
{
    return lr_memnet_inbox_has(w->mn, c);
}

int client_closed(net *w, uint64_t c)
{
    for (int i = 0; i < 20; i++)
        run(w, 10);
    return !client_has(w, c) && !lr_memnet_end(w->mn, c, NULL);
}

logrep_msg *create_topic_request(const char *name, int parts, int rf, const char *const *configs)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, 7, 7, "test"), LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "timeoutMs"), 10000);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), parts);
    logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), rf);
    int32_t nc = 0;
    while (configs && configs[2 * nc])
        nc++;
    logrep_struct_set_count(t, logrep_struct_field(t, "Configs"), nc);
    for (int32_t i = 0; i < nc; i++) {
        logrep_struct *ce = elem(t, "Configs", i);
        logrep_struct_set_bytes(ce, logrep_struct_field(ce, "Name"), configs[2 * i],
                                (int32_t)strlen(configs[2 * i]));
        logrep_struct_set_bytes(ce, logrep_struct_field(ce, "Value"), configs[2 * i + 1],
                                (int32_t)strlen(configs[2 * i + 1]));
    }
    return m;
}

int create_topic_full(net *w, int via, const char *name, int parts, int rf,
                      const char *const *configs, char *msg, size_t msize, uint8_t id[16])
{
    logrep_msg *m = create_topic_request(name, parts, rf, configs), *r;
    logrep_msg_new(NULL, &r);
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_CREATE_TOPICS, 7, r, 5000);
    logrep_struct *rt = elem(logrep_msg_root(r), "Topics", 0);
    cr_assert_eq(logrep_msg_correlation_id(r), 7);
    int code = (int)fint(rt, "ErrorCode");
    if (msg) {
        const uint8_t *p = NULL;
        int32_t len = -1;
        logrep_struct_bytes(rt, logrep_struct_field(rt, "ErrorMessage"), &p, &len);
        snprintf(msg, msize, "%.*s", len > 0 ? (int)len : 0, p ? (const char *)p : "");
    }
    if (id)
        memcpy(id, logrep_struct_uuid(rt, logrep_struct_field(rt, "TopicId")), 16);
    logrep_msg_free(m);
    logrep_msg_free(r);
    return code;
}

void create_topic_with(net *w, int via, const char *name, int parts, int rf,
                       const char *const *configs)
{
    int code = create_topic_full(w, via, name, parts, rf, configs, NULL, 0, NULL);
    cr_assert_eq(code, 0, "create: %s", logrep_err_name(code));
}

void create_topic_cfg(net *w, int via, const char *name, int parts, int rf, const char *key,
                      const char *value)
{
    const char *kv[] = {key, value, NULL};
    create_topic_with(w, via, name, parts, rf, key ? kv : NULL);
}

void create_topic(net *w, int via, const char *name, int parts, int rf)
{
    create_topic_cfg(w, via, name, parts, rf, NULL, NULL);
}

void one_node(net *w)
{
    setup(w, 1);
    run(w, 1000);
}

/* Leader of topic/partition per node `via`'s metadata; -1 if none. */
int leader_of(net *w, int via, const char *topic, int part, int32_t *epoch)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_METADATA, 9, 8, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_METADATA, 9, r, 1000);
    logrep_struct *rs = logrep_msg_root(r);
    if (!net_voters)
        cr_assert_eq(fint(rs, "ControllerId"), 1);
    logrep_struct *rt = elem(rs, "Topics", 0);
    int leader = -1;
    if (fint(rt, "ErrorCode") == 0) {
        logrep_struct *rp = elem(rt, "Partitions", part);
        leader = (int)fint(rp, "LeaderId");
        if (epoch)
            *epoch = (int32_t)fint(rp, "LeaderEpoch");
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    return leader;
}

size_t values_batch(uint8_t *buf, size_t cap, const char *prefix, int n, int64_t ts)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    for (int i = 0; i < n; i++) {
        char v[64];
        snprintf(v, sizeof v, "%s%d", prefix, i);
        cr_assert_eq(logrep_batch_builder_add(b, ts + i, "k", 1, v, (int32_t)strlen(v), NULL, 0),
                     LOGREP_OK);
    }
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    cr_assert_leq(len, cap);
    memcpy(buf, out, len);
    logrep_batch_builder_free(b);
    return len;
}

/* Sends one Produce v7 carrying `batch` as the partition's records;
 * returns the connection to wait on. */
uint64_t produce_send_raw(net *w, int to, const char *topic, int part, const void *batch,
                          size_t blen, int16_t acks)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, 9, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), acks);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
    logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
    logrep_struct *t = elem(root, "TopicData", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
    logrep_struct *p = elem(t, "PartitionData", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Index"), part);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
    uint64_t c = client_send(w, to, m);
    logrep_msg_free(m);
    return c;
}

/* The produce answer on c within max_ms: its error; its base offset and
 * log append time through the pointers when not NULL. */
int16_t produce_wait_full(net *w, uint64_t c, int64_t max_ms, int64_t *base,
                          int64_t *append_time)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    client_wait(w, c, LOGREP_API_PRODUCE, 7, r, max_ms);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "PartitionResponses", 0);
    int16_t err = (int16_t)fint(rp, "ErrorCode");
    if (base)
        *base = fint(rp, "BaseOffset");
    if (append_time)
        *append_time = fint(rp, "LogAppendTimeMs");
    logrep_msg_free(r);
    return err;
}

int16_t produce_wait(net *w, uint64_t c, int64_t max_ms, int64_t *base)
{
    return produce_wait_full(w, c, max_ms, base, NULL);
}

/* Sends `batch` and waits for the partition's error code. */
int16_t produce_raw(net *w, int to, const char *topic, int part, const void *batch,
                           size_t blen, int16_t acks, int64_t *base, int64_t *append_time)
{
    return produce_wait_full(w, produce_send_raw(w, to, topic, part, batch, blen, acks), 6000, base,
                      append_time);
}

/* Sends a one-record Produce v7; returns the connection to wait on. */
uint64_t produce_send(net *w, int to, const char *topic, int part, const char *value,
                      int16_t acks)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, value, (int32_t)strlen(value), NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    uint64_t c = produce_send_raw(w, to, topic, part, batch, blen, acks);
    logrep_batch_builder_free(b);
    return c;
}

int16_t produce(net *w, int to, const char *topic, int part, const char *value, int16_t acks,
                       int64_t *base)
{
    return produce_wait(w, produce_send(w, to, topic, part, value, acks), 6000, base);
}

/* Fetches from `offset`; returns the partition's error code, and through
 * *count how many records came back, checking the values against
 * "v<offset>" (and, with *attrs, ORing the batches' attributes). */
int16_t fetch_records(net *w, int from, const char *topic, int part, int64_t offset,
                      int64_t *hw, int *count_out, int *attrs)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_FETCH, 11, 10, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), 0);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Partition"), part);
    logrep_struct_set_int(p, logrep_struct_field(p, "FetchOffset"), offset);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
    uint64_t c = client_send(w, from, m);
    client_wait(w, c, LOGREP_API_FETCH, 11, r, 1000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
    int16_t err = (int16_t)fint(rp, "ErrorCode");
    if (hw)
        *hw = fint(rp, "HighWatermark");
    const uint8_t *recs;
    int32_t rlen;
    logrep_struct_bytes(rp, logrep_struct_field(rp, "Records"), &recs, &rlen);
    int count = 0;
    logrep_batch_reader *rd;
    logrep_batch_reader_new(NULL, &rd);
    size_t pos = 0;
    while (rlen > 0 && pos < (size_t)rlen) {
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_reader_open(rd, recs + pos, (size_t)rlen - pos, &h), LOGREP_OK);
        if (attrs)
            *attrs |= h.attributes;
        logrep_record rec;
        while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK) {
            char want[32];
            snprintf(want, sizeof want, "v%lld", (long long)rec.offset);
            cr_assert_eq(rec.value_len, (int32_t)strlen(want));
            cr_assert_arr_eq(rec.value, want, strlen(want));
            count++;
        }
        pos += (size_t)h.batch_length + 12;
    }
    logrep_batch_reader_free(rd);
    logrep_msg_free(m);
    logrep_msg_free(r);
    *count_out = count;
    return err;
}

int fetch_count(net *w, int from, const char *topic, int part, int64_t offset, int64_t *hw)
{
    int count = 0;
    int16_t err = fetch_records(w, from, topic, part, offset, hw, &count, NULL);
    cr_assert_eq(err, 0, "fetch: %s", logrep_err_name(err));
    return count;
}

void fetch_request(logrep_msg *m, const char *topic, int part, int64_t offset, int32_t max_wait_ms,
                   int32_t min_bytes)
{
    logrep_msg_init_request(m, LOGREP_API_FETCH, 11, 10, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), max_wait_ms);
    logrep_struct_set_int(root, logrep_struct_field(root, "MinBytes"), min_bytes);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Partition"), part);
    logrep_struct_set_int(p, logrep_struct_field(p, "FetchOffset"), offset);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
}

/* DeleteTopics v4 of one topic through node `via`; its error code. */
int delete_topic_wire(net *w, int via, const char *name)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_DELETE_TOPICS, 4, 11, "test"), LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 10000);
    int ft = logrep_struct_field(root, "TopicNames");
    logrep_struct_set_count(root, ft, 1);
    logrep_struct_set_elem_bytes(root, ft, 0, name, (int32_t)strlen(name));
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_DELETE_TOPICS, 4, r, 5000);
    int code = (int)fint(elem(logrep_msg_root(r), "Responses", 0), "ErrorCode");
    logrep_msg_free(m);
    logrep_msg_free(r);
    return code;
}

/* Three nodes and topic dt (one partition, RF 3); returns its leader. */
int three_nodes_with_dt(net *w)
{
    setup(w, 3);
    run(w, 3000);
    create_topic(w, 1, "dt", 1, 3);
    run(w, 1500);
    int leader = leader_of(w, 1, "dt", 0, NULL);
    cr_assert(leader >= 1);
    return leader;
}

/* ------------------------------------------------------------ quorum */

void net_quorum_setup(net *w, int nodes, const char *const *conf)
{
    net_voters = NET_VOTERS3;
    net_controllers = 3;
    extra_conf = conf;
    setup(w, nodes);
}

void net_quorum_teardown(net *w)
{
    teardown(w);
    net_voters = NULL;
    net_controllers = 1;
    extra_conf = NULL;
}

int net_active(net *w)
{
    int found = -1;
    for (int id = 1; id <= w->n; id++)
        if (w->node[id] && logrep_node_is_controller(w->node[id])) {
            cr_assert_eq(found, -1, "nodes %d and %d are both active controllers", found, id);
            found = id;
        }
    return found;
}

/* Runs until an active controller exists and every live node is
 * registered and unfenced in it (at most max_ms); its id. */
int net_settle(net *w, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 50) {
        run(w, 50);
        int a = net_active(w);
        if (a < 0)
            continue;
        int live = 0, unfenced = 0;
        for (int id = 1; id <= w->n; id++) {
            live += w->node[id] != NULL;
            unfenced += w->node[id] && w->node[id]->life.broker_epoch >= 0 &&
                        !w->node[id]->life.fenced;
        }
        if (unfenced == live)
            return a;
    }
    return net_active(w);
}

/* The first live node other than `not`. */
int net_live_other(net *w, int not)
{
    for (int id = 1; id <= w->n; id++)
        if (w->node[id] && id != not)
            return id;
    return -1;
}

/* Produces n records v0..v(n-1) to each of parts partitions of topic
 * through their leaders (acks=all), retrying through leader changes. */
void net_produce_all(net *w, const char *topic, int parts, int first, int n)
{
    for (int p = 0; p < parts; p++)
        for (int i = first; i < first + n; i++) {
            char v[32];
            snprintf(v, sizeof v, "v%d", i);
            int16_t e = -1;
            for (int tries = 0; tries < 50 && e; tries++) {
                int l = leader_of(w, net_live_other(w, 0), topic, p, NULL);
                if (l >= 1 && w->node[l]) {
                    int64_t base;
                    e = produce(w, l, topic, p, v, -1, &base);
                    if (!e)
                        cr_assert_eq(base, i, "partition %d: v%d at %lld", p, i, (long long)base);
                }
                if (e)
                    run(w, 200);
            }
            cr_assert_eq(e, 0, "partition %d record %d not acknowledged", p, i);
        }
}

/* Every partition has a live leader, and all n records read back. */
void net_check_all(net *w, const char *topic, int parts, int n)
{
    for (int p = 0; p < parts; p++) {
        int l = -1;
        for (int t = 0; t < 100; t++) {
            l = leader_of(w, net_live_other(w, 0), topic, p, NULL);
            if (l >= 1 && w->node[l])
                break;
            run(w, 100);
        }
        cr_assert(l >= 1 && w->node[l], "partition %d has no live leader (%d)", p, l);
        int got = 0, tries = 0;
        int64_t hw = -1;
        while ((got = fetch_count(w, l, topic, p, 0, &hw)) < n && tries++ < 50)
            run(w, 100);
        cr_assert_eq(got, n, "partition %d: %d of %d records read back", p, got, n);
    }
}

static int image_collect(void *ctx, const uint8_t *rec, size_t len)
{
    lr_buf *b = ctx;
    uint8_t l[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    return lr_buf_append(b, l, 4) || lr_buf_append(b, rec, len);
}

int net_image_same(const lr_md_image *a, const lr_md_image *b)
{
    if (!a || !b || lr_md_next_offset(a) != lr_md_next_offset(b))
        return 0;
    lr_buf x, y;
    lr_buf_init(&x, &lr_alloc_default);
    lr_buf_init(&y, &lr_alloc_default);
    cr_assert_eq(lr_md_snapshot_records(a, image_collect, &x, NULL), 0);
    cr_assert_eq(lr_md_snapshot_records(b, image_collect, &y, NULL), 0);
    int same = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    lr_buf_free(&x);
    lr_buf_free(&y);
    return same;
}
