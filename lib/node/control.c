/* The controller role of a node: the controller state machine
 * (lib/controller) behind the wire protocol, with its records kept in the
 * metadata log (__cluster_metadata-0, one record per batch) that brokers
 * fetch and apply in order. A restarted controller replays that log. */
#include <stdio.h>
#include <string.h>

#include "controller/controller.h"
#include "node/node_int.h"

struct lr_ctl_role {
    lr_ctl *ctl;
    logrep_log *log;
    logrep_batch_builder *b;
    uint8_t *buf; /* the batch being appended (the log stamps it) */
    size_t cap;
    int32_t epoch;  /* this controller's leader epoch of the metadata log */
    int64_t now_ms; /* of the event being handled */
};

/* The metadata log is the controller's source of truth: every record is
 * appended and flushed before any answer that depends on it leaves the
 * node. Any failure is returned: the controller then stops (lr_ctl_failed). */
static int sink(void *ctx, int64_t offset, const uint8_t *rec, size_t len)
{
    logrep_node *n = ctx;
    struct lr_ctl_role *r = n->ctl;
    if (logrep_log_end_offset(r->log) != offset) {
        LR_LOG(&n->logger, LOGREP_LOG_ERROR, "controller",
               "metadata record %lld does not follow the log end %lld", (long long)offset,
               (long long)logrep_log_end_offset(r->log));
        return LOGREP_ERR__CORRUPT;
    }
    if (len > INT32_MAX)
        return LOGREP_ERR_MESSAGE_TOO_LARGE;
    logrep_batch_builder_reset(r->b);
    const uint8_t *out;
    size_t blen;
    logrep_err err = logrep_batch_builder_add(r->b, r->now_ms, NULL, -1, rec, (int32_t)len, NULL, 0);
    if (!err)
        err = logrep_batch_builder_finish(r->b, &out, &blen);
    if (!err && blen > r->cap) {
        uint8_t *nb = lr_realloc(&n->alloc, r->buf, r->cap, blen);
        if (!nb)
            err = LOGREP_ERR__NOMEM;
        else {
            r->buf = nb;
            r->cap = blen;
        }
    }
    logrep_log_append_info info;
    if (!err) {
        memcpy(r->buf, out, blen);
        err = logrep_log_append_leader(r->log, r->buf, blen, r->epoch, r->now_ms, &info);
    }
    /* Metadata is small and precious: durable before it is answered. */
    if (!err)
        err = logrep_log_flush(r->log, r->now_ms);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LOG_ERROR, "controller",
               "metadata record %lld: %s; this node stops acting as controller",
               (long long)offset, logrep_err_name(err));
        return err;
    }
    lr_node_metadata_changed(n);
    return 0;
}

/* Stopped after a metadata write failed: nothing may be answered from the
 * image, which holds the record that is not durable. */
static int ctl_failed(const logrep_node *n)
{
    return n->ctl && lr_ctl_failed(n->ctl->ctl) != 0;
}

static int replay(logrep_node *n, struct lr_ctl_role *r)
{
    logrep_batch_reader *rd;
    int err = logrep_batch_reader_new(n->conf, &rd);
    if (err)
        return err;
    int64_t off = logrep_log_start_offset(r->log), end = logrep_log_end_offset(r->log);
    uint8_t *buf = NULL;
    size_t cap = 0;
    while (!err && off < end) {
        logrep_log_slice s;
        err = logrep_log_read(r->log, off, 1 << 20, INT64_MAX, 1, &s);
        if (err || !s.length)
            break;
        if (s.length > cap) {
            uint8_t *nb = lr_realloc(&n->alloc, buf, cap, (size_t)s.length);
            if (!nb) {
                err = LOGREP_ERR__NOMEM;
                break;
            }
            buf = nb;
            cap = (size_t)s.length;
        }
        size_t got;
        err = n->st->read(n->st->ctx, s.file, s.position, buf, (size_t)s.length, &got);
        size_t pos = 0;
        while (!err && pos < got) {
            logrep_batch_header h;
            if ((err = logrep_batch_reader_open(rd, buf + pos, got - pos, &h)) != 0)
                break;
            logrep_record rec;
            while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK)
                if (rec.value_len > 0)
                    lr_ctl_replay(r->ctl, rec.value, (size_t)rec.value_len);
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        off = s.next_offset;
    }
    lr_free(&n->alloc, buf, cap);
    logrep_batch_reader_free(rd);
    return err;
}

