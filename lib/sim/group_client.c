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
 * Errors no correct coordinator gives these requests fail the run (G0). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fields.h"
#include "sim/sim_int.h"

#define GM_TIMEOUT_MS 3000
#define GM_BACKOFF_MS 100

static int32_t owner_of(const lr_sim_actor *a)
{
    return LR_SIM_ACTOR0 + a->idx;
}

static void wake(logrep_sim *s, lr_sim_actor *a, int64_t at)
{
    lr_sim_client_wake(s, a, at);
}

/* ------------------------------------------------------------ encoding */

static void put16(uint8_t **p, int v)
{
    (*p)[0] = (uint8_t)(v >> 8);
    (*p)[1] = (uint8_t)v;
    *p += 2;
}

static void put32(uint8_t **p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int k = 0; k < 4; k++)
        (*p)[k] = (uint8_t)(u >> (24 - 8 * k));
    *p += 4;
}

static int32_t get32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

/* ConsumerProtocolSubscription v0: the topic, no user data. */
static size_t subscription(uint8_t *buf)
{
    uint8_t *p = buf;
    put16(&p, 0);
    put32(&p, 1);
    put16(&p, (int)strlen(LR_SIM_TOPIC));
    memcpy(p, LR_SIM_TOPIC, strlen(LR_SIM_TOPIC));
    p += strlen(LR_SIM_TOPIC);
    put32(&p, -1);
    return (size_t)(p - buf);
}

/* ConsumerProtocolAssignment v0 of parts. */
static size_t assignment(uint8_t *buf, const int32_t *parts, int32_t n)
{
    uint8_t *p = buf;
    put16(&p, 0);
    put32(&p, 1);
    put16(&p, (int)strlen(LR_SIM_TOPIC));
    memcpy(p, LR_SIM_TOPIC, strlen(LR_SIM_TOPIC));
    p += strlen(LR_SIM_TOPIC);
    put32(&p, n);
    for (int32_t i = 0; i < n; i++)
        put32(&p, parts[i]);
    put32(&p, -1);
    return (size_t)(p - buf);
}

/* The partitions of the topic in an assignment; -1 when malformed. */
static int32_t parse_assignment(const uint8_t *b, int32_t len, int32_t *parts)
{
    if (len <= 0)
        return 0; /* the leader gave this member nothing */
    size_t pos = 2, n = (size_t)len;
    if (n < 6)
        return -1;
    int32_t nt = get32(b + pos), got = 0;
    pos += 4;
    for (int32_t t = 0; t < nt; t++) {
        if (pos + 2 > n)
            return -1;
        size_t tl = (size_t)(b[pos] << 8 | b[pos + 1]);
        pos += 2;
        if (pos + tl + 4 > n)
            return -1;
        int ours = tl == strlen(LR_SIM_TOPIC) && !memcmp(b + pos, LR_SIM_TOPIC, tl);
        pos += tl;
        int32_t np = get32(b + pos);
        pos += 4;
        if (np < 0 || pos + (size_t)np * 4 > n)
            return -1;
        for (int32_t i = 0; i < np; i++, pos += 4) {
            if (!ours)
                continue;
            if (got >= LR_SIM_MAXP)
                return -1;
            parts[got++] = get32(b + pos);
        }
    }
    return got;
}

static void set_str(logrep_struct *st, lr_fname f, const char *v)
{
    lr_f_set_str(st, f, v, (int32_t)strlen(v));
}

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

/* ------------------------------------------------------------ state */

static const char *gname(const lr_sim_actor *a)
{
    return a->gm->group_id;
}

static void drop_assignment(lr_sim_gm *g)
{
    g->n_assigned = 0;
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        g->commit_off[p] = -1;
}

/* Back to JoinGroup: the assignment is revoked (eager protocol). */
static void rejoin(logrep_sim *s, lr_sim_actor *a, const char *why, int reset_id)
{
    lr_sim_gm *g = a->gm;
    lr_sim_trace(s, "client %d: %s rejoins (%s)%s", a->idx, gname(a), why,
                 reset_id ? " as a new member" : "");
    if (reset_id)
        g->member_id[0] = 0;
    g->phase = GM_JOIN;
    g->generation = -1;
    g->rejoin = 0;
    drop_assignment(g);
}

