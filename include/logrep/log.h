/*
 * liblogrep partition log: one Kafka partition directory, read and written
 * through a logrep_storage (<logrep/storage.h>).
 *
 * The directory has Kafka's layout and file formats, so it can move between
 * liblogrep and Apache Kafka: segments `<20-digit base offset>.log`,
 * `.index`, `.timeindex`, `.snapshot`, `leader-epoch-checkpoint`,
 * `partition.metadata`. liblogrep also keeps, in the partition directory,
 * one-line `recovery-point-offset-checkpoint` and
 * `log-start-offset-checkpoint` files in Kafka's checkpoint format (Kafka
 * keeps those per log directory and ignores them here). Index files are
 * never preallocated: they always hold exactly their entries, as Kafka
 * needs for files it opens. See docs/storage.md.
 *
 * Time is always an argument (`now_ms`): the log reads no clock.
 *
 * Threads: a log is used by one thread at a time. Logs on one storage must
 * be used by one thread at a time too, unless the storage is thread-safe
 * (the POSIX backend is; the memory backends are not).
 *
 * Errors common to the functions below: LOGREP_ERR__INVALID_ARG,
 * LOGREP_ERR__NOMEM, the storage's LOGREP_ERR__IO / __NOSPACE (the OS
 * errno through logrep_log_os_errno()), and LOGREP_ERR_KAFKA_STORAGE_ERROR
 * once a failed write could not be undone: the log then refuses every
 * change until it is closed and reopened (which runs recovery).
 */
#ifndef LOGREP_LOG_H
#define LOGREP_LOG_H

#include <logrep.h>
#include <logrep/storage.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct logrep_log logrep_log;

/** What opening the log found and did (crash recovery). */
typedef struct logrep_log_recovery {
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t recovery_point;        /**< as read from its checkpoint (0 if absent) */
    int64_t bytes_truncated;       /**< bytes cut from .log files (torn or corrupt tails) */
    int32_t segments_recovered;    /**< segments scanned batch by batch */
    int32_t segments_deleted;      /**< segments removed after a cut, or below the log start */
    int32_t indexes_rebuilt;       /**< .index/.timeindex pairs rewritten */
    int32_t epoch_entries_removed; /**< leader-epoch entries beyond the recovered end */
    int32_t files_removed;         /**< stray temporary and orphaned index files */
    int32_t clean;                 /**< 1 when nothing had to be scanned */
} logrep_log_recovery;

/** Opens the partition in directory `dir`, creating the directory (one
 *  level) when absent, and runs crash recovery: every segment from the one
 *  holding the recovery point to the end is scanned batch by batch (size,
 *  CRC, increasing offsets), a torn or corrupt tail is cut to the last
 *  valid batch and later segments deleted, indexes are rebuilt, and the
 *  leader-epoch cache is trimmed to the recovered log end. What was cut is
 *  reported through the conf's log hook (WARN) and logrep_log_recovery_info().
 *
 *  Properties read from conf: segment.bytes, segment.ms, segment.index.bytes,
 *  index.interval.bytes, retention.bytes, retention.ms, flush.messages,
 *  flush.ms, max.message.bytes, message.timestamp.type,
 *  producer.id.expiration.ms, log.flush.offset.checkpoint.interval.ms,
 *  cleanup.policy, min.cleanable.dirty.ratio, min.compaction.lag.ms,
 *  max.compaction.lag.ms, delete.retention.ms, log.cleaner.dedupe.buffer.size.
 *
 *  Ownership: `storage` is borrowed and must outlive the log; `dir` is
 *  copied. @return LOGREP_OK, LOGREP_ERR__UNSUPPORTED (storage version or
 *  required method missing), LOGREP_ERR__CORRUPT (a checkpoint or
 *  partition.metadata is malformed: the log is not opened, as Kafka
 *  refuses it), LOGREP_ERR__INVALID_ARG (a cleanup.policy word other than
 *  delete and compact, a min.cleanable.dirty.ratio outside 0..1), storage
 *  errors. */
