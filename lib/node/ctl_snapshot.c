/* Snapshots of the metadata log in the controller role: the policy, the
 * write and trim, and the load at start-up (ctl_snapshot.h). */
#include <stdio.h>
#include <string.h>

#include "codec/batch.h"
#include "controller/md_snapshot.h"
#include "node/ctl_role.h"

static lr_nsnap *snap_of(const logrep_node *n)
{
    return n && n->ctl ? &n->ctl->snap : NULL;
}

void lr_nsnap_init(logrep_node *n, lr_nsnap *s, const char *dir, int64_t now_ms)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->latest.end_offset = -1;
    s->latest.epoch = -1;
    s->max_bytes = lr_conf_int(n->conf, LR_CONF_METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS);
    s->interval_ms = lr_conf_int(n->conf, LR_CONF_METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS);
    s->since_ms = now_ms;
}

const char *lr_nctl_snapshot_dir(const logrep_node *n)
{
    lr_nsnap *s = snap_of(n);
    return s ? s->dir : NULL;
}

int lr_nctl_snapshot_latest(const logrep_node *n, lr_qsnap_id *id)
{
    lr_nsnap *s = snap_of(n);
    if (!s || s->latest.end_offset < 0)
        return 0;
    *id = s->latest;
    return 1;
}

void lr_nctl_snapshot_set_latest(logrep_node *n, lr_qsnap_id id, int64_t now_ms)
{
    lr_nsnap *s = snap_of(n);
    if (!s || id.end_offset < s->latest.end_offset ||
        (id.end_offset == s->latest.end_offset && id.epoch <= s->latest.epoch))
        return;
    s->latest = id;
    s->bytes = 0;
    s->since_ms = now_ms;
}

void lr_nctl_snapshot_count(logrep_node *n, uint64_t bytes)
{
    lr_nsnap *s = snap_of(n);
    if (s)
        s->bytes += bytes > INT64_MAX - (uint64_t)s->bytes ? INT64_MAX - s->bytes : (int64_t)bytes;
}

/* ---- loading ---- */

typedef struct file_src {
    logrep_node *n;
    lr_qsnap_id id;
    lr_ctl_snap_put_fn put;
    void *put_ctx;
    lr_qsnap_info info;
} file_src;

static int put_record(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    (void)offset;
    file_src *f = ctx;
    return f->put(f->put_ctx, rec, len);
}

/* The snapshot file as the controller's record source: checked whole
 * before the first record is handed over (lr_qsnap_read). */
static int from_file(void *ctx, lr_ctl_snap_put_fn put, void *put_ctx)
{
    file_src *f = ctx;
    f->put = put;
    f->put_ctx = put_ctx;
    return lr_qsnap_read(f->n->conf, f->n->st, f->n->ctl->snap.dir, f->id, put_record, f,
                         &f->info);
}

int lr_nctl_snapshot_load(logrep_node *n, lr_qsnap_id id, int64_t now_ms)
{
    struct lr_ctl_role *r = n->ctl;
    if (!r)
        return LOGREP_ERR_NOT_CONTROLLER;
    file_src f = {n, id, NULL, NULL, {{0, 0}, 0, 0, 0, ""}};
    int err = lr_ctl_load_snapshot(r->ctl, n->conf, id.end_offset, from_file, &f);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "metadata snapshot %lld (epoch %d) not loaded: %s%s%s", (long long)id.end_offset,
               (int)id.epoch, logrep_err_name(err), f.info.why[0] ? ": " : "", f.info.why);
        return err;
    }
    lr_nctl_snapshot_set_latest(n, id, now_ms);
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "controller",
           "metadata snapshot %lld (epoch %d, %lld records) loaded", (long long)id.end_offset,
           (int)id.epoch, (long long)f.info.n_records);
    return 0;
}

