/* Random runs (per-seed fault parameters and schedule) and the heal phase
 * that checks liveness (I15). */
#include <stdlib.h>
#include <string.h>

#include "controller/metadata.h"
#include "node/node_int.h"
#include "sim/sim_int.h"

/* Converged: every partition led, full ISR, empty ELR, all replicas equal
 * with HW == LEO, no producer still working on a batch. */
static int converged(logrep_sim *s)
{
    /* A quorum: an active controller, and every voter holds all that is
     * committed. */
    if (s->nc > 1) {
        if (logrep_sim_active_controller(s) < 0)
            return 0;
        for (int32_t id = s->nb + 1; id <= s->nn; id++) {
            logrep_sim_voter v;
            if (logrep_sim_voter_view(s, id, &v) != LOGREP_OK || !v.up ||
                v.committed < logrep_sim_metadata_committed(s))
                return 0;
        }
    }
    for (size_t i = 0; i < s->nactors; i++)
        if (s->actors[i].kind == ACT_PRODUCER && s->actors[i].state != AS_DONE)
            return 0;
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        const lr_md_partition *mp = lr_sim_ctl_part(s, p);
        if (!mp || mp->leader < 0 || mp->n_isr != mp->n_replicas || mp->n_elr)
            return 0;
        logrep_sim_replica lv;
        if (logrep_sim_replica_view(s, mp->leader, p, &lv) != LOGREP_OK || lv.role != 1 ||
            lv.leader_epoch != mp->leader_epoch || lv.high_watermark != lv.log_end_offset)
            return 0;
        /* An ISR change still in flight (a retried AlterPartition) may
         * yet land: not settled. */
        lr_npart *np = s->node[mp->leader] ? lr_node_part(s->node[mp->leader], LR_SIM_TOPIC, p) : NULL;
        lr_part_status st;
        if (!np)
            return 0;
        lr_partition_status(np->rep, &st);
        if (st.alter_in_flight)
            return 0;
        for (int32_t i = 0; i < mp->n_replicas; i++) {
            logrep_sim_replica v;
            if (logrep_sim_replica_view(s, mp->replicas[i], p, &v) != LOGREP_OK ||
                v.log_end_offset != lv.log_end_offset || v.high_watermark != v.log_end_offset)
                return 0;
        }
    }
    return 1;
}

/* Reads every partition from the leader, start to HW (checked reads). */
static int tail_read(logrep_sim *s)
{
    for (int32_t p = 0; p < s->conf.partitions; p++) {
        logrep_sim_part v;
        if (logrep_sim_controller_view(s, p, &v) != LOGREP_OK || v.leader < 0) {
            lr_sim_fail(s, "I15: partition %d has no leader after the heal", p);
            return -1;
        }
        logrep_sim_replica r;
        if (logrep_sim_replica_view(s, v.leader, p, &r) != LOGREP_OK) {
            lr_sim_fail(s, "I15: partition %d: leader %d not running", p, v.leader);
            return -1;
        }
        int64_t off = r.log_start_offset;
        while (off < r.high_watermark) {
            int32_t n = 0;
            int64_t hw;
            logrep_err e = logrep_sim_fetch(s, v.leader, p, off, NULL, 2000, &n, &hw);
            if (s->failed)
                return -1;
            if (e != LOGREP_OK || n <= 0) {
                lr_sim_fail(s, "I15: tail read of partition %d at %lld from leader %d: %s, %d records", p,
                            (long long)off, v.leader, e ? logrep_err_name(e) : "NONE", n);
                return -1;
            }
            off += n;
        }
    }
    return 0;
}

