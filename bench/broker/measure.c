/* bench-broker's measurements: see measure.h. */
#include "measure.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ counters */

/* The sum over a page's samples of `name` whose labels contain `label`
 * (NULL: any). */
static double metric_sum(const char *page, const char *name, const char *label)
{
    double sum = 0;
    size_t nl = strlen(name);
    for (const char *l = page; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, name, nl) != 0 || (l[nl] != '{' && l[nl] != ' '))
            continue;
        const char *end = strchr(l, '\n'), *sp = NULL;
        for (const char *q = l; q < (end ? end : l + strlen(l)); q++)
            if (*q == ' ')
                sp = q;
        const char *lab = strchr(l, '{');
        if (!sp || (label && (!lab || lab > sp || !memmem(lab, (size_t)(sp - lab), label,
                                                          strlen(label)))))
            continue;
        sum += atof(sp + 1);
    }
    return sum;
}

#define PAGE_MAX (1 << 20)

void counters_take(counters *k, const cluster *c)
{
    memset(k, 0, sizeof *k);
    char *page = c ? malloc(PAGE_MAX) : NULL;
    for (int i = 1; page && i <= c->n; i++) {
        if (cluster_metrics(c, i, page, PAGE_MAX) <= 0)
            continue;
        const char *req = "logrep_broker_requests_total", *lat = "logrep_broker_request_latency_seconds_sum";
        k->produces += metric_sum(page, req, "api=\"Produce\"");
        k->fetches += metric_sum(page, req, "api=\"Fetch\"");
        k->records += metric_sum(page, "logrep_node_produce_records_total", NULL);
        k->produce_s += metric_sum(page, lat, "api=\"Produce\"");
        k->bytes_sent += metric_sum(page, "logrep_broker_socket_bytes_sent_total", NULL);
    }
    free(page);
}

broker_use broker_use_between(const counters *a, const counters *b)
{
    broker_use u = {0};
    double p = b->produces - a->produces, fe = b->fetches - a->fetches;
    if (p <= 0)
        return u;
    u.recs_per_produce = (b->records - a->records) / p;
    u.fetches_per_produce = fe / p;
    u.produce_ms = (b->produce_s - a->produce_s) / p * 1000;
    u.kib_per_fetch = fe > 0 ? (b->bytes_sent - a->bytes_sent) / fe / 1024 : 0;
    return u;
}

/* ------------------------------------------------------------ CPU time */



/* CPU time of a task or process from its schedstat (the scheduler's own
 * sum of run time: tick-sampled utime/stime misses or overcounts tasks
 * that run for microseconds at a time), in microseconds; its comm in comm
 * (when given). -1 when it cannot be read. */
static int64_t task_cpu_us(const char *dir, char *comm, size_t commsz)
{
    char path[300];
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "%s/schedstat", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%llu", &ns) == 1;
    fclose(f);
    if (!ok)
        return -1;
    if (comm) {
        snprintf(path, sizeof path, "%s/comm", dir);
        comm[0] = 0;
        if ((f = fopen(path, "r"))) {
            if (fgets(comm, (int)commsz, f))
                comm[strcspn(comm, "\n")] = 0;
            fclose(f);
        }
    }
    return (int64_t)(ns / 1000);
}

/* A process's CPU time: the sum over its threads. */
static int64_t proc_cpu_us(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    int64_t sum = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char t[330];
        snprintf(t, sizeof t, "%s/%s", dir, e->d_name);
        int64_t us = task_cpu_us(t, NULL, 0);
        sum += us > 0 ? us : 0;
    }
    if (d)
        closedir(d);
    return sum;
}

/* Busy and total time of the whole machine (all CPUs), /proc/stat ticks. */
static void machine_ticks(int64_t *busy, int64_t *total)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    *busy = *total = 0;
    if (!f)
        return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) == 8) {
        for (int i = 0; i < 8; i++)
            *total += (int64_t)v[i];
        *busy = *total - (int64_t)(v[3] + v[4]); /* idle, iowait */
    }
    fclose(f);
}

void cpu_mark_take(cpu_mark *m, const cluster *c)
{
    memset(m, 0, sizeof *m);
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char dir[300], comm[64];
        snprintf(dir, sizeof dir, "/proc/self/task/%s", e->d_name);
        int64_t us = task_cpu_us(dir, comm, sizeof comm);
        if (us < 0)
            continue;
        if (strcmp(comm, "rdk:mock") == 0)
            m->mock += us;
        else
            m->client += us;
    }
    if (d)
        closedir(d);
    for (int i = 1; c && i <= c->n; i++)
        m->cluster += c->pid[i] > 0 ? proc_cpu_us(c->pid[i]) : 0;
    machine_ticks(&m->busy, &m->total);
}

