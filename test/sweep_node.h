/* The node-level sweep's cluster, client and checks (test_sweep_node.c,
 * test_node_faults.c): nodes of test/lib/net_testutil on crash storages,
 * the faulty one allocating from a counting heap. Header-only (static
 * inline), after sweep.h. docs/testing.md. */
#ifndef LOGREP_SWEEP_NODE_H
#define LOGREP_SWEEP_NODE_H

#include <string.h>

#include "lib/net_testutil.h"
#include "proto/fields.h"
#include "sweep.h"

#define SN_MAX 24   /* produces per run */
#define SN_CAP 64   /* offsets read back per partition */

typedef struct sn_rec {
    int part;
    int acks;
    int acked;
    int64_t offset;
} sn_rec;

typedef struct sn_run {
    const sw_fault *f;
    char what[80];
    net w;
    int n, F, parts;
    tu_heap heap;
    logrep_allocator a;
    int seen;       /* an error reached a client or the host */
    int logged;     /* ERROR lines of the faulty node */
    int warned;     /* WARN lines naming the fault's error (worked around) */
    char last[256];
    int leader[4];  /* per partition, as last seen */
    int nrec;
    sn_rec rec[SN_MAX];
    int created_u;  /* CreateTopics "u" answered success */
} sn_run;

static const char *const sn_conf[] = {
    "segment.bytes", "300",                          /* rolls */
    "flush.messages", "2",                           /* syncs on the produce path */
    "log.flush.offset.checkpoint.interval.ms", "300", /* checkpoints */
    "broker.heartbeat.interval.ms", "300",
    "broker.session.timeout.ms", "1500",              /* quick restarts */
    "replica.lag.time.max.ms", "1000",
    NULL};

static inline void sn_log(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    sn_run *r = ctx;
    if (getenv("LOGREP_TEST_LOG"))
        fprintf(stderr, "[node %d %d %s] %.*s\n", r->F, level, subsys, (int)len, msg);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)len, msg);
    r->warned += level == LOGREP_LEVEL_WARN && strstr(line, logrep_err_name(r->f->err));
    if (level != LOGREP_LEVEL_ERROR)
        return;
    r->logged++;
    snprintf(r->last, sizeof r->last, "%s", line);
}

/* Whether code is in the 0-terminated list (0, success, always is). */
static inline int sn_in(int code, const int *ok)
{
    for (; *ok; ok++)
        if (code == *ok)
            return 1;
    return code == 0;
}

static const int produce_codes[] = {LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, LOGREP_ERR_REQUEST_TIMED_OUT,
                                    LOGREP_ERR_NOT_ENOUGH_REPLICAS,
                                    LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                                    LOGREP_ERR_KAFKA_STORAGE_ERROR,
                                    LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION, 0};
static const int read_codes[] = {LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, LOGREP_ERR_KAFKA_STORAGE_ERROR,
                                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION,
                                 LOGREP_ERR_OFFSET_NOT_AVAILABLE, 0};
static const int md_topic_codes[] = {LOGREP_ERR_LEADER_NOT_AVAILABLE,
                                     LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION, 0};
static const int md_part_codes[] = {LOGREP_ERR_LEADER_NOT_AVAILABLE, LOGREP_ERR_REPLICA_NOT_AVAILABLE,
                                    0};
static const int create_codes[] = {LOGREP_ERR_REQUEST_TIMED_OUT, LOGREP_ERR_NOT_CONTROLLER,
                                   LOGREP_ERR_INVALID_REPLICATION_FACTOR, 0};

static inline void sn_code(sn_run *r, const char *step, int code, const int *ok)
{
    cr_assert(sn_in(code, ok), "%s: %s answered %s", r->what, step, logrep_err_name(code));
    if (code && !r->seen)
        snprintf(r->last, sizeof r->last, "%s: %s", step, logrep_err_name(code));
    if (code)
        r->seen = 1;
}

