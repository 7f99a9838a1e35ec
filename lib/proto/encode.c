/* Table-driven encoder. Writes the frame into the message's buffer; large
 * or file-backed record sets become their own segments so a host can send
 * them with writev()/sendfile() without copying. */
#include <string.h>

#include "base/endian.h"
#include "codec/varint.h"
#include "proto/msg.h"

/* Record sets at least this large are emitted as separate segments. */
enum { EXT_MIN = 1024 };

typedef struct ectx {
    logrep_msg *m;
    lr_buf *b;
    int ver, flex;
    int inline_only; /* flat output, or inside a tagged field */
    lr_pext *ext;
    size_t next, extcap;
    uint64_t extlen;
} ectx;

static int bad(ectx *e, const lr_pfield *f, const char *what)
{
    lr_msg_seterr(e->m, "%s: %s at version %d", f->name, what, e->ver);
    return LOGREP_ERR__INVALID_ARG;
}

static int put_uvarint(ectx *e, uint32_t v)
{
    if (lr_buf_reserve(e->b, LR_VARINT_MAX))
        return LOGREP_ERR__NOMEM;
    e->b->len += lr_uvarint_put(e->b->data + e->b->len, v);
    return 0;
}

static int put_be(ectx *e, uint64_t v, int width)
{
    if (lr_buf_reserve(e->b, 8))
        return LOGREP_ERR__NOMEM;
    uint8_t *p = e->b->data + e->b->len;
    switch (width) {
    case 1: p[0] = (uint8_t)v; break;
    case 2: lr_put_be16(p, (uint16_t)v); break;
    case 4: lr_put_be32(p, (uint32_t)v); break;
    default: lr_put_be64(p, v); break;
    }
    e->b->len += (size_t)width;
    return 0;
}

static int put_len(ectx *e, const lr_pfield *f, int32_t len, int compact, int width,
                   int nullable)
{
    if (len < 0 && !nullable)
        return bad(e, f, "null in a non-nullable field");
    if (compact)
        return put_uvarint(e, (uint32_t)(len + 1));
    return put_be(e, (uint64_t)(int64_t)len, width);
}

static int add_ext(ectx *e, const lr_pv *v)
{
    if (e->next == e->extcap) {
        size_t cap = e->extcap ? e->extcap * 2 : 8;
        lr_pext *x = lr_realloc(&e->m->alloc, e->ext, e->extcap * sizeof *x, cap * sizeof *x);
        if (!x)
            return LOGREP_ERR__NOMEM;
        e->ext = x;
        e->extcap = cap;
    }
    lr_pext *x = &e->ext[e->next++];
    x->off = e->b->len;
    x->seg.len = (uint64_t)v->len;
    if (v->is_file) {
        x->seg.data = NULL;
        x->seg.file = v->u.file->file;
        x->seg.pos = v->u.file->pos;
    } else {
        x->seg.data = v->u.p;
        x->seg.file = -1;
        x->seg.pos = 0;
    }
    e->extlen += (uint64_t)v->len;
    return 0;
}

static int encode_struct(ectx *e, const lr_pstruct *s, const logrep_struct *n);

