/* Randomized (seeded) property test of the controller: random sequences of
 * registrations (clean and unclean restarts), crashes, heartbeats, session
 * expiry, controlled shutdowns, AlterPartitions (current and stale),
 * elections and min ISR changes. After every step:
 *   - lr_md_check_invariants (I13 shape: ELR ∩ ISR = ∅, ISR >= min ISR ⇒
 *     ELR = ∅, subsets of replicas, leader in ISR, no fenced ISR member
 *     unless it is the last one without ELR);
 *   - I7: per partition the leader epoch never decreases, the partition
 *     epoch strictly increases on every change, a leader change always
 *     bumps the leader epoch, and each (partition, leader epoch) has at
 *     most one leader ever;
 *   - a leader is always an active broker;
 *   - a broker that just restarted uncleanly is in no ELR / LastKnownElr.
 * At the end of each seed the record stream replays to the same image.
 * LOGREP_CTL_SEEDS overrides the number of seeds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/prng.h"
#include "lib/ctl_testutil.h"

#define NB 5     /* brokers 1..NB */
#define MAXP 16  /* partitions tracked */
#define MAXE 4096

typedef struct ghost {
    int32_t leader, leader_epoch, partition_epoch;
    int8_t lrs;
    char sets[128];           /* isr|elr|lke, to detect changes */
    int32_t leader_at[MAXE];  /* leader per leader epoch, -2 unknown */
    int sanctioned;           /* |ISR ∪ ELR| may be below min ISR (see check) */
} ghost;

typedef struct world {
    tc_cluster c;
    lr_prng rng;
    int alive[NB + 1];
    int64_t clean_epoch[NB + 1]; /* epoch written by a clean shutdown, -1 none */
    ghost g[MAXP];
    int np;
    const char *topic_of[MAXP];
    int32_t index_of[MAXP];
    long steps, alters_ok, alters_refused, elections;
} world;

static uint64_t below(world *w, uint64_t n) { return lr_prng_below(&w->rng, n); }

static const lr_md_partition *part_of(world *w, int k)
{
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(w->c.ctl), w->topic_of[k]);
    return lr_md_partition_get(t, w->index_of[k]);
}

static void snapshot(const lr_md_partition *p, char *out, size_t cap)
{
    size_t o = 0;
    o += (size_t)snprintf(out + o, cap - o, "%s|", tc_ids(p->isr, p->n_isr));
    o += (size_t)snprintf(out + o, cap - o, "%s|", tc_ids(p->elr, p->n_elr));
    snprintf(out + o, cap - o, "%s", tc_ids(p->lke, p->n_lke));
}

