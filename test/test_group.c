/* The group coordinator: membership flows, offsets, loading. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "group_testutil.h"

static const char *const NODELAY[] = {"group.initial.rebalance.delay.ms=0", NULL};

/* Consumer protocol subscription v0 to one topic. */
static const uint8_t SUB_T[] = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0};

static uint64_t g_cookie = 1;

static uint64_t join(gt *t, const char *group, const char *member, const char *instance,
                     const char *proto)
{
    const char *other = strcmp(proto, "roundrobin") ? "roundrobin" : "range";
    lr_gc_protocol ps[2] = {{proto, SUB_T, sizeof SUB_T}, {other, SUB_T, sizeof SUB_T}};
    lr_gc_join_req r = {.version = 5, .group_id = group, .member_id = member,
                        .instance_id = instance, .client_id = "c", .client_host = "/h",
                        .session_timeout_ms = 10000, .rebalance_timeout_ms = 20000,
                        .protocol_type = "consumer", .protocols = ps, .n_protocols = 2};
    uint64_t c = g_cookie++;
    cr_assert_eq(lr_gc_join(t->gc, &r, c, t->now), 0);
    return c;
}

/* Joins a new dynamic member through the MEMBER_ID_REQUIRED round trip;
 * returns the cookie of the parked second join, id filled. */
static uint64_t join_new(gt *t, const char *group, char *id)
{
    uint64_t c = join(t, group, "", NULL, "range");
    const gt_ans *a = gt_find(t, c);
    cr_assert(a && a->error == LOGREP_ERR_MEMBER_ID_REQUIRED);
    cr_assert(strncmp(a->member_id, "c-", 2) == 0);
    strcpy(id, a->member_id);
    return join(t, group, id, NULL, "range");
}

static uint64_t sync_(gt *t, const char *group, const char *member, int32_t gen,
                      const lr_gc_assignment *as, size_t n)
{
    lr_gc_sync_req r = {.group_id = group, .member_id = member, .generation = gen,
                        .assignments = as, .n_assignments = n};
    uint64_t c = g_cookie++;
    cr_assert_eq(lr_gc_sync(t->gc, &r, c, t->now), 0);
    return c;
}

/* One member group "g" formed and stable; its id in id. */
static int32_t form1(gt *t, char *id)
{
    uint64_t c = join_new(t, "g", id);
    cr_assert_null(gt_find(t, c), "parked during the initial delay");
    gt_advance(t, 3000, 100);
    const gt_ans *a = gt_find(t, c);
    cr_assert(a && a->error == 0);
    cr_assert_eq(a->generation, 1);
    cr_assert_str_eq(a->leader, id);
    cr_assert_str_eq(a->protocol, "range");
    cr_assert_eq(a->n_members, 1);
    lr_gc_assignment as = {id, (const uint8_t *)"A", 1};
    uint64_t s = sync_(t, "g", id, 1, &as, 1);
    cr_assert_null(gt_find(t, s), "answered only once the record is committed");
    cr_assert_eq(t->n_app, 1);
    gt_commit_all(t, 0);
    a = gt_find(t, s);
    cr_assert(a && a->error == 0 && a->assignment_len == 1 && a->assignment[0] == 'A');
    return 1;
}

Test(group, one_member_join_sync_heartbeat_leave)
{
    gt t;
    gt_start(&t, NULL);
    char id[160];
    form1(&t, id);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 1, t.now), 0);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 0, t.now), LOGREP_ERR_ILLEGAL_GENERATION);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", "nobody", NULL, 1, t.now), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "", id, NULL, 1, t.now), LOGREP_ERR_INVALID_GROUP_ID);
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_assert_eq(lr_gc_heartbeat(t.gc, big, id, NULL, 1, t.now), LOGREP_ERR_INVALID_GROUP_ID);
    lr_gc_leave_member lm[2] = {{id, NULL}, {"ghost", NULL}};
    int16_t errs[2];
    cr_assert_eq(lr_gc_leave(t.gc, "g", lm, 2, errs, t.now), 0);
    cr_assert_eq(errs[0], 0);
    cr_assert_eq(errs[1], LOGREP_ERR_UNKNOWN_MEMBER_ID);
    /* Empty now, generation 2, its metadata record written. */
    cr_assert_eq(t.n_app, 1);
    gt_stop(&t);
}

