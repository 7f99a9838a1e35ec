/* The controller role of a node and its metadata log: a write or flush
 * that fails stops the controller before anything is answered from the
 * undurable image; records of any size are written; appends carry the
 * event's time and the controller's epoch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include <logrep.h>
#include <logrep/node.h>
#include <logrep/storage.h>
#include "node/node_int.h"

#include "lib/net_testutil.h"

/* One broker+controller node on a crash-simulating storage (the kind that
 * injects faults). */
static void crash_node(net *w)
{
    memset(w, 0, sizeof *w);
    w->n = 1;
    w->now = 1000;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &w->st[1]), LOGREP_OK);
    start_node(w, 1);
    run(w, 1000);
}

/* A process restart of node 1 on the same storage. */
static void restart(net *w)
{
    kill_node(w, 1);
    w->down[1] = 0;
    start_node(w, 1);
    run(w, 1000);
}

static const lr_md_image *ctl_image(net *w)
{
    return lr_nctl_image(w->node[1]);
}

/* Storage refuses op (persistently) from the next call on: the CreateTopics
 * that needs a record is answered NOT_CONTROLLER, the node stops being
 * controller and stays stopped when the storage works again. */
static void create_meets_fault(net *w, uint32_t op)
{
    cr_assert_eq(create_topic_full(w, 1, "a", 1, 1, NULL, NULL, 0, NULL), 0);
    cr_assert(logrep_node_is_controller(w->node[1]));
    cr_assert_eq(logrep_storage_crash_inject(w->st[1], op, 1, LOGREP_ERR__IO, 1), LOGREP_OK);
    cr_assert_eq(create_topic_full(w, 1, "b", 1, 1, NULL, NULL, 0, NULL),
                 LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_not(logrep_node_is_controller(w->node[1]), "the host can see it");
    cr_assert_null(ctl_image(w), "no answer from the undurable image");
    cr_assert_eq(logrep_storage_crash_inject(w->st[1], op, 0, LOGREP_ERR__IO, 0), LOGREP_OK);
    run(w, 500);
    cr_assert_eq(create_topic_full(w, 1, "c", 1, 1, NULL, NULL, 0, NULL),
                 LOGREP_ERR_NOT_CONTROLLER, "stopped for good");
    cr_assert_not(logrep_node_is_controller(w->node[1]));
}

/* After the restart the controller acts again on what was durable. */
static void restarted_has_only_durable(net *w)
{
    cr_assert(logrep_node_is_controller(w->node[1]));
    const lr_md_image *img = ctl_image(w);
    cr_assert(img);
    cr_assert(lr_md_topic_by_name(img, "a"));
    cr_assert_null(lr_md_topic_by_name(img, "b"), "the refused record is not in the log");
    cr_assert_null(lr_md_topic_by_name(img, "c"));
    cr_assert_eq(create_topic_full(w, 1, "b", 1, 1, NULL, NULL, 0, NULL), 0);
}

Test(node_controller, failed_metadata_write_stops_the_controller)
{
    net w;
    crash_node(&w);
    create_meets_fault(&w, LOGREP_STORAGE_OP_WRITE);
    restart(&w);
    restarted_has_only_durable(&w);
    teardown(&w);
}

/* A record written but not synced is not answered: after a power loss it
 * would be gone while the client was told the topic exists. */
Test(node_controller, failed_metadata_flush_stops_the_controller)
{
    net w;
    crash_node(&w);
    create_meets_fault(&w, LOGREP_STORAGE_OP_SYNC);
    kill_node(&w, 1);
    cr_assert_eq(logrep_storage_crash_simulate(w.st[1], 7, LOGREP_CRASH_DROP_ALL), LOGREP_OK);
    w.down[1] = 0;
    start_node(&w, 1);
    run(&w, 1000);
    restarted_has_only_durable(&w);
    teardown(&w);
}

/* A registration with many long endpoints makes a record far above 64 KiB:
 * it is written whole and replayed after a restart. */
Test(node_controller, large_metadata_record_is_written)
{
    enum { NEP = 300, HOST = 250 };
    net w;
    crash_node(&w);
    static char hosts[NEP][HOST + 1];
    static lr_ctl_endpoint eps[NEP];
    for (int i = 0; i < NEP; i++) {
        memset(hosts[i], 'a' + i % 26, HOST);
        hosts[i][HOST] = 0;
        eps[i] = (lr_ctl_endpoint){"PLAINTEXT", hosts[i], (uint16_t)(9000 + i), 0};
    }
    lr_ctl_register_req rr;
    memset(&rr, 0, sizeof rr);
    rr.broker_id = 7;
    rr.incarnation[0] = 7;
    rr.endpoints = eps;
    rr.n_endpoints = NEP;
    rr.previous_broker_epoch = -1;
    lr_ctl_register_resp resp;
    int64_t before = lr_md_next_offset(ctl_image(&w));
    cr_assert_eq(lr_ctl_register_broker(lr_nctl_ctl(w.node[1]), &rr, w.now, &resp), 0);
    cr_assert(logrep_node_is_controller(w.node[1]));
    logrep_log_slice sl;
    int64_t hw, ls;
    cr_assert_eq(lr_nctl_fetch_metadata(w.node[1], before, 1 << 20, &sl, &hw, &ls), LOGREP_OK);
    cr_assert_eq(hw, before + 1);
    cr_assert_gt(sl.length, 64 * 1024, "one record of %llu bytes", (unsigned long long)sl.length);
    restart(&w);
    const lr_md_broker *b = lr_md_broker_get(ctl_image(&w), 7);
    cr_assert(b, "the registration was replayed");
    cr_assert_eq(b->n_endpoints, NEP);
    cr_assert_str_eq(b->endpoints[NEP - 1].host, hosts[NEP - 1]);
    teardown(&w);
}

/* Every batch of the metadata log from `from` on: its leader epoch into
 * epochs[] and its max timestamp into ts[]; returns how many. */
static int read_batches(net *w, int64_t from, int32_t *epochs, int64_t *ts, int max)
{
    logrep_log_slice sl;
    int64_t hw, ls;
    cr_assert_eq(lr_nctl_fetch_metadata(w->node[1], from, 1 << 22, &sl, &hw, &ls), LOGREP_OK);
    uint8_t *buf = malloc(sl.length + 1);
    size_t got = 0;
    if (sl.length)
        cr_assert_eq(w->st[1]->read(w->st[1]->ctx, sl.file, sl.position, buf, sl.length, &got), 0);
    int n = 0;
    for (size_t pos = 0; pos + 61 <= got && n < max; n++) {
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_header_parse(buf + pos, got - pos, &h), LOGREP_OK);
        epochs[n] = h.partition_leader_epoch;
        ts[n] = h.max_timestamp;
        pos += 12 + (size_t)h.batch_length;
    }
    free(buf);
    return n;
}

