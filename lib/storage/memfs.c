/* In-memory file systems: the plain memory backend and the crash-simulating
 * one (after SQLite's test6.c). Both share one implementation; the crash
 * variant also keeps, per file, a durable image and the ordered list of
 * writes and truncations since the last sync (memfs_crash.c, with the
 * fault injection and power loss controls). */
#include "storage/storage.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/conf.h"
#include "base/hashmap.h"
#include "storage/memfs_int.h"

static int class_index(uint32_t cls)
{
    return __builtin_ctz(cls);
}

/* Decides whether a call of class `cls` fails. Counts the call when it
 * proceeds (the caller counts success by returning OK). */
static logrep_err gate(mem_fs *fs, uint32_t cls)
{
    if (fs->stopped) {
        fs->last_errno = EIO;
        return LOGREP_ERR__IO;
    }
    if (fs->fault_mask & cls) {
        if (fs->fault_fired && fs->fault_persistent)
            goto fire;
        if (!fs->fault_fired && fs->fault_countdown && --fs->fault_countdown == 0) {
            fs->fault_fired = 1;
            goto fire;
        }
    }
    fs->counts[class_index(cls)]++;
    return LOGREP_OK;
fire:
    fs->last_errno = fs->fault_err == LOGREP_ERR__NOSPACE ? ENOSPC : EIO;
    return fs->fault_err;
}

/* Power-loss countdown: called after a mutating call completed. */
static void tick(mem_fs *fs)
{
    if (fs->crash_countdown && --fs->crash_countdown == 0)
        fs->stopped = 1;
}

int lr_memfs_bytes_resize(mem_fs *fs, mem_bytes *b, size_t len)
{
    if (len > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < len) {
            if (cap > SIZE_MAX / 2)
                return LOGREP_ERR__NOMEM;
            cap *= 2;
        }
        uint8_t *p = lr_realloc(&fs->alloc, b->p, b->cap, cap);
        if (!p)
            return LOGREP_ERR__NOMEM;
        b->p = p;
        b->cap = cap;
    }
    if (len > b->len)
        memset(b->p + b->len, 0, len - b->len);
    b->len = len;
    return 0;
}

int lr_memfs_bytes_write(mem_fs *fs, mem_bytes *b, uint64_t pos, const void *data, size_t len)
{
    if (pos > SIZE_MAX - len)
        return LOGREP_ERR__NOSPACE;
    size_t end = (size_t)pos + len;
    if (end > b->len && lr_memfs_bytes_resize(fs, b, end))
        return LOGREP_ERR__NOMEM;
    if (len)
        memcpy(b->p + pos, data, len);
    return 0;
}

static void node_free(mem_fs *fs, mem_node *n)
{
    lr_memfs_ops_free(fs, n);
    lr_free(&fs->alloc, n->cur.p, n->cur.cap);
    lr_free(&fs->alloc, n->dur.p, n->dur.cap);
    lr_strfree(&fs->alloc, n->path);
    lr_free(&fs->alloc, n, sizeof *n);
}

static int path_eq(const void *ctx, uintptr_t v, const void *key, size_t len)
{
    (void)ctx;
    const char *p = ((const mem_node *)v)->path;
    return strncmp(p, key, len) == 0 && p[len] == 0;
}

/* Path lookups are hashed: partitions make thousands of files. */
static mem_node *lookup_len(mem_fs *fs, const char *path, size_t len)
{
    uintptr_t v;
    return lr_hashmap_get(&fs->by_path, path, len, &v) ? (mem_node *)v : NULL;
}

static mem_node *lookup(mem_fs *fs, const char *path)
{
    return lookup_len(fs, path, strlen(path));
}

/* Only n itself: an unlinked node's path may name another node now. */
static void hash_remove(mem_fs *fs, mem_node *n)
{
    size_t len = strlen(n->path);
    if (lookup_len(fs, n->path, len) == n)
        lr_hashmap_del(&fs->by_path, n->path, len, NULL);
}

/* Adds a linked node. 0 or __NOMEM; never fails right after a
 * hash_remove (the table does not shrink). */
static int hash_add(mem_fs *fs, mem_node *n)
{
    return lr_hashmap_put(&fs->by_path, n->path, strlen(n->path), (uintptr_t)n);
}

