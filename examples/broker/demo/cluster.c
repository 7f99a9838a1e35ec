#include "cluster.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

/* The one process global of the programs built on this file: the signal
 * that asked them to stop (0: none). The handler only sets it; each
 * cluster's watcher thread sees it, stops that cluster's processes,
 * removes its directory, and lets the signal take its default course. */
static volatile sig_atomic_t stop_signal;

static int bindable(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)port)};
    socklen_t l = sizeof a;
    int got = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &l) == 0)
        got = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return got;
}

/* A port to listen on, below the kernel's ephemeral range: a port the
 * kernel hands out (bind to 0) is free now, but the brokers' outgoing
 * connections draw their local ports from that range, and one can take
 * it before the broker meant to listen there starts. A port handed out
 * before is not handed out again (nothing listens on it yet, so binding
 * alone would not tell). Called from one thread. */
static int free_port(void)
{
    static int given[256];
    static size_t n_given;
    static unsigned seed;
    int lo = 32768;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d", &lo) != 1)
            lo = 32768;
        fclose(f);
    }
    if (!seed)
        seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    int top = lo - 1 > 11000 ? lo - 1 : 11000, port = -1;
    for (int i = 0; i < 500 && port < 0; i++) {
        seed = seed * 1103515245u + 12345u;
        int p = 10000 + (int)((seed >> 8) % (unsigned)(top - 10000 + 1));
        int seen = 0;
        for (size_t k = 0; k < n_given; k++)
            seen |= given[k] == p;
        if (!seen && bindable(p) == p)
            port = p;
    }
    if (port < 0)
        port = bindable(0);
    if (port > 0 && n_given < sizeof given / sizeof given[0])
        given[n_given++] = port;
    return port;
}

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void teardown(cluster *c);

