/* AlterConfigs (33) and IncrementalAlterConfigs (44): golden frames, and
 * the protocol-level behaviour on a three-node in-memory cluster (node 1
 * broker and controller, 2 and 3 brokers that forward): SET, DELETE,
 * APPEND and SUBTRACT, the legacy API's replace semantics, validate_only,
 * every error Kafka answers, DescribeConfigs showing the change, and an
 * open partition log taking it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net_testutil.h"
#include "lib/testutil.h"

/* ------------------------------------------------------------ golden frames */

/* Written by hand from Kafka's IncrementalAlterConfigsRequest.json (v1,
 * flexible: request header v2 with a classic client id, compact arrays and
 * strings, tagged-field bytes): topic "t", cleanup.policy APPEND
 * "compact", validateOnly false. */
static const char iac_v1_req[] =
    "0000002f 002c 0001 00000007 0003 61646d 00"
    "02 02 02 74 02 0f 636c65616e75702e706f6c696379 02 08 636f6d70616374 00 00"
    "00 00";
/* IncrementalAlterConfigsResponse.json v1: response header v1 (tags), no
 * throttle, one result: ErrorCode 0, ErrorMessage null (00), TOPIC "t". */
static const char iac_v1_resp[] = "00000012 00000007 00 00000000 02 0000 00 02 02 74 00 00";
/* AlterConfigsRequest.json v0 (request header v1): topic "t" with
 * cleanup.policy=compact and retention.ms null, validateOnly true. */
static const char ac_v0_req[] =
    "00000043 0021 0000 00000008 0003 61646d"
    "00000001 02 0001 74 00000002"
    "000e 636c65616e75702e706f6c696379 0007 636f6d70616374"
    "000c 726574656e74696f6e2e6d73 ffff 01";
/* AlterConfigsResponse.json v0: one result, INVALID_CONFIG (40), "bad". */
static const char ac_v0_resp[] = "00000017 00000008 00000000 00000001 0028 0003 626164 02 0001 74";

static void reencodes(logrep_msg *m, const uint8_t *f, size_t len)
{
    const uint8_t *out;
    size_t n;
    cr_assert_eq(logrep_msg_encode_flat(m, &out, &n), LOGREP_OK, "%s", logrep_msg_errmsg(m));
    cr_assert_eq(n, len);
    cr_assert_eq(memcmp(out, f, n), 0);
}

static int bytes_is(logrep_struct *s, const char *f, const char *want)
{
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(s, logrep_struct_field(s, f), &p, &len);
    if (!want)
        return p == NULL;
    return p && len == (int32_t)strlen(want) && memcmp(p, want, (size_t)len) == 0;
}

Test(alter_configs, golden_frames)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    size_t len;
    uint8_t *f = tu_hex(iac_v1_req, &len);
    cr_assert_eq(logrep_msg_decode_request(m, f, len), LOGREP_OK, "%s", logrep_msg_errmsg(m));
    cr_assert_eq(logrep_msg_api_key(m), LOGREP_API_INCREMENTAL_ALTER_CONFIGS);
    cr_assert_eq(logrep_msg_version(m), 1);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct *res = elem(root, "Resources", 0);
    cr_assert_eq(fint(res, "ResourceType"), 2);
    cr_assert(bytes_is(res, "ResourceName", "t"));
    logrep_struct *c = elem(res, "Configs", 0);
    cr_assert(bytes_is(c, "Name", "cleanup.policy"));
    cr_assert_eq(fint(c, "ConfigOperation"), 2);
    cr_assert(bytes_is(c, "Value", "compact"));
    cr_assert_eq(fint(root, "ValidateOnly"), 0);
    reencodes(m, f, len);
    free(f);

    f = tu_hex(iac_v1_resp, &len);
    cr_assert_eq(logrep_msg_decode_response(m, 44, 1, f, len), LOGREP_OK, "%s",
                 logrep_msg_errmsg(m));
    res = elem(logrep_msg_root(m), "Responses", 0);
    cr_assert_eq(fint(res, "ErrorCode"), 0);
    cr_assert(bytes_is(res, "ErrorMessage", NULL));
    reencodes(m, f, len);
    free(f);

    f = tu_hex(ac_v0_req, &len);
    cr_assert_eq(logrep_msg_decode_request(m, f, len), LOGREP_OK, "%s", logrep_msg_errmsg(m));
    cr_assert_eq(logrep_msg_api_key(m), LOGREP_API_ALTER_CONFIGS);
    root = logrep_msg_root(m);
    res = elem(root, "Resources", 0);
    cr_assert(bytes_is(elem(res, "Configs", 0), "Value", "compact"));
    cr_assert(bytes_is(elem(res, "Configs", 1), "Value", NULL));
    cr_assert_eq(fint(root, "ValidateOnly"), 1);
    reencodes(m, f, len);
    free(f);

    f = tu_hex(ac_v0_resp, &len);
    cr_assert_eq(logrep_msg_decode_response(m, 33, 0, f, len), LOGREP_OK, "%s",
                 logrep_msg_errmsg(m));
    res = elem(logrep_msg_root(m), "Responses", 0);
    cr_assert_eq(fint(res, "ErrorCode"), 40);
    cr_assert(bytes_is(res, "ErrorMessage", "bad"));
    reencodes(m, f, len);
    free(f);
    logrep_msg_free(m);

    const logrep_api_range *ar = logrep_proto_api(LOGREP_API_ALTER_CONFIGS);
    cr_assert(ar && ar->min_version == 0 && ar->max_version == 2);
    ar = logrep_proto_api(LOGREP_API_INCREMENTAL_ALTER_CONFIGS);
    cr_assert(ar && ar->min_version == 0 && ar->max_version == 1);
}

