/* The event loop: epoll over listeners, accepted connections, outbound
 * connections the node asked for, the metrics listener, the resolver's
 * pipe and a signalfd. See broker.h for the threading model and server.h
 * for the other parts (connection I/O in conn.c, the transport vtable in
 * transport.c).
 *
 * Per connection: bytes read are split into frames with
 * logrep_proto_frame() and handed to the node in arrival order (requests
 * on accepted connections, responses on outbound ones); a request's
 * timing starts here, as it enters, and ends in conn_flush when the last
 * byte of its response leaves. Writes are flushed after each connection's
 * input and after the tick: the responses one read's frames produced
 * share syscalls and leave before the next connection's input is
 * handled. */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include <logrep/proto.h>

/* ------------------------------------------------------------ clock */

/* Wall-clock milliseconds kept monotonic: LogAppendTime, retention by
 * time and ListOffsets by timestamp all compare with record timestamps. */
int64_t srv_now(server *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (t > s->now)
        s->now = t;
    return s->now;
}

int64_t broker_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------ logging */

/* The library's logger and the broker's own lines; ctx is the server. */
static void log_cb(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    const server *s = ctx;
    const char *lv = level <= LOGREP_LEVEL_ERROR ? "ERROR"
                     : level <= LOGREP_LEVEL_WARN ? "WARN"
                     : level <= LOGREP_LEVEL_INFO ? "INFO"
                                                : "DEBUG";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "[%02d:%02d:%02d.%03ld] %s node %d %s: %.*s\n", tm.tm_hour, tm.tm_min,
            tm.tm_sec, ts.tv_nsec / 1000000, lv, s->bc->node_id, subsys, (int)len, msg);
}

void srv_log(server *s, int level, const char *fmt, ...)
{
    if (level > s->bc->log_level)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    log_cb(s, level, "broker", buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

int srv_watch(server *s, int fd, uint64_t tag)
{
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = tag};
    return epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e);
}

/* ------------------------------------------------------------ frames */

void srv_frames(server *s, conn *c)
{
    size_t at = 0;
    while (c->state != S_DEAD && at < c->rlen) {
        size_t flen = 0;
        logrep_err e = logrep_proto_frame(c->rbuf + at, c->rlen - at, s->bc->request_max_bytes,
                                          &flen);
        if (e == LOGREP_ERR__AGAIN) {
            /* Make room for the whole frame when its size is known. */
            if (flen > c->rcap && conn_rbuf_grow(s, c, flen) != 0)
                return;
            break;
        }
        if (e != LOGREP_OK) {
            srv_log(s, LOGREP_LEVEL_WARN, "closing connection %llu: %s frame",
                    (unsigned long long)c->id,
                    e == LOGREP_ERR__LIMIT ? "oversized (socket.request.max.bytes)" : "malformed");
            s->m.bad_frames++;
            conn_kill(s, c, 1);
            return;
        }
        const uint8_t *f = c->rbuf + at;
        at += flen;
        if (c->kind == K_CLIENT) {
            /* The request enters: count it and start its timing. */
            if (flen >= 12) {
                int api = (int)(int16_t)((uint16_t)f[4] << 8 | f[5]);
                int32_t corr = (int32_t)((uint32_t)f[8] << 24 | (uint32_t)f[9] << 16 |
                                         (uint32_t)f[10] << 8 | f[11]);
                metrics_request(&s->m, &c->fifo, api, corr, broker_mono_us());
            }
            logrep_err r = logrep_node_request(s->node, c->id, f, flen, srv_now(s));
            if (r != LOGREP_OK) {
                s->m.bad_requests++;
                conn_kill(s, c, 0); /* the node closed it already */
            }
        } else {
            if (logrep_node_response(s->node, c->id, f, flen, srv_now(s)) != LOGREP_OK)
                conn_kill(s, c, 0);
        }
    }
    if (at && c->state != S_DEAD) {
        memmove(c->rbuf, c->rbuf + at, c->rlen - at);
        c->rlen -= at;
    }
}

/* ------------------------------------------------------------ metrics */

