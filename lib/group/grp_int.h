/* Group coordinator internals (group.h is the contract). */
#ifndef LR_GROUP_GRP_INT_H
#define LR_GROUP_GRP_INT_H

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/prng.h"
#include "group/group.h"
#include "group/records.h"

typedef struct gc_proto {
    char *name;
    uint8_t *md;
    size_t len;
} gc_proto;

typedef struct gc_member {
    char *id, *instance_id, *client_id, *client_host;
    int32_t session_timeout, rebalance_timeout;
    gc_proto *protos;
    size_t n_protos;
    uint8_t *assignment;
    size_t assignment_len;
    int awaiting_join, awaiting_sync, is_new;
    int pending_sync; /* has not sent SyncGroup in this generation */
    int16_t join_version;
    uint64_t join_cookie, sync_cookie;
    int64_t hb_deadline; /* INT64_MAX: none */
} gc_member;

typedef struct gc_pending {
    char *id;
    int64_t deadline;
} gc_pending;

typedef struct gc_offset {
    char *topic;
    int32_t partition;
    int32_t leader_epoch;
    int64_t offset, commit_ts, expire_ts;
    char *metadata;
    uint64_t seq; /* append id that stored it (0: replayed) */
} gc_offset;

typedef struct gc_group {
    char *id;
    int32_t p;
    size_t idx; /* in lr_gc.all */
    int state, prev_state;
    int64_t state_ts;
    char *protocol_type, *protocol; /* NULL: none */
    char *leader;                   /* a member's id (not owned), NULL: none */
    int32_t generation;
    gc_member **m;
    size_t n, cap;
    gc_pending *pend;
    size_t n_pend, cap_pend;
    size_t n_awaiting_join;
    int new_member_added;
    int64_t join_deadline; /* INT64_MAX: none */
    int initial;           /* the join timer is the initial delay */
    int32_t delay_ms, remaining_ms;
    int64_t sync_deadline;
    uint64_t sync_append; /* the leader's assignment record in flight */
    int32_t sync_append_gen; /* the generation it assigns */
    gc_offset *off;
    size_t n_off, cap_off;
    lr_hashmap off_index; /* (partition, topic) -> position in off */
} gc_group;

enum { AP_PLAIN, AP_COMMIT, AP_SYNC, AP_STATIC_JOIN, AP_OFFSET_DELETE, AP_DELETE_GROUP };

typedef struct gc_append {
    uint64_t id;
    int32_t p;
    int kind;
    uint64_t cookie;
    char *group;
    int32_t generation;
    gc_offset *offs; /* AP_COMMIT: stored once committed */
    size_t n_offs;
    int16_t *errors; /* the answer's per-partition errors */
    size_t n_errors;
    char *old_id, *new_id; /* AP_STATIC_JOIN */
} gc_append;

/* One batch of records being built. */
typedef struct gc_batch {
    lr_buf data;
    size_t *at; /* 4 per record: key off, key len, value off, value len (SIZE_MAX: tombstone) */
    size_t n, cap;
} gc_batch;

enum { PS_NONE = 0, PS_LOADING, PS_LOADED };

struct lr_gc {
    lr_alloc alloc;
    lr_log log;
    lr_prng prng;
    lr_gc_sink_fn sink;
    void *sink_ctx;
    lr_gc_answer_fn answer;
    void *answer_ctx;
    int32_t np;
    int64_t retention_ms, retention_check_ms, md_max, initial_delay_ms;
    int64_t min_session_ms, max_session_ms, max_size;
    uint8_t *pstate;
    lr_hashmap groups; /* group id -> gc_group* */
    gc_group **all;
    size_t n_all, cap_all;
    gc_append *ap;
    size_t n_ap, cap_ap;
    uint64_t next_append;
    int64_t next_expiry_ms;
    gc_batch batch;
    lr_gc_record *recs;
    size_t cap_recs;
    lr_gc_join_member *jm; /* join answers of the leader */
    lr_gc_member_info *mi;
    size_t cap_jm;
};

/* coord.c */
gc_group *lr_gci_find(lr_gc *gc, const char *id);
gc_group *lr_gci_create(lr_gc *gc, const char *id, int32_t p);
void lr_gci_destroy(lr_gc *gc, gc_group *g);
/* The partition check of a request: 0 or the Kafka error, the group (may
 * be NULL) in *out. INVALID_GROUP_ID for a NULL/oversized id, and an empty
 * one when !allow_empty. */
