/* The one table of configuration properties, by layer. Kafka's names and
 * defaults; "logrep." properties are this library's own.
 *
 * LR_CONF_PROP(ID, name, type, int default, min, max, string default,
 *              allowed string values ("a|b|c") or NULL, doc)
 *
 * Append rows freely; IDs are internal and not part of the ABI. */

#define LR_I64MAX INT64_MAX
#define LR_I32MAX INT32_MAX

/* --- codec and producer-side partitioning --- */
LR_CONF_PROP(BATCH_SIZE, "batch.size", LR_CONF_INT, 16384, 1, LR_I32MAX, NULL, NULL,
    "Bytes a sticky partitioner sends to one partition before it switches.")
LR_CONF_PROP(COMPRESSION_TYPE, "compression.type", LR_CONF_STR, 0, 0, 0, "producer",
    "uncompressed|zstd|lz4|snappy|gzip|producer",
    "Codec of stored batches; 'producer' keeps the producer's codec ('none' is a producer-side name, refused as Kafka does).")
LR_CONF_PROP(COMPRESSION_GZIP_LEVEL, "compression.gzip.level", LR_CONF_INT, -1, -1, 9, NULL, NULL,
    "gzip level: 1-9, or -1 for zlib's default (0 is refused, as Kafka does).")
LR_CONF_PROP(COMPRESSION_LZ4_LEVEL, "compression.lz4.level", LR_CONF_INT, 9, 1, 17, NULL, NULL,
    "lz4 level (1-17, Kafka's scale; above 2 uses lz4 HC).")
LR_CONF_PROP(COMPRESSION_ZSTD_LEVEL, "compression.zstd.level", LR_CONF_INT, 3, -131072, 22, NULL, NULL,
    "zstd level.")
LR_CONF_PROP(PARTITIONER_ADAPTIVE, "partitioner.adaptive.partitioning.enable", LR_CONF_BOOL, 1, 0, 1, NULL, NULL,
    "Weight the sticky partition choice toward partitions with less queued.")
LR_CONF_PROP(PARTITIONER_AVAILABILITY_TIMEOUT_MS, "partitioner.availability.timeout.ms", LR_CONF_INT, 0, 0, LR_I64MAX, NULL, NULL,
    "Partitions whose leader is unresponsive this long are skipped (0: off); the host reports availability.")
LR_CONF_PROP(PARTITIONER_IGNORE_KEYS, "partitioner.ignore.keys", LR_CONF_BOOL, 0, 0, 1, NULL, NULL,
    "Apply the sticky logic to keyed records too.")
LR_CONF_PROP(RANDOM_SEED, "logrep.random.seed", LR_CONF_INT, 0, INT64_MIN, LR_I64MAX, NULL, NULL,
    "Seed of the handle's PRNG; the library reads no random source of its own.")
LR_CONF_PROP(DECOMPRESS_MAX_BYTES, "logrep.decompress.max.bytes", LR_CONF_INT, 67108864, 1024, LR_I32MAX, NULL, NULL,
    "Largest decompressed record area accepted from one batch; more is an error, not an allocation.")

/* --- log (storage) --- */
LR_CONF_PROP(SEGMENT_BYTES, "segment.bytes", LR_CONF_INT, 1073741824, 14, LR_I32MAX, NULL, NULL,
    "Roll a new segment when the active one would exceed this size.")
LR_CONF_PROP(SEGMENT_MS, "segment.ms", LR_CONF_INT, 604800000, 1, LR_I64MAX, NULL, NULL,
    "Roll a new segment after this long since the first append of the active one.")
LR_CONF_PROP(SEGMENT_JITTER_MS, "segment.jitter.ms", LR_CONF_INT, 0, 0, LR_I64MAX, NULL, NULL,
    "Random jitter subtracted from segment.ms.")
LR_CONF_PROP(SEGMENT_INDEX_BYTES, "segment.index.bytes", LR_CONF_INT, 10485760, 4, LR_I32MAX, NULL, NULL,
    "Maximum size of an offset or time index file.")
LR_CONF_PROP(INDEX_INTERVAL_BYTES, "index.interval.bytes", LR_CONF_INT, 4096, 0, LR_I32MAX, NULL, NULL,
    "Bytes between offset index entries.")
