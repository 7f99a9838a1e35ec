/* Partition log: append, read, reopen, Kafka's index and checkpoint rules. */
#include "log_testutil.h"

#include "base/endian.h"

static logrep_storage *lg_st;
static logrep_conf *lg_conf;

static void lg_setup(void)
{
    cr_assert_eq(logrep_storage_memory_new(NULL, &lg_st), 0);
    lg_conf = logrep_conf_new();
    cr_assert_eq(lg_st->mkdir(lg_st->ctx, "d"), 0);
}

static void lg_teardown(void)
{
    logrep_storage_free(lg_st);
    logrep_conf_free(lg_conf);
}

static void lg_set(const char *k, const char *v)
{
    cr_assert_eq(logrep_conf_set(lg_conf, k, v, NULL, 0), 0);
}

static logrep_log *lg_open(void)
{
    logrep_log *log;
    logrep_err err = logrep_log_open(lg_conf, lg_st, "d/orders-3", 1000, &log);
    cr_assert_eq(err, 0, "open: %s", logrep_err_name(err));
    return log;
}

TestSuite(log, .init = lg_setup, .fini = lg_teardown);

Test(log, append_assigns_offsets_and_epoch)
{
    logrep_log *log = lg_open();
    cr_assert_eq(logrep_log_end_offset(log), 0);
    size_t len;
    uint8_t *b = lt_batch(3, 10, 5000, -1, -1, &len);
    logrep_log_append_info info;
    cr_assert_eq(logrep_log_append_leader(log, b, len, 7, 6000, &info), 0);
    cr_assert_eq(info.first_offset, 0);
    cr_assert_eq(info.last_offset, 2);
    cr_assert_eq(info.records, 3);
    logrep_batch_header h;
    logrep_batch_header_parse(b, len, &h);
    cr_assert_eq(h.partition_leader_epoch, 7);
    cr_assert_eq(logrep_batch_verify(b, len, NULL), 0);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 7, 6000, &info), 0);
    cr_assert_eq(info.first_offset, 3);
    cr_assert_eq(logrep_log_end_offset(log), 6);
    int32_t e;
    int64_t s;
    cr_assert_eq(logrep_log_epoch_entry(log, 0, &e, &s), 0);
    cr_assert_eq(e, 7);
    cr_assert_eq(s, 0);
    cr_assert_eq(logrep_log_epoch_entry(log, 1, &e, &s), LOGREP_ERR__END);
    free(b);
    cr_assert_eq(lt_check_log(log, lg_st), 2);
    cr_assert_eq(logrep_log_close(log), 0);

    log = lg_open();
    cr_assert_eq(logrep_log_end_offset(log), 6);
    cr_assert(logrep_log_recovery_info(log)->clean);
    cr_assert_eq(lt_check_log(log, lg_st), 2);
    logrep_log_close(log);
}

Test(log, rejects_bad_batches)
{
    logrep_log *log = lg_open();
    size_t len;
    uint8_t *b = lt_batch(2, 10, 1, -1, -1, &len);
    b[len - 1] ^= 1;
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL), LOGREP_ERR_CORRUPT_MESSAGE);
    b[len - 1] ^= 1;
    cr_assert_eq(logrep_log_append_leader(log, b, len - 1, 0, 1, NULL),
                 LOGREP_ERR_CORRUPT_MESSAGE);
    b[16] = 1;
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL),
                 LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT);
    b[16] = 2;
    cr_assert_eq(logrep_log_append_leader(log, b, len, -1, 1, NULL), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(logrep_log_end_offset(log), 0);
    logrep_log_close(log);
    lg_set("max.message.bytes", "50");
    log = lg_open();
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL), LOGREP_ERR_MESSAGE_TOO_LARGE);
    logrep_log_close(log);
    free(b);
}

/* docs/storage.md (Files): the first append into a segment gets no index entry;
 * an entry pairs a batch's last offset with its start position. */
