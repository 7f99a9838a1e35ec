/* Client and peer requests served by a broker: ApiVersions, Metadata,
 * Produce, Fetch (consumers and followers, with long-poll), ListOffsets,
 * OffsetForLeaderEpoch, InitProducerId, CreateTopics/DeleteTopics
 * (forwarded to the controller), DescribeConfigs. Requests that must wait
 * (acks=all produce, long-poll fetch, forwarded admin calls) become
 * deferred entries that keep their connection's response slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"

/* A deferred request. Produce keeps per-partition results; fetch and
 * forwarded admin requests keep a copy of the request frame and are
 * answered by running the handler again. */
typedef struct presult {
    char *topic;
    int32_t partition;
    lr_produce_res res;
    uint64_t token;   /* 0: answered */
} presult;

/* The partitions a parked fetch reads (indexes into the node's
 * partitions), so that it runs again only when one of them changes. */
typedef struct fetch_track {
    int32_t *idx;
    int32_t n, cap;
    int any;              /* not tracked (no memory): any change wakes it */
    int md;               /* reads the controller's metadata log */
} fetch_track;

typedef struct lr_deferred {
    struct lr_deferred *next;
    lr_conn *conn;
    lr_slot *slot;
    int kind;
    int64_t deadline;
    int16_t version;
    int16_t api_key;
    int32_t correlation_id;
    presult *results;
    int32_t n_results;
    int32_t outstanding;
    uint8_t *frame;       /* fetch / admin: the request, copied */
    size_t frame_len;
    logrep_msg *req;      /* fetch: decoded once, viewing frame */
    fetch_track track;    /* fetch: what wakes it */
    uint64_t seen_seq;    /* fetch: the node's change_seq at its last run */
    int admin_done;       /* forwarded admin: the controller answered */
    int16_t admin_error;
} lr_deferred;

/* Records read into memory for storages without file descriptors; freed
 * once the response is encoded. */
typedef struct tmpbuf {
    struct tmpbuf *next;
    size_t len;
    uint8_t data[];
} tmpbuf;

/* ------------------------------------------------------------ helpers */

static int err_code(logrep_err e)
{
    if (e > 0 || e == LOGREP_ERR_UNKNOWN_SERVER_ERROR)
        return e;
    if (e == LOGREP_OK)
        return 0;
    return LOGREP_ERR_UNKNOWN_SERVER_ERROR;
}

static void tmp_free(logrep_node *n, tmpbuf **list)
{
    while (*list) {
        tmpbuf *t = *list;
        *list = t->next;
        lr_free(&n->alloc, t, sizeof *t + t->len);
    }
}

static int respond_now(logrep_node *n, lr_conn *c, tmpbuf **tmps)
{
    lr_slot *s = lr_node_slot(n, c);
    int err = s ? lr_node_finish(n, c, s, n->resp) : LOGREP_ERR__NOMEM;
    tmp_free(n, tmps);
    return err;
}

static int init_resp(logrep_node *n)
{
    return logrep_msg_init_response_to(n->resp, n->req);
}

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

static const lr_md_topic *topic_named(logrep_node *n, const char *p, int32_t len)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    return client_name(p, len, name) ? lr_md_topic_by_name(n->img, name) : NULL;
}

static lr_npart *part_named(logrep_node *n, const char *p, int32_t len, int32_t index)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    return client_name(p, len, name) ? lr_node_part(n, name, index) : NULL;
}

/* INVALID_TOPIC_EXCEPTION for a name no topic can have or that would
 * collide with an existing one ('.' and '_' alike), 0 otherwise: such
 * names are refused at once, never auto-created or retried. */
static int16_t bad_name_error(logrep_node *n, const char *p, int32_t len)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    lr_md_str s = {p, len};
    if (!client_name(p, len, name) || !lr_md_topic_name_legal(s) ||
        (!lr_md_topic_by_name(n->img, name) && lr_md_topic_collision(n->img, name)))
        return LOGREP_ERR_INVALID_TOPIC_EXCEPTION;
    return 0;
}

/* Error for a partition this node does not host. */
static int16_t missing_part_error(logrep_node *n, const char *topic, int32_t len, int32_t index)
{
    int16_t bad = bad_name_error(n, topic, len);
    if (bad)
        return bad;
    const lr_md_topic *t = topic_named(n, topic, len);
    if (!t || index < 0 || index >= t->n_parts)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    return LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
}

/* ------------------------------------------------------------ ApiVersions */

static int handle_api_versions(logrep_node *n, lr_conn *c)
{
    tmpbuf *tmps = NULL;
    int err = init_resp(n);
    if (!err)
        err = lr_node_fill_api_versions(n, c);
    if (err)
        return err;
    return respond_now(n, c, &tmps);
}

/* ------------------------------------------------------------ Metadata */

static void fill_partition(logrep_node *n, logrep_struct *pe, int32_t index,
                           const lr_md_partition *mp)
{
    (void)n;
    lr_f_set_int(pe, LR_FN_PartitionIndex, index);
    lr_f_set_int(pe, LR_FN_ErrorCode, mp->leader < 0 ? LOGREP_ERR_LEADER_NOT_AVAILABLE : 0);
    lr_f_set_int(pe, LR_FN_LeaderId, mp->leader);
    lr_f_set_int(pe, LR_FN_LeaderEpoch, mp->leader_epoch);
    int fr = lr_fid(pe, LR_FN_ReplicaNodes);
    int fi = lr_fid(pe, LR_FN_IsrNodes);
    int fo = lr_fid(pe, LR_FN_OfflineReplicas);
    logrep_struct_set_count(pe, fr, mp->n_replicas);
    for (int32_t i = 0; i < mp->n_replicas; i++)
        logrep_struct_set_elem_int(pe, fr, i, mp->replicas[i]);
    logrep_struct_set_count(pe, fi, mp->n_isr);
    for (int32_t i = 0; i < mp->n_isr; i++)
        logrep_struct_set_elem_int(pe, fi, i, mp->isr[i]);
    int32_t off = 0;
    for (int32_t i = 0; i < mp->n_replicas; i++) {
        const lr_md_broker *b = lr_md_broker_get(n->img, mp->replicas[i]);
        if (!b || b->fenced)
            off++;
    }
    logrep_struct_set_count(pe, fo, off);
    off = 0;
    for (int32_t i = 0; i < mp->n_replicas; i++) {
        const lr_md_broker *b = lr_md_broker_get(n->img, mp->replicas[i]);
        if (!b || b->fenced)
            logrep_struct_set_elem_int(pe, fo, off++, mp->replicas[i]);
    }
}

