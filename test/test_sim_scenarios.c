/* The fault scenarios of docs/replication.md §3 (S1-S20, S24, S25) through whole
 * nodes and the simulated network. The checker verifies the invariants
 * after every step; each test also asserts the scenario's expected outcome.
 * Schedules are built from network blocks, kills and controlled shutdowns
 * (the simulator has no per-message hooks), so where the catalog names a
 * message-level interleaving the test drives the closest whole-node
 * schedule and says so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <logrep/sim.h>
#include "sim_testutil.h"

typedef struct sc {
    logrep_sim *s;
    int32_t L, F1, F2; /* leader and followers of partition 0 at start */
} sc;

static void dump_fail(logrep_sim *s, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, logrep_sim_failure(s) ? logrep_sim_failure(s) : "(no violation)");
    sim_dump(s, stderr, 150);
}

static void run(sc *c, int64_t ms)
{
    if (logrep_sim_run(c->s, ms) != LOGREP_OK) {
        dump_fail(c->s, "run");
        cr_assert_fail("violation: %s", logrep_sim_failure(c->s));
    }
}

static void start(sc *c, logrep_sim_conf conf)
{
    memset(c, 0, sizeof *c);
    logrep_err e = logrep_sim_new(&conf, &c->s);
    if (e) {
        dump_fail(c->s, "new");
        cr_assert_fail("sim_new: %s", logrep_err_name(e));
    }
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(c->s, 0, &v), LOGREP_OK);
    c->L = v.leader;
    int k = 0;
    for (int32_t i = 0; i < v.n_isr; i++)
        if (v.isr[i] != c->L)
            *(k++ == 0 ? &c->F1 : &c->F2) = v.isr[i];
}

static logrep_sim_conf conf3(uint64_t seed)
{
    logrep_sim_conf c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    return c;
}

static int32_t leader(sc *c, int32_t *epoch)
{
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(c->s, 0, &v), LOGREP_OK);
    if (epoch)
        *epoch = v.leader_epoch;
    return v.leader;
}

/* Runs until the controller names a running leader other than `not` that
 * leads in the controller's epoch. */
static int32_t await_leader(sc *c, int32_t not, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 50) {
        int32_t e, l = leader(c, &e);
        logrep_sim_replica r;
        if (l >= 0 && l != not && logrep_sim_replica_view(c->s, l, 0, &r) == LOGREP_OK &&
            r.role == 1 && r.leader_epoch == e)
            return l;
        run(c, 50);
    }
    cr_assert_fail("no new leader within %lld ms", (long long)max_ms);
    return -1;
}

/* Runs until partition 0's ISR has at least n members. */
static void await_isr(sc *c, int32_t n, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 50) {
        logrep_sim_part v;
        cr_assert_eq(logrep_sim_controller_view(c->s, 0, &v), LOGREP_OK);
        if (v.n_isr >= n)
            return;
        run(c, 50);
    }
    cr_assert_fail("ISR below %d after %lld ms", (int)n, (long long)max_ms);
}

static void produce_ok(sc *c, int32_t node, int16_t acks, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t base;
        logrep_err e = logrep_sim_produce(c->s, node, 0, acks, 1, 3000, &base);
        if (e != LOGREP_OK)
            dump_fail(c->s, "produce");
        cr_assert_eq(e, LOGREP_OK, "produce %d to %d: %s", i, node, logrep_err_name(e));
    }
}

static logrep_sim_replica view(sc *c, int32_t id)
{
    logrep_sim_replica r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(logrep_sim_replica_view(c->s, id, 0, &r), LOGREP_OK, "node %d", id);
    return r;
}

static void heal_and_free(sc *c)
{
    if (logrep_sim_heal(c->s, 20000) != LOGREP_OK) {
        dump_fail(c->s, "heal");
        cr_assert_fail("heal: %s", logrep_sim_failure(c->s));
    }
    logrep_sim_free(c->s);
}

static void cut_fetches(sc *c, int32_t f, int on)
{
    logrep_sim_block(c->s, f, c->L, on);
}

/* S1: acks=1 writes on a leader that dies before any follower fetched
 * them are truncated when it returns; they were never readable. */
Test(sim_scenarios, S01_acks1_leader_loss)
{
    sc c;
    start(&c, conf3(101));
    produce_ok(&c, c.L, -1, 5);
    cut_fetches(&c, c.F1, 1);
    cut_fetches(&c, c.F2, 1);
    produce_ok(&c, c.L, 1, 3);
    cr_assert_eq(view(&c, c.L).log_end_offset, 8);
    cr_assert_eq(view(&c, c.L).high_watermark, 5, "the acks=1 suffix is not committed");
    int32_t a = c.L;
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_PROCESS);
    cut_fetches(&c, c.F1, 0);
    cut_fetches(&c, c.F2, 0);
    int32_t b = await_leader(&c, a, 5000);
    produce_ok(&c, b, -1, 2);
    logrep_sim_restart(c.s, a);
    run(&c, 3000);
    cr_assert_eq(view(&c, a).log_end_offset, view(&c, b).log_end_offset, "A truncated and refetched");
    cr_assert_eq(logrep_sim_true_hw(c.s, 0), 7);
    heal_and_free(&c);
}

