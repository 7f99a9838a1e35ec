/* The cluster bench_groups runs on: three nodes in one process over the
 * in-memory transport, POSIX storage in a temporary directory, stepped in
 * lockstep by one thread; and the bench's requests to it (one message M
 * built at a time, answers decoded into R). groups_cluster.c. */
#ifndef LOGREP_BENCH_GROUPS_CLUSTER_H
#define LOGREP_BENCH_GROUPS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>
#include "sim/memnet.h"

#define NN 3
#define CLIENT (-1)
#define NPARTS 100  /* partitions per OffsetCommit, and of the committed topic */
#define OFFSETS_TOPIC "__consumer_offsets"

typedef lr_memnet_msg frame;

typedef struct cluster {
    logrep_node *node[NN + 1];
    logrep_storage *st[NN + 1];
    lr_memnet *net;
    int64_t now;
    uint64_t adm[NN + 1]; /* the bench's request connection to each node */
} cluster;

extern cluster W;
extern char root[]; /* the temporary directory, made by main */
extern logrep_msg *M, *R;
extern double in_nodes; /* seconds spent delivering to and ticking the nodes */

/* Says what failed, removes root and exits 1. */
void die(const char *what);

/* Delivers what is queued, or else lets 1 ms pass. */
void step(void);
void run_ms(int64_t ms);
/* A new cluster (a directory of its own under root) with this
 * group.initial.rebalance.delay.ms, run for 3 s. */
void start(const char *initial_delay);
void stop(void);
void kill_node(int id);

/* ---- requests */
/* A new connection of the bench to node `to`. */
uint64_t open_pair(int to);
/* Fields by name. */
logrep_struct *el(logrep_struct *s, const char *n, int32_t i);
void seti(logrep_struct *s, const char *n, int64_t v);
void sets(logrep_struct *s, const char *n, const char *v);
void setcount(logrep_struct *s, const char *n, int32_t k);
int64_t fi(logrep_struct *s, const char *n);
int32_t fcount(logrep_struct *s, const char *n);
/* Field n of s into out (at most size-1 bytes). */
void fstr(logrep_struct *s, const char *n, char *out, size_t size);
/* Starts request api/version in M; its body. */
logrep_struct *req(int api, int version);
/* Sends M on connection c. */
void send_on(uint64_t c);
/* Decodes frame f (freed) into R. */
void decode(frame *f, int api, int version);
/* Waits (stepping the cluster) for the next response on c into R. */
logrep_struct *await(uint64_t c, int api, int version);
/* Sends M to node `to` on the bench's connection and waits for the answer. */
logrep_struct *call(int to, int api, int version);
void create_topic(const char *name, int parts, int rf);
int leader_of(const char *name, int partition);
/* FindCoordinator v4 for g, asked of node `ask`: the node id, or -1 with
 * *err set. */
int32_t find_coordinator(int ask, const char *g, int64_t *err);
/* OffsetFetch v8 of every partition of g from node `to`: the group's
 * error; out[i] the committed offset of (orders, i), -1 when none. */
int64_t fetch_offsets(int to, const char *g, int64_t *out);
/* The coordinator of g once it is named and its partition loaded. */
int ready_coordinator(const char *g);
/* The leader-side sum of the offsets partitions' log end offsets. */
int64_t offsets_log_end(void);

#endif
