/* Message lifecycle, decode entry points, request/response set-up. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/conf.h"
#include "base/endian.h"
#include "proto/msg.h"

/* Arena memory a message keeps between uses. */
enum { KEEP_BYTES = 4 << 20 };

static const uint8_t zero_uuid[16];

void lr_msg_seterr(logrep_msg *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->errmsg, sizeof m->errmsg, fmt, ap);
    va_end(ap);
}

void lr_pv_default(const lr_pfield *f, lr_pv *v)
{
    memset(v, 0, sizeof *v);
    switch (f->type) {
    case LOGREP_FT_FLOAT64: v->u.f = (double)f->def; break;
    case LOGREP_FT_UUID: v->u.p = zero_uuid; v->len = 16; break;
    case LOGREP_FT_STRING:
    case LOGREP_FT_BYTES:
    case LOGREP_FT_RECORDS:
        if (f->flags & LR_PF_DEFNULL)
            v->len = -1;
        else
            v->u.p = (const uint8_t *)"";
        break;
    case LOGREP_FT_ARRAY: v->len = (f->flags & LR_PF_DEFNULL) ? -1 : 0; break;
    case LOGREP_FT_STRUCT: break;
    default: v->u.i = f->def; break;
    }
}

int lr_pnode_init(logrep_msg *m, logrep_struct *n, const lr_pstruct *s)
{
    n->s = s;
    n->m = m;
    n->unknown = NULL;
    n->nunknown = 0;
    n->v = lr_arena_alloc(&m->arena, (s->nfields ? s->nfields : 1) * sizeof(lr_pv));
    if (!n->v)
        return LOGREP_ERR__NOMEM;
    for (unsigned i = 0; i < s->nfields; i++)
        lr_pv_default(&s->fields[i], &n->v[i]);
    return 0;
}

logrep_struct *lr_pnode_new(logrep_msg *m, const lr_pstruct *s)
{
    logrep_struct *n = lr_arena_alloc(&m->arena, sizeof *n);
    if (!n || lr_pnode_init(m, n, s))
        return NULL;
    return n;
}

int lr_proto_req_hver(const lr_papi *api, int v)
{
    return v >= api->flex ? 2 : 1;
}

int lr_proto_resp_hver(const lr_papi *api, int v)
{
    /* ApiVersions responses keep header v0 so any client can read them. */
    return v >= api->flex && api->key != LOGREP_API_API_VERSIONS ? 1 : 0;
}

void lr_msg_clear(logrep_msg *m)
{
    lr_arena_reset(&m->arena, KEEP_BYTES);
    m->api = NULL;
    m->key = m->ver = -1;
    m->is_resp = 0;
    m->state = LR_MSG_EMPTY;
    m->hver = 0;
    memset(&m->hdr, 0, sizeof m->hdr);
    m->root = NULL;
    m->out.len = 0;
    m->nsegs = 0;
    m->errmsg[0] = 0;
}

logrep_err logrep_msg_new(const logrep_conf *conf, logrep_msg **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_msg *m = lr_calloc(a, 1, sizeof *m);
    if (!m)
        return LOGREP_ERR__NOMEM;
    m->alloc = *a;
    m->max_bytes = lr_conf_int(conf, LR_CONF_SOCKET_REQUEST_MAX_BYTES);
    lr_arena_init(&m->arena, &m->alloc);
    lr_buf_init(&m->out, &m->alloc);
    lr_msg_clear(m);
    *out = m;
    return LOGREP_OK;
}

void logrep_msg_free(logrep_msg *m)
{
    if (!m)
        return;
    lr_arena_free(&m->arena);
    lr_buf_free(&m->out);
    lr_free(&m->alloc, m->segs, m->segcap * sizeof *m->segs);
    lr_free(&m->alloc, m->ext, m->extcap * sizeof *m->ext);
    lr_free(&m->alloc, m, sizeof *m);
}

/* Checks the size prefix of a whole frame; sets *body to what follows. */
static int check_frame(logrep_msg *m, const void *frame, size_t len, const uint8_t **body)
{
    if (!frame && len)
        return LOGREP_ERR__INVALID_ARG;
    if (len < 4) {
        lr_msg_seterr(m, "frame of %zu bytes has no size prefix", len);
        return LOGREP_ERR__CORRUPT;
    }
    int32_t size = (int32_t)lr_get_be32(frame);
    if (size < 0) {
        lr_msg_seterr(m, "negative frame size %d", (int)size);
        return LOGREP_ERR__CORRUPT;
    }
    if (size > m->max_bytes) {
        lr_msg_seterr(m, "frame size %d exceeds socket.request.max.bytes %lld", (int)size,
                      (long long)m->max_bytes);
        return LOGREP_ERR__LIMIT;
    }
    if ((size_t)size != len - 4) {
        lr_msg_seterr(m, "frame size prefix %d but %zu bytes follow", (int)size, len - 4);
        return LOGREP_ERR__CORRUPT;
    }
    *body = (const uint8_t *)frame + 4;
    return 0;
}

