/* Pipes between the appliance's threads (appliance.h). */
#include "appliance.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wire_open(wire *w)
{
    memset(w, 0, sizeof *w);
    for (int a = 0; a < NODES; a++)
        for (int b = 0; b < NODES; b++)
            w->fd[a][b][0] = w->fd[a][b][1] = -1;
    for (int a = 0; a < NODES; a++)
        for (int b = 0; b < NODES; b++)
            if (a != b && pipe(w->fd[a][b]) != 0)
                return -1;
    return 0;
}

void wire_close(wire *w)
{
    for (int a = 0; a < NODES; a++)
        for (int b = 0; b < NODES; b++)
            for (int k = 0; k < 2; k++)
                if (w->fd[a][b][k] >= 0)
                    close(w->fd[a][b][k]);
}

/* Reads or writes all len bytes. */
static int all(int fd, void *buf, size_t len, int writing)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int wire_send(wire *w, int from, int to, msg *m, const void *payload, uint32_t len)
{
    m->from = from;
    m->len = len;
    int fd = w->fd[from][to][1];
    if (all(fd, m, sizeof *m, 1) != 0 || (len && all(fd, (void *)payload, len, 1) != 0))
        return -1;
    return 0;
}

int wire_recv(wire *w, int self, int timeout_ms, msg *m, uint8_t **payload)
{
    struct pollfd pfd[NODES];
    int from[NODES], n = 0;
    for (int k = 0; k < NODES; k++) {
        int a = (w->turn[self] + k) % NODES; /* in turn: no sender starves */
        if (a != self) {
            pfd[n].fd = w->fd[a][self][0];
            pfd[n].events = POLLIN;
            from[n++] = a;
        }
    }
    w->turn[self] = (w->turn[self] + 1) % NODES;
    int r = poll(pfd, (nfds_t)n, timeout_ms);
    if (r <= 0)
        return r < 0 && errno != EINTR ? -1 : 0;
    for (int i = 0; i < n; i++) {
        if (!(pfd[i].revents & (POLLIN | POLLHUP)))
            continue;
        *payload = NULL;
        if (all(pfd[i].fd, m, sizeof *m, 0) != 0 || m->from != from[i])
            return -1;
        if (m->len) {
            *payload = malloc(m->len);
            if (!*payload || all(pfd[i].fd, *payload, m->len, 0) != 0) {
                free(*payload);
                *payload = NULL;
                return -1;
            }
        }
        return 1;
    }
    return 0;
}
