/* Quorum lifecycle, state transitions, persistence and timers
 * (docs/quorum.md). */
#include <string.h>

#include "quorum/q_int.h"

const char *lr_quorum_role_name(lr_quorum_role r)
{
    switch (r) {
    case LR_QR_UNATTACHED: return "Unattached";
    case LR_QR_VOTED: return "Voted";
    case LR_QR_CANDIDATE: return "Candidate";
    case LR_QR_LEADER: return "Leader";
    case LR_QR_FOLLOWER: return "Follower";
    case LR_QR_RESIGNED: return "Resigned";
    case LR_QR_PROSPECTIVE: return "Prospective";
    }
    return "?";
}

int lr_q_is_voter(const lr_quorum *q, int32_t id)
{
    for (size_t i = 0; i < q->n_voters; i++)
        if (q->voters[i].id == id)
            return 1;
    return 0;
}

lr_qvoter *lr_q_voter(lr_quorum *q, int32_t id)
{
    for (size_t i = 0; i < q->n_voters; i++)
        if (q->voters[i].id == id)
            return &q->voters[i];
    return NULL;
}

size_t lr_q_majority(const lr_quorum *q)
{
    return q->n_voters / 2 + 1;
}

int lr_q_can_vote(const lr_quorum *q)
{
    return q->is_voter && !q->st.abstaining;
}

static int pending(const lr_quorum *q)
{
    return q->durable_seq < q->seq;
}

/* Nothing leaves while quorum-state is not durable: small messages wait in
 * the outbox, fetches are dropped (the fetcher retries; a held response
 * could point into a log that has changed by then). */
void lr_q_send(lr_quorum *q, int32_t to, const lr_qmsg *m)
{
    if (!pending(q)) {
        q->fx.send(q->ctx, to, m);
        return;
    }
    if (m->type == LR_QM_FETCH_REQ || m->type == LR_QM_FETCH_RESP ||
        m->type == LR_QM_FSNAP_REQ || m->type == LR_QM_FSNAP_RESP)
        return;
    if (q->n_outbox == LR_Q_OUTBOX)
        return; /* the network may lose it as well */
    q->outbox[q->n_outbox] = *m;
    q->outbox[q->n_outbox].entries = NULL;
    q->outbox[q->n_outbox].n_entries = 0;
    q->outbox[q->n_outbox].data = NULL;
    q->outbox[q->n_outbox].len = 0;
    q->outbox_to[q->n_outbox++] = to;
}

void lr_q_persist(lr_quorum *q)
{
    q->seq++;
    q->fx.persist(q->ctx, &q->st, q->seq);
}

/* Election timeouts are uniform in [T, 2T) so that split votes resolve. */
void lr_q_reset_election_timer(lr_quorum *q)
{
    int64_t t = q->conf.election_timeout_ms;
    q->election_deadline = q->now + t + (int64_t)lr_prng_below(&q->rng, (uint64_t)t);
}

static void clear_seen(lr_qseen *s, int32_t id)
{
    *s = (lr_qseen){id, -1, -1, -1, -1};
}

static void clear_epoch_state(lr_quorum *q)
{
    for (size_t i = 0; i < q->n_voters; i++) {
        q->voters[i].fetch_offset = -1;
        q->voters[i].last_fetch_ms = -1;
        q->voters[i].granted = 0;
        clear_seen(&q->voters[i].seen, q->voters[i].id);
    }
    q->n_observers = 0;
    lr_q_snap_abort(q);
    q->leader_started = 0;
    q->epoch_start = -1;
    q->fetch_inflight = 0;
}

void lr_q_to_unattached(lr_quorum *q, int32_t epoch)
{
    q->role = LR_QR_UNATTACHED;
    q->st.epoch = epoch;
    q->st.voted_for = -1;
    q->st.leader_id = -1;
    clear_epoch_state(q);
    lr_q_persist(q);
    lr_q_reset_election_timer(q);
    q->next_fetch = q->now;
}

void lr_q_to_voted(lr_quorum *q, int32_t candidate)
{
    q->role = LR_QR_VOTED;
    q->st.voted_for = candidate;
    lr_q_persist(q);
    lr_q_reset_election_timer(q);
}

void lr_q_to_follower(lr_quorum *q, int32_t epoch, int32_t leader)
{
    if (epoch != q->st.epoch)
        q->st.voted_for = -1;
    q->role = LR_QR_FOLLOWER;
    q->st.epoch = epoch;
    q->st.leader_id = leader;
    clear_epoch_state(q);
    lr_q_persist(q);
    q->fetch_deadline = q->now + q->conf.fetch_timeout_ms;
    q->next_fetch = q->now;
    lr_q_maybe_fetch(q);
}