static void fill_topic(logrep_node *n, logrep_struct *te, const lr_md_topic *t)
{
    lr_f_set_int(te, LR_FN_ErrorCode, 0);
    lr_f_set_str(te, LR_FN_Name, t->name, (int32_t)strlen(t->name));
    logrep_struct_set_uuid(te, lr_fid(te, LR_FN_TopicId), t->id);
    lr_f_set_int(te, LR_FN_IsInternal, t->name[0] == '_' && t->name[1] == '_');
    lr_f_set_count(te, LR_FN_Partitions, t->n_parts);
    for (int32_t i = 0; i < t->n_parts; i++)
        fill_partition(n, lr_f_elem(te, LR_FN_Partitions, i), i, &t->parts[i]);
}

static int handle_metadata(logrep_node *n, lr_conn *c, int64_t now_ms)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int err = init_resp(n);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(n->resp);
    char cid[128];
    logrep_conf_get(n->conf, "logrep.cluster.id", cid, sizeof cid, NULL);
    lr_f_set_str(rs, LR_FN_ClusterId, cid, (int32_t)strlen(cid));
    lr_f_set_int(rs, LR_FN_ControllerId, n->ctl_id);
    size_t nb = lr_md_broker_count(n->img), live = 0;
    for (size_t i = 0; i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(n->img, i);
        if (!b->fenced && b->n_endpoints)
            live++;
    }
    lr_f_set_count(rs, LR_FN_Brokers, (int32_t)live);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(n->img, i);
        if (b->fenced || !b->n_endpoints)
            continue;
        logrep_struct *be = lr_f_elem(rs, LR_FN_Brokers, (int32_t)k++);
        lr_f_set_int(be, LR_FN_NodeId, b->id);
        lr_f_set_str(be, LR_FN_Host, b->endpoints[0].host, (int32_t)strlen(b->endpoints[0].host));
        lr_f_set_int(be, LR_FN_Port, b->endpoints[0].port);
        if (b->rack)
            lr_f_set_str(be, LR_FN_Rack, b->rack, (int32_t)strlen(b->rack));
        else
            logrep_struct_set_null(be, lr_fid(be, LR_FN_Rack));
    }
    int ft = lr_fid(rq, LR_FN_Topics);
    /* v0 had no null: an empty list meant every topic. */
    if (logrep_struct_is_null(rq, ft) ||
        (logrep_msg_version(n->req) == 0 && logrep_struct_count(rq, ft) == 0)) {
        /* All topics. */
        size_t nt = lr_md_topic_count(n->img), shown = 0;
        for (size_t i = 0; i < nt; i++)
            shown += strcmp(lr_md_topic_at(n->img, i)->name, LR_METADATA_TOPIC) != 0;
        lr_f_set_count(rs, LR_FN_Topics, (int32_t)shown);
        for (size_t i = 0, j = 0; i < nt; i++) {
            const lr_md_topic *t = lr_md_topic_at(n->img, i);
            if (strcmp(t->name, LR_METADATA_TOPIC) != 0) /* left by older versions */
                fill_topic(n, lr_f_elem(rs, LR_FN_Topics, (int32_t)j++), t);
        }
    } else {
        int32_t cnt = logrep_struct_count(rq, ft);
        lr_f_set_count(rs, LR_FN_Topics, cnt);
        int autocreate = lr_conf_int(n->conf, LR_CONF_AUTO_CREATE_TOPICS) &&
                         (logrep_msg_version(n->req) < 4 || lr_f_int(rq, LR_FN_AllowAutoTopicCreation));
        for (int32_t i = 0; i < cnt; i++) {
            logrep_struct *qt = logrep_struct_elem(rq, ft, i);
            logrep_struct *te = lr_f_elem(rs, LR_FN_Topics, i);
            const char *name;
            int32_t len;
            lr_f_str(qt, LR_FN_Name, &name, &len);
            const lr_md_topic *t = name && len >= 0 ? topic_named(n, name, len) : NULL;
            if (!name || len < 0) {
                /* v12: by topic id. */
                const uint8_t *id = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
                t = id ? lr_md_topic_by_id(n->img, id) : NULL;
                if (!t) {
                    lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_ID);
                    logrep_struct_set_uuid(te, lr_fid(te, LR_FN_TopicId), id);
                    logrep_struct_set_null(te, lr_fid(te, LR_FN_Name));
                    continue;
                }
            }
            if (t) {
                fill_topic(n, te, t);
                continue;
            }
            if (name && len >= 0)
                lr_f_set_str(te, LR_FN_Name, name, len);
            int16_t bad = name ? bad_name_error(n, name, len) : 0;
            if (bad) {
                lr_f_set_int(te, LR_FN_ErrorCode, bad);
            } else if (autocreate && name) {
                char tn[LR_MD_MAX_TOPIC_NAME + 1];
                memcpy(tn, name, (size_t)len);
                tn[len] = 0;
                lr_node_forward_create(n, tn, (int32_t)lr_conf_int(n->conf, LR_CONF_NUM_PARTITIONS),
                                       (int16_t)lr_conf_int(n->conf, LR_CONF_DEFAULT_REPLICATION_FACTOR),
                                       now_ms);
                lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_LEADER_NOT_AVAILABLE);
            } else {
                lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
    }
    tmpbuf *tmps = NULL;
    return respond_now(n, c, &tmps);
}

/* ------------------------------------------------------------ Produce */

static lr_deferred *deferred_new(logrep_node *n, lr_conn *c, int kind)
{
    lr_deferred *d = lr_calloc(&n->alloc, 1, sizeof *d);
    if (!d)
        return NULL;
    d->slot = lr_node_slot(n, c);
    if (!d->slot) {
        lr_free(&n->alloc, d, sizeof *d);
        return NULL;
    }
    d->conn = c;
    d->kind = kind;
    d->api_key = (int16_t)logrep_msg_api_key(n->req);
    d->version = (int16_t)logrep_msg_version(n->req);
    d->correlation_id = logrep_msg_correlation_id(n->req);
    d->next = n->deferred;
    n->deferred = d;
    return d;
}

