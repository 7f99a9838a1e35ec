/* Heartbeat and LeaveGroup (docs/groups.md). */
#include <string.h>

#include "group/grp_int.h"

/* ------------------------------------------------------------------------
 * Heartbeat and LeaveGroup
 * ---------------------------------------------------------------------- */

int lr_gc_heartbeat(lr_gc *gc, const char *group_id, const char *member_id,
                    const char *instance_id, int32_t generation, int64_t now_ms)
{
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 0, &g);
    if (err)
        return err;
    if (!g)
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    if ((err = lr_gci_validate_member(g, member_id, instance_id)))
        return err;
    if (generation != g->generation)
        return LOGREP_ERR_ILLEGAL_GENERATION;
    gc_member *m = lr_gci_member(g, member_id);
    switch (g->state) {
    case LR_GC_EMPTY:
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    case LR_GC_PREPARING_REBALANCE:
        m->hb_deadline = now_ms + m->session_timeout;
        return LOGREP_ERR_REBALANCE_IN_PROGRESS;
    default:
        m->hb_deadline = now_ms + m->session_timeout;
        return 0;
    }
}

int lr_gc_leave(lr_gc *gc, const char *group_id, const lr_gc_leave_member *ms, size_t n,
                int16_t *errors, int64_t now_ms)
{
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 0, &g);
    if (err)
        return err;
    if (n && (!ms || !errors))
        return LOGREP_ERR__INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        const lr_gc_leave_member *l = &ms[i];
        gc_member *m = NULL;
        int e = 0, pi = -1;
        if (!g) {
            e = LOGREP_ERR_UNKNOWN_MEMBER_ID;
        } else if (l->instance_id) {
            m = lr_gci_static_member(g, l->instance_id);
            if (!m)
                e = LOGREP_ERR_UNKNOWN_MEMBER_ID;
            else if (l->member_id && l->member_id[0] && strcmp(l->member_id, m->id) != 0)
                e = LOGREP_ERR_FENCED_INSTANCE_ID;
        } else if ((pi = lr_gci_pending_index(g, l->member_id)) < 0 &&
                   !(m = lr_gci_member(g, l->member_id))) {
            e = LOGREP_ERR_UNKNOWN_MEMBER_ID;
        }
        errors[i] = (int16_t)e;
        if (e)
            continue;
        if (pi >= 0) {
            lr_gci_pending_del(gc, g, (size_t)pi);
            lr_gci_maybe_complete_join(gc, g, now_ms);
        } else {
            lr_gci_remove_member(gc, g, m, LOGREP_ERR_UNKNOWN_MEMBER_ID, now_ms);
        }
    }
    return 0;
}
