/*
 * liblogrep — Apache Kafka's replicated-log architecture as an embeddable
 * C library.
 *
 * This header is the reference documentation of the core API: version,
 * errors, configuration, allocator and log hooks, and the codec layer
 * (CRC-32C, murmur2 partitioning, record batches in Kafka's v2 format).
 * Vtables and backends live in <logrep/...h>.
 *
 * Conventions that hold for every function in the library:
 *  - Handles are opaque, created with *_new() and released with *_free();
 *    *_free(NULL) is a no-op.
 *  - Fallible functions return logrep_err: 0 on success, a positive Kafka
 *    wire error code or a negative local error otherwise. Outputs go through
 *    trailing pointer arguments, which are left untouched on failure unless
 *    stated.
 *  - The library keeps no global or thread-local state, starts no threads,
 *    reads no clock and no random source. A handle may be used by one thread
 *    at a time; distinct handles are independent.
 *  - Callbacks take `void *ctx` first and are only ever called synchronously,
 *    from inside the API call that triggers them, on the caller's thread.
 *  - "Borrowed" means the library keeps no reference past the call.
 */
#ifndef LOGREP_H
#define LOGREP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(LOGREP_DLL)
#  ifdef LOGREP_BUILDING
#    define LOGREP_API __declspec(dllexport)
#  else
#    define LOGREP_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define LOGREP_API __attribute__((visibility("default")))
#else
#  define LOGREP_API
#endif

/* ------------------------------------------------------------------------
 * Version
 * ---------------------------------------------------------------------- */

#define LOGREP_VERSION_MAJOR 0
#define LOGREP_VERSION_MINOR 1
#define LOGREP_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH. Disk and wire formats are Kafka's and
 *  are versioned by Kafka, not by this number. */
#define LOGREP_VERSION_NUMBER \
    (LOGREP_VERSION_MAJOR * 10000 + LOGREP_VERSION_MINOR * 100 + LOGREP_VERSION_PATCH)

/** The library's version as "MAJOR.MINOR.PATCH"; a static string. */
LOGREP_API const char *logrep_version_string(void);
/** LOGREP_VERSION_NUMBER of the library actually linked (may differ from the
 *  header the caller was compiled against). */
LOGREP_API uint32_t logrep_version_number(void);

/* ------------------------------------------------------------------------
 * Errors
 *
 * One type for every outcome. Positive values are Kafka's wire error codes,
 * numerically identical, so a refused request is answered by putting the
 * value on the wire. LOGREP_ERR_UNKNOWN_SERVER_ERROR (-1) is Kafka's own
 * negative wire code. Values <= -100 are local errors, never sent on the
 * wire (a server answers them as UNKNOWN_SERVER_ERROR).
 * Codes are append-only and never renumbered.
 * ---------------------------------------------------------------------- */

