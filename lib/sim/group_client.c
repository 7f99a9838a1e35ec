/* Simulated consumer group members speaking the classic group protocol
 * as Kafka's consumer does: FindCoordinator, JoinGroup (with the
 * MEMBER_ID_REQUIRED round trip of v4+), SyncGroup (the leader assigns the
 * topic's partitions, range or round robin), Heartbeat, OffsetFetch at
 * assignment, Fetch from the partitions' leaders (client.c), OffsetCommit
 * of what was consumed, LeaveGroup. One request at a time, each on its own
 * connection, like the other simulated clients. Versions are drawn per
 * member, so every version of each API meets the coordinator.
 *
 * Coordinator errors are handled as Kafka's consumer does: NOT_COORDINATOR
 * and COORDINATOR_NOT_AVAILABLE (and a lost connection) rediscover the
 * coordinator; COORDINATOR_LOAD_IN_PROGRESS retries; REBALANCE_IN_PROGRESS
 * and ILLEGAL_GENERATION rejoin; UNKNOWN_MEMBER_ID rejoins as a new member.
 * Errors no correct coordinator gives these requests fail the run (G0).
 *
 * This file drives a member: its timer and next request, the dispatch of
 * its answers, requests lost, creation, the settled check of the heal and
 * the public calls. The rest (group_int.h): group_rebalance.c (membership
 * and rebalance), group_consume.c (consuming and committing), group_wire.c
 * (the requests and the consumer protocol's bytes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fields.h"
#include "sim/group_int.h"

/* ------------------------------------------------------------ driving */

void lr_sim_gm_frame(logrep_sim *s, lr_sim_actor *a, uint64_t end, const uint8_t *data, size_t len,
                     int32_t served_epoch)
{
    if (end != a->end || a->state == AS_IDLE || a->state == AS_DONE)
        return;
    int api = a->api;
    int16_t v = a->state == AS_FETCH ? 11 : a->state == AS_META ? 9 : a->ver;
    if (logrep_msg_decode_response(s->rmsg, api, v, data, len) != LOGREP_OK) {
        lr_sim_fail(s, "harness: client %d cannot decode a %s v%d response: %s", a->idx,
                    logrep_proto_api_name(api), v, logrep_msg_errmsg(s->rmsg));
        return;
    }
    logrep_struct *root = logrep_msg_root(s->rmsg);
    a->served_epoch = served_epoch;
    int state = a->state;
    lr_sim_client_finish(s, a);
    if (state == AS_FETCH) {
        lr_sim_gm_on_fetch(s, a, root);
        return;
    }
    if (state == AS_META) {
        lr_sim_gm_on_metadata(s, a, root);
        return;
    }
    switch (api) {
    case LOGREP_API_FIND_COORDINATOR: lr_sim_gm_on_find(s, a, root); break;
    case LOGREP_API_JOIN_GROUP: lr_sim_gm_on_join(s, a, root); break;
    case LOGREP_API_SYNC_GROUP: lr_sim_gm_on_sync(s, a, root); break;
    case LOGREP_API_OFFSET_FETCH: lr_sim_gm_on_ofetch(s, a, root); break;
    case LOGREP_API_HEARTBEAT: lr_sim_gm_on_heartbeat(s, a, root); break;
    case LOGREP_API_OFFSET_COMMIT: lr_sim_gm_on_commit(s, a, root); break;
    case LOGREP_API_LEAVE_GROUP: {
        int e = (int)lr_f_int(root, LR_FN_ErrorCode);
        logrep_struct *m = lr_f_elem(root, LR_FN_Members, 0);
        if (!e && m)
            e = (int)lr_f_int(m, LR_FN_ErrorCode);
        lr_sim_trace(s, "client %d: %s LeaveGroup v%d -> %s", a->idx, lr_sim_gm_group(a), a->ver,
                     e ? logrep_err_name((logrep_err)e) : "NONE");
        if (e && !lr_sim_gm_coordinator_error(e) && e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS &&
            e != LOGREP_ERR_UNKNOWN_MEMBER_ID) {
            lr_sim_gm_unexpected(s, a, "LeaveGroup", e);
            return;
        }
        lr_sim_gm_gone(s, a, "left");
        break;
    }
    default:
        break;
    }
}

