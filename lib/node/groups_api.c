/* The group coordinator for in-process callers (include/logrep/groups.h):
 * the same coordinator calls the wire handlers make, with public types.
 * A commit waits for its records like a wire commit; its answer is queued
 * as an event the host takes with logrep_node_poll. */
#include <string.h>

#include "group/group.h"
#include "logrep/groups.h"
#include "node/node_int.h"

static int add_event(logrep_node *n, uint64_t cookie, uint64_t token, size_t n_items)
{
    lr_groups *g = &n->groups;
    if (g->n_events == g->cap_events) {
        size_t nc = g->cap_events ? g->cap_events * 2 : 8;
        lr_gevent *ne = lr_realloc(&n->alloc, g->events, g->cap_events * sizeof *ne,
                                   nc * sizeof *ne);
        if (!ne)
            return LOGREP_ERR__NOMEM;
        g->events = ne;
        g->cap_events = nc;
    }
    int16_t *errs = lr_calloc(&n->alloc, n_items ? n_items : 1, sizeof *errs);
    if (!errs)
        return LOGREP_ERR__NOMEM;
    g->events[g->n_events++] = (lr_gevent){cookie, token, 0, 0, errs, n_items};
    return 0;
}

int lr_groups_inproc_answer(logrep_node *n, const lr_gc_answer *a)
{
    lr_groups *g = &n->groups;
    for (size_t i = 0; i < g->n_events; i++) {
        lr_gevent *e = &g->events[i];
        if (e->done || e->cookie != a->cookie)
            continue;
        e->done = 1;
        e->error = a->error;
        for (size_t k = 0; k < e->n; k++) {
            int pe = k < a->n_parts && a->part_errors ? a->part_errors[k] : a->error;
            e->errors[k] = lr_wire_code(pe);
            if (pe && !e->error)
                e->error = pe;
        }
        return 1;
    }
    return 0;
}

void lr_groups_api_free(logrep_node *n)
{
    lr_groups *g = &n->groups;
    for (size_t i = 0; i < g->n_events; i++)
        lr_free(&n->alloc, g->events[i].errors,
                (g->events[i].n ? g->events[i].n : 1) * sizeof(int16_t));
    lr_free(&n->alloc, g->events, g->cap_events * sizeof *g->events);
    lr_free(&n->alloc, g->polled, (g->n_polled ? g->n_polled : 1) * sizeof(int16_t));
    g->events = NULL;
    g->polled = NULL;
    g->n_events = g->cap_events = g->n_polled = 0;
}

LOGREP_API int logrep_node_poll(logrep_node *n, logrep_node_event *ev)
{
    if (!n || !ev)
        return 0;
    lr_groups *g = &n->groups;
    for (size_t i = 0; i < g->n_events; i++) {
        lr_gevent e = g->events[i];
        if (!e.done)
            continue;
        memmove(g->events + i, g->events + i + 1, (g->n_events - i - 1) * sizeof *g->events);
        g->n_events--;
        lr_free(&n->alloc, g->polled, (g->n_polled ? g->n_polled : 1) * sizeof(int16_t));
        g->polled = e.errors; /* the event's errors live until the next poll */
        g->n_polled = e.n;
        memset(ev, 0, sizeof *ev);
        ev->type = LOGREP_NODE_EV_COMMIT;
        ev->token = e.token;
        ev->error = e.error;
        ev->errors = e.errors;
        ev->n_errors = e.n;
        return 1;
    }
    return 0;
}

LOGREP_API logrep_err logrep_node_commit_offsets(logrep_node *n, const char *group,
                                                 const logrep_group_offset *offsets,
                                                 size_t count, uint64_t token, int64_t now_ms)
{
    if (!n || !group || (!offsets && count))
        return LOGREP_ERR__INVALID_ARG;
    if (!n->groups.gc)
        return LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    lr_groups_begin(n, now_ms);
    lr_gc_commit_part *ps = lr_garena_alloc(n, (count ? count : 1) * sizeof *ps);
    if (!ps)
        return LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < count; i++) {
        const logrep_group_offset *o = &offsets[i];
        if (!o->topic)
            return LOGREP_ERR__INVALID_ARG;
        const lr_md_topic *t = lr_md_topic_by_name(n->md.img, o->topic);
        if (!t || o->partition < 0 || o->partition >= t->n_parts)
            return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        ps[i] = (lr_gc_commit_part){o->topic, o->partition, o->offset, o->leader_epoch,
                                    o->metadata};
    }
    uint64_t cookie = ++n->groups.cookie_seq;
    int err = add_event(n, cookie, token, count);
    if (err)
        return err;
    lr_gc_commit_req q = {8, group, "", NULL, -1, -1, ps, count};
    err = lr_gc_commit(n->groups.gc, &q, cookie, now_ms);
    if (err < 0) {
        /* Refused without an answer: the event is withdrawn. */
        lr_gevent *e = &n->groups.events[n->groups.n_events - 1];
        lr_free(&n->alloc, e->errors, (e->n ? e->n : 1) * sizeof(int16_t));
        n->groups.n_events--;
        return err;
    }
    lr_groups_flush(n, now_ms);
    return LOGREP_OK;
}

typedef struct fetch_ctx {
    logrep_node *n;
    logrep_group_offset *out;
    size_t count, next;
    int nomem;
} fetch_ctx;

static void fetched_one(void *ctx, const lr_gc_offset *o)
{
    fetch_ctx *f = ctx;
    if (f->next >= f->count)
        return;
    logrep_group_offset *d = &f->out[f->next++];
    d->offset = o->offset;
    d->leader_epoch = o->leader_epoch;
    d->error = (int16_t)o->error;
    size_t len = o->metadata ? strlen(o->metadata) : 0;
    char *md = o->offset >= 0 ? lr_garena_alloc(f->n, len + 1) : NULL;
    if (md)
        memcpy(md, o->metadata ? o->metadata : "", len + 1);
    else if (o->offset >= 0)
        f->nomem = 1;
    d->metadata = md;
}

