/* Simulator internals shared by the files of lib/sim. */
#ifndef LR_SIM_INT_H
#define LR_SIM_INT_H

#include <stdint.h>

#include "base/prng.h"
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/sim.h>
#include <logrep/storage.h>
#include "sim/memnet.h"

#define LR_SIM_MAXN 9          /* brokers + controllers */
#define LR_SIM_MAXP 8          /* partitions */
#define LR_SIM_ACTOR0 1000     /* owner ids of actors start here */
#define LR_SIM_TOPIC "t"
#define LR_SIM_MAXG 4          /* consumer groups ("g0".."g3") */
#define LR_SIM_OFFSETS_PARTS 3 /* offsets.topic.num.partitions of the nodes */
#define LR_SIM_OFFSETS_TOPIC "__consumer_offsets"
#define LR_SIM_GM_IDLEN 128    /* member ids */
#define LR_SIM_GM_MAXMEM 16    /* members one leader assigns */

/* The event queue: ticks, actor timers and the network's messages. */
enum { EV_TICK = 1, EV_NET = 2, EV_ACTOR = 4 };

typedef struct lr_sim_ev {
    int64_t t;
    uint64_t seq;
    int kind;
    int32_t who;       /* node id or actor owner id */
    uint32_t inc;      /* TICK: the node incarnation it was made for */
    lr_memnet_msg *msg; /* NET (owned); its extra holds lr_sim_served */
} lr_sim_ev;

/* Per frame from a node to a client: the node's leader epoch of each
 * partition when it answered (-1 none), not when the answer lands. */
typedef struct lr_sim_served {
    int32_t epoch[LR_SIM_MAXP];
} lr_sim_served;

typedef struct lr_sim_link {
    int32_t lat_min, lat_max, reset_ppm;
} lr_sim_link;

typedef struct lr_sim_nodectx {
    struct logrep_sim *sim;
    int32_t id;
} lr_sim_nodectx;

/* A parsed replica log, cached per (node, partition). */
typedef struct lr_sim_rlog {
    uint64_t key_ops;  /* storage op count when parsed */
    int64_t key_leo, key_start;
    uint32_t key_inc;
    int valid;
    int64_t start, leo;
    uint64_t *ids;     /* ids[o - start], 0 for a control record/unknown */
    int32_t *epochs;   /* batch epoch per offset */
    size_t cap;
} lr_sim_rlog;

/* A client actor (producer, consumer, or one-shot request). */
enum { ACT_PRODUCER = 1, ACT_CONSUMER = 2, ACT_ONESHOT = 3, ACT_GROUP = 4 };
enum { AS_IDLE = 0, AS_META, AS_INIT, AS_PRODUCE, AS_FETCH, AS_LIST, AS_DONE, AS_GROUP };

/* A consumer group member (ACT_GROUP; group_client.c). */
enum { GM_JOIN = 1, GM_SYNC, GM_OFETCH, GM_STABLE, GM_GONE };

typedef struct lr_sim_gm {
    int32_t group;               /* index: group id "g<index>" */
    char group_id[16];
    char member_id[LR_SIM_GM_IDLEN];
    int32_t generation;          /* -1 none */
    int is_leader;
    char protocol[16];           /* the selected assignor */
    int phase;                   /* GM_* */
    int32_t coord;               /* coordinator node, -1 unknown */
    int16_t v_find, v_join, v_sync, v_hb, v_leave, v_commit, v_ofetch;
    int require_stable;
    int roundrobin_first;        /* its protocols' order */
    int32_t session_ms, rebalance_ms, hb_ms, commit_ms, interval;
    int64_t next_hb, next_commit;
    int64_t die_at, leave_at;    /* INT64_MAX: never */
    int leaving;                 /* commit, then LeaveGroup */
    int rejoin;                  /* commit, then JoinGroup */
    /* the leader's view of the members (from its JoinGroup answer) */
    int32_t n_members;
    char members[LR_SIM_GM_MAXMEM][LR_SIM_GM_IDLEN];
    /* the assignment of this generation */
    int32_t n_assigned;
    int32_t assigned[LR_SIM_MAXP];
    int64_t pos[LR_SIM_MAXP];        /* by partition */
    int64_t committed[LR_SIM_MAXP];  /* acknowledged, -1 none */
    int64_t commit_off[LR_SIM_MAXP]; /* of the commit in flight, -1 none */
    int64_t commit_h[LR_SIM_MAXP];   /* its checker handles */
    int32_t leader_of[LR_SIM_MAXP], epoch_of[LR_SIM_MAXP];
    int32_t rr;                      /* next of assigned[] to fetch */
    int64_t sent_at;                 /* of the request in flight */
    int32_t sent_to;                 /* its node */
    /* probe (logrep_sim_offset_fetch): FindCoordinator, OffsetFetch, done */
    int probe;
    int32_t probe_part;
    int64_t probe_offset;
} lr_sim_gm;

