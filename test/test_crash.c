/* Crash and fault tests with the crash-simulating storage: power loss after
 * every write and sync, torn last writes at every byte, EIO and ENOSPC
 * during append, roll and checkpoint. After each, reopening must give a
 * valid prefix of what was appended that holds every synced batch. */
#include "log_testutil.h"

#define CR_BATCHES 24

typedef struct cr_run {
    logrep_storage *st;
    logrep_conf *conf;
    uint8_t *batches[CR_BATCHES]; /* as stamped by the log */
    size_t lens[CR_BATCHES];
    int appended;       /* batches acknowledged */
    int64_t durable;    /* log end at the last successful flush */
    logrep_err stop_err;
} cr_run;

static int32_t cr_records(int i)
{
    return i % 4 + 1;
}

static int64_t cr_offset_of(int i)
{
    int64_t o = 0;
    for (int j = 0; j < i; j++)
        o += cr_records(j);
    return o;
}

static void cr_init(cr_run *r)
{
    memset(r, 0, sizeof *r);
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &r->st), 0);
    cr_assert_eq(r->st->mkdir(r->st->ctx, "p"), 0);
    r->conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(r->conf, "segment.bytes", "1500", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(r->conf, "index.interval.bytes", "200", NULL, 0), 0);
}

static void cr_fini(cr_run *r)
{
    for (int i = 0; i < CR_BATCHES; i++)
        free(r->batches[i]);
    logrep_storage_free(r->st);
    logrep_conf_free(r->conf);
}

/* The workload: batch i has i%4+1 records (idempotent producer 7), epochs
 * change every 8 batches, a flush every 3 batches, rolls by size, a close
 * at the end. Stops at the first error and abandons the log, as a crashed
 * process would. */
static void cr_workload(cr_run *r)
{
    logrep_log *log;
    r->stop_err = logrep_log_open(r->conf, r->st, "p/t-0", 0, &log);
    if (r->stop_err)
        return;
    for (int i = 0; i < CR_BATCHES; i++) {
        size_t len;
        uint8_t *b = lt_batch(cr_records(i), 40 + (size_t)i * 3, 100 + i, 7,
                              (int32_t)cr_offset_of(i), &len);
        logrep_err err = logrep_log_append_leader(log, b, len, i / 8, 100 + i, NULL);
        if (err) {
            free(b);
            r->stop_err = err;
            logrep_log_abandon(log);
            return;
        }
        r->batches[i] = b;
        r->lens[i] = len;
        r->appended = i + 1;
        if (i % 3 == 2) {
            if ((err = logrep_log_flush(log, 100 + i))) {
                r->stop_err = err;
                logrep_log_abandon(log);
                return;
            }
            r->durable = cr_offset_of(i + 1);
        }
    }
    r->stop_err = logrep_log_close(log);
    if (!r->stop_err)
        r->durable = cr_offset_of(CR_BATCHES);
}

/* Reopens and checks: a valid prefix of the workload's batches, byte for
 * byte, holding everything durable; indexes that match a rebuild; an
 * epoch cache within the log; producer state matching the prefix. */
