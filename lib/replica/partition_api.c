/* One partition replica for hosts (include/logrep/partition.h): the state
 * machine of partition.c with public types, every argument checked, and
 * its queued outputs turned into events (docs/replication.md). */
#include <string.h>

#include "base/conf.h"
#include "log/log_int.h"
#include <logrep/partition.h>
#include "replica/partition.h"

_Static_assert(LOGREP_PARTITION_MAX_REPLICAS == LR_MAX_REPLICAS, "replica count limit");
_Static_assert((int)LOGREP_ROLE_NONE == (int)LR_ROLE_NONE &&
                   (int)LOGREP_ROLE_LEADER == (int)LR_ROLE_LEADER &&
                   (int)LOGREP_ROLE_FOLLOWER == (int)LR_ROLE_FOLLOWER,
               "roles");

/* Times and durations are kept far from overflow: now_ms in [0, 2^62],
 * durations (lag, produce timeouts) at most 2^61 ms (73 million years). */
#define TIME_MAX ((int64_t)1 << 62)
#define SPAN_MAX ((int64_t)1 << 61)

struct logrep_partition {
    lr_alloc alloc;
    lr_partition *rep;
    int32_t id;
    int64_t lag_ms;        /* replica.lag.time.max.ms: the longest tick interval */
    int64_t reported_hw;   /* the high watermark of the last event */
    int32_t n_replicas;    /* of the last leadership applied */
    int32_t replicas[LR_MAX_REPLICAS];
};

static int bad_time(int64_t t)
{
    return t < 0 || t > TIME_MAX;
}

static int64_t clamp_time(int64_t t)
{
    return t < 0 ? 0 : t > TIME_MAX ? TIME_MAX : t;
}

static int has(const int32_t *v, int32_t n, int32_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (v[i] == id)
            return 1;
    return 0;
}

/* A list of replica ids: 0..max entries, non-negative, none twice, and
 * (when `of` is given) each one of `of`. */
static int bad_ids(const int32_t *v, int32_t n, int32_t max, const int32_t *of, int32_t n_of)
{
    if (n < 0 || n > max)
        return 1;
    for (int32_t i = 0; i < n; i++)
        if (v[i] < 0 || has(v, i, v[i]) || (of && !has(of, n_of, v[i])))
            return 1;
    return 0;
}

LOGREP_API logrep_err logrep_partition_new(const logrep_conf *conf, int32_t replica_id,
                                           logrep_log *log, logrep_partition **out)
{
    if (out)
        *out = NULL;
    if (!log || !out || replica_id < 0) {
        logrep_log_close(log);
        return LOGREP_ERR__INVALID_ARG;
    }
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_partition *p = lr_calloc(a, 1, sizeof *p);
    if (!p) {
        logrep_log_close(log);
        return LOGREP_ERR__NOMEM;
    }
    p->alloc = *a;
    p->id = replica_id;
    p->lag_ms = lr_conf_int(conf, LR_CONF_REPLICA_LAG_TIME_MAX_MS);
    if (p->lag_ms > SPAN_MAX)
        p->lag_ms = SPAN_MAX;
    lr_part_conf pc;
    pc.node_id = replica_id;
    pc.min_insync_replicas = (int32_t)lr_conf_int(conf, LR_CONF_MIN_INSYNC_REPLICAS);
    pc.replica_lag_time_max_ms = p->lag_ms;
    pc.max_message_bytes = (int32_t)lr_conf_int(conf, LR_CONF_MAX_MESSAGE_BYTES);
    lr_log hook = lr_conf_log(conf);
    int err = lr_partition_new(a, &hook, &pc, log, &p->rep);
    if (err) {
        logrep_log_close(log);
        lr_free(a, p, sizeof *p);
        return err;
    }
    p->reported_hw = lr_partition_high_watermark(p->rep);
    *out = p;
    return LOGREP_OK;
}

LOGREP_API void logrep_partition_free(logrep_partition *p, int abandon)
{
    if (!p)
        return;
    lr_partition_free(p->rep, abandon);
    lr_alloc a = p->alloc;
    lr_free(&a, p, sizeof *p);
}

LOGREP_API logrep_log *logrep_partition_log(logrep_partition *p)
{
    return p ? lr_partition_log(p->rep) : NULL;
}

