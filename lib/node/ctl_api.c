/* The controller's APIs (on the controller listener): BrokerRegistration,
 * BrokerHeartbeat, AlterPartition, DeleteTopics and AllocateProducerIds,
 * each translated into a call of the controller state machine
 * (lib/controller) and its result into the answer. CreateTopics is in
 * ctl_create.c. */
#include <string.h>

#include "controller/controller.h"
#include "node/node_int.h"

int lr_ctl_api_registration(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
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
        err = lr_ctl_register_broker(lr_nctl_ctl(n), &rr, r->now_ms, &resp);
    int e2 = lr_req_init(r);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(r->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(err));
    lr_f_set_int(rs, LR_FN_BrokerEpoch, err ? -1 : resp.broker_epoch);
    return lr_req_answer(n, r);
}

int lr_ctl_api_heartbeat(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    lr_ctl_heartbeat_req hr;
    hr.broker_id = (int32_t)lr_f_int(rq, LR_FN_BrokerId);
    hr.broker_epoch = lr_f_int(rq, LR_FN_BrokerEpoch);
    hr.current_metadata_offset = lr_f_int(rq, LR_FN_CurrentMetadataOffset);
    hr.want_fence = (uint8_t)lr_f_int(rq, LR_FN_WantFence);
    hr.want_shutdown = (uint8_t)lr_f_int(rq, LR_FN_WantShutDown);
    lr_ctl_heartbeat_resp resp;
    memset(&resp, 0, sizeof resp);
    int err = lr_ctl_heartbeat(lr_nctl_ctl(n), &hr, r->now_ms, &resp);
    int e2 = lr_req_init(r);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(r->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(err));
    lr_f_set_int(rs, LR_FN_IsCaughtUp, resp.is_caught_up);
    lr_f_set_int(rs, LR_FN_IsFenced, err ? 1 : resp.is_fenced);
    lr_f_set_int(rs, LR_FN_ShouldShutDown, resp.should_shutdown);
    return lr_req_answer(n, r);
}

int lr_ctl_api_alter_partition(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int e2 = lr_req_init(r);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(r->resp);
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
            int err = lr_ctl_alter_partition(lr_nctl_ctl(n), &ar, &st);
            lr_f_set_int(rp, LR_FN_PartitionIndex, ar.partition);
            lr_f_set_int(rp, LR_FN_ErrorCode, lr_wire_code(err));
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
    return lr_req_answer(n, r);
}

int lr_ctl_delete_named(logrep_node *n, const char *p, size_t len, int64_t now_ms)
{
    char name[LR_MD_MAX_TOPIC_NAME + 1];
    if (len > LR_MD_MAX_TOPIC_NAME || memchr(p, 0, len))
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    memcpy(name, p, len);
    name[len] = 0;
    return lr_ctl_delete_topic(lr_nctl_at(n, now_ms), name);
}

int lr_ctl_api_delete_topics(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int e2 = lr_req_init(r);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(r->resp);
    int version = logrep_msg_version(r->msg);
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
        int err = LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        static const uint8_t zero[16];
        int by_id = tid && memcmp(tid, zero, 16) != 0;
        if (by_id)
            logrep_struct_set_uuid(rt, lr_fid(rt, LR_FN_TopicId), tid);
        if (by_id && p && len >= 0) {
            err = LOGREP_ERR_INVALID_REQUEST; /* Kafka: not both name and id */
        } else if (by_id && lr_nctl_failed(n)) {
            err = LOGREP_ERR_NOT_CONTROLLER;
        } else if (by_id) {
            /* v6: by topic id; the answer names the topic. */
            const lr_md_image *img = lr_nctl_image(n);
            const lr_md_topic *t = img ? lr_md_topic_by_id(img, tid) : NULL;
            err = LOGREP_ERR_UNKNOWN_TOPIC_ID;
            logrep_struct_set_null(rt, lr_fid(rt, LR_FN_Name));
            if (t) {
                lr_f_set_str(rt, LR_FN_Name, t->name, (int32_t)strlen(t->name));
                err = lr_ctl_delete_topic(lr_nctl_ctl(n), t->name);
            }
        } else if (p && len >= 0 && len <= LR_MD_MAX_TOPIC_NAME) {
            lr_f_set_str(rt, LR_FN_Name, p, len);
            err = lr_ctl_delete_named(n, p, (size_t)len, r->now_ms);
        }
        lr_f_set_int(rt, LR_FN_ErrorCode, lr_wire_code(err));
    }
    return lr_req_answer(n, r);
}

int lr_ctl_api_allocate_pids(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int64_t first = -1;
    int32_t count = 0;
    int err = lr_ctl_allocate_producer_ids(lr_nctl_ctl(n), (int32_t)lr_f_int(rq, LR_FN_BrokerId),
                                           lr_f_int(rq, LR_FN_BrokerEpoch), &first, &count);
    int e2 = lr_req_init(r);
    if (e2)
        return e2;
    logrep_struct *rs = logrep_msg_root(r->resp);
    lr_f_set_int(rs, LR_FN_ErrorCode, lr_wire_code(err));
    lr_f_set_int(rs, LR_FN_ProducerIdStart, first);
    lr_f_set_int(rs, LR_FN_ProducerIdLen, count);
    return lr_req_answer(n, r);
}
