/* lr_quorum_log over a logrep_log (qlog.h). */
#include "quorum/qlog.h"

#include "base/alloc.h"
#include "base/buf.h"
#include "base/conf.h"
#include "base/log.h"
#include "log/log_int.h"
#include "quorum/qbatch.h"

/* Bytes read per fetch of entries (the first batch is read whole even
 * when larger), and the buffer size kept between calls. */
#define READ_BYTES (64u << 10)
#define KEEP_BYTES (1u << 20)

/* A callback's "enough": positive, unlike every error of the decoder. */
#define STOP 1

struct lr_qlog {
    lr_alloc alloc;
    lr_log logger;
    logrep_log *log;
    void *host;
    int64_t now;
    int read_err;
    lr_buf rbuf; /* the bytes the last read's entries point into */
    lr_buf wbuf; /* batches being appended */
};

static void trim(lr_buf *b)
{
    if (b->cap > KEEP_BYTES)
        lr_buf_free(b);
    lr_buf_clear(b);
}

/* Loads into rbuf the whole batches from the one holding offset on: at
 * least that one, then more while they fit in `budget` bytes (the log
 * reads one segment at a time). *first gets the first batch's base. */
static int load(lr_qlog *ql, int64_t offset, uint64_t budget, int64_t *first)
{
    trim(&ql->rbuf);
    int64_t end = logrep_log_end_offset(ql->log);
    for (int one = 1; offset < end; one = 0) {
        logrep_log_slice sl;
        int err = logrep_log_read(ql->log, offset, budget, INT64_MAX, one, &sl);
        if (err)
            return err;
        if (one)
            *first = sl.first_offset;
        if (!sl.length)
            break;
        if (sl.length > budget && sl.length > LR_QBATCH_MAX_BYTES)
            return LOGREP_ERR__CORRUPT; /* a batch larger than any we accept */
        if ((err = lr_buf_reserve(&ql->rbuf, (size_t)sl.length)) ||
            (err = lr_log_read_slice(ql->log, &sl, ql->rbuf.data + ql->rbuf.len,
                                     (size_t)sl.length)))
            return err;
        ql->rbuf.len += (size_t)sl.length;
        if (sl.length >= budget)
            break;
        budget -= sl.length;
        offset = sl.next_offset;
    }
    return 0;
}

typedef struct take_ctx {
    lr_qentry *out;
    size_t cap, n;
    int64_t next; /* the offset the next entry must have */
} take_ctx;

static int take(void *x, int64_t off, const lr_qentry *e)
{
    take_ctx *t = x;
    if (off < t->next)
        return 0; /* the head of a batch that starts below the read */
    if (off != t->next)
        return LOGREP_ERR__CORRUPT; /* offsets must be dense */
    t->out[t->n++] = *e;
    t->next++;
    return t->n == t->cap ? STOP : 0;
}

/* Up to cap entries from offset (< end) into out; 0 or an error. */
static int read_entries(lr_qlog *ql, int64_t offset, lr_qentry *out, size_t cap, size_t *n)
{
    int64_t first;
    take_ctx t = {out, cap, 0, offset};
    *n = 0;
    int err = load(ql, offset, READ_BYTES, &first);
    size_t used = 0;
    if (!err)
        err = lr_qbatch_decode(ql->rbuf.data, ql->rbuf.len, take, &t, &used);
    if (!err && (used != ql->rbuf.len || t.n == 0))
        err = LOGREP_ERR__CORRUPT; /* the log hands out whole batches only */
    if (err == STOP)
        err = 0;
    if (!err)
        *n = t.n;
    return err;
}

static int64_t q_end_offset(void *ctx)
{
    return logrep_log_end_offset(((lr_qlog *)ctx)->log);
}

static int32_t q_last_epoch(void *ctx)
{
    lr_qlog *ql = ctx;
    return logrep_log_end_offset(ql->log) > 0 ? logrep_log_latest_epoch(ql->log) : -1;
}

static void q_epoch_end(void *ctx, int32_t epoch, int32_t *out_epoch, int64_t *out_end)
{
    lr_qlog *ql = ctx;
    int32_t latest = q_last_epoch(ql);
    /* The log answers (-1, -1) above its latest epoch; the quorum's
     * contract is the latest epoch and the log end. */
    if (latest >= 0 && epoch > latest) {
        *out_epoch = latest;
        *out_end = logrep_log_end_offset(ql->log);
        return;
    }
    logrep_log_epoch_end_offset(ql->log, epoch, out_epoch, out_end);
}

/* Encodes e[0..n) from base, one batch per entry, into wbuf. */
static int encode(lr_qlog *ql, int64_t base, const lr_qentry *e, size_t n)
{
    int err = 0;
    for (size_t i = 0; i < n && !err; i++)
        err = lr_qbatch_encode(base + (int64_t)i, &e[i], 1, ql->now, &ql->wbuf);
    return err;
}

static int append_wbuf(lr_qlog *ql)
{
    int err = ql->wbuf.len ? logrep_log_append_follower(ql->log, ql->wbuf.data, ql->wbuf.len,
                                                        ql->now, NULL)
                           : 0;
    trim(&ql->wbuf);
    return err;
}

