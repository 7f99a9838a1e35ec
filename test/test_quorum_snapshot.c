/* Snapshot files (quorum/qsnap.h, docs/quorum.md "Snapshots"): names,
 * golden bytes, round trips over many batches, every truncation and every
 * flipped byte refused, each structural refusal, the directory (list,
 * latest, clean), storage faults and power losses while writing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/storage.h>

#include "base/endian.h"
#include "lib/ctl_testutil.h"
#include "lib/quorum_testutil.h"
#include "lib/testutil.h"
#include "quorum/qbatch.h"
#include "quorum/qsnap_int.h"

#define SDIR "meta/__cluster_metadata-0"

static void put_file(logrep_storage *st, const char *name, const uint8_t *p, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, SDIR "/%s", name);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq(st->truncate(st->ctx, f, 0), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, p, len), 0);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    st->close(st->ctx, f);
}

/* The whole file, malloc'd; NULL when absent. */
static uint8_t *get_file(logrep_storage *st, const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, SDIR "/%s", name);
    logrep_file *f;
    if (st->open(st->ctx, path, LOGREP_OPEN_READ, &f))
        return NULL;
    uint64_t size;
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    uint8_t *p = malloc(size + 1);
    cr_assert_eq(st->read(st->ctx, f, 0, p, size, len), 0);
    cr_assert_eq(*len, size);
    st->close(st->ctx, f);
    return p;
}

static const char *name_of(lr_qsnap_id id, const char *suffix)
{
    static char buf[LR_QSNAP_NAME_MAX];
    cr_assert(lr_qsnap_name(id, suffix, buf, sizeof buf));
    return buf;
}

/* Record i of a seeded set: 1..200 bytes, every 500th 200..400 KiB. */
static size_t rec_of(uint64_t seed, size_t i, uint8_t *out)
{
    uint64_t s = lr_prng_mix(seed * 1000003u + i) | 1;
    size_t len = i % 500 == 499 ? 200000 + (size_t)(qt_rng_next(&s) % 200000)
                                : 1 + (size_t)(qt_rng_next(&s) % 200);
    for (size_t k = 0; k < len; k++)
        out[k] = (uint8_t)(k < 8 ? i >> (8 * k) : qt_rng_next(&s));
    return len;
}

static uint8_t recbuf[400000];

static void write_snap(logrep_storage *st, lr_qsnap_id id, uint64_t seed, size_t n)
{
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, SDIR, id, 77, 1000, &w), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(lr_qsnap_writer_add(w, recbuf, rec_of(seed, i, recbuf)), 0);
    cr_assert_eq(lr_qsnap_writer_finish(w, NULL), 0);
    lr_qsnap_writer_free(w);
}

static int into_log(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    return tc_sink(ctx, offset, rec, len);
}

/* Asserts that snapshot id reads back as records 0..n-1 of seed. */
static void expect_snap(logrep_storage *st, lr_qsnap_id id, uint64_t seed, size_t n)
{
    tc_log got = {0};
    lr_qsnap_info info;
    int err = lr_qsnap_read(NULL, st, SDIR, id, into_log, &got, &info);
    cr_assert_eq(err, 0, "read: %s (%s)", logrep_err_name(err), info.why);
    cr_assert_eq(got.n, n);
    cr_assert_eq(info.n_records, (int64_t)n);
    cr_assert_eq(info.last_ts, 77);
    cr_assert_str_empty(info.why);
    for (size_t i = 0; i < n; i++) {
        size_t len, want = rec_of(seed, i, recbuf);
        const uint8_t *r = tc_log_rec(&got, i, &len);
        cr_assert(len == want && memcmp(r, recbuf, len) == 0, "record %zu differs", i);
        cr_assert_eq(got.offsets[i], (int64_t)i + 1);
    }
    tc_log_free(&got);
}

