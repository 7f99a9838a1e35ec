/* The broker's life with the controller: registration, heartbeats and
 * controlled shutdown; following the metadata log and turning it into
 * partition roles; replica fetching from leaders; ISR change proposals;
 * forwarding admin requests; producer-id blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/batch.h"
#include "node/node_int.h"

/* KRaft's metadata topic id (Uuid.METADATA_TOPIC_ID). */
static const uint8_t metadata_topic_id[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

int lr_is_metadata_topic(const uint8_t id[16])
{
    return id && memcmp(id, metadata_topic_id, 16) == 0;
}

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
} alter_ctx;


static lr_peer *controller(logrep_node *n)
{
    return lr_node_peer(n, n->ctl_id, LR_CH_CONTROL);
}

static int peer_ready(const lr_peer *p, int64_t now_ms)
{
    return p && now_ms >= p->backoff_until;
}

/* ------------------------------------------------------------ partitions */

/* Topic-level configs a partition applies (Kafka's LogConfig), by the
 * names the log (and, for compression, the produce path) reads from its
 * conf. */
static const char *const log_topic_configs[] = {
    "segment.bytes", "segment.ms", "segment.jitter.ms", "segment.index.bytes",
    "index.interval.bytes", "retention.bytes", "retention.ms", "flush.messages",
    "flush.ms", "max.message.bytes", "message.timestamp.type", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level"};
#define N_LOG_TOPIC_CONFIGS (sizeof log_topic_configs / sizeof *log_topic_configs)

/* A hash of the topic's log configs, to notice a change: each value with
 * its NUL (an absent one as no bytes), chained through the seed. */
static uint64_t topic_conf_hash(const lr_md_topic *t)
{
    uint64_t h = 0;
    for (size_t i = 0; i < N_LOG_TOPIC_CONFIGS; i++) {
        const char *v = lr_md_topic_config(t, log_topic_configs[i]);
        h = lr_hash_seeded(v ? v : "", v ? strlen(v) + 1 : 0, h);
    }
    return h;
}

/* The broker's conf with the topic's overrides on top; NULL when out of
 * memory. A value the conf refuses keeps the broker's (and is logged). */
static logrep_conf *topic_conf(logrep_node *n, const lr_md_topic *t)
{
    logrep_conf *c = logrep_conf_dup(n->conf);
    for (size_t i = 0; c && i < N_LOG_TOPIC_CONFIGS; i++) {
        const char *v = lr_md_topic_config(t, log_topic_configs[i]);
        char why[128];
        if (v && logrep_conf_set(c, log_topic_configs[i], v, why, sizeof why) != LOGREP_OK)
            LR_LOG(&n->logger, LOGREP_LOG_WARN, "node", "topic %s: %s=%s not applied: %s",
                   t->name, log_topic_configs[i], v, why);
    }
    return c;
}

/* compression.type and its level as the produce path applies them. */
static void part_codec(lr_npart *p, const logrep_conf *tc)
{
    const char *ct = lr_conf_str(tc, LR_CONF_COMPRESSION_TYPE);
    p->codec_level = 0;
    if (strcmp(ct, "producer") == 0)
        p->codec = -1;
    else if (strcmp(ct, "uncompressed") == 0 || strcmp(ct, "none") == 0)
        p->codec = LOGREP_COMPRESSION_NONE;
    else
        p->codec = logrep_compression_from_name(ct);
    if (p->codec == LOGREP_COMPRESSION_GZIP)
        p->codec_level = (int)lr_conf_int(tc, LR_CONF_COMPRESSION_GZIP_LEVEL);
    else if (p->codec == LOGREP_COMPRESSION_LZ4)
        p->codec_level = (int)lr_conf_int(tc, LR_CONF_COMPRESSION_LZ4_LEVEL);
    else if (p->codec == LOGREP_COMPRESSION_ZSTD)
        p->codec_level = (int)lr_conf_int(tc, LR_CONF_COMPRESSION_ZSTD_LEVEL);
}

static int open_part(logrep_node *n, const lr_md_topic *t, int32_t index, int64_t now_ms,
                     lr_npart **out)
{
    if (n->n_parts == n->cap_parts) {
        size_t ncap = n->cap_parts ? n->cap_parts * 2 : 16;
        lr_npart *np = lr_realloc(&n->alloc, n->parts, n->cap_parts * sizeof *np, ncap * sizeof *np);
        if (!np)
            return LOGREP_ERR__NOMEM;
        n->parts = np;
        n->cap_parts = ncap;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s-%d", n->log_dir, t->name, index);
    logrep_log *log;
    logrep_conf *tc = topic_conf(n, t);
    if (!tc)
        return LOGREP_ERR__NOMEM;
    int err = logrep_log_open(tc, n->st, dir, now_ms, &log);
    uint8_t id[16];
    if (!err && logrep_log_topic_id(log, id) == LOGREP_OK && memcmp(id, t->id, 16) != 0) {
        /* Another topic's log under this name (deleted while this node
         * was away): never serve it as this topic's (KIP-516). */
        logrep_log_close(log);
        err = lr_dirs_retire(n, t->name, index, NULL, now_ms);
        if (!err)
            err = logrep_log_open(tc, n->st, dir, now_ms, &log);
    }
    int32_t max_message_bytes = (int32_t)lr_conf_int(tc, LR_CONF_MAX_MESSAGE_BYTES);
    lr_npart codec;
    part_codec(&codec, tc);
    logrep_conf_free(tc);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node", "opening %s: %s", dir, logrep_err_name(err));
        return err;
    }
    if (logrep_log_topic_id(log, id) != LOGREP_OK &&
        (err = logrep_log_set_topic_id(log, t->id)) != 0) {
        /* Retried next tick, as a failed open. */
        LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node", "writing the topic ID of %s: %s", dir,
               logrep_err_name(err));
        logrep_log_close(log);
        return err;
    }
    lr_part_conf pc;
    pc.node_id = n->id;
    pc.min_insync_replicas = lr_md_topic_min_isr(n->img, t);
    pc.replica_lag_time_max_ms = lr_conf_int(n->conf, LR_CONF_REPLICA_LAG_TIME_MAX_MS);
    pc.max_message_bytes = max_message_bytes;
    lr_npart *p = &n->parts[n->n_parts];
    memset(p, 0, sizeof *p);
    p->topic = lr_strdup(&n->alloc, t->name);
    if (!p->topic || (err = lr_partition_new(&n->alloc, &n->logger, &pc, log, &p->rep)) != 0) {
        lr_strfree(&n->alloc, p->topic);
        logrep_log_close(log);
        return err ? err : LOGREP_ERR__NOMEM;
    }
    const char *bug = lr_conf_str(n->conf, LR_CONF_SIM_BUG);
    if (bug && strcmp(bug, "hw-ignores-isr") == 0)
        lr_partition_set_bug(p->rep, LR_BUG_HW_IGNORES_ISR);
    else if (bug && strcmp(bug, "no-truncate") == 0)
        lr_partition_set_bug(p->rep, LR_BUG_NO_TRUNCATE);
    memcpy(p->topic_id, t->id, 16);
    p->index = index;
    p->seen_partition_epoch = -1;
    p->conf_hash = topic_conf_hash(t);
    p->fetch_after = 0;
    p->codec = codec.codec;
    p->codec_level = codec.codec_level;
    n->n_parts++;
    if ((err = lr_node_part_indexed(n)) != 0) {
        n->n_parts--;
        lr_partition_free(p->rep, 0);
        lr_strfree(&n->alloc, p->topic);
        return err;
    }
    *out = p;
    return 0;
}

