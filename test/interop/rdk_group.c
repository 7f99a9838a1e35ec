/* rdk_group BOOTSTRAP GROUP TOPIC ASSIGNOR NAME [--drain] [--delay-ms N]
 * rdk_group BOOTSTRAP --produce TOPIC COUNT RATE
 * rdk_group BOOTSTRAP GROUP TOPIC --committed NPARTS
 *
 * The groups suite's librdkafka group member: a KafkaConsumer subscribed
 * to TOPIC in GROUP with partition.assignment.strategy ASSIGNOR (range,
 * roundrobin, cooperative-sticky), session.timeout.ms 6000, offsets
 * committed by hand (synchronously, every 100 ms and before partitions
 * are given up). It runs until SIGTERM/SIGINT, then commits and closes;
 * with --drain it exits once every assigned partition reached its end.
 * --delay-ms sleeps after each record (a slow consumer). One line per
 * event on stdout, flushed at once (the suite kill -9s members), each
 * starting with the wall-clock time in ms:
 *
 *   T own GEN NAME P,P,...   owned partitions after a rebalance callback
 *   T committed P O          (--drain) committed offset found at assignment
 *   T msg P O VALUE          a record consumed
 *   T commit P O             a committed offset acknowledged by the broker
 *   T error TEXT             an error reported by the client
 *   T closed                 after a clean close
 *
 * GEN is the group generation the member is in. The second form is an
 * idempotent acks=all producer of COUNT keyed records "vI" at about RATE
 * a second; it prints "T ack P O VALUE" per acknowledged record and exits
 * 0 when all were acknowledged. The third prints GROUP's committed offsets
 * of partitions 0..NPARTS-1 ("T committed P O", -1001 for none) as a
 * consumer that does not join the group. */
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXP 64

static volatile sig_atomic_t stop;
static const char *name;
static const char *topic;
static int drain;
static int owned[MAXP];    /* partitions this member owns */
static int at_eof[MAXP];   /* --drain: partitions at their end */
static int64_t next_off[MAXP]; /* offset to commit (last consumed + 1) */
static int64_t done_off[MAXP]; /* last committed offset */
static int assigned_once;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The generation the member is in. librdkafka 2.0.2 has no getter; its
 * serialized group metadata (rd_kafka_consumer_group_metadata_write) is
 * the 7-byte magic "CGMDv2:" then the int32 generation in host order. */
static int generation(rd_kafka_t *rk)
{
    rd_kafka_consumer_group_metadata_t *md = rd_kafka_consumer_group_metadata(rk);
    if (!md)
        return -2;
    void *buf = NULL;
    size_t size = 0;
    int gen = -2;
    rd_kafka_error_t *e = rd_kafka_consumer_group_metadata_write(md, &buf, &size);
    if (e)
        rd_kafka_error_destroy(e);
    else if (size >= 11 && memcmp(buf, "CGMDv2:", 7) == 0) {
        int32_t g;
        memcpy(&g, (char *)buf + 7, sizeof g);
        gen = g;
    }
    free(buf);
    rd_kafka_consumer_group_metadata_destroy(md);
    return gen;
}

static void print_owned(rd_kafka_t *rk)
{
    char list[MAXP * 4] = "";
    size_t len = 0;
    for (int p = 0; p < MAXP; p++)
        if (owned[p])
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "", p);
    printf("%lld own %d %s %s\n", now_ms(), generation(rk), name, len ? list : "-");
}

static void commit_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
        printf("%lld error commit: %s\n", now_ms(), rd_kafka_err2str(err));
    for (int i = 0; offsets && i < offsets->cnt; i++) {
        rd_kafka_topic_partition_t *tp = &offsets->elems[i];
        if (tp->err)
            printf("%lld error commit %d: %s\n", now_ms(), (int)tp->partition,
                   rd_kafka_err2str(tp->err));
        else if (!err) {
            printf("%lld commit %d %lld\n", now_ms(), (int)tp->partition, (long long)tp->offset);
            if (tp->partition >= 0 && tp->partition < MAXP)
                done_off[tp->partition] = tp->offset;
        }
    }
}

/* Commits the consumed offsets of the owned partitions (only) that moved
 * since the last commit; waits for the answer. */
