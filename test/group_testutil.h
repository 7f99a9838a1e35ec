/* A host for the group coordinator in tests: the sink keeps every batch
 * (a per-partition log of the records), answers are copied. */
#ifndef TEST_GROUP_TESTUTIL_H
#define TEST_GROUP_TESTUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include "group/group.h"

#define GT_MAX_ANS 4096
#define GT_MAX_APP 4096
#define GT_MAX_LOG 65536

typedef struct gt_ans {
    uint64_t cookie;
    int kind, error;
    int32_t generation;
    char member_id[160], leader[160], protocol[64];
    size_t n_members;
    char members[16][160];
    uint8_t assignment[256];
    size_t assignment_len;
    int16_t part_errors[16];
    size_t n_parts;
} gt_ans;

typedef struct gt_rec {
    int32_t p;
    uint8_t *key, *value;
    size_t key_len, value_len;
    int tomb;
    int committed;
    uint64_t append;
} gt_rec;

typedef struct gt_app {
    int32_t p;
    uint64_t id;
} gt_app;

typedef struct gt {
    lr_gc *gc;
    logrep_conf *conf;
    int64_t now;
    gt_ans *ans; /* GT_MAX_ANS, a ring */
    size_t n_ans;
    gt_app app[GT_MAX_APP]; /* appends not yet reported */
    size_t n_app;
    gt_rec *log; /* every record the sink took, in order */
    size_t n_log;
    int sink_fail; /* next sink calls fail with this */
} gt;

static inline int gt_sink(void *ctx, int32_t p, uint64_t id, const lr_gc_record *recs, size_t n)
{
    gt *t = ctx;
    if (t->sink_fail)
        return t->sink_fail;
    for (size_t i = 0; i < n; i++) {
        gt_rec *r = &t->log[t->n_log++];
        memset(r, 0, sizeof *r);
        r->p = p;
        r->append = id;
        r->key = malloc(recs[i].key_len);
        memcpy(r->key, recs[i].key, recs[i].key_len);
        r->key_len = recs[i].key_len;
        r->tomb = recs[i].value == NULL;
        if (!r->tomb) {
            r->value = malloc(recs[i].value_len ? recs[i].value_len : 1);
            memcpy(r->value, recs[i].value, recs[i].value_len);
            r->value_len = recs[i].value_len;
        }
    }
    t->app[t->n_app++] = (gt_app){p, id};
    return 0;
}

static inline void gt_answer(void *ctx, const lr_gc_answer *a)
{
    gt *t = ctx;
    gt_ans *x = &t->ans[t->n_ans++ % GT_MAX_ANS];
    memset(x, 0, sizeof *x);
    x->cookie = a->cookie;
    x->kind = a->kind;
    x->error = a->error;
    x->generation = a->generation;
    snprintf(x->member_id, sizeof x->member_id, "%s", a->member_id ? a->member_id : "");
    snprintf(x->leader, sizeof x->leader, "%s", a->leader ? a->leader : "");
    snprintf(x->protocol, sizeof x->protocol, "%s", a->protocol_name ? a->protocol_name : "");
    x->n_members = a->n_members;
    for (size_t i = 0; i < a->n_members && i < 16; i++)
        snprintf(x->members[i], 160, "%s", a->members[i].member_id);
    if (a->assignment_len <= sizeof x->assignment) {
        if (a->assignment_len)
            memcpy(x->assignment, a->assignment, a->assignment_len);
        x->assignment_len = a->assignment_len;
    }
    x->n_parts = a->n_parts;
    for (size_t i = 0; i < a->n_parts && i < 16; i++)
        x->part_errors[i] = a->part_errors[i];
}

/* Starts a coordinator leading every partition (conf lines "k=v"). */
static inline void gt_start(gt *t, const char *const *conf)
{
    memset(t, 0, sizeof *t);
    t->log = calloc(GT_MAX_LOG, sizeof *t->log);
    t->ans = calloc(GT_MAX_ANS, sizeof *t->ans);
    t->now = 1700000000000LL;
    t->conf = logrep_conf_new();
    for (size_t i = 0; conf && conf[i]; i++) {
        char k[128];
        const char *eq = strchr(conf[i], '=');
        snprintf(k, sizeof k, "%.*s", (int)(eq - conf[i]), conf[i]);
        logrep_conf_set(t->conf, k, eq + 1, NULL, 0);
    }
    t->gc = lr_gc_new(t->conf, gt_sink, t, gt_answer, t);
    for (int32_t p = 0; p < 50; p++) {
        lr_gc_load_begin(t->gc, p);
        lr_gc_load_done(t->gc, p, t->now);
    }
}

static inline void gt_stop(gt *t)
{
    lr_gc_free(t->gc);
    logrep_conf_free(t->conf);
    for (size_t i = 0; i < t->n_log; i++) {
        free(t->log[i].key);
        free(t->log[i].value);
    }
    free(t->log);
    free(t->ans);
}

/* Reports every append done (err), oldest first. */
static inline void gt_commit_all(gt *t, int err)
{
    while (t->n_app) {
        gt_app a = t->app[0];
        memmove(&t->app[0], &t->app[1], (t->n_app - 1) * sizeof *t->app);
        t->n_app--;
        for (size_t i = 0; i < t->n_log; i++)
            if (t->log[i].append == a.id)
                t->log[i].committed = err ? -1 : 1;
        lr_gc_append_done(t->gc, a.p, a.id, err, t->now);
    }
}

/* Time passes in steps of step ms, ticking. */
static inline void gt_advance(gt *t, int64_t ms, int64_t step)
{
    for (int64_t d = 0; d < ms; d += step) {
        t->now += step;
        lr_gc_tick(t->gc, t->now);
    }
}

static inline const gt_ans *gt_find(const gt *t, uint64_t cookie)
{
    for (size_t i = t->n_ans; i-- > 0;)
        if (t->ans[i % GT_MAX_ANS].cookie == cookie)
            return &t->ans[i % GT_MAX_ANS];
    return NULL;
}

/* Replays the committed records of partition p into c (loading it). */
static inline int gt_replay(const gt *t, lr_gc *c, int32_t p, int64_t now)
{
    lr_gc_load_begin(c, p);
    for (size_t i = 0; i < t->n_log; i++) {
        const gt_rec *r = &t->log[i];
        if (r->p != p || r->committed != 1)
            continue;
        int err = lr_gc_replay(c, p, r->key, r->key_len, r->tomb ? NULL : r->value, r->value_len);
        if (err)
            return err;
    }
    return lr_gc_load_done(c, p, now);
}

#endif
