/* A simulated cluster of lr_quorum instances for the quorum tests: an
 * in-memory log per node (with a durable prefix), quorum-state writes that
 * complete later, a network that drops, duplicates, delays and reorders,
 * partitions, crashes, disk loss and clock jumps, all from one seed. The
 * invariants of docs/quorum.md are checked by qt_check. */
#ifndef LOGREP_QUORUM_TESTUTIL_H
#define LOGREP_QUORUM_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "base/prng.h"
#include "quorum/quorum.h"

#define QT_MAX_NODES 8
#define QT_DATA 96

typedef struct qt_entry {
    int32_t epoch;
    int16_t control;
    size_t len;
    uint8_t data[QT_DATA];
} qt_entry;

/* A snapshot: the state machine (a running hash of the entries applied)
 * at end, the epoch of the entry at end - 1 (quorum_snap.c). */
typedef struct qt_snap {
    int64_t end; /* 0: none */
    int32_t epoch;
    uint64_t sum;
} qt_snap;

/* Entries are kept at their offsets; those below start are gone (the
 * snapshot holds them) and never read. */
typedef struct qt_log {
    qt_entry *e;
    size_t n, cap;
    size_t durable; /* entries that survive a power loss */
    size_t start;   /* the first offset held (0 unless trimmed or restarted) */
    qt_snap snap;   /* the newest snapshot, durable at once */
    qt_snap recv;   /* one being received (end 0: none) */
    uint8_t *rbuf;
    int64_t rsize, rgot;
    uint8_t sbuf[512]; /* the last snap_read's bytes */
} qt_log;

typedef struct qt_msg {
    int32_t from, to;
    int64_t at; /* delivery time */
    uint64_t order;
    lr_qmsg m;
    qt_entry *entries;
    uint8_t *data; /* a FetchSnapshot answer's bytes */
} qt_msg;

typedef struct qt_node {
    int32_t id;
    lr_quorum *q;
    int up;
    int incarnation;
    qt_log log;
    lr_quorum_state durable_state;
    int has_state;          /* quorum-state exists on disk */
    lr_quorum_state pending_state;
    uint64_t pending_seq;   /* 0: no write outstanding */
    int64_t persist_at;
    int64_t flush_at;       /* -1: no flush scheduled */
    int64_t clock_off;
    int32_t max_durable_epoch;
    int32_t last_epoch;     /* in memory, this incarnation */
    int64_t hw;             /* largest commit seen, this incarnation */
    /* The state machine: the hash of entries [0, sm_applied). */
    uint64_t sm_sum;
    int64_t sm_applied;
    int fail_snap_write;    /* the next n snap_writes fail */
    int fail_install;       /* the next n snap_installs fail */
    long installs;          /* snapshots installed */
    long aborts;            /* partial receives dropped */
} qt_node;

typedef struct qt_params {
    int drop_pct, dup_pct;
    int64_t min_delay, max_delay;
    int64_t persist_delay, flush_delay; /* upper bounds; 0 = at once in qt_settle */
    int chaos;       /* crashes, partitions, clock jumps, disk loss */
    int propose_pct; /* per step at the leader */
    int pre_vote;    /* lr_quorum_conf.pre_vote */
    int snapshots;   /* the log has the snapshot members */
    int snap_permille; /* per step, a node snapshots and trims (implies snapshots) */
} qt_params;

typedef struct qt_cluster {
    qt_node nodes[QT_MAX_NODES];
    int n;         /* nodes (voters first) */
    int n_voters;
    int32_t voters[QT_MAX_NODES];
    lr_quorum_conf conf;
    qt_params p;
    lr_prng rng;
    uint64_t seed;
    int64_t now;
    qt_msg *net;
    size_t n_net, cap_net;
    uint64_t order;
    uint8_t cut[QT_MAX_NODES][QT_MAX_NODES]; /* link i -> j down */
    int64_t heal_at;
    /* The model: every entry ever committed, and who led each epoch. */
    qt_entry *committed;
    int32_t *commit_epoch;
    size_t n_committed, cap_committed;
    int32_t *leader_of;
    size_t n_leader_of;
    uint64_t proposed;
    char why[512]; /* first invariant broken, "" when none */
    int trace;     /* LOGREP_QUORUM_TRACE: every delivery to stderr */
    /* Optional: sees every message about to be received and may replace
     * it (a trip through the wire codec); non-zero: not delivered. */
    int (*relay)(void *ctx, int32_t from, int32_t to, lr_qmsg *m);
    void *relay_ctx;
    long steps, crashes, disk_losses, partitions, jumps, elections;
    long snapshots, installs;
} qt_cluster;