Test(quorum_snapshot, names)
{
    lr_qsnap_id id = {1234, 56}, got = {0, 0};
    char buf[LR_QSNAP_NAME_MAX];
    cr_assert_eq(lr_qsnap_name(id, LR_QSNAP_SUFFIX, buf, sizeof buf), 42);
    cr_assert_str_eq(buf, "00000000000000001234-0000000056.checkpoint");
    cr_assert_eq(lr_qsnap_parse_name(buf, &got), 1);
    cr_assert(got.end_offset == 1234 && got.epoch == 56);
    cr_assert_eq(lr_qsnap_parse_name("00000000000000001234-0000000056.checkpoint.part", &got), 2);
    cr_assert_eq(lr_qsnap_parse_name("00000000000000001234-0000000056.checkpoint.deleted", &got), 3);
    cr_assert_eq(lr_qsnap_parse_name("09223372036854775807-2147483647.checkpoint", &got), 1);
    cr_assert(got.end_offset == INT64_MAX && got.epoch == INT32_MAX);
    static const char *const bad[] = {
        "0000000000000001234-0000000056.checkpoint",   /* 19 digits */
        "000000000000000001234-0000000056.checkpoint", /* 21 */
        "00000000000000001234-000000056.checkpoint",   /* 9 */
        "00000000000000001234_0000000056.checkpoint",
        "0000000000000000123x-0000000056.checkpoint",
        "00000000000000001234-0000000056.checkpoint.tmp",
        "00000000000000001234-0000000056.checkpointx",
        "00000000000000001234-0000000056",
        "09223372036854775808-0000000056.checkpoint", /* past INT64_MAX */
        "00000000000000001234-2147483648.checkpoint", /* past INT32_MAX */
        "00000000000000001234.log", "quorum-state", "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(lr_qsnap_parse_name(bad[i], &got), 0, "%s", bad[i]);
    cr_assert_eq(lr_qsnap_name((lr_qsnap_id){-1, 0}, LR_QSNAP_SUFFIX, buf, sizeof buf), 0);
    cr_assert_eq(lr_qsnap_name((lr_qsnap_id){1, -1}, LR_QSNAP_SUFFIX, buf, sizeof buf), 0);
    cr_assert_eq(lr_qsnap_name(id, LR_QSNAP_SUFFIX, buf, 42), 0);
}

/* Snapshot {end 5, epoch 7}, LastContainedLogTimestamp 0x0102030405060708,
 * batches at 1000 ms, one data record "abc", worked out by hand:
 *   header batch: offset 0, length 0x47, epoch 7, magic 2, CRC,
 *     attributes 0x0020 (control), last delta 0, timestamps, producer
 *     -1/-1/-1, 1 record: length 21, attrs, ts 0, delta 0, key 4 bytes
 *     (version 0, type 3), value 11 bytes: Version 0, the timestamp, no
 *     tagged fields; no headers
 *   data batch: offset 1, attributes 0, key null, value "abc"
 *   footer batch: offset 2, key (0, type 4), value 3 bytes: Version 0, no
 *     tagged fields */
static const char *GOLDEN =
    "00 00 00 00 00 00 00 00 00 00 00 47 00 00 00 07 02 62 08 04 4f 00 20 00 00 00 00"
    "00 00 00 00 00 00 03 e8 00 00 00 00 00 00 03 e8 ff ff ff ff ff ff ff ff ff ff"
    "ff ff ff ff 00 00 00 01"
    "2a 00 00 00 08 00 00 00 03 16 00 00 01 02 03 04 05 06 07 08 00 00"
    "00 00 00 00 00 00 00 01 00 00 00 3b 00 00 00 07 02 7a d8 00 cb 00 00 00 00 00 00"
    "00 00 00 00 00 00 03 e8 00 00 00 00 00 00 03 e8 ff ff ff ff ff ff ff ff ff ff"
    "ff ff ff ff 00 00 00 01"
    "12 00 00 00 01 06 61 62 63 00"
    "00 00 00 00 00 00 00 02 00 00 00 3f 00 00 00 07 02 8d b6 97 cb 00 20 00 00 00 00"
    "00 00 00 00 00 00 03 e8 00 00 00 00 00 00 03 e8 ff ff ff ff ff ff ff ff ff ff"
    "ff ff ff ff 00 00 00 01"
    "1a 00 00 00 08 00 00 00 04 06 00 00 00 00";

Test(quorum_snapshot, golden_bytes)
{
    size_t glen;
    uint8_t *g = tu_hex(GOLDEN, &glen);
    cr_assert_eq(glen, 83 + 71 + 75);
    cr_assert_eq(lr_get_be32(g + 17), qt_crc32c_bits(g + 21, 83 - 21));
    cr_assert_eq(lr_get_be32(g + 83 + 17), qt_crc32c_bits(g + 83 + 21, 71 - 21));
    cr_assert_eq(lr_get_be32(g + 154 + 17), qt_crc32c_bits(g + 154 + 21, 75 - 21));
    logrep_storage *st = qt_meta_storage(0);
    lr_qsnap_id id = {5, 7};
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, SDIR, id, 0x0102030405060708, 1000, &w), 0);
    cr_assert_eq(lr_qsnap_writer_add(w, (const uint8_t *)"abc", 3), 0);
    uint64_t size;
    cr_assert_eq(lr_qsnap_writer_finish(w, &size), 0);
    lr_qsnap_writer_free(w);
    cr_assert_eq(size, glen);
    size_t len;
    uint8_t *f = get_file(st, "00000000000000000005-0000000007.checkpoint", &len);
    cr_assert(f && len == glen);
    cr_assert_eq(memcmp(f, g, glen), 0, "the file differs from the golden bytes");
    /* The codec's own reader takes every batch. */
    for (size_t at = 0; at < len;) {
        size_t bsize;
        cr_assert_eq(logrep_batch_verify(f + at, len - at, &bsize), 0);
        at += bsize;
    }
    lr_qsnap_info info;
    cr_assert_eq(lr_qsnap_check(NULL, st, SDIR, id, &info), 0);
    cr_assert(info.last_ts == 0x0102030405060708 && info.n_records == 1 && info.size == glen);
    free(f);
    free(g);
    logrep_storage_free(st);
}

