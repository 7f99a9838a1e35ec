/* Snapshots of the metadata log in the controller role (docs/quorum.md,
 * "Snapshots", "Snapshots in the node"): when to write one, writing it from the
 * controller's image, trimming the log below it, and loading the newest
 * one at start-up. The files are lib/quorum/qsnap's, in the metadata
 * partition's directory; ctl_fsnap.c serves them with FetchSnapshot.
 *
 * Only committed state goes into a snapshot: with a single controller
 * every record is flushed before anything depends on it, so its image
 * always is; with a quorum the caller passes the quorum's commit point and
 * nothing is written unless the image holds exactly the log below it. */
#ifndef LR_NODE_CTL_SNAPSHOT_H
#define LR_NODE_CTL_SNAPSHOT_H

#include <stdint.h>

#include "node/node_int.h"
#include "quorum/qsnap.h"

/* A failed write is tried again this long after (never silently). */
#define LR_NSNAP_RETRY_MS 5000

/* The role's snapshot state (struct lr_ctl_role). */
typedef struct lr_nsnap {
    char dir[1024];        /* the metadata partition's directory */
    lr_qsnap_id latest;    /* the newest snapshot written or loaded; end_offset -1: none */
    int64_t max_bytes;     /* metadata.log.max.record.bytes.between.snapshots */
    int64_t interval_ms;   /* metadata.log.max.snapshot.interval.ms; 0: no time trigger */
    int64_t bytes;         /* record batch bytes appended since `latest` */
    int64_t since_ms;      /* when `latest` was written (or the role started) */
    int64_t retry_ms;      /* after a failed write: nothing before then */
    int64_t written;       /* snapshots written by this role */
    int64_t failed;        /* writes (or trims) that failed */
} lr_nsnap;

/* ctl_role.c: the state for the role starting over the metadata log in
 * dir, with the conf's policy. */
void lr_nsnap_init(logrep_node *n, lr_nsnap *s, const char *dir, int64_t now_ms);

/* ctl_role.c, a single controller's start-up over its opened log: removes
 * what a crash left (lr_qsnap_clean), loads the newest snapshot that
 * checks into the controller, and says where the log's replay begins
 * (*from: max(the snapshot's end, the log start)). Refused, logged at
 * ERROR: a log that starts above 0 without a snapshot, or above the
 * snapshot's end (LOGREP_ERR__CORRUPT: the records between are lost). A
 * log that ends below the snapshot's end restarts empty at it
 * (logrep_log_truncate_fully_and_start_at). 0 or the error. */
int lr_nsnap_open(logrep_node *n, int64_t now_ms, int64_t *from);

/* Loads dir/<id>.checkpoint into the controller (lr_ctl_load_snapshot):
 * the image is the snapshot's, its next offset id.end_offset, and `id`
 * the latest snapshot. On any error (logged) the controller is unchanged.
 * For the quorum: a standby that installed its leader's snapshot. */
int lr_nctl_snapshot_load(logrep_node *n, lr_qsnap_id id, int64_t now_ms);

/* Record batch bytes appended to the metadata log (the single
 * controller's sink; with a quorum, its caller for committed batches). */
void lr_nctl_snapshot_count(logrep_node *n, uint64_t bytes);

/* Writes a snapshot of the controller's image now, when it holds exactly
 * the log below committed_end (a single controller passes its log end;
 * a quorum its high watermark) and records came since the latest
 * snapshot. Its id: (the image's next offset E, the epoch of the entry at
 * E - 1 in the log's leader-epoch cache); LastContainedLogTimestamp: that
 * entry's batch's max timestamp. Once durable: the log rolls, its start
 * moves to E (lr_qsnap_trim_log) and older snapshots are deleted.
 * 1 written (and the log trimmed); 0 nothing to write (no new records,
 * the image not at committed_end, no controller or a stopped one); an
 * error, logged at ERROR: a write that failed leaves the log whole and is
 * tried again after LR_NSNAP_RETRY_MS; a trim that failed leaves the
 * snapshot and is tried at the next one. */
int lr_nctl_snapshot_now(logrep_node *n, int64_t now_ms, int64_t committed_end);

/* The policy: lr_nctl_snapshot_now when the bytes appended since the
 * latest snapshot reach max_bytes, or interval_ms passed since it with
 * records that are not in it, and no failed write waits for its retry.
 * A single controller's tick calls it; with a quorum, call it after
 * commits and from the quorum's tick. Returns as lr_nctl_snapshot_now. */
int lr_nctl_snapshot_maybe(logrep_node *n, int64_t now_ms, int64_t committed_end);

/* When lr_nctl_snapshot_maybe next has work (INT64_MAX: none timed). */
int64_t lr_nctl_snapshot_deadline(const logrep_node *n, int64_t now_ms);

/* The directory holding the snapshots (and the metadata log); NULL
 * without the controller role. */
const char *lr_nctl_snapshot_dir(const logrep_node *n);

/* 1 and *id when the role knows a snapshot (written, loaded or installed),
 * else 0. */
int lr_nctl_snapshot_latest(const logrep_node *n, lr_qsnap_id *id);

/* A snapshot installed by other means (a voter's FetchSnapshot from its
 * leader) is the latest from now on when newer. */
void lr_nctl_snapshot_set_latest(logrep_node *n, lr_qsnap_id id, int64_t now_ms);

/* ---- ctl_fsnap.c: FetchSnapshot from brokers ---- */
int lr_ctl_api_fetch_snapshot(logrep_node *n, const lr_req *r);

#endif
