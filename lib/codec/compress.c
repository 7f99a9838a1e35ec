#include "codec/compress.h"

#include <limits.h>
#include <string.h>

#define LZ4F_STATIC_LINKING_ONLY /* LZ4F_CustomMem */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem */
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "base/alloc.h"
#include "base/endian.h"
#include <logrep.h>

/* Every codec context allocates through the instance allocator of the
 * output buffer (the handle's), so a host allocator sees, limits and can
 * fail those allocations too. Snappy's C API takes no allocator: its
 * compressor's working memory comes from the C++ runtime. */
static void *codec_alloc(void *opaque, size_t size)
{
    return lr_malloc_unsized(opaque, size);
}

static void codec_free(void *opaque, void *p)
{
    lr_free_unsized(opaque, p);
}

static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size)
{
    size_t total;
    if (lr_mul_overflows(items, size, &total))
        return Z_NULL;
    return lr_malloc_unsized(opaque, total);
}

static void zlib_free(voidpf opaque, voidpf p)
{
    lr_free_unsized(opaque, p);
}

static void zlib_stream_init(z_stream *zs, const lr_buf *out)
{
    memset(zs, 0, sizeof *zs);
    zs->zalloc = zlib_alloc;
    zs->zfree = zlib_free;
    zs->opaque = (voidpf)out->alloc;
}

static ZSTD_customMem zstd_mem(const lr_buf *out)
{
    ZSTD_customMem m = {codec_alloc, codec_free, (void *)out->alloc};
    return m;
}

static LZ4F_CustomMem lz4_mem(const lr_buf *out)
{
    LZ4F_CustomMem m = {codec_alloc, NULL, codec_free, (void *)out->alloc};
    return m;
}

/* ------------------------------------------------------------------ gzip */

static int gzip_compress(int level, const uint8_t *src, size_t n, lr_buf *out)
{
    z_stream zs;
    zlib_stream_init(&zs, out);
    int rc = deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                          Z_DEFAULT_STRATEGY);
    if (rc != Z_OK)
        return rc == Z_MEM_ERROR ? LOGREP_ERR__NOMEM : LOGREP_ERR__COMPRESSION;
    int err = 0;
    size_t bound = deflateBound(&zs, (uLong)n) + 32;
    if ((err = lr_buf_reserve(out, bound)) != 0)
        goto done;
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)n;
    zs.next_out = out->data + out->len;
    zs.avail_out = (uInt)(out->cap - out->len);
    if (n > UINT_MAX || deflate(&zs, Z_FINISH) != Z_STREAM_END) {
        err = LOGREP_ERR__COMPRESSION;
        goto done;
    }
    out->len += zs.total_out;
done:
    deflateEnd(&zs);
    return err;
}

/* Grows out for a bounded decompressor: at least `want` more bytes of room
 * (doubling), never past start + max. Returns 0, LIMIT or NOMEM. */
static int grow_bounded(lr_buf *out, size_t start, size_t max, size_t want)
{
    size_t used = out->len - start;
    if (used >= max)
        return LOGREP_ERR__LIMIT;
    size_t room = out->cap - out->len;
    if (room >= want)
        return 0;
    size_t extra = used ? used : want;
    if (extra < want)
        extra = want;
    if (extra > max - used)
        extra = max - used;
    /* One byte beyond max lets a decoder prove the output is too large. */
    return lr_buf_reserve(out, extra + 1);
}

static int gzip_decompress(const uint8_t *src, size_t n, lr_buf *out, size_t max)
{
    z_stream zs;
    zlib_stream_init(&zs, out);
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return LOGREP_ERR__NOMEM;
    size_t start = out->len;
    int err = 0;
    if (n > UINT_MAX) {
        err = LOGREP_ERR__CORRUPT;
        goto done;
    }
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)n;
    for (;;) {
        if ((err = grow_bounded(out, start, max, n * 2 + 64)) != 0)
            goto done;
        size_t room = out->cap - out->len;
        if (room > UINT_MAX)
            room = UINT_MAX;
        zs.next_out = out->data + out->len;
        zs.avail_out = (uInt)room;
        int rc = inflate(&zs, Z_NO_FLUSH);
        out->len += room - zs.avail_out;
        if (out->len - start > max) {
            err = LOGREP_ERR__LIMIT;
            goto done;
        }
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            /* Another gzip member follows (GZIPInputStream reads them). */
            if (inflateReset(&zs) != Z_OK) {
                err = LOGREP_ERR__CORRUPT;
                goto done;
            }
            continue;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
            err = LOGREP_ERR__CORRUPT; /* truncated stream */
            goto done;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            /* The window is allocated at the first output. */
            err = rc == Z_MEM_ERROR ? LOGREP_ERR__NOMEM : LOGREP_ERR__CORRUPT;
            goto done;
        }
    }
