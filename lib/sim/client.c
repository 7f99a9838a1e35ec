/* Simulated clients speaking the Kafka wire protocol: producers (acks 0,
 * 1, all; idempotent with InitProducerId and retries), consumers (Fetch
 * from the leader, ListOffsets) and one-shot requests for scenarios.
 * One request per connection: a connection reset is an indeterminate
 * outcome, retried as Kafka clients do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fields.h"
#include "sim/sim_int.h"

#define CLIENT_TIMEOUT_MS 3000
#define PRODUCE_TIMEOUT_MS 2000

static int32_t owner_of(const lr_sim_actor *a)
{
    return LR_SIM_ACTOR0 + a->idx;
}

void lr_sim_client_wake(logrep_sim *s, lr_sim_actor *a, int64_t at)
{
    a->next_at = at;
    lr_sim_push(s, at, EV_ACTOR, owner_of(a));
}

lr_sim_actor *lr_sim_actor_new(logrep_sim *s, int kind)
{
    if (s->nactors == s->capactors) {
        size_t ncap = s->capactors ? s->capactors * 2 : 16;
        lr_sim_actor *na = realloc(s->actors, ncap * sizeof *na);
        if (!na)
            return NULL;
        s->actors = na;
        s->capactors = ncap;
    }
    lr_sim_actor *a = &s->actors[s->nactors];
    memset(a, 0, sizeof *a);
    a->idx = (int32_t)s->nactors++;
    a->kind = kind;
    a->leader = -1;
    a->leader_epoch = -1;
    a->pid = -1;
    a->pepoch = -1;
    return a;
}

static void settopic(logrep_struct *st, lr_fname name)
{
    logrep_struct_set_bytes(st, lr_fid(st, name), LR_SIM_TOPIC, 1);
}

/* Sends s->msg from the actor to node `to` on a new connection. */
int lr_sim_client_send_req(logrep_sim *s, lr_sim_actor *a, int32_t to, int state)
{
    const uint8_t *buf;
    size_t len;
    if (logrep_msg_encode_flat(s->msg, &buf, &len) != LOGREP_OK) {
        lr_sim_fail(s, "harness: encode: %s", logrep_msg_errmsg(s->msg));
        return -1;
    }
    a->end = lr_sim_client_connect(s, owner_of(a), to);
    if (!a->end)
        return -1;
    a->api = (int16_t)logrep_msg_api_key(s->msg);
    a->state = state;
    a->deadline = s->now + CLIENT_TIMEOUT_MS;
    lr_sim_push(s, a->deadline, EV_ACTOR, owner_of(a));
    lr_sim_client_send(s, owner_of(a), a->end, buf, len);
    return 0;
}

static int version_of(int api)
{
    switch (api) {
    case LOGREP_API_METADATA: return 9;
    case LOGREP_API_PRODUCE: return 7;
    case LOGREP_API_FETCH: return 11;
    case LOGREP_API_LIST_OFFSETS: return 5;
    case LOGREP_API_INIT_PRODUCER_ID: return 1;
    default: return 0;
    }
}

int lr_sim_client_metadata(logrep_sim *s, lr_sim_actor *a)
{
    int32_t to = lr_sim_random_up_broker(s);
    if (to < 0)
        return -1;
    logrep_msg_init_request(s->msg, LOGREP_API_METADATA, 9, ++a->corr, "sim");
    logrep_struct *r = logrep_msg_root(s->msg);
    lr_f_set_count(r, LR_FN_Topics, 1);
    settopic(lr_f_elem(r, LR_FN_Topics, 0), LR_FN_Name);
    return lr_sim_client_send_req(s, a, to, AS_META);
}

static int send_init(logrep_sim *s, lr_sim_actor *a)
{
    int32_t to = lr_sim_random_up_broker(s);
    if (to < 0)
        return -1;
    logrep_msg_init_request(s->msg, LOGREP_API_INIT_PRODUCER_ID, 1, ++a->corr, "sim");
    logrep_struct *r = logrep_msg_root(s->msg);
    logrep_struct_set_bytes(r, lr_fid(r, LR_FN_TransactionalId), NULL, -1);
    lr_f_set_int(r, LR_FN_TransactionTimeoutMs, 60000);
    return lr_sim_client_send_req(s, a, to, AS_INIT);
}

