/* The group coordinator on a node (docs/groups.md): lib/group's state
 * machine fed with this node's offsets partitions.
 *
 * A partition of `__consumer_offsets` this node leads is loaded by
 * replaying its log (a bounded number of bytes per tick), then served; one
 * it stops leading, or whose append failed, is unloaded (and reloaded when
 * it leads again). The coordinator's records go to the partition as an
 * acks=all append whose completion, once the high watermark passed it,
 * acknowledges them. Requests waiting for the coordinator are parked with
 * cookies; its answers come back through answer(). FindCoordinator
 * creates the offsets topic on first use, as Kafka does. */
#include <stdio.h>
#include <string.h>

#include "group/group.h"
#include "node/node_int.h"
#include "proto/arena.h"

/* How long before asking the controller again to create the topic. */
#define LR_OFFSETS_CREATE_BACKOFF_MS 1000

/* ------------------------------------------------------------ strings */

void lr_groups_begin(logrep_node *n, int64_t now_ms)
{
    lr_arena_reset(n->groups.arena, 64 << 10);
    n->groups.now = now_ms;
}

void *lr_garena_alloc(logrep_node *n, size_t size)
{
    return lr_arena_alloc(n->groups.arena, size ? size : 1);
}

const char *lr_gcstr(logrep_node *n, const void *p, int32_t len, int *nomem)
{
    if (!p || len < 0 || memchr(p, 0, (size_t)len))
        return NULL;
    char *c = lr_garena_alloc(n, (size_t)len + 1);
    if (!c) {
        *nomem = 1;
        return NULL;
    }
    memcpy(c, p, (size_t)len);
    c[len] = 0;
    return c;
}

const char *lr_gstr(logrep_node *n, const logrep_struct *s, lr_fname f, int *nomem)
{
    const char *p;
    int32_t len;
    return lr_f_str(s, f, &p, &len) == 0 ? lr_gcstr(n, p, len, nomem) : NULL;
}

/* ------------------------------------------------------------ appends */

static lr_npart *offsets_part(logrep_node *n, int32_t p)
{
    return lr_node_part(n, LR_OFFSETS_TOPIC, p);
}

static int add_append(logrep_node *n, int32_t p, uint64_t id, uint64_t token, int done, int err)
{
    lr_groups *g = &n->groups;
    if (g->n_appends == g->cap_appends) {
        size_t nc = g->cap_appends ? g->cap_appends * 2 : 16;
        lr_gappend *na = lr_realloc(&n->alloc, g->appends, g->cap_appends * sizeof *na,
                                    nc * sizeof *na);
        if (!na)
            return LOGREP_ERR__NOMEM;
        g->appends = na;
        g->cap_appends = nc;
    }
    g->appends[g->n_appends++] = (lr_gappend){p, id, token, done, err};
    return 0;
}

