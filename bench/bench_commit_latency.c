/* acks=all commit latency over loopback TCP: three nodes (node 1 also the
 * controller) in one process, each driven by its own epoll loop on its own
 * thread (as separate brokers would run), POSIX storage in a
 * temporary directory, RF 3, min.insync.replicas 2. A client produces one
 * 100 B record at a time with acks=all and measures the time to the
 * acknowledgement. Baseline in the same run: the loopback round trip of a
 * 100 B ping-pong between two threads. Targets: p50 <= 3 round trips,
 * p99 < 1 ms. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include <logrep.h>
#include <logrep/log.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>

#define NODES 3
#define MAXC 64
#define ITER 3000

typedef struct conn {
    int fd;
    int owner;        /* node index (1..NODES) or 0 for the bench client */
    int accepted;     /* requests arrive here */
    uint8_t *in;
    size_t in_len, in_cap;
    uint8_t *out;
    size_t out_len, out_cap;
} conn;

static conn conns[MAXC];
static int epfds[NODES + 1]; /* one loop per node; index 0 is the client's */
static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static logrep_node *nodes[NODES + 1];
static int listen_fd[NODES + 1];
static int ports[NODES + 1];

static int64_t now_ms(void)
{
    return (int64_t)(bench_now() * 1000.0);
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static int alloc_conn(int fd, int owner, int accepted)
{
    pthread_mutex_lock(&conn_lock);
    for (int i = 1; i < MAXC; i++) {
        if (conns[i].fd)
            continue;
        memset(&conns[i], 0, sizeof conns[i]);
        conns[i].fd = fd;
        conns[i].owner = owner;
        conns[i].accepted = accepted;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {EPOLLIN | EPOLLOUT | EPOLLET, {.u32 = (uint32_t)i}};
        epoll_ctl(epfds[owner], EPOLL_CTL_ADD, fd, &ev);
        pthread_mutex_unlock(&conn_lock);
        return i;
    }
    fprintf(stderr, "out of connections\n");
    exit(1);
}

static void append(uint8_t **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (*len + n > *cap) {
        *cap = (*len + n) * 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *len, p, n);
    *len += n;
}

static void flush_out(conn *c)
{
    while (c->out_len) {
        ssize_t w = write(c->fd, c->out, c->out_len);
        if (w <= 0)
            return;
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
    }
}

static logrep_err t_send(void *ctx, uint64_t id, const logrep_seg *segs, size_t n)
{
    (void)ctx;
    conn *c = &conns[id];
    if (!c->fd)
        return LOGREP_ERR__IO;
    for (size_t i = 0; i < n; i++) {
        if (segs[i].data) {
            append(&c->out, &c->out_len, &c->out_cap, segs[i].data, segs[i].len);
        } else {
            /* Bytes from a segment file: read them (a real host sendfiles). */
            uint8_t *tmp = malloc(segs[i].len ? segs[i].len : 1);
            ssize_t r = pread((int)segs[i].file, tmp, segs[i].len, segs[i].pos);
            if (r != (ssize_t)segs[i].len)
                die("pread");
            append(&c->out, &c->out_len, &c->out_cap, tmp, segs[i].len);
            free(tmp);
        }
    }
    flush_out(c);
    return LOGREP_OK;
}

static logrep_err t_connect(void *ctx, int32_t node_id, const char *host, int32_t port, uint64_t *out)
{
    (void)node_id;
    int owner = (int)(intptr_t)ctx;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return LOGREP_ERR__IO;
    }
    *out = (uint64_t)alloc_conn(fd, owner, 0);
    return LOGREP_OK;
}

static void t_close(void *ctx, uint64_t id)
{
    (void)ctx;
    if (id < MAXC && conns[id].fd) {
        close(conns[id].fd);
        free(conns[id].in);
        free(conns[id].out);
        memset(&conns[id], 0, sizeof conns[id]);
    }
}

/* Client responses land here. */
static uint8_t *client_frame;
static size_t client_frame_len;
static atomic_long client_responses;

