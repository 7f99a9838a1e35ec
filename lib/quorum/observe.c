/* Observers the host serves itself: brokers that follow the committed
 * log through the host's own fetch path rather than the quorum's Fetch,
 * reported so that DescribeQuorum lists them as Kafka's does. */
#include "quorum/q_int.h"

void lr_quorum_observed(lr_quorum *q, int32_t id, int64_t fetch_offset, int64_t now_ms)
{
    if (!q || id < 0 || fetch_offset < 0 || lr_q_is_voter(q, id) || q->role != LR_QR_LEADER ||
        !q->leader_started)
        return;
    if (now_ms > q->now)
        q->now = now_ms;
    lr_qmsg m = {.type = LR_QM_FETCH_REQ, .from = id, .fetch_offset = fetch_offset,
                 .observer = 1, .hw = -1, .div_epoch = -1, .div_end_offset = -1};
    lr_q_seen_fetch(q, &m);
}
