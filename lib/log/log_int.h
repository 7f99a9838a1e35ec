/* Internals of the partition log, shared by the files of lib/log/. */
#ifndef LR_LOG_LOG_INT_H
#define LR_LOG_LOG_INT_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>
#include "base/alloc.h"
#include "base/buf.h"
#include "base/log.h"

#define LR_PATH_MAX 4096
#define LR_OI_ENTRY 8
#define LR_TI_ENTRY 12

/* ---- checkpoint.c: text checkpoints, partition.metadata, atomic files ---- */

/* Replaces dir/name atomically: write name.tmp, sync, rename, sync dir. On
 * failure the old file is untouched and the temporary removed. */
logrep_err lr_file_replace(const logrep_storage *st, const char *dir, const char *name,
                           const void *data, size_t len);
/* The second half of that, for a temporary written in pieces: syncs and
 * closes f (open on tmp), renames tmp to path, syncs dir. On failure tmp
 * is removed and path untouched; f is closed either way. */
logrep_err lr_file_install(const logrep_storage *st, logrep_file *f, const char *tmp,
                           const char *dir, const char *path);
/* Reads a whole file of at most max bytes into a new NUL-terminated buffer
 * (*out, content length *len, to be freed with size *alloc_len).
 * __NOENT when absent, __CORRUPT when larger than max. */
logrep_err lr_file_read_all(const logrep_storage *st, const lr_alloc *a, const char *path,
                            size_t max, char **out, size_t *len, size_t *alloc_len);

typedef struct lr_epoch_entry {
    int32_t epoch;
    int64_t start;
} lr_epoch_entry;

/* leader-epoch-checkpoint text <-> entries. Parsing checks version 0, the
 * count, two non-negative fields per line, strictly increasing columns. */
logrep_err lr_ckpt_parse_epochs(const char *text, size_t len, const lr_alloc *a,
                                lr_epoch_entry **out, size_t *n, size_t *cap);
/* Formats into buf; returns the length, or 0 when buf is too small. */
size_t lr_ckpt_format_epochs(const lr_epoch_entry *e, size_t n, char *buf, size_t size);

/* "<topic> <partition> <offset>" checkpoints: the offset on the line for
 * (topic, partition); __NOENT when the file has no such line. */
logrep_err lr_ckpt_parse_offset(const char *text, size_t len, const char *topic,
                                int32_t partition, int64_t *offset);
size_t lr_ckpt_format_offset(const char *topic, int32_t partition, int64_t offset, char *buf,
                             size_t size);

/* partition.metadata */
logrep_err lr_partition_metadata_parse(const char *text, size_t len, uint8_t id[16]);
size_t lr_partition_metadata_format(const uint8_t id[16], char *buf, size_t size);

/* ---- epoch_cache.c ---- */

typedef struct lr_epoch_cache {
    lr_epoch_entry *v;
    size_t n, cap;
} lr_epoch_cache;

void lr_epoch_cache_free(lr_epoch_cache *c, const lr_alloc *a);
/* The rules of docs/storage.md (leader epochs). *changed is set when entries moved. */
logrep_err lr_epoch_cache_assign(lr_epoch_cache *c, const lr_alloc *a, int32_t epoch,
                                 int64_t start, int *changed);
/* What an assign changed, so that it can be taken back. */
typedef struct lr_epoch_undo {
    size_t n, at;
    int had;
    lr_epoch_entry old;
} lr_epoch_undo;
/* The same, filling undo (when *changed) for lr_epoch_cache_undo. */
logrep_err lr_epoch_cache_assign_undo(lr_epoch_cache *c, const lr_alloc *a, int32_t epoch,
                                      int64_t start, int *changed, lr_epoch_undo *undo);
/* Restores the cache as it was before the assign that filled undo (no
 * change to the cache since). */
void lr_epoch_cache_undo(lr_epoch_cache *c, const lr_epoch_undo *undo);
int lr_epoch_cache_truncate_end(lr_epoch_cache *c, int64_t end);
int lr_epoch_cache_truncate_start(lr_epoch_cache *c, int64_t start);
void lr_epoch_cache_end_offset(const lr_epoch_cache *c, int32_t req, int64_t leo,
                               int32_t *epoch, int64_t *offset);
static inline int32_t lr_epoch_cache_latest(const lr_epoch_cache *c)
{
    return c->n ? c->v[c->n - 1].epoch : -1;
}

/* ---- producer_state.c ---- */

typedef struct lr_pbatch {
    int32_t first_seq, last_seq;
    int64_t last_offset;
    int32_t offset_delta;
    int64_t timestamp;
} lr_pbatch;

