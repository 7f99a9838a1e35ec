/* The quorum log over a logrep_log (docs/quorum.md, "The log on disk"):
 * lr_qlog. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/log.h>
#include <logrep/storage.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/endian.h"
#include "lib/quorum_testutil.h"
#include "lib/testutil.h"
#include "quorum/q_int.h"
#include "quorum/qbatch.h"
#include "quorum/qlog.h"
#include "quorum/qstate.h"


/* ---- qlog --------------------------------------------------------------- */

#define MDIR "meta/__cluster_metadata-0"

/* A metadata log on an in-memory storage (crash-simulating or not) and
 * its adapter; segments are small so that reads and truncations cross
 * them. */
typedef struct mlog {
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log;
    lr_qlog *ql;
    const lr_quorum_log *ops;
    int64_t now;
} mlog;

static void mlog_open(mlog *m)
{
    logrep_err err = logrep_log_open(m->conf, m->st, MDIR, m->now, &m->log);
    cr_assert_eq(err, 0, "open: %s", logrep_err_name(err));
    cr_assert_eq(lr_qlog_new(NULL, m->log, m, &m->ql), 0);
    cr_assert_eq(lr_qlog_host(m->ql), m);
    lr_qlog_set_now(m->ql, m->now);
    m->ops = lr_qlog_ops();
}

static void mlog_init(mlog *m, int crash)
{
    memset(m, 0, sizeof *m);
    m->now = 1000;
    if (crash)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &m->st), 0);
    else
        cr_assert_eq(logrep_storage_memory_new(NULL, &m->st), 0);
    cr_assert_eq(m->st->mkdir(m->st->ctx, "meta"), 0);
    m->conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(m->conf, "segment.bytes", "2000", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(m->conf, "index.interval.bytes", "200", NULL, 0), 0);
    mlog_open(m);
}

/* clean: flushed and closed; else dropped as a crashed process drops it. */
static void mlog_close(mlog *m, int clean)
{
    lr_qlog_free(m->ql);
    m->ql = NULL;
    if (clean)
        cr_assert_eq(logrep_log_close(m->log), 0);
    else
        logrep_log_abandon(m->log);
    m->log = NULL;
}

static void mlog_fini(mlog *m)
{
    if (m->log)
        mlog_close(m, 1);
    logrep_storage_free(m->st);
    logrep_conf_free(m->conf);
}

static int64_t m_end(mlog *m) { return m->ops->end_offset(m->ql); }

/* n entries of `epoch` at the end, data naming their offset. */
static void m_append(mlog *m, int32_t epoch, int16_t control, size_t n)
{
    char data[16][24];
    lr_qentry e[16];
    int64_t base = m_end(m);
    cr_assert_leq(n, 16);
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(data[i], sizeof data[i], "e%d-o%lld", epoch,
                         (long long)(base + (int64_t)i));
        e[i] = (lr_qentry){epoch, control, (const uint8_t *)data[i], (size_t)k};
    }
    cr_assert_eq(m->ops->append(m->ql, base, e, n), 0);
}

/* Entry o is the one m_append wrote at o in `epoch`. */
static void m_expect(mlog *m, int64_t o, int32_t epoch)
{
    lr_qentry e;
    cr_assert_eq(m->ops->read(m->ql, o, &e, 1), 1, "read at %lld", (long long)o);
    char want[24];
    int k = snprintf(want, sizeof want, "e%d-o%lld", epoch, (long long)o);
    cr_assert_eq(e.epoch, epoch, "offset %lld: epoch %d", (long long)o, e.epoch);
    cr_assert_eq(e.len, (size_t)k);
    cr_assert_eq(memcmp(e.data, want, e.len), 0);
}

static int entry_same(const lr_qentry *a, const lr_qentry *b)
{
    return a->epoch == b->epoch && a->control == b->control && a->len == b->len &&
           (!a->len || memcmp(a->data, b->data, a->len) == 0);
}

/* Both logs answer every question alike. The one licensed difference:
 * for an epoch older than every entry the test log answers (-1, -1) and
 * logrep_log (epoch, its first offset); the quorum truncates to 0 on
 * either (quorum.h). */
