/* memnet (lib/sim/memnet.h): ends and their owners, frames copied at send
 * time and kept in order, notifications raised by closes and delivered on
 * pump (never inside a transport method), refusals, held delivery, and a
 * node that finds its controller through connects failing in the
 * background. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "node/node_int.h"
#include "sim/memnet.h"

#define C1 (-1) /* a client endpoint */

typedef struct seen {
    lr_memnet *net;
    int frames, closed;
    uint64_t last_end;
    int attempts;     /* may_connect calls */
    int refuse;       /* may_connect answers IO */
    int held;         /* hold takes messages into list */
    lr_memnet_msg *list;
} seen;

static void on_client(void *ctx, lr_memnet_msg *m)
{
    seen *s = ctx;
    if (m->kind == LR_MEMNET_FRAME)
        s->frames++;
    else if (m->kind == LR_MEMNET_CLOSED)
        s->closed++;
    s->last_end = m->end;
    lr_memnet_msg_free(s->net, m);
}

static logrep_err may_connect(void *ctx, int32_t from, int32_t to, int32_t port)
{
    seen *s = ctx;
    (void)from;
    (void)to;
    (void)port;
    s->attempts++;
    return s->refuse ? LOGREP_ERR__IO : LOGREP_OK;
}

static int hold(void *ctx, lr_memnet_msg *m)
{
    seen *s = ctx;
    if (!s->held)
        return 0;
    m->next = s->list;
    s->list = m;
    return 1;
}

static logrep_err read_file(void *ctx, int32_t from, const logrep_seg *seg, void *buf)
{
    (void)ctx;
    (void)from;
    memset(buf, (int)seg->pos, (size_t)seg->len);
    return seg->file == 7 ? LOGREP_OK : LOGREP_ERR__IO;
}

static const char *controller_listener(void *ctx, int32_t to, const char *host, int32_t port)
{
    (void)ctx;
    (void)to;
    (void)host;
    (void)port;
    return "CONTROLLER";
}

static lr_memnet *new_net(seen *s, lr_memnet_conf c)
{
    memset(s, 0, sizeof *s);
    c.max_node = c.max_node ? c.max_node : 3;
    c.ctx = s;
    cr_assert_eq(lr_memnet_new(&c, &s->net), LOGREP_OK);
    return s->net;
}

static logrep_err send_bytes(lr_memnet *n, int32_t from, uint64_t end, const char *text)
{
    logrep_seg seg = {(const uint8_t *)text, strlen(text), -1, 0};
    return lr_memnet_send(n, from, end, &seg, 1);
}

