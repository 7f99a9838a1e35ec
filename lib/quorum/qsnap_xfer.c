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
    const logrep_storage *st;
    logrep_file *f;
    lr_qsnap_id id;
    uint64_t size, pos;
    char dir[LR_PATH_MAX], part[LR_PATH_MAX], path[LR_PATH_MAX];
    int err; /* sticky: a storage error */
    int done;
};

int lr_qsnap_recv_new(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                      lr_qsnap_id id, uint64_t size, lr_qsnap_recv **out)
{
    if (!st || !dir || !out || strlen(dir) >= LR_PATH_MAX || size < 2 * LOGREP_BATCH_HEADER_SIZE)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qsnap_recv *r = lr_calloc(a, 1, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    r->alloc = *a;
    r->conf = conf;
    r->st = st;
    r->id = id;
    r->size = size;
    strcpy(r->dir, dir);
    int err = lr_qsnap_path(dir, id, LR_QSNAP_PART_SUFFIX, r->part);
    if (!err)
        err = lr_qsnap_path(dir, id, LR_QSNAP_SUFFIX, r->path);
    if (!err)
        err = st->open(st->ctx, r->part, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &r->f);
    if (!err)
        err = st->truncate(st->ctx, r->f, 0);
    if (err) {
        lr_qsnap_recv_free(r);
        return err;
    }
    *out = r;
    return 0;
}

int lr_qsnap_recv_append(lr_qsnap_recv *r, uint64_t pos, const void *data, size_t len)
{
    if (r->err || r->done)
        return r->err ? r->err : LOGREP_ERR__INVALID_ARG;
    if (pos != r->pos || (len && !data))
        return LOGREP_ERR__INVALID_ARG;
    if (len > r->size - r->pos)
        return LOGREP_ERR__LIMIT;
    if (!len)
        return 0;
    int err = r->st->write(r->st->ctx, r->f, pos, data, len);
    if (err)
        return r->err = err;
    r->pos += len;
    return 0;
}

uint64_t lr_qsnap_recv_position(const lr_qsnap_recv *r) { return r->pos; }

int lr_qsnap_recv_finish(lr_qsnap_recv *r, lr_qsnap_info *info)
{
    if (r->err || r->done)
        return r->err ? r->err : LOGREP_ERR__INVALID_ARG;
    if (r->pos != r->size)
        return LOGREP_ERR__INVALID_ARG;
    /* Checked before the rename: a bad transfer never becomes a snapshot. */
    int err = lr_qsnap_check_path(r->conf, r->st, r->part, r->id, info);
    if (!err) {
        logrep_file *f = r->f;
        r->f = NULL; /* closed by the install, whatever it returns */
        err = lr_file_install(r->st, f, r->part, r->dir, r->path);
    }
    r->err = err;
    r->done = !err;
    return err;
}

void lr_qsnap_recv_free(lr_qsnap_recv *r)
{
    if (!r)
        return;
    if (r->f)
        r->st->close(r->st->ctx, r->f);
    if (!r->done && r->part[0])
        r->st->remove(r->st->ctx, r->part);
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
