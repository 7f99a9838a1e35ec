/* The controller: topics, AlterPartition, elections, producer ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "controller/ctl_int.h"
#include "controller/topic_config.h"

/* ------------------------------------------------------------------------
 * Topics
 * ---------------------------------------------------------------------- */

/* Kafka's Topic.hasCollision: equal once '.' is read as '_'. */
/* value NULL: a delete, always fine for a known name. */
static int config_value_ok(const char *name, const char *value)
{
    if (!value)
        return lr_topic_config_find(name) != NULL;
    return lr_ctli_str_len_ok(value, 1) && lr_topic_config_check(name, value, NULL, 0) == 0;
}

typedef struct placer {
    int32_t *ids;  /* active brokers, interleaved rack by rack */
    const char **racks;
    size_t n, n_racks;
} placer;

static int cmp_rack_then_id(const lr_md_broker *x, const lr_md_broker *y)
{
    int c = strcmp(x->rack ? x->rack : "", y->rack ? y->rack : "");
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void placer_free(lr_ctl *ctl, placer *pl, size_t nb)
{
    lr_free(&ctl->alloc, pl->ids, (nb ? nb : 1) * sizeof *pl->ids);
    lr_free(&ctl->alloc, pl->racks, (nb ? nb : 1) * sizeof *pl->racks);
    pl->ids = NULL;
    pl->racks = NULL;
}

/* Orders active brokers: sort by (rack, id), then deal them out one rack at
 * a time so neighbours in the list sit in different racks. */
static int placer_init(lr_ctl *ctl, placer *pl)
{
    const lr_md_image *img = ctl->img;
    size_t nb = lr_md_broker_count(img), n = 0;
    memset(pl, 0, sizeof *pl);
    const lr_md_broker **sorted = lr_calloc(&ctl->alloc, nb ? nb : 1, sizeof *sorted);
    pl->ids = lr_calloc(&ctl->alloc, nb ? nb : 1, sizeof *pl->ids);
    pl->racks = lr_calloc(&ctl->alloc, nb ? nb : 1, sizeof *pl->racks);
    if (!sorted || !pl->ids || !pl->racks) {
        lr_free(&ctl->alloc, sorted, (nb ? nb : 1) * sizeof *sorted);
        placer_free(ctl, pl, nb);
        return LOGREP_ERR__NOMEM;
    }
    for (size_t i = 0; i < nb; i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        if (!b->fenced && !b->in_controlled_shutdown)
            sorted[n++] = b;
    }
    /* insertion sort by (rack, id): broker counts are small */
    for (size_t i = 1; i < n; i++) {
        const lr_md_broker *x = sorted[i];
        size_t j = i;
        while (j > 0 && cmp_rack_then_id(sorted[j - 1], x) > 0) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = x;
    }
    /* rack groups: start index of each */
    size_t *start = lr_calloc(&ctl->alloc, n + 1, sizeof *start);
    if (!start) {
        lr_free(&ctl->alloc, sorted, (nb ? nb : 1) * sizeof *sorted);
        placer_free(ctl, pl, nb);
        return LOGREP_ERR__NOMEM;
    }
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = sorted[i]->rack ? sorted[i]->rack : "";
        if (i == 0 || strcmp(r, pl->racks[g - 1]) != 0) {
            pl->racks[g] = r;
            start[g++] = i;
        }
    }
    start[g] = n;
    pl->n_racks = g;
    for (size_t round = 0, k = 0; k < n; round++)
        for (size_t r = 0; r < g; r++)
            if (start[r] + round < start[r + 1])
                pl->ids[k++] = sorted[start[r] + round]->id;
    pl->n = n;
    lr_free(&ctl->alloc, start, (n + 1) * sizeof *start);
    lr_free(&ctl->alloc, sorted, (nb ? nb : 1) * sizeof *sorted);
    return 0;
}


static const char *rack_of(const lr_md_image *img, int32_t id)
{
    const lr_md_broker *b = lr_md_broker_get(img, id);
    return b && b->rack ? b->rack : "";
}

/* Replicas of partition p: out[0..rf). Classic rack-aware round robin:
 * first replica at (start + p) % n, followers at growing shifts, skipping
 * brokers already used and racks already used until every rack has one. */
