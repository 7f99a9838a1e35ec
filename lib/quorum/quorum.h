/* The metadata quorum: one voter (or observer) of a Raft-style replicated
 * log, as a host-driven state machine (docs/quorum.md).
 *
 * The host owns the clock, the network, the disk and the log. It feeds
 * received messages and ticks in; the quorum reads and changes the log
 * through lr_quorum_log (synchronous, page-cache speed: the node backs it
 * with logrep_log) and hands its effects back through lr_quorum_fx:
 * messages to send, quorum-state to persist, high-watermark advances.
 *
 * Persistence rule: every change of (epoch, voted-for, leader) is handed
 * to fx.persist with a sequence number; until the host reports that write
 * durable (lr_quorum_state_durable) nothing is sent (messages are held,
 * fetches are not made or answered) and a new leader neither appends its
 * LeaderChange record nor tells the voters. Log appends count towards the
 * high watermark only once the host reports them flushed
 * (lr_quorum_log_flushed).
 *
 * Time is what the caller passes as now_ms (monotonic; a smaller value
 * than before counts as no time passing). Randomness (election timeouts)
 * comes from the seed in the conf. No I/O, no threads; one thread at a
 * time per instance. Bad input (unknown senders, malformed messages) is
 * ignored or answered with an error, never trusted.
 */
#ifndef LR_QUORUM_QUORUM_H
#define LR_QUORUM_QUORUM_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>

#define LR_QUORUM_MAX_VOTERS 16
/* Control record type of the record a new leader writes first (docs/quorum.md,
 * "The LeaderChange record": LEADER_CHANGE = 2). */
#define LR_QUORUM_CTL_LEADER_CHANGE 2

typedef enum lr_quorum_role {
    LR_QR_UNATTACHED, /* epoch known, no leader, no vote */
    LR_QR_VOTED,      /* voted in this epoch, no leader known */
    LR_QR_CANDIDATE,  /* asking for votes in this epoch */
    LR_QR_LEADER,
    LR_QR_FOLLOWER,   /* a leader is known in this epoch (voters and observers) */
    LR_QR_RESIGNED,   /* was leader of this epoch, gave it up */
    LR_QR_PROSPECTIVE /* pre-vote: asking whether it could win epoch + 1 */
} lr_quorum_role;

/* What quorum-state holds. voted_for and leader_id are -1 when none.
 * abstaining: this voter lost state it cannot rebuild and does not vote
 * until it has caught up with a leader elected in an epoch above
 * floor_epoch (-1: no epoch learned yet); it must survive restarts. */
typedef struct lr_quorum_state {
    int32_t epoch;
    int32_t voted_for;
    int32_t leader_id;
    uint8_t abstaining;
    int32_t floor_epoch;
} lr_quorum_state;

/* One log entry: a record of `epoch`. control is 0 for data records or the
 * control type (LR_QUORUM_CTL_LEADER_CHANGE); data is the record value. */
typedef struct lr_qentry {
    int32_t epoch;
    int16_t control;
    const uint8_t *data;
    size_t len;
} lr_qentry;

typedef enum lr_qmsg_type {
    LR_QM_VOTE_REQ = 1,
    LR_QM_VOTE_RESP,
    LR_QM_BEGIN_REQ, /* BeginQuorumEpoch */
    LR_QM_BEGIN_RESP,
    LR_QM_END_REQ,   /* EndQuorumEpoch */
    LR_QM_END_RESP,
    LR_QM_FETCH_REQ,
    LR_QM_FETCH_RESP,
    LR_QM_FSNAP_REQ, /* FetchSnapshot */
    LR_QM_FSNAP_RESP
} lr_qmsg_type;