void lr_q_to_candidate(lr_quorum *q)
{
    q->role = LR_QR_CANDIDATE;
    q->st.epoch++;
    q->st.voted_for = q->conf.node_id;
    q->st.leader_id = -1;
    clear_epoch_state(q);
    lr_q_persist(q);
    lr_q_reset_election_timer(q);
    lr_q_voter(q, q->conf.node_id)->granted = 1;
    if (lr_q_majority(q) == 1) {
        lr_q_to_leader(q);
        return;
    }
    lr_qmsg m = {.type = LR_QM_VOTE_REQ, .from = q->conf.node_id, .epoch = q->st.epoch,
                 .leader_id = -1, .last_epoch = q->log.last_epoch(q->ctx),
                 .end_offset = q->log.end_offset(q->ctx), .div_epoch = -1};
    for (size_t i = 0; i < q->n_voters; i++)
        if (q->voters[i].id != q->conf.node_id)
            lr_q_send(q, q->voters[i].id, &m);
}

/* Pre-vote: ask, without moving to a new epoch or writing anything,
 * whether a majority would vote for us in epoch + 1 (KIP-996), so that a
 * voter cut off from the leader does not depose it when it comes back. */
static void to_prospective(lr_quorum *q)
{
    q->role = LR_QR_PROSPECTIVE;
    clear_epoch_state(q);
    lr_q_reset_election_timer(q);
    lr_q_voter(q, q->conf.node_id)->granted = 1;
    if (lr_q_majority(q) == 1) {
        lr_q_to_candidate(q);
        return;
    }
    lr_qmsg m = {.type = LR_QM_VOTE_REQ, .from = q->conf.node_id, .epoch = q->st.epoch + 1,
                 .leader_id = -1, .last_epoch = q->log.last_epoch(q->ctx),
                 .end_offset = q->log.end_offset(q->ctx), .pre_vote = 1, .div_epoch = -1,
                 .div_end_offset = -1, .hw = -1};
    for (size_t i = 0; i < q->n_voters; i++)
        if (q->voters[i].id != q->conf.node_id)
            lr_q_send(q, q->voters[i].id, &m);
    q->next_fetch = q->now;
}

void lr_q_stand(lr_quorum *q)
{
    if (q->conf.pre_vote)
        to_prospective(q);
    else
        lr_q_to_candidate(q);
}

/* Leadership is only acted on (LeaderChange, BeginQuorumEpoch) once this
 * state is durable: lr_quorum_state_durable calls lr_q_start_leader. */
void lr_q_to_leader(lr_quorum *q)
{
    q->role = LR_QR_LEADER;
    q->st.leader_id = q->conf.node_id;
    q->leader_started = 0;
    lr_q_persist(q);
    q->quorum_deadline = q->now + q->conf.fetch_timeout_ms + q->conf.fetch_timeout_ms / 2;
}

void lr_q_to_resigned(lr_quorum *q)
{
    q->role = LR_QR_RESIGNED;
    lr_q_reset_election_timer(q);
    lr_q_send_end_epoch(q);
}

void lr_q_observe_epoch(lr_quorum *q, int32_t epoch, int32_t leader)
{
    if (q->st.abstaining && q->st.floor_epoch < 0) {
        q->st.floor_epoch = epoch;
        if (epoch <= q->st.epoch)
            lr_q_persist(q); /* else the move below writes it */
    }
    if (epoch > q->st.epoch) {
        if (leader >= 0 && leader != q->conf.node_id)
            lr_q_to_follower(q, epoch, leader);
        else
            lr_q_to_unattached(q, epoch);
        return;
    }
    if (epoch == q->st.epoch && leader >= 0 && leader != q->conf.node_id &&
        (q->role == LR_QR_UNATTACHED || q->role == LR_QR_VOTED || q->role == LR_QR_CANDIDATE ||
         q->role == LR_QR_PROSPECTIVE))
        lr_q_to_follower(q, epoch, leader);
}

void lr_q_set_hw(lr_quorum *q, int64_t hw)
{
    if (hw <= q->hw)
        return;
    q->hw = hw;
    if (q->fx.commit)
        q->fx.commit(q->ctx, hw);
}

