/* A node's in-process calls (include/logrep/inproc.h) on the in-memory
 * cluster: topics created and deleted on the controller's node and
 * forwarded from a broker, produce with acks 0, 1 and all, fetch back the
 * exact bytes (from the leader and from a follower), long-poll fetches
 * woken by a produce or expiring empty, list offsets, read_committed, the
 * event queue's order and its pointers' lifetime, every documented error,
 * a leader that goes away under an acks=all produce, and a node freed
 * with events queued and calls pending (ASan checks the leaks). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"
#include "lib/testutil.h"
#include <logrep/inproc.h>
#include "sim/memnet.h"

static const char *const fast_isr[] = {"replica.lag.time.max.ms", "1000", NULL};

/* Runs the cluster until node id has an event (polled into ev): 1, or 0
 * after max_ms. */
static int wait_event(net *w, int id, logrep_node_event *ev, int64_t max_ms)
{
    for (int64_t t = 0;; t += 10) {
        if (logrep_node_poll(w->node[id], ev))
            return 1;
        if (t >= max_ms)
            return 0;
        run(w, 10);
    }
}

/* The next event of node id, asserting its type and token. */
static logrep_node_event next_event(net *w, int id, int type, uint64_t token, int64_t max_ms)
{
    logrep_node_event ev;
    cr_assert(wait_event(w, id, &ev, max_ms), "no event of type %d within %lld ms", type,
              (long long)max_ms);
    cr_assert_eq(ev.type, type);
    cr_assert_eq(ev.token, token);
    return ev;
}

static void no_event(net *w, int id)
{
    logrep_node_event ev;
    cr_assert_not(logrep_node_poll(w->node[id], &ev), "unexpected event of type %d", ev.type);
}

/* Creates a topic in process through node via; returns the event's error. */
static int create_cfg(net *w, int via, const char *name, int32_t parts, int16_t rf,
                      const char *key, const char *value)
{
    static uint64_t token = 1000;
    uint64_t tk = ++token;
    const char *names[] = {key}, *values[] = {value};
    cr_assert_eq(logrep_node_create_topic(w->node[via], name, parts, rf, names, values,
                                          key ? 1 : 0, 5000, tk, w->now),
                 LOGREP_OK);
    return next_event(w, via, LOGREP_NODE_EV_CREATE_TOPIC, tk, 6000).error;
}

static int create(net *w, int via, const char *name, int32_t parts, int16_t rf)
{
    return create_cfg(w, via, name, parts, rf, NULL, NULL);
}

static int delete_topic(net *w, int via, const char *name)
{
    cr_assert_eq(logrep_node_delete_topic(w->node[via], name, 5000, 77, w->now), LOGREP_OK);
    return next_event(w, via, LOGREP_NODE_EV_DELETE_TOPIC, 77, 6000).error;
}

/* The leader of topic/partition 0 once every replica hosts it. */
static int ready_leader(net *w, const char *topic)
{
    run(w, 1500);
    int l = leader_of(w, 1, topic, 0, NULL);
    cr_assert_gt(l, 0, "%s has no leader", topic);
    return l;
}

/* Three nodes and topic "t" (one partition, three replicas) created in
 * process through node via; returns its leader. */
static int cluster_with_t(net *w, int via)
{
    setup(w, 3);
    run(w, 1000);
    cr_assert_eq(create(w, via, "t", 1, 3), 0);
    return ready_leader(w, "t");
}

/* A node other than `not` (and not `not2`) among 1..w->n. */
static int other(net *w, int not, int not2)
{
    for (int id = 1; id <= w->n; id++)
        if (id != not && id != not2)
            return id;
    return -1;
}

/* Produces in process; returns the event (asserting one within max_ms). */
static logrep_node_event produce_ev(net *w, int to, const char *topic, int32_t part,
                                    const uint8_t *b, size_t len, int16_t acks, uint64_t token)
{
    cr_assert_eq(logrep_node_produce(w->node[to], topic, part, b, len, acks, 5000, token, w->now),
                 LOGREP_OK);
    return next_event(w, to, LOGREP_NODE_EV_PRODUCE, token, 6000);
}

/* Values of the records in [p, p + len), counted; checks each record's
 * offset follows the one before from `first`. */
static int read_values(const uint8_t *p, size_t len, int64_t first, char vals[][16], int cap)
{
    logrep_batch_reader *rd;
    cr_assert_eq(logrep_batch_reader_new(NULL, &rd), LOGREP_OK);
    int n = 0;
    size_t pos = 0;
    while (pos < len) {
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_reader_open(rd, p + pos, len - pos, &h), LOGREP_OK);
        logrep_record r;
        while (logrep_batch_reader_next(rd, &r) == LOGREP_OK) {
            cr_assert_eq(r.offset, first + n);
            cr_assert_lt(n, cap);
            snprintf(vals[n], 16, "%.*s", (int)r.value_len, (const char *)r.value);
            n++;
        }
        pos += 12 + (size_t)h.batch_length;
    }
    logrep_batch_reader_free(rd);
    return n;
}

/* The batch at p equals the produced one but for the fields the leader
 * stamps (base offset, partition leader epoch), outside the CRC. */
