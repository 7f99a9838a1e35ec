/* The pure parts of `logrep groups`: the consumer protocol's assignment
 * decoder and the output tables. No sockets, so the tests link them. */
#ifndef LOGREP_TOOL_GROUPS_FMT_H
#define LOGREP_TOOL_GROUPS_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One assigned partition; topic points into the decoded bytes. */
typedef struct grp_tp {
    const char *topic;
    int32_t topic_len;
    int32_t partition;
} grp_tp;

/* Kafka's ConsumerProtocolAssignment: version int16, then
 * [topic string, partitions int32 array] and nullable user data bytes. */
typedef struct grp_assignment {
    int16_t version;
    grp_tp *tps; /* malloc'd, ntps entries */
    size_t ntps;
    const uint8_t *user_data; /* into the input; NULL when null */
    int32_t user_data_len;    /* -1 when null */
} grp_assignment;

/* Decodes len bytes at p. Empty input is an empty assignment (a member
 * that has none yet). Returns 0, or -1 with the reason in err (bad or
 * truncated input; nothing is read past len), or -2 out of memory.
 * Bytes after the user data are ignored: later versions may append
 * fields, and Kafka reads them with the layout it knows. */
int grp_decode_assignment(const uint8_t *p, size_t len, grp_assignment *out, char *err,
                          size_t errlen);
void grp_assignment_free(grp_assignment *a);

/* A copy of len bytes as a C string, control bytes (and NUL) as '?', so
 * wire strings cannot move the terminal; NULL out of memory. */
char *grp_strdup_clean(const char *p, int32_t len);

/* One line of the describe table; NULL strings and -1 numbers print "-". */
typedef struct grp_row {
    const char *group;
    const char *topic;
    int32_t partition;
    int64_t offset;  /* committed */
    int64_t log_end;
    const char *consumer_id, *host, *client_id;
} grp_row;

/* Sorts rows by topic then partition (NULL topic last). The caller sorts
 * each member's block, and the block of committed partitions nobody is
 * assigned, which it puts last. */
void grp_sort_rows(grp_row *rows, size_t n);

/* The describe table as kafka-consumer-groups prints it: a blank line,
 * the header, the rows, a blank line; columns at least 15 wide. LAG is
 * LOG-END-OFFSET - CURRENT-OFFSET when both are known. */
void grp_print_describe(FILE *f, const grp_row *rows, size_t n);

/* One listed group; NULL strings print "-". */
typedef struct grp_listed {
    const char *group, *protocol_type, *state;
} grp_listed;

/* --list: ids alone, or GROUP [PROTOCOL-TYPE] [STATE] columns. */
void grp_print_list(FILE *f, const grp_listed *g, size_t n, int with_type, int with_state);

#endif
