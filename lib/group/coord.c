/* The group coordinator: lifecycle, routing, record emission and appends,
 * partition loading, timers, observation. See group.h. */
#include <stdint.h>
#include <string.h>

#include "base/conf.h"
#include "group/grp_int.h"

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

char *lr_gci_strdup(lr_gc *gc, const char *s) { return s ? lr_strdup(&gc->alloc, s) : NULL; }

void lr_gci_strfree(lr_gc *gc, char *s)
{
    if (s)
        lr_strfree(&gc->alloc, s);
}

int lr_gci_str_ok(const char *s) { return !s || strnlen(s, LR_GC_MAX_NAME + 1) <= LR_GC_MAX_NAME; }

void lr_gci_answer(lr_gc *gc, const lr_gc_answer *a)
{
    if (gc->answer)
        gc->answer(gc->answer_ctx, a);
}

int lr_gci_reserve_scratch(lr_gc *gc, size_t n)
{
    if (n <= gc->cap_jm)
        return 0;
    size_t nc = n < 16 ? 16 : 2 * n;
    lr_gc_join_member *jm = lr_calloc(&gc->alloc, nc, sizeof *jm);
    lr_gc_member_info *mi = lr_calloc(&gc->alloc, nc, sizeof *mi);
    if (!jm || !mi) {
        lr_free(&gc->alloc, jm, nc * sizeof *jm);
        lr_free(&gc->alloc, mi, nc * sizeof *mi);
        return LOGREP_ERR__NOMEM;
    }
    lr_free(&gc->alloc, gc->jm, gc->cap_jm * sizeof *gc->jm);
    lr_free(&gc->alloc, gc->mi, gc->cap_jm * sizeof *gc->mi);
    gc->jm = jm;
    gc->mi = mi;
    gc->cap_jm = nc;
    return 0;
}

static int group_eq(const void *ctx, uintptr_t val, const void *key, size_t len)
{
    (void)ctx;
    const gc_group *g = (const gc_group *)val;
    return strlen(g->id) == len && memcmp(g->id, key, len) == 0;
}

/* ------------------------------------------------------------------------
 * Lifecycle
 * ---------------------------------------------------------------------- */

lr_gc *lr_gc_new(const logrep_conf *conf, lr_gc_sink_fn sink, void *sink_ctx,
                 lr_gc_answer_fn answer, void *answer_ctx)
{
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_gc *gc = lr_calloc(a, 1, sizeof *gc);
    if (!gc)
        return NULL;
    gc->alloc = *a;
    gc->log = lr_conf_log(conf);
    gc->sink = sink;
    gc->sink_ctx = sink_ctx;
    gc->answer = answer;
    gc->answer_ctx = answer_ctx;
    gc->np = (int32_t)lr_conf_int(conf, LR_CONF_OFFSETS_TOPIC_NUM_PARTITIONS);
    gc->retention_ms = lr_conf_int(conf, LR_CONF_OFFSETS_RETENTION_MINUTES) * 60000;
    gc->retention_check_ms = lr_conf_int(conf, LR_CONF_OFFSETS_RETENTION_CHECK_INTERVAL_MS);
    gc->md_max = lr_conf_int(conf, LR_CONF_OFFSET_METADATA_MAX_BYTES);
    gc->initial_delay_ms = lr_conf_int(conf, LR_CONF_GROUP_INITIAL_REBALANCE_DELAY_MS);
    gc->min_session_ms = lr_conf_int(conf, LR_CONF_GROUP_MIN_SESSION_TIMEOUT_MS);
    gc->max_session_ms = lr_conf_int(conf, LR_CONF_GROUP_MAX_SESSION_TIMEOUT_MS);
    gc->max_size = lr_conf_int(conf, LR_CONF_GROUP_MAX_SIZE);
    gc->next_expiry_ms = INT64_MIN;
    lr_prng_seed(&gc->prng, (uint64_t)lr_conf_int(conf, LR_CONF_RANDOM_SEED) ^
                                lr_prng_mix((uint64_t)lr_conf_int(conf, LR_CONF_NODE_ID) ^ 0x67726f7570ull));
    lr_hashmap_init(&gc->groups, &gc->alloc, group_eq, gc);
    lr_buf_init(&gc->batch.data, &gc->alloc);
    gc->pstate = lr_calloc(&gc->alloc, (size_t)gc->np, 1);
    if (!gc->pstate) {
        lr_free(&gc->alloc, gc, sizeof *gc);
        return NULL;
    }
    return gc;
}

