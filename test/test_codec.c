/* Codec layer: CRC-32C, murmur2, varints, v2 batches, compression, control
 * records. Golden vectors and their provenance:
 *  - murmur2: Apache Kafka UtilsTest (M1-M6) and librdkafka rdmurmur2.c
 *    unittest (M7-M11), see test/vectors/README.md.
 *  - CRC-32C: the standard check value, Kafka Crc32CTest, librdkafka
 *    crc32c.c unittest.
 *  - varints: Kafka ByteUtilsTest.
 *  - the 89-byte two-record batch: worked out for this project and
 *    cross-checked against kafkajs 2.2.4's encoder and the JDK's CRC32C.
 *  - the gzip LogAppendTime batch: kafkajs
 *    src/protocol/recordBatch/fixtures/v0_recordbatch.json (a broker wrote it).
 *  - the COMMIT marker batch: worked out; JDK CRC32C agrees and kafkajs
 *    decodes it as a COMMIT control record. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/endian.h"
#include "codec/compress.h"
#include "codec/varint.h"
#include "lib/testutil.h"
#include <logrep.h>

/* ------------------------------------------------------------ CRC-32C */

Test(crc32c, check_values)
{
    cr_assert_eq(logrep_crc32c(0, "123456789", 9), 0xE3069283u);
    cr_assert_eq(logrep_crc32c(0, "Some String", 11), 608512271u);
    cr_assert_eq(logrep_crc32c(0, "", 0), 0u);
    cr_assert_eq(logrep_crc32c(0, NULL, 0), 0u);
    static const uint8_t zeros[4] = {0};
    cr_assert_eq(logrep_crc32c(0, zeros, 4), 0x48674BC7u);
}

Test(crc32c, librdkafka_licence_paragraph)
{
    /* librdkafka src/crc32c.c unittest_rd_crc32c: zlib licence text. */
    static const char *buf =
        "  This software is provided 'as-is', without any express or implied\n"
        "  warranty.  In no event will the author be held liable for any damages\n"
        "  arising from the use of this software.\n"
        "\n"
        "  Permission is granted to anyone to use this software for any purpose,\n"
        "  including commercial applications, and to alter it and redistribute it\n"
        "  freely, subject to the following restrictions:\n"
        "\n"
        "  1. The origin of this software must not be misrepresented; you must not\n"
        "     claim that you wrote the original software. If you use this software\n"
        "     in a product, an acknowledgment in the product documentation would be\n"
        "     appreciated but is not required.\n"
        "  2. Altered source versions must be plainly marked as such, and must not be\n"
        "     misrepresented as being the original software.\n"
        "  3. This notice may not be removed or altered from any source "
        "distribution.";
    cr_assert_eq(strlen(buf), 843u);
    cr_assert_eq(logrep_crc32c(0, buf, strlen(buf)), 0x7dcde113u);
}

