/* The event loop: epoll over listeners, accepted connections, outbound
 * connections the node asked for, the metrics listener and a signalfd.
 * See broker.h for the threading model.
 *
 * Per connection: bytes read are split into frames with
 * logrep_proto_frame() and handed to the node in arrival order (requests
 * on accepted connections, responses on outbound ones). The node sends
 * whole response frames through transport.send, in request order; memory
 * segments are copied into the connection's write queue, file segments
 * are queued as (dup'd descriptor, position, length) and read when the
 * connection is flushed (or sent with sendfile() when logrep.sendfile is
 * set); up to 64 KiB of them are read at once instead. Writes are flushed
 * after each connection's input and after the tick: the responses one
 * read's frames produced share syscalls and leave before the next
 * connection's input is handled. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "broker.h"
#include "metrics.h"
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>

#define TAG_LISTENER (1ull << 62)
#define TAG_SIGNAL (TAG_LISTENER | 0x1000)
#define TAG_METRICS (TAG_LISTENER | 0x2000)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)
#define READ_CHUNK (256 * 1024)
#define WQ_HIGH (32u << 20) /* stop reading a connection with this much queued */
#define MEM_ITEM_MIN (64 * 1024)
#define STAGE_MAX (2u << 20) /* file bytes read for one writev */

enum { K_CLIENT, K_PEER, K_METRICS };
enum { S_CONNECTING, S_OPEN, S_DEAD };

typedef struct witem {
    struct witem *next;
    int fd;             /* -1: memory */
    uint64_t pos, len;  /* file: remaining range; memory: len bytes in data */
    size_t off, cap;
    uint8_t *data;
} witem;

typedef struct conn {
    uint64_t id;
    int fd;
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
    lat_fifo fifo;
} conn;

typedef struct server {
    broker_conf *bc;
    logrep_node *node;
    logrep_storage *st;
    int ep;
    int lfd[BROKER_MAX_LISTENERS];
    int mfd;
    int sfd;
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

static server S;

/* ------------------------------------------------------------ clock */

/* Wall-clock milliseconds kept monotonic: LogAppendTime, retention by
 * time and ListOffsets by timestamp all compare with record timestamps. */
static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (t > S.now)
        S.now = t;
    return S.now;
}

int64_t broker_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------ logging */

static void log_cb(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    (void)ctx;
    const char *lv = level <= LOGREP_LEVEL_ERROR ? "ERROR"
                     : level <= LOGREP_LEVEL_WARN ? "WARN"
                     : level <= LOGREP_LEVEL_INFO ? "INFO"
                                                : "DEBUG";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "[%02d:%02d:%02d.%03ld] %s node %d %s: %.*s\n", tm.tm_hour, tm.tm_min,
            tm.tm_sec, ts.tv_nsec / 1000000, lv, S.bc ? S.bc->node_id : -1, subsys, (int)len,
            msg);
}

