/* minimal-broker: the smallest complete Kafka-compatible broker on
 * liblogrep. A TEACHING COPY: copy this file and net.c/net.h to start your
 * own server; it is kept short on purpose. The tuned broker
 * (examples/broker/, logrep-broker) adds what a deployment wants on top:
 * server.properties with Kafka's broker-level aliases, a Prometheus page
 * with request timing, a page-cache window, staged writev or sendfile()
 * for record bytes, idle-connection expiry, max.connections and accept
 * back-off when out of descriptors.
 *
 *   minimal-broker key=value...
 *
 * Every key=value is a library property (logrep_conf_set), e.g. one node
 * that is broker and controller:
 *
 *   minimal-broker node.id=1 process.roles=broker,controller \
 *       listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093 \
 *       controller.quorum.voters=1@127.0.0.1:9093 log.dirs=/tmp/minimal-1
 *
 * What a host does for a node (<logrep/node.h>), all on this one thread:
 *   1. storage: the library's POSIX backend (logrep_storage_posix_new);
 *   2. transport: send queues bytes on a connection, connect opens one
 *      without blocking (numeric hosts at once, names through net.c's
 *      resolver thread), close drops one;
 *   3. input: bytes read are cut into frames (logrep_proto_frame) and
 *      handed over: requests on accepted connections, responses on the
 *      ones the node asked for;
 *   4. time: logrep_node_tick at the deadline it returns and after input;
 *   5. closes: a dead connection is reported with logrep_node_closed, from
 *      the loop, never from inside a transport method;
 *   6. shutdown: SIGTERM/SIGINT start logrep_node_shutdown; the loop runs
 *      until logrep_node_shutdown_done (a second signal stops at once). */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "net.h"

#define MAX_CONNS 1024                  /* connection slots */
#define MAX_LISTENERS 8
#define OUT_HIGH (16u << 20)            /* stop reading a connection with this much to send */
#define TAG (1ull << 62)                /* epoll tags that are not connection ids */
#define TAG_SIGNAL (TAG | 0x100)
#define TAG_RESOLVER (TAG | 0x200)

enum { RESOLVING, CONNECTING, OPEN, DEAD };

typedef struct mconn {
    uint64_t id;        /* generation << 16 | slot */
    int fd;             /* -1 while resolving */
    int state;
    int outbound;       /* opened for the node: responses arrive on it */
    int notify;         /* report the close to the node when swept */
    uint32_t ev;        /* epoll events asked for */
    net_addrs *addrs;   /* outbound: addresses left to try */
    uint8_t *in, *out;
    size_t in_len, in_cap, out_off, out_len, out_cap;
} mconn;

typedef struct mb {
    logrep_node *node;
    int ep, sfd;
    net_resolver *resolver;
    int lfd[MAX_LISTENERS];
    char lname[MAX_LISTENERS][64];
    int nl;
    mconn *conns[MAX_CONNS];
    uint32_t gen;
    int64_t now, max_frame;
} mb;

/* Wall-clock ms kept monotonic (record timestamps compare with it). */
static int64_t now_ms(mb *m)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (t > m->now)
        m->now = t;
    return m->now;
}

static void log_cb(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    (void)ctx;
    fprintf(stderr, "%s %s: %.*s\n", level <= LOGREP_LEVEL_WARN ? "WARN" : "INFO", subsys,
            (int)len, msg);
}

/* ------------------------------------------------------------ connections */

static mconn *conn_get(mb *m, uint64_t id)
{
    mconn *c = m->conns[id & (MAX_CONNS - 1)];
    return c && c->id == id ? c : NULL;
}

/* Asks epoll for what the connection needs now. */
static void conn_watch(mb *m, mconn *c)
{
    if (c->fd < 0 || c->state == DEAD)
        return;
    uint32_t ev = 0;
    if (c->state == CONNECTING || c->out_len > c->out_off)
        ev |= EPOLLOUT;
    if (c->state == OPEN && c->out_len - c->out_off < OUT_HIGH)
        ev |= EPOLLIN;
    if (ev == c->ev)
        return;
    struct epoll_event e = {.events = ev, .data.u64 = c->id};
    epoll_ctl(m->ep, c->ev ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &e);
    c->ev = ev;
}

static mconn *conn_new(mb *m, int fd, int state, int outbound)
{
    for (uint32_t slot = 1; slot < MAX_CONNS; slot++) {
        if (m->conns[slot])
            continue;
        mconn *c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->id = (uint64_t)++m->gen << 16 | slot;
        c->fd = fd;
        c->state = state;
        c->outbound = outbound;
        m->conns[slot] = c;
        conn_watch(m, c);
        return c;
    }
    return NULL;
}

