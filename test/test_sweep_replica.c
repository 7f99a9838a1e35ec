/* Fault sweep of one replicated partition: a leader and a follower
 * (lib/replica/partition*.c) exchanging fetches by hand while acks=all
 * produces complete. Every allocation of both replicas, and every write
 * and sync of the leader's or the follower's storage, fails once and from
 * there on. Each run: a failure reaches the caller (produce, follower
 * response) as the fault's error or KAFKA_STORAGE_ERROR; nothing leaks;
 * once the fault clears (reopening a replica whose log stopped), the two
 * replicas converge and every acknowledged record is on both, with its
 * value, also after both logs are reopened. docs/testing.md. */
#include <string.h>

#include <logrep/log.h>
#include "replica/partition.h"
#include "sweep.h"

#define SR_RECORDS 12
#define SR_LAG 10000

enum { SR_LEADER = 1, SR_FOLLOWER = 2 };

typedef struct sr_run {
    const sw_fault *f;
    int on;                       /* whose storage the fault hits */
    tu_heap heap;
    logrep_allocator a;
    logrep_conf *conf;
    logrep_storage *st[3];
    lr_partition *p[3];
    lr_part_meta meta;
    int lead, fol;                /* the current leader and follower */
    int unapplied;                /* a replica has not taken r->meta yet */
    int32_t fault_epoch;          /* the leader epoch under the fault */
    int64_t now;
    int acked[SR_RECORDS + 1];    /* by value index: 1 once acks=all completed */
    int answered[SR_RECORDS + 1]; /* acknowledged or refused */
    int64_t offset[SR_RECORDS + 1];
    logrep_err failed;
} sr_run;

static void sr_note(sr_run *r, logrep_err err, const char *step)
{
    if (!err)
        return;
    char what[80];
    sw_describe(r->f, what, sizeof what);
    /* The replica answers a failed local write as Kafka does; one that
     * could not take its new leader epoch is not the leader yet, and a
     * new epoch answers the produces parked in the old one. */
    cr_assert(sw_expected_err(r->f, err) || err == LOGREP_ERR_KAFKA_STORAGE_ERROR ||
                  ((r->unapplied || r->meta.leader_epoch > r->fault_epoch) &&
                   err == LOGREP_ERR_NOT_LEADER_OR_FOLLOWER),
              "%s: %s failed with %s", what, step, logrep_err_name(err));
    if (!r->failed)
        r->failed = err;
}

static void sr_open(sr_run *r, int id)
{
    logrep_log *log;
    logrep_err err = logrep_log_open(r->conf, r->st[id], "t-0", 0, &log);
    char what[80];
    sw_describe(r->f, what, sizeof what);
    cr_assert_eq(err, 0, "%s: open replica %d: %s", what, id, logrep_err_name(err));
    lr_part_conf pc = {id, 1, SR_LAG, 1048588};
    cr_assert_eq(lr_partition_new(&r->a, NULL, &pc, log, &r->p[id]), 0);
    cr_assert_eq(lr_partition_apply(r->p[id], &r->meta, r->now), 0);
}

/* A new leader epoch (the controller's answer to a reopened replica). */
/* Applies the metadata to both replicas, as the host does until it
 * takes (a failed apply changes nothing). */
static void sr_apply(sr_run *r)
{
    r->unapplied = 0;
    for (int id = 1; id <= 2; id++) {
        int err = r->p[id] ? lr_partition_apply(r->p[id], &r->meta, r->now) : 0;
        r->unapplied |= err != 0;
        sr_note(r, err, "apply");
    }
}

static void sr_new_epoch(sr_run *r)
{
    r->meta.leader_epoch++;
    r->meta.partition_epoch++;
    sr_apply(r);
}

static uint8_t *sr_batch(int i, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    char val[16];
    snprintf(val, sizeof val, "r%d", i);
    cr_assert_eq(logrep_batch_builder_add(b, 1000 + i, NULL, -1, val, (int32_t)strlen(val), NULL, 0), 0);
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), 0);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