LR_CONF_PROP(RETENTION_BYTES, "retention.bytes", LR_CONF_INT, -1, -1, LR_I64MAX, NULL, NULL,
    "Delete closed segments while the partition is larger than this (-1: no limit).")
LR_CONF_PROP(RETENTION_MS, "retention.ms", LR_CONF_INT, 604800000, -1, LR_I64MAX, NULL, NULL,
    "Delete closed segments whose newest record is older than this (-1: no limit).")
LR_CONF_PROP(FLUSH_MESSAGES, "flush.messages", LR_CONF_INT, LR_I64MAX, 1, LR_I64MAX, NULL, NULL,
    "Flush (fdatasync) after this many appended records.")
LR_CONF_PROP(FLUSH_MS, "flush.ms", LR_CONF_INT, LR_I64MAX, 0, LR_I64MAX, NULL, NULL,
    "Flush when unflushed data is older than this.")
LR_CONF_PROP(MAX_MESSAGE_BYTES, "max.message.bytes", LR_CONF_INT, 1048588, 0, LR_I32MAX, NULL, NULL,
    "Largest batch (12 + batchLength) a partition accepts.")
LR_CONF_PROP(MESSAGE_TIMESTAMP_TYPE, "message.timestamp.type", LR_CONF_STR, 0, 0, 0, "CreateTime",
    "CreateTime|LogAppendTime", "Timestamps from producers, or the broker's append time.")
LR_CONF_PROP(FILE_DELETE_DELAY_MS, "file.delete.delay.ms", LR_CONF_INT, 60000, 0, LR_I64MAX, NULL, NULL,
    "Delay before a deleted segment's files are removed.")
LR_CONF_PROP(PRODUCER_ID_EXPIRATION_MS, "producer.id.expiration.ms", LR_CONF_INT, 86400000, 1, LR_I64MAX, NULL, NULL,
    "Producer state idle this long is dropped.")

LR_CONF_PROP(MAX_OPEN_FILES, "logrep.max.open.files", LR_CONF_INT, 0, 0, LR_I32MAX, NULL, NULL,
    "Descriptors the POSIX storage keeps open (0: half the RLIMIT_NOFILE soft limit at its creation); clean files are closed and reopened on demand, dirty or file_fd ones never.")

/* --- protocol --- */
LR_CONF_PROP(SOCKET_REQUEST_MAX_BYTES, "socket.request.max.bytes", LR_CONF_INT, 104857600, 1, LR_I32MAX, NULL, NULL,
    "Largest request frame accepted.")
LR_CONF_PROP(MESSAGE_MAX_BYTES, "message.max.bytes", LR_CONF_INT, 1048588, 0, LR_I32MAX, NULL, NULL,
    "Broker-wide default of max.message.bytes.")

/* --- replication and cluster --- */
LR_CONF_PROP(NODE_ID, "node.id", LR_CONF_INT, -1, -1, LR_I32MAX, NULL, NULL,
    "This node's broker/controller id.")
LR_CONF_PROP(BROKER_RACK, "broker.rack", LR_CONF_STR, 0, 0, 0, "", NULL,
    "Rack of this broker, for rack-aware placement and follower fetching.")
LR_CONF_PROP(MIN_INSYNC_REPLICAS, "min.insync.replicas", LR_CONF_INT, 1, 1, LR_I32MAX, NULL, NULL,
    "Fewest in-sync replicas for acks=all produce to succeed.")
LR_CONF_PROP(REPLICA_LAG_TIME_MAX_MS, "replica.lag.time.max.ms", LR_CONF_INT, 30000, 1, LR_I64MAX, NULL, NULL,
    "A follower not caught up for this long leaves the ISR.")
LR_CONF_PROP(REQUEST_TIMEOUT_MS, "request.timeout.ms", LR_CONF_INT, 30000, 0, LR_I32MAX, NULL, NULL,
    "Default timeout of parked requests.")
LR_CONF_PROP(UNCLEAN_LEADER_ELECTION, "unclean.leader.election.enable", LR_CONF_BOOL, 0, 0, 1, NULL, NULL,
    "Allow an out-of-sync replica to become leader (may lose data).")