static int q_append(void *ctx, int64_t base, const lr_qentry *e, size_t n)
{
    lr_qlog *ql = ctx;
    if (base != logrep_log_end_offset(ql->log) || (n && !e))
        return LOGREP_ERR__INVALID_ARG;
    /* The epoch cache records only epochs above its latest: an older one
     * would be misfiled, and a log's epochs never decrease anyway. */
    int32_t prev = q_last_epoch(ql);
    for (size_t i = 0; i < n; i++) {
        if (e[i].epoch < prev)
            return LOGREP_ERR__INVALID_ARG;
        prev = e[i].epoch;
    }
    lr_buf_clear(&ql->wbuf);
    int err = encode(ql, base, e, n);
    if (err) {
        trim(&ql->wbuf);
        return err;
    }
    return append_wbuf(ql);
}

typedef struct head_ctx {
    lr_qlog *ql;
    int64_t below;
} head_ctx;

static int keep_head(void *x, int64_t off, const lr_qentry *e)
{
    head_ctx *h = x;
    if (off >= h->below)
        return STOP;
    return lr_qbatch_encode(off, e, 1, h->ql->now, &h->ql->wbuf);
}

/* offset falls inside a batch starting at first: the batch goes whole,
 * its entries below offset come back as batches of their own, flushed
 * at once since they were durable before. */
static int truncate_inside(lr_qlog *ql, int64_t first, int64_t offset)
{
    head_ctx h = {ql, offset};
    lr_buf_clear(&ql->wbuf);
    int err = lr_qbatch_decode(ql->rbuf.data, ql->rbuf.len, keep_head, &h, NULL);
    if (err == STOP)
        err = 0;
    if (!err)
        err = logrep_log_truncate(ql->log, first);
    if (!err)
        err = append_wbuf(ql);
    else
        trim(&ql->wbuf);
    if (!err)
        err = logrep_log_flush(ql->log, ql->now);
    return err;
}

static int q_truncate(void *ctx, int64_t offset)
{
    lr_qlog *ql = ctx;
    if (offset < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (offset >= logrep_log_end_offset(ql->log))
        return 0;
    int64_t first;
    int err = load(ql, offset, 1, &first); /* the batch holding offset */
    if (err)
        return err;
    return first == offset ? logrep_log_truncate(ql->log, offset)
                           : truncate_inside(ql, first, offset);
}

static size_t q_read(void *ctx, int64_t offset, lr_qentry *out, size_t cap)
{
    lr_qlog *ql = ctx;
    size_t n = 0;
    ql->read_err = 0;
    if (offset < 0 || offset >= logrep_log_end_offset(ql->log) || !cap || !out)
        return 0;
    ql->read_err = read_entries(ql, offset, out, cap, &n);
    if (ql->read_err)
        LR_LOG(&ql->logger, LOGREP_LEVEL_ERROR, "quorum", "metadata log read at %lld: %s",
               (long long)offset, logrep_err_str(ql->read_err));
    return n;
}

static const lr_quorum_log ops = {q_end_offset, q_last_epoch, q_epoch_end,
                                  q_append,     q_truncate,   q_read};

const lr_quorum_log *lr_qlog_ops(void)
{
    return &ops;
}

int lr_qlog_new(const logrep_conf *conf, logrep_log *log, void *host, lr_qlog **out)
{
    if (!log || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (logrep_log_start_offset(log) != 0)
        return LOGREP_ERR__UNSUPPORTED;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qlog *ql = lr_calloc(a, 1, sizeof *ql);
    if (!ql)
        return LOGREP_ERR__NOMEM;
    ql->alloc = *a;
    ql->logger = lr_conf_log(conf);
    ql->log = log;
    ql->host = host;
    lr_buf_init(&ql->rbuf, &ql->alloc);
    lr_buf_init(&ql->wbuf, &ql->alloc);
    /* The epoch cache answers last_epoch and epoch_end: it must agree
     * with the batches (a lost leader-epoch-checkpoint would not). */
    int64_t end = logrep_log_end_offset(log);
    int err = 0;
    if (end > 0) {
        lr_qentry last;
        size_t n;
        err = read_entries(ql, end - 1, &last, 1, &n);
        if (err == LOGREP_ERR_OFFSET_OUT_OF_RANGE || (!err && last.epoch != q_last_epoch(ql)))
            err = LOGREP_ERR__CORRUPT;
    }
    if (err) {
        lr_qlog_free(ql);
        return err;
    }
    *out = ql;
    return 0;
}

void lr_qlog_free(lr_qlog *ql)
{
    if (!ql)
        return;
    lr_buf_free(&ql->rbuf);
    lr_buf_free(&ql->wbuf);
    lr_alloc a = ql->alloc;
    lr_free(&a, ql, sizeof *ql);
}

void *lr_qlog_host(const lr_qlog *ql)
{
    return ql ? ql->host : NULL;
}

void lr_qlog_set_now(lr_qlog *ql, int64_t now_ms)
{
    ql->now = now_ms;
}

int lr_qlog_flush(lr_qlog *ql, int64_t now_ms, int64_t *durable_end)
{
    int err = logrep_log_flush(ql->log, now_ms);
    if (durable_end)
        *durable_end = logrep_log_recovery_point(ql->log);
    return err;
}

int64_t lr_qlog_durable_end(const lr_qlog *ql)
{
    return logrep_log_recovery_point(ql->log);
}

int lr_qlog_read_error(const lr_qlog *ql)
{
    return ql->read_err;
}
