/* The public replica API (include/logrep/partition.h): three replicas over
 * memory storage, the test as their controller (elections, ISR answers)
 * and as their transport (each fetch carried by hand), so every step of a
 * failover is an exact schedule (docs/replication.md §1, §3). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/partition.h>
#include <logrep/storage.h>

#include "lib/testutil.h"

#define N 3
#define LAG 10000
#define MAX_EVENTS 64

enum { A = 1, B = 2, C = 3 };

typedef struct net {
    logrep_conf *conf;
    logrep_storage *st[N + 1];
    logrep_partition *p[N + 1]; /* by replica id 1..N; NULL: down */
    logrep_leadership ctl;      /* the controller's view */
    int64_t now;
    uint64_t token;
} net;

static void up(net *n, int id)
{
    logrep_log *log;
    cr_assert_eq(logrep_log_open(n->conf, n->st[id], "events-0", n->now, &log), LOGREP_OK);
    cr_assert_eq(logrep_partition_new(n->conf, id, log, &n->p[id]), LOGREP_OK);
}

static void net_init(net *n, int min_isr)
{
    memset(n, 0, sizeof *n);
    n->now = 1000;
    n->conf = logrep_conf_new();
    char v[16];
    snprintf(v, sizeof v, "%d", min_isr);
    cr_assert_eq(logrep_conf_set(n->conf, "min.insync.replicas", v, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(n->conf, "replica.lag.time.max.ms", "10000", NULL, 0), LOGREP_OK);
    for (int id = 1; id <= N; id++) {
        cr_assert_eq(logrep_storage_memory_new(NULL, &n->st[id]), LOGREP_OK);
        up(n, id);
        n->ctl.replicas[n->ctl.n_replicas++] = id;
    }
    n->ctl.leader = -1;
    n->ctl.leader_epoch = -1;
    n->ctl.partition_epoch = -1;
}

static void net_free(net *n)
{
    for (int id = 1; id <= N; id++) {
        logrep_partition_free(n->p[id], 0);
        logrep_storage_free(n->st[id]);
    }
    logrep_conf_free(n->conf);
}

/* The controller's decision reaches every live replica. */
static void publish(net *n)
{
    for (int id = 1; id <= N; id++)
        if (n->p[id])
            cr_assert_eq(logrep_partition_apply(n->p[id], &n->ctl, n->now), LOGREP_OK);
}

/* Elects `leader` in a new epoch with the ISR `isr` (0-terminated). */
static void elect(net *n, int leader, const int *isr)
{
    n->ctl.leader = leader;
    n->ctl.leader_epoch++;
    n->ctl.partition_epoch++;
    n->ctl.n_isr = 0;
    for (int i = 0; isr[i]; i++)
        n->ctl.isr[n->ctl.n_isr++] = isr[i];
    publish(n);
}

/* A one-record batch built with the public builder; caller frees. */
static void *batch(const char *value, size_t *len)
{
    logrep_batch_builder *b;
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add(b, 1700000000000LL + (int64_t)strlen(value), "k", 1,
                                          value, (int32_t)strlen(value), NULL, 0),
                 LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), LOGREP_OK);
    void *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

static logrep_produce_result produce(net *n, int id, const char *value, int16_t acks)
{
    size_t len;
    void *buf = batch(value, &len);
    logrep_produce_result r;
    logrep_err e = logrep_partition_produce(n->p[id], buf, len, acks, 30000, ++n->token, n->now, &r);
    cr_assert_eq(e, r.error, "the return value is the result's error");
    free(buf);
    return r;
}

/* One fetch of follower `id`, carried to its leader and back. Returns the
 * leader's answer (LOGREP_ERR__AGAIN: nothing to send). */
static logrep_err fetch_once(net *n, int id)
{
    logrep_follower_fetch ff;
    if (logrep_partition_next_fetch(n->p[id], &ff) != LOGREP_OK)
        return LOGREP_ERR__AGAIN;
    logrep_partition *leader = n->p[ff.leader];
    if (!leader) { /* down: the request is lost */
        logrep_partition_fetch_failed(n->p[id]);
        return LOGREP_ERR__AGAIN;
    }
    logrep_fetch_request req = {id, ff.current_leader_epoch, ff.last_fetched_epoch,
                                ff.fetch_offset, 1 << 20, 0};
    logrep_fetch_result res;
    logrep_partition_fetch(leader, &req, n->now, &res);
    void *bytes = res.slice.length ? malloc(res.slice.length) : NULL;
    if (bytes)
        cr_assert_eq(logrep_partition_read_slice(leader, &res.slice, bytes, res.slice.length),
                     LOGREP_OK);
    cr_assert_eq(logrep_partition_fetch_response(n->p[id], &ff, &res, bytes, res.slice.length,
                                                 n->now),
                 LOGREP_OK);
    free(bytes);
    return res.error;
}

static void settle(net *n)
{
    for (int round = 0; round < 8; round++)
        for (int id = 1; id <= N; id++)
            if (n->p[id])
                fetch_once(n, id);
}