/* S2 (KIP-101 #1): with epochs a restarted follower keeps the record the
 * leader committed; after the leader dies it is elected and holds it.
 * The restart is a clean one, so the controller keeps it electable. */
Test(sim_scenarios, S02_hw_truncation_then_election)
{
    logrep_sim_conf k = conf3(102);
    k.brokers = 2;
    k.min_isr = 1;
    sc c;
    start(&c, k);
    produce_ok(&c, c.L, -1, 2);
    int32_t b = c.F1;
    cr_assert_eq(logrep_sim_shutdown(c.s, b, 5000), LOGREP_OK);
    logrep_sim_restart(c.s, b);
    run(&c, 1500);
    logrep_sim_part v;
    logrep_sim_controller_view(c.s, 0, &v);
    cr_assert_eq(v.n_isr, 2, "B back in the ISR");
    logrep_sim_kill(c.s, c.L, LOGREP_SIM_CRASH_PROCESS);
    cr_assert_eq(await_leader(&c, c.L, 5000), b);
    cr_assert_geq(view(&c, b).log_end_offset, 2, "B kept m1");
    heal_and_free(&c);
}

/* S3 (KIP-101 #2): both replicas lose power; the one back first is
 * elected (unclean) and writes; the other truncates to it. The loss is
 * sanctioned, logs converge. */
Test(sim_scenarios, S03_double_power_loss)
{
    logrep_sim_conf k = conf3(103);
    k.brokers = 2;
    k.min_isr = 1;
    k.unclean = 1;
    sc c;
    start(&c, k);
    produce_ok(&c, c.L, -1, 2);
    int32_t a = c.L, b = c.F1;
    logrep_sim_kill(c.s, b, LOGREP_SIM_CRASH_POWER_DROP);
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_POWER_DROP);
    logrep_sim_restart(c.s, b);
    cr_assert_eq(await_leader(&c, a, 8000), b);
    produce_ok(&c, b, 1, 1);
    logrep_sim_restart(c.s, a);
    run(&c, 3000);
    cr_assert_eq(view(&c, a).log_end_offset, view(&c, b).log_end_offset);
    logrep_sim_stats st;
    logrep_sim_stats_get(c.s, &st);
    cr_assert_gt(st.sanctioned, 0, "losing both copies is sanctioned, not silent");
    heal_and_free(&c);
}

/* S4 (KIP-279): a chain of fast failovers with acks=1 suffixes written by
 * short-lived leaders; every returning replica reconciles to the current
 * leader's log (multi-round truncation), and committed data survives. */
Test(sim_scenarios, S04_fast_failover_chain)
{
    sc c;
    start(&c, conf3(104));
    produce_ok(&c, c.L, -1, 10);
    int32_t a = c.L;
    cut_fetches(&c, c.F1, 1);
    produce_ok(&c, a, 1, 1); /* x@10 reaches F2 only */
    run(&c, 200);
    cut_fetches(&c, c.F1, 0);
    cr_assert_eq(logrep_sim_shutdown(c.s, a, 5000), LOGREP_OK);
    int32_t b = await_leader(&c, a, 5000);
    int32_t other = b == c.F1 ? c.F2 : c.F1;
    logrep_sim_block(c.s, other, b, 1);
    produce_ok(&c, b, 1, 1); /* y@ in the new epoch, not fetched by `other` */
    logrep_sim_kill(c.s, b, LOGREP_SIM_CRASH_PROCESS);
    logrep_sim_block(c.s, other, b, 0);
    logrep_sim_restart(c.s, a);
    int32_t l3 = await_leader(&c, b, 8000);
    await_isr(&c, 2, 5000); /* acks=all needs min ISR 2 */
    produce_ok(&c, l3, -1, 1);
    logrep_sim_restart(c.s, b);
    run(&c, 3000);
    cr_assert_geq(logrep_sim_true_hw(c.s, 0), 11);
    heal_and_free(&c);
}

/* S5: alternating unclean elections (RF 2, unclean on, acks=1): the
 * returning replica truncates over several rounds; losses sanctioned,
 * logs equal. */
