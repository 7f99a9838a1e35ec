/* The consumer groups' checker (docs/simulator.md, Consumer groups).
 *
 * Ghost state per (group, partition): every commit sent (offset, when
 * sent, when its acknowledgement reached the client), and the prefix of
 * the partition the group's members read. Per group and generation: the
 * owner of each partition as the SyncGroup answers arrive.
 *
 * G1: a successful OffsetFetch answers the offset of a commit that may be
 * the last in the offsets log: one sent before the answer and not
 * superseded, where a commit is superseded when another commit was sent
 * after its acknowledgement and acknowledged before the fetch was sent
 * (then both are in the log, in that order). Lower offsets committed later
 * (a member resuming from an older offset) are such commits.
 * G2: a resume offset never passes the prefix the group read, so a member
 * resuming never skips a record.
 * G3: at most one owner per partition within a generation (generations
 * start over once the group is seen Empty or deleted on its coordinator).
 * G4: once a commit is acknowledged, OffsetFetch answers "none" only
 * after offsets.retention.minutes (the nodes' default is longer than any
 * run).
 *
 * An OffsetFetch answered by a node that no longer leads the offsets
 * partition (a zombie coordinator that has not heard yet) is not held to
 * G1/G4: Kafka's coordinator, too, answers from its memory until it learns.
 *
 * The offsets partitions are replicated like any: faults beyond the loss
 * budget (more lossy failures among a partition's replicas than min ISR -
 * 1, an unclean election) may lose commits. The commits of that
 * partition's groups are then no longer held acknowledged (logged). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/metadata.h"
#include "group/group.h"
#include "group/records.h"
#include "node/node_int.h"
#include "sim/sim_int.h"

#define NOT_ACKED INT64_MAX

typedef struct gck_commit {
    int64_t offset, sent, acked;
} gck_commit;

typedef struct gck_gp {
    gck_commit *c;
    size_t n, cap;
    int64_t covered; /* the group read [0, covered) */
} gck_gp;

typedef struct gck_gen {
    int32_t gen;
    char owner[LR_SIM_MAXP][LR_SIM_GM_IDLEN];
} gck_gen;

typedef struct gck_group {
    gck_gp gp[LR_SIM_MAXP];
    gck_gen *gens;
    size_t ngens, capgens;
} gck_group;

typedef struct gck_opart {
    int lossy[LR_SIM_MAXN + 1]; /* 1 lossy, 2 seen out of the ISR */
    uint32_t gen;               /* loss generation */
    int32_t last_leader_epoch;
} gck_opart;

struct lr_sim_gck {
    gck_group g[LR_SIM_MAXG];
    gck_opart op[LR_SIM_OFFSETS_PARTS];
    int64_t sampled; /* when the coordinators' groups were last looked at */
};

int32_t lr_sim_gck_opart(const char *group_id)
{
    return lr_gr_partition_for((const uint8_t *)group_id, strlen(group_id), LR_SIM_OFFSETS_PARTS);
}

static int32_t opart_of(int32_t group)
{
    char id[16];
    snprintf(id, sizeof id, "g%d", group);
    return lr_sim_gck_opart(id);
}

static struct lr_sim_gck *get(logrep_sim *s)
{
    if (!s->gck) {
        s->gck = calloc(1, sizeof *s->gck);
        if (!s->gck) {
            lr_sim_fail(s, "harness: out of memory for the group checker");
            return NULL;
        }
        for (int32_t o = 0; o < LR_SIM_OFFSETS_PARTS; o++)
            s->gck->op[o].last_leader_epoch = -1;
    }
    return s->gck;
}

int lr_sim_gck_init(logrep_sim *s)
{
    return get(s) ? 0 : -1;
}

static gck_gp *gp_of(logrep_sim *s, int32_t group, int32_t part)
{
    struct lr_sim_gck *k = get(s);
    if (!k || group < 0 || group >= LR_SIM_MAXG || part < 0 || part >= LR_SIM_MAXP)
        return NULL;
    return &k->g[group].gp[part];
}

/* ------------------------------------------------------------ loss */