int lr_nctl_new(logrep_node *n, int64_t now_ms)
{
    struct lr_ctl_role *r = lr_calloc(&n->alloc, 1, sizeof *r);
    if (!r)
        return LOGREP_ERR__NOMEM;
    n->ctl = r;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s-0", n->log_dir, LR_METADATA_TOPIC);
    int err = logrep_log_open(n->conf, n->st, dir, now_ms, &r->log);
    if (!err)
        err = logrep_batch_builder_new(n->conf, &r->b);
    if (!err && !(r->ctl = lr_ctl_new(n->conf, sink, n)))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = replay(n, r);
    /* Each start is a new leadership of the metadata log: a new epoch from
     * its end, as a Kafka leader begins its epoch. */
    if (!err) {
        int32_t last = logrep_log_latest_epoch(r->log);
        r->epoch = last < 0 ? 0 : last + 1;
        err = logrep_log_epoch_assign(r->log, r->epoch, logrep_log_end_offset(r->log));
    }
    if (err) {
        lr_nctl_free(n, 1);
        return err;
    }
    r->now_ms = now_ms;
    LR_LOG(&n->logger, LOGREP_LOG_INFO, "controller",
           "controller up at metadata offset %lld, epoch %d",
           (long long)logrep_log_end_offset(r->log), (int)r->epoch);
    return 0;
}

static int init_resp_to(logrep_node *n)
{
    return logrep_msg_init_response_to(n->resp, n->req);
}

void lr_nctl_free(logrep_node *n, int abandon)
{
    struct lr_ctl_role *r = n->ctl;
    if (!r)
        return;
    /* A stopped controller writes nothing more, checkpoints included. */
    abandon = abandon || (r->ctl && lr_ctl_failed(r->ctl));
    lr_ctl_free(r->ctl);
    logrep_batch_builder_free(r->b);
    lr_free(&n->alloc, r->buf, r->cap);
    if (abandon)
        logrep_log_abandon(r->log);
    else if (r->log)
        logrep_log_close(r->log);
    lr_free(&n->alloc, r, sizeof *r);
    n->ctl = NULL;
}

void lr_nctl_stats(const logrep_node *n, logrep_node_stats *out)
{
    lr_ctl_stats cs;
    lr_ctl_get_stats(n->ctl->ctl, &cs);
    out->leader_changes = cs.leader_changes;
    out->unclean_elections = cs.unclean_elections;
}

int64_t lr_nctl_tick(logrep_node *n, int64_t now_ms)
{
    struct lr_ctl_role *r = n->ctl;
    if (ctl_failed(n))
        return INT64_MAX;
    r->now_ms = now_ms;
    int err = lr_ctl_tick(r->ctl, now_ms);
    if (err && err != LOGREP_ERR_NOT_CONTROLLER)
        LR_LOG(&n->logger, LOGREP_LOG_WARN, "controller", "tick: %s", logrep_err_name(err));
    /* Every record is flushed as it is written: what is left here is the
     * recovery-point checkpoint, which a restart can do without. */
    int64_t next = INT64_MAX;
    if ((err = logrep_log_tick(r->log, now_ms, &next)) != 0)
        LR_LOG(&n->logger, LOGREP_LOG_WARN, "controller", "metadata log tick: %s",
               logrep_err_name(err));
    int64_t c = lr_ctl_deadline(r->ctl, now_ms);
    return c < next ? c : next;
}

int lr_nctl_failed(const logrep_node *n)
{
    return ctl_failed(n);
}

logrep_err lr_nctl_fetch_metadata(logrep_node *n, int64_t offset, uint64_t max_bytes,
                                  logrep_log_slice *slice, int64_t *hw, int64_t *log_start)
{
    struct lr_ctl_role *r = n->ctl;
    memset(slice, 0, sizeof *slice);
    if (ctl_failed(n)) {
        *hw = *log_start = -1;
        return LOGREP_ERR_NOT_CONTROLLER;
    }
    *hw = logrep_log_end_offset(r->log);
    *log_start = logrep_log_start_offset(r->log);
    if (offset == *hw)
        return LOGREP_OK;
    return logrep_log_read(r->log, offset, max_bytes, INT64_MAX, 1, slice);
}

