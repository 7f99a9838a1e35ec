/* Classic group membership: JoinGroup, SyncGroup, Heartbeat, LeaveGroup
 * and the rebalance they drive (Kafka's GroupMetadataManager for classic
 * groups; docs/groups.md). */
#include <string.h>

#include "base/uuid.h"
#include "group/grp_int.h"

static int32_t rebalance_timeout(const gc_group *g)
{
    int32_t t = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->m[i]->rebalance_timeout > t)
            t = g->m[i]->rebalance_timeout;
    return t;
}

/* ------------------------------------------------------------------------
 * Answers
 * ---------------------------------------------------------------------- */

static lr_gc_answer join_answer(const gc_group *g, uint64_t cookie, int err)
{
    lr_gc_answer a = {.cookie = cookie, .kind = LR_GC_JOIN, .error = err, .generation = -1,
                      .leader = "", .member_id = ""};
    if (g && !err) {
        a.generation = g->generation;
        a.protocol_type = g->protocol_type;
        a.protocol_name = g->protocol;
        a.leader = g->leader ? g->leader : "";
    }
    return a;
}

static void answer_error(lr_gc *gc, int kind, uint64_t cookie, int err, const char *member_id)
{
    lr_gc_answer a = join_answer(NULL, cookie, err);
    a.kind = kind;
    a.member_id = member_id ? member_id : "";
    lr_gci_answer(gc, &a);
}

/* The join answer of m for the current generation; the leader gets the
 * members (with_members) and their metadata of the group's protocol. */
static void answer_join(lr_gc *gc, gc_group *g, gc_member *m, uint64_t cookie, int with_members,
                        int skip_assignment)
{
    lr_gc_answer a = join_answer(g, cookie, 0);
    a.member_id = m->id;
    a.skip_assignment = skip_assignment;
    if (with_members && g->leader == m->id) {
        for (size_t i = 0; i < g->n; i++) { /* scratch reserved at member add */
            const gc_proto *pr = lr_gci_proto(g->m[i], g->protocol);
            gc->jm[i] = (lr_gc_join_member){g->m[i]->id, g->m[i]->instance_id, pr ? pr->md : NULL,
                                            pr ? pr->len : 0};
        }
        a.members = gc->jm;
        a.n_members = g->n;
    }
    lr_gci_answer(gc, &a);
}

static void finish_join(lr_gc *gc, gc_group *g, gc_member *m, int err)
{
    if (!m->awaiting_join)
        return;
    m->awaiting_join = 0;
    if (g->n_awaiting_join)
        g->n_awaiting_join--;
    if (err)
        answer_error(gc, LR_GC_JOIN, m->join_cookie, err, m->id);
    else
        answer_join(gc, g, m, m->join_cookie, 1, 0);
}

static void finish_sync(lr_gc *gc, gc_group *g, gc_member *m, int err)
{
    if (!m->awaiting_sync)
        return;
    m->awaiting_sync = 0;
    lr_gc_answer a = {.cookie = m->sync_cookie, .kind = LR_GC_SYNC, .error = err, .generation = -1};
    if (!err) {
        a.protocol_type = g->protocol_type;
        a.protocol_name = g->protocol;
        a.assignment = m->assignment;
        a.assignment_len = m->assignment_len;
    }
    lr_gci_answer(gc, &a);
}

void lr_gci_fail_parked(lr_gc *gc, gc_group *g, int err)
{
    for (size_t i = 0; i < g->n; i++) {
        finish_join(gc, g, g->m[i], err);
        finish_sync(gc, g, g->m[i], err);
    }
}

/* ------------------------------------------------------------------------
 * The rebalance
 * ---------------------------------------------------------------------- */

static void clear_assignments(lr_gc *gc, gc_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        lr_free(&gc->alloc, g->m[i]->assignment, g->m[i]->assignment_len);
        g->m[i]->assignment = NULL;
        g->m[i]->assignment_len = 0;
    }
}