static void on_readable(int id)
{
    conn *c = &conns[id];
    for (;;) {
        uint8_t buf[65536];
        ssize_t r = read(c->fd, buf, sizeof buf);
        if (r <= 0)
            break;
        append(&c->in, &c->in_len, &c->in_cap, buf, (size_t)r);
    }
    size_t pos = 0, flen;
    while (c->fd && logrep_proto_frame(c->in + pos, c->in_len - pos, 0, &flen) == LOGREP_OK) {
        if (c->owner == 0) {
            atomic_fetch_add(&client_responses, 1);
            free(client_frame);
            client_frame = malloc(flen);
            memcpy(client_frame, c->in + pos, flen);
            client_frame_len = flen;
        } else if (c->accepted) {
            logrep_node_request(nodes[c->owner], (uint64_t)id, c->in + pos, flen, now_ms());
        } else {
            logrep_node_response(nodes[c->owner], (uint64_t)id, c->in + pos, flen, now_ms());
        }
        pos += flen;
    }
    if (c->fd) {
        memmove(c->in, c->in + pos, c->in_len - pos);
        c->in_len -= pos;
    }
}

static void poll_once(int owner, int timeout_ms)
{
    struct epoll_event evs[64];
    int n = epoll_wait(epfds[owner], evs, 64, timeout_ms);
    for (int i = 0; i < n; i++) {
        uint32_t tag = evs[i].data.u32;
        if (tag >= 1000) { /* a listener */
            int node = (int)(tag - 1000);
            int fd;
            while ((fd = accept(listen_fd[node], NULL, NULL)) >= 0)
                alloc_conn(fd, node, 1);
            continue;
        }
        if (!conns[tag].fd)
            continue;
        if (evs[i].events & EPOLLOUT)
            flush_out(&conns[tag]);
        if (evs[i].events & EPOLLIN)
            on_readable((int)tag);
    }
    if (owner == 0)
        return;
    int64_t t = now_ms();
    static int64_t last_tick[NODES + 1];
    if (t - last_tick[owner] >= 5) {
        logrep_node_tick(nodes[owner], t);
        last_tick[owner] = t;
    }
}

static void *node_loop(void *arg)
{
    int k = (int)(intptr_t)arg;
    while (!atomic_load(&stop))
        poll_once(k, 2);
    return NULL;
}

/* The other host model: one thread drives all three nodes, waiting on an
 * epoll set of the nodes' epoll sets. Peer messages still cross loopback
 * TCP, but a hop between nodes costs no thread wake-up. */
static void *shared_loop(void *arg)
{
    (void)arg;
    int top = epoll_create1(0);
    for (int k = 1; k <= NODES; k++) {
        struct epoll_event ev = {EPOLLIN, {.u32 = (uint32_t)k}};
        epoll_ctl(top, EPOLL_CTL_ADD, epfds[k], &ev);
    }
    while (!atomic_load(&stop)) {
        struct epoll_event evs[NODES];
        int n = epoll_wait(top, evs, NODES, 2);
        for (int i = 0; i < n; i++)
            poll_once((int)evs[i].data.u32, 0);
        if (n <= 0)
            for (int k = 1; k <= NODES; k++)
                poll_once(k, 0);
    }
    close(top);
    return NULL;
}

/* Sends a request from the client and waits for its response frame. */
static void client_roundtrip(int cid, logrep_msg *m)
{
    const uint8_t *buf;
    size_t len;
    if (logrep_msg_encode_flat(m, &buf, &len) != LOGREP_OK)
        die("encode");
    append(&conns[cid].out, &conns[cid].out_len, &conns[cid].out_cap, buf, len);
    flush_out(&conns[cid]);
    free(client_frame);
    client_frame = NULL;
    double deadline = bench_now() + 10;
    while (!client_frame && bench_now() < deadline)
        poll_once(0, 1);
    if (!client_frame) {
        fprintf(stderr, "no response\n");
        exit(1);
    }
}

