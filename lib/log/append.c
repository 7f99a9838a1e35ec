/* Appends to the partition log, leader and follower, and the segment
 * rolls they make (Kafka's Log.append, LogValidator, LogSegment.shouldRoll). */
#include <string.h>

#include "base/endian.h"
#include "codec/batch.h"
#include "log/log_int.h"

/* ---- roll ---- */

static logrep_err roll_at(logrep_log *log, int64_t base, int64_t now_ms)
{
    lr_segment *s = lr_log_active(log);
    logrep_err err = lr_seg_final_time_entry(log, s);
    if (!err) {
        s->dirty = 1;
        err = logrep_log_flush(log, now_ms);
    }
    if (err)
        return err;
    /* The old segment stays open until the new one exists: a roll that
     * cannot create files (full disk) leaves the log as it was, readable,
     * and the next append tries the roll again. */
    size_t old = log->nsegs - 1;
    if ((err = lr_log_new_segment(log, base, now_ms)))
        return err;
    lr_seg_close_files(log, &log->segs[old]);
    if (log->ps.n && (err = lr_log_write_snapshot(log, base)))
        return err;
    return log->st->sync_dir ? lr_log_io(log, log->st->sync_dir(log->st->ctx, log->dir))
                             : LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_roll(logrep_log *log, int64_t now_ms)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return log->failed;
    if (lr_log_active(log)->size == 0)
        return LOGREP_OK;
    return roll_at(log, log->leo, now_ms);
}

/* Kafka's LogSegment.shouldRoll for an append of len bytes. */
static int should_roll(logrep_log *log, uint64_t len, int64_t max_ts, int64_t last_offset,
                       int64_t now_ms)
{
    lr_segment *s = lr_log_active(log);
    if (last_offset - s->base > INT32_MAX)
        return 1;
    if (s->size == 0)
        return 0;
    if (s->size > (uint64_t)log->seg_bytes - len)
        return 1;
    int64_t waited = s->roll_ts >= 0 ? max_ts - s->roll_ts : now_ms - s->created_ms;
    /* Kafka's LogConfig.maxSegmentMs: a compacted log's records wait at
     * most max.compaction.lag.ms in the active segment. */
    int64_t seg_ms = log->seg_ms;
    if (log->cc.compact && log->cc.max_lag_ms < seg_ms)
        seg_ms = log->cc.max_lag_ms;
    if (waited > seg_ms - log->seg_jitter_ms)
        return 1;
    return s->oi.entries >= log->oi_max || s->ti.entries + 1 >= log->ti_max;
}

/* ---- append ---- */

typedef struct batch_scan {
    int64_t max_ts, last_offset;
    int32_t batches, records;
} batch_scan;

static logrep_err map_verify_err(logrep_err err)
{
    if (err == LOGREP_ERR__UNSUPPORTED)
        return LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
    return LOGREP_ERR_CORRUPT_MESSAGE;
}

/* Kafka's setMaxTimestamp: LogAppendTime always stamps now and sets the
 * type bit; CreateTime corrects a max that disagrees with the records.
 * Either change is covered by the CRC, so it is recomputed. */
static void restamp_time(uint8_t *p, size_t size, int log_append_time, int64_t now_ms,
                         int64_t rec_max, logrep_batch_header *h)
{
    int16_t attr = h->attributes;
    int64_t ts = rec_max;
    if (log_append_time) {
        attr = (int16_t)(attr | LOGREP_ATTR_LOG_APPEND_TIME);
        ts = now_ms;
    } else if (attr & LOGREP_ATTR_LOG_APPEND_TIME) {
        attr = (int16_t)(attr & ~LOGREP_ATTR_LOG_APPEND_TIME);
    }
    if (attr == h->attributes && ts == h->max_timestamp)
        return;
    lr_put_be16(p + LR_B_ATTRIBUTES, (uint16_t)attr);
    lr_put_be64(p + LR_B_MAX_TIMESTAMP, (uint64_t)ts);
    lr_put_be32(p + LR_B_CRC,
                logrep_crc32c(0, p + LOGREP_BATCH_CRC_START, size - LOGREP_BATCH_CRC_START));
    h->attributes = attr;
    h->max_timestamp = ts;
}

/* Verifies every batch of buf. With `stamp`, assigns offsets from the log
 * end in `epoch`; else checks the offsets already there. */
