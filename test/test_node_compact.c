/* Log compaction driven by the node's tick (lib/node/cleaning.c): a
 * compacted topic replicated on three nodes is cleaned by every replica,
 * consumers read the last value of every key at its offset, a record
 * without a key is refused, and a topic without compact is left alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"

static const char *const cleaner_conf[] = {"log.cleaner.backoff.ms", "100",
                                           "logrep.cleaner.tick.bytes", "4096", NULL};

/* One batch of one keyed record (value NULL: a tombstone), produced with
 * acks=all through node `to`; returns its offset. */
static int64_t produce_kv(net *w, int to, const char *topic, const char *key, const char *value)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add(b, w->now, key, key ? (int32_t)strlen(key) : -1,
                                          value, value ? (int32_t)strlen(value) : -1, NULL, 0),
                 LOGREP_OK);
    const uint8_t *batch;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &batch, &len), LOGREP_OK);
    int64_t base = -1;
    int16_t err = produce_raw(w, to, topic, 0, batch, len, -1, &base, NULL);
    logrep_batch_builder_free(b);
    cr_assert_eq(err, 0, "produce %s: %s", key ? key : "(null)", logrep_err_name(err));
    return base;
}

typedef struct kv {
    int64_t offset;
    char key[16], value[32];
    int tombstone;
} kv;

/* Reads partition 0 from offset 0 to the high watermark through node
 * `from`; returns the records. */
static int read_all(net *w, int from, const char *topic, kv *out, int cap)
{
    int n = 0;
    int64_t next = 0, hw = 1;
    logrep_batch_reader *rd;
    logrep_batch_reader_new(NULL, &rd);
    while (next < hw) {
        logrep_msg *m, *r;
        logrep_msg_new(NULL, &m);
        logrep_msg_new(NULL, &r);
        fetch_request(m, topic, 0, next, 0, 1);
        uint64_t c = client_send(w, from, m);
        client_wait(w, c, LOGREP_API_FETCH, 11, r, 2000);
        logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
        cr_assert_eq(fint(rp, "ErrorCode"), 0);
        hw = fint(rp, "HighWatermark");
        const uint8_t *recs;
        int32_t rlen;
        logrep_struct_bytes(rp, logrep_struct_field(rp, "Records"), &recs, &rlen);
        size_t pos = 0;
        int64_t before = next;
        while (rlen > 0 && pos < (size_t)rlen) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_reader_open(rd, recs + pos, (size_t)rlen - pos, &h), 0);
            logrep_record rec;
            while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK) {
                cr_assert_lt(n, cap);
                cr_assert_geq(rec.offset, next, "offsets go back");
                kv *e = &out[n++];
                e->offset = rec.offset;
                snprintf(e->key, sizeof e->key, "%.*s", (int)rec.key_len, (const char *)rec.key);
                e->tombstone = rec.value_len < 0;
                snprintf(e->value, sizeof e->value, "%.*s",
                         rec.value_len < 0 ? 0 : (int)rec.value_len, (const char *)rec.value);
            }
            next = logrep_batch_last_offset(&h) + 1;
            pos += (size_t)h.batch_length + 12;
        }
        logrep_msg_free(m);
        logrep_msg_free(r);
        cr_assert(next > before || next >= hw, "no progress at %lld", (long long)next);
    }
    logrep_batch_reader_free(rd);
    return n;
}

static int count_key(const kv *v, int n, const char *key, int *last)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0) {
            c++;
            *last = i;
        }
    return c;
}

/* 20 rounds over 10 keys, a tombstone for k9, then fillers that close
 * the segments holding the last round. */
static void write_workload(net *w, int leader, const char *topic, int64_t last_off[10])
{
    char k[16], v[32];
    for (int r = 1; r <= 20; r++)
        for (int i = 0; i < 10; i++) {
            snprintf(k, sizeof k, "k%d", i);
            snprintf(v, sizeof v, "r%d-k%d", r, i);
            last_off[i] = produce_kv(w, leader, topic, k, v);
        }
    last_off[9] = produce_kv(w, leader, topic, "k9", NULL);
    for (int i = 0; i < 40; i++) {
        snprintf(k, sizeof k, "f%d", i);
        produce_kv(w, leader, topic, k, "filler");
    }
}