Test(node_controller, metadata_batches_carry_time_and_controller_epoch)
{
    net w;
    setup(&w, 1);
    int64_t t0 = w.now;
    run(&w, 1000);
    int64_t t1 = w.now;
    create_topic(&w, 1, "a", 1, 1);
    int64_t t2 = w.now;
    int32_t epo[256];
    int64_t ts[256];
    int n = read_batches(&w, 0, epo, ts, 256);
    cr_assert_gt(n, 2);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(epo[i], 0, "first controller: epoch 0 (batch %d)", i);
        cr_assert(ts[i] >= t0 && ts[i] <= t2, "batch %d at %lld, in [%lld, %lld]", i,
                  (long long)ts[i], (long long)t0, (long long)t2);
        cr_assert(i == 0 || ts[i] >= ts[i - 1]);
    }
    cr_assert_geq(ts[n - 1], t1, "the topic's records carry the time of the request");
    int64_t end = lr_md_next_offset(ctl_image(&w));
    restart(&w);
    create_topic(&w, 1, "b", 1, 1);
    int m = read_batches(&w, end, epo, ts, 256);
    cr_assert_gt(m, 0);
    for (int i = 0; i < m; i++)
        cr_assert_eq(epo[i], 1, "a restarted controller writes in a new epoch");
    teardown(&w);
}
