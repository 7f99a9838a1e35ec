/* `__consumer_offsets` record codec. See records.h. */
#include <string.h>

#include "base/endian.h"
#include "codec/varint.h"
#include "group/records.h"

/* ------------------------------------------------------------------------
 * Writer
 * ---------------------------------------------------------------------- */

typedef struct wr {
    lr_buf *b;
    int flex;
    int err;
} wr;

static void put(wr *w, const void *p, size_t n)
{
    if (!w->err && n)
        w->err = lr_buf_append(w->b, p, n);
}

static void put16(wr *w, int16_t v)
{
    uint8_t x[2];
    lr_put_be16(x, (uint16_t)v);
    put(w, x, 2);
}

static void put32(wr *w, int32_t v)
{
    uint8_t x[4];
    lr_put_be32(x, (uint32_t)v);
    put(w, x, 4);
}

static void put64(wr *w, int64_t v)
{
    uint8_t x[8];
    lr_put_be64(x, (uint64_t)v);
    put(w, x, 8);
}

static void put_uv(wr *w, uint32_t v)
{
    uint8_t x[LR_VARINT_MAX];
    put(w, x, lr_uvarint_put(x, v));
}

/* A (nullable) string: int16 length, or compact (length + 1) when flexible. */
static void put_str(wr *w, lr_gr_slice s)
{
    int32_t n = s.n < 0 ? -1 : s.n;
    if (w->flex)
        put_uv(w, (uint32_t)(n + 1));
    else
        put16(w, (int16_t)n);
    if (n > 0)
        put(w, s.p, (size_t)n);
}

static void put_bytes(wr *w, lr_gr_slice s)
{
    int32_t n = s.n < 0 ? -1 : s.n;
    if (w->flex)
        put_uv(w, (uint32_t)(n + 1));
    else
        put32(w, n);
    if (n > 0)
        put(w, s.p, (size_t)n);
}

static void put_tags(wr *w)
{
    if (w->flex)
        put_uv(w, 0);
}

/* ------------------------------------------------------------------------
 * Reader
 * ---------------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p, *end;
    int flex;
    int err;
} rd;

static int need(rd *r, size_t n)
{
    if (r->err || (size_t)(r->end - r->p) < n) {
        r->err = LOGREP_ERR__CORRUPT;
        return 0;
    }
    return 1;
}

static int16_t get16(rd *r)
{
    if (!need(r, 2))
        return 0;
    int16_t v = (int16_t)lr_get_be16(r->p);
    r->p += 2;
    return v;
}

static int32_t get32(rd *r)
{
    if (!need(r, 4))
        return 0;
    int32_t v = (int32_t)lr_get_be32(r->p);
    r->p += 4;
    return v;
}

static int64_t get64(rd *r)
{
    if (!need(r, 8))
        return 0;
    int64_t v = (int64_t)lr_get_be64(r->p);
    r->p += 8;
    return v;
}

static uint32_t get_uv(rd *r)
{
    uint32_t v = 0;
    if (!r->err && lr_uvarint_get(&r->p, r->end, &v))
        r->err = LOGREP_ERR__CORRUPT;
    return v;
}

/* Length of a string (wide: bytes) or null (-1). */
static int32_t get_len(rd *r, int wide, int nullable)
{
    int32_t n;
    if (r->flex) {
        uint32_t u = get_uv(r);
        n = u > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)u - 1;
    } else {
        n = wide ? get32(r) : get16(r);
    }
    if (!r->err && (n < -1 || (n == -1 && !nullable)))
        r->err = LOGREP_ERR__CORRUPT;
    return n;
}

static lr_gr_slice get_slice(rd *r, int wide, int nullable)
{
    lr_gr_slice s = {NULL, -1};
    int32_t n = get_len(r, wide, nullable);
    if (r->err || n < 0 || !need(r, (size_t)n))
        return s;
    s.p = r->p;
    s.n = n;
    r->p += n;
    return s;
}

static void skip_tags(rd *r)
{
    if (!r->flex)
        return;
    uint32_t n = get_uv(r);
    for (uint32_t i = 0; i < n && !r->err; i++) {
        (void)get_uv(r); /* tag */
        uint32_t size = get_uv(r);
        if (need(r, size))
            r->p += size;
    }
}