/* Many records, some large: several data batches, each within the
 * limits, read back in order; a snapshot of no records too. */
Test(quorum_snapshot, round_trip_over_many_batches)
{
    logrep_storage *st = qt_meta_storage(0);
    lr_qsnap_id id = {123456, 9}, empty = {3, 1};
    write_snap(st, id, 1, 9000);
    expect_snap(st, id, 1, 9000);
    size_t len;
    uint8_t *f = get_file(st, name_of(id, LR_QSNAP_SUFFIX), &len);
    size_t batches = 0;
    for (size_t at = 0; at < len; batches++) {
        uint32_t blen = lr_get_be32(f + at + 8);
        cr_assert_leq(blen + 12, LR_QBATCH_MAX_BYTES);
        cr_assert_eq(lr_get_be32(f + at + 12), 9, "partition leader epoch");
        at += blen + 12;
    }
    cr_assert_gt(batches, 2 + 9000 / LR_QSNAP_BATCH_RECORDS, "%zu batches", batches);
    free(f);
    write_snap(st, empty, 0, 0);
    expect_snap(st, empty, 0, 0);
    /* Nothing else is left in the directory. */
    size_t n;
    lr_qsnap_id ids[4];
    cr_assert_eq(lr_qsnap_list(st, SDIR, ids, 4, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(lr_qsnap_clean(st, SDIR, &n), 0);
    cr_assert_eq(n, 0);
    logrep_storage_free(st);
}

/* A small valid file: id {10, 4}, three records. */
static uint8_t *small_file(logrep_storage *st, size_t *len)
{
    write_snap(st, (lr_qsnap_id){10, 4}, 5, 3);
    return get_file(st, "00000000000000000010-0000000004.checkpoint", len);
}

static int refused(logrep_storage *st, const uint8_t *p, size_t len, lr_qsnap_info *info)
{
    put_file(st, "00000000000000000010-0000000004.checkpoint", p, len);
    tc_log got = {0};
    int err = lr_qsnap_read(NULL, st, SDIR, (lr_qsnap_id){10, 4}, into_log, &got, info);
    cr_assert(err == 0 || got.n == 0, "records handed out from a file that is not whole (len %zu: %s)", len, info->why);
    tc_log_free(&got);
    if (err)
        cr_assert(info->why[0], "refused without a reason");
    return err;
}

Test(quorum_snapshot, every_truncation_is_refused)
{
    logrep_storage *st = qt_meta_storage(0);
    size_t len;
    uint8_t *f = small_file(st, &len);
    lr_qsnap_info info;
    for (size_t cut = 0; cut < len; cut++)
        cr_assert_eq(refused(st, f, cut, &info), LOGREP_ERR__CORRUPT, "cut at %zu", cut);
    cr_assert_eq(refused(st, f, len, &info), 0);
    free(f);
    logrep_storage_free(st);
}

/* Every byte is covered: the CRC, or a check of the fields before it
 * (offset, length, epoch, magic). */
Test(quorum_snapshot, every_flipped_byte_is_refused)
{
    logrep_storage *st = qt_meta_storage(0);
    size_t len;
    uint8_t *f = small_file(st, &len);
    lr_qsnap_info info;
    for (size_t i = 0; i < len; i++)
        for (int m = 0; m < 2; m++) {
            f[i] ^= m ? 0xff : 0x01;
            int err = refused(st, f, len, &info);
            cr_assert(err == LOGREP_ERR__CORRUPT || err == LOGREP_ERR__UNSUPPORTED,
                      "byte %zu ^ %d accepted", i, m ? 0xff : 1);
            f[i] ^= m ? 0xff : 0x01;
        }
    free(f);
    logrep_storage_free(st);
}

/* Files built batch by batch with lr_qbatch_encode. */
static void add_batch(lr_buf *b, int64_t base, int32_t epoch, int16_t control, const void *v,
                      size_t len)
{
    lr_qentry e = {epoch, control, v, len};
    cr_assert_eq(lr_qbatch_encode(base, &e, 1, 1000, b), 0);
}

static uint8_t HDR[LR_QSNAP_HEADER_LEN], FTR[LR_QSNAP_FOOTER_LEN];

static int refused_buf(logrep_storage *st, lr_buf *b, lr_qsnap_info *info)
{
    int err = refused(st, b->data, b->len, info);
    lr_buf_clear(b);
    return err;
}

Test(quorum_snapshot, structural_refusals)
{
    logrep_storage *st = qt_meta_storage(0);
    lr_qsnap_header_value(77, HDR);
    lr_qsnap_footer_value(FTR);
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    lr_qsnap_info in;
#define R(err_, what_)                                                                            \
    do {                                                                                          \
        int e_ = refused_buf(st, &b, &in);                                                        \
        cr_assert_eq(e_, err_, "%s: %s (%s)", what_, logrep_err_name(e_), in.why);                \
    } while (0)
    /* The reference: header, one record, footer. */
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 0, "x", 1);
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(0, "valid");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 0, "x", 1);
    R(LOGREP_ERR__CORRUPT, "no footer");
    cr_assert_str_eq(in.why, "no SnapshotFooter");
    add_batch(&b, 0, 4, 0, "x", 1);
    add_batch(&b, 1, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "header not first");
    add_batch(&b, 0, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "footer alone");
    R(LOGREP_ERR__CORRUPT, "empty file");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "two headers");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 4, FTR, sizeof FTR);
    add_batch(&b, 2, 4, 0, "x", 1);
    R(LOGREP_ERR__CORRUPT, "a record after the footer");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 4, FTR, sizeof FTR);
    lr_buf_append(&b, "\0\0\0", 3);
    R(LOGREP_ERR__CORRUPT, "bytes after the footer");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 2, 4, 0, "x", 1);
    add_batch(&b, 3, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "an offset gap");
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 5, 0, "x", 1);
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "another epoch inside");
    add_batch(&b, 0, 3, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 3, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "the name's epoch is not the file's");
    add_batch(&b, 0, 4, 3, HDR, 10);
    add_batch(&b, 1, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__CORRUPT, "header cut short");
    uint8_t tagged[LR_QSNAP_HEADER_LEN + 3];
    memcpy(tagged, HDR, 10);
    memcpy(tagged + 10, "\x01\x05\x01\x09", 4); /* one unknown tag: read past */
    add_batch(&b, 0, 4, 3, tagged, 14);
    add_batch(&b, 1, 4, 4, FTR, sizeof FTR);
    R(0, "an unknown tagged field");
    uint8_t v1[LR_QSNAP_HEADER_LEN];
    memcpy(v1, HDR, sizeof v1);
    v1[1] = 1;
    add_batch(&b, 0, 4, 3, v1, sizeof v1);
    add_batch(&b, 1, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__UNSUPPORTED, "header version 1");
    static const uint8_t kraft[] = {0, 0, 0, 1, 0};
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    add_batch(&b, 1, 4, 5, kraft, sizeof kraft);
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__UNSUPPORTED, "a KRaftVersion record");
    /* Compressed: the attribute set and the CRC made right again. */
    add_batch(&b, 0, 4, 3, HDR, sizeof HDR);
    size_t at = b.len;
    add_batch(&b, 1, 4, 0, "x", 1);
    b.data[at + 22] |= LOGREP_COMPRESSION_GZIP;
    lr_put_be32(b.data + at + 17, qt_crc32c_bits(b.data + at + 21, b.len - at - 21));
    add_batch(&b, 2, 4, 4, FTR, sizeof FTR);
    R(LOGREP_ERR__UNSUPPORTED, "a compressed batch");