Test(crc32c, chaining_equals_one_shot)
{
    uint8_t buf[3000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    uint32_t whole = logrep_crc32c(0, buf, sizeof buf);
    for (size_t cut = 0; cut <= sizeof buf; cut += 97) {
        uint32_t c = logrep_crc32c(0, buf, cut);
        c = logrep_crc32c(c, buf + cut, sizeof buf - cut);
        cr_assert_eq(c, whole, "cut at %zu", cut);
    }
}

/* ------------------------------------------------------------ murmur2 */

Test(murmur2, kafka_utils_test)
{
    cr_assert_eq(logrep_murmur2("21", 2), -973932308);
    cr_assert_eq(logrep_murmur2("foobar", 6), -790332482);
    cr_assert_eq(logrep_murmur2("a-little-bit-long-string", 24), -985981536);
    cr_assert_eq(logrep_murmur2("a-little-bit-longer-string", 26), -1486304829);
    const char *s = "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8";
    cr_assert_eq(logrep_murmur2(s, strlen(s)), -58897971);
    cr_assert_eq(logrep_murmur2("abc", 3), 479470107);
}

Test(murmur2, librdkafka_unittest_unaligned)
{
    cr_assert_eq((uint32_t)logrep_murmur2("kafka", 5), 0xd067cf64u);
    cr_assert_eq((uint32_t)logrep_murmur2("giberish123456789", 17), 0x8f552b0cu);
    const char *k = "1234";
    cr_assert_eq((uint32_t)logrep_murmur2(k, 4), 0x9fc97b14u);
    cr_assert_eq((uint32_t)logrep_murmur2(k + 1, 3), 0xe7c009cau);
    cr_assert_eq((uint32_t)logrep_murmur2(k + 2, 2), 0x873930dau);
    cr_assert_eq((uint32_t)logrep_murmur2(k + 3, 1), 0x5a4b5ca1u);
    const char *p = "PreAmbleWillBeRemoved,ThePrePartThatIs";
    size_t n = strlen(p);
    cr_assert_eq((uint32_t)logrep_murmur2(p, n), 0x78424f1cu);
    cr_assert_eq((uint32_t)logrep_murmur2(p + 1, n - 1), 0x4a62b377u);
    cr_assert_eq((uint32_t)logrep_murmur2(p + 2, n - 2), 0xe0e4e09eu);
    cr_assert_eq((uint32_t)logrep_murmur2(p + 3, n - 3), 0x62b8b43fu);
    cr_assert_eq((uint32_t)logrep_murmur2("", 0), 0x106e08d9u);
    cr_assert_eq((uint32_t)logrep_murmur2(NULL, 0), 0x106e08d9u);
}

Test(murmur2, partition)
{
    cr_assert_eq(logrep_murmur2_partition("foobar", 6, 3), 0);
    cr_assert_eq(logrep_murmur2_partition("foobar", 6, 6), 0);
    cr_assert_eq(logrep_murmur2_partition("foobar", 6, 12), 6);
    cr_assert_eq(logrep_murmur2_partition("foobar", 6, 50), 16);
    cr_assert_eq(logrep_murmur2_partition("kafka", 5, 3), 1);
    cr_assert_eq(logrep_murmur2_partition("kafka", 5, 6), 4);
    cr_assert_eq(logrep_murmur2_partition("kafka", 5, 12), 4);
    cr_assert_eq(logrep_murmur2_partition("kafka", 5, 50), 30);
    cr_assert_eq(logrep_murmur2_partition("21", 2, 50), 40);
    cr_assert_eq(logrep_murmur2_partition("x", 1, 0), -1);
}

Test(sequence, wraps_like_kafka)
{
    cr_assert_eq(logrep_seq_increment(5, 5), 10);
    cr_assert_eq(logrep_seq_increment(INT32_MAX, 1), 0);
    cr_assert_eq(logrep_seq_increment(INT32_MAX - 5, 10), 4);
    cr_assert_eq(logrep_seq_decrement(5, 5), 0);
    cr_assert_eq(logrep_seq_decrement(0, 1), INT32_MAX);
}

/* ------------------------------------------------------------ varints */

static void check_varint(int32_t v, const char *hex)
{
    size_t n;
    uint8_t *want = tu_hex(hex, &n);
    uint8_t buf[LR_VARINT_MAX];
    size_t len = lr_varint_put(buf, v);
    cr_assert_eq(len, n, "varint %d: length %zu, want %zu", v, len, n);
    cr_assert_arr_eq(buf, want, n, "varint %d encoding", v);
    cr_assert_eq(lr_varint_size(v), n);
    const uint8_t *p = want;
    int32_t back;
    cr_assert_eq(lr_varint_get(&p, want + n, &back), 0);
    cr_assert_eq(back, v);
    cr_assert_eq(p, want + n);
    /* Every truncation is an error that does not move the cursor. */
    for (size_t cut = 0; cut < n; cut++) {
        p = want;
        cr_assert_eq(lr_varint_get(&p, want + cut, &back), LOGREP_ERR__CORRUPT);
        cr_assert_eq(p, want);
    }
    free(want);
}

static void check_varlong(int64_t v, const char *hex)
{
    size_t n;
    uint8_t *want = tu_hex(hex, &n);
    uint8_t buf[LR_VARLONG_MAX];
    size_t len = lr_varlong_put(buf, v);
    cr_assert_eq(len, n);
    cr_assert_arr_eq(buf, want, n);
    const uint8_t *p = want;
    int64_t back;
    cr_assert_eq(lr_varlong_get(&p, want + n, &back), 0);
    cr_assert_eq(back, v);
    for (size_t cut = 0; cut < n; cut++) {
        p = want;
        cr_assert_eq(lr_varlong_get(&p, want + cut, &back), LOGREP_ERR__CORRUPT);
    }
    free(want);
}

Test(varint, kafka_byte_utils_vectors)
{
    check_varint(0, "00");
    check_varint(-1, "01");
    check_varint(1, "02");
    check_varint(63, "7e");
    check_varint(-64, "7f");
    check_varint(64, "80 01");
    check_varint(-65, "81 01");
    check_varint(8191, "fe 7f");
    check_varint(-8192, "ff 7f");
    check_varint(8192, "80 80 01");
    check_varint(-8193, "81 80 01");
    check_varint(1048576, "80 80 80 01");
    check_varint(134217728, "80 80 80 80 01");
    check_varint(INT32_MAX, "fe ff ff ff 0f");
    check_varint(INT32_MIN, "ff ff ff ff 0f");
    check_varint(150, "ac 02");
    check_varint(300, "d8 04");
    check_varint(-150, "ab 02");
    check_varlong(INT64_MAX, "fe ff ff ff ff ff ff ff ff 01");
    check_varlong(INT64_MIN, "ff ff ff ff ff ff ff ff ff 01");
    check_varlong(17179869184LL, "80 80 80 80 80 01");
    check_varlong(4611686018427387904LL, "80 80 80 80 80 80 80 80 80 01");
    check_varlong(1700000000000LL, "80 a0 ab fe f9 62");
    check_varlong(-1700000000000LL, "ff 9f ab fe f9 62");
}

Test(varint, unsigned_vectors)
{
    uint8_t buf[5];
    cr_assert_eq(lr_uvarint_put(buf, 0xffffffffu), 5u);
    cr_assert_arr_eq(buf, ((uint8_t[]){0xff, 0xff, 0xff, 0xff, 0x0f}), 5);
    cr_assert_eq(lr_uvarint_put(buf, 0x80000000u), 5u);
    cr_assert_arr_eq(buf, ((uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x08}), 5);
}

Test(varint, overlong_is_error)
{
    static const uint8_t bad32[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t bad64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    const uint8_t *p = bad32;
    int32_t v;
    cr_assert_eq(lr_varint_get(&p, bad32 + sizeof bad32, &v), LOGREP_ERR__CORRUPT);
    p = bad64;
    int64_t w;
    cr_assert_eq(lr_varlong_get(&p, bad64 + sizeof bad64, &w), LOGREP_ERR__CORRUPT);
    /* Java leniency: a non-minimal encoding within 5 bytes is read. */
    static const uint8_t nonmin[] = {0x82, 0x00};
    p = nonmin;
    cr_assert_eq(lr_varint_get(&p, nonmin + 2, &v), 0);
    cr_assert_eq(v, 1);
}

Test(varint, round_trip_random)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (x & 63));
        uint8_t buf[LR_VARLONG_MAX];
        size_t n = lr_varlong_put(buf, v);
        const uint8_t *p = buf;
        int64_t back;
        cr_assert_eq(lr_varlong_get(&p, buf + n, &back), 0);
        cr_assert_eq(back, v);
        int32_t v32 = (int32_t)v;
        n = lr_varint_put(buf, v32);
        p = buf;
        int32_t b32;
        cr_assert_eq(lr_varint_get(&p, buf + n, &b32), 0);
        cr_assert_eq(b32, v32);
    }
}

