/* What the files of `logrep groups` share: the session (the bootstrap
 * connection, the brokers and partitions Metadata named, strings kept
 * until the end) and its helpers, in groups.c; --list in groups_list.c;
 * --describe in groups_describe.c. */
#ifndef LOGREP_TOOL_GROUPS_H
#define LOGREP_TOOL_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "groups_fmt.h"
#include "wire.h"

/* The pause between retries of a coordinator that is not ready. */
#define RETRY_MS 200

typedef struct broker {
    int32_t id;
    char host[256];
    int port;
    wire_conn c;
    int opened; /* wire_open was called (c must be closed) */
    int ok;     /* and succeeded */
} broker;

typedef struct part {
    char *topic;
    int32_t partition;
    int32_t leader;
    int64_t log_end;
} part;

typedef struct ctx {
    int timeout_ms;
    const char *bootstrap;
    wire_conn boot;
    int boot_opened;
    broker *brokers;
    size_t nbrokers;
    part *parts;
    size_t nparts;
    char **strs; /* strings the rows point at, freed at the end */
    size_t nstrs, capstrs;
} ctx;

/* groups.c */
int64_t mono_ms(void);
void sleep_ms(int ms);
/* A cleaned copy kept until the end; NULL out of memory. */
char *keep(ctx *g, const char *p, int32_t len);
char *keep_field(ctx *g, const logrep_struct *s, lr_fname f);
/* A host name from the wire into buf, cleaned as grp_strdup_clean does. */
void copy_host(char *buf, size_t cap, const logrep_struct *s, lr_fname f);
/* Says so; returns the exit status. */
int oom(void);
/* The bootstrap connection, reconnected when a failed call closed it;
 * NULL after saying why. */
wire_conn *boot_conn(ctx *g);
broker *broker_by_id(ctx *g, int32_t id);
/* The partition in g->parts (sorted by ctx_metadata), or NULL. */
part *part_find(ctx *g, const char *topic, int32_t partition);
/* Metadata from the bootstrap broker: every broker, and the partitions of
 * the given topics (none when ntopics is 0; from v4 on, never created).
 * 0, or the exit status after saying why. */
int ctx_metadata(ctx *g, char **topics, size_t ntopics);
/* The connection to a broker, opened on first use; NULL after saying why. */
wire_conn *broker_conn(ctx *g, broker *k);

/* groups_list.c */
typedef struct listing {
    grp_listed *g;
    size_t n;
} listing;

/* ListGroups on every broker; the groups sorted by id, each once.
 * 0, or 2 when some broker did not answer (the rest are listed); the
 * caller frees out->g either way. */
int list_all(ctx *g, listing *out);
/* --list: prints the groups whose state passes filter; the exit status. */
int do_list(ctx *g, int with_type, int with_state, const char *filter);

/* groups_describe.c: --describe of one group; the exit status. */
int describe_one(ctx *g, const char *group);

#endif