Test(log, kafka_index_rules)
{
    lg_set("index.interval.bytes", "100");
    logrep_log *log = lg_open();
    size_t len;
    uint8_t *b = lt_batch(4, 60, 100, -1, -1, &len); /* > 100 bytes */
    uint64_t positions[4];
    for (int i = 0; i < 4; i++) {
        positions[i] = (uint64_t)i * len;
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, NULL), 0);
    }
    cr_assert_eq(logrep_log_close(log), 0);
    size_t n;
    uint8_t *idx = lt_read(lg_st, "d/orders-3/00000000000000000000.index", &n);
    cr_assert_not_null(idx);
    cr_assert_eq(n, 3 * 8, "entries: %zu bytes", n); /* trimmed: no preallocation */
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(lr_get_be32(idx + 8 * i), (uint32_t)(4 * (i + 1) + 3)); /* last offset */
        cr_assert_eq(lr_get_be32(idx + 8 * i + 4), (uint32_t)positions[i + 1]);
    }
    uint8_t *ti = lt_read(lg_st, "d/orders-3/00000000000000000000.timeindex", &n);
    cr_assert_not_null(ti);
    cr_assert_eq(n % 12, 0);
    cr_assert_geq(n, 12);
    /* The last entry carries the segment's max timestamp (103). */
    cr_assert_eq((int64_t)lr_get_be64(ti + n - 12), 103);
    free(idx);
    free(ti);
    free(b);
}

Test(log, index_matches_recovery_rebuild)
{
    lg_set("index.interval.bytes", "300");
    logrep_log *log = lg_open();
    for (int i = 0; i < 40; i++)
        lt_append(log, 1 + i % 5, 20 + (size_t)i * 7, 1000 + i, 0);
    cr_assert_eq(logrep_log_close(log), 0);
    size_t n1, n2, t1, t2;
    uint8_t *a = lt_read(lg_st, "d/orders-3/00000000000000000000.index", &n1);
    uint8_t *ta = lt_read(lg_st, "d/orders-3/00000000000000000000.timeindex", &t1);
    /* Delete the index: Kafka rebuilds a segment without one. */
    cr_assert_eq(lg_st->remove(lg_st->ctx, "d/orders-3/00000000000000000000.index"), 0);
    log = lg_open();
    cr_assert_eq(logrep_log_recovery_info(log)->segments_recovered, 1);
    cr_assert_eq(logrep_log_close(log), 0);
    uint8_t *b = lt_read(lg_st, "d/orders-3/00000000000000000000.index", &n2);
    uint8_t *tb = lt_read(lg_st, "d/orders-3/00000000000000000000.timeindex", &t2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(a, b, n1), 0);
    cr_assert_eq(t1, t2);
    cr_assert_eq(memcmp(ta, tb, t1), 0);
    free(a);
    free(b);
    free(ta);
    free(tb);
}

Test(log, checkpoint_formats_byte_exact)
{
    logrep_log *log = lg_open();
    lt_append(log, 2, 10, 1, 0);
    lt_append(log, 3, 10, 2, 2);
    lt_append(log, 1, 10, 3, 5);
    uint8_t id[16];
    for (int i = 0; i < 16; i++)
        id[i] = (uint8_t)(i * 17);
    cr_assert_eq(logrep_log_set_topic_id(log, id), 0);
    cr_assert_eq(logrep_log_close(log), 0);
    size_t n;
    char *t = (char *)lt_read(lg_st, "d/orders-3/leader-epoch-checkpoint", &n);
    cr_assert_str_eq(t, "0\n3\n0 0\n2 2\n5 5\n");
    free(t);
    t = (char *)lt_read(lg_st, "d/orders-3/recovery-point-offset-checkpoint", &n);
    cr_assert_str_eq(t, "0\n1\norders 3 6\n");
    free(t);
    t = (char *)lt_read(lg_st, "d/orders-3/log-start-offset-checkpoint", &n);
    cr_assert_str_eq(t, "0\n1\norders 3 0\n");
    free(t);
    t = (char *)lt_read(lg_st, "d/orders-3/partition.metadata", &n);
    /* bytes 00 11 22 ... ff in URL-safe base64 without padding */
    cr_assert_str_eq(t, "version: 0\ntopic_id: ABEiM0RVZneImaq7zN3u_w");
    free(t);
    cr_assert_eq(lt_file_size(lg_st, "d/orders-3/leader-epoch-checkpoint.tmp"), -1);
    log = lg_open();
    uint8_t got[16];
    cr_assert_eq(logrep_log_topic_id(log, got), 0);
    cr_assert_eq(memcmp(got, id, 16), 0);
    logrep_log_close(log);
}

