/* Compression codecs of record batches: gzip, snappy, lz4 (Kafka's frame
 * subset), zstd. Only the record area of a batch is compressed. */
#ifndef LR_CODEC_COMPRESS_H
#define LR_CODEC_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include "base/buf.h"

/* Codec contexts kept across calls (by a reader or builder) so each batch does not
 * pay for allocating them. Zero-initialise; release with
 * lr_codec_cache_free(). Each context allocates with the allocator of the
 * output buffer it was made for, which must outlive it (in practice: the
 * cache and the buffers belong to one handle). */
typedef struct lr_codec_cache {
    void *zstd_dctx;
    void *lz4_dctx;
    void *zstd_cctx;
    void *lz4_cctx;
} lr_codec_cache;

void lr_codec_cache_free(lr_codec_cache *c);

/* Appends the compressed form of src to out. level 0: codec default.
 * cache may be NULL.
 * Returns 0, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__COMPRESSION or
 * LOGREP_ERR__NOMEM. */
int lr_compress(int codec, int level, const uint8_t *src, size_t n, lr_buf *out,
                lr_codec_cache *cache);


/* Appends the decompressed form of src to out, never growing out by more
 * than max bytes. cache may be NULL. Returns 0, LOGREP_ERR__LIMIT (would exceed max),
 * LOGREP_ERR__CORRUPT (invalid data), LOGREP_ERR__NOMEM. */
int lr_decompress(int codec, const uint8_t *src, size_t n, lr_buf *out, size_t max,
                  lr_codec_cache *cache);

/* Whether level is valid for codec (0 always is). */
int lr_compress_level_ok(int codec, int level);

#endif
