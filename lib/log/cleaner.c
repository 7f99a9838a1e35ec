/* Log compaction (docs/storage.md, Compaction): Kafka's cleaner, run by
 * the host in steps of a bounded number of bytes. A pass builds the key
 * map over the dirty section, then rewrites the log from its first
 * segment up to the map's end one group of segments at a time
 * (cleaner_rewrite.c), each group swapped in with Kafka's file protocol
 * (cleaner_swap.c). This file: the configuration, when a pass is due, the
 * pass's state, its reads, the key map (phase 1) and the API. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "codec/batch.h"
#include "log/cleaner_int.h"

/* ---- configuration ---- */

static logrep_err parse_policy(const char *s, int *del, int *compact)
{
    *del = *compact = 0;
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return LOGREP_OK; /* neither: kept forever */
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (*p && *p != ',' && !isspace((unsigned char)*p))
            p++;
        size_t n = (size_t)(p - w);
        if (n == 6 && strncmp(w, "delete", 6) == 0)
            *del = 1;
        else if (n == 7 && strncmp(w, "compact", 7) == 0)
            *compact = 1;
        else
            return LOGREP_ERR__INVALID_ARG;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            return LOGREP_OK;
        if (*p++ != ',')
            return LOGREP_ERR__INVALID_ARG;
    }
}

logrep_err lr_clean_conf_read(const logrep_conf *conf, lr_clean_conf *out)
{
    lr_clean_conf c;
    logrep_err err = parse_policy(lr_conf_str(conf, LR_CONF_CLEANUP_POLICY), &c.del, &c.compact);
    if (err)
        return err;
    const char *r = lr_conf_str(conf, LR_CONF_MIN_CLEANABLE_DIRTY_RATIO);
    char *end;
    c.min_dirty_ratio = strtod(r, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end == r || *end || !(c.min_dirty_ratio >= 0 && c.min_dirty_ratio <= 1))
        return LOGREP_ERR__INVALID_ARG;
    c.min_lag_ms = lr_conf_int(conf, LR_CONF_MIN_COMPACTION_LAG_MS);
    c.max_lag_ms = lr_conf_int(conf, LR_CONF_MAX_COMPACTION_LAG_MS);
    c.delete_retention_ms = lr_conf_int(conf, LR_CONF_DELETE_RETENTION_MS);
    c.dedupe_bytes = lr_conf_int(conf, LR_CONF_LOG_CLEANER_DEDUPE_BUFFER_SIZE);
    *out = c;
    return LOGREP_OK;
}

/* ---- checkpoint, sections ---- */

logrep_err lr_clean_checkpoint(logrep_log *log)
{
    if (log->clean_first_dirty < 0)
        return LOGREP_OK;
    char buf[LR_PATH_MAX + 64];
    size_t n = lr_ckpt_format_offset(log->topic, log->partition, log->clean_first_dirty, buf,
                                     sizeof buf);
    return lr_log_io(log, lr_file_replace(log->st, log->dir, LR_CLEANER_CKPT, buf, n));
}

/* The checkpoint's offset, or the log start when it is absent or outside
 * the log (as Kafka's LogCleanerManager resets it). */
static int64_t first_dirty(const logrep_log *log)
{
    int64_t d = log->clean_first_dirty;
    return d < log->log_start || d > log->leo ? log->log_start : d;
}

size_t lr_clean_seg_index(const logrep_log *log, int64_t base)
{
    size_t lo = 0, hi = log->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->segs[mid].base < base)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The segment holding offset (the last with base <= offset; the first
 * when none). */
static size_t seg_holding(const logrep_log *log, int64_t offset)
{
    size_t i = lr_clean_seg_index(log, offset);
    if (i == log->nsegs || log->segs[i].base > offset)
        return i ? i - 1 : 0;
    return i;
}

/* Kafka's cleanableOffsets: the first offset the pass may not touch, a
 * segment base: the active segment, the segment holding `limit`, the first
 * dirty segment holding a record younger than min.compaction.lag.ms. */
static int64_t uncleanable(const logrep_log *log, int64_t dirty, int64_t now_ms, int64_t limit)
{
    size_t last = log->nsegs - 1;
    int64_t u = log->segs[last].base;
    for (size_t i = 0; i < last; i++) {
        const lr_segment *s = &log->segs[i];
        int young = log->cc.min_lag_ms > 0 && s->next_offset > dirty && s->max_ts >= 0 &&
                    s->max_ts > now_ms - log->cc.min_lag_ms;
        if (young || (i + 1 <= last && log->segs[i + 1].base > limit)) {
            u = s->base;
            break;
        }
    }
    return u;
}

