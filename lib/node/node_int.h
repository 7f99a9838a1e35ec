/* Node internals: the node handle, made of one sub-struct per concern,
 * each owned by one file of lib/node (docs/node.md).
 *
 *   node.c         the handle: create, free, the event entry points, tick
 *   conn.c         inbound connections, responses in request order
 *   peer.c         outbound connections, requests in flight
 *   park.c         parked requests and what wakes them
 *   dispatch.c     which API is served on which listener, and by whom
 *   lifecycle.c    registration, heartbeats, fencing, controlled shutdown
 *   mdfollow.c     following the controller's metadata log; mdsnap.c
 *                  loading its snapshot when behind its log start
 *   parts.c        hosted partitions: opening, configs, leadership
 *   fetcher.c      the replica fetcher and ISR change proposals
 *   producer_ids.c producer id blocks and InitProducerId
 *   groups.c       the group coordinator: its offsets partitions, appends,
 *                  FindCoordinator; api_group*.c, api_commit.c its APIs
 *   topicdirs.c    retiring partition directories
 *   events.c       the event queue of in-process calls (logrep_node_poll);
 *                  inproc_data.c, inproc_admin.c and groups_api.c its calls
 *   api_*.c        one file per broker API family; configs.c DescribeConfigs
 *   ctl_role.c     the controller role; ctl_api.c, ctl_create.c its APIs
 *   ctl_quorum.c   the role as a voter of a metadata quorum; ctl_qwire.c
 *                  its messages, ctl_hold.c answers waiting for commits
 *   voters.c       controller.quorum.voters, and which controller to ask
 */
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
#include <logrep/inproc.h>
#include <logrep/log.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include "node/conn.h"
#include "node/park.h"
#include "node/peer.h"
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
    uint32_t ineligible;          /* with it: replicas fenced or shutting down, by position */
    uint64_t conf_hash;           /* topic configs the log was given */
    int64_t fetch_after;          /* replica.fetch.backoff.ms after an error */
    uint64_t changed_seq;         /* the park's seq when its data last changed */
    int codec;                    /* compression.type: -1 producer, else LOGREP_COMPRESSION_* */
    int codec_level;              /* compression.<codec>.level, 0 for snappy/none */
} lr_npart;

/* Hosted partitions (parts.c). */
typedef struct lr_parts {
    lr_npart *v;
    size_t n, cap;
    lr_hashmap index; /* (topic id, partition) -> position in v */
    uint64_t applies; /* lr_parts_apply calls: roles may have changed */
} lr_parts;

/* The broker's view of the cluster, from the metadata log (mdfollow.c). */
typedef struct lr_mdview {
    lr_md_image *img;
    int64_t fetch_after; /* backoff for the metadata fetch */
    int fetching;
    int apply_retry;     /* partitions must be brought in line with img */
    int64_t apply_after; /* an apply that failed on storage: retried then */
    struct lr_mdsnap *snap; /* a controller's snapshot being loaded (mdsnap.c) */
    uint64_t snap_seq;
} lr_mdview;

/* The broker's life with the controller (lifecycle.c). */
typedef struct lr_life {
    int64_t broker_epoch; /* -1 until registered */
    int registering;
    int64_t last_heartbeat;
    int heartbeat_in_flight;
    int64_t hb_offset;    /* metadata offset the last heartbeat reported */
    int fenced;
    int shutting_down;
    int shutdown_asked;   /* a heartbeat with WantShutDown went out */
    /* The active controller changed (lr_voters_learn: 1, at once) or a
     * voter refused (lr_voters_next: 2, after a short pause): heartbeat
     * the new one early, since its takeover started our session there. */
    int hb_redirect;
    int shutdown_done;
    int64_t previous_clean_epoch; /* from the clean-shutdown marker, -1 none */
} lr_life;

/* The producer id block InitProducerId hands out (producer_ids.c). */
typedef struct lr_pids {
    int64_t next, end;
    int requesting;
} lr_pids;

/* A retired partition directory awaiting removal (topicdirs.c). */
typedef struct lr_retired {
    char *name; /* under log_dir */
    int64_t due_ms;
} lr_retired;

typedef struct lr_dirs {
    lr_retired *v;
    size_t n, cap;
    int scanned;        /* retired names left by the last run found */
    int strays_scanned; /* the first full metadata apply looked for strays */
} lr_dirs;

