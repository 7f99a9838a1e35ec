/* The storage side of the metadata quorum (docs/quorum.md, "The log on
 * disk" and "The quorum-state file"): entries <-> record batches
 * (qbatch), the quorum log over a logrep_log (qlog), the quorum-state
 * file (qstate). */
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

/* CRC-32C bit by bit, independent of the library's table. */
static uint32_t crc32c_bits(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1) ? 0x82f63b78u : 0);
    }
    return c ^ 0xffffffffu;
}

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
    cr_assert_eq(lr_get_be32(g + 17), crc32c_bits(g + 21, 78 - 21));
    cr_assert_eq(lr_get_be32(g + 78 + 17), crc32c_bits(g + 78 + 21, 75 - 21));
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

/* A deterministic pseudo-random source for the round trips. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

Test(quorum_store, qbatch_round_trips)
{
    uint64_t s = 88172645463325252ull;
    uint8_t pool[4096];
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)rng_next(&s);
    for (int round = 0; round < 300; round++) {
        lr_qentry in[40];
        size_t n = 1 + rng_next(&s) % 40;
        int32_t epoch = (int32_t)(rng_next(&s) % 5);
        for (size_t i = 0; i < n; i++) {
            if (rng_next(&s) % 4 == 0)
                epoch += (int32_t)(rng_next(&s) % 3);
            size_t len = rng_next(&s) % 4 == 0 ? 0 : rng_next(&s) % 64;
            in[i] = (lr_qentry){epoch, rng_next(&s) % 6 == 0 ? (int16_t)(1 + rng_next(&s) % 6) : 0,
                                len ? pool + rng_next(&s) % (sizeof pool - 64) : NULL, len};
        }
        int64_t base = (int64_t)(rng_next(&s) % 1000000);
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
        size_t len = rng_next(&s) % (glen + 8);
        uint8_t *b = malloc(len ? len : 1);
        if (round % 2) {
            for (size_t i = 0; i < len; i++)
                b[i] = (uint8_t)rng_next(&s);
        } else {
            /* Golden bytes with a few flips, half of them re-sealed. */
            memcpy(b, g, len < glen ? len : glen);
            for (size_t i = glen; i < len; i++)
                b[i] = (uint8_t)rng_next(&s);
            for (int k = 0; k < 3 && len; k++)
                b[rng_next(&s) % len] ^= (uint8_t)(1u << (rng_next(&s) % 8));
            if (rng_next(&s) % 2 && len >= 78 &&
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

/* ---- qlog --------------------------------------------------------------- */

#define MDIR "meta/__cluster_metadata-0"

/* A metadata log on an in-memory storage (crash-simulating or not) and
 * its adapter; segments are small so that reads and truncations cross
 * them. */
typedef struct mlog {
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log;
    lr_qlog *ql;
    const lr_quorum_log *ops;
    int64_t now;
} mlog;

static void mlog_open(mlog *m)
{
    logrep_err err = logrep_log_open(m->conf, m->st, MDIR, m->now, &m->log);
    cr_assert_eq(err, 0, "open: %s", logrep_err_name(err));
    cr_assert_eq(lr_qlog_new(NULL, m->log, m, &m->ql), 0);
    cr_assert_eq(lr_qlog_host(m->ql), m);
    lr_qlog_set_now(m->ql, m->now);
    m->ops = lr_qlog_ops();
}

static void mlog_init(mlog *m, int crash)
{
    memset(m, 0, sizeof *m);
    m->now = 1000;
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &m->st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &m->st), 0);
    cr_assert_eq(m->st->mkdir(m->st->ctx, "meta"), 0);
    m->conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(m->conf, "segment.bytes", "2000", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(m->conf, "index.interval.bytes", "200", NULL, 0), 0);
    mlog_open(m);
}

/* clean: flushed and closed; else dropped as a crashed process drops it. */
static void mlog_close(mlog *m, int clean)
{
    lr_qlog_free(m->ql);
    m->ql = NULL;
    if (clean)
        cr_assert_eq(logrep_log_close(m->log), 0);
    else
        logrep_log_abandon(m->log);
    m->log = NULL;
}

static void mlog_fini(mlog *m)
{
    if (m->log)
        mlog_close(m, 1);
    logrep_storage_free(m->st);
    logrep_conf_free(m->conf);
}

static int64_t m_end(mlog *m) { return m->ops->end_offset(m->ql); }

/* n entries of `epoch` at the end, data naming their offset. */
static void m_append(mlog *m, int32_t epoch, int16_t control, size_t n)
{
    char data[16][24];
    lr_qentry e[16];
    int64_t base = m_end(m);
    cr_assert_leq(n, 16);
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(data[i], sizeof data[i], "e%d-o%lld", epoch,
                         (long long)(base + (int64_t)i));
        e[i] = (lr_qentry){epoch, control, (const uint8_t *)data[i], (size_t)k};
    }
    cr_assert_eq(m->ops->append(m->ql, base, e, n), 0);
}

/* Entry o is the one m_append wrote at o in `epoch`. */
static void m_expect(mlog *m, int64_t o, int32_t epoch)
{
    lr_qentry e;
    cr_assert_eq(m->ops->read(m->ql, o, &e, 1), 1, "read at %lld", (long long)o);
    char want[24];
    int k = snprintf(want, sizeof want, "e%d-o%lld", epoch, (long long)o);
    cr_assert_eq(e.epoch, epoch, "offset %lld: epoch %d", (long long)o, e.epoch);
    cr_assert_eq(e.len, (size_t)k);
    cr_assert_eq(memcmp(e.data, want, e.len), 0);
}

static int entry_same(const lr_qentry *a, const lr_qentry *b)
{
    return a->epoch == b->epoch && a->control == b->control && a->len == b->len &&
           (!a->len || memcmp(a->data, b->data, a->len) == 0);
}

/* Both logs answer every question alike. The one licensed difference:
 * for an epoch older than every entry the test log answers (-1, -1) and
 * logrep_log (epoch, its first offset); the quorum truncates to 0 on
 * either (quorum.h). */
