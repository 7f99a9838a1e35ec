/* Broker records of the metadata image: RegisterBrokerRecord,
 * UnregisterBrokerRecord, BrokerRegistrationChangeRecord (fencing in
 * lr_md_apply), and the lookups. */
#include <string.h>

#include "controller/md_int.h"

void lr_mdi_broker_release(const lr_alloc *a, lr_md_broker *b)
{
    lr_strfree(a, b->rack);
    for (uint32_t i = 0; i < b->n_endpoints; i++) {
        lr_strfree(a, b->endpoints[i].name);
        lr_strfree(a, b->endpoints[i].host);
    }
    lr_free(a, b->endpoints, b->n_endpoints * sizeof *b->endpoints);
}

/* ------------------------------------------------------------------------
 * Brokers
 * ---------------------------------------------------------------------- */

static size_t broker_pos(const lr_md_image *img, int32_t id)
{
    size_t lo = 0, hi = img->n_brokers;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (img->brokers[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

lr_md_broker *lr_mdi_broker_find(const lr_md_image *img, int32_t id)
{
    size_t i = broker_pos(img, id);
    return i < img->n_brokers && img->brokers[i].id == id ? &img->brokers[i] : NULL;
}

const lr_md_broker *lr_md_broker_get(const lr_md_image *img, int32_t id)
{
    return lr_mdi_broker_find(img, id);
}
size_t lr_md_broker_count(const lr_md_image *img) { return img->n_brokers; }
const lr_md_broker *lr_md_broker_at(const lr_md_image *img, size_t i)
{
    return i < img->n_brokers ? &img->brokers[i] : NULL;
}

int lr_mdi_apply_register(lr_md_image *img, const struct lr_md_reg_rec *r)
{
    const lr_alloc *a = &img->alloc;
    if (r->broker_id < 0 || r->epoch < 0 || !lr_mdi_str_ok(r->rack, 1))
        return LOGREP_ERR__CORRUPT;
    for (int32_t i = 0; i < r->n_endpoints; i++)
        if (!lr_mdi_str_ok(r->endpoints[i].name, 0) || !lr_mdi_str_ok(r->endpoints[i].host, 0))
            return LOGREP_ERR__CORRUPT;
    lr_md_broker nb;
    memset(&nb, 0, sizeof nb);
    nb.id = r->broker_id;
    memcpy(nb.incarnation, r->incarnation, 16);
    nb.epoch = r->epoch;
    nb.register_offset = img->next_offset;
    nb.fenced = r->fenced;
    nb.in_controlled_shutdown = r->in_controlled_shutdown;
    int err = 0;
    if (r->rack.len >= 0 && !(nb.rack = lr_mdi_dup_str(a, r->rack)))
        err = LOGREP_ERR__NOMEM;
    if (!err && r->n_endpoints > 0) {
        nb.endpoints = lr_calloc(a, (size_t)r->n_endpoints, sizeof *nb.endpoints);
        if (!nb.endpoints)
            err = LOGREP_ERR__NOMEM;
        else
            nb.n_endpoints = (uint32_t)r->n_endpoints;
        for (uint32_t i = 0; !err && i < nb.n_endpoints; i++) {
            nb.endpoints[i].name = lr_mdi_dup_str(a, r->endpoints[i].name);
            nb.endpoints[i].host = lr_mdi_dup_str(a, r->endpoints[i].host);
            nb.endpoints[i].port = r->endpoints[i].port;
            nb.endpoints[i].security_protocol = r->endpoints[i].security_protocol;
            if (!nb.endpoints[i].name || !nb.endpoints[i].host)
                err = LOGREP_ERR__NOMEM;
        }
    }
    lr_md_broker *old = lr_mdi_broker_find(img, r->broker_id);
    if (!err && !old)
        err = lr_mdi_grow(a, (void **)&img->brokers, &img->cap_brokers, img->n_brokers + 1,
                   sizeof *img->brokers);
    if (err) {
        lr_mdi_broker_release(a, &nb);
        return err;
    }
    if (old) {
        lr_mdi_broker_release(a, old);
        *old = nb;
    } else {
        size_t i = broker_pos(img, r->broker_id);
        memmove(&img->brokers[i + 1], &img->brokers[i], (img->n_brokers - i) * sizeof nb);
        img->brokers[i] = nb;
        img->n_brokers++;
    }
    return 0;
}

/* Broker named by a fence/unfence/unregister/change record: must exist
 * with the record's epoch. */
lr_md_broker *lr_mdi_broker_checked(lr_md_image *img, int32_t id, int64_t epoch)
{
    lr_md_broker *b = lr_mdi_broker_find(img, id);
    return b && b->epoch == epoch ? b : NULL;
}

int lr_mdi_apply_unregister(lr_md_image *img, int32_t id, int64_t epoch)
{
    lr_md_broker *b = lr_mdi_broker_checked(img, id, epoch);
    if (!b)
        return LOGREP_ERR__CORRUPT;
    lr_mdi_broker_release(&img->alloc, b);
    size_t i = (size_t)(b - img->brokers);
    memmove(b, b + 1, (img->n_brokers - i - 1) * sizeof *b);
    img->n_brokers--;
    return 0;
}

int lr_mdi_apply_change(lr_md_image *img, const struct lr_md_change_rec *c)
{
    lr_md_broker *b = lr_mdi_broker_checked(img, c->broker_id, c->broker_epoch);
    if (!b || c->fenced < -1 || c->fenced > 1 || c->in_controlled_shutdown < 0 ||
        c->in_controlled_shutdown > 1)
        return LOGREP_ERR__CORRUPT;
    if (c->fenced)
        b->fenced = c->fenced == 1;
    if (c->in_controlled_shutdown)
        b->in_controlled_shutdown = 1;
    return 0;
}