int lr_nsnap_open(logrep_node *n, int64_t now_ms, int64_t *from)
{
    struct lr_ctl_role *r = n->ctl;
    lr_nsnap *s = &r->snap;
    int64_t start = logrep_log_start_offset(r->log), end = logrep_log_end_offset(r->log);
    *from = start;
    int err = lr_qsnap_clean(n->st, s->dir, NULL);
    lr_qsnap_id id;
    if (!err)
        err = lr_qsnap_latest(n->conf, n->st, s->dir, &id, NULL, NULL);
    if (err == LOGREP_ERR__NOENT) {
        if (start <= 0)
            return 0;
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "the metadata log starts at %lld and no snapshot holds what was below it: the "
               "metadata cannot be rebuilt", (long long)start);
        return LOGREP_ERR__CORRUPT;
    }
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller", "metadata snapshots in %s: %s",
               s->dir, logrep_err_name(err));
        return err;
    }
    if (start > id.end_offset) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "the metadata log starts at %lld, past the newest snapshot's end %lld: the "
               "records between are lost and the metadata cannot be rebuilt",
               (long long)start, (long long)id.end_offset);
        return LOGREP_ERR__CORRUPT;
    }
    if ((err = lr_nctl_snapshot_load(n, id, now_ms)) != 0)
        return err;
    /* A log that ends below the snapshot (lost, or cut by a crash while a
     * snapshot was installed) restarts empty at its end, as Kafka's
     * truncateFullyAndStartAt: the snapshot stands for everything below. */
    if (end < id.end_offset) {
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "controller",
               "the metadata log ends at %lld, below the newest snapshot's end %lld: it "
               "restarts there", (long long)end, (long long)id.end_offset);
        if ((err = logrep_log_truncate_fully_and_start_at(r->log, id.end_offset)) != 0) {
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
                   "restarting the metadata log at %lld: %s", (long long)id.end_offset,
                   logrep_err_name(err));
            return err;
        }
        start = end = id.end_offset;
    }
    *from = id.end_offset > start ? id.end_offset : start;
    /* What a crash between writing and trimming left: done now, or by the
     * next snapshot should it fail. */
    if (start < id.end_offset && id.end_offset <= end)
        err = lr_qsnap_trim_log(n->conf, n->st, s->dir, r->log, id);
    if (!err)
        err = lr_qsnap_delete_before(n->st, s->dir, id, NULL);
    if (err)
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "controller",
               "the metadata log below snapshot %lld not trimmed at start-up: %s",
               (long long)id.end_offset, logrep_err_name(err));
    return 0;
}

/* ---- writing ---- */

static int add_record(void *ctx, const uint8_t *rec, size_t len)
{
    return lr_qsnap_writer_add(ctx, rec, len);
}

/* The epoch (leader-epoch cache) and the batch max timestamp of the entry
 * at offset `at` of the metadata log. */
static int entry_at(logrep_node *n, logrep_log *log, int64_t at, int32_t *epoch, int64_t *ts)
{
    *epoch = -1;
    int32_t e;
    int64_t st;
    for (size_t i = 0; logrep_log_epoch_entry(log, i, &e, &st) == LOGREP_OK; i++)
        if (st <= at)
            *epoch = e;
    if (*epoch < 0)
        return LOGREP_ERR__CORRUPT; /* no epoch holds it: the cache is cut above it */
    logrep_log_slice sl;
    int err = logrep_log_read(log, at, 1, INT64_MAX, 1, &sl);
    if (!err && sl.length < LOGREP_BATCH_HEADER_SIZE)
        err = LOGREP_ERR__CORRUPT;
    uint8_t head[LOGREP_BATCH_HEADER_SIZE];
    size_t got;
    if (!err)
        err = n->st->read(n->st->ctx, sl.file, sl.position, head, sizeof head, &got);
    if (!err && got != sizeof head)
        err = LOGREP_ERR__IO;
    if (err)
        return err;
    logrep_batch_header h;
    lr_batch_header_decode(head, &h);
    *ts = h.max_timestamp;
    return 0;
}

/* The log below a durable snapshot goes: a new segment from its end, so
 * that the older ones are deleted whole, the start moved, then the older
 * snapshots deleted. A crash between any two leaves a snapshot at or
 * above the log start. */
