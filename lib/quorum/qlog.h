/* The quorum's log (lr_quorum_log) over a logrep_log: the metadata
 * partition kept in Kafka's on-disk layout (docs/quorum.md, "The log on
 * disk").
 *
 * Every entry is written as a batch of its own (lr_qbatch_encode) with
 * logrep_log_append_follower: the batch carries the offset and epoch the
 * quorum chose, and the log's leader-epoch cache follows the batches'
 * epochs, so epoch_end is the log's own answer. One entry per batch keeps
 * every truncation point on a batch boundary: the log drops whole
 * batches, and cutting a batch of several entries means rewriting its
 * head, which a crash in between would lose although this voter may have
 * reported it durable. A log written otherwise (batches of several
 * entries) is read as it is, and truncated inside a batch by rewriting
 * the head and flushing at once (that window remains for such logs).
 *
 * Ownership and lifetime: the adapter borrows the log, which must stay
 * open while the adapter lives and be changed by no one else (the host
 * flushes and ticks it; retention and DeleteRecords must not run on it:
 * only a snapshot moves its start, lr_qlog_trim). Entries
 * returned by read point into a buffer of the adapter, valid until the
 * next read, append, truncate or free (quorum.h promises "until the next
 * change"; the quorum uses each read's entries before its next read).
 *
 * lr_quorum_new passes one ctx to the log and to the effects: give it the
 * lr_qlog, and reach the host's own state from the effects with
 * lr_qlog_host(ctx). One thread at a time, like the log. */
#ifndef LR_QUORUM_QLOG_H
#define LR_QUORUM_QLOG_H

#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>
#include "quorum/qsnap.h"
#include "quorum/quorum.h"

typedef struct lr_qlog lr_qlog;

/* An adapter over `log`. conf: allocator and log hook (NULL: defaults),
 * borrowed for the adapter's life; host: returned by lr_qlog_host.
 * Checks that the log's leader-epoch cache names the epoch of its last
 * entry (a log may start above 0: trimmed below a snapshot, or restarted
 * at one). 0; LOGREP_ERR__INVALID_ARG; LOGREP_ERR__CORRUPT (last entry
 * unreadable, or its epoch is not the cache's latest);
 * LOGREP_ERR__NOMEM; the log's errors. */
int lr_qlog_new(const logrep_conf *conf, logrep_log *log, void *host, lr_qlog **out);
/* Frees the adapter, not the log. NULL is a no-op. */
void lr_qlog_free(lr_qlog *ql);

/* The lr_quorum_log whose functions take the lr_qlog as ctx. */
const lr_quorum_log *lr_qlog_ops(void);
void *lr_qlog_host(const lr_qlog *ql);

/* Time for what the next appends write (record timestamps, segment
 * rolls): call it with the now_ms given to the quorum. */
void lr_qlog_set_now(lr_qlog *ql, int64_t now_ms);

/* Flushes the log (logrep_log_flush) and puts in *durable_end the offset
 * below which it is durable (its recovery point), for
 * lr_quorum_log_flushed. 0 or the log's error (then *durable_end is what
 * was durable before). Also call it once after opening the log, before
 * lr_quorum_new, which counts the whole log as flushed. */
int lr_qlog_flush(lr_qlog *ql, int64_t now_ms, int64_t *durable_end);
/* The durable end without flushing: the log also flushes by itself
 * (flush.messages, flush.ms in logrep_log_tick). */
int64_t lr_qlog_durable_end(const lr_qlog *ql);

/* The error of the last read (0 when it succeeded). read has no error
 * return: a read that fails answers no entries, is logged at ERROR and
 * is kept here. */
int lr_qlog_read_error(const lr_qlog *ql);

/* ---- snapshots (docs/quorum.md, "Snapshots in the quorum") ---- */

/* The host's state machine, loaded from snapshot `id` in the snapshot
 * directory (lr_qsnap_read) when a follower installs one the leader sent.
 * 0, or an error: the install fails and the quorum fetches again. */
typedef int (*lr_qlog_load_fn)(void *host, lr_qsnap_id id);

/* Turns snapshots on: they are the files of qsnap.h in `dir` (copied) on
 * `st` (borrowed, to outlive the adapter), beside the log's segments.
 * Call once after lr_qlog_new, before lr_quorum_new. It removes what a
 * crash left (lr_qsnap_clean), takes the newest snapshot that checks
 * (lr_qsnap_latest) as the latest, and when that snapshot is past the
 * log end, or of a newer epoch than the log's last entry (an install cut
 * short), restarts the log at it. The host then loads the state machine
 * from lr_qlog_snapshot's id, if any, and replays the log after it.
 * From then on the quorum's log answers start_offset, latest_snapshot,
 * snap_read (lr_qsnap_read_chunk), snap_write and snap_abort
 * (lr_qsnap_recv_*), and snap_install: the received file checked and
 * installed, load(host, id), the log restarted at its end
 * (logrep_log_truncate_fully_and_start_at), older snapshots deleted.
 * 0; LOGREP_ERR__INVALID_ARG; LOGREP_ERR__CORRUPT (the newest snapshot
 * ends below the log start: it cannot stand for the log below it);
 * storage and log errors. */
int lr_qlog_set_snapshots(lr_qlog *ql, const logrep_storage *st, const char *dir,
                          lr_qlog_load_fn load);
/* The latest snapshot: 0 and *id, or LOGREP_ERR__NOENT. */
int lr_qlog_snapshot(const lr_qlog *ql, lr_qsnap_id *id);
/* The host wrote snapshot id (lr_qsnap_writer_finish returned 0): it is
 * the latest when newer than the one known. */
void lr_qlog_snapshot_written(lr_qlog *ql, lr_qsnap_id id);
/* Moves the log start up to snapshot id (lr_qsnap_trim_log: only below a
 * whole snapshot, at or below the log end), takes it as the latest, and
 * deletes older snapshots. 0; LOGREP_ERR__INVALID_ARG (snapshots not
 * set); the trim's and storage errors. */
int lr_qlog_trim(lr_qlog *ql, lr_qsnap_id id);

#endif
