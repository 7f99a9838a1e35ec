/* Log compaction benchmarks, each against a baseline measured in the same
 * run:
 *  - compaction throughput (MB/s of segment input) against a plain
 *    sequential read and write of the same segment files (read in 1 MiB
 *    chunks, written to a new file, synced once at the end, as a cleaning
 *    pass syncs its output once): target at least 0.5x;
 *  - bytes of key map per million distinct keys, against the 24 bytes a
 *    key at a 0.9 load factor that Kafka's cleaner map takes (the fixed
 *    figure its SkimpyOffsetMap documents), lower is better.
 * Both runs see the same page cache (the data was just written).
 * LOGREP_BENCH_COMPACT_MB (default 128) sizes the partition;
 * LOGREP_BENCH_COMPACT_KEYS (default 1000000) the keys of the map run. */
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

static char bc_root[] = "/tmp/logrep-bench-compact-XXXXXX";

static void sh(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        exit(1);
    }
}

static logrep_log *open_log(logrep_storage *st, const char *dir, const char *dedupe)
{
    logrep_conf *conf = logrep_conf_new();
    logrep_conf_set(conf, "segment.bytes", "16777216", NULL, 0);
    logrep_conf_set(conf, "cleanup.policy", "compact", NULL, 0);
    if (dedupe)
        logrep_conf_set(conf, "log.cleaner.dedupe.buffer.size", dedupe, NULL, 0);
    logrep_log *log;
    logrep_err err = logrep_log_open(conf, st, dir, 0, &log);
    logrep_conf_free(conf);
    if (err) {
        fprintf(stderr, "open %s: %s\n", dir, logrep_err_name(err));
        exit(1);
    }
    return log;
}

/* Fills dir with about `bytes` of batches of 100 records (100-byte
 * values) over `keys` keys drawn at random (a fixed seed), or each key
 * once in turn when keys is 0, then rolls so every segment is cleanable. */
static void fill(logrep_storage *st, const char *dir, size_t bytes, uint32_t keys)
{
    uint32_t seq = 0;
    logrep_log *log = open_log(st, dir, NULL);
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    char v[100], k[16];
    memset(v, 'v', sizeof v);
    uint64_t x = 88172645463325252ull;
    int64_t ts = 1700000000000;
    while (logrep_log_size(log) < bytes) {
        logrep_batch_builder_reset(b);
        for (int i = 0; i < 100; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int kl = snprintf(k, sizeof k, "key%u", keys ? (unsigned)(x % keys) : seq++);
            logrep_batch_builder_add(b, ts++, k, kl, v, sizeof v, NULL, 0);
        }
        const uint8_t *out;
        size_t len;
        logrep_batch_builder_finish(b, &out, &len);
        if (logrep_log_append_leader(log, (void *)out, len, 0, ts, NULL)) {
            fprintf(stderr, "append failed\n");
            exit(1);
        }
    }
    logrep_log_roll(log, ts);
    logrep_batch_builder_free(b);
    logrep_log_close(log);
}

/* The baseline: read every .log of dir and write it to one new file. */
static double read_write(const char *dir, size_t *bytes)
{
    char path[700], out[700];
    snprintf(out, sizeof out, "%s/rw.out", bc_root);
    int ofd = open(out, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    static char buf[1 << 20];
    *bytes = 0;
    double t0 = bench_now();
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls %s/*.log", dir);
    FILE *ls = popen(cmd, "r");
    while (fgets(path, sizeof path, ls)) {
        path[strcspn(path, "\n")] = 0;
        int fd = open(path, O_RDONLY);
        ssize_t n;
        off_t pos = 0;
        while ((n = pread(fd, buf, sizeof buf, pos)) > 0) {
            if (write(ofd, buf, (size_t)n) != n)
                exit(1);
            pos += n;
            *bytes += (size_t)n;
        }
        close(fd);
    }
    pclose(ls);
    fdatasync(ofd);
    double t = bench_now() - t0;
    close(ofd);
    unlink(out);
    return t;
}

static double compact(logrep_storage *st, const char *dir, logrep_log_cleaner_stats *cs)
{
    logrep_log *log = open_log(st, dir, NULL);
    int more = 1;
    double t0 = bench_now();
    while (more)
        if (logrep_log_clean(log, 1800000000000, INT64_MAX, UINT64_MAX, LOGREP_CLEAN_FORCE,
                             &more)) {
            fprintf(stderr, "clean failed\n");
            exit(1);
        }
    double t = bench_now() - t0;
    logrep_log_cleaner_info(log, cs);
    logrep_log_close(log);
    return t;
}

static void bench_throughput(logrep_storage *st, size_t bytes)
{
    char src[600], dir[600];
    snprintf(src, sizeof src, "%s/src-0", bc_root);
    snprintf(dir, sizeof dir, "%s/cmp-0", bc_root);
    /* 100,000 keys over ~1.2 M records: most records are superseded. */
    fill(st, src, bytes, 100000);
    double best_c = 1e30, best_rw = 1e30;
    size_t in = 0;
    logrep_log_cleaner_stats cs = {0};
    for (int round = 0; round < 3; round++) {
        char cmd[2000];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", dir, src, dir);
        sh(cmd);
        size_t rw_bytes;
        double rw = read_write(dir, &rw_bytes);
        double c = compact(st, dir, &cs);
        in = rw_bytes;
        if (rw < best_rw)
            best_rw = rw;
        if (c < best_c)
            best_c = c;
    }
    double mbs = (double)cs.bytes_read / best_c / 1e6;
    double base = (double)in / best_rw / 1e6;
    printf("  %zu MB of segments, %llu MB read by the pass, %llu MB written, %llu records removed\n",
           in >> 20, (unsigned long long)(cs.bytes_read >> 20),
           (unsigned long long)(cs.bytes_written >> 20), (unsigned long long)cs.records_removed);
    bench_report("compaction, 100 B records, 100 k keys", mbs, "MB/s", mbs / base,
                 "read+write", 0.5, 1);
}

static void bench_map_memory(logrep_storage *st, uint32_t keys)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/map-0", bc_root);
    /* Each key once. */
    fill(st, dir, (size_t)keys * 130, 0);
    logrep_log *log = open_log(st, dir, "1073741824");
    int more = 1;
    uint64_t peak = 0;
    while (more) {
        if (logrep_log_clean(log, 1800000000000, INT64_MAX, 1 << 20, LOGREP_CLEAN_FORCE, &more)) {
            fprintf(stderr, "clean failed\n");
            exit(1);
        }
        logrep_log_cleaner_stats cs;
        logrep_log_cleaner_info(log, &cs);
        if (cs.map_bytes > peak)
            peak = cs.map_bytes;
    }
    logrep_log_close(log);
    double per_m = (double)peak / ((double)keys / 1e6);
    double kafka = 24.0 / 0.9 * 1e6;
    bench_report("key map bytes per million keys", per_m / 1e6, "MB", per_m / kafka,
                 "Kafka's 24 B at 0.9 load", 0, 0);
}

int main(void)
{
    if (!mkdtemp(bc_root))
        return 1;
    const char *e = getenv("LOGREP_BENCH_COMPACT_MB");
    size_t mb = e ? (size_t)atol(e) : 128;
    e = getenv("LOGREP_BENCH_COMPACT_KEYS");
    uint32_t keys = e ? (uint32_t)atol(e) : 1000000;
    logrep_storage *st;
    logrep_storage_posix_new(NULL, &st);
    bench_throughput(st, mb << 20);
    bench_map_memory(st, keys);
    logrep_storage_free(st);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", bc_root);
    sh(cmd);
    return 0;
}
