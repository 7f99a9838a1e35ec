/* lr_quorum_log over a logrep_log (qlog.h). */
#include "quorum/qlog.h"

#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/conf.h"
#include "base/log.h"
#include "log/log_int.h"
#include "quorum/qbatch.h"
#include "quorum/qsnap.h"

/* Bytes read per fetch of entries (the first batch is read whole even
 * when larger), and the buffer size kept between calls. */
#define READ_BYTES (64u << 10)
#define KEEP_BYTES (1u << 20)

/* A callback's "enough": positive, unlike every error of the decoder. */
#define STOP 1

struct lr_qlog {
    lr_alloc alloc;
    lr_log logger;
    const logrep_conf *conf;
    logrep_log *log;
    void *host;
    int64_t now;
    int read_err;
    lr_buf rbuf; /* the bytes the last read's entries point into */
    lr_buf wbuf; /* batches being appended */
    /* Snapshots (lr_qlog_set_snapshots); st NULL: none. */
    const logrep_storage *st;
    char dir[LR_PATH_MAX];
    lr_qlog_load_fn load;
    lr_qsnap_id snap;     /* the newest whole snapshot; end -1: none */
    lr_qsnap_recv *recv;  /* a snapshot being received */
    lr_qsnap_id recv_id;
    lr_buf chunk;         /* the last FetchSnapshot answer's bytes */
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

static int64_t q_start_offset(void *ctx)
{
    return logrep_log_start_offset(((lr_qlog *)ctx)->log);
}

/* The snapshot that stands for the log below its start, when there is. */
static int snap_at_start(const lr_qlog *ql)
{
    return ql->snap.end_offset > 0 && ql->snap.end_offset == logrep_log_start_offset(ql->log);
}

static int32_t q_last_epoch(void *ctx)
{
    lr_qlog *ql = ctx;
    if (logrep_log_end_offset(ql->log) > logrep_log_start_offset(ql->log))
        return logrep_log_latest_epoch(ql->log);
    return snap_at_start(ql) ? ql->snap.epoch : -1;
}

static void q_epoch_end(void *ctx, int32_t epoch, int32_t *out_epoch, int64_t *out_end)
{
    lr_qlog *ql = ctx;
    int64_t start = logrep_log_start_offset(ql->log), end = logrep_log_end_offset(ql->log);
    int32_t latest = q_last_epoch(ql), first;
    int64_t first_start;
    /* The log answers (-1, -1) above its latest epoch; the quorum's
     * contract is the latest epoch and the log end. */
    if (latest >= 0 && epoch > latest) {
        *out_epoch = latest;
        *out_end = end;
        return;
    }
    /* Below the first epoch the log holds, the snapshot at its start is
     * the newest epoch <= epoch, ending there (KafkaMetadataLog's
     * endOffsetForEpoch). */
    if (snap_at_start(ql) && epoch >= ql->snap.epoch &&
        (end == start ||
         (logrep_log_epoch_entry(ql->log, 0, &first, &first_start) == 0 && first > epoch))) {
        *out_epoch = ql->snap.epoch;
        *out_end = start;
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
    /* What lies below the start is in a snapshot: committed, never cut. */
    if (offset < logrep_log_start_offset(ql->log))
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
    if (offset < logrep_log_start_offset(ql->log) || offset >= logrep_log_end_offset(ql->log) ||
        !cap || !out)
        return 0;
    ql->read_err = read_entries(ql, offset, out, cap, &n);
    if (ql->read_err)
        LR_LOG(&ql->logger, LOGREP_LEVEL_ERROR, "quorum", "metadata log read at %lld: %s",
               (long long)offset, logrep_err_str(ql->read_err));
    return n;
}

/* ---- snapshots (docs/quorum.md, "Snapshots in the quorum") ---- */

static int q_latest_snapshot(void *ctx, int64_t *end, int32_t *epoch)
{
    lr_qlog *ql = ctx;
    if (ql->snap.end_offset <= 0)
        return -1;
    *end = ql->snap.end_offset;
    *epoch = ql->snap.epoch;
    return 0;
}

static int q_snap_read(void *ctx, int64_t end, int32_t epoch, int64_t pos, size_t max,
                       const uint8_t **data, size_t *len, int64_t *size)
{
    lr_qlog *ql = ctx;
    lr_qsnap_id id = {end, epoch};
    uint64_t total = 0;
    if (!ql->st)
        return LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    if (pos < 0)
        return LOGREP_ERR_POSITION_OUT_OF_RANGE;
    lr_buf_clear(&ql->chunk);
    int err = lr_buf_reserve(&ql->chunk, max ? max : 1);
    if (!err)
        err = lr_qsnap_read_chunk(ql->st, ql->dir, id, (uint64_t)pos, ql->chunk.data, max, len,
                                  &total);
    if (err == LOGREP_ERR__NOENT)
        return LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    if (err == LOGREP_ERR__INVALID_ARG || (!err && (uint64_t)pos >= total))
        return LOGREP_ERR_POSITION_OUT_OF_RANGE;
    if (err)
        return err;
    *data = ql->chunk.data;
    *size = (int64_t)total;
    return 0;
}

static void q_snap_abort(void *ctx)
{
    lr_qlog *ql = ctx;
    lr_qsnap_recv_free(ql->recv); /* removes the .part */
    ql->recv = NULL;
}

static int q_snap_write(void *ctx, int64_t end, int32_t epoch, int64_t size, int64_t pos,
                        const uint8_t *data, size_t len)
{
    lr_qlog *ql = ctx;
    lr_qsnap_id id = {end, epoch};
    if (!ql->st)
        return LOGREP_ERR__UNSUPPORTED;
    if (size < 0 || pos < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (pos == 0) {
        q_snap_abort(ql);
        int err = lr_qsnap_recv_new(ql->conf, ql->st, ql->dir, id, (uint64_t)size, &ql->recv);
        if (err)
            return err;
        ql->recv_id = id;
    } else if (!ql->recv || ql->recv_id.end_offset != end || ql->recv_id.epoch != epoch) {
        return LOGREP_ERR__INVALID_ARG;
    }
    return lr_qsnap_recv_append(ql->recv, (uint64_t)pos, data, len);
}

/* The order keeps a crash safe: the file installed (durable), the state
 * machine loaded, then the log restarted at the snapshot's end; a crash in
 * between leaves a snapshot past the log end, which lr_qlog_set_snapshots
 * finds and restarts the log at. */
static int q_snap_install(void *ctx, int64_t end, int32_t epoch)
{
    lr_qlog *ql = ctx;
    lr_qsnap_id id = {end, epoch};
    if (!ql->recv || ql->recv_id.end_offset != end || ql->recv_id.epoch != epoch)
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qsnap_recv_finish(ql->recv, NULL);
    q_snap_abort(ql);
    if (!err && ql->load)
        err = ql->load(ql->host, id);
    if (!err)
        err = logrep_log_truncate_fully_and_start_at(ql->log, end);
    if (err) {
        LR_LOG(&ql->logger, LOGREP_LEVEL_ERROR, "quorum", "installing snapshot %lld-%d: %s",
               (long long)end, (int)epoch, logrep_err_str(err));
        return err;
    }
    ql->snap = id;
    size_t removed;
    int derr = lr_qsnap_delete_before(ql->st, ql->dir, id, &removed);
    if (derr)
        LR_LOG(&ql->logger, LOGREP_LEVEL_WARN, "quorum", "removing snapshots older than %lld: %s",
               (long long)end, logrep_err_str(derr));
    return 0;
}

static const lr_quorum_log ops = {q_end_offset,   q_last_epoch,      q_epoch_end, q_append,
                                  q_truncate,     q_read,            q_start_offset,
                                  q_latest_snapshot, q_snap_read,    q_snap_write,
                                  q_snap_install, q_snap_abort};

const lr_quorum_log *lr_qlog_ops(void)
{
    return &ops;
}

int lr_qlog_new(const logrep_conf *conf, logrep_log *log, void *host, lr_qlog **out)
{
    if (!log || !out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_qlog *ql = lr_calloc(a, 1, sizeof *ql);
    if (!ql)
        return LOGREP_ERR__NOMEM;
    ql->alloc = *a;
    ql->logger = lr_conf_log(conf);
    ql->conf = conf;
    ql->log = log;
    ql->host = host;
    ql->snap = (lr_qsnap_id){-1, -1};
    lr_buf_init(&ql->rbuf, &ql->alloc);
    lr_buf_init(&ql->wbuf, &ql->alloc);
    lr_buf_init(&ql->chunk, &ql->alloc);
    /* The epoch cache answers last_epoch and epoch_end: it must agree
     * with the batches (a lost leader-epoch-checkpoint would not). */
    int64_t end = logrep_log_end_offset(log);
    int err = 0;
    if (end > logrep_log_start_offset(log)) {
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
    q_snap_abort(ql);
    lr_buf_free(&ql->rbuf);
    lr_buf_free(&ql->wbuf);
    lr_buf_free(&ql->chunk);
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

int lr_qlog_set_snapshots(lr_qlog *ql, const logrep_storage *st, const char *dir,
                          lr_qlog_load_fn load_fn)
{
    if (!ql || !st || !dir || strlen(dir) >= sizeof ql->dir)
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qsnap_clean(st, dir, NULL);
    lr_qsnap_id id;
    if (!err)
        err = lr_qsnap_latest(ql->conf, st, dir, &id, NULL, NULL);
    if (err && err != LOGREP_ERR__NOENT)
        return err;
    int64_t start = logrep_log_start_offset(ql->log), end = logrep_log_end_offset(ql->log);
    if (!err && id.end_offset < start) {
        LR_LOG(&ql->logger, LOGREP_LEVEL_ERROR, "quorum",
               "%s: the newest snapshot ends at %lld, below the log start %lld", dir,
               (long long)id.end_offset, (long long)start);
        return LOGREP_ERR__CORRUPT;
    }
    /* An install cut short by a crash: the snapshot is past the log (or
     * of a newer epoch than its last entry), as Kafka's
     * truncateToLatestSnapshot finds it at start-up. */
    if (!err && (id.end_offset > end ||
                 (end > start && id.epoch > logrep_log_latest_epoch(ql->log)))) {
        LR_LOG(&ql->logger, LOGREP_LEVEL_WARN, "quorum",
               "%s: the log (%lld..%lld) restarts at snapshot %lld-%d", dir, (long long)start,
               (long long)end, (long long)id.end_offset, (int)id.epoch);
        if ((err = logrep_log_truncate_fully_and_start_at(ql->log, id.end_offset)))
            return err;
    }
    ql->st = st;
    memcpy(ql->dir, dir, strlen(dir) + 1);
    ql->load = load_fn;
    ql->snap = err ? (lr_qsnap_id){-1, -1} : id;
    return 0;
}

int lr_qlog_snapshot(const lr_qlog *ql, lr_qsnap_id *id)
{
    if (ql->snap.end_offset <= 0)
        return LOGREP_ERR__NOENT;
    *id = ql->snap;
    return 0;
}

void lr_qlog_snapshot_written(lr_qlog *ql, lr_qsnap_id id)
{
    if (id.end_offset > ql->snap.end_offset ||
        (id.end_offset == ql->snap.end_offset && id.epoch > ql->snap.epoch))
        ql->snap = id;
}

int lr_qlog_trim(lr_qlog *ql, lr_qsnap_id id)
{
    if (!ql->st)
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qsnap_trim_log(ql->conf, ql->st, ql->dir, ql->log, id);
    if (err)
        return err;
    lr_qlog_snapshot_written(ql, id);
    return lr_qsnap_delete_before(ql->st, ql->dir, ql->snap, NULL);
}
