/* Consumer groups in the simulator: members of classic groups against the
 * nodes' group coordinators, with the group checker (G1-G4, G15 after a
 * heal) running after every step. Fixed random seeds that draw groups,
 * and scenarios built by construction. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include <logrep/sim.h>
#include "sim_testutil.h"

static logrep_sim *start(uint64_t seed, int32_t partitions, int32_t retention_minutes)
{
    logrep_sim_conf c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    c.partitions = partitions;
    c.offsets_retention_minutes = retention_minutes;
    logrep_sim *s = sim_start(&c, 1);
    for (int32_t p = 0; p < partitions; p++)
        logrep_sim_producer(s, p, -1, 1, 20, 3);
    return s;
}

static void heal_and_free(logrep_sim *s)
{
    sim_heal(s);
    logrep_sim_free(s);
}

static logrep_sim_member view(logrep_sim *s, int32_t m)
{
    logrep_sim_member v;
    cr_assert_eq(logrep_sim_group_member_view(s, m, &v), LOGREP_OK);
    return v;
}

/* Runs until the live members among ms[] are stable in one generation
 * above `above` and own every partition between them. */
static int32_t settle(logrep_sim *s, const int32_t *ms, int n, int32_t partitions, int32_t above,
                      int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 50) {
        int ok = 1, owned = 0;
        int32_t gen = -1;
        for (int i = 0; i < n && ok; i++) {
            logrep_sim_member v = view(s, ms[i]);
            if (v.gone)
                continue;
            ok = v.stable && v.generation > above && (gen < 0 || gen == v.generation);
            gen = v.generation;
            owned += v.n_assigned;
        }
        if (ok && owned == partitions)
            return gen;
        sim_run(s, 50);
    }
    sim_dump_fail(s, "settle");
    cr_assert_fail("the group did not settle in %lld ms", (long long)max_ms);
    return -1;
}

static logrep_sim_stats stats(logrep_sim *s)
{
    logrep_sim_stats st;
    logrep_sim_stats_get(s, &st);
    return st;
}

/* Members join, split the partitions, consume, commit; a stopped member
 * commits and leaves, and the other takes its partitions over from the
 * committed offsets. */
Test(sim_groups, members_consume_commit_and_hand_over)
{
    logrep_sim *s = start(101, 3, 0);
    int32_t m[3] = {logrep_sim_group_member(s, 0, 20), logrep_sim_group_member(s, 0, 30),
                    logrep_sim_group_member(s, 0, 40)};
    int32_t gen = settle(s, m, 3, 3, -1, 10000);
    sim_run(s, 3000);
    logrep_sim_stats st = stats(s);
    cr_assert_gt(st.group_commits, 0);
    cr_assert_gt(st.group_fetches, 0);
    cr_assert_gt(st.consumed, 0);
    logrep_sim_actor_stop(s, m[2]);
    gen = settle(s, m, 3, 3, gen, 10000);
    cr_assert(view(s, m[2]).gone);
    sim_run(s, 2000);
    for (int32_t p = 0; p < 3; p++) {
        int64_t off = -2;
        cr_assert_eq(logrep_sim_offset_fetch(s, 0, p, 5000, &off), LOGREP_OK);
        cr_assert_geq(off, 0, "partition %d has no committed offset", p);
    }
    heal_and_free(s);
}

/* A member that dies (no LeaveGroup, no heartbeats) is expired by its
 * session timeout and the survivors take its partitions. */
Test(sim_groups, dead_member_expires)
{
    logrep_sim *s = start(102, 2, 0);
    int32_t m[2] = {logrep_sim_group_member(s, 0, 20), logrep_sim_group_member(s, 0, 20)};
    int32_t gen = settle(s, m, 2, 2, -1, 10000);
    sim_run(s, 1000);
    logrep_sim_group_member_kill(s, m[0]);
    settle(s, m, 2, 2, gen, 15000);
    cr_assert_eq(view(s, m[1]).n_assigned, 2);
    heal_and_free(s);
}

/* By construction: the coordinator's node loses power right after it
 * acknowledged a commit. The offsets partition moves to a replica, the
 * group re-forms on the new coordinator, and what it fetches is at least
 * the acknowledged offset (G1 checks every fetch; the test checks the
 * outcome too). */