void lr_gci_append_free(lr_gc *gc, gc_append *a)
{
    lr_gci_strfree(gc, a->group);
    for (size_t i = 0; i < a->n_offs; i++)
        lr_gci_offset_free(gc, &a->offs[i]);
    lr_free(&gc->alloc, a->offs, a->n_offs * sizeof *a->offs);
    lr_free(&gc->alloc, a->errors, a->n_errors * sizeof *a->errors);
    lr_gci_strfree(gc, a->old_id);
    lr_gci_strfree(gc, a->new_id);
    memset(a, 0, sizeof *a);
}

void lr_gc_free(lr_gc *gc)
{
    if (!gc)
        return;
    gc->answer = NULL; /* no answers from a coordinator going away */
    while (gc->n_all)
        lr_gci_destroy(gc, gc->all[gc->n_all - 1]);
    for (size_t i = 0; i < gc->n_ap; i++)
        lr_gci_append_free(gc, &gc->ap[i]);
    lr_free(&gc->alloc, gc->ap, gc->cap_ap * sizeof *gc->ap);
    lr_free(&gc->alloc, gc->all, gc->cap_all * sizeof *gc->all);
    lr_hashmap_free(&gc->groups);
    lr_buf_free(&gc->batch.data);
    lr_free(&gc->alloc, gc->batch.at, gc->batch.cap * 4 * sizeof(size_t));
    lr_free(&gc->alloc, gc->recs, gc->cap_recs * sizeof *gc->recs);
    lr_free(&gc->alloc, gc->jm, gc->cap_jm * sizeof *gc->jm);
    lr_free(&gc->alloc, gc->mi, gc->cap_jm * sizeof *gc->mi);
    lr_free(&gc->alloc, gc->pstate, (size_t)gc->np);
    lr_free(&gc->alloc, gc, sizeof *gc);
}

int32_t lr_gc_partition_for(const lr_gc *gc, const char *group_id)
{
    return lr_gr_partition_for((const uint8_t *)group_id, strlen(group_id), gc->np);
}

/* ------------------------------------------------------------------------
 * Groups
 * ---------------------------------------------------------------------- */

gc_group *lr_gci_find(lr_gc *gc, const char *id)
{
    uintptr_t v;
    return lr_hashmap_get(&gc->groups, id, strlen(id), &v) ? (gc_group *)v : NULL;
}

gc_group *lr_gci_create(lr_gc *gc, const char *id, int32_t p)
{
    if (gc->n_all == gc->cap_all) {
        size_t nc = gc->cap_all ? 2 * gc->cap_all : 16;
        gc_group **all = lr_realloc(&gc->alloc, gc->all, gc->cap_all * sizeof *all, nc * sizeof *all);
        if (!all)
            return NULL;
        gc->all = all;
        gc->cap_all = nc;
    }
    gc_group *g = lr_calloc(&gc->alloc, 1, sizeof *g);
    if (!g || !(g->id = lr_gci_strdup(gc, id)) ||
        lr_hashmap_put(&gc->groups, id, strlen(id), (uintptr_t)g)) {
        if (g)
            lr_gci_strfree(gc, g->id);
        lr_free(&gc->alloc, g, sizeof *g);
        return NULL;
    }
    g->p = p;
    lr_gci_offsets_init(gc, g);
    g->state = g->prev_state = LR_GC_EMPTY;
    g->state_ts = -1;
    g->join_deadline = g->sync_deadline = INT64_MAX;
    g->idx = gc->n_all;
    gc->all[gc->n_all++] = g;
    return g;
}

