/*
 * rdk_client: librdkafka 2.0.2 producer/consumer used to generate golden
 * vectors through tools/capture/kafka_capture.py. Maintainer tool; not part
 * of the library build.
 *
 *   rdk_client produce BOOTSTRAP TOPIC CODEC [idempotent]
 *       Produces the fixed record set below in one batch (linger 200 ms).
 *   rdk_client keyed BOOTSTRAP TOPIC NKEYS
 *       partitioner=murmur2_random; prints "keyed <key> <partition>" per
 *       delivery report.
 *   rdk_client txn BOOTSTRAP TOPIC GROUP
 *       Transactional producer: txn 1 (2 records + send_offsets_to_transaction)
 *       committed, txn 2 (1 record) aborted.
 *   rdk_client consume BOOTSTRAP GROUP ISOLATION EXPECTED TOPIC...
 *       Consumer group from the beginning; stops after EXPECTED messages (or
 *       15 s idle), commits synchronously, closes. Prints one line per
 *       message in the sidecar format of test/vectors/README.md:
 *       "record TOPIC PARTITION OFFSET TIMESTAMP KEY VALUE NHDR [HK HV]..."
 *       where a byte field is "null" or "hex:<lowercase hex>".
 *
 * Build: cc -O1 -o rdk_client rdk_client.c -lrdkafka
 */
#define _POSIX_C_SOURCE 200809L
#include <librdkafka/rdkafka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T0 INT64_C(1700000000000)

static char errstr[512];

static void die(const char *what, const char *why) {
    fprintf(stderr, "rdk_client: %s: %s\n", what, why);
    exit(1);
}

static void set(rd_kafka_conf_t *c, const char *k, const char *v) {
    if (rd_kafka_conf_set(c, k, v, errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
        die(k, errstr);
}

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
    (void)rk;
    (void)opaque;
    if (m->err) {
        fprintf(stderr, "delivery failed: %s\n", rd_kafka_err2str(m->err));
        exit(1);
    }
    if (m->_private) { /* keyed mode: report the partition chosen */
        printf("keyed %.*s %" PRId32 "\n", (int)m->key_len, (const char *)m->key, m->partition);
    }
}

static rd_kafka_t *producer(const char *boot, rd_kafka_conf_t *c) {
    set(c, "bootstrap.servers", boot);
    set(c, "client.id", "rdkafka");
    set(c, "linger.ms", "200");
    rd_kafka_conf_set_dr_msg_cb(c, dr_cb);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, errstr, sizeof errstr);
    if (!rk) die("rd_kafka_new", errstr);
    return rk;
}

/* The fixed record set: keys, a null key, an empty key, a tombstone,
 * headers (one with a null value, one empty), a timestamp going backwards,
 * and compressible values so every codec actually compresses. */
static void produce_set(rd_kafka_t *rk, const char *topic) {
    static char big[241];
    for (int i = 0; i < 240; i++) big[i] = "abcdefghij"[i % 10];
    big[240] = '\0';
    rd_kafka_resp_err_t err;
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("key-0", 5),
        RD_KAFKA_V_VALUE("value-0 value-0 value-0 value-0", 31),
        RD_KAFKA_V_HEADER("h1", "v1", 2),
        RD_KAFKA_V_TIMESTAMP(T0), RD_KAFKA_V_END);
    if (err) die("produce 0", rd_kafka_err2str(err));
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_VALUE("value-1 null key value-1 null key", 33),
        RD_KAFKA_V_TIMESTAMP(T0 + 7), RD_KAFKA_V_END);
    if (err) die("produce 1", rd_kafka_err2str(err));
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("key-2", 5), RD_KAFKA_V_VALUE(NULL, 0),
        RD_KAFKA_V_TIMESTAMP(T0 + 14), RD_KAFKA_V_END);
    if (err) die("produce 2", rd_kafka_err2str(err));
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("", 0), RD_KAFKA_V_VALUE("", 0),
        RD_KAFKA_V_HEADER("h-null", NULL, 0), RD_KAFKA_V_HEADER("h-empty", "", 0),
        RD_KAFKA_V_TIMESTAMP(T0 - 3), RD_KAFKA_V_END);
    if (err) die("produce 3", rd_kafka_err2str(err));
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("key-4", 5), RD_KAFKA_V_VALUE(big, 240),
        RD_KAFKA_V_HEADER("h1", "v1", 2), RD_KAFKA_V_HEADER("h2", "\x00\x01\xff", 3),
        RD_KAFKA_V_TIMESTAMP(T0 + 28), RD_KAFKA_V_END);
    if (err) die("produce 4", rd_kafka_err2str(err));
}