/* Bytes of closed segments below and from `dirty`, up to `until`. */
static void section_bytes(const logrep_log *log, int64_t dirty, int64_t until, uint64_t *clean,
                          uint64_t *dirty_bytes)
{
    *clean = *dirty_bytes = 0;
    for (size_t i = 0; i + 1 < log->nsegs && log->segs[i].base < until; i++) {
        if (log->segs[i + 1].base <= dirty)
            *clean += log->segs[i].size;
        else
            *dirty_bytes += log->segs[i].size;
    }
}

/* Whether a pass is due: something cleanable, and the ratio reached or a
 * dirty record past max.compaction.lag.ms. */
static int pass_due(const logrep_log *log, int64_t now_ms, int64_t limit, int flags, int64_t *dirty,
                    int64_t *unclean)
{
    *dirty = first_dirty(log);
    *unclean = uncleanable(log, *dirty, now_ms, limit);
    if (*dirty >= *unclean || (!log->cc.compact && !(flags & LOGREP_CLEAN_FORCE)))
        return 0;
    uint64_t c, d;
    section_bytes(log, *dirty, *unclean, &c, &d);
    if (!d)
        return 0;
    if (flags & LOGREP_CLEAN_FORCE)
        return 1;
    if ((double)d / (double)(c + d) >= log->cc.min_dirty_ratio)
        return 1;
    /* The first dirty batch's maxTimestamp, as Kafka's firstBatchTimestamp. */
    const lr_segment *s = &log->segs[seg_holding(log, *dirty)];
    return s->roll_ts >= 0 && now_ms - s->roll_ts > log->cc.max_lag_ms;
}

/* ---- pass state ---- */

static void close_group(logrep_log *log, lr_clean_pass *p, int remove)
{
    if (p->f_log)
        log->st->close(log->st->ctx, p->f_log);
    p->f_log = NULL;
    if (p->group_open && remove)
        lr_clean_remove_temp(log, p->out.base);
    p->group_open = 0;
}

static void pass_free(logrep_log *log, lr_clean_pass *p)
{
    const lr_alloc *a = &log->alloc;
    lr_keymap_free(&p->map, a);
    if (p->rbuf)
        lr_free(a, p->rbuf, p->rcap);
    if (p->recs)
        lr_free(a, p->recs, p->recs_cap * sizeof *p->recs);
    lr_buf_free(&p->wbuf);
    lr_buf_free(&p->oib);
    lr_buf_free(&p->tib);
    lr_buf_free(&p->scratch);
    lr_codec_cache_free(&p->codecs);
    lr_free(a, p, sizeof *p);
}

void lr_clean_release(logrep_log *log, int remove_files)
{
    lr_clean_pass *p = log->pass;
    if (!p)
        return;
    close_group(log, p, remove_files);
    pass_free(log, p);
    log->pass = NULL;
}

void lr_clean_abort(logrep_log *log)
{
    if (!log->pass)
        return;
    lr_clean_release(log, 1);
    log->cstats.passes_aborted++;
}

void lr_clean_touch(logrep_log *log, int64_t offset)
{
    if (log->pass && offset < log->pass->uncleanable)
        lr_clean_abort(log);
}

static logrep_err pass_start(logrep_log *log, int64_t now_ms, int64_t dirty, int64_t unclean)
{
    /* The dirty section holds at most one key per offset. */
    size_t nslots = lr_keymap_slots_for((uint64_t)(unclean - dirty),
                                        (uint64_t)log->cc.dedupe_bytes);
    lr_clean_pass *p = lr_calloc(&log->alloc, 1, sizeof *p);
    if (!p)
        return LOGREP_ERR__NOMEM;
    if (lr_keymap_init(&p->map, &log->alloc, nslots)) {
        lr_free(&log->alloc, p, sizeof *p);
        return LOGREP_ERR__NOMEM;
    }
    p->phase = PH_MAP;
    p->now_ms = now_ms;
    p->first_dirty = dirty;
    p->uncleanable = unclean;
    p->rseg = -1;
    p->seg_base = log->segs[seg_holding(log, dirty)].base;
    lr_buf_init(&p->wbuf, &log->alloc);
    lr_buf_init(&p->oib, &log->alloc);
    lr_buf_init(&p->tib, &log->alloc);
    lr_buf_init(&p->scratch, &log->alloc);
    log->pass = p;
    return LOGREP_OK;
}

