/* Snapshots of the metadata log in the node (docs/quorum.md, "In the
 * node"): a single controller with a tiny
 * metadata.log.max.record.bytes.between.snapshots writes snapshots and
 * trims its log; restarted (killed, or after a power loss) it rebuilds
 * the same image from the snapshot and the log; a start that cannot
 * rebuild it is refused; the interval trigger; bad conf values. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/md_snapshot.h"
#include "lib/net_testutil.h"
#include "node/ctl_role.h"
#include "quorum/qsnap.h"

#define MDDIR "data/__cluster_metadata-0"

static const char *const tiny[] = {"metadata.log.max.record.bytes.between.snapshots", "600",
                                   "broker.session.timeout.ms", "3000", NULL};

static void snap_setup(net *w, int n, const char *const *conf)
{
    extra_conf = conf;
    setup(w, n);
    run(w, 1500);
}

static void snap_teardown(net *w)
{
    extra_conf = NULL;
    teardown(w);
}

/* The snapshots on node id's disk, newest first; their count. */
static size_t snaps(net *w, int id, lr_qsnap_id *ids, size_t cap)
{
    size_t n = 0;
    cr_assert_eq(lr_qsnap_list(w->st[id], MDDIR, ids, cap, &n), 0);
    return n;
}

static logrep_log *mdlog(net *w)
{
    return w->node[1]->ctl->log;
}

static int collect(void *ctx, const uint8_t *rec, size_t len)
{
    lr_buf *b = ctx;
    uint8_t l[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    return lr_buf_append(b, l, 4) || lr_buf_append(b, rec, len);
}

/* The snapshot bytes of an image (every record, length-prefixed). */
static void image_bytes(const lr_md_image *img, lr_buf *out)
{
    lr_buf_init(out, &lr_alloc_default);
    cr_assert_eq(lr_md_snapshot_records(img, collect, out, NULL), 0);
}

static int same_bytes(const lr_buf *a, const lr_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static void make_topics(net *w, int via, const char *prefix, int n)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        create_topic(w, via, name, 2, 1);
    }
}

Test(node_snapshot, the_controller_snapshots_and_trims_its_log)
{
    net w;
    snap_setup(&w, 1, tiny);
    cr_assert_eq(snaps(&w, 1, NULL, 0), 0, "nothing yet");
    make_topics(&w, 1, "t", 8);
    run(&w, 200);
    lr_qsnap_id ids[8];
    size_t n = snaps(&w, 1, ids, 8);
    cr_assert_eq(n, 1, "older snapshots are deleted: %zu", n);
    int64_t start = logrep_log_start_offset(mdlog(&w));
    cr_assert_gt(start, 0, "the log start moved up");
    cr_assert_eq(start, ids[0].end_offset, "to the snapshot's end");
    cr_assert_eq(ids[0].epoch, logrep_log_latest_epoch(mdlog(&w)));
    lr_qsnap_info info;
    cr_assert_eq(lr_qsnap_check(NULL, w.st[1], MDDIR, ids[0], &info), 0, "%s", info.why);
    cr_assert_gt(info.n_records, 8);
    cr_assert_gt(info.last_ts, 0);
    lr_qsnap_id latest;
    cr_assert(lr_nctl_snapshot_latest(w.node[1], &latest));
    cr_assert_eq(latest.end_offset, ids[0].end_offset);
    cr_assert_str_eq(lr_nctl_snapshot_dir(w.node[1]), MDDIR);
    /* More records, more snapshots: the log stays short. */
    make_topics(&w, 1, "u", 8);
    run(&w, 200);
    n = snaps(&w, 1, ids, 8);
    cr_assert_eq(n, 1);
    cr_assert_gt(ids[0].end_offset, start);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w)), start);
    cr_assert_leq(logrep_log_segment_count(mdlog(&w)), 2, "whole segments below go");
    cr_assert_eq(produce(&w, 1, "u3", 0, "v0", -1, NULL), 0);
    snap_teardown(&w);
}

