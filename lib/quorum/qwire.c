/* lr_qmsg <-> the KRaft RPCs (qwire.h, docs/quorum.md "On the wire"). */
#include <string.h>

#include "proto/fields.h"
#include "quorum/qbatch.h"
#include "quorum/qwire_int.h"

#define TOPIC_LEN ((int32_t)(sizeof(LR_QWIRE_TOPIC) - 1))
#define FETCH_MAX_BYTES (8 << 20)

/* The metadata topic's id, fixed across clusters. */
static const uint8_t metadata_topic_id[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* Any id a voter set never holds would do; this one is fixed so that
 * every node agrees. */
const uint8_t lr_qwire_observer_dir[16] = {'l', 'o', 'g', 'r', 'e', 'p', '.', 'o',
                                           'b', 's', 'e', 'r', 'v', 'e', 'r', '.'};

static const uint8_t no_bytes[1];

int lr_qwire_api(lr_qmsg_type t, int *version)
{
    int key, v;
    switch (t) {
    case LR_QM_VOTE_REQ:
    case LR_QM_VOTE_RESP: key = LOGREP_API_VOTE, v = LR_QWIRE_VOTE_V; break;
    case LR_QM_BEGIN_REQ:
    case LR_QM_BEGIN_RESP: key = LOGREP_API_BEGIN_QUORUM_EPOCH, v = LR_QWIRE_BEGIN_V; break;
    case LR_QM_END_REQ:
    case LR_QM_END_RESP: key = LOGREP_API_END_QUORUM_EPOCH, v = LR_QWIRE_END_V; break;
    case LR_QM_FETCH_REQ:
    case LR_QM_FETCH_RESP: key = LOGREP_API_FETCH, v = LR_QWIRE_FETCH_V; break;
    case LR_QM_FSNAP_REQ:
    case LR_QM_FSNAP_RESP: key = LOGREP_API_FETCH_SNAPSHOT, v = LR_QWIRE_FSNAP_V; break;
    default: return -1;
    }
    if (version)
        *version = v;
    return key;
}

static int is_resp_type(lr_qmsg_type t)
{
    return t == LR_QM_VOTE_RESP || t == LR_QM_BEGIN_RESP || t == LR_QM_END_RESP ||
           t == LR_QM_FETCH_RESP || t == LR_QM_FSNAP_RESP;
}

int lr_qw_is_zero_uuid(const uint8_t *u)
{
    static const uint8_t zero[16];
    return !u || memcmp(u, zero, 16) == 0;
}

/* --- the one partition ---------------------------------------------------- */

/* The topic's name is TopicName, Topic (Fetch) or Name (FetchSnapshot). */
static int topic_name_field(const logrep_struct *t)
{
    int f = lr_fid(t, LR_FN_TopicName);
    if (f < 0)
        f = lr_fid(t, LR_FN_Topic);
    return f >= 0 ? f : lr_fid(t, LR_FN_Name);
}

static int names_metadata_topic(const logrep_struct *t)
{
    int id = lr_fid(t, LR_FN_TopicId);
    if (id >= 0 && logrep_struct_has(t, id)) {
        const uint8_t *u = logrep_struct_uuid(t, id);
        return u && memcmp(u, metadata_topic_id, 16) == 0;
    }
    const uint8_t *p = NULL;
    int32_t len = -1;
    if (logrep_struct_bytes(t, topic_name_field(t), &p, &len) != 0)
        return 0;
    return len == TOPIC_LEN && memcmp(p, LR_QWIRE_TOPIC, (size_t)len) == 0;
}

/* The partition element of a body that names exactly the metadata
 * partition (one topic, one partition, index 0), else NULL. */
logrep_struct *lr_qw_one_partition(const logrep_struct *root, lr_fname topics, lr_fname index)
{
    if (lr_f_count(root, topics) != 1)
        return NULL;
    logrep_struct *t = lr_f_elem(root, topics, 0);
    if (!names_metadata_topic(t) || lr_f_count(t, LR_FN_Partitions) != 1)
        return NULL;
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    return lr_f_int(p, index) == 0 ? p : NULL;
}

static int set_topic(logrep_struct *t)
{
    int f = lr_fid(t, LR_FN_TopicId);
    if (f >= 0 && logrep_struct_set_uuid(t, f, metadata_topic_id) != 0)
        return LOGREP_ERR__INVALID_ARG;
    return logrep_struct_set_bytes(t, topic_name_field(t), LR_QWIRE_TOPIC, TOPIC_LEN);
}

/* Makes the body name the metadata partition; its element, or NULL. */
logrep_struct *lr_qw_put_partition(logrep_struct *root, lr_fname topics, lr_fname index)
{
    if (lr_f_set_count(root, topics, 1) != 0)
        return NULL;
    logrep_struct *t = lr_f_elem(root, topics, 0);
    if (set_topic(t) != 0 || lr_f_set_count(t, LR_FN_Partitions, 1) != 0)
        return NULL;
    logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, 0);
    return lr_f_set_int(p, index, 0) == 0 ? p : NULL;
}

