/* Metadata records and image: golden bytes, round trips, hostile bytes,
 * apply rules, describe. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/metadata.h"
#include "lib/ctl_testutil.h"
#include "lib/testutil.h"

static const uint8_t TID[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static lr_buf enc(const lr_md_record *r)
{
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_md_encode(r, &b), 0);
    return b;
}

static void expect_bytes(const lr_md_record *r, const char *hex)
{
    size_t n;
    uint8_t *want = tu_hex(hex, &n);
    lr_buf b = enc(r);
    cr_assert_eq(b.len, n, "length %zu, want %zu", b.len, n);
    cr_assert_arr_eq(b.data, want, n);
    lr_buf_free(&b);
    free(want);
}

/* Golden bytes, worked out by hand from Kafka's metadata JSON schemas:
 * frame version 1, apiKey, version as unsigned varints, then the fields.
 *
 * ProducerIdsRecord v0 {BrokerId 1, BrokerEpoch 5, NextProducerId 1000}:
 *   01 0f 00                       frame 1, apiKey 15, version 0
 *   00 00 00 01                    BrokerId int32
 *   00 00 00 00 00 00 00 05        BrokerEpoch int64
 *   00 00 00 00 00 00 03 e8        NextProducerId int64 = 1000
 *   00                             no tagged fields */
Test(metadata, golden_producer_ids)
{
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_PRODUCER_IDS, 0);
    r.u.pids.broker_id = 1;
    r.u.pids.broker_epoch = 5;
    r.u.pids.next_producer_id = 1000;
    expect_bytes(&r, "01 0f 00  00000001  0000000000000005  00000000000003e8  00");
}

/* TopicRecord v0 {Name "foo", TopicId 00 01 .. 0f}:
 *   01 02 00                       frame, apiKey 2, version 0
 *   04 66 6f 6f                    compact string: length+1 = 4, "foo"
 *   00 01 02 .. 0f                 uuid
 *   00                             no tagged fields */
Test(metadata, golden_topic)
{
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_TOPIC, 0);
    r.u.topic.name = (lr_md_str){"foo", 3};
    memcpy(r.u.topic.topic_id, TID, 16);
    expect_bytes(&r, "01 02 00  04 666f6f  000102030405060708090a0b0c0d0e0f  00");
}

/* PartitionChangeRecord v2 {PartitionId 0, TopicId, Isr [1,2], Leader 2,
 * EligibleLeaderReplicas [3]}: every field but the first two is tagged.
 *   01 05 02                       frame, apiKey 5, version 2
 *   00 00 00 00                    PartitionId
 *   00 01 .. 0f                    TopicId
 *   03                             3 tagged fields
 *   00 09  03 00000001 00000002    tag 0 Isr: size 9, compact array of 2
 *   01 04  00000002                tag 1 Leader: size 4
 *   06 05  02 00000003             tag 6 EligibleLeaderReplicas: size 5 */
Test(metadata, golden_partition_change)
{
    int32_t isr[] = {1, 2}, elr[] = {3};
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_PARTITION_CHANGE, 2);
    memcpy(r.u.part.topic_id, TID, 16);
    r.u.part.isr = (lr_md_ids){isr, 2};
    r.u.part.leader = 2;
    r.u.part.elr = (lr_md_ids){elr, 1};
    expect_bytes(&r, "01 05 02  00000000  000102030405060708090a0b0c0d0e0f  03"
                     "  00 09 03 00000001 00000002"
                     "  01 04 00000002"
                     "  06 05 02 00000003");
}

/* PartitionRecord v2 {PartitionId 1, Replicas [1], Isr [1], Leader 1,
 * LeaderEpoch 0, PartitionEpoch 0, Directories [UNASSIGNED]}:
 *   01 03 02  00000001  uuid
 *   02 00000001  02 00000001  01  01        Replicas, Isr, Removing [], Adding []
 *   00000001 00000000 00000000              Leader, LeaderEpoch, PartitionEpoch
 *   02 00000000000000000000000000000001     Directories: [Uuid(0, 1)]
 *   00                                      LRS 0, ELR and LastKnownElr empty: no tags */
