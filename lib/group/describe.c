/* DescribeGroups, ListGroups and state names (docs/groups.md). */
#include <string.h>
#include <strings.h>

#include "group/grp_int.h"

/* ------------------------------------------------------------------------
 * Observation
 * ---------------------------------------------------------------------- */

static const char *const STATES[] = {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
                                     "Dead"};

const char *lr_gc_state_name(int state)
{
    return state >= 0 && state <= LR_GC_DEAD ? STATES[state] : "Unknown";
}

int lr_gc_state_parse(const char *name)
{
    for (int i = 0; i <= LR_GC_DEAD; i++)
        if (name && strcasecmp(name, STATES[i]) == 0)
            return i;
    return -1;
}

static void info_of(lr_gc *gc, const gc_group *g, lr_gc_group_info *out, int with_members)
{
    out->group_id = g->id;
    out->state = g->state;
    out->protocol_type = g->protocol_type ? g->protocol_type : "";
    out->protocol = g->state == LR_GC_STABLE || g->state == LR_GC_COMPLETING_REBALANCE
                        ? (g->protocol ? g->protocol : "")
                        : "";
    out->leader = g->leader ? g->leader : "";
    out->generation = g->generation;
    out->members = NULL;
    out->n_members = 0;
    if (!with_members)
        return;
    for (size_t i = 0; i < g->n; i++) {
        const gc_member *m = g->m[i];
        const gc_proto *pr = lr_gci_proto(m, g->protocol);
        /* Kafka describes metadata and assignment only when Stable. */
        int stable = g->state == LR_GC_STABLE;
        gc->mi[i] = (lr_gc_member_info){m->id,
                                        m->instance_id,
                                        m->client_id ? m->client_id : "",
                                        m->client_host ? m->client_host : "",
                                        m->session_timeout,
                                        m->rebalance_timeout,
                                        stable && pr ? pr->md : NULL,
                                        stable && pr ? pr->len : 0,
                                        stable ? m->assignment : NULL,
                                        stable ? m->assignment_len : 0};
    }
    out->members = gc->mi;
    out->n_members = g->n;
}

int lr_gc_describe(lr_gc *gc, const char *group_id, lr_gc_group_fn fn, void *ctx)
{
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 1, &g);
    if (err)
        return err;
    lr_gc_group_info info = {group_id, LR_GC_DEAD, "", "", "", -1, NULL, 0};
    if (g)
        info_of(gc, g, &info, 1);
    fn(ctx, &info);
    return 0;
}

int lr_gc_list(lr_gc *gc, unsigned states_mask, lr_gc_group_fn fn, void *ctx)
{
    int err = 0;
    for (int32_t p = 0; p < gc->np; p++)
        if (gc->pstate[p] == PS_LOADING)
            err = LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    for (size_t i = 0; i < gc->n_all; i++) {
        gc_group *g = gc->all[i];
        if (gc->pstate[g->p] != PS_LOADED || (states_mask && !(states_mask & (1u << g->state))))
            continue;
        lr_gc_group_info info;
        info_of(gc, g, &info, 0);
        fn(ctx, &info);
    }
    return err;
}