#define LR_OPENS_PER_PASS 256
/* Closes the partitions of topics the image no longer has and retires
 * their directories (Kafka's -delete rename). A rename that fails leaves
 * the directory to the stray scan of the next start. */
static void close_deleted(logrep_node *n, int64_t now_ms)
{
    for (size_t i = 0; i < n->n_parts;) {
        if (lr_md_topic_by_id(n->img, n->parts[i].topic_id)) {
            i++;
            continue;
        }
        char *topic = n->parts[i].topic;
        n->parts[i].topic = NULL;
        uint8_t id[16];
        memcpy(id, n->parts[i].topic_id, 16);
        int32_t index = n->parts[i].index;
        /* Parked acks=all produces are answered now, not at their timeout. */
        lr_partition_stop(n->parts[i].rep, now_ms);
        lr_deferred_collect(n, &n->parts[i]);
        lr_node_part_remove(n, i);
        lr_dirs_retire(n, topic, index, id, now_ms);
        lr_strfree(&n->alloc, topic);
        lr_node_part_changed(n, NULL); /* indexes into the partitions moved */
    }
}

/* Brings hosted partitions in line with the image: opens newly assigned
 * ones and applies leader/ISR changes. */
int lr_broker_apply_metadata(logrep_node *n, int64_t now_ms)
{
    int failed = 0;
    /* Opening a log is storage work (recovery, files): a topic of
     * thousands of partitions is opened over several ticks so the node
     * keeps answering meanwhile. */
    int opens = LR_OPENS_PER_PASS;
    close_deleted(n, now_ms); /* first: a re-created name reuses the path */
    size_t nt = lr_md_topic_count(n->img);
    for (size_t i = 0; i < nt; i++) {
        const lr_md_topic *t = lr_md_topic_at(n->img, i);
        uint64_t ch = topic_conf_hash(t);
        for (int32_t k = 0; k < t->n_parts; k++) {
            const lr_md_partition *mp = &t->parts[k];
            if (!lr_md_ids_contains(mp->replicas, mp->n_replicas, n->id))
                continue;
            lr_npart *p = lr_node_part_by_id(n, t->id, k);
            if (!p && opens <= 0) {
                n->md_apply_retry = 1; /* the rest next tick */
                continue;
            }
            if (!p && (opens--, open_part(n, t, k, now_ms, &p)) != 0) {
                n->md_apply_retry = failed = 1; /* a storage error: try again soon */
                continue;
            }
            lr_partition_set_min_isr(p->rep, lr_md_topic_min_isr(n->img, t), now_ms);
            if (ch != p->conf_hash) {
                /* A ConfigRecord changed the topic: the open log takes it. */
                logrep_conf *tc = topic_conf(n, t);
                if (tc && logrep_log_reconfigure(lr_partition_log(p->rep), tc) == 0) {
                    part_codec(p, tc);
                    p->conf_hash = ch;
                }
                else
                    n->md_apply_retry = 1;
                logrep_conf_free(tc);
            }
            if (p->seen_partition_epoch == mp->partition_epoch)
                continue;
            lr_part_meta m;
            memset(&m, 0, sizeof m);
            m.leader = mp->leader;
            m.leader_epoch = mp->leader_epoch;
            m.partition_epoch = mp->partition_epoch;
            m.n_replicas = mp->n_replicas > LR_MAX_REPLICAS ? LR_MAX_REPLICAS : mp->n_replicas;
            for (int32_t r = 0; r < m.n_replicas; r++) {
                m.replicas[r] = mp->replicas[r];
                const lr_md_broker *b = lr_md_broker_get(n->img, mp->replicas[r]);
                m.racks[r] = b && b->rack ? b->rack : "";
            }
            m.n_isr = mp->n_isr > LR_MAX_REPLICAS ? LR_MAX_REPLICAS : mp->n_isr;
            memcpy(m.isr, mp->isr, (size_t)m.n_isr * sizeof *m.isr);
            int aerr = lr_partition_apply(p->rep, &m, now_ms);
            if (aerr == 0) {
                p->seen_partition_epoch = mp->partition_epoch;
                p->fetch_after = 0; /* a new leader is asked at once */
            } else {
                LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node", "%s-%d: leader epoch %d: %s",
                       p->topic, p->index, m.leader_epoch, logrep_err_name(aerr));
                n->md_apply_retry = failed = 1;
            }
            lr_node_part_changed(n, p);
        }
    }
    /* A failing disk is not retried on every event (each retry reopens
     * logs and logs its error). */
    if (failed)
        n->md_apply_after = now_ms + 100;
    if (!n->strays_scanned && !n->md_apply_retry)
        lr_dirs_scan_strays(n, now_ms);
    return 0;
}