logrep_err lr_clean_finish_pass(logrep_log *log, lr_clean_pass *p, int64_t now_ms)
{
    log->clean_first_dirty = p->end;
    logrep_err err = lr_clean_checkpoint(log);
    log->cstats.passes++;
    log->cstats.bytes_read += p->bytes_read;
    log->cstats.bytes_written += p->bytes_written;
    log->cstats.records_removed += p->records_removed;
    log->cstats.last_start_ms = p->now_ms;
    log->cstats.last_end_ms = now_ms;
    pass_free(log, p);
    log->pass = NULL;
    LR_LOG(&log->logger, LOGREP_LEVEL_DEBUG, "log", "%s: cleaned up to offset %lld", log->dir,
           (long long)log->clean_first_dirty);
    return err;
}

/* ---- reading batches ---- */

static logrep_err fill(logrep_log *log, lr_clean_pass *p, lr_segment *s, uint64_t pos, size_t need)
{
    if (p->rseg == s->base && pos >= p->rpos && pos + need <= p->rpos + p->rlen)
        return LOGREP_OK;
    size_t want = need > p->chunk ? need : p->chunk;
    if (want > s->size - pos)
        want = (size_t)(s->size - pos);
    if (want > p->rcap) {
        uint8_t *b = lr_realloc(&log->alloc, p->rbuf, p->rcap, want);
        if (!b)
            return LOGREP_ERR__NOMEM;
        p->rbuf = b;
        p->rcap = want;
    }
    logrep_err err = lr_seg_open_log(log, s, 0);
    size_t n = 0;
    p->rseg = -1;
    if (!err && (err = log->st->read(log->st->ctx, s->log, pos, p->rbuf, want, &n)))
        err = lr_log_io(log, err);
    if (err)
        return err;
    p->rseg = s->base;
    p->rpos = pos;
    p->rlen = n;
    return n >= need ? LOGREP_OK : LOGREP_ERR__CORRUPT;
}

