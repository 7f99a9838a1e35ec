/* Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups
 * and retention (Kafka's OffsetMetadataManager for classic groups). */
#include <string.h>

#include "group/grp_int.h"

#define MAX_TOPIC 249

void lr_gci_offset_free(lr_gc *gc, gc_offset *o)
{
    lr_gci_strfree(gc, o->topic);
    lr_gci_strfree(gc, o->metadata);
    o->topic = o->metadata = NULL;
}

/* The index key of (topic, partition): the partition's 4 bytes, then the
 * topic. In buf when it fits, else allocated (*heap set); NULL when out
 * of memory. */
static uint8_t *index_key(const lr_gc *gc, const char *topic, int32_t partition, uint8_t *buf,
                          size_t cap, size_t *len, int *heap)
{
    size_t tl = strlen(topic);
    *len = tl + 4;
    *heap = *len > cap;
    uint8_t *k = *heap ? lr_malloc(&gc->alloc, *len) : buf;
    if (k) {
        memcpy(k, &partition, 4);
        memcpy(k + 4, topic, tl);
    }
    return k;
}

static int index_eq(const void *ctx, uintptr_t val, const void *key, size_t len)
{
    const gc_group *g = ctx;
    const gc_offset *o = &g->off[val];
    size_t tl = strlen(o->topic);
    return len == tl + 4 && memcmp(key, &o->partition, 4) == 0 &&
           memcmp((const uint8_t *)key + 4, o->topic, tl) == 0;
}

void lr_gci_offsets_init(lr_gc *gc, gc_group *g)
{
    lr_hashmap_init(&g->off_index, &gc->alloc, index_eq, g);
}

/* op 1: sets (topic, partition)'s position to val (0 or
 * LOGREP_ERR__NOMEM); op 2: removes it (its position, or -1 when absent). */
static intptr_t index_op(lr_gc *gc, gc_group *g, const char *topic, int32_t partition, int op,
                         size_t val)
{
    uint8_t buf[256];
    size_t len;
    int heap;
    uint8_t *k = index_key(gc, topic, partition, buf, sizeof buf, &len, &heap);
    if (!k)
        return op == 1 ? LOGREP_ERR__NOMEM : -1;
    uintptr_t v = 0;
    intptr_t r;
    if (op == 1)
        r = lr_hashmap_put(&g->off_index, k, len, val);
    else
        r = lr_hashmap_del(&g->off_index, k, len, &v) ? (intptr_t)v : -1;
    if (heap)
        lr_free(&gc->alloc, k, len);
    return r;
}

static gc_offset *offset_find(const lr_gc *gc, const gc_group *g, const char *topic,
                              int32_t partition)
{
    uint8_t buf[256];
    size_t len;
    int heap;
    uint8_t *k = index_key(gc, topic, partition, buf, sizeof buf, &len, &heap);
    uintptr_t v = 0;
    int found = k && lr_hashmap_get(&g->off_index, k, len, &v);
    if (k && heap)
        lr_free(&gc->alloc, k, len);
    return found ? &g->off[v] : NULL;
}

/* Stores o (its strings are taken when take, else copied). An entry
 * stored by a later append is kept. */
int lr_gci_offset_put(lr_gc *gc, gc_group *g, const gc_offset *o, int take)
{
    gc_offset c = *o;
    if (!take) {
        c.topic = lr_gci_strdup(gc, o->topic);
        c.metadata = lr_gci_strdup(gc, o->metadata);
        if (!c.topic || (o->metadata && !c.metadata)) {
            lr_gci_offset_free(gc, &c);
            return LOGREP_ERR__NOMEM;
        }
    }
    gc_offset *e = offset_find(gc, g, c.topic, c.partition);
    if (e) {
        if (e->seq > c.seq && c.seq) {
            lr_gci_offset_free(gc, &c);
            return 0;
        }
        lr_gci_offset_free(gc, e);
        *e = c;
        return 0;
    }
    if (g->n_off == g->cap_off) {
        size_t nc = g->cap_off ? 2 * g->cap_off : 8;
        gc_offset *p = lr_realloc(&gc->alloc, g->off, g->cap_off * sizeof *p, nc * sizeof *p);
        if (!p) {
            if (!take)
                lr_gci_offset_free(gc, &c);
            return LOGREP_ERR__NOMEM;
        }
        g->off = p;
        g->cap_off = nc;
    }
    g->off[g->n_off++] = c;
    if (index_op(gc, g, c.topic, c.partition, 1, g->n_off - 1) != 0) {
        g->n_off--;
        if (!take)
            lr_gci_offset_free(gc, &c);
        return LOGREP_ERR__NOMEM;
    }
    return 0;
}

