/* Random simulation seeds: a bounded sweep in `make test`, the checker's
 * mutation tests (each deliberate bug must be caught), and, built with
 * LOGREP_SIM_SOAK_MAIN, the `make soak` driver.
 *
 * Reproduce a failing seed:  LOGREP_SIM_SEED=S make soak
 * (or LOGREP_SIM_SEED=S build/test/logrep_test --filter 'sim/reproduce'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <logrep/sim.h>
#include "sim_testutil.h"

static const char *env_bug(void)
{
    const char *b = getenv("LOGREP_SIM_BUG");
    return b && *b ? b : NULL;
}

/* LOGREP_SIM_CONTROLLERS=1 or 3 forces the controller mode of every
 * seed (0 or unset: the seed's own choice, a quorum for about a third). */
static int32_t env_controllers(void)
{
    const char *c = getenv("LOGREP_SIM_CONTROLLERS");
    return c && *c ? (int32_t)atoi(c) : 0;
}

static int run_seed(uint64_t seed, const char *bug, FILE *f, int tail)
{
    return sim_run_seed(seed, bug, env_controllers(), f, tail);
}

#ifdef LOGREP_SIM_SOAK_MAIN

int main(int argc, char **argv)
{
    const char *bug = env_bug();
    const char *one = getenv("LOGREP_SIM_SEED");
    if (one && *one) {
        uint64_t seed = strtoull(one, NULL, 10);
        const char *t = getenv("LOGREP_SIM_TAIL"); /* trace lines to print */
        int failed = run_seed(seed, bug, stdout, t && *t ? atoi(t) : 400);
        printf("%d passed, %d failed\n", !failed, failed);
        return failed;
    }
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
    const char *s0 = getenv("LOGREP_SIM_SEED0");
    uint64_t base = s0 && *s0 ? strtoull(s0, NULL, 10)
                              : ((uint64_t)time(NULL) * 2654435761u) % 1000000000u;
    printf("soak: %ld seeds from %llu%s%s, %d ms each\n", n, (unsigned long long)base,
           bug ? ", bug " : "", bug ? bug : "", SIM_RUN_MS);
    fflush(stdout);
    long failed = 0;
    for (long i = 0; i < n; i++) {
        if (run_seed(base + (uint64_t)i, bug, stdout, failed < 3 ? 60 : 0))
            failed++;
        fflush(stdout);
    }
    printf("%ld passed, %ld failed\n", n - failed, failed);
    return failed ? 1 : 0;
}

#else /* Criterion */

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#define SWEEP_TESTS 20
#define SWEEP_SEEDS 25 /* 20 x 25 = 500 seeds in make test */

ParameterizedTestParameters(sim, random_seeds)
{
    static int chunks[SWEEP_TESTS];
    for (int i = 0; i < SWEEP_TESTS; i++)
        chunks[i] = i;
    return cr_make_param_array(int, chunks, SWEEP_TESTS);
}

ParameterizedTest(int *chunk, sim, random_seeds)
{
    int failed = 0;
    uint64_t first = 1 + (uint64_t)*chunk * SWEEP_SEEDS;
    for (uint64_t seed = first; seed < first + SWEEP_SEEDS; seed++)
        failed += run_seed(seed, NULL, stderr, 120);
    cr_assert_eq(failed, 0, "%d of seeds %llu..%llu failed (see above)", failed,
                 (unsigned long long)first, (unsigned long long)(first + SWEEP_SEEDS - 1));
}

/* Seeds a soak found failing, replayed on every run (a seed's schedule
 * holds only on the commit it was found on; the scenarios in
 * test_sim_scenarios.c build each situation by construction). 36333: a
 * zombie leader's read below the true HW after an unclean election.
 * 5029404: a late AlterPartition answer settling the next proposal
 * (replica/stale_alter_answer_keeps_new_proposal). */
Test(sim, soak_regressions)
{
    /* 36333: a zombie read after an unclean election; 1248: OffsetFetch v1
     * with a group error; 5150: a stale assignment append; 12215: a commit
     * in flight while its group is deleted; 5029404: a late AlterPartition
     * answer settling a newer ISR proposal; 142365: a group deleted and
     * re-created within one step of its node. */
    static const uint64_t seeds[] = {36333, 1248, 5150, 12215, 5029404, 142365};
    int failed = 0;
    /* Found with one controller: replayed so (36333 draws a quorum now). */
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        failed += sim_run_seed(seeds[i], NULL, 1, stderr, 120);
    /* With a quorum. 1: the active controller served brokers metadata it
     * had proposed but not committed yet
     * (node_quorum/brokers_never_fetch_uncommitted_metadata); 1088: the
     * quorum stalled after a voter's disk loss, brokers fenced (brokers
     * kept asking a dead voter, node_quorum/broker_moves_off_a_dead_controller,
     * and a Vote answer held for a commit held up the fetches behind it,
     * node_quorum/vote_answered_while_records_wait_for_commit). */
    static const uint64_t qseeds[] = {1, 1088};
    for (size_t i = 0; i < sizeof qseeds / sizeof qseeds[0]; i++)
        failed += sim_run_seed(qseeds[i], NULL, 3, stderr, 120);
    cr_assert_eq(failed, 0, "%d regression seeds failed (see above)", failed);
}

/* LOGREP_SIM_SEED=S (and LOGREP_SIM_BUG) replays one seed with the whole
 * trace tail; without it, seed 1. */
Test(sim, reproduce)
{
    const char *one = getenv("LOGREP_SIM_SEED");
    uint64_t seed = one && *one ? strtoull(one, NULL, 10) : 1;
    cr_assert_eq(run_seed(seed, env_bug(), stderr, 400), 0, "seed %llu failed",
                 (unsigned long long)seed);
}

/* The checker is not vacuous: a bounded sweep with each deliberate bug
 * finds a violation, and the same seeds pass without it. */
static void bug_sweep(const char *bug)
{
    int found = 0, clean_failed = 0;
    for (uint64_t seed = 1; seed <= 30 && !found; seed++) {
        if (run_seed(seed, bug, NULL, 0)) {
            found = 1;
            clean_failed = run_seed(seed, NULL, stderr, 60);
            cr_log_info("bug %s caught by seed %llu", bug, (unsigned long long)seed);
        }
    }
    cr_assert(found, "no violation found with logrep.sim.bug=%s in 30 seeds", bug);
    cr_assert_eq(clean_failed, 0, "the seed that caught %s also fails without the bug", bug);
}

Test(sim, checker_catches_hw_ignores_isr)
{
    bug_sweep("hw-ignores-isr");
}

Test(sim, checker_catches_no_truncate)
{
    bug_sweep("no-truncate");
}

#endif
