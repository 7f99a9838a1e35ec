/* The event queue of in-process calls (include/logrep/inproc.h): every
 * call that returns LOGREP_OK owns one lr_evt from its start. It is
 * pending while its concern works on it (a commit waiting for its
 * records, an acks=all produce for the HW, a long-poll fetch for data, a
 * topic creation for the controller), then queued in completion order
 * until logrep_node_poll hands it over; the last one handed over is kept
 * until the next poll, since the host reads its errors and records. The
 * entry is allocated when the call starts, so a call whose work was done
 * (a batch appended) always gets its event. */
#include <string.h>

#include "node/node_int.h"

/* The key of the by_key table: type, then the concern's key. */
#define EVT_KEY_LEN (sizeof(int) + sizeof(uint64_t))

static void evt_key(uint8_t k[EVT_KEY_LEN], int type, uint64_t key)
{
    memcpy(k, &type, sizeof type);
    memcpy(k + sizeof type, &key, sizeof key);
}

static int evt_eq(const void *ctx, uintptr_t val, const void *key, size_t len)
{
    (void)ctx;
    const lr_evt *e = (const lr_evt *)val;
    uint8_t k[EVT_KEY_LEN];
    evt_key(k, e->ev.type, e->key);
    return len == EVT_KEY_LEN && memcmp(k, key, len) == 0;
}

void lr_events_init(logrep_node *n)
{
    lr_hashmap_init(&n->events.by_key, &n->alloc, evt_eq, n);
}

static void evt_free(logrep_node *n, lr_evt *e)
{
    if (!e)
        return;
    lr_free(&n->alloc, e->own, e->own_len);
    lr_free(&n->alloc, e, sizeof *e);
}

lr_evt *lr_evt_start(logrep_node *n, int type, uint64_t token, uint64_t key)
{
    lr_evt *e = lr_calloc(&n->alloc, 1, sizeof *e);
    if (!e)
        return NULL;
    e->ev = (logrep_node_event){.type = type,
                                .token = token,
                                .base_offset = -1,
                                .log_append_time = -1,
                                .log_start_offset = -1,
                                .high_watermark = -1,
                                .last_stable_offset = -1,
                                .offset = -1,
                                .timestamp = -1,
                                .leader_epoch = -1};
    e->key = key;
    uint8_t k[EVT_KEY_LEN];
    evt_key(k, type, key);
    if (key && lr_hashmap_put(&n->events.by_key, k, sizeof k, (uintptr_t)e) != 0) {
        lr_free(&n->alloc, e, sizeof *e);
        return NULL;
    }
    e->next = n->events.pending;
    if (e->next)
        e->next->prev = e;
    n->events.pending = e;
    return e;
}

uint64_t lr_evt_new_key(logrep_node *n)
{
    return ++n->events.key_seq & (LR_INPROC_TOKEN - 1);
}

lr_evt *lr_evt_find(logrep_node *n, int type, uint64_t key)
{
    uint8_t k[EVT_KEY_LEN];
    uintptr_t v;
    evt_key(k, type, key);
    return key && lr_hashmap_get(&n->events.by_key, k, sizeof k, &v) ? (lr_evt *)v : NULL;
}

void *lr_evt_alloc(logrep_node *n, lr_evt *e, size_t len)
{
    /* Not zeroed: callers fill it (a fetch's records are copied over it,
     * and zeroing a megabyte first cost as much as the copy). */
    e->own = lr_malloc(&n->alloc, len ? len : 1);
    e->own_len = e->own ? (len ? len : 1) : 0;
    return e->own;
}

/* Takes a pending e off the pending list and the table. */
static void unlink_pending(logrep_node *n, lr_evt *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        n->events.pending = e->next;
    if (e->next)
        e->next->prev = e->prev;
    e->prev = e->next = NULL;
    if (e->key) {
        uint8_t k[EVT_KEY_LEN];
        evt_key(k, e->ev.type, e->key);
        lr_hashmap_del(&n->events.by_key, k, sizeof k, NULL);
    }
}

void lr_evt_done(logrep_node *n, lr_evt *e, int error)
{
    unlink_pending(n, e);
    e->ev.error = (logrep_err)error;
    if (n->events.tail)
        n->events.tail->next = e;
    else
        n->events.head = e;
    n->events.tail = e;
}

void lr_evt_cancel(logrep_node *n, lr_evt *e)
{
    unlink_pending(n, e);
    evt_free(n, e);
}

int lr_events_ready(const logrep_node *n)
{
    return n->events.head != NULL;
}

int lr_events_pending(const logrep_node *n)
{
    return n->events.pending != NULL;
}

static void free_list(logrep_node *n, lr_evt *e)
{
    while (e) {
        lr_evt *next = e->next;
        evt_free(n, e);
        e = next;
    }
}

void lr_events_free(logrep_node *n)
{
    lr_events *q = &n->events;
    free_list(n, q->pending);
    free_list(n, q->head);
    evt_free(n, q->polled);
    lr_hashmap_free(&q->by_key);
    memset(q, 0, sizeof *q);
}

LOGREP_API int logrep_node_poll(logrep_node *n, logrep_node_event *ev)
{
    if (!n || !ev || !n->events.head)
        return 0;
    lr_events *q = &n->events;
    lr_evt *e = q->head;
    q->head = e->next;
    if (!q->head)
        q->tail = NULL;
    e->next = NULL;
    evt_free(n, q->polled); /* its pointers were valid until this poll */
    q->polled = e;
    *ev = e->ev;
    return 1;
}
