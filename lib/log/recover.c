/* Opening a partition directory: listing, checkpoints, crash recovery of
 * the unflushed tail (docs/storage.md, Recovery), producer-state snapshots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "log/log_int.h"

enum { K_LOG, K_INDEX, K_TIMEINDEX, K_TXNINDEX, K_SNAPSHOT };

typedef struct dir_scan {
    logrep_log *log;
    lr_buf files;   /* (int64 base, int kind) pairs */
    lr_buf junk;    /* NUL-terminated names to remove */
    lr_buf swaps;   /* NUL-terminated names ending in .swap */
    logrep_err err;
} dir_scan;

typedef struct dir_file {
    int64_t base;
    int kind;
} dir_file;

/* "<20 digits>.<suffix>" -> base and kind; -1 when not a segment file. */
static int parse_name(const char *name, int64_t *base)
{
    static const char *const suffixes[] = {".log", ".index", ".timeindex", ".txnindex",
                                           ".snapshot"};
    int64_t v = 0;
    for (int i = 0; i < 20; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        if (v > (INT64_MAX - (name[i] - '0')) / 10)
            return -1;
        v = v * 10 + (name[i] - '0');
    }
    for (int k = 0; k < 5; k++)
        if (strcmp(name + 20, suffixes[k]) == 0) {
            *base = v;
            return k;
        }
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int on_entry(void *ctx, const char *name)
{
    dir_scan *ds = ctx;
    int64_t base;
    int kind = parse_name(name, &base);
    if (kind >= 0) {
        dir_file f = {base, kind};
        ds->err = lr_buf_append(&ds->files, &f, sizeof f);
    } else if (ends_with(name, ".tmp") || ends_with(name, ".deleted") ||
               ends_with(name, ".cleaned")) {
        ds->err = lr_buf_append(&ds->junk, name, strlen(name) + 1);
    } else if (ends_with(name, ".swap")) {
        ds->err = lr_buf_append(&ds->swaps, name, strlen(name) + 1);
    }
    return ds->err ? 1 : 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int has_kind(const dir_file *f, size_t n, int64_t base, int kind)
{
    for (size_t i = 0; i < n; i++)
        if (f[i].base == base && f[i].kind == kind)
            return 1;
    return 0;
}

/* Reads a small file; *text NULL when absent. */
static logrep_err read_small(logrep_log *log, const char *name, char **text, size_t *len,
                             size_t *alloc_len)
{
    char path[LR_PATH_MAX];
    lr_log_path(log, name, path);
    *text = NULL;
    logrep_err err = lr_file_read_all(log->st, &log->alloc, path, 1u << 20, text, len, alloc_len);
    if (err == LOGREP_ERR__NOENT)
        return LOGREP_OK;
    return err == LOGREP_ERR__CORRUPT ? err : (err ? lr_log_io(log, err) : LOGREP_OK);
}

/* An offset checkpoint ("<topic> <partition> <offset>"); -1 when absent
 * or unreadable (both are safe: a full recovery, the first segment). */
static logrep_err read_offset_ckpt(logrep_log *log, const char *name, int64_t *out)
{
    char *text;
    size_t len, alen;
    *out = -1;
    logrep_err err = read_small(log, name, &text, &len, &alen);
    if (err == LOGREP_ERR__CORRUPT) {
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log", "%s: %s is too large; ignored", log->dir,
               name);
        return LOGREP_OK;
    }
    if (err || !text)
        return err;
    err = lr_ckpt_parse_offset(text, len, log->topic, log->partition, out);
    lr_free(&log->alloc, text, alen);
    if (err == LOGREP_ERR__CORRUPT)
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log", "%s: %s is malformed; ignored", log->dir,
               name);
    if (err)
        *out = -1;
    return LOGREP_OK;
}