static void same_answers(const lr_quorum_log *ref, void *rctx, mlog *m, uint64_t *s)
{
    int64_t end = ref->end_offset(rctx);
    cr_assert_eq(m_end(m), end);
    int32_t last = ref->last_epoch(rctx);
    cr_assert_eq(m->ops->last_epoch(m->ql), last);
    for (int32_t ep = -1; ep <= last + 2; ep++) {
        int32_t e1, e2;
        int64_t o1, o2;
        ref->epoch_end(rctx, ep, &e1, &o1);
        m->ops->epoch_end(m->ql, ep, &e2, &o2);
        if (e1 < 0 && end > 0 && ep >= 0)
            cr_assert((e2 == -1 && o2 == -1) || (e2 == ep && o2 == 0),
                      "epoch %d older than the log: (%d, %lld)", ep, e2, (long long)o2);
        else
            cr_assert(e1 == e2 && o1 == o2, "epoch_end(%d): test log (%d, %lld), qlog (%d, %lld)",
                      ep, e1, (long long)o1, e2, (long long)o2);
    }
    for (int k = 0; k < 3; k++) {
        int64_t off = (int64_t)(qt_rng_next(s) % (uint64_t)(end + 2));
        size_t cap = 1 + qt_rng_next(s) % 12;
        lr_qentry a[12], b[12];
        size_t na = ref->read(rctx, off, a, cap), nb = m->ops->read(m->ql, off, b, cap);
        cr_assert_eq(lr_qlog_read_error(m->ql), 0);
        cr_assert_eq(na, nb, "read(%lld, %zu): %zu and %zu entries", (long long)off, cap, na, nb);
        for (size_t i = 0; i < na; i++)
            cr_assert(entry_same(&a[i], &b[i]), "read(%lld): entry %zu differs", (long long)off, i);
    }
}

Test(quorum_store, qlog_answers_as_the_test_log_does)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        uint64_t s = seed * 0x2545f4914f6cdd1dull;
        static const qt_params calm = {0};
        qt_cluster *c = qt_new(1, 0, seed, &calm);
        lr_quorum_log ref = c->nodes[0].q->log; /* the test log, as the quorum sees it */
        void *rctx = c->nodes[0].q->ctx;
        mlog m;
        mlog_init(&m, seed % 2);
        uint8_t pool[256];
        for (size_t i = 0; i < sizeof pool; i++)
            pool[i] = (uint8_t)qt_rng_next(&s);
        for (int step = 0; step < 1500; step++) {
            uint64_t op = qt_rng_next(&s) % 10;
            int64_t end = ref.end_offset(rctx);
            if (op < 5) {
                lr_qentry e[6];
                size_t n = 1 + qt_rng_next(&s) % 6;
                int32_t epoch = end ? ref.last_epoch(rctx) : (int32_t)(qt_rng_next(&s) % 3);
                for (size_t i = 0; i < n; i++) {
                    if (qt_rng_next(&s) % 5 == 0)
                        epoch += 1 + (int32_t)(qt_rng_next(&s) % 2);
                    size_t len = qt_rng_next(&s) % 48;
                    int16_t ctl = qt_rng_next(&s) % 8 == 0 ? LR_QUORUM_CTL_LEADER_CHANGE : 0;
                    e[i] = (lr_qentry){epoch, ctl,
                                       len ? pool + qt_rng_next(&s) % (sizeof pool - 48) : NULL, len};
                }
                cr_assert_eq(ref.append(rctx, end, e, n), 0);
                cr_assert_eq(m.ops->append(m.ql, end, e, n), 0);
            } else if (op < 7 && end > 0) {
                /* mostly near the end, sometimes far back or past it */
                int64_t back = qt_rng_next(&s) % 4 == 0 ? (int64_t)(qt_rng_next(&s) % (uint64_t)(end + 1))
                                                     : (int64_t)(qt_rng_next(&s) % 4);
                int64_t off = end - back + (qt_rng_next(&s) % 8 == 0 ? 2 : 0);
                if (off < 0)
                    off = 0;
                cr_assert_eq(ref.truncate(rctx, off), 0);
                cr_assert_eq(m.ops->truncate(m.ql, off), 0);
            } else if (op == 7) {
                int64_t durable;
                m.now += 5;
                lr_qlog_set_now(m.ql, m.now);
                cr_assert_eq(lr_qlog_flush(m.ql, m.now, &durable), 0);
                cr_assert_eq(durable, end);
                cr_assert_eq(lr_qlog_durable_end(m.ql), end);
            } else if (op == 8 && qt_rng_next(&s) % 20 == 0) {
                /* closed and opened again, or dropped with nothing lost */
                int clean = qt_rng_next(&s) % 2 || !(seed % 2);
                mlog_close(&m, clean);
                if (!clean)
                    logrep_storage_crash_simulate(m.st, 0, LOGREP_CRASH_KEEP_ALL);
                mlog_open(&m);
            }
            same_answers(&ref, rctx, &m, &s);
        }
        cr_assert(!c->why[0], "%s", c->why);
        mlog_fini(&m);
        qt_free(c);
    }
}

