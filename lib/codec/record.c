/* Lazy, zero-copy record iteration over one v2 batch. Mirrors the checks of
 * Kafka's DefaultRecord.readFrom and DefaultRecordBatch's iterator. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/conf.h"
#include "base/endian.h"
#include "codec/batch.h"
#include "codec/compress.h"
#include "codec/varint.h"

struct logrep_batch_reader {
    lr_alloc alloc;
    lr_buf dbuf;          /* decompressed record area, reused */
    lr_buf zbuf;          /* a recompressed batch, reused */
    size_t max_inflate;
    lr_codec_cache codecs;
    logrep_batch_header h;
    const uint8_t *start; /* record area */
    const uint8_t *p;
    const uint8_t *end;
    int32_t index;        /* records read so far */
    int32_t prev_delta;
    int bad_delta;        /* the last failure was an offset delta */
    int open;
    char errmsg[160];
};

static int fail(logrep_batch_reader *r, int err, const char *fmt, ...) LR_PRINTF(3, 4);
static int fail(logrep_batch_reader *r, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
    va_end(ap);
    return err;
}

LOGREP_API logrep_err logrep_batch_reader_new(const logrep_conf *conf, logrep_batch_reader **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_batch_reader *r = lr_calloc(a, 1, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    r->alloc = *a;
    lr_buf_init(&r->dbuf, &r->alloc);
    lr_buf_init(&r->zbuf, &r->alloc);
    r->max_inflate = (size_t)lr_conf_int(conf, LR_CONF_DECOMPRESS_MAX_BYTES);
    *out = r;
    return LOGREP_OK;
}

LOGREP_API void logrep_batch_reader_free(logrep_batch_reader *r)
{
    if (!r)
        return;
    lr_buf_free(&r->dbuf);
    lr_buf_free(&r->zbuf);
    lr_codec_cache_free(&r->codecs);
    lr_alloc a = r->alloc;
    lr_free(&a, r, sizeof *r);
}

LOGREP_API const char *logrep_batch_reader_errmsg(const logrep_batch_reader *r)
{
    return r ? r->errmsg : "";
}

/* Points the reader at the record area of the batch at p (total bytes),
 * decompressing it into dbuf when compressed. */
static int open_records(logrep_batch_reader *r, const uint8_t *p, size_t total,
                        const logrep_batch_header *hp)
{
    logrep_batch_header h = *hp;
    logrep_err err;
    int codec = h.attributes & LOGREP_ATTR_COMPRESSION_MASK;
    if (codec == LOGREP_COMPRESSION_NONE) {
        r->start = p + LR_B_RECORDS;
        r->end = p + total;
    } else {
        lr_buf_clear(&r->dbuf);
        err = lr_decompress(codec, p + LR_B_RECORDS, total - LR_B_RECORDS, &r->dbuf,
                            r->max_inflate, &r->codecs);
        if (err == LOGREP_ERR__LIMIT)
            return fail(r, err, "%s payload inflates beyond %zu bytes",
                        logrep_compression_name(codec), r->max_inflate);
        if (err)
            return fail(r, err, "%s payload: %s", logrep_compression_name(codec),
                        err == LOGREP_ERR__NOMEM ? "out of memory" : "invalid compressed data");
        r->start = r->dbuf.data ? r->dbuf.data : p + total;
        r->end = r->start + r->dbuf.len;
    }
    r->h = h;
    r->p = r->start;
    r->index = 0;
    r->prev_delta = -1;
    r->bad_delta = 0;
    r->open = 1;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_reader_open(logrep_batch_reader *r, const void *buf,
                                               size_t len, logrep_batch_header *hdr)
{
    if (!r || (!buf && len))
        return LOGREP_ERR__INVALID_ARG;
    r->open = 0;
    r->errmsg[0] = 0;
    logrep_batch_header h;
    logrep_err err = logrep_batch_header_parse(buf, len, &h);
    if (err == LOGREP_ERR__AGAIN)
        return fail(r, err, "incomplete batch: %zu bytes available", len);
    if (err == LOGREP_ERR__UNSUPPORTED)
        return fail(r, err, "unsupported magic %d", ((const uint8_t *)buf)[LR_B_MAGIC]);
    if (err)
        return fail(r, err, "invalid batch header (length or codec)");
    size_t total = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    const uint8_t *p = buf;
    uint32_t crc = logrep_crc32c(0, p + LOGREP_BATCH_CRC_START, total - LOGREP_BATCH_CRC_START);
    if (crc != h.crc)
        return fail(r, LOGREP_ERR__CORRUPT, "CRC mismatch: stored 0x%08x, computed 0x%08x", h.crc,
                    crc);
    if (h.record_count < 0)
        return fail(r, LOGREP_ERR__CORRUPT, "negative record count %d", h.record_count);
    if (h.record_count > 0 &&
        (h.last_offset_delta < 0 || (int64_t)h.record_count > (int64_t)h.last_offset_delta + 1))
        return fail(r, LOGREP_ERR__CORRUPT, "record count %d does not fit lastOffsetDelta %d",
                    h.record_count, h.last_offset_delta);
    if ((err = open_records(r, p, total, &h)))
        return err;
    if (hdr)
        *hdr = h;
    return LOGREP_OK;
}

/* Reads a length-prefixed byte field; negative lengths are null. */
static int get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, int32_t *len)
{
    int32_t n;
    if (lr_varint_get(pp, end, &n))
        return -1;
    if (n < 0) {
        *data = NULL;
        *len = -1;
        return 0;
    }
    if ((size_t)n > (size_t)(end - *pp))
        return -1;
    *data = *pp;
    *len = n;
    *pp += n;
    return 0;
}

LOGREP_API logrep_err logrep_batch_reader_next(logrep_batch_reader *r, logrep_record *out)
{
    if (!r || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (!r->open)
        return fail(r, LOGREP_ERR__MISUSE, "no batch open");
    int32_t i = r->index;
    if (i >= r->h.record_count) {
        if (r->p != r->end)
            return fail(r, LOGREP_ERR__CORRUPT, "%td bytes remain after %d records",
                        r->end - r->p, r->h.record_count);
        return LOGREP_ERR__END;
    }
    const uint8_t *p = r->p, *end = r->end;
    int32_t size;
    if (p == end)
        return fail(r, LOGREP_ERR__CORRUPT, "record %d of %d missing", i, r->h.record_count);
    if (lr_varint_get(&p, end, &size) || size < 0 || (size_t)size > (size_t)(end - p))
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad length", i);
    const uint8_t *body_end = p + size;
    if (p == body_end)
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: empty body", i);
    p++; /* attributes: unused */
    int64_t ts_delta;
    int32_t off_delta;
    if (lr_varlong_get(&p, body_end, &ts_delta) || lr_varint_get(&p, body_end, &off_delta))
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad timestamp or offset delta", i);
    if (off_delta <= r->prev_delta || off_delta > r->h.last_offset_delta) {
        r->bad_delta = 1;
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: offset delta %d out of order", i,
                    off_delta);
    }
    const uint8_t *key, *value;
    int32_t key_len, value_len, hcount;
    if (get_bytes(&p, body_end, &key, &key_len))
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad key", i);
    if (get_bytes(&p, body_end, &value, &value_len))
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad value", i);
    if (lr_varint_get(&p, body_end, &hcount) || hcount < 0 || hcount > body_end - p)
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad header count", i);
    const uint8_t *hstart = p;
    for (int32_t k = 0; k < hcount; k++) {
        int32_t hk;
        const uint8_t *hv;
        int32_t hvl;
        if (lr_varint_get(&p, body_end, &hk) || hk < 0 || hk > body_end - p)
            return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad header %d key", i, k);
        p += hk;
        if (get_bytes(&p, body_end, &hv, &hvl))
            return fail(r, LOGREP_ERR__CORRUPT, "record %d: bad header %d value", i, k);
    }
    if (p != body_end)
        return fail(r, LOGREP_ERR__CORRUPT, "record %d: %td bytes left in body", i, body_end - p);

    out->offset_delta = off_delta;
    out->offset = (int64_t)((uint64_t)r->h.base_offset + (uint64_t)(int64_t)off_delta);
    out->timestamp_delta = ts_delta;
    if (r->h.attributes & LOGREP_ATTR_LOG_APPEND_TIME)
        out->timestamp = r->h.max_timestamp;
    else
        out->timestamp = (int64_t)((uint64_t)r->h.base_timestamp + (uint64_t)ts_delta);
    out->key = key;
    out->key_len = key_len;
    out->value = value;
    out->value_len = value_len;
    out->header_count = hcount;
    out->headers = hstart;
    out->headers_size = (size_t)(body_end - hstart);
    out->sequence = r->h.base_sequence < 0 ? -1
                                           : logrep_seq_increment(r->h.base_sequence, off_delta);
    r->p = body_end;
    r->index = i + 1;
    r->prev_delta = off_delta;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_reader_validate(logrep_batch_reader *r)
{
    if (!r)
        return LOGREP_ERR__INVALID_ARG;
    if (!r->open)
        return fail(r, LOGREP_ERR__MISUSE, "no batch open");
    logrep_record rec;
    logrep_err err;
    r->p = r->start;
    r->index = 0;
    r->prev_delta = -1;
    while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK)
        ;
    r->p = r->start;
    r->index = 0;
    r->prev_delta = -1;
    return err == LOGREP_ERR__END ? LOGREP_OK : err;
}

/* Above this a decompression buffer is released after a check, so one
 * large batch does not pin its inflated size for the reader's lifetime. */
#define LR_CHECK_KEEP_BYTES (1u << 20)

LOGREP_API logrep_err logrep_batch_reader_check(logrep_batch_reader *r, const void *batch,
                                                size_t size, int64_t *max_timestamp)
{
    return lr_batch_reader_check_keys(r, batch, size, max_timestamp, 0);
}

logrep_err lr_batch_reader_check_keys(logrep_batch_reader *r, const void *batch, size_t size,
                                      int64_t *max_timestamp, int need_keys)
{
    if (!r || !batch || size < LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__INVALID_ARG;
    r->open = 0;
    r->errmsg[0] = 0;
    logrep_batch_header h;
    lr_batch_header_decode(batch, &h);
    if ((size_t)h.batch_length + LOGREP_LOG_OVERHEAD != size)
        return LOGREP_ERR__INVALID_ARG;
    logrep_err err = open_records(r, batch, size, &h);
    int64_t max_ts = -1;
    logrep_record rec;
    int keyless = 0;
    while (!err && (err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
        if (rec.timestamp > max_ts)
            max_ts = rec.timestamp;
        keyless |= need_keys && !rec.key;
    }
    if (err == LOGREP_ERR__END && keyless) {
        fail(r, LOGREP_ERR_INVALID_RECORD, "compacted topic cannot accept a record without key");
        err = LOGREP_ERR_INVALID_RECORD;
    } else if (err == LOGREP_ERR__END) {
        err = LOGREP_OK;
    } else if (err != LOGREP_ERR__NOMEM && err != LOGREP_ERR_INVALID_RECORD) {
        err = r->bad_delta ? LOGREP_ERR_INVALID_RECORD : LOGREP_ERR_CORRUPT_MESSAGE;
    }
    r->open = 0;
    if (r->dbuf.cap > LR_CHECK_KEEP_BYTES)
        lr_buf_free(&r->dbuf);
    if (!err && max_timestamp)
        *max_timestamp = max_ts;
    return err;
}

LOGREP_API logrep_err logrep_batch_reader_recompress(logrep_batch_reader *r, const void *batch,
                                                     size_t size, int codec, int level,
                                                     const void **out, size_t *out_len)
{
    if (!r || !batch || !out || !out_len || codec < LOGREP_COMPRESSION_NONE ||
        codec > LOGREP_COMPRESSION_ZSTD ||
        (codec != LOGREP_COMPRESSION_NONE && !lr_compress_level_ok(codec, level)))
        return LOGREP_ERR__INVALID_ARG;
    r->open = 0;
    r->errmsg[0] = 0;
    size_t total;
    logrep_err err = logrep_batch_verify(batch, size, &total);
    if (err == LOGREP_ERR__AGAIN || (!err && total != size))
        return fail(r, LOGREP_ERR__INVALID_ARG, "not exactly one batch");
    if (err)
        return fail(r, err == LOGREP_ERR__UNSUPPORTED ? err : LOGREP_ERR__CORRUPT,
                    "invalid batch header or CRC");
    logrep_batch_header h;
    lr_batch_header_decode(batch, &h);
    int src = h.attributes & LOGREP_ATTR_COMPRESSION_MASK;
    if (src == codec || (h.attributes & LOGREP_ATTR_CONTROL)) {
        *out = batch;
        *out_len = size;
        return LOGREP_OK;
    }
    /* The record bytes stay as they are (their deltas are relative to the
     * header, which is kept): only the area's encoding changes. */
    const uint8_t *p = batch;
    const uint8_t *recs = p + LR_B_RECORDS;
    size_t nrecs = size - LR_B_RECORDS;
    if (src != LOGREP_COMPRESSION_NONE) {
        if ((err = open_records(r, p, size, &h)))
            return err;
        r->open = 0;
        recs = r->start;
        nrecs = r->dbuf.len;
    }
    if (r->zbuf.cap > LR_CHECK_KEEP_BYTES)
        lr_buf_free(&r->zbuf); /* the previous large result is not pinned */
    lr_buf_clear(&r->zbuf);
    if ((err = lr_buf_reserve(&r->zbuf, LR_B_RECORDS)))
        return err;
    memcpy(r->zbuf.data, p, LR_B_RECORDS);
    r->zbuf.len = LR_B_RECORDS;
    if (codec == LOGREP_COMPRESSION_NONE)
        err = lr_buf_append(&r->zbuf, recs, nrecs);
    else
        err = lr_compress(codec, level, recs, nrecs, &r->zbuf, &r->codecs);
    if (!err && r->zbuf.len - LOGREP_LOG_OVERHEAD > INT32_MAX)
        err = LOGREP_ERR__LIMIT;
    if (r->dbuf.cap > LR_CHECK_KEEP_BYTES)
        lr_buf_free(&r->dbuf);
    if (err) {
        lr_buf_clear(&r->zbuf);
        return fail(r, err, "recompressing to %s failed", logrep_compression_name(codec));
    }
    uint8_t *q = r->zbuf.data;
    lr_put_be32(q + LR_B_LENGTH, (uint32_t)(r->zbuf.len - LOGREP_LOG_OVERHEAD));
    lr_put_be16(q + LR_B_ATTRIBUTES,
                (uint16_t)((h.attributes & ~LOGREP_ATTR_COMPRESSION_MASK) | codec));
    lr_put_be32(q + LR_B_CRC, logrep_crc32c(0, q + LOGREP_BATCH_CRC_START,
                                            r->zbuf.len - LOGREP_BATCH_CRC_START));
    *out = q;
    *out_len = r->zbuf.len;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_record_header_next(const logrep_record *rec, size_t *cursor,
                                                logrep_header *out)
{
    if (!rec || !cursor || !out)
        return LOGREP_ERR__INVALID_ARG;
    const uint8_t *end = rec->headers + rec->headers_size;
    const uint8_t *p = rec->headers + *cursor;
    /* The trailing count of headers already read is not stored; the cursor
     * reaching the end of the header area marks the end. */
    if (p >= end || rec->header_count == 0)
        return LOGREP_ERR__END;
    int32_t kl;
    if (lr_varint_get(&p, end, &kl) || kl < 0 || kl > end - p)
        return LOGREP_ERR__CORRUPT;
    out->key = p;
    out->key_len = kl;
    p += kl;
    if (get_bytes(&p, end, &out->value, &out->value_len))
        return LOGREP_ERR__CORRUPT;
    *cursor = (size_t)(p - rec->headers);
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_control_parse(const logrep_record *rec, logrep_control *out)
{
    if (!rec || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (rec->key_len < 4 || !rec->key)
        return LOGREP_ERR__CORRUPT;
    int16_t kv = (int16_t)lr_get_be16(rec->key);
    int16_t type = (int16_t)lr_get_be16(rec->key + 2);
    if (kv < 0)
        return LOGREP_ERR__CORRUPT;
    logrep_control c = {kv, type, -1, -1};
    if (type == LOGREP_CONTROL_ABORT || type == LOGREP_CONTROL_COMMIT) {
        if (rec->value_len < 6 || !rec->value)
            return LOGREP_ERR__CORRUPT;
        c.value_version = (int16_t)lr_get_be16(rec->value);
        if (c.value_version < 0)
            return LOGREP_ERR__CORRUPT;
        c.coordinator_epoch = (int32_t)lr_get_be32(rec->value + 2);
    }
    *out = c;
    return LOGREP_OK;
}
