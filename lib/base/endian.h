/* Big-endian loads and stores on unaligned bytes (Kafka is big-endian). */
#ifndef LR_BASE_ENDIAN_H
#define LR_BASE_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline uint16_t lr_get_be16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t lr_get_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

static inline uint64_t lr_get_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

static inline void lr_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void lr_put_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static inline void lr_put_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}

static inline uint32_t lr_get_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v; /* x86-64 and aarch64 Linux are little-endian */
}

static inline void lr_put_le32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "liblogrep currently assumes a little-endian host"
#endif

#endif
