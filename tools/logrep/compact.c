/* logrep compact DIR: compacts a partition directory offline, with the
 * library's cleaner and the POSIX storage, as a node's tick would, but
 * whatever the dirty ratio (LOGREP_CLEAN_FORCE) and until nothing is left
 * to clean. The active segment is not cleaned unless --roll closes it
 * first. Time is the wall clock: record timestamps, tombstone horizons and
 * compaction lags are wall-clock milliseconds. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const struct {
    const char *opt, *prop;
} props[] = {
    {"--delete-retention-ms", "delete.retention.ms"},
    {"--min-compaction-lag-ms", "min.compaction.lag.ms"},
    {"--dedupe-buffer-size", "log.cleaner.dedupe.buffer.size"},
    {"--segment-bytes", "segment.bytes"},
};
#define NPROPS (sizeof props / sizeof props[0])

static int usage(void)
{
    fprintf(stderr, "usage: logrep compact [--roll] [--delete-retention-ms MS] "
                    "[--min-compaction-lag-ms MS] [--dedupe-buffer-size BYTES] "
                    "[--segment-bytes BYTES] DIR\n");
    return 2;
}

int cmd_compact(int argc, char **argv)
{
    logrep_conf *conf = logrep_conf_new();
    if (!conf) {
        fprintf(stderr, "logrep: out of memory\n");
        return 2;
    }
    char why[128];
    int roll = 0, i = 1;
    logrep_conf_set(conf, "cleanup.policy", "compact", NULL, 0);
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--roll") == 0) {
            roll = 1;
            continue;
        }
        size_t k = 0;
        while (k < NPROPS && strcmp(argv[i], props[k].opt) != 0)
            k++;
        if (k == NPROPS || i + 1 >= argc) {
            logrep_conf_free(conf);
            return usage();
        }
        if (logrep_conf_set(conf, props[k].prop, argv[++i], why, sizeof why) != LOGREP_OK) {
            fprintf(stderr, "logrep: %s %s: %s\n", props[k].opt, argv[i], why);
            logrep_conf_free(conf);
            return 2;
        }
    }
    if (i + 1 != argc) {
        logrep_conf_free(conf);
        return usage();
    }
    const char *dir = argv[i];
    int64_t now = wall_ms();
    logrep_storage *st;
    logrep_log *log;
    int rc = tool_open_log(dir, conf, now, &st, &log);
    if (rc) {
        logrep_conf_free(conf);
        return rc;
    }
    int32_t segs_before = logrep_log_segment_count(log);
    uint64_t size_before = logrep_log_size(log);
    logrep_err err = roll ? logrep_log_roll(log, now) : LOGREP_OK;
    int more = 1;
    while (!err && more)
        err = logrep_log_clean(log, wall_ms(), INT64_MAX, UINT64_MAX, LOGREP_CLEAN_FORCE, &more);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    if (err) {
        fprintf(stderr, "logrep: %s: compaction failed: %s (%s); the log is as before the pass\n",
                dir, logrep_err_str(err), logrep_err_name(err));
        rc = err == LOGREP_ERR__CORRUPT ? 1 : 2;
    }
    printf("%s: %" PRIu64 " passes, read %" PRIu64 " bytes, wrote %" PRIu64
           " bytes, removed %" PRIu64 " records\n",
           dir, cs.passes, cs.bytes_read, cs.bytes_written, cs.records_removed);
    printf("segments %d -> %d, bytes %" PRIu64 " -> %" PRIu64 ", log start offset %" PRId64
           ", log end offset %" PRId64 ", first dirty offset %" PRId64 "\n",
           segs_before, logrep_log_segment_count(log), size_before, logrep_log_size(log),
           logrep_log_start_offset(log), logrep_log_end_offset(log), cs.first_dirty_offset);
    return tool_close_log(log, st, conf, rc);
}