typedef enum logrep_err {
    /* Local errors. */
    LOGREP_ERR__END = -100,                  /**< No more items: end of iteration. Not a failure. */
    LOGREP_ERR__NOMEM = -101,                /**< Memory allocation failed. */
    LOGREP_ERR__INVALID_ARG = -102,          /**< An argument is invalid (NULL, out of range). */
    LOGREP_ERR__MISUSE = -103,               /**< The call is not allowed in the handle's current state. */
    LOGREP_ERR__IO = -104,                   /**< An I/O error from the storage or transport backend. */
    LOGREP_ERR__CORRUPT = -105,              /**< Input bytes are malformed, truncated or fail their checksum. */
    LOGREP_ERR__NOSPACE = -106,              /**< The storage backend is out of space. */
    LOGREP_ERR__UNSUPPORTED = -107,          /**< Feature, version or vtable version not supported. */
    LOGREP_ERR__SHUTDOWN = -108,             /**< The handle is shutting down. */
    LOGREP_ERR__NOENT = -109,                /**< No such entry (file, key, partition). */
    LOGREP_ERR__EXISTS = -110,               /**< The entry already exists. */
    LOGREP_ERR__LIMIT = -111,                /**< A configured size or count limit was exceeded. */
    LOGREP_ERR__UNKNOWN_CONF = -112,         /**< Unknown configuration property. */
    LOGREP_ERR__INVALID_CONF = -113,         /**< Invalid value for a configuration property. */
    LOGREP_ERR__COMPRESSION = -114,          /**< A compression codec failed or found invalid data. */
    LOGREP_ERR__AGAIN = -115,                /**< Not ready yet; retry after the next event. */
    LOGREP_ERR__TIMED_OUT = -116,            /**< A local operation timed out. */

    /* Kafka wire error codes (org.apache.kafka.common.protocol.Errors). */
    LOGREP_ERR_UNKNOWN_SERVER_ERROR = -1,    /**< The server experienced an unexpected error when processing the request. */
    LOGREP_OK = 0,                           /**< Success. */
    LOGREP_ERR_OFFSET_OUT_OF_RANGE = 1,      /**< The requested offset is not within the range of offsets maintained by the server. */
    LOGREP_ERR_CORRUPT_MESSAGE = 2,          /**< The message failed its CRC check, exceeded the valid size, has a null key on a compacted topic, or is otherwise corrupt. [retriable] */
    LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION = 3, /**< This server does not host this topic-partition. [retriable] */
    LOGREP_ERR_INVALID_FETCH_SIZE = 4,       /**< The requested fetch size is invalid. */
    LOGREP_ERR_LEADER_NOT_AVAILABLE = 5,     /**< There is no leader for this topic-partition as we are in the middle of a leadership election. [retriable] */
    LOGREP_ERR_NOT_LEADER_OR_FOLLOWER = 6,   /**< For requests intended only for the leader, this broker is not the current leader; for others, it is neither leader nor follower. [retriable] */
    LOGREP_ERR_REQUEST_TIMED_OUT = 7,        /**< The request timed out. [retriable] */
    LOGREP_ERR_BROKER_NOT_AVAILABLE = 8,     /**< The broker is not available. */
    LOGREP_ERR_REPLICA_NOT_AVAILABLE = 9,    /**< The replica is not available for the requested topic-partition. [retriable] */
    LOGREP_ERR_MESSAGE_TOO_LARGE = 10,       /**< The request included a message larger than the max message size the server will accept. */
    LOGREP_ERR_STALE_CONTROLLER_EPOCH = 11,  /**< The controller moved to another broker. */
    LOGREP_ERR_OFFSET_METADATA_TOO_LARGE = 12, /**< The metadata field of the offset request was too large. */
    LOGREP_ERR_NETWORK_EXCEPTION = 13,       /**< The server disconnected before a response was received. [retriable] */
    LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS = 14, /**< The coordinator is loading and hence can't process requests. [retriable] */
    LOGREP_ERR_COORDINATOR_NOT_AVAILABLE = 15, /**< The coordinator is not available. [retriable] */
    LOGREP_ERR_NOT_COORDINATOR = 16,         /**< This is not the correct coordinator. [retriable] */
    LOGREP_ERR_INVALID_TOPIC_EXCEPTION = 17, /**< The request attempted to perform an operation on an invalid topic. */
    LOGREP_ERR_RECORD_LIST_TOO_LARGE = 18,   /**< The request included a message batch larger than the configured segment size on the server. */
    LOGREP_ERR_NOT_ENOUGH_REPLICAS = 19,     /**< Messages are rejected since there are fewer in-sync replicas than required. [retriable] */
    LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20, /**< Messages are written to the log, but to fewer in-sync replicas than required. [retriable] */
    LOGREP_ERR_INVALID_REQUIRED_ACKS = 21,   /**< Produce request specified an invalid value for required acks. */
    LOGREP_ERR_ILLEGAL_GENERATION = 22,      /**< Specified group generation id is not valid. */
    LOGREP_ERR_INCONSISTENT_GROUP_PROTOCOL = 23, /**< The group member's supported protocols are incompatible with those of existing members. */
    LOGREP_ERR_INVALID_GROUP_ID = 24,        /**< The configured groupId is invalid. */
    LOGREP_ERR_UNKNOWN_MEMBER_ID = 25,       /**< The coordinator is not aware of this member. */
    LOGREP_ERR_INVALID_SESSION_TIMEOUT = 26, /**< The session timeout is not within the range allowed by the broker. */
    LOGREP_ERR_REBALANCE_IN_PROGRESS = 27,   /**< The group is rebalancing, so a rejoin is needed. */
    LOGREP_ERR_INVALID_COMMIT_OFFSET_SIZE = 28, /**< The committing offset data size is not valid. */
    LOGREP_ERR_TOPIC_AUTHORIZATION_FAILED = 29, /**< Topic authorization failed. */
    LOGREP_ERR_GROUP_AUTHORIZATION_FAILED = 30, /**< Group authorization failed. */
    LOGREP_ERR_CLUSTER_AUTHORIZATION_FAILED = 31, /**< Cluster authorization failed. */
    LOGREP_ERR_INVALID_TIMESTAMP = 32,       /**< The timestamp of the message is out of acceptable range. */
    LOGREP_ERR_UNSUPPORTED_SASL_MECHANISM = 33, /**< The broker does not support the requested SASL mechanism. */
    LOGREP_ERR_ILLEGAL_SASL_STATE = 34,      /**< Request is not valid given the current SASL state. */
    LOGREP_ERR_UNSUPPORTED_VERSION = 35,     /**< The version of API is not supported. */
    LOGREP_ERR_TOPIC_ALREADY_EXISTS = 36,    /**< Topic with this name already exists. */
    LOGREP_ERR_INVALID_PARTITIONS = 37,      /**< Number of partitions is below 1. */
    LOGREP_ERR_INVALID_REPLICATION_FACTOR = 38, /**< Replication factor is below 1 or larger than the number of available brokers. */
    LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT = 39, /**< Replica assignment is invalid. */
    LOGREP_ERR_INVALID_CONFIG = 40,          /**< Configuration is invalid. */
    LOGREP_ERR_NOT_CONTROLLER = 41,          /**< This is not the correct controller for this cluster. [retriable] */
    LOGREP_ERR_INVALID_REQUEST = 42,         /**< The request is malformed or was sent to an incompatible broker. */
    LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT = 43, /**< The message format version on the broker does not support the request. */
    LOGREP_ERR_POLICY_VIOLATION = 44,        /**< Request parameters do not satisfy the configured policy. */
    LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER = 45, /**< The broker received an out of order sequence number. */
    LOGREP_ERR_DUPLICATE_SEQUENCE_NUMBER = 46, /**< The broker received a duplicate sequence number. */
    LOGREP_ERR_INVALID_PRODUCER_EPOCH = 47,  /**< Producer attempted to produce with an old epoch. */
    LOGREP_ERR_INVALID_TXN_STATE = 48,       /**< The producer attempted a transactional operation in an invalid state. */
    LOGREP_ERR_INVALID_PRODUCER_ID_MAPPING = 49, /**< The producer attempted to use a producer id which is not currently assigned to its transactional id. */
    LOGREP_ERR_INVALID_TRANSACTION_TIMEOUT = 50, /**< The transaction timeout is larger than the maximum value allowed by the broker. */
    LOGREP_ERR_CONCURRENT_TRANSACTIONS = 51, /**< The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing. [retriable] */
    LOGREP_ERR_TRANSACTION_COORDINATOR_FENCED = 52, /**< The transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for the producer. */
    LOGREP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53, /**< Transactional Id authorization failed. */
    LOGREP_ERR_SECURITY_DISABLED = 54,       /**< Security features are disabled. */
    LOGREP_ERR_OPERATION_NOT_ATTEMPTED = 55, /**< The broker did not attempt to execute this operation. */
    LOGREP_ERR_KAFKA_STORAGE_ERROR = 56,     /**< Disk error when trying to access log file on the disk. [retriable] */
    LOGREP_ERR_LOG_DIR_NOT_FOUND = 57,       /**< The user-specified log directory is not found in the broker config. */
    LOGREP_ERR_SASL_AUTHENTICATION_FAILED = 58, /**< SASL Authentication failed. */
    LOGREP_ERR_UNKNOWN_PRODUCER_ID = 59,     /**< The broker could not locate the producer metadata associated with the producer id. */
    LOGREP_ERR_REASSIGNMENT_IN_PROGRESS = 60, /**< A partition reassignment is in progress. */
    LOGREP_ERR_DELEGATION_TOKEN_AUTH_DISABLED = 61, /**< Delegation Token feature is not enabled. */
    LOGREP_ERR_DELEGATION_TOKEN_NOT_FOUND = 62, /**< Delegation Token is not found on server. */
    LOGREP_ERR_DELEGATION_TOKEN_OWNER_MISMATCH = 63, /**< Specified Principal is not valid Owner/Renewer. */
    LOGREP_ERR_DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64, /**< Delegation Token requests are not allowed on this connection. */
    LOGREP_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65, /**< Delegation Token authorization failed. */
    LOGREP_ERR_DELEGATION_TOKEN_EXPIRED = 66, /**< Delegation Token is expired. */
    LOGREP_ERR_INVALID_PRINCIPAL_TYPE = 67,  /**< Supplied principalType is not supported. */
    LOGREP_ERR_NON_EMPTY_GROUP = 68,         /**< The group is not empty. */
    LOGREP_ERR_GROUP_ID_NOT_FOUND = 69,      /**< The group id does not exist. */
    LOGREP_ERR_FETCH_SESSION_ID_NOT_FOUND = 70, /**< The fetch session ID was not found. [retriable] */
    LOGREP_ERR_INVALID_FETCH_SESSION_EPOCH = 71, /**< The fetch session epoch is invalid. [retriable] */
    LOGREP_ERR_LISTENER_NOT_FOUND = 72,      /**< There is no listener on the leader broker that matches the listener on which metadata request was processed. [retriable] */
    LOGREP_ERR_TOPIC_DELETION_DISABLED = 73, /**< Topic deletion is disabled. */
    LOGREP_ERR_FENCED_LEADER_EPOCH = 74,     /**< The leader epoch in the request is older than the epoch on the broker. [retriable] */
    LOGREP_ERR_UNKNOWN_LEADER_EPOCH = 75,    /**< The leader epoch in the request is newer than the epoch on the broker. [retriable] */
    LOGREP_ERR_UNSUPPORTED_COMPRESSION_TYPE = 76, /**< The requesting client does not support the compression type of given partition. */
    LOGREP_ERR_STALE_BROKER_EPOCH = 77,      /**< Broker epoch has changed. */
    LOGREP_ERR_OFFSET_NOT_AVAILABLE = 78,    /**< The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing. [retriable] */
    LOGREP_ERR_MEMBER_ID_REQUIRED = 79,      /**< The group member needs to have a valid member id before actually entering a consumer group. */
    LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE = 80, /**< The preferred leader was not available. [retriable] */
    LOGREP_ERR_GROUP_MAX_SIZE_REACHED = 81,  /**< The consumer group has reached its max size. */
    LOGREP_ERR_FENCED_INSTANCE_ID = 82,      /**< The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id. */
    LOGREP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE = 83, /**< Eligible topic partition leaders are not available. [retriable] */
    LOGREP_ERR_ELECTION_NOT_NEEDED = 84,     /**< Leader election not needed for topic partition. [retriable] */
    LOGREP_ERR_NO_REASSIGNMENT_IN_PROGRESS = 85, /**< No partition reassignment is in progress. */
    LOGREP_ERR_GROUP_SUBSCRIBED_TO_TOPIC = 86, /**< Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it. */
    LOGREP_ERR_INVALID_RECORD = 87,          /**< This record has failed the validation on broker and hence will be rejected. */
    LOGREP_ERR_UNSTABLE_OFFSET_COMMIT = 88,  /**< There are unstable offsets that need to be cleared. [retriable] */
    LOGREP_ERR_THROTTLING_QUOTA_EXCEEDED = 89, /**< The throttling quota has been exceeded. [retriable] */
    LOGREP_ERR_PRODUCER_FENCED = 90,         /**< There is a newer producer with the same transactionalId which fences the current one. */
    LOGREP_ERR_RESOURCE_NOT_FOUND = 91,      /**< A request illegally referred to a resource that does not exist. */
    LOGREP_ERR_DUPLICATE_RESOURCE = 92,      /**< A request illegally referred to the same resource twice. */
    LOGREP_ERR_UNACCEPTABLE_CREDENTIAL = 93, /**< Requested credential would not meet criteria for acceptability. */
    LOGREP_ERR_INCONSISTENT_VOTER_SET = 94,  /**< Either the sender or recipient of a voter-only request is not one of the expected voters. */
    LOGREP_ERR_INVALID_UPDATE_VERSION = 95,  /**< The given update version was invalid. */
    LOGREP_ERR_FEATURE_UPDATE_FAILED = 96,   /**< Unable to update finalized features due to an unexpected server error. */
    LOGREP_ERR_PRINCIPAL_DESERIALIZATION_FAILURE = 97, /**< Request principal deserialization failed during forwarding. */
    LOGREP_ERR_SNAPSHOT_NOT_FOUND = 98,      /**< Requested snapshot was not found. */
    LOGREP_ERR_POSITION_OUT_OF_RANGE = 99,   /**< Requested position is not greater than or equal to zero, and less than the size of the snapshot. */
    LOGREP_ERR_UNKNOWN_TOPIC_ID = 100,       /**< This server does not host this topic ID. [retriable] */
    LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION = 101, /**< This broker ID is already in use. */
    LOGREP_ERR_BROKER_ID_NOT_REGISTERED = 102, /**< The given broker ID was not registered. */
    LOGREP_ERR_INCONSISTENT_TOPIC_ID = 103,  /**< The log's topic ID did not match the topic ID in the request. [retriable] */
    LOGREP_ERR_INCONSISTENT_CLUSTER_ID = 104, /**< The clusterId in the request does not match that found on the server. */
    LOGREP_ERR_TRANSACTIONAL_ID_NOT_FOUND = 105, /**< The transactionalId could not be found. */
    LOGREP_ERR_FETCH_SESSION_TOPIC_ID_ERROR = 106, /**< The fetch session encountered inconsistent topic ID usage. [retriable] */
    LOGREP_ERR_INELIGIBLE_REPLICA = 107,     /**< The new ISR contains at least one ineligible replica. */
    LOGREP_ERR_NEW_LEADER_ELECTED = 108,     /**< The AlterPartition request successfully updated the partition state but the leader has changed. */
    LOGREP_ERR_OFFSET_MOVED_TO_TIERED_STORAGE = 109, /**< The requested offset is moved to tiered storage. */
    LOGREP_ERR_FENCED_MEMBER_EPOCH = 110,    /**< The member epoch is fenced by the group coordinator. */
    LOGREP_ERR_UNRELEASED_INSTANCE_ID = 111, /**< The instance ID is still used by another member in the consumer group. */
    LOGREP_ERR_UNSUPPORTED_ASSIGNOR = 112,   /**< The assignor or its version range is not supported by the consumer group. */
    LOGREP_ERR_STALE_MEMBER_EPOCH = 113,     /**< The member epoch is stale. */
    LOGREP_ERR_MISMATCHED_ENDPOINT_TYPE = 114, /**< The request was sent to an endpoint of the wrong type. */
    LOGREP_ERR_UNSUPPORTED_ENDPOINT_TYPE = 115, /**< This endpoint type is not supported yet. */
    LOGREP_ERR_UNKNOWN_CONTROLLER_ID = 116,  /**< This controller ID is not known. */
    LOGREP_ERR_UNKNOWN_SUBSCRIPTION_ID = 117, /**< Client sent a push telemetry request with an invalid or outdated subscription ID. */
    LOGREP_ERR_TELEMETRY_TOO_LARGE = 118,    /**< Client sent a push telemetry request larger than the maximum size the broker will accept. */
    LOGREP_ERR_INVALID_REGISTRATION = 119,   /**< The controller has considered the broker registration to be invalid. */
    LOGREP_ERR_TRANSACTION_ABORTABLE = 120,  /**< The server encountered an error with the transaction; the client can abort it to continue. */
    LOGREP_ERR_INVALID_RECORD_STATE = 121,   /**< The record state is invalid; the acknowledgement of delivery could not be completed. */
    LOGREP_ERR_SHARE_SESSION_NOT_FOUND = 122, /**< The share session was not found. [retriable] */
    LOGREP_ERR_INVALID_SHARE_SESSION_EPOCH = 123, /**< The share session epoch is invalid. [retriable] */
    LOGREP_ERR_FENCED_STATE_EPOCH = 124,     /**< The share coordinator rejected the request because the share-group state epoch did not match. */
    LOGREP_ERR_INVALID_VOTER_KEY = 125,      /**< The voter key does not match the receiving replica's key. */
    LOGREP_ERR_DUPLICATE_VOTER = 126,        /**< The voter is already part of the set of voters. */
    LOGREP_ERR_VOTER_NOT_FOUND = 127         /**< The voter is not part of the set of voters. */
} logrep_err;

