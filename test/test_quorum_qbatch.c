/* The quorum's entries as record batches (docs/quorum.md, "The log on
 * disk"): lr_qbatch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/log.h>
#include <logrep/storage.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/endian.h"
#include "lib/quorum_testutil.h"
#include "lib/testutil.h"
#include "quorum/q_int.h"
#include "quorum/qbatch.h"
#include "quorum/qlog.h"
#include "quorum/qstate.h"


/* ---- qbatch ------------------------------------------------------------ */

typedef struct got {
    int64_t off[64];
    lr_qentry e[64];
    uint8_t data[64][64];
    size_t n;
    size_t stop_at; /* fn returns 7 at this record, 0: never */
} got;

static int collect(void *ctx, int64_t off, const lr_qentry *e)
{
    got *g = ctx;
    if (g->stop_at && g->n + 1 == g->stop_at)
        return 7;
    cr_assert_lt(g->n, 64);
    cr_assert_leq(e->len, 64);
    g->off[g->n] = off;
    g->e[g->n] = *e;
    if (e->len)
        memcpy(g->data[g->n], e->data, e->len);
    g->e[g->n].data = g->data[g->n];
    g->n++;
    return 0;
}

static const uint8_t LC_VALUE[3] = {1, 2, 3};

/* Two data entries of epoch 3, then a LeaderChange of epoch 4, at 5..7. */
static const lr_qentry GOLDEN_IN[3] = {
    {3, 0, (const uint8_t *)"ab", 2},
    {3, 0, (const uint8_t *)"c", 1},
    {4, LR_QUORUM_CTL_LEADER_CHANGE, LC_VALUE, 3},
};

/* Worked out by hand from the v2 layout: base offset, length, epoch,
 * magic, CRC-32C of the rest, attributes, last offset delta, timestamps
 * 1000 (0x3e8), producer -1/-1/-1, count; then records: length, attrs,
 * timestamp delta, offset delta, key (-1: null), value, 0 headers (all
 * zig-zag varints). */
static const char *GOLDEN_HEX =
    "00 00 00 00 00 00 00 05 00 00 00 42 00 00 00 03"
    "02 e0 15 a2 f6 00 00 00 00 00 01 00 00 00 00 00"
    "00 03 e8 00 00 00 00 00 00 03 e8 ff ff ff ff ff"
    "ff ff ff ff ff ff ff ff ff 00 00 00 02"
    "10 00 00 00 01 04 61 62 00"
    "0e 00 00 02 01 02 63 00"
    /* the control batch: attributes 0x20, key 00 00 00 02 (version 0, type 2) */
    "00 00 00 00 00 00 00 07 00 00 00 3f 00 00 00 04"
    "02 42 02 50 53 00 20 00 00 00 00 00 00 00 00 00"
    "00 03 e8 00 00 00 00 00 00 03 e8 ff ff ff ff ff"
    "ff ff ff ff ff ff ff ff ff 00 00 00 01"
    "1a 00 00 00 08 00 00 00 02 06 01 02 03 00";

static uint8_t *golden(size_t *len)
{
    return tu_hex(GOLDEN_HEX, len);
}

Test(quorum_store, qbatch_golden_bytes)
{
    size_t glen;
    uint8_t *g = golden(&glen);
    cr_assert_eq(glen, 78 + 75);
    /* The CRCs written above are CRC-32C of [21, end) of each batch. */
    cr_assert_eq(lr_get_be32(g + 17), qt_crc32c_bits(g + 21, 78 - 21));
    cr_assert_eq(lr_get_be32(g + 78 + 17), qt_crc32c_bits(g + 78 + 21, 75 - 21));
    cr_assert_eq(lr_get_be32(g + 17), 0xe015a2f6u);

    lr_buf out;
    lr_buf_init(&out, &lr_alloc_default);
    cr_assert_eq(lr_qbatch_encode(5, GOLDEN_IN, 3, 1000, &out), 0);
    cr_assert_eq(out.len, glen);
    cr_assert_eq(memcmp(out.data, g, glen), 0, "encoded bytes differ from the golden ones");
    /* The codec's own checks accept both batches. */
    size_t size;
    cr_assert_eq(logrep_batch_verify(out.data, out.len, &size), 0);
    cr_assert_eq(size, 78);
    cr_assert_eq(logrep_batch_verify(out.data + 78, out.len - 78, &size), 0);
    lr_buf_free(&out);
    free(g);
}

