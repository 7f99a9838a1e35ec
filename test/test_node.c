/* Nodes end to end over an in-memory, lossless network: a combined
 * broker+controller and two brokers register, a topic is created through a
 * broker, produce with acks=all is acknowledged once replicated, and
 * consumers read it back; then the leader dies and the controller moves
 * leadership. Everything travels as Kafka wire frames. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/endian.h"
#include "codec/compress.h"
#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include "node/node_int.h"
#include <logrep/storage.h>

#include "lib/net_testutil.h"

/* CreateTopics of one topic; its error code, the message into msg, the
 * topic id into id (either may be NULL). */
static int create_topic_code(net *w, int via, const char *name, int parts, int rf, char *msg,
                             size_t msize, uint8_t id[16])
{
    return create_topic_full(w, via, name, parts, rf, NULL, msg, msize, id);
}



Test(node, cluster_produces_replicates_and_fails_over)
{
    net w;
    setup(&w, 3);
    run(&w, 3000); /* registration, unfencing */
    for (int id = 1; id <= 3; id++) {
        logrep_node_stats st;
        logrep_node_stats_get(w.node[id], &st);
        cr_assert_gt(st.metadata_offset, 2, "node %d applied %lld records", id, (long long)st.metadata_offset);
        cr_assert_eq(st.fenced_brokers, 0, "node %d sees %lld fenced", id, (long long)st.fenced_brokers);
    }
    create_topic(&w, 2, "orders", 3, 3);
    run(&w, 1000);
    /* Use a partition not led by node 1, the controller: its failover is
     * what this test exercises. */
    int32_t epoch = -1;
    int leader = -1, part = -1;
    for (int k = 0; k < 3 && part < 0; k++) {
        int l = leader_of(&w, 3, "orders", k, &epoch);
        cr_assert(l >= 1 && l <= 3, "leader %d", l);
        if (l != 1) {
            leader = l;
            part = k;
        }
    }
    cr_assert_geq(part, 0, "placement put every leader on the controller");

    /* acks=all produce is acknowledged once the ISR has it. */
    for (int i = 0; i < 5; i++) {
        char v[16];
        snprintf(v, sizeof v, "v%d", i);
        int64_t base = -1;
        int16_t e = produce(&w, leader, "orders", part, v, -1, &base);
        cr_assert_eq(e, 0, "produce %d: %s", i, logrep_err_name(e));
        cr_assert_eq(base, i);
    }
    int other = leader == 1 ? 2 : 1;
    cr_assert_eq(produce(&w, other, "orders", part, "x", 1, NULL), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    int64_t hw;
    cr_assert_eq(fetch_count(&w, leader, "orders", part, 0, &hw), 5);
    cr_assert_eq(hw, 5);

    /* Every replica has the data: partition directories in Kafka's layout. */
    run(&w, 500);
    for (int id = 1; id <= 3; id++) {
        size_t np = logrep_node_partition_count(w.node[id]);
        cr_assert_eq(np, 3u, "node %d hosts %zu partitions", id, np);
        for (size_t i = 0; i < np; i++) {
            logrep_node_partition_info pi;
            cr_assert_eq(logrep_node_partition(w.node[id], i, &pi), LOGREP_OK);
            if (pi.partition == part) {
                cr_assert_eq(pi.log_end_offset, 5, "node %d", id);
                cr_assert_eq(pi.high_watermark, 5, "node %d", id);
            }
        }
    }

    /* The leader dies. */
    int victim = leader;
    kill_node(&w, victim);
    run(&w, 12000); /* broker.session.timeout.ms = 9 s */
    int32_t epoch2;
    int leader2 = leader_of(&w, 1, "orders", part, &epoch2);
    cr_assert(leader2 >= 1 && leader2 != victim, "new leader %d", leader2);
    cr_assert_gt(epoch2, epoch);
    /* ISR is 2 of 3 = min.insync.replicas: acks=all still works. */
    int64_t base = -1;
    int16_t e = produce(&w, leader2, "orders", part, "v5", -1, &base);
    cr_assert_eq(e, 0, "produce after failover: %s", logrep_err_name(e));
    cr_assert_eq(base, 5);
    cr_assert_eq(fetch_count(&w, leader2, "orders", part, 0, NULL), 6);
    logrep_node_stats cst;
    logrep_node_stats_get(w.node[1], &cst);
    cr_assert_geq(cst.leader_changes, 1);
    cr_assert_eq(cst.unclean_elections, 0);
    cr_assert_geq(cst.under_replicated, 1, "the dead broker's partitions are under-replicated");
    char desc[4096];
    logrep_node_describe(w.node[1], "orders", 0, desc, sizeof desc);
    cr_assert(strstr(desc, "Partition: 0"), "%s", desc);
    /* --under-replicated-partitions lists the partitions the dead broker left. */
    logrep_node_describe(w.node[1], NULL, 3, desc, sizeof desc);
    cr_assert(strstr(desc, "Topic: orders"), "%s", desc);
    teardown(&w);
}

/* librdkafka's consumer looks up a group coordinator in passing
 * (FindCoordinator v2); groups are not served yet, so the broker answers
 * COORDINATOR_NOT_AVAILABLE instead of closing the connection its Fetch
 * requests share. */
Test(node, acks_all_needs_no_tick)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 2, "quick", 1, 3);
    run(&w, 1500); /* followers park their fetches at the leader */
    int32_t epoch;
    int leader = leader_of(&w, 1, "quick", 0, &epoch);
    cr_assert(leader >= 1);
    run(&w, 600);
    uint64_t c = produce_send(&w, leader, "quick", 0, "v0", -1);
    pump(&w); /* no tick */
    cr_assert(client_has(&w, c), "acks=all produce waited for a tick");
    cr_assert_eq(produce_wait(&w, c, 10, NULL), 0);
    teardown(&w);
}

