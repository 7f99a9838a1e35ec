/* server.properties: Kafka's property names, as kafka-server-start reads
 * them. Library properties go to logrep_conf as they are; broker-level
 * log.* names map onto the topic-level ones the library uses; a few are
 * the host's own (sockets, metrics). Everything else is reported. */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "broker.h"

/* Broker-level names and the topic-level property they set, with a unit
 * multiplier; a lower rank wins when several name one target (Kafka:
 * log.retention.ms over .minutes over .hours). */
static const struct alias {
    const char *name;
    const char *target;
    int64_t mult;
    int rank;
} aliases[] = {
    {"log.segment.bytes", "segment.bytes", 1, 0},
    {"log.roll.ms", "segment.ms", 1, 0},
    {"log.roll.hours", "segment.ms", 3600000, 1},
    {"log.roll.jitter.ms", "segment.jitter.ms", 1, 0},
    {"log.roll.jitter.hours", "segment.jitter.ms", 3600000, 1},
    {"log.retention.ms", "retention.ms", 1, 0},
    {"log.retention.minutes", "retention.ms", 60000, 1},
    {"log.retention.hours", "retention.ms", 3600000, 2},
    {"log.retention.bytes", "retention.bytes", 1, 0},
    {"log.flush.interval.messages", "flush.messages", 1, 0},
    {"log.flush.interval.ms", "flush.ms", 1, 0},
    {"log.index.size.max.bytes", "segment.index.bytes", 1, 0},
    {"log.index.interval.bytes", "index.interval.bytes", 1, 0},
    {"log.message.timestamp.type", "message.timestamp.type", 0, 0},
    {"log.segment.delete.delay.ms", "file.delete.delay.ms", 1, 0},
    {"log.dir", "log.dirs", 0, 1},
};

/* Kafka properties this example accepts and does not need (threads,
 * socket buffers, internal topics of later features). */
static const char *const ignored[] = {
    "num.network.threads", "num.io.threads", "num.replica.fetchers",
    "socket.send.buffer.bytes", "socket.receive.buffer.bytes",
    "num.recovery.threads.per.data.dir",
    "transaction.state.log.replication.factor", "transaction.state.log.min.isr",
    "inter.broker.listener.name", "log.cleaner.enable", "delete.topic.enable",
    "zookeeper.connect",
};

/* The host's own properties (not library ones). */
enum {
    H_METRICS, H_MAXCONN, H_IDLE, H_SHUTDOWN_TIMEOUT, H_LOGLEVEL, H_SECMAP, H_SENDFILE,
    H_CACHE_WINDOW, H_COUNT
};
static const char *const host_props[H_COUNT] = {
    "metrics.listener", "max.connections", "connections.max.idle.ms",
    "controlled.shutdown.timeout.ms", "logrep.log.level", "listener.security.protocol.map",
    "logrep.sendfile", "logrep.page.cache.window.bytes",
};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int parse_i64(const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return -1;
    *out = x;
    return 0;
}

typedef struct pending_alias {
    char value[256];
    int rank;
    int set;
} pending_alias;

typedef struct loader {
    broker_conf *bc;
    int errors;
    char host_vals[H_COUNT][1024];
    int host_set[H_COUNT];
    pending_alias al[sizeof aliases / sizeof aliases[0]];
    char explicit_lib[64][96]; /* library names set directly */
    int n_explicit;
} loader;

static void set_one(loader *L, const char *where, const char *key, const char *val)
{
    for (int i = 0; i < H_COUNT; i++) {
        if (strcmp(key, host_props[i]) == 0) {
            snprintf(L->host_vals[i], sizeof L->host_vals[i], "%s", val);
            L->host_set[i] = 1;
            return;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(key, aliases[i].name) == 0) {
            snprintf(L->al[i].value, sizeof L->al[i].value, "%s", val);
            L->al[i].set = 1;
            return;
        }
    }
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        if (strcmp(key, ignored[i]) == 0) {
            fprintf(stderr, "logrep-broker: %s: note: %s is not used by this broker (ignored)\n",
                    where, key);
            return;
        }
    }
    char err[256];
    logrep_err e = logrep_conf_set(L->bc->conf, key, val, err, sizeof err);
    if (e == LOGREP_ERR__UNKNOWN_CONF) {
        fprintf(stderr, "logrep-broker: %s: warning: unknown property '%s' (ignored)\n", where, key);
    } else if (e != LOGREP_OK) {
        fprintf(stderr, "logrep-broker: %s: error: invalid value for %s: '%s': %s\n", where, key,
                val, err);
        L->errors++;
    } else if (L->n_explicit < 64) {
        snprintf(L->explicit_lib[L->n_explicit++], sizeof L->explicit_lib[0], "%s", key);
    }
}