void srv_http(server *s, conn *c)
{
    if (!memmem(c->rbuf, c->rlen, "\r\n\r\n", 4) && !memmem(c->rbuf, c->rlen, "\n\n", 2))
        return;
    char *body = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&body, &blen);
    if (!f) {
        conn_kill(s, c, 0);
        return;
    }
    int is_metrics = c->rlen >= 4 && memcmp(c->rbuf, "GET ", 4) == 0;
    logrep_storage_fd_stats fds;
    if (is_metrics)
        metrics_write(f, &s->m, s->node, s->bc->node_id, s->n_clients,
                      broker_storage_fd_stats(s->st, &fds) == LOGREP_OK ? &fds : NULL);
    fclose(f);
    char hdr[256];
    int hl = snprintf(hdr, sizeof hdr,
                      "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      is_metrics ? "200 OK" : "405 Method Not Allowed", is_metrics ? blen : 0);
    wq_mem(s, c, (const uint8_t *)hdr, (size_t)hl);
    if (is_metrics && blen)
        wq_mem(s, c, (const uint8_t *)body, blen);
    free(body);
    c->close_after_flush = 1;
    conn_mark_dirty(s, c);
}

/* ------------------------------------------------------------ listeners */

#define ACCEPT_BACKOFF_MS 100

static void watch_listeners(server *s, int op)
{
    for (int i = 0; i < s->bc->n_listeners; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_LISTENER | (uint64_t)i};
        epoll_ctl(s->ep, op, s->lfd[i], &e);
    }
    if (s->mfd >= 0) {
        struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_METRICS};
        epoll_ctl(s->ep, op, s->mfd, &e);
    }
}

/* EMFILE/ENFILE: the pending connection stays in the backlog; stop
 * watching every listener for a back-off, then try again. */
static void accept_pause(server *s)
{
    s->m.accept_paused++;
    if (!s->accept_episode)
        srv_log(s, LOGREP_LEVEL_WARN,
                "accept: %s; pausing accepts (%d ms back-off) until descriptors free",
                strerror(errno), ACCEPT_BACKOFF_MS);
    s->accept_episode = 1;
    if (!s->accept_resume_ms)
        watch_listeners(s, EPOLL_CTL_DEL);
    s->accept_resume_ms = srv_now(s) + ACCEPT_BACKOFF_MS;
}

static void accept_maybe_resume(server *s, int64_t t)
{
    if (s->accept_resume_ms && t >= s->accept_resume_ms) {
        s->accept_resume_ms = 0;
        watch_listeners(s, EPOLL_CTL_ADD);
    }
}