/* --- encoding ------------------------------------------------------------- */

int lr_qw_set_cluster_id(const lr_qwire *w, logrep_struct *r)
{
    if (!w->cluster_id)
        return 0; /* null, or absent where tagged */
    size_t len = strlen(w->cluster_id);
    if (len > INT16_MAX)
        return LOGREP_ERR__INVALID_ARG;
    return lr_f_set_str(r, LR_FN_ClusterId, w->cluster_id, (int32_t)len);
}

/* Every response of the four: the partition's error and the responder's
 * leader and epoch. */
static logrep_struct *put_resp_partition(logrep_struct *r, const lr_qmsg *m)
{
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (p) {
        lr_f_set_int(p, LR_FN_ErrorCode, m->error);
        lr_f_set_int(p, LR_FN_LeaderId, m->leader_id);
        lr_f_set_int(p, LR_FN_LeaderEpoch, m->epoch);
    }
    return p;
}

static int enc_vote_req(logrep_struct *r, int ver, const lr_qmsg *m, int32_t to)
{
    if (m->pre_vote && ver < 2)
        return LOGREP_ERR__INVALID_ARG;
    lr_f_set_int(r, LR_FN_VoterId, to);
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_ReplicaEpoch, m->epoch);
    lr_f_set_int(p, LR_FN_ReplicaId, m->from);
    lr_f_set_int(p, LR_FN_LastOffsetEpoch, m->last_epoch);
    lr_f_set_int(p, LR_FN_LastOffset, m->end_offset);
    lr_f_set_int(p, LR_FN_PreVote, m->pre_vote);
    return 0;
}

static int enc_begin_req(logrep_struct *r, const lr_qmsg *m, int32_t to)
{
    if (m->from != m->leader_id)
        return LOGREP_ERR__INVALID_ARG; /* only the leader sends it */
    lr_f_set_int(r, LR_FN_VoterId, to);
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_LeaderId, m->leader_id);
    lr_f_set_int(p, LR_FN_LeaderEpoch, m->epoch);
    return 0;
}

static int enc_end_req(logrep_struct *r, const lr_qmsg *m)
{
    if (m->from != m->leader_id || m->n_successors > LR_QUORUM_MAX_VOTERS)
        return LOGREP_ERR__INVALID_ARG;
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_LeaderId, m->leader_id);
    lr_f_set_int(p, LR_FN_LeaderEpoch, m->epoch);
    /* v0 lists ids, v1 (id, directory id) pairs: both are filled, the
     * version encodes one. */
    int32_t n = m->n_successors;
    int fs = lr_fid(p, LR_FN_PreferredSuccessors);
    int err = logrep_struct_set_count(p, fs, n);
    if (!err)
        err = lr_f_set_count(p, LR_FN_PreferredCandidates, n);
    for (int32_t i = 0; !err && i < n; i++) {
        logrep_struct_set_elem_int(p, fs, i, m->successors[i]);
        lr_f_set_int(lr_f_elem(p, LR_FN_PreferredCandidates, i), LR_FN_CandidateId,
                     m->successors[i]);
    }
    return err;
}

