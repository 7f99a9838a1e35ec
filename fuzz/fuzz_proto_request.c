/* Fuzz every request decoder. Input: a request frame without its 4-byte
 * size prefix (header then body), so the API key and version come from the
 * input. Whatever decodes must re-encode, and the re-encoding must decode
 * and re-encode to the same bytes. */
#include "fuzz_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    uint8_t *frame = fuzz_frame(data, size);
    logrep_msg *m = NULL, *r = NULL;
    if (logrep_msg_new(NULL, &m) || logrep_msg_new(NULL, &r))
        abort();
    logrep_err err = logrep_msg_decode_request(m, frame, size + 4);
    if (err == LOGREP_OK) {
        fuzz_round_trip(m, r, 0, logrep_msg_api_key(m), logrep_msg_version(m));
    } else if (err == LOGREP_ERR_UNSUPPORTED_VERSION) {
        /* ApiVersions must still be answerable. */
        if (logrep_msg_api_key(m) == LOGREP_API_API_VERSIONS &&
            logrep_msg_init_response_to(r, m) != LOGREP_OK)
            abort();
    } else if (!fuzz_expected_failure(err)) {
        abort();
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    free(frame);
    return 0;
}