#undef R
    /* A file that is not there. */
    cr_assert_eq(lr_qsnap_check(NULL, st, SDIR, (lr_qsnap_id){11, 4}, &in), LOGREP_ERR__NOENT);
    lr_buf_free(&b);
    logrep_storage_free(st);
}

/* ---- the directory ---- */

static int count_files(void *ctx, const char *name)
{
    (void)name;
    ++*(int *)ctx;
    return 0;
}

static int dir_files(logrep_storage *st)
{
    int n = 0;
    cr_assert_eq(st->list(st->ctx, SDIR, count_files, &n), 0);
    return n;
}

Test(quorum_snapshot, list_latest_and_clean)
{
    logrep_storage *st = qt_meta_storage(0);
    size_t n, refused_n;
    lr_qsnap_id ids[8], got;
    cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, NULL, NULL), LOGREP_ERR__NOENT);
    write_snap(st, (lr_qsnap_id){100, 2}, 1, 10);
    write_snap(st, (lr_qsnap_id){300, 3}, 2, 10);
    write_snap(st, (lr_qsnap_id){300, 4}, 3, 10);
    write_snap(st, (lr_qsnap_id){200, 5}, 4, 10);
    /* Not snapshots: ignored by list, left by clean. */
    put_file(st, "00000000000000000400-0000000005.checkpoint.tmp", (const uint8_t *)"x", 1);
    put_file(st, "0000000000000000400-0000000005.checkpoint", (const uint8_t *)"x", 1);
    put_file(st, "00000000000000000000.log", (const uint8_t *)"", 0);
    /* Leftovers of a crash: removed by clean. */
    put_file(st, "00000000000000000500-0000000005.checkpoint.part", (const uint8_t *)"x", 1);
    put_file(st, "00000000000000000050-0000000001.checkpoint.deleted", (const uint8_t *)"x", 1);
    cr_assert_eq(lr_qsnap_list(st, SDIR, ids, 8, &n), 0);
    cr_assert_eq(n, 4);
    static const lr_qsnap_id order[] = {{300, 4}, {300, 3}, {200, 5}, {100, 2}};
    for (size_t i = 0; i < 4; i++)
        cr_assert(ids[i].end_offset == order[i].end_offset && ids[i].epoch == order[i].epoch,
                  "list[%zu] = %lld-%d", i, (long long)ids[i].end_offset, (int)ids[i].epoch);
    cr_assert_eq(lr_qsnap_list(st, SDIR, ids, 2, &n), 0); /* the newest two, all counted */
    cr_assert(n == 4 && ids[0].epoch == 4 && ids[1].epoch == 3);
    lr_qsnap_info info;
    cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, &info, &refused_n), 0);
    cr_assert(got.end_offset == 300 && got.epoch == 4 && refused_n == 0 && info.n_records == 10);
    /* The newest torn: refused, left on disk, the next one taken. */
    size_t len;
    uint8_t *f = get_file(st, name_of((lr_qsnap_id){300, 4}, LR_QSNAP_SUFFIX), &len);
    put_file(st, name_of((lr_qsnap_id){300, 4}, LR_QSNAP_SUFFIX), f, len - 1);
    cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, &info, &refused_n), 0);
    cr_assert(got.end_offset == 300 && got.epoch == 3 && refused_n == 1);
    cr_assert_eq(lr_qsnap_list(st, SDIR, ids, 8, &n), 0);
    cr_assert_eq(n, 4);
    free(f);
    int before = dir_files(st);
    cr_assert_eq(lr_qsnap_clean(st, SDIR, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(dir_files(st), before - 2);
    /* Older than {300, 3}: {200, 5} and {100, 2}; {300, 4} stays. */
    cr_assert_eq(lr_qsnap_delete_before(st, SDIR, (lr_qsnap_id){300, 3}, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(lr_qsnap_list(st, SDIR, ids, 8, &n), 0);
    cr_assert(n == 2 && ids[1].end_offset == 300 && ids[1].epoch == 3);
    /* Every one refused: none. */
    put_file(st, name_of((lr_qsnap_id){300, 3}, LR_QSNAP_SUFFIX), (const uint8_t *)"", 0);
    cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, NULL, &refused_n), LOGREP_ERR__NOENT);
    cr_assert_eq(refused_n, 2);
    cr_assert_eq(lr_qsnap_list(st, "nowhere", ids, 8, &n), LOGREP_ERR__NOENT);
    logrep_storage_free(st);
}

/* Many leftovers: clean removes them in rounds. */
Test(quorum_snapshot, clean_removes_many)
{
    logrep_storage *st = qt_meta_storage(0);
    for (int i = 0; i < 80; i++)
        put_file(st, name_of((lr_qsnap_id){i, 1}, i % 2 ? LR_QSNAP_PART_SUFFIX : LR_QSNAP_DELETED_SUFFIX),
                 (const uint8_t *)"x", 1);
    size_t n;
    cr_assert_eq(lr_qsnap_clean(st, SDIR, &n), 0);
    cr_assert_eq(n, 80);
    cr_assert_eq(dir_files(st), 0);
    logrep_storage_free(st);
}

/* ---- failures while writing ---- */

static int no_part(void *ctx, const char *name)
{
    (void)ctx;
    lr_qsnap_id id;
    cr_assert_eq(lr_qsnap_parse_name(name, &id) == 2, 0, "left behind: %s", name);
    return 0;
}

/* Each storage call of the write fails in turn: the writer reports it,
 * the old snapshot stays the latest, no .part is left, the new one is
 * absent or (a failed directory sync after the rename) whole. */
Test(quorum_snapshot, storage_faults_keep_the_old_snapshot)
{
    lr_qsnap_id old = {50, 2}, id = {90, 3};
    static const uint32_t classes[] = {LOGREP_STORAGE_OP_META, LOGREP_STORAGE_OP_WRITE,
                                       LOGREP_STORAGE_OP_SYNC, LOGREP_STORAGE_OP_TRUNCATE};
    int faults = 0;
    for (size_t c = 0; c < 4; c++)
        for (uint64_t k = 1; k <= 8; k++) {
            logrep_storage *st = qt_meta_storage(1);
            write_snap(st, old, 1, 20);
            cr_assert_eq(logrep_storage_crash_inject(st, classes[c], k, LOGREP_ERR__IO, 0), 0);
            lr_qsnap_writer *w = NULL;
            int err = lr_qsnap_writer_new(NULL, st, SDIR, id, 77, 1000, &w);
            for (size_t i = 0; i < 2000 && !err; i++)
                err = lr_qsnap_writer_add(w, recbuf, rec_of(2, i, recbuf));
            if (!err)
                err = lr_qsnap_writer_finish(w, NULL);
            lr_qsnap_writer_free(w);
            cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_ALL, 0, 0, 0), 0);
            faults += err != 0;
            cr_assert(err == 0 || err == LOGREP_ERR__IO, "%s", logrep_err_name(err));
            cr_assert_eq(st->list(st->ctx, SDIR, no_part, NULL), 0);
            lr_qsnap_id got;
            cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, NULL, NULL), 0);
            int renamed = lr_qsnap_check(NULL, st, SDIR, id, NULL) == 0;
            cr_assert(!err || !renamed || classes[c] == LOGREP_STORAGE_OP_SYNC,
                      "class %u call %llu failed yet the snapshot was made", classes[c],
                      (unsigned long long)k);
            if (renamed)
                expect_snap(st, id, 2, 2000);
            else
                cr_assert_eq(lr_qsnap_check(NULL, st, SDIR, id, NULL), LOGREP_ERR__NOENT);
            cr_assert_eq(got.end_offset, renamed ? 90 : 50);
            expect_snap(st, old, 1, 20);
            logrep_storage_free(st);
        }
    cr_assert_geq(faults, 9, "%d faults met", faults); /* open, truncate, 4 writes, sync, rename, dir sync */
}