/* Partition roles follow the image only once it holds this incarnation's
 * registration (the broker epoch is its offset): records before it describe
 * the previous incarnation, which may have led with data this one lost, and
 * the controller's unclean-restart handling comes with the registration
 * (KIP-966). Applies that failed on a storage error are retried from the
 * tick. */
static void broker_maybe_apply(logrep_node *n, int64_t now_ms)
{
    if (n->md_apply_retry && now_ms >= n->md_apply_after && n->broker_epoch >= 0 &&
        lr_md_next_offset(n->img) > n->broker_epoch) {
        n->md_apply_retry = 0;
        lr_broker_apply_metadata(n, now_ms);
    }
}

/* Applies the metadata records in a record set (batches of records whose
 * values are metadata records). Returns 0 or an error (the rest is
 * skipped and fetched again). */
static int apply_record_set(logrep_node *n, const uint8_t *buf, size_t len, int64_t now_ms)
{
    logrep_batch_reader *r;
    int err = logrep_batch_reader_new(n->conf, &r);
    if (err)
        return err;
    size_t pos = 0;
    int applied = 0;
    while (pos < len && !err) {
        logrep_batch_header h;
        err = logrep_batch_reader_open(r, buf + pos, len - pos, &h);
        if (err == LOGREP_ERR__AGAIN) {
            err = 0; /* a partial batch at the end of a fetch */
            break;
        }
        if (err)
            break;
        logrep_record rec;
        while (!err && logrep_batch_reader_next(r, &rec) == LOGREP_OK) {
            if (rec.offset < lr_md_next_offset(n->img))
                continue; /* already applied */
            if (rec.offset > lr_md_next_offset(n->img)) {
                err = LOGREP_ERR__CORRUPT; /* a gap: refetch */
                break;
            }
            if (h.attributes & LOGREP_ATTR_CONTROL) {
                lr_md_set_next_offset(n->img, rec.offset + 1);
                continue;
            }
            err = lr_md_apply_bytes(n->img, rec.value, rec.value_len > 0 ? (size_t)rec.value_len : 0);
            if (err)
                LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node",
                       "metadata record at %lld does not apply: %s", (long long)rec.offset,
                       logrep_err_name(err));
            applied = 1;
        }
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    logrep_batch_reader_free(r);
    if (applied) {
        n->md_apply_retry = 1;
        broker_maybe_apply(n, now_ms);
    }
    return err;
}