/* ------------------------------------------------------------ topic lifecycle */

static int16_t metadata_error(net *w, int via, const char *topic, int auto_create, int *listed);


typedef struct dir_scan {
    const char *prefix;
    const char *suffix;
    int found;
} dir_scan;

static int scan_entry(void *ctx, const char *name)
{
    dir_scan *d = ctx;
    size_t pl = strlen(d->prefix), nl = strlen(name), sl = d->suffix ? strlen(d->suffix) : 0;
    if (strncmp(name, d->prefix, pl) != 0)
        return 0;
    if (d->suffix ? nl >= pl + sl && strcmp(name + nl - sl, d->suffix) == 0 : nl == pl)
        d->found++;
    return 0;
}

/* How many entries of node id's log dir are named prefix (suffix NULL) or
 * prefix...suffix. */
static int dir_count(net *w, int id, const char *prefix, const char *suffix)
{
    dir_scan d = {prefix, suffix, 0};
    logrep_storage *st = w->st[id];
    cr_assert_eq(st->list(st->ctx, "data", scan_entry, &d), LOGREP_OK);
    return d.found;
}

/* The topic id in node id's data/<dir>/partition.metadata. */
static void dir_topic_id(net *w, int id, const char *dir, char out[64])
{
    logrep_storage *st = w->st[id];
    char path[256];
    snprintf(path, sizeof path, "data/%s/partition.metadata", dir);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_READ, &f), LOGREP_OK, "%s", path);
    char buf[128] = {0};
    size_t got = 0;
    cr_assert_eq(st->read(st->ctx, f, 0, buf, sizeof buf - 1, &got), LOGREP_OK);
    st->close(st->ctx, f);
    const char *p = strstr(buf, "topic_id: ");
    cr_assert(p, "%s: %s", path, buf);
    snprintf(out, 64, "%.22s", p + 10);
}

/* Starts a killed node again. A new incarnation: the controller accepts
 * it once the old one's session has timed out. */
static void restart_node(net *w, int id)
{
    w->down[id] = 0;
    start_node(w, id);
}

static void run_past_session_timeout(net *w)
{
    run(w, 20000);
}

/* Log end offset of topic-part on node id; -1 when not hosted. */
static int64_t hosted_end(net *w, int id, const char *topic, int part)
{
    for (size_t i = 0; i < logrep_node_partition_count(w->node[id]); i++) {
        logrep_node_partition_info pi;
        cr_assert_eq(logrep_node_partition(w->node[id], i, &pi), LOGREP_OK);
        if (strcmp(pi.topic, topic) == 0 && pi.partition == part)
            return pi.log_end_offset;
    }
    return -1;
}