/* The coordinator's batch: one acks=all append to the partition we lead. */
static int sink(void *ctx, int32_t partition, uint64_t append_id, const lr_gc_record *recs,
                size_t nrec)
{
    logrep_node *n = ctx;
    lr_groups *g = &n->groups;
    lr_npart *p = offsets_part(n, partition);
    if (!p || lr_partition_role(p->rep) != LR_ROLE_LEADER)
        return LOGREP_ERR_NOT_COORDINATOR;
    /* Room for its completion first: an append nobody can report would
     * leave its request unanswered. */
    if (g->n_appends == g->cap_appends && add_append(n, -1, 0, 0, 1, 0) == 0)
        g->n_appends--;
    if (g->n_appends == g->cap_appends)
        return LOGREP_ERR__NOMEM;
    logrep_batch_builder_reset(g->b);
    int err = 0;
    for (size_t i = 0; i < nrec && !err; i++)
        err = logrep_batch_builder_add(g->b, g->now, recs[i].key, (int32_t)recs[i].key_len,
                                       recs[i].value,
                                       recs[i].value ? (int32_t)recs[i].value_len : -1, NULL, 0);
    const uint8_t *batch;
    size_t len;
    if (!err)
        err = logrep_batch_builder_finish(g->b, &batch, &len);
    uint8_t *copy = err ? NULL : lr_malloc(&n->alloc, len);
    if (err || !copy)
        return err ? err : LOGREP_ERR__NOMEM;
    memcpy(copy, batch, len); /* the log stamps offsets into what it appends */
    uint64_t token = LR_GROUP_TOKEN | ++g->token_seq;
    lr_produce_res res;
    lr_partition_produce(p->rep, copy, len, -1,
                         lr_conf_int(n->conf, LR_CONF_OFFSETS_COMMIT_TIMEOUT_MS), token, g->now,
                         &res);
    lr_free(&n->alloc, copy, len);
    lr_node_part_changed(n, p);
    if (!res.parked && res.error && res.error != LOGREP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        return res.error; /* refused before the append: nothing written */
    add_append(n, partition, append_id, token, !res.parked, res.error); /* room was made */
    return 0;
}

void lr_groups_completion(logrep_node *n, const lr_produce_res *r)
{
    lr_groups *g = &n->groups;
    for (size_t i = 0; i < g->n_appends; i++)
        if (!g->appends[i].done && g->appends[i].token == r->token) {
            g->appends[i].done = 1;
            g->appends[i].err = r->error;
            n->park.woken = 1;
            return;
        }
}

static void unload(logrep_node *n, int32_t p)
{
    lr_gpart *gp = &n->groups.parts[p];
    if (gp->state != LR_GP_NONE)
        lr_gc_unload(n->groups.gc, p);
    gp->state = LR_GP_NONE;
    gp->leader_epoch = -1;
}

void lr_groups_flush(logrep_node *n, int64_t now_ms)
{
    lr_groups *g = &n->groups;
    if (!g->gc)
        return;
    g->now = now_ms;
    /* Reported in order; a report may start new appends (they are added
     * at the end and reported later). */
    size_t k = 0, end = g->n_appends;
    for (size_t i = 0; i < end; i++) {
        lr_gappend a = g->appends[i];
        if (!a.done) {
            g->appends[k++] = a;
            continue;
        }
        if (a.partition < 0)
            continue;
        if (lr_gc_append_done(g->gc, a.partition, a.append_id, a.err, now_ms) != 0) {
            g->appends[k++] = a; /* out of memory: told again later */
            continue;
        }
        if (a.err) {
            /* Its memory may be ahead of the log: replay it again. */
            LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "groups",
                   "offsets partition %d: append failed (%s); reloading", a.partition,
                   logrep_err_name(a.err));
            if (a.partition < g->n_parts)
                unload(n, a.partition);
            g->track_again = 1;
        }
    }
    if (g->n_appends > end)
        memmove(g->appends + k, g->appends + end, (g->n_appends - end) * sizeof *g->appends);
    g->n_appends = k + (g->n_appends - end);
}

/* ------------------------------------------------------------ loading */

/* Replays up to the per-tick budget; 1 when the partition is loaded. */
static int load_step(logrep_node *n, int32_t p, lr_npart *np)
{
    lr_groups *g = &n->groups;
    lr_gpart *gp = &g->parts[p];
    logrep_log *log = lr_partition_log(np->rep);
    uint64_t budget = (uint64_t)lr_conf_int(n->conf, LR_CONF_OFFSETS_LOAD_BUFFER_SIZE), used = 0;
    int err = 0;
    if (gp->load_next < logrep_log_start_offset(log))
        gp->load_next = logrep_log_start_offset(log);
    while (!err && gp->load_next < gp->load_end && used < budget) {
        logrep_log_slice s;
        err = logrep_log_read(log, gp->load_next, budget - used, INT64_MAX, 1, &s);
        if (err || !s.length)
            break;
        if (s.length > g->load_cap) {
            uint8_t *nb = lr_realloc(&n->alloc, g->load_buf, g->load_cap, (size_t)s.length);
            if (!nb) {
                err = LOGREP_ERR__NOMEM;
                break;
            }
            g->load_buf = nb;
            g->load_cap = (size_t)s.length;
        }
        size_t got = 0, pos = 0;
        err = n->st->read(n->st->ctx, s.file, s.position, g->load_buf, (size_t)s.length, &got);
        while (!err && pos < got) {
            logrep_batch_header h;
            if ((err = logrep_batch_reader_open(g->rd, g->load_buf + pos, got - pos, &h)) != 0)
                break;
            logrep_record rec;
            /* Control batches carry transaction markers, not group state. */
            while (!(h.attributes & LOGREP_ATTR_CONTROL) &&
                   logrep_batch_reader_next(g->rd, &rec) == LOGREP_OK && !err)
                if (rec.key && rec.key_len >= 0)
                    err = lr_gc_replay(g->gc, p, rec.key, (size_t)rec.key_len, rec.value,
                                       rec.value ? (size_t)rec.value_len : 0);
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        used += s.length;
        if (!err)
            gp->load_next = s.next_offset;
    }
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "groups",
               "offsets partition %d: loading failed at offset %lld: %s; retrying", p,
               (long long)gp->load_next, logrep_err_name(err));
        unload(n, p); /* begun again next tick */
        g->track_again = 1;
        return 0;
    }
    if (gp->load_next < gp->load_end)
        return 0;
    if (lr_gc_load_done(g->gc, p, g->now) != 0) {
        g->track_again = 1;
        return 0;
    }
    gp->state = LR_GP_LOADED;
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "groups", "offsets partition %d loaded (epoch %d)", p,
           gp->leader_epoch);
    return 1;
}

