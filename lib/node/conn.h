/* Inbound connections and their responses in request order (conn.c). */
#ifndef LR_NODE_CONN_H
#define LR_NODE_CONN_H

#include <stdint.h>

#include "base/buf.h"
#include <logrep/node.h>
#include <logrep/proto.h>

/* One response slot of an inbound connection, in request order: a request
 * answered later (a parked one) keeps its place, and answers behind it
 * wait, copied, until it is filled. */
typedef struct lr_slot {
    struct lr_slot *next;
    int ready;
    lr_buf bytes;          /* copied memory segments */
    logrep_seg *segs;      /* memory segs point into bytes after finish */
    size_t nsegs;
} lr_slot;

/* The listener a connection arrived on, as the host named it. */
enum { LR_LISTENER_ANY = 0, LR_LISTENER_CLIENT = 1, LR_LISTENER_CONTROLLER = 2 };

typedef struct lr_conn {
    uint64_t id;
    int listener; /* LR_LISTENER_* */
    char peer[48]; /* the client's address as the host gave it ("" unknown) */
    lr_slot *head, *tail;
    int closed; /* the node closed it: nothing more is sent, dropped at the next tick */
    struct lr_conn *next;
} lr_conn;

typedef struct lr_conns {
    lr_conn *list;
} lr_conns;

/* The connection with this id; created when create is set (NULL when out
 * of memory or absent). */
lr_conn *lr_conn_get(logrep_node *n, uint64_t id, int create);
/* Reserves the next response slot on c; NULL when out of memory. */
lr_slot *lr_conn_slot(logrep_node *n, lr_conn *c);
/* Encodes resp into slot s, marks it ready and sends the ready slots at
 * the head. On an encoding error the connection is closed (its order can
 * no longer be kept) and the error returned. */
int lr_conn_finish(logrep_node *n, lr_conn *c, lr_slot *s, logrep_msg *resp);
/* Fills s with one already encoded frame (copied) and sends what is ready. */
int lr_conn_finish_bytes(logrep_node *n, lr_conn *c, lr_slot *s, const uint8_t *frame,
                         size_t len);
/* Closes c through the transport (no logrep_node_closed follows): nothing
 * more is sent on it, and the node drops it at its next tick, or when the
 * host reuses its id. */
void lr_conn_close(logrep_node *n, lr_conn *c);
/* Marks s answered with nothing (its connection is being closed). */
void lr_conn_skip(logrep_node *n, lr_conn *c, lr_slot *s);
/* Unlinks and frees c with its slots (parked requests on it are the
 * caller's to drop first). */
void lr_conn_drop(logrep_node *n, lr_conn *c);
void lr_conns_free(logrep_node *n);

#endif
