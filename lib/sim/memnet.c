/* The in-memory network (see memnet.h). */
#include <string.h>

#include "base/alloc.h"
#include "sim/memnet.h"

enum { END_CLOSED = 0, END_OPEN = 1, END_CONNECTING = 2 };

typedef struct mn_end {
    uint8_t state;
    uint8_t accepted;
    uint8_t quiet;   /* closed by its owner while connecting: no "closed" */
    int32_t owner;
    uint64_t peer;   /* 0 while connecting to a refused peer */
    int64_t last_at; /* lr_memnet_fifo_at */
} mn_end;

typedef struct mn_ep {
    lr_memnet *net;
    int32_t id;
    uint32_t inc;
    logrep_node *node;
    logrep_transport tr;
} mn_ep;

struct lr_memnet {
    lr_memnet_conf conf;
    const lr_alloc *alloc;
    size_t extra;          /* conf.msg_extra rounded up for the data's alignment */
    mn_ep *eps;            /* 0..max_node */
    mn_end *ends;          /* ids 1..nends-1 */
    uint64_t nends, capends;
    lr_memnet_msg *head, *tail;
    size_t queued;
    lr_memnet_msg *inbox, *inbox_tail;
    size_t live;           /* frames alive (counted with max_frames only) */
    lr_memnet_stats stats;
};

static void lock(lr_memnet *n)
{
    if (n->conf.lock)
        n->conf.lock(n->conf.ctx);
}

static void unlock(lr_memnet *n)
{
    if (n->conf.unlock)
        n->conf.unlock(n->conf.ctx);
}

static int is_node(const lr_memnet *n, int32_t id)
{
    return id >= 0 && id <= n->conf.max_node;
}

static mn_end *end_at(lr_memnet *n, uint64_t id)
{
    return id > 0 && id < n->nends ? &n->ends[id] : NULL;
}

static uint32_t inc_of(const lr_memnet *n, int32_t id)
{
    return is_node(n, id) ? n->eps[id].inc : 0;
}

/* ------------------------------------------------------------ messages */

static size_t msg_size(const lr_memnet *n, const lr_memnet_msg *m)
{
    return sizeof *m + n->extra + m->len;
}

static lr_memnet_msg *msg_new(lr_memnet *n, int kind, uint64_t end, int32_t from, int32_t to,
                              size_t len)
{
    if (len > SIZE_MAX - sizeof(lr_memnet_msg) - n->extra)
        return NULL;
    lr_memnet_msg *m = lr_malloc(n->alloc, sizeof *m + n->extra + len);
    if (!m)
        return NULL;
    uint8_t *body = (uint8_t *)(m + 1);
    if (n->extra)
        memset(body, 0, n->extra);
    *m = (lr_memnet_msg){NULL, kind, end, from, to, 0, NULL, n->extra ? body : NULL, len,
                         body + n->extra};
    return m;
}

static void msg_release(lr_memnet *n, lr_memnet_msg *m)
{
    lr_free(n->alloc, m, msg_size(n, m));
}

void lr_memnet_msg_free(lr_memnet *net, lr_memnet_msg *m)
{
    if (!m)
        return;
    if (m->kind == LR_MEMNET_FRAME && net->conf.max_frames) {
        lock(net);
        net->live--;
        unlock(net);
    }
    msg_release(net, m);
}

static void append(lr_memnet_msg **head, lr_memnet_msg **tail, lr_memnet_msg *m)
{
    m->next = NULL;
    if (*tail)
        (*tail)->next = m;
    else
        *head = m;
    *tail = m;
}

void lr_memnet_queue(lr_memnet *net, lr_memnet_msg *m)
{
    lock(net);
    append(&net->head, &net->tail, m);
    net->queued++;
    unlock(net);
}

/* A message raised: to the host's hold hook, else the queue. */
static void dispatch(lr_memnet *n, lr_memnet_msg *m)
{
    if (n->conf.hold && n->conf.hold(n->conf.ctx, m))
        return;
    lr_memnet_queue(n, m);
}

