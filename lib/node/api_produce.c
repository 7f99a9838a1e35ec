/* Produce: each partition's batch goes to its replica (recompressed
 * first when the topic's compression.type asks for it); acks=all
 * partitions complete later, so the request is parked until every one of
 * them has, and answered in one response as Kafka does. */
#include <string.h>

#include "node/node_int.h"

/* One partition of a produce request: its answer, and while it waits the
 * token its completion carries. */
typedef struct presult {
    char *topic;
    int32_t partition;
    int32_t records; /* in the batch, counted once it completes */
    lr_produce_res res;
    uint64_t token; /* 0: answered */
} presult;

typedef struct parked_produce {
    lr_parked base;
    presult *results;
    int32_t n_results;
    int32_t outstanding;
} parked_produce;

static void free_results(logrep_node *n, presult *r, int32_t nr)
{
    for (int32_t i = 0; i < nr; i++)
        lr_strfree(&n->alloc, r[i].topic);
    lr_free(&n->alloc, r, (size_t)(nr > 0 ? nr : 1) * sizeof *r);
}

int64_t lr_produce_base_offset(const lr_produce_res *res)
{
    return res->error && res->error != LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND
               ? -1
               : res->base_offset;
}

/* Builds the produce response from the results. */
static int produce_response(logrep_msg *resp, int16_t version, int32_t corr, presult *r,
                            int32_t nr)
{
    int err = logrep_msg_init_response(resp, LOGREP_API_PRODUCE, version, corr);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(resp);
    /* Group by topic, keeping request order. */
    int32_t ntopics = 0;
    for (int32_t i = 0; i < nr; i++)
        if (i == 0 || strcmp(r[i].topic, r[i - 1].topic) != 0)
            ntopics++;
    lr_f_set_count(rs, LR_FN_Responses, ntopics);
    int32_t ti = -1, pi = 0;
    logrep_struct *te = NULL;
    for (int32_t i = 0; i < nr; i++) {
        if (i == 0 || strcmp(r[i].topic, r[i - 1].topic) != 0) {
            te = lr_f_elem(rs, LR_FN_Responses, ++ti);
            lr_f_set_str(te, LR_FN_Name, r[i].topic, (int32_t)strlen(r[i].topic));
            int32_t cnt = 0;
            for (int32_t j = i; j < nr && strcmp(r[j].topic, r[i].topic) == 0; j++)
                cnt++;
            lr_f_set_count(te, LR_FN_PartitionResponses, cnt);
            pi = 0;
        }
        logrep_struct *pe = lr_f_elem(te, LR_FN_PartitionResponses, pi++);
        lr_f_set_int(pe, LR_FN_Index, r[i].partition);
        lr_f_set_int(pe, LR_FN_ErrorCode, lr_wire_code(r[i].res.error));
        lr_f_set_int(pe, LR_FN_BaseOffset, lr_produce_base_offset(&r[i].res));
        lr_f_set_int(pe, LR_FN_LogAppendTimeMs, r[i].res.log_append_time);
        lr_f_set_int(pe, LR_FN_LogStartOffset, r[i].res.log_start_offset);
    }
    return 0;
}

/* compression.type other than producer: the leader rewrites a batch of
 * another codec once, before the append, so followers copy stored bytes.
 * A batch that cannot be rewritten (CRC, corrupt compressed data) goes to
 * the log as sent, whose validation gives Kafka's answer for it. */
static int produce_codec(logrep_node *n, lr_npart *p, const uint8_t *recs, size_t rlen,
                         const void **out, size_t *out_len)
{
    *out = recs;
    *out_len = rlen;
    if (p->codec < 0 || !n->produce.rezip || lr_partition_role(p->rep) != LR_ROLE_LEADER)
        return 0;
    int err = logrep_batch_reader_recompress(n->produce.rezip, recs, rlen, p->codec,
                                             p->codec_level, out, out_len);
    if (err == LOGREP_ERR__NOMEM || err == LOGREP_ERR__COMPRESSION)
        return err;
    if (err) {
        *out = recs;
        *out_len = rlen;
    }
    return 0;
}

