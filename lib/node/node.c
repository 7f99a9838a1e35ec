/* The node handle: create and free, the host's events (requests,
 * responses, closes, ticks) handed to the concern that owns them, and
 * observability. node_int.h lists the node's files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"

/* ------------------------------------------------------------ conf */

static char *dup_conf_str(logrep_node *n, const char *name)
{
    char buf[1024];
    if (logrep_conf_get(n->conf, name, buf, sizeof buf, NULL) != LOGREP_OK)
        buf[0] = 0;
    return lr_strdup(&n->alloc, buf);
}

/* First advertised listener "NAME://host:port". */
static int parse_listener(logrep_node *n, const char *v, char *err, size_t esz)
{
    if (!v[0])
        return 0;
    const char *sep = strstr(v, "://");
    const char *host = sep ? sep + 3 : v;
    const char *end = strchr(host, ',');
    size_t len = end ? (size_t)(end - host) : strlen(host);
    const char *colon = memchr(host, ':', len);
    while (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - host)))
        colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - host));
    if (!colon) {
        snprintf(err, esz, "advertised.listeners: expected NAME://host:port, got \"%s\"", v);
        return LOGREP_ERR__INVALID_CONF;
    }
    size_t hl = (size_t)(colon - host);
    n->adv_host = lr_malloc(&n->alloc, hl + 1);
    if (!n->adv_host)
        return LOGREP_ERR__NOMEM;
    memcpy(n->adv_host, host, hl);
    n->adv_host[hl] = 0;
    n->adv_port = atoi(colon + 1);
    return 0;
}

/* ------------------------------------------------------------ lifecycle */