Test(metadata, golden_partition)
{
    int32_t one[] = {1};
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_PARTITION, 2);
    r.u.part.partition_id = 1;
    memcpy(r.u.part.topic_id, TID, 16);
    r.u.part.replicas = (lr_md_ids){one, 1};
    r.u.part.isr = (lr_md_ids){one, 1};
    r.u.part.leader = 1;
    expect_bytes(&r, "01 03 02 00000001 000102030405060708090a0b0c0d0e0f"
                     "02 00000001 02 00000001 01 01"
                     "00000001 00000000 00000000"
                     "02 00000000000000000000000000000001 00");
}

/* A sample of every record type, built by hand. */
static lr_md_endpoint_rec sample_ep[2] = {
    {{"PLAINTEXT", 9}, {"host-a", 6}, 9092, 0},
    {{"SSL", 3}, {"host-a", 6}, 9093, 1},
};
static lr_md_feature_rec sample_feat[1] = {{{"metadata.version", 16}, 1, 21}};
static int32_t s_rep[] = {1, 2, 3}, s_isr[] = {1, 2}, s_elr[] = {3}, s_lke[] = {3};
static uint8_t s_dirs[48];

static size_t samples(lr_md_record *out)
{
    size_t n = 0;
    lr_md_record *r;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_REGISTER_BROKER, 3);
    r->u.reg.broker_id = 7;
    memset(r->u.reg.incarnation, 0xab, 16);
    r->u.reg.epoch = 12345;
    r->u.reg.endpoints = sample_ep;
    r->u.reg.n_endpoints = 2;
    r->u.reg.features = sample_feat;
    r->u.reg.n_features = 1;
    r->u.reg.rack = (lr_md_str){"rack-1", 6};
    r->u.reg.fenced = 1;
    r->u.reg.in_controlled_shutdown = 0;

    r = &out[n++];
    *r = out[0];
    r->version = 0; /* no InControlledShutdown, no IsMigratingZkBroker */
    r->u.reg.rack = (lr_md_str){NULL, -1};

    r = &out[n++];
    lr_md_record_init(r, LR_MD_UNREGISTER_BROKER, 0);
    r->u.broker.broker_id = 7;
    r->u.broker.epoch = 12345;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_TOPIC, 0);
    r->u.topic.name = (lr_md_str){"orders", 6};
    memcpy(r->u.topic.topic_id, TID, 16);

    r = &out[n++];
    lr_md_record_init(r, LR_MD_PARTITION, 2);
    memcpy(r->u.part.topic_id, TID, 16);
    r->u.part.replicas = (lr_md_ids){s_rep, 3};
    r->u.part.isr = (lr_md_ids){s_isr, 2};
    r->u.part.leader = 1;
    r->u.part.leader_epoch = 4;
    r->u.part.partition_epoch = 9;
    r->u.part.lrs = LR_MD_RECOVERING;
    r->u.part.elr = (lr_md_ids){s_elr, 1};
    r->u.part.lke = (lr_md_ids){s_lke, 1};
    r->u.part.dirs = s_dirs;
    r->u.part.n_dirs = 3;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_CONFIG, 0);
    r->u.config.resource_type = LR_MD_RESOURCE_TOPIC;
    r->u.config.resource_name = (lr_md_str){"orders", 6};
    r->u.config.name = (lr_md_str){"min.insync.replicas", 19};
    r->u.config.value = (lr_md_str){"2", 1};

    r = &out[n++];
    lr_md_record_init(r, LR_MD_PARTITION_CHANGE, 2);
    memcpy(r->u.part.topic_id, TID, 16);
    r->u.part.isr = (lr_md_ids){s_isr, 2};
    r->u.part.leader = 2;
    r->u.part.replicas = (lr_md_ids){s_rep, 3};
    r->u.part.lrs = LR_MD_RECOVERED;
    r->u.part.elr = (lr_md_ids){s_elr, 1};
    r->u.part.lke = (lr_md_ids){NULL, 0};
    r->u.part.dirs = s_dirs;
    r->u.part.n_dirs = 3;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_FENCE_BROKER, 0);
    r->u.broker.broker_id = 3;
    r->u.broker.epoch = 77;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_UNFENCE_BROKER, 0);
    r->u.broker.broker_id = 3;
    r->u.broker.epoch = 77;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_REMOVE_TOPIC, 0);
    memcpy(r->u.remove_topic.topic_id, TID, 16);

    r = &out[n++];
    lr_md_record_init(r, LR_MD_PRODUCER_IDS, 0);
    r->u.pids.broker_id = 1;
    r->u.pids.broker_epoch = 2;
    r->u.pids.next_producer_id = 3000;

    r = &out[n++];
    lr_md_record_init(r, LR_MD_BROKER_REGISTRATION_CHANGE, 1);
    r->u.change.broker_id = 3;
    r->u.change.broker_epoch = 77;
    r->u.change.fenced = -1;
    r->u.change.in_controlled_shutdown = 1;
    return n;
}

