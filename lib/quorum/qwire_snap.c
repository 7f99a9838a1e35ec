/* FetchSnapshot (API 59) <-> LR_QM_FSNAP_REQ/RESP, and a Fetch answer's
 * SnapshotId (qwire.h, docs/quorum.md "On the wire"). Kafka's
 * FetchSnapshotRequest/Response.json and KafkaRaftClient are the
 * reference. */
#include <string.h>

#include "quorum/qwire_int.h"

static const uint8_t no_bytes[1];

/* --- FetchSnapshot requests ------------------------------------------------ */

int lr_qw_enc_fsnap_req(const lr_qwire *w, logrep_struct *r, int ver, const lr_qmsg *m)
{
    if (m->snap_end <= 0 || !epoch_ok(m->snap_epoch) || m->position < 0 || !epoch_ok(m->epoch) ||
        (m->observer && ver < 1))
        return BAD;
    int err = lr_qw_set_cluster_id(w, r);
    if (err)
        return err;
    lr_f_set_int(r, LR_FN_ReplicaId, m->from);
    int64_t max = m->len ? (m->len < INT32_MAX ? (int64_t)m->len : INT32_MAX)
                         : LR_QWIRE_FSNAP_MAX_BYTES;
    lr_f_set_int(r, LR_FN_MaxBytes, max);
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_Partition), *s;
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, m->epoch);
    if ((err = logrep_struct_set_struct(p, lr_fid(p, LR_FN_SnapshotId), &s)) != 0)
        return err;
    lr_f_set_int(s, LR_FN_EndOffset, m->snap_end);
    lr_f_set_int(s, LR_FN_Epoch, m->snap_epoch);
    lr_f_set_int(p, LR_FN_Position, m->position);
    if (m->observer) /* as in Fetch: a directory id marks a non-voter */
        err = logrep_struct_set_uuid(p, lr_fid(p, LR_FN_ReplicaDirectoryId), lr_qwire_observer_dir);
    return err;
}

int lr_qw_dec_fsnap_req(logrep_struct *r, lr_qmsg *out)
{
    logrep_struct *t = lr_f_count(r, LR_FN_Topics) == 1 ? lr_f_elem(r, LR_FN_Topics, 0) : NULL;
    if (!t || lr_f_count(t, LR_FN_Partitions) != 1)
        return BAD; /* Kafka means INVALID_REQUEST: the raft client asks for one */
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_Partition);
    if (!p)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    logrep_struct *s = logrep_struct_struct(p, lr_fid(p, LR_FN_SnapshotId));
    if (!s)
        return LOGREP_ERR__NOMEM;
    int64_t id = lr_f_int(r, LR_FN_ReplicaId), max = lr_f_int(r, LR_FN_MaxBytes);
    int64_t e = lr_f_int(p, LR_FN_CurrentLeaderEpoch), pos = lr_f_int(p, LR_FN_Position);
    int64_t end = lr_f_int(s, LR_FN_EndOffset), se = lr_f_int(s, LR_FN_Epoch);
    if (!id_ok(id) || max <= 0 || !epoch_ok(e) || end <= 0 || !epoch_ok(se) || pos < 0)
        return BAD;
    lr_qw_blank(out, LR_QM_FSNAP_REQ);
    out->from = (int32_t)id;
    out->epoch = (int32_t)e;
    out->snap_end = end;
    out->snap_epoch = (int32_t)se;
    out->position = pos;
    out->len = (size_t)max;
    out->observer =
        !lr_qw_is_zero_uuid(logrep_struct_uuid(p, lr_fid(p, LR_FN_ReplicaDirectoryId)));
    return 0;
}

/* --- FetchSnapshot responses ----------------------------------------------- */

static int piece_ok(int64_t pos, int64_t size, uint64_t len)
{
    return size >= 0 && pos >= 0 && pos <= size && len <= (uint64_t)(size - pos);
}

int lr_qw_enc_fsnap_resp(logrep_struct *r, const lr_qmsg *m)
{
    if (!m->error && (!piece_ok(m->position, m->size, m->len) || m->len > INT32_MAX ||
                      (m->len && !m->data)))
        return BAD;
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_Index), *s;
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_ErrorCode, m->error);
    int err = logrep_struct_set_struct(p, lr_fid(p, LR_FN_SnapshotId), &s);
    if (err)
        return err;
    lr_f_set_int(s, LR_FN_EndOffset, m->snap_end);
    lr_f_set_int(s, LR_FN_Epoch, m->snap_epoch);
    if ((err = lr_qw_put_leader(p, m)) != 0)
        return err;
    lr_f_set_int(p, LR_FN_Size, m->size);
    lr_f_set_int(p, LR_FN_Position, m->position);
    /* The piece is borrowed until the message is encoded: no copy. */
    const uint8_t *b = m->error || !m->len ? no_bytes : m->data;
    int32_t len = m->error ? 0 : (int32_t)m->len;
    return logrep_struct_set_records(p, lr_fid(p, LR_FN_UnalignedRecords), b, len);
}