Test(log, malformed_checkpoints)
{
    logrep_log *log = lg_open();
    lt_append(log, 2, 10, 1, 0);
    logrep_log_close(log);
    lt_write(lg_st, "d/orders-3/leader-epoch-checkpoint", "0\n2\n0 0\n", 8);
    cr_assert_eq(logrep_log_open(lg_conf, lg_st, "d/orders-3", 0, &log), LOGREP_ERR__CORRUPT);
    lt_write(lg_st, "d/orders-3/leader-epoch-checkpoint", "1\n0\n", 4);
    cr_assert_eq(logrep_log_open(lg_conf, lg_st, "d/orders-3", 0, &log), LOGREP_ERR__CORRUPT);
    lt_write(lg_st, "d/orders-3/leader-epoch-checkpoint", "", 0); /* empty: no entries */
    lt_write(lg_st, "d/orders-3/partition.metadata",
             "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", 43); /* all-zero id */
    cr_assert_eq(logrep_log_open(lg_conf, lg_st, "d/orders-3", 0, &log), LOGREP_ERR__CORRUPT);
    lg_st->remove(lg_st->ctx, "d/orders-3/partition.metadata");
    /* A malformed recovery point is ignored: everything is recovered. */
    lt_write(lg_st, "d/orders-3/recovery-point-offset-checkpoint", "0\nx\n", 4);
    cr_assert_eq(logrep_log_open(lg_conf, lg_st, "d/orders-3", 0, &log), 0);
    cr_assert_eq(logrep_log_recovery_info(log)->segments_recovered, 1);
    cr_assert_eq(logrep_log_end_offset(log), 2);
    logrep_log_close(log);
}

Test(log, read_slices)
{
    logrep_log *log = lg_open();
    size_t len;
    uint8_t *b = lt_batch(5, 100, 1, -1, -1, &len);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL), 0);
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(log, 7, 3 * len, INT64_MAX, 1, &sl), 0);
    cr_assert_eq(sl.position, len); /* the batch holding 7 starts at 5 */
    cr_assert_eq(sl.length, 3 * len);
    cr_assert_eq(sl.first_offset, 5);
    cr_assert_eq(sl.next_offset, 20);
    /* high watermark bound: only batches ending below 12 */
    cr_assert_eq(logrep_log_read(log, 0, 1 << 20, 12, 1, &sl), 0);
    cr_assert_eq(sl.length, 2 * len);
    cr_assert_eq(sl.next_offset, 10);
    /* max_bytes below one batch: min_one decides */
    cr_assert_eq(logrep_log_read(log, 0, 10, INT64_MAX, 1, &sl), 0);
    cr_assert_eq(sl.length, len);
    cr_assert_eq(logrep_log_read(log, 0, 10, INT64_MAX, 0, &sl), 0);
    cr_assert_eq(sl.length, 0);
    cr_assert_eq(logrep_log_read(log, 50, 10, INT64_MAX, 0, &sl), 0);
    cr_assert_eq(sl.length, 0);
    cr_assert_eq(logrep_log_read(log, 51, 10, INT64_MAX, 0, &sl), LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    free(b);
    logrep_log_close(log);
}

Test(log, roll_by_size_and_read_across)
{
    lg_set("segment.bytes", "1000");
    logrep_log *log = lg_open();
    size_t len;
    uint8_t *b = lt_batch(2, 150, 1, -1, -1, &len); /* ~ 250 bytes */
    for (int i = 0; i < 20; i++)
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 1, NULL), 0);
    cr_assert_gt(logrep_log_segment_count(log), 4);
    cr_assert_eq(lt_check_log(log, lg_st), 20);
    int32_t nseg = logrep_log_segment_count(log);
    cr_assert_eq(logrep_log_close(log), 0);
    log = lg_open();
    cr_assert_eq(logrep_log_segment_count(log), nseg);
    cr_assert_eq(logrep_log_end_offset(log), 40);
    cr_assert_eq(lt_check_log(log, lg_st), 20);
    /* a batch larger than a segment */
    uint8_t *big = lt_batch(1, 1200, 1, -1, -1, &len);
    cr_assert_eq(logrep_log_append_leader(log, big, len, 0, 1, NULL),
                 LOGREP_ERR_RECORD_LIST_TOO_LARGE);
    free(big);
    free(b);
    logrep_log_close(log);
}