LOGREP_API logrep_err logrep_node_new(const logrep_conf *conf, const logrep_storage *storage,
                                      const logrep_transport *transport, int64_t now_ms,
                                      char *errbuf, size_t errbuf_size, logrep_node **out)
{
    char tmp[160];
    if (!errbuf) {
        errbuf = tmp;
        errbuf_size = sizeof tmp;
    }
    errbuf[0] = 0;
    if (!storage || !transport || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (transport->version < 1 || !transport->send || !transport->connect || !transport->close) {
        snprintf(errbuf, errbuf_size, "transport vtable version %u unsupported", transport->version);
        return LOGREP_ERR__UNSUPPORTED;
    }
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_node *n = lr_calloc(a, 1, sizeof *n);
    if (!n)
        return LOGREP_ERR__NOMEM;
    n->alloc = *a;
    lr_parts_init(n);
    lr_events_init(n);
    n->logger = lr_conf_log(conf);
    n->conf = logrep_conf_dup(conf);
    n->st = storage;
    n->tr = *transport;
    n->life.broker_epoch = -1;
    n->life.previous_clean_epoch = -1;
    n->ctl_id = -1;
    n->peers.next_correlation = 1;
    int err = n->conf ? 0 : LOGREP_ERR__NOMEM;
    if (!err) {
        n->id = (int32_t)lr_conf_int(n->conf, LR_CONF_NODE_ID);
        n->next_retention_ms = now_ms + lr_conf_int(n->conf, LR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
        lr_cleaning_init(n);
        n->cleaning.next_ms = now_ms;
        /* The host's seed, this node's id and the host's clock at start:
         * a restart with the same configured seed still draws a new
         * incarnation id. */
        lr_prng_seed(&n->rng, (uint64_t)lr_conf_int(n->conf, LR_CONF_RANDOM_SEED) ^
                                  lr_prng_mix((uint64_t)n->id) ^ lr_prng_mix((uint64_t)now_ms ^ 1));
        const char *roles = lr_conf_str(n->conf, LR_CONF_PROCESS_ROLES);
        n->is_broker = strstr(roles, "broker") != NULL;
        n->is_controller = strstr(roles, "controller") != NULL;
        if (n->id < 0) {
            snprintf(errbuf, errbuf_size, "node.id must be set");
            err = LOGREP_ERR__INVALID_CONF;
        } else if (!n->is_broker && !n->is_controller) {
            snprintf(errbuf, errbuf_size, "process.roles: expected broker and/or controller");
            err = LOGREP_ERR__INVALID_CONF;
        }
    }
    if (!err)
        err = lr_voters_parse(n, lr_conf_str(n->conf, LR_CONF_CONTROLLER_QUORUM_VOTERS), errbuf,
                              errbuf_size);
    if (!err && n->is_controller != lr_voters_is_self(n)) {
        snprintf(errbuf, errbuf_size,
                 n->is_controller ? "controller.quorum.voters does not name this node %d"
                                  : "controller.quorum.voters names node %d, whose "
                                    "process.roles has no controller",
                 (int)n->id);
        err = LOGREP_ERR__INVALID_CONF;
    }
    if (!err)
        err = parse_listener(n, lr_conf_str(n->conf, LR_CONF_ADVERTISED_LISTENERS), errbuf,
                             errbuf_size);
    if (!err) {
        n->log_dir = dup_conf_str(n, "log.dirs");
        n->rack = dup_conf_str(n, "broker.rack");
        if (!n->log_dir || !n->rack)
            err = LOGREP_ERR__NOMEM;
    }
    if (!err) {
        err = storage->mkdir(storage->ctx, n->log_dir);
        if (err == LOGREP_ERR__EXISTS)
            err = 0;
        if (err)
            snprintf(errbuf, errbuf_size, "log.dirs %s: %s", n->log_dir, logrep_err_str(err));
    }
    if (!err && !(n->md.img = lr_md_new(n->conf)))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = logrep_msg_new(n->conf, &n->req);
    if (!err)
        err = logrep_msg_new(n->conf, &n->resp);
    if (!err)
        err = logrep_msg_new(n->conf, &n->peers.out);
    if (!err)
        err = logrep_msg_new(n->conf, &n->peers.in);
    if (!err && n->is_broker)
        err = logrep_batch_reader_new(n->conf, &n->produce.rezip);
    if (!err && n->is_broker)
        err = lr_groups_init(n);
    if (!err && n->is_controller)
        err = lr_nctl_new(n, now_ms);
    if (err) {
        logrep_node_free(n, 0);
        return err;
    }
    *out = n;
    return LOGREP_OK;
}

LOGREP_API void logrep_node_free(logrep_node *n, int abandon)
{
    if (!n)
        return;
    lr_park_free_all(n);
    lr_groups_free(n);
    /* Requests in flight first: failing them touches the partitions. */
    lr_peers_free(n);
    if (n->ctl)
        lr_nctl_free(n, abandon);
    lr_parts_free(n, abandon);
    lr_dirs_free(n);
    logrep_batch_reader_free(n->produce.rezip);
    lr_conns_free(n);
    lr_mdsnap_free(n);
    lr_md_free(n->md.img);
    logrep_msg_free(n->req);
    logrep_msg_free(n->resp);
    logrep_msg_free(n->peers.out);
    logrep_msg_free(n->peers.in);
    lr_strfree(&n->alloc, n->log_dir);
    lr_strfree(&n->alloc, n->rack);
    lr_strfree(&n->alloc, n->adv_host);
    lr_voters_free(n);
    logrep_conf_free(n->conf);
    /* Last: freeing the rest may still complete or look up events. */
    lr_events_free(n);
    lr_alloc a = n->alloc;
    lr_free(&a, n, sizeof *n);
}

/* A connection going away: its parked requests first, they hold its slots. */
static void drop_conn(logrep_node *n, lr_conn *c)
{
    lr_park_drop_conn(n, c);
    lr_conn_drop(n, c);
}

/* The connection with this id; one the node closed itself is dropped
 * first, should the host reuse the id (NULL when out of memory). */
lr_conn *lr_node_conn_for(logrep_node *n, uint64_t id, int create)
{
    lr_conn *c = lr_conn_get(n, id, 0);
    if (c && c->closed) {
        drop_conn(n, c);
        c = NULL;
    }
    return c || !create ? c : lr_conn_get(n, id, 1);
}

/* Drops the connections the node closed itself (not while parked
 * requests are being walked: dropping one frees those on it). */
static void reap_conns(logrep_node *n)
{
    for (lr_conn *c = n->conns.list, *next; c; c = next) {
        next = c->next;
        if (c->closed)
            drop_conn(n, c);
    }
}

/* Answers what waits: produce completions to their parked requests and
 * in-process calls, then every parked request that may be done. */
static void wake(logrep_node *n, int64_t now_ms)
{
    lr_produce_collect(n);
    lr_groups_flush(n, now_ms);
    lr_park_poll(n, now_ms);
}

void lr_node_wake(logrep_node *n, int64_t now_ms)
{
    if (n->park.list || lr_events_pending(n))
        wake(n, now_ms);
}

static void broker_tick(logrep_node *n, int64_t now_ms)
{
    if (!n->is_broker || !lr_life_tick(n, now_ms))
        return;
    lr_md_follow_tick(n, now_ms);
    if (!n->life.shutdown_done)
        lr_fetcher_tick(n, now_ms);
}

/* When the broker role next has timed work; INT64_MAX when none. */
static int64_t broker_deadline(const logrep_node *n, int64_t now_ms)
{
    if (!n->is_broker)
        return INT64_MAX;
    int64_t next = lr_life_deadline(n, now_ms);
    if (n->life.broker_epoch < 0)
        return next;
    int64_t t = lr_md_follow_deadline(n, now_ms);
    next = t < next ? t : next;
    t = lr_fetcher_deadline(n, now_ms);
    return t < next ? t : next;
}

/* ------------------------------------------------------------ events */

LOGREP_API logrep_err logrep_node_request(logrep_node *n, uint64_t conn, const void *frame,
                                          size_t len, int64_t now_ms)
{
    if (!n || (!frame && len))
        return LOGREP_ERR__INVALID_ARG;
    n->stats.requests++;
    n->stats.bytes_in += (int64_t)len;
    lr_conn *c = lr_node_conn_for(n, conn, 1);
    if (!c) {
        n->tr.close(n->tr.ctx, conn); /* unanswerable: the client retries */
        return LOGREP_ERR__NOMEM;
    }
    logrep_err err = logrep_msg_decode_request(n->req, frame, len);
    if (err == LOGREP_ERR_UNSUPPORTED_VERSION &&
        logrep_msg_api_key(n->req) == LOGREP_API_API_VERSIONS) {
        /* Answered with the versions served, in the client's v0 header. */
        lr_req r = {c, n->req, n->resp, frame, len, lr_node_conn_roles(n, c), now_ms, NULL, 0};
        if ((err = lr_api_versions(n, &r)) != 0) {
            lr_conn_close(n, c);
            drop_conn(n, c);
        }
        return err;
    }
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "closing connection %llu: %s (%s)",
               (unsigned long long)conn, logrep_err_name(err), logrep_msg_errmsg(n->req));
        lr_conn_close(n, c);
        drop_conn(n, c);
        return err == LOGREP_ERR__NOMEM ? err : LOGREP_ERR__CORRUPT;
    }
    err = lr_dispatch(n, c, frame, len, now_ms);
    lr_nctl_pump(n, now_ms);
    if (err) {
        /* A request that could not be handled leaves a hole in the
         * connection's response order: close it, the client retries. */
        lr_conn_close(n, c);
        drop_conn(n, c);
    }
    /* A produce may have moved data or the HW: answer waiting fetches and
     * produces now rather than at the next tick. */
    lr_node_wake(n, now_ms);
    return err;
}

