/* The cluster metadata image and the metadata records that change it.
 *
 * The image is what a KRaft controller and every broker hold: brokers with
 * their epochs, racks and endpoints; topics with ids and config overrides;
 * partitions with replicas, leader, leader epoch, partition epoch, ISR,
 * Eligible Leader Replicas (KIP-966) and last known leader; the producer-id
 * high water mark.
 *
 * It changes only by applying metadata records, in Kafka's KRaft record
 * format. Every record is
 *
 *     uvarint frame version (1) | uvarint apiKey | uvarint version | fields
 *
 * where fields are the record's flexible-version encoding from Kafka's
 * metadata JSON schemas (compact strings and arrays, a tagged-field section
 * at the end of every struct). Applying the same bytes in the same order to
 * a fresh image gives the same image, byte for byte of every query: the
 * record bytes are the contract between the controller, its future quorum
 * and the brokers.
 *
 * Record types and versions written (all decoded versions are listed too):
 *   RegisterBrokerRecord            0   v3 (reads 0-3)
 *   UnregisterBrokerRecord          1   v0
 *   TopicRecord                     2   v0
 *   PartitionRecord                 3   v2 (reads 0-2; ELR fields need v2)
 *   ConfigRecord                    4   v0
 *   PartitionChangeRecord           5   v2 (reads 0-2; ELR fields need v2)
 *   FenceBrokerRecord               7   v0 (read only; the controller writes 17)
 *   UnfenceBrokerRecord             8   v0 (read only; the controller writes 17)
 *   RemoveTopicRecord               9   v0
 *   ProducerIdsRecord              15   v0
 *   BrokerRegistrationChangeRecord 17   v0 (fencing), v1 (controlled shutdown)
 * Tagged fields this library does not model (LogDirs, unknown tags) are
 * skipped on decode and not re-encoded.
 *
 * Nothing here does I/O, reads a clock or allocates outside the image's
 * allocator. One thread at a time per image.
 */
#ifndef LR_CONTROLLER_METADATA_H
#define LR_CONTROLLER_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include "base/alloc.h"
#include "base/buf.h"

#define LR_MD_NO_LEADER (-1)
#define LR_MD_NO_LEADER_CHANGE (-2) /* PartitionChangeRecord.Leader: unchanged */

/* Largest partition count of one topic and replica count of one partition
 * the image accepts (Kafka's replication factor is an int16). */
#define LR_MD_MAX_PARTITIONS 1000000
#define LR_MD_MAX_REPLICAS 32767
#define LR_MD_MAX_TOPIC_NAME 249

/* Producer ids are handed out in blocks of this size (Kafka's
 * ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
#define LR_MD_PRODUCER_ID_BLOCK 1000

/* ConfigRecord.ResourceType values (Kafka's ConfigResource.Type). */
#define LR_MD_RESOURCE_TOPIC 2
#define LR_MD_RESOURCE_BROKER 4

/* LeaderRecoveryState (KIP-704). */
#define LR_MD_RECOVERED 0
#define LR_MD_RECOVERING 1
#define LR_MD_LRS_NO_CHANGE (-1) /* PartitionChangeRecord only */

typedef enum lr_md_rtype {
    LR_MD_REGISTER_BROKER = 0,
    LR_MD_UNREGISTER_BROKER = 1,
    LR_MD_TOPIC = 2,
    LR_MD_PARTITION = 3,
    LR_MD_CONFIG = 4,
    LR_MD_PARTITION_CHANGE = 5,
    LR_MD_FENCE_BROKER = 7,
    LR_MD_UNFENCE_BROKER = 8,
    LR_MD_REMOVE_TOPIC = 9,
    LR_MD_PRODUCER_IDS = 15,
    LR_MD_BROKER_REGISTRATION_CHANGE = 17
} lr_md_rtype;

/* ------------------------------------------------------------------------
 * Decoded / to-be-encoded records
 *
 * Plain views: arrays and strings are borrowed. A record built by the
 * controller points at the controller's memory; a record produced by
 * lr_md_decode points into the input bytes (strings, directory ids) and into
 * memory owned by the record (int arrays, struct arrays), released with
 * lr_md_record_clear.
 * ---------------------------------------------------------------------- */

/* A nullable int32 array: n == -1 is null (PartitionChangeRecord: "did not
 * change"), n == 0 is empty. */
typedef struct lr_md_ids {
    const int32_t *v;
    int32_t n;
} lr_md_ids;

/* A nullable string of len bytes, not NUL-terminated; len == -1 is null. */
typedef struct lr_md_str {
    const char *p;
    int32_t len;
} lr_md_str;

typedef struct lr_md_endpoint_rec {
    lr_md_str name;
    lr_md_str host;
    uint16_t port;
    int16_t security_protocol;
} lr_md_endpoint_rec;

