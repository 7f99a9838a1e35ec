/* Node accessors: the generic tree API over decoded or built messages. */
#include <string.h>

#include "proto/msg.h"

static const lr_pfield *field(const logrep_struct *n, int i)
{
    if (!n || !n->s || i < 0 || i >= n->s->nfields)
        return NULL;
    return &n->s->fields[i];
}

static int is_int(int t)
{
    return t >= LOGREP_FT_BOOL && t <= LOGREP_FT_INT64;
}

static int is_blob(int t)
{
    return t == LOGREP_FT_STRING || t == LOGREP_FT_BYTES || t == LOGREP_FT_RECORDS;
}

int logrep_struct_field(const logrep_struct *n, const char *name)
{
    if (!n || !n->s || !name)
        return -1;
    /* Callers pass string literals, which the linker merges with the
     * schema's: compare addresses first, characters only if that fails. */
    for (int i = 0; i < n->s->nfields; i++)
        if (n->s->fields[i].name == name)
            return i;
    for (int i = 0; i < n->s->nfields; i++)
        if (strcmp(n->s->fields[i].name, name) == 0)
            return i;
    return -1;
}

int logrep_struct_field_count(const logrep_struct *n) { return n && n->s ? n->s->nfields : 0; }
const char *logrep_struct_type_name(const logrep_struct *n) { return n && n->s ? n->s->name : NULL; }

const char *logrep_struct_field_name(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f ? f->name : NULL;
}

int logrep_struct_field_type(const logrep_struct *n, int i, int *elem)
{
    const lr_pfield *f = field(n, i);
    if (elem)
        *elem = f ? f->elem : 0;
    return f ? f->type : 0;
}

/* Version of the message part a node belongs to. */
static int node_ver(const logrep_struct *n)
{
    return n == &n->m->hdr ? n->m->hver : n->m->ver;
}

int logrep_struct_has(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && lr_pf_has(f, node_ver(n));
}

int logrep_struct_tag_present(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && f->t0 >= 0 && n->v[i].present;
}

int64_t logrep_struct_int(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && is_int(f->type) ? n->v[i].u.i : 0;
}

double logrep_struct_float(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && f->type == LOGREP_FT_FLOAT64 ? n->v[i].u.f : 0.0;
}

const uint8_t *logrep_struct_uuid(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && f->type == LOGREP_FT_UUID ? n->v[i].u.p : NULL;
}

logrep_err logrep_struct_bytes(const logrep_struct *n, int i, const uint8_t **p, int32_t *len)
{
    const lr_pfield *f = field(n, i);
    if (!f || !is_blob(f->type) || !p || !len)
        return LOGREP_ERR__INVALID_ARG;
    if (n->v[i].is_file)
        return LOGREP_ERR__UNSUPPORTED;
    *p = n->v[i].u.p;
    *len = n->v[i].len;
    return LOGREP_OK;
}

int logrep_struct_is_null(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    if (!f)
        return 0;
    if (f->type == LOGREP_FT_STRUCT)
        return 0; /* no struct in the implemented schemas is nullable */
    return (is_blob(f->type) || f->type == LOGREP_FT_ARRAY) && n->v[i].len < 0;
}

int32_t logrep_struct_count(const logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    return f && f->type == LOGREP_FT_ARRAY ? n->v[i].len : 0;
}

static const lr_pv *elem_val(const logrep_struct *n, int i, int32_t k, int want_struct)
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_ARRAY || k < 0 || k >= n->v[i].len ||
        (f->elem == LOGREP_FT_STRUCT) != want_struct)
        return NULL;
    return &n->v[i];
}

logrep_struct *logrep_struct_elem(const logrep_struct *n, int i, int32_t k)
{
    const lr_pv *v = elem_val(n, i, k, 1);
    return v ? &v->u.node[k] : NULL;
}

int64_t logrep_struct_elem_int(const logrep_struct *n, int i, int32_t k)
{
    const lr_pv *v = elem_val(n, i, k, 0);
    return v && is_int(n->s->fields[i].elem) ? v->u.vals[k].u.i : 0;
}