/* ------------------------------------------------------------ requests */

static int start(logrep_node *n, int api, int version)
{
    return logrep_msg_init_request(n->out, api, version, n->next_correlation++, "logrep-node");
}

static void send_registration(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = controller(n);
    if (!peer_ready(c, now_ms) || start(n, LOGREP_API_BROKER_REGISTRATION, 3) != 0)
        return;
    logrep_struct *r = logrep_msg_root(n->out);
    char cid[128];
    logrep_conf_get(n->conf, "logrep.cluster.id", cid, sizeof cid, NULL);
    lr_f_set_int(r, LR_FN_BrokerId, n->id);
    lr_f_set_str(r, LR_FN_ClusterId, cid, (int32_t)strlen(cid));
    uint8_t inc[16];
    uint64_t a = lr_prng_next(&n->rng), b = lr_prng_next(&n->rng);
    memcpy(inc, &a, 8);
    memcpy(inc + 8, &b, 8);
    logrep_struct_set_uuid(r, lr_fid(r, LR_FN_IncarnationId), inc);
    if (n->adv_host) {
        lr_f_set_count(r, LR_FN_Listeners, 1);
        logrep_struct *l = lr_f_elem(r, LR_FN_Listeners, 0);
        lr_f_set_str(l, LR_FN_Name, "PLAINTEXT", 9);
        lr_f_set_str(l, LR_FN_Host, n->adv_host, (int32_t)strlen(n->adv_host));
        lr_f_set_int(l, LR_FN_Port, n->adv_port);
        lr_f_set_int(l, LR_FN_SecurityProtocol, 0);
    }
    if (n->rack[0])
        lr_f_set_str(r, LR_FN_Rack, n->rack, (int32_t)strlen(n->rack));
    else
        logrep_struct_set_null(r, lr_fid(r, LR_FN_Rack));
    lr_f_set_int(r, LR_FN_PreviousBrokerEpoch, n->previous_clean_epoch);
    if (lr_node_send_request(n, c, LR_OUT_REGISTER, NULL, now_ms) == 0)
        n->registering = 1;
}

static void send_heartbeat(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = controller(n);
    if (!peer_ready(c, now_ms) || start(n, LOGREP_API_BROKER_HEARTBEAT, 1) != 0)
        return;
    logrep_struct *r = logrep_msg_root(n->out);
    lr_f_set_int(r, LR_FN_BrokerId, n->id);
    lr_f_set_int(r, LR_FN_BrokerEpoch, n->broker_epoch);
    int64_t offset = lr_md_next_offset(n->img) - 1;
    lr_f_set_int(r, LR_FN_CurrentMetadataOffset, offset);
    lr_f_set_int(r, LR_FN_WantFence, 0);
    lr_f_set_int(r, LR_FN_WantShutDown, n->shutting_down);
    if (lr_node_send_request(n, c, LR_OUT_HEARTBEAT, NULL, now_ms) == 0) {
        n->heartbeat_in_flight = 1;
        n->last_heartbeat = now_ms;
        n->hb_offset = offset;
    }
}

static void send_metadata_fetch(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = lr_node_peer(n, n->ctl_id, LR_CH_METADATA);
    if (!peer_ready(c, now_ms) || start(n, LOGREP_API_FETCH, LR_PEER_FETCH_VERSION) != 0)
        return;
    logrep_struct *r = logrep_msg_root(n->out);
    logrep_struct *rs;
    logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs);
    lr_f_set_int(rs, LR_FN_ReplicaId, -1);
    lr_f_set_int(rs, LR_FN_ReplicaEpoch, n->broker_epoch);
    lr_f_set_int(r, LR_FN_MaxWaitMs, 500);
    lr_f_set_int(r, LR_FN_MinBytes, 1);
    lr_f_set_int(r, LR_FN_MaxBytes, 8 << 20);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    logrep_struct_set_uuid(t, lr_fid(t, LR_FN_TopicId), metadata_topic_id);
    lr_f_set_count(t, LR_FN_Partitions, 1);
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    lr_f_set_int(p, LR_FN_Partition, 0);
    lr_f_set_int(p, LR_FN_FetchOffset, lr_md_next_offset(n->img));
    lr_f_set_int(p, LR_FN_PartitionMaxBytes, 8 << 20);
    if (lr_node_send_request(n, c, LR_OUT_METADATA_FETCH, NULL, now_ms) == 0)
        n->md_fetching = 1;
}