static logrep_err read_checkpoints(logrep_log *log, int64_t *rp, int64_t *start)
{
    logrep_err err = read_offset_ckpt(log, "recovery-point-offset-checkpoint", rp);
    if (!err)
        err = read_offset_ckpt(log, "log-start-offset-checkpoint", start);
    if (err)
        return err;
    char *text;
    size_t len, alen;
    if ((err = read_small(log, "leader-epoch-checkpoint", &text, &len, &alen)))
        return err;
    if (text) {
        err = lr_ckpt_parse_epochs(text, len, &log->alloc, &log->ec.v, &log->ec.n, &log->ec.cap);
        lr_free(&log->alloc, text, alen);
        if (err) {
            LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log", "%s: leader-epoch-checkpoint is malformed",
                   log->dir);
            return err;
        }
    }
    if ((err = read_small(log, "partition.metadata", &text, &len, &alen)))
        return err;
    if (text) {
        err = lr_partition_metadata_parse(text, len, log->topic_id);
        lr_free(&log->alloc, text, alen);
        if (err) {
            LR_LOG(&log->logger, LOGREP_LEVEL_ERROR, "log", "%s: partition.metadata is malformed",
                   log->dir);
            return err;
        }
        log->has_topic_id = 1;
    }
    return LOGREP_OK;
}

static logrep_err segs_reserve(logrep_log *log, size_t n)
{
    if (n <= log->segs_cap)
        return LOGREP_OK;
    size_t cap = log->segs_cap ? log->segs_cap : 2;
    while (cap < n)
        cap *= 2;
    lr_segment *v = lr_realloc(&log->alloc, log->segs, log->segs_cap * sizeof *v, cap * sizeof *v);
    if (!v)
        return LOGREP_ERR__NOMEM;
    log->segs = v;
    log->segs_cap = cap;
    return LOGREP_OK;
}

void lr_seg_init(lr_segment *s, int64_t base, int64_t now_ms)
{
    memset(s, 0, sizeof *s);
    s->base = s->next_offset = base;
    s->oi.last_a = s->ti.last_a = s->ti.last_b = -1;
    s->max_ts = s->max_ts_offset = s->roll_ts = -1;
    s->created_ms = now_ms;
    s->tail_pos = UINT64_MAX; /* unknown until a batch is appended or scanned */
}

logrep_err lr_log_new_segment(logrep_log *log, int64_t base, int64_t now_ms)
{
    logrep_err err = segs_reserve(log, log->nsegs + 1);
    if (err)
        return err;
    lr_segment *s = &log->segs[log->nsegs];
    lr_seg_init(s, base, now_ms);
    if ((err = lr_seg_open_log(log, s, 1)))
        return err;
    /* A leftover file of that name belongs to nothing: start empty. */
    if ((err = log->st->truncate(log->st->ctx, s->log, 0))) {
        lr_seg_close_files(log, s);
        return lr_log_io(log, err);
    }
    /* Empty index files exist from the start, as in Kafka (a segment
     * without .index is recovered at load); they are reopened on demand. */
    if ((err = lr_seg_open_index(log, s, &s->oi, ".index", 1)) ||
        (err = lr_seg_open_index(log, s, &s->ti, ".timeindex", 1)) ||
        (err = log->st->truncate(log->st->ctx, s->oi.f, 0)) ||
        (err = log->st->truncate(log->st->ctx, s->ti.f, 0))) {
        lr_seg_close_files(log, s);
        return lr_log_io(log, err);
    }
    s->dirty = 1;
    log->dir_dirty = 1;
    log->nsegs++;
    return LOGREP_OK;
}

/* Removes segments [from, nsegs). */
static logrep_err drop_segments_from(logrep_log *log, size_t from)
{
    logrep_err first = LOGREP_OK;
    while (log->nsegs > from) {
        logrep_err err = lr_seg_delete_files(log, &log->segs[log->nsegs - 1]);
        if (err && !first)
            first = err;
        log->nsegs--;
        log->rec.segments_deleted++;
    }
    return first;
}

logrep_err lr_log_write_epochs(logrep_log *log)
{
    size_t size = 32 + log->ec.n * 34;
    char *buf = lr_malloc(&log->alloc, size);
    if (!buf) {
        log->ec_dirty = 1;
        return LOGREP_ERR__NOMEM;
    }
    size_t len = lr_ckpt_format_epochs(log->ec.v, log->ec.n, buf, size);
    logrep_err err = lr_file_replace(log->st, log->dir, "leader-epoch-checkpoint", buf, len);
    lr_free(&log->alloc, buf, size);
    /* Until a write succeeds every later change, and every flush, writes
     * again: the cache already holds the change, so "unchanged" is no
     * proof the file has it. */
    log->ec_dirty = err != LOGREP_OK;
    return err ? lr_log_io(log, err) : LOGREP_OK;
}

