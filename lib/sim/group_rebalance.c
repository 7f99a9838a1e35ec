/* Consumer group members (group_client.c): membership and rebalance. The
 * member's state changes (rejoin, coordinator lost, gone) and the answers
 * of FindCoordinator, JoinGroup, SyncGroup and Heartbeat. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "proto/fields.h"
#include "sim/group_int.h"

/* ------------------------------------------------------------ state */

static void drop_assignment(lr_sim_gm *g)
{
    g->n_assigned = 0;
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        g->commit_off[p] = -1;
}

/* Back to JoinGroup: the assignment is revoked (eager protocol). */
void lr_sim_gm_rejoin(logrep_sim *s, lr_sim_actor *a, const char *why, int reset_id)
{
    lr_sim_gm *g = a->gm;
    lr_sim_trace(s, "client %d: %s rejoins (%s)%s", a->idx, lr_sim_gm_group(a), why,
                 reset_id ? " as a new member" : "");
    if (reset_id)
        g->member_id[0] = 0;
    g->phase = GM_JOIN;
    g->generation = -1;
    g->rejoin = 0;
    drop_assignment(g);
}

void lr_sim_gm_lose_coordinator(logrep_sim *s, lr_sim_actor *a, const char *why)
{
    if (a->gm->coord >= 0)
        lr_sim_trace(s, "client %d: %s coordinator %d lost (%s)", a->idx, lr_sim_gm_group(a),
                     a->gm->coord, why);
    a->gm->coord = -1;
}

int lr_sim_gm_coordinator_error(int e)
{
    return e == LOGREP_ERR_NOT_COORDINATOR || e == LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
}

/* An error no correct coordinator answers this member's requests with. */
void lr_sim_gm_unexpected(logrep_sim *s, lr_sim_actor *a, const char *api, int e)
{
    lr_sim_fail(s, "G0: %s of client %d (%s) answered %s", api, a->idx, lr_sim_gm_group(a),
                logrep_err_name((logrep_err)e));
}

void lr_sim_gm_gone(logrep_sim *s, lr_sim_actor *a, const char *why)
{
    lr_sim_trace(s, "client %d: %s member %s %s", a->idx, lr_sim_gm_group(a),
                 a->gm->member_id[0] ? a->gm->member_id : "(none)", why);
    if (a->end)
        lr_sim_close_end(s, a->end, 0);
    a->end = 0;
    a->gm->phase = GM_GONE;
    a->state = AS_DONE;
}

/* ------------------------------------------------------------ answers */

static int str_of(const logrep_struct *st, lr_fname f, char *out, size_t cap)
{
    const char *p = NULL;
    int32_t len = 0;
    out[0] = 0;
    if (!st || lr_f_str(st, f, &p, &len) != 0 || len < 0 || !p)
        return 0;
    if ((size_t)len >= cap)
        return -1;
    memcpy(out, p, (size_t)len);
    out[len] = 0;
    return 0;
}

void lr_sim_gm_on_find(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e;
    int32_t node;
    if (a->ver < 4) {
        e = (int)lr_f_int(root, LR_FN_ErrorCode);
        node = (int32_t)lr_f_int(root, LR_FN_NodeId);
    } else {
        logrep_struct *c = lr_f_elem(root, LR_FN_Coordinators, 0);
        e = c ? (int)lr_f_int(c, LR_FN_ErrorCode) : LOGREP_ERR_UNKNOWN_SERVER_ERROR;
        node = c ? (int32_t)lr_f_int(c, LR_FN_NodeId) : -1;
    }
    lr_sim_trace(s, "client %d: %s FindCoordinator v%d -> %s node %d", a->idx, lr_sim_gm_group(a),
                 a->ver, e ? logrep_err_name((logrep_err)e) : "NONE", node);
    if (e == 0 && (node < 1 || node > s->nb)) {
        lr_sim_fail(s, "G0: FindCoordinator of %s answered node %d, not a broker",
                    lr_sim_gm_group(a), node);
        return;
    }
    if (e && !lr_sim_gm_coordinator_error(e) && e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS) {
        lr_sim_gm_unexpected(s, a, "FindCoordinator", e);
        return;
    }
    if (e == 0)
        g->coord = node;
    lr_sim_client_wake(s, a, s->now + (e ? GM_BACKOFF_MS : 1));
}

