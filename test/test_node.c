/* Nodes end to end over an in-memory, lossless network: a combined
 * broker+controller and two brokers register, a topic is created through a
 * broker, produce with acks=all is acknowledged once replicated, and
 * consumers read it back; then the leader dies and the controller moves
 * leadership. Everything travels as Kafka wire frames. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/endian.h"
#include "codec/compress.h"
#include "logrep.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "node/node_int.h"
#include "logrep/storage.h"

#include "lib/net_testutil.h"


/* Leader of topic/partition per node `via`'s metadata; -1 if none. */
static int leader_of(net *w, int via, const char *topic, int part, int32_t *epoch)
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

/* Sends one Produce v7 carrying `batch` as the partition's records and
 * returns the partition's error code (base offset and log append time
 * through the pointers when not NULL). */
static int16_t produce_raw(net *w, int to, const char *topic, int part, const void *batch,
                           size_t blen, int16_t acks, int64_t *base, int64_t *append_time)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
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
    client_wait(w, c, LOGREP_API_PRODUCE, 7, r, 6000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "PartitionResponses", 0);
    int16_t err = (int16_t)fint(rp, "ErrorCode");
    if (base)
        *base = fint(rp, "BaseOffset");
    if (append_time)
        *append_time = fint(rp, "LogAppendTimeMs");
    logrep_msg_free(m);
    logrep_msg_free(r);
    return err;
}

static int16_t produce(net *w, int to, const char *topic, int part, const char *value, int16_t acks,
                       int64_t *base)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, value, (int32_t)strlen(value), NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    int16_t err = produce_raw(w, to, topic, part, batch, blen, acks, base, NULL);
    logrep_batch_builder_free(b);
    return err;
}

/* Fetches from `offset`; returns the partition's error code, and through
 * *count how many records came back, checking the values against
 * "v<offset>" (and, with *attrs, ORing the batches' attributes). */