/* Every event of replica id, in order; returns the count. */
static int drain(net *n, int id, logrep_partition_event *ev)
{
    int k = 0;
    while (k < MAX_EVENTS && logrep_partition_poll(n->p[id], n->now, &ev[k]))
        k++;
    return k;
}

/* The controller commits an ISR proposal: a new partition epoch, the
 * answer to the leader, the news to the others. */
static void commit_isr(net *n, const logrep_isr_proposal *prop)
{
    cr_assert_eq(prop->leader_epoch, n->ctl.leader_epoch);
    cr_assert_eq(prop->partition_epoch, n->ctl.partition_epoch);
    n->ctl.partition_epoch++;
    n->ctl.n_isr = prop->n_isr;
    memcpy(n->ctl.isr, prop->isr, (size_t)prop->n_isr * sizeof *prop->isr);
    cr_assert_eq(logrep_partition_isr_result(n->p[n->ctl.leader], prop->id, LOGREP_OK,
                                             n->ctl.partition_epoch, prop->isr, prop->n_isr,
                                             n->now),
                 LOGREP_OK);
    for (int id = 1; id <= N; id++)
        if (n->p[id] && id != n->ctl.leader)
            cr_assert_eq(logrep_partition_apply(n->p[id], &n->ctl, n->now), LOGREP_OK);
}

/* The one ISR proposal among the leader's events (others are checked by
 * the caller through the count). */
static int take_proposal(net *n, logrep_isr_proposal *out)
{
    logrep_partition_event ev[MAX_EVENTS];
    int k = drain(n, n->ctl.leader, ev), found = 0;
    for (int i = 0; i < k; i++)
        if (ev[i].type == LOGREP_PARTITION_EV_ISR_CHANGE) {
            *out = ev[i].isr;
            found++;
        }
    return found;
}

/* The value of the record at `offset` on replica id, read through the
 * public log and slice calls; NULL when absent. */
static char *value_at(net *n, int id, int64_t offset)
{
    logrep_log_slice s;
    if (logrep_log_read(logrep_partition_log(n->p[id]), offset, 1 << 20, INT64_MAX, 1, &s) !=
            LOGREP_OK ||
        !s.length)
        return NULL;
    uint8_t *buf = malloc(s.length);
    cr_assert_eq(logrep_partition_read_slice(n->p[id], &s, buf, s.length), LOGREP_OK);
    char *out = tu_record_value(buf, s.length, offset);
    free(buf);
    return out;
}

static void expect_value(net *n, int id, int64_t offset, const char *want)
{
    char *v = value_at(n, id, offset);
    cr_assert_not_null(v, "replica %d has nothing at %lld", id, (long long)offset);
    cr_assert_str_eq(v, want, "replica %d at %lld", id, (long long)offset);
    free(v);
}

static logrep_partition_state state(net *n, int id)
{
    logrep_partition_state s;
    logrep_partition_state_get(n->p[id], &s);
    return s;
}

/* ------------------------------------------------------------ produce */

Test(partition_api, acks_all_completes_as_an_event_once_followers_fetched)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_LEADER);
    cr_assert_eq(state(&n, B).role, LOGREP_ROLE_FOLLOWER);
    logrep_produce_result r = produce(&n, A, "m0", -1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert(r.pending);
    cr_assert_eq(r.base_offset, 0);
    cr_assert_eq(state(&n, A).pending_produces, 1);
    logrep_partition_event ev[MAX_EVENTS];
    cr_assert_eq(drain(&n, A, ev), 0, "nothing before the followers fetched");
    fetch_once(&n, B); /* B copies m0 */
    fetch_once(&n, C);
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 0);
    fetch_once(&n, B); /* their next fetches report LEO 1 */
    fetch_once(&n, C);
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 1);
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now, "events wait");
    cr_assert_eq(drain(&n, A, ev), 2);
    cr_assert_eq(ev[0].type, LOGREP_PARTITION_EV_PRODUCE, "completions come first");
    cr_assert_eq(ev[0].produce.token, r.token);
    cr_assert_eq(ev[0].produce.error, LOGREP_OK);
    cr_assert_eq(ev[0].produce.base_offset, 0);
    cr_assert_eq(ev[0].produce.pending, 0);
    cr_assert_eq(ev[1].type, LOGREP_PARTITION_EV_HIGH_WATERMARK);
    cr_assert_eq(ev[1].high_watermark, 1);
    cr_assert_eq(drain(&n, A, ev), 0, "one event per high watermark change");
    /* Followers learn the HW on their next fetch, and report it too. */
    fetch_once(&n, B);
    cr_assert_eq(logrep_partition_high_watermark(n.p[B]), 1);
    cr_assert_eq(drain(&n, B, ev), 1);
    cr_assert_eq(ev[0].type, LOGREP_PARTITION_EV_HIGH_WATERMARK);
    expect_value(&n, B, 0, "m0");
    net_free(&n);
}

