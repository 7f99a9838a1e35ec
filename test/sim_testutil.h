/* The simulator's trace written to a stdio stream, for failing tests and
 * the soak runner (the public API hands lines to a callback); one random
 * seed run and reported (the soak and the seed sweeps); and the Criterion
 * tests' start, run and heal that fail the test on a violation. */
#ifndef LOGREP_TEST_SIM_TESTUTIL_H
#define LOGREP_TEST_SIM_TESTUTIL_H

#include <stdio.h>

#include <logrep/sim.h>

static inline void sim_line_to_file(void *ctx, const char *line, size_t len)
{
    fwrite(line, 1, len, (FILE *)ctx);
    fputc('\n', (FILE *)ctx);
}

static inline void sim_dump(const logrep_sim *s, FILE *f, int lines)
{
    logrep_sim_trace_dump(s, lines, sim_line_to_file, f);
}

/* Virtual time of one random run, before the heal phase. */
#define SIM_RUN_MS 5000

/* Runs one seed in controller mode `ctl` (0: the seed's); on failure
 * prints the seed, the violation and the tail of the trace to f. Returns
 * 0 when the seed passes. */
static inline int sim_run_seed(uint64_t seed, const char *bug, int32_t ctl, FILE *f, int tail)
{
    logrep_sim *s = NULL;
    logrep_err e = logrep_sim_random_ex(seed, bug, SIM_RUN_MS, ctl, &s);
    if (e == LOGREP_OK)
        return 0;
    if (f) {
        fprintf(f, "seed %llu FAILED: %s\n", (unsigned long long)seed,
                s && logrep_sim_failure(s) ? logrep_sim_failure(s) : logrep_err_name(e));
        if (tail > 0 && s) {
            fprintf(f, "---- last %d trace lines of seed %llu ----\n", tail, (unsigned long long)seed);
            sim_dump(s, f, tail);
        }
        char mode[48] = "";
        if (ctl)
            snprintf(mode, sizeof mode, " LOGREP_SIM_CONTROLLERS=%d", (int)ctl);
        fprintf(f, "reproduce: LOGREP_SIM_SEED=%llu%s%s%s make soak (%s)\n",
                (unsigned long long)seed, bug ? " LOGREP_SIM_BUG=" : "", bug ? bug : "", mode,
                (ctl ? ctl : logrep_sim_random_controllers(seed)) > 1 ? "controller quorum"
                                                                      : "one controller");
    }
    logrep_sim_free(s);
    return 1;
}

#ifndef LOGREP_SIM_SOAK_MAIN
/* The Criterion tests' setup (the soak driver has no Criterion). */
#include <criterion/criterion.h>

/* What failed, the violation, and the trace's last 200 lines, to stderr. */
static inline void sim_dump_fail(logrep_sim *s, const char *what)
{
    fprintf(stderr, "%s: %s\n", what,
            logrep_sim_failure(s) ? logrep_sim_failure(s) : "(no violation)");
    sim_dump(s, stderr, 200);
}

/* Runs ms of virtual time; a violation fails the test. */
static inline void sim_run(logrep_sim *s, int64_t ms)
{
    if (logrep_sim_run(s, ms) != LOGREP_OK) {
        sim_dump_fail(s, "run");
        cr_assert_fail("violation: %s", logrep_sim_failure(s));
    }
}

/* A simulation of conf with `controllers` controllers (1 or 3), its topic
 * created; a cluster that does not form fails the test. */
static inline logrep_sim *sim_start(const logrep_sim_conf *conf, int32_t controllers)
{
    logrep_sim *s = NULL;
    logrep_err e = logrep_sim_new_ex(conf, controllers, &s);
    if (e) {
        sim_dump_fail(s, "new");
        cr_assert_fail("sim_new: %s", logrep_err_name(e));
    }
    return s;
}

/* The heal (logrep_sim_heal, 20 s); a violation or no convergence fails
 * the test. */
static inline void sim_heal(logrep_sim *s)
{
    if (logrep_sim_heal(s, 20000) != LOGREP_OK) {
        sim_dump_fail(s, "heal");
        cr_assert_fail("heal: %s", logrep_sim_failure(s));
    }
}
#endif

#endif
