/* logrep groups --describe: FindCoordinator, DescribeGroups and
 * OffsetFetch on a group's coordinator (retried until --timeout runs out
 * while it is not ready), ListOffsets (latest) on each partition's leader,
 * and the rows of the describe table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include <logrep.h>

typedef struct committed {
    char *topic;
    int32_t partition;
    int64_t offset;
    int assigned;
} committed;

static int retriable(int64_t ec)
{
    return ec == LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
           ec == LOGREP_ERR_COORDINATOR_NOT_AVAILABLE || ec == LOGREP_ERR_NOT_COORDINATOR;
}

typedef struct member {
    const char *id, *host, *client;
    grp_assignment a;
} member;

typedef struct described {
    const char *state, *protocol_type;
    member *m;
    size_t nm;
    committed *off;
    size_t noff;
} described;

static void described_free(described *d)
{
    for (size_t i = 0; i < d->nm; i++)
        grp_assignment_free(&d->m[i].a);
    free(d->m);
    free(d->off);
    memset(d, 0, sizeof *d);
}

/* FindCoordinator for a group until found or the deadline; the broker, or
 * NULL after saying why. */
static broker *find_coordinator(ctx *g, const char *group, int64_t deadline)
{
    int64_t ec = 0;
    int32_t node = -1, port = -1;
    char host[256] = "";
    for (;;) {
        wire_conn *c = boot_conn(g);
        if (!c)
            return NULL;
        int v = wire_version(c, LOGREP_API_FIND_COORDINATOR, 0, 6);
        if (v < 0) {
            fprintf(stderr, "Error: %s does not support FindCoordinator\n", c->addr);
            return NULL;
        }
        logrep_struct *rq = wire_begin(c, LOGREP_API_FIND_COORDINATOR, v), *rs = NULL, *co;
        int32_t gl = (int32_t)strlen(group);
        if (rq && v >= 4) {
            lr_f_set_count(rq, LR_FN_CoordinatorKeys, 1);
            logrep_struct_set_elem_bytes(rq, lr_fid(rq, LR_FN_CoordinatorKeys), 0, group, gl);
        } else if (rq) {
            logrep_struct_set_bytes(rq, lr_fid(rq, LR_FN_Key), group, gl);
        }
        if (rq)
            rs = wire_call(c);
        if (!rs) {
            fprintf(stderr, "Error: FindCoordinator: %s\n", c->err);
            return NULL;
        }
        co = rs;
        if (v >= 4) {
            co = NULL;
            for (int32_t i = 0; i < lr_f_count(rs, LR_FN_Coordinators); i++) {
                logrep_struct *e = lr_f_elem(rs, LR_FN_Coordinators, i);
                int32_t kl;
                const char *k = wire_str(e, LR_FN_Key, &kl);
                if (kl == gl && memcmp(k, group, (size_t)gl) == 0)
                    co = e;
            }
            if (!co) {
                fprintf(stderr, "Error: FindCoordinator: %s answered without group '%s'\n",
                        c->addr, group);
                return NULL;
            }
        }
        ec = lr_f_int(co, LR_FN_ErrorCode);
        if (ec == 0) {
            node = (int32_t)lr_f_int(co, LR_FN_NodeId);
            port = (int32_t)lr_f_int(co, LR_FN_Port);
            copy_host(host, sizeof host, co, LR_FN_Host);
            break;
        }
        if (!retriable(ec) || mono_ms() + RETRY_MS >= deadline) {
            fprintf(stderr, "Error: FindCoordinator for group '%s': %s\n", group,
                    logrep_err_name((int)ec));
            return NULL;
        }
        sleep_ms(RETRY_MS);
    }
    broker *k = broker_by_id(g, node);
    if (!k) { /* not in Metadata yet: use the address given */
        broker *nb = realloc(g->brokers, (g->nbrokers + 1) * sizeof *nb);
        if (!nb) {
            oom();
            return NULL;
        }
        g->brokers = nb;
        k = &g->brokers[g->nbrokers++];
        memset(k, 0, sizeof *k);
        k->id = node;
        snprintf(k->host, sizeof k->host, "%s", host);
        k->port = port;
    }
    return k;
}

