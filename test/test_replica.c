/* Partition replica state machine (lib/replica/partition*.c), driven
 * directly: three replicas on in-memory storage, a test-side controller
 * that hands out metadata, and fetches shuttled by hand so each scenario
 * of docs/replication.md §3 is an exact schedule. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>
#include "lib/testutil.h"
#include "replica/partition.h"

#define N 3
#define LAG 10000

typedef struct cluster {
    logrep_storage *st[N + 1];
    lr_partition *p[N + 1]; /* by node id 1..N */
    lr_part_meta meta;
    int64_t now;
    uint64_t next_token;
    int rf;
} cluster;

static logrep_log *open_log(logrep_storage *st)
{
    logrep_log *log;
    cr_assert_eq(logrep_log_open(NULL, st, "t-0", 0, &log), LOGREP_OK);
    return log;
}

static void start_node(cluster *c, int id, int min_isr)
{
    lr_part_conf pc = {id, min_isr, LAG, 1048588};
    cr_assert_eq(lr_partition_new(&lr_alloc_default, NULL, &pc, open_log(c->st[id]), &c->p[id]), 0);
}

static void setup(cluster *c, int rf, int min_isr)
{
    memset(c, 0, sizeof *c);
    c->rf = rf;
    c->now = 1000;
    for (int id = 1; id <= rf; id++) {
        /* Crash storage: memory storage that can also inject faults. */
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &c->st[id]), LOGREP_OK);
        start_node(c, id, min_isr);
    }
    c->meta.n_replicas = rf;
    for (int i = 0; i < rf; i++)
        c->meta.replicas[i] = i + 1;
    c->meta.leader_epoch = -1;
}

static void teardown(cluster *c)
{
    for (int id = 1; id <= c->rf; id++) {
        lr_partition_free(c->p[id], 0);
        logrep_storage_free(c->st[id]);
    }
}

/* The controller elects `leader` with `isr` (0-terminated) in a new epoch
 * and every live replica learns it. */
static void elect(cluster *c, int leader, const int *isr)
{
    c->meta.leader = leader;
    c->meta.leader_epoch++;
    c->meta.partition_epoch++;
    c->meta.n_isr = 0;
    for (int i = 0; isr[i]; i++)
        c->meta.isr[c->meta.n_isr++] = isr[i];
    for (int id = 1; id <= c->rf; id++)
        if (c->p[id])
            cr_assert_eq(lr_partition_apply(c->p[id], &c->meta, c->now), 0);
}

/* Delivers the current metadata to one replica only. */
static void tell(cluster *c, int id)
{
    cr_assert_eq(lr_partition_apply(c->p[id], &c->meta, c->now), 0);
}

static void *record_batch(const char *value, int64_t pid, int16_t epoch, int32_t seq, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    if (pid >= 0)
        logrep_batch_builder_set_producer(b, pid, epoch, seq);
    cr_assert_eq(logrep_batch_builder_add(b, 1700000000000LL, NULL, -1, value, (int32_t)strlen(value), NULL, 0), LOGREP_OK);
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), LOGREP_OK);
    void *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

static lr_produce_res produce_idem(cluster *c, int id, const char *value, int16_t acks, int64_t pid,
                                   int16_t epoch, int32_t seq)
{
    size_t len;
    void *buf = record_batch(value, pid, epoch, seq, &len);
    lr_produce_res r;
    lr_partition_produce(c->p[id], buf, len, acks, 30000, ++c->next_token, c->now, &r);
    free(buf);
    return r;
}

static lr_produce_res produce(cluster *c, int id, const char *value, int16_t acks)
{
    return produce_idem(c, id, value, acks, -1, -1, -1);
}

/* One fetch round trip from follower `id` to its leader. Returns the
 * leader's error; *applied gets the follower's own result. */
static logrep_err replicate_res(cluster *c, int id, int *applied)
{
    *applied = 0;
    lr_follower_fetch ff;
    if (lr_partition_follower_fetch(c->p[id], &ff) != 0)
        return LOGREP_ERR__AGAIN;
    lr_partition *leader = c->p[ff.leader];
    cr_assert_not_null(leader);
    lr_fetch_req req = {id, 100 + id, ff.current_leader_epoch, ff.last_fetched_epoch,
                        ff.fetch_offset, 1 << 20, 1, 0, NULL};
    lr_fetch_res res;
    lr_partition_fetch(leader, &req, c->now, &res);
    uint8_t *bytes = NULL;
    if (res.slice.length) {
        bytes = malloc(res.slice.length);
        size_t n;
        logrep_storage *st = c->st[ff.leader];
        cr_assert_eq(st->read(st->ctx, res.slice.file, res.slice.position, bytes,
                              (size_t)res.slice.length, &n), LOGREP_OK);
        cr_assert_eq(n, res.slice.length);
    }
    *applied = lr_partition_follower_response(c->p[id], &ff, res.error, res.high_watermark,
                                              res.log_start_offset, res.diverging_epoch,
                                              res.diverging_end_offset, bytes,
                                              (size_t)res.slice.length, c->now);
    free(bytes);
    return res.error;
}