/* The produce path's state (api_produce.c). */
typedef struct lr_produce {
    logrep_batch_reader *rezip; /* compression.type recompression */
    uint64_t token_seq;         /* tells parked produces apart */
} lr_produce;

/* The log cleaner's schedule (cleaning.c). */
typedef struct lr_cleaning {
    int enabled;         /* log.cleaner.enable */
    uint64_t tick_bytes; /* logrep.cleaner.tick.bytes */
    int64_t backoff_ms;  /* log.cleaner.backoff.ms */
    int64_t next_ms;     /* when to look for work again */
    size_t cursor;       /* round robin over parts.v */
    int active;          /* a pass is under way on (topic_id, index) */
    uint8_t topic_id[16];
    int32_t index;
    int64_t errors;      /* passes given up on a storage error */
} lr_cleaning;

/* One `__consumer_offsets` partition as the coordinator sees it (groups.c). */
typedef struct lr_gpart {
    int state;            /* LR_GP_* */
    int32_t leader_epoch; /* of the leadership being loaded or served */
    int64_t load_next;    /* replay position */
    int64_t load_end;     /* the log end when loading began */
} lr_gpart;

enum { LR_GP_NONE = 0, LR_GP_LOADING, LR_GP_LOADED };

/* An offsets append under way: the partition's completion carries token. */
typedef struct lr_gappend {
    int32_t partition;
    uint64_t append_id;
    uint64_t token;
    int done; /* completed, to be reported */
    int err;
} lr_gappend;

/* The group coordinator's adapter (groups.c). */
typedef struct lr_groups {
    struct lr_gc *gc;           /* NULL without the broker role */
    logrep_batch_builder *b;    /* offsets batches */
    logrep_batch_reader *rd;    /* replay */
    logrep_msg *out;            /* answers built from the coordinator's callbacks */
    logrep_msg *in;             /* a parked request decoded again to answer it */
    void *arena;                /* C strings of the request being handled */
    lr_gpart *parts;            /* by offsets partition */
    int32_t n_parts;
    lr_gappend *appends;
    size_t n_appends, cap_appends;
    uint64_t token_seq, cookie_seq;
    int64_t now;                /* of the coordinator call under way */
    int64_t create_after;       /* next creation request of the offsets topic */
    uint8_t *load_buf;
    size_t load_cap;
    uint64_t seen_applies;      /* parts.applies when leadership was last followed */
    int seen_shutting_down;
    int track_again;            /* a load or append failed: look again */
} lr_groups;

/* One in-process call (include/logrep/inproc.h) from its start to the
 * poll that hands it to the host (events.c). The concern that started it
 * fills ev and completes it; until then it is pending, found again by
 * its (type, key) when it has a key. */
typedef struct lr_evt {
    struct lr_evt *prev, *next; /* the pending list; the done queue uses next */
    logrep_node_event ev;       /* what the host gets; its pointers view own */
    uint64_t key;               /* the concern's (0: none): a commit's cookie, a produce's token */
    int64_t count;              /* the concern's: the records of a produce's batch */
    void *own;                  /* bytes ev points at (errors, records) */
    size_t own_len;
} lr_evt;

/* The event queue of in-process calls (events.c). */
typedef struct lr_events {
    lr_evt *pending;     /* started, not completed */
    lr_hashmap by_key;   /* (type, key) -> a pending lr_evt */
    lr_evt *head, *tail; /* completed, oldest completion first */
    lr_evt *polled;      /* the last one taken: its pointers live until the next poll */
    uint64_t key_seq;    /* lr_evt_new_key */
} lr_events;

struct lr_ctl_role;

/* One controller of controller.quorum.voters. */
typedef struct lr_voter {
    int32_t id;
    char *host;
    int32_t port;
} lr_voter;
#define LR_MAX_VOTERS 16

struct logrep_node {
    lr_alloc alloc;
    lr_log logger;
    logrep_conf *conf;
    const logrep_storage *st;
    logrep_transport tr;
    lr_prng rng;

    /* Identity and configuration. */
    int32_t id;
    int is_broker;
    int is_controller;
    char *log_dir;
    char *rack;
    char *adv_host;
    int32_t adv_port;
    lr_voter *voters; /* controller.quorum.voters (voters.c) */
    size_t n_voters;
    int32_t ctl_id;   /* the controller this node asks: the active one as far as it knows */

