/* A checked librdkafka load: an idempotent acks=all producer of keyed,
 * numbered records and a consumer (plain assignment) that reads them back
 * and accounts for every one: lost (acknowledged, never read), duplicated,
 * in the wrong partition (Kafka's murmur2 choice), out of per-key order,
 * or at another offset than the one acknowledged. Used by the cluster
 * demo, the interop suite and the broker benchmark. */
#ifndef LOGREP_KCLIENT_H
#define LOGREP_KCLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <librdkafka/rdkafka.h>

#define KC_VALUE_MAX 65536 /* the largest value_size */

typedef struct kc_load {
    /* set by the caller */
    const char *bootstrap;
    const char *topic;
    int32_t nparts;
    int32_t nkeys;
    int value_size;          /* bytes per value (>= 24) */
    const char *compression; /* "none", "lz4", ... */
    int64_t max_records;     /* capacity of the accounting arrays */
    int idempotent;
    const char *acks;        /* "all" by default */
    const char *queue_max;   /* queue.buffering.max.messages */
    const char *extra[16];   /* more producer properties, name/value pairs */
    FILE *log;               /* the clients' log lines go here (NULL: stderr) */

    /* producer */
    rd_kafka_t *prod;
    rd_kafka_topic_t *prkt;
    int64_t produced, acked, failed;
    int64_t *send_us;        /* per record index */
    int64_t *ack_off;        /* -1: not acknowledged */
    int8_t *ack_part;
    int32_t *ack_lat_us;
    int64_t n_lat;
    char *filler;            /* value filler: a repeating pattern, KC_VALUE_MAX + 32 bytes */
    char last_error[256];
    int64_t last_ack_us;     /* when the latest acknowledgement arrived (0: none yet) */
    int64_t max_ack_gap_us;  /* the longest time between two acknowledgements */
    int64_t max_ack_gap_from_us; /* when that gap began */

    /* consumer */
    rd_kafka_t *cons;
    rd_kafka_topic_t *crkt;
    rd_kafka_queue_t *cq;
    int64_t consumed;
    uint8_t *seen;           /* times read */
    int64_t *seen_off;
    int8_t *seen_part;
    int32_t *last_seq;       /* per key */
    int64_t *next_off;       /* per partition */
    int64_t duplicated, misplaced, out_of_order, foreign;
    int32_t *e2e_us;         /* produce-to-consume latency per read record */
    int64_t n_e2e;
} kc_load;

typedef struct kc_result {
    int64_t acked, lost, duplicated, misplaced, out_of_order, offset_mismatch, failed;
} kc_result;

int64_t kc_now_us(void);
int kc_producer_start(kc_load *L, char *err, size_t errsz);
/* Queues one more record (returns 0, or -1 when the queue is full or the
 * accounting arrays are). Serves delivery reports. */
int kc_produce_one(kc_load *L);
void kc_poll(kc_load *L, int timeout_ms);
/* Waits for outstanding deliveries (bounded). Returns records left. */
int kc_flush(kc_load *L, int timeout_ms);
int kc_consumer_start(kc_load *L, char *err, size_t errsz);
/* Serves the consumer for up to timeout_ms; with 0, takes only the
 * messages that are ready and never waits. */
void kc_consume(kc_load *L, int timeout_ms);
/* Reads until every partition reaches its high watermark (bounded). */
int kc_consume_to_end(kc_load *L, int timeout_ms);
/* Closes the consumer and forgets what it read (a new one may start). */
void kc_consumer_stop(kc_load *L);
void kc_result_get(const kc_load *L, kc_result *r);
int64_t kc_percentile(int32_t *v, int64_t n, double p); /* sorts v */
void kc_close(kc_load *L);
/* Creates a topic through the admin API. 0 or -1 (err filled). */
int kc_create_topic(const char *bootstrap, const char *topic, int nparts, int rf,
                    const char *min_isr, char *err, size_t errsz);
/* The same with topic configs: name/value pairs, NULL-terminated. */
int kc_create_topic_configs(const char *bootstrap, const char *topic, int nparts, int rf,
                            const char *const *configs, char *err, size_t errsz);

#endif
