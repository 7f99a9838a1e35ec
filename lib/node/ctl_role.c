/* The controller role of a node: the controller state machine
 * (lib/controller) with its records kept in the metadata log
 * (__cluster_metadata-0, one record per batch) that brokers fetch and
 * apply in order. A restarted controller replays that log. Its APIs are
 * in ctl_api.c and ctl_create.c. */
#include <stdio.h>
#include <string.h>

#include "node/ctl_role.h"

/* The metadata log is the controller's source of truth: every record is
 * appended and flushed before any answer that depends on it leaves the
 * node (with a quorum: proposed, and answers wait for its commit). Any
 * failure is returned: the controller then stops (lr_ctl_failed). */
int lr_nctl_sink(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    logrep_node *n = ctx;
    struct lr_ctl_role *r = n->ctl;
    if (r->nq) {
        int err = lr_nq_propose(n, offset, rec, len);
        if (err)
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
                   "metadata record %lld not proposed: %s; this node stops acting as controller",
                   (long long)offset, logrep_err_name(err));
        else
            lr_node_metadata_changed(n);
        return err;
    }
    if (logrep_log_end_offset(r->log) != offset) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "metadata record %lld does not follow the log end %lld", (long long)offset,
               (long long)logrep_log_end_offset(r->log));
        return LOGREP_ERR__CORRUPT;
    }
    if (len > INT32_MAX)
        return LOGREP_ERR_MESSAGE_TOO_LARGE;
    logrep_batch_builder_reset(r->b);
    const uint8_t *out;
    size_t blen;
    logrep_err err = logrep_batch_builder_add(r->b, r->now_ms, NULL, -1, rec, (int32_t)len, NULL, 0);
    if (!err)
        err = logrep_batch_builder_finish(r->b, &out, &blen);
    if (!err && blen > r->cap) {
        uint8_t *nb = lr_realloc(&n->alloc, r->buf, r->cap, blen);
        if (!nb)
            err = LOGREP_ERR__NOMEM;
        else {
            r->buf = nb;
            r->cap = blen;
        }
    }
    logrep_log_append_info info;
    if (!err) {
        memcpy(r->buf, out, blen);
        err = logrep_log_append_leader(r->log, r->buf, blen, r->epoch, r->now_ms, &info);
    }
    /* Metadata is small and precious: durable before it is answered. */
    if (!err)
        err = logrep_log_flush(r->log, r->now_ms);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "controller",
               "metadata record %lld: %s; this node stops acting as controller",
               (long long)offset, logrep_err_name(err));
        return err;
    }
    lr_nctl_snapshot_count(n, blen);
    lr_node_metadata_changed(n);
    return 0;
}

/* Stopped after a metadata write failed: nothing may be answered from the
 * image, which holds the record that is not durable. */
static int ctl_failed(const logrep_node *n)
{
    return n->ctl && lr_ctl_failed(n->ctl->ctl) != 0;
}

/* Applies the log from `off` (the log start, or a loaded snapshot's end)
 * to the controller; records below the image's next offset are in it. */
static int replay(logrep_node *n, struct lr_ctl_role *r, int64_t off)
{
    logrep_batch_reader *rd;
    int err = logrep_batch_reader_new(n->conf, &rd);
    if (err)
        return err;
    int64_t end = logrep_log_end_offset(r->log);
    uint8_t *buf = NULL;
    size_t cap = 0;
    while (!err && off < end) {
        logrep_log_slice s;
        err = logrep_log_read(r->log, off, 1 << 20, INT64_MAX, 1, &s);
        if (err || !s.length)
            break;
        if (s.length > cap) {
            uint8_t *nb = lr_realloc(&n->alloc, buf, cap, (size_t)s.length);
            if (!nb) {
                err = LOGREP_ERR__NOMEM;
                break;
            }
            buf = nb;
            cap = (size_t)s.length;
        }
        size_t got;
        err = n->st->read(n->st->ctx, s.file, s.position, buf, (size_t)s.length, &got);
        size_t pos = 0;
        while (!err && pos < got) {
            logrep_batch_header h;
            if ((err = logrep_batch_reader_open(rd, buf + pos, got - pos, &h)) != 0)
                break;
            logrep_record rec;
            while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK)
                if (rec.value_len > 0 && rec.offset >= lr_md_next_offset(lr_ctl_image(r->ctl)))
                    lr_ctl_replay(r->ctl, rec.value, (size_t)rec.value_len);
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
            /* Bytes since the snapshot count toward the next one. */
            lr_nctl_snapshot_count(n, (size_t)h.batch_length + LOGREP_LOG_OVERHEAD);
        }
        off = s.next_offset;
    }
    lr_free(&n->alloc, buf, cap);
    logrep_batch_reader_free(rd);
    return err;
}