Test(quorum_store, qbatch_decode_golden_and_the_codec_reader_agrees)
{
    size_t glen, used;
    uint8_t *g = golden(&glen);
    got r = {0};
    cr_assert_eq(lr_qbatch_decode(g, glen, collect, &r, &used), 0);
    cr_assert_eq(used, glen);
    cr_assert_eq(r.n, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(r.off[i], 5 + (int64_t)i);
        cr_assert_eq(r.e[i].epoch, GOLDEN_IN[i].epoch);
        cr_assert_eq(r.e[i].control, GOLDEN_IN[i].control);
        cr_assert_eq(r.e[i].len, GOLDEN_IN[i].len);
        cr_assert_eq(memcmp(r.e[i].data, GOLDEN_IN[i].data, r.e[i].len), 0);
    }
    /* The library's batch reader sees the same records and control key. */
    logrep_batch_reader *rd;
    cr_assert_eq(logrep_batch_reader_new(NULL, &rd), 0);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_reader_open(rd, g + 78, glen - 78, &h), 0);
    cr_assert_eq(h.attributes, LOGREP_ATTR_CONTROL);
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(rd, &rec), 0);
    logrep_control c;
    cr_assert_eq(logrep_control_parse(&rec, &c), 0);
    cr_assert_eq(c.type, LOGREP_CONTROL_LEADER_CHANGE);
    cr_assert_eq(rec.offset, 7);
    cr_assert_eq(logrep_batch_reader_next(rd, &rec), LOGREP_ERR__END);
    logrep_batch_reader_free(rd);
    free(g);
}


Test(quorum_store, qbatch_round_trips)
{
    uint64_t s = 88172645463325252ull;
    uint8_t pool[4096];
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)qt_rng_next(&s);
    for (int round = 0; round < 300; round++) {
        lr_qentry in[40];
        size_t n = 1 + qt_rng_next(&s) % 40;
        int32_t epoch = (int32_t)(qt_rng_next(&s) % 5);
        for (size_t i = 0; i < n; i++) {
            if (qt_rng_next(&s) % 4 == 0)
                epoch += (int32_t)(qt_rng_next(&s) % 3);
            size_t len = qt_rng_next(&s) % 4 == 0 ? 0 : qt_rng_next(&s) % 64;
            in[i] = (lr_qentry){epoch, qt_rng_next(&s) % 6 == 0 ? (int16_t)(1 + qt_rng_next(&s) % 6) : 0,
                                len ? pool + qt_rng_next(&s) % (sizeof pool - 64) : NULL, len};
        }
        int64_t base = (int64_t)(qt_rng_next(&s) % 1000000);
        lr_buf out;
        lr_buf_init(&out, &lr_alloc_default);
        cr_assert_eq(lr_buf_append(&out, "x", 1), 0); /* appends after what is there */
        cr_assert_eq(lr_qbatch_encode(base, in, n, 1700000000000, &out), 0);
        got r = {0};
        size_t used;
        cr_assert_eq(lr_qbatch_decode(out.data + 1, out.len - 1, collect, &r, &used), 0);
        cr_assert_eq(used, out.len - 1);
        cr_assert_eq(r.n, n);
        size_t batches = 0, runs = 0;
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(r.off[i], base + (int64_t)i);
            cr_assert_eq(r.e[i].epoch, in[i].epoch);
            cr_assert_eq(r.e[i].control, in[i].control);
            cr_assert_eq(r.e[i].len, in[i].len);
            if (in[i].len)
                cr_assert_eq(memcmp(r.e[i].data, in[i].data, in[i].len), 0);
            runs += i == 0 || in[i].control || in[i - 1].control || in[i].epoch != in[i - 1].epoch;
        }
        /* One batch per run of data entries of one epoch, one per control entry. */
        for (size_t pos = 1; pos < out.len; batches++) {
            size_t size;
            cr_assert_eq(logrep_batch_verify(out.data + pos, out.len - pos, &size), 0);
            pos += size;
        }
        cr_assert_eq(batches, runs);
        lr_buf_free(&out);
    }
}

