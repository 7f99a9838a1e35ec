/*
 * liblogrep node: one broker's replicas (and, with the controller role, the
 * cluster's controller), as a host-driven state machine.
 *
 * The host feeds events in: request frames from clients and peers,
 * response frames on connections the node opened, connection closes, and
 * ticks carrying the current time. The node acts only through the host's
 * vtables: storage (<logrep/storage.h>) for the partition logs, and the
 * transport below for bytes to send. It starts no threads, takes no
 * locks, reads no clock and no random source of its own.
 *
 * Ordering rules:
 *  - Every call into a node is made by one thread at a time. Different
 *    nodes are independent.
 *  - Frames are whole (the host splits the stream with
 *    logrep_proto_frame()). Frames of one connection are handed over in
 *    the order they arrived. Responses leave in request order per
 *    connection: the node sends each response through transport.send,
 *    possibly later (acks=all produce, long-poll fetch), but never out of
 *    order on one connection. A Metadata request behind an answer still
 *    out is built when its turn comes, not on arrival, so it describes
 *    the cluster as of its answer (as Kafka, which reads a connection's
 *    next request only after answering the last).
 *  - `now_ms` is a monotonic clock in milliseconds. It must not go
 *    backwards between calls to one node; record timestamps (LogAppendTime)
 *    use it too, so a host that wants wall-clock append times passes wall
 *    time that it keeps monotonic.
 *  - transport.send may be called from inside any node call; the host must
 *    not call back into the node from inside a transport method.
 *  - Durability: a produce is acknowledged after the partition log wrote it
 *    (acks=1) or the high watermark passed it (acks=all); flushing follows
 *    flush.messages / flush.ms, as Kafka does. Safety comes from replication.
 */
#ifndef LOGREP_NODE_H
#define LOGREP_NODE_H

#include <logrep.h>
#include <logrep/storage.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOGREP_TRANSPORT_VERSION 1

/** The host's network, as the node sees it. Connections are 64-bit ids
 *  chosen by the host: those it accepted (requests arrive on them) and
 *  those the node asked for with connect (responses arrive on them). */
typedef struct logrep_transport {
    uint32_t version;
    void *ctx;

    /* ---- version 1 ---- */

    /** Queues one frame on a connection. Memory segments are borrowed for
     *  the call only (copy or send them before returning); a file segment
     *  names `len` bytes at `pos` of the file descriptor `file` (from the
     *  storage's file_fd), valid until the segment file is deleted: a host
     *  that sends later should dup() the descriptor. Required.
     *  @return LOGREP_OK, or LOGREP_ERR__IO when the connection is gone
     *  (the node then treats it as closed). */
    logrep_err (*send)(void *ctx, uint64_t conn, const logrep_seg *segs, size_t nsegs);

    /** Asks for a connection to node `node_id` at host:port (from the
     *  cluster metadata or controller.quorum.voters). The host returns an
     *  id at once and connects in the background, queueing sends; when the
     *  connection fails it calls logrep_node_closed(). Required.
     *  @return LOGREP_OK or LOGREP_ERR__IO. */
    logrep_err (*connect)(void *ctx, int32_t node_id, const char *host, int32_t port,
                          uint64_t *conn);

    /** Closes a connection (either kind); no logrep_node_closed() follows.
     *  Required. */
    void (*close)(void *ctx, uint64_t conn);
} logrep_transport;

typedef struct logrep_node logrep_node;

/** Creates a node. Properties read from conf: node.id, process.roles
 *  ("broker", "controller", "broker,controller"), controller.quorum.voters
 *  ("id@host:port[,...]": one voter is the only controller; two or more
 *  form a metadata quorum whose voters are exactly the nodes with the
 *  controller role, with controller.quorum.election.timeout.ms,
 *  .fetch.timeout.ms and .request.timeout.ms; docs/quorum.md, "In the
 *  node"), advertised.listeners (what brokers
 *  register), broker.rack, log.dirs (a directory of the storage, created
 *  when missing), num.partitions, default.replication.factor,
 *  min.insync.replicas, unclean.leader.election.enable,
 *  replica.lag.time.max.ms, auto.create.topics.enable, the log properties
 *  (segment.bytes, retention.ms, ...), socket.request.max.bytes and
 *  logrep.random.seed (the host's randomness; mixed with node.id and
 *  now_ms, so a restart with the same seed still draws a new incarnation
 *  id) and file.delete.delay.ms. Existing partition directories under
 *  log.dirs are opened (crash recovery runs) when the metadata names them
 *  with the topic ID their partition.metadata holds; directories of
 *  deleted topics, of another topic ID or not assigned to this node are
 *  renamed -delete/-stray and removed by logrep_node_tick after
 *  file.delete.delay.ms (docs/storage.md).
 *  Ownership: storage and transport are borrowed and must outlive the
 *  node; conf is copied.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_CONF (with the reason in
 *  errbuf), LOGREP_ERR__UNSUPPORTED (vtable version), storage errors,
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_new(const logrep_conf *conf, const logrep_storage *storage,
                                      const logrep_transport *transport, int64_t now_ms,
                                      char *errbuf, size_t errbuf_size, logrep_node **out);

/** Frees the node without a controlled shutdown (as a crash would), closing
 *  the logs without a final flush when `abandon` is set (simulated power
 *  loss) or with one otherwise. NULL is a no-op. */
