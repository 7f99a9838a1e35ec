/* Outbound connections to the controller and to partition leaders, one
 * per (peer, channel), and the requests in flight on each in send order:
 * Kafka answers in order on a connection, so the oldest is the one a
 * response answers. The transport connects in the background; a failed
 * or closed connection fails its requests and the peer is tried again
 * after a short backoff. */
#include <string.h>

#include "node/node_int.h"

#define LR_PEER_BACKOFF_MS 100

lr_peer *lr_peer_get(logrep_node *n, int32_t node_id, int channel)
{
    for (lr_peer *p = n->peers.list; p; p = p->next)
        if (p->node_id == node_id && p->channel == channel)
            return p;
    lr_peer *p = lr_calloc(&n->alloc, 1, sizeof *p);
    if (!p)
        return NULL;
    p->node_id = node_id;
    p->channel = channel;
    p->next = n->peers.list;
    n->peers.list = p;
    return p;
}

const lr_peer *lr_peer_find(const logrep_node *n, int32_t node_id, int channel)
{
    for (const lr_peer *p = n->peers.list; p; p = p->next)
        if (p->node_id == node_id && p->channel == channel)
            return p;
    return NULL;
}

int lr_peer_ready(const lr_peer *p, int64_t now_ms)
{
    return p && now_ms >= p->backoff_until;
}

int64_t lr_peer_after_backoff(const lr_peer *p, int64_t t)
{
    return p && p->backoff_until > t ? p->backoff_until : t;
}

logrep_struct *lr_peer_start(logrep_node *n, int api, int version)
{
    if (logrep_msg_init_request(n->peers.out, api, version, n->peers.next_correlation++,
                                "logrep-node") != LOGREP_OK)
        return NULL;
    return logrep_msg_root(n->peers.out);
}

/* Controllers' addresses are configured (controller.quorum.voters); brokers' come from metadata. */
static int peer_address(logrep_node *n, int32_t id, int channel, const char **host,
                        int32_t *port)
{
    const lr_voter *v = channel != LR_CH_REPLICA ? lr_voter_get(n, id) : NULL;
    if (v) {
        *host = v->host;
        *port = v->port;
        return 0;
    }
    const lr_md_broker *b = lr_md_broker_get(n->md.img, id);
    if (!b || !b->n_endpoints)
        return LOGREP_ERR__NOENT;
    *host = b->endpoints[0].host;
    *port = b->endpoints[0].port;
    return 0;
}

int lr_peer_send(logrep_node *n, lr_peer *p, const lr_out_ops *ops, void *ctx, int64_t now_ms)
{
    if (!p->connected) {
        const char *host;
        int32_t port;
        if (peer_address(n, p->node_id, p->channel, &host, &port) != 0)
            return LOGREP_ERR__NOENT;
        if (n->tr.connect(n->tr.ctx, p->node_id, host, port, &p->conn) != LOGREP_OK) {
            /* A controller refused at once (nobody listens there): ask
             * another voter next, as when its connection closes. */
            if (p->channel == LR_CH_CONTROL || p->channel == LR_CH_METADATA)
                lr_voters_next(n, p->node_id);
            return LOGREP_ERR__IO;
        }
        p->connected = 1;
    }
    lr_outreq *o = lr_calloc(&n->alloc, 1, sizeof *o);
    if (!o)
        return LOGREP_ERR__NOMEM;
    const logrep_seg *segs;
    size_t nsegs;
    int err = logrep_msg_encode(n->peers.out, &segs, &nsegs, NULL);
    if (err) {
        lr_free(&n->alloc, o, sizeof *o);
        return err;
    }
    o->correlation_id = logrep_msg_correlation_id(n->peers.out);
    o->api_key = (int16_t)logrep_msg_api_key(n->peers.out);
    o->version = (int16_t)logrep_msg_version(n->peers.out);
    o->ops = ops;
    o->ctx = ctx;
    o->sent_ms = now_ms;
    lr_outreq **pp = &p->inflight;
    while (*pp)
        pp = &(*pp)->next;
    *pp = o;
    if (n->tr.send(n->tr.ctx, p->conn, segs, nsegs) != LOGREP_OK) {
        /* This request was not sent: the caller keeps ctx and cleans up.
         * Unlink it before the close fails (and frees) the others. */
        *pp = NULL;
        lr_free(&n->alloc, o, sizeof *o);
        lr_peer_closed(n, p->conn, now_ms);
        return LOGREP_ERR__IO;
    }
    return 0;
}

/* 1 when an answer says NOT_CONTROLLER: at its top, or for the first
 * topic (CreateTopics, DeleteTopics). */
static int not_controller(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    if (lr_fid(r, LR_FN_ErrorCode) >= 0)
        return lr_f_int(r, LR_FN_ErrorCode) == LOGREP_ERR_NOT_CONTROLLER;
    int f = lr_fid(r, LR_FN_Topics) >= 0 ? LR_FN_Topics : LR_FN_Responses;
    if (lr_fid(r, f) < 0 || lr_f_count(r, f) < 1)
        return 0;
    logrep_struct *t = lr_f_elem(r, f, 0);
    return lr_fid(t, LR_FN_ErrorCode) >= 0 &&
           lr_f_int(t, LR_FN_ErrorCode) == LOGREP_ERR_NOT_CONTROLLER;
}

int lr_peer_response(logrep_node *n, uint64_t conn, const void *frame, size_t len,
                     int64_t now_ms)
{
    lr_peer *p = n->peers.list;
    while (p && !(p->connected && p->conn == conn))
        p = p->next;
    if (!p || !p->inflight)
        return LOGREP_ERR__CORRUPT;
    lr_outreq *o = p->inflight;
    logrep_err err = logrep_msg_decode_response(n->peers.in, o->api_key, o->version, frame, len);
    if (!err && logrep_msg_correlation_id(n->peers.in) != o->correlation_id)
        err = LOGREP_ERR__CORRUPT;
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "bad response from node %d: %s",
               p->node_id, logrep_msg_errmsg(n->peers.in));
        n->tr.close(n->tr.ctx, conn);
        lr_peer_closed(n, conn, now_ms);
        return LOGREP_ERR__CORRUPT;
    }
    p->inflight = o->next;
    if (p->channel == LR_CH_CONTROL && n->n_voters > 1 && not_controller(n->peers.in))
        lr_voters_next(n, p->node_id); /* a standby voter: ask the next one */
    o->ops->done(n, p, o, now_ms);
    lr_free(&n->alloc, o, sizeof *o);
    return 0;
}

static void fail_all(logrep_node *n, lr_peer *p, int64_t now_ms)
{
    while (p->inflight) {
        lr_outreq *o = p->inflight;
        p->inflight = o->next;
        o->ops->failed(n, p, o, now_ms);
        lr_free(&n->alloc, o, sizeof *o);
    }
}

void lr_peer_closed(logrep_node *n, uint64_t conn, int64_t now_ms)
{
    for (lr_peer *p = n->peers.list; p; p = p->next) {
        if (!p->connected || p->conn != conn)
            continue;
        p->connected = 0;
        p->backoff_until = now_ms + LR_PEER_BACKOFF_MS;
        fail_all(n, p, now_ms);
        /* An unreachable controller: ask another voter next. */
        if (p->channel == LR_CH_CONTROL || p->channel == LR_CH_METADATA)
            lr_voters_next(n, p->node_id);
    }
}

void lr_peers_free(logrep_node *n)
{
    while (n->peers.list) {
        lr_peer *p = n->peers.list;
        n->peers.list = p->next;
        fail_all(n, p, 0);
        lr_free(&n->alloc, p, sizeof *p);
    }
}
