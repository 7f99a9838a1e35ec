/* The POSIX backend's bounded pool of open descriptors (docs/storage.md,
 * "Open files").
 *
 * A logrep_file keeps its path and open flags; its descriptor is opened on
 * demand and may be closed by the pool, least recently used first, while
 * more than `cap` descriptors are open. Only clean files are closed: none
 * written or truncated since their last successful sync (see fdpool.c for
 * why). Dirty files, files whose descriptor was handed out by file_fd, and
 * files removed or replaced while open are never closed by the pool; the
 * pool then goes over its cap rather than lose durability, and counts it. */
#ifndef LR_STORAGE_FDPOOL_H
#define LR_STORAGE_FDPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/alloc.h"
#include <logrep/storage.h>

struct logrep_file {
    int fd;              /* -1 while closed by the pool */
    int oflags;          /* O_RDONLY or O_RDWR, O_CLOEXEC: what a reopen uses */
    unsigned dirty : 1;  /* written or truncated since the last good sync */
    unsigned held : 1;   /* pinned by file_fd, or its path is gone: kept open */
    unsigned in_lru : 1;
    dev_t dev;           /* identity checked on reopen */
    ino_t ino;
    char *path;          /* NULL once removed or replaced (held files only) */
    uint64_t hash;       /* of path */
    logrep_file *hnext;  /* path hash chain */
    logrep_file *prev, *next; /* LRU list of closable files */
};

typedef struct lr_fdpool {
    lr_alloc alloc;
    size_t cap;
    size_t open;         /* descriptors held now */
    size_t held;
    uint64_t reopens, evictions, over_cap;
    logrep_file *lru_head, *lru_tail; /* head: least recently used */
    logrep_file **buckets;
    size_t nbuckets, nfiles; /* nbuckets: a power of two */
} lr_fdpool;

/* Every function returning int returns 0, or -1 with errno set (ENOMEM
 * when out of memory). */

/* cap >= 1. */
int lr_fdpool_init(lr_fdpool *p, const lr_alloc *a, size_t cap);
void lr_fdpool_free(lr_fdpool *p);

/* open(2) that retries EINTR, and EMFILE/ENFILE after closing a clean
 * file: for descriptors used and closed within one call (directories).
 * The descriptor, or -1. */
int lr_fdpool_sys_open(lr_fdpool *p, const char *path, int oflags);

/* Opens a new file (oflags may carry O_CREAT and O_EXCL; reopens never
 * do). */
int lr_fdpool_open(lr_fdpool *p, const char *path, int oflags, logrep_file **out);
/* Closes the descriptor (when open) and frees the file; -1 when close(2)
 * failed (the file is freed all the same). */
int lr_fdpool_close(lr_fdpool *p, logrep_file *f);

/* Makes f->fd valid, reopening the file when the pool closed it. */
int lr_fdpool_get(lr_fdpool *p, logrep_file *f);
/* Before a write or truncate: the file is not closed until synced. */
void lr_fdpool_dirty(lr_fdpool *p, logrep_file *f);
/* After a successful sync. */
void lr_fdpool_clean(lr_fdpool *p, logrep_file *f);
/* file_fd handed out the descriptor: kept open until close. */
void lr_fdpool_hold(lr_fdpool *p, logrep_file *f);

/* Before `path` is removed or replaced: files open on it keep the file
 * they have (reopened first when closed) and are held from then on. */
void lr_fdpool_unlinking(lr_fdpool *p, const char *path);

/* A rename from -> to (a file, or with dir set a directory and the files
 * under it) in
 * three steps: prepare allocates the new paths, so that nothing can fail
 * after the OS rename; then commit, or abort when the rename failed. */
typedef struct lr_fdmove {
    logrep_file **files;
    char **paths;
    size_t n;
} lr_fdmove;
int lr_fdpool_move_prepare(lr_fdpool *p, const char *from, const char *to, int dir,
                           lr_fdmove *m);
void lr_fdpool_move_commit(lr_fdpool *p, lr_fdmove *m);
void lr_fdpool_move_abort(lr_fdpool *p, lr_fdmove *m);

#endif