/* Loopback round trip of a 100 B ping-pong between two threads, each
 * blocking in read() as two processes would (docs/performance.md, Commit latency). */
static void *echo_thread(void *arg)
{
    int s = (int)(intptr_t)arg;
    char buf[100];
    for (;;)
        if (read(s, buf, 100) != 100 || write(s, buf, 100) != 100)
            break;
    return NULL;
}

/* A connected pair with an echo thread on one end. */
static int rtt_client, rtt_server;
static pthread_t rtt_thread;

static int fl_cl[2], fl_f[2][2];
static atomic_int fl_stop;

/* A connected loopback TCP pair with TCP_NODELAY, non-blocking if asked. */
static void tcp_pair(int *a, int *b, int nonblock)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in s = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &s.sin_addr);
    socklen_t l = sizeof s;
    if (bind(ls, (struct sockaddr *)&s, sizeof s) || listen(ls, 1) ||
        getsockname(ls, (struct sockaddr *)&s, &l))
        die("listen");
    *a = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(*a, (struct sockaddr *)&s, sizeof s))
        die("connect");
    *b = accept(ls, NULL, NULL);
    close(ls);
    int one = 1;
    setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (nonblock) {
        fcntl(*a, F_SETFL, O_NONBLOCK);
        fcntl(*b, F_SETFL, O_NONBLOCK);
    }
}

static void rtt_setup(void)
{
    tcp_pair(&rtt_client, &rtt_server, 0);
    pthread_create(&rtt_thread, NULL, echo_thread, (void *)(intptr_t)rtt_server);
}

static double rtt_sample_us(void)
{
    char buf[100] = {0};
    double t0 = bench_now();
    if (write(rtt_client, buf, 100) != 100 || read(rtt_client, buf, 100) != 100)
        die("pingpong");
    return (bench_now() - t0) * 1e6;
}

/* ITER acks=all produces of one 100 B record, one at a time, each followed
 * by a loopback round-trip sample so both see the same load. */
static void latency_run(int cid, logrep_msg *m, logrep_msg *r, logrep_batch_builder *b,
                        double *lat, double *rtts, int *errors)
{
    char value[100];
    memset(value, 'x', sizeof value);
    for (int i = 0; i < ITER + 200; i++) {
        logrep_batch_builder_reset(b);
        logrep_batch_builder_add(b, 0, NULL, -1, value, sizeof value, NULL, 0);
        const uint8_t *batch;
        size_t blen;
        logrep_batch_builder_finish(b, &batch, &blen);
        logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, i + 2, "bench");
        logrep_struct *root = logrep_msg_root(m);
        logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), -1);
        logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 5000);
        logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
        logrep_struct *t = logrep_struct_elem(root, logrep_struct_field(root, "TopicData"), 0);
        logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "lat", 3);
        logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
        logrep_struct *p = logrep_struct_elem(t, logrep_struct_field(t, "PartitionData"), 0);
        logrep_struct_set_int(p, logrep_struct_field(p, "Index"), 0);
        logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
        double t0 = bench_now();
        client_roundtrip(cid, m);
        double us = (bench_now() - t0) * 1e6;
        logrep_msg_decode_response(r, LOGREP_API_PRODUCE, 7, client_frame, client_frame_len);
        logrep_struct *rr = logrep_msg_root(r);
        logrep_struct *rt = logrep_struct_elem(rr, logrep_struct_field(rr, "Responses"), 0);
        logrep_struct *rp = logrep_struct_elem(rt, logrep_struct_field(rt, "PartitionResponses"), 0);
        if (logrep_struct_int(rp, logrep_struct_field(rp, "ErrorCode")))
            (*errors)++;
        double rtt_us = rtt_sample_us();
        if (i >= 200) { /* warm-up excluded */
            lat[i - 200] = us;
            rtts[i - 200] = rtt_us;
        }
    }
    qsort(lat, ITER, sizeof *lat, bench_cmp_double);
    qsort(rtts, ITER, sizeof *rtts, bench_cmp_double);
}

