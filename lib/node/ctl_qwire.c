/* The quorum's messages on the wire (docs/quorum.md, "In the node"):
 * requests from other voters (Vote, BeginQuorumEpoch, EndQuorumEpoch, a
 * voter's Fetch of the metadata log and FetchSnapshot) handed to this voter's quorum, its
 * answers put in their place, and the quorum's own requests sent on a
 * connection of their own to each voter (LR_CH_QUORUM), their answers
 * decoded against the request they answer. DescribeQuorum is answered
 * from what this voter knows. lr_qwire maps both ways.
 *
 * Every request is answered: Kafka answers in order on a connection, so
 * one left unanswered would hold up the rest. The quorum answers during
 * the call that hands it the request, or once the quorum-state write
 * that call asked for is durable, which lr_nq_pump does before the
 * request is let go; a request it drops (a Fetch while a write is
 * outstanding) gets REQUEST_TIMED_OUT, and the fetcher asks again. */
#include <string.h>

#include "node/ctl_role.h"

/* A request in flight: the message, to decode its answer against. */
typedef struct qout {
    lr_qmsg m;
} qout;

static void q_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    qout *x = o->ctx;
    lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    if (nq) {
        lr_qmsg in;
        int err = lr_qwire_decode_response(&nq->w, n->peers.in, &x->m, p->node_id, &in);
        if (!err) {
            nq->now = now_ms;
            lr_qlog_set_now(nq->ql, now_ms);
            lr_quorum_receive(nq->q, &in, now_ms);
            lr_nq_pump(n, now_ms);
        } else {
            LR_LOG(&n->logger, LOGREP_LEVEL_DEBUG, "quorum", "%s answer from %d: %s",
                   logrep_proto_api_name(o->api_key), (int)p->node_id, logrep_err_name(err));
        }
    }
    lr_free(&n->alloc, x, sizeof *x);
}

static void q_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    qout *x = o->ctx;
    lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    /* A fetch lost with its connection (not the node's teardown, where
     * the peer is still connected): the quorum would wait
     * controller.quorum.request.timeout.ms for its answer, long enough
     * for the fetch timeout to end this voter's following. It is told
     * now, as a failed answer, and fetches again after its usual pause.
     * Not while the quorum is sending (a failed send closes the
     * connection and fails what is in flight on it): the quorum is not
     * re-entered; its request timeout covers that fetch. */
    if (nq && !nq->sending && !p->connected && x->m.type == LR_QM_FETCH_REQ) {
        lr_qmsg in = {.type = LR_QM_FETCH_RESP, .from = p->node_id, .epoch = x->m.epoch,
                      .error = LOGREP_ERR_NETWORK_EXCEPTION, .leader_id = -1, .hw = -1,
                      .div_epoch = -1, .div_end_offset = -1, .base_offset = x->m.fetch_offset,
                      .last_fetched_epoch = x->m.last_fetched_epoch};
        nq->now = now_ms;
        lr_qlog_set_now(nq->ql, now_ms);
        lr_quorum_receive(nq->q, &in, now_ms);
        lr_nq_pump(n, now_ms);
    }
    lr_free(&n->alloc, x, sizeof *x);
}

static const lr_out_ops q_ops = {q_done, q_failed};

static int is_response(lr_qmsg_type t)
{
    return t == LR_QM_VOTE_RESP || t == LR_QM_BEGIN_RESP || t == LR_QM_END_RESP ||
           t == LR_QM_FETCH_RESP || t == LR_QM_FSNAP_RESP;
}

/* An answer goes in the place of the request being handled; a request is
 * sent. What cannot be sent now is dropped: the quorum sends again when
 * its timers say so. */
