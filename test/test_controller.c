/* Controller: registration, fencing, topics, placement, AlterPartition,
 * elections, ELR, producer ids. Every test ends by replaying the record
 * stream into a fresh image and comparing (tc_check). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/ctl_testutil.h"
#include "lib/testutil.h"

static const char *const MIN2[] = {"min.insync.replicas=2", NULL};
static const char *const MIN2_UNCLEAN[] = {"min.insync.replicas=2",
                                           "unclean.leader.election.enable=true", NULL};
static const char *const MIN2_NOELR[] = {"min.insync.replicas=2",
                                         "eligible.leader.replicas.enable=false", NULL};

#define ASSERT_IDS(v, n, want) cr_assert_str_eq(tc_ids((v), (n)), (want))

static void join3(tc_cluster *c)
{
    cr_assert_eq(tc_join(c, 1, "r1", -1), 0);
    cr_assert_eq(tc_join(c, 2, "r2", -1), 0);
    cr_assert_eq(tc_join(c, 3, "r3", -1), 0);
}

/* Creates topic "t" with one partition on replicas 1,2,3 in that order
 * (the placement start is seeded; retry names until replicas[0] == 1 is
 * not needed: we only rely on the set). Returns the replica order. */
static const lr_md_partition *topic3(tc_cluster *c)
{
    cr_assert_eq(tc_topic(c, "t", 1, 3, NULL), 0);
    const lr_md_partition *p = tc_part(c, "t", 0);
    cr_assert_eq(p->n_replicas, 3);
    cr_assert_eq(p->n_isr, 3);
    cr_assert_eq(p->leader, p->replicas[0]);
    cr_assert_eq(p->leader_epoch, 0);
    return p;
}

/* Fences broker id by letting its session expire while the others beat. */
static void expire(tc_cluster *c, int32_t id)
{
    const lr_md_image *img = lr_ctl_image(c->ctl);
    for (int step = 0; step < 6; step++) {
        c->now += 2000;
        for (size_t i = 0; i < lr_md_broker_count(img); i++) {
            const lr_md_broker *b = lr_md_broker_at(img, i);
            if (b->id != id && !b->fenced)
                cr_assert_eq(tc_beat(c, b->id), 0);
        }
        cr_assert_eq(lr_ctl_tick(c->ctl, c->now), 0);
    }
    cr_assert(lr_md_broker_get(img, id)->fenced, "broker %d fenced", (int)id);
}

Test(controller, registration_epochs_and_unfencing)
{
    tc_cluster c;
    tc_start(&c, NULL);
    lr_ctl_endpoint ep = {"PLAINTEXT", "h1", 9092, 0};
    lr_ctl_register_req req = {.broker_id = 1, .rack = "a", .endpoints = &ep, .n_endpoints = 1,
                               .previous_broker_epoch = -1};
    req.incarnation[0] = 1;
    lr_ctl_register_resp r1, r2;
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &req, c.now, &r1), 0);
    const lr_md_broker *b = lr_md_broker_get(lr_ctl_image(c.ctl), 1);
    cr_assert(b->fenced, "new registrations start fenced");
    cr_assert_eq(b->epoch, r1.broker_epoch);
    cr_assert_eq(b->register_offset, r1.broker_epoch, "broker epoch = offset of its record");
    /* heartbeat behind its own registration: stays fenced */
    lr_ctl_heartbeat_req hb = {1, r1.broker_epoch, r1.broker_epoch - 1, 0, 0};
    lr_ctl_heartbeat_resp hr;
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), 0);
    cr_assert(hr.is_fenced && !hr.is_caught_up);
    /* stale epoch, unknown broker */
    hb.broker_epoch = r1.broker_epoch + 1;
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), LOGREP_ERR_STALE_BROKER_EPOCH);
    hb.broker_id = 9;
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), LOGREP_ERR_BROKER_ID_NOT_REGISTERED);
    /* caught up: unfenced */
    hb = (lr_ctl_heartbeat_req){1, r1.broker_epoch, r1.broker_epoch, 0, 0};
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), 0);
    cr_assert(!hr.is_fenced && hr.is_caught_up);
    /* another incarnation while the session lives: duplicate */
    lr_ctl_register_req other = req;
    other.incarnation[0] = 2;
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &other, c.now + 100, &r2),
                 LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION);
    /* same incarnation again: amended, epoch kept, still unfenced */
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &req, c.now + 100, &r2), 0);
    cr_assert(r2.amended);
    cr_assert_eq(r2.broker_epoch, r1.broker_epoch);
    cr_assert(!lr_md_broker_get(lr_ctl_image(c.ctl), 1)->fenced);
    /* after the session expired another incarnation gets a newer epoch */
    c.now += 20000;
    cr_assert_eq(lr_ctl_tick(c.ctl, c.now), 0);
    cr_assert(lr_md_broker_get(lr_ctl_image(c.ctl), 1)->fenced);
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &other, c.now, &r2), 0);
    cr_assert_gt(r2.broker_epoch, r1.broker_epoch);
    cr_assert(!r2.clean, "no clean-shutdown epoch given");
    /* bad requests */
    lr_ctl_endpoint bad = {"", "h", 1, 0};
    lr_ctl_register_req breq = {.broker_id = 5, .endpoints = &bad, .n_endpoints = 1};
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &breq, c.now, &r2), LOGREP_ERR_INVALID_REGISTRATION);
    breq.broker_id = -3;
    breq.n_endpoints = 0;
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &breq, c.now, &r2), LOGREP_ERR_INVALID_REGISTRATION);
    cr_assert_eq(lr_ctl_register_broker(c.ctl, NULL, c.now, &r2), LOGREP_ERR__INVALID_ARG);
    tc_check(&c);
    tc_stop(&c);
}