void lr_gci_offset_del(lr_gc *gc, gc_group *g, const char *topic, int32_t partition)
{
    intptr_t i = index_op(gc, g, topic, partition, 2, 0);
    if (i < 0)
        return;
    lr_gci_offset_free(gc, &g->off[i]);
    g->off[i] = g->off[--g->n_off];
    /* The last entry moved into the hole: its index follows (a put that
     * replaces never allocates). */
    if ((size_t)i < g->n_off)
        index_op(gc, g, g->off[i].topic, g->off[i].partition, 1, (size_t)i);
}

/* A commit of (topic, partition) for group id is in flight. */
static int in_flight(const lr_gc *gc, const char *id, const char *topic, int32_t partition)
{
    for (size_t i = 0; i < gc->n_ap; i++) {
        const gc_append *a = &gc->ap[i];
        if (a->kind != AP_COMMIT || strcmp(a->group, id) != 0)
            continue;
        for (size_t j = 0; j < a->n_offs; j++)
            if (a->offs[j].partition == partition && strcmp(a->offs[j].topic, topic) == 0)
                return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * OffsetCommit
 * ---------------------------------------------------------------------- */

/* Kafka's ClassicGroup.validateOffsetCommit (non-transactional). */
static int validate_commit(const gc_group *g, const lr_gc_commit_req *r)
{
    int has_member = r->member_id && r->member_id[0];
    if (r->generation < 0 && g->state == LR_GC_EMPTY)
        return 0;
    if (r->generation >= 0 || has_member || r->instance_id) {
        int err = lr_gci_validate_member(g, r->member_id, r->instance_id);
        if (err)
            return err;
        if (r->generation != g->generation)
            return LOGREP_ERR_ILLEGAL_GENERATION;
    } else if (g->state != LR_GC_EMPTY) {
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    }
    return g->state == LR_GC_COMPLETING_REBALANCE ? LOGREP_ERR_REBALANCE_IN_PROGRESS : 0;
}

static void answer_parts(lr_gc *gc, int kind, uint64_t cookie, int err, const int16_t *errs, size_t n)
{
    lr_gc_answer a = {.cookie = cookie, .kind = kind, .error = err, .generation = -1,
                      .part_errors = errs, .n_parts = n};
    lr_gci_answer(gc, &a);
}

void lr_gci_commit_done(lr_gc *gc, gc_append *a, int err)
{
    gc_group *g = lr_gci_find(gc, a->group);
    /* The group went away while its commit was in flight (its members
     * expired, it was emptied and deleted): the records follow the
     * tombstone in the log, so a replay has the group again with these
     * offsets, and so does memory. */
    if (!err && !g && a->n_offs && !(g = lr_gci_create(gc, a->group, a->p)))
        err = LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    for (size_t i = 0; !err && g && i < a->n_offs; i++) {
        gc_offset *o = &a->offs[i];
        o->seq = a->id;
        if (!lr_gci_offset_put(gc, g, o, 1))
            o->topic = o->metadata = NULL; /* taken */
        else
            err = LOGREP_ERR_COORDINATOR_NOT_AVAILABLE; /* memory: not acknowledged */
    }
    for (size_t i = 0; i < a->n_errors; i++)
        if (a->errors[i] == 0)
            a->errors[i] = (int16_t)err;
    answer_parts(gc, LR_GC_COMMIT, a->cookie, 0, a->errors, a->n_errors);
}

static int check_parts(const lr_gc_commit_part *parts, size_t n)
{
    if (n && !parts)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!parts[i].topic)
            return 0;
    return 1;
}

int lr_gc_commit(lr_gc *gc, const lr_gc_commit_req *r, uint64_t cookie, int64_t now_ms)
{
    if (!gc || !r || !check_parts(r->parts, r->n_parts))
        return LOGREP_ERR__INVALID_ARG;
    gc_append a = {.kind = AP_COMMIT, .cookie = cookie, .n_errors = r->n_parts};
    a.errors = lr_calloc(&gc->alloc, r->n_parts ? r->n_parts : 1, sizeof *a.errors);
    a.offs = lr_calloc(&gc->alloc, r->n_parts ? r->n_parts : 1, sizeof *a.offs);
    a.group = lr_gci_strdup(gc, r->group_id ? r->group_id : "");
    if (!a.errors || !a.offs || !a.group) {
        lr_free(&gc->alloc, a.errors, (r->n_parts ? r->n_parts : 1) * sizeof *a.errors);
        lr_free(&gc->alloc, a.offs, (r->n_parts ? r->n_parts : 1) * sizeof *a.offs);
        lr_gci_strfree(gc, a.group);
        return LOGREP_ERR__NOMEM;
    }
    a.n_errors = r->n_parts;
    gc_group *g;
    int err = lr_gci_route(gc, r->group_id, 1, &g);
    if (!err && !g) {
        if (r->generation >= 0)
            err = r->version >= 9 ? LOGREP_ERR_GROUP_ID_NOT_FOUND : LOGREP_ERR_ILLEGAL_GENERATION;
        else if (!(g = lr_gci_create(gc, r->group_id, lr_gc_partition_for(gc, r->group_id))))
            err = LOGREP_ERR__NOMEM; /* a simple group, in memory */
    } else if (!err) {
        err = validate_commit(g, r);
    }
    for (size_t i = 0; i < r->n_parts && !err; i++) {
        const lr_gc_commit_part *p = &r->parts[i];
        if (strnlen(p->topic, MAX_TOPIC + 1) > MAX_TOPIC || !p->topic[0] || p->partition < 0) {
            a.errors[i] = LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            continue;
        }
        if (p->metadata && (int64_t)strnlen(p->metadata, (size_t)gc->md_max + 1) > gc->md_max) {
            a.errors[i] = LOGREP_ERR_OFFSET_METADATA_TOO_LARGE;
            continue;
        }
        gc_offset o = {.topic = (char *)p->topic,
                       .partition = p->partition,
                       .leader_epoch = p->leader_epoch,
                       .offset = p->offset,
                       .commit_ts = now_ms,
                       .expire_ts = r->retention_ms >= 0 ? now_ms + r->retention_ms : -1,
                       .metadata = (char *)(p->metadata ? p->metadata : "")};
        gc_offset *c = &a.offs[a.n_offs];
        *c = o;
        c->topic = lr_gci_strdup(gc, o.topic);
        c->metadata = lr_gci_strdup(gc, o.metadata);
        a.n_offs++;
        if (!c->topic || !c->metadata || lr_gci_batch_offset(gc, r->group_id, c, 0))
            err = LOGREP_ERR__NOMEM;
    }
    if (err == LOGREP_ERR__NOMEM) {
        lr_gci_batch_clear(gc);
        lr_gci_append_free(gc, &a);
        return err;
    }
    if (!err && a.n_offs) {
        int32_t p = g->p;
        err = lr_gci_emit(gc, p, &a);
        if (!err)
            return 0; /* answered when committed */
        err = err == LOGREP_ERR__NOMEM ? LOGREP_ERR_COORDINATOR_NOT_AVAILABLE : err;
        if (err < 0)
            err = LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    for (size_t i = 0; i < r->n_parts; i++)
        if (err || !a.errors[i])
            a.errors[i] = (int16_t)(err ? err : a.errors[i]);
    answer_parts(gc, LR_GC_COMMIT, cookie, 0, a.errors, r->n_parts);
    lr_gci_append_free(gc, &a);
    return 0;
}

/* ------------------------------------------------------------------------
 * OffsetFetch
 * ---------------------------------------------------------------------- */

static void fetch_one(const lr_gc *gc, const gc_group *g, const char *id, const char *topic,
                      int32_t partition, int require_stable, lr_gc_offset_fn fn, void *ctx)
{
    lr_gc_offset o = {topic, partition, -1, -1, "", -1, 0};
    if (require_stable && in_flight(gc, id, topic, partition)) {
        o.error = LOGREP_ERR_UNSTABLE_OFFSET_COMMIT;
    } else if (g) {
        const gc_offset *e = offset_find(gc, g, topic, partition);
        if (e) {
            o.offset = e->offset;
            o.leader_epoch = e->leader_epoch;
            o.metadata = e->metadata ? e->metadata : "";
            o.commit_ts = e->commit_ts;
        }
    }
    fn(ctx, &o);
}

int lr_gc_fetch(lr_gc *gc, const char *group_id, const lr_gc_tp *parts, size_t n,
                int require_stable, lr_gc_offset_fn fn, void *ctx)
{
    if (!gc || !fn || (n && !parts))
        return LOGREP_ERR__INVALID_ARG;
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 1, &g);
    if (err)
        return err;
    if (parts) {
        for (size_t i = 0; i < n; i++)
            if (parts[i].topic)
                fetch_one(gc, g, group_id, parts[i].topic, parts[i].partition, require_stable, fn,
                          ctx);
        return 0;
    }
    for (size_t i = 0; g && i < g->n_off; i++)
        fetch_one(gc, g, group_id, g->off[i].topic, g->off[i].partition, require_stable, fn, ctx);
    return 0;
}

/* ------------------------------------------------------------------------
 * OffsetDelete and DeleteGroups
 * ---------------------------------------------------------------------- */

static int consumer_subscribes(const gc_group *g, const char *topic)
{
    if (!g->protocol_type || strcmp(g->protocol_type, "consumer") != 0 || !g->protocol)
        return 0;
    for (size_t i = 0; i < g->n; i++) {
        const gc_proto *pr = lr_gci_proto(g->m[i], g->protocol);
        if (pr && lr_gci_subscribes(pr->md, pr->len, topic))
            return 1;
    }
    return 0;
}

int lr_gc_offset_delete(lr_gc *gc, const char *group_id, const lr_gc_tp *parts, size_t n,
                        uint64_t cookie, int64_t now_ms)
{
    (void)now_ms;
    if (!gc || (n && !parts))
        return LOGREP_ERR__INVALID_ARG;
    gc_append a = {.kind = AP_OFFSET_DELETE, .cookie = cookie, .n_errors = n};
    a.errors = lr_calloc(&gc->alloc, n ? n : 1, sizeof *a.errors);
    if (!a.errors)
        return LOGREP_ERR__NOMEM;
    a.n_errors = n;
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 1, &g);
    if (!err && !g)
        err = LOGREP_ERR_GROUP_ID_NOT_FOUND;
    else if (!err && g->state != LR_GC_EMPTY &&
             (!g->protocol_type || strcmp(g->protocol_type, "consumer") != 0))
        err = LOGREP_ERR_NON_EMPTY_GROUP;
    size_t k = 0;
    for (size_t i = 0; i < n && !err; i++) {
        if (!parts[i].topic) {
            a.errors[i] = LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        } else if (consumer_subscribes(g, parts[i].topic)) {
            a.errors[i] = LOGREP_ERR_GROUP_SUBSCRIBED_TO_TOPIC;
        } else {
            const gc_offset *o = offset_find(gc, g, parts[i].topic, parts[i].partition);
            if (o && lr_gci_batch_offset(gc, group_id, o, 1)) {
                lr_gci_batch_clear(gc);
                lr_free(&gc->alloc, a.errors, (n ? n : 1) * sizeof *a.errors);
                return LOGREP_ERR__NOMEM;
            }
            k += o != NULL;
        }
    }
    if (!err && k) {
        if (!(a.group = lr_gci_strdup(gc, group_id))) {
            lr_gci_batch_clear(gc);
            lr_free(&gc->alloc, a.errors, (n ? n : 1) * sizeof *a.errors);
            return LOGREP_ERR__NOMEM;
        }
        int e = lr_gci_emit(gc, g->p, &a);
        if (!e) {
            for (size_t i = 0; i < n; i++)
                if (!a.errors[i])
                    lr_gci_offset_del(gc, g, parts[i].topic, parts[i].partition);
            return 0; /* answered when committed */
        }
        for (size_t i = 0; i < n; i++)
            if (!a.errors[i])
                a.errors[i] = e < 0 ? LOGREP_ERR_COORDINATOR_NOT_AVAILABLE : (int16_t)e;
    }
    answer_parts(gc, LR_GC_OFFSET_DELETE, cookie, err, a.errors, err ? 0 : n);
    lr_gci_append_free(gc, &a);
    return 0;
}