/* Follows leadership of every offsets partition: when roles may have
 * changed (an apply of metadata, a shutdown), while one loads, or after a
 * failure. */
static void track_partitions(logrep_node *n, int64_t now_ms)
{
    lr_groups *g = &n->groups;
    int loading = 0;
    for (int32_t p = 0; p < g->n_parts && !loading; p++)
        loading = g->parts[p].state == LR_GP_LOADING;
    if (!loading && !g->track_again && g->seen_applies == n->parts.applies &&
        g->seen_shutting_down == n->life.shutting_down)
        return;
    g->track_again = 0;
    g->seen_applies = n->parts.applies;
    g->seen_shutting_down = n->life.shutting_down;
    for (int32_t p = 0; p < g->n_parts; p++) {
        lr_gpart *gp = &g->parts[p];
        lr_npart *np = offsets_part(n, p);
        lr_part_status st;
        memset(&st, 0, sizeof st);
        int leads = 0;
        if (np) {
            lr_partition_status(np->rep, &st);
            leads = st.role == LR_ROLE_LEADER && !n->life.shutting_down;
        }
        if (!leads) {
            unload(n, p);
            continue;
        }
        if (gp->state != LR_GP_NONE && gp->leader_epoch != st.leader_epoch)
            unload(n, p); /* a new leadership: what was held may be stale */
        if (gp->state == LR_GP_NONE) {
            if (lr_gc_load_begin(g->gc, p) != 0) {
                g->track_again = 1;
                continue;
            }
            gp->state = LR_GP_LOADING;
            gp->leader_epoch = st.leader_epoch;
            gp->load_next = st.log_start_offset;
            gp->load_end = st.log_end_offset;
        }
        if (gp->state == LR_GP_LOADING)
            load_step(n, p, np);
    }
    (void)now_ms;
}

void lr_groups_tick(logrep_node *n, int64_t now_ms)
{
    if (!n->groups.gc)
        return;
    n->groups.now = now_ms;
    lr_groups_flush(n, now_ms);
    track_partitions(n, now_ms);
    lr_gc_tick(n->groups.gc, now_ms);
    lr_groups_flush(n, now_ms);
}

int64_t lr_groups_deadline(const logrep_node *n, int64_t now_ms)
{
    const lr_groups *g = &n->groups;
    if (!g->gc)
        return INT64_MAX;
    for (int32_t p = 0; p < g->n_parts; p++)
        if (g->parts[p].state == LR_GP_LOADING)
            return now_ms; /* more to replay */
    for (size_t i = 0; i < g->n_appends; i++)
        if (g->appends[i].done)
            return now_ms;
    return lr_gc_deadline(g->gc);
}

/* ------------------------------------------------------------ answers */

static int gp_poll(logrep_node *n, lr_parked *d, int64_t now_ms)
{
    (void)n;
    (void)now_ms;
    return ((lr_gpark *)d)->done;
}