static void lose_coordinator(logrep_sim *s, lr_sim_actor *a, const char *why)
{
    if (a->gm->coord >= 0)
        lr_sim_trace(s, "client %d: %s coordinator %d lost (%s)", a->idx, gname(a), a->gm->coord, why);
    a->gm->coord = -1;
}

static int coordinator_error(int e)
{
    return e == LOGREP_ERR_NOT_COORDINATOR || e == LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
}

/* An error no correct coordinator answers this member's requests with. */
static void unexpected(logrep_sim *s, lr_sim_actor *a, const char *api, int e)
{
    lr_sim_fail(s, "G0: %s of client %d (%s) answered %s", api, a->idx, gname(a),
                logrep_err_name((logrep_err)e));
}

static void gone(logrep_sim *s, lr_sim_actor *a, const char *why)
{
    lr_sim_trace(s, "client %d: %s member %s %s", a->idx, gname(a),
                 a->gm->member_id[0] ? a->gm->member_id : "(none)", why);
    if (a->end)
        lr_sim_close_end(s, a->end, 0);
    a->end = 0;
    a->gm->phase = GM_GONE;
    a->state = AS_DONE;
}

/* ------------------------------------------------------------ requests */

static int send_group(logrep_sim *s, lr_sim_actor *a, int32_t to, int64_t timeout)
{
    if (lr_sim_client_send_req(s, a, to, AS_GROUP) != 0)
        return -1;
    a->gm->sent_at = s->now;
    a->gm->sent_to = to;
    if (timeout != GM_TIMEOUT_MS) {
        a->deadline = s->now + timeout;
        lr_sim_push(s, a->deadline, EV_ACTOR, owner_of(a));
    }
    return 0;
}

static void init(logrep_sim *s, lr_sim_actor *a, int api, int16_t v)
{
    a->ver = v;
    char cid[24];
    snprintf(cid, sizeof cid, "sim-%s", gname(a));
    logrep_msg_init_request(s->msg, api, v, ++a->corr, cid);
}

static int send_find(logrep_sim *s, lr_sim_actor *a)
{
    int32_t to = lr_sim_random_up_broker(s);
    if (to < 0)
        return -1;
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_FIND_COORDINATOR, g->v_find);
    logrep_struct *r = logrep_msg_root(s->msg);
    if (g->v_find < 4) {
        set_str(r, LR_FN_Key, g->group_id);
    } else {
        int fk = lr_fid(r, LR_FN_CoordinatorKeys);
        logrep_struct_set_count(r, fk, 1);
        logrep_struct_set_elem_bytes(r, fk, 0, g->group_id, (int32_t)strlen(g->group_id));
    }
    lr_f_set_int(r, LR_FN_KeyType, 0);
    return send_group(s, a, to, GM_TIMEOUT_MS);
}

static int send_join(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_JOIN_GROUP, g->v_join);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    lr_f_set_int(r, LR_FN_SessionTimeoutMs, g->session_ms);
    lr_f_set_int(r, LR_FN_RebalanceTimeoutMs, g->rebalance_ms);
    set_str(r, LR_FN_MemberId, g->member_id);
    set_str(r, LR_FN_ProtocolType, "consumer");
    uint8_t sub[64];
    size_t sl = subscription(sub);
    static const char *const names[2] = {"range", "roundrobin"};
    lr_f_set_count(r, LR_FN_Protocols, 2);
    for (int i = 0; i < 2; i++) {
        logrep_struct *p = lr_f_elem(r, LR_FN_Protocols, i);
        set_str(p, LR_FN_Name, names[i ^ g->roundrobin_first]);
        logrep_struct_set_bytes(p, lr_fid(p, LR_FN_Metadata), sub, (int32_t)sl);
    }
    lr_sim_trace(s, "client %d: %s JoinGroup v%d member '%s' -> node %d", a->idx, gname(a), g->v_join,
                 g->member_id, g->coord);
    /* Parked up to the rebalance timeout (and the initial delay): the
     * consumer waits that long and more. */
    int32_t wait = g->v_join == 0 ? g->session_ms : g->rebalance_ms;
    return send_group(s, a, g->coord, wait + 3000);
}

static int cmp_member(const void *x, const void *y)
{
    return strcmp(x, y);
}