/* ------------------------------------------------------------ batches */

static const char *worked_batch_hex =
    "00 00 00 00 00 00 00 00 00 00 00 4d ff ff ff ff"
    "02 c5 58 9b ca 00 00 00 00 00 01 00 00 01 8b cf"
    "e5 68 00 00 00 01 8b cf e5 68 05 ff ff ff ff ff"
    "ff ff ff ff ff ff ff ff ff 00 00 00 02 1c 00 00"
    "00 06 6b 65 79 0a 76 61 6c 75 65 00 18 00 0a 02"
    "01 04 68 69 02 02 68 02 78";

static const char *kafkajs_gzip_hex =
    "00 00 00 00 00 00 00 00 00 00 00 71 00 00 00 00"
    "02 e4 c3 24 a5 00 09 00 00 00 00 00 00 01 73 ed"
    "f5 ff a7 00 00 01 73 ed f5 ff c9 ff ff ff ff ff"
    "ff ff ff 00 00 00 00 00 00 00 00 00 01 1f 8b 08"
    "00 00 00 00 00 00 13 0b 63 60 60 e0 ca 4e ad d4"
    "35 70 28 4b cc 29 4d d5 35 d0 35 32 30 32 d0 35"
    "b0 d0 35 34 09 31 34 b7 32 34 b6 32 b0 d0 33 b3"
    "30 8a 62 00 00 b5 e3 f1 a7 2c 00 00 00";

static const char *commit_marker_hex =
    "00 00 00 00 00 00 00 64 00 00 00 42 00 00 00 03"
    "02 80 9c 88 c4 00 30 00 00 00 00 00 00 01 8b cf"
    "e5 68 00 00 00 01 8b cf e5 68 00 00 00 00 00 00"
    "00 03 e8 00 02 ff ff ff ff 00 00 00 01 20 00 00"
    "00 08 00 00 00 01 0c 00 00 00 00 00 07 00";

#define T0 1700000000000LL

Test(batch, worked_example_builds_byte_identical)
{
    size_t n;
    uint8_t *want = tu_hex(worked_batch_hex, &n);
    cr_assert_eq(n, 89u);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add(b, T0, "key", 3, "value", 5, NULL, 0), LOGREP_OK);
    logrep_header h = {(const uint8_t *)"h", 1, (const uint8_t *)"x", 1};
    cr_assert_eq(logrep_batch_builder_add(b, T0 + 5, NULL, -1, "hi", 2, &h, 1), LOGREP_OK);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    cr_assert_eq(len, 89u);
    cr_assert_arr_eq(out, want, 89);
    logrep_batch_builder_free(b);
    free(want);
}

Test(batch, worked_example_reads_back)
{
    size_t n;
    uint8_t *buf = tu_hex(worked_batch_hex, &n);
    size_t size;
    cr_assert_eq(logrep_batch_verify(buf, n, &size), LOGREP_OK);
    cr_assert_eq(size, 89u);
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_reader_open(r, buf, n, &h), LOGREP_OK);
    cr_assert_eq(h.crc, 0xC5589BCAu);
    cr_assert_eq(h.batch_length, 77);
    cr_assert_eq(h.partition_leader_epoch, -1);
    cr_assert_eq(h.record_count, 2);
    cr_assert_eq(h.max_timestamp, T0 + 5);
    cr_assert_eq(h.producer_id, -1);
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_OK);
    cr_assert_eq(rec.offset, 0);
    cr_assert_eq(rec.timestamp, T0);
    cr_assert_eq(rec.key_len, 3);
    cr_assert_arr_eq(rec.key, "key", 3);
    cr_assert_eq(rec.value_len, 5);
    cr_assert_arr_eq(rec.value, "value", 5);
    cr_assert_eq(rec.header_count, 0);
    cr_assert_eq(rec.sequence, -1);
    /* Zero copy: the value points into the input. */
    cr_assert(rec.value >= buf && rec.value < buf + n);
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_OK);
    cr_assert_eq(rec.offset, 1);
    cr_assert_eq(rec.timestamp, T0 + 5);
    cr_assert_eq(rec.key_len, -1);
    cr_assert_null(rec.key);
    cr_assert_arr_eq(rec.value, "hi", 2);
    cr_assert_eq(rec.header_count, 1);
    size_t cur = 0;
    logrep_header hd;
    cr_assert_eq(logrep_record_header_next(&rec, &cur, &hd), LOGREP_OK);
    cr_assert_eq(hd.key_len, 1);
    cr_assert_eq(hd.key[0], 'h');
    cr_assert_eq(hd.value_len, 1);
    cr_assert_eq(hd.value[0], 'x');
    cr_assert_eq(logrep_record_header_next(&rec, &cur, &hd), LOGREP_ERR__END);
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_ERR__END);
    logrep_batch_reader_free(r);
    free(buf);
}

