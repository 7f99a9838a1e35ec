/* Snapshots in pieces and the log below them (quorum/qsnap.h): FetchSnapshot
 * chunks reassemble the same bytes; a receiver refuses gaps, overlaps,
 * oversize and bad files and never leaves a .part; the metadata log is
 * trimmed only below a whole snapshot; an image goes leader -> file ->
 * chunks -> follower -> image; allocation failures are clean. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/log.h>
#include <logrep/storage.h>

#include "controller/md_snapshot.h"
#include "lib/ctl_testutil.h"
#include "lib/quorum_testutil.h"
#include "lib/testutil.h"
#include "quorum/qbatch.h"
#include "quorum/qlog.h"
#include "quorum/qsnap_int.h"

#define LDIR "leader/__cluster_metadata-0"
#define FDIR "follower/__cluster_metadata-0"

static logrep_storage *two_dirs(int crash)
{
    logrep_storage *st;
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "leader"), 0);
    cr_assert_eq(st->mkdir(st->ctx, LDIR), 0);
    cr_assert_eq(st->mkdir(st->ctx, "follower"), 0);
    cr_assert_eq(st->mkdir(st->ctx, FDIR), 0);
    return st;
}

/* n seeded records of 1..300 bytes; the file's size in *size. */
static void write_snap(logrep_storage *st, const char *dir, lr_qsnap_id id, uint64_t seed,
                       size_t n, uint64_t *size)
{
    uint8_t rec[300];
    uint64_t s = seed | 1;
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, dir, id, 5, 1000, &w), 0);
    for (size_t i = 0; i < n; i++) {
        size_t len = 1 + (size_t)(qt_rng_next(&s) % 300);
        for (size_t k = 0; k < len; k++)
            rec[k] = (uint8_t)qt_rng_next(&s);
        cr_assert_eq(lr_qsnap_writer_add(w, rec, len), 0);
    }
    cr_assert_eq(lr_qsnap_writer_finish(w, size), 0);
    lr_qsnap_writer_free(w);
}

/* The whole of dir/<id>.checkpoint by chunks of `chunk` bytes. */
static uint8_t *fetch_all(logrep_storage *st, const char *dir, lr_qsnap_id id, size_t chunk,
                          uint64_t *total)
{
    uint8_t *all = NULL;
    uint64_t pos = 0;
    for (;;) {
        uint8_t buf[70000];
        size_t n;
        cr_assert_leq(chunk, sizeof buf);
        cr_assert_eq(lr_qsnap_read_chunk(st, dir, id, pos, buf, chunk, &n, total), 0);
        if (!all)
            all = malloc(*total + 1);
        cr_assert_leq(n, chunk);
        if (!n)
            break;
        memcpy(all + pos, buf, n);
        pos += n;
    }
    cr_assert_eq(pos, *total);
    return all;
}

/* A snapshot of n seeded records written in LDIR; its bytes, *size. */
static uint8_t *leader_snap(logrep_storage *st, lr_qsnap_id id, uint64_t seed, size_t n,
                            uint64_t *size)
{
    uint64_t total;
    write_snap(st, LDIR, id, seed, n, size);
    uint8_t *src = fetch_all(st, LDIR, id, 65536, &total);
    cr_assert_eq(total, *size);
    return src;
}