logrep_err logrep_struct_elem_bytes(const logrep_struct *n, int i, int32_t k, const uint8_t **p,
                                  int32_t *len)
{
    const lr_pv *v = elem_val(n, i, k, 0);
    if (!v || is_int(n->s->fields[i].elem) || !p || !len)
        return LOGREP_ERR__INVALID_ARG;
    *p = v->u.vals[k].u.p;
    *len = v->u.vals[k].len;
    return LOGREP_OK;
}

logrep_struct *logrep_struct_struct(logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_STRUCT)
        return NULL;
    if (!n->v[i].u.node)
        n->v[i].u.node = lr_pnode_new(n->m, f->sub); /* defaults; not marked present */
    return n->v[i].u.node;
}

/* ---------------------------------------------------------------- setters */

static lr_pv *settable(logrep_struct *n, int i, int type_ok)
{
    const lr_pfield *f = field(n, i);
    if (!f || !type_ok)
        return NULL;
    n->v[i].present = 1;
    return &n->v[i];
}

logrep_err logrep_struct_set_int(logrep_struct *n, int i, int64_t v)
{
    const lr_pfield *f = field(n, i);
    lr_pv *pv = settable(n, i, f && is_int(f->type));
    if (!pv)
        return LOGREP_ERR__INVALID_ARG;
    pv->u.i = f->type == LOGREP_FT_BOOL ? v != 0 : v;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_float(logrep_struct *n, int i, double v)
{
    const lr_pfield *f = field(n, i);
    lr_pv *pv = settable(n, i, f && f->type == LOGREP_FT_FLOAT64);
    if (!pv)
        return LOGREP_ERR__INVALID_ARG;
    pv->u.f = v;
    return LOGREP_OK;
}

static logrep_err set_blob(logrep_struct *n, int i, const void *p, int32_t len, int copy, int rec)
{
    const lr_pfield *f = field(n, i);
    int ok = f && (rec ? f->type == LOGREP_FT_RECORDS
                       : f->type == LOGREP_FT_STRING || f->type == LOGREP_FT_BYTES);
    if (!ok || len < -1 || (len > 0 && !p))
        return LOGREP_ERR__INVALID_ARG;
    const uint8_t *q = len > 0 ? p : (const uint8_t *)"";
    if (copy && len > 0) {
        uint8_t *c = lr_arena_alloc(&n->m->arena, (size_t)len);
        if (!c)
            return LOGREP_ERR__NOMEM;
        memcpy(c, p, (size_t)len);
        q = c;
    }
    lr_pv *pv = settable(n, i, 1);
    pv->u.p = len >= 0 ? q : NULL;
    pv->len = len;
    pv->is_file = 0;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_bytes(logrep_struct *n, int i, const void *p, int32_t len)
{
    return set_blob(n, i, p, len, 0, 0);
}

logrep_err logrep_struct_set_bytes_copy(logrep_struct *n, int i, const void *p, int32_t len)
{
    return set_blob(n, i, p, len, 1, 0);
}

logrep_err logrep_struct_set_records(logrep_struct *n, int i, const void *p, int32_t len)
{
    return set_blob(n, i, p, len, 0, 1);
}

logrep_err logrep_struct_set_uuid(logrep_struct *n, int i, const uint8_t uuid[16])
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_UUID || !uuid)
        return LOGREP_ERR__INVALID_ARG;
    uint8_t *c = lr_arena_alloc(&n->m->arena, 16);
    if (!c)
        return LOGREP_ERR__NOMEM;
    memcpy(c, uuid, 16);
    lr_pv *pv = settable(n, i, 1);
    pv->u.p = c;
    pv->len = 16;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_records_file(logrep_struct *n, int i, int64_t file, int64_t pos,
                                        int64_t len)
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_RECORDS || file < 0 || pos < 0 || len < 0 || len > INT32_MAX)
        return LOGREP_ERR__INVALID_ARG;
    lr_pfile *r = lr_arena_alloc(&n->m->arena, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    r->file = file;
    r->pos = pos;
    lr_pv *pv = settable(n, i, 1);
    pv->u.file = r;
    pv->len = (int32_t)len;
    pv->is_file = len > 0; /* an empty range is just empty records */
    if (!pv->is_file)
        pv->u.p = (const uint8_t *)"";
    return LOGREP_OK;
}