/* Group "g" stable with a, then b joins (parked: its cookie returned). */
static uint64_t stable_then_second(gt *t, const char *const *conf, char *a_id, char *b_id)
{
    gt_start(t, conf);
    form1(t, a_id);
    uint64_t cb = join_new(t, "g", b_id);
    cr_assert_null(gt_find(t, cb));
    return cb;
}

Test(group, second_member_rebalances_and_protocol_selection)
{
    gt t;
    char a_id[160], b_id[160];
    /* b joins: the group prepares a rebalance; a learns it by heartbeat. */
    uint64_t cb = stable_then_second(&t, NULL, a_id, b_id);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", a_id, NULL, 1, t.now), LOGREP_ERR_REBALANCE_IN_PROGRESS);
    /* a rejoins supporting only roundrobin first: votes differ. */
    uint64_t ca = join(&t, "g", a_id, NULL, "roundrobin");
    const gt_ans *ja = gt_find(&t, ca), *jb = gt_find(&t, cb);
    cr_assert(ja && jb && ja->error == 0 && jb->error == 0);
    cr_assert_eq(ja->generation, 2);
    /* Both support range and roundrobin; one vote each: the tie is Java
     * HashMap order, "range" (hash 108280125, bucket 9 of 16) before "roundrobin" (bucket 10). */
    cr_assert_str_eq(ja->protocol, "range");
    cr_assert_eq(ja->n_members, 2, "the leader gets the members");
    cr_assert_eq(jb->n_members, 0);
    /* Follower syncs first and waits; the leader's sync is committed. */
    uint64_t sb = sync_(&t, "g", b_id, 2, NULL, 0);
    lr_gc_assignment as[2] = {{a_id, (const uint8_t *)"A", 1}, {b_id, (const uint8_t *)"B", 1}};
    uint64_t sa = sync_(&t, "g", a_id, 2, as, 2);
    cr_assert_null(gt_find(&t, sb));
    gt_commit_all(&t, 0);
    cr_assert_eq(gt_find(&t, sb)->assignment[0], 'B');
    cr_assert_eq(gt_find(&t, sa)->assignment[0], 'A');
    /* Stale generation sync. */
    uint64_t st = sync_(&t, "g", b_id, 1, NULL, 0);
    cr_assert_eq(gt_find(&t, st)->error, LOGREP_ERR_ILLEGAL_GENERATION);
    /* An unknown protocol type. */
    lr_gc_protocol p = {"x", NULL, 0};
    lr_gc_join_req r = {.version = 5, .group_id = "g", .member_id = "", .client_id = "c",
                        .session_timeout_ms = 10000, .rebalance_timeout_ms = 10000,
                        .protocol_type = "connect", .protocols = &p, .n_protocols = 1};
    cr_assert_eq(lr_gc_join(t.gc, &r, 999, t.now), 0);
    cr_assert_eq(gt_find(&t, 999)->error, LOGREP_ERR_INCONSISTENT_GROUP_PROTOCOL);
    r.protocol_type = "consumer";
    r.session_timeout_ms = 10;
    cr_assert_eq(lr_gc_join(t.gc, &r, 998, t.now), 0);
    cr_assert_eq(gt_find(&t, 998)->error, LOGREP_ERR_INVALID_SESSION_TIMEOUT);
    gt_stop(&t);
}

Test(group, session_expiry_and_rebalance_timeout_remove_laggards)
{
    gt t;
    char a_id[160], b_id[160];
    uint64_t cb = stable_then_second(&t, NODELAY, a_id, b_id);
    /* a never rejoins: removed when the rebalance timeout (20 s) passes. */
    gt_advance(&t, 9000, 1000);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", a_id, NULL, 1, t.now), LOGREP_ERR_REBALANCE_IN_PROGRESS);
    gt_advance(&t, 12000, 1000);
    const gt_ans *jb = gt_find(&t, cb);
    cr_assert(jb && jb->error == 0 && jb->generation == 2 && jb->n_members == 1);
    cr_assert_str_eq(jb->leader, b_id);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", a_id, NULL, 2, t.now), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    lr_gc_assignment as = {b_id, (const uint8_t *)"B", 1};
    sync_(&t, "g", b_id, 2, &as, 1);
    gt_commit_all(&t, 0);
    /* b stops heartbeating: the session (10 s) expires, the group empties. */
    gt_advance(&t, 11000, 1000);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", b_id, NULL, 2, t.now), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    gt_stop(&t);
}

