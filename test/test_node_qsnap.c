/* Metadata snapshots in a controller quorum of three combined voters
 * (docs/quorum.md, "Snapshots in the quorum", "Snapshots in the node"),
 * with a tiny metadata.log.max.record.bytes.between.snapshots: every
 * voter snapshots what is committed and trims its log; a voter that was
 * down while the others trimmed past its log end, and one whose disk was
 * replaced, catch up through the leader's snapshot (FetchSnapshot between
 * voters) and lead or vote again; the whole cluster restarts from its
 * snapshots; a broker behind the log start loads the snapshot.
 *
 * Each test names, in a comment, the code path whose loss makes it fail.
 * Checked by breaking them: (a) failed before the active controller
 * counted its own records' bytes (it never snapshotted); (b) and (c) fail
 * when ctl_qwire.c never sends FetchSnapshot ("did not catch up"); (d)
 * when start_from_snapshot does not load the snapshot; (e) when
 * ctl_fsnap.c refuses brokers' FetchSnapshot. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "controller/metadata.h"
#include "lib/net_testutil.h"
#include "node/ctl_role.h"
#include "quorum/qsnap.h"

#define MDDIR "data/__cluster_metadata-0"

static const char *const tiny[] = {"metadata.log.max.record.bytes.between.snapshots", "600",
                                   "broker.session.timeout.ms", "3000", NULL};

/* The snapshots on node id's disk, newest first; their count. */
static size_t snaps(net *w, int id, lr_qsnap_id *ids, size_t cap)
{
    size_t n = 0;
    cr_assert_eq(lr_qsnap_list(w->st[id], MDDIR, ids, cap, &n), 0);
    return n;
}

/* Voter id's metadata log (its controller role's). */
static logrep_log *mdlog(net *w, int id)
{
    cr_assert(w->node[id] && w->node[id]->ctl, "node %d is no controller", id);
    return w->node[id]->ctl->log;
}

/* n topics <prefix>0.. of 2 partitions through node via. */
static void make_topics(net *w, int via, const char *prefix, int n, int rf)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        create_topic(w, via, name, 2, rf);
    }
}

/* Three voters (and nodes - 3 brokers) with a tiny snapshot threshold,
 * settled; the active controller's id. */
static int quorum_up(net *w, int nodes)
{
    net_quorum_setup(w, nodes, tiny);
    int a = net_settle(w, 10000);
    cr_assert_geq(a, 1, "no active controller within 10 s");
    return a;
}

/* Runs (at most max_ms) until `img` of node id (its controller's when
 * ctl, else its broker's) is the active controller's; 1 when it is. */
static int caught_up(net *w, int id, int ctl, int64_t max_ms)
{
    for (int64_t t = 0; t <= max_ms; t += 50) {
        int a = net_active(w);
        if (a >= 1 && w->node[id]) {
            const lr_md_image *mine = ctl ? lr_nctl_image(w->node[id]) : w->node[id]->md.img;
            if (net_image_same(mine, lr_nctl_image(w->node[a])))
                return 1;
        }
        run(w, 50);
    }
    return 0;
}

/* Runs (at most max_ms) until node id's quorum view says abstaining == want. */
static int abstains_within(net *w, int id, int want, int64_t max_ms)
{
    lr_nq_view v;
    for (int64_t t = 0; t <= max_ms; t += 50) {
        cr_assert_eq(lr_nctl_quorum_view(w->node[id], &v), 0);
        if (v.abstaining == want)
            return 1;
        run(w, 50);
    }
    return 0;
}

/* Runs until partition 0 of topic holds n replicas in its ISR on the
 * active controller's image (at most max_ms): restarted brokers leave the
 * ISR when they register again (KIP-966) and come back one fetch and one
 * AlterPartition later. 1 when it does. */
static int isr_full_within(net *w, const char *topic, uint32_t n, int64_t max_ms)
{
    for (int64_t t = 0; t <= max_ms; t += 50) {
        int a = net_active(w);
        const lr_md_topic *tp = a > 0 ? lr_md_topic_by_name(lr_nctl_image(w->node[a]), topic) : NULL;
        const lr_md_partition *mp = tp ? lr_md_partition_get(tp, 0) : NULL;
        if (mp && mp->n_isr == n)
            return 1;
        run(w, 50);
    }
    return 0;
}