/* ------------------------------------------------------------ leadership */

LOGREP_API logrep_err logrep_partition_apply(logrep_partition *p, const logrep_leadership *l,
                                             int64_t now_ms)
{
    if (!p || !l || bad_time(now_ms) || l->leader_epoch < 0 || l->partition_epoch < 0 ||
        l->n_replicas < 1 || bad_ids(l->replicas, l->n_replicas, LR_MAX_REPLICAS, NULL, 0) ||
        bad_ids(l->isr, l->n_isr, l->n_replicas, l->replicas, l->n_replicas) ||
        l->leader < -1 || (l->leader >= 0 && !has(l->isr, l->n_isr, l->leader)))
        return LOGREP_ERR__INVALID_ARG;
    lr_part_meta m;
    memset(&m, 0, sizeof m);
    m.leader = l->leader;
    m.leader_epoch = l->leader_epoch;
    m.partition_epoch = l->partition_epoch;
    m.n_replicas = l->n_replicas;
    memcpy(m.replicas, l->replicas, (size_t)l->n_replicas * sizeof *m.replicas);
    m.n_isr = l->n_isr;
    memcpy(m.isr, l->isr, (size_t)l->n_isr * sizeof *m.isr);
    for (int32_t i = 0; i < l->n_replicas; i++)
        m.racks[i] = "";
    lr_part_status st;
    lr_partition_status(p->rep, &st);
    if (l->partition_epoch < st.partition_epoch || l->leader_epoch < st.leader_epoch)
        return LOGREP_OK; /* stale: the replica ignores it too */
    /* The replica takes the membership even when the epoch checkpoint
     * fails (the same leadership is then applied again). */
    p->n_replicas = l->n_replicas;
    memcpy(p->replicas, l->replicas, (size_t)l->n_replicas * sizeof *p->replicas);
    return lr_partition_apply(p->rep, &m, now_ms);
}

LOGREP_API logrep_err logrep_partition_isr_result(logrep_partition *p, uint64_t id, logrep_err error,
                                                  int32_t partition_epoch, const int32_t *isr,
                                                  int32_t n_isr, int64_t now_ms)
{
    if (!p || bad_time(now_ms))
        return LOGREP_ERR__INVALID_ARG;
    /* A committed ISR must make sense on its own: the leader (this
     * replica) among known replicas, none twice. Errors carry none. */
    if (error == LOGREP_OK &&
        (partition_epoch < 0 || n_isr < 1 || !isr ||
         bad_ids(isr, n_isr, p->n_replicas, p->replicas, p->n_replicas) ||
         !has(isr, n_isr, p->id)))
        return LOGREP_ERR__INVALID_ARG;
    lr_partition_alter_done(p->rep, id, error, partition_epoch, error ? NULL : isr,
                            error ? 0 : n_isr, now_ms);
    return LOGREP_OK;
}

/* ------------------------------------------------------------ produce */

static void produce_result(logrep_produce_result *out, const lr_produce_res *r)
{
    out->error = r->error;
    out->base_offset = r->base_offset;
    out->log_append_time = r->log_append_time;
    out->log_start_offset = r->log_start_offset;
    out->token = r->token;
    out->pending = r->parked;
}

LOGREP_API logrep_err logrep_partition_produce(logrep_partition *p, void *batch, size_t len,
                                               int16_t acks, int64_t timeout_ms, uint64_t token,
                                               int64_t now_ms, logrep_produce_result *res)
{
    if (!res)
        return LOGREP_ERR__INVALID_ARG;
    memset(res, 0, sizeof *res);
    res->base_offset = res->log_append_time = res->log_start_offset = -1;
    res->token = token;
    if (!p || !batch || bad_time(now_ms) || timeout_ms < 0)
        return res->error = LOGREP_ERR__INVALID_ARG;
    lr_produce_res r;
    lr_partition_produce(p->rep, batch, len, acks, timeout_ms < SPAN_MAX ? timeout_ms : SPAN_MAX,
                         token, now_ms, &r);
    produce_result(res, &r);
    return res->error;
}

/* ------------------------------------------------------------ fetch */