LOGREP_API logrep_err logrep_log_open(const logrep_conf *conf, const logrep_storage *storage,
                                      const char *dir, int64_t now_ms, logrep_log **out);

/** Flushes, writes the final time-index entries, the checkpoints and a
 *  producer-state snapshot, closes the files and frees the log. The log is
 *  freed even when an error is returned (the first error met, also logged
 *  at LOGREP_LEVEL_ERROR); the data is then as after a crash. NULL is a
 *  no-op returning LOGREP_OK. */
LOGREP_API logrep_err logrep_log_close(logrep_log *log);

/** Frees the log without flushing or writing anything (as a crash would
 *  leave it). NULL is a no-op. */
LOGREP_API void logrep_log_abandon(logrep_log *log);

/** What open() found; valid for the log's life. */
LOGREP_API const logrep_log_recovery *logrep_log_recovery_info(const logrep_log *log);

/** errno of the last storage failure seen by this log, 0 if none. */
LOGREP_API int logrep_log_os_errno(const logrep_log *log);

/** Appends (leader or follower) refused by a storage failure since open;
 *  *failing (when not NULL) is 1 while the last append failed. The first
 *  failure of an episode is logged at ERROR with the directory and errno,
 *  the first success after it at INFO. */
LOGREP_API int64_t logrep_log_append_errors(const logrep_log *log, int *failing);

/** Result of an append. */
typedef struct logrep_log_append_info {
    int64_t first_offset;        /**< base offset of the first batch */
    int64_t last_offset;         /**< last offset of the last batch */
    int64_t max_timestamp;       /**< largest batch maxTimestamp (-1 if none) */
    int64_t log_append_time;     /**< now_ms under LogAppendTime, else -1 */
    int32_t batches;
    int32_t records;
} logrep_log_append_info;

/** Appends record batches (v2, back to back in `buf`) as the partition
 *  leader in `leader_epoch`: assigns consecutive offsets from the log end
 *  by stamping baseOffset and partitionLeaderEpoch into `buf` in place (the
 *  CRC does not cover them), sets LogAppendTime (and the CRC) when the
 *  topic uses it, records the epoch's start in the leader-epoch cache, then
 *  writes. The append is all or nothing: on error the log is unchanged
 *  (the bytes of buf may have been stamped). Rolls a segment first when
 *  the batches would not fit (segment.bytes, segment.ms, full index, offset
 *  range); flushes when flush.messages is reached.
 *  Validation: every batch must verify (magic 2, length, CRC), hold
 *  lastOffsetDelta + 1 == recordCount > 0, fit max.message.bytes, and
 *  with cleanup.policy compact hold no record without a key.
 *  Ownership: buf is borrowed for the call.
 *  @return LOGREP_OK; LOGREP_ERR_CORRUPT_MESSAGE (a batch fails to verify,
 *  or trailing bytes); LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT (magic
 *  0/1); LOGREP_ERR_MESSAGE_TOO_LARGE; LOGREP_ERR_RECORD_LIST_TOO_LARGE
 *  (larger than segment.bytes); LOGREP_ERR_INVALID_RECORD (count and
 *  lastOffsetDelta disagree, a keyless record on a compacted topic);
 *  LOGREP_ERR__INVALID_ARG (negative epoch,
 *  empty buffer); storage errors. */
LOGREP_API logrep_err logrep_log_append_leader(logrep_log *log, void *buf, size_t len,
                                               int32_t leader_epoch, int64_t now_ms,
                                               logrep_log_append_info *info);

/** Appends batches that already carry their offsets and leader epochs (a
 *  follower copying the leader). Each batch must verify, and its base
 *  offset must be >= the log end offset and above the previous batch's
 *  last offset. Batches of a compacted leader are taken as they are:
 *  gaps between them, fewer records than offsets (recordCount <=
 *  lastOffsetDelta + 1, even 0), the delete-horizon bit. Epoch cache entries are added for newer epochs. `buf` is
 *  not modified. @return as logrep_log_append_leader(), plus
 *  LOGREP_ERR_OFFSET_OUT_OF_RANGE for offsets below the log end or not
 *  increasing. */
