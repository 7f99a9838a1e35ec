#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_testutil.h"

int tc_sink(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    tc_log *l = ctx;
    if (l->fail)
        return l->fail;
    if (l->len + len > l->cap) {
        l->cap = (l->len + len) * 2 + 1024;
        l->data = realloc(l->data, l->cap);
    }
    if (l->n == l->cap_n) {
        l->cap_n = l->cap_n ? 2 * l->cap_n : 256;
        l->ends = realloc(l->ends, l->cap_n * sizeof *l->ends);
        l->offsets = realloc(l->offsets, l->cap_n * sizeof *l->offsets);
    }
    memcpy(l->data + l->len, rec, len);
    l->len += len;
    l->ends[l->n] = l->len;
    l->offsets[l->n] = offset;
    l->n++;
    return 0;
}

void tc_log_free(tc_log *l)
{
    free(l->data);
    free(l->ends);
    free(l->offsets);
    memset(l, 0, sizeof *l);
}

const uint8_t *tc_log_rec(const tc_log *l, size_t i, size_t *len)
{
    size_t start = i ? l->ends[i - 1] : 0;
    *len = l->ends[i] - start;
    return l->data + start;
}

lr_md_image *tc_replay(const tc_log *l, const logrep_conf *conf)
{
    lr_md_image *img = lr_md_new(conf);
    cr_assert(img);
    for (size_t i = 0; i < l->n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(l, i, &len);
        cr_assert_eq(lr_md_next_offset(img), l->offsets[i], "record %zu offset", i);
        int err = lr_md_apply_bytes(img, r, len);
        cr_assert_eq(err, 0, "replay of record %zu (type %d) failed: %s", i, r[1],
                     logrep_err_name(err));
    }
    return img;
}

#define DIFF(cond, ...)                         \
    do {                                        \
        if (cond) {                             \
            snprintf(why, cap, __VA_ARGS__);    \
            return 1;                           \
        }                                       \
    } while (0)

static int ids_eq(const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

int tc_image_diff(const lr_md_image *a, const lr_md_image *b, char *why, size_t cap)
{
    DIFF(lr_md_next_offset(a) != lr_md_next_offset(b), "next offset");
    DIFF(lr_md_next_producer_id(a) != lr_md_next_producer_id(b), "producer id");
    DIFF(lr_md_broker_count(a) != lr_md_broker_count(b), "broker count");
    for (size_t i = 0; i < lr_md_broker_count(a); i++) {
        const lr_md_broker *x = lr_md_broker_at(a, i), *y = lr_md_broker_at(b, i);
        DIFF(x->id != y->id || x->epoch != y->epoch || x->fenced != y->fenced ||
                 x->in_controlled_shutdown != y->in_controlled_shutdown ||
                 x->register_offset != y->register_offset ||
                 memcmp(x->incarnation, y->incarnation, 16) != 0 ||
                 (x->rack == NULL) != (y->rack == NULL) ||
                 (x->rack && strcmp(x->rack, y->rack)) || x->n_endpoints != y->n_endpoints,
             "broker %d", (int)x->id);
        for (uint32_t k = 0; k < x->n_endpoints; k++)
            DIFF(strcmp(x->endpoints[k].name, y->endpoints[k].name) ||
                     strcmp(x->endpoints[k].host, y->endpoints[k].host) ||
                     x->endpoints[k].port != y->endpoints[k].port,
                 "broker %d endpoint %u", (int)x->id, k);
    }
    DIFF(lr_md_topic_count(a) != lr_md_topic_count(b), "topic count");
    for (size_t i = 0; i < lr_md_topic_count(a); i++) {
        const lr_md_topic *x = lr_md_topic_at(a, i), *y = lr_md_topic_at(b, i);
        DIFF(strcmp(x->name, y->name) || memcmp(x->id, y->id, 16) || x->n_parts != y->n_parts ||
                 x->n_configs != y->n_configs,
             "topic %s", x->name);
        for (uint32_t k = 0; k < x->n_configs; k++)
            DIFF(strcmp(x->configs[k].name, y->configs[k].name) ||
                     strcmp(x->configs[k].value, y->configs[k].value),
                 "topic %s config %u", x->name, k);
        for (int32_t j = 0; j < x->n_parts; j++) {
            const lr_md_partition *p = &x->parts[j], *q = &y->parts[j];
            DIFF(p->leader != q->leader || p->leader_epoch != q->leader_epoch ||
                     p->partition_epoch != q->partition_epoch || p->lrs != q->lrs ||
                     !ids_eq(p->replicas, p->n_replicas, q->replicas, q->n_replicas) ||
                     !ids_eq(p->isr, p->n_isr, q->isr, q->n_isr) ||
                     !ids_eq(p->elr, p->n_elr, q->elr, q->n_elr) ||
                     !ids_eq(p->lke, p->n_lke, q->lke, q->n_lke),
                 "partition %s-%d", x->name, (int)j);
        }
    }
    return 0;
}

void tc_start(tc_cluster *c, const char *const *conf_kv)
{
    memset(c, 0, sizeof *c);
    c->conf = logrep_conf_new();
    cr_assert(c->conf);
    char err[128];
    cr_assert_eq(logrep_conf_set(c->conf, "logrep.random.seed", "42", err, sizeof err), 0);
    for (size_t i = 0; conf_kv && conf_kv[i]; i++) {
        char k[128];
        const char *eq = strchr(conf_kv[i], '=');
        cr_assert(eq && (size_t)(eq - conf_kv[i]) < sizeof k);
        memcpy(k, conf_kv[i], (size_t)(eq - conf_kv[i]));
        k[eq - conf_kv[i]] = 0;
        cr_assert_eq(logrep_conf_set(c->conf, k, eq + 1, err, sizeof err), 0, "%s", err);
    }
    c->ctl = lr_ctl_new(c->conf, tc_sink, &c->log);
    cr_assert(c->ctl);
    c->now = 1000;
}

void tc_stop(tc_cluster *c)
{
    lr_ctl_free(c->ctl);
    logrep_conf_free(c->conf);
    tc_log_free(&c->log);
}

static int incarnations;

int tc_join(tc_cluster *c, int32_t id, const char *rack, int64_t prev_epoch)
{
    lr_ctl_endpoint ep = {"PLAINTEXT", "localhost", (uint16_t)(9092 + id), 0};
    lr_ctl_register_req req = {.broker_id = id, .rack = rack, .endpoints = &ep, .n_endpoints = 1,
                               .previous_broker_epoch = prev_epoch};
    int inc = ++incarnations;
    memcpy(req.incarnation, &id, sizeof id);
    memcpy(req.incarnation + 8, &inc, sizeof inc);
    lr_ctl_register_resp resp;
    int err = lr_ctl_register_broker(c->ctl, &req, c->now, &resp);
    if (err)
        return err;
    cr_assert(id >= 0 && id < 64);
    c->epochs[id] = resp.broker_epoch;
    cr_assert_eq(tc_beat(c, id), 0);
    const lr_md_broker *b = lr_md_broker_get(lr_ctl_image(c->ctl), id);
    cr_assert(b && !b->fenced, "broker %d unfenced after catching up", (int)id);
    return 0;
}

int tc_beat(tc_cluster *c, int32_t id)
{
    lr_ctl_heartbeat_req hb = {id, c->epochs[id], lr_md_next_offset(lr_ctl_image(c->ctl)), 0, 0};
    lr_ctl_heartbeat_resp resp;
    return lr_ctl_heartbeat(c->ctl, &hb, c->now, &resp);
}

const lr_md_partition *tc_part(tc_cluster *c, const char *topic, int32_t p)
{
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(c->ctl), topic);
    cr_assert(t, "topic %s", topic);
    const lr_md_partition *part = lr_md_partition_get(t, p);
    cr_assert(part);
    return part;
}

