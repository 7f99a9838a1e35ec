/* The POSIX backend: the only place in the library that touches the OS.
 * Descriptors come from a bounded pool (fdpool.h). */
#define _GNU_SOURCE
#include "storage/storage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/conf.h"
#include "storage/fdpool.h"

typedef struct posix_fs {
    logrep_storage vt;
    lr_fdpool pool;
    int last_errno;
} posix_fs;

static logrep_err fail(posix_fs *fs)
{
    fs->last_errno = errno;
    return lr_storage_errno_to_err(errno);
}

/* A file the pool closed could not be reopened: an I/O error of the call
 * (whatever errno says; the file was there when it was opened). */
static logrep_err reopen_failed(posix_fs *fs)
{
    fs->last_errno = errno;
    return LOGREP_ERR__IO;
}

static logrep_err p_open(void *ctx, const char *path, int flags, logrep_file **out)
{
    posix_fs *fs = ctx;
    int oflags = O_CLOEXEC;
    oflags |= (flags & LOGREP_OPEN_WRITE) ? O_RDWR : O_RDONLY;
    if ((flags & LOGREP_OPEN_WRITE) && (flags & LOGREP_OPEN_CREATE))
        oflags |= O_CREAT | ((flags & LOGREP_OPEN_EXCL) ? O_EXCL : 0);
    return lr_fdpool_open(&fs->pool, path, oflags, out) ? fail(fs) : LOGREP_OK;
}

static logrep_err p_close(void *ctx, logrep_file *f)
{
    posix_fs *fs = ctx;
    return lr_fdpool_close(&fs->pool, f) ? fail(fs) : LOGREP_OK;
}

static logrep_err p_read(void *ctx, logrep_file *f, uint64_t pos, void *buf, size_t len,
                         size_t *nread)
{
    posix_fs *fs = ctx;
    if (lr_fdpool_get(&fs->pool, f))
        return reopen_failed(fs);
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(pos + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail(fs);
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *nread = done;
    return LOGREP_OK;
}

static logrep_err p_write(void *ctx, logrep_file *f, uint64_t pos, const void *buf, size_t len)
{
    posix_fs *fs = ctx;
    if (lr_fdpool_get(&fs->pool, f))
        return reopen_failed(fs);
    lr_fdpool_dirty(&fs->pool, f); /* before: a failed write may leave a prefix */
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(f->fd, (const char *)buf + done, len - done, (off_t)(pos + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail(fs);
        }
        done += (size_t)n;
    }
    return LOGREP_OK;
}

static logrep_err p_sync(void *ctx, logrep_file *f)
{
    posix_fs *fs = ctx;
    if (f->fd < 0)
        return LOGREP_OK; /* closed by the pool, so synced since its last write */
    if (fdatasync(f->fd))
        return fail(fs); /* stays dirty: its state on disk is unknown */
    lr_fdpool_clean(&fs->pool, f);
    return LOGREP_OK;
}

static logrep_err p_size(void *ctx, logrep_file *f, uint64_t *out)
{
    posix_fs *fs = ctx;
    if (lr_fdpool_get(&fs->pool, f))
        return reopen_failed(fs);
    struct stat st;
    if (fstat(f->fd, &st))
        return fail(fs);
    *out = (uint64_t)st.st_size;
    return LOGREP_OK;
}

static logrep_err p_truncate(void *ctx, logrep_file *f, uint64_t size)
{
    posix_fs *fs = ctx;
    if (lr_fdpool_get(&fs->pool, f))
        return reopen_failed(fs);
    /* Already that size (the log empties every file it creates): nothing
     * changes, and the file stays closable. */
    struct stat st;
    if (fstat(f->fd, &st) == 0 && (uint64_t)st.st_size == size)
        return LOGREP_OK;
    lr_fdpool_dirty(&fs->pool, f);
    int rc;
    do
        rc = ftruncate(f->fd, (off_t)size);
    while (rc && errno == EINTR);
    return rc ? fail(fs) : LOGREP_OK;
}

/* Files open on `from` (or under it) follow it to `to`, as descriptors
 * would; files open on a replaced `to` keep the file they had. */
static logrep_err p_rename(void *ctx, const char *from, const char *to)
{
    posix_fs *fs = ctx;
    struct stat st;
    /* Nothing to move (the rename fails, or is a no-op): the pool stays. */
    if (lstat(from, &st) || strcmp(from, to) == 0)
        return rename(from, to) ? fail(fs) : LOGREP_OK;
    lr_fdmove m;
    if (lr_fdpool_move_prepare(&fs->pool, from, to, S_ISDIR(st.st_mode), &m))
        return fail(fs);
    lr_fdpool_unlinking(&fs->pool, to);
    if (rename(from, to)) {
        logrep_err err = fail(fs);
        lr_fdpool_move_abort(&fs->pool, &m);
        return err;
    }
    lr_fdpool_move_commit(&fs->pool, &m);
    return LOGREP_OK;
}

static logrep_err p_remove(void *ctx, const char *path)
{
    posix_fs *fs = ctx;
    /* Files still open on it keep reading it, as descriptors would. */
    lr_fdpool_unlinking(&fs->pool, path);
    /* remove(3): a file, or an empty directory (retired partitions). */
    return remove(path) ? fail(fs) : LOGREP_OK;
}

static logrep_err p_list(void *ctx, const char *path, logrep_list_fn fn, void *fn_ctx)
{
    posix_fs *fs = ctx;
    int fd = lr_fdpool_sys_open(&fs->pool, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        logrep_err err = fail(fs);
        if (fd >= 0)
            close(fd);
        return err;
    }
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                rc = fail(fs);
            break;
        }
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if ((rc = fn(fn_ctx, e->d_name)) != 0)
            break;
    }
    closedir(d);
    return (logrep_err)rc;
}

