/* Consumer group members (group_client.c): consuming and committing. A
 * stable member's next request (heartbeat, commit, fetch, metadata), the
 * answers of Fetch, Metadata, OffsetFetch and OffsetCommit, and the
 * OffsetFetch probe of logrep_sim_offset_fetch. */
#include <stdint.h>
#include <stdio.h>

#include "proto/fields.h"
#include "sim/group_int.h"

/* Partitions whose position passed the acknowledged commit. */
static int32_t to_commit(const lr_sim_gm *g, int32_t *parts)
{
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_assigned; i++) {
        int32_t p = g->assigned[i];
        if (g->pos[p] > g->committed[p])
            parts[n++] = p;
    }
    return n;
}

/* ------------------------------------------------------------ answers */

/* The offsets of one answer: parts of topics (v0-7) or of the group (v8+). */
void lr_sim_gm_on_ofetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    logrep_struct *top = root;
    int e = 0;
    if (a->ver >= 8) {
        top = lr_f_elem(root, LR_FN_Groups, 0);
        e = top ? (int)lr_f_int(top, LR_FN_ErrorCode) : LOGREP_ERR_UNKNOWN_SERVER_ERROR;
    } else if (a->ver >= 2) {
        e = (int)lr_f_int(root, LR_FN_ErrorCode);
    }
    logrep_struct *t = top ? lr_f_elem(top, LR_FN_Topics, 0) : NULL;
    int32_t np = t ? lr_f_count(t, LR_FN_Partitions) : 0;
    /* v0/v1 carry the group's error in every partition. */
    for (int32_t i = 0; !e && i < np; i++) {
        int pe = (int)lr_f_int(lr_f_elem(t, LR_FN_Partitions, i), LR_FN_ErrorCode);
        if (pe)
            e = pe;
    }
    int32_t want = g->probe ? 1 : g->n_assigned;
    if (!e && np != want) {
        lr_sim_fail(s, "G0: OffsetFetch v%d of %s answered %d partitions for %d", a->ver,
                    lr_sim_gm_group(a), np, want);
        return;
    }
    if (e) {
        lr_sim_trace(s, "client %d: %s OffsetFetch v%d -> %s", a->idx, lr_sim_gm_group(a), a->ver,
                     logrep_err_name((logrep_err)e));
        if (lr_sim_gm_coordinator_error(e))
            lr_sim_gm_lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        else if (e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS && e != LOGREP_ERR_UNSTABLE_OFFSET_COMMIT) {
            lr_sim_gm_unexpected(s, a, "OffsetFetch", e);
            return;
        }
        lr_sim_client_wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    }
    char line[160];
    int k = snprintf(line, sizeof line, "client %d: %s OffsetFetch v%d ->", a->idx,
                     lr_sim_gm_group(a), a->ver);
    for (int32_t i = 0; i < np; i++) {
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
        int32_t part = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
        int64_t off = lr_f_int(p, LR_FN_CommittedOffset);
        int ok = 0;
        for (int32_t j = 0; j < want; j++)
            ok |= part == (g->probe ? g->probe_part : g->assigned[j]);
        if (!ok) {
            lr_sim_fail(s, "G0: OffsetFetch of %s answered partition %d, not asked for",
                        lr_sim_gm_group(a), part);
            return;
        }
        if (k < (int)sizeof line)
            k += snprintf(line + k, sizeof line - (size_t)k, " p%d@%lld", part, (long long)off);
        lr_sim_gck_offset_fetched(s, g->group, part, off, g->sent_at, a->idx, g->sent_to);
        if (g->probe) {
            g->probe_offset = off;
            continue;
        }
        g->committed[part] = off;
        g->pos[part] = off >= 0 ? off : 0; /* auto.offset.reset=earliest */
        g->leader_of[part] = g->leader_of[part] >= 0 ? g->leader_of[part] : -1;
    }
    lr_sim_trace(s, "%s", line);
    s->stats.group_fetches++;
    if (g->probe) {
        lr_sim_gm_gone(s, a, "probe done");
        return;
    }
    g->phase = GM_STABLE;
    lr_sim_client_wake(s, a, s->now + 1);
}

void lr_sim_gm_on_commit(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    logrep_struct *t = lr_f_elem(root, LR_FN_Topics, 0);
    int32_t np = t ? lr_f_count(t, LR_FN_Partitions) : 0;
    int err = 0, acked = 0;
    for (int32_t i = 0; i < np; i++) {
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
        int32_t part = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
        int e = (int)lr_f_int(p, LR_FN_ErrorCode);
        if (part < 0 || part >= LR_SIM_MAXP || g->commit_off[part] < 0) {
            lr_sim_fail(s, "G0: OffsetCommit of %s answered partition %d, not committed",
                        lr_sim_gm_group(a), part);
            return;
        }
        if (e == 0) {
            g->committed[part] = g->commit_off[part];
            lr_sim_gck_commit_acked(s, g->group, part, g->commit_h[part]);
            acked++;
        } else if (!err) {
            err = e;
        }
        g->commit_off[part] = -1;
    }
    lr_sim_trace(s, "client %d: %s commit -> %s (%d of %d partitions)", a->idx, lr_sim_gm_group(a),
                 err ? logrep_err_name((logrep_err)err) : "NONE", acked, np);
    s->stats.group_commits += acked;
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        g->commit_off[p] = -1; /* partitions missing from the answer: not acknowledged */
    g->next_commit = s->now + g->commit_ms;
    switch (err) {
    case 0:
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        lr_sim_gm_rejoin(s, a, "OffsetCommit: UNKNOWN_MEMBER_ID", 1);
        break;
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
    case LOGREP_ERR_ILLEGAL_GENERATION:
        lr_sim_gm_rejoin(s, a, logrep_err_name((logrep_err)err), 0);
        break;
    case LOGREP_ERR_GROUP_ID_NOT_FOUND: /* v9+: the group is gone (lost) */
        lr_sim_gm_rejoin(s, a, logrep_err_name((logrep_err)err), 1);
        break;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lr_sim_gm_lose_coordinator(s, a, logrep_err_name((logrep_err)err));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REQUEST_TIMED_OUT:
    /* Retriable for Kafka's consumer: a node checks the topic against its
     * metadata before the group (a restarted node may not have it yet). */
    case LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION:
        g->next_commit = s->now + GM_BACKOFF_MS;
        break;
    default:
        lr_sim_gm_unexpected(s, a, "OffsetCommit", err);
        return;
    }
    if (g->leaving && g->phase == GM_STABLE && err)
        g->leaving = 2; /* leave without the commit */
    lr_sim_client_wake(s, a, s->now + 1);
}

