/* CreateTopics, DeleteTopics, AlterConfigs, IncrementalAlterConfigs and
 * DescribeQuorum on a broker that is not the active controller:
 * forwarded to the controller as sent (Kafka's forwarding), the client's
 * slot parked until the answer comes back, which goes to the client with
 * its own correlation id. A forward that fails or is not answered within
 * its time closes the client's connection: the client retries, as after
 * a broker failure. Topic auto-creation asks the controller the same way. */
#include <string.h>

#include "node/node_int.h"

/* How long a forwarded request may wait for the controller. */
#define LR_FORWARD_TIMEOUT_MS 30000

typedef struct parked_admin {
    lr_parked base;
} parked_admin;

static void give_up(logrep_node *n, lr_parked *d)
{
    lr_conn_close(n, d->conn);
    lr_conn_skip(n, d->conn, d->slot);
}

static int pa_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    if (now_ms < d->deadline)
        return 0;
    give_up(n, d); /* the controller never answered */
    return 1;
}

static void pa_free(logrep_node *n, lr_parked *d)
{
    lr_free(&n->alloc, d, sizeof(parked_admin));
}

static const lr_park_ops admin_ops = {pa_poll, lr_parked_deadline, pa_free};

/* The controller's answer in n->peers.in, re-encoded with the client's
 * correlation id. */
static void forward_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)now_ms;
    lr_parked *d = o->ctx;
    if (!d || !lr_park_holds(n, d))
        return; /* auto-creation, or the client went away */
    const uint8_t *flat;
    size_t flen;
    int err = logrep_msg_encode_flat(n->peers.in, &flat, &flen);
    uint8_t *copy = !err && flen >= 8 ? lr_malloc(&n->alloc, flen) : NULL;
    if (!copy) {
        give_up(n, d);
    } else {
        memcpy(copy, flat, flen);
        copy[4] = (uint8_t)(d->correlation_id >> 24);
        copy[5] = (uint8_t)(d->correlation_id >> 16);
        copy[6] = (uint8_t)(d->correlation_id >> 8);
        copy[7] = (uint8_t)d->correlation_id;
        lr_conn_finish_bytes(n, d->conn, d->slot, copy, flen); /* or closes */
        lr_free(&n->alloc, copy, flen);
    }
    lr_park_remove(n, d);
}

static void forward_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)now_ms;
    lr_parked *d = o->ctx;
    if (d && lr_park_holds(n, d)) {
        give_up(n, d);
        lr_park_remove(n, d);
    }
}

static const lr_out_ops forward_ops = {forward_done, forward_failed};

int lr_api_forward_admin(logrep_node *n, const lr_req *r)
{
    parked_admin *d = lr_calloc(&n->alloc, 1, sizeof *d);
    if (!d)
        return LOGREP_ERR__NOMEM;
    d->base.deadline = r->now_ms + LR_FORWARD_TIMEOUT_MS;
    /* The client's request goes as is (its correlation id included):
     * responses on the controller connection come back in order. */
    lr_peer *c = lr_life_controller(n);
    int err = c ? logrep_msg_decode_request(n->peers.out, r->frame, r->len) : LOGREP_ERR__NOMEM;
    if (!err)
        err = lr_park_add(n, r->conn, r->msg, &d->base, &admin_ops);
    if (err) {
        lr_free(&n->alloc, d, sizeof *d);
        return err;
    }
    if ((err = lr_peer_send(n, c, &forward_ops, &d->base, r->now_ms)) != 0)
        lr_park_remove(n, &d->base); /* the connection closes: the client retries */
    return err;
}

int lr_admin_create_request(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                            const char *const *names, const char *const *values, size_t stride,
                            size_t n_configs, int32_t timeout_ms)
{
    logrep_struct *r = lr_peer_start(n, LOGREP_API_CREATE_TOPICS, 5);
    int err = r ? lr_f_set_count(r, LR_FN_Topics, 1) : LOGREP_ERR__NOMEM;
    if (err)
        return err;
    lr_f_set_int(r, LR_FN_timeoutMs, timeout_ms);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    lr_f_set_str(t, LR_FN_Name, name, (int32_t)strlen(name));
    lr_f_set_int(t, LR_FN_NumPartitions, partitions);
    lr_f_set_int(t, LR_FN_ReplicationFactor, rf);
    if ((err = lr_f_set_count(t, LR_FN_Configs, (int32_t)n_configs)) != 0)
        return err;
    for (size_t i = 0; i < n_configs; i++) {
        logrep_struct *ce = lr_f_elem(t, LR_FN_Configs, (int32_t)i);
        const char *k = names[i * stride], *v = values[i * stride];
        lr_f_set_str(ce, LR_FN_Name, k, (int32_t)strlen(k));
        lr_f_set_nstr(ce, LR_FN_Value, v);
    }
    return 0;
}

int lr_admin_create_topic(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                          const char *const *configs, int64_t now_ms)
{
    lr_peer *c = lr_life_controller(n);
    size_t nc = 0;
    while (configs && configs[2 * nc])
        nc++;
    if (!lr_peer_ready(c, now_ms) ||
        lr_admin_create_request(n, name, partitions, rf, configs, configs ? configs + 1 : NULL, 2,
                                nc, 30000) != 0)
        return LOGREP_ERR__AGAIN;
    return lr_peer_send(n, c, &forward_ops, NULL, now_ms);
}
