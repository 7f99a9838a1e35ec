/* The pure parts of `logrep quorum`: a DescribeQuorum response read into
 * a plain description, and the two outputs of kafka-metadata-quorum
 * describe (--status, --replication). No sockets, so the tests link them. */
#ifndef LOGREP_TOOL_QUORUM_FMT_H
#define LOGREP_TOOL_QUORUM_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <logrep/proto.h>

/* The metadata partition DescribeQuorum asks about. */
#define QRM_TOPIC "__cluster_metadata"

/* One replica as the leader describes it; times are wall-clock ms, -1
 * when unknown (always so in a v0 answer). */
typedef struct qrm_replica {
    int32_t id;
    int64_t log_end;
    int64_t last_fetch_ms;
    int64_t caught_up_ms;
} qrm_replica;

typedef struct qrm_desc {
    int32_t leader_id; /* -1 when unknown */
    int32_t epoch;
    int64_t high_watermark;
    qrm_replica *voters; /* malloc'd, in the answer's order */
    size_t n_voters;
    qrm_replica *observers;
    size_t n_observers;
    int16_t error; /* the answer's error code (top level or partition), 0 when none */
} qrm_desc;

/* What qrm_parse found. */
enum {
    QRM_OK = 0,
    QRM_ERROR = 1, /* the quorum answered an error: d->error, and for a
                    * partition error d->leader_id and d->epoch */
    QRM_BAD = 2,   /* the answer is not a description of the metadata
                    * partition, or contradicts itself */
    QRM_NOMEM = 3,
};

/* Reads a decoded DescribeQuorum response body (any version) into *d.
 * Returns a QRM_ code; on anything but QRM_OK err says why in one line
 * (without a trailing newline). qrm_free is needed after any return. */
int qrm_parse(const logrep_struct *rs, qrm_desc *d, char *err, size_t errlen);
void qrm_free(qrm_desc *d);

/* --status, as kafka-metadata-quorum prints it: eight "Name:" lines, the
 * values from column 24. MaxFollowerLag is the leader's log end less the
 * smallest voter log end; MaxFollowerLagTimeMs the leader's caught-up
 * time less that voter's (0 when it is the leader, -1 when either is
 * unknown). CurrentVoters and CurrentObservers are "[1,2,3]". cluster_id
 * NULL prints "-". The leader must be among the voters (qrm_parse
 * checks it). */
void qrm_print_status(FILE *f, const char *cluster_id, const qrm_desc *d);

/* --replication: the table NodeId, LogEndOffset, Lag, LastFetchTimestamp,
 * LastCaughtUpTimestamp, Status; the leader first, then the other voters,
 * then the observers. Every cell is padded to its column's widest value
 * (the header included) and followed by a tab, as Kafka's tools print
 * tables. Lag is the leader's log end less the replica's.
 * human_now_ms >= 0 (--human-readable) prints known times as "N ms ago"
 * against it; a time not after the epoch or after it is refused as
 * Kafka's tool refuses it: nothing is printed, the reason goes to err and
 * -1 is returned. Otherwise 0 (or -1 out of memory). */
int qrm_print_replication(FILE *f, const qrm_desc *d, int64_t human_now_ms, char *err,
                          size_t errlen);

#endif
