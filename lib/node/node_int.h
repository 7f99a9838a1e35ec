/* Node internals shared by the files of lib/node/. */
#ifndef LR_NODE_INT_H
#define LR_NODE_INT_H

#include <stdint.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/conf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/prng.h"
#include "controller/metadata.h"
#include "logrep/log.h"
#include "logrep/node.h"
#include "logrep/proto.h"
#include "proto/fields.h"
#include "replica/partition.h"

/* The metadata log's partition, as KRaft names it. */
#define LR_METADATA_TOPIC LR_MD_METADATA_TOPIC

/* Fetch version the node speaks to peers: flexible, topic ids, replica
 * broker epochs (KIP-903), diverging epochs. */
#define LR_PEER_FETCH_VERSION 15

/* A hosted partition replica. */
typedef struct lr_npart {
    char *topic;
    uint8_t topic_id[16];
    int32_t index;
    lr_partition *rep;
    int32_t seen_partition_epoch; /* last metadata applied */
    uint64_t conf_hash;           /* topic configs the log was given */
    int64_t fetch_after;          /* replica.fetch.backoff.ms after an error */
    uint64_t changed_seq;         /* the node's change_seq when its data last changed */
    int codec;                    /* compression.type: -1 producer, else LOGREP_COMPRESSION_* */
    int codec_level;              /* compression.<codec>.level, 0 for snappy/none */
} lr_npart;

/* One response slot of an inbound connection, in request order. */
typedef struct lr_slot {
    struct lr_slot *next;
    int ready;
    int kind;              /* LR_SLOT_* while pending */
    void *pending;         /* the deferred request's state */
    lr_buf bytes;          /* copied memory segments */
    logrep_seg *segs;      /* memory segs point into bytes after finish */
    size_t nsegs;
} lr_slot;

enum { LR_SLOT_NONE = 0, LR_SLOT_PRODUCE = 1, LR_SLOT_FETCH = 2, LR_SLOT_ADMIN = 3 };

/* The listener a connection arrived on, as the host named it. */
enum { LR_LISTENER_ANY = 0, LR_LISTENER_CLIENT = 1, LR_LISTENER_CONTROLLER = 2 };

typedef struct lr_conn {
    uint64_t id;
    int listener; /* LR_LISTENER_* */
    lr_slot *head, *tail;
    int closed;   /* the node closed it; dropped at the next safe point */
    struct lr_conn *next;
} lr_conn;

/* A request this node sent and awaits. */
typedef struct lr_outreq {
    int32_t correlation_id;
    int16_t api_key;
    int16_t version;
    int kind;              /* LR_OUT_* */
    int64_t sent_ms;
    void *ctx;             /* kind-specific */
    struct lr_outreq *next;
} lr_outreq;

enum {
    LR_OUT_REGISTER = 1,
    LR_OUT_HEARTBEAT = 2,
    LR_OUT_METADATA_FETCH = 3,
    LR_OUT_REPLICA_FETCH = 4,
    LR_OUT_ALTER_PARTITION = 5,
    LR_OUT_CREATE_TOPICS = 6,
    LR_OUT_ALLOCATE_PIDS = 7
};

/* An outbound connection to a peer (controller or leader). */
/* Connections to a peer are per channel, as Kafka keeps them apart:
 * responses come back in request order on one connection, so a parked
 * long-poll must not hold up anything else. */
enum {
    LR_CH_CONTROL = 0,  /* registration, heartbeats, AlterPartition, admin */
    LR_CH_METADATA = 1, /* the metadata log long-poll */
    LR_CH_REPLICA = 2   /* replica fetches */
};

typedef struct lr_peer {
    int32_t node_id;
    int channel;
    uint64_t conn;
    int connected;           /* a connection id is held */
    lr_outreq *inflight;
    int fetch_in_flight;     /* a replica fetch is outstanding */
    int64_t backoff_until;
    struct lr_peer *next;
} lr_peer;

struct lr_ctl_role;

/* A retired partition directory awaiting removal (topicdirs.c). */
typedef struct lr_retired {
    char *name;      /* under log_dir */
    int64_t due_ms;
} lr_retired;

struct logrep_node {
    lr_alloc alloc;
    lr_log logger;
    logrep_conf *conf;
    const logrep_storage *st;
    logrep_transport tr;
    lr_prng rng;

    int32_t id;
    int is_broker;
    int is_controller;
    char *log_dir;
    char *rack;
    char *adv_host;
    int32_t adv_port;

    int32_t ctl_id;
    char *ctl_host;
    int32_t ctl_port;

    /* Broker view of the cluster. */
    lr_md_image *img;
    int64_t md_fetch_after;  /* backoff for the metadata fetch */
    int md_fetching;
    int md_apply_retry;      /* partitions must be brought in line with img */
    int64_t md_apply_after;  /* an apply that failed on storage: retried then */