LOGREP_API void logrep_node_free(logrep_node *node, int abandon);

/** A request frame (size prefix included) on an accepted connection. The
 *  frame is borrowed for the call. Malformed frames close that connection
 *  (transport.close) and return LOGREP_ERR__CORRUPT; unsupported versions
 *  are answered as Kafka does (ApiVersions fallback) or closed. A request
 *  that cannot be handled (out of memory, the controller unreachable for
 *  a forwarded admin request) also closes its connection, since its
 *  answer would be missing from the in-order response stream; the client
 *  retries as after a broker failure.
 *  @return LOGREP_OK, LOGREP_ERR__CORRUPT, LOGREP_ERR__NOMEM, or the local
 *  error that made the node close the connection. */
LOGREP_API logrep_err logrep_node_request(logrep_node *node, uint64_t conn, const void *frame,
                                          size_t len, int64_t now_ms);

/** Names the listener (e.g. "PLAINTEXT", "CONTROLLER") an accepted
 *  connection arrived on; call it once, before its first frame. A
 *  listener named in controller.listener.names is served only the
 *  controller's APIs (ApiVersions, BrokerRegistration, BrokerHeartbeat,
 *  AlterPartition, AllocateProducerIds, CreateTopics, DeleteTopics, and
 *  Fetch of the metadata log); any other listener only the broker's.
 *  Requests for an API not served on the connection's listener close it,
 *  as Kafka does, and ApiVersions advertises exactly the served set. A
 *  connection never named is served both (one in-process listener).
 *  The name is only compared, not kept.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (NULL or empty name),
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_accepted(logrep_node *node, uint64_t conn, const char *listener);

/** The address of an accepted connection's client, as the host wants it
 *  shown (Kafka shows "/" and the IP address): group members joining on
 *  it report it as their client host (DescribeGroups). Optional; copied
 *  (at most 47 bytes kept).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_peer(logrep_node *node, uint64_t conn, const char *address);

/** A response frame on a connection the node opened with connect.
 *  @return LOGREP_OK, LOGREP_ERR__CORRUPT (the connection is closed). */
LOGREP_API logrep_err logrep_node_response(logrep_node *node, uint64_t conn, const void *frame,
                                           size_t len, int64_t now_ms);

/** A connection closed or failed (either kind). Requests in flight on it
 *  are failed and retried as the protocol says. */
LOGREP_API void logrep_node_closed(logrep_node *node, uint64_t conn, int64_t now_ms);

/** Periodic work: heartbeats, replica fetches, ISR shrink, produce and
 *  fetch timeouts, retention (every log.retention.check.interval.ms, time
 *  and size, never past a partition's high watermark), flushing. Returns
 *  the time by which the host should call again (it may call earlier):
 *  the earliest of every timer the node holds (heartbeat, replica fetch
 *  backoff, parked requests' max wait and timeouts, ISR lag expiry,
 *  broker sessions, log flush and checkpoints, retention checks, retired
 *  directories), now_ms when work is ready (in-process events to poll
 *  included, <logrep/inproc.h>), and at most 60 s ahead. Input
 *  (logrep_node_request, _response, _closed) can make work ready without
 *  moving that time: call tick after delivering input. */
LOGREP_API int64_t logrep_node_tick(logrep_node *node, int64_t now_ms);

/** Starts a controlled shutdown: leadership is moved away through the
 *  controller, then the logs are flushed and the clean-shutdown marker is
 *  written. A node leading the controller quorum then resigns and waits
 *  until another voter leads (at most 5 s), so the cluster does not wait
 *  an election timeout for it. Keep calling tick, and delivering
 *  input, until logrep_node_shutdown_done().
 *  @return LOGREP_OK. */
