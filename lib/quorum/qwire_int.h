/* Shared by the quorum's wire codec: qwire.c (the core RPCs) and
 * qwire_snap.c (FetchSnapshot, a Fetch answer's SnapshotId). */
#ifndef LR_QUORUM_QWIRE_INT_H
#define LR_QUORUM_QWIRE_INT_H

#include "proto/fields.h"
#include "quorum/qwire.h"

#define BAD LOGREP_ERR__INVALID_ARG

static inline int epoch_ok(int64_t e) { return e >= 0 && e <= INT32_MAX; }
static inline int id_ok(int64_t id) { return id >= 0 && id <= INT32_MAX; }
static inline int leader_ok(int64_t id) { return id >= -1 && id <= INT32_MAX; }
/* Wire error codes: 0, Kafka's codes, or UNKNOWN_SERVER_ERROR (-1). */
static inline int code_ok(int64_t c) { return c >= LOGREP_ERR_UNKNOWN_SERVER_ERROR; }

int lr_qw_is_zero_uuid(const uint8_t *u);

/* The partition element of a body that names exactly the metadata
 * partition (one topic, one partition, index 0), else NULL. */
logrep_struct *lr_qw_one_partition(const logrep_struct *root, lr_fname topics, lr_fname index);
/* Makes the body name the metadata partition; its element, or NULL. */
logrep_struct *lr_qw_put_partition(logrep_struct *root, lr_fname topics, lr_fname index);

/* ClusterId from w (nothing when w has none). */
int lr_qw_set_cluster_id(const lr_qwire *w, logrep_struct *r);
/* 1 when r names no cluster id or w's (or w has none). */
int lr_qw_cluster_ok(const lr_qwire *w, const logrep_struct *r);

/* A Fetch or FetchSnapshot answer's partition p: CurrentLeader (the
 * leader and the answer's epoch) from m; read back into out with the
 * ErrorCode, CurrentLeader required (BAD when absent or out of range). */
int lr_qw_put_leader(logrep_struct *p, const lr_qmsg *m);
int lr_qw_get_leader(logrep_struct *p, lr_qmsg *out);

/* out zeroed as type t, every "none" field at -1. */
void lr_qw_blank(lr_qmsg *out, lr_qmsg_type t);

/* qwire_snap.c: FetchSnapshot both ways. */
int lr_qw_enc_fsnap_req(const lr_qwire *w, logrep_struct *r, int ver, const lr_qmsg *m);
int lr_qw_enc_fsnap_resp(logrep_struct *r, const lr_qmsg *m);
int lr_qw_dec_fsnap_req(logrep_struct *r, lr_qmsg *out);
/* out blanked as the answer, from set; req is the request answered. */
int lr_qw_dec_fsnap_resp(logrep_struct *r, const lr_qmsg *req, lr_qmsg *out);

/* A Fetch answer's SnapshotId (p: its partition): put when m has one
 * (no entries with it); read into out (BAD when malformed or not alone:
 * records, a divergence or an error beside it). */
int lr_qw_put_snapshot_id(logrep_struct *p, const lr_qmsg *m);
int lr_qw_get_snapshot_id(logrep_struct *p, lr_qmsg *out);

#endif