/* One fetch round trip from the follower. */
static void sr_replicate(sr_run *r)
{
    lr_follower_fetch ff;
    if (lr_partition_follower_fetch(r->p[r->fol], &ff) != 0)
        return;
    lr_fetch_req req = {r->fol, 100, ff.current_leader_epoch, ff.last_fetched_epoch,
                        ff.fetch_offset, 1 << 20, 1, 0, NULL};
    lr_fetch_res res;
    lr_partition_fetch(r->p[r->lead], &req, r->now, &res);
    uint8_t *bytes = NULL;
    if (res.slice.length) {
        bytes = malloc(res.slice.length);
        size_t n;
        logrep_storage *st = r->st[r->lead];
        cr_assert_eq(st->read(st->ctx, res.slice.file, res.slice.position, bytes,
                              (size_t)res.slice.length, &n), LOGREP_OK);
    }
    int err = lr_partition_follower_response(r->p[r->fol], &ff, res.error, res.high_watermark,
                                             res.log_start_offset, res.diverging_epoch,
                                             res.diverging_end_offset, bytes,
                                             (size_t)res.slice.length, r->now);
    free(bytes);
    sr_note(r, err, "follower response");
}

static void sr_collect(sr_run *r)
{
    lr_partition_tick(r->p[r->lead], r->now);
    lr_produce_res done;
    while (lr_partition_next_completion(r->p[r->lead], &done)) {
        int i = (int)done.token;
        r->answered[i] = 1;
        if (!done.error) {
            r->acked[i] = 1;
            r->offset[i] = done.base_offset;
        } else {
            sr_note(r, done.error, "acks=all completion");
        }
    }
}

/* Record "r<i>" to the leader; acks=1 ones are not counted as
 * acknowledged (Kafka may lose them when the leader changes). */
static void sr_produce(sr_run *r, int i, int16_t acks)
{
    size_t len;
    uint8_t *b = sr_batch(i, &len);
    lr_produce_res res;
    lr_partition_produce(r->p[r->lead], b, len, acks, 30000, (uint64_t)i, r->now, &res);
    free(b);
    r->answered[i] = !res.parked;
    if (res.error)
        sr_note(r, res.error, "produce");
    else if (!res.parked && acks == -1) {
        r->acked[i] = 1;
        r->offset[i] = res.base_offset;
    }
}

/* The value of the record at `offset` on replica id, "" when none. */
static void sr_value(sr_run *r, int id, int64_t offset, char *out, size_t cap)
{
    out[0] = 0;
    logrep_log_slice s;
    if (logrep_log_read(lr_partition_log(r->p[id]), offset, 1 << 20, INT64_MAX, 1, &s) != 0 ||
        !s.length)
        return;
    uint8_t *buf = malloc(s.length);
    size_t n;
    cr_assert_eq(r->st[id]->read(r->st[id]->ctx, s.file, s.position, buf, (size_t)s.length, &n), 0);
    logrep_batch_reader *rd;
    logrep_batch_reader_new(NULL, &rd);
    size_t pos = 0;
    while (pos + 12 < n && !out[0]) {
        logrep_batch_header h;
        if (logrep_batch_reader_open(rd, buf + pos, n - pos, &h) != 0)
            break;
        logrep_record rec;
        while (logrep_batch_reader_next(rd, &rec) == 0)
            if (rec.offset == offset)
                snprintf(out, cap, "%.*s", (int)rec.value_len, (const char *)rec.value);
        pos += (size_t)h.batch_length + 12;
    }
    logrep_batch_reader_free(rd);
    free(buf);
}

static void sr_check(sr_run *r, const char *when)
{
    char what[80];
    sw_describe(r->f, what, sizeof what);
    for (int i = 0; i < SR_RECORDS; i++) {
        if (!r->acked[i])
            continue;
        char want[16], got[32];
        snprintf(want, sizeof want, "r%d", i);
        for (int id = 1; id <= 2; id++) {
            sr_value(r, id, r->offset[i], got, sizeof got);
            cr_assert_str_eq(got, want, "%s: %s: replica %d lost acknowledged %s at %lld", what,
                             when, id, want, (long long)r->offset[i]);
        }
    }
}