/* Frees g; parked requests are answered NOT_COORDINATOR. */
void lr_gci_destroy(lr_gc *gc, gc_group *g)
{
    lr_gci_fail_parked(gc, g, LOGREP_ERR_NOT_COORDINATOR);
    lr_hashmap_del(&gc->groups, g->id, strlen(g->id), NULL);
    gc->all[g->idx] = gc->all[--gc->n_all];
    gc->all[g->idx]->idx = g->idx;
    for (size_t i = 0; i < g->n; i++)
        lr_gci_member_free(gc, g->m[i]);
    lr_free(&gc->alloc, g->m, g->cap * sizeof *g->m);
    for (size_t i = 0; i < g->n_pend; i++)
        lr_gci_strfree(gc, g->pend[i].id);
    lr_free(&gc->alloc, g->pend, g->cap_pend * sizeof *g->pend);
    for (size_t i = 0; i < g->n_off; i++)
        lr_gci_offset_free(gc, &g->off[i]);
    lr_free(&gc->alloc, g->off, g->cap_off * sizeof *g->off);
    lr_hashmap_free(&g->off_index);
    lr_gci_strfree(gc, g->id);
    lr_gci_strfree(gc, g->protocol_type);
    lr_gci_strfree(gc, g->protocol);
    lr_free(&gc->alloc, g, sizeof *g);
}

int lr_gci_route(lr_gc *gc, const char *id, int allow_empty, gc_group **out)
{
    *out = NULL;
    if (!id || strnlen(id, LR_GC_MAX_GROUP_ID + 1) > LR_GC_MAX_GROUP_ID || (!allow_empty && !id[0]))
        return LOGREP_ERR_INVALID_GROUP_ID;
    int32_t p = lr_gc_partition_for(gc, id);
    if (gc->pstate[p] == PS_NONE)
        return LOGREP_ERR_NOT_COORDINATOR;
    if (gc->pstate[p] == PS_LOADING)
        return LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS;
    *out = lr_gci_find(gc, id);
    return 0;
}

/* ------------------------------------------------------------------------
 * Records out
 * ---------------------------------------------------------------------- */

void lr_gci_batch_clear(lr_gc *gc)
{
    lr_buf_clear(&gc->batch.data);
    gc->batch.n = 0;
}

/* Notes the record whose key starts at key_at and value at val_at. */
static int batch_note(lr_gc *gc, size_t key_at, size_t val_at, int tombstone)
{
    gc_batch *b = &gc->batch;
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 16;
        size_t *at = lr_realloc(&gc->alloc, b->at, b->cap * 4 * sizeof *at, nc * 4 * sizeof *at);
        if (!at)
            return LOGREP_ERR__NOMEM;
        b->at = at;
        b->cap = nc;
    }
    size_t *e = &b->at[4 * b->n++];
    e[0] = key_at;
    e[1] = val_at - key_at;
    e[2] = val_at;
    e[3] = tombstone ? SIZE_MAX : b->data.len - val_at;
    return 0;
}