Test(group, static_member_replacement_and_fencing)
{
    gt t;
    gt_start(&t, NODELAY);
    uint64_t c = join(&t, "g", "", "inst-1", "range"); /* static: no MEMBER_ID_REQUIRED */
    gt_advance(&t, 100, 100);
    const gt_ans *a = gt_find(&t, c);
    cr_assert(a && a->error == 0);
    char old[160];
    strcpy(old, a->member_id);
    lr_gc_assignment as = {old, (const uint8_t *)"S", 1};
    sync_(&t, "g", old, 1, &as, 1);
    gt_commit_all(&t, 0);
    /* The same instance restarts: new member id, no rebalance, answered
     * once the updated metadata is committed. */
    uint64_t c2 = join(&t, "g", "", "inst-1", "range");
    cr_assert_null(gt_find(&t, c2));
    gt_commit_all(&t, 0);
    a = gt_find(&t, c2);
    cr_assert(a && a->error == 0 && a->generation == 1);
    cr_assert_str_neq(a->member_id, old);
    char nid[160];
    strcpy(nid, a->member_id);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", old, "inst-1", 1, t.now), LOGREP_ERR_FENCED_INSTANCE_ID);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", nid, "inst-1", 1, t.now), 0);
    uint64_t s = sync_(&t, "g", nid, 1, NULL, 0);
    cr_assert_eq(gt_find(&t, s)->assignment[0], 'S', "the assignment follows the instance");
    lr_gc_leave_member lm = {old, "inst-1"};
    int16_t e;
    cr_assert_eq(lr_gc_leave(t.gc, "g", &lm, 1, &e, t.now), 0);
    cr_assert_eq(e, LOGREP_ERR_FENCED_INSTANCE_ID);
    gt_stop(&t);
}

Test(group, initial_delay_extends_and_max_size)
{
    static const char *const C[] = {"group.max.size=2", NULL};
    gt t;
    gt_start(&t, C);
    char a[160], b[160], x[160];
    uint64_t ca = join_new(&t, "g", a);
    gt_advance(&t, 2000, 100);
    uint64_t cb = join_new(&t, "g", b);
    /* A third is refused: two members already await the join. */
    uint64_t cx = join(&t, "g", "", NULL, "range");
    strcpy(x, gt_find(&t, cx)->member_id);
    uint64_t cx2 = join(&t, "g", x, NULL, "range");
    cr_assert_eq(gt_find(&t, cx2)->error, LOGREP_ERR_GROUP_MAX_SIZE_REACHED);
    /* 3 s after the first: a new member came, the delay is extended. */
    gt_advance(&t, 1000, 100);
    cr_assert_null(gt_find(&t, ca));
    gt_advance(&t, 3000, 100);
    cr_assert_eq(gt_find(&t, ca)->generation, 1);
    cr_assert_eq(gt_find(&t, cb)->generation, 1);
    gt_stop(&t);
}

/* --- offsets ------------------------------------------------------------ */

static uint64_t commit(gt *t, const char *group, const char *member, int32_t gen, const char *topic,
                       int32_t part, int64_t off, const char *md)
{
    lr_gc_commit_part p = {topic, part, off, 3, md};
    lr_gc_commit_req r = {.version = 8, .group_id = group, .member_id = member, .generation = gen,
                          .retention_ms = -1, .parts = &p, .n_parts = 1};
    uint64_t c = g_cookie++;
    cr_assert_eq(lr_gc_commit(t->gc, &r, c, t->now), 0);
    return c;
}

typedef struct fetched {
    int64_t off;
    int err;
    int n;
} fetched;