/* Power lost after each of the write's calls, in every crash mode: after
 * the restart's clean there is no .part, the old snapshot reads whole, and
 * the new one is absent or reads whole. */
Test(quorum_snapshot, power_loss_while_writing_leaves_old_or_new)
{
    lr_qsnap_id old = {50, 2}, id = {90, 3};
    int saw_new = 0, saw_old = 0;
    size_t parts = 0;
    for (uint64_t n = 1; n <= 12; n++)
        for (int mode = 0; mode < 3; mode++) {
            logrep_storage *st = qt_meta_storage(1);
            write_snap(st, old, 1, 20);
            cr_assert_eq(logrep_storage_crash_after(st, n), 0);
            lr_qsnap_writer *w = NULL;
            int err = lr_qsnap_writer_new(NULL, st, SDIR, id, 77, 1000, &w);
            for (size_t i = 0; i < 1200 && !err; i++)
                err = lr_qsnap_writer_add(w, recbuf, rec_of(2, i, recbuf));
            if (!err)
                err = lr_qsnap_writer_finish(w, NULL);
            /* The process dies with the power: its clean-up comes after
             * the restart's (it only releases memory then). */
            cr_assert_eq(logrep_storage_crash_simulate(st, n * 7 + (uint64_t)mode, mode), 0);
            size_t gone;
            cr_assert_eq(lr_qsnap_clean(st, SDIR, &gone), 0);
            parts += gone;
            cr_assert_eq(st->list(st->ctx, SDIR, no_part, NULL), 0);
            expect_snap(st, old, 1, 20);
            lr_qsnap_id got;
            cr_assert_eq(lr_qsnap_latest(NULL, st, SDIR, &got, NULL, NULL), 0);
            if (got.end_offset == 90)
                expect_snap(st, id, 2, 1200);
            else
                cr_assert_eq(lr_qsnap_check(NULL, st, SDIR, id, NULL), LOGREP_ERR__NOENT,
                             "after %llu calls, mode %d: a new snapshot that is not whole",
                             (unsigned long long)n, mode);
            saw_new += got.end_offset == 90;
            saw_old += got.end_offset == 50;
            lr_qsnap_writer_free(w);
            logrep_storage_free(st);
        }
    cr_assert(saw_new && saw_old && parts, "new %d old %d .part %zu", saw_new, saw_old, parts);
}
