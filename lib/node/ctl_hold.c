/* Answers of the active controller held until their records commit
 * (docs/quorum.md, "In the node"). A controller request is handled at
 * once: its records are applied to the image and proposed to the quorum,
 * and its answer is built. The answer may tell a broker it leads, or a
 * client that its topic exists; it leaves only once the quorum has
 * committed everything this controller had written when it was built
 * (answers that only refuse wait as well: the refusal may rest on a
 * record not committed yet). If this node stops being the active
 * controller first, its records may never commit: the connection is
 * closed without an answer, and the client asks again, of whichever
 * controller is active by then. */
#include <string.h>

#include "node/ctl_role.h"

typedef struct held {
    lr_parked base;
    int64_t need;  /* sent once the image's committed part reaches this */
    int32_t epoch; /* of the leadership that wrote the records */
    size_t len;
    uint8_t *frame;
} held;

static int held_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    (void)now_ms;
    held *h = (held *)d;
    lr_conn *c = d->conn;
    lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    if (c->closed)
        return 1;
    if (!nq || !nq->active || nq->active_epoch != h->epoch) {
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "quorum",
               "%s answer dropped: leadership lost before its records committed; closing "
               "the connection",
               logrep_proto_api_name(d->api_key));
        lr_conn_skip(n, c, d->slot);
        lr_conn_close(n, c);
        return 1;
    }
    if (lr_nctl_committed(n) < h->need || lr_quorum_hw(nq->q) < h->need)
        return 0;
    lr_conn_finish_bytes(n, c, d->slot, h->frame, h->len);
    return 1;
}

static int64_t held_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms)
{
    (void)n;
    return d->conn->closed ? now_ms : INT64_MAX;
}

static void held_free(logrep_node *n, lr_parked *d)
{
    held *h = (held *)d;
    if (n->ctl && n->ctl->nq && n->ctl->nq->held)
        n->ctl->nq->held--;
    lr_free(&n->alloc, h->frame, h->len);
    lr_free(&n->alloc, h, sizeof *h);
}

static const lr_park_ops held_ops = {held_poll, held_deadline, held_free};

int lr_nctl_hold(logrep_node *n, const lr_req *r, int *err)
{
    lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    *err = 0;
    if (!nq || !nq->active)
        return 0; /* a standby's image is all committed: its refusals go now */
    int64_t end = logrep_log_end_offset(n->ctl->log);
    if (lr_quorum_hw(nq->q) >= end && nq->applied >= end)
        return 0; /* everything is committed: answer now */
    const logrep_seg *segs;
    size_t nsegs;
    *err = logrep_msg_encode(r->resp, &segs, &nsegs, NULL);
    size_t len = 0;
    for (size_t i = 0; !*err && i < nsegs; i++) {
        if (!segs[i].data)
            *err = LOGREP_ERR__INVALID_ARG; /* file segments: never in a controller's answer */
        len += (size_t)segs[i].len;
    }
    if (!*err && !len)
        *err = LOGREP_ERR__INVALID_ARG;
    held *h = *err ? NULL : lr_calloc(&n->alloc, 1, sizeof *h);
    uint8_t *frame = h ? lr_malloc(&n->alloc, len) : NULL;
    lr_slot *slot = frame ? (r->slot ? r->slot : lr_conn_slot(n, r->conn)) : NULL;
    if (!slot) {
        if (h)
            lr_free(&n->alloc, frame, len);
        lr_free(&n->alloc, h, sizeof *h);
        if (!*err)
            *err = LOGREP_ERR__NOMEM;
        return 1;
    }
    size_t at = 0;
    for (size_t i = 0; i < nsegs; i++) {
        memcpy(frame + at, segs[i].data, (size_t)segs[i].len);
        at += (size_t)segs[i].len;
    }
    h->frame = frame;
    h->len = len;
    h->need = end;
    h->epoch = nq->active_epoch;
    h->base.conn = r->conn;
    h->base.slot = slot;
    h->base.api_key = (int16_t)logrep_msg_api_key(r->msg);
    h->base.version = (int16_t)logrep_msg_version(r->msg);
    h->base.correlation_id = logrep_msg_correlation_id(r->msg);
    lr_park_hold(n, &h->base, &held_ops);
    nq->held++;
    return 1;
}
