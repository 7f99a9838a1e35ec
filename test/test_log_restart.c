/* logrep_log_truncate_fully_and_start_at (Kafka's truncateFullyAndStartAt):
 * the log empty at an offset past its end, inside it or below its start;
 * appends from there; a reopen keeps the start and an empty epoch cache;
 * a power loss after every write, truncate and sync, and a storage fault
 * at every call, leave the old log, the old log cut at the batch holding
 * the offset, or the empty log at the offset: never data below it. */
#include <criterion/criterion.h>

#include "log_testutil.h"

#define DIR "d/meta-0"

typedef struct rt {
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log;
} rt;

/* 40 batches of 3 records (offsets 0..119) in epochs 1, 2, 3 (a new one
 * every 15 batches), over segments of about 1 KiB, flushed. */
static void rt_init(rt *r, int crash)
{
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &r->st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &r->st), 0);
    cr_assert_eq(r->st->mkdir(r->st->ctx, "d"), 0);
    r->conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(r->conf, "segment.bytes", "1024", NULL, 0), 0);
    cr_assert_eq(logrep_log_open(r->conf, r->st, DIR, 1000, &r->log), 0);
    for (int i = 0; i < 40; i++)
        lt_append(r->log, 3, 20, 1000 + i, 1 + i / 15);
    cr_assert_eq(logrep_log_flush(r->log, 2000), 0);
    cr_assert_eq(logrep_log_checkpoint(r->log), 0);
    cr_assert_gt(logrep_log_segment_count(r->log), 3);
}

static void rt_reopen(rt *r)
{
    logrep_log_abandon(r->log);
    logrep_err err = logrep_log_open(r->conf, r->st, DIR, 3000, &r->log);
    cr_assert_eq(err, 0, "reopen: %s", logrep_err_name(err));
}

static void rt_fini(rt *r)
{
    logrep_log_close(r->log);
    logrep_conf_free(r->conf);
    logrep_storage_free(r->st);
}

static void assert_empty_at(logrep_log *log, int64_t offset)
{
    cr_assert_eq(logrep_log_start_offset(log), offset);
    cr_assert_eq(logrep_log_end_offset(log), offset);
    cr_assert_eq(logrep_log_recovery_point(log), offset);
    cr_assert_eq(logrep_log_latest_epoch(log), -1);
    cr_assert_eq(logrep_log_segment_count(log), 1);
    int32_t e;
    int64_t so;
    cr_assert_eq(logrep_log_epoch_entry(log, 0, &e, &so), LOGREP_ERR__END);
}

Test(log_restart, past_the_end)
{
    rt r;
    rt_init(&r, 0);
    cr_assert_eq(logrep_log_truncate_fully_and_start_at(r.log, 1000), 0);
    assert_empty_at(r.log, 1000);
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(r.log, 5, 1000, INT64_MAX, 1, &sl),
                 LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    cr_assert_eq(logrep_log_read(r.log, 1000, 1000, INT64_MAX, 1, &sl), 0);
    cr_assert_eq(sl.length, 0);
    /* Appends go on from the new start, as leader and as follower. */
    cr_assert_eq(lt_append(r.log, 2, 10, 5000, 7), 1000);
    cr_assert_eq(logrep_log_end_offset(r.log), 1002);
    cr_assert_eq(logrep_log_latest_epoch(r.log), 7);
    cr_assert_eq(logrep_log_flush(r.log, 5000), 0);
    lt_check_log(r.log, r.st);
    /* A reopen keeps the start and only the epoch of what was appended. */
    rt_reopen(&r);
    cr_assert_eq(logrep_log_start_offset(r.log), 1000);
    cr_assert_eq(logrep_log_end_offset(r.log), 1002);
    int32_t e;
    int64_t so;
    cr_assert_eq(logrep_log_epoch_entry(r.log, 0, &e, &so), 0);
    cr_assert_eq(e, 7);
    cr_assert_eq(so, 1000);
    cr_assert_eq(logrep_log_epoch_entry(r.log, 1, &e, &so), LOGREP_ERR__END);
    lt_check_log(r.log, r.st);
    rt_fini(&r);
}

Test(log_restart, reopen_right_after)
{
    rt r;
    rt_init(&r, 0);
    cr_assert_eq(logrep_log_truncate_fully_and_start_at(r.log, 500), 0);
    rt_reopen(&r);
    assert_empty_at(r.log, 500);
    cr_assert_eq(logrep_log_recovery_info(r.log)->log_start_offset, 500);
    rt_fini(&r);
}

/* Inside the log, at its end, at its start, below its start: always
 * empty at the offset, whatever was there. */
Test(log_restart, anywhere)
{
    const int64_t at[] = {61, 120, 0, 30};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        rt r;
        rt_init(&r, 0);
        if (i == 3)
            cr_assert_eq(logrep_log_advance_start(r.log, 45), 0);
        cr_assert_eq(logrep_log_truncate_fully_and_start_at(r.log, at[i]), 0);
        assert_empty_at(r.log, at[i]);
        cr_assert_eq(lt_append(r.log, 1, 10, 9000, 9), at[i]);
        rt_reopen(&r);
        cr_assert_eq(logrep_log_start_offset(r.log), at[i]);
        cr_assert_eq(logrep_log_end_offset(r.log), at[i] + 1);
        cr_assert_eq(logrep_log_latest_epoch(r.log), 9);
        lt_check_log(r.log, r.st);
        rt_fini(&r);
    }
}