static void same_answers(const lr_quorum_log *ref, void *rctx, mlog *m, uint64_t *s)
{
    int64_t end = ref->end_offset(rctx);
    cr_assert_eq(m_end(m), end);
    int32_t last = ref->last_epoch(rctx);
    cr_assert_eq(m->ops->last_epoch(m->ql), last);
    for (int32_t ep = -1; ep <= last + 2; ep++) {
        int32_t e1, e2;
        int64_t o1, o2;
        ref->epoch_end(rctx, ep, &e1, &o1);
        m->ops->epoch_end(m->ql, ep, &e2, &o2);
        if (e1 < 0 && end > 0 && ep >= 0)
            cr_assert((e2 == -1 && o2 == -1) || (e2 == ep && o2 == 0),
                      "epoch %d older than the log: (%d, %lld)", ep, e2, (long long)o2);
        else
            cr_assert(e1 == e2 && o1 == o2, "epoch_end(%d): test log (%d, %lld), qlog (%d, %lld)",
                      ep, e1, (long long)o1, e2, (long long)o2);
    }
    for (int k = 0; k < 3; k++) {
        int64_t off = (int64_t)(rng_next(s) % (uint64_t)(end + 2));
        size_t cap = 1 + rng_next(s) % 12;
        lr_qentry a[12], b[12];
        size_t na = ref->read(rctx, off, a, cap), nb = m->ops->read(m->ql, off, b, cap);
        cr_assert_eq(lr_qlog_read_error(m->ql), 0);
        cr_assert_eq(na, nb, "read(%lld, %zu): %zu and %zu entries", (long long)off, cap, na, nb);
        for (size_t i = 0; i < na; i++)
            cr_assert(entry_same(&a[i], &b[i]), "read(%lld): entry %zu differs", (long long)off, i);
    }
}

Test(quorum_store, qlog_answers_as_the_test_log_does)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        uint64_t s = seed * 0x2545f4914f6cdd1dull;
        static const qt_params calm = {0};
        qt_cluster *c = qt_new(1, 0, seed, &calm);
        lr_quorum_log ref = c->nodes[0].q->log; /* the test log, as the quorum sees it */
        void *rctx = c->nodes[0].q->ctx;
        mlog m;
        mlog_init(&m, seed % 2);
        uint8_t pool[256];
        for (size_t i = 0; i < sizeof pool; i++)
            pool[i] = (uint8_t)rng_next(&s);
        for (int step = 0; step < 1500; step++) {
            uint64_t op = rng_next(&s) % 10;
            int64_t end = ref.end_offset(rctx);
            if (op < 5) {
                lr_qentry e[6];
                size_t n = 1 + rng_next(&s) % 6;
                int32_t epoch = end ? ref.last_epoch(rctx) : (int32_t)(rng_next(&s) % 3);
                for (size_t i = 0; i < n; i++) {
                    if (rng_next(&s) % 5 == 0)
                        epoch += 1 + (int32_t)(rng_next(&s) % 2);
                    size_t len = rng_next(&s) % 48;
                    int16_t ctl = rng_next(&s) % 8 == 0 ? LR_QUORUM_CTL_LEADER_CHANGE : 0;
                    e[i] = (lr_qentry){epoch, ctl,
                                       len ? pool + rng_next(&s) % (sizeof pool - 48) : NULL, len};
                }
                cr_assert_eq(ref.append(rctx, end, e, n), 0);
                cr_assert_eq(m.ops->append(m.ql, end, e, n), 0);
            } else if (op < 7 && end > 0) {
                /* mostly near the end, sometimes far back or past it */
                int64_t back = rng_next(&s) % 4 == 0 ? (int64_t)(rng_next(&s) % (uint64_t)(end + 1))
                                                     : (int64_t)(rng_next(&s) % 4);
                int64_t off = end - back + (rng_next(&s) % 8 == 0 ? 2 : 0);
                if (off < 0)
                    off = 0;
                cr_assert_eq(ref.truncate(rctx, off), 0);
                cr_assert_eq(m.ops->truncate(m.ql, off), 0);
            } else if (op == 7) {
                int64_t durable;
                m.now += 5;
                lr_qlog_set_now(m.ql, m.now);
                cr_assert_eq(lr_qlog_flush(m.ql, m.now, &durable), 0);
                cr_assert_eq(durable, end);
                cr_assert_eq(lr_qlog_durable_end(m.ql), end);
            } else if (op == 8 && rng_next(&s) % 20 == 0) {
                /* closed and opened again, or dropped with nothing lost */
                int clean = rng_next(&s) % 2 || !(seed % 2);
                mlog_close(&m, clean);
                if (!clean)
                    logrep_storage_crash_simulate(m.st, 0, LOGREP_CRASH_KEEP_ALL);
                mlog_open(&m);
            }
            same_answers(&ref, rctx, &m, &s);
        }
        cr_assert(!c->why[0], "%s", c->why);
        mlog_fini(&m);
        qt_free(c);
    }
}

