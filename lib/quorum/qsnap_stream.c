/* A snapshot checked and read as its bytes arrive (qsnap_stream.h). */
#include "quorum/qsnap_stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/conf.h"
#include "base/endian.h"
#include "base/log.h"
#include "codec/batch.h"
#include "codec/varint.h"
#include "quorum/qbatch.h"

/* Where the stream is in the file's records. */
enum { ST_HEADER, ST_DATA, ST_DONE };

struct lr_qsnap_stream {
    lr_alloc alloc;
    lr_qsnap_id id;
    uint64_t size, pos; /* the file's size; bytes taken */
    lr_buf part;        /* a batch arriving in pieces */
    size_t need;        /* its size, once its length field is in (0: not yet) */
    int64_t next;       /* the offset the next record must have */
    int stage;
    lr_qsnap_fn fn;
    void *ctx;
    lr_qsnap_info info;
    int err; /* sticky */
};

static int fail(lr_qsnap_stream *s, int err, const char *fmt, ...) LR_PRINTF(3, 4);
static int fail(lr_qsnap_stream *s, int err, const char *fmt, ...)
{
    if (!s->info.why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->info.why, sizeof s->info.why, fmt, ap);
        va_end(ap);
    }
    return s->err = err;
}

/* The tagged-field section of a flexible value, exactly to its end. */
static int tags_ok(const uint8_t *p, const uint8_t *end)
{
    uint32_t n, tag, size;
    int64_t prev = -1;
    if (lr_uvarint_get(&p, end, &n))
        return 0;
    while (n--) {
        if (lr_uvarint_get(&p, end, &tag) || (int64_t)tag <= prev ||
            lr_uvarint_get(&p, end, &size) || size > (size_t)(end - p))
            return 0;
        prev = tag;
        p += size;
    }
    return p == end;
}

/* One record, in file order: the header first, data records, the footer
 * last, offsets 0, 1, ... and the name's epoch throughout. */
static int on_entry(void *ctx, int64_t offset, const lr_qentry *e)
{
    lr_qsnap_stream *s = ctx;
    const uint8_t *v = e->data, *end = e->data + e->len;
    if (offset != s->next || e->epoch != s->id.epoch || s->stage == ST_DONE)
        return fail(s, LOGREP_ERR__CORRUPT, "record %lld of epoch %d, expected %lld of epoch %d%s",
                    (long long)offset, (int)e->epoch, (long long)s->next, (int)s->id.epoch,
                    s->stage == ST_DONE ? " (after the footer)" : "");
    s->next++;
    if (s->stage == ST_HEADER) {
        if (e->control != LR_QSNAP_CTL_HEADER)
            return fail(s, LOGREP_ERR__CORRUPT, "the first record is not a SnapshotHeader");
        if (e->len < 10 || !tags_ok(v + 10, end))
            return fail(s, LOGREP_ERR__CORRUPT, "malformed SnapshotHeader");
        if (lr_get_be16(v) != 0)
            return fail(s, LOGREP_ERR__UNSUPPORTED, "SnapshotHeader version %d",
                        (int)(int16_t)lr_get_be16(v));
        s->info.last_ts = (int64_t)lr_get_be64(v + 2);
        s->stage = ST_DATA;
        return 0;
    }
    if (e->control == LR_QSNAP_CTL_FOOTER) {
        if (e->len < 2 || !tags_ok(v + 2, end))
            return fail(s, LOGREP_ERR__CORRUPT, "malformed SnapshotFooter");
        if (lr_get_be16(v) != 0)
            return fail(s, LOGREP_ERR__UNSUPPORTED, "SnapshotFooter version %d",
                        (int)(int16_t)lr_get_be16(v));
        s->stage = ST_DONE;
        return 0;
    }
    if (e->control)
        return fail(s, e->control == LR_QSNAP_CTL_HEADER ? LOGREP_ERR__CORRUPT
                                                         : LOGREP_ERR__UNSUPPORTED,
                    "offset %lld: control record type %d", (long long)offset, (int)e->control);
    s->info.n_records++;
    int err = s->fn(s->ctx, offset, e->data, e->len);
    return err ? fail(s, err, "offset %lld: refused by the reader", (long long)offset) : 0;
}

/* A whole batch of bsize bytes: checked entirely, then its records. */
static int take_batch(lr_qsnap_stream *s, const uint8_t *p, size_t bsize)
{
    size_t used = 0;
    int err = lr_qbatch_decode(p, bsize, on_entry, s, &used);
    if (s->err)
        return s->err;
    if (!err && used != bsize)
        err = LOGREP_ERR__CORRUPT;
    if (err)
        return fail(s, err, "batch ending at byte %llu: %s", (unsigned long long)s->pos,
                    err == LOGREP_ERR__UNSUPPORTED ? "compressed" : "bad CRC or malformed");
    return 0;
}

