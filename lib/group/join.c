/* JoinGroup: new, known and static members joining a classic group
 * (docs/groups.md). The rebalance it starts is rebalance.c. */
#include <string.h>

#include "base/uuid.h"
#include "group/grp_int.h"

static char *new_member_id(lr_gc *gc, const char *client_id)
{
    uint8_t u[16];
    char s[23];
    for (int i = 0; i < 2; i++) {
        uint64_t x = lr_prng_next(&gc->prng);
        memcpy(u + 8 * i, &x, 8);
    }
    lr_uuid_to_str(u, s);
    size_t n = strlen(client_id);
    char *id = lr_malloc(&gc->alloc, n + 1 + 22 + 1);
    if (id) {
        memcpy(id, client_id, n);
        id[n] = '-';
        memcpy(id + n + 1, s, 23);
    }
    return id;
}

static int accept_joining(const lr_gc *gc, const gc_group *g, const char *member_id)
{
    const gc_member *m = lr_gci_member(g, member_id);
    switch (g->state) {
    case LR_GC_PREPARING_REBALANCE:
        return (m && m->awaiting_join) || (int64_t)g->n_awaiting_join < gc->max_size;
    case LR_GC_COMPLETING_REBALANCE:
    case LR_GC_STABLE:
        return m || (int64_t)g->n < gc->max_size;
    default:
        return 1;
    }
}

static int check_join(const lr_gc *gc, const lr_gc_join_req *r)
{
    if (r->session_timeout_ms < gc->min_session_ms || r->session_timeout_ms > gc->max_session_ms)
        return LOGREP_ERR_INVALID_SESSION_TIMEOUT;
    if (!lr_gci_str_ok(r->member_id) || !lr_gci_str_ok(r->instance_id) ||
        !lr_gci_str_ok(r->client_id) || !lr_gci_str_ok(r->client_host) ||
        !lr_gci_str_ok(r->protocol_type) || r->n_protocols > LR_GC_MAX_PROTOCOLS ||
        (r->n_protocols && !r->protocols))
        return LOGREP_ERR_INVALID_REQUEST;
    for (size_t i = 0; i < r->n_protocols; i++)
        if (!r->protocols[i].name || !lr_gci_str_ok(r->protocols[i].name) ||
            r->protocols[i].metadata_len > LR_GC_MAX_METADATA ||
            (r->protocols[i].metadata_len && !r->protocols[i].metadata))
            return LOGREP_ERR_INVALID_REQUEST;
    return 0;
}

/* Parks m's join under cookie (an older parked join is answered). */
static void park_join(lr_gc *gc, gc_group *g, gc_member *m, uint64_t cookie, int16_t version)
{
    if (m->awaiting_join)
        lr_gci_answer_error(gc, LR_GC_JOIN, m->join_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, m->id);
    else
        g->n_awaiting_join++;
    m->awaiting_join = 1;
    m->join_cookie = cookie;
    m->join_version = version;
}

static int add_member(lr_gc *gc, gc_group *g, char *id, const lr_gc_join_req *r, uint64_t cookie,
                      int64_t now_ms)
{
    gc_member *m = lr_calloc(&gc->alloc, 1, sizeof *m);
    if (!m) {
        lr_free(&gc->alloc, id, strlen(id) + 1);
        return LOGREP_ERR__NOMEM;
    }
    m->id = id;
    m->instance_id = lr_gci_strdup(gc, r->instance_id);
    m->client_id = lr_gci_strdup(gc, r->client_id ? r->client_id : "");
    m->client_host = lr_gci_strdup(gc, r->client_host ? r->client_host : "");
    char *ptype = g->n ? NULL : lr_gci_strdup(gc, r->protocol_type);
    int err = (r->instance_id && !m->instance_id) || !m->client_id || !m->client_host ||
                      (!g->n && !ptype)
                  ? LOGREP_ERR__NOMEM
                  : lr_gci_set_protocols(gc, m, r->protocols, r->n_protocols);
    m->session_timeout = r->session_timeout_ms;
    m->rebalance_timeout = r->rebalance_timeout_ms < 0 ? r->session_timeout_ms : r->rebalance_timeout_ms;
    m->is_new = 1;
    m->hb_deadline = now_ms + LR_GC_NEW_MEMBER_JOIN_TIMEOUT_MS;
    m->awaiting_join = 1;
    m->join_cookie = cookie;
    m->join_version = r->version;
    if (!err)
        err = lr_gci_member_add(gc, g, m);
    if (err) {
        lr_gci_strfree(gc, ptype);
        lr_gci_member_free(gc, m);
        return err;
    }
    if (ptype) {
        lr_gci_strfree(gc, g->protocol_type);
        g->protocol_type = ptype;
    }
    if (g->state == LR_GC_PREPARING_REBALANCE && g->generation == 0)
        g->new_member_added = 1;
    lr_gci_maybe_rebalance(gc, g, now_ms);
    return 0;
}