Test(quorum_store, qlog_append_refuses_what_the_quorum_never_asks)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 3, 0, 2);
    lr_qentry e = {3, 0, (const uint8_t *)"x", 1};
    cr_assert_eq(m.ops->append(m.ql, 1, &e, 1), LOGREP_ERR__INVALID_ARG); /* not at the end */
    cr_assert_eq(m.ops->append(m.ql, 3, &e, 1), LOGREP_ERR__INVALID_ARG);
    e.epoch = 2; /* epochs never decrease */
    cr_assert_eq(m.ops->append(m.ql, 2, &e, 1), LOGREP_ERR__INVALID_ARG);
    lr_qentry two[2] = {{4, 0, (const uint8_t *)"a", 1}, {-1, 0, (const uint8_t *)"b", 1}};
    cr_assert_eq(m.ops->append(m.ql, 2, two, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(m_end(&m), 2); /* nothing of a refused append */
    cr_assert_eq(m.ops->last_epoch(m.ql), 3);
    cr_assert_eq(m.ops->append(m.ql, 2, NULL, 0), 0);
    cr_assert_eq(m.ops->truncate(m.ql, -1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(m.ops->truncate(m.ql, 9), 0);
    cr_assert_eq(m_end(&m), 2);
    lr_qentry out[2];
    cr_assert_eq(m.ops->read(m.ql, -1, out, 2), 0);
    cr_assert_eq(m.ops->read(m.ql, 2, out, 2), 0);
    cr_assert_eq(m.ops->read(m.ql, 0, out, 0), 0);
    cr_assert_eq(lr_qlog_read_error(m.ql), 0);
    mlog_fini(&m);
}

Test(quorum_store, qlog_flushed_prefix_survives_a_power_loss)
{
    for (int mode = 0; mode < 12; mode++) {
        mlog m;
        mlog_init(&m, 1);
        m_append(&m, 1, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        for (int i = 0; i < 6; i++)
            m_append(&m, 1, 0, 3);
        m_append(&m, 2, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        m_append(&m, 2, 0, 4);
        int64_t durable;
        cr_assert_eq(lr_qlog_flush(m.ql, m.now, &durable), 0);
        cr_assert_eq(durable, 24);
        /* An unflushed tail, with a new epoch whose checkpoint entry is durable. */
        m_append(&m, 2, 0, 5);
        m_append(&m, 4, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        m_append(&m, 4, 0, 9);
        cr_assert_eq(m_end(&m), 39);
        cr_assert_eq(lr_qlog_durable_end(m.ql), 24);
        mlog_close(&m, 0);
        /* mode 0: only the durable image; else each pending write kept,
         * dropped or torn by the seed. */
        cr_assert_eq(logrep_storage_crash_simulate(m.st, (uint64_t)mode,
                                                   mode ? LOGREP_CRASH_RANDOM
                                                        : LOGREP_CRASH_DROP_ALL),
                     0);
        mlog_open(&m);
        int64_t end = m_end(&m);
        cr_assert_geq(end, 24, "mode %d: the flushed prefix is gone (end %lld)", mode,
                      (long long)end);
        if (!mode)
            cr_assert_eq(end, 24);
        for (int64_t o = 0; o < end; o++)
            m_expect(&m, o, o < 19 ? 1 : o < 29 ? 2 : 4);
        cr_assert_eq(m.ops->last_epoch(m.ql), end > 29 ? 4 : 2);
        int32_t e;
        int64_t off;
        m.ops->epoch_end(m.ql, 3, &e, &off);
        cr_assert(e == 2 && off == (end > 29 ? 29 : end), "epoch_end(3): (%d, %lld), end %lld", e,
                  (long long)off, (long long)end);
        m.ops->epoch_end(m.ql, 1, &e, &off);
        cr_assert(e == 1 && off == 19);
        mlog_fini(&m);
    }
}

/* A log written with batches of several entries (as qbatch makes for the
 * wire), not by qlog: a truncation inside a batch keeps the entries below
 * it, durably. */
Test(quorum_store, qlog_truncates_inside_a_batch_of_several_entries)
{
    mlog m;
    mlog_init(&m, 1);
    lr_qentry e[10];
    char data[10][24];
    for (int i = 0; i < 10; i++) {
        int32_t epoch = i < 5 ? 1 : 2;
        int k = snprintf(data[i], sizeof data[i], "e%d-o%d", epoch, i);
        e[i] = (lr_qentry){epoch, 0, (const uint8_t *)data[i], (size_t)k};
    }
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_qbatch_encode(0, e, 10, m.now, &b), 0); /* two batches: 0-4, 5-9 */
    cr_assert_eq(logrep_log_append_follower(m.log, b.data, b.len, m.now, NULL), 0);
    lr_buf_free(&b);
    cr_assert_eq(logrep_log_flush(m.log, m.now), 0);
    cr_assert_eq(m_end(&m), 10);
    for (int64_t o = 0; o < 10; o++)
        m_expect(&m, o, o < 5 ? 1 : 2);

    cr_assert_eq(m.ops->truncate(m.ql, 7), 0);
    cr_assert_eq(m_end(&m), 7);
    cr_assert_eq(lr_qlog_durable_end(m.ql), 7); /* the rewritten head is flushed at once */
    int32_t ep;
    int64_t off;
    m.ops->epoch_end(m.ql, 2, &ep, &off);
    cr_assert(ep == 2 && off == 7);
    m.ops->epoch_end(m.ql, 1, &ep, &off);
    cr_assert(ep == 1 && off == 5);

    cr_assert_eq(m.ops->truncate(m.ql, 3), 0);
    cr_assert_eq(m_end(&m), 3);
    cr_assert_eq(m.ops->last_epoch(m.ql), 1);
    m.ops->epoch_end(m.ql, 2, &ep, &off);
    cr_assert(ep == 1 && off == 3);

    mlog_close(&m, 0);
    cr_assert_eq(logrep_storage_crash_simulate(m.st, 0, LOGREP_CRASH_DROP_ALL), 0);
    mlog_open(&m);
    cr_assert_eq(m_end(&m), 3);
    for (int64_t o = 0; o < 3; o++)
        m_expect(&m, o, 1);
    mlog_fini(&m);
}

Test(quorum_store, qlog_read_of_a_corrupt_batch_answers_nothing)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 1, 0, 3);
    cr_assert_eq(lr_qlog_flush(m.ql, m.now, NULL), 0);
    const char *seg = MDIR "/00000000000000000000.log";
    logrep_file *f;
    uint64_t size;
    cr_assert_eq(m.st->open(m.st->ctx, seg, LOGREP_OPEN_WRITE, &f), 0);
    cr_assert_eq(m.st->size(m.st->ctx, f, &size), 0);
    cr_assert_eq(m.st->write(m.st->ctx, f, size - 3, "Z", 1), 0); /* in the last entry's value */
    m.st->close(m.st->ctx, f);
    lr_qentry out[3];
    cr_assert_eq(m.ops->read(m.ql, 2, out, 3), 0);
    cr_assert_eq(lr_qlog_read_error(m.ql), LOGREP_ERR__CORRUPT);
    cr_assert_eq(m.ops->read(m.ql, 0, out, 2), 2); /* the batches before it are fine */
    cr_assert_eq(lr_qlog_read_error(m.ql), 0);
    mlog_fini(&m);
}

Test(quorum_store, qlog_new_refuses_logs_it_cannot_serve)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 1, 0, 3);
    m_append(&m, 2, 0, 3);
    mlog_close(&m, 1);
    /* An epoch cache that lost the last epoch, and no recovery to find it. */
    const char *ck = MDIR "/leader-epoch-checkpoint";
    logrep_file *f;
    cr_assert_eq(m.st->open(m.st->ctx, ck, LOGREP_OPEN_WRITE, &f), 0);
    cr_assert_eq(m.st->truncate(m.st->ctx, f, 0), 0);
    cr_assert_eq(m.st->write(m.st->ctx, f, 0, "0\n1\n1 0\n", 8), 0);
    m.st->close(m.st->ctx, f);
    cr_assert_eq(logrep_log_open(m.conf, m.st, MDIR, m.now, &m.log), 0);
    cr_assert_eq(lr_qlog_new(NULL, m.log, NULL, &m.ql), LOGREP_ERR__CORRUPT);
    /* A log that does not start at 0 (no snapshots yet). */
    cr_assert_eq(logrep_log_epoch_assign(m.log, 2, 3), 0);
    cr_assert_eq(logrep_log_advance_start(m.log, 2), 0);
    cr_assert_eq(lr_qlog_new(NULL, m.log, NULL, &m.ql), LOGREP_ERR__UNSUPPORTED);
    cr_assert_eq(lr_qlog_new(NULL, NULL, NULL, &m.ql), LOGREP_ERR__INVALID_ARG);
    m.ql = NULL;
    mlog_fini(&m);
}

/* ---- qstate ------------------------------------------------------------- */

#define QDIR "meta/__cluster_metadata-0"
#define QPATH QDIR "/quorum-state"

static const int32_t VOTERS3[3] = {1, 2, 3};

static logrep_storage *qs_storage(int crash)
{
    logrep_storage *st;
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "meta"), 0);
    cr_assert_eq(st->mkdir(st->ctx, QDIR), 0);
    return st;
}

