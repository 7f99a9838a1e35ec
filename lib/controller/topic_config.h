/* Topic-level configs as Kafka's LogConfig defines them: names, types,
 * ranges and allowed values, and the broker property each falls back to.
 * Used to refuse what Kafka refuses (CreateTopics, config changes) and to
 * describe configs. */
#ifndef LR_CONTROLLER_TOPIC_CONFIG_H
#define LR_CONTROLLER_TOPIC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* DescribeConfigs ConfigType values. */
enum {
    LR_TCFG_BOOLEAN = 1,
    LR_TCFG_STRING = 2,
    LR_TCFG_INT = 3,
    LR_TCFG_LONG = 5,
    LR_TCFG_DOUBLE = 6,
    LR_TCFG_LIST = 7
};

typedef struct lr_topic_config_def {
    const char *name;
    int8_t type;           /* LR_TCFG_* */
    int64_t min, max;      /* INT/LONG range; DOUBLE uses them as [0, 1] when max is 1 */
    const char *allowed;   /* STRING/LIST: "a|b|c", NULL: any */
    const char *broker;    /* the broker property it defaults to, NULL: none */
    const char *dflt;      /* Kafka's default when the broker property is unset */
    const char *doc;
} lr_topic_config_def;

/* The definition of a topic config, NULL for a name Kafka does not know at
 * topic level (broker property names included). */
const lr_topic_config_def *lr_topic_config_find(const char *name);

/* Number of definitions and the i-th (alphabetical). */
size_t lr_topic_config_count(void);
const lr_topic_config_def *lr_topic_config_at(size_t i);

/* Checks one name/value pair as Kafka parses it (values trimmed, booleans
 * case-insensitive). value NULL is refused: Kafka supports no null topic
 * config in a create. Returns 0 or LOGREP_ERR_INVALID_CONFIG with a
 * NUL-terminated reason in why (cap bytes, may be 0). */
int lr_topic_config_check(const char *name, const char *value, char *why, size_t cap);

#endif
