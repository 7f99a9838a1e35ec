/* Partition replica state machine: leader and follower (docs/replication.md §1). */
#include "replica/partition.h"

#include <stdio.h>
#include <string.h>

#include "base/endian.h"
#include "codec/batch.h"

typedef struct follower {
    int32_t id;
    int64_t leo;               /* -1: unknown in this leader epoch */
    int64_t last_fetch_time;
    int64_t last_fetch_leader_leo;
    int64_t last_caught_up_time;
    int64_t broker_epoch;
    int ineligible; /* fenced or shutting down (lr_part_meta.ineligible) */
    char rack[32];
} follower;

typedef struct parked {
    uint64_t token;
    int64_t required_offset;   /* HW must reach this */
    int64_t deadline;
    int64_t base_offset;
    int64_t log_append_time;
} parked;

struct lr_partition {
    lr_alloc alloc;
    lr_log logger;
    lr_part_conf conf;
    logrep_log *log;
#ifdef LOGREP_TEST
    int bug; /* LR_BUG_* */
#endif

    int role;
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t n_replicas;
    int32_t replicas[LR_MAX_REPLICAS];
    int32_t n_isr;
    int32_t isr[LR_MAX_REPLICAS];

    /* Leader state. */
    int64_t hw;
    int64_t leso;              /* leader epoch start offset */
    follower followers[LR_MAX_REPLICAS];
    int32_t n_followers;
    int alter_pending;         /* a proposal waits to be taken */
    int alter_in_flight;       /* taken, outcome not known yet */
    int64_t alter_after;       /* a retried proposal is not taken before */
    lr_alter_req alter;
    uint64_t alter_seq;        /* ids given to proposals */
    int64_t isr_shrinks, isr_expands;

    /* acks=all produces waiting for the HW, and finished ones. */
    parked *parked;
    size_t n_parked, cap_parked;
    lr_produce_res *done;
    size_t n_done, cap_done, done_head;

    /* Follower state. */
    int fetch_in_flight;
};

/* ------------------------------------------------------------ helpers */

static int contains(const int32_t *set, int32_t n, int32_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (set[i] == id)
            return 1;
    return 0;
}

static follower *find_follower(lr_partition *p, int32_t id)
{
    for (int32_t i = 0; i < p->n_followers; i++)
        if (p->followers[i].id == id)
            return &p->followers[i];
    return NULL;
}

static int32_t effective_min_isr(const lr_partition *p)
{
    int32_t m = p->conf.min_insync_replicas;
    return m < p->n_replicas ? m : p->n_replicas;
}

/* Maximal ISR = committed ISR plus replicas an in-flight change adds. */
static int in_maximal_isr(const lr_partition *p, int32_t id)
{
    if (contains(p->isr, p->n_isr, id))
        return 1;
    return (p->alter_pending || p->alter_in_flight) && contains(p->alter.isr, p->alter.n_isr, id);
}

static int32_t maximal_isr_size(const lr_partition *p)
{
    int32_t n = p->n_isr;
    if (p->alter_pending || p->alter_in_flight)
        for (int32_t i = 0; i < p->alter.n_isr; i++)
            if (!contains(p->isr, p->n_isr, p->alter.isr[i]))
                n++;
    return n;
}

static int push_done(lr_partition *p, const lr_produce_res *r)
{
    if (p->n_done == p->cap_done) {
        size_t ncap = p->cap_done ? p->cap_done * 2 : 16;
        lr_produce_res *nd = lr_malloc(&p->alloc, ncap * sizeof *nd);
        if (!nd)
            return LOGREP_ERR__NOMEM;
        for (size_t i = 0; i < p->n_done; i++)
            nd[i] = p->done[(p->done_head + i) % p->cap_done];
        lr_free(&p->alloc, p->done, p->cap_done * sizeof *p->done);
        p->done = nd;
        p->cap_done = ncap;
        p->done_head = 0;
    }
    p->done[(p->done_head + p->n_done) % p->cap_done] = *r;
    p->n_done++;
    return 0;
}