Test(log, roll_by_time)
{
    lg_set("segment.ms", "100");
    logrep_log *log = lg_open();
    lt_append(log, 1, 10, 1000, 0);
    lt_append(log, 1, 10, 1050, 0);
    cr_assert_eq(logrep_log_segment_count(log), 1);
    lt_append(log, 1, 10, 1101, 0); /* 1101 - 1000 > 100 */
    cr_assert_eq(logrep_log_segment_count(log), 2);
    logrep_log_close(log);
}

Test(log, truncate_and_epochs)
{
    lg_set("segment.bytes", "600");
    logrep_log *log = lg_open();
    for (int i = 0; i < 12; i++)
        lt_append(log, 2, 100, i, i < 4 ? 1 : (i < 8 ? 3 : 4));
    cr_assert_eq(logrep_log_end_offset(log), 24);
    int32_t e;
    int64_t o;
    logrep_log_epoch_end_offset(log, 3, &e, &o);
    cr_assert_eq(e, 3);
    cr_assert_eq(o, 16);
    logrep_log_epoch_end_offset(log, 2, &e, &o);
    cr_assert_eq(e, 1);
    cr_assert_eq(o, 8);
    logrep_log_epoch_end_offset(log, 4, &e, &o);
    cr_assert_eq(o, 24);
    logrep_log_epoch_end_offset(log, 0, &e, &o);
    cr_assert_eq(e, 0);
    cr_assert_eq(o, 0);
    logrep_log_epoch_end_offset(log, 9, &e, &o);
    cr_assert_eq(e, -1);
    cr_assert_eq(o, -1);
    logrep_log_epoch_end_offset(log, -1, &e, &o);
    cr_assert_eq(o, -1);

    cr_assert_eq(logrep_log_truncate(log, 11), 0); /* inside batch 10..11 */
    cr_assert_eq(logrep_log_end_offset(log), 10);
    cr_assert_eq(logrep_log_latest_epoch(log), 3);
    cr_assert_eq(lt_check_log(log, lg_st), 5);
    cr_assert_eq(lt_append(log, 1, 10, 50, 6), 10);
    cr_assert_eq(logrep_log_close(log), 0);
    log = lg_open();
    cr_assert_eq(logrep_log_end_offset(log), 11);
    cr_assert_eq(logrep_log_latest_epoch(log), 6);
    cr_assert_eq(lt_check_log(log, lg_st), 6);
    /* no-op truncation still drops an epoch assigned beyond the end */
    cr_assert_eq(logrep_log_epoch_assign(log, 7, 11), 0);
    cr_assert_eq(logrep_log_truncate(log, 11), 0);
    cr_assert_eq(logrep_log_latest_epoch(log), 6);
    logrep_log_close(log);
}