typedef struct lr_producer {
    int64_t pid;
    int16_t epoch;
    int32_t coordinator_epoch;
    int64_t txn_first_offset;
    int64_t last_timestamp;
    uint8_t nb;          /* batches held, newest first */
    lr_pbatch b[5];
} lr_producer;

typedef struct lr_pstate {
    lr_producer *v;     /* sorted by pid */
    size_t n, cap;
    /* No producer's last_timestamp is below this: expiry scans only once
     * one may be old enough (ticks come after every input). */
    int64_t min_ts;
} lr_pstate;

void lr_pstate_free(lr_pstate *s, const lr_alloc *a);
void lr_pstate_clear(lr_pstate *s);
const lr_producer *lr_pstate_find(const lr_pstate *s, int64_t pid);
/* Records a batch with producerId >= 0 (others are ignored). */
logrep_err lr_pstate_update(lr_pstate *s, const lr_alloc *a, const logrep_batch_header *h);
/* Room for `extra` more producers, so that many updates cannot fail.
 * LOGREP_OK or LOGREP_ERR__NOMEM. */
logrep_err lr_pstate_reserve(lr_pstate *s, const lr_alloc *a, size_t extra);
/* Drops producers whose last batch is older than expire_before (no open
 * transaction); returns how many. Kafka's producer.id.expiration.ms. */
size_t lr_pstate_expire(lr_pstate *s, int64_t expire_before);
/* Snapshot bytes of the state, in a new buffer of size *len. */
logrep_err lr_pstate_encode(const lr_pstate *s, const lr_alloc *a, uint8_t **out, size_t *len);
/* Loads a snapshot, dropping producers idle since before expire_before. */
logrep_err lr_pstate_load(lr_pstate *s, const lr_alloc *a, const uint8_t *buf, size_t len,
                          int64_t expire_before);

/* ---- indexes and segments (segment.c, offset_index.c, time_index.c) ---- */

typedef struct lr_index {
    logrep_file *f;      /* opened on demand */
    uint32_t entries;
    int64_t last_a;      /* offset index: last offset; time index: last timestamp */
    int64_t last_b;      /* time index: last offset */
} lr_index;

typedef struct lr_segment {
    int64_t base;
    int64_t next_offset;     /* last offset of the last batch + 1; base when empty */
    uint64_t size;           /* bytes of .log */
    logrep_file *log;        /* opened on demand */
    lr_index oi, ti;
    int64_t max_ts;          /* largest batch maxTimestamp so far, -1 none */
    int64_t max_ts_offset;   /* last offset of the batch that carried it */
    int64_t roll_ts;         /* maxTimestamp of the first batch, -1 unknown */
    int64_t created_ms;
    uint64_t bytes_since_idx;
    /* The last batch appended or recovered: fetches at the tail (followers,
     * caught-up consumers) start there without an index lookup, and one
     * inside that batch without reading its header. Valid while
     * tail_pos < size (a truncation that removes it makes it so). */
    uint64_t tail_pos;
    int64_t tail_base;
    logrep_batch_header tail_hdr;
    uint8_t dirty;           /* written since the last sync */
} lr_segment;

/* ---- compaction (cleaner.c, keymap.c; docs/storage.md, Compaction) ---- */

/* The properties of cleanup.policy and the cleaner, parsed. */
typedef struct lr_clean_conf {
    int del, compact;       /* cleanup.policy words */
    double min_dirty_ratio;
    int64_t min_lag_ms, max_lag_ms, delete_retention_ms, dedupe_bytes;
} lr_clean_conf;

/* Counters of logrep_log_cleaner_info(). */
typedef struct lr_clean_stats {
    uint64_t passes, passes_aborted, bytes_read, bytes_written, records_removed;
    int64_t last_start_ms, last_end_ms;
} lr_clean_stats;

typedef struct lr_clean_pass lr_clean_pass;

struct logrep_log {
    lr_alloc alloc;
    lr_log logger;
    const logrep_storage *st;
    char *dir;
    char *topic;             /* from the directory name, for checkpoint lines */
    int32_t partition;

    int64_t seg_bytes, seg_ms, seg_jitter_ms, idx_interval;
    uint32_t oi_max, ti_max;
    int64_t retention_bytes, retention_ms, flush_messages, flush_ms, max_message_bytes;
    int64_t pid_expiration_ms, ckpt_interval_ms;
    int log_append_time;
    logrep_batch_reader *rd; /* leader-side record validation; the cleaner's reads */
    lr_clean_conf cc;