static void check(world *w, const char *what)
{
    char why[256];
    const lr_md_image *img = lr_ctl_image(w->c.ctl);
    cr_assert_eq(lr_md_check_invariants(img, why, sizeof why), 0, "step %ld (%s): %s", w->steps,
                 what, why);
    for (int k = 0; k < w->np; k++) {
        const lr_md_partition *p = part_of(w, k);
        ghost *g = &w->g[k];
        char sets[128];
        snapshot(p, sets, sizeof sets);
        int changed = p->leader != g->leader || p->lrs != g->lrs || strcmp(sets, g->sets) != 0;
        cr_assert_geq(p->leader_epoch, g->leader_epoch, "step %ld: leader epoch went back", w->steps);
        cr_assert_geq(p->partition_epoch, g->partition_epoch, "step %ld: partition epoch went back",
                      w->steps);
        if (changed)
            cr_assert_gt(p->partition_epoch, g->partition_epoch,
                         "step %ld (%s): %s-%d changed without a partition epoch bump", w->steps,
                         what, w->topic_of[k], (int)w->index_of[k]);
        if (p->leader != g->leader)
            cr_assert_gt(p->leader_epoch, g->leader_epoch, "step %ld: leader moved, same epoch",
                         w->steps);
        cr_assert_lt(p->leader_epoch, MAXE);
        int32_t *slot = &g->leader_at[p->leader_epoch];
        if (*slot == -2)
            *slot = p->leader;
        cr_assert_eq(*slot, p->leader, "step %ld: two leaders (%d, %d) in epoch %d", w->steps,
                     (int)*slot, (int)p->leader, (int)p->leader_epoch);
        if (p->leader >= 0) {
            const lr_md_broker *b = lr_md_broker_get(img, p->leader);
            cr_assert(b && !b->fenced && !b->in_controlled_shutdown,
                      "step %ld (%s): leader %d not active", w->steps, what, (int)p->leader);
        }
        /* I13: |ISR ∪ ELR| >= min ISR, unless an ELR/ISR member restarted
         * uncleanly, an unclean or last-known-leader election happened, or
         * min.insync.replicas changed since the ISR was last at min ISR. */
        const lr_md_topic *t = lr_md_topic_by_name(img, w->topic_of[k]);
        int32_t min_isr = lr_md_topic_min_isr(img, t);
        if (p->n_isr >= min_isr)
            g->sanctioned = 0;
        if (p->lrs == LR_MD_RECOVERING)
            g->sanctioned = 1;
        if (lr_md_get_defaults(img)->elr_enabled && !g->sanctioned)
            cr_assert_geq(p->n_isr + p->n_elr, min_isr, "step %ld (%s): %s-%d ISR %s + ELR below min ISR",
                          w->steps, what, w->topic_of[k], (int)w->index_of[k], g->sets);
        g->leader = p->leader;
        g->leader_epoch = p->leader_epoch;
        g->partition_epoch = p->partition_epoch;
        g->lrs = p->lrs;
        memcpy(g->sets, sets, sizeof sets);
    }
}

static void beat_alive(world *w)
{
    tc_cluster *c = &w->c;
    for (int32_t b = 1; b <= NB; b++) {
        if (!w->alive[b] || !lr_md_broker_get(lr_ctl_image(c->ctl), b))
            continue;
        lr_ctl_heartbeat_req hb = {b, c->epochs[b], lr_md_next_offset(lr_ctl_image(c->ctl)), 0, 0};
        lr_ctl_heartbeat_resp hr;
        int err = lr_ctl_heartbeat(c->ctl, &hb, c->now, &hr);
        cr_assert(err == 0, "beat %d: %s", (int)b, logrep_err_name(err));
        if (hr.should_shutdown) { /* it finished a controlled shutdown: it stops cleanly */
            w->alive[b] = 0;
            w->clean_epoch[b] = c->epochs[b];
        }
    }
}

static void restart(world *w, int32_t b)
{
    int64_t prev = w->clean_epoch[b];
    int err = tc_join(&w->c, b, (b % 3 == 0) ? "r0" : (b % 3 == 1) ? "r1" : "r2", prev);
    if (err == LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION)
        return; /* the old session still lives: try later */
    cr_assert_eq(err, 0, "register %d: %s", (int)b, logrep_err_name(err));
    w->alive[b] = 1;
    w->clean_epoch[b] = -1;
    if (prev < 0 && lr_md_get_defaults(lr_ctl_image(w->c.ctl))->elr_enabled) {
        for (int k = 0; k < w->np; k++) {
            const lr_md_partition *p = part_of(w, k);
            if (lr_md_ids_contains(p->replicas, p->n_replicas, b))
                w->g[k].sanctioned = 1;
            cr_assert(!lr_md_ids_contains(p->elr, p->n_elr, b),
                      "unclean restart of %d left it in an ELR", (int)b);
            /* It stays the last known leader (as in Kafka), which counts
             * only once ISR and ELR are empty: then, being back, it leads. */
            cr_assert(!lr_md_ids_contains(p->lke, p->n_lke, b) || p->n_isr + p->n_elr > 0,
                      "unclean restart of %d: still the last known leader of a leaderless "
                      "partition with empty ISR and ELR", (int)b);
        }
    }
}