static void place(const lr_md_image *img, const placer *pl, int32_t p, int32_t rf, size_t start,
                  size_t shift, int32_t *out, const char **used_racks)
{
    size_t n = pl->n;
    size_t first = (start + (size_t)p) % n;
    size_t nracks_used = 0;
    out[0] = pl->ids[first];
    used_racks[nracks_used++] = rack_of(img, out[0]);
    int32_t got = 1;
    for (size_t k = 0; got < rf; k++) {
        size_t off = 1 + (shift + k) % (n - 1);
        int32_t cand = pl->ids[(first + off) % n];
        const char *rack = rack_of(img, cand);
        int rack_seen = 0;
        for (size_t i = 0; i < nracks_used; i++)
            rack_seen |= strcmp(used_racks[i], rack) == 0;
        if (lr_md_ids_contains(out, (size_t)got, cand))
            continue;
        /* after a full lap without progress, any unused broker will do */
        if (rack_seen && nracks_used < pl->n_racks && k < 2 * n)
            continue;
        out[got++] = cand;
        if (!rack_seen)
            used_racks[nracks_used++] = rack;
    }
}

static void new_topic_id(lr_ctl *ctl, uint8_t id[16])
{
    for (;;) {
        /* The PRNG restarts from the same seed on every start and replay
         * does not advance it; the log offset the record will take never
         * repeats, so folding it in keeps a deleted topic's id from coming
         * back after a restart. */
        uint64_t off = (uint64_t)lr_md_next_offset(ctl->img);
        uint64_t a = lr_prng_next(&ctl->prng) ^ lr_prng_mix(off);
        uint64_t b = lr_prng_next(&ctl->prng) ^ lr_prng_mix(~off);
        for (int i = 0; i < 8; i++) {
            id[i] = (uint8_t)(a >> (56 - 8 * i));
            id[8 + i] = (uint8_t)(b >> (56 - 8 * i));
        }
        /* Kafka's Uuid.randomUuid: never zero, never starting with '-' in
         * base64 (first 6 bits = 62). */
        if ((a | b) && (id[0] >> 2) != 62 && !lr_md_topic_by_id(ctl->img, id))
            return;
    }
}

static int why_set(char *why, size_t cap, int err, const char *msg)
{
    if (cap && why && !why[0])
        snprintf(why, cap, "%s", msg);
    return err;
}

static size_t active_brokers(const lr_md_image *img)
{
    size_t n = 0;
    for (size_t i = 0; i < lr_md_broker_count(img); i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        n += !b->fenced && !b->in_controlled_shutdown;
    }
    return n;
}

/* Kafka's checks of a manual assignment, in its order. */
static int check_assignment(const lr_ctl *ctl, const lr_ctl_create_topic_req *req, char *why,
                            size_t cap)
{
    const int err = LOGREP_ERR_INVALID_REPLICA_ASSIGNMENT;
    if (req->replication_factor != -1)
        return why_set(why, cap, LOGREP_ERR_INVALID_REQUEST,
                       "A manual partition assignment was given with a replication factor other than -1");
    if (req->num_partitions != -1)
        return why_set(why, cap, LOGREP_ERR_INVALID_REQUEST,
                       "A manual partition assignment was given with a partition count other than -1");
    if (req->n_assignments > LR_MD_MAX_PARTITIONS)
        return why_set(why, cap, LOGREP_ERR_INVALID_PARTITIONS, "Too many partitions");
    for (size_t i = 0; i < req->n_assignments; i++) {
        const lr_ctl_assignment *a = &req->assignments[i];
        if (a->n_brokers == 0)
            return why_set(why, cap, err, "The manual partition assignment includes an empty replica list");
        if (a->n_brokers != req->assignments[0].n_brokers)
            return why_set(why, cap, err, "The manual partition assignment has partitions with different replica counts");
        if (a->n_brokers > LR_MD_MAX_REPLICAS || !a->brokers)
            return why_set(why, cap, LOGREP_ERR_INVALID_REPLICATION_FACTOR, "Too many replicas");
        int active = 0;
        for (size_t k = 0; k < a->n_brokers; k++) {
            const lr_md_broker *b = lr_md_broker_get(ctl->img, a->brokers[k]);
            if (!b)
                return why_set(why, cap, err, "The manual partition assignment names a broker that is not registered");
            if (lr_md_ids_contains(a->brokers, k, a->brokers[k]))
                return why_set(why, cap, err, "The manual partition assignment names a broker more than once");
            active |= !b->fenced && !b->in_controlled_shutdown;
        }
        if (a->partition != (int32_t)i)
            return why_set(why, cap, err, "The manual partition assignment is not the sequence 0, 1, 2, ...");
        if (!active)
            return why_set(why, cap, err, "Every broker of a manually assigned partition is fenced or shutting down");
    }
    return 0;
}