typedef struct lr_sim_actor {
    int kind;
    int state;
    int stopping;
    int32_t idx;
    int32_t partition;
    int16_t acks;
    int idempotent;
    int64_t interval;
    int32_t max_records;
    int32_t leader;          /* guess, -1 unknown */
    int32_t leader_epoch;
    int32_t served_epoch;    /* the answering node's epoch of the partition */
    uint64_t end;            /* connection end of the request in flight */
    int32_t corr;
    int64_t deadline;        /* client-side request timeout */
    int64_t next_at;         /* idle until */
    /* producer */
    int64_t pid;
    int16_t pepoch;
    uint32_t session;        /* bumps with each producer id */
    uint32_t next_seq;
    int have_batch;
    uint32_t batch_seq;      /* first sequence of the batch */
    int32_t batch_n;
    int32_t attempts;
    int batch_gen;           /* checker generation at first send */
    /* consumer */
    int64_t position;
    int64_t max_seen_end;    /* largest end offset shown to this client */
    int max_seen_gen;
    uint32_t max_seen_rebases;
    int fetch_from_follower;
    int32_t read_node;
    /* group member */
    lr_sim_gm *gm;
    int16_t ver;             /* version of the group request in flight */
    /* one-shot */
    int16_t api;
    int done;
    logrep_err result;
    int64_t r_offset, r_hw;
    int32_t r_records;
    int64_t q_offset, q_ts;
    char rack[16];
} lr_sim_actor;

/* Checker state per partition. */
typedef struct lr_sim_cpart {
    uint64_t *c;           /* committed log C */
    uint32_t *cgen;        /* generation C[o] was set in */
    int64_t true_hw;       /* = length of C */
    size_t cap;
    uint32_t gen;          /* sanctioned-loss generation */
    uint32_t rebases;      /* C rebased (sanctioned): clients' views restart */
    int32_t gen_epoch;     /* leaders below this epoch (zombies of an older
                            * generation) no longer extend C */
    int32_t last_leader_epoch;
    int32_t last_partition_epoch;
    int32_t epoch_leader[256]; /* controller leader per epoch (epochs < 256), 0 unknown */
    int64_t unclean_seen;
    int lossy[LR_SIM_MAXN + 1];    /* 1 lossy, 2 seen out of the ISR */
    /* Leader epoch in which a lossy replica was seen back in the ISR:
     * leaders of older epochs may still hold its post-loss reports. */
    int32_t lossy_end_epoch[LR_SIM_MAXN + 1];
    /* Leader tenure per node: epoch, incarnation, HW at start, last HW. */
    int32_t ten_epoch[LR_SIM_MAXN + 1];
    uint32_t ten_inc[LR_SIM_MAXN + 1];
    int64_t ten_hw0[LR_SIM_MAXN + 1], ten_hw[LR_SIM_MAXN + 1];
    int32_t known_epoch[LR_SIM_MAXN + 1];
    uint32_t known_inc[LR_SIM_MAXN + 1];
    /* idempotence: last sequence per (writer, session) seen in C */
    struct { uint32_t writer_session; int64_t last_seq; uint32_t gen; } *seqs;
    size_t n_seqs, cap_seqs;
    lr_sim_rlog rlog[LR_SIM_MAXN + 1];
} lr_sim_cpart;

typedef struct lr_sim_acked {
    uint64_t id;
    int32_t partition;
    int64_t offset;
    uint32_t gen;
    int read;
} lr_sim_acked;

