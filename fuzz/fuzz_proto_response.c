/* Fuzz every response decoder. Input: API key (2 bytes, big-endian),
 * version (1 byte), then a response frame without its size prefix. Whatever
 * decodes must re-encode, and the re-encoding must round-trip exactly. */
#include "fuzz_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > (1u << 20))
        return 0;
    int key = lr_get_be16(data), ver = data[2];
    uint8_t *frame = fuzz_frame(data + 3, size - 3);
    logrep_msg *m = NULL, *r = NULL;
    if (logrep_msg_new(NULL, &m) || logrep_msg_new(NULL, &r))
        abort();
    logrep_err err = logrep_msg_decode_response(m, key, ver, frame, size + 1);
    if (err == LOGREP_OK)
        fuzz_round_trip(m, r, 1, key, ver);
    else if (!fuzz_expected_failure(err))
        abort();
    logrep_msg_free(m);
    logrep_msg_free(r);
    free(frame);
    return 0;
}