    /* Broker lifecycle with the controller. */
    int64_t broker_epoch;    /* -1 until registered */
    int registering;
    int64_t last_heartbeat;
    int heartbeat_in_flight;
    int64_t hb_offset;       /* metadata offset the last heartbeat reported */
    int fenced;
    int shutting_down;
    int shutdown_done;
    int64_t previous_clean_epoch; /* from the clean-shutdown marker, -1 none */

    /* Producer id block for InitProducerId. */
    int64_t pid_next, pid_end;
    int pid_requesting;

    lr_npart *parts;
    size_t n_parts, cap_parts;
    /* parts by (topic id, partition); values: positions in parts[] */
    lr_hashmap part_index;

    /* Retired partition directories (topicdirs.c). */
    lr_retired *retired;
    size_t n_retired, cap_retired;
    int dirs_scanned;        /* retired names left by the last run found */
    int strays_scanned;      /* the first full metadata apply looked for strays */

    lr_conn *conns;
    lr_peer *peers;
    int32_t next_correlation;

    /* Deferred work: produces awaiting acks, parked fetches. */
    struct lr_deferred *deferred;
    int data_changed;        /* something changed since the last poll */
    uint64_t change_seq;     /* counts changes (lr_node_part_changed) */
    uint64_t all_changed_seq; /* the last change not tied to one partition */
    uint64_t md_changed_seq;  /* the last record of the controller's metadata log */
    uint64_t token_seq;

    struct lr_ctl_role *ctl; /* controller role */

    logrep_batch_reader *rezip; /* compression.type recompression on produce */
    logrep_msg *req;         /* decode scratch */
    logrep_msg *resp;        /* encode scratch */
    logrep_msg *out;         /* outgoing requests */
    logrep_msg *in;          /* incoming responses */

    int64_t next_retention_ms; /* next log.retention.check.interval.ms check */
    logrep_node_stats stats;
    char scratch[256];
};

/* ---- node.c ---- */
lr_conn *lr_node_conn(logrep_node *n, uint64_t id, int create);
/* Reserves the next response slot on a connection. */
lr_slot *lr_node_slot(logrep_node *n, lr_conn *c);
/* Sends n->resp on c in the next slot (answered now). */
int lr_node_respond(logrep_node *n, lr_conn *c);
/* Encodes n->resp into the slot, marks it ready and sends ready slots. */
int lr_node_finish(logrep_node *n, lr_conn *c, lr_slot *s, logrep_msg *resp);
void lr_node_flush_conn(logrep_node *n, lr_conn *c);
/* Closes c through the transport (no logrep_node_closed follows); its
 * state goes at the next tick or when its id comes back. */
void lr_node_close_conn(logrep_node *n, lr_conn *c);
lr_npart *lr_node_part(logrep_node *n, const char *topic, int32_t index);
lr_npart *lr_node_part_by_id(logrep_node *n, const uint8_t id[16], int32_t index);
/* Adds parts[n_parts - 1] to the index (call right after appending it). */
int lr_node_part_indexed(logrep_node *n);
/* Closes parts[i] and drops it from the array and the index. */
void lr_node_part_remove(logrep_node *n, size_t i);
lr_peer *lr_node_peer(logrep_node *n, int32_t node_id, int channel);
/* Sends n->out to a peer, remembering the request. ctx is kept. */
int lr_node_send_request(logrep_node *n, lr_peer *p, int kind, void *ctx, int64_t now_ms);

/* ---- handlers.c: client and peer requests ---- */
/* n->req holds the decoded request; frame is its bytes (kept by requests
 * that wait or are forwarded). */
int lr_handle_request(logrep_node *n, lr_conn *c, const uint8_t *frame, size_t flen,
                      int64_t now_ms);
void lr_deferred_poll(logrep_node *n, int64_t now_ms, int force);
/* The earliest parked request's deadline (fetch max wait, admin timeout);
 * now_ms when a produce is ready to answer; INT64_MAX when none. */
/* Records that partition p's data, HW or leadership changed (NULL: any
 * partition), so parked fetches on it run again. */
void lr_node_part_changed(logrep_node *n, lr_npart *p);
/* The same for the controller's metadata log. */
void lr_node_metadata_changed(logrep_node *n);
int64_t lr_deferred_deadline(const logrep_node *n, int64_t now_ms);
/* Moves p's produce completions into the deferred requests awaiting them. */
void lr_deferred_collect(logrep_node *n, lr_npart *p);
void lr_deferred_drop_conn(logrep_node *n, lr_conn *c);
void lr_deferred_free_all(logrep_node *n);