int lr_gci_batch_group(lr_gc *gc, gc_group *g, int tombstone, int64_t now_ms)
{
    (void)now_ms;
    lr_buf *d = &gc->batch.data;
    size_t k = d->len;
    int err = lr_gr_encode_group_key(d, lr_gr_cstr(g->id));
    size_t v = d->len;
    if (!err && !tombstone) {
        if ((err = lr_gci_reserve_scratch(gc, g->n)))
            return err;
        /* Members go out in lr_gr_member form; reuse the join scratch. */
        lr_gr_member *ms = lr_calloc(&gc->alloc, g->n ? g->n : 1, sizeof *ms);
        if (!ms)
            return LOGREP_ERR__NOMEM;
        for (size_t i = 0; i < g->n; i++) {
            const gc_member *m = g->m[i];
            const gc_proto *pr = lr_gci_proto(m, g->protocol);
            ms[i].member_id = lr_gr_cstr(m->id);
            ms[i].instance_id = lr_gr_cstr(m->instance_id);
            ms[i].client_id = lr_gr_cstr(m->client_id);
            ms[i].client_host = lr_gr_cstr(m->client_host);
            ms[i].rebalance_timeout = m->rebalance_timeout;
            ms[i].session_timeout = m->session_timeout;
            ms[i].subscription = (lr_gr_slice){pr ? pr->md : NULL, pr ? (int32_t)pr->len : 0};
            ms[i].assignment = (lr_gr_slice){m->assignment, (int32_t)m->assignment_len};
        }
        lr_gr_group rec = {.version = 3,
                           .protocol_type = lr_gr_cstr(g->protocol_type ? g->protocol_type : ""),
                           .generation = g->generation,
                           .protocol = lr_gr_cstr(g->protocol),
                           .leader = lr_gr_cstr(g->leader),
                           .state_ts = g->state_ts};
        err = lr_gr_encode_group(d, &rec, ms, g->n);
        lr_free(&gc->alloc, ms, (g->n ? g->n : 1) * sizeof *ms);
    }
    return err ? err : batch_note(gc, k, v, tombstone);
}

int lr_gci_batch_offset(lr_gc *gc, const char *group, const gc_offset *o, int tombstone)
{
    lr_buf *d = &gc->batch.data;
    size_t k = d->len;
    int err = lr_gr_encode_offset_key(d, LR_GR_KEY_OFFSET, lr_gr_cstr(group), lr_gr_cstr(o->topic),
                                      o->partition);
    size_t v = d->len;
    if (!err && !tombstone) {
        lr_gr_offset rec = {.offset = o->offset,
                            .leader_epoch = o->leader_epoch,
                            .metadata = lr_gr_cstr(o->metadata ? o->metadata : ""),
                            .commit_ts = o->commit_ts,
                            .expire_ts = o->expire_ts};
        rec.version = lr_gr_offset_version(&rec);
        err = lr_gr_encode_offset(d, &rec);
    }
    return err ? err : batch_note(gc, k, v, tombstone);
}

static int map_append_err(int err);

int lr_gci_emit(lr_gc *gc, int32_t p, gc_append *a)
{
    gc_batch *b = &gc->batch;
    if (gc->n_ap == gc->cap_ap) {
        size_t nc = gc->cap_ap ? 2 * gc->cap_ap : 16;
        gc_append *ap = lr_realloc(&gc->alloc, gc->ap, gc->cap_ap * sizeof *ap, nc * sizeof *ap);
        if (!ap)
            return LOGREP_ERR__NOMEM;
        gc->ap = ap;
        gc->cap_ap = nc;
    }
    if (b->n > gc->cap_recs) {
        lr_gc_record *r = lr_malloc(&gc->alloc, b->n * sizeof *r);
        if (!r)
            return LOGREP_ERR__NOMEM;
        lr_free(&gc->alloc, gc->recs, gc->cap_recs * sizeof *gc->recs);
        gc->recs = r;
        gc->cap_recs = b->n;
    }
    for (size_t i = 0; i < b->n; i++) {
        const size_t *e = &b->at[4 * i];
        gc->recs[i].key = b->data.data + e[0];
        gc->recs[i].key_len = e[1];
        gc->recs[i].value = e[3] == SIZE_MAX ? NULL : b->data.data + e[2];
        gc->recs[i].value_len = e[3] == SIZE_MAX ? 0 : e[3];
    }
    a->id = ++gc->next_append;
    a->p = p;
    int err = gc->sink ? gc->sink(gc->sink_ctx, p, a->id, gc->recs, b->n) : 0;
    lr_gci_batch_clear(gc);
    if (err) /* a refused append is mapped like a failed one */
        return err > 0 ? map_append_err(err) : err;
    gc->ap[gc->n_ap++] = *a;
    return 0;
}

/* ------------------------------------------------------------------------
 * Appends reported
 * ---------------------------------------------------------------------- */

