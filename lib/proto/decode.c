/* Table-driven decoder. Every read is checked against the bytes left
 * before it happens, and every count against the bytes that could hold it
 * before anything is allocated. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/endian.h"
#include "codec/varint.h"
#include "proto/msg.h"

typedef struct dctx {
    logrep_msg *m;
    const uint8_t *base, *p, *end;
    int ver, flex;
} dctx;

static int fail(dctx *d, const lr_pfield *f, const char *what)
{
    lr_msg_seterr(d->m, "%s: byte %zu: %s", f ? f->name : "tagged fields",
                  (size_t)(d->p - d->base), what);
    return LOGREP_ERR__CORRUPT;
}

static int need(dctx *d, const lr_pfield *f, size_t n)
{
    if ((size_t)(d->end - d->p) < n)
        return fail(d, f, "truncated");
    return 0;
}

static int get_uvarint(dctx *d, const lr_pfield *f, uint32_t *out)
{
    if (lr_uvarint_get(&d->p, d->end, out))
        return fail(d, f, "truncated or overlong varint");
    return 0;
}

/* Smallest encoding of one value; bounds array counts by the bytes left. */
static size_t min_size(int type, const lr_pstruct *sub, int ver, int flex)
{
    switch (type) {
    case LOGREP_FT_BOOL:
    case LOGREP_FT_INT8: return 1;
    case LOGREP_FT_INT16:
    case LOGREP_FT_UINT16: return 2;
    case LOGREP_FT_INT32:
    case LOGREP_FT_UINT32: return 4;
    case LOGREP_FT_INT64:
    case LOGREP_FT_FLOAT64: return 8;
    case LOGREP_FT_UUID: return 16;
    case LOGREP_FT_STRING: return flex ? 1 : 2;
    case LOGREP_FT_STRUCT: {
        size_t n = flex ? 1 : 0;
        for (unsigned i = 0; i < sub->nfields; i++) {
            const lr_pfield *f = &sub->fields[i];
            if (lr_pf_has(f, ver) && !lr_pf_tagged(f, ver))
                n += min_size(f->type, f->sub, ver, flex);
        }
        return n;
    }
    default: return flex ? 1 : 4; /* bytes, records, arrays */
    }
}

/* Length of a string, bytes, records or array: -1 for null. */
static int get_len(dctx *d, const lr_pfield *f, int compact, int wide, int nullable,
                   int32_t *out)
{
    int64_t len;
    if (compact) {
        uint32_t u;
        int err = get_uvarint(d, f, &u);
        if (err)
            return err;
        len = (int64_t)u - 1;
    } else if (wide) {
        if (need(d, f, 4))
            return LOGREP_ERR__CORRUPT;
        len = (int32_t)lr_get_be32(d->p);
        d->p += 4;
    } else {
        if (need(d, f, 2))
            return LOGREP_ERR__CORRUPT;
        len = (int16_t)lr_get_be16(d->p);
        d->p += 2;
    }
    if (len < -1 || len > INT32_MAX)
        return fail(d, f, "invalid length");
    if (len == -1 && !nullable)
        return fail(d, f, "null in a non-nullable field");
    *out = (int32_t)len;
    return 0;
}

static int decode_value(dctx *d, const lr_pfield *f, int type, int nullable, lr_pv *v);

static int decode_array(dctx *d, const lr_pfield *f, int nullable, lr_pv *v)
{
    int32_t n;
    int err = get_len(d, f, d->flex, 1, nullable, &n);
    if (err)
        return err;
    v->len = n;
    v->u.p = NULL;
    if (n <= 0)
        return 0;
    size_t min = min_size(f->elem, f->sub, d->ver, d->flex);
    if ((size_t)n > (size_t)(d->end - d->p) / (min ? min : 1))
        return fail(d, f, "element count exceeds the bytes left");
    if (f->elem == LOGREP_FT_STRUCT) {
        size_t nf = f->sub->nfields, per = sizeof(logrep_struct) + nf * sizeof(lr_pv);
        uint8_t *mem = lr_arena_alloc(&d->m->arena, (size_t)n * per);
        if (!mem)
            return LOGREP_ERR__NOMEM;
        logrep_struct *nodes = (logrep_struct *)mem;
        lr_pv *vals = (lr_pv *)(mem + (size_t)n * sizeof(logrep_struct));
        v->u.node = nodes;
        for (int32_t i = 0; i < n; i++) {
            logrep_struct *e = &nodes[i];
            e->s = f->sub;
            e->v = vals + (size_t)i * nf;
            e->unknown = NULL;
            e->nunknown = 0;
            e->m = d->m;
            for (size_t k = 0; k < nf; k++)
                lr_pv_default(&f->sub->fields[k], &e->v[k]);
            err = lr_proto_decode_struct(d->m, d->base, &d->p, d->end, d->ver, d->flex, e);
            if (err)
                return err;
        }
        return 0;
    }
    lr_pv *vals = lr_arena_alloc(&d->m->arena, (size_t)n * sizeof(lr_pv));
    if (!vals)
        return LOGREP_ERR__NOMEM;
    v->u.vals = vals;
    for (int32_t i = 0; i < n; i++) {
        memset(&vals[i], 0, sizeof vals[i]);
        err = decode_value(d, f, f->elem, 0, &vals[i]);
        if (err)
            return err;
    }
    return 0;
}

