/* Topics of the metadata image and their partitions: TopicRecord,
 * RemoveTopicRecord, PartitionRecord, PartitionChangeRecord, the topic
 * indexes, names and lookups. */
#include <string.h>

#include "controller/md_int.h"

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

static void part_release(const lr_alloc *a, lr_md_partition *p)
{
    lr_free(a, p->replicas, (size_t)p->n_replicas * 4 * sizeof(int32_t));
    p->replicas = NULL;
}

void lr_mdi_topic_free(const lr_alloc *a, lr_md_topic *t)
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

/* ------------------------------------------------------------------------
 * Topics and their indexes
 * ---------------------------------------------------------------------- */

lr_md_topic *lr_mdi_topic_by_name_len(const lr_md_image *img, const char *name, size_t len)
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
    return lr_mdi_topic_by_name_len(img, name, strlen(name));
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

int lr_mdi_apply_topic(lr_md_image *img, const lr_md_record *rec)
{
    const lr_alloc *a = &img->alloc;
    lr_md_str name = rec->u.topic.name;
    if (!lr_md_topic_name_legal(name) || memcmp(rec->u.topic.topic_id, zero_uuid, 16) == 0 ||
        lr_mdi_topic_by_name_len(img, name.p, (size_t)name.len) || topic_by_id(img, rec->u.topic.topic_id))
        return LOGREP_ERR__CORRUPT;
    if (lr_mdi_grow(a, (void **)&img->topics, &img->cap_topics, img->n_topics + 1, sizeof *img->topics))
        return LOGREP_ERR__NOMEM;
    /* Room first, so that the two puts below cannot fail. */
    if (lr_hashmap_reserve(&img->by_name, img->n_topics + 1) ||
        lr_hashmap_reserve(&img->by_id, img->n_topics + 1))
        return LOGREP_ERR__NOMEM;
    lr_md_topic *t = lr_calloc(a, 1, sizeof *t);
    if (!t || !(t->name = lr_mdi_dup_str(a, name))) {
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

int lr_mdi_apply_remove_topic(lr_md_image *img, const uint8_t id[16])
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
    lr_mdi_topic_free(&img->alloc, t);
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


int lr_mdi_state_valid(const part_state *s)
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

int lr_mdi_apply_partition(lr_md_image *img, const struct lr_md_part_rec *r)
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
    if (!lr_mdi_state_valid(&s))
        return LOGREP_ERR__CORRUPT;
    if (r->partition_id == t->n_parts) {
        size_t cap = (size_t)t->cap_parts;
        if (lr_mdi_grow(&img->alloc, (void **)&t->parts, &cap, (size_t)t->n_parts + 1, sizeof *t->parts))
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

int lr_mdi_apply_partition_change(lr_md_image *img, const struct lr_md_part_rec *r)
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
    if (!lr_mdi_state_valid(&s))
        return LOGREP_ERR__CORRUPT;
    return state_store(&img->alloc, &t->parts[r->partition_id], &s);
}