Test(partition_api, acks_zero_and_one_answer_at_once)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    logrep_produce_result r = produce(&n, A, "one", 1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert_eq(r.pending, 0);
    cr_assert_eq(r.base_offset, 0);
    cr_assert_eq(r.log_append_time, -1);
    r = produce(&n, A, "zero", 0);
    cr_assert_eq(r.base_offset, 1);
    cr_assert_eq(r.pending, 0);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 2);
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 0, "not replicated yet");
    settle(&n);
    for (int id = A; id <= C; id++) {
        cr_assert_eq(logrep_partition_high_watermark(n.p[id]), 2);
        expect_value(&n, id, 1, "zero");
    }
    net_free(&n);
}

Test(partition_api, produce_errors)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    cr_assert_eq(produce(&n, B, "x", 1).error, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    logrep_produce_result r = produce(&n, A, "x", 2);
    cr_assert_eq(r.error, LOGREP_ERR_INVALID_REQUIRED_ACKS);
    cr_assert_eq(r.base_offset, -1);
    cr_assert_eq(produce(&n, A, "x", -2).error, LOGREP_ERR_INVALID_REQUIRED_ACKS);
    /* Bytes that are no batch, and two batches at once. */
    size_t len;
    uint8_t *two = batch("first", &len);
    two = realloc(two, 2 * len);
    memcpy(two + len, two, len);
    cr_assert_eq(logrep_partition_produce(n.p[A], two, 2 * len, 1, 1000, 1, n.now, &r),
                 LOGREP_ERR_INVALID_RECORD);
    two[len - 1] ^= 0xff; /* the first batch's CRC no longer matches */
    cr_assert_eq(logrep_partition_produce(n.p[A], two, len, 1, 1000, 1, n.now, &r),
                 LOGREP_ERR_CORRUPT_MESSAGE);
    free(two);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 0, "nothing appended");
    /* ISR below min.insync.replicas: acks=all refused before the append. */
    elect(&n, A, (int[]){A, 0});
    cr_assert(state(&n, A).under_min_isr);
    cr_assert_eq(produce(&n, A, "x", -1).error, LOGREP_ERR_NOT_ENOUGH_REPLICAS);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 0);
    cr_assert_eq(produce(&n, A, "y", 1).error, LOGREP_OK, "acks=1 does not check the ISR");
    net_free(&n);
}

Test(partition_api, pending_produces_fail_on_leadership_change_and_time_out)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    logrep_produce_result r = produce(&n, A, "lost-leadership", -1);
    cr_assert(r.pending);
    elect(&n, B, (int[]){A, B, C, 0});
    logrep_partition_event ev[MAX_EVENTS];
    cr_assert_eq(drain(&n, A, ev), 1);
    cr_assert_eq(ev[0].type, LOGREP_PARTITION_EV_PRODUCE);
    cr_assert_eq(ev[0].produce.token, r.token);
    cr_assert_eq(ev[0].produce.error, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(ev[0].produce.base_offset, -1);

    /* On B, a write nobody fetches times out (30 s, before the ISR lag). */
    settle(&n);
    drain(&n, B, ev);
    size_t len;
    void *buf = batch("timed-out", &len);
    cr_assert_eq(logrep_partition_produce(n.p[B], buf, len, -1, 500, 77, n.now, &r), LOGREP_OK);
    free(buf);
    cr_assert(r.pending);
    int64_t next = logrep_partition_tick(n.p[B], n.now);
    cr_assert_eq(next, n.now + 500, "the produce timeout is the next timer");
    n.now = next;
    logrep_partition_tick(n.p[B], n.now);
    cr_assert_eq(drain(&n, B, ev), 1);
    cr_assert_eq(ev[0].produce.token, 77);
    cr_assert_eq(ev[0].produce.error, LOGREP_ERR_REQUEST_TIMED_OUT);
    net_free(&n);
}

/* ------------------------------------------------------------ ISR */

Test(partition_api, isr_shrinks_when_a_follower_stops_fetching_and_expands_when_back)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    logrep_produce_result r = produce(&n, A, "m0", -1);
    fetch_once(&n, B);
    fetch_once(&n, B); /* B caught up; C stopped fetching */
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 0, "C holds the HW");
    logrep_isr_proposal prop;
    int64_t t0 = n.now;
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), t0 + LAG, "C's expiry, capped");
    n.now += LAG;
    fetch_once(&n, B);
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), t0 + LAG + 1);
    cr_assert_eq(take_proposal(&n, &prop), 0, "C is not late yet");
    n.now = t0 + LAG + 1;
    fetch_once(&n, B);
    logrep_partition_tick(n.p[A], n.now);
    cr_assert_eq(take_proposal(&n, &prop), 1);
    cr_assert_eq(prop.n_isr, 2);
    cr_assert_eq(prop.isr[0], A);
    cr_assert_eq(prop.isr[1], B);
    cr_assert_eq(prop.leader_epoch, n.ctl.leader_epoch);
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 0, "a shrink counts once committed");
    commit_isr(&n, &prop);
    cr_assert_eq(state(&n, A).n_isr, 2);
    cr_assert_eq(state(&n, A).partition_epoch, n.ctl.partition_epoch);
    cr_assert_eq(logrep_partition_high_watermark(n.p[A]), 1);
    logrep_partition_event ev[MAX_EVENTS];
    cr_assert_eq(drain(&n, A, ev), 2);
    cr_assert_eq(ev[0].produce.token, r.token);
    cr_assert_eq(ev[0].produce.error, LOGREP_OK);

    /* C returns, catches up and is proposed back; the addition counts for
     * the HW at once (maximal ISR). */
    fetch_once(&n, C);
    cr_assert_eq(take_proposal(&n, &prop), 0, "C is below the HW");
    fetch_once(&n, C);
    cr_assert_eq(take_proposal(&n, &prop), 1);
    cr_assert_eq(prop.n_isr, 3);
    cr_assert_eq(state(&n, A).n_maximal_isr, 3);
    cr_assert_eq(state(&n, A).n_isr, 2);
    commit_isr(&n, &prop);
    cr_assert_eq(state(&n, A).n_isr, 3);
    cr_assert_eq(state(&n, C).partition_epoch, n.ctl.partition_epoch);
    net_free(&n);
}

