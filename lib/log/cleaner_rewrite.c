/* Phase 2 of a cleaning pass: the log rewritten one group of segments at
 * a time into a new segment, each batch filtered against the key map
 * (Kafka's groupSegmentsBySize, shouldRetainRecord, filterTo). */
#include "codec/batch.h"
#include "log/cleaner_int.h"

/* Kafka's groupSegmentsBySize: from segment i, the segments whose bases
 * are below the end, while the group stays within segment.bytes, its
 * indexes within segment.index.bytes, and its offsets within int32 of
 * the first base. Returns one past the last. */
static size_t group_end(const logrep_log *log, size_t i, int64_t end)
{
    const lr_segment *f = &log->segs[i];
    uint64_t size = f->size, oi = f->oi.entries, ti = f->ti.entries;
    size_t j = i + 1;
    while (j + 1 < log->nsegs && log->segs[j].base < end) {
        const lr_segment *s = &log->segs[j];
        if (size + s->size > (uint64_t)log->seg_bytes || oi + s->oi.entries > log->oi_max ||
            ti + s->ti.entries > log->ti_max || s->next_offset - 1 - f->base > INT32_MAX)
            break;
        size += s->size;
        oi += s->oi.entries;
        ti += s->ti.entries;
        j++;
    }
    return j;
}

static logrep_err open_group(logrep_log *log, lr_clean_pass *p, size_t i)
{
    size_t j = group_end(log, i, p->end);
    lr_seg_init(&p->out, log->segs[i].base, -1);
    p->g_next = log->segs[j].base;
    p->written = 0;
    lr_buf_clear(&p->wbuf);
    lr_buf_clear(&p->oib);
    lr_buf_clear(&p->tib);
    char path[LR_PATH_MAX];
    lr_log_seg_path(log, p->out.base, ".log.cleaned", path);
    p->group_open = 1;
    logrep_err err = log->st->open(log->st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE,
                                   &p->f_log);
    if (err)
        p->f_log = NULL;
    if (!err && (err = log->st->truncate(log->st->ctx, p->f_log, 0)))
        err = lr_log_io(log, err);
    p->seg_base = p->out.base;
    p->pos = 0;
    return err ? lr_log_io(log, err) : LOGREP_OK;
}

logrep_err lr_clean_flush_out(logrep_log *log, lr_clean_pass *p)
{
    if (!p->wbuf.len)
        return LOGREP_OK;
    logrep_err err = log->st->write(log->st->ctx, p->f_log, p->written, p->wbuf.data, p->wbuf.len);
    if (err)
        return lr_log_io(log, err);
    p->written += p->wbuf.len;
    lr_buf_clear(&p->wbuf);
    return LOGREP_OK;
}

/* Appends a batch to the new segment (the .log bytes and its indexes). */
static logrep_err out_batch(logrep_log *log, lr_clean_pass *p, const uint8_t *b, size_t size,
                            int in_wbuf)
{
    logrep_batch_header h;
    lr_batch_header_decode(b, &h);
    logrep_err err = lr_seg_index_batch_buf(log, &p->out, p->out.size, &h, size, &p->oib, &p->tib);
    if (!err && !in_wbuf)
        err = lr_buf_append(&p->wbuf, b, size);
    if (err)
        return err;
    p->out.size += size;
    p->out.next_offset = logrep_batch_last_offset(&h) + 1;
    p->bytes_written += size;
    return p->wbuf.len >= CLEAN_WRITE_CHUNK ? lr_clean_flush_out(log, p) : LOGREP_OK;
}

static int last_of_producer(const logrep_log *log, const logrep_batch_header *h)
{
    if (h->producer_id < 0)
        return 0;
    const lr_producer *pr = lr_pstate_find(&log->ps, h->producer_id);
    return pr && pr->nb && pr->b[0].last_offset == logrep_batch_last_offset(h);
}

static logrep_err keep_records(logrep_log *log, lr_clean_pass *p, size_t n)
{
    if (n <= p->recs_cap)
        return LOGREP_OK;
    size_t cap = p->recs_cap ? p->recs_cap * 2 : 64;
    while (cap < n)
        cap *= 2;
    logrep_record *v = lr_realloc(&log->alloc, p->recs, p->recs_cap * sizeof *v, cap * sizeof *v);
    if (!v)
        return LOGREP_ERR__NOMEM;
    p->recs = v;
    p->recs_cap = cap;
    return LOGREP_OK;
}

/* Kafka's shouldRetainRecord and filterTo for one batch: what survives
 * goes to the new segment, whole when nothing changed. */