static int sr_stopped(sr_run *r, int id)
{
    return logrep_log_roll(lr_partition_log(r->p[id]), r->now) == LOGREP_ERR_KAFKA_STORAGE_ERROR;
}

static void sr_reopen(sr_run *r, int id, int abandon)
{
    lr_partition_free(r->p[id], abandon);
    r->p[id] = NULL;
    sr_open(r, id);
}

/* Two replicas on crash storages, replica 1 leading in epoch 0; the
 * fault hits replica `on`. */
static void sr_begin(sr_run *r, const sw_fault *f, int on)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->on = on;
    r->now = 1000;
    r->a = tu_heap_allocator(&r->heap);
    r->conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set_allocator(r->conf, &r->a), 0);
    cr_assert_eq(logrep_conf_set(r->conf, "segment.bytes", "400", NULL, 0), 0);
    r->meta.leader = SR_LEADER;
    r->meta.n_replicas = r->meta.n_isr = 2;
    r->meta.replicas[0] = r->meta.isr[0] = SR_LEADER;
    r->meta.replicas[1] = r->meta.isr[1] = SR_FOLLOWER;
    r->lead = SR_LEADER;
    r->fol = SR_FOLLOWER;
    for (int id = 1; id <= 2; id++) {
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &r->st[id]), 0);
        sr_open(r, id);
    }
}

/* The fault clears (the workload ran its n records since ops0): a
 * replica whose log stopped is reopened (the leader's reopen comes back
 * in a new epoch); the two converge, every produce was answered, and the
 * acknowledged records are on both, also after both restart. Returns the
 * calls of the fault's kind made. */
static long sr_end(sr_run *r, int *seen, uint64_t ops0, int n)
{
    const sw_fault *f = r->f;
    long calls = f->alloc ? r->heap.allocs : (long)(logrep_storage_op_count(r->st[r->on], f->ops) - ops0);
    char what[80];
    sw_describe(f, what, sizeof what);
    if (!f->k)
        cr_assert_eq(r->failed, 0, "the counting run failed: %s", logrep_err_name(r->failed));
    /* A failed allocation may also be absorbed by a clean retry (a
     * completion queued again on the next event); that it then answers
     * every request is checked below. Storage faults always surface. */
    *seen = r->failed != 0 || (f->alloc && r->heap.failed);
    sw_clear(f, &r->heap, r->st[r->on]);

    sr_apply(r);
    int reopened = 0;
    for (int id = 1; id <= 2; id++)
        if (sr_stopped(r, id)) {
            sr_reopen(r, id, 1);
            reopened = 1;
        }
    if (reopened)
        sr_new_epoch(r);
    for (int round = 0; round < 40; round++) {
        r->now += 10;
        sr_replicate(r);
        sr_collect(r);
    }
    int64_t leo1 = logrep_log_end_offset(lr_partition_log(r->p[r->lead]));
    int64_t leo2 = logrep_log_end_offset(lr_partition_log(r->p[r->fol]));
    cr_assert_eq(leo2, leo1, "%s: the follower did not catch up (%lld, leader %lld)", what,
                 (long long)leo2, (long long)leo1);
    for (int i = 0; i < n; i++)
        cr_assert(r->answered[i], "%s: produce %d never answered", what, i);
    sr_check(r, "after the fault");
    /* And after both restart from what their storage kept. */
    for (int id = 1; id <= 2; id++)
        sr_reopen(r, id, 0);
    sr_new_epoch(r);
    sr_check(r, "after a restart");
    for (int id = 1; id <= 2; id++) {
        lr_partition_free(r->p[id], 0);
        logrep_storage_free(r->st[id]);
    }
    logrep_conf_free(r->conf);
    cr_assert_eq(r->heap.live_blocks, 0, "%s: %ld blocks leaked", what, r->heap.live_blocks);
    return calls;
}

