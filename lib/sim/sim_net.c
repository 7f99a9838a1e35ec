/* The simulator's network: a memnet whose messages the simulator holds
 * and delivers in virtual time (latency, resets, FIFO per connection),
 * client connections, and the network faults. */
#include <string.h>

#include "sim/sim_int.h"

static int32_t node_of(const logrep_sim *s, int32_t owner)
{
    return lr_sim_is_node(s, owner) ? owner : 0;
}

static int64_t latency(logrep_sim *s, int32_t from, int32_t to)
{
    int32_t f = node_of(s, from), t = node_of(s, to);
    const lr_sim_link *l = &s->link[f][t];
    int32_t lo = l->lat_min, hi = l->lat_max > l->lat_min ? l->lat_max : l->lat_min;
    return lo + (int64_t)lr_sim_rand(s, (uint64_t)(hi - lo + 1));
}

void lr_sim_close_end(logrep_sim *s, uint64_t e, int notify_self)
{
    lr_memnet_close(s->net, e, notify_self);
}

/* A frame is lost with its connection (reset_ppm) or scheduled after the
 * link's latency, in order on its connection unless FIFO is off; a
 * notification lands 1 ms later. */
static int net_hold(void *ctx, lr_memnet_msg *m)
{
    logrep_sim *s = ctx;
    int64_t t = s->now + 1;
    if (m->kind == LR_MEMNET_FRAME) {
        const lr_sim_link *l = &s->link[node_of(s, m->from)][node_of(s, m->to)];
        if (l->reset_ppm > 0 && lr_sim_rand(s, 1000000) < (uint64_t)l->reset_ppm) {
            lr_memnet_end_info in;
            uint64_t e = lr_memnet_end(s->net, m->end, &in) ? in.peer : 0;
            lr_sim_trace(s, "net: reset %d->%d conn %llu (frame of %zu bytes lost)", m->from,
                         m->to, (unsigned long long)e, m->len);
            lr_sim_close_end(s, e, 1);
            lr_memnet_msg_free(s->net, m);
            return 1;
        }
        t = s->now + latency(s, m->from, m->to);
        if (!s->nonfifo)
            t = lr_memnet_fifo_at(s->net, m->end, t);
        /* The epochs the node answers in, for the checker's zombie rules. */
        lr_sim_served *sv = m->extra;
        for (int32_t p = 0; p < LR_SIM_MAXP; p++)
            sv->epoch[p] = -1;
        logrep_node_partition_info pi;
        if (m->to >= LR_SIM_ACTOR0 && lr_sim_is_node(s, m->from) && s->node[m->from])
            for (size_t i = 0; logrep_node_partition(s->node[m->from], i, &pi) == LOGREP_OK; i++)
                if (pi.partition >= 0 && pi.partition < LR_SIM_MAXP && !strcmp(pi.topic, LR_SIM_TOPIC))
                    sv->epoch[pi.partition] = pi.leader_epoch;
    }
    if (lr_sim_push_msg(s, t, m) != 0) {
        lr_sim_fail(s, "harness: out of memory for the event queue");
        lr_memnet_msg_free(s->net, m);
    }
    return 1;
}

/* A message delivered to an actor. */
static void net_client(void *ctx, lr_memnet_msg *m)
{
    logrep_sim *s = ctx;
    if (m->to >= LR_SIM_ACTOR0 && (size_t)(m->to - LR_SIM_ACTOR0) < s->nactors) {
        lr_sim_actor *a = &s->actors[m->to - LR_SIM_ACTOR0];
        const lr_sim_served *sv = m->extra;
        if (m->kind == LR_MEMNET_FRAME)
            lr_sim_actor_frame(s, a, m->end, m->data, m->len,
                               a->partition >= 0 && a->partition < LR_SIM_MAXP
                                   ? sv->epoch[a->partition]
                                   : -1);
        else if (m->kind == LR_MEMNET_CLOSED)
            lr_sim_actor_closed(s, a, m->end);
    }
    lr_memnet_msg_free(s->net, m);
}

static logrep_err net_may_connect(void *ctx, int32_t from, int32_t to, int32_t port)
{
    logrep_sim *s = ctx;
    (void)port;
    return lr_sim_is_node(s, from) && lr_sim_is_node(s, to) && !s->block[from][to] ? LOGREP_OK : LOGREP_ERR__IO;
}

static logrep_err net_read_file(void *ctx, int32_t from, const logrep_seg *seg, void *buf)
{
    (void)seg;
    (void)buf;
    lr_sim_fail(ctx, "harness: node %d sent a file segment", from);
    return LOGREP_ERR__IO;
}