typedef struct lr_md_feature_rec {
    lr_md_str name;
    int16_t min_version;
    int16_t max_version;
} lr_md_feature_rec;

typedef struct lr_md_record {
    lr_md_rtype type;
    int16_t version;
    union {
        struct lr_md_reg_rec {
            int32_t broker_id;
            uint8_t is_migrating_zk; /* v2+ */
            uint8_t incarnation[16];
            int64_t epoch;
            const lr_md_endpoint_rec *endpoints;
            int32_t n_endpoints;
            const lr_md_feature_rec *features;
            int32_t n_features;
            lr_md_str rack; /* nullable */
            uint8_t fenced;
            uint8_t in_controlled_shutdown; /* v1+ */
        } reg;
        /* UnregisterBrokerRecord, FenceBrokerRecord, UnfenceBrokerRecord. */
        struct {
            int32_t broker_id;
            int64_t epoch;
        } broker;
        struct {
            lr_md_str name;
            uint8_t topic_id[16];
        } topic;
        /* PartitionRecord and PartitionChangeRecord share this layout. For
         * PartitionRecord every array is non-null except elr/lke (null =
         * empty), leader is a broker id or -1 and lrs is 0 or 1. For
         * PartitionChangeRecord a null array, leader -2 and lrs -1 mean "no
         * change"; leader_epoch/partition_epoch are unused. */
        struct lr_md_part_rec {
            int32_t partition_id;
            uint8_t topic_id[16];
            lr_md_ids replicas;
            lr_md_ids isr;
            lr_md_ids removing;
            lr_md_ids adding;
            int32_t leader;
            int8_t lrs;
            int32_t leader_epoch;
            int32_t partition_epoch;
            lr_md_ids elr; /* v2+ */
            lr_md_ids lke; /* v2+ (LastKnownElr) */
            /* v1+: n_dirs directory ids, 16 bytes each; NULL with n_dirs -1
             * means "not given" (encoders then write UNASSIGNED per replica
             * in a PartitionRecord and nothing in a change record). */
            const uint8_t *dirs;
            int32_t n_dirs;
        } part;
        struct {
            int8_t resource_type;
            lr_md_str resource_name;
            lr_md_str name;
            lr_md_str value; /* null: delete the override */
        } config;
        struct {
            uint8_t topic_id[16];
        } remove_topic;
        struct {
            int32_t broker_id;
            int64_t broker_epoch;
            int64_t next_producer_id;
        } pids;
        struct lr_md_change_rec {
            int32_t broker_id;
            int64_t broker_epoch;
            int8_t fenced;                 /* -1 unfenced, 0 no change, 1 fenced */
            int8_t in_controlled_shutdown; /* v1+: 0 no change, 1 entering */
        } change;
    } u;
    /* Decoder-owned memory; NULL for records built by hand. */
    void *mem;
    size_t mem_size;
    const lr_alloc *alloc;
} lr_md_record;

/* Initialises *rec as an empty record of `type` at `version` with every
 * field at its schema default (PartitionChangeRecord: nothing changes;
 * PartitionRecord: leader -1, epochs 0; arrays empty). */
void lr_md_record_init(lr_md_record *rec, lr_md_rtype type, int16_t version);

/* Appends the encoding of rec to out.
 * Returns 0, LOGREP_ERR__NOMEM (out keeps its old length),
 * LOGREP_ERR__UNSUPPORTED for a type or version not listed above, or
 * LOGREP_ERR__INVALID_ARG for a value the schema cannot carry (negative
 * array length other than a nullable -1, string over 32767 bytes). */
int lr_md_encode(const lr_md_record *rec, lr_buf *out);

/* Decodes one record from exactly [buf, buf+len). On success *rec borrows
 * from buf (keep buf alive while using rec) and may own memory from `a`:
 * release with lr_md_record_clear. Decoding allocates at most a small
 * multiple of len.
 * Returns 0, LOGREP_ERR__CORRUPT (truncated, trailing bytes, bad lengths,
 * tags out of order, frame version != 1), LOGREP_ERR__UNSUPPORTED (unknown
 * type or version), LOGREP_ERR__NOMEM. On failure *rec owns nothing. */
int lr_md_decode(const lr_alloc *a, const uint8_t *buf, size_t len, lr_md_record *rec);

/* Frees decoder-owned memory of rec; no-op for hand-built records. */
void lr_md_record_clear(lr_md_record *rec);

/* "RegisterBrokerRecord" etc.; "UNKNOWN" otherwise. Static. */
const char *lr_md_rtype_name(int type);

/* ------------------------------------------------------------------------
 * The image
 * ---------------------------------------------------------------------- */