int lr_ctli_topic_name_check(const char *name, char *why, size_t cap)
{
    size_t nlen = strlen(name);
    if (nlen == 0)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it can't be empty");
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name cannot be \".\" or \"..\"");
    if (nlen > LR_MD_MAX_TOPIC_NAME)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it can't be longer than 249 characters");
    if (!lr_md_topic_name_legal(lr_ctli_mkstr(name)))
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it contains a character other than ASCII "
                       "alphanumerics, '.', '_' and '-'");
    return 0;
}

int lr_ctl_check_topic(const lr_ctl *ctl, const lr_ctl_create_topic_req *req, int32_t *np_out,
                       int32_t *rf_out, char *why, size_t cap)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (cap && why)
        why[0] = 0;
    if (!ctl || !req || !req->name || (req->n_configs && !req->configs) ||
        (req->n_assignments && !req->assignments))
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_image *img = ctl->img;
    int nerr = lr_ctli_topic_name_check(req->name, why, cap);
    if (nerr)
        return nerr;
    if (strcmp(req->name, LR_MD_METADATA_TOPIC) == 0)
        return why_set(why, cap, LOGREP_ERR_INVALID_REQUEST,
                       "Creation of internal topic " LR_MD_METADATA_TOPIC " is prohibited.");
    if (lr_md_topic_by_name(img, req->name))
        return why_set(why, cap, LOGREP_ERR_TOPIC_ALREADY_EXISTS, "Topic already exists");
    const lr_md_topic *other = lr_md_topic_collision(img, req->name);
    if (other) {
        if (why && cap)
            snprintf(why, cap, "Topic '%s' collides with existing topic: %s", req->name, other->name);
        return LOGREP_ERR_INVALID_TOPIC_EXCEPTION;
    }
    for (size_t i = 0; i < req->n_configs; i++) {
        const char *name = req->configs[i].name, *value = req->configs[i].value;
        if (!name || !lr_ctli_str_len_ok(name, 0) || (value && !lr_ctli_str_len_ok(value, 1)) ||
            lr_topic_config_check(name, value, why, cap))
            return why_set(why, cap, LOGREP_ERR_INVALID_CONFIG, "Invalid topic config");
    }
    int32_t np, rf;
    if (req->n_assignments) {
        int err = check_assignment(ctl, req, why, cap);
        if (err)
            return err;
        np = (int32_t)req->n_assignments;
        rf = (int32_t)req->assignments[0].n_brokers;
    } else {
        np = req->num_partitions == -1 ? ctl->default_partitions : req->num_partitions;
        rf = req->replication_factor == -1 ? ctl->default_rf : req->replication_factor;
        if (np < 1 || np > LR_MD_MAX_PARTITIONS)
            return why_set(why, cap, LOGREP_ERR_INVALID_PARTITIONS, "Invalid number of partitions");
        if (rf < 1 || rf > LR_MD_MAX_REPLICAS)
            return why_set(why, cap, LOGREP_ERR_INVALID_REPLICATION_FACTOR, "Invalid replication factor");
        if ((size_t)rf > active_brokers(img))
            return why_set(why, cap, LOGREP_ERR_INVALID_REPLICATION_FACTOR,
                           "The replication factor is larger than the number of available brokers");
    }
    if (np_out)
        *np_out = np;
    if (rf_out)
        *rf_out = rf;
    return 0;
}

