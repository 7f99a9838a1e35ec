/* The POSIX backend: the only place in the library that touches the OS. */
#define _GNU_SOURCE
#include "storage/storage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/conf.h"

struct logrep_file {
    int fd;
};

typedef struct posix_fs {
    logrep_storage vt;
    lr_alloc alloc;
    int last_errno;
} posix_fs;

static logrep_err fail(posix_fs *fs)
{
    fs->last_errno = errno;
    return lr_storage_errno_to_err(errno);
}

static logrep_err p_open(void *ctx, const char *path, int flags, logrep_file **out)
{
    posix_fs *fs = ctx;
    int oflags = O_CLOEXEC;
    oflags |= (flags & LOGREP_OPEN_WRITE) ? O_RDWR : O_RDONLY;
    if ((flags & LOGREP_OPEN_WRITE) && (flags & LOGREP_OPEN_CREATE))
        oflags |= O_CREAT | ((flags & LOGREP_OPEN_EXCL) ? O_EXCL : 0);
    logrep_file *f = lr_malloc(&fs->alloc, sizeof *f);
    if (!f)
        return LOGREP_ERR__NOMEM;
    do
        f->fd = open(path, oflags, 0644);
    while (f->fd < 0 && errno == EINTR);
    if (f->fd < 0) {
        logrep_err err = fail(fs);
        lr_free(&fs->alloc, f, sizeof *f);
        return err;
    }
    *out = f;
    return LOGREP_OK;
}

static logrep_err p_close(void *ctx, logrep_file *f)
{
    posix_fs *fs = ctx;
    /* Linux releases the descriptor even when close fails: never retry. */
    int rc = close(f->fd);
    logrep_err err = rc ? fail(fs) : LOGREP_OK;
    lr_free(&fs->alloc, f, sizeof *f);
    return err;
}

static logrep_err p_read(void *ctx, logrep_file *f, uint64_t pos, void *buf, size_t len,
                         size_t *nread)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(pos + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail(ctx);
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
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(f->fd, (const char *)buf + done, len - done, (off_t)(pos + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail(ctx);
        }
        done += (size_t)n;
    }
    return LOGREP_OK;
}

static logrep_err p_sync(void *ctx, logrep_file *f)
{
    return fdatasync(f->fd) ? fail(ctx) : LOGREP_OK;
}

static logrep_err p_size(void *ctx, logrep_file *f, uint64_t *out)
{
    struct stat st;
    if (fstat(f->fd, &st))
        return fail(ctx);
    *out = (uint64_t)st.st_size;
    return LOGREP_OK;
}

static logrep_err p_truncate(void *ctx, logrep_file *f, uint64_t size)
{
    int rc;
    do
        rc = ftruncate(f->fd, (off_t)size);
    while (rc && errno == EINTR);
    return rc ? fail(ctx) : LOGREP_OK;
}

static logrep_err p_rename(void *ctx, const char *from, const char *to)
{
    return rename(from, to) ? fail(ctx) : LOGREP_OK;
}

static logrep_err p_remove(void *ctx, const char *path)
{
    /* remove(3): a file, or an empty directory (retired partitions). */
    return remove(path) ? fail(ctx) : LOGREP_OK;
}

static logrep_err p_list(void *ctx, const char *path, logrep_list_fn fn, void *fn_ctx)
{
    DIR *d = opendir(path);
    if (!d)
        return fail(ctx);
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                rc = fail(ctx);
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
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fail(ctx);
    int rc = fsync(fd);
    logrep_err err = rc ? fail(ctx) : LOGREP_OK;
    close(fd);
    return err;
}

static logrep_err p_file_fd(void *ctx, logrep_file *f, int *fd)
{
    (void)ctx;
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
    lr_alloc a = fs->alloc;
    lr_free(&a, fs, sizeof *fs);
}

LOGREP_API logrep_err logrep_storage_posix_new(const logrep_conf *conf, logrep_storage **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    posix_fs *fs = lr_calloc(a, 1, sizeof *fs);
    if (!fs)
        return LOGREP_ERR__NOMEM;
    fs->alloc = *a;
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