/* Completes parked produces: those the HW passed (or all, with `fail`). */
static void complete_parked(lr_partition *p, logrep_err fail, int64_t now_ms)
{
    size_t keep = 0;
    int32_t effmin = effective_min_isr(p);
    for (size_t i = 0; i < p->n_parked; i++) {
        parked *q = &p->parked[i];
        lr_produce_res r;
        memset(&r, 0, sizeof r);
        r.token = q->token;
        r.log_append_time = q->log_append_time;
        r.log_start_offset = logrep_log_start_offset(p->log);
        r.base_offset = q->base_offset;
        if (fail) {
            r.error = fail;
        } else if (p->hw >= q->required_offset) {
            r.error = maximal_isr_size(p) >= effmin ? LOGREP_OK
                                                    : LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND;
        } else if (now_ms >= q->deadline) {
            r.error = LOGREP_ERR_REQUEST_TIMED_OUT;
        } else {
            p->parked[keep++] = *q;
            continue;
        }
        if (r.error != LOGREP_OK && r.error != LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
            r.base_offset = -1;
        if (push_done(p, &r) != 0)
            p->parked[keep++] = *q; /* retried on the next event */
    }
    p->n_parked = keep;
}

/* Leader HW per docs/replication.md 1.3: min LEO over the maximal ISR (and caught-up
 * non-ISR followers), frozen while the committed ISR is below min ISR. */
#ifdef LOGREP_TEST
void lr_partition_set_bug(lr_partition *p, int bug)
{
    p->bug = bug;
}
#define HAS_BUG(p, b) ((p)->bug == (b))
#else
#define HAS_BUG(p, b) ((void)(p), 0)
#endif

static void maybe_advance_hw(lr_partition *p, int64_t now_ms)
{
    if (p->role != LR_ROLE_LEADER)
        return;
    int64_t leo = logrep_log_end_offset(p->log);
    int64_t cand = leo;
    if (!HAS_BUG(p, LR_BUG_HW_IGNORES_ISR)) {
        if (p->n_isr < effective_min_isr(p))
            return;
        for (int32_t i = 0; i < p->n_followers; i++) {
            follower *f = &p->followers[i];
            if (in_maximal_isr(p, f->id)) {
                if (f->leo < cand)
                    cand = f->leo; /* unknown (-1) blocks the HW */
            } else if (!f->ineligible && f->leo >= 0 && f->leo < cand &&
                       (f->leo == leo ||
                        now_ms - f->last_caught_up_time <= p->conf.replica_lag_time_max_ms)) {
                cand = f->leo;
            }
        }
    }
    if (cand > p->hw) {
        p->hw = cand;
        complete_parked(p, LOGREP_OK, now_ms);
    }
}

static void propose_isr(lr_partition *p, const int32_t *isr, int32_t n)
{
    p->alter.leader_epoch = p->leader_epoch;
    p->alter.partition_epoch = p->partition_epoch;
    p->alter.n_isr = n;
    p->alter.id = ++p->alter_seq;
    for (int32_t i = 0; i < n; i++) {
        p->alter.isr[i] = isr[i];
        follower *f = find_follower(p, isr[i]);
        p->alter.broker_epochs[i] = f ? f->broker_epoch : -1;
    }
    p->alter_pending = 1;
}

static void reset_followers(lr_partition *p, int64_t now_ms)
{
    p->n_followers = 0;
    for (int32_t i = 0; i < p->n_replicas; i++) {
        if (p->replicas[i] == p->conf.node_id)
            continue;
        follower *f = &p->followers[p->n_followers++];
        memset(f, 0, sizeof *f);
        f->id = p->replicas[i];
        f->leo = -1;
        f->broker_epoch = -1;
        /* ISR members get a grace period, others must catch up first. */
        f->last_caught_up_time = contains(p->isr, p->n_isr, f->id) ? now_ms : 0;
    }
}

/* ------------------------------------------------------------ lifecycle */

int lr_partition_new(const lr_alloc *a, const lr_log *log_hook, const lr_part_conf *conf,
                     logrep_log *log, lr_partition **out)
{
    lr_partition *p = lr_calloc(a, 1, sizeof *p);
    if (!p)
        return LOGREP_ERR__NOMEM;
    p->alloc = *a;
    if (log_hook)
        p->logger = *log_hook;
    p->conf = *conf;
    p->log = log;
    p->leader = -1;
    p->leader_epoch = -1;
    p->partition_epoch = -1;
    p->hw = logrep_log_start_offset(log);
    *out = p;
    return 0;
}

void lr_partition_free(lr_partition *p, int abandon)
{
    if (!p)
        return;
    if (abandon)
        logrep_log_abandon(p->log);
    else
        logrep_log_close(p->log);
    lr_free(&p->alloc, p->parked, p->cap_parked * sizeof *p->parked);
    lr_free(&p->alloc, p->done, p->cap_done * sizeof *p->done);
    lr_alloc a = p->alloc;
    lr_free(&a, p, sizeof *p);
}

void lr_partition_stop(lr_partition *p, int64_t now_ms)
{
    complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
}

logrep_log *lr_partition_log(lr_partition *p)
{
    return p->log;
}

int lr_partition_retention(lr_partition *p, int64_t now_ms, int32_t *deleted)
{
    return logrep_log_retention_upto(p->log, now_ms, p->hw, deleted);
}

int32_t lr_partition_sim_isr(const lr_partition *p, int32_t *ids, int64_t *leos, int32_t cap)
{
    if (p->role != LR_ROLE_LEADER)
        return 0;
    int32_t n = 0;
    for (int32_t i = 0; i < p->n_replicas; i++) {
        int32_t id = p->replicas[i];
        if (!in_maximal_isr(p, id))
            continue;
        if (n < cap) {
            const follower *f = id == p->conf.node_id ? NULL : find_follower((lr_partition *)p, id);
            ids[n] = id;
            leos[n] = id == p->conf.node_id ? logrep_log_end_offset(p->log) : f ? f->leo : -1;
        }
        n++;
    }
    return n;
}


static void clamp_hw(lr_partition *p)
{
    int64_t start = logrep_log_start_offset(p->log), leo = logrep_log_end_offset(p->log);
    if (p->hw > leo)
        p->hw = leo;
    if (p->hw < start)
        p->hw = start;
}

/* Racks and eligibility of the followers, from metadata. */
static void follower_meta(lr_partition *p, const lr_part_meta *m)
{
    for (int32_t i = 0; i < m->n_replicas; i++) {
        follower *f = find_follower(p, m->replicas[i]);
        if (!f)
            continue;
        if (m->racks[i])
            snprintf(f->rack, sizeof f->rack, "%s", m->racks[i]);
        f->ineligible = m->ineligible[i] != 0;
    }
}

int lr_partition_apply(lr_partition *p, const lr_part_meta *m, int64_t now_ms)
{
    if (m->n_replicas > LR_MAX_REPLICAS || m->n_isr > LR_MAX_REPLICAS || m->n_replicas < 0 ||
        m->n_isr < 0)
        return LOGREP_ERR__INVALID_ARG;
    if (m->partition_epoch < p->partition_epoch || m->leader_epoch < p->leader_epoch)
        return 0; /* stale: delayed or reordered metadata */
    int new_epoch = m->leader_epoch > p->leader_epoch;
    p->partition_epoch = m->partition_epoch;
    p->n_replicas = m->n_replicas;
    memcpy(p->replicas, m->replicas, (size_t)m->n_replicas * sizeof *m->replicas);
    p->n_isr = m->n_isr;
    memcpy(p->isr, m->isr, (size_t)m->n_isr * sizeof *m->isr);

    if (!new_epoch) {
        /* Same leader epoch: an ISR change (ours committed, or the
         * controller's). The committed view replaces any proposal made
         * on an older partition epoch; one made on this very state is
         * still in flight and its additions still count (maximal ISR). */
        if (m->partition_epoch > p->alter.partition_epoch)
            p->alter_pending = p->alter_in_flight = 0;
        if (p->role == LR_ROLE_LEADER) {
            follower_meta(p, m);
            maybe_advance_hw(p, now_ms);
        }
        return 0;
    }

    int was_leader = p->role == LR_ROLE_LEADER;
    int32_t old_epoch = p->leader_epoch;
    p->leader = m->leader;
    p->leader_epoch = m->leader_epoch;
    p->alter_pending = p->alter_in_flight = 0;
    p->fetch_in_flight = 0;
    if (was_leader || p->n_parked)
        complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
    clamp_hw(p);

    if (m->leader == p->conf.node_id) {
        int64_t leo = logrep_log_end_offset(p->log);
        int err = logrep_log_epoch_assign(p->log, m->leader_epoch, leo);
        if (err) {
            /* Not leader yet: the same metadata applied again (the host
             * retries) must still be a new epoch. */
            p->role = LR_ROLE_NONE;
            p->leader_epoch = old_epoch;
            return err;
        }
        p->role = LR_ROLE_LEADER;
        p->leso = leo;
        reset_followers(p, now_ms);
        follower_meta(p, m);
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "replica", "leader in epoch %d at LEO %lld HW %lld",
               m->leader_epoch, (long long)leo, (long long)p->hw);
        maybe_advance_hw(p, now_ms);
    } else if (m->leader >= 0 && contains(m->replicas, m->n_replicas, p->conf.node_id)) {
        p->role = LR_ROLE_FOLLOWER;
        p->n_followers = 0;
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "replica", "follower of %d in epoch %d", m->leader,
               m->leader_epoch);
    } else {
        p->role = LR_ROLE_NONE;
        p->n_followers = 0;
    }
    return 0;
}