uint64_t lr_sim_client_connect(logrep_sim *s, int32_t owner, int32_t to)
{
    uint64_t e = 0;
    if (!lr_sim_is_node(s, to) || !s->node[to] || s->client_block[to] ||
        lr_memnet_open(s->net, owner, to, &e) != 0)
        return 0;
    return e;
}

int lr_sim_client_send(logrep_sim *s, int32_t owner, uint64_t end, const uint8_t *buf, size_t len)
{
    logrep_seg seg = {buf, len, -1, 0};
    return lr_memnet_send(s->net, owner, end, &seg, 1);
}

static void reset_between(logrep_sim *s, int32_t a, int32_t b)
{
    lr_memnet_end_info in;
    for (uint64_t e = 1; e < lr_memnet_end_limit(s->net); e++)
        if (lr_memnet_end(s->net, e, &in) && !in.accepted && in.owner == a && in.peer_owner == b)
            lr_sim_close_end(s, e, 1);
}

LOGREP_API void logrep_sim_block(logrep_sim *s, int32_t from, int32_t to, int on)
{
    if (!s || !lr_sim_is_node(s, from) || !lr_sim_is_node(s, to))
        return;
    s->block[from][to] = on ? 1 : 0;
    lr_sim_trace(s, "fault: block %d->%d %s", from, to, on ? "on" : "off");
    if (on)
        reset_between(s, from, to);
}

LOGREP_API void logrep_sim_partition(logrep_sim *s, int32_t a, int32_t b, int on)
{
    logrep_sim_block(s, a, b, on);
    logrep_sim_block(s, b, a, on);
}

LOGREP_API void logrep_sim_isolate(logrep_sim *s, int32_t id, int on)
{
    if (!s)
        return;
    for (int32_t o = 1; o <= s->nn; o++)
        if (o != id)
            logrep_sim_partition(s, id, o, on);
}

LOGREP_API void logrep_sim_client_block(logrep_sim *s, int32_t id, int on)
{
    if (!s || !lr_sim_is_node(s, id))
        return;
    s->client_block[id] = on ? 1 : 0;
    lr_sim_trace(s, "fault: clients %s node %d", on ? "cut from" : "reach", id);
    lr_memnet_end_info in;
    for (uint64_t e = 1; on && e < lr_memnet_end_limit(s->net); e++)
        if (lr_memnet_end(s->net, e, &in) && in.owner >= LR_SIM_ACTOR0 && in.peer_owner == id)
            lr_sim_close_end(s, e, 1);
}

LOGREP_API void logrep_sim_link(logrep_sim *s, int32_t from, int32_t to, int32_t lat_min,
                                int32_t lat_max, int32_t reset_ppm)
{
    if (!s)
        return;
    for (int32_t f = 0; f <= s->nn; f++)
        for (int32_t t = 0; t <= s->nn; t++)
            if ((from < 0 || f == from) && (to < 0 || t == to))
                s->link[f][t] = (lr_sim_link){lat_min < 0 ? 0 : lat_min, lat_max, reset_ppm};
    lr_sim_trace(s, "fault: link %d->%d latency %d..%d ms, reset %d ppm", from, to, lat_min,
                 lat_max, reset_ppm);
}

LOGREP_API void logrep_sim_set_fifo(logrep_sim *s, int fifo)
{
    if (s)
        s->nonfifo = !fifo;
}

LOGREP_API void logrep_sim_heal_network(logrep_sim *s)
{
    if (!s)
        return;
    memset(s->block, 0, sizeof s->block);
    memset(s->client_block, 0, sizeof s->client_block);
    for (int32_t f = 0; f <= s->nn; f++)
        for (int32_t t = 0; t <= s->nn; t++)
            s->link[f][t] = (lr_sim_link){1, 3, 0};
    for (int32_t i = 1; i <= s->nn; i++)
        if (s->paused_until[i] > s->now)
            s->paused_until[i] = s->now;
    lr_sim_trace(s, "heal: network restored");
}

logrep_err lr_sim_net_new(logrep_sim *s)
{
    lr_memnet_conf c = {.max_node = s->nn, .msg_extra = sizeof(lr_sim_served), .ctx = s,
                        .hold = net_hold, .client = net_client, .may_connect = net_may_connect,
                        .read_file = net_read_file};
    return lr_memnet_new(&c, &s->net) == LOGREP_OK ? LOGREP_OK : LOGREP_ERR__NOMEM;
}
