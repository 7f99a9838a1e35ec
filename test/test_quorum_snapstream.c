/* A snapshot read as its bytes arrive (quorum/qsnap_stream.h): pieces of
 * any size give the records lr_qsnap_read gives; every byte flipped and
 * every cut is refused; gaps, overlaps and bytes past the size are
 * refused without harm; a reader's refusal stops it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/storage.h>

#include "lib/testutil.h"
#include "quorum/qsnap_stream.h"

#define DIR "m"

typedef struct recs {
    uint8_t data[1 << 16];
    size_t len;
    int64_t n;
    int64_t stop_at; /* refuse this record (0: none) */
} recs;

static int collect(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    recs *r = ctx;
    if (offset == r->stop_at)
        return LOGREP_ERR__CORRUPT;
    cr_assert_eq(offset, r->n + 1);
    cr_assert_leq(r->len + len, sizeof r->data);
    memcpy(r->data + r->len, rec, len);
    r->len += len;
    r->n++;
    return 0;
}

/* A snapshot of n records (a batch per 7 records when small_batches is
 * not used: the writer's own batching) into *out; its id. */
static lr_qsnap_id make(logrep_storage *st, size_t n, uint8_t **out, size_t *size)
{
    lr_qsnap_id id = {123, 4};
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, DIR, id, 77, 1000, &w), 0);
    for (size_t i = 0; i < n; i++) {
        char rec[64];
        int len = snprintf(rec, sizeof rec, "record %zu %.*s", i, (int)(i % 40), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        cr_assert_eq(lr_qsnap_writer_add(w, (const uint8_t *)rec, (size_t)len), 0);
    }
    uint64_t sz;
    cr_assert_eq(lr_qsnap_writer_finish(w, &sz), 0);
    lr_qsnap_writer_free(w);
    *out = malloc(sz);
    size_t got;
    cr_assert_eq(lr_qsnap_read_chunk(st, DIR, id, 0, *out, sz, &got, &sz), 0);
    cr_assert_eq(got, sz);
    *size = (size_t)sz;
    return id;
}

/* Streams buf by pieces of `chunk`; the result of finish. */
static int stream(lr_qsnap_id id, const uint8_t *buf, size_t size, size_t chunk, recs *r,
                  lr_qsnap_info *info)
{
    lr_qsnap_stream *s;
    cr_assert_eq(lr_qsnap_stream_new(NULL, id, size, collect, r, &s), 0);
    int err = 0;
    for (size_t pos = 0; pos < size && !err; pos += chunk)
        err = lr_qsnap_stream_feed(s, pos, buf + pos, size - pos < chunk ? size - pos : chunk);
    if (!err)
        err = lr_qsnap_stream_finish(s, info);
    lr_qsnap_stream_free(s);
    return err;
}

static logrep_storage *store(void)
{
    logrep_storage *st;
    cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, DIR), 0);
    return st;
}

static int from_read(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    return collect(ctx, offset, rec, len);
}

Test(quorum_snapstream, pieces_of_any_size_give_the_records)
{
    logrep_storage *st = store();
    uint8_t *buf;
    size_t size;
    lr_qsnap_id id = make(st, 300, &buf, &size);
    static recs want, got;
    memset(&want, 0, sizeof want);
    lr_qsnap_info wi, gi;
    cr_assert_eq(lr_qsnap_read(NULL, st, DIR, id, from_read, &want, &wi), 0);
    const size_t chunks[] = {1, 7, 12, 13, 61, 100, 4096, 1 << 20};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        memset(&got, 0, sizeof got);
        cr_assert_eq(stream(id, buf, size, chunks[c], &got, &gi), 0, "chunk %zu: %s", chunks[c],
                     gi.why);
        cr_assert_eq(got.n, want.n);
        cr_assert_eq(got.len, want.len);
        cr_assert_eq(memcmp(got.data, want.data, got.len), 0);
        cr_assert_eq(gi.n_records, wi.n_records);
        cr_assert_eq(gi.last_ts, 77);
        cr_assert_eq(gi.size, (uint64_t)size);
    }
    free(buf);
    logrep_storage_free(st);
}

