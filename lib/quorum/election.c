/* Elections: Vote, BeginQuorumEpoch, EndQuorumEpoch, and a new leader's
 * first steps (docs/quorum.md; protocol.md for the messages). */
#include <string.h>

#include "quorum/q_int.h"

static void reply(lr_quorum *q, const lr_qmsg *req, lr_qmsg_type type, int16_t err,
                  uint8_t granted)
{
    lr_qmsg r = {.type = type, .from = q->conf.node_id, .epoch = q->st.epoch, .error = err,
                 .leader_id = lr_quorum_leader(q), .granted = granted, .div_end_offset = -1,
                 .div_epoch = -1, .hw = -1};
    lr_q_send(q, req->from, &r);
}

/* Voter-only requests from a non-voter, or of an older epoch, are
 * answered with an error and do nothing else. */
static int refused(lr_quorum *q, const lr_qmsg *m, lr_qmsg_type resp)
{
    if (!lr_q_is_voter(q, m->from))
        reply(q, m, resp, LOGREP_ERR_INCONSISTENT_VOTER_SET, 0);
    else if (m->epoch < q->st.epoch)
        reply(q, m, resp, LOGREP_ERR_FENCED_LEADER_EPOCH, 0);
    else
        return 0;
    return 1;
}

/* Raft's up-to-date rule: the candidate's last (epoch, end offset) is at
 * least ours. */
static int log_ok(lr_quorum *q, const lr_qmsg *m)
{
    int32_t e = q->log.last_epoch(q->ctx);
    int64_t end = q->log.end_offset(q->ctx);
    return m->last_epoch > e || (m->last_epoch == e && m->end_offset >= end);
}

/* A pre-vote changes nothing here. Granted when we could vote for the
 * asker in its next epoch and have no leader we heard from recently. */
static void on_pre_vote(lr_quorum *q, const lr_qmsg *m)
{
    int fresh_leader = (q->role == LR_QR_FOLLOWER && q->now < q->fetch_deadline) ||
                       q->role == LR_QR_LEADER;
    uint8_t grant = lr_q_can_vote(q) && m->epoch > q->st.epoch && !fresh_leader && log_ok(q, m);
    lr_qmsg r = {.type = LR_QM_VOTE_RESP, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = lr_quorum_leader(q), .granted = grant, .pre_vote = 1,
                 .div_end_offset = -1, .div_epoch = -1, .hw = -1};
    lr_q_send(q, m->from, &r);
}

int lr_q_on_vote_req(lr_quorum *q, const lr_qmsg *m)
{
    if (m->pre_vote) {
        if (!refused(q, m, LR_QM_VOTE_RESP))
            on_pre_vote(q, m);
        return 0;
    }
    if (refused(q, m, LR_QM_VOTE_RESP))
        return 0;
    if (m->epoch > q->st.epoch)
        lr_q_observe_epoch(q, m->epoch, -1);
    uint8_t grant = 0;
    /* A prospective voter is still Unattached or Voted in its epoch. */
    int prospective = q->role == LR_QR_PROSPECTIVE && q->st.leader_id < 0;
    if (lr_q_can_vote(q)) {
        if (q->role == LR_QR_VOTED || (prospective && q->st.voted_for >= 0))
            grant = q->st.voted_for == m->from; /* a retried request */
        else if ((q->role == LR_QR_UNATTACHED || prospective) && log_ok(q, m)) {
            lr_q_to_voted(q, m->from);
            grant = 1;
        }
    }
    /* Held by lr_q_send until the vote is durable. */
    reply(q, m, LR_QM_VOTE_RESP, 0, grant);
    return 0;
}

int lr_q_on_vote_resp(lr_quorum *q, const lr_qmsg *m)
{
    if (m->epoch > q->st.epoch) {
        lr_q_observe_epoch(q, m->epoch, m->leader_id);
        return 0;
    }
    lr_quorum_role want = m->pre_vote ? LR_QR_PROSPECTIVE : LR_QR_CANDIDATE;
    if (q->role != want || m->epoch != q->st.epoch || m->error || !m->granted)
        return 0;
    lr_qvoter *v = lr_q_voter(q, m->from);
    if (!v)
        return 0;
    v->granted = 1;
    size_t n = 0;
    for (size_t i = 0; i < q->n_voters; i++)
        n += q->voters[i].granted;
    if (n < lr_q_majority(q))
        return 0;
    if (m->pre_vote)
        lr_q_to_candidate(q);
    else
        lr_q_to_leader(q);
    return 0;
}