/* A node on memory storage, node 1 the controller. */
static logrep_node *start(lr_memnet *n, int32_t id, const char *roles, logrep_storage **st,
                          int64_t now)
{
    logrep_conf *c = logrep_conf_new();
    char buf[64];
    snprintf(buf, sizeof buf, "%d", id);
    cr_assert_eq(logrep_conf_set(c, "node.id", buf, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(c, "process.roles", roles, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(c, "controller.quorum.voters", "1@ctl:9093", NULL, 0), LOGREP_OK);
    snprintf(buf, sizeof buf, "PLAINTEXT://n%d:9092", id);
    cr_assert_eq(logrep_conf_set(c, "advertised.listeners", buf, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(c, "log.dirs", "data", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_storage_memory_new(NULL, st), LOGREP_OK);
    logrep_node *node;
    cr_assert_eq(logrep_node_new(c, *st, lr_memnet_transport(n, id), now, NULL, 0, &node), LOGREP_OK);
    logrep_conf_free(c);
    lr_memnet_set_node(n, id, node);
    return node;
}

Test(memnet, frames_are_copied_at_send_and_kept_in_order)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){0});
    uint64_t c;
    cr_assert_eq(lr_memnet_open(n, C1, 1, &c), LOGREP_OK);
    lr_memnet_end_info in;
    cr_assert(lr_memnet_end(n, c, &in));
    cr_assert_eq(in.owner, C1);
    cr_assert_eq(in.peer_owner, 1);
    cr_assert_not(in.accepted);
    char text[] = "first";
    cr_assert_eq(send_bytes(n, C1, c, text), LOGREP_OK);
    memcpy(text, "XXXXX", 5); /* the frame was copied */
    cr_assert_eq(send_bytes(n, C1, c, "second"), LOGREP_OK);
    cr_assert_eq(lr_memnet_pending(n), 2);
    lr_memnet_msg *m = lr_memnet_take(n);
    cr_assert_eq(m->kind, LR_MEMNET_FRAME);
    cr_assert_eq(m->end, in.peer);
    cr_assert_eq(m->from, C1);
    cr_assert_eq(m->to, 1);
    cr_assert_eq(m->len, 5);
    cr_assert_arr_eq(m->data, "first", 5);
    lr_memnet_msg_free(n, m);
    m = lr_memnet_take(n);
    cr_assert_arr_eq(m->data, "second", 6);
    lr_memnet_msg_free(n, m);
    cr_assert_null(lr_memnet_take(n));

    /* The node end answers through its transport: frames reach the
     * client's inbox on pump, in order. */
    const logrep_transport *tr = lr_memnet_transport(n, 1);
    cr_assert_null(lr_memnet_transport(n, C1));
    logrep_seg two[2] = {{(const uint8_t *)"ab", 2, -1, 0}, {(const uint8_t *)"cd", 2, -1, 0}};
    cr_assert_eq(tr->send(tr->ctx, in.peer, two, 2), LOGREP_OK);
    cr_assert_eq(tr->send(tr->ctx, in.peer, two, 1), LOGREP_OK);
    cr_assert_not(lr_memnet_inbox_has(n, c));
    cr_assert_eq(lr_memnet_pump(n, 0, 0), 2);
    cr_assert(lr_memnet_inbox_has(n, c));
    m = lr_memnet_inbox_take(n, c);
    cr_assert_eq(m->len, 4);
    cr_assert_arr_eq(m->data, "abcd", 4);
    lr_memnet_msg_free(n, m);
    m = lr_memnet_inbox_take(n, 0);
    cr_assert_arr_eq(m->data, "ab", 2);
    lr_memnet_msg_free(n, m);
    cr_assert_null(lr_memnet_inbox_take(n, 0));
    lr_memnet_stats st;
    lr_memnet_stats_get(n, &st);
    cr_assert_eq(st.frames, 4);
    cr_assert_eq(st.bytes, 5 + 6 + 4 + 2);
    lr_memnet_free(n);
}

Test(memnet, sends_are_refused_when_they_cannot_be_carried)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){.max_frames = 2});
    uint64_t c;
    cr_assert_eq(lr_memnet_open(n, C1, 7, &c), LOGREP_ERR__IO, "not a node id");
    cr_assert_eq(lr_memnet_open(n, C1, 2, &c), LOGREP_OK);
    cr_assert_eq(send_bytes(n, 2, c, "x"), LOGREP_ERR__IO, "not the owner's end");
    cr_assert_eq(send_bytes(n, C1, 0, "x"), LOGREP_ERR__IO);
    cr_assert_eq(send_bytes(n, C1, 999, "x"), LOGREP_ERR__IO);
    logrep_seg file = {NULL, 8, 7, 1};
    cr_assert_eq(lr_memnet_send(n, C1, c, &file, 1), LOGREP_ERR__IO, "no read_file hook");
    cr_assert_eq(send_bytes(n, C1, c, "a"), LOGREP_OK);
    cr_assert_eq(send_bytes(n, C1, c, "b"), LOGREP_OK);
    cr_assert_eq(send_bytes(n, C1, c, "c"), LOGREP_ERR__IO, "two frames alive at most");
    lr_memnet_msg_free(n, lr_memnet_take(n));
    cr_assert_eq(send_bytes(n, C1, c, "c"), LOGREP_OK, "room again once one is freed");
    lr_memnet_stats st;
    lr_memnet_stats_get(n, &st);
    cr_assert_eq(st.refused, 2);
    cr_assert_eq(st.frames, 3);
    lr_memnet_close(n, c, 0);
    cr_assert_eq(send_bytes(n, C1, c, "d"), LOGREP_ERR__IO, "closed");
    lr_memnet_free(n); /* frees what is still queued */

    /* File segments through the host's reader. */
    n = new_net(&s, (lr_memnet_conf){.read_file = read_file});
    cr_assert_eq(lr_memnet_open(n, C1, 2, &c), LOGREP_OK);
    logrep_seg segs[2] = {{(const uint8_t *)"hd", 2, -1, 0}, {NULL, 3, 7, 'z'}};
    cr_assert_eq(lr_memnet_send(n, C1, c, segs, 2), LOGREP_OK);
    lr_memnet_msg *m = lr_memnet_take(n);
    cr_assert_eq(m->len, 5);
    cr_assert_arr_eq(m->data, "hdzzz", 5);
    lr_memnet_msg_free(n, m);
    segs[1].file = 8; /* the reader fails */
    cr_assert_eq(lr_memnet_send(n, C1, c, segs, 2), LOGREP_ERR__IO);
    cr_assert_eq(lr_memnet_pending(n), 0);
    lr_memnet_free(n);
}

