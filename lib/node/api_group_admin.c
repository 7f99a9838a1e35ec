/* ListGroups, DescribeGroups and DeleteGroups: the groups of the offsets
 * partitions this node leads (a client asks every broker, as Kafka's
 * admin clients do). DeleteGroups waits for its tombstones to commit. */
#include <string.h>
#include <strings.h>

#include "group/group.h"
#include "node/node_int.h"

/* Kafka's group operations without an authorizer: READ, DELETE, DESCRIBE. */
#define LR_GROUP_AUTHORIZED_OPS ((1 << 3) | (1 << 6) | (1 << 8))

static void set_str(logrep_struct *s, lr_fname f, const char *v)
{
    lr_f_set_str(s, f, v ? v : "", v ? (int32_t)strlen(v) : 0);
}

/* ------------------------------------------------------------ ListGroups */

typedef struct listing {
    logrep_node *n;
    const lr_gc_group_info **v;
    size_t count, cap;
    int nomem;
} listing;

static void list_one(void *ctx, const lr_gc_group_info *g)
{
    listing *l = ctx;
    if (l->count == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        const lr_gc_group_info **nv = lr_garena_alloc(l->n, nc * sizeof *nv);
        if (!nv) {
            l->nomem = 1;
            return;
        }
        if (l->count)
            memcpy(nv, l->v, l->count * sizeof *nv);
        l->v = nv;
        l->cap = nc;
    }
    /* The info is borrowed for the call: keep a copy of what is shown. */
    lr_gc_group_info *c = lr_garena_alloc(l->n, sizeof *c);
    size_t a = strlen(g->group_id) + 1, b = strlen(g->protocol_type) + 1;
    char *s = lr_garena_alloc(l->n, a + b);
    if (!c || !s) {
        l->nomem = 1;
        return;
    }
    memset(c, 0, sizeof *c);
    memcpy(s, g->group_id, a);
    memcpy(s + a, g->protocol_type, b);
    c->group_id = s;
    c->protocol_type = s + a;
    c->state = g->state;
    l->v[l->count++] = c;
}

int lr_api_list_groups(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int version = logrep_msg_version(r->msg);
    unsigned mask = 0;
    int any = 1;
    int fs = lr_fid(rq, LR_FN_StatesFilter);
    for (int32_t i = 0; version >= 4 && i < logrep_struct_count(rq, fs); i++) {
        const uint8_t *p;
        int32_t len;
        logrep_struct_elem_bytes(rq, fs, i, &p, &len);
        char name[32];
        int st = -1;
        if (p && len > 0 && (size_t)len < sizeof name) {
            memcpy(name, p, (size_t)len);
            name[len] = 0;
            st = lr_gc_state_parse(name);
        }
        any = 0;
        if (st >= 0)
            mask |= 1u << st;
    }
    /* Only classic groups exist here. */
    int ft = lr_fid(rq, LR_FN_TypesFilter);
    int32_t ntypes = version >= 5 ? logrep_struct_count(rq, ft) : 0;
    int classic = ntypes <= 0;
    for (int32_t i = 0; i < ntypes; i++) {
        const uint8_t *p;
        int32_t len;
        logrep_struct_elem_bytes(rq, ft, i, &p, &len);
        classic |= p && len == 7 && strncasecmp((const char *)p, "classic", 7) == 0;
    }
    listing l = {n, NULL, 0, 0, 0};
    int e = 0;
    if (classic && (any || mask))
        e = lr_gc_list(n->groups.gc, any ? 0 : mask, list_one, &l);
    if (l.nomem)
        return LOGREP_ERR__NOMEM;
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(e));
    lr_f_set_count(rs, LR_FN_Groups, (int32_t)l.count);
    for (size_t i = 0; i < l.count; i++) {
        logrep_struct *ge = lr_f_elem(rs, LR_FN_Groups, (int32_t)i);
        set_str(ge, LR_FN_GroupId, l.v[i]->group_id);
        set_str(ge, LR_FN_ProtocolType, l.v[i]->protocol_type);
        set_str(ge, LR_FN_GroupState, lr_gc_state_name(l.v[i]->state));
        set_str(ge, LR_FN_GroupType, "classic");
    }
    return lr_req_answer(n, r);
}

/* ------------------------------------------------------------ DescribeGroups */

/* Fills the group's entry during the coordinator's call (its data is
 * borrowed). */
static void describe_one(void *ctx, const lr_gc_group_info *g)
{
    logrep_struct *ge = ctx;
    set_str(ge, LR_FN_GroupState, lr_gc_state_name(g->state));
    set_str(ge, LR_FN_ProtocolType, g->protocol_type);
    set_str(ge, LR_FN_ProtocolData, g->protocol);
    lr_f_set_count(ge, LR_FN_Members, (int32_t)g->n_members);
    for (size_t i = 0; i < g->n_members; i++) {
        const lr_gc_member_info *m = &g->members[i];
        logrep_struct *me = lr_f_elem(ge, LR_FN_Members, (int32_t)i);
        set_str(me, LR_FN_MemberId, m->member_id);
        lr_f_set_nstr(me, LR_FN_GroupInstanceId, m->instance_id);
        set_str(me, LR_FN_ClientId, m->client_id);
        set_str(me, LR_FN_ClientHost, m->client_host);
        logrep_struct_set_bytes(me, lr_fid(me, LR_FN_MemberMetadata),
                                m->metadata ? m->metadata : (const uint8_t *)"",
                                (int32_t)m->metadata_len);
        logrep_struct_set_bytes(me, lr_fid(me, LR_FN_MemberAssignment),
                                m->assignment ? m->assignment : (const uint8_t *)"",
                                (int32_t)m->assignment_len);
    }
}