static void cr_verify(cr_run *r, const char *what)
{
    logrep_log *log;
    logrep_err err = logrep_log_open(r->conf, r->st, "p/t-0", 0, &log);
    cr_assert_eq(err, 0, "%s: reopen: %s", what, logrep_err_name(err));
    int64_t leo = logrep_log_end_offset(log);
    cr_assert_geq(leo, r->durable, "%s: lost synced data: end %lld < %lld", what,
                  (long long)leo, (long long)r->durable);
    int n = 0;
    while (n < CR_BATCHES && cr_offset_of(n) < leo)
        n++;
    cr_assert_eq(cr_offset_of(n), leo, "%s: end %lld not at a batch boundary", what,
                 (long long)leo);
    cr_assert_leq(n, r->appended + 1, "%s: more batches than written", what);
    for (int i = 0; i < n; i++) {
        logrep_log_slice sl;
        cr_assert_eq(logrep_log_read(log, cr_offset_of(i), 1, INT64_MAX, 1, &sl), 0);
        cr_assert_eq(sl.first_offset, cr_offset_of(i), "%s: batch %d", what, i);
        size_t got_len;
        uint8_t *got = malloc(sl.length);
        cr_assert_eq(r->st->read(r->st->ctx, sl.file, sl.position, got, sl.length, &got_len), 0);
        if (i < r->appended) {
            cr_assert_eq(sl.length, r->lens[i], "%s: batch %d length", what, i);
            cr_assert_eq(memcmp(got, r->batches[i], sl.length), 0, "%s: batch %d bytes", what, i);
        } else {
            cr_assert_eq(logrep_batch_verify(got, sl.length, NULL), 0);
        }
        free(got);
    }
    int32_t e;
    int64_t s;
    for (size_t i = 0; logrep_log_epoch_entry(log, i, &e, &s) == 0; i++)
        cr_assert_lt(s, leo, "%s: epoch %d starts at %lld beyond end %lld", what, e,
                     (long long)s, (long long)leo);
    if (n > 0)
        cr_assert_eq(logrep_log_latest_epoch(log), (n - 1) / 8, "%s: latest epoch", what);
    logrep_producer_entry pe;
    if (n > 0) {
        cr_assert_eq(logrep_log_producer(log, 7, &pe), 0, "%s: producer state", what);
        cr_assert_eq(pe.last_offset, leo - 1, "%s: producer last offset", what);
    }
    /* The log accepts appends after recovery. */
    size_t len;
    uint8_t *b = lt_batch(1, 10, 1, -1, -1, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 9, 1, NULL), 0, "%s: append", what);
    free(b);
    cr_assert_eq(logrep_log_close(log), 0);
    cr_assert_eq(logrep_log_open(r->conf, r->st, "p/t-0", 0, &log), 0);
    cr_assert_eq(logrep_log_end_offset(log), leo + 1);
    cr_assert(logrep_log_recovery_info(log)->clean, "%s: clean after close", what);
    lt_check_log(log, r->st);
    logrep_log_close(log);
}

static uint64_t cr_total_ops(void)
{
    cr_run r;
    cr_init(&r);
    cr_workload(&r);
    cr_assert_eq(r.stop_err, 0);
    uint64_t n = logrep_storage_op_count(
        r.st, LOGREP_STORAGE_OP_WRITE | LOGREP_STORAGE_OP_SYNC | LOGREP_STORAGE_OP_TRUNCATE);
    cr_fini(&r);
    return n;
}

Test(crash, power_loss_after_every_write_and_sync)
{
    uint64_t total = cr_total_ops();
    cr_assert_gt(total, 50);
    for (uint64_t k = 1; k <= total; k++) {
        for (int mode = 0; mode < 3; mode++) {
            cr_run r;
            cr_init(&r);
            logrep_storage_crash_after(r.st, k);
            cr_workload(&r);
            cr_assert_eq(logrep_storage_crash_simulate(r.st, k * 7 + (uint64_t)mode, mode), 0);
            char what[64];
            snprintf(what, sizeof what, "crash after op %llu mode %d", (unsigned long long)k,
                     mode);
            cr_verify(&r, what);
            cr_fini(&r);
        }
    }
}

Test(crash, torn_last_write_at_every_byte)
{
    uint64_t total = cr_total_ops();
    int torn_points = 0;
    /* A spread of crash points; each tears the write in flight at every byte. */
    for (uint64_t k = 3; k <= total; k += total / 9 + 1) {
        size_t wlen = 0;
        {
            cr_run r;
            cr_init(&r);
            logrep_storage_crash_after(r.st, k);
            cr_workload(&r);
            int pending = logrep_storage_crash_last_write(r.st, &wlen) == 0;
            cr_fini(&r);
            if (!pending)
                continue; /* the crash point follows a sync: nothing to tear */
        }
        torn_points++;
        for (size_t b = 0; b <= wlen; b++) {
            cr_run r;
            cr_init(&r);
            logrep_storage_crash_after(r.st, k);
            cr_workload(&r);
            cr_assert_eq(logrep_storage_crash_tear_last(r.st, b), 0);
            char what[64];
            snprintf(what, sizeof what, "crash after op %llu, torn at %zu of %zu",
                     (unsigned long long)k, b, wlen);
            cr_verify(&r, what);
            cr_fini(&r);
        }
    }
    cr_assert_geq(torn_points, 3);
}

