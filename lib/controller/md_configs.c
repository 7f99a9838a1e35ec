/* Config records of the metadata image (ConfigRecord): topic overrides,
 * other resources' configs, and the topic settings they resolve to. */
#include <stdlib.h>
#include <string.h>

#include "controller/md_int.h"

static int str_eq(const char *c, lr_md_str s)
{
    return s.len >= 0 && strlen(c) == (size_t)s.len && memcmp(c, s.p, (size_t)s.len) == 0;
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
    char *v = lr_mdi_dup_str(a, value);
    if (!v)
        return LOGREP_ERR__NOMEM;
    if (i < *n) {
        lr_strfree(a, (*cfg)[i].value);
        (*cfg)[i].value = v;
        return 0;
    }
    char *k = lr_mdi_dup_str(a, name);
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

int lr_mdi_apply_config(lr_md_image *img, const lr_md_record *rec)
{
    const lr_alloc *a = &img->alloc;
    lr_md_str rn = rec->u.config.resource_name, name = rec->u.config.name,
              value = rec->u.config.value;
    if (!lr_mdi_str_ok(rn, 0) || !lr_mdi_str_ok(name, 0) || !lr_mdi_str_ok(value, 1))
        return LOGREP_ERR__CORRUPT;
    if (rec->u.config.resource_type == LR_MD_RESOURCE_TOPIC) {
        lr_md_topic *t = lr_mdi_topic_by_name_len(img, rn.p, (size_t)rn.len);
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
    char *v = lr_mdi_dup_str(a, value);
    if (!v)
        return LOGREP_ERR__NOMEM;
    if (i < img->n_kvs) {
        lr_strfree(a, img->kvs[i].value);
        img->kvs[i].value = v;
        return 0;
    }
    md_kv kv = {rec->u.config.resource_type, lr_mdi_dup_str(a, rn), lr_mdi_dup_str(a, name), v};
    if (!kv.resource || !kv.name ||
        lr_mdi_grow(a, (void **)&img->kvs, &img->cap_kvs, img->n_kvs + 1, sizeof *img->kvs)) {
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

int32_t lr_mdi_topic_min_isr_raw(const lr_md_image *img, const lr_md_topic *t)
{
    int64_t d = parse_int(lr_md_cluster_config(img, "min.insync.replicas"), 1, INT32_MAX,
                          img->defaults.min_isr);
    return (int32_t)parse_int(lr_md_topic_config(t, "min.insync.replicas"), 1, INT32_MAX, d);
}

int32_t lr_md_topic_min_isr(const lr_md_image *img, const lr_md_topic *t)
{
    int32_t m = lr_mdi_topic_min_isr_raw(img, t);
    int32_t rf = t->n_parts > 0 ? t->parts[0].n_replicas : m;
    return m < rf ? m : rf;
}

int lr_md_topic_unclean(const lr_md_image *img, const lr_md_topic *t)
{
    int d = parse_bool(lr_md_cluster_config(img, "unclean.leader.election.enable"),
                       img->defaults.unclean_election);
    return parse_bool(lr_md_topic_config(t, "unclean.leader.election.enable"), d);
}