/** Symbolic name without prefix, e.g. "NOT_LEADER_OR_FOLLOWER", "_CORRUPT"
 *  for local errors, "NONE" for 0. Unknown codes give "UNKNOWN". Static
 *  string; never NULL. */
LOGREP_API const char *logrep_err_name(int err);
/** One-sentence description of the code. Static string; never NULL. */
LOGREP_API const char *logrep_err_str(int err);
/** 1 when Kafka classifies the wire error as retriable (a client may retry
 *  the same request), 0 otherwise and for every local error. */
LOGREP_API int logrep_err_is_retriable(int err);

/* ------------------------------------------------------------------------
 * Allocator and log hooks
 * ---------------------------------------------------------------------- */

/** A per-instance allocator. Sizes are passed back on realloc and free so
 *  sized allocators (arenas, Rust, Zig) can back the library directly.
 *  alloc may return NULL; the library then fails the call with
 *  LOGREP_ERR__NOMEM and leaves the handle usable. All three must be set. */
typedef struct logrep_allocator {
    void *ctx;
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *p, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *p, size_t size);
} logrep_allocator;

/** Log levels, syslog-like. */
enum {
    LOGREP_LEVEL_ERROR = 3,
    LOGREP_LEVEL_WARN = 4,
    LOGREP_LEVEL_INFO = 6,
    LOGREP_LEVEL_DEBUG = 7,
    LOGREP_LEVEL_TRACE = 8
};