    lr_segment *segs;
    size_t nsegs, segs_cap;
    int64_t log_start, leo, recovery_point;
    int64_t unflushed_msgs, first_unflushed_ms, last_ckpt_ms;
    int dir_dirty;
    logrep_err failed;
    int last_errno;
    int64_t append_errors; /* appends refused by a storage failure */
    int append_failing;    /* the last append failed */
    int fail_logged;       /* this episode's failure was logged */
    int64_t fail_log_ms;   /* when a failure was last logged; -1 never */

    lr_epoch_cache ec;
    int ec_dirty; /* the leader-epoch-checkpoint lags ec: a write failed */
    lr_pstate ps;
    uint8_t topic_id[16];
    int has_topic_id;
    logrep_log_recovery rec;

    int64_t clean_first_dirty; /* cleaner-offset-checkpoint; -1 none */
    lr_clean_pass *pass;       /* a cleaning pass under way, or NULL */
    lr_clean_stats cstats;
};

/* The active segment: the last, there is always one. */
static inline lr_segment *lr_log_active(logrep_log *log)
{
    return &log->segs[log->nsegs - 1];
}

/* Builds "dir/<20 digits><suffix>" or "dir/name" into buf[LR_PATH_MAX]. */
void lr_log_seg_path(const logrep_log *log, int64_t base, const char *suffix, char *buf);
void lr_log_path(const logrep_log *log, const char *name, char *buf);
/* Remembers the storage errno after a failure; returns err. */
logrep_err lr_log_io(logrep_log *log, logrep_err err);

/* Copies the bytes of `sl` (a slice this log returned, still valid) into
 * buf (size >= sl->length), for lib/replica. __INVALID_ARG when the slice
 * is not one of this log's; storage errors. */
logrep_err lr_log_read_slice(logrep_log *log, const logrep_log_slice *sl, void *buf,
                             size_t size);

/* Opens the segment's .log (create when asked) if not open yet. */
logrep_err lr_seg_open_log(logrep_log *log, lr_segment *s, int create);
logrep_err lr_seg_open_index(logrep_log *log, lr_segment *s, lr_index *ix, const char *suffix,
                             int create);
void lr_seg_close_files(logrep_log *log, lr_segment *s);
void lr_seg_close_index_files(logrep_log *log, lr_segment *s);
/* Deletes the segment's files (.log, .index, .timeindex). */
logrep_err lr_seg_delete_files(logrep_log *log, lr_segment *s);
/* Reads the 61-byte header at pos. __END at the end of the data,
 * __CORRUPT when it is not a plausible batch header. */
logrep_err lr_seg_header(logrep_log *log, lr_segment *s, uint64_t pos, logrep_batch_header *h);
/* Position of the batch holding `offset` (the first with last offset >=
 * offset), using the offset index then scanning headers; __END if none. */
logrep_err lr_seg_find(logrep_log *log, lr_segment *s, int64_t offset, uint64_t *pos,
                       logrep_batch_header *h);
/* Index bookkeeping for one batch written at pos (Kafka's rule). */
logrep_err lr_seg_index_batch(logrep_log *log, lr_segment *s, uint64_t pos,
                              const logrep_batch_header *h, uint64_t size);
/* Appends the final time-index entry (segment max timestamp) if larger. */
logrep_err lr_seg_final_time_entry(logrep_log *log, lr_segment *s);
logrep_err lr_seg_sync(logrep_log *log, lr_segment *s);
/* Truncates the segment at batch boundary pos, where the batch starting
 * at cut_offset was: .log and both indexes; reloads the tail state. */
logrep_err lr_seg_truncate_at(logrep_log *log, lr_segment *s, uint64_t pos, int64_t cut_offset);
/* Scans the whole segment, validating every batch (CRC, increasing
 * offsets from min_offset), rebuilding both indexes, feeding the epoch
 * cache; cuts an invalid tail. *cut receives the bytes removed. */
logrep_err lr_seg_recover(logrep_log *log, lr_segment *s, int64_t min_offset, uint64_t *cut);
/* Index bookkeeping for one batch at pos into buffers (a segment being
 * rebuilt or written elsewhere than its files). */
logrep_err lr_seg_index_batch_buf(logrep_log *log, lr_segment *s, uint64_t pos,
                                  const logrep_batch_header *h, uint64_t size, lr_buf *oib,
                                  lr_buf *tib);
/* Loads next_offset and max timestamp of a closed segment from its
 * indexes and a short header scan. __CORRUPT when they disagree with the
 * data (the caller recovers the segment). */
logrep_err lr_seg_load(logrep_log *log, lr_segment *s);

/* offset_index.c / time_index.c: lookups through the storage. */
logrep_err lr_index_read_entry(logrep_log *log, lr_index *ix, size_t esize, uint32_t i,
                               uint8_t *out);
