/* Admin APIs at the protocol level: the exact CreateTopics request a client
 * sends, and the exact error code Kafka answers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net_testutil.h"

#define CT_VERSION 7

typedef struct kv {
    const char *name, *value; /* value NULL: a null value */
} kv;

static logrep_msg *ct_new(int validate_only, int ntopics)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, CT_VERSION, 41, "admin"),
                 LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "timeoutMs"), 10000);
    logrep_struct_set_int(root, logrep_struct_field(root, "validateOnly"), validate_only);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), ntopics);
    return m;
}

static logrep_struct *ct_topic(logrep_msg *m, int i, const char *name, int np, int rf)
{
    logrep_struct *t = elem(logrep_msg_root(m), "Topics", i);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), name, (int32_t)strlen(name));
    logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), np);
    logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), rf);
    return t;
}

static void ct_configs(logrep_struct *t, const kv *c, int n)
{
    logrep_struct_set_count(t, logrep_struct_field(t, "Configs"), n);
    for (int i = 0; i < n; i++) {
        logrep_struct *ce = elem(t, "Configs", i);
        logrep_struct_set_bytes(ce, logrep_struct_field(ce, "Name"), c[i].name,
                                (int32_t)strlen(c[i].name));
        logrep_struct_set_bytes(ce, logrep_struct_field(ce, "Value"), c[i].value,
                                c[i].value ? (int32_t)strlen(c[i].value) : -1);
    }
}

/* Partition parts[i] on ids[i][0..sizes[i]). */
static void ct_assign(logrep_struct *t, int n, const int *parts, const int *sizes,
                      const int32_t (*ids)[4])
{
    logrep_struct_set_count(t, logrep_struct_field(t, "Assignments"), n);
    for (int i = 0; i < n; i++) {
        logrep_struct *a = elem(t, "Assignments", i);
        logrep_struct_set_int(a, logrep_struct_field(a, "PartitionIndex"), parts[i]);
        int f = logrep_struct_field(a, "BrokerIds");
        logrep_struct_set_count(a, f, sizes[i]);
        for (int k = 0; k < sizes[i]; k++)
            logrep_struct_set_elem_int(a, f, k, ids[i][k]);
    }
}

/* Sends m through broker `via` (forwarded to the controller) and returns
 * the response; frees m. */
static logrep_msg *ct_send(net *w, int via, logrep_msg *m)
{
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_CREATE_TOPICS, CT_VERSION, r, 5000);
    logrep_msg_free(m);
    cr_assert_eq(logrep_msg_correlation_id(r), 41);
    return r;
}

static int16_t ct_err(logrep_msg *r, int i)
{
    return (int16_t)fint(elem(logrep_msg_root(r), "Topics", i), "ErrorCode");
}

/* One topic with configs; returns its error code. */
static int16_t create_with(net *w, int validate_only, const char *name, int np, int rf,
                           const kv *c, int n)
{
    logrep_msg *m = ct_new(validate_only, 1);
    ct_configs(ct_topic(m, 0, name, np, rf), c, n);
    logrep_msg *r = ct_send(w, 2, m);
    int16_t e = ct_err(r, 0);
    logrep_msg_free(r);
    return e;
}

static int topic_exists(net *w, const char *name)
{
    run(w, 300);
    char buf[8192];
    logrep_node_describe(w->node[2], NULL, 0, buf, sizeof buf);
    char want[300];
    snprintf(want, sizeof want, "Topic: %s\t", name);
    return strstr(buf, want) != NULL;
}

static void cluster(net *w)
{
    setup(w, 3);
    run(w, 3000);
}

/* Kafka keeps every config and value it is given: a 17th config and a
 * value of 300 bytes reach the topic. */