static int64_t gp_deadline(const logrep_node *n, const lr_parked *d, int64_t now_ms)
{
    (void)n;
    /* The coordinator answers every cookie it accepted; nothing is timed here. */
    return ((const lr_gpark *)d)->done ? now_ms : INT64_MAX;
}

static void gp_free(logrep_node *n, lr_parked *d)
{
    lr_gpark *g = (lr_gpark *)d;
    lr_free(&n->alloc, g->errs, g->n_errs * sizeof *g->errs);
    lr_free(&n->alloc, g->frame, g->frame_len);
    lr_free(&n->alloc, g, sizeof *g);
}

static const lr_park_ops gpark_ops = {gp_poll, gp_deadline, gp_free};

lr_gpark *lr_gpark_new(logrep_node *n, const lr_req *r, lr_gpark_answer_fn fn, size_t n_cookies,
                       size_t n_errs, int keep_frame)
{
    lr_gpark *g = lr_calloc(&n->alloc, 1, sizeof *g);
    if (!g)
        return NULL;
    g->answer = fn;
    g->errs = n_errs ? lr_malloc(&n->alloc, n_errs * sizeof *g->errs) : NULL;
    g->n_errs = g->errs ? n_errs : 0;
    g->frame = keep_frame ? lr_malloc(&n->alloc, r->len ? r->len : 1) : NULL;
    g->frame_len = g->frame ? (r->len ? r->len : 1) : 0;
    if ((n_errs && !g->errs) || (keep_frame && !g->frame) ||
        lr_park_add(n, r->conn, r->msg, &g->base, &gpark_ops) != 0) {
        gp_free(n, &g->base);
        return NULL;
    }
    for (size_t i = 0; i < g->n_errs; i++)
        g->errs[i] = -1;
    if (g->frame)
        memcpy(g->frame, r->frame, r->len);
    g->cookie0 = n->groups.cookie_seq + 1;
    n->groups.cookie_seq += n_cookies;
    g->n_cookies = n_cookies;
    g->outstanding = n_cookies;
    return g;
}

int lr_gpark_start(logrep_node *n, lr_gpark *g, int api)
{
    if (logrep_msg_init_response(n->groups.out, api, g->base.version,
                                 g->base.correlation_id) != 0) {
        lr_gpark_give_up(n, g);
        return -1;
    }
    return 0;
}

void lr_gpark_finish(logrep_node *n, lr_gpark *g)
{
    lr_conn_finish(n, g->base.conn, g->base.slot, n->groups.out); /* or closes */
    g->done = 1;
    n->park.woken = 1;
}

void lr_gpark_give_up(logrep_node *n, lr_gpark *g)
{
    lr_conn_close(n, g->base.conn);
    lr_conn_skip(n, g->base.conn, g->base.slot);
    g->done = 1;
    n->park.woken = 1;
}

int lr_gpark_result(logrep_node *n, lr_gpark *g, int err)
{
    if (err < 0 && !g->done)
        lr_gpark_give_up(n, g);
    return 0;
}

logrep_struct *lr_gpark_request(logrep_node *n, lr_gpark *g)
{
    if (!g->frame || logrep_msg_decode_request(n->groups.in, g->frame, g->frame_len) != 0)
        return NULL;
    return logrep_msg_root(n->groups.in);
}

void lr_f_set_nstr(logrep_struct *s, lr_fname f, const char *v)
{
    if (v)
        lr_f_set_str(s, f, v, (int32_t)strlen(v));
    else
        logrep_struct_set_null(s, lr_fid(s, f));
}

static lr_gpark *gpark_of(logrep_node *n, uint64_t cookie)
{
    for (lr_parked *d = n->park.list; d; d = d->next) {
        lr_gpark *g = (lr_gpark *)d;
        if (d->ops == &gpark_ops && !g->done && cookie >= g->cookie0 &&
            cookie - g->cookie0 < g->n_cookies)
            return g;
    }
    return NULL;
}

/* The coordinator answers a cookie: its request's kind builds the reply.
 * A request whose connection went away is no longer parked: ignored. */