static logrep_err p_mkdir(void *ctx, const char *path)
{
    return mkdir(path, 0755) ? fail(ctx) : LOGREP_OK;
}

static logrep_err p_sync_dir(void *ctx, const char *path)
{
    posix_fs *fs = ctx;
    int fd = lr_fdpool_sys_open(&fs->pool, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fail(fs);
    int rc = fsync(fd);
    logrep_err err = rc ? fail(fs) : LOGREP_OK;
    close(fd);
    return err;
}

/* The caller may use the descriptor at any later time (the node queues it
 * in responses; hosts sendfile from it): it stays open until close. */
static logrep_err p_file_fd(void *ctx, logrep_file *f, int *fd)
{
    posix_fs *fs = ctx;
    if (lr_fdpool_get(&fs->pool, f))
        return reopen_failed(fs);
    lr_fdpool_hold(&fs->pool, f);
    *fd = f->fd;
    return LOGREP_OK;
}

static int p_last_errno(void *ctx)
{
    return ((posix_fs *)ctx)->last_errno;
}

static void p_destroy(void *ctx)
{
    posix_fs *fs = ctx;
    lr_alloc a = fs->pool.alloc;
    lr_fdpool_free(&fs->pool);
    lr_free(&a, fs, sizeof *fs);
}

/* Half the soft RLIMIT_NOFILE: the rest is left to sockets and the host. */
static size_t default_cap(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 512;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)2 << 20)
        return (size_t)1 << 20;
    return rl.rlim_cur >= 4 ? (size_t)(rl.rlim_cur / 2) : 1;
}

LOGREP_API logrep_err logrep_storage_posix_new(const logrep_conf *conf, logrep_storage **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    posix_fs *fs = lr_calloc(a, 1, sizeof *fs);
    if (!fs)
        return LOGREP_ERR__NOMEM;
    int64_t cap = lr_conf_int(conf, LR_CONF_MAX_OPEN_FILES);
    if (lr_fdpool_init(&fs->pool, a, cap > 0 ? (size_t)cap : default_cap())) {
        lr_free(a, fs, sizeof *fs);
        return LOGREP_ERR__NOMEM;
    }
    fs->vt = (logrep_storage){
        .version = LOGREP_STORAGE_VERSION,
        .ctx = fs,
        .open = p_open,
        .close = p_close,
        .read = p_read,
        .write = p_write,
        .sync = p_sync,
        .size = p_size,
        .truncate = p_truncate,
        .rename = p_rename,
        .remove = p_remove,
        .list = p_list,
        .mkdir = p_mkdir,
        .sync_dir = p_sync_dir,
        .file_fd = p_file_fd,
        .last_errno = p_last_errno,
        .destroy = p_destroy,
    };
    *out = &fs->vt;
    return LOGREP_OK;
}

static posix_fs *as_posix(const logrep_storage *s)
{
    return s && s->open == p_open ? s->ctx : NULL;
}

LOGREP_API logrep_err logrep_storage_posix_peek_fd(const logrep_storage *s, const logrep_file *f,
                                                   int *fd)
{
    if (!as_posix(s) || !f || !fd)
        return LOGREP_ERR__INVALID_ARG;
    if (f->fd < 0)
        return LOGREP_ERR__UNSUPPORTED;
    *fd = f->fd;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_storage_posix_fd_stats(const logrep_storage *s,
                                                    logrep_storage_fd_stats *out)
{
    const posix_fs *fs = as_posix(s);
    if (!fs || !out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_fdpool *p = &fs->pool;
    *out = (logrep_storage_fd_stats){
        .open = p->open,
        .max_open = p->cap,
        .held = p->held,
        .reopens = p->reopens,
        .evictions = p->evictions,
        .over_cap = p->over_cap,
    };
    return LOGREP_OK;
}