/* Outcome of one coordinator call: done (*rc 1 when the answer held bad
 * data), retry (after a new lookup when the coordinator moved), or failed
 * (said why; exit status 2). */
enum { CALL_DONE, CALL_RETRY, CALL_FAILED };

static int call_oom(void)
{
    oom();
    return CALL_FAILED;
}

static int describe_call(ctx *g, wire_conn *c, const char *group, described *d, int *rc)
{
    int v = wire_version(c, LOGREP_API_DESCRIBE_GROUPS, 0, 5);
    logrep_struct *rq = v < 0 ? NULL : wire_begin(c, LOGREP_API_DESCRIBE_GROUPS, v), *rs = NULL;
    if (v < 0)
        snprintf(c->err, sizeof c->err, "%s does not support DescribeGroups", c->addr);
    if (rq) {
        lr_f_set_count(rq, LR_FN_Groups, 1);
        logrep_struct_set_elem_bytes(rq, lr_fid(rq, LR_FN_Groups), 0, group,
                                     (int32_t)strlen(group));
        rs = wire_call(c);
    }
    if (!rs) {
        fprintf(stderr, "Error: DescribeGroups: %s\n", c->err);
        return CALL_FAILED;
    }
    if (lr_f_count(rs, LR_FN_Groups) < 1) {
        fprintf(stderr, "Error: DescribeGroups: %s answered without group '%s'\n", c->addr, group);
        return CALL_FAILED;
    }
    logrep_struct *e = lr_f_elem(rs, LR_FN_Groups, 0);
    int64_t ec = lr_f_int(e, LR_FN_ErrorCode);
    if (retriable(ec))
        return CALL_RETRY;
    if (ec == LOGREP_ERR_GROUP_ID_NOT_FOUND) {
        d->state = "Dead";
        return CALL_DONE;
    }
    if (ec) {
        fprintf(stderr, "Error: DescribeGroups of '%s': %s\n", group, logrep_err_name((int)ec));
        return CALL_FAILED;
    }
    d->state = keep_field(g, e, LR_FN_GroupState);
    d->protocol_type = keep_field(g, e, LR_FN_ProtocolType);
    int32_t nm = lr_f_count(e, LR_FN_Members);
    if (!d->state || !d->protocol_type)
        return call_oom();
    if (nm > 0 && !(d->m = calloc((size_t)nm, sizeof *d->m)))
        return call_oom();
    int consumer = strcmp(d->protocol_type, "consumer") == 0 || !d->protocol_type[0];
    for (int32_t i = 0; i < nm; i++) {
        logrep_struct *me = lr_f_elem(e, LR_FN_Members, i);
        member *m = &d->m[d->nm++];
        m->id = keep_field(g, me, LR_FN_MemberId);
        m->host = keep_field(g, me, LR_FN_ClientHost);
        m->client = keep_field(g, me, LR_FN_ClientId);
        if (!m->id || !m->host || !m->client)
            return call_oom();
        const uint8_t *p = NULL;
        int32_t len = 0;
        if (!consumer || logrep_struct_bytes(me, lr_fid(me, LR_FN_MemberAssignment), &p, &len) ||
            len <= 0)
            continue;
        char why[200];
        int r = grp_decode_assignment(p, (size_t)len, &m->a, why, sizeof why);
        if (r == -2)
            return call_oom();
        if (r) { /* shown without partitions; the exit status says so */
            fprintf(stderr, "Warning: group '%s' member %s: bad assignment: %s\n", group, m->id,
                    why);
            *rc = 1;
        }
    }
    return CALL_DONE;
}