/* EIO and ENOSPC on the n-th write, sync, truncate or namespace call: the
 * call fails with the error, the log stays readable, a reopen finds every
 * checkpoint whole. */
Test(crash, injected_errors)
{
    static const uint32_t classes[] = {LOGREP_STORAGE_OP_WRITE, LOGREP_STORAGE_OP_SYNC,
                                       LOGREP_STORAGE_OP_META, LOGREP_STORAGE_OP_TRUNCATE};
    static const logrep_err errs[] = {LOGREP_ERR__IO, LOGREP_ERR__NOSPACE};
    for (int c = 0; c < 4; c++)
        for (int e = 0; e < 2; e++)
            for (uint64_t n = 1; n < 120; n += 1 + n / 8)
                for (int persistent = 0; persistent < 2; persistent++) {
                    cr_run r;
                    cr_init(&r);
                    cr_assert_eq(logrep_storage_crash_inject(r.st, classes[c], n, errs[e],
                                                             persistent), 0);
                    cr_workload(&r);
                    char what[96];
                    snprintf(what, sizeof what, "class %u err %s n %llu persistent %d",
                             classes[c], logrep_err_name(errs[e]), (unsigned long long)n,
                             persistent);
                    if (r.stop_err)
                        cr_assert(r.stop_err == errs[e] ||
                                      r.stop_err == LOGREP_ERR_KAFKA_STORAGE_ERROR,
                                  "%s: got %s", what, logrep_err_name(r.stop_err));
                    logrep_storage_crash_inject(r.st, 0, 0, LOGREP_ERR__IO, 0);
                    /* The process goes on (no power loss): everything written stays. */
                    logrep_storage_crash_simulate(r.st, 0, LOGREP_CRASH_KEEP_ALL);
                    cr_verify(&r, what);
                    cr_fini(&r);
                }
}

/* An append that fails midway is undone: the same log accepts the next
 * append at the same offsets and reads back consistently. */
Test(crash, failed_append_is_undone)
{
    cr_run r;
    cr_init(&r);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
    for (int i = 0; i < 5; i++)
        lt_append(log, 2, 150, 1, 0); /* leaves index entries pending next time */
    size_t len;
    uint8_t *b = lt_batch(2, 150, 1, -1, -1, &len);
    /* The .log write succeeds, the index write after it fails. */
    cr_assert_eq(logrep_storage_crash_inject(r.st, LOGREP_STORAGE_OP_WRITE, 2, LOGREP_ERR__IO, 0),
                 0);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL), LOGREP_ERR__IO);
    cr_assert_eq(logrep_log_end_offset(log), 10);
    logrep_log_append_info info;
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, &info), 0);
    cr_assert_eq(info.first_offset, 10);
    cr_assert_eq(lt_check_log(log, r.st), 6);
    free(b);
    cr_assert_eq(logrep_log_close(log), 0);
    cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
    cr_assert_eq(lt_check_log(log, r.st), 6);
    logrep_log_close(log);
    cr_fini(&r);
}

/* Batch leader epochs of the whole log, in order, never decrease. */
static void cr_epochs_ordered(logrep_log *log, const logrep_storage *st)
{
    int64_t off = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    int32_t last = -1;
    while (off < end) {
        logrep_log_slice sl;
        cr_assert_eq(logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &sl), 0);
        uint8_t *buf = malloc(sl.length);
        size_t n;
        cr_assert_eq(st->read(st->ctx, sl.file, sl.position, buf, sl.length, &n), 0);
        for (size_t pos = 0; pos < n;) {
            size_t size;
            cr_assert_eq(logrep_batch_verify(buf + pos, n - pos, &size), 0);
            logrep_batch_header h;
            logrep_batch_header_parse(buf + pos, size, &h);
            cr_assert_geq(h.partition_leader_epoch, last, "epoch drops from %d to %d at offset %lld",
                          last, h.partition_leader_epoch, (long long)h.base_offset);
            last = h.partition_leader_epoch;
            pos += size;
        }
        off = sl.next_offset;
        free(buf);
    }
}

