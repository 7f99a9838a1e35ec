#include "kclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <logrep.h>

int64_t kc_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int conf_set(rd_kafka_conf_t *c, const char *k, const char *v, char *err, size_t errsz)
{
    if (rd_kafka_conf_set(c, k, v, err, errsz) != RD_KAFKA_CONF_OK)
        return -1;
    return 0;
}

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    kc_load *L = opaque;
    int64_t i = (int64_t)(intptr_t)m->_private;
    if (i < 0 || i >= L->max_records)
        return;
    if (m->err) {
        L->failed++;
        snprintf(L->last_error, sizeof L->last_error, "%s", rd_kafka_err2str(m->err));
        return;
    }
    L->acked++;
    int64_t now = kc_now_us();
    if (L->last_ack_us && now - L->last_ack_us > L->max_ack_gap_us) {
        L->max_ack_gap_us = now - L->last_ack_us;
        L->max_ack_gap_from_us = L->last_ack_us;
    }
    L->last_ack_us = now;
    L->ack_off[i] = m->offset;
    L->ack_part[i] = (int8_t)m->partition;
    int64_t lat = now - L->send_us[i];
    L->ack_lat_us[L->n_lat++] = (int32_t)(lat > INT32_MAX ? INT32_MAX : lat);
}

/* Client log lines go to the load's file, so they never cut through a
 * progress display; with no file, librdkafka's default (stderr) stays. */
static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    kc_load *L = rd_kafka_opaque(rk);
    fprintf(L->log, "%d|%.3f|%s|%s| %s\n", level, (double)kc_now_us() / 1e6, fac,
            rd_kafka_name(rk), buf);
    fflush(L->log);
}

static void set_log(kc_load *L, rd_kafka_conf_t *c)
{
    if (L->log)
        rd_kafka_conf_set_log_cb(c, log_cb);
}

int kc_producer_start(kc_load *L, char *err, size_t errsz)
{
    int64_t n = L->max_records;
    L->send_us = calloc((size_t)n, sizeof *L->send_us);
    L->ack_off = malloc((size_t)n * sizeof *L->ack_off);
    L->ack_part = calloc((size_t)n, 1);
    L->ack_lat_us = calloc((size_t)n, sizeof *L->ack_lat_us);
    L->seen = calloc((size_t)n, 1);
    L->seen_off = calloc((size_t)n, sizeof *L->seen_off);
    L->seen_part = calloc((size_t)n, 1);
    L->e2e_us = calloc((size_t)n, sizeof *L->e2e_us);
    L->last_seq = malloc((size_t)L->nkeys * sizeof *L->last_seq);
    L->next_off = calloc((size_t)L->nparts, sizeof *L->next_off);
    L->filler = malloc(KC_VALUE_MAX + 32);
    if (!L->send_us || !L->ack_off || !L->ack_part || !L->ack_lat_us || !L->seen ||
        !L->seen_off || !L->seen_part || !L->e2e_us || !L->last_seq || !L->next_off ||
        !L->filler) {
        snprintf(err, errsz, "out of memory for %lld records", (long long)n);
        return -1;
    }
    /* Order-event-like filler: compressible, not constant. Values are
     * copied from it: a per-byte loop per record costs more CPU at 1 KiB
     * than the client library's produce path, and the load generator
     * shares the machine's cores with the brokers. */
    for (size_t j = 0; j < KC_VALUE_MAX + 32; j++)
        L->filler[j] = "order-item-sku-qty-price-"[j % 25];
    for (int64_t i = 0; i < n; i++)
        L->ack_off[i] = -1;
    for (int32_t k = 0; k < L->nkeys; k++)
        L->last_seq[k] = -1;
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    char num[32];
    if (conf_set(c, "bootstrap.servers", L->bootstrap, err, errsz) ||
        conf_set(c, "acks", L->acks ? L->acks : "all", err, errsz) ||
        conf_set(c, "enable.idempotence", L->idempotent ? "true" : "false", err, errsz) ||
        conf_set(c, "partitioner", "murmur2_random", err, errsz) ||
        conf_set(c, "compression.codec", L->compression ? L->compression : "none", err, errsz) ||
        conf_set(c, "linger.ms", "5", err, errsz) ||
        conf_set(c, "queue.buffering.max.messages", L->queue_max ? L->queue_max : "100000", err, errsz) ||
        conf_set(c, "message.timeout.ms", "60000", err, errsz))
        goto fail;
    for (int i = 0; i < 16 && L->extra[i]; i += 2)
        if (conf_set(c, L->extra[i], L->extra[i + 1], err, errsz))
            goto fail;
    (void)num;
    rd_kafka_conf_set_opaque(c, L);
    set_log(L, c);
    rd_kafka_conf_set_dr_msg_cb(c, dr_cb);
    L->prod = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, errsz);
    if (!L->prod)
        return -1;
    L->prkt = rd_kafka_topic_new(L->prod, L->topic, NULL);
    return 0;
fail:
    rd_kafka_conf_destroy(c);
    return -1;
}

