/* Metrics in Prometheus' text exposition format (version 0.0.4). */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include <logrep/groups.h>
#include <logrep/proto.h>

#define LAT_FIFO_MAX 4096

static const double bucket_le[METRICS_BUCKETS - 1] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};

void metrics_init(broker_metrics *m)
{
    memset(m, 0, sizeof *m);
}

void metrics_free(broker_metrics *m)
{
    (void)m;
}

void lat_fifo_free(lat_fifo *f)
{
    free(f->e);
    memset(f, 0, sizeof *f);
}

void metrics_request(broker_metrics *m, lat_fifo *f, int api, int32_t corr, int64_t t_us)
{
    if (api < 0 || api >= METRICS_MAX_API)
        return;
    m->requests[api]++;
    if (f->len == f->cap) {
        if (f->cap >= LAT_FIFO_MAX)
            return; /* deeply pipelined: stop timing until it drains */
        uint32_t ncap = f->cap ? f->cap * 2 : 16;
        lat_entry *ne = malloc(ncap * sizeof *ne);
        if (!ne)
            return;
        for (uint32_t i = 0; i < f->len; i++)
            ne[i] = f->e[(f->head + i) % f->cap];
        free(f->e);
        f->e = ne;
        f->cap = ncap;
        f->head = 0;
    }
    f->e[(f->head + f->len) % f->cap] = (lat_entry){corr, (int16_t)api, t_us};
    f->len++;
}

static void response_done(broker_metrics *m, lat_fifo *f, int32_t corr, int64_t t_us)
{
    /* Entries before the match were requests without a response. */
    for (uint32_t k = 0; k < f->len; k++) {
        lat_entry *e = &f->e[(f->head + k) % f->cap];
        if (e->corr != corr)
            continue;
        double s = (double)(t_us - e->t_us) / 1e6;
        int b = 0;
        while (b < METRICS_BUCKETS - 1 && s > bucket_le[b])
            b++;
        m->lat_bucket[e->api][b]++;
        m->lat_sum[e->api] += s;
        m->responses[e->api]++;
        f->head = (f->head + k + 1) % f->cap;
        f->len -= k + 1;
        return;
    }
}

/* Follows the response frames through the written bytes: a frame is its
 * 4-byte size, then (the response header) the correlation id. */
void metrics_sent(broker_metrics *m, lat_fifo *f, const struct iovec *iov, int cnt, size_t n,
                  int64_t t_us)
{
    int i = 0;
    size_t at = 0; /* within iov[i] */
    while (n && !f->lost) {
        if (f->body_left) {
            size_t k = f->body_left < n ? (size_t)f->body_left : n;
            f->body_left -= k;
            n -= k;
            for (size_t skip = k; iov && skip && i < cnt;) {
                size_t have = iov[i].iov_len - at;
                size_t t = skip < have ? skip : have;
                skip -= t;
                at += t;
                if (at == iov[i].iov_len) {
                    i++;
                    at = 0;
                }
            }
        } else {
            if (!iov || i >= cnt) {
                f->lost = 1; /* a frame head not in memory: never sent so */
                return;
            }
            size_t have = iov[i].iov_len - at;
            size_t k = 8 - f->hdr_got < have ? 8 - f->hdr_got : have;
            if (k > n)
                k = n;
            memcpy(f->hdr + f->hdr_got, (const uint8_t *)iov[i].iov_base + at, k);
            f->hdr_got += (uint32_t)k;
            n -= k;
            at += k;
            if (at == iov[i].iov_len) {
                i++;
                at = 0;
            }
            if (f->hdr_got < 8)
                continue;
            uint32_t size = (uint32_t)f->hdr[0] << 24 | (uint32_t)f->hdr[1] << 16 |
                            (uint32_t)f->hdr[2] << 8 | f->hdr[3];
            f->hdr_got = 0;
            if (size < 4) {
                f->lost = 1;
                return;
            }
            f->body_left = size - 4;
        }
        if (!f->body_left && !f->hdr_got) {
            int32_t corr = (int32_t)((uint32_t)f->hdr[4] << 24 | (uint32_t)f->hdr[5] << 16 |
                                     (uint32_t)f->hdr[6] << 8 | f->hdr[7]);
            response_done(m, f, corr, t_us);
        }
    }
}