/* Runs until an active controller exists (at most max_ms); its id or -1. */
static int active_within(net *w, int64_t max_ms)
{
    int a = net_active(w);
    for (int64_t t = 0; t < max_ms && a < 0; t += 50) {
        run(w, 50);
        a = net_active(w);
    }
    return a;
}

/* Every topic <prefix>0..n-1 has a live leader per node via. */
static void topics_served(net *w, int via, const char *prefix, int n)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        int l = leader_of(w, via, name, 0, NULL);
        cr_assert(l >= 1 && w->node[l], "node %d: %s has no live leader (%d)", via, name, l);
    }
}

/* (a) Fails without maybe_snapshot in lr_nq_tick (no voter writes a
 * snapshot, the log starts at 0), or if a standby's snapshot were taken
 * of an image that is not the committed log (the images would differ). */
Test(node_qsnap, every_voter_snapshots_trims_and_agrees)
{
    net w;
    quorum_up(&w, 4);
    make_topics(&w, 4, "t", 12, 3);
    run(&w, 500);
    for (int id = 1; id <= 3; id++) {
        lr_qsnap_id ids[4];
        size_t n = snaps(&w, id, ids, 4);
        cr_assert_eq(n, 1, "voter %d: %zu snapshots on disk (the older ones go)", id, n);
        int64_t start = logrep_log_start_offset(mdlog(&w, id));
        cr_assert_gt(start, 0, "voter %d: its metadata log was not trimmed", id);
        cr_assert_eq(start, ids[0].end_offset, "voter %d: the log starts at its snapshot", id);
        lr_qsnap_id latest;
        cr_assert(lr_nctl_snapshot_latest(w.node[id], &latest));
        cr_assert_eq(latest.end_offset, ids[0].end_offset);
        lr_qsnap_info info;
        cr_assert_eq(lr_qsnap_check(NULL, w.st[id], MDDIR, ids[0], &info), 0, "voter %d: %s", id,
                     info.why);
        cr_assert(caught_up(&w, id, 1, 3000), "voter %d's image is not the active controller's",
                  id);
    }
    cr_assert(caught_up(&w, 4, 0, 3000), "broker 4's image is not the active controller's");
    topics_served(&w, 4, "t", 12);
    net_quorum_teardown(&w);
}

/* (b) A voter down while the others trimmed past its log end. Fails
 * without FetchSnapshot between voters (ctl_qwire.c routing API 59 to the
 * quorum: the voter never catches up and no request is counted), without
 * nq_load (the image would stay the old one), or if the restarted voter
 * could not act from an installed snapshot (it never becomes active). */
Test(node_qsnap, a_voter_behind_the_trim_fetches_the_snapshot_and_leads)
{
    net w;
    int a = quorum_up(&w, 3);
    make_topics(&w, a, "t", 2, 3);
    run(&w, 300);
    int v = a % 3 + 1;
    int64_t v_end = logrep_log_end_offset(mdlog(&w, v));
    kill_node(&w, v);
    make_topics(&w, a, "down", 10, 2);
    run(&w, 500);
    for (int id = 1; id <= 3; id++)
        if (id != v)
            cr_assert_gt(logrep_log_start_offset(mdlog(&w, id)), v_end,
                         "voter %d's log was not trimmed past voter %d's end %lld", id, v,
                         (long long)v_end);
    int64_t fs0 = w.requests_sent[v][LOGREP_API_FETCH_SNAPSHOT];
    start_node(&w, v);
    cr_assert(caught_up(&w, v, 1, 10000), "voter %d did not catch up", v);
    cr_assert_gt(w.requests_sent[v][LOGREP_API_FETCH_SNAPSHOT], fs0,
                 "voter %d caught up without FetchSnapshot", v);
    lr_qsnap_id id;
    cr_assert(lr_nctl_snapshot_latest(w.node[v], &id));
    cr_assert_gt(id.end_offset, v_end, "the snapshot it installed");
    cr_assert_geq(snaps(&w, v, NULL, 0), 1);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w, v)), v_end, "its log restarted past its end");
    cr_assert(caught_up(&w, v, 0, 5000), "voter %d's broker side did not catch up", v);
    net_produce_all(&w, "down3", 2, 0, 3);

    /* The active controller killed until voter v is elected. */
    for (int tries = 0; tries < 8 && net_active(&w) != v; tries++) {
        int k = net_active(&w);
        cr_assert_geq(k, 1);
        kill_node(&w, k);
        int b = active_within(&w, 10000);
        cr_assert_geq(b, 1, "no active controller with voter %d down", k);
        start_node(&w, k);
        cr_assert_geq(net_settle(&w, 10000), 1);
    }
    cr_assert_eq(net_active(&w), v, "voter %d never became the active controller", v);
    create_topic(&w, v, "after", 2, 3);
    topics_served(&w, v, "down", 10);
    net_check_all(&w, "down3", 2, 3);
    net_produce_all(&w, "down7", 2, 0, 2);
    net_check_all(&w, "down7", 2, 2);
    net_produce_all(&w, "after", 2, 0, 2);
    for (int o = 1; o <= 3; o++)
        cr_assert(caught_up(&w, o, 1, 3000), "voter %d's image", o);
    net_quorum_teardown(&w);
}

