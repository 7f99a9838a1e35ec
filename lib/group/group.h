/* The group coordinator: a host-driven state machine for classic consumer
 * groups and their committed offsets (docs/groups.md).
 *
 * Requests arrive as plain C calls (the node adapter decodes the wire).
 * State changes that must survive leave as `__consumer_offsets` records
 * through the sink, one batch per call, tagged with the offsets partition
 * and an append id; the host appends the batch to that partition and
 * reports with lr_gc_append_done once the high watermark passed it (or the
 * append failed). Requests that cannot be answered at once (JoinGroup
 * waiting for the rebalance, SyncGroup waiting for the leader or for its
 * record, OffsetCommit, OffsetDelete and DeleteGroups waiting for their
 * records) carry a cookie: the answer comes through the answer callback,
 * during that call or a later one, exactly once per accepted cookie.
 * Calls made with a cookie return 0 once the request is answered or
 * parked, or a local error (LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM)
 * with no answer to come and no state changed.
 *
 * Time is only now_ms: milliseconds since the Unix epoch from the host
 * (also written as commit and state timestamps). Member ids use the PRNG
 * seeded from logrep.random.seed and node.id. No I/O, no threads; one
 * thread at a time per coordinator. Callbacks must not call back into the
 * coordinator.
 *
 * Configuration read at creation (conf may be NULL for defaults):
 *   offsets.topic.num.partitions, offsets.retention.minutes,
 *   offsets.retention.check.interval.ms, offset.metadata.max.bytes,
 *   group.initial.rebalance.delay.ms, group.min.session.timeout.ms,
 *   group.max.session.timeout.ms, group.max.size.
 *
 * Partition load states: a partition this coordinator was never told it
 * leads answers NOT_COORDINATOR; one being loaded answers
 * COORDINATOR_LOAD_IN_PROGRESS; a loaded one serves. */
#ifndef LR_GROUP_GROUP_H
#define LR_GROUP_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>

/* Bounds (Kafka has none for most): longer is refused as described. */
#define LR_GC_MAX_GROUP_ID 255       /* INVALID_GROUP_ID */
#define LR_GC_MAX_NAME 1024          /* member, instance, client ids, host, protocol names: INVALID_REQUEST */
#define LR_GC_MAX_PROTOCOLS 64       /* per member: INVALID_REQUEST */
#define LR_GC_MAX_METADATA (1 << 20) /* one protocol's metadata, one assignment: INVALID_REQUEST */
#define LR_GC_NEW_MEMBER_JOIN_TIMEOUT_MS 300000 /* Kafka's, for members still joining */

typedef struct lr_gc lr_gc;

typedef struct lr_gc_record {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *value; /* NULL: tombstone */
    size_t value_len;
} lr_gc_record;

/* Append recs (one batch, in order) to offsets partition `partition`. The
 * bytes are valid during the call only. Return 0 when the append is under
 * way (report it with lr_gc_append_done later, never from inside the
 * sink), or an error: nothing was appended and the operation fails with it. */
typedef int (*lr_gc_sink_fn)(void *ctx, int32_t partition, uint64_t append_id,
                             const lr_gc_record *recs, size_t n);

enum lr_gc_kind {
    LR_GC_JOIN = 1,
    LR_GC_SYNC,
    LR_GC_COMMIT,        /* OffsetCommit */
    LR_GC_OFFSET_DELETE, /* OffsetDelete */
    LR_GC_DELETE_GROUP,  /* one group of DeleteGroups */
};

typedef struct lr_gc_join_member {
    const char *member_id;
    const char *instance_id; /* NULL: dynamic */
    const uint8_t *metadata; /* of the selected protocol */
    size_t metadata_len;
} lr_gc_join_member;

typedef struct lr_gc_answer {
    uint64_t cookie;
    int kind;  /* lr_gc_kind */
    int error; /* top-level error (0: none) */
    /* JoinGroup */
    int32_t generation;           /* -1 with errors */
    const char *protocol_type;    /* JoinGroup v7+ / SyncGroup v5+; NULL when none */
    const char *protocol_name;    /* NULL when none */
    const char *leader;           /* "" when none */
    const char *member_id;        /* the member's (new) id, "" when none */
    int skip_assignment;          /* v9+: the static leader replaced in Stable */
    const lr_gc_join_member *members; /* for the leader only */
    size_t n_members;
    /* SyncGroup */
    const uint8_t *assignment;
    size_t assignment_len;
    /* OffsetCommit / OffsetDelete: one error per partition of the request */
    const int16_t *part_errors;
    size_t n_parts;
} lr_gc_answer;

/* Everything in *a is borrowed for the call. */
typedef void (*lr_gc_answer_fn)(void *ctx, const lr_gc_answer *a);

/* NULL on allocation failure. sink may be NULL (appends then complete
 * only when told, as usual). */