static int decode_value(dctx *d, const lr_pfield *f, int type, int nullable, lr_pv *v)
{
    int32_t len;
    int err;
    switch (type) {
    case LOGREP_FT_BOOL:
        if (need(d, f, 1))
            return LOGREP_ERR__CORRUPT;
        v->u.i = *d->p++ != 0;
        return 0;
    case LOGREP_FT_INT8:
        if (need(d, f, 1))
            return LOGREP_ERR__CORRUPT;
        v->u.i = (int8_t)*d->p++;
        return 0;
    case LOGREP_FT_INT16:
    case LOGREP_FT_UINT16:
        if (need(d, f, 2))
            return LOGREP_ERR__CORRUPT;
        v->u.i = type == LOGREP_FT_INT16 ? (int16_t)lr_get_be16(d->p) : lr_get_be16(d->p);
        d->p += 2;
        return 0;
    case LOGREP_FT_INT32:
    case LOGREP_FT_UINT32:
        if (need(d, f, 4))
            return LOGREP_ERR__CORRUPT;
        v->u.i = type == LOGREP_FT_INT32 ? (int64_t)(int32_t)lr_get_be32(d->p) : (int64_t)lr_get_be32(d->p);
        d->p += 4;
        return 0;
    case LOGREP_FT_INT64:
    case LOGREP_FT_FLOAT64:
        if (need(d, f, 8))
            return LOGREP_ERR__CORRUPT;
        v->u.i = (int64_t)lr_get_be64(d->p); /* float64: same bits */
        d->p += 8;
        return 0;
    case LOGREP_FT_UUID:
        if (need(d, f, 16))
            return LOGREP_ERR__CORRUPT;
        v->u.p = d->p;
        v->len = 16;
        d->p += 16;
        return 0;
    case LOGREP_FT_STRING:
    case LOGREP_FT_BYTES:
    case LOGREP_FT_RECORDS:
        err = get_len(d, f, d->flex && !(f->flags & LR_PF_NOCOMPACT),
                      type != LOGREP_FT_STRING, nullable, &len);
        if (err)
            return err;
        if (type == LOGREP_FT_STRING && len > INT16_MAX)
            return fail(d, f, "string longer than 32767 bytes");
        if (len > 0 && need(d, f, (size_t)len))
            return LOGREP_ERR__CORRUPT;
        v->u.p = len >= 0 ? d->p : NULL;
        v->len = len;
        v->is_file = 0;
        if (len > 0)
            d->p += len;
        return 0;
    case LOGREP_FT_STRUCT: {
        logrep_struct *n = lr_pnode_new(d->m, f->sub);
        if (!n)
            return LOGREP_ERR__NOMEM;
        v->u.node = n;
        return lr_proto_decode_struct(d->m, d->base, &d->p, d->end, d->ver, d->flex, n);
    }
    case LOGREP_FT_ARRAY:
        return decode_array(d, f, nullable, v);
    }
    return fail(d, f, "bad schema type");
}

static int decode_tags(dctx *d, logrep_struct *n)
{
    uint32_t count, prev = 0;
    int err = get_uvarint(d, NULL, &count);
    if (err)
        return err;
    if (count > (size_t)(d->end - d->p) / 2)
        return fail(d, NULL, "tag count exceeds the bytes left");
    for (uint32_t k = 0; k < count; k++) {
        uint32_t tag, size;
        if ((err = get_uvarint(d, NULL, &tag)) || (err = get_uvarint(d, NULL, &size)))
            return err;
        if (k > 0 && tag <= prev)
            return fail(d, NULL, "tags not in ascending order");
        prev = tag;
        if (size > (size_t)(d->end - d->p))
            return fail(d, NULL, "tagged field longer than the bytes left");
        const lr_pfield *f = NULL;
        unsigned i;
        for (i = 0; i < n->s->nfields; i++) {
            const lr_pfield *c = &n->s->fields[i];
            if ((uint32_t)c->tag == tag && c->tag >= 0 && lr_pf_has(c, d->ver) &&
                lr_pf_tagged(c, d->ver)) {
                f = c;
                break;
            }
        }
        if (!f) {
            if (!n->unknown) {
                n->unknown = lr_arena_alloc(&d->m->arena, (size_t)count * sizeof(lr_ptag));
                if (!n->unknown)
                    return LOGREP_ERR__NOMEM;
            }
            n->unknown[n->nunknown++] = (lr_ptag){tag, size, d->p};
            d->p += size;
            continue;
        }
        const uint8_t *end = d->end;
        d->end = d->p + size;
        err = decode_value(d, f, f->type, lr_pf_nullable(f, d->ver), &n->v[i]);
        if (!err && d->p != d->end)
            err = fail(d, f, "tagged field size does not match its value");
        d->end = end;
        if (err)
            return err;
        n->v[i].present = 1;
    }
    return 0;
}

int lr_proto_decode_struct(logrep_msg *m, const uint8_t *base, const uint8_t **pp,
                           const uint8_t *end, int ver, int flex, logrep_struct *n)
{
    dctx d = {m, base, *pp, end, ver, flex};
    const lr_pstruct *s = n->s;
    int err;
    for (unsigned i = 0; i < s->nfields; i++) {
        const lr_pfield *f = &s->fields[i];
        if (!lr_pf_has(f, ver) || lr_pf_tagged(f, ver))
            continue;
        if ((err = decode_value(&d, f, f->type, lr_pf_nullable(f, ver), &n->v[i])))
            return err;
    }
    if (flex && (err = decode_tags(&d, n)))
        return err;
    *pp = d.p;
    return 0;
}
