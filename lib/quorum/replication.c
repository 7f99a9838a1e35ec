/* Replication: followers pull with Fetch (fetch offset, last fetched
 * epoch), the leader answers records or the diverging epoch, and the high
 * watermark is the majority's within the leader's epoch (docs/quorum.md). */
#include <string.h>

#include "quorum/q_int.h"

#define FETCH_CAP 64

int64_t lr_q_fetch_backoff(const lr_quorum *q)
{
    int64_t b = q->conf.election_timeout_ms / 10;
    return b > 0 ? b : 1;
}

static int64_t check_window(const lr_quorum *q)
{
    return q->conf.fetch_timeout_ms + q->conf.fetch_timeout_ms / 2;
}

/* Followers fetch only what is flushed: their fetch offset is what the
 * leader counts toward the high watermark. Observers, and voters that
 * abstain, look for the leader by asking the voters in turn. */
void lr_q_maybe_fetch(lr_quorum *q)
{
    if (q->durable_seq < q->seq || q->now < q->next_fetch)
        return;
    int32_t to;
    if (q->role == LR_QR_FOLLOWER ||
        (q->role == LR_QR_PROSPECTIVE && q->st.leader_id >= 0 &&
         q->st.leader_id != q->conf.node_id)) {
        /* A prospective voter keeps asking its last leader: an answer
         * makes it a follower again. */
        to = q->st.leader_id;
    } else if (q->role != LR_QR_LEADER && q->role != LR_QR_CANDIDATE && !lr_q_can_vote(q)) {
        to = q->voters[(size_t)q->bootstrap_rr % q->n_voters].id;
        q->bootstrap_rr = (int32_t)(((size_t)q->bootstrap_rr + 1) % q->n_voters);
        if (to == q->conf.node_id)
            return;
    } else {
        return;
    }
    if (q->snap.active) {
        lr_q_snap_request(q, to); /* the follower fetches a snapshot instead */
        return;
    }
    int64_t end = q->log.end_offset(q->ctx);
    if (q->flushed < end)
        return; /* lr_quorum_log_flushed calls again */
    lr_qmsg m = {.type = LR_QM_FETCH_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = q->st.leader_id, .fetch_offset = end,
                 .last_fetched_epoch = end > 0 ? q->log.last_epoch(q->ctx) : -1,
                 .observer = (uint8_t)!lr_q_can_vote(q), .hw = -1, .div_epoch = -1,
                 .div_end_offset = -1, .snap_end = -1};
    q->fetch_inflight = 1;
    q->next_fetch = q->now + q->conf.request_timeout_ms;
    lr_q_send(q, to, &m);
}

static void fetch_error(lr_quorum *q, const lr_qmsg *req, int16_t err)
{
    lr_qmsg r = {.type = LR_QM_FETCH_RESP, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .error = err, .leader_id = lr_quorum_leader(q), .hw = -1, .div_epoch = -1,
                 .div_end_offset = -1, .snap_end = -1};
    lr_q_send(q, req->from, &r);
}

