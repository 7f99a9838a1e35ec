/*
 * liblogrep deterministic simulator (EXPERIMENTAL: outside the ABI
 * promise; names and structures may change between minor versions).
 *
 * A whole cluster in one thread: N broker nodes and a controller node,
 * each a real logrep_node over its own crash-simulating storage, joined by
 * a simulated network, driven by one virtual clock and one seeded PRNG.
 * Simulated producers and consumers speak the Kafka wire protocol to the
 * nodes. A checker with its own ghost state (committed log, true high
 * watermark, acknowledged writes, consumer reads, lossy events) verifies
 * the replication invariants after every step (docs/simulator.md).
 *
 * Every random choice comes from the seed and is written to a trace ring
 * buffer, so a seed replays a run exactly.
 *
 * Node ids: brokers are 1..brokers; the controller is brokers + 1, or
 * with a quorum (logrep_sim_new_ex, 3 controllers) the voters are brokers + 1 ..
 * brokers + 3, dedicated controllers (process.roles=controller).
 * Time: milliseconds of virtual time, starting at 1000.
 */
#ifndef LOGREP_SIM_H
#define LOGREP_SIM_H

#include <stdint.h>
#include <stddef.h>

#include <logrep.h>
#include <logrep/storage.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct logrep_sim logrep_sim;

/** Cluster shape and settings. Zero fields take the defaults noted. */
typedef struct logrep_sim_conf {
    uint64_t seed;
    int32_t brokers;             /**< 1..8, default 3 */
    int32_t partitions;          /**< of the topic "t", default 1 */
    int32_t replication_factor;  /**< default min(3, brokers) */
    int32_t min_isr;             /**< default 2 (capped at the RF) */
    int32_t unclean;             /**< unclean.leader.election.enable */
    int32_t elr_disabled;        /**< eligible.leader.replicas.enable=false */
    const char *bug;             /**< a deliberate bug in every broker ("hw-ignores-isr", "no-truncate"), NULL/"" none; a library built without LOGREP_TEST (a release build) fails to start the nodes with LOGREP_ERR__UNSUPPORTED */
    int64_t lag_max_ms;          /**< replica.lag.time.max.ms, default 1000 */
    int64_t session_timeout_ms;  /**< broker.session.timeout.ms, default 1500 */
    int32_t trace_lines;         /**< trace ring capacity, default 8192 */
    int32_t offsets_retention_minutes; /**< offsets.retention.minutes of the nodes, default the nodes' (7 days) */
    int32_t trace_stderr;        /**< also print every trace line to stderr */
} logrep_sim_conf;

/** Creates the cluster, starts every node and creates the topic (runs
 *  the simulation until every partition has a leader and a full ISR).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM,
 *  LOGREP_ERR__TIMED_OUT (the cluster did not form; see the trace). */
LOGREP_API logrep_err logrep_sim_new(const logrep_sim_conf *conf, logrep_sim **out);
LOGREP_API void logrep_sim_free(logrep_sim *sim);
/** logrep_sim_new with `controllers` controller nodes: 1 (as
 *  logrep_sim_new), or 3, a KRaft quorum of three dedicated controller
 *  voters (brokers then at most 6). (A function of its own rather than a
 *  conf field: logrep_sim_conf keeps its layout.) */
LOGREP_API logrep_err logrep_sim_new_ex(const logrep_sim_conf *conf, int32_t controllers,
                                        logrep_sim **out);

/** Runs `ms` of virtual time, checking after every step. Stops early at
 *  the first violation.
 *  @return LOGREP_OK or LOGREP_ERR__CORRUPT (an invariant violated: logrep_sim_failure). */
LOGREP_API logrep_err logrep_sim_run(logrep_sim *sim, int64_t ms);

/** The first violation ("I8: ..."), or NULL. */
LOGREP_API const char *logrep_sim_failure(const logrep_sim *sim);

/** Receives one trace line: `len` bytes, NUL-terminated too, valid only
 *  during the call. */
typedef void (*logrep_sim_line_fn)(void *ctx, const char *line, size_t len);

/** Hands the last `lines` trace lines (0: all kept) to fn, oldest first,
 *  synchronously. */
LOGREP_API void logrep_sim_trace_dump(const logrep_sim *sim, int lines, logrep_sim_line_fn fn,
                                      void *ctx);

/** Adds a free-form line to the trace (copied; truncated to the trace's
 *  line width). */
LOGREP_API void logrep_sim_note(logrep_sim *sim, const char *text);

LOGREP_API int64_t logrep_sim_now(const logrep_sim *sim);

/* ------------------------------------------------------------------------
 * Faults
 * ---------------------------------------------------------------------- */

