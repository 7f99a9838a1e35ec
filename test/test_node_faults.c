/* Regression tests for the defects the node sweep (test_sweep_node.c)
 * found, each building its situation directly: out of memory while a
 * request is handled, a stopped controller, a partition that cannot be
 * opened, a follower that cannot write, a log whose close or checkpoint
 * fails. docs/testing.md. */
#include <logrep/log.h>
#include "sweep_node.h"

static const sw_fault alloc_fault = {1, 0, LOGREP_ERR__NOMEM, 0, 0};
static const sw_fault write_fault = {0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, 0, 0};

/* Every allocation of one request failing in turn: the request is
 * answered with a Kafka code the client knows or its connection closes
 * (never UNKNOWN_SERVER_ERROR, never a hang), and the node then answers
 * the next request, which the host gives the closed connection's id. */
Test(node_faults, produce_out_of_memory_closes_or_answers_kafka_codes)
{
    for (int acks = -1; acks <= 1; acks += 2) {
        sn_run *r = sn_setup(&alloc_fault, 1);
        for (long k = 1; k <= 40; k++) {
            r->heap.fail_at = r->heap.allocs + k;
            r->nrec = 0;
            sn_produce(r, 0, (int16_t)acks);
            r->heap.fail_at = 0;
            r->nrec = 0;
            sn_produce(r, 0, -1);
            cr_assert(r->rec[0].acked, "acks=%d, allocation %ld: the next produce failed", acks, k);
        }
        cr_assert_gt(r->heap.failed, 0);
        sn_teardown(r);
    }
}

Test(node_faults, forwarded_create_out_of_memory_closes_and_next_request_answered)
{
    sn_run *r = sn_setup(&alloc_fault, 3);
    for (long k = 1; k <= 40; k++) {
        char name[24];
        snprintf(name, sizeof name, "v%ld", k);
        r->heap.fail_at = r->heap.allocs + k;
        sn_create(r, r->F, name);
        r->heap.fail_at = 0;
        r->seen = 0;
        sn_metadata(r, r->F);
        cr_assert(!r->seen, "allocation %ld: the next metadata request failed: %s", k, r->last);
    }
    cr_assert_gt(r->heap.failed, 0);
    sn_teardown(r);
}

/* A connection the node never had a listener call for gets its state on
 * the first request; without memory for it the connection closes. */
Test(node_faults, unnamed_connection_without_memory_is_closed)
{
    sn_run *r = sn_setup(&alloc_fault, 1);
    logrep_msg *m = sn_req(LOGREP_API_METADATA, 9), *resp;
    logrep_msg_new(NULL, &resp);
    r->heap.fail_at = r->heap.allocs + 1;
    uint64_t c = client_send_on(&r->w, 1, NULL, m);
    cr_assert_eq(client_answer(&r->w, c, LOGREP_API_METADATA, 9, resp, 2000), 0);
    r->heap.fail_at = 0;
    logrep_msg_free(m);
    logrep_msg_free(resp);
    sn_teardown(r);
}

/* A controller whose metadata write failed stops, loudly, and its own
 * broker does not fetch the metadata log in a loop meanwhile. */
Test(node_faults, stopped_controller_is_not_fetched_in_a_loop)
{
    sn_run *r = sn_setup(&write_fault, 1);
    logrep_storage *st = r->w.st[1];
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 1), 0);
    sn_create(r, 1, "v");
    run(&r->w, 200);
    cr_assert(!logrep_node_is_controller(r->w.node[1]));
    cr_assert_gt(r->logged, 0, "the controller stopped silently");
    logrep_node_stats a, b;
    logrep_node_stats_get(r->w.node[1], &a);
    run(&r->w, 1000);
    logrep_node_stats_get(r->w.node[1], &b);
    cr_assert_leq(b.requests - a.requests, 40, "%lld requests in 1 s",
                  (long long)(b.requests - a.requests));
    cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_OK, 0), 0);
    sn_teardown(r);
}

/* A partition the faulty broker cannot set up (its writes fail) is
 * logged and retried every 100 ms, not on every event; it opens once
 * the disk works. */
Test(node_faults, failing_partition_setup_is_logged_and_backs_off)
{
    sn_run *r = sn_setup(&write_fault, 3);
    logrep_storage *st = r->w.st[r->F];
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 1), 0);
    create_topic(&r->w, 1, "v", 1, 3);
    run(&r->w, 1000);
    cr_assert_gt(r->logged, 0, "a partition that cannot be set up is not logged");
    /* Each try logs its failure and the discarded log's close. */
    cr_assert_leq(r->logged, 40, "%d errors logged in 1 s", r->logged);
    cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_OK, 0), 0);
    run(&r->w, 1000);
    int hosted = 0;
    for (size_t i = 0; i < logrep_node_partition_count(r->w.node[r->F]); i++) {
        logrep_node_partition_info pi;
        logrep_node_partition(r->w.node[r->F], i, &pi);
        hosted |= !strcmp(pi.topic, "v") && pi.role != 0;
    }
    cr_assert(hosted, "v-0 not set up once the disk works");
    sn_teardown(r);
}

/* A follower whose appends fail asks its leader again after
 * replica.fetch.backoff.ms, not at once (the leader would answer at
 * once with the same data). */