/* ---- broker.c: metadata, registration, replica fetching ---- */
void lr_broker_tick(logrep_node *n, int64_t now_ms);
/* When the broker role next has timed work (heartbeat, metadata fetch,
 * registration, replica fetches); INT64_MAX when none. */
int64_t lr_broker_deadline(logrep_node *n, int64_t now_ms);
int lr_broker_response(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms);
void lr_broker_request_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms);
int lr_broker_apply_metadata(logrep_node *n, int64_t now_ms);

/* ---- topicdirs.c: retiring partition directories ---- */
/* Renames log_dir/<topic>-<index> to its -delete name (id: the deleted
 * topic's id) or, id NULL, a -stray name; durable on return, removed by
 * lr_dirs_tick after file.delete.delay.ms. 0 or a storage error. */
int lr_dirs_retire(logrep_node *n, const char *topic, int32_t index, const uint8_t id[16],
                   int64_t now_ms);
/* Removes retired directories that are due; on the first call schedules
 * those a previous run left behind. */
void lr_dirs_tick(logrep_node *n, int64_t now_ms);
/* Retires every partition directory this node does not host; sets
 * strays_scanned when done. Call only with every assigned part open. */
void lr_dirs_scan_strays(logrep_node *n, int64_t now_ms);
void lr_dirs_free(logrep_node *n);

/* ---- control.c: the controller role ---- */
int lr_nctl_new(logrep_node *n, int64_t now_ms);
/* Closes the role; abandon: write nothing (a crash, or a stopped role). */
void lr_nctl_free(logrep_node *n, int abandon);
/* Returns when the controller role next needs a tick. */
int64_t lr_nctl_tick(logrep_node *n, int64_t now_ms);
/* Controller counters into the node's stats. */
void lr_nctl_stats(const logrep_node *n, logrep_node_stats *out);
/* Handles a controller API request in n->req; 1 if handled (answered or
 * failed), 0 when it is not a controller request. */
int lr_nctl_handle(logrep_node *n, lr_conn *c, int64_t now_ms, int *err);
/* The controller state machine, and a result as a wire error code. */
struct lr_ctl *lr_nctl_ctl(logrep_node *n);
int16_t lr_nctl_code(int err);
/* ---- listener.c: what each listener serves ---- */
enum { LR_ROLE_BROKER = 1, LR_ROLE_CONTROLLER = 2 };
/* LR_ROLE_* whose APIs connection c is served. */
int lr_node_conn_roles(const logrep_node *n, const lr_conn *c);
/* 1 when api is served on c (else Kafka closes the connection). */
int lr_node_serves(const logrep_node *n, const lr_conn *c, int api);
/* Sets the ApiKeys of the ApiVersions response in n->resp to what c is served. */
int lr_node_fill_api_versions(logrep_node *n, const lr_conn *c);
/* 1 when a ClusterId a peer sent is this cluster's, or was not sent. */
int lr_node_cluster_id_ok(const logrep_node *n, const char *p, int32_t len);
/* ---- configs.c: DescribeConfigs ---- */
int lr_handle_describe_configs(logrep_node *n, lr_conn *c);
struct lr_ctl_config;
/* CreateTopics v5+: every topic config of a topic created with overrides
 * cfg, with its effective value and source, into rt's Configs. */
int lr_create_topic_configs(logrep_node *n, logrep_struct *rt, const struct lr_ctl_config *cfg,
                            size_t n_cfg);
/* ---- admin.c: CreateTopics on the controller ---- */
int lr_nctl_create_topics(logrep_node *n, lr_conn *c);
/* Metadata log fetch for the Fetch handler. */
logrep_err lr_nctl_fetch_metadata(logrep_node *n, int64_t offset, uint64_t max_bytes,
                                  logrep_log_slice *slice, int64_t *hw, int64_t *log_start);
/* The controller's image (NULL without the controller role, or once it
 * stopped); read-only, for the simulator's checker. */
const lr_md_image *lr_nctl_image(const logrep_node *n);
/* Nonzero once a metadata write failed: the controller role is stopped. */
int lr_nctl_failed(const logrep_node *n);
/* Writes a topic ConfigRecord (value NULL deletes), as AlterConfigs
 * would; 0, NOT_CONTROLLER or the controller's error. */
int lr_nctl_set_topic_config(logrep_node *n, const char *topic, const char *name,
                             const char *value);
/* 1 when id is KRaft's metadata topic id. */
int lr_is_metadata_topic(const uint8_t id[16]);
int lr_node_forward_admin(logrep_node *n, const uint8_t *frame, size_t len, void *d,
                          int64_t now_ms);
int lr_node_forward_create(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                           int64_t now_ms);
int lr_node_take_producer_id(logrep_node *n, int64_t now_ms, int64_t *pid);
void lr_node_admin_done(logrep_node *n, void *ctx, int64_t now_ms);

#endif