/* The request in flight got no answer (reset, timeout). */
static void lost(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    int state = a->state, api = a->api;
    lr_sim_client_finish(s, a);
    if (state == AS_FETCH || state == AS_META) {
        if (state == AS_FETCH)
            g->leader_of[a->partition] = -1;
        lr_sim_client_wake(s, a, s->now + 50);
        return;
    }
    /* A commit without an answer stays indeterminate for the checker. */
    if (api == LOGREP_API_OFFSET_COMMIT)
        for (int32_t p = 0; p < LR_SIM_MAXP; p++)
            g->commit_off[p] = -1;
    if (api == LOGREP_API_LEAVE_GROUP) {
        lr_sim_gm_gone(s, a, "left (no answer)");
        return;
    }
    if (api != LOGREP_API_FIND_COORDINATOR)
        lr_sim_gm_lose_coordinator(s, a, "no answer");
    if (api == LOGREP_API_SYNC_GROUP)
        lr_sim_gm_rejoin(s, a, "SyncGroup unanswered", 0);
    lr_sim_client_wake(s, a, s->now + 50);
}

void lr_sim_gm_closed(logrep_sim *s, lr_sim_actor *a, uint64_t end)
{
    if (end != a->end || a->state == AS_IDLE || a->state == AS_DONE)
        return;
    lr_sim_trace(s, "client %d: connection lost", a->idx);
    a->end = 0;
    lost(s, a);
}

void lr_sim_gm_timer(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    if (a->state == AS_DONE || g->phase == GM_GONE)
        return;
    if (s->now >= g->die_at) {
        /* Dies: no LeaveGroup, no more heartbeats; the session expires. */
        lr_sim_gm_gone(s, a, "dies");
        return;
    }
    if (a->state != AS_IDLE) {
        if (s->now >= a->deadline) {
            lr_sim_trace(s, "client %d: %s request timed out", a->idx, lr_sim_gm_group(a));
            lost(s, a);
        }
        return;
    }
    if (s->now < a->next_at)
        return;
    if (a->stopping && g->leave_at == INT64_MAX)
        g->leave_at = s->now;
    if (s->now >= g->leave_at && !g->leaving && !g->probe) {
        lr_sim_trace(s, "client %d: %s member %s leaves", a->idx, lr_sim_gm_group(a), g->member_id);
        if (!g->member_id[0] || g->phase != GM_STABLE) {
            lr_sim_gm_gone(s, a, "gone before it joined");
            return;
        }
        g->leaving = 1;
    }
    int r;
    if (g->coord < 0 || !logrep_sim_is_up(s, g->coord))
        r = lr_sim_gm_send_find(s, a);
    else if (g->leaving && (g->leaving == 2 || g->phase != GM_STABLE))
        r = lr_sim_gm_send_leave(s, a); /* a rejoin is not worth it any more */
    else if (g->probe)
        r = lr_sim_gm_send_ofetch(s, a);
    else if (g->phase == GM_JOIN)
        r = lr_sim_gm_send_join(s, a);
    else if (g->phase == GM_SYNC)
        r = lr_sim_gm_send_sync(s, a);
    else if (g->phase == GM_OFETCH)
        r = lr_sim_gm_send_ofetch(s, a);
    else
        r = lr_sim_gm_stable_step(s, a);
    if (r != 0) {
        a->state = AS_IDLE;
        g->coord = -1;
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
    }
}

/* ------------------------------------------------------------ creation */

static int16_t draw(logrep_sim *s, int lo, int hi)
{
    return (int16_t)(lo + (int)lr_sim_rand(s, (uint64_t)(hi - lo + 1)));
}

lr_sim_actor *lr_sim_gm_new(logrep_sim *s, int32_t group, int64_t interval, int64_t start_at)
{
    if (group < 0 || group >= LR_SIM_MAXG || interval < 1)
        return NULL;
    if (lr_sim_gck_init(s) != 0)
        return NULL;
    lr_sim_gm *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    lr_sim_actor *a = lr_sim_actor_new(s, ACT_GROUP);
    if (!a) {
        free(g);
        return NULL;
    }
    a->gm = g;
    a->partition = -1;
    g->group = group;
    snprintf(g->group_id, sizeof g->group_id, "g%d", group);
    g->generation = -1;
    g->phase = GM_JOIN;
    g->coord = -1;
    g->v_find = draw(s, 0, 6);
    g->v_join = lr_sim_rand(s, 4) ? draw(s, 4, 9) : draw(s, 1, 3);
    g->v_sync = draw(s, 0, 5);
    g->v_hb = draw(s, 0, 4);
    g->v_leave = draw(s, 0, 5);
    g->v_commit = draw(s, 1, 9);
    g->v_ofetch = draw(s, 1, 9);
    g->require_stable = (int)lr_sim_rand(s, 2);
    g->roundrobin_first = (int)lr_sim_rand(s, 3) == 0;
    g->session_ms = draw(s, 15, 30) * 100;
    g->rebalance_ms = draw(s, 20, 40) * 100;
    g->hb_ms = g->session_ms / 3;
    g->commit_ms = draw(s, 2, 8) * 100;
    g->interval = (int32_t)interval;
    g->die_at = g->leave_at = INT64_MAX;
    for (int32_t p = 0; p < LR_SIM_MAXP; p++) {
        g->committed[p] = -1;
        g->commit_off[p] = -1;
        g->leader_of[p] = -1;
        g->epoch_of[p] = -1;
    }
    lr_sim_trace(s, "client %d: member of %s from %lld ms (versions find %d join %d sync %d hb %d "
                    "leave %d commit %d fetch %d%s), session %d ms",
                 a->idx, g->group_id, (long long)start_at, g->v_find, g->v_join, g->v_sync, g->v_hb,
                 g->v_leave, g->v_commit, g->v_ofetch, g->require_stable ? " stable" : "",
                 g->session_ms);
    lr_sim_client_wake(s, a, start_at);
    return a;
}

