/* Removing data from the partition log: truncation at the end, the log
 * start moved up, retention by time, size and log start. */
#include <string.h>

#include "log/log_int.h"

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

/* A storage error left the segment list part-way: the log refuses every
 * change until reopened (recovery decides), and keeps one segment for the
 * readers' sake. */
static logrep_err restart_failed(logrep_log *log, logrep_err err, int64_t offset)
{
    log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
    if (!log->nsegs) {
        lr_seg_init(&log->segs[0], offset, -1);
        log->nsegs = 1;
        log->leo = log->log_start = log->recovery_point = offset;
    }
    return err;
}

/* Cuts every batch at or above offset, newest segments first, and syncs
 * the cut: as logrep_log_truncate does, the batch holding offset whole. */
static logrep_err cut_from(logrep_log *log, int64_t offset)
{
    logrep_err err = LOGREP_OK;
    while (log->nsegs && lr_log_active(log)->base >= offset && !err)
        err = remove_segment(log, log->nsegs - 1);
    if (err || !log->nsegs || lr_log_active(log)->next_offset <= offset)
        return err;
    lr_segment *s = lr_log_active(log);
    uint64_t pos;
    logrep_batch_header h;
    err = lr_seg_find(log, s, offset, &pos, &h);
    if (!err)
        err = lr_seg_truncate_at(log, s, pos, h.base_offset);
    else if (err == LOGREP_ERR__END)
        err = LOGREP_OK;
    if (!err)
        err = lr_seg_sync(log, s);
    return err;
}

/* The log emptied and started again at offset. The order makes it
 * crash-safe (log.h): data at or above offset is cut first; then the
 * log-start checkpoint names offset, the commit point: a reopen finds
 * everything left below the log start and starts empty there
 * (lr_log_load); only then the epoch checkpoint is emptied and the old
 * segments go. */
static logrep_err restart_at(logrep_log *log, int64_t offset)
{
    lr_clean_abort(log);
    logrep_err err = LOGREP_OK;
    if (log->clean_first_dirty > offset) {
        log->clean_first_dirty = offset;
        err = lr_clean_checkpoint(log);
    }
    if (!err)
        err = cut_from(log, offset);
    if (!err) {
        log->leo = log->nsegs ? lr_log_active(log)->next_offset : offset;
        log->log_start = log->recovery_point = offset;
        err = logrep_log_checkpoint(log);
    }
    if (!err) {
        log->ec.n = 0;
        err = lr_log_write_epochs(log);
    }
    while (log->nsegs && !err)
        err = remove_segment(log, log->nsegs - 1);
    if (!err)
        err = lr_log_new_segment(log, offset, -1);
    if (err)
        return restart_failed(log, err, offset);
    log->leo = offset;
    lr_pstate_clear(&log->ps);
    /* A producer snapshot named offset would be loaded at the next open. */
    char path[LR_PATH_MAX];
    lr_log_seg_path(log, offset, ".snapshot", path);
    err = log->st->remove(log->st->ctx, path);
    if (err == LOGREP_ERR__NOENT)
        err = LOGREP_OK;
    if (!err && log->st->sync_dir)
        err = log->st->sync_dir(log->st->ctx, log->dir);
    if (err)
        return restart_failed(log, lr_log_io(log, err), offset);
    log->dir_dirty = 0;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_truncate_fully_and_start_at(logrep_log *log, int64_t offset)
{
    if (!log || offset < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return log->failed;
    return restart_at(log, offset);
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
    if (offset <= log->log_start)
        return restart_at(log, offset);
    while (log->nsegs > 1 && lr_log_active(log)->base >= offset && !err)
        err = remove_segment(log, log->nsegs - 1);
    lr_segment *s = lr_log_active(log);
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
