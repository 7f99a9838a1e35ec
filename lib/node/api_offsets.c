/* ListOffsets and OffsetForLeaderEpoch: per-partition questions answered
 * by the replica, in the request's shape. */
#include "node/node_int.h"

/* Requests shaped Topics[Name, Partitions[Index, ...]] answered with the
 * same shape: the names of the fields differ per API. */
typedef struct part_api {
    lr_fname topic_name;       /* Name or Topic */
    lr_fname index_q;          /* index field in the request partition */
    lr_fname index_r;          /* and in the response partition */
    /* Fills rp for one partition; p is NULL when not hosted here. */
    void (*fn)(const lr_req *r, lr_npart *p, int16_t missing, const logrep_struct *rq,
               const logrep_struct *qp, logrep_struct *rp);
} part_api;

static int each_partition(logrep_node *n, const lr_req *r, const part_api *api)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int err = lr_req_init(r);
    if (err)
        return err;
    logrep_struct *rs = logrep_msg_root(r->resp);
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
            lr_npart *p = name ? lr_part_named(n, name, len, index) : NULL;
            api->fn(r, p, p ? 0 : lr_missing_part_error(n, name, len, index), rq, qp, rp);
        }
    }
    return lr_req_answer(n, r);
}

static void list_offsets_part(const lr_req *r, lr_npart *p, int16_t missing,
                              const logrep_struct *rq, const logrep_struct *qp, logrep_struct *rp)
{
    int64_t off = -1, ts = -1;
    int32_t ep = -1;
    logrep_err e = missing;
    if (p)
        e = lr_partition_list_offsets(p->rep, (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                                      lr_f_int(qp, LR_FN_Timestamp), lr_f_int(rq, LR_FN_IsolationLevel) == 1,
                                      &off, &ts, &ep);
    lr_f_set_int(rp, LR_FN_ErrorCode, lr_wire_code(e));
    lr_f_set_int(rp, LR_FN_Offset, off);
    lr_f_set_int(rp, LR_FN_Timestamp, ts);
    lr_f_set_int(rp, LR_FN_LeaderEpoch, ep);
    if (logrep_msg_version(r->msg) == 0) {
        int fo = lr_fid(rp, LR_FN_OldStyleOffsets);
        logrep_struct_set_count(rp, fo, off >= 0 ? 1 : 0);
        if (off >= 0)
            logrep_struct_set_elem_int(rp, fo, 0, off);
    }
}

static void epoch_end_part(const lr_req *r, lr_npart *p, int16_t missing, const logrep_struct *rq,
                           const logrep_struct *qp, logrep_struct *rp)
{
    (void)r;
    (void)rq;
    int32_t e_epoch = -1;
    int64_t e_off = -1;
    logrep_err e = missing;
    if (p)
        e = lr_partition_epoch_end(p->rep, (int32_t)lr_f_int(qp, LR_FN_CurrentLeaderEpoch),
                                   (int32_t)lr_f_int(qp, LR_FN_LeaderEpoch), &e_epoch, &e_off);
    lr_f_set_int(rp, LR_FN_ErrorCode, lr_wire_code(e));
    lr_f_set_int(rp, LR_FN_LeaderEpoch, e_epoch);
    lr_f_set_int(rp, LR_FN_EndOffset, e_off);
}

static const part_api list_offsets_api = {LR_FN_Name, LR_FN_PartitionIndex, LR_FN_PartitionIndex,
                                          list_offsets_part};
static const part_api epoch_end_api = {LR_FN_Topic, LR_FN_Partition, LR_FN_Partition,
                                       epoch_end_part};

int lr_api_list_offsets(logrep_node *n, const lr_req *r)
{
    return each_partition(n, r, &list_offsets_api);
}

int lr_api_epoch_end(logrep_node *n, const lr_req *r)
{
    return each_partition(n, r, &epoch_end_api);
}