Test(partition_api, isr_answers_refused_retried_and_stale)
{
    net n;
    net_init(&n, 1);
    elect(&n, A, (int[]){A, B, 0});
    fetch_once(&n, C); /* C at the HW: proposed */
    logrep_isr_proposal first, again;
    cr_assert_eq(take_proposal(&n, &first), 1);
    cr_assert_eq(first.n_isr, 3);
    /* An answer to another proposal changes nothing. */
    cr_assert_eq(logrep_partition_isr_result(n.p[A], first.id + 1, LOGREP_ERR_INELIGIBLE_REPLICA,
                                             0, NULL, 0, n.now),
                 LOGREP_OK);
    cr_assert_eq(state(&n, A).n_maximal_isr, 3);
    /* Unknown outcome: proposed again after a short delay, same id. */
    cr_assert_eq(logrep_partition_isr_result(n.p[A], first.id, LOGREP_ERR_REQUEST_TIMED_OUT, 0,
                                             NULL, 0, n.now),
                 LOGREP_OK);
    cr_assert_eq(take_proposal(&n, &again), 0);
    int64_t next = logrep_partition_tick(n.p[A], n.now);
    cr_assert_gt(next, n.now);
    n.now = next;
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now);
    cr_assert_eq(take_proposal(&n, &again), 1);
    cr_assert_eq(again.id, first.id);
    /* Refused: the committed ISR stands. */
    cr_assert_eq(logrep_partition_isr_result(n.p[A], again.id, LOGREP_ERR_INELIGIBLE_REPLICA, 0,
                                             NULL, 0, n.now),
                 LOGREP_OK);
    cr_assert_eq(state(&n, A).n_maximal_isr, 2);
    net_free(&n);
}

/* ------------------------------------------------------------ failover */

/* The leader takes writes no follower has fetched and crashes; a new
 * leader is elected from the ISR with a higher epoch; the old leader's
 * log is reopened and it rejoins as a follower, truncating its divergent
 * tail through the diverging epoch (S1, S4); nothing acknowledged is lost. */
Test(partition_api, leader_crash_reelection_and_divergent_tail_truncated)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    const char *acked[32];
    int64_t acked_at[32];
    int n_acked = 0;
    char vals[8][16];
    for (int i = 0; i < 4; i++) {
        snprintf(vals[i], sizeof vals[i], "a%d", i);
        logrep_produce_result r = produce(&n, A, vals[i], -1);
        cr_assert(r.pending);
        settle(&n);
        logrep_partition_event ev[MAX_EVENTS];
        cr_assert_geq(drain(&n, A, ev), 1);
        cr_assert_eq(ev[0].produce.error, LOGREP_OK);
        acked[n_acked] = vals[i];
        acked_at[n_acked++] = ev[0].produce.base_offset;
    }
    /* Unreplicated tail on A: acks=1 and an acks=all still pending. */
    cr_assert_eq(produce(&n, A, "tail-1", 1).base_offset, 4);
    cr_assert_eq(produce(&n, A, "tail-2", -1).base_offset, 5);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 6);
    logrep_partition_free(n.p[A], 1); /* crash: nothing flushed */
    n.p[A] = NULL;

    /* The controller elects B from the rest of the ISR. */
    int32_t old_epoch = n.ctl.leader_epoch;
    elect(&n, B, (int[]){B, C, 0});
    cr_assert_gt(logrep_partition_leader_epoch(n.p[B]), old_epoch);
    for (int i = 4; i < 7; i++) {
        snprintf(vals[i], sizeof vals[i], "b%d", i);
        logrep_produce_result r = produce(&n, B, vals[i], -1);
        cr_assert_eq(r.error, LOGREP_OK, "ISR {B, C} meets min.insync.replicas");
        settle(&n);
        logrep_partition_event ev[MAX_EVENTS];
        cr_assert_geq(drain(&n, B, ev), 1);
        cr_assert_eq(ev[0].produce.token, r.token);
        cr_assert_eq(ev[0].produce.error, LOGREP_OK);
        acked[n_acked] = vals[i];
        acked_at[n_acked++] = ev[0].produce.base_offset;
    }
    cr_assert_eq(acked_at[n_acked - 3], 4, "B's epoch starts where its log ended");

    /* A comes back: its log reopened over the same storage, as follower. */
    up(&n, A);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 6, "the tail survived the crash");
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_NONE, "no role before the controller speaks");
    cr_assert_eq(logrep_partition_apply(n.p[A], &n.ctl, n.now), LOGREP_OK);
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_FOLLOWER);
    logrep_follower_fetch ff;
    cr_assert_eq(logrep_partition_next_fetch(n.p[A], &ff), LOGREP_OK);
    cr_assert_eq(logrep_partition_next_fetch(n.p[A], &ff), LOGREP_ERR__AGAIN, "one in flight");
    logrep_partition_fetch_failed(n.p[A]);
    /* The first answer carries the diverging epoch: A truncates to 4. */
    cr_assert_eq(logrep_partition_next_fetch(n.p[A], &ff), LOGREP_OK);
    logrep_fetch_request req = {A, ff.current_leader_epoch, ff.last_fetched_epoch, ff.fetch_offset,
                                1 << 20, 0};
    logrep_fetch_result res;
    cr_assert_eq(logrep_partition_fetch(n.p[B], &req, n.now, &res), LOGREP_OK);
    cr_assert_eq(res.diverging_epoch, old_epoch);
    cr_assert_eq(res.diverging_end_offset, 4);
    cr_assert_eq(res.slice.length, 0u);
    cr_assert_eq(logrep_partition_fetch_response(n.p[A], &ff, &res, NULL, 0, n.now), LOGREP_OK);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), 4, "the divergent tail is gone");
    settle(&n);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), logrep_partition_log_end_offset(n.p[B]));
    /* Caught up: B proposes A back into the ISR. */
    logrep_isr_proposal prop;
    cr_assert_eq(take_proposal(&n, &prop), 1);
    cr_assert_eq(prop.n_isr, 3);
    commit_isr(&n, &prop);
    settle(&n);
    for (int id = A; id <= C; id++) {
        cr_assert_eq(logrep_partition_high_watermark(n.p[id]), 7);
        for (int k = 0; k < n_acked; k++)
            expect_value(&n, id, acked_at[k], acked[k]);
        char *v = value_at(&n, id, 4);
        cr_assert_str_neq(v, "tail-1");
        free(v);
    }
    net_free(&n);
}

