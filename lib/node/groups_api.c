/* The group coordinator for in-process callers (include/logrep/groups.h):
 * the same coordinator calls the wire handlers make, with public types.
 * A commit waits for its records like a wire commit; its answer completes
 * its event in the node's event queue (events.c), which the host takes
 * with logrep_node_poll. */
#include <string.h>

#include "group/group.h"
#include <logrep/groups.h>
#include "node/node_int.h"

int lr_groups_inproc_answer(logrep_node *n, const lr_gc_answer *a)
{
    lr_evt *e = lr_evt_find(n, LOGREP_NODE_EV_COMMIT, a->cookie);
    if (!e)
        return 0;
    int error = a->error;
    int16_t *errors = e->own;
    for (size_t k = 0; k < e->ev.n_errors; k++) {
        int pe = k < a->n_parts && a->part_errors ? a->part_errors[k] : a->error;
        errors[k] = lr_wire_code(pe);
        if (pe && !error)
            error = pe;
    }
    lr_evt_done(n, e, error);
    return 1;
}

LOGREP_API logrep_err logrep_node_group_coordinator(logrep_node *n, const char *group,
                                                    int64_t now_ms, int32_t *node_id)
{
    if (!n || !group || !node_id)
        return LOGREP_ERR__INVALID_ARG;
    return lr_groups_coordinator(n, group, now_ms, node_id);
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
    lr_evt *e = lr_evt_start(n, LOGREP_NODE_EV_COMMIT, token, cookie);
    if (!e || !(e->ev.errors = lr_evt_alloc(n, e, count * sizeof(int16_t)))) {
        if (e)
            lr_evt_cancel(n, e);
        return LOGREP_ERR__NOMEM;
    }
    memset((int16_t *)e->ev.errors, 0, count * sizeof(int16_t));
    e->ev.n_errors = count;
    lr_gc_commit_req q = {8, group, "", NULL, -1, -1, ps, count};
    int err = lr_gc_commit(n->groups.gc, &q, cookie, now_ms);
    if (err < 0) {
        /* Refused without an answer: the event is withdrawn. */
        lr_evt_cancel(n, e);
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