static void commit_owned(rd_kafka_t *rk, const int *which)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(8);
    for (int p = 0; p < MAXP; p++)
        if (which[p] && next_off[p] > done_off[p])
            rd_kafka_topic_partition_list_add(l, topic, p)->offset = next_off[p];
    if (l->cnt)
        rd_kafka_commit_queue(rk, l, NULL, commit_cb, NULL);
    rd_kafka_topic_partition_list_destroy(l);
}

/* --drain: the committed offsets this member starts from. */
static void print_committed(rd_kafka_t *rk, rd_kafka_topic_partition_list_t *parts)
{
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(parts);
    rd_kafka_resp_err_t err = rd_kafka_committed(rk, c, 20000);
    if (err)
        printf("%lld error committed: %s\n", now_ms(), rd_kafka_err2str(err));
    for (int i = 0; !err && i < c->cnt; i++)
        printf("%lld committed %d %lld\n", now_ms(), (int)c->elems[i].partition,
               (long long)c->elems[i].offset);
    rd_kafka_topic_partition_list_destroy(c);
}

static void rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    (void)opaque;
    int coop = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    int mark[MAXP] = {0};
    for (int i = 0; i < parts->cnt; i++)
        if (parts->elems[i].partition >= 0 && parts->elems[i].partition < MAXP)
            mark[parts->elems[i].partition] = 1;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        if (drain)
            print_committed(rk, parts);
        rd_kafka_error_t *e = NULL;
        if (coop)
            e = rd_kafka_incremental_assign(rk, parts);
        else
            rd_kafka_assign(rk, parts);
        if (e) {
            printf("%lld error assign: %s\n", now_ms(), rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
        }
        for (int p = 0; p < MAXP; p++)
            if (mark[p]) {
                owned[p] = 1;
                at_eof[p] = 0;
                next_off[p] = done_off[p] = -1;
            }
        assigned_once = 1;
    } else {
        /* Given up: what was consumed is committed first (at-least-once
         * without needless redelivery). */
        commit_owned(rk, mark);
        if (coop) {
            rd_kafka_error_t *e = rd_kafka_incremental_unassign(rk, parts);
            if (e)
                rd_kafka_error_destroy(e);
        } else
            rd_kafka_assign(rk, NULL);
        for (int p = 0; p < MAXP; p++)
            if (mark[p] || !coop)
                owned[p] = 0;
    }
    print_owned(rk);
}

static int set(rd_kafka_conf_t *conf, const char *k, const char *v)
{
    char err[256];
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "rdk_group: %s\n", err);
        return -1;
    }
    return 0;
}

static int all_at_eof(void)
{
    int any = 0;
    for (int p = 0; p < MAXP; p++) {
        if (owned[p] && !at_eof[p])
            return 0;
        any |= owned[p];
    }
    return any;
}

static int consume(const char *bootstrap, const char *group, const char *assignor, int delay_ms)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char cid[128];
    snprintf(cid, sizeof cid, "rdk_group-%s", name);
    if (set(conf, "bootstrap.servers", bootstrap) || set(conf, "group.id", group) ||
        set(conf, "client.id", cid) || set(conf, "partition.assignment.strategy", assignor) ||
        set(conf, "session.timeout.ms", "6000") || set(conf, "heartbeat.interval.ms", "500") ||
        set(conf, "max.poll.interval.ms", "20000") || set(conf, "enable.auto.commit", "false") ||
        set(conf, "auto.offset.reset", "earliest") ||
        set(conf, "enable.partition.eof", drain ? "true" : "false") ||
        set(conf, "topic.metadata.refresh.interval.ms", "2000")) {
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
    char err[256];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rdk_group: %s\n", err);
        return 2;
    }
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t e = rd_kafka_subscribe(rk, sub);
    rd_kafka_topic_partition_list_destroy(sub);
    if (e) {
        fprintf(stderr, "rdk_group: subscribe: %s\n", rd_kafka_err2str(e));
        rd_kafka_destroy(rk);
        return 2;
    }
    long long last_commit = now_ms();
    while (!stop && !(drain && assigned_once && all_at_eof())) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (m && m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (m->partition >= 0 && m->partition < MAXP)
                at_eof[m->partition] = 1;
        } else if (m && m->err) {
            printf("%lld error %s\n", now_ms(), rd_kafka_message_errstr(m));
        } else if (m) {
            printf("%lld msg %d %lld %.*s\n", now_ms(), (int)m->partition, (long long)m->offset,
                   (int)m->len, (const char *)m->payload);
            if (m->partition >= 0 && m->partition < MAXP && owned[m->partition]) {
                next_off[m->partition] = m->offset + 1;
                at_eof[m->partition] = 0;
            }
            if (delay_ms > 0)
                nanosleep(&(struct timespec){delay_ms / 1000, (delay_ms % 1000) * 1000000L}, NULL);
        }
        if (m)
            rd_kafka_message_destroy(m);
        if (now_ms() - last_commit >= 100) {
            commit_owned(rk, owned);
            last_commit = now_ms();
        }
    }
    commit_owned(rk, owned);
    e = rd_kafka_consumer_close(rk);
    if (e)
        printf("%lld error close: %s\n", now_ms(), rd_kafka_err2str(e));
    else
        printf("%lld closed\n", now_ms());
    rd_kafka_destroy(rk);
    return 0;
}