cpu_use cpu_use_between(const cpu_mark *a, const cpu_mark *b, int64_t records, int mock)
{
    cpu_use u = {0};
    double per = records > 0 ? 1.0 / (double)records : 0;
    u.client_us = (double)(b->client - a->client) * per;
    u.cluster_us = (double)(mock ? b->mock - a->mock : b->cluster - a->cluster) * per;
    int64_t total = b->total - a->total;
    if (total <= 0)
        return u;
    /* Ticks are per CPU: the machine's busy share minus ours. */
    double busy = (double)(b->busy - a->busy) / (double)total;
    double wall_cpu = (double)total / (double)sysconf(_SC_CLK_TCK) * 1e6; /* CPU-us elapsed */
    double ours = (double)(b->client - a->client + b->mock - a->mock + b->cluster - a->cluster);
    double o = busy - ours / wall_cpu;
    u.others_pct = o > 0 ? 100 * o : 0;
    return u;
}

/* ------------------------------------------------------------ pattern floor */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A connected loopback TCP pair with TCP_NODELAY, as the brokers use. */
static int tcp_pair(int fd[2])
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    fd[0] = fd[1] = -1;
    if (l < 0 || bind(l, (struct sockaddr *)&a, al) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &al) != 0 ||
        (fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(fd[0], (struct sockaddr *)&a, al) != 0 || (fd[1] = accept(l, NULL, NULL)) < 0) {
        if (l >= 0)
            close(l);
        if (fd[0] >= 0)
            close(fd[0]);
        return -1;
    }
    close(l);
    setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

/* Waits for input on ep, reads one message from it, appends when asked. */
static int take(int ep, int wfd, off_t *wpos, uint8_t *buf, int *from)
{
    struct epoll_event e;
    if (epoll_wait(ep, &e, 1, 5000) != 1 || read(e.data.fd, buf, 100) != 100)
        return -1;
    if (wfd >= 0) {
        if (pwrite(wfd, buf, 177, *wpos) != 177)
            return -1;
        *wpos += 177;
    }
    *from = e.data.fd;
    return 0;
}

static int scratch_file(const char *dir, int appends)
{
    if (!appends)
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/floor.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Child roles: a follower answers each message; the leader, per message
 * from the client, sends to both followers and answers once both did. */
static void run_role(int role, int in, int fa, int fb, const char *dir, int appends, int rounds)
{
    uint8_t buf[256] = {0};
    int ep = epoll_create1(0), wfd = scratch_file(dir, appends), from;
    off_t wpos = 0;
    int fds[3] = {in, fa, fb};
    for (int i = 0; i < (role ? 1 : 3); i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.fd = fds[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    }
    for (int r = 0; r < rounds; r++) {
        if (role) { /* follower */
            if (take(ep, wfd, &wpos, buf, &from) || write(in, buf, 100) != 100)
                _exit(1);
            continue;
        }
        if (take(ep, wfd, &wpos, buf, &from) || write(fa, buf, 100) != 100 ||
            write(fb, buf, 100) != 100)
            _exit(1);
        for (int k = 0; k < 2; k++)
            if (take(ep, -1, &wpos, buf, &from))
                _exit(1);
        if (write(in, buf, 100) != 100)
            _exit(1);
    }
    _exit(0);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

double pattern_floor_us(const char *dir, int appends, int rounds, double *cpu_us)
{
    int cl[2], la[2], lb[2];
    if (rounds < 1 || tcp_pair(cl) || tcp_pair(la) || tcp_pair(lb))
        return -1; /* descriptors of a failed setup are left to exit */
    pid_t pid[3];
    int in[3] = {cl[1], la[1], lb[1]};
    for (int k = 0; k < 3; k++) {
        if ((pid[k] = fork()) == 0)
            run_role(k, in[k], la[0], lb[0], dir, appends, rounds);
    }
    int64_t *t = calloc((size_t)rounds, sizeof *t);
    uint8_t buf[128] = {0};
    int64_t cpu0 = 0, cpu1 = 0;
    for (int k = 0; k < 3; k++)
        cpu0 += pid[k] > 0 ? proc_cpu_us(pid[k]) : 0;
    int ep = epoll_create1(0), from;
    struct epoll_event e = {.events = EPOLLIN, .data.fd = cl[0]};
    int ok = t != NULL && pid[0] > 0 && pid[1] > 0 && pid[2] > 0 && ep >= 0 &&
             epoll_ctl(ep, EPOLL_CTL_ADD, cl[0], &e) == 0;
    for (int r = 0; ok && r < rounds; r++) {
        int64_t t0 = mono_ns();
        ok = write(cl[0], buf, 100) == 100 && take(ep, -1, NULL, buf, &from) == 0;
        t[r] = mono_ns() - t0;
    }
    if (ep >= 0)
        close(ep);
    for (int k = 0; k < 3; k++) /* all three are waiting now */
        cpu1 += pid[k] > 0 ? proc_cpu_us(pid[k]) : 0;
    if (cpu_us)
        *cpu_us = ok ? (double)(cpu1 - cpu0) / rounds : -1;
    int fds[] = {cl[0], cl[1], la[0], la[1], lb[0], lb[1]};
    for (int k = 0; k < 6; k++)
        close(fds[k]);
    for (int k = 0; k < 3; k++)
        if (pid[k] > 0)
            waitpid(pid[k], NULL, 0);
    double p50 = -1;
    if (ok) {
        qsort(t, (size_t)rounds, sizeof *t, cmp_i64);
        p50 = (double)t[rounds / 2] / 1000;
    }
    free(t);
    return p50;
}
