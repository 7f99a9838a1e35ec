/* make demo: three combined broker+controller nodes (logrep-broker
 * processes on loopback, a metadata quorum of three voters), a topic
 * `orders` (6 partitions, replication factor 3, min.insync.replicas 2),
 * an idempotent acks=all librdkafka producer of keyed order records,
 * kill -9 of the active controller (which also leads partitions)
 * mid-stream, the failover watched while it is down (another voter takes
 * over, leaderships move, writes resume), its restart, and every record
 * read back and accounted for.
 *
 *   cluster-demo [--broker PATH] [--seconds N] [--rate RECORDS_PER_S]
 *
 * Exit status 0 when nothing acknowledged was lost or duplicated and the
 * failover completed while the node was down. */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "kclient.h"

#define NPARTS 6

typedef struct monitor {
    int32_t leader[NPARTS];
    int urp;
    int64_t leader_changes;
    int64_t urp_us;
    int64_t last_us;
    int64_t first_urp_us, last_urp_us;
} monitor;

static void sample(kc_load *L, monitor *m)
{
    const struct rd_kafka_metadata *md = NULL;
    int64_t now = kc_now_us();
    if (rd_kafka_metadata(L->prod, 0, L->prkt, &md, 1000) != RD_KAFKA_RESP_ERR_NO_ERROR || !md)
        return;
    if (md->topic_cnt == 1 && md->topics[0].partition_cnt == NPARTS) {
        int urp = 0;
        for (int p = 0; p < NPARTS; p++) {
            const rd_kafka_metadata_partition_t *mp = &md->topics[0].partitions[p];
            int idx = mp->id;
            if (idx < 0 || idx >= NPARTS)
                continue;
            if (mp->isr_cnt < mp->replica_cnt || mp->leader < 0)
                urp++;
            if (mp->leader >= 0 && m->leader[idx] >= 0 && mp->leader != m->leader[idx])
                m->leader_changes++;
            if (mp->leader >= 0)
                m->leader[idx] = mp->leader;
        }
        if (m->urp && m->last_us)
            m->urp_us += now - m->last_us;
        m->urp = urp;
        if (urp) {
            if (!m->first_urp_us)
                m->first_urp_us = now;
            m->last_urp_us = now;
        }
        m->last_us = now;
    }
    rd_kafka_metadata_destroy(md);
}

static int led_by(const monitor *m, int node)
{
    int k = 0;
    for (int p = 0; p < NPARTS; p++)
        k += m->leader[p] == node;
    return k;
}