/* Round trip: decode(encode(r)) re-encodes to the same bytes. */
Test(metadata, round_trip_every_type)
{
    lr_md_record s[16];
    size_t n = samples(s);
    for (size_t i = 0; i < n; i++) {
        lr_buf b = enc(&s[i]);
        lr_md_record d;
        cr_assert_eq(lr_md_decode(&lr_alloc_default, b.data, b.len, &d), 0, "%s",
                     lr_md_rtype_name(s[i].type));
        cr_assert_eq(d.type, s[i].type);
        cr_assert_eq(d.version, s[i].version);
        lr_buf b2 = enc(&d);
        cr_assert_eq(b2.len, b.len, "%s", lr_md_rtype_name(s[i].type));
        cr_assert_arr_eq(b2.data, b.data, b.len);
        lr_md_record_clear(&d);
        lr_buf_free(&b);
        lr_buf_free(&b2);
    }
    /* field checks on a decoded register record */
    lr_buf b = enc(&s[0]);
    lr_md_record d;
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b.data, b.len, &d), 0);
    cr_assert_eq(d.u.reg.broker_id, 7);
    cr_assert_eq(d.u.reg.epoch, 12345);
    cr_assert_eq(d.u.reg.n_endpoints, 2);
    cr_assert_eq(d.u.reg.endpoints[1].port, 9093);
    cr_assert_eq(d.u.reg.rack.len, 6);
    cr_assert_eq(memcmp(d.u.reg.rack.p, "rack-1", 6), 0);
    cr_assert_eq(d.u.reg.fenced, 1);
    lr_md_record_clear(&d);
    lr_buf_free(&b);
}

/* Every truncation and every single-byte corruption of every sample
 * decodes to an error or a valid record, never a crash (ASan/UBSan watch);
 * every strict prefix is an error. */
Test(metadata, truncation_and_corruption)
{
    lr_md_record s[16];
    size_t n = samples(s);
    for (size_t i = 0; i < n; i++) {
        lr_buf b = enc(&s[i]);
        for (size_t cut = 0; cut < b.len; cut++) {
            uint8_t *copy = malloc(cut ? cut : 1);
            memcpy(copy, b.data, cut);
            lr_md_record d;
            int err = lr_md_decode(&lr_alloc_default, copy, cut, &d);
            cr_assert(err == LOGREP_ERR__CORRUPT, "%s cut at %zu: %d", lr_md_rtype_name(s[i].type),
                      cut, err);
            free(copy);
        }
        uint8_t *copy = malloc(b.len + 1);
        for (size_t at = 0; at < b.len; at++) {
            static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
            for (size_t k = 0; k < sizeof vals; k++) {
                memcpy(copy, b.data, b.len);
                copy[at] = vals[k];
                lr_md_record d;
                int err = lr_md_decode(&lr_alloc_default, copy, b.len, &d);
                if (!err) {
                    lr_md_image *img = lr_md_new(NULL);
                    (void)lr_md_apply(img, &d); /* whatever it says, no crash */
                    cr_assert_eq(lr_md_check_invariants(img, NULL, 0), 0);
                    lr_md_free(img);
                    lr_md_record_clear(&d);
                } else {
                    cr_assert(err == LOGREP_ERR__CORRUPT || err == LOGREP_ERR__UNSUPPORTED);
                }
            }
        }
        /* trailing byte */
        memcpy(copy, b.data, b.len);
        copy[b.len] = 0;
        lr_md_record d;
        cr_assert_eq(lr_md_decode(&lr_alloc_default, copy, b.len + 1, &d), LOGREP_ERR__CORRUPT);
        free(copy);
        lr_buf_free(&b);
    }
}

