/* Request counters and latency histograms, and the Prometheus text page. */
#ifndef LOGREP_BROKER_METRICS_H
#define LOGREP_BROKER_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include <logrep/node.h>

#define METRICS_MAX_API 80
#define METRICS_BUCKETS 16

/* Requests awaiting their response on one connection, oldest first
 * (responses leave in request order; acks=0 produces get none). */
typedef struct lat_entry {
    int32_t corr;
    int16_t api;
    int64_t t_us;
} lat_entry;

typedef struct lat_fifo {
    lat_entry *e;
    uint32_t head, len, cap;
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
void metrics_request(broker_metrics *m, lat_fifo *f, int api, int32_t corr, int64_t t_us);
void metrics_response(broker_metrics *m, lat_fifo *f, int32_t corr, int64_t t_us);
/* fds: the storage's descriptor pool, NULL when unknown. */
void metrics_write(FILE *out, const broker_metrics *m, logrep_node *node, int32_t node_id,
                   int64_t clients, const logrep_storage_fd_stats *fds);
int64_t broker_mono_us(void);

#endif