/* ------------------------------------------------------------ produce */

/* Idempotent producer checks (docs/storage.md, Producer state). Returns 0 to append,
 * 1 for a duplicate (res filled with the original offset), or an error. */
static int grow_parked(lr_partition *p)
{
    size_t ncap = p->cap_parked ? p->cap_parked * 2 : 16;
    parked *np = lr_realloc(&p->alloc, p->parked, p->cap_parked * sizeof *np, ncap * sizeof *np);
    if (!np)
        return -1;
    p->parked = np;
    p->cap_parked = ncap;
    return 0;
}

static logrep_err check_producer(lr_partition *p, const logrep_batch_header *h,
                                 lr_produce_res *res)
{
    logrep_producer_entry e;
    if (logrep_log_producer(p->log, h->producer_id, &e) != LOGREP_OK)
        return LOGREP_OK; /* no state: any sequence is accepted (KIP-360) */
    int32_t first = h->base_sequence;
    int32_t last = logrep_seq_increment(first, h->last_offset_delta);
    if (h->producer_epoch == e.producer_epoch) {
        int32_t fs[5], ls[5];
        int64_t lo[5];
        int n = 0;
        if (logrep_log_producer_batches(p->log, h->producer_id, fs, ls, lo, &n) == LOGREP_OK) {
            for (int i = 0; i < n; i++) {
                if (fs[i] == first && ls[i] == last) {
                    res->base_offset = lo[i] - h->last_offset_delta;
                    return 1;
                }
            }
        }
    }
    if (h->producer_epoch < e.producer_epoch)
        return LOGREP_ERR_INVALID_PRODUCER_EPOCH;
    if (h->producer_epoch != e.producer_epoch) {
        if (first != 0)
            return LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
        return LOGREP_OK;
    }
    int32_t expect = e.last_sequence == INT32_MAX ? 0 : e.last_sequence + 1;
    if (e.last_sequence >= 0 && first != expect)
        return LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
    return LOGREP_OK;
}