static int offsets_call(ctx *g, wire_conn *c, const char *group, described *d)
{
    /* v2 on: a null topic list asks for every committed offset. */
    int v = wire_version(c, LOGREP_API_OFFSET_FETCH, 2, 9);
    logrep_struct *rq = v < 0 ? NULL : wire_begin(c, LOGREP_API_OFFSET_FETCH, v), *rs = NULL;
    if (v < 0)
        snprintf(c->err, sizeof c->err, "%s does not support OffsetFetch v2 or later", c->addr);
    int32_t gl = (int32_t)strlen(group);
    if (rq && v >= 8) {
        lr_f_set_count(rq, LR_FN_Groups, 1);
        logrep_struct *ge = lr_f_elem(rq, LR_FN_Groups, 0);
        logrep_struct_set_bytes(ge, lr_fid(ge, LR_FN_GroupId), group, gl);
        logrep_struct_set_null(ge, lr_fid(ge, LR_FN_Topics));
    } else if (rq) {
        logrep_struct_set_bytes(rq, lr_fid(rq, LR_FN_GroupId), group, gl);
        logrep_struct_set_null(rq, lr_fid(rq, LR_FN_Topics));
    }
    if (rq)
        rs = wire_call(c);
    if (!rs) {
        fprintf(stderr, "Error: OffsetFetch: %s\n", c->err);
        return CALL_FAILED;
    }
    logrep_struct *top = rs;
    if (v >= 8) {
        if (lr_f_count(rs, LR_FN_Groups) < 1) {
            fprintf(stderr, "Error: OffsetFetch: %s answered without group '%s'\n", c->addr, group);
            return CALL_FAILED;
        }
        top = lr_f_elem(rs, LR_FN_Groups, 0);
    }
    int64_t ec = lr_f_int(top, LR_FN_ErrorCode);
    if (retriable(ec))
        return CALL_RETRY;
    if (ec && ec != LOGREP_ERR_GROUP_ID_NOT_FOUND) {
        fprintf(stderr, "Error: OffsetFetch of '%s': %s\n", group, logrep_err_name((int)ec));
        return CALL_FAILED;
    }
    free(d->off);
    d->off = NULL;
    d->noff = 0;
    for (int32_t i = 0; i < lr_f_count(top, LR_FN_Topics); i++) {
        logrep_struct *t = lr_f_elem(top, LR_FN_Topics, i);
        char *name = keep_field(g, t, LR_FN_Name);
        int32_t np = lr_f_count(t, LR_FN_Partitions);
        if (!name)
            return call_oom();
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, j);
            int64_t off = lr_f_int(p, LR_FN_CommittedOffset);
            int32_t pi = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
            if (lr_f_int(p, LR_FN_ErrorCode) || off < 0 || pi < 0)
                continue;
            committed *n = realloc(d->off, (d->noff + 1) * sizeof *n);
            if (!n)
                return call_oom();
            d->off = n;
            d->off[d->noff++] = (committed){name, pi, off, 0};
        }
    }
    return CALL_DONE;
}

/* DescribeGroups then OffsetFetch on the group's coordinator, looking it
 * up again when it moved. 0, or the exit status after saying why. */
static int describe_group(ctx *g, const char *group, described *d)
{
    int64_t deadline = mono_ms() + g->timeout_ms;
    int rc = 0, step = 0;
    broker *k = NULL; /* g->brokers is not reallocated until it is looked up again */
    while (step < 2) {
        if (!k && !(k = find_coordinator(g, group, deadline)))
            return 2;
        wire_conn *c = broker_conn(g, k);
        if (!c)
            return 2;
        int r = step == 0 ? describe_call(g, c, group, d, &rc) : offsets_call(g, c, group, d);
        if (r == CALL_FAILED)
            return 2;
        if (r == CALL_DONE) {
            step++;
            if (d->state && strcmp(d->state, "Dead") == 0)
                return rc;
            continue;
        }
        k = NULL;
        if (mono_ms() + RETRY_MS >= deadline) {
            fprintf(stderr, "Error: group '%s': the coordinator was not ready within %d ms\n",
                    group, g->timeout_ms);
            return 2;
        }
        sleep_ms(RETRY_MS);
    }
    return rc;
}