/* One message, either way. Fields a type does not use are ignored. */
typedef struct lr_qmsg {
    lr_qmsg_type type;
    int32_t from;      /* sender's node id */
    int32_t epoch;     /* requests: the sender's epoch; responses: the responder's */
    int16_t error;     /* responses: 0 or a wire code (FENCED_LEADER_EPOCH ...) */
    int32_t leader_id; /* the leader the sender knows in `epoch`, -1 */
    /* Vote: the candidate's last log epoch and log end offset; granted. */
    int32_t last_epoch;
    int64_t end_offset;
    uint8_t granted;
    uint8_t pre_vote; /* KIP-996: a question, changes no state; epoch = asker's + 1 */
    /* EndQuorumEpoch: voters in the order they should try to take over. */
    int32_t successors[LR_QUORUM_MAX_VOTERS];
    uint8_t n_successors;
    /* Fetch request: the fetcher's log end offset and the epoch of its last
     * entry (-1 when empty); observer = not counted for the high watermark. */
    int64_t fetch_offset;
    int32_t last_fetched_epoch;
    uint8_t observer;
    /* Fetch response: high watermark (-1 while the leader's is undefined),
     * the diverging epoch and its end offset (div_end_offset -1 when the
     * logs agree; div_epoch -1 when the leader has no epoch that old), and
     * the entries from base_offset on (pointers valid during the call).
     * base_offset and last_fetched_epoch echo the request's. */
    int64_t hw;
    int32_t div_epoch;
    int64_t div_end_offset;
    int64_t base_offset;
    const lr_qentry *entries;
    size_t n_entries;
    /* Fetch response: instead of entries, the leader's snapshot to fetch
     * (the fetch fell below its log start, docs/quorum.md "Snapshots");
     * snap_end <= 0 means none (send -1). FetchSnapshot request and
     * response: the snapshot asked for and answered. */
    int64_t snap_end;
    int32_t snap_epoch;
    /* FetchSnapshot: the byte position asked and answered; request: len
     * the most bytes wanted (MaxBytes, 0: the leader's own limit), data
     * NULL; response: the file's size and the bytes from position (data
     * valid during the call, len <= size - position). */
    int64_t position;
    int64_t size;
    const uint8_t *data;
    size_t len;
} lr_qmsg;

/* The replicated log, kept by the host. Offsets are dense from its start
 * (0, unless the log was trimmed below a snapshot or restarted at one);
 * the last six members are optional (all NULL: no snapshots, the log
 * starts at 0). */
typedef struct lr_quorum_log {
    int64_t (*end_offset)(void *ctx);
    /* Epoch of the last entry, -1 when empty. */
    int32_t (*last_epoch)(void *ctx);
    /* For `epoch`: the largest epoch <= epoch in the log and the offset just
     * past its last entry (the latest epoch answers the end offset). When
     * every entry is newer: (-1, -1), or (epoch, first offset) as
     * logrep_log_epoch_end_offset answers; both lead to a full truncation. */
    void (*epoch_end)(void *ctx, int32_t epoch, int32_t *out_epoch, int64_t *out_end);
    /* Appends n entries at the end (base == end_offset). 0 or an error;
     * on error nothing was appended. Not durable until reported flushed. */
    int (*append)(void *ctx, int64_t base, const lr_qentry *e, size_t n);
    /* Drops every entry at or above offset. 0 or an error. */
    int (*truncate)(void *ctx, int64_t offset);
    /* Up to cap entries from offset into out (pointers valid until the next
     * change of the log); the count. */
    size_t (*read)(void *ctx, int64_t offset, lr_qentry *out, size_t cap);

    /* ---- snapshots (docs/quorum.md, "Snapshots in the quorum") ----
     * With a snapshot (E, P) at the log start E, last_epoch answers P and
     * epoch_end(e >= P) at least (P, E) while the log holds nothing of an
     * epoch <= e above E; truncate below the start fails (committed
     * entries are never dropped). */
    /* The first offset the log holds (0 unless trimmed or restarted). */
    int64_t (*start_offset)(void *ctx);
    /* 0 and the newest whole snapshot's id, or -1 when there is none. */
    int (*latest_snapshot)(void *ctx, int64_t *end, int32_t *epoch);
    /* Leader: up to max bytes of snapshot (end, epoch) from pos into *data
     * (valid until the next call), *len of them, *size the file's size.
     * 0; LOGREP_ERR_SNAPSHOT_NOT_FOUND; LOGREP_ERR_POSITION_OUT_OF_RANGE
     * (pos >= size); a storage error. */
    int (*snap_read)(void *ctx, int64_t end, int32_t epoch, int64_t pos, size_t max,
                     const uint8_t **data, size_t *len, int64_t *size);
    /* Follower: bytes [pos, pos + len) of snapshot (end, epoch) of `size`
     * bytes; pos 0 starts (or starts again) its receive, dropping a
     * partial one. 0 or an error (the quorum starts the fetch over). */
    int (*snap_write)(void *ctx, int64_t end, int32_t epoch, int64_t size, int64_t pos,
                      const uint8_t *data, size_t len);
    /* Follower, every byte received: check and install the file, load the
     * state machine from it (the host's business), and restart the log at
     * end: empty, start = end, last_epoch answering epoch, durable. 0 or
     * an error (the log as it was; the quorum starts the fetch over). */
    int (*snap_install)(void *ctx, int64_t end, int32_t epoch);
    /* Drops a partial receive (the leader or the epoch changed). */
    void (*snap_abort)(void *ctx);
} lr_quorum_log;