/** Log hook. `msg` holds `len` bytes (NUL-terminated too) and is valid
 *  only during the call. `subsys` is a short static name ("codec", "log",
 *  "replica", ...). Called synchronously, on the thread calling into the
 *  handle that logs; it must not call back into that handle. */
typedef void (*logrep_logger_fn)(void *ctx, int level, const char *subsys,
                              const char *msg, size_t len);

/** One piece of bytes to send: a frame is a list of them (encoded
 *  messages, the node's transport). Memory segments have data != NULL and
 *  file == -1; file segments have data == NULL and name `len` bytes at
 *  `pos` of the host's file `file` (a storage file_fd value, or the value
 *  given to logrep_struct_set_records_file). */
typedef struct logrep_seg {
    const uint8_t *data;
    uint64_t len;
    int64_t file;
    int64_t pos;
} logrep_seg;

/* ------------------------------------------------------------------------
 * Configuration
 *
 * String-keyed, with Apache Kafka's property names ("segment.bytes",
 * "min.insync.replicas", ...). Properties specific to liblogrep start with
 * "logrep.". Every handle constructor takes a `const logrep_conf *` (NULL
 * means all defaults) and copies what it needs: the conf may be changed or
 * freed right after the call.
 * ---------------------------------------------------------------------- */

typedef struct logrep_conf logrep_conf;

