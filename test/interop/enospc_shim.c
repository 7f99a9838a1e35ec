/* A full disk without privileges, for test/interop/disk_full.sh where no
 * size-limited tmpfs can be mounted: an LD_PRELOAD library that makes
 * writes into one directory fail with ENOSPC once its files hold a byte
 * budget. The space in use is the sum of the sizes of the regular files
 * under the directory, taken at each write that would grow a file, so
 * removing a file (by any process) frees its bytes. Test use only.
 *
 *   LOGREP_ENOSPC_DIR=/abs/dir LOGREP_ENOSPC_BYTES=16777216 \
 *   LD_PRELOAD=build/test/enospc_shim.so program
 *
 * Covers write, pwrite, writev, pwritev, fallocate, posix_fallocate and
 * ftruncate growing a file (and their 64-bit names); lib/storage/posix.c
 * writes with pwrite and only shrinks with ftruncate. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static char dir[4096];
static size_t dir_len;
static long long budget = -1;

__attribute__((constructor)) static void shim_init(void)
{
    const char *d = getenv("LOGREP_ENOSPC_DIR");
    const char *b = getenv("LOGREP_ENOSPC_BYTES");
    if (!d || !b || !realpath(d, dir))
        return;
    dir_len = strlen(dir);
    budget = atoll(b);
}

static long long scanned;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)path;
    (void)f;
    if (type == FTW_F && S_ISREG(st->st_mode))
        scanned += (long long)st->st_size;
    return 0;
}

/* Whether fd is a regular file under the directory; its size into *size. */
static int watched(int fd, long long *size)
{
    if (budget < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = 0;
    if ((size_t)n <= dir_len || strncmp(path, dir, dir_len) != 0 || path[dir_len] != '/')
        return 0;
    *size = (long long)st.st_size;
    return 1;
}

/* 0 when fd may grow to `end` bytes, else -1 with errno ENOSPC. */
static int room(int fd, long long end)
{
    long long size;
    if (!watched(fd, &size) || end <= size)
        return 0;
    scanned = 0;
    nftw(dir, add_size, 16, FTW_PHYS);
    if (scanned + (end - size) <= budget)
        return 0;
    errno = ENOSPC;
    return -1;
}

static long long at_end(int fd, long long len)
{
    int fl = fcntl(fd, F_GETFL);
    off_t pos = (fl >= 0 && (fl & O_APPEND)) ? lseek(fd, 0, SEEK_END) : lseek(fd, 0, SEEK_CUR);
    return pos < 0 ? 0 : (long long)pos + len;
}

static long long iov_len(const struct iovec *iov, int n)
{
    long long t = 0;
    for (int i = 0; i < n; i++)
        t += (long long)iov[i].iov_len;
    return t;
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void *buf, size_t len)
{
    if (room(fd, at_end(fd, (long long)len)))
        return -1;
    return REAL("write", ssize_t (*)(int, const void *, size_t))(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t pos)
{
    if (room(fd, (long long)pos + (long long)len))
        return -1;
    return REAL("pwrite", ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, len, pos);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t pos)
{
    if (room(fd, (long long)pos + (long long)len))
        return -1;
    return REAL("pwrite64", ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, len, pos);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    if (room(fd, at_end(fd, iov_len(iov, n))))
        return -1;
    return REAL("writev", ssize_t (*)(int, const struct iovec *, int))(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t pos)
{
    if (room(fd, (long long)pos + iov_len(iov, n)))
        return -1;
    return REAL("pwritev", ssize_t (*)(int, const struct iovec *, int, off_t))(fd, iov, n, pos);
}

int fallocate(int fd, int mode, off_t pos, off_t len)
{
    if (room(fd, (long long)pos + (long long)len))
        return -1;
    return REAL("fallocate", int (*)(int, int, off_t, off_t))(fd, mode, pos, len);
}

int fallocate64(int fd, int mode, off_t pos, off_t len)
{
    if (room(fd, (long long)pos + (long long)len))
        return -1;
    return REAL("fallocate64", int (*)(int, int, off_t, off_t))(fd, mode, pos, len);
}

/* posix_fallocate reports the error as its result, not in errno. */
int posix_fallocate(int fd, off_t pos, off_t len)
{
    if (room(fd, (long long)pos + (long long)len))
        return ENOSPC;
    return REAL("posix_fallocate", int (*)(int, off_t, off_t))(fd, pos, len);
}

int ftruncate(int fd, off_t len)
{
    if (room(fd, (long long)len))
        return -1;
    return REAL("ftruncate", int (*)(int, off_t))(fd, len);
}

int ftruncate64(int fd, off_t len)
{
    if (room(fd, (long long)len))
        return -1;
    return REAL("ftruncate64", int (*)(int, off_t))(fd, len);
}