/* A notification for end (owned by `to`); clients get them only through
 * the client hook. Called with the lock not held. */
static void notify(lr_memnet *n, int kind, uint64_t end, int32_t from, int32_t to, uint32_t inc,
                   const char *listener)
{
    if (!is_node(n, to) && !n->conf.client)
        return;
    lr_memnet_msg *m = msg_new(n, kind, end, from, to, 0);
    if (!m) {
        lock(n);
        n->stats.lost++;
        unlock(n);
        return;
    }
    m->inc = inc;
    m->listener = listener;
    dispatch(n, m);
}

/* ------------------------------------------------------------ connections */

/* Two new ends, `from` connecting and `to` accepting; returns the
 * connecting one (0: out of memory). Called with the lock held. */
static uint64_t new_pair(lr_memnet *n, int32_t from, int32_t to)
{
    if (n->nends + 2 > n->capends) {
        uint64_t cap = n->capends ? n->capends * 2 : 64;
        mn_end *e = lr_realloc(n->alloc, n->ends, (size_t)n->capends * sizeof *e,
                               (size_t)cap * sizeof *e);
        if (!e)
            return 0;
        n->ends = e;
        n->capends = cap;
    }
    uint64_t a = n->nends, b = a + 1;
    n->nends += 2;
    n->ends[a] = (mn_end){END_OPEN, 0, 0, from, b, 0};
    n->ends[b] = (mn_end){END_OPEN, 1, 0, to, a, 0};
    return a;
}

logrep_err lr_memnet_open(lr_memnet *net, int32_t from, int32_t to, uint64_t *end)
{
    if (!is_node(net, to))
        return LOGREP_ERR__IO;
    lock(net);
    *end = new_pair(net, from, to);
    unlock(net);
    return *end ? LOGREP_OK : LOGREP_ERR__NOMEM;
}

/* Closes `end` when owned by `owner` (any owner when owner_only is 0). */
static void close_end(lr_memnet *n, uint64_t end, int owner_only, int32_t owner, int notify_self)
{
    lock(n);
    mn_end *e = end_at(n, end);
    if (!e || e->state == END_CLOSED || (owner_only && e->owner != owner)) {
        unlock(n);
        return;
    }
    if (e->state == END_CONNECTING) {
        /* Its "closed" is on the way: it tells the owner only when the
         * owner did not close it first. */
        e->state = END_CLOSED;
        e->quiet = !notify_self;
        unlock(n);
        return;
    }
    e->state = END_CLOSED;
    int32_t me = e->owner;
    uint64_t p = e->peer;
    mn_end *pe = end_at(n, p);
    int peer_open = pe && pe->state == END_OPEN;
    int32_t them = pe ? pe->owner : -1;
    if (peer_open)
        pe->state = END_CLOSED;
    uint32_t my_inc = inc_of(n, me), their_inc = inc_of(n, them);
    unlock(n);
    if (notify_self)
        notify(n, LR_MEMNET_CLOSED, end, them, me, my_inc, NULL);
    if (peer_open)
        notify(n, LR_MEMNET_CLOSED, p, me, them, their_inc, NULL);
}

void lr_memnet_close(lr_memnet *net, uint64_t end, int notify_self)
{
    close_end(net, end, 0, 0, notify_self);
}

int lr_memnet_end(lr_memnet *net, uint64_t end, lr_memnet_end_info *out)
{
    lock(net);
    mn_end *e = end_at(net, end);
    int open = e && e->state == END_OPEN;
    if (open && out) {
        out->owner = e->owner;
        out->peer = e->peer;
        out->peer_owner = net->ends[e->peer].owner;
        out->accepted = e->accepted;
    }
    unlock(net);
    return open;
}