/* n_voters voters (ids 1..), n_observers more nodes; all formatted. */
qt_cluster *qt_new(int n_voters, int n_observers, uint64_t seed, const qt_params *p);
void qt_free(qt_cluster *c);

qt_node *qt_node_of(qt_cluster *c, int32_t id);
int64_t qt_now(const qt_cluster *c, const qt_node *nd);

/* One step of the random simulation; qt_check after it. */
void qt_step(qt_cluster *c);
/* Delivers every message, completes every write and flush, repeatedly,
 * without advancing time (unit tests). */
void qt_settle(qt_cluster *c);
/* Advances time by ms in 1 ms ticks, delivering what is due. */
void qt_advance(qt_cluster *c, int64_t ms);
/* Completes node id's outstanding quorum-state write / log flush now. */
void qt_complete_persist(qt_cluster *c, qt_node *nd);
void qt_complete_flush(qt_cluster *c, qt_node *nd);
/* Delivers queued messages (to anyone) of `type` (0: any); the count. */
size_t qt_deliver(qt_cluster *c, lr_qmsg_type type);
/* Queued messages from -> to of type (from/to -1: any; type 0: any). */
size_t qt_count(const qt_cluster *c, int32_t from, int32_t to, lr_qmsg_type type);
/* Injects a message as if received. */
int qt_inject(qt_cluster *c, int32_t to, const lr_qmsg *m);
void qt_drop_all(qt_cluster *c);

void qt_crash(qt_cluster *c, qt_node *nd, int lose_tail);
void qt_restart(qt_cluster *c, qt_node *nd, int disk_lost);
/* The leader with the highest epoch among up nodes, NULL. */
qt_node *qt_leader(qt_cluster *c);
/* Advances 1 ms at a time, settling, until a leader has committed its
 * LeaderChange record; that leader, or NULL after limit_ms. */
qt_node *qt_elect(qt_cluster *c, int64_t limit_ms);
/* Proposes one entry at nd; what lr_quorum_propose returns. */
int qt_propose(qt_cluster *c, qt_node *nd);
/* Invariants; 0, or -1 with c->why set. */
int qt_check(qt_cluster *c);
/* Heals everything and runs until a leader commits a new entry; 0 or -1
 * (c->why) after limit_ms of simulated time. */
int qt_liveness(qt_cluster *c, int64_t limit_ms);

/* ---- snapshots (quorum_snap.c) ---- */

/* The host's side of one node, the ctx its lr_quorum gets. */
typedef struct qt_ctx {
    qt_cluster *c;
    qt_node *nd;
} qt_ctx;

/* The first invariant broken (c->why), kept. */
void qt_fail(qt_cluster *c, const char *fmt, ...);
/* The state machine's hash after entry e. */
uint64_t qt_sum_add(uint64_t sum, const qt_entry *e);
#define QT_SUM_EMPTY 1469598103934665603ull
/* The model's hash of the committed entries below end. */
uint64_t qt_model_sum(const qt_cluster *c, int64_t end);
/* Node nd snapshots its state machine where it has applied it and trims
 * its log there (what a host does every N bytes); 0, or -1 when nothing
 * new was applied. */
int qt_snapshot(qt_cluster *c, qt_node *nd);
/* The members of lr_quorum_log for snapshots, over qt_ctx. */
int64_t qt_snap_start(void *x);
int qt_snap_latest(void *x, int64_t *end, int32_t *epoch);
int qt_snap_read(void *x, int64_t end, int32_t epoch, int64_t pos, size_t max,
                 const uint8_t **data, size_t *len, int64_t *size);
int qt_snap_write(void *x, int64_t end, int32_t epoch, int64_t size, int64_t pos,
                  const uint8_t *data, size_t len);
int qt_snap_install(void *x, int64_t end, int32_t epoch);
void qt_snap_abort(void *x);
/* Applies the committed entries [sm_applied, hw) to nd's state machine. */
void qt_apply(qt_cluster *c, qt_node *nd, int64_t hw);
/* Restart or disk loss: the state machine from the snapshot, or empty. */
void qt_sm_reset(qt_node *nd);

/* A deterministic xorshift64 source for the storage tests (seed != 0). */
static inline uint64_t qt_rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* CRC-32C bit by bit, independent of the library's table (golden bytes). */
uint32_t qt_crc32c_bits(const uint8_t *p, size_t n);
/* Memory storage (crash: the crash-simulating one) holding the empty
 * directory meta/__cluster_metadata-0. */
struct logrep_storage;
struct logrep_storage *qt_meta_storage(int crash);

#endif