/** How a node goes down. */
enum {
    LOGREP_SIM_CRASH_PROCESS = 0, /**< the process dies, the page cache survives (not lossy) */
    LOGREP_SIM_CRASH_POWER = 1,   /**< power loss: each unsynced write kept, dropped or torn (lossy) */
    LOGREP_SIM_CRASH_POWER_DROP = 2, /**< power loss: every unsynced write lost (lossy) */
    LOGREP_SIM_CRASH_DISK = 3     /**< power loss and the disk replaced by an empty one (lossy) */
};

/** Kills node `id` (abandoning its logs) and applies `mode` to its
 *  storage. @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (no such node or
 *  already down). */
LOGREP_API logrep_err logrep_sim_kill(logrep_sim *sim, int32_t id, int mode);
/** Restarts a killed node on its surviving storage (recovery runs). */
LOGREP_API logrep_err logrep_sim_restart(logrep_sim *sim, int32_t id);
/** Controlled shutdown (leadership moves away, logs flushed, clean
 *  marker written), then the process stops; runs the simulation until the
 *  node is done or `max_ms` passed. */
LOGREP_API logrep_err logrep_sim_shutdown(logrep_sim *sim, int32_t id, int64_t max_ms);
LOGREP_API int logrep_sim_is_up(const logrep_sim *sim, int32_t id);

/** Deletes the topic (DeleteTopics through a running broker) and runs until neither
 *  the controller nor any running broker has it, at most `max_ms`. The
 *  checker then forgets the topic: its acknowledged records went with it.
 *  @return LOGREP_OK, LOGREP_ERR__TIMED_OUT, LOGREP_ERR__INVALID_ARG (no
 *  topic), or the violation of logrep_sim_run. */
LOGREP_API logrep_err logrep_sim_delete_topic(logrep_sim *sim, int64_t max_ms);
/** Creates the topic again after logrep_sim_delete_topic (a new topic ID)
 *  and runs until every partition has a leader with a full ISR.
 *  @return LOGREP_OK, LOGREP_ERR__TIMED_OUT, LOGREP_ERR__INVALID_ARG (the
 *  topic exists), or the violation of logrep_sim_run. */
LOGREP_API logrep_err logrep_sim_create_topic(logrep_sim *sim);
/** Node `id`'s storage, borrowed, for looking at its files; NULL if none. */
LOGREP_API const logrep_storage *logrep_sim_storage(const logrep_sim *sim, int32_t id);

/** Connections that `from` opens to `to` fail while blocked, and those
 *  already open between them are reset (a one-way partition in the
 *  connection-establishment direction, as a firewall rule makes it). */
LOGREP_API void logrep_sim_block(logrep_sim *sim, int32_t from, int32_t to, int on);
/** Full partition between a and b (both directions). */
LOGREP_API void logrep_sim_partition(logrep_sim *sim, int32_t a, int32_t b, int on);
/** Full partition between `id` and every other node (clients still reach it). */
LOGREP_API void logrep_sim_isolate(logrep_sim *sim, int32_t id, int on);
/** Clients (producers, consumers) cannot reach node `id`. */
LOGREP_API void logrep_sim_client_block(logrep_sim *sim, int32_t id, int on);

/** Per-link behaviour of frames sent by `from` to `to` (-1: every
 *  node): latency uniformly in [min, max] ms; with probability
 *  reset_ppm / 10^6 a frame resets its connection instead of arriving
 *  (TCP-faithful loss: both ends see the close, the protocol retries,
 *  which re-sends, i.e. duplicates at the request level). */
LOGREP_API void logrep_sim_link(logrep_sim *sim, int32_t from, int32_t to, int32_t lat_min_ms,
                                int32_t lat_max_ms, int32_t reset_ppm);
/** Breaks FIFO within connections (frames of one connection may overtake
 *  each other). Off by default: Kafka connections are TCP. */
LOGREP_API void logrep_sim_set_fifo(logrep_sim *sim, int fifo);

/** Disk faults on a running node: the countdown-th next write/sync fails
 *  with LOGREP_ERR__IO or LOGREP_ERR__NOSPACE (persistent: every one
 *  after it too, until called again with countdown 0). */
LOGREP_API logrep_err logrep_sim_disk_fault(logrep_sim *sim, int32_t id, logrep_err err,
                                            uint64_t countdown, int persistent);

/** Clock faults. The node's monotonic clock jumps forward by `ms` (every
 *  timer of that node sees the jump at its next event). */
LOGREP_API void logrep_sim_clock_jump(logrep_sim *sim, int32_t id, int64_t ms);
/** The node's process freezes for `ms`: no ticks, no deliveries; frames
 *  for it wait. When it resumes its clock has jumped by `ms`. */
