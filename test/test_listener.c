/* Listeners: controller APIs only on the controller listener, broker APIs
 * only on the others, ApiVersions advertising exactly what is served, and
 * a peer of another cluster refused with INCONSISTENT_CLUSTER_ID. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net_testutil.h"

static logrep_msg *registration(int32_t id, const char *cluster)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_BROKER_REGISTRATION, 0, 5, "probe"),
                 LOGREP_OK);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "BrokerId"), id);
    logrep_struct_set_bytes(root, logrep_struct_field(root, "ClusterId"), cluster,
                            (int32_t)strlen(cluster));
    static const uint8_t inc[16] = {1, 2, 3};
    logrep_struct_set_uuid(root, logrep_struct_field(root, "IncarnationId"), inc);
    logrep_struct_set_count(root, logrep_struct_field(root, "Listeners"), 1);
    logrep_struct *l = elem(root, "Listeners", 0);
    logrep_struct_set_bytes(l, logrep_struct_field(l, "Name"), "PLAINTEXT", 9);
    logrep_struct_set_bytes(l, logrep_struct_field(l, "Host"), "probe", 5);
    logrep_struct_set_int(l, logrep_struct_field(l, "Port"), 9092);
    return m;
}

static logrep_msg *simple(int api, int version)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    cr_assert_eq(logrep_msg_init_request(m, api, version, 6, "probe"), LOGREP_OK);
    return m;
}

/* Sends m on a listener and expects the node to close the connection. */
static void expect_closed(net *w, const char *listener, logrep_msg *m)
{
    uint64_t c = client_send_on(w, 1, listener, m);
    cr_assert(client_closed(w, c), "%s answered on %s", logrep_proto_api_name(logrep_msg_api_key(m)),
              listener);
    logrep_msg_free(m);
}

Test(listener, controller_apis_only_on_controller_listener, .timeout = 60)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    expect_closed(&w, "PLAINTEXT", registration(7, "logrep-cluster"));
    expect_closed(&w, "PLAINTEXT", simple(LOGREP_API_BROKER_HEARTBEAT, 0));
    expect_closed(&w, "PLAINTEXT", simple(LOGREP_API_ALTER_PARTITION, 0));
    expect_closed(&w, "PLAINTEXT", simple(LOGREP_API_ALLOCATE_PRODUCER_IDS, 0));
    expect_closed(&w, "CONTROLLER", simple(LOGREP_API_METADATA, 9));
    expect_closed(&w, "CONTROLLER", simple(LOGREP_API_PRODUCE, 7));
    expect_closed(&w, "CONTROLLER", simple(LOGREP_API_LIST_OFFSETS, 1));
    expect_closed(&w, "CONTROLLER", simple(LOGREP_API_JOIN_GROUP, 0));
    expect_closed(&w, "CONTROLLER", simple(LOGREP_API_OFFSET_COMMIT, 8));
    /* Not served anywhere: the transaction APIs. */
    expect_closed(&w, "PLAINTEXT", simple(LOGREP_API_ADD_PARTITIONS_TO_TXN, 0));
    teardown(&w);
}

Test(listener, wrong_cluster_id_is_inconsistent, .timeout = 60)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    logrep_msg *m = registration(7, "some-other-cluster");
    uint64_t c = client_send_on(&w, 1, "CONTROLLER", m);
    client_wait(&w, c, LOGREP_API_BROKER_REGISTRATION, 0, r, 1000);
    cr_assert_eq(fint(logrep_msg_root(r), "ErrorCode"), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    logrep_msg_free(m);
    m = registration(7, "logrep-cluster");
    c = client_send_on(&w, 1, "CONTROLLER", m);
    client_wait(&w, c, LOGREP_API_BROKER_REGISTRATION, 0, r, 1000);
    cr_assert_eq(fint(logrep_msg_root(r), "ErrorCode"), 0);
    logrep_msg_free(m);

    /* The metadata log fetched with another cluster's id. */
    m = simple(LOGREP_API_FETCH, 15);
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_bytes(root, logrep_struct_field(root, "ClusterId"), "other", 5);
    logrep_struct_set_int(root, logrep_struct_field(root, "MaxWaitMs"), 0);
    c = client_send_on(&w, 1, "CONTROLLER", m);
    client_wait(&w, c, LOGREP_API_FETCH, 15, r, 1000);
    cr_assert_eq(fint(logrep_msg_root(r), "ErrorCode"), LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    logrep_msg_free(m);
    logrep_msg_free(r);
    teardown(&w);
}

/* Writes the keys an ApiVersions v3 answer on `listener` advertises as
 * a comma list, ascending. */
static void advertised(net *w, const char *listener, char *out, size_t cap)
{
    logrep_msg *m = simple(LOGREP_API_API_VERSIONS, 3), *r;
    logrep_msg_new(NULL, &r);
    uint64_t c = client_send_on(w, 1, listener, m);
    client_wait(w, c, LOGREP_API_API_VERSIONS, 3, r, 1000);
    logrep_struct *rs = logrep_msg_root(r);
    cr_assert_eq(fint(rs, "ErrorCode"), 0);
    int f = logrep_struct_field(rs, "ApiKeys");
    int seen[128] = {0};
    for (int32_t i = 0; i < logrep_struct_count(rs, f); i++) {
        int64_t k = fint(logrep_struct_elem(rs, f, i), "ApiKey");
        cr_assert(k >= 0 && k < 128);
        seen[k] = 1;
    }
    size_t at = 0;
    out[0] = 0;
    for (int k = 0; k < 128; k++)
        if (seen[k])
            at += (size_t)snprintf(out + at, cap - at, "%s%d", at ? "," : "", k);
    logrep_msg_free(m);
    logrep_msg_free(r);
}

Test(listener, api_versions_advertises_what_is_served, .timeout = 60)
{
    net w;
    setup(&w, 1);
    run(&w, 1000);
    char keys[512];
    advertised(&w, "PLAINTEXT", keys, sizeof keys);
    cr_assert_str_eq(keys, "0,1,2,3,8,9,10,11,12,13,14,15,16,18,19,20,22,23,32,33,42,44,47");
    advertised(&w, "CONTROLLER", keys, sizeof keys);
    cr_assert_str_eq(keys, "1,18,19,20,33,44,56,59,62,63,67");
    /* Every advertised API is answered, not closed. */
    logrep_msg *m = simple(LOGREP_API_FIND_COORDINATOR, 0);
    uint64_t c = client_send_on(&w, 1, "PLAINTEXT", m);
    cr_assert_not(client_closed(&w, c));
    logrep_msg_free(m);
    teardown(&w);
}
