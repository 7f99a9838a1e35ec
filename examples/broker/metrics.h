/* Request counters and latency histograms, and the Prometheus text page. */
#ifndef LOGREP_BROKER_METRICS_H
#define LOGREP_BROKER_METRICS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include <logrep/node.h>

#define METRICS_MAX_API 80
#define METRICS_BUCKETS 16

/* Requests awaiting their response on one connection, oldest first
 * (responses leave in request order; acks=0 produces get none), and
 * where the connection's outgoing byte stream is: in a response's 8-byte
 * head (size, correlation id) or in its body. */
typedef struct lat_entry {
    int32_t corr;
    int16_t api;
    int64_t t_us;
} lat_entry;

typedef struct lat_fifo {
    lat_entry *e;
    uint32_t head, len, cap;
    uint8_t hdr[8];
    uint32_t hdr_got;
    uint64_t body_left;
    int lost; /* the stream could not be followed: no more timing here */
} lat_fifo;

typedef struct broker_metrics {
    int64_t requests[METRICS_MAX_API];
    int64_t responses[METRICS_MAX_API];
    int64_t lat_bucket[METRICS_MAX_API][METRICS_BUCKETS];
    double lat_sum[METRICS_MAX_API];
    int64_t connections_open;
    int64_t connections_accepted;
    int64_t connections_rejected;
    int64_t accept_paused;
    int64_t connections_idle_closed;
    int64_t bad_frames;
    int64_t bad_requests;
    int64_t bytes_received;
    int64_t bytes_sent;
    int64_t start_ms;
} broker_metrics;

void metrics_init(broker_metrics *m);
void metrics_free(broker_metrics *m);
void lat_fifo_free(lat_fifo *f);
/* A request entered the loop (its frame, read from the client). */
void metrics_request(broker_metrics *m, lat_fifo *f, int api, int32_t corr, int64_t t_us);
/* n bytes of the connection's response stream were written: the first n
 * bytes of iov (cnt entries), or bytes not in memory (iov NULL: sendfile,
 * only ever inside a response body). Each response whose last byte they
 * carry ends its request's timing. */
void metrics_sent(broker_metrics *m, lat_fifo *f, const struct iovec *iov, int cnt, size_t n,
                  int64_t t_us);
/* fds: the storage's descriptor pool, NULL when unknown. */
void metrics_write(FILE *out, const broker_metrics *m, logrep_node *node, int32_t node_id,
                   int64_t clients, const logrep_storage_fd_stats *fds);
int64_t broker_mono_us(void);

#endif