static int16_t fetch_records(net *w, int from, const char *topic, int part, int64_t offset,
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

static int fetch_count(net *w, int from, const char *topic, int part, int64_t offset, int64_t *hw)
{
    int count = 0;
    int16_t err = fetch_records(w, from, topic, part, offset, hw, &count, NULL);
    cr_assert_eq(err, 0, "fetch: %s", logrep_err_name(err));
    return count;
}

Test(node, cluster_produces_replicates_and_fails_over)
{
    net w;
    setup(&w, 3);
    run(&w, 3000); /* registration, unfencing */
    for (int id = 1; id <= 3; id++) {
        logrep_node_stats st;
        logrep_node_stats_get(w.node[id], &st);
        cr_assert_gt(st.metadata_offset, 2, "node %d applied %lld records", id, (long long)st.metadata_offset);
        cr_assert_eq(st.fenced_brokers, 0, "node %d sees %lld fenced", id, (long long)st.fenced_brokers);
    }
    create_topic(&w, 2, "orders", 3, 3);
    run(&w, 1000);
    /* Use a partition not led by node 1, the controller: its failover is
     * what this test exercises. */
    int32_t epoch = -1;
    int leader = -1, part = -1;
    for (int k = 0; k < 3 && part < 0; k++) {
        int l = leader_of(&w, 3, "orders", k, &epoch);
        cr_assert(l >= 1 && l <= 3, "leader %d", l);
        if (l != 1) {
            leader = l;
            part = k;
        }
    }
    cr_assert_geq(part, 0, "placement put every leader on the controller");

    /* acks=all produce is acknowledged once the ISR has it. */
    for (int i = 0; i < 5; i++) {
        char v[16];
        snprintf(v, sizeof v, "v%d", i);
        int64_t base = -1;
        int16_t e = produce(&w, leader, "orders", part, v, -1, &base);
        cr_assert_eq(e, 0, "produce %d: %s", i, logrep_err_name(e));
        cr_assert_eq(base, i);
    }
    int other = leader == 1 ? 2 : 1;
    cr_assert_eq(produce(&w, other, "orders", part, "x", 1, NULL), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    int64_t hw;
    cr_assert_eq(fetch_count(&w, leader, "orders", part, 0, &hw), 5);
    cr_assert_eq(hw, 5);

    /* Every replica has the data: partition directories in Kafka's layout. */
    run(&w, 500);
    for (int id = 1; id <= 3; id++) {
        size_t np = logrep_node_partition_count(w.node[id]);
        cr_assert_eq(np, 3u, "node %d hosts %zu partitions", id, np);
        for (size_t i = 0; i < np; i++) {
            logrep_partition_info pi;
            cr_assert_eq(logrep_node_partition(w.node[id], i, &pi), LOGREP_OK);
            if (pi.partition == part) {
                cr_assert_eq(pi.log_end_offset, 5, "node %d", id);
                cr_assert_eq(pi.high_watermark, 5, "node %d", id);
            }
        }
    }

    /* The leader dies. */
    int victim = leader;
    kill_node(&w, victim);
    run(&w, 12000); /* broker.session.timeout.ms = 9 s */
    int32_t epoch2;
    int leader2 = leader_of(&w, 1, "orders", part, &epoch2);
    cr_assert(leader2 >= 1 && leader2 != victim, "new leader %d", leader2);
    cr_assert_gt(epoch2, epoch);
    /* ISR is 2 of 3 = min.insync.replicas: acks=all still works. */
    int64_t base = -1;
    int16_t e = produce(&w, leader2, "orders", part, "v5", -1, &base);
    cr_assert_eq(e, 0, "produce after failover: %s", logrep_err_name(e));
    cr_assert_eq(base, 5);
    cr_assert_eq(fetch_count(&w, leader2, "orders", part, 0, NULL), 6);
    logrep_node_stats cst;
    logrep_node_stats_get(w.node[1], &cst);
    cr_assert_geq(cst.leader_changes, 1);
    cr_assert_eq(cst.unclean_elections, 0);
    cr_assert_geq(cst.under_replicated, 1, "the dead broker's partitions are under-replicated");
    char desc[4096];
    logrep_node_describe(w.node[1], "orders", 0, desc, sizeof desc);
    cr_assert(strstr(desc, "Partition: 0"), "%s", desc);
    /* --under-replicated-partitions lists the partitions the dead broker left. */
    logrep_node_describe(w.node[1], NULL, 3, desc, sizeof desc);
    cr_assert(strstr(desc, "Topic: orders"), "%s", desc);
    teardown(&w);
}

/* librdkafka's consumer looks up a group coordinator in passing
 * (FindCoordinator v2); groups are not served yet, so the broker answers
 * COORDINATOR_NOT_AVAILABLE instead of closing the connection its Fetch
 * requests share. */
Test(node, find_coordinator_is_answered_not_available, .timeout = 30)
{
    net w;
    setup(&w, 1);
    run(&w, 500);
    for (int v = 0; v <= 4; v += 2) {
        logrep_msg *m, *r;
        logrep_msg_new(NULL, &m);
        logrep_msg_new(NULL, &r);
        cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_FIND_COORDINATOR, v, 21, "rdkafka"),
                     LOGREP_OK);
        logrep_struct *root = logrep_msg_root(m);
        if (v < 4) {
            logrep_struct_set_bytes(root, logrep_struct_field(root, "Key"), "grp", 3);
        } else {
            int fk = logrep_struct_field(root, "CoordinatorKeys");
            logrep_struct_set_count(root, fk, 1);
            logrep_struct_set_elem_bytes(root, fk, 0, "grp", 3);
        }
        uint64_t c = client_send(&w, 1, m);
        client_wait(&w, c, LOGREP_API_FIND_COORDINATOR, v, r, 1000);
        logrep_struct *rs = logrep_msg_root(r);
        cr_assert_eq(logrep_msg_correlation_id(r), 21);
        if (v < 4) {
            cr_assert_eq(fint(rs, "ErrorCode"), LOGREP_ERR_COORDINATOR_NOT_AVAILABLE, "v%d", v);
            cr_assert_eq(fint(rs, "NodeId"), -1);
        } else {
            logrep_struct *ce = elem(rs, "Coordinators", 0);
            cr_assert_eq(fint(ce, "ErrorCode"), LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
            const uint8_t *k;
            int32_t kl;
            logrep_struct_bytes(ce, logrep_struct_field(ce, "Key"), &k, &kl);
            cr_assert_eq(kl, 3);
            cr_assert_arr_eq(k, "grp", 3);
        }
        logrep_msg_free(m);
        logrep_msg_free(r);
    }
    teardown(&w);
}

/* acks=all completes from the frames alone: no tick is needed between the
 * produce and its answer (the follower's parked fetch is answered when the
 * data arrives, its next fetch moves the HW). */
Test(node, acks_all_needs_no_tick)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 2, "quick", 1, 3);
    run(&w, 1500); /* followers park their fetches at the leader */
    int32_t epoch;
    int leader = leader_of(&w, 1, "quick", 0, &epoch);
    cr_assert(leader >= 1);
    run(&w, 600);
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, "v0", 2, NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, 9, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
    logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
    logrep_struct *t = elem(root, "TopicData", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "quick", 5);
    logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
    logrep_struct *p = elem(t, "PartitionData", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Index"), 0);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
    uint64_t c = client_send(&w, leader, m);
    pump(&w); /* no tick */
    int answered = 0;
    for (frame *f = w.client_inbox; f; f = f->next)
        if (f->conn == c)
            answered = 1;
    cr_assert(answered, "acks=all produce waited for a tick");
    client_wait(&w, c, LOGREP_API_PRODUCE, 7, r, 10);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "PartitionResponses", 0);
    cr_assert_eq(logrep_struct_int(rp, logrep_struct_field(rp, "ErrorCode")), 0);
    logrep_msg_free(m);
    logrep_msg_free(r);
    logrep_batch_builder_free(b);
    teardown(&w);
}

