/* Fetch, for consumers and followers alike (and brokers fetching the
 * controller's metadata log): records go out as file segments when the
 * storage gives descriptors. A fetch that cannot be answered yet
 * (min_bytes not reached within max_wait) is parked, kept decoded, and
 * runs again only when a partition it reads changes or its wait is over. */
#include <string.h>

#include "node/ctl_snapshot.h"
#include "node/node_int.h"

typedef struct parked_fetch {
    lr_parked base;
    uint8_t *frame;       /* the request, copied */
    size_t frame_len;
    logrep_msg *req;      /* decoded once, viewing frame */
    lr_park_track track;  /* what wakes it */
} parked_fetch;

/* Records read into memory for storages without file descriptors; freed
 * once the response is encoded. */
typedef struct tmpbuf {
    struct tmpbuf *next;
    size_t len;
    uint8_t data[];
} tmpbuf;

static void tmp_free(logrep_node *n, tmpbuf **list)
{
    while (*list) {
        tmpbuf *t = *list;
        *list = t->next;
        lr_free(&n->alloc, t, sizeof *t + t->len);
    }
}

/* Sets a partition's records from a log slice: a file segment when the
 * storage gives descriptors, else bytes read into a temporary buffer. */
static int set_records(logrep_node *n, logrep_struct *pe, const logrep_log_slice *sl,
                       tmpbuf **tmps, int by_file)
{
    int fr = lr_fid(pe, LR_FN_Records);
    if (!sl->length)
        return logrep_struct_set_records(pe, fr, "", 0);
    int fd;
    if (by_file && n->st->file_fd && n->st->file_fd(n->st->ctx, sl->file, &fd) == LOGREP_OK)
        return logrep_struct_set_records_file(pe, fr, fd, (int64_t)sl->position,
                                              (int64_t)sl->length);
    tmpbuf *t = lr_malloc(&n->alloc, sizeof *t + (size_t)sl->length);
    if (!t)
        return LOGREP_ERR__NOMEM;
    t->len = (size_t)sl->length;
    t->next = *tmps;
    *tmps = t;
    int err = lr_slice_read(n, sl, t->data);
    return err ? err : logrep_struct_set_records(pe, fr, t->data, (int32_t)t->len);
}

int lr_slice_read(logrep_node *n, const logrep_log_slice *sl, void *dst)
{
    size_t got;
    int err = n->st->read(n->st->ctx, sl->file, sl->position, dst, (size_t)sl->length, &got);
    if (err || got != (size_t)sl->length)
        return err ? err : LOGREP_ERR__IO;
    return 0;
}

void lr_fetch_part(logrep_node *n, lr_npart *p, const lr_fetch_req *fr, int64_t now_ms,
                   lr_fetch_res *res)
{
    int64_t hw_before = lr_partition_high_watermark(p->rep);
    lr_partition_fetch(p->rep, fr, now_ms, res);
    /* A follower's fetch can move the HW: consumers parked at the old HW
     * have data now. */
    if (lr_partition_high_watermark(p->rep) != hw_before)
        lr_node_part_changed(n, p);
}

/* Runs a fetch. Returns the bytes of records gathered, or -1 on a hard
 * error; `any_error` notes partition errors (answered at once); `tr`
 * gets the partitions read. */