/** A conf holding every default. Returns NULL only when malloc fails. */
LOGREP_API logrep_conf *logrep_conf_new(void);
/** Deep copy, or NULL when out of memory. */
LOGREP_API logrep_conf *logrep_conf_dup(const logrep_conf *conf);
LOGREP_API void logrep_conf_free(logrep_conf *conf);

/** Sets property `name` from its text form. Integers accept an optional
 *  sign and decimal digits only; booleans "true"/"false".
 *  On failure `errbuf` (if not NULL) receives a NUL-terminated reason.
 *  @return LOGREP_OK, LOGREP_ERR__UNKNOWN_CONF, LOGREP_ERR__INVALID_CONF
 *  (bad syntax or out of range; the old value is kept), LOGREP_ERR__NOMEM,
 *  LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_conf_set(logrep_conf *conf, const char *name,
                                      const char *value, char *errbuf,
                                      size_t errbuf_size);

/** Writes the current value of `name` as text into buf (NUL-terminated,
 *  truncated to size). `*needed`, if not NULL, receives the full length
 *  including the NUL.
 *  @return LOGREP_OK or LOGREP_ERR__UNKNOWN_CONF. */
LOGREP_API logrep_err logrep_conf_get(const logrep_conf *conf, const char *name,
                                      char *buf, size_t size, size_t *needed);

/** Integer value of a numeric or boolean property (booleans read 0/1).
 *  @return LOGREP_OK, LOGREP_ERR__UNKNOWN_CONF, or LOGREP_ERR__INVALID_ARG
 *  for a string property. */
LOGREP_API logrep_err logrep_conf_get_int64(const logrep_conf *conf,
                                            const char *name, int64_t *out);

/** Number of known properties, and the name and documentation of the
 *  i-th (static strings), for tools that list them. */
LOGREP_API size_t logrep_conf_property_count(void);
LOGREP_API logrep_err logrep_conf_property(size_t i, const char **name,
                                           const char **doc);

/** Allocator for every handle created from this conf. Copied by value;
 *  NULL restores malloc/realloc/free. The allocator must outlive those
 *  handles.
 *  @return LOGREP_OK or LOGREP_ERR__INVALID_ARG (a NULL method). */
LOGREP_API logrep_err logrep_conf_set_allocator(logrep_conf *conf,
                                                const logrep_allocator *a);

/** Log hook and maximum level for handles created from this conf; NULL fn
 *  disables logging. `ctx` must outlive those handles. */
LOGREP_API void logrep_conf_set_logger(logrep_conf *conf, logrep_logger_fn fn,
                                    void *ctx, int max_level);

/* ------------------------------------------------------------------------
 * Checksums and partitioning
 * ---------------------------------------------------------------------- */

/** CRC-32C (Castagnoli). Start with crc = 0; pass the previous result to
 *  continue over the next chunk. CRC of "123456789" is 0xE3069283.
 *  Thread-safe. len may be 0 (data may then be NULL). */
LOGREP_API uint32_t logrep_crc32c(uint32_t crc, const void *data, size_t len);

/** Kafka's murmur2 (Utils.murmur2), as the int32 Java returns.
 *  key may be NULL when len is 0 (hashes like the empty key). */
LOGREP_API int32_t logrep_murmur2(const void *key, size_t len);

/** Kafka's default partition for a keyed record:
 *  (murmur2(key) & 0x7fffffff) % num_partitions.
 *  @return the partition, or -1 when num_partitions < 1. */
LOGREP_API int32_t logrep_murmur2_partition(const void *key, size_t len,
                                            int32_t num_partitions);

/** Kafka's producer sequence arithmetic, wrapping from INT32_MAX to 0.
 *  `s` must be >= 0 and `d` in [0, INT32_MAX]. */
LOGREP_API int32_t logrep_seq_increment(int32_t s, int32_t d);
LOGREP_API int32_t logrep_seq_decrement(int32_t s, int32_t d);