int lr_ctl_create_topic(lr_ctl *ctl, const lr_ctl_create_topic_req *req, uint8_t topic_id[16])
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    int32_t np, rf;
    int err = lr_ctl_check_topic(ctl, req, &np, &rf, NULL, 0);
    if (err || req->validate_only)
        return err;
    const lr_md_image *img = ctl->img;
    size_t nb = lr_md_broker_count(img);
    placer pl;
    err = placer_init(ctl, &pl);
    if (err)
        return err;
    if ((size_t)rf > pl.n && !req->n_assignments) {
        placer_free(ctl, &pl, nb);
        return LOGREP_ERR_INVALID_REPLICATION_FACTOR;
    }
    err = lr_ctli_ids_reserve(ctl, (size_t)rf); /* 6 * rf ids: replicas, then ISR */
    const char **used = err ? NULL : lr_calloc(&ctl->alloc, (size_t)rf, sizeof *used);
    if (!used) {
        placer_free(ctl, &pl, nb);
        return LOGREP_ERR__NOMEM;
    }

    lr_md_record rec;
    uint8_t id[16];
    new_topic_id(ctl, id);
    lr_md_record_init(&rec, LR_MD_TOPIC, 0);
    rec.u.topic.name = lr_ctli_mkstr(req->name);
    memcpy(rec.u.topic.topic_id, id, 16);
    err = lr_ctli_emit(ctl, &rec);
    for (size_t i = 0; !err && i < req->n_configs; i++) {
        lr_md_record_init(&rec, LR_MD_CONFIG, 0);
        rec.u.config.resource_type = LR_MD_RESOURCE_TOPIC;
        rec.u.config.resource_name = lr_ctli_mkstr(req->name);
        rec.u.config.name = lr_ctli_mkstr(req->configs[i].name);
        rec.u.config.value = lr_ctli_mkstr(req->configs[i].value);
        err = lr_ctli_emit(ctl, &rec);
    }
    size_t start = (size_t)lr_prng_below(&ctl->prng, pl.n);
    size_t shift = (size_t)lr_prng_below(&ctl->prng, pl.n);
    int32_t *reps = ctl->ids;
    for (int32_t p = 0; !err && p < np; p++) {
        if (p > 0 && (size_t)p % pl.n == 0)
            shift++;
        int32_t n_isr = rf;
        if (req->n_assignments) {
            /* Kafka: ISR = the assigned replicas that are active, leader
             * the first of them. */
            const lr_ctl_assignment *a = &req->assignments[p];
            memcpy(reps, a->brokers, (size_t)rf * sizeof *reps);
            n_isr = 0;
            for (int32_t k = 0; k < rf; k++) {
                const lr_md_broker *b = lr_md_broker_get(img, reps[k]);
                if (!b->fenced && !b->in_controlled_shutdown)
                    reps[rf + n_isr++] = reps[k];
            }
        } else {
            place(img, &pl, p, rf, start, shift, reps, used);
            memcpy(reps + rf, reps, (size_t)rf * sizeof *reps);
        }
        lr_md_record_init(&rec, LR_MD_PARTITION, 2);
        struct lr_md_part_rec *r = &rec.u.part;
        r->partition_id = p;
        memcpy(r->topic_id, id, 16);
        r->replicas.v = reps;
        r->replicas.n = rf;
        r->isr.v = reps + rf;
        r->isr.n = n_isr;
        r->leader = reps[rf];
        r->leader_epoch = 0;
        r->partition_epoch = 0;
        err = lr_ctli_emit(ctl, &rec);
    }
    lr_free(&ctl->alloc, used, (size_t)rf * sizeof *used);
    placer_free(ctl, &pl, nb);
    if (!err && topic_id)
        memcpy(topic_id, id, 16);
    return err;
}

int lr_ctl_delete_topic(lr_ctl *ctl, const char *name)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !name)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, name);
    if (!t)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_REMOVE_TOPIC, 0);
    memcpy(rec.u.remove_topic.topic_id, t->id, 16);
    return lr_ctli_emit(ctl, &rec);
}

int lr_ctl_set_topic_config(lr_ctl *ctl, const char *topic, const char *name, const char *value)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !topic || !name)
        return LOGREP_ERR__INVALID_ARG;
    if (!lr_md_topic_by_name(ctl->img, topic))
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (!lr_ctli_str_len_ok(name, 0) || !config_value_ok(name, value))
        return LOGREP_ERR_INVALID_CONFIG;
    return lr_ctli_emit_topic_config(ctl, topic, name, value);
}