static int conf_ok(const lr_quorum_conf *c)
{
    if (!c->voters || c->n_voters == 0 || c->n_voters > LR_QUORUM_MAX_VOTERS || c->node_id < 0)
        return 0;
    if (c->election_timeout_ms <= 0 || c->fetch_timeout_ms <= 0 || c->request_timeout_ms <= 0)
        return 0;
    for (size_t i = 0; i < c->n_voters; i++) {
        if (c->voters[i] < 0)
            return 0;
        for (size_t j = 0; j < i; j++)
            if (c->voters[j] == c->voters[i])
                return 0;
    }
    return 1;
}

lr_quorum *lr_quorum_new(const lr_quorum_conf *conf, const lr_quorum_boot *boot,
                         const lr_quorum_log *log, const lr_quorum_fx *fx, void *ctx,
                         int64_t now_ms)
{
    if (!conf || !boot || !log || !fx || !fx->send || !fx->persist || !conf_ok(conf))
        return NULL;
    if (!log->end_offset || !log->last_epoch || !log->epoch_end || !log->append ||
        !log->truncate || !log->read)
        return NULL;
    lr_quorum *q = lr_calloc(&lr_alloc_default, 1, sizeof(*q));
    if (!q)
        return NULL;
    q->conf = *conf;
    q->conf.voters = NULL;
    if (q->conf.max_fetch_entries == 0)
        q->conf.max_fetch_entries = 64;
    q->log = *log;
    q->fx = *fx;
    q->ctx = ctx;
    q->now = now_ms;
    /* Mixed twice: hosts often derive per-node seeds as base + id, and
     * voters drawing equal timeouts would split every vote. */
    lr_prng_seed(&q->rng, lr_prng_mix(lr_prng_mix(conf->seed) ^ (uint64_t)(uint32_t)conf->node_id));
    q->n_voters = conf->n_voters;
    for (size_t i = 0; i < conf->n_voters; i++)
        q->voters[i].id = conf->voters[i];
    q->is_voter = lr_q_is_voter(q, conf->node_id);
    q->hw = -1;
    q->flushed = log->end_offset(ctx);
    clear_epoch_state(q);
    q->st = (lr_quorum_state){0, -1, -1, 0, -1};
    if (boot->state && !boot->disk_lost && boot->state->epoch >= 0)
        q->st = *boot->state;
    if (q->is_voter && (!boot->state || boot->disk_lost)) {
        /* Written at the first transition, so a restart keeps abstaining. */
        q->st.abstaining = 1;
        q->st.floor_epoch = -1;
    }
    if (!q->is_voter)
        q->st.abstaining = 0;
    /* A restarted leader or candidate does not resume: it waits in its
     * epoch (keeping its vote) and learns the leader or times out. A
     * leader it knew is followed again. */
    if (q->st.leader_id >= 0 && q->st.leader_id != conf->node_id) {
        q->role = LR_QR_FOLLOWER;
        q->fetch_deadline = now_ms + conf->fetch_timeout_ms;
        q->next_fetch = now_ms;
    } else if (q->st.leader_id == conf->node_id) {
        q->role = LR_QR_RESIGNED;
    } else {
        q->role = q->st.voted_for >= 0 ? LR_QR_VOTED : LR_QR_UNATTACHED;
    }
    lr_q_reset_election_timer(q);
    return q;
}

void lr_quorum_free(lr_quorum *q)
{
    if (q)
        lr_free(&lr_alloc_default, q, sizeof(*q));
}

static void advance(lr_quorum *q, int64_t now_ms)
{
    if (now_ms > q->now)
        q->now = now_ms;
}

void lr_quorum_tick(lr_quorum *q, int64_t now_ms)
{
    if (!q)
        return;
    advance(q, now_ms);
    switch (q->role) {
    case LR_QR_LEADER:
        lr_q_leader_check_quorum(q);
        return;
    case LR_QR_FOLLOWER:
        if (q->now >= q->fetch_deadline) {
            if (lr_q_can_vote(q)) {
                lr_q_stand(q);
                return;
            }
            /* An observer that lost its leader looks for it again. */
            q->role = LR_QR_UNATTACHED;
            q->st.leader_id = -1;
            clear_epoch_state(q);
            lr_q_persist(q);
            lr_q_reset_election_timer(q);
            q->next_fetch = q->now;
        }
        lr_q_maybe_fetch(q);
        return;
    default:
        if (q->now >= q->election_deadline) {
            if (lr_q_can_vote(q)) {
                lr_q_stand(q);
                return;
            }
            lr_q_reset_election_timer(q);
        }
        lr_q_maybe_fetch(q);
        return;
    }
}