    lr_conns conns;
    lr_peers peers;
    lr_park park;
    lr_mdview md;
    lr_life life;
    lr_parts parts;
    lr_dirs dirs;
    lr_pids pids;
    lr_produce produce;
    lr_cleaning cleaning;
    lr_groups groups;
    lr_events events;
    struct lr_ctl_role *ctl; /* ctl_role.c; NULL without the role */

    /* The request being handled and its answer (dispatch.c); handlers get
     * them through lr_req, never from here. */
    logrep_msg *req;
    logrep_msg *resp;

    int64_t next_retention_ms; /* next log.retention.check.interval.ms check */
    logrep_node_stats stats;
};

/* ---- node.c ---- */
/* The inbound connection with this id (created when create is set); one
 * the node closed itself is dropped first, should the host reuse its id.
 * NULL when out of memory or absent. */
lr_conn *lr_node_conn_for(logrep_node *n, uint64_t id, int create);
/* After input that may have moved data or a HW, when requests or
 * in-process calls wait: produce completions to those waiting, then every
 * parked request that may be done. */
void lr_node_wake(logrep_node *n, int64_t now_ms);

/* ---- events.c: the event queue of in-process calls ---- */
void lr_events_init(logrep_node *n);
/* Starts an in-process call's event of `type` for the caller's token:
 * pending, its other fields 0 / NULL / -1. A nonzero key finds it again
 * (lr_evt_find) until it completes. NULL when out of memory. */
lr_evt *lr_evt_start(logrep_node *n, int type, uint64_t token, uint64_t key);
/* The pending event of (type, key), or NULL. */
lr_evt *lr_evt_find(logrep_node *n, int type, uint64_t key);
/* len bytes (not zeroed) the event's pointers may view, freed with the event;
 * NULL when out of memory. One allocation per event. */
void *lr_evt_alloc(logrep_node *n, lr_evt *e, size_t len);
/* Completes e with error: queued for logrep_node_poll, after those
 * completed before it. */
void lr_evt_done(logrep_node *n, lr_evt *e, int error);
/* Withdraws a pending e: its call returns an error and no event. */
void lr_evt_cancel(logrep_node *n, lr_evt *e);
/* 1 when logrep_node_poll has an event to give. */
int lr_events_ready(const logrep_node *n);
/* 1 when an in-process call waits on the node. */
int lr_events_pending(const logrep_node *n);
/* Frees every event, pending, queued and polled. */
void lr_events_free(logrep_node *n);
/* A new nonzero key for an in-process call's event, below bit 62. */
uint64_t lr_evt_new_key(logrep_node *n);

/* ---- inproc_data.c: in-process produce, fetch, list offsets ---- */
/* Produce tokens with this bit are in-process produces' appends. */
#define LR_INPROC_TOKEN (UINT64_C(1) << 62)
/* A completion of an in-process acks=all produce (token has
 * LR_INPROC_TOKEN): its event completes. */
void lr_inproc_produce_done(logrep_node *n, const lr_produce_res *r);

/* ---- dispatch.c: requests ---- */
enum { LR_ROLE_BROKER = 1, LR_ROLE_CONTROLLER = 2 };

/* A request being handled. */
typedef struct lr_req {
    lr_conn *conn;
    logrep_msg *msg;      /* decoded; valid for the call only */
    logrep_msg *resp;     /* the answer to build */
    const uint8_t *frame; /* its bytes, for requests that wait or are forwarded */
    size_t len;
    int roles;            /* LR_ROLE_* served on conn */
    int64_t now_ms;
    struct lr_slot *slot; /* reserved at arrival (a deferred request); NULL: the next */
    int ctl;              /* handled by the controller: its answer may wait for a commit */
} lr_req;

/* Handles the request decoded in n->req. An error means it could not be
 * answered: the caller closes the connection. */
int lr_dispatch(logrep_node *n, lr_conn *c, const uint8_t *frame, size_t flen, int64_t now_ms);
/* 1 when api is served on c (else Kafka closes the connection). */
int lr_node_serves(const logrep_node *n, const lr_conn *c, int api);
/* LR_ROLE_* whose APIs connection c is served. */
int lr_node_conn_roles(const logrep_node *n, const lr_conn *c);
/* Starts r->resp as the answer to r->msg. */
int lr_req_init(const lr_req *r);
/* Sends r->resp now, in r->slot or else r->conn's next slot. */
int lr_req_answer(logrep_node *n, const lr_req *r);
/* A local result as a wire error code (local failures are
 * UNKNOWN_SERVER_ERROR on the wire). */