Test(batch, stamping_keeps_crc_valid)
{
    size_t n;
    uint8_t *buf = tu_hex(worked_batch_hex, &n);
    cr_assert_eq(logrep_batch_stamp(buf, n, 42, 3), LOGREP_OK);
    static const uint8_t off42[8] = {0, 0, 0, 0, 0, 0, 0, 0x2a};
    static const uint8_t ep3[4] = {0, 0, 0, 3};
    cr_assert_arr_eq(buf, off42, 8);
    cr_assert_arr_eq(buf + 12, ep3, 4);
    cr_assert_eq(logrep_batch_verify(buf, n, NULL), LOGREP_OK);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), LOGREP_OK);
    cr_assert_eq(h.base_offset, 42);
    cr_assert_eq(logrep_batch_last_offset(&h), 43);
    cr_assert_eq(h.partition_leader_epoch, 3);
    free(buf);
}

Test(batch, kafkajs_gzip_log_append_time)
{
    size_t n;
    uint8_t *buf = tu_hex(kafkajs_gzip_hex, &n);
    cr_assert_eq(n, 125u);
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_reader_open(r, buf, n, &h), LOGREP_OK,
                 "%s", logrep_batch_reader_errmsg(r));
    cr_assert_eq(h.crc, 0xE4C324A5u);
    cr_assert_eq(h.attributes, 0x0009);
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_OK);
    cr_assert_arr_eq(rec.key, "key-0", 5);
    const char *v = "value-0-2020-08-14T17:13:08.682Z";
    cr_assert_eq(rec.value_len, (int32_t)strlen(v));
    cr_assert_arr_eq(rec.value, v, strlen(v));
    /* LogAppendTime: maxTimestamp, not baseTimestamp + delta. */
    cr_assert_eq(rec.timestamp, 1597425188809LL);
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_ERR__END);
    logrep_batch_reader_free(r);
    free(buf);
}

Test(batch, commit_marker_byte_identical)
{
    size_t n;
    uint8_t *want = tu_hex(commit_marker_hex, &n);
    cr_assert_eq(n, 78u);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    logrep_batch_builder_set_base(b, 100, 3);
    cr_assert_eq(logrep_batch_builder_set_producer(b, 1000, 2, -1), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add_control(b, T0, LOGREP_CONTROL_COMMIT, 7), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add(b, T0, NULL, -1, "x", 1, NULL, 0), LOGREP_ERR__MISUSE);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    cr_assert_eq(len, 78u);
    cr_assert_arr_eq(out, want, 78);

    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_reader_open(r, want, n, &h), LOGREP_OK);
    cr_assert_eq(h.attributes, 0x30);
    cr_assert_eq(h.crc, 0x809C88C4u);
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_OK);
    logrep_control c;
    cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_OK);
    cr_assert_eq(c.type, LOGREP_CONTROL_COMMIT);
    cr_assert_eq(c.coordinator_epoch, 7);
    cr_assert_eq(rec.offset, 100);
    logrep_batch_reader_free(r);
    logrep_batch_builder_free(b);
    free(want);
}

Test(batch, control_parse_rejects_short)
{
    logrep_record rec;
    memset(&rec, 0, sizeof rec);
    static const uint8_t key[4] = {0, 0, 0, 1};
    static const uint8_t val[5] = {0, 0, 0, 0, 7};
    rec.key = key;
    rec.key_len = 3;
    logrep_control c;
    cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_ERR__CORRUPT);
    rec.key_len = 4;
    rec.value = val;
    rec.value_len = 5;
    cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_ERR__CORRUPT);
    static const uint8_t negkey[4] = {0xff, 0xff, 0, 1};
    rec.key = negkey;
    cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_ERR__CORRUPT);
    /* Unknown types and higher versions are read, as Kafka does. */
    static const uint8_t k9[4] = {0, 5, 0, 9};
    rec.key = k9;
    cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_OK);
    cr_assert_eq(c.type, 9);
    cr_assert_eq(c.key_version, 5);
}

/* Builds a batch of n records with the given codec; returns a malloc'd copy. */
static uint8_t *build(int codec, int n, int64_t pid, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), LOGREP_OK);
    if (pid >= 0)
        cr_assert_eq(logrep_batch_builder_set_producer(b, pid, 1, INT32_MAX - 2), LOGREP_OK);
    for (int i = 0; i < n; i++) {
        char key[32], value[128];
        int kl = snprintf(key, sizeof key, "key-%d", i % 7);
        int vl = snprintf(value, sizeof value, "value %d: the quick brown fox jumps over the lazy dog", i);
        logrep_header hs[2] = {{(const uint8_t *)"trace", 5, (const uint8_t *)key, kl},
                               {(const uint8_t *)"null", 4, NULL, -1}};
        cr_assert_eq(logrep_batch_builder_add(b, T0 + i, i % 5 ? key : NULL, i % 5 ? kl : -1,
                                              value, vl, hs, (size_t)(i % 3)),
                     LOGREP_OK);
    }
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), LOGREP_OK);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