/* ------------------------------------------------------------ fetch, offsets */

/* An ISR change keeps a follower's fetch in flight; a new leader epoch
 * forgets it, and its late answer changes nothing. */
Test(partition_api, fetch_in_flight_across_leadership)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    produce(&n, A, "m0", 1);
    logrep_follower_fetch ff, again;
    cr_assert_eq(logrep_partition_next_fetch(n.p[B], &ff), LOGREP_OK);
    n.ctl.partition_epoch++;
    n.ctl.n_isr = 2; /* the controller drops C */
    publish(&n);
    cr_assert_eq(logrep_partition_next_fetch(n.p[B], &again), LOGREP_ERR__AGAIN);
    logrep_fetch_request req = {B, ff.current_leader_epoch, ff.last_fetched_epoch,
                                ff.fetch_offset, 1 << 20, 0};
    logrep_fetch_result res;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_OK);
    uint8_t buf[4096];
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &res.slice, buf, sizeof buf), LOGREP_OK);
    elect(&n, A, (int[]){A, B, 0});
    cr_assert_eq(logrep_partition_next_fetch(n.p[B], &again), LOGREP_OK, "a new epoch");
    cr_assert_eq(logrep_partition_fetch_response(n.p[B], &ff, &res, buf, res.slice.length,
                                                 n.now),
                 LOGREP_OK);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[B]), 0, "the old epoch's answer is dropped");
    net_free(&n);
}

Test(partition_api, fetch_errors_and_consumer_reads)
{
    net n;
    net_init(&n, 2);
    elect(&n, B, (int[]){A, B, C, 0});
    elect(&n, A, (int[]){A, B, C, 0}); /* epoch 1: epoch 0 can be fenced */
    produce(&n, A, "m0", 1);
    settle(&n);
    produce(&n, A, "m1", 1); /* above the HW */
    int32_t e = n.ctl.leader_epoch;
    logrep_fetch_result res;
    logrep_fetch_request req = {B, e - 1, -1, 0, 1 << 20, 0};
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_ERR_FENCED_LEADER_EPOCH);
    cr_assert_eq(res.error, LOGREP_ERR_FENCED_LEADER_EPOCH);
    req.current_leader_epoch = e + 1;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res),
                 LOGREP_ERR_UNKNOWN_LEADER_EPOCH);
    req.current_leader_epoch = e;
    req.fetch_offset = 3;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res),
                 LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    req.fetch_offset = 0;
    cr_assert_eq(logrep_partition_fetch(n.p[B], &req, n.now, &res),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, "followers fetch from the leader only");
    /* A consumer reads committed records only, from the leader or a
     * follower up to its own HW. */
    logrep_fetch_request con = {-1, -1, -1, 0, 1 << 20, 0};
    cr_assert_eq(logrep_partition_fetch(n.p[A], &con, n.now, &res), LOGREP_OK);
    cr_assert_eq(res.high_watermark, 1);
    cr_assert_eq(res.slice.first_offset, 0);
    cr_assert_eq(res.slice.next_offset, 1);
    cr_assert_eq(logrep_partition_fetch(n.p[B], &con, n.now, &res), LOGREP_OK);
    cr_assert_eq(res.slice.next_offset, 1);
    net_free(&n);
}