LR_CONF_PROP(DEFAULT_REPLICATION_FACTOR, "default.replication.factor", LR_CONF_INT, 1, 1, 32767, NULL, NULL,
    "Replication factor of auto-created topics.")
LR_CONF_PROP(NUM_PARTITIONS, "num.partitions", LR_CONF_INT, 1, 1, 1000000, NULL, NULL,
    "Partitions of auto-created topics.")
LR_CONF_PROP(REPLICA_FETCH_MAX_BYTES, "replica.fetch.max.bytes", LR_CONF_INT, 1048576, 0, LR_I32MAX, NULL, NULL,
    "Bytes a follower asks for per partition.")
LR_CONF_PROP(REPLICA_FETCH_RESPONSE_MAX_BYTES, "replica.fetch.response.max.bytes", LR_CONF_INT, 10485760, 0, LR_I32MAX, NULL, NULL,
    "Bytes a follower asks for per fetch.")
LR_CONF_PROP(REPLICA_FETCH_BACKOFF_MS, "replica.fetch.backoff.ms", LR_CONF_INT, 1000, 0, LR_I32MAX, NULL, NULL,
    "How long a follower waits before fetching a partition again after its leader answered it with an error.")
LR_CONF_PROP(REPLICA_FETCH_WAIT_MAX_MS, "replica.fetch.wait.max.ms", LR_CONF_INT, 500, 0, LR_I32MAX, NULL, NULL,
    "Long-poll wait of follower fetches.")
LR_CONF_PROP(REPLICA_FETCH_MIN_BYTES, "replica.fetch.min.bytes", LR_CONF_INT, 1, 0, LR_I32MAX, NULL, NULL,
    "Bytes a follower fetch waits for.")
LR_CONF_PROP(BROKER_SESSION_TIMEOUT_MS, "broker.session.timeout.ms", LR_CONF_INT, 9000, 1, LR_I32MAX, NULL, NULL,
    "A broker without heartbeat this long is fenced by the controller.")
LR_CONF_PROP(BROKER_HEARTBEAT_INTERVAL_MS, "broker.heartbeat.interval.ms", LR_CONF_INT, 2000, 1, LR_I32MAX, NULL, NULL,
    "Interval of broker heartbeats to the controller.")
LR_CONF_PROP(AUTO_CREATE_TOPICS, "auto.create.topics.enable", LR_CONF_BOOL, 1, 0, 1, NULL, NULL,
    "Create unknown topics on Metadata and Produce.")

/* --- log (storage), continued --- */
LR_CONF_PROP(LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS, "log.flush.offset.checkpoint.interval.ms", LR_CONF_INT, 60000, 0, LR_I32MAX, NULL, NULL,
    "How often logrep_log_tick() rewrites the recovery-point checkpoint.")
LR_CONF_PROP(LOG_RETENTION_CHECK_INTERVAL_MS, "log.retention.check.interval.ms", LR_CONF_INT, 300000, 1, LR_I64MAX, NULL, NULL,
    "How often a node's tick deletes segments past retention.ms / retention.bytes.")

/* --- log compaction (docs/storage.md, Compaction) --- */
LR_CONF_PROP(CLEANUP_POLICY, "cleanup.policy", LR_CONF_STR, 0, 0, 0, "delete", NULL,
    "What happens to old segments: a list of delete (retention) and compact (the latest value of each key); the log refuses other words.")
LR_CONF_PROP(MIN_CLEANABLE_DIRTY_RATIO, "min.cleanable.dirty.ratio", LR_CONF_STR, 0, 0, 0, "0.5", NULL,
    "A compacted log is cleaned once its dirty bytes are this share (0 to 1) of its cleanable bytes.")
LR_CONF_PROP(MIN_COMPACTION_LAG_MS, "min.compaction.lag.ms", LR_CONF_INT, 0, 0, LR_I64MAX, NULL, NULL,
    "Records younger than this are never compacted.")
LR_CONF_PROP(MAX_COMPACTION_LAG_MS, "max.compaction.lag.ms", LR_CONF_INT, LR_I64MAX, 1, LR_I64MAX, NULL, NULL,
    "A record stays uncompacted at most this long: past it the log is cleaned whatever its dirty ratio, and the active segment rolls.")
