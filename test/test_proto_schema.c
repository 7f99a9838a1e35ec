/* Consistency of the schema tables: the properties the codec relies on and
 * a table edit could break. */
#include <criterion/criterion.h>
#include <string.h>

#include "proto/fields.h"
#include "proto/schema.h"

typedef struct walk {
    const lr_papi *api;
    int fields, tagged;
} walk;

static void check_struct(walk *w, const lr_pstruct *s, int depth)
{
    cr_assert_lt(depth, 8, "%s: schema nesting too deep", s->name);
    for (unsigned i = 0; i < s->nfields; i++) {
        const lr_pfield *f = &s->fields[i];
        w->fields++;
        cr_assert_not_null(f->name);
        cr_assert_str_eq(lr_fname_str((lr_fname)f->id), f->name, "%s: field constant", s->name);
        cr_assert(f->type >= LOGREP_FT_BOOL && f->type <= LOGREP_FT_ARRAY, "%s.%s", s->name,
                  f->name);
        cr_assert_leq(f->v0, f->v1, "%s.%s versions", s->name, f->name);
        if (f->n0 >= 0)
            cr_assert(f->n0 <= f->n1, "%s.%s nullable range", s->name, f->name);
        if (f->flags & LR_PF_DEFNULL)
            cr_assert_geq(f->n0, 0, "%s.%s defaults to null but is never nullable", s->name,
                          f->name);
        if (f->t0 >= 0) {
            w->tagged++;
            cr_assert_geq(f->t0, w->api->flex, "%s.%s tagged before flexible", s->name, f->name);
            cr_assert_geq(f->tag, 0);
            for (unsigned j = 0; j < i; j++)
                cr_assert(s->fields[j].t0 < 0 || s->fields[j].tag != f->tag,
                          "%s: tag %d used twice", s->name, (int)f->tag);
        }
        for (unsigned j = 0; j < i; j++)
            cr_assert(strcmp(s->fields[j].name, f->name) != 0, "%s.%s twice", s->name, f->name);
        int st = f->type == LOGREP_FT_STRUCT ||
                 (f->type == LOGREP_FT_ARRAY && f->elem == LOGREP_FT_STRUCT);
        cr_assert_eq(st, f->sub != NULL, "%s.%s sub-struct", s->name, f->name);
        if (f->type == LOGREP_FT_ARRAY)
            cr_assert(f->elem >= LOGREP_FT_BOOL && f->elem <= LOGREP_FT_STRUCT);
        if (f->sub)
            check_struct(w, f->sub, depth + 1);
    }
}

Test(proto_schema, tables_are_consistent)
{
    int fields = 0, tagged = 0;
    for (size_t i = 0; i < lr_proto_api_count; i++) {
        const lr_papi *a = &lr_proto_apis[i];
        cr_assert_leq(a->min, a->max, "%s", a->name);
        cr_assert_eq(lr_proto_api_find(a->key), a);
        cr_assert_eq(lr_proto_ranges[i].api_key, a->key);
        cr_assert_eq(lr_proto_ranges[i].min_version, a->min);
        cr_assert_eq(lr_proto_ranges[i].max_version, a->max);
        /* The public range says INT16_MAX for an API never flexible. */
        cr_assert_eq(lr_proto_ranges[i].flexible_version, a->flex == LR_PV_INF ? INT16_MAX : a->flex);
        walk w = {a, 0, 0};
        check_struct(&w, a->req, 0);
        check_struct(&w, a->resp, 0);
        fields += w.fields;
        tagged += w.tagged;
    }
    cr_assert_gt(fields, 600, "%d fields", fields);
    cr_assert_gt(tagged, 20);
    check_struct(&(walk){&lr_proto_apis[0], 0, 0}, &lr_proto_request_header, 0);
}

/* Fields by constant: the index of the named field, -1 where the struct
 * has no such field, the same as the string lookup. */
Test(proto_schema, field_constants)
{
    logrep_msg *m;
    cr_assert_eq(logrep_msg_new(NULL, &m), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_PRODUCE, 9, 7, "c"), LOGREP_OK);
    logrep_struct *r = logrep_msg_root(m);
    cr_assert_eq(lr_fid(r, LR_FN_Acks), logrep_struct_field(r, "Acks"));
    cr_assert_geq(lr_fid(r, LR_FN_Acks), 0);
    cr_assert_eq(lr_fid(r, LR_FN_ErrorCode), -1, "not a Produce request field");
    cr_assert_eq(lr_f_set_int(r, LR_FN_Acks, -1), 0);
    cr_assert_eq(lr_f_int(r, LR_FN_Acks), -1);
    cr_assert_eq(lr_f_int(r, LR_FN_ErrorCode), 0, "absent reads 0");
    cr_assert_neq(lr_f_set_int(r, LR_FN_ErrorCode, 1), 0, "absent cannot be set");
    cr_assert_null(lr_fname_str(LR_FN__COUNT));
    logrep_msg_free(m);
}