static void prepare_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_COMPLETING_REBALANCE) {
        clear_assignments(gc, g);
        for (size_t i = 0; i < g->n; i++)
            finish_sync(gc, g, g->m[i], LOGREP_ERR_REBALANCE_IN_PROGRESS);
    }
    g->sync_deadline = INT64_MAX;
    g->initial = g->state == LR_GC_EMPTY;
    if (g->initial) {
        /* A new group waits for more members (Kafka's initial delay). */
        int32_t rt = rebalance_timeout(g);
        g->delay_ms = (int32_t)gc->initial_delay_ms;
        g->remaining_ms = rt > g->delay_ms ? rt - g->delay_ms : 0;
        g->join_deadline = now_ms + g->delay_ms;
    } else {
        g->join_deadline = now_ms + rebalance_timeout(g);
    }
    lr_gci_transition(g, LR_GC_PREPARING_REBALANCE, now_ms);
}

static int emit_plain(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    gc_append a = {.kind = AP_PLAIN};
    int err = lr_gci_batch_group(gc, g, 0, now_ms);
    if (err) {
        lr_gci_batch_clear(gc);
        return err;
    }
    err = lr_gci_emit(gc, g->p, &a);
    if (err)
        LR_LOG(&gc->log, 4, "group", "metadata of group %s not written: %s", g->id,
               logrep_err_name(err));
    return err;
}

static void complete_join(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state != LR_GC_PREPARING_REBALANCE)
        return;
    /* Dynamic members that did not rejoin leave; static ones stay. */
    for (size_t i = g->n; i-- > 0;) {
        gc_member *m = g->m[i];
        if (!m->awaiting_join && !m->instance_id) {
            finish_sync(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
            lr_gci_member_unlink(g, m);
            lr_gci_member_free(gc, m);
        }
    }
    /* The leader must be a member that rejoined. */
    gc_member *lead = g->leader ? lr_gci_member(g, g->leader) : NULL;
    if (!lead || !lead->awaiting_join) {
        lead = NULL;
        for (size_t i = 0; i < g->n && !lead; i++)
            if (g->m[i]->awaiting_join)
                lead = g->m[i];
        if (lead)
            g->leader = lead->id;
    }
    if (!lead && g->n) {
        /* Nobody rejoined: wait for the session timeouts to clear them. */
        g->initial = 0;
        g->join_deadline = now_ms + rebalance_timeout(g);
        return;
    }
    g->generation++;
    g->join_deadline = INT64_MAX;
    g->initial = 0;
    const char *sel = g->n ? lr_gci_select_protocol(g) : NULL;
    char *proto = sel ? lr_gci_strdup(gc, sel) : NULL;
    lr_gci_strfree(gc, g->protocol);
    g->protocol = proto; /* NULL on allocation failure: the members rejoin */
    if (!g->n) {
        lr_gci_transition(g, LR_GC_EMPTY, now_ms);
        (void)emit_plain(gc, g, now_ms);
        return;
    }
    lr_gci_transition(g, LR_GC_COMPLETING_REBALANCE, now_ms);
    for (size_t i = 0; i < g->n; i++) {
        gc_member *m = g->m[i];
        m->pending_sync = 1;
        m->is_new = 0;
        m->hb_deadline = now_ms + m->session_timeout;
        finish_join(gc, g, m, 0);
    }
    g->sync_deadline = now_ms + rebalance_timeout(g);
}

void lr_gci_maybe_complete_join(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_PREPARING_REBALANCE && g->n_awaiting_join == g->n && !g->n_pend &&
        g->prev_state != LR_GC_EMPTY)
        complete_join(gc, g, now_ms);
}

static void maybe_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_STABLE || g->state == LR_GC_COMPLETING_REBALANCE ||
        g->state == LR_GC_EMPTY)
        prepare_rebalance(gc, g, now_ms);
    else
        lr_gci_maybe_complete_join(gc, g, now_ms);
}