static void append_finish(lr_gc *gc, gc_append *a, int err, int64_t now_ms)
{
    lr_gc_answer ans = {.cookie = a->cookie, .kind = 0, .error = err, .generation = -1};
    switch (a->kind) {
    case AP_COMMIT:
        lr_gci_commit_done(gc, a, err);
        break;
    case AP_SYNC:
        lr_gci_sync_done(gc, a, err, now_ms);
        break;
    case AP_STATIC_JOIN:
        lr_gci_static_done(gc, a, err, now_ms);
        break;
    case AP_OFFSET_DELETE:
        for (size_t i = 0; i < a->n_errors; i++)
            if (!a->errors[i])
                a->errors[i] = (int16_t)err;
        ans.kind = LR_GC_OFFSET_DELETE;
        ans.error = 0;
        ans.part_errors = a->errors;
        ans.n_parts = a->n_errors;
        lr_gci_answer(gc, &ans);
        break;
    case AP_DELETE_GROUP:
        ans.kind = LR_GC_DELETE_GROUP;
        lr_gci_answer(gc, &ans);
        break;
    default:
        if (err)
            LR_LOG(&gc->log, 4, "group", "append %llu to offsets partition %d failed: %s",
                   (unsigned long long)a->id, (int)a->p, logrep_err_name(err));
        break;
    }
}

/* Kafka's mapping of append errors to what group clients understand. */
static int map_append_err(int err)
{
    switch (err) {
    case 0:
    case LOGREP_ERR_NOT_COORDINATOR:
    case LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
        return err;
    case LOGREP_ERR_NOT_LEADER_OR_FOLLOWER:
    case LOGREP_ERR_KAFKA_STORAGE_ERROR:
    case LOGREP_ERR_FENCED_LEADER_EPOCH:
        return LOGREP_ERR_NOT_COORDINATOR;
    case LOGREP_ERR_MESSAGE_TOO_LARGE:
    case LOGREP_ERR_RECORD_LIST_TOO_LARGE:
    case LOGREP_ERR_INVALID_FETCH_SIZE:
        return LOGREP_ERR_INVALID_COMMIT_OFFSET_SIZE;
    default:
        return LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    }
}

int lr_gc_append_done(lr_gc *gc, int32_t p, uint64_t append_id, int err, int64_t now_ms)
{
    for (size_t i = 0; i < gc->n_ap; i++) {
        if (gc->ap[i].id != append_id || gc->ap[i].p != p)
            continue;
        gc_append a = gc->ap[i];
        memmove(&gc->ap[i], &gc->ap[i + 1], (gc->n_ap - i - 1) * sizeof *gc->ap);
        gc->n_ap--;
        append_finish(gc, &a, map_append_err(err), now_ms);
        lr_gci_append_free(gc, &a);
        return 0;
    }
    return 0;
}

/* Fails every append of p (unload, reload). */
static void fail_appends(lr_gc *gc, int32_t p, int err)
{
    size_t i = 0;
    while (i < gc->n_ap) {
        if (gc->ap[i].p != p) {
            i++;
            continue;
        }
        gc_append a = gc->ap[i];
        memmove(&gc->ap[i], &gc->ap[i + 1], (gc->n_ap - i - 1) * sizeof *gc->ap);
        gc->n_ap--;
        append_finish(gc, &a, err, 0);
        lr_gci_append_free(gc, &a);
    }
}

/* ------------------------------------------------------------------------
 * Loading
 * ---------------------------------------------------------------------- */

static void drop_partition(lr_gc *gc, int32_t p)
{
    /* Groups first: their parked requests are answered, and the appends
     * failed next find no group to change. */
    for (size_t i = gc->n_all; i-- > 0;)
        if (i < gc->n_all && gc->all[i]->p == p)
            lr_gci_destroy(gc, gc->all[i]);
    fail_appends(gc, p, LOGREP_ERR_NOT_COORDINATOR);
}

