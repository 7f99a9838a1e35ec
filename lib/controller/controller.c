/* The controller state machine. See controller.h for the rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "base/log.h"
#include "base/prng.h"
#include "controller/ctl_int.h"
#include "controller/md_snapshot.h"
#include "controller/topic_config.h"

/* ------------------------------------------------------------------------
 * Lifecycle and emission
 * ---------------------------------------------------------------------- */

lr_ctl *lr_ctl_new(const logrep_conf *conf, lr_ctl_sink_fn sink, void *sink_ctx)
{
    const lr_alloc *a = lr_conf_alloc(conf);
    lr_ctl *ctl = lr_calloc(a, 1, sizeof *ctl);
    if (!ctl)
        return NULL;
    ctl->alloc = *a;
    ctl->log = lr_conf_log(conf);
    ctl->img = lr_md_new(conf);
    if (!ctl->img) {
        lr_free(a, ctl, sizeof *ctl);
        return NULL;
    }
    ctl->sink = sink;
    ctl->sink_ctx = sink_ctx;
    /* Per node: two controllers with the same configured seed draw apart. */
    lr_prng_seed(&ctl->prng, (uint64_t)lr_conf_int(conf, LR_CONF_RANDOM_SEED) ^
                                 lr_prng_mix((uint64_t)lr_conf_int(conf, LR_CONF_NODE_ID)));
    ctl->session_timeout_ms = lr_conf_int(conf, LR_CONF_BROKER_SESSION_TIMEOUT_MS);
    ctl->default_rf = (int32_t)lr_conf_int(conf, LR_CONF_DEFAULT_REPLICATION_FACTOR);
    ctl->default_partitions = (int32_t)lr_conf_int(conf, LR_CONF_NUM_PARTITIONS);
    lr_buf_init(&ctl->enc, &ctl->alloc);
    return ctl;
}

void lr_ctl_free(lr_ctl *ctl)
{
    if (!ctl)
        return;
    lr_md_free(ctl->img);
    lr_buf_free(&ctl->enc);
    lr_free(&ctl->alloc, ctl->sessions, ctl->cap_sessions * sizeof *ctl->sessions);
    lr_free(&ctl->alloc, ctl->ids, 6 * ctl->slot * sizeof(int32_t));
    lr_free(&ctl->alloc, ctl, sizeof *ctl);
}

const lr_md_image *lr_ctl_image(const lr_ctl *ctl) { return ctl->img; }

int lr_ctl_failed(const lr_ctl *ctl) { return ctl->failed; }

void lr_ctl_set_standby(lr_ctl *ctl, int standby) { ctl->standby = standby != 0; }

int lr_ctl_standby(const lr_ctl *ctl) { return ctl->standby; }

void lr_ctl_skip_to(lr_ctl *ctl, int64_t next_offset)
{
    if (next_offset > lr_md_next_offset(ctl->img))
        lr_md_set_next_offset(ctl->img, next_offset);
}

void lr_ctl_get_stats(const lr_ctl *ctl, lr_ctl_stats *out) { *out = ctl->stats; }

int lr_ctl_replay(lr_ctl *ctl, const uint8_t *rec, size_t len)
{
    return lr_md_apply_bytes(ctl->img, rec, len);
}

typedef struct snap_load {
    lr_md_image *img;
    int64_t end;
} snap_load;

static int snap_put(void *ctx, const uint8_t *rec, size_t len)
{
    snap_load *l = ctx;
    return lr_md_snapshot_apply(l->img, l->end, rec, len);
}

int lr_ctl_load_snapshot(lr_ctl *ctl, const logrep_conf *conf, int64_t end,
                         lr_ctl_snap_source_fn src, void *src_ctx)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (end < 0 || !src)
        return LOGREP_ERR__INVALID_ARG;
    /* Built aside: a snapshot that does not load whole changes nothing. */
    snap_load l = {lr_md_new(conf), end};
    if (!l.img)
        return LOGREP_ERR__NOMEM;
    int err = src(src_ctx, snap_put, &l);
    if (err) {
        LR_LOG(&ctl->log, 3, "controller", "snapshot at %lld not loaded: %s", (long long)end,
               logrep_err_name(err));
        lr_md_free(l.img);
        return err;
    }
    lr_md_set_next_offset(l.img, end); /* also a snapshot without records */
    lr_md_free(ctl->img);
    ctl->img = l.img;
    /* Sessions were of the old image's brokers: they start again at the
     * next timed call, as for a replayed log. */
    ctl->n_sessions = 0;
    return 0;
}