static int decode_body(logrep_msg *m, const uint8_t *base, const uint8_t *p, const uint8_t *end,
                       const lr_pstruct *s)
{
    int hflex = m->is_resp ? m->hver >= 1 : m->hver >= 2;
    int err = lr_pnode_init(m, &m->hdr, m->is_resp ? &lr_proto_response_header
                                                    : &lr_proto_request_header);
    if (!err)
        err = lr_proto_decode_struct(m, base, &p, end, m->hver, hflex, &m->hdr);
    if (err)
        return err;
    m->state = LR_MSG_HEADER;
    logrep_struct *root = lr_pnode_new(m, s);
    if (!root)
        return LOGREP_ERR__NOMEM;
    err = lr_proto_decode_struct(m, base, &p, end, m->ver, m->ver >= m->api->flex, root);
    if (err)
        return err;
    /* Bytes after a request's body are ignored, as Kafka's broker ignores
     * them (librdkafka 2.0.2 sends some after ListGroups v4 and OffsetFetch
     * v7); a response must end with its body. */
    if (p != end && m->is_resp) {
        lr_msg_seterr(m, "%zu trailing bytes after the body", (size_t)(end - p));
        return LOGREP_ERR__CORRUPT;
    }
    m->root = root;
    m->state = LR_MSG_FULL;
    return 0;
}

static logrep_err decode_fail(logrep_msg *m, int err, const char *what)
{
    m->root = NULL;
    if (m->state == LR_MSG_FULL)
        m->state = LR_MSG_HEADER;
    if (err != LOGREP_ERR__NOMEM && m->errmsg[0] && m->api) {
        char tmp[sizeof m->errmsg];
        memcpy(tmp, m->errmsg, sizeof tmp);
        lr_msg_seterr(m, "%s v%d %s: %s", m->api->name, m->ver, what, tmp);
    }
    return (logrep_err)err;
}

logrep_err logrep_msg_decode_request(logrep_msg *m, const void *frame, size_t len)
{
    if (!m)
        return LOGREP_ERR__INVALID_ARG;
    lr_msg_clear(m);
    const uint8_t *p, *base = frame;
    int err = check_frame(m, frame, len, &p);
    if (err)
        return (logrep_err)err;
    const uint8_t *end = base + len;
    if (end - p < 8) {
        lr_msg_seterr(m, "request header truncated");
        return LOGREP_ERR__CORRUPT;
    }
    m->key = (int16_t)lr_get_be16(p);
    m->ver = (int16_t)lr_get_be16(p + 2);
    m->api = lr_proto_api_find(m->key);
    if (!m->api || m->ver < m->api->min || m->ver > m->api->max) {
        /* Read what a reply needs (the v1 header fields), not the body. */
        m->hver = 1;
        if (lr_pnode_init(m, &m->hdr, &lr_proto_request_header))
            return LOGREP_ERR__NOMEM;
        const uint8_t *q = p;
        if (lr_proto_decode_struct(m, base, &q, end, 1, 0, &m->hdr) != 0) {
            m->hdr.v[0].u.i = m->key;
            m->hdr.v[1].u.i = m->ver;
            m->hdr.v[2].u.i = (int32_t)lr_get_be32(p + 4);
        }
        m->state = LR_MSG_HEADER;
        if (!m->api) {
            lr_msg_seterr(m, "unknown API key %d", m->key);
            return LOGREP_ERR__UNSUPPORTED;
        }
        lr_msg_seterr(m, "%s version %d outside %d..%d", m->api->name, m->ver, m->api->min,
                      m->api->max);
        return LOGREP_ERR_UNSUPPORTED_VERSION;
    }
    m->hver = (uint8_t)lr_proto_req_hver(m->api, m->ver);
    err = decode_body(m, base, p, end, m->api->req);
    return err ? decode_fail(m, err, "request") : LOGREP_OK;
}

static const lr_papi *find_api(logrep_msg *m, int key, int version)
{
    const lr_papi *api = lr_proto_api_find(key);
    if (!api || version < api->min || version > api->max) {
        lr_msg_seterr(m, "API %d version %d not implemented", key, version);
        return NULL;
    }
    return api;
}