/* ---- leader-side batch validation (issue 12, item 1) ---- */

/* Recomputes the batch CRC after a test changed the inside. */
static void fix_crc(uint8_t *b, size_t len)
{
    lr_put_be32(b + 17, logrep_crc32c(0, b + 21, len - 21));
}

/* A valid uncompressed batch of n records "v0".."v<n-1>" into buf. */
static size_t good_batch(uint8_t *buf, size_t cap, int n)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    for (int i = 0; i < n; i++) {
        char v[16];
        snprintf(v, sizeof v, "v%d", i);
        logrep_batch_builder_add(b, 1700000000000LL + i, "k", 1, v, (int32_t)strlen(v), NULL, 0);
    }
    const uint8_t *batch;
    size_t blen;
    cr_assert_eq(logrep_batch_builder_finish(b, &batch, &blen), LOGREP_OK);
    cr_assert_leq(blen, cap);
    memcpy(buf, batch, blen);
    logrep_batch_builder_free(b);
    return blen;
}

/* The same corruptions a client could send, each with a valid outer CRC;
 * want is the error Kafka's LogValidator gives. */
typedef struct bad_case {
    const char *what;
    int16_t want;
} bad_case;

static size_t make_bad(int which, uint8_t *buf, size_t cap)
{
    size_t len = good_batch(buf, cap, 2);
    switch (which) {
    case 0: /* gzip attribute over uncompressed records */
    case 1: /* snappy attribute over uncompressed records */
        buf[22] = (uint8_t)(which == 0 ? LOGREP_COMPRESSION_GZIP : LOGREP_COMPRESSION_SNAPPY);
        break;
    case 2: { /* valid gzip around garbage records */
        lr_buf z;
        lr_buf_init(&z, &lr_alloc_default);
        static const uint8_t junk[40] = {0x7e, 0x01, 0x02, 0x03, 0xff, 0xff, 0xff};
        cr_assert_eq(lr_compress(LOGREP_COMPRESSION_GZIP, 0, junk, sizeof junk, &z, NULL), 0);
        cr_assert_leq(61 + z.len, cap);
        memcpy(buf + 61, z.data, z.len);
        len = 61 + z.len;
        lr_put_be32(buf + 8, (uint32_t)(len - 12));
        buf[22] = LOGREP_COMPRESSION_GZIP;
        lr_buf_free(&z);
        break;
    }
    case 3: /* declares 3 records (last delta 2) but carries 2 */
        lr_put_be32(buf + 23, 2);
        lr_put_be32(buf + 57, 3);
        break;
    case 4: /* first record's length runs past the batch */
        buf[61] = 0x7e;
        break;
    case 5: { /* second record repeats offset delta 0 */
        size_t second = 61 + 1 + (size_t)(buf[61] >> 1);
        cr_assert_eq(buf[second + 3], 2, "layout: delta 1 expected");
        buf[second + 3] = 0;
        break;
    }
    case 6: /* one byte of garbage after the last record */
        buf[len] = 0;
        len++;
        lr_put_be32(buf + 8, (uint32_t)(len - 12));
        break;
    }
    fix_crc(buf, len);
    return len;
}

