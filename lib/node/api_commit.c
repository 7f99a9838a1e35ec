/* OffsetCommit, OffsetFetch and OffsetDelete on the wire. A commit is answered once its
 * records are committed in the offsets partition: the request is parked
 * with one cookie and its frame, decoded again to build the answer.
 * Partitions of topics the cluster does not have are refused here with
 * UNKNOWN_TOPIC_OR_PARTITION, as Kafka does, and never stored. */
#include <stdlib.h>
#include <string.h>

#include "group/group.h"
#include "node/node_int.h"

/* ------------------------------------------------------------ OffsetCommit */

static int16_t part_error(logrep_node *n, const char *topic, int32_t partition)
{
    const lr_md_topic *t = topic ? lr_md_topic_by_name(n->md.img, topic) : NULL;
    if (!t || partition < 0 || partition >= t->n_parts)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    return 0;
}

/* Partitions of the request's nt Topics. */
static size_t count_parts(const logrep_struct *rq, int32_t nt)
{
    size_t total = 0;
    for (int32_t i = 0; i < nt; i++) {
        int32_t np = lr_f_count(lr_f_elem(rq, LR_FN_Topics, i), LR_FN_Partitions);
        total += np > 0 ? (size_t)np : 0;
    }
    return total;
}

/* The answer of OffsetCommit or OffsetDelete: the request's topics and
 * partitions in order, with the error each got (g->errs). */
static void commit_respond(logrep_node *n, lr_gpark *g, logrep_struct *rq)
{
    if (!rq || lr_gpark_start(n, g, g->base.api_key)) {
        if (!g->done)
            lr_gpark_give_up(n, g);
        return;
    }
    logrep_struct *rs = logrep_msg_root(n->groups.out);
    if (g->base.api_key == LOGREP_API_OFFSET_DELETE) {
        lr_f_set_int(rs, LR_FN_ErrorCode, g->top_error);
        if (g->top_error) {
            lr_f_set_count(rs, LR_FN_Topics, 0);
            lr_gpark_finish(n, g);
            return;
        }
    }
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    lr_f_set_count(rs, LR_FN_Topics, nt > 0 ? nt : 0);
    size_t k = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        logrep_struct *st = lr_f_elem(rs, LR_FN_Topics, i);
        const char *name;
        int32_t len;
        lr_f_str(qt, LR_FN_Name, &name, &len);
        lr_f_set_str(st, LR_FN_Name, name ? name : "", name && len > 0 ? len : 0);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        lr_f_set_count(st, LR_FN_Partitions, np > 0 ? np : 0);
        for (int32_t j = 0; j < np; j++, k++) {
            logrep_struct *sp = lr_f_elem(st, LR_FN_Partitions, j);
            lr_f_set_int(sp, LR_FN_PartitionIndex,
                         lr_f_int(lr_f_elem(qt, LR_FN_Partitions, j), LR_FN_PartitionIndex));
            lr_f_set_int(sp, LR_FN_ErrorCode, k < g->n_errs && g->errs[k] > 0 ? g->errs[k] : 0);
        }
    }
    lr_gpark_finish(n, g);
}

static void commit_answer(logrep_node *n, lr_gpark *g, size_t i, const lr_gc_answer *a)
{
    (void)i;
    if (a->kind == LR_GC_OFFSET_DELETE && a->error && (!a->part_errors || !a->n_parts))
        g->top_error = lr_wire_code(a->error);
    /* The coordinator's errors fill the partitions it was given, in order. */
    size_t j = 0;
    for (size_t k = 0; k < g->n_errs; k++) {
        if (g->errs[k] >= 0)
            continue;
        int e = j < a->n_parts && a->part_errors ? a->part_errors[j] : a->error;
        g->errs[k] = lr_wire_code(e);
        j++;
    }
    commit_respond(n, g, lr_gpark_request(n, g));
}