done:
    inflateEnd(&zs);
    if (err)
        out->len = start;
    return err;
}

/* ---------------------------------------------------------------- snappy */

static const uint8_t xerial_magic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

/* Writes the raw block form, as librdkafka does; Kafka reads both forms. */
static int snappy_compress_raw(const uint8_t *src, size_t n, lr_buf *out)
{
    size_t bound = snappy_max_compressed_length(n);
    int err = lr_buf_reserve(out, bound);
    if (err)
        return err;
    size_t clen = bound;
    if (snappy_compress((const char *)src, n, (char *)out->data + out->len, &clen) != SNAPPY_OK)
        return LOGREP_ERR__COMPRESSION;
    out->len += clen;
    return 0;
}

static int snappy_block(const uint8_t *src, size_t n, lr_buf *out, size_t start, size_t max)
{
    size_t ulen;
    if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK)
        return LOGREP_ERR__CORRUPT;
    if (ulen > max - (out->len - start))
        return LOGREP_ERR__LIMIT;
    int err = lr_buf_reserve(out, ulen);
    if (err)
        return err;
    size_t got = ulen;
    if (snappy_uncompress((const char *)src, n, (char *)out->data + out->len, &got) != SNAPPY_OK ||
        got != ulen)
        return LOGREP_ERR__CORRUPT;
    out->len += got;
    return 0;
}

static int snappy_decompress(const uint8_t *src, size_t n, lr_buf *out, size_t max)
{
    size_t start = out->len;
    int err;
    if (n >= 16 && memcmp(src, xerial_magic, 8) == 0) {
        /* xerial/snappy-java stream: 16-byte header, then (int32 BE length,
         * raw block) chunks until the end. */
        const uint8_t *p = src + 16, *end = src + n;
        if (p == end) {
            err = LOGREP_ERR__CORRUPT;
            goto done;
        }
        while (p < end) {
            if (end - p < 4) {
                err = LOGREP_ERR__CORRUPT;
                goto done;
            }
            uint32_t clen = lr_get_be32(p);
            p += 4;
            if (clen > (size_t)(end - p)) {
                err = LOGREP_ERR__CORRUPT;
                goto done;
            }
            if ((err = snappy_block(p, clen, out, start, max)) != 0)
                goto done;
            p += clen;
        }
        return 0;
    }
    err = snappy_block(src, n, out, start, max);
done:
    if (err)
        out->len = start;
    return err;
}

/* ------------------------------------------------------------------- lz4 */

static int lz4_err(size_t r, int otherwise)
{
    return LZ4F_getErrorCode(r) == LZ4F_ERROR_allocation_failed ? LOGREP_ERR__NOMEM : otherwise;
}

/* Kafka's LZ4 frame: FLG 0x60 (v1, independent blocks, no checksums, no
 * content size), BD 0x40 (64 KiB blocks). LZ4F writes exactly that. */
static int lz4_compress(int level, const uint8_t *src, size_t n, lr_buf *out,
                        lr_codec_cache *cache)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
    prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
    prefs.frameInfo.contentSize = 0;
    prefs.compressionLevel = level ? level : 1;
    size_t bound = LZ4F_compressFrameBound(n, &prefs);
    int err = lr_buf_reserve(out, bound);
    if (err)
        return err;
    LZ4F_cctx *cctx = cache ? cache->lz4_cctx : NULL;
    if (!cctx && !(cctx = LZ4F_createCompressionContext_advanced(lz4_mem(out), LZ4F_VERSION)))
        return LOGREP_ERR__NOMEM;
    size_t r = LZ4F_compressFrame_usingCDict(cctx, out->data + out->len, bound, src, n, NULL,
                                             &prefs);
    if (cache)
        cache->lz4_cctx = cctx;
    else
        LZ4F_freeCompressionContext(cctx);
    if (LZ4F_isError(r))
        return lz4_err(r, LOGREP_ERR__COMPRESSION);
    out->len += r;
    return 0;
}