Test(controller, create_topic_errors)
{
    tc_cluster c;
    tc_start(&c, NULL);
    join3(&c);
    cr_assert_eq(tc_topic(&c, "ok.topic_-1", 2, 3, NULL), 0);
    cr_assert_eq(tc_topic(&c, "ok.topic_-1", 2, 3, NULL), LOGREP_ERR_TOPIC_ALREADY_EXISTS);
    cr_assert_eq(tc_topic(&c, "ok_topic.-1", 2, 3, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                 "collides once '.' and '_' are equated");
    cr_assert_eq(tc_topic(&c, "bad name", 1, 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(tc_topic(&c, ".", 1, 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(tc_topic(&c, "..", 1, 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    cr_assert_eq(tc_topic(&c, "", 1, 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    char longname[300];
    memset(longname, 'x', sizeof longname);
    longname[250] = 0;
    cr_assert_eq(tc_topic(&c, longname, 1, 1, NULL), LOGREP_ERR_INVALID_TOPIC_EXCEPTION);
    longname[249] = 0;
    cr_assert_eq(tc_topic(&c, longname, 1, 1, NULL), 0, "249 characters are fine");
    cr_assert_eq(tc_topic(&c, "p0", 0, 1, NULL), LOGREP_ERR_INVALID_PARTITIONS);
    cr_assert_eq(tc_topic(&c, "p0", -5, 1, NULL), LOGREP_ERR_INVALID_PARTITIONS);
    cr_assert_eq(tc_topic(&c, "rf0", 1, 0, NULL), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
    cr_assert_eq(tc_topic(&c, "rf4", 1, 4, NULL), LOGREP_ERR_INVALID_REPLICATION_FACTOR,
                 "only three unfenced brokers");
    const char *const badcfg[] = {"min.insync.replicas=zero", NULL};
    cr_assert_eq(tc_topic(&c, "cfg", 1, 1, badcfg), LOGREP_ERR_INVALID_CONFIG);
    cr_assert_null(lr_md_topic_by_name(lr_ctl_image(c.ctl), "cfg"), "nothing written on error");
    /* defaults: num.partitions 1, default.replication.factor 1 */
    cr_assert_eq(tc_topic(&c, "dflt", -1, -1, NULL), 0);
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(c.ctl), "dflt");
    cr_assert_eq(t->n_parts, 1);
    cr_assert_eq(t->parts[0].n_replicas, 1);
    /* a fenced broker does not count */
    expire(&c, 3);
    cr_assert_eq(tc_topic(&c, "rf3", 1, 3, NULL), LOGREP_ERR_INVALID_REPLICATION_FACTOR);
    /* delete */
    cr_assert_eq(lr_ctl_delete_topic(c.ctl, "dflt"), 0);
    cr_assert_eq(lr_ctl_delete_topic(c.ctl, "dflt"), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(tc_topic(&c, "dflt", 1, 1, NULL), 0, "a deleted name can be reused");
    tc_check(&c);
    tc_stop(&c);
}

/* 3 racks x 2 brokers, RF 3: every partition has one replica per rack and
 * leaders spread over all brokers. */
Test(controller, rack_aware_placement)
{
    tc_cluster c;
    tc_start(&c, NULL);
    const char *racks[] = {"east", "east", "west", "west", "north", "north"};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(tc_join(&c, i + 1, racks[i], -1), 0);
    cr_assert_eq(tc_topic(&c, "spread", 60, 3, NULL), 0);
    const lr_md_image *img = lr_ctl_image(c.ctl);
    int leaders[7] = {0}, replicas[7] = {0};
    for (int p = 0; p < 60; p++) {
        const lr_md_partition *part = tc_part(&c, "spread", p);
        const char *seen[3];
        for (int k = 0; k < 3; k++) {
            seen[k] = lr_md_broker_get(img, part->replicas[k])->rack;
            for (int j = 0; j < k; j++)
                cr_assert_str_neq(seen[j], seen[k], "partition %d: two replicas in %s", p, seen[k]);
            replicas[part->replicas[k]]++;
        }
        leaders[part->leader]++;
    }
    for (int b = 1; b <= 6; b++) {
        cr_assert_eq(leaders[b], 10, "broker %d leads %d", b, leaders[b]);
        cr_assert_eq(replicas[b], 30, "broker %d holds %d", b, replicas[b]);
    }
    /* uneven racks (3 in one, 1 in another), RF 2: both racks used */
    tc_cluster d;
    tc_start(&d, NULL);
    cr_assert_eq(tc_join(&d, 1, "a", -1), 0);
    cr_assert_eq(tc_join(&d, 2, "a", -1), 0);
    cr_assert_eq(tc_join(&d, 3, "a", -1), 0);
    cr_assert_eq(tc_join(&d, 4, "b", -1), 0);
    cr_assert_eq(tc_topic(&d, "u", 12, 2, NULL), 0);
    for (int p = 0; p < 12; p++) {
        const lr_md_partition *part = tc_part(&d, "u", p);
        int has_b = part->replicas[0] == 4 || part->replicas[1] == 4;
        cr_assert(has_b, "partition %d: %s", p, tc_ids(part->replicas, 2));
    }
    tc_check(&c);
    tc_check(&d);
    tc_stop(&d);
    tc_stop(&c);
}

/* Same seed, same requests: same topic ids and assignments. */
Test(controller, placement_is_deterministic)
{
    char a[4096], b[4096];
    for (int run = 0; run < 2; run++) {
        tc_cluster c;
        tc_start(&c, NULL);
        join3(&c);
        cr_assert_eq(tc_topic(&c, "det", 8, 2, NULL), 0);
        lr_buf out;
        lr_buf_init(&out, &lr_alloc_default);
        cr_assert_eq(lr_md_describe(lr_ctl_image(c.ctl), NULL, 0, &out), 0);
        snprintf(run ? b : a, 4096, "%.*s", (int)out.len, (char *)out.data);
        lr_buf_free(&out);
        tc_stop(&c);
    }
    cr_assert_str_eq(a, b);
}

/* S10 (KIP-903) and S20d: AlterPartition fencing. */
Test(controller, alter_partition_fencing)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t l = p->leader, f1 = p->replicas[1], f2 = p->replicas[2];
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(c.ctl), "t");
    int32_t shrink[] = {l, f1};
    lr_ctl_isr_member m[3] = {{l, c.epochs[l]}, {f1, c.epochs[f1]}, {f2, c.epochs[f2]}};
    lr_ctl_alter_partition_req req = {.broker_id = l, .broker_epoch = c.epochs[l], .partition = 0,
                                      .leader_epoch = p->leader_epoch,
                                      .partition_epoch = p->partition_epoch, .new_isr = m,
                                      .n_new_isr = 2, .leader_recovery_state = LR_MD_RECOVERED};
    memcpy(req.topic_id, t->id, 16);
    lr_ctl_partition_state st;
    /* accepted: ISR {l,f1}, partition epoch bumped, leader epoch not */
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, &st), 0);
    cr_assert_eq(st.partition_epoch, 1);
    cr_assert_eq(st.leader_epoch, 0);
    ASSERT_IDS(st.isr, st.n_isr, tc_ids(shrink, 2));
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.isr_shrinks, 1);
    /* S20d: the same request again carries the old partition epoch */
    int64_t before = lr_md_next_offset(lr_ctl_image(c.ctl));
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, &st), LOGREP_ERR_INVALID_UPDATE_VERSION);
    cr_assert_eq(lr_md_next_offset(lr_ctl_image(c.ctl)), before, "nothing written");
    cr_assert_eq(st.partition_epoch, 1, "state returned with the error");
    /* epochs from the future: NOT_CONTROLLER */
    req.partition_epoch = 5;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_NOT_CONTROLLER);
    /* older leader epoch: FENCED_LEADER_EPOCH (needs a leader change first) */
    req.partition_epoch = 1;
    req.n_new_isr = 3;
    /* S10: f2 restarts (new broker epoch); a delayed AlterPartition adding it
     * with the old epoch is refused */
    int64_t old_f2 = c.epochs[f2];
    expire(&c, f2);
    cr_assert_eq(tc_join(&c, f2, "rX", -1), 0);
    cr_assert_neq(c.epochs[f2], old_f2);
    p = tc_part(&c, "t", 0);
    req.partition_epoch = p->partition_epoch;
    m[2].broker_epoch = old_f2;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INELIGIBLE_REPLICA);
    m[2].broker_epoch = c.epochs[f2];
    /* stale sender epoch */
    req.broker_epoch = c.epochs[l] - 1;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_STALE_BROKER_EPOCH);
    req.broker_epoch = c.epochs[l];
    /* not the leader */
    req.broker_id = f1;
    req.broker_epoch = c.epochs[f1];
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INVALID_REQUEST);
    req.broker_id = l;
    req.broker_epoch = c.epochs[l];
    /* ISR without the leader, with a duplicate, with a non-replica */
    lr_ctl_isr_member bad[2] = {{f1, c.epochs[f1]}, {f2, c.epochs[f2]}};
    req.new_isr = bad;
    req.n_new_isr = 2;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INVALID_REQUEST);
    bad[0] = (lr_ctl_isr_member){l, c.epochs[l]};
    bad[1] = bad[0];
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INVALID_REQUEST);
    bad[1] = (lr_ctl_isr_member){42, 1};
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INVALID_REQUEST);
    /* RECOVERED -> RECOVERING refused */
    req.new_isr = m;
    req.n_new_isr = 1;
    req.leader_recovery_state = LR_MD_RECOVERING;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_INVALID_REQUEST);
    req.leader_recovery_state = LR_MD_RECOVERED;
    /* expand with current epochs: accepted, ELR stays empty */
    req.n_new_isr = 3;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, &st), 0);
    cr_assert_eq(st.n_isr, 3);
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.isr_expands, 1);
    /* unknown topic / partition */
    req.partition = 7;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    req.topic_id[0] ^= 0xff;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_UNKNOWN_TOPIC_ID);
    req.topic_id[0] ^= 0xff;
    req.partition = 0;
    /* a preferred/other leader change makes the old leader epoch stale */
    p = tc_part(&c, "t", 0);
    int32_t old_epoch = p->leader_epoch;
    expire(&c, l);
    p = tc_part(&c, "t", 0);
    cr_assert_gt(p->leader_epoch, old_epoch);
    cr_assert_neq(p->leader, l);
    req.broker_id = p->leader;
    req.broker_epoch = c.epochs[p->leader];
    req.leader_epoch = old_epoch;
    req.partition_epoch = p->partition_epoch;
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), LOGREP_ERR_FENCED_LEADER_EPOCH);
    tc_check(&c);
    tc_stop(&c);
}

