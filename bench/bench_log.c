/* Partition log benchmarks, each against a baseline measured in the same
 * run: append vs write(), append+flush vs write+fdatasync, reads vs
 * pread(), recovery time, memory per idle partition.
 * LOGREP_BENCH_LOG_MB (default 256) sizes the append/read data set;
 * LOGREP_BENCH_RECOVERY_MB (default 1024) the recovery partition. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>

static char bl_root[] = "/tmp/logrep-bench-XXXXXX";

static void rm_rf(const char *path)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "rm failed\n");
}

static uint8_t *make_batch(int records, size_t vsize, size_t *len)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    char *v = calloc(1, vsize);
    for (int i = 0; i < records; i++)
        logrep_batch_builder_add(b, 1700000000000 + i, NULL, -1, v, (int32_t)vsize, NULL, 0);
    const uint8_t *out;
    logrep_batch_builder_finish(b, &out, len);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    free(v);
    return copy;
}

static logrep_log *open_log(logrep_storage *st, const char *dir, const char *seg_bytes)
{
    logrep_conf *conf = logrep_conf_new();
    if (seg_bytes)
        logrep_conf_set(conf, "segment.bytes", seg_bytes, NULL, 0);
    logrep_log *log;
    logrep_err err = logrep_log_open(conf, st, dir, 0, &log);
    logrep_conf_free(conf);
    if (err) {
        fprintf(stderr, "open %s: %s\n", dir, logrep_err_name(err));
        exit(1);
    }
    return log;
}

/* Appends n batches; flush_every (bytes) 0 = never. Returns seconds. */
static double run_append(logrep_storage *st, const char *dir, uint8_t *b, size_t len, size_t n,
                         size_t flush_every)
{
    rm_rf(dir);
    logrep_log *log = open_log(st, dir, NULL);
    size_t since = 0;
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++) {
        if (logrep_log_append_leader(log, b, len, 0, 0, NULL)) {
            fprintf(stderr, "append failed\n");
            exit(1);
        }
        since += len;
        if (flush_every && since >= flush_every) {
            logrep_log_flush(log, 0);
            since = 0;
        }
    }
    double t = bench_now() - t0;
    logrep_log_close(log);
    return t;
}

static double run_write(const char *path, const uint8_t *b, size_t len, size_t n,
                        size_t sync_every)
{
    unlink(path);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    size_t since = 0;
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++) {
        if (write(fd, b, len) != (ssize_t)len)
            exit(1);
        since += len;
        if (sync_every && since >= sync_every) {
            fdatasync(fd);
            since = 0;
        }
    }
    double t = bench_now() - t0;
    close(fd);
    unlink(path);
    return t;
}

static void bench_append(logrep_storage *st, size_t total, int vsize, size_t flush_every,
                         const char *name)
{
    size_t len;
    uint8_t *b = make_batch(16384 / (vsize + 10), (size_t)vsize, &len);
    size_t n = total / len;
    char dir[600], raw[600];
    snprintf(dir, sizeof dir, "%s/append-0", bl_root);
    snprintf(raw, sizeof raw, "%s/raw", bl_root);
    double best_l = 1e9, best_r = 1e9;
    for (int round = 0; round < 3; round++) {
        double r = run_write(raw, b, len, n, flush_every);
        double l = run_append(st, dir, b, len, n, flush_every);
        if (r < best_r)
            best_r = r;
        if (l < best_l)
            best_l = l;
    }
    rm_rf(dir);
    double mbs = (double)(n * len) / best_l / 1e6;
    bench_report(name, mbs, "MB/s", best_r / best_l, flush_every ? "write+fdatasync" : "write()",
                 0.8, 1);
    free(b);
}

typedef struct range {
    int64_t offset;
    uint64_t pos, len;
} range;

static void bench_read(logrep_storage *st, size_t total)
{
    size_t len;
    uint8_t *b = make_batch(160, 100, &len);
    size_t n = total / len;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/read-0", bl_root);
    rm_rf(dir);
    logrep_log *log = open_log(st, dir, "268435456");
    for (size_t i = 0; i < n; i++)
        logrep_log_append_leader(log, b, len, 0, 0, NULL);
    /* A consumer reading the whole log 1 MiB at a time. */
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    range *rs = calloc(n + 1, sizeof *rs);
    size_t nr = 0;
    int64_t end = logrep_log_end_offset(log);
    double best_l = 1e9, best_r = 1e9;
    for (int round = 0; round < 5; round++) {
        double t0 = bench_now();
        int64_t off = 0;
        nr = 0;
        while (off < end) {
            logrep_log_slice sl;
            if (logrep_log_read(log, off, cap, INT64_MAX, 1, &sl) || !sl.length)
                exit(1);
            int fd;
            st->file_fd(st->ctx, sl.file, &fd);
            if (pread(fd, buf, sl.length, (off_t)sl.position) != (ssize_t)sl.length)
                exit(1);
            rs[nr].pos = sl.position;
            rs[nr].len = sl.length;
            rs[nr].offset = sl.segment_base;
            nr++;
            off = sl.next_offset;
        }
        double tl = bench_now() - t0;
        /* Baseline: pread of exactly the same ranges from the same files. */
        char path[700];
        int fd = -1;
        int64_t cur = -1;
        t0 = bench_now();
        for (size_t i = 0; i < nr; i++) {
            if (rs[i].offset != cur) {
                if (fd >= 0)
                    close(fd);
                snprintf(path, sizeof path, "%s/%020lld.log", dir, (long long)rs[i].offset);
                fd = open(path, O_RDONLY);
                cur = rs[i].offset;
            }
            if (pread(fd, buf, rs[i].len, (off_t)rs[i].pos) != (ssize_t)rs[i].len)
                exit(1);
        }
        double tr = bench_now() - t0;
        close(fd);
        if (tl < best_l)
            best_l = tl;
        if (tr < best_r)
            best_r = tr;
    }
    bench_report("read 1 MiB fetches (page cache)", (double)(n * len) / best_l / 1e6, "MB/s",
                 best_r / best_l, "pread()", 0.8, 1);
    logrep_log_close(log);
    rm_rf(dir);
    free(rs);
    free(buf);
    free(b);
}