LOGREP_API logrep_err logrep_log_append_follower(logrep_log *log, const void *buf, size_t len,
                                                 int64_t now_ms, logrep_log_append_info *info);

/** A byte range of one segment file holding whole batches. */
typedef struct logrep_log_slice {
    /** Borrowed: valid until the next call on the log other than read,
     *  append, flush and the queries. Serve it with the storage's read, or
     *  sendfile from its file_fd. NULL when length is 0. */
    logrep_file *file;
    int64_t segment_base;    /**< names the file: <segment_base>.log */
    uint64_t position;
    uint64_t length;         /**< 0: nothing to send */
    int64_t first_offset;    /**< base offset of the first batch in the range */
    int64_t next_offset;     /**< last offset of the last batch + 1 */
} logrep_log_slice;

/** Locates the batches to answer a fetch from `offset`: starting at the
 *  batch holding `offset`, whole batches of one segment, at most
 *  `max_bytes` in total (but the first batch whole even when larger, if
 *  `min_one`), and only batches whose last offset is below `max_offset`
 *  (the high watermark; INT64_MAX for none). Reads batch headers, never
 *  payloads.
 *  @return LOGREP_OK (offset at the log end, or nothing below max_offset:
 *  an empty slice); LOGREP_ERR_OFFSET_OUT_OF_RANGE (below the log start
 *  or beyond the log end); LOGREP_ERR__CORRUPT (a segment's contents do
 *  not match its index); storage errors. */
LOGREP_API logrep_err logrep_log_read(logrep_log *log, int64_t offset, uint64_t max_bytes,
                                      int64_t max_offset, int min_one, logrep_log_slice *out);

LOGREP_API int64_t logrep_log_start_offset(const logrep_log *log);
LOGREP_API int64_t logrep_log_end_offset(const logrep_log *log);
/** Offset below which everything is known durable. */
LOGREP_API int64_t logrep_log_recovery_point(const logrep_log *log);
/** Bytes in all .log files, and the number of segments. */
LOGREP_API uint64_t logrep_log_size(const logrep_log *log);
LOGREP_API int32_t logrep_log_segment_count(const logrep_log *log);

/** Special timestamps of ListOffsets. */
enum {
    LOGREP_OFFSET_LATEST = -1,        /**< the log end offset */
    LOGREP_OFFSET_EARLIEST = -2,      /**< the log start offset */
    LOGREP_OFFSET_MAX_TIMESTAMP = -3, /**< the record with the largest timestamp */
    /* Tiered storage's (KIP-405), answered by the replica layer, not the
     * log: without tiered storage the local log is the whole log. */
    LOGREP_OFFSET_EARLIEST_LOCAL = -4, /**< the local log start offset */
    LOGREP_OFFSET_LATEST_TIERED = -5   /**< the last tiered offset: none (-1) */
};

/** ListOffsets: the first offset whose record timestamp is >= `timestamp`
 *  (and that timestamp), or for the special values above the offset they
 *  name (timestamp -1). Reads the time index, then records of one batch
 *  (decompressing it when needed).
 *  @return LOGREP_OK; LOGREP_ERR__NOENT when no record is that recent
 *  (Kafka answers offset -1); LOGREP_ERR__CORRUPT; storage errors. */
LOGREP_API logrep_err logrep_log_offset_for_time(logrep_log *log, int64_t timestamp,
                                                 int64_t *offset, int64_t *found_timestamp);

/** Removes every batch at or above `offset`, as a follower truncates to a
 *  leader's end offset; the batch holding `offset` goes whole. Segments
 *  starting at or above it are deleted, the epoch cache is truncated, the
 *  recovery point capped. An offset at or above the log end changes no
 *  data but still truncates the epoch cache (docs/replication.md 1.6). An
 *  offset at or below the log start empties the log and restarts it at
 *  `offset`. @return LOGREP_OK, storage errors. */
LOGREP_API logrep_err logrep_log_truncate(logrep_log *log, int64_t offset);