/** The built-in producer partitioner (Kafka 3.3+, KIP-794): keyed records go
 *  to their murmur2 partition; keyless records (and every record when
 *  "partitioner.ignore.keys" is true) stick to one partition until about
 *  "batch.size" bytes went there, then move to another chosen at random,
 *  weighted toward partitions with less queued (adaptive partitioning,
 *  "partitioner.adaptive.partitioning.enable") and skipping partitions
 *  marked unavailable. Randomness comes from a PRNG seeded by the
 *  "logrep.random.seed" property, so runs are reproducible. */
typedef struct logrep_partitioner logrep_partitioner;

/** @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (num_partitions < 1, or
 *  above 1,000,000), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_partitioner_new(const logrep_conf *conf,
                                             int32_t num_partitions,
                                             logrep_partitioner **out);
LOGREP_API void logrep_partitioner_free(logrep_partitioner *p);

/** Partition for one record of `record_bytes` serialized bytes. key == NULL
 *  means a null key (an empty non-NULL key is a key). */
LOGREP_API int32_t logrep_partitioner_choose(logrep_partitioner *p,
                                             const void *key, size_t key_len,
                                             size_t record_bytes);

/** Load feedback for adaptive partitioning: `queued_bytes` waiting for the
 *  partition's leader, and whether the partition is available (a leader
 *  that answers within "partitioner.availability.timeout.ms", as the host
 *  judges it). Unknown partitions are ignored.
 *  @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_partitioner_set_load(logrep_partitioner *p,
                                                  int32_t partition,
                                                  int64_t queued_bytes,
                                                  int available);

/* ------------------------------------------------------------------------
 * Record batches, magic 2 (Kafka's message format v2)
 * ---------------------------------------------------------------------- */

/** Compression codecs: the values of the batch attributes' low 3 bits. */
enum {
    LOGREP_COMPRESSION_NONE = 0,
    LOGREP_COMPRESSION_GZIP = 1,
    LOGREP_COMPRESSION_SNAPPY = 2,
    LOGREP_COMPRESSION_LZ4 = 3,
    LOGREP_COMPRESSION_ZSTD = 4
};

/** Batch attribute bits. */
enum {
    LOGREP_ATTR_COMPRESSION_MASK = 0x07,
    LOGREP_ATTR_LOG_APPEND_TIME = 0x08,
    LOGREP_ATTR_TRANSACTIONAL = 0x10,
    LOGREP_ATTR_CONTROL = 0x20,
    LOGREP_ATTR_DELETE_HORIZON = 0x40
};

/** Byte layout constants. */
enum {
    LOGREP_BATCH_HEADER_SIZE = 61,  /**< RECORD_BATCH_OVERHEAD */
    LOGREP_LOG_OVERHEAD = 12,       /**< baseOffset + batchLength */
    LOGREP_BATCH_CRC_START = 21     /**< the CRC covers [21, end) */
};

/** Name of a codec ("none", "gzip", "snappy", "lz4", "zstd"), or NULL. */
LOGREP_API const char *logrep_compression_name(int codec);
/** Codec for a name (as in compression.type), or -1. */
LOGREP_API int logrep_compression_from_name(const char *name);

/** The fixed 61-byte header of a v2 batch, decoded. */
typedef struct logrep_batch_header {
    int64_t base_offset;
    int32_t batch_length;           /**< bytes after this field: size - 12 */
    int32_t partition_leader_epoch;
    int8_t magic;
    uint32_t crc;
    int16_t attributes;
    int32_t last_offset_delta;
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t record_count;
} logrep_batch_header;

/** Decodes the header of the batch at buf and checks what the CRC does not
 *  cover: magic == 2, batchLength >= 49 (a 61-byte header), the whole batch
 *  (12 + batchLength) present in len, codec 0-4. Does not check the CRC.
 *  @return LOGREP_OK; LOGREP_ERR__AGAIN when len holds less than the batch
 *  (a partial read: *out is still filled when at least 61 bytes were
 *  there, else untouched); LOGREP_ERR__CORRUPT for a bad length or codec;
 *  LOGREP_ERR__UNSUPPORTED for magic 0/1 or above 2. */
LOGREP_API logrep_err logrep_batch_header_parse(const void *buf, size_t len,
                                                logrep_batch_header *out);

/** Header checks as logrep_batch_header_parse, plus the CRC-32C over
 *  [21, end). `*size`, if not NULL, receives the batch size (12 +
 *  batchLength). Does not parse records.
 *  @return LOGREP_OK, LOGREP_ERR__AGAIN (incomplete), LOGREP_ERR__CORRUPT,
 *  LOGREP_ERR__UNSUPPORTED. */
LOGREP_API logrep_err logrep_batch_verify(const void *buf, size_t len,
                                          size_t *size);

/** Writes baseOffset and partitionLeaderEpoch into a batch in place, as a
 *  leader does when it assigns offsets. Neither field is covered by the
 *  CRC, so the CRC stays valid. len must be >= 61.
 *  @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_batch_stamp(void *buf, size_t len,
                                         int64_t base_offset,
                                         int32_t partition_leader_epoch);

/** Last offset of a batch: base_offset + last_offset_delta. */
LOGREP_API int64_t logrep_batch_last_offset(const logrep_batch_header *h);

/** One record header, borrowed. A length of -1 means null (keys of record
 *  headers are never null). */
typedef struct logrep_header {
    const uint8_t *key;
    int32_t key_len;
    const uint8_t *value;
    int32_t value_len;
} logrep_header;

/** One record, as iterated. Pointers are borrowed from the reader: valid
 *  until the next logrep_batch_reader_open() or _free() on that reader
 *  (and, for uncompressed batches, while the input buffer lives). */
