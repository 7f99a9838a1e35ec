/* Metadata record decoding (md_codec.c): a reader with a sticky error and
 * a bump arena, the records' bodies, lr_md_decode, lr_md_record_clear. */
#include <string.h>

#include "base/endian.h"
#include "codec/varint.h"
#include "controller/md_int.h"

/* ------------------------------------------------------------------------
 * Reader with a sticky error
 * ---------------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p, *end;
    int err;
    /* bump arena for decoded arrays, owned by the record */
    uint8_t *arena;
    size_t arena_used, arena_cap;
} rd;

static int rd_need(rd *r, size_t n)
{
    if (r->err)
        return 0;
    if ((size_t)(r->end - r->p) < n) {
        r->err = LOGREP_ERR__CORRUPT;
        return 0;
    }
    return 1;
}

static uint8_t rd_u8(rd *r)
{
    if (!rd_need(r, 1))
        return 0;
    return *r->p++;
}

static int16_t rd_i16(rd *r)
{
    if (!rd_need(r, 2))
        return 0;
    int16_t v = (int16_t)lr_get_be16(r->p);
    r->p += 2;
    return v;
}

static int32_t rd_i32(rd *r)
{
    if (!rd_need(r, 4))
        return 0;
    int32_t v = (int32_t)lr_get_be32(r->p);
    r->p += 4;
    return v;
}

static int64_t rd_i64(rd *r)
{
    if (!rd_need(r, 8))
        return 0;
    int64_t v = (int64_t)lr_get_be64(r->p);
    r->p += 8;
    return v;
}

static void rd_uuid(rd *r, uint8_t out[16])
{
    if (!rd_need(r, 16)) {
        memset(out, 0, 16);
        return;
    }
    memcpy(out, r->p, 16);
    r->p += 16;
}

static uint32_t rd_uvar(rd *r)
{
    uint32_t v = 0;
    if (r->err)
        return 0;
    if (lr_uvarint_get(&r->p, r->end, &v))
        r->err = LOGREP_ERR__CORRUPT;
    return v;
}

/* Compact length prefix: returns -1 for null, else the length, checked
 * against the remaining bytes at min_elem bytes per element. */
static int32_t rd_compact_len(rd *r, int nullable, size_t min_elem)
{
    uint32_t u = rd_uvar(r);
    if (r->err)
        return -1;
    if (u == 0) {
        if (!nullable)
            r->err = LOGREP_ERR__CORRUPT;
        return -1;
    }
    uint64_t n = (uint64_t)u - 1;
    if (n > INT32_MAX || n * min_elem > (uint64_t)(r->end - r->p)) {
        r->err = LOGREP_ERR__CORRUPT;
        return -1;
    }
    return (int32_t)n;
}

static void rd_str(rd *r, lr_md_str *s, int nullable)
{
    s->p = NULL;
    s->len = -1;
    int32_t n = rd_compact_len(r, nullable, 1);
    if (r->err || n < 0)
        return;
    if (n > INT16_MAX) { /* Kafka strings carry at most 32767 bytes */
        r->err = LOGREP_ERR__CORRUPT;
        return;
    }
    s->p = (const char *)r->p;
    s->len = n;
    r->p += n;
}

static void *rd_alloc(rd *r, size_t n)
{
    size_t at = (r->arena_used + 7) & ~(size_t)7;
    if (r->err || at > r->arena_cap || n > r->arena_cap - at) {
        if (!r->err)
            r->err = LOGREP_ERR__CORRUPT;
        return NULL;
    }
    r->arena_used = at + n;
    return r->arena + at;
}

static void rd_ids(rd *r, lr_md_ids *ids, int nullable)
{
    ids->v = NULL;
    ids->n = -1;
    int32_t n = rd_compact_len(r, nullable, 4);
    if (r->err || n < 0)
        return;
    int32_t *v = n ? rd_alloc(r, (size_t)n * 4) : NULL;
    if (r->err)
        return;
    for (int32_t i = 0; i < n; i++)
        v[i] = rd_i32(r);
    ids->v = v;
    ids->n = n;
}

static void rd_uuids(rd *r, const uint8_t **dirs, int32_t *n_dirs, int nullable)
{
    *dirs = NULL;
    *n_dirs = -1;
    int32_t n = rd_compact_len(r, nullable, 16);
    if (r->err || n < 0)
        return;
    *dirs = r->p;
    *n_dirs = n;
    r->p += (size_t)n * 16;
}

/* Reads a tagged-field section. field() handles the tags it knows and
 * returns 1, or 0 to have the tag skipped. Tags must be strictly ascending
 * and each known field must consume exactly its size. */
typedef int (*rd_tag_fn)(rd *sub, uint32_t tag, void *ctx);