int16_t lr_wire_code(int err);

/* ---- voters.c: controller.quorum.voters ---- */
/* Parses "id@host:port[,...]" into n->voters; ctl_id := the first. 0,
 * INVALID_CONF (reason in err) or NOMEM. */
int lr_voters_parse(logrep_node *n, const char *v, char *err, size_t esz);
void lr_voters_free(logrep_node *n);
const lr_voter *lr_voter_get(const logrep_node *n, int32_t id);
/* 1 when this node is one of the voters. */
int lr_voters_is_self(const logrep_node *n);
/* A voter named the active controller: ask it from now on. */
void lr_voters_learn(logrep_node *n, int32_t leader);
/* Voter `failed` refused (NOT_CONTROLLER) or could not be reached: when
 * it is the one this node asks, ask the next voter in turn. */
void lr_voters_next(logrep_node *n, int32_t failed);

/* ---- listener.c ---- */
/* 1 when a ClusterId a peer sent is this cluster's, or was not sent. */
int lr_node_cluster_id_ok(const logrep_node *n, const char *p, int32_t len);

/* ---- parts.c: hosted partitions ---- */
void lr_parts_init(logrep_node *n);
lr_npart *lr_node_part(logrep_node *n, const char *topic, int32_t index);
lr_npart *lr_node_part_by_id(logrep_node *n, const uint8_t id[16], int32_t index);
/* The partition a client names (len bytes at p, not NUL-terminated);
 * NULL when not hosted, or a name no client topic has. */
lr_npart *lr_part_named(logrep_node *n, const char *p, int32_t len, int32_t index);
/* The topic a client names, or NULL. */
const lr_md_topic *lr_topic_named(logrep_node *n, const char *p, int32_t len);
/* INVALID_TOPIC_EXCEPTION for a name no topic can have or that would
 * collide with an existing one, else 0. */
int16_t lr_bad_name_error(logrep_node *n, const char *p, int32_t len);
/* The error for a partition this node does not host. */
int16_t lr_missing_part_error(logrep_node *n, const char *p, int32_t len, int32_t index);
/* Brings hosted partitions in line with the image: closes those of deleted
 * topics, opens newly assigned ones (a bounded number per call), applies
 * configs and leadership. Sets md.apply_retry when work is left. */
void lr_parts_apply(logrep_node *n, int64_t now_ms);
/* Ticks every partition and its log; retention when due. */
void lr_parts_tick(logrep_node *n, int64_t now_ms, int64_t *next);
/* The earliest deadline of a partition's replica state (after the tick). */
int64_t lr_parts_deadline(const logrep_node *n, int64_t now_ms);
void lr_parts_free(logrep_node *n, int abandon);

/* ---- cleaning.c: log compaction on the tick ---- */
void lr_cleaning_init(logrep_node *n);
void lr_cleaning_tick(logrep_node *n, int64_t now_ms, int64_t *next);

/* ---- mdfollow.c: the metadata log, followed ---- */
/* 1 when id is KRaft's metadata topic id. */
int lr_is_metadata_topic(const uint8_t id[16]);
void lr_md_follow_tick(logrep_node *n, int64_t now_ms);
int64_t lr_md_follow_deadline(const logrep_node *n, int64_t now_ms);

/* ---- mdsnap.c: a broker loading the controller's snapshot ---- */
/* A metadata fetch was answered with SnapshotId (end, epoch): load it. */
void lr_mdsnap_begin(logrep_node *n, int64_t end, int32_t epoch, int64_t now_ms);
/* 1 while a snapshot is being loaded (the metadata fetch waits): sends
 * its next FetchSnapshot when none is out. */
int lr_mdsnap_tick(logrep_node *n, int64_t now_ms);
int64_t lr_mdsnap_deadline(const logrep_node *n, int64_t now_ms);
/* Throws a load under way away (NULL-safe). */
void lr_mdsnap_free(logrep_node *n);

/* ---- lifecycle.c ---- */
/* The controller's control-channel peer (NULL when out of memory). */
lr_peer *lr_life_controller(logrep_node *n);
/* Registers, heartbeats, finishes a controlled shutdown; 1 once the broker
 * is registered (the rest of the broker may run). */
int lr_life_tick(logrep_node *n, int64_t now_ms);
int64_t lr_life_deadline(const logrep_node *n, int64_t now_ms);

