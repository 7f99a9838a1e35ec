/* A node whose storage runs out of space (docs/storage.md, "A full log
 * directory"): produces are answered KAFKA_STORAGE_ERROR at once, the
 * episode is logged once and counted, what was acknowledged stays
 * readable, and appends succeed again once space is back, also when the
 * failure hit a segment roll. The space runs out by injected ENOSPC in
 * the crash-simulating storage, seen from the outside over the wire. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/storage.h>

#include "lib/net_testutil.h"

typedef struct log_count {
    int errors;   /* ERROR lines about a failed append */
    int resumed;  /* INFO lines "appends succeed again" */
    char last[512];
} log_count;

static void count_log(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    log_count *lc = ctx;
    (void)subsys;
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)len, msg);
    if (level == LOGREP_LEVEL_ERROR && strstr(line, "append of")) {
        lc->errors++;
        snprintf(lc->last, sizeof lc->last, "%s", line);
    }
    if (strstr(line, "appends succeed again"))
        lc->resumed++;
}

/* One node on the crash storage, logging into lc, with topic "df". */
static void full_disk_node(net *w, log_count *lc, const char *const *topic_configs)
{
    memset(w, 0, sizeof *w);
    w->n = 1;
    w->now = 1000;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &w->st[1]), LOGREP_OK);
    memset(lc, 0, sizeof *lc);
    log_capture = count_log;
    log_capture_ctx = lc;
    start_node(w, 1);
    log_capture = NULL;
    run(w, 1000);
    create_topic_with(w, 1, "df", 1, 1, topic_configs);
}

static void produce_ok(net *w, int64_t offset)
{
    char v[32];
    snprintf(v, sizeof v, "v%lld", (long long)offset);
    int64_t base = -1;
    int16_t err = produce(w, 1, "df", 0, v, -1, &base);
    cr_assert_eq(err, 0, "produce %s: %s", v, logrep_err_name(err));
    cr_assert_eq(base, offset);
}

static logrep_node_partition_info df_info(net *w)
{
    logrep_node_partition_info p;
    for (size_t i = 0; i < logrep_node_partition_count(w->node[1]); i++) {
        cr_assert_eq(logrep_node_partition(w->node[1], i, &p), LOGREP_OK);
        if (strcmp(p.topic, "df") == 0)
            return p;
    }
    cr_assert_fail("partition df-0 not hosted");
    return p;
}

static void expect_counts(net *w, int64_t errors, int failing)
{
    logrep_node_stats st;
    logrep_node_stats_get(w->node[1], &st);
    cr_assert_eq(st.append_errors, errors);
    cr_assert_eq(st.append_failing, failing);
    logrep_node_partition_info p = df_info(w);
    cr_assert_eq(p.append_errors, errors);
    cr_assert_eq(p.append_failing, failing);
}

/* Offsets 0..n-1 read back as "v<offset>" (a fetch stops at a segment's
 * end), and the high watermark is n. */
static void expect_readable(net *w, int64_t n)
{
    int64_t off = 0, hw = -1;
    while (off < n) {
        int got = fetch_count(w, 1, "df", 0, off, &hw);
        cr_assert_gt(got, 0, "nothing read at offset %lld of %lld", (long long)off, (long long)n);
        off += got;
    }
    cr_assert_eq(off, n);
    cr_assert_eq(hw, n);
}

Test(disk_full, storage_error_logged_once_counted_and_writes_resume)
{
    net w;
    log_count lc;
    full_disk_node(&w, &lc, NULL);
    for (int64_t i = 0; i < 5; i++)
        produce_ok(&w, i);
    expect_counts(&w, 0, 0);

    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_WRITE, 1,
                                             LOGREP_ERR__NOSPACE, 1), LOGREP_OK);
    /* Answered at once (well inside the 5 s request timeout), acks=all
     * and acks=1 alike. */
    uint64_t c = produce_send(&w, 1, "df", 0, "v5", -1);
    cr_assert_eq(produce_wait(&w, c, 10, NULL), LOGREP_ERR_KAFKA_STORAGE_ERROR);
    cr_assert_eq(produce(&w, 1, "df", 0, "v5", 1, NULL), LOGREP_ERR_KAFKA_STORAGE_ERROR);
    cr_assert_eq(produce(&w, 1, "df", 0, "v5", -1, NULL), LOGREP_ERR_KAFKA_STORAGE_ERROR);
    expect_counts(&w, 3, 1);
    cr_assert_eq(lc.errors, 1, "one ERROR line per episode, got %d", lc.errors);
    cr_assert(strstr(lc.last, "errno 28") && strstr(lc.last, "df-0"), "%s", lc.last);
    cr_assert_eq(lc.resumed, 0);
    expect_readable(&w, 5);

    /* Space is back: the next produce takes the next offset. */
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_WRITE, 0, 0, 0),
                 LOGREP_OK);
    produce_ok(&w, 5);
    produce_ok(&w, 6);
    expect_counts(&w, 3, 0);
    cr_assert_eq(lc.resumed, 1);
    expect_readable(&w, 7);

    /* A new episode more than the coalescing interval later is logged. */
    run(&w, 11000);
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_WRITE, 1,
                                             LOGREP_ERR__NOSPACE, 1), LOGREP_OK);
    cr_assert_eq(produce(&w, 1, "df", 0, "v7", -1, NULL), LOGREP_ERR_KAFKA_STORAGE_ERROR);
    cr_assert_eq(lc.errors, 2);
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_WRITE, 0, 0, 0),
                 LOGREP_OK);
    produce_ok(&w, 7);
    expect_readable(&w, 8);
    teardown(&w);
}

/* The roll cannot create the next segment's files: the produce fails, the
 * old segment stays active and readable, and the roll succeeds later.
 * Only file creation fails (appends inside a segment create nothing), so
 * the first produce refused is the one that rolls. */
Test(disk_full, roll_that_cannot_create_files_is_retried)
{
    static const char *const small[] = {"segment.bytes", "300", NULL};
    net w;
    log_count lc;
    full_disk_node(&w, &lc, small);
    produce_ok(&w, 0);
    int32_t segs = df_info(&w).segments;
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_META, 1,
                                             LOGREP_ERR__NOSPACE, 1), LOGREP_OK);
    int64_t n = 1;
    int16_t err = 0;
    char v[32];
    for (; n < 50; n++) {
        snprintf(v, sizeof v, "v%lld", (long long)n);
        if ((err = produce(&w, 1, "df", 0, v, -1, NULL)))
            break;
        cr_assert_eq(df_info(&w).segments, segs, "rolled although files cannot be created");
    }
    cr_assert_eq(err, LOGREP_ERR_KAFKA_STORAGE_ERROR, "segment.bytes=300 never rolled (%s)",
                 logrep_err_name(err));
    cr_assert_gt(n, 1);
    cr_assert_eq(produce(&w, 1, "df", 0, v, -1, NULL), LOGREP_ERR_KAFKA_STORAGE_ERROR);
    cr_assert_eq(lc.errors, 1);
    expect_counts(&w, 2, 1);
    expect_readable(&w, n);
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_META, 0, 0, 0), LOGREP_OK);
    produce_ok(&w, n);
    logrep_node_partition_info p = df_info(&w);
    cr_assert_eq(p.segments, segs + 1, "the roll happened once files could be created");
    cr_assert_eq(p.append_failing, 0);
    cr_assert_eq(lc.resumed, 1);
    expect_readable(&w, n + 1);
    teardown(&w);
}