void lr_sim_gm_on_metadata(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    logrep_struct *t = lr_f_elem(root, LR_FN_Topics, 0);
    int32_t np = t && lr_f_int(t, LR_FN_ErrorCode) == 0 ? lr_f_count(t, LR_FN_Partitions) : 0;
    for (int32_t i = 0; i < np; i++) {
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
        int32_t part = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
        int32_t epoch = (int32_t)lr_f_int(p, LR_FN_LeaderEpoch);
        if (part < 0 || part >= LR_SIM_MAXP || epoch < g->epoch_of[part])
            continue; /* never back in epochs (KIP-320) */
        g->leader_of[part] = lr_f_int(p, LR_FN_ErrorCode) == 0 ? (int32_t)lr_f_int(p, LR_FN_LeaderId) : -1;
        g->epoch_of[part] = epoch;
    }
    /* No leader yet for the partition wanted: back off. */
    int64_t wait = a->partition >= 0 && g->leader_of[a->partition] < 0 ? GM_BACKOFF_MS : 1;
    lr_sim_client_wake(s, a, s->now + wait);
}

void lr_sim_gm_on_fetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int32_t p = a->partition;
    int64_t from = a->position;
    lr_sim_client_on_fetch(s, a, root);
    if (a->position > from)
        lr_sim_gck_consumed(s, g->group, p, from, a->position);
    g->pos[p] = a->position;
    g->leader_of[p] = a->leader;
    lr_sim_client_wake(s, a, s->now + g->interval);
}

/* ------------------------------------------------------------ driving */

/* The next request of a member in the stable phase. */
int lr_sim_gm_stable_step(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    int32_t parts[LR_SIM_MAXP];
    int32_t nc = to_commit(g, parts);
    if ((g->rejoin || g->leaving == 1) && nc == 0) {
        if (g->rejoin) {
            lr_sim_gm_rejoin(s, a, "after REBALANCE_IN_PROGRESS", 0);
            return lr_sim_gm_send_join(s, a);
        }
        g->leaving = 2;
    }
    if (g->leaving == 2)
        return lr_sim_gm_send_leave(s, a);
    if (s->now >= g->next_hb && !g->rejoin)
        return lr_sim_gm_send_heartbeat(s, a);
    if (nc && (s->now >= g->next_commit || g->rejoin || g->leaving))
        return lr_sim_gm_send_commit(s, a, parts, nc);
    if (!g->n_assigned) {
        lr_sim_client_wake(s, a, g->next_hb);
        return 0;
    }
    int32_t p = g->assigned[g->rr++ % g->n_assigned];
    if (g->leader_of[p] < 0 || !logrep_sim_is_up(s, g->leader_of[p])) {
        a->partition = p;
        a->ver = 9;
        return lr_sim_client_metadata(s, a);
    }
    a->partition = p;
    a->position = g->pos[p];
    a->leader = g->leader_of[p];
    a->leader_epoch = g->epoch_of[p];
    a->ver = 11;
    return lr_sim_client_fetch(s, a, g->leader_of[p]);
}

/* ------------------------------------------------------------ probe */

LOGREP_API logrep_err logrep_sim_offset_fetch(logrep_sim *s, int32_t group, int32_t part,
                                              int64_t max_ms, int64_t *offset)
{
    if (!s || part < 0 || part >= s->conf.partitions)
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_actor *a = lr_sim_gm_new(s, group, 10, s->now + 1);
    if (!a)
        return LOGREP_ERR__NOMEM;
    int32_t idx = a->idx;
    a->gm->probe = 1;
    a->gm->probe_part = part;
    a->gm->v_ofetch = 8; /* fixed: tests compare runs */
    for (int64_t t = 0; t < max_ms; t += 5) {
        if (s->actors[idx].gm->phase == GM_GONE)
            break;
        if (logrep_sim_run(s, 5) != LOGREP_OK)
            return LOGREP_ERR__CORRUPT;
    }
    lr_sim_gm *g = s->actors[idx].gm;
    if (g->phase != GM_GONE) {
        lr_sim_gm_gone(s, &s->actors[idx], "probe timed out");
        return LOGREP_ERR__TIMED_OUT;
    }
    if (offset)
        *offset = g->probe_offset;
    return LOGREP_OK;
}
