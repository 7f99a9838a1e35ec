/* Blocking Kafka wire client: non-blocking socket under poll() so that
 * connect, send and receive all end by the deadline. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <logrep.h>
#include "wire.h"

#define CLIENT_ID "logrep"

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int wire_parse_addr(const char *s, char *host, size_t hostcap, int *port)
{
    const char *colon, *h = s, *he;
    if (s[0] == '[') {
        he = strchr(s, ']');
        if (!he || he[1] != ':')
            return -1;
        h = s + 1;
        colon = he + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return -1;
        he = colon;
    }
    size_t hl = (size_t)(he - h);
    if (hl == 0 || hl >= hostcap)
        return -1;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || p <= 0 || p > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (int)p;
    return 0;
}

/* Waits for `events` on c->fd until the deadline: 1 ready, 0 timed out. */
static int wait_fd(wire_conn *c, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - mono_ms();
        if (left <= 0)
            return 0;
        struct pollfd pfd = {c->fd, events, 0};
        int r = poll(&pfd, 1, (int)left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

static int connect_one(wire_conn *c, const struct addrinfo *ai, int64_t deadline)
{
    c->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (c->fd < 0)
        return -1;
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return 0;
    int e = errno;
    if (e == EINPROGRESS) {
        int r = wait_fd(c, POLLOUT, deadline);
        socklen_t sl = sizeof e;
        if (r == 0)
            e = ETIMEDOUT;
        else if (r < 0 || getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &sl) != 0)
            e = errno;
        if (r > 0 && e == 0)
            return 0;
    }
    close(c->fd);
    c->fd = -1;
    errno = e;
    return -1;
}

static int api_versions(wire_conn *c)
{
    for (int v = 3;; v = 0) {
        logrep_struct *rq = wire_begin(c, LOGREP_API_API_VERSIONS, v);
        if (!rq)
            return -1;
        if (v >= 3) {
            logrep_struct_set_bytes(rq, lr_fid(rq, LR_FN_ClientSoftwareName), CLIENT_ID,
                                    (int32_t)strlen(CLIENT_ID));
            const char *ver = logrep_version_string();
            logrep_struct_set_bytes(rq, lr_fid(rq, LR_FN_ClientSoftwareVersion), ver,
                                    (int32_t)strlen(ver));
        }
        logrep_struct *rs = wire_call(c);
        /* A broker refusing the version answers in the v0 layout. */
        if (!rs && v > 0 && c->rbuf &&
            logrep_msg_decode_response(c->resp, LOGREP_API_API_VERSIONS, 0, c->rbuf,
                                       c->rlen) == LOGREP_OK)
            rs = logrep_msg_root(c->resp);
        if (!rs)
            return -1;
        int64_t ec = lr_f_int(rs, LR_FN_ErrorCode);
        if (ec == LOGREP_ERR_UNSUPPORTED_VERSION && v > 0)
            continue;
        if (ec) {
            snprintf(c->err, sizeof c->err, "%s: ApiVersions: %s", c->addr, logrep_err_name((int)ec));
            return -1;
        }
        int32_t n = lr_f_count(rs, LR_FN_ApiKeys);
        for (int32_t i = 0; i < n; i++) {
            logrep_struct *k = lr_f_elem(rs, LR_FN_ApiKeys, i);
            int64_t key = lr_f_int(k, LR_FN_ApiKey);
            if (key >= 0 && key < WIRE_MAX_API) {
                c->vmin[key] = (int16_t)lr_f_int(k, LR_FN_MinVersion);
                c->vmax[key] = (int16_t)lr_f_int(k, LR_FN_MaxVersion);
            }
        }
        return 0;
    }
}

int wire_open(wire_conn *c, const char *host, int port, int timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->timeout_ms = timeout_ms;
    for (int i = 0; i < WIRE_MAX_API; i++)
        c->vmax[i] = -1;
    snprintf(c->addr, sizeof c->addr, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
    if (logrep_msg_new(NULL, &c->req) != LOGREP_OK || logrep_msg_new(NULL, &c->resp) != LOGREP_OK) {
        snprintf(c->err, sizeof c->err, "out of memory");
        return -1;
    }
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gr = getaddrinfo(host, ps, &hints, &res);
    if (gr != 0) {
        snprintf(c->err, sizeof c->err, "%s: %s", c->addr, gai_strerror(gr));
        return -1;
    }
    int64_t deadline = mono_ms() + timeout_ms;
    int e = 0;
    for (struct addrinfo *ai = res; ai && c->fd < 0; ai = ai->ai_next)
        if (connect_one(c, ai, deadline) != 0)
            e = errno;
    freeaddrinfo(res);
    if (c->fd < 0) {
        snprintf(c->err, sizeof c->err, "cannot connect to %s: %s", c->addr, strerror(e));
        return -1;
    }
    return api_versions(c);
}

void wire_close(wire_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    logrep_msg_free(c->req);
    logrep_msg_free(c->resp);
    c->req = c->resp = NULL;
    free(c->rbuf);
    c->rbuf = NULL;
    c->rcap = c->rlen = 0;
}

int wire_version(const wire_conn *c, int api, int floor, int cap)
{
    const logrep_api_range *r = logrep_proto_api(api);
    if (!r || api < 0 || api >= WIRE_MAX_API || c->vmax[api] < 0)
        return -1;
    int hi = cap, lo = floor;
    if (r->max_version < hi)
        hi = r->max_version;
    if (c->vmax[api] < hi)
        hi = c->vmax[api];
    if (r->min_version > lo)
        lo = r->min_version;
    if (c->vmin[api] > lo)
        lo = c->vmin[api];
    return hi >= lo ? hi : -1;
}

logrep_struct *wire_begin(wire_conn *c, int api, int version)
{
    if (logrep_msg_init_request(c->req, api, version, ++c->corr, CLIENT_ID) != LOGREP_OK) {
        snprintf(c->err, sizeof c->err, "%s v%d: cannot build the request",
                 logrep_proto_api_name(api), version);
        return NULL;
    }
    return logrep_msg_root(c->req);
}

/* Reads exactly n bytes into c->rbuf + off by the deadline. */
static int read_full(wire_conn *c, size_t off, size_t n, int64_t deadline)
{
    while (n > 0) {
        ssize_t r = recv(c->fd, c->rbuf + off, n, 0);
        if (r > 0) {
            off += (size_t)r;
            n -= (size_t)r;
            continue;
        }
        if (r == 0) {
            snprintf(c->err, sizeof c->err, "%s closed the connection", c->addr);
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            snprintf(c->err, sizeof c->err, "%s: receive: %s", c->addr, strerror(errno));
            return -1;
        }
        if (wait_fd(c, POLLIN, deadline) <= 0) {
            snprintf(c->err, sizeof c->err, "%s: no response within %d ms", c->addr, c->timeout_ms);
            return -1;
        }
    }
    return 0;
}

static int send_all(wire_conn *c, const uint8_t *p, size_t n, int64_t deadline)
{
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            snprintf(c->err, sizeof c->err, "%s: send: %s", c->addr, strerror(errno));
            return -1;
        }
        if (wait_fd(c, POLLOUT, deadline) <= 0) {
            snprintf(c->err, sizeof c->err, "%s: send timed out", c->addr);
            return -1;
        }
    }
    return 0;
}