/* One Fetch per leader, covering every partition following it. */
static void send_replica_fetches(logrep_node *n, int64_t now_ms)
{
    for (size_t i = 0; i < n->n_parts; i++) {
        lr_follower_fetch probe;
        lr_partition *rep = n->parts[i].rep;
        if (lr_partition_role(rep) != LR_ROLE_FOLLOWER || n->parts[i].fetch_after > now_ms)
            continue;
        /* Find this partition's leader peer; skip when a fetch is out. */
        const lr_md_topic *t = lr_md_topic_by_id(n->img, n->parts[i].topic_id);
        const lr_md_partition *mp = t ? lr_md_partition_get(t, n->parts[i].index) : NULL;
        if (!mp || mp->leader < 0 || mp->leader == n->id)
            continue;
        lr_peer *peer = lr_node_peer(n, mp->leader, LR_CH_REPLICA);
        if (!peer_ready(peer, now_ms) || peer->fetch_in_flight)
            continue;
        /* Gather every follower partition of this leader. */
        size_t cap = 0;
        for (size_t j = i; j < n->n_parts; j++)
            cap++;
        fetch_ctx *fc = lr_malloc(&n->alloc, sizeof *fc + cap * sizeof fc->p[0]);
        if (!fc)
            return;
        fc->n = 0;
        fc->cap = (int32_t)cap;
        for (size_t j = i; j < n->n_parts; j++) {
            const lr_md_topic *tj = lr_md_topic_by_id(n->img, n->parts[j].topic_id);
            const lr_md_partition *mj = tj ? lr_md_partition_get(tj, n->parts[j].index) : NULL;
            if (!mj || mj->leader != mp->leader || n->parts[j].fetch_after > now_ms)
                continue;
            if (lr_partition_follower_fetch(n->parts[j].rep, &probe) != 0)
                continue;
            memcpy(fc->p[fc->n].topic_id, n->parts[j].topic_id, 16);
            fc->p[fc->n].index = n->parts[j].index;
            fc->p[fc->n].ff = probe;
            fc->n++;
        }
        if (fc->n == 0 || start(n, LOGREP_API_FETCH, LR_PEER_FETCH_VERSION) != 0) {
            lr_free(&n->alloc, fc, sizeof *fc + cap * sizeof fc->p[0]);
            continue;
        }
        logrep_struct *r = logrep_msg_root(n->out);
        logrep_struct *rs;
        logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs);
        lr_f_set_int(rs, LR_FN_ReplicaId, n->id);
        lr_f_set_int(rs, LR_FN_ReplicaEpoch, n->broker_epoch);
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
        if (lr_node_send_request(n, peer, LR_OUT_REPLICA_FETCH, fc, now_ms) == 0) {
            peer->fetch_in_flight = 1;
        } else {
            for (int32_t k = 0; k < fc->n; k++) {
                lr_npart *p = lr_node_part_by_id(n, fc->p[k].topic_id, fc->p[k].index);
                if (p)
                    lr_partition_follower_fetch_failed(p->rep);
            }
            lr_free(&n->alloc, fc, sizeof *fc + cap * sizeof fc->p[0]);
        }
    }
}

static void send_alters(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = controller(n);
    for (size_t i = 0; i < n->n_parts; i++) {
        lr_alter_req a;
        if (!peer_ready(c, now_ms) || !lr_partition_take_alter(n->parts[i].rep, &a, now_ms))
            continue;
        alter_ctx *ac = lr_malloc(&n->alloc, sizeof *ac);
        if (!ac || start(n, LOGREP_API_ALTER_PARTITION, 3) != 0) {
            lr_free(&n->alloc, ac, sizeof *ac);
            lr_partition_alter_done(n->parts[i].rep, LOGREP_ERR__NOMEM, 0, NULL, 0, now_ms);
            continue;
        }
        memcpy(ac->topic_id, n->parts[i].topic_id, 16);
        ac->index = n->parts[i].index;
        logrep_struct *r = logrep_msg_root(n->out);
        lr_f_set_int(r, LR_FN_BrokerId, n->id);
        lr_f_set_int(r, LR_FN_BrokerEpoch, n->broker_epoch);
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
            lr_f_set_int(b, LR_FN_BrokerEpoch, a.isr[k] == n->id ? n->broker_epoch : a.broker_epochs[k]);
        }
        if (lr_node_send_request(n, c, LR_OUT_ALTER_PARTITION, ac, now_ms) != 0) {
            lr_free(&n->alloc, ac, sizeof *ac);
            lr_partition_alter_done(n->parts[i].rep, LOGREP_ERR__IO, 0, NULL, 0, now_ms);
        }
    }
}

