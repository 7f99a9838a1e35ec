/* The replica fetcher: one Fetch per leader at a time, covering every
 * partition this node follows from it, answers applied to each follower
 * replica (appending, truncating at a diverging epoch); and the leader's
 * ISR change proposals, sent to the controller as AlterPartition. A
 * partition whose leader answered an error waits replica.fetch.backoff.ms
 * before it is asked again, as Kafka's fetcher delays failed partitions. */
#include <string.h>

#include "node/node_int.h"

/* A replica fetch in flight: which partitions, and what each asked. */
typedef struct fetch_ctx {
    int32_t n;
    int32_t cap;
    struct {
        uint8_t topic_id[16];
        int32_t index;
        lr_follower_fetch ff;
    } p[];
} fetch_ctx;

/* An AlterPartition in flight. */
typedef struct alter_ctx {
    uint8_t topic_id[16];
    int32_t index;
    uint64_t id; /* the proposal sent */
} alter_ctx;

static size_t fetch_ctx_size(int32_t cap)
{
    return sizeof(fetch_ctx) + (size_t)cap * sizeof(((fetch_ctx *)0)->p[0]);
}

static void backoff(logrep_node *n, lr_npart *p, int64_t now_ms)
{
    p->fetch_after = now_ms + lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_BACKOFF_MS);
}

/* The partition of a fetch response answering fc->p[k]: the leader
 * answers topics in request order (one topic entry per partition here),
 * so position k is tried first, then a search. */
static logrep_struct *find_fetched(logrep_struct *rs, int fr, int32_t nt, const fetch_ctx *fc,
                                   int32_t k)
{
    for (int32_t step = 0; step <= nt; step++) {
        int32_t i = step == 0 ? k : step - 1;
        if (i >= nt || (step > 0 && i == k))
            continue;
        logrep_struct *t = logrep_struct_elem(rs, fr, i);
        const uint8_t *tid = logrep_struct_uuid(t, lr_fid(t, LR_FN_TopicId));
        if (!tid || memcmp(tid, fc->p[k].topic_id, 16) != 0)
            continue;
        int fp = lr_fid(t, LR_FN_Partitions);
        int32_t np = logrep_struct_count(t, fp);
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *pe = logrep_struct_elem(t, fp, j);
            if (lr_f_int(pe, LR_FN_PartitionIndex) == fc->p[k].index)
                return pe;
        }
    }
    return NULL;
}

static void replica_fetch_done(logrep_node *n, fetch_ctx *fc, int64_t now_ms)
{
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    int16_t top = (int16_t)lr_f_int(rs, LR_FN_ErrorCode);
    int fr = lr_fid(rs, LR_FN_Responses);
    int32_t nt = logrep_struct_count(rs, fr);
    for (int32_t k = 0; k < fc->n; k++) {
        lr_npart *p = lr_node_part_by_id(n, fc->p[k].topic_id, fc->p[k].index);
        if (!p)
            continue;
        logrep_struct *found = top ? NULL : find_fetched(rs, fr, nt, fc, k);
        logrep_err perr = found ? (logrep_err)lr_f_int(found, LR_FN_ErrorCode) : LOGREP_ERR__CORRUPT;
        /* A leader that answers with an error (not leader yet, restarted,
         * fenced) is asked again after replica.fetch.backoff.ms, as Kafka's
         * fetcher delays failed partitions, not at once in a loop. */
        if (perr && perr != LOGREP_ERR_OFFSET_OUT_OF_RANGE)
            p->fetch_after = now_ms + lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_BACKOFF_MS);
        if (!found) {
            lr_partition_follower_fetch_failed(p->rep);
            continue;
        }
        int32_t de = -1;
        int64_t deo = -1;
        int fd = lr_fid(found, LR_FN_DivergingEpoch);
        if (logrep_struct_tag_present(found, fd)) {
            logrep_struct *d = logrep_struct_struct(found, fd);
            de = (int32_t)lr_f_int(d, LR_FN_Epoch);
            deo = lr_f_int(d, LR_FN_EndOffset);
        }
        const uint8_t *recs = NULL;
        int32_t rlen = 0;
        logrep_struct_bytes(found, lr_fid(found, LR_FN_Records), &recs, &rlen);
        int err = lr_partition_follower_response(
            p->rep, &fc->p[k].ff, perr,
            lr_f_int(found, LR_FN_HighWatermark), lr_f_int(found, LR_FN_LogStartOffset), de, deo, recs,
            rlen > 0 ? (size_t)rlen : 0, now_ms);
        if (err) {
            LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "replica", "%s-%d: applying fetched data: %s",
                   p->topic, p->index, logrep_err_name(err));
            /* Not again at once: the leader would answer at once, the
             * same data, failing the same way. */
            backoff(n, p, now_ms);
        }
        lr_node_part_changed(n, p);
    }
}