/** Kafka's truncateFullyAndStartAt: empties the log and starts it again
 *  at `offset`, which may lie anywhere, past the log end too (a follower
 *  that installed a snapshot ending there). Every segment is deleted and
 *  an empty one made at `offset`; log start, end and recovery point become
 *  `offset`; the leader-epoch cache and the producer state are cleared; a
 *  cleaning pass under way is aborted; the checkpoints are written, so a
 *  reopen finds the log empty at `offset`.
 *  Crash safety: the batches at and above `offset` are cut first (synced),
 *  then the log-start checkpoint names `offset`, after which a reopen
 *  drops whatever remains below it; then the rest goes. A crash leaves
 *  the log as it was (when `offset` is at or past its end), or as it was
 *  cut at the batch holding `offset` (as logrep_log_truncate() would), or
 *  empty at `offset`: never anything below `offset` readable once the
 *  checkpoint is written.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (negative offset), storage
 *  errors (the log then refuses every change until reopened:
 *  LOGREP_ERR_KAFKA_STORAGE_ERROR). */
LOGREP_API logrep_err logrep_log_truncate_fully_and_start_at(logrep_log *log, int64_t offset);

/** Advances the log start offset (DeleteRecords, or a follower adopting the
 *  leader's start): deletes segments entirely below it, truncates the epoch
 *  cache from the start and checkpoints the new start. Moving backwards is
 *  a no-op. @return LOGREP_OK, LOGREP_ERR_OFFSET_OUT_OF_RANGE (beyond the
 *  log end), storage errors. */
LOGREP_API logrep_err logrep_log_advance_start(logrep_log *log, int64_t offset);

/** Starts a new segment at the log end now (flushing the old one) unless
 *  the active segment is empty. @return LOGREP_OK, storage errors. */
LOGREP_API logrep_err logrep_log_roll(logrep_log *log, int64_t now_ms);

/** Deletes closed segments past retention.ms (judged by their largest
 *  timestamp against now_ms) or beyond retention.bytes, oldest first, when
 *  cleanup.policy includes delete; segments wholly below the log start
 *  always go. The active segment is never deleted. The log start moves to the first
 *  remaining segment. `*deleted` (if not NULL) receives the count.
 *  @return LOGREP_OK, storage errors. */
LOGREP_API logrep_err logrep_log_retention(logrep_log *log, int64_t now_ms, int32_t *deleted);

/** As logrep_log_retention(), but keeps every segment that holds an
 *  offset at or above `limit` (a partition passes its high watermark, as
 *  Kafka never deletes what consumers cannot yet read).
 *  @return LOGREP_OK, storage errors. */
LOGREP_API logrep_err logrep_log_retention_upto(logrep_log *log, int64_t now_ms, int64_t limit,
                                                int32_t *deleted);

/** Takes the properties logrep_log_open() reads from `conf` again, as a
 *  topic config change reaches an open partition. They apply from the next
 *  append, roll, flush or retention check; segments already written keep
 *  their size and the decompression limit stays as opened. `conf` is
 *  borrowed. @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_log_reconfigure(logrep_log *log, const logrep_conf *conf);

/** Syncs every unflushed segment file (and the directory when files were
 *  created) and moves the recovery point to the log end. The recovery
 *  point checkpoint file is rewritten by logrep_log_tick() and close, as
 *  Kafka does periodically. @return LOGREP_OK, storage errors (the
 *  recovery point then stays). */
LOGREP_API logrep_err logrep_log_flush(logrep_log *log, int64_t now_ms);

/** Periodic work: flush when the oldest unflushed append is flush.ms old;
 *  rewrite the recovery-point checkpoint every
 *  log.flush.offset.checkpoint.interval.ms. A flush or checkpoint that
 *  fails is tried again a period later, not at the next call. `*next_ms`
 *  (if not NULL) receives when to call again. @return as
 *  logrep_log_flush(). */
LOGREP_API logrep_err logrep_log_tick(logrep_log *log, int64_t now_ms, int64_t *next_ms);

/** Writes the recovery-point and log-start checkpoints now. */
LOGREP_API logrep_err logrep_log_checkpoint(logrep_log *log);

/* ---- leader-epoch cache (docs/replication.md 1.6) ---- */