/* ListOffsets (latest) for every known partition, one request a leader;
 * a partition that fails keeps log_end -1 ("-"). */
static void log_end_offsets(ctx *g)
{
    for (size_t b = 0; b < g->nbrokers; b++) {
        broker *k = &g->brokers[b];
        size_t mine = 0;
        for (size_t i = 0; i < g->nparts; i++)
            mine += g->parts[i].leader == k->id;
        if (!mine)
            continue;
        wire_conn *c = broker_conn(g, k);
        int v = c ? wire_version(c, LOGREP_API_LIST_OFFSETS, 1, 10) : -1;
        logrep_struct *rq = v < 0 ? NULL : wire_begin(c, LOGREP_API_LIST_OFFSETS, v);
        if (!rq)
            continue;
        lr_f_set_int(rq, LR_FN_ReplicaId, -1);
        lr_f_set_int(rq, LR_FN_TimeoutMs, g->timeout_ms);
        /* One topic entry per partition run: parts is sorted by topic. */
        int32_t nt = 0;
        for (size_t i = 0; i < g->nparts; i++)
            if (g->parts[i].leader == k->id)
                nt++;
        if (lr_f_set_count(rq, LR_FN_Topics, nt) != LOGREP_OK)
            continue;
        int32_t t = 0;
        for (size_t i = 0; i < g->nparts; i++) {
            if (g->parts[i].leader != k->id)
                continue;
            logrep_struct *te = lr_f_elem(rq, LR_FN_Topics, t++);
            logrep_struct_set_bytes(te, lr_fid(te, LR_FN_Name), g->parts[i].topic,
                                    (int32_t)strlen(g->parts[i].topic));
            lr_f_set_count(te, LR_FN_Partitions, 1);
            logrep_struct *pe = lr_f_elem(te, LR_FN_Partitions, 0);
            lr_f_set_int(pe, LR_FN_PartitionIndex, g->parts[i].partition);
            lr_f_set_int(pe, LR_FN_CurrentLeaderEpoch, -1);
            lr_f_set_int(pe, LR_FN_Timestamp, -1); /* latest */
        }
        logrep_struct *rs = wire_call(c);
        if (!rs) {
            fprintf(stderr, "Warning: ListOffsets: %s\n", c->err);
            continue;
        }
        for (int32_t i = 0; i < lr_f_count(rs, LR_FN_Topics); i++) {
            logrep_struct *te = lr_f_elem(rs, LR_FN_Topics, i);
            char *name = keep_field(g, te, LR_FN_Name);
            for (int32_t j = 0; name && j < lr_f_count(te, LR_FN_Partitions); j++) {
                logrep_struct *pe = lr_f_elem(te, LR_FN_Partitions, j);
                part *p = part_find(g, name, (int32_t)lr_f_int(pe, LR_FN_PartitionIndex));
                if (p && p->leader == k->id && !lr_f_int(pe, LR_FN_ErrorCode))
                    p->log_end = lr_f_int(pe, LR_FN_Offset);
            }
        }
    }
}

static int committed_cmp(const void *a, const void *b)
{
    const committed *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

static int member_cmp(const void *a, const void *b)
{
    const member *x = *(const member *const *)a, *y = *(const member *const *)b;
    if (x->a.ntps != y->a.ntps)
        return x->a.ntps < y->a.ntps ? 1 : -1;
    return (x > y) - (x < y); /* stable: the coordinator's order */
}

static int add_topic(char ***topics, size_t *n, char *t)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*topics)[i], t) == 0)
            return 0;
    char **nt = realloc(*topics, (*n + 1) * sizeof *nt);
    if (!nt)
        return -1;
    *topics = nt;
    (*topics)[(*n)++] = t;
    return 0;
}

/* The rows of a described group (members with most partitions first,
 * then committed partitions nobody is assigned), with log end offsets. */
