/* Snapshot files (qsnap.h): names, the writer, the checking reader, the
 * directory. */
#include "quorum/qsnap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "base/endian.h"
#include "base/log.h"
#include "codec/batch.h"
#include "codec/varint.h"
#include "log/log_int.h"
#include "quorum/qbatch.h"
#include "quorum/qsnap_int.h"

/* ---- names ---- */

size_t lr_qsnap_name(lr_qsnap_id id, const char *suffix, char *buf, size_t cap)
{
    if (id.end_offset < 0 || id.epoch < 0 || !suffix)
        return 0;
    int n = snprintf(buf, cap, "%020lld-%010d%s", (long long)id.end_offset, (int)id.epoch, suffix);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

static int digits(const char *s, int n, int64_t max, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (max - (s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

int lr_qsnap_parse_name(const char *name, lr_qsnap_id *id)
{
    static const char *const suffixes[] = {LR_QSNAP_SUFFIX, LR_QSNAP_PART_SUFFIX,
                                           LR_QSNAP_DELETED_SUFFIX};
    int64_t off, ep;
    if (strlen(name) < 31 || name[20] != '-' || !digits(name, 20, INT64_MAX, &off) ||
        !digits(name + 21, 10, INT32_MAX, &ep))
        return 0;
    for (int k = 0; k < 3; k++)
        if (strcmp(name + 31, suffixes[k]) == 0) {
            id->end_offset = off;
            id->epoch = (int32_t)ep;
            return k + 1;
        }
    return 0;
}

int lr_qsnap_path(const char *dir, lr_qsnap_id id, const char *suffix, char *buf)
{
    char name[LR_QSNAP_NAME_MAX];
    if (!dir || !lr_qsnap_name(id, suffix, name, sizeof name))
        return LOGREP_ERR__INVALID_ARG;
    int n = snprintf(buf, LR_PATH_MAX, "%s/%s", dir, name);
    return n < 0 || n >= LR_PATH_MAX ? LOGREP_ERR__INVALID_ARG : 0;
}

int lr_qsnap_part_open(lr_qsnap_part *p, const logrep_storage *st, const char *dir,
                       lr_qsnap_id id)
{
    memset(p, 0, sizeof *p);
    p->st = st;
    if (!st || !dir || strlen(dir) >= LR_PATH_MAX)
        return LOGREP_ERR__INVALID_ARG;
    strcpy(p->dir, dir);
    int err = lr_qsnap_path(dir, id, LR_QSNAP_PART_SUFFIX, p->part);
    if (!err)
        err = lr_qsnap_path(dir, id, LR_QSNAP_SUFFIX, p->path);
    if (!err)
        err = st->open(st->ctx, p->part, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &p->f);
    if (!err)
        err = st->truncate(st->ctx, p->f, 0);
    return err;
}

int lr_qsnap_part_install(lr_qsnap_part *p)
{
    logrep_file *f = p->f;
    p->f = NULL; /* closed by the install, whatever it returns */
    int err = lr_file_install(p->st, f, p->part, p->dir, p->path);
    p->installed = !err;
    return err;
}

void lr_qsnap_part_drop(lr_qsnap_part *p)
{
    if (p->f)
        p->st->close(p->st->ctx, p->f);
    p->f = NULL;
    if (!p->installed && p->part[0])
        p->st->remove(p->st->ctx, p->part);
    p->part[0] = 0;
}

/* ---- control record values (docs/quorum.md, "Snapshots") ---- */

size_t lr_qsnap_header_value(int64_t last_ts, uint8_t out[LR_QSNAP_HEADER_LEN])
{
    lr_put_be16(out, 0);                  /* Version */
    lr_put_be64(out + 2, (uint64_t)last_ts); /* LastContainedLogTimestamp */
    out[10] = 0;                          /* no tagged fields */
    return LR_QSNAP_HEADER_LEN;
}

size_t lr_qsnap_footer_value(uint8_t out[LR_QSNAP_FOOTER_LEN])
{
    lr_put_be16(out, 0); /* Version */
    out[2] = 0;          /* no tagged fields */
    return LR_QSNAP_FOOTER_LEN;
}

/* A flexible message's tagged-field section, exactly to end: unknown
 * tags are skipped, in strictly ascending order. */
static int skip_tags(const uint8_t *p, const uint8_t *end)
{
    uint32_t n, tag, size;
    int64_t last = -1;
    if (lr_uvarint_get(&p, end, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (lr_uvarint_get(&p, end, &tag) || (int64_t)tag <= last ||
            lr_uvarint_get(&p, end, &size) || size > (size_t)(end - p))
            return -1;
        last = tag;
        p += size;
    }
    return p == end ? 0 : -1;
}

/* ---- writing ---- */

struct lr_qsnap_writer {
    lr_alloc alloc;
    lr_qsnap_part file;
    int32_t epoch;
    int64_t now_ms;
    int64_t next;      /* offset of the next record */
    uint64_t pos;      /* bytes written */
    lr_buf recs;       /* pending records, back to back */
    size_t lens[LR_QSNAP_BATCH_RECORDS];
    size_t n;          /* pending records */
    lr_qentry e[LR_QSNAP_BATCH_RECORDS];
    lr_buf out;        /* the encoded batch */
    int err;           /* sticky */
};

/* Encodes e[0..n) at w->next and writes it. */
static int write_entries(lr_qsnap_writer *w, const lr_qentry *e, size_t n)
{
    lr_buf_clear(&w->out);
    int err = lr_qbatch_encode(w->next, e, n, w->now_ms, &w->out);
    if (!err)
        err = w->file.st->write(w->file.st->ctx, w->file.f, w->pos, w->out.data, w->out.len);
    if (!err) {
        w->pos += w->out.len;
        w->next += (int64_t)n;
    }
    return err;
}

static int flush_records(lr_qsnap_writer *w)
{
    if (!w->n)
        return 0;
    size_t at = 0;
    for (size_t i = 0; i < w->n; i++) {
        w->e[i] = (lr_qentry){w->epoch, 0, w->recs.data + at, w->lens[i]};
        at += w->lens[i];
    }
    int err = write_entries(w, w->e, w->n);
    w->n = 0;
    lr_buf_clear(&w->recs);
    return err;
}

static int write_control(lr_qsnap_writer *w, int16_t type, const uint8_t *v, size_t len)
{
    lr_qentry e = {w->epoch, type, v, len};
    return write_entries(w, &e, 1);
}

int lr_qsnap_writer_new(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                        lr_qsnap_id id, int64_t last_ts, int64_t now_ms, lr_qsnap_writer **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qsnap_writer *w = lr_calloc(a, 1, sizeof *w);
    if (!w)
        return LOGREP_ERR__NOMEM;
    w->alloc = *a;
    w->epoch = id.epoch;
    w->now_ms = now_ms;
    lr_buf_init(&w->recs, &w->alloc);
    lr_buf_init(&w->out, &w->alloc);
    int err = lr_qsnap_part_open(&w->file, st, dir, id);
    if (!err) {
        uint8_t v[LR_QSNAP_HEADER_LEN];
        err = write_control(w, LR_QSNAP_CTL_HEADER, v, lr_qsnap_header_value(last_ts, v));
    }
    if (err) {
        lr_qsnap_writer_free(w);
        return err;
    }
    *out = w;
    return 0;
}

int lr_qsnap_writer_add(lr_qsnap_writer *w, const uint8_t *rec, size_t len)
{
    if (w->err || w->file.installed)
        return w->err ? w->err : LOGREP_ERR__INVALID_ARG;
    if (len && !rec)
        return LOGREP_ERR__INVALID_ARG;
    if (len > LR_QBATCH_MAX_BYTES)
        return LOGREP_ERR__LIMIT;
    int err = 0;
    if (w->n == LR_QSNAP_BATCH_RECORDS || (w->n && w->recs.len + len > LR_QSNAP_BATCH_BYTES))
        err = flush_records(w);
    if (!err)
        err = lr_buf_append(&w->recs, rec, len);
    if (!err)
        w->lens[w->n++] = len;
    /* A record of a batch's worth or more goes out alone now (LIMIT here
     * when no batch can hold it). */
    if (!err && w->recs.len >= LR_QSNAP_BATCH_BYTES)
        err = flush_records(w);
    w->err = err;
    return err;
}

int lr_qsnap_writer_finish(lr_qsnap_writer *w, uint64_t *size)
{
    if (w->err || w->file.installed)
        return w->err ? w->err : LOGREP_ERR__INVALID_ARG;
    uint8_t v[LR_QSNAP_FOOTER_LEN];
    int err = flush_records(w);
    if (!err)
        err = write_control(w, LR_QSNAP_CTL_FOOTER, v, lr_qsnap_footer_value(v));
    if (!err)
        err = lr_qsnap_part_install(&w->file);
    w->err = err;
    if (!err && size)
        *size = w->pos;
    return err;
}

void lr_qsnap_writer_free(lr_qsnap_writer *w)
{
    if (!w)
        return;
    lr_qsnap_part_drop(&w->file);
    lr_buf_free(&w->recs);
    lr_buf_free(&w->out);
    lr_alloc a = w->alloc;
    lr_free(&a, w, sizeof *w);
}

/* ---- reading: one pass over the batches ---- */

typedef struct scan {
    int32_t epoch;
    int64_t next;  /* expected offset */
    int stage;     /* 0 before the header, 1 after it, 2 after the footer */
    lr_qsnap_info *info;
    lr_qsnap_fn fn;
    void *ctx;
    int fn_err;
} scan;

static int refuse(lr_qsnap_info *info, int err, const char *fmt, ...) LR_PRINTF(3, 4);
static int refuse(lr_qsnap_info *info, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->why, sizeof info->why, fmt, ap);
    va_end(ap);
    return err;
}

static int on_record(void *ctx, int64_t offset, const lr_qentry *e)
{
    scan *s = ctx;
    lr_qsnap_info *in = s->info;
    if (offset != s->next)
        return refuse(in, LOGREP_ERR__CORRUPT, "record at offset %lld, expected %lld",
                      (long long)offset, (long long)s->next);
    if (e->epoch != s->epoch)
        return refuse(in, LOGREP_ERR__CORRUPT, "offset %lld: epoch %d, the name says %d",
                      (long long)offset, (int)e->epoch, (int)s->epoch);
    if (s->stage == 2)
        return refuse(in, LOGREP_ERR__CORRUPT, "offset %lld: a record after the footer",
                      (long long)offset);
    s->next++;
    const uint8_t *v = e->data, *end = e->data + e->len;
    if (s->stage == 0) {
        if (e->control != LR_QSNAP_CTL_HEADER)
            return refuse(in, LOGREP_ERR__CORRUPT, "the first record is not a SnapshotHeader");
        if (e->len < 10 || skip_tags(v + 10, end))
            return refuse(in, LOGREP_ERR__CORRUPT, "malformed SnapshotHeader");
        if (lr_get_be16(v) != 0)
            return refuse(in, LOGREP_ERR__UNSUPPORTED, "SnapshotHeader version %d",
                          (int)(int16_t)lr_get_be16(v));
        in->last_ts = (int64_t)lr_get_be64(v + 2);
        s->stage = 1;
        return 0;
    }
    if (e->control == LR_QSNAP_CTL_FOOTER) {
        if (e->len < 2 || skip_tags(v + 2, end))
            return refuse(in, LOGREP_ERR__CORRUPT, "malformed SnapshotFooter");
        if (lr_get_be16(v) != 0)
            return refuse(in, LOGREP_ERR__UNSUPPORTED, "SnapshotFooter version %d",
                          (int)(int16_t)lr_get_be16(v));
        s->stage = 2;
        return 0;
    }
    if (e->control == LR_QSNAP_CTL_HEADER)
        return refuse(in, LOGREP_ERR__CORRUPT, "offset %lld: a second SnapshotHeader",
                      (long long)offset);
    if (e->control)
        return refuse(in, LOGREP_ERR__UNSUPPORTED, "offset %lld: control record type %d",
                      (long long)offset, (int)e->control);
    in->n_records++;
    if (s->fn && (s->fn_err = s->fn(s->ctx, offset, e->data, e->len)))
        return s->fn_err;
    return 0;
}

/* Reads [pos, pos+len) whole into buf. */
static int read_exact(const logrep_storage *st, logrep_file *f, uint64_t pos, void *buf,
                      size_t len)
{
    size_t got;
    int err = st->read(st->ctx, f, pos, buf, len, &got);
    return err ? err : got == len ? 0 : LOGREP_ERR__END;
}

/* One whole pass over an open file. */
static int scan_file(const logrep_storage *st, logrep_file *f, lr_buf *b, scan *s)
{
    lr_qsnap_info *in = s->info;
    uint64_t size, pos = 0;
    int err = st->size(st->ctx, f, &size);
    if (err)
        return err;
    in->size = size;
    while (!err && pos < size) {
        uint8_t head[LOGREP_LOG_OVERHEAD];
        if (size - pos < sizeof head)
            return refuse(in, LOGREP_ERR__CORRUPT, "torn batch at byte %llu", (unsigned long long)pos);
        if ((err = read_exact(st, f, pos, head, sizeof head)))
            break;
        int32_t blen = (int32_t)lr_get_be32(head + LR_B_LENGTH);
        if (blen < LOGREP_BATCH_HEADER_SIZE - LOGREP_LOG_OVERHEAD ||
            (uint64_t)blen > LR_QBATCH_MAX_BYTES - LOGREP_LOG_OVERHEAD)
            return refuse(in, LOGREP_ERR__CORRUPT, "batch at byte %llu: length %d",
                          (unsigned long long)pos, (int)blen);
        size_t bsize = (size_t)blen + LOGREP_LOG_OVERHEAD;
        if (size - pos < bsize)
            return refuse(in, LOGREP_ERR__CORRUPT, "torn batch at byte %llu", (unsigned long long)pos);
        lr_buf_clear(b);
        if ((err = lr_buf_reserve(b, bsize)) || (err = read_exact(st, f, pos, b->data, bsize)))
            break;
        size_t used = 0;
        err = lr_qbatch_decode(b->data, bsize, on_record, s, &used);
        if (s->fn_err)
            return s->fn_err;
        if (!err && used != bsize)
            err = LOGREP_ERR__CORRUPT;
        if (err && !in->why[0])
            refuse(in, err, "batch at byte %llu: %s", (unsigned long long)pos,
                   err == LOGREP_ERR__UNSUPPORTED ? "compressed" : "bad CRC or malformed");
        pos += bsize;
    }
    if (err == LOGREP_ERR__END)
        return refuse(in, LOGREP_ERR__CORRUPT, "the file shrank while read");
    if (!err && s->stage != 2)
        err = refuse(in, LOGREP_ERR__CORRUPT, s->stage ? "no SnapshotFooter" : "empty file");
    return err;
}

static int scan_path(const logrep_conf *conf, const logrep_storage *st, const char *path,
                     lr_qsnap_id id, lr_qsnap_fn fn, void *ctx, lr_qsnap_info *in)
{
    memset(in, 0, sizeof *in);
    in->id = id;
    logrep_file *f;
    int err = st->open(st->ctx, path, LOGREP_OPEN_READ, &f);
    if (err)
        return refuse(in, err, "cannot open: %s", logrep_err_name(err));
    lr_buf b;
    lr_buf_init(&b, lr_conf_alloc(conf));
    scan s = {id.epoch, 0, 0, in, fn, ctx, 0};
    err = scan_file(st, f, &b, &s);
    st->close(st->ctx, f);
    lr_buf_free(&b);
    if (err && !in->why[0])
        refuse(in, err, "%s", logrep_err_name(err));
    return err;
}

int lr_qsnap_check_path(const logrep_conf *conf, const logrep_storage *st, const char *path,
                        lr_qsnap_id id, lr_qsnap_info *info)
{
    lr_qsnap_info tmp;
    return scan_path(conf, st, path, id, NULL, NULL, info ? info : &tmp);
}

int lr_qsnap_check(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                   lr_qsnap_id id, lr_qsnap_info *info)
{
    char path[LR_PATH_MAX];
    if (!st || lr_qsnap_path(dir, id, LR_QSNAP_SUFFIX, path))
        return LOGREP_ERR__INVALID_ARG;
    return lr_qsnap_check_path(conf, st, path, id, info);
}

int lr_qsnap_read(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                  lr_qsnap_id id, lr_qsnap_fn fn, void *ctx, lr_qsnap_info *info)
{
    char path[LR_PATH_MAX];
    lr_qsnap_info tmp;
    if (!info)
        info = &tmp;
    if (!st || !fn || lr_qsnap_path(dir, id, LR_QSNAP_SUFFIX, path))
        return LOGREP_ERR__INVALID_ARG;
    int err = scan_path(conf, st, path, id, NULL, NULL, info);
    if (!err)
        err = scan_path(conf, st, path, id, fn, ctx, info);
    return err;
}

/* ---- the directory ---- */

typedef struct dir_walk {
    lr_qsnap_id *ids;
    size_t cap, n;
} dir_walk;

static int newer(lr_qsnap_id a, lr_qsnap_id b)
{
    return a.end_offset != b.end_offset ? a.end_offset > b.end_offset : a.epoch > b.epoch;
}

static int on_listed(void *ctx, const char *name)
{
    dir_walk *d = ctx;
    lr_qsnap_id id;
    if (lr_qsnap_parse_name(name, &id) != 1)
        return 0;
    d->n++;
    /* Keep the cap newest, newest first (insertion: the lists are short). */
    size_t have = d->n - 1 < d->cap ? d->n - 1 : d->cap, i = have;
    while (i > 0 && newer(id, d->ids[i - 1]))
        i--;
    if (i == d->cap)
        return 0;
    size_t move = (have < d->cap ? have : d->cap - 1) - i;
    memmove(&d->ids[i + 1], &d->ids[i], move * sizeof *d->ids);
    d->ids[i] = id;
    return 0;
}

int lr_qsnap_list(const logrep_storage *st, const char *dir, lr_qsnap_id *ids, size_t cap,
                  size_t *n)
{
    if (!st || !dir || !n || (cap && !ids))
        return LOGREP_ERR__INVALID_ARG;
    dir_walk d = {ids, cap, 0};
    int err = st->list(st->ctx, dir, on_listed, &d);
    *n = d.n;
    return err;
}

typedef struct strays {
    lr_qsnap_drop_fn drop;
    const void *ctx;
    lr_qsnap_id ids[32];
    int kinds[32];
    size_t n;
} strays;

static int on_stray(void *ctx, const char *name)
{
    strays *d = ctx;
    lr_qsnap_id id;
    int kind = lr_qsnap_parse_name(name, &id);
    if (kind && d->n < 32 && d->drop(d->ctx, id, kind)) {
        d->ids[d->n] = id;
        d->kinds[d->n++] = kind;
    }
    return 0;
}

int lr_qsnap_remove_if(const logrep_storage *st, const char *dir, lr_qsnap_drop_fn drop,
                       const void *ctx, size_t *removed)
{
    static const char *const suffixes[] = {LR_QSNAP_SUFFIX, LR_QSNAP_PART_SUFFIX,
                                           LR_QSNAP_DELETED_SUFFIX};
    if (!st || !dir)
        return LOGREP_ERR__INVALID_ARG;
    size_t gone = 0;
    int err;
    /* Collected, then removed (removing while listing is not safe for
     * every backend), 32 at a time. */
    for (;;) {
        strays d = {drop, ctx, .n = 0};
        if ((err = st->list(st->ctx, dir, on_stray, &d)) || !d.n)
            break;
        for (size_t i = 0; i < d.n && !err; i++) {
            char path[LR_PATH_MAX];
            err = lr_qsnap_path(dir, d.ids[i], suffixes[d.kinds[i] - 1], path);
            if (!err)
                err = st->remove(st->ctx, path);
            gone += !err;
        }
        if (err)
            break;
    }
    if (removed)
        *removed = gone;
    if (!err && gone && st->sync_dir)
        err = st->sync_dir(st->ctx, dir);
    return err;
}

static int is_stray(const void *ctx, lr_qsnap_id id, int kind)
{
    (void)ctx;
    (void)id;
    return kind != 1;
}

int lr_qsnap_clean(const logrep_storage *st, const char *dir, size_t *removed)
{
    return lr_qsnap_remove_if(st, dir, is_stray, NULL, removed);
}

int lr_qsnap_latest(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                    lr_qsnap_id *out, lr_qsnap_info *info, size_t *n_refused)
{
    lr_qsnap_id ids[16];
    size_t n, refused = 0;
    lr_qsnap_info tmp;
    if (!info)
        info = &tmp;
    if (n_refused)
        *n_refused = 0;
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qsnap_list(st, dir, ids, 16, &n);
    if (err)
        return err;
    lr_log lg = lr_conf_log(conf);
    err = LOGREP_ERR__NOENT;
    for (size_t i = 0; i < n && i < 16 && err; i++) {
        err = lr_qsnap_check(conf, st, dir, ids[i], info);
        if (!err)
            *out = ids[i];
        else if (err == LOGREP_ERR__NOMEM || err == LOGREP_ERR__IO)
            return err; /* says nothing about the file */
        else {
            refused++;
            if (lg.fn && LOGREP_LEVEL_ERROR <= lg.level)
                lr_logf(&lg, LOGREP_LEVEL_ERROR, "quorum", "%s: snapshot %lld-%d refused: %s",
                        dir, (long long)ids[i].end_offset, (int)ids[i].epoch, info->why);
            if (n_refused)
                *n_refused = refused;
            err = LOGREP_ERR__NOENT;
        }
    }
    return err;
}