struct lr_ctl *lr_nctl_ctl(logrep_node *n)
{
    return n->ctl->ctl;
}

int16_t lr_nctl_code(int err)
{
    if (err > 0)
        return (int16_t)err;
    return err ? LOGREP_ERR_UNKNOWN_SERVER_ERROR : 0;
}

static int handle_registration(logrep_node *n, lr_conn *c, int64_t now_ms)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    lr_ctl_register_req rr;
    memset(&rr, 0, sizeof rr);
    rr.broker_id = (int32_t)lr_f_int(rq, LR_FN_BrokerId);
    const uint8_t *inc = logrep_struct_uuid(rq, lr_fid(rq, LR_FN_IncarnationId));
    if (inc)
        memcpy(rr.incarnation, inc, 16);
    rr.previous_broker_epoch = lr_f_int(rq, LR_FN_PreviousBrokerEpoch);
    /* Strings in the request are not NUL-terminated: copy them. */
    char rack[256], names[8][64], hosts[8][256];
    lr_ctl_endpoint eps[8];
    const char *p;
    int32_t len;
    rr.rack = NULL;
    if (lr_f_str(rq, LR_FN_Rack, &p, &len) == 0 && p && len >= 0 && len < (int32_t)sizeof rack) {
        memcpy(rack, p, (size_t)len);
        rack[len] = 0;
        rr.rack = rack;
    }
    int32_t nl = lr_f_count(rq, LR_FN_Listeners);
    for (int32_t i = 0; i < nl && i < 8; i++) {
        logrep_struct *l = lr_f_elem(rq, LR_FN_Listeners, i);
        names[i][0] = hosts[i][0] = 0;
        if (lr_f_str(l, LR_FN_Name, &p, &len) == 0 && p && len >= 0 && len < 64) {
            memcpy(names[i], p, (size_t)len);
            names[i][len] = 0;
        }
        if (lr_f_str(l, LR_FN_Host, &p, &len) == 0 && p && len >= 0 && len < 256) {
            memcpy(hosts[i], p, (size_t)len);
            hosts[i][len] = 0;
        }
        eps[i].name = names[i];
        eps[i].host = hosts[i];
        eps[i].port = (uint16_t)lr_f_int(l, LR_FN_Port);
        eps[i].security_protocol = (int16_t)lr_f_int(l, LR_FN_SecurityProtocol);
        rr.n_endpoints++;
    }
    rr.endpoints = eps;
    lr_ctl_register_resp resp;
    int err = LOGREP_ERR_INCONSISTENT_CLUSTER_ID;
    if (lr_f_str(rq, LR_FN_ClusterId, &p, &len) == 0 && lr_node_cluster_id_ok(n, p, len))
        err = lr_ctl_register_broker(n->ctl->ctl, &rr, now_ms, &resp);
    int e2 = init_resp_to(n);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(n->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_nctl_code(err));
    lr_f_set_int(rs, LR_FN_BrokerEpoch, err ? -1 : resp.broker_epoch);
    return lr_node_respond(n, c);
}

static int handle_heartbeat(logrep_node *n, lr_conn *c, int64_t now_ms)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    lr_ctl_heartbeat_req hr;
    hr.broker_id = (int32_t)lr_f_int(rq, LR_FN_BrokerId);
    hr.broker_epoch = lr_f_int(rq, LR_FN_BrokerEpoch);
    hr.current_metadata_offset = lr_f_int(rq, LR_FN_CurrentMetadataOffset);
    hr.want_fence = (uint8_t)lr_f_int(rq, LR_FN_WantFence);
    hr.want_shutdown = (uint8_t)lr_f_int(rq, LR_FN_WantShutDown);
    lr_ctl_heartbeat_resp resp;
    memset(&resp, 0, sizeof resp);
    int err = lr_ctl_heartbeat(n->ctl->ctl, &hr, now_ms, &resp);
    int e2 = init_resp_to(n);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(n->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_nctl_code(err));
    lr_f_set_int(rs, LR_FN_IsCaughtUp, resp.is_caught_up);
    lr_f_set_int(rs, LR_FN_IsFenced, err ? 1 : resp.is_fenced);
    lr_f_set_int(rs, LR_FN_ShouldShutDown, resp.should_shutdown);
    return lr_node_respond(n, c);
}