/* Leader fenced by session timeout: leadership moves within the ISR,
 * leader epoch and partition epoch bump, counters move. */
Test(controller, session_timeout_moves_leadership)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t l = p->leader, next = p->replicas[1];
    expire(&c, l);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, next, "first ISR replica in assignment order");
    cr_assert_eq(p->leader_epoch, 1);
    cr_assert_eq(p->partition_epoch, 1);
    cr_assert_eq(p->n_isr, 2);
    cr_assert(!lr_md_ids_contains(p->isr, p->n_isr, l));
    cr_assert_eq(p->n_elr, 0, "ISR still at min ISR: no ELR");
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.leader_changes, 1);
    cr_assert_eq(s.session_timeouts, 1);
    cr_assert_eq(s.broker_fencings, 1);
    lr_md_summary sum;
    lr_md_summarize(lr_ctl_image(c.ctl), &sum);
    cr_assert_eq(sum.fenced_brokers, 1);
    cr_assert_eq(sum.under_replicated, 1);
    cr_assert_eq(sum.at_min_isr, 1);
    tc_check(&c);
    tc_stop(&c);
}

/* Controlled shutdown: leadership moves away, the broker leaves every ISR
 * (entering the ELR when that drops the ISR below min ISR), and it is told
 * to shut down once the others applied those records. */
