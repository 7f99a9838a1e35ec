/* The node handle: lifecycle, connections and response ordering, peers,
 * ticks, observability. Request handling lives in handlers.c, the broker's
 * life with the controller in broker.c, the controller role in control.c. */
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

/* "id@host:port" (first voter). */
static int parse_voter(logrep_node *n, const char *v, char *err, size_t esz)
{
    const char *at = strchr(v, '@');
    const char *colon = at ? strrchr(at, ':') : NULL;
    if (!at || !colon || colon == at + 1) {
        snprintf(err, esz, "controller.quorum.voters: expected id@host:port, got \"%s\"", v);
        return LOGREP_ERR__INVALID_CONF;
    }
    n->ctl_id = atoi(v);
    size_t hl = (size_t)(colon - at - 1);
    n->ctl_host = lr_malloc(&n->alloc, hl + 1);
    if (!n->ctl_host)
        return LOGREP_ERR__NOMEM;
    memcpy(n->ctl_host, at + 1, hl);
    n->ctl_host[hl] = 0;
    n->ctl_port = atoi(colon + 1);
    if (strchr(colon, ',')) {
        snprintf(err, esz, "controller.quorum.voters: one voter is supported");
        return LOGREP_ERR__INVALID_CONF;
    }
    return 0;
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

static int part_eq(const void *ctx, uintptr_t pos, const void *key, size_t len)
{
    const lr_npart *p = &((const logrep_node *)ctx)->parts[pos];
    int32_t index;
    if (len != 20)
        return 0;
    memcpy(&index, (const uint8_t *)key + 16, 4);
    return p->index == index && memcmp(p->topic_id, key, 16) == 0;
}

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
    lr_hashmap_init(&n->part_index, a, part_eq, n);
    n->logger = lr_conf_log(conf);
    n->conf = logrep_conf_dup(conf);
    n->st = storage;
    n->tr = *transport;
    n->broker_epoch = -1;
    n->previous_clean_epoch = -1;
    n->ctl_id = -1;
    n->next_correlation = 1;
    int err = n->conf ? 0 : LOGREP_ERR__NOMEM;
    if (!err) {
        n->id = (int32_t)lr_conf_int(n->conf, LR_CONF_NODE_ID);
        n->next_retention_ms = now_ms + lr_conf_int(n->conf, LR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
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
        err = parse_voter(n, lr_conf_str(n->conf, LR_CONF_CONTROLLER_QUORUM_VOTERS), errbuf,
                          errbuf_size);
    if (!err && n->is_controller && n->ctl_id != n->id) {
        snprintf(errbuf, errbuf_size, "controller.quorum.voters names %d, not this node %d",
                 n->ctl_id, n->id);
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
    if (!err && !(n->img = lr_md_new(n->conf)))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = logrep_msg_new(n->conf, &n->req);
    if (!err)
        err = logrep_msg_new(n->conf, &n->resp);
    if (!err)
        err = logrep_msg_new(n->conf, &n->out);
    if (!err)
        err = logrep_msg_new(n->conf, &n->in);
    if (!err && n->is_broker)
        err = logrep_batch_reader_new(n->conf, &n->rezip);
    if (!err && n->is_controller)
        err = lr_nctl_new(n, now_ms);
    if (err) {
        logrep_node_free(n, 0);
        return err;
    }
    *out = n;
    return LOGREP_OK;
}

static void free_slot(logrep_node *n, lr_slot *s)
{
    lr_buf_free(&s->bytes);
    lr_free(&n->alloc, s->segs, s->nsegs * sizeof *s->segs);
    lr_free(&n->alloc, s, sizeof *s);
}

LOGREP_API void logrep_node_free(logrep_node *n, int abandon)
{
    if (!n)
        return;
    lr_deferred_free_all(n);
    /* Requests in flight first: failing them touches the partitions. */
    while (n->peers) {
        lr_peer *p = n->peers;
        n->peers = p->next;
        while (p->inflight) {
            lr_outreq *o = p->inflight;
            p->inflight = o->next;
            lr_broker_request_failed(n, p, o, 0);
            lr_free(&n->alloc, o, sizeof *o);
        }
        lr_free(&n->alloc, p, sizeof *p);
    }
    if (n->ctl)
        lr_nctl_free(n, abandon);
    for (size_t i = 0; i < n->n_parts; i++) {
        lr_partition_free(n->parts[i].rep, abandon);
        lr_strfree(&n->alloc, n->parts[i].topic);
    }
    lr_free(&n->alloc, n->parts, n->cap_parts * sizeof *n->parts);
    lr_hashmap_free(&n->part_index);
    lr_dirs_free(n);
    logrep_batch_reader_free(n->rezip);
    while (n->conns) {
        lr_conn *c = n->conns;
        n->conns = c->next;
        while (c->head) {
            lr_slot *s = c->head;
            c->head = s->next;
            free_slot(n, s);
        }
        lr_free(&n->alloc, c, sizeof *c);
    }
    lr_md_free(n->img);
    logrep_msg_free(n->req);
    logrep_msg_free(n->resp);
    logrep_msg_free(n->out);
    logrep_msg_free(n->in);
    lr_strfree(&n->alloc, n->log_dir);
    lr_strfree(&n->alloc, n->rack);
    lr_strfree(&n->alloc, n->adv_host);
    lr_strfree(&n->alloc, n->ctl_host);
    logrep_conf_free(n->conf);
    lr_alloc a = n->alloc;
    lr_free(&a, n, sizeof *n);
}

/* ------------------------------------------------------------ connections */

static void drop_conn(logrep_node *n, lr_conn *c);

lr_conn *lr_node_conn(logrep_node *n, uint64_t id, int create)
{
    for (lr_conn *c = n->conns; c; c = c->next) {
        if (c->id != id)
            continue;
        if (!c->closed)
            return c;
        drop_conn(n, c); /* the host reuses a closed connection's id */
        break;
    }
    if (!create)
        return NULL;
    lr_conn *c = lr_calloc(&n->alloc, 1, sizeof *c);
    if (!c)
        return NULL;
    c->id = id;
    c->next = n->conns;
    n->conns = c;
    return c;
}

int lr_node_respond(logrep_node *n, lr_conn *c)
{
    lr_slot *s = lr_node_slot(n, c);
    return s ? lr_node_finish(n, c, s, n->resp) : LOGREP_ERR__NOMEM;
}

lr_slot *lr_node_slot(logrep_node *n, lr_conn *c)
{
    lr_slot *s = lr_calloc(&n->alloc, 1, sizeof *s);
    if (!s)
        return NULL;
    lr_buf_init(&s->bytes, &n->alloc);
    if (c->tail)
        c->tail->next = s;
    else
        c->head = s;
    c->tail = s;
    return s;
}

static void send_segs(logrep_node *n, lr_conn *c, const logrep_seg *segs, size_t nsegs)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nsegs; i++)
        total += segs[i].len;
    n->stats.bytes_out += (int64_t)total;
    n->tr.send(n->tr.ctx, c->id, segs, nsegs);
}

void lr_node_close_conn(logrep_node *n, lr_conn *c)
{
    if (!c->closed)
        n->tr.close(n->tr.ctx, c->id);
    c->closed = 1;
}

/* Drops the connections the node closed (not while deferred requests are
 * being walked: dropping one frees its deferred requests). */
static void reap_conns(logrep_node *n)
{
    for (lr_conn *c = n->conns, *next; c; c = next) {
        next = c->next;
        if (c->closed)
            drop_conn(n, c);
    }
}

void lr_node_flush_conn(logrep_node *n, lr_conn *c)
{
    while (!c->closed && c->head && c->head->ready) {
        lr_slot *s = c->head;
        c->head = s->next;
        if (!c->head)
            c->tail = NULL;
        if (s->nsegs)
            send_segs(n, c, s->segs, s->nsegs);
        free_slot(n, s);
    }
}

int lr_node_finish(logrep_node *n, lr_conn *c, lr_slot *s, logrep_msg *resp)
{
    const logrep_seg *segs;
    size_t nsegs;
    int err = logrep_msg_encode(resp, &segs, &nsegs, NULL);
    s->ready = 1;
    if (err) {
        LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node", "encoding a response failed: %s (%s)",
               logrep_err_name(err), logrep_msg_errmsg(resp));
        /* The client cannot be answered consistently: drop the connection. */
        lr_node_close_conn(n, c);
        return err;
    }
    if (c->closed)
        return LOGREP_OK; /* nobody to answer */
    if (c->head == s) {
        /* In order already: send without copying. */
        c->head = s->next;
        if (!c->head)
            c->tail = NULL;
        send_segs(n, c, segs, nsegs);
        free_slot(n, s);
        lr_node_flush_conn(n, c);
        return 0;
    }
    /* Keep a copy until the slots before it are answered. */
    s->segs = lr_calloc(&n->alloc, nsegs ? nsegs : 1, sizeof *s->segs);
    s->nsegs = nsegs;
    err = s->segs ? 0 : LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < nsegs && !err; i++) {
        s->segs[i] = segs[i];
        if (segs[i].data) {
            size_t at = s->bytes.len;
            err = lr_buf_append(&s->bytes, segs[i].data, (size_t)segs[i].len);
            s->segs[i].data = (const uint8_t *)(uintptr_t)at; /* fixed up below */
        }
    }
    if (err) {
        /* Out of memory: no half-copied answer goes out; the connection
         * closes, as when encoding fails. */
        lr_free(&n->alloc, s->segs, (nsegs ? nsegs : 1) * sizeof *s->segs);
        s->segs = NULL;
        s->nsegs = 0;
        lr_node_close_conn(n, c);
        return err;
    }
    for (size_t i = 0; i < nsegs; i++)
        if (segs[i].data)
            s->segs[i].data = s->bytes.data + (uintptr_t)s->segs[i].data;
    return 0;
}

