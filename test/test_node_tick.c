/* logrep_node_tick's deadline: a host that calls tick only at the returned
 * deadline (and after input, as the example broker does) keeps the node
 * working, with far fewer ticks than a fixed short period. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include "node/node_int.h"

#include "lib/net_testutil.h"
#include "sim/memnet.h"

typedef struct driver {
    int64_t due[MAXN + 1];
    int ticks;
    int64_t max_hb_gap; /* longest time between heartbeats of node 1 */
    int64_t last_hb;
} driver;

static void tick_node(net *w, driver *d, int id)
{
    d->due[id] = logrep_node_tick(w->node[id], w->now);
    d->ticks++;
    cr_assert_geq(d->due[id], w->now, "a deadline is never in the past");
    logrep_node *n = w->node[id];
    if (id == 1 && n->life.last_heartbeat != d->last_hb) {
        if (d->last_hb > 0 && n->life.last_heartbeat - d->last_hb > d->max_hb_gap)
            d->max_hb_gap = n->life.last_heartbeat - d->last_hb;
        d->last_hb = n->life.last_heartbeat;
    }
}

/* Runs `ms` of time: each node is ticked at its deadline and after frames
 * reached it; time jumps to the next deadline. Stops early once the client
 * has a frame on connection `conn` (0: none awaited); returns the time. */
static int64_t drive(net *w, driver *d, int64_t ms, uint64_t awaited)
{
    int64_t end = w->now + ms;
    for (int id = 1; id <= w->n; id++)
        tick_node(w, d, id);
    while (w->now < end) {
        int input = lr_memnet_pending(w->mn) > 0;
        pump(w);
        for (int id = 1; id <= w->n; id++)
            if (w->node[id] && (input || w->now >= d->due[id]))
                tick_node(w, d, id);
        if (awaited && client_has(w, awaited))
            return w->now;
        if (lr_memnet_pending(w->mn))
            continue; /* the ticks sent more: deliver it at this time */
        int64_t next = end;
        for (int id = 1; id <= w->n; id++)
            if (w->node[id] && d->due[id] < next)
                next = d->due[id];
        w->now = next > w->now ? next : w->now + 1;
    }
    return w->now;
}

/* A quiet node is asked back when its timers say, not every 50 ms, and it
 * keeps its broker session: heartbeats go out on time from the deadline. */
Test(node_tick, quiet_node_is_ticked_by_its_deadlines)
{
    net w;
    one_node(&w);
    driver d;
    memset(&d, 0, sizeof d);
    drive(&w, &d, 30000, 0);
    int64_t hb = 2000; /* broker.heartbeat.interval.ms, default */
    cr_assert_lt(d.ticks, 300, "%d ticks in 30 s (a 50 ms period is 600)", d.ticks);
    cr_assert_gt(d.max_hb_gap, 0, "heartbeats were sent");
    cr_assert_leq(d.max_hb_gap, hb + 10, "heartbeat gap %lld ms", (long long)d.max_hb_gap);
    logrep_node_stats st;
    logrep_node_stats_get(w.node[1], &st);
    cr_assert_eq(st.fenced_brokers, 0, "the session never expired");
    /* The broker's own metadata fetch waits at most 500 ms at the
     * controller: that parked fetch bounds the deadline. */
    int64_t next = logrep_node_tick(w.node[1], w.now);
    cr_assert_leq(next, w.now + 500, "deadline %lld ms away", (long long)(next - w.now));
    create_topic(&w, 1, "t", 1, 1); /* and it still serves */
    teardown(&w);
}

/* A consumer fetch parked on an empty partition is answered at its
 * MaxWaitMs, which only a deadline that includes it can hit. */
Test(node_tick, parked_fetch_is_answered_at_its_max_wait)
{
    net w;
    one_node(&w);
    create_topic(&w, 1, "t", 1, 1);
    run(&w, 500);
    driver d;
    memset(&d, 0, sizeof d);
    drive(&w, &d, 100, 0);
    enum { WAIT = 235 };
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    fetch_request(m, "t", 0, 0, WAIT, 1);
    int64_t sent = w.now;
    uint64_t c = client_send(&w, 1, m);
    int64_t answered = drive(&w, &d, 2000, c);
    cr_assert_geq(answered, sent + WAIT, "not before its max wait");
    cr_assert_leq(answered, sent + WAIT + 5, "answered %lld ms after it was sent",
                  (long long)(answered - sent));
    logrep_msg_free(m);
    teardown(&w);
}

/* A broker in controlled shutdown asks the controller at once and then
 * every 50 ms until it may stop, not back to back: in the lossless
 * in-memory network, back to back would never let time move. */
Test(node_tick, controlled_shutdown_heartbeats_are_paced, .timeout = 30)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 1, "t", 3, 3);
    run(&w, 1000);
    driver d;
    memset(&d, 0, sizeof d);
    int64_t before = w.requests_sent[3][LOGREP_API_BROKER_HEARTBEAT];
    int64_t t0 = w.now;
    cr_assert_eq(logrep_node_shutdown(w.node[3], w.now), LOGREP_OK);
    while (!logrep_node_shutdown_done(w.node[3]) && w.now - t0 < 10000)
        drive(&w, &d, 10, 0);
    cr_assert(logrep_node_shutdown_done(w.node[3]), "not done after %lld ms",
              (long long)(w.now - t0));
    int64_t took = w.now - t0, hbs = w.requests_sent[3][LOGREP_API_BROKER_HEARTBEAT] - before;
    cr_assert_geq(hbs, 1);
    cr_assert_leq(hbs, 2 + took / 50, "%lld heartbeats in %lld ms", (long long)hbs,
                  (long long)took);
    teardown(&w);
}
