/* This controller as a voter of the metadata quorum (docs/quorum.md, "In
 * the node"): lib/quorum's state machine over the metadata partition
 * (lr_qlog over the role's logrep_log) and the quorum-state file.
 *
 * Every voter keeps a controller (lib/controller) that is a standby: it
 * replays each record once the quorum has committed it. The voter that
 * leads the quorum becomes the active controller once its LeaderChange
 * record is committed (its image then holds every committed record, and
 * nothing else); its records go to the quorum as proposals, and the
 * answers that depend on them wait until they commit (ctl_hold.c). When
 * it stops leading, records it proposed may be truncated away: its
 * controller is rebuilt from the committed log and is a standby again.
 *
 * Effects of the quorum are not acted on inside its calls: a quorum-state
 * write, a log flush and the commits are done by lr_nq_pump once the
 * call returned, and the pump runs after every event. */
#include <stdio.h>
#include <string.h>

#include "node/ctl_role.h"
#include "quorum/qstate.h"

/* The record batch bytes of one entry, near enough, for the snapshot
 * policy: 61 bytes of batch header and about 9 of record framing (qlog
 * writes one batch per entry). */
#define LR_NQ_ENTRY_BYTES(len) ((uint64_t)(len) + 70)

static lr_nq *nq_of(logrep_node *n)
{
    return n->ctl ? n->ctl->nq : NULL;
}

/* ------------------------------------------------------------ effects */

static void fx_send(void *ctx, int32_t to, const lr_qmsg *m)
{
    lr_nq_send(lr_qlog_host(ctx), to, m);
}

static void fx_persist(void *ctx, const lr_quorum_state *s, uint64_t seq)
{
    lr_nq *nq = nq_of(lr_qlog_host(ctx));
    nq->persist_state = *s;
    nq->persist_seq = seq;
    nq->persist_pending = 1;
    nq->persist_retry_ms = 0;
}

static void fx_commit(void *ctx, int64_t hw)
{
    lr_nq *nq = nq_of(lr_qlog_host(ctx));
    if (hw > nq->hw)
        nq->hw = hw;
}

static const lr_quorum_fx fx = {fx_send, fx_persist, fx_commit};

/* ------------------------------------------------------------ start */

/* quorum-state at start. A directory made now is a new node: it is
 * formatted ({0, -1, -1}). An existing one without a readable file lost
 * its state: the voter abstains until it is safe (docs/quorum.md, "Disk
 * loss"). */
static int boot_state(logrep_node *n, lr_nq *nq, int fresh, lr_qstate_file *f,
                      lr_quorum_boot *boot)
{
    memset(boot, 0, sizeof *boot);
    if (fresh) {
        lr_quorum_state s = {0, -1, -1, 0, -1};
        int err = lr_qstate_write(n->st, nq->dir, &s, nq->voter_ids, nq->n_voters);
        if (err)
            return err;
        f->state = s;
        boot->state = &f->state;
        return 0;
    }
    int err = lr_qstate_read(n->st, nq->dir, f);
    if (!err) {
        boot->state = &f->state;
        return 0;
    }
    if (err != LOGREP_ERR__NOENT && err != LOGREP_ERR__CORRUPT)
        return err;
    LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "quorum",
           "%s/%s is %s: this voter lost its state and abstains until a leader elected "
           "without it has caught it up",
           nq->dir, LR_QSTATE_FILE, err == LOGREP_ERR__NOENT ? "missing" : "corrupt");
    boot->disk_lost = err == LOGREP_ERR__CORRUPT;
    return 0;
}

/* ------------------------------------------------------------ snapshots */

/* The quorum installed its leader's snapshot (inside lr_quorum_receive,
 * before the log restarts at its end): the standby controller becomes the
 * snapshot's image, and the committed log is applied from its end. */
static int nq_load(void *host, lr_qsnap_id id)
{
    logrep_node *n = host;
    lr_nq *nq = nq_of(n);
    if (nq->active)
        return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER; /* a leader installs nothing */
    int err = lr_nctl_snapshot_load(n, id, nq->now);
    if (err)
        return err;
    nq->applied = id.end_offset;
    if (nq->hw < id.end_offset)
        nq->hw = id.end_offset; /* a snapshot holds only committed entries */
    lr_node_metadata_changed(n);
    return 0;
}