uint64_t lr_memnet_end_limit(lr_memnet *net)
{
    lock(net);
    uint64_t n = net->nends;
    unlock(net);
    return n;
}

int64_t lr_memnet_fifo_at(lr_memnet *net, uint64_t end, int64_t at)
{
    lock(net);
    mn_end *e = end_at(net, end);
    if (e) {
        if (at < e->last_at)
            at = e->last_at;
        e->last_at = at;
    }
    unlock(net);
    return at;
}

/* ------------------------------------------------------------ sending */

static logrep_err copy_segs(lr_memnet *n, int32_t from, uint8_t *dst, const logrep_seg *segs,
                            size_t nsegs)
{
    for (size_t i = 0; i < nsegs; i++) {
        if (!segs[i].len)
            continue;
        if (segs[i].data)
            memcpy(dst, segs[i].data, (size_t)segs[i].len);
        else if (!n->conf.read_file || n->conf.read_file(n->conf.ctx, from, &segs[i], dst) != 0)
            return LOGREP_ERR__IO;
        dst += segs[i].len;
    }
    return LOGREP_OK;
}

logrep_err lr_memnet_send(lr_memnet *net, int32_t from, uint64_t end, const logrep_seg *segs,
                          size_t nsegs)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nsegs; i++) {
        if (segs[i].len > SIZE_MAX - total)
            return LOGREP_ERR__IO;
        total += segs[i].len;
    }
    lock(net);
    mn_end *e = end_at(net, end);
    if (!e || e->state == END_CLOSED || e->owner != from) {
        unlock(net);
        return LOGREP_ERR__IO;
    }
    if (e->state == END_CONNECTING) {
        net->stats.dropped++; /* queued for a connection that fails */
        unlock(net);
        return LOGREP_OK;
    }
    if (net->conf.max_frames && net->live >= net->conf.max_frames) {
        net->stats.refused++;
        unlock(net);
        return LOGREP_ERR__IO;
    }
    uint64_t p = e->peer;
    int32_t to = net->ends[p].owner;
    uint32_t inc = inc_of(net, to);
    net->live += net->conf.max_frames != 0;
    net->stats.frames++;
    net->stats.bytes += total;
    unlock(net);
    lr_memnet_msg *m = msg_new(net, LR_MEMNET_FRAME, p, from, to, (size_t)total);
    if (!m || copy_segs(net, from, m->data, segs, nsegs) != LOGREP_OK) {
        if (m)
            msg_release(net, m);
        lock(net);
        net->live -= net->conf.max_frames != 0;
        net->stats.frames--;
        net->stats.bytes -= total;
        net->stats.refused++;
        unlock(net);
        return LOGREP_ERR__IO;
    }
    m->inc = inc;
    dispatch(net, m);
    return LOGREP_OK;
}

/* ------------------------------------------------------------ transport */

static logrep_err t_send(void *ctx, uint64_t conn, const logrep_seg *segs, size_t nsegs)
{
    mn_ep *ep = ctx;
    return lr_memnet_send(ep->net, ep->id, conn, segs, nsegs);
}

