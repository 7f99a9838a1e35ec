/* Fault sweep of one log: every allocation, write and sync of a workload
 * (open, compressed and plain appends, rolls, indexes, reads, truncation,
 * retention, checkpoints, close, reopen and recovery) failing once and
 * from there on. Each run: the failing call returns the fault's error,
 * nothing leaks, the log works again once the fault clears, and every
 * acknowledged batch is still there, in the open log, after a clean
 * reopen, and (once flushed) after a power loss. docs/testing.md. */
#include "log_testutil.h"
#include "sweep.h"

#define SL_BATCHES 16

typedef struct sl_ack {
    int64_t first, last;
    uint8_t *bytes; /* as stamped by the log */
    size_t len;
} sl_ack;

typedef struct sl_run {
    const sw_fault *f;
    tu_heap heap;
    logrep_allocator a;
    logrep_conf *conf;
    logrep_storage *st;
    logrep_log *log;
    sl_ack acks[SL_BATCHES + 2];
    int nacks;
    logrep_err failed; /* first error met */
} sl_run;

static uint8_t *sl_batch(int i, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    static const int codecs[] = {LOGREP_COMPRESSION_NONE, LOGREP_COMPRESSION_GZIP,
                                 LOGREP_COMPRESSION_LZ4, LOGREP_COMPRESSION_ZSTD};
    cr_assert_eq(logrep_batch_builder_set_compression(b, codecs[i % 4], 0), 0);
    cr_assert_eq(logrep_batch_builder_set_producer(b, 7, 0, i * 3), 0);
    char val[64];
    memset(val, 'a' + i % 26, sizeof val);
    for (int r = 0; r < 3; r++)
        cr_assert_eq(logrep_batch_builder_add(b, 1000 + i * 10 + r, "k", 1, val, 60, NULL, 0), 0);
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), 0);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

/* Notes the first error; 1 when the step succeeded. */
static int sl_ok(sl_run *r, logrep_err err, const char *step)
{
    if (!err)
        return 1;
    char what[80];
    sw_describe(r->f, what, sizeof what);
    cr_assert(sw_expected_err(r->f, err), "%s: %s failed with %s", what, step,
              logrep_err_name(err));
    if (!r->failed)
        r->failed = err;
    return 0;
}

static void sl_drop_from(sl_run *r, int64_t offset)
{
    while (r->nacks && r->acks[r->nacks - 1].last >= offset)
        free(r->acks[--r->nacks].bytes);
}

static void sl_drop_below(sl_run *r, int64_t start)
{
    int keep = 0;
    for (int i = 0; i < r->nacks; i++) {
        if (r->acks[i].last < start)
            free(r->acks[i].bytes);
        else
            r->acks[keep++] = r->acks[i];
    }
    r->nacks = keep;
}

/* Appends batch i; acknowledged only when the call says so. */
static int sl_append(sl_run *r, int i)
{
    size_t len;
    uint8_t *b = sl_batch(i, &len);
    logrep_log_append_info info;
    if (!sl_ok(r, logrep_log_append_leader(r->log, b, len, i / 6, 2000 + i, &info), "append")) {
        free(b);
        return 0;
    }
    cr_assert_lt(r->nacks, SL_BATCHES + 2);
    r->acks[r->nacks++] = (sl_ack){info.first_offset, info.last_offset, b, len};
    return 1;
}

/* The workload proper; stops at the first error, as a host would after
 * an error it cannot retry at once. */
static void sl_steps(sl_run *r)
{
    if (!sl_ok(r, logrep_log_open(r->conf, r->st, "p/t-0", 0, &r->log), "open"))
        return;
    for (int i = 0; i < SL_BATCHES; i++) {
        if (!sl_append(r, i))
            return;
        if (i % 4 == 3 && !sl_ok(r, logrep_log_flush(r->log, 2000 + i), "flush"))
            return;
        if (i == 9) {
            /* Asked for: gone even when the call fails part way. */
            int64_t cut = r->acks[r->nacks - 2].first;
            logrep_err err = logrep_log_truncate(r->log, cut);
            sl_drop_from(r, cut);
            if (!sl_ok(r, err, "truncate"))
                return;
        }
        if (i == 11 && !sl_ok(r, logrep_log_roll(r->log, 2000 + i), "roll"))
            return;
    }
    int32_t deleted = 0;
    if (!sl_ok(r, logrep_log_retention(r->log, 2100, &deleted), "retention"))
        return;
    sl_drop_below(r, logrep_log_start_offset(r->log));
    if (!sl_ok(r, logrep_log_checkpoint(r->log), "checkpoint"))
        return;
    logrep_log_slice sl;
    if (!sl_ok(r, logrep_log_read(r->log, r->acks[0].first, 1 << 20, INT64_MAX, 1, &sl), "read"))
        return;
    logrep_err err = logrep_log_close(r->log);
    r->log = NULL;
    if (!sl_ok(r, err, "close"))
        return;
    if (!sl_ok(r, logrep_log_open(r->conf, r->st, "p/t-0", 0, &r->log), "reopen"))
        return;
    sl_append(r, SL_BATCHES);
}

