/* Record batch v2: header layout and checks shared by the reader, the
 * builder and the log. */
#ifndef LR_CODEC_BATCH_H
#define LR_CODEC_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "logrep.h"

/* Field offsets in the 61-byte header. */
enum {
    LR_B_BASE_OFFSET = 0,
    LR_B_LENGTH = 8,
    LR_B_EPOCH = 12,
    LR_B_MAGIC = 16,
    LR_B_CRC = 17,
    LR_B_ATTRIBUTES = 21,
    LR_B_LAST_OFFSET_DELTA = 23,
    LR_B_BASE_TIMESTAMP = 27,
    LR_B_MAX_TIMESTAMP = 35,
    LR_B_PRODUCER_ID = 43,
    LR_B_PRODUCER_EPOCH = 51,
    LR_B_BASE_SEQUENCE = 53,
    LR_B_RECORD_COUNT = 57,
    LR_B_RECORDS = 61
};

/* Decodes the 61 header bytes without any check. */
void lr_batch_header_decode(const uint8_t *p, logrep_batch_header *h);
/* Encodes h into 61 bytes (crc as given). */
void lr_batch_header_encode(uint8_t *p, const logrep_batch_header *h);

#endif