logrep_err lr_index_append(logrep_log *log, lr_index *ix, size_t esize, const uint8_t *e);
/* Largest entry with offset <= target: (offset, position); (base, 0) if none. */
/* Largest index entry whose position is <= limit: *pos and the last
 * offset of the batch starting there (*off -1 when none). Positions are
 * batch boundaries, so a read can jump to one without scanning headers. */
logrep_err lr_oi_floor_pos(logrep_log *log, lr_segment *s, uint64_t limit, int64_t *off,
                           uint64_t *pos);
logrep_err lr_oi_lookup(logrep_log *log, lr_segment *s, int64_t target, int64_t *off,
                        uint64_t *pos);
logrep_err lr_oi_append(logrep_log *log, lr_segment *s, int64_t offset, uint64_t pos);
/* Largest entry with timestamp <= target: its offset; base if none. */
logrep_err lr_ti_lookup(logrep_log *log, lr_segment *s, int64_t target, int64_t *off);
logrep_err lr_ti_maybe_append(logrep_log *log, lr_segment *s, int64_t ts, int64_t offset);

/* recover.c */
/* A segment that holds nothing yet, its files not opened. */
void lr_seg_init(lr_segment *s, int64_t base, int64_t now_ms);
logrep_err lr_log_load(logrep_log *log, int64_t now_ms);
logrep_err lr_log_new_segment(logrep_log *log, int64_t base, int64_t now_ms);
logrep_err lr_log_write_epochs(logrep_log *log);
logrep_err lr_log_write_snapshot(logrep_log *log, int64_t offset);
/* Reloads producer state: newest snapshot at or below the log end, then
 * the batches after it; removes snapshots above the end. */
logrep_err lr_log_rebuild_producers(logrep_log *log, int64_t now_ms);
/* Replays producer state from batch headers in [from, leo). */
logrep_err lr_log_replay_producers(logrep_log *log, int64_t from);

/* cleaner.c. The cleaner's files in the partition directory: the first
 * dirty offset, and the group a swap replaces ("<base> <end>": segments
 * with bases in [base, end) give way to <base>.log.swap). */
#define LR_CLEANER_CKPT "cleaner-offset-checkpoint"
#define LR_SWAP_MARKER "cleaner-swap"
/* cleanup.policy and the cleaner's properties; __INVALID_ARG for a word
 * that is neither delete nor compact, or a ratio outside 0..1. */
logrep_err lr_clean_conf_read(const logrep_conf *conf, lr_clean_conf *out);
/* Data at and above `offset` is being removed (truncation, retention,
 * log start): a pass that read it is aborted. */
void lr_clean_touch(logrep_log *log, int64_t offset);
/* Ends a pass under way, removing its temporary files; counted. */
void lr_clean_abort(logrep_log *log);
/* Frees a pass under way (close: removing its files; abandon: not). */
void lr_clean_release(logrep_log *log, int remove_files);
/* Writes the cleaner checkpoint when the log has one. */
logrep_err lr_clean_checkpoint(logrep_log *log);

/* keymap.c: key hash (XXH3-128) -> latest offset, open addressing in one
 * fixed block of 24-byte slots, filled to LR_KEYMAP_LOAD at most. */
#define LR_KEYMAP_SLOT 24
#define LR_KEYMAP_LOAD 0.9
typedef struct lr_keymap {
    uint8_t *slots;
    size_t nslots, used, max_used;
    int64_t last_offset; /* the last offset put; -1 none */
} lr_keymap;
/* Slots for `keys` keys at the load factor, within `max_bytes`. */
size_t lr_keymap_slots_for(uint64_t keys, uint64_t max_bytes);
logrep_err lr_keymap_init(lr_keymap *m, const lr_alloc *a, size_t nslots);
void lr_keymap_free(lr_keymap *m, const lr_alloc *a);
/* A key's hash and home slot, whose cache line lr_keymap_hash starts
 * loading: hash a run of keys, then put or get them. */
typedef struct lr_keyhash {
    uint64_t hi, lo;
    size_t home;
} lr_keyhash;
#define LR_KEYMAP_RUN 32
void lr_keymap_hash(const lr_keymap *m, const void *key, size_t len, lr_keyhash *out);
/* 0 stored; 1 full (a new key and no room: nothing stored). */
int lr_keymap_put_hashed(lr_keymap *m, const lr_keyhash *h, int64_t offset);
int64_t lr_keymap_get_hashed(const lr_keymap *m, const lr_keyhash *h);
/* The same, hashing the key. */
int lr_keymap_put(lr_keymap *m, const void *key, size_t len, int64_t offset);
/* The offset stored for the key, -1 when absent. */
int64_t lr_keymap_get(const lr_keymap *m, const void *key, size_t len);

#endif