static int explicit_set(const loader *L, const char *name)
{
    for (int i = 0; i < L->n_explicit; i++)
        if (strcmp(L->explicit_lib[i], name) == 0)
            return 1;
    return 0;
}

/* Applies the aliases: the explicit topic-level name wins, then the best
 * rank. */
static void apply_aliases(loader *L)
{
    size_t na = sizeof aliases / sizeof aliases[0];
    for (size_t i = 0; i < na; i++) {
        if (!L->al[i].set || explicit_set(L, aliases[i].target))
            continue;
        int better = 0;
        for (size_t j = 0; j < na; j++)
            if (j != i && L->al[j].set && strcmp(aliases[j].target, aliases[i].target) == 0 &&
                aliases[j].rank < aliases[i].rank)
                better = 1;
        if (better)
            continue;
        char val[256];
        snprintf(val, sizeof val, "%s", L->al[i].value);
        if (aliases[i].mult > 1) {
            int64_t x;
            if (parse_i64(val, &x) != 0 || x < -1 || (x > 0 && x > INT64_MAX / aliases[i].mult)) {
                fprintf(stderr, "logrep-broker: error: invalid value for %s: '%s'\n",
                        aliases[i].name, val);
                L->errors++;
                continue;
            }
            snprintf(val, sizeof val, "%lld",
                     (long long)(x < 0 ? x : x * aliases[i].mult));
        }
        char err[256];
        if (logrep_conf_set(L->bc->conf, aliases[i].target, val, err, sizeof err) != LOGREP_OK) {
            fprintf(stderr, "logrep-broker: error: invalid value for %s: '%s': %s\n",
                    aliases[i].name, L->al[i].value, err);
            L->errors++;
        }
    }
}

static int read_file(loader *L, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "logrep-broker: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[8192];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#' || *s == '!')
            continue;
        char *eq = strpbrk(s, "=:");
        char where[4200];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (!eq) {
            fprintf(stderr, "logrep-broker: %s: error: expected key=value\n", where);
            L->errors++;
            continue;
        }
        *eq = 0;
        set_one(L, where, trim(s), trim(eq + 1));
    }
    fclose(f);
    return 0;
}

/* NAME://host:port,... */
static int parse_listeners(broker_conf *bc, const char *v)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        tok = trim(tok);
        char *sep = strstr(tok, "://");
        char *colon = sep ? strrchr(sep + 3, ':') : NULL;
        if (!sep || !colon || bc->n_listeners >= BROKER_MAX_LISTENERS) {
            fprintf(stderr, "logrep-broker: error: listeners: expected NAME://host:port, got '%s'\n",
                    tok);
            return -1;
        }
        broker_listener *l = &bc->listeners[bc->n_listeners++];
        snprintf(l->name, sizeof l->name, "%.*s", (int)(sep - tok), tok);
        snprintf(l->host, sizeof l->host, "%.*s", (int)(colon - (sep + 3)), sep + 3);
        int64_t port;
        if (parse_i64(colon + 1, &port) != 0 || port < 0 || port > 65535) {
            fprintf(stderr, "logrep-broker: error: listeners: bad port in '%s'\n", tok);
            return -1;
        }
        l->port = (int)port;
        if (!l->host[0])
            snprintf(l->host, sizeof l->host, "0.0.0.0");
    }
    return 0;
}

/* Only PLAINTEXT is implemented: a map naming another protocol is an error. */
static int check_security_map(const char *v)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *c = strchr(tok, ':');
        if (!c || strcmp(trim(c + 1), "PLAINTEXT") != 0) {
            fprintf(stderr,
                    "logrep-broker: error: listener.security.protocol.map: only PLAINTEXT is "
                    "supported, got '%s'\n", trim(tok));
            return -1;
        }
    }
    return 0;
}