static int ensure_rbuf(wire_conn *c, size_t n)
{
    if (n <= c->rcap)
        return 0;
    uint8_t *b = realloc(c->rbuf, n);
    if (!b) {
        snprintf(c->err, sizeof c->err, "out of memory for a %zu-byte response", n);
        return -1;
    }
    c->rbuf = b;
    c->rcap = n;
    return 0;
}

logrep_struct *wire_call(wire_conn *c)
{
    const uint8_t *out;
    size_t len, flen;
    int api = logrep_msg_api_key(c->req), version = logrep_msg_version(c->req);
    const char *name = logrep_proto_api_name(api);
    c->rlen = 0;
    if (c->fd < 0) {
        snprintf(c->err, sizeof c->err, "%s: not connected", c->addr);
        return NULL;
    }
    if (logrep_msg_encode_flat(c->req, &out, &len) != LOGREP_OK) {
        snprintf(c->err, sizeof c->err, "%s v%d: encode: %s", name, version,
                 logrep_msg_errmsg(c->req));
        return NULL;
    }
    int64_t deadline = mono_ms() + c->timeout_ms;
    if (send_all(c, out, len, deadline) || ensure_rbuf(c, 4) || read_full(c, 0, 4, deadline))
        goto broken;
    logrep_err fe = logrep_proto_frame(c->rbuf, 4, WIRE_MAX_FRAME, &flen);
    /* OK: an empty frame, flen 4, which the decoder rejects. */
    if (fe != LOGREP_OK && fe != LOGREP_ERR__AGAIN) {
        snprintf(c->err, sizeof c->err, "%s: %s response frame (%s)", c->addr,
                 fe == LOGREP_ERR__LIMIT ? "oversized" : "bad", logrep_err_name(fe));
        goto broken;
    }
    if (ensure_rbuf(c, flen) || read_full(c, 4, flen - 4, deadline))
        goto broken;
    c->rlen = flen;
    logrep_err de = logrep_msg_decode_response(c->resp, api, version, c->rbuf, flen);
    if (de != LOGREP_OK) {
        const char *why = logrep_msg_errmsg(c->resp);
        if (why[0]) /* names the API, version and field */
            snprintf(c->err, sizeof c->err, "%s: %s", c->addr, why);
        else
            snprintf(c->err, sizeof c->err, "%s: %s v%d response: %s", c->addr, name, version,
                     logrep_err_name(de));
        return NULL;
    }
    if (logrep_msg_correlation_id(c->resp) != c->corr) {
        snprintf(c->err, sizeof c->err, "%s: %s response for correlation id %d, not %d",
                 c->addr, name, (int)logrep_msg_correlation_id(c->resp), (int)c->corr);
        goto broken;
    }
    return logrep_msg_root(c->resp);
broken:
    /* The stream is out of step: no further request on it. */
    close(c->fd);
    c->fd = -1;
    return NULL;
}

const char *wire_str(const logrep_struct *s, lr_fname f, int32_t *len)
{
    const uint8_t *p = NULL;
    int32_t l = 0;
    if (logrep_struct_bytes(s, lr_fid(s, f), &p, &l) != LOGREP_OK || !p || l < 0) {
        *len = 0;
        return "";
    }
    *len = l;
    return (const char *)p;
}