LOGREP_API logrep_err logrep_node_response(logrep_node *n, uint64_t conn, const void *frame,
                                           size_t len, int64_t now_ms)
{
    if (!n || (!frame && len))
        return LOGREP_ERR__INVALID_ARG;
    n->stats.bytes_in += (int64_t)len;
    logrep_err err = lr_peer_response(n, conn, frame, len, now_ms);
    lr_nctl_pump(n, now_ms);
    if (err)
        return err;
    /* Keep replication moving: the next fetch leaves at once, and answers
     * waiting on the HW go out now. */
    broker_tick(n, now_ms);
    lr_node_wake(n, now_ms);
    return LOGREP_OK;
}

LOGREP_API void logrep_node_closed(logrep_node *n, uint64_t conn, int64_t now_ms)
{
    if (!n)
        return;
    lr_conn *c = lr_conn_get(n, conn, 0);
    if (c)
        drop_conn(n, c);
    lr_peer_closed(n, conn, now_ms);
}

/* The longest a tick's answer may be away: hosts sleep on it. */
#define LR_TICK_MAX_MS 60000

static void earliest(int64_t *next, int64_t t)
{
    if (t < *next)
        *next = t;
}

LOGREP_API int64_t logrep_node_tick(logrep_node *n, int64_t now_ms)
{
    if (!n)
        return now_ms + 1000;
    reap_conns(n);
    int64_t next = now_ms + LR_TICK_MAX_MS;
    if (n->ctl)
        earliest(&next, lr_nctl_tick(n, now_ms));
    if (n->is_broker) {
        broker_tick(n, now_ms);
        lr_dirs_tick(n, now_ms);
    }
    lr_parts_tick(n, now_ms, &next);
    lr_cleaning_tick(n, now_ms, &next);
    lr_produce_collect(n);
    if (n->is_broker && n->life.broker_epoch >= 0)
        lr_groups_tick(n, now_ms);
    wake(n, now_ms);
    /* Each component's own deadline, taken after the work above. */
    earliest(&next, lr_parts_deadline(n, now_ms));
    earliest(&next, lr_park_deadline(n, now_ms));
    earliest(&next, broker_deadline(n, now_ms));
    if (n->is_broker) {
        earliest(&next, lr_dirs_deadline(n, now_ms));
        earliest(&next, lr_groups_deadline(n, now_ms));
    }
    if (n->park.woken || lr_events_ready(n))
        next = now_ms; /* parked fetches to wake, or events to poll */
    return next < now_ms ? now_ms : next;
}