static int enc_fetch_req(const lr_qwire *w, logrep_struct *r, int ver, const lr_qmsg *m)
{
    if (ver < 12 || (m->observer && ver < 17))
        return LOGREP_ERR__INVALID_ARG;
    int err = lr_qw_set_cluster_id(w, r);
    if (err)
        return err;
    logrep_struct *rs;
    if (ver >= 15) {
        if ((err = logrep_struct_set_struct(r, lr_fid(r, LR_FN_ReplicaState), &rs)) != 0)
            return err;
        lr_f_set_int(rs, LR_FN_ReplicaId, m->from);
        lr_f_set_int(rs, LR_FN_ReplicaEpoch, -1); /* a broker epoch: none here */
    } else {
        lr_f_set_int(r, LR_FN_ReplicaId, m->from);
    }
    /* The quorum answers at once (no long poll yet). */
    lr_f_set_int(r, LR_FN_MaxWaitMs, 0);
    lr_f_set_int(r, LR_FN_MinBytes, 0);
    lr_f_set_int(r, LR_FN_MaxBytes, FETCH_MAX_BYTES);
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Topics, LR_FN_Partition);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_CurrentLeaderEpoch, m->epoch);
    lr_f_set_int(p, LR_FN_FetchOffset, m->fetch_offset);
    lr_f_set_int(p, LR_FN_LastFetchedEpoch, m->last_fetched_epoch);
    lr_f_set_int(p, LR_FN_PartitionMaxBytes, FETCH_MAX_BYTES);
    if (m->observer)
        err = logrep_struct_set_uuid(p, lr_fid(p, LR_FN_ReplicaDirectoryId), lr_qwire_observer_dir);
    return err;
}

int lr_qw_put_leader(logrep_struct *p, const lr_qmsg *m)
{
    logrep_struct *s;
    int err = logrep_struct_set_struct(p, lr_fid(p, LR_FN_CurrentLeader), &s);
    if (!err)
        err = lr_f_set_int(s, LR_FN_LeaderId, m->leader_id);
    return err ? err : lr_f_set_int(s, LR_FN_LeaderEpoch, m->epoch);
}

static int enc_fetch_resp(logrep_struct *r, int ver, const lr_qmsg *m, int64_t now_ms,
                          lr_buf *recs)
{
    if (ver < 12)
        return LOGREP_ERR__INVALID_ARG;
    if (m->n_entries && (!m->entries || !recs))
        return LOGREP_ERR__INVALID_ARG;
    logrep_struct *p = lr_qw_put_partition(r, LR_FN_Responses, LR_FN_PartitionIndex);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_ErrorCode, m->error);
    lr_f_set_int(p, LR_FN_HighWatermark, m->hw);
    /* lr_qmsg has no log start; Kafka's raft client does not read it. */
    lr_f_set_int(p, LR_FN_LogStartOffset, 0);
    logrep_struct *s;
    int err = lr_qw_put_leader(p, m);
    if (err)
        return err;
    if (m->div_end_offset >= 0) {
        if ((err = logrep_struct_set_struct(p, lr_fid(p, LR_FN_DivergingEpoch), &s)) != 0)
            return err;
        lr_f_set_int(s, LR_FN_Epoch, m->div_epoch);
        lr_f_set_int(s, LR_FN_EndOffset, m->div_end_offset);
    }
    if ((err = lr_qw_put_snapshot_id(p, m)) != 0)
        return err;
    const uint8_t *b = no_bytes;
    size_t len = 0;
    if (m->n_entries) {
        lr_buf_clear(recs);
        if ((err = lr_qbatch_encode(m->base_offset, m->entries, m->n_entries, now_ms, recs)) != 0)
            return err;
        if (recs->len > INT32_MAX)
            return LOGREP_ERR__LIMIT;
        b = recs->data;
        len = recs->len;
    }
    return logrep_struct_set_records(p, lr_fid(p, LR_FN_Records), b, (int32_t)len);
}