static void logf_(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(int level, const char *fmt, ...)
{
    if (!S.bc || level > S.bc->log_level)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    log_cb(NULL, level, "broker", buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ------------------------------------------------------------ connections */

static conn *conn_get(uint64_t id)
{
    uint32_t slot = (uint32_t)(id & (MAX_SLOTS - 1));
    if (slot >= S.n_slots || !S.slots[slot] || S.slots[slot]->id != id)
        return NULL;
    return S.slots[slot];
}

static void ep_set(conn *c)
{
    if (c->state == S_DEAD)
        return;
    uint32_t ev = 0;
    if (c->state == S_CONNECTING || c->wbytes)
        ev |= EPOLLOUT;
    if (c->state == S_OPEN && c->wbytes < WQ_HIGH && !c->close_after_flush)
        ev |= EPOLLIN;
    if (ev == c->ev)
        return;
    struct epoll_event e = {.events = ev, .data.u64 = c->id};
    epoll_ctl(S.ep, EPOLL_CTL_MOD, c->fd, &e);
    c->ev = ev;
}

static conn *conn_new(int fd, int kind, int state)
{
    uint32_t slot = 0;
    for (slot = 1; slot < S.n_slots; slot++)
        if (!S.slots[slot])
            break;
    if (slot >= S.n_slots) {
        uint32_t n = S.n_slots ? S.n_slots * 2 : 64;
        if (n > MAX_SLOTS)
            return NULL;
        conn **ns = realloc(S.slots, n * sizeof *ns);
        if (!ns)
            return NULL;
        memset(ns + S.n_slots, 0, (n - S.n_slots) * sizeof *ns);
        S.slots = ns;
        slot = S.n_slots ? S.n_slots : 1;
        S.n_slots = n;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->id = ((uint64_t)++S.gen << SLOT_BITS) | slot;
    c->fd = fd;
    c->kind = kind;
    c->state = state;
    c->last_active = S.now;
    c->ev = state == S_CONNECTING ? EPOLLOUT : EPOLLIN;
    struct epoll_event e = {.events = c->ev, .data.u64 = c->id};
    if (epoll_ctl(S.ep, EPOLL_CTL_ADD, fd, &e) != 0) {
        free(c);
        return NULL;
    }
    S.slots[slot] = c;
    if (kind == K_CLIENT)
        S.n_clients++;
    S.m.connections_open++;
    return c;
}

static void mark_dirty(conn *c)
{
    if (!c->dirty) {
        c->dirty = 1;
        c->next_dirty = S.dirty;
        S.dirty = c;
    }
}

/* Marks a connection dead; the sweep releases it. */
static void conn_kill(conn *c, int notify)
{
    if (c->state == S_DEAD)
        return;
    c->state = S_DEAD;
    c->notify = notify;
    epoll_ctl(S.ep, EPOLL_CTL_DEL, c->fd, NULL);
    mark_dirty(c);
}

static void conn_release(conn *c)
{
    uint32_t slot = (uint32_t)(c->id & (MAX_SLOTS - 1));
    S.slots[slot] = NULL;
    close(c->fd);
    while (c->whead) {
        witem *w = c->whead;
        c->whead = w->next;
        if (w->fd >= 0)
            close(w->fd);
        free(w->data);
        free(w);
    }
    if (c->kind == K_CLIENT)
        S.n_clients--;
    S.m.connections_open--;
    free(c->rbuf);
    lat_fifo_free(&c->fifo);
    free(c);
}

/* Room for len more bytes at the end of the queue (counted as queued);
 * NULL when out of memory. */
static uint8_t *wq_reserve(conn *c, size_t len)
{
    witem *t = c->wtail;
    if (t && t->fd < 0 && t->cap - t->len >= len) {
        uint8_t *p = t->data + t->len;
        t->len += len;
        c->wbytes += len;
        return p;
    }
    witem *w = calloc(1, sizeof *w);
    size_t cap = len > MEM_ITEM_MIN ? len : MEM_ITEM_MIN;
    if (!w || !(w->data = malloc(cap))) {
        free(w);
        return NULL;
    }
    w->fd = -1;
    w->cap = cap;
    w->len = len;
    if (c->wtail)
        c->wtail->next = w;
    else
        c->whead = w;
    c->wtail = w;
    c->wbytes += len;
    return w->data;
}

static int wq_mem(conn *c, const uint8_t *p, size_t len)
{
    uint8_t *q = wq_reserve(c, len);
    if (!q)
        return -1;
    memcpy(q, p, len);
    return 0;
}

/* Record bytes of this size or less are read into the queue at once
 * (when they are not sendfile'd): a fetch at the tail is small, and
 * reading it now spares duplicating and closing a descriptor. */
#define FILE_READ_NOW_MAX MEM_ITEM_MIN

static int wq_file(conn *c, int fd, uint64_t pos, uint64_t len)
{
    if (!S.bc->sendfile && len <= FILE_READ_NOW_MAX) {
        uint8_t *q = wq_reserve(c, (size_t)len);
        if (!q)
            return -1;
        ssize_t n = pread(fd, q, (size_t)len, (off_t)pos);
        return n == (ssize_t)len ? 0 : -1; /* shorter than promised: the stream is broken */
    }
    witem *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (w->fd < 0) {
        free(w);
        return -1;
    }
    w->pos = pos;
    w->len = len;
    if (c->wtail)
        c->wtail->next = w;
    else
        c->whead = w;
    c->wtail = w;
    c->wbytes += len;
    return 0;
}

/* Gathers the queue's head into iov for one writev: memory items as they
 * are, file items read into the staging buffer (at most STAGE_MAX bytes
 * in all). Returns the entry count, 0 when the head is a file item that
 * must go with sendfile, -1 when a file is shorter than promised. */
static int gather(conn *c, struct iovec *iov, int max)
{
    int k = 0;
    size_t staged = 0;
    for (witem *x = c->whead; x && k < max; x = x->next) {
        if (x->fd < 0) {
            iov[k].iov_base = x->data + x->off;
            iov[k++].iov_len = x->len - x->off;
            continue;
        }
        if (S.bc->sendfile || staged == STAGE_MAX)
            break;
        size_t want = x->len < STAGE_MAX - staged ? (size_t)x->len : STAGE_MAX - staged;
        ssize_t n = pread(x->fd, S.stage + staged, want, (off_t)x->pos);
        if (n <= 0) {
            if (k)
                break; /* send what precedes it first */
            return -1;
        }
        iov[k].iov_base = S.stage + staged;
        iov[k++].iov_len = (size_t)n;
        staged += (size_t)n;
        if ((size_t)n < want)
            break;
    }
    return k;
}

/* Writes as much as the socket takes. Record bytes leave either with
 * sendfile() or, by default, read into a staging buffer and written with
 * the response headers around them in one writev: over loopback on a
 * 2-core VM, sendfile moved half the bytes per second that write() did, and bench-broker's 1 KiB load ran ~18%
 * faster with the staging copy. Bytes read but not taken by the socket
 * are read again next time. */
static void conn_flush(conn *c)
{
    if (c->state != S_OPEN)
        return;
    while (c->whead) {
        witem *w = c->whead;
        ssize_t n;
        struct iovec iov[64];
        int k = gather(c, iov, 64);
        if (k < 0) {
            /* The file is shorter than promised (truncated): the
             * stream cannot be completed consistently. */
            conn_kill(c, 1);
            return;
        }
        if (k > 0) {
            n = writev(c->fd, iov, k);
        } else {
            off_t pos = (off_t)w->pos;
            size_t want = w->len > (1u << 30) ? (1u << 30) : (size_t)w->len;
            n = sendfile(c->fd, w->fd, &pos, want);
            if (n == 0) {
                conn_kill(c, 1);
                return;
            }
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            conn_kill(c, 1);
            return;
        }
        S.m.bytes_sent += n;
        c->wbytes -= (uint64_t)n;
        c->last_active = S.now;
        size_t left = (size_t)n;
        while (left && c->whead) {
            w = c->whead;
            if (w->fd < 0) {
                size_t have = w->len - w->off;
                size_t m = left < have ? left : have;
                w->off += m;
                left -= m;
            } else {
                size_t m = left < w->len ? left : (size_t)w->len;
                w->pos += m;
                w->len -= m;
                left -= m;
            }
            int done = w->fd < 0 ? w->off == w->len : w->len == 0;
            if (!done)
                break;
            c->whead = w->next;
            if (!c->whead)
                c->wtail = NULL;
            if (w->fd >= 0)
                close(w->fd);
            free(w->data);
            free(w);
        }
    }
    if (!c->whead && c->close_after_flush) {
        conn_kill(c, 0);
        return;
    }
    ep_set(c);
}

/* ------------------------------------------------------------ transport */

static logrep_err t_send(void *ctx, uint64_t id, const logrep_seg *segs, size_t nsegs)
{
    (void)ctx;
    conn *c = conn_get(id);
    if (!c || c->state == S_DEAD)
        return LOGREP_ERR__IO;
    if (c->kind == K_CLIENT && nsegs) {
        /* Response correlation id, for request latency. */
        uint8_t hdr[8];
        size_t got = 0;
        for (size_t i = 0; i < nsegs && got < 8; i++) {
            if (!segs[i].data)
                break;
            size_t k = segs[i].len < 8 - got ? (size_t)segs[i].len : 8 - got;
            memcpy(hdr + got, segs[i].data, k);
            got += k;
        }
        if (got == 8) {
            int32_t corr = (int32_t)((uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 |
                                     (uint32_t)hdr[6] << 8 | hdr[7]);
            metrics_response(&S.m, &c->fifo, corr, broker_mono_us());
        }
    }
    for (size_t i = 0; i < nsegs; i++) {
        int r = segs[i].data ? wq_mem(c, segs[i].data, (size_t)segs[i].len)
                             : wq_file(c, (int)segs[i].file, (uint64_t)segs[i].pos, segs[i].len);
        if (r != 0) {
            conn_kill(c, 0);
            return LOGREP_ERR__IO;
        }
    }
    mark_dirty(c);
    return LOGREP_OK;
}

static int resolve(const char *host, int port, struct sockaddr_storage *ss, socklen_t *sl)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    if (getaddrinfo(host, ps, &hints, &res) != 0 || !res)
        return -1;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sl = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *host, int32_t port,
                            uint64_t *out)
{
    (void)ctx;
    struct sockaddr_storage ss;
    socklen_t sl;
    if (resolve(host, port, &ss, &sl) != 0)
        return LOGREP_ERR__IO;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return LOGREP_ERR__IO;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int r = connect(fd, (struct sockaddr *)&ss, sl);
    if (r != 0 && errno != EINPROGRESS) {
        close(fd);
        return LOGREP_ERR__IO;
    }
    conn *c = conn_new(fd, K_PEER, r == 0 ? S_OPEN : S_CONNECTING);
    if (!c) {
        close(fd);
        return LOGREP_ERR__IO;
    }
    logf_(LOGREP_LEVEL_DEBUG, "connecting to node %d at %s:%d", node_id, host, port);
    *out = c->id;
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t id)
{
    (void)ctx;
    conn *c = conn_get(id);
    if (c)
        conn_kill(c, 0);
}

/* ------------------------------------------------------------ reading */

static void on_frames(conn *c)
{
    size_t at = 0;
    while (c->state != S_DEAD && at < c->rlen) {
        size_t flen = 0;
        logrep_err e = logrep_proto_frame(c->rbuf + at, c->rlen - at, S.bc->request_max_bytes,
                                          &flen);
        if (e == LOGREP_ERR__AGAIN) {
            /* Make room for the whole frame when its size is known. */
            if (flen > c->rcap) {
                uint8_t *nb = realloc(c->rbuf, flen);
                if (!nb) {
                    conn_kill(c, 1);
                    return;
                }
                c->rbuf = nb;
                c->rcap = flen;
            }
            break;
        }
        if (e != LOGREP_OK) {
            logf_(LOGREP_LEVEL_WARN, "closing connection %llu: %s frame",
                  (unsigned long long)c->id,
                  e == LOGREP_ERR__LIMIT ? "oversized (socket.request.max.bytes)" : "malformed");
            S.m.bad_frames++;
            conn_kill(c, 1);
            return;
        }
        const uint8_t *f = c->rbuf + at;
        at += flen;
        if (c->kind == K_CLIENT) {
            if (flen >= 12) {
                int api = (int)(int16_t)((uint16_t)f[4] << 8 | f[5]);
                int32_t corr = (int32_t)((uint32_t)f[8] << 24 | (uint32_t)f[9] << 16 |
                                         (uint32_t)f[10] << 8 | f[11]);
                metrics_request(&S.m, &c->fifo, api, corr, broker_mono_us());
            }
            logrep_err r = logrep_node_request(S.node, c->id, f, flen, now_ms());
            if (r != LOGREP_OK) {
                S.m.bad_requests++;
                conn_kill(c, 0); /* the node closed it already */
            }
        } else {
            if (logrep_node_response(S.node, c->id, f, flen, now_ms()) != LOGREP_OK)
                conn_kill(c, 0);
        }
    }
    if (at && c->state != S_DEAD) {
        memmove(c->rbuf, c->rbuf + at, c->rlen - at);
        c->rlen -= at;
    }
}

static void on_http(conn *c);

static void on_readable(conn *c)
{
    for (int rounds = 0; rounds < 4 && c->state == S_OPEN && !c->close_after_flush; rounds++) {
        if (c->rcap - c->rlen < 4096) {
            size_t ncap = c->rcap ? c->rcap * 2 : c->kind == K_METRICS ? 8192 : READ_CHUNK;
            if (c->kind == K_METRICS && ncap > 65536) {
                conn_kill(c, 0);
                return;
            }
            uint8_t *nb = realloc(c->rbuf, ncap);
            if (!nb) {
                conn_kill(c, 1);
                return;
            }
            c->rbuf = nb;
            c->rcap = ncap;
        }
        ssize_t n = read(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen);
        if (n == 0) {
            conn_kill(c, 1);
            return;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                conn_kill(c, 1);
            return;
        }
        S.m.bytes_received += n;
        c->rlen += (size_t)n;
        c->last_active = S.now;
        if (c->kind == K_METRICS)
            on_http(c);
        else
            on_frames(c);
        if ((size_t)n < 4096)
            break;
    }
}

/* ------------------------------------------------------------ metrics */

static void on_http(conn *c)
{
    if (!memmem(c->rbuf, c->rlen, "\r\n\r\n", 4) && !memmem(c->rbuf, c->rlen, "\n\n", 2))
        return;
    char *body = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&body, &blen);
    if (!f) {
        conn_kill(c, 0);
        return;
    }
    int is_metrics = c->rlen >= 4 && memcmp(c->rbuf, "GET ", 4) == 0;
    logrep_storage_fd_stats fds;
    if (is_metrics)
        metrics_write(f, &S.m, S.node, S.bc->node_id, S.n_clients,
                      broker_storage_fd_stats(S.st, &fds) == LOGREP_OK ? &fds : NULL);
    fclose(f);
    char hdr[256];
    int hl = snprintf(hdr, sizeof hdr,
                      "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      is_metrics ? "200 OK" : "405 Method Not Allowed", is_metrics ? blen : 0);
    wq_mem(c, (const uint8_t *)hdr, (size_t)hl);
    if (is_metrics && blen)
        wq_mem(c, (const uint8_t *)body, blen);
    free(body);
    c->close_after_flush = 1;
    mark_dirty(c);
}

/* ------------------------------------------------------------ listeners */

static int listen_on(const char *host, int port)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (resolve(host, port, &ss, &sl) != 0) {
        fprintf(stderr, "logrep-broker: cannot resolve %s\n", host);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 512) != 0) {
        fprintf(stderr, "logrep-broker: listen on %s:%d: %s\n", host, port, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

#define ACCEPT_BACKOFF_MS 100

static void watch_listeners(int op)
{
    for (int i = 0; i < S.bc->n_listeners; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_LISTENER | (uint64_t)i};
        epoll_ctl(S.ep, op, S.lfd[i], &e);
    }
    if (S.mfd >= 0) {
        struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_METRICS};
        epoll_ctl(S.ep, op, S.mfd, &e);
    }
}

/* EMFILE/ENFILE: the pending connection stays in the backlog; stop
 * watching every listener for a back-off, then try again. */
static void accept_pause(void)
{
    S.m.accept_paused++;
    if (!S.accept_episode)
        logf_(LOGREP_LEVEL_WARN, "accept: %s; pausing accepts (%d ms back-off) until descriptors free",
              strerror(errno), ACCEPT_BACKOFF_MS);
    S.accept_episode = 1;
    if (!S.accept_resume_ms)
        watch_listeners(EPOLL_CTL_DEL);
    S.accept_resume_ms = now_ms() + ACCEPT_BACKOFF_MS;
}

static void accept_maybe_resume(int64_t t)
{
    if (S.accept_resume_ms && t >= S.accept_resume_ms) {
        S.accept_resume_ms = 0;
        watch_listeners(EPOLL_CTL_ADD);
    }
}

/* listener: index into S.bc->listeners for client listeners, -1 else. */
static void on_accept(int lfd, int kind, int listener)
{
    if (S.accept_resume_ms)
        return; /* an event of this round from before the pause */
    for (int i = 0; i < 64; i++) {
        struct sockaddr_storage sa;
        socklen_t salen = sizeof sa;
        int fd = accept4(lfd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                accept_pause();
            return;
        }
        if (S.accept_episode) {
            S.accept_episode = 0;
            logf_(LOGREP_LEVEL_INFO, "accept: accepting again");
        }
        if (kind == K_CLIENT && S.n_clients >= S.bc->max_connections) {
            S.m.connections_rejected++;
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = conn_new(fd, kind, S_OPEN);
        if (!c) {
            close(fd);
            continue;
        }
        /* The node serves controller APIs only on controller listeners. */
        if (listener >= 0)
            logrep_node_accepted(S.node, c->id, S.bc->listeners[listener].name);
        /* Group members show their client host as Kafka does: "/" and the IP. */
        char ip[INET6_ADDRSTRLEN + 1] = "/";
        const void *a = sa.ss_family == AF_INET6
                            ? (const void *)&((struct sockaddr_in6 *)&sa)->sin6_addr
                            : (const void *)&((struct sockaddr_in *)&sa)->sin_addr;
        if (kind == K_CLIENT && inet_ntop(sa.ss_family, a, ip + 1, sizeof ip - 1))
            logrep_node_peer(S.node, c->id, ip);
        if (kind == K_CLIENT)
            S.m.connections_accepted++;
    }
}

/* ------------------------------------------------------------ loop */

/* Returns 1 when a close was reported to the node: its deadline may have
 * moved (a peer to reconnect), so the node is ticked again at once. */
static int sweep(void)
{
    int closed = 0;
    /* Flush, then release what died; closes may queue more writes. */
    for (int round = 0; round < 4 && S.dirty; round++) {
        conn *list = S.dirty;
        S.dirty = NULL;
        conn *dead = NULL;
        while (list) {
            conn *c = list;
            list = c->next_dirty;
            /* c->dirty stays set while it is handled, so a kill inside
             * conn_flush cannot queue it twice. */
            if (c->state == S_OPEN)
                conn_flush(c);
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
            conn_release(c);
            if (notify) {
                logrep_node_closed(S.node, id, now_ms());
                closed = 1;
            }
        }
    }
    return closed;
}

static void expire_idle(void)
{
    for (uint32_t i = 1; i < S.n_slots; i++) {
        conn *c = S.slots[i];
        if (!c || c->state == S_DEAD)
            continue;
        int64_t limit = c->kind == K_METRICS ? 10000 : S.bc->idle_ms;
        if (c->kind != K_PEER && S.now - c->last_active > limit) {
            logf_(LOGREP_LEVEL_DEBUG, "closing idle connection %llu", (unsigned long long)c->id);
            S.m.connections_idle_closed++;
            conn_kill(c, 1);
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

int broker_run(broker_conf *bc)
{
    memset(&S, 0, sizeof S);
    S.bc = bc;
    S.mfd = -1;
    for (int i = 0; i < BROKER_MAX_LISTENERS; i++)
        S.lfd[i] = -1;
    metrics_init(&S.m);
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    S.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    S.ep = epoll_create1(EPOLL_CLOEXEC);
    if (S.sfd < 0 || S.ep < 0) {
        perror("logrep-broker: epoll/signalfd");
        return 1;
    }
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = TAG_SIGNAL};
    epoll_ctl(S.ep, EPOLL_CTL_ADD, S.sfd, &e);

    for (int i = 0; i < bc->n_listeners; i++) {
        S.lfd[i] = listen_on(bc->listeners[i].host, bc->listeners[i].port);
        if (S.lfd[i] < 0)
            return 1;
        e = (struct epoll_event){.events = EPOLLIN, .data.u64 = TAG_LISTENER | (uint64_t)i};
        epoll_ctl(S.ep, EPOLL_CTL_ADD, S.lfd[i], &e);
    }
    if (bc->metrics_host[0]) {
        S.mfd = listen_on(bc->metrics_host, bc->metrics_port);
        if (S.mfd < 0)
            return 1;
        e = (struct epoll_event){.events = EPOLLIN, .data.u64 = TAG_METRICS};
        epoll_ctl(S.ep, EPOLL_CTL_ADD, S.mfd, &e);
    }

    if (!bc->sendfile && !(S.stage = malloc(STAGE_MAX))) {
        fprintf(stderr, "logrep-broker: out of memory\n");
        return 1;
    }
    if (mkdir_p(bc->log_dir) != 0) {
        fprintf(stderr, "logrep-broker: log.dirs %s: %s\n", bc->log_dir, strerror(errno));
        return 1;
    }
    logrep_conf_set_logger(bc->conf, log_cb, NULL, bc->log_level);
    if (broker_storage_new(bc->conf, (uint64_t)bc->cache_window, &S.st) != LOGREP_OK) {
        fprintf(stderr, "logrep-broker: out of memory\n");
        return 1;
    }
    logrep_transport tr = {LOGREP_TRANSPORT_VERSION, NULL, t_send, t_connect, t_close};
    char err[256];
    logrep_err le = logrep_node_new(bc->conf, S.st, &tr, now_ms(), err, sizeof err, &S.node);
    if (le != LOGREP_OK) {
        fprintf(stderr, "logrep-broker: cannot start node %d: %s: %s\n", bc->node_id,
                logrep_err_name(le), err);
        logrep_storage_free(S.st);
        return 1;
    }
    char roles[64] = "";
    logrep_conf_get(bc->conf, "process.roles", roles, sizeof roles, NULL);
    logf_(LOGREP_LEVEL_INFO, "node %d (%s) started, pid %d", bc->node_id, roles, (int)getpid());

    int64_t next_tick = now_ms();
    int64_t next_idle = now_ms() + 1000;
    int stopping = 0;
    int64_t stop_deadline = 0;
    struct epoll_event evs[256];
    for (;;) {
        int64_t t = now_ms();
        int timeout = S.dirty ? 0 : (int)(next_tick > t ? next_tick - t : 0);
        if (timeout > 1000)
            timeout = 1000;
        if (S.accept_resume_ms && timeout > (int)(S.accept_resume_ms > t ? S.accept_resume_ms - t : 0))
            timeout = (int)(S.accept_resume_ms > t ? S.accept_resume_ms - t : 0);
        int n = epoll_wait(S.ep, evs, 256, timeout);
        int closed = 0;
        if (n < 0 && errno != EINTR) {
            perror("logrep-broker: epoll_wait");
            break;
        }
        now_ms();
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(S.sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    if (!stopping) {
                        logf_(LOGREP_LEVEL_INFO, "signal %u: controlled shutdown", si.ssi_signo);
                        stopping = 1;
                        stop_deadline = now_ms() + bc->shutdown_timeout_ms;
                        logrep_node_shutdown(S.node, now_ms());
                    } else {
                        stop_deadline = 0; /* second signal: stop now */
                    }
                }
            } else if (tag == TAG_METRICS) {
                on_accept(S.mfd, K_METRICS, -1);
            } else if ((tag & TAG_LISTENER) && (tag & 0xfff) < BROKER_MAX_LISTENERS) {
                on_accept(S.lfd[(int)(tag & 0xfff)], K_CLIENT, (int)(tag & 0xfff));
            } else {
                conn *c = conn_get(tag);
                if (!c || c->state == S_DEAD)
                    continue;
                if (c->state == S_CONNECTING && (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                    int so = 0;
                    socklen_t sl = sizeof so;
                    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &so, &sl);
                    if (so != 0) {
                        conn_kill(c, 1);
                        continue;
                    }
                    c->state = S_OPEN;
                    mark_dirty(c);
                    ep_set(c);
                }
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    on_readable(c);
                if (c->state == S_OPEN && (evs[i].events & EPOLLOUT))
                    mark_dirty(c);
                /* What this input produced leaves now, not after the rest
                 * of the batch: a follower starts on the records while the
                 * leader reads on. */
                closed |= sweep();
            }
        }
        t = now_ms();
        /* Ticking right after input lets the node answer what the input
         * unblocked (parked follower and consumer fetches, acks=all
         * produces) without waiting for the next deadline. */
        if (t >= next_tick || n > 0)
            next_tick = logrep_node_tick(S.node, t);
        accept_maybe_resume(t);
        if (t >= next_idle) {
            expire_idle();
            next_idle = t + 1000;
        }
        if (sweep() || closed)
            next_tick = t;
        if (stopping && (logrep_node_shutdown_done(S.node) || t >= stop_deadline)) {
            if (!logrep_node_shutdown_done(S.node))
                logf_(LOGREP_LEVEL_WARN, "controlled shutdown timed out");
            break;
        }
    }
    logrep_node_free(S.node, 0);
    logrep_storage_free(S.st);
    for (uint32_t i = 1; i < S.n_slots; i++)
        if (S.slots[i])
            conn_release(S.slots[i]);
    free(S.slots);
    for (int i = 0; i < bc->n_listeners; i++)
        close(S.lfd[i]);
    if (S.mfd >= 0)
        close(S.mfd);
    close(S.ep);
    close(S.sfd);
    metrics_free(&S.m);
    free(S.stage);
    logf_(LOGREP_LEVEL_INFO, "stopped");
    return 0;
}