static uint32_t gen_of(logrep_sim *s, int32_t part)
{
    return s->cp[part].gen;
}

static int send_produce(logrep_sim *s, lr_sim_actor *a, int32_t to)
{
    logrep_batch_builder_reset(s->bb);
    if (a->idempotent)
        logrep_batch_builder_set_producer(s->bb, a->pid, a->pepoch, (int32_t)a->batch_seq);
    else
        logrep_batch_builder_set_producer(s->bb, -1, -1, -1);
    for (int32_t i = 0; i < a->batch_n; i++) {
        uint64_t id = lr_sim_rid((uint32_t)a->idx + 1, a->session, a->batch_seq + (uint32_t)i);
        uint8_t v[8];
        for (int k = 0; k < 8; k++)
            v[k] = (uint8_t)(id >> (56 - 8 * k));
        logrep_batch_builder_add(s->bb, 1700000000000LL + s->now, NULL, -1, v, 8, NULL, 0);
    }
    const uint8_t *batch;
    size_t blen;
    if (logrep_batch_builder_finish(s->bb, &batch, &blen) != LOGREP_OK) {
        lr_sim_fail(s, "harness: batch build failed");
        return -1;
    }
    logrep_msg_init_request(s->msg, LOGREP_API_PRODUCE, 7, ++a->corr, "sim");
    logrep_struct *r = logrep_msg_root(s->msg);
    lr_f_set_int(r, LR_FN_Acks, a->acks);
    lr_f_set_int(r, LR_FN_TimeoutMs, PRODUCE_TIMEOUT_MS);
    lr_f_set_count(r, LR_FN_TopicData, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_TopicData, 0);
    settopic(t, LR_FN_Name);
    lr_f_set_count(t, LR_FN_PartitionData, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_PartitionData, 0);
    lr_f_set_int(p, LR_FN_Index, a->partition);
    logrep_struct_set_records(p, lr_fid(p, LR_FN_Records), batch, (int32_t)blen);
    a->attempts++;
    lr_sim_trace(s, "client %d: produce w%d.%u seq %u+%d acks %d attempt %d -> node %d", a->idx,
                 a->idx + 1, a->session, a->batch_seq, a->batch_n, a->acks, a->attempts, to);
    return lr_sim_client_send_req(s, a, to, AS_PRODUCE);
}

int lr_sim_client_fetch(logrep_sim *s, lr_sim_actor *a, int32_t to)
{
    logrep_msg_init_request(s->msg, LOGREP_API_FETCH, 11, ++a->corr, "sim");
    logrep_struct *r = logrep_msg_root(s->msg);
    lr_f_set_int(r, LR_FN_ReplicaId, -1);
    lr_f_set_int(r, LR_FN_MaxWaitMs, 0);
    lr_f_set_int(r, LR_FN_MinBytes, 0);
    lr_f_set_int(r, LR_FN_MaxBytes, 1 << 20);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    settopic(t, LR_FN_Topic);
    lr_f_set_count(t, LR_FN_Partitions, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    lr_f_set_int(p, LR_FN_Partition, a->partition);
    lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, a->kind == ACT_ONESHOT ? -1 : a->leader_epoch);
    lr_f_set_int(p, LR_FN_FetchOffset, a->kind == ACT_ONESHOT ? a->q_offset : a->position);
    lr_f_set_int(p, LR_FN_PartitionMaxBytes, 1 << 20);
    if (a->rack[0])
        logrep_struct_set_bytes(r, lr_fid(r, LR_FN_RackId), a->rack,
                                (int32_t)strlen(a->rack));
    return lr_sim_client_send_req(s, a, to, AS_FETCH);
}

