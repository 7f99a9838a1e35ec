/* Classic group membership on the wire: JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup, decoded into lib/group's calls. JoinGroup and SyncGroup
 * wait for the rebalance, so they are parked with one cookie each and
 * answered from the coordinator's callback. */
#include <string.h>

#include "group/group.h"
#include "node/node_int.h"

/* ------------------------------------------------------------ JoinGroup */

static void join_answer(logrep_node *n, lr_gpark *g, size_t i, const lr_gc_answer *a)
{
    (void)i;
    if (lr_gpark_start(n, g, LOGREP_API_JOIN_GROUP))
        return;
    logrep_struct *rs = logrep_msg_root(n->groups.out);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(a->error));
    lr_f_set_int(rs, LR_FN_GenerationId, a->generation);
    lr_f_set_nstr(rs, LR_FN_ProtocolType, a->protocol_type);
    /* ProtocolName is nullable from v7 only. */
    lr_f_set_nstr(rs, LR_FN_ProtocolName,
             a->protocol_name ? a->protocol_name : g->base.version >= 7 ? NULL : "");
    lr_f_set_str(rs, LR_FN_Leader, a->leader ? a->leader : "",
                 a->leader ? (int32_t)strlen(a->leader) : 0);
    lr_f_set_int(rs, LR_FN_SkipAssignment, a->skip_assignment);
    lr_f_set_str(rs, LR_FN_MemberId, a->member_id ? a->member_id : "",
                 a->member_id ? (int32_t)strlen(a->member_id) : 0);
    lr_f_set_count(rs, LR_FN_Members, (int32_t)a->n_members);
    for (size_t k = 0; k < a->n_members; k++) {
        logrep_struct *m = lr_f_elem(rs, LR_FN_Members, (int32_t)k);
        const lr_gc_join_member *jm = &a->members[k];
        lr_f_set_str(m, LR_FN_MemberId, jm->member_id, (int32_t)strlen(jm->member_id));
        lr_f_set_nstr(m, LR_FN_GroupInstanceId, jm->instance_id);
        logrep_struct_set_bytes(m, lr_fid(m, LR_FN_Metadata), jm->metadata,
                                (int32_t)jm->metadata_len);
    }
    lr_gpark_finish(n, g);
}

int lr_api_join_group(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int nomem = 0;
    lr_gc_join_req q;
    memset(&q, 0, sizeof q);
    q.version = (int16_t)logrep_msg_version(r->msg);
    q.group_id = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    q.member_id = lr_gstr(n, rq, LR_FN_MemberId, &nomem);
    q.instance_id = lr_gstr(n, rq, LR_FN_GroupInstanceId, &nomem);
    q.protocol_type = lr_gstr(n, rq, LR_FN_ProtocolType, &nomem);
    q.session_timeout_ms = (int32_t)lr_f_int(rq, LR_FN_SessionTimeoutMs);
    q.rebalance_timeout_ms = (int32_t)lr_f_int(rq, LR_FN_RebalanceTimeoutMs);
    const uint8_t *cid;
    int32_t cidlen = 0;
    char *client = NULL;
    if (logrep_msg_client_id(r->msg, &cid, &cidlen) == 0 && cid && cidlen >= 0 &&
        (client = lr_garena_alloc(n, (size_t)cidlen + 1)) != NULL) {
        memcpy(client, cid, (size_t)cidlen);
        client[cidlen] = 0;
    }
    q.client_id = client ? client : "";
    q.client_host = r->conn->peer[0] ? r->conn->peer : "/unknown";
    int32_t np = lr_f_count(rq, LR_FN_Protocols);
    lr_gc_protocol *ps = lr_garena_alloc(n, (size_t)(np > 0 ? np : 1) * sizeof *ps);
    if (!ps)
        nomem = 1;
    for (int32_t i = 0; ps && i < np; i++) {
        logrep_struct *pe = lr_f_elem(rq, LR_FN_Protocols, i);
        const uint8_t *md = NULL;
        int32_t mdlen = 0;
        ps[i].name = lr_gstr(n, pe, LR_FN_Name, &nomem);
        logrep_struct_bytes(pe, lr_fid(pe, LR_FN_Metadata), &md, &mdlen);
        ps[i].metadata = md;
        ps[i].metadata_len = mdlen > 0 ? (size_t)mdlen : 0;
        if (!ps[i].name)
            ps[i].name = ""; /* refused by the coordinator as a bad protocol */
    }
    q.protocols = ps;
    q.n_protocols = np > 0 ? (size_t)np : 0;
    if (nomem)
        return LOGREP_ERR__NOMEM;
    lr_gpark *g = lr_gpark_new(n, r, join_answer, 1, 0, 0);
    if (!g)
        return LOGREP_ERR__NOMEM;
    return lr_gpark_result(n, g, lr_gc_join(n->groups.gc, &q, g->cookie0, r->now_ms));
}

/* ------------------------------------------------------------ SyncGroup */