int lr_api_offset_commit(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int version = logrep_msg_version(r->msg);
    int nomem = 0;
    lr_gc_commit_req q;
    memset(&q, 0, sizeof q);
    q.version = (int16_t)version;
    q.group_id = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    q.member_id = version >= 1 ? lr_gstr(n, rq, LR_FN_MemberId, &nomem) : NULL;
    q.instance_id = lr_gstr(n, rq, LR_FN_GroupInstanceId, &nomem);
    q.generation = version >= 1 ? (int32_t)lr_f_int(rq, LR_FN_GenerationIdOrMemberEpoch) : -1;
    q.retention_ms = version >= 2 && version <= 4 ? lr_f_int(rq, LR_FN_RetentionTimeMs) : -1;
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    size_t total = count_parts(rq, nt);
    lr_gc_commit_part *ps = lr_garena_alloc(n, (total ? total : 1) * sizeof *ps);
    lr_gpark *g = ps && !nomem ? lr_gpark_new(n, r, commit_answer, 1, total, 1) : NULL;
    if (!g)
        return LOGREP_ERR__NOMEM;
    size_t k = 0, m = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        const char *topic = lr_gstr(n, qt, LR_FN_Name, &nomem);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        for (int32_t j = 0; j < np; j++, k++) {
            logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, j);
            int32_t index = (int32_t)lr_f_int(qp, LR_FN_PartitionIndex);
            int16_t e = part_error(n, topic, index);
            if (e) {
                g->errs[k] = e;
                continue;
            }
            ps[m].topic = topic;
            ps[m].partition = index;
            ps[m].offset = lr_f_int(qp, LR_FN_CommittedOffset);
            ps[m].leader_epoch = version >= 6 ? (int32_t)lr_f_int(qp, LR_FN_CommittedLeaderEpoch) : -1;
            ps[m].metadata = lr_gstr(n, qp, LR_FN_CommittedMetadata, &nomem);
            m++;
        }
    }
    if (nomem) {
        lr_gpark_give_up(n, g);
        return 0;
    }
    q.parts = ps;
    q.n_parts = m;
    if (m == 0) {
        /* Nothing the coordinator could store: Kafka answers at once. */
        commit_respond(n, g, rq);
        return 0;
    }
    return lr_gpark_result(n, g, lr_gc_commit(n->groups.gc, &q, g->cookie0, r->now_ms));
}

/* ------------------------------------------------------------ OffsetDelete */

int lr_api_offset_delete(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int nomem = 0;
    const char *group = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    size_t total = count_parts(rq, nt);
    lr_gc_tp *tps = lr_garena_alloc(n, (total ? total : 1) * sizeof *tps);
    lr_gpark *g = tps && !nomem ? lr_gpark_new(n, r, commit_answer, 1, total, 1) : NULL;
    if (!g)
        return LOGREP_ERR__NOMEM;
    size_t k = 0, m = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        const char *topic = lr_gstr(n, qt, LR_FN_Name, &nomem);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        for (int32_t j = 0; j < np; j++, k++) {
            int32_t index = (int32_t)lr_f_int(lr_f_elem(qt, LR_FN_Partitions, j),
                                              LR_FN_PartitionIndex);
            int16_t e = part_error(n, topic, index);
            if (e) {
                g->errs[k] = e;
                continue;
            }
            tps[m].topic = topic;
            tps[m++].partition = index;
        }
    }
    if (nomem) {
        lr_gpark_give_up(n, g);
        return 0;
    }
    return lr_gpark_result(n, g, lr_gc_offset_delete(n->groups.gc, group, tps, m, g->cookie0,
                                                     r->now_ms));
}

/* ------------------------------------------------------------ OffsetFetch */

typedef struct fetched {
    lr_gc_offset *v;
    size_t n, cap;
    int nomem;
} fetched;

static void collect(void *ctx, const lr_gc_offset *o)
{
    logrep_node *n = ((void **)ctx)[0];
    fetched *f = ((void **)ctx)[1];
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        lr_gc_offset *nv = lr_garena_alloc(n, nc * sizeof *nv);
        if (!nv) {
            f->nomem = 1;
            return;
        }
        if (f->n)
            memcpy(nv, f->v, f->n * sizeof *nv);
        f->v = nv;
        f->cap = nc;
    }
    lr_gc_offset c = *o;
    size_t tl = strlen(o->topic), ml = strlen(o->metadata ? o->metadata : "");
    char *t = lr_garena_alloc(n, tl + 1), *md = lr_garena_alloc(n, ml + 1);
    if (!t || !md) {
        f->nomem = 1;
        return;
    }
    memcpy(t, o->topic, tl + 1);
    memcpy(md, o->metadata ? o->metadata : "", ml + 1);
    c.topic = t;
    c.metadata = md;
    f->v[f->n++] = c;
}