/* ------------------------------------------------------------ on the wire */

enum { SET = 0, DEL = 1, APPEND = 2, SUBTRACT = 3 };

typedef struct op {
    const char *name;
    int op; /* ignored by AlterConfigs */
    const char *value; /* NULL: null */
} op;

typedef struct res {
    int type;
    const char *name;
    const op *ops;
    int n;
} res;

static logrep_msg *alter(net *w, int via, int api, int version, int validate_only, const res *rs,
                         int nres)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 9, "alter"), LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "ValidateOnly"), validate_only);
    logrep_struct_set_count(root, logrep_struct_field(root, "Resources"), nres);
    for (int i = 0; i < nres; i++) {
        logrep_struct *q = elem(root, "Resources", i);
        logrep_struct_set_int(q, logrep_struct_field(q, "ResourceType"), rs[i].type);
        logrep_struct_set_bytes(q, logrep_struct_field(q, "ResourceName"), rs[i].name,
                                (int32_t)strlen(rs[i].name));
        logrep_struct_set_count(q, logrep_struct_field(q, "Configs"), rs[i].n);
        for (int k = 0; k < rs[i].n; k++) {
            logrep_struct *c = elem(q, "Configs", k);
            const op *o = &rs[i].ops[k];
            logrep_struct_set_bytes(c, logrep_struct_field(c, "Name"), o->name,
                                    (int32_t)strlen(o->name));
            if (api == LOGREP_API_INCREMENTAL_ALTER_CONFIGS)
                logrep_struct_set_int(c, logrep_struct_field(c, "ConfigOperation"), o->op);
            if (o->value)
                logrep_struct_set_bytes(c, logrep_struct_field(c, "Value"), o->value,
                                        (int32_t)strlen(o->value));
            else
                logrep_struct_set_null(c, logrep_struct_field(c, "Value"));
        }
    }
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, api, version, r, 5000);
    logrep_msg_free(m);
    cr_assert_eq(logrep_struct_count(logrep_msg_root(r),
                                     logrep_struct_field(logrep_msg_root(r), "Responses")),
                 nres);
    return r;
}

static int16_t rerr(logrep_msg *r, int i)
{
    return (int16_t)fint(elem(logrep_msg_root(r), "Responses", i), "ErrorCode");
}

static int rmsg_has(logrep_msg *r, int i, const char *sub)
{
    logrep_struct *s = elem(logrep_msg_root(r), "Responses", i);
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(s, logrep_struct_field(s, "ErrorMessage"), &p, &len);
    char buf[512];
    if (!p || len < 0 || len >= (int32_t)sizeof buf)
        return 0;
    memcpy(buf, p, (size_t)len);
    buf[len] = 0;
    return strstr(buf, sub) != NULL;
}

/* One TOPIC resource through IncrementalAlterConfigs v1 (flexible) or
 * AlterConfigs v1; the error code, and the message must hold `sub`. */
