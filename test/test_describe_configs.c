/* DescribeConfigs at the protocol level: requested keys, sources,
 * synonyms, types and documentation, and BROKER / BROKER_LOGGER
 * resources. The test nodes set min.insync.replicas=2, a static broker
 * property. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"

/* DescribeConfigs v`version` of one resource; keys NULL: all. */
static logrep_msg *describe(net *w, int version, int type, const char *name,
                            const char *const *keys, int nkeys)
{
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_DESCRIBE_CONFIGS, version, 4, "cfg");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "IncludeSynonyms"), 1);
    logrep_struct_set_int(root, logrep_struct_field(root, "IncludeDocumentation"), 1);
    logrep_struct_set_count(root, logrep_struct_field(root, "Resources"), 1);
    logrep_struct *q = elem(root, "Resources", 0);
    logrep_struct_set_int(q, logrep_struct_field(q, "ResourceType"), type);
    logrep_struct_set_bytes(q, logrep_struct_field(q, "ResourceName"), name, (int32_t)strlen(name));
    int fk = logrep_struct_field(q, "ConfigurationKeys");
    if (keys) {
        logrep_struct_set_count(q, fk, nkeys);
        for (int i = 0; i < nkeys; i++)
            logrep_struct_set_elem_bytes(q, fk, i, keys[i], (int32_t)strlen(keys[i]));
    } else {
        logrep_struct_set_null(q, fk);
    }
    uint64_t c = client_send(w, 1, m);
    client_wait(w, c, LOGREP_API_DESCRIBE_CONFIGS, version, r, 2000);
    logrep_msg_free(m);
    return r;
}

static logrep_struct *result(logrep_msg *r)
{
    return elem(logrep_msg_root(r), "Results", 0);
}

static int32_t nconfigs(logrep_struct *res)
{
    return logrep_struct_count(res, logrep_struct_field(res, "Configs"));
}

static int str_is(logrep_struct *s, const char *f, const char *want)
{
    const uint8_t *p;
    int32_t len;
    logrep_struct_bytes(s, logrep_struct_field(s, f), &p, &len);
    return p && len == (int32_t)strlen(want) && memcmp(p, want, (size_t)len) == 0;
}

static logrep_struct *config(logrep_struct *res, const char *name)
{
    for (int32_t i = 0; i < nconfigs(res); i++) {
        logrep_struct *ce = elem(res, "Configs", i);
        if (str_is(ce, "Name", name))
            return ce;
    }
    cr_assert_fail("no config %s", name);
    return NULL;
}

static void check_synonym(logrep_struct *ce, int i, const char *name, const char *value, int src)
{
    cr_assert_gt(logrep_struct_count(ce, logrep_struct_field(ce, "Synonyms")), i);
    logrep_struct *s = elem(ce, "Synonyms", i);
    cr_assert(str_is(s, "Name", name), "synonym %d name", i);
    cr_assert(str_is(s, "Value", value), "synonym %d of %s value", i, name);
    cr_assert_eq(fint(s, "Source"), src);
}

Test(configs, topic_keys_sources_synonyms, .timeout = 60)
{
    net w;
    one_node(&w);
    create_topic_cfg(&w, 1, "cfg", 1, 1, "retention.ms", "5000");
    run(&w, 500);
    static const char *const keys[] = {"retention.ms", "min.insync.replicas", "segment.bytes",
                                       "no.such.config"};
    logrep_msg *r = describe(&w, 4, 2, "cfg", keys, 4);
    logrep_struct *res = result(r);
    cr_assert_eq(fint(res, "ErrorCode"), 0);
    cr_assert_eq(nconfigs(res), 3, "only the requested, known keys");

    logrep_struct *ce = config(res, "retention.ms");
    cr_assert(str_is(ce, "Value", "5000"));
    cr_assert_eq(fint(ce, "ConfigSource"), 1); /* DYNAMIC_TOPIC_CONFIG */
    cr_assert_eq(fint(ce, "ConfigType"), 5);   /* LONG */
    cr_assert_not(logrep_struct_is_null(ce, logrep_struct_field(ce, "Documentation")));
    check_synonym(ce, 0, "retention.ms", "5000", 1);
    check_synonym(ce, 1, "log.retention.ms", "604800000", 5);

    ce = config(res, "min.insync.replicas");
    cr_assert(str_is(ce, "Value", "2"));
    cr_assert_eq(fint(ce, "ConfigSource"), 4, "a server property is STATIC_BROKER_CONFIG");
    check_synonym(ce, 0, "min.insync.replicas", "2", 4);
    check_synonym(ce, 1, "min.insync.replicas", "1", 5);

    ce = config(res, "segment.bytes");
    cr_assert(str_is(ce, "Value", "1073741824"));
    cr_assert_eq(fint(ce, "ConfigSource"), 5);
    cr_assert_eq(fint(ce, "ConfigType"), 3); /* INT */
    logrep_msg_free(r);

    /* No keys: every topic config. */
    r = describe(&w, 4, 2, "cfg", NULL, 0);
    cr_assert_geq(nconfigs(result(r)), 30);
    config(result(r), "cleanup.policy");
    logrep_msg_free(r);
    /* v0: IsDefault. */
    r = describe(&w, 0, 2, "cfg", keys, 3);
    cr_assert_eq(fint(config(result(r), "retention.ms"), "IsDefault"), 0);
    cr_assert_eq(fint(config(result(r), "segment.bytes"), "IsDefault"), 1);
    logrep_msg_free(r);
    teardown(&w);
}

Test(configs, broker_and_broker_logger, .timeout = 60)
{
    net w;
    one_node(&w);
    logrep_msg *r = describe(&w, 4, 4, "1", NULL, 0);
    logrep_struct *res = result(r);
    cr_assert_eq(fint(res, "ErrorCode"), 0);
    logrep_struct *ce = config(res, "min.insync.replicas");
    cr_assert(str_is(ce, "Value", "2"));
    cr_assert_eq(fint(ce, "ConfigSource"), 4);
    ce = config(res, "log.segment.bytes");
    cr_assert_eq(fint(ce, "ConfigSource"), 5);
    logrep_msg_free(r);

    static const char *const one[] = {"log.retention.ms"};
    r = describe(&w, 4, 4, "1", one, 1);
    cr_assert_eq(nconfigs(result(r)), 1);
    logrep_msg_free(r);

    r = describe(&w, 4, 4, "", NULL, 0); /* cluster-wide dynamic defaults: none */
    cr_assert_eq(fint(result(r), "ErrorCode"), 0);
    cr_assert_eq(nconfigs(result(r)), 0);
    logrep_msg_free(r);
    r = describe(&w, 4, 4, "2", NULL, 0);
    cr_assert_eq(fint(result(r), "ErrorCode"), LOGREP_ERR_INVALID_REQUEST);
    logrep_msg_free(r);

    r = describe(&w, 4, 8, "1", NULL, 0);
    cr_assert_eq(fint(result(r), "ErrorCode"), 0);
    ce = config(result(r), "root");
    cr_assert_eq(fint(ce, "ConfigSource"), 6);
    logrep_msg_free(r);
    r = describe(&w, 4, 8, "", NULL, 0);
    cr_assert_eq(fint(result(r), "ErrorCode"), LOGREP_ERR_INVALID_REQUEST);
    logrep_msg_free(r);
    teardown(&w);
}
