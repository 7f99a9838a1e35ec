/* The partition log: append, read, truncate, roll, retention, flush. */
#include <stdio.h>
#include <string.h>

#include "base/conf.h"
#include "base/endian.h"
#include "codec/batch.h"
#include "log/log_int.h"

void lr_log_seg_path(const logrep_log *log, int64_t base, const char *suffix, char *buf)
{
    snprintf(buf, LR_PATH_MAX, "%s/%020lld%s", log->dir, (long long)base, suffix);
}

void lr_log_path(const logrep_log *log, const char *name, char *buf)
{
    snprintf(buf, LR_PATH_MAX, "%s/%s", log->dir, name);
}

logrep_err lr_log_io(logrep_log *log, logrep_err err)
{
    if (err && log->st->last_errno)
        log->last_errno = log->st->last_errno(log->st->ctx);
    return err;
}

static lr_segment *active(logrep_log *log)
{
    return &log->segs[log->nsegs - 1];
}

/* topic and partition from the directory's last component "topic-N". */
static logrep_err parse_dir_name(logrep_log *log)
{
    const char *name = strrchr(log->dir, '/');
    name = name ? name + 1 : log->dir;
    const char *dash = strrchr(name, '-');
    int64_t part = -1;
    if (dash && dash > name && dash[1]) {
        part = 0;
        for (const char *p = dash + 1; *p && part >= 0; p++)
            part = (*p >= '0' && *p <= '9' && part < 100000000) ? part * 10 + (*p - '0') : -1;
    }
    size_t tlen = part >= 0 ? (size_t)(dash - name) : strlen(name);
    if (!tlen)
        tlen = strlen(name), part = -1;
    log->topic = lr_malloc(&log->alloc, tlen + 1);
    if (!log->topic)
        return LOGREP_ERR__NOMEM;
    memcpy(log->topic, name, tlen);
    log->topic[tlen] = 0;
    log->partition = part >= 0 ? (int32_t)part : 0;
    return LOGREP_OK;
}

static logrep_err read_conf(logrep_log *log, const logrep_conf *conf)
{
    lr_clean_conf cc;
    logrep_err err = lr_clean_conf_read(conf, &cc);
    if (err)
        return err;
    log->cc = cc;
    log->seg_bytes = lr_conf_int(conf, LR_CONF_SEGMENT_BYTES);
    log->seg_ms = lr_conf_int(conf, LR_CONF_SEGMENT_MS);
    log->seg_jitter_ms = lr_conf_int(conf, LR_CONF_SEGMENT_JITTER_MS);
    log->idx_interval = lr_conf_int(conf, LR_CONF_INDEX_INTERVAL_BYTES);
    int64_t ib = lr_conf_int(conf, LR_CONF_SEGMENT_INDEX_BYTES);
    log->oi_max = (uint32_t)(ib / LR_OI_ENTRY);
    log->ti_max = (uint32_t)(ib / LR_TI_ENTRY);
    if (log->oi_max < 1)
        log->oi_max = 1;
    if (log->ti_max < 2)
        log->ti_max = 2;
    log->retention_bytes = lr_conf_int(conf, LR_CONF_RETENTION_BYTES);
    log->retention_ms = lr_conf_int(conf, LR_CONF_RETENTION_MS);
    log->flush_messages = lr_conf_int(conf, LR_CONF_FLUSH_MESSAGES);
    log->flush_ms = lr_conf_int(conf, LR_CONF_FLUSH_MS);
    log->max_message_bytes = lr_conf_int(conf, LR_CONF_MAX_MESSAGE_BYTES);
    log->pid_expiration_ms = lr_conf_int(conf, LR_CONF_PRODUCER_ID_EXPIRATION_MS);
    log->ckpt_interval_ms = lr_conf_int(conf, LR_CONF_LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS);
    log->log_append_time = strcmp(lr_conf_str(conf, LR_CONF_MESSAGE_TIMESTAMP_TYPE),
                                  "LogAppendTime") == 0;
    return LOGREP_OK;
}