typedef struct logrep_record {
    int64_t offset;           /**< base offset + offset delta */
    int64_t timestamp;        /**< effective: maxTimestamp under LogAppendTime */
    int32_t offset_delta;
    int64_t timestamp_delta;
    const uint8_t *key;       /**< NULL when key_len is -1 */
    int32_t key_len;
    const uint8_t *value;     /**< NULL when value_len is -1 (tombstone) */
    int32_t value_len;
    int32_t header_count;
    const uint8_t *headers;   /**< encoded headers, read with logrep_record_header_next() */
    size_t headers_size;
    int32_t sequence;         /**< baseSequence + offset delta (wrapping), or -1 */
} logrep_record;

/** Next header of a record. Start with *cursor = 0.
 *  @return LOGREP_OK, or LOGREP_ERR__END after the last header. The headers
 *  were validated when the record was read, so no other code is returned
 *  for a record obtained from a reader. */
LOGREP_API logrep_err logrep_record_header_next(const logrep_record *rec,
                                                size_t *cursor,
                                                logrep_header *out);

/** Reads a batch: verifies header and CRC, decompresses (bounded by
 *  "logrep.decompress.max.bytes") and iterates records lazily. Uncompressed
 *  payloads are never copied. Reusable across batches, so its decompression
 *  buffer is reused too. */
typedef struct logrep_batch_reader logrep_batch_reader;

/** @return LOGREP_OK or LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_batch_reader_new(const logrep_conf *conf,
                                              logrep_batch_reader **out);
LOGREP_API void logrep_batch_reader_free(logrep_batch_reader *r);

/** Opens the batch at buf (exactly one batch is read; trailing bytes are
 *  ignored and the batch size is reported through the header). The buffer
 *  is borrowed until the next open or free: records may point into it.
 *  On success *hdr (if not NULL) receives the header.
 *  @return LOGREP_OK; LOGREP_ERR__AGAIN (incomplete batch);
 *  LOGREP_ERR__CORRUPT (bad length, CRC mismatch, corrupt compressed
 *  data); LOGREP_ERR__UNSUPPORTED (magic); LOGREP_ERR__LIMIT (inflates
 *  beyond the configured limit); LOGREP_ERR__NOMEM. After a failure the
 *  reader holds no batch; logrep_batch_reader_errmsg() says why. */
LOGREP_API logrep_err logrep_batch_reader_open(logrep_batch_reader *r,
                                               const void *buf, size_t len,
                                               logrep_batch_header *hdr);

/** Next record of the open batch, validated as Kafka's DefaultRecord does
 *  (lengths, exact body size, header counts, offset deltas strictly
 *  increasing and within lastOffsetDelta).
 *  @return LOGREP_OK; LOGREP_ERR__END after the last record, once the
 *  record count matched and no bytes remain; LOGREP_ERR__CORRUPT for a
 *  malformed record, a count mismatch or trailing bytes;
 *  LOGREP_ERR__MISUSE when no batch is open. */
LOGREP_API logrep_err logrep_batch_reader_next(logrep_batch_reader *r,
                                               logrep_record *out);

/** Reads every record of the open batch to validate it, then rewinds so
 *  iteration starts again at the first record.
 *  @return as logrep_batch_reader_next(), LOGREP_OK for a valid batch. */
LOGREP_API logrep_err logrep_batch_reader_validate(logrep_batch_reader *r);

/** Leader-side validation of one batch, as Kafka's LogValidator walks a
 *  produced batch: every record is read (after decompressing, bounded by
 *  "logrep.decompress.max.bytes"; an uncompressed batch is read in place)
 *  and checked as logrep_batch_reader_next() does, and the declared record
 *  count must match the records present. `batch` holds exactly one batch
 *  of `size` bytes whose header and CRC the caller already verified
 *  (logrep_batch_verify()); it is borrowed for the call only and no batch
 *  stays open. *max_timestamp (if not NULL) receives the largest record
 *  timestamp (CreateTime), -1 for none.
 *  @return LOGREP_OK; LOGREP_ERR_CORRUPT_MESSAGE (invalid compressed data,
 *  a payload inflating beyond the limit, a malformed record, a count that
 *  does not match, trailing bytes); LOGREP_ERR_INVALID_RECORD (offset
 *  deltas not strictly increasing within lastOffsetDelta);
 *  LOGREP_ERR__INVALID_ARG (size does not match the header);
 *  LOGREP_ERR__NOMEM. logrep_batch_reader_errmsg() says why. */
LOGREP_API logrep_err logrep_batch_reader_check(logrep_batch_reader *r,
                                                const void *batch, size_t size,
                                                int64_t *max_timestamp);

/** Broker-side recompression (topic config compression.type): rewrites the
 *  one batch at `batch` (exactly `size` bytes, header and CRC verified
 *  here) with its record area encoded by `codec` at `level` (0: the
 *  codec's default). Kept as they are: base offset, partition leader
 *  epoch, attributes other than the codec bits, timestamps, producer
 *  id/epoch, base sequence, record count and the record bytes; batchLength
 *  and the CRC are recomputed. A batch already in `codec`, and a control
 *  batch, are not rewritten: *out is `batch` itself. Otherwise *out points
 *  into the reader, valid until the next call on r or its free. Records
 *  are not parsed: check the result with logrep_batch_reader_check(). No
 *  batch stays open.
 *  @return LOGREP_OK; LOGREP_ERR__INVALID_ARG (bad codec or level, `size`
 *  not one batch); LOGREP_ERR__CORRUPT (bad header, CRC or compressed
 *  data); LOGREP_ERR__UNSUPPORTED (magic); LOGREP_ERR__LIMIT (inflates
 *  beyond "logrep.decompress.max.bytes"); LOGREP_ERR__COMPRESSION;
 *  LOGREP_ERR__NOMEM. logrep_batch_reader_errmsg() says why. */