static void rd_tags(rd *r, rd_tag_fn field, void *ctx)
{
    uint32_t n = rd_uvar(r);
    int64_t last = -1;
    for (uint32_t i = 0; i < n && !r->err; i++) {
        uint32_t tag = rd_uvar(r);
        uint32_t size = rd_uvar(r);
        if (r->err)
            return;
        if ((int64_t)tag <= last || size > (size_t)(r->end - r->p)) {
            r->err = LOGREP_ERR__CORRUPT;
            return;
        }
        last = tag;
        rd sub = *r;
        sub.end = r->p + size;
        if (field && field(&sub, tag, ctx)) {
            if (sub.err || sub.p != sub.end) {
                r->err = sub.err ? sub.err : LOGREP_ERR__CORRUPT;
                return;
            }
            r->arena_used = sub.arena_used;
        }
        r->p += size;
    }
}

/* ------------------------------------------------------------------------
 * Per-record bodies
 * ---------------------------------------------------------------------- */

static void dec_register(rd *r, lr_md_record *rec)
{
    int v = rec->version;
    struct lr_md_reg_rec *g = &rec->u.reg;
    g->broker_id = rd_i32(r);
    if (v >= 2)
        g->is_migrating_zk = rd_u8(r) != 0;
    rd_uuid(r, g->incarnation);
    g->epoch = rd_i64(r);
    int32_t n = rd_compact_len(r, 0, 7);
    if (r->err)
        return;
    lr_md_endpoint_rec *eps = n ? rd_alloc(r, (size_t)n * sizeof *eps) : NULL;
    for (int32_t i = 0; i < n && !r->err; i++) {
        rd_str(r, &eps[i].name, 0);
        rd_str(r, &eps[i].host, 0);
        eps[i].port = (uint16_t)rd_i16(r);
        eps[i].security_protocol = rd_i16(r);
        rd_tags(r, NULL, NULL);
    }
    g->endpoints = eps;
    g->n_endpoints = n;
    n = rd_compact_len(r, 0, 6);
    if (r->err)
        return;
    lr_md_feature_rec *fs = n ? rd_alloc(r, (size_t)n * sizeof *fs) : NULL;
    for (int32_t i = 0; i < n && !r->err; i++) {
        rd_str(r, &fs[i].name, 0);
        fs[i].min_version = rd_i16(r);
        fs[i].max_version = rd_i16(r);
        rd_tags(r, NULL, NULL);
    }
    g->features = fs;
    g->n_features = n;
    rd_str(r, &g->rack, 1);
    g->fenced = rd_u8(r) != 0;
    if (v >= 1)
        g->in_controlled_shutdown = rd_u8(r) != 0;
    rd_tags(r, NULL, NULL); /* v3 LogDirs (tag 0) is not modelled */
}

typedef struct part_tags {
    lr_md_record *rec;
    int change; /* PartitionChangeRecord */
} part_tags;

static int partition_tag(rd *r, uint32_t tag, void *ctx)
{
    part_tags *pt = ctx;
    struct lr_md_part_rec *p = &pt->rec->u.part;
    int v = pt->rec->version;
    if (!pt->change) {
        switch (tag) {
        case 0: p->lrs = (int8_t)rd_u8(r); return 1;
        case 1: if (v < 2) return 0; rd_ids(r, &p->elr, 1); return 1;
        case 2: if (v < 2) return 0; rd_ids(r, &p->lke, 1); return 1;
        default: return 0;
        }
    }
    switch (tag) {
    case 0: rd_ids(r, &p->isr, 1); return 1;
    case 1: p->leader = rd_i32(r); return 1;
    case 2: rd_ids(r, &p->replicas, 1); return 1;
    case 3: rd_ids(r, &p->removing, 1); return 1;
    case 4: rd_ids(r, &p->adding, 1); return 1;
    case 5: p->lrs = (int8_t)rd_u8(r); return 1;
    case 6: if (v < 2) return 0; rd_ids(r, &p->elr, 1); return 1;
    case 7: if (v < 2) return 0; rd_ids(r, &p->lke, 1); return 1;
    case 8: if (v < 1) return 0; rd_uuids(r, &p->dirs, &p->n_dirs, 1); return 1;
    default: return 0;
    }
}

static void dec_partition(rd *r, lr_md_record *rec)
{
    struct lr_md_part_rec *p = &rec->u.part;
    p->partition_id = rd_i32(r);
    rd_uuid(r, p->topic_id);
    rd_ids(r, &p->replicas, 0);
    rd_ids(r, &p->isr, 0);
    rd_ids(r, &p->removing, 0);
    rd_ids(r, &p->adding, 0);
    p->leader = rd_i32(r);
    p->leader_epoch = rd_i32(r);
    p->partition_epoch = rd_i32(r);
    if (rec->version >= 1)
        rd_uuids(r, &p->dirs, &p->n_dirs, 0);
    part_tags pt = {rec, 0};
    rd_tags(r, partition_tag, &pt);
}