void lr_nq_send(logrep_node *n, int32_t to, const lr_qmsg *m)
{
    lr_nq *nq = n->ctl->nq;
    if (is_response(m->type)) {
        const lr_req *r = nq->cur;
        if (!r || nq->cur_answered || nq->cur_from != to || m->type != nq->cur_type + 1) {
            LR_LOG(&n->logger, LOGREP_LEVEL_DEBUG, "quorum",
                   "an answer to %d with no request of its own left unsent", (int)to);
            return;
        }
        nq->cur_answered = 1;
        lr_buf_clear(&nq->recs);
        int err = lr_req_init(r);
        if (!err)
            err = lr_qwire_encode(&nq->w, r->resp, m, to, nq->now, &nq->recs);
        if (err) {
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "quorum", "encoding an answer to %d: %s",
                   (int)to, logrep_err_name(err));
            nq->cur_answered = 0; /* answered with an error instead */
            return;
        }
        lr_req_answer(n, r);
        return;
    }
    lr_peer *p = lr_peer_get(n, to, LR_CH_QUORUM);
    int version;
    int api = lr_qwire_api(m->type, &version);
    /* A fetch (of the log or of a snapshot) goes even while the
     * connection is in its reconnect backoff: dropped, the quorum would
     * count it in flight and fetch again only after its request timeout. */
    if (!p || api < 0 ||
        (m->type != LR_QM_FETCH_REQ && m->type != LR_QM_FSNAP_REQ && !lr_peer_ready(p, nq->now)))
        return;
    logrep_struct *root = lr_peer_start(n, api, version);
    qout *x = root ? lr_malloc(&n->alloc, sizeof *x) : NULL;
    if (!x)
        return;
    x->m = *m;
    x->m.entries = NULL; /* requests carry none */
    x->m.n_entries = 0;
    lr_buf_clear(&nq->recs);
    int err = lr_qwire_encode(&nq->w, n->peers.out, m, to, nq->now, &nq->recs);
    if (!err) {
        nq->sending = 1;
        err = lr_peer_send(n, p, &q_ops, x, nq->now);
        nq->sending = 0;
    }
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_DEBUG, "quorum", "%s to %d not sent: %s",
               logrep_proto_api_name(api), (int)to, logrep_err_name(err));
        lr_free(&n->alloc, x, sizeof *x);
    }
}

static int answer_error(logrep_node *n, const lr_req *r, int16_t code)
{
    int err = lr_req_init(r);
    if (!err)
        err = lr_qwire_error_response(r->resp, code);
    return err ? err : lr_req_answer(n, r);
}

static int describe(logrep_node *n, lr_nq *nq, const lr_req *r)
{
    lr_quorum_desc d;
    lr_quorum_describe(nq->q, r->now_ms, &d);
    int err = lr_req_init(r);
    if (!err)
        err = lr_qwire_describe_response(r->resp, r->msg, &d, r->now_ms);
    return err ? err : lr_req_answer(n, r);
}

int lr_ctl_api_quorum(logrep_node *n, const lr_req *r)
{
    lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    int api = logrep_msg_api_key(r->msg);
    if (!nq)
        return api == LOGREP_API_FETCH ? 1 : LOGREP_ERR__CORRUPT;
    if (api == LOGREP_API_DESCRIBE_QUORUM)
        return describe(n, nq, r);
    lr_qmsg m;
    int err = lr_qwire_decode_request(&nq->w, r->msg, &m);
    if (api == LOGREP_API_FETCH && err == LOGREP_ERR__INVALID_ARG)
        return 1; /* a broker's or a replica's fetch */
    if (err == LOGREP_ERR__NOMEM)
        return err;
    if (api == LOGREP_API_FETCH_SNAPSHOT && err == LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION) {
        /* Another partition than the metadata log's: said on it, as Kafka does. */
        int e2 = lr_req_init(r);
        if (!e2)
            e2 = lr_qwire_fsnap_unknown_response(r->resp, r->msg);
        return e2 ? answer_error(n, r, LOGREP_ERR_INVALID_REQUEST) : lr_req_answer(n, r);
    }
    if (err)
        return answer_error(n, r, err > 0 ? (int16_t)err : LOGREP_ERR_INVALID_REQUEST);
    if (nq->cur)
        return LOGREP_ERR__CORRUPT; /* no request is handed in while one is (never) */
    nq->cur = r;
    nq->cur_type = m.type;
    nq->cur_from = m.from;
    nq->cur_answered = 0;
    nq->now = r->now_ms;
    lr_qlog_set_now(nq->ql, r->now_ms);
    err = lr_quorum_receive(nq->q, &m, r->now_ms);
    lr_nq_pump(n, r->now_ms); /* a vote goes out once durable: still for this request */
    int answered = nq->cur_answered;
    nq->cur = NULL;
    if (answered)
        return 0;
    if (err == LOGREP_ERR__INVALID_ARG)
        return answer_error(n, r, LOGREP_ERR_INVALID_REQUEST);
    if (err == LOGREP_ERR_INCONSISTENT_VOTER_SET)
        return answer_error(n, r, LOGREP_ERR_INCONSISTENT_VOTER_SET);
    return answer_error(n, r, LOGREP_ERR_REQUEST_TIMED_OUT);
}