/* Starts the faulty node, its log counted; a failure is the fault's. */
static inline logrep_err sn_start(sn_run *r)
{
    r->w.down[r->F] = 0;
    log_capture = sn_log;
    log_capture_ctx = r;
    logrep_err e = start_node_err(&r->w, r->F);
    log_capture = NULL;
    if (e) {
        cr_assert(sw_expected_err(r->f, e) || e == LOGREP_ERR_KAFKA_STORAGE_ERROR,
                  "%s: restart failed with %s (%s)", r->what, logrep_err_name(e), r->w.err);
        r->w.node[r->F] = NULL;
        r->w.down[r->F] = 1;
        r->seen = 1;
    }
    return e;
}

static inline void sn_stop(sn_run *r, int abandon)
{
    logrep_node_free(r->w.node[r->F], abandon);
    r->w.node[r->F] = NULL;
    kill_node(&r->w, r->F); /* its connections */
}

/* Every replica's state, for a failure's message. */
static inline void sn_dump(sn_run *r)
{
    for (int id = 1; id <= r->n; id++)
        for (size_t i = 0; r->w.node[id] && i < logrep_node_partition_count(r->w.node[id]); i++) {
            logrep_node_partition_info pi;
            logrep_node_partition(r->w.node[id], i, &pi);
            fprintf(stderr, "node %d %s-%d role %d leader %d epoch %d LEO %lld HW %lld isr %d\n",
                    id, pi.topic, pi.partition, pi.role, pi.leader, pi.leader_epoch,
                    (long long)pi.log_end_offset, (long long)pi.high_watermark, pi.isr);
        }
}

/* Sends m to node `to` and waits: 1 answered into resp, 0 closed. A
 * request neither answered nor closed is a hang. */
static inline int sn_call(sn_run *r, int to, logrep_msg *m, int api, int ver, logrep_msg *resp,
                   const char *step)
{
    cr_assert_not_null(r->w.node[to]);
    uint64_t c = client_send(&r->w, to, m);
    int got = client_answer(&r->w, c, api, ver, resp, 7000);
    if (getenv("LOGREP_TEST_LOG"))
        fprintf(stderr, "%s: %s to node %d: %d\n", r->what, step, to, got);
    cr_assert_geq(got, 0, "%s: %s to node %d: no answer, connection open", r->what, step, to);
    if (!got && !r->seen)
        snprintf(r->last, sizeof r->last, "%s: connection closed", step);
    if (!got)
        r->seen = 1;
    return got;
}

static inline logrep_msg *sn_req(int api, int ver)
{
    logrep_msg *m;
    cr_assert_eq(logrep_msg_new(NULL, &m), LOGREP_OK);
    cr_assert_eq(logrep_msg_init_request(m, api, ver, 5, "sweep"), LOGREP_OK);
    return m;
}

static inline logrep_struct *sn_one_topic(logrep_struct *s, lr_fname list, lr_fname name, const char *t)
{
    lr_f_set_count(s, list, 1);
    logrep_struct *e = lr_f_elem(s, list, 0);
    lr_f_set_str(e, name, t, (int32_t)strlen(t));
    return e;
}

/* Metadata v9 of topic t through node via; learns the leaders. */
static inline void sn_metadata(sn_run *r, int via)
{
    logrep_msg *m = sn_req(LOGREP_API_METADATA, 9), *resp;
    logrep_msg_new(NULL, &resp);
    sn_one_topic(logrep_msg_root(m), LR_FN_Topics, LR_FN_Name, "t");
    if (sn_call(r, via, m, LOGREP_API_METADATA, 9, resp, "metadata")) {
        logrep_struct *t = lr_f_elem(logrep_msg_root(resp), LR_FN_Topics, 0);
        int code = (int)lr_f_int(t, LR_FN_ErrorCode);
        sn_code(r, "metadata", code, md_topic_codes);
        for (int32_t i = 0; !code && i < lr_f_count(t, LR_FN_Partitions); i++) {
            logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, i);
            sn_code(r, "metadata partition", (int)lr_f_int(p, LR_FN_ErrorCode), md_part_codes);
            int32_t idx = (int32_t)lr_f_int(p, LR_FN_PartitionIndex);
            if (idx >= 0 && idx < r->parts)
                r->leader[idx] = (int)lr_f_int(p, LR_FN_LeaderId);
        }
    }
    logrep_msg_free(m);
    logrep_msg_free(resp);
}

