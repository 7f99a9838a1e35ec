/* Request dispatch: which APIs the node implements, on which listener
 * each is served (the controller's only on a controller listener, as
 * Kafka separates them; a connection whose listener the host never named
 * is served both), and which handler answers it: the controller's when
 * this node holds the role and has one, else the broker's. ApiVersions
 * advertises exactly the served set. */
#include <string.h>

#include "node/ctl_snapshot.h"
#include "node/node_int.h"

typedef int (*lr_handler)(logrep_node *n, const lr_req *r);

static const struct {
    int16_t api;
    int8_t roles;
    lr_handler broker;     /* NULL: the controller's only */
    lr_handler controller; /* NULL: the broker's only */
} served[] = {
    {LOGREP_API_PRODUCE, LR_ROLE_BROKER, lr_api_produce, NULL},
    {LOGREP_API_FETCH, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_fetch, NULL},
    {LOGREP_API_LIST_OFFSETS, LR_ROLE_BROKER, lr_api_list_offsets, NULL},
    {LOGREP_API_METADATA, LR_ROLE_BROKER, lr_api_metadata, NULL},
    {LOGREP_API_FIND_COORDINATOR, LR_ROLE_BROKER, lr_api_find_coordinator, NULL},
    {LOGREP_API_JOIN_GROUP, LR_ROLE_BROKER, lr_api_join_group, NULL},
    {LOGREP_API_SYNC_GROUP, LR_ROLE_BROKER, lr_api_sync_group, NULL},
    {LOGREP_API_HEARTBEAT, LR_ROLE_BROKER, lr_api_heartbeat, NULL},
    {LOGREP_API_LEAVE_GROUP, LR_ROLE_BROKER, lr_api_leave_group, NULL},
    {LOGREP_API_OFFSET_COMMIT, LR_ROLE_BROKER, lr_api_offset_commit, NULL},
    {LOGREP_API_OFFSET_FETCH, LR_ROLE_BROKER, lr_api_offset_fetch, NULL},
    {LOGREP_API_OFFSET_DELETE, LR_ROLE_BROKER, lr_api_offset_delete, NULL},
    {LOGREP_API_LIST_GROUPS, LR_ROLE_BROKER, lr_api_list_groups, NULL},
    {LOGREP_API_DESCRIBE_GROUPS, LR_ROLE_BROKER, lr_api_describe_groups, NULL},
    {LOGREP_API_DELETE_GROUPS, LR_ROLE_BROKER, lr_api_delete_groups, NULL},
    {LOGREP_API_API_VERSIONS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_versions, NULL},
    {LOGREP_API_CREATE_TOPICS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_forward_admin,
     lr_ctl_api_create_topics},
    {LOGREP_API_DELETE_TOPICS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_forward_admin,
     lr_ctl_api_delete_topics},
    {LOGREP_API_INIT_PRODUCER_ID, LR_ROLE_BROKER, lr_api_init_producer_id, NULL},
    {LOGREP_API_OFFSET_FOR_LEADER_EPOCH, LR_ROLE_BROKER, lr_api_epoch_end, NULL},
    {LOGREP_API_DESCRIBE_CONFIGS, LR_ROLE_BROKER, lr_api_describe_configs, NULL},
    {LOGREP_API_ALTER_CONFIGS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_forward_admin,
     lr_ctl_api_alter_configs},
    {LOGREP_API_INCREMENTAL_ALTER_CONFIGS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER,
     lr_api_forward_admin, lr_ctl_api_incremental_alter_configs},
    {LOGREP_API_ALTER_PARTITION, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_alter_partition},
    {LOGREP_API_BROKER_REGISTRATION, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_registration},
    {LOGREP_API_BROKER_HEARTBEAT, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_heartbeat},
    {LOGREP_API_ALLOCATE_PRODUCER_IDS, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_allocate_pids},
    /* Brokers behind the metadata log start (ctl_fsnap.c); a voter's is
     * the quorum's (quorum_request). */
    {LOGREP_API_FETCH_SNAPSHOT, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_fetch_snapshot},
    /* The metadata quorum's, with two or more voters (lr_node_serves). */
    {LOGREP_API_VOTE, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_quorum},
    {LOGREP_API_BEGIN_QUORUM_EPOCH, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_quorum},
    {LOGREP_API_END_QUORUM_EPOCH, LR_ROLE_CONTROLLER, NULL, lr_ctl_api_quorum},
    /* A broker forwards it to the active controller, as Kafka's do. */
    {LOGREP_API_DESCRIBE_QUORUM, LR_ROLE_BROKER | LR_ROLE_CONTROLLER, lr_api_forward_admin,
     lr_ctl_api_quorum},
};

