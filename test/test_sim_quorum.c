/* The simulator with a controller quorum (docs/simulator.md, "A
 * controller quorum"): three dedicated controller voters, brokers that
 * find the active one, and the controller faults of the catalog built by
 * construction: the active controller crashes, is cut from the other
 * voters (a zombie), two voters are lost in sequence, voters come back
 * with their disks lost, the whole cluster loses power. The checker
 * verifies every invariant after every step (one active controller per
 * quorum epoch, the committed metadata log never lost or changed on any
 * voter, brokers applying it in order, and the data invariants); each test
 * also asserts what the scenario must lead to, and ends with a heal that
 * must converge. Plus random quorum seeds. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include <logrep/sim.h>
#include "sim_testutil.h"

/* Three brokers, one partition RF 3 min ISR 2, three controller voters
 * (ids 4, 5, 6), an idempotent acks=all producer and a consumer. */
static logrep_sim *start(uint64_t seed)
{
    logrep_sim_conf c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    logrep_sim *s = sim_start(&c, 3);
    int32_t first;
    cr_assert_eq(logrep_sim_controllers(s, &first), 3);
    cr_assert_eq(first, 4);
    cr_assert_geq(logrep_sim_active_controller(s), 4);
    logrep_sim_producer(s, 0, -1, 1, 20, 3);
    logrep_sim_consumer(s, 0, 30);
    return s;
}

/* Runs until a controller other than `not` is active (max_ms); its id. */
static int32_t await_active(logrep_sim *s, int32_t not, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 20) {
        int32_t a = logrep_sim_active_controller(s);
        if (a > 0 && a != not)
            return a;
        sim_run(s, 20);
    }
    sim_dump_fail(s, "await_active");
    cr_assert_fail("no active controller other than %d within %lld ms", not, (long long)max_ms);
    return -1;
}

static int32_t part_leader(logrep_sim *s, int32_t *epoch)
{
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(s, 0, &v), LOGREP_OK);
    if (epoch)
        *epoch = v.leader_epoch;
    return v.leader;
}

/* The partition gets a leader other than `not` in a newer epoch. */
static int32_t await_new_leader(logrep_sim *s, int32_t not, int32_t epoch, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 20) {
        int32_t e, l = part_leader(s, &e);
        if (l > 0 && l != not && e > epoch)
            return l;
        sim_run(s, 20);
    }
    sim_dump_fail(s, "await_new_leader");
    cr_assert_fail("partition 0 has no new leader within %lld ms", (long long)max_ms);
    return -1;
}

static void heal(logrep_sim *s)
{
    sim_heal(s);
    cr_assert_geq(logrep_sim_active_controller(s), 4, "no active controller after the heal");
    logrep_sim_stats st;
    logrep_sim_stats_get(s, &st);
    cr_assert_gt(st.acked, 0, "nothing was acknowledged");
}

/* Q1: the active controller crashes. Another voter becomes active in a
 * higher quorum epoch, and it serves: a partition leader's crash is
 * handled (a new leader elected by the new controller, committed and
 * learned by the brokers). The old controller restarts as a standby. */