/* The size of the batch whose first LOGREP_LOG_OVERHEAD bytes are at p. */
static int batch_size(lr_qsnap_stream *s, const uint8_t *p, size_t *bsize)
{
    int32_t blen = (int32_t)lr_get_be32(p + 8);
    if (blen < LOGREP_BATCH_HEADER_SIZE - LOGREP_LOG_OVERHEAD ||
        (uint64_t)blen > LR_QBATCH_MAX_BYTES - LOGREP_LOG_OVERHEAD)
        return fail(s, LOGREP_ERR__CORRUPT, "batch length %d", (int)blen);
    *bsize = (size_t)blen + LOGREP_LOG_OVERHEAD;
    return 0;
}

int lr_qsnap_stream_new(const logrep_conf *conf, lr_qsnap_id id, uint64_t size, lr_qsnap_fn fn,
                        void *ctx, lr_qsnap_stream **out)
{
    *out = NULL;
    if (id.end_offset < 0 || id.epoch < 0 || !size || !fn)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qsnap_stream *s = lr_calloc(a, 1, sizeof *s);
    if (!s)
        return LOGREP_ERR__NOMEM;
    s->alloc = *a;
    s->id = id;
    s->size = size;
    s->fn = fn;
    s->ctx = ctx;
    s->info.id = id;
    s->info.size = size;
    lr_buf_init(&s->part, &s->alloc);
    *out = s;
    return 0;
}

/* Moves up to `want` bytes into the partial batch. */
static size_t fill(lr_qsnap_stream *s, const uint8_t *p, size_t len, size_t want)
{
    size_t k = want - s->part.len < len ? want - s->part.len : len;
    return lr_buf_append(&s->part, p, k) ? (size_t)-1 : k;
}

int lr_qsnap_stream_feed(lr_qsnap_stream *s, uint64_t pos, const void *data, size_t len)
{
    if (s->err)
        return s->err;
    if (pos != s->pos || (len && !data))
        return LOGREP_ERR__INVALID_ARG;
    if (len > s->size - s->pos)
        return LOGREP_ERR__LIMIT;
    const uint8_t *p = data;
    while (len) {
        size_t bsize = 0, k;
        if (!s->part.len && len >= LOGREP_LOG_OVERHEAD) {
            if (batch_size(s, p, &bsize))
                return s->err;
            if (len >= bsize) { /* whole here: no copy */
                s->pos += bsize;
                if (take_batch(s, p, bsize))
                    return s->err;
                p += bsize;
                len -= bsize;
                continue;
            }
        }
        /* A batch in pieces: its length field first, then the rest. */
        if (s->part.len < LOGREP_LOG_OVERHEAD) {
            if ((k = fill(s, p, len, LOGREP_LOG_OVERHEAD)) == (size_t)-1)
                return fail(s, LOGREP_ERR__NOMEM, "out of memory");
            p += k, len -= k, s->pos += k;
            if (s->part.len < LOGREP_LOG_OVERHEAD)
                break;
            if (batch_size(s, s->part.data, &s->need))
                return s->err;
        }
        if ((k = fill(s, p, len, s->need)) == (size_t)-1)
            return fail(s, LOGREP_ERR__NOMEM, "out of memory");
        p += k, len -= k, s->pos += k;
        if (s->part.len == s->need) {
            if (take_batch(s, s->part.data, s->need))
                return s->err;
            lr_buf_clear(&s->part);
            s->need = 0;
        }
    }
    return 0;
}

uint64_t lr_qsnap_stream_position(const lr_qsnap_stream *s)
{
    return s->pos;
}

const char *lr_qsnap_stream_why(const lr_qsnap_stream *s)
{
    return s->info.why;
}

int lr_qsnap_stream_finish(lr_qsnap_stream *s, lr_qsnap_info *info)
{
    int err = s->err;
    if (!err && s->pos != s->size)
        return LOGREP_ERR__INVALID_ARG;
    if (!err && s->part.len)
        err = fail(s, LOGREP_ERR__CORRUPT, "torn batch at the end");
    if (!err && s->stage != ST_DONE)
        err = fail(s, LOGREP_ERR__CORRUPT, "%s",
                   s->stage == ST_HEADER ? "no SnapshotHeader" : "no SnapshotFooter");
    if (info)
        *info = s->info;
    return err;
}

void lr_qsnap_stream_free(lr_qsnap_stream *s)
{
    if (!s)
        return;
    lr_buf_free(&s->part);
    lr_alloc a = s->alloc;
    lr_free(&a, s, sizeof *s);
}