/* Unlinks n from the namespace; frees it when no file refers to it. */
static void unlink_node(mem_fs *fs, mem_node *n)
{
    hash_remove(fs, n);
    n->linked = 0;
    if (n->refs)
        return;
    for (mem_node **pp = &fs->nodes; *pp; pp = &(*pp)->next)
        if (*pp == n) {
            *pp = n->next;
            break;
        }
    node_free(fs, n);
}

static int parent_exists(mem_fs *fs, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 1;
    mem_node *n = lookup_len(fs, path, (size_t)(slash - path));
    return n && n->is_dir;
}

static logrep_err err_no(mem_fs *fs, logrep_err err, int e)
{
    fs->last_errno = e;
    return err;
}

static mem_node *node_new(mem_fs *fs, const char *path, int is_dir)
{
    mem_node *n = lr_calloc(&fs->alloc, 1, sizeof *n);
    if (!n)
        return NULL;
    n->path = lr_strdup(&fs->alloc, path);
    if (!n->path) {
        lr_free(&fs->alloc, n, sizeof *n);
        return NULL;
    }
    n->is_dir = is_dir;
    n->linked = 1;
    if (hash_add(fs, n) != 0) {
        lr_strfree(&fs->alloc, n->path);
        lr_free(&fs->alloc, n, sizeof *n);
        return NULL;
    }
    n->next = fs->nodes;
    fs->nodes = n;
    return n;
}

static logrep_err m_open(void *ctx, const char *path, int flags, logrep_file **out)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_META);
    if (err)
        return err;
    mem_node *n = lookup(fs, path);
    if (n && n->is_dir)
        return err_no(fs, LOGREP_ERR__IO, EISDIR);
    int create = (flags & LOGREP_OPEN_WRITE) && (flags & LOGREP_OPEN_CREATE);
    if (n && create && (flags & LOGREP_OPEN_EXCL))
        return err_no(fs, LOGREP_ERR__EXISTS, EEXIST);
    if (!n && !create)
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    if (!n && !parent_exists(fs, path))
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    logrep_file *f = lr_malloc(&fs->alloc, sizeof *f);
    if (!f)
        return LOGREP_ERR__NOMEM;
    if (!n && !(n = node_new(fs, path, 0))) {
        lr_free(&fs->alloc, f, sizeof *f);
        return LOGREP_ERR__NOMEM;
    }
    n->refs++;
    f->node = n;
    f->writable = (flags & LOGREP_OPEN_WRITE) != 0;
    *out = f;
    return LOGREP_OK;
}

static logrep_err m_close(void *ctx, logrep_file *f)
{
    mem_fs *fs = ctx;
    mem_node *n = f->node;
    lr_free(&fs->alloc, f, sizeof *f);
    if (--n->refs == 0 && !n->linked)
        unlink_node(fs, n);
    return LOGREP_OK;
}

static logrep_err m_read(void *ctx, logrep_file *f, uint64_t pos, void *buf, size_t len,
                         size_t *nread)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_READ);
    if (err)
        return err;
    const mem_bytes *b = &f->node->cur;
    size_t n = 0;
    if (pos < b->len) {
        n = b->len - (size_t)pos;
        if (n > len)
            n = len;
        memcpy(buf, b->p + pos, n);
    }
    *nread = n;
    return LOGREP_OK;
}

static logrep_err m_write(void *ctx, logrep_file *f, uint64_t pos, const void *buf, size_t len)
{
    mem_fs *fs = ctx;
    if (!f->writable)
        return err_no(fs, LOGREP_ERR__IO, EBADF);
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_WRITE);
    if (err)
        return err;
    if (fs->crash && (err = lr_memfs_op_add(fs, f->node, pos, buf, len, 0)))
        return err;
    if ((err = lr_memfs_bytes_write(fs, &f->node->cur, pos, buf, len)))
        return err_no(fs, err, ENOSPC);
    tick(fs);
    return LOGREP_OK;
}

static logrep_err m_sync(void *ctx, logrep_file *f)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_SYNC);
    if (err)
        return err;
    if (fs->crash)
        lr_memfs_apply_ops_durable(fs, f->node);
    tick(fs);
    return LOGREP_OK;
}