Test(sim_scenarios, S05_alternating_unclean_elections)
{
    logrep_sim_conf k = conf3(105);
    k.brokers = 2;
    k.min_isr = 1;
    k.unclean = 1;
    sc c;
    start(&c, k);
    produce_ok(&c, c.L, 1, 1);
    run(&c, 300);
    int32_t x = c.L, y = c.F1;
    for (int round = 0; round < 3; round++) {
        logrep_sim_kill(c.s, x, LOGREP_SIM_CRASH_PROCESS);
        int32_t l = await_leader(&c, x, 8000);
        cr_assert_eq(l, y);
        produce_ok(&c, y, 1, 1 + round);
        logrep_sim_kill(c.s, y, LOGREP_SIM_CRASH_PROCESS);
        logrep_sim_restart(c.s, x);
        cr_assert_eq(await_leader(&c, y, 8000), x);
        produce_ok(&c, x, 1, 2);
        logrep_sim_restart(c.s, y);
        run(&c, 1500);
    }
    run(&c, 2000);
    cr_assert_eq(view(&c, x).log_end_offset, view(&c, y).log_end_offset);
    heal_and_free(&c);
}

/* S6 (KAFKA-7164): a replica that missed epochs still reconciles. C holds
 * x (an epoch-1 suffix B lacks) and is cut from everyone while leadership
 * moves to B, which writes in its own epoch; when C returns it must drop x
 * for B's records. (Whether A is re-elected in a third epoch, as in the
 * catalog, is the controller's choice; the test asserts C's reconciliation
 * against whichever leader it meets.) */
Test(sim_scenarios, S06_missed_epoch_same_leader)
{
    logrep_sim_conf k = conf3(106);
    k.session_timeout_ms = 8000;
    sc c;
    start(&c, k);
    produce_ok(&c, c.L, -1, 3);
    int32_t a = c.L, b = c.F1, cc = c.F2;
    logrep_sim_block(c.s, b, a, 1);
    produce_ok(&c, a, 1, 1); /* x reaches C only */
    run(&c, 200);
    logrep_sim_block(c.s, b, a, 0);
    logrep_sim_isolate(c.s, cc, 1);
    /* The shutdown cannot complete while C misses metadata (the controller
     * waits for every active broker), but leadership moves at once. */
    logrep_err e = logrep_sim_shutdown(c.s, a, 1000);
    cr_assert(e == LOGREP_OK || e == LOGREP_ERR__TIMED_OUT, "%s", logrep_err_name(e));
    cr_assert_eq(await_leader(&c, a, 5000), b);
    produce_ok(&c, b, 1, 1);
    logrep_sim_restart(c.s, a);
    run(&c, 1500);
    logrep_sim_isolate(c.s, cc, 0);
    run(&c, 4000);
    cr_assert_eq(view(&c, cc).log_end_offset, view(&c, b).log_end_offset);
    heal_and_free(&c);
}

/* S7 (Kip320 fenced reconciliation): B learns of a new epoch before the
 * old leader does. Here: the leader is cut from the controller, so its
 * followers see the new epoch first and their fetches to it are fenced
 * (UNKNOWN_LEADER_EPOCH/NOT_LEADER) rather than used for truncation. */
Test(sim_scenarios, S07_reconcile_against_stale_leader)
{
    sc c;
    start(&c, conf3(107));
    produce_ok(&c, c.L, -1, 5);
    int32_t a = c.L;
    logrep_sim_partition(c.s, a, 4, 1);
    int32_t b = await_leader(&c, a, 6000);
    produce_ok(&c, b, -1, 2);
    logrep_sim_partition(c.s, a, 4, 0);
    run(&c, 4000);
    cr_assert_eq(view(&c, a).log_end_offset, view(&c, b).log_end_offset);
    heal_and_free(&c);
}

/* S8 (KAFKA-7128): a follower that catches up to a new leader's stale HW
 * does not join the ISR before it reaches the leader epoch start offset. */
Test(sim_scenarios, S08_isr_expansion_needs_leso)
{
    sc c;
    start(&c, conf3(108));
    produce_ok(&c, c.L, -1, 5);
    int32_t a = c.L, cc = c.F2;
    cut_fetches(&c, cc, 1);
    run(&c, 2500); /* C leaves the ISR */
    produce_ok(&c, a, -1, 5);
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_PROCESS);
    cut_fetches(&c, cc, 0);
    int32_t b = await_leader(&c, a, 5000);
    cr_assert_neq(b, cc, "C was not in the ISR");
    logrep_sim_replica rb = view(&c, b);
    int joined = 0;
    for (int i = 0; i < 200 && joined < 20; i++) {
        logrep_sim_part v;
        cr_assert_eq(logrep_sim_controller_view(c.s, 0, &v), LOGREP_OK);
        for (int32_t k = 0; k < v.n_isr; k++)
            if (v.isr[k] == cc) {
                cr_assert_geq(view(&c, cc).log_end_offset, rb.leader_epoch_start_offset,
                              "C joined the ISR below the LESO");
                joined++;
            }
        run(&c, 50);
    }
    cr_assert(joined, "C never rejoined the ISR: the LESO rule was not exercised");
    heal_and_free(&c);
}