/* CreateTopics v7 of a topic (one partition, RF n) through node via;
 * r->created_u notes that u was created. */
static inline void sn_create(sn_run *r, int via, const char *name)
{
    logrep_msg *m = sn_req(LOGREP_API_CREATE_TOPICS, 7), *resp;
    logrep_msg_new(NULL, &resp);
    logrep_struct *root = logrep_msg_root(m);
    lr_f_set_int(root, LR_FN_timeoutMs, 3000);
    logrep_struct *t = sn_one_topic(root, LR_FN_Topics, LR_FN_Name, name);
    lr_f_set_int(t, LR_FN_NumPartitions, 1);
    lr_f_set_int(t, LR_FN_ReplicationFactor, r->n);
    if (sn_call(r, via, m, LOGREP_API_CREATE_TOPICS, 7, resp, "create")) {
        int code = (int)lr_f_int(lr_f_elem(logrep_msg_root(resp), LR_FN_Topics, 0), LR_FN_ErrorCode);
        sn_code(r, "create", code, create_codes);
        r->created_u |= !code && !strcmp(name, "u");
    }
    logrep_msg_free(m);
    logrep_msg_free(resp);
}

/* Produce v7 of one record "s<i>" to partition part's last known leader. */
static inline void sn_produce(sn_run *r, int part, int16_t acks)
{
    cr_assert_lt(r->nrec, SN_MAX);
    int i = r->nrec++;
    sn_rec *rec = &r->rec[i];
    rec->part = part;
    rec->acks = acks;
    int to = r->leader[part];
    if (to < 1 || !r->w.node[to])
        return; /* no leader known that is up: nothing to send to */
    char v[16];
    snprintf(v, sizeof v, "s%d", i);
    logrep_msg *resp;
    logrep_msg_new(NULL, &resp);
    uint64_t c = produce_send(&r->w, to, "t", part, v, acks);
    int got = client_answer(&r->w, c, LOGREP_API_PRODUCE, 7, resp, 7000);
    if (getenv("LOGREP_TEST_LOG"))
        fprintf(stderr, "%s: produce %s acks %d to node %d: %d\n", r->what, v, acks, to, got);
    if (got < 0)
        sn_dump(r);
    cr_assert_geq(got, 0, "%s: produce %s to node %d: no answer, connection open", r->what, v, to);
    if (!got)
        r->seen = 1;
    else {
        logrep_struct *p = lr_f_elem(lr_f_elem(logrep_msg_root(resp), LR_FN_Responses, 0),
                                     LR_FN_PartitionResponses, 0);
        int code = (int)lr_f_int(p, LR_FN_ErrorCode);
        sn_code(r, "produce", code, produce_codes);
        rec->acked = !code;
        rec->offset = lr_f_int(p, LR_FN_BaseOffset);
    }
    logrep_msg_free(resp);
}