Test(sim_groups, coordinator_crash_after_commit)
{
    logrep_sim *s = start(103, 2, 0);
    int32_t m[3] = {logrep_sim_group_member(s, 0, 20), logrep_sim_group_member(s, 0, 20), -1};
    int32_t gen = settle(s, m, 2, 2, -1, 10000);
    sim_run(s, 1000);
    /* Step until a new commit is acknowledged. */
    int64_t before = stats(s).group_commits;
    int64_t t = 0;
    for (; t < 5000 && stats(s).group_commits == before; t++)
        sim_run(s, 1);
    cr_assert_gt(stats(s).group_commits, before, "no commit acknowledged");
    int64_t acked[2] = {-1, -1};
    int32_t coord = -1;
    for (int i = 0; i < 2; i++) {
        logrep_sim_member v = view(s, m[i]);
        for (int32_t k = 0; k < v.n_assigned; k++)
            acked[v.assigned[k]] = v.committed[k];
        if (v.coordinator >= 0)
            coord = v.coordinator;
    }
    cr_assert_geq(coord, 1);
    char note[160];
    snprintf(note, sizeof note, "test: coordinator %d loses power after acknowledging commits %lld, %lld",
             coord, (long long)acked[0], (long long)acked[1]);
    logrep_sim_note(s, note);
    cr_assert_eq(logrep_sim_kill(s, coord, LOGREP_SIM_CRASH_POWER_DROP), LOGREP_OK);
    /* A new member makes everyone rejoin and fetch the offsets. */
    m[2] = logrep_sim_group_member(s, 0, 20);
    settle(s, m, 3, 2, gen, 20000);
    for (int i = 0; i < 3; i++)
        cr_assert_neq(view(s, m[i]).coordinator, coord);
    for (int32_t p = 0; p < 2; p++) {
        int64_t off = -2;
        cr_assert_eq(logrep_sim_offset_fetch(s, 0, p, 5000, &off), LOGREP_OK);
        cr_assert_geq(off, acked[p], "partition %d: fetched %lld after %lld was acknowledged", p,
                      (long long)off, (long long)acked[p]);
    }
    cr_assert_eq(logrep_sim_restart(s, coord), LOGREP_OK);
    heal_and_free(s);
}

/* G4 from the other side: with offsets.retention.minutes=1, the offsets
 * of a group that became empty stay for the minute, then expire. */
Test(sim_groups, offsets_expire_as_configured)
{
    logrep_sim *s = start(104, 1, 1);
    int32_t m[1] = {logrep_sim_group_member(s, 0, 20)};
    settle(s, m, 1, 1, -1, 10000);
    sim_run(s, 2000);
    logrep_sim_actor_stop(s, m[0]);
    for (int64_t t = 0; t < 5000 && !view(s, m[0]).gone; t += 50)
        sim_run(s, 50);
    cr_assert(view(s, m[0]).gone);
    int64_t off = -2;
    sim_run(s, 30000);
    cr_assert_eq(logrep_sim_offset_fetch(s, 0, 0, 5000, &off), LOGREP_OK);
    cr_assert_geq(off, 0, "expired before the retention");
    sim_run(s, 35000);
    cr_assert_eq(logrep_sim_offset_fetch(s, 0, 0, 5000, &off), LOGREP_OK);
    cr_assert_eq(off, -1, "not expired after the retention: %lld", (long long)off);
    heal_and_free(s);
}

/* Random runs whose seeds draw consumer groups (with every fault). */
ParameterizedTestParameters(sim_groups, random_seeds)
{
    static uint64_t seeds[] = {4, 5, 7, 8, 9, 10, 14, 15};
    return cr_make_param_array(uint64_t, seeds, sizeof seeds / sizeof seeds[0]);
}

ParameterizedTest(uint64_t *seed, sim_groups, random_seeds)
{
    logrep_sim *s = NULL;
    logrep_err e = logrep_sim_random(*seed, NULL, 5000, &s);
    if (e != LOGREP_OK) {
        if (s)
            sim_dump_fail(s, "random");
        logrep_sim_free(s);
        cr_assert_fail("seed %llu: %s (LOGREP_SIM_SEED=%llu make soak)", (unsigned long long)*seed,
                       logrep_err_name(e), (unsigned long long)*seed);
    }
}
