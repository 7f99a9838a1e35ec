/* AlterConfigs and IncrementalAlterConfigs on the controller (a broker
 * forwards them, as CreateTopics): one answer per resource, with Kafka's
 * error code and message. TOPIC resources go to lr_ctl_alter_topic_configs;
 * dynamic broker configs and broker logger levels are not supported and
 * say so; a resource given twice and other resource types are refused as
 * Kafka's ConfigAdminManager refuses them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "node/node_int.h"

/* Kafka's QuorumController bound on the records one operation may write. */
#define LR_MAX_RECORDS_PER_OP 10000

enum { RES_TOPIC = 2, RES_BROKER = 4, RES_BROKER_LOGGER = 8 };

typedef struct res_key {
    int8_t type;
    const char *name;
    int32_t len;
    int32_t i;
} res_key;

static int by_key(const void *a, const void *b)
{
    const res_key *x = a, *y = b;
    if (x->type != y->type)
        return x->type - y->type;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, (size_t)(x->len > 0 ? x->len : 0));
}

/* dup[i] = 1 for every resource whose (type, name) appears more than once. */
static int mark_duplicates(logrep_node *n, logrep_struct *rq, int32_t nr, uint8_t *dup)
{
    res_key *k = lr_calloc(&n->alloc, nr ? (size_t)nr : 1, sizeof *k);
    if (!k)
        return LOGREP_ERR__NOMEM;
    for (int32_t i = 0; i < nr; i++) {
        logrep_struct *q = lr_f_elem(rq, LR_FN_Resources, i);
        k[i].type = (int8_t)lr_f_int(q, LR_FN_ResourceType);
        k[i].name = "";
        k[i].len = 0;
        lr_f_str(q, LR_FN_ResourceName, &k[i].name, &k[i].len);
        k[i].i = i;
    }
    qsort(k, (size_t)nr, sizeof *k, by_key);
    for (int32_t i = 0; i + 1 < nr; i++)
        if (by_key(&k[i], &k[i + 1]) == 0)
            dup[k[i].i] = dup[k[i + 1].i] = 1;
    lr_free(&n->alloc, k, (nr ? (size_t)nr : 1) * sizeof *k);
    return 0;
}

/* Copies a wire string NUL-terminated to *at; NULL for a null string;
 * *bad set when it holds a NUL. */
static const char *take(char **at, const char *p, int32_t len, int *bad)
{
    if (!p || len < 0)
        return NULL;
    if (memchr(p, 0, (size_t)len))
        *bad = 1;
    char *s = *at;
    memcpy(s, p, (size_t)len);
    s[len] = 0;
    *at += (size_t)len + 1;
    return s;
}

/* One TOPIC resource into the controller. */
static int alter_topic(logrep_node *n, logrep_struct *q, int mode, int validate_only,
                       char *why, size_t cap)
{
    int32_t nc = lr_f_count(q, LR_FN_Configs);
    if (nc < 0)
        nc = 0;
    size_t room = 1;
    const char *p;
    int32_t len;
    if (lr_f_str(q, LR_FN_ResourceName, &p, &len) == 0 && len > 0)
        room += (size_t)len;
    for (int32_t k = 0; k < nc; k++) {
        logrep_struct *ce = lr_f_elem(q, LR_FN_Configs, k);
        int32_t l1 = 0, l2 = 0;
        lr_f_str(ce, LR_FN_Name, &p, &l1);
        lr_f_str(ce, LR_FN_Value, &p, &l2);
        room += (size_t)(l1 > 0 ? l1 : 0) + (size_t)(l2 > 0 ? l2 : 0) + 2;
    }
    lr_ctl_config_op *ops = lr_calloc(&n->alloc, nc ? (size_t)nc : 1, sizeof *ops);
    char *strs = lr_malloc(&n->alloc, room), *at = strs;
    int err = ops && strs ? 0 : LOGREP_ERR__NOMEM;
    int bad = 0;
    const char *topic = "";
    if (!err) {
        strs[0] = 0;
        lr_f_str(q, LR_FN_ResourceName, &p, &len);
        topic = p && len >= 0 ? take(&at, p, len, &bad) : strs;
    }
    for (int32_t k = 0; !err && k < nc; k++) {
        logrep_struct *ce = lr_f_elem(q, LR_FN_Configs, k);
        lr_f_str(ce, LR_FN_Name, &p, &len);
        ops[k].name = take(&at, p, len, &bad);
        if (!ops[k].name)
            ops[k].name = "";
        lr_f_str(ce, LR_FN_Value, &p, &len);
        ops[k].value = take(&at, p, len, &bad);
        ops[k].op = mode == LR_CTL_ALTER_INCREMENTAL ? (int)lr_f_int(ce, LR_FN_ConfigOperation)
                                                     : LR_CTL_CFG_SET;
    }
    if (!err && bad) {
        snprintf(why, cap, "A topic name, config name or value holds a NUL");
        err = LOGREP_ERR_INVALID_CONFIG;
    } else if (!err && lr_nctl_failed(n)) {
        err = LOGREP_ERR_NOT_CONTROLLER;
    } else if (!err) {
        err = lr_ctl_alter_topic_configs(lr_nctl_ctl(n), topic, ops, (size_t)nc, mode,
                                         validate_only, why, cap);
    }
    lr_free(&n->alloc, ops, (nc ? (size_t)nc : 1) * sizeof *ops);
    lr_free(&n->alloc, strs, room);
    return err;
}

