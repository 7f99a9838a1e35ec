#include "base/uuid.h"

#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void lr_uuid_to_str(const uint8_t id[16], char out[23])
{
    int o = 0;
    for (int i = 0; i < 16; i += 3) {
        uint32_t v = (uint32_t)id[i] << 16;
        if (i + 1 < 16)
            v |= (uint32_t)id[i + 1] << 8;
        if (i + 2 < 16)
            v |= id[i + 2];
        int chars = i + 2 < 16 ? 4 : 2; /* 16 bytes = 5 full groups + 1 byte */
        for (int k = 0; k < chars; k++)
            out[o++] = b64[(v >> (18 - 6 * k)) & 63];
    }
    out[o] = 0;
}

static int b64_val(char ch)
{
    const char *p = ch ? strchr(b64, ch) : NULL;
    return p ? (int)(p - b64) : -1;
}

int lr_uuid_from_str(const char *s, size_t len, uint8_t id[16])
{
    if (len != 22)
        return -1;
    uint8_t out[18] = {0};
    size_t o = 0;
    for (int i = 0; i < 22; i += 4) {
        uint32_t v = 0;
        int k = 22 - i < 4 ? 22 - i : 4;
        for (int j = 0; j < 4; j++) {
            int d = j < k ? b64_val(s[i + j]) : 0;
            if (d < 0)
                return -1;
            v = v << 6 | (uint32_t)d;
        }
        out[o++] = (uint8_t)(v >> 16);
        out[o++] = (uint8_t)(v >> 8);
        out[o++] = (uint8_t)v;
    }
    /* 22 characters carry 132 bits: the last 4 must be zero. */
    if (out[16])
        return -1;
    memcpy(id, out, 16);
    return 0;
}
