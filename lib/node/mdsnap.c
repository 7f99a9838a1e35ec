/* A broker catching up from the controller's snapshot: its metadata Fetch
 * was answered with a SnapshotId (its offset is below the controller's
 * log start), so it fetches that snapshot with FetchSnapshot from the same
 * controller, piece by piece, checking and applying the records as they
 * arrive (lr_qsnap_stream) to a fresh image. Only when the whole snapshot
 * checked is that image swapped in for the broker's, at the snapshot's end
 * offset; then the metadata fetch goes on from there and the partitions
 * are brought in line as after applying records (mdfollow.c). Any error
 * (the controller changed or refused, a piece at the wrong position, a
 * corrupt batch, the connection lost) throws the partial image away and
 * starts again with a metadata fetch. Memory: one answer, one batch and
 * the image being built. */
#include <stdint.h>
#include <string.h>

#include "controller/md_snapshot.h"
#include "node/node_int.h"
#include "quorum/qsnap_stream.h"

/* Bytes asked for per FetchSnapshot. */
#define LR_MDSNAP_CHUNK (1 << 20)

struct lr_mdsnap {
    uint64_t seq;       /* tells this load's answers from an older one's */
    lr_qsnap_id id;
    int32_t ctl;        /* the controller it comes from */
    lr_md_image *img;   /* being built */
    lr_qsnap_stream *in; /* NULL until the first answer gives the size */
    uint64_t size;
    int in_flight;
};

void lr_mdsnap_free(logrep_node *n)
{
    struct lr_mdsnap *s = n->md.snap;
    if (!s)
        return;
    n->md.snap = NULL;
    lr_qsnap_stream_free(s->in);
    lr_md_free(s->img);
    lr_free(&n->alloc, s, sizeof *s);
}

/* Throws the partial snapshot away; a fresh metadata fetch follows. */
static void give_up(logrep_node *n, int64_t now_ms, const char *why, int err)
{
    struct lr_mdsnap *s = n->md.snap;
    LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node",
           "metadata snapshot %lld (epoch %d) from controller %d not loaded: %s%s%s",
           (long long)s->id.end_offset, (int)s->id.epoch, (int)s->ctl, why, err ? ": " : "",
           err ? logrep_err_name(err) : "");
    lr_mdsnap_free(n);
    /* A snapshot that did not check is not fetched again at once. */
    n->md.fetch_after = now_ms + (err == LOGREP_ERR__CORRUPT || err == LOGREP_ERR__UNSUPPORTED
                                      ? 1000
                                      : 100);
}

static int apply(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    (void)offset;
    struct lr_mdsnap *s = ctx;
    return lr_md_snapshot_apply(s->img, s->id.end_offset, rec, len);
}

void lr_mdsnap_begin(logrep_node *n, int64_t end, int32_t epoch, int64_t now_ms)
{
    struct lr_mdsnap *s = n->md.snap;
    if (s && s->id.end_offset == end && s->id.epoch == epoch)
        return;
    lr_mdsnap_free(n);
    if (end <= lr_md_next_offset(n->md.img) || epoch < 0) {
        n->md.fetch_after = now_ms + 100; /* nothing newer: the controller's log moved on */
        return;
    }
    s = lr_calloc(&n->alloc, 1, sizeof *s);
    if (s && !(s->img = lr_md_new(n->conf))) {
        lr_free(&n->alloc, s, sizeof *s);
        s = NULL;
    }
    if (!s) {
        n->md.fetch_after = now_ms + 100;
        return;
    }
    s->seq = ++n->md.snap_seq;
    s->id.end_offset = end;
    s->id.epoch = epoch;
    s->ctl = n->ctl_id;
    n->md.snap = s;
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node",
           "metadata offset %lld is below controller %d's log start: loading its snapshot %lld "
           "(epoch %d)", (long long)lr_md_next_offset(n->md.img), (int)s->ctl, (long long)end,
           (int)epoch);
}

/* The whole snapshot checked: its image becomes the broker's. */
static void install(logrep_node *n, int64_t now_ms)
{
    struct lr_mdsnap *s = n->md.snap;
    lr_qsnap_info info;
    int err = lr_qsnap_stream_finish(s->in, &info);
    if (err) {
        give_up(n, now_ms, lr_qsnap_stream_why(s->in), err);
        return;
    }
    lr_md_set_next_offset(s->img, s->id.end_offset); /* also without records */
    lr_md_image *old = n->md.img;
    n->md.img = s->img;
    s->img = old;
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node",
           "metadata snapshot %lld (epoch %d) loaded: %lld records, %llu bytes",
           (long long)s->id.end_offset, (int)s->id.epoch, (long long)info.n_records,
           (unsigned long long)info.size);
    lr_mdsnap_free(n);
    /* Partitions follow the new image as after records (broker_maybe_apply). */
    n->md.apply_retry = 1;
    n->md.apply_after = 0;
    n->md.fetch_after = now_ms;
}