static void drop_conn(logrep_node *n, lr_conn *c)
{
    lr_deferred_drop_conn(n, c);
    lr_conn **pp = &n->conns;
    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    while (c->head) {
        lr_slot *s = c->head;
        c->head = s->next;
        free_slot(n, s);
    }
    lr_free(&n->alloc, c, sizeof *c);
}

/* ------------------------------------------------------------ peers */

lr_peer *lr_node_peer(logrep_node *n, int32_t node_id, int channel)
{
    for (lr_peer *p = n->peers; p; p = p->next)
        if (p->node_id == node_id && p->channel == channel)
            return p;
    lr_peer *p = lr_calloc(&n->alloc, 1, sizeof *p);
    if (!p)
        return NULL;
    p->node_id = node_id;
    p->channel = channel;
    p->next = n->peers;
    n->peers = p;
    return p;
}

static int peer_address(logrep_node *n, int32_t id, int channel, const char **host,
                        int32_t *port)
{
    if (id == n->ctl_id && channel != LR_CH_REPLICA) {
        *host = n->ctl_host;
        *port = n->ctl_port;
        return 0;
    }
    const lr_md_broker *b = lr_md_broker_get(n->img, id);
    if (!b || !b->n_endpoints)
        return LOGREP_ERR__NOENT;
    *host = b->endpoints[0].host;
    *port = b->endpoints[0].port;
    return 0;
}