static int64_t run_fetch(logrep_node *n, logrep_msg *req, logrep_msg *resp, int roles, int64_t now_ms,
                         tmpbuf **tmps, int by_file, int *any_error, int retry, lr_park_track *tr)
{
    logrep_struct *rq = logrep_msg_root(req);
    int version = logrep_msg_version(req);
    int32_t replica_id = version >= 15 ? (int32_t)lr_f_int(logrep_struct_struct(rq, lr_fid(rq, LR_FN_ReplicaState)), LR_FN_ReplicaId)
                                       : (int32_t)lr_f_int(rq, LR_FN_ReplicaId);
    int64_t replica_epoch = version >= 15 ? lr_f_int(logrep_struct_struct(rq, lr_fid(rq, LR_FN_ReplicaState)), LR_FN_ReplicaEpoch) : -1;
    int64_t max_bytes = lr_f_int(rq, LR_FN_MaxBytes);
    int read_committed = lr_f_int(rq, LR_FN_IsolationLevel) == 1;
    const char *rack = NULL;
    int32_t rack_len = 0;
    char rackbuf[64] = "";
    if (version >= 11 && lr_f_str(rq, LR_FN_RackId, &rack, &rack_len) == 0 && rack && rack_len > 0 &&
        rack_len < (int32_t)sizeof rackbuf) {
        memcpy(rackbuf, rack, (size_t)rack_len);
        rackbuf[rack_len] = 0;
    }
    logrep_struct *rs = logrep_msg_root(resp);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    lr_f_set_count(rs, LR_FN_Responses, nt);
    int64_t gathered = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Responses, i);
        const char *name = NULL;
        int32_t len = -1;
        const uint8_t *tid = NULL;
        if (version >= 13) {
            tid = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
            logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), tid);
            const lr_md_topic *t = lr_md_topic_by_id(n->md.img, tid);
            if (t) {
                name = t->name;
                len = (int32_t)strlen(t->name);
            }
        } else {
            lr_f_str(qt, LR_FN_Topic, &name, &len);
            if (name && len >= 0)
                lr_f_set_str(rt, LR_FN_Topic, name, len);
        }
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        lr_f_set_count(rt, LR_FN_Partitions, np);
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, j);
            logrep_struct *rp = lr_f_elem(rt, LR_FN_Partitions, j);
            int32_t index = (int32_t)lr_f_int(qp, LR_FN_Partition);
            lr_f_set_int(rp, LR_FN_PartitionIndex, index);
            if (tid && n->ctl && (roles & LR_ROLE_CONTROLLER) && lr_is_metadata_topic(tid) &&
                replica_epoch >= 0) {
                /* The controller's metadata log, fetched by registered
                 * brokers (they send their broker epoch) on the controller
                 * listener; clients are answered as for any topic id they
                 * cannot know. */
                logrep_log_slice sl;
                int64_t hw, ls;
                tr->md = 1;
                int64_t pmax = lr_f_int(qp, LR_FN_PartitionMaxBytes);
                logrep_err e = lr_nctl_fetch_metadata(n, lr_f_int(qp, LR_FN_FetchOffset),
                                                      (uint64_t)(pmax > 0 ? pmax : 0), &sl, &hw, &ls);
                /* Below the log start: the snapshot that stands in for
                 * it, as Kafka answers (error NONE, no records). */
                lr_qsnap_id sid;
                logrep_struct *so;
                if (e == LOGREP_ERR_OFFSET_OUT_OF_RANGE && ls > 0 &&
                    lr_f_int(qp, LR_FN_FetchOffset) < ls && lr_nctl_snapshot_latest(n, &sid) &&
                    sid.end_offset >= ls &&
                    logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_SnapshotId), &so) == 0) {
                    lr_f_set_int(so, LR_FN_EndOffset, sid.end_offset);
                    lr_f_set_int(so, LR_FN_Epoch, sid.epoch);
                    e = LOGREP_OK;
                    *any_error = 1; /* answered at once */
                }
                lr_f_set_int(rp, LR_FN_ErrorCode, lr_wire_code(e));
                lr_f_set_int(rp, LR_FN_HighWatermark, hw);
                lr_f_set_int(rp, LR_FN_LastStableOffset, hw);
                lr_f_set_int(rp, LR_FN_LogStartOffset, ls);
                lr_nctl_observed(n, replica_epoch, lr_f_int(qp, LR_FN_FetchOffset), now_ms);
                int32_t qepoch, qleader = lr_nctl_quorum_leader(n, &qepoch);
                logrep_struct *cl;
                /* With a quorum: who the active controller is, for the
                 * broker to register and heartbeat there. */
                if (qleader >= 0 &&
                    logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_CurrentLeader), &cl) == 0) {
                    lr_f_set_int(cl, LR_FN_LeaderId, qleader);
                    lr_f_set_int(cl, LR_FN_LeaderEpoch, qepoch);
                }
                if (e)
                    *any_error = 1;
                if (set_records(n, rp, &sl, tmps, by_file) != 0)
                    return -1;
                gathered += (int64_t)sl.length;
                continue;
            }
            if (!(roles & LR_ROLE_BROKER))
                name = NULL; /* a controller listener serves only the metadata log */
            /* By topic id when the request has one: the table's key. */
            lr_npart *p = !name ? NULL
                          : tid ? lr_node_part_by_id(n, tid, index)
                                : lr_part_named(n, name, len, index);
            if (!p) {
                int16_t e = name ? lr_missing_part_error(n, name, len, index)
                                 : LOGREP_ERR_UNKNOWN_TOPIC_ID;
                lr_f_set_int(rp, LR_FN_ErrorCode, e);
                lr_f_set_int(rp, LR_FN_HighWatermark, -1);
                logrep_struct_set_records(rp, lr_fid(rp, LR_FN_Records), "", 0);
                *any_error = 1;
                continue;
            }
            lr_park_track_add(n, tr, p);
            int64_t budget = max_bytes - gathered;
            int64_t pmax = lr_f_int(qp, LR_FN_PartitionMaxBytes);
            lr_fetch_req fr = {replica_id,
                               replica_epoch,
                               (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                               version >= 12 ? (int32_t)lr_f_int(qp, LR_FN_LastFetchedEpoch) : -1,
                               lr_f_int(qp, LR_FN_FetchOffset),
                               (uint64_t)(budget < pmax ? (budget > 0 ? budget : 0) : pmax),
                               gathered == 0,
                               read_committed,
                               rackbuf,
                               retry,
                               /* Fetch from follower came with v11. */
                               replica_id < 0 && version < 11};
            lr_fetch_res res;
            lr_fetch_part(n, p, &fr, now_ms, &res);
            lr_f_set_int(rp, LR_FN_ErrorCode, lr_wire_code(res.error));
            lr_f_set_int(rp, LR_FN_HighWatermark, res.high_watermark);
            lr_f_set_int(rp, LR_FN_LastStableOffset, res.last_stable_offset);
            lr_f_set_int(rp, LR_FN_LogStartOffset, res.log_start_offset);
            lr_f_set_int(rp, LR_FN_PreferredReadReplica, res.preferred_read_replica);
            if (res.diverging_epoch >= 0 || res.diverging_end_offset >= 0) {
                logrep_struct *de;
                logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_DivergingEpoch), &de);
                lr_f_set_int(de, LR_FN_Epoch, res.diverging_epoch);
                lr_f_set_int(de, LR_FN_EndOffset, res.diverging_end_offset);
                *any_error = 1;
            }
            if (res.error || res.preferred_read_replica >= 0)
                *any_error = 1;
            if (set_records(n, rp, &res.slice, tmps, by_file) != 0)
                return -1;
            gathered += (int64_t)res.slice.length;
        }
    }
    return gathered;
}