static int update_member(lr_gc *gc, gc_group *g, gc_member *m, const lr_gc_join_req *r,
                         uint64_t cookie, int64_t now_ms)
{
    int err = lr_gci_set_protocols(gc, m, r->protocols, r->n_protocols);
    if (err)
        return err;
    m->session_timeout = r->session_timeout_ms;
    m->rebalance_timeout = r->rebalance_timeout_ms < 0 ? r->session_timeout_ms : r->rebalance_timeout_ms;
    park_join(gc, g, m, cookie, r->version);
    lr_gci_maybe_rebalance(gc, g, now_ms);
    return 0;
}

/* A known static member joins with a new member id: the old id is fenced. */
static int replace_static(lr_gc *gc, gc_group *g, gc_member *m, char *new_id,
                          const lr_gc_join_req *r, uint64_t cookie, int64_t now_ms)
{
    lr_gci_finish_join(gc, g, m, LOGREP_ERR_FENCED_INSTANCE_ID);
    lr_gci_finish_sync(gc, g, m, LOGREP_ERR_FENCED_INSTANCE_ID);
    char *old_id = m->id;
    int lead = g->leader == old_id;
    int err = lr_gci_set_protocols(gc, m, r->protocols, r->n_protocols);
    gc_append a = {.kind = AP_STATIC_JOIN, .cookie = cookie};
    if (!err && g->state == LR_GC_STABLE) {
        a.old_id = lr_gci_strdup(gc, old_id);
        a.new_id = lr_gci_strdup(gc, new_id);
        a.group = lr_gci_strdup(gc, g->id);
        if (!a.old_id || !a.new_id || !a.group)
            err = LOGREP_ERR__NOMEM;
    }
    if (err) {
        lr_gci_append_free(gc, &a);
        lr_free(&gc->alloc, new_id, strlen(new_id) + 1);
        return err;
    }
    m->id = new_id;
    if (lead)
        g->leader = new_id;
    lr_free(&gc->alloc, old_id, strlen(old_id) + 1);
    m->session_timeout = r->session_timeout_ms;
    m->rebalance_timeout = r->rebalance_timeout_ms < 0 ? r->session_timeout_ms : r->rebalance_timeout_ms;
    m->hb_deadline = now_ms + m->session_timeout;
    park_join(gc, g, m, cookie, r->version);
    if (g->state == LR_GC_STABLE) {
        const char *next = lr_gci_select_protocol(g);
        if (next && g->protocol && strcmp(next, g->protocol) == 0) {
            /* Same protocol: persist the new member id, no rebalance. */
            a.generation = g->generation;
            err = lr_gci_batch_group(gc, g, 0, now_ms);
            if (!err)
                err = lr_gci_emit(gc, g->p, &a);
            if (err) {
                lr_gci_batch_clear(gc);
                lr_gci_static_done(gc, &a, LOGREP_ERR_COORDINATOR_NOT_AVAILABLE, now_ms);
                lr_gci_append_free(gc, &a);
            }
            return 0;
        }
        lr_gci_append_free(gc, &a);
        lr_gci_prepare_rebalance(gc, g, now_ms);
    } else if (g->state == LR_GC_COMPLETING_REBALANCE) {
        lr_gci_prepare_rebalance(gc, g, now_ms);
    } else {
        lr_gci_maybe_complete_join(gc, g, now_ms);
    }
    return 0;
}

void lr_gci_static_done(lr_gc *gc, gc_append *a, int err, int64_t now_ms)
{
    (void)now_ms;
    gc_group *g = lr_gci_find(gc, a->group);
    gc_member *m = g ? lr_gci_member(g, a->new_id) : NULL;
    if (!m || !m->awaiting_join || m->join_cookie != a->cookie || g->state != LR_GC_STABLE)
        return; /* answered otherwise since */
    m->awaiting_join = 0;
    if (g->n_awaiting_join)
        g->n_awaiting_join--;
    if (err) {
        /* Not persisted: the old member id stands again. */
        if (!lr_gci_member(g, a->old_id)) {
            char *t = m->id;
            m->id = a->old_id;
            a->old_id = t;
            if (g->leader == t)
                g->leader = m->id;
        }
        lr_gci_answer_error(gc, LR_GC_JOIN, a->cookie, err, "");
        return;
    }
    int skip = m->join_version >= 9 && g->leader == m->id;
    lr_gci_answer_join(gc, g, m, a->cookie, skip, skip);
}

