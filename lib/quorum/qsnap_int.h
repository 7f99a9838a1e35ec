/* Shared by the snapshot files (qsnap.c, qsnap_xfer.c) and their tests. */
#ifndef LR_QUORUM_QSNAP_INT_H
#define LR_QUORUM_QSNAP_INT_H

#include "log/log_int.h"
#include "quorum/qsnap.h"

/* SnapshotHeader value: Version int16, LastContainedLogTimestamp int64,
 * no tagged fields. SnapshotFooter value: Version int16, no tagged fields. */
#define LR_QSNAP_HEADER_LEN 11
#define LR_QSNAP_FOOTER_LEN 3

size_t lr_qsnap_header_value(int64_t last_ts, uint8_t out[LR_QSNAP_HEADER_LEN]);
size_t lr_qsnap_footer_value(uint8_t out[LR_QSNAP_FOOTER_LEN]);

/* dir/<id><suffix> into buf (LR_PATH_MAX bytes). 0 or
 * LOGREP_ERR__INVALID_ARG. */
int lr_qsnap_path(const char *dir, lr_qsnap_id id, const char *suffix, char *buf);

/* lr_qsnap_check of the file at path (a .part being received). */
int lr_qsnap_check_path(const logrep_conf *conf, const logrep_storage *st, const char *path,
                        lr_qsnap_id id, lr_qsnap_info *info);

/* Removes the files of dir named as snapshots (kind as
 * lr_qsnap_parse_name answers) for which drop answers non-zero, then syncs
 * dir. *removed (may be NULL) gets the count. 0 or storage errors. */
typedef int (*lr_qsnap_drop_fn)(const void *ctx, lr_qsnap_id id, int kind);
int lr_qsnap_remove_if(const logrep_storage *st, const char *dir, lr_qsnap_drop_fn drop,
                       const void *ctx, size_t *removed);

/* A file written as <id>.checkpoint.part and installed as <id>.checkpoint
 * (the writer's and the receiver's). */
typedef struct lr_qsnap_part {
    const logrep_storage *st;
    logrep_file *f;
    char dir[LR_PATH_MAX], part[LR_PATH_MAX], path[LR_PATH_MAX];
    int installed;
} lr_qsnap_part;

/* Creates (or empties) dir/<id>.checkpoint.part. 0, INVALID_ARG, storage
 * errors; on error call lr_qsnap_part_drop all the same. */
int lr_qsnap_part_open(lr_qsnap_part *p, const logrep_storage *st, const char *dir,
                       lr_qsnap_id id);
/* Sync, close, rename over <id>.checkpoint, sync dir (lr_file_install). */
int lr_qsnap_part_install(lr_qsnap_part *p);
/* Closes the file and, unless installed, removes the .part. */
void lr_qsnap_part_drop(lr_qsnap_part *p);

#endif