/* A refused connect under fail_connect_late: an end that fails later. */
static logrep_err connect_late(lr_memnet *n, int32_t from, uint64_t *out)
{
    lock(n);
    uint64_t a = new_pair(n, from, -1);
    if (a) {
        n->ends[a].state = END_CONNECTING;
        n->ends[a].peer = 0;
        n->ends[a + 1].state = END_CLOSED;
    }
    unlock(n);
    if (!a)
        return LOGREP_ERR__IO;
    *out = a;
    notify(n, LR_MEMNET_CLOSED, a, -1, from, inc_of(n, from), NULL);
    return LOGREP_OK;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *host, int32_t port,
                            uint64_t *out)
{
    mn_ep *ep = ctx;
    lr_memnet *n = ep->net;
    logrep_err err = n->conf.may_connect ? n->conf.may_connect(n->conf.ctx, ep->id, node_id, port)
                                         : LOGREP_OK;
    uint64_t a = 0;
    if (!err) {
        lock(n);
        if (!is_node(n, node_id) || !n->eps[node_id].node)
            err = LOGREP_ERR__IO; /* nobody listens there */
        unlock(n);
    }
    if (!err)
        err = lr_memnet_open(n, ep->id, node_id, &a);
    if (err)
        return n->conf.fail_connect_late ? connect_late(n, ep->id, out) : LOGREP_ERR__IO;
    *out = a;
    const char *l = n->conf.listener ? n->conf.listener(n->conf.ctx, node_id, host, port) : NULL;
    if (l)
        notify(n, LR_MEMNET_ACCEPTED, a + 1, ep->id, node_id, inc_of(n, node_id), l);
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t conn)
{
    mn_ep *ep = ctx;
    close_end(ep->net, conn, 1, ep->id, 0);
}

const logrep_transport *lr_memnet_transport(lr_memnet *net, int32_t id)
{
    return is_node(net, id) ? &net->eps[id].tr : NULL;
}

void lr_memnet_set_node(lr_memnet *net, int32_t id, logrep_node *node)
{
    if (!is_node(net, id))
        return;
    lock(net);
    net->eps[id].node = node;
    net->eps[id].inc++;
    uint64_t limit = net->nends;
    unlock(net);
    for (uint64_t e = 1; !node && e < limit; e++)
        close_end(net, e, 1, id, 0);
}

/* ------------------------------------------------------------ delivery */

/* Delivers m; called with the lock held, returns with it released. */
static void deliver_locked(lr_memnet *net, lr_memnet_msg *m, int64_t now_ms)
{
    mn_end *e = end_at(net, m->end);
    int open = e && e->state == END_OPEN, tell = 1, accepted = e && e->accepted;
    if (m->kind == LR_MEMNET_CLOSED && e) {
        tell = e->state == END_CONNECTING || !e->quiet;
        e->state = END_CLOSED;
    }
    logrep_node *node = NULL;
    if (is_node(net, m->to)) {
        node = net->eps[m->to].node;
        if (m->kind != LR_MEMNET_FRAME && m->inc != net->eps[m->to].inc)
            node = NULL;
        if (m->kind == LR_MEMNET_FRAME)
            net->live -= net->conf.max_frames != 0; /* freed below */
    }
    if (m->kind == LR_MEMNET_FRAME && !open)
        net->stats.dropped++;
    int to_client = !is_node(net, m->to) && tell && (open || m->kind == LR_MEMNET_CLOSED);
    if (to_client && !net->conf.client && m->kind == LR_MEMNET_FRAME) {
        append(&net->inbox, &net->inbox_tail, m);
        unlock(net);
        return;
    }
    unlock(net);
    if (to_client && net->conf.client) {
        net->conf.client(net->conf.ctx, m);
        return;
    }
    if (!is_node(net, m->to)) {
        lr_memnet_msg_free(net, m);
        return;
    }
    if (node && m->kind == LR_MEMNET_FRAME && open) {
        if (accepted)
            logrep_node_request(node, m->end, m->data, m->len, now_ms);
        else
            logrep_node_response(node, m->end, m->data, m->len, now_ms);
    } else if (node && m->kind == LR_MEMNET_CLOSED && tell) {
        logrep_node_closed(node, m->end, now_ms);
    } else if (node && m->kind == LR_MEMNET_ACCEPTED && open &&
               logrep_node_accepted(node, m->end, m->listener) != LOGREP_OK) {
        /* As a host would: a connection it cannot serve is dropped. */
        lr_memnet_close(net, m->end, 0);
    }
    msg_release(net, m);
}

void lr_memnet_deliver(lr_memnet *net, lr_memnet_msg *m, int64_t now_ms)
{
    lock(net);
    deliver_locked(net, m, now_ms);
}

