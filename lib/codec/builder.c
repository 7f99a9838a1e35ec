/* Builds one v2 record batch. Records are encoded straight into the final
 * buffer behind a reserved 61-byte header, so an uncompressed batch is
 * never copied. */
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/conf.h"
#include "base/endian.h"
#include "codec/batch.h"
#include "codec/compress.h"
#include "codec/varint.h"

struct logrep_batch_builder {
    lr_alloc alloc;
    lr_buf recs;   /* [61 reserved header bytes][records] */
    lr_buf zbuf;   /* [header][compressed records] */
    int codec;
    int level;
    int16_t flags; /* transactional, log-append-time, control */
    int64_t base_offset;
    int32_t leader_epoch;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t count;
    int64_t base_ts;
    int64_t max_ts;
    int finished;
    lr_codec_cache codecs;
};

LOGREP_API logrep_err logrep_batch_builder_new(const logrep_conf *conf, logrep_batch_builder **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_batch_builder *b = lr_calloc(a, 1, sizeof *b);
    if (!b)
        return LOGREP_ERR__NOMEM;
    b->alloc = *a;
    lr_buf_init(&b->recs, &b->alloc);
    lr_buf_init(&b->zbuf, &b->alloc);
    b->leader_epoch = -1;
    b->producer_id = -1;
    b->producer_epoch = -1;
    b->base_sequence = -1;
    b->base_ts = -1;
    b->max_ts = -1;
    *out = b;
    return LOGREP_OK;
}

LOGREP_API void logrep_batch_builder_free(logrep_batch_builder *b)
{
    if (!b)
        return;
    lr_buf_free(&b->recs);
    lr_buf_free(&b->zbuf);
    lr_codec_cache_free(&b->codecs);
    lr_alloc a = b->alloc;
    lr_free(&a, b, sizeof *b);
}

LOGREP_API void logrep_batch_builder_reset(logrep_batch_builder *b)
{
    if (!b)
        return;
    lr_buf_clear(&b->recs);
    lr_buf_clear(&b->zbuf);
    b->count = 0;
    b->base_ts = -1;
    b->max_ts = -1;
    b->finished = 0;
    b->flags &= (int16_t)~LOGREP_ATTR_CONTROL;
}