static int get_str(const logrep_conf *c, const char *name, char *buf, size_t size)
{
    return logrep_conf_get(c, name, buf, size, NULL) == LOGREP_OK ? 0 : -1;
}

int broker_conf_load(broker_conf *bc, const char *path, char **overrides, int n_overrides)
{
    memset(bc, 0, sizeof *bc);
    bc->conf = logrep_conf_new();
    if (!bc->conf)
        return -1;
    loader *L = calloc(1, sizeof *L);
    if (!L)
        return -1;
    L->bc = bc;
    int rc = 0;
    if (path && read_file(L, path) != 0)
        rc = -1;
    for (int i = 0; i < n_overrides; i++) {
        char kv[4096];
        snprintf(kv, sizeof kv, "%s", overrides[i]);
        char *eq = strchr(kv, '=');
        if (!eq) {
            fprintf(stderr, "logrep-broker: --override %s: expected key=value\n", overrides[i]);
            L->errors++;
            continue;
        }
        *eq = 0;
        set_one(L, "--override", trim(kv), trim(eq + 1));
    }
    apply_aliases(L);

    /* The library reads no random source of its own; the host seeds it
     * (broker incarnation ids must differ between restarts, or the
     * controller takes a restarted broker for its previous life). */
    if (!explicit_set(L, "logrep.random.seed")) {
        uint64_t seed = 0;
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
        }
        char sv[32];
        snprintf(sv, sizeof sv, "%lld", (long long)(seed >> 1));
        logrep_conf_set(bc->conf, "logrep.random.seed", sv, NULL, 0);
    }

    /* Host properties. */
    bc->max_connections = 1000;
    bc->idle_ms = 600000;
    bc->shutdown_timeout_ms = 30000;
    bc->log_level = LOGREP_LEVEL_INFO;
    bc->sendfile = 0;
    bc->cache_window = 64 << 20;
    int64_t x;
    if (L->host_set[H_MAXCONN]) {
        if (parse_i64(L->host_vals[H_MAXCONN], &x) || x < 1 || x > 1000000) {
            fprintf(stderr, "logrep-broker: error: max.connections must be 1..1000000\n");
            L->errors++;
        } else
            bc->max_connections = x;
    }
    if (L->host_set[H_IDLE]) {
        if (parse_i64(L->host_vals[H_IDLE], &x) || x < 1) {
            fprintf(stderr, "logrep-broker: error: connections.max.idle.ms must be >= 1\n");
            L->errors++;
        } else
            bc->idle_ms = x;
    }
    if (L->host_set[H_SHUTDOWN_TIMEOUT]) {
        if (parse_i64(L->host_vals[H_SHUTDOWN_TIMEOUT], &x) || x < 0) {
            fprintf(stderr, "logrep-broker: error: controlled.shutdown.timeout.ms must be >= 0\n");
            L->errors++;
        } else
            bc->shutdown_timeout_ms = x;
    }
    if (L->host_set[H_LOGLEVEL]) {
        const char *v = L->host_vals[H_LOGLEVEL];
        if (!strcmp(v, "error"))
            bc->log_level = LOGREP_LEVEL_ERROR;
        else if (!strcmp(v, "warn"))
            bc->log_level = LOGREP_LEVEL_WARN;
        else if (!strcmp(v, "info"))
            bc->log_level = LOGREP_LEVEL_INFO;
        else if (!strcmp(v, "debug"))
            bc->log_level = LOGREP_LEVEL_DEBUG;
        else if (!strcmp(v, "trace"))
            bc->log_level = LOGREP_LEVEL_TRACE;
        else {
            fprintf(stderr, "logrep-broker: error: logrep.log.level must be "
                            "error|warn|info|debug|trace\n");
            L->errors++;
        }
    }
    if (L->host_set[H_SENDFILE]) {
        const char *v = L->host_vals[H_SENDFILE];
        if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
            fprintf(stderr, "logrep-broker: error: logrep.sendfile must be true|false\n");
            L->errors++;
        } else
            bc->sendfile = strcmp(v, "true") == 0;
    }
    if (L->host_set[H_CACHE_WINDOW]) {
        /* storage.c works in 4 MiB steps: a smaller window would drop ranges
         * whose writeback has only just started. */
        if (parse_i64(L->host_vals[H_CACHE_WINDOW], &x) || (x != 0 && x < (8 << 20))) {
            fprintf(stderr, "logrep-broker: error: logrep.page.cache.window.bytes must be 0 "
                            "(no limit) or >= 8388608\n");
            L->errors++;
        } else
            bc->cache_window = x;
    }
    if (L->host_set[H_SECMAP] && check_security_map(L->host_vals[H_SECMAP]) != 0)
        L->errors++;
    if (L->host_set[H_METRICS]) {
        const char *v = L->host_vals[H_METRICS];
        const char *p = strncmp(v, "http://", 7) == 0 ? v + 7 : NULL;
        const char *colon = p ? strrchr(p, ':') : NULL;
        if (!colon || parse_i64(colon + 1, &x) || x < 0 || x > 65535) {
            fprintf(stderr, "logrep-broker: error: metrics.listener: expected http://host:port, "
                            "got '%s'\n", v);
            L->errors++;
        } else {
            snprintf(bc->metrics_host, sizeof bc->metrics_host, "%.*s", (int)(colon - p), p);
            bc->metrics_port = (int)x;
        }
    }

    char buf[2048];
    if (logrep_conf_get_int64(bc->conf, "node.id", &x) == LOGREP_OK)
        bc->node_id = (int32_t)x;
    if (bc->node_id < 0) {
        fprintf(stderr, "logrep-broker: error: node.id is required\n");
        L->errors++;
    }
    logrep_conf_get_int64(bc->conf, "socket.request.max.bytes", &bc->request_max_bytes);
    if (get_str(bc->conf, "listeners", buf, sizeof buf) == 0 && buf[0]) {
        if (parse_listeners(bc, buf) != 0)
            L->errors++;
    } else {
        fprintf(stderr, "logrep-broker: error: listeners is required "
                        "(e.g. PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093)\n");
        L->errors++;
    }
    /* advertised.listeners defaults to the non-controller listeners. */
    char ctl_names[512] = "";
    get_str(bc->conf, "controller.listener.names", ctl_names, sizeof ctl_names);
    if (get_str(bc->conf, "advertised.listeners", buf, sizeof buf) == 0 && !buf[0]) {
        size_t at = 0;
        for (int i = 0; i < bc->n_listeners; i++) {
            broker_listener *l = &bc->listeners[i];
            if (strstr(ctl_names, l->name))
                continue;
            const char *h = strcmp(l->host, "0.0.0.0") == 0 ? "127.0.0.1" : l->host;
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s://%s:%d", at ? "," : "",
                                   l->name, h, l->port);
            if (at >= sizeof buf)
                break;
        }
        if (at && logrep_conf_set(bc->conf, "advertised.listeners", buf, NULL, 0) != LOGREP_OK)
            L->errors++;
    }
    char roles[64] = "";
    get_str(bc->conf, "process.roles", roles, sizeof roles);
    if (get_str(bc->conf, "controller.quorum.voters", buf, sizeof buf) == 0 && !buf[0]) {
        fprintf(stderr, "logrep-broker: error: controller.quorum.voters is required "
                        "(id@host:port)\n");
        L->errors++;
    }
    if (get_str(bc->conf, "log.dirs", bc->log_dir, sizeof bc->log_dir) != 0 || !bc->log_dir[0]) {
        fprintf(stderr, "logrep-broker: error: log.dirs is required\n");
        L->errors++;
    } else if (strchr(bc->log_dir, ',')) {
        fprintf(stderr, "logrep-broker: error: log.dirs: one directory is supported, got '%s'\n",
                bc->log_dir);
        L->errors++;
    }
    if (L->errors) {
        fprintf(stderr, "logrep-broker: %d configuration error%s; not starting\n", L->errors,
                L->errors == 1 ? "" : "s");
        rc = -1;
    }
    free(L);
    return rc;
}

void broker_conf_free(broker_conf *bc)
{
    logrep_conf_free(bc->conf);
    bc->conf = NULL;
}