static int by_topic(const void *a, const void *b)
{
    const lr_gc_offset *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

/* One group's committed offsets of `topics` (NULL: all) into f. Returns
 * the group's error. */
static int fetch_group(logrep_node *n, const char *group, const logrep_struct *q, int ftopics,
                       int require_stable, fetched *f)
{
    lr_gc_tp *tps = NULL;
    size_t ntp = 0;
    if (!logrep_struct_is_null(q, ftopics)) {
        int32_t nt = logrep_struct_count(q, ftopics);
        for (int32_t i = 0; i < nt; i++) {
            int32_t np = lr_f_count(logrep_struct_elem(q, ftopics, i), LR_FN_PartitionIndexes);
            ntp += np > 0 ? (size_t)np : 0;
        }
        tps = lr_garena_alloc(n, (ntp ? ntp : 1) * sizeof *tps);
        if (!tps)
            return LOGREP_ERR__NOMEM;
        size_t k = 0;
        int nomem = 0;
        for (int32_t i = 0; i < nt; i++) {
            logrep_struct *qt = logrep_struct_elem(q, ftopics, i);
            const char *topic = lr_gstr(n, qt, LR_FN_Name, &nomem);
            int fp = lr_fid(qt, LR_FN_PartitionIndexes);
            int32_t np = logrep_struct_count(qt, fp);
            for (int32_t j = 0; j < np; j++, k++) {
                tps[k].topic = topic ? topic : "";
                tps[k].partition = (int32_t)logrep_struct_elem_int(qt, fp, j);
            }
        }
        if (nomem)
            return LOGREP_ERR__NOMEM;
    }
    void *ctx[2] = {n, f};
    int e = lr_gc_fetch(n->groups.gc, group, tps, ntp, require_stable, collect, ctx);
    for (size_t i = 0; e > 0 && i < ntp; i++) {
        /* The group's error: each requested partition carries it (v0-1). */
        lr_gc_offset o = {tps[i].topic, tps[i].partition, -1, -1, "", -1, e};
        collect(ctx, &o);
    }
    if (f->nomem)
        return LOGREP_ERR__NOMEM;
    if (!tps && f->n > 1)
        qsort(f->v, f->n, sizeof *f->v, by_topic); /* one entry per topic in the answer */
    return e;
}

/* Topics of f (grouped) into array field ft of s; partitions of the
 * pre-v8 or v8+ shape alike (same field names). */
static void fill_offsets(logrep_struct *s, lr_fname ft, const fetched *f, int version,
                         int16_t part_err)
{
    int32_t ntopics = 0;
    for (size_t i = 0; i < f->n; i++)
        ntopics += i == 0 || strcmp(f->v[i].topic, f->v[i - 1].topic) != 0;
    lr_f_set_count(s, ft, ntopics);
    logrep_struct *st = NULL;
    int32_t ti = -1, pi = 0;
    for (size_t i = 0; i < f->n; i++) {
        const lr_gc_offset *o = &f->v[i];
        if (i == 0 || strcmp(o->topic, f->v[i - 1].topic) != 0) {
            st = lr_f_elem(s, ft, ++ti);
            lr_f_set_str(st, LR_FN_Name, o->topic, (int32_t)strlen(o->topic));
            int32_t cnt = 0;
            for (size_t j = i; j < f->n && strcmp(f->v[j].topic, o->topic) == 0; j++)
                cnt++;
            lr_f_set_count(st, LR_FN_Partitions, cnt);
            pi = 0;
        }
        logrep_struct *sp = lr_f_elem(st, LR_FN_Partitions, pi++);
        lr_f_set_int(sp, LR_FN_PartitionIndex, o->partition);
        lr_f_set_int(sp, LR_FN_CommittedOffset, part_err ? -1 : o->offset);
        lr_f_set_int(sp, LR_FN_CommittedLeaderEpoch, part_err ? -1 : o->leader_epoch);
        lr_f_set_str(sp, LR_FN_Metadata, o->metadata, (int32_t)strlen(o->metadata));
        lr_f_set_int(sp, LR_FN_ErrorCode, part_err ? part_err : o->error);
    }
    (void)version;
}

int lr_api_offset_fetch(logrep_node *n, const lr_req *r)
{
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int version = logrep_msg_version(r->msg);
    int stable = version >= 7 && lr_f_int(rq, LR_FN_RequireStable);
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    int nomem = 0;
    if (version < 8) {
        const char *group = lr_gstr(n, rq, LR_FN_GroupId, &nomem);
        fetched f = {0};
        int e = nomem ? LOGREP_ERR__NOMEM
                      : fetch_group(n, group, rq, lr_fid(rq, LR_FN_Topics), stable, &f);
        if (e < 0)
            return e;
        /* v0-1 carry a group error in each partition; v2+ at the top,
         * with no partitions. */
        if (e && version >= 2)
            f.n = 0;
        fill_offsets(rs, LR_FN_Topics, &f, version, version < 2 ? (int16_t)e : 0);
        lr_f_set_int(rs, LR_FN_ErrorCode, e);
        return lr_req_answer(n, r);
    }
    int32_t ng = lr_f_count(rq, LR_FN_Groups);
    lr_f_set_count(rs, LR_FN_Groups, ng > 0 ? ng : 0);
    for (int32_t i = 0; i < ng; i++) {
        logrep_struct *qg = lr_f_elem(rq, LR_FN_Groups, i);
        logrep_struct *sg = lr_f_elem(rs, LR_FN_Groups, i);
        const char *group = lr_gstr(n, qg, LR_FN_GroupId, &nomem);
        fetched f = {0};
        int e = nomem ? LOGREP_ERR__NOMEM
                      : fetch_group(n, group, qg, lr_fid(qg, LR_FN_Topics), stable, &f);
        if (e < 0)
            return e;
        const char *gid;
        int32_t glen;
        lr_f_str(qg, LR_FN_GroupId, &gid, &glen);
        lr_f_set_str(sg, LR_FN_GroupId, gid ? gid : "", gid && glen > 0 ? glen : 0);
        if (e)
            f.n = 0;
        fill_offsets(sg, LR_FN_Topics, &f, version, 0);
        lr_f_set_int(sg, LR_FN_ErrorCode, e);
    }
    return lr_req_answer(n, r);
}
