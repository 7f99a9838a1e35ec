/* Reads: fetches served by the leader (followers and consumers) or a
 * follower (consumers), the follower's own fetch and its answer
 * (truncation at a diverging epoch), ListOffsets, OffsetsForLeaderEpoch. */
#include "replica/partition_int.h"

#include <string.h>

/* ------------------------------------------------------------ fetch */

static logrep_err check_epoch(const lr_partition *p, int32_t current_leader_epoch)
{
    if (current_leader_epoch < 0)
        return LOGREP_OK;
    if (current_leader_epoch < p->leader_epoch)
        return LOGREP_ERR_FENCED_LEADER_EPOCH;
    if (current_leader_epoch > p->leader_epoch)
        return LOGREP_ERR_UNKNOWN_LEADER_EPOCH;
    return LOGREP_OK;
}

/* KIP-392: the leader points a consumer at an in-sync replica in its rack
 * that holds the offset. */
static int32_t preferred_replica(lr_partition *p, const lr_fetch_req *req)
{
    if (!req->client_rack || !req->client_rack[0] || req->replica_id >= 0)
        return -1;
    for (int32_t i = 0; i < p->n_followers; i++) {
        follower *f = &p->followers[i];
        if (strcmp(f->rack, req->client_rack) == 0 && contains(p->isr, p->n_isr, f->id) &&
            f->leo > req->fetch_offset)
            return f->id;
    }
    return -1;
}

logrep_err lr_partition_fetch(lr_partition *p, const lr_fetch_req *req, int64_t now_ms,
                              lr_fetch_res *res)
{
    memset(res, 0, sizeof *res);
    res->diverging_epoch = -1;
    res->diverging_end_offset = -1;
    res->preferred_read_replica = -1;
    res->high_watermark = -1;
    res->last_stable_offset = -1;
    res->log_start_offset = -1;
    int is_follower = req->replica_id >= 0;
    if (p->role == LR_ROLE_NONE ||
        ((is_follower || req->leader_only) && p->role != LR_ROLE_LEADER))
        return res->error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    if ((res->error = check_epoch(p, req->current_leader_epoch)) != LOGREP_OK)
        return res->error;
    follower *f = NULL;
    if (is_follower && !(f = find_follower(p, req->replica_id)))
        return res->error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;

    int64_t start = logrep_log_start_offset(p->log), leo = logrep_log_end_offset(p->log);
    res->high_watermark = p->hw;
    res->last_stable_offset = p->hw;
    res->log_start_offset = start;

    if (is_follower && req->last_fetched_epoch >= 0) {
        int32_t e;
        int64_t o;
        logrep_log_epoch_end_offset(p->log, req->last_fetched_epoch, &e, &o);
        if (e < 0 && o < 0)
            return res->error = LOGREP_ERR_OFFSET_OUT_OF_RANGE;
        if (req->fetch_offset < start)
            return res->error = LOGREP_ERR_OFFSET_OUT_OF_RANGE;
        if (e < req->last_fetched_epoch || o < req->fetch_offset) {
            /* Diverged: no records, and this fetch does not count. */
            res->diverging_epoch = e;
            res->diverging_end_offset = o;
            return res->error = LOGREP_OK;
        }
    }
    if (req->fetch_offset < start || req->fetch_offset > leo)
        return res->error = LOGREP_ERR_OFFSET_OUT_OF_RANGE;

    if (f) {
        if (!req->retry)
            lr_part_update_follower(p, f, req, now_ms);
        lr_part_maybe_advance_hw(p, now_ms);
        res->high_watermark = p->hw;
        res->last_stable_offset = p->hw;
    } else if (p->role == LR_ROLE_LEADER) {
        res->preferred_read_replica = preferred_replica(p, req);
        if (res->preferred_read_replica >= 0)
            return res->error = LOGREP_OK;
    }
    /* Followers copy up to the LEO; consumers see only committed data. */
    int64_t max_offset = is_follower ? INT64_MAX : p->hw;
    logrep_err err = logrep_log_read(p->log, req->fetch_offset, req->max_bytes, max_offset,
                                     req->min_one, &res->slice);
    if (err)
        return res->error = err < 0 && err != LOGREP_ERR_OFFSET_OUT_OF_RANGE
                                ? LOGREP_ERR_KAFKA_STORAGE_ERROR
                                : err;
    return res->error = LOGREP_OK;
}

/* ------------------------------------------------------------ follower */

int lr_partition_follower_fetch(lr_partition *p, lr_follower_fetch *out)
{
    if (p->role != LR_ROLE_FOLLOWER || p->fetch_in_flight)
        return LOGREP_ERR__AGAIN;
    out->leader = p->leader;
    out->current_leader_epoch = p->leader_epoch;
    out->last_fetched_epoch = HAS_BUG(p, LR_BUG_NO_TRUNCATE) ? -1 : logrep_log_latest_epoch(p->log);
    out->fetch_offset = logrep_log_end_offset(p->log);
    out->log_start_offset = logrep_log_start_offset(p->log);
    p->fetch_in_flight = 1;
    return 0;
}

void lr_partition_follower_fetch_failed(lr_partition *p)
{
    p->fetch_in_flight = 0;
}