/* Node 1 alone on a crash-simulating storage (faults, power loss). */
static void crash_setup(net *w, const char *const *conf)
{
    memset(w, 0, sizeof *w);
    w->n = 1;
    w->now = 1000;
    extra_conf = conf;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &w->st[1]), LOGREP_OK);
    start_node(w, 1);
    run(w, 1500);
}

/* Node 1 killed (or its power lost) and started again: the same image. */
static void restart_keeps_the_image(int power_loss)
{
    net w;
    crash_setup(&w, tiny);
    make_topics(&w, 1, "t", 10);
    run(&w, 200);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w)), 0);
    lr_buf before, after;
    image_bytes(lr_nctl_image(w.node[1]), &before);
    int64_t end = lr_md_next_offset(lr_nctl_image(w.node[1]));
    kill_node(&w, 1);
    if (power_loss)
        cr_assert_eq(logrep_storage_crash_simulate(w.st[1], 7, LOGREP_CRASH_DROP_ALL), 0);
    w.down[1] = 0;
    start_node(&w, 1);
    const lr_md_image *img = lr_nctl_image(w.node[1]);
    cr_assert(img);
    cr_assert_eq(lr_md_next_offset(img), end, "every record was durable");
    image_bytes(img, &after);
    cr_assert(same_bytes(&before, &after), "the same image from snapshot + log");
    lr_buf_free(&after);
    lr_buf_free(&before);
    run(&w, 1500);
    cr_assert(logrep_node_is_controller(w.node[1]));
    create_topic(&w, 1, "again", 1, 1);
    cr_assert_eq(produce(&w, 1, "t7", 1, "v0", -1, NULL), 0);
    snap_teardown(&w);
}

Test(node_snapshot, a_killed_controller_rebuilds_from_snapshot_and_log)
{
    restart_keeps_the_image(0);
}

Test(node_snapshot, a_controller_after_power_loss_rebuilds_from_snapshot_and_log)
{
    restart_keeps_the_image(1);
}

/* A power loss at every point of writing a snapshot and trimming the log
 * below it: the restarted controller has the same image. */
Test(node_snapshot, power_loss_at_every_step_of_a_snapshot)
{
    int written = 0;
    for (uint64_t k = 1; k <= 40; k++) {
        net w;
        crash_setup(&w, NULL);
        make_topics(&w, 1, "t", 4);
        logrep_node *n = w.node[1];
        lr_buf before, after;
        image_bytes(lr_nctl_image(n), &before);
        int64_t end = lr_md_next_offset(lr_nctl_image(n));
        cr_assert_eq(logrep_storage_crash_after(w.st[1], k), 0);
        written += lr_nctl_snapshot_now(n, w.now, end) == 1;
        kill_node(&w, 1);
        cr_assert_eq(logrep_storage_crash_simulate(w.st[1], k, LOGREP_CRASH_RANDOM), 0);
        w.down[1] = 0;
        start_node(&w, 1);
        const lr_md_image *img = lr_nctl_image(w.node[1]);
        cr_assert(img, "step %d", (int)k);
        cr_assert_eq(lr_md_next_offset(img), end, "step %d", (int)k);
        image_bytes(img, &after);
        cr_assert(same_bytes(&before, &after), "step %d: the same image", (int)k);
        lr_qsnap_id id;
        if (lr_nctl_snapshot_latest(w.node[1], &id)) {
            cr_assert_eq(logrep_log_start_offset(mdlog(&w)), id.end_offset,
                         "step %d: a trim cut short is done at start-up", (int)k);
            cr_assert_eq(snaps(&w, 1, NULL, 0), 1, "step %d", (int)k);
        }
        lr_buf_free(&after);
        lr_buf_free(&before);
        snap_teardown(&w);
    }
    cr_assert_gt(written, 0, "some steps let the whole snapshot through");
}