/* The top-level error of a fetch that reads nothing, or 0. */
static int16_t fetch_refusal(logrep_node *n, lr_conn *c, logrep_msg *req)
{
    logrep_struct *rq = logrep_msg_root(req);
    const char *cid;
    int32_t cid_len = -1;
    int64_t session_epoch = lr_f_int(rq, LR_FN_SessionEpoch);
    if ((lr_node_conn_roles(n, c) & LR_ROLE_CONTROLLER) &&
        lr_f_str(rq, LR_FN_ClusterId, &cid, &cid_len) == 0 && !lr_node_cluster_id_ok(n, cid, cid_len))
        return LOGREP_ERR_INCONSISTENT_CLUSTER_ID; /* not our metadata log */
    if (logrep_msg_version(req) >= 7 && session_epoch != 0 && session_epoch != -1)
        return LOGREP_ERR_FETCH_SESSION_ID_NOT_FOUND; /* incremental: no session is ever created */
    return 0;
}

/* Runs a fetch into resp and answers it when it is done: into slot when
 * given (a parked fetch, d), else in c's next slot. *answered tells
 * whether it was; tr gets the partitions read. */
static int fetch_run(logrep_node *n, lr_conn *c, lr_slot *slot, logrep_msg *req,
                     logrep_msg *resp, int64_t now_ms, const parked_fetch *d, lr_park_track *tr,
                     int *answered)
{
    *answered = 0;
    int err = logrep_msg_init_response_to(resp, req);
    if (err)
        return err;
    tmpbuf *tmps = NULL;
    int16_t top = fetch_refusal(n, c, req);
    if (top) {
        lr_f_set_int(logrep_msg_root(resp), LR_FN_ErrorCode, top);
    } else {
        logrep_struct *rq = logrep_msg_root(req);
        int any_error = 0;
        lr_park_track_reset(tr);
        /* An answer that must wait behind others on its connection is
         * copied until its turn: its records are read into memory, since
         * a descriptor may be closed (a segment deleted) and its number
         * reused before then. One sent at once goes as file segments. */
        int by_file = slot ? c->head == slot : c->head == NULL;
        int64_t got = run_fetch(n, req, resp, lr_node_conn_roles(n, c), now_ms, &tmps, by_file,
                                &any_error,
                                d != NULL, tr);
        if (got < 0) {
            tmp_free(n, &tmps);
            return LOGREP_ERR__NOMEM;
        }
        int64_t max_wait = lr_f_int(rq, LR_FN_MaxWaitMs);
        if (!(got >= lr_f_int(rq, LR_FN_MinBytes) || max_wait <= 0 || any_error ||
              (d && now_ms >= d->base.deadline) || n->life.shutting_down)) {
            tmp_free(n, &tmps);
            return 0; /* waits */
        }
    }
    *answered = 1;
    if (!slot)
        slot = lr_conn_slot(n, c);
    err = slot ? lr_conn_finish(n, c, slot, resp) : LOGREP_ERR__NOMEM;
    tmp_free(n, &tmps);
    return err;
}