Test(quorum_snapxfer, chunks_reassemble_the_same_bytes)
{
    logrep_storage *st = two_dirs(0);
    lr_qsnap_id id = {1000, 3};
    uint64_t size, total;
    write_snap(st, LDIR, id, 1, 3000, &size);
    uint8_t *whole = fetch_all(st, LDIR, id, 70000, &total);
    cr_assert_eq(total, size);
    static const size_t chunks[] = {7, 1000, 4096, 65536};
    for (size_t i = 0; i < 4; i++) {
        uint8_t *got = fetch_all(st, LDIR, id, chunks[i], &total);
        cr_assert(total == size && memcmp(got, whole, size) == 0, "chunks of %zu", chunks[i]);
        free(got);
    }
    size_t n;
    uint8_t b[4];
    cr_assert_eq(lr_qsnap_read_chunk(st, LDIR, id, size, b, 4, &n, &total), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(lr_qsnap_read_chunk(st, LDIR, id, size + 1, b, 4, &n, &total),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qsnap_read_chunk(st, LDIR, (lr_qsnap_id){1000, 4}, 0, b, 4, &n, &total),
                 LOGREP_ERR__NOENT);
    free(whole);
    logrep_storage_free(st);
}

static int into_log(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    return tc_sink(ctx, offset, rec, len);
}

static int no_part(void *ctx, const char *name)
{
    lr_qsnap_id id;
    if (lr_qsnap_parse_name(name, &id) == 2)
        ++*(int *)ctx;
    return 0;
}

static int parts_in(logrep_storage *st, const char *dir)
{
    int n = 0;
    cr_assert_eq(st->list(st->ctx, dir, no_part, &n), 0);
    return n;
}

/* Random chunk sizes with a gap, an overlap and an oversize attempt
 * thrown in; every refusal changes nothing. */
Test(quorum_snapxfer, receiver_reassembles_and_refuses_gaps_overlaps_oversize)
{
    logrep_storage *st = two_dirs(0);
    lr_qsnap_id id = {777, 2};
    uint64_t size, total;
    uint8_t *src = leader_snap(st, id, 2, 2500, &size);
    lr_qsnap_recv *r;
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, id, size, &r), 0);
    uint64_t s = 99;
    int refusals = 0;
    while (lr_qsnap_recv_position(r) < size) {
        uint64_t pos = lr_qsnap_recv_position(r);
        size_t len = 1 + (size_t)(qt_rng_next(&s) % 20000);
        if (len > size - pos)
            len = (size_t)(size - pos);
        switch (qt_rng_next(&s) % 8) {
        case 0:
            cr_assert_eq(lr_qsnap_recv_append(r, pos + 1, src + pos + 1, len - 1 ? len - 1 : 1),
                         LOGREP_ERR__INVALID_ARG, "gap");
            refusals++;
            break;
        case 1:
            if (pos) {
                cr_assert_eq(lr_qsnap_recv_append(r, pos - 1, src + pos - 1, len),
                             LOGREP_ERR__INVALID_ARG, "overlap");
                refusals++;
            }
            break;
        case 2: /* refused before a byte is read */
            cr_assert_eq(lr_qsnap_recv_append(r, pos, src + pos, (size_t)(size - pos) + 1),
                         LOGREP_ERR__LIMIT, "past the size");
            refusals++;
            break;
        default:
            break;
        }
        cr_assert_eq(lr_qsnap_recv_position(r), pos, "a refusal moved the position");
        cr_assert_eq(lr_qsnap_recv_append(r, pos, src + pos, len), 0);
    }
    cr_assert_gt(refusals, 10);
    cr_assert_eq(lr_qsnap_recv_append(r, size, src, 1), LOGREP_ERR__LIMIT);
    cr_assert_eq(lr_qsnap_recv_append(r, size, src, 0), 0);
    cr_assert_eq(parts_in(st, FDIR), 1);
    lr_qsnap_info info;
    cr_assert_eq(lr_qsnap_recv_finish(r, &info), 0);
    cr_assert(info.n_records == 2500 && info.size == size);
    cr_assert_eq(lr_qsnap_recv_finish(r, NULL), LOGREP_ERR__INVALID_ARG, "finished twice");
    lr_qsnap_recv_free(r);
    cr_assert_eq(parts_in(st, FDIR), 0);
    uint8_t *got = fetch_all(st, FDIR, id, 65536, &total);
    cr_assert(total == size && memcmp(got, src, size) == 0);
    tc_log a = {0}, b = {0};
    cr_assert_eq(lr_qsnap_read(NULL, st, LDIR, id, into_log, &a, NULL), 0);
    cr_assert_eq(lr_qsnap_read(NULL, st, FDIR, id, into_log, &b, NULL), 0);
    cr_assert(a.n == 2500 && b.n == 2500 && a.len == b.len && !memcmp(a.data, b.data, a.len));
    tc_log_free(&a);
    tc_log_free(&b);
    free(got);
    free(src);
    logrep_storage_free(st);
}