static void deferred_free(logrep_node *n, lr_deferred *d)
{
    for (int32_t i = 0; i < d->n_results; i++)
        lr_strfree(&n->alloc, d->results[i].topic);
    lr_free(&n->alloc, d->results, (size_t)d->n_results * sizeof *d->results);
    lr_free(&n->alloc, d->frame, d->frame_len);
    lr_free(&n->alloc, d->track.idx, (size_t)d->track.cap * sizeof *d->track.idx);
    logrep_msg_free(d->req);
    lr_free(&n->alloc, d, sizeof *d);
}

static void deferred_unlink(logrep_node *n, lr_deferred *d)
{
    lr_deferred **pp = &n->deferred;
    while (*pp && *pp != d)
        pp = &(*pp)->next;
    if (*pp)
        *pp = d->next;
}

/* Builds the produce response from the results. */
static int produce_response(logrep_node *n, int16_t version, int32_t corr, presult *r, int32_t nr)
{
    int err = logrep_msg_init_response(n->resp, LOGREP_API_PRODUCE, version, corr);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(n->resp);
    /* Group by topic, keeping request order. */
    int32_t ntopics = 0;
    for (int32_t i = 0; i < nr; i++)
        if (i == 0 || strcmp(r[i].topic, r[i - 1].topic) != 0)
            ntopics++;
    lr_f_set_count(rs, LR_FN_Responses, ntopics);
    int32_t ti = -1, pi = 0;
    logrep_struct *te = NULL;
    for (int32_t i = 0; i < nr; i++) {
        if (i == 0 || strcmp(r[i].topic, r[i - 1].topic) != 0) {
            te = lr_f_elem(rs, LR_FN_Responses, ++ti);
            lr_f_set_str(te, LR_FN_Name, r[i].topic, (int32_t)strlen(r[i].topic));
            int32_t cnt = 0;
            for (int32_t j = i; j < nr && strcmp(r[j].topic, r[i].topic) == 0; j++)
                cnt++;
            lr_f_set_count(te, LR_FN_PartitionResponses, cnt);
            pi = 0;
        }
        logrep_struct *pe = lr_f_elem(te, LR_FN_PartitionResponses, pi++);
        lr_f_set_int(pe, LR_FN_Index, r[i].partition);
        lr_f_set_int(pe, LR_FN_ErrorCode, err_code(r[i].res.error));
        lr_f_set_int(pe, LR_FN_BaseOffset, r[i].res.error && r[i].res.error !=
                     LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND ? -1 : r[i].res.base_offset);
        lr_f_set_int(pe, LR_FN_LogAppendTimeMs, r[i].res.log_append_time);
        lr_f_set_int(pe, LR_FN_LogStartOffset, r[i].res.log_start_offset);
    }
    return 0;
}

/* compression.type other than producer: the leader rewrites a batch of
 * another codec once, before the append, so followers copy stored bytes.
 * A batch that cannot be rewritten (CRC, corrupt compressed data) goes to
 * the log as sent, whose validation gives Kafka's answer for it. */
static int produce_codec(logrep_node *n, lr_npart *p, const uint8_t *recs, int32_t rlen,
                         const void **out, size_t *out_len)
{
    *out = recs;
    *out_len = (size_t)rlen;
    if (p->codec < 0 || !n->rezip || lr_partition_role(p->rep) != LR_ROLE_LEADER)
        return 0;
    int err = logrep_batch_reader_recompress(n->rezip, recs, (size_t)rlen, p->codec,
                                             p->codec_level, out, out_len);
    if (err == LOGREP_ERR__NOMEM || err == LOGREP_ERR__COMPRESSION)
        return err;
    if (err) {
        *out = recs;
        *out_len = (size_t)rlen;
    }
    return 0;
}