void lr_gci_remove_member(lr_gc *gc, gc_group *g, gc_member *m, int err, int64_t now_ms)
{
    finish_join(gc, g, m, err);
    finish_sync(gc, g, m, err);
    lr_gci_member_unlink(g, m);
    lr_gci_member_free(gc, m);
    if (g->state == LR_GC_STABLE || g->state == LR_GC_COMPLETING_REBALANCE)
        prepare_rebalance(gc, g, now_ms);
    if (g->state == LR_GC_PREPARING_REBALANCE)
        lr_gci_maybe_complete_join(gc, g, now_ms);
}

/* A member's heartbeat is due unless it waits in a rebalance (Kafka's
 * hasSatisfiedHeartbeat; new members can expire while joining). */
static int expired(const gc_member *m, int64_t now_ms)
{
    if (m->hb_deadline > now_ms)
        return 0;
    return m->is_new || !(m->awaiting_join || m->awaiting_sync);
}

int64_t lr_gci_group_deadline(const gc_group *g)
{
    int64_t d = g->join_deadline < g->sync_deadline ? g->join_deadline : g->sync_deadline;
    for (size_t i = 0; i < g->n; i++)
        if (g->m[i]->hb_deadline < d && (g->m[i]->is_new || !(g->m[i]->awaiting_join || g->m[i]->awaiting_sync)))
            d = g->m[i]->hb_deadline;
    for (size_t i = 0; i < g->n_pend; i++)
        if (g->pend[i].deadline < d)
            d = g->pend[i].deadline;
    return d;
}