/* One answer: checked against what was asked, then its bytes taken. */
static void take(logrep_node *n, int64_t now_ms)
{
    struct lr_mdsnap *s = n->md.snap;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    int16_t top = (int16_t)lr_f_int(rs, LR_FN_ErrorCode);
    logrep_struct *t = lr_f_count(rs, LR_FN_Topics) == 1 ? lr_f_elem(rs, LR_FN_Topics, 0) : NULL;
    logrep_struct *p = t && lr_f_count(t, LR_FN_Partitions) == 1 ? lr_f_elem(t, LR_FN_Partitions, 0)
                                                               : NULL;
    if (top || !p) {
        give_up(n, now_ms, top ? logrep_err_name(top) : "a malformed answer", 0);
        return;
    }
    int16_t e = (int16_t)lr_f_int(p, LR_FN_ErrorCode);
    logrep_struct *sid = logrep_struct_struct(p, lr_fid(p, LR_FN_SnapshotId));
    if (e) {
        give_up(n, now_ms, logrep_err_name(e), 0);
        return;
    }
    int64_t size = lr_f_int(p, LR_FN_Size), pos = lr_f_int(p, LR_FN_Position);
    if (lr_f_int(p, LR_FN_Index) != 0 || lr_f_int(sid, LR_FN_EndOffset) != s->id.end_offset ||
        lr_f_int(sid, LR_FN_Epoch) != s->id.epoch || size <= 0) {
        give_up(n, now_ms, "an answer for another snapshot", 0);
        return;
    }
    int err = s->in ? 0 : lr_qsnap_stream_new(n->conf, s->id, (uint64_t)size, apply, s, &s->in);
    if (!err && !s->size)
        s->size = (uint64_t)size;
    if (err || (uint64_t)size != s->size) {
        give_up(n, now_ms, err ? "cannot start reading" : "its size changed", err);
        return;
    }
    const uint8_t *b = NULL;
    int32_t len = 0;
    logrep_struct_bytes(p, lr_fid(p, LR_FN_UnalignedRecords), &b, &len);
    if (len <= 0 || pos < 0) {
        give_up(n, now_ms, "an empty piece", 0);
        return;
    }
    if ((err = lr_qsnap_stream_feed(s->in, (uint64_t)pos, b, (size_t)len)) != 0) {
        const char *why = lr_qsnap_stream_why(s->in);
        give_up(n, now_ms, why[0] ? why : "a piece at the wrong position", err);
        return;
    }
    if (lr_qsnap_stream_position(s->in) == (uint64_t)size)
        install(n, now_ms);
}

static void snap_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    struct lr_mdsnap *s = n->md.snap;
    if (!s || s->seq != (uint64_t)(uintptr_t)o->ctx)
        return; /* an answer to a load given up */
    s->in_flight = 0;
    take(n, now_ms);
}

static void snap_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    struct lr_mdsnap *s = n->md.snap;
    if (s && s->seq == (uint64_t)(uintptr_t)o->ctx)
        give_up(n, now_ms, "the connection closed", 0);
}

static const lr_out_ops snap_ops = {snap_done, snap_failed};

int lr_mdsnap_tick(logrep_node *n, int64_t now_ms)
{
    struct lr_mdsnap *s = n->md.snap;
    if (!s)
        return 0;
    if (s->ctl != n->ctl_id) {
        give_up(n, now_ms, "the controller changed", 0);
        return 0;
    }
    if (s->in_flight)
        return 1;
    lr_peer *c = lr_peer_get(n, s->ctl, LR_CH_METADATA);
    logrep_struct *r = lr_peer_ready(c, now_ms) ? lr_peer_start(n, LOGREP_API_FETCH_SNAPSHOT, 0)
                                                : NULL;
    if (!r)
        return 1;
    lr_f_set_int(r, LR_FN_ReplicaId, -1);
    lr_f_set_int(r, LR_FN_MaxBytes, LR_MDSNAP_CHUNK);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    lr_f_set_str(t, LR_FN_Name, LR_METADATA_TOPIC, (int32_t)strlen(LR_METADATA_TOPIC));
    lr_f_set_count(t, LR_FN_Partitions, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0), *sid;
    lr_f_set_int(p, LR_FN_Partition, 0);
    lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, -1);
    if (logrep_struct_set_struct(p, lr_fid(p, LR_FN_SnapshotId), &sid) != 0)
        return 1;
    lr_f_set_int(sid, LR_FN_EndOffset, s->id.end_offset);
    lr_f_set_int(sid, LR_FN_Epoch, s->id.epoch);
    lr_f_set_int(p, LR_FN_Position, s->in ? (int64_t)lr_qsnap_stream_position(s->in) : 0);
    if (lr_peer_send(n, c, &snap_ops, (void *)(uintptr_t)s->seq, now_ms) == 0)
        s->in_flight = 1;
    return 1;
}

int64_t lr_mdsnap_deadline(const logrep_node *n, int64_t now_ms)
{
    const struct lr_mdsnap *s = n->md.snap;
    if (!s || s->in_flight)
        return INT64_MAX;
    return lr_peer_after_backoff(lr_peer_find(n, s->ctl, LR_CH_METADATA), now_ms);
}
