/* Parked requests: those answered later than they arrived (park.c). */
#ifndef LR_NODE_PARK_H
#define LR_NODE_PARK_H

#include <stdint.h>

#include "node/conn.h"

struct lr_parked;
struct lr_npart;

/* What a kind of parked request does; its state embeds lr_parked first. */
typedef struct lr_park_ops {
    /* Runs it: 1 when it is finished (answered, or its connection
     * closed) and is to be freed, 0 to keep waiting. */
    int (*poll)(logrep_node *n, struct lr_parked *d, int64_t now_ms);
    /* When poll must run again without a wake; INT64_MAX for never. */
    int64_t (*deadline)(const logrep_node *n, const struct lr_parked *d, int64_t now_ms);
    /* Frees the whole state (d included). */
    void (*free)(logrep_node *n, struct lr_parked *d);
} lr_park_ops;

typedef struct lr_parked {
    struct lr_parked *next;
    const lr_park_ops *ops;
    lr_conn *conn;
    lr_slot *slot;         /* its place in conn's response order */
    int16_t api_key;
    int16_t version;
    int32_t correlation_id;
    int64_t deadline;
} lr_parked;

/* Wake-ups: every change of a partition's data, HW or leadership counts
 * one step of seq; a parked request remembers the seq of its last run and
 * runs again only once something it reads changed after it. */
typedef struct lr_park {
    lr_parked *list;
    int woken;          /* something changed since the last poll */
    uint64_t seq;
    uint64_t all_seq;   /* the last change not tied to one partition */
    uint64_t md_seq;    /* the last record of the controller's metadata log */
} lr_park;

/* Parks d (zeroed by the caller but for its own fields) on connection c
 * for the request in msg, reserving its response slot. NOMEM: nothing
 * is parked and d stays the caller's. */
int lr_park_add(logrep_node *n, lr_conn *c, const logrep_msg *msg, lr_parked *d,
                const lr_park_ops *ops);
/* Parks d without a connection: an in-process call, answered through the
 * event queue (conn and slot NULL). Never fails. */
void lr_park_hold(logrep_node *n, lr_parked *d, const lr_park_ops *ops);
/* 1 when d is still parked (its connection may have gone). */
int lr_park_holds(const logrep_node *n, const lr_parked *d);
/* Unparks and frees d. */
void lr_park_remove(logrep_node *n, lr_parked *d);
/* Polls every parked request. */
void lr_park_poll(logrep_node *n, int64_t now_ms);
/* The earliest deadline of a parked request; INT64_MAX when none. */
int64_t lr_park_deadline(const logrep_node *n, int64_t now_ms);
/* An lr_park_ops deadline for kinds whose d->deadline is all they wait on. */
int64_t lr_parked_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms);
/* Drops the requests parked on c (the connection is going away). */
void lr_park_drop_conn(logrep_node *n, lr_conn *c);
void lr_park_free_all(logrep_node *n);

/* What a parked read (a fetch) reads: positions in the node's
 * partitions, so that it runs again only when one of them changed after
 * its last run. Zeroed is empty. */
typedef struct lr_park_track {
    int32_t *idx;
    int32_t n, cap;
    int any;           /* not tracked (no memory): any change wakes it */
    int md;            /* reads the controller's metadata log */
    uint64_t seen_seq; /* the park's seq at its last run */
} lr_park_track;

/* Starts a run: nothing tracked yet. */
void lr_park_track_reset(lr_park_track *t);
/* The run reads partition p. */
void lr_park_track_add(logrep_node *n, lr_park_track *t, const struct lr_npart *p);
/* 1 when the read must run again: its deadline passed, the node shuts
 * down, or something it reads changed since seen_seq. */
int lr_park_track_due(const logrep_node *n, const lr_park_track *t, int64_t deadline,
                      int64_t now_ms);
void lr_park_track_free(logrep_node *n, lr_park_track *t);

/* Records that partition p's data, HW or leadership changed (NULL: any
 * partition, or the partition table itself), so requests parked on it
 * run again. */
void lr_node_part_changed(logrep_node *n, struct lr_npart *p);
/* The same for the controller's metadata log. */
void lr_node_metadata_changed(logrep_node *n);

#endif