static void on_off(void *ctx, const lr_gc_offset *o)
{
    fetched *f = ctx;
    f->off = o->offset;
    f->err = o->error;
    f->n++;
}

static fetched fetch1(gt *t, const char *group, const char *topic, int32_t p, int stable)
{
    fetched f = {-2, -2, 0};
    lr_gc_tp tp = {topic, p};
    cr_assert_eq(lr_gc_fetch(t->gc, group, &tp, 1, stable, on_off, &f), 0);
    return f;
}

Test(group, commit_answered_after_commit_and_failures_surface)
{
    gt t;
    gt_start(&t, NULL);
    uint64_t c = commit(&t, "simple", "", -1, "t", 0, 42, "m");
    cr_assert_null(gt_find(&t, c));
    cr_assert_eq(fetch1(&t, "simple", "t", 0, 0).off, -1, "not visible before committed");
    cr_assert_eq(fetch1(&t, "simple", "t", 0, 1).err, LOGREP_ERR_UNSTABLE_OFFSET_COMMIT);
    gt_commit_all(&t, 0);
    const gt_ans *a = gt_find(&t, c);
    cr_assert(a && a->n_parts == 1 && a->part_errors[0] == 0);
    cr_assert_eq(fetch1(&t, "simple", "t", 0, 1).off, 42);
    /* A failed append fails the commit; the old offset stays. */
    c = commit(&t, "simple", "", -1, "t", 0, 50, "m");
    gt_commit_all(&t, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_NOT_COORDINATOR);
    cr_assert_eq(fetch1(&t, "simple", "t", 0, 0).off, 42);
    /* The sink refusing at once: mapped as Kafka maps a failed append. */
    t.sink_fail = LOGREP_ERR_NOT_ENOUGH_REPLICAS;
    c = commit(&t, "simple", "", -1, "t", 0, 60, "m");
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_COORDINATOR_NOT_AVAILABLE);
    t.sink_fail = 0;
    /* Metadata too large. */
    char md[5000];
    memset(md, 'm', sizeof md - 1);
    md[sizeof md - 1] = '\0';
    c = commit(&t, "simple", "", -1, "t", 0, 70, md);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_OFFSET_METADATA_TOO_LARGE);
    /* Unknown group with a generation: ILLEGAL_GENERATION before v9. */
    c = commit(&t, "nogroup", "m", 3, "t", 0, 1, NULL);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_ILLEGAL_GENERATION);
    /* Members of a live group: generation checked, simple commits refused. */
    char id[160];
    form1(&t, id);
    c = commit(&t, "g", id, 0, "t", 0, 1, NULL);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_ILLEGAL_GENERATION);
    c = commit(&t, "g", "", -1, "t", 0, 1, NULL);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_UNKNOWN_MEMBER_ID);
    c = commit(&t, "g", id, 1, "t", 0, 7, NULL);
    gt_commit_all(&t, 0);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], 0);
    /* OffsetDelete of a subscribed topic is refused; of another, done. */
    commit(&t, "g", id, 1, "u", 0, 9, NULL);
    gt_commit_all(&t, 0);
    lr_gc_tp tps[2] = {{"t", 0}, {"u", 0}};
    cr_assert_eq(lr_gc_offset_delete(t.gc, "g", tps, 2, 777, t.now), 0);
    gt_commit_all(&t, 0);
    a = gt_find(&t, 777);
    cr_assert(a && a->part_errors[0] == LOGREP_ERR_GROUP_SUBSCRIBED_TO_TOPIC && a->part_errors[1] == 0);
    cr_assert_eq(fetch1(&t, "g", "u", 0, 0).off, -1);
    /* DeleteGroups: refused while members are there. */
    cr_assert_eq(lr_gc_delete_group(t.gc, "g", 778, t.now), 0);
    cr_assert_eq(gt_find(&t, 778)->error, LOGREP_ERR_NON_EMPTY_GROUP);
    cr_assert_eq(lr_gc_delete_group(t.gc, "nope", 779, t.now), 0);
    cr_assert_eq(gt_find(&t, 779)->error, LOGREP_ERR_GROUP_ID_NOT_FOUND);
    cr_assert_eq(lr_gc_delete_group(t.gc, "simple", 780, t.now), 0);
    cr_assert_null(gt_find(&t, 780));
    gt_commit_all(&t, 0);
    cr_assert_eq(gt_find(&t, 780)->error, 0);
    cr_assert_eq(fetch1(&t, "simple", "t", 0, 0).off, -1);
    gt_stop(&t);
}