/* Effects. send and persist are required, commit may be NULL. */
typedef struct lr_quorum_fx {
    void (*send)(void *ctx, int32_t to, const lr_qmsg *m);
    /* Write s to quorum-state and report lr_quorum_state_durable(seq). */
    void (*persist)(void *ctx, const lr_quorum_state *s, uint64_t seq);
    /* Every offset below hw is committed (called as it grows). */
    void (*commit)(void *ctx, int64_t hw);
} lr_quorum_fx;

typedef struct lr_quorum_conf {
    int32_t node_id;
    const int32_t *voters; /* controller.quorum.voters: ids, no duplicates */
    size_t n_voters;       /* 1 .. LR_QUORUM_MAX_VOTERS */
    int64_t election_timeout_ms; /* T: timeouts are drawn from [T, 2T) */
    int64_t fetch_timeout_ms;    /* no leader contact this long: election */
    int64_t request_timeout_ms;  /* resend an unanswered fetch / vote request */
    size_t max_fetch_entries;    /* per fetch response */
    size_t max_snapshot_bytes;   /* per FetchSnapshot response; 0: 1 MiB */
    uint64_t seed;
    int pre_vote; /* stand only after a majority said it could win */
} lr_quorum_conf;

/* How the instance starts. state: quorum-state as read from disk, NULL
 * when missing. disk_lost: the host knows its disk was lost or replaced.
 * A voter with either abstains (an observer) until it has caught up with
 * a leader elected after it learned the current epoch (docs/quorum.md,
 * disk loss); a fresh cluster's format step writes quorum-state
 * {0, -1, -1, 0, -1}, so a missing one is never normal. */
typedef struct lr_quorum_boot {
    const lr_quorum_state *state;
    int disk_lost;
} lr_quorum_boot;

typedef struct lr_quorum lr_quorum;

/* NULL on allocation failure or an invalid conf (no voters, too many,
 * duplicates, timeouts <= 0). The log must hold what the disk held; its
 * whole content counts as flushed. */
lr_quorum *lr_quorum_new(const lr_quorum_conf *conf, const lr_quorum_boot *boot,
                         const lr_quorum_log *log, const lr_quorum_fx *fx, void *ctx,
                         int64_t now_ms);
void lr_quorum_free(lr_quorum *q);

/* Time passes: timeouts (election, fetch, check-quorum), resends. */
void lr_quorum_tick(lr_quorum *q, int64_t now_ms);
/* A received message. 0, or LOGREP_ERR__INVALID_ARG for a malformed one
 * (ignored), or a log error met while applying it. */
int lr_quorum_receive(lr_quorum *q, const lr_qmsg *m, int64_t now_ms);
/* The quorum-state write `seq` (and every earlier one) is durable. */
void lr_quorum_state_durable(lr_quorum *q, uint64_t seq, int64_t now_ms);
/* The log is durable up to `end_offset` (exclusive). */
void lr_quorum_log_flushed(lr_quorum *q, int64_t end_offset, int64_t now_ms);