Test(controller, controlled_shutdown)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    cr_assert_eq(tc_topic(&c, "t", 6, 2, NULL), 0);
    int32_t victim = tc_part(&c, "t", 0)->leader;
    lr_ctl_heartbeat_req hb = {victim, c.epochs[victim], lr_md_next_offset(lr_ctl_image(c.ctl)), 0, 1};
    lr_ctl_heartbeat_resp hr;
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), 0);
    cr_assert(hr.in_controlled_shutdown);
    cr_assert(!hr.should_shutdown, "the other brokers have not seen the changes yet");
    for (int i = 0; i < 6; i++) {
        const lr_md_partition *p = tc_part(&c, "t", i);
        cr_assert_neq(p->leader, victim, "partition %d", i);
        cr_assert(!lr_md_ids_contains(p->isr, p->n_isr, victim));
        if (lr_md_ids_contains(p->replicas, p->n_replicas, victim)) {
            /* RF 2, min ISR 2: the ISR drops to 1 and the victim is eligible */
            ASSERT_IDS(p->elr, p->n_elr, tc_ids(&victim, 1));
            cr_assert_eq(p->n_isr, 1);
        }
    }
    /* the others catch up */
    for (int32_t b = 1; b <= 3; b++)
        if (b != victim)
            cr_assert_eq(tc_beat(&c, b), 0);
    hb.current_metadata_offset = lr_md_next_offset(lr_ctl_image(c.ctl));
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), 0);
    cr_assert(hr.should_shutdown);
    cr_assert(hr.is_fenced);
    /* clean restart: previous epoch matches; stays in the ELR */
    int64_t prev = c.epochs[victim];
    cr_assert_eq(tc_join(&c, victim, "rX", prev), 0);
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.clean_restarts, 1);
    cr_assert_eq(s.unclean_restarts, 0);
    int in_elr = 0;
    for (int i = 0; i < 6; i++) {
        const lr_md_partition *p = tc_part(&c, "t", i);
        in_elr += lr_md_ids_contains(p->elr, p->n_elr, victim);
    }
    cr_assert_gt(in_elr, 0, "a clean restart keeps ELR membership");
    /* the leader re-adds it: ISR back to 2, ELR cleared */
    for (int i = 0; i < 6; i++) {
        const lr_md_partition *p = tc_part(&c, "t", i);
        if (!lr_md_ids_contains(p->replicas, p->n_replicas, victim))
            continue;
        int32_t isr[2] = {p->leader, victim};
        cr_assert_eq(tc_alter(&c, "t", i, isr, 2), 0);
        p = tc_part(&c, "t", i);
        cr_assert_eq(p->n_elr, 0);
        cr_assert_eq(p->n_isr, 2);
    }
    tc_check(&c);
    tc_stop(&c);
}

/* Election order 1: ISR member first (assignment order), ELR only when the
 * ISR is empty. */
Test(controller, election_prefers_isr_then_elr)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t a = p->replicas[0], b = p->replicas[1], cc = p->replicas[2];
    /* leader shrinks to {a}: b and c enter the ELR */
    cr_assert_eq(tc_alter(&c, "t", 0, &a, 1), 0);
    p = tc_part(&c, "t", 0);
    ASSERT_IDS(p->isr, p->n_isr, tc_ids(&a, 1));
    int32_t bc[] = {b, cc};
    ASSERT_IDS(p->elr, p->n_elr, tc_ids(bc, 2));
    /* a fenced: ISR empty, leader from the ELR: b (assignment order); the
     * new ISR is exactly {b}; a enters the ELR */
    expire(&c, a);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, b);
    ASSERT_IDS(p->isr, p->n_isr, tc_ids(&b, 1));
    cr_assert(lr_md_ids_contains(p->elr, p->n_elr, a));
    cr_assert(lr_md_ids_contains(p->elr, p->n_elr, cc));
    cr_assert(!lr_md_ids_contains(p->elr, p->n_elr, b));
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.elr_elections, 1);
    cr_assert_eq(s.unclean_elections, 0);
    /* b re-adds c: ISR {b,c} >= 2: ELR cleared */
    int32_t isr[] = {b, cc};
    cr_assert_eq(tc_alter(&c, "t", 0, isr, 2), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->n_elr, 0);
    cr_assert_eq(p->n_lke, 0);
    tc_check(&c);
    tc_stop(&c);
}

/* S12: last replica standing + unclean restart. ISR {A,B,C} -> {A,C} ->
 * {A}; C is in the ELR; A loses power (unclean), B and C are fenced too;
 * A's unclean registration removes it from the ELR; C comes back and is
 * elected from the ELR, not A. */