static int pf_poll(logrep_node *n, lr_parked *b, int64_t now_ms)
{
    parked_fetch *d = (parked_fetch *)b;
    if (!lr_park_track_due(n, &d->track, b->deadline, now_ms))
        return 0;
    int answered;
    n->stats.parked_fetch_runs++;
    fetch_run(n, b->conn, b->slot, d->req, n->resp, now_ms, d, &d->track, &answered);
    if (!answered)
        d->track.seen_seq = n->park.seq; /* an error before answering: tried again later */
    return answered;
}

static void pf_free(logrep_node *n, lr_parked *b)
{
    parked_fetch *d = (parked_fetch *)b;
    lr_free(&n->alloc, d->frame, d->frame_len);
    lr_park_track_free(n, &d->track);
    logrep_msg_free(d->req);
    lr_free(&n->alloc, d, sizeof *d);
}

static const lr_park_ops fetch_ops = {pf_poll, lr_parked_deadline, pf_free};

int lr_api_fetch(logrep_node *n, const lr_req *r)
{
    lr_park_track tr = {NULL, 0, 0, 0, 0, 0};
    int answered;
    int err = fetch_run(n, r->conn, NULL, r->msg, r->resp, r->now_ms, NULL, &tr, &answered);
    if (err || answered) {
        lr_park_track_free(n, &tr);
        return err;
    }
    /* Parked, kept decoded: the copy of the frame is what it views. */
    parked_fetch *d = lr_calloc(&n->alloc, 1, sizeof *d);
    if (!d) {
        lr_park_track_free(n, &tr);
        return LOGREP_ERR__NOMEM;
    }
    d->track = tr;
    d->track.seen_seq = n->park.seq;
    d->base.deadline = r->now_ms + lr_f_int(logrep_msg_root(r->msg), LR_FN_MaxWaitMs);
    d->frame = lr_malloc(&n->alloc, r->len);
    if (d->frame) {
        memcpy(d->frame, r->frame, r->len);
        d->frame_len = r->len;
    }
    /* It decoded once already: only memory fails here. */
    if (!d->frame || logrep_msg_new(n->conf, &d->req) != LOGREP_OK ||
        logrep_msg_decode_request(d->req, d->frame, d->frame_len) != LOGREP_OK ||
        lr_park_add(n, r->conn, r->msg, &d->base, &fetch_ops) != 0) {
        pf_free(n, &d->base);
        return LOGREP_ERR__NOMEM;
    }
    return 0;
}