/** Records that `epoch` starts at `start_offset`, as a new leader does with
 *  (its epoch, log end offset) before any append; entries with an epoch
 *  >= epoch or a start >= start_offset are dropped first. Flushed to
 *  leader-epoch-checkpoint before returning; when that write fails the
 *  cache is left as it was (the epoch is not assigned) and the error
 *  returned.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (negative), storage errors. */
LOGREP_API logrep_err logrep_log_epoch_assign(logrep_log *log, int32_t epoch,
                                              int64_t start_offset);

/** OffsetsForLeaderEpoch, leader side: for `epoch`, the pair
 *  (largest known epoch <= epoch, start offset of the next larger epoch),
 *  with the latest epoch answering the log end offset, an epoch below all
 *  entries answering (epoch, first start), and -1 or an epoch above all
 *  entries answering (-1, -1). Never fails. */
LOGREP_API void logrep_log_epoch_end_offset(const logrep_log *log, int32_t epoch,
                                            int32_t *out_epoch, int64_t *out_offset);

/** The latest epoch in the cache, or -1 when empty. */
LOGREP_API int32_t logrep_log_latest_epoch(const logrep_log *log);

/** Entry i of the cache, oldest first. @return LOGREP_OK or
 *  LOGREP_ERR__END when i is past the last entry. */
LOGREP_API logrep_err logrep_log_epoch_entry(const logrep_log *log, size_t i, int32_t *epoch,
                                             int64_t *start_offset);

/* ---- topic id (partition.metadata) ---- */

/** Writes partition.metadata with the topic id (16 bytes, not all zero).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, storage errors. */
LOGREP_API logrep_err logrep_log_set_topic_id(logrep_log *log, const uint8_t id[16]);
/** @return LOGREP_OK or LOGREP_ERR__NOENT when the directory has no
 *  partition.metadata. */
LOGREP_API logrep_err logrep_log_topic_id(const logrep_log *log, uint8_t id[16]);

/* ---- compaction (docs/storage.md, Compaction) ---- */

/** Flags of logrep_log_clean(). */
enum {
    /** Clean whatever is cleanable now, whatever cleanup.policy and the
     *  dirty ratio say (an operator's offline `logrep compact`). */
    LOGREP_CLEAN_FORCE = 1
};

/** The cleaner's state and counters for one log. */
typedef struct logrep_log_cleaner_stats {
    int32_t compact;             /**< cleanup.policy includes compact */
    int32_t in_pass;             /**< a pass is under way: call logrep_log_clean() again */
    int64_t first_dirty_offset;  /**< below it the log is clean (cleaner-offset-checkpoint) */
    uint64_t clean_bytes;        /**< bytes of closed segments below first_dirty_offset */
    uint64_t dirty_bytes;        /**< bytes of closed segments from first_dirty_offset on */
    double dirty_ratio;          /**< dirty / (clean + dirty); 0 when both are 0 */
    uint64_t passes;             /**< passes completed since open */
    uint64_t passes_aborted;     /**< passes given up (a truncation or retention under them, a storage error) */
    uint64_t bytes_read;         /**< segment bytes read by completed passes since open */
    uint64_t bytes_written;      /**< segment bytes written by completed passes since open */
    uint64_t records_removed;    /**< records (values and tombstones) dropped since open */
    int64_t last_pass_start_ms;  /**< host time the last completed pass began; -1 none */
    int64_t last_pass_end_ms;    /**< host time it ended; -1 none */
    uint64_t map_bytes;          /**< bytes of the key map held now (0 between passes) */
} logrep_log_cleaner_stats;