static void log_free(logrep_log *log)
{
    lr_clean_release(log, 0);
    for (size_t i = 0; i < log->nsegs; i++)
        lr_seg_close_files(log, &log->segs[i]);
    if (log->segs)
        lr_free(&log->alloc, log->segs, log->segs_cap * sizeof *log->segs);
    lr_epoch_cache_free(&log->ec, &log->alloc);
    lr_pstate_free(&log->ps, &log->alloc);
    lr_strfree(&log->alloc, log->dir);
    lr_strfree(&log->alloc, log->topic);
    logrep_batch_reader_free(log->rd);
    lr_alloc a = log->alloc;
    lr_free(&a, log, sizeof *log);
}

LOGREP_API logrep_err logrep_log_reconfigure(logrep_log *log, const logrep_conf *conf)
{
    if (!log || !conf)
        return LOGREP_ERR__INVALID_ARG;
    return read_conf(log, conf);
}

LOGREP_API logrep_err logrep_log_open(const logrep_conf *conf, const logrep_storage *st,
                                      const char *dir, int64_t now_ms, logrep_log **out)
{
    if (!st || !dir || !*dir || !out || strlen(dir) > LR_PATH_MAX - 64)
        return LOGREP_ERR__INVALID_ARG;
    if (st->version < 1 || !st->open || !st->close || !st->read || !st->write || !st->sync ||
        !st->size || !st->truncate || !st->rename || !st->remove || !st->list || !st->mkdir)
        return LOGREP_ERR__UNSUPPORTED;
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_log *log = lr_calloc(a, 1, sizeof *log);
    if (!log)
        return LOGREP_ERR__NOMEM;
    log->alloc = *a;
    log->logger = lr_conf_log(conf);
    log->st = st;
    log->clean_first_dirty = -1;
    if (read_conf(log, conf)) {
        lr_free(a, log, sizeof *log);
        return LOGREP_ERR__INVALID_ARG;
    }
    log->first_unflushed_ms = -1;
    log->fail_log_ms = -1;
    log->last_ckpt_ms = now_ms;
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    log->dir = lr_malloc(&log->alloc, dl + 1);
    if (!log->dir) {
        lr_free(&log->alloc, log, sizeof *log);
        return LOGREP_ERR__NOMEM;
    }
    memcpy(log->dir, dir, dl);
    log->dir[dl] = 0;
    logrep_err err = parse_dir_name(log);
    if (!err)
        err = logrep_batch_reader_new(conf, &log->rd);
    if (!err) {
        err = st->mkdir(st->ctx, log->dir);
        if (err == LOGREP_ERR__EXISTS)
            err = LOGREP_OK;
        else if (!err && st->sync_dir) {
            /* Make the new directory's entry durable in its parent. */
            char parent[LR_PATH_MAX];
            const char *slash = strrchr(log->dir, '/');
            if (slash && slash != log->dir) {
                memcpy(parent, log->dir, (size_t)(slash - log->dir));
                parent[slash - log->dir] = 0;
                /* On failure the empty directory goes again, so a retry
                 * creates it and syncs its entry instead of finding it. */
                if ((err = st->sync_dir(st->ctx, parent)) != 0)
                    st->remove(st->ctx, log->dir);
            }
        }
        err = lr_log_io(log, err);
    }
    if (!err)
        err = lr_log_load(log, now_ms);
    if (err) {
        log_free(log);
        return err;
    }
    *out = log;
    return LOGREP_OK;
}

LOGREP_API void logrep_log_abandon(logrep_log *log)
{
    if (log)
        log_free(log);
}

LOGREP_API const logrep_log_recovery *logrep_log_recovery_info(const logrep_log *log)
{
    return log ? &log->rec : NULL;
}

LOGREP_API int logrep_log_os_errno(const logrep_log *log)
{
    return log ? log->last_errno : 0;
}

LOGREP_API int64_t logrep_log_append_errors(const logrep_log *log, int *failing)
{
    if (failing)
        *failing = log ? log->append_failing : 0;
    return log ? log->append_errors : 0;
}

LOGREP_API int64_t logrep_log_start_offset(const logrep_log *log)
{
    return log->log_start;
}

LOGREP_API int64_t logrep_log_end_offset(const logrep_log *log)
{
    return log->leo;
}

LOGREP_API int64_t logrep_log_recovery_point(const logrep_log *log)
{
    return log->recovery_point;
}

LOGREP_API uint64_t logrep_log_size(const logrep_log *log)
{
    uint64_t n = 0;
    for (size_t i = 0; i < log->nsegs; i++)
        n += log->segs[i].size;
    return n;
}