static void fetch_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    fetch_ctx *fc = o->ctx;
    p->fetch_in_flight = 0;
    replica_fetch_done(n, fc, now_ms);
    lr_free(&n->alloc, fc, fetch_ctx_size(fc->cap));
}

static void fetch_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    fetch_ctx *fc = o->ctx;
    p->fetch_in_flight = 0;
    for (int32_t k = 0; k < fc->n; k++) {
        lr_npart *np = lr_node_part_by_id(n, fc->p[k].topic_id, fc->p[k].index);
        if (np) {
            lr_partition_follower_fetch_failed(np->rep);
            backoff(n, np, now_ms);
        }
    }
    lr_free(&n->alloc, fc, fetch_ctx_size(fc->cap));
}

static const lr_out_ops fetch_ops = {fetch_done, fetch_failed};

static void alter_done(logrep_node *n, alter_ctx *ac, int64_t now_ms)
{
    lr_npart *p = lr_node_part_by_id(n, ac->topic_id, ac->index);
    if (!p)
        return;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
    logrep_struct *t = lr_f_count(rs, LR_FN_Topics) > 0 ? lr_f_elem(rs, LR_FN_Topics, 0) : NULL;
    logrep_struct *pe = t && lr_f_count(t, LR_FN_Partitions) > 0 ? lr_f_elem(t, LR_FN_Partitions, 0) : NULL;
    if (!pe) {
        lr_partition_alter_done(p->rep, ac->id, err ? err : LOGREP_ERR__CORRUPT, 0, NULL, 0, now_ms);
        return;
    }
    if (!err)
        err = (logrep_err)lr_f_int(pe, LR_FN_ErrorCode);
    int32_t isr[LR_MAX_REPLICAS];
    int fi = lr_fid(pe, LR_FN_Isr);
    int32_t n_isr = logrep_struct_count(pe, fi);
    if (n_isr > LR_MAX_REPLICAS || n_isr < 0)
        n_isr = 0;
    for (int32_t i = 0; i < n_isr; i++)
        isr[i] = (int32_t)logrep_struct_elem_int(pe, fi, i);
    lr_partition_alter_done(p->rep, ac->id, err, (int32_t)lr_f_int(pe, LR_FN_PartitionEpoch), isr, n_isr, now_ms);
    lr_node_part_changed(n, p); /* an ISR change can move the HW */
}

static void alter_ops_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    alter_done(n, o->ctx, now_ms);
    lr_free(&n->alloc, o->ctx, sizeof(alter_ctx));
}

static void alter_ops_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    alter_ctx *ac = o->ctx;
    lr_npart *np = lr_node_part_by_id(n, ac->topic_id, ac->index);
    if (np)
        lr_partition_alter_done(np->rep, ac->id, LOGREP_ERR__IO, 0, NULL, 0, now_ms);
    lr_free(&n->alloc, ac, sizeof *ac);
}

static const lr_out_ops alter_ops = {alter_ops_done, alter_ops_failed};