static int send_list(logrep_sim *s, lr_sim_actor *a, int32_t to, int64_t ts)
{
    logrep_msg_init_request(s->msg, LOGREP_API_LIST_OFFSETS, 5, ++a->corr, "sim");
    logrep_struct *r = logrep_msg_root(s->msg);
    lr_f_set_int(r, LR_FN_ReplicaId, -1);
    lr_f_set_int(r, LR_FN_IsolationLevel, 0);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    settopic(t, LR_FN_Name);
    lr_f_set_count(t, LR_FN_Partitions, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    lr_f_set_int(p, LR_FN_PartitionIndex, a->partition);
    lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, a->kind == ACT_ONESHOT ? -1 : a->leader_epoch);
    lr_f_set_int(p, LR_FN_Timestamp, ts);
    return lr_sim_client_send_req(s, a, to, AS_LIST);
}

/* ------------------------------------------------------------ outcomes */

void lr_sim_client_finish(logrep_sim *s, lr_sim_actor *a)
{
    if (a->end)
        lr_sim_close_end(s, a->end, 0);
    a->end = 0;
    a->state = a->kind == ACT_ONESHOT ? AS_DONE : AS_IDLE;
}

static void batch_done(logrep_sim *s, lr_sim_actor *a)
{
    a->next_seq = a->batch_seq + (uint32_t)a->batch_n;
    a->have_batch = 0;
    lr_sim_client_wake(s, a, s->now + a->interval);
}

static int retriable_leader_error(int16_t e)
{
    return e == LOGREP_ERR_NOT_LEADER_OR_FOLLOWER || e == LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION ||
           e == LOGREP_ERR_FENCED_LEADER_EPOCH || e == LOGREP_ERR_UNKNOWN_LEADER_EPOCH ||
           e == LOGREP_ERR_LEADER_NOT_AVAILABLE;
}

/* A produce attempt ended without an answer (connection reset, timeout). */
static void produce_indeterminate(logrep_sim *s, lr_sim_actor *a)
{
    a->leader = -1;
    if (a->idempotent) {
        lr_sim_client_wake(s, a, s->now + 20);
        return;
    }
    batch_done(s, a); /* not retried: a retry could duplicate */
}

static void on_produce(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    logrep_struct *rp = lr_f_elem(lr_f_elem(root, LR_FN_Responses, 0), LR_FN_PartitionResponses, 0);
    int16_t err = rp ? (int16_t)lr_f_int(rp, LR_FN_ErrorCode) : LOGREP_ERR_UNKNOWN_SERVER_ERROR;
    int64_t base = rp ? lr_f_int(rp, LR_FN_BaseOffset) : -1;
    uint64_t first = lr_sim_rid((uint32_t)a->idx + 1, a->session, a->batch_seq);
    lr_sim_trace(s, "client %d: produce w%d.%u seq %u+%d -> %s base %lld", a->idx, a->idx + 1,
                 a->session, a->batch_seq, a->batch_n, err ? logrep_err_name(err) : "NONE",
                 (long long)base);
    if (a->kind == ACT_ONESHOT) {
        a->result = err;
        a->r_offset = base;
    }
    if (err == 0) {
        if (a->acks == -1) {
            lr_sim_check_ack(s, a->partition, first, a->batch_n, base, (uint32_t)a->batch_gen,
                             a->served_epoch);
            s->stats.acked += a->batch_n;
        }
        batch_done(s, a);
        return;
    }
    s->stats.produce_errors++;
    if (err == LOGREP_ERR_NOT_ENOUGH_REPLICAS && a->attempts == 1)
        lr_sim_check_not_appended(s, a->partition, first, a->batch_n);
    if (a->kind == ACT_ONESHOT)
        return;
    if (retriable_leader_error(err))
        a->leader = -1;
    if (err == LOGREP_ERR_NOT_ENOUGH_REPLICAS && a->attempts == 1) {
        lr_sim_client_wake(s, a, s->now + 50); /* definitely not appended: safe to retry */
        return;
    }
    if (!a->idempotent) {
        batch_done(s, a);
        return;
    }
    if (err == LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER || err == LOGREP_ERR_INVALID_PRODUCER_EPOCH ||
        err == LOGREP_ERR_UNKNOWN_PRODUCER_ID || err == LOGREP_ERR_INVALID_RECORD ||
        err == LOGREP_ERR_CORRUPT_MESSAGE) {
        /* The producer session ends (its id is dropped); the batch's
         * outcome stays indeterminate. */
        lr_sim_trace(s, "client %d: new producer session after %s", a->idx, logrep_err_name(err));
        a->pid = -1;
        a->have_batch = 0;
        lr_sim_client_wake(s, a, s->now + 50);
        return;
    }
    lr_sim_client_wake(s, a, s->now + 50);
}

