/* compression.type as the leader applies it (docs/broker.md): a produced
 * batch in another codec is rewritten once before the append, keeping
 * everything but the codec, and followers store the leader's bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/endian.h"
#include "codec/batch.h"
#include <logrep.h>
#include "node/node_int.h"

#include "lib/net_testutil.h"

#define NREC 20

/* A batch of NREC records with keys, headers, a null value and distinct
 * timestamps, in `codec`; idempotent when pid >= 0. *len receives its
 * size; the caller frees the result. */
static uint8_t *make_batch(int codec, int64_t pid, int32_t seq, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), 0);
    if (pid >= 0)
        logrep_batch_builder_set_producer(b, pid, 3, seq);
    for (int i = 0; i < NREC; i++) {
        char k[16], v[64];
        snprintf(k, sizeof k, "key-%d", i);
        snprintf(v, sizeof v, "value %d, repeated repeated repeated repeated", i);
        logrep_header hd = {(const uint8_t *)"h", 1, (const uint8_t *)k, (int32_t)strlen(k)};
        int null_value = i == 7;
        cr_assert_eq(logrep_batch_builder_add(b, 1700000000000LL + i * 17, k, (int32_t)strlen(k),
                                              null_value ? NULL : v,
                                              null_value ? -1 : (int32_t)strlen(v), &hd, 1),
                     0);
    }
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), 0);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

/* Asserts that batches a and b hold the same records and the same header
 * but for the codec bits, length, CRC, base offset and leader epoch; a's
 * codec must be `codec`. */
static void assert_same_records(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                                int codec)
{
    logrep_batch_reader *ra, *rb;
    logrep_batch_reader_new(NULL, &ra);
    logrep_batch_reader_new(NULL, &rb);
    logrep_batch_header ha, hb;
    cr_assert_eq(logrep_batch_reader_open(ra, a, alen, &ha), 0, "%s",
                 logrep_batch_reader_errmsg(ra));
    cr_assert_eq(logrep_batch_reader_open(rb, b, blen, &hb), 0);
    cr_assert_eq(ha.attributes & LOGREP_ATTR_COMPRESSION_MASK, codec, "stored codec %d, want %d",
                 ha.attributes & LOGREP_ATTR_COMPRESSION_MASK, codec);
    cr_assert_eq(ha.attributes & ~LOGREP_ATTR_COMPRESSION_MASK,
                 hb.attributes & ~LOGREP_ATTR_COMPRESSION_MASK);
    cr_assert_eq(ha.last_offset_delta, hb.last_offset_delta);
    cr_assert_eq(ha.base_timestamp, hb.base_timestamp);
    cr_assert_eq(ha.max_timestamp, hb.max_timestamp);
    cr_assert_eq(ha.producer_id, hb.producer_id);
    cr_assert_eq(ha.producer_epoch, hb.producer_epoch);
    cr_assert_eq(ha.base_sequence, hb.base_sequence);
    cr_assert_eq(ha.record_count, hb.record_count);
    logrep_record x, y;
    int n = 0;
    while (logrep_batch_reader_next(ra, &x) == LOGREP_OK) {
        cr_assert_eq(logrep_batch_reader_next(rb, &y), LOGREP_OK);
        cr_assert_eq(x.offset_delta, y.offset_delta);
        cr_assert_eq(x.timestamp, y.timestamp);
        cr_assert_eq(x.sequence, y.sequence);
        cr_assert_eq(x.key_len, y.key_len);
        cr_assert_arr_eq(x.key, y.key, (size_t)x.key_len);
        cr_assert_eq(x.value_len, y.value_len);
        if (x.value_len > 0)
            cr_assert_arr_eq(x.value, y.value, (size_t)x.value_len);
        cr_assert_eq(x.headers_size, y.headers_size);
        cr_assert_arr_eq(x.headers, y.headers, x.headers_size);
        n++;
    }
    cr_assert_eq(logrep_batch_reader_next(rb, &y), LOGREP_ERR__END);
    cr_assert_eq(n, hb.record_count);
    logrep_batch_reader_free(ra);
    logrep_batch_reader_free(rb);
}

/* ---- the codec's rewrite ---- */

