/* Producer state of idempotent and transactional producers: per producer
 * id the epoch and its last 5 batches (Kafka's ProducerStateEntry), and
 * the `.snapshot` file format (docs/storage.md, Producer state). */
#include <string.h>

#include "base/endian.h"
#include "log/log_int.h"

enum { SNAP_HEADER = 10, SNAP_ENTRY = 46 };

LOGREP_API logrep_err logrep_producer_snapshot_encode(const logrep_producer_entry *e, size_t n,
                                                      uint8_t *buf, size_t size, size_t *needed)
{
    if ((!e && n) || n > (SIZE_MAX - SNAP_HEADER) / SNAP_ENTRY || n > INT32_MAX)
        return LOGREP_ERR__INVALID_ARG;
    size_t total = SNAP_HEADER + n * SNAP_ENTRY;
    if (needed)
        *needed = total;
    if (!buf || size < total)
        return LOGREP_ERR__LIMIT;
    lr_put_be16(buf, 1);
    lr_put_be32(buf + 6, (uint32_t)n);
    uint8_t *p = buf + SNAP_HEADER;
    for (size_t i = 0; i < n; i++, p += SNAP_ENTRY) {
        lr_put_be64(p, (uint64_t)e[i].producer_id);
        lr_put_be16(p + 8, (uint16_t)e[i].producer_epoch);
        lr_put_be32(p + 10, (uint32_t)e[i].last_sequence);
        lr_put_be64(p + 14, (uint64_t)e[i].last_offset);
        lr_put_be32(p + 22, (uint32_t)e[i].offset_delta);
        lr_put_be64(p + 26, (uint64_t)e[i].timestamp);
        lr_put_be32(p + 34, (uint32_t)e[i].coordinator_epoch);
        lr_put_be64(p + 38, (uint64_t)e[i].current_txn_first_offset);
    }
    lr_put_be32(buf + 2, logrep_crc32c(0, buf + 6, total - 6));
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_producer_snapshot_decode(const uint8_t *buf, size_t len,
                                                      logrep_producer_entry *e, size_t cap,
                                                      size_t *n)
{
    if ((!buf && len) || !n)
        return LOGREP_ERR__INVALID_ARG;
    if (len < SNAP_HEADER || lr_get_be16(buf) != 1)
        return LOGREP_ERR__CORRUPT;
    int32_t count = (int32_t)lr_get_be32(buf + 6);
    if (count < 0 || (size_t)count != (len - SNAP_HEADER) / SNAP_ENTRY ||
        (len - SNAP_HEADER) % SNAP_ENTRY)
        return LOGREP_ERR__CORRUPT;
    if (lr_get_be32(buf + 2) != logrep_crc32c(0, buf + 6, len - 6))
        return LOGREP_ERR__CORRUPT;
    *n = (size_t)count;
    if ((size_t)count > cap)
        return LOGREP_ERR__LIMIT;
    const uint8_t *p = buf + SNAP_HEADER;
    for (int32_t i = 0; i < count; i++, p += SNAP_ENTRY) {
        e[i].producer_id = (int64_t)lr_get_be64(p);
        e[i].producer_epoch = (int16_t)lr_get_be16(p + 8);
        e[i].last_sequence = (int32_t)lr_get_be32(p + 10);
        e[i].last_offset = (int64_t)lr_get_be64(p + 14);
        e[i].offset_delta = (int32_t)lr_get_be32(p + 22);
        e[i].timestamp = (int64_t)lr_get_be64(p + 26);
        e[i].coordinator_epoch = (int32_t)lr_get_be32(p + 34);
        e[i].current_txn_first_offset = (int64_t)lr_get_be64(p + 38);
    }
    return LOGREP_OK;
}

void lr_pstate_free(lr_pstate *s, const lr_alloc *a)
{
    if (s->v)
        lr_free(a, s->v, s->cap * sizeof *s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void lr_pstate_clear(lr_pstate *s)
{
    s->n = 0;
    s->min_ts = INT64_MAX;
}

static void set_timestamp(lr_pstate *s, lr_producer *p, int64_t ts)
{
    p->last_timestamp = ts;
    if (ts < s->min_ts)
        s->min_ts = ts; /* a batch's timestamp may be older than the last one */
}

static size_t lower_bound(const lr_pstate *s, int64_t pid)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const lr_producer *lr_pstate_find(const lr_pstate *s, int64_t pid)
{
    size_t i = lower_bound(s, pid);
    return i < s->n && s->v[i].pid == pid ? &s->v[i] : NULL;
}

logrep_err lr_pstate_reserve(lr_pstate *s, const lr_alloc *a, size_t extra)
{
    if (extra <= s->cap - s->n)
        return LOGREP_OK;
    size_t cap = s->cap ? s->cap * 2 : 2;
    while (cap - s->n < extra)
        cap *= 2;
    size_t bytes;
    if (lr_mul_overflows(cap, sizeof *s->v, &bytes))
        return LOGREP_ERR__NOMEM;
    lr_producer *v = lr_realloc(a, s->v, s->cap * sizeof *v, bytes);
    if (!v)
        return LOGREP_ERR__NOMEM;
    s->v = v;
    s->cap = cap;
    return LOGREP_OK;
}

static lr_producer *get_or_add(lr_pstate *s, const lr_alloc *a, int64_t pid)
{
    size_t i = lower_bound(s, pid);
    if (i < s->n && s->v[i].pid == pid)
        return &s->v[i];
    if (lr_pstate_reserve(s, a, 1))
        return NULL;
    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof *s->v);
    s->n++;
    lr_producer *p = &s->v[i];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->epoch = -1;
    p->coordinator_epoch = -1;
    p->txn_first_offset = -1;
    set_timestamp(s, p, -1);
    return p;
}

logrep_err lr_pstate_update(lr_pstate *s, const lr_alloc *a, const logrep_batch_header *h)
{
    if (h->producer_id < 0)
        return LOGREP_OK;
    lr_producer *p = get_or_add(s, a, h->producer_id);
    if (!p)
        return LOGREP_ERR__NOMEM;
    if (h->producer_epoch != p->epoch) {
        p->nb = 0; /* a new epoch starts a new sequence space */
        p->epoch = h->producer_epoch;
    }
    int64_t last = logrep_batch_last_offset(h);
    set_timestamp(s, p, h->max_timestamp);
    if (h->attributes & LOGREP_ATTR_CONTROL) {
        p->txn_first_offset = -1; /* a marker closes the transaction */
        return LOGREP_OK;
    }
    if ((h->attributes & LOGREP_ATTR_TRANSACTIONAL) && p->txn_first_offset < 0)
        p->txn_first_offset = h->base_offset;
    if (h->base_sequence < 0)
        return LOGREP_OK;
    if (p->nb == 5)
        p->nb = 4;
    memmove(&p->b[1], &p->b[0], p->nb * sizeof p->b[0]);
    p->nb++;
    p->b[0].first_seq = h->base_sequence;
    p->b[0].last_seq = logrep_seq_increment(h->base_sequence, h->last_offset_delta);
    p->b[0].last_offset = last;
    p->b[0].offset_delta = h->last_offset_delta;
    p->b[0].timestamp = h->max_timestamp;
    return LOGREP_OK;
}

size_t lr_pstate_expire(lr_pstate *s, int64_t expire_before)
{
    if (expire_before <= s->min_ts)
        return 0;
    size_t keep = 0, dropped = 0;
    int64_t min_ts = INT64_MAX;
    for (size_t i = 0; i < s->n; i++) {
        /* A producer with an open transaction stays until it ends. */
        if (s->v[i].last_timestamp < expire_before && s->v[i].txn_first_offset < 0) {
            dropped++;
            continue;
        }
        if (s->v[i].last_timestamp < min_ts)
            min_ts = s->v[i].last_timestamp;
        if (keep != i)
            s->v[keep] = s->v[i];
        keep++;
    }
    s->n = keep;
    s->min_ts = min_ts;
    return dropped;
}

static void to_entry(const lr_producer *p, logrep_producer_entry *e)
{
    e->producer_id = p->pid;
    e->producer_epoch = p->epoch;
    e->last_sequence = p->nb ? p->b[0].last_seq : -1;
    e->last_offset = p->nb ? p->b[0].last_offset : -1;
    e->offset_delta = p->nb ? p->b[0].offset_delta : 0;
    e->timestamp = p->last_timestamp;
    e->coordinator_epoch = p->coordinator_epoch;
    e->current_txn_first_offset = p->txn_first_offset;
}

logrep_err lr_pstate_encode(const lr_pstate *s, const lr_alloc *a, uint8_t **out, size_t *len)
{
    size_t total = SNAP_HEADER + s->n * SNAP_ENTRY;
    uint8_t *buf = lr_malloc(a, total);
    logrep_producer_entry *e = s->n ? lr_calloc(a, s->n, sizeof *e) : NULL;
    if (!buf || (s->n && !e)) {
        lr_free(a, buf, total);
        if (e)
            lr_free(a, e, s->n * sizeof *e);
        return LOGREP_ERR__NOMEM;
    }
    for (size_t i = 0; i < s->n; i++)
        to_entry(&s->v[i], &e[i]);
    logrep_err err = logrep_producer_snapshot_encode(e, s->n, buf, total, NULL);
    if (e)
        lr_free(a, e, s->n * sizeof *e);
    if (err) {
        lr_free(a, buf, total);
        return err;
    }
    *out = buf;
    *len = total;
    return LOGREP_OK;
}

logrep_err lr_pstate_load(lr_pstate *s, const lr_alloc *a, const uint8_t *buf, size_t len,
                          int64_t expire_before)
{
    size_t n = 0;
    logrep_err err = logrep_producer_snapshot_decode(buf, len, NULL, 0, &n);
    if (err && err != LOGREP_ERR__LIMIT)
        return err;
    logrep_producer_entry *e = n ? lr_calloc(a, n, sizeof *e) : NULL;
    if (n && !e)
        return LOGREP_ERR__NOMEM;
    err = logrep_producer_snapshot_decode(buf, len, e, n, &n);
    lr_pstate_clear(s);
    for (size_t i = 0; !err && i < n; i++) {
        if (e[i].producer_id < 0 || e[i].timestamp < expire_before)
            continue;
        lr_producer *p = get_or_add(s, a, e[i].producer_id);
        if (!p) {
            err = LOGREP_ERR__NOMEM;
            break;
        }
        p->epoch = e[i].producer_epoch;
        p->coordinator_epoch = e[i].coordinator_epoch;
        p->txn_first_offset = e[i].current_txn_first_offset;
        set_timestamp(s, p, e[i].timestamp);
        p->nb = 0;
        if (e[i].last_offset >= 0 && e[i].last_sequence >= 0 && e[i].offset_delta >= 0) {
            p->nb = 1;
            p->b[0].last_seq = e[i].last_sequence;
            p->b[0].first_seq = logrep_seq_decrement(e[i].last_sequence, e[i].offset_delta);
            p->b[0].last_offset = e[i].last_offset;
            p->b[0].offset_delta = e[i].offset_delta;
            p->b[0].timestamp = e[i].timestamp;
        }
    }
    if (e)
        lr_free(a, e, n * sizeof *e);
    return err;
}

LOGREP_API logrep_err logrep_log_producer(const logrep_log *log, int64_t producer_id,
                                          logrep_producer_entry *out)
{
    if (!log || !out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_producer *p = lr_pstate_find(&log->ps, producer_id);
    if (!p)
        return LOGREP_ERR__NOENT;
    to_entry(p, out);
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_log_producer_batches(const logrep_log *log, int64_t producer_id,
                                                  int32_t first_seq[5], int32_t last_seq[5],
                                                  int64_t last_offset[5], int *n)
{
    if (!log || !first_seq || !last_seq || !last_offset || !n)
        return LOGREP_ERR__INVALID_ARG;
    const lr_producer *p = lr_pstate_find(&log->ps, producer_id);
    if (!p)
        return LOGREP_ERR__NOENT;
    for (int i = 0; i < p->nb; i++) {
        first_seq[i] = p->b[i].first_seq;
        last_seq[i] = p->b[i].last_seq;
        last_offset[i] = p->b[i].last_offset;
    }
    *n = p->nb;
    return LOGREP_OK;
}