static void progress(kc_load *L, monitor *m, int ctl, double t, const char *phase)
{
    char leaders[64], ago[32] = "-";
    size_t at = 0;
    for (int p = 0; p < NPARTS; p++)
        at += (size_t)snprintf(leaders + at, sizeof leaders - at, "%s%d", p ? " " : "",
                               m->leader[p]);
    if (L->last_ack_us)
        snprintf(ago, sizeof ago, "%.1fs", (double)(kc_now_us() - L->last_ack_us) / 1e6);
    char cs[16];
    snprintf(cs, sizeof cs, ctl > 0 ? "%d" : "none", ctl);
    fprintf(stdout,
            "\r%5.1fs %-9s acked %8lld  consumed %8lld  last ack %5s ago  controller %-4s "
            "leaders [%s]  urp %d   ",
            t, phase, (long long)L->acked, (long long)L->consumed, ago, cs, leaders, m->urp);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    char broker[1024];
    snprintf(broker, sizeof broker, "%s/../logrep-broker", dirname(strdup(argv[0])));
    double seconds = 15;
    double rate = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--broker") && i + 1 < argc)
            snprintf(broker, sizeof broker, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
            rate = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--broker PATH] [--seconds N] [--rate R]\n", argv[0]);
            return 2;
        }
    }
    if (access(broker, X_OK) != 0) {
        fprintf(stderr, "cluster-demo: %s: %s (build it with make)\n", broker, strerror(errno));
        return 2;
    }
    int64_t t_start = kc_now_us();
    cluster c;
    char err[512];
    if (cluster_init(&c, broker, 3, NULL) != 0) {
        fprintf(stderr, "cluster-demo: cannot prepare %s\n", c.dir);
        return 1;
    }
    printf("liblogrep cluster demo: 3 combined broker+controller nodes on loopback, a metadata "
           "quorum of 3 voters (data in %s)\n", c.dir);
    int rc = 1;
    kc_load L = {0};
    for (int i = 1; i <= 3; i++)
        cluster_node_start(&c, i);
    if (cluster_wait_ready(&c, 30000) != 0) {
        fprintf(stderr, "cluster-demo: the nodes did not come up in 30 s (logs in %s)\n", c.dir);
        setenv("LOGREP_KEEP_DIR", "1", 1);
        goto out;
    }
    printf("nodes up: %s (node %d is the active controller), %.1f s\n", c.bootstrap,
           cluster_active_controller(&c), (double)(kc_now_us() - t_start) / 1e6);
    if (kc_create_topic(c.bootstrap, "orders", NPARTS, 3, "2", err, sizeof err) != 0) {
        fprintf(stderr, "cluster-demo: %s\n", err);
        goto out;
    }
    printf("topic orders: 6 partitions, replication factor 3, min.insync.replicas 2\n");

    L.bootstrap = c.bootstrap;
    L.topic = "orders";
    L.nparts = NPARTS;
    L.nkeys = 1000;
    L.value_size = 100;
    L.compression = "none";
    L.max_records = 4000000;
    L.idempotent = 1;
    /* The clients' own log lines go to a file beside the brokers' logs
     * (kept with LOGREP_KEEP_DIR=1); LOGREP_DEMO_DEBUG=eos,msg,... adds
     * librdkafka's debug contexts to it. */
    char logpath[4096];
    snprintf(logpath, sizeof logpath, "%s/clients.log", c.dir);
    L.log = fopen(logpath, "w");
    if (getenv("LOGREP_DEMO_DEBUG")) {
        L.extra[0] = "debug";
        L.extra[1] = getenv("LOGREP_DEMO_DEBUG");
    }
    if (kc_producer_start(&L, err, sizeof err) != 0 || kc_consumer_start(&L, err, sizeof err)) {
        fprintf(stderr, "cluster-demo: %s\n", err);
        goto out;
    }
    printf("producing keyed records (1000 customers, 100 B each) with acks=all and "
           "idempotence; consuming alongside\n");
    monitor m;
    memset(&m, 0, sizeof m);
    for (int p = 0; p < NPARTS; p++)
        m.leader[p] = -1;
    sample(&L, &m);
    /* The run: steady, then kill -9 of the active controller once it
     * leads a partition, the failover watched (a new active controller,
     * no partition led by the dead node, acknowledgements again), the
     * node down a little longer, its restart, and at least 5 s more. */
    int victim = 0, ctl = cluster_active_controller(&c), failed_over = 0;
    int64_t t0 = kc_now_us(), t_kill = 0, t_restart = 0, next_sample = 0;
    int64_t t_new_ctl = 0, t_moved = 0, t_resumed = 0;
    int64_t t_end = t0 + (int64_t)(seconds * 1e6);
    int64_t kill_at = t0 + (int64_t)(seconds * 1e6 * 0.25);
    const int64_t give_up_us = 30000000; /* failover not done 30 s after the kill */
    const char *phase = "steady";
    for (;;) {
        int64_t now = kc_now_us();
        if (now >= t_end && (!t_kill || t_restart))
            break;
        int64_t allowed = rate > 0 ? (int64_t)((double)(now - t0) / 1e6 * rate) : INT64_MAX;
        int full = 0;
        for (int k = 0; k < 2000 && L.produced < allowed && !full; k++)
            full = kc_produce_one(&L) != 0;
        kc_poll(&L, full ? 2 : 0);
        kc_consume(&L, 1);
        if (now < next_sample)
            continue;
        next_sample = now + 250000;
        sample(&L, &m);
        int was = ctl;
        ctl = cluster_active_controller(&c);
        double t = (double)(now - t0) / 1e6;
        if (t_kill && !t_restart) {
            double since = (double)(now - t_kill) / 1e6;
            if (!t_new_ctl && ctl > 0 && ctl != victim) {
                t_new_ctl = now;
                printf("\n%5.1fs node %d is the active controller (%.1f s after the kill)\n", t,
                       ctl, since);
            }
            if (!t_moved && !led_by(&m, victim)) {
                t_moved = now;
                printf("\n%5.1fs no partition is led by node %d any more: leaders [", t, victim);
                for (int p = 0; p < NPARTS; p++)
                    printf("%s%d", p ? " " : "", m.leader[p]);
                printf("] (%.1f s after the kill)\n", since);
            }
            if (t_moved && !t_resumed && L.last_ack_us > t_moved) {
                t_resumed = L.last_ack_us;
                printf("\n%5.1fs writes resumed: acknowledgements again (%.1f s after the kill)\n",
                       t, (double)(t_resumed - t_kill) / 1e6);
            }
            failed_over = t_new_ctl && t_moved && t_resumed;
            /* Down a little longer, so writes to the new leaders show. */
            if ((failed_over && now - t_resumed >= 2000000) || now - t_kill >= give_up_us) {
                if (!failed_over)
                    printf("\n%5.1fs the failover did not complete in %.0f s\n", t,
                           (double)give_up_us / 1e6);
                cluster_node_start(&c, victim);
                t_restart = kc_now_us();
                phase = "restarted";
                printf("\n%5.1fs restart node %d\n", (double)(t_restart - t0) / 1e6, victim);
                if (t_end < t_restart + 5000000)
                    t_end = t_restart + 5000000;
            }
        } else if (was != ctl && ctl > 0 && was >= 0) {
            printf("\n%5.1fs node %d is the active controller\n", t, ctl);
        }
        if (!t_kill && now >= kill_at && ctl > 0 && led_by(&m, ctl)) {
            victim = ctl;
            char parts[64];
            size_t at = 0;
            for (int p = 0; p < NPARTS; p++)
                if (m.leader[p] == victim)
                    at += (size_t)snprintf(parts + at, sizeof parts - at, "%sorders-%d",
                                           at ? ", " : "", p);
            cluster_node_kill(&c, victim, SIGKILL);
            t_kill = kc_now_us();
            phase = "killed";
            printf("\n%5.1fs kill -9 node %d: the active controller, leader of %s\n",
                   (double)(t_kill - t0) / 1e6, victim, parts);
        }
        progress(&L, &m, ctl, t, phase);
    }
    int64_t t_prod_end = kc_now_us();
    phase = "draining";
    for (int i = 0; i < 300 && kc_flush(&L, 100) > 0; i++) {
        kc_consume(&L, 1);
        if (kc_now_us() >= next_sample) {
            sample(&L, &m);
            ctl = cluster_active_controller(&c);
            progress(&L, &m, ctl, (double)(kc_now_us() - t0) / 1e6, phase);
            next_sample = kc_now_us() + 250000;
        }
    }
    int64_t t_acked = kc_now_us();
    phase = "reading";
    /* Read everything back; keep watching the ISR until it is whole. */
    int64_t read_until = kc_now_us() + 20000000;
    int caught_up = 0;
    while (kc_now_us() < read_until) {
        caught_up = kc_consume_to_end(&L, 1000) == 0;
        sample(&L, &m);
        ctl = cluster_active_controller(&c);
        progress(&L, &m, ctl, (double)(kc_now_us() - t0) / 1e6, phase);
        if (caught_up && !m.urp)
            break;
    }
    printf("\n");
    kc_result r;
    kc_result_get(&L, &r);
    double prod_s = (double)(t_acked - t0) / 1e6;
    int64_t p50 = kc_percentile(L.ack_lat_us, L.n_lat, 0.50);
    int64_t p99 = kc_percentile(L.ack_lat_us, L.n_lat, 0.99);
    printf("\nsummary\n");
    printf("  records produced        %lld in %.1f s (sending stopped at %.1f s)\n",
           (long long)L.produced, prod_s, (double)(t_prod_end - t0) / 1e6);
    printf("  records acknowledged    %lld (failed deliveries %lld%s%s)\n", (long long)r.acked,
           (long long)r.failed, r.failed ? ": " : "", r.failed ? L.last_error : "");
    /* Neither acknowledged nor failed once the drain gave up: the producer
     * is stuck, which the summary must not call a success. */
    int64_t pending = L.produced - r.acked - r.failed;
    if (pending > 0)
        printf("  records unacknowledged  %lld (neither acknowledged nor failed after the drain)\n",
               (long long)pending);
    printf("  records consumed        %lld%s\n", (long long)L.consumed,
           caught_up ? "" : " (did not reach the high watermark in time)");
    printf("  lost                    %lld\n", (long long)r.lost);
    printf("  duplicated              %lld\n", (long long)r.duplicated);
    printf("  wrong partition / order / offset  %lld / %lld / %lld\n", (long long)r.misplaced,
           (long long)r.out_of_order, (long long)r.offset_mismatch);
    printf("  throughput              %.0f records/s acknowledged (%.1f MB/s of values)\n",
           (double)r.acked / prod_s, (double)r.acked * L.value_size / prod_s / 1e6);
    printf("  ack latency             p50 %.2f ms, p99 %.2f ms\n", (double)p50 / 1000,
           (double)p99 / 1000);
    printf("  leader changes          %lld\n", (long long)m.leader_changes);
    printf("  failover                node %d (active controller) killed at %.1f s", victim,
           t_kill ? (double)(t_kill - t0) / 1e6 : 0.0);
    if (t_new_ctl)
        printf("; a new active controller %.1f s later", (double)(t_new_ctl - t_kill) / 1e6);
    if (t_moved)
        printf("; its leaderships moved %.1f s later", (double)(t_moved - t_kill) / 1e6);
    if (t_resumed)
        printf("; writes resumed %.1f s later", (double)(t_resumed - t_kill) / 1e6);
    printf("%s; restarted at %.1f s\n", failed_over ? "" : " (FAILOVER INCOMPLETE)",
           t_restart ? (double)(t_restart - t0) / 1e6 : 0.0);
    printf("  longest ack gap         %.1f s, from %.1f s (broker.session.timeout.ms %.1f s; "
           "quorum fetch timeout 2.0 s)\n",
           (double)L.max_ack_gap_us / 1e6,
           L.max_ack_gap_us ? (double)(L.max_ack_gap_from_us - t0) / 1e6 : 0.0,
           CL_SESSION_TIMEOUT_MS / 1000.0);
    printf("  time under-replicated   %.1f s\n", (double)m.urp_us / 1e6);
    rc = (r.lost || r.duplicated || r.misplaced || r.out_of_order || r.offset_mismatch ||
          !caught_up || !victim || !failed_over || pending > 0)
             ? 1
             : 0;
    printf("  result                  %s\n", rc ? "FAILED" : "ok: nothing acknowledged was lost or duplicated");
out:
    kc_close(&L);
    if (L.log)
        fclose(L.log);
    cluster_destroy(&c);
    printf("done in %.1f s; nodes stopped, data removed\n", (double)(kc_now_us() - t_start) / 1e6);
    return rc;
}