int lr_qwire_encode(const lr_qwire *w, logrep_msg *msg, const lr_qmsg *m, int32_t to,
                    int64_t now_ms, lr_buf *recs)
{
    int ver = logrep_msg_version(msg);
    logrep_struct *r = logrep_msg_root(msg);
    if (!w || !m || !r || lr_qwire_api(m->type, NULL) != logrep_msg_api_key(msg) ||
        is_resp_type(m->type) != logrep_msg_is_response(msg))
        return LOGREP_ERR__INVALID_ARG;
    int err = 0;
    logrep_struct *p;
    switch (m->type) {
    case LR_QM_VOTE_REQ:
    case LR_QM_BEGIN_REQ:
    case LR_QM_END_REQ:
        if ((err = lr_qw_set_cluster_id(w, r)) != 0)
            return err;
        if (m->type == LR_QM_VOTE_REQ)
            return enc_vote_req(r, ver, m, to);
        return m->type == LR_QM_BEGIN_REQ ? enc_begin_req(r, m, to) : enc_end_req(r, m);
    case LR_QM_VOTE_RESP:
    case LR_QM_BEGIN_RESP:
    case LR_QM_END_RESP:
        if (!(p = put_resp_partition(r, m)))
            return LOGREP_ERR__NOMEM;
        if (m->type == LR_QM_VOTE_RESP)
            err = lr_f_set_int(p, LR_FN_VoteGranted, m->granted != 0);
        return err;
    case LR_QM_FETCH_REQ: return enc_fetch_req(w, r, ver, m);
    case LR_QM_FETCH_RESP: return enc_fetch_resp(r, ver, m, now_ms, recs);
    case LR_QM_FSNAP_REQ: return lr_qw_enc_fsnap_req(w, r, ver, m);
    case LR_QM_FSNAP_RESP: return lr_qw_enc_fsnap_resp(r, m);
    }
    return LOGREP_ERR__INVALID_ARG;
}

int lr_qwire_error_response(logrep_msg *resp, int16_t code)
{
    logrep_struct *r = logrep_msg_root(resp);
    int key = logrep_msg_api_key(resp);
    if (!r || !logrep_msg_is_response(resp) || !code || !code_ok(code) ||
        (key != LOGREP_API_VOTE && key != LOGREP_API_BEGIN_QUORUM_EPOCH &&
         key != LOGREP_API_END_QUORUM_EPOCH && key != LOGREP_API_FETCH &&
         key != LOGREP_API_FETCH_SNAPSHOT && key != LOGREP_API_DESCRIBE_QUORUM))
        return LOGREP_ERR__INVALID_ARG;
    /* Fetch below 7 has no top-level code: the quorum never speaks it. */
    int f = lr_fid(r, LR_FN_ErrorCode);
    if (!logrep_struct_has(r, f))
        return LOGREP_ERR__INVALID_ARG;
    return logrep_struct_set_int(r, f, code);
}

/* --- decoding ------------------------------------------------------------- */

int lr_qw_cluster_ok(const lr_qwire *w, const logrep_struct *r)
{
    const char *p = NULL;
    int32_t len = -1;
    if (!w->cluster_id || lr_f_str(r, LR_FN_ClusterId, &p, &len) != 0 || len < 0)
        return 1;
    return (size_t)len == strlen(w->cluster_id) && memcmp(p, w->cluster_id, (size_t)len) == 0;
}

/* VoterId (Vote, BeginQuorumEpoch from 1): -1 or this node. */
static int voter_key(const lr_qwire *w, const logrep_struct *r)
{
    int64_t v = lr_f_int(r, LR_FN_VoterId);
    if (v < -1 || v > INT32_MAX)
        return BAD;
    return v >= 0 && v != w->node_id ? LOGREP_ERR_INVALID_VOTER_KEY : 0;
}