int lr_q_on_begin_req(lr_quorum *q, const lr_qmsg *m)
{
    if (refused(q, m, LR_QM_BEGIN_RESP))
        return 0;
    /* Two leaders in one epoch cannot both be real; keep ours. */
    if (m->epoch == q->st.epoch && (q->role == LR_QR_LEADER || q->role == LR_QR_RESIGNED))
        return 0;
    if (!(q->role == LR_QR_FOLLOWER && q->st.epoch == m->epoch && q->st.leader_id == m->from)) {
        if (m->epoch > q->st.epoch)
            lr_q_to_follower(q, m->epoch, m->from);
        else
            lr_q_observe_epoch(q, m->epoch, m->from);
    }
    reply(q, m, LR_QM_BEGIN_RESP, 0, 0);
    return 0;
}

/* Position in the resigning leader's list sets how soon we stand: the
 * first successor at once, the others later, the rest at random. */
static int64_t successor_delay(lr_quorum *q, const lr_qmsg *m)
{
    int64_t t = q->conf.election_timeout_ms;
    size_t n = m->n_successors < LR_QUORUM_MAX_VOTERS ? m->n_successors : LR_QUORUM_MAX_VOTERS;
    for (size_t i = 0; i < n; i++)
        if (m->successors[i] == q->conf.node_id)
            return (int64_t)i * (t / 2) + (int64_t)lr_prng_below(&q->rng, (uint64_t)(t / 4 + 1));
    return t + (int64_t)lr_prng_below(&q->rng, (uint64_t)t);
}

int lr_q_on_end_req(lr_quorum *q, const lr_qmsg *m)
{
    if (refused(q, m, LR_QM_END_RESP))
        return 0;
    if (m->epoch > q->st.epoch)
        lr_q_observe_epoch(q, m->epoch, -1);
    int64_t at = q->now + successor_delay(q, m);
    if (q->role == LR_QR_FOLLOWER && q->st.leader_id == m->from) {
        if (at < q->fetch_deadline)
            q->fetch_deadline = at;
    } else if (q->role == LR_QR_UNATTACHED || q->role == LR_QR_VOTED) {
        if (at < q->election_deadline)
            q->election_deadline = at;
    }
    reply(q, m, LR_QM_END_RESP, 0, 0);
    return 0;
}

/* The leadership is durable: write LeaderChange as the first record of the
 * epoch and tell the voters. The HW stays undefined until a majority has
 * this record (lr_q_leader_update_hw). */
void lr_q_start_leader(lr_quorum *q)
{
    int32_t voters[LR_QUORUM_MAX_VOTERS], granting[LR_QUORUM_MAX_VOTERS];
    size_t ng = 0;
    for (size_t i = 0; i < q->n_voters; i++) {
        voters[i] = q->voters[i].id;
        if (q->voters[i].granted)
            granting[ng++] = q->voters[i].id;
    }
    uint8_t buf[16 + 10 * LR_QUORUM_MAX_VOTERS];
    size_t len = lr_quorum_leader_change_value(q->conf.node_id, voters, q->n_voters, granting,
                                               ng, buf, sizeof(buf));
    lr_qentry e = {.epoch = q->st.epoch, .control = LR_QUORUM_CTL_LEADER_CHANGE, .data = buf,
                   .len = len};
    int64_t start = q->log.end_offset(q->ctx);
    if (q->log.append(q->ctx, start, &e, 1) != 0) {
        /* Cannot write its epoch's first record: give the epoch up. */
        lr_q_to_resigned(q);
        return;
    }
    q->leader_started = 1;
    q->epoch_start = start;
    for (size_t i = 0; i < q->n_voters; i++) {
        q->voters[i].fetch_offset = -1;
        q->voters[i].last_fetch_ms = -1;
    }
    q->quorum_deadline = q->now + q->conf.fetch_timeout_ms + q->conf.fetch_timeout_ms / 2;
    q->begin_resend = q->now + q->conf.request_timeout_ms;
    lr_qmsg b = {.type = LR_QM_BEGIN_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = q->conf.node_id, .div_epoch = -1, .div_end_offset = -1, .hw = -1};
    for (size_t i = 0; i < q->n_voters; i++)
        if (q->voters[i].id != q->conf.node_id)
            lr_q_send(q, q->voters[i].id, &b);
    lr_q_leader_update_hw(q);
}

/* EndQuorumEpoch to every other voter, most caught-up first. */
void lr_q_send_end_epoch(lr_quorum *q)
{
    lr_qmsg m = {.type = LR_QM_END_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = q->conf.node_id, .div_epoch = -1, .div_end_offset = -1, .hw = -1};
    lr_qvoter order[LR_QUORUM_MAX_VOTERS];
    size_t n = 0;
    for (size_t i = 0; i < q->n_voters; i++) {
        if (q->voters[i].id == q->conf.node_id)
            continue;
        size_t j = n++;
        while (j > 0 && order[j - 1].fetch_offset < q->voters[i].fetch_offset) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = q->voters[i];
    }
    for (size_t i = 0; i < n; i++)
        m.successors[i] = order[i].id;
    m.n_successors = (uint8_t)n;
    for (size_t i = 0; i < n; i++)
        lr_q_send(q, order[i].id, &m);
}