static int finish(rd *r)
{
    if (!r->err && r->p != r->end)
        r->err = LOGREP_ERR__CORRUPT;
    return r->err;
}

/* ------------------------------------------------------------------------
 * Keys
 * ---------------------------------------------------------------------- */

int lr_gr_decode_key(const uint8_t *p, size_t len, lr_gr_key *out)
{
    rd r = {p, p + len, 0, 0};
    memset(out, 0, sizeof *out);
    out->topic.n = -1;
    out->version = get16(&r);
    if (r.err)
        return r.err;
    if (out->version < 0 || out->version > LR_GR_KEY_GROUP)
        return LOGREP_ERR__UNSUPPORTED;
    out->group = get_slice(&r, 0, 0);
    if (out->version != LR_GR_KEY_GROUP) {
        out->topic = get_slice(&r, 0, 0);
        out->partition = get32(&r);
    }
    return finish(&r);
}

int lr_gr_encode_offset_key(lr_buf *b, int16_t version, lr_gr_slice group, lr_gr_slice topic,
                            int32_t partition)
{
    wr w = {b, 0, 0};
    put16(&w, version);
    put_str(&w, group);
    put_str(&w, topic);
    put32(&w, partition);
    return w.err;
}

int lr_gr_encode_group_key(lr_buf *b, lr_gr_slice group)
{
    wr w = {b, 0, 0};
    put16(&w, LR_GR_KEY_GROUP);
    put_str(&w, group);
    return w.err;
}

/* ------------------------------------------------------------------------
 * Offset commit value
 * ---------------------------------------------------------------------- */

int16_t lr_gr_offset_version(const lr_gr_offset *v) { return v->expire_ts >= 0 ? 1 : 3; }

int lr_gr_encode_offset(lr_buf *b, const lr_gr_offset *v)
{
    int16_t ver = v->version;
    wr w = {b, ver >= 4, 0};
    put16(&w, ver);
    put64(&w, v->offset);
    if (ver >= 3)
        put32(&w, v->leader_epoch);
    lr_gr_slice md = v->metadata.n < 0 ? lr_gr_cstr("") : v->metadata;
    put_str(&w, md);
    put64(&w, v->commit_ts);
    if (ver == 1)
        put64(&w, v->expire_ts);
    put_tags(&w);
    return w.err;
}

int lr_gr_decode_offset(const uint8_t *p, size_t len, lr_gr_offset *out)
{
    rd r = {p, p + len, 0, 0};
    memset(out, 0, sizeof *out);
    out->leader_epoch = -1;
    out->expire_ts = -1;
    out->version = get16(&r);
    if (r.err)
        return r.err;
    if (out->version < 0 || out->version > 4)
        return LOGREP_ERR__UNSUPPORTED;
    r.flex = out->version >= 4;
    out->offset = get64(&r);
    if (out->version >= 3)
        out->leader_epoch = get32(&r);
    out->metadata = get_slice(&r, 0, 0);
    out->commit_ts = get64(&r);
    if (out->version == 1)
        out->expire_ts = get64(&r);
    skip_tags(&r);
    return finish(&r);
}

/* ------------------------------------------------------------------------
 * Group metadata value
 * ---------------------------------------------------------------------- */

int lr_gr_encode_group(lr_buf *b, const lr_gr_group *g, const lr_gr_member *members, size_t n)
{
    int16_t ver = g->version;
    wr w = {b, ver >= 4, 0};
    put16(&w, ver);
    put_str(&w, g->protocol_type.n < 0 ? lr_gr_cstr("") : g->protocol_type);
    put32(&w, g->generation);
    put_str(&w, g->protocol);
    put_str(&w, g->leader);
    if (ver >= 2)
        put64(&w, g->state_ts);
    if (w.flex)
        put_uv(&w, (uint32_t)n + 1);
    else
        put32(&w, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        const lr_gr_member *m = &members[i];
        put_str(&w, m->member_id);
        if (ver >= 3)
            put_str(&w, m->instance_id);
        put_str(&w, m->client_id);
        put_str(&w, m->client_host);
        if (ver >= 1)
            put32(&w, m->rebalance_timeout);
        put32(&w, m->session_timeout);
        put_bytes(&w, m->subscription.n < 0 ? lr_gr_cstr("") : m->subscription);
        put_bytes(&w, m->assignment.n < 0 ? lr_gr_cstr("") : m->assignment);
        put_tags(&w);
    }
    put_tags(&w);
    return w.err;
}