static void qs_put(logrep_storage *st, const char *text, size_t len)
{
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, QPATH, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq(st->truncate(st->ctx, f, 0), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, text, len), 0);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    st->close(st->ctx, f);
}

static int state_eq(const lr_quorum_state *a, const lr_quorum_state *b)
{
    return a->epoch == b->epoch && a->voted_for == b->voted_for && a->leader_id == b->leader_id &&
           a->abstaining == b->abstaining && a->floor_epoch == b->floor_epoch;
}

Test(quorum_store, qstate_text_is_kafkas_with_two_fields_of_ours)
{
    lr_quorum_state s = {7, -1, 2, 0, -1};
    char buf[512];
    size_t n = lr_qstate_format(&s, VOTERS3, 3, buf, sizeof buf);
    const char *want = "{\"clusterId\":\"\",\"leaderId\":2,\"leaderEpoch\":7,\"votedId\":-1,"
                       "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},"
                       "{\"voterId\":3}],\"abstaining\":false,\"floorEpoch\":-1,"
                       "\"data_version\":0}";
    cr_assert_eq(n, strlen(want));
    cr_assert_eq(memcmp(buf, want, n), 0, "%.*s", (int)n, buf);
    cr_assert_eq(lr_qstate_format(&s, VOTERS3, 3, buf, n), 0); /* no room */
    cr_assert_eq(lr_qstate_format(&s, VOTERS3, 3, buf, n + 1), n);
}

Test(quorum_store, qstate_round_trips_through_the_storage)
{
    logrep_storage *st = qs_storage(0);
    int32_t many[LR_QUORUM_MAX_VOTERS];
    for (int i = 0; i < LR_QUORUM_MAX_VOTERS; i++)
        many[i] = INT32_MAX - i;
    struct {
        lr_quorum_state s;
        const int32_t *v;
        size_t n;
    } cases[] = {
        {{0, -1, -1, 0, -1}, VOTERS3, 3}, /* the format step's */
        {{5, 2, -1, 0, -1}, VOTERS3, 3},
        {{6, 1, 1, 0, -1}, VOTERS3, 3},
        {{9, -1, 3, 1, 8}, VOTERS3, 3},
        {{INT32_MAX, INT32_MAX, INT32_MAX, 1, INT32_MAX}, many, LR_QUORUM_MAX_VOTERS},
        {{3, -1, -1, 1, -1}, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(lr_qstate_write(st, QDIR, &cases[i].s, cases[i].v, cases[i].n), 0);
        lr_qstate_file f;
        cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
        cr_assert(state_eq(&f.state, &cases[i].s), "case %zu", i);
        cr_assert_eq(f.n_voters, cases[i].n);
        for (size_t k = 0; k < f.n_voters; k++)
            cr_assert_eq(f.voters[k], cases[i].v[k]);
    }
    logrep_storage_free(st);
}

Test(quorum_store, qstate_missing_file_is_none)
{
    logrep_storage *st = qs_storage(0);
    lr_qstate_file f;
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__NOENT);
    cr_assert_eq(lr_qstate_read(st, "meta/elsewhere", &f), LOGREP_ERR__NOENT);
    /* A temporary left by a crash before its rename is not the file. */
    logrep_file *t;
    cr_assert_eq(st->open(st->ctx, QPATH ".tmp", LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &t), 0);
    st->close(st->ctx, t);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__NOENT);
    logrep_storage_free(st);
}

Test(quorum_store, qstate_reader_tolerates_spacing_order_and_unknown_simple_keys)
{
    const char *text =
        " \n{ \"data_version\" : 0 ,\t\"floorEpoch\":4, \"abstaining\" : true,\r\n"
        "  \"currentVoters\" : [ { \"note\": \"a \\\"b\\\" \\u00e9\\n\", \"voterId\" : 3 } ,"
        " {\"voterId\":1,\"weight\":1.5e-3} ] , \"votedId\":-1,\"leaderEpoch\":12,"
        " \"leaderId\" : 3, \"appliedOffset\":0, \"clusterId\":\"x\", \"extra\":null,"
        " \"flag\":false, \"big\":-12345678901234567890, \"zero\":-0.0E+1 }\n\n";
    lr_qstate_file f;
    int err = lr_qstate_parse(text, strlen(text), &f);
    cr_assert_eq(err, 0);
    lr_quorum_state want = {12, -1, 3, 1, 4};
    cr_assert(state_eq(&f.state, &want));
    cr_assert_eq(f.n_voters, 2);
    cr_assert(f.voters[0] == 3 && f.voters[1] == 1);
}

