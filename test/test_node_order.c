/* A connection's answers: in request order, and each describing the
 * cluster as it is when it can be sent (lib/node/dispatch.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/net_testutil.h"
#include "sim/memnet.h"

static logrep_msg *metadata_all(void)
{
    logrep_msg *m;
    logrep_msg_new(NULL, &m);
    logrep_msg_init_request(m, LOGREP_API_METADATA, 9, 77, "test");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_null(root, logrep_struct_field(root, "Topics"));
    logrep_struct_set_int(root, logrep_struct_field(root, "AllowAutoTopicCreation"), 0);
    return m;
}

/* The next answer on c (the connection stays open), decoded into resp;
 * 0 when none came within max_ms. */
static int next_answer(net *w, uint64_t c, int api, int version, logrep_msg *resp,
                       uint8_t *keep, size_t cap, int64_t max_ms)
{
    for (int64_t t = 0; t <= max_ms; t += 10) {
        pump(w);
        lr_memnet_msg *f = lr_memnet_inbox_take(w->mn, c);
        if (f) {
            cr_assert_lt(f->len, cap);
            memcpy(keep, f->data, f->len);
            size_t len = f->len;
            lr_memnet_msg_free(w->mn, f);
            cr_assert_eq(logrep_msg_decode_response(resp, api, version, keep, len), LOGREP_OK,
                         "%s", logrep_msg_errmsg(resp));
            return 1;
        }
        run(w, 10);
    }
    return 0;
}

/* 1 when the Metadata answer lists topic `name`. */
static int lists(logrep_msg *r, const char *name)
{
    logrep_struct *rs = logrep_msg_root(r);
    int32_t nt = logrep_struct_count(rs, logrep_struct_field(rs, "Topics"));
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *t = elem(rs, "Topics", i);
        const uint8_t *p;
        int32_t len;
        logrep_struct_bytes(t, logrep_struct_field(t, "Name"), &p, &len);
        if (len == (int32_t)strlen(name) && memcmp(p, name, (size_t)len) == 0)
            return 1;
    }
    return 0;
}

/* A Metadata request pipelined behind a parked acks=all produce is built
 * when its turn comes, as Kafka reads a connection's next request only
 * after answering the last: what changed while the produce waited (a
 * topic deleted, another created) is in it. Built on arrival, it would
 * still list the deleted topic and miss the new one. */
Test(node_order, metadata_behind_a_parked_produce_describes_the_cluster_of_its_turn)
{
    net w;
    int leader = three_nodes_with_dt(&w);
    kill_node(&w, leader == 2 ? 3 : 2); /* still in the ISR for replica.lag.time.max.ms */
    uint64_t c = produce_send(&w, leader, "dt", 0, "v0", -1);
    logrep_msg *md = metadata_all();
    client_send_again(&w, c, md);
    run(&w, 200);
    cr_assert(!client_has(&w, c), "the produce was answered before the deletion");

    create_topic(&w, 1, "later", 1, 1);
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0); /* answers the parked produce */
    static uint8_t keep[1 << 16];
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    cr_assert(next_answer(&w, c, LOGREP_API_PRODUCE, 7, r, keep, sizeof keep, 2000));
    cr_assert(next_answer(&w, c, LOGREP_API_METADATA, 9, r, keep, sizeof keep, 2000),
              "no Metadata answer after the produce's");
    cr_assert_eq(logrep_msg_correlation_id(r), 77);
    cr_assert(lists(r, "later"), "built on arrival: the topic created meanwhile is missing");
    cr_assert(!lists(r, "dt"), "built on arrival: the topic deleted meanwhile is listed");
    logrep_msg_free(r);
    logrep_msg_free(md);
    teardown(&w);
}

/* With nothing ahead of it, Metadata is answered at once (no tick). */
Test(node_order, metadata_with_nothing_ahead_is_answered_at_once)
{
    net w;
    one_node(&w);
    create_topic(&w, 1, "t", 1, 1);
    logrep_msg *md = metadata_all();
    uint64_t c = client_send(&w, 1, md);
    pump(&w);
    cr_assert(client_has(&w, c));
    logrep_msg_free(md);
    teardown(&w);
}

/* Several deferred requests keep their order, and a connection closed
 * while they wait frees them (the leak check runs after the test). */
Test(node_order, deferred_requests_keep_order_and_are_freed_with_their_connection)
{
    net w;
    int leader = three_nodes_with_dt(&w);
    kill_node(&w, leader == 2 ? 3 : 2);
    uint64_t c = produce_send(&w, leader, "dt", 0, "v0", -1);
    logrep_msg *md = metadata_all();
    client_send_again(&w, c, md);
    client_send_again(&w, c, md);
    uint64_t c2 = produce_send(&w, leader, "dt", 0, "v1", -1);
    client_send_again(&w, c2, md);
    run(&w, 100);
    cr_assert(!client_has(&w, c) && !client_has(&w, c2));
    lr_memnet_close(w.mn, c2, 1); /* the client goes away with requests deferred */
    run(&w, 100);
    cr_assert_eq(delete_topic_wire(&w, 1, "dt"), 0);
    static uint8_t keep[1 << 16];
    logrep_msg *r;
    logrep_msg_new(NULL, &r);
    cr_assert(next_answer(&w, c, LOGREP_API_PRODUCE, 7, r, keep, sizeof keep, 2000));
    for (int i = 0; i < 2; i++) {
        cr_assert(next_answer(&w, c, LOGREP_API_METADATA, 9, r, keep, sizeof keep, 2000));
        cr_assert(!lists(r, "dt"));
    }
    logrep_msg_free(r);
    logrep_msg_free(md);
    teardown(&w);
}
