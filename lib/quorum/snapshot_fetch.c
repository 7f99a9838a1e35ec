/* Snapshots in the quorum (docs/quorum.md, "Snapshots in the quorum"): a
 * leader answers a fetch below its log start with its snapshot id, and the
 * follower fetches that snapshot with FetchSnapshot, one request in flight,
 * writes it piece by piece and installs it, which restarts its log at the
 * snapshot's end. Kafka's KafkaRaftClient is the reference. */
#include "quorum/q_int.h"

#define DEFAULT_SNAPSHOT_BYTES (1u << 20)

int64_t lr_q_log_start(const lr_quorum *q)
{
    return q->log.start_offset ? q->log.start_offset(q->ctx) : 0;
}

static int latest(lr_quorum *q, int64_t *end, int32_t *epoch)
{
    return q->log.latest_snapshot && q->log.latest_snapshot(q->ctx, end, epoch) == 0 &&
           *end > 0 && *epoch >= 0;
}

/* ReplicatedLog.validateOffsetAndEpoch: a snapshot is sent when the fetch
 * is below the log start, at it with another epoch than the snapshot's,
 * or of an older epoch than the snapshot's; and (ours) when the log check
 * would send the fetcher below the log start to truncate. */
int lr_q_fetch_snapshot_id(lr_quorum *q, const lr_qmsg *m, int diverged, lr_qmsg *r)
{
    int64_t end, start = lr_q_log_start(q);
    int32_t epoch;
    if ((start == 0 && m->fetch_offset == 0) || !latest(q, &end, &epoch))
        return 0;
    int below = m->fetch_offset < start ||
                (m->fetch_offset == start && m->last_fetched_epoch != epoch) ||
                m->last_fetched_epoch < epoch;
    if (diverged)
        below = r->div_end_offset < start;
    if (!below)
        return 0;
    r->snap_end = end;
    r->snap_epoch = epoch;
    r->div_epoch = -1;
    r->div_end_offset = -1;
    return 1;
}

void lr_q_voter_contact(lr_quorum *q, const lr_qmsg *m)
{
    lr_qvoter *v = m->observer ? NULL : lr_q_voter(q, m->from);
    if (v)
        v->last_fetch_ms = q->now;
}

/* KafkaRaftClient.validateLeaderOnlyRequest, then the bytes. A future
 * epoch is not moved to: the sender knows of an election this leader
 * does not, and its next Fetch says so. */
int lr_q_on_fsnap_req(lr_quorum *q, const lr_qmsg *m)
{
    if (m->snap_end <= 0 || m->snap_epoch < 0 || m->position < 0)
        return LOGREP_ERR__INVALID_ARG;
    lr_qmsg r = {.type = LR_QM_FSNAP_RESP, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = lr_quorum_leader(q), .hw = -1, .div_epoch = -1,
                 .div_end_offset = -1, .snap_end = m->snap_end, .snap_epoch = m->snap_epoch,
                 .position = m->position, .size = -1};
    if (m->epoch < q->st.epoch)
        r.error = LOGREP_ERR_FENCED_LEADER_EPOCH;
    else if (m->epoch > q->st.epoch)
        r.error = LOGREP_ERR_UNKNOWN_LEADER_EPOCH;
    else if (q->role != LR_QR_LEADER || !q->leader_started)
        r.error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    else if (!q->log.snap_read)
        r.error = LOGREP_ERR_SNAPSHOT_NOT_FOUND;
    if (!r.error) {
        size_t max = q->conf.max_snapshot_bytes ? q->conf.max_snapshot_bytes
                                                : DEFAULT_SNAPSHOT_BYTES;
        if (m->len > 0 && m->len < max)
            max = m->len; /* the fetcher's MaxBytes */
        int rc = q->log.snap_read(q->ctx, m->snap_end, m->snap_epoch, m->position, max, &r.data,
                                  &r.len, &r.size);
        if (!rc && (m->position >= r.size || r.len > (uint64_t)(r.size - m->position) ||
                    (r.len && !r.data)))
            rc = LOGREP_ERR_POSITION_OUT_OF_RANGE;
        /* Only wire codes leave: a local (storage) error is the disk's. */
        r.error = (int16_t)(rc > 0 ? rc : rc < 0 ? LOGREP_ERR_KAFKA_STORAGE_ERROR : 0);
        if (r.error) {
            r.data = NULL;
            r.len = 0;
            r.size = -1;
        }
        lr_q_voter_contact(q, m);
    }
    lr_q_send(q, m->from, &r);
    return 0;
}

