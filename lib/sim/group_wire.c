/* Consumer group members (group_client.c): the requests they send, one
 * encoder per API and version range, and the consumer protocol's
 * subscription and assignment bytes (the leader's range and round robin
 * assignors included). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fields.h"
#include "sim/group_int.h"

static int32_t owner_of(const lr_sim_actor *a)
{
    return LR_SIM_ACTOR0 + a->idx;
}

/* ------------------------------------------------------------ consumer protocol */

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
int32_t lr_sim_gm_parse_assignment(const uint8_t *b, int32_t len, int32_t *parts)
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

/* ------------------------------------------------------------ requests */

static void set_str(logrep_struct *st, lr_fname f, const char *v)
{
    lr_f_set_str(st, f, v, (int32_t)strlen(v));
}

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
    snprintf(cid, sizeof cid, "sim-%s", lr_sim_gm_group(a));
    logrep_msg_init_request(s->msg, api, v, ++a->corr, cid);
}

int lr_sim_gm_send_find(logrep_sim *s, lr_sim_actor *a)
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

int lr_sim_gm_send_join(logrep_sim *s, lr_sim_actor *a)
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
    lr_sim_trace(s, "client %d: %s JoinGroup v%d member '%s' -> node %d", a->idx,
                 lr_sim_gm_group(a), g->v_join, g->member_id, g->coord);
    /* Parked up to the rebalance timeout (and the initial delay): the
     * consumer waits that long and more. */
    int32_t wait = g->v_join == 0 ? g->session_ms : g->rebalance_ms;
    return send_group(s, a, g->coord, wait + 3000);
}

static int cmp_member(const void *x, const void *y)
{
    return strcmp(x, y);
}

int lr_sim_gm_send_sync(logrep_sim *s, lr_sim_actor *a)
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

int lr_sim_gm_send_ofetch(logrep_sim *s, lr_sim_actor *a)
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

int lr_sim_gm_send_heartbeat(logrep_sim *s, lr_sim_actor *a)
{
    lr_sim_gm *g = a->gm;
    init(s, a, LOGREP_API_HEARTBEAT, g->v_hb);
    logrep_struct *r = logrep_msg_root(s->msg);
    set_str(r, LR_FN_GroupId, g->group_id);
    lr_f_set_int(r, LR_FN_GenerationId, g->generation);
    set_str(r, LR_FN_MemberId, g->member_id);
    return send_group(s, a, g->coord, GM_TIMEOUT_MS);
}

int lr_sim_gm_send_leave(logrep_sim *s, lr_sim_actor *a)
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

int lr_sim_gm_send_commit(logrep_sim *s, lr_sim_actor *a, const int32_t *parts, int32_t n)
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
    int k = snprintf(line, sizeof line, "client %d: %s commit generation %d", a->idx,
                     lr_sim_gm_group(a), g->generation);
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