static int build_rows(ctx *g, const char *group, described *d, grp_row **rows_out, size_t *nrows)
{
    size_t n = d->noff, ni = 0, nt = 0;
    for (size_t i = 0; i < d->nm; i++)
        n += d->m[i].a.ntps;
    grp_row *rows = calloc(n ? n : 1, sizeof *rows);
    member **order = calloc(d->nm ? d->nm : 1, sizeof *order);
    char **topics = NULL;
    int rc = 0;
    if (!rows || !order) {
        oom();
        rc = 2;
        goto out;
    }
    if (d->noff > 1)
        qsort(d->off, d->noff, sizeof *d->off, committed_cmp);
    for (size_t i = 0; i < d->nm; i++)
        order[i] = &d->m[i];
    if (d->nm > 1)
        qsort(order, d->nm, sizeof *order, member_cmp);
    for (size_t i = 0; i < d->nm; i++) {
        member *m = order[i];
        size_t first = ni;
        for (size_t j = 0; j < m->a.ntps; j++) {
            char *t = keep(g, m->a.tps[j].topic, m->a.tps[j].topic_len);
            if (!t) {
                oom();
                rc = 2;
                goto out;
            }
            committed key = {t, m->a.tps[j].partition, 0, 0};
            committed *co = d->noff ? bsearch(&key, d->off, d->noff, sizeof key, committed_cmp)
                                    : NULL;
            if (co)
                co->assigned = 1;
            rows[ni++] = (grp_row){group, t, key.partition, co ? co->offset : -1, -1,
                                   m->id, m->host, m->client};
        }
        grp_sort_rows(rows + first, ni - first);
    }
    for (size_t i = 0; i < d->noff; i++)
        if (!d->off[i].assigned)
            rows[ni++] = (grp_row){group, d->off[i].topic, d->off[i].partition, d->off[i].offset,
                                   -1, NULL, NULL, NULL};
    for (size_t i = 0; i < ni; i++)
        if (add_topic(&topics, &nt, (char *)rows[i].topic)) {
            oom();
            rc = 2;
            goto out;
        }
    if (nt) {
        rc = ctx_metadata(g, topics, nt);
        if (rc)
            goto out;
        log_end_offsets(g);
        for (size_t i = 0; i < ni; i++) {
            part *p = part_find(g, rows[i].topic, rows[i].partition);
            rows[i].log_end = p ? p->log_end : -1;
        }
    }
out:
    free(order);
    free(topics);
    if (rc) {
        free(rows);
        return rc;
    }
    *rows_out = rows;
    *nrows = ni;
    return 0;
}

int describe_one(ctx *g, const char *group)
{
    described d = {0};
    int rc = describe_group(g, group, &d);
    if (rc == 2) {
        described_free(&d);
        return rc;
    }
    if (!d.state || strcmp(d.state, "Dead") == 0) {
        fprintf(stderr, "\nError: Consumer group '%s' does not exist.\n", group);
        described_free(&d);
        return 1;
    }
    if (d.protocol_type && d.protocol_type[0] && strcmp(d.protocol_type, "consumer") != 0) {
        fprintf(stderr, "\nError: Group '%s' is not a consumer group (protocol type '%s').\n",
                group, d.protocol_type);
        described_free(&d);
        return 1;
    }
    if (strcmp(d.state, "Empty") == 0)
        fprintf(stderr, "\nConsumer group '%s' has no active members.\n", group);
    else if (strcmp(d.state, "PreparingRebalance") == 0 ||
             strcmp(d.state, "CompletingRebalance") == 0)
        fprintf(stderr, "\nWarning: Consumer group '%s' is rebalancing.\n", group);
    grp_row *rows = NULL;
    size_t n = 0;
    int br = build_rows(g, group, &d, &rows, &n);
    if (br)
        rc = br;
    else if (n)
        grp_print_describe(stdout, rows, n);
    fflush(stdout);
    free(rows);
    described_free(&d);
    return rc;
}