int lr_node_send_request(logrep_node *n, lr_peer *p, int kind, void *ctx, int64_t now_ms)
{
    if (!p->connected) {
        const char *host;
        int32_t port;
        if (peer_address(n, p->node_id, p->channel, &host, &port) != 0)
            return LOGREP_ERR__NOENT;
        if (n->tr.connect(n->tr.ctx, p->node_id, host, port, &p->conn) != LOGREP_OK)
            return LOGREP_ERR__IO;
        p->connected = 1;
    }
    lr_outreq *o = lr_calloc(&n->alloc, 1, sizeof *o);
    if (!o)
        return LOGREP_ERR__NOMEM;
    const logrep_seg *segs;
    size_t nsegs;
    int err = logrep_msg_encode(n->out, &segs, &nsegs, NULL);
    if (err) {
        lr_free(&n->alloc, o, sizeof *o);
        return err;
    }
    o->correlation_id = logrep_msg_correlation_id(n->out);
    o->api_key = (int16_t)logrep_msg_api_key(n->out);
    o->version = (int16_t)logrep_msg_version(n->out);
    o->kind = kind;
    o->ctx = ctx;
    o->sent_ms = now_ms;
    /* Keep in-flight requests in send order: responses come back in it. */
    lr_outreq **pp = &p->inflight;
    while (*pp)
        pp = &(*pp)->next;
    *pp = o;
    if (n->tr.send(n->tr.ctx, p->conn, segs, nsegs) != LOGREP_OK) {
        /* This request was not sent: the caller keeps ctx and cleans up.
         * Unlink it before the close fails (and frees) the others. */
        *pp = NULL;
        lr_free(&n->alloc, o, sizeof *o);
        logrep_node_closed(n, p->conn, now_ms);
        return LOGREP_ERR__IO;
    }
    return 0;
}

