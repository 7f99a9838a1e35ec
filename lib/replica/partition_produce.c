/* Produce on the leader: idempotence checks, the append, and acks=all
 * writes parked until the high watermark passes them. */
#include "replica/partition_int.h"

#include <string.h>

#include "codec/batch.h"

static int push_done(lr_partition *p, const lr_produce_res *r)
{
    if (p->n_done == p->cap_done) {
        size_t ncap = p->cap_done ? p->cap_done * 2 : 16;
        lr_produce_res *nd = lr_malloc(&p->alloc, ncap * sizeof *nd);
        if (!nd)
            return LOGREP_ERR__NOMEM;
        for (size_t i = 0; i < p->n_done; i++)
            nd[i] = p->done[(p->done_head + i) % p->cap_done];
        lr_free(&p->alloc, p->done, p->cap_done * sizeof *p->done);
        p->done = nd;
        p->cap_done = ncap;
        p->done_head = 0;
    }
    p->done[(p->done_head + p->n_done) % p->cap_done] = *r;
    p->n_done++;
    return 0;
}

/* Completes parked produces: those the HW passed (or all, with `fail`). */
void lr_part_complete_parked(lr_partition *p, logrep_err fail, int64_t now_ms)
{
    size_t keep = 0;
    int32_t effmin = effective_min_isr(p);
    for (size_t i = 0; i < p->n_parked; i++) {
        parked *q = &p->parked[i];
        lr_produce_res r;
        memset(&r, 0, sizeof r);
        r.token = q->token;
        r.log_append_time = q->log_append_time;
        r.log_start_offset = logrep_log_start_offset(p->log);
        r.base_offset = q->base_offset;
        if (fail) {
            r.error = fail;
        } else if (p->hw >= q->required_offset) {
            r.error = lr_part_maximal_isr_size(p) >= effmin ? LOGREP_OK
                                                    : LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND;
        } else if (now_ms >= q->deadline) {
            r.error = LOGREP_ERR_REQUEST_TIMED_OUT;
        } else {
            p->parked[keep++] = *q;
            continue;
        }
        if (r.error != LOGREP_OK && r.error != LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
            r.base_offset = -1;
        if (push_done(p, &r) != 0)
            p->parked[keep++] = *q; /* retried on the next event */
    }
    p->n_parked = keep;
}

/* ------------------------------------------------------------ produce */

/* Idempotent producer checks (docs/storage.md, Producer state). Returns 0 to append,
 * 1 for a duplicate (res filled with the original offset), or an error. */
static int grow_parked(lr_partition *p)
{
    size_t ncap = p->cap_parked ? p->cap_parked * 2 : 16;
    parked *np = lr_realloc(&p->alloc, p->parked, p->cap_parked * sizeof *np, ncap * sizeof *np);
    if (!np)
        return -1;
    p->parked = np;
    p->cap_parked = ncap;
    return 0;
}

static logrep_err check_producer(lr_partition *p, const logrep_batch_header *h,
                                 lr_produce_res *res)
{
    logrep_producer_entry e;
    if (logrep_log_producer(p->log, h->producer_id, &e) != LOGREP_OK)
        return LOGREP_OK; /* no state: any sequence is accepted (KIP-360) */
    int32_t first = h->base_sequence;
    int32_t last = logrep_seq_increment(first, h->last_offset_delta);
    if (h->producer_epoch == e.producer_epoch) {
        int32_t fs[5], ls[5];
        int64_t lo[5];
        int n = 0;
        if (logrep_log_producer_batches(p->log, h->producer_id, fs, ls, lo, &n) == LOGREP_OK) {
            for (int i = 0; i < n; i++) {
                if (fs[i] == first && ls[i] == last) {
                    res->base_offset = lo[i] - h->last_offset_delta;
                    return 1;
                }
            }
        }
    }
    if (h->producer_epoch < e.producer_epoch)
        return LOGREP_ERR_INVALID_PRODUCER_EPOCH;
    if (h->producer_epoch != e.producer_epoch) {
        if (first != 0)
            return LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
        return LOGREP_OK;
    }
    int32_t expect = e.last_sequence == INT32_MAX ? 0 : e.last_sequence + 1;
    if (e.last_sequence >= 0 && first != expect)
        return LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
    return LOGREP_OK;
}

logrep_err lr_partition_produce(lr_partition *p, void *buf, size_t len, int16_t acks,
                                int64_t timeout_ms, uint64_t token, int64_t now_ms,
                                lr_produce_res *res)
{
    memset(res, 0, sizeof *res);
    res->token = token;
    res->base_offset = -1;
    res->log_append_time = -1;
    res->log_start_offset = logrep_log_start_offset(p->log);
    if (p->role != LR_ROLE_LEADER)
        return res->error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    if (acks != 0 && acks != 1 && acks != -1)
        return res->error = LOGREP_ERR_INVALID_REQUIRED_ACKS;
    if (acks == -1 && p->n_isr < effective_min_isr(p))
        return res->error = LOGREP_ERR_NOT_ENOUGH_REPLICAS;
    logrep_batch_header h;
    size_t size;
    logrep_err err = logrep_batch_verify(buf, len, &size);
    if (err == LOGREP_ERR__UNSUPPORTED)
        return res->error = LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
    if (err)
        return res->error = LOGREP_ERR_CORRUPT_MESSAGE;
    logrep_batch_header_parse(buf, len, &h);
    /* Kafka takes exactly one v2 batch per partition from a client, never
     * a control batch, and no sequence-less idempotent batch. */
    if (size != len || (h.attributes & LOGREP_ATTR_CONTROL) ||
        (h.producer_id >= 0 && h.base_sequence < 0))
        return res->error = LOGREP_ERR_INVALID_RECORD;
    logrep_log_append_info info;
    memset(&info, 0, sizeof info);
    info.log_append_time = -1;
    err = h.producer_id >= 0 ? check_producer(p, &h, res) : LOGREP_OK;
    if (err == 1) {
        /* A duplicate: answered with the original offsets, and like any
         * acks=all write only once the high watermark passed them. */
        info.first_offset = res->base_offset;
        info.last_offset = res->base_offset + h.last_offset_delta;
    } else if (err) {
        return res->error = err;
    } else {
        /* Room to wait for the HW is made first: once appended, a write
         * that cannot be parked would leave the client an unknown outcome. */
        if (acks == -1 && p->n_parked == p->cap_parked && grow_parked(p) != 0)
            return res->error = LOGREP_ERR__NOMEM;
        err = logrep_log_append_leader(p->log, buf, len, p->leader_epoch, now_ms, &info);
        if (err) {
            if (err < 0) /* storage failure */
                err = LOGREP_ERR_KAFKA_STORAGE_ERROR;
            return res->error = err;
        }
        lr_part_maybe_advance_hw(p, now_ms);
    }
    res->base_offset = info.first_offset;
    res->log_append_time = info.log_append_time;
    if (acks != -1 || p->hw > info.last_offset)
        return res->error = LOGREP_OK;
    if (p->n_parked == p->cap_parked && grow_parked(p) != 0) /* a duplicate: nothing appended */
        return res->error = LOGREP_ERR__NOMEM;
    parked *q = &p->parked[p->n_parked++];
    q->token = token;
    q->required_offset = info.last_offset + 1;
    q->deadline = now_ms + timeout_ms;
    q->base_offset = info.first_offset;
    q->log_append_time = info.log_append_time;
    res->parked = 1;
    return res->error = LOGREP_OK;
}

int lr_partition_next_completion(lr_partition *p, lr_produce_res *out)
{
    if (!p->n_done)
        return 0;
    *out = p->done[p->done_head];
    p->done_head = (p->done_head + 1) % p->cap_done;
    p->n_done--;
    return 1;
}