static int16_t alter1(net *w, int via, int api, int validate_only, const char *topic,
                      const op *ops, int n, const char *sub)
{
    res rs = {2, topic, ops, n};
    logrep_msg *r = alter(w, via, api, 1, validate_only, &rs, 1);
    int16_t e = rerr(r, 0);
    if (sub)
        cr_assert(rmsg_has(r, 0, sub), "message of error %d lacks \"%s\"", e, sub);
    else
        cr_assert(logrep_struct_is_null(elem(logrep_msg_root(r), "Responses", 0),
                                        logrep_struct_field(elem(logrep_msg_root(r),
                                                                 "Responses", 0),
                                                            "ErrorMessage")));
    logrep_msg_free(r);
    run(w, 300); /* the records reach every broker */
    return e;
}

#define IAC LOGREP_API_INCREMENTAL_ALTER_CONFIGS
#define AC LOGREP_API_ALTER_CONFIGS

/* The topic's value of `key` per node `via`'s DescribeConfigs, and its
 * ConfigSource. */
static void described(net *w, int via, const char *topic, const char *key, char *out,
                      size_t cap, int *source)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_DESCRIBE_CONFIGS, 4, 4, "cfg");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Resources"), 1);
    logrep_struct *q = elem(root, "Resources", 0);
    logrep_struct_set_int(q, logrep_struct_field(q, "ResourceType"), 2);
    logrep_struct_set_bytes(q, logrep_struct_field(q, "ResourceName"), topic,
                            (int32_t)strlen(topic));
    int fk = logrep_struct_field(q, "ConfigurationKeys");
    logrep_struct_set_count(q, fk, 1);
    logrep_struct_set_elem_bytes(q, fk, 0, key, (int32_t)strlen(key));
    uint64_t c = client_send(w, via, m);
    client_wait(w, c, LOGREP_API_DESCRIBE_CONFIGS, 4, r, 2000);
    logrep_struct *result = elem(logrep_msg_root(r), "Results", 0);
    cr_assert_eq(fint(result, "ErrorCode"), 0);
    logrep_struct *ce = elem(result, "Configs", 0);
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(ce, logrep_struct_field(ce, "Value"), &p, &len);
    cr_assert(p && len >= 0 && (size_t)len < cap);
    memcpy(out, p, (size_t)len);
    out[len] = 0;
    *source = (int)fint(ce, "ConfigSource");
    logrep_msg_free(m);
    logrep_msg_free(r);
}

static void expect_value(net *w, const char *topic, const char *key, const char *want, int src)
{
    for (int via = 1; via <= 3; via++) {
        char v[256];
        int s;
        described(w, via, topic, key, v, sizeof v, &s);
        cr_assert_str_eq(v, want, "node %d: %s", via, key);
        cr_assert_eq(s, src, "node %d: source of %s", via, key);
    }
}

static void cluster(net *w)
{
    setup(w, 3);
    run(w, 3000);
}

#define DYNAMIC_TOPIC 1
#define DEFAULT_CONFIG 5

