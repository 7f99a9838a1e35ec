/* Shared helpers for the benchmarks in bench/. Every benchmark measures a
 * baseline in the same run and prints the ratio: absolute times on a noisy
 * machine mean little. Header-only. */
#ifndef LOGREP_BENCH_H
#define LOGREP_BENCH_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <logrep.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps the compiler from discarding a computed value. */
static inline void bench_sink(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Runs fn(ctx) repeatedly for at least min_s seconds, best of `rounds`
 * rounds; returns seconds per call. */
static inline double bench_time(void (*fn)(void *), void *ctx, double min_s, int rounds)
{
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        long iters = 0;
        double t0 = bench_now(), t;
        do {
            fn(ctx);
            iters++;
            t = bench_now();
        } while (t - t0 < min_s);
        double per = (t - t0) / (double)iters;
        if (per < best)
            best = per;
    }
    return best;
}

/* "name  value unit  (ratio x baseline, target >= T: ok|MISSED)" */
static inline void bench_report(const char *name, double value, const char *unit, double ratio,
                                const char *baseline, double target, int higher_is_better)
{
    int ok = higher_is_better ? ratio >= target : ratio <= target;
    if (target > 0)
        printf("%-46s %12.3f %-10s %7.3fx %-18s target %s%.2f: %s\n", name, value, unit, ratio,
               baseline, higher_is_better ? ">=" : "<=", target, ok ? "ok" : "MISSED");
    else
        printf("%-46s %12.3f %-10s %7.3fx %s\n", name, value, unit, ratio, baseline);
}

/* qsort order of doubles, for medians. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Removes a benchmark's temporary directory tree. */
static inline void bench_rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub)
                bench_rm_rf(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Node `id` of the in-process three-node clusters: node 1 is the only
 * controller; min.insync.replicas 2. */
static inline void bench_cluster_conf(logrep_conf *c, int id)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%d", id);
    logrep_conf_set(c, "node.id", buf, NULL, 0);
    logrep_conf_set(c, "process.roles", id == 1 ? "broker,controller" : "broker", NULL, 0);
    logrep_conf_set(c, "controller.quorum.voters", "1@b:9093", NULL, 0);
    snprintf(buf, sizeof buf, "PLAINTEXT://n%d:9092", id);
    logrep_conf_set(c, "advertised.listeners", buf, NULL, 0);
    logrep_conf_set(c, "min.insync.replicas", "2", NULL, 0);
    logrep_conf_set(c, "replica.fetch.wait.max.ms", "50", NULL, 0);
}

/* A counting allocator for memory benchmarks (plug into a logrep_conf
 * with logrep_conf_set_allocator): live bytes the library holds. */
typedef struct counting {
    long live;
} counting;

static inline void *c_alloc(void *ctx, size_t size)
{
    size_t *p = malloc(size + 16);
    if (!p)
        return NULL;
    ((counting *)ctx)->live += (long)size;
    return p + 2;
}

static inline void *c_realloc(void *ctx, void *p, size_t old, size_t size)
{
    size_t *q = realloc(p ? (size_t *)p - 2 : NULL, size + 16);
    if (!q)
        return NULL;
    ((counting *)ctx)->live += (long)size - (long)old;
    return q + 2;
}

static inline void c_free(void *ctx, void *p, size_t size)
{
    if (!p)
        return;
    ((counting *)ctx)->live -= (long)size;
    free((size_t *)p - 2);
}

#endif
