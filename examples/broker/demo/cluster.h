/* A cluster of logrep-broker processes on loopback for the demo and the
 * benchmark: free ports, a temporary directory, child processes that are
 * always stopped (SIGTERM, then SIGKILL) and a directory that is always
 * removed, also on SIGINT or SIGTERM (a watcher thread per cluster does
 * it; the signal handler only sets a flag). Every node is a combined
 * broker+controller (process.roles=broker,controller): with n >= 2 the
 * controllers are a metadata quorum of n voters, and the active one is
 * whichever the quorum elected (cluster_active_controller). */
#ifndef LOGREP_CLUSTER_H
#define LOGREP_CLUSTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#define CL_MAX 8
/* broker.session.timeout.ms of the nodes: how long the active controller
 * waits for a silent broker's heartbeat before fencing it (and moving its
 * leaderships). The quorum's own timeouts are the library's defaults
 * (controller.quorum.fetch.timeout.ms 2000, election 1000). */
#define CL_SESSION_TIMEOUT_MS 4000

typedef struct cluster {
    int n;
    char dir[256];
    char broker_path[1024];
    int port[CL_MAX + 1];
    int mport[CL_MAX + 1]; /* metrics.listener */
    int cport[CL_MAX + 1]; /* CONTROLLER listener */
    pid_t pid[CL_MAX + 1];
    char bootstrap[512];
    /* SIGINT/SIGTERM: a thread that stops this cluster (cluster.c). */
    pthread_t watcher;
    int watching;
    atomic_int watch_stop;
} cluster;

/* Writes properties for n nodes (extra: more lines, may be NULL). */
int cluster_init(cluster *c, const char *broker_path, int n, const char *extra);
int cluster_node_start(cluster *c, int i);
void cluster_node_kill(cluster *c, int i, int sig);
/* Until every node answers Metadata listing all n brokers. 0 or -1. */
int cluster_wait_ready(cluster *c, int timeout_ms);
void cluster_destroy(cluster *c);
/* Node i's Prometheus page (GET /metrics) into buf, NUL-terminated and
 * cut at size. Its length, or -1 when the node does not answer. */
long cluster_metrics(const cluster *c, int i, char *buf, size_t size);
/* The node whose metrics page says it is the active controller
 * (logrep_node_is_controller), 0 when none of the running nodes does, -1
 * when more than one does. */
int cluster_active_controller(const cluster *c);

#endif
