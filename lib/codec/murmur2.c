/* Kafka's murmur2 (the 32-bit "neutral" MurmurHash2 with seed 0x9747b28c),
 * partition choice and producer sequence arithmetic. */
#include <logrep.h>

#include <string.h>

LOGREP_API int32_t logrep_murmur2(const void *key, size_t len)
{
    const uint32_t seed = 0x9747b28cu, m = 0x5bd1e995u;
    const int r = 24;
    const uint8_t *p = key;
    if (!p)
        len = 0;
    uint32_t h = seed ^ (uint32_t)len;
    size_t n4 = len / 4;
    for (size_t i = 0; i < n4; i++, p += 4) {
        uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    switch (len & 3) {
    case 3:
        h ^= (uint32_t)p[2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)p[1] << 8;
        /* fall through */
    case 1:
        h ^= p[0];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    int32_t out;
    memcpy(&out, &h, sizeof out);
    return out;
}

LOGREP_API int32_t logrep_murmur2_partition(const void *key, size_t len, int32_t num_partitions)
{
    if (num_partitions < 1)
        return -1;
    uint32_t h = (uint32_t)logrep_murmur2(key, len) & 0x7fffffffu;
    return (int32_t)(h % (uint32_t)num_partitions);
}

LOGREP_API int32_t logrep_seq_increment(int32_t s, int32_t d)
{
    if (s > INT32_MAX - d)
        return d - (INT32_MAX - s) - 1;
    return s + d;
}

LOGREP_API int32_t logrep_seq_decrement(int32_t s, int32_t d)
{
    if (s < d)
        return INT32_MAX - (d - s) + 1;
    return s - d;
}