Test(memnet, a_close_notifies_the_other_end_on_pump_only)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){.client = on_client});
    uint64_t c;
    lr_memnet_end_info in;
    cr_assert_eq(lr_memnet_open(n, C1, 1, &c), LOGREP_OK);
    lr_memnet_end(n, c, &in);
    cr_assert_eq(send_bytes(n, C1, c, "req"), LOGREP_OK);
    const logrep_transport *tr = lr_memnet_transport(n, 1);
    tr->close(tr->ctx, c); /* not node 1's end: ignored */
    cr_assert(lr_memnet_end(n, c, NULL));
    tr->close(tr->ctx, in.peer);
    cr_assert_not(lr_memnet_end(n, c, NULL));
    cr_assert_not(lr_memnet_end(n, in.peer, NULL));
    cr_assert_eq(s.closed, 0, "nobody is called from inside close");
    cr_assert_eq(lr_memnet_pending(n), 2, "the frame in flight and one notification");
    lr_memnet_pump(n, 0, 0);
    cr_assert_eq(s.closed, 1);
    cr_assert_eq(s.last_end, c, "the client's end, not the closer's");
    lr_memnet_stats st;
    lr_memnet_stats_get(n, &st);
    cr_assert_eq(st.dropped, 1, "the frame for a closed end is dropped");
    tr->close(tr->ctx, in.peer); /* closed already: no-op */
    cr_assert_eq(lr_memnet_pending(n), 0);

    /* A reset tells both ends; a node going away tells its peers. */
    uint64_t d, e;
    cr_assert_eq(lr_memnet_open(n, C1, 1, &d), LOGREP_OK);
    cr_assert_eq(lr_memnet_open(n, C1, 2, &e), LOGREP_OK);
    lr_memnet_close(n, d, 1);
    cr_assert_eq(lr_memnet_pending(n), 2);
    lr_memnet_msg *m = lr_memnet_take(n);
    cr_assert_eq(m->kind, LR_MEMNET_CLOSED);
    cr_assert_eq(m->end, d, "this end first");
    lr_memnet_msg_free(n, m);
    m = lr_memnet_take(n);
    cr_assert_eq(m->to, 1);
    lr_memnet_msg_free(n, m);
    s.closed = 0;
    lr_memnet_set_node(n, 2, NULL);
    cr_assert_not(lr_memnet_end(n, e, NULL));
    lr_memnet_pump(n, 0, 0);
    cr_assert_eq(s.closed, 1);
    cr_assert_eq(s.last_end, e);
    lr_memnet_free(n);
}