/* At start: the quorum's log learns the snapshots in the directory (what
 * a crash cut short is finished there), and the standby controller starts
 * from the newest, the committed log being applied from its end. */
static int start_from_snapshot(logrep_node *n, struct lr_ctl_role *r, lr_nq *nq, int64_t now_ms)
{
    int err = lr_qlog_set_snapshots(nq->ql, n->st, nq->dir, nq_load);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum", "metadata snapshots in %s: %s", nq->dir,
               logrep_err_name(err));
        return err;
    }
    lr_qsnap_id id;
    if (lr_qlog_snapshot(nq->ql, &id) != 0) {
        if (logrep_log_start_offset(r->log) <= 0)
            return 0;
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum",
               "the metadata log starts at %lld and no snapshot holds what was below it",
               (long long)logrep_log_start_offset(r->log));
        return LOGREP_ERR__CORRUPT;
    }
    if ((err = lr_nctl_snapshot_load(n, id, now_ms)) != 0)
        return err;
    nq->applied = id.end_offset;
    return 0;
}

/* The policy (ctl_snapshot.c) over what the previous events committed:
 * from the tick, before the quorum moves, so that a snapshot and the trim
 * below it never cover entries committed in the same event. The quorum's
 * log learns the new snapshot (its log start moved). */
static void maybe_snapshot(logrep_node *n, lr_nq *nq, int64_t now_ms)
{
    if (lr_nctl_snapshot_maybe(n, now_ms, lr_nctl_committed(n)) == 1) {
        lr_qsnap_id id;
        if (lr_nctl_snapshot_latest(n, &id))
            lr_qlog_snapshot_written(nq->ql, id);
    }
}

int lr_nq_start(logrep_node *n, struct lr_ctl_role *r, int fresh, int64_t now_ms)
{
    lr_nq *nq = lr_calloc(&n->alloc, 1, sizeof *nq);
    if (!nq)
        return LOGREP_ERR__NOMEM;
    r->nq = nq;
    nq->hw = -1;
    nq->told_epoch = nq->told_leader = -1;
    nq->told_hw = -1;
    nq->resign_at = -1;
    nq->now = now_ms;
    lr_buf_init(&nq->recs, &n->alloc);
    snprintf(nq->dir, sizeof nq->dir, "%s/%s-0", n->log_dir, LR_METADATA_TOPIC);
    for (size_t i = 0; i < n->n_voters; i++)
        nq->voter_ids[i] = n->voters[i].id;
    nq->n_voters = n->n_voters;
    nq->w.node_id = n->id;
    lr_qstate_file f;
    lr_quorum_boot boot;
    int err = boot_state(n, nq, fresh, &f, &boot);
    if (!err)
        err = lr_qlog_new(n->conf, r->log, n, &nq->ql);
    if (!err)
        err = start_from_snapshot(n, r, nq, now_ms);
    int64_t durable;
    if (!err) {
        lr_qlog_set_now(nq->ql, now_ms);
        err = lr_qlog_flush(nq->ql, now_ms, &durable);
    }
    if (err)
        return err;
    lr_quorum_conf qc = {
        .node_id = n->id,
        .voters = nq->voter_ids,
        .n_voters = nq->n_voters,
        .election_timeout_ms = lr_conf_int(n->conf, LR_CONF_CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS),
        .fetch_timeout_ms = lr_conf_int(n->conf, LR_CONF_CONTROLLER_QUORUM_FETCH_TIMEOUT_MS),
        .request_timeout_ms = lr_conf_int(n->conf, LR_CONF_CONTROLLER_QUORUM_REQUEST_TIMEOUT_MS),
        .max_fetch_entries = 512,
        .seed = lr_prng_next(&n->rng),
        .pre_vote = 1,
    };
    if (!(nq->q = lr_quorum_new(&qc, &boot, lr_qlog_ops(), &fx, nq->ql, now_ms)))
        return LOGREP_ERR__NOMEM;
    lr_ctl_set_standby(r->ctl, 1);
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "quorum",
           "voter %d of %zu up: metadata log end %lld, epoch %d%s", (int)n->id, nq->n_voters,
           (long long)logrep_log_end_offset(r->log), (int)lr_quorum_epoch(nq->q),
           lr_quorum_recovering(nq->q) ? ", abstaining" : "");
    return 0;
}