static void answer(void *ctx, const lr_gc_answer *a)
{
    logrep_node *n = ctx;
    lr_gpark *g = gpark_of(n, a->cookie);
    if (g)
        g->answer(n, g, (size_t)(a->cookie - g->cookie0), a);
    else
        lr_groups_inproc_answer(n, a);
}

/* ------------------------------------------------------------ life */

int lr_groups_init(logrep_node *n)
{
    lr_groups *g = &n->groups;
    g->parts = NULL;
    g->n_parts = (int32_t)lr_conf_int(n->conf, LR_CONF_OFFSETS_TOPIC_NUM_PARTITIONS);
    lr_arena *ar = lr_calloc(&n->alloc, 1, sizeof *ar);
    if (!ar)
        return LOGREP_ERR__NOMEM;
    lr_arena_init(ar, &n->alloc);
    g->arena = ar;
    g->parts = lr_calloc(&n->alloc, (size_t)g->n_parts, sizeof *g->parts);
    if (!g->parts)
        return LOGREP_ERR__NOMEM;
    for (int32_t p = 0; p < g->n_parts; p++)
        g->parts[p].leader_epoch = -1;
    int err = logrep_batch_builder_new(n->conf, &g->b);
    if (!err)
        err = logrep_batch_reader_new(n->conf, &g->rd);
    if (!err)
        err = logrep_msg_new(n->conf, &g->out);
    if (!err)
        err = logrep_msg_new(n->conf, &g->in);
    if (!err && !(g->gc = lr_gc_new(n->conf, sink, n, answer, n)))
        err = LOGREP_ERR__NOMEM;
    return err;
}

void lr_groups_free(logrep_node *n)
{
    lr_groups *g = &n->groups;
    lr_gc_free(g->gc);
    g->gc = NULL;
    logrep_batch_builder_free(g->b);
    logrep_batch_reader_free(g->rd);
    logrep_msg_free(g->out);
    logrep_msg_free(g->in);
    if (g->arena) {
        lr_arena_free(g->arena);
        lr_free(&n->alloc, g->arena, sizeof(lr_arena));
    }
    lr_free(&n->alloc, g->parts, (size_t)(g->n_parts > 0 ? g->n_parts : 0) * sizeof *g->parts);
    lr_free(&n->alloc, g->appends, g->cap_appends * sizeof *g->appends);
    lr_free(&n->alloc, g->load_buf, g->load_cap);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------ FindCoordinator */

/* Asks the controller for the offsets topic (at most once a second):
 * compacted, its replication factor capped by the brokers alive, as
 * Kafka creates it. */
static void create_offsets_topic(logrep_node *n, int64_t now_ms)
{
    lr_groups *g = &n->groups;
    if (now_ms < g->create_after)
        return;
    g->create_after = now_ms + LR_OFFSETS_CREATE_BACKOFF_MS;
    int32_t live = 0;
    for (size_t i = 0; i < lr_md_broker_count(n->md.img); i++)
        live += !lr_md_broker_at(n->md.img, i)->fenced;
    int32_t rf = (int32_t)lr_conf_int(n->conf, LR_CONF_OFFSETS_TOPIC_REPLICATION_FACTOR);
    if (live > 0 && rf > live)
        rf = live;
    char seg[24];
    snprintf(seg, sizeof seg, "%lld",
             (long long)lr_conf_int(n->conf, LR_CONF_OFFSETS_TOPIC_SEGMENT_BYTES));
    const char *const cfg[] = {"cleanup.policy", "compact", "compression.type", "producer",
                               "segment.bytes", seg, NULL};
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "groups",
           "creating " LR_OFFSETS_TOPIC " with %d partitions, replication factor %d",
           g->n_parts, rf);
    lr_admin_create_topic(n, LR_OFFSETS_TOPIC, g->n_parts, (int16_t)rf, cfg, now_ms);
}

typedef struct coord {
    int16_t error;
    const char *msg;
    const lr_md_broker *b;
} coord;