static void sync_answer(logrep_node *n, lr_gpark *g, size_t i, const lr_gc_answer *a)
{
    (void)i;
    if (lr_gpark_start(n, g, LOGREP_API_SYNC_GROUP))
        return;
    logrep_struct *rs = logrep_msg_root(n->groups.out);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(a->error));
    lr_f_set_nstr(rs, LR_FN_ProtocolType, a->protocol_type);
    lr_f_set_nstr(rs, LR_FN_ProtocolName, a->protocol_name);
    logrep_struct_set_bytes(rs, lr_fid(rs, LR_FN_Assignment),
                            a->assignment ? a->assignment : (const uint8_t *)"",
                            (int32_t)a->assignment_len);
    lr_gpark_finish(n, g);
}

int lr_api_sync_group(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int nomem = 0;
    lr_gc_sync_req q;
    memset(&q, 0, sizeof q);
    q.group_id = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    q.member_id = lr_gstr(n, rq, LR_FN_MemberId, &nomem);
    q.instance_id = lr_gstr(n, rq, LR_FN_GroupInstanceId, &nomem);
    q.generation = (int32_t)lr_f_int(rq, LR_FN_GenerationId);
    q.protocol_type = lr_gstr(n, rq, LR_FN_ProtocolType, &nomem);
    q.protocol_name = lr_gstr(n, rq, LR_FN_ProtocolName, &nomem);
    int32_t na = lr_f_count(rq, LR_FN_Assignments);
    lr_gc_assignment *as = lr_garena_alloc(n, (size_t)(na > 0 ? na : 1) * sizeof *as);
    if (!as)
        nomem = 1;
    for (int32_t i = 0; as && i < na; i++) {
        logrep_struct *ae = lr_f_elem(rq, LR_FN_Assignments, i);
        const uint8_t *b = NULL;
        int32_t blen = 0;
        as[i].member_id = lr_gstr(n, ae, LR_FN_MemberId, &nomem);
        if (!as[i].member_id)
            as[i].member_id = "";
        logrep_struct_bytes(ae, lr_fid(ae, LR_FN_Assignment), &b, &blen);
        as[i].assignment = b;
        as[i].len = blen > 0 ? (size_t)blen : 0;
    }
    q.assignments = as;
    q.n_assignments = na > 0 ? (size_t)na : 0;
    if (nomem)
        return LOGREP_ERR__NOMEM;
    lr_gpark *g = lr_gpark_new(n, r, sync_answer, 1, 0, 0);
    if (!g)
        return LOGREP_ERR__NOMEM;
    return lr_gpark_result(n, g, lr_gc_sync(n->groups.gc, &q, g->cookie0, r->now_ms));
}

/* ------------------------------------------------------------ Heartbeat */

int lr_api_heartbeat(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int nomem = 0;
    const char *group = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    const char *member = lr_gstr(n, rq, LR_FN_MemberId, &nomem);
    const char *instance = lr_gstr(n, rq, LR_FN_GroupInstanceId, &nomem);
    if (nomem)
        return LOGREP_ERR__NOMEM;
    int e = lr_gc_heartbeat(n->groups.gc, group, member ? member : "", instance,
                            (int32_t)lr_f_int(rq, LR_FN_GenerationId), r->now_ms);
    int err = lr_req_init(r);
    if (err)
        return err;
    lr_f_set_int(logrep_msg_root(r->resp), LR_FN_ErrorCode, lr_wire_code(e));
    return lr_req_answer(n, r);
}

/* ------------------------------------------------------------ LeaveGroup */

int lr_api_leave_group(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int version = logrep_msg_version(r->msg);
    int nomem = 0;
    const char *group = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    /* Before v3 one member left, named at the top level. */
    int32_t nm = version >= 3 ? lr_f_count(rq, LR_FN_Members) : 1;
    if (nm < 0)
        nm = 0;
    lr_gc_leave_member *ms = lr_garena_alloc(n, (size_t)(nm ? nm : 1) * sizeof *ms);
    int16_t *errs = lr_garena_alloc(n, (size_t)(nm ? nm : 1) * sizeof *errs);
    if (!ms || !errs)
        return LOGREP_ERR__NOMEM;
    for (int32_t i = 0; i < nm; i++) {
        const logrep_struct *me = version >= 3 ? lr_f_elem(rq, LR_FN_Members, i) : rq;
        const char *mid = lr_gstr(n, me, LR_FN_MemberId, &nomem);
        ms[i].member_id = mid ? mid : "";
        ms[i].instance_id = version >= 3 ? lr_gstr(n, me, LR_FN_GroupInstanceId, &nomem) : NULL;
        errs[i] = 0;
    }
    if (nomem)
        return LOGREP_ERR__NOMEM;
    int top = lr_gc_leave(n->groups.gc, group, ms, (size_t)nm, errs, r->now_ms);
    if (top < 0)
        return top;
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    /* Before v3 the one member's error is the answer. */
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(top ? top : version < 3 && nm ? errs[0] : 0));
    if (version >= 3) {
        lr_f_set_count(rs, LR_FN_Members, top ? 0 : nm);
        for (int32_t i = 0; !top && i < nm; i++) {
            logrep_struct *me = lr_f_elem(rs, LR_FN_Members, i);
            lr_f_set_str(me, LR_FN_MemberId, ms[i].member_id, (int32_t)strlen(ms[i].member_id));
            lr_f_set_nstr(me, LR_FN_GroupInstanceId, ms[i].instance_id);
            lr_f_set_int(me, LR_FN_ErrorCode, errs[i]);
        }
    }
    return lr_req_answer(n, r);
}
