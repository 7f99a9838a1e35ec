/* Time index (.timeindex): 12-byte entries (int64 timestamp, int32 offset
 * - base); an entry is added only for a timestamp above the last one. */
#include "base/endian.h"
#include "log/log_int.h"

logrep_err lr_ti_lookup(logrep_log *log, lr_segment *s, int64_t target, int64_t *off)
{
    *off = s->base;
    if (!s->ti.entries)
        return LOGREP_OK;
    logrep_err err = lr_seg_open_index(log, s, &s->ti, ".timeindex", 0);
    if (err)
        return err;
    uint32_t lo = 0, hi = s->ti.entries;
    uint8_t e[LR_TI_ENTRY];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((err = lr_index_read_entry(log, &s->ti, LR_TI_ENTRY, mid, e)))
            return err;
        if ((int64_t)lr_get_be64(e) <= target) {
            *off = s->base + (int32_t)lr_get_be32(e + 8);
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (*off < s->base)
        *off = s->base;
    return LOGREP_OK;
}

logrep_err lr_ti_maybe_append(logrep_log *log, lr_segment *s, int64_t ts, int64_t offset)
{
    /* The implicit first entry is (-1, base): only larger timestamps. */
    if (ts <= (s->ti.entries ? s->ti.last_a : -1))
        return LOGREP_OK;
    logrep_err err = lr_seg_open_index(log, s, &s->ti, ".timeindex", 1);
    if (err)
        return err;
    uint8_t e[LR_TI_ENTRY];
    lr_put_be64(e, (uint64_t)ts);
    lr_put_be32(e + 8, (uint32_t)(offset - s->base));
    if ((err = lr_index_append(log, &s->ti, LR_TI_ENTRY, e)))
        return err;
    s->ti.last_a = ts;
    s->ti.last_b = offset;
    return LOGREP_OK;
}