/* The coordinator of one key of type key_type. */
static coord find(logrep_node *n, int8_t key_type, const char *key, int32_t klen,
                  int64_t now_ms)
{
    coord c = {LOGREP_ERR_COORDINATOR_NOT_AVAILABLE, "The coordinator is not available.", NULL};
    if (key_type == 1) {
        c.msg = "Transaction coordinators are not served by this broker.";
        return c;
    }
    if (key_type != 0) {
        c.error = LOGREP_ERR_INVALID_REQUEST;
        c.msg = "Unknown key type.";
        return c;
    }
    int nomem = 0;
    const char *id = n->groups.gc ? lr_gcstr(n, key, klen, &nomem) : NULL;
    if (!id) {
        if (n->groups.gc && !nomem) {
            c.error = LOGREP_ERR_INVALID_REQUEST;
            c.msg = "Invalid group id.";
        }
        return c;
    }
    int32_t p = lr_gc_partition_for(n->groups.gc, id);
    const lr_md_topic *t = lr_md_topic_by_name(n->md.img, LR_OFFSETS_TOPIC);
    if (!t) {
        create_offsets_topic(n, now_ms);
        return c;
    }
    if (p < 0 || p >= t->n_parts) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "groups",
               LR_OFFSETS_TOPIC " has %d partitions, offsets.topic.num.partitions is %d",
               t->n_parts, n->groups.n_parts);
        return c;
    }
    const lr_md_broker *b = t->parts[p].leader >= 0
                                ? lr_md_broker_get(n->md.img, t->parts[p].leader) : NULL;
    if (!b || b->fenced || !b->n_endpoints)
        return c;
    c.error = 0;
    c.msg = NULL;
    c.b = b;
    return c;
}

int lr_groups_coordinator(logrep_node *n, const char *group, int64_t now_ms, int32_t *node_id)
{
    lr_groups_begin(n, now_ms);
    coord c = find(n, 0, group, (int32_t)strnlen(group, INT32_MAX), now_ms);
    *node_id = c.b ? c.b->id : -1;
    return c.error;
}

static void fill_coord(logrep_struct *s, coord c)
{
    lr_f_set_int(s, LR_FN_ErrorCode, c.error);
    if (c.msg)
        lr_f_set_str(s, LR_FN_ErrorMessage, c.msg, (int32_t)strlen(c.msg));
    else
        logrep_struct_set_null(s, lr_fid(s, LR_FN_ErrorMessage));
    lr_f_set_int(s, LR_FN_NodeId, c.b ? c.b->id : -1);
    const char *host = c.b ? c.b->endpoints[0].host : "";
    lr_f_set_str(s, LR_FN_Host, host, (int32_t)strlen(host));
    lr_f_set_int(s, LR_FN_Port, c.b ? c.b->endpoints[0].port : -1);
}

int lr_api_find_coordinator(logrep_node *n, const lr_req *r)
{
    logrep_struct *rq = logrep_msg_root(r->msg);
    int err = lr_req_init(r);
    if (err)
        return err;
    lr_groups_begin(n, r->now_ms);
    logrep_struct *rs = logrep_msg_root(r->resp);
    int8_t type = (int8_t)lr_f_int(rq, LR_FN_KeyType);
    if (logrep_msg_version(r->msg) < 4) {
        const char *key;
        int32_t klen;
        lr_f_str(rq, LR_FN_Key, &key, &klen);
        fill_coord(rs, find(n, type, key, klen, r->now_ms));
    } else {
        int fk = lr_fid(rq, LR_FN_CoordinatorKeys);
        int32_t nk = logrep_struct_count(rq, fk);
        if (nk < 0)
            nk = 0;
        lr_f_set_count(rs, LR_FN_Coordinators, nk);
        for (int32_t i = 0; i < nk; i++) {
            const uint8_t *key = NULL;
            int32_t klen = 0;
            logrep_struct_elem_bytes(rq, fk, i, &key, &klen);
            logrep_struct *ce = lr_f_elem(rs, LR_FN_Coordinators, i);
            lr_f_set_str(ce, LR_FN_Key, (const char *)key, klen < 0 ? 0 : klen);
            fill_coord(ce, find(n, type, (const char *)key, klen, r->now_ms));
        }
    }
    return lr_req_answer(n, r);
}