static int handle_produce(logrep_node *n, lr_conn *c, int64_t now_ms)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int16_t acks = (int16_t)lr_f_int(rq, LR_FN_Acks);
    int64_t timeout = lr_f_int(rq, LR_FN_TimeoutMs);
    int32_t nt = lr_f_count(rq, LR_FN_TopicData);
    int32_t total = 0;
    for (int32_t i = 0; i < nt; i++)
        total += lr_f_count(lr_f_elem(rq, LR_FN_TopicData, i), LR_FN_PartitionData);
    presult *res = lr_calloc(&n->alloc, total > 0 ? (size_t)total : 1, sizeof *res);
    if (!res)
        return LOGREP_ERR__NOMEM;
    int32_t k = 0, parked = 0;
    uint64_t base_token = (++n->token_seq) << 20;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *te = lr_f_elem(rq, LR_FN_TopicData, i);
        const char *name;
        int32_t len;
        lr_f_str(te, LR_FN_Name, &name, &len);
        int32_t np = lr_f_count(te, LR_FN_PartitionData);
        for (int32_t j = 0; j < np; j++, k++) {
            logrep_struct *pe = lr_f_elem(te, LR_FN_PartitionData, j);
            int32_t index = (int32_t)lr_f_int(pe, LR_FN_Index);
            presult *r = &res[k];
            r->partition = index;
            r->topic = lr_malloc(&n->alloc, (size_t)(len > 0 ? len : 0) + 1);
            if (r->topic) {
                memcpy(r->topic, name ? name : "", (size_t)(len > 0 ? len : 0));
                r->topic[len > 0 ? len : 0] = 0;
            }
            r->res.base_offset = -1;
            r->res.log_append_time = -1;
            r->res.log_start_offset = -1;
            lr_npart *p = name ? part_named(n, name, len, index) : NULL;
            const uint8_t *recs;
            int32_t rlen;
            logrep_struct_bytes(pe, lr_fid(pe, LR_FN_Records), &recs, &rlen);
            const void *src = NULL;
            size_t slen = 0;
            if (!r->topic) {
                r->res.error = LOGREP_ERR__NOMEM;
            } else if (!p) {
                r->res.error = missing_part_error(n, name, len, index);
            } else if (rlen <= 0) {
                r->res.error = LOGREP_ERR_INVALID_RECORD;
            } else if ((r->res.error = produce_codec(n, p, recs, rlen, &src, &slen)) != 0) {
                /* out of memory or a codec failure: the answer says so */
            } else {
                /* The log stamps offsets into the batch: work on a copy
                 * since the request frame is the host's (a recompressed
                 * batch is already one). */
                uint8_t *copy = src != recs ? (uint8_t *)src : lr_malloc(&n->alloc, slen);
                if (!copy) {
                    r->res.error = LOGREP_ERR__NOMEM;
                } else {
                    if (src == recs)
                        memcpy(copy, recs, slen);
                    lr_partition_produce(p->rep, copy, slen, acks, timeout,
                                         base_token | (uint64_t)k, now_ms, &r->res);
                    if (src == recs)
                        lr_free(&n->alloc, copy, slen);
                    if (r->res.parked) {
                        r->token = base_token | (uint64_t)k;
                        parked++;
                    } else if (!r->res.error) {
                        logrep_batch_header h;
                        if (logrep_batch_header_parse(recs, (size_t)rlen, &h) == LOGREP_OK)
                            n->stats.produce_records += h.record_count;
                    }
                    lr_node_part_changed(n, p);
                }
            }
        }
    }
    int err = 0;
    /* A partition refused for want of memory (nothing appended) has no
     * Kafka answer: the request fails whole, closing its connection, and
     * the client retries as after a broker failure. */
    for (int32_t i = 0; i < total && acks != 0; i++)
        if (res[i].res.error == LOGREP_ERR__NOMEM)
            err = LOGREP_ERR__NOMEM;
    if (acks == 0 || err) {
        /* acks=0: Kafka sends no response at all. */
        for (int32_t i = 0; i < total; i++)
            lr_strfree(&n->alloc, res[i].topic);
        lr_free(&n->alloc, res, (size_t)(total > 0 ? total : 1) * sizeof *res);
        return err;
    }
    if (!parked) {
        err = produce_response(n, (int16_t)logrep_msg_version(n->req),
                               logrep_msg_correlation_id(n->req), res, total);
        tmpbuf *tmps = NULL;
        if (!err)
            err = respond_now(n, c, &tmps);
        for (int32_t i = 0; i < total; i++)
            lr_strfree(&n->alloc, res[i].topic);
        lr_free(&n->alloc, res, (size_t)(total > 0 ? total : 1) * sizeof *res);
        return err;
    }
    lr_deferred *d = deferred_new(n, c, LR_SLOT_PRODUCE);
    if (!d) {
        for (int32_t i = 0; i < total; i++)
            lr_strfree(&n->alloc, res[i].topic);
        lr_free(&n->alloc, res, (size_t)(total > 0 ? total : 1) * sizeof *res);
        return LOGREP_ERR__NOMEM;
    }
    d->results = res;
    d->n_results = total > 0 ? total : 1;
    if (total == 0)
        d->n_results = 0;
    d->outstanding = parked;
    d->deadline = now_ms + timeout;
    return 0;
}

/* Routes a partition's completions to their deferred produce requests. */
void lr_deferred_collect(logrep_node *n, lr_npart *p)
{
    lr_produce_res r;
    while (lr_partition_next_completion(p->rep, &r)) {
        for (lr_deferred *d = n->deferred; d; d = d->next) {
            if (d->kind != LR_SLOT_PRODUCE)
                continue;
            for (int32_t k = 0; k < d->n_results; k++) {
                if (d->results[k].token == r.token) {
                    d->results[k].res = r;
                    d->results[k].token = 0;
                    d->outstanding--;
                    if (!r.error)
                        n->stats.produce_records++;
                }
            }
        }
    }
}

static void collect_completions(logrep_node *n)
{
    for (size_t i = 0; i < n->n_parts; i++)
        lr_deferred_collect(n, &n->parts[i]);
}

/* ------------------------------------------------------------ Fetch */

/* Sets a partition's records from a log slice: a file segment when the
 * storage gives descriptors, else bytes read into a temporary buffer. */
static int set_records(logrep_node *n, logrep_struct *pe, const logrep_log_slice *sl,
                       tmpbuf **tmps)
{
    int fr = lr_fid(pe, LR_FN_Records);
    if (!sl->length)
        return logrep_struct_set_records(pe, fr, "", 0);
    int fd;
    if (n->st->file_fd && n->st->file_fd(n->st->ctx, sl->file, &fd) == LOGREP_OK)
        return logrep_struct_set_records_file(pe, fr, fd, (int64_t)sl->position,
                                              (int64_t)sl->length);
    tmpbuf *t = lr_malloc(&n->alloc, sizeof *t + (size_t)sl->length);
    if (!t)
        return LOGREP_ERR__NOMEM;
    t->len = (size_t)sl->length;
    t->next = *tmps;
    *tmps = t;
    size_t got;
    int err = n->st->read(n->st->ctx, sl->file, sl->position, t->data, t->len, &got);
    if (err || got != t->len)
        return err ? err : LOGREP_ERR__IO;
    return logrep_struct_set_records(pe, fr, t->data, (int32_t)t->len);
}

static void track(logrep_node *n, fetch_track *t, const lr_npart *p)
{
    if (t->any)
        return;
    if (t->n == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 8;
        int32_t *idx = lr_realloc(&n->alloc, t->idx, (size_t)t->cap * sizeof *idx,
                                  (size_t)cap * sizeof *idx);
        if (!idx) {
            t->any = 1; /* woken by any change instead */
            return;
        }
        t->idx = idx;
        t->cap = cap;
    }
    t->idx[t->n++] = (int32_t)(p - n->parts);
}

void lr_node_part_changed(logrep_node *n, lr_npart *p)
{
    n->data_changed = 1;
    n->change_seq++;
    if (p)
        p->changed_seq = n->change_seq;
    else
        n->all_changed_seq = n->change_seq;
}

void lr_node_metadata_changed(logrep_node *n)
{
    n->data_changed = 1;
    n->md_changed_seq = ++n->change_seq;
}

/* A parked fetch runs again at its deadline, at shutdown, or once data it
 * reads changed since its last run. */