typedef struct lr_md_endpoint {
    char *name;
    char *host;
    uint16_t port;
    int16_t security_protocol;
} lr_md_endpoint;

typedef struct lr_md_broker {
    int32_t id;
    uint8_t incarnation[16];
    int64_t epoch;           /* broker epoch of the current registration */
    int64_t register_offset; /* offset of its latest RegisterBrokerRecord */
    char *rack;              /* NULL: no rack */
    lr_md_endpoint *endpoints;
    uint32_t n_endpoints;
    uint8_t fenced;
    uint8_t in_controlled_shutdown;
} lr_md_broker;

/* One partition. replicas/isr/elr/lke point into one block owned by the
 * image; isr, elr and lke are always subsets of replicas without
 * duplicates (the image refuses records that would break that). */
typedef struct lr_md_partition {
    int32_t leader; /* -1: none */
    int32_t leader_epoch;
    int32_t partition_epoch;
    int8_t lrs; /* LR_MD_RECOVERED / LR_MD_RECOVERING */
    uint16_t n_replicas, n_isr, n_elr, n_lke;
    int32_t *replicas; /* assignment order; replicas[0] is preferred */
    int32_t *isr;
    int32_t *elr;
    int32_t *lke; /* LastKnownElr: the last known leader when ISR and ELR emptied */
} lr_md_partition;

typedef struct lr_md_config {
    char *name;
    char *value;
} lr_md_config;

typedef struct lr_md_topic {
    char *name;
    uint8_t id[16];
    lr_md_partition *parts; /* indexed by partition id, 0..n_parts-1 */
    int32_t n_parts, cap_parts;
    lr_md_config *configs; /* topic config overrides, in arrival order */
    uint32_t n_configs;
} lr_md_topic;

/* Cluster-wide defaults the image resolves topic configs against (from the
 * host's conf; never from records). */
typedef struct lr_md_defaults {
    int32_t min_isr;
    uint8_t unclean_election;
    uint8_t elr_enabled;
} lr_md_defaults;

typedef struct lr_md_image lr_md_image;

/* Creates an empty image. `conf` (may be NULL) gives the allocator and the
 * defaults min.insync.replicas, unclean.leader.election.enable and
 * eligible.leader.replicas.enable. NULL on allocation failure. */
lr_md_image *lr_md_new(const logrep_conf *conf);
void lr_md_free(lr_md_image *img);

/* Applies one record. All or nothing: on error the image is unchanged.
 * Returns 0; LOGREP_ERR__CORRUPT when the record does not fit the image
 * (unknown topic or broker, partition id out of sequence, ISR/ELR not a
 * subset of the replicas, duplicate ids, an illegal topic name, a producer
 * id going backwards, epochs mismatching the registration...);
 * LOGREP_ERR__UNSUPPORTED for reassignment fields (adding/removing
 * replicas); LOGREP_ERR__NOMEM. Every successful apply advances
 * lr_md_next_offset by one. */
int lr_md_apply(lr_md_image *img, const lr_md_record *rec);

/* Decodes and applies one encoded record (see lr_md_decode, lr_md_apply). */
int lr_md_apply_bytes(lr_md_image *img, const uint8_t *buf, size_t len);

/* Offset the next applied record will have (records applied so far, plus
 * the base set with lr_md_set_next_offset). Broker epochs are offsets. */
int64_t lr_md_next_offset(const lr_md_image *img);
void lr_md_set_next_offset(lr_md_image *img, int64_t off);

const lr_md_defaults *lr_md_get_defaults(const lr_md_image *img);

/* Lookups; results are borrowed until the next apply. NULL if absent. */
const lr_md_broker *lr_md_broker_get(const lr_md_image *img, int32_t id);
size_t lr_md_broker_count(const lr_md_image *img);
const lr_md_broker *lr_md_broker_at(const lr_md_image *img, size_t i); /* ascending ids */
const lr_md_topic *lr_md_topic_by_name(const lr_md_image *img, const char *name);
const lr_md_topic *lr_md_topic_by_id(const lr_md_image *img, const uint8_t id[16]);
size_t lr_md_topic_count(const lr_md_image *img);
const lr_md_topic *lr_md_topic_at(const lr_md_image *img, size_t i); /* creation order */
const lr_md_partition *lr_md_partition_get(const lr_md_topic *t, int32_t partition);

/* Value of a topic config override, or NULL. */
const char *lr_md_topic_config(const lr_md_topic *t, const char *name);
/* Effective settings of a topic: its override, else the image default.
 * min ISR is capped at the replication factor (Kafka's effective min ISR). */
int32_t lr_md_topic_min_isr(const lr_md_image *img, const lr_md_topic *t);
int lr_md_topic_unclean(const lr_md_image *img, const lr_md_topic *t);
/* Cluster-level (BROKER resource, empty name) config value, or NULL. */
const char *lr_md_cluster_config(const lr_md_image *img, const char *name);