static int send_sync(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_SYNC_GROUP, g->v_sync);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    lr_f_set_int(r, LR_FN_GenerationId, g->generation);
    set_str(r, LR_FN_MemberId, g->member_id);
    if (g->v_sync >= 5) {
        set_str(r, LR_FN_ProtocolType, "consumer");
        set_str(r, LR_FN_ProtocolName, g->protocol);
    }
    if (g->is_leader) {
        /* Members sorted by id, as Kafka's assignors order them. */
        qsort(g->members, (size_t)g->n_members, sizeof g->members[0], cmp_member);
        int32_t np = s->conf.partitions, nm = g->n_members;
        int rr = !strcmp(g->protocol, "roundrobin");
        lr_f_set_count(r, LR_FN_Assignments, nm);
        for (int32_t m = 0; m < nm; m++) {
            int32_t parts[LR_SIM_MAXP], n = 0;
            if (rr) {
                for (int32_t p = m; p < np; p += nm)
                    parts[n++] = p;
            } else {
                int32_t each = np / nm, extra = np % nm;
                int32_t first = m * each + (m < extra ? m : extra);
                n = each + (m < extra ? 1 : 0);
                for (int32_t i = 0; i < n; i++)
                    parts[i] = first + i;
            }
            uint8_t buf[64 + 4 * LR_SIM_MAXP];
            size_t bl = assignment(buf, parts, n);
            logrep_struct *e = lr_f_elem(r, LR_FN_Assignments, m);
            set_str(e, LR_FN_MemberId, g->members[m]);
            logrep_struct_set_bytes_copy(e, lr_fid(e, LR_FN_Assignment), buf, (int32_t)bl);
        }
    }
    return send_group(s, a, g->coord, GM_TIMEOUT_MS + g->rebalance_ms);
}

static void add_tp(logrep_sim *s, logrep_struct *t, lr_fname parts_field, const int32_t *parts,
                   int32_t n)
{
    (void)s;
    set_str(t, LR_FN_Name, LR_SIM_TOPIC);
    int fp = lr_fid(t, parts_field);
    logrep_struct_set_count(t, fp, n);
    for (int32_t i = 0; i < n; i++)
        logrep_struct_set_elem_int(t, fp, i, parts[i]);
}

static int send_ofetch(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_OFFSET_FETCH, g->v_ofetch);
    logrep_struct *r = logrep_msg_root(s->msg);
    const int32_t *parts = g->probe ? &g->probe_part : g->assigned;
    int32_t n = g->probe ? 1 : g->n_assigned;
    if (g->v_ofetch < 8) {
        set_str(r, LR_FN_GroupId, g->group_id);
        lr_f_set_count(r, LR_FN_Topics, 1);
        add_tp(s, lr_f_elem(r, LR_FN_Topics, 0), LR_FN_PartitionIndexes, parts, n);
    } else {
        lr_f_set_count(r, LR_FN_Groups, 1);
        logrep_struct *gr = lr_f_elem(r, LR_FN_Groups, 0);
        set_str(gr, LR_FN_GroupId, g->group_id);
        lr_f_set_count(gr, LR_FN_Topics, 1);
        add_tp(s, lr_f_elem(gr, LR_FN_Topics, 0), LR_FN_PartitionIndexes, parts, n);
    }
    if (g->v_ofetch >= 7)
        lr_f_set_int(r, LR_FN_RequireStable, g->require_stable);
    return send_group(s, a, g->coord, GM_TIMEOUT_MS);
}

static int send_heartbeat(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_HEARTBEAT, g->v_hb);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    lr_f_set_int(r, LR_FN_GenerationId, g->generation);
    set_str(r, LR_FN_MemberId, g->member_id);
    return send_group(s, a, g->coord, GM_TIMEOUT_MS);
}

static int send_leave(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_LEAVE_GROUP, g->v_leave);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    if (g->v_leave < 3) {
        set_str(r, LR_FN_MemberId, g->member_id);
    } else {
        lr_f_set_count(r, LR_FN_Members, 1);
        set_str(lr_f_elem(r, LR_FN_Members, 0), LR_FN_MemberId, g->member_id);
    }
    return send_group(s, a, g->coord, GM_TIMEOUT_MS);
}

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