logrep_err lr_log_write_snapshot(logrep_log *log, int64_t offset)
{
    uint8_t *buf;
    size_t len;
    logrep_err err = lr_pstate_encode(&log->ps, &log->alloc, &buf, &len);
    if (err)
        return err;
    char name[40];
    snprintf(name, sizeof name, "%020lld.snapshot", (long long)offset);
    err = lr_file_replace(log->st, log->dir, name, buf, len);
    lr_free(&log->alloc, buf, len);
    return err ? lr_log_io(log, err) : LOGREP_OK;
}

logrep_err lr_log_replay_producers(logrep_log *log, int64_t from)
{
    for (size_t i = 0; i < log->nsegs; i++) {
        lr_segment *s = &log->segs[i];
        if (s->next_offset <= from)
            continue;
        logrep_batch_header h;
        uint64_t pos = 0;
        logrep_err err = LOGREP_OK;
        if (from > s->base)
            err = lr_seg_find(log, s, from, &pos, &h);
        while (!err && (err = lr_seg_header(log, s, pos, &h)) == LOGREP_OK) {
            if ((err = lr_pstate_update(&log->ps, &log->alloc, &h)))
                return err;
            pos += (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        if (err != LOGREP_ERR__END)
            return err;
        if (i + 1 < log->nsegs) {
            /* Closed segments need no open files while idle. */
            lr_seg_close_files(log, s);
        }
    }
    return LOGREP_OK;
}

static int cmp_i64_desc(const void *a, const void *b)
{
    return cmp_i64(b, a);
}

/* Loads the newest usable snapshot at or below the log end and replays the
 * batches after it (headers only). Stale snapshots are removed. */
static logrep_err load_producers(logrep_log *log, const dir_file *files, size_t nfiles,
                                 int64_t now_ms)
{
    int64_t cand[16];
    size_t nc = 0;
    for (size_t i = 0; i < nfiles; i++) {
        if (files[i].kind != K_SNAPSHOT)
            continue;
        if (files[i].base > log->leo || files[i].base < log->log_start) {
            char path[LR_PATH_MAX];
            lr_log_seg_path(log, files[i].base, ".snapshot", path);
            log->st->remove(log->st->ctx, path);
        } else if (nc < 16) {
            cand[nc++] = files[i].base;
        } else {
            qsort(cand, nc, sizeof cand[0], cmp_i64_desc);
            if (files[i].base > cand[nc - 1])
                cand[nc - 1] = files[i].base;
        }
    }
    qsort(cand, nc, sizeof cand[0], cmp_i64_desc);
    int64_t from = log->log_start;
    for (size_t i = 0; i < nc; i++) {
        char path[LR_PATH_MAX], *text;
        size_t len, alen;
        lr_log_seg_path(log, cand[i], ".snapshot", path);
        logrep_err rerr = lr_file_read_all(log->st, &log->alloc, path, 64u << 20, &text, &len,
                                           &alen);
        /* Only an absent or oversized snapshot is passed over for an
         * older one or a replay; a short heap or disk is the caller's. */
        if (rerr == LOGREP_ERR__NOMEM)
            return rerr;
        if (rerr && rerr != LOGREP_ERR__NOENT && rerr != LOGREP_ERR__CORRUPT)
            return lr_log_io(log, rerr);
        if (rerr)
            continue;
        logrep_err err = lr_pstate_load(&log->ps, &log->alloc, (const uint8_t *)text, len,
                                        now_ms - log->pid_expiration_ms);
        lr_free(&log->alloc, text, alen);
        if (!err) {
            from = cand[i];
            break;
        }
        lr_pstate_clear(&log->ps);
        if (err == LOGREP_ERR__NOMEM)
            return err;
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log", "%s: snapshot %020lld is corrupt; ignored",
               log->dir, (long long)cand[i]);
    }
    return lr_log_replay_producers(log, from);
}

static void scan_free(dir_scan *ds)
{
    lr_buf_free(&ds->files);
    lr_buf_free(&ds->junk);
    lr_buf_free(&ds->swaps);
}

static logrep_err scan_dir(logrep_log *log, dir_scan *ds)
{
    memset(ds, 0, sizeof *ds);
    ds->log = log;
    lr_buf_init(&ds->files, &log->alloc);
    lr_buf_init(&ds->junk, &log->alloc);
    lr_buf_init(&ds->swaps, &log->alloc);
    logrep_err err = log->st->list(log->st->ctx, log->dir, on_entry, ds);
    if (ds->err)
        return ds->err;
    return err ? lr_log_io(log, err) : LOGREP_OK;
}

/* Next offset of a segment file read header by header (a swap segment
 * written without the cleaner's marker). */
static int64_t file_next_offset(logrep_log *log, const char *path, int64_t base)
{
    logrep_file *f;
    int64_t next = base;
    if (log->st->open(log->st->ctx, path, LOGREP_OPEN_READ, &f))
        return next;
    uint64_t size = 0, pos = 0;
    log->st->size(log->st->ctx, f, &size);
    uint8_t b[LOGREP_BATCH_HEADER_SIZE];
    size_t n;
    while (pos + sizeof b <= size &&
           log->st->read(log->st->ctx, f, pos, b, sizeof b, &n) == LOGREP_OK && n == sizeof b) {
        logrep_batch_header h;
        if (logrep_batch_header_parse(b, sizeof b, &h) == LOGREP_ERR__CORRUPT ||
            h.magic != 2 || h.last_offset_delta < 0)
            break;
        next = logrep_batch_last_offset(&h) + 1;
        pos += (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    log->st->close(log->st->ctx, f);
    return next;
}

/* Kafka's LogLoader for a crash inside a cleaner's swap: a <base>.log.swap
 * is a committed cleaning of the segments with bases in [base, end) (end
 * from the cleaner-swap marker, else the swap's own next offset, Kafka's
 * rule): those go and the swap takes their place. Index swaps without
 * their .log.swap were never committed and go. */
static logrep_err complete_swaps(logrep_log *log, const dir_scan *ds)
{
    char *text;
    size_t len, alen;
    long long mbase = -1, mend = -1;
    logrep_err err = read_small(log, LR_SWAP_MARKER, &text, &len, &alen);
    if (err && err != LOGREP_ERR__CORRUPT)
        return err;
    if (!err && text) {
        if (sscanf(text, "%lld %lld", &mbase, &mend) != 2)
            mbase = mend = -1;
        lr_free(&log->alloc, text, alen);
    }
    const dir_file *files = (const dir_file *)ds->files.data;
    size_t nfiles = ds->files.len / sizeof(dir_file);
    const char *names = (const char *)ds->swaps.data;
    for (size_t off = 0; off < ds->swaps.len; off += strlen(names + off) + 1) {
        const char *name = names + off;
        int64_t base;
        char real[32];
        if (strlen(name) != 29 || strcmp(name + 20, ".log.swap") != 0)
            continue;
        memcpy(real, name, 24);
        real[24] = 0;
        if (parse_name(real, &base) != K_LOG)
            continue;
        char path[LR_PATH_MAX], to[LR_PATH_MAX];
        lr_log_path(log, name, path);
        int64_t end = base == mbase ? (int64_t)mend : file_next_offset(log, path, base);
        static const char *const sfx[] = {".log", ".index", ".timeindex", ".txnindex"};
        for (size_t i = 0; i < nfiles; i++)
            if (files[i].kind <= K_TXNINDEX && files[i].base >= base &&
                (files[i].base < end || files[i].base == base)) {
                lr_log_seg_path(log, files[i].base, sfx[files[i].kind], to);
                if ((err = log->st->remove(log->st->ctx, to)) && err != LOGREP_ERR__NOENT)
                    return lr_log_io(log, err);
                log->rec.files_removed++;
            }
        for (int k = 2; k >= 0; k--) {
            char sw[32];
            snprintf(sw, sizeof sw, "%s.swap", sfx[k]);
            lr_log_seg_path(log, base, sw, path);
            lr_log_seg_path(log, base, sfx[k], to);
            err = log->st->rename(log->st->ctx, path, to);
            if (err && (k == 0 || err != LOGREP_ERR__NOENT))
                return lr_log_io(log, err);
        }
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log",
               "%s: completed the cleaner's swap of segments %lld..%lld into %020lld", log->dir,
               (long long)base, (long long)end, (long long)base);
    }
    /* What is left are index swaps whose .log.swap never came. */
    for (size_t off = 0; off < ds->swaps.len; off += strlen(names + off) + 1) {
        char path[LR_PATH_MAX];
        lr_log_path(log, names + off, path);
        if (log->st->remove(log->st->ctx, path) == LOGREP_OK)
            log->rec.files_removed++;
    }
    if (log->st->sync_dir && (err = log->st->sync_dir(log->st->ctx, log->dir)))
        return lr_log_io(log, err);
    char path[LR_PATH_MAX];
    lr_log_path(log, LR_SWAP_MARKER, path);
    log->st->remove(log->st->ctx, path);
    return LOGREP_OK;
}

logrep_err lr_log_rebuild_producers(logrep_log *log, int64_t now_ms)
{
    dir_scan ds;
    logrep_err err = scan_dir(log, &ds);
    lr_pstate_clear(&log->ps);
    if (!err)
        err = load_producers(log, (const dir_file *)ds.files.data,
                             ds.files.len / sizeof(dir_file), now_ms);
    scan_free(&ds);
    return err;
}

static void delete_rest(logrep_log *log, const int64_t *bases, size_t from, size_t n)
{
    for (size_t j = from; j < n; j++) {
        lr_segment tmp;
        lr_seg_init(&tmp, bases[j], -1);
        lr_seg_delete_files(log, &tmp);
        log->rec.segments_deleted++;
    }
}

static logrep_err load_segments(logrep_log *log, int64_t *bases, size_t n, int64_t rp)
{
    logrep_err err = segs_reserve(log, n);
    if (err)
        return err;
    /* Segments below the one holding the recovery point are trusted as
     * flushed; from there on every batch is checked. */
    size_t first_recover = 0;
    for (size_t i = 0; i < n; i++)
        if (bases[i] <= rp)
            first_recover = i;
    if (rp < 0)
        first_recover = 0;
    for (size_t i = 0; i < n; i++) {
        lr_segment *s = &log->segs[log->nsegs];
        lr_seg_init(s, bases[i], -1);
        log->nsegs++;
        int64_t min_offset = i ? log->segs[log->nsegs - 2].next_offset : bases[i];
        if (i < first_recover) {
            err = lr_seg_load(log, s);
            if (!err && s->base < min_offset)
                err = LOGREP_ERR__CORRUPT;
            if (err != LOGREP_ERR__CORRUPT) {
                if (err)
                    return err;
                continue;
            }
            LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log",
                   "%s: segment %020lld is inconsistent below the recovery point; recovering",
                   log->dir, (long long)s->base);
            first_recover = i;
        }
        if (i == first_recover && s->base >= min_offset) {
            /* It holds the recovery point: if its data ends exactly there
             * it was flushed whole. Ending below means flushed data is
             * missing, so the checkpoint is not to be trusted. */
            err = lr_seg_load(log, s);
            if (!err && s->next_offset == rp)
                continue;
            if (err && err != LOGREP_ERR__CORRUPT)
                return err;
            err = LOGREP_OK;
        }
        if (s->base < min_offset) {
            /* Overlaps its predecessor: it and everything after go. */
            log->nsegs--;
            lr_seg_close_files(log, s);
            delete_rest(log, bases, i, n);
            return LOGREP_OK;
        }
        uint64_t cut;
        if ((err = lr_seg_recover(log, s, min_offset, &cut)))
            return err;
        log->rec.segments_recovered++;
        log->rec.indexes_rebuilt++;
        log->rec.bytes_truncated += (int64_t)cut;
        if (cut && i + 1 < n) {
            LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log",
                   "%s: deleting %zu segments after the cut in %020lld", log->dir, n - i - 1,
                   (long long)s->base);
            delete_rest(log, bases, i + 1, n);
            return LOGREP_OK;
        }
    }
    return LOGREP_OK;
}

