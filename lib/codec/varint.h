/* Kafka varints: LEB128 groups, zig-zag for signed values.
 *
 * Decoding follows Java's ByteUtils: at most 5 bytes for 32-bit and 10 for
 * 64-bit values (a continuation bit on the last allowed byte is an error),
 * excess high bits of the last byte are ignored, non-minimal encodings are
 * read. Encoders always write the minimal form. */
#ifndef LR_CODEC_VARINT_H
#define LR_CODEC_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <logrep.h>

enum { LR_VARINT_MAX = 5, LR_VARLONG_MAX = 10 };

static inline uint32_t lr_zigzag32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
}
static inline int32_t lr_unzigzag32(uint32_t u)
{
    return (int32_t)((u >> 1) ^ (0u - (u & 1)));
}
static inline uint64_t lr_zigzag64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t lr_unzigzag64(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0ull - (u & 1)));
}

static inline size_t lr_uvarint_size(uint32_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static inline size_t lr_uvarlong_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static inline size_t lr_varint_size(int32_t v) { return lr_uvarint_size(lr_zigzag32(v)); }
static inline size_t lr_varlong_size(int64_t v) { return lr_uvarlong_size(lr_zigzag64(v)); }

/* Writers: p must have room for LR_VARINT_MAX / LR_VARLONG_MAX bytes.
 * Return the bytes written. */
static inline size_t lr_uvarint_put(uint8_t *p, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
static inline size_t lr_uvarlong_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
static inline size_t lr_varint_put(uint8_t *p, int32_t v) { return lr_uvarint_put(p, lr_zigzag32(v)); }
static inline size_t lr_varlong_put(uint8_t *p, int64_t v) { return lr_uvarlong_put(p, lr_zigzag64(v)); }

/* Readers: decode from [*pp, end), advance *pp. Return 0, or
 * LOGREP_ERR__CORRUPT for a truncated or overlong encoding (then *pp is
 * unchanged). */
static inline int lr_uvarint_get(const uint8_t **pp, const uint8_t *end, uint32_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* fast path: one byte */
        *out = *p;
        *pp = p + 1;
        return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < LR_VARINT_MAX; i++) {
        if (p >= end)
            return LOGREP_ERR__CORRUPT;
        uint8_t b = *p++;
        v |= (uint32_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return 0;
        }
    }
    return LOGREP_ERR__CORRUPT;
}
static inline int lr_uvarlong_get(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int i = 0; i < LR_VARLONG_MAX; i++) {
        if (p >= end)
            return LOGREP_ERR__CORRUPT;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return 0;
        }
    }
    return LOGREP_ERR__CORRUPT;
}
static inline int lr_varint_get(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    uint32_t u;
    int err = lr_uvarint_get(pp, end, &u);
    if (!err)
        *out = lr_unzigzag32(u);
    return err;
}
static inline int lr_varlong_get(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    uint64_t u;
    int err = lr_uvarlong_get(pp, end, &u);
    if (!err)
        *out = lr_unzigzag64(u);
    return err;
}

#endif