LOGREP_API void logrep_sim_pause(logrep_sim *sim, int32_t id, int64_t ms);

/** Removes every network block, link fault and pause (not kills). */
LOGREP_API void logrep_sim_heal_network(logrep_sim *sim);

/* ------------------------------------------------------------------------
 * Clients
 * ---------------------------------------------------------------------- */

/** A producer actor writing batches of 1..max_records unique records to
 *  `partition` every interval_ms: acks 0, 1 or -1; idempotent (requires
 *  acks -1: InitProducerId, sequences, retries until answered). Returns the
 *  actor id (>= 0) or -1. */
LOGREP_API int32_t logrep_sim_producer(logrep_sim *sim, int32_t partition, int16_t acks,
                                       int idempotent, int64_t interval_ms, int32_t max_records);
/** A consumer actor fetching `partition` from the leader every
 *  interval_ms and asking ListOffsets(latest) now and then. */
LOGREP_API int32_t logrep_sim_consumer(logrep_sim *sim, int32_t partition, int64_t interval_ms);
/** Stops an actor after its outstanding request (if any) is answered.
 *  A group member commits what it consumed, then leaves the group. */
LOGREP_API void logrep_sim_actor_stop(logrep_sim *sim, int32_t actor);

/** A member of consumer group "g<group>" (group 0..3) subscribed to the
 *  topic: it finds the coordinator, joins, syncs (the leader assigns the
 *  partitions), resumes from the committed offsets, fetches from the
 *  partitions' leaders every interval_ms, heartbeats and commits what it
 *  consumed. Returns the actor id (>= 0) or -1. The nodes keep their
 *  offsets in 3 partitions of __consumer_offsets. */
LOGREP_API int32_t logrep_sim_group_member(logrep_sim *sim, int32_t group, int64_t interval_ms);
/** The member dies: no LeaveGroup, no more heartbeats (its session expires). */
LOGREP_API void logrep_sim_group_member_kill(logrep_sim *sim, int32_t actor);

/** A group member as it sees itself. */
typedef struct logrep_sim_member {
    int32_t stable;        /**< assigned and consuming */
    int32_t gone;          /**< left or dead */
    int32_t coordinator;   /**< -1 unknown */
    int32_t generation;    /**< -1 none */
    int32_t n_assigned;
    int32_t assigned[8];
    int64_t position[8];   /**< per assigned partition */
    int64_t committed[8];  /**< acknowledged, -1 none */
} logrep_sim_member;
LOGREP_API logrep_err logrep_sim_group_member_view(const logrep_sim *sim, int32_t actor,
                                                   logrep_sim_member *out);

/** OffsetFetch of one partition for group "g<group>" by a one-shot client
 *  (FindCoordinator first, retrying coordinator errors) until answered or
 *  max_ms (LOGREP_ERR__TIMED_OUT). *offset: -1 when none. Checked like
 *  the members' fetches. */
LOGREP_API logrep_err logrep_sim_offset_fetch(logrep_sim *sim, int32_t group, int32_t partition,
                                              int64_t max_ms, int64_t *offset);

/** One-shot client requests to node `node`, running the simulation until
 *  the answer (or max_ms: LOGREP_ERR__TIMED_OUT). The result is the
 *  partition error code (0 NONE). Checked like actor traffic. */
LOGREP_API logrep_err logrep_sim_produce(logrep_sim *sim, int32_t node, int32_t partition,
                                         int16_t acks, int32_t records, int64_t max_ms,
                                         int64_t *base_offset);
LOGREP_API logrep_err logrep_sim_fetch(logrep_sim *sim, int32_t node, int32_t partition,
                                       int64_t offset, const char *rack, int64_t max_ms,
                                       int32_t *records, int64_t *high_watermark);
LOGREP_API logrep_err logrep_sim_list_offsets(logrep_sim *sim, int32_t node, int32_t partition,
                                              int64_t timestamp, int64_t max_ms, int64_t *offset);

/* ------------------------------------------------------------------------
 * Observation
 * ---------------------------------------------------------------------- */

/** The controller's view of a partition. */
typedef struct logrep_sim_part {
    int32_t leader;            /**< -1: none */
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t n_isr, n_elr;
    int32_t isr[8], elr[8];
} logrep_sim_part;
LOGREP_API logrep_err logrep_sim_controller_view(const logrep_sim *sim, int32_t partition,
                                                 logrep_sim_part *out);

