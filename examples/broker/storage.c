/* The broker's storage: the library's POSIX backend, plus a bounded
 * page-cache footprint for segment files.
 *
 * Appends that grow the page cache take fresh pages from the kernel. In a
 * VM whose free memory is handed back to the host (free page reporting of
 * a balloon device), a fresh page costs a host fault on first touch: buffered writes into new pages ran at
 * ~0.45 GB/s here against ~6 GB/s into recycled ones, and with three
 * replicas on one machine that copy was most of the brokers' CPU at 1 KiB
 * records. So once a segment's end has moved `window` bytes past a range,
 * that range (written back by then: its writeback starts half a window
 * behind the end) is dropped from the page cache, and the next appends
 * reuse its pages. Consumers and followers at the tail read from the
 * cache; readers further behind than the window read from disk, as after
 * any eviction. Durability is unchanged: this only starts writeback early
 * and drops clean pages; fdatasync still follows flush.* as before. */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include <logrep/storage.h>

#define STEP (4u << 20) /* per-file granularity of writeback and drops */

typedef struct bfile {
    logrep_file *in;
    int trim;      /* a segment (.log) file opened for writing */
    uint64_t mark; /* end of the last STEP handled; UINT64_MAX: none yet */
} bfile;

typedef struct bstore {
    logrep_storage tab; /* first: the table handed to the library */
    logrep_storage *in;
    uint64_t window;
} bstore;

#define IN(s) ((bstore *)(s))->in
#define INF(f) (((bfile *)(f))->in)

static logrep_err b_open(void *ctx, const char *path, int flags, logrep_file **out)
{
    bstore *s = ctx;
    bfile *f = malloc(sizeof *f);
    if (!f)
        return LOGREP_ERR__NOMEM;
    logrep_err e = s->in->open(s->in->ctx, path, flags, &f->in);
    if (e) {
        free(f);
        return e;
    }
    f->mark = UINT64_MAX;
    size_t n = strlen(path);
    f->trim = s->window && (flags & LOGREP_OPEN_WRITE) && n > 4 && strcmp(path + n - 4, ".log") == 0;
    *out = (logrep_file *)f;
    return LOGREP_OK;
}

static logrep_err b_close(void *ctx, logrep_file *f)
{
    logrep_err e = IN(ctx)->close(IN(ctx)->ctx, INF(f));
    free(f);
    return e;
}

static logrep_err b_read(void *ctx, logrep_file *f, uint64_t pos, void *buf, size_t len,
                         size_t *nread)
{
    return IN(ctx)->read(IN(ctx)->ctx, INF(f), pos, buf, len, nread);
}

/* Starts writeback half a window behind `end` and drops what lies a whole
 * window behind, one STEP at a time, on descriptor fd (the file was just
 * written, so the backend's pool has it open; peeking does not pin it as
 * file_fd would, which would keep every segment's descriptor open). */
static void trim_cache(const bstore *s, bfile *f, int fd, uint64_t end)
{
    if (f->mark == UINT64_MAX || end < f->mark || end - f->mark > 64 * (uint64_t)STEP)
        f->mark = end - end % STEP; /* first write, truncation or a jump */
    uint64_t half = s->window / 2;
    while (end >= f->mark + STEP) {
        f->mark += STEP;
        if (f->mark >= half + STEP)
            sync_file_range(fd, (off_t)(f->mark - half - STEP), STEP, SYNC_FILE_RANGE_WRITE);
        if (f->mark >= s->window + STEP)
            posix_fadvise(fd, (off_t)(f->mark - s->window - STEP), STEP, POSIX_FADV_DONTNEED);
    }
}

static logrep_err b_write(void *ctx, logrep_file *f, uint64_t pos, const void *buf, size_t len)
{
    logrep_err e = IN(ctx)->write(IN(ctx)->ctx, INF(f), pos, buf, len);
    int fd;
    if (e == LOGREP_OK && ((bfile *)f)->trim &&
        logrep_storage_posix_peek_fd(IN(ctx), INF(f), &fd) == LOGREP_OK)
        trim_cache(ctx, (bfile *)f, fd, pos + len);
    return e;
}

static logrep_err b_sync(void *ctx, logrep_file *f)
{
    return IN(ctx)->sync(IN(ctx)->ctx, INF(f));
}

static logrep_err b_size(void *ctx, logrep_file *f, uint64_t *out)
{
    return IN(ctx)->size(IN(ctx)->ctx, INF(f), out);
}

static logrep_err b_truncate(void *ctx, logrep_file *f, uint64_t size)
{
    return IN(ctx)->truncate(IN(ctx)->ctx, INF(f), size);
}

static logrep_err b_rename(void *ctx, const char *from, const char *to)
{
    return IN(ctx)->rename(IN(ctx)->ctx, from, to);
}

static logrep_err b_remove(void *ctx, const char *path)
{
    return IN(ctx)->remove(IN(ctx)->ctx, path);
}

static logrep_err b_list(void *ctx, const char *path, logrep_list_fn fn, void *fn_ctx)
{
    return IN(ctx)->list(IN(ctx)->ctx, path, fn, fn_ctx);
}

static logrep_err b_mkdir(void *ctx, const char *path)
{
    return IN(ctx)->mkdir(IN(ctx)->ctx, path);
}

static logrep_err b_sync_dir(void *ctx, const char *path)
{
    return IN(ctx)->sync_dir ? IN(ctx)->sync_dir(IN(ctx)->ctx, path) : LOGREP_OK;
}

static logrep_err b_file_fd(void *ctx, logrep_file *f, int *fd)
{
    if (!IN(ctx)->file_fd)
        return LOGREP_ERR__UNSUPPORTED;
    return IN(ctx)->file_fd(IN(ctx)->ctx, INF(f), fd);
}

static int b_last_errno(void *ctx)
{
    return IN(ctx)->last_errno ? IN(ctx)->last_errno(IN(ctx)->ctx) : 0;
}

static void b_destroy(void *ctx)
{
    bstore *s = ctx;
    logrep_storage_free(s->in);
    free(s);
}

logrep_err broker_storage_fd_stats(const logrep_storage *st, logrep_storage_fd_stats *out)
{
    return logrep_storage_posix_fd_stats(((const bstore *)st)->in, out);
}

logrep_err broker_storage_new(logrep_conf *conf, uint64_t window, logrep_storage **out)
{
    bstore *s = calloc(1, sizeof *s);
    if (!s)
        return LOGREP_ERR__NOMEM;
    logrep_err e = logrep_storage_posix_new(conf, &s->in);
    if (e) {
        free(s);
        return e;
    }
    s->window = window;
    s->tab = (logrep_storage){
        .version = LOGREP_STORAGE_VERSION,
        .ctx = s,
        .open = b_open,
        .close = b_close,
        .read = b_read,
        .write = b_write,
        .sync = b_sync,
        .size = b_size,
        .truncate = b_truncate,
        .rename = b_rename,
        .remove = b_remove,
        .list = b_list,
        .mkdir = b_mkdir,
        .sync_dir = b_sync_dir,
        .file_fd = b_file_fd,
        .last_errno = b_last_errno,
        .destroy = b_destroy,
    };
    *out = &s->tab;
    return LOGREP_OK;
}