int kc_produce_one(kc_load *L)
{
    int64_t i = L->produced;
    if (i >= L->max_records)
        return -1;
    int32_t key = (int32_t)(i % L->nkeys);
    char k[32], v[KC_VALUE_MAX];
    int kl = snprintf(k, sizeof k, "key-%d", (int)key);
    int vs = L->value_size < 24 ? 24 : L->value_size > (int)sizeof v ? (int)sizeof v : L->value_size;
    int vl = snprintf(v, sizeof v, "%lld|", (long long)i);
    if (vs > vl)
        memcpy(v + vl, L->filler + (vl + key) % 25, (size_t)(vs - vl));
    L->send_us[i] = kc_now_us();
    if (rd_kafka_produce(L->prkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, v, (size_t)vs, k,
                         (size_t)kl, (void *)(intptr_t)i) != 0) {
        rd_kafka_poll(L->prod, 0);
        return -1;
    }
    L->produced++;
    return 0;
}

void kc_poll(kc_load *L, int timeout_ms)
{
    if (L->prod)
        rd_kafka_poll(L->prod, timeout_ms);
}

int kc_flush(kc_load *L, int timeout_ms)
{
    rd_kafka_flush(L->prod, timeout_ms);
    return rd_kafka_outq_len(L->prod);
}

/* The legacy per-partition consumer: no group.id, so no group
 * coordinator is involved: the demo reads every partition itself and
 * checks each acknowledged record, whoever leads. */
int kc_consumer_start(kc_load *L, char *err, size_t errsz)
{
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    if (conf_set(c, "bootstrap.servers", L->bootstrap, err, errsz) ||
        conf_set(c, "fetch.wait.max.ms", "100", err, errsz) ||
        conf_set(c, "log_level", "2", err, errsz)) {
        rd_kafka_conf_destroy(c);
        return -1;
    }
    rd_kafka_conf_set_opaque(c, L);
    set_log(L, c);
    L->cons = rd_kafka_new(RD_KAFKA_CONSUMER, c, err, errsz);
    if (!L->cons)
        return -1;
    L->crkt = rd_kafka_topic_new(L->cons, L->topic, NULL);
    L->cq = rd_kafka_queue_new(L->cons);
    for (int32_t p = 0; p < L->nparts; p++) {
        if (rd_kafka_consume_start_queue(L->crkt, p, RD_KAFKA_OFFSET_BEGINNING, L->cq) != 0) {
            snprintf(err, errsz, "consume_start %d: %s", (int)p,
                     rd_kafka_err2str(rd_kafka_last_error()));
            return -1;
        }
    }
    return 0;
}

static void on_message(kc_load *L, rd_kafka_message_t *m)
{
    if (m->err || m->partition < 0 || m->partition >= L->nparts)
        return;
    L->next_off[m->partition] = m->offset + 1;
    L->consumed++;
    char buf[32];
    size_t n = m->len < sizeof buf - 1 ? m->len : sizeof buf - 1;
    memcpy(buf, m->payload, n);
    buf[n] = 0;
    char *end;
    long long i = strtoll(buf, &end, 10);
    if (end == buf || *end != '|' || i < 0 || i >= L->produced) {
        L->foreign++;
        return;
    }
    if (L->seen[i]++ > 0) {
        L->duplicated++;
        return;
    }
    L->seen_off[i] = m->offset;
    L->seen_part[i] = (int8_t)m->partition;
    int32_t key = (int32_t)(i % L->nkeys), seq = (int32_t)(i / L->nkeys);
    if (!m->key || logrep_murmur2_partition(m->key, m->key_len, L->nparts) != m->partition)
        L->misplaced++;
    if (seq <= L->last_seq[key])
        L->out_of_order++;
    L->last_seq[key] = seq;
    int64_t lat = kc_now_us() - L->send_us[i];
    L->e2e_us[L->n_e2e++] = (int32_t)(lat > INT32_MAX ? INT32_MAX : lat);
}

void kc_consume(kc_load *L, int timeout_ms)
{
    /* Messages in batches: one queue lock per batch, not per message.
     * With timeout 0 only what is ready is taken, so a producing loop
     * that reads alongside is never blocked by the consumer. */
    int64_t until = kc_now_us() + (int64_t)timeout_ms * 1000;
    rd_kafka_message_t *ms[1024];
    for (;;) {
        ssize_t n = rd_kafka_consume_batch_queue(L->cq, timeout_ms > 0 ? 10 : 0, ms, 1024);
        for (ssize_t k = 0; k < n; k++) {
            rd_kafka_message_t *m = ms[k];
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF && m->partition >= 0 &&
                m->partition < L->nparts && m->offset > L->next_off[m->partition])
                L->next_off[m->partition] = m->offset;
            on_message(L, m);
            rd_kafka_message_destroy(m);
        }
        if (timeout_ms <= 0 ? n <= 0 : kc_now_us() >= until)
            break;
    }
}