/* The floor of the commit's message pattern with a thread per node and no
 * processing at all: client -> leader, leader -> both followers, both
 * followers -> leader, leader -> client, 100 B each, every thread waiting
 * in epoll_wait as the node loops do. Returns the p50 in microseconds. */
static void *fl_node(void *arg)
{
    int who = (int)(intptr_t)arg; /* 0: leader, 1 and 2: followers */
    int ep = epoll_create1(0), fds[3], nfds = 0, acks = 0;
    if (who == 0) {
        fds[nfds++] = fl_cl[1];
        fds[nfds++] = fl_f[0][0];
        fds[nfds++] = fl_f[1][0];
    } else {
        fds[nfds++] = fl_f[who - 1][1];
    }
    for (int i = 0; i < nfds; i++) {
        struct epoll_event ev = {EPOLLIN, {.u32 = (uint32_t)i}};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
    }
    char buf[512] = {0};
    while (!atomic_load(&fl_stop)) {
        struct epoll_event evs[3];
        int n = epoll_wait(ep, evs, 3, 2);
        for (int i = 0; i < n; i++) {
            int fd = fds[evs[i].data.u32];
            while (read(fd, buf, sizeof buf) > 0)
                ;
            int ok = 1;
            if (who != 0) {
                ok = write(fd, buf, 100) == 100; /* a follower's next fetch */
            } else if (fd == fl_cl[1]) {         /* the produce: to both followers */
                ok = write(fl_f[0][0], buf, 100) == 100 && write(fl_f[1][0], buf, 100) == 100;
                acks = 0;
            } else if (++acks == 2) { /* both followers caught up: the ack */
                ok = write(fl_cl[1], buf, 100) == 100;
            }
            if (!ok)
                die("floor write");
        }
    }
    close(ep);
    return NULL;
}

static double pattern_floor_us(void)
{
    tcp_pair(&fl_cl[0], &fl_cl[1], 1);
    tcp_pair(&fl_f[0][0], &fl_f[0][1], 1);
    tcp_pair(&fl_f[1][0], &fl_f[1][1], 1);
    pthread_t th[3];
    atomic_store(&fl_stop, 0);
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, fl_node, (void *)(intptr_t)i);
    int ep = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {.u32 = 0}};
    epoll_ctl(ep, EPOLL_CTL_ADD, fl_cl[0], &ev);
    double *v = malloc(sizeof *v * ITER);
    char buf[512] = {0};
    for (int i = 0; i < ITER + 200; i++) {
        double t0 = bench_now();
        if (write(fl_cl[0], buf, 100) != 100)
            die("floor write");
        while (epoll_wait(ep, &ev, 1, 1) != 1)
            ;
        while (read(fl_cl[0], buf, sizeof buf) > 0)
            ;
        if (i >= 200)
            v[i - 200] = (bench_now() - t0) * 1e6;
    }
    atomic_store(&fl_stop, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    qsort(v, ITER, sizeof *v, bench_cmp_double);
    double p50 = v[ITER / 2];
    free(v);
    close(ep);
    int all[] = {fl_cl[0], fl_cl[1], fl_f[0][0], fl_f[0][1], fl_f[1][0], fl_f[1][1]};
    for (int i = 0; i < 6; i++)
        close(all[i]);
    return p50;
}

/* A 16 KiB-ish batch of records of `vsize` bytes; returns its record count. */
static int make_batch(logrep_batch_builder *b, size_t vsize, const uint8_t **out, size_t *len)
{
    char value[1024];
    memset(value, 'v', sizeof value);
    logrep_batch_builder_reset(b);
    int n = 0;
    while (logrep_batch_builder_size_estimate(b) + vsize + 32 < 16384) {
        logrep_batch_builder_add(b, 1700000000000LL, NULL, -1, value, (int32_t)vsize, NULL, 0);
        n++;
    }
    logrep_batch_builder_finish(b, out, len);
    return n;
}

/* acks=all throughput with up to `window` produce requests in flight on one
 * connection, for `seconds`; returns records/s. */