static void check_records(const uint8_t *buf, size_t len, int n, int codec)
{
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_reader_open(r, buf, len, &h), LOGREP_OK, "%s",
                 logrep_batch_reader_errmsg(r));
    cr_assert_eq(h.attributes & 7, codec);
    cr_assert_eq(h.record_count, n);
    cr_assert_eq(logrep_batch_reader_validate(r), LOGREP_OK);
    for (int i = 0; i < n; i++) {
        logrep_record rec;
        cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_OK, "record %d: %s", i,
                     logrep_batch_reader_errmsg(r));
        char value[128];
        int vl = snprintf(value, sizeof value, "value %d: the quick brown fox jumps over the lazy dog", i);
        cr_assert_eq(rec.offset, i);
        cr_assert_eq(rec.timestamp, T0 + i);
        cr_assert_eq(rec.value_len, vl);
        cr_assert_arr_eq(rec.value, value, (size_t)vl);
        cr_assert_eq(rec.key_len == -1, i % 5 == 0);
        cr_assert_eq(rec.header_count, i % 3);
        if (h.producer_id >= 0)
            cr_assert_eq(rec.sequence, logrep_seq_increment(INT32_MAX - 2, i));
    }
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_ERR__END);
    logrep_batch_reader_free(r);
}

Test(batch, every_codec_round_trips)
{
    for (int codec = 0; codec <= 4; codec++) {
        for (int n = 1; n <= 2001; n += 500) {
            size_t len;
            uint8_t *buf = build(codec, n, codec == 2 ? 77 : -1, &len);
            check_records(buf, len, n, codec);
            free(buf);
        }
    }
}

Test(batch, snappy_xerial_framing_is_read)
{
    /* Wrap the records in the xerial/snappy-java stream the Java client
     * writes (16-byte header, then length-prefixed raw blocks) and reseal. */
    size_t len;
    uint8_t *plain = build(LOGREP_COMPRESSION_NONE, 300, -1, &len);
    size_t rec_len = len - 61, half = rec_len / 2;
    lr_buf z;
    lr_buf_init(&z, &lr_alloc_default);
    static const uint8_t hdr[16] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
    cr_assert_eq(lr_buf_append(&z, plain, 61), 0);
    cr_assert_eq(lr_buf_append(&z, hdr, 16), 0);
    for (int part = 0; part < 2; part++) {
        const uint8_t *src = plain + 61 + (part ? half : 0);
        size_t n = part ? rec_len - half : half;
        size_t at = z.len;
        cr_assert_eq(lr_buf_append(&z, "\0\0\0\0", 4), 0);
        cr_assert_eq(lr_compress(LOGREP_COMPRESSION_SNAPPY, 0, src, n, &z, NULL), 0);
        lr_put_be32(z.data + at, (uint32_t)(z.len - at - 4));
    }
    lr_put_be32(z.data + 8, (uint32_t)(z.len - 12));
    z.data[22] = (uint8_t)((z.data[22] & ~7) | LOGREP_COMPRESSION_SNAPPY);
    lr_put_be32(z.data + 17, logrep_crc32c(0, z.data + 21, z.len - 21));
    check_records(z.data, z.len, 300, LOGREP_COMPRESSION_SNAPPY);
    /* A truncated chunk is corrupt, not a crash. */
    lr_put_be32(z.data + 8, (uint32_t)(z.len - 13));
    lr_put_be32(z.data + 17, logrep_crc32c(0, z.data + 21, z.len - 22));
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    cr_assert_eq(logrep_batch_reader_open(r, z.data, z.len - 1, NULL), LOGREP_ERR__CORRUPT);
    logrep_batch_reader_free(r);
    lr_buf_free(&z);
    free(plain);
}

Test(batch, lz4_frame_header_is_kafkas)
{
    size_t len;
    uint8_t *buf = build(LOGREP_COMPRESSION_LZ4, 10, -1, &len);
    static const uint8_t want[7] = {0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82};
    cr_assert_arr_eq(buf + 61, want, 7);
    free(buf);
}

Test(batch, decompression_bomb_is_limited)
{
    /* 8 MiB of zeros compresses to a few KB; a 1 MiB limit refuses it. */
    size_t big = 8u << 20;
    uint8_t *zeros = calloc(1, big);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "logrep.decompress.max.bytes", "1048576", NULL, 0), LOGREP_OK);
    for (int codec = 1; codec <= 4; codec++) {
        logrep_batch_builder_reset(b);
        cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), LOGREP_OK);
        cr_assert_eq(logrep_batch_builder_add(b, T0, NULL, -1, zeros, (int32_t)big, NULL, 0), LOGREP_OK);
        const uint8_t *out;
        size_t len;
        cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
        cr_assert_lt(len, big / 8);
        logrep_batch_reader *r;
        cr_assert_eq(logrep_batch_reader_new(conf, &r), LOGREP_OK);
        cr_assert_eq(logrep_batch_reader_open(r, out, len, NULL), LOGREP_ERR__LIMIT, "codec %d", codec);
        logrep_batch_reader_free(r);
        /* The default limit (64 MiB) reads it. */
        cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
        cr_assert_eq(logrep_batch_reader_open(r, out, len, NULL), LOGREP_OK, "codec %d", codec);
        logrep_batch_reader_free(r);
    }
    logrep_conf_free(conf);
    logrep_batch_builder_free(b);
    free(zeros);
}