static int send_commit(logrep_sim *s, lr_sim_actor *a, const int32_t *parts, int32_t n)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_OFFSET_COMMIT, g->v_commit);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    lr_f_set_int(r, LR_FN_GenerationIdOrMemberEpoch, g->generation);
    set_str(r, LR_FN_MemberId, g->member_id);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    set_str(t, LR_FN_Name, LR_SIM_TOPIC);
    lr_f_set_count(t, LR_FN_Partitions, n);
    char line[160];
    int k = snprintf(line, sizeof line, "client %d: %s commit generation %d", a->idx, gname(a),
                     g->generation);
    for (int32_t i = 0; i < n; i++) {
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
        lr_f_set_int(p, LR_FN_PartitionIndex, parts[i]);
        lr_f_set_int(p, LR_FN_CommittedOffset, g->pos[parts[i]]);
        set_str(p, LR_FN_CommittedMetadata, "");
        if (k < (int)sizeof line)
            k += snprintf(line + k, sizeof line - (size_t)k, " p%d@%lld", parts[i],
                          (long long)g->pos[parts[i]]);
    }
    if (send_group(s, a, g->coord, GM_TIMEOUT_MS) != 0)
        return -1;
    lr_sim_trace(s, "%s -> node %d", line, g->coord);
    for (int32_t i = 0; i < n; i++) {
        int32_t p = parts[i];
        g->commit_off[p] = g->pos[p];
        g->commit_h[p] = lr_sim_gck_commit_sent(s, g->group, p, g->pos[p]);
    }
    return 0;
}

/* ------------------------------------------------------------ answers */

static void on_find(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
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
    lr_sim_trace(s, "client %d: %s FindCoordinator v%d -> %s node %d", a->idx, gname(a), a->ver,
                 e ? logrep_err_name((logrep_err)e) : "NONE", node);
    if (e == 0 && (node < 1 || node > s->nb)) {
        lr_sim_fail(s, "G0: FindCoordinator of %s answered node %d, not a broker", gname(a), node);
        return;
    }
    if (e && !coordinator_error(e) && e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS) {
        unexpected(s, a, "FindCoordinator", e);
        return;
    }
    if (e == 0)
        g->coord = node;
    wake(s, a, s->now + (e ? GM_BACKOFF_MS : 1));
}

static void on_join(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e = (int)lr_f_int(root, LR_FN_ErrorCode);
    char mid[LR_SIM_GM_IDLEN], leader[LR_SIM_GM_IDLEN];
    if (str_of(root, LR_FN_MemberId, mid, sizeof mid) || str_of(root, LR_FN_Leader, leader, sizeof leader)) {
        lr_sim_fail(s, "G0: JoinGroup of %s answered a member id over %d bytes", gname(a),
                    LR_SIM_GM_IDLEN - 1);
        return;
    }
    int64_t next = s->now + 1;
    switch (e) {
    case 0:
        break;
    case LOGREP_ERR_MEMBER_ID_REQUIRED:
        if (g->v_join < 4 || !mid[0]) {
            unexpected(s, a, "JoinGroup", e);
            return;
        }
        lr_sim_trace(s, "client %d: %s JoinGroup -> MEMBER_ID_REQUIRED '%s'", a->idx, gname(a), mid);
        memcpy(g->member_id, mid, sizeof mid);
        wake(s, a, next);
        return;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        rejoin(s, a, "UNKNOWN_MEMBER_ID", 1);
        wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
        lr_sim_trace(s, "client %d: %s JoinGroup -> %s", a->idx, gname(a), logrep_err_name((logrep_err)e));
        wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    default:
        unexpected(s, a, "JoinGroup", e);
        return;
    }
    memcpy(g->member_id, mid, sizeof mid);
    g->generation = (int32_t)lr_f_int(root, LR_FN_GenerationId);
    g->is_leader = !strcmp(leader, mid);
    char proto[32];
    if (str_of(root, LR_FN_ProtocolName, proto, sizeof proto) || (strcmp(proto, "range") && strcmp(proto, "roundrobin"))) {
        lr_sim_fail(s, "G0: JoinGroup of %s selected protocol '%s', not one every member offered",
                    gname(a), proto);
        return;
    }
    memcpy(g->protocol, proto, sizeof g->protocol);
    g->n_members = 0;
    int32_t nm = lr_f_count(root, LR_FN_Members);
    if (g->is_leader) {
        if (nm < 1 || nm > LR_SIM_GM_MAXMEM) {
            lr_sim_fail(s, "G0: JoinGroup of %s gave its leader %d members", gname(a), nm);
            return;
        }
        int self = 0;
        for (int32_t i = 0; i < nm; i++) {
            logrep_struct *m = lr_f_elem(root, LR_FN_Members, i);
            if (str_of(m, LR_FN_MemberId, g->members[i], LR_SIM_GM_IDLEN) || !g->members[i][0]) {
                lr_sim_fail(s, "G0: JoinGroup of %s: member %d has a bad id", gname(a), i);
                return;
            }
            self |= !strcmp(g->members[i], mid);
        }
        if (!self) {
            lr_sim_fail(s, "G0: JoinGroup of %s: the leader %s is not among the members", gname(a), mid);
            return;
        }
        g->n_members = nm;
    } else if (nm != 0) {
        lr_sim_fail(s, "G0: JoinGroup of %s gave follower %s the member list", gname(a), mid);
        return;
    }
    lr_sim_trace(s, "client %d: %s joined generation %d as %s%s (%s, %d members)", a->idx, gname(a),
                 g->generation, mid, g->is_leader ? ", leader" : "", g->protocol, nm);
    g->phase = GM_SYNC;
    wake(s, a, next);
}