Test(partition_api, epoch_end_and_list_offsets)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    produce(&n, A, "m0", 1);
    produce(&n, A, "m1", 1);
    settle(&n);
    int32_t e1 = n.ctl.leader_epoch;
    elect(&n, A, (int[]){A, B, C, 0}); /* same leader, new epoch at offset 2 */
    produce(&n, A, "m2", 1);
    settle(&n);
    int32_t e2 = n.ctl.leader_epoch, ep;
    int64_t off, ts;
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], e2, e1, &ep, &off), LOGREP_OK);
    cr_assert_eq(ep, e1);
    cr_assert_eq(off, 2);
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], -1, e2, &ep, &off), LOGREP_OK);
    cr_assert_eq(off, 3, "the latest epoch ends at the log end");
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], e1, e1, &ep, &off),
                 LOGREP_ERR_FENCED_LEADER_EPOCH);
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], e2 + 1, e1, &ep, &off),
                 LOGREP_ERR_UNKNOWN_LEADER_EPOCH);
    cr_assert_eq(logrep_partition_epoch_end(n.p[B], -1, e1, &ep, &off),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);

    cr_assert_eq(logrep_partition_list_offsets(n.p[A], e2, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 3, "the high watermark");
    cr_assert_eq(ep, e2);
    produce(&n, A, "m3", 1); /* not committed: latest stays at the HW */
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, LOGREP_OFFSET_LATEST, 1, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 3);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, LOGREP_OFFSET_EARLIEST, 0, &off, &ts,
                                               &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 0);
    cr_assert_eq(ep, e1);
    /* By time: "m1" carries 1700000000000 + 2 like "m0"; the first wins. */
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, 1700000000002LL, 0, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 0);
    cr_assert_eq(ts, 1700000000002LL);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, 1800000000000LL, 0, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, -1, "no record that recent");
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], e1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_ERR_FENCED_LEADER_EPOCH);
    cr_assert_eq(logrep_partition_list_offsets(n.p[C], -1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    net_free(&n);
}

/* A new leader whose HW is below its epoch start answers ListOffsets
 * latest with OFFSET_NOT_AVAILABLE (S24); a failing disk is
 * KAFKA_STORAGE_ERROR, and nothing is appended. */
Test(partition_api, offset_not_available_and_storage_errors)
{
    net n;
    net_init(&n, 2);
    logrep_partition_free(n.p[A], 0);
    logrep_storage_free(n.st[A]);
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &n.st[A]), LOGREP_OK);
    up(&n, A);
    elect(&n, A, (int[]){A, B, C, 0});
    produce(&n, A, "m0", 1);
    produce(&n, A, "m1", 1);
    fetch_once(&n, B); /* B copies both; its HW stays 0 */
    cr_assert_eq(logrep_partition_log_end_offset(n.p[B]), 2);
    elect(&n, B, (int[]){A, B, C, 0});
    int64_t off, ts;
    int32_t ep;
    cr_assert_eq(logrep_partition_list_offsets(n.p[B], -1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_ERR_OFFSET_NOT_AVAILABLE);
    settle(&n);
    cr_assert_eq(logrep_partition_list_offsets(n.p[B], -1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 2);

    elect(&n, A, (int[]){A, B, C, 0});
    settle(&n);
    cr_assert_eq(logrep_storage_crash_inject(n.st[A], LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 1),
                 LOGREP_OK);
    int64_t end = logrep_partition_log_end_offset(n.p[A]);
    logrep_produce_result r = produce(&n, A, "lost", -1);
    cr_assert_eq(r.error, LOGREP_ERR_KAFKA_STORAGE_ERROR);
    cr_assert_eq(r.base_offset, -1);
    cr_assert_eq(r.pending, 0);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[A]), end);
    cr_assert_eq(logrep_storage_crash_inject(n.st[A], LOGREP_STORAGE_OP_ALL, 0, LOGREP_OK, 0),
                 LOGREP_OK);
    net_free(&n);
}

Test(partition_api, stale_leadership_is_ignored)
{
    net n;
    net_init(&n, 2);
    elect(&n, A, (int[]){A, B, C, 0});
    elect(&n, B, (int[]){A, B, C, 0});
    logrep_leadership old = n.ctl;
    old.leader = A;
    old.leader_epoch--;
    cr_assert_eq(logrep_partition_apply(n.p[A], &old, n.now), LOGREP_OK);
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_FOLLOWER, "an older leader epoch changes nothing");
    cr_assert_eq(state(&n, A).leader, B);
    old = n.ctl;
    old.partition_epoch--;
    old.n_isr = 1;
    old.isr[0] = B;
    cr_assert_eq(logrep_partition_apply(n.p[B], &old, n.now), LOGREP_OK);
    cr_assert_eq(state(&n, B).n_isr, 3, "an older partition epoch changes nothing");
    net_free(&n);
}