static int parse_records(logrep_sim *s, lr_sim_actor *a, const uint8_t *recs, int32_t rlen,
                         int64_t from, int64_t *next)
{
    int32_t n = 0;
    size_t pos = 0;
    while (rlen > 0 && pos < (size_t)rlen) {
        logrep_batch_header h;
        logrep_err e = logrep_batch_reader_open(s->rd, recs + pos, (size_t)rlen - pos, &h);
        if (e == LOGREP_ERR__AGAIN)
            break; /* a partial batch at the end */
        if (e != LOGREP_OK) {
            lr_sim_fail(s, "I9: client %d got a corrupt batch: %s", a->idx,
                        logrep_batch_reader_errmsg(s->rd));
            return n;
        }
        logrep_record rec;
        while (!(h.attributes & LOGREP_ATTR_CONTROL) && logrep_batch_reader_next(s->rd, &rec) == LOGREP_OK) {
            if (rec.offset < from)
                continue;
            uint64_t id = 0;
            if (rec.value_len == 8)
                for (int k = 0; k < 8; k++)
                    id = id << 8 | rec.value[k];
            lr_sim_check_read(s, a->partition, rec.offset, id, h.partition_leader_epoch);
            *next = rec.offset + 1;
            n++;
        }
        if (h.attributes & LOGREP_ATTR_CONTROL)
            *next = h.base_offset + h.last_offset_delta + 1;
        pos += (size_t)h.batch_length + 12;
    }
    s->stats.consumed += n;
    return n;
}

/* The leader epoch of the replica the actor asked, as it stands now
 * (epochs only grow, so a zombie is still one when its answer arrives). */
void lr_sim_client_on_fetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    logrep_struct *rp = lr_f_elem(lr_f_elem(root, LR_FN_Responses, 0), LR_FN_Partitions, 0);
    int16_t err = rp ? (int16_t)lr_f_int(rp, LR_FN_ErrorCode) : LOGREP_ERR_UNKNOWN_SERVER_ERROR;
    if (a->kind == ACT_ONESHOT) {
        a->result = err;
        a->r_hw = rp ? lr_f_int(rp, LR_FN_HighWatermark) : -1;
    }
    if (err) {
        lr_sim_trace(s, "client %d: fetch at %lld -> %s", a->idx,
                     (long long)(a->kind == ACT_ONESHOT ? a->q_offset : a->position),
                     logrep_err_name(err));
        if (retriable_leader_error(err))
            a->leader = -1;
        if (err == LOGREP_ERR_OFFSET_OUT_OF_RANGE && a->kind != ACT_ONESHOT)
            a->position = 0;
        return;
    }
    const uint8_t *recs;
    int32_t rlen = 0;
    logrep_struct_bytes(rp, lr_fid(rp, LR_FN_Records), &recs, &rlen);
    int64_t from = a->kind == ACT_ONESHOT ? a->q_offset : a->position, next = from;
    int32_t n = parse_records(s, a, recs, rlen, from, &next);
    if (a->kind == ACT_ONESHOT)
        a->r_records = n;
    else
        a->position = next;
    lr_sim_check_end_offset(s, a, lr_f_int(rp, LR_FN_HighWatermark), 0, a->served_epoch);
}

