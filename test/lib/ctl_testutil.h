/* Helpers for the controller and metadata tests: a record log fed by the
 * controller's sink, replay into a fresh image, image comparison, and a
 * small cluster driver. */
#ifndef LOGREP_CTL_TESTUTIL_H
#define LOGREP_CTL_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "controller/controller.h"

typedef struct tc_log {
    uint8_t *data;   /* records back to back */
    size_t len, cap;
    size_t *ends;    /* end offset of record i in data */
    int64_t *offsets;
    size_t n, cap_n;
    int fail;        /* nonzero: the sink refuses every record with it */
} tc_log;

int tc_sink(void *ctx, int64_t offset, const uint8_t *rec, size_t len);
void tc_log_free(tc_log *l);
const uint8_t *tc_log_rec(const tc_log *l, size_t i, size_t *len);

/* Applies every record of l to a fresh image (conf may be NULL); aborts
 * the test if one fails. */
lr_md_image *tc_replay(const tc_log *l, const logrep_conf *conf);

/* 0 when a and b hold the same brokers, topics, partitions (every field),
 * configs, producer id mark and next offset; else 1 with a reason. */
int tc_image_diff(const lr_md_image *a, const lr_md_image *b, char *why, size_t cap);

/* A controller with a record log. */
typedef struct tc_cluster {
    lr_ctl *ctl;
    tc_log log;
    logrep_conf *conf;
    int64_t now;
    int64_t epochs[64]; /* broker epoch by id */
} tc_cluster;

/* conf_kv: "name=value" strings, NULL-terminated (may be NULL). */
void tc_start(tc_cluster *c, const char *const *conf_kv);
void tc_stop(tc_cluster *c);
/* Registers broker id (incarnation derived from id and a counter) with
 * previous epoch prev (-1 none) and heartbeats it until unfenced. Returns
 * the register result code. */
int tc_join(tc_cluster *c, int32_t id, const char *rack, int64_t prev_epoch);
/* Heartbeat as a caught-up broker. */
int tc_beat(tc_cluster *c, int32_t id);
const lr_md_partition *tc_part(tc_cluster *c, const char *topic, int32_t p);
/* Creates topic with partitions/rf and optional "k=v" configs (NULL-terminated). */
int tc_topic(tc_cluster *c, const char *name, int32_t parts, int32_t rf, const char *const *cfg);
/* AlterPartition from the current leader with the given ISR ids (epochs current). */
int tc_alter(tc_cluster *c, const char *topic, int32_t p, const int32_t *isr, size_t n);
/* Asserts lr_md_check_invariants and that the log replays to the same image. */
void tc_check(tc_cluster *c);
/* "1,2,3" for a list. */
const char *tc_ids(const int32_t *v, size_t n);

#endif