static void read_member(rd *r, int16_t ver, lr_gr_member *m)
{
    memset(m, 0, sizeof *m);
    m->member_id = get_slice(r, 0, 0);
    m->instance_id.n = -1;
    if (ver >= 3)
        m->instance_id = get_slice(r, 0, 1);
    m->client_id = get_slice(r, 0, 0);
    m->client_host = get_slice(r, 0, 0);
    int32_t rt = ver >= 1 ? get32(r) : 0;
    m->session_timeout = get32(r);
    m->rebalance_timeout = ver >= 1 ? rt : m->session_timeout;
    m->subscription = get_slice(r, 1, 0);
    m->assignment = get_slice(r, 1, 0);
    skip_tags(r);
}

int lr_gr_decode_group(const uint8_t *p, size_t len, lr_gr_group *out)
{
    rd r = {p, p + len, 0, 0};
    memset(out, 0, sizeof *out);
    out->state_ts = -1;
    out->version = get16(&r);
    if (r.err)
        return r.err;
    if (out->version < 0 || out->version > 4)
        return LOGREP_ERR__UNSUPPORTED;
    r.flex = out->version >= 4;
    out->protocol_type = get_slice(&r, 0, 0);
    out->generation = get32(&r);
    out->protocol = get_slice(&r, 0, 1);
    out->leader = get_slice(&r, 0, 1);
    if (out->version >= 2)
        out->state_ts = get64(&r);
    int32_t n = r.flex ? (int32_t)get_uv(&r) - 1 : get32(&r);
    if (r.err || n < 0)
        return LOGREP_ERR__CORRUPT;
    out->n_members = n;
    out->members_at = r.p;
    lr_gr_member m;
    /* Each member takes at least 2 bytes: the count cannot outrun the input. */
    for (int32_t i = 0; i < n && !r.err; i++)
        read_member(&r, out->version, &m);
    skip_tags(&r);
    out->end = r.p;
    return finish(&r);
}

void lr_gr_members(const lr_gr_group *g, lr_gr_cursor *c)
{
    c->p = g->members_at;
    c->end = g->end;
    c->version = g->version;
    c->left = g->n_members;
}

int lr_gr_member_next(lr_gr_cursor *c, lr_gr_member *m)
{
    if (c->left <= 0)
        return 0;
    rd r = {c->p, c->end, c->version >= 4, 0};
    read_member(&r, c->version, m);
    if (r.err) { /* not after a successful lr_gr_decode_group */
        c->left = 0;
        return 0;
    }
    c->p = r.p;
    c->left--;
    return 1;
}

/* ------------------------------------------------------------------------
 * Coordinator partition
 * ---------------------------------------------------------------------- */

/* One code point from UTF-8 at p[i..len), or -1 (one malformed byte). */
static int32_t utf8_next(const uint8_t *p, size_t len, size_t *i)
{
    uint8_t c = p[*i];
    size_t n;
    int32_t cp, min;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xe0) == 0xc0) {
        n = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        (*i)++;
        return -1;
    }
    if (len - *i < n) {
        (*i)++;
        return -1;
    }
    for (size_t k = 1; k < n; k++) {
        if ((p[*i + k] & 0xc0) != 0x80) {
            (*i)++;
            return -1;
        }
        cp = cp << 6 | (p[*i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        (*i)++;
        return -1;
    }
    *i += n;
    return cp;
}

int32_t lr_gr_java_hash(const uint8_t *p, size_t len)
{
    uint32_t h = 0;
    for (size_t i = 0; i < len;) {
        int32_t cp = utf8_next(p, len, &i);
        if (cp < 0)
            cp = 0xfffd;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (uint32_t)(0xd800 + (cp >> 10));
            h = 31 * h + (uint32_t)(0xdc00 + (cp & 0x3ff));
        } else {
            h = 31 * h + (uint32_t)cp;
        }
    }
    return (int32_t)h;
}

int32_t lr_gr_partition_for(const uint8_t *group, size_t len, int32_t n)
{
    int32_t h = lr_gr_java_hash(group, len);
    int32_t a = h == INT32_MIN ? 0 : (h < 0 ? -h : h);
    return n > 0 ? a % n : 0;
}
