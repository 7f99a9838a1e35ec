/* Socket helpers for a host's event loop: numeric addresses, listening,
 * non-blocking connects, and name resolution off the loop thread.
 *
 * Shared by examples/minimal/minimal_broker.c and the tuned broker in
 * examples/broker/. Nothing here blocks except net_listen (called before
 * the loop starts) and the resolver's own thread. */
#ifndef LOGREP_EXAMPLE_NET_H
#define LOGREP_EXAMPLE_NET_H

#include <stdint.h>
#include <sys/socket.h>

#define NET_MAX_ADDRS 4

/* The addresses of one peer, tried in order until a connect succeeds. */
typedef struct net_addrs {
    int n, next;
    struct sockaddr_storage a[NET_MAX_ADDRS];
    socklen_t len[NET_MAX_ADDRS];
} net_addrs;

/* host as a numeric IPv4 or IPv6 address ("127.0.0.1", "::1", "[::1]"),
 * with inet_pton: no lookup. 0, or -1 when host is not numeric. */
int net_numeric(const char *host, int port, net_addrs *out);

/* A non-blocking listening socket on host:port (host may be a name: this
 * runs at start-up, before the loop, so getaddrinfo may block here). The
 * descriptor, or -1 with a message on stderr. */
int net_listen(const char *prog, const char *host, int port);

/* Starts a non-blocking connect to the next untried address of `a`:
 * the socket (TCP_NODELAY set) with *in_progress = 1 when the connect is
 * under way (wait for EPOLLOUT, then net_connect_error), 0 when it is
 * already connected. -1 when every remaining address failed at once. */
int net_connect_next(net_addrs *a, int *in_progress);

/* After EPOLLOUT or EPOLLERR on a connecting socket: 0 when connected,
 * otherwise the connect's errno (SO_ERROR). */
int net_connect_error(int fd);

/* Name resolution off the loop thread. One helper thread, started by the
 * first net_resolver_submit, runs getaddrinfo for each submitted job and
 * hands the result back through a pipe the loop watches (net_resolver_fd
 * becomes readable). Jobs and results are fixed-size records written
 * atomically to pipes, so no locks are shared with the loop. */
typedef struct net_resolver net_resolver;

/* NULL when out of memory or descriptors. The calling thread's signal
 * mask does not matter: the helper thread blocks every signal. */
net_resolver *net_resolver_new(void);

/* Readable when results wait; add it to the loop's epoll set. */
int net_resolver_fd(const net_resolver *r);

/* Queues a lookup of host:port for the caller's id. 0, or -1 (host name
 * too long, the job pipe full, the thread could not start). */
int net_resolver_submit(net_resolver *r, uint64_t id, const char *host, int port);

/* The next result: 1 with *out filled, 0 when the name did not resolve
 * (*out->n == 0), -1 when no result waits. */
int net_resolver_next(net_resolver *r, uint64_t *id, net_addrs *out);

/* Stops the thread (after the lookup it is in, if any) and frees. NULL
 * is a no-op. */
void net_resolver_free(net_resolver *r);

#endif