static logrep_err clean_batch(logrep_log *log, lr_clean_pass *p, const uint8_t *b,
                              const logrep_batch_header *h, size_t size)
{
    if (h->base_offset > p->map.last_offset ||
        (h->attributes & (LOGREP_ATTR_CONTROL | LOGREP_ATTR_TRANSACTIONAL)))
        return out_batch(log, p, b, size, 0);
    int has_horizon = (h->attributes & LOGREP_ATTR_DELETE_HORIZON) != 0;
    int expired = has_horizon && p->now_ms >= h->base_timestamp;
    /* one more than the count: the call that meets the end writes there */
    logrep_err err = keep_records(log, p, h->record_count > 0 ? (size_t)h->record_count + 1 : 1);
    if (!err)
        err = lr_clean_open_records(log, b, h);
    size_t n = 0;
    int tombstones = 0;
    lr_keyhash kh[LR_KEYMAP_RUN];
    for (int end = err != LOGREP_OK; !end;) {
        /* A run of records into p->recs (room for the batch), their keys
         * hashed first, then judged. */
        size_t run = 0, at = n;
        while (run < LR_KEYMAP_RUN) {
            logrep_record *r = &p->recs[at + run];
            if ((err = logrep_batch_reader_next(log->rd, r)) != LOGREP_OK) {
                end = 1;
                break;
            }
            if (r->key && r->offset <= p->map.last_offset)
                lr_keymap_hash(&p->map, r->key, (size_t)r->key_len, &kh[run]);
            run++;
        }
        for (size_t i = 0; i < run; i++) {
            const logrep_record *r = &p->recs[at + i];
            int keep = r->offset > p->map.last_offset ||
                       (r->key && r->offset >= lr_keymap_get_hashed(&p->map, &kh[i]) &&
                        (r->value || !expired));
            if (keep) {
                tombstones |= !r->value;
                p->recs[n++] = *r;
            }
        }
    }
    if (err != LOGREP_ERR__END)
        return err == LOGREP_ERR__NOMEM ? err : LOGREP_ERR__CORRUPT;
    p->records_removed += (uint64_t)h->record_count - n;
    int last = last_of_producer(log, h);
    if (!n && !last)
        return LOGREP_OK;
    if (n == (size_t)h->record_count && !(tombstones && !has_horizon))
        return out_batch(log, p, b, size, 0);
    int64_t horizon = -1;
    if (has_horizon)
        horizon = h->base_timestamp;
    else if (tombstones)
        horizon = p->now_ms > INT64_MAX - log->cc.delete_retention_ms
                      ? INT64_MAX
                      : p->now_ms + log->cc.delete_retention_ms;
    size_t at = p->wbuf.len;
    if ((err = lr_batch_rebuild(h, p->recs, n, horizon, &p->wbuf, &p->scratch, &p->codecs)))
        return err == LOGREP_ERR__NOMEM ? err : LOGREP_ERR__CORRUPT;
    return out_batch(log, p, p->wbuf.data + at, p->wbuf.len - at, 1);
}

logrep_err lr_clean_step(logrep_log *log, lr_clean_pass *p, int64_t now_ms, uint64_t *used)
{
    if (!p->group_open) {
        size_t i = lr_clean_seg_index(log, p->seg_base);
        if (i + 1 >= log->nsegs || log->segs[i].base >= p->end)
            return lr_clean_finish_pass(log, p, now_ms);
        return open_group(log, p, i);
    }
    size_t i = lr_clean_seg_index(log, p->seg_base);
    lr_segment *s = &log->segs[i];
    if (p->pos >= s->size) {
        lr_seg_close_files(log, s);
        if (i + 1 < log->nsegs && log->segs[i + 1].base < p->g_next) {
            p->seg_base = log->segs[i + 1].base;
            p->pos = 0;
            return LOGREP_OK;
        }
        logrep_err err = lr_clean_commit_group(log, p);
        if (!err) {
            p->group_open = 0;
            p->rseg = -1;
            if (p->f_log)
                log->st->close(log->st->ctx, p->f_log);
            p->f_log = NULL;
            err = lr_clean_install_group(log, p);
            if (err)
                return err;
            p->seg_base = p->g_next;
        }
        return err;
    }
    const uint8_t *b;
    logrep_batch_header h;
    logrep_err err = lr_clean_read_batch(log, p, s, p->pos, &b, &h);
    if (err)
        return err;
    size_t size = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    *used += size;
    p->bytes_read += size;
    if ((err = clean_batch(log, p, b, &h, size)))
        return err;
    p->pos += size;
    return LOGREP_OK;
}