int lr_ctli_emit_topic_config(lr_ctl *ctl, const char *topic, const char *name, const char *value)
{
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_CONFIG, 0);
    rec.u.config.resource_type = LR_MD_RESOURCE_TOPIC;
    rec.u.config.resource_name = lr_ctli_mkstr(topic);
    rec.u.config.name = lr_ctli_mkstr(name);
    rec.u.config.value = lr_ctli_mkstr(value);
    int err = lr_ctli_emit(ctl, &rec);
    change_opts o;
    lr_ctli_opts_init(&o);
    int is_min_isr = strcmp(name, "min.insync.replicas") == 0;
    int is_unclean = strcmp(name, "unclean.leader.election.enable") == 0;
    o.clear_elr = (uint8_t)is_min_isr;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, topic);
    for (int32_t j = 0; !err && t && (is_min_isr || is_unclean) && j < t->n_parts; j++) {
        const lr_md_partition *p = &t->parts[j];
        if ((is_min_isr && (p->n_elr || p->n_lke)) || (is_unclean && p->leader < 0))
            err = lr_ctli_partition_change(ctl, t, j, &o, NULL);
        t = lr_md_topic_by_name(ctl->img, topic);
    }
    return err;
}

/* ------------------------------------------------------------------------
 * AlterPartition and elections
 * ---------------------------------------------------------------------- */

static void fill_state(const lr_md_partition *p, lr_ctl_partition_state *out)
{
    if (!out)
        return;
    out->leader = p->leader;
    out->leader_epoch = p->leader_epoch;
    out->partition_epoch = p->partition_epoch;
    out->leader_recovery_state = p->lrs;
    out->isr = p->isr;
    out->n_isr = p->n_isr;
}

static int validate_alter(const lr_ctl *ctl, const lr_ctl_alter_partition_req *req,
                          const lr_md_partition *p)
{
    if (req->leader_epoch > p->leader_epoch || req->partition_epoch > p->partition_epoch)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (req->leader_epoch < p->leader_epoch)
        return LOGREP_ERR_FENCED_LEADER_EPOCH;
    if (req->broker_id != p->leader)
        return LOGREP_ERR_INVALID_REQUEST;
    if (req->partition_epoch < p->partition_epoch)
        return LOGREP_ERR_INVALID_UPDATE_VERSION;
    int has_leader = 0;
    for (size_t i = 0; i < req->n_new_isr; i++) {
        int32_t r = req->new_isr[i].broker_id;
        if (!lr_md_ids_contains(p->replicas, p->n_replicas, r))
            return LOGREP_ERR_INVALID_REQUEST;
        for (size_t j = 0; j < i; j++)
            if (req->new_isr[j].broker_id == r)
                return LOGREP_ERR_INVALID_REQUEST;
        has_leader |= r == p->leader;
    }
    if (!has_leader)
        return LOGREP_ERR_INVALID_REQUEST;
    if (req->leader_recovery_state != LR_MD_RECOVERED && req->leader_recovery_state != LR_MD_RECOVERING)
        return LOGREP_ERR_INVALID_REQUEST;
    if (req->leader_recovery_state == LR_MD_RECOVERING && req->n_new_isr > 1)
        return LOGREP_ERR_INVALID_REQUEST;
    if (p->lrs == LR_MD_RECOVERED && req->leader_recovery_state == LR_MD_RECOVERING)
        return LOGREP_ERR_INVALID_REQUEST;
    for (size_t i = 0; i < req->n_new_isr; i++) {
        const lr_md_broker *b = lr_md_broker_get(ctl->img, req->new_isr[i].broker_id);
        if (!b || b->in_controlled_shutdown || b->fenced ||
            (req->new_isr[i].broker_epoch != -1 && req->new_isr[i].broker_epoch != b->epoch))
            return LOGREP_ERR_INELIGIBLE_REPLICA;
    }
    return 0;
}

