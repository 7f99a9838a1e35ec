/* memnet: the in-memory network of the simulator, the tests, the fuzzers
 * and the benchmarks (test infrastructure, internal to the library).
 *
 * Endpoints are int32 ids: 0..max_node are nodes (each has a
 * logrep_transport, lr_memnet_transport, and a registered logrep_node),
 * any other id is a client the host drives itself. A connection is a pair
 * of ends with 64-bit ids, allocated in order from 1 and never reused: the
 * connecting end receives responses, the accepting end requests.
 *
 * Everything a node is told travels as a message (lr_memnet_msg): frames
 * (copied out of the sender's segments at send time), "accepted" (the
 * listener a node-made connection arrived on) and "closed" notifications.
 * Transport methods only queue messages; nodes are called from
 * lr_memnet_deliver and lr_memnet_pump, never from inside a transport
 * method. Messages of one connection reach it in the order they were sent
 * as long as the host keeps them in order (the built-in queue does; a
 * host that holds and delays them uses lr_memnet_fifo_at).
 *
 * Semantics (include/logrep/node.h): send on a closed end, or an end the
 * caller does not own, is LOGREP_ERR__IO; close closes both ends and
 * notifies the other end's owner only; frames in flight on a closed
 * connection are dropped; connect to an endpoint without a node, or one
 * the may_connect hook refuses, is LOGREP_ERR__IO, or with
 * conf.fail_connect_late an id whose sends are discarded until its
 * "closed" arrives.
 *
 * Threads: without lock hooks, one thread at a time. With them, any call
 * may come from any thread, provided each node is called by one thread at
 * a time (memnet calls a node only from lr_memnet_deliver/pump, on the
 * calling thread). Hooks are called without the lock held. */
#ifndef LR_SIM_MEMNET_H
#define LR_SIM_MEMNET_H

#include <stddef.h>
#include <stdint.h>

#include <logrep/node.h>

typedef struct lr_memnet lr_memnet;

enum { LR_MEMNET_FRAME = 1, LR_MEMNET_ACCEPTED = 2, LR_MEMNET_CLOSED = 3 };

/* A message in flight. Owned by the memnet while queued, by whoever took
 * it (hold hook, lr_memnet_take, client hook, lr_memnet_inbox_take) after:
 * they deliver it, queue it again or free it with lr_memnet_msg_free. */
typedef struct lr_memnet_msg {
    struct lr_memnet_msg *next; /* the queue's link; the holder's to use */
    int kind;
    uint64_t end;               /* the end it is for */
    int32_t from, to;           /* owners of the other end and of `end` */
    uint32_t inc;               /* `to`'s incarnation when it was raised */
    const char *listener;       /* ACCEPTED: from the listener hook */
    void *extra;                /* conf.msg_extra zeroed bytes for the host */
    size_t len;                 /* FRAME */
    uint8_t *data;
} lr_memnet_msg;

typedef struct lr_memnet_conf {
    const logrep_allocator *alloc; /* NULL: malloc */
    int32_t max_node;              /* node ids are 0..max_node */
    size_t max_frames;             /* frames alive before send refuses; 0: no bound */
    size_t msg_extra;              /* bytes of lr_memnet_msg.extra */
    int fail_connect_late;         /* refused connects fail through "closed" */
    void *ctx;                     /* passed to every hook */
    /* Each message as it is raised: return 1 to take it (the host then
     * delivers, queues or frees it), 0 to let the memnet queue it. */
    int (*hold)(void *ctx, lr_memnet_msg *m);
    /* A message delivered to a client endpoint: the hook owns it. Without
     * it frames go to the inbox and clients are sent no notifications. */
    void (*client)(void *ctx, lr_memnet_msg *m);
    /* Whether node `from` may connect to `to`: LOGREP_OK or an error. */
    logrep_err (*may_connect)(void *ctx, int32_t from, int32_t to, int32_t port);
    /* The listener a node's connection arrives on (a static string), or
     * NULL: no "accepted" (the node serves it every API). */
    const char *(*listener)(void *ctx, int32_t to, const char *host, int32_t port);
    /* Reads a file segment's bytes into buf. Without it file segments are
     * refused (LOGREP_ERR__IO). */
    logrep_err (*read_file)(void *ctx, int32_t from, const logrep_seg *seg, void *buf);
    void (*lock)(void *ctx);
    void (*unlock)(void *ctx);
} lr_memnet_conf;

