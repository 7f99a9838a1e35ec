/* Hosted partitions: the table (indexed by topic id and partition),
 * lookups by the names clients send, opening a partition's log with its
 * topic's configs, and bringing the table in line with the metadata image
 * (deleted topics closed and retired, new assignments opened, config and
 * leadership changes applied). */
#include <stdio.h>
#include <string.h>

#include "node/node_int.h"

/* ------------------------------------------------------------ the table */

static int part_eq(const void *ctx, uintptr_t pos, const void *key, size_t len)
{
    const lr_npart *p = &((const logrep_node *)ctx)->parts.v[pos];
    int32_t index;
    if (len != 20)
        return 0;
    memcpy(&index, (const uint8_t *)key + 16, 4);
    return p->index == index && memcmp(p->topic_id, key, 16) == 0;
}

void lr_parts_init(logrep_node *n)
{
    lr_hashmap_init(&n->parts.index, &n->alloc, part_eq, n);
}

/* The index key: topic id, then the partition index in host order. */
#define PART_KEY_LEN 20
static void part_key(uint8_t key[PART_KEY_LEN], const uint8_t id[16], int32_t index)
{
    memcpy(key, id, 16);
    memcpy(key + 16, &index, 4);
}

static int part_indexed(logrep_node *n)
{
    uint8_t key[PART_KEY_LEN];
    const lr_npart *p = &n->parts.v[n->parts.n - 1];
    part_key(key, p->topic_id, p->index);
    return lr_hashmap_put(&n->parts.index, key, sizeof key, n->parts.n - 1);
}

/* Closes parts.v[i] and drops it from the table. */
static void part_remove(logrep_node *n, size_t i)
{
    uint8_t key[PART_KEY_LEN];
    lr_npart *p = &n->parts.v[i], *last = &n->parts.v[n->parts.n - 1];
    part_key(key, p->topic_id, p->index);
    lr_hashmap_del(&n->parts.index, key, sizeof key, NULL);
    if (p != last) {
        /* Replacing a value never allocates, so this cannot fail. */
        part_key(key, last->topic_id, last->index);
        lr_hashmap_put(&n->parts.index, key, sizeof key, i);
    }
    lr_partition_free(p->rep, 0);
    lr_strfree(&n->alloc, p->topic);
    *p = *last;
    n->parts.n--;
}

lr_npart *lr_node_part_by_id(logrep_node *n, const uint8_t id[16], int32_t index)
{
    uint8_t key[PART_KEY_LEN];
    uintptr_t pos;
    part_key(key, id, index);
    return lr_hashmap_get(&n->parts.index, key, sizeof key, &pos) ? &n->parts.v[pos] : NULL;
}

lr_npart *lr_node_part(logrep_node *n, const char *topic, int32_t index)
{
    const lr_md_topic *t = lr_md_topic_by_name(n->md.img, topic);
    lr_npart *p = t ? lr_node_part_by_id(n, t->id, index) : NULL;
    return p && strcmp(p->topic, topic) == 0 ? p : NULL;
}

void lr_parts_free(logrep_node *n, int abandon)
{
    for (size_t i = 0; i < n->parts.n; i++) {
        lr_partition_free(n->parts.v[i].rep, abandon);
        lr_strfree(&n->alloc, n->parts.v[i].topic);
    }
    lr_free(&n->alloc, n->parts.v, n->parts.cap * sizeof *n->parts.v);
    lr_hashmap_free(&n->parts.index);
}

/* ------------------------------------------------------------ names clients send */

/* Copies a client's topic name; 0 when it cannot name a client topic (too
 * long, or the metadata log, which clients never see). */
static int client_name(const char *p, int32_t len, char name[LR_MD_MAX_TOPIC_NAME + 1])
{
    if (!p || len < 0 || len > LR_MD_MAX_TOPIC_NAME)
        return 0;
    memcpy(name, p, (size_t)len);
    name[len] = 0;
    return strcmp(name, LR_METADATA_TOPIC) != 0;
}

const lr_md_topic *lr_topic_named(logrep_node *n, const char *p, int32_t len)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    return client_name(p, len, name) ? lr_md_topic_by_name(n->md.img, name) : NULL;
}

lr_npart *lr_part_named(logrep_node *n, const char *p, int32_t len, int32_t index)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    return client_name(p, len, name) ? lr_node_part(n, name, index) : NULL;
}

/* INVALID_TOPIC_EXCEPTION for a name no topic can have or that would
 * collide with an existing one ('.' and '_' alike), 0 otherwise: such
 * names are refused at once, never auto-created or retried. */
int16_t lr_bad_name_error(logrep_node *n, const char *p, int32_t len)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    lr_md_str s = {p, len};
    if (!client_name(p, len, name) || !lr_md_topic_name_legal(s) ||
        (!lr_md_topic_by_name(n->md.img, name) && lr_md_topic_collision(n->md.img, name)))
        return LOGREP_ERR_INVALID_TOPIC_EXCEPTION;
    return 0;
}

