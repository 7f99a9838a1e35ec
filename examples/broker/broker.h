/* logrep-broker: an example Kafka-compatible broker built on liblogrep.
 *
 * Threading: one thread runs everything. It owns the logrep_node, the
 * epoll set, every socket and the metrics listener; the node is only ever
 * called from that thread, which is exactly the contract of
 * <logrep/node.h>. Disk I/O happens inline through the POSIX storage
 * backend (appends go to the page cache; fdatasync follows flush.* as in
 * Kafka, so a slow disk only stalls this broker's loop, never a peer). A
 * server that wants more cores runs several nodes (one per thread) or
 * moves socket reads and writes to helper threads that hand whole frames
 * to the node thread; this example keeps one thread for clarity. */
#ifndef LOGREP_BROKER_H
#define LOGREP_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>

#define BROKER_MAX_LISTENERS 8

typedef struct broker_listener {
    char name[64];
    char host[256];
    int port;
} broker_listener;

/* Everything read from server.properties and --override. */
typedef struct broker_conf {
    logrep_conf *conf;                 /* the library's properties */
    broker_listener listeners[BROKER_MAX_LISTENERS];
    int n_listeners;
    char metrics_host[256];            /* metrics.listener, empty when off */
    int metrics_port;
    int64_t max_connections;           /* max.connections */
    int64_t idle_ms;                   /* connections.max.idle.ms */
    int64_t request_max_bytes;         /* socket.request.max.bytes */
    int64_t shutdown_timeout_ms;       /* controlled.shutdown.timeout.ms */
    int log_level;                     /* logrep.log.level */
    int sendfile;                      /* logrep.sendfile: record bytes by sendfile() */
    int64_t cache_window;              /* logrep.page.cache.window.bytes, 0: no limit */
    char log_dir[4096];
    int32_t node_id;
} broker_conf;

/* Reads the properties file then applies the overrides (key=value each).
 * Prints every problem to stderr; returns 0 when the configuration is
 * usable, -1 otherwise. Unknown properties are warnings. */
int broker_conf_load(broker_conf *bc, const char *path, char **overrides, int n_overrides);
void broker_conf_free(broker_conf *bc);

/* The POSIX storage backend, keeping at most about `window` bytes of each
 * segment file's tail in the page cache (0: no limit). storage.c. */
struct logrep_storage;
struct logrep_storage_fd_stats;
logrep_err broker_storage_new(logrep_conf *conf, uint64_t window, struct logrep_storage **out);
/* The descriptor pool counters of a storage from broker_storage_new. */
logrep_err broker_storage_fd_stats(const struct logrep_storage *st,
                                   struct logrep_storage_fd_stats *out);

/* Runs the server until SIGTERM/SIGINT (controlled shutdown). Returns the
 * process exit status. */
int broker_run(broker_conf *bc);

#endif
