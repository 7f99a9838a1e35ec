/* Inbound connections: a response slot per request, in request order, so
 * that a request answered later (an acks=all produce, a long-poll fetch)
 * holds up only the answers behind it on its own connection. An answer
 * at the head goes out without a copy; one behind an unanswered slot is
 * copied until its turn. */
#include <string.h>

#include "node/node_int.h"

static void free_slot(logrep_node *n, lr_slot *s)
{
    lr_buf_free(&s->bytes);
    lr_free(&n->alloc, s->segs, s->nsegs * sizeof *s->segs);
    lr_free(&n->alloc, s, sizeof *s);
}

lr_conn *lr_conn_get(logrep_node *n, uint64_t id, int create)
{
    for (lr_conn *c = n->conns.list; c; c = c->next)
        if (c->id == id)
            return c;
    if (!create)
        return NULL;
    lr_conn *c = lr_calloc(&n->alloc, 1, sizeof *c);
    if (!c)
        return NULL;
    c->id = id;
    c->next = n->conns.list;
    n->conns.list = c;
    return c;
}

lr_slot *lr_conn_slot(logrep_node *n, lr_conn *c)
{
    lr_slot *s = lr_calloc(&n->alloc, 1, sizeof *s);
    if (!s)
        return NULL;
    lr_buf_init(&s->bytes, &n->alloc);
    if (c->tail)
        c->tail->next = s;
    else
        c->head = s;
    c->tail = s;
    return s;
}

static void send_segs(logrep_node *n, lr_conn *c, const logrep_seg *segs, size_t nsegs)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nsegs; i++)
        total += segs[i].len;
    n->stats.bytes_out += (int64_t)total;
    n->tr.send(n->tr.ctx, c->id, segs, nsegs);
}

/* Sends the ready slots at the head of c. */
static void flush(logrep_node *n, lr_conn *c)
{
    while (!c->closed && c->head && c->head->ready) {
        lr_slot *s = c->head;
        c->head = s->next;
        if (!c->head)
            c->tail = NULL;
        if (s->nsegs)
            send_segs(n, c, s->segs, s->nsegs);
        free_slot(n, s);
    }
}

int lr_conn_finish(logrep_node *n, lr_conn *c, lr_slot *s, logrep_msg *resp)
{
    const logrep_seg *segs;
    size_t nsegs;
    int err = logrep_msg_encode(resp, &segs, &nsegs, NULL);
    s->ready = 1;
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "encoding a response failed: %s (%s)",
               logrep_err_name(err), logrep_msg_errmsg(resp));
        /* The client cannot be answered consistently: drop the connection. */
        lr_conn_close(n, c);
        return err;
    }
    if (c->closed)
        return 0; /* nobody to answer */
    if (c->head == s) {
        /* In order already: send without copying. */
        c->head = s->next;
        if (!c->head)
            c->tail = NULL;
        send_segs(n, c, segs, nsegs);
        free_slot(n, s);
        flush(n, c);
        return 0;
    }
    /* Keep a copy until the slots before it are answered. */
    s->segs = lr_calloc(&n->alloc, nsegs ? nsegs : 1, sizeof *s->segs);
    s->nsegs = nsegs;
    err = s->segs ? 0 : LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < nsegs && !err; i++) {
        s->segs[i] = segs[i];
        if (segs[i].data) {
            size_t at = s->bytes.len;
            err = lr_buf_append(&s->bytes, segs[i].data, (size_t)segs[i].len);
            s->segs[i].data = (const uint8_t *)(uintptr_t)at; /* fixed up below */
        }
    }
    if (err) {
        /* Out of memory: no half-copied answer goes out; the connection
         * closes, as when encoding fails. */
        lr_free(&n->alloc, s->segs, (nsegs ? nsegs : 1) * sizeof *s->segs);
        s->segs = NULL;
        s->nsegs = 0;
        lr_conn_close(n, c);
        return err;
    }
    for (size_t i = 0; i < nsegs; i++)
        if (segs[i].data)
            s->segs[i].data = s->bytes.data + (uintptr_t)s->segs[i].data;
    return 0;
}

int lr_conn_finish_bytes(logrep_node *n, lr_conn *c, lr_slot *s, const uint8_t *frame,
                         size_t len)
{
    s->ready = 1;
    lr_buf_clear(&s->bytes);
    logrep_seg *seg = lr_calloc(&n->alloc, 1, sizeof *seg);
    int err = seg ? lr_buf_append(&s->bytes, frame, len) : LOGREP_ERR__NOMEM;
    if (err) {
        lr_free(&n->alloc, seg, sizeof *seg);
        lr_conn_close(n, c); /* no answer to give: the client retries */
        return err;
    }
    seg->data = s->bytes.data;
    seg->len = len;
    seg->file = -1;
    s->segs = seg;
    s->nsegs = 1;
    flush(n, c);
    return 0;
}

void lr_conn_close(logrep_node *n, lr_conn *c)
{
    if (!c->closed)
        n->tr.close(n->tr.ctx, c->id);
    c->closed = 1;
}

void lr_conn_skip(logrep_node *n, lr_conn *c, lr_slot *s)
{
    (void)n;
    (void)c;
    s->ready = 1;
}

void lr_conn_drop(logrep_node *n, lr_conn *c)
{
    lr_conn **pp = &n->conns.list;
    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    while (c->head) {
        lr_slot *s = c->head;
        c->head = s->next;
        free_slot(n, s);
    }
    lr_free(&n->alloc, c, sizeof *c);
}

void lr_conns_free(logrep_node *n)
{
    while (n->conns.list)
        lr_conn_drop(n, n->conns.list);
}