static void on_sync(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    lr_sim_gm *g = a->gm;
    int e = (int)lr_f_int(root, LR_FN_ErrorCode);
    switch (e) {
    case 0:
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        rejoin(s, a, "SyncGroup: UNKNOWN_MEMBER_ID", 1);
        wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
    case LOGREP_ERR_ILLEGAL_GENERATION:
        rejoin(s, a, logrep_err_name((logrep_err)e), 0);
        wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    default:
        unexpected(s, a, "SyncGroup", e);
        return;
    }
    const uint8_t *b = NULL;
    int32_t bl = 0;
    logrep_struct_bytes(root, lr_fid(root, LR_FN_Assignment), &b, &bl);
    int32_t parts[LR_SIM_MAXP];
    int32_t n = parse_assignment(b, bl, parts);
    if (n < 0) {
        lr_sim_fail(s, "G0: SyncGroup of %s answered a malformed assignment (%d bytes)", gname(a), bl);
        return;
    }
    for (int32_t i = 0; i < n; i++)
        if (parts[i] < 0 || parts[i] >= s->conf.partitions) {
            lr_sim_fail(s, "G0: SyncGroup of %s assigned partition %d of %d", gname(a), parts[i],
                        s->conf.partitions);
            return;
        }
    char line[120];
    int k = snprintf(line, sizeof line, "client %d: %s generation %d assigns", a->idx, gname(a),
                     g->generation);
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
    wake(s, a, s->now + 1);
}

/* The offsets of one answer: parts of topics (v0-7) or of the group (v8+). */
static void on_ofetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
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
        lr_sim_fail(s, "G0: OffsetFetch v%d of %s answered %d partitions for %d", a->ver, gname(a), np,
                    want);
        return;
    }
    if (e) {
        lr_sim_trace(s, "client %d: %s OffsetFetch v%d -> %s", a->idx, gname(a), a->ver,
                     logrep_err_name((logrep_err)e));
        if (coordinator_error(e))
            lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        else if (e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS && e != LOGREP_ERR_UNSTABLE_OFFSET_COMMIT) {
            unexpected(s, a, "OffsetFetch", e);
            return;
        }
        wake(s, a, s->now + GM_BACKOFF_MS);
        return;
    }
    char line[160];
    int k = snprintf(line, sizeof line, "client %d: %s OffsetFetch v%d ->", a->idx, gname(a), a->ver);
    for (int32_t i = 0; i < np; i++) {
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
        int32_t part = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
        int64_t off = lr_f_int(p, LR_FN_CommittedOffset);
        int ok = 0;
        for (int32_t j = 0; j < want; j++)
            ok |= part == (g->probe ? g->probe_part : g->assigned[j]);
        if (!ok) {
            lr_sim_fail(s, "G0: OffsetFetch of %s answered partition %d, not asked for", gname(a), part);
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
        gone(s, a, "probe done");
        return;
    }
    g->phase = GM_STABLE;
    wake(s, a, s->now + 1);
}