LOGREP_API int32_t logrep_log_segment_count(const logrep_log *log)
{
    return (int32_t)log->nsegs;
}

/* ---- flush and checkpoints ---- */

LOGREP_API logrep_err logrep_log_flush(logrep_log *log, int64_t now_ms)
{
    (void)now_ms;
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    for (size_t i = 0; i < log->nsegs; i++) {
        logrep_err err = lr_seg_sync(log, &log->segs[i]);
        if (err)
            return err;
    }
    if (log->dir_dirty && log->st->sync_dir) {
        logrep_err err = log->st->sync_dir(log->st->ctx, log->dir);
        if (err)
            return lr_log_io(log, err);
    }
    log->dir_dirty = 0;
    /* Recovery re-derives epochs only above the recovery point. */
    if (log->ec_dirty) {
        logrep_err err = lr_log_write_epochs(log);
        if (err)
            return err;
    }
    log->recovery_point = log->leo;
    log->unflushed_msgs = 0;
    log->first_unflushed_ms = -1;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_checkpoint(logrep_log *log)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    char buf[LR_PATH_MAX + 64];
    size_t n = lr_ckpt_format_offset(log->topic, log->partition, log->recovery_point, buf,
                                     sizeof buf);
    logrep_err err = lr_file_replace(log->st, log->dir, "recovery-point-offset-checkpoint", buf, n);
    if (!err) {
        n = lr_ckpt_format_offset(log->topic, log->partition, log->log_start, buf, sizeof buf);
        err = lr_file_replace(log->st, log->dir, "log-start-offset-checkpoint", buf, n);
    }
    return lr_log_io(log, err);
}

LOGREP_API logrep_err logrep_log_tick(logrep_log *log, int64_t now_ms, int64_t *next_ms)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    logrep_err err = LOGREP_OK;
    if (now_ms > INT64_MIN + log->pid_expiration_ms)
        lr_pstate_expire(&log->ps, now_ms - log->pid_expiration_ms);
    /* A failure is retried a period later, not on every tick. */
    if (log->first_unflushed_ms >= 0 && now_ms - log->first_unflushed_ms >= log->flush_ms &&
        (err = logrep_log_flush(log, now_ms)) != 0)
        log->first_unflushed_ms = now_ms;
    if (!err && now_ms - log->last_ckpt_ms >= log->ckpt_interval_ms) {
        err = logrep_log_checkpoint(log);
        log->last_ckpt_ms = now_ms;
    }
    if (next_ms) {
        int64_t next = log->last_ckpt_ms + log->ckpt_interval_ms;
        /* flush.ms defaults to INT64_MAX: compare without overflowing. */
        if (log->first_unflushed_ms >= 0 && log->flush_ms < next - log->first_unflushed_ms)
            next = log->first_unflushed_ms + log->flush_ms;
        *next_ms = next;
    }
    return err;
}

/* ---- roll ---- */

static logrep_err roll_at(logrep_log *log, int64_t base, int64_t now_ms)
{
    lr_segment *s = active(log);
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
    if (active(log)->size == 0)
        return LOGREP_OK;
    return roll_at(log, log->leo, now_ms);
}