Test(recompress, every_codec_pair_keeps_records_and_header)
{
    logrep_batch_reader *r;
    logrep_batch_reader_new(NULL, &r);
    for (int src = 0; src <= LOGREP_COMPRESSION_ZSTD; src++) {
        size_t len;
        uint8_t *in = make_batch(src, 77, 1000, &len);
        for (int dst = 0; dst <= LOGREP_COMPRESSION_ZSTD; dst++) {
            const void *out;
            size_t olen;
            cr_assert_eq(logrep_batch_reader_recompress(r, in, len, dst, 0, &out, &olen), 0,
                         "%d -> %d: %s", src, dst, logrep_batch_reader_errmsg(r));
            if (dst == src)
                cr_assert_eq(out, (const void *)in, "a batch in the target codec is kept");
            size_t size;
            cr_assert_eq(logrep_batch_verify(out, olen, &size), 0, "%d -> %d", src, dst);
            cr_assert_eq(size, olen);
            cr_assert_eq(logrep_batch_reader_check(r, out, olen, NULL), 0);
            assert_same_records(out, olen, in, len, dst);
        }
        free(in);
    }
    logrep_batch_reader_free(r);
}

Test(recompress, refuses_what_it_cannot_rewrite)
{
    logrep_batch_reader *r;
    logrep_batch_reader_new(NULL, &r);
    size_t len;
    uint8_t *in = make_batch(LOGREP_COMPRESSION_GZIP, -1, -1, &len);
    const void *out;
    size_t olen;
    /* A CRC-valid gzip batch whose compressed bytes are garbage. */
    memset(in + LR_B_RECORDS + 10, 0x5a, 8);
    lr_put_be32(in + LR_B_CRC, logrep_crc32c(0, in + LOGREP_BATCH_CRC_START,
                                             len - LOGREP_BATCH_CRC_START));
    cr_assert_eq(logrep_batch_reader_recompress(r, in, len, LOGREP_COMPRESSION_ZSTD, 0, &out, &olen),
                 LOGREP_ERR__CORRUPT);
    in[LR_B_RECORDS + 1] ^= 1; /* now the CRC is wrong too */
    cr_assert_eq(logrep_batch_reader_recompress(r, in, len, LOGREP_COMPRESSION_NONE, 0, &out, &olen),
                 LOGREP_ERR__CORRUPT);
    cr_assert_eq(logrep_batch_reader_recompress(r, in, len - 1, LOGREP_COMPRESSION_NONE, 0, &out,
                                                &olen),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_batch_reader_recompress(r, in, len, 9, 0, &out, &olen),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_batch_reader_recompress(r, in, len, LOGREP_COMPRESSION_GZIP, 42, &out,
                                                &olen),
                 LOGREP_ERR__INVALID_ARG);
    free(in);
    logrep_batch_reader_free(r);
}

/* ---- on the produce path ---- */

/* The records a node serves from `offset` (a consumer fetch, v11): a
 * malloc'd copy into *out, its length returned. */
static size_t fetch_raw(net *w, int from, const char *topic, int64_t offset, uint8_t **out)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_FETCH, 11, 10, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "FetchOffset"), offset);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
    uint64_t c = client_send(w, from, m);
    client_wait(w, c, LOGREP_API_FETCH, 11, r, 1000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
    cr_assert_eq(fint(rp, "ErrorCode"), 0, "fetch from node %d", from);
    const uint8_t *recs;
    int32_t rlen;
    logrep_struct_bytes(rp, logrep_struct_field(rp, "Records"), &recs, &rlen);
    cr_assert_gt(rlen, 0, "node %d serves nothing at %lld", from, (long long)offset);
    *out = malloc((size_t)rlen);
    memcpy(*out, recs, (size_t)rlen);
    logrep_msg_free(m);
    logrep_msg_free(r);
    return (size_t)rlen;
}

/* Produces a batch in `src` to a topic created with `configs` (RF rf,
 * via node 1) and checks the stored batch is in `want` with the same
 * records, on every replica byte for byte. */