/* Every prefix and many single-byte corruptions of valid batches give an
 * error or a valid reading, never a crash (ASan/UBSan watch). */
static void hostile(const uint8_t *good, size_t n)
{
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *p = malloc(cut ? cut : 1);
        memcpy(p, good, cut);
        logrep_err err = logrep_batch_reader_open(r, p, cut, NULL);
        cr_assert_neq(err, LOGREP_OK, "prefix %zu of %zu accepted", cut, n);
        free(p);
    }
    uint8_t *p = malloc(n);
    for (size_t pos = 0; pos < n; pos++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(p, good, n);
            p[pos] ^= (uint8_t)(1u << bit);
            logrep_err err = logrep_batch_reader_open(r, p, n, NULL);
            if (pos >= 21 && pos != 12) /* covered by the CRC */
                cr_assert_neq(err, LOGREP_OK, "flip at %zu accepted", pos);
            if (err == LOGREP_OK) {
                logrep_record rec;
                while (logrep_batch_reader_next(r, &rec) == LOGREP_OK)
                    ;
            }
        }
    }
    /* Corruptions with a recomputed CRC exercise the record parser: each
     * ends in a clear verdict, never more records than the header counts,
     * and some are caught (else nothing here was parsed). */
    int caught = 0;
    for (size_t pos = 61; pos < n; pos++) {
        for (int v = 0; v < 256; v += 51) {
            memcpy(p, good, n);
            p[pos] = (uint8_t)v;
            lr_put_be32(p + 17, logrep_crc32c(0, p + 21, n - 21));
            logrep_batch_header bh;
            logrep_err err = logrep_batch_reader_open(r, p, n, &bh);
            if (err == LOGREP_OK) {
                logrep_record rec;
                int32_t count = 0;
                while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
                    size_t cur = 0;
                    logrep_header h;
                    while (logrep_record_header_next(&rec, &cur, &h) == LOGREP_OK)
                        ;
                    count++;
                }
                cr_assert_leq(count, bh.record_count, "byte %zu = %d: %d records of %d", pos, v,
                              count, bh.record_count);
                cr_assert(err == LOGREP_ERR__END || err == LOGREP_ERR__CORRUPT ||
                              err == LOGREP_ERR__LIMIT,
                          "byte %zu = %d: %s", pos, v, logrep_err_name(err));
            }
            caught += err != LOGREP_ERR__END;
        }
    }
    cr_assert(n <= 61 || caught > 0, "no corruption past the header was caught");
    free(p);
    logrep_batch_reader_free(r);
}

Test(batch, hostile_input_golden)
{
    const char *vecs[] = {worked_batch_hex, kafkajs_gzip_hex, commit_marker_hex};
    for (int i = 0; i < 3; i++) {
        size_t n;
        uint8_t *buf = tu_hex(vecs[i], &n);
        hostile(buf, n);
        free(buf);
    }
}

Test(batch, hostile_input_every_codec)
{
    for (int codec = 0; codec <= 4; codec++) {
        size_t len;
        uint8_t *buf = build(codec, 12, 5, &len);
        hostile(buf, len);
        free(buf);
    }
}

Test(batch, header_checks)
{
    size_t n;
    uint8_t *buf = tu_hex(worked_batch_hex, &n);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_header_parse(buf, 10, &h), LOGREP_ERR__AGAIN);
    buf[16] = 1;
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), LOGREP_ERR__UNSUPPORTED);
    buf[16] = 2;
    lr_put_be32(buf + 8, 48);
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), LOGREP_ERR__CORRUPT);
    lr_put_be32(buf + 8, 0x7fffffff);
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), LOGREP_ERR__AGAIN);
    lr_put_be32(buf + 8, 77);
    buf[22] |= 7;
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), LOGREP_ERR__CORRUPT);
    free(buf);
}

Test(batch, builder_misuse_and_limits)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_ERR__MISUSE);
    cr_assert_eq(logrep_batch_builder_add(b, 0, "k", -2, NULL, -1, NULL, 0), LOGREP_ERR__INVALID_ARG);
    logrep_header bad = {NULL, -1, NULL, -1};
    cr_assert_eq(logrep_batch_builder_add(b, 0, NULL, -1, NULL, -1, &bad, 1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_batch_builder_set_compression(b, 9, 0), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_batch_builder_set_compression(b, LOGREP_COMPRESSION_GZIP, 42), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_batch_builder_add(b, 0, NULL, -1, NULL, -1, NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_set_compression(b, LOGREP_COMPRESSION_GZIP, 0), LOGREP_ERR__MISUSE);
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_add(b, 0, NULL, -1, NULL, -1, NULL, 0), LOGREP_ERR__MISUSE);
    logrep_batch_builder_reset(b);
    cr_assert_eq(logrep_batch_builder_count(b), 0);
    logrep_batch_builder_free(b);
}

