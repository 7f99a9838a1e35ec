/* The log cleaner's schedule: compacted partitions are cleaned on the
 * node's tick, one partition at a time (so one key map is held at once)
 * and at most logrep.cleaner.tick.bytes of segment reads per tick (so a
 * large pass never stalls requests). A pass stays with its partition
 * until it ends; between passes the partitions are visited round robin,
 * and when none needed cleaning the node looks again
 * log.cleaner.backoff.ms later. Each replica cleans its own log, never
 * past its high watermark, as Kafka's cleaner never passes the log's
 * last stable offset. */
#include <string.h>

#include "node/node_int.h"

void lr_cleaning_init(logrep_node *n)
{
    lr_cleaning *c = &n->cleaning;
    memset(c, 0, sizeof *c);
    c->enabled = lr_conf_int(n->conf, LR_CONF_LOG_CLEANER_ENABLE) != 0;
    c->tick_bytes = (uint64_t)lr_conf_int(n->conf, LR_CONF_LOG_CLEANER_TICK_BYTES);
    c->backoff_ms = lr_conf_int(n->conf, LR_CONF_LOG_CLEANER_BACKOFF_MS);
}

/* One call of the cleaner on p. Returns 1 when p wants more calls now;
 * *worked is set when the call read segments (it finished a pass). */
static int clean_one(logrep_node *n, lr_npart *p, int64_t now_ms, uint64_t budget, int *worked)
{
    int more = 0;
    logrep_log *log = lr_partition_log(p->rep);
    logrep_log_cleaner_stats before, after;
    logrep_log_cleaner_info(log, &before);
    int64_t limit = lr_partition_high_watermark(p->rep);
    logrep_err err = logrep_log_clean(log, now_ms, limit < 0 ? 0 : limit, budget, 0, &more);
    if (err) {
        /* The pass was given up and its files removed: the log is as it
         * was. A failing disk is not hammered: the next try is a backoff
         * later. */
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "%s-%d: log cleaning failed: %s",
               p->topic, p->index, logrep_err_name(err));
        n->cleaning.errors++;
        return 0;
    }
    logrep_log_cleaner_info(log, &after);
    *worked = after.passes != before.passes || after.in_pass;
    return more;
}

void lr_cleaning_tick(logrep_node *n, int64_t now_ms, int64_t *next)
{
    lr_cleaning *c = &n->cleaning;
    if (!c->enabled || !n->parts.n)
        return;
    int worked = 0;
    if (c->active) {
        lr_npart *p = lr_node_part_by_id(n, c->topic_id, c->index);
        if (p && clean_one(n, p, now_ms, c->tick_bytes, &worked)) {
            *next = now_ms; /* the pass goes on at the next tick */
            return;
        }
        c->active = 0; /* ended, failed, or its partition went away */
        c->cursor++;
        *next = now_ms; /* the next partition at the next tick */
        return;
    } else if (now_ms < c->next_ms) {
        if (c->next_ms < *next)
            *next = c->next_ms;
        return;
    }
    /* Look for the next partition that wants cleaning. A log that needs
     * nothing answers from its segment sizes, without reading, so one
     * round costs a call per hosted partition; the first that works ends
     * the tick's share. */
    for (size_t k = 0; k < n->parts.n; k++) {
        if (c->cursor >= n->parts.n)
            c->cursor = 0;
        lr_npart *p = &n->parts.v[c->cursor];
        if (clean_one(n, p, now_ms, c->tick_bytes, &worked)) {
            c->active = 1;
            memcpy(c->topic_id, p->topic_id, 16);
            c->index = p->index;
            *next = now_ms;
            return;
        }
        c->cursor++;
        if (worked) {
            *next = now_ms;
            return;
        }
    }
    c->next_ms = now_ms + c->backoff_ms;
    if (c->next_ms < *next)
        *next = c->next_ms;
}