static int lz4_decompress(const uint8_t *src, size_t n, lr_buf *out, size_t max,
                          lr_codec_cache *cache)
{
    LZ4F_dctx *dctx = cache ? cache->lz4_dctx : NULL;
    if (dctx) {
        LZ4F_resetDecompressionContext(dctx);
    } else if (!(dctx = LZ4F_createDecompressionContext_advanced(lz4_mem(out), LZ4F_VERSION))) {
        return LOGREP_ERR__NOMEM;
    }
    size_t start = out->len;
    int err = 0;
    const uint8_t *p = src, *end = src + n;
    size_t hint = 1;
    while (p < end) {
        if ((err = grow_bounded(out, start, max, 65536)) != 0)
            goto done;
        size_t dst_size = out->cap - out->len;
        size_t src_size = (size_t)(end - p);
        hint = LZ4F_decompress(dctx, out->data + out->len, &dst_size, p, &src_size, NULL);
        if (LZ4F_isError(hint)) {
            err = lz4_err(hint, LOGREP_ERR__CORRUPT);
            goto done;
        }
        p += src_size;
        out->len += dst_size;
        if (out->len - start > max) {
            err = LOGREP_ERR__LIMIT;
            goto done;
        }
        if (hint == 0 && p < end) {
            /* Frame complete, bytes remain: Kafka has one frame. */
            err = LOGREP_ERR__CORRUPT;
            goto done;
        }
        if (src_size == 0 && dst_size == 0 && hint != 0) {
            err = LOGREP_ERR__CORRUPT;
            goto done;
        }
    }
    /* Flush anything buffered inside the context. */
    while (hint != 0) {
        if ((err = grow_bounded(out, start, max, 65536)) != 0)
            goto done;
        size_t dst_size = out->cap - out->len, src_size = 0;
        hint = LZ4F_decompress(dctx, out->data + out->len, &dst_size, p, &src_size, NULL);
        if (LZ4F_isError(hint) || dst_size == 0) {
            /* truncated frame */
            err = LZ4F_isError(hint) ? lz4_err(hint, LOGREP_ERR__CORRUPT) : LOGREP_ERR__CORRUPT;
            goto done;
        }
        out->len += dst_size;
        if (out->len - start > max) {
            err = LOGREP_ERR__LIMIT;
            goto done;
        }
    }
done:
    if (cache)
        cache->lz4_dctx = dctx;
    else
        LZ4F_freeDecompressionContext(dctx);
    if (err)
        out->len = start;
    return err;
}

/* ------------------------------------------------------------------ zstd */

static int zstd_err(size_t r, int otherwise)
{
    return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? LOGREP_ERR__NOMEM : otherwise;
}

static int zstd_compress(int level, const uint8_t *src, size_t n, lr_buf *out,
                         lr_codec_cache *cache)
{
    size_t bound = ZSTD_compressBound(n);
    int err = lr_buf_reserve(out, bound);
    if (err)
        return err;
    ZSTD_CCtx *cctx = cache ? cache->zstd_cctx : NULL;
    if (!cctx && !(cctx = ZSTD_createCCtx_advanced(zstd_mem(out))))
        return LOGREP_ERR__NOMEM;
    size_t r = ZSTD_compressCCtx(cctx, out->data + out->len, bound, src, n, level ? level : 3);
    if (cache)
        cache->zstd_cctx = cctx;
    else
        ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(r))
        return zstd_err(r, LOGREP_ERR__COMPRESSION);
    out->len += r;
    return 0;
}

