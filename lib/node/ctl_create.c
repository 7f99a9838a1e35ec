/* CreateTopics on the controller: every check Kafka makes, also for
 * validate_only; configs and manual assignments of any number and size
 * the request carries (it is bounded by socket.request.max.bytes); and
 * Kafka's bound on the records one operation may write. An in-process
 * creation on the controller's node (logrep_node_create_topic) takes the
 * same steps for its one topic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "node/node_int.h"

/* Kafka's QuorumController refuses an operation writing more records. */
#define LR_MAX_RECORDS_PER_OP 10000

typedef struct ct_topic {
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    int err;
    char why[160];
    lr_ctl_create_topic_req req;
    lr_ctl_config *cfg;
    lr_ctl_assignment *asg;
    int32_t *ids;
    char *strs;
    size_t n_ids, strs_len;
    int32_t np, rf;
} ct_topic;

static int set_err(ct_topic *t, int err, const char *why)
{
    t->err = err;
    snprintf(t->why, sizeof t->why, "%s", why);
    return err;
}

/* Copies [p, p + len) NUL-terminated into the topic's string area; NULL
 * for a null string or one holding a NUL (Kafka could not have meant it). */
static char *take(ct_topic *t, size_t *at, const char *p, int32_t len)
{
    if (!p || len < 0 || memchr(p, 0, (size_t)len))
        return NULL;
    char *s = t->strs + *at;
    memcpy(s, p, (size_t)len);
    s[len] = 0;
    *at += (size_t)len + 1;
    return s;
}

static int parse_configs(logrep_node *n, logrep_struct *qt, ct_topic *t)
{
    int32_t nc = lr_f_count(qt, LR_FN_Configs);
    if (nc <= 0)
        return 0;
    size_t total = 0;
    for (int32_t k = 0; k < nc; k++) {
        logrep_struct *ce = lr_f_elem(qt, LR_FN_Configs, k);
        const char *p;
        int32_t l1 = 0, l2 = 0;
        lr_f_str(ce, LR_FN_Name, &p, &l1);
        lr_f_str(ce, LR_FN_Value, &p, &l2);
        total += (size_t)(l1 > 0 ? l1 : 0) + (size_t)(l2 > 0 ? l2 : 0) + 2;
    }
    t->cfg = lr_calloc(&n->alloc, (size_t)nc, sizeof *t->cfg);
    t->strs = lr_malloc(&n->alloc, total);
    if (!t->cfg || !t->strs)
        return LOGREP_ERR__NOMEM;
    t->strs_len = total;
    size_t at = 0;
    for (int32_t k = 0; k < nc; k++) {
        logrep_struct *ce = lr_f_elem(qt, LR_FN_Configs, k);
        const char *cn, *cv;
        int32_t cnl, cvl;
        lr_f_str(ce, LR_FN_Name, &cn, &cnl);
        lr_f_str(ce, LR_FN_Value, &cv, &cvl);
        t->cfg[k].name = take(t, &at, cn, cnl);
        t->cfg[k].value = take(t, &at, cv, cvl);
        if (!t->cfg[k].name || (cv && cvl >= 0 && !t->cfg[k].value))
            return set_err(t, LOGREP_ERR_INVALID_CONFIG, "Config name or value holds a NUL or is null");
    }
    t->req.configs = t->cfg;
    t->req.n_configs = (size_t)nc;
    return 0;
}

static int parse_assignments(logrep_node *n, logrep_struct *qt, ct_topic *t)
{
    int32_t na = lr_f_count(qt, LR_FN_Assignments);
    if (na <= 0)
        return 0;
    size_t total = 0;
    for (int32_t k = 0; k < na; k++) {
        int32_t nb = lr_f_count(lr_f_elem(qt, LR_FN_Assignments, k), LR_FN_BrokerIds);
        total += nb > 0 ? (size_t)nb : 0;
    }
    t->asg = lr_calloc(&n->alloc, (size_t)na, sizeof *t->asg);
    t->ids = lr_calloc(&n->alloc, total ? total : 1, sizeof *t->ids);
    if (!t->asg || !t->ids)
        return LOGREP_ERR__NOMEM;
    t->n_ids = total;
    size_t at = 0;
    for (int32_t k = 0; k < na; k++) {
        logrep_struct *a = lr_f_elem(qt, LR_FN_Assignments, k);
        int f = lr_fid(a, LR_FN_BrokerIds);
        int32_t nb = logrep_struct_count(a, f);
        t->asg[k].partition = (int32_t)lr_f_int(a, LR_FN_PartitionIndex);
        t->asg[k].brokers = t->ids + at;
        for (int32_t j = 0; j < nb; j++)
            t->ids[at++] = (int32_t)logrep_struct_elem_int(a, f, j);
        t->asg[k].n_brokers = nb > 0 ? (size_t)nb : 0;
    }
    t->req.assignments = t->asg;
    t->req.n_assignments = (size_t)na;
    return 0;
}

/* The topic's name and counts; 0, or the name's refusal (this entry's
 * answer, not the request's failure). */