/* Retention of one offset of an empty group. */
static int offset_expired(const lr_gc *gc, const gc_group *g, const gc_offset *o, int64_t now_ms)
{
    int consumer = g->protocol_type && g->protocol_type[0] && g->state_ts >= 0;
    int64_t base = consumer ? g->state_ts : o->commit_ts;
    int expired = o->expire_ts >= 0 ? now_ms >= o->expire_ts : now_ms - base >= gc->retention_ms;
    return expired && !in_flight(gc, g->id, o->topic, o->partition);
}

/* Tombstones for g's offsets (all, or only the expired ones at now_ms);
 * the group's own when it is left empty and unused. Returns 1 when the
 * group tombstone was added. */
static int batch_tombstones(lr_gc *gc, gc_group *g, int64_t now_ms, int all, size_t *n_out)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_off; i++) {
        const gc_offset *o = &g->off[i];
        if (!all && !offset_expired(gc, g, o, now_ms))
            continue;
        if (lr_gci_batch_offset(gc, g->id, o, 1))
            return LOGREP_ERR__NOMEM;
        n++;
    }
    *n_out = n;
    if (all || n == g->n_off) {
        if (lr_gci_batch_group(gc, g, 1, now_ms))
            return LOGREP_ERR__NOMEM;
        return 1;
    }
    return 0;
}

