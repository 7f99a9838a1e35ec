/* Parked requests: an acks=all produce waiting for its replicas, a Fetch
 * waiting for min_bytes, an admin request forwarded to the controller,
 * and the in-process calls that wait the same way. Each wire request
 * keeps its connection's response slot so later answers on that
 * connection stay in order, and is polled when something it may be
 * waiting for changed or its deadline passed. The kinds are in the files
 * of their APIs; this file keeps the list and what wakes a parked read
 * (the partitions it tracks). */
#include "node/node_int.h"

void lr_park_hold(logrep_node *n, lr_parked *d, const lr_park_ops *ops)
{
    d->ops = ops;
    d->next = n->park.list;
    n->park.list = d;
}

int lr_park_add(logrep_node *n, lr_conn *c, const logrep_msg *msg, lr_parked *d,
                const lr_park_ops *ops)
{
    d->slot = lr_conn_slot(n, c);
    if (!d->slot)
        return LOGREP_ERR__NOMEM;
    d->conn = c;
    d->api_key = (int16_t)logrep_msg_api_key(msg);
    d->version = (int16_t)logrep_msg_version(msg);
    d->correlation_id = logrep_msg_correlation_id(msg);
    lr_park_hold(n, d, ops);
    return 0;
}

int lr_park_holds(const logrep_node *n, const lr_parked *d)
{
    for (const lr_parked *x = n->park.list; x; x = x->next)
        if (x == d)
            return 1;
    return 0;
}

static void unlink_parked(logrep_node *n, lr_parked *d)
{
    lr_parked **pp = &n->park.list;
    while (*pp && *pp != d)
        pp = &(*pp)->next;
    if (*pp)
        *pp = d->next;
}

void lr_park_remove(logrep_node *n, lr_parked *d)
{
    unlink_parked(n, d);
    d->ops->free(n, d);
}

void lr_park_poll(logrep_node *n, int64_t now_ms)
{
    lr_parked *d = n->park.list;
    while (d) {
        lr_parked *next = d->next;
        if (d->ops->poll(n, d, now_ms))
            lr_park_remove(n, d);
        d = next;
    }
    n->park.woken = 0;
}

int64_t lr_park_deadline(const logrep_node *n, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    for (const lr_parked *d = n->park.list; d; d = d->next) {
        int64_t t = d->ops->deadline(n, d, now_ms);
        if (t < next)
            next = t;
    }
    return next < now_ms ? now_ms : next;
}

int64_t lr_parked_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms)
{
    (void)n;
    (void)now_ms;
    return d->deadline;
}

void lr_park_drop_conn(logrep_node *n, lr_conn *c)
{
    lr_parked *d = n->park.list;
    while (d) {
        lr_parked *next = d->next;
        if (d->conn == c)
            lr_park_remove(n, d);
        d = next;
    }
}

void lr_park_free_all(logrep_node *n)
{
    while (n->park.list) {
        lr_parked *d = n->park.list;
        n->park.list = d->next;
        d->ops->free(n, d);
    }
}

void lr_node_part_changed(logrep_node *n, lr_npart *p)
{
    n->park.woken = 1;
    n->park.seq++;
    if (p)
        p->changed_seq = n->park.seq;
    else
        n->park.all_seq = n->park.seq;
}

void lr_node_metadata_changed(logrep_node *n)
{
    n->park.woken = 1;
    n->park.md_seq = ++n->park.seq;
}

/* ------------------------------------------------------------ tracked reads */

void lr_park_track_reset(lr_park_track *t)
{
    t->n = 0;
    t->any = t->md = 0;
}

void lr_park_track_add(logrep_node *n, lr_park_track *t, const lr_npart *p)
{
    if (t->any)
        return;
    if (t->n == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 8;
        int32_t *idx = lr_realloc(&n->alloc, t->idx, (size_t)t->cap * sizeof *idx,
                                  (size_t)cap * sizeof *idx);
        if (!idx) {
            t->any = 1; /* woken by any change instead */
            return;
        }
        t->idx = idx;
        t->cap = cap;
    }
    t->idx[t->n++] = (int32_t)(p - n->parts.v);
}

int lr_park_track_due(const logrep_node *n, const lr_park_track *t, int64_t deadline,
                      int64_t now_ms)
{
    if (now_ms >= deadline || n->life.shutting_down || n->park.all_seq > t->seen_seq ||
        (t->md && n->park.md_seq > t->seen_seq))
        return 1;
    if (t->any)
        return n->park.seq > t->seen_seq;
    for (int32_t i = 0; i < t->n; i++) {
        int32_t k = t->idx[i];
        if (k >= 0 && (size_t)k < n->parts.n && n->parts.v[k].changed_seq > t->seen_seq)
            return 1;
    }
    return 0;
}

void lr_park_track_free(logrep_node *n, lr_park_track *t)
{
    lr_free(&n->alloc, t->idx, (size_t)t->cap * sizeof *t->idx);
    t->idx = NULL;
    t->cap = t->n = 0;
}