logrep_err logrep_struct_set_null(logrep_struct *n, int i)
{
    const lr_pfield *f = field(n, i);
    lr_pv *pv = settable(n, i, f && (is_blob(f->type) || f->type == LOGREP_FT_ARRAY));
    if (!pv)
        return LOGREP_ERR__INVALID_ARG;
    pv->u.p = NULL;
    pv->len = -1;
    pv->is_file = 0;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_count(logrep_struct *n, int i, int32_t count)
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_ARRAY || count < -1)
        return LOGREP_ERR__INVALID_ARG;
    if (count > n->m->max_bytes)
        return LOGREP_ERR__LIMIT;
    void *mem = NULL;
    if (count > 0) {
        size_t nf = f->elem == LOGREP_FT_STRUCT ? f->sub->nfields : 0;
        size_t per = f->elem == LOGREP_FT_STRUCT ? sizeof(logrep_struct) + nf * sizeof(lr_pv)
                                                 : sizeof(lr_pv);
        size_t total;
        if (lr_mul_overflows((size_t)count, per, &total) ||
            !(mem = lr_arena_alloc(&n->m->arena, total)))
            return LOGREP_ERR__NOMEM;
        if (f->elem == LOGREP_FT_STRUCT) {
            logrep_struct *nodes = mem;
            lr_pv *vals = (lr_pv *)(nodes + count);
            for (int32_t k = 0; k < count; k++) {
                nodes[k] = (logrep_struct){f->sub, vals + (size_t)k * nf, NULL, 0, n->m};
                for (size_t j = 0; j < nf; j++)
                    lr_pv_default(&f->sub->fields[j], &nodes[k].v[j]);
            }
        } else {
            lr_pv *vals = mem;
            lr_pfield ef = *f;
            ef.type = f->elem;
            ef.flags = 0;
            ef.def = 0;
            for (int32_t k = 0; k < count; k++)
                lr_pv_default(&ef, &vals[k]);
        }
    }
    lr_pv *pv = settable(n, i, 1);
    pv->u.p = mem;
    pv->len = count;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_elem_int(logrep_struct *n, int i, int32_t k, int64_t v)
{
    const lr_pv *pv = elem_val(n, i, k, 0);
    if (!pv || !is_int(n->s->fields[i].elem))
        return LOGREP_ERR__INVALID_ARG;
    pv->u.vals[k].u.i = v;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_elem_bytes(logrep_struct *n, int i, int32_t k, const void *p,
                                      int32_t len)
{
    const lr_pv *pv = elem_val(n, i, k, 0);
    int t = pv ? n->s->fields[i].elem : 0;
    if (!pv || is_int(t) || len < 0 || (len > 0 && !p) || (t == LOGREP_FT_UUID && len != 16))
        return LOGREP_ERR__INVALID_ARG;
    const uint8_t *q = len > 0 ? p : (const uint8_t *)"";
    if (t == LOGREP_FT_UUID) {
        uint8_t *c = lr_arena_alloc(&n->m->arena, 16);
        if (!c)
            return LOGREP_ERR__NOMEM;
        memcpy(c, p, 16);
        q = c;
    }
    pv->u.vals[k].u.p = q;
    pv->u.vals[k].len = len;
    return LOGREP_OK;
}

logrep_err logrep_struct_set_struct(logrep_struct *n, int i, logrep_struct **out)
{
    const lr_pfield *f = field(n, i);
    if (!f || f->type != LOGREP_FT_STRUCT)
        return LOGREP_ERR__INVALID_ARG;
    logrep_struct *c = logrep_struct_struct(n, i);
    if (!c)
        return LOGREP_ERR__NOMEM;
    n->v[i].present = 1;
    if (out)
        *out = c;
    return LOGREP_OK;
}

uint32_t logrep_struct_unknown_tag_count(const logrep_struct *n)
{
    return n ? n->nunknown : 0;
}

logrep_err logrep_struct_unknown_tag(const logrep_struct *n, uint32_t i, uint32_t *tag,
                                   const uint8_t **p, uint32_t *len)
{
    if (!n || i >= n->nunknown || !tag || !p || !len)
        return LOGREP_ERR__INVALID_ARG;
    *tag = n->unknown[i].tag;
    *p = n->unknown[i].p;
    *len = n->unknown[i].len;
    return LOGREP_OK;
}

void logrep_struct_clear_unknown_tags(logrep_struct *n)
{
    if (n)
        n->nunknown = 0;
}