/* The interval trigger: a snapshot once the interval passed with records
 * not in the latest one, none without new records. */
Test(node_snapshot, the_interval_trigger)
{
    static const char *const conf[] = {"metadata.log.max.snapshot.interval.ms", "5000", NULL};
    net w;
    snap_setup(&w, 1, conf);
    create_topic(&w, 1, "a", 1, 1);
    run(&w, 2000);
    cr_assert_eq(snaps(&w, 1, NULL, 0), 0, "not yet: %lld", (long long)w.now);
    run(&w, 3500);
    lr_qsnap_id ids[4];
    cr_assert_eq(snaps(&w, 1, ids, 4), 1, "the interval passed");
    int64_t first = ids[0].end_offset;
    cr_assert_eq(first, lr_md_next_offset(lr_nctl_image(w.node[1])));
    /* Heartbeats write nothing: no new snapshot however long. */
    run(&w, 12000);
    cr_assert_eq(snaps(&w, 1, ids, 4), 1);
    cr_assert_eq(ids[0].end_offset, first);
    create_topic(&w, 1, "b", 1, 1);
    run(&w, 5500);
    cr_assert_eq(snaps(&w, 1, ids, 4), 1);
    cr_assert_gt(ids[0].end_offset, first, "a new one after the next interval");
    snap_teardown(&w);
}

Test(node_snapshot, a_failed_write_is_retried_and_never_trims)
{
    net w;
    crash_setup(&w, tiny);
    /* Every rename fails: no snapshot can be installed; the log writes on. */
    logrep_node *n = w.node[1];
    create_topic(&w, 1, "a", 1, 1);
    int64_t start = logrep_log_start_offset(mdlog(&w));
    n->ctl->snap.bytes = n->ctl->snap.max_bytes; /* due at the next tick */
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_SYNC, 1, LOGREP_ERR__IO,
                                             1),
                 LOGREP_OK);
    int64_t e = lr_md_next_offset(lr_nctl_image(n));
    cr_assert_lt(lr_nctl_snapshot_now(n, w.now, e), 0, "the failure is returned");
    cr_assert_eq(logrep_storage_crash_inject(w.st[1], LOGREP_STORAGE_OP_SYNC, 0, 0, 0), LOGREP_OK);
    cr_assert_eq(n->ctl->snap.failed, 1);
    cr_assert_eq(logrep_log_start_offset(mdlog(&w)), start, "never trims");
    cr_assert_eq(snaps(&w, 1, NULL, 0), 0, "no snapshot, no .part left behind");
    cr_assert_eq(lr_nctl_snapshot_maybe(n, w.now + 10, e), 0, "not before the retry");
    run(&w, LR_NSNAP_RETRY_MS + 100);
    cr_assert_eq(snaps(&w, 1, NULL, 0), 1, "written at the retry");
    cr_assert_gt(logrep_log_start_offset(mdlog(&w)), start);
    snap_teardown(&w);
}

/* A quorum's caller passes its commit point: nothing is written unless
 * the image holds exactly the log below it. */
Test(node_snapshot, only_committed_state_is_snapshotted)
{
    net w;
    snap_setup(&w, 1, NULL);
    create_topic(&w, 1, "a", 1, 1);
    logrep_node *n = w.node[1];
    int64_t e = lr_md_next_offset(lr_nctl_image(n));
    cr_assert_eq(lr_nctl_snapshot_now(n, w.now, e - 1), 0);
    cr_assert_eq(lr_nctl_snapshot_now(n, w.now, e + 1), 0);
    cr_assert_eq(snaps(&w, 1, NULL, 0), 0);
    cr_assert_eq(lr_nctl_snapshot_now(n, w.now, e), 1);
    cr_assert_eq(lr_nctl_snapshot_now(n, w.now, e), 0, "nothing new");
    cr_assert_eq(snaps(&w, 1, NULL, 0), 1);
    snap_teardown(&w);
}