static logrep_err validate(logrep_log *log, uint8_t *wbuf, const uint8_t *buf, size_t len,
                           int32_t epoch, int64_t now_ms, batch_scan *bs)
{
    size_t pos = 0;
    int64_t next = log->leo, prev_last = log->leo - 1;
    bs->max_ts = -1;
    bs->batches = bs->records = 0;
    if ((uint64_t)len > (uint64_t)log->seg_bytes)
        return LOGREP_ERR_RECORD_LIST_TOO_LARGE;
    while (pos < len) {
        size_t size;
        logrep_err err = logrep_batch_verify(buf + pos, len - pos, &size);
        if (err)
            return map_verify_err(err);
        if ((int64_t)size > log->max_message_bytes)
            return LOGREP_ERR_MESSAGE_TOO_LARGE;
        logrep_batch_header h;
        lr_batch_header_decode(buf + pos, &h);
        /* A compacted leader's batches may hold fewer records than
         * offsets, even none (docs/storage.md, Compaction): a follower
         * takes them as they are. */
        if (wbuf ? h.record_count <= 0 || h.last_offset_delta != h.record_count - 1
                 : h.record_count < 0 || h.last_offset_delta < 0 ||
                       (int64_t)h.record_count > (int64_t)h.last_offset_delta + 1)
            return LOGREP_ERR_INVALID_RECORD;
        if (wbuf) {
            if (next > INT64_MAX - h.record_count)
                return LOGREP_ERR_INVALID_RECORD;
            /* LogValidator: every record is read before anything is
             * written, so a corrupt inside never reaches a replica. */
            int64_t rec_max;
            if ((err = lr_batch_reader_check_keys(log->rd, buf + pos, size, &rec_max,
                                                  log->cc.compact)))
                return err;
            logrep_batch_stamp(wbuf + pos, size, next, epoch);
            restamp_time(wbuf + pos, size, log->log_append_time, now_ms, rec_max, &h);
            h.base_offset = next;
        } else if (h.base_offset <= prev_last || h.base_offset < log->leo) {
            return LOGREP_ERR_OFFSET_OUT_OF_RANGE;
        }
        prev_last = logrep_batch_last_offset(&h);
        if (prev_last - h.base_offset != h.last_offset_delta)
            return LOGREP_ERR_INVALID_RECORD; /* overflowed */
        next = prev_last + 1;
        if (h.max_timestamp > bs->max_ts)
            bs->max_ts = h.max_timestamp;
        bs->batches++;
        bs->records += h.record_count;
        pos += size;
    }
    bs->last_offset = prev_last;
    return bs->batches ? LOGREP_OK : LOGREP_ERR__INVALID_ARG;
}

/* Undo of a failed write: cut the segment back; when even that fails the
 * log refuses further changes until reopened. */
static void rollback(logrep_log *log, lr_segment *s, uint64_t size, int64_t first_offset)
{
    if (lr_seg_truncate_at(log, s, size, first_offset) != LOGREP_OK) {
        LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log",
               "%s: cannot undo a failed append; log is read-only until reopened", log->dir);
        log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
    }
    lr_epoch_cache_truncate_end(&log->ec, log->leo);
}