/* KIP-279 truncation step for a leader's (epoch, end offset) answer. */
static int truncate_for_divergence(lr_partition *p, int32_t epoch, int64_t end)
{
    int64_t leo = logrep_log_end_offset(p->log);
    int64_t target;
    if (end < 0) {
        target = leo; /* the leader cannot answer: keep the log, refetch */
    } else if (epoch < 0) {
        target = end < leo ? end : leo;
    } else {
        /* Our own endOffsetFor(epoch): with no cached epoch <= `epoch` it
         * is (epoch, start of our first epoch), so our batches of later
         * epochs go even when the leader's end offset is above them. */
        int32_t local_epoch;
        int64_t local_end;
        logrep_log_epoch_end_offset(p->log, epoch, &local_epoch, &local_end);
        if (local_end < 0) {
            target = end; /* no epochs cached here */
        } else if (local_epoch == epoch) {
            target = local_end < end ? local_end : end;
        } else {
            target = local_end; /* we never had `epoch`: another round */
        }
        if (target > leo)
            target = leo;
    }
    int err = logrep_log_truncate(p->log, target);
    lr_part_clamp_hw(p); /* a truncation that fails late may still have cut the log */
    if (err)
        return err;
    LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "replica",
           "truncated to %lld after diverging epoch %d end %lld", (long long)target, epoch,
           (long long)end);
    return 0;
}

int lr_partition_follower_response(lr_partition *p, const lr_follower_fetch *sent,
                                   logrep_err error, int64_t high_watermark,
                                   int64_t log_start_offset, int32_t diverging_epoch,
                                   int64_t diverging_end_offset, const void *records,
                                   size_t records_len, int64_t now_ms)
{
    if (p->role != LR_ROLE_FOLLOWER || sent->current_leader_epoch != p->leader_epoch ||
        sent->leader != p->leader)
        return 0; /* from another epoch: ignore */
    p->fetch_in_flight = 0;
    if (sent->fetch_offset != logrep_log_end_offset(p->log))
        return 0; /* stale or duplicated response */
    if (error == LOGREP_ERR_OFFSET_OUT_OF_RANGE) {
        /* Our log ends below the leader's start: restart at its start. */
        if (log_start_offset > logrep_log_end_offset(p->log)) {
            int err = logrep_log_truncate(p->log, log_start_offset);
            if (!err)
                err = logrep_log_advance_start(p->log, log_start_offset);
            lr_part_clamp_hw(p);
            return err;
        }
        return 0;
    }
    if (error)
        return 0; /* fenced, unknown epoch, not leader: wait for metadata */
    if (diverging_epoch >= 0 || diverging_end_offset >= 0) {
        if (HAS_BUG(p, LR_BUG_NO_TRUNCATE))
            return 0;
        return truncate_for_divergence(p, diverging_epoch, diverging_end_offset);
    }
    if (records_len > 0) {
        logrep_log_append_info info;
        int err = logrep_log_append_follower(p->log, records, records_len, now_ms, &info);
        if (err)
            return err;
    }
    int64_t leo = logrep_log_end_offset(p->log);
    if (log_start_offset > logrep_log_start_offset(p->log)) {
        int64_t s = log_start_offset < leo ? log_start_offset : leo;
        int err = logrep_log_advance_start(p->log, s);
        if (err) {
            lr_part_clamp_hw(p);
            return err;
        }
    }
    p->hw = high_watermark < leo ? high_watermark : leo;
    lr_part_clamp_hw(p);
    return 0;
}

/* ------------------------------------------------------------ offsets */

logrep_err lr_partition_list_offsets(lr_partition *p, int32_t current_leader_epoch,
                                     int64_t timestamp, int read_committed, int64_t *offset,
                                     int64_t *found_timestamp, int32_t *epoch)
{
    (void)read_committed; /* LSO == HW until transactions */
    *offset = -1;
    *found_timestamp = -1;
    *epoch = -1;
    if (p->role != LR_ROLE_LEADER)
        return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    logrep_err err = check_epoch(p, current_leader_epoch);
    if (err)
        return err;
    if (timestamp == LOGREP_OFFSET_LATEST) {
        /* A new leader's HW may be stale until it reaches its epoch start. */
        if (p->hw < p->leso)
            return LOGREP_ERR_OFFSET_NOT_AVAILABLE;
        *offset = p->hw;
    } else if (timestamp == LOGREP_OFFSET_EARLIEST || timestamp == LOGREP_OFFSET_EARLIEST_LOCAL) {
        *offset = logrep_log_start_offset(p->log);
    } else if (timestamp == LOGREP_OFFSET_LATEST_TIERED) {
        return LOGREP_OK; /* nothing is tiered: offset -1, as Kafka answers */
    } else {
        int64_t o, ts;
        err = logrep_log_offset_for_time(p->log, timestamp, &o, &ts);
        if (err == LOGREP_ERR__NOENT)
            return LOGREP_OK;
        if (err)
            return err < 0 ? LOGREP_ERR_KAFKA_STORAGE_ERROR : err;
        if (o >= p->hw)
            return LOGREP_OK; /* not committed yet: not visible */
        *offset = o;
        *found_timestamp = ts;
    }
    /* The epoch that goes with the offset (KAFKA-7568): the latest epoch
     * for the log end, else the epoch of the batch holding the offset. */
    if (timestamp == LOGREP_OFFSET_LATEST) {
        *epoch = logrep_log_latest_epoch(p->log);
    } else {
        int32_t e;
        int64_t s;
        for (size_t i = 0; logrep_log_epoch_entry(p->log, i, &e, &s) == LOGREP_OK; i++)
            if (s <= *offset)
                *epoch = e;
    }
    return LOGREP_OK;
}

logrep_err lr_partition_epoch_end(lr_partition *p, int32_t current_leader_epoch,
                                  int32_t leader_epoch, int32_t *end_epoch, int64_t *end_offset)
{
    *end_epoch = -1;
    *end_offset = -1;
    if (p->role != LR_ROLE_LEADER)
        return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    logrep_err err = check_epoch(p, current_leader_epoch);
    if (err)
        return err;
    logrep_log_epoch_end_offset(p->log, leader_epoch, end_epoch, end_offset);
    return LOGREP_OK;
}