/* Sends src (size bytes) to FDIR as id in one piece; finish's result. */
static int send_whole(logrep_storage *st, lr_qsnap_id id, const uint8_t *src, uint64_t size,
                      lr_qsnap_info *info)
{
    lr_qsnap_recv *r;
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, id, size, &r), 0);
    cr_assert_eq(lr_qsnap_recv_append(r, 0, src, size), 0);
    int err = lr_qsnap_recv_finish(r, info);
    lr_qsnap_recv_free(r);
    cr_assert_eq(parts_in(st, FDIR), 0, "a .part left behind");
    return err;
}

Test(quorum_snapxfer, receiver_refuses_bad_files_and_leaves_nothing)
{
    logrep_storage *st = two_dirs(1);
    lr_qsnap_id id = {40, 6};
    uint64_t size;
    uint8_t *src = leader_snap(st, id, 3, 50, &size);
    lr_qsnap_info info;
    lr_qsnap_recv *r;
    /* Finishing early is refused; the rest can still come. */
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, id, size, &r), 0);
    cr_assert_eq(lr_qsnap_recv_append(r, 0, src, 100), 0);
    cr_assert_eq(lr_qsnap_recv_finish(r, &info), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qsnap_recv_append(r, 100, src + 100, size - 100), 0);
    cr_assert_eq(lr_qsnap_recv_finish(r, &info), 0);
    lr_qsnap_recv_free(r);
    /* A flipped byte, a cut file, another epoch: refused, nothing left. */
    src[size / 2] ^= 0x10;
    cr_assert_eq(send_whole(st, (lr_qsnap_id){41, 6}, src, size, &info), LOGREP_ERR__CORRUPT);
    cr_assert(info.why[0]);
    src[size / 2] ^= 0x10;
    cr_assert_eq(send_whole(st, (lr_qsnap_id){42, 6}, src, size - 1, &info), LOGREP_ERR__CORRUPT);
    cr_assert_eq(send_whole(st, (lr_qsnap_id){43, 7}, src, size, &info), LOGREP_ERR__CORRUPT);
    size_t n;
    lr_qsnap_id ids[4];
    cr_assert_eq(lr_qsnap_list(st, FDIR, ids, 4, &n), 0);
    cr_assert(n == 1 && ids[0].end_offset == 40);
    /* Given up half way: the .part goes with the receiver. */
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, (lr_qsnap_id){44, 6}, size, &r), 0);
    cr_assert_eq(lr_qsnap_recv_append(r, 0, src, 10), 0);
    cr_assert_eq(parts_in(st, FDIR), 1);
    lr_qsnap_recv_free(r);
    cr_assert_eq(parts_in(st, FDIR), 0);
    /* A write that fails leaves the receiver failed. */
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, (lr_qsnap_id){45, 6}, size, &r), 0);
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__NOSPACE, 0), 0);
    cr_assert_eq(lr_qsnap_recv_append(r, 0, src, size), LOGREP_ERR__NOSPACE);
    cr_assert_eq(lr_qsnap_recv_append(r, 0, src, size), LOGREP_ERR__NOSPACE);
    cr_assert_eq(lr_qsnap_recv_finish(r, &info), LOGREP_ERR__NOSPACE);
    lr_qsnap_recv_free(r);
    cr_assert_eq(parts_in(st, FDIR), 0);
    /* Sizes no snapshot has. */
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, id, 2 * LOGREP_BATCH_HEADER_SIZE - 1, &r),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, (lr_qsnap_id){-1, 0}, size, &r),
                 LOGREP_ERR__INVALID_ARG);
    free(src);
    logrep_storage_free(st);
}

/* Power lost during a transfer: after the restart's clean the follower
 * has no .part, and the snapshot is absent or whole. */
Test(quorum_snapxfer, power_loss_while_receiving)
{
    int saw_new = 0, saw_none = 0;
    for (uint64_t n = 1; n <= 10; n++)
        for (int mode = 0; mode < 3; mode++) {
            logrep_storage *st = two_dirs(1);
            lr_qsnap_id id = {60, 1};
            uint64_t size;
            uint8_t *src = leader_snap(st, id, 4, 400, &size);
            cr_assert_eq(logrep_storage_crash_after(st, n), 0);
            lr_qsnap_recv *r = NULL;
            int err = lr_qsnap_recv_new(NULL, st, FDIR, id, size, &r);
            for (uint64_t pos = 0; !err && pos < size; pos += 10000)
                err = lr_qsnap_recv_append(r, pos, src + pos, size - pos < 10000 ? size - pos : 10000);
            if (!err)
                err = lr_qsnap_recv_finish(r, NULL);
            cr_assert_eq(logrep_storage_crash_simulate(st, n * 3 + (uint64_t)mode, mode), 0);
            cr_assert_eq(lr_qsnap_clean(st, FDIR, NULL), 0);
            cr_assert_eq(parts_in(st, FDIR), 0);
            int have = lr_qsnap_check(NULL, st, FDIR, id, NULL);
            cr_assert(have == 0 || have == LOGREP_ERR__NOENT, "after %llu calls: %s",
                      (unsigned long long)n, logrep_err_name(have));
            saw_new += have == 0;
            saw_none += have != 0;
            lr_qsnap_recv_free(r);
            free(src);
            logrep_storage_free(st);
        }
    cr_assert(saw_new && saw_none);
}