int lr_q_on_fetch_req(lr_quorum *q, const lr_qmsg *m)
{
    if (m->fetch_offset < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (m->epoch > q->st.epoch)
        lr_q_observe_epoch(q, m->epoch, m->leader_id == q->conf.node_id ? -1 : m->leader_id);
    if (q->role != LR_QR_LEADER || !q->leader_started) {
        fetch_error(q, m, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
        return 0;
    }
    if (m->epoch < q->st.epoch) {
        fetch_error(q, m, LOGREP_ERR_FENCED_LEADER_EPOCH);
        return 0;
    }
    lr_qmsg r = {.type = LR_QM_FETCH_RESP, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = q->conf.node_id, .div_epoch = -1, .div_end_offset = -1,
                 .base_offset = m->fetch_offset, .last_fetched_epoch = m->last_fetched_epoch,
                 .snap_end = -1, .hw = q->hw > q->epoch_start ? q->hw : -1};
    /* Below our log start, the fetcher gets the snapshot to fetch. */
    if (lr_q_fetch_snapshot_id(q, m, 0, &r)) {
        lr_q_voter_contact(q, m);
        lr_q_send(q, m->from, &r);
        return 0;
    }
    /* The consistency check: our log holds the fetcher's last epoch up to
     * at least its fetch offset, else it must truncate (never below our
     * log start: then it too gets the snapshot). */
    if (m->fetch_offset > 0) {
        int32_t e = -1;
        int64_t end = -1;
        if (m->last_fetched_epoch >= 0)
            q->log.epoch_end(q->ctx, m->last_fetched_epoch, &e, &end);
        if (e < 0 || e != m->last_fetched_epoch || end < m->fetch_offset) {
            r.div_epoch = e;
            r.div_end_offset = e < 0 ? 0 : end;
            if (lr_q_fetch_snapshot_id(q, m, 1, &r))
                lr_q_voter_contact(q, m);
            lr_q_send(q, m->from, &r);
            return 0;
        }
    }
    lr_q_seen_fetch(q, m);
    lr_qvoter *v = m->observer ? NULL : lr_q_voter(q, m->from);
    if (v) {
        v->fetch_offset = m->fetch_offset;
        v->last_fetch_ms = q->now;
        lr_q_leader_update_hw(q);
    }
    lr_qentry buf[FETCH_CAP];
    size_t cap = q->conf.max_fetch_entries < FETCH_CAP ? q->conf.max_fetch_entries : FETCH_CAP;
    r.hw = q->hw > q->epoch_start ? q->hw : -1;
    r.entries = buf;
    r.n_entries = q->log.read(q->ctx, m->fetch_offset, buf, cap);
    lr_q_send(q, m->from, &r);
    return 0;
}

/* Entries must extend our log: contiguous, epochs never decreasing and
 * never above the leader's. */
static int entries_ok(lr_quorum *q, const lr_qmsg *m)
{
    int32_t prev = q->log.last_epoch(q->ctx);
    for (size_t i = 0; i < m->n_entries; i++) {
        const lr_qentry *e = &m->entries[i];
        if (e->epoch < prev || e->epoch > m->epoch || e->epoch < 0 || (e->len && !e->data))
            return 0;
        prev = e->epoch;
    }
    return 1;
}

/* 1 when the log was cut. Never below the log start: what a snapshot
 * holds is committed, and a leader sends a fetcher below its own start
 * its snapshot instead; an answer that would is refused (and the fetch
 * backs off). */
static int truncate_to(lr_quorum *q, const lr_qmsg *m)
{
    int64_t t = m->div_end_offset, start = lr_q_log_start(q);
    if (m->div_epoch < 0) {
        t = 0;
    } else {
        int32_t oe;
        int64_t oend;
        q->log.epoch_end(q->ctx, m->div_epoch, &oe, &oend);
        if (oe < 0)
            t = 0;
        else if (oend < t)
            t = oend;
    }
    if (t < start || t >= q->log.end_offset(q->ctx) || q->log.truncate(q->ctx, t) != 0)
        return 0;
    if (q->flushed > t)
        q->flushed = t;
    return 1;
}

/* An abstaining voter rejoins once it follows a leader elected after it
 * restarted and holds that leader's high watermark durably. */
static void maybe_rejoin(lr_quorum *q, const lr_qmsg *m)
{
    if (!q->st.abstaining || q->st.floor_epoch < 0 || q->st.epoch <= q->st.floor_epoch ||
        m->hw < 0)
        return;
    if (q->flushed >= m->hw && q->log.end_offset(q->ctx) >= m->hw) {
        q->st.abstaining = 0;
        q->st.floor_epoch = -1;
        lr_q_persist(q); /* votes again once this is durable */
    }
}

int lr_q_on_fetch_resp(lr_quorum *q, const lr_qmsg *m)
{
    if (q->durable_seq < q->seq)
        return 0;
    if (m->epoch > q->st.epoch) {
        lr_q_observe_epoch(q, m->epoch, m->leader_id == q->conf.node_id ? -1 : m->leader_id);
        return 0;
    }
    if (m->epoch < q->st.epoch)
        return 0;
    if (q->role != LR_QR_FOLLOWER) {
        /* The leader answering, or another node naming it; a leader that
         * answers with an error is not followed again. */
        int hint = m->error ? m->leader_id != m->from : m->leader_id == m->from;
        if (hint && m->leader_id >= 0 && m->leader_id != q->conf.node_id)
            lr_q_observe_epoch(q, m->epoch, m->leader_id);
        return 0;
    }
    if (m->from != q->st.leader_id || q->snap.active)
        return 0; /* a bootstrap answer while following; a late one */
    q->fetch_inflight = 0;
    if (m->error) {
        q->next_fetch = q->now + lr_q_fetch_backoff(q);
        return 0;
    }
    q->fetch_deadline = q->now + q->conf.fetch_timeout_ms;
    int rc = 0;
    int64_t end = q->log.end_offset(q->ctx);
    /* Only an answer to our log as it is now: a late answer to an older
     * fetch could truncate or append at the wrong place. */
    int32_t last = end > 0 ? q->log.last_epoch(q->ctx) : -1;
    if (m->base_offset != end || m->last_fetched_epoch != last) {
        q->next_fetch = q->now;
        lr_q_maybe_fetch(q);
        return 0;
    }
    if (m->snap_end > 0 && m->div_end_offset < 0) {
        /* Our log is below the leader's start: its snapshot first. The
         * answer's HW says nothing of the entries we hold. */
        if (m->snap_epoch >= 0 && m->snap_epoch <= m->epoch && m->snap_end >= q->hw)
            lr_q_snap_start(q, m);
        else
            q->next_fetch = q->now + lr_q_fetch_backoff(q);
        return 0;
    }
    if (m->div_end_offset >= 0) {
        q->next_fetch = truncate_to(q, m) ? q->now : q->now + lr_q_fetch_backoff(q);
    } else if (m->n_entries > 0 && entries_ok(q, m)) {
        rc = q->log.append(q->ctx, end, m->entries, m->n_entries);
        q->next_fetch = q->now;
    } else {
        q->next_fetch = q->now + lr_q_fetch_backoff(q);
    }
    end = q->log.end_offset(q->ctx);
    if (m->hw >= 0 && m->div_end_offset < 0)
        lr_q_set_hw(q, m->hw < end ? m->hw : end);
    maybe_rejoin(q, m);
    lr_q_maybe_fetch(q);
    return rc;
}

/* HW = the largest offset a majority of voters holds durably in this
 * epoch; undefined (left alone) until that passes the LeaderChange
 * record at epoch_start. */
void lr_q_leader_update_hw(lr_quorum *q)
{
    if (q->role != LR_QR_LEADER || !q->leader_started)
        return;
    int64_t pos[LR_QUORUM_MAX_VOTERS];
    size_t n = 0;
    for (size_t i = 0; i < q->n_voters; i++) {
        int64_t p = q->voters[i].id == q->conf.node_id ? q->flushed : q->voters[i].fetch_offset;
        size_t j = n++;
        while (j > 0 && pos[j - 1] < p) {
            pos[j] = pos[j - 1];
            j--;
        }
        pos[j] = p;
    }
    int64_t hw = pos[lr_q_majority(q) - 1];
    if (hw > q->epoch_start)
        lr_q_set_hw(q, hw);
}

/* A leader that has not heard from a majority within 1.5 fetch timeouts
 * resigns; voters that have not fetched yet are told again. */
void lr_q_leader_check_quorum(lr_quorum *q)
{
    if (!q->leader_started)
        return;
    size_t heard = 1;
    for (size_t i = 0; i < q->n_voters; i++) {
        const lr_qvoter *v = &q->voters[i];
        if (v->id != q->conf.node_id && v->last_fetch_ms >= 0 &&
            q->now - v->last_fetch_ms < check_window(q))
            heard++;
    }
    /* quorum_deadline only gives a new leader one window of grace. */
    if (heard < lr_q_majority(q) && q->now >= q->quorum_deadline) {
        lr_q_to_resigned(q);
        return;
    }
    if (q->now >= q->begin_resend) {
        q->begin_resend = q->now + q->conf.request_timeout_ms;
        lr_qmsg b = {.type = LR_QM_BEGIN_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                     .leader_id = q->conf.node_id, .div_epoch = -1, .div_end_offset = -1,
                     .hw = -1};
        for (size_t i = 0; i < q->n_voters; i++)
            if (q->voters[i].id != q->conf.node_id && q->voters[i].last_fetch_ms < 0)
                lr_q_send(q, q->voters[i].id, &b);
    }
}