static int handle_alter_partition(logrep_node *n, lr_conn *c)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int e2 = init_resp_to(n);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(n->resp);
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    lr_f_set_count(rs, LR_FN_Topics, nt);
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Topics, i);
        const uint8_t *tid = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
        logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), tid);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        lr_f_set_count(rt, LR_FN_Partitions, np);
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *qp = lr_f_elem(qt, LR_FN_Partitions, j);
            logrep_struct *rp = lr_f_elem(rt, LR_FN_Partitions, j);
            lr_ctl_alter_partition_req ar;
            memset(&ar, 0, sizeof ar);
            ar.broker_id = (int32_t)lr_f_int(rq, LR_FN_BrokerId);
            ar.broker_epoch = lr_f_int(rq, LR_FN_BrokerEpoch);
            if (tid)
                memcpy(ar.topic_id, tid, 16);
            ar.partition = (int32_t)lr_f_int(qp, LR_FN_PartitionIndex);
            ar.leader_epoch = (int32_t)lr_f_int(qp, LR_FN_LeaderEpoch);
            ar.partition_epoch = (int32_t)lr_f_int(qp, LR_FN_PartitionEpoch);
            ar.leader_recovery_state = (int8_t)lr_f_int(qp, LR_FN_LeaderRecoveryState);
            lr_ctl_isr_member members[LR_MAX_REPLICAS];
            int32_t nm = lr_f_count(qp, LR_FN_NewIsrWithEpochs);
            if (nm < 0)
                nm = 0;
            if (nm > LR_MAX_REPLICAS)
                nm = LR_MAX_REPLICAS;
            for (int32_t k = 0; k < nm; k++) {
                logrep_struct *b = lr_f_elem(qp, LR_FN_NewIsrWithEpochs, k);
                members[k].broker_id = (int32_t)lr_f_int(b, LR_FN_BrokerId);
                members[k].broker_epoch = lr_f_int(b, LR_FN_BrokerEpoch);
            }
            ar.new_isr = members;
            ar.n_new_isr = (size_t)nm;
            lr_ctl_partition_state st;
            memset(&st, 0, sizeof st);
            st.leader = -1;
            int err = lr_ctl_alter_partition(n->ctl->ctl, &ar, &st);
            lr_f_set_int(rp, LR_FN_PartitionIndex, ar.partition);
            lr_f_set_int(rp, LR_FN_ErrorCode, lr_nctl_code(err));
            lr_f_set_int(rp, LR_FN_LeaderId, st.leader);
            lr_f_set_int(rp, LR_FN_LeaderEpoch, st.leader_epoch);
            lr_f_set_int(rp, LR_FN_PartitionEpoch, st.partition_epoch);
            lr_f_set_int(rp, LR_FN_LeaderRecoveryState, st.leader_recovery_state);
            int fi = lr_fid(rp, LR_FN_Isr);
            logrep_struct_set_count(rp, fi, st.n_isr);
            for (int32_t k = 0; k < st.n_isr; k++)
                logrep_struct_set_elem_int(rp, fi, k, st.isr[k]);
        }
    }
    return lr_node_respond(n, c);
}