Test(group, offsets_expire_when_the_group_stays_empty)
{
    static const char *const C[] = {"offsets.retention.minutes=1",
                                    "offsets.retention.check.interval.ms=1000", NULL};
    gt t;
    gt_start(&t, C);
    commit(&t, "s", "", -1, "t", 0, 5, NULL);
    gt_commit_all(&t, 0);
    gt_advance(&t, 30000, 1000);
    cr_assert_eq(fetch1(&t, "s", "t", 0, 0).off, 5);
    gt_advance(&t, 31000, 1000);
    gt_commit_all(&t, 0);
    cr_assert_eq(fetch1(&t, "s", "t", 0, 0).off, -1);
    gt_stop(&t);
}

/* --- loading ------------------------------------------------------------ */

typedef struct snap {
    char text[8192];
    size_t len;
} snap;

static void snap_group(void *ctx, const lr_gc_group_info *g)
{
    snap *s = ctx;
    s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "%s %s %s %d %s %s|",
                               g->group_id, lr_gc_state_name(g->state), g->protocol_type,
                               g->generation, g->protocol, g->leader);
    for (size_t i = 0; i < g->n_members; i++)
        s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "%s:%zu:%zu,",
                                   g->members[i].member_id, g->members[i].metadata_len,
                                   g->members[i].assignment_len);
}

static void snap_off(void *ctx, const lr_gc_offset *o)
{
    snap *s = ctx;
    s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "[%s/%d=%lld e%d %s]",
                               o->topic, o->partition, (long long)o->offset, o->leader_epoch,
                               o->metadata);
}

static void snapshot(lr_gc *gc, const char *group, snap *s)
{
    s->len = 0;
    s->text[0] = '\0';
    cr_assert_eq(lr_gc_describe(gc, group, snap_group, s), 0);
    cr_assert_eq(lr_gc_fetch(gc, group, NULL, 0, 0, snap_off, s), 0);
}

Test(group, unload_and_replay_rebuild_the_group)
{
    gt t;
    gt_start(&t, NULL);
    char id[160];
    form1(&t, id);
    uint64_t c = commit(&t, "g", id, 1, "t", 0, 11, "x");
    commit(&t, "g", id, 1, "t", 1, 12, NULL);
    gt_commit_all(&t, 0);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], 0);
    snap before, after;
    snapshot(t.gc, "g", &before);
    int32_t p = lr_gc_partition_for(t.gc, "g");
    /* A commit in flight when the partition moves is never acknowledged. */
    c = commit(&t, "g", id, 1, "t", 0, 99, NULL);
    lr_gc_unload(t.gc, p);
    cr_assert_eq(gt_find(&t, c)->part_errors[0], LOGREP_ERR_NOT_COORDINATOR);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 1, t.now), LOGREP_ERR_NOT_COORDINATOR);
    for (size_t i = 0; i < t.n_app; i++) /* late completions are ignored */
        lr_gc_append_done(t.gc, t.app[i].p, t.app[i].id, 0, t.now);
    t.n_app = 0;
    cr_assert_eq(lr_gc_load_begin(t.gc, p), 0);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 1, t.now),
                 LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
    for (size_t i = 0; i < t.n_log; i++) /* the 99 was never committed */
        if (t.log[i].p == p && t.log[i].committed == 1)
            cr_assert_eq(lr_gc_replay(t.gc, p, t.log[i].key, t.log[i].key_len,
                                      t.log[i].tomb ? NULL : t.log[i].value, t.log[i].value_len),
                         0);
    cr_assert_eq(lr_gc_load_done(t.gc, p, t.now), 0);
    snapshot(t.gc, "g", &after);
    cr_assert_str_eq(after.text, before.text, "%s\n%s", after.text, before.text);
    /* The rebuilt member heartbeats with its generation; its session runs. */
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 1, t.now), 0);
    gt_advance(&t, 11000, 1000);
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", id, NULL, 1, t.now), LOGREP_ERR_UNKNOWN_MEMBER_ID);
    gt_stop(&t);
}

