#include "base/conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct prop {
    const char *name;
    enum lr_conf_type type;
    int64_t idef, min, max;
    const char *sdef;
    const char *allowed;
    const char *doc;
} prop;

#define LR_CONF_PROP(id, name, type, idef, min, max, sdef, allowed, doc) \
    {name, type, idef, min, max, sdef, allowed, doc},
static const prop props[LR_CONF__COUNT] = {
#include "base/conf_props.h"
};
#undef LR_CONF_PROP

static void seterr(char *errbuf, size_t size, const char *fmt, ...) LR_PRINTF(3, 4);
static void seterr(char *errbuf, size_t size, const char *fmt, ...)
{
    if (!errbuf || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, size, fmt, ap);
    va_end(ap);
}

static int find(const char *name)
{
    for (int i = 0; i < LR_CONF__COUNT; i++)
        if (strcmp(props[i].name, name) == 0)
            return i;
    return -1;
}

LOGREP_API logrep_conf *logrep_conf_new(void)
{
    logrep_conf *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->alloc = lr_alloc_default;
    for (int i = 0; i < LR_CONF__COUNT; i++)
        c->vals[i].i = props[i].idef; /* strings stay NULL: default */
    return c;
}

LOGREP_API void logrep_conf_free(logrep_conf *c)
{
    if (!c)
        return;
    for (int i = 0; i < LR_CONF__COUNT; i++)
        free(c->vals[i].s);
    free(c);
}

LOGREP_API logrep_conf *logrep_conf_dup(const logrep_conf *src)
{
    if (!src)
        return logrep_conf_new();
    logrep_conf *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *src;
    for (int i = 0; i < LR_CONF__COUNT; i++) {
        if (src->vals[i].s) {
            c->vals[i].s = strdup(src->vals[i].s);
            if (!c->vals[i].s) {
                for (int j = 0; j < i; j++)
                    free(c->vals[j].s);
                free(c);
                return NULL;
            }
        }
    }
    return c;
}

