/* Offset index (.index): 8-byte entries (int32 offset - base, int32
 * position), read on demand through the storage, never held in memory.
 * Files hold exactly their entries (no preallocation). */
#include "base/endian.h"
#include "log/log_int.h"

logrep_err lr_index_read_entry(logrep_log *log, lr_index *ix, size_t esize, uint32_t i,
                               uint8_t *out)
{
    const logrep_storage *st = log->st;
    size_t n;
    logrep_err err = st->read(st->ctx, ix->f, (uint64_t)i * esize, out, esize, &n);
    if (err)
        return lr_log_io(log, err);
    return n == esize ? LOGREP_OK : LOGREP_ERR__CORRUPT;
}

logrep_err lr_index_append(logrep_log *log, lr_index *ix, size_t esize, const uint8_t *e)
{
    const logrep_storage *st = log->st;
    logrep_err err = st->write(st->ctx, ix->f, (uint64_t)ix->entries * esize, e, esize);
    if (err)
        return lr_log_io(log, err);
    ix->entries++;
    return LOGREP_OK;
}

logrep_err lr_oi_lookup(logrep_log *log, lr_segment *s, int64_t target, int64_t *off,
                        uint64_t *pos)
{
    *off = s->base;
    *pos = 0;
    if (!s->oi.entries)
        return LOGREP_OK;
    logrep_err err = lr_seg_open_index(log, s, &s->oi, ".index", 0);
    if (err)
        return err;
    /* Largest entry with offset <= target, by binary search. Entries that
     * are out of order make the search land somewhere wrong but in range;
     * lr_seg_find then verifies the position against the data. */
    uint32_t lo = 0, hi = s->oi.entries;
    uint8_t e[LR_OI_ENTRY];
    int64_t best_off = s->base;
    uint64_t best_pos = 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((err = lr_index_read_entry(log, &s->oi, LR_OI_ENTRY, mid, e)))
            return err;
        int64_t o = s->base + (int32_t)lr_get_be32(e);
        if (o <= target) {
            best_off = o;
            best_pos = lr_get_be32(e + 4);
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (best_pos > s->size || best_off < s->base)
        return LOGREP_ERR__CORRUPT;
    *off = best_off;
    *pos = best_pos;
    return LOGREP_OK;
}

logrep_err lr_oi_floor_pos(logrep_log *log, lr_segment *s, uint64_t limit, int64_t *off,
                           uint64_t *pos)
{
    *off = -1;
    *pos = 0;
    if (!s->oi.entries)
        return LOGREP_OK;
    logrep_err err = lr_seg_open_index(log, s, &s->oi, ".index", 0);
    if (err)
        return err;
    uint32_t lo = 0, hi = s->oi.entries;
    uint8_t e[LR_OI_ENTRY];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((err = lr_index_read_entry(log, &s->oi, LR_OI_ENTRY, mid, e)))
            return err;
        uint64_t p = lr_get_be32(e + 4);
        if (p <= limit) {
            *off = s->base + (int32_t)lr_get_be32(e);
            *pos = p;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return LOGREP_OK;
}

logrep_err lr_oi_append(logrep_log *log, lr_segment *s, int64_t offset, uint64_t pos)
{
    logrep_err err = lr_seg_open_index(log, s, &s->oi, ".index", 1);
    if (err)
        return err;
    uint8_t e[LR_OI_ENTRY];
    lr_put_be32(e, (uint32_t)(offset - s->base));
    lr_put_be32(e + 4, (uint32_t)pos);
    if ((err = lr_index_append(log, &s->oi, LR_OI_ENTRY, e)))
        return err;
    s->oi.last_a = offset;
    return LOGREP_OK;
}
