/* The bounded descriptor pool of the POSIX backend (fdpool.h).
 *
 * Why only clean files are closed: Linux reports a failed writeback to the
 * descriptors that were open on the file when it failed (once more to a
 * later opener since 4.16, but only while the inode stays cached). A
 * descriptor closed over dirty pages may never learn that they did not
 * reach the disk, and a later fdatasync through a new descriptor can
 * succeed over the lost write. Once fdatasync succeeded and nothing was
 * written since, there is nothing left to report: closing is as safe as
 * keeping the descriptor. */
#include "storage/fdpool.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hashmap.h"

#define NO_REOPEN_FLAGS (O_CREAT | O_EXCL | O_TRUNC)

int lr_fdpool_init(lr_fdpool *p, const lr_alloc *a, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    p->cap = cap ? cap : 1;
    p->nbuckets = 64;
    p->buckets = lr_calloc(a, p->nbuckets, sizeof *p->buckets);
    if (!p->buckets) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void lr_fdpool_free(lr_fdpool *p)
{
    lr_free(&p->alloc, p->buckets, p->nbuckets * sizeof *p->buckets);
    p->buckets = NULL;
}

/* ---- LRU of closable files: open, clean, not held ---- */

static void lru_del(lr_fdpool *p, logrep_file *f)
{
    if (!f->in_lru)
        return;
    if (f->prev)
        f->prev->next = f->next;
    else
        p->lru_head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        p->lru_tail = f->prev;
    f->prev = f->next = NULL;
    f->in_lru = 0;
}

/* Moves f to the most recently used end when it is closable. */
static void lru_touch(lr_fdpool *p, logrep_file *f)
{
    lru_del(p, f);
    if (f->fd < 0 || f->dirty || f->held)
        return;
    f->prev = p->lru_tail;
    if (p->lru_tail)
        p->lru_tail->next = f;
    else
        p->lru_head = f;
    p->lru_tail = f;
    f->in_lru = 1;
}

static int evict_one(lr_fdpool *p)
{
    logrep_file *f = p->lru_head;
    if (!f)
        return 0;
    lru_del(p, f);
    int e = errno;
    close(f->fd); /* clean: a failure here loses nothing */
    errno = e;
    f->fd = -1;
    p->open--;
    p->evictions++;
    return 1;
}

/* After an open: closes clean files while over the cap (the new file is
 * not closable yet). 1 when still over it: every other file is dirty or
 * held. Trimming after the open, not before, keeps a failed open (a probe
 * for a missing checkpoint) from closing anything. */
static int trim(lr_fdpool *p)
{
    while (p->open > p->cap && evict_one(p))
        ;
    return p->open > p->cap;
}

int lr_fdpool_sys_open(lr_fdpool *p, const char *path, int oflags)
{
    for (;;) {
        int fd = open(path, oflags, 0644);
        if (fd >= 0)
            return fd;
        if (errno == EINTR)
            continue;
        /* Out of descriptors (sockets, a lowered limit): give one back. */
        if ((errno == EMFILE || errno == ENFILE) && evict_one(p))
            continue;
        return -1;
    }
}

/* ---- files by path, for rename and remove ---- */

static logrep_file **bucket(const lr_fdpool *p, uint64_t h)
{
    return &p->buckets[h & (p->nbuckets - 1)];
}

/* Best effort: a table that cannot grow only has longer chains. */
static void hash_grow(lr_fdpool *p)
{
    size_t n = p->nbuckets * 2;
    logrep_file **b = lr_calloc(&p->alloc, n, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < p->nbuckets; i++) {
        for (logrep_file *f = p->buckets[i], *next; f; f = next) {
            next = f->hnext;
            f->hnext = b[f->hash & (n - 1)];
            b[f->hash & (n - 1)] = f;
        }
    }
    lr_free(&p->alloc, p->buckets, p->nbuckets * sizeof *b);
    p->buckets = b;
    p->nbuckets = n;
}

static void hash_add(lr_fdpool *p, logrep_file *f)
{
    f->hash = lr_hash(f->path, strlen(f->path));
    logrep_file **b = bucket(p, f->hash);
    f->hnext = *b;
    *b = f;
    if (++p->nfiles > p->nbuckets)
        hash_grow(p);
}

static void hash_del(lr_fdpool *p, logrep_file *f)
{
    for (logrep_file **pp = bucket(p, f->hash); *pp; pp = &(*pp)->hnext) {
        if (*pp == f) {
            *pp = f->hnext;
            f->hnext = NULL;
            p->nfiles--;
            return;
        }
    }
}

static logrep_file *find_path(const lr_fdpool *p, const char *path, uint64_t h)
{
    for (logrep_file *f = *bucket(p, h); f; f = f->hnext)
        if (f->hash == h && strcmp(f->path, path) == 0)
            return f;
    return NULL;
}

/* ---- files ---- */

int lr_fdpool_open(lr_fdpool *p, const char *path, int oflags, logrep_file **out)
{
    logrep_file *f = lr_calloc(&p->alloc, 1, sizeof *f);
    char *dup = f ? lr_strdup(&p->alloc, path) : NULL;
    if (!dup) {
        lr_free(&p->alloc, f, sizeof *f);
        errno = ENOMEM;
        return -1;
    }
    int fd = lr_fdpool_sys_open(p, path, oflags);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    if (fd < 0) {
        int e = errno;
        lr_strfree(&p->alloc, dup);
        lr_free(&p->alloc, f, sizeof *f);
        errno = e;
        return -1;
    }
    f->fd = fd;
    f->oflags = oflags & ~NO_REOPEN_FLAGS;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->path = dup;
    p->open++;
    p->over_cap += (uint64_t)trim(p);
    hash_add(p, f);
    lru_touch(p, f);
    *out = f;
    return 0;
}

int lr_fdpool_close(lr_fdpool *p, logrep_file *f)
{
    lru_del(p, f);
    if (f->path) {
        hash_del(p, f);
        lr_strfree(&p->alloc, f->path);
    }
    if (f->held)
        p->held--;
    int rc = 0;
    if (f->fd >= 0) {
        rc = close(f->fd); /* Linux releases the descriptor even then: no retry */
        p->open--;
    }
    int e = errno;
    lr_free(&p->alloc, f, sizeof *f);
    errno = e;
    return rc;
}

int lr_fdpool_get(lr_fdpool *p, logrep_file *f)
{
    if (f->fd >= 0) {
        if (f->in_lru)
            lru_touch(p, f);
        return 0;
    }
    if (!f->path) {
        errno = ENOENT; /* removed while closed, and could not be reopened */
        return -1;
    }
    int fd = lr_fdpool_sys_open(p, f->path, f->oflags);
    if (fd < 0)
        return -1;
    /* Another file under the name (replaced behind the storage's back) is
     * never served as this one. */
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : st.st_dev != f->dev || st.st_ino != f->ino ? ESTALE : 0;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    f->fd = fd;
    p->open++;
    p->reopens++;
    p->over_cap += (uint64_t)trim(p);
    lru_touch(p, f);
    return 0;
}

void lr_fdpool_dirty(lr_fdpool *p, logrep_file *f)
{
    f->dirty = 1;
    lru_del(p, f);
}

void lr_fdpool_clean(lr_fdpool *p, logrep_file *f)
{
    f->dirty = 0;
    lru_touch(p, f);
}

void lr_fdpool_hold(lr_fdpool *p, logrep_file *f)
{
    if (!f->held) {
        f->held = 1;
        p->held++;
    }
    lru_del(p, f);
}

void lr_fdpool_unlinking(lr_fdpool *p, const char *path)
{
    uint64_t h = lr_hash(path, strlen(path));
    logrep_file *f;
    while ((f = find_path(p, path, h)) != NULL) {
        /* Best effort: a file that cannot be reopened fails its next
         * call with ENOENT instead. */
        if (f->fd < 0)
            lr_fdpool_get(p, f);
        lr_fdpool_hold(p, f);
        hash_del(p, f);
        lr_strfree(&p->alloc, f->path);
        f->path = NULL;
    }
}

/* ---- rename ---- */

static int is_under(const char *path, const char *dir, size_t dlen)
{
    return strncmp(path, dir, dlen) == 0 && path[dlen] == '/';
}

/* The files a rename of `from` moves, into out (when not NULL); their
 * count. A directory moves every file below it. */
static size_t moved(const lr_fdpool *p, const char *from, int dir, logrep_file **out)
{
    size_t n = 0, flen = strlen(from);
    uint64_t h = lr_hash(from, flen);
    /* A directory: every file is looked at. Directories are renamed
     * rarely, and the node closes a partition's log before it renames
     * its directory. */
    for (size_t i = dir ? 0 : h & (p->nbuckets - 1); i < p->nbuckets; i++) {
        for (logrep_file *f = p->buckets[i]; f; f = f->hnext) {
            if (dir ? is_under(f->path, from, flen) : f->hash == h && strcmp(f->path, from) == 0) {
                if (out)
                    out[n] = f;
                n++;
            }
        }
        if (!dir)
            break;
    }
    return n;
}

int lr_fdpool_move_prepare(lr_fdpool *p, const char *from, const char *to, int dir,
                           lr_fdmove *m)
{
    memset(m, 0, sizeof *m);
    size_t n = moved(p, from, dir, NULL);
    if (!n)
        return 0;
    m->n = n;
    m->files = lr_calloc(&p->alloc, n, sizeof *m->files);
    m->paths = lr_calloc(&p->alloc, n, sizeof *m->paths);
    if (!m->files || !m->paths) {
        lr_fdpool_move_abort(p, m);
        errno = ENOMEM;
        return -1;
    }
    moved(p, from, dir, m->files);
    size_t flen = strlen(from), tlen = strlen(to);
    for (size_t i = 0; i < m->n; i++) {
        const char *rest = m->files[i]->path + flen;
        size_t rlen = strlen(rest);
        if (!(m->paths[i] = lr_malloc(&p->alloc, tlen + rlen + 1))) {
            lr_fdpool_move_abort(p, m);
            errno = ENOMEM;
            return -1;
        }
        memcpy(m->paths[i], to, tlen);
        memcpy(m->paths[i] + tlen, rest, rlen + 1);
    }
    return 0;
}

static void move_release(lr_fdpool *p, lr_fdmove *m)
{
    lr_free(&p->alloc, m->files, m->n * sizeof *m->files);
    lr_free(&p->alloc, m->paths, m->n * sizeof *m->paths);
    memset(m, 0, sizeof *m);
}

void lr_fdpool_move_commit(lr_fdpool *p, lr_fdmove *m)
{
    for (size_t i = 0; i < m->n; i++) {
        logrep_file *f = m->files[i];
        hash_del(p, f);
        lr_strfree(&p->alloc, f->path);
        f->path = m->paths[i];
        hash_add(p, f);
    }
    move_release(p, m);
}

void lr_fdpool_move_abort(lr_fdpool *p, lr_fdmove *m)
{
    if (m->paths)
        for (size_t i = 0; i < m->n; i++)
            if (m->paths[i])
                lr_strfree(&p->alloc, m->paths[i]);
    move_release(p, m);
}
