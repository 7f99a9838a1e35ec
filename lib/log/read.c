/* Reads of the partition log: by offset (a slice of whole batches) and by
 * timestamp (ListOffsets). */
#include <string.h>

#include "log/log_int.h"

/* ---- read ---- */

/* Segment holding offset: the last with base <= offset. */
static size_t seg_for(const logrep_log *log, int64_t offset)
{
    size_t lo = 0, hi = log->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->segs[mid].base <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

/* Reads asking for more than this use the index to find their end. */
#define LR_READ_JUMP_MIN 65536

LOGREP_API logrep_err logrep_log_read(logrep_log *log, int64_t offset, uint64_t max_bytes,
                                      int64_t max_offset, int min_one, logrep_log_slice *out)
{
    if (!log || !out)
        return LOGREP_ERR__INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->first_offset = out->next_offset = offset;
    if (offset < log->log_start || offset > log->leo)
        return LOGREP_ERR_OFFSET_OUT_OF_RANGE;
    if (offset == log->leo)
        return LOGREP_OK;
    for (size_t i = seg_for(log, offset); i < log->nsegs; i++) {
        lr_segment *s = &log->segs[i];
        if (s->next_offset <= offset)
            continue; /* a gap (an empty segment): the data starts later */
        uint64_t pos;
        logrep_batch_header h;
        logrep_err err = lr_seg_find(log, s, offset, &pos, &h);
        if (err == LOGREP_ERR__END)
            continue;
        if (err)
            return err == LOGREP_ERR__CORRUPT ? LOGREP_ERR__CORRUPT : err;
        out->file = s->log;
        out->segment_base = s->base;
        out->position = pos;
        out->first_offset = h.base_offset;
        uint64_t end = pos;
        /* The rest of the segment fits and is all below max_offset (a
         * follower or a caught-up consumer at the tail): no scan at all. */
        if (s->size - pos <= max_bytes && s->next_offset <= max_offset) {
            out->length = s->size - pos;
            out->next_offset = s->next_offset;
            return LOGREP_OK;
        }
        /* Jump over whole batches with the offset index: its positions are
         * batch starts, and the batches before an entry hold offsets below
         * the entry's. Only the last stretch is scanned header by header. */
        if (max_bytes > LR_READ_JUMP_MIN) {
            int64_t joff;
            uint64_t jpos;
            err = lr_oi_floor_pos(log, s, pos + max_bytes, &joff, &jpos);
            if (err)
                return err;
            if (joff >= 0 && jpos > pos && joff < max_offset) {
                logrep_batch_header jh;
                err = lr_seg_header(log, s, jpos, &jh);
                if (err == LOGREP_OK && jh.base_offset > h.base_offset) {
                    end = jpos;
                    out->next_offset = jh.base_offset;
                    h = jh;
                } else if (err != LOGREP_OK && err != LOGREP_ERR__END) {
                    return err;
                }
                err = LOGREP_OK;
            }
        }
        while (err == LOGREP_OK) {
            uint64_t size = (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
            int64_t last = logrep_batch_last_offset(&h);
            if (last >= max_offset)
                break;
            if (end - pos + size > max_bytes && !(min_one && end == pos))
                break;
            end += size;
            out->next_offset = last + 1;
            err = lr_seg_header(log, s, end, &h);
        }
        if (err && err != LOGREP_ERR__END)
            return err;
        out->length = end - pos;
        if (!out->length) {
            out->file = NULL;
            out->next_offset = offset;
        }
        return LOGREP_OK;
    }
    return LOGREP_OK;
}

/* The bytes of a slice from logrep_log_read, checked against the log's
 * segments first: a slice that names no open segment file, or bytes past
 * its end (stale, or not from this log), is refused, never read. */
logrep_err lr_log_read_slice(logrep_log *log, const logrep_log_slice *sl, void *buf,
                             size_t size)
{
    if (!sl->length)
        return LOGREP_OK;
    if (!buf || size < sl->length)
        return LOGREP_ERR__INVALID_ARG;
    const lr_segment *s = &log->segs[seg_for(log, sl->segment_base)];
    if (s->base != sl->segment_base || !s->log || s->log != sl->file ||
        sl->position > s->size || sl->length > s->size - sl->position)
        return LOGREP_ERR__INVALID_ARG;
    size_t got = 0;
    logrep_err err = log->st->read(log->st->ctx, s->log, sl->position, buf, (size_t)sl->length,
                                   &got);
    if (err)
        return lr_log_io(log, err);
    return got == sl->length ? LOGREP_OK : LOGREP_ERR__IO;
}

/* ---- offsets by time ---- */

static logrep_err first_record_at(logrep_log *log, lr_segment *s, uint64_t pos,
                                  const logrep_batch_header *h, int64_t ts, int64_t *offset,
                                  int64_t *found)
{
    size_t size = (size_t)h->batch_length + LOGREP_LOG_OVERHEAD;
    uint8_t *buf = lr_malloc(&log->alloc, size);
    if (!buf)
        return LOGREP_ERR__NOMEM;
    size_t n;
    logrep_err err = log->st->read(log->st->ctx, s->log, pos, buf, size, &n);
    if (!err && n != size)
        err = LOGREP_ERR__CORRUPT;
    logrep_conf *conf = NULL;
    logrep_batch_reader *r = NULL;
    if (!err && (!(conf = logrep_conf_new()) || logrep_conf_set_allocator(conf, &log->alloc) ||
                 logrep_batch_reader_new(conf, &r)))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = logrep_batch_reader_open(r, buf, size, NULL);
    logrep_record rec;
    while (!err && (err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
        if (rec.timestamp >= ts) {
            *offset = rec.offset;
            *found = rec.timestamp;
            break;
        }
    }
    if (err == LOGREP_ERR__END)
        err = LOGREP_ERR__NOENT;
    logrep_batch_reader_free(r);
    logrep_conf_free(conf);
    lr_free(&log->alloc, buf, size);
    return err == LOGREP_ERR__LIMIT || err == LOGREP_ERR__COMPRESSION ? LOGREP_ERR__CORRUPT : err;
}

LOGREP_API logrep_err logrep_log_offset_for_time(logrep_log *log, int64_t ts, int64_t *offset,
                                                 int64_t *found_ts)
{
    if (!log || !offset)
        return LOGREP_ERR__INVALID_ARG;
    int64_t dummy;
    if (!found_ts)
        found_ts = &dummy;
    *found_ts = -1;
    if (ts == LOGREP_OFFSET_LATEST) {
        *offset = log->leo;
        return LOGREP_OK;
    }
    if (ts == LOGREP_OFFSET_EARLIEST) {
        *offset = log->log_start;
        return LOGREP_OK;
    }
    if (ts == LOGREP_OFFSET_MAX_TIMESTAMP) {
        int64_t best = -1, best_off = -1;
        for (size_t i = 0; i < log->nsegs; i++)
            if (log->segs[i].max_ts > best) {
                best = log->segs[i].max_ts;
                best_off = log->segs[i].max_ts_offset;
            }
        if (best_off < 0)
            return LOGREP_ERR__NOENT;
        /* The record carrying it is in the batch ending at best_off. */
        logrep_err err = logrep_log_offset_for_time(log, best, offset, found_ts);
        return err;
    }
    if (ts < 0)
        return LOGREP_ERR__INVALID_ARG;
    for (size_t i = 0; i < log->nsegs; i++) {
        lr_segment *s = &log->segs[i];
        if (s->max_ts < ts)
            continue;
        int64_t from;
        uint64_t pos;
        logrep_batch_header h;
        logrep_err err = lr_ti_lookup(log, s, ts, &from);
        if (!err)
            err = lr_seg_find(log, s, from < log->log_start ? log->log_start : from, &pos, &h);
        while (!err) {
            if (h.max_timestamp >= ts) {
                err = first_record_at(log, s, pos, &h, ts, offset, found_ts);
                if (err != LOGREP_ERR__NOENT)
                    break;
            }
            pos += (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
            err = lr_seg_header(log, s, pos, &h);
        }
        if (!err && *offset < log->log_start)
            *offset = log->log_start;
        if (err != LOGREP_ERR__END && err != LOGREP_ERR__NOENT)
            return err;
    }
    return LOGREP_ERR__NOENT;
}