Test(node, deleted_topic_stays_deleted_when_recreated)
{
    net w;
    int leader = three_nodes_with_dt(&w);
    char v[16];
    for (int i = 0; i < 5; i++) {
        snprintf(v, sizeof v, "v%d", i);
        cr_assert_eq(produce(&w, leader, "dt", 0, v, -1, NULL), 0);
    }
    char old_id[64];
    dir_topic_id(&w, 2, "dt-0", old_id);
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0);
    run(&w, 200);
    for (int id = 1; id <= 3; id++) {
        cr_assert_eq(dir_count(&w, id, "dt-0", NULL), 0, "node %d kept dt-0", id);
        cr_assert_eq(dir_count(&w, id, "dt-0.", "-delete"), 1, "node %d: no -delete dir", id);
        cr_assert_eq(hosted_end(&w, id, "dt", 0), -1);
    }
    /* Re-created before the delay is up: a new id, an empty log. */
    create_topic(&w, 1, "dt", 1, 3);
    run(&w, 1500);
    leader = leader_of(&w, 1, "dt", 0, NULL);
    int64_t base = -1;
    cr_assert_eq(produce(&w, leader, "dt", 0, "v0", -1, &base), 0);
    cr_assert_eq(base, 0, "the re-created topic continued the old log at %lld", (long long)base);
    run(&w, 500);
    int64_t hw;
    cr_assert_eq(fetch_count(&w, leader, "dt", 0, 0, &hw), 1);
    cr_assert_eq(hw, 1);
    char new_id[64];
    dir_topic_id(&w, 3, "dt-0", new_id);
    cr_assert_str_neq(new_id, old_id);
    /* The delay passed: the -delete directories are gone. */
    for (int id = 1; id <= 3; id++) {
        cr_assert_eq(dir_count(&w, id, "dt-0.", "-delete"), 0, "node %d kept -delete", id);
        cr_assert_eq(hosted_end(&w, id, "dt", 0), 1, "node %d", id);
    }
    teardown(&w);
}

/* A replica down while its topic is deleted and re-created finds a
 * directory with the old topic id: retired as stray, never served. */
Test(node, stale_directory_of_a_down_replica_becomes_stray)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 1, "dt", 1, 3);
    create_topic(&w, 1, "gone", 1, 3);
    run(&w, 1500);
    int leader = leader_of(&w, 1, "dt", 0, NULL);
    cr_assert_eq(produce(&w, leader, "dt", 0, "v0", -1, NULL), 0);
    cr_assert_eq(produce(&w, leader, "dt", 0, "v1", -1, NULL), 0);
    run(&w, 500);
    int down = leader == 3 ? 2 : 3;
    kill_node(&w, down);
    run(&w, 1000);
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0);
    cr_assert_eq(delete_topic_wire(&w, 1, "gone"), 0);
    run(&w, 500);
    create_topic(&w, 1, "dt", 1, 3);
    run(&w, 1000);
    leader = leader_of(&w, 1, "dt", 0, NULL);
    cr_assert(leader >= 1 && leader != down);
    cr_assert_eq(produce(&w, leader, "dt", 0, "v0", 1, NULL), 0);
    cr_assert_eq(dir_count(&w, down, "dt-0", NULL), 1);
    restart_node(&w, down);
    run_past_session_timeout(&w);
    cr_assert_eq(dir_count(&w, down, "gone-0", NULL), 0, "deleted topic's directory kept");
    cr_assert_eq(hosted_end(&w, down, "gone", 0), -1);
    cr_assert_eq(hosted_end(&w, down, "dt", 0), 1, "replica holds the old log");
    char id_leader[64], id_down[64];
    dir_topic_id(&w, leader, "dt-0", id_leader);
    dir_topic_id(&w, down, "dt-0", id_down);
    cr_assert_str_eq(id_down, id_leader);
    cr_assert_eq(dir_count(&w, down, "dt-0.", "-stray") + dir_count(&w, down, "gone-0.", "-stray"), 0,
                 "strays not removed after the delay");
    teardown(&w);
}

/* A -delete directory left by a crash right after the rename is removed
 * by the next start, and a live topic on the same node keeps its data. */
Test(node, restart_finishes_a_deletion)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    create_topic(&w, 1, "keep", 1, 1);
    create_topic(&w, 1, "dt", 1, 1);
    run(&w, 500);
    cr_assert_eq(produce(&w, 1, "keep", 0, "v0", -1, NULL), 0);
    cr_assert_eq(produce(&w, 1, "dt", 0, "v0", -1, NULL), 0);
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0);
    run(&w, 100);
    cr_assert_eq(dir_count(&w, 1, "dt-0.", "-delete"), 1);
    kill_node(&w, 1); /* before the delay */
    restart_node(&w, 1);
    run(&w, 300);
    cr_assert_eq(dir_count(&w, 1, "dt-0.", "-delete"), 1, "removed before the delay");
    run_past_session_timeout(&w);
    cr_assert_eq(dir_count(&w, 1, "dt-0.", "-delete"), 0);
    cr_assert_eq(dir_count(&w, 1, "dt-0", NULL), 0);
    cr_assert_eq(metadata_error(&w, 1, "dt", 0, NULL), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION,
                 "deleted topic came back");
    /* Leaderless after an unclean restart with RF 1 (KIP-966), but held. */
    cr_assert_eq(hosted_end(&w, 1, "keep", 0), 1);
    teardown(&w);
}