void lr_nq_free(logrep_node *n, struct lr_ctl_role *r)
{
    lr_nq *nq = r->nq;
    if (!nq)
        return;
    lr_quorum_free(nq->q);
    lr_qlog_free(nq->ql);
    lr_buf_free(&nq->recs);
    lr_free(&n->alloc, nq, sizeof *nq);
    r->nq = NULL;
}

/* ------------------------------------------------------------ proposals */

int lr_nq_propose(logrep_node *n, int64_t offset, const uint8_t *rec, size_t len)
{
    lr_nq *nq = nq_of(n);
    if (!nq->active)
        return LOGREP_ERR_NOT_CONTROLLER;
    lr_qentry e = {lr_quorum_epoch(nq->q), 0, rec, len};
    int64_t base = -1;
    lr_qlog_set_now(nq->ql, n->ctl->now_ms);
    int err = lr_quorum_propose(nq->q, &e, 1, &base);
    if (!err && base != offset) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum",
               "metadata record %lld landed at %lld: the image and the log disagree",
               (long long)offset, (long long)base);
        err = LOGREP_ERR__CORRUPT;
    }
    if (!err) {
        nq->applied = base + 1;
        /* Applied now, so apply_committed never sees it: counted here, or
         * the active controller would never reach the snapshot policy's
         * byte limit (its log would grow until it lost the lead). */
        lr_nctl_snapshot_count(n, LR_NQ_ENTRY_BYTES(len));
    }
    return err;
}

/* ------------------------------------------------------------ the pump */

/* Applies committed entries to the controller's image, in order. Control
 * records (LeaderChange) only take their offsets. */
static int apply_committed(logrep_node *n, lr_nq *nq)
{
    const lr_quorum_log *ops = lr_qlog_ops();
    int64_t end = ops->end_offset(nq->ql);
    int64_t hw = nq->hw < end ? nq->hw : end;
    lr_qentry es[64];
    while (nq->applied < hw) {
        size_t got = ops->read(nq->ql, nq->applied, es, 64);
        if (!got)
            return lr_qlog_read_error(nq->ql) ? lr_qlog_read_error(nq->ql) : LOGREP_ERR__CORRUPT;
        for (size_t i = 0; i < got && nq->applied < hw; i++) {
            if (es[i].control) {
                lr_ctl_skip_to(n->ctl->ctl, nq->applied + 1);
            } else {
                int err = lr_ctl_replay(n->ctl->ctl, es[i].data, es[i].len);
                if (err)
                    LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum",
                           "committed metadata record %lld does not apply: %s",
                           (long long)nq->applied, logrep_err_name(err));
                lr_ctl_skip_to(n->ctl->ctl, nq->applied + 1);
            }
            lr_nctl_snapshot_count(n, LR_NQ_ENTRY_BYTES(es[i].len));
            nq->applied++;
        }
        lr_node_metadata_changed(n); /* brokers' metadata fetches may go on */
    }
    return 0;
}

/* A controller that stops leading may hold records that will never
 * commit: it is replaced by a standby rebuilt from the committed log. */
static int rebuild(logrep_node *n, lr_nq *nq)
{
    lr_ctl *c = lr_ctl_new(n->conf, lr_nctl_sink, n);
    if (!c)
        return LOGREP_ERR__NOMEM;
    lr_ctl_free(n->ctl->ctl);
    n->ctl->ctl = c;
    lr_ctl_set_standby(c, 1);
    nq->applied = 0;
    lr_qsnap_id id;
    if (lr_qlog_snapshot(nq->ql, &id) == 0) {
        int err = lr_nctl_snapshot_load(n, id, nq->now);
        if (err)
            return err;
        nq->applied = id.end_offset;
    }
    return apply_committed(n, nq);
}

