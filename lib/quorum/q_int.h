/* Quorum internals shared by quorum.c, election.c and replication.c. */
#ifndef LR_QUORUM_Q_INT_H
#define LR_QUORUM_Q_INT_H

#include "base/alloc.h"
#include "base/prng.h"
#include "quorum/quorum.h"

/* Held messages while a quorum-state write is outstanding. */
#define LR_Q_OUTBOX 64

/* What the leader saw of a replica's fetches in this epoch, counted or
 * not (lr_quorum_describe); -1 when unknown. */
typedef struct lr_qseen {
    int32_t id;
    int64_t offset;       /* its latest fetch offset */
    int64_t fetch_ms;     /* when */
    int64_t caught_up_ms; /* the last time it held all the leader held */
    int64_t leader_end;   /* the leader's log end at that fetch */
} lr_qseen;

typedef struct lr_qvoter {
    int32_t id;
    int64_t fetch_offset; /* this epoch's latest fetch position, -1 */
    int64_t last_fetch_ms; /* -1: not heard from in this epoch */
    uint8_t granted;      /* candidate: voted for us */
    lr_qseen seen;
} lr_qvoter;

/* Follower: the leader's snapshot being fetched (snapshot_fetch.c). */
typedef struct lr_qsnapfetch {
    int active;
    int64_t end;  /* its id */
    int32_t epoch;
    int64_t pos;  /* bytes written so far: the next request's position */
    int64_t size; /* the file's, -1 until the first answer */
} lr_qsnapfetch;

struct lr_quorum {
    lr_quorum_conf conf;
    lr_quorum_log log;
    lr_quorum_fx fx;
    void *ctx;
    lr_prng rng;
    lr_qvoter voters[LR_QUORUM_MAX_VOTERS];
    size_t n_voters;
    int is_voter;

    lr_quorum_role role;
    lr_quorum_state st; /* in memory; what was last handed to persist */
    uint64_t seq, durable_seq;
    lr_qmsg outbox[LR_Q_OUTBOX];
    int32_t outbox_to[LR_Q_OUTBOX];
    size_t n_outbox;

    int64_t now;
    int64_t election_deadline; /* unattached/voted/candidate/resigned */
    int64_t fetch_deadline;    /* follower: no leader contact by then */
    int64_t next_fetch;        /* follower/observer: when to fetch */
    int64_t quorum_deadline;   /* leader: check-quorum */
    int64_t begin_resend;      /* leader: resend BeginQuorumEpoch */
    int64_t flushed;           /* log durable below this */
    int64_t hw;
    int fetch_inflight;

    /* leader */
    int leader_started;    /* LeaderChange appended, voters told */
    int64_t epoch_start;   /* offset of the LeaderChange record */

    int32_t bootstrap_rr;  /* observer: voter to ask next */
    lr_qsnapfetch snap;    /* follower: a snapshot instead of entries */

    /* leader: observers that fetched in this epoch */
    lr_qseen observers[LR_QUORUM_MAX_OBSERVERS];
    size_t n_observers;
};

/* quorum.c */
int lr_q_is_voter(const lr_quorum *q, int32_t id);
lr_qvoter *lr_q_voter(lr_quorum *q, int32_t id);
size_t lr_q_majority(const lr_quorum *q);
void lr_q_send(lr_quorum *q, int32_t to, const lr_qmsg *m);
void lr_q_reset_election_timer(lr_quorum *q);
void lr_q_to_unattached(lr_quorum *q, int32_t epoch);
void lr_q_to_voted(lr_quorum *q, int32_t candidate);
void lr_q_to_follower(lr_quorum *q, int32_t epoch, int32_t leader);
void lr_q_to_candidate(lr_quorum *q);
/* A timeout: Prospective with pre-vote, else Candidate. */
void lr_q_stand(lr_quorum *q);
void lr_q_to_leader(lr_quorum *q);
void lr_q_to_resigned(lr_quorum *q);
/* A message of a higher epoch: move to it (follower when leader known). */
void lr_q_observe_epoch(lr_quorum *q, int32_t epoch, int32_t leader);
void lr_q_set_hw(lr_quorum *q, int64_t hw);
void lr_q_persist(lr_quorum *q);
int lr_q_can_vote(const lr_quorum *q);

/* election.c */
int lr_q_on_vote_req(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_vote_resp(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_begin_req(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_end_req(lr_quorum *q, const lr_qmsg *m);
void lr_q_start_leader(lr_quorum *q);
void lr_q_send_end_epoch(lr_quorum *q);

/* replication.c */
int lr_q_on_fetch_req(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_fetch_resp(lr_quorum *q, const lr_qmsg *m);
void lr_q_maybe_fetch(lr_quorum *q);
void lr_q_leader_update_hw(lr_quorum *q);
void lr_q_leader_check_quorum(lr_quorum *q);
/* A fetch the leader answered with records: DescribeQuorum's view. */
void lr_q_seen_fetch(lr_quorum *q, const lr_qmsg *m);
int64_t lr_q_fetch_backoff(const lr_quorum *q);

/* snapshot_fetch.c */
/* The log's first offset (0 without snapshots). */
int64_t lr_q_log_start(const lr_quorum *q);
/* Leader: 1 when a fetch must be answered with the snapshot, whose id
 * goes into r (Kafka's validateOffsetAndEpoch); diverged: the log check
 * failed with (div_epoch, div_end) below the log start. */
int lr_q_fetch_snapshot_id(lr_quorum *q, const lr_qmsg *m, int diverged, lr_qmsg *r);
/* A voter's fetch of either kind: it follows (check-quorum). */
void lr_q_voter_contact(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_fsnap_req(lr_quorum *q, const lr_qmsg *m);
int lr_q_on_fsnap_resp(lr_quorum *q, const lr_qmsg *m);
/* Follower: the leader answered a fetch with snapshot m->snap_end. */
void lr_q_snap_start(lr_quorum *q, const lr_qmsg *m);
/* Follower: the next FetchSnapshot request, to the leader. */
void lr_q_snap_request(lr_quorum *q, int32_t to);
/* Leaving the follower state: a partial snapshot is dropped. */
void lr_q_snap_abort(lr_quorum *q);

#endif
