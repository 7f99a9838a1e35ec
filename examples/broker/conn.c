/* Connection I/O: the connection table, epoll interest, write queues and
 * flushing, reading, connect completion. See server.h.
 *
 * The node sends whole response frames through transport.send, in
 * request order; memory segments are copied into the connection's write
 * queue, file segments are queued as (dup'd descriptor, position, length)
 * and read when the connection is flushed (or sent with sendfile() when
 * logrep.sendfile is set); up to 64 KiB of them are read at once instead.
 * The loop flushes dirty connections in its sweep (server.c). */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "server.h"

#define READ_CHUNK (256 * 1024)
#define WQ_HIGH (32u << 20) /* stop reading a connection with this much queued */
#define MEM_ITEM_MIN (64 * 1024)

/* ------------------------------------------------------------ table */

conn *conn_get(server *s, uint64_t id)
{
    uint32_t slot = (uint32_t)(id & (MAX_SLOTS - 1));
    if (slot >= s->n_slots || !s->slots[slot] || s->slots[slot]->id != id)
        return NULL;
    return s->slots[slot];
}

static void ep_set(server *s, conn *c)
{
    if (c->state == S_DEAD || c->fd < 0)
        return;
    uint32_t ev = 0;
    if (c->state == S_CONNECTING || c->wbytes)
        ev |= EPOLLOUT;
    if (c->state == S_OPEN && c->wbytes < WQ_HIGH && !c->close_after_flush)
        ev |= EPOLLIN;
    if (ev == c->ev)
        return;
    struct epoll_event e = {.events = ev, .data.u64 = c->id};
    epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &e);
    c->ev = ev;
}

conn *conn_new(server *s, int fd, int kind, int state)
{
    uint32_t slot = 0;
    for (slot = 1; slot < s->n_slots; slot++)
        if (!s->slots[slot])
            break;
    if (slot >= s->n_slots) {
        uint32_t n = s->n_slots ? s->n_slots * 2 : 64;
        if (n > MAX_SLOTS)
            return NULL;
        conn **ns = realloc(s->slots, n * sizeof *ns);
        if (!ns)
            return NULL;
        memset(ns + s->n_slots, 0, (n - s->n_slots) * sizeof *ns);
        s->slots = ns;
        slot = s->n_slots ? s->n_slots : 1;
        s->n_slots = n;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->id = ((uint64_t)++s->gen << SLOT_BITS) | slot;
    c->fd = fd;
    c->kind = kind;
    c->state = state;
    c->last_active = s->now;
    if (fd >= 0) {
        c->ev = state == S_CONNECTING ? EPOLLOUT : EPOLLIN;
        struct epoll_event e = {.events = c->ev, .data.u64 = c->id};
        if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
            free(c);
            return NULL;
        }
    }
    s->slots[slot] = c;
    if (kind == K_CLIENT)
        s->n_clients++;
    s->m.connections_open++;
    return c;
}

int conn_attach(server *s, conn *c, int fd, int in_progress)
{
    if (c->fd >= 0) {
        epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = fd;
    c->state = in_progress ? S_CONNECTING : S_OPEN;
    c->ev = in_progress || c->wbytes ? EPOLLOUT : EPOLLIN;
    struct epoll_event e = {.events = c->ev, .data.u64 = c->id};
    if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
        close(fd);
        c->fd = -1;
        return -1;
    }
    if (!in_progress)
        conn_mark_dirty(s, c); /* sends queued meanwhile leave now */
    return 0;
}

void conn_mark_dirty(server *s, conn *c)
{
    if (!c->dirty) {
        c->dirty = 1;
        c->next_dirty = s->dirty;
        s->dirty = c;
    }
}

void conn_kill(server *s, conn *c, int notify)
{
    if (c->state == S_DEAD)
        return;
    c->state = S_DEAD;
    c->notify = notify;
    if (c->fd >= 0)
        epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
    conn_mark_dirty(s, c);
}

void conn_release(server *s, conn *c)
{
    uint32_t slot = (uint32_t)(c->id & (MAX_SLOTS - 1));
    s->slots[slot] = NULL;
    if (c->fd >= 0)
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
        s->n_clients--;
    s->m.connections_open--;
    free(c->rbuf);
    free(c->addrs);
    lat_fifo_free(&c->fifo);
    free(c);
}

void conn_connect_done(server *s, conn *c)
{
    int err = net_connect_error(c->fd);
    if (err == 0) {
        c->state = S_OPEN;
        conn_mark_dirty(s, c);
        ep_set(s, c);
        return;
    }
    int in_progress = 0;
    int fd = c->addrs ? net_connect_next(c->addrs, &in_progress) : -1;
    if (fd >= 0 && conn_attach(s, c, fd, in_progress) == 0)
        return;
    srv_log(s, LOGREP_LEVEL_DEBUG, "connection %llu: connect: %s", (unsigned long long)c->id,
            strerror(err));
    conn_kill(s, c, 1);
}