static void produce_and_check(net *w, int rf, const char *topic, const char *const *configs,
                              int src, int want)
{
    create_topic_with(w, 1, topic, 1, rf, configs);
    run(w, 1500);
    int leader = leader_of(w, 1, topic, 0, NULL);
    cr_assert_geq(leader, 1);
    size_t len;
    uint8_t *in = make_batch(src, -1, -1, &len);
    int64_t base = -1;
    cr_assert_eq(produce_raw(w, leader, topic, 0, in, len, -1, &base, NULL), 0);
    cr_assert_eq(base, 0);
    run(w, 500);
    uint8_t *stored;
    size_t slen = fetch_raw(w, leader, topic, 0, &stored);
    assert_same_records(stored, slen, in, len, want);
    if (src == want) /* kept: the producer's bytes, offsets and epoch stamped */
        cr_assert_arr_eq(stored + LR_B_CRC, in + LR_B_CRC, len - LR_B_CRC);
    for (int id = 1; id <= rf; id++) {
        uint8_t *copy;
        size_t clen = fetch_raw(w, id, topic, 0, &copy);
        cr_assert_eq(clen, slen, "node %d", id);
        cr_assert_arr_eq(copy, stored, slen, "node %d stores the leader's bytes", id);
        free(copy);
    }
    free(stored);
    free(in);
}

Test(compression_type, gzip_into_zstd_topic_is_stored_zstd_on_every_replica)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    static const char *const cfg[] = {"compression.type", "zstd", "compression.zstd.level", "7",
                                      NULL};
    produce_and_check(&w, 3, "z", cfg, LOGREP_COMPRESSION_GZIP, LOGREP_COMPRESSION_ZSTD);
    teardown(&w);
}

Test(compression_type, producer_keeps_and_uncompressed_inflates)
{
    net w;
    one_node(&w);
    static const char *const prod[] = {"compression.type", "producer", NULL};
    static const char *const none[] = {"compression.type", "uncompressed", NULL};
    static const char *const gz[] = {"compression.type", "gzip", "compression.gzip.level", "1",
                                     NULL};
    produce_and_check(&w, 1, "keep", prod, LOGREP_COMPRESSION_GZIP, LOGREP_COMPRESSION_GZIP);
    produce_and_check(&w, 1, "plain", none, LOGREP_COMPRESSION_LZ4, LOGREP_COMPRESSION_NONE);
    produce_and_check(&w, 1, "gz", gz, LOGREP_COMPRESSION_NONE, LOGREP_COMPRESSION_GZIP);
    produce_and_check(&w, 1, "same", gz, LOGREP_COMPRESSION_GZIP, LOGREP_COMPRESSION_GZIP);
    teardown(&w);
}

Test(compression_type, broker_default_applies_and_topic_overrides)
{
    static const char *const broker[] = {"compression.type", "snappy", NULL};
    extra_conf = broker;
    net w;
    one_node(&w);
    extra_conf = NULL;
    produce_and_check(&w, 1, "dflt", NULL, LOGREP_COMPRESSION_ZSTD, LOGREP_COMPRESSION_SNAPPY);
    static const char *const prod[] = {"compression.type", "producer", NULL};
    produce_and_check(&w, 1, "own", prod, LOGREP_COMPRESSION_ZSTD, LOGREP_COMPRESSION_ZSTD);
    teardown(&w);
}