static int16_t metadata_error(net *w, int via, const char *topic, int auto_create, int *listed)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_METADATA, 9, 8, "test");
    logrep_struct *root = logrep_msg_root(m);
    int ft = logrep_struct_field(root, "Topics");
    if (topic) {
        logrep_struct_set_count(root, ft, 1);
        logrep_struct *t = elem(root, "Topics", 0);
        logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    } else {
        logrep_struct_set_null(root, ft);
    }
    logrep_struct_set_int(root, logrep_struct_field(root, "AllowAutoTopicCreation"), auto_create);
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_METADATA, 9, r, 1000);
    logrep_struct *rs = logrep_msg_root(r);
    int16_t err = 0;
    int32_t nt = logrep_struct_count(rs, logrep_struct_field(rs, "Topics"));
    if (listed)
        *listed = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *rt = elem(rs, "Topics", i);
        const uint8_t *p;
        int32_t len;
        logrep_struct_bytes(rt, logrep_struct_field(rt, "Name"), &p, &len);
        if (listed && len == 18 && memcmp(p, "__cluster_metadata", 18) == 0)
            (*listed)++;
        if (topic)
            err = (int16_t)fint(rt, "ErrorCode");
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    return err;
}

Test(node, metadata_log_is_not_a_client_topic)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    int listed = -1;
    metadata_error(&w, 1, NULL, 1, &listed);
    cr_assert_eq(listed, 0);
    cr_assert_eq(metadata_error(&w, 1, "__cluster_metadata", 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(produce(&w, 1, "__cluster_metadata", 0, "x", 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    char msg[256];
    cr_assert_eq(create_topic_code(&w, 1, "__cluster_metadata", 1, 1, msg, sizeof msg, NULL),
                 LOGREP_ERR_INVALID_REQUEST);
    cr_assert_str_eq(msg, "Creation of internal topic __cluster_metadata is prohibited.");
    run(&w, 500);
    metadata_error(&w, 1, NULL, 1, &listed);
    cr_assert_eq(listed, 0);
    logrep_node_stats st;
    logrep_node_stats_get(w.node[1], &st);
    int64_t md = st.metadata_offset;
    /* A fetch by the metadata topic's id without a broker epoch is a
     * client's: refused. */
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_FETCH, 15, 12, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), 0);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    static const uint8_t mdid[16] = {[15] = 1};
    logrep_struct_set_uuid(t, logrep_struct_field(t, "TopicId"), mdid);
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
    uint64_t c = client_send(&w, 1, m);
    client_wait(&w, c, LOGREP_API_FETCH, 15, r, 1000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
    cr_assert_eq(fint(rp, "ErrorCode"), LOGREP_ERR_UNKNOWN_TOPIC_ID);
    logrep_msg_free(m);
    logrep_msg_free(r);
    /* The node's own metadata replication goes on. */
    create_topic(&w, 1, "after", 1, 1);
    run(&w, 500);
    logrep_node_stats_get(w.node[1], &st);
    cr_assert_gt(st.metadata_offset, md);
    cr_assert_eq(produce(&w, 1, "after", 0, "v0", 1, NULL), 0);
    teardown(&w);
}

Test(node, invalid_and_colliding_names_are_refused_at_once)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    char longname[300];
    memset(longname, 'a', 250);
    longname[250] = 0;
    const char *bad[] = {"bad/topic", ".", "..", longname};
    char msg[512];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(metadata_error(&w, 1, bad[i], 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION, "%s", bad[i]);
        cr_assert_eq(produce(&w, 1, bad[i], 0, "x", 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION, "%s", bad[i]);
        cr_assert_eq(create_topic_code(&w, 1, bad[i], 1, 1, msg, sizeof msg, NULL),
                     LOGREP_ERR_INVALID_TOPIC_EXCEPTION, "%s", bad[i]);
        cr_assert(strstr(msg, "Topic name"), "%s: %s", bad[i], msg);
    }
    create_topic(&w, 1, "a.b", 1, 1);
    run(&w, 300);
    cr_assert_eq(create_topic_code(&w, 1, "a_b", 1, 1, msg, sizeof msg, NULL),
                 LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_str_eq(msg, "Topic 'a_b' collides with existing topic: a.b");
    cr_assert_eq(metadata_error(&w, 1, "a_b", 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(produce(&w, 1, "a_b", 0, "x", 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(metadata_error(&w, 1, "a.b", 1, NULL), 0);
    cr_assert_eq(create_topic_code(&w, 1, "a-b", 1, 1, NULL, 0, NULL), 0);
    teardown(&w);
}

/* Topic ids never repeat: not after the controller restarts with the same
 * configured seed (the deleted topic's id is free again then). */
Test(node, topic_ids_do_not_repeat_across_restarts)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    uint8_t first[16], again[16];
    cr_assert_eq(create_topic_code(&w, 1, "t1", 1, 1, NULL, 0, first), 0);
    run(&w, 300);
    cr_assert_eq(delete_topic_wire(&w, 1, "t1"), 0);
    run(&w, 300);
    kill_node(&w, 1);
    restart_node(&w, 1);
    run_past_session_timeout(&w);
    cr_assert_eq(create_topic_code(&w, 1, "t2", 1, 1, NULL, 0, again), 0);
    cr_assert_arr_neq(first, again, 16, "a deleted topic's id was handed out again");
    teardown(&w);
}

static int longest_entry(void *ctx, const char *name)
{
    size_t *max = ctx;
    if (strlen(name) > *max)
        *max = strlen(name);
    return 0;
}

/* A retired directory's name fits 255 bytes (a file system's limit) even
 * for a 249-character topic name: the prefix is cut, as Kafka does. */
Test(node, retired_name_of_a_long_topic_fits)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    char name[250];
    memset(name, 'x', 249);
    name[249] = 0;
    create_topic(&w, 1, name, 1, 1);
    run(&w, 300);
    cr_assert_eq(dir_count(&w, 1, name, NULL), 0);
    char dir[260];
    snprintf(dir, sizeof dir, "%s-0", name);
    cr_assert_eq(dir_count(&w, 1, dir, NULL), 1);
    cr_assert_eq(delete_topic_wire(&w, 1, name), 0);
    run(&w, 100);
    cr_assert_eq(dir_count(&w, 1, dir, NULL), 0);
    cr_assert_eq(dir_count(&w, 1, "xxxx", "-delete"), 1);
    size_t max = 0;
    cr_assert_eq(w.st[1]->list(w.st[1]->ctx, "data", longest_entry, &max), LOGREP_OK);
    cr_assert_leq(max, 255);
    teardown(&w);
}

/* An acks=all produce parked when its topic is deleted is answered at
 * once with NOT_LEADER_OR_FOLLOWER, not when its timeout expires. */
Test(node, parked_produce_is_answered_when_its_topic_is_deleted)
{
    net w;
    int leader = three_nodes_with_dt(&w);
    kill_node(&w, leader == 2 ? 3 : 2); /* still in the ISR for replica.lag.time.max.ms */
    uint64_t c = produce_send(&w, leader, "dt", 0, "v0", -1);
    run(&w, 200);
    cr_assert(!client_has(&w, c), "answered before the deletion");
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0);
    cr_assert_eq(produce_wait(&w, c, 1000, NULL), LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    teardown(&w);
}

/* ---- leader-side batch validation (issue 12, item 1) ---- */

/* Recomputes the batch CRC after a test changed the inside. */
static void fix_crc(uint8_t *b, size_t len)
{
    lr_put_be32(b + 17, logrep_crc32c(0, b + 21, len - 21));
}

/* A valid uncompressed batch of n records "v0".."v<n-1>" into buf. */
static size_t good_batch(uint8_t *buf, size_t cap, int n)
{
    return values_batch(buf, cap, "v", n, 1700000000000LL);
}

/* The same corruptions a client could send, each with a valid outer CRC;
 * want is the error Kafka's LogValidator gives. */
typedef struct bad_case {
    const char *what;
    int16_t want;
} bad_case;

static size_t make_bad(int which, uint8_t *buf, size_t cap)
{
    size_t len = good_batch(buf, cap, 2);
    switch (which) {
    case 0: /* gzip attribute over uncompressed records */
    case 1: /* snappy attribute over uncompressed records */
        buf[22] = (uint8_t)(which == 0 ? LOGREP_COMPRESSION_GZIP : LOGREP_COMPRESSION_SNAPPY);
        break;
    case 2: { /* valid gzip around garbage records */
        lr_buf z;
        lr_buf_init(&z, &lr_alloc_default);
        static const uint8_t junk[40] = {0x7e, 0x01, 0x02, 0x03, 0xff, 0xff, 0xff};
        cr_assert_eq(lr_compress(LOGREP_COMPRESSION_GZIP, 0, junk, sizeof junk, &z, NULL), 0);
        cr_assert_leq(61 + z.len, cap);
        memcpy(buf + 61, z.data, z.len);
        len = 61 + z.len;
        lr_put_be32(buf + 8, (uint32_t)(len - 12));
        buf[22] = LOGREP_COMPRESSION_GZIP;
        lr_buf_free(&z);
        break;
    }
    case 3: /* declares 3 records (last delta 2) but carries 2 */
        lr_put_be32(buf + 23, 2);
        lr_put_be32(buf + 57, 3);
        break;
    case 4: /* first record's length runs past the batch */
        buf[61] = 0x7e;
        break;
    case 5: { /* second record repeats offset delta 0 */
        size_t second = 61 + 1 + (size_t)(buf[61] >> 1);
        cr_assert_eq(buf[second + 3], 2, "layout: delta 1 expected");
        buf[second + 3] = 0;
        break;
    }
    case 6: /* one byte of garbage after the last record */
        buf[len] = 0;
        len++;
        lr_put_be32(buf + 8, (uint32_t)(len - 12));
        break;
    }
    fix_crc(buf, len);
    return len;
}

static const bad_case bad_cases[] = {
    {"gzip attribute, plain records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"snappy attribute, plain records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"valid gzip of garbage", LOGREP_ERR_CORRUPT_MESSAGE},
    {"record count 3 with 2 records", LOGREP_ERR_CORRUPT_MESSAGE},
    {"garbage record length", LOGREP_ERR_CORRUPT_MESSAGE},
    {"non-increasing offset delta", LOGREP_ERR_INVALID_RECORD},
    {"trailing byte after the records", LOGREP_ERR_CORRUPT_MESSAGE},
};

static int part_info(net *w, int id, const char *topic, int part, logrep_node_partition_info *out)
{
    for (size_t i = 0; i < logrep_node_partition_count(w->node[id]); i++)
        if (logrep_node_partition(w->node[id], i, out) == LOGREP_OK &&
            strcmp(out->topic, topic) == 0 && out->partition == part)
            return 1;
    return 0;
}

Test(node_validate, corrupt_insides_refused_rf3_acks_all)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 2, "bad", 1, 3);
    run(&w, 1500);
    int leader = leader_of(&w, 1, "bad", 0, NULL);
    cr_assert(leader >= 1);
    uint8_t buf[512];
    size_t n = sizeof bad_cases / sizeof *bad_cases;
    for (size_t i = 0; i < n; i++) {
        size_t len = make_bad((int)i, buf, sizeof buf);
        cr_assert_eq(logrep_batch_verify(buf, len, NULL), LOGREP_OK, "%s: outer CRC", bad_cases[i].what);
        for (int16_t acks = -1; acks <= 1; acks += 2) {
            int16_t e = produce_raw(&w, leader, "bad", 0, buf, len, acks, NULL, NULL);
            cr_assert_eq(e, bad_cases[i].want, "%s acks=%d: got %s", bad_cases[i].what, acks,
                         logrep_err_name(e));
        }
    }
    run(&w, 1000);
    for (int id = 1; id <= 3; id++) {
        logrep_node_partition_info pi;
        cr_assert(part_info(&w, id, "bad", 0, &pi), "node %d hosts bad-0", id);
        cr_assert_eq(pi.log_end_offset, 0, "node %d has %lld offsets", id, (long long)pi.log_end_offset);
    }
    /* A valid batch still goes through, at offset 0, to every replica. */
    size_t len = good_batch(buf, sizeof buf, 2);
    int64_t base = -1, lat = 0;
    cr_assert_eq(produce_raw(&w, leader, "bad", 0, buf, len, -1, &base, &lat), 0);
    cr_assert_eq(base, 0);
    cr_assert_eq(lat, -1, "CreateTime answers log_append_time -1");
    run(&w, 1000);
    for (int id = 1; id <= 3; id++) {
        logrep_node_partition_info pi;
        cr_assert(part_info(&w, id, "bad", 0, &pi));
        cr_assert_eq(pi.log_end_offset, 2, "node %d", id);
    }
    cr_assert_eq(fetch_count(&w, leader, "bad", 0, 0, NULL), 2);
    teardown(&w);
}

/* ---- topic configs applied per partition (issue 12, item 2) ---- */

/* A one-record batch with value "v<i>" padded to pad bytes (0: none). */
static size_t value_batch(uint8_t *buf, size_t cap, int i, int pad)
{
    char v[512];
    int n = snprintf(v, sizeof v, "v%d", i);
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, v, pad > n ? pad : n, NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    cr_assert_leq(blen, cap);
    memcpy(buf, batch, blen);
    logrep_batch_builder_free(b);
    return blen;
}

Test(node_config, topic_configs_applied_and_changed)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    static const char *const cfg[] = {"max.message.bytes", "200", "message.timestamp.type",
                                      "LogAppendTime", "segment.bytes", "300", NULL};
    create_topic_with(&w, 2, "tc", 1, 3, cfg);
    run(&w, 1500);
    int leader = leader_of(&w, 1, "tc", 0, NULL);
    cr_assert(leader >= 1);
    uint8_t buf[1024];
    size_t len = value_batch(buf, sizeof buf, 0, 150);
    cr_assert(len > 200 && len < 300, "%zu", len);
    cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, NULL, NULL),
                 LOGREP_ERR_MESSAGE_TOO_LARGE);
    for (int i = 0; i < 8; i++) {
        len = value_batch(buf, sizeof buf, i, 0);
        int64_t t0 = w.now, lat = -1, base = -1;
        cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, &base, &lat), 0);
        cr_assert_eq(base, i);
        cr_assert_eq(lat, t0, "log_append_time %lld, now %lld", (long long)lat, (long long)t0);
    }
    run(&w, 500);
    for (int id = 1; id <= 3; id++) {
        logrep_node_partition_info pi;
        cr_assert(part_info(&w, id, "tc", 0, &pi));
        cr_assert_eq(pi.log_end_offset, 8, "node %d", id);
        cr_assert_geq(pi.segments, 2, "node %d: segment.bytes=300 gave %d segments", id,
                      pi.segments);
    }
    int count = 0, attrs = 0;
    cr_assert_eq(fetch_records(&w, leader, "tc", 0, 0, NULL, &count, &attrs), 0);
    cr_assert_gt(count, 0); /* one segment per fetch, as Kafka reads */
    cr_assert(attrs & LOGREP_ATTR_LOG_APPEND_TIME, "stored batches carry the LogAppendTime bit");

    /* A ConfigRecord reaches the open partitions: CreateTime again, and a
     * larger max.message.bytes. */
    cr_assert_eq(lr_nctl_set_topic_config(w.node[1], "tc", "message.timestamp.type", "CreateTime"), 0);
    cr_assert_eq(lr_nctl_set_topic_config(w.node[1], "tc", "max.message.bytes", "1000"), 0);
    run(&w, 1500);
    len = value_batch(buf, sizeof buf, 8, 150);
    int64_t lat = 0;
    cr_assert_eq(produce_raw(&w, leader, "tc", 0, buf, len, -1, NULL, &lat), 0);
    cr_assert_eq(lat, -1, "CreateTime answers -1");
    teardown(&w);
}