Test(batch, allocation_failures_are_clean)
{
    /* Fail the Nth allocation for every N until a run succeeds; each
     * failure is a clean NOMEM and nothing leaks. */
    for (long fail = 1;; fail++) {
        tu_heap heap = {0, fail, 0, 0};
        logrep_allocator a = tu_heap_allocator(&heap);
        logrep_conf *conf = logrep_conf_new();
        cr_assert_eq(logrep_conf_set_allocator(conf, &a), LOGREP_OK);
        logrep_batch_builder *b = NULL;
        logrep_batch_reader *r = NULL;
        logrep_err err = logrep_batch_builder_new(conf, &b);
        if (!err)
            err = logrep_batch_builder_set_compression(b, LOGREP_COMPRESSION_ZSTD, 0);
        for (int i = 0; !err && i < 50; i++)
            err = logrep_batch_builder_add(b, T0, "k", 1, "vvvvvvvvvvvvvvvvvvvvvvv", 20, NULL, 0);
        const uint8_t *out;
        size_t len;
        if (!err)
            err = logrep_batch_builder_finish(b, &out, &len);
        if (!err)
            err = logrep_batch_reader_new(conf, &r);
        if (!err)
            err = logrep_batch_reader_open(r, out, len, NULL);
        logrep_batch_reader_free(r);
        logrep_batch_builder_free(b);
        logrep_conf_free(conf);
        cr_assert_eq(heap.live_blocks, 0, "leak after failing allocation %ld", fail);
        cr_assert_eq(heap.live_bytes, 0, "leak after failing allocation %ld", fail);
        if (!err)
            break;
        cr_assert_eq(err, LOGREP_ERR__NOMEM, "allocation %ld: %s", fail, logrep_err_name(err));
        cr_assert_lt(fail, 1000);
    }
}

/* Builds a 200-record batch with `codec` on `conf` and reads it back;
 * returns the first error. */
static logrep_err codec_round_trip(const logrep_conf *conf, int codec)
{
    logrep_batch_builder *b = NULL;
    logrep_batch_reader *r = NULL;
    logrep_err err = logrep_batch_builder_new(conf, &b);
    if (!err)
        err = logrep_batch_builder_set_compression(b, codec, 0);
    for (int i = 0; !err && i < 200; i++)
        err = logrep_batch_builder_add(b, T0 + i, "k", 1, "vvvvvvvvvvvvvvvvvvvvvvv", 20, NULL, 0);
    const uint8_t *out;
    size_t len;
    if (!err)
        err = logrep_batch_builder_finish(b, &out, &len);
    if (!err)
        err = logrep_batch_reader_new(conf, &r);
    if (!err)
        err = logrep_batch_reader_open(r, out, len, NULL);
    logrep_batch_reader_free(r);
    logrep_batch_builder_free(b);
    return err;
}

Test(batch, codec_contexts_use_the_instance_allocator)
{
    /* The compressor and decompressor contexts of gzip, lz4 and zstd come
     * from the conf's allocator: a compressed round trip makes several
     * more allocations than an uncompressed one (the compressed buffer is
     * one), and failing any of them is a clean NOMEM with nothing leaked. */
    long plain = 0;
    for (int codec = LOGREP_COMPRESSION_NONE; codec <= LOGREP_COMPRESSION_ZSTD; codec++) {
        if (codec == LOGREP_COMPRESSION_SNAPPY)
            continue; /* snappy's C API takes no allocator */
        tu_heap heap = {0};
        logrep_allocator a = tu_heap_allocator(&heap);
        logrep_conf *conf = logrep_conf_new();
        cr_assert_eq(logrep_conf_set_allocator(conf, &a), LOGREP_OK);
        cr_assert_eq(codec_round_trip(conf, codec), LOGREP_OK);
        cr_assert_eq(heap.live_blocks, 0);
        long total = heap.allocs;
        if (codec == LOGREP_COMPRESSION_NONE)
            plain = total;
        else
            cr_assert_geq(total, plain + 4, "%s: %ld allocations, uncompressed %ld",
                          logrep_compression_name(codec), total, plain);
        for (long fail = 1; fail <= total; fail++) {
            heap = (tu_heap){0, fail, 0, 0, 0, 0};
            logrep_err err = codec_round_trip(conf, codec);
            cr_assert_eq(err, LOGREP_ERR__NOMEM, "%s: allocation %ld of %ld: %s",
                         logrep_compression_name(codec), fail, total, logrep_err_name(err));
            cr_assert_eq(heap.live_blocks, 0, "%s: leak after allocation %ld",
                         logrep_compression_name(codec), fail);
        }
        logrep_conf_free(conf);
    }
}

Test(batch, leader_check_walks_every_record)
{
    /* A reader on a counting heap: an uncompressed batch is checked in
     * place, with no allocation at all. */
    tu_heap heap = {0, 0, 0, 0};
    logrep_allocator a = tu_heap_allocator(&heap);
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set_allocator(conf, &a), LOGREP_OK);
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(conf, &r), LOGREP_OK);
    for (int codec = 0; codec <= LOGREP_COMPRESSION_ZSTD; codec++) {
        logrep_batch_builder *b;
        cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
        cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), LOGREP_OK);
        for (int i = 0; i < 3; i++)
            logrep_batch_builder_add(b, T0 + 10 - i, "k", 1, "value", 5, NULL, 0);
        const uint8_t *out;
        size_t len;
        cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
        uint8_t buf[512];
        cr_assert_leq(len, sizeof buf);
        memcpy(buf, out, len);
        long before = heap.allocs;
        int64_t max_ts = 0;
        cr_assert_eq(logrep_batch_reader_check(r, buf, len, &max_ts), LOGREP_OK, "%s: %s",
                     logrep_compression_name(codec), logrep_batch_reader_errmsg(r));
        cr_assert_eq(max_ts, T0 + 10, "largest record timestamp");
        if (codec == LOGREP_COMPRESSION_NONE)
            cr_assert_eq(heap.allocs, before, "uncompressed check allocated");
        /* The count is outside the compressed area: 2 or 4 declared. */
        for (int32_t n = 2; n <= 4; n += 2) {
            lr_put_be32(buf + 57, (uint32_t)n);
            lr_put_be32(buf + 23, (uint32_t)(n - 1));
            lr_put_be32(buf + 17, logrep_crc32c(0, buf + 21, len - 21));
            cr_assert_eq(logrep_batch_reader_check(r, buf, len, NULL), LOGREP_ERR_CORRUPT_MESSAGE,
                         "%s count %d", logrep_compression_name(codec), n);
        }
        /* Garbage where the compressed records are. */
        if (codec != LOGREP_COMPRESSION_NONE) {
            memcpy(buf, out, len);
            memset(buf + 61 + (len - 61) / 2, 0x5a, (len - 61) / 2);
            cr_assert_eq(logrep_batch_reader_check(r, buf, len, NULL), LOGREP_ERR_CORRUPT_MESSAGE,
                         "%s garbage", logrep_compression_name(codec));
        }
        cr_assert_eq(logrep_batch_reader_check(r, buf, len - 1, NULL), LOGREP_ERR__INVALID_ARG);
        logrep_batch_builder_free(b);
    }
    logrep_batch_reader_free(r);
    logrep_conf_free(conf);
    cr_assert_eq(heap.live_blocks, 0);
}

