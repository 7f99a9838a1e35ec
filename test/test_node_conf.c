/* A node's configuration refused at logrep_node_new with a clear message:
 * controller.quorum.voters (one voter until the controller is a quorum),
 * advertised.listeners and process.roles. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/storage.h>

static logrep_err t_send(void *ctx, uint64_t conn, const logrep_seg *segs, size_t nsegs)
{
    (void)ctx, (void)conn, (void)segs, (void)nsegs;
    return LOGREP_OK;
}

static logrep_err t_connect(void *ctx, int32_t id, const char *host, int32_t port, uint64_t *conn)
{
    (void)ctx, (void)id, (void)host, (void)port;
    *conn = 1;
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t conn)
{
    (void)ctx, (void)conn;
}

/* Creates a broker+controller node 1 with one property overridden; the
 * error, with the node's message in err. */
static logrep_err try_node(const char *name, const char *value, char *err, size_t esz)
{
    logrep_conf *conf = logrep_conf_new();
    logrep_storage *st;
    cr_assert_eq(logrep_storage_memory_new(conf, &st), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "node.id", "1", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "process.roles", "broker,controller", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "controller.quorum.voters", "1@localhost:9093", NULL, 0),
                 LOGREP_OK);
    if (name)
        cr_assert_eq(logrep_conf_set(conf, name, value, NULL, 0), LOGREP_OK, "%s=%s", name, value);
    logrep_transport tr = {LOGREP_TRANSPORT_VERSION, NULL, t_send, t_connect, t_close};
    logrep_node *n = NULL;
    logrep_err e = logrep_node_new(conf, st, &tr, 0, err, esz, &n);
    cr_assert_eq(e == LOGREP_OK, n != NULL);
    logrep_node_free(n, 0);
    logrep_storage_free(st);
    logrep_conf_free(conf);
    return e;
}

Test(node_conf, the_defaults_start)
{
    char err[200];
    cr_assert_eq(try_node(NULL, NULL, err, sizeof err), LOGREP_OK, "%s", err);
}

Test(node_conf, voter_lists_are_checked)
{
    char err[200];
    /* Node 1 (the defaults: broker and controller) among three voters: a quorum. */
    cr_assert_eq(try_node("controller.quorum.voters", "1@a:9093,2@b:9093,3@c:9093", err,
                          sizeof err),
                 LOGREP_OK, "%s", err);
    static const char *const bad[] = {"1@localhost:9093,", ",1@localhost:9093",
                                      "1@a:9093,,2@b:9093", "1@a:9093,1@b:9094",
                                      "1@a:9093,2@b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        cr_assert_eq(try_node("controller.quorum.voters", bad[i], err, sizeof err),
                     LOGREP_ERR__INVALID_CONF, "%s", bad[i]);
        cr_assert(strstr(err, "controller.quorum.voters"), "%s: %s", bad[i], err);
    }
    cr_assert(strstr(err, "expected id@host:port"), "%s", err);
    try_node("controller.quorum.voters", "1@a:9093,1@b:9094", err, sizeof err);
    cr_assert(strstr(err, "named twice"), "%s", err);
    char many[400] = "";
    for (int i = 1; i <= 17; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d@h:9093", i > 1 ? "," : "", i);
    cr_assert_eq(try_node("controller.quorum.voters", many, err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "at most 16"), "%s", err);
}

Test(node_conf, malformed_voters_are_refused)
{
    static const char *const bad[] = {"localhost:9093", "1@localhost", "1@:9093",
                                      "x@localhost:9093", "1@localhost:0", "1@localhost:70000",
                                      "1@localhost:90a3", "1x@localhost:9093", ""};
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        cr_assert_eq(try_node("controller.quorum.voters", bad[i], err, sizeof err),
                     LOGREP_ERR__INVALID_CONF, "%s", bad[i]);
        cr_assert(strstr(err, "controller.quorum.voters"), "%s: %s", bad[i], err);
    }
}

Test(node_conf, a_controller_must_be_the_voter)
{
    char err[200];
    cr_assert_eq(try_node("controller.quorum.voters", "2@localhost:9093", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "does not name this node"), "%s", err);
    cr_assert_eq(try_node("controller.quorum.voters", "2@a:9093,3@b:9093", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    /* A node named as a voter must have the controller role. */
    cr_assert_eq(try_node("process.roles", "broker", err, sizeof err), LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "has no controller"), "%s", err);
}

Test(node_conf, roles_and_listeners_are_checked)
{
    char err[200];
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "process.roles", "neither", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    logrep_conf_free(conf);
    cr_assert_eq(try_node("advertised.listeners", "PLAINTEXT://nohostport", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "advertised.listeners"), "%s", err);
}

#ifndef LOGREP_TEST
#error "the tests are built with the test-only hooks (LOGREP_TEST)"
#endif