static void same_batch(const uint8_t *p, const uint8_t *sent, size_t len)
{
    cr_assert_eq(memcmp(p + 8, sent + 8, 4), 0, "batch length");
    cr_assert_eq(memcmp(p + 16, sent + 16, len - 16), 0, "the batch's bytes");
}

Test(node_inproc, create_delete_on_controller_and_forwarded, .timeout = 120)
{
    net w;
    setup(&w, 3);
    run(&w, 1000);
    /* On the controller's node, and from a broker through the controller. */
    cr_assert_eq(create(&w, 1, "on-ctl", 2, 3), 0);
    cr_assert_eq(create(&w, 2, "fwd", 1, 2), 0);
    cr_assert_eq(create(&w, 3, "defaults", -1, -1), 0);
    run(&w, 1500);
    cr_assert_gt(leader_of(&w, 2, "on-ctl", 1, NULL), 0);
    cr_assert_gt(leader_of(&w, 3, "fwd", 0, NULL), 0);
    cr_assert_gt(leader_of(&w, 1, "defaults", 0, NULL), 0);
    /* Kafka's refusals, the same either way. */
    for (int via = 1; via <= 2; via++) {
        char big[300];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        cr_assert_eq(create(&w, via, "fwd", 1, 1), LOGREP_ERR_TOPIC_ALREADY_EXISTS);
        cr_assert_eq(create(&w, via, "bad name", 1, 1), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
        cr_assert_eq(create(&w, via, big, 1, 1), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
        cr_assert_eq(create(&w, via, "fwd.", 1, 1), 0);
        cr_assert_eq(create(&w, via, via == 1 ? "fwd_" : "fwd.", 1, 1),
                     via == 1 ? LOGREP_ERR_INVALID_TOPIC_EXCEPTION
                              : LOGREP_ERR_TOPIC_ALREADY_EXISTS);
        cr_assert_eq(create(&w, via, "zero-parts", 0, 1), LOGREP_ERR_INVALID_PARTITIONS);
        cr_assert_eq(create(&w, via, "zero-rf", 1, 0), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
        cr_assert_eq(create(&w, via, "big-rf", 1, 4), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
        cr_assert_eq(create_cfg(&w, via, "cfg1", 1, 1, "no.such.config", "1"),
                     LOGREP_ERR_INVALID_CONFIG);
        cr_assert_eq(create_cfg(&w, via, "cfg2", 1, 1, "retention.ms", "soon"),
                     LOGREP_ERR_INVALID_CONFIG);
        cr_assert_eq(create_cfg(&w, via, "cfg3", 1, 1, "cleanup.policy", NULL),
                     LOGREP_ERR_INVALID_CONFIG);
        /* Deleting: forwarded from the broker, direct on the controller. */
        cr_assert_eq(delete_topic(&w, via, "fwd."), 0);
        cr_assert_eq(delete_topic(&w, via, "fwd."), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
        cr_assert_eq(delete_topic(&w, via, big), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    }
    cr_assert_eq(create_cfg(&w, 2, "compacted", 1, 2, "cleanup.policy", "compact"), 0);
    cr_assert_eq(delete_topic(&w, 2, "on-ctl"), 0);
    cr_assert_eq(delete_topic(&w, 1, "fwd"), 0);
    run(&w, 1500);
    cr_assert_eq(leader_of(&w, 2, "on-ctl", 0, NULL), -1);
    /* The deleted topic's data calls now answer for an unknown topic. */
    uint8_t b[256];
    size_t len = values_batch(b, sizeof b, "v", 1, 1000);
    cr_assert_eq(produce_ev(&w, 2, "fwd", 0, b, len, 1, 5).error,
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    no_event(&w, 1);
    no_event(&w, 2);
    teardown(&w);
}

Test(node_inproc, produce_acks_and_fetch_exact_bytes, .timeout = 120)
{
    net w;
    int l = cluster_with_t(&w, 2);
    int f = other(&w, l, -1);
    uint8_t b1[512], b2[512], b3[512];
    size_t n1 = values_batch(b1, sizeof b1, "a", 3, 1000);
    size_t n2 = values_batch(b2, sizeof b2, "b", 2, 2000);
    size_t n3 = values_batch(b3, sizeof b3, "c", 1, 3000);
    logrep_node_stats st0;
    logrep_node_stats_get(w.node[l], &st0);
    logrep_node_event ev = produce_ev(&w, l, "t", 0, b1, n1, 1, 11);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.base_offset, 0);
    cr_assert_eq(ev.log_append_time, -1);
    cr_assert_eq(ev.log_start_offset, 0);
    cr_assert_null(ev.records);
    cr_assert_eq(ev.offset, -1);
    ev = produce_ev(&w, l, "t", 0, b2, n2, -1, 12);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.base_offset, 3);
    ev = produce_ev(&w, l, "t", 0, b3, n3, 0, 13);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.base_offset, 5);
    logrep_node_stats st;
    logrep_node_stats_get(w.node[l], &st);
    cr_assert_eq(st.produce_records - st0.produce_records, 6);
    run(&w, 500); /* the followers catch up: the HW passes every batch */

    /* From the leader, then from a follower (up to its own HW). */
    int from[2] = {l, f};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(logrep_node_fetch(w.node[from[k]], "t", 0, 0, 1 << 20, 0, 0, 20 + k, w.now),
                     LOGREP_OK);
        ev = next_event(&w, from[k], LOGREP_NODE_EV_FETCH, 20 + (uint64_t)k, 100);
        cr_assert_eq(ev.error, 0, "node %d: %s", from[k], logrep_err_name(ev.error));
        cr_assert_eq(ev.high_watermark, 6);
        cr_assert_eq(ev.last_stable_offset, 6);
        cr_assert_eq(ev.log_start_offset, 0);
        cr_assert_eq(ev.records_len, n1 + n2 + n3);
        same_batch(ev.records, b1, n1);
        same_batch(ev.records + n1, b2, n2);
        same_batch(ev.records + n1 + n2, b3, n3);
        char vals[8][16];
        cr_assert_eq(read_values(ev.records, ev.records_len, 0, vals, 8), 6);
        cr_assert_str_eq(vals[0], "a0");
        cr_assert_str_eq(vals[3], "b0");
        cr_assert_str_eq(vals[5], "c0");
        /* The records stay readable until the next poll, whatever runs. */
        run(&w, 50);
        cr_assert_eq(read_values(ev.records, ev.records_len, 0, vals, 8), 6);
    }
    /* max_bytes: whole batches, the first even when larger. */
    cr_assert_eq(logrep_node_fetch(w.node[l], "t", 0, 3, 1, 0, 0, 30, w.now), LOGREP_OK);
    ev = next_event(&w, l, LOGREP_NODE_EV_FETCH, 30, 100);
    cr_assert_eq(ev.records_len, n2);
    same_batch(ev.records, b2, n2);
    /* At the log end: nothing, no error. */
    cr_assert_eq(logrep_node_fetch(w.node[l], "t", 0, 6, 1000, 1, 0, 31, w.now), LOGREP_OK);
    ev = next_event(&w, l, LOGREP_NODE_EV_FETCH, 31, 100);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.records_len, 0);
    cr_assert_null(ev.records);
    teardown(&w);
}

Test(node_inproc, events_come_in_completion_order, .timeout = 120)
{
    extra_conf = fast_isr;
    net w;
    int l = cluster_with_t(&w, 1);
    uint8_t b[256];
    size_t n = values_batch(b, sizeof b, "v", 1, 1000);
    /* The acks=all produce waits for the followers; the acks=1 one after it
     * completes first. */
    cr_assert_eq(logrep_node_produce(w.node[l], "t", 0, b, n, -1, 5000, 1, w.now), LOGREP_OK);
    cr_assert_eq(logrep_node_produce(w.node[l], "t", 0, b, n, 1, 5000, 2, w.now), LOGREP_OK);
    cr_assert_eq(logrep_node_list_offsets(w.node[l], "t", 0, LOGREP_OFFSET_EARLIEST, 0, 3, w.now),
                 LOGREP_OK);
    /* Work ready: the tick says to come back now. */
    cr_assert_eq(logrep_node_tick(w.node[l], w.now), w.now);
    logrep_node_event ev;
    cr_assert(logrep_node_poll(w.node[l], &ev));
    cr_assert_eq(ev.token, 2);
    cr_assert_eq(ev.base_offset, 1);
    cr_assert(logrep_node_poll(w.node[l], &ev));
    cr_assert_eq(ev.token, 3);
    cr_assert_eq(ev.type, LOGREP_NODE_EV_LIST_OFFSETS);
    ev = next_event(&w, l, LOGREP_NODE_EV_PRODUCE, 1, 1000);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.base_offset, 0);
    no_event(&w, l);
    teardown(&w);
    extra_conf = NULL;
}

Test(node_inproc, long_poll_fetch, .timeout = 120)
{
    net w;
    int l = cluster_with_t(&w, 1);
    int f = other(&w, l, -1);
    uint8_t b[256];
    size_t n = values_batch(b, sizeof b, "v", 2, 1000);
    /* Waiting at the log end, on the leader and on a follower: a produce
     * wakes both, long before max_wait. */
    cr_assert_eq(logrep_node_fetch(w.node[l], "t", 0, 0, 1 << 20, 0, 10000, 40, w.now), LOGREP_OK);
    cr_assert_eq(logrep_node_fetch(w.node[f], "t", 0, 0, 1 << 20, 1, 10000, 41, w.now), LOGREP_OK);
    run(&w, 300);
    no_event(&w, l);
    no_event(&w, f);
    int64_t t0 = w.now;
    cr_assert_eq(produce(&w, l, "t", 0, "wire", -1, NULL), 0); /* over the wire */
    logrep_node_event ev = next_event(&w, l, LOGREP_NODE_EV_FETCH, 40, 1000);
    cr_assert_eq(ev.error, 0);
    cr_assert_gt(ev.records_len, 0);
    char vals[4][16];
    cr_assert_eq(read_values(ev.records, ev.records_len, 0, vals, 4), 1);
    cr_assert_str_eq(vals[0], "wire");
    ev = next_event(&w, f, LOGREP_NODE_EV_FETCH, 41, 1000);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(read_values(ev.records, ev.records_len, 0, vals, 4), 1);
    cr_assert_lt(w.now - t0, 2000);

    /* Woken by an in-process produce. */
    cr_assert_eq(logrep_node_fetch(w.node[l], "t", 0, 1, 1 << 20, 0, 10000, 42, w.now), LOGREP_OK);
    run(&w, 100);
    no_event(&w, l);
    cr_assert_eq(logrep_node_produce(w.node[l], "t", 0, b, n, 1, 5000, 43, w.now), LOGREP_OK);
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        cr_assert(wait_event(&w, l, &ev, 1000));
        if (ev.token == 42) {
            cr_assert_eq(ev.type, LOGREP_NODE_EV_FETCH);
            cr_assert_eq(read_values(ev.records, ev.records_len, 1, vals, 4), 2);
            cr_assert_str_eq(vals[1], "v1");
        } else {
            cr_assert_eq(ev.token, 43);
            cr_assert_eq(ev.base_offset, 1);
        }
        seen |= 1 << i;
    }
    cr_assert_eq(seen, 3);

    /* Nothing comes: the fetch ends empty after max_wait, and the tick
     * asks to be called by then. */
    cr_assert_eq(logrep_node_fetch(w.node[l], "t", 0, 3, 1 << 20, 0, 300, 44, w.now), LOGREP_OK);
    cr_assert_leq(logrep_node_tick(w.node[l], w.now), w.now + 300);
    t0 = w.now;
    run(&w, 250);
    no_event(&w, l);
    ev = next_event(&w, l, LOGREP_NODE_EV_FETCH, 44, 1000);
    cr_assert_geq(w.now - t0, 300);
    cr_assert_eq(ev.error, 0);
    cr_assert_eq(ev.records_len, 0);
    cr_assert_eq(ev.high_watermark, 3);
    teardown(&w);
}