void lr_sim_gm_on_join(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e = (int)lr_f_int(root, LR_FN_ErrorCode);
    char mid[LR_SIM_GM_IDLEN], leader[LR_SIM_GM_IDLEN];
    if (str_of(root, LR_FN_MemberId, mid, sizeof mid) || str_of(root, LR_FN_Leader, leader, sizeof leader)) {
        lr_sim_fail(s, "G0: JoinGroup of %s answered a member id over %d bytes", lr_sim_gm_group(a),
                    LR_SIM_GM_IDLEN - 1);
        return;
    }
    int64_t next = s->now + 1;
    switch (e) {
    case 0:
        break;
    case LOGREP_ERR_MEMBER_ID_REQUIRED:
        if (g->v_join < 4 || !mid[0]) {
            lr_sim_gm_unexpected(s, a, "JoinGroup", e);
            return;
        }
        lr_sim_trace(s, "client %d: %s JoinGroup -> MEMBER_ID_REQUIRED '%s'", a->idx,
                     lr_sim_gm_group(a), mid);
        memcpy(g->member_id, mid, sizeof mid);
        lr_sim_client_wake(s, a, next);
        return;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        lr_sim_gm_rejoin(s, a, "UNKNOWN_MEMBER_ID", 1);
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lr_sim_gm_lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
        lr_sim_trace(s, "client %d: %s JoinGroup -> %s", a->idx, lr_sim_gm_group(a),
                     logrep_err_name((logrep_err)e));
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    default:
        lr_sim_gm_unexpected(s, a, "JoinGroup", e);
        return;
    }
    memcpy(g->member_id, mid, sizeof mid);
    g->generation = (int32_t)lr_f_int(root, LR_FN_GenerationId);
    g->is_leader = !strcmp(leader, mid);
    char proto[32];
    if (str_of(root, LR_FN_ProtocolName, proto, sizeof proto) || (strcmp(proto, "range") && strcmp(proto, "roundrobin"))) {
        lr_sim_fail(s, "G0: JoinGroup of %s selected protocol '%s', not one every member offered",
                    lr_sim_gm_group(a), proto);
        return;
    }
    memcpy(g->protocol, proto, sizeof g->protocol);
    g->n_members = 0;
    int32_t nm = lr_f_count(root, LR_FN_Members);
    if (g->is_leader) {
        if (nm < 1 || nm > LR_SIM_GM_MAXMEM) {
            lr_sim_fail(s, "G0: JoinGroup of %s gave its leader %d members", lr_sim_gm_group(a), nm);
            return;
        }
        int self = 0;
        for (int32_t i = 0; i < nm; i++) {
            logrep_struct *m = lr_f_elem(root, LR_FN_Members, i);
            if (str_of(m, LR_FN_MemberId, g->members[i], LR_SIM_GM_IDLEN) || !g->members[i][0]) {
                lr_sim_fail(s, "G0: JoinGroup of %s: member %d has a bad id", lr_sim_gm_group(a), i);
                return;
            }
            self |= !strcmp(g->members[i], mid);
        }
        if (!self) {
            lr_sim_fail(s, "G0: JoinGroup of %s: the leader %s is not among the members",
                        lr_sim_gm_group(a), mid);
            return;
        }
        g->n_members = nm;
    } else if (nm != 0) {
        lr_sim_fail(s, "G0: JoinGroup of %s gave follower %s the member list", lr_sim_gm_group(a), mid);
        return;
    }
    lr_sim_trace(s, "client %d: %s joined generation %d as %s%s (%s, %d members)", a->idx,
                 lr_sim_gm_group(a), g->generation, mid, g->is_leader ? ", leader" : "",
                 g->protocol, nm);
    g->phase = GM_SYNC;
    lr_sim_client_wake(s, a, next);
}