/* Encodes, applies, then hands the record to the sink. */
int lr_ctli_emit(lr_ctl *ctl, const lr_md_record *rec)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    lr_buf_clear(&ctl->enc);
    int err = lr_md_encode(rec, &ctl->enc);
    if (err)
        return err;
    int64_t off = lr_md_next_offset(ctl->img);
    err = lr_md_apply(ctl->img, rec);
    if (err) {
        /* The controller only builds records its image accepts. */
        LR_LOG(&ctl->log, 3, "controller", "%s refused by the image: %s",
               lr_md_rtype_name((int)rec->type), logrep_err_name(err));
        return err;
    }
    ctl->stats.records++;
    if (ctl->sink && (err = ctl->sink(ctl->sink_ctx, off, ctl->enc.data, ctl->enc.len)) != 0) {
        ctl->failed = err;
        LR_LOG(&ctl->log, 3, "controller",
               "metadata record %lld (%s) not written: %s; the controller stops",
               (long long)off, lr_md_rtype_name((int)rec->type), logrep_err_name(err));
        return LOGREP_ERR_NOT_CONTROLLER;
    }
    return 0;
}

/* Makes each of the 6 builder lists hold at least n ids. */
int lr_ctli_ids_reserve(lr_ctl *ctl, size_t n)
{
    if (n <= ctl->slot)
        return 0;
    size_t slot = n < 16 ? 16 : n;
    int32_t *p = lr_malloc(&ctl->alloc, 6 * slot * sizeof *p);
    if (!p)
        return LOGREP_ERR__NOMEM;
    lr_free(&ctl->alloc, ctl->ids, 6 * ctl->slot * sizeof(int32_t));
    ctl->ids = p;
    ctl->slot = slot;
    return 0;
}

/* ------------------------------------------------------------------------
 * Sessions
 * ---------------------------------------------------------------------- */