static logrep_err replicate(cluster *c, int id)
{
    int applied;
    logrep_err e = replicate_res(c, id, &applied);
    cr_assert_eq(applied, 0, "%s", logrep_err_name(applied));
    return e;
}

/* Replicates until nothing changes. */
static void settle(cluster *c)
{
    for (int round = 0; round < 10; round++)
        for (int id = 1; id <= c->rf; id++)
            if (c->p[id])
                replicate(c, id);
}

static int64_t leo(cluster *c, int id) { return logrep_log_end_offset(lr_partition_log(c->p[id])); }
static int64_t hw(cluster *c, int id) { return lr_partition_high_watermark(c->p[id]); }

/* Value of the record at `offset` on replica id (test payloads are text). */
static char *value_at(cluster *c, int id, int64_t offset)
{
    logrep_log *log = lr_partition_log(c->p[id]);
    logrep_log_slice s;
    if (logrep_log_read(log, offset, 1 << 20, INT64_MAX, 1, &s) != LOGREP_OK || !s.length)
        return NULL;
    uint8_t *buf = malloc(s.length);
    size_t n;
    cr_assert_eq(c->st[id]->read(c->st[id]->ctx, s.file, s.position, buf, (size_t)s.length, &n), LOGREP_OK);
    char *out = tu_record_value(buf, n, offset);
    free(buf);
    return out;
}

static void assert_value(cluster *c, int id, int64_t offset, const char *want)
{
    char *v = value_at(c, id, offset);
    cr_assert_not_null(v, "replica %d has no record at %lld", id, (long long)offset);
    cr_assert_str_eq(v, want, "replica %d offset %lld", id, (long long)offset);
    free(v);
}

static void crash(cluster *c, int id)
{
    lr_partition_free(c->p[id], 1);
    c->p[id] = NULL;
}

static void restart(cluster *c, int id, int min_isr)
{
    start_node(c, id, min_isr);
}

static const int A = 1, B = 2, C = 3;

/* ------------------------------------------------------------------ */

Test(replica, acks_all_waits_for_the_isr)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    lr_produce_res r = produce(&c, A, "m0", -1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert(r.parked);
    cr_assert_eq(hw(&c, A), 0);
    lr_produce_res done;
    cr_assert_eq(lr_partition_next_completion(c.p[A], &done), 0);
    replicate(&c, B); /* B copies m0 */
    cr_assert_eq(hw(&c, A), 0, "C has not fetched in this epoch");
    replicate(&c, C);
    replicate(&c, B); /* B's next fetch reports LEO 1 */
    cr_assert_eq(hw(&c, A), 0);
    replicate(&c, C);
    cr_assert_eq(hw(&c, A), 1);
    cr_assert_eq(lr_partition_next_completion(c.p[A], &done), 1);
    cr_assert_eq(done.error, LOGREP_OK);
    cr_assert_eq(done.base_offset, 0);
    cr_assert_eq(done.token, r.token);
    settle(&c);
    cr_assert_eq(hw(&c, B), 1);
    cr_assert_eq(hw(&c, C), 1);
    assert_value(&c, C, 0, "m0");
    teardown(&c);
}

Test(replica, acks_zero_and_one_do_not_wait)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    lr_produce_res r = produce(&c, A, "x", 1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert(!r.parked);
    cr_assert_eq(r.base_offset, 0);
    r = produce(&c, A, "y", 0);
    cr_assert_eq(r.base_offset, 1);
    r = produce(&c, A, "z", 2);
    cr_assert_eq(r.error, LOGREP_ERR_INVALID_REQUIRED_ACKS);
    r = produce(&c, B, "z", 1);
    cr_assert_eq(r.error, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    teardown(&c);
}

Test(replica, not_enough_replicas_before_and_after_append)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, 0});
    lr_produce_res r = produce(&c, A, "x", -1);
    cr_assert_eq(r.error, LOGREP_ERR_NOT_ENOUGH_REPLICAS);
    cr_assert_eq(leo(&c, A), 0, "nothing is appended");
    /* acks=1 data is appended but the HW is frozen under min ISR. */
    r = produce(&c, A, "y", 1);
    cr_assert_eq(r.error, LOGREP_OK);
    settle(&c);
    cr_assert_eq(hw(&c, A), 0);

    /* AFTER_APPEND: the ISR shrinks while a write waits; the write is
     * committed but reported with reduced redundancy. */
    cluster d;
    setup(&d, 3, 2);
    elect(&d, A, (int[]){A, B, C, 0});
    settle(&d);
    r = produce(&d, A, "w", -1);
    cr_assert(r.parked);
    replicate(&d, B);
    replicate(&d, B);
    d.now += LAG + 1;
    lr_partition_tick(d.p[A], d.now);
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(d.p[A], &alt, d.now), 1);
    cr_assert_eq(alt.n_isr, 2, "C is dropped");
    lr_partition_alter_done(d.p[A], alt.id, LOGREP_OK, alt.partition_epoch + 1, alt.isr, alt.n_isr, d.now);
    lr_produce_res done;
    cr_assert_eq(lr_partition_next_completion(d.p[A], &done), 1);
    cr_assert_eq(done.error, LOGREP_OK, "B and A hold it: ISR {A,B} >= 2");
    teardown(&c);
    teardown(&d);
}