static int cmd_produce(int argc, char **argv) {
    if (argc < 5) die("usage", "produce BOOT TOPIC CODEC [idempotent]");
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    set(c, "compression.codec", argv[4]);
    if (argc > 5 && !strcmp(argv[5], "idempotent")) set(c, "enable.idempotence", "true");
    rd_kafka_t *rk = producer(argv[2], c);
    produce_set(rk, argv[3]);
    if (rd_kafka_flush(rk, 20000)) die("flush", "timed out");
    if (argc > 5 && !strcmp(argv[5], "idempotent")) {
        /* a second batch, so baseSequence 5 appears too */
        produce_set(rk, argv[3]);
        if (rd_kafka_flush(rk, 20000)) die("flush", "timed out");
    }
    rd_kafka_destroy(rk);
    return 0;
}

static int cmd_keyed(int argc, char **argv) {
    if (argc < 5) die("usage", "keyed BOOT TOPIC NKEYS");
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    set(c, "partitioner", "murmur2_random");
    rd_kafka_t *rk = producer(argv[2], c);
    int n = atoi(argv[4]);
    for (int i = 0; i < n; i++) {
        char key[32], val[32];
        int kl = snprintf(key, sizeof key, "user-%d", i * 37);
        int vl = snprintf(val, sizeof val, "v%d", i);
        rd_kafka_resp_err_t err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(argv[3]),
            RD_KAFKA_V_KEY(key, (size_t)kl), RD_KAFKA_V_VALUE(val, (size_t)vl),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_TIMESTAMP(T0 + i), RD_KAFKA_V_OPAQUE((void *)1), RD_KAFKA_V_END);
        if (err) die("produce", rd_kafka_err2str(err));
    }
    if (rd_kafka_flush(rk, 20000)) die("flush", "timed out");
    rd_kafka_destroy(rk);
    return 0;
}

static void txn_check(rd_kafka_error_t *e, const char *what) {
    if (e) die(what, rd_kafka_error_string(e));
}

static int cmd_txn(int argc, char **argv) {
    if (argc < 5) die("usage", "txn BOOT TOPIC GROUP");
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    set(c, "transactional.id", "rdk-txn-1");
    rd_kafka_t *rk = producer(argv[2], c);
    const char *topic = argv[3];
    txn_check(rd_kafka_init_transactions(rk, 20000), "init_transactions");

    txn_check(rd_kafka_begin_transaction(rk), "begin 1");
    rd_kafka_resp_err_t err;
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("txn-key-0", 9), RD_KAFKA_V_VALUE("committed-0", 11),
        RD_KAFKA_V_TIMESTAMP(T0 + 100), RD_KAFKA_V_END);
    if (err) die("produce", rd_kafka_err2str(err));
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("txn-key-1", 9), RD_KAFKA_V_VALUE("committed-1", 11),
        RD_KAFKA_V_HEADER("txn", "1", 1),
        RD_KAFKA_V_TIMESTAMP(T0 + 101), RD_KAFKA_V_END);
    if (err) die("produce", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_t *offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offs, topic, 0)->offset = 2;
    rd_kafka_consumer_group_metadata_t *cgmd = rd_kafka_consumer_group_metadata_new(argv[4]);
    txn_check(rd_kafka_send_offsets_to_transaction(rk, offs, cgmd, 20000), "send_offsets");
    rd_kafka_consumer_group_metadata_destroy(cgmd);
    rd_kafka_topic_partition_list_destroy(offs);
    txn_check(rd_kafka_commit_transaction(rk, 20000), "commit");

    txn_check(rd_kafka_begin_transaction(rk), "begin 2");
    err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY("txn-key-2", 9), RD_KAFKA_V_VALUE("aborted-2", 9),
        RD_KAFKA_V_TIMESTAMP(T0 + 102), RD_KAFKA_V_END);
    if (err) die("produce", rd_kafka_err2str(err));
    if (rd_kafka_flush(rk, 20000)) die("flush", "timed out");
    txn_check(rd_kafka_abort_transaction(rk, 20000), "abort");
    rd_kafka_destroy(rk);
    return 0;
}