int lr_gc_delete_group(lr_gc *gc, const char *group_id, uint64_t cookie, int64_t now_ms)
{
    if (!gc)
        return LOGREP_ERR__INVALID_ARG;
    gc_group *g;
    int err = lr_gci_route(gc, group_id, 1, &g);
    if (!err && !g)
        err = LOGREP_ERR_GROUP_ID_NOT_FOUND;
    else if (!err && (g->state != LR_GC_EMPTY || g->n_pend))
        err = LOGREP_ERR_NON_EMPTY_GROUP;
    if (!err) {
        size_t n;
        gc_append a = {.kind = AP_DELETE_GROUP, .cookie = cookie};
        if (batch_tombstones(gc, g, now_ms, 1, &n) < 0) {
            lr_gci_batch_clear(gc);
            return LOGREP_ERR__NOMEM;
        }
        int32_t p = g->p;
        if (!(err = lr_gci_emit(gc, p, &a))) {
            lr_gci_destroy(gc, g);
            return 0; /* answered when committed */
        }
        if (err < 0)
            err = LOGREP_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    lr_gc_answer ans = {.cookie = cookie, .kind = LR_GC_DELETE_GROUP, .error = err, .generation = -1};
    lr_gci_answer(gc, &ans);
    return 0;
}

/* Retention: offsets of empty groups expire (Kafka: since the group became
 * empty for consumer groups, since the commit for simple ones); a group
 * left without offsets is deleted. */
int lr_gci_expire(lr_gc *gc, int64_t now_ms)
{
    for (size_t i = gc->n_all; i-- > 0;) {
        if (i >= gc->n_all)
            continue;
        gc_group *g = gc->all[i];
        if (gc->pstate[g->p] != PS_LOADED || g->state != LR_GC_EMPTY || g->n || g->n_pend)
            continue;
        size_t n;
        int whole = batch_tombstones(gc, g, now_ms, 0, &n);
        if (whole < 0) {
            lr_gci_batch_clear(gc);
            return LOGREP_ERR__NOMEM;
        }
        if (!n && !whole)
            continue;
        gc_append a = {.kind = AP_PLAIN};
        if (lr_gci_emit(gc, g->p, &a))
            continue; /* tried again at the next check */
        if (whole) {
            lr_gci_destroy(gc, g);
            continue;
        }
        for (size_t j = g->n_off; j-- > 0;)
            if (offset_expired(gc, g, &g->off[j], now_ms))
                lr_gci_offset_del(gc, g, g->off[j].topic, g->off[j].partition);
    }
    return 0;
}