static void *watch_main(void *arg)
{
    cluster *c = arg;
    while (!atomic_load(&c->watch_stop)) {
        int sig = stop_signal;
        if (sig) {
            teardown(c);
            signal(sig, SIG_DFL);
            raise(sig);
            return NULL;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int cluster_init(cluster *c, const char *broker_path, int n, const char *extra)
{
    memset(c, 0, sizeof *c);
    if (n < 1 || n > CL_MAX)
        return -1;
    c->n = n;
    snprintf(c->broker_path, sizeof c->broker_path, "%s", broker_path);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(c->dir, sizeof c->dir, "%s/logrep-demo.XXXXXX", tmp);
    if (!mkdtemp(c->dir))
        return -1;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    atomic_store(&c->watch_stop, 0);
    c->watching = pthread_create(&c->watcher, NULL, watch_main, c) == 0;
    char voters[CL_MAX * 32];
    size_t at = 0, vat = 0;
    for (int i = 1; i <= n; i++) {
        c->port[i] = free_port();
        c->cport[i] = free_port();
        c->mport[i] = free_port();
        at += (size_t)snprintf(c->bootstrap + at, sizeof c->bootstrap - at, "%s127.0.0.1:%d",
                               i > 1 ? "," : "", c->port[i]);
        vat += (size_t)snprintf(voters + vat, sizeof voters - vat, "%s%d@127.0.0.1:%d",
                                i > 1 ? "," : "", i, c->cport[i]);
    }
    at = 0;
    for (int i = 1; i <= n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/node%d.properties", c->dir, i);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        fprintf(f, "node.id=%d\n", i);
        fprintf(f, "process.roles=broker,controller\n"
                   "listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d\n",
                c->port[i], c->cport[i]);
        fprintf(f, "advertised.listeners=PLAINTEXT://127.0.0.1:%d\n"
                   "controller.quorum.voters=%s\n"
                   "log.dirs=%s/data%d\n"
                   "num.partitions=6\ndefault.replication.factor=3\nmin.insync.replicas=2\n"
                   "replica.lag.time.max.ms=10000\n"
                   "broker.session.timeout.ms=%d\nbroker.heartbeat.interval.ms=500\n"
                   "controlled.shutdown.timeout.ms=5000\n"
                   "metrics.listener=http://127.0.0.1:%d\n"
                   "%s\n",
                c->port[i], voters, c->dir, i, CL_SESSION_TIMEOUT_MS, c->mport[i],
                extra ? extra : "");
        fclose(f);
    }
    return 0;
}

int cluster_node_start(cluster *c, int i)
{
    char props[512], logp[512];
    snprintf(props, sizeof props, "%s/node%d.properties", c->dir, i);
    snprintf(logp, sizeof logp, "%s/node%d.log", c->dir, i);
    pid_t p = fork();
    if (p < 0)
        return -1;
    if (p == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        signal(SIGINT, SIG_IGN); /* the parent stops us */
        signal(SIGTERM, SIG_DFL);
        execl(c->broker_path, c->broker_path, props, (char *)NULL);
        _exit(127);
    }
    c->pid[i] = p;
    return 0;
}

void cluster_node_kill(cluster *c, int i, int sig)
{
    if (c->pid[i] <= 0)
        return;
    kill(c->pid[i], sig);
    for (int t = 0; t < 300; t++) { /* 30 s for a controlled shutdown */
        if (waitpid(c->pid[i], NULL, WNOHANG) == c->pid[i]) {
            c->pid[i] = 0;
            return;
        }
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    kill(c->pid[i], SIGKILL);
    waitpid(c->pid[i], NULL, 0);
    c->pid[i] = 0;
}

int cluster_wait_ready(cluster *c, int timeout_ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int ok = 1;
        for (int i = 1; i <= c->n && ok; i++) {
            char bs[64], err[256];
            snprintf(bs, sizeof bs, "127.0.0.1:%d", c->port[i]);
            rd_kafka_conf_t *conf = rd_kafka_conf_new();
            rd_kafka_conf_set(conf, "bootstrap.servers", bs, err, sizeof err);
            rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
            rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
            const struct rd_kafka_metadata *md = NULL;
            ok = rk && rd_kafka_metadata(rk, 0, NULL, &md, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR &&
                 md->broker_cnt == c->n;
            if (md)
                rd_kafka_metadata_destroy(md);
            if (rk)
                rd_kafka_destroy(rk);
        }
        if (ok)
            return 0;
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            return -1;
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
    }
}

long cluster_metrics(const cluster *c, int i, char *buf, size_t size)
{
    if (i < 1 || i > c->n || size < 1)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)c->mport[i])};
    struct timeval tv = {5, 0};
    const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
    long got = -1;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
        connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
        got = 0;
        ssize_t n;
        while ((size_t)got < size - 1 && (n = read(fd, buf + got, size - 1 - (size_t)got)) > 0)
            got += n;
        buf[got] = 0;
    }
    if (fd >= 0)
        close(fd);
    return got;
}

int cluster_active_controller(const cluster *c)
{
    static const char key[] = "\nlogrep_node_is_controller{";
    char page[1 << 16];
    int found = 0;
    for (int i = 1; i <= c->n; i++) {
        if (c->pid[i] <= 0 || cluster_metrics(c, i, page, sizeof page) <= 0)
            continue;
        const char *k = strstr(page, key);
        const char *v = k ? strchr(k + 1, '}') : NULL;
        if (v && v[1] == ' ' && v[2] == '1') {
            if (found)
                return -1;
            found = i;
        }
    }
    return found;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void cluster_destroy(cluster *c)
{
    if (c->watching) {
        atomic_store(&c->watch_stop, 1);
        pthread_join(c->watcher, NULL);
        c->watching = 0;
    }
    teardown(c);
}

static void teardown(cluster *c)
{
    /* Every node at once: each is broker and controller, and its
     * controlled shutdown ends by itself (controlled.shutdown.timeout.ms)
     * once the quorum has lost its majority. */
    for (int i = c->n; i >= 1; i--)
        if (c->pid[i] > 0)
            kill(c->pid[i], SIGTERM);
    for (int i = c->n; i >= 1; i--)
        cluster_node_kill(c, i, SIGTERM);
    if (c->dir[0]) {
        if (getenv("LOGREP_KEEP_DIR"))
            fprintf(stderr, "kept %s\n", c->dir);
        else
            nftw(c->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    c->dir[0] = 0;
    c->n = 0;
}