/* Error for a partition this node does not host. */
int16_t lr_missing_part_error(logrep_node *n, const char *topic, int32_t len, int32_t index)
{
    int16_t bad = lr_bad_name_error(n, topic, len);
    if (bad)
        return bad;
    const lr_md_topic *t = lr_topic_named(n, topic, len);
    if (!t || index < 0 || index >= t->n_parts)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
}

/* ------------------------------------------------------------ opening */

/* Topic-level configs a partition applies (Kafka's LogConfig), by the
 * names the log (and, for compression, the produce path) reads from its
 * conf. */
static const char *const log_topic_configs[] = {
    "segment.bytes", "segment.ms", "segment.jitter.ms", "segment.index.bytes",
    "index.interval.bytes", "retention.bytes", "retention.ms", "flush.messages",
    "flush.ms", "max.message.bytes", "message.timestamp.type", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level",
    "cleanup.policy", "min.cleanable.dirty.ratio", "min.compaction.lag.ms",
    "max.compaction.lag.ms", "delete.retention.ms"};
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
            LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "topic %s: %s=%s not applied: %s",
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
    else if (strcmp(ct, "uncompressed") == 0)
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
    if (n->parts.n == n->parts.cap) {
        size_t ncap = n->parts.cap ? n->parts.cap * 2 : 16;
        lr_npart *np = lr_realloc(&n->alloc, n->parts.v, n->parts.cap * sizeof *np, ncap * sizeof *np);
        if (!np)
            return LOGREP_ERR__NOMEM;
        n->parts.v = np;
        n->parts.cap = ncap;
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
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "opening %s: %s", dir, logrep_err_name(err));
        return err;
    }
    if (logrep_log_topic_id(log, id) != LOGREP_OK &&
        (err = logrep_log_set_topic_id(log, t->id)) != 0) {
        /* Retried as a failed open. */
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "writing the topic ID of %s: %s", dir,
               logrep_err_name(err));
        logrep_log_close(log);
        return err;
    }
    lr_part_conf pc;
    pc.node_id = n->id;
    pc.min_insync_replicas = lr_md_topic_min_isr(n->md.img, t);
    pc.replica_lag_time_max_ms = lr_conf_int(n->conf, LR_CONF_REPLICA_LAG_TIME_MAX_MS);
    pc.max_message_bytes = max_message_bytes;
    lr_npart *p = &n->parts.v[n->parts.n];
    memset(p, 0, sizeof *p);
    p->topic = lr_strdup(&n->alloc, t->name);
    if (!p->topic || (err = lr_partition_new(&n->alloc, &n->logger, &pc, log, &p->rep)) != 0) {
        lr_strfree(&n->alloc, p->topic);
        logrep_log_close(log);
        return err ? err : LOGREP_ERR__NOMEM;
    }
#ifdef LOGREP_TEST
    const char *bug = lr_conf_str(n->conf, LR_CONF_SIM_BUG);
    if (bug && strcmp(bug, "hw-ignores-isr") == 0)
        lr_partition_set_bug(p->rep, LR_BUG_HW_IGNORES_ISR);
    else if (bug && strcmp(bug, "no-truncate") == 0)
        lr_partition_set_bug(p->rep, LR_BUG_NO_TRUNCATE);
#endif
    memcpy(p->topic_id, t->id, 16);
    p->index = index;
    p->seen_partition_epoch = -1;
    p->conf_hash = topic_conf_hash(t);
    p->fetch_after = 0;
    p->codec = codec.codec;
    p->codec_level = codec.codec_level;
    n->parts.n++;
    if ((err = part_indexed(n)) != 0) {
        n->parts.n--;
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
    for (size_t i = 0; i < n->parts.n;) {
        if (lr_md_topic_by_id(n->md.img, n->parts.v[i].topic_id)) {
            i++;
            continue;
        }
        char *topic = n->parts.v[i].topic;
        n->parts.v[i].topic = NULL;
        uint8_t id[16];
        memcpy(id, n->parts.v[i].topic_id, 16);
        int32_t index = n->parts.v[i].index;
        /* Parked acks=all produces are answered now, not at their timeout. */
        lr_partition_stop(n->parts.v[i].rep, now_ms);
        lr_produce_collect_part(n, &n->parts.v[i]);
        part_remove(n, i);
        lr_dirs_retire(n, topic, index, id, now_ms);
        lr_strfree(&n->alloc, topic);
        lr_node_part_changed(n, NULL); /* indexes into the partitions moved */
    }
}

/* Brings hosted partitions in line with the image: opens newly assigned
 * ones and applies leader/ISR changes. */