static int topic_named(ct_topic *t, const char *p, size_t len, int32_t partitions, int32_t rf,
                       int validate_only)
{
    t->req.name = t->name;
    t->req.num_partitions = partitions;
    t->req.replication_factor = rf;
    t->req.validate_only = validate_only;
    if (p && len > LR_MD_MAX_TOPIC_NAME) {
        memcpy(t->name, p, LR_MD_MAX_TOPIC_NAME);
        t->name[LR_MD_MAX_TOPIC_NAME] = 0;
        return set_err(t, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it can't be longer than 249 characters");
    }
    if (!p || memchr(p, 0, len))
        return set_err(t, LOGREP_ERR_INVALID_TOPIC_EXCEPTION, "Topic name is illegal");
    memcpy(t->name, p, len);
    t->name[len] = 0;
    return 0;
}

static int parse_topic(logrep_node *n, logrep_struct *qt, ct_topic *t, int validate_only)
{
    const char *p;
    int32_t len;
    lr_f_str(qt, LR_FN_Name, &p, &len);
    if (topic_named(t, len >= 0 ? p : NULL, len >= 0 ? (size_t)len : 0,
                    (int32_t)lr_f_int(qt, LR_FN_NumPartitions),
                    (int32_t)lr_f_int(qt, LR_FN_ReplicationFactor), validate_only) != 0)
        return 0;
    int err = parse_configs(n, qt, t);
    if (!err)
        err = parse_assignments(n, qt, t);
    return err < 0 ? err : 0;
}

static void free_topic(logrep_node *n, ct_topic *t)
{
    lr_free(&n->alloc, t->cfg, t->req.n_configs * sizeof *t->cfg);
    lr_free(&n->alloc, t->strs, t->strs_len);
    lr_free(&n->alloc, t->asg, t->req.n_assignments * sizeof *t->asg);
    lr_free(&n->alloc, t->ids, (t->n_ids ? t->n_ids : 1) * sizeof *t->ids);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(ct_topic *const *)a)->name, (*(ct_topic *const *)b)->name);
}

/* Kafka answers every entry of a name given twice with INVALID_REQUEST. */
static int mark_duplicates(logrep_node *n, ct_topic *ts, int32_t nt)
{
    ct_topic **idx = lr_calloc(&n->alloc, (size_t)nt, sizeof *idx);
    if (!idx)
        return LOGREP_ERR__NOMEM;
    for (int32_t i = 0; i < nt; i++)
        idx[i] = &ts[i];
    qsort(idx, (size_t)nt, sizeof *idx, by_name);
    for (int32_t i = 0; i + 1 < nt; i++)
        if (!strcmp(idx[i]->name, idx[i + 1]->name) && idx[i]->name[0])
            for (int32_t j = i; j <= i + 1; j++)
                set_err(idx[j], LOGREP_ERR_INVALID_REQUEST, "Duplicate topic name");
    lr_free(&n->alloc, idx, (size_t)nt * sizeof *idx);
    return 0;
}

static int answer(logrep_node *n, const lr_req *r, logrep_struct *rt, const ct_topic *t,
                  const uint8_t id[16])
{
    lr_f_set_str(rt, LR_FN_Name, t->name, (int32_t)strlen(t->name));
    lr_f_set_int(rt, LR_FN_ErrorCode, lr_wire_code(t->err));
    logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), id);
    if (t->err) {
        const char *msg = t->why[0] ? t->why : logrep_err_str(t->err);
        lr_f_set_str(rt, LR_FN_ErrorMessage, msg, (int32_t)strlen(msg));
        lr_f_set_int(rt, LR_FN_NumPartitions, -1);
        lr_f_set_int(rt, LR_FN_ReplicationFactor, -1);
        return 0;
    }
    lr_f_set_int(rt, LR_FN_NumPartitions, t->np);
    lr_f_set_int(rt, LR_FN_ReplicationFactor, t->rf);
    /* v5+: the topic's configs as created (also for validate_only). */
    if (logrep_msg_version(r->resp) >= 5)
        return lr_create_topic_configs(n, rt, t->req.configs, t->req.n_configs);
    return 0;
}

/* More topics than the record bound: every one that could be created
 * writes two records at least, so the request cannot pass; refused before
 * any per-topic state is allocated. */
static int refuse_all(logrep_node *n, const lr_req *r, logrep_struct *rq, int32_t nt)
{
    static const char msg[] = "Unable to perform excessively large batch operation";
    int err = lr_req_init(r);
    logrep_struct *rs = err ? NULL : logrep_msg_root(r->resp);
    if (rs)
        err = lr_f_set_count(rs, LR_FN_Topics, nt);
    for (int32_t i = 0; !err && i < nt; i++) {
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Topics, i);
        const char *p;
        int32_t len;
        lr_f_str(lr_f_elem(rq, LR_FN_Topics, i), LR_FN_Name, &p, &len);
        lr_f_set_str(rt, LR_FN_Name, p ? p : "", p && len > 0 ? len : 0);
        lr_f_set_int(rt, LR_FN_ErrorCode, LOGREP_ERR_POLICY_VIOLATION);
        lr_f_set_str(rt, LR_FN_ErrorMessage, msg, (int32_t)sizeof msg - 1);
        lr_f_set_int(rt, LR_FN_NumPartitions, -1);
        lr_f_set_int(rt, LR_FN_ReplicationFactor, -1);
    }
    return err ? err : lr_req_answer(n, r);
}