/* ------------------------------------------------------------ partitions */

/* The index key: topic id, then the partition index in host order. */
#define PART_KEY_LEN 20
static void part_key(uint8_t key[PART_KEY_LEN], const uint8_t id[16], int32_t index)
{
    memcpy(key, id, 16);
    memcpy(key + 16, &index, 4);
}

int lr_node_part_indexed(logrep_node *n)
{
    uint8_t key[PART_KEY_LEN];
    const lr_npart *p = &n->parts[n->n_parts - 1];
    part_key(key, p->topic_id, p->index);
    return lr_hashmap_put(&n->part_index, key, sizeof key, n->n_parts - 1);
}

void lr_node_part_remove(logrep_node *n, size_t i)
{
    uint8_t key[PART_KEY_LEN];
    lr_npart *p = &n->parts[i], *last = &n->parts[n->n_parts - 1];
    part_key(key, p->topic_id, p->index);
    lr_hashmap_del(&n->part_index, key, sizeof key, NULL);
    if (p != last) {
        /* Replacing a value never allocates, so this cannot fail. */
        part_key(key, last->topic_id, last->index);
        lr_hashmap_put(&n->part_index, key, sizeof key, i);
    }
    lr_partition_free(p->rep, 0);
    lr_strfree(&n->alloc, p->topic);
    *p = *last;
    n->n_parts--;
}

lr_npart *lr_node_part_by_id(logrep_node *n, const uint8_t id[16], int32_t index)
{
    uint8_t key[PART_KEY_LEN];
    uintptr_t pos;
    part_key(key, id, index);
    return lr_hashmap_get(&n->part_index, key, sizeof key, &pos) ? &n->parts[pos] : NULL;
}

lr_npart *lr_node_part(logrep_node *n, const char *topic, int32_t index)
{
    const lr_md_topic *t = lr_md_topic_by_name(n->img, topic);
    lr_npart *p = t ? lr_node_part_by_id(n, t->id, index) : NULL;
    return p && strcmp(p->topic, topic) == 0 ? p : NULL;
}

/* ------------------------------------------------------------ events */

LOGREP_API logrep_err logrep_node_request(logrep_node *n, uint64_t conn, const void *frame,
                                          size_t len, int64_t now_ms)
{
    if (!n || (!frame && len))
        return LOGREP_ERR__INVALID_ARG;
    n->stats.requests++;
    n->stats.bytes_in += (int64_t)len;
    lr_conn *c = lr_node_conn(n, conn, 1);
    if (!c) {
        n->tr.close(n->tr.ctx, conn); /* unanswerable: the client retries */
        return LOGREP_ERR__NOMEM;
    }
    logrep_err err = logrep_msg_decode_request(n->req, frame, len);
    if (err == LOGREP_ERR_UNSUPPORTED_VERSION &&
        logrep_msg_api_key(n->req) == LOGREP_API_API_VERSIONS) {
        lr_slot *s = lr_node_slot(n, c);
        err = s ? logrep_msg_init_response_to(n->resp, n->req) : LOGREP_ERR__NOMEM;
        if (!err)
            err = lr_node_fill_api_versions(n, c);
        if (!err)
            err = lr_node_finish(n, c, s, n->resp);
        if (err) {
            lr_node_close_conn(n, c);
            drop_conn(n, c);
        }
        return err;
    }
    if (err) {
        LR_LOG(&n->logger, LOGREP_LOG_WARN, "node", "closing connection %llu: %s (%s)",
               (unsigned long long)conn, logrep_err_name(err), logrep_msg_errmsg(n->req));
        lr_node_close_conn(n, c);
        drop_conn(n, c);
        return err == LOGREP_ERR__NOMEM ? err : LOGREP_ERR__CORRUPT;
    }
    err = lr_handle_request(n, c, frame, len, now_ms);
    if (err) {
        /* A request that could not be handled leaves a hole in the
         * connection's response order: close it, the client retries. */
        lr_node_close_conn(n, c);
        drop_conn(n, c);
    }
    /* A produce may have moved data or the HW: answer waiting fetches and
     * produces now rather than at the next tick. */
    if (n->deferred)
        lr_deferred_poll(n, now_ms, 0);
    return err;
}