/* A resolving connection, or one whose address failed, gets its socket. */
static void conn_attach(mb *m, mconn *c, int fd, int in_progress)
{
    if (c->fd >= 0) {
        epoll_ctl(m->ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = fd;
    c->ev = 0;
    c->state = in_progress ? CONNECTING : OPEN;
    conn_watch(m, c);
}

/* Marks it dead; the sweep frees it (and reports it when notify). */
static void conn_kill(mb *m, mconn *c, int notify)
{
    if (c->state == DEAD)
        return;
    if (c->fd >= 0)
        epoll_ctl(m->ep, EPOLL_CTL_DEL, c->fd, NULL);
    c->state = DEAD;
    c->notify = notify;
}

static void conn_free(mb *m, mconn *c)
{
    m->conns[c->id & (MAX_CONNS - 1)] = NULL;
    if (c->fd >= 0)
        close(c->fd);
    free(c->addrs);
    free(c->in);
    free(c->out);
    free(c);
}

/* Room for n more bytes to send; NULL when out of memory. */
static uint8_t *out_reserve(mconn *c, size_t n)
{
    if (c->out_off && c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    if (c->out_cap - c->out_len < n) {
        size_t cap = c->out_cap ? c->out_cap : 65536;
        while (cap - c->out_len < n)
            cap *= 2;
        uint8_t *p = realloc(c->out, cap);
        if (!p)
            return NULL;
        c->out = p;
        c->out_cap = cap;
    }
    c->out_len += n;
    return c->out + c->out_len - n;
}

/* Writes what the socket takes. */
static void conn_flush(mb *m, mconn *c)
{
    while (c->state == OPEN && c->out_len > c->out_off) {
        ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            conn_kill(m, c, 1);
            return;
        }
        c->out_off += (size_t)n;
    }
    conn_watch(m, c);
}

/* ------------------------------------------------------------ transport */

/* Memory segments are copied; file segments (record bytes in a segment
 * file) are read now, while their descriptor is valid for certain. */
static logrep_err t_send(void *ctx, uint64_t id, const logrep_seg *segs, size_t nsegs)
{
    mb *m = ctx;
    mconn *c = conn_get(m, id);
    if (!c || c->state == DEAD)
        return LOGREP_ERR__IO;
    for (size_t i = 0; i < nsegs; i++) {
        uint8_t *p = out_reserve(c, (size_t)segs[i].len);
        int ok = p != NULL;
        if (ok && segs[i].data)
            memcpy(p, segs[i].data, (size_t)segs[i].len);
        else if (ok)
            ok = pread((int)segs[i].file, p, (size_t)segs[i].len, (off_t)segs[i].pos) ==
                 (ssize_t)segs[i].len;
        if (!ok) {
            conn_kill(m, c, 0); /* LOGREP_ERR__IO: the node treats it as closed */
            return LOGREP_ERR__IO;
        }
    }
    return LOGREP_OK;
}

/* The next address of an outbound connection; 0, or -1 when none is left. */
static int try_connect(mb *m, mconn *c)
{
    int in_progress = 0;
    int fd = net_connect_next(c->addrs, &in_progress);
    if (fd < 0)
        return -1;
    conn_attach(m, c, fd, in_progress);
    return 0;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *host, int32_t port,
                            uint64_t *out)
{
    mb *m = ctx;
    (void)node_id;
    net_addrs *a = malloc(sizeof *a);
    mconn *c = a ? conn_new(m, -1, RESOLVING, 1) : NULL;
    if (!c) {
        free(a);
        return LOGREP_ERR__IO;
    }
    c->addrs = a;
    int ok;
    if (net_numeric(host, port, a) == 0) {
        ok = try_connect(m, c) == 0;
    } else {
        if (!m->resolver && (m->resolver = net_resolver_new()) != NULL) {
            struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_RESOLVER};
            epoll_ctl(m->ep, EPOLL_CTL_ADD, net_resolver_fd(m->resolver), &e);
        }
        ok = m->resolver && net_resolver_submit(m->resolver, c->id, host, port) == 0;
    }
    if (!ok) {
        conn_free(m, c);
        return LOGREP_ERR__IO;
    }
    *out = c->id;
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t id)
{
    mb *m = ctx;
    mconn *c = conn_get(m, id);
    if (c)
        conn_kill(m, c, 0);
}

/* Host names the resolver thread has looked up. */
static void on_resolved(mb *m)
{
    uint64_t id;
    net_addrs a;
    int r;
    while ((r = net_resolver_next(m->resolver, &id, &a)) >= 0) {
        mconn *c = conn_get(m, id);
        if (!c || c->state != RESOLVING)
            continue;
        *c->addrs = a;
        if (r == 0 || try_connect(m, c) != 0)
            conn_kill(m, c, 1);
    }
}

/* ------------------------------------------------------------ input */

static void on_frames(mb *m, mconn *c)
{
    size_t at = 0;
    while (c->state != DEAD && at < c->in_len) {
        size_t len = 0;
        logrep_err e = logrep_proto_frame(c->in + at, c->in_len - at, m->max_frame, &len);
        if (e == LOGREP_ERR__AGAIN)
            break;
        if (e != LOGREP_OK) {
            conn_kill(m, c, 1); /* malformed or oversized */
            return;
        }
        logrep_err r = c->outbound
                           ? logrep_node_response(m->node, c->id, c->in + at, len, now_ms(m))
                           : logrep_node_request(m->node, c->id, c->in + at, len, now_ms(m));
        if (r != LOGREP_OK)
            conn_kill(m, c, 0); /* the node closed it already */
        at += len;
    }
    memmove(c->in, c->in + at, c->in_len - at);
    c->in_len -= at;
}

static void on_readable(mb *m, mconn *c)
{
    if (c->in_cap - c->in_len < 65536) {
        size_t cap = c->in_cap ? c->in_cap * 2 : 131072;
        uint8_t *p = realloc(c->in, cap);
        if (!p) {
            conn_kill(m, c, 1);
            return;
        }
        c->in = p;
        c->in_cap = cap;
    }
    ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        conn_kill(m, c, 1);
    if (n <= 0)
        return;
    c->in_len += (size_t)n;
    on_frames(m, c);
}

static void on_conn_event(mb *m, mconn *c, uint32_t events)
{
    if (c->state == CONNECTING) {
        if (net_connect_error(c->fd) == 0)
            c->state = OPEN;
        else if (try_connect(m, c) != 0)
            conn_kill(m, c, 1);
        return;
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        on_readable(m, c);
}

/* Until EAGAIN. (Out of descriptors, accept fails with EMFILE and the
 * level-triggered listener wakes the loop at once, again and again: the
 * tuned broker stops watching its listeners for a back-off then.) */
static void on_accept(mb *m, int listener)
{
    for (;;) {
        int fd = accept4(m->lfd[listener], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        mconn *c = conn_new(m, fd, OPEN, 0);
        if (!c) {
            close(fd);
            continue;
        }
        logrep_node_accepted(m->node, c->id, m->lname[listener]);
    }
}

/* Flushes every connection and frees the dead ones. 1 when a close was
 * reported: the node's deadline may have moved (a peer to reconnect). */
static int sweep(mb *m)
{
    int closed = 0;
    for (uint32_t i = 1; i < MAX_CONNS; i++) {
        mconn *c = m->conns[i];
        if (c && c->state == OPEN)
            conn_flush(m, c);
        if (c && c->state == DEAD) {
            uint64_t id = c->id;
            int notify = c->notify;
            conn_free(m, c);
            if (notify) {
                logrep_node_closed(m->node, id, now_ms(m));
                closed = 1;
            }
        }
    }
    return closed;
}

/* ------------------------------------------------------------ start-up */

/* listeners=NAME://host:port,... : one listening socket each. When
 * advertised.listeners is not set, the first listener that is not a
 * controller listener is advertised (what clients and peers connect to). */
static int open_listeners(mb *m, logrep_conf *conf)
{
    char v[1024], adv[1024], ctl[256], *save = NULL;
    logrep_conf_get(conf, "listeners", v, sizeof v, NULL);
    logrep_conf_get(conf, "advertised.listeners", adv, sizeof adv, NULL);
    logrep_conf_get(conf, "controller.listener.names", ctl, sizeof ctl, NULL);
    for (char *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *sep = strstr(tok, "://"), *colon = sep ? strrchr(sep + 3, ':') : NULL;
        if (!colon || m->nl == MAX_LISTENERS) {
            fprintf(stderr, "minimal-broker: listeners: expected NAME://host:port\n");
            return -1;
        }
        *sep = *colon = 0;
        const char *host = sep[3] ? sep + 3 : "0.0.0.0";
        if (!adv[0] && !strstr(ctl, tok)) {
            snprintf(adv, sizeof adv, "%s://%s:%s", tok,
                     strcmp(host, "0.0.0.0") ? host : "127.0.0.1", colon + 1);
            logrep_conf_set(conf, "advertised.listeners", adv, NULL, 0);
        }
        snprintf(m->lname[m->nl], sizeof m->lname[0], "%s", tok);
        m->lfd[m->nl] = net_listen("minimal-broker", host, atoi(colon + 1));
        if (m->lfd[m->nl] < 0)
            return -1;
        struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG | (uint64_t)m->nl};
        epoll_ctl(m->ep, EPOLL_CTL_ADD, m->lfd[m->nl++], &e);
    }
    return m->nl ? 0 : -1;
}

static int run(mb *m, logrep_conf *conf)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL); /* delivered through the signalfd */
    signal(SIGPIPE, SIG_IGN);
    m->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    m->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_SIGNAL};
    if (m->sfd < 0 || m->ep < 0 || epoll_ctl(m->ep, EPOLL_CTL_ADD, m->sfd, &e) != 0 ||
        open_listeners(m, conf) != 0)
        return 1;
    logrep_conf_get_int64(conf, "socket.request.max.bytes", &m->max_frame);
    logrep_conf_set_logger(conf, log_cb, NULL, LOGREP_LEVEL_INFO);

    logrep_storage *st = NULL;
    logrep_transport tr = {LOGREP_TRANSPORT_VERSION, m, t_send, t_connect, t_close};
    char err[256] = "";
    logrep_err le = logrep_storage_posix_new(conf, &st);
    if (le == LOGREP_OK)
        le = logrep_node_new(conf, st, &tr, now_ms(m), err, sizeof err, &m->node);
    if (le != LOGREP_OK) {
        fprintf(stderr, "minimal-broker: cannot start: %s %s\n", logrep_err_name(le), err);
        if (st)
            logrep_storage_free(st);
        return 1;
    }
    fprintf(stderr, "minimal-broker: started, pid %d\n", (int)getpid());

    int64_t next_tick = now_ms(m), stop_by = -1;
    struct epoll_event evs[64];
    while (stop_by < 0 || (now_ms(m) < stop_by && !logrep_node_shutdown_done(m->node))) {
        int64_t wait = next_tick - now_ms(m);
        int n = epoll_wait(m->ep, evs, 64, wait < 0 ? 0 : wait > 1000 ? 1000 : (int)wait);
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(m->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    if (stop_by >= 0) {
                        stop_by = 0; /* second signal: stop now */
                    } else {
                        stop_by = now_ms(m) + 30000;
                        logrep_node_shutdown(m->node, now_ms(m));
                    }
                }
            } else if (tag == TAG_RESOLVER) {
                on_resolved(m);
            } else if (tag & TAG) {
                on_accept(m, (int)(tag & 0xff));
            } else {
                mconn *c = conn_get(m, tag);
                if (c && c->state != DEAD)
                    on_conn_event(m, c, evs[i].events);
            }
        }
        int64_t t = now_ms(m);
        if (n > 0 || t >= next_tick)
            next_tick = logrep_node_tick(m->node, t); /* after input, and on time */
        if (sweep(m))
            next_tick = t;
    }
    logrep_node_free(m->node, 0);
    logrep_storage_free(st);
    fprintf(stderr, "minimal-broker: stopped\n");
    return 0;
}