int lr_ctl_alter_partition(lr_ctl *ctl, const lr_ctl_alter_partition_req *req,
                           lr_ctl_partition_state *out)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !req || (req->n_new_isr && !req->new_isr))
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_broker *sender = lr_md_broker_get(ctl->img, req->broker_id);
    if (!sender || sender->epoch != req->broker_epoch)
        return LOGREP_ERR_STALE_BROKER_EPOCH;
    const lr_md_topic *t = lr_md_topic_by_id(ctl->img, req->topic_id);
    if (!t)
        return LOGREP_ERR_UNKNOWN_TOPIC_ID;
    const lr_md_partition *p = lr_md_partition_get(t, req->partition);
    if (!p)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    int err = validate_alter(ctl, req, p);
    if (!err && req->n_new_isr > LR_MD_MAX_REPLICAS)
        err = LOGREP_ERR_INVALID_REQUEST;
    if (!err) /* the builder needs n_replicas per list; reserve before taking `target` */
        err = lr_ctli_ids_reserve(ctl, p->n_replicas);
    if (err) {
        fill_state(p, out);
        return err;
    }
    /* The target ISR lives in the 4th builder list (the builder uses 0-2). */
    int32_t *target = ctl->ids + 3 * ctl->slot;
    for (size_t i = 0; i < req->n_new_isr; i++)
        target[i] = req->new_isr[i].broker_id;
    change_opts o;
    lr_ctli_opts_init(&o);
    o.target_isr = target;
    o.n_target_isr = (int32_t)req->n_new_isr;
    o.target_lrs = req->leader_recovery_state;
    int32_t old_leader = p->leader;
    err = lr_ctli_partition_change(ctl, t, req->partition, &o, NULL);
    t = lr_md_topic_by_id(ctl->img, req->topic_id);
    p = lr_md_partition_get(t, req->partition);
    fill_state(p, out);
    if (!err && p->leader != old_leader && p->leader != req->broker_id)
        err = LOGREP_ERR_NEW_LEADER_ELECTED;
    return err;
}

int lr_ctl_elect_leader(lr_ctl *ctl, const char *topic, int32_t partition, int type)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !topic || (type != LR_CTL_ELECT_PREFERRED && type != LR_CTL_ELECT_UNCLEAN))
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, topic);
    const lr_md_partition *p = lr_md_partition_get(t, partition);
    if (!p)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if ((type == LR_CTL_ELECT_PREFERRED && p->leader == p->replicas[0]) ||
        (type == LR_CTL_ELECT_UNCLEAN && p->leader >= 0))
        return LOGREP_ERR_ELECTION_NOT_NEEDED;
    change_opts o;
    lr_ctli_opts_init(&o);
    o.mode = type == LR_CTL_ELECT_PREFERRED ? MODE_PREFERRED : MODE_UNCLEAN;
    int changed;
    int err = lr_ctli_partition_change(ctl, t, partition, &o, &changed);
    if (err)
        return err;
    p = lr_md_partition_get(lr_md_topic_by_name(ctl->img, topic), partition);
    if (type == LR_CTL_ELECT_PREFERRED)
        return p->leader == p->replicas[0] ? 0 : LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE;
    return p->leader >= 0 ? 0 : LOGREP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE;
}

/* ------------------------------------------------------------------------
 * Producer ids
 * ---------------------------------------------------------------------- */

int lr_ctl_allocate_producer_ids(lr_ctl *ctl, int32_t broker_id, int64_t broker_epoch,
                                 int64_t *first, int32_t *count)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !first || !count)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_broker *b = lr_md_broker_get(ctl->img, broker_id);
    if (!b || b->epoch != broker_epoch)
        return LOGREP_ERR_STALE_BROKER_EPOCH;
    int64_t start = lr_md_next_producer_id(ctl->img);
    if (start > INT64_MAX - LR_MD_PRODUCER_ID_BLOCK)
        return LOGREP_ERR_UNKNOWN_SERVER_ERROR;
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_PRODUCER_IDS, 0);
    rec.u.pids.broker_id = broker_id;
    rec.u.pids.broker_epoch = broker_epoch;
    rec.u.pids.next_producer_id = start + LR_MD_PRODUCER_ID_BLOCK;
    int err = lr_ctli_emit(ctl, &rec);
    if (!err) {
        *first = start;
        *count = LR_MD_PRODUCER_ID_BLOCK;
    }
    return err;
}