lr_gc *lr_gc_new(const logrep_conf *conf, lr_gc_sink_fn sink, void *sink_ctx,
                 lr_gc_answer_fn answer, void *answer_ctx);
/* Parked requests are dropped without answers. */
void lr_gc_free(lr_gc *gc);

/* The offsets partition of a group id (offsets.topic.num.partitions). */
int32_t lr_gc_partition_for(const lr_gc *gc, const char *group_id);

/* --- partitions ------------------------------------------------------- */

/* This node became leader of offsets partition p: forget anything held for
 * it, then replay its records (lr_gc_replay) and call lr_gc_load_done.
 * 0, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
int lr_gc_load_begin(lr_gc *gc, int32_t p);
/* One record of p, in offset order (value NULL: tombstone). Records of
 * other types (KIP-848, share groups) are skipped. 0,
 * LOGREP_ERR__CORRUPT, LOGREP_ERR__MISUSE (p not loading),
 * LOGREP_ERR__NOMEM (replay must restart with lr_gc_load_begin). */
int lr_gc_replay(lr_gc *gc, int32_t p, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len);
/* Loading is over: groups serve, members' session timers start now. */
int lr_gc_load_done(lr_gc *gc, int32_t p, int64_t now_ms);
/* This node no longer leads p: its groups are dropped, parked requests
 * answered NOT_COORDINATOR (commits never acknowledged), later
 * completions of its appends ignored. */
int lr_gc_unload(lr_gc *gc, int32_t p);

/* An append reported: err 0 when the high watermark of p passed its last
 * record, else why it failed (it is then not acknowledged; the host
 * should reload or unload p, since the coordinator's memory may be ahead
 * of the log). Unknown ids are ignored. Returns 0 or LOGREP_ERR__NOMEM. */
int lr_gc_append_done(lr_gc *gc, int32_t p, uint64_t append_id, int err, int64_t now_ms);

/* Time passes: rebalance and sync timeouts, session expiry, offsets
 * retention. 0 or LOGREP_ERR__NOMEM (retried at the next tick). */
int lr_gc_tick(lr_gc *gc, int64_t now_ms);
/* When lr_gc_tick next has work; INT64_MAX when nothing is timed. */
int64_t lr_gc_deadline(const lr_gc *gc);

/* --- classic group membership ------------------------------------------ */

typedef struct lr_gc_protocol {
    const char *name;
    const uint8_t *metadata;
    size_t metadata_len;
} lr_gc_protocol;

typedef struct lr_gc_join_req {
    int16_t version;         /* JoinGroup version: v4+ get MEMBER_ID_REQUIRED */
    const char *group_id;
    const char *member_id;   /* "" or NULL: unknown */
    const char *instance_id; /* NULL: dynamic member */
    const char *client_id;
    const char *client_host;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms; /* -1 (v0): the session timeout */
    const char *protocol_type;
    const lr_gc_protocol *protocols;
    size_t n_protocols;
} lr_gc_join_req;

/* JoinGroup. Answered (LR_GC_JOIN) at once with an error or, for a known
 * member of a stable group with unchanged protocols, the current
 * generation; else parked until the join phase completes. */
int lr_gc_join(lr_gc *gc, const lr_gc_join_req *req, uint64_t cookie, int64_t now_ms);

typedef struct lr_gc_assignment {
    const char *member_id;
    const uint8_t *assignment;
    size_t len;
} lr_gc_assignment;

typedef struct lr_gc_sync_req {
    const char *group_id;
    const char *member_id;
    const char *instance_id;   /* NULL: none */
    int32_t generation;
    const char *protocol_type; /* NULL: not checked (before v5) */
    const char *protocol_name; /* NULL: not checked */
    const lr_gc_assignment *assignments; /* the leader's */
    size_t n_assignments;
} lr_gc_sync_req;

/* SyncGroup. Answered (LR_GC_SYNC) at once with an error or the stable
 * assignment; else parked until the leader's assignment is committed. */
int lr_gc_sync(lr_gc *gc, const lr_gc_sync_req *req, uint64_t cookie, int64_t now_ms);

/* Heartbeat: 0 or the error to answer (REBALANCE_IN_PROGRESS while the
 * group prepares a rebalance, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
 * FENCED_INSTANCE_ID, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE, INVALID_GROUP_ID). */
int lr_gc_heartbeat(lr_gc *gc, const char *group_id, const char *member_id,
                    const char *instance_id, int32_t generation, int64_t now_ms);

typedef struct lr_gc_leave_member {
    const char *member_id;   /* "" with instance_id: any member id */
    const char *instance_id; /* NULL: dynamic */
} lr_gc_leave_member;

/* LeaveGroup (batched, v3+). errors[i] receives member i's error.
 * Returns the top-level error (NOT_COORDINATOR ..., 0). Answered at once;
 * a record the leave causes is not waited for. */
int lr_gc_leave(lr_gc *gc, const char *group_id, const lr_gc_leave_member *members, size_t n,
                int16_t *errors, int64_t now_ms);