Test(alter_configs, incremental_set_delete_append_subtract, .timeout = 60)
{
    net w;
    cluster(&w);
    create_topic(&w, 1, "inc", 1, 3);
    run(&w, 500);
    expect_value(&w, "inc", "cleanup.policy", "delete", DEFAULT_CONFIG);

    /* One operation at a time, through every node: APPEND to the default
     * ("delete"), an element already present not added twice, SUBTRACT
     * back to "delete", then of the last element: the empty list. */
    static const struct {
        int via;
        op o;
        const char *want;
    } steps[] = {
        {2, {"cleanup.policy", APPEND, "compact"}, "delete,compact"},
        {3, {"cleanup.policy", APPEND, "compact,delete"}, "delete,compact"},
        {2, {"cleanup.policy", SUBTRACT, "compact"}, "delete"},
        {1, {"cleanup.policy", SUBTRACT, "delete"}, ""},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        cr_assert_eq(alter1(&w, steps[i].via, IAC, 0, "inc", &steps[i].o, 1, NULL), 0);
        expect_value(&w, "inc", "cleanup.policy", steps[i].want, DYNAMIC_TOPIC);
    }

    /* SET several at once, then DELETE one: back to the default. */
    op set[] = {{"cleanup.policy", SET, "compact,delete"},
                {"retention.ms", SET, "3600000"},
                {"min.compaction.lag.ms", SET, "1000"}};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "inc", set, 3, NULL), 0);
    expect_value(&w, "inc", "cleanup.policy", "compact,delete", DYNAMIC_TOPIC);
    expect_value(&w, "inc", "retention.ms", "3600000", DYNAMIC_TOPIC);
    expect_value(&w, "inc", "min.compaction.lag.ms", "1000", DYNAMIC_TOPIC);
    op del[] = {{"retention.ms", DEL, NULL}, {"no.such.config", DEL, NULL}};
    cr_assert_eq(alter1(&w, 3, IAC, 0, "inc", del, 2, NULL), 0,
                 "deleting a name Kafka does not know changes nothing");
    expect_value(&w, "inc", "retention.ms", "604800000", DEFAULT_CONFIG);
    expect_value(&w, "inc", "cleanup.policy", "compact,delete", DYNAMIC_TOPIC);
    /* Throttled replicas are a LIST too. */
    op thr = {"leader.replication.throttled.replicas", APPEND, "0:1,0:2"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "inc", &thr, 1, NULL), 0);
    expect_value(&w, "inc", "leader.replication.throttled.replicas", "0:1,0:2", DYNAMIC_TOPIC);

    /* validate_only checks and writes nothing. */
    op vo = {"cleanup.policy", SET, "compact"};
    cr_assert_eq(alter1(&w, 2, IAC, 1, "inc", &vo, 1, NULL), 0);
    expect_value(&w, "inc", "cleanup.policy", "compact,delete", DYNAMIC_TOPIC);
    op vbad = {"cleanup.policy", SET, "shred"};
    cr_assert_eq(alter1(&w, 2, IAC, 1, "inc", &vbad, 1, "cleanup.policy"),
                 LOGREP_ERR_INVALID_CONFIG);
    teardown(&w);
}