Test(replica, produce_times_out)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    lr_produce_res r = produce(&c, A, "x", -1);
    cr_assert(r.parked);
    c.now += 30001;
    lr_partition_tick(c.p[A], c.now);
    lr_produce_res done;
    cr_assert_eq(lr_partition_next_completion(c.p[A], &done), 1);
    cr_assert_eq(done.error, LOGREP_ERR_REQUEST_TIMED_OUT);
    teardown(&c);
}

Test(replica, isr_shrink_then_expand_needs_hw_and_leso)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    for (int i = 0; i < 5; i++)
        produce(&c, A, "v", 1);
    replicate(&c, B);
    replicate(&c, B);
    c.now += LAG + 1;
    replicate(&c, B);
    lr_partition_tick(c.p[A], c.now);
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 2);
    cr_assert_eq(alt.isr[0], A);
    cr_assert_eq(alt.isr[1], B);
    /* The controller commits it; metadata comes back with the ISR. */
    c.meta.partition_epoch++;
    c.meta.n_isr = 2;
    c.meta.isr[0] = A;
    c.meta.isr[1] = B;
    tell(&c, A);
    lr_partition_alter_done(c.p[A], alt.id, LOGREP_OK, c.meta.partition_epoch, alt.isr, alt.n_isr, c.now);
    cr_assert_eq(hw(&c, A), 5);
    /* C catches up and is proposed back. */
    replicate(&c, C);
    replicate(&c, C);
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3);
    cr_assert_eq(alt.broker_epochs[2], 100 + C, "broker epoch from C's fetch");
    lr_part_status s;
    lr_partition_status(c.p[A], &s);
    cr_assert_eq(s.isr_shrinks, 1);
    cr_assert_eq(s.isr_expands, 1);
    teardown(&c);
}

/* An ISR expansion whose answer is lost (timeout, dropped connection) may
 * have been committed: the controller's ISR then holds the new member, so
 * the HW must keep waiting for it until newer metadata settles the
 * outcome. Found by soak seed 100040068: the leader dropped the proposal
 * on a timed-out AlterPartition, advanced its HW past the new member, and
 * the metadata that arrived next showed that member in the ISR. */
Test(replica, lost_alter_answer_keeps_maximal_isr)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, 0});
    produce(&c, A, "v", 1);
    settle(&c);
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3, "C caught up and is proposed");
    /* The controller commits it, but the answer never arrives. */
    c.meta.partition_epoch++;
    c.meta.n_isr = 3;
    c.meta.isr[2] = C;
    lr_partition_alter_done(c.p[A], alt.id, LOGREP_ERR__IO, 0, NULL, 0, c.now);
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 0, "held back by the retry delay");
    /* C falls behind, long enough that only ISR membership holds the HW. */
    int64_t c_leo = leo(&c, C);
    c.now += LAG + 1;
    for (int i = 0; i < 3; i++)
        produce(&c, A, "w", 1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(leo(&c, B), leo(&c, A));
    cr_assert_eq(hw(&c, A), c_leo, "HW %lld passed C (LEO %lld), which may be in the ISR",
                 (long long)hw(&c, A), (long long)c_leo);
    /* It is sent again once the delay has passed. */
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3);
    /* The controller moved on (the first try applied it): stale version. */
    lr_partition_alter_done(c.p[A], alt.id, LOGREP_ERR_INVALID_UPDATE_VERSION, 0, NULL, 0, c.now);
    c.now += LR_ALTER_RETRY_MS;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 0, "not retried: metadata settles it");
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), c_leo);
    /* The metadata shows C in the ISR: the HW follows C. */
    tell(&c, A);
    cr_assert_eq(hw(&c, A), c_leo);
    replicate(&c, C);
    replicate(&c, C);
    cr_assert_eq(hw(&c, A), leo(&c, A));
    teardown(&c);
}

/* INELIGIBLE_REPLICA says nothing was applied: the committed ISR stands and
 * the HW moves without the refused member. */
Test(replica, refused_alter_drops_the_proposal)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, 0});
    produce(&c, A, "v", 1);
    settle(&c);
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    lr_partition_alter_done(c.p[A], alt.id, LOGREP_ERR_INELIGIBLE_REPLICA, 0, NULL, 0, c.now);
    lr_part_status s;
    lr_partition_status(c.p[A], &s);
    cr_assert_eq(s.alter_in_flight, 0);
    cr_assert_eq(s.n_maximal_isr, 2);
    c.now += LAG + 1;
    produce(&c, A, "w", 1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), leo(&c, A), "C does not hold the HW");
    cr_assert_lt(leo(&c, C), leo(&c, A));
    teardown(&c);
}