/* ---- retention from the node's tick (issue 12, item 3) ---- */

Test(node_retention, time_and_size_retention_survive_restart)
{
    static const char *const broker[] = {"log.retention.check.interval.ms", "1000",
                                         "retention.bytes", "400", NULL};
    extra_conf = broker;
    net w;
    setup(&w, 3);
    extra_conf = NULL;
    run(&w, 3000);
    /* Time: LogAppendTime so the segments' timestamps are the node clock. */
    static const char *const timed[] = {"retention.ms", "4000", "retention.bytes", "-1",
                                        "segment.bytes", "200", "message.timestamp.type",
                                        "LogAppendTime", NULL};
    create_topic_with(&w, 2, "rt", 1, 3, timed);
    /* Size: the broker's retention.bytes=400 with the topic's small segments. */
    static const char *const sized[] = {"segment.bytes", "200", NULL};
    create_topic_with(&w, 2, "rs", 1, 3, sized);
    run(&w, 1500);
    const char *topics[2] = {"rt", "rs"};
    int leaders[2];
    uint8_t buf[256];
    for (int k = 0; k < 2; k++) {
        leaders[k] = leader_of(&w, 1, topics[k], 0, NULL);
        cr_assert(leaders[k] >= 1);
        for (int i = 0; i < 12; i++) {
            size_t len = value_batch(buf, sizeof buf, i, 0);
            cr_assert_eq(produce_raw(&w, leaders[k], topics[k], 0, buf, len, -1, NULL, NULL), 0);
        }
    }
    run(&w, 100);
    logrep_node_partition_info pi;
    cr_assert(part_info(&w, leaders[0], "rt", 0, &pi));
    cr_assert_eq(pi.log_start_offset, 0, "nothing is 4 s old yet");
    cr_assert_geq(pi.segments, 4);
    run(&w, 6000);
    int64_t starts[2][MAXN + 1];
    int64_t deleted = 0;
    for (int k = 0; k < 2; k++) {
        for (int id = 1; id <= 3; id++) {
            cr_assert(part_info(&w, id, topics[k], 0, &pi));
            cr_assert_gt(pi.log_start_offset, 0, "%s node %d start", topics[k], id);
            cr_assert_eq(pi.log_end_offset, 12);
            starts[k][id] = pi.log_start_offset;
        }
        int count = 0;
        cr_assert_eq(fetch_records(&w, leaders[k], topics[k], 0, 0, NULL, &count, NULL),
                     LOGREP_ERR_OFFSET_OUT_OF_RANGE, "%s: fetch below the log start", topics[k]);
        cr_assert_eq(fetch_records(&w, leaders[k], topics[k], 0, starts[k][leaders[k]], NULL,
                                   &count, NULL), 0);
        cr_assert_gt(count, 0, "%s: records from the log start", topics[k]);
    }
    cr_assert(part_info(&w, leaders[0], "rt", 0, &pi));
    cr_assert_eq(pi.segments, 1, "every closed segment is past retention.ms");
    for (int id = 1; id <= 3; id++) {
        logrep_node_stats st;
        logrep_node_stats_get(w.node[id], &st);
        deleted += st.segments_deleted;
        cr_assert_gt(st.segments_deleted, 0, "node %d", id);
    }
    /* Restart a broker that is not the controller: its logs reopen with
     * the advanced start. */
    extra_conf = broker;
    kill_node(&w, 3);
    w.down[3] = 0;
    start_node(&w, 3);
    extra_conf = NULL;
    run_past_session_timeout(&w); /* the old incarnation was heard from */
    run(&w, 3000);
    for (int k = 0; k < 2; k++) {
        cr_assert(part_info(&w, 3, topics[k], 0, &pi), "%s reopened", topics[k]);
        cr_assert_geq(pi.log_start_offset, starts[k][3], "%s start after restart", topics[k]);
    }
    teardown(&w);
}