Test(quorum_store, qbatch_encode_refuses_bad_entries_and_leaves_out_alone)
{
    lr_buf out;
    lr_buf_init(&out, &lr_alloc_default);
    cr_assert_eq(lr_buf_append(&out, "keep", 4), 0);
    lr_qentry ok = {1, 0, (const uint8_t *)"v", 1};
    lr_qentry bad[] = {
        {-1, 0, (const uint8_t *)"v", 1}, /* negative epoch */
        {1, -2, (const uint8_t *)"v", 1}, /* negative control type */
        {1, 0, NULL, 3},                  /* no data */
    };
    for (size_t i = 0; i < 3; i++) {
        lr_qentry two[2] = {ok, bad[i]};
        cr_assert_eq(lr_qbatch_encode(0, two, 2, 0, &out), LOGREP_ERR__INVALID_ARG);
        cr_assert_eq(out.len, 4);
    }
    cr_assert_eq(lr_qbatch_encode(-1, &ok, 1, 0, &out), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qbatch_encode(INT64_MAX, &ok, 1, 0, &out), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qbatch_encode(0, NULL, 1, 0, &out), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qbatch_encode(0, NULL, 0, 0, &out), 0);
    cr_assert_eq(out.len, 4);
    /* An entry that cannot fit one batch; the first entry's batch is undone. */
    uint8_t *big = calloc(1, LR_QBATCH_MAX_BYTES);
    lr_qentry two[2] = {ok, {1, 0, big, LR_QBATCH_MAX_BYTES - 70}};
    cr_assert_eq(lr_qbatch_encode(0, two, 2, 0, &out), LOGREP_ERR__LIMIT);
    cr_assert_eq(out.len, 4);
    cr_assert_eq(memcmp(out.data, "keep", 4), 0);
    /* A run that does not fit one batch is split. */
    lr_qentry three[3] = {{1, 0, big, 3u << 20}, {1, 0, big, 3u << 20}, {1, 0, big, 3u << 20}};
    lr_buf_clear(&out);
    cr_assert_eq(lr_qbatch_encode(10, three, 3, 0, &out), 0);
    size_t size;
    cr_assert_eq(logrep_batch_verify(out.data, out.len, &size), 0);
    cr_assert_eq(lr_get_be32(out.data + 57), 2); /* record count of the first batch */
    cr_assert_eq(lr_get_be64(out.data + size), 12); /* the second starts at 12 */
    got r = {0};
    size_t used;
    cr_assert_eq(lr_qbatch_decode(out.data, out.len, NULL, &r, &used), 0);
    cr_assert_eq(used, out.len);
    free(big);
    lr_buf_free(&out);
}

/* Re-seals a batch after an edit, so the check that fails is the one meant. */
static void reseal(uint8_t *b)
{
    size_t size = (size_t)lr_get_be32(b + 8) + 12;
    lr_put_be32(b + 17, logrep_crc32c(0, b + 21, size - 21));
}

static int decode_all(const uint8_t *p, size_t len, size_t *used)
{
    got r = {0};
    return lr_qbatch_decode(p, len, collect, &r, used);
}

Test(quorum_store, qbatch_partial_batches_stop_cleanly)
{
    size_t glen, used;
    uint8_t *g = golden(&glen);
    /* Every cut of the second batch: the first is walked, the rest waits. */
    for (size_t cut = 78; cut < glen; cut++) {
        uint8_t *c = malloc(cut); /* exactly cut bytes, so ASan sees any overread */
        memcpy(c, g, cut);
        got r = {0};
        cr_assert_eq(lr_qbatch_decode(c, cut, collect, &r, &used), 0, "cut %zu", cut);
        cr_assert_eq(used, 78);
        cr_assert_eq(r.n, 2);
        free(c);
    }
    for (size_t cut = 0; cut < 78; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, g, cut);
        cr_assert_eq(decode_all(c, cut, &used), 0);
        cr_assert_eq(used, 0);
        free(c);
    }
    /* fn stops the walk: its value comes back, only whole batches count. */
    got r = {.stop_at = 2};
    cr_assert_eq(lr_qbatch_decode(g, glen, collect, &r, &used), 7);
    cr_assert_eq(r.n, 1);
    cr_assert_eq(used, 0);
    free(g);
}

