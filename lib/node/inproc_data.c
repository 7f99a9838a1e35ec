/* In-process produce, fetch and list offsets (include/logrep/inproc.h):
 * the partition work of the Produce, Fetch and ListOffsets handlers
 * (lr_produce_one, lr_fetch_part, the same name lookups and errors), with
 * the answer put in an event of the node's queue (events.c) instead of a
 * response frame. An acks=all produce waits in its partition like a
 * wire one, its completion routed here by its token; a fetch that waits
 * for data is parked like a wire fetch and runs again when a partition
 * it reads changes or its wait is over. */
#include <string.h>

#include "node/node_int.h"

/* A client's topic name for the lookups: at most one byte past the
 * longest legal name, so that a longer one is refused as on the wire. */
static int32_t name_len(const char *topic)
{
    size_t len = strnlen(topic, LR_MD_MAX_TOPIC_NAME + 1);
    return (int32_t)len;
}

/* ------------------------------------------------------------ produce */

static void produce_done(logrep_node *n, lr_evt *e, const lr_produce_res *r)
{
    e->ev.base_offset = lr_produce_base_offset(r);
    e->ev.log_append_time = r->log_append_time;
    e->ev.log_start_offset = r->log_start_offset;
    lr_evt_done(n, e, r->error);
}

void lr_inproc_produce_done(logrep_node *n, const lr_produce_res *r)
{
    lr_evt *e = lr_evt_find(n, LOGREP_NODE_EV_PRODUCE, r->token);
    if (!e)
        return;
    if (!r->error)
        n->stats.produce_records += e->count;
    produce_done(n, e, r);
}

LOGREP_API logrep_err logrep_node_produce(logrep_node *n, const char *topic, int32_t partition,
                                          const void *batch, size_t len, int16_t acks,
                                          int32_t timeout_ms, uint64_t token, int64_t now_ms)
{
    if (!n || !topic || !batch || !len || partition < 0 || timeout_ms < 0)
        return LOGREP_ERR__INVALID_ARG;
    /* The event exists before anything is appended: a written batch is
     * always answered. */
    uint64_t ptoken = LR_INPROC_TOKEN | lr_evt_new_key(n);
    lr_evt *e = lr_evt_start(n, LOGREP_NODE_EV_PRODUCE, token, ptoken);
    if (!e)
        return LOGREP_ERR__NOMEM;
    lr_produce_res res;
    int32_t records;
    lr_produce_one(n, topic, name_len(topic), partition, batch, len, acks, timeout_ms, ptoken,
                   now_ms, &res, &records);
    if (res.error == LOGREP_ERR__NOMEM) {
        lr_evt_cancel(n, e); /* nothing appended */
        return LOGREP_ERR__NOMEM;
    }
    e->count = records;
    if (!res.parked)
        produce_done(n, e, &res);
    lr_node_wake(n, now_ms); /* fetches waiting for this batch */
    return LOGREP_OK;
}

/* ------------------------------------------------------------ fetch */

typedef struct inproc_fetch {
    lr_parked base;      /* deadline: the end of max_wait */
    lr_evt *ev;
    char *topic;
    int32_t partition;
    int64_t offset;
    int32_t max_bytes;
    int read_committed;
    lr_park_track track; /* what wakes it */
} inproc_fetch;

/* Fills the event from a fetch's result, the records copied. */
static void fetch_answer(logrep_node *n, lr_evt *e, const lr_fetch_res *res)
{
    int err = res->error;
    e->ev.high_watermark = res->high_watermark;
    e->ev.last_stable_offset = res->last_stable_offset;
    e->ev.log_start_offset = res->log_start_offset;
    if (!err && res->slice.length) {
        uint8_t *rec = lr_evt_alloc(n, e, (size_t)res->slice.length);
        err = rec ? lr_slice_read(n, &res->slice, rec) : LOGREP_ERR__NOMEM;
        if (!err) {
            e->ev.records = rec;
            e->ev.records_len = (size_t)res->slice.length;
        }
    }
    lr_evt_done(n, e, err);
}