Test(metadata, hostile_headers_and_counts)
{
    lr_md_record d;
    size_t n;
    /* frame version 0 */
    uint8_t *b = tu_hex("00 0f 00 00000001 0000000000000005 00000000000003e8 00", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__CORRUPT);
    free(b);
    /* unknown type, unknown version */
    b = tu_hex("01 06 00 00", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__UNSUPPORTED);
    free(b);
    b = tu_hex("01 02 01 04 666f6f 000102030405060708090a0b0c0d0e0f 00", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__UNSUPPORTED);
    free(b);
    /* a replica array claiming 2^28 entries must fail before allocating */
    b = tu_hex("01 03 00 00000000 000102030405060708090a0b0c0d0e0f 80808080 01", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__CORRUPT);
    free(b);
    /* overlong varint */
    b = tu_hex("01 ff ff ff ff ff 00", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__CORRUPT);
    free(b);
    /* tags out of order in a PartitionChangeRecord */
    b = tu_hex("01 05 02 00000000 000102030405060708090a0b0c0d0e0f 02 01 04 00000002 00 01 01", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__CORRUPT);
    free(b);
    /* a known tag whose size does not match its content */
    b = tu_hex("01 05 02 00000000 000102030405060708090a0b0c0d0e0f 01 01 05 00000002 00", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), LOGREP_ERR__CORRUPT);
    free(b);
    /* an unknown tag is skipped */
    b = tu_hex("01 05 02 00000000 000102030405060708090a0b0c0d0e0f 01 1f 02 abcd", &n);
    cr_assert_eq(lr_md_decode(&lr_alloc_default, b, n, &d), 0);
    cr_assert_eq(d.u.part.leader, LR_MD_NO_LEADER_CHANGE);
    lr_md_record_clear(&d);
    free(b);
}

/* Allocation failure while decoding leaves nothing behind. */
Test(metadata, decode_nomem)
{
    lr_md_record s[16];
    samples(s);
    lr_buf b = enc(&s[4]);
    tu_heap h = {0};
    h.fail_at = 1;
    lr_alloc a = tu_heap_allocator(&h);
    lr_md_record d;
    cr_assert_eq(lr_md_decode(&a, b.data, b.len, &d), LOGREP_ERR__NOMEM);
    cr_assert_eq(h.live_blocks, 0);
    lr_buf_free(&b);
}

static void apply_ok(lr_md_image *img, const lr_md_record *r)
{
    lr_buf b = enc(r);
    int err = lr_md_apply_bytes(img, b.data, b.len);
    cr_assert_eq(err, 0, "%s: %s", lr_md_rtype_name(r->type), logrep_err_name(err));
    lr_buf_free(&b);
}

static int apply_bytes(lr_md_image *img, const lr_md_record *r)
{
    lr_buf b = enc(r);
    int err = lr_md_apply_bytes(img, b.data, b.len);
    lr_buf_free(&b);
    return err;
}