/* The queue's head, taken out; called with the lock held. */
static lr_memnet_msg *pop_locked(lr_memnet *net)
{
    lr_memnet_msg *m = net->head;
    if (m) {
        net->head = m->next;
        if (!net->head)
            net->tail = NULL;
        net->queued--;
        m->next = NULL;
    }
    return m;
}

lr_memnet_msg *lr_memnet_take(lr_memnet *net)
{
    lock(net);
    lr_memnet_msg *m = pop_locked(net);
    unlock(net);
    return m;
}

size_t lr_memnet_pump(lr_memnet *net, int64_t now_ms, size_t max)
{
    size_t n = 0;
    for (; !max || n < max; n++) {
        lock(net);
        lr_memnet_msg *m = pop_locked(net);
        if (!m) {
            unlock(net);
            break;
        }
        deliver_locked(net, m, now_ms);
    }
    return n;
}

size_t lr_memnet_pending(lr_memnet *net)
{
    lock(net);
    size_t n = net->queued;
    unlock(net);
    return n;
}

lr_memnet_msg *lr_memnet_inbox_take(lr_memnet *net, uint64_t end)
{
    lock(net);
    lr_memnet_msg *prev = NULL, *m = net->inbox;
    while (m && end && m->end != end) {
        prev = m;
        m = m->next;
    }
    if (m) {
        if (prev)
            prev->next = m->next;
        else
            net->inbox = m->next;
        if (net->inbox_tail == m)
            net->inbox_tail = prev;
        m->next = NULL;
    }
    unlock(net);
    return m;
}

int lr_memnet_inbox_has(lr_memnet *net, uint64_t end)
{
    lock(net);
    const lr_memnet_msg *m = net->inbox;
    while (m && end && m->end != end)
        m = m->next;
    unlock(net);
    return m != NULL;
}

void lr_memnet_stats_get(lr_memnet *net, lr_memnet_stats *out)
{
    lock(net);
    *out = net->stats;
    unlock(net);
}

/* ------------------------------------------------------------ lifetime */

logrep_err lr_memnet_new(const lr_memnet_conf *conf, lr_memnet **out)
{
    if (!conf || !out || conf->max_node < 0 || conf->max_node > 1 << 20 ||
        conf->msg_extra > 1 << 20 || !conf->lock != !conf->unlock)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = conf->alloc ? conf->alloc : &lr_alloc_default;
    lr_memnet *n = lr_calloc(a, 1, sizeof *n);
    if (!n)
        return LOGREP_ERR__NOMEM;
    n->conf = *conf;
    n->alloc = a;
    n->extra = (conf->msg_extra + 15) & ~(size_t)15;
    n->nends = 1; /* end 0 is none */
    n->eps = lr_calloc(a, (size_t)conf->max_node + 1, sizeof *n->eps);
    if (!n->eps) {
        lr_free(a, n, sizeof *n);
        return LOGREP_ERR__NOMEM;
    }
    for (int32_t id = 0; id <= conf->max_node; id++) {
        n->eps[id].net = n;
        n->eps[id].id = id;
        n->eps[id].tr = (logrep_transport){LOGREP_TRANSPORT_VERSION, &n->eps[id], t_send, t_connect,
                                           t_close};
    }
    *out = n;
    return LOGREP_OK;
}

static void free_list(lr_memnet *n, lr_memnet_msg *m)
{
    while (m) {
        lr_memnet_msg *next = m->next;
        msg_release(n, m);
        m = next;
    }
}

void lr_memnet_free(lr_memnet *net)
{
    if (!net)
        return;
    free_list(net, net->head);
    free_list(net, net->inbox);
    const lr_alloc *a = net->alloc;
    lr_free(a, net->ends, (size_t)net->capends * sizeof *net->ends);
    lr_free(a, net->eps, ((size_t)net->conf.max_node + 1) * sizeof *net->eps);
    lr_free(a, net, sizeof *net);
}
