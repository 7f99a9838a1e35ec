/* DescribeConfigs as Kafka answers it: TOPIC resources list every topic
 * config with its effective value and where it comes from (the topic, a
 * cluster-wide dynamic default, the broker's properties, or the default);
 * BROKER resources this broker's properties ("" for the cluster-wide
 * dynamic defaults); BROKER_LOGGER this broker's log level. Requested keys
 * filter the answer; synonyms, types and documentation are given when
 * asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/topic_config.h"
#include "node/node_int.h"

/* DescribeConfigs ConfigSource. */
enum {
    SRC_TOPIC = 1,
    SRC_DYNAMIC_DEFAULT = 3,
    SRC_STATIC_BROKER = 4,
    SRC_DEFAULT = 5,
    SRC_BROKER_LOGGER = 6
};

#define RESOURCE_BROKER_LOGGER 8

/* The library's properties: type and bound, for ConfigType. */
#define LR_CONF_PROP(id, name, type, idef, min, max, sdef, allowed, doc) {type, (max) > INT32_MAX},
static const struct {
    int type;
    int is_long;
} props[] = {
#include "base/conf_props.h"
};
#undef LR_CONF_PROP

typedef struct syn {
    const char *name, *value;
    int8_t source;
} syn;

typedef struct out {
    logrep_node *n;
    const logrep_struct *q; /* the requested resource */
    logrep_struct *r;       /* its result; NULL while counting */
    int32_t k;
    int synonyms, docs;
} out;

static int wanted(const out *o, const char *name)
{
    int f = lr_fid(o->q, LR_FN_ConfigurationKeys);
    if (logrep_struct_is_null(o->q, f))
        return 1;
    size_t len = strlen(name);
    for (int32_t i = 0; i < logrep_struct_count(o->q, f); i++) {
        const uint8_t *p;
        int32_t l;
        if (logrep_struct_elem_bytes(o->q, f, i, &p, &l) == 0 && p && l >= 0 &&
            (size_t)l == len && memcmp(p, name, len) == 0)
            return 1;
    }
    return 0;
}

static void set_s(logrep_struct *s, lr_fname f, const char *v)
{
    lr_f_set_str(s, f, v, (int32_t)strlen(v));
}

/* One config: syns[0] is the effective value and its source, the rest
 * the values it overrides, in precedence order (Kafka's synonyms). */
static void emit(out *o, const char *name, int8_t type, const char *doc, const syn *syns, int ns)
{
    if (!wanted(o, name))
        return;
    if (!o->r) {
        o->k++;
        return;
    }
    logrep_struct *ce = lr_f_elem(o->r, LR_FN_Configs, o->k++);
    set_s(ce, LR_FN_Name, name);
    set_s(ce, LR_FN_Value, syns[0].value);
    lr_f_set_int(ce, LR_FN_ReadOnly, 0);
    lr_f_set_int(ce, LR_FN_IsDefault, syns[0].source == SRC_DEFAULT);
    lr_f_set_int(ce, LR_FN_ConfigSource, syns[0].source);
    lr_f_set_int(ce, LR_FN_IsSensitive, 0);
    lr_f_set_int(ce, LR_FN_ConfigType, type);
    if (o->docs && doc)
        set_s(ce, LR_FN_Documentation, doc);
    else
        logrep_struct_set_null(ce, lr_fid(ce, LR_FN_Documentation));
    lr_f_set_count(ce, LR_FN_Synonyms, o->synonyms ? ns : 0);
    for (int i = 0; o->synonyms && i < ns; i++) {
        logrep_struct *se = lr_f_elem(ce, LR_FN_Synonyms, i);
        set_s(se, LR_FN_Name, syns[i].name);
        set_s(se, LR_FN_Value, syns[i].value);
        lr_f_set_int(se, LR_FN_Source, syns[i].source);
    }
}

/* The broker's value of a library property and its default; 0 when the
 * library has no such property. */
static int broker_value(const logrep_node *n, const char *name, char *v, char *d, size_t cap)
{
    if (logrep_conf_get(n->conf, name, v, cap, NULL) != LOGREP_OK)
        return 0;
    logrep_conf_get(NULL, name, d, cap, NULL);
    return 1;
}

/* A topic config's values in precedence order: the topic's override ov
 * (NULL: none), a cluster-wide dynamic default, the broker's property,
 * the default. v and dv (cap bytes each) hold the broker's values. */
