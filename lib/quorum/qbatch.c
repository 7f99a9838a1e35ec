/* Quorum entries <-> record batches v2 (qbatch.h). */
#include "quorum/qbatch.h"

#include <string.h>

#include "base/endian.h"
#include "codec/batch.h"
#include "codec/varint.h"

#define CTL_KEY_LEN 4

/* Record body (after its length): attributes, timestamp delta 0, offset
 * delta, key, value, header count 0. */
static size_t body_size(const lr_qentry *e, int32_t delta)
{
    size_t key = e->control ? 1 + CTL_KEY_LEN : 1;
    return 1 + 1 + lr_varint_size(delta) + key + lr_varint_size((int32_t)e->len) + e->len + 1;
}

static size_t record_size(const lr_qentry *e, int32_t delta)
{
    size_t b = body_size(e, delta);
    return lr_varint_size((int32_t)b) + b;
}

static uint8_t *put_record(uint8_t *p, const lr_qentry *e, int32_t delta)
{
    p += lr_varint_put(p, (int32_t)body_size(e, delta));
    *p++ = 0;
    p += lr_varlong_put(p, 0);
    p += lr_varint_put(p, delta);
    if (e->control) {
        p += lr_varint_put(p, CTL_KEY_LEN);
        lr_put_be16(p, 0);
        lr_put_be16(p + 2, (uint16_t)e->control);
        p += CTL_KEY_LEN;
    } else {
        p += lr_varint_put(p, -1);
    }
    p += lr_varint_put(p, (int32_t)e->len);
    if (e->len)
        memcpy(p, e->data, e->len);
    p += e->len;
    *p++ = 0;
    return p;
}

/* One batch of e[0..n) (one epoch, one kind) of `size` bytes at base. */
static int put_batch(int64_t base, const lr_qentry *e, size_t n, size_t size, int64_t now_ms,
                     lr_buf *out)
{
    int err = lr_buf_reserve(out, size);
    if (err)
        return err;
    uint8_t *p = out->data + out->len;
    logrep_batch_header h = {
        .base_offset = base,
        .batch_length = (int32_t)(size - LOGREP_LOG_OVERHEAD),
        .partition_leader_epoch = e[0].epoch,
        .magic = 2,
        .attributes = e[0].control ? LOGREP_ATTR_CONTROL : 0,
        .last_offset_delta = (int32_t)(n - 1),
        .base_timestamp = now_ms,
        .max_timestamp = now_ms,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .record_count = (int32_t)n,
    };
    lr_batch_header_encode(p, &h);
    uint8_t *q = p + LOGREP_BATCH_HEADER_SIZE;
    for (size_t i = 0; i < n; i++)
        q = put_record(q, &e[i], (int32_t)i);
    lr_batch_set_crc(p, size);
    out->len += size;
    return 0;
}

int lr_qbatch_encode(int64_t base, const lr_qentry *e, size_t n, int64_t now_ms, lr_buf *out)
{
    if (!out || (n && !e) || base < 0 || (uint64_t)n > (uint64_t)(INT64_MAX - base))
        return LOGREP_ERR__INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        if (e[i].epoch < 0 || e[i].control < 0 || (e[i].len && !e[i].data))
            return LOGREP_ERR__INVALID_ARG;
        if (e[i].len > LR_QBATCH_MAX_BYTES)
            return LOGREP_ERR__LIMIT; /* also keeps the sizes below from overflowing */
    }
    size_t len0 = out->len;
    for (size_t i = 0; i < n;) {
        size_t size = LOGREP_BATCH_HEADER_SIZE + record_size(&e[i], 0), j = i + 1;
        if (size > LR_QBATCH_MAX_BYTES) {
            out->len = len0;
            return LOGREP_ERR__LIMIT;
        }
        while (!e[i].control && j < n && !e[j].control && e[j].epoch == e[i].epoch) {
            size_t r = record_size(&e[j], (int32_t)(j - i));
            if (size + r > LR_QBATCH_MAX_BYTES)
                break;
            size += r;
            j++;
        }
        int err = put_batch(base + (int64_t)i, &e[i], j - i, size, now_ms, out);
        if (err) {
            out->len = len0;
            return err;
        }
        i = j;
    }
    return 0;
}

/* Reads a varint length in [lo, room]. */
static int get_len(const uint8_t **p, const uint8_t *end, int32_t lo, int32_t *out)
{
    return lr_varint_get(p, end, out) || *out < lo || *out > end - *p ? -1 : 0;
}