/* Follows the quorum's leadership: active once this voter leads and its
 * LeaderChange record is committed (the high watermark, undefined before
 * that, covers the whole log: the leader appends nothing else before it
 * acts), standby as soon as it does not lead that epoch any more. */
static void follow_leadership(logrep_node *n, lr_nq *nq)
{
    int leads = lr_quorum_role_of(nq->q) == LR_QR_LEADER;
    int32_t epoch = lr_quorum_epoch(nq->q);
    if (nq->active && (!leads || epoch != nq->active_epoch)) {
        nq->active = 0;
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "quorum",
               "node %d is no longer the active controller (epoch %d, now %s in %d)", (int)n->id,
               (int)nq->active_epoch, lr_quorum_role_name(lr_quorum_role_of(nq->q)), (int)epoch);
        int err = rebuild(n, nq);
        if (err)
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum", "rebuilding the image: %s",
                   logrep_err_name(err));
        lr_node_metadata_changed(n);
    }
    int64_t end = logrep_log_end_offset(n->ctl->log);
    if (!nq->active && leads && nq->hw >= 0 && nq->hw == end && nq->applied == end &&
        !lr_ctl_failed(n->ctl->ctl)) {
        nq->active = 1;
        nq->active_epoch = epoch;
        lr_ctl_set_standby(n->ctl->ctl, 0);
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "quorum",
               "node %d is the active controller in epoch %d at metadata offset %lld", (int)n->id,
               (int)epoch, (long long)end);
        lr_voters_learn(n, n->id);
    } else if (!leads && (epoch != nq->told_epoch || lr_quorum_leader(nq->q) != nq->told_leader)) {
        /* Once per leader: a leader that died keeps its epoch until the
         * next election, and the broker's rotation away from it
         * (lr_voters_next) must not be undone on every event. */
        nq->told_epoch = epoch;
        nq->told_leader = lr_quorum_leader(nq->q);
        lr_voters_learn(n, nq->told_leader);
    }
}

void lr_nq_pump(logrep_node *n, int64_t now_ms)
{
    lr_nq *nq = nq_of(n);
    if (!nq || nq->pumping)
        return;
    nq->pumping = 1;
    nq->now = now_ms;
    for (int round = 0; round < 8; round++) {
        int again = 0;
        if (nq->persist_pending && now_ms >= nq->persist_retry_ms) {
            int err = lr_qstate_write(n->st, nq->dir, &nq->persist_state, nq->voter_ids,
                                      nq->n_voters);
            if (err) {
                /* Nothing leaves this voter until its state is durable:
                 * it is out of the quorum until a write succeeds. */
                LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum",
                       "writing %s/%s: %s; this voter is silent until it succeeds", nq->dir,
                       LR_QSTATE_FILE, logrep_err_name(err));
                nq->persist_retry_ms = now_ms + 100;
            } else {
                nq->persist_pending = 0;
                lr_quorum_state_durable(nq->q, nq->persist_seq, now_ms);
                again = 1;
            }
        }
        int64_t durable = lr_qlog_durable_end(nq->ql);
        if (logrep_log_end_offset(n->ctl->log) > durable) {
            int err = lr_qlog_flush(nq->ql, now_ms, &durable);
            if (err)
                LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum",
                       "flushing the metadata log: %s; its tail is not acknowledged",
                       logrep_err_name(err));
            lr_quorum_log_flushed(nq->q, durable, now_ms);
            again = 1;
        }
        int err = apply_committed(n, nq);
        if (nq->hw > nq->told_hw) {
            /* Brokers' metadata fetches parked here read up to the commit
             * point: wake them. On the leader the records were applied
             * when proposed, so apply_committed may have had nothing to
             * do. */
            nq->told_hw = nq->hw;
            lr_node_metadata_changed(n);
        }
        if (err)
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum", "reading committed records: %s",
                   logrep_err_name(err));
        follow_leadership(n, nq);
        if (!again)
            break;
    }
    nq->pumping = 0;
    if (nq->held)
        n->park.woken = 1; /* held answers may go: the event's wake sends them */
}