logrep_err lr_partition_produce(lr_partition *p, void *buf, size_t len, int16_t acks,
                                int64_t timeout_ms, uint64_t token, int64_t now_ms,
                                lr_produce_res *res)
{
    memset(res, 0, sizeof *res);
    res->token = token;
    res->base_offset = -1;
    res->log_append_time = -1;
    res->log_start_offset = logrep_log_start_offset(p->log);
    if (p->role != LR_ROLE_LEADER)
        return res->error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    if (acks != 0 && acks != 1 && acks != -1)
        return res->error = LOGREP_ERR_INVALID_REQUIRED_ACKS;
    if (acks == -1 && p->n_isr < effective_min_isr(p))
        return res->error = LOGREP_ERR_NOT_ENOUGH_REPLICAS;
    logrep_batch_header h;
    size_t size;
    logrep_err err = logrep_batch_verify(buf, len, &size);
    if (err == LOGREP_ERR__UNSUPPORTED)
        return res->error = LOGREP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
    if (err)
        return res->error = LOGREP_ERR_CORRUPT_MESSAGE;
    logrep_batch_header_parse(buf, len, &h);
    /* Kafka takes exactly one v2 batch per partition from a client, never
     * a control batch, and no sequence-less idempotent batch. */
    if (size != len || (h.attributes & LOGREP_ATTR_CONTROL) ||
        (h.producer_id >= 0 && h.base_sequence < 0))
        return res->error = LOGREP_ERR_INVALID_RECORD;
    logrep_log_append_info info;
    memset(&info, 0, sizeof info);
    info.log_append_time = -1;
    err = h.producer_id >= 0 ? check_producer(p, &h, res) : LOGREP_OK;
    if (err == 1) {
        /* A duplicate: answered with the original offsets, and like any
         * acks=all write only once the high watermark passed them. */
        info.first_offset = res->base_offset;
        info.last_offset = res->base_offset + h.last_offset_delta;
    } else if (err) {
        return res->error = err;
    } else {
        /* Room to wait for the HW is made first: once appended, a write
         * that cannot be parked would leave the client an unknown outcome. */
        if (acks == -1 && p->n_parked == p->cap_parked && grow_parked(p) != 0)
            return res->error = LOGREP_ERR__NOMEM;
        err = logrep_log_append_leader(p->log, buf, len, p->leader_epoch, now_ms, &info);
        if (err) {
            if (err < 0) /* storage failure */
                err = LOGREP_ERR_KAFKA_STORAGE_ERROR;
            return res->error = err;
        }
        maybe_advance_hw(p, now_ms);
    }
    res->base_offset = info.first_offset;
    res->log_append_time = info.log_append_time;
    if (acks != -1 || p->hw > info.last_offset)
        return res->error = LOGREP_OK;
    if (p->n_parked == p->cap_parked && grow_parked(p) != 0) /* a duplicate: nothing appended */
        return res->error = LOGREP_ERR__NOMEM;
    parked *q = &p->parked[p->n_parked++];
    q->token = token;
    q->required_offset = info.last_offset + 1;
    q->deadline = now_ms + timeout_ms;
    q->base_offset = info.first_offset;
    q->log_append_time = info.log_append_time;
    res->parked = 1;
    return res->error = LOGREP_OK;
}

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