/* The answer for one resource; a negative return is the request's failure. */
static int alter_one(logrep_node *n, logrep_struct *q, int api, int validate_only, int dup,
                     char *why, size_t cap)
{
    int type = (int)lr_f_int(q, LR_FN_ResourceType);
    int incremental = api == LOGREP_API_INCREMENTAL_ALTER_CONFIGS;
    why[0] = 0;
    if (dup) {
        snprintf(why, cap, "Each resource must appear at most once.");
        return LOGREP_ERR_INVALID_REQUEST;
    }
    if (type == RES_TOPIC)
        return alter_topic(n, q, incremental ? LR_CTL_ALTER_INCREMENTAL : LR_CTL_ALTER_REPLACE,
                           validate_only, why, cap);
    if (type == RES_BROKER) {
        snprintf(why, cap, "Dynamic broker configs are not supported: set them in the "
                           "broker's properties");
        return LOGREP_ERR_INVALID_REQUEST;
    }
    if (type == RES_BROKER_LOGGER && incremental) {
        snprintf(why, cap, "Changing BROKER_LOGGER levels is not supported");
        return LOGREP_ERR_INVALID_REQUEST;
    }
    snprintf(why, cap, "Unknown resource type %d", type);
    return LOGREP_ERR_INVALID_REQUEST;
}

static void answer(logrep_struct *rr, logrep_struct *q, int err, const char *why)
{
    const char *p;
    int32_t len;
    lr_f_set_int(rr, LR_FN_ErrorCode, lr_wire_code(err));
    if (err) {
        const char *msg = why && why[0] ? why : logrep_err_str(err);
        lr_f_set_str(rr, LR_FN_ErrorMessage, msg, (int32_t)strlen(msg));
    }
    lr_f_set_int(rr, LR_FN_ResourceType, lr_f_int(q, LR_FN_ResourceType));
    lr_f_str(q, LR_FN_ResourceName, &p, &len);
    lr_f_set_str(rr, LR_FN_ResourceName, p ? p : "", p && len > 0 ? len : 0);
}

/* Every config entry may write a record: more than Kafka's bound in one
 * request refuses it whole, before any per-resource work. */
static int64_t entries(logrep_struct *rq, int32_t nr)
{
    int64_t total = nr;
    for (int32_t i = 0; i < nr && total <= LR_MAX_RECORDS_PER_OP; i++) {
        int32_t nc = lr_f_count(lr_f_elem(rq, LR_FN_Resources, i), LR_FN_Configs);
        total += nc > 0 ? nc : 0;
    }
    return total;
}

static int alter_configs(logrep_node *n, const lr_req *r, int api)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int validate_only = (int)lr_f_int(rq, LR_FN_ValidateOnly);
    int32_t nr = lr_f_count(rq, LR_FN_Resources);
    if (nr < 0)
        nr = 0;
    int too_many = entries(rq, nr) > LR_MAX_RECORDS_PER_OP;
    uint8_t *dup = too_many ? NULL : lr_calloc(&n->alloc, nr ? (size_t)nr : 1, 1);
    int err = too_many || dup ? 0 : LOGREP_ERR__NOMEM;
    if (!err && dup)
        err = mark_duplicates(n, rq, nr, dup);
    if (!err)
        err = lr_req_init(r);
    logrep_struct *rs = err ? NULL : logrep_msg_root(r->resp);
    if (rs)
        err = lr_f_set_count(rs, LR_FN_Responses, nr);
    char why[256];
    for (int32_t i = 0; !err && i < nr; i++) {
        logrep_struct *q = lr_f_elem(rq, LR_FN_Resources, i);
        int e = LOGREP_ERR_POLICY_VIOLATION;
        snprintf(why, sizeof why, "Unable to perform excessively large batch operation");
        if (!too_many)
            e = alter_one(n, q, api, validate_only, dup[i], why, sizeof why);
        if (e < 0 && e != LOGREP_ERR__INVALID_ARG)
            err = e;
        else
            answer(lr_f_elem(rs, LR_FN_Responses, i), q, e, why);
    }
    lr_free(&n->alloc, dup, nr ? (size_t)nr : 1);
    return err ? err : lr_req_answer(n, r);
}

int lr_ctl_api_alter_configs(logrep_node *n, const lr_req *r)
{
    return alter_configs(n, r, LOGREP_API_ALTER_CONFIGS);
}

int lr_ctl_api_incremental_alter_configs(logrep_node *n, const lr_req *r)
{
    return alter_configs(n, r, LOGREP_API_INCREMENTAL_ALTER_CONFIGS);
}
