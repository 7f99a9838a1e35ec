/* Internal to lib/controller: the controller's state and the helpers its
 * files share (controller.c: lifecycle, emission, sessions, the partition
 * change builder, fencing; ctl_brokers.c: registration, heartbeats, tick;
 * ctl_topics.c: topics, AlterPartition, elections, producer ids;
 * ctl_configs.c: AlterConfigs and IncrementalAlterConfigs of a topic). */
#ifndef LR_CONTROLLER_CTL_INT_H
#define LR_CONTROLLER_CTL_INT_H

#include <stdint.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/prng.h"
#include "controller/controller.h"

typedef struct ctl_session {
    int32_t id;
    uint8_t live;              /* has a session (cleared when fenced by timeout/shutdown) */
    uint8_t heard;             /* this controller has heard from the incarnation it holds */
    int64_t last_contact_ms;   /* -1: starts at the next timed call */
    int64_t metadata_offset;   /* last reported by a heartbeat, -1 unknown */
    int64_t cs_offset;         /* controlled shutdown: records up to here must be applied */
} ctl_session;

/* Election kinds, for counters. */
enum { EL_NONE, EL_CLEAN, EL_ELR, EL_LAST_KNOWN, EL_UNCLEAN };
/* Election modes (Kafka's PartitionChangeBuilder.Election). */
enum { MODE_ONLINE, MODE_PREFERRED, MODE_UNCLEAN };

/* Which partitions a broker-wide sweep visits. */
enum { IN_ISR = 1, IN_ELR = 2, IN_LKE = 4, LEADERLESS = 8 };

struct lr_ctl {
    lr_alloc alloc;
    lr_log log;
    lr_md_image *img;
    lr_ctl_sink_fn sink;
    void *sink_ctx;
    lr_prng prng;
    int64_t session_timeout_ms;
    int32_t default_rf, default_partitions;

    ctl_session *sessions;
    size_t n_sessions, cap_sessions;

    lr_buf enc; /* encoding scratch */
    /* builder scratch: 6 lists of up to `slot` ids */
    int32_t *ids;
    size_t slot;

    lr_ctl_stats stats;
    int failed;  /* the sink's error: stopped */
    int standby; /* follows the log, leads nothing (lr_ctl_set_standby) */
};

typedef struct change_opts {
    const int32_t *target_isr; /* NULL: the current ISR */
    int32_t n_target_isr;
    int32_t remove;  /* leaves the ISR and may not lead (fencing, shutdown); -1 none */
    int32_t add;     /* may lead although the image still shows it fenced; -1 none */
    int32_t unclean; /* restarted uncleanly: leaves ISR and ELR; -1 none */
    int mode;        /* MODE_* */
    int8_t target_lrs;   /* LR_MD_LRS_NO_CHANGE: keep */
    uint8_t clear_elr;   /* min.insync.replicas changed: drop ELR state, no election */
} change_opts;

/* Encodes, applies, then hands the record to the sink. */
int lr_ctli_emit(lr_ctl *ctl, const lr_md_record *rec);
int lr_ctli_ids_reserve(lr_ctl *ctl, size_t n);
ctl_session *lr_ctli_session_get(lr_ctl *ctl, int32_t id, int create);
int lr_ctli_sessions_adopt(lr_ctl *ctl, int64_t now_ms);
int lr_ctli_broker_active(const lr_md_image *img, int32_t id);
void lr_ctli_opts_init(change_opts *o);
int lr_ctli_partition_change(lr_ctl *ctl, const lr_md_topic *t, int32_t pid, const change_opts *o,
                             int *changed);
int lr_ctli_sweep(lr_ctl *ctl, int32_t b, unsigned which, const change_opts *o);
int lr_ctli_emit_registration_change(lr_ctl *ctl, const lr_md_broker *b, int8_t fenced,
                                     int8_t shutdown);
int lr_ctli_fence_broker(lr_ctl *ctl, int32_t id);
int lr_ctli_unfence_broker(lr_ctl *ctl, int32_t id);
int lr_ctli_leads_any(const lr_md_image *img, int32_t id);
/* One topic ConfigRecord (value NULL deletes) and its side effects:
 * min.insync.replicas clears ELR state, unclean.leader.election.enable
 * elects leaders of leaderless partitions. No checks. */
int lr_ctli_emit_topic_config(lr_ctl *ctl, const char *topic, const char *name, const char *value);
/* Kafka's Topic.validate: 0 or LOGREP_ERR_INVALID_TOPIC_EXCEPTION with
 * its message in why (when why is empty). */
int lr_ctli_topic_name_check(const char *name, char *why, size_t cap);
int lr_ctli_str_len_ok(const char *s, int allow_empty);
lr_md_str lr_ctli_mkstr(const char *s);

#endif