static logrep_err m_size(void *ctx, logrep_file *f, uint64_t *out)
{
    logrep_err err = gate(ctx, LOGREP_STORAGE_OP_READ);
    if (err)
        return err;
    *out = f->node->cur.len;
    return LOGREP_OK;
}

static logrep_err m_truncate(void *ctx, logrep_file *f, uint64_t size)
{
    mem_fs *fs = ctx;
    if (!f->writable)
        return err_no(fs, LOGREP_ERR__IO, EBADF);
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_TRUNCATE);
    if (err)
        return err;
    if (size > SIZE_MAX / 2)
        return err_no(fs, LOGREP_ERR__NOSPACE, EFBIG);
    if (fs->crash && (err = lr_memfs_op_add(fs, f->node, size, NULL, 0, 1)))
        return err;
    if (lr_memfs_bytes_resize(fs, &f->node->cur, (size_t)size))
        return LOGREP_ERR__NOMEM;
    tick(fs);
    return LOGREP_OK;
}

static int has_children(mem_fs *fs, const char *dir)
{
    size_t len = strlen(dir);
    for (mem_node *n = fs->nodes; n; n = n->next)
        if (n->linked && strncmp(n->path, dir, len) == 0 && n->path[len] == '/')
            return 1;
    return 0;
}

/* A directory rename moves every path under it, as rename(2) does. The
 * target must be absent or empty. */
static logrep_err move_children(mem_fs *fs, const char *from, const char *to)
{
    if (has_children(fs, to))
        return err_no(fs, LOGREP_ERR__IO, ENOTEMPTY);
    size_t flen = strlen(from), tlen = strlen(to);
    for (mem_node *n = fs->nodes; n; n = n->next) {
        if (!n->linked || strncmp(n->path, from, flen) != 0 || n->path[flen] != '/')
            continue;
        size_t rest = strlen(n->path + flen);
        char *p = lr_malloc(&fs->alloc, tlen + rest + 1);
        if (!p)
            return LOGREP_ERR__NOMEM; /* paths moved so far stay moved */
        memcpy(p, to, tlen);
        memcpy(p + tlen, n->path + flen, rest + 1);
        hash_remove(fs, n);
        lr_strfree(&fs->alloc, n->path);
        n->path = p;
        if (hash_add(fs, n) != 0)
            n->linked = 0; /* cannot happen: removing n made room */
    }
    return LOGREP_OK;
}

static logrep_err m_rename(void *ctx, const char *from, const char *to)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_META);
    if (err)
        return err;
    mem_node *n = lookup(fs, from);
    if (!n || !parent_exists(fs, to))
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    if (strcmp(from, to) == 0)
        return LOGREP_OK;
    char *p = lr_strdup(&fs->alloc, to);
    if (!p)
        return LOGREP_ERR__NOMEM;
    mem_node *old = lookup(fs, to);
    if (old && old->is_dir != n->is_dir) {
        lr_strfree(&fs->alloc, p);
        return err_no(fs, LOGREP_ERR__IO, old->is_dir ? EISDIR : ENOTDIR);
    }
    if (n->is_dir && (err = move_children(fs, from, to)) != 0) {
        lr_strfree(&fs->alloc, p);
        return err;
    }
    if (old)
        unlink_node(fs, old);
    hash_remove(fs, n);
    lr_strfree(&fs->alloc, n->path);
    n->path = p;
    if (hash_add(fs, n) != 0) {
        /* Cannot fail: removing n made room for it again. */
        n->linked = 0;
    }
    return LOGREP_OK;
}

static logrep_err m_remove(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_META);
    if (err)
        return err;
    mem_node *n = lookup(fs, path);
    if (!n)
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    if (n->is_dir && has_children(fs, path))
        return err_no(fs, LOGREP_ERR__IO, ENOTEMPTY);
    unlink_node(fs, n);
    return LOGREP_OK;
}