LOGREP_API logrep_err logrep_batch_builder_set_compression(logrep_batch_builder *b, int codec,
                                                           int level)
{
    if (!b || codec < 0 || codec > LOGREP_COMPRESSION_ZSTD)
        return LOGREP_ERR__INVALID_ARG;
    if (codec != LOGREP_COMPRESSION_NONE && !lr_compress_level_ok(codec, level))
        return LOGREP_ERR__INVALID_ARG;
    if (b->count)
        return LOGREP_ERR__MISUSE;
    b->codec = codec;
    b->level = level;
    b->finished = 0;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_builder_set_producer(logrep_batch_builder *b,
                                                        int64_t producer_id,
                                                        int16_t producer_epoch,
                                                        int32_t base_sequence)
{
    if (!b)
        return LOGREP_ERR__INVALID_ARG;
    b->producer_id = producer_id;
    b->producer_epoch = producer_epoch;
    b->base_sequence = base_sequence;
    b->finished = 0;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_builder_set_flags(logrep_batch_builder *b, int16_t flags)
{
    if (!b || (flags & ~(LOGREP_ATTR_TRANSACTIONAL | LOGREP_ATTR_LOG_APPEND_TIME)))
        return LOGREP_ERR__INVALID_ARG;
    b->flags = (int16_t)((b->flags & LOGREP_ATTR_CONTROL) | flags);
    b->finished = 0;
    return LOGREP_OK;
}

LOGREP_API void logrep_batch_builder_set_base(logrep_batch_builder *b, int64_t base_offset,
                                              int32_t partition_leader_epoch)
{
    if (!b)
        return;
    b->base_offset = base_offset;
    b->leader_epoch = partition_leader_epoch;
    b->finished = 0;
}

static inline uint8_t *put_bytes(uint8_t *p, const void *data, int32_t len)
{
    p += lr_varint_put(p, len);
    if (len > 0) {
        memcpy(p, data, (size_t)len);
        p += len;
    }
    return p;
}

static int add_record(logrep_batch_builder *b, int64_t ts, const void *key, int32_t key_len,
                      const void *value, int32_t value_len, const logrep_header *hs, size_t nh)
{
    if (b->finished)
        return LOGREP_ERR__MISUSE;
    if (b->count == INT32_MAX)
        return LOGREP_ERR__LIMIT;
    if (key_len < -1 || value_len < -1 || (key_len > 0 && !key) || (value_len > 0 && !value) ||
        (nh && !hs) || nh > INT32_MAX)
        return LOGREP_ERR__INVALID_ARG;
    if (b->count == 0)
        b->base_ts = ts;
    int64_t ts_delta = (int64_t)((uint64_t)ts - (uint64_t)b->base_ts);
    int32_t off_delta = b->count;

    /* Body size: attributes, deltas, key, value, headers. */
    uint64_t body = 1 + lr_varlong_size(ts_delta) + lr_varint_size(off_delta);
    body += lr_varint_size(key_len) + (key_len > 0 ? (uint64_t)key_len : 0);
    body += lr_varint_size(value_len) + (value_len > 0 ? (uint64_t)value_len : 0);
    body += lr_varint_size((int32_t)nh);
    for (size_t i = 0; i < nh; i++) {
        if (hs[i].key_len < 0 || (hs[i].key_len > 0 && !hs[i].key) || hs[i].value_len < -1 ||
            (hs[i].value_len > 0 && !hs[i].value))
            return LOGREP_ERR__INVALID_ARG;
        body += lr_varint_size(hs[i].key_len) + (uint64_t)hs[i].key_len;
        body += lr_varint_size(hs[i].value_len) + (hs[i].value_len > 0 ? (uint64_t)hs[i].value_len : 0);
    }
    if (body > INT32_MAX || b->recs.len + body + LR_VARINT_MAX > INT32_MAX)
        return LOGREP_ERR__LIMIT;
    if (b->recs.len == 0) {
        int err = lr_buf_reserve(&b->recs, LR_B_RECORDS + body + LR_VARINT_MAX);
        if (err)
            return err;
        b->recs.len = LR_B_RECORDS;
    }
    int err = lr_buf_reserve(&b->recs, body + LR_VARINT_MAX);
    if (err)
        return err;
    uint8_t *p = b->recs.data + b->recs.len;
    p += lr_varint_put(p, (int32_t)body);
    *p++ = 0;
    p += lr_varlong_put(p, ts_delta);
    p += lr_varint_put(p, off_delta);
    p = put_bytes(p, key, key_len);
    p = put_bytes(p, value, value_len);
    p += lr_varint_put(p, (int32_t)nh);
    for (size_t i = 0; i < nh; i++) {
        p = put_bytes(p, hs[i].key, hs[i].key_len);
        p = put_bytes(p, hs[i].value, hs[i].value_len);
    }
    b->recs.len = (size_t)(p - b->recs.data);
    if (b->count == 0 || ts > b->max_ts)
        b->max_ts = ts;
    b->count++;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_builder_add(logrep_batch_builder *b, int64_t timestamp,
                                               const void *key, int32_t key_len,
                                               const void *value, int32_t value_len,
                                               const logrep_header *headers, size_t n_headers)
{
    if (!b)
        return LOGREP_ERR__INVALID_ARG;
    if (b->flags & LOGREP_ATTR_CONTROL)
        return LOGREP_ERR__MISUSE;
    return add_record(b, timestamp, key, key_len, value, value_len, headers, n_headers);
}

LOGREP_API logrep_err logrep_batch_builder_add_control(logrep_batch_builder *b, int64_t timestamp,
                                                       int16_t type, int32_t coordinator_epoch)
{
    if (!b)
        return LOGREP_ERR__INVALID_ARG;
    if (b->count || b->finished)
        return LOGREP_ERR__MISUSE;
    if (type != LOGREP_CONTROL_ABORT && type != LOGREP_CONTROL_COMMIT)
        return LOGREP_ERR__INVALID_ARG;
    uint8_t key[4], value[6];
    lr_put_be16(key, 0);
    lr_put_be16(key + 2, (uint16_t)type);
    lr_put_be16(value, 0);
    lr_put_be32(value + 2, (uint32_t)coordinator_epoch);
    int err = add_record(b, timestamp, key, 4, value, 6, NULL, 0);
    if (err)
        return err;
    b->flags |= LOGREP_ATTR_CONTROL | LOGREP_ATTR_TRANSACTIONAL;
    return LOGREP_OK;
}

LOGREP_API int32_t logrep_batch_builder_count(const logrep_batch_builder *b)
{
    return b ? b->count : 0;
}

LOGREP_API size_t logrep_batch_builder_size_estimate(const logrep_batch_builder *b)
{
    if (!b)
        return 0;
    return b->recs.len ? b->recs.len : LR_B_RECORDS;
}

LOGREP_API logrep_err logrep_batch_builder_finish(logrep_batch_builder *b, const uint8_t **out,
                                                  size_t *len)
{
    if (!b || !out || !len)
        return LOGREP_ERR__INVALID_ARG;
    if (b->count == 0)
        return LOGREP_ERR__MISUSE;
    lr_buf *dst = &b->recs;
    if (b->codec != LOGREP_COMPRESSION_NONE) {
        lr_buf_clear(&b->zbuf);
        int err = lr_buf_reserve(&b->zbuf, LR_B_RECORDS);
        if (err)
            return err;
        b->zbuf.len = LR_B_RECORDS;
        err = lr_compress(b->codec, b->level, b->recs.data + LR_B_RECORDS,
                          b->recs.len - LR_B_RECORDS, &b->zbuf, &b->codecs);
        if (err) {
            lr_buf_clear(&b->zbuf);
            return err;
        }
        if (b->zbuf.len > INT32_MAX) {
            lr_buf_clear(&b->zbuf);
            return LOGREP_ERR__LIMIT;
        }
        dst = &b->zbuf;
    }
    logrep_batch_header h;
    h.base_offset = b->base_offset;
    h.batch_length = (int32_t)(dst->len - LOGREP_LOG_OVERHEAD);
    h.partition_leader_epoch = b->leader_epoch;
    h.magic = 2;
    h.crc = 0;
    h.attributes = (int16_t)(b->flags | b->codec);
    h.last_offset_delta = b->count - 1;
    h.base_timestamp = b->base_ts;
    h.max_timestamp = b->max_ts;
    h.producer_id = b->producer_id;
    h.producer_epoch = b->producer_epoch;
    h.base_sequence = b->base_sequence;
    h.record_count = b->count;
    lr_batch_header_encode(dst->data, &h);
    uint32_t crc = logrep_crc32c(0, dst->data + LOGREP_BATCH_CRC_START,
                                 dst->len - LOGREP_BATCH_CRC_START);
    lr_put_be32(dst->data + LR_B_CRC, crc);
    b->finished = 1;
    *out = dst->data;
    *len = dst->len;
    return LOGREP_OK;
}

/* ---- the log cleaner's rewrite ---- */

void lr_batch_set_crc(uint8_t *p, size_t size)
{
    lr_put_be32(p + LR_B_CRC,
                logrep_crc32c(0, p + LOGREP_BATCH_CRC_START, size - LOGREP_BATCH_CRC_START));
}

/* One record as read from a batch, at new deltas; its headers are copied
 * as encoded. */
static int put_read_record(lr_buf *b, int64_t ts_delta, const logrep_record *r)
{
    uint64_t body = 1 + lr_varlong_size(ts_delta) + lr_varint_size(r->offset_delta);
    body += lr_varint_size(r->key_len) + (r->key_len > 0 ? (uint64_t)r->key_len : 0);
    body += lr_varint_size(r->value_len) + (r->value_len > 0 ? (uint64_t)r->value_len : 0);
    body += lr_varint_size(r->header_count) + r->headers_size;
    if (body > INT32_MAX)
        return LOGREP_ERR__LIMIT;
    int err = lr_buf_reserve(b, body + LR_VARINT_MAX);
    if (err)
        return err;
    uint8_t *p = b->data + b->len;
    p += lr_varint_put(p, (int32_t)body);
    *p++ = 0;
    p += lr_varlong_put(p, ts_delta);
    p += lr_varint_put(p, r->offset_delta);
    p = put_bytes(p, r->key, r->key_len);
    p = put_bytes(p, r->value, r->value_len);
    p += lr_varint_put(p, r->header_count);
    if (r->headers_size)
        memcpy(p, r->headers, r->headers_size);
    p += r->headers_size;
    b->len = (size_t)(p - b->data);
    return LOGREP_OK;
}

/* The timestamp a record was written with (a LogAppendTime batch's
 * readers see its maxTimestamp instead, which the rewrite keeps). */
static int64_t written_ts(const logrep_batch_header *h, const logrep_record *r)
{
    return (int64_t)((uint64_t)h->base_timestamp + (uint64_t)r->timestamp_delta);
}

int lr_batch_rebuild(const logrep_batch_header *orig, const logrep_record *recs, size_t n,
                     int64_t horizon, lr_buf *out, lr_buf *scratch, lr_codec_cache *cache)
{
    if (n > INT32_MAX)
        return LOGREP_ERR__LIMIT;
    logrep_batch_header h = *orig;
    int codec = n ? orig->attributes & LOGREP_ATTR_COMPRESSION_MASK : LOGREP_COMPRESSION_NONE;
    int lat = orig->attributes & LOGREP_ATTR_LOG_APPEND_TIME;
    h.attributes = (int16_t)((orig->attributes & (LOGREP_ATTR_LOG_APPEND_TIME |
                                                  LOGREP_ATTR_TRANSACTIONAL | LOGREP_ATTR_CONTROL)) |
                             codec | (n && horizon >= 0 ? LOGREP_ATTR_DELETE_HORIZON : 0));
    h.record_count = (int32_t)n;
    h.magic = 2;
    h.base_timestamp = h.max_timestamp = orig->max_timestamp;
    if (n) {
        h.base_timestamp = horizon >= 0 ? horizon : written_ts(orig, &recs[0]);
        if (!lat) {
            h.max_timestamp = written_ts(orig, &recs[0]);
            for (size_t i = 1; i < n; i++)
                if (written_ts(orig, &recs[i]) > h.max_timestamp)
                    h.max_timestamp = written_ts(orig, &recs[i]);
        }
    }
    size_t start = out->len;
    int err = lr_buf_reserve(out, LR_B_RECORDS);
    if (err)
        return err;
    out->len += LR_B_RECORDS;
    lr_buf *dst = out;
    if (codec != LOGREP_COMPRESSION_NONE) {
        lr_buf_clear(scratch);
        dst = scratch;
    }
    for (size_t i = 0; i < n && !err; i++) {
        int64_t delta = (int64_t)((uint64_t)written_ts(orig, &recs[i]) - (uint64_t)h.base_timestamp);
        err = put_read_record(dst, delta, &recs[i]);
    }
    if (!err && codec != LOGREP_COMPRESSION_NONE)
        err = lr_compress(codec, 0, scratch->data, scratch->len, out, cache);
    if (!err && out->len - start - LOGREP_LOG_OVERHEAD > INT32_MAX)
        err = LOGREP_ERR__LIMIT;
    if (err) {
        out->len = start;
        return err;
    }
    h.batch_length = (int32_t)(out->len - start - LOGREP_LOG_OVERHEAD);
    lr_batch_header_encode(out->data + start, &h);
    lr_batch_set_crc(out->data + start, out->len - start);
    return LOGREP_OK;
}