LR_CONF_PROP(DELETE_RETENTION_MS, "delete.retention.ms", LR_CONF_INT, 86400000, 0, LR_I64MAX, NULL, NULL,
    "How long a tombstone stays readable after the cleaner first meets it.")
LR_CONF_PROP(LOG_CLEANER_DEDUPE_BUFFER_SIZE, "log.cleaner.dedupe.buffer.size", LR_CONF_INT, 134217728, 1024, LR_I64MAX, NULL, NULL,
    "Largest key map one cleaning pass allocates (24 bytes a key); a dirty section with more keys is cleaned in several passes.")
LR_CONF_PROP(LOG_CLEANER_ENABLE, "log.cleaner.enable", LR_CONF_BOOL, 1, 0, 1, NULL, NULL,
    "A node cleans its compacted partitions on its tick.")
LR_CONF_PROP(LOG_CLEANER_BACKOFF_MS, "log.cleaner.backoff.ms", LR_CONF_INT, 15000, 0, LR_I64MAX, NULL, NULL,
    "How long a node waits before looking for a log to clean again when none needed it.")
LR_CONF_PROP(LOG_CLEANER_TICK_BYTES, "logrep.cleaner.tick.bytes", LR_CONF_INT, 4194304, 4096, LR_I64MAX, NULL, NULL,
    "Bytes of segments a node's tick lets the cleaner read at most, so one tick never stalls the node.")

/* --- controller --- */
LR_CONF_PROP(ELR_ENABLE, "eligible.leader.replicas.enable", LR_CONF_BOOL, 1, 0, 1, NULL, NULL,
    "Track Eligible Leader Replicas (KIP-966): replicas that left the ISR while it was below min.insync.replicas stay electable.")

/* --- group coordinator (docs/groups.md) --- */
LR_CONF_PROP(OFFSETS_TOPIC_NUM_PARTITIONS, "offsets.topic.num.partitions", LR_CONF_INT, 50, 1, 1000000, NULL, NULL,
    "Partitions of __consumer_offsets; a group's coordinator leads partition abs(hashCode(group.id)) mod this.")
LR_CONF_PROP(OFFSETS_TOPIC_REPLICATION_FACTOR, "offsets.topic.replication.factor", LR_CONF_INT, 3, 1, 32767, NULL, NULL,
    "Replication factor of __consumer_offsets (capped by the live brokers when it is created).")
LR_CONF_PROP(OFFSETS_TOPIC_SEGMENT_BYTES, "offsets.topic.segment.bytes", LR_CONF_INT, 104857600, 14, LR_I32MAX, NULL, NULL,
    "segment.bytes of __consumer_offsets, set when it is created.")
LR_CONF_PROP(OFFSETS_COMMIT_TIMEOUT_MS, "offsets.commit.timeout.ms", LR_CONF_INT, 5000, 1, LR_I32MAX, NULL, NULL,
    "How long an offsets append waits for its replicas; past it the commit fails with the append's timeout.")
LR_CONF_PROP(OFFSETS_LOAD_BUFFER_SIZE, "offsets.load.buffer.size", LR_CONF_INT, 5242880, 1024, LR_I32MAX, NULL, NULL,
    "Bytes of an offsets partition a node's tick replays at most while loading it, so one tick never stalls the node.")
LR_CONF_PROP(OFFSETS_RETENTION_MINUTES, "offsets.retention.minutes", LR_CONF_INT, 10080, 1, LR_I32MAX, NULL, NULL,
    "Committed offsets of a group that stays empty this long are deleted (tombstones).")
LR_CONF_PROP(OFFSETS_RETENTION_CHECK_INTERVAL_MS, "offsets.retention.check.interval.ms", LR_CONF_INT, 600000, 1, LR_I64MAX, NULL, NULL,
    "How often the coordinator's tick looks for expired offsets.")
LR_CONF_PROP(OFFSET_METADATA_MAX_BYTES, "offset.metadata.max.bytes", LR_CONF_INT, 4096, 0, LR_I32MAX, NULL, NULL,
    "Largest metadata string of one committed offset (OFFSET_METADATA_TOO_LARGE above it).")
LR_CONF_PROP(GROUP_INITIAL_REBALANCE_DELAY_MS, "group.initial.rebalance.delay.ms", LR_CONF_INT, 3000, 0, LR_I32MAX, NULL, NULL,
    "How long the first rebalance of an empty group waits for more members (extended per new member, up to the rebalance timeout).")