Test(quorum_store, qbatch_refuses_corrupt_batches)
{
    size_t glen, used;
    uint8_t *g = golden(&glen);
    uint8_t *b = malloc(glen);
    /* Each case edits a copy of the golden bytes; `seal` re-CRCs it.
     * The first batch is 78 bytes: header, then record 0 at 61 (9 bytes:
     * length, attrs, ts delta, offset delta, key length, value length,
     * 'a', 'b', header count), record 1 at 70. */
    struct {
        const char *what;
        size_t at;
        uint8_t v;
        int seal;
        int err;
    } cases[] = {
        {"bad CRC", 30, 0x55, 0, LOGREP_ERR__CORRUPT},
        {"CRC field", 17, 0x00, 0, LOGREP_ERR__CORRUPT},
        {"magic 1", 16, 1, 1, LOGREP_ERR__CORRUPT},
        {"magic 3", 16, 3, 1, LOGREP_ERR__CORRUPT},
        {"length below the header", 11, 10, 0, LOGREP_ERR__CORRUPT},
        {"negative length", 8, 0x80, 0, LOGREP_ERR__CORRUPT},
        {"huge length", 8, 0x01, 0, LOGREP_ERR__CORRUPT},
        {"length one byte short", 11, 0x41, 1, LOGREP_ERR__CORRUPT},
        {"compressed", 22, 0x04, 1, LOGREP_ERR__UNSUPPORTED},
        {"unknown codec", 22, 0x07, 1, LOGREP_ERR__CORRUPT},
        {"negative epoch", 12, 0xff, 1, LOGREP_ERR__CORRUPT},
        {"negative base offset", 0, 0x80, 1, LOGREP_ERR__CORRUPT},
        {"count above last delta + 1", 60, 3, 1, LOGREP_ERR__CORRUPT},
        {"count below last delta + 1", 60, 1, 1, LOGREP_ERR__CORRUPT},
        {"zero records", 60, 0, 1, LOGREP_ERR__CORRUPT},
        {"record length too long", 61, 0x7e, 1, LOGREP_ERR__CORRUPT},
        {"record length zero", 61, 0x00, 1, LOGREP_ERR__CORRUPT},
        {"record length negative", 61, 0x01, 1, LOGREP_ERR__CORRUPT},
        {"offset delta 1 first", 64, 0x02, 1, LOGREP_ERR__CORRUPT},
        {"key longer than the record", 65, 0x7e, 1, LOGREP_ERR__CORRUPT},
        {"key length -2", 65, 0x03, 1, LOGREP_ERR__CORRUPT},
        {"null value", 66, 0x01, 1, LOGREP_ERR__CORRUPT},
        {"value longer than the record", 66, 0x06, 1, LOGREP_ERR__CORRUPT},
        {"a record header", 69, 0x02, 1, LOGREP_ERR__CORRUPT},
        {"varint runs off the record", 63, 0xff, 1, LOGREP_ERR__CORRUPT},
        {"second offset delta 0", 73, 0x00, 1, LOGREP_ERR__CORRUPT},
        {"control key version -1", 78 + 66, 0xff, 1, LOGREP_ERR__CORRUPT},
        {"control type 0", 78 + 69, 0x00, 1, LOGREP_ERR__CORRUPT},
        {"control key 3 bytes", 78 + 65, 0x06, 1, LOGREP_ERR__CORRUPT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(b, g, glen);
        b[cases[i].at] = cases[i].v;
        if (cases[i].seal) {
            reseal(b);
            reseal(b + 78);
        }
        got r = {0};
        int err = lr_qbatch_decode(b, glen, collect, &r, &used);
        cr_assert_eq(err, cases[i].err, "%s: %d", cases[i].what, err);
        /* A batch is checked whole before any of its records is handed out. */
        size_t bad_batch = cases[i].at >= 78;
        cr_assert_eq(used, bad_batch ? 78 : 0, "%s", cases[i].what);
        cr_assert_eq(r.n, bad_batch ? 2 : 0, "%s", cases[i].what);
    }
    /* Trailing bytes that are not a batch. */
    uint8_t *t = malloc(glen + 20);
    memcpy(t, g, glen);
    memset(t + glen, 0xee, 20);
    cr_assert_eq(decode_all(t, glen + 20, &used), LOGREP_ERR__CORRUPT);
    cr_assert_eq(used, glen);
    /* A record area with bytes after the last record. */
    memcpy(t, g, 78);
    t[78] = 0;
    lr_put_be32(t + 8, 67);
    reseal(t);
    cr_assert_eq(decode_all(t, 79, &used), LOGREP_ERR__CORRUPT);
    free(t);
    cr_assert_eq(lr_qbatch_decode(NULL, 5, NULL, NULL, &used), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qbatch_decode(NULL, 0, NULL, NULL, &used), 0);
    free(b);
    free(g);
}

Test(quorum_store, qbatch_survives_random_garbage)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    size_t glen;
    uint8_t *g = golden(&glen);
    for (int round = 0; round < 20000; round++) {
        size_t len = qt_rng_next(&s) % (glen + 8);
        uint8_t *b = malloc(len ? len : 1);
        if (round % 2) {
            for (size_t i = 0; i < len; i++)
                b[i] = (uint8_t)qt_rng_next(&s);
        } else {
            /* Golden bytes with a few flips, half of them re-sealed. */
            memcpy(b, g, len < glen ? len : glen);
            for (size_t i = glen; i < len; i++)
                b[i] = (uint8_t)qt_rng_next(&s);
            for (int k = 0; k < 3 && len; k++)
                b[qt_rng_next(&s) % len] ^= (uint8_t)(1u << (qt_rng_next(&s) % 8));
            if (qt_rng_next(&s) % 2 && len >= 78 &&
                (uint64_t)lr_get_be32(b + 8) + 12 <= len && lr_get_be32(b + 8) >= 49)
                reseal(b);
        }
        size_t used = 99;
        int err = decode_all(b, len, &used);
        cr_assert(err == 0 || err == LOGREP_ERR__CORRUPT || err == LOGREP_ERR__UNSUPPORTED);
        cr_assert_leq(used, len);
        free(b);
    }
    free(g);
}
