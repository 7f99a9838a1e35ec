/* Brokers behind the controller's trimmed metadata log (docs/quorum.md,
 * "In the node"): a metadata Fetch below the log start is answered with
 * the SnapshotId; FetchSnapshot on the controller listener serves the
 * file in pieces with Kafka's errors, and nowhere else; a broker
 * restarted after the trim loads the snapshot and serves what only the
 * snapshot holds; a corrupt snapshot is refused, never half applied, and
 * loaded once it is whole again. */
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

static lr_qsnap_id latest(net *w)
{
    lr_qsnap_id id;
    size_t n = 0;
    cr_assert_eq(lr_qsnap_list(w->st[1], MDDIR, &id, 1, &n), 0);
    cr_assert_geq(n, 1);
    return id;
}

static void make_topics(net *w, const char *prefix, int n, int rf)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        create_topic(w, 1, name, 1, rf);
    }
}

/* ---- on the wire ---- */

typedef struct fs_req {
    const char *topic;
    int32_t partition;
    lr_qsnap_id id;
    int64_t position;
    int32_t max_bytes;
    int32_t leader_epoch;
    int two_topics;
    const char *cluster_id;
} fs_req;

/* Sends a FetchSnapshot v0 to node 1 on `listener`; 1 and the answer in
 * resp, 0 when the connection was closed. */
static int fetch_snapshot(net *w, const char *listener, const fs_req *q, logrep_msg *resp)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_FETCH_SNAPSHOT, 0, 9, "test"), 0);
    logrep_struct *r = logrep_msg_root(m), *t, *p, *sid;
    if (q->cluster_id)
        lr_f_set_str(r, LR_FN_ClusterId, q->cluster_id, (int32_t)strlen(q->cluster_id));
    lr_f_set_int(r, LR_FN_ReplicaId, -1);
    lr_f_set_int(r, LR_FN_MaxBytes, q->max_bytes);
    lr_f_set_count(r, LR_FN_Topics, q->two_topics ? 2 : 1);
    for (int i = 0; i < (q->two_topics ? 2 : 1); i++) {
        t = lr_f_elem(r, LR_FN_Topics, i);
        lr_f_set_str(t, LR_FN_Name, q->topic, (int32_t)strlen(q->topic));
        lr_f_set_count(t, LR_FN_Partitions, 1);
        p = lr_f_elem(t, LR_FN_Partitions, 0);
        lr_f_set_int(p, LR_FN_Partition, q->partition);
        lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, q->leader_epoch);
        logrep_struct_set_struct(p, lr_fid(p, LR_FN_SnapshotId), &sid);
        lr_f_set_int(sid, LR_FN_EndOffset, q->id.end_offset);
        lr_f_set_int(sid, LR_FN_Epoch, q->id.epoch);
        lr_f_set_int(p, LR_FN_Position, q->position);
    }
    uint64_t c = client_send_on(w, 1, listener, m);
    logrep_msg_free(m);
    return client_answer(w, c, LOGREP_API_FETCH_SNAPSHOT, 0, resp, 2000);
}

static logrep_struct *part_of(logrep_msg *resp)
{
    logrep_struct *t = lr_f_elem(logrep_msg_root(resp), LR_FN_Topics, 0);
    cr_assert(t);
    return lr_f_elem(t, LR_FN_Partitions, 0);
}

/* The partition's error of a FetchSnapshot. */
static int16_t fs_error(net *w, const fs_req *q)
{
    logrep_msg *resp;
    logrep_msg_new(NULL, &resp);
    cr_assert_eq(fetch_snapshot(w, "CONTROLLER", q, resp), 1);
    int16_t top = (int16_t)lr_f_int(logrep_msg_root(resp), LR_FN_ErrorCode);
    int16_t e = top ? top : (int16_t)lr_f_int(part_of(resp), LR_FN_ErrorCode);
    logrep_msg_free(resp);
    return e;
}