static int handle_delete_topics(logrep_node *n, lr_conn *c)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int e2 = init_resp_to(n);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(n->resp);
    int version = logrep_msg_version(n->req);
    int32_t nt = version >= 6 ? lr_f_count(rq, LR_FN_Topics) : lr_f_count(rq, LR_FN_TopicNames);
    lr_f_set_count(rs, LR_FN_Responses, nt);
    for (int32_t i = 0; i < nt; i++) {
        const char *p = NULL;
        int32_t len = -1;
        const uint8_t *tid = NULL;
        if (version >= 6) {
            logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i);
            lr_f_str(qt, LR_FN_Name, &p, &len);
            tid = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
        } else
            logrep_struct_elem_bytes(rq, lr_fid(rq, LR_FN_TopicNames), i,
                                     (const uint8_t **)&p, &len);
        logrep_struct *rt = lr_f_elem(rs, LR_FN_Responses, i);
        char name[LR_MD_MAX_TOPIC_NAME + 1];
        int err = LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        static const uint8_t zero[16];
        int by_id = tid && memcmp(tid, zero, 16) != 0;
        if (by_id)
            logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), tid);
        if (by_id && p && len >= 0) {
            err = LOGREP_ERR_INVALID_REQUEST; /* Kafka: not both name and id */
        } else if (by_id && ctl_failed(n)) {
            err = LOGREP_ERR_NOT_CONTROLLER;
        } else if (by_id) {
            /* v6: by topic id; the answer names the topic. */
            const lr_md_image *img = lr_nctl_image(n);
            const lr_md_topic *t = img ? lr_md_topic_by_id(img, tid) : NULL;
            err = LOGREP_ERR_UNKNOWN_TOPIC_ID;
            logrep_struct_set_null(rt, lr_fid(rt, LR_FN_Name));
            if (t) {
                lr_f_set_str(rt, LR_FN_Name, t->name, (int32_t)strlen(t->name));
                err = lr_ctl_delete_topic(n->ctl->ctl, t->name);
            }
        } else if (p && len >= 0 && len <= LR_MD_MAX_TOPIC_NAME) {
            memcpy(name, p, (size_t)len);
            name[len] = 0;
            lr_f_set_str(rt, LR_FN_Name, name, len);
            err = lr_ctl_delete_topic(n->ctl->ctl, name);
        }
        lr_f_set_int(rt, LR_FN_ErrorCode, lr_nctl_code(err));
    }
    return lr_node_respond(n, c);
}

static int handle_allocate_pids(logrep_node *n, lr_conn *c)
{
    logrep_struct *rq = logrep_msg_root(n->req);
    int64_t first = -1;
    int32_t count = 0;
    int err = lr_ctl_allocate_producer_ids(n->ctl->ctl, (int32_t)lr_f_int(rq, LR_FN_BrokerId),
                                           lr_f_int(rq, LR_FN_BrokerEpoch), &first, &count);
    int e2 = init_resp_to(n);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(n->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_nctl_code(err));
    lr_f_set_int(rs, LR_FN_ProducerIdStart, first);
    lr_f_set_int(rs, LR_FN_ProducerIdLen, count);
    return lr_node_respond(n, c);
}

int lr_nctl_handle(logrep_node *n, lr_conn *c, int64_t now_ms, int *err)
{
    n->ctl->now_ms = now_ms;
    switch (logrep_msg_api_key(n->req)) {
    case LOGREP_API_BROKER_REGISTRATION:
        *err = handle_registration(n, c, now_ms);
        return 1;
    case LOGREP_API_BROKER_HEARTBEAT:
        *err = handle_heartbeat(n, c, now_ms);
        return 1;
    case LOGREP_API_ALTER_PARTITION:
        *err = handle_alter_partition(n, c);
        return 1;
    case LOGREP_API_CREATE_TOPICS:
        *err = lr_nctl_create_topics(n, c);
        return 1;
    case LOGREP_API_DELETE_TOPICS:
        *err = handle_delete_topics(n, c);
        return 1;
    case LOGREP_API_ALLOCATE_PRODUCER_IDS:
        *err = handle_allocate_pids(n, c);
        return 1;
    default:
        return 0;
    }
}

const lr_md_image *lr_nctl_image(const logrep_node *n)
{
    return n && n->ctl && !ctl_failed(n) ? lr_ctl_image(n->ctl->ctl) : NULL;
}

int lr_nctl_set_topic_config(logrep_node *n, const char *topic, const char *name,
                             const char *value)
{
    if (!n || !n->ctl)
        return LOGREP_ERR_NOT_CONTROLLER;
    int err = lr_ctl_set_topic_config(n->ctl->ctl, topic, name, value);
    lr_node_metadata_changed(n); /* parked metadata fetches see the record */
    return err;
}