/* Metadata commits a proposal before its answer comes, and the leader
 * proposes the next member: the late answer to the first must not settle
 * the second, whose member the controller may still add (seed 5029404). */
Test(replica, stale_alter_answer_keeps_new_proposal)
{
    cluster c;
    setup(&c, 3, 1);
    elect(&c, A, (int[]){A, 0});
    replicate(&c, B); /* B at the HW: proposed */
    lr_alter_req first, second;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &first, c.now), 1);
    cr_assert_eq(first.n_isr, 2);
    /* The controller commits it; metadata overtakes the answer. */
    c.meta.partition_epoch++;
    c.meta.n_isr = 2;
    c.meta.isr[1] = B;
    tell(&c, A);
    produce(&c, A, "v", 1);
    replicate(&c, C); /* C reports LEO 0, at the HW 0: proposed */
    cr_assert_eq(lr_partition_take_alter(c.p[A], &second, c.now), 1);
    cr_assert_eq(second.n_isr, 3);
    cr_assert_neq(second.id, first.id);
    /* The first proposal's answer arrives late. */
    lr_partition_alter_done(c.p[A], first.id, LOGREP_OK, c.meta.partition_epoch, first.isr,
                            first.n_isr, c.now);
    lr_part_status s;
    lr_partition_status(c.p[A], &s);
    cr_assert_eq(s.alter_in_flight, 1, "the answer was not for the proposal in flight");
    cr_assert_eq(s.n_maximal_isr, 3);
    c.now += LAG + 1; /* C counts only through the maximal ISR */
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(leo(&c, B), 1);
    cr_assert_eq(hw(&c, A), 0, "HW passed C (reported LEO 0), which the controller may add");
    /* The controller commits the second: C is in the ISR at LEO 0. */
    c.meta.partition_epoch++;
    c.meta.n_isr = 3;
    c.meta.isr[2] = C;
    lr_partition_alter_done(c.p[A], second.id, LOGREP_OK, c.meta.partition_epoch, second.isr,
                            second.n_isr, c.now);
    cr_assert_eq(hw(&c, A), 0);
    replicate(&c, C); /* reports LEO 1 */
    cr_assert_eq(hw(&c, A), 1);
    teardown(&c);
}

/* S8: a new leader with a stale HW must not let a follower join the ISR
 * before it reaches the leader epoch start offset. */
Test(replica, s8_expansion_waits_for_leso)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    for (int i = 0; i < 10; i++)
        produce(&c, A, "v", 1);
    replicate(&c, C); /* C: LEO 10 */
    /* B copies only 6 batches' worth: stop it by fetching with a limit. */
    settle(&c);
    cr_assert_eq(hw(&c, A), 10);
    for (int i = 0; i < 10; i++)
        produce(&c, A, "w", 1); /* 10..19 */
    replicate(&c, B);           /* B: LEO 20, HW 10 */
    cr_assert_eq(leo(&c, B), 20);
    cr_assert_eq(hw(&c, B), 10);
    /* A crashes; B is elected in e2 with stale HW 10 and LESO 20. */
    crash(&c, A);
    elect(&c, B, (int[]){B, C, 0});
    cr_assert_eq(hw(&c, B), 10);
    /* ListOffsets latest is not available while HW < LESO (S24). */
    int64_t off, ts;
    int32_t ep;
    cr_assert_eq(lr_partition_list_offsets(c.p[B], -1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_ERR_OFFSET_NOT_AVAILABLE);
    /* A consumer fetch between HW and LEO is empty, not out of range. */
    lr_fetch_req creq = {-1, -1, -1, -1, 15, 1 << 20, 1, 0, NULL};
    lr_fetch_res cres;
    cr_assert_eq(lr_partition_fetch(c.p[B], &creq, c.now, &cres), LOGREP_OK);
    cr_assert_eq(cres.slice.length, 0u);
    replicate(&c, C);
    replicate(&c, C);
    cr_assert_eq(hw(&c, B), 20);
    cr_assert_eq(lr_partition_list_offsets(c.p[B], -1, LOGREP_OFFSET_LATEST, 0, &off, &ts, &ep),
                 LOGREP_OK);
    cr_assert_eq(off, 20);
    cr_assert_eq(ep, 1, "the batch before offset 20 was written in epoch 1");
    restart(&c, A, 2);
    tell(&c, A);
    replicate(&c, A);
    replicate(&c, A);
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[B], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3);
    teardown(&c);
}

/* S1: acks=1 writes on a leader that dies before replication are
 * truncated when it rejoins as a follower. */
Test(replica, s1_acks1_leader_loss)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    for (int i = 0; i < 5; i++)
        produce(&c, A, "old", -1);
    settle(&c);
    cr_assert_eq(hw(&c, A), 5);
    for (int i = 0; i < 3; i++)
        produce(&c, A, "lost", 1);
    cr_assert_eq(leo(&c, A), 8);
    crash(&c, A);
    elect(&c, B, (int[]){B, C, 0});
    produce(&c, B, "new0", 1);
    produce(&c, B, "new1", 1);
    restart(&c, A, 2);
    tell(&c, A);
    settle(&c);
    cr_assert_eq(leo(&c, A), 7);
    assert_value(&c, A, 5, "new0");
    assert_value(&c, A, 6, "new1");
    assert_value(&c, C, 6, "new1");
    cr_assert_eq(hw(&c, A), 7);
    teardown(&c);
}