int lr_gc_load_begin(lr_gc *gc, int32_t p)
{
    if (p < 0 || p >= gc->np)
        return LOGREP_ERR__INVALID_ARG;
    drop_partition(gc, p);
    gc->pstate[p] = PS_LOADING;
    return 0;
}

int lr_gc_unload(lr_gc *gc, int32_t p)
{
    if (p < 0 || p >= gc->np)
        return LOGREP_ERR__INVALID_ARG;
    drop_partition(gc, p);
    gc->pstate[p] = PS_NONE;
    return 0;
}

static char *slice_dup(lr_gc *gc, lr_gr_slice s, int *err)
{
    if (s.n < 0)
        return NULL;
    char *d = lr_malloc(&gc->alloc, (size_t)s.n + 1);
    if (!d) {
        *err = LOGREP_ERR__NOMEM;
        return NULL;
    }
    if (s.n)
        memcpy(d, s.p, (size_t)s.n);
    d[s.n] = '\0';
    return d;
}

static void group_reset(lr_gc *gc, gc_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        lr_gci_member_free(gc, g->m[i]);
    g->n = 0;
    g->n_awaiting_join = 0;
    g->leader = NULL;
    lr_gci_strfree(gc, g->protocol_type);
    lr_gci_strfree(gc, g->protocol);
    g->protocol_type = g->protocol = NULL;
    g->generation = 0;
    g->state = g->prev_state = LR_GC_EMPTY;
}

static int replay_member(lr_gc *gc, gc_group *g, const lr_gr_member *rm)
{
    int err = 0;
    gc_member *m = lr_calloc(&gc->alloc, 1, sizeof *m);
    if (!m)
        return LOGREP_ERR__NOMEM;
    m->id = slice_dup(gc, rm->member_id, &err);
    m->instance_id = slice_dup(gc, rm->instance_id, &err);
    m->client_id = slice_dup(gc, rm->client_id, &err);
    m->client_host = slice_dup(gc, rm->client_host, &err);
    m->session_timeout = rm->session_timeout;
    m->rebalance_timeout = rm->rebalance_timeout;
    m->hb_deadline = INT64_MAX;
    if (!err && g->protocol) {
        lr_gc_protocol pr = {g->protocol, rm->subscription.p, (size_t)rm->subscription.n};
        err = lr_gci_set_protocols(gc, m, &pr, 1);
    }
    if (!err && rm->assignment.n > 0) {
        if (!(m->assignment = lr_malloc(&gc->alloc, (size_t)rm->assignment.n)))
            err = LOGREP_ERR__NOMEM;
        else
            memcpy(m->assignment, rm->assignment.p, (size_t)rm->assignment.n);
        m->assignment_len = (size_t)rm->assignment.n;
    }
    if (!err)
        err = lr_gci_member_add(gc, g, m);
    if (err)
        lr_gci_member_free(gc, m);
    return err;
}

static int replay_group(lr_gc *gc, gc_group *g, const lr_gr_group *rg)
{
    int err = 0;
    group_reset(gc, g);
    g->protocol_type = slice_dup(gc, rg->protocol_type, &err);
    g->protocol = slice_dup(gc, rg->protocol, &err);
    g->generation = rg->generation;
    g->state_ts = rg->state_ts;
    lr_gr_cursor c;
    lr_gr_member rm;
    lr_gr_members(rg, &c);
    while (!err && lr_gr_member_next(&c, &rm))
        err = replay_member(gc, g, &rm);
    g->leader = NULL;
    for (size_t i = 0; i < g->n; i++)
        if (rg->leader.n >= 0 && strlen(g->m[i]->id) == (size_t)rg->leader.n &&
            memcmp(g->m[i]->id, rg->leader.p, (size_t)rg->leader.n) == 0)
            g->leader = g->m[i]->id;
    g->state = g->prev_state = g->n ? LR_GC_STABLE : LR_GC_EMPTY;
    return err;
}

