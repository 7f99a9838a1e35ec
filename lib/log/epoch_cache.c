/* Leader-epoch cache: epoch -> first offset written in it (Kafka's
 * LeaderEpochFileCache, rules in docs/storage.md). Both columns are
 * strictly increasing. */
#include "log/log_int.h"

void lr_epoch_cache_free(lr_epoch_cache *c, const lr_alloc *a)
{
    if (c->v)
        lr_free(a, c->v, c->cap * sizeof *c->v);
    c->v = NULL;
    c->n = c->cap = 0;
}

logrep_err lr_epoch_cache_assign(lr_epoch_cache *c, const lr_alloc *a, int32_t epoch,
                                 int64_t start, int *changed)
{
    return lr_epoch_cache_assign_undo(c, a, epoch, start, changed, NULL);
}

logrep_err lr_epoch_cache_assign_undo(lr_epoch_cache *c, const lr_alloc *a, int32_t epoch,
                                      int64_t start, int *changed, lr_epoch_undo *undo)
{
    *changed = 0;
    if (epoch < 0 || start < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (c->n && c->v[c->n - 1].epoch == epoch && start >= c->v[c->n - 1].start)
        return LOGREP_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        lr_epoch_entry *v = lr_realloc(a, c->v, c->cap * sizeof *v, cap * sizeof *v);
        if (!v)
            return LOGREP_ERR__NOMEM;
        c->v = v;
        c->cap = cap;
    }
    size_t n0 = c->n;
    while (c->n && (c->v[c->n - 1].epoch >= epoch || c->v[c->n - 1].start >= start))
        c->n--;
    if (undo) {
        /* Popped entries stay in the array; only the slot written over
         * needs keeping. */
        undo->n = n0;
        undo->at = c->n;
        undo->had = c->n < n0;
        if (undo->had)
            undo->old = c->v[c->n];
    }
    c->v[c->n].epoch = epoch;
    c->v[c->n].start = start;
    c->n++;
    *changed = 1;
    return LOGREP_OK;
}

int lr_epoch_cache_truncate_end(lr_epoch_cache *c, int64_t end)
{
    size_t n0 = c->n;
    while (c->n && c->v[c->n - 1].start >= end)
        c->n--;
    return (int)(n0 - c->n);
}

int lr_epoch_cache_truncate_start(lr_epoch_cache *c, int64_t start)
{
    size_t drop = 0;
    while (drop < c->n && c->v[drop].start <= start)
        drop++;
    if (!drop)
        return 0;
    /* The epoch covering the new start survives, starting there. */
    lr_epoch_entry keep = {c->v[drop - 1].epoch, start};
    int changed = !(drop == 1 && c->v[0].start == start);
    for (size_t i = drop; i < c->n; i++)
        c->v[i - drop + 1] = c->v[i];
    c->n = c->n - drop + 1;
    c->v[0] = keep;
    return changed;
}

void lr_epoch_cache_end_offset(const lr_epoch_cache *c, int32_t req, int64_t leo, int32_t *epoch,
                               int64_t *offset)
{
    *epoch = -1;
    *offset = -1;
    if (req < 0 || !c->n)
        return;
    if (req == c->v[c->n - 1].epoch) {
        *epoch = req;
        *offset = leo;
        return;
    }
    /* higher = first entry with epoch > req */
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->v[mid].epoch > req)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == c->n)
        return; /* newer than anything cached */
    if (lo == 0) {
        *epoch = req;
        *offset = c->v[0].start;
        return;
    }
    *epoch = c->v[lo - 1].epoch;
    *offset = c->v[lo].start;
}

void lr_epoch_cache_undo(lr_epoch_cache *c, const lr_epoch_undo *undo)
{
    if (undo->had)
        c->v[undo->at] = undo->old;
    c->n = undo->n;
}