/* S9 (AsyncIsr): while an ISR expansion is in flight the HW waits for the
 * joining replica (maximal ISR). The checker's I6 bound covers it. */
Test(sim_scenarios, S09_async_isr_update)
{
    sc c;
    start(&c, conf3(109));
    int32_t cc = c.F2;
    cut_fetches(&c, cc, 1);
    run(&c, 2500);
    int32_t p = logrep_sim_producer(c.s, 0, -1, 1, 10, 3);
    run(&c, 500);
    cut_fetches(&c, cc, 0);
    run(&c, 3000);
    logrep_sim_actor_stop(c.s, p);
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(c.s, 0, &v), LOGREP_OK);
    cr_assert_eq(v.n_isr, 3, "C rejoined");
    heal_and_free(&c);
}

/* S10 (KIP-903): a replica that restarts with lost data gets a new broker
 * epoch and is not in the ISR until it re-fetched. */
Test(sim_scenarios, S10_stale_broker_epoch_rejoin)
{
    sc c;
    start(&c, conf3(110));
    produce_ok(&c, c.L, -1, 8);
    int32_t cc = c.F2;
    logrep_sim_kill(c.s, cc, LOGREP_SIM_CRASH_POWER_DROP);
    logrep_sim_restart(c.s, cc);
    for (int i = 0; i < 80; i++) {
        logrep_sim_part v;
        logrep_sim_controller_view(c.s, 0, &v);
        logrep_sim_replica r;
        for (int32_t k = 0; k < v.n_isr; k++)
            if (v.isr[k] == cc && logrep_sim_replica_view(c.s, cc, 0, &r) == LOGREP_OK)
                cr_assert_geq(r.log_end_offset, 8, "C in the ISR before re-fetching");
        run(&c, 50);
    }
    heal_and_free(&c);
}

/* S11 (Jepsen 2013): followers partitioned away; the leader cannot keep
 * acking acks=all alone (NOT_ENOUGH_REPLICAS once the ISR shrinks below
 * min ISR), a follower is elected from the ELR, no acked write is lost. */
Test(sim_scenarios, S11_isr_shrink_no_acked_loss)
{
    sc c;
    start(&c, conf3(111));
    produce_ok(&c, c.L, -1, 5);
    int32_t a = c.L;
    cut_fetches(&c, c.F1, 1);
    cut_fetches(&c, c.F2, 1);
    run(&c, 3000);
    int64_t base;
    logrep_err e = logrep_sim_produce(c.s, a, 0, -1, 1, 3000, &base);
    cr_assert(e == LOGREP_ERR_NOT_ENOUGH_REPLICAS || e == LOGREP_ERR_REQUEST_TIMED_OUT ||
                  e == LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
              "acks=all alone: %s", logrep_err_name(e));
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_PROCESS);
    cut_fetches(&c, c.F1, 0);
    cut_fetches(&c, c.F2, 0);
    int32_t b = await_leader(&c, a, 6000);
    cr_assert_geq(view(&c, b).log_end_offset, 5);
    heal_and_free(&c);
}

/* S12 (KIP-966): the last ISR member loses power; the ELR member is
 * elected, acked data survives. */
Test(sim_scenarios, S12_last_replica_standing_power_loss)
{
    sc c;
    start(&c, conf3(112));
    produce_ok(&c, c.L, -1, 6);
    int32_t a = c.L;
    logrep_sim_isolate(c.s, c.F1, 1);
    run(&c, 3000);
    logrep_sim_isolate(c.s, c.F2, 1);
    run(&c, 3000);
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_POWER_DROP);
    logrep_sim_isolate(c.s, c.F1, 0);
    logrep_sim_isolate(c.s, c.F2, 0);
    logrep_sim_restart(c.s, a);
    int32_t b = await_leader(&c, -1, 8000);
    cr_assert_geq(view(&c, b).log_end_offset, 6, "the elected replica holds the acked data");
    heal_and_free(&c);
}

/* S13: whole-cluster power outage; unclean restarts empty ISR and ELR, but
 * the last leader stays in LastKnownElr and leads again once it is back
 * (all three copies lost power: the checker sanctions what the power cut
 * took, and checks the rest). */
Test(sim_scenarios, S13_whole_cluster_outage)
{
    sc c;
    start(&c, conf3(113));
    produce_ok(&c, c.L, -1, 4);
    for (int32_t id = 1; id <= 3; id++)
        logrep_sim_kill(c.s, id, LOGREP_SIM_CRASH_POWER);
    run(&c, 3000);
    logrep_sim_part v;
    logrep_sim_controller_view(c.s, 0, &v);
    cr_assert_eq(v.leader, -1, "offline while every replica is down");
    cr_assert_eq(v.n_isr, 0);
    for (int32_t id = 1; id <= 3; id++)
        logrep_sim_restart(c.s, id);
    int32_t l = await_leader(&c, -1, 8000);
    logrep_sim_controller_view(c.s, 0, &v);
    cr_assert_eq(v.n_elr, 0);
    cr_assert(v.n_isr >= 1 && v.isr[0] == l);
    heal_and_free(&c);
}