LOGREP_API logrep_err logrep_node_shutdown(logrep_node *node, int64_t now_ms);
LOGREP_API int logrep_node_shutdown_done(const logrep_node *node);

/* ------------------------------------------------------------------------
 * Observability
 * ---------------------------------------------------------------------- */

/** One partition replica on this node. */
typedef struct logrep_node_partition_info {
    const char *topic;            /**< borrowed until the next node call */
    int32_t partition;
    int32_t role;                 /**< 0 none, 1 leader, 2 follower */
    int32_t leader;
    int32_t leader_epoch;
    int64_t log_start_offset;
    int64_t log_end_offset;
    int64_t high_watermark;
    int32_t replicas;
    int32_t isr;
    int32_t under_replicated;
    int32_t under_min_isr;
    int32_t at_min_isr;
    int64_t isr_shrinks;
    int64_t isr_expands;
    int32_t segments;             /**< log segments on disk */
    int64_t append_errors;        /**< appends refused by storage failures (full disk...) */
    int32_t append_failing;       /**< 1 while the last append failed */
    /* Log compaction (logrep_log_cleaner_info(); counters since the log
     * was opened on this node). */
    int32_t compacted;            /**< cleanup.policy includes compact */
    double dirty_ratio;           /**< dirty / cleanable bytes now */
    int64_t cleaner_bytes_read;   /**< segment bytes read by completed passes */
    int64_t cleaner_passes;
    int64_t last_clean_ms;        /**< host time the last pass ended; -1 none */
} logrep_node_partition_info;

/** Number of partition replicas hosted, and the i-th of them.
 *  @return LOGREP_OK or LOGREP_ERR__END past the last. */
LOGREP_API size_t logrep_node_partition_count(const logrep_node *node);
LOGREP_API logrep_err logrep_node_partition(const logrep_node *node, size_t i,
                                            logrep_node_partition_info *out);

/** Node counters. */
typedef struct logrep_node_stats {
    int64_t requests;
    int64_t bytes_in;
    int64_t bytes_out;
    int64_t produce_records;
    int64_t leader_changes;       /**< controller: partitions whose leader changed */
    int64_t unclean_elections;    /**< controller */
    int64_t fenced_brokers;       /**< controller: brokers currently fenced */
    int64_t offline_partitions;   /**< as this node's metadata says */
    int64_t under_replicated;
    int64_t under_min_isr;
    int64_t at_min_isr;
    int64_t metadata_offset;      /**< metadata records applied */
    int64_t segments_deleted;     /**< by retention (log.retention.check.interval.ms) */
    int64_t parked_fetch_runs;    /**< parked fetches run again: data they read changed, or their wait ended */
    int64_t append_errors;        /**< sum of the partitions' append_errors */
    int64_t append_failing;       /**< partitions whose last append failed */
    /* Log compaction, summed over the hosted partitions (each since its
     * log was opened here). */
    int64_t cleaner_passes;
    int64_t cleaner_passes_aborted; /**< a truncation or retention under a pass, or a storage error */
    int64_t cleaner_bytes_read;
    int64_t cleaner_bytes_written;
    int64_t cleaner_records_removed;
    int64_t cleaner_last_pass_ms;   /**< duration of the most recent pass on this node (host clock) */
    double cleaner_max_dirty_ratio; /**< the dirtiest compacted partition now */
} logrep_node_stats;

LOGREP_API void logrep_node_stats_get(const logrep_node *node, logrep_node_stats *out);

/** kafka-topics --describe as text (filter: 0 all, 1 under-min-isr, 2
 *  at-min-isr, 3 under-replicated, 4 unavailable) from this node's
 *  metadata. Writes at most size bytes (NUL-terminated) and returns the
 *  full length. */
LOGREP_API size_t logrep_node_describe(const logrep_node *node, const char *topic, int filter,
                                       char *buf, size_t size);

/** This node's id and whether it is (still) the controller: with a
 *  quorum, whether it is the active one (the quorum's leader with its
 *  LeaderChange record committed); the other voters return 0. A controller
 *  whose metadata-log write or flush failed stops at once (logged at
 *  LOGREP_LEVEL_ERROR): from then on it answers controller requests and
 *  metadata fetches with NOT_CONTROLLER and is_controller returns 0. Nothing
 *  written after the failure is answered; the host recovers by freeing the
 *  node and creating it again, which replays the durable metadata log. */
LOGREP_API int32_t logrep_node_id(const logrep_node *node);
LOGREP_API int logrep_node_is_controller(const logrep_node *node);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_NODE_H */