Test(node_inproc, list_offsets_and_read_committed, .timeout = 120)
{
    extra_conf = fast_isr;
    net w;
    int l = cluster_with_t(&w, 3);
    uint8_t b[512];
    for (int i = 0; i < 3; i++) {
        /* Timestamps 10000, 10001, 20000, 20001, 30000, 30001. */
        size_t n = values_batch(b, sizeof b, "v", 2, 10000 * (i + 1));
        cr_assert_eq(produce_ev(&w, l, "t", 0, b, n, -1, 50 + (uint64_t)i).error, 0);
    }
    struct {
        int64_t ts;
        int64_t offset, found_ts;
    } q[] = {{LOGREP_OFFSET_EARLIEST, 0, -1},    {LOGREP_OFFSET_LATEST, 6, -1},
             {LOGREP_OFFSET_MAX_TIMESTAMP, 5, 30001}, {15000, 2, 20000},
             {10001, 1, 10001},                 {99999, -1, -1}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        for (int rc = 0; rc < 2; rc++) {
            cr_assert_eq(logrep_node_list_offsets(w.node[l], "t", 0, q[i].ts, rc, 60, w.now),
                         LOGREP_OK);
            logrep_node_event ev = next_event(&w, l, LOGREP_NODE_EV_LIST_OFFSETS, 60, 0);
            cr_assert_eq(ev.error, 0);
            cr_assert_eq(ev.offset, q[i].offset, "ts %lld: offset %lld", (long long)q[i].ts,
                         (long long)ev.offset);
            cr_assert_eq(ev.timestamp, q[i].found_ts, "ts %lld", (long long)q[i].ts);
            cr_assert_eq(ev.leader_epoch >= 0, q[i].offset >= 0);
            cr_assert_eq(ev.base_offset, -1);
        }
    }
    /* A follower gone (not the controller's node): an acks=1 batch is
     * written past the HW, which holds while the ISR still has the
     * follower (replica.lag.time.max.ms). A consumer sees up to the HW;
     * read_committed up to the last stable offset (the HW: no
     * transactions here). */
    int f1 = other(&w, l, -1), f2 = other(&w, l, f1);
    int dead = f1 == 1 ? f2 : f1, alive = dead == f1 ? f2 : f1;
    kill_node(&w, dead);
    logrep_node *ln = w.node[l];
    size_t n = values_batch(b, sizeof b, "late", 1, 40000);
    cr_assert_eq(produce_ev(&w, l, "t", 0, b, n, 1, 61).error, 0);
    for (int rc = 0; rc < 2; rc++) {
        cr_assert_eq(logrep_node_fetch(ln, "t", 0, 4, 1 << 20, rc, 0, 62, w.now), LOGREP_OK);
        logrep_node_event ev = next_event(&w, l, LOGREP_NODE_EV_FETCH, 62, 0);
        cr_assert_eq(ev.error, 0);
        cr_assert_eq(ev.high_watermark, 6);
        cr_assert_eq(ev.last_stable_offset, 6);
        char vals[4][16];
        cr_assert_eq(read_values(ev.records, ev.records_len, 4, vals, 4), 2);
        cr_assert_eq(logrep_node_list_offsets(ln, "t", 0, LOGREP_OFFSET_LATEST, rc, 63, w.now),
                     LOGREP_OK);
        cr_assert_eq(next_event(&w, l, LOGREP_NODE_EV_LIST_OFFSETS, 63, 0).offset, 6);
    }
    /* A follower answers ListOffsets as the wire does: not the leader. */
    cr_assert_eq(logrep_node_list_offsets(w.node[alive], "t", 0, -1, 0, 64, w.now), LOGREP_OK);
    cr_assert_eq(next_event(&w, alive, LOGREP_NODE_EV_LIST_OFFSETS, 64, 0).error,
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    teardown(&w);
    extra_conf = NULL;
}

Test(node_inproc, kafka_errors, .timeout = 120)
{
    net w;
    setup(&w, 3);
    run(&w, 1000);
    cr_assert_eq(create(&w, 1, "t", 1, 3), 0);
    cr_assert_eq(create(&w, 1, "one", 1, 1), 0);
    cr_assert_eq(create_cfg(&w, 1, "small", 1, 3, "max.message.bytes", "200"), 0);
    cr_assert_eq(create_cfg(&w, 1, "__consumer_offsets", 1, 3, "cleanup.policy", "compact"), 0);
    int l = ready_leader(&w, "t");
    int f = other(&w, l, -1);
    int lone = ready_leader(&w, "one");
    int lsmall = ready_leader(&w, "small");
    int loff = ready_leader(&w, "__consumer_offsets");
    uint8_t b[4096];
    size_t n = values_batch(b, sizeof b, "v", 1, 1000);
    struct {
        int node;
        const char *topic;
        int32_t part;
        int16_t acks;
        int err;
    } pq[] = {{f, "t", 0, 1, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER},
              {l, "nope", 0, 1, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION},
              {l, "t", 7, 1, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION},
              {l, "bad name", 0, 1, LOGREP_ERR_INVALID_TOPIC_EXCEPTION},
              {l, "t", 0, 2, LOGREP_ERR_INVALID_REQUIRED_ACKS},
              {l, "t", 0, -2, LOGREP_ERR_INVALID_REQUIRED_ACKS},
              {loff, "__consumer_offsets", 0, 1, LOGREP_ERR_INVALID_TOPIC_EXCEPTION},
              {loff, "__consumer_offsets", 0, -1, LOGREP_ERR_INVALID_TOPIC_EXCEPTION}};
    for (size_t i = 0; i < sizeof pq / sizeof pq[0]; i++) {
        logrep_node_event ev = produce_ev(&w, pq[i].node, pq[i].topic, pq[i].part, b, n,
                                          pq[i].acks, 100 + i);
        cr_assert_eq(ev.error, pq[i].err, "case %zu: %s", i, logrep_err_name(ev.error));
        cr_assert_eq(ev.base_offset, -1);
    }
    /* A batch whose bytes do not match its CRC. */
    uint8_t bad[4096];
    memcpy(bad, b, n);
    bad[n - 2] ^= 0x5a;
    cr_assert_eq(produce_ev(&w, l, "t", 0, bad, n, 1, 120).error, LOGREP_ERR_CORRUPT_MESSAGE);
    /* Garbage of magic 2. */
    memset(bad, 0x41, 100);
    bad[16] = 2;
    cr_assert_eq(produce_ev(&w, l, "t", 0, bad, 100, 1, 121).error, LOGREP_ERR_CORRUPT_MESSAGE);
    /* Over the topic's max.message.bytes. */
    size_t nb = values_batch(b, sizeof b, "a-value-of-some-length-", 8, 1000);
    cr_assert_gt(nb, 200);
    cr_assert_eq(produce_ev(&w, lsmall, "small", 0, b, nb, 1, 122).error,
                 LOGREP_ERR_MESSAGE_TOO_LARGE);
    /* Fetch and list offsets: unknown, not hosted, out of range. */
    int none = other(&w, lone, -1);
    struct {
        int node;
        const char *topic;
        int32_t part;
        int64_t offset;
        int err;
    } fq[] = {{l, "nope", 0, 0, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION},
              {l, "t", 3, 0, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION},
              {none, "one", 0, 0, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER},
              {l, "t", 0, 1000, LOGREP_ERR_OFFSET_OUT_OF_RANGE},
              {l, "t", 0, -1, LOGREP_ERR_OFFSET_OUT_OF_RANGE}};
    for (size_t i = 0; i < sizeof fq / sizeof fq[0]; i++) {
        cr_assert_eq(logrep_node_fetch(w.node[fq[i].node], fq[i].topic, fq[i].part, fq[i].offset,
                                       1000, 0, 5000, 130 + i, w.now),
                     LOGREP_OK);
        logrep_node_event ev = next_event(&w, fq[i].node, LOGREP_NODE_EV_FETCH, 130 + i, 0);
        cr_assert_eq(ev.error, fq[i].err, "fetch case %zu: %s", i, logrep_err_name(ev.error));
        cr_assert_null(ev.records);
        if (i < 3) {
            cr_assert_eq(logrep_node_list_offsets(w.node[fq[i].node], fq[i].topic, fq[i].part, -2,
                                                  0, 140 + i, w.now),
                         LOGREP_OK);
            ev = next_event(&w, fq[i].node, LOGREP_NODE_EV_LIST_OFFSETS, 140 + i, 0);
            cr_assert_eq(ev.error, fq[i].err, "list case %zu: %s", i, logrep_err_name(ev.error));
            cr_assert_eq(ev.offset, -1);
        }
    }
    teardown(&w);
}

Test(node_inproc, not_enough_replicas_and_acks_all_timeout, .timeout = 120)
{
    extra_conf = fast_isr;
    net w;
    setup(&w, 3);
    run(&w, 1000);
    cr_assert_eq(create_cfg(&w, 2, "strict", 1, 3, "min.insync.replicas", "3"), 0);
    cr_assert_eq(create(&w, 2, "t", 1, 3), 0);
    int l = ready_leader(&w, "strict");
    cr_assert_eq(leader_of(&w, 1, "t", 0, NULL), l, "both topics led by the same node");
    /* One follower down (not the controller): after replica.lag.time.max.ms
     * the ISR shrinks below min.insync.replicas=3. */
    int down = other(&w, l, 1);
    kill_node(&w, down);
    uint8_t b[256];
    size_t n = values_batch(b, sizeof b, "v", 1, 1000);
    /* A caught-up follower stays in sync, as in Kafka: the log moves on. */
    cr_assert_eq(produce_ev(&w, l, "strict", 0, b, n, 1, 0).error, 0);
    run(&w, 2500);
    logrep_node_event ev = produce_ev(&w, l, "strict", 0, b, n, -1, 1);
    cr_assert_eq(ev.error, LOGREP_ERR_NOT_ENOUGH_REPLICAS, "%s", logrep_err_name(ev.error));
    cr_assert_eq(ev.base_offset, -1);
    cr_assert_eq(produce_ev(&w, l, "strict", 0, b, n, 1, 2).error, 0);
    teardown(&w);
    extra_conf = NULL;

    /* Followers down before the ISR shrinks (the default 30 s lag): an
     * acks=all produce times out. */
    setup(&w, 3);
    run(&w, 1000);
    cr_assert_eq(create(&w, 1, "t", 1, 3), 0);
    l = ready_leader(&w, "t");
    down = other(&w, l, 1);
    kill_node(&w, down);
    cr_assert_eq(logrep_node_produce(w.node[l], "t", 0, b, n, -1, 500, 3, w.now), LOGREP_OK);
    run(&w, 400);
    no_event(&w, l);
    ev = next_event(&w, l, LOGREP_NODE_EV_PRODUCE, 3, 1000);
    cr_assert_eq(ev.error, LOGREP_ERR_REQUEST_TIMED_OUT, "%s", logrep_err_name(ev.error));
    cr_assert_eq(ev.base_offset, -1);
    teardown(&w);
}

/* Takes node id off the network (its connections close) without freeing
 * it: as far as the cluster can tell it died. */
static logrep_node *pause_node(net *w, int id)
{
    logrep_node *n = w->node[id];
    w->node[id] = NULL;
    lr_memnet_set_node(w->mn, id, NULL);
    return n;
}

/* Back on the network: as a host would, it is told that every connection
 * it had closed meanwhile. */
static void resume_node(net *w, int id, logrep_node *n)
{
    w->node[id] = n;
    lr_memnet_set_node(w->mn, id, n);
    for (uint64_t c = 1; c < lr_memnet_end_limit(w->mn); c++)
        logrep_node_closed(n, c, w->now);
}

Test(node_inproc, leader_lost_under_acks_all, .timeout = 120)
{
    net w;
    setup(&w, 4);
    run(&w, 1000);
    cr_assert_eq(create(&w, 1, "t", 4, 3), 0);
    run(&w, 1500);
    /* A partition led by a broker other than the controller's node. */
    int32_t part = -1;
    int l = -1;
    for (int32_t p = 0; p < 4 && part < 0; p++) {
        l = leader_of(&w, 1, "t", p, NULL);
        if (l > 1)
            part = p;
    }
    cr_assert_geq(part, 0);
    /* A follower of it other than node 1 goes down: the HW waits. */
    int down = -1;
    for (int id = 2; id <= 4; id++) {
        for (size_t i = 0; id != l && i < logrep_node_partition_count(w.node[id]); i++) {
            logrep_node_partition_info pi;
            logrep_node_partition(w.node[id], i, &pi);
            if (!strcmp(pi.topic, "t") && pi.partition == part && pi.role == 2)
                down = id;
        }
    }
    cr_assert_gt(down, 0);
    kill_node(&w, down);
    uint8_t b[256];
    size_t n = values_batch(b, sizeof b, "v", 1, 1000);
    cr_assert_eq(logrep_node_produce(w.node[l], "t", part, b, n, -1, 60000, 9, w.now), LOGREP_OK);
    run(&w, 100);
    no_event(&w, l);
    /* The leader goes away: the controller fences it and elects another. */
    logrep_node *ln = pause_node(&w, l);
    int nl = l;
    for (int i = 0; i < 200 && (nl == l || nl < 0); i++) {
        run(&w, 100);
        nl = leader_of(&w, 1, "t", part, NULL);
    }
    cr_assert(nl != l && nl > 0, "a new leader");
    /* It comes back: it learns it no longer leads, and its call is
     * answered (with an error, or OK had the HW passed it first). */
    resume_node(&w, l, ln);
    logrep_node_event ev = next_event(&w, l, LOGREP_NODE_EV_PRODUCE, 9, 20000);
    cr_assert(ev.error == LOGREP_ERR_NOT_LEADER_OR_FOLLOWER ||
                  ev.error == LOGREP_ERR_REQUEST_TIMED_OUT || ev.error == 0,
              "%s", logrep_err_name(ev.error));
    teardown(&w);
}

Test(node_inproc, forwarded_admin_timeout_and_lost_controller, .timeout = 120)
{
    net w;
    setup(&w, 2);
    run(&w, 1000);
    /* A timeout shorter than the round trip: the broker's tick (before
     * the network runs) times the call out; the controller's answer
     * comes later and is dropped. The topic exists all the same. */
    cr_assert_eq(logrep_node_create_topic(w.node[2], "late", 1, 1, NULL, NULL, 0, 0, 1, w.now),
                 LOGREP_OK);
    logrep_node_event ev = next_event(&w, 2, LOGREP_NODE_EV_CREATE_TOPIC, 1, 100);
    cr_assert_eq(ev.error, LOGREP_ERR_REQUEST_TIMED_OUT, "%s", logrep_err_name(ev.error));
    run(&w, 100);
    no_event(&w, 2);
    cr_assert_eq(create(&w, 2, "late", 1, 1), LOGREP_ERR_TOPIC_ALREADY_EXISTS);
    cr_assert_eq(logrep_node_delete_topic(w.node[2], "late", 0, 2, w.now), LOGREP_OK);
    ev = next_event(&w, 2, LOGREP_NODE_EV_DELETE_TOPIC, 2, 100);
    cr_assert_eq(ev.error, LOGREP_ERR_REQUEST_TIMED_OUT, "%s", logrep_err_name(ev.error));
    run(&w, 100);
    no_event(&w, 2);
    cr_assert_eq(delete_topic(&w, 2, "late"), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    /* The controller away: its connection fails, or no answer comes. */
    logrep_node *ctl = pause_node(&w, 1);
    cr_assert_eq(logrep_node_create_topic(w.node[2], "t", 1, 1, NULL, NULL, 0, 300, 1, w.now),
                 LOGREP_OK);
    ev = next_event(&w, 2, LOGREP_NODE_EV_CREATE_TOPIC, 1, 2000);
    cr_assert(ev.error == LOGREP_ERR_REQUEST_TIMED_OUT || ev.error == LOGREP_ERR_NOT_CONTROLLER,
              "%s", logrep_err_name(ev.error));
    cr_assert_eq(logrep_node_delete_topic(w.node[2], "t", 300, 2, w.now), LOGREP_OK);
    ev = next_event(&w, 2, LOGREP_NODE_EV_DELETE_TOPIC, 2, 2000);
    cr_assert(ev.error == LOGREP_ERR_REQUEST_TIMED_OUT || ev.error == LOGREP_ERR_NOT_CONTROLLER,
              "%s", logrep_err_name(ev.error));
    resume_node(&w, 1, ctl);
    run(&w, 3000);
    cr_assert_eq(create(&w, 2, "t", 1, 1), 0);
    /* A request in flight when the controller's connection drops. */
    cr_assert_eq(logrep_node_create_topic(w.node[2], "u", 1, 1, NULL, NULL, 0, 5000, 3, w.now),
                 LOGREP_OK);
    kill_node(&w, 1);
    ev = next_event(&w, 2, LOGREP_NODE_EV_CREATE_TOPIC, 3, 1000);
    cr_assert_eq(ev.error, LOGREP_ERR_NOT_CONTROLLER, "%s", logrep_err_name(ev.error));
    teardown(&w);
}

Test(node_inproc, invalid_arguments, .timeout = 60)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    cr_assert_eq(create(&w, 1, "t", 1, 1), 0);
    run(&w, 500);
    logrep_node *n = w.node[1];
    uint8_t b[256];
    size_t len = values_batch(b, sizeof b, "v", 1, 1000);
    int64_t now = w.now;
    const logrep_err inv = LOGREP_ERR__INVALID_ARG;
    cr_assert_eq(logrep_node_produce(NULL, "t", 0, b, len, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_produce(n, NULL, 0, b, len, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_produce(n, "t", -1, b, len, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_produce(n, "t", 0, NULL, len, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_produce(n, "t", 0, b, 0, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_produce(n, "t", 0, b, len, 1, -1, 1, now), inv);
    cr_assert_eq(logrep_node_fetch(NULL, "t", 0, 0, 100, 0, 0, 1, now), inv);
    cr_assert_eq(logrep_node_fetch(n, NULL, 0, 0, 100, 0, 0, 1, now), inv);
    cr_assert_eq(logrep_node_fetch(n, "t", -1, 0, 100, 0, 0, 1, now), inv);
    cr_assert_eq(logrep_node_fetch(n, "t", 0, 0, -1, 0, 0, 1, now), inv);
    cr_assert_eq(logrep_node_fetch(n, "t", 0, 0, 100, 0, -1, 1, now), inv);
    cr_assert_eq(logrep_node_list_offsets(NULL, "t", 0, -1, 0, 1, now), inv);
    cr_assert_eq(logrep_node_list_offsets(n, NULL, 0, -1, 0, 1, now), inv);
    cr_assert_eq(logrep_node_list_offsets(n, "t", -1, -1, 0, 1, now), inv);
    const char *names[] = {"retention.ms"}, *values[] = {"1000"}, *null_name[] = {NULL};
    cr_assert_eq(logrep_node_create_topic(NULL, "u", 1, 1, NULL, NULL, 0, 100, 1, now), inv);
    cr_assert_eq(logrep_node_create_topic(n, NULL, 1, 1, NULL, NULL, 0, 100, 1, now), inv);
    cr_assert_eq(logrep_node_create_topic(n, "u", 1, 1, NULL, NULL, 0, -1, 1, now), inv);
    cr_assert_eq(logrep_node_create_topic(n, "u", 1, 1, NULL, values, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_create_topic(n, "u", 1, 1, names, NULL, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_create_topic(n, "u", 1, 1, null_name, values, 1, 100, 1, now), inv);
    cr_assert_eq(logrep_node_delete_topic(NULL, "t", 100, 1, now), inv);
    cr_assert_eq(logrep_node_delete_topic(n, NULL, 100, 1, now), inv);
    cr_assert_eq(logrep_node_delete_topic(n, "t", -1, 1, now), inv);
    logrep_node_event ev;
    cr_assert_eq(logrep_node_poll(NULL, &ev), 0);
    cr_assert_eq(logrep_node_poll(n, NULL), 0);
    run(&w, 100);
    no_event(&w, 1); /* refused calls leave no event */
    teardown(&w);
}

/* Leaves events queued (one polled) and calls pending on leader l, and a
 * forwarded creation in flight on broker b. */
static void leave_work(net *w, int l, int b)
{
    logrep_node *n = w->node[l];
    uint8_t buf[256];
    size_t len = values_batch(buf, sizeof buf, "v", 1, 1000);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(logrep_node_produce(n, "t", 0, buf, len, 1, 5000, 1, w->now), LOGREP_OK);
    cr_assert_eq(logrep_node_fetch(n, "t", 0, 0, 1 << 20, 0, 0, 2, w->now), LOGREP_OK);
    cr_assert_eq(logrep_node_list_offsets(n, "t", 0, -2, 0, 3, w->now), LOGREP_OK);
    /* Polled once: its pointers are the node's until the next poll. */
    logrep_node_event ev;
    cr_assert(logrep_node_poll(n, &ev));
    /* Pending: long-poll fetches, an acks=all produce, a creation. */
    cr_assert_eq(logrep_node_fetch(n, "t", 0, 100000, 1 << 20, 0, 60000, 4, w->now), LOGREP_OK);
    cr_assert_eq(logrep_node_fetch(n, "t", 0, 3, 1 << 20, 0, 60000, 4, w->now), LOGREP_OK);
    cr_assert_eq(logrep_node_produce(n, "t", 0, buf, len, -1, 60000, 5, w->now), LOGREP_OK);
    cr_assert_eq(logrep_node_create_topic(w->node[b], "u", 1, 1, NULL, NULL, 0, 5000, 6, w->now),
                 LOGREP_OK);
}

Test(node_inproc, freed_with_events_queued_and_calls_pending, .timeout = 60)
{
    net w;
    setup(&w, 3);
    run(&w, 1000);
    /* Every node again on a counting heap: what a node frees is counted. */
    tu_heap heap[4];
    logrep_allocator alloc[4];
    memset(heap, 0, sizeof heap);
    for (int id = 1; id <= 3; id++) {
        alloc[id] = tu_heap_allocator(&heap[id]);
        kill_node(&w, id);
        w.alloc[id] = &alloc[id];
        start_node(&w, id);
    }
    run(&w, 3000);
    cr_assert_eq(create(&w, 1, "t", 1, 3), 0);
    int l = ready_leader(&w, "t");
    int b = l != 1 ? l : other(&w, 1, -1); /* a broker: it forwards */
    leave_work(&w, l, b);
    /* Killed (no flush) with all of it: nothing is left behind. */
    kill_node(&w, l);
    cr_assert_eq(heap[l].live_blocks, 0, "node %d: %ld blocks left", l, heap[l].live_blocks);
    if (b != l) {
        kill_node(&w, b);
        cr_assert_eq(heap[b].live_blocks, 0, "node %d: %ld blocks left", b, heap[b].live_blocks);
    }
    /* Started again, the same once more, freed by the teardown. */
    start_node(&w, l);
    if (b != l)
        start_node(&w, b);
    run(&w, 3000);
    l = ready_leader(&w, "t");
    b = l != 1 ? l : other(&w, 1, -1);
    leave_work(&w, l, b);
    teardown(&w);
    for (int id = 1; id <= 3; id++)
        cr_assert_eq(heap[id].live_blocks, 0, "node %d: %ld blocks left", id, heap[id].live_blocks);
}