/* The leader's gen-1 assignment is still being written when a new member
 * starts gen 2: the leader's gen-2 assignment is written all the same
 * (it once waited for the stale append and the group never settled), and
 * the late gen-1 completion changes nothing. */
Test(group, stale_sync_append_does_not_hold_up_the_next_generation)
{
    gt t;
    gt_start(&t, NODELAY);
    char a_id[160], b_id[160];
    uint64_t ja = join_new(&t, "g", a_id);
    gt_advance(&t, 100, 10);
    const gt_ans *x = gt_find(&t, ja);
    cr_assert(x && x->error == 0 && x->generation == 1);
    lr_gc_assignment as1 = {a_id, (const uint8_t *)"1", 1};
    uint64_t s1 = sync_(&t, "g", a_id, 1, &as1, 1);
    cr_assert_eq(t.n_app, 1, "gen-1 assignment in flight");
    uint64_t jb = join_new(&t, "g", b_id);
    x = gt_find(&t, s1);
    cr_assert(x && x->error == LOGREP_ERR_REBALANCE_IN_PROGRESS);
    ja = join(&t, "g", a_id, NULL, "range");
    gt_advance(&t, 100, 10);
    x = gt_find(&t, ja);
    cr_assert(x && x->error == 0 && x->generation == 2);
    cr_assert(gt_find(&t, jb) && gt_find(&t, jb)->generation == 2);
    uint64_t sb = sync_(&t, "g", b_id, 2, NULL, 0);
    lr_gc_assignment as2[2] = {{a_id, (const uint8_t *)"2", 1}, {b_id, (const uint8_t *)"B", 1}};
    uint64_t sa = sync_(&t, "g", a_id, 2, as2, 2);
    cr_assert_eq(t.n_app, 2, "the gen-2 assignment is written at once");
    gt_commit_all(&t, 0);
    x = gt_find(&t, sb);
    cr_assert(x && x->error == 0 && x->assignment_len == 1 && x->assignment[0] == 'B');
    x = gt_find(&t, sa);
    cr_assert(x && x->error == 0 && x->assignment[0] == '2');
    cr_assert_eq(lr_gc_heartbeat(t.gc, "g", b_id, NULL, 2, t.now), 0);
    gt_stop(&t);
}

/* A member commits, then its session expires and the empty group, with
 * no offsets yet, is deleted while the commit is in flight. The commit's
 * records follow the tombstone in the log: once acknowledged, its offset
 * is served (as a replay of the log would have it), never lost. */
Test(group, commit_in_flight_survives_its_group_being_deleted)
{
    static const char *const conf[] = {"offsets.retention.check.interval.ms=100", NULL};
    gt t;
    gt_start(&t, conf);
    char id[160];
    form1(&t, id);
    uint64_t c = commit(&t, "g", id, 1, "t", 0, 62, "m");
    cr_assert_null(gt_find(&t, c));
    size_t before = t.n_app;
    gt_advance(&t, 15000, 100); /* the session (10 s) ends; the empty group goes */
    cr_assert_gt(t.n_app, before, "the group's tombstone was written");
    gt_commit_all(&t, 0);
    const gt_ans *a = gt_find(&t, c);
    cr_assert(a && a->n_parts == 1 && a->part_errors[0] == 0);
    cr_assert_eq(fetch1(&t, "g", "t", 0, 0).off, 62);
    /* And a replay of what was written agrees. */
    lr_gc *c2 = lr_gc_new(t.conf, NULL, NULL, NULL, NULL);
    cr_assert_eq(gt_replay(&t, c2, lr_gc_partition_for(c2, "g"), t.now), 0);
    fetched f = {-2, -2, 0};
    lr_gc_tp tp = {"t", 0};
    cr_assert_eq(lr_gc_fetch(c2, "g", &tp, 1, 0, on_off, &f), 0);
    cr_assert_eq(f.off, 62);
    lr_gc_free(c2);
    gt_stop(&t);
}
