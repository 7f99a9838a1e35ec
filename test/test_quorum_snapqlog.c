/* lr_qlog with snapshots on a real logrep_log (docs/quorum.md, "Snapshots
 * in the quorum"): a leader's log trimmed below a snapshot serves it in
 * pieces and answers last_epoch / epoch_end from it; a follower receives
 * those pieces, installs the snapshot (its state machine loaded, its log
 * restarted at the snapshot's end, older snapshots gone), and a reopen, or
 * a crash between the install and the restart, finds the same. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <logrep/log.h>
#include <logrep/storage.h>

#include "base/buf.h"
#include "quorum/qbatch.h"
#include "quorum/qlog.h"

#define LDIR "leader/__cluster_metadata-0"
#define FDIR "follower/__cluster_metadata-0"

typedef struct side {
    logrep_log *log;
    lr_qlog *ql;
    const char *dir;
    lr_qsnap_id loaded; /* what load() was last given */
    int fail_load;
} side;

static logrep_storage *st;
static logrep_conf *conf;
static const lr_quorum_log *ops;

static int load(void *host, lr_qsnap_id id)
{
    side *s = host;
    if (s->fail_load)
        return LOGREP_ERR__CORRUPT;
    s->loaded = id;
    return 0;
}

static void side_open(side *s, const char *dir)
{
    s->dir = dir;
    cr_assert_eq(logrep_log_open(conf, st, dir, 1000, &s->log), 0);
    cr_assert_eq(lr_qlog_new(conf, s->log, s, &s->ql), 0);
    cr_assert_eq(lr_qlog_set_snapshots(s->ql, st, dir, load), 0);
}

static void side_close(side *s)
{
    lr_qlog_free(s->ql);
    cr_assert_eq(logrep_log_close(s->log), 0);
}

/* n entries, epoch 1 + offset / 50 (so 199 is epoch 4, 200 epoch 5). */
static void fill(side *s, int64_t n)
{
    for (int64_t o = ops->end_offset(s->ql); o < n; o++) {
        char v[32];
        int k = snprintf(v, sizeof v, "entry %lld", (long long)o);
        lr_qentry e = {(int32_t)(1 + o / 50), 0, (const uint8_t *)v, (size_t)k};
        cr_assert_eq(ops->append(s->ql, o, &e, 1), 0);
    }
}

static void snap(side *s, lr_qsnap_id id)
{
    lr_qsnap_writer *w;
    cr_assert_eq(lr_qsnap_writer_new(conf, st, s->dir, id, 5, 1000, &w), 0);
    for (int i = 0; i < 300; i++)
        cr_assert_eq(lr_qsnap_writer_add(w, (const uint8_t *)"some state of the machine", 25),
                     0);
    cr_assert_eq(lr_qsnap_writer_finish(w, NULL), 0);
    lr_qsnap_writer_free(w);
}

static void setup(void)
{
    cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    cr_assert_eq(st->mkdir(st->ctx, "leader"), 0);
    cr_assert_eq(st->mkdir(st->ctx, "follower"), 0);
    conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "segment.bytes", "2000", NULL, 0), 0);
    ops = lr_qlog_ops();
}

static void teardown(void)
{
    logrep_conf_free(conf);
    logrep_storage_free(st);
}

static void epoch_end(side *s, int32_t epoch, int32_t want_epoch, int64_t want_end)
{
    int32_t e;
    int64_t end;
    ops->epoch_end(s->ql, epoch, &e, &end);
    cr_assert(e == want_epoch && end == want_end, "epoch_end(%d) = (%d, %lld), want (%d, %lld)",
              epoch, e, (long long)end, want_epoch, (long long)want_end);
}

static void leader_trimmed(side *l)
{
    side_open(l, LDIR);
    int64_t e;
    int32_t p;
    cr_assert_eq(ops->latest_snapshot(l->ql, &e, &p), -1);
    fill(l, 300);
    snap(l, (lr_qsnap_id){100, 2});
    snap(l, (lr_qsnap_id){200, 4});
    cr_assert_eq(lr_qlog_trim(l->ql, (lr_qsnap_id){200, 4}), 0);
}