/* S4: fast failover; B holds y@10(e2) that nobody else has; C leads e3 and
 * must answer (e1, 11)... here offsets are scaled down. */
Test(replica, s4_fast_failover_truncates_in_one_round)
{
    cluster c;
    setup(&c, 3, 1);
    elect(&c, A, (int[]){A, B, C, 0}); /* e0 */
    for (int i = 0; i < 3; i++)
        produce(&c, A, "base", -1);
    settle(&c);
    produce(&c, A, "x", 1); /* x@3(e0) */
    replicate(&c, C);       /* C has x */
    crash(&c, A);
    elect(&c, B, (int[]){B, C, 0}); /* e1: B has no x */
    produce(&c, B, "y", 1);        /* y@3(e1), nobody fetches */
    crash(&c, B);
    elect(&c, C, (int[]){C, 0}); /* e2: C has x@3, cache (e2, 4) */
    produce(&c, C, "z", 1);     /* z@4(e2) */
    restart(&c, B, 1);
    tell(&c, B);
    settle(&c);
    assert_value(&c, B, 3, "x");
    assert_value(&c, B, 4, "z");
    cr_assert_eq(leo(&c, B), 5);
    teardown(&c);
}

/* S5: alternating unclean elections need two rounds of truncation. */
Test(replica, s5_alternating_unclean_elections)
{
    cluster c;
    setup(&c, 2, 1);
    elect(&c, A, (int[]){A, B, 0}); /* e0 */
    produce(&c, A, "m0", -1);
    settle(&c);
    crash(&c, A);
    elect(&c, B, (int[]){B, 0}); /* e1 */
    produce(&c, B, "b1", 1);    /* b1@1 */
    crash(&c, B);
    restart(&c, A, 1);
    elect(&c, A, (int[]){A, 0}); /* e2, unclean */
    produce(&c, A, "a1", 1);
    produce(&c, A, "a2", 1);
    produce(&c, A, "a3", 1); /* a1..a3@1-3 */
    crash(&c, A);
    restart(&c, B, 1);
    elect(&c, B, (int[]){B, 0}); /* e3 */
    produce(&c, B, "b2", 1);    /* b2@2 */
    crash(&c, B);
    restart(&c, A, 1);
    elect(&c, A, (int[]){A, 0}); /* e4 */
    produce(&c, A, "a4", 1);
    produce(&c, A, "a5", 1); /* a4 a5@4-5 */
    restart(&c, B, 1);
    tell(&c, B);
    settle(&c);
    cr_assert_eq(leo(&c, B), 6);
    const char *want[] = {"m0", "a1", "a2", "a3", "a4", "a5"};
    for (int o = 0; o < 6; o++) {
        assert_value(&c, A, o, want[o]);
        assert_value(&c, B, o, want[o]);
    }
    teardown(&c);
}

/* S6: C missed epoch e1 while A stayed its leader's id; on e2 with the
 * same leader A it must still reconcile. */
Test(replica, s6_missed_epoch_with_unchanged_leader)
{
    cluster c;
    setup(&c, 3, 1);
    elect(&c, A, (int[]){A, B, C, 0}); /* e0 */
    for (int i = 0; i < 2; i++)
        produce(&c, A, "base", -1);
    settle(&c);
    produce(&c, A, "x", 1); /* x@2(e0) */
    replicate(&c, C);       /* C has x */
    crash(&c, A);
    /* e1: B leads, C never hears of it. */
    c.meta.leader = B;
    c.meta.leader_epoch++;
    c.meta.partition_epoch++;
    c.meta.n_isr = 2;
    c.meta.isr[0] = B;
    c.meta.isr[1] = A;
    tell(&c, B);
    produce(&c, B, "y", 1); /* y@2(e1) */
    restart(&c, A, 1);
    tell(&c, A);
    settle(&c);
    assert_value(&c, A, 2, "y");
    /* e2: A leads again; C hears only this. */
    elect(&c, A, (int[]){A, B, C, 0});
    settle(&c);
    assert_value(&c, C, 2, "y");
    cr_assert_eq(leo(&c, C), leo(&c, A));
    teardown(&c);
}

/* S9: while an expansion is in flight the HW waits for the new member. */
Test(replica, s9_maximal_isr_holds_hw)
{
    cluster c;
    setup(&c, 3, 1);
    elect(&c, A, (int[]){A, B, 0});
    replicate(&c, C); /* C at LEO 0 == HW 0 == LESO 0: proposed */
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3);
    for (int i = 0; i < 10; i++)
        produce(&c, A, "v", 1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 0, "C is in the maximal ISR");
    replicate(&c, C);
    replicate(&c, C);
    cr_assert_eq(hw(&c, A), 10);
    teardown(&c);
}

