/* Observability of the metadata image: partition status, the summary,
 * kafka-topics --describe, and the invariants the simulator checks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/uuid.h"
#include "controller/md_int.h"

/* ------------------------------------------------------------------------
 * Observability
 * ---------------------------------------------------------------------- */

unsigned lr_md_partition_status(const lr_md_image *img, const lr_md_topic *t,
                                const lr_md_partition *p)
{
    unsigned f = 0;
    int32_t min_isr = lr_mdi_topic_min_isr_raw(img, t);
    if (p->n_isr < p->n_replicas)
        f |= LR_MD_UNDER_REPLICATED;
    if (p->leader == LR_MD_NO_LEADER)
        f |= LR_MD_OFFLINE | LR_MD_UNDER_MIN_ISR;
    if (p->n_isr < min_isr)
        f |= LR_MD_UNDER_MIN_ISR;
    if (p->n_isr == min_isr)
        f |= LR_MD_AT_MIN_ISR;
    return f;
}

void lr_md_summarize(const lr_md_image *img, lr_md_summary *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < img->n_topics; i++) {
        const lr_md_topic *t = img->topics[i];
        for (int32_t j = 0; j < t->n_parts; j++) {
            unsigned f = lr_md_partition_status(img, t, &t->parts[j]);
            out->partitions++;
            out->offline += !!(f & LR_MD_OFFLINE);
            out->under_replicated += !!(f & LR_MD_UNDER_REPLICATED);
            out->under_min_isr += !!(f & LR_MD_UNDER_MIN_ISR);
            out->at_min_isr += !!(f & LR_MD_AT_MIN_ISR);
        }
    }
    for (size_t i = 0; i < img->n_brokers; i++) {
        out->brokers++;
        out->fenced_brokers += img->brokers[i].fenced;
        out->brokers_in_controlled_shutdown += img->brokers[i].in_controlled_shutdown;
    }
}

void lr_md_uuid_str(const uint8_t id[16], char out[23])
{
    lr_uuid_to_str(id, out);
}

static int bprintf(lr_buf *b, const char *fmt, ...) LR_PRINTF(2, 3);

static int bprintf(lr_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return LOGREP_ERR__INVALID_ARG;
    if ((size_t)n < sizeof tmp)
        return lr_buf_append(b, tmp, (size_t)n);
    if (lr_buf_reserve(b, (size_t)n + 1))
        return LOGREP_ERR__NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

static int put_ids(lr_buf *b, const char *label, const int32_t *v, size_t n)
{
    int err = bprintf(b, "\t%s: ", label);
    for (size_t i = 0; i < n && !err; i++)
        err = bprintf(b, i ? ",%d" : "%d", (int)v[i]);
    return err;
}

static int describe_topic(const lr_md_image *img, const lr_md_topic *t, int filter, lr_buf *out)
{
    int err = 0;
    if (filter == LR_MD_DESCRIBE_ALL) {
        char id[23];
        lr_md_uuid_str(t->id, id);
        err = bprintf(out, "Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: ",
                      t->name, id, (int)t->n_parts, t->n_parts ? (int)t->parts[0].n_replicas : 0);
        for (uint32_t i = 0; i < t->n_configs && !err; i++)
            if (t->configs[i].name)
                err = bprintf(out, "%s%s=%s", i ? "," : "", t->configs[i].name, t->configs[i].value);
        if (!err)
            err = lr_buf_append(out, "\n", 1);
    }
    for (int32_t j = 0; j < t->n_parts && !err; j++) {
        const lr_md_partition *p = &t->parts[j];
        unsigned f = lr_md_partition_status(img, t, p);
        if ((filter == LR_MD_DESCRIBE_UNDER_MIN_ISR && !(f & LR_MD_UNDER_MIN_ISR)) ||
            (filter == LR_MD_DESCRIBE_AT_MIN_ISR && !(f & LR_MD_AT_MIN_ISR)) ||
            (filter == LR_MD_DESCRIBE_UNDER_REPLICATED && !(f & LR_MD_UNDER_REPLICATED)) ||
            (filter == LR_MD_DESCRIBE_UNAVAILABLE && !(f & LR_MD_OFFLINE)))
            continue;
        err = bprintf(out, "\tTopic: %s\tPartition: %d", t->name, (int)j);
        if (!err)
            err = p->leader < 0 ? bprintf(out, "\tLeader: none")
                                : bprintf(out, "\tLeader: %d", (int)p->leader);
        if (!err)
            err = put_ids(out, "Replicas", p->replicas, p->n_replicas);
        if (!err)
            err = put_ids(out, "Isr", p->isr, p->n_isr);
        if (!err)
            err = put_ids(out, "Elr", p->elr, p->n_elr);
        if (!err)
            err = put_ids(out, "LastKnownElr", p->lke, p->n_lke);
        if (!err)
            err = lr_buf_append(out, "\n", 1);
    }
    return err;
}

int lr_md_describe(const lr_md_image *img, const char *topic, int filter, lr_buf *out)
{
    if (filter < LR_MD_DESCRIBE_ALL || filter > LR_MD_DESCRIBE_UNAVAILABLE)
        return LOGREP_ERR__INVALID_ARG;
    size_t old = out->len;
    int err = 0;
    if (topic) {
        const lr_md_topic *t = lr_md_topic_by_name(img, topic);
        if (!t)
            return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        err = describe_topic(img, t, filter, out);
    } else {
        for (size_t i = 0; i < img->n_topics && !err; i++)
            err = describe_topic(img, img->topics[i], filter, out);
    }
    if (err)
        out->len = old;
    return err;
}

int lr_md_check_invariants(const lr_md_image *img, char *why, size_t cap)
{
    char tmp[1];
    if (!why) {
        why = tmp;
        cap = sizeof tmp;
    }
    for (size_t i = 0; i < img->n_topics; i++) {
        const lr_md_topic *t = img->topics[i];
        int32_t min_isr = lr_md_topic_min_isr(img, t);
        for (int32_t j = 0; j < t->n_parts; j++) {
            const lr_md_partition *p = &t->parts[j];
            part_state s = {p->replicas, p->isr, p->elr, p->lke, p->n_replicas, p->n_isr,
                            p->n_elr, p->n_lke, p->leader, p->leader_epoch,
                            p->partition_epoch, p->lrs};
            const char *bad = NULL;
            if (!lr_mdi_state_valid(&s))
                bad = "ISR/ELR/LastKnownElr not unique subsets of the replicas";
            for (uint16_t k = 0; !bad && k < p->n_elr; k++)
                if (lr_md_ids_contains(p->isr, p->n_isr, p->elr[k]))
                    bad = "ELR intersects ISR";
            if (!bad && p->n_isr >= min_isr && p->n_elr > 0)
                bad = "ELR not empty while ISR >= min ISR";
            if (!bad && p->leader >= 0 && !lr_md_ids_contains(p->isr, p->n_isr, p->leader))
                bad = "leader not in ISR";
            for (uint16_t k = 0; !bad && k < p->n_isr; k++) {
                const lr_md_broker *b = lr_mdi_broker_find(img, p->isr[k]);
                if (b && b->fenced && (img->defaults.elr_enabled || p->n_isr > 1))
                    bad = "fenced broker in ISR";
            }
            if (!bad && !img->defaults.elr_enabled && (p->n_elr || p->n_lke))
                bad = "ELR state while ELR is disabled";
            if (bad) {
                snprintf(why, cap, "%s-%d: %s", t->name, (int)j, bad);
                return LOGREP_ERR__CORRUPT;
            }
        }
    }
    if (cap)
        why[0] = 0;
    return 0;
}