void lr_sim_gm_free_all(logrep_sim *s)
{
    for (size_t i = 0; i < s->nactors; i++) {
        free(s->actors[i].gm);
        s->actors[i].gm = NULL;
    }
    lr_sim_gck_free(s);
}

/* ------------------------------------------------------------ settled */

int lr_sim_gm_settled(logrep_sim *s, char *why, size_t n)
{
    for (int32_t gi = 0; gi < LR_SIM_MAXG; gi++) {
        int32_t owner[LR_SIM_MAXP], gen = -1, live = 0;
        for (int32_t p = 0; p < LR_SIM_MAXP; p++)
            owner[p] = -1;
        for (size_t i = 0; i < s->nactors; i++) {
            const lr_sim_actor *a = &s->actors[i];
            const lr_sim_gm *g = a->gm;
            if (a->kind != ACT_GROUP || g->probe || g->group != gi || g->phase == GM_GONE)
                continue;
            live++;
            if (g->phase != GM_STABLE || g->rejoin || g->leaving) {
                snprintf(why, n, "g%d: client %d is not stable (phase %d)", gi, a->idx, g->phase);
                return 0;
            }
            if (gen >= 0 && g->generation != gen) {
                snprintf(why, n, "g%d: members in generations %d and %d", gi, gen, g->generation);
                return 0;
            }
            gen = g->generation;
            for (int32_t k = 0; k < g->n_assigned; k++) {
                int32_t p = g->assigned[k];
                if (owner[p] >= 0) {
                    snprintf(why, n, "g%d: partition %d owned by clients %d and %d", gi, p, owner[p],
                             a->idx);
                    return 0;
                }
                owner[p] = a->idx;
            }
        }
        for (int32_t p = 0; live && p < s->conf.partitions; p++)
            if (owner[p] < 0) {
                snprintf(why, n, "g%d: partition %d has no owner in generation %d", gi, p, gen);
                return 0;
            }
    }
    return 1;
}

/* ------------------------------------------------------------ public */

LOGREP_API int32_t logrep_sim_group_member(logrep_sim *s, int32_t group, int64_t interval_ms)
{
    if (!s)
        return -1;
    lr_sim_actor *a = lr_sim_gm_new(s, group, interval_ms,
                                    s->now + 1 + (int64_t)lr_sim_rand(s, (uint64_t)interval_ms));
    return a ? a->idx : -1;
}

LOGREP_API void logrep_sim_group_member_kill(logrep_sim *s, int32_t actor)
{
    if (!s || actor < 0 || (size_t)actor >= s->nactors || s->actors[actor].kind != ACT_GROUP)
        return;
    s->actors[actor].gm->die_at = s->now;
    lr_sim_gm_timer(s, &s->actors[actor]);
}

LOGREP_API logrep_err logrep_sim_group_member_view(const logrep_sim *s, int32_t actor,
                                                   logrep_sim_member *out)
{
    if (!s || !out || actor < 0 || (size_t)actor >= s->nactors || s->actors[actor].kind != ACT_GROUP)
        return LOGREP_ERR__INVALID_ARG;
    const lr_sim_gm *g = s->actors[actor].gm;
    memset(out, 0, sizeof *out);
    out->stable = g->phase == GM_STABLE;
    out->gone = g->phase == GM_GONE;
    out->coordinator = g->coord;
    out->generation = g->generation;
    out->n_assigned = g->n_assigned;
    for (int32_t i = 0; i < g->n_assigned && i < 8; i++) {
        out->assigned[i] = g->assigned[i];
        out->position[i] = g->pos[g->assigned[i]];
        out->committed[i] = g->committed[g->assigned[i]];
    }
    return LOGREP_OK;
}