int lr_qw_dec_fsnap_resp(logrep_struct *r, const lr_qmsg *req, lr_qmsg *out)
{
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_Index);
    if (!p)
        return BAD;
    int err = lr_qw_get_leader(p, out);
    if (err)
        return err;
    /* An error answer names no snapshot (Kafka's are left at 0): it is
     * about the one asked for. */
    out->snap_end = req->snap_end;
    out->snap_epoch = req->snap_epoch;
    out->position = req->position;
    if (out->error)
        return 0;
    logrep_struct *s = logrep_struct_struct(p, lr_fid(p, LR_FN_SnapshotId));
    if (!s)
        return LOGREP_ERR__NOMEM;
    int64_t size = lr_f_int(p, LR_FN_Size), pos = lr_f_int(p, LR_FN_Position);
    const uint8_t *b = NULL;
    int32_t len = -1;
    if (lr_f_int(s, LR_FN_EndOffset) != req->snap_end ||
        lr_f_int(s, LR_FN_Epoch) != req->snap_epoch ||
        logrep_struct_bytes(p, lr_fid(p, LR_FN_UnalignedRecords), &b, &len) != 0 || len < 0 ||
        (len && !b) || !piece_ok(pos, size, (uint64_t)len))
        return BAD;
    out->position = pos;
    out->size = size;
    out->data = len ? b : no_bytes;
    out->len = (size_t)len;
    return 0;
}

int lr_qwire_fsnap_unknown_response(logrep_msg *resp, logrep_msg *req)
{
    logrep_struct *rq = logrep_msg_root(req), *rs = logrep_msg_root(resp);
    if (!rq || !rs || logrep_msg_api_key(req) != LOGREP_API_FETCH_SNAPSHOT ||
        logrep_msg_api_key(resp) != LOGREP_API_FETCH_SNAPSHOT || logrep_msg_is_response(req) ||
        !logrep_msg_is_response(resp))
        return BAD;
    logrep_struct *qt = lr_f_count(rq, LR_FN_Topics) > 0 ? lr_f_elem(rq, LR_FN_Topics, 0) : NULL;
    if (!qt || lr_f_count(qt, LR_FN_Partitions) < 1)
        return BAD;
    const char *name = NULL;
    int32_t len = -1;
    if (lr_f_str(qt, LR_FN_Name, &name, &len) != 0 || len < 0)
        return BAD;
    /* Copied: the request may be gone before the answer is encoded. */
    int err = lr_f_set_count(rs, LR_FN_Topics, 1);
    logrep_struct *st = err ? NULL : lr_f_elem(rs, LR_FN_Topics, 0);
    if (!st || (err = lr_f_set_str(st, LR_FN_Name, name, len)) != 0 ||
        (err = lr_f_set_count(st, LR_FN_Partitions, 1)) != 0)
        return err ? err : LOGREP_ERR__NOMEM;
    logrep_struct *sp = lr_f_elem(st, LR_FN_Partitions, 0);
    int64_t index = lr_f_int(lr_f_elem(qt, LR_FN_Partitions, 0), LR_FN_Partition);
    lr_f_set_int(sp, LR_FN_Index, index);
    return lr_f_set_int(sp, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
}

/* --- a Fetch answer's SnapshotId ------------------------------------------- */

int lr_qw_put_snapshot_id(logrep_struct *p, const lr_qmsg *m)
{
    if (m->snap_end <= 0)
        return 0;
    if (!epoch_ok(m->snap_epoch) || m->n_entries || m->div_end_offset >= 0 || m->error)
        return BAD;
    logrep_struct *s;
    int err = logrep_struct_set_struct(p, lr_fid(p, LR_FN_SnapshotId), &s);
    if (!err)
        err = lr_f_set_int(s, LR_FN_EndOffset, m->snap_end);
    if (!err)
        err = lr_f_set_int(s, LR_FN_Epoch, m->snap_epoch);
    return err;
}

int lr_qw_get_snapshot_id(logrep_struct *p, lr_qmsg *out)
{
    int fs = lr_fid(p, LR_FN_SnapshotId);
    if (!logrep_struct_tag_present(p, fs))
        return 0;
    logrep_struct *s = logrep_struct_struct(p, fs);
    if (!s)
        return LOGREP_ERR__NOMEM;
    int64_t end = lr_f_int(s, LR_FN_EndOffset), e = lr_f_int(s, LR_FN_Epoch);
    if (end == -1 && e == -1)
        return 0; /* Kafka's "none" */
    const uint8_t *b = NULL;
    int32_t len = -1;
    /* Instead of entries: nothing may come with it. */
    if (end <= 0 || !epoch_ok(e) || out->error || out->div_end_offset >= 0 ||
        logrep_struct_bytes(p, lr_fid(p, LR_FN_Records), &b, &len) != 0 || len > 0)
        return BAD;
    out->snap_end = end;
    out->snap_epoch = (int32_t)e;
    return 0;
}