static const bad_case bad_cases[] = {
    {"gzip attribute, plain records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"snappy attribute, plain records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"valid gzip of garbage", LOGREP_ERR_CORRUPT_MESSAGE},
    {"record count 3 with 2 records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"garbage record length", LOGREP_ERR_CORRUPT_MESSAGE},
    {"non-increasing offset delta", LOGREP_ERR_INVALID_RECORD},
    {"trailing byte after the records", LOGREP_ERR_CORRUPT_MESSAGE},
};

static int part_info(net *w, int id, const char *topic, int part, logrep_partition_info *out)
{
    for (size_t i = 0; i < logrep_node_partition_count(w->node[id]); i++)
        if (logrep_node_partition(w->node[id], i, out) == LOGREP_OK &&
            strcmp(out->topic, topic) == 0 && out->partition == part)
            return 1;
    return 0;
}

Test(node_validate, corrupt_insides_refused_rf3_acks_all)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 2, "bad", 1, 3);
    run(&w, 1500);
    int leader = leader_of(&w, 1, "bad", 0, NULL);
    cr_assert(leader >= 1);
    uint8_t buf[512];
    size_t n = sizeof bad_cases / sizeof *bad_cases;
    for (size_t i = 0; i < n; i++) {
        size_t len = make_bad((int)i, buf, sizeof buf);
        cr_assert_eq(logrep_batch_verify(buf, len, NULL), LOGREP_OK, "%s: outer CRC", bad_cases[i].what);
        for (int16_t acks = -1; acks <= 1; acks += 2) {
            int16_t e = produce_raw(&w, leader, "bad", 0, buf, len, acks, NULL, NULL);
            cr_assert_eq(e, bad_cases[i].want, "%s acks=%d: got %s", bad_cases[i].what, acks,
                         logrep_err_name(e));
        }
    }
    run(&w, 1000);
    for (int id = 1; id <= 3; id++) {
        logrep_partition_info pi;
        cr_assert(part_info(&w, id, "bad", 0, &pi), "node %d hosts bad-0", id);
        cr_assert_eq(pi.log_end_offset, 0, "node %d has %lld offsets", id, (long long)pi.log_end_offset);
    }
    /* A valid batch still goes through, at offset 0, to every replica. */
    size_t len = good_batch(buf, sizeof buf, 2);
    int64_t base = -1, lat = 0;
    cr_assert_eq(produce_raw(&w, leader, "bad", 0, buf, len, -1, &base, &lat), 0);
    cr_assert_eq(base, 0);
    cr_assert_eq(lat, -1, "CreateTime answers log_append_time -1");
    run(&w, 1000);
    for (int id = 1; id <= 3; id++) {
        logrep_partition_info pi;
        cr_assert(part_info(&w, id, "bad", 0, &pi));
        cr_assert_eq(pi.log_end_offset, 2, "node %d", id);
    }
    cr_assert_eq(fetch_count(&w, leader, "bad", 0, 0, NULL), 2);
    teardown(&w);
}

/* ---- topic configs applied per partition (issue 12, item 2) ---- */

/* A one-record batch with value "v<i>" padded to pad bytes (0: none). */
static size_t value_batch(uint8_t *buf, size_t cap, int i, int pad)
{
    char v[512];
    int n = snprintf(v, sizeof v, "v%d", i);
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, v, pad > n ? pad : n, NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    cr_assert_leq(blen, cap);
    memcpy(buf, batch, blen);
    logrep_batch_builder_free(b);
    return blen;
}

Test(node_config, topic_configs_applied_and_changed)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    static const char *const cfg[] = {"max.message.bytes", "200", "message.timestamp.type",
                                      "LogAppendTime", "segment.bytes", "300", NULL};
    create_topic_with(&w, 2, "tc", 1, 3, cfg);
    run(&w, 1500);
    int leader = leader_of(&w, 1, "tc", 0, NULL);
    cr_assert(leader >= 1);
    uint8_t buf[1024];
    size_t len = value_batch(buf, sizeof buf, 0, 150);
    cr_assert(len > 200 && len < 300, "%zu", len);
    cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, NULL, NULL),
                 LOGREP_ERR_MESSAGE_TOO_LARGE);
    for (int i = 0; i < 8; i++) {
        len = value_batch(buf, sizeof buf, i, 0);
        int64_t t0 = w.now, lat = -1, base = -1;
        cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, &base, &lat), 0);
        cr_assert_eq(base, i);
        cr_assert_eq(lat, t0, "log_append_time %lld, now %lld", (long long)lat, (long long)t0);
    }
    run(&w, 500);
    for (int id = 1; id <= 3; id++) {
        logrep_partition_info pi;
        cr_assert(part_info(&w, id, "tc", 0, &pi));
        cr_assert_eq(pi.log_end_offset, 8, "node %d", id);
        cr_assert_geq(pi.segments, 2, "node %d: segment.bytes=300 gave %d segments", id,
                      pi.segments);
    }
    int count = 0, attrs = 0;
    cr_assert_eq(fetch_records(&w, leader, "tc", 0, 0, NULL, &count, &attrs), 0);
    cr_assert_gt(count, 0); /* one segment per fetch, as Kafka reads */
    cr_assert(attrs & LOGREP_ATTR_LOG_APPEND_TIME, "stored batches carry the LogAppendTime bit");

    /* A ConfigRecord reaches the open partitions: CreateTime again, and a
     * larger max.message.bytes. */
    cr_assert_eq(lr_nctl_set_topic_config(w.node[1], "tc", "message.timestamp.type", "CreateTime"), 0);
    cr_assert_eq(lr_nctl_set_topic_config(w.node[1], "tc", "max.message.bytes", "1000"), 0);
    run(&w, 1500);
    len = value_batch(buf, sizeof buf, 8, 150);
    int64_t lat = 0;
    cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, NULL, &lat), 0);
    cr_assert_eq(lat, -1, "CreateTime answers -1");
    teardown(&w);
}