/* Leader only, once its LeaderChange record is committed: appends n data
 * records with its epoch; *base gets the first offset. 0,
 * LOGREP_ERR_NOT_LEADER_OR_FOLLOWER (not an acting leader yet),
 * LOGREP_ERR__INVALID_ARG, or the log's error. */
int lr_quorum_propose(lr_quorum *q, const lr_qentry *e, size_t n, int64_t *base);
/* Leader only: give leadership up now (EndQuorumEpoch to the voters,
 * most caught-up first). 0 or LOGREP_ERR_NOT_LEADER_OR_FOLLOWER. */
int lr_quorum_resign(lr_quorum *q, int64_t now_ms);

lr_quorum_role lr_quorum_role_of(const lr_quorum *q);
int32_t lr_quorum_epoch(const lr_quorum *q);
int32_t lr_quorum_leader(const lr_quorum *q); /* -1 when unknown */
/* The high watermark known here, -1 when none. */
int64_t lr_quorum_hw(const lr_quorum *q);
/* 1 when this voter abstains (observer) after a lost quorum-state. */
int lr_quorum_recovering(const lr_quorum *q);
/* 1 when no quorum-state write is outstanding. */
int lr_quorum_durable(const lr_quorum *q);
/* When lr_quorum_tick next has work. */
int64_t lr_quorum_deadline(const lr_quorum *q);
const char *lr_quorum_role_name(lr_quorum_role r);

/* DescribeQuorum (docs/quorum.md): what the leader knows of each replica.
 * Times are in the quorum's clock (now_ms), -1 when unknown. The leader
 * reports itself with its log end and `now` as both times. log_end is
 * the replica's latest fetch offset in this epoch; caught_up_ms the last
 * time it held everything the leader held: the time of a fetch at the
 * leader's log end, or of the previous fetch when this one reaches the
 * leader's log end as it was then. Observers not heard from for
 * LR_QUORUM_OBSERVER_EXPIRE_MS are left out; the leader keeps the latest
 * LR_QUORUM_MAX_OBSERVERS. */
#define LR_QUORUM_MAX_OBSERVERS 32
#define LR_QUORUM_OBSERVER_EXPIRE_MS 300000

typedef struct lr_quorum_replica {
    int32_t id;
    int64_t log_end;
    int64_t last_fetch_ms;
    int64_t caught_up_ms;
} lr_quorum_replica;

typedef struct lr_quorum_desc {
    int16_t error;     /* 0, or NOT_LEADER_OR_FOLLOWER: only the two below are set */
    int32_t leader_id; /* -1 when unknown */
    int32_t epoch;
    int64_t hw;        /* -1 while undefined */
    int64_t now_ms;    /* the clock the times are in: the description's now */
    lr_quorum_replica voters[LR_QUORUM_MAX_VOTERS]; /* in conf order */
    size_t n_voters;
    lr_quorum_replica observers[LR_QUORUM_MAX_OBSERVERS];
    size_t n_observers;
} lr_quorum_desc;

/* A fetch of the committed log by `id` at fetch_offset that the host
 * served itself (a broker that is not a voter): an acting leader lists it
 * among the observers, as if it had fetched from the quorum. Ignored
 * elsewhere, and for voters. */
void lr_quorum_observed(lr_quorum *q, int32_t id, int64_t fetch_offset, int64_t now_ms);

/* Fills *d; returns d->error: 0 on an acting leader (its leadership
 * durable, its LeaderChange record appended), else
 * LOGREP_ERR_NOT_LEADER_OR_FOLLOWER. */
int lr_quorum_describe(const lr_quorum *q, int64_t now_ms, lr_quorum_desc *d);

/* LeaderChange record (docs/quorum.md, "The LeaderChange record"): key (4 bytes) and value. Return
 * the length written, or 0 when cap is too small. */
size_t lr_quorum_leader_change_key(uint8_t *out, size_t cap);
size_t lr_quorum_leader_change_value(int32_t leader, const int32_t *voters, size_t n_voters,
                                     const int32_t *granting, size_t n_granting, uint8_t *out,
                                     size_t cap);

#endif
