/* The cleaner's file protocol (Kafka's): a group's new segment is written
 * as .cleaned, committed by renames to .swap beside the cleaner-swap
 * marker, then installed in place of the old segments (.deleted). Recovery
 * of a crash in between is recover.c's. */
#include <stdio.h>
#include <string.h>

#include "base/endian.h"
#include "log/cleaner_int.h"

static const char *const out_suffix[3] = {".log", ".index", ".timeindex"};

void lr_clean_remove_temp(logrep_log *log, int64_t base)
{
    static const char *const tails[2] = {".cleaned", ".swap"};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < 2; t++) {
            char name[64], path[LR_PATH_MAX];
            snprintf(name, sizeof name, "%s%s", out_suffix[i], tails[t]);
            lr_log_seg_path(log, base, name, path);
            log->st->remove(log->st->ctx, path);
        }
}

static logrep_err write_index_file(logrep_log *log, int64_t base, const char *suffix,
                                   const lr_buf *b)
{
    char path[LR_PATH_MAX];
    lr_log_seg_path(log, base, suffix, path);
    logrep_file *f;
    const logrep_storage *st = log->st;
    logrep_err err = st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f);
    if (err)
        return lr_log_io(log, err);
    if (!(err = st->truncate(st->ctx, f, 0)) && b->len)
        err = st->write(st->ctx, f, 0, b->data, b->len);
    if (!err)
        err = st->sync(st->ctx, f);
    st->close(st->ctx, f);
    return lr_log_io(log, err);
}

static logrep_err rename_suffix(logrep_log *log, int64_t base, const char *from, const char *to)
{
    char a[LR_PATH_MAX], b[LR_PATH_MAX];
    lr_log_seg_path(log, base, from, a);
    lr_log_seg_path(log, base, to, b);
    return lr_log_io(log, log->st->rename(log->st->ctx, a, b));
}

static logrep_err sync_dir(logrep_log *log)
{
    return log->st->sync_dir ? lr_log_io(log, log->st->sync_dir(log->st->ctx, log->dir))
                             : LOGREP_OK;
}

/* Writes, syncs and commits the new segment: up to the rename of
 * .log.cleaned to .log.swap a failure leaves the log as it was. */
logrep_err lr_clean_commit_group(logrep_log *log, lr_clean_pass *p)
{
    lr_segment *o = &p->out;
    logrep_err err = lr_clean_flush_out(log, p);
    /* The final time-index entry a roll writes, so a reload finds the
     * segment's largest timestamp. */
    if (!err && o->max_ts > (o->ti.entries ? o->ti.last_a : -1)) {
        uint8_t e[LR_TI_ENTRY];
        lr_put_be64(e, (uint64_t)o->max_ts);
        lr_put_be32(e + 8, (uint32_t)(o->max_ts_offset - o->base));
        if (!(err = lr_buf_append(&p->tib, e, LR_TI_ENTRY))) {
            o->ti.entries++;
            o->ti.last_a = o->max_ts;
            o->ti.last_b = o->max_ts_offset;
        }
    }
    if (!err && (err = log->st->sync(log->st->ctx, p->f_log)))
        err = lr_log_io(log, err);
    if (!err)
        err = write_index_file(log, o->base, ".index.cleaned", &p->oib);
    if (!err)
        err = write_index_file(log, o->base, ".timeindex.cleaned", &p->tib);
    if (!err) {
        char line[64];
        int n = snprintf(line, sizeof line, "%lld %lld\n", (long long)o->base,
                         (long long)p->g_next);
        err = lr_log_io(log, lr_file_replace(log->st, log->dir, LR_SWAP_MARKER, line, (size_t)n));
    }
    /* Indexes first: a .log.swap always has its indexes beside it. */
    if (!err)
        err = rename_suffix(log, o->base, ".index.cleaned", ".index.swap");
    if (!err)
        err = rename_suffix(log, o->base, ".timeindex.cleaned", ".timeindex.swap");
    if (!err)
        err = sync_dir(log);
    if (!err)
        err = rename_suffix(log, o->base, ".log.cleaned", ".log.swap");
    return err;
}

/* After the commit: the old segments go (.deleted), the swap takes their
 * names, the list in memory follows. A failure here leaves the directory
 * for recovery to finish (the log then refuses changes until reopened). */
logrep_err lr_clean_install_group(logrep_log *log, lr_clean_pass *p)
{
    lr_segment *o = &p->out;
    size_t i = lr_clean_seg_index(log, o->base), j = lr_clean_seg_index(log, p->g_next);
    logrep_err err = sync_dir(log);
    for (size_t k = i; k < j && !err; k++) {
        lr_segment *s = &log->segs[k];
        lr_seg_close_files(log, s);
        static const char *const sfx[4] = {".log", ".index", ".timeindex", ".txnindex"};
        for (int f = 0; f < 4 && !err; f++) {
            char del[32], path[LR_PATH_MAX];
            snprintf(del, sizeof del, "%s.deleted", sfx[f]);
            err = rename_suffix(log, s->base, sfx[f], del);
            if (err == LOGREP_ERR__NOENT && f > 0)
                err = LOGREP_OK;
            else if (!err) {
                lr_log_seg_path(log, s->base, del, path);
                log->st->remove(log->st->ctx, path);
            }
        }
    }
    for (int f = 0; f < 3 && !err; f++) {
        char swp[32];
        snprintf(swp, sizeof swp, "%s.swap", out_suffix[f]);
        err = rename_suffix(log, o->base, swp, out_suffix[f]);
    }
    if (!err)
        err = sync_dir(log);
    if (err) {
        log->failed = LOGREP_ERR_KAFKA_STORAGE_ERROR;
        LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log",
               "%s: cleaner: swap of segment %020lld failed (%s); log is read-only until "
               "reopened, which completes the swap",
               log->dir, (long long)o->base, logrep_err_name(err));
        return err;
    }
    char path[LR_PATH_MAX];
    lr_log_path(log, LR_SWAP_MARKER, path);
    log->st->remove(log->st->ctx, path);
    o->log = o->oi.f = o->ti.f = NULL;
    o->dirty = 0;
    log->segs[i] = *o;
    memmove(&log->segs[i + 1], &log->segs[j], (log->nsegs - j) * sizeof *log->segs);
    log->nsegs -= j - i - 1;
    return LOGREP_OK;
}

