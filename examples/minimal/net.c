/* Socket helpers: see net.h. */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int net_numeric(const char *host, int port, net_addrs *out)
{
    char h[64];
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    if (n >= sizeof h)
        return -1;
    memcpy(h, host, n);
    h[n] = 0;
    memset(out, 0, sizeof *out);
    struct sockaddr_in *a4 = (struct sockaddr_in *)&out->a[0];
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&out->a[0];
    if (inet_pton(AF_INET, h, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        out->len[0] = sizeof *a4;
    } else if (inet_pton(AF_INET6, h, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        out->len[0] = sizeof *a6;
    } else {
        return -1;
    }
    out->n = 1;
    return 0;
}

/* getaddrinfo into out (at most NET_MAX_ADDRS addresses). Blocks. */
static int lookup(const char *host, int port, int passive, net_addrs *out)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = passive ? AI_PASSIVE : 0};
    struct addrinfo *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    memset(out, 0, sizeof *out);
    if (getaddrinfo(host, ps, &hints, &res) != 0)
        return -1;
    for (struct addrinfo *ai = res; ai && out->n < NET_MAX_ADDRS; ai = ai->ai_next) {
        if (ai->ai_addrlen > sizeof out->a[0])
            continue;
        memcpy(&out->a[out->n], ai->ai_addr, ai->ai_addrlen);
        out->len[out->n++] = ai->ai_addrlen;
    }
    freeaddrinfo(res);
    return out->n ? 0 : -1;
}

int net_listen(const char *prog, const char *host, int port)
{
    net_addrs a;
    if (net_numeric(host, port, &a) != 0 && lookup(host, port, 1, &a) != 0) {
        fprintf(stderr, "%s: cannot resolve %s\n", prog, host);
        return -1;
    }
    int fd = socket(a.a[0].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a.a[0], a.len[0]) != 0 || listen(fd, 512) != 0) {
        fprintf(stderr, "%s: listen on %s:%d: %s\n", prog, host, port, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int net_connect_next(net_addrs *a, int *in_progress)
{
    while (a->next < a->n) {
        int i = a->next++;
        int fd = socket(a->a[i].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int r = connect(fd, (struct sockaddr *)&a->a[i], a->len[i]);
        if (r == 0 || errno == EINPROGRESS) {
            *in_progress = r != 0;
            return fd;
        }
        close(fd);
    }
    return -1;
}

int net_connect_error(int fd)
{
    int so = 0;
    socklen_t sl = sizeof so;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) != 0)
        return errno;
    return so;
}

/* ------------------------------------------------------------ resolver */

typedef struct job {
    uint64_t id;
    int32_t port;
    char host[256];
} job;

typedef struct result {
    uint64_t id;
    net_addrs addrs;
} result;

/* Each record is written with one write() of at most PIPE_BUF bytes, so
 * the kernel never interleaves or splits them. */
_Static_assert(sizeof(job) <= 4096 && sizeof(result) <= 4096, "pipe records fit PIPE_BUF");

struct net_resolver {
    int job_rd, job_wr; /* loop -> thread */
    int res_rd, res_wr; /* thread -> loop */
    int started;
    pthread_t thread;
};

static void *resolver_main(void *arg)
{
    net_resolver *r = arg;
    job j;
    /* Until the loop closes its end of the job pipe. */
    while (read(r->job_rd, &j, sizeof j) == (ssize_t)sizeof j) {
        result res = {.id = j.id};
        if (lookup(j.host, j.port, 0, &res.addrs) != 0)
            res.addrs.n = 0;
        ssize_t w;
        do
            w = write(r->res_wr, &res, sizeof res);
        while (w < 0 && errno == EINTR);
        if (w < 0)
            break; /* the loop is gone */
    }
    return NULL;
}

net_resolver *net_resolver_new(void)
{
    net_resolver *r = calloc(1, sizeof *r);
    int jp[2], rp[2];
    if (!r)
        return NULL;
    if (pipe2(jp, O_CLOEXEC) != 0) {
        free(r);
        return NULL;
    }
    if (pipe2(rp, O_CLOEXEC) != 0) {
        close(jp[0]);
        close(jp[1]);
        free(r);
        return NULL;
    }
    r->job_rd = jp[0];
    r->job_wr = jp[1];
    r->res_rd = rp[0];
    r->res_wr = rp[1];
    /* The loop's ends never block: a full job pipe fails the submit, an
     * empty result pipe ends net_resolver_next. */
    fcntl(r->job_wr, F_SETFL, O_NONBLOCK);
    fcntl(r->res_rd, F_SETFL, O_NONBLOCK);
    return r;
}

int net_resolver_fd(const net_resolver *r)
{
    return r->res_rd;
}

int net_resolver_submit(net_resolver *r, uint64_t id, const char *host, int port)
{
    job j = {.id = id, .port = port};
    if (strlen(host) >= sizeof j.host)
        return -1;
    strcpy(j.host, host);
    if (!r->started) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int e = pthread_create(&r->thread, NULL, resolver_main, r);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0)
            return -1;
        r->started = 1;
    }
    return write(r->job_wr, &j, sizeof j) == (ssize_t)sizeof j ? 0 : -1;
}

int net_resolver_next(net_resolver *r, uint64_t *id, net_addrs *out)
{
    result res;
    if (read(r->res_rd, &res, sizeof res) != (ssize_t)sizeof res)
        return -1;
    *id = res.id;
    *out = res.addrs;
    out->next = 0;
    return out->n > 0;
}

void net_resolver_free(net_resolver *r)
{
    if (!r)
        return;
    close(r->job_wr); /* the thread's read sees end of file */
    close(r->res_rd); /* a write it is blocked in fails (SIGPIPE blocked there) */
    if (r->started)
        pthread_join(r->thread, NULL);
    close(r->job_rd);
    close(r->res_wr);
    free(r);
}