static int committed_only(const char *bootstrap, const char *group, int nparts)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap) || set(conf, "group.id", group)) {
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    char err[256];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rdk_group: %s\n", err);
        return 2;
    }
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(nparts);
    for (int p = 0; p < nparts; p++)
        rd_kafka_topic_partition_list_add(l, topic, p);
    print_committed(rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_destroy(rk);
    return 0;
}

static int acked, failed;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        failed++;
        printf("%lld error produce: %s\n", now_ms(), rd_kafka_err2str(m->err));
    } else {
        acked++;
        printf("%lld ack %d %lld %.*s\n", now_ms(), (int)m->partition, (long long)m->offset,
               (int)m->len, (const char *)m->payload);
    }
}

static int produce(const char *bootstrap, int count, int rate)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (set(conf, "bootstrap.servers", bootstrap) || set(conf, "enable.idempotence", "true") ||
        set(conf, "acks", "all") || set(conf, "linger.ms", "5") ||
        set(conf, "message.timeout.ms", "30000")) {
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    char err[256];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rdk_group: %s\n", err);
        return 2;
    }
    long long t0 = now_ms();
    for (int i = 0; i < count && !stop; i++) {
        char key[16], val[16];
        snprintf(key, sizeof key, "k%d", i % 13);
        snprintf(val, sizeof val, "v%d", i);
        while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(key, strlen(key)),
                                 RD_KAFKA_V_VALUE(val, strlen(val)),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(rk, 10);
        /* Paced: record i goes out about i/rate seconds after the start. */
        long long due = t0 + (long long)(i + 1) * 1000 / (rate > 0 ? rate : 1);
        while (now_ms() < due)
            rd_kafka_poll(rk, (int)(due - now_ms()));
    }
    rd_kafka_flush(rk, 40000);
    int rc = acked == count ? 0 : 1;
    if (rc)
        printf("%lld failed acked %d of %d\n", now_ms(), acked, count);
    rd_kafka_destroy(rk);
    return rc;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (argc == 6 && strcmp(argv[2], "--produce") == 0) {
        topic = argv[3];
        return produce(argv[1], atoi(argv[4]), atoi(argv[5]));
    }
    if (argc == 6 && strcmp(argv[4], "--committed") == 0) {
        topic = argv[3];
        return committed_only(argv[1], argv[2], atoi(argv[5]));
    }
    if (argc < 6) {
        fprintf(stderr, "usage: rdk_group BOOTSTRAP GROUP TOPIC ASSIGNOR NAME [--drain] [--delay-ms N]\n"
                        "       rdk_group BOOTSTRAP --produce TOPIC COUNT RATE\n"
                        "       rdk_group BOOTSTRAP GROUP TOPIC --committed NPARTS\n");
        return 2;
    }
    topic = argv[3];
    name = argv[5];
    int delay_ms = 0;
    for (int i = 6; i < argc; i++) {
        if (strcmp(argv[i], "--drain") == 0)
            drain = 1;
        else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc)
            delay_ms = atoi(argv[++i]);
        else {
            fprintf(stderr, "rdk_group: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    for (int p = 0; p < MAXP; p++)
        next_off[p] = done_off[p] = -1;
    return consume(argv[1], argv[2], argv[4], delay_ms);
}