LR_CONF_PROP(GROUP_MIN_SESSION_TIMEOUT_MS, "group.min.session.timeout.ms", LR_CONF_INT, 6000, 0, LR_I32MAX, NULL, NULL,
    "Smallest session.timeout.ms a member may ask for.")
LR_CONF_PROP(GROUP_MAX_SESSION_TIMEOUT_MS, "group.max.session.timeout.ms", LR_CONF_INT, 1800000, 0, LR_I32MAX, NULL, NULL,
    "Largest session.timeout.ms a member may ask for.")
LR_CONF_PROP(GROUP_MAX_SIZE, "group.max.size", LR_CONF_INT, LR_I32MAX, 1, LR_I32MAX, NULL, NULL,
    "Most members of one classic group.")

/* --- node --- */
LR_CONF_PROP(PROCESS_ROLES, "process.roles", LR_CONF_STR, 0, 0, 0, "broker,controller",
    "broker|controller|broker,controller|controller,broker", "Roles of this node.")
LR_CONF_PROP(CONTROLLER_QUORUM_VOTERS, "controller.quorum.voters", LR_CONF_STR, 0, 0, 0, "", NULL,
    "The controllers as id@host:port[,...]; two or more form a metadata quorum (docs/quorum.md).")
LR_CONF_PROP(CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, "controller.quorum.election.timeout.ms", LR_CONF_INT, 1000, 1, LR_I32MAX, NULL, NULL,
    "Quorum: a voter that has no leader stands after a timeout drawn from [T, 2T).")
LR_CONF_PROP(CONTROLLER_QUORUM_FETCH_TIMEOUT_MS, "controller.quorum.fetch.timeout.ms", LR_CONF_INT, 2000, 1, LR_I32MAX, NULL, NULL,
    "Quorum: a voter that has not reached its leader this long stands for election.")
LR_CONF_PROP(CONTROLLER_QUORUM_REQUEST_TIMEOUT_MS, "controller.quorum.request.timeout.ms", LR_CONF_INT, 2000, 1, LR_I32MAX, NULL, NULL,
    "Quorum: an unanswered Vote or Fetch is sent again after this long.")
LR_CONF_PROP(METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS, "metadata.log.max.record.bytes.between.snapshots", LR_CONF_INT, 20971520, 1, LR_I64MAX, NULL, NULL,
    "Controller: a snapshot of the metadata image is written, and the metadata log trimmed below it, once this many bytes of record batches were appended since the last one.")
LR_CONF_PROP(METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS, "metadata.log.max.snapshot.interval.ms", LR_CONF_INT, 3600000, 0, LR_I64MAX, NULL, NULL,
    "Controller: a snapshot is written this long after the last one when records came since (0: no time trigger).")
LR_CONF_PROP(LISTENERS, "listeners", LR_CONF_STR, 0, 0, 0, "", NULL,
    "Listeners the host opens, NAME://host:port,...; the library does not open sockets.")
LR_CONF_PROP(ADVERTISED_LISTENERS, "advertised.listeners", LR_CONF_STR, 0, 0, 0, "", NULL,
    "Listeners registered with the controller and given to clients; first one is used by peers.")
LR_CONF_PROP(CONTROLLER_LISTENER_NAMES, "controller.listener.names", LR_CONF_STR, 0, 0, 0, "CONTROLLER", NULL,
    "Names of the controller's listeners.")
LR_CONF_PROP(LOG_DIRS, "log.dirs", LR_CONF_STR, 0, 0, 0, "kraft-logs", NULL,
    "Directory (in the storage) holding the partition directories.")
LR_CONF_PROP(CLUSTER_ID, "logrep.cluster.id", LR_CONF_STR, 0, 0, 0, "logrep-cluster", NULL,
    "Cluster id reported in Metadata and checked at broker registration.")
#ifdef LOGREP_TEST /* test builds only: never a property of a release library */
LR_CONF_PROP(SIM_BUG, "logrep.sim.bug", LR_CONF_STR, 0, 0, 0, "", "|hw-ignores-isr|no-truncate",
    "Simulation only: a deliberate replication bug in every partition this node opens, to show the simulator's checker finds it.")
#endif