Test(controller, s12_last_replica_standing)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0], B = p->replicas[1], C = p->replicas[2];
    int32_t ac[] = {A, C};
    cr_assert_eq(tc_alter(&c, "t", 0, ac, 2), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->n_elr, 0, "ISR {A,C} is at min ISR");
    cr_assert_eq(tc_alter(&c, "t", 0, &A, 1), 0);
    p = tc_part(&c, "t", 0);
    ASSERT_IDS(p->elr, p->n_elr, tc_ids(&C, 1));
    /* C and B go away first (C stays in the ELR while fenced), then A */
    expire(&c, C);
    expire(&c, B);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, A);
    expire(&c, A);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER, "nobody acceptable");
    cr_assert_eq(p->n_isr, 0, "with ELR the ISR may empty");
    ASSERT_IDS(p->lke, p->n_lke, tc_ids(&A, 1));
    cr_assert(lr_md_ids_contains(p->elr, p->n_elr, A));
    cr_assert(lr_md_ids_contains(p->elr, p->n_elr, C));
    /* A restarts uncleanly (no clean-shutdown epoch): out of the ELR; still
     * the last known leader, but that only counts once the ELR is empty */
    cr_assert_eq(tc_join(&c, A, "r1", -1), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER, "A must not be elected");
    ASSERT_IDS(p->elr, p->n_elr, tc_ids(&C, 1));
    ASSERT_IDS(p->lke, p->n_lke, tc_ids(&A, 1));
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.unclean_restarts, 1);
    /* C returns (clean): elected from the ELR */
    cr_assert_eq(tc_join(&c, C, "r3", c.epochs[C]), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, C);
    ASSERT_IDS(p->isr, p->n_isr, tc_ids(&C, 1));
    cr_assert_eq(p->lrs, LR_MD_RECOVERED, "an ELR election is clean");
    cr_assert_eq(p->n_lke, 0);
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.unclean_elections, 0);
    cr_assert_eq(s.last_known_leader_elections, 0);
    tc_check(&c);
    tc_stop(&c);
}

/* S13: whole-cluster outage. Unclean restarts empty the ELR, but the last
 * leader stays in LastKnownElr (as in Kafka): with unclean election off it
 * comes back as leader once it returns (a last-known-leader election,
 * RECOVERING); with unclean election on, the first broker back wins an
 * unclean election (counted). */
static void s13(int unclean)
{
    tc_cluster c;
    tc_start(&c, unclean ? MIN2_UNCLEAN : MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0], B = p->replicas[1], C = p->replicas[2];
    expire(&c, A);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, B);
    cr_assert_eq(p->n_elr, 0);
    expire(&c, B);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, C);
    ASSERT_IDS(p->elr, p->n_elr, tc_ids(&B, 1));
    expire(&c, C);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER);
    int32_t bc[] = {B, C};
    ASSERT_IDS(p->elr, p->n_elr, tc_ids(bc, 2));
    ASSERT_IDS(p->lke, p->n_lke, tc_ids(&C, 1));
    /* everyone restarts uncleanly */
    cr_assert_eq(tc_join(&c, A, "r1", -1), 0);
    cr_assert_eq(tc_join(&c, B, "r2", -1), 0);
    p = tc_part(&c, "t", 0);
    if (unclean) {
        cr_assert_eq(p->leader, A, "unclean: first acceptable replica");
        ASSERT_IDS(p->isr, p->n_isr, tc_ids(&A, 1));
        cr_assert_eq(p->n_elr, 0, "unclean election clears the ELR");
        cr_assert_eq(p->lrs, LR_MD_RECOVERING);
        lr_ctl_stats s;
        lr_ctl_get_stats(c.ctl, &s);
        cr_assert_eq(s.unclean_elections, 1);
    } else {
        cr_assert_eq(p->leader, LR_MD_NO_LEADER, "C, the only candidate, is still away");
        ASSERT_IDS(p->elr, p->n_elr, tc_ids(&C, 1));
        ASSERT_IDS(p->lke, p->n_lke, tc_ids(&C, 1));
        lr_buf out;
        lr_buf_init(&out, &lr_alloc_default);
        cr_assert_eq(lr_md_describe(lr_ctl_image(c.ctl), NULL, LR_MD_DESCRIBE_UNAVAILABLE, &out), 0);
        cr_assert(out.len > 0 && strstr((char *)out.data, "Leader: none"));
        lr_buf_free(&out);
        cr_assert_eq(tc_join(&c, C, "r3", -1), 0);
        p = tc_part(&c, "t", 0);
        cr_assert_eq(p->leader, C, "the last known leader is elected once it is back");
        ASSERT_IDS(p->isr, p->n_isr, tc_ids(&C, 1));
        cr_assert_eq(p->n_elr, 0);
        cr_assert_eq(p->n_lke, 0, "cleared once the partition has a leader");
        cr_assert_eq(p->lrs, LR_MD_RECOVERING);
        lr_ctl_stats s;
        lr_ctl_get_stats(c.ctl, &s);
        cr_assert_eq(s.unclean_elections, 0);
        cr_assert_eq(s.last_known_leader_elections, 1);
        cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 0, LR_CTL_ELECT_UNCLEAN),
                     LOGREP_ERR_ELECTION_NOT_NEEDED);
    }
    tc_check(&c);
    tc_stop(&c);
}

Test(controller, s13_whole_cluster_outage_unclean_off) { s13(0); }
Test(controller, s13_whole_cluster_outage_unclean_on) { s13(1); }

/* Last known leader, from a stream that empties the ELR and keeps
 * LastKnownElr = {X} (as unclean restarts do, or another controller): X is
 * then elected when it is acceptable, with ISR := {X} and leader recovery
 * RECOVERING; nobody else is. */
