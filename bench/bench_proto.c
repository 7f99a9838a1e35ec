/* Protocol codec rates: Produce and Fetch requests and responses, decode
 * and encode, in messages per second and ns per message, each against a
 * memcpy of the same bytes in the same run. Record sets are 1 KiB batches
 * (Produce) and 16 KiB per partition (Fetch): zero copy, so the codec's
 * cost should not grow with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include <logrep.h>
#include <logrep/proto.h>

static uint8_t records[4][16384];

typedef struct ctx {
    logrep_msg *m;
    const uint8_t *frame;
    size_t len;
    int key, ver, is_resp;
    uint8_t *dst;
} ctx;

static void run_memcpy(void *p)
{
    ctx *c = p;
    memcpy(c->dst, c->frame, c->len);
    bench_sink(c->dst);
}

static void run_decode(void *p)
{
    ctx *c = p;
    logrep_err err = c->is_resp ? logrep_msg_decode_response(c->m, c->key, c->ver, c->frame, c->len)
                                : logrep_msg_decode_request(c->m, c->frame, c->len);
    if (err)
        abort();
    bench_sink(logrep_msg_root(c->m));
}

static void run_encode(void *p)
{
    ctx *c = p;
    const logrep_seg *segs;
    size_t n;
    if (logrep_msg_encode(c->m, &segs, &n, NULL))
        abort();
    bench_sink(segs);
}

static void set_str(logrep_struct *n, const char *field, const char *s)
{
    if (logrep_struct_set_bytes(n, logrep_struct_field(n, field), s, (int32_t)strlen(s)))
        abort();
}

static void set_int(logrep_struct *n, const char *field, int64_t v)
{
    if (logrep_struct_set_int(n, logrep_struct_field(n, field), v))
        abort();
}

/* Adds one topic with `np` partitions to array `arr` of root; returns the
 * topic node. */
static logrep_struct *topic(logrep_struct *root, const char *arr, const char *name_field, int np,
                          const char *parts, logrep_struct **pn)
{
    int a = logrep_struct_field(root, arr);
    if (logrep_struct_set_count(root, a, 1))
        abort();
    logrep_struct *t = logrep_struct_elem(root, a, 0);
    set_str(t, name_field, "bench-topic");
    int p = logrep_struct_field(t, parts);
    if (logrep_struct_set_count(t, p, np))
        abort();
    for (int i = 0; i < np; i++)
        pn[i] = logrep_struct_elem(t, p, i);
    return t;
}

static void build(logrep_msg *m, int key, int ver, int is_resp, int file_records)
{
    logrep_struct *pn[4];
    if (is_resp ? logrep_msg_init_response(m, key, ver, 1)
                : logrep_msg_init_request(m, key, ver, 1, "bench"))
        abort();
    logrep_struct *root = logrep_msg_root(m);
    if (key == LOGREP_API_PRODUCE && !is_resp) {
        set_int(root, "Acks", -1);
        set_int(root, "TimeoutMs", 30000);
        topic(root, "TopicData", "Name", 1, "PartitionData", pn);
        if (logrep_struct_set_records(pn[0], logrep_struct_field(pn[0], "Records"), records[0], 1024))
            abort();
    } else if (key == LOGREP_API_PRODUCE) {
        topic(root, "Responses", "Name", 1, "PartitionResponses", pn);
        set_int(pn[0], "BaseOffset", 123456789);
    } else if (!is_resp) {
        set_int(root, "ReplicaId", -1);
        set_int(root, "MaxWaitMs", 500);
        set_int(root, "MinBytes", 1);
        set_int(root, "MaxBytes", 52428800);
        set_int(root, "IsolationLevel", 1);
        set_int(root, "SessionEpoch", -1);
        topic(root, "Topics", "Topic", 4, "Partitions", pn);
        for (int i = 0; i < 4; i++) {
            set_int(pn[i], "Partition", i);
            set_int(pn[i], "FetchOffset", 1000000 + i);
            set_int(pn[i], "PartitionMaxBytes", 1048576);
        }
    } else {
        topic(root, "Responses", "Topic", 4, "Partitions", pn);
        for (int i = 0; i < 4; i++) {
            set_int(pn[i], "PartitionIndex", i);
            set_int(pn[i], "HighWatermark", 2000000);
            set_int(pn[i], "LastStableOffset", 2000000);
            int rf = logrep_struct_field(pn[i], "Records");
            logrep_err err = file_records
                                 ? logrep_struct_set_records_file(pn[i], rf, 7, 65536 * i, 16384)
                                 : logrep_struct_set_records(pn[i], rf, records[i], 16384);
            if (err)
                abort();
        }
    }
}

static void bench_one(const char *name, int key, int ver, int is_resp)
{
    logrep_msg *src = NULL, *m = NULL;
    if (logrep_msg_new(NULL, &src) || logrep_msg_new(NULL, &m))
        abort();
    build(src, key, ver, is_resp, 0);
    const uint8_t *flat;
    size_t len;
    if (logrep_msg_encode_flat(src, &flat, &len))
        abort();
    uint8_t *frame = malloc(len), *dst = malloc(len);
    memcpy(frame, flat, len);
    ctx c = {m, frame, len, key, ver, is_resp, dst};
    char label[128];

    double base = bench_time(run_memcpy, &c, 0.05, 5);
    double dec = bench_time(run_decode, &c, 0.1, 5);
    snprintf(label, sizeof label, "%s decode (%zu B)", name, len);
    bench_report(label, dec * 1e9, "ns/msg", dec / base, "memcpy", 0, 0);
    printf("%-46s %12.2f M msg/s\n", "", 1e-6 / dec);

    /* Encode: the message as decoded; Fetch responses also from file ranges. */
    double enc = bench_time(run_encode, &c, 0.1, 5);
    snprintf(label, sizeof label, "%s encode", name);
    bench_report(label, enc * 1e9, "ns/msg", enc / base, "memcpy", 0, 0);
    printf("%-46s %12.2f M msg/s\n", "", 1e-6 / enc);
    if (key == LOGREP_API_FETCH && is_resp) {
        build(m, key, ver, is_resp, 1);
        enc = bench_time(run_encode, &c, 0.1, 5);
        bench_report("Fetch v11 resp encode, file ranges", enc * 1e9, "ns/msg", enc / base,
                     "memcpy", 0, 0);
        printf("%-46s %12.2f M msg/s\n", "", 1e-6 / enc);
    }
    free(frame);
    free(dst);
    logrep_msg_free(src);
    logrep_msg_free(m);
}

int main(void)
{
    for (size_t i = 0; i < sizeof records; i++)
        ((uint8_t *)records)[i] = (uint8_t)(i * 31);
    bench_one("Produce v7 req", LOGREP_API_PRODUCE, 7, 0);
    bench_one("Produce v9 req (flexible)", LOGREP_API_PRODUCE, 9, 0);
    bench_one("Produce v7 resp", LOGREP_API_PRODUCE, 7, 1);
    bench_one("Fetch v11 req 4 parts", LOGREP_API_FETCH, 11, 0);
    bench_one("Fetch v12 req 4 parts (flex)", LOGREP_API_FETCH, 12, 0);
    bench_one("Fetch v11 resp 4x16KiB", LOGREP_API_FETCH, 11, 1);
    return 0;
}