int lr_gci_group_timers(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    for (size_t i = g->n_pend; i-- > 0;)
        if (g->pend[i].deadline <= now_ms) {
            lr_gci_pending_del(gc, g, i);
            lr_gci_maybe_complete_join(gc, g, now_ms);
        }
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < g->n && !again; i++)
            if (expired(g->m[i], now_ms)) {
                LR_LOG(&gc->log, 6, "group", "member %s of group %s: session expired", g->m[i]->id,
                       g->id);
                lr_gci_remove_member(gc, g, g->m[i], LOGREP_ERR_UNKNOWN_MEMBER_ID, now_ms);
                again = 1;
            }
    }
    if (g->join_deadline <= now_ms) {
        if (g->initial && g->new_member_added && g->remaining_ms > 0) {
            /* New members came: wait again, within the rebalance timeout. */
            int32_t delay = gc->initial_delay_ms < g->remaining_ms ? (int32_t)gc->initial_delay_ms
                                                                   : g->remaining_ms;
            g->new_member_added = 0;
            g->remaining_ms = g->remaining_ms > g->delay_ms ? g->remaining_ms - g->delay_ms : 0;
            g->delay_ms = delay;
            g->join_deadline = now_ms + delay;
        } else {
            g->new_member_added = 0;
            complete_join(gc, g, now_ms);
        }
    }
    if (g->sync_deadline <= now_ms) {
        g->sync_deadline = INT64_MAX;
        if (g->state == LR_GC_COMPLETING_REBALANCE || g->state == LR_GC_STABLE) {
            int removed = 0;
            for (size_t i = g->n; i-- > 0;) {
                gc_member *m = g->m[i];
                if (m->pending_sync) {
                    finish_join(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
                    finish_sync(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
                    lr_gci_member_unlink(g, m);
                    lr_gci_member_free(gc, m);
                    removed = 1;
                }
            }
            if (removed)
                maybe_rebalance(gc, g, now_ms);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * JoinGroup
 * ---------------------------------------------------------------------- */

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
        answer_error(gc, LR_GC_JOIN, m->join_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, m->id);
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
    maybe_rebalance(gc, g, now_ms);
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
    maybe_rebalance(gc, g, now_ms);
    return 0;
}

/* A known static member joins with a new member id: the old id is fenced. */
static int replace_static(lr_gc *gc, gc_group *g, gc_member *m, char *new_id,
                          const lr_gc_join_req *r, uint64_t cookie, int64_t now_ms)
{
    finish_join(gc, g, m, LOGREP_ERR_FENCED_INSTANCE_ID);
    finish_sync(gc, g, m, LOGREP_ERR_FENCED_INSTANCE_ID);
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
        prepare_rebalance(gc, g, now_ms);
    } else if (g->state == LR_GC_COMPLETING_REBALANCE) {
        prepare_rebalance(gc, g, now_ms);
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
        answer_error(gc, LR_GC_JOIN, a->cookie, err, "");
        return;
    }
    int skip = m->join_version >= 9 && g->leader == m->id;
    answer_join(gc, g, m, a->cookie, skip, skip);
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
            answer_error(gc, LR_GC_JOIN, cookie, LOGREP_ERR_MEMBER_ID_REQUIRED, id);
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
                answer_join(gc, g, m, cookie, g->state == LR_GC_COMPLETING_REBALANCE, 0);
            else
                err = update_member(gc, g, m, r, cookie, now_ms);
        } else {
            err = LOGREP_ERR_UNKNOWN_MEMBER_ID;
        }
        if (err == LOGREP_ERR__NOMEM)
            return err;
    }
    if (err) {
        answer_error(gc, LR_GC_JOIN, cookie, err, unknown ? "" : r->member_id);
        if (created && g && !g->n && !g->n_off && !g->n_pend)
            lr_gci_destroy(gc, g);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * SyncGroup
 * ---------------------------------------------------------------------- */

static int check_sync(const gc_group *g, const lr_gc_sync_req *r)
{
    if (!g)
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    int err = lr_gci_validate_member(g, r->member_id, r->instance_id);
    if (err)
        return err;
    if (r->generation != g->generation)
        return LOGREP_ERR_ILLEGAL_GENERATION;
    if ((r->protocol_type && (!g->protocol_type || strcmp(r->protocol_type, g->protocol_type))) ||
        (r->protocol_name && (!g->protocol || strcmp(r->protocol_name, g->protocol))))
        return LOGREP_ERR_INCONSISTENT_GROUP_PROTOCOL;
    if (r->n_assignments && !r->assignments)
        return LOGREP_ERR_INVALID_REQUEST;
    for (size_t i = 0; i < r->n_assignments; i++)
        if (!r->assignments[i].member_id || r->assignments[i].len > LR_GC_MAX_METADATA ||
            (r->assignments[i].len && !r->assignments[i].assignment))
            return LOGREP_ERR_INVALID_REQUEST;
    if (g->state == LR_GC_EMPTY)
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    if (g->state == LR_GC_PREPARING_REBALANCE)
        return LOGREP_ERR_REBALANCE_IN_PROGRESS;
    return 0;
}

/* The leader's assignments, copied into the members (missing ones empty). */
static int set_assignments(lr_gc *gc, gc_group *g, const lr_gc_sync_req *r)
{
    uint8_t **copies = lr_calloc(&gc->alloc, g->n ? g->n : 1, sizeof *copies);
    size_t *lens = lr_calloc(&gc->alloc, g->n ? g->n : 1, sizeof *lens);
    int err = copies && lens ? 0 : LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < g->n && !err; i++)
        for (size_t j = r->n_assignments; j-- > 0;)
            if (strcmp(r->assignments[j].member_id, g->m[i]->id) == 0) {
                lens[i] = r->assignments[j].len;
                if (lens[i] && !(copies[i] = lr_malloc(&gc->alloc, lens[i])))
                    err = LOGREP_ERR__NOMEM;
                else if (lens[i])
                    memcpy(copies[i], r->assignments[j].assignment, lens[i]);
                break;
            }
    for (size_t i = 0; i < g->n && copies && lens; i++) {
        if (err) {
            lr_free(&gc->alloc, copies[i], lens[i]);
            continue;
        }
        lr_free(&gc->alloc, g->m[i]->assignment, g->m[i]->assignment_len);
        g->m[i]->assignment = copies[i];
        g->m[i]->assignment_len = lens[i];
    }
    lr_free(&gc->alloc, copies, (g->n ? g->n : 1) * sizeof *copies);
    lr_free(&gc->alloc, lens, (g->n ? g->n : 1) * sizeof *lens);
    return err;
}

int lr_gc_sync(lr_gc *gc, const lr_gc_sync_req *r, uint64_t cookie, int64_t now_ms)
{
    if (!gc || !r)
        return LOGREP_ERR__INVALID_ARG;
    gc_group *g;
    int err = lr_gci_route(gc, r->group_id, 0, &g);
    if (!err)
        err = check_sync(g, r);
    if (err) {
        answer_error(gc, LR_GC_SYNC, cookie, err, NULL);
        return 0;
    }
    gc_member *m = lr_gci_member(g, r->member_id);
    if (g->state == LR_GC_STABLE) {
        m->pending_sync = 0;
        m->hb_deadline = now_ms + m->session_timeout;
        m->awaiting_sync = 1;
        m->sync_cookie = cookie;
        finish_sync(gc, g, m, 0);
        return 0;
    }
    /* CompletingRebalance: park; the leader's assignment is written. */
    if (g->leader == m->id && !g->sync_append) {
        if ((err = set_assignments(gc, g, r)))
            return err;
        gc_append a = {.kind = AP_SYNC, .generation = g->generation, .group = lr_gci_strdup(gc, g->id)};
        if (!a.group)
            return LOGREP_ERR__NOMEM;
        err = lr_gci_batch_group(gc, g, 0, now_ms);
        if (err) {
            lr_gci_batch_clear(gc);
            lr_gci_append_free(gc, &a);
            return err;
        }
        if (m->awaiting_sync)
            answer_error(gc, LR_GC_SYNC, m->sync_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, NULL);
        m->awaiting_sync = 1;
        m->sync_cookie = cookie;
        m->pending_sync = 0;
        err = lr_gci_emit(gc, g->p, &a);
        if (err) {
            g->sync_append = a.id;
            lr_gci_sync_done(gc, &a, err == LOGREP_ERR__NOMEM ? LOGREP_ERR_COORDINATOR_NOT_AVAILABLE : err,
                             now_ms);
            lr_gci_append_free(gc, &a);
        } else {
            g->sync_append = a.id;
        }
        return 0;
    }
    if (m->awaiting_sync)
        answer_error(gc, LR_GC_SYNC, m->sync_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, NULL);
    m->awaiting_sync = 1;
    m->sync_cookie = cookie;
    m->pending_sync = 0;
    return 0;
}

void lr_gci_sync_done(lr_gc *gc, gc_append *a, int err, int64_t now_ms)
{
    gc_group *g = lr_gci_find(gc, a->group);
    if (!g || g->sync_append != a->id)
        return;
    g->sync_append = 0;
    if (g->state != LR_GC_COMPLETING_REBALANCE || g->generation != a->generation)
        return; /* the parked syncs were answered when the state moved */
    if (err) {
        clear_assignments(gc, g);
        for (size_t i = 0; i < g->n; i++)
            finish_sync(gc, g, g->m[i], err);
        prepare_rebalance(gc, g, now_ms);
        return;
    }
    lr_gci_transition(g, LR_GC_STABLE, now_ms);
    for (size_t i = 0; i < g->n; i++) {
        if (g->m[i]->awaiting_sync)
            g->m[i]->hb_deadline = now_ms + g->m[i]->session_timeout;
        finish_sync(gc, g, g->m[i], 0);
    }
    int pending = 0;
    for (size_t i = 0; i < g->n; i++)
        pending |= g->m[i]->pending_sync;
    if (!pending)
        g->sync_deadline = INT64_MAX;
}