/* ---- the metadata log below a snapshot ---- */

/* A metadata log of n entries (one batch each, epoch 1 + offset / 50) in
 * small segments. */
static logrep_log *meta_log(logrep_storage *st, logrep_conf **conf, int64_t n)
{
    *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(*conf, "segment.bytes", "2000", NULL, 0), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(*conf, st, LDIR, 1000, &log), 0);
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    for (int64_t o = 0; o < n; o++) {
        char v[32];
        int k = snprintf(v, sizeof v, "entry %lld", (long long)o);
        lr_qentry e = {(int32_t)(1 + o / 50), 0, (const uint8_t *)v, (size_t)k};
        lr_buf_clear(&b);
        cr_assert_eq(lr_qbatch_encode(o, &e, 1, 1000, &b), 0);
        cr_assert_eq(logrep_log_append_follower(log, b.data, b.len, 1000, NULL), 0);
    }
    cr_assert_eq(logrep_log_flush(log, 1000), 0);
    lr_buf_free(&b);
    return log;
}

static int count_segments(void *ctx, const char *name)
{
    size_t l = strlen(name);
    *(int *)ctx += l == 24 && strcmp(name + 20, ".log") == 0;
    return 0;
}

static int segments(logrep_storage *st)
{
    int n = 0;
    cr_assert_eq(st->list(st->ctx, LDIR, count_segments, &n), 0);
    return n;
}

Test(quorum_snapxfer, log_trimmed_only_below_a_whole_snapshot)
{
    logrep_storage *st = two_dirs(0);
    logrep_conf *conf;
    logrep_log *log = meta_log(st, &conf, 300);
    int before = segments(st);
    cr_assert_gt(before, 4);
    lr_qsnap_id id = {200, 4}; /* offset 199 has epoch 1 + 199 / 50 = 4 */
    /* No snapshot yet, a .part, a torn one: the log stays whole. */
    cr_assert_eq(lr_qsnap_trim_log(NULL, st, LDIR, log, id), LOGREP_ERR__NOENT);
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, LDIR, id, 5, 1000, &w), 0);
    cr_assert_eq(lr_qsnap_writer_add(w, (const uint8_t *)"state", 5), 0);
    cr_assert_eq(lr_qsnap_trim_log(NULL, st, LDIR, log, id), LOGREP_ERR__NOENT);
    cr_assert_eq(lr_qsnap_writer_finish(w, NULL), 0);
    lr_qsnap_writer_free(w);
    uint64_t size, total;
    uint8_t *f = fetch_all(st, LDIR, id, 65536, &total);
    size = total;
    char path[256];
    snprintf(path, sizeof path, LDIR "/%s", "00000000000000000200-0000000004.checkpoint");
    logrep_file *fh;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE, &fh), 0);
    cr_assert_eq(st->truncate(st->ctx, fh, size - 1), 0);
    st->close(st->ctx, fh);
    cr_assert_eq(lr_qsnap_trim_log(NULL, st, LDIR, log, id), LOGREP_ERR__CORRUPT);
    cr_assert_eq(logrep_log_start_offset(log), 0);
    cr_assert_eq(segments(st), before);
    /* Whole again: the start moves to 200, the segments below go. */
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE, &fh), 0);
    cr_assert_eq(st->write(st->ctx, fh, 0, f, size), 0);
    st->close(st->ctx, fh);
    cr_assert_eq(lr_qsnap_trim_log(NULL, st, LDIR, log, id), 0);
    cr_assert_eq(logrep_log_start_offset(log), 200);
    cr_assert_lt(segments(st), before);
    cr_assert_eq(logrep_log_end_offset(log), 300);
    /* A snapshot past the log end is not a trim: a follower restarts its
     * log there when it installs one (lr_qlog, test_quorum_snapfetch.c). */
    lr_qsnap_id ahead = {400, 8};
    write_snap(st, LDIR, ahead, 5, 3, NULL);
    cr_assert_eq(lr_qsnap_trim_log(NULL, st, LDIR, log, ahead), LOGREP_ERR__UNSUPPORTED);
    cr_assert_eq(logrep_log_start_offset(log), 200);
    /* The start survives a reopen, and qlog serves the trimmed log. */
    cr_assert_eq(logrep_log_close(log), 0);
    cr_assert_eq(logrep_log_open(conf, st, LDIR, 2000, &log), 0);
    cr_assert_eq(logrep_log_start_offset(log), 200);
    lr_qlog *ql;
    cr_assert_eq(lr_qlog_new(NULL, log, NULL, &ql), 0);
    cr_assert_eq(lr_qlog_ops()->start_offset(ql), 200);
    cr_assert_eq(lr_qlog_ops()->last_epoch(ql), 6);
    lr_qlog_free(ql);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_conf_free(conf);
    free(f);
    logrep_storage_free(st);
}

