/* `__consumer_offsets` records: golden vectors (docs/groups.md, Records;
 * computed with the JDK), round trips of every version, and every
 * truncation of every valid record refused without a crash. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/alloc.h"
#include "group/records.h"

static const char *const IDS[] = {"my-group", "test-group", "console-consumer-12345", "group-1",
                                  "polygenelubricants", "", "\xc3\xa9t\xc3\xa9"};
static const int32_t HASH[] = {-1906497762, 627841412, 158455506, 293427299, INT32_MIN, 0, 227742};
static const int32_t PART[] = {12, 12, 6, 49, 0, 0, 42};

Test(group_records, coordinator_partition_table)
{
    for (size_t i = 0; i < sizeof IDS / sizeof *IDS; i++) {
        const uint8_t *p = (const uint8_t *)IDS[i];
        cr_assert_eq(lr_gr_java_hash(p, strlen(IDS[i])), HASH[i], "%s", IDS[i]);
        cr_assert_eq(lr_gr_partition_for(p, strlen(IDS[i]), 50), PART[i], "%s", IDS[i]);
    }
    /* A code point above U+FFFF counts as two UTF-16 units: U+1F600 is
     * D83D DE00, so hash = 0xD83D * 31 + 0xDE00. */
    cr_assert_eq(lr_gr_java_hash((const uint8_t *)"\xf0\x9f\x98\x80", 4), 0xD83D * 31 + 0xDE00);
}

Test(group_records, golden_key_and_value)
{
    static const uint8_t KEY[] = {0x00, 0x01, 0x00, 0x08, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p',
                                  0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's', 0x00, 0x00, 0x00, 0x03};
    static const uint8_t VAL[] = {0x00, 0x03, 0, 0, 0, 0, 0, 0, 0x04, 0xd2, 0, 0, 0, 5,
                                  0x00, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00};
    static const uint8_t GKEY[] = {0x00, 0x02, 0x00, 0x08, 'm', 'y', '-', 'g', 'r', 'o', 'u', 'p'};
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_gr_encode_offset_key(&b, 1, lr_gr_cstr("my-group"), lr_gr_cstr("orders"), 3), 0);
    cr_assert_eq(b.len, sizeof KEY);
    cr_assert_eq(memcmp(b.data, KEY, sizeof KEY), 0);
    lr_buf_clear(&b);
    lr_gr_offset v = {.offset = 1234, .leader_epoch = 5, .metadata = lr_gr_cstr(""),
                      .commit_ts = 0x18bcfe56800LL, .expire_ts = -1};
    v.version = lr_gr_offset_version(&v);
    cr_assert_eq(v.version, 3);
    cr_assert_eq(lr_gr_encode_offset(&b, &v), 0);
    cr_assert_eq(b.len, sizeof VAL);
    cr_assert_eq(memcmp(b.data, VAL, sizeof VAL), 0);
    lr_buf_clear(&b);
    cr_assert_eq(lr_gr_encode_group_key(&b, lr_gr_cstr("my-group")), 0);
    cr_assert_eq(memcmp(b.data, GKEY, sizeof GKEY), 0);
    lr_buf_free(&b);

    lr_gr_key k;
    cr_assert_eq(lr_gr_decode_key(KEY, sizeof KEY, &k), 0);
    cr_assert_eq(k.version, 1);
    cr_assert_eq(k.partition, 3);
    cr_assert_eq(k.topic.n, 6);
    lr_gr_offset d;
    cr_assert_eq(lr_gr_decode_offset(VAL, sizeof VAL, &d), 0);
    cr_assert_eq(d.offset, 1234);
    cr_assert_eq(d.leader_epoch, 5);
    cr_assert_eq(d.commit_ts, 0x18bcfe56800LL);
    cr_assert_eq(d.expire_ts, -1);
    cr_assert_eq(lr_gr_decode_key(GKEY, sizeof GKEY, &k), 0);
    cr_assert_eq(k.version, 2);
    /* Other record types (KIP-848: 3..) are not ours. */
    static const uint8_t K848[] = {0x00, 0x03, 0x00, 0x01, 'g'};
    cr_assert_eq(lr_gr_decode_key(K848, sizeof K848, &k), LOGREP_ERR__UNSUPPORTED);
}