/* ---- fetcher.c ---- */
void lr_fetcher_tick(logrep_node *n, int64_t now_ms);
int64_t lr_fetcher_deadline(const logrep_node *n, int64_t now_ms);

/* ---- producer_ids.c ---- */
int lr_api_init_producer_id(logrep_node *n, const lr_req *r);

/* ---- topicdirs.c: retiring partition directories ---- */
/* Renames log_dir/<topic>-<index> to its -delete name (id: the deleted
 * topic's id) or, id NULL, a -stray name; durable on return, removed by
 * lr_dirs_tick after file.delete.delay.ms. 0 or a storage error. */
int lr_dirs_retire(logrep_node *n, const char *topic, int32_t index, const uint8_t id[16],
                   int64_t now_ms);
/* Removes retired directories that are due; on the first call schedules
 * those a previous run left behind. */
void lr_dirs_tick(logrep_node *n, int64_t now_ms);
int64_t lr_dirs_deadline(const logrep_node *n, int64_t now_ms);
/* Retires every partition directory this node does not host; sets
 * strays_scanned when done. Call only with every assigned part open. */
void lr_dirs_scan_strays(logrep_node *n, int64_t now_ms);
void lr_dirs_free(logrep_node *n);

/* ---- api_*.c, configs.c: the broker's APIs ---- */
int lr_api_versions(logrep_node *n, const lr_req *r);
int lr_api_metadata(logrep_node *n, const lr_req *r);
int lr_api_produce(logrep_node *n, const lr_req *r);
/* Appends one partition's batch as Produce does (the same lookups, checks
 * and codec), the bytes copied; len bytes of name (not NUL-terminated).
 * res->parked: it completes later with token (lr_produce_collect).
 * *records gets the batch's record count. */
void lr_produce_one(logrep_node *n, const char *name, int32_t len, int32_t index,
                    const uint8_t *recs, size_t rlen, int16_t acks, int64_t timeout,
                    uint64_t token, int64_t now_ms, lr_produce_res *res, int32_t *records);
/* The base offset a produce answer gives: -1 on an error other than
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND. */
int64_t lr_produce_base_offset(const lr_produce_res *res);
/* Moves every partition's produce completions into the parked produces. */
void lr_produce_collect(logrep_node *n);
/* Moves p's (before p is closed). */
void lr_produce_collect_part(logrep_node *n, lr_npart *p);
int lr_api_fetch(logrep_node *n, const lr_req *r);
/* Fetches from hosted partition p (lr_partition_fetch); a fetch that
 * moved the HW wakes those parked on p. */
void lr_fetch_part(logrep_node *n, lr_npart *p, const lr_fetch_req *fr, int64_t now_ms,
                   lr_fetch_res *res);
/* Reads a log slice's bytes into dst (sl->length of them): 0 or the
 * storage's error. */
int lr_slice_read(logrep_node *n, const logrep_log_slice *sl, void *dst);
int lr_api_list_offsets(logrep_node *n, const lr_req *r);
int lr_api_epoch_end(logrep_node *n, const lr_req *r);
int lr_api_describe_configs(logrep_node *n, const lr_req *r);
/* CreateTopics/DeleteTopics on a broker: forwarded to the controller. */
int lr_api_forward_admin(logrep_node *n, const lr_req *r);
/* Asks the controller to create a topic (auto-creation, the offsets
 * topic) with configs (name, value pairs ending with NULL; NULL for
 * none); AGAIN when it cannot be asked now. */
int lr_admin_create_topic(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                          const char *const *configs, int64_t now_ms);
/* Builds in n->peers.out a CreateTopics v5 of one topic for the
 * controller, with n_configs configs names[i * stride] = values[i *
 * stride] (a NULL value is null). 0 or NOMEM. */
int lr_admin_create_request(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                            const char *const *names, const char *const *values, size_t stride,
                            size_t n_configs, int32_t timeout_ms);
/* Sets the ApiKeys of r->resp to what r->conn is served. */
int lr_fill_api_versions(logrep_node *n, const lr_req *r);

/* ---- groups.c: the group coordinator ---- */
#define LR_OFFSETS_TOPIC "__consumer_offsets"
/* Produce tokens with this bit are the coordinator's appends. */
#define LR_GROUP_TOKEN (UINT64_C(1) << 63)
int lr_groups_init(logrep_node *n);
void lr_groups_free(logrep_node *n);
/* Loads and unloads offsets partitions as leadership moves, reports
 * completed appends, runs the coordinator's timers. */