void lr_nctl_pump(logrep_node *n, int64_t now_ms)
{
    if (nq_of(n))
        lr_nq_pump(n, now_ms);
}

int64_t lr_nq_tick(logrep_node *n, int64_t now_ms)
{
    lr_nq *nq = nq_of(n);
    nq->now = now_ms;
    lr_qlog_set_now(nq->ql, now_ms);
    maybe_snapshot(n, nq, now_ms);
    lr_quorum_tick(nq->q, now_ms);
    int64_t next = lr_nq_handover_tick(n, nq, now_ms);
    lr_nq_pump(n, now_ms);
    int64_t qnext = lr_quorum_deadline(nq->q);
    next = qnext < next ? qnext : next;
    if (nq->persist_pending && nq->persist_retry_ms < next)
        next = nq->persist_retry_ms;
    /* While the image holds proposals not yet committed nothing can be
     * snapshotted: the tick that follows their commit does it. */
    int64_t snext = lr_md_next_offset(lr_ctl_image(n->ctl->ctl)) == lr_nctl_committed(n)
                        ? lr_nctl_snapshot_deadline(n, now_ms)
                        : INT64_MAX;
    return snext < next ? snext : next;
}

/* ------------------------------------------------------------ queries */

int lr_nctl_quorum(const logrep_node *n)
{
    return n->ctl && n->ctl->nq;
}

int lr_nctl_serving(const logrep_node *n)
{
    if (!n->ctl || lr_ctl_failed(n->ctl->ctl))
        return 0;
    return !n->ctl->nq || n->ctl->nq->active;
}

int64_t lr_nctl_committed(const logrep_node *n)
{
    const lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    if (!nq)
        return -1;
    /* The active controller's image also holds what it proposed and the
     * quorum has not committed yet: only the prefix below the commit
     * point counts. */
    int64_t c = nq->hw < nq->applied ? nq->hw : nq->applied;
    return c < 0 ? 0 : c;
}

int32_t lr_nctl_quorum_leader(const logrep_node *n, int32_t *epoch)
{
    const lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    if (!nq) {
        *epoch = -1;
        return -1;
    }
    *epoch = lr_quorum_epoch(nq->q);
    return lr_quorum_leader(nq->q);
}

int lr_nctl_quorum_view(const logrep_node *n, lr_nq_view *out)
{
    const lr_nq *nq = n && n->ctl ? n->ctl->nq : NULL;
    if (!nq)
        return -1;
    out->epoch = lr_quorum_epoch(nq->q);
    out->leader = lr_quorum_leader(nq->q);
    out->role = (int)lr_quorum_role_of(nq->q);
    out->active = nq->active && !lr_ctl_failed(n->ctl->ctl);
    out->active_epoch = nq->active_epoch;
    out->abstaining = lr_quorum_recovering(nq->q);
    int64_t end = logrep_log_end_offset(n->ctl->log);
    out->end = end;
    out->start = logrep_log_start_offset(n->ctl->log);
    out->applied = nq->applied;
    out->hw = nq->hw < end ? nq->hw : end;
    return 0;
}

void lr_nctl_observed(logrep_node *n, int64_t broker_epoch, int64_t fetch_offset,
                      int64_t now_ms)
{
    lr_nq *nq = nq_of(n);
    if (!nq || !nq->active)
        return;
    const lr_md_image *img = lr_ctl_image(n->ctl->ctl);
    for (size_t i = 0, nb = lr_md_broker_count(img); i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        if (b->epoch == broker_epoch) {
            lr_quorum_observed(nq->q, b->id, fetch_offset, now_ms);
            return;
        }
    }
}

size_t lr_nctl_quorum_read(logrep_node *n, int64_t from, lr_qentry *es, size_t max)
{
    lr_nq *nq = nq_of(n);
    return nq ? lr_qlog_ops()->read(nq->ql, from, es, max) : 0;
}