static long sr_workload(const sw_fault *f, int on, int *seen)
{
    sr_run r;
    sr_begin(&r, f, on);
    uint64_t ops0 = logrep_storage_op_count(r.st[on], f->ops);
    sw_arm(f, &r.heap, r.st[on]);
    for (int i = 0; i < SR_RECORDS; i++) {
        sr_produce(&r, i, -1);
        sr_replicate(&r);
        sr_replicate(&r); /* the second carries the HW */
        if (i % 4 == 3)
            sr_note(&r, logrep_log_flush(lr_partition_log(r.p[r.fol]), r.now), "flush");
        sr_collect(&r);
        r.now += 10;
    }
    return sr_end(&r, seen, ops0, SR_RECORDS);
}

/* Divergence: replica 1 leads epoch 0, where r0..r3 are replicated and
 * r4..r7 (acks=1) are not; replica 2 then leads epoch 1 with r8..r9
 * (acks=all). Under the fault replica 1, now a follower, learns that
 * epoch 0 ended at offset 4 on the leader, truncates its r4..r7 there
 * (truncation and checkpoint writes failing) and copies r8..r9. */
static long sr_diverge(const sw_fault *f, int *seen)
{
    sr_run r;
    sr_begin(&r, f, SR_LEADER);
    for (int i = 0; i < 8; i++) {
        sr_produce(&r, i, i < 4 ? -1 : 1);
        if (i < 4) {
            sr_replicate(&r);
            sr_replicate(&r);
            sr_collect(&r);
        }
        r.now += 10;
    }
    cr_assert_eq(r.failed, 0);
    cr_assert_eq(logrep_log_end_offset(lr_partition_log(r.p[SR_LEADER])), 8);
    cr_assert_eq(logrep_log_end_offset(lr_partition_log(r.p[SR_FOLLOWER])), 4);
    uint64_t ops0 = logrep_storage_op_count(r.st[SR_LEADER], f->ops);
    sw_arm(f, &r.heap, r.st[SR_LEADER]);
    r.meta.leader = SR_FOLLOWER;
    r.lead = SR_FOLLOWER;
    r.fol = SR_LEADER;
    r.fault_epoch = 1;
    sr_new_epoch(&r);
    for (int i = 8; i < 10; i++)
        sr_produce(&r, i, -1);
    for (int round = 0; round < 6; round++) {
        if (r.unapplied)
            sr_apply(&r);
        sr_replicate(&r);
        sr_collect(&r);
        r.now += 10;
    }
    for (int i = 4; i < 8; i++)
        r.answered[i] = 1; /* acks=1: answered at once */
    return sr_end(&r, seen, ops0, 10);
}

static long sr_on_leader(const sw_fault *f, int *seen) { return sr_workload(f, SR_LEADER, seen); }
static long sr_on_follower(const sw_fault *f, int *seen) { return sr_workload(f, SR_FOLLOWER, seen); }

Test(sweep_replica, every_allocation_fails, .timeout = 120)
{
    sw_sweep(sr_on_leader, 1, 0, LOGREP_ERR__NOMEM, sw_stride(1));
}

Test(sweep_replica, every_leader_write_and_sync_fails, .timeout = 120)
{
    sw_sweep(sr_on_leader, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sr_on_leader, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__NOSPACE, sw_stride(1));
    sw_sweep(sr_on_leader, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__IO, sw_stride(1));
}

Test(sweep_replica, every_follower_write_and_sync_fails, .timeout = 120)
{
    sw_sweep(sr_on_follower, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sr_on_follower, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__NOSPACE, sw_stride(1));
    sw_sweep(sr_on_follower, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__IO, sw_stride(1));
}

Test(sweep_replica, diverged_follower_truncates_while_faults_hit)
{
    sw_sweep(sr_diverge, 1, 0, LOGREP_ERR__NOMEM, sw_stride(1));
    sw_sweep(sr_diverge, 0, LOGREP_STORAGE_OP_TRUNCATE, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sr_diverge, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, sw_stride(1));
    sw_sweep(sr_diverge, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__NOSPACE, sw_stride(1));
    sw_sweep(sr_diverge, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__IO, sw_stride(1));
}