LOGREP_API logrep_err logrep_sim_heal(logrep_sim *s, int64_t max_ms)
{
    if (!s)
        return LOGREP_ERR__INVALID_ARG;
    if (s->failed)
        return LOGREP_ERR__CORRUPT;
    lr_sim_trace(s, "heal: stopping producers, restoring the network, restarting nodes");
    for (size_t i = 0; i < s->nactors; i++)
        if (s->actors[i].kind == ACT_PRODUCER)
            s->actors[i].stopping = 1;
    logrep_sim_heal_network(s);
    for (int32_t id = 1; id <= s->nn; id++) {
        if (s->st[id])
            logrep_storage_crash_inject(s->st[id], LOGREP_STORAGE_OP_ALL, 0, LOGREP_ERR__IO, 0);
        /* A log that failed on a disk error stays failed until the broker
         * restarts (Kafka takes the log directory offline): the operator
         * restarts brokers that saw disk errors. */
        if (s->node[id] && s->disk_faulted[id]) {
            lr_sim_trace(s, "heal: restarting node %d after its disk errors", id);
            logrep_sim_kill(s, id, LOGREP_SIM_CRASH_PROCESS);
        }
        s->disk_faulted[id] = 0;
        if (!s->node[id] && logrep_sim_restart(s, id) != LOGREP_OK) {
            lr_sim_fail(s, "I15: node %d does not restart", id);
            return LOGREP_ERR__CORRUPT;
        }
    }
    int64_t t = 0;
    for (; t < max_ms && !converged(s); t += 100)
        if (logrep_sim_run(s, 100) != LOGREP_OK)
            return LOGREP_ERR__CORRUPT;
    lr_sim_trace(s, "heal: %s after %lld ms", converged(s) ? "converged" : "NOT converged",
                 (long long)t);
    for (size_t i = 0; i < s->nactors; i++) {
        lr_sim_actor *a = &s->actors[i];
        if (a->kind == ACT_PRODUCER && a->state != AS_DONE) {
            lr_sim_fail(s, "I15: producer %d still has an unanswered batch after the heal", a->idx);
            return LOGREP_ERR__CORRUPT;
        }
    }
    if (tail_read(s) != 0 || lr_sim_check_liveness(s) != 0)
        return LOGREP_ERR__CORRUPT;
    /* G15: consumer groups settle too (sessions and rebalances take
     * seconds). */
    char why[160] = "";
    int64_t g = 0;
    for (; g < max_ms && !lr_sim_gm_settled(s, why, sizeof why); g += 100)
        if (logrep_sim_run(s, 100) != LOGREP_OK)
            return LOGREP_ERR__CORRUPT;
    if (!lr_sim_gm_settled(s, why, sizeof why)) {
        lr_sim_fail(s, "G15: groups did not settle %lld ms after the heal: %s", (long long)g, why);
        return LOGREP_ERR__CORRUPT;
    }
    return LOGREP_OK;
}

static int32_t pick(logrep_sim *s, int32_t lo, int32_t hi)
{
    return lo + (int32_t)lr_sim_rand(s, (uint64_t)(hi - lo + 1));
}

/* Every node, the controllers included, dies at once (process crash or
 * power loss; a controller's disk is never replaced: with one controller
 * its metadata log is the cluster's only copy, and a quorum cannot lose
 * every voter's), stays down a while, then all start again in a random
 * order. Liveness after the heal proves the cluster comes back. */