static void random_alter(world *w)
{
    int k = (int)below(w, (uint64_t)w->np);
    const lr_md_partition *p = part_of(w, k);
    if (p->leader < 0)
        return;
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(w->c.ctl), w->topic_of[k]);
    lr_ctl_isr_member m[8];
    size_t n = 0;
    m[n++] = (lr_ctl_isr_member){p->leader, w->c.epochs[p->leader]};
    for (uint16_t i = 0; i < p->n_replicas; i++) {
        int32_t r = p->replicas[i];
        if (r != p->leader && below(w, 2))
            m[n++] = (lr_ctl_isr_member){r, w->c.epochs[r] - (below(w, 8) == 0)};
    }
    lr_ctl_alter_partition_req req = {
        .broker_id = p->leader, .broker_epoch = w->c.epochs[p->leader], .partition = w->index_of[k],
        .leader_epoch = p->leader_epoch - (below(w, 10) == 0),
        .partition_epoch = p->partition_epoch - (below(w, 6) == 0), .new_isr = m, .n_new_isr = n,
        .leader_recovery_state = LR_MD_RECOVERED};
    memcpy(req.topic_id, t->id, 16);
    int err = lr_ctl_alter_partition(w->c.ctl, &req, NULL);
    if (err == 0)
        w->alters_ok++;
    else
        w->alters_refused++;
    cr_assert(err == 0 || err == LOGREP_ERR_FENCED_LEADER_EPOCH ||
                  err == LOGREP_ERR_INVALID_UPDATE_VERSION || err == LOGREP_ERR_INELIGIBLE_REPLICA ||
                  err == LOGREP_ERR_NEW_LEADER_ELECTED || err == LOGREP_ERR_STALE_BROKER_EPOCH,
              "alter: %s", logrep_err_name(err));
}

static void step(world *w)
{
    tc_cluster *c = &w->c;
    uint64_t op = below(w, 100);
    const char *what;
    if (op < 30) {
        what = "time";
        c->now += 1000 + (int64_t)below(w, 3000);
        beat_alive(w);
        cr_assert_eq(lr_ctl_tick(c->ctl, c->now), 0);
    } else if (op < 40) {
        what = "crash";
        int32_t b = 1 + (int32_t)below(w, NB);
        w->alive[b] = 0;
        w->clean_epoch[b] = -1;
    } else if (op < 50) {
        what = "restart";
        int32_t b = 1 + (int32_t)below(w, NB);
        if (!w->alive[b])
            restart(w, b);
    } else if (op < 55) {
        what = "controlled shutdown";
        int32_t b = 1 + (int32_t)below(w, NB);
        const lr_md_broker *br = lr_md_broker_get(lr_ctl_image(c->ctl), b);
        if (w->alive[b] && br) {
            lr_ctl_heartbeat_req hb = {b, c->epochs[b], lr_md_next_offset(lr_ctl_image(c->ctl)), 0, 1};
            lr_ctl_heartbeat_resp hr;
            cr_assert_eq(lr_ctl_heartbeat(c->ctl, &hb, c->now, &hr), 0);
            if (hr.should_shutdown) {
                w->alive[b] = 0;
                w->clean_epoch[b] = c->epochs[b];
            }
        }
    } else if (op < 85) {
        what = "alter";
        random_alter(w);
    } else if (op < 92) {
        what = "election";
        int k = (int)below(w, (uint64_t)w->np);
        int err = lr_ctl_elect_leader(c->ctl, w->topic_of[k], w->index_of[k], (int)below(w, 4) == 0);
        w->elections += err == 0;
    } else if (op < 95) {
        what = "min isr";
        char v[4];
        snprintf(v, sizeof v, "%d", 1 + (int)below(w, 3));
        cr_assert_eq(lr_ctl_set_topic_config(c->ctl, "a", "min.insync.replicas", v), 0);
        for (int k = 0; k < w->np; k++)
            if (strcmp(w->topic_of[k], "a") == 0)
                w->g[k].sanctioned = 1;
    } else {
        what = "producer ids";
        int32_t b = 1 + (int32_t)below(w, NB);
        int64_t first;
        int32_t n;
        if (lr_md_broker_get(lr_ctl_image(c->ctl), b))
            cr_assert_eq(lr_ctl_allocate_producer_ids(c->ctl, b, c->epochs[b], &first, &n), 0);
    }
    w->steps++;
    check(w, what);
}