Test(log, advance_start_and_retention)
{
    lg_set("segment.bytes", "600");
    lg_set("retention.ms", "1000");
    logrep_log *log = lg_open();
    for (int i = 0; i < 12; i++)
        lt_append(log, 2, 100, 10000 + i * 100, i / 3);
    int32_t nseg = logrep_log_segment_count(log);
    cr_assert_gt(nseg, 3);
    cr_assert_eq(logrep_log_advance_start(log, 5), 0);
    cr_assert_eq(logrep_log_start_offset(log), 5);
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(log, 4, 100, INT64_MAX, 1, &sl), LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    cr_assert_eq(logrep_log_advance_start(log, 99), LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    int32_t e;
    int64_t s;
    cr_assert_eq(logrep_log_epoch_entry(log, 0, &e, &s), 0);
    cr_assert_eq(e, 0);
    cr_assert_eq(s, 5);
    int32_t deleted;
    cr_assert_eq(logrep_log_retention(log, 10000 + 500, &deleted), 0);
    /* segments entirely below the start go */
    int32_t after_start = logrep_log_segment_count(log);
    cr_assert_eq(logrep_log_retention(log, 10000 + 1100 + 1000 + 1, &deleted), 0);
    cr_assert_gt(deleted, 0);
    cr_assert_eq(logrep_log_segment_count(log), after_start - deleted);
    cr_assert_gt(logrep_log_start_offset(log), 5);
    cr_assert_eq(logrep_log_retention(log, INT64_MAX / 2, &deleted), 0);
    cr_assert_eq(logrep_log_segment_count(log), 1); /* the active one stays */
    int64_t start = logrep_log_start_offset(log);
    cr_assert_eq(logrep_log_close(log), 0);
    log = lg_open();
    cr_assert_eq(logrep_log_start_offset(log), start);
    cr_assert_eq(logrep_log_end_offset(log), 24);
    logrep_log_close(log);
}

Test(log, retention_bytes)
{
    lg_set("segment.bytes", "600");
    lg_set("retention.bytes", "1200");
    logrep_log *log = lg_open();
    for (int i = 0; i < 12; i++)
        lt_append(log, 2, 100, 1, 0);
    int32_t deleted;
    cr_assert_eq(logrep_log_retention(log, 1, &deleted), 0);
    cr_assert_gt(deleted, 0);
    cr_assert_leq(logrep_log_size(log), 1200 + 600);
    cr_assert_geq(logrep_log_size(log), 1200 - 600);
    cr_assert_eq(lt_check_log(log, lg_st) > 0, 1);
    logrep_log_close(log);
}

Test(log, offsets_by_time)
{
    lg_set("index.interval.bytes", "50");
    logrep_log *log = lg_open();
    for (int i = 0; i < 10; i++)
        lt_append(log, 3, 30, 1000 + i * 10, 0); /* ts 1000+10i .. +2 */
    int64_t off, ts;
    cr_assert_eq(logrep_log_offset_for_time(log, 1000, &off, &ts), 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(logrep_log_offset_for_time(log, 1041, &off, &ts), 0);
    cr_assert_eq(off, 13);
    cr_assert_eq(ts, 1041);
    cr_assert_eq(logrep_log_offset_for_time(log, 1043, &off, &ts), 0);
    cr_assert_eq(off, 15);
    cr_assert_eq(ts, 1050);
    cr_assert_eq(logrep_log_offset_for_time(log, 2000, &off, &ts), LOGREP_ERR__NOENT);
    cr_assert_eq(logrep_log_offset_for_time(log, LOGREP_OFFSET_LATEST, &off, &ts), 0);
    cr_assert_eq(off, 30);
    cr_assert_eq(logrep_log_offset_for_time(log, LOGREP_OFFSET_EARLIEST, &off, &ts), 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(logrep_log_offset_for_time(log, LOGREP_OFFSET_MAX_TIMESTAMP, &off, &ts), 0);
    cr_assert_eq(off, 29);
    cr_assert_eq(ts, 1092);
    logrep_log_close(log);
}

Test(log, follower_append)
{
    logrep_log *log = lg_open();
    size_t len;
    uint8_t *b = lt_batch(2, 10, 1, -1, -1, &len);
    logrep_batch_stamp(b, len, 0, 4);
    cr_assert_eq(logrep_log_append_follower(log, b, len, 1, NULL), 0);
    cr_assert_eq(logrep_log_append_follower(log, b, len, 1, NULL), LOGREP_ERR_OFFSET_OUT_OF_RANGE);
    logrep_batch_stamp(b, len, 10, 6); /* a gap is allowed */
    cr_assert_eq(logrep_log_append_follower(log, b, len, 1, NULL), 0);
    cr_assert_eq(logrep_log_end_offset(log), 12);
    int32_t e;
    int64_t s;
    cr_assert_eq(logrep_log_epoch_entry(log, 1, &e, &s), 0);
    cr_assert_eq(e, 6);
    cr_assert_eq(s, 10);
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(log, 5, 1 << 20, INT64_MAX, 1, &sl), 0);
    cr_assert_eq(sl.first_offset, 10);
    free(b);
    logrep_log_close(log);
}

Test(log, producer_snapshot_roundtrip)
{
    lg_set("segment.bytes", "600");
    logrep_log *log = lg_open();
    for (int i = 0; i < 6; i++) {
        size_t len;
        uint8_t *b = lt_batch(2, 100, 5000 + i, 1000, 2 * i, &len);
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 5000, NULL), 0);
        free(b);
    }
    logrep_producer_entry pe;
    cr_assert_eq(logrep_log_producer(log, 1000, &pe), 0);
    cr_assert_eq(pe.last_sequence, 11);
    cr_assert_eq(pe.last_offset, 11);
    cr_assert_eq(pe.offset_delta, 1);
    int32_t fs[5], ls[5];
    int64_t lo[5];
    int n;
    cr_assert_eq(logrep_log_producer_batches(log, 1000, fs, ls, lo, &n), 0);
    cr_assert_eq(n, 5);
    cr_assert_eq(fs[0], 10);
    cr_assert_eq(fs[4], 2);
    cr_assert_eq(logrep_log_close(log), 0);
    size_t sn;
    uint8_t *snap = lt_read(lg_st, "d/orders-3/00000000000000000012.snapshot", &sn);
    cr_assert_not_null(snap);
    cr_assert_eq(sn, 56);
    free(snap);
    log = lg_open();
    cr_assert_eq(logrep_log_producer(log, 1000, &pe), 0);
    cr_assert_eq(pe.last_sequence, 11);
    cr_assert_eq(logrep_log_producer(log, 1001, &pe), LOGREP_ERR__NOENT);
    /* truncation rebuilds the state from an older snapshot plus the log */
    cr_assert_eq(logrep_log_truncate(log, 6), 0);
    cr_assert_eq(logrep_log_producer(log, 1000, &pe), 0);
    cr_assert_eq(pe.last_sequence, 5);
    logrep_log_close(log);
}