static void whole_cluster_restart(logrep_sim *s, int32_t *down)
{
    lr_sim_trace(s, "fault: whole-cluster outage");
    for (int32_t id = 1; id <= s->nn; id++) {
        if (!s->node[id])
            continue;
        uint64_t m = lr_sim_rand(s, id > s->nb ? 3 : 4);
        logrep_sim_kill(s, id, m == 0 ? LOGREP_SIM_CRASH_PROCESS
                             : m == 1 ? LOGREP_SIM_CRASH_POWER
                             : m == 2 ? LOGREP_SIM_CRASH_POWER_DROP
                                      : LOGREP_SIM_CRASH_PROCESS);
    }
    if (logrep_sim_run(s, pick(s, 0, 2000)) != LOGREP_OK)
        return;
    int32_t order[LR_SIM_MAXN + 1];
    for (int32_t i = 0; i < s->nn; i++)
        order[i] = i + 1;
    for (int32_t i = s->nn - 1; i > 0; i--) {
        int32_t j = (int32_t)lr_sim_rand(s, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int32_t i = 0; i < s->nn && !s->failed; i++) {
        logrep_sim_restart(s, order[i]);
        if (logrep_sim_run(s, pick(s, 0, 300)) != LOGREP_OK)
            return;
    }
    *down = 0;
}

/* Voters down, and whether one of them lost its disk and has not been
 * trusted again yet (down, or up and abstaining). */
static int32_t voters_down(logrep_sim *s, int *lost)
{
    int32_t n = 0;
    *lost = 0;
    for (int32_t id = s->nb + 1; id <= s->nn; id++) {
        logrep_sim_voter v;
        logrep_sim_voter_view(s, id, &v);
        n += !v.up;
        if ((!v.up && s->voter_lost[id]) || (v.up && v.abstaining))
            *lost = 1;
        if (v.up && !v.abstaining)
            s->voter_lost[id] = 0;
    }
    return n;
}

/* A fault on the controller quorum (quorum runs only): kills (process,
 * power, disk lost), restarts, the active controller killed, a voter cut
 * from the other voters (a zombie controller: brokers still reach it),
 * isolated, paused, its clock jumped. Two voters may be down at once (the
 * quorum then stops until one returns); a disk is lost only while every
 * other voter holds its state, since two voters without theirs leave no
 * majority that can elect a leader (docs/quorum.md, "Disk loss"). */
static void controller_fault(logrep_sim *s)
{
    int32_t v = pick(s, s->nb + 1, s->nn);
    uint64_t r = lr_sim_rand(s, 100);
    int lost;
    int32_t vdown = voters_down(s, &lost);
    if (r < 30) {
        if (r < 8) {
            int32_t a = logrep_sim_active_controller(s);
            if (a > 0)
                v = a;
        }
        if (!s->node[v] || vdown >= 2)
            return;
        uint64_t m = lr_sim_rand(s, 10);
        int mode = m < 4 ? LOGREP_SIM_CRASH_PROCESS
                 : m < 6 ? LOGREP_SIM_CRASH_POWER
                 : m < 8 ? LOGREP_SIM_CRASH_POWER_DROP
                         : LOGREP_SIM_CRASH_DISK;
        if (mode == LOGREP_SIM_CRASH_DISK && lost)
            mode = LOGREP_SIM_CRASH_POWER;
        logrep_sim_kill(s, v, mode);
        if (mode == LOGREP_SIM_CRASH_DISK)
            s->voter_lost[v] = 1;
    } else if (r < 55) {
        for (int32_t i = s->nb + 1; i <= s->nn; i++)
            if (!s->node[i]) {
                logrep_sim_restart(s, i);
                break;
            }
    } else if (r < 67) {
        lr_sim_trace(s, "fault: controller %d cut from the other voters", v);
        for (int32_t o = s->nb + 1; o <= s->nn; o++)
            if (o != v)
                logrep_sim_partition(s, v, o, 1);
    } else if (r < 72) {
        logrep_sim_isolate(s, v, 1);
    } else if (r < 84) {
        logrep_sim_pause(s, v, pick(s, 50, 2000));
    } else if (r < 91) {
        logrep_sim_clock_jump(s, v, pick(s, 100, 3000));
    } else {
        memset(s->block, 0, sizeof s->block);
        lr_sim_trace(s, "fault: network partitions healed");
    }
}

/* One fault (or a repair) chosen by the seed. */
static void random_fault(logrep_sim *s, int32_t *down)
{
    /* A quorum run puts one fault in four on the controllers; the draw
     * is made only then, so one-controller seeds keep their schedules. */
    if (s->nc > 1 && lr_sim_rand(s, 4) == 0) {
        controller_fault(s);
        return;
    }
    int32_t b = pick(s, 1, s->nb);
    uint64_t r = lr_sim_rand(s, 100);
    if (r < 14) {
        if (s->node[b] && *down < s->nb - 1) {
            uint64_t m = lr_sim_rand(s, 12);
            if (m >= 10) {
                logrep_sim_shutdown(s, b, 3000);
                (*down)++;
                return;
            }
            int mode = m < 4 ? LOGREP_SIM_CRASH_PROCESS
                     : m < 7 ? LOGREP_SIM_CRASH_POWER
                     : m < 9 ? LOGREP_SIM_CRASH_POWER_DROP
                             : LOGREP_SIM_CRASH_DISK;
            logrep_sim_kill(s, b, mode);
            (*down)++;
        }
    } else if (r < 34) {
        for (int32_t i = 1; i <= s->nb; i++)
            if (!s->node[i]) {
                logrep_sim_restart(s, i);
                (*down)--;
                break;
            }
    } else if (r < 44) {
        int32_t o = pick(s, 1, s->nn);
        if (o != b)
            logrep_sim_partition(s, b, o, 1);
    } else if (r < 49) {
        logrep_sim_isolate(s, b, 1);
    } else if (r < 55) {
        int32_t o = pick(s, 1, s->nn);
        if (o != b)
            logrep_sim_block(s, b, o, 1);
    } else if (r < 70) {
        memset(s->block, 0, sizeof s->block);
        lr_sim_trace(s, "fault: network partitions healed");
    } else if (r < 76) {
        logrep_sim_pause(s, b, pick(s, 50, 2000));
    } else if (r < 81) {
        logrep_sim_clock_jump(s, b, pick(s, 100, 3000));
    } else if (r < 86) {
        if (s->node[b])
            logrep_sim_disk_fault(s, b, lr_sim_rand(s, 2) ? LOGREP_ERR__IO : LOGREP_ERR__NOSPACE,
                                  (uint64_t)pick(s, 1, 30), 0);
    } else if (r < 90) {
        logrep_sim_link(s, b, -1, pick(s, 0, 5), pick(s, 5, 60), (int32_t)lr_sim_rand(s, 30000));
    } else if (r < 93) {
        logrep_sim_client_block(s, b, !s->client_block[b]);
    } else if (r < 94) {
        whole_cluster_restart(s, down);
    }
    /* else: quiet period */
}

/* Consumer groups: 1-2 groups of 2-4 members; some join late, some die
 * (their sessions expire), some leave, and others come to replace them. */
static void group_workload(logrep_sim *s, int64_t ms)
{
    int32_t ng = pick(s, 1, 2);
    for (int32_t gi = 0; gi < ng; gi++) {
        int32_t nm = pick(s, 2, 4);
        for (int32_t m = 0; m < nm; m++) {
            int64_t start = s->now + (m < 2 ? pick(s, 1, 200) : pick(s, 1, (int32_t)(ms * 3 / 5)));
            lr_sim_actor *a = lr_sim_gm_new(s, gi, pick(s, 10, 60), start);
            if (!a)
                return;
            uint64_t fate = lr_sim_rand(s, 6);
            int64_t at = start + pick(s, 500, (int32_t)ms);
            if (fate == 0)
                a->gm->die_at = at;
            else if (fate == 1)
                a->gm->leave_at = at;
        }
    }
}

LOGREP_API int32_t logrep_sim_random_controllers(uint64_t seed)
{
    /* Its own stream: the shape's draws below stay those of the seed. */
    lr_prng q;
    lr_prng_seed(&q, seed ^ 0x9e3779b97f4a7c15ULL);
    return lr_prng_below(&q, 3) == 0 ? 3 : 1;
}

LOGREP_API logrep_err logrep_sim_random(uint64_t seed, const char *bug, int64_t ms,
                                        logrep_sim **out)
{
    return logrep_sim_random_ex(seed, bug, ms, 0, out);
}

LOGREP_API logrep_err logrep_sim_random_ex(uint64_t seed, const char *bug, int64_t ms,
                                           int32_t controllers, logrep_sim **out)
{
    if (out)
        *out = NULL;
    lr_prng g;
    lr_prng_seed(&g, seed ^ 0x5eed5eedULL);
    logrep_sim_conf c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    c.brokers = 3 + (int32_t)lr_prng_below(&g, 3);
    c.partitions = 1 + (int32_t)lr_prng_below(&g, 2);
    c.replication_factor = lr_prng_below(&g, 6) == 0 ? 2 : 3;
    c.min_isr = lr_prng_below(&g, 8) == 0 ? 1 : 2;
    c.unclean = lr_prng_below(&g, 10) == 0;
    c.bug = bug;
    /* A metadata snapshot every 0.5 to 4 KiB of records, by the seed and
     * not from the stream above, so the schedules stay as they were: runs
     * write, trim, load, install and serve many. */
    int64_t snapshot_bytes = 512 << (seed % 4);
    if (!controllers)
        controllers = logrep_sim_random_controllers(seed);
    logrep_sim *s;
    logrep_err e = lr_sim_new(&c, controllers, snapshot_bytes, &s);
    if (e != LOGREP_OK) {
        if (s && !s->failed)
            lr_sim_fail(s, "harness: the cluster did not form: %s", logrep_err_name(e));
        goto done;
    }
    logrep_sim_link(s, -1, -1, pick(s, 0, 2), pick(s, 2, 15),
                    lr_sim_rand(s, 3) == 0 ? (int32_t)lr_sim_rand(s, 20000) : 0);
    for (int32_t p = 0; p < c.partitions; p++) {
        logrep_sim_producer(s, p, -1, 1, pick(s, 5, 40), pick(s, 1, 4));
        if (lr_sim_rand(s, 2))
            logrep_sim_producer(s, p, -1, 1, pick(s, 5, 40), pick(s, 1, 4));
        if (lr_sim_rand(s, 3) == 0)
            logrep_sim_producer(s, p, lr_sim_rand(s, 2) ? 1 : 0, 0, pick(s, 10, 50), pick(s, 1, 3));
        if (lr_sim_rand(s, 3) == 0)
            logrep_sim_producer(s, p, -1, 0, pick(s, 10, 50), pick(s, 1, 3));
        logrep_sim_consumer(s, p, pick(s, 10, 60));
    }
    /* A third of the seeds run consumer groups (drawn from the shape's
     * PRNG: the other seeds run as they did before groups). */
    if (lr_prng_below(&g, 3) == 0)
        group_workload(s, ms);
    int32_t down = 0;
    int64_t end = s->now + ms;
    while (s->now < end && !s->failed) {
        if (logrep_sim_run(s, pick(s, 100, 500)) != LOGREP_OK)
            break;
        random_fault(s, &down);
    }
    if (!s->failed)
        logrep_sim_heal(s, 20000);
    e = s->failed ? LOGREP_ERR__CORRUPT : LOGREP_OK;
done:
    if (out && e != LOGREP_OK)
        *out = s;
    else
        logrep_sim_free(s);
    return e;
}