/* The records of one batch whose header was checked: all of them checked
 * when fn is NULL, else each handed to fn (they were checked before). */
static int walk(const uint8_t *b, size_t size, const logrep_batch_header *h, lr_qbatch_fn fn,
                void *ctx)
{
    const uint8_t *p = b + LOGREP_BATCH_HEADER_SIZE, *end = b + size;
    int control = (h->attributes & LOGREP_ATTR_CONTROL) != 0;
    for (int32_t i = 0; i < h->record_count; i++) {
        int32_t rlen, delta, klen, vlen, nh;
        int64_t ts;
        if (get_len(&p, end, 1, &rlen))
            return LOGREP_ERR__CORRUPT;
        const uint8_t *rend = p + rlen;
        p++; /* attributes: none defined */
        if (lr_varlong_get(&p, rend, &ts) || lr_varint_get(&p, rend, &delta) || delta != i ||
            get_len(&p, rend, -1, &klen))
            return LOGREP_ERR__CORRUPT;
        const uint8_t *key = p;
        p += klen > 0 ? klen : 0;
        if (get_len(&p, rend, 0, &vlen))
            return LOGREP_ERR__CORRUPT;
        lr_qentry e = {h->partition_leader_epoch, 0, p, (size_t)vlen};
        p += vlen;
        if (lr_varint_get(&p, rend, &nh) || nh != 0 || p != rend)
            return LOGREP_ERR__CORRUPT;
        if (control) {
            if (klen != CTL_KEY_LEN || (int16_t)lr_get_be16(key) < 0 ||
                (int16_t)lr_get_be16(key + 2) <= 0)
                return LOGREP_ERR__CORRUPT;
            e.control = (int16_t)lr_get_be16(key + 2);
        }
        int rc = fn ? fn(ctx, h->base_offset + i, &e) : 0;
        if (rc)
            return rc;
    }
    return p == end ? 0 : LOGREP_ERR__CORRUPT;
}

/* The header and CRC of the whole batch at b (size bytes). */
static int check_batch(const uint8_t *b, size_t size, const logrep_batch_header *h)
{
    if (logrep_crc32c(0, b + LOGREP_BATCH_CRC_START, size - LOGREP_BATCH_CRC_START) != h->crc)
        return LOGREP_ERR__CORRUPT;
    if (h->record_count <= 0 || h->last_offset_delta != h->record_count - 1 ||
        h->partition_leader_epoch < 0 || h->base_offset < 0 ||
        h->base_offset > INT64_MAX - h->last_offset_delta)
        return LOGREP_ERR__CORRUPT;
    if (h->attributes & LOGREP_ATTR_COMPRESSION_MASK)
        return LOGREP_ERR__UNSUPPORTED;
    return 0;
}

int lr_qbatch_decode(const uint8_t *p, size_t len, lr_qbatch_fn fn, void *ctx, size_t *consumed)
{
    size_t pos = 0;
    int err = 0;
    if (!p && len)
        err = LOGREP_ERR__INVALID_ARG;
    while (!err && pos < len) {
        const uint8_t *b = p + pos;
        size_t rem = len - pos;
        /* A length out of bounds is corrupt even when the batch is cut:
         * it must not read as "wait for more". */
        if (rem >= LOGREP_LOG_OVERHEAD) {
            int32_t blen = (int32_t)lr_get_be32(b + LR_B_LENGTH);
            if (blen < LOGREP_BATCH_HEADER_SIZE - LOGREP_LOG_OVERHEAD ||
                blen > (int32_t)(LR_QBATCH_MAX_BYTES - LOGREP_LOG_OVERHEAD)) {
                err = LOGREP_ERR__CORRUPT;
                break;
            }
        }
        logrep_batch_header h;
        err = logrep_batch_header_parse(b, rem, &h);
        if (err == LOGREP_ERR__AGAIN) {
            err = 0;
            break;
        }
        if (err) {
            err = LOGREP_ERR__CORRUPT; /* a wrong magic too: this log has only v2 */
            break;
        }
        size_t size = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        if ((err = check_batch(b, size, &h)) || (err = walk(b, size, &h, NULL, NULL)) ||
            (fn && (err = walk(b, size, &h, fn, ctx))))
            break;
        pos += size;
    }
    if (consumed)
        *consumed = pos;
    return err;
}