static int fetch_due(const logrep_node *n, const lr_deferred *d, int64_t now_ms)
{
    if (now_ms >= d->deadline || n->shutting_down || n->all_changed_seq > d->seen_seq ||
        (d->track.md && n->md_changed_seq > d->seen_seq))
        return 1;
    if (d->track.any)
        return n->change_seq > d->seen_seq;
    for (int32_t i = 0; i < d->track.n; i++) {
        int32_t k = d->track.idx[i];
        if (k >= 0 && (size_t)k < n->n_parts && n->parts[k].changed_seq > d->seen_seq)
            return 1;
    }
    return 0;
}

/* Runs a fetch. Returns the bytes of records gathered, or -1 on a hard
 * error; `any_error` notes partition errors (answered at once); `tr`
 * gets the partitions read. */
static int64_t run_fetch(logrep_node *n, logrep_msg *req, int roles, int64_t now_ms,
                         tmpbuf **tmps, int *any_error, int retry, fetch_track *tr)
{
    logrep_struct *rq = logrep_msg_root(req);
    int version = logrep_msg_version(req);
    int32_t replica_id = version >= 15 ? (int32_t)lr_f_int(logrep_struct_struct(rq, lr_fid(rq, LR_FN_ReplicaState)), LR_FN_ReplicaId)
                                       : (int32_t)lr_f_int(rq, LR_FN_ReplicaId);
    int64_t replica_epoch = version >= 15 ? lr_f_int(logrep_struct_struct(rq, lr_fid(rq, LR_FN_ReplicaState)), LR_FN_ReplicaEpoch) : -1;
    int64_t max_bytes = lr_f_int(rq, LR_FN_MaxBytes);
    int read_committed = lr_f_int(rq, LR_FN_IsolationLevel) == 1;
    const char *rack = NULL;
    int32_t rack_len = 0;
    char rackbuf[64] = "";
    if (version >= 11 && lr_f_str(rq, LR_FN_RackId, &rack, &rack_len) == 0 && rack && rack_len > 0 &&
        rack_len < (int32_t)sizeof rackbuf) {
        memcpy(rackbuf, rack, (size_t)rack_len);
        rackbuf[rack_len] = 0;
    }
    logrep_struct *rs = logrep_msg_root(n->resp);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    lr_f_set_count(rs, LR_FN_Responses, nt);
    int64_t gathered = 0;
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Responses, i);
        const char *name = NULL;
        int32_t len = -1;
        const uint8_t *tid = NULL;
        if (version >= 13) {
            tid = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
            logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), tid);
            const lr_md_topic *t = lr_md_topic_by_id(n->img, tid);
            if (t) {
                name = t->name;
                len = (int32_t)strlen(t->name);
            }
        } else {
            lr_f_str(qt, LR_FN_Topic, &name, &len);
            if (name && len >= 0)
                lr_f_set_str(rt, LR_FN_Topic, name, len);
        }
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        lr_f_set_count(rt, LR_FN_Partitions, np);
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, j);
            logrep_struct *rp = lr_f_elem(rt, LR_FN_Partitions, j);
            int32_t index = (int32_t)lr_f_int(qp, LR_FN_Partition);
            lr_f_set_int(rp, LR_FN_PartitionIndex, index);
            if (tid && n->ctl && (roles & LR_ROLE_CONTROLLER) && lr_is_metadata_topic(tid) &&
                replica_epoch >= 0) {
                /* The controller's metadata log, fetched by registered
                 * brokers (they send their broker epoch) on the controller
                 * listener; clients are answered as for any topic id they
                 * cannot know. */
                logrep_log_slice sl;
                int64_t hw, ls;
                tr->md = 1;
                int64_t pmax = lr_f_int(qp, LR_FN_PartitionMaxBytes);
                logrep_err e = lr_nctl_fetch_metadata(n, lr_f_int(qp, LR_FN_FetchOffset),
                                                      (uint64_t)(pmax > 0 ? pmax : 0), &sl, &hw, &ls);
                lr_f_set_int(rp, LR_FN_ErrorCode, err_code(e));
                lr_f_set_int(rp, LR_FN_HighWatermark, hw);
                lr_f_set_int(rp, LR_FN_LastStableOffset, hw);
                lr_f_set_int(rp, LR_FN_LogStartOffset, ls);
                if (e)
                    *any_error = 1;
                if (set_records(n, rp, &sl, tmps) != 0)
                    return -1;
                gathered += (int64_t)sl.length;
                continue;
            }
            if (!(roles & LR_ROLE_BROKER))
                name = NULL; /* a controller listener serves only the metadata log */
            lr_npart *p = name ? part_named(n, name, len, index) : NULL;
            if (!p) {
                int16_t e = name ? missing_part_error(n, name, len, index)
                                 : LOGREP_ERR_UNKNOWN_TOPIC_ID;
                lr_f_set_int(rp, LR_FN_ErrorCode, e);
                lr_f_set_int(rp, LR_FN_HighWatermark, -1);
                logrep_struct_set_records(rp, lr_fid(rp, LR_FN_Records), "", 0);
                *any_error = 1;
                continue;
            }
            track(n, tr, p);
            int64_t budget = max_bytes - gathered;
            int64_t pmax = lr_f_int(qp, LR_FN_PartitionMaxBytes);
            lr_fetch_req fr = {replica_id,
                               replica_epoch,
                               (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                               version >= 12 ? (int32_t)lr_f_int(qp, LR_FN_LastFetchedEpoch) : -1,
                               lr_f_int(qp, LR_FN_FetchOffset),
                               (uint64_t)(budget < pmax ? (budget > 0 ? budget : 0) : pmax),
                               gathered == 0,
                               read_committed,
                               rackbuf,
                               retry,
                               /* Fetch from follower came with v11. */
                               replica_id < 0 && version < 11};
            lr_fetch_res res;
            int64_t hw_before = lr_partition_high_watermark(p->rep);
            lr_partition_fetch(p->rep, &fr, now_ms, &res);
            /* A follower's fetch can move the HW: consumers parked at the
             * old HW have data now. */
            if (lr_partition_high_watermark(p->rep) != hw_before)
                lr_node_part_changed(n, p);
            lr_f_set_int(rp, LR_FN_ErrorCode, err_code(res.error));
            lr_f_set_int(rp, LR_FN_HighWatermark, res.high_watermark);
            lr_f_set_int(rp, LR_FN_LastStableOffset, res.last_stable_offset);
            lr_f_set_int(rp, LR_FN_LogStartOffset, res.log_start_offset);
            lr_f_set_int(rp, LR_FN_PreferredReadReplica, res.preferred_read_replica);
            if (res.diverging_epoch >= 0 || res.diverging_end_offset >= 0) {
                logrep_struct *de;
                logrep_struct_set_struct(rp, lr_fid(rp, LR_FN_DivergingEpoch), &de);
                lr_f_set_int(de, LR_FN_Epoch, res.diverging_epoch);
                lr_f_set_int(de, LR_FN_EndOffset, res.diverging_end_offset);
                *any_error = 1;
            }
            if (res.error || res.preferred_read_replica >= 0)
                *any_error = 1;
            if (set_records(n, rp, &res.slice, tmps) != 0)
                return -1;
            gathered += (int64_t)res.slice.length;
        }
    }
    return gathered;
}