void lr_q_snap_abort(lr_quorum *q)
{
    if (!q->snap.active)
        return;
    q->snap.active = 0;
    if (q->log.snap_abort)
        q->log.snap_abort(q->ctx);
}

void lr_q_snap_start(lr_quorum *q, const lr_qmsg *m)
{
    if (!q->log.snap_write || !q->log.snap_install) {
        q->next_fetch = q->now + lr_q_fetch_backoff(q); /* a log without snapshots */
        return;
    }
    q->snap = (lr_qsnapfetch){1, m->snap_end, m->snap_epoch, 0, -1};
    q->next_fetch = q->now;
    lr_q_maybe_fetch(q);
}

void lr_q_snap_request(lr_quorum *q, int32_t to)
{
    lr_qmsg m = {.type = LR_QM_FSNAP_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = q->st.leader_id, .observer = (uint8_t)!lr_q_can_vote(q),
                 .hw = -1, .div_epoch = -1, .div_end_offset = -1, .snap_end = q->snap.end,
                 .snap_epoch = q->snap.epoch, .position = q->snap.pos, .size = -1};
    q->fetch_inflight = 1;
    q->next_fetch = q->now + q->conf.request_timeout_ms;
    lr_q_send(q, to, &m);
}

/* The fetch starts over with a Fetch, as Kafka's does when the leader no
 * longer has the snapshot or a piece could not be written. */
static void start_over(lr_quorum *q, int64_t delay)
{
    lr_q_snap_abort(q);
    q->fetch_inflight = 0;
    q->next_fetch = q->now + delay;
    lr_q_maybe_fetch(q);
}

/* Every byte is in: the host installs the file and restarts its log at
 * the snapshot's end, durable; that end is committed. */
static int install(lr_quorum *q)
{
    int64_t end = q->snap.end;
    int rc = q->log.snap_install(q->ctx, end, q->snap.epoch);
    if (rc) {
        start_over(q, lr_q_fetch_backoff(q));
        return rc;
    }
    q->snap.active = 0;
    q->flushed = q->log.end_offset(q->ctx);
    lr_q_set_hw(q, end);
    q->next_fetch = q->now;
    lr_q_maybe_fetch(q);
    return 0;
}

int lr_q_on_fsnap_resp(lr_quorum *q, const lr_qmsg *m)
{
    if (q->durable_seq < q->seq)
        return 0;
    if (m->epoch > q->st.epoch) {
        lr_q_observe_epoch(q, m->epoch, m->leader_id == q->conf.node_id ? -1 : m->leader_id);
        return 0;
    }
    if (m->epoch < q->st.epoch || q->role != LR_QR_FOLLOWER || m->from != q->st.leader_id ||
        !q->snap.active || m->snap_end != q->snap.end || m->snap_epoch != q->snap.epoch ||
        m->position != q->snap.pos)
        return 0; /* late, duplicated, or about another snapshot */
    if (m->error) {
        int gone = m->error == LOGREP_ERR_SNAPSHOT_NOT_FOUND ||
                   m->error == LOGREP_ERR_POSITION_OUT_OF_RANGE;
        if (gone) {
            start_over(q, 0);
        } else {
            q->fetch_inflight = 0;
            q->next_fetch = q->now + lr_q_fetch_backoff(q);
        }
        return 0;
    }
    if (m->size <= 0 || m->position >= m->size || m->len > (uint64_t)(m->size - m->position) ||
        (m->len && !m->data))
        return LOGREP_ERR__INVALID_ARG;
    q->fetch_deadline = q->now + q->conf.fetch_timeout_ms;
    q->fetch_inflight = 0;
    if (q->snap.size >= 0 && m->size != q->snap.size) {
        start_over(q, 0); /* not the file we had begun */
        return 0;
    }
    int rc = q->log.snap_write(q->ctx, q->snap.end, q->snap.epoch, m->size, m->position, m->data,
                               m->len);
    if (rc) {
        start_over(q, lr_q_fetch_backoff(q));
        return rc;
    }
    q->snap.size = m->size;
    q->snap.pos += (int64_t)m->len;
    if (q->snap.pos == q->snap.size)
        return install(q);
    q->next_fetch = m->len ? q->now : q->now + lr_q_fetch_backoff(q);
    lr_q_maybe_fetch(q);
    return 0;
}