/* Follower bookkeeping on a valid fetch (docs/replication.md 1.4) and ISR expansion (1.5). */
static void update_follower(lr_partition *p, follower *f, const lr_fetch_req *req, int64_t now_ms)
{
    int64_t leo = logrep_log_end_offset(p->log);
    if (req->fetch_offset >= leo) {
        if (now_ms > f->last_caught_up_time)
            f->last_caught_up_time = now_ms;
    } else if (f->leo >= 0 && req->fetch_offset >= f->last_fetch_leader_leo) {
        if (f->last_fetch_time > f->last_caught_up_time)
            f->last_caught_up_time = f->last_fetch_time;
    }
    f->leo = req->fetch_offset;
    f->last_fetch_time = now_ms;
    f->last_fetch_leader_leo = leo;
    if (req->replica_epoch >= 0)
        f->broker_epoch = req->replica_epoch;

    if (!contains(p->isr, p->n_isr, f->id) && !p->alter_pending && !p->alter_in_flight &&
        !f->ineligible && f->leo >= p->hw && f->leo >= p->leso && f->broker_epoch >= 0) {
        int32_t isr[LR_MAX_REPLICAS];
        memcpy(isr, p->isr, (size_t)p->n_isr * sizeof *isr);
        isr[p->n_isr] = f->id;
        propose_isr(p, isr, p->n_isr + 1);
        p->isr_expands++;
    }
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
            update_follower(p, f, req, now_ms);
        maybe_advance_hw(p, now_ms);
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
    clamp_hw(p); /* a truncation that fails late may still have cut the log */
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
            clamp_hw(p);
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
            clamp_hw(p);
            return err;
        }
    }
    p->hw = high_watermark < leo ? high_watermark : leo;
    clamp_hw(p);
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