/* ------------------------------------------------------------ bad input */

Test(partition_api, every_bad_argument_is_refused)
{
    net n;
    net_init(&n, 2);
    logrep_partition *q = (logrep_partition *)1;
    /* new: the log is taken (closed) even when refused. */
    logrep_log *log;
    cr_assert_eq(logrep_log_open(NULL, n.st[A], "other-0", n.now, &log), LOGREP_OK);
    cr_assert_eq(logrep_partition_new(NULL, -1, log, &q), LOGREP_ERR__INVALID_ARG);
    cr_assert_null(q);
    cr_assert_eq(logrep_log_open(NULL, n.st[A], "other-0", n.now, &log), LOGREP_OK);
    cr_assert_eq(logrep_partition_new(NULL, 1, log, NULL), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_new(NULL, 1, NULL, &q), LOGREP_ERR__INVALID_ARG);

    /* apply */
    logrep_leadership ok = {A, 0, 0, 3, {A, B, C}, 3, {A, B, C}}, l;
    cr_assert_eq(logrep_partition_apply(NULL, &ok, n.now), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_apply(n.p[A], NULL, n.now), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_apply(n.p[A], &ok, -1), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.n_replicas = 0;
    l.n_isr = 0;
    l.leader = -1;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.n_replicas = LOGREP_PARTITION_MAX_REPLICAS + 1;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.n_isr = 4;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.n_isr = -1;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.replicas[2] = A; /* twice */
    l.n_isr = 2;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.isr[2] = B; /* twice in the ISR */
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.isr[2] = 7; /* not a replica */
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.n_isr = 2;
    l.isr[0] = B;
    l.isr[1] = C; /* the leader not in the ISR */
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.leader = -2;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.leader_epoch = -1;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    l = ok;
    l.replicas[1] = -5;
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_NONE, "nothing was applied");
    l = ok;
    l.leader = -1; /* offline: no leader, still valid */
    cr_assert_eq(logrep_partition_apply(n.p[A], &l, n.now), LOGREP_OK);
    cr_assert_eq(state(&n, A).role, LOGREP_ROLE_NONE);
    n.ctl.leader_epoch = n.ctl.partition_epoch = 0; /* the epoch A has seen */
    elect(&n, A, (int[]){A, B, C, 0});

    /* produce */
    size_t len;
    void *buf = batch("x", &len);
    logrep_produce_result r;
    cr_assert_eq(logrep_partition_produce(n.p[A], buf, len, 1, 1000, 1, n.now, NULL),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_produce(NULL, buf, len, 1, 1000, 1, n.now, &r),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(r.error, LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_produce(n.p[A], NULL, len, 1, 1000, 1, n.now, &r),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_produce(n.p[A], buf, len, -1, -1, 1, n.now, &r),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_produce(n.p[A], buf, len, 1, 1000, 1, INT64_MAX, &r),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_produce(n.p[A], buf, 0, 1, 1000, 1, n.now, &r),
                 LOGREP_ERR_CORRUPT_MESSAGE, "an empty buffer is no batch");
    /* A huge timeout is taken (and cannot overflow). */
    cr_assert_eq(logrep_partition_produce(n.p[A], buf, len, -1, INT64_MAX, 1, n.now, &r),
                 LOGREP_OK);
    cr_assert(r.pending);
    free(buf);

    /* fetch */
    logrep_fetch_request req = {B, -1, -1, 0, 1 << 20, 0};
    logrep_fetch_result res;
    cr_assert_eq(logrep_partition_fetch(NULL, &req, n.now, &res), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch(n.p[A], NULL, n.now, &res), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, NULL), LOGREP_ERR__INVALID_ARG);
    req.replica_id = -2;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_ERR__INVALID_ARG);
    req.replica_id = B;
    req.current_leader_epoch = -3;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_ERR__INVALID_ARG);
    req.current_leader_epoch = -1;
    req.last_fetched_epoch = -2;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_ERR__INVALID_ARG);
    req.last_fetched_epoch = -1;
    cr_assert_eq(logrep_partition_fetch(n.p[A], &req, n.now, &res), LOGREP_OK);
    cr_assert_gt(res.slice.length, 0u);

    /* read_slice: only a slice of this replica's log, into room enough. */
    uint8_t bytes[4096];
    logrep_log_slice bad = res.slice;
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &res.slice, bytes, res.slice.length - 1),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &res.slice, NULL, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_read_slice(n.p[A], NULL, bytes, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_read_slice(n.p[B], &res.slice, bytes, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG, "another replica's file");
    bad.file = (logrep_file *)bytes;
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &bad, bytes, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG);
    bad = res.slice;
    bad.length += 1;
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &bad, bytes, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG, "past the end of the file");
    bad = res.slice;
    bad.segment_base = 99;
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &bad, bytes, sizeof bytes),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_read_slice(n.p[A], &res.slice, bytes, sizeof bytes), LOGREP_OK);

    /* follower calls */
    logrep_follower_fetch ff;
    cr_assert_eq(logrep_partition_next_fetch(NULL, &ff), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_next_fetch(n.p[B], NULL), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_next_fetch(n.p[A], &ff), LOGREP_ERR__AGAIN, "the leader");
    cr_assert_eq(logrep_partition_next_fetch(n.p[B], &ff), LOGREP_OK);
    cr_assert_eq(logrep_partition_fetch_response(NULL, &ff, &res, bytes, 1, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch_response(n.p[B], NULL, &res, bytes, 1, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch_response(n.p[B], &ff, NULL, bytes, 1, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch_response(n.p[B], &ff, &res, NULL, 1, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_fetch_response(n.p[B], &ff, &res, bytes, 1, -5),
                 LOGREP_ERR__INVALID_ARG);
    /* Garbage records are the log's refusal, not a crash. */
    memset(bytes, 0xab, 100);
    cr_assert_neq(logrep_partition_fetch_response(n.p[B], &ff, &res, bytes, 100, n.now),
                  LOGREP_OK);
    cr_assert_eq(logrep_partition_log_end_offset(n.p[B]), 0);
    logrep_partition_fetch_failed(NULL);

    /* offsets */
    int32_t ep;
    int64_t off, ts;
    cr_assert_eq(logrep_partition_epoch_end(NULL, -1, 0, &ep, &off), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], -1, 0, NULL, &off), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], -1, 0, &ep, NULL), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_epoch_end(n.p[A], -2, 0, &ep, &off), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_list_offsets(NULL, -1, -1, 0, &off, &ts, &ep),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, -1, 0, NULL, &ts, &ep),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, -1, 0, &off, NULL, &ep),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, -1, 0, &off, &ts, NULL),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_list_offsets(n.p[A], -1, -6, 0, &off, &ts, &ep),
                 LOGREP_ERR__INVALID_ARG);

    /* ISR answers: a committed ISR must name applied replicas, once each,
     * and the leader. */
    int32_t isr_dup[] = {A, A}, isr_stranger[] = {A, 9}, isr_no_leader[] = {B, C};
    int32_t isr_ok[] = {A, B};
    cr_assert_eq(logrep_partition_isr_result(NULL, 1, LOGREP_OK, 5, isr_ok, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, NULL, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_ok, 0, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_ok, 17, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, -1, isr_ok, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_dup, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_stranger, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_no_leader, 2, n.now),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_OK, 5, isr_ok, 2, -1),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_partition_isr_result(n.p[A], 1, LOGREP_ERR_REQUEST_TIMED_OUT, 0, NULL, 0,
                                             n.now),
                 LOGREP_OK, "an error answer carries no ISR");
    cr_assert_eq(state(&n, A).n_isr, 3, "no answer was for a proposal in flight");

    /* The rest take NULL quietly. */
    logrep_partition_event ev;
    cr_assert_eq(logrep_partition_poll(NULL, n.now, &ev), 0);
    cr_assert_eq(logrep_partition_poll(n.p[A], n.now, NULL), 0);
    cr_assert_eq(logrep_partition_tick(NULL, n.now), INT64_MAX);
    cr_assert_geq(logrep_partition_tick(n.p[A], -7), 0, "a bad time is clamped");
    logrep_partition_state s;
    logrep_partition_state_get(NULL, &s);
    cr_assert_eq(s.role, LOGREP_ROLE_NONE);
    cr_assert_eq(s.leader, -1);
    logrep_partition_state_get(n.p[A], NULL);
    cr_assert_null(logrep_partition_log(NULL));
    cr_assert_eq(logrep_partition_high_watermark(NULL), -1);
    cr_assert_eq(logrep_partition_log_end_offset(NULL), -1);
    cr_assert_eq(logrep_partition_log_start_offset(NULL), -1);
    cr_assert_eq(logrep_partition_leader_epoch(NULL), -1);
    logrep_partition_free(NULL, 0);
    net_free(&n);
}