/* (c) A voter whose disk was replaced, its empty metadata directory
 * created before it starts (docs/quorum.md, "Disk loss"): it abstains,
 * loads the leader's snapshot as an observer, and votes again once a
 * leader elected without it has caught it up. Fails if the abstainer
 * could not install a snapshot (its image stays empty), if it voted while
 * abstaining (an active controller with the leader dead), or if it never
 * became a voter again (the last election needs its vote). */
Test(node_qsnap, a_voter_with_a_new_disk_rejoins_through_the_snapshot)
{
    net w;
    int a = quorum_up(&w, 3);
    create_topic(&w, a, "d", 1, 3);
    make_topics(&w, a, "t", 8, 3);
    net_produce_all(&w, "d", 1, 0, 3);
    run(&w, 300);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w, a)), 0);
    int lost = a % 3 + 1;
    kill_node(&w, lost);
    logrep_storage_free(w.st[lost]);
    cr_assert_eq(logrep_storage_memory_new(NULL, &w.st[lost]), LOGREP_OK);
    cr_assert_eq(w.st[lost]->mkdir(w.st[lost]->ctx, "data"), LOGREP_OK);
    cr_assert_eq(w.st[lost]->mkdir(w.st[lost]->ctx, MDDIR), LOGREP_OK);
    int64_t fs0 = w.requests_sent[lost][LOGREP_API_FETCH_SNAPSHOT];
    start_node(&w, lost);
    cr_assert(abstains_within(&w, lost, 1, 0), "voter %d with a new disk does not abstain", lost);
    cr_assert(caught_up(&w, lost, 1, 10000), "voter %d did not catch up", lost);
    cr_assert_gt(w.requests_sent[lost][LOGREP_API_FETCH_SNAPSHOT], fs0,
                 "voter %d caught up without FetchSnapshot", lost);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w, lost)), 0, "it restarted at the snapshot");
    cr_assert_eq(net_active(&w), a, "the leader stays");
    cr_assert(abstains_within(&w, lost, 1, 0), "trusted again without a new leader");

    /* The leader killed: the one other voter cannot win alone. */
    kill_node(&w, a);
    run(&w, 6000);
    cr_assert_eq(net_active(&w), -1, "elected with the vote of a voter that lost its disk");
    start_node(&w, a);
    cr_assert_geq(net_settle(&w, 15000), 1);
    cr_assert(abstains_within(&w, lost, 0, 5000), "voter %d never trusted again", lost);
    cr_assert(isr_full_within(&w, "d", 3, 5000), "d's ISR did not come back to 3 replicas");

    /* It votes again: the active controller killed, voter `lost` and the
     * one other elect a new one. */
    int b = net_active(&w);
    kill_node(&w, b);
    int c = active_within(&w, 10000);
    cr_assert(c >= 1 && c != b, "no active controller without %d: %d did not vote", b, lost);
    cr_assert(caught_up(&w, lost, 1, 3000));
    create_topic(&w, c, "again", 1, 2);
    net_check_all(&w, "d", 1, 3); /* its ISR was whole when b died: led on */
    start_node(&w, b);
    cr_assert_geq(net_settle(&w, 15000), 1);
    net_check_all(&w, "d", 1, 3);
    topics_served(&w, lost, "t", 8);
    net_quorum_teardown(&w);
}

/* (d) The whole cluster killed after the trims. Fails without
 * start_from_snapshot (a log starting above 0 without its snapshot is
 * refused, start_node asserts) or if a voter restarted on its snapshot
 * could not be elected or rebuild the rest from its log. */