/* ------------------------------------------------------------ partitioner */

Test(partitioner, keyed_records_use_murmur2)
{
    logrep_partitioner *p;
    cr_assert_eq(logrep_partitioner_new(NULL, 12, &p), LOGREP_OK);
    cr_assert_eq(logrep_partitioner_choose(p, "foobar", 6, 100), 6);
    cr_assert_eq(logrep_partitioner_choose(p, "kafka", 5, 100), 4);
    cr_assert_eq(logrep_partitioner_choose(p, "", 0, 100),
                 logrep_murmur2_partition("", 0, 12));
    logrep_partitioner_free(p);
}

Test(partitioner, keyless_sticks_for_a_batch_then_moves)
{
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "batch.size", "1000", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "logrep.random.seed", "7", NULL, 0), LOGREP_OK);
    logrep_partitioner *p;
    cr_assert_eq(logrep_partitioner_new(conf, 6, &p), LOGREP_OK);
    int counts[6] = {0};
    int32_t cur = logrep_partitioner_choose(p, NULL, 0, 100);
    int switches = 0;
    for (int i = 1; i < 6000; i++) {
        int32_t q = logrep_partitioner_choose(p, NULL, 0, 100);
        cr_assert(q >= 0 && q < 6);
        counts[q]++;
        if (q != cur) {
            /* Stays 10 records (1000 bytes) before moving. */
            cr_assert_eq(i % 10, 0, "switched at record %d", i);
            switches++;
        }
        cur = q;
    }
    cr_assert_gt(switches, 100);
    for (int i = 0; i < 6; i++)
        cr_assert_gt(counts[i], 500, "partition %d starved", i);
    /* Same seed, same choices. */
    logrep_partitioner *p2;
    cr_assert_eq(logrep_partitioner_new(conf, 6, &p2), LOGREP_OK);
    logrep_partitioner *p3;
    cr_assert_eq(logrep_partitioner_new(conf, 6, &p3), LOGREP_OK);
    for (int i = 0; i < 500; i++)
        cr_assert_eq(logrep_partitioner_choose(p2, NULL, 0, 100),
                     logrep_partitioner_choose(p3, NULL, 0, 100));
    logrep_partitioner_free(p);
    logrep_partitioner_free(p2);
    logrep_partitioner_free(p3);
    logrep_conf_free(conf);
}

Test(partitioner, avoids_unavailable_and_prefers_short_queues)
{
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "batch.size", "1", NULL, 0), LOGREP_OK);
    logrep_partitioner *p;
    cr_assert_eq(logrep_partitioner_new(conf, 4, &p), LOGREP_OK);
    cr_assert_eq(logrep_partitioner_set_load(p, 1, 0, 0), LOGREP_OK);
    cr_assert_eq(logrep_partitioner_set_load(p, 2, 1000000, 1), LOGREP_OK);
    cr_assert_eq(logrep_partitioner_set_load(p, 9, 0, 1), LOGREP_ERR__INVALID_ARG);
    int counts[4] = {0};
    for (int i = 0; i < 20000; i++)
        counts[logrep_partitioner_choose(p, NULL, 0, 10)]++;
    cr_assert_eq(counts[1], 0);
    cr_assert_lt(counts[2], 200, "heavily queued partition got %d", counts[2]);
    cr_assert_gt(counts[0], 8000);
    cr_assert_gt(counts[3], 8000);
    logrep_partitioner_free(p);
    /* ignore.keys applies the sticky logic to keyed records. */
    cr_assert_eq(logrep_conf_set(conf, "partitioner.ignore.keys", "true", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_conf_set(conf, "batch.size", "100000", NULL, 0), LOGREP_OK);
    cr_assert_eq(logrep_partitioner_new(conf, 50, &p), LOGREP_OK);
    int32_t first = logrep_partitioner_choose(p, "a", 1, 10);
    for (int i = 0; i < 100; i++) {
        char k[8];
        int n = snprintf(k, sizeof k, "%d", i);
        cr_assert_eq(logrep_partitioner_choose(p, k, (size_t)n, 10), first);
    }
    logrep_partitioner_free(p);
    logrep_conf_free(conf);
}