/* Issue: kill -9 of every node, the controller included (its metadata log
 * on the crash-simulating storage), then all started again controller last
 * and controller first: the controller admits the new incarnations at once,
 * leaders come back and every acknowledged record is read back (no power
 * was lost, so nothing may be). */
static void whole_cluster_kill(uint64_t seed, int controller_first)
{
    sc c;
    logrep_sim_conf cf = conf3(seed);
    cf.session_timeout_ms = 6000;
    start(&c, cf);
    produce_ok(&c, c.L, -1, 6);
    int32_t ctl = 4;
    for (int32_t id = 1; id <= 4; id++)
        cr_assert_eq(logrep_sim_kill(c.s, id, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    run(&c, 500);
    if (controller_first)
        cr_assert_eq(logrep_sim_restart(c.s, ctl), LOGREP_OK);
    for (int32_t id = 1; id <= 3; id++) {
        cr_assert_eq(logrep_sim_restart(c.s, id), LOGREP_OK);
        run(&c, 100);
    }
    if (!controller_first)
        cr_assert_eq(logrep_sim_restart(c.s, ctl), LOGREP_OK);
    /* Well within one session timeout: nobody waits for an old session. */
    int32_t l = await_leader(&c, -1, 3000);
    cr_assert_geq(view(&c, l).log_end_offset, 6, "the leader holds every acked record");
    produce_ok(&c, l, -1, 2);
    logrep_sim_stats st;
    logrep_sim_stats_get(c.s, &st);
    cr_assert_eq(st.sanctioned, 0, "a process crash loses nothing");
    heal_and_free(&c);
}

Test(sim_scenarios, whole_cluster_kill_controller_first) { whole_cluster_kill(131, 1); }
Test(sim_scenarios, whole_cluster_kill_controller_last) { whole_cluster_kill(132, 0); }

/* One broker, one replica, kill -9 and restart: its partition leads again
 * with everything acknowledged (the last known leader, elected RECOVERING). */
Test(sim_scenarios, single_replica_kill_and_restart)
{
    sc c;
    logrep_sim_conf cf = conf3(133);
    cf.brokers = 1;
    cf.replication_factor = 1;
    cf.min_isr = 1;
    start(&c, cf);
    produce_ok(&c, c.L, -1, 5);
    cr_assert_eq(logrep_sim_kill(c.s, c.L, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    run(&c, 200);
    cr_assert_eq(logrep_sim_restart(c.s, c.L), LOGREP_OK);
    int32_t l = await_leader(&c, -1, 20000);
    cr_assert_eq(l, c.L);
    cr_assert_eq(view(&c, l).log_end_offset, 5);
    produce_ok(&c, l, -1, 1);
    heal_and_free(&c);
}

/* S14: a replaced disk: the replica restarts empty, stays out of ISR/ELR
 * until it re-fetched everything. */
Test(sim_scenarios, S14_disk_loss)
{
    sc c;
    start(&c, conf3(114));
    produce_ok(&c, c.L, -1, 7);
    int32_t cc = c.F2;
    logrep_sim_kill(c.s, cc, LOGREP_SIM_CRASH_DISK);
    logrep_sim_restart(c.s, cc);
    run(&c, 4000);
    cr_assert_eq(view(&c, cc).log_end_offset, 7, "re-fetched from the start");
    heal_and_free(&c);
}

/* S15: a zombie leader cut from followers and controller: acks=all writes
 * are never acknowledged, acks=1 writes vanish, nothing uncommitted is
 * read. */
Test(sim_scenarios, S15_zombie_leader)
{
    sc c;
    start(&c, conf3(115));
    produce_ok(&c, c.L, -1, 4);
    int32_t a = c.L;
    logrep_sim_isolate(c.s, a, 1);
    int64_t base;
    logrep_err e = logrep_sim_produce(c.s, a, 0, -1, 1, 2500, &base);
    cr_assert_neq(e, LOGREP_OK, "a zombie never acks acks=all");
    produce_ok(&c, a, 1, 2);
    int32_t b = await_leader(&c, a, 6000);
    produce_ok(&c, b, -1, 1);
    logrep_sim_isolate(c.s, a, 0);
    run(&c, 3000);
    cr_assert_eq(view(&c, a).log_end_offset, view(&c, b).log_end_offset);
    heal_and_free(&c);
}

/* S16: a flapping follower (its connections reset often). */
Test(sim_scenarios, S16_flapping_follower)
{
    sc c;
    start(&c, conf3(116));
    logrep_sim_link(c.s, c.F2, -1, 1, 5, 200000);
    int32_t p = logrep_sim_producer(c.s, 0, -1, 1, 10, 2);
    logrep_sim_consumer(c.s, 0, 20);
    run(&c, 6000);
    logrep_sim_actor_stop(c.s, p);
    logrep_sim_stats st;
    logrep_sim_stats_get(c.s, &st);
    cr_assert_gt(st.committed, 50, "HW keeps advancing via the others");
    heal_and_free(&c);
}

/* S17: a slow follower (paused longer than the lag limit) leaves the ISR
 * and rejoins after catching up. */
Test(sim_scenarios, S17_slow_follower)
{
    sc c;
    start(&c, conf3(117));
    int32_t p = logrep_sim_producer(c.s, 0, -1, 1, 10, 2);
    run(&c, 500);
    logrep_sim_pause(c.s, c.F2, 3000);
    run(&c, 2500);
    logrep_sim_part v;
    logrep_sim_controller_view(c.s, 0, &v);
    cr_assert_eq(v.n_isr, 2, "the slow follower left the ISR");
    run(&c, 4000);
    logrep_sim_controller_view(c.s, 0, &v);
    cr_assert_eq(v.n_isr, 3, "and came back");
    logrep_sim_actor_stop(c.s, p);
    heal_and_free(&c);
}

/* S18: clock jumps on the leader shrink the ISR (availability only); no
 * safety invariant depends on clocks. */
Test(sim_scenarios, S18_clock_jumps)
{
    sc c;
    start(&c, conf3(118));
    int32_t p = logrep_sim_producer(c.s, 0, -1, 1, 10, 2);
    run(&c, 500);
    int32_t min_isr = 3;
    for (int i = 0; i < 4; i++) {
        logrep_sim_clock_jump(c.s, c.L, 2500);
        for (int t = 0; t < 14; t++) {
            run(&c, 50);
            logrep_sim_part v;
            cr_assert_eq(logrep_sim_controller_view(c.s, 0, &v), LOGREP_OK);
            if (v.n_isr < min_isr)
                min_isr = v.n_isr;
        }
    }
    cr_assert_lt(min_isr, 3, "the jumps shrank the ISR");
    logrep_sim_actor_stop(c.s, p);
    heal_and_free(&c);
}

/* S19: a torn tail after power loss is cut by recovery; the lost suffix
 * is re-fetched or was uncommitted. */
Test(sim_scenarios, S19_torn_write_tail)
{
    sc c;
    start(&c, conf3(119));
    produce_ok(&c, c.L, -1, 5);
    int32_t a = c.L;
    produce_ok(&c, a, 1, 3);
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_POWER);
    int32_t b = await_leader(&c, a, 5000);
    logrep_sim_restart(c.s, a);
    run(&c, 3000);
    cr_assert_eq(view(&c, a).log_end_offset, view(&c, b).log_end_offset);
    heal_and_free(&c);
}

/* S20: resets, delays and retries: idempotent producers see no duplicate
 * or reordering (I11) under connection resets and leader changes. */
Test(sim_scenarios, S20_resets_and_retries)
{
    sc c;
    start(&c, conf3(120));
    logrep_sim_link(c.s, -1, -1, 1, 20, 30000);
    int32_t p1 = logrep_sim_producer(c.s, 0, -1, 1, 5, 3);
    int32_t p2 = logrep_sim_producer(c.s, 0, -1, 1, 7, 2);
    logrep_sim_consumer(c.s, 0, 15);
    run(&c, 2000);
    logrep_sim_shutdown(c.s, c.L, 3000);
    run(&c, 2000);
    logrep_sim_restart(c.s, c.L);
    run(&c, 2000);
    logrep_sim_actor_stop(c.s, p1);
    logrep_sim_actor_stop(c.s, p2);
    logrep_sim_stats st;
    logrep_sim_stats_get(c.s, &st);
    cr_assert_gt(st.acked, 50);
    heal_and_free(&c);
}

/* S24 (KIP-207): a new leader with a stale HW answers ListOffsets with
 * OFFSET_NOT_AVAILABLE until its HW reaches its epoch start; nothing
 * reports an end offset below one already shown (checked by I7/I9). */
Test(sim_scenarios, S24_new_leader_stale_hw)
{
    sc c;
    start(&c, conf3(124));
    produce_ok(&c, c.L, -1, 10);
    int32_t a = c.L;
    int64_t off;
    cr_assert_eq(logrep_sim_list_offsets(c.s, a, 0, -1, 1000, &off), LOGREP_OK);
    cr_assert_eq(off, 10);
    logrep_sim_kill(c.s, a, LOGREP_SIM_CRASH_PROCESS);
    int32_t b = await_leader(&c, a, 5000);
    logrep_sim_replica r = view(&c, b);
    logrep_err e = logrep_sim_list_offsets(c.s, b, 0, -1, 1000, &off);
    if (r.high_watermark < r.leader_epoch_start_offset)
        cr_assert_eq(e, LOGREP_ERR_OFFSET_NOT_AVAILABLE);
    else
        cr_assert(e == LOGREP_OK && off >= 10, "%s %lld", logrep_err_name(e), (long long)off);
    run(&c, 1000);
    cr_assert_eq(logrep_sim_list_offsets(c.s, b, 0, -1, 1000, &off), LOGREP_OK);
    cr_assert_geq(off, 10);
    heal_and_free(&c);
}

/* S25 (KIP-392): reading from a lagging follower in the consumer's rack:
 * below its HW records, between its HW and LEO nothing, beyond its LEO
 * OFFSET_OUT_OF_RANGE. */
Test(sim_scenarios, S25_follower_fetching)
{
    sc c;
    start(&c, conf3(125));
    produce_ok(&c, c.L, -1, 10);
    run(&c, 300);
    int32_t f = c.F1;
    char rack[16];
    snprintf(rack, sizeof rack, "rack%d", f);
    cut_fetches(&c, f, 1);
    produce_ok(&c, c.L, -1, 5);
    int32_t n;
    int64_t hw;
    logrep_err e = logrep_sim_fetch(c.s, f, 0, 0, rack, 1000, &n, &hw);
    cr_assert_eq(e, LOGREP_OK, "%s", logrep_err_name(e));
    cr_assert_eq(n, 10, "served up to its own HW");
    e = logrep_sim_fetch(c.s, f, 0, 12, rack, 1000, &n, &hw);
    cr_assert_eq(e, LOGREP_ERR_OFFSET_OUT_OF_RANGE, "%s", logrep_err_name(e));
    cut_fetches(&c, f, 0);
    heal_and_free(&c);
}

typedef struct dirs {
    const char *prefix, *suffix;
    int n;
} dirs;

static int dir_entry(void *ctx, const char *name)
{
    dirs *d = ctx;
    size_t pl = strlen(d->prefix), nl = strlen(name), sl = d->suffix ? strlen(d->suffix) : 0;
    if (strncmp(name, d->prefix, pl) == 0 &&
        (d->suffix ? nl >= pl + sl && strcmp(name + nl - sl, d->suffix) == 0 : nl == pl))
        d->n++;
    return 0;
}

/* Entries of node id's log dir named prefix, or prefix...suffix. */
static int count_dirs(sc *c, int32_t id, const char *prefix, const char *suffix)
{
    const logrep_storage *st = logrep_sim_storage(c->s, id);
    cr_assert(st);
    dirs d = {prefix, suffix, 0};
    cr_assert_eq(st->list(st->ctx, "data", dir_entry, &d), LOGREP_OK);
    return d.n;
}

/* S26 (KIP-516): the topic is deleted while a follower is down. On its
 * restart the old directory is a stray: renamed, removed after
 * file.delete.delay.ms, never adopted by the topic created again under
 * the same name, whose replicas all hold only the new records. */
Test(sim_scenarios, S26_deleted_while_down_is_stray)
{
    sc c;
    start(&c, conf3(126));
    produce_ok(&c, c.L, -1, 8);
    run(&c, 500);
    cr_assert_eq(logrep_sim_kill(c.s, c.F1, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    logrep_err e = logrep_sim_delete_topic(c.s, 5000);
    if (e)
        dump_fail(c.s, "delete");
    cr_assert_eq(e, LOGREP_OK, "delete: %s", logrep_err_name(e));
    cr_assert_eq(count_dirs(&c, c.F1, "t-0", NULL), 1, "the down replica's directory");
    cr_assert_eq(count_dirs(&c, c.L, "t-0", NULL), 0);
    cr_assert_eq(logrep_sim_restart(c.s, c.F1), LOGREP_OK);
    int stray = 0;
    for (int64_t t = 0; t < 5000 && !stray; t += 50) {
        run(&c, 50);
        stray = count_dirs(&c, c.F1, "t-0.", "-stray");
    }
    cr_assert_eq(stray, 1, "no stray directory on the restarted replica");
    cr_assert_eq(count_dirs(&c, c.F1, "t-0", NULL), 0);
    run(&c, 2000); /* unfenced: the topic can be placed on all three */
    e = logrep_sim_create_topic(c.s);
    if (e)
        dump_fail(c.s, "create");
    cr_assert_eq(e, LOGREP_OK, "create: %s", logrep_err_name(e));
    produce_ok(&c, leader(&c, NULL), -1, 3);
    run(&c, 3000);
    for (int32_t id = 1; id <= 3; id++)
        cr_assert_eq(view(&c, id).log_end_offset, 3, "node %d holds other records", id);
    cr_assert_eq(count_dirs(&c, c.F1, "t-0.", "-stray"), 0, "the stray was not removed");
    heal_and_free(&c);
}

/* RF 2, min ISR 1, unclean election on: leader a commits offset 4 alone
 * (b fell behind at 3), is cut from the controller, and b is elected
 * uncleanly; a stays a zombie of the older epoch. The controller is node
 * 3. */
static void zombie_after_unclean_election(sc *c, uint64_t seed, int32_t *a, int32_t *b)
{
    logrep_sim_conf k = conf3(seed);
    k.brokers = 2;
    k.min_isr = 1;
    k.unclean = 1;
    start(c, k);
    *a = c->L;
    *b = c->F1;
    produce_ok(c, *a, -1, 3);
    logrep_sim_partition(c->s, *a, *b, 1);
    produce_ok(c, *a, 1, 1); /* offset 3: b falls behind */
    run(c, 3000);
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(c->s, 0, &v), LOGREP_OK);
    cr_assert(v.n_isr == 1 && v.isr[0] == *a, "the ISR shrank to the leader");
    produce_ok(c, *a, -1, 1); /* offset 4: committed on a alone */
    logrep_sim_partition(c->s, *a, 3, 1);
    cr_assert_eq(await_leader(c, *a, 8000), *b, "b elected uncleanly");
    cr_assert_lt(logrep_sim_true_hw(c->s, 0), 5, "the unclean election lost committed records");
    int32_t e;
    leader(c, &e);
    cr_assert_lt(view(c, *a).leader_epoch, e, "a is a zombie of an older epoch");
}

/* Heals the zombie's links: it must truncate to b's log. */
static void zombie_rejoins(sc *c, int32_t a, int32_t b)
{
    logrep_sim_partition(c->s, a, b, 0);
    logrep_sim_partition(c->s, a, 3, 0);
    run(c, 3000);
    cr_assert_eq(view(c, a).log_end_offset, view(c, b).log_end_offset);
    heal_and_free(c);
}

/* Issue 13 (I8 after an unclean election): a zombie leader, alone in its
 * ISR with min ISR 1 and cut from the controller, acknowledges acks=all
 * writes after the controller has elected the other replica uncleanly.
 * That is the loss the unclean election sanctions (I8 holds only without
 * one): the checker must judge the acknowledgement by the epoch the
 * leader answered in, and the zombie must truncate when it rejoins. */
Test(sim_scenarios, zombie_ack_after_unclean_election)
{
    sc c;
    int32_t a, b;
    zombie_after_unclean_election(&c, 113, &a, &b);
    int64_t base;
    logrep_err err = logrep_sim_produce(c.s, a, 0, -1, 1, 3000, &base);
    if (logrep_sim_failure(c.s))
        dump_fail(c.s, "zombie ack");
    cr_assert_null(logrep_sim_failure(c.s));
    cr_assert_eq(err, LOGREP_OK, "the zombie acknowledges: %s", logrep_err_name(err));
    cr_assert_geq(base, 5);
    zombie_rejoins(&c, a, b);
}

/* Soak seed 36333 (I9 after an unclean election): the zombie serves a
 * consumer the records it committed alone, at offsets where the new leader
 * has since committed other records (below the new true HW, not only above
 * it). That read is the loss the unclean election sanctions, as for the
 * zombie's acknowledgements; the new leader's records are read strictly. */
Test(sim_scenarios, zombie_read_below_true_hw_after_unclean_election)
{
    sc c;
    int32_t a, b;
    zombie_after_unclean_election(&c, 136, &a, &b);
    produce_ok(&c, b, -1, 4); /* b's own records at offsets 3..6 */
    cr_assert_eq(logrep_sim_true_hw(c.s, 0), 7);
    cr_assert_eq(view(&c, a).high_watermark, 5);
    int32_t n = 0;
    int64_t hw = -1;
    logrep_err err = logrep_sim_fetch(c.s, a, 0, 3, NULL, 3000, &n, &hw);
    if (logrep_sim_failure(c.s))
        dump_fail(c.s, "zombie read");
    cr_assert_null(logrep_sim_failure(c.s));
    cr_assert_eq(err, LOGREP_OK, "the zombie serves: %s", logrep_err_name(err));
    cr_assert_eq(n, 2, "the zombie's records at 3 and 4, which C no longer has");
    cr_assert_eq(hw, 5);
    err = logrep_sim_fetch(c.s, b, 0, 3, NULL, 3000, &n, &hw);
    cr_assert_null(logrep_sim_failure(c.s));
    cr_assert_eq(err, LOGREP_OK);
    cr_assert_eq(n, 4);
    zombie_rejoins(&c, a, b);
}
