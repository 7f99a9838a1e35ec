/* Fuzz every response decoder. Input: API key (2 bytes, big-endian),
 * version (1 byte), then a response frame without its size prefix. Whatever
 * decodes must re-encode, and the re-encoding must round-trip exactly. */
#include <stdlib.h>
#include <string.h>

#include "base/endian.h"
#include "logrep/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > (1u << 20))
        return 0;
    int key = lr_get_be16(data), ver = data[2];
    size -= 3;
    uint8_t *frame = malloc(size + 4);
    if (!frame)
        return 0;
    lr_put_be32(frame, (uint32_t)size);
    if (size)
        memcpy(frame + 4, data + 3, size);
    logrep_msg *m = NULL, *r = NULL;
    if (logrep_msg_new(NULL, &m) || logrep_msg_new(NULL, &r))
        abort();
    logrep_err err = logrep_msg_decode_response(m, key, ver, frame, size + 4);
    if (err == LOGREP_OK) {
        const uint8_t *out;
        size_t n;
        if (logrep_msg_encode_flat(m, &out, &n) != LOGREP_OK)
            abort();
        uint8_t *once = malloc(n);
        memcpy(once, out, n);
        if (logrep_msg_decode_response(r, key, ver, once, n) != LOGREP_OK)
            abort();
        if (logrep_msg_encode_flat(r, &out, &n) != LOGREP_OK || memcmp(out, once, n) != 0)
            abort();
        free(once);
    } else if (err != LOGREP_ERR__CORRUPT && err != LOGREP_ERR__UNSUPPORTED &&
               err != LOGREP_ERR__LIMIT) {
        abort();
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    free(frame);
    return 0;
}
