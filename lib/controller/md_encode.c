/* Metadata record encoding (md_codec.c): a writer with a sticky error,
 * the records' bodies, lr_md_encode. */
#include "base/endian.h"
#include "codec/varint.h"
#include "controller/md_int.h"

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

int lr_md_encode(const lr_md_record *rec, lr_buf *out)
{
    int maxv = lr_mdi_max_version((int)rec->type);
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