/* listener: index into s->bc->listeners for client listeners, -1 else. */
static void on_accept(server *s, int lfd, int kind, int listener)
{
    if (s->accept_resume_ms)
        return; /* an event of this round from before the pause */
    for (int i = 0; i < 64; i++) {
        struct sockaddr_storage sa;
        socklen_t salen = sizeof sa;
        int fd = accept4(lfd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                accept_pause(s);
            return;
        }
        if (s->accept_episode) {
            s->accept_episode = 0;
            srv_log(s, LOGREP_LEVEL_INFO, "accept: accepting again");
        }
        if (kind == K_CLIENT && s->n_clients >= s->bc->max_connections) {
            s->m.connections_rejected++;
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = conn_new(s, fd, kind, S_OPEN);
        if (!c) {
            close(fd);
            continue;
        }
        /* The node serves controller APIs only on controller listeners. */
        if (listener >= 0)
            logrep_node_accepted(s->node, c->id, s->bc->listeners[listener].name);
        /* Group members show their client host as Kafka does: "/" and the IP. */
        char ip[INET6_ADDRSTRLEN + 1] = "/";
        const void *a = sa.ss_family == AF_INET6
                            ? (const void *)&((struct sockaddr_in6 *)&sa)->sin6_addr
                            : (const void *)&((struct sockaddr_in *)&sa)->sin_addr;
        if (kind == K_CLIENT && inet_ntop(sa.ss_family, a, ip + 1, sizeof ip - 1))
            logrep_node_peer(s->node, c->id, ip);
        if (kind == K_CLIENT)
            s->m.connections_accepted++;
    }
}

/* ------------------------------------------------------------ loop */

/* Returns 1 when a close was reported to the node: its deadline may have
 * moved (a peer to reconnect), so the node is ticked again at once. */
static int sweep(server *s)
{
    int closed = 0;
    /* Flush, then release what died; closes may queue more writes. */
    for (int round = 0; round < 4 && s->dirty; round++) {
        conn *list = s->dirty;
        s->dirty = NULL;
        conn *dead = NULL;
        while (list) {
            conn *c = list;
            list = c->next_dirty;
            /* c->dirty stays set while it is handled, so a kill inside
             * conn_flush cannot queue it twice. */
            if (c->state == S_OPEN)
                conn_flush(s, c);
            if (c->state == S_DEAD) {
                c->next_dirty = dead;
                dead = c;
            } else {
                c->dirty = 0;
            }
        }
        while (dead) {
            conn *c = dead;
            dead = c->next_dirty;
            uint64_t id = c->id;
            int notify = c->notify && c->kind != K_METRICS;
            conn_release(s, c);
            if (notify) {
                logrep_node_closed(s->node, id, srv_now(s));
                closed = 1;
            }
        }
    }
    return closed;
}

static void expire_idle(server *s)
{
    for (uint32_t i = 1; i < s->n_slots; i++) {
        conn *c = s->slots[i];
        if (!c || c->state == S_DEAD)
            continue;
        int64_t limit = c->kind == K_METRICS ? 10000 : s->bc->idle_ms;
        if (c->kind != K_PEER && s->now - c->last_active > limit) {
            srv_log(s, LOGREP_LEVEL_DEBUG, "closing idle connection %llu",
                    (unsigned long long)c->id);
            s->m.connections_idle_closed++;
            conn_kill(s, c, 1);
        }
    }
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* One epoll event on a connection. */
static void on_conn_event(server *s, conn *c, uint32_t events)
{
    if (c->state == S_CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        conn_connect_done(s, c);
        if (c->state != S_OPEN)
            return;
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        conn_readable(s, c);
    if (c->state == S_OPEN && (events & EPOLLOUT))
        conn_mark_dirty(s, c);
}

/* Opens the signalfd, epoll set, listeners, storage and node. 0 or 1. */
static int server_start(server *s, broker_conf *bc)
{
    s->bc = bc;
    s->mfd = s->sfd = s->ep = -1;
    for (int i = 0; i < BROKER_MAX_LISTENERS; i++)
        s->lfd[i] = -1;
    metrics_init(&s->m);
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    s->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    if (s->sfd < 0 || s->ep < 0) {
        perror("logrep-broker: epoll/signalfd");
        return 1;
    }
    srv_watch(s, s->sfd, TAG_SIGNAL);
    for (int i = 0; i < bc->n_listeners; i++) {
        s->lfd[i] = net_listen("logrep-broker", bc->listeners[i].host, bc->listeners[i].port);
        if (s->lfd[i] < 0)
            return 1;
        srv_watch(s, s->lfd[i], TAG_LISTENER | (uint64_t)i);
    }
    if (bc->metrics_host[0]) {
        s->mfd = net_listen("logrep-broker", bc->metrics_host, bc->metrics_port);
        if (s->mfd < 0)
            return 1;
        srv_watch(s, s->mfd, TAG_METRICS);
    }
    if (!bc->sendfile && !(s->stage = malloc(STAGE_MAX))) {
        fprintf(stderr, "logrep-broker: out of memory\n");
        return 1;
    }
    if (mkdir_p(bc->log_dir) != 0) {
        fprintf(stderr, "logrep-broker: log.dirs %s: %s\n", bc->log_dir, strerror(errno));
        return 1;
    }
    logrep_conf_set_logger(bc->conf, log_cb, s, bc->log_level);
    if (broker_storage_new(bc->conf, (uint64_t)bc->cache_window, &s->st) != LOGREP_OK) {
        fprintf(stderr, "logrep-broker: out of memory\n");
        return 1;
    }
    logrep_transport tr = server_transport(s);
    char err[256];
    logrep_err le = logrep_node_new(bc->conf, s->st, &tr, srv_now(s), err, sizeof err, &s->node);
    if (le != LOGREP_OK) {
        fprintf(stderr, "logrep-broker: cannot start node %d: %s: %s\n", bc->node_id,
                logrep_err_name(le), err);
        return 1;
    }
    return 0;
}

static void server_stop(server *s)
{
    logrep_node_free(s->node, 0);
    if (s->st)
        logrep_storage_free(s->st);
    for (uint32_t i = 1; i < s->n_slots; i++)
        if (s->slots[i])
            conn_release(s, s->slots[i]);
    free(s->slots);
    net_resolver_free(s->resolver);
    for (int i = 0; i < BROKER_MAX_LISTENERS; i++)
        if (s->lfd[i] >= 0)
            close(s->lfd[i]);
    if (s->mfd >= 0)
        close(s->mfd);
    if (s->ep >= 0)
        close(s->ep);
    if (s->sfd >= 0)
        close(s->sfd);
    metrics_free(&s->m);
    free(s->stage);
}

int broker_run(broker_conf *bc)
{
    server *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "logrep-broker: out of memory\n");
        return 1;
    }
    if (server_start(s, bc) != 0) {
        server_stop(s);
        free(s);
        return 1;
    }
    char roles[64] = "";
    logrep_conf_get(bc->conf, "process.roles", roles, sizeof roles, NULL);
    srv_log(s, LOGREP_LEVEL_INFO, "node %d (%s) started, pid %d", bc->node_id, roles,
            (int)getpid());

    int64_t next_tick = srv_now(s);
    int64_t next_idle = srv_now(s) + 1000;
    int stopping = 0;
    int64_t stop_deadline = 0;
    struct epoll_event evs[256];
    for (;;) {
        int64_t t = srv_now(s);
        int timeout = s->dirty ? 0 : (int)(next_tick > t ? next_tick - t : 0);
        if (timeout > 1000)
            timeout = 1000;
        if (s->accept_resume_ms &&
            timeout > (int)(s->accept_resume_ms > t ? s->accept_resume_ms - t : 0))
            timeout = (int)(s->accept_resume_ms > t ? s->accept_resume_ms - t : 0);
        int n = epoll_wait(s->ep, evs, 256, timeout);
        int closed = 0;
        if (n < 0 && errno != EINTR) {
            perror("logrep-broker: epoll_wait");
            break;
        }
        srv_now(s);
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    if (!stopping) {
                        srv_log(s, LOGREP_LEVEL_INFO, "signal %u: controlled shutdown",
                                si.ssi_signo);
                        stopping = 1;
                        stop_deadline = srv_now(s) + bc->shutdown_timeout_ms;
                        logrep_node_shutdown(s->node, srv_now(s));
                    } else {
                        stop_deadline = 0; /* second signal: stop now */
                    }
                }
            } else if (tag == TAG_RESOLVER) {
                transport_resolved(s);
                closed |= sweep(s);
            } else if (tag == TAG_METRICS) {
                on_accept(s, s->mfd, K_METRICS, -1);
            } else if ((tag & TAG_LISTENER) && (tag & 0xfff) < BROKER_MAX_LISTENERS) {
                on_accept(s, s->lfd[(int)(tag & 0xfff)], K_CLIENT, (int)(tag & 0xfff));
            } else {
                conn *c = conn_get(s, tag);
                if (!c || c->state == S_DEAD)
                    continue;
                on_conn_event(s, c, evs[i].events);
                /* What this input produced leaves now, not after the rest
                 * of the batch: a follower starts on the records while the
                 * leader reads on. */
                closed |= sweep(s);
            }
        }
        t = srv_now(s);
        /* Ticking right after input lets the node answer what the input
         * unblocked (parked follower and consumer fetches, acks=all
         * produces) without waiting for the next deadline. */
        if (t >= next_tick || n > 0)
            next_tick = logrep_node_tick(s->node, t);
        accept_maybe_resume(s, t);
        if (t >= next_idle) {
            expire_idle(s);
            next_idle = t + 1000;
        }
        if (sweep(s) || closed)
            next_tick = t;
        if (stopping && (logrep_node_shutdown_done(s->node) || t >= stop_deadline)) {
            if (!logrep_node_shutdown_done(s->node))
                srv_log(s, LOGREP_LEVEL_WARN, "controlled shutdown timed out");
            break;
        }
    }
    server_stop(s);
    srv_log(s, LOGREP_LEVEL_INFO, "stopped");
    free(s);
    return 0;
}