static void leader_answers(side *l)
{
    int64_t e;
    int32_t p;
    cr_assert_eq(ops->start_offset(l->ql), 200);
    cr_assert_eq(ops->latest_snapshot(l->ql, &e, &p), 0);
    cr_assert(e == 200 && p == 4);
    cr_assert_eq(ops->last_epoch(l->ql), 6);
    epoch_end(l, 4, 4, 200); /* the snapshot's epoch ends at the start */
    epoch_end(l, 5, 5, 250);
    epoch_end(l, 6, 6, 300);
    epoch_end(l, 9, 6, 300);
    lr_qentry out[4];
    cr_assert_eq(ops->read(l->ql, 150, out, 4), 0);
    cr_assert_eq(ops->read(l->ql, 200, out, 4), 4);
    cr_assert_eq(out[0].epoch, 5);
    cr_assert_eq(ops->truncate(l->ql, 199), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(ops->end_offset(l->ql), 300);
}

Test(quorum_snapqlog, leader_trimmed_at_a_snapshot, .init = setup, .fini = teardown)
{
    side l = {0};
    leader_trimmed(&l);
    leader_answers(&l);
    /* The older snapshot went with the trim. */
    const uint8_t *d;
    size_t n;
    int64_t size;
    cr_assert_eq(ops->snap_read(l.ql, 100, 2, 0, 100, &d, &n, &size),
                 LOGREP_ERR_SNAPSHOT_NOT_FOUND);
    cr_assert_eq(ops->snap_read(l.ql, 200, 4, 0, 100, &d, &n, &size), 0);
    cr_assert_eq(n, 100);
    cr_assert_eq(ops->snap_read(l.ql, 200, 4, size, 100, &d, &n, &size),
                 LOGREP_ERR_POSITION_OUT_OF_RANGE);
    cr_assert_eq(ops->snap_read(l.ql, 200, 4, -1, 100, &d, &n, &size),
                 LOGREP_ERR_POSITION_OUT_OF_RANGE);
    side_close(&l);
    side_open(&l, LDIR); /* a reopen answers the same */
    leader_answers(&l);
    side_close(&l);
}

/* All of the leader's snapshot (200, 4), 1000 bytes at a time, into f. */
static int transfer(side *l, side *f, int flip)
{
    int64_t pos = 0, size = 1;
    while (pos < size) {
        const uint8_t *d;
        size_t n;
        cr_assert_eq(ops->snap_read(l->ql, 200, 4, pos, 1000, &d, &n, &size), 0);
        uint8_t buf[1000];
        memcpy(buf, d, n);
        if (flip && pos == 1000)
            buf[7] ^= 1;
        cr_assert_eq(ops->snap_write(f->ql, 200, 4, size, pos, buf, n), 0);
        pos += (int64_t)n;
    }
    return ops->snap_install(f->ql, 200, 4);
}

static void follower_restarted(side *f)
{
    cr_assert_eq(ops->start_offset(f->ql), 200);
    cr_assert_eq(ops->end_offset(f->ql), 200);
    cr_assert_eq(ops->last_epoch(f->ql), 4);
    epoch_end(f, 4, 4, 200);
    epoch_end(f, 7, 4, 200);
    epoch_end(f, 3, -1, -1);
    lr_qsnap_id id;
    cr_assert_eq(lr_qlog_snapshot(f->ql, &id), 0);
    cr_assert(id.end_offset == 200 && id.epoch == 4);
}

Test(quorum_snapqlog, follower_installs_and_restarts_its_log, .init = setup, .fini = teardown)
{
    side l = {0}, f = {0};
    leader_trimmed(&l);
    side_open(&f, FDIR);
    fill(&f, 20);
    snap(&f, (lr_qsnap_id){10, 1});
    lr_qlog_snapshot_written(f.ql, (lr_qsnap_id){10, 1});
    /* A cut or flipped transfer, a failed load: the log stays as it was. */
    cr_assert_eq(transfer(&l, &f, 1), LOGREP_ERR__CORRUPT);
    cr_assert_eq(ops->end_offset(f.ql), 20);
    f.fail_load = 1;
    cr_assert_eq(transfer(&l, &f, 0), LOGREP_ERR__CORRUPT);
    cr_assert_eq(ops->end_offset(f.ql), 20);
    f.fail_load = 0;
    cr_assert_eq(ops->snap_write(f.ql, 200, 4, 5000, 1000, (const uint8_t *)"x", 1),
                 LOGREP_ERR__INVALID_ARG); /* no receive under way */
    cr_assert_eq(transfer(&l, &f, 0), 0);
    cr_assert(f.loaded.end_offset == 200 && f.loaded.epoch == 4);
    follower_restarted(&f);
    /* Entries go on from the snapshot's end. */
    lr_qentry e = {7, 0, (const uint8_t *)"next", 4};
    cr_assert_eq(ops->append(f.ql, 200, &e, 1), 0);
    cr_assert_eq(ops->last_epoch(f.ql), 7);
    epoch_end(&f, 5, 4, 200);
    cr_assert_eq(ops->truncate(f.ql, 200), 0);
    side_close(&f);
    side_open(&f, FDIR);
    follower_restarted(&f);
    lr_qsnap_id ids[4];
    size_t n;
    cr_assert_eq(lr_qsnap_list(st, FDIR, ids, 4, &n), 0);
    cr_assert_eq(n, 1, "older snapshots were not deleted");
    side_close(&f);
    side_close(&l);
}

/* A crash after the file was installed and before the log restarted:
 * the next start restarts it; a partial receive is dropped. */
Test(quorum_snapqlog, crash_between_install_and_restart, .init = setup, .fini = teardown)
{
    side f = {0};
    side_open(&f, FDIR);
    fill(&f, 20);
    snap(&f, (lr_qsnap_id){200, 4});
    cr_assert_eq(ops->snap_write(f.ql, 300, 6, 500, 0, (const uint8_t *)"abc", 3), 0);
    lr_qlog_free(f.ql);
    logrep_log_abandon(f.log);
    side_open(&f, FDIR);
    follower_restarted(&f);
    lr_qsnap_id ids[4];
    size_t n;
    cr_assert_eq(lr_qsnap_list(st, FDIR, ids, 4, &n), 0);
    cr_assert_eq(n, 1);
    ops->snap_abort(f.ql);
    side_close(&f);
}
