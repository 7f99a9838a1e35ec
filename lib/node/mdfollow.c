/* Following the controller's metadata log: a long-poll Fetch of
 * __cluster_metadata on its own connection, records applied to the
 * broker's image in offset order, and hosted partitions brought in line
 * once the image holds this incarnation's registration. */
#include <string.h>

#include "codec/batch.h"
#include "node/node_int.h"

/* KRaft's metadata topic id (Uuid.METADATA_TOPIC_ID). */
static const uint8_t metadata_topic_id[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

int lr_is_metadata_topic(const uint8_t id[16])
{
    return id && memcmp(id, metadata_topic_id, 16) == 0;
}

/* Partition roles follow the image only once it holds this incarnation's
 * registration (the broker epoch is its offset): records before it describe
 * the previous incarnation, which may have led with data this one lost, and
 * the controller's unclean-restart handling comes with the registration
 * (KIP-966). Applies that failed on a storage error are retried from the
 * tick. */
static void broker_maybe_apply(logrep_node *n, int64_t now_ms)
{
    if (n->md.apply_retry && now_ms >= n->md.apply_after && n->life.broker_epoch >= 0 &&
        lr_md_next_offset(n->md.img) > n->life.broker_epoch) {
        n->md.apply_retry = 0;
        lr_parts_apply(n, now_ms);
    }
}

/* Applies the metadata records in a record set (batches of records whose
 * values are metadata records). Returns 0 or an error (the rest is
 * skipped and fetched again). */
static int apply_record_set(logrep_node *n, const uint8_t *buf, size_t len, int64_t now_ms)
{
    logrep_batch_reader *r;
    int err = logrep_batch_reader_new(n->conf, &r);
    if (err)
        return err;
    size_t pos = 0;
    int applied = 0;
    while (pos < len && !err) {
        logrep_batch_header h;
        err = logrep_batch_reader_open(r, buf + pos, len - pos, &h);
        if (err == LOGREP_ERR__AGAIN) {
            err = 0; /* a partial batch at the end of a fetch */
            break;
        }
        if (err)
            break;
        logrep_record rec;
        while (!err && logrep_batch_reader_next(r, &rec) == LOGREP_OK) {
            if (rec.offset < lr_md_next_offset(n->md.img))
                continue; /* already applied */
            if (rec.offset > lr_md_next_offset(n->md.img)) {
                err = LOGREP_ERR__CORRUPT; /* a gap: refetch */
                break;
            }
            if (h.attributes & LOGREP_ATTR_CONTROL) {
                lr_md_set_next_offset(n->md.img, rec.offset + 1);
                continue;
            }
            err = lr_md_apply_bytes(n->md.img, rec.value, rec.value_len > 0 ? (size_t)rec.value_len : 0);
            if (err)
                LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node",
                       "metadata record at %lld does not apply: %s", (long long)rec.offset,
                       logrep_err_name(err));
            applied = 1;
        }
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    logrep_batch_reader_free(r);
    if (applied) {
        n->md.apply_retry = 1;
        broker_maybe_apply(n, now_ms);
    }
    return err;
}

static void md_fetch_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    n->md.fetching = 0;
    logrep_struct *t = lr_f_count(rs, LR_FN_Responses) > 0 ? lr_f_elem(rs, LR_FN_Responses, 0) : NULL;
    logrep_struct *pe = t && lr_f_count(t, LR_FN_Partitions) > 0 ? lr_f_elem(t, LR_FN_Partitions, 0) : NULL;
    const uint8_t *recs = NULL;
    int32_t rlen = 0;
    int fc = pe ? lr_fid(pe, LR_FN_CurrentLeader) : -1;
    if (fc >= 0 && logrep_struct_tag_present(pe, fc))
        lr_voters_learn(n, (int32_t)lr_f_int(logrep_struct_struct(pe, fc), LR_FN_LeaderId));
    int fs = pe ? lr_fid(pe, LR_FN_SnapshotId) : -1;
    if (fs >= 0 && logrep_struct_tag_present(pe, fs) && !lr_f_int(pe, LR_FN_ErrorCode)) {
        /* Behind the controller's log start: its snapshot first (mdsnap.c). */
        logrep_struct *so = logrep_struct_struct(pe, fs);
        lr_mdsnap_begin(n, lr_f_int(so, LR_FN_EndOffset), (int32_t)lr_f_int(so, LR_FN_Epoch),
                        now_ms);
        return;
    }
    if (pe && !lr_f_int(pe, LR_FN_ErrorCode))
        logrep_struct_bytes(pe, lr_fid(pe, LR_FN_Records), &recs, &rlen);
    else /* a stopped controller answers at once: not again at once */
        n->md.fetch_after = now_ms + 100;
    if (rlen > 0 && apply_record_set(n, recs, (size_t)rlen, now_ms) != 0)
        n->md.fetch_after = now_ms + 100;
}

static void md_fetch_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    (void)now_ms;
    n->md.fetching = 0;
}

static const lr_out_ops md_fetch_ops = {md_fetch_done, md_fetch_failed};

static void send_metadata_fetch(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = lr_peer_get(n, n->ctl_id, LR_CH_METADATA);
    logrep_struct *r =
        lr_peer_ready(c, now_ms) ? lr_peer_start(n, LOGREP_API_FETCH, LR_PEER_FETCH_VERSION) : NULL;
    if (!r)
        return;
    logrep_struct *rs;
    logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs);
    lr_f_set_int(rs, LR_FN_ReplicaId, -1);
    lr_f_set_int(rs, LR_FN_ReplicaEpoch, n->life.broker_epoch);
    lr_f_set_int(r, LR_FN_MaxWaitMs, 500);
    lr_f_set_int(r, LR_FN_MinBytes, 1);
    lr_f_set_int(r, LR_FN_MaxBytes, 8 << 20);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    logrep_struct_set_uuid(t, lr_fid(t, LR_FN_TopicId), metadata_topic_id);
    lr_f_set_count(t, LR_FN_Partitions, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    lr_f_set_int(p, LR_FN_Partition, 0);
    lr_f_set_int(p, LR_FN_FetchOffset, lr_md_next_offset(n->md.img));
    lr_f_set_int(p, LR_FN_PartitionMaxBytes, 8 << 20);
    if (lr_peer_send(n, c, &md_fetch_ops, NULL, now_ms) == 0)
        n->md.fetching = 1;
}

void lr_md_follow_tick(logrep_node *n, int64_t now_ms)
{
    if (!lr_mdsnap_tick(n, now_ms) && !n->md.fetching && now_ms >= n->md.fetch_after)
        send_metadata_fetch(n, now_ms);
    broker_maybe_apply(n, now_ms);
}

int64_t lr_md_follow_deadline(const logrep_node *n, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    if (n->md.snap)
        next = lr_mdsnap_deadline(n, now_ms);
    else if (!n->md.fetching)
        next = lr_peer_after_backoff(lr_peer_find(n, n->ctl_id, LR_CH_METADATA), n->md.fetch_after);
    /* Opens left for later, or a storage error: soon, without spinning. */
    if (n->md.apply_retry) {
        int64_t t = n->md.apply_after > now_ms + 10 ? n->md.apply_after : now_ms + 10;
        next = t < next ? t : next;
    }
    return next;
}