void lr_qw_blank(lr_qmsg *out, lr_qmsg_type t)
{
    memset(out, 0, sizeof(*out));
    out->type = t;
    out->leader_id = -1;
    out->last_epoch = -1;
    out->last_fetched_epoch = -1;
    out->hw = -1;
    out->div_epoch = -1;
    out->div_end_offset = -1;
    out->snap_epoch = -1;
    out->size = -1;
}

static int dec_vote_req(const lr_qwire *w, logrep_struct *r, lr_qmsg *out)
{
    int err = voter_key(w, r);
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (err || !p)
        return err ? err : BAD;
    int64_t e = lr_f_int(p, LR_FN_ReplicaEpoch), id = lr_f_int(p, LR_FN_ReplicaId);
    int64_t le = lr_f_int(p, LR_FN_LastOffsetEpoch), lo = lr_f_int(p, LR_FN_LastOffset);
    if (!epoch_ok(e) || !id_ok(id) || le < -1 || le > INT32_MAX || lo < 0)
        return BAD;
    lr_qw_blank(out, LR_QM_VOTE_REQ);
    out->from = (int32_t)id;
    out->epoch = (int32_t)e;
    out->last_epoch = (int32_t)le;
    out->end_offset = lo;
    out->pre_vote = lr_f_int(p, LR_FN_PreVote) != 0;
    return 0;
}

/* BeginQuorumEpoch and EndQuorumEpoch: sent by the leader, about itself. */
static int dec_leader_req(logrep_struct *r, lr_qmsg_type t, lr_qmsg *out)
{
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return BAD;
    int64_t id = lr_f_int(p, LR_FN_LeaderId), e = lr_f_int(p, LR_FN_LeaderEpoch);
    if (!id_ok(id) || !epoch_ok(e))
        return BAD;
    lr_qw_blank(out, t);
    out->from = out->leader_id = (int32_t)id;
    out->epoch = (int32_t)e;
    if (t != LR_QM_END_REQ)
        return 0;
    int fs = lr_fid(p, LR_FN_PreferredSuccessors);
    int v1 = !logrep_struct_has(p, fs);
    int32_t n = v1 ? lr_f_count(p, LR_FN_PreferredCandidates) : logrep_struct_count(p, fs);
    if (n < 0 || n > LR_QUORUM_MAX_VOTERS)
        return BAD;
    for (int32_t i = 0; i < n; i++) {
        int64_t c = v1 ? lr_f_int(lr_f_elem(p, LR_FN_PreferredCandidates, i), LR_FN_CandidateId)
                       : logrep_struct_elem_int(p, fs, i);
        if (!id_ok(c))
            return BAD;
        out->successors[i] = (int32_t)c;
    }
    out->n_successors = (uint8_t)n;
    return 0;
}

static int dec_fetch_req(logrep_msg *msg, logrep_struct *r, lr_qmsg *out)
{
    int ver = logrep_msg_version(msg);
    if (ver < 12)
        return BAD; /* no LastFetchedEpoch: the quorum cannot check the log */
    int64_t id = ver >= 15 ? lr_f_int(logrep_struct_struct(r, lr_fid(r, LR_FN_ReplicaState)),
                                      LR_FN_ReplicaId)
                           : lr_f_int(r, LR_FN_ReplicaId);
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_Partition);
    if (!id_ok(id) || !p)
        return BAD;
    int64_t e = lr_f_int(p, LR_FN_CurrentLeaderEpoch), off = lr_f_int(p, LR_FN_FetchOffset);
    int64_t le = lr_f_int(p, LR_FN_LastFetchedEpoch);
    if (!epoch_ok(e) || off < 0 || le < -1 || le > INT32_MAX)
        return BAD;
    lr_qw_blank(out, LR_QM_FETCH_REQ);
    out->from = (int32_t)id;
    out->epoch = (int32_t)e;
    out->fetch_offset = off;
    out->last_fetched_epoch = (int32_t)le;
    out->observer = !lr_qw_is_zero_uuid(logrep_struct_uuid(p, lr_fid(p, LR_FN_ReplicaDirectoryId)));
    return 0;
}