/* ------------------------------------------------------------ write queue */

/* Appends an item of w->len bytes to the queue. */
static void wq_push(conn *c, witem *w)
{
    if (c->wtail)
        c->wtail->next = w;
    else
        c->whead = w;
    c->wtail = w;
    c->wbytes += w->len;
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
    wq_push(c, w);
    return w->data;
}

int wq_mem(server *s, conn *c, const uint8_t *p, size_t len)
{
    (void)s;
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

int wq_file(server *s, conn *c, int fd, uint64_t pos, uint64_t len)
{
    if (!s->bc->sendfile && len <= FILE_READ_NOW_MAX) {
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
    wq_push(c, w);
    return 0;
}

/* Gathers the queue's head into iov for one writev: memory items as they
 * are, file items read into the staging buffer (at most STAGE_MAX bytes
 * in all). Returns the entry count, 0 when the head is a file item that
 * must go with sendfile, -1 when a file is shorter than promised. */
static int gather(server *s, conn *c, struct iovec *iov, int max)
{
    int k = 0;
    size_t staged = 0;
    for (witem *x = c->whead; x && k < max; x = x->next) {
        if (x->fd < 0) {
            iov[k].iov_base = x->data + x->off;
            iov[k++].iov_len = x->len - x->off;
            continue;
        }
        if (s->bc->sendfile || staged == STAGE_MAX)
            break;
        size_t want = x->len < STAGE_MAX - staged ? (size_t)x->len : STAGE_MAX - staged;
        ssize_t n = pread(x->fd, s->stage + staged, want, (off_t)x->pos);
        if (n <= 0) {
            if (k)
                break; /* send what precedes it first */
            return -1;
        }
        iov[k].iov_base = s->stage + staged;
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
 * are read again next time. A client connection's written bytes end the
 * timing of the responses they complete (metrics_sent). */
void conn_flush(server *s, conn *c)
{
    if (c->state != S_OPEN)
        return;
    while (c->whead) {
        witem *w = c->whead;
        ssize_t n;
        struct iovec iov[64];
        int k = gather(s, c, iov, 64);
        if (k < 0) {
            /* The file is shorter than promised (truncated): the
             * stream cannot be completed consistently. */
            conn_kill(s, c, 1);
            return;
        }
        if (k > 0) {
            n = writev(c->fd, iov, k);
        } else {
            off_t pos = (off_t)w->pos;
            size_t want = w->len > (1u << 30) ? (1u << 30) : (size_t)w->len;
            n = sendfile(c->fd, w->fd, &pos, want);
            if (n == 0) {
                conn_kill(s, c, 1);
                return;
            }
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            conn_kill(s, c, 1);
            return;
        }
        if (c->kind == K_CLIENT)
            metrics_sent(&s->m, &c->fifo, k > 0 ? iov : NULL, k, (size_t)n, broker_mono_us());
        s->m.bytes_sent += n;
        c->wbytes -= (uint64_t)n;
        c->last_active = s->now;
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
        conn_kill(s, c, 0);
        return;
    }
    ep_set(s, c);
}

/* ------------------------------------------------------------ reading */

int conn_rbuf_grow(server *s, conn *c, size_t cap)
{
    uint8_t *nb = realloc(c->rbuf, cap);
    if (!nb) {
        conn_kill(s, c, 1);
        return -1;
    }
    c->rbuf = nb;
    c->rcap = cap;
    return 0;
}

void conn_readable(server *s, conn *c)
{
    for (int rounds = 0; rounds < 4 && c->state == S_OPEN && !c->close_after_flush; rounds++) {
        if (c->rcap - c->rlen < 4096) {
            size_t ncap = c->rcap ? c->rcap * 2 : c->kind == K_METRICS ? 8192 : READ_CHUNK;
            if (c->kind == K_METRICS && ncap > 65536) {
                conn_kill(s, c, 0);
                return;
            }
            if (conn_rbuf_grow(s, c, ncap) != 0)
                return;
        }
        ssize_t n = read(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen);
        if (n == 0) {
            conn_kill(s, c, 1);
            return;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                conn_kill(s, c, 1);
            return;
        }
        s->m.bytes_received += n;
        c->rlen += (size_t)n;
        c->last_active = s->now;
        if (c->kind == K_METRICS)
            srv_http(s, c);
        else
            srv_frames(s, c);
        if ((size_t)n < 4096)
            break;
    }
}