static int parse_int(const char *v, int64_t *out)
{
    const char *p = v;
    if (*p == '+' || *p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    errno = 0;
    long long x = strtoll(v, NULL, 10);
    if (errno == ERANGE)
        return -1;
    *out = (int64_t)x;
    return 0;
}

static int allowed(const char *list, const char *v)
{
    size_t n = strlen(v);
    const char *p = list;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

LOGREP_API logrep_err logrep_conf_set(logrep_conf *c, const char *name, const char *value,
                                      char *errbuf, size_t errbuf_size)
{
    if (!c || !name || !value) {
        seterr(errbuf, errbuf_size, "NULL argument");
        return LOGREP_ERR__INVALID_ARG;
    }
    int i = find(name);
    if (i < 0) {
        seterr(errbuf, errbuf_size, "unknown property \"%s\"", name);
        return LOGREP_ERR__UNKNOWN_CONF;
    }
    const prop *p = &props[i];
    switch (p->type) {
    case LR_CONF_BOOL:
        if (strcmp(value, "true") == 0)
            c->vals[i].i = 1;
        else if (strcmp(value, "false") == 0)
            c->vals[i].i = 0;
        else {
            seterr(errbuf, errbuf_size, "%s: expected true or false, got \"%s\"", name, value);
            return LOGREP_ERR__INVALID_CONF;
        }
        return LOGREP_OK;
    case LR_CONF_INT: {
        int64_t v;
        if (parse_int(value, &v) != 0) {
            seterr(errbuf, errbuf_size, "%s: \"%s\" is not an integer", name, value);
            return LOGREP_ERR__INVALID_CONF;
        }
        if (v < p->min || v > p->max) {
            seterr(errbuf, errbuf_size, "%s: %lld is outside [%lld, %lld]", name, (long long)v,
                   (long long)p->min, (long long)p->max);
            return LOGREP_ERR__INVALID_CONF;
        }
        /* Kafka's gzip validator: 1..9 or -1 (zlib's default), not 0. */
        if (i == LR_CONF_COMPRESSION_GZIP_LEVEL && v == 0) {
            seterr(errbuf, errbuf_size, "%s: 0 is not -1 or in [1, 9]", name);
            return LOGREP_ERR__INVALID_CONF;
        }
        c->vals[i].i = v;
        return LOGREP_OK;
    }
    case LR_CONF_STR: {
        if (p->allowed && !allowed(p->allowed, value)) {
            seterr(errbuf, errbuf_size, "%s: \"%s\" is not one of %s", name, value, p->allowed);
            return LOGREP_ERR__INVALID_CONF;
        }
        char *s = strdup(value);
        if (!s) {
            seterr(errbuf, errbuf_size, "out of memory");
            return LOGREP_ERR__NOMEM;
        }
        free(c->vals[i].s);
        c->vals[i].s = s;
        return LOGREP_OK;
    }
    }
    return LOGREP_ERR__INVALID_ARG;
}

LOGREP_API logrep_err logrep_conf_get(const logrep_conf *c, const char *name, char *buf,
                                      size_t size, size_t *needed)
{
    int i = name ? find(name) : -1;
    if (i < 0)
        return LOGREP_ERR__UNKNOWN_CONF;
    char tmp[32];
    const char *s;
    if (props[i].type == LR_CONF_STR) {
        s = lr_conf_str(c, (lr_conf_id)i);
    } else if (props[i].type == LR_CONF_BOOL) {
        s = lr_conf_int(c, (lr_conf_id)i) ? "true" : "false";
    } else {
        snprintf(tmp, sizeof tmp, "%lld", (long long)lr_conf_int(c, (lr_conf_id)i));
        s = tmp;
    }
    size_t n = strlen(s) + 1;
    if (needed)
        *needed = n;
    if (buf && size) {
        size_t k = n <= size ? n - 1 : size - 1;
        memcpy(buf, s, k);
        buf[k] = 0;
    }
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_conf_get_int64(const logrep_conf *c, const char *name, int64_t *out)
{
    int i = name ? find(name) : -1;
    if (i < 0)
        return LOGREP_ERR__UNKNOWN_CONF;
    if (props[i].type == LR_CONF_STR || !out)
        return LOGREP_ERR__INVALID_ARG;
    *out = lr_conf_int(c, (lr_conf_id)i);
    return LOGREP_OK;
}

LOGREP_API size_t logrep_conf_property_count(void)
{
    return LR_CONF__COUNT;
}

LOGREP_API logrep_err logrep_conf_property(size_t i, const char **name, const char **doc)
{
    if (i >= LR_CONF__COUNT)
        return LOGREP_ERR__INVALID_ARG;
    if (name)
        *name = props[i].name;
    if (doc)
        *doc = props[i].doc;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_conf_set_allocator(logrep_conf *c, const logrep_allocator *a)
{
    if (!c)
        return LOGREP_ERR__INVALID_ARG;
    if (!a) {
        c->alloc = lr_alloc_default;
        return LOGREP_OK;
    }
    if (!a->alloc || !a->realloc || !a->free)
        return LOGREP_ERR__INVALID_ARG;
    c->alloc = *a;
    return LOGREP_OK;
}

LOGREP_API void logrep_conf_set_logger(logrep_conf *c, logrep_logger_fn fn, void *ctx, int max_level)
{
    if (!c)
        return;
    c->log.fn = fn;
    c->log.ctx = ctx;
    c->log.level = max_level;
}

int64_t lr_conf_int(const logrep_conf *c, lr_conf_id id)
{
    return c ? c->vals[id].i : props[id].idef;
}

const char *lr_conf_str(const logrep_conf *c, lr_conf_id id)
{
    if (c && c->vals[id].s)
        return c->vals[id].s;
    return props[id].sdef ? props[id].sdef : "";
}

const lr_alloc *lr_conf_alloc(const logrep_conf *c)
{
    return c ? &c->alloc : &lr_alloc_default;
}

lr_log lr_conf_log(const logrep_conf *c)
{
    lr_log none = {NULL, NULL, 0};
    return c ? c->log : none;
}