/* A member id handed out with MEMBER_ID_REQUIRED (id owned on success). */
static int pend_add(lr_gc *gc, gc_group *g, char *id, int64_t deadline)
{
    if (g->n_pend == g->cap_pend) {
        size_t nc = g->cap_pend ? 2 * g->cap_pend : 4;
        gc_pending *p = lr_realloc(&gc->alloc, g->pend, g->cap_pend * sizeof *p, nc * sizeof *p);
        if (!p) {
            lr_free(&gc->alloc, id, strlen(id) + 1);
            return LOGREP_ERR__NOMEM;
        }
        g->pend = p;
        g->cap_pend = nc;
    }
    g->pend[g->n_pend++] = (gc_pending){id, deadline};
    return 0;
}

int lr_gc_join(lr_gc *gc, const lr_gc_join_req *r, uint64_t cookie, int64_t now_ms)
{
    if (!gc || !r)
        return LOGREP_ERR__INVALID_ARG;
    gc_group *g;
    int err = lr_gci_route(gc, r->group_id, 0, &g);
    if (!err)
        err = check_join(gc, r);
    int unknown = !r->member_id || !r->member_id[0];
    int created = 0;
    if (!err && !g) {
        if (!unknown)
            err = LOGREP_ERR_UNKNOWN_MEMBER_ID;
        else if (!(g = lr_gci_create(gc, r->group_id, lr_gc_partition_for(gc, r->group_id))))
            return LOGREP_ERR__NOMEM;
        else
            created = 1;
    }
    if (!err && !accept_joining(gc, g, r->member_id))
        err = LOGREP_ERR_GROUP_MAX_SIZE_REACHED;
    if (!err && !lr_gci_supports(g, r->protocol_type, r->protocols, r->n_protocols))
        err = LOGREP_ERR_INCONSISTENT_GROUP_PROTOCOL;
    if (!err && unknown) {
        char *id = new_member_id(gc, r->client_id ? r->client_id : "");
        gc_member *s = lr_gci_static_member(g, r->instance_id);
        if (!id)
            err = LOGREP_ERR__NOMEM;
        else if (s)
            err = replace_static(gc, g, s, id, r, cookie, now_ms);
        else if (r->instance_id || r->version < 4)
            err = add_member(gc, g, id, r, cookie, now_ms);
        else if ((err = pend_add(gc, g, id, now_ms + r->session_timeout_ms)) == 0)
            lr_gci_answer_error(gc, LR_GC_JOIN, cookie, LOGREP_ERR_MEMBER_ID_REQUIRED, id);
        if (err == LOGREP_ERR__NOMEM) {
            if (created && !g->n && !g->n_off && !g->n_pend)
                lr_gci_destroy(gc, g);
            return err;
        }
    } else if (!err) {
        int pi = lr_gci_pending_index(g, r->member_id);
        gc_member *m = lr_gci_member(g, r->member_id);
        if (pi >= 0 && r->instance_id) {
            err = LOGREP_ERR_INVALID_REQUEST;
        } else if (pi >= 0) {
            char *id = lr_gci_strdup(gc, r->member_id);
            if (!id || (err = add_member(gc, g, id, r, cookie, now_ms)) == LOGREP_ERR__NOMEM)
                return LOGREP_ERR__NOMEM;
            if ((pi = lr_gci_pending_index(g, r->member_id)) >= 0)
                lr_gci_pending_del(gc, g, (size_t)pi);
            lr_gci_maybe_complete_join(gc, g, now_ms);
        } else if ((err = lr_gci_validate_member(g, r->member_id, r->instance_id)) != 0) {
        } else if (g->state == LR_GC_PREPARING_REBALANCE) {
            err = update_member(gc, g, m, r, cookie, now_ms);
        } else if (g->state == LR_GC_COMPLETING_REBALANCE || g->state == LR_GC_STABLE) {
            int same = lr_gci_same_protocols(m, r->protocols, r->n_protocols);
            if (same && (g->state == LR_GC_COMPLETING_REBALANCE || g->leader != m->id))
                lr_gci_answer_join(gc, g, m, cookie, g->state == LR_GC_COMPLETING_REBALANCE, 0);
            else
                err = update_member(gc, g, m, r, cookie, now_ms);
        } else {
            err = LOGREP_ERR_UNKNOWN_MEMBER_ID;
        }
        if (err == LOGREP_ERR__NOMEM)
            return err;
    }
    if (err) {
        lr_gci_answer_error(gc, LR_GC_JOIN, cookie, err, unknown ? "" : r->member_id);
        if (created && g && !g->n && !g->n_off && !g->n_pend)
            lr_gci_destroy(gc, g);
    }
    return 0;
}