static logrep_err write_batches(logrep_log *log, const uint8_t *buf, size_t len,
                                const batch_scan *bs, int64_t now_ms)
{
    logrep_err err = LOGREP_OK;
    int64_t first = log->leo;
    if (should_roll(log, len, bs->max_ts, bs->last_offset, now_ms)) {
        logrep_batch_header h0;
        lr_batch_header_decode(buf, &h0);
        if ((err = roll_at(log, h0.base_offset, now_ms)))
            return err;
    }
    /* Room for every new producer first: once written, the batches must
     * reach the producer state, or it would take their duplicates. */
    size_t new_pids = 0;
    for (size_t pos = 0; pos < len;) {
        logrep_batch_header h;
        lr_batch_header_decode(buf + pos, &h);
        new_pids += h.producer_id >= 0 && !lr_pstate_find(&log->ps, h.producer_id);
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    if ((err = lr_pstate_reserve(&log->ps, &log->alloc, new_pids)))
        return err;
    lr_segment *s = lr_log_active(log);
    uint64_t pos0 = s->size;
    if (s->created_ms < 0)
        s->created_ms = now_ms;
    if ((err = lr_seg_open_log(log, s, 0)))
        return err;
    s->dirty = 1;
    if ((err = log->st->write(log->st->ctx, s->log, pos0, buf, len))) {
        err = lr_log_io(log, err);
        rollback(log, s, pos0, first);
        return err;
    }
    s->size = pos0 + len;
    size_t pos = 0;
    while (pos < len) {
        logrep_batch_header h;
        lr_batch_header_decode(buf + pos, &h);
        uint64_t size = (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        if ((err = lr_seg_index_batch(log, s, pos0 + pos, &h, size)))
            break;
        pos += (size_t)size;
    }
    if (err) {
        rollback(log, s, pos0, first);
        return err;
    }
    for (pos = 0; pos < len;) {
        logrep_batch_header h;
        lr_batch_header_decode(buf + pos, &h);
        lr_pstate_update(&log->ps, &log->alloc, &h); /* cannot fail: reserved */
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    s->next_offset = bs->last_offset + 1;
    log->leo = bs->last_offset + 1;
    log->unflushed_msgs += bs->records;
    if (log->first_unflushed_ms < 0)
        log->first_unflushed_ms = now_ms;
    if (log->unflushed_msgs >= log->flush_messages)
        return logrep_log_flush(log, now_ms);
    return LOGREP_OK;
}

static void fill_info(const logrep_log *log, int64_t first, const batch_scan *bs, int64_t now_ms,
                      logrep_log_append_info *info)
{
    if (!info)
        return;
    info->first_offset = first;
    info->last_offset = bs->last_offset;
    info->max_timestamp = bs->max_ts;
    info->log_append_time = log->log_append_time ? now_ms : -1;
    info->batches = bs->batches;
    info->records = bs->records;
}

/* Adds epoch-cache entries for batches of newer epochs and flushes the
 * checkpoint when anything changed. */
static logrep_err note_epochs(logrep_log *log, const uint8_t *buf, size_t len)
{
    int any = 0;
    for (size_t pos = 0; pos < len;) {
        logrep_batch_header h;
        lr_batch_header_decode(buf + pos, &h);
        if (h.partition_leader_epoch >= 0 &&
            h.partition_leader_epoch > lr_epoch_cache_latest(&log->ec)) {
            int changed;
            logrep_err err = lr_epoch_cache_assign(&log->ec, &log->alloc,
                                                   h.partition_leader_epoch, h.base_offset,
                                                   &changed);
            if (err)
                return err;
            any |= changed;
        }
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    return any || log->ec_dirty ? lr_log_write_epochs(log) : LOGREP_OK;
}

/* Episodes closer than this share one pair of log lines: on a nearly full
 * disk small batches fit and large ones fail, turn about. */
#define APPEND_FAIL_LOG_MS 10000

/* A storage failure of an append: counted always, logged once per
 * episode (a full disk fails every append until space is freed). */
static logrep_err append_failed(logrep_log *log, logrep_err err, size_t len, int64_t now_ms)
{
    if (err == LOGREP_ERR__NOMEM || (err >= 0 && err != LOGREP_ERR_KAFKA_STORAGE_ERROR))
        return err;
    log->append_errors++;
    if (log->append_failing)
        return err;
    log->append_failing = 1;
    if (log->fail_log_ms >= 0 && now_ms - log->fail_log_ms < APPEND_FAIL_LOG_MS)
        return err;
    int e = log->last_errno;
    LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log",
           "%s: append of %zu bytes at offset %lld failed: %s (errno %d: %s); appends are "
           "retried as they come, further failures counted until one succeeds",
           log->dir, len, (long long)log->leo, logrep_err_str(err), e, e ? strerror(e) : "none");
    log->fail_log_ms = now_ms;
    log->fail_logged = 1;
    return err;
}

static void append_succeeded(logrep_log *log, int64_t first)
{
    if (log->fail_logged)
        LR_LOG(&log->logger, LOGREP_LEVEL_INFO, "log",
               "%s: appends succeed again at offset %lld (%lld failed since open)", log->dir,
               (long long)first, (long long)log->append_errors);
    log->append_failing = 0;
    log->fail_logged = 0;
}

static logrep_err append_common(logrep_log *log, const uint8_t *buf, size_t len,
                                const batch_scan *bs, int64_t now_ms, logrep_log_append_info *info)
{
    int64_t first = log->leo;
    logrep_err err = note_epochs(log, buf, len);
    if (err) {
        lr_epoch_cache_truncate_end(&log->ec, log->leo);
        return append_failed(log, err, len, now_ms);
    }
    if ((err = write_batches(log, buf, len, bs, now_ms)))
        return append_failed(log, err, len, now_ms);
    if (log->append_failing)
        append_succeeded(log, first);
    logrep_batch_header h0;
    lr_batch_header_decode(buf, &h0);
    fill_info(log, h0.base_offset < first ? first : h0.base_offset, bs, now_ms, info);
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_append_leader(logrep_log *log, void *buf, size_t len,
                                               int32_t leader_epoch, int64_t now_ms,
                                               logrep_log_append_info *info)
{
    if (!log || !buf || !len || leader_epoch < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return append_failed(log, log->failed, len, now_ms);
    batch_scan bs;
    logrep_err err = validate(log, buf, buf, len, leader_epoch, now_ms, &bs);
    if (err)
        return err;
    return append_common(log, buf, len, &bs, now_ms, info);
}

LOGREP_API logrep_err logrep_log_append_follower(logrep_log *log, const void *buf, size_t len,
                                                 int64_t now_ms, logrep_log_append_info *info)
{
    if (!log || !buf || !len)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return append_failed(log, log->failed, len, now_ms);
    batch_scan bs;
    logrep_err err = validate(log, NULL, buf, len, -1, now_ms, &bs);
    if (err)
        return err;
    return append_common(log, buf, len, &bs, now_ms, info);
}