/* The controller removes a dead follower from the ISR (its broker was
 * fenced) in the same leader epoch: the acks=all write it held completes
 * at once, not when the follower's lag time runs out. */
Test(replica, follower_removed_by_the_controller_stops_holding_the_hw)
{
    cluster c;
    setup(&c, 3, 2);
    c.now = 10 * LAG; /* "never caught up" (0) is then more than LAG ago */
    elect(&c, A, (int[]){A, B, C, 0});
    produce(&c, A, "m0", -1);
    settle(&c);
    cr_assert_eq(hw(&c, A), 1);
    lr_produce_res r = produce(&c, A, "m1", -1); /* C is dead from here on */
    cr_assert(r.parked);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 1, "C is in the ISR");
    c.now += 100;
    c.meta.partition_epoch++; /* C fenced: ISR {A, B}, same leader epoch */
    c.meta.n_isr = 2;
    c.meta.ineligible[2] = 1;
    tell(&c, A);
    tell(&c, B);
    cr_assert_eq(hw(&c, A), 2, "the HW waited for the fenced follower");
    lr_produce_res done;
    int found = 0;
    while (lr_partition_next_completion(c.p[A], &done) == 1)
        if (done.token == r.token) {
            cr_assert_eq(done.error, LOGREP_OK);
            cr_assert_eq(done.base_offset, 1);
            found = 1;
        }
    cr_assert(found, "the write C held is not answered");
    produce(&c, A, "m2", -1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 3);
    /* Registered again (eligible, the same partition epoch), back and
     * caught up, C counts again (the caught-up rule). */
    c.meta.ineligible[2] = 0;
    tell(&c, A);
    replicate(&c, C);
    replicate(&c, C);
    produce(&c, A, "m3", -1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 3, "C, caught up again, holds the HW until it fetches");
    replicate(&c, C);
    replicate(&c, C);
    cr_assert_eq(hw(&c, A), 4);
    teardown(&c);
}

/* S20a: a replayed fetch response after truncation is dropped. */
Test(replica, s20_stale_fetch_response_is_dropped)
{
    cluster c;
    setup(&c, 2, 1);
    elect(&c, A, (int[]){A, B, 0});
    produce(&c, A, "a", 1);
    lr_follower_fetch ff;
    cr_assert_eq(lr_partition_follower_fetch(c.p[B], &ff), 0);
    lr_fetch_req req = {B, 7, ff.current_leader_epoch, ff.last_fetched_epoch, ff.fetch_offset,
                        1 << 20, 1, 0, NULL};
    lr_fetch_res res;
    lr_partition_fetch(c.p[A], &req, c.now, &res);
    uint8_t buf[4096];
    size_t n;
    c.st[A]->read(c.st[A]->ctx, res.slice.file, res.slice.position, buf, (size_t)res.slice.length, &n);
    cr_assert_eq(lr_partition_follower_response(c.p[B], &ff, LOGREP_OK, res.high_watermark,
                                                res.log_start_offset, -1, -1, buf, n, c.now), 0);
    cr_assert_eq(leo(&c, B), 1);
    /* The same response again: fetch offset is no longer the LEO. */
    cr_assert_eq(lr_partition_follower_response(c.p[B], &ff, LOGREP_OK, res.high_watermark,
                                                res.log_start_offset, -1, -1, buf, n, c.now), 0);
    cr_assert_eq(leo(&c, B), 1);
    /* A response from an older epoch is ignored too. */
    elect(&c, A, (int[]){A, B, 0});
    cr_assert_eq(lr_partition_follower_response(c.p[B], &ff, LOGREP_OK, res.high_watermark,
                                                res.log_start_offset, -1, -1, buf, n, c.now), 0);
    cr_assert_eq(leo(&c, B), 1);
    teardown(&c);
}

