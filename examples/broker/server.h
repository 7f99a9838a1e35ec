/* The server's state, shared by its parts (internal to logrep-broker):
 *
 *   server.c     the loop: clock, logging, frames to the node (where
 *                requests enter and their timing starts), listeners,
 *                the metrics page, the sweep, controlled shutdown
 *   conn.c       connection I/O: the connection table, epoll interest,
 *                write queues and flushing (where responses leave and
 *                their timing ends), reading, connect completion
 *   transport.c  the logrep_transport vtable (send, connect, close) and
 *                the resolver's results for connects to host names
 *
 * One server per thread; nothing is global. See broker.h for the
 * threading model. */
#ifndef LOGREP_BROKER_SERVER_H
#define LOGREP_BROKER_SERVER_H

#include <stdint.h>

#include "broker.h"
#include "metrics.h"
#include "net.h"
#include <logrep/node.h>
#include <logrep/storage.h>

#define TAG_LISTENER (1ull << 62)
#define TAG_SIGNAL (TAG_LISTENER | 0x1000)
#define TAG_METRICS (TAG_LISTENER | 0x2000)
#define TAG_RESOLVER (TAG_LISTENER | 0x3000)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)

enum { K_CLIENT, K_PEER, K_METRICS };
/* S_RESOLVING: an outbound connection waiting for its host name (no
 * socket yet); S_CONNECTING: its non-blocking connect is under way. Sends
 * queue in both. */
enum { S_RESOLVING, S_CONNECTING, S_OPEN, S_DEAD };

typedef struct witem {
    struct witem *next;
    int fd;             /* -1: memory */
    uint64_t pos, len;  /* file: remaining range; memory: len bytes in data */
    size_t off, cap;
    uint8_t *data;
} witem;

typedef struct conn {
    uint64_t id;
    int fd;             /* -1 while resolving */
    int kind;
    int state;
    int notify;         /* call logrep_node_closed when swept */
    int close_after_flush;
    int dirty;
    uint32_t ev;
    struct conn *next_dirty;
    uint8_t *rbuf;
    size_t rlen, rcap;
    witem *whead, *wtail;
    uint64_t wbytes;
    int64_t last_active;
    net_addrs *addrs;   /* outbound: the addresses left to try */
    lat_fifo fifo;      /* client: requests awaiting their response */
} conn;

typedef struct server {
    broker_conf *bc;
    logrep_node *node;
    logrep_storage *st;
    int ep;
    int lfd[BROKER_MAX_LISTENERS];
    int mfd;
    int sfd;
    net_resolver *resolver; /* made at the first connect to a host name */
    /* Out of descriptors: listeners are unwatched until accept_resume_ms
     * (a level-triggered listener would wake the loop at once, forever). */
    int64_t accept_resume_ms; /* 0: accepting */
    int accept_episode;       /* logged once until an accept succeeds */
    conn **slots;
    uint32_t n_slots;
    uint32_t gen;
    int64_t n_clients;
    conn *dirty;
    int64_t now;
    broker_metrics m;
    uint8_t *stage; /* STAGE_MAX bytes, when record bytes are not sendfile'd */
} server;

/* server.c */
int64_t srv_now(server *s); /* wall-clock ms, kept monotonic */
void srv_log(server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void srv_frames(server *s, conn *c); /* whole frames of c's read buffer to the node */
void srv_http(server *s, conn *c);   /* the metrics page, once the request is in */
/* Adds fd to the epoll set (EPOLLIN) under tag. 0 or -1. */
int srv_watch(server *s, int fd, uint64_t tag);

/* conn.c */
#define STAGE_MAX (2u << 20) /* file bytes read for one writev */
conn *conn_get(server *s, uint64_t id);
/* fd -1 (state S_RESOLVING): not watched until conn_attach. */
conn *conn_new(server *s, int fd, int kind, int state);
/* Gives a resolving or reconnecting connection its socket. 0 or -1. */
int conn_attach(server *s, conn *c, int fd, int in_progress);
void conn_kill(server *s, conn *c, int notify); /* marks it dead; the sweep releases it */
void conn_release(server *s, conn *c);
void conn_mark_dirty(server *s, conn *c);
int wq_mem(server *s, conn *c, const uint8_t *p, size_t len);
int wq_file(server *s, conn *c, int fd, uint64_t pos, uint64_t len);
void conn_flush(server *s, conn *c);
void conn_readable(server *s, conn *c);
/* The read buffer grown to cap bytes; -1 (out of memory): c was killed. */
int conn_rbuf_grow(server *s, conn *c, size_t cap);
/* EPOLLOUT/EPOLLERR on a connecting socket: open it, or try the next
 * address, or kill it (reported to the node). */
void conn_connect_done(server *s, conn *c);

/* transport.c */
logrep_transport server_transport(server *s);
void transport_resolved(server *s); /* results waiting on the resolver's pipe */

#endif