/* With d: a parked fetch run again from its decoded request (req is then
 * d->req); *answered tells whether its slot was answered (the slot may be
 * freed then). Without d, req is the node's scratch decoded from frame. */
static int handle_fetch(logrep_node *n, lr_conn *c, logrep_msg *req, const uint8_t *frame,
                        size_t len, int64_t now_ms, lr_deferred *d, int *answered)
{
    *answered = 0;
    int err = logrep_msg_init_response_to(n->resp, req);
    if (err)
        return err;
    tmpbuf *tmps = NULL;
    const char *cid;
    int32_t cid_len = -1;
    int16_t top = 0;
    logrep_struct *rq = logrep_msg_root(req);
    int64_t session_epoch = lr_f_int(rq, LR_FN_SessionEpoch);
    if ((lr_node_conn_roles(n, c) & LR_ROLE_CONTROLLER) &&
        lr_f_str(rq, LR_FN_ClusterId, &cid, &cid_len) == 0 && !lr_node_cluster_id_ok(n, cid, cid_len))
        top = LOGREP_ERR_INCONSISTENT_CLUSTER_ID; /* not our metadata log */
    else if (logrep_msg_version(req) >= 7 && session_epoch != 0 && session_epoch != -1)
        top = LOGREP_ERR_FETCH_SESSION_ID_NOT_FOUND; /* incremental: no session is ever created */
    if (top) {
        *answered = 1;
        lr_f_set_int(logrep_msg_root(n->resp), LR_FN_ErrorCode, top);
        return d ? lr_node_finish(n, c, d->slot, n->resp) : respond_now(n, c, &tmps);
    }
    int any_error = 0;
    fetch_track local = {NULL, 0, 0, 0, 0}, *tr = d ? &d->track : &local;
    tr->n = 0;
    tr->any = tr->md = 0;
    int64_t got = run_fetch(n, req, lr_node_conn_roles(n, c), now_ms, &tmps, &any_error, d != NULL, tr);
    if (got < 0) {
        tmp_free(n, &tmps);
        lr_free(&n->alloc, local.idx, (size_t)local.cap * sizeof *local.idx);
        return LOGREP_ERR__NOMEM;
    }
    int64_t min_bytes = lr_f_int(rq, LR_FN_MinBytes);
    int64_t max_wait = lr_f_int(rq, LR_FN_MaxWaitMs);
    int answer = got >= min_bytes || max_wait <= 0 || any_error ||
                 (d && now_ms >= d->deadline) || n->shutting_down;
    if (answer) {
        *answered = 1;
        lr_free(&n->alloc, local.idx, (size_t)local.cap * sizeof *local.idx);
        if (d) {
            err = lr_node_finish(n, c, d->slot, n->resp);
            tmp_free(n, &tmps);
            return err;
        }
        return respond_now(n, c, &tmps);
    }
    tmp_free(n, &tmps);
    if (d) {
        d->seen_seq = n->change_seq;
        return 0; /* still waiting */
    }
    d = deferred_new(n, c, LR_SLOT_FETCH);
    if (!d) {
        lr_free(&n->alloc, local.idx, (size_t)local.cap * sizeof *local.idx);
        return LOGREP_ERR__NOMEM;
    }
    d->track = local;
    d->seen_seq = n->change_seq;
    d->deadline = now_ms + max_wait;
    /* Kept decoded: the copy of the frame is what the request views. */
    d->frame = lr_malloc(&n->alloc, len);
    if (!d->frame)
        return LOGREP_ERR__NOMEM; /* the connection is dropped, d with it */
    memcpy(d->frame, frame, len);
    d->frame_len = len;
    if (logrep_msg_new(n->conf, &d->req) != LOGREP_OK ||
        logrep_msg_decode_request(d->req, d->frame, d->frame_len) != LOGREP_OK)
        return LOGREP_ERR__NOMEM; /* it decoded once already: only memory fails */
    return 0;
}

/* ------------------------------------------------------------ per-partition requests */

/* Requests shaped Topics[Name, Partitions[Index, ...]] answered with the
 * same shape: the names of the fields differ per API. */
typedef struct part_api {
    lr_fname topic_name;       /* Name or Topic */
    lr_fname index_q;          /* index field in the request partition */
    lr_fname index_r;          /* and in the response partition */
    /* Fills rp for one partition; p is NULL when not hosted here. */
    void (*fn)(logrep_node *n, lr_npart *p, int16_t missing, const logrep_struct *rq,
               const logrep_struct *qp, logrep_struct *rp);
} part_api;

static int each_partition(logrep_node *n, lr_conn *c, const part_api *api)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int err = init_resp(n);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(n->resp);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    lr_f_set_count(rs, LR_FN_Topics, nt);
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Topics, i);
        const char *name;
        int32_t len;
        lr_f_str(qt, api->topic_name, &name, &len);
        if (name && len >= 0)
            lr_f_set_str(rt, api->topic_name, name, len);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        lr_f_set_count(rt, LR_FN_Partitions, np);
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, j);
            logrep_struct *rp = lr_f_elem(rt, LR_FN_Partitions, j);
            int32_t index = (int32_t)lr_f_int(qp, api->index_q);
            lr_f_set_int(rp, api->index_r, index);
            lr_npart *p = name ? part_named(n, name, len, index) : NULL;
            api->fn(n, p, p ? 0 : missing_part_error(n, name, len, index), rq, qp, rp);
        }
    }
    tmpbuf *tmps = NULL;
    return respond_now(n, c, &tmps);
}