Test(admin, create_keeps_every_config, .timeout = 60)
{
    net w;
    cluster(&w);
    char big[400] = "0:1";
    while (strlen(big) < 300)
        strcat(big, ",0:1");
    kv c[] = {{"cleanup.policy", "delete"}, {"compression.type", "lz4"},
              {"delete.retention.ms", "1000"}, {"file.delete.delay.ms", "1000"},
              {"flush.messages", "100"}, {"flush.ms", "100"}, {"index.interval.bytes", "100"},
              {"max.compaction.lag.ms", "100000"}, {"max.message.bytes", "100000"},
              {"message.timestamp.type", "CreateTime"}, {"min.cleanable.dirty.ratio", "0.25"},
              {"min.compaction.lag.ms", "0"}, {"preallocate", "false"},
              {"retention.bytes", "-1"}, {"retention.ms", "100000"},
              {"follower.replication.throttled.replicas", big}, {"min.insync.replicas", "3"}};
    cr_assert_eq(create_with(&w, 0, "many", 1, 3, c, 17), 0);
    run(&w, 300);
    char buf[8192];
    logrep_node_describe(w.node[2], "many", 0, buf, sizeof buf);
    cr_assert(strstr(buf, "min.insync.replicas=3"), "%s", buf);
    cr_assert(strstr(buf, big), "%s", buf);
    teardown(&w);
}

/* Kafka's LogConfig refuses these with INVALID_CONFIG, and nothing is
 * created. */
