/* The controller role's state, shared by the files that make it up:
 * ctl_role.c (the role, its metadata log), and with a quorum of voters
 * ctl_quorum.c (this voter: its log, quorum-state, commits, becoming and
 * ceasing to be the active controller), ctl_qwire.c (the quorum's
 * messages on the wire) and ctl_hold.c (answers held until their records
 * commit). docs/quorum.md, "In the node". */
#ifndef LR_NODE_CTL_ROLE_H
#define LR_NODE_CTL_ROLE_H

#include "base/buf.h"
#include "controller/controller.h"
#include "node/ctl_snapshot.h"
#include "node/node_int.h"
#include "quorum/qlog.h"
#include "quorum/qwire.h"
#include "quorum/quorum.h"

/* This node as a voter of the metadata quorum. */
typedef struct lr_nq {
    lr_quorum *q;
    lr_qlog *ql;
    lr_qwire w;
    char dir[1024];                  /* the metadata partition's directory */
    int32_t voter_ids[LR_MAX_VOTERS];
    size_t n_voters;
    /* quorum-state: the latest write asked for, done in lr_nq_pump */
    int persist_pending;
    uint64_t persist_seq;
    lr_quorum_state persist_state;
    int64_t persist_retry_ms;        /* after a failed write */
    int64_t hw;                      /* the latest fx.commit */
    int64_t applied;                 /* the controller's image holds the log below this */
    int64_t told_hw;                 /* the commit point parked metadata fetches were woken for */
    int active;                      /* the controller answers: leader, LeaderChange committed */
    int32_t active_epoch;
    int32_t told_epoch, told_leader; /* the leader last handed to lr_voters_learn */
    int pumping;
    int sending;                     /* lr_nq_send is in lr_peer_send */
    int64_t now;
    /* The inbound quorum request being handled (ctl_qwire.c). */
    const lr_req *cur;
    lr_qmsg_type cur_type;
    int32_t cur_from;
    int cur_answered;
    lr_buf recs;                     /* a Fetch answer's batches */
    uint64_t held;                   /* answers waiting for a commit (ctl_hold.c) */
    /* A clean shutdown's handover (ctl_handover.c): resign_at -1 until
     * this leader resigned; handed_over once the shutdown may finish. */
    int64_t resign_at;
    int32_t resign_epoch;
    int handed_over;
} lr_nq;

struct lr_ctl_role {
    lr_ctl *ctl;
    logrep_log *log;
    logrep_batch_builder *b;
    uint8_t *buf; /* the batch being appended (the log stamps it) */
    size_t cap;
    int32_t epoch;  /* single controller: its leader epoch of the metadata log */
    int64_t now_ms; /* of the event being handled */
    lr_nq *nq;      /* NULL: the only controller (one voter) */
    lr_nsnap snap;  /* snapshots of the metadata log (ctl_snapshot.c) */
};

/* ctl_role.c: the controller's sink, for a controller rebuilt by ctl_quorum.c. */
int lr_nctl_sink(void *ctx, int64_t offset, const uint8_t *rec, size_t len);

/* ---- ctl_quorum.c ---- */
/* Starts this voter over the opened metadata log r->log: reads
 * quorum-state (fresh: the directory was made by this start, and
 * quorum-state is formatted), and leaves the controller a standby with
 * an empty image. 0 or an error (the role fails to start). */
int lr_nq_start(logrep_node *n, struct lr_ctl_role *r, int fresh, int64_t now_ms);
void lr_nq_free(logrep_node *n, struct lr_ctl_role *r);
/* The sink's append of one record the active controller wrote. */
int lr_nq_propose(logrep_node *n, int64_t offset, const uint8_t *rec, size_t len);
/* Writes quorum-state, flushes the log, applies commits, follows the
 * leadership, releases held answers: after every event that may have
 * changed the quorum. */
void lr_nq_pump(logrep_node *n, int64_t now_ms);
/* Timers; returns the quorum's next deadline. */
int64_t lr_nq_tick(logrep_node *n, int64_t now_ms);

/* Read-only views for the simulator's checker (lib/sim/check_quorum.c):
 * 0 and *out filled when n is a voter of a quorum, else -1. */
typedef struct lr_nq_view {
    int32_t epoch, leader;    /* the quorum's, leader -1 unknown */
    int role;                 /* lr_quorum_role */
    int active;               /* the active controller, in active_epoch */
    int32_t active_epoch;
    int abstaining;           /* after a lost quorum-state */
    int64_t hw;               /* committed below this here (-1 unknown) */
    int64_t end;              /* the metadata log's end */
    int64_t start;            /* its start (above 0 once trimmed below a snapshot) */
    int64_t applied;          /* the controller's image holds the log below this */
} lr_nq_view;
int lr_nctl_quorum_view(const logrep_node *n, lr_nq_view *out);
/* Up to max entries of this voter's metadata log from `from` (valid until
 * the node's next event); 0 at the end or on a read error. */
size_t lr_nctl_quorum_read(logrep_node *n, int64_t from, lr_qentry *es, size_t max);

/* ---- ctl_handover.c ---- */
/* From the tick: resigns a leader whose node is shutting down once its
 * broker part is done; the next deadline. */
int64_t lr_nq_handover_tick(logrep_node *n, lr_nq *nq, int64_t now_ms);

/* ---- ctl_qwire.c ---- */
/* Effects: a message for voter `to`. */
void lr_nq_send(logrep_node *n, int32_t to, const lr_qmsg *m);
/* Requests: lr_ctl_api_quorum (node_int.h). */

/* ---- ctl_hold.c ---- */
/* Holding an answer: lr_nctl_hold (node_int.h). Held answers are parked
 * requests: the node's wake after each event sends those whose records
 * committed. */

#endif