static int serves(net *w, const char *listener, int api)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_API_VERSIONS, 3, 1, "test"), 0);
    client_wait(w, client_send_on(w, 1, listener, m), LOGREP_API_API_VERSIONS, 3, r, 2000);
    logrep_struct *root = logrep_msg_root(r);
    int found = 0;
    for (int32_t i = 0; i < lr_f_count(root, LR_FN_ApiKeys); i++)
        found |= lr_f_int(lr_f_elem(root, LR_FN_ApiKeys, i), LR_FN_ApiKey) == api;
    logrep_msg_free(m);
    logrep_msg_free(r);
    return found;
}

Test(node_fsnap, fetch_snapshot_on_the_wire)
{
    net w;
    extra_conf = tiny;
    setup(&w, 1);
    run(&w, 1500);
    make_topics(&w, "t", 8, 1);
    run(&w, 200);
    lr_qsnap_id id = latest(&w);
    cr_assert(serves(&w, "CONTROLLER", LOGREP_API_FETCH_SNAPSHOT));
    cr_assert_not(serves(&w, "PLAINTEXT", LOGREP_API_FETCH_SNAPSHOT), "brokers' listener: no");

    /* A broker's metadata fetch from offset 0: the snapshot id. */
    logrep_msg *m, *resp;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &resp);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_FETCH, 15, 3, "test"), 0);
    logrep_struct *r = logrep_msg_root(m), *rs, *t, *p;
    logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs);
    lr_f_set_int(rs, LR_FN_ReplicaId, -1);
    lr_f_set_int(rs, LR_FN_ReplicaEpoch, 1);
    lr_f_set_int(r, LR_FN_MaxBytes, 1 << 20);
    lr_f_set_count(r, LR_FN_Topics, 1);
    t = lr_f_elem(r, LR_FN_Topics, 0);
    const uint8_t mdid[16] = {[15] = 1};
    logrep_struct_set_uuid(t, lr_fid(t, LR_FN_TopicId), mdid);
    lr_f_set_count(t, LR_FN_Partitions, 1);
    p = lr_f_elem(t, LR_FN_Partitions, 0);
    lr_f_set_int(p, LR_FN_FetchOffset, 0);
    lr_f_set_int(p, LR_FN_PartitionMaxBytes, 1 << 20);
    client_wait(&w, client_send_on(&w, 1, "CONTROLLER", m), LOGREP_API_FETCH, 15, resp, 2000);
    p = lr_f_elem(lr_f_elem(logrep_msg_root(resp), LR_FN_Responses, 0), LR_FN_Partitions, 0);
    cr_assert_eq(lr_f_int(p, LR_FN_ErrorCode), 0);
    cr_assert(logrep_struct_tag_present(p, lr_fid(p, LR_FN_SnapshotId)));
    logrep_struct *sid = logrep_struct_struct(p, lr_fid(p, LR_FN_SnapshotId));
    cr_assert_eq(lr_f_int(sid, LR_FN_EndOffset), id.end_offset);
    cr_assert_eq(lr_f_int(sid, LR_FN_Epoch), id.epoch);
    cr_assert_eq(lr_f_int(p, LR_FN_LogStartOffset), id.end_offset);
    const uint8_t *recs;
    int32_t rlen = -1;
    logrep_struct_bytes(p, lr_fid(p, LR_FN_Records), &recs, &rlen);
    cr_assert_leq(rlen, 0, "no records");

    /* The file in pieces of 100 bytes: the same bytes. */
    uint64_t size;
    uint8_t file[1 << 14];
    size_t got;
    cr_assert_eq(lr_qsnap_read_chunk(w.st[1], MDDIR, id, 0, file, sizeof file, &got, &size), 0);
    cr_assert_lt(size, sizeof file);
    fs_req q = {LR_METADATA_TOPIC, 0, id, 0, 100, -1, 0, NULL};
    for (q.position = 0; q.position < (int64_t)size; q.position += 100) {
        cr_assert_eq(fetch_snapshot(&w, "CONTROLLER", &q, resp), 1);
        cr_assert_eq(lr_f_int(logrep_msg_root(resp), LR_FN_ErrorCode), 0);
        p = part_of(resp);
        cr_assert_eq(lr_f_int(p, LR_FN_ErrorCode), 0);
        cr_assert_eq(lr_f_int(p, LR_FN_Size), (int64_t)size);
        cr_assert_eq(lr_f_int(p, LR_FN_Position), q.position);
        sid = logrep_struct_struct(p, lr_fid(p, LR_FN_SnapshotId));
        cr_assert_eq(lr_f_int(sid, LR_FN_EndOffset), id.end_offset);
        logrep_struct *cl = logrep_struct_struct(p, lr_fid(p, LR_FN_CurrentLeader));
        cr_assert_eq(lr_f_int(cl, LR_FN_LeaderId), 1);
        logrep_struct_bytes(p, lr_fid(p, LR_FN_UnalignedRecords), &recs, &rlen);
        int64_t want = (int64_t)size - q.position < 100 ? (int64_t)size - q.position : 100;
        cr_assert_eq(rlen, want);
        cr_assert_eq(memcmp(recs, file + q.position, (size_t)rlen), 0);
    }
    /* Kafka's errors. */
    q.position = (int64_t)size;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_POSITION_OUT_OF_RANGE);
    q.position = -1;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_POSITION_OUT_OF_RANGE);
    q.position = 0;
    q.id.end_offset++;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_SNAPSHOT_NOT_FOUND);
    q.id = id;
    q.id.epoch = -1;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_SNAPSHOT_NOT_FOUND);
    q.id = id;
    q.topic = "other";
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    q.topic = LR_METADATA_TOPIC;
    q.partition = 1;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    q.partition = 0;
    q.leader_epoch = 999;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_UNKNOWN_LEADER_EPOCH);
    q.leader_epoch = -1;
    q.two_topics = 1;
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_INVALID_REQUEST);
    q.two_topics = 0;
    q.cluster_id = "another-cluster";
    cr_assert_eq(fs_error(&w, &q), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    q.cluster_id = NULL;
    cr_assert_eq(fs_error(&w, &q), 0, "and fine again");
    cr_assert_eq(fetch_snapshot(&w, "PLAINTEXT", &q, resp), 0, "closed, as Kafka does");
    logrep_msg_free(m);
    logrep_msg_free(resp);
    extra_conf = NULL;
    teardown(&w);
}

