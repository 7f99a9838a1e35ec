/* One segment: <base>.log with its .index and .timeindex. Files are opened
 * on demand so an idle partition holds only its active .log open. */
#include <string.h>

#include "base/buf.h"
#include "base/endian.h"
#include "codec/batch.h"
#include "log/log_int.h"

logrep_err lr_seg_open_log(logrep_log *log, lr_segment *s, int create)
{
    if (s->log)
        return LOGREP_OK;
    char path[LR_PATH_MAX];
    lr_log_seg_path(log, s->base, ".log", path);
    int flags = LOGREP_OPEN_WRITE | (create ? LOGREP_OPEN_CREATE : 0);
    logrep_err err = log->st->open(log->st->ctx, path, flags, &s->log);
    if (err) {
        s->log = NULL;
        return lr_log_io(log, err);
    }
    return LOGREP_OK;
}

logrep_err lr_seg_open_index(logrep_log *log, lr_segment *s, lr_index *ix, const char *suffix,
                             int create)
{
    if (ix->f)
        return LOGREP_OK;
    char path[LR_PATH_MAX];
    lr_log_seg_path(log, s->base, suffix, path);
    int flags = LOGREP_OPEN_WRITE | (create ? LOGREP_OPEN_CREATE : 0);
    logrep_err err = log->st->open(log->st->ctx, path, flags, &ix->f);
    if (err) {
        ix->f = NULL;
        return lr_log_io(log, err);
    }
    return LOGREP_OK;
}

static void close_file(logrep_log *log, logrep_file **f)
{
    if (*f)
        log->st->close(log->st->ctx, *f);
    *f = NULL;
}

void lr_seg_close_index_files(logrep_log *log, lr_segment *s)
{
    close_file(log, &s->oi.f);
    close_file(log, &s->ti.f);
}

void lr_seg_close_files(logrep_log *log, lr_segment *s)
{
    close_file(log, &s->log);
    lr_seg_close_index_files(log, s);
}

logrep_err lr_seg_delete_files(logrep_log *log, lr_segment *s)
{
    static const char *const suffixes[] = {".log", ".index", ".timeindex", ".txnindex"};
    lr_seg_close_files(log, s);
    logrep_err first = LOGREP_OK;
    for (int i = 0; i < 4; i++) {
        char path[LR_PATH_MAX];
        lr_log_seg_path(log, s->base, suffixes[i], path);
        logrep_err err = log->st->remove(log->st->ctx, path);
        if (err && err != LOGREP_ERR__NOENT && !first)
            first = lr_log_io(log, err);
    }
    log->dir_dirty = 1;
    return first;
}

logrep_err lr_seg_header(logrep_log *log, lr_segment *s, uint64_t pos, logrep_batch_header *h)
{
    if (pos >= s->size)
        return LOGREP_ERR__END;
    logrep_err err = lr_seg_open_log(log, s, 0);
    if (err)
        return err;
    uint8_t b[LOGREP_BATCH_HEADER_SIZE];
    size_t n;
    if ((err = log->st->read(log->st->ctx, s->log, pos, b, sizeof b, &n)))
        return lr_log_io(log, err);
    if (n < sizeof b)
        return LOGREP_ERR__CORRUPT;
    err = logrep_batch_header_parse(b, sizeof b, h);
    if (err && err != LOGREP_ERR__AGAIN)
        return LOGREP_ERR__CORRUPT;
    if ((uint64_t)h->batch_length + LOGREP_LOG_OVERHEAD > s->size - pos ||
        h->last_offset_delta < 0 || h->base_offset < s->base)
        return LOGREP_ERR__CORRUPT;
    return LOGREP_OK;
}

static logrep_err scan_from(logrep_log *log, lr_segment *s, uint64_t pos, int64_t offset,
                            uint64_t *out_pos, logrep_batch_header *h)
{
    for (;;) {
        logrep_err err = lr_seg_header(log, s, pos, h);
        if (err)
            return err;
        if (logrep_batch_last_offset(h) >= offset) {
            *out_pos = pos;
            return LOGREP_OK;
        }
        pos += (uint64_t)h->batch_length + LOGREP_LOG_OVERHEAD;
    }
}