LOGREP_API logrep_err logrep_node_fetch_offsets(logrep_node *n, const char *group,
                                                logrep_group_offset *offsets, size_t count)
{
    if (!n || !group || (!offsets && count))
        return LOGREP_ERR__INVALID_ARG;
    if (!n->groups.gc)
        return LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    lr_groups_begin(n, n->groups.now);
    lr_gc_tp *tps = lr_garena_alloc(n, (count ? count : 1) * sizeof *tps);
    if (!tps)
        return LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < count; i++) {
        if (!offsets[i].topic)
            return LOGREP_ERR__INVALID_ARG;
        tps[i] = (lr_gc_tp){offsets[i].topic, offsets[i].partition};
    }
    fetch_ctx f = {n, offsets, count, 0, 0};
    int err = lr_gc_fetch(n->groups.gc, group, tps, count, 0, fetched_one, &f);
    return f.nomem ? LOGREP_ERR__NOMEM : err;
}

/* The coordinator's description in public types. */
typedef struct describe_ctx {
    logrep_node *n;
    logrep_group_fn fn;
    void *ctx;
    int nomem;
} describe_ctx;

static void described(void *ctx, const lr_gc_group_info *g)
{
    describe_ctx *d = ctx;
    logrep_group_member *ms = NULL;
    if (g->n_members && !(ms = lr_garena_alloc(d->n, g->n_members * sizeof *ms))) {
        d->nomem = 1;
        return;
    }
    for (size_t i = 0; i < g->n_members; i++) {
        const lr_gc_member_info *m = &g->members[i];
        ms[i] = (logrep_group_member){m->member_id, m->instance_id, m->client_id,
                                      m->client_host, m->metadata, m->metadata_len,
                                      m->assignment, m->assignment_len};
    }
    logrep_group_info info = {g->group_id, lr_gc_state_name(g->state), g->protocol_type,
                              g->protocol, g->leader ? g->leader : "", g->generation,
                              ms, g->n_members};
    d->fn(d->ctx, &info);
}

LOGREP_API logrep_err logrep_node_describe_group(logrep_node *n, const char *group,
                                                 logrep_group_fn fn, void *ctx)
{
    if (!n || !group || !fn)
        return LOGREP_ERR__INVALID_ARG;
    if (!n->groups.gc)
        return LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    lr_groups_begin(n, n->groups.now);
    describe_ctx d = {n, fn, ctx, 0};
    int err = lr_gc_describe(n->groups.gc, group, described, &d);
    return d.nomem ? LOGREP_ERR__NOMEM : err;
}

LOGREP_API logrep_err logrep_node_list_groups(logrep_node *n, logrep_group_fn fn, void *ctx)
{
    if (!n || !fn)
        return LOGREP_ERR__INVALID_ARG;
    if (!n->groups.gc)
        return LOGREP_OK;
    lr_groups_begin(n, n->groups.now);
    describe_ctx d = {n, fn, ctx, 0};
    int err = lr_gc_list(n->groups.gc, 0, described, &d);
    return d.nomem ? LOGREP_ERR__NOMEM : err;
}

/* Every group's id first (listing borrows them), then its offsets. */
typedef struct lag_ctx {
    logrep_node *n;
    const char **ids;
    size_t n_ids, cap;
    const char *group;
    logrep_group_lag_fn fn;
    void *ctx;
    int nomem;
} lag_ctx;

static void lag_group(void *ctx, const lr_gc_group_info *g)
{
    lag_ctx *l = ctx;
    if (l->n_ids == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        const char **ni = lr_garena_alloc(l->n, nc * sizeof *ni);
        if (!ni) {
            l->nomem = 1;
            return;
        }
        if (l->n_ids)
            memcpy(ni, l->ids, l->n_ids * sizeof *ni);
        l->ids = ni;
        l->cap = nc;
    }
    int nomem = 0;
    const char *id = lr_gcstr(l->n, g->group_id, (int32_t)strlen(g->group_id), &nomem);
    if (!id) {
        l->nomem = 1;
        return;
    }
    l->ids[l->n_ids++] = id;
}

static void lag_offset(void *ctx, const lr_gc_offset *o)
{
    lag_ctx *l = ctx;
    lr_npart *p = lr_node_part(l->n, o->topic, o->partition);
    int64_t hw = p ? lr_partition_high_watermark(p->rep) : -1;
    int64_t lag = hw < 0 ? -1 : hw > o->offset ? hw - o->offset : 0;
    logrep_group_lag x = {l->group, o->topic, o->partition, o->offset, hw, lag};
    l->fn(l->ctx, &x);
}

LOGREP_API logrep_err logrep_node_group_lags(logrep_node *n, logrep_group_lag_fn fn, void *ctx)
{
    if (!n || !fn)
        return LOGREP_ERR__INVALID_ARG;
    if (!n->groups.gc)
        return LOGREP_OK;
    lr_groups_begin(n, n->groups.now);
    lag_ctx l = {n, NULL, 0, 0, NULL, fn, ctx, 0};
    lr_gc_list(n->groups.gc, 0, lag_group, &l);
    for (size_t i = 0; i < l.n_ids && !l.nomem; i++) {
        l.group = l.ids[i];
        lr_gc_fetch(n->groups.gc, l.ids[i], NULL, 0, 0, lag_offset, &l);
    }
    return l.nomem ? LOGREP_ERR__NOMEM : LOGREP_OK;
}