Test(quorum_snapstream, flips_and_cuts_are_refused)
{
    logrep_storage *st = store();
    uint8_t *buf;
    size_t size;
    lr_qsnap_id id = make(st, 20, &buf, &size);
    static recs r;
    for (size_t i = 0; i < size; i++) {
        buf[i] ^= 0x10;
        memset(&r, 0, sizeof r);
        lr_qsnap_info info;
        int err = stream(id, buf, size, 1 + i % 50, &r, &info);
        cr_assert_neq(err, 0, "byte %zu flipped", i);
        buf[i] ^= 0x10;
    }
    for (size_t cut = 0; cut < size; cut++) {
        memset(&r, 0, sizeof r);
        lr_qsnap_info info;
        cr_assert_neq(stream(id, buf, cut ? cut : 1, 33, &r, &info), 0, "cut at %zu", cut);
    }
    /* Another epoch than the name's. */
    memset(&r, 0, sizeof r);
    lr_qsnap_id other = {id.end_offset, id.epoch + 1};
    cr_assert_eq(stream(other, buf, size, 100, &r, NULL), LOGREP_ERR__CORRUPT);
    free(buf);
    logrep_storage_free(st);
}

Test(quorum_snapstream, gaps_overlaps_oversize_and_refusals)
{
    logrep_storage *st = store();
    uint8_t *buf;
    size_t size;
    lr_qsnap_id id = make(st, 50, &buf, &size);
    static recs r;
    memset(&r, 0, sizeof r);
    lr_qsnap_stream *s;
    cr_assert_eq(lr_qsnap_stream_new(NULL, id, size, collect, &r, &s), 0);
    cr_assert_eq(lr_qsnap_stream_feed(s, 0, buf, 100), 0);
    cr_assert_eq(lr_qsnap_stream_feed(s, 50, buf + 50, 100), LOGREP_ERR__INVALID_ARG, "overlap");
    cr_assert_eq(lr_qsnap_stream_feed(s, 150, buf + 150, 10), LOGREP_ERR__INVALID_ARG, "gap");
    cr_assert_eq(lr_qsnap_stream_feed(s, 100, buf + 100, size), LOGREP_ERR__LIMIT, "past size");
    cr_assert_eq(lr_qsnap_stream_position(s), 100, "nothing taken");
    cr_assert_eq(lr_qsnap_stream_finish(s, NULL), LOGREP_ERR__INVALID_ARG, "bytes missing");
    cr_assert_eq(lr_qsnap_stream_feed(s, 100, buf + 100, size - 100), 0);
    cr_assert_eq(lr_qsnap_stream_finish(s, NULL), 0);
    lr_qsnap_stream_free(s);
    /* The reader refuses a record: the stream stops there, failed. */
    memset(&r, 0, sizeof r);
    r.stop_at = 10;
    cr_assert_eq(lr_qsnap_stream_new(NULL, id, size, collect, &r, &s), 0);
    cr_assert_eq(lr_qsnap_stream_feed(s, 0, buf, size), LOGREP_ERR__CORRUPT);
    cr_assert_eq(r.n, 9);
    cr_assert_eq(lr_qsnap_stream_finish(s, NULL), LOGREP_ERR__CORRUPT);
    cr_assert_neq(lr_qsnap_stream_why(s)[0], 0);
    lr_qsnap_stream_free(s);
    lr_qsnap_id bad = {-1, 0};
    cr_assert_eq(lr_qsnap_stream_new(NULL, bad, size, collect, &r, &s), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qsnap_stream_new(NULL, id, 0, collect, &r, &s), LOGREP_ERR__INVALID_ARG);
    free(buf);
    logrep_storage_free(st);
}