/* ------------------------------------------------------------ periodic */

void lr_partition_tick(lr_partition *p, int64_t now_ms)
{
    if (p->role != LR_ROLE_LEADER) {
        if (p->n_parked)
            complete_parked(p, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER, now_ms);
        return;
    }
    complete_parked(p, LOGREP_OK, now_ms); /* timeouts */
    if (p->alter_pending || p->alter_in_flight)
        return;
    int64_t leo = logrep_log_end_offset(p->log);
    int32_t keep[LR_MAX_REPLICAS], n = 0;
    for (int32_t i = 0; i < p->n_isr; i++) {
        int32_t id = p->isr[i];
        follower *f = id == p->conf.node_id ? NULL : find_follower(p, id);
        if (f && f->leo != leo && now_ms - f->last_caught_up_time > p->conf.replica_lag_time_max_ms)
            continue; /* out of sync */
        keep[n++] = id;
    }
    if (n < p->n_isr) {
        LR_LOG(&p->logger, LOGREP_LEVEL_INFO, "isr", "shrinking ISR from %d to %d members",
               p->n_isr, n);
        propose_isr(p, keep, n);
        p->isr_shrinks++;
    }
}

int64_t lr_partition_deadline(const lr_partition *p, int64_t now_ms)
{
    if (p->n_done || (p->role != LR_ROLE_LEADER && p->n_parked))
        return now_ms;
    if (p->role != LR_ROLE_LEADER)
        return INT64_MAX;
    if (p->alter_pending) /* to be sent now, or once its retry delay ends */
        return p->alter_after > now_ms ? p->alter_after : now_ms;
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < p->n_parked; i++)
        if (p->parked[i].deadline < next)
            next = p->parked[i].deadline;
    if (p->alter_in_flight)
        return next;
    /* The tick shrinks the ISR once a follower has lagged longer than
     * replica.lag.time.max.ms; one that has caught up starts no clock. */
    int64_t leo = logrep_log_end_offset(p->log);
    for (int32_t i = 0; i < p->n_isr; i++) {
        const follower *f = NULL;
        for (int32_t k = 0; k < p->n_followers; k++)
            if (p->followers[k].id == p->isr[i])
                f = &p->followers[k];
        if (!f || f->leo == leo)
            continue;
        int64_t at = f->last_caught_up_time + p->conf.replica_lag_time_max_ms + 1;
        if (at < next)
            next = at;
    }
    return next < now_ms ? now_ms : next;
}

int lr_partition_take_alter(lr_partition *p, lr_alter_req *out, int64_t now_ms)
{
    if (!p->alter_pending || now_ms < p->alter_after)
        return 0;
    *out = p->alter;
    p->alter_pending = 0;
    p->alter_in_flight = 1;
    return 1;
}