void lr_groups_tick(logrep_node *n, int64_t now_ms);
int64_t lr_groups_deadline(const logrep_node *n, int64_t now_ms);
/* A completion of one of the coordinator's appends (token has
 * LR_GROUP_TOKEN); reported to it at the next lr_groups_flush. */
void lr_groups_completion(logrep_node *n, const lr_produce_res *r);
/* Reports completed appends to the coordinator. */
void lr_groups_flush(logrep_node *n, int64_t now_ms);
int lr_api_find_coordinator(logrep_node *n, const lr_req *r);
/* FindCoordinator for one group, in process: the coordinator's node id
 * (-1 with the error), asking for the offsets topic when it is missing. */
int lr_groups_coordinator(logrep_node *n, const char *group, int64_t now_ms, int32_t *node_id);
/* The request's string field as a C string in the request's arena; NULL
 * when null, absent, holding a NUL, or out of memory (*nomem set). */
const char *lr_gstr(logrep_node *n, const logrep_struct *s, lr_fname f, int *nomem);
/* The same for len bytes at p. */
const char *lr_gcstr(logrep_node *n, const void *p, int32_t len, int *nomem);
void *lr_garena_alloc(logrep_node *n, size_t size);
/* groups_api.c: 1 when a is the answer of an in-process request. */
struct lr_gc_answer;
int lr_groups_inproc_answer(logrep_node *n, const struct lr_gc_answer *a);
/* Starts a request: the arena is emptied, the time set. */
void lr_groups_begin(logrep_node *n, int64_t now_ms);

/* A group request waiting for the coordinator's answers (one cookie per
 * answer). */
struct lr_gpark;
struct lr_gc_answer;
typedef void (*lr_gpark_answer_fn)(logrep_node *n, struct lr_gpark *g, size_t i,
                                   const struct lr_gc_answer *a);
typedef struct lr_gpark {
    lr_parked base;
    lr_gpark_answer_fn answer;
    uint64_t cookie0;
    size_t n_cookies;
    size_t outstanding;
    int16_t *errs;      /* n_errs per-item errors the answers fill in */
    size_t n_errs;
    int16_t top_error;  /* a request-level error, for APIs that have one */
    uint8_t *frame;     /* the request, to build the answer from */
    size_t frame_len;
    int done;           /* answered (or given up): freed at the next poll */
} lr_gpark;
/* Parks r with n_cookies cookies from g->cookie0, n_errs errors set to
 * -1, and a copy of its frame when keep_frame. NULL when out of memory
 * (nothing parked). */
lr_gpark *lr_gpark_new(logrep_node *n, const lr_req *r, lr_gpark_answer_fn fn, size_t n_cookies,
                       size_t n_errs, int keep_frame);
/* Starts g's answer in n->groups.out; -1 (g given up) on failure. */
int lr_gpark_start(logrep_node *n, lr_gpark *g, int api);
/* Sends n->groups.out as g's answer and marks it done. */
void lr_gpark_finish(logrep_node *n, lr_gpark *g);
/* No answer can be given: closes the connection (the client retries). */
void lr_gpark_give_up(logrep_node *n, lr_gpark *g);
/* After the coordinator took a cookie: a local error means no answer
 * comes, so the request is given up. Returns 0. */
int lr_gpark_result(logrep_node *n, lr_gpark *g, int err);
/* Decodes g's saved request into n->groups.in (NULL on failure). */
logrep_struct *lr_gpark_request(logrep_node *n, lr_gpark *g);
/* Sets a nullable string field (NULL: null). */
void lr_f_set_nstr(logrep_struct *s, lr_fname f, const char *v);

/* ---- api_group.c, api_commit.c, api_group_admin.c ---- */
int lr_api_join_group(logrep_node *n, const lr_req *r);
int lr_api_sync_group(logrep_node *n, const lr_req *r);
int lr_api_heartbeat(logrep_node *n, const lr_req *r);
int lr_api_leave_group(logrep_node *n, const lr_req *r);
int lr_api_offset_commit(logrep_node *n, const lr_req *r);
int lr_api_offset_fetch(logrep_node *n, const lr_req *r);
int lr_api_offset_delete(logrep_node *n, const lr_req *r);
int lr_api_list_groups(logrep_node *n, const lr_req *r);
int lr_api_describe_groups(logrep_node *n, const lr_req *r);
int lr_api_delete_groups(logrep_node *n, const lr_req *r);