logrep_err lr_seg_find(logrep_log *log, lr_segment *s, int64_t offset, uint64_t *pos,
                       logrep_batch_header *h)
{
    int64_t ioff;
    uint64_t ipos;
    logrep_err err;
    if (s->tail_pos < s->size && offset >= s->tail_base &&
        offset <= logrep_batch_last_offset(&s->tail_hdr)) {
        if ((err = lr_seg_open_log(log, s, 0)))
            return err;
        *pos = s->tail_pos;
        *h = s->tail_hdr;
        return LOGREP_OK;
    }
    if (s->tail_pos < s->size && offset >= s->tail_base) {
        err = scan_from(log, s, s->tail_pos, offset, pos, h);
        if (err != LOGREP_ERR__CORRUPT)
            return err;
    }
    err = lr_oi_lookup(log, s, offset, &ioff, &ipos);
    if (!err) {
        err = scan_from(log, s, ipos, offset, pos, h);
        if (err != LOGREP_ERR__CORRUPT || ipos == 0)
            return err;
    }
    if (err != LOGREP_ERR__CORRUPT)
        return err;
    /* The index disagrees with the data: fall back to a scan from 0. */
    LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log", "%s: index of segment %lld is inconsistent",
           log->dir, (long long)s->base);
    return scan_from(log, s, 0, offset, pos, h);
}

/* Kafka's per-batch index rule (LogSegment.append and .recover): an
 * entry (batch last offset, batch position) once more than
 * index.interval.bytes were written since the last entry, so the first
 * batch of a segment never gets one. Entries go to the files, or to the
 * buffers when given (recovery writes them in one go). */
static logrep_err index_rule(logrep_log *log, lr_segment *s, uint64_t pos,
                             const logrep_batch_header *h, uint64_t size, lr_buf *oib,
                             lr_buf *tib)
{
    int64_t last = logrep_batch_last_offset(h);
    logrep_err err = LOGREP_OK;
    s->tail_pos = pos;
    s->tail_base = h->base_offset;
    s->tail_hdr = *h;
    if (pos == 0)
        s->roll_ts = h->max_timestamp;
    if (h->max_timestamp > s->max_ts) {
        s->max_ts = h->max_timestamp;
        s->max_ts_offset = last;
    }
    if (s->bytes_since_idx > (uint64_t)log->idx_interval) {
        if (oib) {
            uint8_t e[LR_TI_ENTRY];
            lr_put_be32(e, (uint32_t)(last - s->base));
            lr_put_be32(e + 4, (uint32_t)pos);
            if ((err = lr_buf_append(oib, e, LR_OI_ENTRY)))
                return err;
            s->oi.entries++;
            s->oi.last_a = last;
            if (s->max_ts > (s->ti.entries ? s->ti.last_a : -1)) {
                lr_put_be64(e, (uint64_t)s->max_ts);
                lr_put_be32(e + 8, (uint32_t)(s->max_ts_offset - s->base));
                if ((err = lr_buf_append(tib, e, LR_TI_ENTRY)))
                    return err;
                s->ti.entries++;
                s->ti.last_a = s->max_ts;
                s->ti.last_b = s->max_ts_offset;
            }
        } else {
            if ((err = lr_oi_append(log, s, last, pos)) ||
                (err = lr_ti_maybe_append(log, s, s->max_ts, s->max_ts_offset)))
                return err;
        }
        s->bytes_since_idx = 0;
    }
    s->bytes_since_idx += size;
    return LOGREP_OK;
}

logrep_err lr_seg_index_batch(logrep_log *log, lr_segment *s, uint64_t pos,
                              const logrep_batch_header *h, uint64_t size)
{
    return index_rule(log, s, pos, h, size, NULL, NULL);
}

logrep_err lr_seg_index_batch_buf(logrep_log *log, lr_segment *s, uint64_t pos,
                                  const logrep_batch_header *h, uint64_t size, lr_buf *oib,
                                  lr_buf *tib)
{
    return index_rule(log, s, pos, h, size, oib, tib);
}