Test(metadata, apply_rules)
{
    lr_md_image *img = lr_md_new(NULL);
    lr_md_record s[16];
    samples(s);
    apply_ok(img, &s[0]); /* broker 7 */
    cr_assert_eq(lr_md_next_offset(img), 1);
    const lr_md_broker *b = lr_md_broker_get(img, 7);
    cr_assert(b && b->fenced && b->epoch == 12345 && strcmp(b->rack, "rack-1") == 0);
    cr_assert_eq(b->n_endpoints, 2u);
    /* partition before its topic: refused, image unchanged */
    cr_assert_eq(apply_bytes(img, &s[4]), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_md_next_offset(img), 1);
    apply_ok(img, &s[3]); /* topic orders */
    /* a PartitionRecord for partition 1 before 0: out of sequence */
    lr_md_record p1 = s[4];
    p1.u.part.partition_id = 1;
    cr_assert_eq(apply_bytes(img, &p1), LOGREP_ERR__CORRUPT);
    apply_ok(img, &s[4]);
    /* ISR with a non-replica, duplicate ids, leader outside replicas */
    int32_t bad_isr[] = {1, 9}, dup[] = {1, 1};
    lr_md_record ch;
    lr_md_record_init(&ch, LR_MD_PARTITION_CHANGE, 2);
    memcpy(ch.u.part.topic_id, TID, 16);
    ch.u.part.isr = (lr_md_ids){bad_isr, 2};
    cr_assert_eq(apply_bytes(img, &ch), LOGREP_ERR__CORRUPT);
    ch.u.part.isr = (lr_md_ids){dup, 2};
    cr_assert_eq(apply_bytes(img, &ch), LOGREP_ERR__CORRUPT);
    ch.u.part.isr.n = -1;
    ch.u.part.leader = 9;
    cr_assert_eq(apply_bytes(img, &ch), LOGREP_ERR__CORRUPT);
    /* leader change bumps leader epoch and partition epoch; ISR change only the latter */
    const lr_md_partition *p = lr_md_partition_get(lr_md_topic_by_name(img, "orders"), 0);
    cr_assert_eq(p->leader_epoch, 4);
    cr_assert_eq(p->partition_epoch, 9);
    ch.u.part.leader = 2;
    apply_ok(img, &ch);
    p = lr_md_partition_get(lr_md_topic_by_name(img, "orders"), 0);
    cr_assert_eq(p->leader, 2);
    cr_assert_eq(p->leader_epoch, 5);
    cr_assert_eq(p->partition_epoch, 10);
    lr_md_record_init(&ch, LR_MD_PARTITION_CHANGE, 2);
    memcpy(ch.u.part.topic_id, TID, 16);
    int32_t isr3[] = {2, 1, 3};
    ch.u.part.isr = (lr_md_ids){isr3, 3};
    ch.u.part.elr = (lr_md_ids){NULL, 0};
    apply_ok(img, &ch);
    p = lr_md_partition_get(lr_md_topic_by_name(img, "orders"), 0);
    cr_assert_eq(p->leader_epoch, 5);
    cr_assert_eq(p->partition_epoch, 11);
    cr_assert_eq(p->n_isr, 3);
    cr_assert_eq(p->n_elr, 0);
    cr_assert_eq(p->n_lke, 1, "LastKnownElr untouched when null in the record");
    /* topic config */
    apply_ok(img, &s[5]);
    const lr_md_topic *t = lr_md_topic_by_name(img, "orders");
    cr_assert_str_eq(lr_md_topic_config(t, "min.insync.replicas"), "2");
    cr_assert_eq(lr_md_topic_min_isr(img, t), 2);
    /* fence with a wrong epoch: refused */
    lr_md_record f = s[7];
    f.u.broker.broker_id = 7;
    cr_assert_eq(apply_bytes(img, &f), LOGREP_ERR__CORRUPT);
    f.u.broker.epoch = 12345;
    apply_ok(img, &f);
    /* producer ids only move forward */
    apply_ok(img, &s[10]);
    cr_assert_eq(lr_md_next_producer_id(img), 3000);
    cr_assert_eq(apply_bytes(img, &s[10]), LOGREP_ERR__CORRUPT);
    /* duplicate topic name, illegal names */
    cr_assert_eq(apply_bytes(img, &s[3]), LOGREP_ERR__CORRUPT);
    lr_md_record tr = s[3];
    tr.u.topic.topic_id[0] = 0x77;
    tr.u.topic.name = (lr_md_str){"..", 2};
    cr_assert_eq(apply_bytes(img, &tr), LOGREP_ERR__CORRUPT);
    tr.u.topic.name = (lr_md_str){"a b", 3};
    cr_assert_eq(apply_bytes(img, &tr), LOGREP_ERR__CORRUPT);
    /* remove the topic: configs go with it */
    apply_ok(img, &s[9]);
    cr_assert_null(lr_md_topic_by_name(img, "orders"));
    cr_assert_eq(lr_md_topic_count(img), 0u);
    apply_ok(img, &s[2]); /* unregister broker 7 */
    cr_assert_null(lr_md_broker_get(img, 7));
    lr_md_free(img);
}