static void on_list(logrep_sim *s, lr_sim_actor *a, logrep_struct *root)
{
    logrep_struct *rp = lr_f_elem(lr_f_elem(root, LR_FN_Topics, 0), LR_FN_Partitions, 0);
    int16_t err = rp ? (int16_t)lr_f_int(rp, LR_FN_ErrorCode) : LOGREP_ERR_UNKNOWN_SERVER_ERROR;
    int64_t off = rp ? lr_f_int(rp, LR_FN_Offset) : -1;
    lr_sim_trace(s, "client %d: list offsets -> %s %lld", a->idx, err ? logrep_err_name(err) : "NONE",
                 (long long)off);
    if (a->kind == ACT_ONESHOT) {
        a->result = err;
        a->r_offset = off;
    }
    if (err) {
        if (retriable_leader_error(err))
            a->leader = -1;
        return;
    }
    if (a->kind != ACT_ONESHOT || a->q_ts == -1)
        lr_sim_check_end_offset(s, a, off, 1, rp ? (int32_t)lr_f_int(rp, LR_FN_LeaderEpoch) : -1);
}

void lr_sim_actor_frame(logrep_sim *s, lr_sim_actor *a, uint64_t end, const uint8_t *data,
                        size_t len, int32_t served_epoch)
{
    if (a->kind == ACT_GROUP) {
        lr_sim_gm_frame(s, a, end, data, len, served_epoch);
        return;
    }
    if (end != a->end || a->state == AS_IDLE || (a->state == AS_DONE && a->kind != ACT_ONESHOT))
        return;
    if (a->kind == ACT_ONESHOT && a->done)
        return;
    int api = a->api;
    if (logrep_msg_decode_response(s->rmsg, api, version_of(api), data, len) != LOGREP_OK) {
        lr_sim_fail(s, "harness: client %d cannot decode a %s response: %s", a->idx,
                    logrep_proto_api_name(api), logrep_msg_errmsg(s->rmsg));
        return;
    }
    logrep_struct *root = logrep_msg_root(s->rmsg);
    a->served_epoch = served_epoch;
    int state = a->state;
    lr_sim_client_finish(s, a);
    switch (state) {
    case AS_META: {
        logrep_struct *t = lr_f_elem(root, LR_FN_Topics, 0);
        logrep_struct *p = t && lr_f_int(t, LR_FN_ErrorCode) == 0 ? lr_f_elem(t, LR_FN_Partitions, a->partition) : NULL;
        int32_t epoch = p ? (int32_t)lr_f_int(p, LR_FN_LeaderEpoch) : -1;
        if (p && epoch < a->leader_epoch) {
            /* Metadata older than what this client already saw (KIP-320:
             * clients never let a partition's leader epoch go backwards):
             * ask again later. */
            a->leader = -1;
            lr_sim_client_wake(s, a, s->now + 100);
            break;
        }
        a->leader = p && lr_f_int(p, LR_FN_ErrorCode) == 0 ? (int32_t)lr_f_int(p, LR_FN_LeaderId) : -1;
        if (p)
            a->leader_epoch = epoch;
        lr_sim_client_wake(s, a, s->now + (a->leader >= 0 ? 1 : 100));
        break;
    }
    case AS_INIT:
        if (lr_f_int(root, LR_FN_ErrorCode) == 0) {
            a->pid = lr_f_int(root, LR_FN_ProducerId);
            a->pepoch = (int16_t)lr_f_int(root, LR_FN_ProducerEpoch);
            a->session++;
            a->next_seq = 0;
            lr_sim_trace(s, "client %d: producer id %lld epoch %d (session %u)", a->idx,
                         (long long)a->pid, a->pepoch, a->session);
            lr_sim_client_wake(s, a, s->now + 1);
        } else {
            lr_sim_client_wake(s, a, s->now + 100);
        }
        break;
    case AS_PRODUCE:
        on_produce(s, a, root);
        break;
    case AS_FETCH:
        lr_sim_client_on_fetch(s, a, root);
        if (a->kind != ACT_ONESHOT)
            lr_sim_client_wake(s, a, s->now + a->interval);
        break;
    case AS_LIST:
        on_list(s, a, root);
        if (a->kind != ACT_ONESHOT)
            lr_sim_client_wake(s, a, s->now + a->interval);
        break;
    default:
        break;
    }
    if (a->kind == ACT_ONESHOT)
        a->done = 1;
}