typedef struct lr_memnet_stats {
    uint64_t frames, bytes; /* sent */
    uint64_t refused;       /* sends refused: bound, memory, file segment */
    uint64_t dropped;       /* frames for closed ends, sends while connecting */
    uint64_t lost;          /* notifications not raised for want of memory */
} lr_memnet_stats;

typedef struct lr_memnet_end_info {
    int32_t owner, peer_owner;
    uint64_t peer;
    int accepted;
} lr_memnet_end_info;

/* conf is copied. @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, _NOMEM. */
logrep_err lr_memnet_new(const lr_memnet_conf *conf, lr_memnet **out);
/* Frees queued and inbox messages; the host frees those it holds first
 * (and its nodes, which borrow the transports). NULL is a no-op. */
void lr_memnet_free(lr_memnet *net);

/* Node id's transport, valid until lr_memnet_free; NULL for a client id. */
const logrep_transport *lr_memnet_transport(lr_memnet *net, int32_t id);
/* Registers the node at id (borrowed), starting a new incarnation:
 * notifications raised before are dropped. NULL: the node is gone and its
 * connections close (their other ends are notified). */
void lr_memnet_set_node(lr_memnet *net, int32_t id, logrep_node *node);

/* A connection from any endpoint to node id `to`, made by the host (no
 * hooks; frames for `to` are dropped while it has no node).
 * @return LOGREP_OK with *end, LOGREP_ERR__IO (not a node id), _NOMEM. */
logrep_err lr_memnet_open(lr_memnet *net, int32_t from, int32_t to, uint64_t *end);
/* Sends a frame on `end` as its owner `from` (segments are copied).
 * @return LOGREP_OK, or LOGREP_ERR__IO (closed, not from's, refused). */
logrep_err lr_memnet_send(lr_memnet *net, int32_t from, uint64_t end, const logrep_seg *segs,
                          size_t nsegs);
/* Closes end's connection; the other end's owner is notified, and this
 * end's too when notify_self (a reset). Unknown or closed: no-op. */
void lr_memnet_close(lr_memnet *net, uint64_t end, int notify_self);
/* 1 with *out (may be NULL) when the end is open, else 0. */
int lr_memnet_end(lr_memnet *net, uint64_t end, lr_memnet_end_info *out);
/* One past the highest end id. */
uint64_t lr_memnet_end_limit(lr_memnet *net);
/* The delivery time of a message for `end` that would arrive at `at`,
 * kept no earlier than the one before on that end (FIFO under delays). */
int64_t lr_memnet_fifo_at(lr_memnet *net, uint64_t end, int64_t at);

/* Delivers m (consumed) at now_ms: to its node (dropped when the end is
 * closed, the node gone or of a later incarnation), or to a client. */
void lr_memnet_deliver(lr_memnet *net, lr_memnet_msg *m, int64_t now_ms);
/* Delivers queued messages in order, those raised meanwhile included, up
 * to max (0: until the queue is empty); returns how many it took. */
size_t lr_memnet_pump(lr_memnet *net, int64_t now_ms, size_t max);
/* Queued messages; the next one (taken out, NULL if none); back in line. */
size_t lr_memnet_pending(lr_memnet *net);
lr_memnet_msg *lr_memnet_take(lr_memnet *net);
void lr_memnet_queue(lr_memnet *net, lr_memnet_msg *m);
void lr_memnet_msg_free(lr_memnet *net, lr_memnet_msg *m);

/* The first inbox frame for `end` (0: any), taken out, or NULL. */
lr_memnet_msg *lr_memnet_inbox_take(lr_memnet *net, uint64_t end);
/* Whether the inbox holds a frame for `end` (0: any). */
int lr_memnet_inbox_has(lr_memnet *net, uint64_t end);

void lr_memnet_stats_get(lr_memnet *net, lr_memnet_stats *out);

#endif
