/* The node's counters (logrep_node_stats) against what was produced:
 * produce_records counts records, whatever the acks, once they are
 * appended (acks=0/1) or replicated (acks=all), and never for a refused
 * produce. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>

#include "lib/net_testutil.h"

/* A batch of n records; *len gets its size. Freed with the builder. */
static const uint8_t *batch_of(logrep_batch_builder *b, int n, size_t *len)
{
    logrep_batch_builder_reset(b);
    for (int i = 0; i < n; i++) {
        char v[16];
        int vl = snprintf(v, sizeof v, "v%d", i);
        cr_assert_eq(logrep_batch_builder_add(b, 1700000000000LL + i, "k", 1, v, vl, NULL, 0),
                     LOGREP_OK);
    }
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), LOGREP_OK);
    return out;
}

static int64_t produced(net *w, int id)
{
    logrep_node_stats st;
    logrep_node_stats_get(w->node[id], &st);
    return st.produce_records;
}

Test(node_stats, produce_records_counts_records_for_every_acks)
{
    net w;
    setup(&w, 3);
    run(&w, 3000);
    create_topic(&w, 1, "counted", 1, 3);
    run(&w, 1000);
    int leader = leader_of(&w, 1, "counted", 0, NULL);
    cr_assert(leader >= 1 && leader <= 3, "leader %d", leader);
    int other = leader == 1 ? 2 : 1;
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    size_t len;

    int64_t before = produced(&w, leader);
    const uint8_t *batch = batch_of(b, 3, &len);
    int64_t base = -1;
    cr_assert_eq(produce_raw(&w, leader, "counted", 0, batch, len, -1, &base, NULL), 0);
    cr_assert_eq(base, 0);
    cr_assert_eq(produced(&w, leader) - before, 3, "acks=all: the batch's records");

    before = produced(&w, leader);
    batch = batch_of(b, 4, &len);
    cr_assert_eq(produce_raw(&w, leader, "counted", 0, batch, len, 1, &base, NULL), 0);
    cr_assert_eq(base, 3);
    cr_assert_eq(produced(&w, leader) - before, 4, "acks=1");

    /* Refused (not the leader): nothing appended, nothing counted. */
    int64_t other_before = produced(&w, other);
    batch = batch_of(b, 2, &len);
    cr_assert_eq(produce_raw(&w, other, "counted", 0, batch, len, -1, NULL, NULL),
                 LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(produced(&w, other), other_before);

    logrep_batch_builder_free(b);
    teardown(&w);
}