static int pp_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    (void)now_ms;
    parked_produce *pp = (parked_produce *)d;
    if (pp->outstanding > 0)
        return 0;
    if (produce_response(n->resp, d->version, d->correlation_id, pp->results,
                         pp->n_results) == 0)
        lr_conn_finish(n, d->conn, d->slot, n->resp);
    else
        lr_conn_close(n, d->conn); /* no answer: the client retries */
    return 1;
}

static int64_t pp_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms)
{
    (void)n;
    /* Its partitions time it out: each completes by the request's timeout. */
    return ((const parked_produce *)d)->outstanding <= 0 ? now_ms : INT64_MAX;
}

static void pp_free(logrep_node *n, lr_parked *d)
{
    parked_produce *pp = (parked_produce *)d;
    free_results(n, pp->results, pp->n_results);
    lr_free(&n->alloc, pp, sizeof *pp);
}

static const lr_park_ops produce_ops = {pp_poll, pp_deadline, pp_free};

void lr_produce_one(logrep_node *n, const char *name, int32_t len, int32_t index,
                    const uint8_t *recs, size_t rlen, int16_t acks, int64_t timeout,
                    uint64_t token, int64_t now_ms, lr_produce_res *res, int32_t *records)
{
    memset(res, 0, sizeof *res);
    res->base_offset = -1;
    res->log_append_time = -1;
    res->log_start_offset = -1;
    *records = 0;
    lr_npart *p = name ? lr_part_named(n, name, len, index) : NULL;
    const void *src = NULL;
    size_t slen = 0;
    if (!p) {
        res->error = lr_missing_part_error(n, name, len, index);
        return;
    }
    if (strcmp(p->topic, LR_OFFSETS_TOPIC) == 0) {
        /* Only the group coordinator writes its internal topic, as in Kafka. */
        res->error = LOGREP_ERR_INVALID_TOPIC_EXCEPTION;
        return;
    }
    if (rlen == 0) {
        res->error = LOGREP_ERR_INVALID_RECORD;
        return;
    }
    if ((res->error = produce_codec(n, p, recs, rlen, &src, &slen)) != 0)
        return; /* out of memory or a codec failure: the answer says so */
    /* The log stamps offsets into the batch: work on a copy since the
     * caller's bytes are the host's (a recompressed batch is one already). */
    uint8_t *copy = src != recs ? (uint8_t *)src : lr_malloc(&n->alloc, slen);
    if (!copy) {
        res->error = LOGREP_ERR__NOMEM;
        return;
    }
    if (src == recs)
        memcpy(copy, recs, slen);
    lr_partition_produce(p->rep, copy, slen, acks, timeout, token, now_ms, res);
    if (src == recs)
        lr_free(&n->alloc, copy, slen);
    logrep_batch_header h;
    if (logrep_batch_header_parse(recs, rlen, &h) == LOGREP_OK)
        *records = h.record_count;
    if (!res->parked && !res->error)
        n->stats.produce_records += *records;
    lr_node_part_changed(n, p);
}

/* Appends one partition's batch; fills res. */
static void produce_part(logrep_node *n, const lr_req *r, logrep_struct *pe, const char *name,
                         int32_t len, int16_t acks, int64_t timeout, uint64_t token, presult *res,
                         int32_t *parked)
{
    int32_t index = (int32_t)lr_f_int(pe, LR_FN_Index);
    res->partition = index;
    res->topic = lr_malloc(&n->alloc, (size_t)(len > 0 ? len : 0) + 1);
    if (res->topic) {
        memcpy(res->topic, name ? name : "", (size_t)(len > 0 ? len : 0));
        res->topic[len > 0 ? len : 0] = 0;
    }
    if (!res->topic) {
        /* Nothing appended: the request fails whole (lr_api_produce). */
        res->res = (lr_produce_res){LOGREP_ERR__NOMEM, -1, -1, -1, 0, 0};
        return;
    }
    const uint8_t *recs;
    int32_t rlen;
    logrep_struct_bytes(pe, lr_fid(pe, LR_FN_Records), &recs, &rlen);
    lr_produce_one(n, name, len, index, recs, rlen > 0 ? (size_t)rlen : 0, acks, timeout, token,
                   r->now_ms, &res->res, &res->records);
    if (res->res.parked) {
        res->token = token;
        (*parked)++;
    }
}