/* ListOffsets v9 (latest) of partition part on node via. */
static inline void sn_list_offsets(sn_run *r, int via, int part)
{
    {
        logrep_msg *m = sn_req(LOGREP_API_LIST_OFFSETS, 9), *resp;
        logrep_msg_new(NULL, &resp);
        logrep_struct *root = logrep_msg_root(m);
        lr_f_set_int(root, LR_FN_ReplicaId, -1);
        logrep_struct *t = sn_one_topic(root, LR_FN_Topics, LR_FN_Name, "t");
        lr_f_set_count(t, LR_FN_Partitions, 1);
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
        lr_f_set_int(p, LR_FN_PartitionIndex, part);
        lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, -1);
        lr_f_set_int(p, LR_FN_Timestamp, -1);
        if (sn_call(r, via, m, LOGREP_API_LIST_OFFSETS, 9, resp, "list offsets")) {
            logrep_struct *rp = lr_f_elem(lr_f_elem(logrep_msg_root(resp), LR_FN_Topics, 0),
                                          LR_FN_Partitions, 0);
            sn_code(r, "list offsets", (int)lr_f_int(rp, LR_FN_ErrorCode), read_codes);
        }
        logrep_msg_free(m);
        logrep_msg_free(resp);
    }
}

/* Fetch v11 of partition part from offset on node via: its error code;
 * the values of the records into vals (by offset), the HW into *hw, and
 * the offset after the last record into *next. */
static inline int sn_fetch(sn_run *r, int via, int part, int64_t offset, char (*vals)[8], int64_t *hw,
                    int64_t *next)
{
    logrep_msg *m, *resp;
    logrep_msg_new(NULL, &m);
    logrep_msg_new(NULL, &resp);
    fetch_request(m, "t", part, offset, 0, 1);
    int code = -1;
    *next = offset;
    if (sn_call(r, via, m, LOGREP_API_FETCH, 11, resp, "fetch")) {
        logrep_struct *p = lr_f_elem(lr_f_elem(logrep_msg_root(resp), LR_FN_Responses, 0),
                                     LR_FN_Partitions, 0);
        code = (int)lr_f_int(p, LR_FN_ErrorCode);
        sn_code(r, "fetch", code, read_codes);
        *hw = lr_f_int(p, LR_FN_HighWatermark);
        const uint8_t *recs;
        int32_t len;
        logrep_struct_bytes(p, lr_fid(p, LR_FN_Records), &recs, &len);
        logrep_batch_reader *rd;
        logrep_batch_reader_new(NULL, &rd);
        for (size_t pos = 0; len > 0 && pos < (size_t)len;) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_reader_open(rd, recs + pos, (size_t)len - pos, &h), 0);
            logrep_record rec;
            while (logrep_batch_reader_next(rd, &rec) == 0) {
                if (rec.offset >= 0 && rec.offset < SN_CAP && vals)
                    snprintf(vals[rec.offset], 8, "%.*s", (int)rec.value_len,
                             (const char *)rec.value);
                *next = rec.offset + 1;
            }
            pos += (size_t)h.batch_length + 12;
        }
        logrep_batch_reader_free(rd);
    }
    logrep_msg_free(m);
    logrep_msg_free(resp);
    return code;
}

/* A produce acks=all to every partition succeeds within a few retries
 * (leaders move), and every replica then holds the partition's end. */
static inline int sn_usable(sn_run *r)
{
    for (int part = 0; part < r->parts; part++) {
        int ok = 0;
        for (int tries = 0; tries < 6 && !ok; tries++) {
            sn_metadata(r, r->n == 1 ? r->F : 1);
            sn_produce(r, part, -1);
            ok = r->rec[r->nrec - 1].acked;
            if (!ok)
                run(&r->w, 500);
        }
        if (!ok)
            return 0;
    }
    run(&r->w, 1000);
    for (int part = 0; part < r->parts; part++) {
        int64_t end = -1;
        for (int id = 1; id <= r->n; id++) {
            logrep_node_partition_info pi;
            int64_t leo = -2;
            for (size_t i = 0; r->w.node[id] && i < logrep_node_partition_count(r->w.node[id]); i++)
                if (logrep_node_partition(r->w.node[id], i, &pi) == 0 && !strcmp(pi.topic, "t") &&
                    pi.partition == part)
                    leo = pi.log_end_offset;
            if (end == -1)
                end = leo;
            if (leo != end)
                return 0;
        }
    }
    return 1;
}