int lr_quorum_receive(lr_quorum *q, const lr_qmsg *m, int64_t now_ms)
{
    if (!q || !m || m->epoch < 0 || m->from < 0 || m->from == q->conf.node_id)
        return LOGREP_ERR__INVALID_ARG;
    /* A FetchSnapshot request's len is the fetcher's MaxBytes, no data. */
    if ((m->n_entries && !m->entries) || (m->type != LR_QM_FSNAP_REQ && m->len && !m->data))
        return LOGREP_ERR__INVALID_ARG;
    advance(q, now_ms);
    switch (m->type) {
    case LR_QM_VOTE_REQ: return lr_q_on_vote_req(q, m);
    case LR_QM_VOTE_RESP: return lr_q_on_vote_resp(q, m);
    case LR_QM_BEGIN_REQ: return lr_q_on_begin_req(q, m);
    case LR_QM_END_REQ: return lr_q_on_end_req(q, m);
    case LR_QM_BEGIN_RESP:
    case LR_QM_END_RESP:
        /* Only their epoch matters: a newer one is followed. */
        if (m->epoch > q->st.epoch)
            lr_q_observe_epoch(q, m->epoch, m->leader_id);
        return 0;
    case LR_QM_FETCH_REQ: return lr_q_on_fetch_req(q, m);
    case LR_QM_FETCH_RESP: return lr_q_on_fetch_resp(q, m);
    case LR_QM_FSNAP_REQ: return lr_q_on_fsnap_req(q, m);
    case LR_QM_FSNAP_RESP: return lr_q_on_fsnap_resp(q, m);
    }
    return LOGREP_ERR__INVALID_ARG;
}

void lr_quorum_state_durable(lr_quorum *q, uint64_t seq, int64_t now_ms)
{
    if (!q || seq <= q->durable_seq || seq > q->seq)
        return;
    advance(q, now_ms);
    q->durable_seq = seq;
    if (pending(q))
        return;
    size_t n = q->n_outbox;
    q->n_outbox = 0;
    for (size_t i = 0; i < n; i++)
        q->fx.send(q->ctx, q->outbox_to[i], &q->outbox[i]);
    if (q->role == LR_QR_LEADER && !q->leader_started)
        lr_q_start_leader(q);
    else
        lr_q_maybe_fetch(q);
}

void lr_quorum_log_flushed(lr_quorum *q, int64_t end_offset, int64_t now_ms)
{
    if (!q)
        return;
    advance(q, now_ms);
    int64_t end = q->log.end_offset(q->ctx);
    if (end_offset > end)
        end_offset = end;
    if (end_offset > q->flushed)
        q->flushed = end_offset;
    if (q->role == LR_QR_LEADER)
        lr_q_leader_update_hw(q);
    else
        lr_q_maybe_fetch(q);
}

int lr_quorum_propose(lr_quorum *q, const lr_qentry *e, size_t n, int64_t *base)
{
    if (!q || (n && !e))
        return LOGREP_ERR__INVALID_ARG;
    if (q->role != LR_QR_LEADER || !q->leader_started || q->hw <= q->epoch_start || pending(q))
        return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    for (size_t i = 0; i < n; i++)
        if (e[i].len && !e[i].data)
            return LOGREP_ERR__INVALID_ARG;
    lr_qentry tmp[16];
    int64_t b = q->log.end_offset(q->ctx);
    if (base)
        *base = b;
    for (size_t i = 0; i < n; i += 16) {
        size_t k = n - i < 16 ? n - i : 16;
        for (size_t j = 0; j < k; j++) {
            tmp[j] = e[i + j];
            tmp[j].epoch = q->st.epoch;
            tmp[j].control = 0;
        }
        int rc = q->log.append(q->ctx, b + (int64_t)i, tmp, k);
        if (rc)
            return rc;
    }
    return 0;
}

int lr_quorum_resign(lr_quorum *q, int64_t now_ms)
{
    if (!q || q->role != LR_QR_LEADER)
        return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    advance(q, now_ms);
    lr_q_to_resigned(q);
    return 0;
}

lr_quorum_role lr_quorum_role_of(const lr_quorum *q) { return q->role; }
int32_t lr_quorum_epoch(const lr_quorum *q) { return q->st.epoch; }
int64_t lr_quorum_hw(const lr_quorum *q) { return q->hw; }
int lr_quorum_recovering(const lr_quorum *q) { return q->st.abstaining; }
int lr_quorum_durable(const lr_quorum *q) { return !pending(q); }