static int zstd_decompress(const uint8_t *src, size_t n, lr_buf *out, size_t max,
                           lr_codec_cache *cache)
{
    ZSTD_DStream *ds = cache ? cache->zstd_dctx : NULL;
    if (ds)
        ZSTD_DCtx_reset(ds, ZSTD_reset_session_only);
    else
        ds = ZSTD_createDStream_advanced(zstd_mem(out));
    if (!ds)
        return LOGREP_ERR__NOMEM;
    size_t start = out->len;
    int err = 0;
    unsigned long long csize = ZSTD_getFrameContentSize(src, n);
    if (csize == ZSTD_CONTENTSIZE_ERROR) {
        err = LOGREP_ERR__CORRUPT;
        goto done;
    }
    if (csize != ZSTD_CONTENTSIZE_UNKNOWN && csize > max) {
        err = LOGREP_ERR__LIMIT;
        goto done;
    }
    ZSTD_inBuffer in = {src, n, 0};
    size_t rc = 1;
    for (;;) {
        size_t want = csize != ZSTD_CONTENTSIZE_UNKNOWN && csize > 0 ? (size_t)csize : 65536;
        if ((err = grow_bounded(out, start, max, want)) != 0)
            goto done;
        ZSTD_outBuffer ob = {out->data + out->len, out->cap - out->len, 0};
        rc = ZSTD_decompressStream(ds, &ob, &in);
        if (ZSTD_isError(rc)) {
            err = zstd_err(rc, LOGREP_ERR__CORRUPT);
            goto done;
        }
        out->len += ob.pos;
        if (out->len - start > max) {
            err = LOGREP_ERR__LIMIT;
            goto done;
        }
        if (in.pos == in.size && rc == 0)
            break; /* every frame complete */
        if (in.pos == in.size && ob.pos < ob.size) {
            err = LOGREP_ERR__CORRUPT; /* truncated frame */
            goto done;
        }
    }
done:
    if (cache)
        cache->zstd_dctx = ds;
    else
        ZSTD_freeDStream(ds);
    if (err)
        out->len = start;
    return err;
}

/* --------------------------------------------------------------- dispatch */

int lr_compress_level_ok(int codec, int level)
{
    if (level == 0)
        return 1;
    switch (codec) {
    case LOGREP_COMPRESSION_GZIP:
        return level >= -1 && level <= 9;
    case LOGREP_COMPRESSION_LZ4:
        return level >= 1 && level <= 17;
    case LOGREP_COMPRESSION_ZSTD:
        return level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel();
    default:
        return 0;
    }
}

int lr_compress(int codec, int level, const uint8_t *src, size_t n, lr_buf *out,
                lr_codec_cache *cache)
{
    switch (codec) {
    case LOGREP_COMPRESSION_GZIP:
        return gzip_compress(level, src, n, out);
    case LOGREP_COMPRESSION_SNAPPY:
        return snappy_compress_raw(src, n, out);
    case LOGREP_COMPRESSION_LZ4:
        return lz4_compress(level, src, n, out, cache);
    case LOGREP_COMPRESSION_ZSTD:
        return zstd_compress(level, src, n, out, cache);
    default:
        return LOGREP_ERR__INVALID_ARG;
    }
}

void lr_codec_cache_free(lr_codec_cache *c)
{
    ZSTD_freeDStream(c->zstd_dctx);
    ZSTD_freeCCtx(c->zstd_cctx);
    if (c->lz4_dctx)
        LZ4F_freeDecompressionContext(c->lz4_dctx);
    if (c->lz4_cctx)
        LZ4F_freeCompressionContext(c->lz4_cctx);
    c->zstd_dctx = c->lz4_dctx = c->zstd_cctx = c->lz4_cctx = NULL;
}

int lr_decompress(int codec, const uint8_t *src, size_t n, lr_buf *out, size_t max,
                  lr_codec_cache *cache)
{
    switch (codec) {
    case LOGREP_COMPRESSION_GZIP:
        return gzip_decompress(src, n, out, max);
    case LOGREP_COMPRESSION_SNAPPY:
        return snappy_decompress(src, n, out, max);
    case LOGREP_COMPRESSION_LZ4:
        return lz4_decompress(src, n, out, max, cache);
    case LOGREP_COMPRESSION_ZSTD:
        return zstd_decompress(src, n, out, max, cache);
    default:
        return LOGREP_ERR__CORRUPT;
    }
}
