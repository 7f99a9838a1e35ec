/* Topic configs: the definitions Kafka's LogConfig has (Kafka 4 names:
 * configs removed there, such as message.format.version, are unknown) and
 * a checker that parses values the way Kafka's ConfigDef does. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include "controller/topic_config.h"

#define I32MAX "2147483647"
#define I64MAX "9223372036854775807"

/* Alphabetical. */
static const lr_topic_config_def defs[] = {
    {"cleanup.policy", LR_TCFG_LIST, 0, 0, "compact|delete", "log.cleanup.policy", "delete",
     "What happens to old segments: deleted, compacted, or both."},
    {"compression.gzip.level", LR_TCFG_INT, -1, 9, NULL, "compression.gzip.level", "-1",
     "gzip level when compression.type is gzip."},
    {"compression.lz4.level", LR_TCFG_INT, 1, 17, NULL, "compression.lz4.level", "9",
     "lz4 level when compression.type is lz4."},
    {"compression.type", LR_TCFG_STRING, 0, 0, "uncompressed|zstd|lz4|snappy|gzip|producer",
     "compression.type", "producer", "Codec of stored batches; producer keeps the producer's."},
    {"compression.zstd.level", LR_TCFG_INT, -131072, 22, NULL, "compression.zstd.level", "3",
     "zstd level when compression.type is zstd."},
    {"delete.retention.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL, "log.cleaner.delete.retention.ms",
     "86400000", "How long tombstones stay readable in a compacted topic."},
    {"file.delete.delay.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL, "log.segment.delete.delay.ms",
     "60000", "Delay before a deleted segment's files are removed."},
    {"flush.messages", LR_TCFG_LONG, 1, INT64_MAX, NULL, "log.flush.interval.messages", I64MAX,
     "Messages between forced flushes."},
    {"flush.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL, "log.flush.interval.ms", I64MAX,
     "Time between forced flushes."},
    {"follower.replication.throttled.replicas", LR_TCFG_LIST, 0, 0, NULL, NULL, "",
     "Replicas (partition:broker or *) throttled on the follower side."},
    {"index.interval.bytes", LR_TCFG_INT, 0, INT32_MAX, NULL, "log.index.interval.bytes", "4096",
     "Bytes between offset index entries."},
    {"leader.replication.throttled.replicas", LR_TCFG_LIST, 0, 0, NULL, NULL, "",
     "Replicas (partition:broker or *) throttled on the leader side."},
    {"local.retention.bytes", LR_TCFG_LONG, -2, INT64_MAX, NULL, "log.local.retention.bytes", "-2",
     "Local size bound with tiered storage (-2: retention.bytes)."},
    {"local.retention.ms", LR_TCFG_LONG, -2, INT64_MAX, NULL, "log.local.retention.ms", "-2",
     "Local time bound with tiered storage (-2: retention.ms)."},
    {"max.compaction.lag.ms", LR_TCFG_LONG, 1, INT64_MAX, NULL,
     "log.cleaner.max.compaction.lag.ms", I64MAX, "Longest a record stays uncompacted."},
    {"max.message.bytes", LR_TCFG_INT, 0, INT32_MAX, NULL, "message.max.bytes", "1048588",
     "Largest record batch the topic accepts."},
    {"message.timestamp.after.max.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL,
     "log.message.timestamp.after.max.ms", "3600000",
     "How far in the future a CreateTime timestamp may be."},
    {"message.timestamp.before.max.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL,
     "log.message.timestamp.before.max.ms", I64MAX,
     "How far in the past a CreateTime timestamp may be."},
    {"message.timestamp.type", LR_TCFG_STRING, 0, 0, "CreateTime|LogAppendTime",
     "log.message.timestamp.type", "CreateTime", "Whose timestamp records keep."},
    {"min.cleanable.dirty.ratio", LR_TCFG_DOUBLE, 0, 1, NULL, "log.cleaner.min.cleanable.ratio",
     "0.5", "Dirty share of the log that triggers compaction."},
    {"min.compaction.lag.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL,
     "log.cleaner.min.compaction.lag.ms", "0", "Shortest a record stays uncompacted."},
    {"min.insync.replicas", LR_TCFG_INT, 1, INT32_MAX, NULL, "min.insync.replicas", "1",
     "In-sync replicas an acks=all write needs."},
    {"preallocate", LR_TCFG_BOOLEAN, 0, 0, NULL, "log.preallocate", "false",
     "Preallocate segment files."},
    {"remote.log.copy.disable", LR_TCFG_BOOLEAN, 0, 0, NULL, NULL, "false",
     "Stop copying segments to tiered storage."},
    {"remote.log.delete.on.disable", LR_TCFG_BOOLEAN, 0, 0, NULL, NULL, "false",
     "Delete tiered data when tiering is turned off."},
    {"remote.storage.enable", LR_TCFG_BOOLEAN, 0, 0, NULL, NULL, "false",
     "Tiered storage for the topic."},
    {"retention.bytes", LR_TCFG_LONG, INT64_MIN, INT64_MAX, NULL, "log.retention.bytes", "-1",
     "Size a partition may reach before old segments go (-1: no limit)."},
    {"retention.ms", LR_TCFG_LONG, -1, INT64_MAX, NULL, "log.retention.ms", "604800000",
     "Age at which old segments go (-1: no limit)."},
    {"segment.bytes", LR_TCFG_INT, 14, INT32_MAX, NULL, "log.segment.bytes", "1073741824",
     "Size at which a new segment is rolled."},
    {"segment.index.bytes", LR_TCFG_INT, 4, INT32_MAX, NULL, "log.index.size.max.bytes",
     "10485760", "Largest offset or time index file."},
    {"segment.jitter.ms", LR_TCFG_LONG, 0, INT64_MAX, NULL, "log.roll.jitter.ms", "0",
     "Random jitter subtracted from segment.ms."},
    {"segment.ms", LR_TCFG_LONG, 1, INT64_MAX, NULL, "log.roll.ms", "604800000",
     "Age at which a new segment is rolled."},
    {"unclean.leader.election.enable", LR_TCFG_BOOLEAN, 0, 0, NULL,
     "unclean.leader.election.enable", "false", "Elect a replica outside the ISR as a last resort."},
};