static double pipelined_throughput(int cid, logrep_msg *m, logrep_batch_builder *b, size_t vsize,
                                   double seconds, int window)
{
    const uint8_t *batch;
    size_t blen;
    int per = make_batch(b, vsize, &batch, &blen);
    logrep_msg_init_request(m, LOGREP_API_PRODUCE, 7, 1, "bench");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, logrep_struct_field(root, "Acks"), -1);
    logrep_struct_set_int(root, logrep_struct_field(root, "TimeoutMs"), 10000);
    logrep_struct_set_count(root, logrep_struct_field(root, "TopicData"), 1);
    logrep_struct *t = logrep_struct_elem(root, logrep_struct_field(root, "TopicData"), 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "lat", 3);
    logrep_struct_set_count(t, logrep_struct_field(t, "PartitionData"), 1);
    logrep_struct *p = logrep_struct_elem(t, logrep_struct_field(t, "PartitionData"), 0);
    logrep_struct_set_int(p, logrep_struct_field(p, "Index"), 0);
    logrep_struct_set_records(p, logrep_struct_field(p, "Records"), batch, (int32_t)blen);
    const uint8_t *req;
    size_t rlen;
    if (logrep_msg_encode_flat(m, &req, &rlen) != LOGREP_OK)
        die("encode");
    long base = atomic_load(&client_responses), sent = 0;
    double t0 = bench_now(), end = t0 + seconds;
    while (bench_now() < end) {
        while (sent - (atomic_load(&client_responses) - base) < window) {
            append(&conns[cid].out, &conns[cid].out_len, &conns[cid].out_cap, req, rlen);
            sent++;
        }
        flush_out(&conns[cid]);
        poll_once(0, 1);
    }
    double el = bench_now() - t0;
    long done = atomic_load(&client_responses) - base;
    /* Drain what is still in flight before the next phase. */
    double deadline = bench_now() + 10;
    while (atomic_load(&client_responses) - base < sent && bench_now() < deadline)
        poll_once(0, 1);
    return (double)done * per / el;
}

/* The same batches appended to one local log (no replication, no network). */
static double local_append_rate(const char *dir, logrep_storage *st, logrep_batch_builder *b,
                                size_t vsize, double seconds)
{
    const uint8_t *batch;
    size_t blen;
    int per = make_batch(b, vsize, &batch, &blen);
    char path[512];
    static int nlocal;
    snprintf(path, sizeof path, "%s/local%d-0", dir, nlocal++);
    logrep_log *log;
    if (logrep_log_open(NULL, st, path, 0, &log) != LOGREP_OK)
        die("log open");
    uint8_t *copy = malloc(blen);
    long n = 0;
    double t0 = bench_now(), end = t0 + seconds;
    while (bench_now() < end) {
        for (int i = 0; i < 64; i++, n++) {
            memcpy(copy, batch, blen);
            logrep_log_append_info info;
            if (logrep_log_append_leader(log, copy, blen, 0, 0, &info) != LOGREP_OK)
                die("append");
        }
    }
    double el = bench_now() - t0;
    free(copy);
    logrep_log_close(log);
    return (double)n * per / el;
}