/* Spot checks of layouts the clients depend on (the field layouts of Kafka's message schemas). */
static const lr_pfield *find(const lr_pstruct *s, const char *name)
{
    for (unsigned i = 0; i < s->nfields; i++)
        if (strcmp(s->fields[i].name, name) == 0)
            return &s->fields[i];
    return NULL;
}

Test(proto_schema, spot_checks)
{
    const lr_papi *fetch = lr_proto_api_find(1);
    const lr_pfield *f = find(fetch->req, "ReplicaId");
    cr_assert(f && f->v0 == 0 && f->v1 == 14);
    f = find(fetch->req, "ReplicaState");
    cr_assert(f && f->t0 == 15 && f->tag == 1);
    f = find(fetch->req, "MaxBytes");
    cr_assert(f && f->v0 == 3 && f->def == INT32_MAX);
    const lr_papi *md = lr_proto_api_find(3);
    f = find(md->req, "Topics");
    cr_assert(f && f->n0 == 1);
    f = find(md->resp, "ControllerId");
    cr_assert(f && f->v0 == 1 && f->def == -1);
    const lr_papi *prod = lr_proto_api_find(0);
    f = find(prod->req, "TransactionalId");
    cr_assert(f && f->v0 == 3 && f->n0 == 3);
    cr_assert_eq(lr_proto_api_find(18)->flex, 3);
    cr_assert_eq(lr_proto_api_find(22)->flex, 2);
    cr_assert_eq(lr_proto_api_find(9)->flex, 6);
}

/* The fields the metadata quorum reads (lib/quorum/qwire.c): versions,
 * tags and defaults a round trip cannot catch, since both sides read the
 * same table. */
Test(proto_schema, quorum_spot_checks)
{
    const lr_papi *fetch = lr_proto_api_find(1);
    const lr_pfield *f = find(fetch->req, "ClusterId");
    cr_assert(f && f->v0 == 12 && f->t0 == 12 && f->tag == 0 && (f->flags & LR_PF_DEFNULL));
    f = find(find(fetch->req, "ReplicaState")->sub, "ReplicaEpoch");
    cr_assert(f && f->type == LOGREP_FT_INT64 && f->def == -1);
    const lr_pstruct *fp = find(find(fetch->req, "Topics")->sub, "Partitions")->sub;
    f = find(fp, "LastFetchedEpoch");
    cr_assert(f && f->v0 == 12 && f->t0 < 0 && f->def == -1);
    f = find(fp, "ReplicaDirectoryId");
    cr_assert(f && f->v0 == 17 && f->t0 == 17 && f->tag == 0);
    const lr_pstruct *rp = find(find(fetch->resp, "Responses")->sub, "Partitions")->sub;
    static const char *const tagged[] = {"DivergingEpoch", "CurrentLeader", "SnapshotId"};
    for (int i = 0; i < 3; i++) {
        f = find(rp, tagged[i]);
        cr_assert(f && f->v0 == 12 && f->t0 == 12 && f->tag == i, "%s", tagged[i]);
        for (unsigned k = 0; k < f->sub->nfields; k++)
            cr_assert_eq(f->sub->fields[k].def, -1, "%s", tagged[i]);
    }
    f = find(fetch->resp, "NodeEndpoints");
    cr_assert(f && f->v0 == 16 && f->t0 == 16 && f->tag == 0);

    const lr_papi *vote = lr_proto_api_find(52);
    cr_assert(vote->max == 2 && vote->flex == 0);
    const lr_pstruct *vp = find(find(vote->req, "Topics")->sub, "Partitions")->sub;
    f = find(vp, "PreVote");
    cr_assert(f && f->v0 == 2 && f == &vp->fields[vp->nfields - 1]);
    f = find(vote->req, "VoterId");
    cr_assert(f && f->v0 == 1 && f->def == -1);
    cr_assert_eq(lr_proto_api_find(53)->flex, 1);
    cr_assert_eq(lr_proto_api_find(54)->flex, 1);

    const lr_papi *dq = lr_proto_api_find(55);
    cr_assert(dq && dq->min == 0 && dq->max == 2 && dq->flex == 0);
    const lr_pstruct *dp = find(find(dq->resp, "Topics")->sub, "Partitions")->sub;
    const lr_pstruct *rs = find(dp, "CurrentVoters")->sub;
    cr_assert_eq(find(dp, "Observers")->sub, rs);
    f = find(rs, "LastCaughtUpTimestamp");
    cr_assert(f && f->v0 == 1 && f->def == -1);
    f = find(rs, "ReplicaDirectoryId");
    cr_assert(f && f->v0 == 2 && f == &rs->fields[1]);
    f = find(dp, "ErrorMessage");
    cr_assert(f && f->v0 == 2 && f->n0 == 2 && !(f->flags & LR_PF_DEFNULL));
    f = find(dq->resp, "Nodes");
    cr_assert(f && f->v0 == 2 && f->t0 < 0);
}