LOGREP_API logrep_err logrep_batch_reader_recompress(logrep_batch_reader *r,
                                                     const void *batch, size_t size,
                                                     int codec, int level,
                                                     const void **out,
                                                     size_t *out_len);

/** Why the last open/next failed, NUL-terminated; owned by the reader and
 *  valid until the next call on it ("" after success). */
LOGREP_API const char *logrep_batch_reader_errmsg(const logrep_batch_reader *r);

/** Control records (transaction markers and KRaft control types). */
enum {
    LOGREP_CONTROL_ABORT = 0,
    LOGREP_CONTROL_COMMIT = 1,
    LOGREP_CONTROL_LEADER_CHANGE = 2,
    LOGREP_CONTROL_SNAPSHOT_HEADER = 3,
    LOGREP_CONTROL_SNAPSHOT_FOOTER = 4,
    LOGREP_CONTROL_KRAFT_VERSION = 5,
    LOGREP_CONTROL_KRAFT_VOTERS = 6
};

typedef struct logrep_control {
    int16_t key_version;
    int16_t type;               /**< LOGREP_CONTROL_*, or another value (unknown) */
    int16_t value_version;      /**< ABORT/COMMIT only, else -1 */
    int32_t coordinator_epoch;  /**< ABORT/COMMIT only, else -1 */
} logrep_control;

/** Decodes the key (and, for ABORT/COMMIT, the value) of a control record.
 *  Higher versions are read as version 0, as Kafka does.
 *  @return LOGREP_OK or LOGREP_ERR__CORRUPT (short key/value, negative
 *  version). */
LOGREP_API logrep_err logrep_control_parse(const logrep_record *rec,
                                           logrep_control *out);

/** Builds one v2 batch. Settings persist across logrep_batch_builder_reset();
 *  records do not. */
typedef struct logrep_batch_builder logrep_batch_builder;

/** @return LOGREP_OK or LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_batch_builder_new(const logrep_conf *conf,
                                               logrep_batch_builder **out);
LOGREP_API void logrep_batch_builder_free(logrep_batch_builder *b);

/** Drops the records (and a finished batch), keeping settings. */
LOGREP_API void logrep_batch_builder_reset(logrep_batch_builder *b);

/** Codec (LOGREP_COMPRESSION_*) and level; level 0 means the codec's
 *  default (gzip 6 as zlib's, lz4 1, zstd 3; snappy has no levels).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (unknown codec or a level
 *  outside the codec's range), LOGREP_ERR__MISUSE (records were added). */
LOGREP_API logrep_err logrep_batch_builder_set_compression(logrep_batch_builder *b,
                                                           int codec, int level);

/** Producer id, epoch and base sequence for idempotent producers; defaults
 *  -1/-1/-1 (not idempotent). */
LOGREP_API logrep_err logrep_batch_builder_set_producer(logrep_batch_builder *b,
                                                        int64_t producer_id,
                                                        int16_t producer_epoch,
                                                        int32_t base_sequence);

/** Attribute bits LOGREP_ATTR_TRANSACTIONAL and LOGREP_ATTR_LOG_APPEND_TIME
 *  (the codec comes from set_compression, the control bit from
 *  add_control). @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_batch_builder_set_flags(logrep_batch_builder *b,
                                                     int16_t flags);

/** baseOffset and partitionLeaderEpoch written into the header; defaults 0
 *  and -1, as the Java producer writes them. */
LOGREP_API void logrep_batch_builder_set_base(logrep_batch_builder *b,
                                              int64_t base_offset,
                                              int32_t partition_leader_epoch);

/** Appends a record with the next offset delta. Data is copied.
 *  key/value NULL with len -1 are null; headers may be NULL when
 *  n_headers is 0. timestamp -1 means "no timestamp".
 *  @return LOGREP_OK; LOGREP_ERR__INVALID_ARG (negative length other than
 *  -1, NULL header key); LOGREP_ERR__MISUSE (after finish, or on a control
 *  batch); LOGREP_ERR__LIMIT (would exceed INT32_MAX records or bytes);
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_batch_builder_add(logrep_batch_builder *b,
                                               int64_t timestamp,
                                               const void *key, int32_t key_len,
                                               const void *value, int32_t value_len,
                                               const logrep_header *headers,
                                               size_t n_headers);

/** Makes the batch a control batch holding one marker record: type
 *  LOGREP_CONTROL_ABORT or _COMMIT with the coordinator epoch. Sets the
 *  control and transactional bits; the batch must be empty.
 *  @return LOGREP_OK, LOGREP_ERR__MISUSE, LOGREP_ERR__INVALID_ARG,
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_batch_builder_add_control(logrep_batch_builder *b,
                                                       int64_t timestamp,
                                                       int16_t type,
                                                       int32_t coordinator_epoch);

/** Number of records added so far and the uncompressed size of the batch
 *  if finished now (a bound for batch.size decisions). */
LOGREP_API int32_t logrep_batch_builder_count(const logrep_batch_builder *b);
LOGREP_API size_t logrep_batch_builder_size_estimate(const logrep_batch_builder *b);

/** Compresses (when set) and seals the batch: header, CRC.
 *  *out points to the batch, owned by the builder: valid until the next
 *  reset, free, or settings change.
 *  @return LOGREP_OK; LOGREP_ERR__MISUSE (no records);
 *  LOGREP_ERR__COMPRESSION; LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_batch_builder_finish(logrep_batch_builder *b,
                                                  const uint8_t **out,
                                                  size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_H */