static int encode_value(ectx *e, const lr_pfield *f, int type, int nullable, const lr_pv *v)
{
    int err;
    switch (type) {
    case LOGREP_FT_BOOL: return put_be(e, v->u.i != 0, 1);
    case LOGREP_FT_INT8: return put_be(e, (uint64_t)v->u.i, 1);
    case LOGREP_FT_INT16:
    case LOGREP_FT_UINT16: return put_be(e, (uint64_t)v->u.i, 2);
    case LOGREP_FT_INT32:
    case LOGREP_FT_UINT32: return put_be(e, (uint64_t)v->u.i, 4);
    case LOGREP_FT_INT64:
    case LOGREP_FT_FLOAT64: return put_be(e, (uint64_t)v->u.i, 8);
    case LOGREP_FT_UUID:
        return lr_buf_append(e->b, v->u.p, 16) ? LOGREP_ERR__NOMEM : 0;
    case LOGREP_FT_STRING:
    case LOGREP_FT_BYTES:
    case LOGREP_FT_RECORDS: {
        if (type == LOGREP_FT_STRING && v->len > INT16_MAX)
            return bad(e, f, "string longer than 32767 bytes");
        err = put_len(e, f, v->len, e->flex && !(f->flags & LR_PF_NOCOMPACT),
                      type == LOGREP_FT_STRING ? 2 : 4, nullable);
        if (err || v->len <= 0)
            return err;
        if (v->is_file || (type == LOGREP_FT_RECORDS && v->len >= EXT_MIN && !e->inline_only)) {
            if (e->inline_only) {
                lr_msg_seterr(e->m, "%s: a file range cannot be encoded flat", f->name);
                return LOGREP_ERR__UNSUPPORTED;
            }
            return add_ext(e, v);
        }
        return lr_buf_append(e->b, v->u.p, (size_t)v->len) ? LOGREP_ERR__NOMEM : 0;
    }
    case LOGREP_FT_STRUCT:
        return encode_struct(e, f->sub, v->u.node);
    case LOGREP_FT_ARRAY:
        if ((err = put_len(e, f, v->len, e->flex, 4, nullable)))
            return err;
        for (int32_t i = 0; i < v->len; i++) {
            if (f->elem == LOGREP_FT_STRUCT)
                err = encode_struct(e, f->sub, &v->u.node[i]);
            else
                err = encode_value(e, f, f->elem, 0, &v->u.vals[i]);
            if (err)
                return err;
        }
        return 0;
    }
    return bad(e, f, "bad schema type");
}

/* The value of field i: the node's, or the default when the node is absent
 * (a struct never set reads as all defaults). */
static const lr_pv *field_val(const lr_pstruct *s, const logrep_struct *n, unsigned i, lr_pv *tmp)
{
    if (n)
        return &n->v[i];
    lr_pv_default(&s->fields[i], tmp);
    return tmp;
}

/* Writes one known tagged field: tag, size, value. The value is encoded in
 * place after a 5-byte gap that is then closed around the real size. */
static int encode_tagged(ectx *e, const lr_pfield *f, const lr_pv *v)
{
    int err = put_uvarint(e, (uint32_t)f->tag);
    if (err || (err = lr_buf_reserve(e->b, LR_VARINT_MAX)))
        return err ? err : LOGREP_ERR__NOMEM;
    size_t at = e->b->len;
    e->b->len += LR_VARINT_MAX;
    int saved = e->inline_only;
    e->inline_only = 1;
    err = encode_value(e, f, f->type, lr_pf_nullable(f, e->ver), v);
    e->inline_only = saved;
    if (err)
        return err;
    size_t size = e->b->len - at - LR_VARINT_MAX;
    if (size > UINT32_MAX)
        return bad(e, f, "tagged field too large");
    uint8_t tmp[LR_VARINT_MAX];
    size_t k = lr_uvarint_put(tmp, (uint32_t)size);
    memmove(e->b->data + at + k, e->b->data + at + LR_VARINT_MAX, size);
    memcpy(e->b->data + at, tmp, k);
    e->b->len -= LR_VARINT_MAX - k;
    return 0;
}

static int encode_tags(ectx *e, const lr_pstruct *s, const logrep_struct *n)
{
    uint32_t count = 0;
    if (n) {
        for (unsigned i = 0; i < s->nfields; i++)
            if (n->v[i].present && lr_pf_has(&s->fields[i], e->ver) &&
                lr_pf_tagged(&s->fields[i], e->ver))
                count++;
        count += n->nunknown;
    }
    int err = put_uvarint(e, count);
    /* Merge known and unknown tags in ascending order; sections are tiny. */
    int64_t last = -1;
    for (uint32_t k = 0; !err && k < count; k++) {
        int64_t best = INT64_MAX;
        int known = -1;
        const lr_ptag *unk = NULL;
        for (unsigned i = 0; i < s->nfields; i++) {
            const lr_pfield *f = &s->fields[i];
            if (n->v[i].present && lr_pf_has(f, e->ver) && lr_pf_tagged(f, e->ver) &&
                f->tag > last && f->tag < best) {
                best = f->tag;
                known = (int)i;
            }
        }
        for (uint32_t u = 0; u < n->nunknown; u++) {
            if ((int64_t)n->unknown[u].tag > last && (int64_t)n->unknown[u].tag < best) {
                best = n->unknown[u].tag;
                unk = &n->unknown[u];
                known = -1;
            }
        }
        if (best == INT64_MAX) {
            lr_msg_seterr(e->m, "%s: duplicate tag", s->name);
            return LOGREP_ERR__INVALID_ARG;
        }
        last = best;
        if (known >= 0) {
            err = encode_tagged(e, &s->fields[known], &n->v[known]);
        } else if (!(err = put_uvarint(e, unk->tag)) && !(err = put_uvarint(e, unk->len))) {
            err = lr_buf_append(e->b, unk->p, unk->len) ? LOGREP_ERR__NOMEM : 0;
        }
    }
    return err;
}