Test(node_faults, failing_follower_append_backs_off)
{
    sn_run *r = sn_setup(&write_fault, 3);
    int part = r->leader[0] != r->F ? 0 : 1;
    int leader = r->leader[part];
    logrep_storage *st = r->w.st[r->F];
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 1), 0);
    sn_produce(r, part, 1);
    cr_assert(r->rec[r->nrec - 1].acked);
    logrep_node_stats a, b;
    logrep_node_stats_get(r->w.node[leader], &a);
    run(&r->w, 1000);
    logrep_node_stats_get(r->w.node[leader], &b);
    cr_assert_leq(b.requests - a.requests, 200, "%lld requests at the leader in 1 s",
                  (long long)(b.requests - a.requests));
    cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_OK, 0), 0);
    cr_assert(sn_usable(r), "the follower did not catch up once the disk works");
    sn_teardown(r);
}

typedef struct errlines {
    int n;
    char last[256];
} errlines;

static void count_errors(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    errlines *e = ctx;
    (void)subsys;
    if (level == LOGREP_LEVEL_ERROR) {
        e->n++;
        snprintf(e->last, sizeof e->last, "%.*s", (int)len, msg);
    }
}

typedef struct faulty_log {
    errlines e;
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log;
} faulty_log;

/* A log with one unflushed record whose storage then fails every call
 * of the classes in ops with EIO. */
static void fl_open(faulty_log *fl, uint32_t ops)
{
    memset(fl, 0, sizeof *fl);
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &fl->st), 0);
    fl->conf = logrep_conf_new();
    logrep_conf_set_logger(fl->conf, count_errors, &fl->e, LOGREP_LEVEL_INFO);
    cr_assert_eq(logrep_conf_set(fl->conf, "log.flush.offset.checkpoint.interval.ms", "100", NULL, 0),
                 0);
    cr_assert_eq(logrep_log_open(fl->conf, fl->st, "f-0", 0, &fl->log), 0);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    cr_assert_eq(logrep_batch_builder_add(b, 1000, NULL, -1, "x", 1, NULL, 0), 0);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), 0);
    uint8_t copy[256];
    cr_assert_lt(len, sizeof copy);
    memcpy(copy, out, len);
    logrep_batch_builder_free(b);
    logrep_log_append_info info;
    cr_assert_eq(logrep_log_append_leader(fl->log, copy, len, 0, 1000, &info), 0);
    cr_assert_eq(logrep_storage_crash_inject(fl->st, ops, 1, LOGREP_ERR__IO, 1), 0);
}

static void fl_free(faulty_log *fl)
{
    logrep_storage_free(fl->st);
    logrep_conf_free(fl->conf);
}

/* A close that cannot flush says so: a node or partition being freed
 * cannot pass the error on. */
Test(node_faults, failed_log_close_is_logged)
{
    faulty_log fl;
    fl_open(&fl, LOGREP_STORAGE_OP_SYNC);
    cr_assert_eq(logrep_log_close(fl.log), LOGREP_ERR__IO);
    cr_assert_eq(fl.e.n, 1);
    cr_assert(strstr(fl.e.last, "f-0") && strstr(fl.e.last, "close"), "%s", fl.e.last);
    fl_free(&fl);
}

/* A failing checkpoint is tried again a period later, not on every tick
 * (the tick's deadline would be now, and the host would spin). */
Test(node_faults, failed_checkpoint_retried_a_period_later)
{
    faulty_log fl;
    fl_open(&fl, LOGREP_STORAGE_OP_WRITE);
    int64_t next = 0;
    cr_assert_eq(logrep_log_tick(fl.log, 1000, &next), LOGREP_ERR__IO);
    cr_assert_gt(next, 1000, "the tick asks to be called again at once");
    cr_assert_eq(logrep_log_tick(fl.log, 1001, &next), 0, "retried on the next tick");
    cr_assert_eq(logrep_storage_crash_inject(fl.st, 0, 0, LOGREP_OK, 0), 0);
    cr_assert_eq(logrep_log_tick(fl.log, next, &next), 0);
    cr_assert_eq(logrep_log_close(fl.log), 0);
    fl_free(&fl);
}

/* A leader epoch whose checkpoint cannot be written is not kept: the
 * replica that asked is not leader in it (the simulator's invariant I7:
 * no epoch cached above the replica's own). */
Test(node_faults, epoch_not_written_is_not_cached)
{
    faulty_log fl;
    fl_open(&fl, LOGREP_STORAGE_OP_WRITE);
    int32_t before = logrep_log_latest_epoch(fl.log);
    cr_assert_eq(logrep_log_epoch_assign(fl.log, 3, 1), LOGREP_ERR__IO);
    cr_assert_eq(logrep_log_latest_epoch(fl.log), before, "epoch %d cached",
                 logrep_log_latest_epoch(fl.log));
    int32_t epoch = -1;
    int64_t end = -1;
    cr_assert_eq(logrep_storage_crash_inject(fl.st, 0, 0, LOGREP_OK, 0), 0);
    cr_assert_eq(logrep_log_epoch_assign(fl.log, 3, 1), 0);
    logrep_log_epoch_end_offset(fl.log, 3, &epoch, &end);
    cr_assert_eq(epoch, 3);
    cr_assert_eq(logrep_log_close(fl.log), 0);
    fl_free(&fl);
}