int tc_topic(tc_cluster *c, const char *name, int32_t parts, int32_t rf, const char *const *cfg)
{
    lr_ctl_config cs[8];
    char keys[8][64];
    size_t n = 0;
    for (; cfg && cfg[n]; n++) {
        const char *eq = strchr(cfg[n], '=');
        cr_assert(n < 8 && eq);
        snprintf(keys[n], sizeof keys[n], "%.*s", (int)(eq - cfg[n]), cfg[n]);
        cs[n].name = keys[n];
        cs[n].value = eq + 1;
    }
    lr_ctl_create_topic_req req = {name, parts, rf, cs, n};
    return lr_ctl_create_topic(c->ctl, &req, NULL);
}

int tc_alter(tc_cluster *c, const char *topic, int32_t p, const int32_t *isr, size_t n)
{
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(c->ctl), topic);
    const lr_md_partition *part = lr_md_partition_get(t, p);
    lr_ctl_isr_member m[16];
    cr_assert(n <= 16);
    for (size_t i = 0; i < n; i++) {
        m[i].broker_id = isr[i];
        m[i].broker_epoch = c->epochs[isr[i]];
    }
    lr_ctl_alter_partition_req req = {
        .broker_id = part->leader, .broker_epoch = part->leader >= 0 ? c->epochs[part->leader] : -1,
        .partition = p, .leader_epoch = part->leader_epoch,
        .partition_epoch = part->partition_epoch, .new_isr = m, .n_new_isr = n,
        .leader_recovery_state = LR_MD_RECOVERED};
    memcpy(req.topic_id, t->id, 16);
    return lr_ctl_alter_partition(c->ctl, &req, NULL);
}

void tc_check(tc_cluster *c)
{
    char why[256];
    const lr_md_image *img = lr_ctl_image(c->ctl);
    cr_assert_eq(lr_md_check_invariants(img, why, sizeof why), 0, "%s", why);
    lr_md_image *re = tc_replay(&c->log, c->conf);
    cr_assert_eq(tc_image_diff(img, re, why, sizeof why), 0, "replay differs: %s", why);
    lr_md_free(re);
}

const char *tc_ids(const int32_t *v, size_t n)
{
    static char buf[256];
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && o < sizeof buf - 16; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, i ? ",%d" : "%d", (int)v[i]);
    return buf;
}