Test(controller, last_known_leader_election)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0], B = p->replicas[1], C = p->replicas[2];
    expire(&c, A);
    expire(&c, B);
    expire(&c, C);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER);
    ASSERT_IDS(p->lke, p->n_lke, tc_ids(&C, 1));
    /* a record in the stream empties the ELR and keeps LastKnownElr {C} */
    lr_md_record r;
    lr_md_record_init(&r, LR_MD_PARTITION_CHANGE, 2);
    memcpy(r.u.part.topic_id, lr_md_topic_by_name(lr_ctl_image(c.ctl), "t")->id, 16);
    r.u.part.elr = (lr_md_ids){NULL, 0};
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_md_encode(&r, &b), 0);
    int64_t off = lr_md_next_offset(lr_ctl_image(c.ctl));
    cr_assert_eq(lr_ctl_replay(c.ctl, b.data, b.len), 0);
    tc_sink(&c.log, off, b.data, b.len);
    lr_buf_free(&b);
    /* A comes back: not a candidate (not the last known leader) */
    cr_assert_eq(tc_join(&c, A, "r1", c.epochs[A]), 0);
    cr_assert_eq(tc_part(&c, "t", 0)->leader, LR_MD_NO_LEADER);
    /* C comes back: elected as the last known leader */
    cr_assert_eq(tc_join(&c, C, "r3", c.epochs[C]), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, C);
    ASSERT_IDS(p->isr, p->n_isr, tc_ids(&C, 1));
    cr_assert_eq(p->lrs, LR_MD_RECOVERING);
    cr_assert_eq(p->n_lke, 0);
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.last_known_leader_elections, 1);
    cr_assert_eq(s.unclean_elections, 0);
    /* the leader reports recovery done: RECOVERING -> RECOVERED */
    lr_ctl_isr_member m = {C, c.epochs[C]};
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(c.ctl), "t");
    lr_ctl_alter_partition_req req = {.broker_id = C, .broker_epoch = c.epochs[C], .partition = 0,
                                      .leader_epoch = p->leader_epoch,
                                      .partition_epoch = p->partition_epoch, .new_isr = &m,
                                      .n_new_isr = 1, .leader_recovery_state = LR_MD_RECOVERED};
    memcpy(req.topic_id, t->id, 16);
    cr_assert_eq(lr_ctl_alter_partition(c.ctl, &req, NULL), 0);
    cr_assert_eq(tc_part(&c, "t", 0)->lrs, LR_MD_RECOVERED);
    (void)B;
    tc_check(&c);
    tc_stop(&c);
}

/* Without ELR the last ISR member never leaves the ISR; a fenced last
 * member means no leader until it returns. */
Test(controller, no_elr_keeps_last_isr_member)
{
    tc_cluster c;
    tc_start(&c, MIN2_NOELR);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0], B = p->replicas[1], C = p->replicas[2];
    cr_assert_eq(tc_alter(&c, "t", 0, &A, 1), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->n_elr, 0);
    expire(&c, A);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER);
    ASSERT_IDS(p->isr, p->n_isr, tc_ids(&A, 1));
    cr_assert_eq(p->n_elr, 0);
    cr_assert_eq(p->n_lke, 0);
    /* A returns (even uncleanly: no ELR, no unclean tracking) and leads */
    cr_assert_eq(tc_join(&c, A, "r1", -1), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, A);
    (void)B;
    (void)C;
    tc_check(&c);
    tc_stop(&c);
}

Test(controller, preferred_election)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0];
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 0, LR_CTL_ELECT_PREFERRED),
                 LOGREP_ERR_ELECTION_NOT_NEEDED);
    expire(&c, A);
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 0, LR_CTL_ELECT_PREFERRED),
                 LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE);
    cr_assert_eq(tc_join(&c, A, "r1", c.epochs[A]), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_neq(p->leader, A, "unfencing does not move a valid leader");
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 0, LR_CTL_ELECT_PREFERRED),
                 LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE, "A is not in the ISR yet");
    int32_t isr[3] = {p->leader, p->isr[1], A};
    cr_assert_eq(tc_alter(&c, "t", 0, isr, 3), 0);
    int32_t e = tc_part(&c, "t", 0)->leader_epoch;
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 0, LR_CTL_ELECT_PREFERRED), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->leader, A);
    cr_assert_eq(p->leader_epoch, e + 1);
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "x", 0, 0), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "t", 9, 0), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    tc_check(&c);
    tc_stop(&c);
}

/* Changing min.insync.replicas clears ELR state (rule d). */
Test(controller, min_isr_change_clears_elr)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    const lr_md_partition *p = topic3(&c);
    int32_t A = p->replicas[0];
    cr_assert_eq(tc_alter(&c, "t", 0, &A, 1), 0);
    cr_assert_eq(tc_part(&c, "t", 0)->n_elr, 2);
    lr_buf out;
    lr_buf_init(&out, &lr_alloc_default);
    cr_assert_eq(lr_md_describe(lr_ctl_image(c.ctl), NULL, LR_MD_DESCRIBE_UNDER_MIN_ISR, &out), 0);
    cr_assert(out.len > 0);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "t", "min.insync.replicas", "1"), 0);
    p = tc_part(&c, "t", 0);
    cr_assert_eq(p->n_elr, 0);
    cr_assert_eq(p->n_lke, 0);
    out.len = 0;
    cr_assert_eq(lr_md_describe(lr_ctl_image(c.ctl), NULL, LR_MD_DESCRIBE_UNDER_MIN_ISR, &out), 0);
    cr_assert_eq(out.len, 0u);
    cr_assert_eq(lr_md_describe(lr_ctl_image(c.ctl), NULL, LR_MD_DESCRIBE_AT_MIN_ISR, &out), 0);
    cr_assert(out.len > 0);
    lr_buf_free(&out);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "t", "min.insync.replicas", "0"),
                 LOGREP_ERR_INVALID_CONFIG);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "nope", "min.insync.replicas", "1"),
                 LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "t", "min.insync.replicas", NULL), 0);
    cr_assert_null(lr_md_topic_config(lr_md_topic_by_name(lr_ctl_image(c.ctl), "t"),
                                      "min.insync.replicas"));
    tc_check(&c);
    tc_stop(&c);
}