Test(node_compact, replicas_clean_on_the_tick_and_consumers_read_the_last_values)
{
    net w;
    extra_conf = cleaner_conf;
    setup(&w, 3);
    extra_conf = NULL;
    run(&w, 1000); /* the brokers register */
    static const char *const cfg[] = {"cleanup.policy", "compact", "segment.bytes", "1024",
                                      "min.cleanable.dirty.ratio", "0.01", NULL};
    create_topic_with(&w, 1, "cmp", 1, 3, cfg);
    run(&w, 500);
    int leader = leader_of(&w, 1, "cmp", 0, NULL);
    cr_assert_geq(leader, 1);
    int64_t last_off[10];
    write_workload(&w, leader, "cmp", last_off);
    run(&w, 5000);

    for (int id = 1; id <= 3; id++) {
        int found = 0;
        for (size_t i = 0; i < logrep_node_partition_count(w.node[id]); i++) {
            logrep_node_partition_info pi;
            cr_assert_eq(logrep_node_partition(w.node[id], i, &pi), 0);
            if (strcmp(pi.topic, "cmp") != 0)
                continue;
            found = 1;
            cr_assert_eq(pi.compacted, 1);
            cr_assert_geq(pi.cleaner_passes, 1, "node %d did not clean", id);
            cr_assert_gt(pi.cleaner_bytes_read, 0);
            cr_assert_geq(pi.last_clean_ms, 0);
        }
        cr_assert(found);
        logrep_node_stats st;
        logrep_node_stats_get(w.node[id], &st);
        cr_assert_geq(st.cleaner_passes, 1);
        cr_assert_gt(st.cleaner_records_removed, 0);
    }

    static kv got[400];
    for (int from = 1; from <= 3; from++) {
        if (from != leader)
            continue;
        int n = read_all(&w, from, "cmp", got, 400);
        char k[16], v[32];
        for (int i = 0; i < 10; i++) {
            snprintf(k, sizeof k, "k%d", i);
            int last = -1, c = count_key(got, n, k, &last);
            if (i == 9) { /* its tombstone, kept for delete.retention.ms */
                cr_assert_eq(c, 1, "k9: %d records", c);
                cr_assert(got[last].tombstone);
            } else {
                snprintf(v, sizeof v, "r20-k%d", i);
                cr_assert_eq(c, 1, "%s: %d records", k, c);
                cr_assert_str_eq(got[last].value, v);
            }
            cr_assert_eq(got[last].offset, last_off[i], "%s moved", k);
        }
        int fillers = 0;
        for (int i = 0; i < n; i++)
            fillers += got[i].key[0] == 'f';
        cr_assert_eq(fillers, 40);
    }
    teardown(&w);
}

Test(node_compact, null_key_refused_with_invalid_record)
{
    net w;
    one_node(&w);
    static const char *const cfg[] = {"cleanup.policy", "compact", NULL};
    create_topic_with(&w, 1, "cmp", 1, 1, cfg);
    create_topic(&w, 1, "plain", 1, 1);
    run(&w, 300);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    logrep_batch_builder_add(b, w.now, "k", 1, "v", 1, NULL, 0);
    logrep_batch_builder_add(b, w.now, NULL, -1, "v", 1, NULL, 0);
    const uint8_t *batch;
    size_t len;
    logrep_batch_builder_finish(b, &batch, &len);
    int16_t err = produce_raw(&w, 1, "cmp", 0, batch, len, -1, NULL, NULL);
    cr_assert_eq(err, LOGREP_ERR_INVALID_RECORD, "compacted: %s", logrep_err_name(err));
    err = produce_raw(&w, 1, "plain", 0, batch, len, -1, NULL, NULL);
    cr_assert_eq(err, 0, "plain: %s", logrep_err_name(err));
    logrep_batch_builder_free(b);
    /* Nothing of the refused batch was written. */
    int64_t hw = -1;
    fetch_count(&w, 1, "cmp", 0, 0, &hw);
    cr_assert_eq(hw, 0);
    teardown(&w);
}

Test(node_compact, delete_policy_is_never_compacted)
{
    net w;
    extra_conf = cleaner_conf;
    setup(&w, 1);
    extra_conf = NULL;
    run(&w, 1000);
    static const char *const cfg[] = {"segment.bytes", "1024", "min.cleanable.dirty.ratio",
                                      "0.01", NULL};
    create_topic_with(&w, 1, "del", 1, 1, cfg);
    run(&w, 300);
    int64_t last_off[10];
    write_workload(&w, 1, "del", last_off);
    run(&w, 3000);
    static kv got[400];
    int n = read_all(&w, 1, "del", got, 400);
    cr_assert_eq(n, 20 * 10 + 1 + 40);
    logrep_node_stats st;
    logrep_node_stats_get(w.node[1], &st);
    cr_assert_eq(st.cleaner_passes, 0);
    teardown(&w);
}