/* --- offsets ------------------------------------------------------------ */

typedef struct lr_gc_commit_part {
    const char *topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch; /* -1: none */
    const char *metadata; /* NULL: null metadata, stored as "" */
} lr_gc_commit_part;

typedef struct lr_gc_commit_req {
    int16_t version; /* OffsetCommit version (v9+: GROUP_ID_NOT_FOUND) */
    const char *group_id;
    const char *member_id;   /* "" or NULL: none */
    const char *instance_id; /* NULL: none */
    int32_t generation;      /* -1: simple commit */
    int64_t retention_ms;    /* -1: offsets.retention.minutes (v2-v4 may give one) */
    const lr_gc_commit_part *parts;
    size_t n_parts;
} lr_gc_commit_req;

/* OffsetCommit. Answered (LR_GC_COMMIT) once its records are committed:
 * part_errors per partition (OFFSET_METADATA_TOO_LARGE, or the group's
 * error for all, or the append's error). */
int lr_gc_commit(lr_gc *gc, const lr_gc_commit_req *req, uint64_t cookie, int64_t now_ms);

typedef struct lr_gc_tp {
    const char *topic;
    int32_t partition;
} lr_gc_tp;

typedef struct lr_gc_offset {
    const char *topic;
    int32_t partition;
    int64_t offset;       /* -1: none committed */
    int32_t leader_epoch; /* -1: none */
    const char *metadata; /* "" when none */
    int64_t commit_ts;
    int error;            /* UNSTABLE_OFFSET_COMMIT with require_stable */
} lr_gc_offset;

typedef void (*lr_gc_offset_fn)(void *ctx, const lr_gc_offset *o);

/* OffsetFetch for one group: the committed offsets of parts (each, in
 * order, -1 when none), or of every partition the group committed when
 * parts is NULL. Only committed (acknowledged) offsets are shown; with
 * require_stable a partition with a commit still in flight answers
 * UNSTABLE_OFFSET_COMMIT. Returns the group's error (NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, INVALID_GROUP_ID) or 0. */
int lr_gc_fetch(lr_gc *gc, const char *group_id, const lr_gc_tp *parts, size_t n,
                int require_stable, lr_gc_offset_fn fn, void *ctx);

/* OffsetDelete. Top-level GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (a group
 * that is not Empty and not a consumer group), else per partition
 * GROUP_SUBSCRIBED_TO_TOPIC when a member of a consumer group subscribes to
 * the topic; the tombstones of the others are answered once committed. */
int lr_gc_offset_delete(lr_gc *gc, const char *group_id, const lr_gc_tp *parts, size_t n,
                        uint64_t cookie, int64_t now_ms);

/* One group of DeleteGroups: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, or 0 once
 * the tombstones of its offsets and metadata are committed. */
int lr_gc_delete_group(lr_gc *gc, const char *group_id, uint64_t cookie, int64_t now_ms);

/* --- observation --------------------------------------------------------- */

const char *lr_gc_state_name(int state);
enum { LR_GC_EMPTY, LR_GC_PREPARING_REBALANCE, LR_GC_COMPLETING_REBALANCE, LR_GC_STABLE, LR_GC_DEAD };

typedef struct lr_gc_member_info {
    const char *member_id;
    const char *instance_id;
    const char *client_id;
    const char *client_host;
    int32_t session_timeout_ms, rebalance_timeout_ms;
    const uint8_t *metadata; /* of the group's protocol; NULL when none */
    size_t metadata_len;
    const uint8_t *assignment;
    size_t assignment_len;
} lr_gc_member_info;

typedef struct lr_gc_group_info {
    const char *group_id;
    int state; /* LR_GC_DEAD for an unknown group */
    const char *protocol_type; /* "" when none */
    const char *protocol;      /* "" when none (DescribeGroups' protocolData) */
    const char *leader;
    int32_t generation;
    const lr_gc_member_info *members;
    size_t n_members;
} lr_gc_group_info;

typedef void (*lr_gc_group_fn)(void *ctx, const lr_gc_group_info *g);

/* DescribeGroups for one group: fn gets its description (members with
 * metadata and assignment). Returns NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, INVALID_GROUP_ID, LOGREP_ERR__NOMEM or 0. */
int lr_gc_describe(lr_gc *gc, const char *group_id, lr_gc_group_fn fn, void *ctx);

/* ListGroups: fn for each group of the loaded partitions whose state is
 * in states_mask (bit 1 << state; 0: all); members are not filled.
 * Returns COORDINATOR_LOAD_IN_PROGRESS when a partition is loading (the
 * loaded ones are listed all the same), else 0. */
int lr_gc_list(lr_gc *gc, unsigned states_mask, lr_gc_group_fn fn, void *ctx);

/* Parses a state name of ListGroups' filter (case-insensitive):
 * its state or -1. */
int lr_gc_state_parse(const char *name);

#endif