LOGREP_API logrep_err logrep_node_response(logrep_node *n, uint64_t conn, const void *frame,
                                           size_t len, int64_t now_ms)
{
    if (!n || (!frame && len))
        return LOGREP_ERR__INVALID_ARG;
    n->stats.bytes_in += (int64_t)len;
    lr_peer *p = n->peers;
    while (p && !(p->connected && p->conn == conn))
        p = p->next;
    if (!p || !p->inflight)
        return LOGREP_ERR__CORRUPT;
    lr_outreq *o = p->inflight;
    logrep_err err = logrep_msg_decode_response(n->in, o->api_key, o->version, frame, len);
    if (!err && logrep_msg_correlation_id(n->in) != o->correlation_id)
        err = LOGREP_ERR__CORRUPT;
    if (err) {
        LR_LOG(&n->logger, LOGREP_LOG_WARN, "node", "bad response from node %d: %s",
               p->node_id, logrep_msg_errmsg(n->in));
        n->tr.close(n->tr.ctx, conn);
        logrep_node_closed(n, conn, now_ms);
        return LOGREP_ERR__CORRUPT;
    }
    p->inflight = o->next;
    err = lr_broker_response(n, p, o, now_ms);
    lr_free(&n->alloc, o, sizeof *o);
    /* Keep replication moving: the next fetch leaves at once, and answers
     * waiting on the HW go out now. */
    if (n->is_broker)
        lr_broker_tick(n, now_ms);
    if (n->deferred)
        lr_deferred_poll(n, now_ms, 0);
    return err;
}

LOGREP_API void logrep_node_closed(logrep_node *n, uint64_t conn, int64_t now_ms)
{
    if (!n)
        return;
    lr_conn *c = lr_node_conn(n, conn, 0);
    if (c)
        drop_conn(n, c);
    for (lr_peer *p = n->peers; p; p = p->next) {
        if (!p->connected || p->conn != conn)
            continue;
        p->connected = 0;
        p->backoff_until = now_ms + 100;
        while (p->inflight) {
            lr_outreq *o = p->inflight;
            p->inflight = o->next;
            lr_broker_request_failed(n, p, o, now_ms);
            lr_free(&n->alloc, o, sizeof *o);
        }
    }
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
        lr_broker_tick(n, now_ms);
        lr_dirs_tick(n, now_ms);
    }
    /* Kafka's LogManager cleanup task, driven by the host's clock. */
    int retention = now_ms >= n->next_retention_ms;
    if (retention)
        n->next_retention_ms =
            now_ms + lr_conf_int(n->conf, LR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
    if (n->n_parts)
        earliest(&next, n->next_retention_ms);
    for (size_t i = 0; i < n->n_parts; i++) {
        lr_partition_tick(n->parts[i].rep, now_ms);
        int64_t log_next = INT64_MAX;
        lr_npart *p = &n->parts[i];
        /* A failure is tried again a flush or checkpoint period later. */
        logrep_err lerr = logrep_log_tick(lr_partition_log(p->rep), now_ms, &log_next);
        if (lerr)
            LR_LOG(&n->logger, LOGREP_LOG_ERROR, "node", "%s-%d: flush or checkpoint failed: %s",
                   p->topic, p->index, logrep_err_name(lerr));
        earliest(&next, log_next);
        int32_t deleted = 0;
        if (retention && lr_partition_retention(n->parts[i].rep, now_ms, &deleted) != 0)
            LR_LOG(&n->logger, LOGREP_LOG_WARN, "node", "retention of %s-%d failed",
                   n->parts[i].topic, n->parts[i].index);
        if (deleted) {
            n->stats.segments_deleted += deleted;
            lr_node_part_changed(n, &n->parts[i]);
        }
    }
    lr_deferred_poll(n, now_ms, 0);
    /* Each component's own deadline, taken after the work above. */
    for (size_t i = 0; i < n->n_parts; i++)
        earliest(&next, lr_partition_deadline(n->parts[i].rep, now_ms));
    earliest(&next, lr_deferred_deadline(n, now_ms));
    earliest(&next, lr_broker_deadline(n, now_ms));
    if (n->is_broker && !n->dirs_scanned)
        earliest(&next, now_ms + 100); /* the listing failed: retry */
    for (size_t i = 0; i < n->n_retired; i++)
        earliest(&next, n->retired[i].due_ms > now_ms ? n->retired[i].due_ms : now_ms + 100);
    if (n->data_changed)
        next = now_ms; /* parked fetches to wake */
    return next < now_ms ? now_ms : next;
}