static void run_seed(uint64_t seed, int elr, long nsteps, long *stats)
{
    world *w = calloc(1, sizeof *w);
    const char *const conf_elr[] = {"min.insync.replicas=2", NULL};
    const char *const conf_noelr[] = {"min.insync.replicas=2", "eligible.leader.replicas.enable=false",
                                      NULL};
    tc_start(&w->c, elr ? conf_elr : conf_noelr);
    lr_prng_seed(&w->rng, seed);
    for (int32_t b = 1; b <= NB; b++) {
        w->clean_epoch[b] = -1;
        restart(w, b);
    }
    const char *const unclean[] = {"unclean.leader.election.enable=true", NULL};
    cr_assert_eq(tc_topic(&w->c, "a", 6, 3, NULL), 0);
    cr_assert_eq(tc_topic(&w->c, "b", 4, 2, seed % 2 ? unclean : NULL), 0);
    cr_assert_eq(tc_topic(&w->c, "c", 2, 5, NULL), 0);
    const char *names[] = {"a", "b", "c"};
    int counts[] = {6, 4, 2};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < counts[t]; i++) {
            w->topic_of[w->np] = names[t];
            w->index_of[w->np] = i;
            ghost *g = &w->g[w->np++];
            g->leader = LR_MD_NO_LEADER; /* "before creation": epochs -1 */
            g->leader_epoch = -1;
            g->partition_epoch = -1;
            for (int e = 0; e < MAXE; e++)
                g->leader_at[e] = -2;
        }
    check(w, "start");
    for (long i = 0; i < nsteps; i++)
        step(w);
    tc_check(&w->c);
    lr_ctl_stats s;
    lr_ctl_get_stats(w->c.ctl, &s);
    stats[0] += w->alters_ok;
    stats[1] += w->alters_refused;
    stats[2] += s.leader_changes;
    stats[3] += s.elr_elections;
    stats[4] += s.unclean_elections;
    stats[5] += s.unclean_restarts;
    stats[6] += s.offline_transitions;
    tc_stop(&w->c);
    free(w);
}

Test(controller_random, invariants_hold)
{
    long seeds = 60;
    const char *env = getenv("LOGREP_CTL_SEEDS");
    if (env)
        seeds = atol(env);
    long stats[7] = {0};
    for (long s = 0; s < seeds; s++)
        run_seed(0x5eed0000u + (uint64_t)s, s % 4 != 3, 400, stats);
    cr_log_info("alters ok %ld refused %ld, leader changes %ld, ELR elections %ld, unclean %ld, unclean restarts %ld, offline %ld",
                stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]);
    /* The schedules must actually exercise what the invariants are about. */
    cr_assert_gt(stats[0], 100, "accepted AlterPartitions: %ld", stats[0]);
    cr_assert_gt(stats[1], 100, "refused AlterPartitions: %ld", stats[1]);
    cr_assert_gt(stats[2], 100, "leader changes: %ld", stats[2]);
    cr_assert_gt(stats[3], 5, "ELR elections: %ld", stats[3]);
    cr_assert_gt(stats[4], 5, "unclean elections: %ld", stats[4]);
    cr_assert_gt(stats[5], 20, "unclean restarts: %ld", stats[5]);
    cr_assert_gt(stats[6], 20, "offline transitions: %ld", stats[6]);
}