/* Runs the fetch; 1 when it is answered, 0 when it waits for data. */
static int fetch_run(logrep_node *n, inproc_fetch *f, int retry, int64_t now_ms)
{
    int32_t len = name_len(f->topic);
    lr_npart *p = lr_part_named(n, f->topic, len, f->partition);
    lr_park_track_reset(&f->track);
    lr_fetch_res res;
    if (!p) {
        memset(&res, 0, sizeof res);
        res.error = lr_missing_part_error(n, f->topic, len, f->partition);
        res.high_watermark = res.last_stable_offset = res.log_start_offset = -1;
        fetch_answer(n, f->ev, &res);
        return 1;
    }
    lr_park_track_add(n, &f->track, p);
    /* A consumer's fetch (Fetch v11+, no rack): from the leader, or from
     * a follower up to its own HW. */
    lr_fetch_req fr = {-1, -1, -1, -1, f->offset, (uint64_t)f->max_bytes, 1, f->read_committed,
                       NULL, retry, 0};
    lr_fetch_part(n, p, &fr, now_ms, &res);
    if (!res.error && !res.slice.length && now_ms < f->base.deadline &&
        !n->life.shutting_down) {
        f->track.seen_seq = n->park.seq;
        return 0;
    }
    fetch_answer(n, f->ev, &res);
    return 1;
}

static int if_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    inproc_fetch *f = (inproc_fetch *)d;
    if (!lr_park_track_due(n, &f->track, d->deadline, now_ms))
        return 0;
    n->stats.parked_fetch_runs++;
    return fetch_run(n, f, 1, now_ms);
}

static void if_free(logrep_node *n, lr_parked *d)
{
    inproc_fetch *f = (inproc_fetch *)d;
    lr_park_track_free(n, &f->track);
    lr_strfree(&n->alloc, f->topic);
    lr_free(&n->alloc, f, sizeof *f);
}

static const lr_park_ops inproc_fetch_ops = {if_poll, lr_parked_deadline, if_free};

LOGREP_API logrep_err logrep_node_fetch(logrep_node *n, const char *topic, int32_t partition,
                                        int64_t offset, int32_t max_bytes, int read_committed,
                                        int32_t max_wait_ms, uint64_t token, int64_t now_ms)
{
    if (!n || !topic || partition < 0 || max_bytes < 0 || max_wait_ms < 0)
        return LOGREP_ERR__INVALID_ARG;
    inproc_fetch *f = lr_calloc(&n->alloc, 1, sizeof *f);
    if (!f || !(f->topic = lr_strdup(&n->alloc, topic)) ||
        !(f->ev = lr_evt_start(n, LOGREP_NODE_EV_FETCH, token, 0))) {
        if (f)
            if_free(n, &f->base);
        return LOGREP_ERR__NOMEM;
    }
    f->partition = partition;
    f->offset = offset;
    f->max_bytes = max_bytes;
    f->read_committed = read_committed != 0;
    f->base.deadline = now_ms + max_wait_ms;
    if (fetch_run(n, f, 0, now_ms))
        if_free(n, &f->base);
    else
        lr_park_hold(n, &f->base, &inproc_fetch_ops);
    return LOGREP_OK;
}

/* ------------------------------------------------------------ list offsets */

LOGREP_API logrep_err logrep_node_list_offsets(logrep_node *n, const char *topic,
                                               int32_t partition, int64_t timestamp,
                                               int read_committed, uint64_t token, int64_t now_ms)
{
    (void)now_ms;
    if (!n || !topic || partition < 0)
        return LOGREP_ERR__INVALID_ARG;
    lr_evt *e = lr_evt_start(n, LOGREP_NODE_EV_LIST_OFFSETS, token, 0);
    if (!e)
        return LOGREP_ERR__NOMEM;
    int32_t len = name_len(topic);
    lr_npart *p = lr_part_named(n, topic, len, partition);
    lr_evt_done(n, e,
                p ? lr_partition_list_offsets(p->rep, -1, timestamp, read_committed != 0,
                                              &e->ev.offset, &e->ev.timestamp,
                                              &e->ev.leader_epoch)
                  : lr_missing_part_error(n, topic, len, partition));
    return LOGREP_OK;
}