/* A recovery cut is durable before anything is appended after it. The
 * durable segment holds b0 b1 [a damaged b2] b3 b4 (epoch 0); recovery
 * cuts at b2; the new leader appends c2 in epoch 1 over the same bytes;
 * then power fails again, each pending write and truncation kept or
 * dropped. Were the cut not synced, a seed keeping c2 but dropping the
 * truncation would bring b3 and b4 (epoch 0) back behind c2 (epoch 1). */
Test(crash, recovery_cut_is_durable_before_new_appends)
{
    for (uint64_t seed = 0; seed < 64; seed++) {
        cr_run r;
        cr_init(&r);
        logrep_log *log;
        cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
        for (int i = 0; i < 5; i++)
            lt_append(log, 1, 40, 1, 0);
        logrep_log_abandon(log); /* nothing flushed: recovery scans from 0 */
        /* damage b2's length field (a sector that never made it) */
        const char *seg = "p/t-0/00000000000000000000.log";
        size_t len;
        uint8_t *data = lt_read(r.st, seg, &len);
        size_t one = len / 5;
        memset(data + 2 * one + 8, 0, 4);
        lt_write(r.st, seg, data, len);
        free(data);
        logrep_storage_crash_simulate(r.st, 0, LOGREP_CRASH_KEEP_ALL);
        logrep_err e = logrep_log_open(r.conf, r.st, "p/t-0", 0, &log);
        cr_assert_eq(e, 0, "%s", logrep_err_name(e));
        cr_assert_eq(logrep_log_end_offset(log), 2, "recovery cuts at the damaged batch");
        cr_assert_eq(lt_append(log, 1, 40, 1, 1), 2);
        logrep_log_abandon(log);
        cr_assert_eq(logrep_storage_crash_simulate(r.st, seed, LOGREP_CRASH_RANDOM), 0);
        cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
        cr_assert_leq(logrep_log_end_offset(log), 3, "seed %llu", (unsigned long long)seed);
        lt_check_log(log, r.st);
        cr_epochs_ordered(log, r.st);
        logrep_log_close(log);
        cr_fini(&r);
    }
}

/* Issue 13 (I2 after a clean restart): a leader-epoch-checkpoint write that
 * failed left the epoch in the cache only; the host's retry of the same
 * assignment saw "unchanged", wrote nothing, and a clean reopen lost the
 * epoch (so the log never told a follower to truncate). Every write, sync
 * and namespace call of the assignment fails once. */
Test(crash, failed_epoch_checkpoint_is_written_again)
{
    for (uint64_t n = 1;; n++) {
        cr_run r;
        cr_init(&r);
        logrep_log *log;
        cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
        lt_append(log, 2, 10, 1, 0);
        uint64_t before = logrep_storage_op_count(r.st, LOGREP_STORAGE_OP_ALL);
        cr_assert_eq(logrep_storage_crash_inject(r.st, LOGREP_STORAGE_OP_ALL, n,
                                                 n % 2 ? LOGREP_ERR__IO : LOGREP_ERR__NOSPACE, 0),
                     0);
        logrep_err first = logrep_log_epoch_assign(log, 3, 2);
        uint64_t ops = logrep_storage_op_count(r.st, LOGREP_STORAGE_OP_ALL) - before;
        logrep_storage_crash_inject(r.st, 0, 0, LOGREP_ERR__IO, 0); /* the fault clears */
        logrep_err retry = logrep_log_epoch_assign(log, 3, 2); /* the host retries */
        cr_assert_eq(retry, LOGREP_OK, "fault %llu: retry %s", (unsigned long long)n,
                     logrep_err_name(retry));
        lt_append(log, 1, 10, 1, 3);
        cr_assert_eq(logrep_log_close(log), 0);
        cr_assert_eq(logrep_log_open(r.conf, r.st, "p/t-0", 0, &log), 0);
        int32_t e;
        int64_t end;
        logrep_log_epoch_end_offset(log, 0, &e, &end);
        cr_assert(e == 0 && end == 2, "fault %llu (%s): epoch 0 ends at %lld, not 2",
                  (unsigned long long)n, logrep_err_name(first), (long long)end);
        logrep_log_close(log);
        cr_fini(&r);
        if (first == LOGREP_OK && n > ops)
            break;
        cr_assert_lt(n, 100);
    }
}