int32_t lr_quorum_leader(const lr_quorum *q)
{
    /* A resigned (or restarted) leader names no one: not itself. */
    return q->st.leader_id == q->conf.node_id && q->role != LR_QR_LEADER ? -1 : q->st.leader_id;
}

/* DescribeQuorum's view: a replica that fetches at the leader's log end
 * is caught up now; one that reaches the end the leader had at its
 * previous fetch was caught up then. */
void lr_q_seen_fetch(lr_quorum *q, const lr_qmsg *m)
{
    lr_qvoter *v = lr_q_voter(q, m->from);
    lr_qseen *s = v ? &v->seen : NULL;
    for (size_t i = 0; !s && i < q->n_observers; i++)
        if (q->observers[i].id == m->from)
            s = &q->observers[i];
    if (!s) {
        /* A new observer; when the table is full it replaces the one
         * heard from least recently. */
        size_t k = q->n_observers;
        if (k == LR_QUORUM_MAX_OBSERVERS) {
            k = 0;
            for (size_t i = 1; i < q->n_observers; i++)
                if (q->observers[i].fetch_ms < q->observers[k].fetch_ms)
                    k = i;
        } else {
            q->n_observers++;
        }
        s = &q->observers[k];
        clear_seen(s, m->from);
    }
    int64_t end = q->log.end_offset(q->ctx);
    if (m->fetch_offset >= end)
        s->caught_up_ms = q->now;
    else if (s->leader_end >= 0 && m->fetch_offset >= s->leader_end && s->fetch_ms > s->caught_up_ms)
        s->caught_up_ms = s->fetch_ms;
    s->offset = m->fetch_offset;
    s->fetch_ms = q->now;
    s->leader_end = end;
}

static lr_quorum_replica replica_of(const lr_qseen *s)
{
    return (lr_quorum_replica){s->id, s->offset, s->fetch_ms, s->caught_up_ms};
}

int lr_quorum_describe(const lr_quorum *q, int64_t now_ms, lr_quorum_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->leader_id = lr_quorum_leader(q);
    d->epoch = q->st.epoch;
    d->hw = -1;
    d->now_ms = now_ms > q->now ? now_ms : q->now;
    if (q->role != LR_QR_LEADER || !q->leader_started) {
        d->error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
        return d->error;
    }
    d->hw = q->hw > q->epoch_start ? q->hw : -1;
    for (size_t i = 0; i < q->n_voters; i++) {
        const lr_qvoter *v = &q->voters[i];
        if (v->id == q->conf.node_id)
            d->voters[i] = (lr_quorum_replica){v->id, q->log.end_offset(q->ctx), d->now_ms,
                                               d->now_ms};
        else
            d->voters[i] = replica_of(&v->seen);
    }
    d->n_voters = q->n_voters;
    for (size_t i = 0; i < q->n_observers; i++)
        if (d->now_ms - q->observers[i].fetch_ms < LR_QUORUM_OBSERVER_EXPIRE_MS)
            d->observers[d->n_observers++] = replica_of(&q->observers[i]);
    return 0;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* A hint: ticking earlier is harmless, later delays timeouts. */
int64_t lr_quorum_deadline(const lr_quorum *q)
{
    switch (q->role) {
    case LR_QR_LEADER: {
        /* Only times still ahead: the new leader's grace window and a
         * voter's fetch going stale each need one tick, and once passed
         * they would ask for a tick at once forever (a busy host loop
         * while a voter is down, and always after the grace window). */
        int64_t d = q->begin_resend;
        if (q->quorum_deadline > q->now)
            d = min64(d, q->quorum_deadline);
        int64_t w = q->conf.fetch_timeout_ms + q->conf.fetch_timeout_ms / 2;
        for (size_t i = 0; i < q->n_voters; i++)
            if (q->voters[i].last_fetch_ms >= 0 && q->voters[i].last_fetch_ms + w > q->now)
                d = min64(d, q->voters[i].last_fetch_ms + w);
        return d;
    }
    case LR_QR_FOLLOWER:
        /* next_fetch is also a FetchSnapshot request's resend time. */
        return min64(q->fetch_deadline, q->next_fetch);
    default:
        return lr_q_can_vote(q) ? q->election_deadline : min64(q->election_deadline, q->next_fetch);
    }
}