Test(admin, create_refuses_invalid_configs, .timeout = 60)
{
    net w;
    cluster(&w);
    static const kv bad[] = {{"no.such.config", "1"},        {"log.retention.ms", "1000"},
                             {"retention.ms", "abc"},        {"segment.bytes", "-5"},
                             {"cleanup.policy", "bogus"},    {"retention.ms", NULL},
                             {"min.insync.replicas", "0"},   {"max.message.bytes", "3000000000"},
                             {"preallocate", "yes"},         {"min.cleanable.dirty.ratio", "1.5"},
                             {"message.timestamp.type", "logappendtime"},
                             {"compression.type", "brotli"}, {"retention.ms", "-2"},
                             /* Kafka's compression validators: "none" is a
                              * producer-side name, names are case-sensitive,
                              * gzip takes -1 or 1..9. */
                             {"compression.type", "none"},   {"compression.type", "GZIP"},
                             {"compression.gzip.level", "0"}, {"compression.gzip.level", "10"},
                             {"compression.gzip.level", "-2"}, {"compression.lz4.level", "0"},
                             {"compression.lz4.level", "18"}, {"compression.zstd.level", "23"},
                             {"compression.zstd.level", "-131073"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(create_with(&w, 0, "bad", 1, 1, &bad[i], 1), LOGREP_ERR_INVALID_CONFIG,
                     "%s=%s", bad[i].name, bad[i].value ? bad[i].value : "(null)");
        cr_assert_eq(create_with(&w, 1, "bad", 1, 1, &bad[i], 1), LOGREP_ERR_INVALID_CONFIG,
                     "validate_only %s", bad[i].name);
    }
    cr_assert_not(topic_exists(&w, "bad"));
    /* What Kafka parses: trimmed numbers, any-case booleans, lists. */
    kv good[] = {{"retention.ms", " 5000 "}, {"unclean.leader.election.enable", "TRUE"},
                 {"cleanup.policy", "compact, delete"}, {"retention.bytes", "-7"}};
    cr_assert_eq(create_with(&w, 0, "good", 1, 1, good, 4), 0);
    /* Each compression range's ends. */
    kv lo[] = {{"compression.type", "uncompressed"}, {"compression.gzip.level", "-1"},
               {"compression.lz4.level", "1"}, {"compression.zstd.level", "-131072"}};
    kv hi[] = {{"compression.type", "gzip"}, {"compression.gzip.level", "9"},
               {"compression.lz4.level", "17"}, {"compression.zstd.level", "22"}};
    kv one[] = {{"compression.gzip.level", "1"}};
    cr_assert_eq(create_with(&w, 0, "lo", 1, 1, lo, 4), 0);
    cr_assert_eq(create_with(&w, 0, "hi", 1, 1, hi, 4), 0);
    cr_assert_eq(create_with(&w, 0, "one", 1, 1, one, 1), 0);
    teardown(&w);
}

/* validate_only answers what a real create would, and writes nothing. */
Test(admin, validate_only_runs_every_check, .timeout = 60)
{
    net w;
    cluster(&w);
    cr_assert_eq(create_with(&w, 1, "v", 1, 4, NULL, 0), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
    cr_assert_eq(create_with(&w, 1, "v", 0, 1, NULL, 0), LOGREP_ERR_INVALID_PARTITIONS);
    cr_assert_eq(create_with(&w, 1, "v", 1, 0, NULL, 0), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
    cr_assert_eq(create_with(&w, 0, "exists", 1, 1, NULL, 0), 0);
    cr_assert_eq(create_with(&w, 1, "exists", 1, 1, NULL, 0), LOGREP_ERR_TOPIC_ALREADY_EXISTS);
    logrep_msg *m = ct_new(1, 1);
    ct_topic(m, 0, "v", 4, 3);
    logrep_msg *r = ct_send(&w, 2, m);
    logrep_struct *rt = elem(logrep_msg_root(r), "Topics", 0);
    cr_assert_eq(fint(rt, "ErrorCode"), 0);
    cr_assert_eq(fint(rt, "NumPartitions"), 4);
    cr_assert_eq(fint(rt, "ReplicationFactor"), 3);
    logrep_msg_free(r);
    cr_assert_not(topic_exists(&w, "v"), "validate_only created the topic");
    cr_assert_eq(create_with(&w, 0, "v", 1, 1, NULL, 0), 0);
    teardown(&w);
}

static int16_t create_assigned(net *w, const char *name, int np, int rf, int n, const int *parts,
                               const int *sizes, const int32_t (*ids)[4])
{
    logrep_msg *m = ct_new(0, 1);
    ct_assign(ct_topic(m, 0, name, np, rf), n, parts, sizes, ids);
    logrep_msg *r = ct_send(w, 2, m);
    int16_t e = ct_err(r, 0);
    logrep_msg_free(r);
    return e;
}

Test(admin, manual_assignment_is_used_and_checked, .timeout = 60)
{
    net w;
    cluster(&w);
    static const int parts[] = {0, 1, 2}, gap[] = {0, 2}, two[] = {2, 2, 2};
    static const int32_t ids[][4] = {{3, 2}, {2, 1}, {1, 3}};
    cr_assert_eq(create_assigned(&w, "placed", -1, -1, 3, parts, two, ids), 0);
    run(&w, 300);
    char buf[4096];
    logrep_node_describe(w.node[2], "placed", 0, buf, sizeof buf);
    cr_assert(strstr(buf, "Partition: 0\tLeader: 3\tReplicas: 3,2\tIsr: 3,2"), "%s", buf);
    cr_assert(strstr(buf, "Partition: 2\tLeader: 1\tReplicas: 1,3\tIsr: 1,3"), "%s", buf);

    static const int32_t unknown[][4] = {{1, 9}}, dup[][4] = {{2, 2}}, empty[][4] = {{0}};
    static const int one[] = {2}, zero[] = {0}, p0[] = {0}, p1[] = {1};
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 1, p0, one, unknown),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 1, p0, one, dup),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 1, p0, zero, empty),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 2, gap, two, ids),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 1, p1, two, ids),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_eq(create_assigned(&w, "a", 1, -1, 1, p0, two, ids), LOGREP_ERR_INVALID_REQUEST);
    cr_assert_eq(create_assigned(&w, "a", -1, 2, 1, p0, two, ids), LOGREP_ERR_INVALID_REQUEST);
    static const int uneven[] = {2, 1};
    cr_assert_eq(create_assigned(&w, "a", -1, -1, 2, parts, uneven, ids),
                 LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT);
    cr_assert_not(topic_exists(&w, "a"));
    teardown(&w);
}

