/* A replica's thread: everything the host does for one replica. It owns
 * the replica while it runs: ticks it, takes its events, fetches from its
 * leader when it is a follower, and answers what the other threads send. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "appliance.h"

#define FETCH_IDLE_MS 5 /* a follower's pause after an empty fetch */
#define FETCH_TIMEOUT_MS 200
#define FETCH_MAX_BYTES 65536

int64_t now_ms(void)
{
    static int64_t start = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (start < 0) /* set by the main thread before any other starts */
        start = t - 1000;
    return t - start;
}

static void send_to(replica *r, int to, msg *m, const void *data, uint32_t len)
{
    if (wire_send(r->w, r->id, to, m, data, len) != 0)
        fprintf(stderr, "replica %d: transport failed\n", r->id);
}

/* Leader: a follower's fetch. Its records go as the answer's payload. */
static void serve_fetch(replica *r, const msg *in, int64_t now)
{
    logrep_fetch_request req = {in->from, in->fetch.current_leader_epoch,
                                in->fetch.last_fetched_epoch, in->fetch.fetch_offset,
                                FETCH_MAX_BYTES, 0};
    msg out = {.type = M_FETCHED, .seq = in->seq};
    logrep_partition_fetch(r->p, &req, now, &out.res);
    uint32_t len = (uint32_t)out.res.slice.length;
    uint8_t *buf = len ? malloc(len) : NULL;
    if (len && (!buf || logrep_partition_read_slice(r->p, &out.res.slice, buf, len) != LOGREP_OK)) {
        out.res.error = LOGREP_ERR_KAFKA_STORAGE_ERROR;
        len = 0;
    }
    out.res.slice.file = NULL; /* names the leader's file: the bytes travel instead */
    send_to(r, in->from, &out, buf, len);
    free(buf);
}

/* Follower: the leader's answer to the fetch in flight. */
static void on_fetched(replica *r, const msg *in, const uint8_t *data, int64_t now)
{
    if (!r->fetching || in->seq != r->fetch_seq)
        return; /* the answer to a fetch given up on */
    r->fetching = 0;
    int64_t leo = logrep_partition_log_end_offset(r->p);
    logrep_err err = logrep_partition_fetch_response(r->p, &r->sent, &in->res, data, in->len, now);
    if (err)
        fprintf(stderr, "replica %d: fetch response: %s\n", r->id, logrep_err_name(err));
    if (logrep_partition_log_end_offset(r->p) < leo)
        printf("replica %d: truncated its divergent tail %lld -> %lld (epoch %d ends there on "
               "replica %d)\n", r->id, (long long)leo,
               (long long)logrep_partition_log_end_offset(r->p), in->res.diverging_epoch,
               r->sent.leader);
    int more = in->len || in->res.diverging_epoch >= 0;
    r->fetch_at = now + (more ? 0 : in->res.error ? 50 : FETCH_IDLE_MS);
}

/* Follower: one fetch in flight; one without an answer is given up on. */
static void fetch_next(replica *r, int64_t now)
{
    if (r->fetching && now >= r->fetch_at) {
        logrep_partition_fetch_failed(r->p);
        r->fetching = 0;
    }
    if (r->fetching || now < r->fetch_at ||
        logrep_partition_next_fetch(r->p, &r->sent) != LOGREP_OK)
        return;
    msg m = {.type = M_FETCH, .seq = ++r->fetch_seq, .fetch = r->sent};
    send_to(r, r->sent.leader, &m, NULL, 0);
    r->fetching = 1;
    r->fetch_at = now + FETCH_TIMEOUT_MS;
}

/* One message; returns 1 when the thread is to end. */
static int handle(replica *r, const msg *in, uint8_t *data, int64_t now)
{
    msg out = {.type = M_PRODUCED};
    int32_t epoch = logrep_partition_leader_epoch(r->p);
    switch (in->type) {
    case M_APPLY:
        logrep_partition_apply(r->p, &in->lead, now);
        if (logrep_partition_leader_epoch(r->p) != epoch) { /* the fetch in flight is void */
            r->fetching = 0;
            r->fetch_at = now;
        }
        return 0;
    case M_ISR_RESULT:
        logrep_partition_isr_result(r->p, in->isr.id, in->error, in->isr.partition_epoch,
                                    in->isr.isr, in->isr.n_isr, now);
        return 0;
    case M_PRODUCE: /* the answer: pending (then an event), or refused */
        logrep_partition_produce(r->p, data, in->len, -1, 5000, in->seq, now, &out.prod);
        send_to(r, 0, &out, NULL, 0);
        return 0;
    case M_FETCH:
        serve_fetch(r, in, now);
        return 0;
    case M_FETCHED:
        on_fetched(r, in, data, now);
        return 0;
    case M_CRASH:
        logrep_partition_produce(r->p, data, in->len, 1, 0, 0, now, &out.prod);
        printf("replica %d: appends one more write (offset %lld) and crashes before anyone "
               "fetches it\n", r->id, (long long)out.prod.base_offset);
        logrep_partition_free(r->p, 1); /* abandoned, as a crash: nothing flushed */
        r->p = NULL;
        return 1;
    default: /* M_STOP */
        return 1;
    }
}

void *replica_run(void *arg)
{
    replica *r = arg;
    for (;;) {
        int64_t now = now_ms();
        int64_t wake = logrep_partition_tick(r->p, now);
        logrep_partition_event ev;
        while (logrep_partition_poll(r->p, now, &ev)) {
            msg m = {.type = ev.type == LOGREP_PARTITION_EV_PRODUCE ? M_PRODUCED : M_PROPOSAL,
                     .prod = ev.produce, .isr = ev.isr};
            if (ev.type != LOGREP_PARTITION_EV_HIGH_WATERMARK) /* the status below says it */
                send_to(r, 0, &m, NULL, 0);
        }
        logrep_partition_state s;
        logrep_partition_state_get(r->p, &s);
        if (s.role == LOGREP_ROLE_FOLLOWER) {
            fetch_next(r, now);
            wake = r->fetch_at < wake ? r->fetch_at : wake;
        }
        if (s.high_watermark != r->shown.high_watermark || s.n_isr != r->shown.n_isr ||
            s.log_end_offset != r->shown.log_end_offset ||
            s.leader_epoch != r->shown.leader_epoch) {
            r->shown = s;
            msg m = {.type = M_STATUS, .state = s};
            send_to(r, 0, &m, NULL, 0);
        }
        msg in;
        uint8_t *data;
        int64_t wait = wake - now < 0 ? 0 : wake - now > 100 ? 100 : wake - now;
        int got = wire_recv(r->w, r->id, (int)wait, &in, &data);
        int stop = got < 0 || (got > 0 && handle(r, &in, data, now_ms()));
        if (got > 0)
            free(data);
        if (stop)
            return NULL;
    }
}