/* Kafka's LogSegment.shouldRoll for an append of len bytes. */
static int should_roll(logrep_log *log, uint64_t len, int64_t max_ts, int64_t last_offset,
                       int64_t now_ms)
{
    lr_segment *s = active(log);
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
        LR_LOG(&log->logger, LOGREP_LOG_ERROR, "log",
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
    lr_segment *s = active(log);
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
    LR_LOG(&log->logger, LOGREP_LOG_ERROR, "log",
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
        LR_LOG(&log->logger, LOGREP_LOG_INFO, "log",
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

/* ---- truncation and log start ---- */

static logrep_err set_epochs_end(logrep_log *log, int64_t end)
{
    return lr_epoch_cache_truncate_end(&log->ec, end) || log->ec_dirty ? lr_log_write_epochs(log)
                                                                       : LOGREP_OK;
}

static logrep_err remove_segment(logrep_log *log, size_t i)
{
    lr_clean_touch(log, log->segs[i].base);
    logrep_err err = lr_seg_delete_files(log, &log->segs[i]);
    memmove(&log->segs[i], &log->segs[i + 1], (log->nsegs - i - 1) * sizeof *log->segs);
    log->nsegs--;
    return err;
}

LOGREP_API logrep_err logrep_log_truncate(logrep_log *log, int64_t offset)
{
    if (!log || offset < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return log->failed;
    logrep_err err = LOGREP_OK;
    if (offset >= log->leo)
        return set_epochs_end(log, offset);
    lr_clean_touch(log, offset);
    if (log->clean_first_dirty > offset) {
        /* What is written from there on is dirty (Kafka's
         * maybeTruncateCheckpoint); a crash before this write only leaves
         * those records uncompared with older ones until a later pass. */
        log->clean_first_dirty = offset;
        if ((err = lr_clean_checkpoint(log)))
            return err;
    }
    if (offset <= log->log_start) {
        while (log->nsegs && !err)
            err = remove_segment(log, log->nsegs - 1);
        if (!err)
            err = lr_log_new_segment(log, offset, -1);
        if (err) {
            log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
            return err;
        }
        log->log_start = log->leo = log->recovery_point = offset;
        lr_epoch_cache_truncate_end(&log->ec, 0);
        lr_pstate_clear(&log->ps);
        if (!(err = lr_log_write_epochs(log)))
            err = logrep_log_checkpoint(log);
        return err;
    }
    while (log->nsegs > 1 && active(log)->base >= offset && !err)
        err = remove_segment(log, log->nsegs - 1);
    lr_segment *s = active(log);
    uint64_t pos;
    logrep_batch_header h;
    if (!err) {
        err = lr_seg_find(log, s, offset, &pos, &h);
        if (!err)
            err = lr_seg_truncate_at(log, s, pos, h.base_offset);
        else if (err == LOGREP_ERR__END)
            err = LOGREP_OK;
    }
    if (err) {
        log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
        return err;
    }
    log->leo = s->next_offset;
    if (log->recovery_point > log->leo)
        log->recovery_point = log->leo;
    /* The cut must be durable before anything that depends on it (the
     * epoch checkpoint, new appends): a crash must not bring the cut
     * batches back under an epoch cache that says otherwise. */
    if ((err = lr_seg_sync(log, s))) {
        log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
        return err;
    }
    if ((err = set_epochs_end(log, log->leo)))
        return err;
    /* The producer state was cleared for the rebuild: without it the log
     * would take duplicates and wrong sequences, so it stops until reopened. */
    if ((err = lr_log_rebuild_producers(log, INT64_MIN / 2)))
        log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
    return err;
}

LOGREP_API logrep_err logrep_log_advance_start(logrep_log *log, int64_t offset)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return log->failed;
    if (offset <= log->log_start)
        return LOGREP_OK;
    if (offset > log->leo)
        return LOGREP_ERR_OFFSET_OUT_OF_RANGE;
    log->log_start = offset;
    logrep_err err = LOGREP_OK;
    while (log->nsegs > 1 && log->segs[1].base <= offset && !err)
        err = remove_segment(log, 0);
    if (!err && lr_epoch_cache_truncate_start(&log->ec, offset))
        err = lr_log_write_epochs(log);
    if (!err)
        err = logrep_log_checkpoint(log);
    return err;
}

LOGREP_API logrep_err logrep_log_retention(logrep_log *log, int64_t now_ms, int32_t *deleted)
{
    return logrep_log_retention_upto(log, now_ms, INT64_MAX, deleted);
}

LOGREP_API logrep_err logrep_log_retention_upto(logrep_log *log, int64_t now_ms, int64_t limit,
                                                int32_t *deleted)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    if (deleted)
        *deleted = 0;
    if (log->failed)
        return log->failed;
    uint64_t total = logrep_log_size(log);
    logrep_err err = LOGREP_OK;
    int32_t n = 0;
    while (log->nsegs > 1 && !err) {
        lr_segment *s = &log->segs[0];
        int by_time = log->cc.del && log->retention_ms >= 0 && s->max_ts >= 0 &&
                      now_ms - s->max_ts > log->retention_ms;
        int by_size = log->cc.del && log->retention_bytes >= 0 &&
                      total - s->size >= (uint64_t)log->retention_bytes &&
                      total > (uint64_t)log->retention_bytes;
        int by_start = log->segs[1].base <= log->log_start;
        /* Kafka deletes only below the high watermark: the log start
         * must never pass what consumers may read. */
        if ((!by_time && !by_size && !by_start) || log->segs[1].base > limit)
            break;
        total -= s->size;
        err = remove_segment(log, 0);
        n++;
    }
    if (n && log->segs[0].base > log->log_start) {
        log->log_start = log->segs[0].base;
        if (!err && lr_epoch_cache_truncate_start(&log->ec, log->log_start))
            err = lr_log_write_epochs(log);
        if (!err)
            err = logrep_log_checkpoint(log);
    }
    if (deleted)
        *deleted = n;
    return err;
}

/* ---- epochs, topic id ---- */

LOGREP_API logrep_err logrep_log_epoch_assign(logrep_log *log, int32_t epoch, int64_t start)
{
    if (!log || epoch < 0 || start < 0)
        return LOGREP_ERR__INVALID_ARG;
    int changed;
    lr_epoch_undo undo;
    logrep_err err =
        lr_epoch_cache_assign_undo(&log->ec, &log->alloc, epoch, start, &changed, &undo);
    if (!err && (changed || log->ec_dirty))
        err = lr_log_write_epochs(log);
    /* Not durable, so not assigned: a leader whose epoch could not be
     * written never leads in it, and the cache must not claim it. The
     * next write (ec_dirty) writes the cache as it is. */
    if (err && changed)
        lr_epoch_cache_undo(&log->ec, &undo);
    return err;
}

LOGREP_API void logrep_log_epoch_end_offset(const logrep_log *log, int32_t epoch,
                                            int32_t *out_epoch, int64_t *out_offset)
{
    lr_epoch_cache_end_offset(&log->ec, epoch, log->leo, out_epoch, out_offset);
}

LOGREP_API int32_t logrep_log_latest_epoch(const logrep_log *log)
{
    return lr_epoch_cache_latest(&log->ec);
}

LOGREP_API logrep_err logrep_log_epoch_entry(const logrep_log *log, size_t i, int32_t *epoch,
                                             int64_t *start)
{
    if (!log || !epoch || !start)
        return LOGREP_ERR__INVALID_ARG;
    if (i >= log->ec.n)
        return LOGREP_ERR__END;
    *epoch = log->ec.v[i].epoch;
    *start = log->ec.v[i].start;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_set_topic_id(logrep_log *log, const uint8_t id[16])
{
    if (!log || !id)
        return LOGREP_ERR__INVALID_ARG;
    int nonzero = 0;
    for (int i = 0; i < 16; i++)
        nonzero |= id[i];
    if (!nonzero)
        return LOGREP_ERR__INVALID_ARG;
    char buf[64];
    size_t n = lr_partition_metadata_format(id, buf, sizeof buf);
    logrep_err err = lr_file_replace(log->st, log->dir, "partition.metadata", buf, n);
    if (err)
        return lr_log_io(log, err);
    memcpy(log->topic_id, id, 16);
    log->has_topic_id = 1;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_topic_id(const logrep_log *log, uint8_t id[16])
{
    if (!log || !id)
        return LOGREP_ERR__INVALID_ARG;
    if (!log->has_topic_id)
        return LOGREP_ERR__NOENT;
    memcpy(id, log->topic_id, 16);
    return LOGREP_OK;
}

/* ---- close ---- */

LOGREP_API logrep_err logrep_log_close(logrep_log *log)
{
    if (!log)
        return LOGREP_OK;
    logrep_err err = log->failed;
    lr_clean_release(log, 1);
    if (!err) {
        lr_segment *s = active(log);
        int64_t before = s->ti.entries;
        err = lr_seg_final_time_entry(log, s);
        if (s->ti.entries != before)
            s->dirty = 1;
    }
    if (!err)
        err = logrep_log_flush(log, 0);
    if (!err && log->ps.n)
        err = lr_log_write_snapshot(log, log->leo);
    if (!err)
        err = logrep_log_checkpoint(log);
    /* Callers freeing a node or partition cannot pass this on: say it. */
    if (err && err != log->failed)
        LR_LOG(&log->logger, LOGREP_LOG_ERROR, "log", "%s: close: %s (errno %d)", log->dir,
               logrep_err_name(err), log->last_errno);
    log_free(log);
    return err;
}
