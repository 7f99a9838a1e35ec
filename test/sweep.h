/* The fault-sweep driver, after SQLite's malloc and I/O error tests: a
 * workload runs once counting the calls that can fail, then once per
 * call k with the k-th failing once, and again with every call from k on
 * failing (a full heap, a dead disk), checking its invariants each time.
 * Header-only (static), included by test_sweep_*.c; docs/testing.md. */
#ifndef LOGREP_SWEEP_H
#define LOGREP_SWEEP_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include <logrep.h>
#include <logrep/storage.h>

#include "lib/testutil.h"

/* What fails: allocation k of the workload's heap, or storage call k of
 * the classes in `ops`. k = 0 is the counting run. */
typedef struct sw_fault {
    int alloc;
    uint32_t ops;
    logrep_err err; /* storage faults: LOGREP_ERR__IO or __NOSPACE */
    long k;
    int persist;
} sw_fault;

/* Every stride-th k is run: LOGREP_SWEEP_STRIDE (1 = every call, as
 * `make sweep` does), else the workload's default for `make test`; a
 * negative default -n asks sw_sweep for about n values of k. */
static inline long sw_stride(long dflt)
{
    const char *s = getenv("LOGREP_SWEEP_STRIDE");
    long v = s ? strtol(s, NULL, 10) : 0;
    return v > 0 ? v : dflt;
}

/* Arms the fault on the heap or the storage (a crash storage). */
static inline void sw_arm(const sw_fault *f, tu_heap *heap, logrep_storage *st)
{
    if (f->alloc) {
        heap->fail_at = f->k;
        heap->persist = f->persist;
        heap->allocs = 0;
    } else if (f->k) {
        cr_assert_eq(logrep_storage_crash_inject(st, f->ops, (uint64_t)f->k, f->err, f->persist),
                     LOGREP_OK);
    }
}

/* The fault clears: the heap has room again, the disk works. */
static inline void sw_clear(const sw_fault *f, tu_heap *heap, logrep_storage *st)
{
    heap->fail_at = 0;
    if (!f->alloc)
        cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_OK, 0), LOGREP_OK);
}

/* Whether err is what this fault may cause: NOMEM for allocations, the
 * injected error for storage (never a crash, a wrong wire code or OK-but-lost). */
static inline int sw_expected_err(const sw_fault *f, logrep_err err)
{
    return f->alloc ? err == LOGREP_ERR__NOMEM : err == f->err;
}

static inline const char *sw_op_name(uint32_t ops)
{
    return ops == LOGREP_STORAGE_OP_SYNC ? "sync" : ops == LOGREP_STORAGE_OP_TRUNCATE ? "truncate"
                                                                                    : "write";
}

static inline void sw_describe(const sw_fault *f, char *buf, size_t n)
{
    if (f->alloc)
        snprintf(buf, n, "allocation %ld%s", f->k, f->persist ? " onwards" : "");
    else
        snprintf(buf, n, "%s %ld %s%s", sw_op_name(f->ops), f->k, logrep_err_name(f->err),
                 f->persist ? " onwards" : "");
}

/* A workload: runs under fault f, checks its invariants, returns how many
 * calls of f's kind it made (the counting run's answer sizes the sweep),
 * and sets *seen when an error reached the workload. */
typedef long (*sw_workload)(const sw_fault *f, int *seen);

/* Sweeps one kind of fault over a workload: counting run, then every
 * stride-th k failing once and failing persistently. Returns the runs. */
static inline long sw_sweep(sw_workload w, int alloc, uint32_t ops, logrep_err err, long stride)
{
    sw_fault f = {alloc, ops, err, 0, 0};
    int seen = 0;
    long total = w(&f, &seen);
    cr_assert_gt(total, 0, "the workload makes no calls to fail");
    if (stride < 0)
        stride = total / -stride > 1 ? total / -stride : 1;
    long runs = 0;
    /* LOGREP_SWEEP_K=k runs that k alone (a failure's replay). */
    const char *only = getenv("LOGREP_SWEEP_K");
    for (long k = only ? strtol(only, NULL, 10) : 1; k <= total; k += only ? total : stride) {
        for (int persist = 0; persist < 2; persist++) {
            f.k = k;
            f.persist = persist;
            seen = 0;
            w(&f, &seen);
            char what[80];
            sw_describe(&f, what, sizeof what);
            /* The workload is deterministic up to call k, so the fault
             * fires; an error that never reaches the caller was swallowed. */
            cr_assert(seen, "%s: no error reached the caller", what);
            runs++;
        }
    }
    /* LOGREP_SWEEP_LOG=file: one line per sweep (Criterion keeps stderr). */
    const char *log = getenv("LOGREP_SWEEP_LOG");
    FILE *fp = log ? fopen(log, "a") : NULL;
    if (fp) {
        fprintf(fp, "%s: %s%s%s: %ld calls, %ld runs\n", criterion_current_test->name,
                alloc ? "allocations" : sw_op_name(ops), alloc ? "" : " ",
                alloc ? "" : logrep_err_name(err), total, runs);
        fclose(fp);
    }
    return runs;
}

#endif
