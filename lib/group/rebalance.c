/* The rebalance of a classic group: the parked join and sync answers, the
 * move from PreparingRebalance to CompletingRebalance, the group's timers
 * (Kafka's GroupMetadataManager for classic groups; docs/groups.md). */
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

void lr_gci_answer_error(lr_gc *gc, int kind, uint64_t cookie, int err, const char *member_id)
{
    lr_gc_answer a = join_answer(NULL, cookie, err);
    a.kind = kind;
    a.member_id = member_id ? member_id : "";
    lr_gci_answer(gc, &a);
}

/* The join answer of m for the current generation; the leader gets the
 * members (with_members) and their metadata of the group's protocol. */
void lr_gci_answer_join(lr_gc *gc, gc_group *g, gc_member *m, uint64_t cookie, int with_members,
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

void lr_gci_finish_join(lr_gc *gc, gc_group *g, gc_member *m, int err)
{
    if (!m->awaiting_join)
        return;
    m->awaiting_join = 0;
    if (g->n_awaiting_join)
        g->n_awaiting_join--;
    if (err)
        lr_gci_answer_error(gc, LR_GC_JOIN, m->join_cookie, err, m->id);
    else
        lr_gci_answer_join(gc, g, m, m->join_cookie, 1, 0);
}

void lr_gci_finish_sync(lr_gc *gc, gc_group *g, gc_member *m, int err)
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
        lr_gci_finish_join(gc, g, g->m[i], err);
        lr_gci_finish_sync(gc, g, g->m[i], err);
    }
}

/* ------------------------------------------------------------------------
 * The rebalance
 * ---------------------------------------------------------------------- */

void lr_gci_clear_assignments(lr_gc *gc, gc_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        lr_free(&gc->alloc, g->m[i]->assignment, g->m[i]->assignment_len);
        g->m[i]->assignment = NULL;
        g->m[i]->assignment_len = 0;
    }
}

void lr_gci_prepare_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_COMPLETING_REBALANCE) {
        lr_gci_clear_assignments(gc, g);
        for (size_t i = 0; i < g->n; i++)
            lr_gci_finish_sync(gc, g, g->m[i], LOGREP_ERR_REBALANCE_IN_PROGRESS);
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
            lr_gci_finish_sync(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
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
        lr_gci_finish_join(gc, g, m, 0);
    }
    g->sync_deadline = now_ms + rebalance_timeout(g);
}

void lr_gci_maybe_complete_join(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_PREPARING_REBALANCE && g->n_awaiting_join == g->n && !g->n_pend &&
        g->prev_state != LR_GC_EMPTY)
        complete_join(gc, g, now_ms);
}

void lr_gci_maybe_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms)
{
    if (g->state == LR_GC_STABLE || g->state == LR_GC_COMPLETING_REBALANCE ||
        g->state == LR_GC_EMPTY)
        lr_gci_prepare_rebalance(gc, g, now_ms);
    else
        lr_gci_maybe_complete_join(gc, g, now_ms);
}

void lr_gci_remove_member(lr_gc *gc, gc_group *g, gc_member *m, int err, int64_t now_ms)
{
    lr_gci_finish_join(gc, g, m, err);
    lr_gci_finish_sync(gc, g, m, err);
    lr_gci_member_unlink(g, m);
    lr_gci_member_free(gc, m);
    if (g->state == LR_GC_STABLE || g->state == LR_GC_COMPLETING_REBALANCE)
        lr_gci_prepare_rebalance(gc, g, now_ms);
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
                    lr_gci_finish_join(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
                    lr_gci_finish_sync(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID);
                    lr_gci_member_unlink(g, m);
                    lr_gci_member_free(gc, m);
                    removed = 1;
                }
            }
            if (removed)
                lr_gci_maybe_rebalance(gc, g, now_ms);
        }
    }
    return 0;
}