static const char *VALID =
    "{\"clusterId\":\"\",\"leaderId\":2,\"leaderEpoch\":7,\"votedId\":-1,\"appliedOffset\":0,"
    "\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},{\"voterId\":3}],\"abstaining\":false,"
    "\"floorEpoch\":-1,\"data_version\":0}";

/* VALID with the first `from` replaced by `to`. */
static char *edit(const char *from, const char *to)
{
    const char *at = strstr(VALID, from);
    cr_assert_not_null(at, "%s", from);
    size_t a = (size_t)(at - VALID), fl = strlen(from), tl = strlen(to);
    char *s = malloc(strlen(VALID) - fl + tl + 1);
    memcpy(s, VALID, a);
    memcpy(s + a, to, tl);
    strcpy(s + a + tl, at + fl);
    return s;
}

Test(quorum_store, qstate_refuses_every_corruption)
{
    lr_qstate_file f, keep;
    memset(&keep, 0x5a, sizeof keep);
    cr_assert_eq(lr_qstate_parse(VALID, strlen(VALID), &f), 0);
    /* Truncated anywhere. */
    for (size_t n = 0; n < strlen(VALID); n++) {
        char *c = malloc(n ? n : 1);
        memcpy(c, VALID, n);
        f = keep;
        cr_assert_eq(lr_qstate_parse(c, n, &f), LOGREP_ERR__CORRUPT, "cut at %zu", n);
        cr_assert_eq(memcmp(&f, &keep, sizeof f), 0); /* untouched */
        free(c);
    }
    /* Wrong types, out of range, duplicates, missing keys, bad syntax. */
    static const char *const edits[][2] = {
        {"\"leaderId\":2", "\"leaderId\":\"2\""},
        {"\"leaderId\":2", "\"leaderId\":2.0"},
        {"\"leaderId\":2", "\"leaderId\":2e0"},
        {"\"leaderId\":2", "\"leaderId\":true"},
        {"\"leaderId\":2", "\"leaderId\":null"},
        {"\"leaderId\":2", "\"leaderId\":-2"},
        {"\"leaderId\":2", "\"leaderId\":2147483648"},
        {"\"leaderId\":2", "\"leaderId\":02"},
        {"\"leaderId\":2", "\"leaderId\":+2"},
        {"\"leaderId\":2", "\"leaderId\":-"},
        {"\"leaderEpoch\":7", "\"leaderEpoch\":-1"},
        {"\"leaderEpoch\":7", "\"leaderEpoch\":99999999999999999999"},
        {"\"votedId\":-1", "\"votedId\":-2"},
        {"\"votedId\":-1", "\"votedId\":9223372036854775807"},
        {"\"appliedOffset\":0", "\"appliedOffset\":9223372036854775808"},
        {"\"appliedOffset\":0", "\"appliedOffset\":0.5"},
        {"\"floorEpoch\":-1", "\"floorEpoch\":-2"},
        {"\"floorEpoch\":-1", "\"floorEpoch\":\"-1\""},
        {"\"abstaining\":false", "\"abstaining\":0"},
        {"\"abstaining\":false", "\"abstaining\":\"false\""},
        {"\"abstaining\":false", "\"abstaining\":fals"},
        {"\"data_version\":0", "\"data_version\":1"},
        {"\"data_version\":0", "\"data_version\":-1"},
        {"[{\"voterId\":1},", "{\"voterId\":1},"},
        {"[{\"voterId\":1},", "[{\"voterId\":\"1\"},"},
        {"[{\"voterId\":1},", "[{\"voterId\":-1},"},
        {"[{\"voterId\":1},", "[{\"voterId\":2},"},       /* a voter twice */
        {"[{\"voterId\":1},", "[{\"voter\":1},"},         /* no voterId */
        {"[{\"voterId\":1},", "[{\"voterId\":1,\"voterId\":4},"},
        {"[{\"voterId\":1},", "[{},"},
        {"[{\"voterId\":1},", "[1,"},
        {"[{\"voterId\":1},", "[{\"voterId\":1,\"x\":[]},"},
        {"{\"voterId\":3}]", "{\"voterId\":3},]"},
        {"{\"voterId\":3}]", "{\"voterId\":3}"},
        {"\"leaderId\":2,", "\"leaderId\":2,\"leaderId\":2,"}, /* a key twice */
        {"\"leaderId\":2,", ""},
        {"\"leaderEpoch\":7,", ""},
        {"\"votedId\":-1,", ""},
        {"\"appliedOffset\":0,", ""},
        {"\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},{\"voterId\":3}],", ""},
        {"\"abstaining\":false,", ""},
        {"\"floorEpoch\":-1,", ""},
        {",\"data_version\":0", ""},
        {"\"clusterId\":\"\"", "\"clusterId\":{}"},        /* not a simple value */
        {"\"clusterId\":\"\"", "\"clusterId\":[1]"},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\\x\""},   /* bad escape */
        {"\"clusterId\":\"\"", "\"clusterId\":\"\\u12g4\""},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\t\""},    /* control character */
        {"\"clusterId\":\"\"", "\"clusterId\":\"\""},      /* (valid: the control) */
        {"\"clusterId\":\"\"", "\"clusterId\" \"\""},
        {"\"clusterId\":\"\"", "clusterId:\"\""},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\",,"},
        {"\"clusterId\":\"\"", "\"clusterId\":.5"},
        {"\"clusterId\":\"\"", "\"clusterId\":1.e5"},
        {"\"clusterId\":\"\"", "\"clusterId\":1e"},
        {"\"data_version\":0}", "\"data_version\":0}}"},    /* trailing bytes */
        {"\"data_version\":0}", "\"data_version\":0}x"},
        {"\"data_version\":0}", "\"data_version\":0"},
        {"{\"clusterId\"", "[{\"clusterId\""},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *s = edit(edits[i][0], edits[i][1]);
        int want = strcmp(edits[i][1], "\"clusterId\":\"\"") == 0 ? 0 : LOGREP_ERR__CORRUPT;
        cr_assert_eq(lr_qstate_parse(s, strlen(s), &f), want, "%s", s);
        free(s);
    }
    /* A NUL inside, 17 voters, garbage, an empty file. */
    char nul[512];
    size_t n = strlen(VALID);
    memcpy(nul, VALID, n);
    nul[20] = 0;
    cr_assert_eq(lr_qstate_parse(nul, n, &f), LOGREP_ERR__CORRUPT);
    char many[1024];
    int k = snprintf(many, sizeof many, "{\"leaderId\":-1,\"leaderEpoch\":0,\"votedId\":-1,"
                                        "\"appliedOffset\":0,\"abstaining\":false,"
                                        "\"floorEpoch\":-1,\"data_version\":0,\"currentVoters\":[");
    for (int i = 0; i < 17; i++)
        k += snprintf(many + k, sizeof many - (size_t)k, "%s{\"voterId\":%d}", i ? "," : "", i);
    snprintf(many + k, sizeof many - (size_t)k, "]}");
    cr_assert_eq(lr_qstate_parse(many, strlen(many), &f), LOGREP_ERR__CORRUPT);
    strstr(many, ",{\"voterId\":16}")[0] = ']';
    strstr(many, "]{\"voterId\":16}")[1] = '}';
    strstr(many, "]}\"voterId\":16}")[2] = 0;
    cr_assert_eq(lr_qstate_parse(many, strlen(many), &f), 0, "%s", many); /* 16 is the cap */
    cr_assert_eq(f.n_voters, 16);
    uint64_t s = 7;
    for (int round = 0; round < 5000; round++) {
        char g[64];
        size_t len = rng_next(&s) % sizeof g;
        for (size_t i = 0; i < len; i++)
            g[i] = "{}[]\":,0-1 aetrufl\\"[rng_next(&s) % 20];
        cr_assert_eq(lr_qstate_parse(g, len, &f), LOGREP_ERR__CORRUPT);
    }
    cr_assert_eq(lr_qstate_parse("", 0, &f), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_qstate_parse(NULL, 0, &f), LOGREP_ERR__CORRUPT);
}