/* ---- an image from leader to follower ---- */

typedef struct pipe_ctx {
    lr_qsnap_writer *w;
    lr_md_image *img;
    int64_t end;
} pipe_ctx;

static int to_writer(void *ctx, const uint8_t *rec, size_t len)
{
    return lr_qsnap_writer_add(((pipe_ctx *)ctx)->w, rec, len);
}

static int to_image(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    (void)offset;
    pipe_ctx *p = ctx;
    return lr_md_snapshot_apply(p->img, p->end, rec, len);
}

static int snap_bytes(void *ctx, const uint8_t *rec, size_t len)
{
    return lr_buf_append(ctx, rec, len);
}

static void same_snapshot(const lr_md_image *a, const lr_md_image *b)
{
    lr_buf x, y;
    lr_buf_init(&x, &lr_alloc_default);
    lr_buf_init(&y, &lr_alloc_default);
    cr_assert_eq(lr_md_snapshot_records(a, snap_bytes, &x, NULL), 0);
    cr_assert_eq(lr_md_snapshot_records(b, snap_bytes, &y, NULL), 0);
    cr_assert(x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len)));
    cr_assert_eq(lr_md_next_offset(a), lr_md_next_offset(b));
    lr_buf_free(&x);
    lr_buf_free(&y);
}