/* One Fetch per leader, covering every partition following it. */
static void send_replica_fetches(logrep_node *n, int64_t now_ms)
{
    for (size_t i = 0; i < n->parts.n; i++) {
        lr_follower_fetch probe;
        lr_partition *rep = n->parts.v[i].rep;
        if (lr_partition_role(rep) != LR_ROLE_FOLLOWER || n->parts.v[i].fetch_after > now_ms)
            continue;
        /* Find this partition's leader peer; skip when a fetch is out. */
        const lr_md_topic *t = lr_md_topic_by_id(n->md.img, n->parts.v[i].topic_id);
        const lr_md_partition *mp = t ? lr_md_partition_get(t, n->parts.v[i].index) : NULL;
        if (!mp || mp->leader < 0 || mp->leader == n->id)
            continue;
        lr_peer *peer = lr_peer_get(n, mp->leader, LR_CH_REPLICA);
        if (!lr_peer_ready(peer, now_ms) || peer->fetch_in_flight)
            continue;
        /* Gather every follower partition of this leader. */
        size_t cap = 0;
        for (size_t j = i; j < n->parts.n; j++)
            cap++;
        fetch_ctx *fc = lr_malloc(&n->alloc, fetch_ctx_size((int32_t)cap));
        if (!fc)
            return;
        fc->n = 0;
        fc->cap = (int32_t)cap;
        for (size_t j = i; j < n->parts.n; j++) {
            const lr_md_topic *tj = lr_md_topic_by_id(n->md.img, n->parts.v[j].topic_id);
            const lr_md_partition *mj = tj ? lr_md_partition_get(tj, n->parts.v[j].index) : NULL;
            if (!mj || mj->leader != mp->leader || n->parts.v[j].fetch_after > now_ms)
                continue;
            if (lr_partition_follower_fetch(n->parts.v[j].rep, &probe) != 0)
                continue;
            memcpy(fc->p[fc->n].topic_id, n->parts.v[j].topic_id, 16);
            fc->p[fc->n].index = n->parts.v[j].index;
            fc->p[fc->n].ff = probe;
            fc->n++;
        }
        logrep_struct *r = fc->n ? lr_peer_start(n, LOGREP_API_FETCH, LR_PEER_FETCH_VERSION) : NULL;
        if (!r) {
            lr_free(&n->alloc, fc, fetch_ctx_size(fc->cap));
            continue;
        }
        logrep_struct *rs;
        logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs);
        lr_f_set_int(rs, LR_FN_ReplicaId, n->id);
        lr_f_set_int(rs, LR_FN_ReplicaEpoch, n->life.broker_epoch);
        lr_f_set_int(r, LR_FN_MaxWaitMs, lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_WAIT_MAX_MS));
        lr_f_set_int(r, LR_FN_MinBytes, lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_MIN_BYTES));
        lr_f_set_int(r, LR_FN_MaxBytes, lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_RESPONSE_MAX_BYTES));
        lr_f_set_count(r, LR_FN_Topics, fc->n); /* one topic entry per partition */
        for (int32_t k = 0; k < fc->n; k++) {
            logrep_struct *t2 = lr_f_elem(r, LR_FN_Topics, k);
            logrep_struct_set_uuid(t2, lr_fid(t2, LR_FN_TopicId), fc->p[k].topic_id);
            lr_f_set_count(t2, LR_FN_Partitions, 1);
            logrep_struct *pp = lr_f_elem(t2, LR_FN_Partitions, 0);
            lr_f_set_int(pp, LR_FN_Partition, fc->p[k].index);
            lr_f_set_int(pp, LR_FN_CurrentLeaderEpoch, fc->p[k].ff.current_leader_epoch);
            lr_f_set_int(pp, LR_FN_FetchOffset, fc->p[k].ff.fetch_offset);
            lr_f_set_int(pp, LR_FN_LastFetchedEpoch, fc->p[k].ff.last_fetched_epoch);
            lr_f_set_int(pp, LR_FN_LogStartOffset, fc->p[k].ff.log_start_offset);
            lr_f_set_int(pp, LR_FN_PartitionMaxBytes, lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_MAX_BYTES));
        }
        if (lr_peer_send(n, peer, &fetch_ops, fc, now_ms) == 0) {
            peer->fetch_in_flight = 1;
        } else {
            for (int32_t k = 0; k < fc->n; k++) {
                lr_npart *p = lr_node_part_by_id(n, fc->p[k].topic_id, fc->p[k].index);
                if (p)
                    lr_partition_follower_fetch_failed(p->rep);
            }
            lr_free(&n->alloc, fc, fetch_ctx_size(fc->cap));
        }
    }
}

