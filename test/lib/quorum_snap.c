/* Snapshots in the simulated quorum cluster (quorum_testutil.h): each
 * node's state machine is a running hash of the entries it applied; a
 * snapshot is that hash at an offset, as a small file of a few hundred
 * bytes that the leader serves in pieces and a follower checks whole
 * before installing it. Installing one is checked against the model: the
 * state it brings is the state of the committed entries below its end. */
#include "lib/quorum_testutil.h"

#include <stdlib.h>
#include <string.h>

#include "base/endian.h"

#define HEAD 24 /* end, epoch, sum, padding length */

uint64_t qt_sum_add(uint64_t sum, const qt_entry *e)
{
    uint8_t head[8];
    lr_put_be32(head, (uint32_t)e->epoch);
    lr_put_be16(head + 4, (uint16_t)e->control);
    lr_put_be16(head + 6, (uint16_t)e->len);
    for (size_t i = 0; i < sizeof head + e->len; i++) {
        sum ^= i < sizeof head ? head[i] : e->data[i - sizeof head];
        sum *= 1099511628211ull;
    }
    return sum;
}

uint64_t qt_model_sum(const qt_cluster *c, int64_t end)
{
    uint64_t sum = QT_SUM_EMPTY;
    for (int64_t o = 0; o < end && (size_t)o < c->n_committed; o++)
        sum = qt_sum_add(sum, &c->committed[o]);
    return sum;
}

static uint8_t pad_byte(const qt_snap *s, size_t i)
{
    return (uint8_t)((s->sum >> (i % 8 * 8)) ^ (i * 31) ^ (uint64_t)s->end);
}

static size_t pad_len(const qt_snap *s)
{
    return 100 + (size_t)(s->end * 7 % 200);
}

/* The snapshot's file: its id, the hash, then padding that a mixed-up or
 * cut transfer cannot get right. */
static size_t encode(const qt_snap *s, uint8_t *out)
{
    size_t pad = pad_len(s);
    lr_put_be64(out, (uint64_t)s->end);
    lr_put_be32(out + 8, (uint32_t)s->epoch);
    lr_put_be64(out + 12, s->sum);
    lr_put_be32(out + 20, (uint32_t)pad);
    for (size_t i = 0; i < pad; i++)
        out[HEAD + i] = pad_byte(s, i);
    return HEAD + pad;
}

static int decode(const uint8_t *p, int64_t len, qt_snap *s)
{
    if (len < HEAD)
        return -1;
    s->end = (int64_t)lr_get_be64(p);
    s->epoch = (int32_t)lr_get_be32(p + 8);
    s->sum = lr_get_be64(p + 12);
    size_t pad = lr_get_be32(p + 20);
    if (pad != pad_len(s) || (uint64_t)len != HEAD + pad)
        return -1;
    for (size_t i = 0; i < pad; i++)
        if (p[HEAD + i] != pad_byte(s, i))
            return -1;
    return 0;
}

void qt_sm_reset(qt_node *nd)
{
    nd->sm_sum = nd->log.snap.end > 0 ? nd->log.snap.sum : QT_SUM_EMPTY;
    nd->sm_applied = nd->log.snap.end > 0 ? nd->log.snap.end : 0;
}

void qt_apply(qt_cluster *c, qt_node *nd, int64_t hw)
{
    for (int64_t o = nd->sm_applied; o < hw; o++) {
        if ((size_t)o < nd->log.start) {
            qt_fail(c, "node %d applies %lld, below its log start %zu", nd->id, (long long)o,
                    nd->log.start);
            return;
        }
        nd->sm_sum = qt_sum_add(nd->sm_sum, &nd->log.e[o]);
    }
    if (hw > nd->sm_applied)
        nd->sm_applied = hw;
}

int qt_snapshot(qt_cluster *c, qt_node *nd)
{
    qt_log *l = &nd->log;
    if (!nd->up || nd->sm_applied <= (int64_t)l->start || (size_t)nd->sm_applied > l->n)
        return -1;
    if (nd->sm_sum != qt_model_sum(c, nd->sm_applied))
        qt_fail(c, "node %d: state at %lld is not the committed one", nd->id,
                (long long)nd->sm_applied);
    l->snap = (qt_snap){nd->sm_applied, l->e[nd->sm_applied - 1].epoch, nd->sm_sum};
    l->start = (size_t)nd->sm_applied;
    c->snapshots++;
    return 0;
}