LOGREP_API logrep_err logrep_partition_fetch(logrep_partition *p, const logrep_fetch_request *req,
                                             int64_t now_ms, logrep_fetch_result *res)
{
    if (!res)
        return LOGREP_ERR__INVALID_ARG;
    memset(res, 0, sizeof *res);
    res->high_watermark = res->last_stable_offset = res->log_start_offset = -1;
    res->diverging_epoch = -1;
    res->diverging_end_offset = -1;
    if (!p || !req || bad_time(now_ms) || req->replica_id < -1 ||
        req->current_leader_epoch < -1 || req->last_fetched_epoch < -1)
        return res->error = LOGREP_ERR__INVALID_ARG;
    /* The public model has no broker epochs: a follower's is "known" (0),
     * which the replica requires before a follower can join the ISR. */
    lr_fetch_req fr;
    memset(&fr, 0, sizeof fr);
    fr.replica_id = req->replica_id;
    fr.replica_epoch = req->replica_id >= 0 ? 0 : -1;
    fr.current_leader_epoch = req->current_leader_epoch;
    fr.last_fetched_epoch = req->last_fetched_epoch;
    fr.fetch_offset = req->fetch_offset;
    fr.max_bytes = req->max_bytes;
    fr.min_one = 1;
    fr.read_committed = req->read_committed;
    lr_fetch_res r;
    lr_partition_fetch(p->rep, &fr, now_ms, &r);
    res->error = r.error;
    res->high_watermark = r.high_watermark;
    res->last_stable_offset = r.last_stable_offset;
    res->log_start_offset = r.log_start_offset;
    res->diverging_epoch = r.diverging_epoch;
    res->diverging_end_offset = r.diverging_end_offset;
    res->slice = r.slice;
    return res->error;
}

LOGREP_API logrep_err logrep_partition_read_slice(logrep_partition *p,
                                                  const logrep_log_slice *slice, void *buf,
                                                  size_t size)
{
    if (!p || !slice)
        return LOGREP_ERR__INVALID_ARG;
    return lr_log_read_slice(lr_partition_log(p->rep), slice, buf, size);
}