Test(sim_quorum, active_controller_crash)
{
    logrep_sim *s = start(101);
    sim_run(s, 500);
    int32_t a = logrep_sim_active_controller(s);
    logrep_sim_voter v0;
    cr_assert_eq(logrep_sim_voter_view(s, a, &v0), LOGREP_OK);
    cr_assert(v0.active);
    cr_assert_eq(logrep_sim_kill(s, a, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    int32_t b = await_active(s, a, 5000);
    logrep_sim_voter v1;
    cr_assert_eq(logrep_sim_voter_view(s, b, &v1), LOGREP_OK);
    cr_assert_gt(v1.epoch, v0.epoch, "the new active controller's epoch %d is not above %d",
                 v1.epoch, v0.epoch);
    int32_t e, l = part_leader(s, &e);
    cr_assert_eq(logrep_sim_kill(s, l, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    await_new_leader(s, l, e, 5000);
    cr_assert_eq(logrep_sim_restart(s, a), LOGREP_OK);
    sim_run(s, 1000);
    cr_assert_eq(logrep_sim_active_controller(s), b, "the restarted voter took over");
    heal(s);
    logrep_sim_free(s);
}

/* Q2: the active controller is cut from the other voters (brokers still
 * reach it): a zombie. It stops acting (check-quorum) and the other two
 * elect one of them; meanwhile a partition leader dies, and only the new
 * controller's election of its successor takes effect. The zombie's
 * records never commit and no broker applies them (the checker). */
Test(sim_quorum, controller_partitioned_from_voters)
{
    logrep_sim *s = start(102);
    sim_run(s, 500);
    int32_t a = logrep_sim_active_controller(s);
    for (int32_t o = 4; o <= 6; o++)
        if (o != a)
            logrep_sim_partition(s, a, o, 1);
    int32_t e, l = part_leader(s, &e);
    cr_assert_eq(logrep_sim_kill(s, l, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    int32_t b = await_active(s, a, 5000);
    await_new_leader(s, l, e, 5000);
    sim_run(s, 1500);
    logrep_sim_voter va;
    cr_assert_eq(logrep_sim_voter_view(s, a, &va), LOGREP_OK);
    cr_assert(!va.active, "the cut-off controller %d still acts", a);
    cr_assert_eq(logrep_sim_active_controller(s), b);
    for (int32_t o = 4; o <= 6; o++)
        if (o != a)
            logrep_sim_partition(s, a, o, 0);
    sim_run(s, 1000);
    heal(s);
    logrep_sim_free(s);
}

/* Q3: two voters lost in sequence: a standby, then the active one. The
 * one left cannot be elected alone (no active controller while it is
 * alone, and the checker holds it to one leader per epoch); data already
 * led keeps flowing. When one voter returns, the two elect a leader that
 * holds everything committed. */
Test(sim_quorum, two_voters_lost_in_sequence)
{
    logrep_sim *s = start(103);
    sim_run(s, 500);
    int32_t a = logrep_sim_active_controller(s);
    int32_t b = a == 4 ? 5 : 4, c = 15 - a - b;
    cr_assert_eq(logrep_sim_kill(s, b, LOGREP_SIM_CRASH_POWER), LOGREP_OK);
    sim_run(s, 500);
    cr_assert_eq(logrep_sim_active_controller(s), a, "one voter down: %d stays active", a);
    int64_t committed = logrep_sim_metadata_committed(s);
    cr_assert_eq(logrep_sim_kill(s, a, LOGREP_SIM_CRASH_POWER_DROP), LOGREP_OK);
    for (int t = 0; t < 2000; t += 50) {
        sim_run(s, 50);
        cr_assert_eq(logrep_sim_active_controller(s), -1, "voter %d acts alone", c);
    }
    int64_t base;
    cr_assert_eq(logrep_sim_produce(s, part_leader(s, NULL), 0, -1, 2, 3000, &base), LOGREP_OK,
                 "the partition's leader stopped serving without a controller");
    cr_assert_eq(logrep_sim_restart(s, b), LOGREP_OK);
    int32_t n = await_active(s, a, 6000);
    cr_assert(n == b || n == c);
    cr_assert_geq(logrep_sim_metadata_committed(s), committed);
    cr_assert_eq(logrep_sim_restart(s, a), LOGREP_OK);
    heal(s);
    logrep_sim_free(s);
}

/* Q4: voters restart with their disks lost. A standby's disk is replaced
 * (the metadata directory left present and empty, as docs/quorum.md
 * says): it comes back abstaining and must not vote or count for
 * commits; it is trusted again after a leader change it took no part in.
 * Then the active controller loses its disk: the other two elect a
 * leader, and the old one rejoins from nothing. Nothing committed is
 * lost on any voter (the checker). */
Test(sim_quorum, voters_restart_with_disk_loss)
{
    logrep_sim *s = start(104);
    sim_run(s, 500);
    int32_t a = logrep_sim_active_controller(s);
    int32_t b = a == 4 ? 5 : 4;
    cr_assert_eq(logrep_sim_kill(s, b, LOGREP_SIM_CRASH_DISK), LOGREP_OK);
    sim_run(s, 300);
    cr_assert_eq(logrep_sim_restart(s, b), LOGREP_OK);
    sim_run(s, 500);
    logrep_sim_voter vb;
    cr_assert_eq(logrep_sim_voter_view(s, b, &vb), LOGREP_OK);
    cr_assert(vb.up && vb.abstaining, "voter %d lost its disk and does not abstain", b);
    cr_assert_eq(logrep_sim_active_controller(s), a);
    /* A leader change without b: the active controller restarts. */
    cr_assert_eq(logrep_sim_kill(s, a, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    sim_run(s, 300);
    cr_assert_eq(logrep_sim_restart(s, a), LOGREP_OK);
    await_active(s, -1, 6000);
    for (int t = 0; t < 6000 && vb.abstaining; t += 50) {
        sim_run(s, 50);
        logrep_sim_voter_view(s, b, &vb);
    }
    cr_assert(!vb.abstaining, "voter %d is not trusted again after a leader change", b);
    int32_t a2 = logrep_sim_active_controller(s);
    cr_assert_eq(logrep_sim_kill(s, a2, LOGREP_SIM_CRASH_DISK), LOGREP_OK);
    int32_t n = await_active(s, a2, 6000);
    int32_t e, l = part_leader(s, &e);
    cr_assert_eq(logrep_sim_kill(s, l, LOGREP_SIM_CRASH_PROCESS), LOGREP_OK);
    await_new_leader(s, l, e, 5000);
    cr_assert_eq(logrep_sim_restart(s, a2), LOGREP_OK);
    sim_run(s, 1000);
    cr_assert_eq(logrep_sim_active_controller(s), n);
    heal(s);
    logrep_sim_free(s);
}

/* Q5: the whole cluster loses power: every broker and every voter at
 * once, unsynced writes torn or dropped. All restart in turn; a quorum
 * forms again from the voters' durable state, every acknowledged record
 * is still there (I8 and the heal's tail read) and the committed metadata
 * log is intact on every voter. */
Test(sim_quorum, whole_cluster_power_loss)
{
    logrep_sim *s = start(105);
    sim_run(s, 1500);
    int64_t committed = logrep_sim_metadata_committed(s);
    for (int32_t id = 1; id <= 6; id++)
        cr_assert_eq(logrep_sim_kill(s, id, id % 2 ? LOGREP_SIM_CRASH_POWER
                                                   : LOGREP_SIM_CRASH_POWER_DROP),
                     LOGREP_OK);
    sim_run(s, 1000);
    static const int32_t order[] = {5, 2, 6, 1, 4, 3};
    for (size_t i = 0; i < 6; i++) {
        cr_assert_eq(logrep_sim_restart(s, order[i]), LOGREP_OK);
        sim_run(s, 100);
    }
    await_active(s, -1, 8000);
    cr_assert_geq(logrep_sim_metadata_committed(s), committed);
    heal(s);
    logrep_sim_free(s);
}

/* Random seeds in quorum mode (the controller faults of
 * lib/sim/random.c, with the brokers' own). A failing seed prints how to
 * replay it: LOGREP_SIM_SEED=S LOGREP_SIM_CONTROLLERS=3 make soak. */
#define QSWEEP_TESTS 4
#define QSWEEP_SEEDS 8

ParameterizedTestParameters(sim_quorum, random_seeds)
{
    static int chunks[QSWEEP_TESTS];
    for (int i = 0; i < QSWEEP_TESTS; i++)
        chunks[i] = i;
    return cr_make_param_array(int, chunks, QSWEEP_TESTS);
}

ParameterizedTest(int *chunk, sim_quorum, random_seeds)
{
    int failed = 0;
    uint64_t first = 1 + (uint64_t)*chunk * QSWEEP_SEEDS;
    for (uint64_t seed = first; seed < first + QSWEEP_SEEDS; seed++)
        failed += sim_run_seed(seed, NULL, 3, stderr, 120);
    cr_assert_eq(failed, 0, "%d of quorum seeds %llu..%llu failed (see above)", failed,
                 (unsigned long long)first, (unsigned long long)(first + QSWEEP_SEEDS - 1));
}