Test(compression_type, idempotent_batch_keeps_sequence_and_dedups)
{
    net w;
    one_node(&w);
    static const char *const cfg[] = {"compression.type", "lz4", NULL};
    create_topic_with(&w, 1, "idem", 1, 1, cfg);
    run(&w, 1500);
    size_t l0, l1;
    uint8_t *b0 = make_batch(LOGREP_COMPRESSION_GZIP, 4242, 0, &l0);
    uint8_t *b1 = make_batch(LOGREP_COMPRESSION_NONE, 4242, NREC, &l1);
    int64_t base = -1;
    cr_assert_eq(produce_raw(&w, 1, "idem", 0, b0, l0, -1, &base, NULL), 0);
    cr_assert_eq(base, 0);
    cr_assert_eq(produce_raw(&w, 1, "idem", 0, b1, l1, -1, &base, NULL), 0);
    cr_assert_eq(base, NREC);
    /* A retry of the first batch is a duplicate: the producer state saw
     * the sequence the rewrite kept. */
    cr_assert_eq(produce_raw(&w, 1, "idem", 0, b0, l0, -1, &base, NULL), 0);
    cr_assert_eq(base, 0, "duplicate answered with its first offset");
    /* A gap is still one. */
    size_t l3;
    uint8_t *b3 = make_batch(LOGREP_COMPRESSION_GZIP, 4242, 3 * NREC, &l3);
    cr_assert_eq(produce_raw(&w, 1, "idem", 0, b3, l3, -1, &base, NULL),
                 LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    uint8_t *stored;
    size_t slen = fetch_raw(&w, 1, "idem", 0, &stored);
    logrep_batch_header h;
    size_t first = 0;
    cr_assert_eq(logrep_batch_verify(stored, slen, &first), 0);
    assert_same_records(stored, first, b0, l0, LOGREP_COMPRESSION_LZ4);
    logrep_batch_header_parse(stored + first, slen - first, &h);
    cr_assert_eq(h.base_offset, NREC);
    cr_assert_eq(h.base_sequence, NREC);
    cr_assert_eq(h.producer_id, 4242);
    cr_assert_eq(h.attributes & LOGREP_ATTR_COMPRESSION_MASK, LOGREP_COMPRESSION_LZ4);
    free(stored);
    free(b0);
    free(b1);
    free(b3);
    teardown(&w);
}

Test(compression_type, corrupt_batch_is_refused_not_rewritten)
{
    net w;
    one_node(&w);
    static const char *const cfg[] = {"compression.type", "zstd", NULL};
    create_topic_with(&w, 1, "bad", 1, 1, cfg);
    run(&w, 1500);
    size_t len;
    uint8_t *in = make_batch(LOGREP_COMPRESSION_GZIP, -1, -1, &len);
    memset(in + LR_B_RECORDS + 10, 0x5a, 8);
    lr_put_be32(in + LR_B_CRC, logrep_crc32c(0, in + LOGREP_BATCH_CRC_START,
                                             len - LOGREP_BATCH_CRC_START));
    cr_assert_eq(produce_raw(&w, 1, "bad", 0, in, len, 1, NULL, NULL), LOGREP_ERR_CORRUPT_MESSAGE);
    /* Garbage records inside valid compression: the rewrite succeeds, the
     * log's record check of the result refuses it. */
    free(in);
    in = make_batch(LOGREP_COMPRESSION_NONE, -1, -1, &len);
    in[LR_B_RECORDS] ^= 0x10; /* the first record's length */
    lr_put_be32(in + LR_B_CRC, logrep_crc32c(0, in + LOGREP_BATCH_CRC_START,
                                             len - LOGREP_BATCH_CRC_START));
    int16_t e = produce_raw(&w, 1, "bad", 0, in, len, 1, NULL, NULL);
    cr_assert(e == LOGREP_ERR_CORRUPT_MESSAGE || e == LOGREP_ERR_INVALID_RECORD, "%d", e);
    free(in);
    teardown(&w);
}

Test(compression_type, config_change_reaches_open_partition)
{
    net w;
    one_node(&w);
    create_topic(&w, 1, "chg", 1, 1);
    run(&w, 1500);
    size_t len;
    uint8_t *in = make_batch(LOGREP_COMPRESSION_GZIP, -1, -1, &len);
    cr_assert_eq(produce_raw(&w, 1, "chg", 0, in, len, 1, NULL, NULL), 0);
    cr_assert_eq(lr_nctl_set_topic_config(w.node[1], "chg", "compression.type", "uncompressed"), 0);
    run(&w, 1500);
    cr_assert_eq(produce_raw(&w, 1, "chg", 0, in, len, 1, NULL, NULL), 0);
    uint8_t *stored;
    size_t slen = fetch_raw(&w, 1, "chg", 0, &stored);
    size_t first;
    cr_assert_eq(logrep_batch_verify(stored, slen, &first), 0);
    assert_same_records(stored, first, in, len, LOGREP_COMPRESSION_GZIP);
    cr_assert_gt(slen, first, "both batches served");
    assert_same_records(stored + first, slen - first, in, len, LOGREP_COMPRESSION_NONE);
    free(stored);
    free(in);
    teardown(&w);
}