int lr_node_forward_create(logrep_node *n, const char *name, int32_t partitions, int16_t rf,
                           int64_t now_ms)
{
    lr_peer *c = controller(n);
    if (!peer_ready(c, now_ms) || start(n, LOGREP_API_CREATE_TOPICS, 5) != 0)
        return LOGREP_ERR__AGAIN;
    logrep_struct *r = logrep_msg_root(n->out);
    lr_f_set_int(r, LR_FN_timeoutMs, 30000);
    lr_f_set_count(r, LR_FN_Topics, 1);
    logrep_struct *t = lr_f_elem(r, LR_FN_Topics, 0);
    lr_f_set_str(t, LR_FN_Name, name, (int32_t)strlen(name));
    lr_f_set_int(t, LR_FN_NumPartitions, partitions);
    lr_f_set_int(t, LR_FN_ReplicationFactor, rf);
    return lr_node_send_request(n, c, LR_OUT_CREATE_TOPICS, NULL, now_ms);
}

int lr_node_forward_admin(logrep_node *n, const uint8_t *frame, size_t len, void *d,
                          int64_t now_ms)
{
    lr_peer *c = controller(n);
    /* The client's request goes as is (its correlation id included):
     * responses on the controller connection come back in order. */
    int err = logrep_msg_decode_request(n->out, frame, len);
    if (!err)
        err = lr_node_send_request(n, c, LR_OUT_CREATE_TOPICS, d, now_ms);
    return err;
}

int lr_node_take_producer_id(logrep_node *n, int64_t now_ms, int64_t *pid)
{
    if (n->pid_next < n->pid_end) {
        *pid = n->pid_next++;
        return 0;
    }
    if (!n->pid_requesting && n->broker_epoch >= 0) {
        lr_peer *c = controller(n);
        if (peer_ready(c, now_ms) && start(n, LOGREP_API_ALLOCATE_PRODUCER_IDS, 0) == 0) {
            logrep_struct *r = logrep_msg_root(n->out);
            lr_f_set_int(r, LR_FN_BrokerId, n->id);
            lr_f_set_int(r, LR_FN_BrokerEpoch, n->broker_epoch);
            if (lr_node_send_request(n, c, LR_OUT_ALLOCATE_PIDS, NULL, now_ms) == 0)
                n->pid_requesting = 1;
        }
    }
    return LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
}

/* ------------------------------------------------------------ clean shutdown marker */

static void marker_path(logrep_node *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s/.kafka_cleanshutdown", n->log_dir);
}

static void write_clean_marker(logrep_node *n)
{
    char path[1024], body[96];
    marker_path(n, path, sizeof path);
    int len = snprintf(body, sizeof body, "{\"version\":0,\"brokerEpoch\":%lld}", (long long)n->broker_epoch);
    logrep_file *f;
    if (n->st->open(n->st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f) != LOGREP_OK)
        return;
    n->st->truncate(n->st->ctx, f, 0);
    n->st->write(n->st->ctx, f, 0, body, (size_t)len);
    n->st->sync(n->st->ctx, f);
    n->st->close(n->st->ctx, f);
    if (n->st->sync_dir)
        n->st->sync_dir(n->st->ctx, n->log_dir);
}

/* Reads and removes the marker: its broker epoch proves a clean restart. */
static void read_clean_marker(logrep_node *n)
{
    char path[1024], body[128];
    marker_path(n, path, sizeof path);
    logrep_file *f;
    if (n->st->open(n->st->ctx, path, LOGREP_OPEN_READ, &f) != LOGREP_OK)
        return;
    size_t got = 0;
    n->st->read(n->st->ctx, f, 0, body, sizeof body - 1, &got);
    n->st->close(n->st->ctx, f);
    body[got] = 0;
    const char *e = strstr(body, "\"brokerEpoch\":");
    if (e)
        n->previous_clean_epoch = strtoll(e + 14, NULL, 10);
    n->st->remove(n->st->ctx, path);
}

/* ------------------------------------------------------------ tick */

void lr_broker_tick(logrep_node *n, int64_t now_ms)
{
    if (!n->is_broker)
        return;
    if (n->broker_epoch < 0 && !n->registering) {
        if (n->previous_clean_epoch < 0)
            read_clean_marker(n);
        send_registration(n, now_ms);
        return;
    }
    if (n->broker_epoch < 0)
        return;
    int64_t hb = lr_conf_int(n->conf, LR_CONF_BROKER_HEARTBEAT_INTERVAL_MS);
    /* A fenced broker reports each metadata step at once: it is unfenced
     * (and its partitions get leaders) as soon as it has caught up, not a
     * heartbeat interval later. */
    int caught_up_news = n->fenced && lr_md_next_offset(n->img) - 1 > n->hb_offset;
    if (!n->heartbeat_in_flight &&
        (now_ms - n->last_heartbeat >= hb || n->shutting_down || caught_up_news))
        send_heartbeat(n, now_ms);
    if (!n->md_fetching && now_ms >= n->md_fetch_after)
        send_metadata_fetch(n, now_ms);
    broker_maybe_apply(n, now_ms);
    if (!n->shutdown_done) {
        send_replica_fetches(n, now_ms);
        send_alters(n, now_ms);
    }
}