Test(quorum_store, qstate_read_refuses_corrupt_files)
{
    logrep_storage *st = qs_storage(0);
    lr_qstate_file f;
    qs_put(st, "", 0);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, VALID, strlen(VALID) - 1);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, "\x01\x02garbage", 9);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    /* Larger than any file we write, even when it would parse. */
    char *big = malloc(LR_QSTATE_MAX_BYTES + 10);
    memset(big, ' ', LR_QSTATE_MAX_BYTES + 10);
    memcpy(big, VALID, strlen(VALID));
    qs_put(st, big, LR_QSTATE_MAX_BYTES + 10);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, big, LR_QSTATE_MAX_BYTES);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
    free(big);
    logrep_storage_free(st);
}

Test(quorum_store, qstate_write_refuses_what_it_could_not_read_back)
{
    logrep_storage *st = qs_storage(0);
    lr_quorum_state ok = {1, -1, -1, 0, -1};
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, VOTERS3, 3), 0);
    lr_quorum_state bad[] = {
        {-1, -1, -1, 0, -1}, {1, -2, -1, 0, -1}, {1, -1, -2, 0, -1},
        {1, -1, -1, 2, -1},  {1, -1, -1, 0, -2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(lr_qstate_write(st, QDIR, &bad[i], VOTERS3, 3), LOGREP_ERR__INVALID_ARG);
    int32_t dup[2] = {4, 4}, neg[1] = {-1}, many[LR_QUORUM_MAX_VOTERS + 1] = {0};
    for (int i = 0; i <= LR_QUORUM_MAX_VOTERS; i++)
        many[i] = i;
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, dup, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, neg, 1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, many, LR_QUORUM_MAX_VOTERS + 1),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, NULL, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, NULL, VOTERS3, 3), LOGREP_ERR__INVALID_ARG);
    lr_qstate_file f;
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
    cr_assert(state_eq(&f.state, &ok));
    logrep_storage_free(st);
}

static int no_tmp(void *ctx, const char *name)
{
    (void)ctx;
    cr_assert(strstr(name, ".tmp") == NULL, "%s left behind", name);
    return 0;
}

Test(quorum_store, qstate_failed_write_keeps_the_old_file)
{
    logrep_storage *st = qs_storage(1);
    lr_quorum_state a = {4, 2, -1, 0, -1}, b = {5, 3, -1, 0, -1};
    cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
    /* The n-th storage call of a class fails: the temporary's open, write,
     * truncate, sync, the rename, the directory sync. */
    struct {
        uint32_t ops;
        uint64_t countdown;
        logrep_err err;
        int renamed; /* the failure comes after the commit point */
    } faults[] = {
        {LOGREP_STORAGE_OP_META, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_TRUNCATE, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__NOSPACE, 0},
        {LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_SYNC, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_META, 2, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_SYNC, 2, LOGREP_ERR__IO, 1},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
        cr_assert_eq(logrep_storage_crash_inject(st, faults[i].ops, faults[i].countdown,
                                                 faults[i].err, 0),
                     0);
        cr_assert_eq(lr_qstate_write(st, QDIR, &b, VOTERS3, 3), faults[i].err, "fault %zu", i);
        cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_ALL, 0, 0, 0), 0);
        lr_qstate_file f;
        cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
        /* Before the rename the old state stands; a failed directory sync
         * after it may leave either, never a torn one. */
        cr_assert(state_eq(&f.state, faults[i].renamed ? &b : &a), "fault %zu", i);
        cr_assert_eq(st->list(st->ctx, QDIR, no_tmp, NULL), 0);
    }
    logrep_storage_free(st);
}