#define NDEFS (sizeof defs / sizeof defs[0])

size_t lr_topic_config_count(void)
{
    return NDEFS;
}

const lr_topic_config_def *lr_topic_config_at(size_t i)
{
    return i < NDEFS ? &defs[i] : NULL;
}

const lr_topic_config_def *lr_topic_config_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NDEFS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

/* [*b, *e) trimmed of Java's whitespace (chars <= ' '). */
static void trim(const char **b, const char **e)
{
    while (*b < *e && (unsigned char)**b <= ' ')
        (*b)++;
    while (*e > *b && (unsigned char)(*e)[-1] <= ' ')
        (*e)--;
}

static int in_allowed(const char *allowed, const char *b, const char *e)
{
    size_t n = (size_t)(e - b);
    for (const char *a = allowed; *a;) {
        const char *bar = strchr(a, '|');
        size_t an = bar ? (size_t)(bar - a) : strlen(a);
        if (an == n && memcmp(a, b, n) == 0)
            return 1;
        a += an + (bar ? 1 : 0);
    }
    return 0;
}

/* Java's Long.parseLong over [b, e): optional sign, decimal digits only. */
static int parse_long(const char *b, const char *e, int64_t *out)
{
    char tmp[32];
    size_t n = (size_t)(e - b);
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, b, n);
    tmp[n] = 0;
    const char *d = tmp + (tmp[0] == '-' || tmp[0] == '+');
    if (!*d)
        return 0;
    for (const char *p = d; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    errno = 0;
    long long v = strtoll(tmp, NULL, 10);
    if (errno == ERANGE)
        return 0;
    *out = v;
    return 1;
}

/* A throttled-replica list element: "partition:broker" in decimal. */
static int throttle_elem_ok(const char *b, const char *e)
{
    const char *colon = memchr(b, ':', (size_t)(e - b));
    int64_t x;
    if (!colon)
        return 0;
    const char *pb = b, *pe = colon, *bb = colon + 1, *be = e;
    trim(&pb, &pe);
    trim(&bb, &be);
    return parse_long(pb, pe, &x) && x >= 0 && parse_long(bb, be, &x) && x >= 0;
}

static int list_ok(const lr_topic_config_def *d, const char *b, const char *e)
{
    if (b == e)
        return 1;
    if (!d->allowed && e - b == 1 && *b == '*')
        return 1;
    for (const char *p = b;;) {
        const char *comma = memchr(p, ',', (size_t)(e - p));
        const char *ee = comma ? comma : e, *bb = p;
        trim(&bb, &ee);
        if (d->allowed ? !in_allowed(d->allowed, bb, ee) : !throttle_elem_ok(bb, ee))
            return 0;
        if (!comma)
            return 1;
        p = comma + 1;
    }
}

static int fail(char *why, size_t cap, const char *what, const char *name)
{
    if (cap)
        snprintf(why, cap, "%s: %s", what, name);
    return LOGREP_ERR_INVALID_CONFIG;
}

static int word_is(const char *b, const char *e, const char *w)
{
    for (; b < e && *w; b++, w++)
        if (tolower((unsigned char)*b) != *w)
            return 0;
    return b == e && !*w;
}

int lr_topic_config_check(const char *name, const char *value, char *why, size_t cap)
{
    if (cap)
        why[0] = 0;
    const lr_topic_config_def *d = lr_topic_config_find(name);
    if (!d)
        return fail(why, cap, "Unknown topic config name", name ? name : "");
    if (!value)
        return fail(why, cap, "Null value not supported for topic configs", name);
    const char *b = value, *e = value + strlen(value);
    trim(&b, &e);
    int64_t v;
    int ok = 1;
    switch (d->type) {
    case LR_TCFG_BOOLEAN:
        ok = word_is(b, e, "true") || word_is(b, e, "false");
        break;
    case LR_TCFG_STRING:
        ok = !d->allowed || in_allowed(d->allowed, b, e);
        break;
    case LR_TCFG_INT:
    case LR_TCFG_LONG:
        ok = parse_long(b, e, &v) && (d->type == LR_TCFG_LONG || (v >= INT32_MIN && v <= INT32_MAX)) &&
             v >= d->min && v <= d->max;
        /* Kafka's gzip level validator: 1..9 or -1 (zlib's default), not 0. */
        if (ok && v == 0 && strcmp(d->name, "compression.gzip.level") == 0)
            ok = 0;
        break;
    case LR_TCFG_DOUBLE: {
        char tmp[64];
        size_t n = (size_t)(e - b);
        char *end;
        if (n == 0 || n >= sizeof tmp) {
            ok = 0;
            break;
        }
        memcpy(tmp, b, n);
        tmp[n] = 0;
        double x = strtod(tmp, &end);
        ok = !*end && x >= (double)d->min && x <= (double)d->max;
        break;
    }
    case LR_TCFG_LIST:
        ok = list_ok(d, b, e);
        break;
    default:
        ok = 0;
    }
    if (!ok)
        return fail(why, cap, "Invalid value for topic config", name);
    return 0;
}