/* 1 when api is one of the quorum's and there is no quorum for it: the
 * voters' own APIs need this node to be a voter, DescribeQuorum a quorum
 * in the cluster. */
static int no_quorum_for(const logrep_node *n, int api)
{
    if (api == LOGREP_API_DESCRIBE_QUORUM)
        return n->n_voters < 2;
    return api >= LOGREP_API_VOTE && api < LOGREP_API_DESCRIBE_QUORUM && !lr_nctl_quorum(n);
}

#define NSERVED (sizeof served / sizeof served[0])

int lr_node_conn_roles(const logrep_node *n, const lr_conn *c)
{
    int roles = (n->is_broker ? LR_ROLE_BROKER : 0) | (n->ctl ? LR_ROLE_CONTROLLER : 0);
    if (c->listener == LR_LISTENER_CLIENT)
        roles &= LR_ROLE_BROKER;
    else if (c->listener == LR_LISTENER_CONTROLLER)
        roles &= LR_ROLE_CONTROLLER;
    return roles;
}

static int find(int api)
{
    for (size_t i = 0; i < NSERVED; i++)
        if (served[i].api == api)
            return (int)i;
    return -1;
}

int lr_node_serves(const logrep_node *n, const lr_conn *c, int api)
{
    int i = find(api);
    if (no_quorum_for(n, api))
        return 0;
    return i >= 0 && (served[i].roles & lr_node_conn_roles(n, c)) != 0;
}

int lr_fill_api_versions(logrep_node *n, const lr_req *r)
{
    logrep_struct *root = logrep_msg_root(r->resp);
    int keys = lr_fid(root, LR_FN_ApiKeys);
    int32_t k = 0;
    for (size_t i = 0; i < NSERVED; i++)
        k += lr_node_serves(n, r->conn, served[i].api) && logrep_proto_api(served[i].api);
    int err = logrep_struct_set_count(root, keys, k);
    k = 0;
    for (size_t i = 0; !err && i < NSERVED; i++) {
        const logrep_api_range *ar = logrep_proto_api(served[i].api);
        if (!ar || !lr_node_serves(n, r->conn, served[i].api))
            continue;
        logrep_struct *e = logrep_struct_elem(root, keys, k++);
        lr_f_set_int(e, LR_FN_ApiKey, ar->api_key);
        lr_f_set_int(e, LR_FN_MinVersion, ar->min_version);
        lr_f_set_int(e, LR_FN_MaxVersion, ar->max_version);
    }
    return err;
}

int lr_req_init(const lr_req *r)
{
    return logrep_msg_init_response_to(r->resp, r->msg);
}

int lr_req_answer(logrep_node *n, const lr_req *r)
{
    int err;
    if (r->ctl && lr_nctl_hold(n, r, &err))
        return err;
    lr_slot *s = r->slot ? r->slot : lr_conn_slot(n, r->conn);
    return s ? lr_conn_finish(n, r->conn, s, r->resp) : LOGREP_ERR__NOMEM;
}

int16_t lr_wire_code(int err)
{
    if (err > 0)
        return (int16_t)err;
    return err ? LOGREP_ERR_UNKNOWN_SERVER_ERROR : 0;
}

/* Metadata describes the cluster as it is when it is built. Kafka reads a
 * connection's next request only once the previous one is answered, so a
 * Metadata request pipelined behind an acks=all produce is built after
 * that produce completes. Built on arrival and held behind the parked
 * answer, it would leave seconds later describing leaders already gone:
 * a producer retrying on such a leader can be stranded there (seen with
 * librdkafka's idempotent producer after a broker's kill -9). So it waits
 * for its turn, its frame copied, and is built then. Only handlers that
 * always answer at once are deferred (lr_req.slot). */
typedef struct deferred {
    lr_parked base;
    size_t len;
    uint8_t *frame;
} deferred;

static int run(logrep_node *n, lr_conn *c, lr_slot *slot, const uint8_t *frame, size_t flen,
               int64_t now_ms);

static int deferred_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    deferred *q = (deferred *)d;
    lr_conn *c = d->conn;
    if (c->closed)
        return 1;
    if (c->head != d->slot)
        return 0; /* an earlier answer is still out */
    int err = logrep_msg_decode_request(n->req, q->frame, q->len);
    if (!err)
        err = run(n, c, d->slot, q->frame, q->len, now_ms);
    if (err) {
        /* Its place in the order cannot be filled: close, the client
         * retries (as for a request that fails on arrival). */
        lr_conn_skip(n, c, d->slot);
        lr_conn_close(n, c);
    }
    return 1;
}