static void print_bytes(const void *p, size_t len) {
    if (!p) {
        fputs(" null", stdout);
        return;
    }
    fputs(" hex:", stdout);
    for (size_t i = 0; i < len; i++) printf("%02x", ((const unsigned char *)p)[i]);
}

static int cmd_consume(int argc, char **argv) {
    if (argc < 7) die("usage", "consume BOOT GROUP ISOLATION EXPECTED TOPIC...");
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    set(c, "bootstrap.servers", argv[2]);
    set(c, "client.id", "rdkafka");
    set(c, "group.id", argv[3]);
    set(c, "isolation.level", argv[4]);
    set(c, "auto.offset.reset", "earliest");
    set(c, "enable.auto.commit", "false");
    set(c, "enable.partition.eof", "false");
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, errstr, sizeof errstr);
    if (!rk) die("rd_kafka_new", errstr);
    rd_kafka_poll_set_consumer(rk);
    int expected = atoi(argv[5]);
    rd_kafka_topic_partition_list_t *subs = rd_kafka_topic_partition_list_new(argc - 6);
    for (int i = 6; i < argc; i++)
        rd_kafka_topic_partition_list_add(subs, argv[i], RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, subs);
    if (err) die("subscribe", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_destroy(subs);

    int got = 0;
    time_t idle_since = time(NULL);
    while (got < expected && time(NULL) - idle_since < 15) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 500);
        if (!m) continue;
        if (m->err) {
            fprintf(stderr, "consume: %s\n", rd_kafka_message_errstr(m));
            rd_kafka_message_destroy(m);
            continue;
        }
        idle_since = time(NULL);
        got++;
        rd_kafka_timestamp_type_t tstype;
        int64_t ts = rd_kafka_message_timestamp(m, &tstype);
        printf("record %s %" PRId32 " %" PRId64 " %" PRId64, rd_kafka_topic_name(m->rkt),
               m->partition, m->offset, ts);
        print_bytes(m->key, m->key_len);
        print_bytes(m->payload, m->len);
        rd_kafka_headers_t *hdrs = NULL;
        size_t nh = 0;
        if (!rd_kafka_message_headers(m, &hdrs)) nh = rd_kafka_header_cnt(hdrs);
        printf(" %zu", nh);
        for (size_t i = 0; i < nh; i++) {
            const char *name;
            const void *val;
            size_t vlen;
            rd_kafka_header_get_all(hdrs, i, &name, &val, &vlen);
            print_bytes(name, strlen(name));
            print_bytes(val, vlen);
        }
        printf("\n");
        rd_kafka_message_destroy(m);
    }
    fflush(stdout);
    if (got > 0) {
        err = rd_kafka_commit(rk, NULL, 0);
        if (err) fprintf(stderr, "commit: %s\n", rd_kafka_err2str(err));
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    if (got < expected) {
        fprintf(stderr, "consume: got %d of %d\n", got, expected);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage", "produce|keyed|txn|consume ...");
    if (!strcmp(argv[1], "produce")) return cmd_produce(argc, argv);
    if (!strcmp(argv[1], "keyed")) return cmd_keyed(argc, argv);
    if (!strcmp(argv[1], "txn")) return cmd_txn(argc, argv);
    if (!strcmp(argv[1], "consume")) return cmd_consume(argc, argv);
    die("unknown command", argv[1]);
    return 2;
}