/* A name given twice: INVALID_REQUEST for both entries, the other topic
 * is created. */
Test(admin, duplicate_topic_in_one_request, .timeout = 60)
{
    net w;
    cluster(&w);
    logrep_msg *m = ct_new(0, 3);
    ct_topic(m, 0, "twice", 1, 1);
    ct_topic(m, 1, "once", 1, 1);
    ct_topic(m, 2, "twice", 1, 1);
    logrep_msg *r = ct_send(&w, 2, m);
    cr_assert_eq(ct_err(r, 0), LOGREP_ERR_INVALID_REQUEST);
    cr_assert_eq(ct_err(r, 1), 0);
    cr_assert_eq(ct_err(r, 2), LOGREP_ERR_INVALID_REQUEST);
    logrep_msg_free(r);
    cr_assert_not(topic_exists(&w, "twice"));
    cr_assert(topic_exists(&w, "once"));
    teardown(&w);
}

/* Kafka bounds the records one operation writes (10,000): 100,000
 * partitions, or two topics of 6,000, are POLICY_VIOLATION, answered at
 * once, and the cluster carries on. */
Test(admin, oversized_create_is_policy_violation, .timeout = 60)
{
    net w;
    cluster(&w);
    cr_assert_eq(create_with(&w, 0, "huge", 100000, 1, NULL, 0), LOGREP_ERR_POLICY_VIOLATION);
    cr_assert_eq(create_with(&w, 1, "huge", 100000, 1, NULL, 0), LOGREP_ERR_POLICY_VIOLATION);
    logrep_msg *m = ct_new(0, 2);
    ct_topic(m, 0, "half1", 6000, 1);
    ct_topic(m, 1, "half2", 6000, 1);
    logrep_msg *r = ct_send(&w, 2, m);
    cr_assert_eq(ct_err(r, 0), LOGREP_ERR_POLICY_VIOLATION);
    cr_assert_eq(ct_err(r, 1), LOGREP_ERR_POLICY_VIOLATION);
    logrep_msg_free(r);
    cr_assert_not(topic_exists(&w, "huge"));
    /* More topics than records allowed: refused whole. */
    m = ct_new(0, 10001);
    static char names[10001][16];
    for (int i = 0; i < 10001; i++) {
        snprintf(names[i], sizeof names[i], "t%d", i);
        ct_topic(m, i, names[i], 1, 1);
    }
    r = ct_send(&w, 2, m);
    cr_assert_eq(ct_err(r, 0), LOGREP_ERR_POLICY_VIOLATION);
    cr_assert_eq(ct_err(r, 10000), LOGREP_ERR_POLICY_VIOLATION);
    logrep_msg_free(r);
    cr_assert_not(topic_exists(&w, "t0"));
    cr_assert_eq(create_with(&w, 0, "after", 3, 3, NULL, 0), 0);
    logrep_node_stats st;
    logrep_node_stats_get(w.node[1], &st);
    cr_assert_eq(st.fenced_brokers, 0);
    teardown(&w);
}

/* A topic of thousands of partitions is opened over several ticks: the
 * node answers requests in between, and opens them all. */
Test(admin, large_topic_opens_over_ticks, .timeout = 60)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    logrep_msg *m = ct_new(0, 1);
    ct_topic(m, 0, "wide", 1000, 1);
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    uint64_t c = client_send(&w, 1, m);
    client_wait(&w, c, LOGREP_API_CREATE_TOPICS, CT_VERSION, r, 5000);
    cr_assert_eq(ct_err(r, 0), 0);
    logrep_msg_free(m);
    logrep_msg_free(r);
    int partial = 0;
    size_t np = 0;
    for (int i = 0; i < 300 && np < 1000; i++) {
        np = logrep_node_partition_count(w.node[1]);
        partial |= np > 0 && np < 1000;
        run(&w, 10);
    }
    cr_assert_eq(np, 1000u);
    cr_assert(partial, "every partition was opened in one pass");
    teardown(&w);
}

