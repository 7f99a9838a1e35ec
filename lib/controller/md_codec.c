/* Metadata record codec: Kafka's KRaft record framing and the flexible
 * versions of the records listed in metadata.h. */
#include <string.h>

#include "base/endian.h"
#include "codec/varint.h"
#include "controller/metadata.h"

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
 * Writer with a sticky error
 * ---------------------------------------------------------------------- */

typedef struct wr {
    lr_buf *b;
    int err;
} wr;

static void w_bytes(wr *w, const void *p, size_t n)
{
    if (!w->err && n)
        w->err = lr_buf_append(w->b, p, n);
}

static void w_u8(wr *w, uint8_t v) { w_bytes(w, &v, 1); }

static void w_i16(wr *w, int16_t v)
{
    uint8_t t[2];
    lr_put_be16(t, (uint16_t)v);
    w_bytes(w, t, 2);
}

static void w_i32(wr *w, int32_t v)
{
    uint8_t t[4];
    lr_put_be32(t, (uint32_t)v);
    w_bytes(w, t, 4);
}

static void w_i64(wr *w, int64_t v)
{
    uint8_t t[8];
    lr_put_be64(t, (uint64_t)v);
    w_bytes(w, t, 8);
}

static void w_uvar(wr *w, uint32_t v)
{
    uint8_t t[LR_VARINT_MAX];
    w_bytes(w, t, lr_uvarint_put(t, v));
}

static void w_str(wr *w, lr_md_str s, int nullable)
{
    if (s.len < 0 || !s.p) {
        if (!nullable && !w->err)
            w->err = LOGREP_ERR__INVALID_ARG;
        w_uvar(w, 0);
        return;
    }
    if (s.len > INT16_MAX) {
        if (!w->err)
            w->err = LOGREP_ERR__INVALID_ARG;
        return;
    }
    w_uvar(w, (uint32_t)s.len + 1);
    w_bytes(w, s.p, (size_t)s.len);
}

static size_t ids_size(lr_md_ids ids)
{
    if (ids.n < 0)
        return 1;
    return lr_uvarint_size((uint32_t)ids.n + 1) + 4 * (size_t)ids.n;
}

static void w_ids(wr *w, lr_md_ids ids, int nullable)
{
    if (ids.n < 0) {
        if (!nullable && !w->err)
            w->err = LOGREP_ERR__INVALID_ARG;
        w_uvar(w, 0);
        return;
    }
    w_uvar(w, (uint32_t)ids.n + 1);
    for (int32_t i = 0; i < ids.n; i++)
        w_i32(w, ids.v[i]);
}

static size_t uuids_size(int32_t n)
{
    return lr_uvarint_size((uint32_t)n + 1) + 16 * (size_t)n;
}