int lr_qwire_decode_request(const lr_qwire *w, logrep_msg *msg, lr_qmsg *out)
{
    logrep_struct *r = logrep_msg_root(msg);
    if (!w || !out || !r || logrep_msg_is_response(msg))
        return BAD;
    int key = logrep_msg_api_key(msg);
    int err = lr_qw_cluster_ok(w, r) ? 0 : LOGREP_ERR_INCONSISTENT_CLUSTER_ID;
    if (err)
        return err;
    switch (key) {
    case LOGREP_API_VOTE: return dec_vote_req(w, r, out);
    case LOGREP_API_BEGIN_QUORUM_EPOCH:
        if ((err = voter_key(w, r)) != 0)
            return err;
        return dec_leader_req(r, LR_QM_BEGIN_REQ, out);
    case LOGREP_API_END_QUORUM_EPOCH: return dec_leader_req(r, LR_QM_END_REQ, out);
    case LOGREP_API_FETCH: return dec_fetch_req(msg, r, out);
    case LOGREP_API_FETCH_SNAPSHOT: return lr_qw_dec_fsnap_req(r, out);
    }
    return BAD;
}

/* Fetch records into entries from base on, held in msg's memory. */
typedef struct entries_acc {
    logrep_msg *msg;
    lr_qentry *e;
    size_t n, cap;
    int64_t base;
    int bad;
} entries_acc;

static int take_entry(void *ctx, int64_t offset, const lr_qentry *e)
{
    entries_acc *a = ctx;
    if (offset < a->base)
        return 0; /* a batch may start before the fetch offset */
    if (offset != a->base + (int64_t)a->n || e->epoch < 0 || (e->len && !e->data)) {
        a->bad = 1;
        return BAD;
    }
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        lr_qentry *ne = lr_msg_scratch(a->msg, cap * sizeof(*ne));
        if (!ne)
            return LOGREP_ERR__NOMEM;
        if (a->n)
            memcpy(ne, a->e, a->n * sizeof(*ne));
        a->e = ne;
        a->cap = cap;
    }
    a->e[a->n++] = *e;
    return 0;
}

static int dec_entries(logrep_msg *msg, logrep_struct *p, lr_qmsg *out)
{
    const uint8_t *b = NULL;
    int32_t len = -1;
    if (logrep_struct_bytes(p, lr_fid(p, LR_FN_Records), &b, &len) != 0)
        return BAD;
    if (len <= 0)
        return 0;
    entries_acc a = {msg, NULL, 0, 0, out->base_offset, 0};
    size_t used = 0;
    int err = lr_qbatch_decode(b, (size_t)len, take_entry, &a, &used);
    if (a.bad)
        return BAD;
    if (err)
        return err == LOGREP_ERR__NOMEM ? err : BAD;
    out->entries = a.e;
    out->n_entries = a.n;
    return 0;
}

int lr_qw_get_leader(logrep_struct *p, lr_qmsg *out)
{
    int fc = lr_fid(p, LR_FN_CurrentLeader);
    if (!logrep_struct_tag_present(p, fc))
        return BAD;
    logrep_struct *cl = logrep_struct_struct(p, fc);
    if (!cl)
        return LOGREP_ERR__NOMEM;
    int64_t lid = lr_f_int(cl, LR_FN_LeaderId), e = lr_f_int(cl, LR_FN_LeaderEpoch);
    int64_t code = lr_f_int(p, LR_FN_ErrorCode);
    if (!leader_ok(lid) || !epoch_ok(e) || !code_ok(code))
        return BAD;
    out->leader_id = (int32_t)lid;
    out->epoch = (int32_t)e;
    out->error = (int16_t)code;
    return 0;
}

