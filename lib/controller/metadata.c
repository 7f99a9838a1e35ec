/* The metadata image: its lifecycle and lr_md_apply, which hands each
 * record to its kind's file (md_brokers.c, md_topics.c, md_configs.c);
 * status and describe are md_describe.c. */
#include <string.h>

#include "base/conf.h"
#include "controller/md_int.h"

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
int lr_mdi_grow(const lr_alloc *a, void **arr, size_t *cap, size_t need, size_t sz)
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

char *lr_mdi_dup_str(const lr_alloc *a, lr_md_str s)
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
int lr_mdi_str_ok(lr_md_str s, int nullable)
{
    if (s.len < 0)
        return nullable;
    return memchr(s.p, 0, (size_t)s.len) == NULL;
}

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

void lr_md_free(lr_md_image *img)
{
    if (!img)
        return;
    const lr_alloc *a = &img->alloc;
    for (size_t i = 0; i < img->n_brokers; i++)
        lr_mdi_broker_release(a, &img->brokers[i]);
    lr_free(a, img->brokers, img->cap_brokers * sizeof *img->brokers);
    for (size_t i = 0; i < img->n_topics; i++)
        lr_mdi_topic_free(a, img->topics[i]);
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

const lr_alloc *lr_md_alloc(const lr_md_image *img) { return &img->alloc; }

/* ------------------------------------------------------------------------
 * Apply
 * ---------------------------------------------------------------------- */

int lr_md_apply(lr_md_image *img, const lr_md_record *rec)
{
    int err;
    switch (rec->type) {
    case LR_MD_REGISTER_BROKER:
        err = lr_mdi_apply_register(img, &rec->u.reg);
        break;
    case LR_MD_UNREGISTER_BROKER:
        err = lr_mdi_apply_unregister(img, rec->u.broker.broker_id, rec->u.broker.epoch);
        break;
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER: {
        lr_md_broker *b = lr_mdi_broker_checked(img, rec->u.broker.broker_id, rec->u.broker.epoch);
        if (b)
            b->fenced = rec->type == LR_MD_FENCE_BROKER;
        err = b ? 0 : LOGREP_ERR__CORRUPT;
        break;
    }
    case LR_MD_BROKER_REGISTRATION_CHANGE:
        err = lr_mdi_apply_change(img, &rec->u.change);
        break;
    case LR_MD_TOPIC:
        err = lr_mdi_apply_topic(img, rec);
        break;
    case LR_MD_REMOVE_TOPIC:
        err = lr_mdi_apply_remove_topic(img, rec->u.remove_topic.topic_id);
        break;
    case LR_MD_PARTITION:
        err = lr_mdi_apply_partition(img, &rec->u.part);
        break;
    case LR_MD_PARTITION_CHANGE:
        err = lr_mdi_apply_partition_change(img, &rec->u.part);
        break;
    case LR_MD_CONFIG:
        err = lr_mdi_apply_config(img, rec);
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