/* A peer's existing entry (the deadline creates none). */
static const lr_peer *peer_find(const logrep_node *n, int32_t id, int channel)
{
    for (const lr_peer *p = n->peers; p; p = p->next)
        if (p->node_id == id && p->channel == channel)
            return p;
    return NULL;
}

/* t, but not before the peer may be asked again. */
static int64_t after_backoff(const lr_peer *p, int64_t t)
{
    return p && p->backoff_until > t ? p->backoff_until : t;
}

int64_t lr_broker_deadline(logrep_node *n, int64_t now_ms)
{
    if (!n->is_broker)
        return INT64_MAX;
    const lr_peer *ctl = peer_find(n, n->ctl_id, LR_CH_CONTROL);
    if (n->broker_epoch < 0)
        return n->registering ? INT64_MAX : after_backoff(ctl, now_ms);
    int64_t next = INT64_MAX;
    if (!n->heartbeat_in_flight) {
        int64_t hb = n->last_heartbeat + lr_conf_int(n->conf, LR_CONF_BROKER_HEARTBEAT_INTERVAL_MS);
        if (n->shutting_down || (n->fenced && lr_md_next_offset(n->img) - 1 > n->hb_offset))
            hb = now_ms;
        next = after_backoff(ctl, hb);
    }
    if (!n->md_fetching) {
        int64_t t = after_backoff(ctl, n->md_fetch_after);
        next = t < next ? t : next;
    }
    /* Opens left for later, or a storage error: soon, without spinning. */
    if (n->md_apply_retry) {
        int64_t t = n->md_apply_after > now_ms + 10 ? n->md_apply_after : now_ms + 10;
        next = t < next ? t : next;
    }
    for (size_t i = 0; !n->shutdown_done && i < n->n_parts; i++) {
        const lr_npart *p = &n->parts[i];
        if (lr_partition_role(p->rep) != LR_ROLE_FOLLOWER)
            continue;
        const lr_md_topic *t = lr_md_topic_by_id(n->img, p->topic_id);
        const lr_md_partition *mp = t ? lr_md_partition_get(t, p->index) : NULL;
        if (!mp || mp->leader < 0 || mp->leader == n->id)
            continue;
        const lr_peer *peer = peer_find(n, mp->leader, LR_CH_REPLICA);
        if (peer && peer->fetch_in_flight)
            continue; /* its answer is an event */
        int64_t at = after_backoff(peer, p->fetch_after);
        next = at < next ? at : next;
    }
    return next < now_ms ? now_ms : next;
}

/* ------------------------------------------------------------ responses */

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
    logrep_struct *rs = logrep_msg_root(n->in);
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
            LR_LOG(&n->logger, LOGREP_LOG_WARN, "replica", "%s-%d: applying fetched data: %s",
                   p->topic, p->index, logrep_err_name(err));
            /* Not again at once: the leader would answer at once, the
             * same data, failing the same way. */
            p->fetch_after = now_ms + lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_BACKOFF_MS);
        }
        lr_node_part_changed(n, p);
    }
}