/* The snapshot examples of docs/storage.md (Producer state). */
Test(log, snapshot_format_vectors)
{
    uint8_t buf[64];
    size_t need;
    cr_assert_eq(logrep_producer_snapshot_encode(NULL, 0, buf, sizeof buf, &need), 0);
    static const uint8_t empty[] = {0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0, 0, 0, 0};
    cr_assert_eq(need, 10);
    cr_assert_eq(memcmp(buf, empty, 10), 0);
    logrep_producer_entry e = {1000, 2, 9, 41, 4, 0x18bcfe56800LL, -1, -1};
    cr_assert_eq(logrep_producer_snapshot_encode(&e, 1, buf, sizeof buf, &need), 0);
    cr_assert_eq(need, 56);
    static const uint8_t head[] = {0x00, 0x01, 0x44, 0xab, 0xb9, 0x3e, 0, 0, 0, 1};
    cr_assert_eq(memcmp(buf, head, 10), 0);
    logrep_producer_entry back;
    size_t n;
    cr_assert_eq(logrep_producer_snapshot_decode(buf, 56, &back, 1, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_eq(back.timestamp, e.timestamp);
    buf[20] ^= 1;
    cr_assert_eq(logrep_producer_snapshot_decode(buf, 56, &back, 1, &n), LOGREP_ERR__CORRUPT);
    cr_assert_eq(logrep_producer_snapshot_decode(buf, 55, &back, 1, &n), LOGREP_ERR__CORRUPT);
}

/* An epoch whose checkpoint cannot be written is not assigned: the cache
 * is as before (a new leader that fails here does not lead, and its log
 * must not claim the epoch), and the same assign succeeds once the disk
 * works. Also when the assign replaces entries (a lower start). */
Test(log, epoch_assign_that_cannot_be_written_changes_nothing)
{
    logrep_storage *crash;
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, &crash), 0);
    cr_assert_eq(crash->mkdir(crash->ctx, "d"), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(lg_conf, crash, "d/orders-3", 1000, &log), 0);
    lt_append(log, 3, 10, 1, 2);
    lt_append(log, 3, 10, 2, 4);
    cr_assert_eq(logrep_log_latest_epoch(log), 4);
    for (int k = 0; k < 2; k++) {
        int32_t epoch = k == 0 ? 7 : 3;     /* on top; then over the last entry */
        int64_t start = k == 0 ? 6 : 3;
        cr_assert_eq(logrep_storage_crash_inject(crash, LOGREP_STORAGE_OP_WRITE, 1,
                                                 LOGREP_ERR__NOSPACE, 1),
                     LOGREP_OK);
        cr_assert_neq(logrep_log_epoch_assign(log, epoch, start), LOGREP_OK);
        cr_assert_eq(logrep_log_latest_epoch(log), 4, "epoch %d not assigned", epoch);
        int32_t e;
        int64_t so;
        cr_assert_eq(logrep_log_epoch_entry(log, 1, &e, &so), LOGREP_OK);
        cr_assert_eq(e, 4);
        cr_assert_eq(so, 3);
        cr_assert_eq(logrep_log_epoch_entry(log, 2, &e, &so), LOGREP_ERR__END);
        cr_assert_eq(logrep_storage_crash_inject(crash, 0, 0, LOGREP_OK, 0), LOGREP_OK);
    }
    cr_assert_eq(logrep_log_epoch_assign(log, 7, 6), LOGREP_OK);
    cr_assert_eq(logrep_log_latest_epoch(log), 7);
    logrep_log_close(log);
    logrep_storage_free(crash);
}