int lr_gc_replay(lr_gc *gc, int32_t p, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    if (p < 0 || p >= gc->np || gc->pstate[p] != PS_LOADING)
        return LOGREP_ERR__MISUSE;
    lr_gr_key k;
    int err = lr_gr_decode_key(key, key_len, &k);
    if (err == LOGREP_ERR__UNSUPPORTED)
        return 0; /* KIP-848 and share group records: not ours */
    if (err)
        return err;
    if (k.group.n > LR_GC_MAX_GROUP_ID)
        return 0; /* a group this coordinator would refuse anyway */
    char id[LR_GC_MAX_GROUP_ID + 1];
    memcpy(id, k.group.p, (size_t)k.group.n);
    id[k.group.n] = '\0';
    if (strlen(id) != (size_t)k.group.n)
        return LOGREP_ERR__CORRUPT;
    gc_group *g = lr_gci_find(gc, id);
    lr_gr_offset ro;
    lr_gr_group rg;
    if (value && (err = k.version == LR_GR_KEY_GROUP ? lr_gr_decode_group(value, value_len, &rg)
                                                      : lr_gr_decode_offset(value, value_len, &ro)))
        return err;
    if (!g && value && !(g = lr_gci_create(gc, id, p)))
        return LOGREP_ERR__NOMEM;
    if (!g)
        return 0;
    if (k.version == LR_GR_KEY_GROUP) {
        if (value)
            return replay_group(gc, g, &rg);
        group_reset(gc, g);
        if (!g->n_off)
            lr_gci_destroy(gc, g);
        return 0;
    }
    char *topic = slice_dup(gc, k.topic, &err);
    if (err)
        return err;
    if (!value) {
        lr_gci_offset_del(gc, g, topic, k.partition);
        lr_gci_strfree(gc, topic);
        return 0;
    }
    gc_offset o = {.topic = topic,
                   .partition = k.partition,
                   .leader_epoch = ro.leader_epoch,
                   .offset = ro.offset,
                   .commit_ts = ro.commit_ts,
                   .expire_ts = ro.expire_ts,
                   .metadata = slice_dup(gc, ro.metadata, &err)};
    if (!err)
        err = lr_gci_offset_put(gc, g, &o, 1);
    if (err)
        lr_gci_offset_free(gc, &o);
    return err;
}

int lr_gc_load_done(lr_gc *gc, int32_t p, int64_t now_ms)
{
    if (p < 0 || p >= gc->np || gc->pstate[p] != PS_LOADING)
        return LOGREP_ERR__MISUSE;
    gc->pstate[p] = PS_LOADED;
    for (size_t i = 0; i < gc->n_all; i++) {
        gc_group *g = gc->all[i];
        if (g->p != p)
            continue;
        for (size_t j = 0; j < g->n; j++)
            g->m[j]->hb_deadline = now_ms + g->m[j]->session_timeout;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Time
 * ---------------------------------------------------------------------- */

int lr_gc_tick(lr_gc *gc, int64_t now_ms)
{
    int err = 0;
    for (size_t i = gc->n_all; i-- > 0;) {
        if (i >= gc->n_all)
            continue;
        gc_group *g = gc->all[i];
        if (gc->pstate[g->p] == PS_LOADED && lr_gci_group_deadline(g) <= now_ms) {
            int e = lr_gci_group_timers(gc, g, now_ms);
            err = err ? err : e;
        }
    }
    if (now_ms >= gc->next_expiry_ms) {
        int e = lr_gci_expire(gc, now_ms);
        if (!e)
            gc->next_expiry_ms = now_ms + gc->retention_check_ms;
        err = err ? err : e;
    }
    return err;
}

int64_t lr_gc_deadline(const lr_gc *gc)
{
    int64_t d = gc->n_all ? gc->next_expiry_ms : INT64_MAX;
    for (size_t i = 0; i < gc->n_all; i++) {
        int64_t x = lr_gci_group_deadline(gc->all[i]);
        if (gc->pstate[gc->all[i]->p] == PS_LOADED && x < d)
            d = x;
    }
    return d;
}