static int dec_fetch_resp(logrep_msg *msg, logrep_struct *r, lr_qmsg *out)
{
    if (logrep_msg_version(msg) < 12)
        return BAD;
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Responses, LR_FN_PartitionIndex);
    if (!p)
        return BAD;
    int64_t hw = lr_f_int(p, LR_FN_HighWatermark);
    int err = lr_qw_get_leader(p, out);
    if (err || hw < -1)
        return err ? err : BAD;
    out->hw = hw;
    int fd = lr_fid(p, LR_FN_DivergingEpoch);
    if (logrep_struct_tag_present(p, fd)) {
        logrep_struct *d = logrep_struct_struct(p, fd);
        int64_t de = lr_f_int(d, LR_FN_Epoch), dend = lr_f_int(d, LR_FN_EndOffset);
        if (de < -1 || de > INT32_MAX || dend < -1 || (dend < 0 && de >= 0))
            return BAD;
        if (dend >= 0) { /* {-1, -1}: no divergence */
            out->div_epoch = (int32_t)de;
            out->div_end_offset = dend;
        }
    }
    if ((err = lr_qw_get_snapshot_id(p, out)) != 0)
        return err;
    /* Records only mean something in an answer that is neither an error,
     * a divergence nor a snapshot id. */
    if (out->error || out->div_end_offset >= 0 || out->snap_end > 0)
        return 0;
    return dec_entries(msg, p, out);
}