/* Next producer id the controller will hand out (0 on a fresh image). */
int64_t lr_md_next_producer_id(const lr_md_image *img);

/* Config overrides of resources other than topics (the cluster: BROKER
 * with an empty name; one broker; any other resource type), in arrival
 * order, so a snapshot can write them all. Borrowed until the next apply. */
typedef struct lr_md_resource_config {
    int8_t resource_type;
    const char *resource;
    const char *name;
    const char *value;
} lr_md_resource_config;
size_t lr_md_resource_config_count(const lr_md_image *img);
/* 0, or LOGREP_ERR__INVALID_ARG when i is past the end. */
int lr_md_resource_config_at(const lr_md_image *img, size_t i, lr_md_resource_config *out);

/* The allocator the image was made with. */
const lr_alloc *lr_md_alloc(const lr_md_image *img);

/* 1 if s is a legal topic name: [a-zA-Z0-9._-]{1,249}, not "." or "..". */
int lr_md_topic_name_legal(lr_md_str s);
/* The metadata log's own name, never a topic clients may create or use. */
#define LR_MD_METADATA_TOPIC "__cluster_metadata"
/* An existing topic whose name equals `name` once '.' and '_' are treated
 * alike, other than `name` itself (Kafka refuses such a pair); NULL if
 * none. */
const lr_md_topic *lr_md_topic_collision(const lr_md_image *img, const char *name);

/* 1 if id is in ids[0..n). */
int lr_md_ids_contains(const int32_t *ids, size_t n, int32_t id);

/* ------------------------------------------------------------------------
 * Observability
 * ---------------------------------------------------------------------- */

enum {
    LR_MD_UNDER_REPLICATED = 1 << 0, /* |ISR| < |replicas| */
    LR_MD_UNDER_MIN_ISR = 1 << 1,    /* no leader, or |ISR| < min.insync.replicas */
    LR_MD_AT_MIN_ISR = 1 << 2,       /* |ISR| == min.insync.replicas */
    LR_MD_OFFLINE = 1 << 3           /* no leader */
};

/* LR_MD_* flags of one partition (min ISR as configured, not capped, like
 * kafka-topics). */
unsigned lr_md_partition_status(const lr_md_image *img, const lr_md_topic *t,
                                const lr_md_partition *p);

typedef struct lr_md_summary {
    int64_t partitions, offline, under_replicated, under_min_isr, at_min_isr;
    int64_t brokers, fenced_brokers, brokers_in_controlled_shutdown;
} lr_md_summary;
void lr_md_summarize(const lr_md_image *img, lr_md_summary *out);

/* Describe filters. */
enum {
    LR_MD_DESCRIBE_ALL = 0,
    LR_MD_DESCRIBE_UNDER_MIN_ISR = 1, /* --under-min-isr-partitions */
    LR_MD_DESCRIBE_AT_MIN_ISR = 2,    /* --at-min-isr-partitions */
    LR_MD_DESCRIBE_UNDER_REPLICATED = 3,
    LR_MD_DESCRIBE_UNAVAILABLE = 4    /* --unavailable-partitions */
};

/* Appends kafka-topics --describe text to out: for each topic (or only
 * `topic` when non-NULL) a header line
 *   "Topic: t\tTopicId: <base64>\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: k=v,..."
 * (omitted when a partition filter is given, as kafka-topics does) and one
 * line per partition passing the filter
 *   "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\tElr: 3\tLastKnownElr: "
 * ("Leader: none" when offline). Lines end with '\n'; out is not
 * NUL-terminated. Returns 0, LOGREP_ERR__NOMEM, LOGREP_ERR__INVALID_ARG
 * (unknown filter), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION (unknown topic). */
int lr_md_describe(const lr_md_image *img, const char *topic, int filter, lr_buf *out);

/* Kafka's Uuid.toString: URL-safe base64 without padding, 22 chars + NUL. */
void lr_md_uuid_str(const uint8_t id[16], char out[23]);

/* Checks structural and ELR invariants of every partition (docs/simulator.md
 * I13 and the shape rules the controller keeps): ISR, ELR, LastKnownElr
 * subsets of replicas without duplicates; ELR ∩ ISR = ∅; |ISR| >= min ISR
 * ⇒ ELR = ∅; leader ∈ ISR or -1; no fenced broker in the ISR unless it is
 * its only member and ELR is disabled. Returns 0 or LOGREP_ERR__CORRUPT
 * with a description in why (cap bytes, NUL-terminated; may be NULL). */
int lr_md_check_invariants(const lr_md_image *img, char *why, size_t cap);

#endif