static void alter_done(logrep_node *n, alter_ctx *ac, int64_t now_ms)
{
    lr_npart *p = lr_node_part_by_id(n, ac->topic_id, ac->index);
    if (!p)
        return;
    logrep_struct *rs = logrep_msg_root(n->in);
    logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
    logrep_struct *t = lr_f_count(rs, LR_FN_Topics) > 0 ? lr_f_elem(rs, LR_FN_Topics, 0) : NULL;
    logrep_struct *pe = t && lr_f_count(t, LR_FN_Partitions) > 0 ? lr_f_elem(t, LR_FN_Partitions, 0) : NULL;
    if (!pe) {
        lr_partition_alter_done(p->rep, err ? err : LOGREP_ERR__CORRUPT, 0, NULL, 0, now_ms);
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
    lr_partition_alter_done(p->rep, err, (int32_t)lr_f_int(pe, LR_FN_PartitionEpoch), isr, n_isr, now_ms);
    lr_node_part_changed(n, p); /* an ISR change can move the HW */
}

int lr_broker_response(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    logrep_struct *rs = logrep_msg_root(n->in);
    switch (o->kind) {
    case LR_OUT_REGISTER: {
        n->registering = 0;
        logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
        if (err) {
            LR_LOG(&n->logger, LOGREP_LOG_WARN, "node", "registration refused: %s", logrep_err_name(err));
            p->backoff_until = now_ms + 1000;
            return 0;
        }
        n->broker_epoch = lr_f_int(rs, LR_FN_BrokerEpoch);
        n->last_heartbeat = 0;
        n->fenced = 1; /* a new registration starts fenced */
        n->hb_offset = -1;
        LR_LOG(&n->logger, LOGREP_LOG_INFO, "node", "registered with broker epoch %lld",
               (long long)n->broker_epoch);
        return 0;
    }
    case LR_OUT_HEARTBEAT: {
        n->heartbeat_in_flight = 0;
        logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
        if (err == LOGREP_ERR_STALE_BROKER_EPOCH || err == LOGREP_ERR_BROKER_ID_NOT_REGISTERED) {
            n->broker_epoch = -1; /* the controller lost us: register again */
            return 0;
        }
        if (!err) {
            n->fenced = (int)lr_f_int(rs, LR_FN_IsFenced);
            if (n->shutting_down && lr_f_int(rs, LR_FN_ShouldShutDown)) {
                for (size_t i = 0; i < n->n_parts; i++)
                    logrep_log_flush(lr_partition_log(n->parts[i].rep), now_ms);
                write_clean_marker(n);
                n->shutdown_done = 1;
            }
        }
        return 0;
    }
    case LR_OUT_METADATA_FETCH: {
        n->md_fetching = 0;
        logrep_struct *t = lr_f_count(rs, LR_FN_Responses) > 0 ? lr_f_elem(rs, LR_FN_Responses, 0) : NULL;
        logrep_struct *pe = t && lr_f_count(t, LR_FN_Partitions) > 0 ? lr_f_elem(t, LR_FN_Partitions, 0) : NULL;
        const uint8_t *recs = NULL;
        int32_t rlen = 0;
        if (pe && !lr_f_int(pe, LR_FN_ErrorCode))
            logrep_struct_bytes(pe, lr_fid(pe, LR_FN_Records), &recs, &rlen);
        else /* a stopped controller answers at once: not again at once */
            n->md_fetch_after = now_ms + 100;
        if (rlen > 0 && apply_record_set(n, recs, (size_t)rlen, now_ms) != 0)
            n->md_fetch_after = now_ms + 100;
        return 0;
    }
    case LR_OUT_REPLICA_FETCH:
        p->fetch_in_flight = 0;
        replica_fetch_done(n, o->ctx, now_ms);
        lr_free(&n->alloc, o->ctx, sizeof(fetch_ctx) + (size_t)((fetch_ctx *)o->ctx)->cap * sizeof(((fetch_ctx *)0)->p[0]));
        return 0;
    case LR_OUT_ALTER_PARTITION:
        alter_done(n, o->ctx, now_ms);
        lr_free(&n->alloc, o->ctx, sizeof(alter_ctx));
        return 0;
    case LR_OUT_CREATE_TOPICS:
        if (o->ctx)
            lr_node_admin_done(n, o->ctx, now_ms);
        return 0;
    case LR_OUT_ALLOCATE_PIDS:
        n->pid_requesting = 0;
        if (!lr_f_int(rs, LR_FN_ErrorCode)) {
            n->pid_next = lr_f_int(rs, LR_FN_ProducerIdStart);
            n->pid_end = n->pid_next + lr_f_int(rs, LR_FN_ProducerIdLen);
        }
        return 0;
    }
    return 0;
}

void lr_broker_request_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)now_ms;
    switch (o->kind) {
    case LR_OUT_REGISTER:
        n->registering = 0;
        break;
    case LR_OUT_HEARTBEAT:
        n->heartbeat_in_flight = 0;
        break;
    case LR_OUT_METADATA_FETCH:
        n->md_fetching = 0;
        break;
    case LR_OUT_REPLICA_FETCH: {
        fetch_ctx *fc = o->ctx;
        p->fetch_in_flight = 0;
        for (int32_t k = 0; k < fc->n; k++) {
            lr_npart *np = lr_node_part_by_id(n, fc->p[k].topic_id, fc->p[k].index);
            if (np) {
                lr_partition_follower_fetch_failed(np->rep);
                np->fetch_after = now_ms + lr_conf_int(n->conf, LR_CONF_REPLICA_FETCH_BACKOFF_MS);
            }
        }
        lr_free(&n->alloc, fc, sizeof *fc + (size_t)fc->cap * sizeof fc->p[0]);
        break;
    }
    case LR_OUT_ALTER_PARTITION: {
        alter_ctx *ac = o->ctx;
        lr_npart *np = lr_node_part_by_id(n, ac->topic_id, ac->index);
        if (np)
            lr_partition_alter_done(np->rep, LOGREP_ERR__IO, 0, NULL, 0, now_ms);
        lr_free(&n->alloc, ac, sizeof *ac);
        break;
    }
    case LR_OUT_ALLOCATE_PIDS:
        n->pid_requesting = 0;
        break;
    default:
        break;
    }
}
