/* Snapshots in pieces (FetchSnapshot) and the log below a snapshot
 * (qsnap.h). */
#include <string.h>

#include "base/conf.h"
#include "log/log_int.h"
#include "quorum/qsnap_int.h"

int lr_qsnap_read_chunk(const logrep_storage *st, const char *dir, lr_qsnap_id id, uint64_t pos,
                        void *buf, size_t max, size_t *n, uint64_t *total)
{
    char path[LR_PATH_MAX];
    if (!st || !n || !total || (max && !buf) || lr_qsnap_path(dir, id, LR_QSNAP_SUFFIX, path))
        return LOGREP_ERR__INVALID_ARG;
    *n = 0;
    logrep_file *f;
    int err = st->open(st->ctx, path, LOGREP_OPEN_READ, &f);
    if (err)
        return err;
    err = st->size(st->ctx, f, total);
    if (!err && pos > *total)
        err = LOGREP_ERR__INVALID_ARG;
    if (!err && max > *total - pos)
        max = (size_t)(*total - pos);
    if (!err && max)
        err = st->read(st->ctx, f, pos, buf, max, n);
    st->close(st->ctx, f);
    return err;
}

struct lr_qsnap_recv {
    lr_alloc alloc;
    const logrep_conf *conf;
    lr_qsnap_part file;
    lr_qsnap_id id;
    uint64_t size, pos;
    int err; /* sticky: a storage error */
};

int lr_qsnap_recv_new(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                      lr_qsnap_id id, uint64_t size, lr_qsnap_recv **out)
{
    if (!out || size < 2 * LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qsnap_recv *r = lr_calloc(a, 1, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    r->alloc = *a;
    r->conf = conf;
    r->id = id;
    r->size = size;
    int err = lr_qsnap_part_open(&r->file, st, dir, id);
    if (err) {
        lr_qsnap_recv_free(r);
        return err;
    }
    *out = r;
    return 0;
}

int lr_qsnap_recv_append(lr_qsnap_recv *r, uint64_t pos, const void *data, size_t len)
{
    if (r->err || r->file.installed)
        return r->err ? r->err : LOGREP_ERR__INVALID_ARG;
    if (pos != r->pos || (len && !data))
        return LOGREP_ERR__INVALID_ARG;
    if (len > r->size - r->pos)
        return LOGREP_ERR__LIMIT;
    if (!len)
        return 0;
    const logrep_storage *st = r->file.st;
    int err = st->write(st->ctx, r->file.f, pos, data, len);
    if (err)
        return r->err = err;
    r->pos += len;
    return 0;
}

uint64_t lr_qsnap_recv_position(const lr_qsnap_recv *r) { return r->pos; }

int lr_qsnap_recv_finish(lr_qsnap_recv *r, lr_qsnap_info *info)
{
    if (r->err || r->file.installed)
        return r->err ? r->err : LOGREP_ERR__INVALID_ARG;
    if (r->pos != r->size)
        return LOGREP_ERR__INVALID_ARG;
    /* Checked before the rename: a bad transfer never becomes a snapshot. */
    int err = lr_qsnap_check_path(r->conf, r->file.st, r->file.part, r->id, info);
    if (!err)
        err = lr_qsnap_part_install(&r->file);
    else
        lr_qsnap_part_drop(&r->file); /* refused: fetch again */
    r->err = err;
    return err;
}

void lr_qsnap_recv_free(lr_qsnap_recv *r)
{
    if (!r)
        return;
    lr_qsnap_part_drop(&r->file);
    lr_alloc a = r->alloc;
    lr_free(&a, r, sizeof *r);
}

int lr_qsnap_trim_log(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                      logrep_log *log, lr_qsnap_id id)
{
    if (!log)
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qsnap_check(conf, st, dir, id, NULL);
    if (err)
        return err;
    if (id.end_offset > logrep_log_end_offset(log))
        return LOGREP_ERR__UNSUPPORTED;
    return logrep_log_advance_start(log, id.end_offset);
}

static int is_older(const void *ctx, lr_qsnap_id id, int kind)
{
    const lr_qsnap_id *than = ctx;
    return kind == 1 && (id.end_offset < than->end_offset ||
                         (id.end_offset == than->end_offset && id.epoch < than->epoch));
}

int lr_qsnap_delete_before(const logrep_storage *st, const char *dir, lr_qsnap_id id,
                           size_t *removed)
{
    return lr_qsnap_remove_if(st, dir, is_older, &id, removed);
}