static int encode_struct(ectx *e, const lr_pstruct *s, const logrep_struct *n)
{
    lr_pv tmp;
    for (unsigned i = 0; i < s->nfields; i++) {
        const lr_pfield *f = &s->fields[i];
        if (!lr_pf_has(f, e->ver) || lr_pf_tagged(f, e->ver))
            continue;
        int err = encode_value(e, f, f->type, lr_pf_nullable(f, e->ver), field_val(s, n, i, &tmp));
        if (err)
            return err;
    }
    return e->flex ? encode_tags(e, s, n) : 0;
}

static int encode_frame(logrep_msg *m, int inline_only, ectx *e)
{
    if (m->state != LR_MSG_FULL) {
        lr_msg_seterr(m, "no message to encode");
        return LOGREP_ERR__MISUSE;
    }
    m->errmsg[0] = 0;
    m->out.len = 0;
    *e = (ectx){.m = m, .b = &m->out, .inline_only = inline_only, .ext = m->ext, .extcap = m->extcap};
    int err = put_be(e, 0, 4);
    e->ver = m->hver;
    e->flex = m->is_resp ? m->hver >= 1 : m->hver >= 2;
    if (!err)
        err = encode_struct(e, m->hdr.s, &m->hdr);
    e->ver = m->ver;
    e->flex = m->ver >= m->api->flex;
    if (!err)
        err = encode_struct(e, m->root->s, m->root);
    if (!err && m->out.len - 4 + e->extlen > INT32_MAX) {
        lr_msg_seterr(m, "frame larger than 2 GiB");
        err = LOGREP_ERR__LIMIT;
    }
    if (!err)
        lr_put_be32(m->out.data, (uint32_t)(m->out.len - 4 + e->extlen));
    return err;
}

logrep_err logrep_msg_encode_flat(logrep_msg *m, const uint8_t **out, size_t *len)
{
    if (!m || !out || !len)
        return LOGREP_ERR__INVALID_ARG;
    ectx e;
    int err = encode_frame(m, 1, &e);
    m->ext = e.ext;
    m->extcap = e.extcap;
    if (err)
        return (logrep_err)err;
    *out = m->out.data;
    *len = m->out.len;
    return LOGREP_OK;
}

logrep_err logrep_msg_encode(logrep_msg *m, const logrep_seg **segs, size_t *nsegs,
                             uint64_t *total)
{
    if (!m || !segs || !nsegs)
        return LOGREP_ERR__INVALID_ARG;
    ectx e;
    int err = encode_frame(m, 0, &e);
    size_t need = 2 * e.next + 1;
    if (!err && need > m->segcap) {
        logrep_seg *s = lr_realloc(&m->alloc, m->segs, m->segcap * sizeof *s, need * sizeof *s);
        if (!s) {
            err = LOGREP_ERR__NOMEM;
        } else {
            m->segs = s;
            m->segcap = need;
        }
    }
    if (!err) {
        size_t k = 0, from = 0;
        for (size_t i = 0; i <= e.next; i++) {
            size_t to = i < e.next ? e.ext[i].off : m->out.len;
            if (to > from)
                m->segs[k++] = (logrep_seg){m->out.data + from, to - from, -1, 0};
            if (i < e.next)
                m->segs[k++] = e.ext[i].seg;
            from = to;
        }
        m->nsegs = k;
        *segs = m->segs;
        *nsegs = k;
        if (total)
            *total = m->out.len + e.extlen;
    }
    m->ext = e.ext;
    m->extcap = e.extcap;
    return (logrep_err)err;
}