Test(node_qsnap, the_whole_cluster_restarts_from_its_snapshots)
{
    net w;
    quorum_up(&w, 3);
    create_topic(&w, 1, "w", 3, 3);
    make_topics(&w, 1, "t", 8, 3);
    net_produce_all(&w, "w", 3, 0, 4);
    run(&w, 500);
    lr_qsnap_id before[4];
    for (int id = 1; id <= 3; id++) {
        cr_assert_eq(snaps(&w, id, &before[id], 1), 1, "voter %d has no snapshot", id);
        cr_assert_gt(logrep_log_start_offset(mdlog(&w, id)), 0);
    }
    for (int id = 1; id <= 3; id++)
        kill_node(&w, id);
    run(&w, 100);
    for (int id = 3; id >= 1; id--) {
        start_node(&w, id);
        /* Started from its own snapshot: the image is the snapshot's. */
        lr_qsnap_id got;
        cr_assert(lr_nctl_snapshot_latest(w.node[id], &got), "voter %d", id);
        cr_assert_eq(got.end_offset, before[id].end_offset, "voter %d", id);
        cr_assert_eq(lr_md_next_offset(lr_nctl_image(w.node[id])), got.end_offset, "voter %d", id);
        run(&w, 200);
    }
    int a = net_settle(&w, 10000);
    cr_assert_geq(a, 1, "no active controller after the restart");
    for (int id = 1; id <= 3; id++)
        cr_assert(caught_up(&w, id, 1, 3000), "voter %d's image", id);
    net_check_all(&w, "w", 3, 4);
    topics_served(&w, a, "t", 8);
    net_produce_all(&w, "t5", 2, 0, 2);
    net_quorum_teardown(&w);
}

/* (e) A broker (not a voter) whose metadata offset is below the active
 * controller's log start: its metadata fetch is answered with the
 * SnapshotId and it loads the snapshot (mdsnap.c) from the active
 * controller of a quorum. Fails if the quorum's active controller did not
 * answer the broker's fetch below its start with the SnapshotId or did
 * not serve its FetchSnapshot (the broker never catches up). */
Test(node_qsnap, a_broker_below_the_log_start_loads_the_snapshot)
{
    net w;
    int a = quorum_up(&w, 4);
    run(&w, 500);
    int64_t end4 = lr_md_next_offset(w.node[4]->md.img);
    /* Killed while it still looks alive: "only" is placed on it too. */
    kill_node(&w, 4);
    create_topic(&w, 1, "only", 2, 4);
    make_topics(&w, 1, "u", 10, 2);
    run(&w, 500);
    a = net_active(&w);
    cr_assert_gt(logrep_log_start_offset(mdlog(&w, a)), end4, "not trimmed past broker 4");
    int64_t fs0 = w.requests_sent[4][LOGREP_API_FETCH_SNAPSHOT];
    w.down[4] = 0;
    start_node(&w, 4);
    cr_assert(caught_up(&w, 4, 0, 10000), "broker 4 did not catch up");
    cr_assert_gt(w.requests_sent[4][LOGREP_API_FETCH_SNAPSHOT], fs0,
                 "broker 4 caught up without FetchSnapshot");
    cr_assert_null(w.node[4]->md.snap);
    /* It serves what only the snapshot told it: it hosts "only" and is
     * back in its ISR. */
    for (int p = 0; p < 2; p++)
        cr_assert(lr_node_part(w.node[4], "only", p), "broker 4 does not host only-%d", p);
    int in_isr = 0;
    for (int t = 0; t < 100 && !in_isr; t++) {
        run(&w, 100);
        a = net_active(&w);
        const lr_md_topic *tp = lr_md_topic_by_name(lr_nctl_image(w.node[a]), "only");
        in_isr = 1;
        for (int p = 0; p < 2; p++) {
            const lr_md_partition *mp = lr_md_partition_get(tp, p);
            int has = 0;
            for (int i = 0; i < mp->n_isr; i++)
                has |= mp->isr[i] == 4;
            in_isr &= has;
        }
    }
    cr_assert(in_isr, "broker 4 is not back in the ISR of only");
    net_produce_all(&w, "only", 2, 0, 3);
    net_check_all(&w, "only", 2, 3);
    topics_served(&w, 4, "u", 10);
    net_quorum_teardown(&w);
}