Test(memnet, held_messages_are_the_hosts_to_order)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){.hold = hold, .msg_extra = 12});
    uint64_t c;
    cr_assert_eq(lr_memnet_open(n, C1, 1, &c), LOGREP_OK);
    lr_memnet_end_info in;
    lr_memnet_end(n, c, &in);
    s.held = 1;
    const logrep_transport *tr = lr_memnet_transport(n, 1);
    cr_assert_eq(tr->send(tr->ctx, in.peer, &(logrep_seg){(const uint8_t *)"r1", 2, -1, 0}, 1),
                 LOGREP_OK);
    cr_assert_eq(tr->send(tr->ctx, in.peer, &(logrep_seg){(const uint8_t *)"r2", 2, -1, 0}, 1),
                 LOGREP_OK);
    cr_assert_eq(lr_memnet_pending(n), 0, "the hold hook took them");
    cr_assert_not_null(s.list);
    const uint8_t zero[12] = {0};
    cr_assert_arr_eq(s.list->extra, zero, 12, "the host's bytes start zeroed");
    /* Delays keep a connection in order. */
    cr_assert_eq(lr_memnet_fifo_at(n, c, 50), 50);
    cr_assert_eq(lr_memnet_fifo_at(n, c, 20), 50);
    cr_assert_eq(lr_memnet_fifo_at(n, c, 60), 60);
    /* Back in line, newest first: the host decides the order. */
    s.held = 0;
    while (s.list) {
        lr_memnet_msg *m = s.list;
        s.list = m->next;
        lr_memnet_queue(n, m);
    }
    lr_memnet_pump(n, 0, 0);
    lr_memnet_msg *m = lr_memnet_inbox_take(n, c);
    cr_assert_arr_eq(m->data, "r2", 2);
    lr_memnet_msg_free(n, m);
    m = lr_memnet_inbox_take(n, c);
    cr_assert_arr_eq(m->data, "r1", 2);
    lr_memnet_msg_free(n, m);
    lr_memnet_free(n);
}

/* The listener reaches the node before the connection's first frame, and
 * only on pump: a broker request on the controller listener is refused
 * with a close. A frame for a node that restarted is not delivered. */
Test(memnet, accepted_arrives_before_the_first_frame)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){.listener = controller_listener});
    logrep_storage *st;
    logrep_node *node = start(n, 1, "broker,controller", &st, 1000);
    const logrep_transport *tr = lr_memnet_transport(n, 2);
    uint64_t c;
    cr_assert_eq(tr->connect(tr->ctx, 3, "n3", 9092, &c), LOGREP_ERR__IO, "no node at 3");
    cr_assert_eq(tr->connect(tr->ctx, 1, "ctl", 9093, &c), LOGREP_OK);
    cr_assert_eq(lr_memnet_pending(n), 1, "accepted is queued, not called");
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_METADATA, 9, 1, "t"), LOGREP_OK);
    const uint8_t *buf;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(m, &buf, &len), LOGREP_OK);
    logrep_node_stats ns0, ns1;
    logrep_node_stats_get(node, &ns0);
    cr_assert_eq(tr->send(tr->ctx, c, &(logrep_seg){buf, len, -1, 0}, 1), LOGREP_OK);
    lr_memnet_pump(n, 1000, 0);
    cr_assert_not(lr_memnet_end(n, c, NULL), "Metadata on the controller listener is closed");
    logrep_node_stats_get(node, &ns1);
    cr_assert_eq(ns1.requests, ns0.requests + 1);
    /* On a connection never named it is answered. */
    uint64_t d;
    cr_assert_eq(lr_memnet_open(n, C1, 1, &d), LOGREP_OK);
    cr_assert_eq(lr_memnet_send(n, C1, d, &(logrep_seg){buf, len, -1, 0}, 1), LOGREP_OK);
    lr_memnet_pump(n, 1000, 0);
    cr_assert(lr_memnet_inbox_has(n, d));
    lr_memnet_msg_free(n, lr_memnet_inbox_take(n, d));

    /* A frame raised before a restart is dropped. */
    cr_assert_eq(lr_memnet_send(n, C1, d, &(logrep_seg){buf, len, -1, 0}, 1), LOGREP_OK);
    lr_memnet_set_node(n, 1, NULL);
    logrep_node_free(node, 0);
    logrep_storage_free(st);
    node = start(n, 1, "broker,controller", &st, 2000);
    logrep_node_stats_get(node, &ns0);
    lr_memnet_pump(n, 2000, 0);
    logrep_node_stats_get(node, &ns1);
    cr_assert_eq(ns1.requests, ns0.requests);
    lr_memnet_set_node(n, 1, NULL);
    logrep_node_free(node, 0);
    logrep_storage_free(st);
    logrep_msg_free(m);
    lr_memnet_free(n);
}

