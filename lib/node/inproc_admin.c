/* In-process topic creation and deletion (include/logrep/inproc.h). On a
 * node that is the only controller the controller's own CreateTopics and
 * DeleteTopics steps run at once (lr_ctl_create_one, lr_ctl_delete_named,
 * ctl_create.c and ctl_api.c). On a broker, and on a voter of a quorum
 * (the active controller may be another, and answers wait for the
 * commit), the request goes to the
 * controller as a broker forwards CreateTopics (api_admin.c), parked until
 * the answer, the call's timeout (REQUEST_TIMED_OUT) or the loss of the
 * connection (NOT_CONTROLLER) completes its event. The request in flight
 * names its call by the event's key, never by a pointer: an answer that
 * comes after the timeout finds nothing and is dropped. */
#include <string.h>

#include "node/node_int.h"

/* A forwarded call waiting for the controller. */
typedef struct inproc_admin {
    lr_parked base; /* deadline: the call's timeout */
    int type;       /* LOGREP_NODE_EV_CREATE_TOPIC or _DELETE_TOPIC */
    uint64_t key;   /* its event's */
} inproc_admin;

/* Done once its event is (answered); times the event out at its deadline. */
static int ia_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    inproc_admin *a = (inproc_admin *)d;
    lr_evt *e = lr_evt_find(n, a->type, a->key);
    if (e && now_ms < d->deadline)
        return 0;
    if (e)
        lr_evt_done(n, e, LOGREP_ERR_REQUEST_TIMED_OUT);
    return 1;
}

static void ia_free(logrep_node *n, lr_parked *d)
{
    lr_free(&n->alloc, d, sizeof(inproc_admin));
}

static const lr_park_ops inproc_admin_ops = {ia_poll, lr_parked_deadline, ia_free};

/* The pending event of a forwarded request, or NULL (timed out). */
static lr_evt *forwarded(logrep_node *n, const lr_outreq *o)
{
    return lr_evt_find(n, o->api_key == LOGREP_API_CREATE_TOPICS ? LOGREP_NODE_EV_CREATE_TOPIC
                                                                 : LOGREP_NODE_EV_DELETE_TOPIC,
                       (uint64_t)(uintptr_t)o->ctx);
}

/* The controller's answer in n->peers.in: the error of its one topic. */
static void ia_answered(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)now_ms;
    lr_evt *e = forwarded(n, o);
    if (!e)
        return; /* timed out already */
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    lr_fname list = o->api_key == LOGREP_API_CREATE_TOPICS ? LR_FN_Topics : LR_FN_Responses;
    lr_evt_done(n, e,
                lr_f_count(rs, list) == 1 ? (int)lr_f_int(lr_f_elem(rs, list, 0), LR_FN_ErrorCode)
                                          : LOGREP_ERR_UNKNOWN_SERVER_ERROR);
    /* Its parked entry goes at the next poll of the park. */
}

static void ia_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)now_ms;
    lr_evt *e = forwarded(n, o);
    if (e)
        lr_evt_done(n, e, LOGREP_ERR_NOT_CONTROLLER);
}

static const lr_out_ops inproc_forward_ops = {ia_answered, ia_failed};

/* Sends the request built in n->peers.out to the controller for event e,
 * parked until its answer or timeout. An error completes e at once. */
static void forward(logrep_node *n, lr_evt *e, int built, int32_t timeout_ms, int64_t now_ms)
{
    inproc_admin *a = built == 0 ? lr_calloc(&n->alloc, 1, sizeof *a) : NULL;
    lr_peer *c = a ? lr_life_controller(n) : NULL;
    if (!c) {
        lr_free(&n->alloc, a, sizeof *a);
        lr_evt_done(n, e, built ? built : LOGREP_ERR__NOMEM);
        return;
    }
    a->type = e->ev.type;
    a->key = e->key;
    a->base.deadline = now_ms + timeout_ms;
    /* Sent first: a send that fails (no address, the connection refused)
     * leaves no request in flight, and no controller is reachable. */
    if (lr_peer_send(n, c, &inproc_forward_ops, (void *)(uintptr_t)e->key, now_ms) != 0) {
        lr_free(&n->alloc, a, sizeof *a);
        lr_evt_done(n, e, LOGREP_ERR_NOT_CONTROLLER);
        return;
    }
    lr_park_hold(n, &a->base, &inproc_admin_ops);
}