/* A label value as Prometheus' text format quotes it. */
static void put_label(FILE *o, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', o);
        if (*v == '\n')
            fputs("\\n", o);
        else
            fputc(*v, o);
    }
}

typedef struct lag_out {
    FILE *o;
    int id;
} lag_out;

static void write_lag(void *ctx, const logrep_group_lag *l)
{
    lag_out *lo = ctx;
    for (int k = 0; k < 2; k++) {
        if (k == 1 && l->lag < 0)
            break; /* not hosted here: unknown */
        fprintf(lo->o, "%s{node=\"%d\",group=\"", k ? "logrep_group_lag" : "logrep_group_committed_offset",
                lo->id);
        put_label(lo->o, l->group);
        fprintf(lo->o, "\",topic=\"%s\",partition=\"%d\"} %lld\n", l->topic, (int)l->partition,
                (long long)(k ? l->lag : l->offset));
    }
}

void metrics_write(FILE *o, const broker_metrics *m, logrep_node *node, int32_t id,
                   int64_t clients, const logrep_storage_fd_stats *fds)
{
    logrep_node_stats st;
    logrep_node_stats_get(node, &st);
#define G(name, help, type, val)                                                        \
    fprintf(o, "# HELP %s %s\n# TYPE %s %s\n%s{node=\"%d\"} %lld\n", name, help, name, type, \
            name, (int)id, (long long)(val))
    G("logrep_node_requests_total", "Requests handled by the node.", "counter", st.requests);
    G("logrep_node_bytes_in_total", "Request and response bytes received by the node.", "counter",
      st.bytes_in);
    G("logrep_node_bytes_out_total", "Bytes sent by the node.", "counter", st.bytes_out);
    G("logrep_node_produce_records_total", "Records appended by produce requests.", "counter",
      st.produce_records);
    G("logrep_node_leader_changes_total", "Partitions whose leader the controller changed.",
      "counter", st.leader_changes);
    G("logrep_node_unclean_elections_total", "Unclean leader elections.", "counter",
      st.unclean_elections);
    G("logrep_node_fenced_brokers", "Brokers currently fenced.", "gauge", st.fenced_brokers);
    G("logrep_node_offline_partitions", "Partitions without a leader.", "gauge",
      st.offline_partitions);
    G("logrep_node_under_replicated_partitions", "Partitions with ISR smaller than replicas.",
      "gauge", st.under_replicated);
    G("logrep_node_under_min_isr_partitions", "Partitions with ISR below min.insync.replicas.",
      "gauge", st.under_min_isr);
    G("logrep_node_at_min_isr_partitions", "Partitions with ISR at min.insync.replicas.", "gauge",
      st.at_min_isr);
    G("logrep_node_metadata_offset", "Metadata records applied.", "gauge", st.metadata_offset);
    G("logrep_node_log_segments_deleted_total", "Log segments deleted by retention.", "counter",
      st.segments_deleted);
    G("logrep_node_parked_fetch_runs_total",
      "Parked fetches run again, because data they read changed or their wait ended.", "counter",
      st.parked_fetch_runs);
    G("logrep_node_append_errors_total",
      "Appends refused by a storage failure (full disk, I/O error).", "counter",
      st.append_errors);
    G("logrep_node_append_failing_partitions", "Partitions whose last append failed.", "gauge",
      st.append_failing);
    G("logrep_log_cleaner_passes_total", "Log cleaning passes completed.", "counter",
      st.cleaner_passes);
    G("logrep_log_cleaner_passes_aborted_total",
      "Cleaning passes given up (a truncation or retention under them, a storage error).",
      "counter", st.cleaner_passes_aborted);
    G("logrep_log_cleaner_bytes_read_total", "Segment bytes read by completed cleaning passes.",
      "counter", st.cleaner_bytes_read);
    G("logrep_log_cleaner_bytes_written_total",
      "Segment bytes written by completed cleaning passes.", "counter", st.cleaner_bytes_written);
    G("logrep_log_cleaner_records_removed_total",
      "Records and tombstones compaction removed.", "counter", st.cleaner_records_removed);
    G("logrep_log_cleaner_last_pass_ms", "Duration of the most recent cleaning pass.", "gauge",
      st.cleaner_last_pass_ms);
    fprintf(o, "# HELP logrep_log_cleaner_max_dirty_ratio Dirty share of the dirtiest compacted partition.\n"
               "# TYPE logrep_log_cleaner_max_dirty_ratio gauge\n"
               "logrep_log_cleaner_max_dirty_ratio{node=\"%d\"} %g\n", (int)id,
            st.cleaner_max_dirty_ratio);
    G("logrep_node_is_controller", "1 when this node is the active controller (with a quorum: its leader, LeaderChange committed).", "gauge",
      logrep_node_is_controller(node));
    if (fds) {
        G("logrep_storage_open_files", "Log files whose descriptor is open now.", "gauge",
          fds->open);
        G("logrep_storage_max_open_files", "Cap of the storage's descriptor pool.", "gauge",
          fds->max_open);
        G("logrep_storage_held_files",
          "Open files the pool never closes (descriptor handed out for sends, or removed while open).",
          "gauge", fds->held);
        G("logrep_storage_reopens_total", "Files reopened after the pool closed them.", "counter",
          fds->reopens);
        G("logrep_storage_evictions_total", "Clean files' descriptors closed to stay under the cap.",
          "counter", fds->evictions);
        G("logrep_storage_over_cap_opens_total",
          "Files opened past the cap because every open file was dirty or held.", "counter",
          fds->over_cap);
    }
    G("logrep_broker_connections", "Open client connections.", "gauge", clients);
    G("logrep_broker_connections_accepted_total", "Client connections accepted.", "counter",
      m->connections_accepted);
    G("logrep_broker_connections_rejected_total", "Connections refused at max.connections.",
      "counter", m->connections_rejected);
    G("logrep_broker_accept_paused_total",
      "Times accepting paused for a back-off because the process was out of descriptors.",
      "counter", m->accept_paused);
    G("logrep_broker_connections_idle_closed_total", "Connections closed after connections.max.idle.ms.",
      "counter", m->connections_idle_closed);
    G("logrep_broker_bad_frames_total", "Connections closed for malformed or oversized frames.",
      "counter", m->bad_frames);
    G("logrep_broker_bad_requests_total", "Connections closed for undecodable or unserved requests.",
      "counter", m->bad_requests);
    G("logrep_broker_socket_bytes_received_total", "Bytes read from sockets.", "counter",
      m->bytes_received);
    G("logrep_broker_socket_bytes_sent_total", "Bytes written to sockets.", "counter",
      m->bytes_sent);
#undef G
    fprintf(o, "# HELP logrep_broker_requests_total Requests received, by API.\n"
               "# TYPE logrep_broker_requests_total counter\n");
    for (int a = 0; a < METRICS_MAX_API; a++)
        if (m->requests[a])
            fprintf(o, "logrep_broker_requests_total{node=\"%d\",api=\"%s\"} %lld\n", (int)id,
                    logrep_proto_api_name(a) ? logrep_proto_api_name(a) : "unknown",
                    (long long)m->requests[a]);
    fprintf(o, "# HELP logrep_broker_request_latency_seconds Time from request to response.\n"
               "# TYPE logrep_broker_request_latency_seconds histogram\n");
    for (int a = 0; a < METRICS_MAX_API; a++) {
        if (!m->responses[a])
            continue;
        const char *name = logrep_proto_api_name(a) ? logrep_proto_api_name(a) : "unknown";
        int64_t cum = 0;
        for (int b = 0; b < METRICS_BUCKETS; b++) {
            cum += m->lat_bucket[a][b];
            if (b < METRICS_BUCKETS - 1)
                fprintf(o, "logrep_broker_request_latency_seconds_bucket{node=\"%d\",api=\"%s\",le=\"%g\"} %lld\n",
                        (int)id, name, bucket_le[b], (long long)cum);
            else
                fprintf(o, "logrep_broker_request_latency_seconds_bucket{node=\"%d\",api=\"%s\",le=\"+Inf\"} %lld\n",
                        (int)id, name, (long long)cum);
        }
        fprintf(o, "logrep_broker_request_latency_seconds_sum{node=\"%d\",api=\"%s\"} %.6f\n",
                (int)id, name, m->lat_sum[a]);
        fprintf(o, "logrep_broker_request_latency_seconds_count{node=\"%d\",api=\"%s\"} %lld\n",
                (int)id, name, (long long)cum);
    }
    static const struct {
        const char *name, *help;
    } pm[] = {
        {"logrep_partition_leader", "1 when this replica leads the partition."},
        {"logrep_partition_leader_id", "Current leader of the partition."},
        {"logrep_partition_leader_epoch", "Leader epoch."},
        {"logrep_partition_log_start_offset", "Log start offset."},
        {"logrep_partition_log_end_offset", "Log end offset."},
        {"logrep_partition_high_watermark", "High watermark."},
        {"logrep_partition_replicas", "Replicas assigned."},
        {"logrep_partition_isr", "In-sync replicas (as the leader knows them)."},
        {"logrep_partition_under_replicated", "1 when ISR < replicas."},
        {"logrep_partition_under_min_isr", "1 when ISR < min.insync.replicas."},
        {"logrep_partition_at_min_isr", "1 when ISR == min.insync.replicas."},
        {"logrep_partition_isr_shrinks_total", "ISR shrinks."},
        {"logrep_partition_isr_expands_total", "ISR expansions."},
        {"logrep_partition_log_segments", "Log segments on disk."},
        {"logrep_partition_append_errors_total", "Appends refused by a storage failure."},
        {"logrep_partition_append_failing", "1 while the last append failed."},
        {"logrep_partition_cleaner_passes_total", "Cleaning passes completed since the log opened."},
        {"logrep_partition_cleaner_bytes_read_total", "Segment bytes cleaning passes read."},
        {"logrep_partition_last_clean_ms", "Host time the last cleaning pass ended (-1: none)."},
    };
    size_t np = logrep_node_partition_count(node);
    for (size_t k = 0; k < sizeof pm / sizeof pm[0]; k++) {
        fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", pm[k].name, pm[k].help, pm[k].name,
                strstr(pm[k].name, "_total") ? "counter" : "gauge");
        for (size_t i = 0; i < np; i++) {
            logrep_node_partition_info p;
            if (logrep_node_partition(node, i, &p) != LOGREP_OK)
                continue;
            int64_t v[] = {p.role == 1, p.leader, p.leader_epoch, p.log_start_offset,
                           p.log_end_offset, p.high_watermark, p.replicas, p.isr,
                           p.under_replicated, p.under_min_isr, p.at_min_isr, p.isr_shrinks,
                           p.isr_expands, p.segments, p.append_errors, p.append_failing,
                           p.cleaner_passes, p.cleaner_bytes_read, p.last_clean_ms};
            fprintf(o, "%s{node=\"%d\",topic=\"%s\",partition=\"%d\"} %lld\n", pm[k].name,
                    (int)id, p.topic, (int)p.partition, (long long)v[k]);
        }
    }
    fprintf(o, "# HELP logrep_partition_dirty_ratio Dirty share of a compacted partition's cleanable bytes.\n"
               "# TYPE logrep_partition_dirty_ratio gauge\n");
    for (size_t i = 0; i < np; i++) {
        logrep_node_partition_info p;
        if (logrep_node_partition(node, i, &p) == LOGREP_OK && p.compacted)
            fprintf(o, "logrep_partition_dirty_ratio{node=\"%d\",topic=\"%s\",partition=\"%d\"} %g\n",
                    (int)id, p.topic, (int)p.partition, p.dirty_ratio);
    }
    fprintf(o, "# HELP logrep_group_committed_offset Committed offset of a group this node coordinates.\n"
               "# TYPE logrep_group_committed_offset gauge\n"
               "# HELP logrep_group_lag High watermark minus committed offset (partitions hosted here).\n"
               "# TYPE logrep_group_lag gauge\n");
    lag_out lo = {o, (int)id};
    logrep_node_group_lags(node, write_lag, &lo);
}
