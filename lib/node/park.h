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
/* 1 when d is still parked (its connection may have gone). */
int lr_park_holds(const logrep_node *n, const lr_parked *d);
/* Unparks and frees d. */
void lr_park_remove(logrep_node *n, lr_parked *d);
/* Polls every parked request. */
void lr_park_poll(logrep_node *n, int64_t now_ms);
/* The earliest deadline of a parked request; INT64_MAX when none. */
int64_t lr_park_deadline(const logrep_node *n, int64_t now_ms);
/* Drops the requests parked on c (the connection is going away). */
void lr_park_drop_conn(logrep_node *n, lr_conn *c);
void lr_park_free_all(logrep_node *n);

/* Records that partition p's data, HW or leadership changed (NULL: any
 * partition, or the partition table itself), so requests parked on it
 * run again. */
void lr_node_part_changed(logrep_node *n, struct lr_npart *p);
/* The same for the controller's metadata log. */
void lr_node_metadata_changed(logrep_node *n);

#endif