/* ---- brokers loading it ---- */

static int snap_collect(void *ctx, const uint8_t *rec, size_t len)
{
    return lr_buf_append(ctx, rec, len);
}

static void same_image(const lr_md_image *a, const lr_md_image *b)
{
    lr_buf x, y;
    lr_buf_init(&x, &lr_alloc_default);
    lr_buf_init(&y, &lr_alloc_default);
    cr_assert_eq(lr_md_snapshot_records(a, snap_collect, &x, NULL), 0);
    cr_assert_eq(lr_md_snapshot_records(b, snap_collect, &y, NULL), 0);
    cr_assert(x.len == y.len && memcmp(x.data, y.data, x.len) == 0, "the same image");
    cr_assert_eq(lr_md_next_offset(a), lr_md_next_offset(b));
    lr_buf_free(&x);
    lr_buf_free(&y);
}

/* Two nodes; node 2 killed while it still looks alive, a topic placed on
 * both then ("only": the restarted node 2 learns it from the snapshot
 * alone), more topics until the log is trimmed past all of it. */
static void two_nodes_trimmed(net *w)
{
    extra_conf = tiny;
    setup(w, 2);
    run(w, 2000);
    make_topics(w, "t", 3, 2);
    kill_node(w, 2);
    create_topic(w, 1, "only", 1, 2);
    make_topics(w, "u", 8, 1);
    run(w, 200);
    cr_assert_gt(logrep_log_start_offset(w->node[1]->ctl->log),
                 lr_md_topic_by_name(lr_nctl_image(w->node[1]), "only") ? 0 : -1);
    cr_assert_gt(latest(w).end_offset, 0);
}