logrep_err lr_log_load(logrep_log *log, int64_t now_ms)
{
    dir_scan ds;
    int64_t *bases = NULL;
    size_t nbases = 0;
    logrep_err err = scan_dir(log, &ds);
    if (!err && ds.swaps.len) {
        /* A cleaner's swap was under way: finish it, then look again. */
        err = complete_swaps(log, &ds);
        scan_free(&ds);
        if (!err)
            err = scan_dir(log, &ds);
    }
    const dir_file *files = (const dir_file *)ds.files.data;
    size_t nfiles = ds.files.len / sizeof(dir_file);
    /* Temporary files of interrupted checkpoint writes and deletions. */
    for (size_t off = 0; !err && off < ds.junk.len; off += strlen((char *)ds.junk.data + off) + 1) {
        char path[LR_PATH_MAX];
        lr_log_path(log, (const char *)ds.junk.data + off, path);
        log->st->remove(log->st->ctx, path);
        log->rec.files_removed++;
    }
    /* Index files without their .log. */
    for (size_t i = 0; !err && i < nfiles; i++) {
        static const char *const sfx[] = {".log", ".index", ".timeindex", ".txnindex"};
        if (files[i].kind >= K_INDEX && files[i].kind <= K_TXNINDEX &&
            !has_kind(files, nfiles, files[i].base, K_LOG)) {
            char path[LR_PATH_MAX];
            lr_log_seg_path(log, files[i].base, sfx[files[i].kind], path);
            log->st->remove(log->st->ctx, path);
            log->rec.files_removed++;
        }
    }
    if (!err && nfiles && !(bases = lr_calloc(&log->alloc, nfiles, sizeof *bases)))
        err = LOGREP_ERR__NOMEM;
    for (size_t i = 0; !err && i < nfiles; i++)
        if (files[i].kind == K_LOG)
            bases[nbases++] = files[i].base;
    if (nbases)
        qsort(bases, nbases, sizeof *bases, cmp_i64);

    int64_t rp = -1, start = -1;
    if (!err)
        err = read_checkpoints(log, &rp, &start);
    if (!err)
        err = read_offset_ckpt(log, LR_CLEANER_CKPT, &log->clean_first_dirty);
    log->rec.recovery_point = rp < 0 ? 0 : rp;
    if (!err)
        err = load_segments(log, bases, nbases, rp < 0 ? 0 : rp);
    if (!err && !log->nsegs)
        err = lr_log_new_segment(log, start > 0 ? start : 0, now_ms);
    int emptied = 0;
    if (!err) {
        lr_segment *last = &log->segs[log->nsegs - 1];
        log->leo = last->next_offset;
        log->log_start = log->segs[0].base > start ? log->segs[0].base : start;
        if (log->leo < log->log_start) {
            /* Everything recovered lies below the log start (a restart
             * at a later offset, logrep_log_truncate_fully_and_start_at,
             * cut short): the log is empty there, and so are its epochs. */
            err = drop_segments_from(log, 0);
            if (!err)
                err = lr_log_new_segment(log, log->log_start, now_ms);
            log->leo = log->log_start;
            emptied = log->ec.n > 0;
            log->ec.n = 0;
        }
    }
    if (!err) {
        int64_t rpo = rp < 0 ? 0 : rp;
        log->recovery_point = rpo < log->leo ? rpo : log->leo;
        if (log->recovery_point < log->log_start)
            log->recovery_point = log->log_start;
        log->rec.clean = log->rec.segments_recovered == 0;
        if (log->segs[log->nsegs - 1].created_ms < 0)
            log->segs[log->nsegs - 1].created_ms = now_ms;
        int removed = lr_epoch_cache_truncate_end(&log->ec, log->leo);
        log->rec.epoch_entries_removed = removed;
        int moved = lr_epoch_cache_truncate_start(&log->ec, log->log_start);
        if (removed || moved || emptied || log->rec.segments_recovered)
            err = lr_log_write_epochs(log);
    }
    if (!err)
        err = load_producers(log, files, nfiles, now_ms);
    /* An idle partition keeps only its active .log open. */
    for (size_t i = 0; !err && i < log->nsegs; i++) {
        lr_segment *s = &log->segs[i];
        if (s->dirty)
            continue;
        if (i + 1 < log->nsegs)
            lr_seg_close_files(log, s);
        else
            lr_seg_close_index_files(log, s);
    }
    log->rec.log_start_offset = log->log_start;
    log->rec.log_end_offset = log->leo;
    if (!err && (log->rec.bytes_truncated || log->rec.segments_deleted ||
                 log->rec.epoch_entries_removed))
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log",
               "%s: recovery cut %lld bytes, deleted %d segments, removed %d epoch entries; "
               "log end offset %lld",
               log->dir, (long long)log->rec.bytes_truncated, log->rec.segments_deleted,
               log->rec.epoch_entries_removed, (long long)log->leo);
    else if (!err)
        LR_LOG(&log->logger, LOGREP_LEVEL_INFO, "log",
               "%s: opened, %zu segments, offsets %lld..%lld, %d segments recovered", log->dir,
               log->nsegs, (long long)log->log_start, (long long)log->leo,
               log->rec.segments_recovered);
    if (bases)
        lr_free(&log->alloc, bases, nfiles * sizeof *bases);
    scan_free(&ds);
    return err;
}
