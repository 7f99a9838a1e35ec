/* The controller: AlterConfigs and IncrementalAlterConfigs of a topic, all
 * or nothing. The resulting set is computed and checked first (Kafka's
 * ConfigAdminManager preprocessing, then ControllerConfigurationValidator
 * and the topic's existence), then one ConfigRecord is written per config
 * whose value changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl_int.h"
#include "controller/topic_config.h"

typedef struct span {
    const char *p;
    size_t n;
} span;

/* A config's planned value: NULL deletes it. */
typedef struct change {
    const char *name;
    const char *value;
} change;

typedef struct plan {
    change *ch;
    size_t n, cap_ch;
    char *buf; /* computed list values and copied names */
    size_t used, cap_buf;
} plan;

/* why := pre arg post. */
static int fail(char *why, size_t cap, int err, const char *pre, const char *arg, const char *post)
{
    if (cap && why)
        snprintf(why, cap, "%s%s%s", pre, arg, post);
    return err;
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The forwarding broker's checks: names given twice, null values, unknown
 * operations. */
static int check_ops(lr_ctl *ctl, const lr_ctl_config_op *ops, size_t n, int mode, char *why,
                     size_t cap)
{
    for (size_t i = 0; i < n; i++)
        if (!ops[i].name)
            return fail(why, cap, LOGREP_ERR_INVALID_REQUEST, "Null config name", "", "");
    const char **names = lr_calloc(&ctl->alloc, n ? n : 1, sizeof *names);
    if (!names)
        return LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < n; i++)
        names[i] = ops[i].name;
    qsort(names, n, sizeof *names, by_str);
    int dup = 0;
    for (size_t i = 0; i + 1 < n; i++)
        dup |= strcmp(names[i], names[i + 1]) == 0;
    lr_free(&ctl->alloc, names, (n ? n : 1) * sizeof *names);
    if (dup)
        return fail(why, cap, LOGREP_ERR_INVALID_REQUEST, "Error due to duplicate config keys", "", "");
    for (size_t i = 0; i < n; i++)
        if (!ops[i].value && (mode == LR_CTL_ALTER_REPLACE || ops[i].op != LR_CTL_CFG_DELETE))
            return fail(why, cap, LOGREP_ERR_INVALID_REQUEST, "Null value not supported for : ",
                        ops[i].name, "");
    for (size_t i = 0; mode == LR_CTL_ALTER_INCREMENTAL && i < n; i++)
        if (ops[i].op < LR_CTL_CFG_SET || ops[i].op > LR_CTL_CFG_SUBTRACT) {
            char num[16];
            snprintf(num, sizeof num, "%d", ops[i].op);
            return fail(why, cap, LOGREP_ERR_INVALID_REQUEST, "Unknown operation type ", num, "");
        }
    return 0;
}

/* The non-empty elements of a comma-separated list; out NULL: counts. */
static size_t split(const char *s, span *out)
{
    size_t k = 0;
    for (const char *p = s; p && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n) {
            if (out)
                out[k] = (span){p, n};
            k++;
        }
        p += n + (c ? 1 : 0);
    }
    return k;
}

static int span_eq(span a, span b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* APPEND / SUBTRACT of list `arg` to `base`, written NUL-terminated at
 * dst (room for strlen(base) + strlen(arg) + 2). */
static int list_op(lr_ctl *ctl, int op, const char *base, const char *arg, char *dst)
{
    size_t nb = split(base, NULL), na = split(arg, NULL), cap = nb + na;
    span *parts = lr_calloc(&ctl->alloc, cap ? cap : 1, sizeof *parts);
    span *args = lr_calloc(&ctl->alloc, na ? na : 1, sizeof *args);
    if (!parts || !args) {
        lr_free(&ctl->alloc, parts, (cap ? cap : 1) * sizeof *parts);
        lr_free(&ctl->alloc, args, (na ? na : 1) * sizeof *args);
        return LOGREP_ERR__NOMEM;
    }
    size_t k = split(base, parts);
    split(arg, args);
    for (size_t i = 0; i < na; i++) {
        size_t j = 0;
        while (j < k && !span_eq(parts[j], args[i]))
            j++;
        if (op == LR_CTL_CFG_APPEND && j == k) {
            parts[k++] = args[i];
        } else if (op == LR_CTL_CFG_SUBTRACT && j < k) {
            memmove(&parts[j], &parts[j + 1], (k - j - 1) * sizeof *parts);
            k--;
        }
    }
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        if (i)
            dst[at++] = ',';
        memcpy(dst + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    dst[at] = 0;
    lr_free(&ctl->alloc, parts, (cap ? cap : 1) * sizeof *parts);
    lr_free(&ctl->alloc, args, (na ? na : 1) * sizeof *args);
    return 0;
}

static const char *current(const lr_md_topic *t, const char *name)
{
    return t ? lr_md_topic_config(t, name) : NULL;
}

static int listed(const lr_ctl_config_op *ops, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ops[i].name, name) == 0)
            return 1;
    return 0;
}

static void plan_free(lr_ctl *ctl, plan *pl)
{
    lr_free(&ctl->alloc, pl->ch, pl->cap_ch * sizeof *pl->ch);
    lr_free(&ctl->alloc, pl->buf, pl->cap_buf);
}