static void list_offsets_part(logrep_node *n, lr_npart *p, int16_t missing,
                              const logrep_struct *rq, const logrep_struct *qp, logrep_struct *rp)
{
    int64_t off = -1, ts = -1;
    int32_t ep = -1;
    logrep_err e = missing;
    if (p)
        e = lr_partition_list_offsets(p->rep, (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                                      lr_f_int(qp, LR_FN_Timestamp), lr_f_int(rq, LR_FN_IsolationLevel) == 1,
                                      &off, &ts, &ep);
    lr_f_set_int(rp, LR_FN_ErrorCode, err_code(e));
    lr_f_set_int(rp, LR_FN_Offset, off);
    lr_f_set_int(rp, LR_FN_Timestamp, ts);
    lr_f_set_int(rp, LR_FN_LeaderEpoch, ep);
    if (logrep_msg_version(n->req) == 0) {
        int fo = lr_fid(rp, LR_FN_OldStyleOffsets);
        logrep_struct_set_count(rp, fo, off >= 0 ? 1 : 0);
        if (off >= 0)
            logrep_struct_set_elem_int(rp, fo, 0, off);
    }
}

static void epoch_end_part(logrep_node *n, lr_npart *p, int16_t missing, const logrep_struct *rq,
                           const logrep_struct *qp, logrep_struct *rp)
{
    (void)n;
    (void)rq;
    int32_t e_epoch = -1;
    int64_t e_off = -1;
    logrep_err e = missing;
    if (p)
        e = lr_partition_epoch_end(p->rep, (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                                   (int32_t)lr_f_int(qp, LR_FN_LeaderEpoch), &e_epoch, &e_off);
    lr_f_set_int(rp, LR_FN_ErrorCode, err_code(e));
    lr_f_set_int(rp, LR_FN_LeaderEpoch, e_epoch);
    lr_f_set_int(rp, LR_FN_EndOffset, e_off);
}

static const part_api list_offsets_api = {LR_FN_Name, LR_FN_PartitionIndex, LR_FN_PartitionIndex,
                                          list_offsets_part};
static const part_api epoch_end_api = {LR_FN_Topic, LR_FN_Partition, LR_FN_Partition,
                                       epoch_end_part};

/* ------------------------------------------------------------ InitProducerId */

static int handle_init_producer_id(logrep_node *n, lr_conn *c, int64_t now_ms)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int err = init_resp(n);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(n->resp);
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
            tmpbuf *tmps = NULL;
            return respond_now(n, c, &tmps);
        }
        int e = lr_node_take_producer_id(n, now_ms, &pid);
        if (e)
            code = e > 0 ? (int16_t)e : LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    }
    lr_f_set_int(rs, LR_FN_ErrorCode, code);
    lr_f_set_int(rs, LR_FN_ProducerId, pid);
    lr_f_set_int(rs, LR_FN_ProducerEpoch, code ? -1 : 0);
    tmpbuf *tmps = NULL;
    return respond_now(n, c, &tmps);
}

/* ------------------------------------------------------------ FindCoordinator */

/* Group and transaction coordinators are not served yet, but FindCoordinator
 * is advertised: answer COORDINATOR_NOT_AVAILABLE (retriable) rather than
 * closing, so a client that looks up a coordinator in passing (librdkafka's
 * consumer does) keeps its connection for Fetch and Metadata. */