logrep_err lr_seg_final_time_entry(logrep_log *log, lr_segment *s)
{
    return lr_ti_maybe_append(log, s, s->max_ts, s->max_ts_offset);
}

logrep_err lr_seg_sync(logrep_log *log, lr_segment *s)
{
    if (!s->dirty)
        return LOGREP_OK;
    const logrep_storage *st = log->st;
    logrep_file *fs[3] = {s->log, s->oi.f, s->ti.f};
    for (int i = 0; i < 3; i++) {
        if (!fs[i])
            continue;
        logrep_err err = st->sync(st->ctx, fs[i]);
        if (err)
            return lr_log_io(log, err);
    }
    s->dirty = 0;
    return LOGREP_OK;
}

/* Number of index entries whose offset is below `offset`. */
static logrep_err count_below(logrep_log *log, lr_segment *s, lr_index *ix, size_t esize,
                              size_t off_at, int64_t offset, uint32_t *out)
{
    uint32_t lo = 0, hi = ix->entries;
    uint8_t e[LR_TI_ENTRY];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        logrep_err err = lr_index_read_entry(log, ix, esize, mid, e);
        if (err)
            return err;
        if (s->base + (int32_t)lr_get_be32(e + off_at) < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    *out = lo;
    return LOGREP_OK;
}

static logrep_err trim_index(logrep_log *log, lr_segment *s, lr_index *ix, const char *suffix,
                             size_t esize, size_t off_at, int64_t offset)
{
    if (!ix->entries)
        return LOGREP_OK;
    logrep_err err = lr_seg_open_index(log, s, ix, suffix, 0);
    uint32_t keep;
    if (!err)
        err = count_below(log, s, ix, esize, off_at, offset, &keep);
    if (!err && keep < ix->entries) {
        err = log->st->truncate(log->st->ctx, ix->f, (uint64_t)keep * esize);
        if (err)
            return lr_log_io(log, err);
        ix->entries = keep;
    }
    return err;
}

logrep_err lr_seg_truncate_at(logrep_log *log, lr_segment *s, uint64_t pos, int64_t cut_offset)
{
    logrep_err err = lr_seg_open_log(log, s, 0);
    if (err)
        return err;
    if ((err = log->st->truncate(log->st->ctx, s->log, pos)))
        return lr_log_io(log, err);
    s->size = pos;
    s->dirty = 1;
    if ((err = trim_index(log, s, &s->oi, ".index", LR_OI_ENTRY, 0, cut_offset)) ||
        (err = trim_index(log, s, &s->ti, ".timeindex", LR_TI_ENTRY, 8, cut_offset)))
        return err;
    return lr_seg_load(log, s);
}

/* ---- recovery scan ---- */

typedef struct scan_buf {
    uint8_t *p;
    size_t cap, len;
    uint64_t pos; /* file position of p[0] */
} scan_buf;

/* Makes [pos, pos+need) available in the buffer; need <= remaining. */
static logrep_err scan_fill(logrep_log *log, lr_segment *s, scan_buf *b, uint64_t pos,
                            size_t need)
{
    if (pos >= b->pos && pos + need <= b->pos + b->len)
        return LOGREP_OK;
    size_t want = need > (1u << 20) ? need : (1u << 20);
    if (want > s->size - pos)
        want = (size_t)(s->size - pos);
    if (want > b->cap) {
        uint8_t *p = lr_realloc(&log->alloc, b->p, b->cap, want);
        if (!p)
            return LOGREP_ERR__NOMEM;
        b->p = p;
        b->cap = want;
    }
    size_t n;
    logrep_err err = log->st->read(log->st->ctx, s->log, pos, b->p, want, &n);
    if (err)
        return lr_log_io(log, err);
    b->pos = pos;
    b->len = n;
    return n >= need ? LOGREP_OK : LOGREP_ERR__CORRUPT;
}

/* Resets the in-memory index state of a segment about to be rebuilt. */
static void seg_reset(lr_segment *s)
{
    s->oi.entries = s->ti.entries = 0;
    s->oi.last_a = s->ti.last_a = s->ti.last_b = -1;
    s->max_ts = s->max_ts_offset = s->roll_ts = -1;
    s->bytes_since_idx = 0;
    s->next_offset = s->base;
}

static logrep_err write_index(logrep_log *log, lr_segment *s, lr_index *ix, const char *suffix,
                              const lr_buf *b)
{
    logrep_err err = lr_seg_open_index(log, s, ix, suffix, 1);
    if (!err && (err = log->st->truncate(log->st->ctx, ix->f, 0)) == LOGREP_OK && b->len)
        err = log->st->write(log->st->ctx, ix->f, 0, b->data, b->len);
    return err ? lr_log_io(log, err) : LOGREP_OK;
}

logrep_err lr_seg_recover(logrep_log *log, lr_segment *s, int64_t min_offset, uint64_t *cut)
{
    logrep_err err = lr_seg_open_log(log, s, 0);
    if (!err)
        err = log->st->size(log->st->ctx, s->log, &s->size);
    if (err)
        return lr_log_io(log, err);
    seg_reset(s);
    lr_buf oib, tib;
    lr_buf_init(&oib, &log->alloc);
    lr_buf_init(&tib, &log->alloc);
    scan_buf b = {0};
    uint64_t pos = 0;
    int64_t prev_last = min_offset - 1;
    const char *why = NULL;
    while (!err) {
        uint64_t remaining = s->size - pos;
        if (remaining <= 17) { /* Kafka: HEADER_SIZE_UP_TO_MAGIC */
            if (remaining)
                why = "torn batch header";
            break;
        }
        if ((err = scan_fill(log, s, &b, pos, remaining < 61 ? (size_t)remaining : 61)))
            break;
        const uint8_t *p = b.p + (pos - b.pos);
        int32_t blen = (int32_t)lr_get_be32(p + LR_B_LENGTH);
        if (blen < 14) {
            why = "batch length below 14";
            break;
        }
        uint64_t total = (uint64_t)blen + LOGREP_LOG_OVERHEAD;
        if (total > remaining) {
            why = "torn batch";
            break;
        }
        if (total < LOGREP_BATCH_HEADER_SIZE || p[LR_B_MAGIC] != 2) {
            why = total < LOGREP_BATCH_HEADER_SIZE ? "batch smaller than its header"
                                                   : "unsupported magic";
            break;
        }
        if ((err = scan_fill(log, s, &b, pos, (size_t)total)))
            break;
        p = b.p + (pos - b.pos);
        if (logrep_batch_verify(p, (size_t)total, NULL) != LOGREP_OK) {
            why = "CRC mismatch";
            break;
        }
        logrep_batch_header h;
        lr_batch_header_decode(p, &h);
        int64_t last = logrep_batch_last_offset(&h);
        if (h.base_offset <= prev_last || h.base_offset < s->base || h.last_offset_delta < 0 ||
            last - s->base > INT32_MAX || last < h.base_offset) {
            why = "offsets out of order";
            break;
        }
        if ((err = index_rule(log, s, pos, &h, total, &oib, &tib)))
            break;
        if (h.partition_leader_epoch >= 0 &&
            h.partition_leader_epoch > lr_epoch_cache_latest(&log->ec)) {
            int changed;
            if ((err = lr_epoch_cache_assign(&log->ec, &log->alloc, h.partition_leader_epoch,
                                             h.base_offset, &changed)))
                break;
        }
        s->next_offset = last + 1;
        prev_last = last;
        pos += total;
    }
    if (b.p)
        lr_free(&log->alloc, b.p, b.cap);
    *cut = 0;
    if (!err && pos < s->size) {
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log",
               "%s: segment %020lld: %s at position %llu: truncating %llu bytes", log->dir,
               (long long)s->base, why ? why : "invalid data", (unsigned long long)pos,
               (unsigned long long)(s->size - pos));
        /* The cut is made durable before anything is appended after it:
         * otherwise a second power loss could bring the cut bytes back
         * behind newer batches. */
        if ((err = log->st->truncate(log->st->ctx, s->log, pos)) ||
            (err = log->st->sync(log->st->ctx, s->log)))
            err = lr_log_io(log, err);
        *cut = s->size - pos;
        s->size = pos;
    }
    if (!err)
        err = write_index(log, s, &s->oi, ".index", &oib);
    if (!err)
        err = write_index(log, s, &s->ti, ".timeindex", &tib);
    lr_buf_free(&oib);
    lr_buf_free(&tib);
    s->dirty = 1;
    return err;
}