static int64_t deferred_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms)
{
    (void)n;
    return d->conn->closed || d->conn->head == d->slot ? now_ms : INT64_MAX;
}

static void deferred_free(logrep_node *n, lr_parked *d)
{
    deferred *q = (deferred *)d;
    lr_free(&n->alloc, q->frame, q->len);
    lr_free(&n->alloc, q, sizeof *q);
}

static const lr_park_ops deferred_ops = {deferred_poll, deferred_deadline, deferred_free};

/* 1 when the request was deferred; 0 to handle it now; an error. */
static int maybe_defer(logrep_node *n, lr_conn *c, int api, const uint8_t *frame, size_t flen)
{
    if (api != LOGREP_API_METADATA || !c->head || !frame)
        return 0;
    deferred *q = lr_malloc(&n->alloc, sizeof *q);
    uint8_t *copy = flen ? lr_malloc(&n->alloc, flen) : NULL;
    if (!q || (flen && !copy)) {
        lr_free(&n->alloc, q, sizeof *q);
        lr_free(&n->alloc, copy, flen);
        return LOGREP_ERR__NOMEM;
    }
    memset(q, 0, sizeof *q);
    memcpy(copy, frame, flen);
    q->frame = copy;
    q->len = flen;
    if (lr_park_add(n, c, n->req, &q->base, &deferred_ops) != 0) {
        deferred_free(n, &q->base);
        return LOGREP_ERR__NOMEM;
    }
    return 1;
}

/* 1 when the quorum (ctl_qwire.c) may own r: a Fetch (it tells a voter's
 * from a broker's), a FetchSnapshot from a voter; brokers' FetchSnapshot
 * is served from the controller's snapshots (ctl_fsnap.c). */
static int quorum_request(logrep_node *n, const lr_req *r, int api)
{
    if (!lr_nctl_quorum(n) || !(r->roles & LR_ROLE_CONTROLLER))
        return 0;
    if (api == LOGREP_API_FETCH)
        return 1;
    int32_t from = (int32_t)lr_f_int(logrep_msg_root(r->msg), LR_FN_ReplicaId);
    return api == LOGREP_API_FETCH_SNAPSHOT && from >= 0 && lr_voter_get(n, from) != NULL;
}

static int run(logrep_node *n, lr_conn *c, lr_slot *slot, const uint8_t *frame, size_t flen,
               int64_t now_ms)
{
    int api = logrep_msg_api_key(n->req);
    int i = find(api);
    lr_req r = {c, n->req, n->resp, frame, flen, lr_node_conn_roles(n, c), now_ms, slot, 0};
    if (i < 0 || !(served[i].roles & r.roles) || no_quorum_for(n, api)) {
        /* An API outside the table, or one this listener does not serve:
         * Kafka closes the connection. */
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node", "%s v%d not served on this listener",
               logrep_proto_api_name(api), logrep_msg_version(n->req));
        return LOGREP_ERR__CORRUPT;
    }
    /* A voter's Fetch or FetchSnapshot of the metadata log is the quorum's. */
    if (quorum_request(n, &r, api)) {
        int q = lr_ctl_api_quorum(n, &r);
        if (q != 1)
            return q;
    }
    /* The controller's handler, unless a broker can forward the request to
     * the controller that is active when this one is not. */
    int ctl = n->ctl && served[i].controller &&
              (lr_nctl_serving(n) || !served[i].broker || !(r.roles & LR_ROLE_BROKER));
    lr_handler h = ctl ? served[i].controller : served[i].broker;
    if (!h)
        return LOGREP_ERR__CORRUPT;
    if (ctl) {
        lr_nctl_at(n, now_ms); /* the time its records carry */
        /* The quorum's own answers (Vote, Begin/EndQuorumEpoch,
         * DescribeQuorum) and snapshots rest on no record in flight, and
         * are never held: the commit may need the very voter they answer,
         * whose fetches queue behind them on its connection. */
        r.ctl = !(api >= LOGREP_API_VOTE && api <= LOGREP_API_DESCRIBE_QUORUM) &&
                api != LOGREP_API_FETCH_SNAPSHOT;
    }
    return h(n, &r);
}

int lr_dispatch(logrep_node *n, lr_conn *c, const uint8_t *frame, size_t flen, int64_t now_ms)
{
    int d = lr_node_serves(n, c, logrep_msg_api_key(n->req))
                ? maybe_defer(n, c, logrep_msg_api_key(n->req), frame, flen)
                : 0;
    if (d)
        return d < 0 ? d : 0;
    return run(n, c, NULL, frame, flen, now_ms);
}