Test(log_restart, refuses)
{
    rt r;
    rt_init(&r, 0);
    cr_assert_eq(logrep_log_truncate_fully_and_start_at(NULL, 5), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_log_truncate_fully_and_start_at(r.log, -1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_log_end_offset(r.log), 120);
    rt_fini(&r);
}

/* What a reopen may find after an interrupted restart at `offset` of the
 * log of rt_init: "old" (as it was, or cut at the batch holding offset
 * or above when offset is inside it) or "new" (empty at offset). */
static int state_after(rt *r, int64_t offset, const char *what)
{
    logrep_log *log = r->log;
    int64_t start = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    if (start == offset && end == offset) {
        cr_assert_eq(logrep_log_latest_epoch(log), -1, "%s: epochs of an empty log", what);
        return 1;
    }
    cr_assert_eq(start, 0, "%s: start %lld end %lld", what, (long long)start, (long long)end);
    int64_t low = offset < 120 ? offset - offset % 3 : 120;
    cr_assert(end <= 120 && end >= low, "%s: end %lld", what, (long long)end);
    cr_assert_eq(lt_check_log(log, r->st), end / 3, "%s", what);
    int32_t e;
    int64_t o;
    logrep_log_epoch_end_offset(log, 1, &e, &o);
    if (end > 45)
        cr_assert(e == 1 && o == 45, "%s: epoch 1 ends at %lld", what, (long long)o);
    return 0;
}

static uint64_t restart_ops(int64_t offset)
{
    rt r;
    rt_init(&r, 1);
    const uint32_t ops = LOGREP_STORAGE_OP_WRITE | LOGREP_STORAGE_OP_SYNC |
                         LOGREP_STORAGE_OP_TRUNCATE;
    uint64_t before = logrep_storage_op_count(r.st, ops);
    cr_assert_eq(logrep_log_truncate_fully_and_start_at(r.log, offset), 0);
    uint64_t n = logrep_storage_op_count(r.st, ops) - before;
    rt_fini(&r);
    return n;
}

Test(log_restart, power_loss_after_every_call)
{
    const int64_t at[] = {1000, 61, 0};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        uint64_t total = restart_ops(at[i]);
        cr_assert_gt(total, 3);
        int saw_old = 0, saw_new = 0;
        for (uint64_t k = 1; k <= total + 1; k++)
            for (int mode = 0; mode < 3; mode++) {
                rt r;
                rt_init(&r, 1);
                cr_assert_eq(logrep_storage_crash_after(r.st, k), 0);
                logrep_err err = logrep_log_truncate_fully_and_start_at(r.log, at[i]);
                cr_assert(k <= total || err == 0);
                cr_assert_eq(logrep_storage_crash_simulate(r.st, k * 5 + (uint64_t)mode, mode),
                             0);
                char what[96];
                snprintf(what, sizeof what, "restart at %lld, power lost after %llu calls, mode %d",
                         (long long)at[i], (unsigned long long)k, mode);
                rt_reopen(&r);
                int fresh = state_after(&r, at[i], what);
                cr_assert(fresh || k <= total, "%s: a completed restart came back old", what);
                saw_new += fresh;
                saw_old += !fresh;
                /* The log works on from whatever it found. */
                int64_t end = logrep_log_end_offset(r.log);
                cr_assert_eq(lt_append(r.log, 1, 10, 9000, 9), end);
                rt_fini(&r);
            }
        /* At 0 every segment is at or above the offset: the cut (removals,
         * durable at once) already leaves the empty log. */
        cr_assert(saw_new && (saw_old || at[i] == 0), "restart at %lld: old %d new %d",
                  (long long)at[i], saw_old, saw_new);
    }
}

/* A storage fault at every call of every class: the call fails and the
 * log refuses changes until reopened, or it succeeds; a reopen finds the
 * old log, a cut one or the new one. */
Test(log_restart, storage_fault_at_every_call)
{
    const uint32_t classes[] = {LOGREP_STORAGE_OP_WRITE, LOGREP_STORAGE_OP_SYNC,
                                LOGREP_STORAGE_OP_TRUNCATE, LOGREP_STORAGE_OP_META};
    int failed = 0;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        for (uint64_t n = 1; n <= 24; n++) {
            rt r;
            rt_init(&r, 1);
            cr_assert_eq(logrep_storage_crash_inject(r.st, classes[c], n, LOGREP_ERR__IO, 0), 0);
            logrep_err err = logrep_log_truncate_fully_and_start_at(r.log, 2000);
            cr_assert_eq(logrep_storage_crash_inject(r.st, 0, 0, LOGREP_OK, 0), 0);
            char what[64];
            snprintf(what, sizeof what, "class %u, fault at call %llu", classes[c],
                     (unsigned long long)n);
            if (err) {
                failed++;
                size_t len;
                uint8_t *b = lt_batch(1, 10, 9000, -1, -1, &len);
                cr_assert_neq(logrep_log_append_leader(r.log, b, len, 9, 9000, NULL), 0,
                              "%s: a failed restart takes appends", what);
                free(b);
            } else {
                assert_empty_at(r.log, 2000);
            }
            rt_reopen(&r);
            int fresh = state_after(&r, 2000, what);
            cr_assert(fresh || err, "%s: succeeded but came back old", what);
            rt_fini(&r);
        }
    cr_assert_gt(failed, 5);
}
