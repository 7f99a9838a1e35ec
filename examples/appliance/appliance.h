/* The appliance's pieces (README.md): the messages its threads exchange,
 * the pipes that carry them (wire.c) and a replica's thread (replica.c).
 * Node 0 is the controller and client (the main thread), 1..3 the
 * replicas, each owned by its thread while it runs. */
#ifndef APPLIANCE_H
#define APPLIANCE_H

#include <pthread.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/partition.h>
#include <logrep/storage.h>

#define NODES 4

enum {
    M_APPLY = 1,  /* controller -> replica: leadership */
    M_ISR_RESULT, /* controller -> leader: the answer to a proposal */
    M_PROPOSAL,   /* leader -> controller: an ISR change */
    M_PRODUCE,    /* client -> leader: one batch, acks=all */
    M_PRODUCED,   /* leader -> client: the outcome (pending, then final) */
    M_FETCH,      /* follower -> leader */
    M_FETCHED,    /* leader -> follower: the answer, its records as payload */
    M_STATUS,     /* replica -> controller: what it knows now */
    M_CRASH,      /* controller -> replica: append the payload, then die */
    M_STOP        /* controller -> replica: stop; the replica goes to main */
};

typedef struct msg {
    int type, from;
    uint64_t seq; /* a fetch's, echoed in its answer; a produce's token */
    logrep_err error;
    logrep_leadership lead;
    logrep_isr_proposal isr;
    logrep_follower_fetch fetch;
    logrep_fetch_result res;
    logrep_produce_result prod;
    logrep_partition_state state;
    uint32_t len; /* payload bytes after the message */
} msg;

/* A pipe from every node to every other: one thread writes each and one
 * reads it, so messages never interleave. */
typedef struct wire {
    int fd[NODES][NODES][2]; /* from, to: [0] read end, [1] write end */
    int turn[NODES];         /* whose pipe a node reads first */
} wire;

int wire_open(wire *w);
void wire_close(wire *w);
/* Sends m (from set here) with len bytes of payload; -1 on error. */
int wire_send(wire *w, int from, int to, msg *m, const void *payload, uint32_t len);
/* Waits up to timeout_ms for a message to `self`: 1 with *m and *payload
 * (malloc'd or NULL; the caller frees it), 0 on timeout, -1 on error. */
int wire_recv(wire *w, int self, int timeout_ms, msg *m, uint8_t **payload);

typedef struct replica {
    int id, alive; /* alive: the main thread's view */
    wire *w;
    logrep_conf *conf;
    logrep_storage *st;
    char dir[300];
    logrep_partition *p; /* its thread's while that runs, main's otherwise */
    pthread_t thread;
    /* The thread's own: the one fetch in flight. */
    uint64_t fetch_seq;
    int fetching;
    int64_t fetch_at; /* when to send the next fetch, or give up on this one */
    logrep_follower_fetch sent;
    logrep_partition_state shown; /* as last told to the controller */
} replica;

/* The replica's thread (pthread_create with the replica). */
void *replica_run(void *replica);
/* Milliseconds on the monotonic clock, from 1000 at the program's start. */
int64_t now_ms(void);

#endif