/* The request in flight got no answer. */
static void request_lost(logrep_sim *s, lr_sim_actor *a)
{
    int state = a->state;
    lr_sim_client_finish(s, a);
    if (a->kind == ACT_ONESHOT) {
        a->done = 1;
        a->result = LOGREP_ERR__IO;
        return;
    }
    if (state == AS_PRODUCE)
        produce_indeterminate(s, a);
    else {
        a->leader = -1;
        lr_sim_client_wake(s, a, s->now + 50);
    }
}

void lr_sim_actor_closed(logrep_sim *s, lr_sim_actor *a, uint64_t end)
{
    if (a->kind == ACT_GROUP) {
        lr_sim_gm_closed(s, a, end);
        return;
    }
    if (end != a->end || a->state == AS_IDLE || a->state == AS_DONE)
        return;
    lr_sim_trace(s, "client %d: connection lost", a->idx);
    a->end = 0; /* already closed */
    request_lost(s, a);
}

void lr_sim_actor_timer(logrep_sim *s, lr_sim_actor *a)
{
    if (a->kind == ACT_GROUP) {
        lr_sim_gm_timer(s, a);
        return;
    }
    if (a->state == AS_DONE)
        return;
    if (a->state != AS_IDLE) {
        if (s->now >= a->deadline) {
            lr_sim_trace(s, "client %d: request timed out", a->idx);
            request_lost(s, a);
        }
        return;
    }
    if (s->now < a->next_at)
        return;
    if (a->stopping && !(a->kind == ACT_PRODUCER && a->idempotent && a->have_batch)) {
        a->state = AS_DONE;
        return;
    }
    int r;
    if (a->leader < 0 || (a->leader >= 1 && !logrep_sim_is_up(s, a->leader)))
        r = lr_sim_client_metadata(s, a);
    else if (a->kind == ACT_PRODUCER) {
        if (a->idempotent && a->pid < 0) {
            r = send_init(s, a);
        } else {
            if (!a->have_batch) {
                a->have_batch = 1;
                a->batch_seq = a->next_seq;
                a->batch_n = 1 + (int32_t)lr_sim_rand(s, (uint64_t)a->max_records);
                a->attempts = 0;
                a->batch_gen = (int)gen_of(s, a->partition);
            }
            r = send_produce(s, a, a->leader);
            if (r == 0 && a->acks == 0) {
                lr_sim_client_finish(s, a);
                batch_done(s, a);
                return;
            }
        }
    } else if (lr_sim_rand(s, 5) == 0) {
        r = send_list(s, a, a->leader, -1);
    } else {
        r = lr_sim_client_fetch(s, a, a->leader);
    }
    if (r != 0) {
        a->state = AS_IDLE;
        a->leader = -1;
        lr_sim_client_wake(s, a, s->now + 100);
    }
}

/* ------------------------------------------------------------ public */

LOGREP_API int32_t logrep_sim_producer(logrep_sim *s, int32_t part, int16_t acks, int idempotent,
                                       int64_t interval_ms, int32_t max_records)
{
    if (!s || part < 0 || part >= s->conf.partitions || (acks != 0 && acks != 1 && acks != -1) ||
        (idempotent && acks != -1) || interval_ms < 1 || max_records < 1 || max_records > 100)
        return -1;
    lr_sim_actor *a = lr_sim_actor_new(s, ACT_PRODUCER);
    if (!a)
        return -1;
    a->partition = part;
    a->acks = acks;
    a->idempotent = idempotent;
    a->interval = interval_ms;
    a->max_records = max_records;
    lr_sim_trace(s, "client %d: producer on partition %d, acks %d%s, every %lld ms", a->idx, part,
                 acks, idempotent ? ", idempotent" : "", (long long)interval_ms);
    lr_sim_client_wake(s, a, s->now + 1 + (int64_t)lr_sim_rand(s, (uint64_t)interval_ms));
    return a->idx;
}

