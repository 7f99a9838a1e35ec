/* rdk_check BOOTSTRAP TOPIC NPARTS SECONDS [RATE]
 * rdk_check BOOTSTRAP --create TOPIC NPARTS RF [NAME=VALUE...]
 * rdk_check BOOTSTRAP --dump TOPIC PARTITION
 *
 * The second form only creates a topic with configs (admin API). The
 * third reads one partition from its first offset to its high watermark
 * with a librdkafka consumer and prints "offset key|value" lines (a null
 * value as NULL), for the compaction checks.
 * The interop suite's librdkafka client: an idempotent acks=all producer
 * (partitioner murmur2_random) of keyed, numbered records for SECONDS at
 * about RATE records/s, then a consumer that reads every partition back
 * to its high watermark. Exit 0 when every acknowledged record was read
 * exactly once, at its acknowledged offset, in the partition murmur2
 * chooses, in per-key order. The suite kills brokers while it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kclient.h"

static int create(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: rdk_check BOOTSTRAP --create TOPIC NPARTS RF [NAME=VALUE...]\n");
        return 2;
    }
    const char *kv[2 * 32 + 1];
    int n = 0;
    for (int i = 6; i < argc && n < 2 * 32; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "rdk_check: %s: NAME=VALUE expected\n", argv[i]);
            return 2;
        }
        *eq = 0;
        kv[n++] = argv[i];
        kv[n++] = eq + 1;
    }
    kv[n] = NULL;
    char err[512];
    if (kc_create_topic_configs(argv[1], argv[3], atoi(argv[4]), atoi(argv[5]), kv, err,
                                sizeof err) != 0) {
        fprintf(stderr, "rdk_check: %s\n", err);
        return 1;
    }
    return 0;
}

static int dump(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: rdk_check BOOTSTRAP --dump TOPIC PARTITION\n");
        return 2;
    }
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err) ||
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err)) {
        fprintf(stderr, "rdk_check: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rdk_check: %s\n", err);
        return 2;
    }
    int32_t part = atoi(argv[4]);
    /* The simple consumer (no group), as the suite's other reads. */
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, argv[3], NULL);
    int rc = rkt && rd_kafka_consume_start(rkt, part, RD_KAFKA_OFFSET_BEGINNING) == 0 ? 1 : 2;
    int64_t deadline = kc_now_us() + 30000000;
    while (rc == 1 && kc_now_us() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consume(rkt, part, 200);
        if (!m)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
            rc = 0;
        else if (m->err)
            fprintf(stderr, "rdk_check: %s\n", rd_kafka_message_errstr(m));
        else {
            const char *key = m->key ? (const char *)m->key : "";
            if (m->payload)
                printf("%lld %.*s|%.*s\n", (long long)m->offset, (int)m->key_len, key,
                       (int)m->len, (const char *)m->payload);
            else
                printf("%lld %.*s|NULL\n", (long long)m->offset, (int)m->key_len, key);
        }
        rd_kafka_message_destroy(m);
    }
    if (rkt) {
        rd_kafka_consume_stop(rkt, part);
        rd_kafka_topic_destroy(rkt);
    }
    rd_kafka_destroy(rk);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "--create") == 0)
        return create(argc, argv);
    if (argc > 2 && strcmp(argv[2], "--dump") == 0)
        return dump(argc, argv);
    if (argc < 5) {
        fprintf(stderr, "usage: rdk_check BOOTSTRAP TOPIC NPARTS SECONDS [RATE]\n");
        return 2;
    }
    kc_load L = {0};
    L.bootstrap = argv[1];
    L.topic = argv[2];
    L.nparts = atoi(argv[3]);
    double seconds = atof(argv[4]);
    double rate = argc > 5 ? atof(argv[5]) : 20000;
    L.nkeys = 500;
    L.value_size = 64;
    L.compression = "lz4";
    L.max_records = (int64_t)(seconds * rate) + 1000;
    L.idempotent = 1;
    char err[512];
    if (kc_create_topic(L.bootstrap, L.topic, L.nparts, 3, "2", err, sizeof err) != 0) {
        fprintf(stderr, "rdk_check: %s\n", err);
        return 1;
    }
    if (kc_producer_start(&L, err, sizeof err) != 0) {
        fprintf(stderr, "rdk_check: %s\n", err);
        return 1;
    }
    int64_t t0 = kc_now_us(), end = t0 + (int64_t)(seconds * 1e6);
    while (kc_now_us() < end) {
        int64_t allowed = (int64_t)((double)(kc_now_us() - t0) / 1e6 * rate);
        while (L.produced < allowed && kc_produce_one(&L) == 0)
            ;
        kc_poll(&L, 5);
    }
    int left = kc_flush(&L, 60000);
    if (kc_consumer_start(&L, err, sizeof err) != 0) {
        fprintf(stderr, "rdk_check: %s\n", err);
        return 1;
    }
    int caught_up = kc_consume_to_end(&L, 60000) == 0;
    kc_result r;
    kc_result_get(&L, &r);
    int64_t p99 = kc_percentile(L.ack_lat_us, L.n_lat, 0.99);
    printf("rdk_check: produced %lld acked %lld failed %lld unfinished %d consumed %lld lost %lld "
           "duplicated %lld misplaced %lld out-of-order %lld offset-mismatch %lld foreign %lld "
           "caught-up %d ack-p99 %.1f ms%s%s\n",
           (long long)L.produced, (long long)r.acked, (long long)r.failed, left,
           (long long)L.consumed, (long long)r.lost, (long long)r.duplicated,
           (long long)r.misplaced, (long long)r.out_of_order, (long long)r.offset_mismatch,
           (long long)L.foreign, caught_up, (double)p99 / 1000, r.failed ? " last error: " : "",
           r.failed ? L.last_error : "");
    int ok = caught_up && r.acked > 0 && !r.lost && !r.duplicated && !r.misplaced &&
             !r.out_of_order && !r.offset_mismatch && !L.foreign;
    kc_close(&L);
    return ok ? 0 : 1;
}
