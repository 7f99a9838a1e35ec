/* The crash-simulating memory file system (memfs.c): the writes and
 * truncations pending since the last sync, injected faults, power loss,
 * and the crash itself (each pending write kept, dropped or torn). */
#include <string.h>

#include "base/prng.h"
#include "storage/memfs_int.h"

void lr_memfs_ops_free(mem_fs *fs, mem_node *n)
{
    for (mem_op *o = n->ops, *nx; o; o = nx) {
        nx = o->next;
        lr_free(&fs->alloc, o, sizeof *o + o->alloc_len);
    }
    n->ops = n->ops_tail = NULL;
}

/* Records a pending operation (crash variant). */
logrep_err lr_memfs_op_add(mem_fs *fs, mem_node *n, uint64_t pos, const void *data, size_t len,
                         int is_trunc)
{
    mem_op *o = lr_malloc(&fs->alloc, sizeof *o + len);
    if (!o)
        return LOGREP_ERR__NOMEM;
    o->next = NULL;
    o->seq = ++fs->seq;
    o->pos = pos;
    o->len = o->alloc_len = len;
    o->is_trunc = is_trunc;
    if (len)
        memcpy(o->data, data, len);
    if (n->ops_tail)
        n->ops_tail->next = o;
    else
        n->ops = o;
    n->ops_tail = o;
    return LOGREP_OK;
}

void lr_memfs_apply_ops_durable(mem_fs *fs, mem_node *n)
{
    /* Allocation failures here leave the image short: acceptable for a
     * test double, and reported by the next write instead. */
    for (mem_op *o = n->ops; o; o = o->next) {
        if (o->is_trunc)
            lr_memfs_bytes_resize(fs, &n->dur, (size_t)o->pos);
        else
            lr_memfs_bytes_write(fs, &n->dur, o->pos, o->data, o->len);
    }
    lr_memfs_ops_free(fs, n);
}

LOGREP_API logrep_err logrep_storage_crash_inject(logrep_storage *s, uint32_t op_mask,
                                                  uint64_t countdown, logrep_err err,
                                                  int persistent)
{
    mem_fs *fs = lr_memfs_as(s, 1);
    if (!fs || (countdown && err != LOGREP_ERR__IO && err != LOGREP_ERR__NOSPACE))
        return LOGREP_ERR__INVALID_ARG;
    fs->fault_mask = countdown ? op_mask : 0;
    fs->fault_countdown = countdown;
    fs->fault_err = err;
    fs->fault_persistent = persistent;
    fs->fault_fired = 0;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_storage_crash_after(logrep_storage *s, uint64_t n)
{
    mem_fs *fs = lr_memfs_as(s, 1);
    if (!fs)
        return LOGREP_ERR__INVALID_ARG;
    fs->crash_countdown = n;
    return LOGREP_OK;
}

/* Applies one pending write to the durable image, torn: each sector the
 * write touches survives or not, chosen by the PRNG. */
static void apply_torn(mem_fs *fs, mem_node *n, const mem_op *o, lr_prng *r)
{
    uint64_t end = o->pos + o->len;
    for (uint64_t s = o->pos - o->pos % fs->sector; s < end; s += fs->sector) {
        uint64_t a = s < o->pos ? o->pos : s, b = s + fs->sector < end ? s + fs->sector : end;
        if (lr_prng_below(r, 2))
            lr_memfs_bytes_write(fs, &n->dur, a, o->data + (a - o->pos), (size_t)(b - a));
        else if (b > n->dur.len)
            lr_memfs_bytes_resize(fs, &n->dur, (size_t)b); /* size grew, content lost: zeros */
    }
}

static void settle(mem_fs *fs)
{
    for (mem_node *n = fs->nodes; n; n = n->next) {
        n->cur.len = 0;
        lr_memfs_bytes_write(fs, &n->cur, 0, n->dur.p, n->dur.len);
    }
    fs->stopped = 0;
    fs->crash_countdown = 0;
    fs->fault_mask = 0;
    fs->fault_fired = 0;
}

LOGREP_API logrep_err logrep_storage_crash_simulate(logrep_storage *s, uint64_t seed, int mode)
{
    mem_fs *fs = lr_memfs_as(s, 1);
    if (!fs || mode < LOGREP_CRASH_RANDOM || mode > LOGREP_CRASH_KEEP_ALL)
        return LOGREP_ERR__INVALID_ARG;
    lr_prng r;
    lr_prng_seed(&r, seed);
    for (mem_node *n = fs->nodes; n; n = n->next) {
        for (mem_op *o = n->ops; o; o = o->next) {
            uint64_t pick = mode == LOGREP_CRASH_KEEP_ALL ? 0
                            : mode == LOGREP_CRASH_DROP_ALL ? 1
                                                            : lr_prng_below(&r, 3);
            if (pick == 1)
                continue;
            if (o->is_trunc)
                lr_memfs_bytes_resize(fs, &n->dur, (size_t)o->pos);
            else if (pick == 0)
                lr_memfs_bytes_write(fs, &n->dur, o->pos, o->data, o->len);
            else
                apply_torn(fs, n, o, &r);
        }
        lr_memfs_ops_free(fs, n);
    }
    settle(fs);
    return LOGREP_OK;
}

static mem_op *last_write(const mem_fs *fs, mem_node **owner)
{
    mem_op *best = NULL;
    for (mem_node *n = fs->nodes; n; n = n->next)
        for (mem_op *o = n->ops; o; o = o->next)
            if (!o->is_trunc && (!best || o->seq > best->seq)) {
                best = o;
                if (owner)
                    *owner = n;
            }
    return best;
}

LOGREP_API logrep_err logrep_storage_crash_last_write(const logrep_storage *s, size_t *len)
{
    const mem_fs *fs = lr_memfs_as(s, 1);
    if (!fs || !len)
        return LOGREP_ERR__INVALID_ARG;
    mem_op *o = last_write(fs, NULL);
    if (!o)
        return LOGREP_ERR__NOENT;
    *len = o->len;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_storage_crash_tear_last(logrep_storage *s, size_t keep_bytes)
{
    mem_fs *fs = lr_memfs_as(s, 1);
    if (!fs)
        return LOGREP_ERR__INVALID_ARG;
    mem_op *last = last_write(fs, NULL);
    if (!last)
        return LOGREP_ERR__NOENT;
    if (keep_bytes < last->len)
        last->len = keep_bytes;
    for (mem_node *n = fs->nodes; n; n = n->next)
        lr_memfs_apply_ops_durable(fs, n);
    settle(fs);
    return LOGREP_OK;
}