static void dec_partition_change(rd *r, lr_md_record *rec)
{
    struct lr_md_part_rec *p = &rec->u.part;
    p->partition_id = rd_i32(r);
    rd_uuid(r, p->topic_id);
    part_tags pt = {rec, 1};
    rd_tags(r, partition_tag, &pt);
}

static int change_tag(rd *r, uint32_t tag, void *ctx)
{
    lr_md_record *rec = ctx;
    if (tag == 0) {
        rec->u.change.fenced = (int8_t)rd_u8(r);
        return 1;
    }
    if (tag == 1 && rec->version >= 1) {
        rec->u.change.in_controlled_shutdown = (int8_t)rd_u8(r);
        return 1;
    }
    return 0; /* v2 LogDirs (tag 2) is not modelled */
}

static void dec_body(rd *r, lr_md_record *rec)
{
    switch (rec->type) {
    case LR_MD_REGISTER_BROKER:
        dec_register(r, rec);
        return;
    case LR_MD_UNREGISTER_BROKER:
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER:
        rec->u.broker.broker_id = rd_i32(r);
        rec->u.broker.epoch = rd_i64(r);
        break;
    case LR_MD_TOPIC:
        rd_str(r, &rec->u.topic.name, 0);
        rd_uuid(r, rec->u.topic.topic_id);
        break;
    case LR_MD_PARTITION:
        dec_partition(r, rec);
        return;
    case LR_MD_CONFIG:
        rec->u.config.resource_type = (int8_t)rd_u8(r);
        rd_str(r, &rec->u.config.resource_name, 0);
        rd_str(r, &rec->u.config.name, 0);
        rd_str(r, &rec->u.config.value, 1);
        break;
    case LR_MD_PARTITION_CHANGE:
        dec_partition_change(r, rec);
        return;
    case LR_MD_REMOVE_TOPIC:
        rd_uuid(r, rec->u.remove_topic.topic_id);
        break;
    case LR_MD_PRODUCER_IDS:
        rec->u.pids.broker_id = rd_i32(r);
        rec->u.pids.broker_epoch = rd_i64(r);
        rec->u.pids.next_producer_id = rd_i64(r);
        break;
    case LR_MD_BROKER_REGISTRATION_CHANGE:
        rec->u.change.broker_id = rd_i32(r);
        rec->u.change.broker_epoch = rd_i64(r);
        rd_tags(r, change_tag, rec);
        return;
    }
    rd_tags(r, NULL, NULL);
}

int lr_md_decode(const lr_alloc *a, const uint8_t *buf, size_t len, lr_md_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rd r = {buf, buf + len, 0, NULL, 0, 0};
    uint32_t frame = rd_uvar(&r), type = rd_uvar(&r), version = rd_uvar(&r);
    if (r.err)
        return LOGREP_ERR__CORRUPT;
    if (frame != 1)
        return LOGREP_ERR__CORRUPT;
    int maxv = type > 0xffff ? -1 : lr_mdi_max_version((int)type);
    if (maxv < 0 || version > (uint32_t)maxv)
        return LOGREP_ERR__UNSUPPORTED;
    lr_md_record_init(rec, (lr_md_rtype)type, (int16_t)version);
    /* Decoded arrays cost at most 6x the bytes that encode them (an
     * endpoint: >= 7 input bytes, 40 output bytes), plus alignment. */
    if (type == LR_MD_REGISTER_BROKER || type == LR_MD_PARTITION || type == LR_MD_PARTITION_CHANGE) {
        size_t cap;
        if (len > (SIZE_MAX - 128) / 8)
            return LOGREP_ERR__CORRUPT;
        cap = 8 * len + 128;
        r.arena = lr_malloc(a, cap);
        if (!r.arena)
            return LOGREP_ERR__NOMEM;
        r.arena_cap = cap;
    }
    dec_body(&r, rec);
    if (!r.err && r.p != r.end)
        r.err = LOGREP_ERR__CORRUPT; /* trailing bytes */
    if (r.err) {
        lr_free(a, r.arena, r.arena_cap);
        memset(rec, 0, sizeof *rec);
        return r.err;
    }
    rec->mem = r.arena;
    rec->mem_size = r.arena_cap;
    rec->alloc = r.arena ? a : NULL;
    return 0;
}

void lr_md_record_clear(lr_md_record *rec)
{
    if (rec->mem && rec->alloc)
        lr_free(rec->alloc, rec->mem, rec->mem_size);
    rec->mem = NULL;
    rec->alloc = NULL;
    rec->mem_size = 0;
}