static int handle_find_coordinator(logrep_node *n, lr_conn *c)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int err = init_resp(n);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(n->resp);
    static const char msg[] = "the coordinator is not available on this broker";
    if (logrep_msg_version(n->req) < 4) {
        lr_f_set_int(rs, LR_FN_ErrorCode, LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
        lr_f_set_str(rs, LR_FN_ErrorMessage, msg, (int32_t)sizeof msg - 1);
        lr_f_set_int(rs, LR_FN_NodeId, -1);
        lr_f_set_str(rs, LR_FN_Host, "", 0);
        lr_f_set_int(rs, LR_FN_Port, -1);
    } else {
        int fk = lr_fid(rq, LR_FN_CoordinatorKeys);
        int32_t nk = logrep_struct_count(rq, fk);
        if (nk < 0)
            nk = 0;
        lr_f_set_count(rs, LR_FN_Coordinators, nk);
        for (int32_t i = 0; i < nk; i++) {
            const uint8_t *key = NULL;
            int32_t klen = 0;
            logrep_struct_elem_bytes(rq, fk, i, &key, &klen);
            logrep_struct *ce = lr_f_elem(rs, LR_FN_Coordinators, i);
            lr_f_set_str(ce, LR_FN_Key, (const char *)key, klen < 0 ? 0 : klen);
            lr_f_set_int(ce, LR_FN_NodeId, -1);
            lr_f_set_str(ce, LR_FN_Host, "", 0);
            lr_f_set_int(ce, LR_FN_Port, -1);
            lr_f_set_int(ce, LR_FN_ErrorCode, LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
            lr_f_set_str(ce, LR_FN_ErrorMessage, msg, (int32_t)sizeof msg - 1);
        }
    }
    tmpbuf *tmps = NULL;
    return respond_now(n, c, &tmps);
}

/* ------------------------------------------------------------ CreateTopics / DeleteTopics */

/* Admin requests go to the controller; the client's slot waits. On an
 * error the node drops the connection (and d with it): the client
 * retries, as after a broker failure. */
static int forward_admin(logrep_node *n, lr_conn *c, const uint8_t *frame, size_t len,
                         int64_t now_ms)
{
    lr_deferred *d = deferred_new(n, c, LR_SLOT_ADMIN);
    if (!d)
        return LOGREP_ERR__NOMEM;
    d->frame = lr_malloc(&n->alloc, len);
    if (!d->frame)
        return LOGREP_ERR__NOMEM;
    memcpy(d->frame, frame, len);
    d->frame_len = len;
    d->deadline = now_ms + 30000;
    return lr_node_forward_admin(n, frame, len, d, now_ms);
}

/* Called by broker.c with the controller's response in n->in: the
 * response frame is re-targeted to the client's correlation id. */
void lr_node_admin_done(logrep_node *n, void *ctx, int64_t now_ms)
{
    (void)now_ms;
    lr_deferred *d = ctx;
    int found = 0;
    for (lr_deferred *x = n->deferred; x; x = x->next)
        if (x == d)
            found = 1;
    if (!found)
        return; /* the client went away */
    /* The controller's answer, flat, with the client's correlation id. */
    const uint8_t *flat;
    size_t flen;
    lr_slot *s = d->slot;
    int ok = logrep_msg_encode_flat(n->in, &flat, &flen) == LOGREP_OK && flen >= 8;
    lr_buf_clear(&s->bytes);
    if (ok && (ok = lr_buf_append(&s->bytes, flat, flen) == 0 &&
                    (s->segs = lr_calloc(&n->alloc, 1, sizeof *s->segs)) != NULL)) {
        uint8_t *p = s->bytes.data;
        p[4] = (uint8_t)(d->correlation_id >> 24);
        p[5] = (uint8_t)(d->correlation_id >> 16);
        p[6] = (uint8_t)(d->correlation_id >> 8);
        p[7] = (uint8_t)d->correlation_id;
        s->nsegs = 1;
        s->segs[0].data = p;
        s->segs[0].len = flen;
        s->segs[0].file = -1;
    }
    s->ready = 1;
    if (ok)
        lr_node_flush_conn(n, d->conn);
    else /* no answer to give (out of memory): the client retries */
        lr_node_close_conn(n, d->conn);
    deferred_unlink(n, d);
    deferred_free(n, d);
}

/* ------------------------------------------------------------ dispatch */

int lr_handle_request(logrep_node *n, lr_conn *c, const uint8_t *frame, size_t flen,
                      int64_t now_ms)
{
    int cerr = 0;
    int api = logrep_msg_api_key(n->req);
    if (!lr_node_serves(n, c, api)) {
        /* Not served on this listener: Kafka closes. */
        LR_LOG(&n->logger, LOGREP_LOG_INFO, "node", "%s v%d not served on this listener",
               logrep_proto_api_name(api), logrep_msg_version(n->req));
        return LOGREP_ERR__CORRUPT;
    }
    if (n->ctl && lr_nctl_handle(n, c, now_ms, &cerr))
        return cerr;
    switch (api) {
    case LOGREP_API_API_VERSIONS:
        return handle_api_versions(n, c);
    case LOGREP_API_METADATA:
        return handle_metadata(n, c, now_ms);
    case LOGREP_API_PRODUCE:
        return handle_produce(n, c, now_ms);
    case LOGREP_API_FETCH:
    {
        int answered;
        return handle_fetch(n, c, n->req, frame, flen, now_ms, NULL, &answered);
    }
    case LOGREP_API_LIST_OFFSETS:
        return each_partition(n, c, &list_offsets_api);
    case LOGREP_API_OFFSET_FOR_LEADER_EPOCH:
        return each_partition(n, c, &epoch_end_api);
    case LOGREP_API_INIT_PRODUCER_ID:
        return handle_init_producer_id(n, c, now_ms);
    case LOGREP_API_DESCRIBE_CONFIGS:
        return lr_handle_describe_configs(n, c);
    case LOGREP_API_FIND_COORDINATOR:
        return handle_find_coordinator(n, c);
    case LOGREP_API_CREATE_TOPICS:
    case LOGREP_API_DELETE_TOPICS:
        return forward_admin(n, c, frame, flen, now_ms);
    default:
        /* Decodable but not served by this node: Kafka closes. */
        LR_LOG(&n->logger, LOGREP_LOG_INFO, "node", "unsupported request %s v%d",
               logrep_proto_api_name(api), logrep_msg_version(n->req));
        return LOGREP_ERR__CORRUPT;
    }
}

/* Re-runs parked fetches, finishes produces, expires admin forwards. */
int64_t lr_deferred_deadline(const logrep_node *n, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    for (const lr_deferred *d = n->deferred; d; d = d->next) {
        if (d->kind == LR_SLOT_PRODUCE && d->outstanding <= 0)
            return now_ms;
        if ((d->kind == LR_SLOT_FETCH || d->kind == LR_SLOT_ADMIN) && d->deadline < next)
            next = d->deadline;
    }
    return next < now_ms ? now_ms : next;
}

void lr_deferred_poll(logrep_node *n, int64_t now_ms, int force)
{
    (void)force;
    collect_completions(n);
    lr_deferred *d = n->deferred;
    while (d) {
        lr_deferred *next = d->next;
        if (d->kind == LR_SLOT_PRODUCE && d->outstanding <= 0) {
            if (produce_response(n, d->version, d->correlation_id, d->results, d->n_results) == 0)
                lr_node_finish(n, d->conn, d->slot, n->resp);
            else /* no answer to give (out of memory): the client retries */
                lr_node_close_conn(n, d->conn);
            deferred_unlink(n, d);
            deferred_free(n, d);
        } else if (d->kind == LR_SLOT_FETCH && fetch_due(n, d, now_ms)) {
            int answered;
            n->stats.parked_fetch_runs++;
            handle_fetch(n, d->conn, d->req, NULL, 0, now_ms, d, &answered);
            if (answered) { /* an error before answering: tried again later */
                deferred_unlink(n, d);
                deferred_free(n, d);
            }
        } else if (d->kind == LR_SLOT_ADMIN && now_ms >= d->deadline) {
            /* The controller never answered: close so the client retries. */
            lr_node_close_conn(n, d->conn);
            d->slot->ready = 1;
            deferred_unlink(n, d);
            deferred_free(n, d);
        }
        d = next;
    }
    n->data_changed = 0;
}

void lr_deferred_drop_conn(logrep_node *n, lr_conn *c)
{
    lr_deferred *d = n->deferred;
    while (d) {
        lr_deferred *next = d->next;
        if (d->conn == c) {
            deferred_unlink(n, d);
            deferred_free(n, d);
        }
        d = next;
    }
}

void lr_deferred_free_all(logrep_node *n)
{
    while (n->deferred) {
        lr_deferred *d = n->deferred;
        n->deferred = d->next;
        deferred_free(n, d);
    }
}
