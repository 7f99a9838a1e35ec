/* The image as snapshot records (md_snapshot.h). */
#include "controller/md_snapshot.h"

#include <string.h>

typedef struct emit {
    lr_buf buf;
    lr_md_snap_fn fn;
    void *ctx;
    int64_t n;
} emit;

/* Encodes rec into the one buffer and hands it out. */
static int put(emit *e, const lr_md_record *rec)
{
    lr_buf_clear(&e->buf);
    int err = lr_md_encode(rec, &e->buf);
    if (!err)
        err = e->fn(e->ctx, e->buf.data, e->buf.len);
    if (!err)
        e->n++;
    return err;
}

static lr_md_str str_of(const char *s)
{
    return s ? (lr_md_str){s, (int32_t)strlen(s)} : (lr_md_str){NULL, -1};
}

static int put_broker(emit *e, const lr_md_broker *b, lr_md_endpoint_rec *eps)
{
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_REGISTER_BROKER, 3);
    struct lr_md_reg_rec *g = &r.u.reg;
    g->broker_id = b->id;
    memcpy(g->incarnation, b->incarnation, 16);
    g->epoch = b->epoch;
    for (uint32_t i = 0; i < b->n_endpoints; i++)
        eps[i] = (lr_md_endpoint_rec){str_of(b->endpoints[i].name), str_of(b->endpoints[i].host),
                                      b->endpoints[i].port, b->endpoints[i].security_protocol};
    g->endpoints = eps;
    g->n_endpoints = (int32_t)b->n_endpoints;
    g->rack = str_of(b->rack);
    g->fenced = b->fenced;
    g->in_controlled_shutdown = b->in_controlled_shutdown;
    return put(e, &r);
}

static int put_config(emit *e, int8_t type, const char *resource, const char *name,
                      const char *value)
{
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_CONFIG, 0);
    r.u.config.resource_type = type;
    r.u.config.resource_name = str_of(resource);
    r.u.config.name = str_of(name);
    r.u.config.value = str_of(value);
    return put(e, &r);
}

static int put_topic(emit *e, const lr_md_topic *t)
{
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_TOPIC, 0);
    r.u.topic.name = str_of(t->name);
    memcpy(r.u.topic.topic_id, t->id, 16);
    int err = put(e, &r);
    for (int32_t j = 0; j < t->n_parts && !err; j++) {
        const lr_md_partition *p = &t->parts[j];
        lr_md_record_init(&r, LR_MD_PARTITION, 2);
        struct lr_md_part_rec *q = &r.u.part;
        q->partition_id = j;
        memcpy(q->topic_id, t->id, 16);
        q->replicas = (lr_md_ids){p->replicas, p->n_replicas};
        q->isr = (lr_md_ids){p->isr, p->n_isr};
        q->elr = (lr_md_ids){p->elr, p->n_elr};
        q->lke = (lr_md_ids){p->lke, p->n_lke};
        q->leader = p->leader;
        q->lrs = p->lrs;
        q->leader_epoch = p->leader_epoch;
        q->partition_epoch = p->partition_epoch;
        err = put(e, &r);
    }
    for (uint32_t k = 0; k < t->n_configs && !err; k++)
        err = put_config(e, LR_MD_RESOURCE_TOPIC, t->name, t->configs[k].name,
                         t->configs[k].value);
    return err;
}

int lr_md_snapshot_records(const lr_md_image *img, lr_md_snap_fn fn, void *ctx,
                           int64_t *n_records)
{
    const lr_alloc *a = lr_md_alloc(img);
    emit e = {.fn = fn, .ctx = ctx};
    lr_buf_init(&e.buf, a);
    /* One endpoint array sized for the broker with the most. */
    size_t max_eps = 0;
    for (size_t i = 0; i < lr_md_broker_count(img); i++)
        if (lr_md_broker_at(img, i)->n_endpoints > max_eps)
            max_eps = lr_md_broker_at(img, i)->n_endpoints;
    lr_md_endpoint_rec *eps = max_eps ? lr_calloc(a, max_eps, sizeof *eps) : NULL;
    int err = max_eps && !eps ? LOGREP_ERR__NOMEM : 0;
    for (size_t i = 0; i < lr_md_broker_count(img) && !err; i++)
        err = put_broker(&e, lr_md_broker_at(img, i), eps);
    for (size_t i = 0; i < lr_md_resource_config_count(img) && !err; i++) {
        lr_md_resource_config c;
        lr_md_resource_config_at(img, i, &c);
        err = put_config(&e, c.resource_type, c.resource, c.name, c.value);
    }
    for (size_t i = 0; i < lr_md_topic_count(img) && !err; i++)
        err = put_topic(&e, lr_md_topic_at(img, i));
    if (!err && lr_md_next_producer_id(img) > 0) {
        lr_md_record r;
        lr_md_record_init(&r, LR_MD_PRODUCER_IDS, 0);
        r.u.pids.broker_id = -1;
        r.u.pids.broker_epoch = -1;
        r.u.pids.next_producer_id = lr_md_next_producer_id(img);
        err = put(&e, &r);
    }
    lr_free(a, eps, max_eps * sizeof *eps);
    lr_buf_free(&e.buf);
    if (n_records)
        *n_records = e.n;
    return err;
}

int lr_md_snapshot_apply(lr_md_image *img, int64_t end, const uint8_t *rec, size_t len)
{
    if (end <= 0)
        return LOGREP_ERR__CORRUPT; /* a snapshot holding records ends past 0 */
    int64_t old = lr_md_next_offset(img);
    lr_md_set_next_offset(img, end - 1);
    int err = lr_md_apply_bytes(img, rec, len);
    lr_md_set_next_offset(img, err ? old : end);
    return err;
}