ctl_session *lr_ctli_session_get(lr_ctl *ctl, int32_t id, int create)
{
    for (size_t i = 0; i < ctl->n_sessions; i++)
        if (ctl->sessions[i].id == id)
            return &ctl->sessions[i];
    if (!create)
        return NULL;
    if (ctl->n_sessions == ctl->cap_sessions) {
        size_t nc = ctl->cap_sessions ? 2 * ctl->cap_sessions : 8;
        ctl_session *p = lr_realloc(&ctl->alloc, ctl->sessions,
                                    ctl->cap_sessions * sizeof *p, nc * sizeof *p);
        if (!p)
            return NULL;
        ctl->sessions = p;
        ctl->cap_sessions = nc;
    }
    ctl_session *s = &ctl->sessions[ctl->n_sessions++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->last_contact_ms = -1;
    s->metadata_offset = -1;
    s->cs_offset = -1;
    return s;
}

/* Brokers known only from a replayed stream get a session that starts now. */
int lr_ctli_sessions_adopt(lr_ctl *ctl, int64_t now_ms)
{
    const lr_md_image *img = ctl->img;
    for (size_t i = 0; i < lr_md_broker_count(img); i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        ctl_session *s = lr_ctli_session_get(ctl, b->id, 0);
        if (!s && !b->fenced) {
            if (!(s = lr_ctli_session_get(ctl, b->id, 1)))
                return LOGREP_ERR__NOMEM;
            s->live = 1;
        }
        if (s && s->live && s->last_contact_ms < 0)
            s->last_contact_ms = now_ms;
    }
    return 0;
}

/* Registered, unfenced, not in controlled shutdown. */
int lr_ctli_broker_active(const lr_md_image *img, int32_t id)
{
    const lr_md_broker *b = lr_md_broker_get(img, id);
    return b && !b->fenced && !b->in_controlled_shutdown;
}

/* ------------------------------------------------------------------------
 * The partition change builder
 * ---------------------------------------------------------------------- */

void lr_ctli_opts_init(change_opts *o)
{
    memset(o, 0, sizeof *o);
    o->remove = o->add = o->unclean = -1;
    o->mode = MODE_ONLINE;
    o->target_lrs = LR_MD_LRS_NO_CHANGE;
}

typedef struct idlist {
    int32_t *v;
    int32_t n;
} idlist;

static int has(idlist l, int32_t id) { return lr_md_ids_contains(l.v, (size_t)l.n, id); }

static int same(idlist l, const int32_t *v, int32_t n)
{
    return l.n == n && (n == 0 || memcmp(l.v, v, (size_t)n * sizeof *v) == 0);
}

static void drop(idlist *l, int32_t id)
{
    int32_t k = 0;
    for (int32_t i = 0; i < l->n; i++)
        if (l->v[i] != id)
            l->v[k++] = l->v[i];
    l->n = k;
}

typedef struct elect_ctx {
    const lr_md_image *img;
    const change_opts *o;
    idlist isr, elr;
} elect_ctx;

static int acceptable(const elect_ctx *e, int32_t r)
{
    if (r < 0 || r == e->o->remove || r == e->o->unclean)
        return 0;
    return r == e->o->add || lr_ctli_broker_active(e->img, r);
}

static int valid_leader(const elect_ctx *e, int32_t r)
{
    return (has(e->isr, r) || (e->isr.n == 0 && has(e->elr, r))) && acceptable(e, r);
}

/* Chooses the leader; returns it (or -1) and sets *kind. */
static int32_t elect(const elect_ctx *e, const lr_md_partition *p, idlist lke, int elr_on,
                     int unclean_ok, int *kind)
{
    *kind = EL_CLEAN;
    if (e->o->mode == MODE_PREFERRED && valid_leader(e, p->replicas[0]))
        return p->replicas[0];
    if (p->leader >= 0 && valid_leader(e, p->leader))
        return p->leader;
    for (uint16_t i = 0; i < p->n_replicas; i++)
        if (valid_leader(e, p->replicas[i]))
            return p->replicas[i];
    if (elr_on && e->isr.n == 0 && e->elr.n == 0 && lke.n == 1 && acceptable(e, lke.v[0])) {
        *kind = EL_LAST_KNOWN;
        return lke.v[0];
    }
    if (unclean_ok) {
        for (uint16_t i = 0; i < p->n_replicas; i++)
            if (acceptable(e, p->replicas[i])) {
                *kind = EL_UNCLEAN;
                return p->replicas[i];
            }
    }
    *kind = EL_NONE;
    return LR_MD_NO_LEADER;
}

/* Counts ids of a that are not in b. */
static int missing(const int32_t *a, int32_t na, const int32_t *b, int32_t nb)
{
    int c = 0;
    for (int32_t i = 0; i < na; i++)
        c += !lr_md_ids_contains(b, (size_t)nb, a[i]);
    return c;
}

/* Builds and emits the PartitionChangeRecord for partition pid of topic t,
 * if anything changes. *changed (may be NULL) tells whether a record was
 * written; *new_kind the election kind when the leader moved. */
int lr_ctli_partition_change(lr_ctl *ctl, const lr_md_topic *t, int32_t pid, const change_opts *o,
                             int *changed)
{
    const lr_md_image *img = ctl->img;
    const lr_md_partition *p = lr_md_partition_get(t, pid);
    const lr_md_defaults *d = lr_md_get_defaults(img);
    int elr_on = d->elr_enabled;
    int32_t min_isr = lr_md_topic_min_isr(img, t);
    int unclean_ok = o->mode == MODE_UNCLEAN || (o->mode == MODE_ONLINE && lr_md_topic_unclean(img, t));
    if (changed)
        *changed = 0;
    size_t need = p->n_replicas;
    if (o->target_isr && (size_t)o->n_target_isr > need)
        need = (size_t)o->n_target_isr;
    if (lr_ctli_ids_reserve(ctl, need))
        return LOGREP_ERR__NOMEM;
    int32_t *slot = ctl->ids;
    idlist isr = {slot, 0}, elr = {slot + ctl->slot, 0}, lke = {slot + 2 * ctl->slot, 0};

    /* Target ISR minus the brokers that must leave it. */
    const int32_t *src = o->target_isr ? o->target_isr : p->isr;
    int32_t nsrc = o->target_isr ? o->n_target_isr : p->n_isr;
    for (int32_t i = 0; i < nsrc; i++)
        if (src[i] != o->remove && src[i] != o->unclean)
            isr.v[isr.n++] = src[i];
    /* An uncleanly restarted last leader stays in LastKnownElr, as in
     * Kafka: when ISR and ELR are empty it is the only copy of what was
     * committed that may come back (docs/controller.md). */
    memcpy(lke.v, p->lke, p->n_lke * sizeof *lke.v);
    lke.n = p->n_lke;

    /* ELR: replicas that left the ISR while it is below min ISR. */
    if (elr_on && !o->clear_elr && isr.n < min_isr) {
        for (uint16_t i = 0; i < p->n_replicas; i++) {
            int32_t r = p->replicas[i];
            if ((lr_md_ids_contains(p->elr, p->n_elr, r) || lr_md_ids_contains(p->isr, p->n_isr, r)) &&
                !has(isr, r) && r != o->unclean)
                elr.v[elr.n++] = r;
        }
    } else if (elr_on && !o->clear_elr) {
        lke.n = 0; /* ISR back at min ISR: the HW can move again */
    }
    if (!elr_on || o->clear_elr)
        lke.n = 0;

    int32_t leader = p->leader;
    int kind = EL_NONE;
    int force_isr = 0;
    if (!o->clear_elr) {
        elect_ctx e = {img, o, isr, elr};
        leader = elect(&e, p, lke, elr_on, unclean_ok, &kind);
        if (leader != p->leader && leader >= 0) {
            if (kind == EL_CLEAN && isr.n == 0 && has(elr, leader)) {
                kind = EL_ELR;
                isr.v[0] = leader;
                isr.n = 1;
                drop(&elr, leader);
            } else if (kind == EL_LAST_KNOWN || kind == EL_UNCLEAN) {
                isr.v[0] = leader;
                isr.n = 1;
                elr.n = 0;
                lke.n = 0;
                force_isr = 1;
            }
        }
        if (elr_on && isr.n >= min_isr) {
            elr.n = 0;
            lke.n = 0;
        }
    }

    /* Assemble the record: only what differs from the current state. */
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_PARTITION_CHANGE, 2);
    struct lr_md_part_rec *r = &rec.u.part;
    memcpy(r->topic_id, t->id, 16);
    r->partition_id = pid;
    if (leader != p->leader)
        r->leader = leader;
    /* An empty ISR is only allowed with ELR; otherwise the last member stays. */
    if (!same(isr, p->isr, p->n_isr) && (isr.n > 0 || elr_on || force_isr)) {
        r->isr.v = isr.v;
        r->isr.n = isr.n;
    }
    if (!same(elr, p->elr, p->n_elr)) {
        r->elr.v = elr.v;
        r->elr.n = elr.n;
    }
    int32_t final_leader = leader;
    if (elr_on && !o->clear_elr && r->isr.n == 0 && p->leader >= 0 &&
        !(p->n_lke == 1 && p->lke[0] == p->leader)) {
        /* Leaderless for the first time: remember the last leader. */
        lke.v[0] = p->leader;
        lke.n = 1;
    } else if (final_leader >= 0) {
        lke.n = 0;
    }
    if (!same(lke, p->lke, p->n_lke)) {
        r->lke.v = lke.v;
        r->lke.n = lke.n;
    }
    int8_t lrs = p->lrs;
    if (o->target_lrs != LR_MD_LRS_NO_CHANGE)
        lrs = o->target_lrs;
    if ((kind == EL_UNCLEAN || kind == EL_LAST_KNOWN) && leader != p->leader)
        lrs = LR_MD_RECOVERING;
    if (lrs != p->lrs)
        r->lrs = lrs;

    if (r->leader == LR_MD_NO_LEADER_CHANGE && r->isr.n < 0 && r->elr.n < 0 && r->lke.n < 0 &&
        r->lrs == LR_MD_LRS_NO_CHANGE)
        return 0; /* nothing changes */

    /* Counters, from the state before the record. */
    int32_t old_leader = p->leader;
    int shrink = r->isr.n >= 0 && missing(p->isr, p->n_isr, r->isr.v, r->isr.n) > 0;
    int expand = r->isr.n >= 0 && missing(r->isr.v, r->isr.n, p->isr, p->n_isr) > 0;
    int err = lr_ctli_emit(ctl, &rec);
    if (err)
        return err;
    if (changed)
        *changed = 1;
    if (leader != old_leader) {
        ctl->stats.leader_changes++;
        if (leader < 0)
            ctl->stats.offline_transitions++;
        else if (kind == EL_UNCLEAN)
            ctl->stats.unclean_elections++;
        else if (kind == EL_ELR)
            ctl->stats.elr_elections++;
        else if (kind == EL_LAST_KNOWN)
            ctl->stats.last_known_leader_elections++;
        if (kind == EL_UNCLEAN)
            LR_LOG(&ctl->log, 4, "controller", "unclean election: %s-%d leader %d",
                   t->name, (int)pid, (int)leader);
    }
    ctl->stats.isr_shrinks += shrink;
    ctl->stats.isr_expands += expand;
    return 0;
}