/* Producer ids never repeat, also across a controller rebuilt from the
 * record stream. */
Test(controller, producer_ids_survive_restart)
{
    tc_cluster c;
    tc_start(&c, NULL);
    join3(&c);
    int64_t first, prev_end = 0;
    int32_t n;
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(lr_ctl_allocate_producer_ids(c.ctl, 1 + i % 3, c.epochs[1 + i % 3], &first, &n), 0);
        cr_assert_eq(n, LR_MD_PRODUCER_ID_BLOCK);
        cr_assert_eq(first, prev_end);
        prev_end = first + n;
    }
    cr_assert_eq(lr_ctl_allocate_producer_ids(c.ctl, 1, c.epochs[1] + 7, &first, &n),
                 LOGREP_ERR_STALE_BROKER_EPOCH);
    cr_assert_eq(lr_ctl_allocate_producer_ids(c.ctl, 9, 0, &first, &n), LOGREP_ERR_STALE_BROKER_EPOCH);
    /* a new controller replays the stream and continues after the last block */
    lr_ctl *c2 = lr_ctl_new(c.conf, NULL, NULL);
    for (size_t i = 0; i < c.log.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&c.log, i, &len);
        cr_assert_eq(lr_ctl_replay(c2, r, len), 0);
    }
    cr_assert_eq(lr_ctl_allocate_producer_ids(c2, 2, c.epochs[2], &first, &n), 0);
    cr_assert_eq(first, prev_end, "no id handed out twice");
    lr_ctl_free(c2);
    tc_check(&c);
    tc_stop(&c);
}

/* A controller rebuilt from the stream keeps fencing: replayed brokers get a
 * fresh session at the first tick and expire after the timeout. */
Test(controller, failover_sessions)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    topic3(&c);
    lr_ctl *c2 = lr_ctl_new(c.conf, tc_sink, &c.log);
    for (size_t i = 0; i < c.log.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&c.log, i, &len);
        cr_assert_eq(lr_ctl_replay(c2, r, len), 0);
    }
    lr_ctl_free(c.ctl);
    c.ctl = c2;
    cr_assert_eq(lr_ctl_tick(c.ctl, c.now + 50000), 0);
    const lr_md_image *img = lr_ctl_image(c.ctl);
    cr_assert(!lr_md_broker_get(img, 1)->fenced, "sessions start at the new controller");
    c.now += 50000;
    int32_t l = tc_part(&c, "t", 0)->leader;
    expire(&c, l);
    cr_assert_neq(tc_part(&c, "t", 0)->leader, l);
    tc_check(&c);
    tc_stop(&c);
}

/* A controller that restarted has heard from nobody: a new incarnation of
 * a replayed broker (the whole cluster restarted after a crash) registers
 * at once instead of waiting out a session that proves nothing; once this
 * controller has heard from an incarnation, another is refused again. */
Test(controller, restarted_controller_admits_new_incarnations)
{
    tc_cluster c;
    tc_start(&c, MIN2);
    join3(&c);
    topic3(&c);
    lr_ctl *c2 = lr_ctl_new(c.conf, tc_sink, &c.log);
    for (size_t i = 0; i < c.log.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&c.log, i, &len);
        cr_assert_eq(lr_ctl_replay(c2, r, len), 0);
    }
    lr_ctl_free(c.ctl);
    c.ctl = c2;
    cr_assert_eq(lr_ctl_tick(c.ctl, c.now), 0);
    int64_t old_epoch = c.epochs[1];
    cr_assert_eq(tc_join(&c, 1, "r1", -1), 0, "admitted at once");
    cr_assert_gt(c.epochs[1], old_epoch);
    /* broker 2's old incarnation heartbeats to the new controller: heard */
    lr_ctl_heartbeat_req hb = {2, c.epochs[2], lr_md_next_offset(lr_ctl_image(c.ctl)) - 1, 0, 0};
    lr_ctl_heartbeat_resp hr;
    cr_assert_eq(lr_ctl_heartbeat(c.ctl, &hb, c.now, &hr), 0);
    lr_ctl_endpoint ep = {"PLAINTEXT", "h2", 9092, 0};
    lr_ctl_register_req req = {.broker_id = 2, .rack = "r2", .endpoints = &ep, .n_endpoints = 1,
                               .previous_broker_epoch = -1};
    memset(req.incarnation, 0x77, 16);
    lr_ctl_register_resp rr;
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &req, c.now + 10, &rr),
                 LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION, "a live incarnation keeps its id");
    /* its clean-shutdown marker proves the old incarnation ended */
    req.previous_broker_epoch = c.epochs[2];
    cr_assert_eq(lr_ctl_register_broker(c.ctl, &req, c.now + 10, &rr), 0);
    cr_assert(rr.clean);
    tc_check(&c);
    tc_stop(&c);
}

/* One replica, unclean restart (kill -9 of a one-node cluster): the broker
 * is fenced, leaves the ISR, but stays the last known leader and leads
 * again once it is back and caught up. */
