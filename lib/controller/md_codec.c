/* Metadata record codec: Kafka's KRaft record framing and the flexible
 * versions of the records listed in metadata.h. This file holds what the
 * two directions share (the versions of each record type, their names,
 * their defaults); encoding is md_encode.c, decoding md_decode.c. */
#include <string.h>

#include "controller/md_int.h"

int lr_mdi_max_version(int type)
{
    switch (type) {
    case LR_MD_REGISTER_BROKER: return 3;
    case LR_MD_PARTITION:
    case LR_MD_PARTITION_CHANGE:
    case LR_MD_BROKER_REGISTRATION_CHANGE: return 2;
    case LR_MD_UNREGISTER_BROKER:
    case LR_MD_TOPIC:
    case LR_MD_CONFIG:
    case LR_MD_FENCE_BROKER:
    case LR_MD_UNFENCE_BROKER:
    case LR_MD_REMOVE_TOPIC:
    case LR_MD_PRODUCER_IDS: return 0;
    default: return -1;
    }
}

const char *lr_md_rtype_name(int type)
{
    switch (type) {
    case LR_MD_REGISTER_BROKER: return "RegisterBrokerRecord";
    case LR_MD_UNREGISTER_BROKER: return "UnregisterBrokerRecord";
    case LR_MD_TOPIC: return "TopicRecord";
    case LR_MD_PARTITION: return "PartitionRecord";
    case LR_MD_CONFIG: return "ConfigRecord";
    case LR_MD_PARTITION_CHANGE: return "PartitionChangeRecord";
    case LR_MD_FENCE_BROKER: return "FenceBrokerRecord";
    case LR_MD_UNFENCE_BROKER: return "UnfenceBrokerRecord";
    case LR_MD_REMOVE_TOPIC: return "RemoveTopicRecord";
    case LR_MD_PRODUCER_IDS: return "ProducerIdsRecord";
    case LR_MD_BROKER_REGISTRATION_CHANGE: return "BrokerRegistrationChangeRecord";
    default: return "UNKNOWN";
    }
}

void lr_md_record_init(lr_md_record *rec, lr_md_rtype type, int16_t version)
{
    memset(rec, 0, sizeof *rec);
    rec->type = type;
    rec->version = version;
    if (type == LR_MD_PARTITION || type == LR_MD_PARTITION_CHANGE) {
        int change = type == LR_MD_PARTITION_CHANGE;
        struct lr_md_part_rec *p = &rec->u.part;
        int32_t n = change ? -1 : 0; /* change: null = no change */
        p->replicas.n = p->isr.n = p->removing.n = p->adding.n = n;
        p->elr.n = p->lke.n = change ? -1 : 0;
        p->leader = change ? LR_MD_NO_LEADER_CHANGE : LR_MD_NO_LEADER;
        p->lrs = change ? LR_MD_LRS_NO_CHANGE : LR_MD_RECOVERED;
        p->n_dirs = -1;
    } else if (type == LR_MD_REGISTER_BROKER) {
        rec->u.reg.rack.len = -1;
        rec->u.reg.fenced = 1;
    } else if (type == LR_MD_CONFIG) {
        rec->u.config.value.len = -1;
    }
}