LOGREP_API int32_t logrep_sim_consumer(logrep_sim *s, int32_t part, int64_t interval_ms)
{
    if (!s || part < 0 || part >= s->conf.partitions || interval_ms < 1)
        return -1;
    lr_sim_actor *a = lr_sim_actor_new(s, ACT_CONSUMER);
    if (!a)
        return -1;
    a->partition = part;
    a->interval = interval_ms;
    lr_sim_trace(s, "client %d: consumer on partition %d", a->idx, part);
    lr_sim_client_wake(s, a, s->now + 1 + (int64_t)lr_sim_rand(s, (uint64_t)interval_ms));
    return a->idx;
}

LOGREP_API void logrep_sim_actor_stop(logrep_sim *s, int32_t actor)
{
    if (!s || actor < 0 || (size_t)actor >= s->nactors)
        return;
    s->actors[actor].stopping = 1;
}

/* Runs until the one-shot actor is done. */
static logrep_err oneshot_wait(logrep_sim *s, int32_t idx, int64_t max_ms)
{
    for (int64_t t = 0; t < max_ms; t += 5) {
        if (s->actors[idx].done)
            break;
        if (logrep_sim_run(s, 5) != LOGREP_OK)
            return LOGREP_ERR__CORRUPT;
    }
    lr_sim_actor *a = &s->actors[idx];
    if (!a->done) {
        if (a->end)
            lr_sim_close_end(s, a->end, 0);
        a->end = 0;
        a->state = AS_DONE;
        a->done = 1;
        return LOGREP_ERR__TIMED_OUT;
    }
    return a->result;
}

static lr_sim_actor *oneshot(logrep_sim *s, int32_t part)
{
    lr_sim_actor *a = lr_sim_actor_new(s, ACT_ONESHOT);
    if (!a)
        return NULL;
    a->partition = part;
    a->session = 0;
    return a;
}

LOGREP_API logrep_err logrep_sim_produce(logrep_sim *s, int32_t node, int32_t part, int16_t acks,
                                         int32_t records, int64_t max_ms, int64_t *base)
{
    if (!s || part < 0 || part >= s->conf.partitions || records < 1 || records > 1000)
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_actor *a = oneshot(s, part);
    if (!a)
        return LOGREP_ERR__NOMEM;
    a->acks = acks;
    a->batch_n = records;
    a->have_batch = 1;
    a->batch_gen = (int)gen_of(s, part);
    int32_t idx = a->idx;
    if (send_produce(s, a, node) != 0)
        return LOGREP_ERR__IO;
    if (acks == 0) {
        lr_sim_client_finish(s, a);
        return LOGREP_OK;
    }
    logrep_err e = oneshot_wait(s, idx, max_ms);
    if (base)
        *base = s->actors[idx].r_offset;
    return e;
}

LOGREP_API logrep_err logrep_sim_fetch(logrep_sim *s, int32_t node, int32_t part, int64_t offset,
                                       const char *rack, int64_t max_ms, int32_t *records,
                                       int64_t *hw)
{
    if (!s || part < 0 || part >= s->conf.partitions)
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_actor *a = oneshot(s, part);
    if (!a)
        return LOGREP_ERR__NOMEM;
    a->q_offset = offset;
    if (rack)
        snprintf(a->rack, sizeof a->rack, "%s", rack);
    int32_t idx = a->idx;
    if (lr_sim_client_fetch(s, a, node) != 0)
        return LOGREP_ERR__IO;
    logrep_err e = oneshot_wait(s, idx, max_ms);
    if (records)
        *records = s->actors[idx].r_records;
    if (hw)
        *hw = s->actors[idx].r_hw;
    return e;
}

LOGREP_API logrep_err logrep_sim_list_offsets(logrep_sim *s, int32_t node, int32_t part,
                                              int64_t ts, int64_t max_ms, int64_t *offset)
{
    if (!s || part < 0 || part >= s->conf.partitions)
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_actor *a = oneshot(s, part);
    if (!a)
        return LOGREP_ERR__NOMEM;
    a->q_ts = ts;
    int32_t idx = a->idx;
    if (send_list(s, a, node, ts) != 0)
        return LOGREP_ERR__IO;
    logrep_err e = oneshot_wait(s, idx, max_ms);
    if (offset)
        *offset = s->actors[idx].r_offset;
    return e;
}