static logrep_err m_list(void *ctx, const char *path, logrep_list_fn fn, void *fn_ctx)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_META);
    if (err)
        return err;
    mem_node *d = lookup(fs, path);
    if (!d || !d->is_dir)
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    size_t plen = strlen(path);
    for (mem_node *n = fs->nodes, *nx; n; n = nx) {
        nx = n->next; /* the callback may not modify the storage, but be safe */
        if (!n->linked || strncmp(n->path, path, plen) != 0 || n->path[plen] != '/')
            continue;
        const char *name = n->path + plen + 1;
        if (!*name || strchr(name, '/'))
            continue;
        int rc = fn(fn_ctx, name);
        if (rc)
            return (logrep_err)rc;
    }
    return LOGREP_OK;
}

static logrep_err m_mkdir(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_META);
    if (err)
        return err;
    if (lookup(fs, path))
        return err_no(fs, LOGREP_ERR__EXISTS, EEXIST);
    if (!parent_exists(fs, path))
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    return node_new(fs, path, 1) ? LOGREP_OK : LOGREP_ERR__NOMEM;
}

static logrep_err m_sync_dir(void *ctx, const char *path)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_SYNC);
    if (err)
        return err;
    mem_node *d = lookup(fs, path);
    if (!d || !d->is_dir)
        return err_no(fs, LOGREP_ERR__NOENT, ENOENT);
    return LOGREP_OK;
}

static logrep_err m_map(void *ctx, logrep_file *f, uint64_t pos, size_t len, const void **out)
{
    mem_fs *fs = ctx;
    logrep_err err = gate(fs, LOGREP_STORAGE_OP_READ);
    if (err)
        return err;
    const mem_bytes *b = &f->node->cur;
    if (pos > b->len || len > b->len - pos)
        return err_no(fs, LOGREP_ERR__IO, EINVAL);
    *out = b->p ? b->p + pos : (const void *)"";
    return LOGREP_OK;
}

static void m_unmap(void *ctx, logrep_file *f, const void *p, uint64_t pos, size_t len)
{
    (void)ctx, (void)f, (void)p, (void)pos, (void)len;
}

static int m_last_errno(void *ctx)
{
    return ((mem_fs *)ctx)->last_errno;
}

static void m_destroy(void *ctx)
{
    mem_fs *fs = ctx;
    for (mem_node *n = fs->nodes, *nx; n; n = nx) {
        nx = n->next;
        node_free(fs, n);
    }
    lr_hashmap_free(&fs->by_path);
    lr_alloc a = fs->alloc;
    lr_free(&a, fs, sizeof *fs);
}

static logrep_err mem_new(const logrep_conf *conf, int crash, uint32_t sector,
                          logrep_storage **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    mem_fs *fs = lr_calloc(a, 1, sizeof *fs);
    if (!fs)
        return LOGREP_ERR__NOMEM;
    fs->alloc = *a;
    lr_hashmap_init(&fs->by_path, a, path_eq, NULL);
    fs->crash = crash;
    fs->sector = sector ? sector : 512;
    fs->vt = (logrep_storage){
        .version = LOGREP_STORAGE_VERSION,
        .ctx = fs,
        .open = m_open,
        .close = m_close,
        .read = m_read,
        .write = m_write,
        .sync = m_sync,
        .size = m_size,
        .truncate = m_truncate,
        .rename = m_rename,
        .remove = m_remove,
        .list = m_list,
        .mkdir = m_mkdir,
        .sync_dir = m_sync_dir,
        .map = m_map,
        .unmap = m_unmap,
        .last_errno = m_last_errno,
        .destroy = m_destroy,
    };
    *out = &fs->vt;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_storage_memory_new(const logrep_conf *conf, logrep_storage **out)
{
    return mem_new(conf, 0, 0, out);
}

LOGREP_API logrep_err logrep_storage_crash_new(const logrep_conf *conf, uint32_t sector_size,
                                               logrep_storage **out)
{
    return mem_new(conf, 1, sector_size, out);
}

mem_fs *lr_memfs_as(const logrep_storage *s, int need_crash)
{
    if (!s || s->open != m_open)
        return NULL;
    mem_fs *fs = s->ctx;
    return (!need_crash || fs->crash) ? fs : NULL;
}

LOGREP_API uint64_t logrep_storage_op_count(const logrep_storage *s, uint32_t op_mask)
{
    const mem_fs *fs = lr_memfs_as(s, 0);
    uint64_t n = 0;
    for (int i = 0; fs && i < 5; i++)
        if (op_mask & (1u << i))
            n += fs->counts[i];
    return n;
}