/* Every acknowledged record reads back from its partition's leader (on
 * the cluster only acks=all ones: Kafka may lose acks=1 ones when the
 * leader changes). */
static inline void sn_check(sn_run *r, const char *when)
{
    sn_metadata(r, r->n == 1 ? r->F : 1);
    for (int part = 0; part < r->parts; part++) {
        char vals[SN_CAP][8];
        memset(vals, 0, sizeof vals);
        int64_t off = 0, hw = 0, next;
        for (int guard = 0; guard < SN_CAP; guard++) {
            int code = sn_fetch(r, r->leader[part], part, off, vals, &hw, &next);
            cr_assert_eq(code, 0, "%s: %s: read of t-%d from node %d: %s", r->what, when, part,
                         r->leader[part], logrep_err_name(code));
            if (next >= hw)
                break;
            off = next > off ? next : off + 1;
        }
        for (int i = 0; i < r->nrec; i++) {
            sn_rec *rec = &r->rec[i];
            if (rec->part != part || !rec->acked || (r->n > 1 && rec->acks != -1))
                continue;
            char want[16];
            snprintf(want, sizeof want, "s%d", i);
            cr_assert_lt(rec->offset, SN_CAP);
            cr_assert_str_eq(vals[rec->offset], want, "%s: %s: acknowledged %s at t-%d@%lld lost",
                             r->what, when, want, part, (long long)rec->offset);
        }
    }
}

/* Whether topic u exists per node via's metadata. */
static inline int sn_has_u(sn_run *r, int via)
{
    logrep_msg *m = sn_req(LOGREP_API_METADATA, 9), *resp;
    logrep_msg_new(NULL, &resp);
    sn_one_topic(logrep_msg_root(m), LR_FN_Topics, LR_FN_Name, "u");
    int has = sn_call(r, via, m, LOGREP_API_METADATA, 9, resp, "metadata") &&
              lr_f_int(lr_f_elem(logrep_msg_root(resp), LR_FN_Topics, 0), LR_FN_ErrorCode) == 0;
    logrep_msg_free(m);
    logrep_msg_free(resp);
    return has;
}

/* n nodes on crash storages, the faulty one allocating from r->heap;
 * topic t (on the cluster 3 partitions, RF 3) with one acknowledged
 * record per partition. */
static inline sn_run *sn_setup(const sw_fault *f, int n)
{
    sn_run *r = calloc(1, sizeof *r);
    r->f = f;
    r->n = n;
    r->F = n == 1 ? 1 : 2;
    r->parts = n == 1 ? 1 : 3;
    sw_describe(f, r->what, sizeof r->what);
    r->a = tu_heap_allocator(&r->heap);
    net *w = &r->w;
    w->n = n;
    w->now = 1000;
    extra_conf = sn_conf;
    for (int id = 1; id <= n; id++)
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &w->st[id]), LOGREP_OK);
    w->alloc[r->F] = &r->a;
    for (int id = 1; id <= n; id++) {
        if (id == r->F)
            cr_assert_eq(sn_start(r), LOGREP_OK);
        else
            start_node(w, id);
    }
    run(w, 2000);
    if (n == 1)
        create_topic_cfg(w, 1, "t", 1, 1, "min.insync.replicas", "1");
    else
        create_topic(w, 1, "t", r->parts, 3);
    run(w, 1000);
    sn_metadata(r, 1);
    for (int part = 0; part < r->parts; part++) {
        sn_produce(r, part, -1);
        cr_assert(r->rec[r->nrec - 1].acked, "produce before the fault failed");
    }
    cr_assert(!r->seen && !r->logged && !r->warned, "errors before the fault: %s", r->last);
    return r;
}

static inline void sn_teardown(sn_run *r)
{
    extra_conf = NULL;
    teardown(&r->w);
    cr_assert_eq(r->heap.live_blocks, 0, "%s: %ld blocks leaked", r->what, r->heap.live_blocks);
    free(r);
}

#endif