int kc_consume_to_end(kc_load *L, int timeout_ms)
{
    int64_t until = kc_now_us() + (int64_t)timeout_ms * 1000;
    int64_t *hw = calloc((size_t)L->nparts, sizeof *hw);
    int ok = 0;
    for (int32_t p = 0; p < L->nparts && hw; p++) {
        int64_t lo;
        while (rd_kafka_query_watermark_offsets(L->cons, L->topic, p, &lo, &hw[p], 5000) !=
               RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (kc_now_us() > until)
                goto out;
        }
    }
    while (kc_now_us() < until) {
        int done = 1;
        for (int32_t p = 0; p < L->nparts; p++)
            if (L->next_off[p] < hw[p])
                done = 0;
        if (done) {
            ok = 1;
            break;
        }
        kc_consume(L, 50);
    }
out:
    free(hw);
    return ok ? 0 : -1;
}

void kc_consumer_stop(kc_load *L)
{
    if (L->cons) {
        for (int32_t p = 0; p < L->nparts; p++)
            rd_kafka_consume_stop(L->crkt, p);
        rd_kafka_queue_destroy(L->cq);
        rd_kafka_topic_destroy(L->crkt);
        rd_kafka_destroy(L->cons);
        L->cons = NULL;
    }
    /* What it read is forgotten; produce-to-consume latencies are kept. */
    L->consumed = L->duplicated = L->misplaced = L->out_of_order = L->foreign = 0;
    if (L->seen)
        memset(L->seen, 0, (size_t)L->max_records);
    for (int32_t k = 0; L->last_seq && k < L->nkeys; k++)
        L->last_seq[k] = -1;
    if (L->next_off)
        memset(L->next_off, 0, (size_t)L->nparts * sizeof *L->next_off);
}

void kc_result_get(const kc_load *L, kc_result *r)
{
    memset(r, 0, sizeof *r);
    r->acked = L->acked;
    r->failed = L->failed;
    r->duplicated = L->duplicated;
    r->misplaced = L->misplaced;
    r->out_of_order = L->out_of_order;
    for (int64_t i = 0; i < L->produced; i++) {
        if (L->ack_off[i] < 0)
            continue;
        if (!L->seen[i])
            r->lost++;
        else if (L->seen_off[i] != L->ack_off[i] || L->seen_part[i] != L->ack_part[i])
            r->offset_mismatch++;
    }
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int64_t kc_percentile(int32_t *v, int64_t n, double p)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_i32);
    int64_t k = (int64_t)(p * (double)(n - 1) + 0.5);
    return v[k];
}

void kc_close(kc_load *L)
{
    kc_consumer_stop(L);
    if (L->prkt)
        rd_kafka_topic_destroy(L->prkt);
    if (L->prod)
        rd_kafka_destroy(L->prod);
    free(L->send_us);
    free(L->ack_off);
    free(L->ack_part);
    free(L->ack_lat_us);
    free(L->seen);
    free(L->seen_off);
    free(L->seen_part);
    free(L->e2e_us);
    free(L->last_seq);
    free(L->next_off);
    free(L->filler);
    L->filler = NULL;
    L->cons = NULL;
    L->prod = NULL;
    L->prkt = NULL;
}

int kc_create_topic(const char *bootstrap, const char *topic, int nparts, int rf,
                    const char *min_isr, char *err, size_t errsz)
{
    const char *kv[] = {"min.insync.replicas", min_isr, NULL};
    return kc_create_topic_configs(bootstrap, topic, nparts, rf, min_isr ? kv : NULL, err, errsz);
}

int kc_create_topic_configs(const char *bootstrap, const char *topic, int nparts, int rf,
                            const char *const *configs, char *err, size_t errsz)
{
    rd_kafka_conf_t *c = rd_kafka_conf_new();
    if (conf_set(c, "bootstrap.servers", bootstrap, err, errsz)) {
        rd_kafka_conf_destroy(c);
        return -1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, errsz);
    if (!rk)
        return -1;
    rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, nparts, rf, err, errsz);
    for (const char *const *kv = configs; nt && kv && kv[0]; kv += 2)
        rd_kafka_NewTopic_set_config(nt, kv[0], kv[1]);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(opt, 10000, NULL, 0);
    rd_kafka_AdminOptions_set_request_timeout(opt, 15000, NULL, 0);
    rd_kafka_CreateTopics(rk, &nt, 1, opt, q);
    int rc = -1;
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 20000);
    if (!ev) {
        snprintf(err, errsz, "CreateTopics: no answer in 20 s");
    } else if (rd_kafka_event_error(ev)) {
        snprintf(err, errsz, "CreateTopics: %s", rd_kafka_event_error_string(ev));
    } else {
        size_t n;
        const rd_kafka_topic_result_t **res =
            rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
        if (n == 1 && (rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_NO_ERROR ||
                       rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS))
            rc = 0;
        else
            snprintf(err, errsz, "CreateTopics: %s",
                     n ? rd_kafka_topic_result_error_string(res[0]) : "empty result");
    }
    if (ev)
        rd_kafka_event_destroy(ev);
    rd_kafka_AdminOptions_destroy(opt);
    rd_kafka_queue_destroy(q);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_destroy(rk);
    return rc;
}