void lr_parts_apply(logrep_node *n, int64_t now_ms)
{
    n->parts.applies++;
    /* Opening a log is storage work (recovery, files): a topic of
     * thousands of partitions is opened over several ticks so the node
     * keeps answering meanwhile. */
    int opens = LR_OPENS_PER_PASS, failed = 0;
    close_deleted(n, now_ms); /* first: a re-created name reuses the path */
    size_t nt = lr_md_topic_count(n->md.img);
    for (size_t i = 0; i < nt; i++) {
        const lr_md_topic *t = lr_md_topic_at(n->md.img, i);
        uint64_t ch = topic_conf_hash(t);
        for (int32_t k = 0; k < t->n_parts; k++) {
            const lr_md_partition *mp = &t->parts[k];
            if (!lr_md_ids_contains(mp->replicas, mp->n_replicas, n->id))
                continue;
            lr_npart *p = lr_node_part_by_id(n, t->id, k);
            if (!p && opens <= 0) {
                n->md.apply_retry = 1; /* the rest next tick */
                continue;
            }
            if (!p && (opens--, open_part(n, t, k, now_ms, &p)) != 0) {
                n->md.apply_retry = failed = 1; /* a storage error: try again soon */
                continue;
            }
            lr_partition_set_min_isr(p->rep, lr_md_topic_min_isr(n->md.img, t), now_ms);
            if (ch != p->conf_hash) {
                /* A ConfigRecord changed the topic: the open log takes it. */
                logrep_conf *tc = topic_conf(n, t);
                if (tc && logrep_log_reconfigure(lr_partition_log(p->rep), tc) == 0) {
                    part_codec(p, tc);
                    p->conf_hash = ch;
                }
                else
                    n->md.apply_retry = 1;
                logrep_conf_free(tc);
            }
            /* Fencing changes a replica's eligibility without changing
             * the partition when it is out of the ISR already. */
            uint32_t mask = 0;
            for (int32_t r = 0; r < mp->n_replicas && r < 32; r++) {
                const lr_md_broker *b = lr_md_broker_get(n->md.img, mp->replicas[r]);
                if (!b || b->fenced || b->in_controlled_shutdown)
                    mask |= UINT32_C(1) << r;
            }
            if (p->seen_partition_epoch == mp->partition_epoch && p->ineligible == mask)
                continue;
            lr_part_meta m;
            memset(&m, 0, sizeof m);
            m.leader = mp->leader;
            m.leader_epoch = mp->leader_epoch;
            m.partition_epoch = mp->partition_epoch;
            m.n_replicas = mp->n_replicas > LR_MAX_REPLICAS ? LR_MAX_REPLICAS : mp->n_replicas;
            for (int32_t r = 0; r < m.n_replicas; r++) {
                m.replicas[r] = mp->replicas[r];
                const lr_md_broker *b = lr_md_broker_get(n->md.img, mp->replicas[r]);
                m.racks[r] = b && b->rack ? b->rack : "";
                m.ineligible[r] = r < 32 && (mask >> r & 1);
            }
            m.n_isr = mp->n_isr > LR_MAX_REPLICAS ? LR_MAX_REPLICAS : mp->n_isr;
            memcpy(m.isr, mp->isr, (size_t)m.n_isr * sizeof *m.isr);
            int aerr = lr_partition_apply(p->rep, &m, now_ms);
            if (aerr == 0) {
                p->seen_partition_epoch = mp->partition_epoch;
                p->ineligible = mask;
                p->fetch_after = 0; /* a new leader is asked at once */
            } else {
                LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "%s-%d: leader epoch %d: %s",
                       p->topic, p->index, m.leader_epoch, logrep_err_name(aerr));
                n->md.apply_retry = failed = 1;
            }
            lr_node_part_changed(n, p);
        }
    }
    /* A failing disk is not retried on every event (each retry reopens
     * logs and logs its error). */
    if (failed)
        n->md.apply_after = now_ms + 100;
    if (!n->dirs.strays_scanned && !n->md.apply_retry)
        lr_dirs_scan_strays(n, now_ms);
}


/* ------------------------------------------------------------ ticks */

void lr_parts_tick(logrep_node *n, int64_t now_ms, int64_t *next)
{
    /* Kafka's LogManager cleanup task, driven by the host's clock. */
    int retention = now_ms >= n->next_retention_ms;
    if (retention)
        n->next_retention_ms =
            now_ms + lr_conf_int(n->conf, LR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
    if (n->parts.n && n->next_retention_ms < *next)
        *next = n->next_retention_ms;
    for (size_t i = 0; i < n->parts.n; i++) {
        lr_npart *p = &n->parts.v[i];
        lr_partition_tick(p->rep, now_ms);
        int64_t log_next = INT64_MAX;
        /* A failure is tried again a flush or checkpoint period later. */
        logrep_err lerr = logrep_log_tick(lr_partition_log(p->rep), now_ms, &log_next);
        if (lerr)
            LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "%s-%d: flush or checkpoint failed: %s",
                   p->topic, p->index, logrep_err_name(lerr));
        if (log_next < *next)
            *next = log_next;
        int32_t deleted = 0;
        if (retention && lr_partition_retention(p->rep, now_ms, &deleted) != 0)
            LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "retention of %s-%d failed", p->topic,
                   p->index);
        if (deleted) {
            n->stats.segments_deleted += deleted;
            lr_node_part_changed(n, p);
        }
    }
}

int64_t lr_parts_deadline(const logrep_node *n, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < n->parts.n; i++) {
        int64_t t = lr_partition_deadline(n->parts.v[i].rep, now_ms);
        if (t < next)
            next = t;
    }
    return next;
}
