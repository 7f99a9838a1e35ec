/* Leak check at the end of every test, in the test's worker process.
 *
 * LeakSanitizer's own check runs when a worker exits, after the worker has
 * told the runner that the test ended: Criterion 2.4 ignores the exit
 * status of a worker whose test has ended, so a leak was printed and the
 * test still passed. Here the check runs twice inside the worker
 * (docs/testing.md, "Leaks"):
 *
 * 1. After the test's body returns, still in the test's main phase: a leak
 *    is a failed assertion of that test. The test binary is linked with
 *    -Wl,--wrap=criterion_internal_test_main, so every Test() enters
 *    __wrap_criterion_internal_test_main, which hands Criterion's own main
 *    phase a function that runs the body and then checks.
 * 2. After the fixtures' teardown (.fini of the test and of its suite) has
 *    run (-Wl,--wrap=criterion_internal_test_teardown), for what a fixture
 *    leaks, including memory that only a freed fixture still pointed to.
 *    The test's result is already sent by then, so a leak there aborts the
 *    worker: Criterion reports the test as crashed during its teardown and
 *    the run fails (a warning, which fails the run unless --ignore-warnings).
 *
 * Neither check runs after a test that failed an assertion in its body:
 * such a test stopped half way, and what it leaks says nothing more.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define LC_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define LC_LSAN 1
#endif
#endif

#ifdef LC_LSAN
#include <sanitizer/lsan_interface.h>
#define lc_leaks() __lsan_do_recoverable_leak_check()
#else
#define lc_leaks() 0
#endif

#ifdef LC_LSAN
/* What LeakSanitizer ignores besides test/lsan.supp, asked for once per
 * process, at its first check: in a worker (Boxfort execs each one with
 * BXFI_MAP set) nothing more; in Criterion's runner, every leak with a
 * frame in libcriterion. The runner runs no test and none of the library,
 * but Criterion's own allocations there sometimes leak: under --jobs 2, a
 * timeout request of Boxfort's (48 bytes calloc'd by bxfi_push_timeout for
 * a test with a .timeout) that its timeout thread does not always free.
 * That stack is one unnamed frame in libcriterion.so.3 (the function is
 * not exported), so only the module can match it, and in a worker the
 * module is in every test's stack (criterion_internal_test_main): hence
 * here, per process, and not in test/lsan.supp. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return getenv("BXFI_MAP") ? "" : "leak:libcriterion.so\n";
}
#endif

void __real_criterion_internal_test_main(void (*fn)(void));
void __wrap_criterion_internal_test_main(void (*fn)(void));
void __real_criterion_internal_test_teardown(void);
void __wrap_criterion_internal_test_teardown(void);

/* A worker runs one test: its body, and whether the body's check ran
 * and passed (so the teardown check reports only what is new). */
static void (*lc_body)(void);
static int lc_body_clean;

static void lc_after_body(void)
{
    if (lc_leaks()) {
        cr_assert_fail("LeakSanitizer: this test leaked memory (its report is "
                "above, on stderr)");
        return;
    }
    lc_body_clean = 1;
}

static void lc_run(void)
{
    lc_body();
    lc_after_body();
}

static void lc_run_param(void *param)
{
    ((void (*)(void *))lc_body)(param);
    lc_after_body();
}

void __wrap_criterion_internal_test_main(void (*fn)(void))
{
    lc_body = fn;
    /* Criterion calls a parameterized test's function with its parameter,
     * and tells which it is by the test's param_ generator. A worker's copy
     * of the test's data is unaligned (Criterion packs it for the worker),
     * hence the copy. */
    struct criterion_test_params (*param)(void);
    memcpy(&param, (const char *)criterion_current_test->data
                   + offsetof(struct criterion_test_extra_data, param_),
           sizeof param);
    if (param)
        __real_criterion_internal_test_main((void (*)(void))lc_run_param);
    else
        __real_criterion_internal_test_main(lc_run);
}

void __wrap_criterion_internal_test_teardown(void)
{
    __real_criterion_internal_test_teardown();
    if (lc_body_clean && lc_leaks()) {
        fprintf(stderr,
                "LeakSanitizer: %s::%s leaked memory, found after its "
                "teardown (report above); aborting its worker so that the "
                "run fails\n",
                criterion_current_suite->name, criterion_current_test->name);
        abort();
    }
}