/* The tick: the earliest timer, now with events waiting, at most the lag
 * time ahead; and a conf's lag time near INT64_MAX cannot overflow it. */
Test(partition_api, tick_deadlines)
{
    net n;
    net_init(&n, 2);
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now + LAG, "no role: the cap");
    elect(&n, A, (int[]){A, B, C, 0});
    settle(&n);
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now + LAG, "all caught up");
    produce(&n, A, "m0", 1);
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now + LAG,
                 "the followers' ISR expiry is just past the cap");
    n.now += LAG;
    cr_assert_eq(logrep_partition_tick(n.p[A], n.now), n.now + 1);
    logrep_partition_free(n.p[C], 0);
    logrep_conf *huge = logrep_conf_dup(n.conf);
    cr_assert_eq(logrep_conf_set(huge, "replica.lag.time.max.ms", "9223372036854775807", NULL, 0),
                 LOGREP_OK);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(huge, n.st[C], "events-0", n.now, &log), LOGREP_OK);
    cr_assert_eq(logrep_partition_new(huge, C, log, &n.p[C]), LOGREP_OK);
    logrep_conf_free(huge);
    cr_assert_eq(logrep_partition_apply(n.p[C], &n.ctl, n.now), LOGREP_OK);
    cr_assert_gt(logrep_partition_tick(n.p[C], INT64_MAX), 0);
    net_free(&n);
}