static int topic_synonyms(const logrep_node *n, const lr_topic_config_def *d, const char *ov,
                          syn s[4], char *v, char *dv, size_t cap)
{
    const char *bname = d->broker ? d->broker : d->name;
    int ns = 0;
    if (ov)
        s[ns++] = (syn){d->name, ov, SRC_TOPIC};
    const char *cl = lr_md_cluster_config(n->md.img, d->name);
    if (cl)
        s[ns++] = (syn){bname, cl, SRC_DYNAMIC_DEFAULT};
    if (broker_value(n, d->name, v, dv, cap)) {
        if (strcmp(v, dv) != 0)
            s[ns++] = (syn){bname, v, SRC_STATIC_BROKER};
        s[ns++] = (syn){bname, dv, SRC_DEFAULT};
    } else {
        s[ns++] = (syn){bname, d->dflt, SRC_DEFAULT};
    }
    return ns;
}

static void describe_topic(out *o, const lr_md_topic *t)
{
    for (size_t i = 0; i < lr_topic_config_count(); i++) {
        const lr_topic_config_def *d = lr_topic_config_at(i);
        char v[256], dv[256];
        syn s[4];
        int ns = topic_synonyms(o->n, d, lr_md_topic_config(t, d->name), s, v, dv, sizeof v);
        emit(o, d->name, d->type, d->doc, s, ns);
    }
}

int lr_create_topic_configs(logrep_node *n, logrep_struct *rt, const lr_ctl_config *cfg,
                            size_t n_cfg)
{
    int err = lr_f_set_count(rt, LR_FN_Configs, (int32_t)lr_topic_config_count());
    for (size_t i = 0; !err && i < lr_topic_config_count(); i++) {
        const lr_topic_config_def *d = lr_topic_config_at(i);
        const char *ov = NULL;
        for (size_t k = 0; k < n_cfg; k++)
            if (cfg[k].name && cfg[k].value && strcmp(cfg[k].name, d->name) == 0)
                ov = cfg[k].value; /* the last one wins, as in the record */
        char v[256], dv[256];
        syn s[4];
        topic_synonyms(n, d, ov, s, v, dv, sizeof v);
        logrep_struct *ce = lr_f_elem(rt, LR_FN_Configs, (int32_t)i);
        set_s(ce, LR_FN_Name, d->name);
        set_s(ce, LR_FN_Value, s[0].value);
        lr_f_set_int(ce, LR_FN_ReadOnly, 0);
        lr_f_set_int(ce, LR_FN_ConfigSource, s[0].source);
        lr_f_set_int(ce, LR_FN_IsSensitive, 0);
    }
    return err;
}

static int is_property(const char *name)
{
    char b[2];
    return logrep_conf_get(NULL, name, b, sizeof b, NULL) == LOGREP_OK;
}

/* This broker's properties, by Kafka's broker names. */
static void describe_broker(out *o)
{
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        const char *name, *doc;
        if (logrep_conf_property(i, &name, &doc) != LOGREP_OK)
            continue;
        const lr_topic_config_def *d = lr_topic_config_find(name);
        const char *bname = d && d->broker && !is_property(d->broker) ? d->broker : name;
        int8_t type = d ? d->type
                        : props[i].type == LR_CONF_BOOL ? LR_TCFG_BOOLEAN
                        : props[i].type == LR_CONF_STR  ? LR_TCFG_STRING
                        : props[i].is_long              ? LR_TCFG_LONG
                                                        : LR_TCFG_INT;
        char v[512], dv[512];
        broker_value(o->n, name, v, dv, sizeof v);
        syn s[2];
        int ns = 0;
        if (strcmp(v, dv) != 0)
            s[ns++] = (syn){bname, v, SRC_STATIC_BROKER};
        s[ns++] = (syn){bname, dv, SRC_DEFAULT};
        emit(o, bname, type, doc, s, ns);
    }
}

/* BROKER "": the cluster-wide dynamic defaults. */
static void describe_cluster(out *o)
{
    for (size_t i = 0; i < lr_topic_config_count(); i++) {
        const lr_topic_config_def *d = lr_topic_config_at(i);
        const char *bname = d->broker ? d->broker : d->name;
        const char *cl = lr_md_cluster_config(o->n->md.img, d->name);
        if (!cl)
            cl = lr_md_cluster_config(o->n->md.img, bname);
        if (cl) {
            syn s = {bname, cl, SRC_DYNAMIC_DEFAULT};
            emit(o, bname, d->type, d->doc, &s, 1);
        }
    }
}