int lr_api_describe_groups(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int version = logrep_msg_version(r->msg);
    int with_ops = version >= 3 && lr_f_int(rq, LR_FN_IncludeAuthorizedOperations);
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    int fg = lr_fid(rq, LR_FN_Groups);
    int32_t ng = logrep_struct_count(rq, fg);
    lr_f_set_count(rs, LR_FN_Groups, ng > 0 ? ng : 0);
    for (int32_t i = 0; i < ng; i++) {
        const uint8_t *p;
        int32_t len;
        logrep_struct_elem_bytes(rq, fg, i, &p, &len);
        logrep_struct *ge = lr_f_elem(rs, LR_FN_Groups, i);
        lr_f_set_str(ge, LR_FN_GroupId, (const char *)p, p && len > 0 ? len : 0);
        int nomem = 0;
        const char *id = lr_gcstr(n, p, len, &nomem);
        int e = lr_gc_describe(n->groups.gc, id, describe_one, ge);
        if (e == LOGREP_ERR__NOMEM)
            return e;
        lr_f_set_int(ge, LR_FN_ErrorCode, lr_wire_code(e));
        if (e) {
            set_str(ge, LR_FN_GroupState, "");
            set_str(ge, LR_FN_ProtocolType, "");
            set_str(ge, LR_FN_ProtocolData, "");
            lr_f_set_count(ge, LR_FN_Members, 0);
        }
        lr_f_set_int(ge, LR_FN_AuthorizedOperations,
                     with_ops ? LR_GROUP_AUTHORIZED_OPS : INT32_MIN);
    }
    return lr_req_answer(n, r);
}

/* ------------------------------------------------------------ DeleteGroups */

static void delete_respond(logrep_node *n, lr_gpark *g)
{
    logrep_struct *rq = lr_gpark_request(n, g);
    if (!rq || lr_gpark_start(n, g, LOGREP_API_DELETE_GROUPS)) {
        if (!g->done)
            lr_gpark_give_up(n, g);
        return;
    }
    logrep_struct *rs = logrep_msg_root(n->groups.out);
    int fg = lr_fid(rq, LR_FN_GroupsNames);
    int32_t ng = logrep_struct_count(rq, fg);
    lr_f_set_count(rs, LR_FN_Results, ng > 0 ? ng : 0);
    for (int32_t i = 0; i < ng; i++) {
        const uint8_t *p;
        int32_t len;
        logrep_struct_elem_bytes(rq, fg, i, &p, &len);
        logrep_struct *re = lr_f_elem(rs, LR_FN_Results, i);
        lr_f_set_str(re, LR_FN_GroupId, (const char *)p, p && len > 0 ? len : 0);
        lr_f_set_int(re, LR_FN_ErrorCode,
                     (size_t)i < g->n_errs && g->errs[i] > 0 ? g->errs[i] : 0);
    }
    lr_gpark_finish(n, g);
}

static void delete_answer(logrep_node *n, lr_gpark *g, size_t i, const lr_gc_answer *a)
{
    if (i < g->n_errs && g->errs[i] < 0) {
        g->errs[i] = lr_wire_code(a->error);
        g->outstanding--;
    }
    if (!g->outstanding)
        delete_respond(n, g);
}

int lr_api_delete_groups(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int fg = lr_fid(rq, LR_FN_GroupsNames);
    int32_t ng = logrep_struct_count(rq, fg);
    size_t cnt = ng > 0 ? (size_t)ng : 0;
    lr_gpark *g = lr_gpark_new(n, r, delete_answer, cnt, cnt, 1);
    if (!g)
        return LOGREP_ERR__NOMEM;
    if (!cnt) {
        delete_respond(n, g);
        return 0;
    }
    for (int32_t i = 0; i < ng && !g->done; i++) {
        const uint8_t *p;
        int32_t len;
        logrep_struct_elem_bytes(rq, fg, i, &p, &len);
        int nomem = 0;
        const char *id = lr_gcstr(n, p, len, &nomem);
        int e = lr_gc_delete_group(n->groups.gc, id, g->cookie0 + (uint64_t)i, r->now_ms);
        if (e < 0 && !g->done) {
            /* No answer will come for this one: count it answered. */
            g->errs[i] = e == LOGREP_ERR__NOMEM ? LOGREP_ERR_COORDINATOR_NOT_AVAILABLE
                                                : LOGREP_ERR_INVALID_GROUP_ID;
            if (--g->outstanding == 0)
                delete_respond(n, g);
        }
    }
    return 0;
}