int main(int argc, char **argv)
{
    logrep_conf *conf = logrep_conf_new();
    if (!conf || argc < 2) {
        fprintf(stderr, "usage: minimal-broker key=value... (library properties: node.id, "
                        "process.roles, listeners, controller.quorum.voters, log.dirs, ...)\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char key[256], err[256] = "";
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) {
            fprintf(stderr, "minimal-broker: expected key=value, got '%s'\n", argv[i]);
            return 2;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (logrep_conf_set(conf, key, eq + 1, err, sizeof err) != LOGREP_OK) {
            fprintf(stderr, "minimal-broker: %s: %s\n", argv[i], err[0] ? err : "unknown property");
            return 2;
        }
    }
    mb *m = calloc(1, sizeof *m);
    if (!m)
        return 1;
    m->ep = m->sfd = -1;
    int rc = run(m, conf);
    for (uint32_t i = 1; i < MAX_CONNS; i++)
        if (m->conns[i])
            conn_free(m, m->conns[i]);
    net_resolver_free(m->resolver);
    for (int i = 0; i < m->nl; i++)
        close(m->lfd[i]);
    if (m->ep >= 0)
        close(m->ep);
    if (m->sfd >= 0)
        close(m->sfd);
    free(m);
    logrep_conf_free(conf);
    return rc;
}
