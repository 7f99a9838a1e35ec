/* A clean shutdown of the quorum's leader hands the leadership over
 * before the node stops, as Kafka's controller does: once the broker's
 * controlled shutdown is done it resigns (EndQuorumEpoch, most caught-up
 * voter first), and the shutdown is done when another leader is known or
 * LR_HANDOVER_MS later. Without it the other voters would wait an
 * election timeout and more for a leader that is gone. */
#include "node/ctl_role.h"

/* As Kafka's controller waits for a graceful resignation. */
#define LR_HANDOVER_MS 5000

static int broker_part_done(const logrep_node *n)
{
    return n->life.shutting_down && (!n->is_broker || n->life.shutdown_done);
}

int64_t lr_nq_handover_tick(logrep_node *n, lr_nq *nq, int64_t now_ms)
{
    if (!broker_part_done(n) || nq->handed_over)
        return INT64_MAX;
    if (nq->resign_at < 0) {
        if (lr_quorum_role_of(nq->q) != LR_QR_LEADER) {
            nq->handed_over = 1;
            return INT64_MAX;
        }
        int err = lr_quorum_resign(nq->q, now_ms);
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "quorum",
               "node %d resigns the quorum's leadership of epoch %d for its shutdown%s%s", (int)n->id,
               (int)lr_quorum_epoch(nq->q), err ? ": " : "", err ? logrep_err_name(err) : "");
        nq->resign_at = now_ms;
        nq->resign_epoch = lr_quorum_epoch(nq->q);
    }
    int32_t leader = lr_quorum_leader(nq->q);
    if ((lr_quorum_epoch(nq->q) > nq->resign_epoch && leader >= 0 && leader != n->id) ||
        now_ms - nq->resign_at >= LR_HANDOVER_MS) {
        nq->handed_over = 1;
        return INT64_MAX;
    }
    return nq->resign_at + LR_HANDOVER_MS;
}

int lr_nctl_handed_over(const logrep_node *n)
{
    const lr_nq *nq = n->ctl ? n->ctl->nq : NULL;
    return !nq || nq->handed_over;
}