LOGREP_API logrep_err logrep_node_shutdown(logrep_node *n, int64_t now_ms)
{
    if (!n)
        return LOGREP_ERR__INVALID_ARG;
    n->life.shutting_down = 1;
    if (!n->is_broker || n->life.broker_epoch < 0)
        n->life.shutdown_done = 1;
    broker_tick(n, now_ms);
    return LOGREP_OK;
}

LOGREP_API int logrep_node_shutdown_done(const logrep_node *n)
{
    /* A leader of the controller quorum also hands its leadership over. */
    return n && n->life.shutdown_done && lr_nctl_handed_over(n);
}

/* ------------------------------------------------------------ observability */

LOGREP_API size_t logrep_node_partition_count(const logrep_node *n)
{
    return n ? n->parts.n : 0;
}

LOGREP_API logrep_err logrep_node_partition(const logrep_node *n, size_t i,
                                            logrep_node_partition_info *out)
{
    if (!n || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (i >= n->parts.n)
        return LOGREP_ERR__END;
    lr_part_status s;
    lr_partition_status(n->parts.v[i].rep, &s);
    memset(out, 0, sizeof *out);
    out->topic = n->parts.v[i].topic;
    out->partition = n->parts.v[i].index;
    out->role = s.role;
    out->leader = s.leader;
    out->leader_epoch = s.leader_epoch;
    out->log_start_offset = s.log_start_offset;
    out->log_end_offset = s.log_end_offset;
    out->segments = logrep_log_segment_count(lr_partition_log(n->parts.v[i].rep));
    out->high_watermark = s.high_watermark;
    out->replicas = s.n_replicas;
    out->isr = s.n_isr;
    out->under_replicated = s.under_replicated;
    out->under_min_isr = s.under_min_isr;
    out->at_min_isr = s.at_min_isr;
    out->isr_shrinks = s.isr_shrinks;
    out->isr_expands = s.isr_expands;
    int failing;
    out->append_errors = logrep_log_append_errors(lr_partition_log(n->parts.v[i].rep), &failing);
    out->append_failing = failing;
    logrep_log_cleaner_stats ci;
    logrep_log_cleaner_info(lr_partition_log(n->parts.v[i].rep), &ci);
    out->compacted = ci.compact;
    out->dirty_ratio = ci.dirty_ratio;
    out->cleaner_bytes_read = (int64_t)ci.bytes_read;
    out->cleaner_passes = (int64_t)ci.passes;
    out->last_clean_ms = ci.last_pass_end_ms;
    return LOGREP_OK;
}

/* Adds one log's cleaner counters to the node's. */
static void cleaner_stats(const logrep_log *log, logrep_node_stats *out, int64_t *latest_end)
{
    logrep_log_cleaner_stats ci;
    logrep_log_cleaner_info(log, &ci);
    out->cleaner_passes += (int64_t)ci.passes;
    out->cleaner_passes_aborted += (int64_t)ci.passes_aborted;
    out->cleaner_bytes_read += (int64_t)ci.bytes_read;
    out->cleaner_bytes_written += (int64_t)ci.bytes_written;
    out->cleaner_records_removed += (int64_t)ci.records_removed;
    if (ci.compact && ci.dirty_ratio > out->cleaner_max_dirty_ratio)
        out->cleaner_max_dirty_ratio = ci.dirty_ratio;
    if (ci.last_pass_end_ms >= 0 && ci.last_pass_end_ms >= *latest_end) {
        *latest_end = ci.last_pass_end_ms;
        out->cleaner_last_pass_ms = ci.last_pass_end_ms - ci.last_pass_start_ms;
    }
}

LOGREP_API void logrep_node_stats_get(const logrep_node *n, logrep_node_stats *out)
{
    if (!n || !out)
        return;
    *out = n->stats;
    lr_md_summary sum;
    lr_md_summarize(n->md.img, &sum);
    out->offline_partitions = sum.offline;
    out->under_replicated = sum.under_replicated;
    out->under_min_isr = sum.under_min_isr;
    out->at_min_isr = sum.at_min_isr;
    out->fenced_brokers = sum.fenced_brokers;
    out->metadata_offset = lr_md_next_offset(n->md.img);
    int64_t latest_end = -1;
    for (size_t i = 0; i < n->parts.n; i++) {
        int failing;
        out->append_errors += logrep_log_append_errors(lr_partition_log(n->parts.v[i].rep), &failing);
        out->append_failing += failing;
        cleaner_stats(lr_partition_log(n->parts.v[i].rep), out, &latest_end);
    }
    if (n->ctl)
        lr_nctl_stats(n, out);
}

LOGREP_API size_t logrep_node_describe(const logrep_node *n, const char *topic, int filter,
                                       char *buf, size_t size)
{
    if (!n)
        return 0;
    lr_buf out;
    lr_buf_init(&out, &n->alloc);
    size_t len = 0;
    if (lr_md_describe(n->md.img, topic, filter, &out) == 0)
        len = out.len;
    if (buf && size) {
        size_t k = len < size ? len : size - 1;
        if (k)
            memcpy(buf, out.data, k);
        buf[k] = 0;
    }
    lr_buf_free(&out);
    return len;
}

LOGREP_API int32_t logrep_node_id(const logrep_node *n)
{
    return n ? n->id : -1;
}

LOGREP_API int logrep_node_is_controller(const logrep_node *n)
{
    return n && lr_nctl_serving(n);
}
