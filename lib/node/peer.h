/* Outbound connections to peers and the requests in flight on them
 * (peer.c). */
#ifndef LR_NODE_PEER_H
#define LR_NODE_PEER_H

#include <stdint.h>

#include <logrep/node.h>
#include <logrep/proto.h>

struct lr_peer;
struct lr_outreq;

/* What a kind of outgoing request does with its answer. The concern that
 * sends it owns its ctx. */
typedef struct lr_out_ops {
    /* The response arrived, decoded in n->peers.in. */
    void (*done)(logrep_node *n, struct lr_peer *p, struct lr_outreq *o, int64_t now_ms);
    /* It will never be answered: its connection closed, or the node is
     * being freed (now_ms 0). */
    void (*failed)(logrep_node *n, struct lr_peer *p, struct lr_outreq *o, int64_t now_ms);
} lr_out_ops;

/* A request this node sent and awaits. */
typedef struct lr_outreq {
    int32_t correlation_id;
    int16_t api_key;
    int16_t version;
    const lr_out_ops *ops;
    int64_t sent_ms;
    void *ctx;
    struct lr_outreq *next;
} lr_outreq;

/* Connections to a peer are per channel, as Kafka keeps them apart:
 * responses come back in request order on one connection, so a parked
 * long-poll must not hold up anything else. */
enum {
    LR_CH_CONTROL = 0,  /* registration, heartbeats, AlterPartition, admin */
    LR_CH_METADATA = 1, /* the metadata log long-poll */
    LR_CH_REPLICA = 2,  /* replica fetches */
    LR_CH_QUORUM = 3    /* a voter's quorum requests to another voter */
};

typedef struct lr_peer {
    int32_t node_id;
    int channel;
    uint64_t conn;
    int connected;           /* a connection id is held */
    lr_outreq *inflight;     /* in send order */
    int fetch_in_flight;     /* a replica fetch is outstanding (fetcher.c) */
    int64_t backoff_until;
    struct lr_peer *next;
} lr_peer;

typedef struct lr_peers {
    lr_peer *list;
    int32_t next_correlation;
    logrep_msg *out; /* the request being built */
    logrep_msg *in;  /* the response being handled */
} lr_peers;

/* The peer entry for (node, channel), created on first use; NULL when out
 * of memory. */
lr_peer *lr_peer_get(logrep_node *n, int32_t node_id, int channel);
/* The existing entry, or NULL (creates none). */
const lr_peer *lr_peer_find(const logrep_node *n, int32_t node_id, int channel);
/* 1 when p exists and its reconnect backoff is over. */
int lr_peer_ready(const lr_peer *p, int64_t now_ms);
/* t, but not before p may be asked again. */
int64_t lr_peer_after_backoff(const lr_peer *p, int64_t t);
/* Starts a request in n->peers.out; its root, or NULL when out of memory. */
logrep_struct *lr_peer_start(logrep_node *n, int api, int version);
/* Sends n->peers.out to p, connecting first if needed. On success the
 * request is in flight and ops own ctx from then on; on an error nothing
 * is kept and ctx stays the caller's. NOENT: no address known for p. */
int lr_peer_send(logrep_node *n, lr_peer *p, const lr_out_ops *ops, void *ctx, int64_t now_ms);
/* A response frame on connection conn: matched with the oldest request
 * in flight there and handed to its ops. CORRUPT closes the connection. */
int lr_peer_response(logrep_node *n, uint64_t conn, const void *frame, size_t len,
                     int64_t now_ms);
/* Connection conn closed: its requests fail, the peer backs off 100 ms. */
void lr_peer_closed(logrep_node *n, uint64_t conn, int64_t now_ms);
/* Fails every request in flight and frees the peers. */
void lr_peers_free(logrep_node *n);

#endif