/* DirectoryId.UNASSIGNED: Uuid(0, 1). */
static const uint8_t dir_unassigned[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

static void w_uuids(wr *w, const uint8_t *dirs, int32_t n, int32_t n_default)
{
    if (!dirs) {
        w_uvar(w, (uint32_t)n_default + 1);
        for (int32_t i = 0; i < n_default; i++)
            w_bytes(w, dir_unassigned, 16);
        return;
    }
    w_uvar(w, (uint32_t)n + 1);
    w_bytes(w, dirs, 16 * (size_t)n);
}

/* Tagged fields: callers emit (tag, size) with w_tag and then the value. */
static void w_tag(wr *w, uint32_t tag, size_t size)
{
    w_uvar(w, tag);
    w_uvar(w, (uint32_t)size);
}

/* ------------------------------------------------------------------------
 * Per-record bodies
 * ---------------------------------------------------------------------- */

static void enc_register(wr *w, const lr_md_record *rec)
{
    int v = rec->version;
    const struct lr_md_reg_rec *r = &rec->u.reg;
    w_i32(w, r->broker_id);
    if (v >= 2)
        w_u8(w, r->is_migrating_zk ? 1 : 0);
    w_bytes(w, r->incarnation, 16);
    w_i64(w, r->epoch);
    if (r->n_endpoints < 0 || r->n_features < 0) {
        w->err = w->err ? w->err : LOGREP_ERR__INVALID_ARG;
        return;
    }
    w_uvar(w, (uint32_t)r->n_endpoints + 1);
    for (int32_t i = 0; i < r->n_endpoints; i++) {
        const lr_md_endpoint_rec *e = &r->endpoints[i];
        w_str(w, e->name, 0);
        w_str(w, e->host, 0);
        w_i16(w, (int16_t)e->port);
        w_i16(w, e->security_protocol);
        w_uvar(w, 0);
    }
    w_uvar(w, (uint32_t)r->n_features + 1);
    for (int32_t i = 0; i < r->n_features; i++) {
        const lr_md_feature_rec *f = &r->features[i];
        w_str(w, f->name, 0);
        w_i16(w, f->min_version);
        w_i16(w, f->max_version);
        w_uvar(w, 0);
    }
    w_str(w, r->rack, 1);
    w_u8(w, r->fenced ? 1 : 0);
    if (v >= 1)
        w_u8(w, r->in_controlled_shutdown ? 1 : 0);
    w_uvar(w, 0);
}

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

static void enc_partition(wr *w, const lr_md_record *rec)
{
    int v = rec->version;
    const struct lr_md_part_rec *p = &rec->u.part;
    w_i32(w, p->partition_id);
    w_bytes(w, p->topic_id, 16);
    w_ids(w, p->replicas, 0);
    w_ids(w, p->isr, 0);
    w_ids(w, p->removing, 0);
    w_ids(w, p->adding, 0);
    w_i32(w, p->leader);
    w_i32(w, p->leader_epoch);
    w_i32(w, p->partition_epoch);
    if (v >= 1)
        w_uuids(w, p->dirs, p->n_dirs, p->replicas.n < 0 ? 0 : p->replicas.n);
    /* Tagged: LRS (0) when not the default 0; ELR (1) and LastKnownElr (2)
     * when non-empty, as Kafka's PartitionRegistration.toRecord writes. */
    int has_lrs = p->lrs != 0;
    int has_elr = v >= 2 && p->elr.n > 0;
    int has_lke = v >= 2 && p->lke.n > 0;
    w_uvar(w, (uint32_t)(has_lrs + has_elr + has_lke));
    if (has_lrs) {
        w_tag(w, 0, 1);
        w_u8(w, (uint8_t)p->lrs);
    }
    if (has_elr) {
        w_tag(w, 1, ids_size(p->elr));
        w_ids(w, p->elr, 1);
    }
    if (has_lke) {
        w_tag(w, 2, ids_size(p->lke));
        w_ids(w, p->lke, 1);
    }
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

static void enc_partition_change(wr *w, const lr_md_record *rec)
{
    int v = rec->version;
    const struct lr_md_part_rec *p = &rec->u.part;
    w_i32(w, p->partition_id);
    w_bytes(w, p->topic_id, 16);
    /* Tagged fields in tag order; null / -2 / -1 mean "no change". */
    int has[9] = {
        p->isr.n >= 0,
        p->leader != LR_MD_NO_LEADER_CHANGE,
        p->replicas.n >= 0,
        p->removing.n >= 0,
        p->adding.n >= 0,
        p->lrs != LR_MD_LRS_NO_CHANGE,
        v >= 2 && p->elr.n >= 0,
        v >= 2 && p->lke.n >= 0,
        v >= 1 && p->dirs != NULL && p->n_dirs >= 0,
    };
    uint32_t n = 0;
    for (int i = 0; i < 9; i++)
        n += (uint32_t)has[i];
    w_uvar(w, n);
    const lr_md_ids *lists[9] = {&p->isr, NULL, &p->replicas, &p->removing, &p->adding,
                                 NULL, &p->elr, &p->lke, NULL};
    for (uint32_t tag = 0; tag < 9; tag++) {
        if (!has[tag])
            continue;
        if (lists[tag]) {
            w_tag(w, tag, ids_size(*lists[tag]));
            w_ids(w, *lists[tag], 1);
        } else if (tag == 1) {
            w_tag(w, tag, 4);
            w_i32(w, p->leader);
        } else if (tag == 5) {
            w_tag(w, tag, 1);
            w_u8(w, (uint8_t)p->lrs);
        } else {
            w_tag(w, tag, uuids_size(p->n_dirs));
            w_uuids(w, p->dirs, p->n_dirs, 0);
        }
    }
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

static void enc_body(wr *w, const lr_md_record *rec)
{
    switch (rec->type) {
    case LR_MD_REGISTER_BROKER:
        enc_register(w, rec);
        return;
    case LR_MD_UNREGISTER_BROKER:
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER:
        w_i32(w, rec->u.broker.broker_id);
        w_i64(w, rec->u.broker.epoch);
        break;
    case LR_MD_TOPIC:
        w_str(w, rec->u.topic.name, 0);
        w_bytes(w, rec->u.topic.topic_id, 16);
        break;
    case LR_MD_PARTITION:
        enc_partition(w, rec);
        return;
    case LR_MD_CONFIG:
        w_u8(w, (uint8_t)rec->u.config.resource_type);
        w_str(w, rec->u.config.resource_name, 0);
        w_str(w, rec->u.config.name, 0);
        w_str(w, rec->u.config.value, 1);
        break;
    case LR_MD_PARTITION_CHANGE:
        enc_partition_change(w, rec);
        return;
    case LR_MD_REMOVE_TOPIC:
        w_bytes(w, rec->u.remove_topic.topic_id, 16);
        break;
    case LR_MD_PRODUCER_IDS:
        w_i32(w, rec->u.pids.broker_id);
        w_i64(w, rec->u.pids.broker_epoch);
        w_i64(w, rec->u.pids.next_producer_id);
        break;
    case LR_MD_BROKER_REGISTRATION_CHANGE: {
        const struct lr_md_change_rec *c = &rec->u.change;
        w_i32(w, c->broker_id);
        w_i64(w, c->broker_epoch);
        int f = c->fenced != 0, s = rec->version >= 1 && c->in_controlled_shutdown != 0;
        w_uvar(w, (uint32_t)(f + s));
        if (f) {
            w_tag(w, 0, 1);
            w_u8(w, (uint8_t)c->fenced);
        }
        if (s) {
            w_tag(w, 1, 1);
            w_u8(w, (uint8_t)c->in_controlled_shutdown);
        }
        return;
    }
    }
    w_uvar(w, 0); /* empty tagged-field section */
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

/* ------------------------------------------------------------------------
 * Public entry points
 * ---------------------------------------------------------------------- */

static int max_version(int type)
{
    switch (type) {
    case LR_MD_REGISTER_BROKER: return 3;
    case LR_MD_PARTITION:
    case LR_MD_PARTITION_CHANGE:
    case LR_MD_BROKER_REGISTRATION_CHANGE: return 2;
    case LR_MD_UNREGISTER_BROKER:
    case LR_MD_TOPIC:
    case LR_MD_CONFIG:
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER:
    case LR_MD_REMOVE_TOPIC:
    case LR_MD_PRODUCER_IDS: return 0;
    default: return -1;
    }
}

const char *lr_md_rtype_name(int type)
{
    switch (type) {
    case LR_MD_REGISTER_BROKER: return "RegisterBrokerRecord";
    case LR_MD_UNREGISTER_BROKER: return "UnregisterBrokerRecord";
    case LR_MD_TOPIC: return "TopicRecord";
    case LR_MD_PARTITION: return "PartitionRecord";
    case LR_MD_CONFIG: return "ConfigRecord";
    case LR_MD_PARTITION_CHANGE: return "PartitionChangeRecord";
    case LR_MD_FENCE_BROKER: return "FenceBrokerRecord";
    case LR_MD_UNFENCE_BROKER: return "UnfenceBrokerRecord";
    case LR_MD_REMOVE_TOPIC: return "RemoveTopicRecord";
    case LR_MD_PRODUCER_IDS: return "ProducerIdsRecord";
    case LR_MD_BROKER_REGISTRATION_CHANGE: return "BrokerRegistrationChangeRecord";
    default: return "UNKNOWN";
    }
}

void lr_md_record_init(lr_md_record *rec, lr_md_rtype type, int16_t version)
{
    memset(rec, 0, sizeof *rec);
    rec->type = type;
    rec->version = version;
    if (type == LR_MD_PARTITION || type == LR_MD_PARTITION_CHANGE) {
        int change = type == LR_MD_PARTITION_CHANGE;
        struct lr_md_part_rec *p = &rec->u.part;
        int32_t n = change ? -1 : 0; /* change: null = no change */
        p->replicas.n = p->isr.n = p->removing.n = p->adding.n = n;
        p->elr.n = p->lke.n = change ? -1 : 0;
        p->leader = change ? LR_MD_NO_LEADER_CHANGE : LR_MD_NO_LEADER;
        p->lrs = change ? LR_MD_LRS_NO_CHANGE : LR_MD_RECOVERED;
        p->n_dirs = -1;
    } else if (type == LR_MD_REGISTER_BROKER) {
        rec->u.reg.rack.len = -1;
        rec->u.reg.fenced = 1;
    } else if (type == LR_MD_CONFIG) {
        rec->u.config.value.len = -1;
    }
}

int lr_md_encode(const lr_md_record *rec, lr_buf *out)
{
    int maxv = max_version((int)rec->type);
    if (maxv < 0 || rec->version < 0 || rec->version > maxv)
        return LOGREP_ERR__UNSUPPORTED;
    size_t old = out->len;
    wr w = {out, 0};
    w_uvar(&w, 1); /* frame version */
    w_uvar(&w, (uint32_t)rec->type);
    w_uvar(&w, (uint32_t)rec->version);
    enc_body(&w, rec);
    if (w.err)
        out->len = old;
    return w.err;
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
    int maxv = type > 0xffff ? -1 : max_version((int)type);
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