logrep_err logrep_msg_decode_response(logrep_msg *m, int api_key, int version, const void *frame,
                                      size_t len)
{
    if (!m)
        return LOGREP_ERR__INVALID_ARG;
    lr_msg_clear(m);
    const lr_papi *api = find_api(m, api_key, version);
    if (!api)
        return LOGREP_ERR__UNSUPPORTED;
    const uint8_t *p;
    int err = check_frame(m, frame, len, &p);
    if (err)
        return (logrep_err)err;
    m->api = api;
    m->key = (int16_t)api_key;
    m->ver = (int16_t)version;
    m->is_resp = 1;
    m->hver = (uint8_t)lr_proto_resp_hver(api, version);
    err = decode_body(m, frame, p, (const uint8_t *)frame + len, api->resp);
    return err ? decode_fail(m, err, "response") : LOGREP_OK;
}

static logrep_err init_msg(logrep_msg *m, int api_key, int version, int is_resp, int32_t corr)
{
    if (!m)
        return LOGREP_ERR__INVALID_ARG;
    lr_msg_clear(m);
    const lr_papi *api = find_api(m, api_key, version);
    if (!api)
        return LOGREP_ERR__UNSUPPORTED;
    m->api = api;
    m->key = (int16_t)api_key;
    m->ver = (int16_t)version;
    m->is_resp = (uint8_t)is_resp;
    m->hver = (uint8_t)(is_resp ? lr_proto_resp_hver(api, version)
                                : lr_proto_req_hver(api, version));
    if (lr_pnode_init(m, &m->hdr, is_resp ? &lr_proto_response_header
                                          : &lr_proto_request_header))
        return LOGREP_ERR__NOMEM;
    if (is_resp) {
        m->hdr.v[0].u.i = corr;
    } else {
        m->hdr.v[0].u.i = api_key;
        m->hdr.v[1].u.i = version;
        m->hdr.v[2].u.i = corr;
    }
    m->root = lr_pnode_new(m, is_resp ? api->resp : api->req);
    if (!m->root) {
        lr_msg_clear(m);
        return LOGREP_ERR__NOMEM;
    }
    m->state = LR_MSG_FULL;
    return LOGREP_OK;
}

logrep_err logrep_msg_init_request(logrep_msg *m, int api_key, int version,
                                   int32_t correlation_id, const char *client_id)
{
    logrep_err err = init_msg(m, api_key, version, 0, correlation_id);
    if (!err && client_id) {
        size_t n = strlen(client_id);
        if (n > INT16_MAX) {
            lr_msg_clear(m);
            return LOGREP_ERR__INVALID_ARG;
        }
        err = logrep_struct_set_bytes_copy(&m->hdr, 3, client_id, (int32_t)n);
    }
    return err;
}

logrep_err logrep_msg_init_response(logrep_msg *m, int api_key, int version,
                                    int32_t correlation_id)
{
    return init_msg(m, api_key, version, 1, correlation_id);
}

logrep_err logrep_msg_init_response_to(logrep_msg *m, const logrep_msg *req)
{
    if (!m || !req || m == req)
        return LOGREP_ERR__INVALID_ARG;
    if (req->is_resp || req->state == LR_MSG_EMPTY || !req->hdr.s)
        return LOGREP_ERR__MISUSE;
    int32_t corr = logrep_msg_correlation_id(req);
    if (req->key == LOGREP_API_API_VERSIONS && req->api &&
        (req->ver < req->api->min || req->ver > req->api->max)) {
        logrep_err err = init_msg(m, LOGREP_API_API_VERSIONS, 0, 1, corr);
        if (!err)
            err = logrep_struct_set_int(m->root, 0, LOGREP_ERR_UNSUPPORTED_VERSION);
        if (!err)
            err = logrep_msg_fill_api_versions(m);
        return err;
    }
    return init_msg(m, req->key, req->ver, 1, corr);
}

int logrep_msg_api_key(const logrep_msg *m) { return m ? m->key : -1; }
int logrep_msg_version(const logrep_msg *m) { return m ? m->ver : -1; }
int logrep_msg_is_response(const logrep_msg *m) { return m ? m->is_resp : 0; }

int32_t logrep_msg_correlation_id(const logrep_msg *m)
{
    if (!m || !m->hdr.s)
        return 0;
    return (int32_t)m->hdr.v[m->is_resp ? 0 : 2].u.i;
}

logrep_err logrep_msg_client_id(const logrep_msg *m, const uint8_t **p, int32_t *len)
{
    if (!m || !p || !len || !m->hdr.s || m->is_resp)
        return LOGREP_ERR__INVALID_ARG;
    *p = m->hdr.v[3].u.p;
    *len = m->hdr.v[3].len;
    return LOGREP_OK;
}

logrep_struct *logrep_msg_header(logrep_msg *m)
{
    return m && m->hdr.s ? &m->hdr : NULL;
}

logrep_struct *logrep_msg_root(logrep_msg *m)
{
    return m ? m->root : NULL;
}

const char *logrep_msg_errmsg(const logrep_msg *m)
{
    return m ? m->errmsg : "";
}