/* The change each op (and, replacing, each config not listed) makes. */
static int plan_build(lr_ctl *ctl, const lr_md_topic *t, const lr_ctl_config_op *ops, size_t n,
                      int mode, plan *pl, char *why, size_t cap)
{
    size_t nch = n, room = 1;
    for (size_t i = 0; i < n; i++) {
        const char *cur = current(t, ops[i].name);
        const lr_topic_config_def *d = lr_topic_config_find(ops[i].name);
        room += strlen(ops[i].value ? ops[i].value : "") + 2 +
                strlen(cur ? cur : d && d->dflt ? d->dflt : "");
    }
    for (uint32_t i = 0; mode == LR_CTL_ALTER_REPLACE && t && i < t->n_configs; i++)
        if (!listed(ops, n, t->configs[i].name)) {
            nch++;
            room += strlen(t->configs[i].name) + 1;
        }
    pl->cap_ch = nch ? nch : 1;
    pl->cap_buf = room;
    pl->ch = lr_calloc(&ctl->alloc, pl->cap_ch, sizeof *pl->ch);
    pl->buf = lr_malloc(&ctl->alloc, room);
    if (!pl->ch || !pl->buf)
        return LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < n; i++) {
        const lr_ctl_config_op *o = &ops[i];
        int op = mode == LR_CTL_ALTER_REPLACE ? LR_CTL_CFG_SET : o->op;
        change *c = &pl->ch[pl->n++];
        c->name = o->name;
        c->value = op == LR_CTL_CFG_DELETE ? NULL : o->value;
        if (op != LR_CTL_CFG_APPEND && op != LR_CTL_CFG_SUBTRACT)
            continue;
        const lr_topic_config_def *d = lr_topic_config_find(o->name);
        if (!d || d->type != LR_TCFG_LIST) {
            if (cap && why)
                snprintf(why, cap, "Can't %s to key %s because its type is not LIST.",
                         op == LR_CTL_CFG_APPEND ? "APPEND" : "SUBTRACT", o->name);
            return LOGREP_ERR_INVALID_CONFIG;
        }
        const char *base = current(t, o->name);
        char *dst = pl->buf + pl->used;
        int err = list_op(ctl, op, base ? base : d->dflt, o->value, dst);
        if (err)
            return err;
        c->value = dst;
        pl->used += strlen(dst) + 1;
    }
    for (uint32_t i = 0; mode == LR_CTL_ALTER_REPLACE && t && i < t->n_configs; i++) {
        const char *name = t->configs[i].name;
        if (listed(ops, n, name))
            continue;
        /* Copied: the record deleting it frees the image's string. */
        char *dst = pl->buf + pl->used;
        memcpy(dst, name, strlen(name) + 1);
        pl->used += strlen(name) + 1;
        pl->ch[pl->n++] = (change){dst, NULL};
    }
    return 0;
}

/* ControllerConfigurationValidator over the values that change (the rest
 * were checked when they were set); a delete of any name passes. */
static int plan_check(const plan *pl, char *why, size_t cap)
{
    for (size_t i = 0; i < pl->n; i++) {
        const change *c = &pl->ch[i];
        if (!c->value)
            continue;
        if (!lr_ctli_str_len_ok(c->name, 0) || !lr_ctli_str_len_ok(c->value, 1))
            return fail(why, cap, LOGREP_ERR_INVALID_CONFIG, "Config name or value too long: ",
                        c->name, "");
        int err = lr_topic_config_check(c->name, c->value, why, cap);
        if (err)
            return err;
    }
    return 0;
}

int lr_ctl_alter_topic_configs(lr_ctl *ctl, const char *topic, const lr_ctl_config_op *ops,
                               size_t n, int mode, int validate_only, char *why, size_t cap)
{
    if (!ctl || !topic || (n && !ops) ||
        (mode != LR_CTL_ALTER_INCREMENTAL && mode != LR_CTL_ALTER_REPLACE))
        return LOGREP_ERR__INVALID_ARG;
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (cap && why)
        why[0] = 0;
    int err = check_ops(ctl, ops, n, mode, why, cap);
    if (err)
        return err;
    if (!topic[0])
        return fail(why, cap, LOGREP_ERR_INVALID_REQUEST, "Default topic resources are not allowed.",
                    "", "");
    if ((err = lr_ctli_topic_name_check(topic, why, cap)) != 0)
        return err;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, topic);
    plan pl;
    memset(&pl, 0, sizeof pl);
    err = plan_build(ctl, t, ops, n, mode, &pl, why, cap);
    if (!err)
        err = plan_check(&pl, why, cap);
    if (!err && !t)
        err = fail(why, cap, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION,
                   "The topic '", topic, "' does not exist.");
    for (size_t i = 0; !err && !validate_only && i < pl.n; i++) {
        const char *cur = current(lr_md_topic_by_name(ctl->img, topic), pl.ch[i].name);
        const char *v = pl.ch[i].value;
        if (cur == v || (cur && v && strcmp(cur, v) == 0))
            continue; /* unchanged: no record, as Kafka */
        err = lr_ctli_emit_topic_config(ctl, topic, pl.ch[i].name, v);
    }
    plan_free(ctl, &pl);
    if (err && ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    return err;
}