Test(node_fsnap, a_broker_restarted_after_the_trim_loads_the_snapshot)
{
    net w;
    two_nodes_trimmed(&w);
    w.down[2] = 0;
    start_node(&w, 2);
    int ok = 0;
    for (int i = 0; i < 100 && !ok; i++) {
        run(&w, 100);
        ok = lr_md_next_offset(w.node[2]->md.img) == lr_md_next_offset(lr_nctl_image(w.node[1]));
    }
    cr_assert(ok, "node 2 caught up");
    cr_assert_null(w.node[2]->md.snap);
    same_image(w.node[2]->md.img, lr_nctl_image(w.node[1]));
    /* It serves what it learnt from the snapshot: it hosts "only" (acks=all
     * needs it in the ISR), answers Metadata for it, and is fetched from. */
    int16_t e = -1;
    int leader = -1;
    for (int i = 0; i < 100 && e != 0; i++) {
        run(&w, 100);
        leader = leader_of(&w, 2, "only", 0, NULL);
        if (leader > 0)
            e = produce(&w, leader, "only", 0, "v0", -1, NULL);
    }
    cr_assert_eq(e, 0, "acks=all on a topic only the snapshot told node 2 of");
    const lr_md_partition *op =
        lr_md_partition_get(lr_md_topic_by_name(w.node[2]->md.img, "only"), 0);
    cr_assert(lr_node_part(w.node[2], "only", 0), "node 2 hosts it: replicas %d,%d isr %d leader %d",
              op->replicas[0], op->n_replicas > 1 ? op->replicas[1] : -1, op->n_isr,
              (int)op->leader);
    int l5 = leader_of(&w, 2, "u5", 0, NULL);
    cr_assert_gt(l5, 0);
    cr_assert_eq(produce(&w, l5, "u5", 0, "v0", -1, NULL), 0);
    int64_t hw;
    cr_assert_eq(fetch_count(&w, leader, "only", 0, 0, &hw), 1);
    extra_conf = NULL;
    teardown(&w);
}

static void flip(logrep_storage *st, lr_qsnap_id id, uint64_t at)
{
    char name[LR_QSNAP_NAME_MAX], path[256];
    lr_qsnap_name(id, LR_QSNAP_SUFFIX, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", MDDIR, name);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE, &f), 0);
    uint8_t b;
    size_t got;
    cr_assert_eq(st->read(st->ctx, f, at, &b, 1, &got), 0);
    b ^= 0x40;
    cr_assert_eq(st->write(st->ctx, f, at, &b, 1), 0);
    cr_assert_eq(st->close(st->ctx, f), 0);
}

Test(node_fsnap, a_corrupt_snapshot_is_refused_and_retried)
{
    net w;
    two_nodes_trimmed(&w);
    lr_qsnap_id id = latest(&w);
    /* No newer snapshot may replace the corrupt one during the test. */
    w.node[1]->ctl->snap.max_bytes = INT64_MAX;
    flip(w.st[1], id, 200);
    w.down[2] = 0;
    start_node(&w, 2);
    run(&w, 3000);
    cr_assert_lt(lr_md_next_offset(w.node[2]->md.img), id.end_offset,
                 "never a partial or corrupt snapshot");
    cr_assert_eq(lr_md_topic_count(w.node[2]->md.img), 0);
    flip(w.st[1], id, 200); /* whole again */
    int ok = 0;
    for (int i = 0; i < 50 && !ok; i++) {
        run(&w, 100);
        ok = lr_md_next_offset(w.node[2]->md.img) == lr_md_next_offset(lr_nctl_image(w.node[1]));
    }
    cr_assert(ok, "loaded at a later try");
    same_image(w.node[2]->md.img, lr_nctl_image(w.node[1]));
    extra_conf = NULL;
    teardown(&w);
}