LOGREP_API logrep_err logrep_node_shutdown(logrep_node *n, int64_t now_ms)
{
    if (!n)
        return LOGREP_ERR__INVALID_ARG;
    n->shutting_down = 1;
    if (!n->is_broker || n->broker_epoch < 0)
        n->shutdown_done = 1;
    lr_broker_tick(n, now_ms);
    return LOGREP_OK;
}

LOGREP_API int logrep_node_shutdown_done(const logrep_node *n)
{
    return n && n->shutdown_done;
}

/* ------------------------------------------------------------ observability */

LOGREP_API size_t logrep_node_partition_count(const logrep_node *n)
{
    return n ? n->n_parts : 0;
}

LOGREP_API logrep_err logrep_node_partition(const logrep_node *n, size_t i,
                                            logrep_partition_info *out)
{
    if (!n || !out)
        return LOGREP_ERR__INVALID_ARG;
    if (i >= n->n_parts)
        return LOGREP_ERR__END;
    lr_part_status s;
    lr_partition_status(n->parts[i].rep, &s);
    memset(out, 0, sizeof *out);
    out->topic = n->parts[i].topic;
    out->partition = n->parts[i].index;
    out->role = s.role;
    out->leader = s.leader;
    out->leader_epoch = s.leader_epoch;
    out->log_start_offset = s.log_start_offset;
    out->log_end_offset = s.log_end_offset;
    out->segments = logrep_log_segment_count(lr_partition_log(n->parts[i].rep));
    out->high_watermark = s.high_watermark;
    out->replicas = s.n_replicas;
    out->isr = s.n_isr;
    out->under_replicated = s.under_replicated;
    out->under_min_isr = s.under_min_isr;
    out->at_min_isr = s.at_min_isr;
    out->isr_shrinks = s.isr_shrinks;
    out->isr_expands = s.isr_expands;
    int failing;
    out->append_errors = logrep_log_append_errors(lr_partition_log(n->parts[i].rep), &failing);
    out->append_failing = failing;
    return LOGREP_OK;
}

LOGREP_API void logrep_node_stats_get(const logrep_node *n, logrep_node_stats *out)
{
    if (!n || !out)
        return;
    *out = n->stats;
    lr_md_summary sum;
    lr_md_summarize(n->img, &sum);
    out->offline_partitions = sum.offline;
    out->under_replicated = sum.under_replicated;
    out->under_min_isr = sum.under_min_isr;
    out->at_min_isr = sum.at_min_isr;
    out->fenced_brokers = sum.fenced_brokers;
    out->metadata_offset = lr_md_next_offset(n->img);
    for (size_t i = 0; i < n->n_parts; i++) {
        int failing;
        out->append_errors += logrep_log_append_errors(lr_partition_log(n->parts[i].rep), &failing);
        out->append_failing += failing;
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
    if (lr_md_describe(n->img, topic, filter, &out) == 0)
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
    return n && n->ctl != NULL && !lr_nctl_failed(n);
}