/* The batch at pos of s: its bytes (in the read buffer) and header. */
logrep_err lr_clean_read_batch(logrep_log *log, lr_clean_pass *p, lr_segment *s, uint64_t pos,
                               const uint8_t **bp, logrep_batch_header *h)
{
    if (s->size - pos < LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__CORRUPT;
    logrep_err err = fill(log, p, s, pos, LOGREP_BATCH_HEADER_SIZE);
    if (err)
        return err;
    const uint8_t *b = p->rbuf + (pos - p->rpos);
    if (logrep_batch_header_parse(b, LOGREP_BATCH_HEADER_SIZE, h) == LOGREP_ERR__CORRUPT ||
        h->magic != 2)
        return LOGREP_ERR__CORRUPT;
    uint64_t size = (uint64_t)h->batch_length + LOGREP_LOG_OVERHEAD;
    if (size > s->size - pos)
        return LOGREP_ERR__CORRUPT;
    if ((err = fill(log, p, s, pos, (size_t)size)))
        return err;
    *bp = p->rbuf + (pos - p->rpos);
    return LOGREP_OK;
}

logrep_err lr_clean_open_records(logrep_log *log, const uint8_t *b, const logrep_batch_header *h)
{
    logrep_err err = logrep_batch_reader_open(log->rd, b, (size_t)h->batch_length +
                                                          LOGREP_LOG_OVERHEAD, NULL);
    return err == LOGREP_ERR__NOMEM ? err : err ? LOGREP_ERR__CORRUPT : LOGREP_OK;
}

/* ---- phase 1: the key map ---- */

/* Puts the keys of one batch; *full when the map filled (its last offset
 * then ends the pass's range). Control and transactional batches supersede
 * nothing: transactions are not resolved, so their records never hide an
 * older value. */
static logrep_err map_batch(logrep_log *log, lr_clean_pass *p, const uint8_t *b,
                            const logrep_batch_header *h, int *full)
{
    *full = 0;
    if (h->attributes & (LOGREP_ATTR_CONTROL | LOGREP_ATTR_TRANSACTIONAL))
        return LOGREP_OK;
    logrep_err err = lr_clean_open_records(log, b, h);
    logrep_record r[LR_KEYMAP_RUN];
    lr_keyhash kh[LR_KEYMAP_RUN];
    for (int end = err != LOGREP_OK; !end;) {
        size_t n = 0;
        while (n < LR_KEYMAP_RUN) {
            if ((err = logrep_batch_reader_next(log->rd, &r[n])) != LOGREP_OK) {
                end = 1;
                break;
            }
            if (r[n].key && r[n].offset >= p->first_dirty) {
                lr_keymap_hash(&p->map, r[n].key, (size_t)r[n].key_len, &kh[n]);
                n++;
            }
        }
        for (size_t i = 0; i < n; i++)
            if (lr_keymap_put_hashed(&p->map, &kh[i], r[i].offset)) {
                *full = 1;
                return LOGREP_OK;
            }
    }
    return err == LOGREP_ERR__END ? LOGREP_OK : err == LOGREP_ERR__NOMEM ? err : LOGREP_ERR__CORRUPT;
}

static void start_cleaning(logrep_log *log, lr_clean_pass *p, int full)
{
    /* A full map ends the range at its last key: records above it are
     * kept as they are. A complete scan covers the dirty section. */
    p->end = full && p->map.last_offset >= 0 ? p->map.last_offset + 1 : p->uncleanable;
    if (!full)
        p->map.last_offset = p->uncleanable - 1;
    p->phase = PH_CLEAN;
    p->seg_base = log->segs[0].base;
    p->pos = 0;
}

static logrep_err map_step(logrep_log *log, lr_clean_pass *p, uint64_t *used)
{
    size_t i = lr_clean_seg_index(log, p->seg_base);
    lr_segment *s = &log->segs[i];
    if (p->pos >= s->size) {
        if (i + 1 < log->nsegs && log->segs[i + 1].base < p->uncleanable) {
            lr_seg_close_files(log, s);
            p->seg_base = log->segs[i + 1].base;
            p->pos = 0;
        } else {
            lr_seg_close_files(log, s);
            start_cleaning(log, p, 0);
        }
        return LOGREP_OK;
    }
    const uint8_t *b;
    logrep_batch_header h;
    logrep_err err = lr_clean_read_batch(log, p, s, p->pos, &b, &h);
    if (err)
        return err;
    uint64_t size = (uint64_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    *used += size;
    int full = 0;
    if (logrep_batch_last_offset(&h) >= p->first_dirty &&
        (err = map_batch(log, p, b, &h, &full)))
        return err;
    if (full) {
        start_cleaning(log, p, 1);
        return LOGREP_OK;
    }
    p->pos += size;
    return LOGREP_OK;
}

/* ---- API ---- */

LOGREP_API logrep_err logrep_log_clean(logrep_log *log, int64_t now_ms, int64_t limit,
                                       uint64_t budget, int flags, int *more)
{
    if (more)
        *more = 0;
    if (!log || (flags & ~LOGREP_CLEAN_FORCE))
        return LOGREP_ERR__INVALID_ARG;
    if (log->failed)
        return log->failed;
    int64_t dirty, unclean;
    logrep_err err = LOGREP_OK;
    if (!log->pass) {
        if (!pass_due(log, now_ms, limit, flags, &dirty, &unclean))
            return LOGREP_OK;
        if ((err = pass_start(log, now_ms, dirty, unclean)))
            return err;
    }
    uint64_t used = 0;
    int steps = 0;
    log->pass->chunk = budget < CLEAN_READ_CHUNK ? (size_t)budget : CLEAN_READ_CHUNK;
    while (log->pass && !err && (used < budget || !steps)) {
        lr_clean_pass *p = log->pass;
        err = p->phase == PH_MAP ? map_step(log, p, &used) : lr_clean_step(log, p, now_ms, &used);
        steps++;
    }
    if (err && log->pass) {
        LR_LOG(&log->logger, LOGREP_LEVEL_WARN, "log", "%s: cleaning pass aborted: %s", log->dir,
               logrep_err_name(err));
        lr_clean_abort(log);
    }
    if (more)
        *more = log->pass != NULL ||
                (!err && pass_due(log, now_ms, limit, flags, &dirty, &unclean));
    return err;
}

LOGREP_API void logrep_log_cleaner_info(const logrep_log *log, logrep_log_cleaner_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    out->last_pass_start_ms = out->last_pass_end_ms = -1;
    if (!log)
        return;
    out->compact = log->cc.compact;
    out->in_pass = log->pass != NULL;
    out->first_dirty_offset = first_dirty(log);
    section_bytes(log, out->first_dirty_offset, INT64_MAX, &out->clean_bytes, &out->dirty_bytes);
    uint64_t total = out->clean_bytes + out->dirty_bytes;
    out->dirty_ratio = total ? (double)out->dirty_bytes / (double)total : 0;
    out->passes = log->cstats.passes;
    out->passes_aborted = log->cstats.passes_aborted;
    out->bytes_read = log->cstats.bytes_read;
    out->bytes_written = log->cstats.bytes_written;
    out->records_removed = log->cstats.records_removed;
    if (log->cstats.passes) {
        out->last_pass_start_ms = log->cstats.last_start_ms;
        out->last_pass_end_ms = log->cstats.last_end_ms;
    }
    out->map_bytes = log->pass ? log->pass->map.nslots * LR_KEYMAP_SLOT : 0;
}

