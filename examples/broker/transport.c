/* The transport vtable the node sends through (<logrep/node.h>): send
 * queues a frame on a connection, connect opens an outbound connection
 * without blocking, close drops one. Nothing else happens here: request
 * timing and counting belong to the loop (server.c, conn.c).
 *
 * connect returns an id at once. A numeric host (inet_pton) is connected
 * right away with a non-blocking connect(); a host name goes to the
 * resolver thread (examples/minimal/net.c) and the connect starts when
 * its answer comes back through the resolver's pipe. Sends queue in the
 * meantime; a failure (no such name, every address refused) kills the
 * connection with notify set, so the sweep reports it with
 * logrep_node_closed: never from inside a transport method. */

#include <stdlib.h>

#include "server.h"

static logrep_err t_send(void *ctx, uint64_t id, const logrep_seg *segs, size_t nsegs)
{
    server *s = ctx;
    conn *c = conn_get(s, id);
    if (!c || c->state == S_DEAD)
        return LOGREP_ERR__IO;
    for (size_t i = 0; i < nsegs; i++) {
        int r = segs[i].data
                    ? wq_mem(s, c, segs[i].data, (size_t)segs[i].len)
                    : wq_file(s, c, (int)segs[i].file, (uint64_t)segs[i].pos, segs[i].len);
        if (r != 0) {
            conn_kill(s, c, 0);
            return LOGREP_ERR__IO;
        }
    }
    conn_mark_dirty(s, c);
    return LOGREP_OK;
}

/* A resolving connection starts its connect (to its first address that
 * does not fail at once). 0, or -1: the caller kills it. */
static int start_connect(server *s, conn *c)
{
    int in_progress = 0;
    int fd = net_connect_next(c->addrs, &in_progress);
    if (fd < 0)
        return -1;
    return conn_attach(s, c, fd, in_progress);
}

static int ensure_resolver(server *s)
{
    if (s->resolver)
        return 0;
    s->resolver = net_resolver_new();
    if (!s->resolver)
        return -1;
    if (srv_watch(s, net_resolver_fd(s->resolver), TAG_RESOLVER) != 0) {
        net_resolver_free(s->resolver);
        s->resolver = NULL;
        return -1;
    }
    return 0;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *host, int32_t port,
                            uint64_t *out)
{
    server *s = ctx;
    net_addrs *a = malloc(sizeof *a);
    if (!a)
        return LOGREP_ERR__IO;
    int numeric = net_numeric(host, port, a) == 0;
    if (!numeric && ensure_resolver(s) != 0) {
        free(a);
        return LOGREP_ERR__IO;
    }
    conn *c = conn_new(s, -1, K_PEER, S_RESOLVING);
    if (!c) {
        free(a);
        return LOGREP_ERR__IO;
    }
    c->addrs = a;
    if (numeric ? start_connect(s, c) != 0
                : net_resolver_submit(s->resolver, c->id, host, port) != 0) {
        conn_release(s, c);
        return LOGREP_ERR__IO;
    }
    srv_log(s, LOGREP_LEVEL_DEBUG, "connecting to node %d at %s:%d%s", node_id, host, port,
            numeric ? "" : " (resolving)");
    *out = c->id;
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t id)
{
    server *s = ctx;
    conn *c = conn_get(s, id);
    if (c)
        conn_kill(s, c, 0);
}

logrep_transport server_transport(server *s)
{
    return (logrep_transport){LOGREP_TRANSPORT_VERSION, s, t_send, t_connect, t_close};
}

void transport_resolved(server *s)
{
    uint64_t id;
    net_addrs a;
    int r;
    while ((r = net_resolver_next(s->resolver, &id, &a)) >= 0) {
        conn *c = conn_get(s, id);
        if (!c || c->state != S_RESOLVING)
            continue; /* closed meanwhile */
        *c->addrs = a;
        if (r == 0 || start_connect(s, c) != 0) {
            /* An unknown name is a configuration error worth seeing (the
             * node retries after its backoff); a refused connect is not. */
            srv_log(s, r == 0 ? LOGREP_LEVEL_WARN : LOGREP_LEVEL_DEBUG, "connection %llu: %s",
                    (unsigned long long)id, r == 0 ? "host name did not resolve" : "connect failed");
            conn_kill(s, c, 1);
        }
    }
}