static void send_alters(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = lr_life_controller(n);
    for (size_t i = 0; i < n->parts.n; i++) {
        lr_alter_req a;
        if (!lr_peer_ready(c, now_ms) || !lr_partition_take_alter(n->parts.v[i].rep, &a, now_ms))
            continue;
        alter_ctx *ac = lr_malloc(&n->alloc, sizeof *ac);
        logrep_struct *r = ac ? lr_peer_start(n, LOGREP_API_ALTER_PARTITION, 3) : NULL;
        if (!r) {
            lr_free(&n->alloc, ac, sizeof *ac);
            lr_partition_alter_done(n->parts.v[i].rep, a.id, LOGREP_ERR__NOMEM, 0, NULL, 0, now_ms);
            continue;
        }
        memcpy(ac->topic_id, n->parts.v[i].topic_id, 16);
        ac->index = n->parts.v[i].index;
        ac->id = a.id;
        lr_f_set_int(r, LR_FN_BrokerId, n->id);
        lr_f_set_int(r, LR_FN_BrokerEpoch, n->life.broker_epoch);
        lr_f_set_count(r, LR_FN_Topics, 1);
        logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
        logrep_struct_set_uuid(t, lr_fid(t, LR_FN_TopicId), ac->topic_id);
        lr_f_set_count(t, LR_FN_Partitions, 1);
        logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
        lr_f_set_int(p, LR_FN_PartitionIndex, ac->index);
        lr_f_set_int(p, LR_FN_LeaderEpoch, a.leader_epoch);
        lr_f_set_int(p, LR_FN_PartitionEpoch, a.partition_epoch);
        lr_f_set_int(p, LR_FN_LeaderRecoveryState, 0);
        lr_f_set_count(p, LR_FN_NewIsrWithEpochs, a.n_isr);
        for (int32_t k = 0; k < a.n_isr; k++) {
            logrep_struct *b = lr_f_elem(p, LR_FN_NewIsrWithEpochs, k);
            lr_f_set_int(b, LR_FN_BrokerId, a.isr[k]);
            lr_f_set_int(b, LR_FN_BrokerEpoch, a.isr[k] == n->id ? n->life.broker_epoch : a.broker_epochs[k]);
        }
        if (lr_peer_send(n, c, &alter_ops, ac, now_ms) != 0) {
            lr_free(&n->alloc, ac, sizeof *ac);
            lr_partition_alter_done(n->parts.v[i].rep, a.id, LOGREP_ERR__IO, 0, NULL, 0, now_ms);
        }
    }
}

void lr_fetcher_tick(logrep_node *n, int64_t now_ms)
{
    send_replica_fetches(n, now_ms);
    send_alters(n, now_ms);
}

int64_t lr_fetcher_deadline(const logrep_node *n, int64_t now_ms)
{
    (void)now_ms;
    int64_t next = INT64_MAX;
    for (size_t i = 0; !n->life.shutdown_done && i < n->parts.n; i++) {
        const lr_npart *p = &n->parts.v[i];
        if (lr_partition_role(p->rep) != LR_ROLE_FOLLOWER)
            continue;
        const lr_md_topic *t = lr_md_topic_by_id(n->md.img, p->topic_id);
        const lr_md_partition *mp = t ? lr_md_partition_get(t, p->index) : NULL;
        if (!mp || mp->leader < 0 || mp->leader == n->id)
            continue;
        const lr_peer *peer = lr_peer_find(n, mp->leader, LR_CH_REPLICA);
        if (peer && peer->fetch_in_flight)
            continue; /* its answer is an event */
        int64_t at = lr_peer_after_backoff(peer, p->fetch_after);
        next = at < next ? at : next;
    }
    return next;
}