static void on_heartbeat(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
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
        lr_sim_trace(s, "client %d: %s Heartbeat -> REBALANCE_IN_PROGRESS", a->idx, gname(a));
        g->rejoin = 1;
        g->next_commit = s->now;
        g->next_hb = s->now + g->hb_ms;
        break;
    case LOGREP_ERR_ILLEGAL_GENERATION:
        rejoin(s, a, "Heartbeat: ILLEGAL_GENERATION", 0);
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        rejoin(s, a, "Heartbeat: UNKNOWN_MEMBER_ID", 1);
        break;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lose_coordinator(s, a, logrep_err_name((logrep_err)e));
        break;
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
        g->next_hb = s->now + GM_BACKOFF_MS;
        break;
    default:
        unexpected(s, a, "Heartbeat", e);
        return;
    }
    wake(s, a, s->now + 1);
}

static void on_commit(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
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
            lr_sim_fail(s, "G0: OffsetCommit of %s answered partition %d, not committed", gname(a), part);
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
    lr_sim_trace(s, "client %d: %s commit -> %s (%d of %d partitions)", a->idx, gname(a),
                 err ? logrep_err_name((logrep_err)err) : "NONE", acked, np);
    s->stats.group_commits += acked;
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        g->commit_off[p] = -1; /* partitions missing from the answer: not acknowledged */
    g->next_commit = s->now + g->commit_ms;
    switch (err) {
    case 0:
        break;
    case LOGREP_ERR_UNKNOWN_MEMBER_ID:
        rejoin(s, a, "OffsetCommit: UNKNOWN_MEMBER_ID", 1);
        break;
    case LOGREP_ERR_REBALANCE_IN_PROGRESS:
    case LOGREP_ERR_ILLEGAL_GENERATION:
        rejoin(s, a, logrep_err_name((logrep_err)err), 0);
        break;
    case LOGREP_ERR_GROUP_ID_NOT_FOUND: /* v9+: the group is gone (lost) */
        rejoin(s, a, logrep_err_name((logrep_err)err), 1);
        break;
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        lose_coordinator(s, a, logrep_err_name((logrep_err)err));
        /* fallthrough */
    case LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case LOGREP_ERR_REQUEST_TIMED_OUT:
    /* Retriable for Kafka's consumer: a node checks the topic against its
     * metadata before the group (a restarted node may not have it yet). */
    case LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION:
        g->next_commit = s->now + GM_BACKOFF_MS;
        break;
    default:
        unexpected(s, a, "OffsetCommit", err);
        return;
    }
    if (g->leaving && g->phase == GM_STABLE && err)
        g->leaving = 2; /* leave without the commit */
    wake(s, a, s->now + 1);
}

static void on_metadata(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
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
    wake(s, a, s->now + (a->partition >= 0 && g->leader_of[a->partition] < 0 ? GM_BACKOFF_MS : 1));
}

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
    lr_sim_gm *g = a->gm;
    a->served_epoch = served_epoch;
    int state = a->state;
    lr_sim_client_finish(s, a);
    if (state == AS_FETCH) {
        int32_t p = a->partition;
        int64_t from = a->position;
        lr_sim_client_on_fetch(s, a, root);
        if (a->position > from)
            lr_sim_gck_consumed(s, g->group, p, from, a->position);
        g->pos[p] = a->position;
        g->leader_of[p] = a->leader;
        wake(s, a, s->now + g->interval);
        return;
    }
    if (state == AS_META) {
        on_metadata(s, a, root);
        return;
    }
    switch (api) {
    case LOGREP_API_FIND_COORDINATOR: on_find(s, a, root); break;
    case LOGREP_API_JOIN_GROUP: on_join(s, a, root); break;
    case LOGREP_API_SYNC_GROUP: on_sync(s, a, root); break;
    case LOGREP_API_OFFSET_FETCH: on_ofetch(s, a, root); break;
    case LOGREP_API_HEARTBEAT: on_heartbeat(s, a, root); break;
    case LOGREP_API_OFFSET_COMMIT: on_commit(s, a, root); break;
    case LOGREP_API_LEAVE_GROUP: {
        int e = (int)lr_f_int(root, LR_FN_ErrorCode);
        logrep_struct *m = lr_f_elem(root, LR_FN_Members, 0);
        if (!e && m)
            e = (int)lr_f_int(m, LR_FN_ErrorCode);
        lr_sim_trace(s, "client %d: %s LeaveGroup v%d -> %s", a->idx, gname(a), a->ver,
                     e ? logrep_err_name((logrep_err)e) : "NONE");
        if (e && !coordinator_error(e) && e != LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS &&
            e != LOGREP_ERR_UNKNOWN_MEMBER_ID) {
            unexpected(s, a, "LeaveGroup", e);
            return;
        }
        gone(s, a, "left");
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
        wake(s, a, s->now + 50);
        return;
    }
    /* A commit without an answer stays indeterminate for the checker. */
    if (api == LOGREP_API_OFFSET_COMMIT)
        for (int32_t p = 0; p < LR_SIM_MAXP; p++)
            g->commit_off[p] = -1;
    if (api == LOGREP_API_LEAVE_GROUP) {
        gone(s, a, "left (no answer)");
        return;
    }
    if (api != LOGREP_API_FIND_COORDINATOR)
        lose_coordinator(s, a, "no answer");
    if (api == LOGREP_API_SYNC_GROUP)
        rejoin(s, a, "SyncGroup unanswered", 0);
    wake(s, a, s->now + 50);
}