/* The controller on this node answered at once with err. */
static void applied(logrep_node *n, lr_evt *e, int err, int64_t now_ms)
{
    lr_evt_done(n, e, err);
    lr_node_wake(n, now_ms); /* metadata fetches waiting for its records */
}

LOGREP_API logrep_err logrep_node_create_topic(logrep_node *n, const char *topic,
                                               int32_t partitions, int16_t replication_factor,
                                               const char *const *config_names,
                                               const char *const *config_values, size_t n_configs,
                                               int32_t timeout_ms, uint64_t token, int64_t now_ms)
{
    if (!n || !topic || timeout_ms < 0 || (n_configs && (!config_names || !config_values)))
        return LOGREP_ERR__INVALID_ARG;
    for (size_t i = 0; i < n_configs; i++)
        if (!config_names[i])
            return LOGREP_ERR__INVALID_ARG;
    lr_evt *e = lr_evt_start(n, LOGREP_NODE_EV_CREATE_TOPIC, token, lr_evt_new_key(n));
    if (!e)
        return LOGREP_ERR__NOMEM;
    if (n->ctl && !lr_nctl_quorum(n)) { /* a quorum's active controller may be another */
        applied(n, e,
                lr_nctl_failed(n) ? LOGREP_ERR_NOT_CONTROLLER
                                  : lr_ctl_create_one(n, topic, partitions, replication_factor,
                                                      config_names, config_values, n_configs,
                                                      now_ms),
                now_ms);
        return LOGREP_OK;
    }
    int built = lr_admin_create_request(n, topic, partitions, replication_factor, config_names,
                                        config_values, 1, n_configs, timeout_ms);
    forward(n, e, built, timeout_ms, now_ms);
    return LOGREP_OK;
}

/* A DeleteTopics v5 of one topic in n->peers.out: 0 or NOMEM. */
static int delete_request(logrep_node *n, const char *topic, int32_t timeout_ms)
{
    logrep_struct *r = lr_peer_start(n, LOGREP_API_DELETE_TOPICS, 5);
    int f = r ? lr_fid(r, LR_FN_TopicNames) : -1;
    if (!r || logrep_struct_set_count(r, f, 1) != 0 ||
        logrep_struct_set_elem_bytes(r, f, 0, topic, (int32_t)strlen(topic)) != 0)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(r, LR_FN_TimeoutMs, timeout_ms);
    return 0;
}

LOGREP_API logrep_err logrep_node_delete_topic(logrep_node *n, const char *topic,
                                               int32_t timeout_ms, uint64_t token, int64_t now_ms)
{
    if (!n || !topic || timeout_ms < 0)
        return LOGREP_ERR__INVALID_ARG;
    lr_evt *e = lr_evt_start(n, LOGREP_NODE_EV_DELETE_TOPIC, token, lr_evt_new_key(n));
    if (!e)
        return LOGREP_ERR__NOMEM;
    if (n->ctl && !lr_nctl_quorum(n)) { /* a quorum's active controller may be another */
        applied(n, e,
                lr_nctl_failed(n) ? LOGREP_ERR_NOT_CONTROLLER
                                  : lr_ctl_delete_named(n, topic, strlen(topic), now_ms),
                now_ms);
        return LOGREP_OK;
    }
    forward(n, e, delete_request(n, topic, timeout_ms), timeout_ms, now_ms);
    return LOGREP_OK;
}