Test(replica, epoch_fencing_of_requests)
{
    cluster c;
    setup(&c, 2, 1);
    elect(&c, A, (int[]){A, B, 0});
    elect(&c, A, (int[]){A, B, 0}); /* epoch 1 */
    lr_fetch_req req = {-1, -1, 0, -1, 0, 1 << 20, 1, 0, NULL};
    lr_fetch_res res;
    cr_assert_eq(lr_partition_fetch(c.p[A], &req, c.now, &res), LOGREP_ERR_FENCED_LEADER_EPOCH);
    req.current_leader_epoch = 5;
    cr_assert_eq(lr_partition_fetch(c.p[A], &req, c.now, &res), LOGREP_ERR_UNKNOWN_LEADER_EPOCH);
    int32_t e;
    int64_t o;
    cr_assert_eq(lr_partition_epoch_end(c.p[A], 0, 1, &e, &o), LOGREP_ERR_FENCED_LEADER_EPOCH);
    cr_assert_eq(lr_partition_epoch_end(c.p[B], 1, 1, &e, &o), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(lr_partition_epoch_end(c.p[A], 1, 1, &e, &o), LOGREP_OK);
    cr_assert_eq(e, 1);
    cr_assert_eq(o, 0);
    /* Stale metadata (lower partition epoch) is ignored. */
    lr_part_meta old = c.meta;
    old.partition_epoch = 0;
    old.leader_epoch = 0;
    old.leader = B;
    cr_assert_eq(lr_partition_apply(c.p[A], &old, c.now), 0);
    cr_assert_eq(lr_partition_role(c.p[A]), LR_ROLE_LEADER);
    teardown(&c);
}

Test(replica, idempotent_producer_dedup_and_sequence_checks)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    lr_produce_res r = produce_idem(&c, A, "s0", 1, 77, 0, 0);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert_eq(r.base_offset, 0);
    r = produce_idem(&c, A, "s1", 1, 77, 0, 1);
    cr_assert_eq(r.base_offset, 1);
    /* A retry of s0 is acknowledged with its original offset. */
    r = produce_idem(&c, A, "s0", 1, 77, 0, 0);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert_eq(r.base_offset, 0);
    cr_assert_eq(leo(&c, A), 2, "not written again");
    r = produce_idem(&c, A, "gap", 1, 77, 0, 5);
    cr_assert_eq(r.error, LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    r = produce_idem(&c, A, "bump", 1, 77, 1, 3);
    cr_assert_eq(r.error, LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, "a new epoch starts at 0");
    r = produce_idem(&c, A, "bump", 1, 77, 1, 0);
    cr_assert_eq(r.error, LOGREP_OK);
    r = produce_idem(&c, A, "old", 1, 77, 0, 2);
    cr_assert_eq(r.error, LOGREP_ERR_INVALID_PRODUCER_EPOCH);
    /* Followers rebuild the state: after failover the retry is still a
     * duplicate. */
    settle(&c);
    crash(&c, A);
    elect(&c, B, (int[]){B, C, 0});
    r = produce_idem(&c, B, "bump", 1, 77, 1, 0);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert_eq(r.base_offset, 2);
    cr_assert_eq(leo(&c, B), 3);
    teardown(&c);
}

/* S25: a consumer reading from a lagging follower (KIP-392). */
Test(replica, s25_follower_fetching)
{
    cluster c;
    setup(&c, 3, 1);
    const char *racks[] = {"r1", "r2", "r3"};
    for (int i = 0; i < 3; i++)
        c.meta.racks[i] = racks[i];
    elect(&c, A, (int[]){A, B, C, 0});
    for (int i = 0; i < 8; i++)
        produce(&c, A, "v", 1);
    settle(&c);
    for (int i = 0; i < 4; i++)
        produce(&c, A, "w", 1);
    replicate(&c, B); /* B: LEO 12 but HW still 8 */
    cr_assert_eq(hw(&c, B), 8);
    /* The leader points a consumer in rack r2 at B. */
    lr_fetch_req req = {-1, -1, -1, -1, 2, 1 << 20, 1, 0, "r2"};
    lr_fetch_res res;
    cr_assert_eq(lr_partition_fetch(c.p[A], &req, c.now, &res), LOGREP_OK);
    cr_assert_eq(res.preferred_read_replica, B);
    cr_assert_eq(res.slice.length, 0u);
    /* B serves up to its own HW. */
    req.client_rack = NULL;
    cr_assert_eq(lr_partition_fetch(c.p[B], &req, c.now, &res), LOGREP_OK);
    cr_assert_gt(res.slice.length, 0u);
    cr_assert_eq(res.slice.next_offset, 8);
    req.fetch_offset = 10; /* in [HW, LEO]: empty */
    cr_assert_eq(lr_partition_fetch(c.p[B], &req, c.now, &res), LOGREP_OK);
    cr_assert_eq(res.slice.length, 0u);
    req.fetch_offset = 13; /* beyond its LEO */
    cr_assert_eq(lr_partition_fetch(c.p[B], &req, c.now, &res), LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    teardown(&c);
}

Test(replica, hw_ignores_isr_bug_is_detectable)
{
    /* The fault switch used to prove the simulator's checker is not
     * vacuous changes behaviour here: HW jumps to the leader's LEO. */
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, B, C, 0});
    lr_partition_set_bug(c.p[A], LR_BUG_HW_IGNORES_ISR);
    produce(&c, A, "x", -1);
    cr_assert_eq(hw(&c, A), 1);
    teardown(&c);
}

