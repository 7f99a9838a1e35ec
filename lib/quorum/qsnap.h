/* Snapshots of the metadata log on disk (docs/quorum.md, "Snapshots").
 *
 * A snapshot with end offset E and epoch P holds the state every entry
 * below E built. It is the file
 *
 *     <dir>/<E, 20 digits>-<P, 10 digits>.checkpoint
 *
 * of record batches v2 (qbatch.h's bytes) at offsets 0, 1, ... with
 * partition leader epoch P:
 *
 *     a control batch: SnapshotHeader (control type 3) at offset 0
 *     data batches: the state machine's records, at offsets 1 .. n
 *     a control batch: SnapshotFooter (control type 4) at offset n + 1
 *
 * It is written as <name>.part, synced, renamed and the directory synced:
 * a crash leaves the old set of snapshots or the new one, and a stray
 * .part that lr_qsnap_clean removes. A file that is not exactly that
 * (torn, a bad CRC, no header first, no footer last, another epoch, bytes
 * after the footer, a name that does not parse) is refused, never read as
 * a shorter snapshot.
 *
 * Everything goes through the storage vtable; memory is bounded by one
 * batch (LR_QBATCH_MAX_BYTES) however large the snapshot. One thread at a
 * time per handle. */
#ifndef LR_QUORUM_QSNAP_H
#define LR_QUORUM_QSNAP_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>

#define LR_QSNAP_SUFFIX ".checkpoint"
#define LR_QSNAP_PART_SUFFIX ".checkpoint.part"
#define LR_QSNAP_DELETED_SUFFIX ".checkpoint.deleted"
/* "<20>-<10>.checkpoint.deleted" and its NUL, with room. */
#define LR_QSNAP_NAME_MAX 64

#define LR_QSNAP_CTL_HEADER 3
#define LR_QSNAP_CTL_FOOTER 4
/* The writer closes a data batch at this many bytes of records or
 * LR_QSNAP_BATCH_RECORDS records (readers take any batch up to
 * LR_QBATCH_MAX_BYTES). */
#define LR_QSNAP_BATCH_BYTES (1u << 20)
#define LR_QSNAP_BATCH_RECORDS 4096

typedef struct lr_qsnap_id {
    int64_t end_offset; /* every entry below it is in the snapshot */
    int32_t epoch;      /* the epoch of the entry at end_offset - 1 */
} lr_qsnap_id;

/* What a check or read found. why: the reason a file was refused,
 * NUL-terminated ("" when it was not). */
typedef struct lr_qsnap_info {
    lr_qsnap_id id;
    int64_t last_ts;   /* SnapshotHeader.LastContainedLogTimestamp */
    int64_t n_records; /* data records */
    uint64_t size;     /* bytes of the file */
    char why[160];
} lr_qsnap_info;

/* "<20 digits>-<10 digits><suffix>" into buf; the length, 0 when id is
 * negative or cap too small. */
size_t lr_qsnap_name(lr_qsnap_id id, const char *suffix, char *buf, size_t cap);

/* Parses a file name. 1 for a snapshot (.checkpoint), 2 for a partial one
 * (.checkpoint.part), 3 for one being deleted (.checkpoint.deleted), 0
 * for anything else (*id untouched). Exactly 20 and 10 digits, the epoch
 * at most 2^31-1. */
int lr_qsnap_parse_name(const char *name, lr_qsnap_id *id);

/* ---- writing ---- */

typedef struct lr_qsnap_writer lr_qsnap_writer;

/* Starts dir/<id>.checkpoint.part (replacing a stale one) and writes the
 * header batch. last_ts: the append time of the entry at end_offset - 1;
 * now_ms: the batches' timestamps. conf: allocator and log hook.
 * 0; LOGREP_ERR__INVALID_ARG (negative offset or epoch, path too long);
 * LOGREP_ERR__NOMEM; storage errors. */
int lr_qsnap_writer_new(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                        lr_qsnap_id id, int64_t last_ts, int64_t now_ms, lr_qsnap_writer **out);
/* Adds one record (copied). 0; LOGREP_ERR__LIMIT (a record that fits no
 * batch); LOGREP_ERR__NOMEM; storage errors. After an error the writer
 * only fails; free it. */
int lr_qsnap_writer_add(lr_qsnap_writer *w, const uint8_t *rec, size_t len);
/* Writes the last data batch and the footer, syncs, renames to
 * <id>.checkpoint and syncs the directory: then, and only then, the
 * snapshot is durable and the log below it may go (lr_qsnap_trim_log).
 * *size (may be NULL) gets the file's size. 0 or the error; on error no
 * <id>.checkpoint was made by this writer. */
int lr_qsnap_writer_finish(lr_qsnap_writer *w, uint64_t *size);
/* Frees the writer; an unfinished one's .part is removed. NULL: no-op. */
void lr_qsnap_writer_free(lr_qsnap_writer *w);

/* ---- reading ---- */

/* One data record, in order; offset counts from 1. The bytes are valid
 * during the call. A non-zero return stops the read and is returned. */
typedef int (*lr_qsnap_fn)(void *ctx, int64_t offset, const uint8_t *rec, size_t len);