Test(quorum_store, qstate_power_loss_during_a_write_leaves_old_or_new)
{
    lr_quorum_state a = {4, 2, -1, 0, -1}, b = {5, 3, -1, 1, 5};
    int saw_new = 0, saw_old = 0;
    for (uint64_t n = 1; n <= 8; n++) {
        for (int mode = 0; mode < 3; mode++) {
            logrep_storage *st = qs_storage(1);
            cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
            cr_assert_eq(logrep_storage_crash_after(st, n), 0);
            lr_qstate_write(st, QDIR, &b, VOTERS3, 3); /* may fail when the power goes */
            cr_assert_eq(logrep_storage_crash_simulate(st, n * 3 + (uint64_t)mode, mode), 0);
            lr_qstate_file f;
            cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0, "after %llu calls, mode %d",
                         (unsigned long long)n, mode);
            cr_assert(state_eq(&f.state, &a) || state_eq(&f.state, &b));
            saw_new += state_eq(&f.state, &b);
            saw_old += state_eq(&f.state, &a);
            logrep_storage_free(st);
        }
    }
    cr_assert(saw_new && saw_old);
}

/* ---- the quorum over qlog and qstate ----------------------------------- */

/* Three voters, each with its own crash-simulating disk holding the
 * metadata log (qlog) and quorum-state (qstate), as a host would wire
 * them: ctx is the lr_qlog, the node is its host. A lossy network,
 * quorum-state writes and log flushes done a step later, crashes that
 * lose what was not synced (and tear what was being written), restarts
 * from what the disk holds. Election safety and state machine safety
 * are checked after every step; after the chaos a leader must commit. */

#define SN 3

typedef struct snode snode;
typedef struct scluster scluster;

struct snode {
    scluster *c;
    int32_t id;
    logrep_storage *st;
    logrep_log *log;
    lr_qlog *ql;
    lr_quorum *q;
    int up;
    int64_t down_until;
    uint64_t pending_seq; /* quorum-state to write, 0: none */
    lr_quorum_state pending;
    int64_t hw, checked; /* committed here; entries compared with the model */
};

typedef struct smsg {
    int32_t to;
    int64_t at;
    lr_qmsg m;
    lr_qentry *e; /* copies; data in `bytes` */
    uint8_t *bytes;
} smsg;

struct scluster {
    snode n[SN];
    int32_t voters[SN];
    lr_quorum_conf conf;
    logrep_conf *lconf;
    smsg *net;
    size_t n_net, cap_net;
    int64_t now;
    uint64_t rng;
    int chaos;
    int32_t leader_of[4096];
    /* The model: every entry ever committed. */
    uint8_t (*model)[64];
    size_t *model_len;
    int32_t *model_epoch;
    size_t n_model, cap_model;
    long proposed, crashes;
};

static int64_t s_rand(scluster *c, int64_t n)
{
    return n <= 1 ? 0 : (int64_t)(rng_next(&c->rng) % (uint64_t)n);
}

static void s_send(void *ctx, int32_t to, const lr_qmsg *m)
{
    snode *nd = lr_qlog_host(ctx);
    scluster *c = nd->c;
    if (to < 1 || to > SN || (c->chaos && s_rand(c, 100) < 5))
        return;
    if (c->n_net == c->cap_net) {
        c->cap_net = c->cap_net ? 2 * c->cap_net : 64;
        c->net = realloc(c->net, c->cap_net * sizeof *c->net);
    }
    smsg *s = &c->net[c->n_net++];
    s->to = to;
    s->at = c->now + 1 + s_rand(c, c->chaos ? 10 : 2);
    s->m = *m;
    size_t total = 0;
    for (size_t i = 0; i < m->n_entries; i++)
        total += m->entries[i].len;
    s->e = m->n_entries ? malloc(m->n_entries * sizeof *s->e) : NULL;
    s->bytes = malloc(total ? total : 1);
    for (size_t i = 0, o = 0; i < m->n_entries; i++) {
        s->e[i] = m->entries[i];
        memcpy(s->bytes + o, m->entries[i].data, m->entries[i].len);
        s->e[i].data = s->bytes + o;
        o += m->entries[i].len;
    }
    s->m.entries = s->e;
}

static void s_persist(void *ctx, const lr_quorum_state *st, uint64_t seq)
{
    snode *nd = lr_qlog_host(ctx);
    nd->pending = *st;
    nd->pending_seq = seq;
}

static void s_commit(void *ctx, int64_t hw)
{
    snode *nd = lr_qlog_host(ctx);
    cr_assert_gt(hw, nd->hw);
    nd->hw = hw;
}

static const lr_quorum_fx s_fx = {s_send, s_persist, s_commit};

static void s_start(scluster *c, snode *nd)
{
    logrep_err err = logrep_log_open(c->lconf, nd->st, MDIR, c->now, &nd->log);
    cr_assert_eq(err, 0, "node %d: log open: %s", nd->id, logrep_err_name(err));
    cr_assert_eq(lr_qlog_new(NULL, nd->log, nd, &nd->ql), 0);
    lr_qlog_set_now(nd->ql, c->now);
    cr_assert_eq(lr_qlog_flush(nd->ql, c->now, NULL), 0);
    lr_qstate_file f;
    err = lr_qstate_read(nd->st, MDIR, &f);
    cr_assert(err == 0 || err == LOGREP_ERR__NOENT, "node %d: quorum-state: %s", nd->id,
              logrep_err_name(err));
    lr_quorum_conf conf = c->conf;
    conf.node_id = nd->id;
    conf.seed = rng_next(&c->rng);
    lr_quorum_boot boot = {err ? NULL : &f.state, 0};
    nd->q = lr_quorum_new(&conf, &boot, lr_qlog_ops(), &s_fx, nd->ql, c->now);
    cr_assert_not_null(nd->q);
    nd->up = 1;
    nd->pending_seq = 0;
    nd->hw = -1;
    nd->checked = 0;
}

static void s_crash(scluster *c, snode *nd)
{
    lr_quorum_free(nd->q);
    lr_qlog_free(nd->ql);
    logrep_log_abandon(nd->log);
    nd->q = NULL;
    nd->ql = NULL;
    nd->log = NULL;
    nd->up = 0;
    nd->down_until = c->now + 50 + s_rand(c, 400);
    cr_assert_eq(logrep_storage_crash_simulate(nd->st, rng_next(&c->rng), LOGREP_CRASH_RANDOM), 0);
    c->crashes++;
}