void lr_sim_gm_closed(logrep_sim *s, lr_sim_actor *a, uint64_t end)
{
    if (end != a->end || a->state == AS_IDLE || a->state == AS_DONE)
        return;
    lr_sim_trace(s, "client %d: connection lost", a->idx);
    a->end = 0;
    lost(s, a);
}

/* The next request of a member in the stable phase. */
static int stable_step(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    int32_t parts[LR_SIM_MAXP];
    int32_t nc = to_commit(g, parts);
    if ((g->rejoin || g->leaving == 1) && nc == 0) {
        if (g->rejoin) {
            rejoin(s, a, "after REBALANCE_IN_PROGRESS", 0);
            return send_join(s, a);
        }
        g->leaving = 2;
    }
    if (g->leaving == 2)
        return send_leave(s, a);
    if (s->now >= g->next_hb && !g->rejoin)
        return send_heartbeat(s, a);
    if (nc && (s->now >= g->next_commit || g->rejoin || g->leaving))
        return send_commit(s, a, parts, nc);
    if (!g->n_assigned) {
        wake(s, a, g->next_hb);
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

void lr_sim_gm_timer(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    if (a->state == AS_DONE || g->phase == GM_GONE)
        return;
    if (s->now >= g->die_at) {
        /* Dies: no LeaveGroup, no more heartbeats; the session expires. */
        gone(s, a, "dies");
        return;
    }
    if (a->state != AS_IDLE) {
        if (s->now >= a->deadline) {
            lr_sim_trace(s, "client %d: %s request timed out", a->idx, gname(a));
            lost(s, a);
        }
        return;
    }
    if (s->now < a->next_at)
        return;
    if (a->stopping && g->leave_at == INT64_MAX)
        g->leave_at = s->now;
    if (s->now >= g->leave_at && !g->leaving && !g->probe) {
        lr_sim_trace(s, "client %d: %s member %s leaves", a->idx, gname(a), g->member_id);
        if (!g->member_id[0] || g->phase != GM_STABLE) {
            gone(s, a, "gone before it joined");
            return;
        }
        g->leaving = 1;
    }
    int r;
    if (g->coord < 0 || !logrep_sim_is_up(s, g->coord))
        r = send_find(s, a);
    else if (g->leaving && (g->leaving == 2 || g->phase != GM_STABLE))
        r = send_leave(s, a); /* a rejoin is not worth it any more */
    else if (g->probe)
        r = send_ofetch(s, a);
    else if (g->phase == GM_JOIN)
        r = send_join(s, a);
    else if (g->phase == GM_SYNC)
        r = send_sync(s, a);
    else if (g->phase == GM_OFETCH)
        r = send_ofetch(s, a);
    else
        r = stable_step(s, a);
    if (r != 0) {
        a->state = AS_IDLE;
        g->coord = -1;
        wake(s, a, s->now + GM_BACKOFF_MS);
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
    wake(s, a, start_at);
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
        gone(s, &s->actors[idx], "probe timed out");
        return LOGREP_ERR__TIMED_OUT;
    }
    if (offset)
        *offset = g->probe_offset;
    return LOGREP_OK;
}