int lr_nctl_new(logrep_node *n, int64_t now_ms)
{
    struct lr_ctl_role *r = lr_calloc(&n->alloc, 1, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    n->ctl = r;
    r->now_ms = now_ms;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s-0", n->log_dir, LR_METADATA_TOPIC);
    /* A directory this start makes is a new voter's (formatted now); one
     * that exists holds what the node had. */
    int err = n->st->mkdir(n->st->ctx, dir);
    int fresh = err == 0;
    if (err == LOGREP_ERR__EXISTS)
        err = 0;
    if (!err)
        err = logrep_log_open(n->conf, n->st, dir, now_ms, &r->log);
    if (!err)
        err = logrep_batch_builder_new(n->conf, &r->b);
    if (!err && !(r->ctl = lr_ctl_new(n->conf, lr_nctl_sink, n)))
        err = LOGREP_ERR__NOMEM;
    lr_nsnap_init(n, &r->snap, dir, now_ms);
    if (!err && n->n_voters > 1) {
        /* A quorum: the image is built from what the quorum commits. */
        if ((err = lr_nq_start(n, r, fresh, now_ms)) != 0)
            lr_nctl_free(n, 1);
        return err;
    }
    int64_t from = 0;
    if (!err)
        err = lr_nsnap_open(n, now_ms, &from);
    if (!err)
        err = replay(n, r, from);
    /* Each start is a new leadership of the metadata log: a new epoch from
     * its end (and past the snapshot's), as a Kafka leader begins its epoch. */
    if (!err) {
        int32_t last = logrep_log_latest_epoch(r->log);
        if (last < r->snap.latest.epoch)
            last = r->snap.latest.epoch;
        r->epoch = last < 0 ? 0 : last + 1;
        err = logrep_log_epoch_assign(r->log, r->epoch, logrep_log_end_offset(r->log));
    }
    if (err) {
        lr_nctl_free(n, 1);
        return err;
    }
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "controller",
           "controller up at metadata offset %lld, epoch %d",
           (long long)logrep_log_end_offset(r->log), (int)r->epoch);
    return 0;
}

void lr_nctl_free(logrep_node *n, int abandon)
{
    struct lr_ctl_role *r = n->ctl;
    if (!r)
        return;
    /* A stopped controller writes nothing more, checkpoints included. */
    abandon = abandon || (r->ctl && lr_ctl_failed(r->ctl));
    lr_nq_free(n, r);
    lr_ctl_free(r->ctl);
    logrep_batch_builder_free(r->b);
    lr_free(&n->alloc, r->buf, r->cap);
    if (abandon)
        logrep_log_abandon(r->log);
    else if (r->log)
        logrep_log_close(r->log);
    lr_free(&n->alloc, r, sizeof *r);
    n->ctl = NULL;
}

void lr_nctl_stats(const logrep_node *n, logrep_node_stats *out)
{
    lr_ctl_stats cs;
    lr_ctl_get_stats(n->ctl->ctl, &cs);
    out->leader_changes = cs.leader_changes;
    out->unclean_elections = cs.unclean_elections;
}

int64_t lr_nctl_tick(logrep_node *n, int64_t now_ms)
{
    struct lr_ctl_role *r = n->ctl;
    if (ctl_failed(n))
        return INT64_MAX;
    r->now_ms = now_ms;
    int64_t qnext = r->nq ? lr_nq_tick(n, now_ms) : INT64_MAX;
    int err = lr_ctl_tick(r->ctl, now_ms);
    if (err && err != LOGREP_ERR_NOT_CONTROLLER)
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "controller", "tick: %s", logrep_err_name(err));
    /* Every record is flushed as it is written: what is left here is the
     * recovery-point checkpoint, which a restart can do without. */
    int64_t next = INT64_MAX;
    if ((err = logrep_log_tick(r->log, now_ms, &next)) != 0)
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "controller", "metadata log tick: %s",
               logrep_err_name(err));
    int64_t c = lr_ctl_deadline(r->ctl, now_ms);
    next = c < next ? c : next;
    /* A single controller's records are durable as written: its image may
     * be snapshotted at any tick. A quorum's caller passes its commits. */
    if (!r->nq) {
        lr_nctl_snapshot_maybe(n, now_ms, logrep_log_end_offset(r->log));
        c = lr_nctl_snapshot_deadline(n, now_ms);
        next = c < next ? c : next;
    }
    return qnext < next ? qnext : next;
}

int lr_nctl_failed(const logrep_node *n)
{
    return ctl_failed(n);
}

logrep_err lr_nctl_fetch_metadata(logrep_node *n, int64_t offset, uint64_t max_bytes,
                                  logrep_log_slice *slice, int64_t *hw, int64_t *log_start)
{
    struct lr_ctl_role *r = n->ctl;
    memset(slice, 0, sizeof *slice);
    if (ctl_failed(n)) {
        *hw = *log_start = -1;
        return LOGREP_ERR_NOT_CONTROLLER;
    }
    /* With a quorum only what it committed, which every voter holds. */
    *hw = r->nq ? lr_nctl_committed(n) : logrep_log_end_offset(r->log);
    *log_start = logrep_log_start_offset(r->log);
    if (offset == *hw)
        return LOGREP_OK;
    if (offset > *hw && r->nq)
        return LOGREP_ERR_OFFSET_OUT_OF_RANGE;
    return logrep_log_read(r->log, offset, max_bytes, r->nq ? *hw : INT64_MAX, 1, slice);
}

struct lr_ctl *lr_nctl_ctl(logrep_node *n)
{
    return n->ctl->ctl;
}

struct lr_ctl *lr_nctl_at(logrep_node *n, int64_t now_ms)
{
    n->ctl->now_ms = now_ms;
    return n->ctl->ctl;
}

const lr_md_image *lr_nctl_image(const logrep_node *n)
{
    return n && n->ctl && !ctl_failed(n) ? lr_ctl_image(n->ctl->ctl) : NULL;
}

int lr_nctl_set_topic_config(logrep_node *n, const char *topic, const char *name,
                             const char *value)
{
    if (!n || !n->ctl)
        return LOGREP_ERR_NOT_CONTROLLER;
    int err = lr_ctl_set_topic_config(n->ctl->ctl, topic, name, value);
    lr_node_metadata_changed(n); /* parked metadata fetches see the record */
    return err;
}