static int matches(const lr_md_partition *p, int32_t b, unsigned which)
{
    return ((which & IN_ISR) && lr_md_ids_contains(p->isr, p->n_isr, b)) ||
           ((which & IN_ELR) && lr_md_ids_contains(p->elr, p->n_elr, b)) ||
           ((which & IN_LKE) && lr_md_ids_contains(p->lke, p->n_lke, b)) ||
           ((which & LEADERLESS) && p->leader < 0);
}

/* Runs partition_change over every partition matching `which` for broker
 * b, in topic creation order then partition order. Records change the
 * image as they go, so topics are re-fetched by index each time. */
int lr_ctli_sweep(lr_ctl *ctl, int32_t b, unsigned which, const change_opts *o)
{
    for (size_t i = 0; i < lr_md_topic_count(ctl->img); i++) {
        const lr_md_topic *t = lr_md_topic_at(ctl->img, i);
        for (int32_t j = 0; j < t->n_parts; j++) {
            if (!matches(&t->parts[j], b, which))
                continue;
            int err = lr_ctli_partition_change(ctl, t, j, o, NULL);
            if (err)
                return err;
        }
    }
    return 0;
}

int lr_ctli_emit_registration_change(lr_ctl *ctl, const lr_md_broker *b, int8_t fenced,
                                     int8_t shutdown)
{
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_BROKER_REGISTRATION_CHANGE, shutdown ? 1 : 0);
    rec.u.change.broker_id = b->id;
    rec.u.change.broker_epoch = b->epoch;
    rec.u.change.fenced = fenced;
    rec.u.change.in_controlled_shutdown = shutdown;
    return lr_ctli_emit(ctl, &rec);
}