/* ---- retention from the node's tick (issue 12, item 3) ---- */

Test(node_retention, time_and_size_retention_survive_restart)
{
    static const char *const broker[] = {"log.retention.check.interval.ms", "1000",
                                         "retention.bytes", "400", NULL};
    extra_conf = broker;
    net w;
    setup(&w, 3);
    extra_conf = NULL;
    run(&w, 3000);
    /* Time: LogAppendTime so the segments' timestamps are the node clock. */
    static const char *const timed[] = {"retention.ms", "4000", "retention.bytes", "-1",
                                        "segment.bytes", "200", "message.timestamp.type",
                                        "LogAppendTime", NULL};
    create_topic_with(&w, 2, "rt", 1, 3, timed);
    /* Size: the broker's retention.bytes=400 with the topic's small segments. */
    static const char *const sized[] = {"segment.bytes", "200", NULL};
    create_topic_with(&w, 2, "rs", 1, 3, sized);
    run(&w, 1500);
    const char *topics[2] = {"rt", "rs"};
    int leaders[2];
    uint8_t buf[256];
    for (int k = 0; k < 2; k++) {
        leaders[k] = leader_of(&w, 1, topics[k], 0, NULL);
        cr_assert(leaders[k] >= 1);
        for (int i = 0; i < 12; i++) {
            size_t len = value_batch(buf, sizeof buf, i, 0);
            cr_assert_eq(produce_raw(&w, leaders[k], topics[k], 0, buf, len, -1, NULL, NULL), 0);
        }
    }
    run(&w, 100);
    logrep_partition_info pi;
    cr_assert(part_info(&w, leaders[0], "rt", 0, &pi));
    cr_assert_eq(pi.log_start_offset, 0, "nothing is 4 s old yet");
    cr_assert_geq(pi.segments, 4);
    run(&w, 6000);
    int64_t starts[2][MAXN + 1];
    int64_t deleted = 0;
    for (int k = 0; k < 2; k++) {
        for (int id = 1; id <= 3; id++) {
            cr_assert(part_info(&w, id, topics[k], 0, &pi));
            cr_assert_gt(pi.log_start_offset, 0, "%s node %d start", topics[k], id);
            cr_assert_eq(pi.log_end_offset, 12);
            starts[k][id] = pi.log_start_offset;
        }
        int count = 0;
        cr_assert_eq(fetch_records(&w, leaders[k], topics[k], 0, 0, NULL, &count, NULL),
                     LOGREP_ERR_OFFSET_OUT_OF_RANGE, "%s: fetch below the log start", topics[k]);
        cr_assert_eq(fetch_records(&w, leaders[k], topics[k], 0, starts[k][leaders[k]], NULL,
                                   &count, NULL), 0);
        cr_assert_gt(count, 0, "%s: records from the log start", topics[k]);
    }
    cr_assert(part_info(&w, leaders[0], "rt", 0, &pi));
    cr_assert_eq(pi.segments, 1, "every closed segment is past retention.ms");
    for (int id = 1; id <= 3; id++) {
        logrep_node_stats st;
        logrep_node_stats_get(w.node[id], &st);
        deleted += st.segments_deleted;
        cr_assert_gt(st.segments_deleted, 0, "node %d", id);
    }
    /* Restart a broker that is not the controller: its logs reopen with
     * the advanced start. */
    extra_conf = broker;
    kill_node(&w, 3);
    w.down[3] = 0;
    start_node(&w, 3);
    extra_conf = NULL;
    run(&w, 3000);
    for (int k = 0; k < 2; k++) {
        cr_assert(part_info(&w, 3, topics[k], 0, &pi), "%s reopened", topics[k]);
        cr_assert_geq(pi.log_start_offset, starts[k][3], "%s start after restart", topics[k]);
    }
    teardown(&w);
}
