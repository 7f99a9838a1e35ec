/* The partition log: open and close, configuration, flush and
 * checkpoints, epochs and topic id. Appends and rolls are append.c, reads
 * read.c, truncation and retention truncate.c. */
#include <stdio.h>
#include <string.h>

#include "base/conf.h"
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
        lr_segment *s = lr_log_active(log);
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
        LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log", "%s: close: %s (errno %d)", log->dir,
               logrep_err_name(err), log->last_errno);
    log_free(log);
    return err;
}