/* ---- ctl_role.c: the controller role ---- */
int lr_nctl_new(logrep_node *n, int64_t now_ms);
/* Closes the role; abandon: write nothing (a crash, or a stopped role). */
void lr_nctl_free(logrep_node *n, int abandon);
/* Returns when the controller role next needs a tick. */
int64_t lr_nctl_tick(logrep_node *n, int64_t now_ms);
/* Controller counters into the node's stats. */
void lr_nctl_stats(const logrep_node *n, logrep_node_stats *out);
/* The controller state machine (the role must be up), with the time of
 * the event being handled set for its records. */
struct lr_ctl *lr_nctl_ctl(logrep_node *n);
struct lr_ctl *lr_nctl_at(logrep_node *n, int64_t now_ms);
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

/* ---- ctl_quorum.c: the controller as a voter of the metadata quorum ---- */
/* 1 when the controller role is a voter of a quorum (two or more voters). */
int lr_nctl_quorum(const logrep_node *n);
/* 1 when this node's controller answers controller requests: it has the
 * role, has not failed, and (with a quorum) is the active controller. */
int lr_nctl_serving(const logrep_node *n);
/* 1 unless this node leads the controller quorum and is shutting down
 * without having handed the leadership over yet (ctl_handover.c). */
int lr_nctl_handed_over(const logrep_node *n);
/* A broker's metadata fetch served here (its broker epoch and fetch
 * offset): the active controller lists a broker that is not a voter among
 * the quorum's observers (DescribeQuorum). */
void lr_nctl_observed(logrep_node *n, int64_t broker_epoch, int64_t fetch_offset,
                      int64_t now_ms);
/* With a quorum: the offset below which the image holds the committed
 * log (-1 without one). */
int64_t lr_nctl_committed(const logrep_node *n);
/* The quorum's leader (-1 unknown or without a quorum) and epoch. */
int32_t lr_nctl_quorum_leader(const logrep_node *n, int32_t *epoch);
/* Acts on what the last event did to the quorum (no-op without one). */
void lr_nctl_pump(logrep_node *n, int64_t now_ms);
/* Vote, Begin/EndQuorumEpoch, DescribeQuorum, and a voter's Fetch of the
 * metadata log (ctl_qwire.c): 1 when r is not the quorum's (a Fetch
 * that is not a voter's), else 0 or the error that closes r's
 * connection. */
int lr_ctl_api_quorum(logrep_node *n, const lr_req *r);
/* ctl_hold.c: 1 when the answer of r (a controller request) must wait
 * for records not committed yet; it is then kept and sent once they
 * commit, and *err is 0 or the error that closes the connection. */
int lr_nctl_hold(logrep_node *n, const lr_req *r, int *err);

/* ---- ctl_api.c, ctl_create.c, ctl_alter.c: the controller's APIs ---- */
int lr_ctl_api_registration(logrep_node *n, const lr_req *r);
int lr_ctl_api_heartbeat(logrep_node *n, const lr_req *r);
int lr_ctl_api_alter_partition(logrep_node *n, const lr_req *r);
int lr_ctl_api_delete_topics(logrep_node *n, const lr_req *r);
int lr_ctl_api_allocate_pids(logrep_node *n, const lr_req *r);
int lr_ctl_api_create_topics(logrep_node *n, const lr_req *r);
/* CreateTopics of one topic on this node's controller, with the checks,
 * bound and records of lr_ctl_api_create_topics: 0, the topic's Kafka
 * error, or a local failure. */
int lr_ctl_create_one(logrep_node *n, const char *name, int32_t partitions, int32_t rf,
                      const char *const *names, const char *const *values, size_t n_configs,
                      int64_t now_ms);
/* DeleteTopics of the topic named by len bytes at p on this node's
 * controller: 0 or the topic's error. */
int lr_ctl_delete_named(logrep_node *n, const char *p, size_t len, int64_t now_ms);
/* ctl_alter.c */
int lr_ctl_api_alter_configs(logrep_node *n, const lr_req *r);
int lr_ctl_api_incremental_alter_configs(logrep_node *n, const lr_req *r);
struct lr_ctl_config;
/* CreateTopics v5+: every topic config of a topic created with overrides
 * cfg, with its effective value and source, into rt's Configs. */
int lr_create_topic_configs(logrep_node *n, logrep_struct *rt, const struct lr_ctl_config *cfg,
                            size_t n_cfg);

#endif