/* ---- load without a full scan ---- */

static logrep_err load_index(logrep_log *log, lr_segment *s, lr_index *ix, const char *suffix,
                             size_t esize, int *missing)
{
    logrep_err err = lr_seg_open_index(log, s, ix, suffix, 0);
    *missing = 0;
    ix->entries = 0;
    ix->last_a = ix->last_b = -1;
    if (err == LOGREP_ERR__NOENT) {
        *missing = 1;
        return LOGREP_OK;
    }
    uint64_t size;
    if (!err && (err = log->st->size(log->st->ctx, ix->f, &size)))
        err = lr_log_io(log, err);
    if (err)
        return err;
    if (size % esize || size / esize > UINT32_MAX)
        return LOGREP_ERR__CORRUPT;
    ix->entries = (uint32_t)(size / esize);
    return LOGREP_OK;
}

logrep_err lr_seg_load(logrep_log *log, lr_segment *s)
{
    int oi_missing, ti_missing;
    logrep_err err = lr_seg_open_log(log, s, 0);
    if (!err && (err = log->st->size(log->st->ctx, s->log, &s->size)))
        err = lr_log_io(log, err);
    if (!err)
        err = load_index(log, s, &s->oi, ".index", LR_OI_ENTRY, &oi_missing);
    if (!err)
        err = load_index(log, s, &s->ti, ".timeindex", LR_TI_ENTRY, &ti_missing);
    if (err)
        return err;
    if (oi_missing)
        return LOGREP_ERR__CORRUPT; /* Kafka recovers a segment without .index */
    s->max_ts = s->max_ts_offset = s->roll_ts = -1;
    uint8_t e[LR_TI_ENTRY];
    uint64_t pos = 0;
    int64_t prev_last = s->base - 1;
    if (s->oi.entries) {
        if ((err = lr_index_read_entry(log, &s->oi, LR_OI_ENTRY, s->oi.entries - 1, e)))
            return err;
        int32_t rel = (int32_t)lr_get_be32(e);
        pos = lr_get_be32(e + 4);
        if (rel < 0 || pos >= s->size)
            return LOGREP_ERR__CORRUPT;
        s->oi.last_a = s->base + rel;
    }
    if (s->ti.entries) {
        if ((err = lr_index_read_entry(log, &s->ti, LR_TI_ENTRY, s->ti.entries - 1, e)))
            return err;
        int32_t rel = (int32_t)lr_get_be32(e + 8);
        if (rel < 0)
            return LOGREP_ERR__CORRUPT;
        s->ti.last_a = s->max_ts = (int64_t)lr_get_be64(e);
        s->ti.last_b = s->max_ts_offset = s->base + rel;
    }
    /* Walk the headers after the last index entry to find the end. */
    uint64_t last_pos = pos;
    s->next_offset = s->base;
    logrep_batch_header h;
    while ((err = lr_seg_header(log, s, pos, &h)) == LOGREP_OK) {
        int64_t last = logrep_batch_last_offset(&h);
        if (h.base_offset <= prev_last)
            return LOGREP_ERR__CORRUPT;
        if (h.max_timestamp > s->max_ts) {
            s->max_ts = h.max_timestamp;
            s->max_ts_offset = last;
        }
        prev_last = last;
        s->next_offset = last + 1;
        pos += (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    if (err != LOGREP_ERR__END)
        return err;
    if (s->oi.entries && s->oi.last_a >= s->next_offset)
        return LOGREP_ERR__CORRUPT;
    s->bytes_since_idx = s->size - last_pos;
    if (s->size && lr_seg_header(log, s, 0, &h) == LOGREP_OK)
        s->roll_ts = h.max_timestamp;
    return LOGREP_OK;
}