Test(quorum_store, qlog_append_refuses_what_the_quorum_never_asks)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 3, 0, 2);
    lr_qentry e = {3, 0, (const uint8_t *)"x", 1};
    cr_assert_eq(m.ops->append(m.ql, 1, &e, 1), LOGREP_ERR__INVALID_ARG); /* not at the end */
    cr_assert_eq(m.ops->append(m.ql, 3, &e, 1), LOGREP_ERR__INVALID_ARG);
    e.epoch = 2; /* epochs never decrease */
    cr_assert_eq(m.ops->append(m.ql, 2, &e, 1), LOGREP_ERR__INVALID_ARG);
    lr_qentry two[2] = {{4, 0, (const uint8_t *)"a", 1}, {-1, 0, (const uint8_t *)"b", 1}};
    cr_assert_eq(m.ops->append(m.ql, 2, two, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(m_end(&m), 2); /* nothing of a refused append */
    cr_assert_eq(m.ops->last_epoch(m.ql), 3);
    cr_assert_eq(m.ops->append(m.ql, 2, NULL, 0), 0);
    cr_assert_eq(m.ops->truncate(m.ql, -1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(m.ops->truncate(m.ql, 9), 0);
    cr_assert_eq(m_end(&m), 2);
    lr_qentry out[2];
    cr_assert_eq(m.ops->read(m.ql, -1, out, 2), 0);
    cr_assert_eq(m.ops->read(m.ql, 2, out, 2), 0);
    cr_assert_eq(m.ops->read(m.ql, 0, out, 0), 0);
    cr_assert_eq(lr_qlog_read_error(m.ql), 0);
    mlog_fini(&m);
}

Test(quorum_store, qlog_flushed_prefix_survives_a_power_loss)
{
    for (int mode = 0; mode < 12; mode++) {
        mlog m;
        mlog_init(&m, 1);
        m_append(&m, 1, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        for (int i = 0; i < 6; i++)
            m_append(&m, 1, 0, 3);
        m_append(&m, 2, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        m_append(&m, 2, 0, 4);
        int64_t durable;
        cr_assert_eq(lr_qlog_flush(m.ql, m.now, &durable), 0);
        cr_assert_eq(durable, 24);
        /* An unflushed tail, with a new epoch whose checkpoint entry is durable. */
        m_append(&m, 2, 0, 5);
        m_append(&m, 4, LR_QUORUM_CTL_LEADER_CHANGE, 1);
        m_append(&m, 4, 0, 9);
        cr_assert_eq(m_end(&m), 39);
        cr_assert_eq(lr_qlog_durable_end(m.ql), 24);
        mlog_close(&m, 0);
        /* mode 0: only the durable image; else each pending write kept,
         * dropped or torn by the seed. */
        cr_assert_eq(logrep_storage_crash_simulate(m.st, (uint64_t)mode,
                                                   mode ? LOGREP_CRASH_RANDOM
                                                        : LOGREP_CRASH_DROP_ALL),
                     0);
        mlog_open(&m);
        int64_t end = m_end(&m);
        cr_assert_geq(end, 24, "mode %d: the flushed prefix is gone (end %lld)", mode,
                      (long long)end);
        if (!mode)
            cr_assert_eq(end, 24);
        for (int64_t o = 0; o < end; o++)
            m_expect(&m, o, o < 19 ? 1 : o < 29 ? 2 : 4);
        cr_assert_eq(m.ops->last_epoch(m.ql), end > 29 ? 4 : 2);
        int32_t e;
        int64_t off;
        m.ops->epoch_end(m.ql, 3, &e, &off);
        cr_assert(e == 2 && off == (end > 29 ? 29 : end), "epoch_end(3): (%d, %lld), end %lld", e,
                  (long long)off, (long long)end);
        m.ops->epoch_end(m.ql, 1, &e, &off);
        cr_assert(e == 1 && off == 19);
        mlog_fini(&m);
    }
}

/* A log written with batches of several entries (as qbatch makes for the
 * wire), not by qlog: a truncation inside a batch keeps the entries below
 * it, durably. */
Test(quorum_store, qlog_truncates_inside_a_batch_of_several_entries)
{
    mlog m;
    mlog_init(&m, 1);
    lr_qentry e[10];
    char data[10][24];
    for (int i = 0; i < 10; i++) {
        int32_t epoch = i < 5 ? 1 : 2;
        int k = snprintf(data[i], sizeof data[i], "e%d-o%d", epoch, i);
        e[i] = (lr_qentry){epoch, 0, (const uint8_t *)data[i], (size_t)k};
    }
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_qbatch_encode(0, e, 10, m.now, &b), 0); /* two batches: 0-4, 5-9 */
    cr_assert_eq(logrep_log_append_follower(m.log, b.data, b.len, m.now, NULL), 0);
    lr_buf_free(&b);
    cr_assert_eq(logrep_log_flush(m.log, m.now), 0);
    cr_assert_eq(m_end(&m), 10);
    for (int64_t o = 0; o < 10; o++)
        m_expect(&m, o, o < 5 ? 1 : 2);

    cr_assert_eq(m.ops->truncate(m.ql, 7), 0);
    cr_assert_eq(m_end(&m), 7);
    cr_assert_eq(lr_qlog_durable_end(m.ql), 7); /* the rewritten head is flushed at once */
    int32_t ep;
    int64_t off;
    m.ops->epoch_end(m.ql, 2, &ep, &off);
    cr_assert(ep == 2 && off == 7);
    m.ops->epoch_end(m.ql, 1, &ep, &off);
    cr_assert(ep == 1 && off == 5);

    cr_assert_eq(m.ops->truncate(m.ql, 3), 0);
    cr_assert_eq(m_end(&m), 3);
    cr_assert_eq(m.ops->last_epoch(m.ql), 1);
    m.ops->epoch_end(m.ql, 2, &ep, &off);
    cr_assert(ep == 1 && off == 3);

    mlog_close(&m, 0);
    cr_assert_eq(logrep_storage_crash_simulate(m.st, 0, LOGREP_CRASH_DROP_ALL), 0);
    mlog_open(&m);
    cr_assert_eq(m_end(&m), 3);
    for (int64_t o = 0; o < 3; o++)
        m_expect(&m, o, 1);
    mlog_fini(&m);
}

Test(quorum_store, qlog_read_of_a_corrupt_batch_answers_nothing)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 1, 0, 3);
    cr_assert_eq(lr_qlog_flush(m.ql, m.now, NULL), 0);
    const char *seg = MDIR "/00000000000000000000.log";
    logrep_file *f;
    uint64_t size;
    cr_assert_eq(m.st->open(m.st->ctx, seg, LOGREP_OPEN_WRITE, &f), 0);
    cr_assert_eq(m.st->size(m.st->ctx, f, &size), 0);
    cr_assert_eq(m.st->write(m.st->ctx, f, size - 3, "Z", 1), 0); /* in the last entry's value */
    m.st->close(m.st->ctx, f);
    lr_qentry out[3];
    cr_assert_eq(m.ops->read(m.ql, 2, out, 3), 0);
    cr_assert_eq(lr_qlog_read_error(m.ql), LOGREP_ERR__CORRUPT);
    cr_assert_eq(m.ops->read(m.ql, 0, out, 2), 2); /* the batches before it are fine */
    cr_assert_eq(lr_qlog_read_error(m.ql), 0);
    mlog_fini(&m);
}

Test(quorum_store, qlog_new_refuses_logs_it_cannot_serve_and_takes_a_trimmed_one)
{
    mlog m;
    mlog_init(&m, 0);
    m_append(&m, 1, 0, 3);
    m_append(&m, 2, 0, 3);
    mlog_close(&m, 1);
    /* An epoch cache that lost the last epoch, and no recovery to find it. */
    const char *ck = MDIR "/leader-epoch-checkpoint";
    logrep_file *f;
    cr_assert_eq(m.st->open(m.st->ctx, ck, LOGREP_OPEN_WRITE, &f), 0);
    cr_assert_eq(m.st->truncate(m.st->ctx, f, 0), 0);
    cr_assert_eq(m.st->write(m.st->ctx, f, 0, "0\n1\n1 0\n", 8), 0);
    m.st->close(m.st->ctx, f);
    cr_assert_eq(logrep_log_open(m.conf, m.st, MDIR, m.now, &m.log), 0);
    cr_assert_eq(lr_qlog_new(NULL, m.log, NULL, &m.ql), LOGREP_ERR__CORRUPT);
    /* A log that does not start at 0 is served (trimmed below a
     * snapshot, test_quorum_snapfetch.c has the rest). */
    cr_assert_eq(logrep_log_epoch_assign(m.log, 2, 3), 0);
    cr_assert_eq(logrep_log_advance_start(m.log, 2), 0);
    cr_assert_eq(lr_qlog_new(NULL, m.log, NULL, &m.ql), 0);
    cr_assert_eq(lr_qlog_ops()->start_offset(m.ql), 2);
    cr_assert_eq(lr_qlog_ops()->truncate(m.ql, 1), LOGREP_ERR__INVALID_ARG);
    lr_qlog_free(m.ql);
    cr_assert_eq(lr_qlog_new(NULL, NULL, NULL, &m.ql), LOGREP_ERR__INVALID_ARG);
    m.ql = NULL;
    mlog_fini(&m);
}
