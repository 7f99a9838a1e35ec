/* ApiVersions and Metadata (with auto-creation). */
#include <string.h>

#include "node/node_int.h"

int lr_api_versions(logrep_node *n, const lr_req *r)
{
    int err = lr_req_init(r);
    if (!err)
        err = lr_fill_api_versions(n, r);
    return err ? err : lr_req_answer(n, r);
}

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
        const lr_md_broker *b = lr_md_broker_get(n->md.img, mp->replicas[i]);
        if (!b || b->fenced)
            off++;
    }
    logrep_struct_set_count(pe, fo, off);
    off = 0;
    for (int32_t i = 0; i < mp->n_replicas; i++) {
        const lr_md_broker *b = lr_md_broker_get(n->md.img, mp->replicas[i]);
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

/* Brokers that can be reached: registered, unfenced, with a listener. */
static void fill_brokers(logrep_node *n, logrep_struct *rs)
{
    size_t nb = lr_md_broker_count(n->md.img), live = 0;
    for (size_t i = 0; i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(n->md.img, i);
        if (!b->fenced && b->n_endpoints)
            live++;
    }
    lr_f_set_count(rs, LR_FN_Brokers, (int32_t)live);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(n->md.img, i);
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
}

static void fill_all_topics(logrep_node *n, logrep_struct *rs)
{
    size_t nt = lr_md_topic_count(n->md.img), shown = 0;
    for (size_t i = 0; i < nt; i++)
        shown += strcmp(lr_md_topic_at(n->md.img, i)->name, LR_METADATA_TOPIC) != 0;
    lr_f_set_count(rs, LR_FN_Topics, (int32_t)shown);
    for (size_t i = 0, j = 0; i < nt; i++) {
        const lr_md_topic *t = lr_md_topic_at(n->md.img, i);
        if (strcmp(t->name, LR_METADATA_TOPIC) != 0) /* left by older versions */
            fill_topic(n, lr_f_elem(rs, LR_FN_Topics, (int32_t)j++), t);
    }
}

/* One requested topic: by name, or (v12) by id; a missing one may be
 * created (auto.create.topics.enable) and is then not available yet. */
static void fill_requested(logrep_node *n, const lr_req *r, logrep_struct *qt,
                           logrep_struct *te, int autocreate)
{
    const char *name;
    int32_t len;
    lr_f_str(qt, LR_FN_Name, &name, &len);
    const lr_md_topic *t = name && len >= 0 ? lr_topic_named(n, name, len) : NULL;
    if (!name || len < 0) {
        const uint8_t *id = logrep_struct_uuid(qt, lr_fid(qt, LR_FN_TopicId));
        t = id ? lr_md_topic_by_id(n->md.img, id) : NULL;
        if (!t) {
            lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_ID);
            logrep_struct_set_uuid(te, lr_fid(te, LR_FN_TopicId), id);
            logrep_struct_set_null(te, lr_fid(te, LR_FN_Name));
            return;
        }
    }
    if (t) {
        fill_topic(n, te, t);
        return;
    }
    lr_f_set_str(te, LR_FN_Name, name, len);
    int16_t bad = lr_bad_name_error(n, name, len);
    if (bad) {
        lr_f_set_int(te, LR_FN_ErrorCode, bad);
    } else if (autocreate) {
        char tn[LR_MD_MAX_TOPIC_NAME + 1];
        memcpy(tn, name, (size_t)len);
        tn[len] = 0;
        lr_admin_create_topic(n, tn, (int32_t)lr_conf_int(n->conf, LR_CONF_NUM_PARTITIONS),
                              (int16_t)lr_conf_int(n->conf, LR_CONF_DEFAULT_REPLICATION_FACTOR),
                              NULL, r->now_ms);
        lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_LEADER_NOT_AVAILABLE);
    } else {
        lr_f_set_int(te, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    }
}

int lr_api_metadata(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
    const char *cid = lr_conf_str(n->conf, LR_CONF_CLUSTER_ID);
    lr_f_set_str(rs, LR_FN_ClusterId, cid, (int32_t)strlen(cid));
    lr_f_set_int(rs, LR_FN_ControllerId, n->ctl_id);
    fill_brokers(n, rs);
    int ft = lr_fid(rq, LR_FN_Topics);
    int version = logrep_msg_version(r->msg);
    /* v0 had no null: an empty list meant every topic. */
    if (logrep_struct_is_null(rq, ft) || (version == 0 && logrep_struct_count(rq, ft) == 0)) {
        fill_all_topics(n, rs);
    } else {
        int32_t cnt = logrep_struct_count(rq, ft);
        lr_f_set_count(rs, LR_FN_Topics, cnt);
        int autocreate = lr_conf_int(n->conf, LR_CONF_AUTO_CREATE_TOPICS) &&
                         (version < 4 || lr_f_int(rq, LR_FN_AllowAutoTopicCreation));
        for (int32_t i = 0; i < cnt; i++)
            fill_requested(n, r, logrep_struct_elem(rq, ft, i), lr_f_elem(rs, LR_FN_Topics, i),
                           autocreate);
    }
    return lr_req_answer(n, r);
}
