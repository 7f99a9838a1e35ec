/* Shared by the protocol fuzz targets: frame set-up and the round-trip
 * property (what decodes re-encodes, and that encoding is a fixed point). */
#ifndef LOGREP_FUZZ_PROTO_H
#define LOGREP_FUZZ_PROTO_H

#include <stdlib.h>
#include <string.h>

#include "base/endian.h"
#include <logrep/proto.h>

/* body prefixed with its 4-byte size; malloc'd. */
static uint8_t *fuzz_frame(const uint8_t *body, size_t size)
{
    uint8_t *frame = malloc(size + 4);
    if (!frame)
        abort();
    lr_put_be32(frame, (uint32_t)size);
    if (size)
        memcpy(frame + 4, body, size);
    return frame;
}

static logrep_err fuzz_decode(logrep_msg *m, int is_resp, int key, int ver, const uint8_t *f,
                              size_t n)
{
    return is_resp ? logrep_msg_decode_response(m, key, ver, f, n)
                   : logrep_msg_decode_request(m, f, n);
}

/* m decoded successfully: re-encode, decode into r, re-encode identically. */
static void fuzz_round_trip(logrep_msg *m, logrep_msg *r, int is_resp, int key, int ver)
{
    const uint8_t *out;
    size_t n;
    if (logrep_msg_encode_flat(m, &out, &n) != LOGREP_OK)
        abort();
    uint8_t *once = malloc(n);
    if (!once)
        abort();
    memcpy(once, out, n);
    if (fuzz_decode(r, is_resp, key, ver, once, n) != LOGREP_OK)
        abort();
    if (logrep_msg_encode_flat(r, &out, &n) != LOGREP_OK || memcmp(out, once, n) != 0)
        abort();
    free(once);
}

static int fuzz_expected_failure(logrep_err err)
{
    return err == LOGREP_ERR__CORRUPT || err == LOGREP_ERR__UNSUPPORTED ||
           err == LOGREP_ERR__LIMIT;
}

#endif