/* The Configs entry of `name` in a CreateTopics topic result; asserts it
 * is there exactly once. */
static logrep_struct *ct_config(logrep_struct *rt, const char *name)
{
    logrep_struct *found = NULL;
    int f = logrep_struct_field(rt, "Configs");
    cr_assert_not(logrep_struct_is_null(rt, f), "Configs is null");
    for (int32_t i = 0; i < logrep_struct_count(rt, f); i++) {
        logrep_struct *ce = elem(rt, "Configs", i);
        const uint8_t *p;
        int32_t l;
        logrep_struct_bytes(ce, logrep_struct_field(ce, "Name"), &p, &l);
        if (l == (int32_t)strlen(name) && memcmp(p, name, (size_t)l) == 0) {
            cr_assert_null(found, "%s listed twice", name);
            found = ce;
        }
    }
    cr_assert_not_null(found, "%s missing from Configs", name);
    return found;
}

static void assert_config(logrep_struct *rt, const char *name, const char *value, int source)
{
    logrep_struct *ce = ct_config(rt, name);
    const uint8_t *p;
    int32_t l;
    logrep_struct_bytes(ce, logrep_struct_field(ce, "Value"), &p, &l);
    cr_assert_eq(l, (int32_t)strlen(value), "%s = %.*s", name, l, (const char *)p);
    cr_assert_arr_eq(p, value, (size_t)l);
    cr_assert_eq(fint(ce, "ConfigSource"), source, "%s source", name);
    cr_assert_eq(fint(ce, "ReadOnly"), 0);
    cr_assert_eq(fint(ce, "IsSensitive"), 0);
}

/* CreateTopics v5+ answers each created topic's partitions, replication
 * factor and every topic config with its value and source (1: the
 * topic's, 4: the broker's properties, 5: the default), validate_only too;
 * a refused topic gets -1/-1 and no configs. */
Test(admin, create_answers_configs, .timeout = 60)
{
    static const char *const broker[] = {"retention.ms", "3600000", NULL};
    extra_conf = broker;
    net w;
    cluster(&w);
    extra_conf = NULL;
    for (int vo = 0; vo <= 1; vo++) {
        logrep_msg *m = ct_new(vo, 2);
        static const kv cfg[] = {{"cleanup.policy", "compact"}, {"compression.type", "zstd"}};
        ct_configs(ct_topic(m, 0, vo ? "cv" : "c", 3, 2), cfg, 2);
        ct_topic(m, 1, "bad", 1, 9);
        logrep_msg *r = ct_send(&w, 2, m);
        logrep_struct *rt = elem(logrep_msg_root(r), "Topics", 0);
        cr_assert_eq(fint(rt, "ErrorCode"), 0);
        cr_assert_eq(fint(rt, "NumPartitions"), 3);
        cr_assert_eq(fint(rt, "ReplicationFactor"), 2);
        cr_assert_gt(logrep_struct_count(rt, logrep_struct_field(rt, "Configs")), 20);
        assert_config(rt, "cleanup.policy", "compact", 1);
        assert_config(rt, "compression.type", "zstd", 1);
        assert_config(rt, "retention.ms", "3600000", 4);
        assert_config(rt, "max.message.bytes", "1048588", 5);
        assert_config(rt, "compression.zstd.level", "3", 5);
        logrep_struct *bad = elem(logrep_msg_root(r), "Topics", 1);
        cr_assert_eq(fint(bad, "ErrorCode"), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
        cr_assert_eq(fint(bad, "NumPartitions"), -1);
        cr_assert_eq(fint(bad, "ReplicationFactor"), -1);
        cr_assert_eq(logrep_struct_count(bad, logrep_struct_field(bad, "Configs")), 0);
        logrep_msg_free(r);
    }
    teardown(&w);
}