static int contains(const int32_t *ids, int32_t n, int32_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* Offsets partition o may have lost records: its groups' commits are no
 * longer held acknowledged, and generations may be handed out again. */
static void sanction(logrep_sim *s, int32_t o, const char *why)
{
    struct lr_sim_gck *k = s->gck;
    k->op[o].gen++;
    lr_sim_trace(s, "checker: offsets partition %d enters loss generation %u: %s", o, k->op[o].gen, why);
    for (int32_t g = 0; g < LR_SIM_MAXG; g++) {
        if (opart_of(g) != o)
            continue;
        for (int32_t p = 0; p < LR_SIM_MAXP; p++) {
            gck_gp *gp = &k->g[g].gp[p];
            for (size_t i = 0; i < gp->n; i++)
                gp->c[i].acked = NOT_ACKED;
        }
        k->g[g].ngens = 0;
    }
}

void lr_sim_gck_lossy(logrep_sim *s, int32_t id)
{
    if (!s->gck)
        return;
    for (int32_t o = 0; o < LR_SIM_OFFSETS_PARTS; o++) {
        const lr_md_partition *mp = lr_sim_ctl_part_of(s, LR_SIM_OFFSETS_TOPIC, o);
        if (!mp || !contains(mp->replicas, mp->n_replicas, id))
            continue;
        gck_opart *op = &s->gck->op[o];
        int was = op->lossy[id] != 0;
        op->lossy[id] = 1;
        int32_t n = 0;
        for (int32_t i = 1; i <= s->nb; i++)
            n += op->lossy[i] != 0;
        if (!was && n > s->conf.min_isr - 1) {
            char why[96];
            snprintf(why, sizeof why, "%d lossy failures among its replicas exceed the budget of %d", n,
                     s->conf.min_isr - 1);
            sanction(s, o, why);
        }
    }
}

void lr_sim_gck_unclean(logrep_sim *s)
{
    if (!s->gck)
        return;
    for (int32_t o = 0; o < LR_SIM_OFFSETS_PARTS; o++)
        sanction(s, o, "unclean election");
}

static void note_state(void *ctx, const lr_gc_group_info *gi)
{
    ((int *)ctx)[0] = gi->state;
    ((int *)ctx)[1] = gi->generation;
}

/* A group that became Empty (or was deleted: Kafka deletes an Empty group
 * without offsets at its retention check, and a new one starts its
 * generations again) ends the generations G3 compares. A group at
 * generation 0 is a new one: its node may have deleted the old one and
 * taken a join for the new one in one step (a paused node resuming with
 * the sessions expired and a JoinGroup queued), between two samples. */
static void sample_groups(logrep_sim *s)
{
    struct lr_sim_gck *k = s->gck;
    if (k->sampled == s->now)
        return;
    k->sampled = s->now;
    for (int32_t g = 0; g < LR_SIM_MAXG; g++) {
        if (!k->g[g].ngens)
            continue;
        const lr_md_partition *mp = lr_sim_ctl_part_of(s, LR_SIM_OFFSETS_TOPIC, opart_of(g));
        logrep_node *n = mp && mp->leader >= 1 && mp->leader <= s->nb ? s->node[mp->leader] : NULL;
        int seen[2] = {-1, -1};
        char id[16];
        snprintf(id, sizeof id, "g%d", g);
        if (!n || !n->groups.gc || lr_gc_describe(n->groups.gc, id, note_state, seen) != 0)
            continue;
        int state = seen[0];
        if (state == LR_GC_EMPTY || state == LR_GC_DEAD || seen[1] == 0) {
            lr_sim_trace(s, "checker: g%d is %s at generation %d on its coordinator %d: its generations start over",
                         g, lr_gc_state_name(state), seen[1], mp->leader);
            k->g[g].ngens = 0;
        }
    }
}

void lr_sim_gck_step(logrep_sim *s)
{
    sample_groups(s);
    for (int32_t o = 0; o < LR_SIM_OFFSETS_PARTS; o++) {
        const lr_md_partition *mp = lr_sim_ctl_part_of(s, LR_SIM_OFFSETS_TOPIC, o);
        if (!mp)
            continue;
        gck_opart *op = &s->gck->op[o];
        /* Kafka's unclean recovery with the last leader, as for the topic. */
        if (mp->leader_epoch > op->last_leader_epoch && mp->leader >= 0 &&
            mp->lrs == LR_MD_RECOVERING && op->lossy[mp->leader]) {
            char why[96];
            snprintf(why, sizeof why, "last-known-leader election of node %d, which lost data",
                     mp->leader);
            sanction(s, o, why);
        }
        op->last_leader_epoch = mp->leader_epoch;
        for (int32_t id = 1; id <= s->nb; id++) {
            int in = contains(mp->isr, mp->n_isr, id);
            if (op->lossy[id] == 1 && !in)
                op->lossy[id] = 2;
            else if (op->lossy[id] == 2 && in && lr_sim_registered_now(s, id))
                op->lossy[id] = 0;
        }
    }
}

/* ------------------------------------------------------------ commits */

int64_t lr_sim_gck_commit_sent(logrep_sim *s, int32_t group, int32_t part, int64_t offset)
{
    gck_gp *gp = gp_of(s, group, part);
    if (!gp)
        return -1;
    if (gp->n == gp->cap) {
        size_t ncap = gp->cap ? gp->cap * 2 : 32;
        gck_commit *nc = realloc(gp->c, ncap * sizeof *nc);
        if (!nc) {
            lr_sim_fail(s, "harness: out of memory for the group checker");
            return -1;
        }
        gp->c = nc;
        gp->cap = ncap;
    }
    gp->c[gp->n] = (gck_commit){offset, s->now, NOT_ACKED};
    uint32_t gen = s->gck->op[opart_of(group)].gen;
    return (int64_t)((uint64_t)gen << 32 | gp->n++);
}

void lr_sim_gck_commit_acked(logrep_sim *s, int32_t group, int32_t part, int64_t h)
{
    gck_gp *gp = gp_of(s, group, part);
    if (!gp || h < 0)
        return;
    uint32_t gen = (uint32_t)((uint64_t)h >> 32);
    size_t i = (size_t)((uint64_t)h & 0xffffffffu);
    /* Acknowledged by a coordinator whose partition has since lost
     * records beyond the budget: not held. */
    if (gen != s->gck->op[opart_of(group)].gen || i >= gp->n)
        return;
    gp->c[i].acked = s->now;
}

int64_t lr_sim_gck_max_acked(logrep_sim *s, int32_t group, int32_t part)
{
    gck_gp *gp = s->gck ? gp_of(s, group, part) : NULL;
    int64_t m = -1;
    for (size_t i = 0; gp && i < gp->n; i++)
        if (gp->c[i].acked != NOT_ACKED && gp->c[i].offset > m)
            m = gp->c[i].offset;
    return m;
}

/* d was acknowledged before some commit acknowledged by t was sent. */
static int superseded(const gck_gp *gp, const gck_commit *d, int64_t t)
{
    if (d->acked == NOT_ACKED)
        return 0;
    for (size_t i = 0; i < gp->n; i++)
        if (gp->c[i].acked <= t && d->acked < gp->c[i].sent)
            return 1;
    return 0;
}

void lr_sim_gck_offset_fetched(logrep_sim *s, int32_t group, int32_t part, int64_t f,
                               int64_t sent_at, int32_t actor, int32_t node)
{
    gck_gp *gp = gp_of(s, group, part);
    if (!gp)
        return;
    if (f > gp->covered) {
        lr_sim_fail(s, "G2: g%d resumes partition %d at %lld, past the %lld records its members read",
                    group, part, (long long)f, (long long)gp->covered);
        return;
    }
    /* A node that no longer leads the offsets partition (it has not heard
     * yet) answers from what it had, as Kafka's coordinator does: stale,
     * not lost. */
    const lr_md_partition *mp = lr_sim_ctl_part_of(s, LR_SIM_OFFSETS_TOPIC, opart_of(group));
    if (!mp || mp->leader != node) {
        lr_sim_trace(s, "checker: OffsetFetch of g%d answered by node %d, not the leader (%d) of "
                        "offsets partition %d: not held to G1/G4",
                     group, node, mp ? mp->leader : -1, opart_of(group));
        return;
    }
    /* The latest-sent commit acknowledged before the fetch was sent. */
    const gck_commit *last = NULL;
    for (size_t i = 0; i < gp->n; i++)
        if (gp->c[i].acked <= sent_at && (!last || gp->c[i].sent > last->sent))
            last = &gp->c[i];
    int ok = 0;
    if (f < 0) {
        /* Expiry comes offsets.retention.minutes after the group's last
         * commit at the earliest, on the fastest node clock. */
        int64_t ret = (int64_t)(s->conf.offsets_retention_minutes > 0 ? s->conf.offsets_retention_minutes
                                                                      : 10080) * 60000;
        int64_t skew = 0;
        for (int32_t id = 1; id <= s->nb; id++)
            skew = s->skew[id] > skew ? s->skew[id] : skew;
        const gck_commit *latest = NULL;
        for (size_t i = 0; i < gp->n; i++)
            if (!latest || gp->c[i].sent > latest->sent)
                latest = &gp->c[i];
        if (last && s->now + skew - latest->sent < ret) {
            lr_sim_fail(s, "G4: OffsetFetch of g%d partition %d (client %d, sent at %lld) answered no "
                           "offset after the commit of %lld acknowledged at %lld",
                        group, part, actor, (long long)sent_at, (long long)last->offset,
                        (long long)last->acked);
            return;
        }
        ok = 1;
    }
    for (size_t i = 0; !ok && i < gp->n; i++)
        ok = gp->c[i].offset == f && gp->c[i].sent <= s->now && !superseded(gp, &gp->c[i], sent_at);
    if (!ok) {
        if (last)
            lr_sim_fail(s, "G1: OffsetFetch of g%d partition %d (client %d, sent at %lld) answered %lld: "
                           "no commit of it can be the last; the commit of %lld acknowledged at %lld "
                           "is lost",
                        group, part, actor, (long long)sent_at, (long long)f, (long long)last->offset,
                        (long long)last->acked);
        else
            lr_sim_fail(s, "G1: OffsetFetch of g%d partition %d (client %d) answered %lld, never committed",
                        group, part, actor, (long long)f);
        return;
    }
}

void lr_sim_gck_consumed(logrep_sim *s, int32_t group, int32_t part, int64_t from, int64_t to)
{
    gck_gp *gp = gp_of(s, group, part);
    if (gp && from <= gp->covered && to > gp->covered)
        gp->covered = to;
}

/* ------------------------------------------------------------ assignments */

void lr_sim_gck_assigned(logrep_sim *s, int32_t group, int32_t generation, const char *member,
                         const int32_t *parts, int32_t n)
{
    struct lr_sim_gck *k = get(s);
    if (!k || group < 0 || group >= LR_SIM_MAXG)
        return;
    gck_group *g = &k->g[group];
    gck_gen *e = NULL;
    for (size_t i = 0; i < g->ngens && !e; i++)
        if (g->gens[i].gen == generation)
            e = &g->gens[i];
    if (!e) {
        if (g->ngens == g->capgens) {
            size_t ncap = g->capgens ? g->capgens * 2 : 8;
            gck_gen *ng = realloc(g->gens, ncap * sizeof *ng);
            if (!ng) {
                lr_sim_fail(s, "harness: out of memory for the group checker");
                return;
            }
            g->gens = ng;
            g->capgens = ncap;
        }
        e = &g->gens[g->ngens++];
        memset(e, 0, sizeof *e);
        e->gen = generation;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t p = parts[i];
        if (p < 0 || p >= LR_SIM_MAXP)
            continue;
        if (e->owner[p][0] && strcmp(e->owner[p], member)) {
            lr_sim_fail(s, "G3: g%d generation %d assigns partition %d to %s and to %s", group,
                        generation, p, e->owner[p], member);
            return;
        }
        snprintf(e->owner[p], LR_SIM_GM_IDLEN, "%s", member);
    }
}

void lr_sim_gck_free(logrep_sim *s)
{
    if (!s->gck)
        return;
    for (int32_t g = 0; g < LR_SIM_MAXG; g++) {
        for (int32_t p = 0; p < LR_SIM_MAXP; p++)
            free(s->gck->g[g].gp[p].c);
        free(s->gck->g[g].gens);
    }
    free(s->gck);
    s->gck = NULL;
}