static void run(lr_memnet *n, logrep_node **nodes, int64_t *now, int64_t ms)
{
    for (int64_t t = 0; t < ms; t += 10) {
        *now += 10;
        for (int i = 1; i <= 2; i++)
            if (nodes[i])
                logrep_node_tick(nodes[i], *now);
        lr_memnet_pump(n, *now, 0);
    }
}

/* With fail_connect_late a refused connect returns an id and fails on the
 * next pump, as a background connect does: the broker keeps retrying and
 * registers once the controller is up. */
Test(memnet, connects_fail_in_the_background)
{
    seen s;
    lr_memnet *n = new_net(&s, (lr_memnet_conf){.fail_connect_late = 1, .may_connect = may_connect});
    const logrep_transport *tr = lr_memnet_transport(n, 2);
    uint64_t c;
    cr_assert_eq(tr->connect(tr->ctx, 1, "ctl", 9093, &c), LOGREP_OK, "no node there, yet an id");
    cr_assert(lr_memnet_end(n, c, NULL) == 0, "not open: connecting");
    cr_assert_eq(tr->send(tr->ctx, c, &(logrep_seg){(const uint8_t *)"x", 1, -1, 0}, 1), LOGREP_OK,
                 "sends queue while connecting");
    cr_assert_eq(lr_memnet_pending(n), 1, "its failure is on the way");
    lr_memnet_pump(n, 0, 0);
    cr_assert_eq(tr->send(tr->ctx, c, &(logrep_seg){(const uint8_t *)"x", 1, -1, 0}, 1),
                 LOGREP_ERR__IO, "failed now");
    s.refuse = 1;
    cr_assert_eq(tr->connect(tr->ctx, 1, "ctl", 9093, &c), LOGREP_OK, "refused by the hook");
    tr->close(tr->ctx, c); /* closed by its owner first: no notification */
    cr_assert_eq(tr->send(tr->ctx, c, &(logrep_seg){(const uint8_t *)"x", 1, -1, 0}, 1),
                 LOGREP_ERR__IO);
    lr_memnet_pump(n, 0, 0);
    s.refuse = 0;

    logrep_node *nodes[3] = {NULL};
    logrep_storage *st[3] = {NULL};
    int64_t now = 1000;
    nodes[2] = start(n, 2, "broker", &st[2], now);
    s.attempts = 0;
    run(n, nodes, &now, 2000);
    cr_assert_gt(s.attempts, 1, "the broker retried after each failure");
    cr_assert_lt(nodes[2]->life.broker_epoch, 0);
    nodes[1] = start(n, 1, "controller", &st[1], now);
    run(n, nodes, &now, 3000);
    cr_assert_geq(nodes[2]->life.broker_epoch, 0, "registered once the controller is up");
    for (int i = 1; i <= 2; i++) {
        lr_memnet_set_node(n, i, NULL);
        logrep_node_free(nodes[i], 0);
        logrep_storage_free(st[i]);
    }
    lr_memnet_free(n);
}

static void no_lock(void *ctx)
{
    (void)ctx;
}

Test(memnet, bad_confs_are_refused)
{
    lr_memnet *n;
    cr_assert_eq(lr_memnet_new(NULL, &n), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_memnet_new(&(lr_memnet_conf){.max_node = -1}, &n), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_memnet_new(&(lr_memnet_conf){.lock = no_lock}, &n),
                 LOGREP_ERR__INVALID_ARG, "lock without unlock");
    lr_memnet_free(NULL);
}