int lr_api_produce(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int16_t acks = (int16_t)lr_f_int(rq, LR_FN_Acks);
    int64_t timeout = lr_f_int(rq, LR_FN_TimeoutMs);
    int32_t nt = lr_f_count(rq, LR_FN_TopicData);
    int32_t total = 0;
    for (int32_t i = 0; i < nt; i++)
        total += lr_f_count(lr_f_elem(rq, LR_FN_TopicData, i), LR_FN_PartitionData);
    presult *res = lr_calloc(&n->alloc, total > 0 ? (size_t)total : 1, sizeof *res);
    if (!res)
        return LOGREP_ERR__NOMEM;
    /* acks=all: the parked slot exists before anything is appended, so
     * running out of memory refuses the request instead of leaving a
     * written batch unanswered. */
    parked_produce *pp = NULL;
    if (acks == -1) {
        pp = lr_calloc(&n->alloc, 1, sizeof *pp);
        if (!pp || lr_park_add(n, r->conn, r->msg, &pp->base, &produce_ops) != 0) {
            lr_free(&n->alloc, pp, sizeof *pp);
            free_results(n, res, total);
            return LOGREP_ERR__NOMEM;
        }
    }
    int32_t k = 0, parked = 0;
    uint64_t base_token = (++n->produce.token_seq) << 20;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *te = lr_f_elem(rq, LR_FN_TopicData, i);
        const char *name;
        int32_t len;
        lr_f_str(te, LR_FN_Name, &name, &len);
        int32_t np = lr_f_count(te, LR_FN_PartitionData);
        for (int32_t j = 0; j < np; j++, k++)
            produce_part(n, r, lr_f_elem(te, LR_FN_PartitionData, j), name, len, acks, timeout,
                         base_token | (uint64_t)k, &res[k], &parked);
    }
    /* A partition refused for want of memory (nothing appended) has no
     * Kafka answer: the request fails whole, closing its connection (and
     * a parked pp with it), and the client retries as after a broker
     * failure. */
    int err = 0;
    for (int32_t i = 0; i < total && acks != 0; i++)
        if (res[i].res.error == LOGREP_ERR__NOMEM)
            err = LOGREP_ERR__NOMEM;
    if (acks == 0 || err) {
        /* acks=0: Kafka sends no response at all. */
        free_results(n, res, total);
        return err;
    }
    if (pp) {
        pp->results = res;
        pp->n_results = total;
        pp->outstanding = parked;
        return 0; /* answered from the park, at once when nothing waits */
    }
    err = produce_response(r->resp, (int16_t)logrep_msg_version(r->msg),
                               logrep_msg_correlation_id(r->msg), res, total);
    if (!err)
        err = lr_req_answer(n, r);
    free_results(n, res, total);
    return err;
}

void lr_produce_collect_part(logrep_node *n, lr_npart *p)
{
    lr_produce_res r;
    while (lr_partition_next_completion(p->rep, &r)) {
        if (r.token & LR_GROUP_TOKEN) {
            lr_groups_completion(n, &r);
            continue;
        }
        if (r.token & LR_INPROC_TOKEN) {
            lr_inproc_produce_done(n, &r);
            continue;
        }
        for (lr_parked *d = n->park.list; d; d = d->next) {
            if (d->ops != &produce_ops)
                continue;
            parked_produce *pp = (parked_produce *)d;
            for (int32_t k = 0; k < pp->n_results; k++) {
                if (pp->results[k].token == r.token) {
                    pp->results[k].res = r;
                    pp->results[k].token = 0;
                    pp->outstanding--;
                    if (!r.error)
                        n->stats.produce_records += pp->results[k].records;
                }
            }
        }
    }
}

void lr_produce_collect(logrep_node *n)
{
    for (size_t i = 0; i < n->parts.n; i++)
        lr_produce_collect_part(n, &n->parts.v[i]);
}
