/* FetchSnapshot (API 59) from brokers: a piece of one of the controller's
 * snapshot files, for a broker whose metadata Fetch was answered with a
 * SnapshotId (its fetch offset is below the log start). Kafka's checks
 * and errors (KafkaRaftClient.handleFetchSnapshotRequest):
 *   a ClusterId not this cluster's             INCONSISTENT_CLUSTER_ID (top level)
 *   not exactly one topic with one partition   INVALID_REQUEST (top level)
 *   not __cluster_metadata partition 0         UNKNOWN_TOPIC_OR_PARTITION
 *   the controller role has stopped            NOT_CONTROLLER
 *   CurrentLeaderEpoch (>= 0) older / newer    FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 *   no such snapshot                           SNAPSHOT_NOT_FOUND
 *   Position < 0 or >= the snapshot's size     POSITION_OUT_OF_RANGE
 * else up to min(MaxBytes, LR_FSNAP_MAX_BYTES) bytes from Position, with
 * the snapshot's id and size. A voter's FetchSnapshot is the quorum's
 * (dispatch.c, quorum_request). */
#include <string.h>

#include "node/ctl_role.h"

/* The most one answer carries (in memory until it is sent). */
#define LR_FSNAP_MAX_BYTES (1u << 20)

/* The leader of the metadata log and its epoch, as this node knows them. */
static int32_t leader(const logrep_node *n, int32_t *epoch)
{
    if (n->ctl->nq)
        return lr_nctl_quorum_leader(n, epoch);
    *epoch = n->ctl->epoch;
    return n->id;
}

/* The partition's answer: its error, or the piece read. */
static int16_t answer_part(logrep_node *n, const lr_req *r, logrep_struct *qp, logrep_struct *rp)
{
    int32_t epoch, lid = leader(n, &epoch);
    logrep_struct *cl;
    if (logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_CurrentLeader), &cl) == 0) {
        lr_f_set_int(cl, LR_FN_LeaderId, lid);
        lr_f_set_int(cl, LR_FN_LeaderEpoch, epoch);
    }
    if (lr_nctl_failed(n))
        return LOGREP_ERR_NOT_CONTROLLER;
    int64_t want = lr_f_int(qp, LR_FN_CurrentLeaderEpoch);
    if (want >= 0 && epoch >= 0 && want != epoch)
        return want < epoch ? LOGREP_ERR_FENCED_LEADER_EPOCH : LOGREP_ERR_UNKNOWN_LEADER_EPOCH;
    logrep_struct *qs = logrep_struct_struct(qp, lr_fid(qp, LR_FN_SnapshotId));
    lr_qsnap_id id = {lr_f_int(qs, LR_FN_EndOffset), (int32_t)lr_f_int(qs, LR_FN_Epoch)};
    int64_t pos = lr_f_int(qp, LR_FN_Position);
    if (id.end_offset < 0 || id.epoch < 0)
        return LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    if (pos < 0)
        return LOGREP_ERR_POSITION_OUT_OF_RANGE;
    int64_t max = lr_f_int(logrep_msg_root(r->msg), LR_FN_MaxBytes);
    size_t cap = max <= 0 ? 0 : max < LR_FSNAP_MAX_BYTES ? (size_t)max : LR_FSNAP_MAX_BYTES;
    uint8_t *buf = lr_msg_scratch(r->resp, cap ? cap : 1);
    if (!buf)
        return LOGREP_ERR__NOMEM;
    size_t got = 0;
    uint64_t total = 0;
    int err = lr_qsnap_read_chunk(n->st, n->ctl->snap.dir, id, (uint64_t)pos, buf, cap, &got,
                                  &total);
    if (err == LOGREP_ERR__NOENT)
        return LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    if (err == LOGREP_ERR__INVALID_ARG || (!err && (uint64_t)pos >= total))
        return LOGREP_ERR_POSITION_OUT_OF_RANGE;
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "controller", "FetchSnapshot of %lld: %s",
               (long long)id.end_offset, logrep_err_name(err));
        return lr_wire_code(err);
    }
    logrep_struct *rs;
    if ((err = logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_SnapshotId), &rs)) != 0)
        return (int16_t)err;
    lr_f_set_int(rs, LR_FN_EndOffset, id.end_offset);
    lr_f_set_int(rs, LR_FN_Epoch, id.epoch);
    lr_f_set_int(rp, LR_FN_Size, (int64_t)total);
    lr_f_set_int(rp, LR_FN_Position, pos);
    err = logrep_struct_set_records(rp, lr_fid(rp, LR_FN_UnalignedRecords), buf, (int32_t)got);
    return err ? (int16_t)err : 0;
}

int lr_ctl_api_fetch_snapshot(logrep_node *n, const lr_req *r)
{
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rq = logrep_msg_root(r->msg), *rs = logrep_msg_root(r->resp);
    const char *cid;
    int32_t cid_len = -1;
    logrep_struct *qt = lr_f_count(rq, LR_FN_Topics) == 1 ? lr_f_elem(rq, LR_FN_Topics, 0) : NULL;
    if (lr_f_str(rq, LR_FN_ClusterId, &cid, &cid_len) == 0 && !lr_node_cluster_id_ok(n, cid, cid_len))
        lr_f_set_int(rs, LR_FN_ErrorCode, LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
    else if (!qt || lr_f_count(qt, LR_FN_Partitions) != 1)
        lr_f_set_int(rs, LR_FN_ErrorCode, LOGREP_ERR_INVALID_REQUEST);
    else {
        const char *name = NULL;
        int32_t len = -1;
        lr_f_str(qt, LR_FN_Name, &name, &len);
        logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, 0);
        int32_t index = (int32_t)lr_f_int(qp, LR_FN_Partition);
        lr_f_set_count(rs, LR_FN_Topics, 1);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Topics, 0);
        lr_f_set_str(rt, LR_FN_Name, name ? name : "", len > 0 ? len : 0);
        lr_f_set_count(rt, LR_FN_Partitions, 1);
        logrep_struct *rp = lr_f_elem(rt, LR_FN_Partitions, 0);
        lr_f_set_int(rp, LR_FN_Index, index);
        int mine = name && len == (int32_t)strlen(LR_METADATA_TOPIC) &&
                   memcmp(name, LR_METADATA_TOPIC, (size_t)len) == 0 && index == 0;
        int16_t e = mine ? answer_part(n, r, qp, rp) : LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        if (e < 0)
            return e; /* out of memory: the connection closes, the broker asks again */
        lr_f_set_int(rp, LR_FN_ErrorCode, e);
    }
    return lr_req_answer(n, r);
}
