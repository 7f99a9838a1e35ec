/* Record batch v2: header layout and checks shared by the reader, the
 * builder and the log. */
#ifndef LR_CODEC_BATCH_H
#define LR_CODEC_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <logrep.h>

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

/* Sets the CRC of the whole batch at p (size bytes). */
void lr_batch_set_crc(uint8_t *p, size_t size);

struct lr_buf;
struct lr_codec_cache;

/* The log cleaner's rewrite of one batch (docs/storage.md, Compaction):
 * appends to `out` a batch with orig's header fields (base offset,
 * lastOffsetDelta, epoch, producer fields, codec, timestamp type) holding
 * only recs[0..n), records read from that batch, in order, each keeping
 * its offset delta, timestamp, key, value and headers. With horizon >= 0
 * the delete-horizon bit is set and baseTimestamp is the horizon, record
 * timestamps staying as they were (deltas relative to it); otherwise the
 * base is the first record's timestamp. n == 0 writes Kafka's empty
 * batch: the header only, no codec, recordCount 0, both timestamps the
 * original maxTimestamp. `scratch` holds the uncompressed records of a
 * compressed batch. Returns 0, LOGREP_ERR__LIMIT, __COMPRESSION, __NOMEM. */
int lr_batch_rebuild(const logrep_batch_header *orig, const logrep_record *recs, size_t n,
                     int64_t horizon, struct lr_buf *out, struct lr_buf *scratch,
                     struct lr_codec_cache *cache);

/* logrep_batch_reader_check(), also refusing a record without a key with
 * LOGREP_ERR_INVALID_RECORD when need_keys (a compacted topic). */
logrep_err lr_batch_reader_check_keys(logrep_batch_reader *r, const void *batch, size_t size,
                                      int64_t *max_timestamp, int need_keys);

#endif