Test(quorum_snapxfer, image_from_leader_to_follower)
{
    tc_cluster c;
    tc_start(&c, NULL);
    for (int32_t b = 1; b <= 3; b++)
        cr_assert_eq(tc_join(&c, b, b == 2 ? "r2" : "r1", -1), 0);
    const char *const cfg[] = {"min.insync.replicas=2", NULL};
    char name[32];
    for (int t = 0; t < 40; t++) {
        snprintf(name, sizeof name, "topic-%d", t);
        cr_assert_eq(tc_topic(&c, name, 1 + t % 8, 1 + t % 3, t % 2 ? cfg : NULL), 0);
    }
    const lr_md_image *img = lr_ctl_image(c.ctl);
    logrep_storage *st = two_dirs(0);
    lr_qsnap_id id = {lr_md_next_offset(img), 1};
    pipe_ctx p = {0};
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, LDIR, id, 5, 1000, &p.w), 0);
    cr_assert_eq(lr_md_snapshot_records(img, to_writer, &p, NULL), 0);
    cr_assert_eq(lr_qsnap_writer_finish(p.w, NULL), 0);
    lr_qsnap_writer_free(p.w);
    /* FetchSnapshot in 1000-byte answers. */
    uint64_t total, pos = 0;
    lr_qsnap_recv *r = NULL;
    do {
        uint8_t buf[1000];
        size_t n;
        cr_assert_eq(lr_qsnap_read_chunk(st, LDIR, id, pos, buf, sizeof buf, &n, &total), 0);
        if (!r)
            cr_assert_eq(lr_qsnap_recv_new(NULL, st, FDIR, id, total, &r), 0);
        cr_assert_eq(lr_qsnap_recv_append(r, pos, buf, n), 0);
        pos += n;
    } while (pos < total);
    cr_assert_eq(lr_qsnap_recv_finish(r, NULL), 0);
    lr_qsnap_recv_free(r);
    lr_qsnap_id got;
    cr_assert_eq(lr_qsnap_latest(NULL, st, FDIR, &got, NULL, NULL), 0);
    p.img = lr_md_new(c.conf);
    p.end = got.end_offset;
    cr_assert_eq(lr_qsnap_read(NULL, st, FDIR, got, to_image, &p, NULL), 0);
    same_snapshot(img, p.img);
    lr_md_free(p.img);
    /* A record that does not apply makes the read fail: a snapshot with
     * a PartitionRecord of a topic it does not hold. */
    lr_qsnap_id bad = {9, 1};
    cr_assert_eq(lr_qsnap_writer_new(NULL, st, FDIR, bad, 5, 1000, &p.w), 0);
    lr_md_record rec;
    int32_t one[] = {1};
    lr_md_record_init(&rec, LR_MD_PARTITION, 2);
    rec.u.part.topic_id[3] = 7;
    rec.u.part.replicas = (lr_md_ids){one, 1};
    rec.u.part.isr = (lr_md_ids){one, 1};
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_md_encode(&rec, &b), 0);
    cr_assert_eq(lr_qsnap_writer_add(p.w, b.data, b.len), 0);
    cr_assert_eq(lr_qsnap_writer_finish(p.w, NULL), 0);
    lr_qsnap_writer_free(p.w);
    p.img = lr_md_new(c.conf);
    p.end = bad.end_offset;
    cr_assert_eq(lr_qsnap_read(NULL, st, FDIR, bad, to_image, &p, NULL), LOGREP_ERR__CORRUPT);
    lr_md_free(p.img);
    lr_buf_free(&b);
    logrep_storage_free(st);
    tc_stop(&c);
}

/* ---- allocation failures ---- */

static int drop(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    (void)ctx;
    (void)offset;
    (void)rec;
    (void)len;
    return 0;
}

/* Write, read and receive with the Nth allocation failing, for every N
 * until all succeed: a clean NOMEM, nothing leaked, no .part left. */
Test(quorum_snapxfer, allocation_failures)
{
    logrep_storage *st = two_dirs(0);
    lr_qsnap_id id = {30, 2};
    uint64_t size;
    uint8_t *src = leader_snap(st, id, 6, 30, &size);
    for (long fail = 1;; fail++) {
        tu_heap heap = {0, fail, 0, 0, 0, 0};
        logrep_allocator a = tu_heap_allocator(&heap);
        logrep_conf *conf = logrep_conf_new();
        cr_assert_eq(logrep_conf_set_allocator(conf, &a), LOGREP_OK);
        lr_qsnap_writer *w = NULL;
        lr_qsnap_recv *r = NULL;
        int err = lr_qsnap_writer_new(conf, st, FDIR, (lr_qsnap_id){31, 2}, 5, 1000, &w);
        for (int i = 0; i < 40 && !err; i++)
            err = lr_qsnap_writer_add(w, src, 200);
        if (!err)
            err = lr_qsnap_writer_finish(w, NULL);
        lr_qsnap_writer_free(w);
        if (!err)
            err = lr_qsnap_read(conf, st, LDIR, id, drop, NULL, NULL);
        if (!err)
            err = lr_qsnap_recv_new(conf, st, FDIR, id, size, &r);
        if (!err)
            err = lr_qsnap_recv_append(r, 0, src, size);
        if (!err)
            err = lr_qsnap_recv_finish(r, NULL);
        lr_qsnap_recv_free(r);
        logrep_conf_free(conf);
        cr_assert_eq(heap.live_blocks, 0, "leak after failure %ld", fail);
        cr_assert_eq(parts_in(st, FDIR), 0);
        if (!err)
            break;
        cr_assert_eq(err, LOGREP_ERR__NOMEM, "failure %ld: %s", fail, logrep_err_name(err));
        lr_qsnap_delete_before(st, FDIR, (lr_qsnap_id){INT64_MAX, 0}, NULL);
    }
    free(src);
    logrep_storage_free(st);
}