void lr_partition_alter_done(lr_partition *p, uint64_t id, logrep_err error, int32_t partition_epoch,
                             const int32_t *isr, int32_t n_isr, int64_t now_ms)
{
    /* Metadata can supersede a proposal before its answer comes, and a
     * new one be sent meanwhile: the old answer must not settle the new
     * one, or its additions stop counting while the controller may still
     * commit them (the HW would pass a replica it puts in the ISR). */
    if (!p->alter_in_flight || id != p->alter.id)
        return; /* duplicate or stale answer */
    if (p->role != LR_ROLE_LEADER) {
        p->alter_in_flight = 0;
        return;
    }
    switch (error) {
    case LOGREP_OK:
        break;
    case LOGREP_ERR_INELIGIBLE_REPLICA:
    case LOGREP_ERR_OPERATION_NOT_ATTEMPTED:
        /* The controller says it applied nothing, and no controller ever
         * will on this partition epoch: the committed ISR stands. */
        p->alter_in_flight = 0;
        return;
    case LOGREP_ERR_FENCED_LEADER_EPOCH:
    case LOGREP_ERR_INVALID_UPDATE_VERSION:
    case LOGREP_ERR_NEW_LEADER_ELECTED:
    case LOGREP_ERR_UNKNOWN_TOPIC_ID:
    case LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION:
        /* This leader's view is stale; an earlier try of this very
         * proposal may be what moved the controller on. Newer metadata
         * settles it (lr_partition_apply); until then the proposal's
         * additions keep counting in the maximal ISR. */
        return;
    default:
        /* Timeout, lost connection or a retriable error: the controller
         * may have applied it, so it keeps counting and is sent again. */
        p->alter_in_flight = 0;
        p->alter_pending = 1;
        p->alter_after = now_ms + LR_ALTER_RETRY_MS;
        return;
    }
    p->alter_in_flight = 0;
    if (partition_epoch < p->partition_epoch || n_isr > LR_MAX_REPLICAS || n_isr < 0)
        return;
    p->partition_epoch = partition_epoch;
    p->n_isr = n_isr;
    memcpy(p->isr, isr, (size_t)n_isr * sizeof *isr);
    maybe_advance_hw(p, now_ms);
}

int lr_partition_next_completion(lr_partition *p, lr_produce_res *out)
{
    if (!p->n_done)
        return 0;
    *out = p->done[p->done_head];
    p->done_head = (p->done_head + 1) % p->cap_done;
    p->n_done--;
    return 1;
}

void lr_partition_set_min_isr(lr_partition *p, int32_t min_isr, int64_t now_ms)
{
    if (min_isr < 1 || min_isr == p->conf.min_insync_replicas)
        return;
    p->conf.min_insync_replicas = min_isr;
    maybe_advance_hw(p, now_ms); /* a lower minimum can unfreeze the HW */
}

void lr_partition_status(const lr_partition *p, lr_part_status *s)
{
    memset(s, 0, sizeof *s);
    s->role = p->role;
    s->leader = p->leader;
    s->leader_epoch = p->leader_epoch;
    s->partition_epoch = p->partition_epoch;
    s->log_start_offset = logrep_log_start_offset(p->log);
    s->log_end_offset = logrep_log_end_offset(p->log);
    s->high_watermark = p->hw;
    s->leader_epoch_start_offset = p->leso;
    s->n_isr = p->n_isr;
    s->n_maximal_isr = maximal_isr_size(p);
    s->n_replicas = p->n_replicas;
    int32_t effmin = effective_min_isr(p);
    s->under_replicated = p->n_isr < p->n_replicas;
    s->under_min_isr = p->n_isr < effmin;
    s->at_min_isr = p->n_isr == effmin;
    s->alter_in_flight = p->alter_pending || p->alter_in_flight;
    s->isr_shrinks = p->isr_shrinks;
    s->isr_expands = p->isr_expands;
    s->parked_produces = (int64_t)p->n_parked;
}

int64_t lr_partition_high_watermark(const lr_partition *p)
{
    return p->hw;
}

int lr_partition_role(const lr_partition *p)
{
    return p->role;
}