/* Checks dir/<id>.checkpoint whole without handing anything out.
 * 0; LOGREP_ERR__CORRUPT (info->why says what); LOGREP_ERR__UNSUPPORTED
 * (a compressed batch, a header or footer version other than 0, another
 * control record such as KRaftVersion or Voters); LOGREP_ERR__NOENT;
 * LOGREP_ERR__NOMEM; storage errors. info may be NULL. */
int lr_qsnap_check(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                   lr_qsnap_id id, lr_qsnap_info *info);
/* Checks the file whole as lr_qsnap_check, then hands every data record to
 * fn: a snapshot that is not whole gives no record at all. The file is
 * read twice; if it changes in between, the second pass stops at the
 * first difference with LOGREP_ERR__CORRUPT, after fn saw a prefix:
 * throw away what fn built on any error. */
int lr_qsnap_read(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                  lr_qsnap_id id, lr_qsnap_fn fn, void *ctx, lr_qsnap_info *info);

/* Removes what a crash left: *.checkpoint.part and *.checkpoint.deleted.
 * Call at start-up, before any writer or receiver runs in dir (theirs
 * would go too). *removed (may be NULL) gets the count. 0 or storage
 * errors (NOENT for a missing dir). */
int lr_qsnap_clean(const logrep_storage *st, const char *dir, size_t *removed);

/* The snapshots in dir by name, newest first ((end_offset, epoch)
 * descending): the first cap of them in ids, all of them counted in *n.
 * 0 or storage errors. */
int lr_qsnap_list(const logrep_storage *st, const char *dir, lr_qsnap_id *ids, size_t cap,
                  size_t *n);

/* The newest snapshot of dir that checks whole (of the 16 newest by name),
 * in *out, its info in *info (may be NULL). Refused ones are logged at
 * ERROR with the reason, counted in *n_refused (may be NULL), and left on
 * disk. 0; LOGREP_ERR__NOENT when none checks; LOGREP_ERR__NOMEM; storage
 * errors. The caller still checks that the log starts at or below
 * out->end_offset: an older snapshot under a log trimmed to a newer one
 * cannot rebuild the state (fetch the leader's then). */
int lr_qsnap_latest(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                    lr_qsnap_id *out, lr_qsnap_info *info, size_t *n_refused);

/* ---- FetchSnapshot: sending and receiving in pieces ---- */

/* Up to max bytes of dir/<id>.checkpoint from pos into buf: *n bytes
 * (0 at the end), *total the file's size. 0; LOGREP_ERR__INVALID_ARG
 * (pos past the end: Kafka's POSITION_OUT_OF_RANGE); LOGREP_ERR__NOENT
 * (SNAPSHOT_NOT_FOUND); storage errors. */
int lr_qsnap_read_chunk(const logrep_storage *st, const char *dir, lr_qsnap_id id, uint64_t pos,
                        void *buf, size_t max, size_t *n, uint64_t *total);

typedef struct lr_qsnap_recv lr_qsnap_recv;

/* Starts receiving dir/<id>.checkpoint of `size` bytes (the sender's
 * total) into <id>.checkpoint.part. 0; LOGREP_ERR__INVALID_ARG (negative
 * id, size smaller than an empty snapshot, path too long);
 * LOGREP_ERR__NOMEM; storage errors. */
int lr_qsnap_recv_new(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                      lr_qsnap_id id, uint64_t size, lr_qsnap_recv **out);
/* Writes [pos, pos+len) of the file. pos must be the bytes received so
 * far (lr_qsnap_recv_position): a gap or an overlap is refused with
 * LOGREP_ERR__INVALID_ARG, bytes past `size` with LOGREP_ERR__LIMIT;
 * nothing is written then and the receiver stays usable. Storage errors
 * leave it failed. */
int lr_qsnap_recv_append(lr_qsnap_recv *r, uint64_t pos, const void *data, size_t len);
uint64_t lr_qsnap_recv_position(const lr_qsnap_recv *r);
/* All `size` bytes in: checks the file whole (lr_qsnap_check), then syncs,
 * renames and syncs the directory. 0; LOGREP_ERR__INVALID_ARG (bytes
 * missing); the check's errors (the .part is removed: fetch again);
 * storage errors. info may be NULL. */
int lr_qsnap_recv_finish(lr_qsnap_recv *r, lr_qsnap_info *info);
/* Frees the receiver; an unfinished one's .part is removed. NULL: no-op. */
void lr_qsnap_recv_free(lr_qsnap_recv *r);

/* ---- the log below a snapshot ---- */

/* Moves the log start of the metadata log up to id.end_offset (deleting
 * the segments wholly below it) once dir/<id>.checkpoint exists and
 * checks whole: a snapshot that is not durable never stands in for the
 * log. 0; LOGREP_ERR__UNSUPPORTED when the snapshot ends past the log end
 * (that is no trim: a follower that installs such a snapshot restarts its
 * log with logrep_log_truncate_fully_and_start_at, lr_qlog does); the
 * check's errors; the log's errors. */
int lr_qsnap_trim_log(const logrep_conf *conf, const logrep_storage *st, const char *dir,
                      logrep_log *log, lr_qsnap_id id);
/* Deletes the snapshots older than id (by (end_offset, epoch)): call after
 * lr_qsnap_trim_log, keeping id. *removed (may be NULL) gets the count.
 * 0 or storage errors. */
int lr_qsnap_delete_before(const logrep_storage *st, const char *dir, lr_qsnap_id id,
                           size_t *removed);

#endif