void lr_sim_gm_on_sync(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e = (int)lr_f_int(root, LR_FN_ErrorCode);
    switch (e) {
    case 0:
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        lr_sim_gm_rejoin(s, a, "SyncGroup: UNKNOWN_MEMBER_ID", 1);
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lr_sim_gm_lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
    case LOGREP_ERR_ILLEGAL_GENERATION:
        lr_sim_gm_rejoin(s, a, logrep_err_name((logrep_err)e), 0);
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    default:
        lr_sim_gm_unexpected(s, a, "SyncGroup", e);
        return;
    }
    const uint8_t *b = NULL;
    int32_t bl = 0;
    logrep_struct_bytes(root, lr_fid(root, LR_FN_Assignment), &b, &bl);
    int32_t parts[LR_SIM_MAXP];
    int32_t n = lr_sim_gm_parse_assignment(b, bl, parts);
    if (n < 0) {
        lr_sim_fail(s, "G0: SyncGroup of %s answered a malformed assignment (%d bytes)",
                    lr_sim_gm_group(a), bl);
        return;
    }
    for (int32_t i = 0; i < n; i++)
        if (parts[i] < 0 || parts[i] >= s->conf.partitions) {
            lr_sim_fail(s, "G0: SyncGroup of %s assigned partition %d of %d", lr_sim_gm_group(a),
                        parts[i], s->conf.partitions);
            return;
        }
    char line[120];
    int k = snprintf(line, sizeof line, "client %d: %s generation %d assigns", a->idx,
                     lr_sim_gm_group(a), g->generation);
    for (int32_t i = 0; i < n && k < (int)sizeof line; i++)
        k += snprintf(line + k, sizeof line - (size_t)k, " p%d", parts[i]);
    lr_sim_trace(s, "%s%s", line, n ? "" : " nothing");
    lr_sim_gck_assigned(s, g->group, g->generation, g->member_id, parts, n);
    s->stats.group_syncs++;
    drop_assignment(g);
    memcpy(g->assigned, parts, (size_t)n * sizeof *parts);
    g->n_assigned = n;
    g->rr = 0;
    g->phase = n ? GM_OFETCH : GM_STABLE;
    g->next_hb = s->now + g->hb_ms;
    g->next_commit = s->now + g->commit_ms;
    lr_sim_client_wake(s, a, s->now + 1);
}

void lr_sim_gm_on_heartbeat(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e = (int)lr_f_int(root, LR_FN_ErrorCode);
    switch (e) {
    case 0:
        g->next_hb = s->now + g->hb_ms;
        break;
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
        /* Commit what was consumed (the consumer does before it gives
         * its partitions up), then rejoin. */
        lr_sim_trace(s, "client %d: %s Heartbeat -> REBALANCE_IN_PROGRESS", a->idx, lr_sim_gm_group(a));
        g->rejoin = 1;
        g->next_commit = s->now;
        g->next_hb = s->now + g->hb_ms;
        break;
    case LOGREP_ERR_ILLEGAL_GENERATION:
        lr_sim_gm_rejoin(s, a, "Heartbeat: ILLEGAL_GENERATION", 0);
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        lr_sim_gm_rejoin(s, a, "Heartbeat: UNKNOWN_MEMBER_ID", 1);
        break;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lr_sim_gm_lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        break;
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
        g->next_hb = s->now + GM_BACKOFF_MS;
        break;
    default:
        lr_sim_gm_unexpected(s, a, "Heartbeat", e);
        return;
    }
    lr_sim_client_wake(s, a, s->now + 1);
}