/* Kafka's checks of one topic not refused yet (t->err set on a refusal),
 * adding the records it would write to *records; a local failure is
 * returned. */
static int check(struct lr_ctl *ctl, ct_topic *t, int64_t *records)
{
    if (t->err)
        return 0;
    t->err = lr_ctl_check_topic(ctl, &t->req, &t->np, &t->rf, t->why, sizeof t->why);
    if (t->err < 0 && t->err != LOGREP_ERR__INVALID_ARG)
        return t->err;
    if (!t->err)
        *records += 1 + (int64_t)t->req.n_configs + t->np;
    return 0;
}

/* Kafka's bound on the records of one operation: over it, every topic is
 * refused. */
static void bound(ct_topic *ts, int32_t nt, int64_t records)
{
    if (records > LR_MAX_RECORDS_PER_OP)
        for (int32_t i = 0; i < nt; i++)
            set_err(&ts[i], LOGREP_ERR_POLICY_VIOLATION,
                    "Unable to perform excessively large batch operation");
}

/* Creates a checked topic (unless refused or validate_only); a local
 * failure is returned. */
static int create(struct lr_ctl *ctl, ct_topic *t, uint8_t id[16])
{
    if (t->err || t->req.validate_only)
        return 0;
    t->err = lr_ctl_create_topic(ctl, &t->req, id);
    return t->err < 0 && t->err != LOGREP_ERR__INVALID_ARG ? t->err : 0;
}

int lr_ctl_create_one(logrep_node *n, const char *name, int32_t partitions, int32_t rf,
                      const char *const *names, const char *const *values, size_t n_configs,
                      int64_t now_ms)
{
    struct lr_ctl *ctl = lr_nctl_at(n, now_ms);
    ct_topic t;
    memset(&t, 0, sizeof t);
    int err = 0;
    if (topic_named(&t, name, strlen(name), partitions, rf, 0) == 0 && n_configs) {
        t.cfg = lr_calloc(&n->alloc, n_configs, sizeof *t.cfg);
        if (!t.cfg)
            return LOGREP_ERR__NOMEM;
        for (size_t k = 0; k < n_configs; k++)
            t.cfg[k] = (lr_ctl_config){names[k], values[k]};
        t.req.configs = t.cfg;
        t.req.n_configs = n_configs;
    }
    int64_t records = 0;
    err = check(ctl, &t, &records);
    if (!err) {
        bound(&t, 1, records);
        err = create(ctl, &t, NULL);
    }
    free_topic(n, &t);
    return err ? err : t.err;
}

int lr_ctl_api_create_topics(logrep_node *n, const lr_req *r)
{
    struct lr_ctl *ctl = lr_nctl_ctl(n);
    logrep_struct *rq = logrep_msg_root(r->msg);
    int validate_only = (int)lr_f_int(rq, LR_FN_validateOnly);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    if (nt < 0)
        nt = 0;
    if (nt > LR_MAX_RECORDS_PER_OP)
        return refuse_all(n, r, rq, nt);
    ct_topic *ts = lr_calloc(&n->alloc, nt ? (size_t)nt : 1, sizeof *ts);
    if (!ts)
        return LOGREP_ERR__NOMEM;
    int err = 0;
    for (int32_t i = 0; !err && i < nt; i++)
        err = parse_topic(n, lr_f_elem(rq, LR_FN_Topics, i), &ts[i], validate_only);
    if (!err)
        err = mark_duplicates(n, ts, nt);
    /* Check everything first: the records the request would write are
     * counted before any is written, as Kafka bounds them. */
    int64_t records = 0;
    for (int32_t i = 0; !err && i < nt; i++)
        err = check(ctl, &ts[i], &records);
    if (!err)
        bound(ts, nt, records);
    if (!err)
        err = lr_req_init(r);
    logrep_struct *rs = err ? NULL : logrep_msg_root(r->resp);
    if (rs)
        err = lr_f_set_count(rs, LR_FN_Topics, nt);
    for (int32_t i = 0; !err && i < nt; i++) {
        ct_topic *t = &ts[i];
        uint8_t id[16] = {0};
        err = create(ctl, t, id);
        int aerr = answer(n, r, lr_f_elem(rs, LR_FN_Topics, i), t, id);
        if (aerr)
            err = aerr;
    }
    for (int32_t i = 0; i < nt; i++)
        free_topic(n, &ts[i]);
    lr_free(&n->alloc, ts, (nt ? (size_t)nt : 1) * sizeof *ts);
    return err ? err : lr_req_answer(n, r);
}