static int trim(logrep_node *n, lr_qsnap_id id, int64_t now_ms)
{
    struct lr_ctl_role *r = n->ctl;
    int err = logrep_log_end_offset(r->log) == id.end_offset ? logrep_log_roll(r->log, now_ms) : 0;
    if (!err)
        err = lr_qsnap_trim_log(n->conf, n->st, r->snap.dir, r->log, id);
    if (!err)
        err = lr_qsnap_delete_before(n->st, r->snap.dir, id, NULL);
    return err;
}

int lr_nctl_snapshot_now(logrep_node *n, int64_t now_ms, int64_t committed_end)
{
    struct lr_ctl_role *r = n->ctl;
    if (!r || lr_ctl_failed(r->ctl))
        return 0;
    lr_nsnap *s = &r->snap;
    const lr_md_image *img = lr_ctl_image(r->ctl);
    lr_qsnap_id id = {lr_md_next_offset(img), -1};
    /* Only committed state: the image is exactly the log below committed_end. */
    if (id.end_offset != committed_end || id.end_offset <= 0 ||
        id.end_offset <= s->latest.end_offset)
        return 0;
    int64_t last_ts = -1, n_rec = 0;
    uint64_t size = 0;
    lr_qsnap_writer *w = NULL;
    int err = entry_at(n, r->log, id.end_offset - 1, &id.epoch, &last_ts);
    if (!err)
        err = lr_qsnap_writer_new(n->conf, n->st, s->dir, id, last_ts, now_ms, &w);
    if (!err)
        err = lr_md_snapshot_records(img, add_record, w, &n_rec);
    if (!err)
        err = lr_qsnap_writer_finish(w, &size);
    lr_qsnap_writer_free(w);
    if (err) {
        s->failed++;
        s->retry_ms = now_ms + LR_NSNAP_RETRY_MS;
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "metadata snapshot at %lld not written: %s; the log stays whole, tried again "
               "in %d ms", (long long)id.end_offset, logrep_err_name(err), LR_NSNAP_RETRY_MS);
        return err;
    }
    s->written++;
    lr_nctl_snapshot_set_latest(n, id, now_ms);
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "controller",
           "metadata snapshot %lld (epoch %d): %lld records, %llu bytes",
           (long long)id.end_offset, (int)id.epoch, (long long)n_rec, (unsigned long long)size);
    if ((err = trim(n, id, now_ms)) != 0) {
        s->failed++;
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "the metadata log not trimmed below snapshot %lld: %s; tried again at the next "
               "snapshot", (long long)id.end_offset, logrep_err_name(err));
        return err;
    }
    return 1;
}

/* When the policy asks for the next snapshot, INT64_MAX never: records
 * not in the latest one, and their bytes reaching max_bytes or the
 * interval passed; not before a failed write's retry. */
static int64_t due_at(const lr_nsnap *s, const lr_ctl *ctl, int64_t now_ms)
{
    int64_t e = lr_md_next_offset(lr_ctl_image(ctl));
    int64_t at = INT64_MAX;
    if (lr_ctl_failed(ctl) || e <= 0 || e <= s->latest.end_offset)
        return INT64_MAX;
    if (s->bytes >= s->max_bytes)
        at = now_ms;
    else if (s->interval_ms > 0)
        at = s->since_ms > INT64_MAX - s->interval_ms ? INT64_MAX : s->since_ms + s->interval_ms;
    return at < s->retry_ms ? s->retry_ms : at;
}

int lr_nctl_snapshot_maybe(logrep_node *n, int64_t now_ms, int64_t committed_end)
{
    struct lr_ctl_role *r = n->ctl;
    return r && now_ms >= due_at(&r->snap, r->ctl, now_ms)
               ? lr_nctl_snapshot_now(n, now_ms, committed_end)
               : 0;
}

int64_t lr_nctl_snapshot_deadline(const logrep_node *n, int64_t now_ms)
{
    const struct lr_ctl_role *r = n->ctl;
    return r ? due_at(&r->snap, r->ctl, now_ms) : INT64_MAX;
}
