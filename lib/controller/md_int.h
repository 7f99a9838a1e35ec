/* Internal to the metadata image, shared by its files: metadata.c (the
 * image, its lifecycle, lr_md_apply), md_brokers.c (broker records),
 * md_topics.c (topics and their partitions), md_configs.c (config records
 * and the topic settings they give), md_describe.c (status, summaries,
 * kafka-topics --describe, the invariants) and the record codec
 * (md_codec.c, md_encode.c, md_decode.c). */
#ifndef LR_CONTROLLER_MD_INT_H
#define LR_CONTROLLER_MD_INT_H

#include "base/hashmap.h"
#include "controller/metadata.h"

typedef struct md_kv {
    int8_t type;
    char *resource;
    char *name;
    char *value;
} md_kv;

struct lr_md_image {
    lr_alloc alloc;
    lr_md_defaults defaults;
    int64_t next_offset;
    int64_t next_producer_id;

    lr_md_broker *brokers; /* ascending id */
    size_t n_brokers, cap_brokers;

    lr_md_topic **topics; /* creation order */
    size_t n_topics, cap_topics;
    lr_hashmap by_name, by_id; /* values: lr_md_topic * */

    md_kv *kvs; /* non-topic config records */
    size_t n_kvs, cap_kvs;

    int32_t *scratch; /* 4 slots of scratch_slot ids: a candidate partition state */
    size_t scratch_slot;
};

/* A candidate partition state (md_topics.c validates and stores it). */
typedef struct part_state {
    const int32_t *rep, *isr, *elr, *lke;
    int32_t nrep, nisr, nelr, nlke;
    int32_t leader, leader_epoch, partition_epoch;
    int8_t lrs;
} part_state;

/* metadata.c */
/* Grows *arr (element size sz) to hold at least need elements. */
int lr_mdi_grow(const lr_alloc *a, void **arr, size_t *cap, size_t need, size_t sz);
char *lr_mdi_dup_str(const lr_alloc *a, lr_md_str s);
/* Strings that become C strings must not contain NUL. */
int lr_mdi_str_ok(lr_md_str s, int nullable);

/* md_brokers.c */
void lr_mdi_broker_release(const lr_alloc *a, lr_md_broker *b);
lr_md_broker *lr_mdi_broker_find(const lr_md_image *img, int32_t id);
/* Broker named by a fence/unfence/unregister/change record: must exist
 * with the record's epoch. */
lr_md_broker *lr_mdi_broker_checked(lr_md_image *img, int32_t id, int64_t epoch);
int lr_mdi_apply_register(lr_md_image *img, const struct lr_md_reg_rec *r);
int lr_mdi_apply_unregister(lr_md_image *img, int32_t id, int64_t epoch);
int lr_mdi_apply_change(lr_md_image *img, const struct lr_md_change_rec *c);

/* md_topics.c */
void lr_mdi_topic_free(const lr_alloc *a, lr_md_topic *t);
lr_md_topic *lr_mdi_topic_by_name_len(const lr_md_image *img, const char *name, size_t len);
int lr_mdi_apply_topic(lr_md_image *img, const lr_md_record *rec);
int lr_mdi_apply_remove_topic(lr_md_image *img, const uint8_t id[16]);
int lr_mdi_state_valid(const part_state *s);
int lr_mdi_apply_partition(lr_md_image *img, const struct lr_md_part_rec *r);
int lr_mdi_apply_partition_change(lr_md_image *img, const struct lr_md_part_rec *r);

/* md_configs.c */
int lr_mdi_apply_config(lr_md_image *img, const lr_md_record *rec);
/* min.insync.replicas of a topic as configured, not capped. */
int32_t lr_mdi_topic_min_isr_raw(const lr_md_image *img, const lr_md_topic *t);

/* md_codec.c: the highest version of a record type this codec reads and
 * writes; -1 for a type it does not know. */
int lr_mdi_max_version(int type);

#endif
