/* The quorum under a hostile network and unreliable nodes, seeded: drops,
 * duplicates, delays (so reordering), partitions, crashes with and without
 * losing the unflushed tail, restarts, one disk loss at a time, clock
 * jumps. After every step qt_check verifies election safety, state machine
 * safety against the model of everything ever committed, leader
 * completeness, log matching and monotonic epochs; after the chaos, the
 * heal must elect a leader that commits a new entry within a bound.
 *
 * LOGREP_QUORUM_SEEDS=n runs n seeds per test instead of the default
 * (make test's budget), LOGREP_QUORUM_SEED=s runs seed s alone and
 * LOGREP_QUORUM_STEPS=k sets the chaos steps (docs/quorum.md). A failure
 * prints its seed. With snap_permille the nodes also snapshot and trim
 * their logs at random (each checked against the model), so that laggards,
 * restarted and wiped voters and the observer fetch snapshots. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/quorum_testutil.h"

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    long v = s ? strtol(s, NULL, 10) : 0;
    return v > 0 ? v : dflt;
}

typedef struct totals {
    long seeds, steps, elections, crashes, disk_losses, partitions, jumps, snapshots, installs;
    uint64_t committed;
} totals;

static void run_seed(int voters, int observers, uint64_t seed, const qt_params *p, long steps,
                     totals *t)
{
    qt_cluster *c = qt_new(voters, observers, seed, p);
    for (long i = 0; i < steps && !c->why[0]; i++)
        qt_step(c);
    if (!c->why[0])
        qt_liveness(c, 20000);
    if (c->why[0]) {
        fprintf(stderr, "quorum random: %d voters, %d observers: %s\n", voters, observers, c->why);
        cr_assert_fail("%d voters: %s (rerun with LOGREP_QUORUM_SEED=%llu)", voters, c->why,
                       (unsigned long long)seed);
    }
    t->seeds++;
    t->steps += c->steps;
    t->elections += c->elections;
    t->crashes += c->crashes;
    t->disk_losses += c->disk_losses;
    t->partitions += c->partitions;
    t->jumps += c->jumps;
    t->snapshots += c->snapshots;
    t->installs += c->installs;
    t->committed += c->n_committed;
    qt_free(c);
}

static void sweep(int voters, int observers, const qt_params *p, long dflt_seeds, uint64_t base)
{
    long steps = env_long("LOGREP_QUORUM_STEPS", 3000);
    long one = env_long("LOGREP_QUORUM_SEED", 0);
    long n = env_long("LOGREP_QUORUM_SEEDS", dflt_seeds);
    totals t = {0};
    if (one) {
        run_seed(voters, observers, (uint64_t)one, p, steps, &t);
    } else {
        for (long i = 0; i < n; i++)
            run_seed(voters, observers, base + (uint64_t)i, p, steps, &t);
    }
    cr_log_info("%d voters: %ld seeds, %ld steps, %ld elections, %ld crashes, %ld disk losses, "
                "%ld partitions, %ld clock jumps, %llu entries committed, %ld snapshots taken, "
                "%ld installed",
                voters, t.seeds, t.steps, t.elections, t.crashes, t.disk_losses, t.partitions,
                t.jumps, (unsigned long long)t.committed, t.snapshots, t.installs);
    cr_assert_gt(t.elections, 0);
    if (p->snap_permille && !one)
        cr_assert_gt(t.installs, 0, "no snapshot was ever fetched");
}

static const qt_params HOSTILE = {.drop_pct = 10, .dup_pct = 5, .min_delay = 1, .max_delay = 25,
                                  .persist_delay = 8, .flush_delay = 8, .chaos = 1,
                                  .propose_pct = 30};

Test(quorum_random, three_voters)
{
    sweep(3, 0, &HOSTILE, 12, 1000);
}

Test(quorum_random, five_voters)
{
    sweep(5, 0, &HOSTILE, 6, 2000);
}

Test(quorum_random, three_voters_and_an_observer)
{
    sweep(3, 1, &HOSTILE, 6, 3000);
}

Test(quorum_random, lossy_network_only)
{
    qt_params p = HOSTILE;
    p.chaos = 0;
    p.drop_pct = 30;
    p.dup_pct = 20;
    p.max_delay = 60;
    sweep(5, 0, &p, 4, 4000);
}

Test(quorum_random, three_voters_pre_vote)
{
    qt_params p = HOSTILE;
    p.pre_vote = 1;
    sweep(3, 0, &p, 8, 5000);
}

Test(quorum_random, five_voters_pre_vote)
{
    qt_params p = HOSTILE;
    p.pre_vote = 1;
    sweep(5, 1, &p, 3, 6000);
}

Test(quorum_random, three_voters_and_an_observer_snapshots)
{
    qt_params p = HOSTILE;
    p.snap_permille = 15;
    sweep(3, 1, &p, 8, 7000);
}

Test(quorum_random, five_voters_and_an_observer_snapshots_pre_vote)
{
    qt_params p = HOSTILE;
    p.pre_vote = 1;
    p.snap_permille = 15;
    sweep(5, 1, &p, 4, 8000);
}