/* ---- the log's snapshot members ---- */

int64_t qt_snap_start(void *x)
{
    return (int64_t)((qt_ctx *)x)->nd->log.start;
}

int qt_snap_latest(void *x, int64_t *end, int32_t *epoch)
{
    const qt_log *l = &((qt_ctx *)x)->nd->log;
    if (l->snap.end <= 0)
        return -1;
    *end = l->snap.end;
    *epoch = l->snap.epoch;
    return 0;
}

int qt_snap_read(void *x, int64_t end, int32_t epoch, int64_t pos, size_t max,
                 const uint8_t **data, size_t *len, int64_t *size)
{
    qt_log *l = &((qt_ctx *)x)->nd->log;
    /* Only the newest is kept: older ones were deleted with the trim. */
    if (l->snap.end <= 0 || l->snap.end != end || l->snap.epoch != epoch)
        return LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    size_t n = encode(&l->snap, l->sbuf);
    if (pos < 0 || (uint64_t)pos >= n)
        return LOGREP_ERR_POSITION_OUT_OF_RANGE;
    *data = l->sbuf + pos;
    *len = n - (size_t)pos < max ? n - (size_t)pos : max;
    *size = (int64_t)n;
    return 0;
}

int qt_snap_write(void *x, int64_t end, int32_t epoch, int64_t size, int64_t pos,
                  const uint8_t *data, size_t len)
{
    qt_ctx *cx = x;
    qt_log *l = &cx->nd->log;
    if (cx->nd->fail_snap_write > 0) {
        cx->nd->fail_snap_write--;
        return LOGREP_ERR__IO;
    }
    if (pos == 0) {
        if (size <= 0 || size > 4096)
            return LOGREP_ERR__INVALID_ARG;
        l->recv = (qt_snap){end, epoch, 0};
        l->rbuf = realloc(l->rbuf, (size_t)size);
        if (!l->rbuf)
            abort();
        l->rsize = size;
        l->rgot = 0;
    }
    if (l->recv.end != end || l->recv.epoch != epoch || pos != l->rgot ||
        (int64_t)len > l->rsize - l->rgot) {
        qt_fail(cx->c, "node %d: snapshot piece %lld+%zu out of place (have %lld of %lld)",
                cx->nd->id, (long long)pos, len, (long long)l->rgot, (long long)l->rsize);
        return LOGREP_ERR__INVALID_ARG;
    }
    if (len)
        memcpy(l->rbuf + pos, data, len);
    l->rgot += (int64_t)len;
    return 0;
}

int qt_snap_install(void *x, int64_t end, int32_t epoch)
{
    qt_ctx *cx = x;
    qt_cluster *c = cx->c;
    qt_node *nd = cx->nd;
    qt_log *l = &nd->log;
    qt_snap s;
    if (nd->fail_install > 0) {
        nd->fail_install--;
        return LOGREP_ERR__IO;
    }
    if (l->recv.end != end || l->recv.epoch != epoch || l->rgot != l->rsize ||
        decode(l->rbuf, l->rsize, &s) || s.end != end || s.epoch != epoch)
        return LOGREP_ERR__CORRUPT;
    l->recv.end = 0;
    if ((size_t)end > c->n_committed || s.sum != qt_model_sum(c, end))
        qt_fail(c, "node %d installs a snapshot at %lld that is not the committed state",
                nd->id, (long long)end);
    if (end < nd->hw)
        qt_fail(c, "node %d installs a snapshot at %lld below its hw %lld", nd->id,
                (long long)end, (long long)nd->hw);
    if ((size_t)end > l->cap) {
        size_t cap = l->cap ? l->cap : 16;
        while (cap < (size_t)end)
            cap *= 2;
        l->e = realloc(l->e, cap * sizeof *l->e);
        if (!l->e)
            abort();
        memset(l->e + l->cap, 0, (cap - l->cap) * sizeof *l->e);
        l->cap = cap;
    }
    l->snap = s;
    l->start = l->n = l->durable = (size_t)end;
    nd->sm_sum = s.sum;
    nd->sm_applied = end;
    nd->installs++;
    c->installs++;
    return 0;
}

void qt_snap_abort(void *x)
{
    qt_log *l = &((qt_ctx *)x)->nd->log;
    ((qt_ctx *)x)->nd->aborts++;
    l->recv.end = 0;
    l->rgot = 0;
}