/** Log compaction, driven by the host: runs the cleaner for at most about
 *  `budget` bytes of segment reads (always at least one batch, so every
 *  call makes progress) and returns; a pass spans as many calls as it
 *  needs and holds its key map and its temporary files meanwhile.
 *
 *  A pass starts only when cleanup.policy includes compact (or
 *  LOGREP_CLEAN_FORCE) and the dirty ratio of the cleanable segments
 *  reaches min.cleanable.dirty.ratio, or the first dirty batch is older
 *  than max.compaction.lag.ms. It never touches the active segment, the
 *  segment holding `limit` and those after it (a replica passes its high
 *  watermark), nor segments from the first dirty one holding a record
 *  younger than min.compaction.lag.ms. It keeps the latest record of
 *  every key at its offset, tombstones until delete.retention.ms after
 *  the pass that first met them, control batches, transactional batches
 *  whole, and the last batch of every producer (empty when all its
 *  records went); keyless records below the map's end go, as Kafka
 *  drops them. Small cleaned segments are merged as Kafka does, one
 *  group at a time, each swapped in with Kafka's protocol (`.cleaned`,
 *  `.swap`, `.deleted`): a crash at any point reopens to every group as
 *  before the pass or as after it.
 *
 *  Reads, appends and truncations may come between calls: a truncation or
 *  retention that removes data under the pass aborts it (its files are
 *  removed, passes_aborted counts it). Slices returned by
 *  logrep_log_read() are invalid after this call.
 *
 *  `*more` (if not NULL) is 1 when a pass is under way or another is due
 *  now: call again soon; 0 when the log needs nothing until more is
 *  written or time passes. @return LOGREP_OK (also when nothing was to be
 *  done); LOGREP_ERR__INVALID_ARG; LOGREP_ERR__NOMEM (the key map could
 *  not be allocated: the pass is not started); storage errors (the pass
 *  is aborted and its files removed; groups already swapped stay
 *  cleaned, the rest is as before; a failure after a group's commit
 *  point makes the log refuse changes until reopened, which completes
 *  the swap). */
LOGREP_API logrep_err logrep_log_clean(logrep_log *log, int64_t now_ms, int64_t limit,
                                       uint64_t budget, int flags, int *more);

/** Fills `out` with the cleaner's state. Never fails. */
LOGREP_API void logrep_log_cleaner_info(const logrep_log *log, logrep_log_cleaner_stats *out);

/* ---- producer state (docs/storage.md, Producer state) ---- */

/** The last batch appended by an idempotent producer, as kept for
 *  duplicate detection and written to `.snapshot` files. */
typedef struct logrep_producer_entry {
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t last_sequence;
    int64_t last_offset;
    int32_t offset_delta;
    int64_t timestamp;
    int32_t coordinator_epoch;
    int64_t current_txn_first_offset;
} logrep_producer_entry;

/** The state of `producer_id` (its most recent batch).
 *  @return LOGREP_OK or LOGREP_ERR__NOENT. */
LOGREP_API logrep_err logrep_log_producer(const logrep_log *log, int64_t producer_id,
                                          logrep_producer_entry *out);

/** Up to 5 most recent batches of a producer in its current epoch, newest
 *  first: (first sequence, last sequence, last offset). *n receives the
 *  count. For duplicate detection (docs/storage.md, Producer state, step 1).
 *  @return LOGREP_OK or LOGREP_ERR__NOENT. */
LOGREP_API logrep_err logrep_log_producer_batches(const logrep_log *log, int64_t producer_id,
                                                  int32_t first_seq[5], int32_t last_seq[5],
                                                  int64_t last_offset[5], int *n);

/** Encodes producer entries as a Kafka `.snapshot` file (docs/storage.md, Producer state)
 *  into buf. `*needed` receives the size (10 + 46 n) even when buf is too
 *  small. @return LOGREP_OK, LOGREP_ERR__LIMIT (buf too small). */
LOGREP_API logrep_err logrep_producer_snapshot_encode(const logrep_producer_entry *entries,
                                                      size_t n, uint8_t *buf, size_t size,
                                                      size_t *needed);

/** Decodes a `.snapshot` file. Entries are written to `entries` (up to
 *  `cap`), `*n` receives the count in the file.
 *  @return LOGREP_OK, LOGREP_ERR__CORRUPT (version, CRC, length),
 *  LOGREP_ERR__LIMIT (more than cap entries). */
LOGREP_API logrep_err logrep_producer_snapshot_decode(const uint8_t *buf, size_t len,
                                                      logrep_producer_entry *entries,
                                                      size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_LOG_H */
