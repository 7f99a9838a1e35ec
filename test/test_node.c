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

#include "logrep.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "logrep/storage.h"

#include "lib/net_testutil.h"

/* Leader of topic/partition per node `via`'s metadata; -1 if none. */
static int leader_of(net *w, int via, const char *topic, int part, int32_t *epoch)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_METADATA, 9, 8, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_METADATA, 9, r, 1000);
    logrep_struct *rs = logrep_msg_root(r);
    cr_assert_eq(fint(rs, "ControllerId"), 1);
    logrep_struct *rt = elem(rs, "Topics", 0);
    int leader = -1;
    if (fint(rt, "ErrorCode") == 0) {
        logrep_struct *rp = elem(rt, "Partitions", part);
        leader = (int)fint(rp, "LeaderId");
        if (epoch)
            *epoch = (int32_t)fint(rp, "LeaderEpoch");
    }
    logrep_msg_free(m);
    logrep_msg_free(r);
    return leader;
}

static int16_t produce(net *w, int to, const char *topic, int part, const char *value, int16_t acks,
                       int64_t *base)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, value, (int32_t)strlen(value), NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, 9, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), acks);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
    logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
    logrep_struct *t = elem(root, "TopicData", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
    logrep_struct *p = elem(t, "PartitionData", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Index"), part);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
    uint64_t c = client_send(w, to, m);
    client_wait(w, c, LOGREP_API_PRODUCE, 7, r, 6000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "PartitionResponses", 0);
    int16_t err = (int16_t)fint(rp, "ErrorCode");
    if (base)
        *base = fint(rp, "BaseOffset");
    logrep_msg_free(m);
    logrep_msg_free(r);
    logrep_batch_builder_free(b);
    return err;
}

/* Fetches from `offset` and returns how many records came back, checking
 * the values against "v<offset>". */
static int fetch_count(net *w, int from, const char *topic, int part, int64_t offset, int64_t *hw)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_FETCH, 11, 10, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ReplicaId"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), 0);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxBytes"), 1 << 20);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = elem(root, "Topics", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Topic"), topic, (int32_t)strlen(topic));
    logrep_struct_set_count(t, logrep_struct_field(t, "Partitions"), 1);
    logrep_struct *p = elem(t, "Partitions", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Partition"), part);
    logrep_struct_set_int(p, logrep_struct_field(p, "FetchOffset"), offset);
    logrep_struct_set_int(p, logrep_struct_field(p, "PartitionMaxBytes"), 1 << 20);
    uint64_t c = client_send(w, from, m);
    client_wait(w, c, LOGREP_API_FETCH, 11, r, 1000);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "Partitions", 0);
    cr_assert_eq(fint(rp, "ErrorCode"), 0, "fetch: %s", logrep_err_name((int)fint(rp, "ErrorCode")));
    if (hw)
        *hw = fint(rp, "HighWatermark");
    const uint8_t *recs;
    int32_t rlen;
    logrep_struct_bytes(rp, logrep_struct_field(rp, "Records"), &recs, &rlen);
    int count = 0;
    logrep_batch_reader *rd;
    logrep_batch_reader_new(NULL, &rd);
    size_t pos = 0;
    while (rlen > 0 && pos < (size_t)rlen) {
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_reader_open(rd, recs + pos, (size_t)rlen - pos, &h), LOGREP_OK);
        logrep_record rec;
        while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK) {
            char want[32];
            snprintf(want, sizeof want, "v%lld", (long long)rec.offset);
            cr_assert_eq(rec.value_len, (int32_t)strlen(want));
            cr_assert_arr_eq(rec.value, want, strlen(want));
            count++;
        }
        pos += (size_t)h.batch_length + 12;
    }
    logrep_batch_reader_free(rd);
    logrep_msg_free(m);
    logrep_msg_free(r);
    return count;
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
            logrep_partition_info pi;
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
Test(node, find_coordinator_is_answered_not_available, .timeout = 30)
{
    net w;
    setup(&w, 1);
    run(&w, 500);
    for (int v = 0; v <= 4; v += 2) {
        logrep_msg *m, *r;
        logrep_msg_new(NULL, &m);
        logrep_msg_new(NULL, &r);
        cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_FIND_COORDINATOR, v, 21, "rdkafka"),
                     LOGREP_OK);
        logrep_struct *root = logrep_msg_root(m);
        if (v < 4) {
            logrep_struct_set_bytes(root, logrep_struct_field(root, "Key"), "grp", 3);
        } else {
            int fk = logrep_struct_field(root, "CoordinatorKeys");
            logrep_struct_set_count(root, fk, 1);
            logrep_struct_set_elem_bytes(root, fk, 0, "grp", 3);
        }
        uint64_t c = client_send(&w, 1, m);
        client_wait(&w, c, LOGREP_API_FIND_COORDINATOR, v, r, 1000);
        logrep_struct *rs = logrep_msg_root(r);
        cr_assert_eq(logrep_msg_correlation_id(r), 21);
        if (v < 4) {
            cr_assert_eq(fint(rs, "ErrorCode"), LOGREP_ERR_COORDINATOR_NOT_AVAILABLE, "v%d", v);
            cr_assert_eq(fint(rs, "NodeId"), -1);
        } else {
            logrep_struct *ce = elem(rs, "Coordinators", 0);
            cr_assert_eq(fint(ce, "ErrorCode"), LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
            const uint8_t *k;
            int32_t kl;
            logrep_struct_bytes(ce, logrep_struct_field(ce, "Key"), &k, &kl);
            cr_assert_eq(kl, 3);
            cr_assert_arr_eq(k, "grp", 3);
        }
        logrep_msg_free(m);
        logrep_msg_free(r);
    }
    teardown(&w);
}

/* acks=all completes from the frames alone: no tick is needed between the
 * produce and its answer (the follower's parked fetch is answered when the
 * data arrives, its next fetch moves the HW). */
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
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    logrep_batch_builder_add(b, 1700000000000LL, "k", 1, "v0", 2, NULL, 0);
    const uint8_t *batch;
    size_t blen;
    logrep_batch_builder_finish(b, &batch, &blen);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, 9, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
    logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
    logrep_struct *t = elem(root, "TopicData", 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "quick", 5);
    logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
    logrep_struct *p = elem(t, "PartitionData", 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Index"), 0);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
    uint64_t c = client_send(&w, leader, m);
    pump(&w); /* no tick */
    int answered = 0;
    for (frame *f = w.client_inbox; f; f = f->next)
        if (f->conn == c)
            answered = 1;
    cr_assert(answered, "acks=all produce waited for a tick");
    client_wait(&w, c, LOGREP_API_PRODUCE, 7, r, 10);
    logrep_struct *rp = elem(elem(logrep_msg_root(r), "Responses", 0), "PartitionResponses", 0);
    cr_assert_eq(logrep_struct_int(rp, logrep_struct_field(rp, "ErrorCode")), 0);
    logrep_msg_free(m);
    logrep_msg_free(r);
    logrep_batch_builder_free(b);
    teardown(&w);
}