/* ---- start-up refusals ---- */

static logrep_err restart_err(net *w)
{
    kill_node(w, 1);
    w->down[1] = 0;
    return start_node_err(w, 1);
}

/* One node whose log was trimmed below its one snapshot (in *id). */
static void trimmed(net *w, lr_qsnap_id *id)
{
    snap_setup(w, 1, tiny);
    make_topics(w, 1, "t", 8);
    run(w, 200);
    cr_assert_eq(snaps(w, 1, id, 1), 1);
    cr_assert_eq(logrep_log_start_offset(mdlog(w)), id->end_offset);
}

Test(node_snapshot, a_trimmed_log_without_its_snapshot_is_refused)
{
    net w;
    lr_qsnap_id ids[1];
    trimmed(&w, ids);
    char name[LR_QSNAP_NAME_MAX], path[256];
    lr_qsnap_name(ids[0], LR_QSNAP_SUFFIX, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", MDDIR, name);
    cr_assert_eq(w.st[1]->remove(w.st[1]->ctx, path), 0);
    cr_assert_eq(restart_err(&w), LOGREP_ERR__CORRUPT, "the log starts above 0");
    snap_teardown(&w);
}

static int add_to(void *ctx, const uint8_t *rec, size_t len)
{
    return lr_qsnap_writer_add(ctx, rec, len);
}

/* A snapshot past the log's end (the log lost, or cut while a snapshot was
 * installed): the log restarts empty at the snapshot's end, as Kafka's
 * truncateFullyAndStartAt, and the controller serves the snapshot's image. */
Test(node_snapshot, a_log_shorter_than_the_snapshot_restarts_at_it)
{
    net w;
    lr_qsnap_id ids[1];
    trimmed(&w, ids);
    const lr_md_image *img = lr_nctl_image(w.node[1]);
    size_t topics = lr_md_topic_count(img);
    lr_qsnap_id far = {ids[0].end_offset + 50, ids[0].epoch};
    lr_qsnap_writer *wr;
    cr_assert_eq(lr_qsnap_writer_new(NULL, w.st[1], MDDIR, far, 1, 1, &wr), 0);
    cr_assert_eq(lr_md_snapshot_records(img, add_to, wr, NULL), 0);
    cr_assert_eq(lr_qsnap_writer_finish(wr, NULL), 0);
    lr_qsnap_writer_free(wr);
    cr_assert_eq(restart_err(&w), LOGREP_OK);
    cr_assert_eq(logrep_log_start_offset(mdlog(&w)), far.end_offset);
    cr_assert_geq(logrep_log_end_offset(mdlog(&w)), far.end_offset);
    cr_assert_eq(lr_md_topic_count(lr_nctl_image(w.node[1])), topics);
    create_topic(&w, 1, "after", 1, 1); /* and it goes on from there */
    cr_assert_eq(lr_md_topic_count(lr_nctl_image(w.node[1])), topics + 1);
    snap_teardown(&w);
}

Test(node_snapshot, bad_conf_values_are_refused)
{
    const char *keys[] = {"metadata.log.max.record.bytes.between.snapshots",
                          "metadata.log.max.snapshot.interval.ms"};
    const char *bad[2][3] = {{"0", "-1", "lots"}, {"-1", "x", "1.5"}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            logrep_conf *c = logrep_conf_new();
            char err[256] = "";
            cr_assert_neq(logrep_conf_set(c, keys[k], bad[k][i], err, sizeof err), LOGREP_OK,
                          "%s=%s", keys[k], bad[k][i]);
            cr_assert(strstr(err, keys[k]) || err[0], "a message: %s", err);
            logrep_conf_free(c);
        }
    logrep_conf *c = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(c, keys[1], "0", NULL, 0), LOGREP_OK, "0 disables the timer");
    cr_assert_eq(logrep_conf_set(c, keys[0], "1", NULL, 0), LOGREP_OK);
    logrep_conf_free(c);
}