int lr_qwire_decode_response(const lr_qwire *w, logrep_msg *msg, const lr_qmsg *req,
                             int32_t from, lr_qmsg *out)
{
    logrep_struct *r = logrep_msg_root(msg);
    if (!w || !req || !out || !r || !logrep_msg_is_response(msg) || !id_ok(from) ||
        is_resp_type(req->type) || lr_qwire_api(req->type, NULL) != logrep_msg_api_key(msg))
        return BAD;
    int64_t top = lr_f_int(r, LR_FN_ErrorCode);
    if (top)
        return code_ok(top) ? (int)top : BAD;
    lr_qw_blank(out, (lr_qmsg_type)(req->type + 1));
    out->from = from;
    if (req->type == LR_QM_FETCH_REQ) {
        out->base_offset = req->fetch_offset;
        out->last_fetched_epoch = req->last_fetched_epoch;
        return dec_fetch_resp(msg, r, out);
    }
    if (req->type == LR_QM_FSNAP_REQ)
        return lr_qw_dec_fsnap_resp(r, req, out);
    logrep_struct *p = lr_qw_one_partition(r, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return BAD;
    int64_t code = lr_f_int(p, LR_FN_ErrorCode), lid = lr_f_int(p, LR_FN_LeaderId);
    int64_t e = lr_f_int(p, LR_FN_LeaderEpoch);
    if (!code_ok(code) || !leader_ok(lid) || !epoch_ok(e))
        return BAD;
    out->error = (int16_t)code;
    out->leader_id = (int32_t)lid;
    out->epoch = (int32_t)e;
    if (req->type == LR_QM_VOTE_REQ) {
        out->granted = lr_f_int(p, LR_FN_VoteGranted) != 0;
        out->pre_vote = req->pre_vote;
    }
    return 0;
}

/* --- DescribeQuorum ------------------------------------------------------- */

/* Every partition the request named, answered UNKNOWN_TOPIC_OR_PARTITION. */
static int unknown_partitions(const logrep_struct *rq, logrep_struct *rs)
{
    int32_t nt = lr_f_count(rq, LR_FN_Topics);
    int err = lr_f_set_count(rs, LR_FN_Topics, nt > 0 ? nt : 0);
    const char *msg = logrep_err_str(LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    for (int32_t i = 0; !err && i < nt; i++) {
        logrep_struct *qt = lr_f_elem(rq, LR_FN_Topics, i), *st = lr_f_elem(rs, LR_FN_Topics, i);
        const char *name = "";
        int32_t len = 0;
        lr_f_str(qt, LR_FN_TopicName, &name, &len);
        int32_t np = lr_f_count(qt, LR_FN_Partitions);
        err = lr_f_set_str(st, LR_FN_TopicName, name, len);
        if (!err)
            err = lr_f_set_count(st, LR_FN_Partitions, np > 0 ? np : 0);
        for (int32_t j = 0; !err && j < np; j++) {
            logrep_struct *sp = lr_f_elem(st, LR_FN_Partitions, j);
            lr_f_set_int(sp, LR_FN_PartitionIndex,
                         lr_f_int(lr_f_elem(qt, LR_FN_Partitions, j), LR_FN_PartitionIndex));
            lr_f_set_int(sp, LR_FN_ErrorCode, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
            err = lr_f_set_str(sp, LR_FN_ErrorMessage, msg, (int32_t)strlen(msg));
        }
    }
    return err;
}

static int64_t wall(const lr_quorum_desc *d, int64_t t, int64_t wall_now_ms)
{
    return t < 0 ? -1 : wall_now_ms - (d->now_ms - t);
}

static int put_replicas(logrep_struct *p, lr_fname f, const lr_quorum_replica *rep, size_t n,
                        const lr_quorum_desc *d, int64_t wall_now_ms)
{
    int err = lr_f_set_count(p, f, (int32_t)n);
    for (size_t i = 0; !err && i < n; i++) {
        logrep_struct *e = lr_f_elem(p, f, (int32_t)i);
        lr_f_set_int(e, LR_FN_ReplicaId, rep[i].id);
        lr_f_set_int(e, LR_FN_LogEndOffset, rep[i].log_end);
        lr_f_set_int(e, LR_FN_LastFetchTimestamp, wall(d, rep[i].last_fetch_ms, wall_now_ms));
        lr_f_set_int(e, LR_FN_LastCaughtUpTimestamp, wall(d, rep[i].caught_up_ms, wall_now_ms));
    }
    return err;
}

int lr_qwire_describe_response(logrep_msg *resp, logrep_msg *req, const lr_quorum_desc *d,
                               int64_t wall_now_ms)
{
    logrep_struct *rq = logrep_msg_root(req), *rs = logrep_msg_root(resp);
    if (!rq || !rs || !d || logrep_msg_api_key(req) != LOGREP_API_DESCRIBE_QUORUM ||
        logrep_msg_api_key(resp) != LOGREP_API_DESCRIBE_QUORUM || logrep_msg_is_response(req) ||
        !logrep_msg_is_response(resp) || d->n_voters > LR_QUORUM_MAX_VOTERS ||
        d->n_observers > LR_QUORUM_MAX_OBSERVERS)
        return BAD;
    if (!lr_qw_one_partition(rq, LR_FN_Topics, LR_FN_PartitionIndex))
        return unknown_partitions(rq, rs);
    logrep_struct *p = lr_qw_put_partition(rs, LR_FN_Topics, LR_FN_PartitionIndex);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_f_set_int(p, LR_FN_ErrorCode, d->error);
    lr_f_set_int(p, LR_FN_LeaderId, d->leader_id);
    lr_f_set_int(p, LR_FN_LeaderEpoch, d->epoch);
    lr_f_set_int(p, LR_FN_HighWatermark, d->error ? -1 : d->hw);
    if (d->error) {
        const char *m = logrep_err_str(d->error);
        return lr_f_set_str(p, LR_FN_ErrorMessage, m, (int32_t)strlen(m));
    }
    int err = put_replicas(p, LR_FN_CurrentVoters, d->voters, d->n_voters, d, wall_now_ms);
    if (!err)
        err = put_replicas(p, LR_FN_Observers, d->observers, d->n_observers, d, wall_now_ms);
    /* v2 lists the voters' endpoints; the quorum knows none. */
    if (!err)
        err = lr_f_set_count(rs, LR_FN_Nodes, (int32_t)d->n_voters);
    for (size_t i = 0; !err && i < d->n_voters; i++)
        err = lr_f_set_int(lr_f_elem(rs, LR_FN_Nodes, (int32_t)i), LR_FN_NodeId, d->voters[i].id);
    return err;
}