struct logrep_sim {
    logrep_sim_conf conf;
    /* metadata.log.max.record.bytes.between.snapshots of the controllers,
     * 0: the nodes' default (random runs set it by the seed) */
    int64_t snapshot_bytes;
    lr_prng rng;
    int64_t now;
    uint64_t seq;
    int32_t nb;              /* brokers */
    int32_t ctl;             /* (first) controller id = nb + 1 */
    int32_t nc;              /* controllers: 1, or 3 voters nb + 1 .. nb + 3 */
    int32_t nn;              /* nodes = nb + nc */
    struct lr_sim_qck *qck;  /* the quorum's ghost state (check_quorum.c), NULL with one controller */

    logrep_node *node[LR_SIM_MAXN + 1];
    logrep_storage *st[LR_SIM_MAXN + 1];
    lr_memnet *net;          /* connections, frames and notifications */
    lr_sim_nodectx nctx[LR_SIM_MAXN + 1];
    uint32_t inc[LR_SIM_MAXN + 1];
    uint32_t ctl_stats_inc;      /* controller incarnation its counters belong to */
    int64_t ctl_unclean_seen;    /* its unclean elections already sanctioned */
    /* A disk fault was injected: the node may hold logs in the failed
     * state, which (as in Kafka) only a restart brings back. */
    int disk_faulted[LR_SIM_MAXN + 1];
    /* A voter lost its disk and has not been trusted again since. */
    int voter_lost[LR_SIM_MAXN + 1];
    int64_t skew[LR_SIM_MAXN + 1];
    int64_t paused_until[LR_SIM_MAXN + 1];
    int64_t last_node_now[LR_SIM_MAXN + 1];
    int block[LR_SIM_MAXN + 1][LR_SIM_MAXN + 1];
    int client_block[LR_SIM_MAXN + 1];
    lr_sim_link link[LR_SIM_MAXN + 1][LR_SIM_MAXN + 1];
    int nonfifo;

    lr_sim_ev *q;            /* binary heap */
    size_t nq, capq;

    lr_sim_actor *actors;
    size_t nactors, capactors;

    /* checker */
    lr_sim_cpart cp[LR_SIM_MAXP];
    lr_sim_acked *acked;
    size_t nacked, capacked;
    struct lr_sim_gck *gck;  /* consumer groups' ghost state (check_groups.c) */
    logrep_sim_stats stats;
    int failed;
    char failure[512];

    /* trace ring */
    char *trace;
    int32_t trace_cap, trace_next, trace_count;

    /* scratch */
    logrep_msg *msg, *rmsg;
    logrep_batch_builder *bb;
    logrep_batch_reader *rd;
    uint8_t *rbuf;
    size_t rbuf_cap;
};

