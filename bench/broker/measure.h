/* bench-broker's measurements beside the throughput: CPU time per record
 * (the client's, the cluster's, other processes' share of the machine),
 * the brokers' own counters, and the floor of an acks=all commit's
 * message pattern on this machine. Linux only (/proc). */
#ifndef BENCH_BROKER_MEASURE_H
#define BENCH_BROKER_MEASURE_H

#include <stdint.h>

#include "cluster.h"

/* CPU time so far: this process's threads (the mock cluster's thread
 * apart), the cluster's processes, and the machine's busy/total ticks. */
typedef struct cpu_mark {
    int64_t client, mock, cluster; /* microseconds */
    int64_t busy, total;           /* machine ticks */
} cpu_mark;

typedef struct cpu_use {
    double client_us, cluster_us; /* per record */
    double others_pct;            /* of the machine, taken by other processes */
} cpu_use;

void cpu_mark_take(cpu_mark *m, const cluster *c);
/* Between two marks around `records` records; the cluster is the mock's
 * thread when `mock` is set. */
cpu_use cpu_use_between(const cpu_mark *a, const cpu_mark *b, int64_t records, int mock);

/* The brokers' counters (their metrics pages), summed over the nodes. */
typedef struct counters {
    double produces, records, fetches, produce_s, bytes_sent;
} counters;

typedef struct broker_use {
    double recs_per_produce, fetches_per_produce, produce_ms, kib_per_fetch;
} broker_use;

void counters_take(counters *k, const cluster *c);
broker_use broker_use_between(const counters *a, const counters *b);

/* The median time of the six 100 B messages of a commit (client to
 * leader, leader to two followers, both back, leader to client) between
 * four processes waiting in epoll_wait over loopback TCP, with nothing
 * else done; with `appends`, each of the three also writes 177 B to a
 * file of its own in dir first, as a replica appends. *cpu_us (when
 * given) gets the three processes' CPU time per commit. -1 on failure. */
double pattern_floor_us(const char *dir, int appends, int rounds, double *cpu_us);

#endif
