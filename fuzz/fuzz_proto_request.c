/* Fuzz every request decoder. Input: a request frame without its 4-byte
 * size prefix (header then body), so the API key and version come from the
 * input. Whatever decodes must re-encode, and the re-encoding must decode
 * and re-encode to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "base/endian.h"
#include "logrep/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    uint8_t *frame = malloc(size + 4);
    if (!frame)
        return 0;
    lr_put_be32(frame, (uint32_t)size);
    if (size)
        memcpy(frame + 4, data, size);
    logrep_msg *m = NULL, *r = NULL;
    if (logrep_msg_new(NULL, &m) || logrep_msg_new(NULL, &r))
        abort();
    logrep_err err = logrep_msg_decode_request(m, frame, size + 4);
    if (err == LOGREP_OK) {
        const uint8_t *out;
        size_t n;
        if (logrep_msg_encode_flat(m, &out, &n) != LOGREP_OK)
            abort();
        uint8_t *once = malloc(n);
        memcpy(once, out, n);
        if (logrep_msg_decode_request(r, once, n) != LOGREP_OK)
            abort();
        if (logrep_msg_encode_flat(r, &out, &n) != LOGREP_OK || memcmp(out, once, n) != 0)
            abort();
        free(once);
    } else if (err == LOGREP_ERR_UNSUPPORTED_VERSION) {
        /* ApiVersions must still be answerable. */
        if (logrep_msg_api_key(m) == LOGREP_API_API_VERSIONS &&
            logrep_msg_init_response_to(r, m) != LOGREP_OK)
            abort();
    } else if (err != LOGREP_ERR__CORRUPT && err != LOGREP_ERR__UNSUPPORTED &&
               err != LOGREP_ERR__LIMIT) {
        abort();
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    free(frame);
    return 0;
}
