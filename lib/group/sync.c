/* SyncGroup: the leader's assignment written, then handed to the
 * members (docs/groups.md). */
#include <string.h>

#include "group/grp_int.h"

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
        lr_gci_answer_error(gc, LR_GC_SYNC, cookie, err, NULL);
        return 0;
    }
    gc_member *m = lr_gci_member(g, r->member_id);
    if (g->state == LR_GC_STABLE) {
        m->pending_sync = 0;
        m->hb_deadline = now_ms + m->session_timeout;
        m->awaiting_sync = 1;
        m->sync_cookie = cookie;
        lr_gci_finish_sync(gc, g, m, 0);
        return 0;
    }
    /* CompletingRebalance: park; the leader's assignment is written. An
     * assignment of an older generation still in flight does not hold up
     * this one: its completion is ignored (sync_done checks the id). */
    if (g->leader == m->id && (!g->sync_append || g->sync_append_gen != g->generation)) {
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
            lr_gci_answer_error(gc, LR_GC_SYNC, m->sync_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, NULL);
        m->awaiting_sync = 1;
        m->sync_cookie = cookie;
        m->pending_sync = 0;
        err = lr_gci_emit(gc, g->p, &a);
        g->sync_append_gen = g->generation;
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
        lr_gci_answer_error(gc, LR_GC_SYNC, m->sync_cookie, LOGREP_ERR_REBALANCE_IN_PROGRESS, NULL);
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
        lr_gci_clear_assignments(gc, g);
        for (size_t i = 0; i < g->n; i++)
            lr_gci_finish_sync(gc, g, g->m[i], err);
        lr_gci_prepare_rebalance(gc, g, now_ms);
        return;
    }
    lr_gci_transition(g, LR_GC_STABLE, now_ms);
    for (size_t i = 0; i < g->n; i++) {
        if (g->m[i]->awaiting_sync)
            g->m[i]->hb_deadline = now_ms + g->m[i]->session_timeout;
        lr_gci_finish_sync(gc, g, g->m[i], 0);
    }
    int pending = 0;
    for (size_t i = 0; i < g->n; i++)
        pending |= g->m[i]->pending_sync;
    if (!pending)
        g->sync_deadline = INT64_MAX;
}
