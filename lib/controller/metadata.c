/* The metadata image: apply, lookups, observability. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "controller/metadata.h"
#include "base/uuid.h"

typedef struct md_kv {
    int8_t type;
    char *resource;
    char *name;
    char *value;
} md_kv;

struct lr_md_image {
    lr_alloc alloc;
    lr_md_defaults defaults;
    int64_t next_offset;
    int64_t next_producer_id;

    lr_md_broker *brokers; /* ascending id */
    size_t n_brokers, cap_brokers;

    lr_md_topic **topics; /* creation order */
    size_t n_topics, cap_topics;
    lr_hashmap by_name, by_id; /* values: lr_md_topic * */

    md_kv *kvs; /* non-topic config records */
    size_t n_kvs, cap_kvs;

    int32_t *scratch; /* 4 slots of scratch_slot ids: a candidate partition state */
    size_t scratch_slot;
};

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

int lr_md_ids_contains(const int32_t *ids, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* Grows *arr (element size sz) to hold at least need elements. */
static int grow(const lr_alloc *a, void **arr, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need)
        nc *= 2;
    size_t ob, nb;
    if (lr_mul_overflows(nc, sz, &nb) || lr_mul_overflows(*cap, sz, &ob))
        return LOGREP_ERR__NOMEM;
    void *p = lr_realloc(a, *arr, ob, nb);
    if (!p)
        return LOGREP_ERR__NOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

static char *dup_str(const lr_alloc *a, lr_md_str s)
{
    if (s.len < 0)
        return NULL;
    char *p = lr_malloc(a, (size_t)s.len + 1);
    if (p) {
        memcpy(p, s.p, (size_t)s.len);
        p[s.len] = 0;
    }
    return p;
}

/* Strings that become C strings must not contain NUL. */
static int str_ok(lr_md_str s, int nullable)
{
    if (s.len < 0)
        return nullable;
    return memchr(s.p, 0, (size_t)s.len) == NULL;
}

static int str_eq(const char *c, lr_md_str s)
{
    return s.len >= 0 && strlen(c) == (size_t)s.len && memcmp(c, s.p, (size_t)s.len) == 0;
}

static int collides(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '.' ? '_' : *a, y = *b == '.' ? '_' : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const lr_md_topic *lr_md_topic_collision(const lr_md_image *img, const char *name)
{
    if (!strpbrk(name, "._"))
        return NULL;
    for (size_t i = 0; i < img->n_topics; i++) {
        const lr_md_topic *t = img->topics[i];
        if (strcmp(t->name, name) != 0 && collides(t->name, name))
            return t;
    }
    return NULL;
}

int lr_md_topic_name_legal(lr_md_str s)
{
    if (s.len <= 0 || s.len > LR_MD_MAX_TOPIC_NAME)
        return 0;
    if ((s.len == 1 && s.p[0] == '.') || (s.len == 2 && s.p[0] == '.' && s.p[1] == '.'))
        return 0;
    for (int32_t i = 0; i < s.len; i++) {
        char c = s.p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static const uint8_t zero_uuid[16];

/* ------------------------------------------------------------------------
 * Lifecycle
 * ---------------------------------------------------------------------- */

static int name_eq(const void *ctx, uintptr_t v, const void *key, size_t len)
{
    (void)ctx;
    const char *n = ((const lr_md_topic *)v)->name;
    return strlen(n) == len && memcmp(n, key, len) == 0;
}

static int id_eq(const void *ctx, uintptr_t v, const void *key, size_t len)
{
    (void)ctx;
    return len == 16 && memcmp(((const lr_md_topic *)v)->id, key, 16) == 0;
}

lr_md_image *lr_md_new(const logrep_conf *conf)
{
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_md_image *img = lr_calloc(a, 1, sizeof *img);
    if (!img)
        return NULL;
    img->alloc = *a;
    lr_hashmap_init(&img->by_name, a, name_eq, NULL);
    lr_hashmap_init(&img->by_id, a, id_eq, NULL);
    img->defaults.min_isr = (int32_t)lr_conf_int(conf, LR_CONF_MIN_INSYNC_REPLICAS);
    img->defaults.unclean_election = lr_conf_int(conf, LR_CONF_UNCLEAN_LEADER_ELECTION) != 0;
    img->defaults.elr_enabled = lr_conf_int(conf, LR_CONF_ELR_ENABLE) != 0;
    return img;
}

static void broker_release(const lr_alloc *a, lr_md_broker *b)
{
    lr_strfree(a, b->rack);
    for (uint32_t i = 0; i < b->n_endpoints; i++) {
        lr_strfree(a, b->endpoints[i].name);
        lr_strfree(a, b->endpoints[i].host);
    }
    lr_free(a, b->endpoints, b->n_endpoints * sizeof *b->endpoints);
}

static void part_release(const lr_alloc *a, lr_md_partition *p)
{
    lr_free(a, p->replicas, (size_t)p->n_replicas * 4 * sizeof(int32_t));
    p->replicas = NULL;
}

static void topic_free(const lr_alloc *a, lr_md_topic *t)
{
    if (!t)
        return;
    for (int32_t i = 0; i < t->n_parts; i++)
        part_release(a, &t->parts[i]);
    lr_free(a, t->parts, (size_t)t->cap_parts * sizeof *t->parts);
    for (uint32_t i = 0; i < t->n_configs; i++) {
        lr_strfree(a, t->configs[i].name);
        lr_strfree(a, t->configs[i].value);
    }
    lr_free(a, t->configs, t->n_configs * sizeof *t->configs);
    lr_strfree(a, t->name);
    lr_free(a, t, sizeof *t);
}

void lr_md_free(lr_md_image *img)
{
    if (!img)
        return;
    const lr_alloc *a = &img->alloc;
    for (size_t i = 0; i < img->n_brokers; i++)
        broker_release(a, &img->brokers[i]);
    lr_free(a, img->brokers, img->cap_brokers * sizeof *img->brokers);
    for (size_t i = 0; i < img->n_topics; i++)
        topic_free(a, img->topics[i]);
    lr_free(a, img->topics, img->cap_topics * sizeof *img->topics);
    lr_hashmap_free(&img->by_name);
    lr_hashmap_free(&img->by_id);
    for (size_t i = 0; i < img->n_kvs; i++) {
        lr_strfree(a, img->kvs[i].resource);
        lr_strfree(a, img->kvs[i].name);
        lr_strfree(a, img->kvs[i].value);
    }
    lr_free(a, img->kvs, img->cap_kvs * sizeof *img->kvs);
    lr_free(a, img->scratch, sizeof(int32_t) * 4 * img->scratch_slot);
    lr_free(a, img, sizeof *img);
}

int64_t lr_md_next_offset(const lr_md_image *img) { return img->next_offset; }
void lr_md_set_next_offset(lr_md_image *img, int64_t off) { img->next_offset = off; }
const lr_md_defaults *lr_md_get_defaults(const lr_md_image *img) { return &img->defaults; }
int64_t lr_md_next_producer_id(const lr_md_image *img) { return img->next_producer_id; }

/* ------------------------------------------------------------------------
 * Brokers
 * ---------------------------------------------------------------------- */

static size_t broker_pos(const lr_md_image *img, int32_t id)
{
    size_t lo = 0, hi = img->n_brokers;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (img->brokers[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static lr_md_broker *broker_find(const lr_md_image *img, int32_t id)
{
    size_t i = broker_pos(img, id);
    return i < img->n_brokers && img->brokers[i].id == id ? &img->brokers[i] : NULL;
}

const lr_md_broker *lr_md_broker_get(const lr_md_image *img, int32_t id)
{
    return broker_find(img, id);
}
size_t lr_md_broker_count(const lr_md_image *img) { return img->n_brokers; }
const lr_md_broker *lr_md_broker_at(const lr_md_image *img, size_t i)
{
    return i < img->n_brokers ? &img->brokers[i] : NULL;
}

static int apply_register(lr_md_image *img, const struct lr_md_reg_rec *r)
{
    const lr_alloc *a = &img->alloc;
    if (r->broker_id < 0 || r->epoch < 0 || !str_ok(r->rack, 1))
        return LOGREP_ERR__CORRUPT;
    for (int32_t i = 0; i < r->n_endpoints; i++)
        if (!str_ok(r->endpoints[i].name, 0) || !str_ok(r->endpoints[i].host, 0))
            return LOGREP_ERR__CORRUPT;
    lr_md_broker nb;
    memset(&nb, 0, sizeof nb);
    nb.id = r->broker_id;
    memcpy(nb.incarnation, r->incarnation, 16);
    nb.epoch = r->epoch;
    nb.register_offset = img->next_offset;
    nb.fenced = r->fenced;
    nb.in_controlled_shutdown = r->in_controlled_shutdown;
    int err = 0;
    if (r->rack.len >= 0 && !(nb.rack = dup_str(a, r->rack)))
        err = LOGREP_ERR__NOMEM;
    if (!err && r->n_endpoints > 0) {
        nb.endpoints = lr_calloc(a, (size_t)r->n_endpoints, sizeof *nb.endpoints);
        if (!nb.endpoints)
            err = LOGREP_ERR__NOMEM;
        else
            nb.n_endpoints = (uint32_t)r->n_endpoints;
        for (uint32_t i = 0; !err && i < nb.n_endpoints; i++) {
            nb.endpoints[i].name = dup_str(a, r->endpoints[i].name);
            nb.endpoints[i].host = dup_str(a, r->endpoints[i].host);
            nb.endpoints[i].port = r->endpoints[i].port;
            nb.endpoints[i].security_protocol = r->endpoints[i].security_protocol;
            if (!nb.endpoints[i].name || !nb.endpoints[i].host)
                err = LOGREP_ERR__NOMEM;
        }
    }
    lr_md_broker *old = broker_find(img, r->broker_id);
    if (!err && !old)
        err = grow(a, (void **)&img->brokers, &img->cap_brokers, img->n_brokers + 1,
                   sizeof *img->brokers);
    if (err) {
        broker_release(a, &nb);
        return err;
    }
    if (old) {
        broker_release(a, old);
        *old = nb;
    } else {
        size_t i = broker_pos(img, r->broker_id);
        memmove(&img->brokers[i + 1], &img->brokers[i], (img->n_brokers - i) * sizeof nb);
        img->brokers[i] = nb;
        img->n_brokers++;
    }
    return 0;
}

/* Broker named by a fence/unfence/unregister/change record: must exist
 * with the record's epoch. */
static lr_md_broker *broker_checked(lr_md_image *img, int32_t id, int64_t epoch)
{
    lr_md_broker *b = broker_find(img, id);
    return b && b->epoch == epoch ? b : NULL;
}

static int apply_unregister(lr_md_image *img, int32_t id, int64_t epoch)
{
    lr_md_broker *b = broker_checked(img, id, epoch);
    if (!b)
        return LOGREP_ERR__CORRUPT;
    broker_release(&img->alloc, b);
    size_t i = (size_t)(b - img->brokers);
    memmove(b, b + 1, (img->n_brokers - i - 1) * sizeof *b);
    img->n_brokers--;
    return 0;
}

static int apply_change(lr_md_image *img, const struct lr_md_change_rec *c)
{
    lr_md_broker *b = broker_checked(img, c->broker_id, c->broker_epoch);
    if (!b || c->fenced < -1 || c->fenced > 1 || c->in_controlled_shutdown < 0 ||
        c->in_controlled_shutdown > 1)
        return LOGREP_ERR__CORRUPT;
    if (c->fenced)
        b->fenced = c->fenced == 1;
    if (c->in_controlled_shutdown)
        b->in_controlled_shutdown = 1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Topics and their indexes
 * ---------------------------------------------------------------------- */

static lr_md_topic *topic_by_name_len(const lr_md_image *img, const char *name, size_t len)
{
    uintptr_t v;
    return lr_hashmap_get(&img->by_name, name, len, &v) ? (lr_md_topic *)v : NULL;
}

static lr_md_topic *topic_by_id(const lr_md_image *img, const uint8_t id[16])
{
    uintptr_t v;
    return lr_hashmap_get(&img->by_id, id, 16, &v) ? (lr_md_topic *)v : NULL;
}

const lr_md_topic *lr_md_topic_by_name(const lr_md_image *img, const char *name)
{
    return topic_by_name_len(img, name, strlen(name));
}
const lr_md_topic *lr_md_topic_by_id(const lr_md_image *img, const uint8_t id[16])
{
    return topic_by_id(img, id);
}
size_t lr_md_topic_count(const lr_md_image *img) { return img->n_topics; }
const lr_md_topic *lr_md_topic_at(const lr_md_image *img, size_t i)
{
    return i < img->n_topics ? img->topics[i] : NULL;
}
const lr_md_partition *lr_md_partition_get(const lr_md_topic *t, int32_t partition)
{
    return t && partition >= 0 && partition < t->n_parts ? &t->parts[partition] : NULL;
}

static int apply_topic(lr_md_image *img, const lr_md_record *rec)
{
    const lr_alloc *a = &img->alloc;
    lr_md_str name = rec->u.topic.name;
    if (!lr_md_topic_name_legal(name) || memcmp(rec->u.topic.topic_id, zero_uuid, 16) == 0 ||
        topic_by_name_len(img, name.p, (size_t)name.len) || topic_by_id(img, rec->u.topic.topic_id))
        return LOGREP_ERR__CORRUPT;
    if (grow(a, (void **)&img->topics, &img->cap_topics, img->n_topics + 1, sizeof *img->topics))
        return LOGREP_ERR__NOMEM;
    /* Room first, so that the two puts below cannot fail. */
    if (lr_hashmap_reserve(&img->by_name, img->n_topics + 1) ||
        lr_hashmap_reserve(&img->by_id, img->n_topics + 1))
        return LOGREP_ERR__NOMEM;
    lr_md_topic *t = lr_calloc(a, 1, sizeof *t);
    if (!t || !(t->name = dup_str(a, name))) {
        lr_free(a, t, t ? sizeof *t : 0);
        return LOGREP_ERR__NOMEM;
    }
    memcpy(t->id, rec->u.topic.topic_id, 16);
    size_t at = img->n_topics++;
    img->topics[at] = t;
    lr_hashmap_put(&img->by_name, t->name, (size_t)name.len, (uintptr_t)t);
    lr_hashmap_put(&img->by_id, t->id, 16, (uintptr_t)t);
    return 0;
}

static int apply_remove_topic(lr_md_image *img, const uint8_t id[16])
{
    lr_md_topic *t = topic_by_id(img, id);
    if (!t)
        return LOGREP_ERR__CORRUPT;
    size_t at = 0;
    while (img->topics[at] != t)
        at++;
    lr_md_topic **ts = img->topics;
    memmove(&ts[at], &ts[at + 1], (img->n_topics - at - 1) * sizeof *ts);
    img->n_topics--;
    lr_hashmap_del(&img->by_name, t->name, strlen(t->name), NULL);
    lr_hashmap_del(&img->by_id, t->id, 16, NULL);
    topic_free(&img->alloc, t);
    return 0;
}

/* ------------------------------------------------------------------------
 * Partitions
 * ---------------------------------------------------------------------- */

/* Validates one candidate partition state held in img->scratch layout:
 * replicas non-empty, unique, >= 0; isr/elr/lke subsets without
 * duplicates; leader in replicas or -1. */
static int ids_unique_subset(const int32_t *v, int32_t n, const int32_t *of, int32_t n_of)
{
    for (int32_t i = 0; i < n; i++) {
        if (of && !lr_md_ids_contains(of, (size_t)n_of, v[i]))
            return 0;
        if (v[i] < 0 || lr_md_ids_contains(v, (size_t)i, v[i]))
            return 0;
    }
    return 1;
}

typedef struct part_state {
    const int32_t *rep, *isr, *elr, *lke;
    int32_t nrep, nisr, nelr, nlke;
    int32_t leader, leader_epoch, partition_epoch;
    int8_t lrs;
} part_state;

static int state_valid(const part_state *s)
{
    if (s->nrep <= 0 || s->nrep > LR_MD_MAX_REPLICAS || s->nisr < 0 || s->nelr < 0 || s->nlke < 0)
        return 0;
    if (!ids_unique_subset(s->rep, s->nrep, NULL, 0) ||
        !ids_unique_subset(s->isr, s->nisr, s->rep, s->nrep) ||
        !ids_unique_subset(s->elr, s->nelr, s->rep, s->nrep) ||
        !ids_unique_subset(s->lke, s->nlke, s->rep, s->nrep))
        return 0;
    if (s->leader != LR_MD_NO_LEADER && !lr_md_ids_contains(s->rep, (size_t)s->nrep, s->leader))
        return 0;
    if (s->lrs != LR_MD_RECOVERED && s->lrs != LR_MD_RECOVERING)
        return 0;
    return s->leader_epoch >= 0 && s->partition_epoch >= 0;
}

/* Writes a validated state into p, reusing its block when it fits. */
static int state_store(const lr_alloc *a, lr_md_partition *p, const part_state *s)
{
    int32_t *blk = p->replicas;
    if (!blk || p->n_replicas != s->nrep) {
        blk = lr_malloc(a, (size_t)s->nrep * 4 * sizeof(int32_t));
        if (!blk)
            return LOGREP_ERR__NOMEM;
    }
    /* Sources may alias the old block: copy through the scratch first
     * (callers stage everything in img->scratch, never in p itself). */
    int32_t n = s->nrep;
    memmove(blk, s->rep, (size_t)n * 4);
    memmove(blk + n, s->isr, (size_t)s->nisr * 4);
    memmove(blk + 2 * n, s->elr, (size_t)s->nelr * 4);
    memmove(blk + 3 * n, s->lke, (size_t)s->nlke * 4);
    if (blk != p->replicas)
        part_release(a, p);
    p->replicas = blk;
    p->isr = blk + n;
    p->elr = blk + 2 * n;
    p->lke = blk + 3 * n;
    p->n_replicas = (uint16_t)n;
    p->n_isr = (uint16_t)s->nisr;
    p->n_elr = (uint16_t)s->nelr;
    p->n_lke = (uint16_t)s->nlke;
    p->leader = s->leader;
    p->leader_epoch = s->leader_epoch;
    p->partition_epoch = s->partition_epoch;
    p->lrs = s->lrs;
    return 0;
}

/* Makes each of the 4 scratch slots hold at least n ids. */
static int scratch_reserve(lr_md_image *img, int32_t n)
{
    if (n <= 0 || (size_t)n <= img->scratch_slot)
        return 0;
    size_t slot = (size_t)n < 16 ? 16 : (size_t)n;
    int32_t *p = lr_malloc(&img->alloc, sizeof(int32_t) * 4 * slot);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_free(&img->alloc, img->scratch, sizeof(int32_t) * 4 * img->scratch_slot);
    img->scratch = p;
    img->scratch_slot = slot;
    return 0;
}

static int32_t max4(int32_t a, int32_t b, int32_t c, int32_t d)
{
    int32_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

/* Copies ids into scratch slot k; the caller reserved room. */
static const int32_t *stage(lr_md_image *img, int k, const int32_t *v, int32_t n)
{
    int32_t *dst = img->scratch + (size_t)k * img->scratch_slot;
    if (n > 0)
        memcpy(dst, v, (size_t)n * sizeof *dst);
    return dst;
}

static int list_fits(lr_md_ids ids)
{
    return ids.n <= LR_MD_MAX_REPLICAS;
}

static int apply_partition(lr_md_image *img, const struct lr_md_part_rec *r)
{
    lr_md_topic *t = topic_by_id(img, r->topic_id);
    if (!t || r->partition_id < 0 || r->partition_id > t->n_parts ||
        r->partition_id >= LR_MD_MAX_PARTITIONS)
        return LOGREP_ERR__CORRUPT;
    if (r->removing.n > 0 || r->adding.n > 0)
        return LOGREP_ERR__UNSUPPORTED;
    if (!list_fits(r->replicas) || !list_fits(r->isr) || !list_fits(r->elr) || !list_fits(r->lke))
        return LOGREP_ERR__CORRUPT;
    if (scratch_reserve(img, max4(r->replicas.n, r->isr.n, r->elr.n, r->lke.n)))
        return LOGREP_ERR__NOMEM;
    part_state s = {
        stage(img, 0, r->replicas.v, r->replicas.n), stage(img, 1, r->isr.v, r->isr.n),
        stage(img, 2, r->elr.v, r->elr.n), stage(img, 3, r->lke.v, r->lke.n),
        r->replicas.n, r->isr.n, r->elr.n < 0 ? 0 : r->elr.n, r->lke.n < 0 ? 0 : r->lke.n,
        r->leader, r->leader_epoch, r->partition_epoch, r->lrs,
    };
    if (!state_valid(&s))
        return LOGREP_ERR__CORRUPT;
    if (r->partition_id == t->n_parts) {
        size_t cap = (size_t)t->cap_parts;
        if (grow(&img->alloc, (void **)&t->parts, &cap, (size_t)t->n_parts + 1, sizeof *t->parts))
            return LOGREP_ERR__NOMEM;
        t->cap_parts = (int32_t)cap;
        lr_md_partition *p = &t->parts[t->n_parts];
        memset(p, 0, sizeof *p);
        if (state_store(&img->alloc, p, &s))
            return LOGREP_ERR__NOMEM;
        t->n_parts++;
        return 0;
    }
    return state_store(&img->alloc, &t->parts[r->partition_id], &s);
}

static int apply_partition_change(lr_md_image *img, const struct lr_md_part_rec *r)
{
    lr_md_topic *t = topic_by_id(img, r->topic_id);
    if (!t || r->partition_id < 0 || r->partition_id >= t->n_parts)
        return LOGREP_ERR__CORRUPT;
    if (r->removing.n > 0 || r->adding.n > 0)
        return LOGREP_ERR__UNSUPPORTED;
    if (!list_fits(r->replicas) || !list_fits(r->isr) || !list_fits(r->elr) || !list_fits(r->lke))
        return LOGREP_ERR__CORRUPT;
    const lr_md_partition *p = &t->parts[r->partition_id];
    if (p->partition_epoch == INT32_MAX ||
        (r->leader != LR_MD_NO_LEADER_CHANGE && p->leader_epoch == INT32_MAX))
        return LOGREP_ERR__CORRUPT;
    if (r->lrs < LR_MD_LRS_NO_CHANGE || r->lrs > LR_MD_RECOVERING)
        return LOGREP_ERR__CORRUPT;
    if (scratch_reserve(img, max4(r->replicas.n, r->isr.n, r->elr.n, r->lke.n)) ||
        scratch_reserve(img, p->n_replicas))
        return LOGREP_ERR__NOMEM;
#define PICK(k, f, pv, pn) (r->f.n >= 0 ? stage(img, k, r->f.v, r->f.n) : stage(img, k, pv, pn))
#define PICKN(f, pn) (r->f.n >= 0 ? r->f.n : (int32_t)(pn))
    part_state s = {
        PICK(0, replicas, p->replicas, p->n_replicas), PICK(1, isr, p->isr, p->n_isr),
        PICK(2, elr, p->elr, p->n_elr), PICK(3, lke, p->lke, p->n_lke),
        PICKN(replicas, p->n_replicas), PICKN(isr, p->n_isr), PICKN(elr, p->n_elr),
        PICKN(lke, p->n_lke),
        r->leader == LR_MD_NO_LEADER_CHANGE ? p->leader : r->leader,
        r->leader == LR_MD_NO_LEADER_CHANGE ? p->leader_epoch : p->leader_epoch + 1,
        p->partition_epoch + 1,
        r->lrs == LR_MD_LRS_NO_CHANGE ? p->lrs : r->lrs,
    };
#undef PICK
#undef PICKN
    if (!state_valid(&s))
        return LOGREP_ERR__CORRUPT;
    return state_store(&img->alloc, &t->parts[r->partition_id], &s);
}

/* ------------------------------------------------------------------------
 * Configs
 * ---------------------------------------------------------------------- */

/* Sets or deletes (value NULL) name in a (configs, n) list. */
static int kv_set(const lr_alloc *a, lr_md_config **cfg, uint32_t *n, lr_md_str name,
                  lr_md_str value)
{
    uint32_t i = 0;
    while (i < *n && !str_eq((*cfg)[i].name, name))
        i++;
    if (value.len < 0) {
        if (i == *n)
            return 0;
        lr_md_config *smaller = NULL;
        if (*n > 1) {
            smaller = lr_malloc(a, (*n - 1) * sizeof **cfg);
            if (!smaller)
                return LOGREP_ERR__NOMEM;
            memcpy(smaller, *cfg, i * sizeof **cfg);
            memcpy(smaller + i, *cfg + i + 1, (*n - i - 1) * sizeof **cfg);
        }
        lr_strfree(a, (*cfg)[i].name);
        lr_strfree(a, (*cfg)[i].value);
        lr_free(a, *cfg, *n * sizeof **cfg);
        *cfg = smaller;
        (*n)--;
        return 0;
    }
    char *v = dup_str(a, value);
    if (!v)
        return LOGREP_ERR__NOMEM;
    if (i < *n) {
        lr_strfree(a, (*cfg)[i].value);
        (*cfg)[i].value = v;
        return 0;
    }
    char *k = dup_str(a, name);
    lr_md_config *grown = k ? lr_realloc(a, *cfg, *n * sizeof **cfg, (*n + 1) * sizeof **cfg) : NULL;
    if (!grown) {
        lr_strfree(a, k);
        lr_strfree(a, v);
        return LOGREP_ERR__NOMEM;
    }
    *cfg = grown;
    grown[*n].name = k;
    grown[*n].value = v;
    (*n)++;
    return 0;
}

static int apply_config(lr_md_image *img, const lr_md_record *rec)
{
    const lr_alloc *a = &img->alloc;
    lr_md_str rn = rec->u.config.resource_name, name = rec->u.config.name,
              value = rec->u.config.value;
    if (!str_ok(rn, 0) || !str_ok(name, 0) || !str_ok(value, 1))
        return LOGREP_ERR__CORRUPT;
    if (rec->u.config.resource_type == LR_MD_RESOURCE_TOPIC) {
        lr_md_topic *t = topic_by_name_len(img, rn.p, (size_t)rn.len);
        if (!t)
            return LOGREP_ERR__CORRUPT;
        return kv_set(a, &t->configs, &t->n_configs, name, value);
    }
    size_t i = 0;
    for (; i < img->n_kvs; i++) {
        md_kv *kv = &img->kvs[i];
        if (kv->type == rec->u.config.resource_type && str_eq(kv->resource, rn) &&
            str_eq(kv->name, name))
            break;
    }
    if (value.len < 0) {
        if (i < img->n_kvs) {
            lr_strfree(a, img->kvs[i].resource);
            lr_strfree(a, img->kvs[i].name);
            lr_strfree(a, img->kvs[i].value);
            memmove(&img->kvs[i], &img->kvs[i + 1], (img->n_kvs - i - 1) * sizeof *img->kvs);
            img->n_kvs--;
        }
        return 0;
    }
    char *v = dup_str(a, value);
    if (!v)
        return LOGREP_ERR__NOMEM;
    if (i < img->n_kvs) {
        lr_strfree(a, img->kvs[i].value);
        img->kvs[i].value = v;
        return 0;
    }
    md_kv kv = {rec->u.config.resource_type, dup_str(a, rn), dup_str(a, name), v};
    if (!kv.resource || !kv.name ||
        grow(a, (void **)&img->kvs, &img->cap_kvs, img->n_kvs + 1, sizeof *img->kvs)) {
        lr_strfree(a, kv.resource);
        lr_strfree(a, kv.name);
        lr_strfree(a, v);
        return LOGREP_ERR__NOMEM;
    }
    img->kvs[img->n_kvs++] = kv;
    return 0;
}

const char *lr_md_topic_config(const lr_md_topic *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_configs; i++)
        if (t->configs[i].name && strcmp(t->configs[i].name, name) == 0)
            return t->configs[i].value;
    return NULL;
}

const char *lr_md_cluster_config(const lr_md_image *img, const char *name)
{
    for (size_t i = 0; i < img->n_kvs; i++)
        if (img->kvs[i].type == LR_MD_RESOURCE_BROKER && img->kvs[i].resource[0] == 0 &&
            strcmp(img->kvs[i].name, name) == 0)
            return img->kvs[i].value;
    return NULL;
}

size_t lr_md_resource_config_count(const lr_md_image *img) { return img->n_kvs; }

int lr_md_resource_config_at(const lr_md_image *img, size_t i, lr_md_resource_config *out)
{
    if (i >= img->n_kvs)
        return LOGREP_ERR__INVALID_ARG;
    const md_kv *kv = &img->kvs[i];
    *out = (lr_md_resource_config){kv->type, kv->resource, kv->name, kv->value};
    return 0;
}

const lr_alloc *lr_md_alloc(const lr_md_image *img) { return &img->alloc; }

/* Parses a decimal int in [lo, hi]; returns dflt when absent or invalid. */
static int64_t parse_int(const char *s, int64_t lo, int64_t hi, int64_t dflt)
{
    if (!s || !*s)
        return dflt;
    char *end;
    long long v = strtoll(s, &end, 10);
    return *end || v < lo || v > hi ? dflt : v;
}

static int parse_bool(const char *s, int dflt)
{
    if (!s)
        return dflt;
    if (strcmp(s, "true") == 0)
        return 1;
    if (strcmp(s, "false") == 0)
        return 0;
    return dflt;
}

static int32_t topic_min_isr_raw(const lr_md_image *img, const lr_md_topic *t)
{
    int64_t d = parse_int(lr_md_cluster_config(img, "min.insync.replicas"), 1, INT32_MAX,
                          img->defaults.min_isr);
    return (int32_t)parse_int(lr_md_topic_config(t, "min.insync.replicas"), 1, INT32_MAX, d);
}

int32_t lr_md_topic_min_isr(const lr_md_image *img, const lr_md_topic *t)
{
    int32_t m = topic_min_isr_raw(img, t);
    int32_t rf = t->n_parts > 0 ? t->parts[0].n_replicas : m;
    return m < rf ? m : rf;
}

int lr_md_topic_unclean(const lr_md_image *img, const lr_md_topic *t)
{
    int d = parse_bool(lr_md_cluster_config(img, "unclean.leader.election.enable"),
                       img->defaults.unclean_election);
    return parse_bool(lr_md_topic_config(t, "unclean.leader.election.enable"), d);
}

/* ------------------------------------------------------------------------
 * Apply
 * ---------------------------------------------------------------------- */

int lr_md_apply(lr_md_image *img, const lr_md_record *rec)
{
    int err;
    switch (rec->type) {
    case LR_MD_REGISTER_BROKER:
        err = apply_register(img, &rec->u.reg);
        break;
    case LR_MD_UNREGISTER_BROKER:
        err = apply_unregister(img, rec->u.broker.broker_id, rec->u.broker.epoch);
        break;
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER: {
        lr_md_broker *b = broker_checked(img, rec->u.broker.broker_id, rec->u.broker.epoch);
        if (b)
            b->fenced = rec->type == LR_MD_FENCE_BROKER;
        err = b ? 0 : LOGREP_ERR__CORRUPT;
        break;
    }
    case LR_MD_BROKER_REGISTRATION_CHANGE:
        err = apply_change(img, &rec->u.change);
        break;
    case LR_MD_TOPIC:
        err = apply_topic(img, rec);
        break;
    case LR_MD_REMOVE_TOPIC:
        err = apply_remove_topic(img, rec->u.remove_topic.topic_id);
        break;
    case LR_MD_PARTITION:
        err = apply_partition(img, &rec->u.part);
        break;
    case LR_MD_PARTITION_CHANGE:
        err = apply_partition_change(img, &rec->u.part);
        break;
    case LR_MD_CONFIG:
        err = apply_config(img, rec);
        break;
    case LR_MD_PRODUCER_IDS:
        /* Kafka: the next block must start above the current one. */
        if (rec->u.pids.next_producer_id <= img->next_producer_id ||
            rec->u.pids.next_producer_id < 0) {
            err = LOGREP_ERR__CORRUPT;
        } else {
            img->next_producer_id = rec->u.pids.next_producer_id;
            err = 0;
        }
        break;
    default:
        err = LOGREP_ERR__UNSUPPORTED;
    }
    if (!err)
        img->next_offset++;
    return err;
}

int lr_md_apply_bytes(lr_md_image *img, const uint8_t *buf, size_t len)
{
    lr_md_record rec;
    int err = lr_md_decode(&img->alloc, buf, len, &rec);
    if (err)
        return err;
    err = lr_md_apply(img, &rec);
    lr_md_record_clear(&rec);
    return err;
}

/* ------------------------------------------------------------------------
 * Observability
 * ---------------------------------------------------------------------- */

unsigned lr_md_partition_status(const lr_md_image *img, const lr_md_topic *t,
                                const lr_md_partition *p)
{
    unsigned f = 0;
    int32_t min_isr = topic_min_isr_raw(img, t);
    if (p->n_isr < p->n_replicas)
        f |= LR_MD_UNDER_REPLICATED;
    if (p->leader == LR_MD_NO_LEADER)
        f |= LR_MD_OFFLINE | LR_MD_UNDER_MIN_ISR;
    if (p->n_isr < min_isr)
        f |= LR_MD_UNDER_MIN_ISR;
    if (p->n_isr == min_isr)
        f |= LR_MD_AT_MIN_ISR;
    return f;
}

void lr_md_summarize(const lr_md_image *img, lr_md_summary *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < img->n_topics; i++) {
        const lr_md_topic *t = img->topics[i];
        for (int32_t j = 0; j < t->n_parts; j++) {
            unsigned f = lr_md_partition_status(img, t, &t->parts[j]);
            out->partitions++;
            out->offline += !!(f & LR_MD_OFFLINE);
            out->under_replicated += !!(f & LR_MD_UNDER_REPLICATED);
            out->under_min_isr += !!(f & LR_MD_UNDER_MIN_ISR);
            out->at_min_isr += !!(f & LR_MD_AT_MIN_ISR);
        }
    }
    for (size_t i = 0; i < img->n_brokers; i++) {
        out->brokers++;
        out->fenced_brokers += img->brokers[i].fenced;
        out->brokers_in_controlled_shutdown += img->brokers[i].in_controlled_shutdown;
    }
}

void lr_md_uuid_str(const uint8_t id[16], char out[23])
{
    lr_uuid_to_str(id, out);
}

static int bprintf(lr_buf *b, const char *fmt, ...) LR_PRINTF(2, 3);

static int bprintf(lr_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return LOGREP_ERR__INVALID_ARG;
    if ((size_t)n < sizeof tmp)
        return lr_buf_append(b, tmp, (size_t)n);
    if (lr_buf_reserve(b, (size_t)n + 1))
        return LOGREP_ERR__NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

static int put_ids(lr_buf *b, const char *label, const int32_t *v, size_t n)
{
    int err = bprintf(b, "\t%s: ", label);
    for (size_t i = 0; i < n && !err; i++)
        err = bprintf(b, i ? ",%d" : "%d", (int)v[i]);
    return err;
}

static int describe_topic(const lr_md_image *img, const lr_md_topic *t, int filter, lr_buf *out)
{
    int err = 0;
    if (filter == LR_MD_DESCRIBE_ALL) {
        char id[23];
        lr_md_uuid_str(t->id, id);
        err = bprintf(out, "Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: ",
                      t->name, id, (int)t->n_parts, t->n_parts ? (int)t->parts[0].n_replicas : 0);
        for (uint32_t i = 0; i < t->n_configs && !err; i++)
            if (t->configs[i].name)
                err = bprintf(out, "%s%s=%s", i ? "," : "", t->configs[i].name, t->configs[i].value);
        if (!err)
            err = lr_buf_append(out, "\n", 1);
    }
    for (int32_t j = 0; j < t->n_parts && !err; j++) {
        const lr_md_partition *p = &t->parts[j];
        unsigned f = lr_md_partition_status(img, t, p);
        if ((filter == LR_MD_DESCRIBE_UNDER_MIN_ISR && !(f & LR_MD_UNDER_MIN_ISR)) ||
            (filter == LR_MD_DESCRIBE_AT_MIN_ISR && !(f & LR_MD_AT_MIN_ISR)) ||
            (filter == LR_MD_DESCRIBE_UNDER_REPLICATED && !(f & LR_MD_UNDER_REPLICATED)) ||
            (filter == LR_MD_DESCRIBE_UNAVAILABLE && !(f & LR_MD_OFFLINE)))
            continue;
        err = bprintf(out, "\tTopic: %s\tPartition: %d", t->name, (int)j);
        if (!err)
            err = p->leader < 0 ? bprintf(out, "\tLeader: none")
                                : bprintf(out, "\tLeader: %d", (int)p->leader);
        if (!err)
            err = put_ids(out, "Replicas", p->replicas, p->n_replicas);
        if (!err)
            err = put_ids(out, "Isr", p->isr, p->n_isr);
        if (!err)
            err = put_ids(out, "Elr", p->elr, p->n_elr);
        if (!err)
            err = put_ids(out, "LastKnownElr", p->lke, p->n_lke);
        if (!err)
            err = lr_buf_append(out, "\n", 1);
    }
    return err;
}

int lr_md_describe(const lr_md_image *img, const char *topic, int filter, lr_buf *out)
{
    if (filter < LR_MD_DESCRIBE_ALL || filter > LR_MD_DESCRIBE_UNAVAILABLE)
        return LOGREP_ERR__INVALID_ARG;
    size_t old = out->len;
    int err = 0;
    if (topic) {
        const lr_md_topic *t = lr_md_topic_by_name(img, topic);
        if (!t)
            return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        err = describe_topic(img, t, filter, out);
    } else {
        for (size_t i = 0; i < img->n_topics && !err; i++)
            err = describe_topic(img, img->topics[i], filter, out);
    }
    if (err)
        out->len = old;
    return err;
}

int lr_md_check_invariants(const lr_md_image *img, char *why, size_t cap)
{
    char tmp[1];
    if (!why) {
        why = tmp;
        cap = sizeof tmp;
    }
    for (size_t i = 0; i < img->n_topics; i++) {
        const lr_md_topic *t = img->topics[i];
        int32_t min_isr = lr_md_topic_min_isr(img, t);
        for (int32_t j = 0; j < t->n_parts; j++) {
            const lr_md_partition *p = &t->parts[j];
            part_state s = {p->replicas, p->isr, p->elr, p->lke, p->n_replicas, p->n_isr,
                            p->n_elr, p->n_lke, p->leader, p->leader_epoch,
                            p->partition_epoch, p->lrs};
            const char *bad = NULL;
            if (!state_valid(&s))
                bad = "ISR/ELR/LastKnownElr not unique subsets of the replicas";
            for (uint16_t k = 0; !bad && k < p->n_elr; k++)
                if (lr_md_ids_contains(p->isr, p->n_isr, p->elr[k]))
                    bad = "ELR intersects ISR";
            if (!bad && p->n_isr >= min_isr && p->n_elr > 0)
                bad = "ELR not empty while ISR >= min ISR";
            if (!bad && p->leader >= 0 && !lr_md_ids_contains(p->isr, p->n_isr, p->leader))
                bad = "leader not in ISR";
            for (uint16_t k = 0; !bad && k < p->n_isr; k++) {
                const lr_md_broker *b = broker_find(img, p->isr[k]);
                if (b && b->fenced && (img->defaults.elr_enabled || p->n_isr > 1))
                    bad = "fenced broker in ISR";
            }
            if (!bad && !img->defaults.elr_enabled && (p->n_elr || p->n_lke))
                bad = "ELR state while ELR is disabled";
            if (bad) {
                snprintf(why, cap, "%s-%d: %s", t->name, (int)j, bad);
                return LOGREP_ERR__CORRUPT;
            }
        }
    }
    if (cap)
        why[0] = 0;
    return 0;
}