Test(alter_configs, incremental_errors_change_nothing, .timeout = 60)
{
    net w;
    cluster(&w);
    create_topic_cfg(&w, 1, "err", 1, 3, "retention.ms", "5000");
    run(&w, 500);
    /* One bad entry fails the resource whole. */
    op bad_value[] = {{"segment.bytes", SET, "1000000"}, {"retention.ms", SET, "soon"}};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", bad_value, 2, "retention.ms"),
                 LOGREP_ERR_INVALID_CONFIG);
    op unknown[] = {{"segment.bytes", SET, "1000000"}, {"no.such.config", SET, "1"}};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", unknown, 2, "Unknown topic config name"),
                 LOGREP_ERR_INVALID_CONFIG);
    op broker_name = {"log.retention.ms", SET, "1"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &broker_name, 1, "log.retention.ms"),
                 LOGREP_ERR_INVALID_CONFIG);
    op not_list = {"retention.ms", APPEND, "7"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &not_list, 1,
                        "Can't APPEND to key retention.ms because its type is not LIST."),
                 LOGREP_ERR_INVALID_CONFIG);
    op not_list2 = {"segment.bytes", SUBTRACT, "7"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &not_list2, 1, "SUBTRACT"),
                 LOGREP_ERR_INVALID_CONFIG);
    op bad_elem = {"cleanup.policy", APPEND, "shred"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &bad_elem, 1, "cleanup.policy"),
                 LOGREP_ERR_INVALID_CONFIG);
    op dup[] = {{"segment.bytes", SET, "1000000"}, {"segment.bytes", DEL, NULL}};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", dup, 2, "duplicate config keys"),
                 LOGREP_ERR_INVALID_REQUEST);
    op bad_op = {"segment.bytes", 7, "1000000"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &bad_op, 1, "Unknown operation type 7"),
                 LOGREP_ERR_INVALID_REQUEST);
    op null_set = {"segment.bytes", SET, NULL};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "err", &null_set, 1, "Null value not supported"),
                 LOGREP_ERR_INVALID_REQUEST);
    op ok = {"segment.bytes", SET, "1000000"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "nope", &ok, 1, "The topic 'nope' does not exist."),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(alter1(&w, 2, IAC, 0, "", &ok, 1, "Default topic resources"),
                 LOGREP_ERR_INVALID_REQUEST);
    cr_assert_eq(alter1(&w, 2, IAC, 0, "bad/name", &ok, 1, "illegal"),
                 LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    expect_value(&w, "err", "segment.bytes", "1073741824", DEFAULT_CONFIG);
    expect_value(&w, "err", "retention.ms", "5000", DYNAMIC_TOPIC);

    /* Resources: each answered on its own; a resource twice, BROKER,
     * BROKER_LOGGER and unknown types refused with a message. */
    res rs[] = {{2, "err", &ok, 1},     {2, "nope", &ok, 1}, {4, "1", &ok, 1},
                {8, "1", &ok, 1},       {3, "x", &ok, 1},    {2, "twice", &ok, 1},
                {2, "twice", &ok, 1}};
    logrep_msg *r = alter(&w, 3, IAC, 0, 0, rs, 7);
    cr_assert_eq(rerr(r, 0), 0);
    cr_assert_eq(rerr(r, 1), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(rerr(r, 2), LOGREP_ERR_INVALID_REQUEST);
    cr_assert(rmsg_has(r, 2, "Dynamic broker configs are not supported"));
    cr_assert_eq(rerr(r, 3), LOGREP_ERR_INVALID_REQUEST);
    cr_assert(rmsg_has(r, 3, "BROKER_LOGGER"));
    cr_assert_eq(rerr(r, 4), LOGREP_ERR_INVALID_REQUEST);
    cr_assert(rmsg_has(r, 4, "Unknown resource type 3"));
    cr_assert_eq(rerr(r, 5), LOGREP_ERR_INVALID_REQUEST);
    cr_assert(rmsg_has(r, 6, "Each resource must appear at most once."));
    logrep_struct *r0 = elem(logrep_msg_root(r), "Responses", 0);
    cr_assert_eq(fint(r0, "ResourceType"), 2);
    cr_assert(bytes_is(r0, "ResourceName", "err"));
    logrep_msg_free(r);
    run(&w, 300);
    expect_value(&w, "err", "segment.bytes", "1000000", DYNAMIC_TOPIC);
    teardown(&w);
}

Test(alter_configs, legacy_replaces_the_whole_set, .timeout = 60)
{
    net w;
    cluster(&w);
    create_topic_cfg(&w, 1, "leg", 1, 3, "retention.ms", "5000");
    run(&w, 500);
    op set[] = {{"cleanup.policy", 0, "compact"}, {"segment.bytes", 0, "1000000"}};
    for (int v = 0; v <= 2; v++) {
        res rs = {2, "leg", set, 2};
        logrep_msg *r = alter(&w, 2, AC, v, 0, &rs, 1);
        cr_assert_eq(rerr(r, 0), 0, "v%d", v);
        logrep_msg_free(r);
    }
    run(&w, 300);
    expect_value(&w, "leg", "cleanup.policy", "compact", DYNAMIC_TOPIC);
    expect_value(&w, "leg", "segment.bytes", "1000000", DYNAMIC_TOPIC);
    expect_value(&w, "leg", "retention.ms", "604800000", DEFAULT_CONFIG); /* not listed: gone */

    op null_value[] = {{"cleanup.policy", 0, "delete"}, {"retention.ms", 0, NULL}};
    cr_assert_eq(alter1(&w, 3, AC, 0, "leg", null_value, 2, "Null value not supported"),
                 LOGREP_ERR_INVALID_REQUEST);
    op bad[] = {{"cleanup.policy", 0, "delete"}, {"retention.ms", 0, "x"}};
    cr_assert_eq(alter1(&w, 3, AC, 0, "leg", bad, 2, "retention.ms"), LOGREP_ERR_INVALID_CONFIG);
    op one = {"retention.ms", 0, "1000"};
    cr_assert_eq(alter1(&w, 3, AC, 1, "leg", &one, 1, NULL), 0);
    expect_value(&w, "leg", "cleanup.policy", "compact", DYNAMIC_TOPIC);
    /* BROKER_LOGGER is not an AlterConfigs resource at all. */
    res lg = {8, "1", &one, 1};
    logrep_msg *r = alter(&w, 2, AC, 1, 0, &lg, 1);
    cr_assert_eq(rerr(r, 0), LOGREP_ERR_INVALID_REQUEST);
    cr_assert(rmsg_has(r, 0, "Unknown resource type 8"));
    logrep_msg_free(r);
    /* An empty set removes every override. */
    cr_assert_eq(alter1(&w, 2, AC, 0, "leg", NULL, 0, NULL), 0);
    expect_value(&w, "leg", "cleanup.policy", "delete", DEFAULT_CONFIG);
    expect_value(&w, "leg", "segment.bytes", "1073741824", DEFAULT_CONFIG);
    teardown(&w);
}

/* The partition's open log takes the change: a batch under the old
 * max.message.bytes is refused once it is lowered, accepted once it is
 * deleted again. */
Test(alter_configs, open_log_takes_the_change, .timeout = 60)
{
    net w;
    cluster(&w);
    create_topic(&w, 1, "mm", 1, 3);
    run(&w, 1000);
    char value[400];
    memset(value, 'x', sizeof value - 1);
    value[sizeof value - 1] = 0;
    int32_t epoch;
    int leader = leader_of(&w, 1, "mm", 0, &epoch);
    cr_assert_gt(leader, 0);
    cr_assert_eq(produce(&w, leader, "mm", 0, value, -1, NULL), 0);
    op low = {"max.message.bytes", SET, "200"};
    cr_assert_eq(alter1(&w, 2, IAC, 0, "mm", &low, 1, NULL), 0);
    cr_assert_eq(produce(&w, leader, "mm", 0, value, -1, NULL), LOGREP_ERR_MESSAGE_TOO_LARGE);
    cr_assert_eq(produce(&w, leader, "mm", 0, "small", -1, NULL), 0);
    op del = {"max.message.bytes", DEL, NULL};
    cr_assert_eq(alter1(&w, 3, IAC, 0, "mm", &del, 1, NULL), 0);
    cr_assert_eq(produce(&w, leader, "mm", 0, value, -1, NULL), 0);
    teardown(&w);
}

/* More config entries than Kafka's per-operation record bound: refused
 * whole with POLICY_VIOLATION, nothing written; ApiVersions advertises
 * both APIs. */
Test(alter_configs, bounded_and_advertised, .timeout = 60)
{
    net w;
    cluster(&w);
    create_topic(&w, 1, "big", 1, 3);
    run(&w, 500);
    enum { N = 10001 };
    static op ops[N];
    static char names[N][24];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        ops[i] = (op){names[i], SET, "1"};
    }
    ops[0] = (op){"segment.bytes", SET, "1000000"};
    res rs = {2, "big", ops, N};
    logrep_msg *r = alter(&w, 2, IAC, 1, 0, &rs, 1);
    cr_assert_eq(rerr(r, 0), LOGREP_ERR_POLICY_VIOLATION);
    logrep_msg_free(r);
    static res many[N];
    op one = {"segment.bytes", SET, "1000000"};
    for (int i = 0; i < N; i++)
        many[i] = (res){2, "big", &one, 1};
    r = alter(&w, 2, AC, 1, 0, many, N);
    cr_assert_eq(rerr(r, 0), LOGREP_ERR_POLICY_VIOLATION);
    cr_assert_eq(rerr(r, N - 1), LOGREP_ERR_POLICY_VIOLATION);
    logrep_msg_free(r);
    run(&w, 300);
    expect_value(&w, "big", "segment.bytes", "1073741824", DEFAULT_CONFIG);

    logrep_msg *m, *av;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &av);
    logrep_msg_init_request(m, LOGREP_API_API_VERSIONS, 3, 1, "t");
    uint64_t c = client_send(&w, 2, m);
    client_wait(&w, c, LOGREP_API_API_VERSIONS, 3, av, 2000);
    logrep_struct *root = logrep_msg_root(av);
    int seen = 0;
    for (int32_t i = 0; i < logrep_struct_count(root, logrep_struct_field(root, "ApiKeys")); i++) {
        logrep_struct *k = elem(root, "ApiKeys", i);
        if (fint(k, "ApiKey") == 33 && fint(k, "MaxVersion") == 2)
            seen |= 1;
        if (fint(k, "ApiKey") == 44 && fint(k, "MaxVersion") == 1)
            seen |= 2;
    }
    cr_assert_eq(seen, 3);
    logrep_msg_free(m);
    logrep_msg_free(av);
    teardown(&w);
}
