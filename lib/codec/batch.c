#include "codec/batch.h"

#include <string.h>

#include "base/endian.h"

static const char *const codec_names[] = {"none", "gzip", "snappy", "lz4", "zstd"};

LOGREP_API const char *logrep_compression_name(int codec)
{
    if (codec < 0 || codec > 4)
        return NULL;
    return codec_names[codec];
}

LOGREP_API int logrep_compression_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(name, codec_names[i]) == 0)
            return i;
    return -1;
}

void lr_batch_header_decode(const uint8_t *p, logrep_batch_header *h)
{
    h->base_offset = (int64_t)lr_get_be64(p + LR_B_BASE_OFFSET);
    h->batch_length = (int32_t)lr_get_be32(p + LR_B_LENGTH);
    h->partition_leader_epoch = (int32_t)lr_get_be32(p + LR_B_EPOCH);
    h->magic = (int8_t)p[LR_B_MAGIC];
    h->crc = lr_get_be32(p + LR_B_CRC);
    h->attributes = (int16_t)lr_get_be16(p + LR_B_ATTRIBUTES);
    h->last_offset_delta = (int32_t)lr_get_be32(p + LR_B_LAST_OFFSET_DELTA);
    h->base_timestamp = (int64_t)lr_get_be64(p + LR_B_BASE_TIMESTAMP);
    h->max_timestamp = (int64_t)lr_get_be64(p + LR_B_MAX_TIMESTAMP);
    h->producer_id = (int64_t)lr_get_be64(p + LR_B_PRODUCER_ID);
    h->producer_epoch = (int16_t)lr_get_be16(p + LR_B_PRODUCER_EPOCH);
    h->base_sequence = (int32_t)lr_get_be32(p + LR_B_BASE_SEQUENCE);
    h->record_count = (int32_t)lr_get_be32(p + LR_B_RECORD_COUNT);
}

void lr_batch_header_encode(uint8_t *p, const logrep_batch_header *h)
{
    lr_put_be64(p + LR_B_BASE_OFFSET, (uint64_t)h->base_offset);
    lr_put_be32(p + LR_B_LENGTH, (uint32_t)h->batch_length);
    lr_put_be32(p + LR_B_EPOCH, (uint32_t)h->partition_leader_epoch);
    p[LR_B_MAGIC] = (uint8_t)h->magic;
    lr_put_be32(p + LR_B_CRC, h->crc);
    lr_put_be16(p + LR_B_ATTRIBUTES, (uint16_t)h->attributes);
    lr_put_be32(p + LR_B_LAST_OFFSET_DELTA, (uint32_t)h->last_offset_delta);
    lr_put_be64(p + LR_B_BASE_TIMESTAMP, (uint64_t)h->base_timestamp);
    lr_put_be64(p + LR_B_MAX_TIMESTAMP, (uint64_t)h->max_timestamp);
    lr_put_be64(p + LR_B_PRODUCER_ID, (uint64_t)h->producer_id);
    lr_put_be16(p + LR_B_PRODUCER_EPOCH, (uint16_t)h->producer_epoch);
    lr_put_be32(p + LR_B_BASE_SEQUENCE, (uint32_t)h->base_sequence);
    lr_put_be32(p + LR_B_RECORD_COUNT, (uint32_t)h->record_count);
}

LOGREP_API logrep_err logrep_batch_header_parse(const void *buf, size_t len,
                                                logrep_batch_header *out)
{
    const uint8_t *p = buf;
    if (!p && len)
        return LOGREP_ERR__INVALID_ARG;
    /* Magic sits at byte 16 in every format: look before anything else. */
    if (len < LR_B_MAGIC + 1)
        return LOGREP_ERR__AGAIN;
    if (p[LR_B_MAGIC] != 2)
        return LOGREP_ERR__UNSUPPORTED;
    int32_t blen = (int32_t)lr_get_be32(p + LR_B_LENGTH);
    if (blen < LOGREP_BATCH_HEADER_SIZE - LOGREP_LOG_OVERHEAD)
        return LOGREP_ERR__CORRUPT;
    if (len < LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__AGAIN;
    logrep_batch_header h;
    lr_batch_header_decode(p, &h);
    if ((h.attributes & LOGREP_ATTR_COMPRESSION_MASK) > LOGREP_COMPRESSION_ZSTD)
        return LOGREP_ERR__CORRUPT;
    if (out)
        *out = h;
    if ((uint64_t)blen + LOGREP_LOG_OVERHEAD > len)
        return LOGREP_ERR__AGAIN;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_verify(const void *buf, size_t len, size_t *size)
{
    logrep_batch_header h;
    logrep_err err = logrep_batch_header_parse(buf, len, &h);
    if (err)
        return err;
    size_t total = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    const uint8_t *p = buf;
    uint32_t crc = logrep_crc32c(0, p + LOGREP_BATCH_CRC_START, total - LOGREP_BATCH_CRC_START);
    if (crc != h.crc)
        return LOGREP_ERR__CORRUPT;
    if (size)
        *size = total;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_batch_stamp(void *buf, size_t len, int64_t base_offset,
                                         int32_t partition_leader_epoch)
{
    if (!buf || len < LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__INVALID_ARG;
    uint8_t *p = buf;
    lr_put_be64(p + LR_B_BASE_OFFSET, (uint64_t)base_offset);
    lr_put_be32(p + LR_B_EPOCH, (uint32_t)partition_leader_epoch);
    return LOGREP_OK;
}

LOGREP_API int64_t logrep_batch_last_offset(const logrep_batch_header *h)
{
    return (int64_t)((uint64_t)h->base_offset + (uint64_t)(int64_t)h->last_offset_delta);
}