/* Many topics: the name and id indexes survive growth and removals. */
Test(metadata, topic_index_growth_and_removal)
{
    lr_md_image *img = lr_md_new(NULL);
    char name[32];
    for (int i = 0; i < 300; i++) {
        lr_md_record r;
        lr_md_record_init(&r, LR_MD_TOPIC, 0);
        int len = snprintf(name, sizeof name, "t%d", i);
        r.u.topic.name = (lr_md_str){name, len};
        memset(r.u.topic.topic_id, 0, 16);
        memcpy(r.u.topic.topic_id, &i, sizeof i);
        r.u.topic.topic_id[15] = 1;
        apply_ok(img, &r);
    }
    for (int i = 0; i < 300; i += 3) {
        lr_md_record r;
        lr_md_record_init(&r, LR_MD_REMOVE_TOPIC, 0);
        memset(r.u.remove_topic.topic_id, 0, 16);
        memcpy(r.u.remove_topic.topic_id, &i, sizeof i);
        r.u.remove_topic.topic_id[15] = 1;
        apply_ok(img, &r);
    }
    cr_assert_eq(lr_md_topic_count(img), 200u);
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "t%d", i);
        const lr_md_topic *t = lr_md_topic_by_name(img, name);
        uint8_t id[16] = {0};
        memcpy(id, &i, sizeof i);
        id[15] = 1;
        cr_assert_eq(t != NULL, i % 3 != 0, "%s", name);
        cr_assert_eq(lr_md_topic_by_id(img, id), t);
    }
    lr_md_free(img);
}

Test(metadata, describe_and_status)
{
    lr_md_image *img = lr_md_new(NULL);
    lr_md_record s[16];
    samples(s);
    apply_ok(img, &s[3]);
    apply_ok(img, &s[4]); /* replicas 1,2,3 isr 1,2 elr 3 lke 3 leader 1 */
    apply_ok(img, &s[5]); /* min.insync.replicas=2 */
    lr_buf out;
    lr_buf_init(&out, &lr_alloc_default);
    cr_assert_eq(lr_md_describe(img, NULL, LR_MD_DESCRIBE_ALL, &out), 0);
    char id[23];
    lr_md_uuid_str(TID, id);
    cr_assert_str_eq(id, "AAECAwQFBgcICQoLDA0ODw"); /* Kafka's Uuid.toString */
    char want[512];
    snprintf(want, sizeof want,
             "Topic: orders\tTopicId: %s\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: "
             "min.insync.replicas=2\n"
             "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\tElr: 3\t"
             "LastKnownElr: 3\n",
             id);
    cr_assert_eq(out.len, strlen(want));
    cr_assert_eq(memcmp(out.data, want, out.len), 0, "%.*s", (int)out.len, (char *)out.data);
    const lr_md_topic *t = lr_md_topic_by_name(img, "orders");
    unsigned f = lr_md_partition_status(img, t, &t->parts[0]);
    cr_assert_eq(f, LR_MD_UNDER_REPLICATED | LR_MD_AT_MIN_ISR);
    out.len = 0;
    cr_assert_eq(lr_md_describe(img, NULL, LR_MD_DESCRIBE_UNDER_MIN_ISR, &out), 0);
    cr_assert_eq(out.len, 0u);
    cr_assert_eq(lr_md_describe(img, NULL, LR_MD_DESCRIBE_AT_MIN_ISR, &out), 0);
    cr_assert(out.len > 0 && ((char *)out.data)[0] == '\t', "partition lines only");
    cr_assert_eq(lr_md_describe(img, "nope", 0, &out), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(lr_md_describe(img, NULL, 99, &out), LOGREP_ERR__INVALID_ARG);
    lr_md_summary sum;
    lr_md_summarize(img, &sum);
    cr_assert_eq(sum.partitions, 1);
    cr_assert_eq(sum.at_min_isr, 1);
    cr_assert_eq(sum.offline, 0);
    lr_buf_free(&out);
    lr_md_free(img);
}