static void bench_recovery(logrep_storage *st, size_t total)
{
    size_t len;
    uint8_t *b = make_batch(16, 1000, &len);
    size_t n = total / len;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/recover-0", bl_root);
    rm_rf(dir);
    logrep_log *log = open_log(st, dir, "134217728");
    for (size_t i = 0; i < n; i++)
        logrep_log_append_leader(log, b, len, 0, 0, NULL);
    logrep_log_flush(log, 0);
    logrep_log_checkpoint(log);
    /* An unflushed tail of 1 MiB, then a crash (no close). */
    for (size_t i = 0; i < (1u << 20) / len; i++)
        logrep_log_append_leader(log, b, len, 0, 0, NULL);
    logrep_log_abandon(log);
    double t0 = bench_now();
    log = open_log(st, dir, "134217728");
    double recent = bench_now() - t0;
    int recovered = logrep_log_recovery_info(log)->segments_recovered;
    logrep_log_abandon(log);
    /* No recovery point: every segment is scanned. */
    char path[700];
    snprintf(path, sizeof path, "%s/recovery-point-offset-checkpoint", dir);
    unlink(path);
    t0 = bench_now();
    log = open_log(st, dir, "134217728");
    double full = bench_now() - t0;
    uint64_t size = logrep_log_size(log);
    logrep_log_close(log);
    printf("recovery, %zu MiB partition, recent recovery point: %.3f s (%d segment(s) scanned, "
           "target < 1 s: %s)\n",
           total >> 20, recent, recovered, recent < 1.0 ? "ok" : "MISSED");
    printf("%-46s %12.3f %-10s (%.3f s for %zu MiB)\n", "recovery, full scan (CRC + index rebuild)",
           (double)size / full / 1e6, "MB/s", full, (size_t)(size >> 20));
    rm_rf(dir);
    free(b);
}

static void bench_memory(void)
{
    enum { N = 10000 };
    /* One memory storage per partition: its lookups are linear in its
     * files, and its memory is not the log's (not counted). */
    logrep_storage **sts = calloc(N, sizeof *sts);
    size_t len;
    uint8_t *b = make_batch(10, 100, &len);
    counting c = {0};
    logrep_allocator a = {&c, c_alloc, c_realloc, c_free};
    logrep_conf *conf = logrep_conf_new();
    logrep_conf_set_allocator(conf, &a);
    logrep_log **logs = calloc(N, sizeof *logs);
    char dir[64];
    for (int i = 0; i < N; i++) {
        snprintf(dir, sizeof dir, "topic-%d", i);
        logrep_storage_memory_new(NULL, &sts[i]);
        logrep_log_open(conf, sts[i], dir, 0, &logs[i]);
        for (int j = 0; j < 5; j++)
            logrep_log_append_leader(logs[i], b, len, 1, 0, NULL);
        logrep_log_close(logs[i]);
    }
    long before = c.live;
    for (int i = 0; i < N; i++) {
        snprintf(dir, sizeof dir, "topic-%d", i);
        if (logrep_log_open(conf, sts[i], dir, 0, &logs[i])) {
            fprintf(stderr, "reopen failed\n");
            exit(1);
        }
    }
    double per = (double)(c.live - before) / N;
    bench_report("memory per open idle partition (10,000)", per, "bytes", per / 16384.0,
                 "of 16 KiB", 1.0, 0);
    for (int i = 0; i < N; i++) {
        logrep_log_close(logs[i]);
        logrep_storage_free(sts[i]);
    }
    free(sts);
    free(logs);
    free(b);
    logrep_conf_free(conf);
}

int main(void)
{
    if (!mkdtemp(bl_root))
        return 1;
    const char *e = getenv("LOGREP_BENCH_LOG_MB");
    size_t mb = e ? (size_t)atol(e) : 256;
    e = getenv("LOGREP_BENCH_RECOVERY_MB");
    size_t rmb = e ? (size_t)atol(e) : 1024;
    logrep_storage *st;
    logrep_storage_posix_new(NULL, &st);
    bench_append(st, mb << 20, 100, 0, "append 16 KiB batches, 100 B records");
    bench_append(st, mb << 20, 1024, 0, "append 16 KiB batches, 1 KiB records");
    bench_append(st, (mb / 4) << 20, 100, 1 << 20, "append + flush every 1 MiB");
    bench_read(st, mb << 20);
    bench_recovery(st, rmb << 20);
    bench_memory();
    logrep_storage_free(st);
    rm_rf(bl_root);
    return 0;
}