/* Committed entries of a node against the model, extending it. */
static void s_check_commits(scluster *c, snode *nd)
{
    while (nd->checked < nd->hw) {
        lr_qentry e[8];
        size_t n = lr_qlog_ops()->read(nd->ql, nd->checked, e, 8);
        cr_assert_gt(n, 0, "node %d: committed offset %lld unreadable", nd->id,
                     (long long)nd->checked);
        for (size_t i = 0; i < n && nd->checked < nd->hw; i++, nd->checked++) {
            size_t o = (size_t)nd->checked;
            cr_assert_leq(e[i].len, 64);
            if (o < c->n_model) {
                cr_assert(c->model_len[o] == e[i].len && c->model_epoch[o] == e[i].epoch &&
                              memcmp(c->model[o], e[i].data, e[i].len) == 0,
                          "node %d commits offset %zu other than the committed entry", nd->id, o);
                continue;
            }
            if (c->n_model == c->cap_model) {
                c->cap_model = c->cap_model ? 2 * c->cap_model : 256;
                c->model = realloc(c->model, c->cap_model * sizeof *c->model);
                c->model_len = realloc(c->model_len, c->cap_model * sizeof *c->model_len);
                c->model_epoch = realloc(c->model_epoch, c->cap_model * sizeof *c->model_epoch);
            }
            memcpy(c->model[o], e[i].data, e[i].len);
            c->model_len[o] = e[i].len;
            c->model_epoch[o] = e[i].epoch;
            c->n_model++;
        }
    }
}

static void s_step(scluster *c)
{
    c->now++;
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (!nd->up) {
            if (c->now >= nd->down_until)
                s_start(c, nd);
            continue;
        }
        lr_qlog_set_now(nd->ql, c->now);
        /* The host's I/O, a step late: quorum-state, then a flush. */
        if (nd->pending_seq && s_rand(c, 3)) {
            uint64_t seq = nd->pending_seq;
            cr_assert_eq(lr_qstate_write(nd->st, MDIR, &nd->pending, c->voters, SN), 0);
            nd->pending_seq = 0;
            lr_quorum_state_durable(nd->q, seq, c->now);
        }
        if (s_rand(c, 4) == 0) {
            int64_t durable;
            cr_assert_eq(lr_qlog_flush(nd->ql, c->now, &durable), 0);
            lr_quorum_log_flushed(nd->q, durable, c->now);
        }
        lr_quorum_tick(nd->q, c->now);
        if (lr_quorum_role_of(nd->q) == LR_QR_LEADER && s_rand(c, 5) == 0) {
            char v[32];
            int k = snprintf(v, sizeof v, "p%ld", c->proposed);
            lr_qentry e = {0, 0, (const uint8_t *)v, (size_t)k};
            if (lr_quorum_propose(nd->q, &e, 1, NULL) == 0)
                c->proposed++;
        }
    }
    /* Deliver what is due, oldest first. */
    for (size_t i = 0; i < c->n_net;) {
        if (c->net[i].at > c->now) {
            i++;
            continue;
        }
        smsg m = c->net[i];
        memmove(&c->net[i], &c->net[i + 1], (c->n_net - i - 1) * sizeof *c->net);
        c->n_net--;
        snode *to = &c->n[m.to - 1];
        if (to->up) {
            lr_qlog_set_now(to->ql, c->now);
            lr_quorum_receive(to->q, &m.m, c->now);
        }
        free(m.e);
        free(m.bytes);
    }
    if (c->chaos && s_rand(c, 200) == 0) {
        snode *nd = &c->n[s_rand(c, SN)];
        if (nd->up)
            s_crash(c, nd);
    }
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (!nd->up)
            continue;
        int32_t ep = lr_quorum_epoch(nd->q);
        cr_assert_lt(ep, 4096);
        if (lr_quorum_role_of(nd->q) == LR_QR_LEADER) {
            cr_assert(c->leader_of[ep] == 0 || c->leader_of[ep] == nd->id,
                      "two leaders in epoch %d", ep);
            c->leader_of[ep] = nd->id;
        }
        s_check_commits(c, nd);
    }
}

static void s_run(uint64_t seed, long steps)
{
    scluster *c = calloc(1, sizeof *c);
    c->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < SN; i++)
        c->voters[i] = i + 1;
    c->conf = (lr_quorum_conf){.voters = c->voters, .n_voters = SN, .election_timeout_ms = 100,
                               .fetch_timeout_ms = 200, .request_timeout_ms = 50,
                               .max_fetch_entries = 8};
    c->lconf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(c->lconf, "segment.bytes", "4000", NULL, 0), 0);
    c->now = 1000;
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        nd->c = c;
        nd->id = i + 1;
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &nd->st), 0);
        cr_assert_eq(nd->st->mkdir(nd->st->ctx, "meta"), 0);
        cr_assert_eq(nd->st->mkdir(nd->st->ctx, MDIR), 0);
        lr_quorum_state fmt = {0, -1, -1, 0, -1}; /* the format step */
        cr_assert_eq(lr_qstate_write(nd->st, MDIR, &fmt, c->voters, SN), 0);
        s_start(c, nd);
    }
    c->chaos = 1;
    for (long i = 0; i < steps; i++)
        s_step(c);
    /* Heal: no drops, no crashes; a leader must commit something new. */
    c->chaos = 0;
    size_t before = c->n_model;
    long proposed = c->proposed;
    for (int i = 0; i < 20000 && (c->n_model <= before || c->proposed == proposed); i++)
        s_step(c);
    cr_assert(c->n_model > before && c->proposed > proposed, "seed %llu: no commit after healing",
              (unsigned long long)seed);
    cr_assert_gt(c->crashes, 0);
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (nd->up) {
            lr_quorum_free(nd->q);
            lr_qlog_free(nd->ql);
            cr_assert_eq(logrep_log_close(nd->log), 0);
        }
        logrep_storage_free(nd->st);
    }
    for (size_t i = 0; i < c->n_net; i++) {
        free(c->net[i].e);
        free(c->net[i].bytes);
    }
    free(c->net);
    free(c->model);
    free(c->model_len);
    free(c->model_epoch);
    logrep_conf_free(c->lconf);
    free(c);
}

Test(quorum_store, quorum_runs_on_qlog_and_qstate_through_crashes, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 8; seed++)
        s_run(seed, 5000);
}