/* Every acknowledged batch, byte for byte, at its offsets. */
static void sl_check_acks(sl_run *r, const char *when)
{
    char what[80];
    sw_describe(r->f, what, sizeof what);
    for (int i = 0; i < r->nacks; i++) {
        logrep_log_slice sl;
        logrep_err err = logrep_log_read(r->log, r->acks[i].first, 1, INT64_MAX, 1, &sl);
        cr_assert_eq(err, 0, "%s, %s: read %lld: %s", what, when, (long long)r->acks[i].first,
                     logrep_err_name(err));
        cr_assert_eq(sl.first_offset, r->acks[i].first, "%s, %s: acknowledged batch %d lost",
                     what, when, i);
        cr_assert_eq(sl.length, r->acks[i].len, "%s, %s: batch %d length", what, when, i);
        uint8_t *got = malloc(sl.length);
        size_t n;
        cr_assert_eq(r->st->read(r->st->ctx, sl.file, sl.position, got, sl.length, &n), 0);
        cr_assert_eq(memcmp(got, r->acks[i].bytes, sl.length), 0, "%s, %s: batch %d bytes",
                     what, when, i);
        free(got);
    }
}

static void sl_reopen(sl_run *r, const char *when)
{
    char what[80];
    sw_describe(r->f, what, sizeof what);
    logrep_err err = logrep_log_open(r->conf, r->st, "p/t-0", 0, &r->log);
    cr_assert_eq(err, 0, "%s: %s: %s", what, when, logrep_err_name(err));
    sl_check_acks(r, when);
    lt_check_log(r->log, r->st);
}

/* Whether the log has stopped after a failure it cannot undo in place:
 * every call answers KAFKA_STORAGE_ERROR until it is reopened. */
static int sl_stopped(sl_run *r)
{
    return logrep_log_roll(r->log, 2999) == LOGREP_ERR_KAFKA_STORAGE_ERROR;
}

static long sl_workload(const sw_fault *f, int *seen)
{
    sl_run r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.a = tu_heap_allocator(&r.heap);
    r.conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set_allocator(r.conf, &r.a), 0);
    cr_assert_eq(logrep_conf_set(r.conf, "segment.bytes", "700", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(r.conf, "index.interval.bytes", "100", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(r.conf, "retention.bytes", "1500", NULL, 0), 0);
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &r.st), 0);
    cr_assert_eq(r.st->mkdir(r.st->ctx, "p"), 0);
    uint64_t ops0 = logrep_storage_op_count(r.st, f->ops);
    sw_arm(f, &r.heap, r.st);
    sl_steps(&r);
    long calls = f->alloc ? r.heap.allocs : (long)(logrep_storage_op_count(r.st, f->ops) - ops0);
    char what[80];
    sw_describe(f, what, sizeof what);
    if (!f->k)
        cr_assert_eq(r.failed, 0, "the counting run failed: %s", logrep_err_name(r.failed));
    *seen = r.failed != 0;
    sw_clear(f, &r.heap, r.st);

    /* The fault has cleared: the open log (if any) still serves every
     * acknowledged batch and takes appends again, and a flush makes them
     * durable. */
    if (r.log && sl_stopped(&r)) {
        /* It stopped loudly: a reopen recovers it from storage. */
        logrep_log_abandon(r.log);
        r.log = NULL;
        sl_reopen(&r, "reopen after a stop");
    }
    if (r.log) {
        sl_check_acks(&r, "after the fault");
        cr_assert(sl_append(&r, SL_BATCHES + 1), "%s: no append after the fault cleared", what);
        logrep_err err = logrep_log_flush(r.log, 3000);
        cr_assert_eq(err, 0, "%s: flush after the fault: %s", what, logrep_err_name(err));
        logrep_log_abandon(r.log);
        r.log = NULL;
        /* A power loss keeps what the flush made durable. */
        cr_assert_eq(logrep_storage_crash_simulate(r.st, (uint64_t)f->k, LOGREP_CRASH_DROP_ALL), 0);
        sl_reopen(&r, "after a power loss");
    } else {
        sl_reopen(&r, "reopen after the fault");
    }
    cr_assert(sl_append(&r, SL_BATCHES + 1), "%s: no append after reopen", what);
    cr_assert_eq(logrep_log_close(r.log), 0, "%s: close", what);
    r.log = NULL;
    sl_reopen(&r, "after close");
    logrep_log_close(r.log);
    for (int i = 0; i < r.nacks; i++)
        free(r.acks[i].bytes);
    logrep_storage_free(r.st);
    logrep_conf_free(r.conf);
    cr_assert_eq(r.heap.live_blocks, 0, "%s: %ld blocks leaked", what, r.heap.live_blocks);
    cr_assert_eq(r.heap.live_bytes, 0, "%s: %ld bytes leaked", what, r.heap.live_bytes);
    return calls;
}

Test(sweep_log, every_allocation_fails, .timeout = 120)
{
    long runs = sw_sweep(sl_workload, 1, 0, LOGREP_ERR__NOMEM, sw_stride(1));
    cr_assert_gt(runs, 20);
}

