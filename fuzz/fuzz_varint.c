/* Fuzz target: varint decoders. Whatever decodes must re-encode to a
 * prefix-equal minimal form that decodes to the same value. */
#include <stdint.h>
#include <stdlib.h>

#include "codec/varint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        const uint8_t *q = p;
        int32_t v32;
        int64_t v64;
        uint8_t buf[LR_VARLONG_MAX];
        if (lr_varint_get(&q, end, &v32) == 0) {
            size_t n = lr_varint_put(buf, v32);
            const uint8_t *b = buf;
            int32_t back;
            if (lr_varint_get(&b, buf + n, &back) != 0 || back != v32 || n > (size_t)(q - p))
                abort();
        }
        q = p;
        if (lr_varlong_get(&q, end, &v64) == 0) {
            size_t n = lr_varlong_put(buf, v64);
            const uint8_t *b = buf;
            int64_t back;
            if (lr_varlong_get(&b, buf + n, &back) != 0 || back != v64 || n > (size_t)(q - p))
                abort();
        }
        p++;
    }
    return 0;
}