/* sim.c */
void lr_sim_trace(logrep_sim *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void lr_sim_fail(logrep_sim *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline int lr_sim_is_node(const logrep_sim *s, int32_t who)
{
    return who >= 1 && who <= s->nn;
}

/* A timer event (TICK, ACTOR) for `who` at t. */
int lr_sim_push(logrep_sim *s, int64_t t, int kind, int32_t who);
/* A network message (owned from here) delivered at t. */
int lr_sim_push_msg(logrep_sim *s, int64_t t, lr_memnet_msg *m);
int32_t lr_sim_random_up_broker(logrep_sim *s);
uint64_t lr_sim_rand(logrep_sim *s, uint64_t n);
/* Sets k=v in a node's conf unless an earlier setting failed (e != 0); a
 * failure is traced. Returns the error so far. */
int lr_sim_conf_set(logrep_sim *s, logrep_conf *conf, const char *k, const char *v, int e);
/* logrep_sim_new_ex with the controllers' snapshot threshold (0: the
 * nodes' default). */
logrep_err lr_sim_new(const logrep_sim_conf *conf, int32_t controllers, int64_t snapshot_bytes,
                      logrep_sim **out);

/* sim_ctl.c: the controllers (one, or a quorum of three voters) and the
 * topic made and deleted through them. */
/* The controller settings of node id, unless e is set; the first error. */
int lr_sim_ctl_conf(logrep_sim *s, logrep_conf *conf, int32_t id, int e);
/* A voter's replaced disk gets an empty metadata directory: LOGREP_OK or
 * LOGREP_ERR__IO. */
logrep_err lr_sim_ctl_voter_disk(logrep_sim *s, int32_t id);
/* Creates the topic through the controller's API on a broker and waits
 * until every partition has a leader with a full ISR. */
logrep_err lr_sim_create_topic(logrep_sim *s);

/* sim_net.c */
/* The memnet with the simulator's hooks. @return LOGREP_OK, _NOMEM. */
logrep_err lr_sim_net_new(logrep_sim *s);
/* Opens a client connection from actor owner `owner` to node `to`;
 * returns the actor's end or 0 when the node is unreachable. */
uint64_t lr_sim_client_connect(logrep_sim *s, int32_t owner, int32_t to);
/* Queues a frame on end `end` (owned by `owner`). */
int lr_sim_client_send(logrep_sim *s, int32_t owner, uint64_t end, const uint8_t *buf, size_t len);
/* Closes the connection; the other end hears of it, this one too when
 * notify_self (a reset). */
void lr_sim_close_end(logrep_sim *s, uint64_t end, int notify_self);

/* client.c */
void lr_sim_actor_timer(logrep_sim *s, lr_sim_actor *a);
void lr_sim_actor_frame(logrep_sim *s, lr_sim_actor *a, uint64_t end, const uint8_t *data,
                        size_t len, int32_t served_epoch);
void lr_sim_actor_closed(logrep_sim *s, lr_sim_actor *a, uint64_t end);
lr_sim_actor *lr_sim_actor_new(logrep_sim *s, int kind);
/* Record ids: writer (16 bits) | session (16 bits) | sequence (32 bits). */
static inline uint64_t lr_sim_rid(uint32_t writer, uint32_t session, uint32_t seq)
{
    return ((uint64_t)(writer & 0xffff) << 48) | ((uint64_t)(session & 0xffff) << 32) | seq;
}

/* client.c: the pieces group members share */
void lr_sim_client_wake(logrep_sim *s, lr_sim_actor *a, int64_t at);
/* Sends s->msg on a new connection; the request is in flight in `state`. */
int lr_sim_client_send_req(logrep_sim *s, lr_sim_actor *a, int32_t to, int state);
int lr_sim_client_metadata(logrep_sim *s, lr_sim_actor *a);
/* Fetch of a->partition at a->position from `to`. */
int lr_sim_client_fetch(logrep_sim *s, lr_sim_actor *a, int32_t to);
void lr_sim_client_on_fetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_client_finish(logrep_sim *s, lr_sim_actor *a);

/* group_client.c */
void lr_sim_gm_timer(logrep_sim *s, lr_sim_actor *a);
void lr_sim_gm_frame(logrep_sim *s, lr_sim_actor *a, uint64_t end, const uint8_t *data,
                     size_t len, int32_t served_epoch);
void lr_sim_gm_closed(logrep_sim *s, lr_sim_actor *a, uint64_t end);
/* A member of group `group` starting at start_at; NULL on allocation failure. */
lr_sim_actor *lr_sim_gm_new(logrep_sim *s, int32_t group, int64_t interval, int64_t start_at);
void lr_sim_gm_free_all(logrep_sim *s);
/* Every group with live members has them all stable in one generation
 * with each partition owned once; else 0 and why. */
int lr_sim_gm_settled(logrep_sim *s, char *why, size_t n);

/* check_groups.c: (G1) an acknowledged commit is not lost, (G2) a resume
 * offset never passes what the group consumed, (G3) one owner per
 * partition and generation, (G4) offsets expire only as configured. */
/* Starts the ghost state (the first member): 0 or -1 (out of memory). */
int lr_sim_gck_init(logrep_sim *s);
/* A commit of `offset` sent; returns its handle for lr_sim_gck_commit_acked. */
int64_t lr_sim_gck_commit_sent(logrep_sim *s, int32_t group, int32_t part, int64_t offset);
void lr_sim_gck_commit_acked(logrep_sim *s, int32_t group, int32_t part, int64_t handle);
/* A successful OffsetFetch answer (offset -1: none) of node `node` to a
 * request sent at sent_at. */
void lr_sim_gck_offset_fetched(logrep_sim *s, int32_t group, int32_t part, int64_t offset,
                               int64_t sent_at, int32_t actor, int32_t node);
/* A member read [from, to) of partition part. */
void lr_sim_gck_consumed(logrep_sim *s, int32_t group, int32_t part, int64_t from, int64_t to);
void lr_sim_gck_assigned(logrep_sim *s, int32_t group, int32_t generation, const char *member,
                         const int32_t *parts, int32_t n);
void lr_sim_gck_step(logrep_sim *s);
void lr_sim_gck_lossy(logrep_sim *s, int32_t id);
void lr_sim_gck_unclean(logrep_sim *s);
void lr_sim_gck_free(logrep_sim *s);
/* The group's offsets partition. */
int32_t lr_sim_gck_opart(const char *group_id);
/* The largest acknowledged commit of (group, part), -1 none. */
int64_t lr_sim_gck_max_acked(logrep_sim *s, int32_t group, int32_t part);

/* check_rlog.c */
/* A partition's replica log as node id holds it (NULL when down or not
 * hosted, or unreadable). */
const lr_sim_rlog *lr_sim_replica_log(logrep_sim *s, int32_t id, int32_t part);
/* The record id at offset o (0 outside the log). */
static inline uint64_t lr_sim_rlog_at(const lr_sim_rlog *r, int64_t o)
{
    return o >= r->start && o < r->leo ? r->ids[o - r->start] : 0;
}

/* check_clients.c: client outcomes. */
void lr_sim_check_ack(logrep_sim *s, int32_t part, uint64_t first_id, int32_t n, int64_t base,
                      uint32_t gen_at_send, int32_t served_epoch);
void lr_sim_check_not_appended(logrep_sim *s, int32_t part, uint64_t first_id, int32_t n);
/* batch_epoch: the epoch the record's batch was written in. */
void lr_sim_check_read(logrep_sim *s, int32_t part, int64_t offset, uint64_t id,
                       int32_t batch_epoch);
/* epoch: the serving replica's leader epoch, -1 when unknown. */
void lr_sim_check_end_offset(logrep_sim *s, lr_sim_actor *a, int64_t end, int from_list,
                             int32_t epoch);

/* check_heal.c: I15 after a heal: converged replicas and every acked
 * record read. 0 or -1 (failed). */
int lr_sim_check_liveness(logrep_sim *s);

/* check_quorum.c: with a controller quorum, the model of the committed
 * metadata log (every voter's committed prefix agrees with it), the
 * image it builds (the checker's controller view), one active controller
 * per quorum epoch, brokers applying the committed sequence in order. */
int lr_sim_qck_init(logrep_sim *s);
void lr_sim_qck_step(logrep_sim *s);
void lr_sim_qck_free(logrep_sim *s);
/* The committed image (NULL before the first record). */
const struct lr_md_image *lr_sim_qck_image(logrep_sim *s);
static inline int lr_sim_is_voter(const logrep_sim *s, int32_t id)
{
    return s->nc > 1 && id > s->nb && id <= s->nn;
}

/* check.c */
void lr_sim_check(logrep_sim *s);
/* A new sanctioned-loss generation of partition part (logged with why). */
void lr_sim_sanction(logrep_sim *s, int32_t part, const char *why);
/* The image the checker takes for the controller's (NULL when none). */
const struct lr_md_image *lr_sim_ctl_image(logrep_sim *s);
void lr_sim_mark_lossy(logrep_sim *s, int32_t id);
void lr_sim_check_free(logrep_sim *s);
/* The checker's initial state of one partition. */
void lr_sim_check_part_init(lr_sim_cpart *cp);
/* The topic is gone: forget its ghost state and acknowledged writes. */
void lr_sim_check_topic_deleted(logrep_sim *s);
/* Controller partition (NULL when unknown). */
const struct lr_md_partition *lr_sim_ctl_part(logrep_sim *s, int32_t part);
/* The same for any topic. */
const struct lr_md_partition *lr_sim_ctl_part_of(logrep_sim *s, const char *topic, int32_t part);
/* Node id runs and the controller holds this incarnation's registration. */
int lr_sim_registered_now(logrep_sim *s, int32_t id);
/* A record id as the trace prints it: wW.S#Q. */
void lr_sim_rid_str(uint64_t id, char *buf, size_t n);

#endif