Test(controller, single_replica_unclean_restart_leads_again)
{
    tc_cluster c;
    tc_start(&c, NULL);
    cr_assert_eq(tc_join(&c, 1, "r1", -1), 0);
    cr_assert_eq(tc_topic(&c, "solo", 1, 1, NULL), 0);
    const lr_md_partition *p = tc_part(&c, "solo", 0);
    cr_assert_eq(p->leader, 1);
    /* killed: the session expires, the only replica leaves the ISR */
    c.now += 20000;
    cr_assert_eq(lr_ctl_tick(c.ctl, c.now), 0);
    p = tc_part(&c, "solo", 0);
    cr_assert_eq(p->leader, LR_MD_NO_LEADER);
    cr_assert_eq(p->n_isr, 0);
    cr_assert_eq(tc_join(&c, 1, "r1", -1), 0, "a new incarnation, unclean");
    p = tc_part(&c, "solo", 0);
    cr_assert_eq(p->leader, 1, "the last known leader is elected again");
    ASSERT_IDS(p->isr, p->n_isr, tc_ids((int32_t[]){1}, 1));
    cr_assert_eq(p->n_lke, 0);
    lr_ctl_stats s;
    lr_ctl_get_stats(c.ctl, &s);
    cr_assert_eq(s.unclean_restarts, 1);
    cr_assert_eq(s.last_known_leader_elections, 1);
    cr_assert_eq(s.unclean_elections, 0);
    tc_check(&c);
    tc_stop(&c);
}

/* Allocation failure at every point of a registration + topic creation +
 * fencing: the call fails with NOMEM or succeeds, and the emitted stream
 * always replays to the controller's image. */
Test(controller, nomem_sweep_keeps_stream_and_image_equal)
{
    for (long fail = 1; fail < 400; fail++) {
        tu_heap h = {0};
        logrep_allocator a = tu_heap_allocator(&h);
        logrep_conf *conf = logrep_conf_new();
        logrep_conf_set_allocator(conf, &a);
        char e[64];
        logrep_conf_set(conf, "min.insync.replicas", "2", e, sizeof e);
        tc_log log = {0};
        lr_ctl *ctl = lr_ctl_new(conf, tc_sink, &log);
        if (!ctl) {
            logrep_conf_free(conf);
            continue;
        }
        h.fail_at = h.allocs + fail;
        int64_t now = 0;
        for (int32_t id = 1; id <= 3; id++) {
            lr_ctl_register_req req = {.broker_id = id, .rack = id == 1 ? "x" : NULL,
                                       .previous_broker_epoch = -1};
            req.incarnation[0] = (uint8_t)id;
            lr_ctl_register_resp rr;
            if (lr_ctl_register_broker(ctl, &req, now, &rr))
                continue;
            lr_ctl_heartbeat_req hb = {id, rr.broker_epoch, rr.broker_epoch, 0, 0};
            lr_ctl_heartbeat_resp hr;
            (void)lr_ctl_heartbeat(ctl, &hb, now, &hr);
        }
        lr_ctl_create_topic_req tr = {"t", 3, 3, NULL, 0};
        int err = lr_ctl_create_topic(ctl, &tr, NULL);
        cr_assert(err == 0 || err == LOGREP_ERR__NOMEM || err == LOGREP_ERR_INVALID_REPLICATION_FACTOR,
                  "%d", err);
        (void)lr_ctl_tick(ctl, 100000);
        h.fail_at = 0;
        lr_md_image *re = tc_replay(&log, NULL);
        char why[128];
        cr_assert_eq(tc_image_diff(lr_ctl_image(ctl), re, why, sizeof why), 0, "fail %ld: %s",
                     fail, why);
        lr_md_free(re);
        lr_ctl_free(ctl);
        logrep_conf_free(conf);
        tc_log_free(&log);
        cr_assert_eq(h.live_blocks, 0, "leak at fail %ld", fail);
    }
}

/* A record the sink cannot make durable stops the controller: the call
 * that met it and every later one answer NOT_CONTROLLER, and the stream
 * (all that a successor replays) holds nothing after the last good record. */
Test(controller, sink_failure_stops_the_controller)
{
    tc_cluster c;
    tc_start(&c, NULL);
    join3(&c);
    cr_assert_eq(tc_topic(&c, "a", 1, 3, NULL), 0);
    size_t good = c.log.n;
    cr_assert_eq(lr_ctl_failed(c.ctl), 0);
    c.log.fail = LOGREP_ERR__IO;
    cr_assert_eq(tc_topic(&c, "b", 1, 3, NULL), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lr_ctl_failed(c.ctl), LOGREP_ERR__IO);
    c.log.fail = 0; /* the storage recovers: the controller stays stopped */
    int64_t first;
    int32_t n;
    cr_assert_eq(tc_topic(&c, "c", 1, 3, NULL), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(tc_beat(&c, 1), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lr_ctl_allocate_producer_ids(c.ctl, 1, c.epochs[1], &first, &n),
                 LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lr_ctl_delete_topic(c.ctl, "a"), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "a", "retention.ms", "1"),
                 LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lr_ctl_elect_leader(c.ctl, "a", 0, 0), LOGREP_ERR_NOT_CONTROLLER);
    c.now += 60000;
    cr_assert_eq(lr_ctl_tick(c.ctl, c.now), LOGREP_ERR_NOT_CONTROLLER,
                 "no session expiry is acted on");
    cr_assert_eq(c.log.n, good, "nothing reached the stream after the failure");
    lr_md_image *img = tc_replay(&c.log, c.conf);
    cr_assert(lr_md_topic_by_name(img, "a"));
    cr_assert_null(lr_md_topic_by_name(img, "b"));
    lr_md_free(img);
    tc_stop(&c);
}