Test(sweep_log, every_write_fails, .timeout = 120)
{
    sw_sweep(sl_workload, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sl_workload, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__NOSPACE, sw_stride(1));
}

Test(sweep_log, every_sync_fails, .timeout = 120)
{
    sw_sweep(sl_workload, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sl_workload, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__NOSPACE, sw_stride(1));
}

/* Regressions the sweep found, each built directly. */

Test(sweep_log, open_reports_a_failed_directory_sync)
{
    /* The new partition directory's entry is synced in its parent; a
     * failing sync was ignored. Now open fails, and a retry creates the
     * directory again and syncs it. */
    logrep_storage *st;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "p"), 0);
    logrep_log *log = NULL;
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_SYNC, 1, LOGREP_ERR__IO, 0), 0);
    cr_assert_eq(logrep_log_open(NULL, st, "p/t-0", 0, &log), LOGREP_ERR__IO);
    uint64_t syncs = logrep_storage_op_count(st, LOGREP_STORAGE_OP_SYNC);
    cr_assert_eq(logrep_log_open(NULL, st, "p/t-0", 0, &log), 0);
    cr_assert_gt(logrep_storage_op_count(st, LOGREP_STORAGE_OP_SYNC), syncs,
                 "the retry did not sync the directory entry");
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_storage_free(st);
}

Test(sweep_log, truncate_without_memory_for_producer_state_stops_the_log)
{
    /* Truncation clears the producer state and rebuilds it from the
     * snapshot and the log. When that fails for want of memory (the
     * snapshot read was skipped as if corrupt, then the replay failed) the
     * log went on with no producer state, taking duplicates. Now the
     * truncate fails and the log stops until reopened, which restores it. */
    tu_heap heap = {0};
    logrep_allocator a = tu_heap_allocator(&heap);
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set_allocator(conf, &a), 0);
    logrep_storage *st;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "p"), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(conf, st, "p/t-0", 0, &log), 0);
    int64_t first[6];
    for (int i = 0; i < 6; i++) {
        size_t len;
        uint8_t *b = sl_batch(i, &len);
        logrep_log_append_info info;
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 2000 + i, &info), 0);
        first[i] = info.first_offset;
        free(b);
        if (i == 2)
            cr_assert_eq(logrep_log_roll(log, 2100), 0); /* writes a snapshot */
    }
    heap.fail_at = heap.allocs + 1;
    heap.persist = 1;
    cr_assert_eq(logrep_log_truncate(log, first[4]), LOGREP_ERR__NOMEM);
    heap.fail_at = 0;
    size_t len;
    uint8_t *b = sl_batch(4, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 2200, NULL),
                 LOGREP_ERR_KAFKA_STORAGE_ERROR, "appends go on without producer state");
    logrep_log_abandon(log);
    cr_assert_eq(logrep_log_open(conf, st, "p/t-0", 0, &log), 0);
    cr_assert_eq(logrep_log_end_offset(log), first[4]);
    logrep_producer_entry pe;
    cr_assert_eq(logrep_log_producer(log, 7, &pe), 0);
    cr_assert_eq(pe.last_offset, first[4] - 1);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 2200, NULL), 0);
    free(b);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_storage_free(st);
    logrep_conf_free(conf);
    cr_assert_eq(heap.live_blocks, 0);
}

Test(sweep_log, acknowledged_append_always_reaches_producer_state)
{
    /* An allocation failing while a new producer was added to the state
     * was ignored after the batch was written: the append succeeded and
     * the producer's duplicates were then taken. Now room is made before
     * the write: each allocation of a first idempotent append failing in
     * turn either fails the append or leaves the producer recorded. */
    for (long k = 1;; k++) {
        tu_heap heap = {0};
        logrep_allocator a = tu_heap_allocator(&heap);
        logrep_conf *conf = logrep_conf_new();
        cr_assert_eq(logrep_conf_set_allocator(conf, &a), 0);
        logrep_storage *st;
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
        cr_assert_eq(st->mkdir(st->ctx, "p"), 0);
        logrep_log *log;
        cr_assert_eq(logrep_log_open(conf, st, "p/t-0", 0, &log), 0);
        heap.fail_at = heap.allocs + k;
        size_t len;
        uint8_t *b = sl_batch(0, &len);
        logrep_err err = logrep_log_append_leader(log, b, len, 0, 2000, NULL);
        long failed = heap.failed;
        heap.fail_at = 0;
        logrep_producer_entry pe;
        if (!err)
            cr_assert_eq(logrep_log_producer(log, 7, &pe), 0,
                         "allocation %ld: appended, producer not recorded", k);
        else
            cr_assert_eq(err, LOGREP_ERR__NOMEM);
        free(b);
        cr_assert_eq(logrep_log_close(log), 0);
        logrep_storage_free(st);
        logrep_conf_free(conf);
        cr_assert_eq(heap.live_blocks, 0);
        if (!failed)
            break;
        cr_assert_lt(k, 100);
    }
}