int lr_gci_route(lr_gc *gc, const char *id, int allow_empty, gc_group **out);
void lr_gci_batch_clear(lr_gc *gc);
int lr_gci_batch_group(lr_gc *gc, gc_group *g, int tombstone, int64_t now_ms);
int lr_gci_batch_offset(lr_gc *gc, const char *group, const gc_offset *o, int tombstone);
/* Hands the batch to the sink under a new append id; registers *a (its
 * id and partition filled) when the sink took it. 0 or the sink's error
 * or LOGREP_ERR__NOMEM (then *a is not registered: the caller frees). */
int lr_gci_emit(lr_gc *gc, int32_t p, gc_append *a);
void lr_gci_append_free(lr_gc *gc, gc_append *a);
void lr_gci_answer(lr_gc *gc, const lr_gc_answer *a);
int lr_gci_reserve_scratch(lr_gc *gc, size_t n);
char *lr_gci_strdup(lr_gc *gc, const char *s);
void lr_gci_strfree(lr_gc *gc, char *s);
int lr_gci_str_ok(const char *s);

/* member.c */
gc_member *lr_gci_member(const gc_group *g, const char *id);
gc_member *lr_gci_static_member(const gc_group *g, const char *instance_id);
void lr_gci_member_free(lr_gc *gc, gc_member *m);
int lr_gci_member_add(lr_gc *gc, gc_group *g, gc_member *m);
void lr_gci_member_unlink(gc_group *g, gc_member *m);
int lr_gci_set_protocols(lr_gc *gc, gc_member *m, const lr_gc_protocol *ps, size_t n);
int lr_gci_same_protocols(const gc_member *m, const lr_gc_protocol *ps, size_t n);
const gc_proto *lr_gci_proto(const gc_member *m, const char *name);
int lr_gci_supports(const gc_group *g, const char *type, const lr_gc_protocol *ps, size_t n);
const char *lr_gci_select_protocol(const gc_group *g);
int lr_gci_validate_member(const gc_group *g, const char *member_id, const char *instance_id);
int lr_gci_pending_index(const gc_group *g, const char *id);
void lr_gci_pending_del(lr_gc *gc, gc_group *g, size_t i);
void lr_gci_transition(gc_group *g, int state, int64_t now_ms);
/* Consumer protocol: 1 when the subscription metadata names topic. */
int lr_gci_subscribes(const uint8_t *md, size_t len, const char *topic);

/* rebalance.c */
/* Answers a join or sync (kind) with err alone. */
void lr_gci_answer_error(lr_gc *gc, int kind, uint64_t cookie, int err, const char *member_id);
/* m's join answer; the leader's lists the members when with_members. */
void lr_gci_answer_join(lr_gc *gc, gc_group *g, gc_member *m, uint64_t cookie, int with_members,
                        int skip_assignment);
/* Answer m's parked join / sync, if any (err 0: the group's current view). */
void lr_gci_finish_join(lr_gc *gc, gc_group *g, gc_member *m, int err);
void lr_gci_finish_sync(lr_gc *gc, gc_group *g, gc_member *m, int err);
void lr_gci_fail_parked(lr_gc *gc, gc_group *g, int err);
void lr_gci_clear_assignments(lr_gc *gc, gc_group *g);
void lr_gci_prepare_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms);
void lr_gci_maybe_complete_join(lr_gc *gc, gc_group *g, int64_t now_ms);
/* After a membership change: a stable, completing or empty group prepares
 * a rebalance, a preparing one may complete its join. */
void lr_gci_maybe_rebalance(lr_gc *gc, gc_group *g, int64_t now_ms);
void lr_gci_remove_member(lr_gc *gc, gc_group *g, gc_member *m, int err, int64_t now_ms);
int lr_gci_group_timers(lr_gc *gc, gc_group *g, int64_t now_ms);
int64_t lr_gci_group_deadline(const gc_group *g);

/* join.c */
void lr_gci_static_done(lr_gc *gc, gc_append *a, int err, int64_t now_ms);

/* sync.c */
void lr_gci_sync_done(lr_gc *gc, gc_append *a, int err, int64_t now_ms);

/* offsets.c */
void lr_gci_commit_done(lr_gc *gc, gc_append *a, int err);
int lr_gci_offset_put(lr_gc *gc, gc_group *g, const gc_offset *o, int take);
/* Starts g's offset index (at creation). */
void lr_gci_offsets_init(lr_gc *gc, gc_group *g);
void lr_gci_offset_del(lr_gc *gc, gc_group *g, const char *topic, int32_t partition);
void lr_gci_offset_free(lr_gc *gc, gc_offset *o);
int lr_gci_expire(lr_gc *gc, int64_t now_ms);

#endif