Test(replica, lowering_min_isr_unfreezes_the_hw)
{
    cluster c;
    setup(&c, 3, 2);
    elect(&c, A, (int[]){A, 0});
    lr_produce_res r = produce(&c, A, "x", 1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert_eq(hw(&c, A), 0, "ISR 1 < min ISR 2: frozen");
    lr_partition_set_min_isr(c.p[A], 1, c.now);
    cr_assert_eq(hw(&c, A), 1);
    r = produce(&c, A, "y", -1);
    cr_assert_eq(r.error, LOGREP_OK);
    cr_assert(!r.parked);
    teardown(&c);
}

/* Issue 13 (I6, HW 7 above LEO 0): a follower told to truncate to its
 * log start rebuilds its log, and a disk error late in that (the epoch
 * checkpoint) returned before the HW was clamped to the cut log. Every
 * storage operation of the truncating round fails once. */
Test(replica, truncation_failing_late_still_clamps_the_hw)
{
    for (uint64_t k = 1;; k++) {
        cluster c;
        setup(&c, 2, 1);
        elect(&c, A, (int[]){A, B, 0}); /* e0 */
        for (int i = 0; i < 7; i++)
            produce(&c, A, "x", 1);
        settle(&c);
        cr_assert_eq(hw(&c, B), 7);
        crash(&c, A); /* A loses its disk and wins an unclean election */
        logrep_storage_free(c.st[A]);
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &c.st[A]), LOGREP_OK);
        restart(&c, A, 1);
        elect(&c, A, (int[]){A, 0});
        logrep_storage_crash_inject(c.st[B], LOGREP_STORAGE_OP_ALL, k,
                                    k % 2 ? LOGREP_ERR__IO : LOGREP_ERR__NOSPACE, 0);
        uint64_t before = logrep_storage_op_count(c.st[B], LOGREP_STORAGE_OP_ALL);
        int applied;
        replicate_res(&c, B, &applied);
        uint64_t ops = logrep_storage_op_count(c.st[B], LOGREP_STORAGE_OP_ALL) - before;
        lr_part_status st;
        lr_partition_status(c.p[B], &st);
        cr_assert(st.log_start_offset <= st.high_watermark && st.high_watermark <= st.log_end_offset,
                  "fault %llu (%s): start %lld HW %lld LEO %lld", (unsigned long long)k,
                  logrep_err_name(applied), (long long)st.log_start_offset,
                  (long long)st.high_watermark, (long long)st.log_end_offset);
        int done = applied == 0 && k > ops;
        if (done)
            cr_assert_eq(leo(&c, B), 0, "the round truncates to the new leader's log");
        teardown(&c);
        if (done)
            break;
        cr_assert_lt(k, 200, "the round never completed");
    }
}

/* Issue 13 (I15, a follower looping "truncated to 1 after diverging epoch
 * 0 end 5"): a follower whose cached epochs are all newer than the
 * leader's diverging epoch must cut at the start of its first epoch
 * (endOffsetFor, docs/storage.md), not keep its batches below the
 * leader's end offset and ask again forever. */
Test(replica, divergence_older_than_every_local_epoch_truncates_to_its_start)
{
    cluster c;
    setup(&c, 2, 1);
    elect(&c, A, (int[]){A, 0}); /* e0: B never fetches */
    for (int i = 0; i < 5; i++)
        produce(&c, A, "x", 1); /* x@0..4(e0) */
    elect(&c, B, (int[]){B, 0}); /* e1, unclean: A never fetches */
    produce(&c, B, "y", 1);      /* y@0(e1): B's cache is {e1: 0} */
    elect(&c, A, (int[]){A, 0}); /* e2, unclean: A answers (e0, 5) */
    cr_assert_eq(replicate(&c, B), LOGREP_OK);
    cr_assert_eq(leo(&c, B), 0, "y@0 of e1 is not in A's log");
    settle(&c);
    cr_assert_eq(leo(&c, B), 5);
    assert_value(&c, B, 0, "x");
    assert_value(&c, B, 4, "x");
    teardown(&c);
}

/* Issue 13 (I6, HW 96 above ISR member 4's LEO 95): metadata of the very
 * partition epoch an in-flight ISR expansion was proposed on (delayed
 * behind the leader's own AlterPartition answer) dropped the proposal, so
 * the HW passed the joining follower, which the controller then commits
 * into the ISR. */
Test(replica, metadata_replay_keeps_an_inflight_expansion_in_the_maximal_isr)
{
    cluster c;
    setup(&c, 3, 1);
    elect(&c, A, (int[]){A, B, 0});
    for (int i = 0; i < 5; i++)
        produce(&c, A, "x", 1);
    replicate(&c, B);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 5);
    replicate(&c, C);
    replicate(&c, C); /* C reaches the HW: proposed into the ISR */
    lr_alter_req alt;
    cr_assert_eq(lr_partition_take_alter(c.p[A], &alt, c.now), 1);
    cr_assert_eq(alt.n_isr, 3);
    cr_assert_eq(alt.partition_epoch, c.meta.partition_epoch);
    c.now += LAG + 1; /* C no longer counts as caught up outside the ISR */
    produce(&c, A, "y", 1);
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 5, "C (LEO 5) is in the maximal ISR");
    tell(&c, A); /* the state the proposal was made on, again */
    replicate(&c, B);
    cr_assert_eq(hw(&c, A), 5, "the proposal is still in flight");
    c.meta.partition_epoch++;
    lr_partition_alter_done(c.p[A], alt.id, LOGREP_OK, c.meta.partition_epoch, alt.isr, alt.n_isr, c.now);
    cr_assert_eq(hw(&c, A), 5);
    replicate(&c, C); /* gets y */
    replicate(&c, C); /* reports LEO 6 */
    cr_assert_eq(hw(&c, A), 6);
    teardown(&c);
}