/* A parked fetch runs again only when a partition it reads changes (or its
 * wait ends): writes to another partition leave it parked and untouched;
 * a write to its own partition answers it at once. */
Test(node, parked_fetch_wakes_only_for_its_partitions)
{
    net w;
    one_node(&w);
    create_topic(&w, 1, "a", 1, 1);
    create_topic(&w, 1, "b", 1, 1);
    run(&w, 500);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    fetch_request(m, "a", 0, 0, 5000, 1);
    uint64_t c = client_send(&w, 1, m);
    run(&w, 50);
    logrep_node_stats st0, st1, st2;
    logrep_node_stats_get(w.node[1], &st0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(produce(&w, 1, "b", 0, "v0", 1, NULL), 0);
    logrep_node_stats_get(w.node[1], &st1);
    cr_assert_eq(st1.parked_fetch_runs, st0.parked_fetch_runs,
                 "writes to b ran the fetch parked on a %lld times",
                 (long long)(st1.parked_fetch_runs - st0.parked_fetch_runs));
    cr_assert(!client_has(&w, c), "answered before its partition changed");
    int64_t sent = w.now;
    cr_assert_eq(produce(&w, 1, "a", 0, "v0", 1, NULL), 0);
    client_wait(&w, c, LOGREP_API_FETCH, 11, r, 1000);
    cr_assert_lt(w.now - sent, 1000, "answered by the write, not by its wait");
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
    cr_assert_eq(fint(rp, "ErrorCode"), 0);
    cr_assert_eq(fint(rp, "HighWatermark"), 1);
    logrep_node_stats_get(w.node[1], &st2);
    cr_assert_eq(st2.parked_fetch_runs, st1.parked_fetch_runs + 1);
    logrep_msg_free(m);
    logrep_msg_free(r);
    teardown(&w);
}