LOGREP_API logrep_err logrep_partition_next_fetch(logrep_partition *p, logrep_follower_fetch *out)
{
    if (!p || !out)
        return LOGREP_ERR__INVALID_ARG;
    lr_follower_fetch ff;
    int err = lr_partition_follower_fetch(p->rep, &ff);
    if (err)
        return err;
    out->leader = ff.leader;
    out->current_leader_epoch = ff.current_leader_epoch;
    out->last_fetched_epoch = ff.last_fetched_epoch;
    out->fetch_offset = ff.fetch_offset;
    out->log_start_offset = ff.log_start_offset;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_partition_fetch_response(logrep_partition *p,
                                                      const logrep_follower_fetch *sent,
                                                      const logrep_fetch_result *res,
                                                      const void *records, size_t records_len,
                                                      int64_t now_ms)
{
    if (!p || !sent || !res || (!records && records_len) || bad_time(now_ms))
        return LOGREP_ERR__INVALID_ARG;
    lr_follower_fetch ff = {sent->leader, sent->current_leader_epoch, sent->last_fetched_epoch,
                            sent->fetch_offset, sent->log_start_offset};
    return lr_partition_follower_response(p->rep, &ff, res->error, res->high_watermark,
                                          res->log_start_offset, res->diverging_epoch,
                                          res->diverging_end_offset, records, records_len,
                                          now_ms);
}

LOGREP_API void logrep_partition_fetch_failed(logrep_partition *p)
{
    if (p)
        lr_partition_follower_fetch_failed(p->rep);
}

/* ------------------------------------------------------------ offsets */

LOGREP_API logrep_err logrep_partition_epoch_end(logrep_partition *p, int32_t current_leader_epoch,
                                                 int32_t leader_epoch, int32_t *end_epoch,
                                                 int64_t *end_offset)
{
    if (!p || !end_epoch || !end_offset || current_leader_epoch < -1)
        return LOGREP_ERR__INVALID_ARG;
    return lr_partition_epoch_end(p->rep, current_leader_epoch, leader_epoch, end_epoch,
                                  end_offset);
}

LOGREP_API logrep_err logrep_partition_list_offsets(logrep_partition *p, int32_t current_leader_epoch,
                                                    int64_t timestamp, int read_committed,
                                                    int64_t *offset, int64_t *found_timestamp,
                                                    int32_t *epoch)
{
    if (!p || !offset || !found_timestamp || !epoch || current_leader_epoch < -1 ||
        timestamp < LOGREP_OFFSET_LATEST_TIERED)
        return LOGREP_ERR__INVALID_ARG;
    return lr_partition_list_offsets(p->rep, current_leader_epoch, timestamp, read_committed,
                                     offset, found_timestamp, epoch);
}

/* ------------------------------------------------------------ events, time */

LOGREP_API int logrep_partition_poll(logrep_partition *p, int64_t now_ms,
                                     logrep_partition_event *ev)
{
    if (!p || !ev)
        return 0;
    memset(ev, 0, sizeof *ev);
    lr_produce_res r;
    lr_alter_req a;
    if (lr_partition_next_completion(p->rep, &r)) {
        ev->type = LOGREP_PARTITION_EV_PRODUCE;
        produce_result(&ev->produce, &r);
        return 1;
    }
    if (lr_partition_take_alter(p->rep, &a, clamp_time(now_ms))) {
        ev->type = LOGREP_PARTITION_EV_ISR_CHANGE;
        ev->isr.id = a.id;
        ev->isr.leader_epoch = a.leader_epoch;
        ev->isr.partition_epoch = a.partition_epoch;
        ev->isr.n_isr = a.n_isr;
        memcpy(ev->isr.isr, a.isr, (size_t)a.n_isr * sizeof *a.isr);
        return 1;
    }
    int64_t hw = lr_partition_high_watermark(p->rep);
    if (hw != p->reported_hw) {
        p->reported_hw = hw;
        ev->type = LOGREP_PARTITION_EV_HIGH_WATERMARK;
        ev->high_watermark = hw;
        return 1;
    }
    memset(ev, 0, sizeof *ev);
    return 0;
}

LOGREP_API int64_t logrep_partition_tick(logrep_partition *p, int64_t now_ms)
{
    if (!p)
        return INT64_MAX;
    now_ms = clamp_time(now_ms);
    lr_partition_tick(p->rep, now_ms);
    if (lr_partition_high_watermark(p->rep) != p->reported_hw)
        return now_ms; /* an event waits */
    int64_t next = lr_partition_deadline(p->rep, now_ms);
    return next < now_ms + p->lag_ms ? next : now_ms + p->lag_ms;
}

/* ------------------------------------------------------------ state */

LOGREP_API void logrep_partition_state_get(const logrep_partition *p, logrep_partition_state *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!p) {
        out->leader = out->leader_epoch = out->partition_epoch = -1;
        out->log_start_offset = out->log_end_offset = out->high_watermark = -1;
        return;
    }
    lr_part_status s;
    lr_partition_status(p->rep, &s);
    out->role = s.role;
    out->leader = s.leader;
    out->leader_epoch = s.leader_epoch;
    out->partition_epoch = s.partition_epoch;
    out->log_start_offset = s.log_start_offset;
    out->log_end_offset = s.log_end_offset;
    out->high_watermark = s.high_watermark;
    out->n_isr = s.n_isr;
    out->n_maximal_isr = s.n_maximal_isr;
    out->n_replicas = s.n_replicas;
    out->under_min_isr = s.under_min_isr;
    out->pending_produces = s.parked_produces;
}

LOGREP_API int64_t logrep_partition_high_watermark(const logrep_partition *p)
{
    return p ? lr_partition_high_watermark(p->rep) : -1;
}

LOGREP_API int64_t logrep_partition_log_end_offset(const logrep_partition *p)
{
    return p ? logrep_log_end_offset(lr_partition_log(p->rep)) : -1;
}

LOGREP_API int64_t logrep_partition_log_start_offset(const logrep_partition *p)
{
    return p ? logrep_log_start_offset(lr_partition_log(p->rep)) : -1;
}

LOGREP_API int32_t logrep_partition_leader_epoch(const logrep_partition *p)
{
    lr_part_status s;
    if (!p)
        return -1;
    lr_partition_status(p->rep, &s);
    return s.leader_epoch;
}