/* Every strict prefix of a valid record is refused, never read past. */
static void truncations(const uint8_t *p, size_t len, int which)
{
    for (size_t n = 0; n < len; n++) {
        uint8_t *c = malloc(n ? n : 1); /* exact size: ASan sees any over-read */
        memcpy(c, p, n);
        int err;
        if (which == 0) {
            lr_gr_key k;
            err = lr_gr_decode_key(c, n, &k);
        } else if (which == 1) {
            lr_gr_offset o;
            err = lr_gr_decode_offset(c, n, &o);
        } else {
            lr_gr_group g;
            err = lr_gr_decode_group(c, n, &g);
        }
        cr_assert(err == LOGREP_ERR__CORRUPT, "prefix %zu of %zu (type %d): %d", n, len, which, err);
        free(c);
    }
}

Test(group_records, every_version_round_trips_and_truncations_fail)
{
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    for (int16_t ver = 0; ver <= 4; ver++) {
        lr_buf_clear(&b);
        lr_gr_offset v = {.version = ver, .offset = 77, .leader_epoch = ver >= 3 ? 9 : -1,
                          .metadata = lr_gr_cstr("meta"), .commit_ts = 1000,
                          .expire_ts = ver == 1 ? 5000 : -1};
        cr_assert_eq(lr_gr_encode_offset(&b, &v), 0);
        lr_gr_offset d;
        cr_assert_eq(lr_gr_decode_offset(b.data, b.len, &d), 0, "v%d", ver);
        cr_assert_eq(d.offset, 77);
        cr_assert_eq(d.leader_epoch, v.leader_epoch);
        cr_assert_eq(d.expire_ts, v.expire_ts);
        cr_assert_eq(d.metadata.n, 4);
        truncations(b.data, b.len, 1);

        lr_buf_clear(&b);
        lr_gr_member ms[2] = {
            {lr_gr_cstr("m1"), lr_gr_cstr("i1"), lr_gr_cstr("c"), lr_gr_cstr("/h"), 300, 100,
             lr_gr_cstr("sub"), lr_gr_cstr("assign")},
            {lr_gr_cstr("m2"), lr_gr_cstr(NULL), lr_gr_cstr("c"), lr_gr_cstr("/h"), 300, 100,
             lr_gr_cstr(""), lr_gr_cstr("")},
        };
        lr_gr_group g = {.version = ver, .protocol_type = lr_gr_cstr("consumer"), .generation = 4,
                         .protocol = lr_gr_cstr("range"), .leader = lr_gr_cstr("m1"), .state_ts = 42};
        cr_assert_eq(lr_gr_encode_group(&b, &g, ms, 2), 0);
        lr_gr_group dg;
        cr_assert_eq(lr_gr_decode_group(b.data, b.len, &dg), 0, "v%d", ver);
        cr_assert_eq(dg.generation, 4);
        cr_assert_eq(dg.n_members, 2);
        cr_assert_eq(dg.state_ts, ver >= 2 ? 42 : -1);
        lr_gr_cursor c;
        lr_gr_member m;
        lr_gr_members(&dg, &c);
        cr_assert(lr_gr_member_next(&c, &m));
        cr_assert_eq(m.instance_id.n, ver >= 3 ? 2 : -1);
        cr_assert_eq(m.rebalance_timeout, ver >= 1 ? 300 : 100);
        cr_assert_eq(m.assignment.n, 6);
        cr_assert(lr_gr_member_next(&c, &m));
        cr_assert(!lr_gr_member_next(&c, &m));
        truncations(b.data, b.len, 2);
    }
    lr_buf_clear(&b);
    cr_assert_eq(lr_gr_encode_offset_key(&b, 1, lr_gr_cstr("g"), lr_gr_cstr("t"), 0), 0);
    truncations(b.data, b.len, 0);
    /* Trailing bytes, a negative member count, a huge string length. */
    static const uint8_t BAD1[] = {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0xff};
    lr_gr_offset o;
    cr_assert_eq(lr_gr_decode_offset(BAD1, sizeof BAD1, &o), LOGREP_ERR__CORRUPT);
    static const uint8_t BAD2[] = {0, 3, 0, 1, 'c', 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0};
    lr_gr_group g;
    cr_assert_eq(lr_gr_decode_group(BAD2, sizeof BAD2, &g), LOGREP_ERR__CORRUPT);
    static const uint8_t BAD3[] = {0, 1, 0x7f, 0xff, 'g'};
    lr_gr_key k;
    cr_assert_eq(lr_gr_decode_key(BAD3, sizeof BAD3, &k), LOGREP_ERR__CORRUPT);
    static const uint8_t BAD4[] = {0, 9, 0, 0};
    cr_assert_eq(lr_gr_decode_offset(BAD4, sizeof BAD4, &o), LOGREP_ERR__UNSUPPORTED);
    lr_buf_free(&b);
}