/* Fences broker id: leaves every ISR (leadership moves), then the
 * BrokerRegistrationChangeRecord. */
int lr_ctli_fence_broker(lr_ctl *ctl, int32_t id)
{
    change_opts o;
    lr_ctli_opts_init(&o);
    o.remove = id;
    int err = lr_ctli_sweep(ctl, id, IN_ISR, &o);
    const lr_md_broker *b = lr_md_broker_get(ctl->img, id);
    if (!err && b && !b->fenced) {
        err = lr_ctli_emit_registration_change(ctl, b, 1, 0);
        if (!err)
            ctl->stats.broker_fencings++;
    }
    return err;
}

int lr_ctli_unfence_broker(lr_ctl *ctl, int32_t id)
{
    const lr_md_broker *b = lr_md_broker_get(ctl->img, id);
    int err = lr_ctli_emit_registration_change(ctl, b, -1, 0);
    if (err)
        return err;
    change_opts o;
    lr_ctli_opts_init(&o);
    o.add = id;
    return lr_ctli_sweep(ctl, id, LEADERLESS, &o);
}

int lr_ctli_leads_any(const lr_md_image *img, int32_t id)
{
    for (size_t i = 0; i < lr_md_topic_count(img); i++) {
        const lr_md_topic *t = lr_md_topic_at(img, i);
        for (int32_t j = 0; j < t->n_parts; j++)
            if (t->parts[j].leader == id)
                return 1;
    }
    return 0;
}

int lr_ctli_str_len_ok(const char *s, int allow_empty)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    return n <= INT16_MAX && (allow_empty || n > 0);
}

lr_md_str lr_ctli_mkstr(const char *s)
{
    lr_md_str r = {s, s ? (int32_t)strlen(s) : -1};
    return r;
}