static void describe_logger(out *o)
{
    int l = o->n->logger.level;
    const char *level = l <= LOGREP_LEVEL_ERROR  ? "ERROR"
                        : l <= LOGREP_LEVEL_WARN  ? "WARN"
                        : l <= LOGREP_LEVEL_INFO  ? "INFO"
                        : l <= LOGREP_LEVEL_DEBUG ? "DEBUG"
                                                : "TRACE";
    syn s = {"root", level, SRC_BROKER_LOGGER};
    emit(o, "root", 0, NULL, &s, 1);
}

/* 1 when [p, p + len) is this broker's id in decimal. */
static int is_my_id(const logrep_node *n, const char *p, int32_t len)
{
    char b[16];
    if (len <= 0 || len >= (int32_t)sizeof b)
        return 0;
    memcpy(b, p, (size_t)len);
    b[len] = 0;
    char *end;
    long v = strtol(b, &end, 10);
    return !*end && b[0] != '+' && b[0] != ' ' && v == n->id;
}

/* self: a BROKER resource naming this broker (else the cluster). */
static void run(out *o, int8_t type, const lr_md_topic *t, int self)
{
    if (type == LR_MD_RESOURCE_TOPIC)
        describe_topic(o, t);
    else if (type == RESOURCE_BROKER_LOGGER)
        describe_logger(o);
    else if (self)
        describe_broker(o);
    else
        describe_cluster(o);
}

int lr_api_describe_configs(logrep_node *n, const lr_req *req)
{
    logrep_struct *rq = logrep_msg_root(req->msg);
    int err = lr_req_init(req);
    if (err)
        return err;
    int version = logrep_msg_version(req->msg);
    logrep_struct *rs = logrep_msg_root(req->resp);
    int32_t nr = lr_f_count(rq, LR_FN_Resources);
    err = lr_f_set_count(rs, LR_FN_Results, nr < 0 ? 0 : nr);
    for (int32_t i = 0; !err && i < nr; i++) {
        logrep_struct *q = lr_f_elem(rq, LR_FN_Resources, i);
        logrep_struct *r = lr_f_elem(rs, LR_FN_Results, i);
        int8_t type = (int8_t)lr_f_int(q, LR_FN_ResourceType);
        const char *name;
        int32_t len;
        lr_f_str(q, LR_FN_ResourceName, &name, &len);
        lr_f_set_int(r, LR_FN_ResourceType, type);
        if (!name || len < 0)
            len = 0;
        lr_f_set_str(r, LR_FN_ResourceName, name ? name : "", len);
        const char *why = NULL;
        int16_t code = 0;
        const lr_md_topic *t = NULL;
        if (type == LR_MD_RESOURCE_TOPIC) {
            char tn[LR_MD_MAX_TOPIC_NAME + 1];
            if (len <= LR_MD_MAX_TOPIC_NAME) {
                memcpy(tn, name, (size_t)len);
                tn[len] = 0;
                t = lr_md_topic_by_name(n->md.img, tn);
            }
            if (!t)
                code = LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        } else if (type == LR_MD_RESOURCE_BROKER) {
            if (len > 0 && !is_my_id(n, name, len))
                code = LOGREP_ERR_INVALID_REQUEST, why = "Unexpected broker id";

        } else if (type == RESOURCE_BROKER_LOGGER) {
            if (!is_my_id(n, name, len))
                code = LOGREP_ERR_INVALID_REQUEST, why = "Unexpected broker id";
        } else {
            code = LOGREP_ERR_INVALID_REQUEST, why = "Unsupported resource type";
        }
        lr_f_set_int(r, LR_FN_ErrorCode, code);
        if (why)
            set_s(r, LR_FN_ErrorMessage, why);
        if (code) {
            lr_f_set_count(r, LR_FN_Configs, 0);
            continue;
        }
        out o = {n, q, NULL, 0, version >= 1 && lr_f_int(rq, LR_FN_IncludeSynonyms),
                 version >= 3 && lr_f_int(rq, LR_FN_IncludeDocumentation)};
        run(&o, type, t, len > 0);
        err = lr_f_set_count(r, LR_FN_Configs, o.k);
        o.r = r;
        o.k = 0;
        if (!err)
            run(&o, type, t, len > 0);
    }
    return err ? err : lr_req_answer(n, req);
}
