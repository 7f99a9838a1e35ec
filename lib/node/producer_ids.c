/* Producer ids: the broker hands out ids from a block the controller
 * allocated to it (AllocateProducerIds), as Kafka's ProducerIdManager
 * does, and answers InitProducerId from it. While no block is at hand the
 * client is told COORDINATOR_LOAD_IN_PROGRESS and retries. */
#include "node/node_int.h"

static void pids_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    (void)now_ms;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    n->pids.requesting = 0;
    if (!lr_f_int(rs, LR_FN_ErrorCode)) {
        n->pids.next = lr_f_int(rs, LR_FN_ProducerIdStart);
        n->pids.end = n->pids.next + lr_f_int(rs, LR_FN_ProducerIdLen);
    }
}

static void pids_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    (void)now_ms;
    n->pids.requesting = 0;
}

static const lr_out_ops pids_ops = {pids_done, pids_failed};

/* The next id of the block; else asks for a block and returns
 * COORDINATOR_LOAD_IN_PROGRESS. */
static int take_producer_id(logrep_node *n, int64_t now_ms, int64_t *pid)
{
    if (n->pids.next < n->pids.end) {
        *pid = n->pids.next++;
        return 0;
    }
    if (!n->pids.requesting && n->life.broker_epoch >= 0) {
        lr_peer *c = lr_life_controller(n);
        logrep_struct *r = lr_peer_ready(c, now_ms)
                               ? lr_peer_start(n, LOGREP_API_ALLOCATE_PRODUCER_IDS, 0)
                               : NULL;
        if (r) {
            lr_f_set_int(r, LR_FN_BrokerId, n->id);
            lr_f_set_int(r, LR_FN_BrokerEpoch, n->life.broker_epoch);
            if (lr_peer_send(n, c, &pids_ops, NULL, now_ms) == 0)
                n->pids.requesting = 1;
        }
    }
    return LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
}

int lr_api_init_producer_id(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    const char *txn;
    int32_t txn_len;
    lr_f_str(rq, LR_FN_TransactionalId, &txn, &txn_len);
    int64_t pid = -1;
    int16_t code = 0;
    if (txn_len >= 0) {
        code = LOGREP_ERR_COORDINATOR_NOT_AVAILABLE; /* transactions: not served yet */
    } else {
        int64_t prev = lr_f_int(rq, LR_FN_ProducerId);
        int16_t prev_epoch = (int16_t)lr_f_int(rq, LR_FN_ProducerEpoch);
        if (prev >= 0 && prev_epoch >= 0 && prev_epoch < INT16_MAX - 1) {
            /* KIP-360: bump the epoch of a known id. */
            lr_f_set_int(rs, LR_FN_ProducerId, prev);
            lr_f_set_int(rs, LR_FN_ProducerEpoch, prev_epoch + 1);
            return lr_req_answer(n, r);
        }
        int e = take_producer_id(n, r->now_ms, &pid);
        if (e)
            code = e > 0 ? (int16_t)e : LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    }
    lr_f_set_int(rs, LR_FN_ErrorCode, code);
    lr_f_set_int(rs, LR_FN_ProducerId, pid);
    lr_f_set_int(rs, LR_FN_ProducerEpoch, code ? -1 : 0);
    return lr_req_answer(n, r);
}