/** A replica as node `id` holds it. role: 0 none, 1 leader, 2 follower. */
typedef struct logrep_sim_replica {
    int32_t role;
    int32_t leader_epoch;
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t high_watermark;
    int64_t leader_epoch_start_offset;
} logrep_sim_replica;
LOGREP_API logrep_err logrep_sim_replica_view(const logrep_sim *sim, int32_t id,
                                              int32_t partition, logrep_sim_replica *out);

/** The controllers: *first gets the first controller's id; returns
 *  their number (1, or 3 with a quorum). */
LOGREP_API int32_t logrep_sim_controllers(const logrep_sim *sim, int32_t *first);
/** The active controller (with a quorum: a voter that leads and acts, the
 *  one of the highest epoch when a zombie of an older one still thinks it
 *  is), or -1. */
LOGREP_API int32_t logrep_sim_active_controller(const logrep_sim *sim);

/** A voter of the quorum as it sees itself. */
typedef struct logrep_sim_voter {
    int32_t up;
    int32_t epoch;         /**< quorum epoch */
    int32_t leader;        /**< quorum leader it knows, -1 none */
    int32_t role;          /**< 0 unattached, 1 voted, 2 candidate, 3 leader, 4 follower, 5 resigned, 6 prospective (lib/quorum's order) */
    int32_t active;        /**< the active controller */
    int32_t abstaining;    /**< lost its quorum-state: an observer until trusted again */
    int64_t committed;     /**< its committed prefix of the metadata log */
    int64_t log_end;
} logrep_sim_voter;
/** LOGREP_ERR__INVALID_ARG when id is not a voter of a quorum; a voter
 *  that is down has up = 0 and nothing else set. */
LOGREP_API logrep_err logrep_sim_voter_view(const logrep_sim *sim, int32_t id,
                                            logrep_sim_voter *out);
/** Length of the checker's model of the committed metadata log (quorum
 *  only; -1 otherwise). */
LOGREP_API int64_t logrep_sim_metadata_committed(const logrep_sim *sim);

/** Checker counters. */
typedef struct logrep_sim_stats {
    int64_t steps;
    int64_t committed;          /**< sum of true HWs */
    int64_t acked;              /**< acks=all records acknowledged */
    int64_t consumed;           /**< records returned to consumers */
    int64_t sanctioned;         /**< sanctioned-loss events */
    int64_t unclean_elections;
    int64_t lossy_events;
    int64_t produce_errors;
    int64_t group_syncs;        /**< assignments received by group members */
    int64_t group_commits;      /**< partition offsets acknowledged to members */
    int64_t group_fetches;      /**< successful OffsetFetch answers */
} logrep_sim_stats;
LOGREP_API void logrep_sim_stats_get(const logrep_sim *sim, logrep_sim_stats *out);

/** The record id at `offset` of the committed log C (0: unknown). */
LOGREP_API uint64_t logrep_sim_committed(const logrep_sim *sim, int32_t partition,
                                         int64_t offset);
/** The true high watermark (checker ghost variable). */
LOGREP_API int64_t logrep_sim_true_hw(const logrep_sim *sim, int32_t partition);

/* ------------------------------------------------------------------------
 * Heal phase and random runs
 * ---------------------------------------------------------------------- */

/** Heal: stop producers, remove network faults, restart dead nodes, run
 *  up to max_ms until converged, then check liveness (I15): a leader per
 *  partition, equal logs, HW == LEO everywhere, full ISR, empty ELR, every
 *  acked record read by a tail consumer.
 *  @return LOGREP_OK or LOGREP_ERR__CORRUPT (logrep_sim_failure). */
LOGREP_API logrep_err logrep_sim_heal(logrep_sim *sim, int64_t max_ms);

/** One random run: the seed draws the cluster shape, the fault
 *  parameters and a schedule of faults and clients over `ms` of virtual
 *  time, then heals. `bug` as in the conf. On failure, `*out` (if given)
 *  keeps the simulation for inspection (free it), else it is freed.
 *  @return LOGREP_OK or LOGREP_ERR__CORRUPT. */
LOGREP_API logrep_err logrep_sim_random(uint64_t seed, const char *bug, int64_t ms,
                                        logrep_sim **out);
/** The same with the controller mode forced: controllers 1 (one
 *  controller node), 3 (a quorum), 0 (the seed's choice: a quorum for
 *  about one seed in three, logrep_sim_random_controllers). */
LOGREP_API logrep_err logrep_sim_random_ex(uint64_t seed, const char *bug, int64_t ms,
                                           int32_t controllers, logrep_sim **out);
/** The controller mode seed `seed` draws (1 or 3). */
LOGREP_API int32_t logrep_sim_random_controllers(uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_SIM_H */