int main(void)
{
    char dir[] = "/tmp/logrep-bench-latency-XXXXXX";
    if (!mkdtemp(dir))
        die("mkdtemp");
    for (int k = 0; k <= NODES; k++)
        epfds[k] = epoll_create1(0);
    for (int k = 1; k <= NODES; k++) {
        listen_fd[k] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        if (bind(listen_fd[k], (struct sockaddr *)&a, sizeof a) || listen(listen_fd[k], 64))
            die("listen");
        socklen_t al = sizeof a;
        getsockname(listen_fd[k], (struct sockaddr *)&a, &al);
        ports[k] = ntohs(a.sin_port);
        struct epoll_event ev = {EPOLLIN, {.u32 = (uint32_t)(1000 + k)}};
        epoll_ctl(epfds[k], EPOLL_CTL_ADD, listen_fd[k], &ev);
    }
    logrep_storage *st;
    if (logrep_storage_posix_new(NULL, &st) != LOGREP_OK)
        die("storage");
    static logrep_transport tr[NODES + 1];
    for (int k = 1; k <= NODES; k++) {
        logrep_conf *conf = logrep_conf_new();
        char v[512];
        snprintf(v, sizeof v, "%d", k);
        logrep_conf_set(conf, "node.id", v, NULL, 0);
        logrep_conf_set(conf, "process.roles", k == 1 ? "broker,controller" : "broker", NULL, 0);
        snprintf(v, sizeof v, "1@127.0.0.1:%d", ports[1]);
        logrep_conf_set(conf, "controller.quorum.voters", v, NULL, 0);
        snprintf(v, sizeof v, "PLAINTEXT://127.0.0.1:%d", ports[k]);
        logrep_conf_set(conf, "advertised.listeners", v, NULL, 0);
        snprintf(v, sizeof v, "%s/node%d", dir, k);
        logrep_conf_set(conf, "log.dirs", v, NULL, 0);
        logrep_conf_set(conf, "min.insync.replicas", "2", NULL, 0);
        tr[k] = (logrep_transport){LOGREP_TRANSPORT_VERSION, (void *)(intptr_t)k, t_send, t_connect, t_close};
        char err[160];
        if (logrep_node_new(conf, st, &tr[k], now_ms(), err, sizeof err, &nodes[k]) != LOGREP_OK) {
            fprintf(stderr, "node %d: %s\n", k, err);
            return 1;
        }
        logrep_conf_free(conf);
    }
    pthread_t th[NODES + 1];
    for (int k = 1; k <= NODES; k++)
        pthread_create(&th[k], NULL, node_loop, (void *)(intptr_t)k);
    usleep(3000000);

    /* The bench client talks to node 1 for admin, then to the leader. */
    int cfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ports[1])};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(cfd, (struct sockaddr *)&a, sizeof a))
        die("client connect");
    int cid = alloc_conn(cfd, 0, 0);
    logrep_msg *m, *r;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &r);
    logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, 5, 1, "bench");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_count(root, logrep_struct_field(root, "Topics"), 1);
    logrep_struct *t = logrep_struct_elem(root, logrep_struct_field(root, "Topics"), 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "Name"), "lat", 3);
    logrep_struct_set_int(t, logrep_struct_field(t, "NumPartitions"), 1);
    logrep_struct_set_int(t, logrep_struct_field(t, "ReplicationFactor"), 3);
    client_roundtrip(cid, m);
    usleep(2000000);
    /* Find the leader: stop the loops briefly to read the nodes' state
     * (a node is used by one thread at a time). */
    atomic_store(&stop, 1);
    for (int k = 1; k <= NODES; k++)
        pthread_join(th[k], NULL);
    int leader = -1;
    for (int k = 1; k <= NODES && leader < 0; k++) {
        logrep_node_partition_info pi;
        for (size_t i = 0; logrep_node_partition(nodes[k], i, &pi) == LOGREP_OK; i++)
            if (pi.role == 1)
                leader = k;
    }
    atomic_store(&stop, 0);
    for (int k = 1; k <= NODES; k++)
        pthread_create(&th[k], NULL, node_loop, (void *)(intptr_t)k);
    if (leader < 0) {
        fprintf(stderr, "no leader\n");
        return 1;
    }
    t_close(NULL, (uint64_t)cid);
    cfd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_port = htons((uint16_t)ports[leader]);
    if (connect(cfd, (struct sockaddr *)&a, sizeof a))
        die("client connect");
    cid = alloc_conn(cfd, 0, 0);

    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    double lat[2][ITER], rtts[2][ITER];
    /* Round trips are sampled between produces, so both see the same load
     * on this shared machine. */
    rtt_setup();
    int errors = 0;
    latency_run(cid, m, r, b, lat[0], rtts[0], &errors);
    /* Same cluster, the other host model. */
    atomic_store(&stop, 1);
    for (int k = 1; k <= NODES; k++)
        pthread_join(th[k], NULL);
    atomic_store(&stop, 0);
    pthread_t shared;
    pthread_create(&shared, NULL, shared_loop, NULL);
    latency_run(cid, m, r, b, lat[1], rtts[1], &errors);
    atomic_store(&stop, 1);
    pthread_join(shared, NULL);
    atomic_store(&stop, 0);
    for (int k = 1; k <= NODES; k++)
        pthread_create(&th[k], NULL, node_loop, (void *)(intptr_t)k);
    double floor_us = pattern_floor_us();
    shutdown(rtt_client, SHUT_RDWR);
    pthread_join(rtt_thread, NULL);
    close(rtt_client);
    close(rtt_server);
    double thr[2], loc[2];
    size_t vsizes[2] = {100, 1024};
    /* Slices of each, alternated, so both see the same page-cache and
     * writeback conditions of this shared machine. */
    for (int k = 0; k < 2; k++) {
        thr[k] = loc[k] = 0;
        for (int round = 0; round < 4; round++) {
            thr[k] += pipelined_throughput(cid, m, b, vsizes[k], 0.5, 16) / 4;
            loc[k] += local_append_rate(dir, st, b, vsizes[k], 0.25) / 4;
        }
    }
    printf("-- acks=all commit latency, 3 nodes over loopback TCP, RF 3, min ISR 2 (2 x %d produces, %d errors)\n",
           ITER, errors);
    static const char *const model[2] = {"thread per node", "one loop, all nodes"};
    for (int k = 0; k < 2; k++) {
        double rtt = rtts[k][ITER / 2], rtt99 = rtts[k][ITER * 99 / 100];
        double p50 = lat[k][ITER / 2], p99 = lat[k][ITER * 99 / 100];
        char name[80];
        snprintf(name, sizeof name, "%s: loopback round trip p50", model[k]);
        printf("%-46s %12.1f %-10s (p99 %.1f us; 2 threads, 100 B)\n", name, rtt, "us", rtt99);
        snprintf(name, sizeof name, "%s: acks=all commit p50", model[k]);
        printf("%-46s %12.1f %-10s %7.2fx %-18s target <=3.00: %s\n", name, p50, "us", p50 / rtt,
               "round trips", p50 / rtt <= 3 ? "ok" : "MISSED");
        snprintf(name, sizeof name, "%s: acks=all commit p99", model[k]);
        printf("%-46s %12.1f %-10s %7.2fx %-18s target < 1000 us: %s\n", name, p99, "us", p99 / rtt,
               "round trips", p99 < 1000 ? "ok" : "MISSED");
        if (k == 0)
            printf("%-46s %12.1f %-10s %7.2fx %s\n", "  same messages, no processing (floor) p50", floor_us,
                   "us", floor_us / rtt, "round trips (4 threads on this machine's cores)");
    }

    atomic_store(&stop, 1);
    for (int k = 1; k <= NODES; k++)
        pthread_join(th[k], NULL);
    printf("-- acks=all throughput, 16 KiB batches, 16 requests in flight, against one local log\n");
    for (int k = 0; k < 2; k++) {
        char name[80];
        snprintf(name, sizeof name, "RF3 acks=all %4zu B records (TCP, 3 threads)", vsizes[k]);
        bench_report(name, thr[k], "records/s", thr[k] / loc[k], "of local append", 0.5, 1);
        snprintf(name, sizeof name, "RF3 acks=all %4zu B records (TCP, 3 threads)", vsizes[k]);
        bench_report(name, thr[k] * (double)vsizes[k] / 1e6, "MB/s", thr[k] / loc[k],
                     "of local append", 0.5, 1);
    }
    for (int k = 1; k <= NODES; k++)
        logrep_node_free(nodes[k], 0);
    logrep_storage_free(st);
    logrep_batch_builder_free(b);
    logrep_msg_free(m);
    logrep_msg_free(r);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return errors ? 1 : 0;
}
