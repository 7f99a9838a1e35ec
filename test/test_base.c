/* Base layer: errors, configuration, version. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "logrep.h"

Test(errors, names_and_strings)
{
    cr_assert_str_eq(logrep_err_name(LOGREP_OK), "NONE");
    cr_assert_str_eq(logrep_err_name(6), "NOT_LEADER_OR_FOLLOWER");
    cr_assert_str_eq(logrep_err_name(74), "FENCED_LEADER_EPOCH");
    cr_assert_str_eq(logrep_err_name(-1), "UNKNOWN_SERVER_ERROR");
    cr_assert_str_eq(logrep_err_name(LOGREP_ERR__CORRUPT), "_CORRUPT");
    cr_assert_str_eq(logrep_err_name(12345), "UNKNOWN");
    cr_assert_str_eq(logrep_err_str(19),
                     "Messages are rejected since there are fewer in-sync replicas than required.");
    cr_assert(logrep_err_is_retriable(LOGREP_ERR_NOT_LEADER_OR_FOLLOWER));
    cr_assert(!logrep_err_is_retriable(LOGREP_ERR_INVALID_RECORD));
    cr_assert(!logrep_err_is_retriable(LOGREP_ERR__IO));
    /* Wire codes are Kafka's, numerically. */
    cr_assert_eq(LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, 45);
    cr_assert_eq(LOGREP_ERR_INVALID_RECORD, 87);
    cr_assert_eq(LOGREP_ERR_PRODUCER_FENCED, 90);
    /* Every code from -1 to 127 has a name: the table is complete. */
    for (int e = -1; e <= 127; e++)
        cr_assert_str_neq(logrep_err_name(e), "UNKNOWN", "code %d", e);
}

Test(conf, set_get_validate)
{
    logrep_conf *c = logrep_conf_new();
    char err[128], buf[64];
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "2", err, sizeof err), LOGREP_OK);
    int64_t v;
    cr_assert_eq(logrep_conf_get_int64(c, "min.insync.replicas", &v), LOGREP_OK);
    cr_assert_eq(v, 2);
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "0", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "outside") != NULL, "%s", err);
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "2x", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_get_int64(c, "min.insync.replicas", &v), LOGREP_OK);
    cr_assert_eq(v, 2, "failed set keeps the old value");
    cr_assert_eq(logrep_conf_set(c, "no.such.thing", "1", err, sizeof err), LOGREP_ERR__UNKNOWN_CONF);
    cr_assert_eq(logrep_conf_set(c, "unclean.leader.election.enable", "yes", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "unclean.leader.election.enable", "true", err, sizeof err),
                 LOGREP_OK);
    cr_assert_eq(logrep_conf_get(c, "unclean.leader.election.enable", buf, sizeof buf, NULL),
                 LOGREP_OK);
    cr_assert_str_eq(buf, "true");
    cr_assert_eq(logrep_conf_set(c, "compression.type", "brotli", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "compression.type", "zstd", err, sizeof err), LOGREP_OK);
    size_t need;
    cr_assert_eq(logrep_conf_get(c, "compression.type", buf, 3, &need), LOGREP_OK);
    cr_assert_str_eq(buf, "zs");
    cr_assert_eq(need, 5u);
    cr_assert_eq(logrep_conf_get(c, "segment.bytes", buf, sizeof buf, NULL), LOGREP_OK);
    cr_assert_str_eq(buf, "1073741824");
    logrep_conf *d = logrep_conf_dup(c);
    logrep_conf_free(c);
    cr_assert_eq(logrep_conf_get(d, "compression.type", buf, sizeof buf, NULL), LOGREP_OK);
    cr_assert_str_eq(buf, "zstd");
    logrep_conf_free(d);
    logrep_conf_free(NULL);
}

Test(conf, property_listing)
{
    size_t n = logrep_conf_property_count();
    cr_assert_gt(n, 20u);
    for (size_t i = 0; i < n; i++) {
        const char *name, *doc;
        cr_assert_eq(logrep_conf_property(i, &name, &doc), LOGREP_OK);
        cr_assert_gt(strlen(name), 0u);
        cr_assert_gt(strlen(doc), 0u);
        for (size_t j = 0; j < i; j++) {
            const char *other;
            logrep_conf_property(j, &other, NULL);
            cr_assert_str_neq(name, other, "duplicate property %s", name);
        }
    }
    cr_assert_eq(logrep_conf_property(n, NULL, NULL), LOGREP_ERR__INVALID_ARG);
}

Test(version, consistent)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", LOGREP_VERSION_MAJOR, LOGREP_VERSION_MINOR,
             LOGREP_VERSION_PATCH);
    cr_assert_str_eq(logrep_version_string(), want);
    cr_assert_eq(logrep_version_number(), (uint32_t)LOGREP_VERSION_NUMBER);
}
