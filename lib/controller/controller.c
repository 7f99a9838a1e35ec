/* The controller state machine. See controller.h for the rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "base/log.h"
#include "base/prng.h"
#include "controller/controller.h"
#include "controller/topic_config.h"

typedef struct ctl_session {
    int32_t id;
    uint8_t live;              /* has a session (cleared when fenced by timeout/shutdown) */
    uint8_t heard;             /* this controller has heard from the incarnation it holds */
    int64_t last_contact_ms;   /* -1: starts at the next timed call */
    int64_t metadata_offset;   /* last reported by a heartbeat, -1 unknown */
    int64_t cs_offset;         /* controlled shutdown: records up to here must be applied */
} ctl_session;

/* Election kinds, for counters. */
enum { EL_NONE, EL_CLEAN, EL_ELR, EL_LAST_KNOWN, EL_UNCLEAN };
/* Election modes (Kafka's PartitionChangeBuilder.Election). */
enum { MODE_ONLINE, MODE_PREFERRED, MODE_UNCLEAN };

struct lr_ctl {
    lr_alloc alloc;
    lr_log log;
    lr_md_image *img;
    lr_ctl_sink_fn sink;
    void *sink_ctx;
    lr_prng prng;
    int64_t session_timeout_ms;
    int32_t default_rf, default_partitions;

    ctl_session *sessions;
    size_t n_sessions, cap_sessions;

    lr_buf enc; /* encoding scratch */
    /* builder scratch: 6 lists of up to `slot` ids */
    int32_t *ids;
    size_t slot;

    lr_ctl_stats stats;
    int failed; /* the sink's error: stopped */
};

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

void lr_ctl_get_stats(const lr_ctl *ctl, lr_ctl_stats *out) { *out = ctl->stats; }

int lr_ctl_replay(lr_ctl *ctl, const uint8_t *rec, size_t len)
{
    return lr_md_apply_bytes(ctl->img, rec, len);
}

/* Encodes, applies, then hands the record to the sink. */
static int emit(lr_ctl *ctl, const lr_md_record *rec)
{
    if (ctl->failed)
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
static int ids_reserve(lr_ctl *ctl, size_t n)
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

static ctl_session *session_get(lr_ctl *ctl, int32_t id, int create)
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
static int sessions_adopt(lr_ctl *ctl, int64_t now_ms)
{
    const lr_md_image *img = ctl->img;
    for (size_t i = 0; i < lr_md_broker_count(img); i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        ctl_session *s = session_get(ctl, b->id, 0);
        if (!s && !b->fenced) {
            if (!(s = session_get(ctl, b->id, 1)))
                return LOGREP_ERR__NOMEM;
            s->live = 1;
        }
        if (s && s->live && s->last_contact_ms < 0)
            s->last_contact_ms = now_ms;
    }
    return 0;
}

/* Registered, unfenced, not in controlled shutdown. */
static int broker_active(const lr_md_image *img, int32_t id)
{
    const lr_md_broker *b = lr_md_broker_get(img, id);
    return b && !b->fenced && !b->in_controlled_shutdown;
}

/* ------------------------------------------------------------------------
 * The partition change builder
 * ---------------------------------------------------------------------- */

typedef struct change_opts {
    const int32_t *target_isr; /* NULL: the current ISR */
    int32_t n_target_isr;
    int32_t remove;  /* leaves the ISR and may not lead (fencing, shutdown); -1 none */
    int32_t add;     /* may lead although the image still shows it fenced; -1 none */
    int32_t unclean; /* restarted uncleanly: leaves ISR and ELR; -1 none */
    int mode;        /* MODE_* */
    int8_t target_lrs;   /* LR_MD_LRS_NO_CHANGE: keep */
    uint8_t clear_elr;   /* min.insync.replicas changed: drop ELR state, no election */
} change_opts;

static void opts_init(change_opts *o)
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
    return r == e->o->add || broker_active(e->img, r);
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
static int partition_change(lr_ctl *ctl, const lr_md_topic *t, int32_t pid, const change_opts *o,
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
    if (ids_reserve(ctl, need))
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
    int err = emit(ctl, &rec);
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

/* Which partitions a broker-wide sweep visits. */
enum { IN_ISR = 1, IN_ELR = 2, IN_LKE = 4, LEADERLESS = 8 };

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
static int sweep(lr_ctl *ctl, int32_t b, unsigned which, const change_opts *o)
{
    for (size_t i = 0; i < lr_md_topic_count(ctl->img); i++) {
        const lr_md_topic *t = lr_md_topic_at(ctl->img, i);
        for (int32_t j = 0; j < t->n_parts; j++) {
            if (!matches(&t->parts[j], b, which))
                continue;
            int err = partition_change(ctl, t, j, o, NULL);
            if (err)
                return err;
        }
    }
    return 0;
}

static int emit_registration_change(lr_ctl *ctl, const lr_md_broker *b, int8_t fenced,
                                    int8_t shutdown)
{
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_BROKER_REGISTRATION_CHANGE, shutdown ? 1 : 0);
    rec.u.change.broker_id = b->id;
    rec.u.change.broker_epoch = b->epoch;
    rec.u.change.fenced = fenced;
    rec.u.change.in_controlled_shutdown = shutdown;
    return emit(ctl, &rec);
}

/* Fences broker id: leaves every ISR (leadership moves), then the
 * BrokerRegistrationChangeRecord. */
static int fence_broker(lr_ctl *ctl, int32_t id)
{
    change_opts o;
    opts_init(&o);
    o.remove = id;
    int err = sweep(ctl, id, IN_ISR, &o);
    const lr_md_broker *b = lr_md_broker_get(ctl->img, id);
    if (!err && b && !b->fenced) {
        err = emit_registration_change(ctl, b, 1, 0);
        if (!err)
            ctl->stats.broker_fencings++;
    }
    return err;
}

static int unfence_broker(lr_ctl *ctl, int32_t id)
{
    const lr_md_broker *b = lr_md_broker_get(ctl->img, id);
    int err = emit_registration_change(ctl, b, -1, 0);
    if (err)
        return err;
    change_opts o;
    opts_init(&o);
    o.add = id;
    return sweep(ctl, id, LEADERLESS, &o);
}

static int leads_any(const lr_md_image *img, int32_t id)
{
    for (size_t i = 0; i < lr_md_topic_count(img); i++) {
        const lr_md_topic *t = lr_md_topic_at(img, i);
        for (int32_t j = 0; j < t->n_parts; j++)
            if (t->parts[j].leader == id)
                return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Broker registration and heartbeats
 * ---------------------------------------------------------------------- */

static int str_len_ok(const char *s, int allow_empty)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    return n <= INT16_MAX && (allow_empty || n > 0);
}

static lr_md_str mkstr(const char *s)
{
    lr_md_str r = {s, s ? (int32_t)strlen(s) : -1};
    return r;
}

int lr_ctl_register_broker(lr_ctl *ctl, const lr_ctl_register_req *req, int64_t now_ms,
                           lr_ctl_register_resp *resp)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !req || !resp || (req->n_endpoints && !req->endpoints))
        return LOGREP_ERR__INVALID_ARG;
    if (req->broker_id < 0 || (req->rack && !str_len_ok(req->rack, 1)) ||
        req->n_endpoints > INT16_MAX)
        return LOGREP_ERR_INVALID_REGISTRATION;
    for (size_t i = 0; i < req->n_endpoints; i++)
        if (!str_len_ok(req->endpoints[i].name, 0) || !str_len_ok(req->endpoints[i].host, 0))
            return LOGREP_ERR_INVALID_REGISTRATION;
    int err = sessions_adopt(ctl, now_ms);
    if (err)
        return err;
    const lr_md_broker *old = lr_md_broker_get(ctl->img, req->broker_id);
    ctl_session *s = session_get(ctl, req->broker_id, 0);
    int same_incarnation = old && memcmp(old->incarnation, req->incarnation, 16) == 0;
    /* Another incarnation is refused while the one registered may still be
     * alive: it has been heard from by this controller within the session
     * timeout. A session adopted from the replayed log proves nothing (the
     * whole cluster may have restarted), and a clean-shutdown marker
     * carrying the registered epoch proves the old incarnation ended. */
    int old_ended = old && req->previous_broker_epoch >= 0 &&
                    req->previous_broker_epoch == old->epoch;
    if (old && !same_incarnation && !old_ended && s && s->live && s->heard &&
        now_ms - s->last_contact_ms <= ctl->session_timeout_ms)
        return LOGREP_ERR_DUPLICATE_BROKER_REGISTRATION;
    if (!(s = session_get(ctl, req->broker_id, 1)))
        return LOGREP_ERR__NOMEM;

    lr_md_endpoint_rec eps[16];
    lr_md_endpoint_rec *ep = eps;
    if (req->n_endpoints > 16) {
        ep = lr_calloc(&ctl->alloc, req->n_endpoints, sizeof *ep);
        if (!ep)
            return LOGREP_ERR__NOMEM;
    }
    for (size_t i = 0; i < req->n_endpoints; i++) {
        ep[i].name = mkstr(req->endpoints[i].name);
        ep[i].host = mkstr(req->endpoints[i].host);
        ep[i].port = req->endpoints[i].port;
        ep[i].security_protocol = req->endpoints[i].security_protocol;
    }

    int clean = 0;
    if (!same_incarnation && old) {
        clean = old_ended;
        /* The old incarnation is gone: fence it if the controller had not
         * noticed yet, then forget what an unclean stop may have lost. */
        if (!old->fenced)
            err = fence_broker(ctl, req->broker_id);
        if (!err && !clean && lr_md_get_defaults(ctl->img)->elr_enabled) {
            change_opts o;
            opts_init(&o);
            o.unclean = req->broker_id;
            err = sweep(ctl, req->broker_id, IN_ISR | IN_ELR | IN_LKE, &o);
        }
        if (!err) {
            if (clean)
                ctl->stats.clean_restarts++;
            else
                ctl->stats.unclean_restarts++;
        }
    }
    if (!err) {
        old = lr_md_broker_get(ctl->img, req->broker_id);
        lr_md_record rec;
        lr_md_record_init(&rec, LR_MD_REGISTER_BROKER, 3);
        struct lr_md_reg_rec *g = &rec.u.reg;
        g->broker_id = req->broker_id;
        memcpy(g->incarnation, req->incarnation, 16);
        g->endpoints = ep;
        g->n_endpoints = (int32_t)req->n_endpoints;
        g->rack = mkstr(req->rack);
        if (same_incarnation) {
            g->epoch = old->epoch;
            g->fenced = old->fenced;
            g->in_controlled_shutdown = old->in_controlled_shutdown;
        } else {
            g->epoch = lr_md_next_offset(ctl->img);
            g->fenced = 1;
        }
        err = emit(ctl, &rec);
        if (!err) {
            resp->broker_epoch = g->epoch;
            resp->clean = (uint8_t)clean;
            resp->amended = (uint8_t)same_incarnation;
            s->live = 1;
            s->heard = 1;
            s->last_contact_ms = now_ms;
            if (!same_incarnation) {
                s->metadata_offset = -1;
                s->cs_offset = -1;
            }
        }
    }
    if (ep != eps)
        lr_free(&ctl->alloc, ep, req->n_endpoints * sizeof *ep);
    return err;
}

/* Lowest metadata offset reported by an active broker (INT64_MAX if none). */
static int64_t lowest_active_offset(lr_ctl *ctl)
{
    int64_t lo = INT64_MAX;
    for (size_t i = 0; i < ctl->n_sessions; i++) {
        const ctl_session *s = &ctl->sessions[i];
        if (s->live && broker_active(ctl->img, s->id) && s->metadata_offset < lo)
            lo = s->metadata_offset;
    }
    return lo;
}

int lr_ctl_heartbeat(lr_ctl *ctl, const lr_ctl_heartbeat_req *req, int64_t now_ms,
                     lr_ctl_heartbeat_resp *resp)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !req || !resp)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_broker *b = lr_md_broker_get(ctl->img, req->broker_id);
    if (!b)
        return LOGREP_ERR_BROKER_ID_NOT_REGISTERED;
    if (b->epoch != req->broker_epoch)
        return LOGREP_ERR_STALE_BROKER_EPOCH;
    int err = sessions_adopt(ctl, now_ms);
    ctl_session *s = err ? NULL : session_get(ctl, req->broker_id, 1);
    if (!s)
        return LOGREP_ERR__NOMEM;
    memset(resp, 0, sizeof *resp);
    int32_t id = req->broker_id;
    int shutdown_now = 0;
    if (b->fenced) {
        if (req->want_shutdown)
            shutdown_now = 1;
        else if (!req->want_fence && !b->in_controlled_shutdown &&
                 req->current_metadata_offset >= b->register_offset)
            err = unfence_broker(ctl, id); /* after a shutdown: only a new registration */
    } else if (!b->in_controlled_shutdown) {
        if (req->want_fence) {
            err = fence_broker(ctl, id);
            shutdown_now = req->want_shutdown;
        } else if (req->want_shutdown) {
            err = emit_registration_change(ctl, b, 0, 1);
            if (!err) {
                change_opts o;
                opts_init(&o);
                o.remove = id;
                err = sweep(ctl, id, IN_ISR, &o);
            }
            if (!err)
                s->cs_offset = lr_md_next_offset(ctl->img) - 1;
        }
    }
    if (err)
        return err;
    /* The session is live from here on (the request passed validation). */
    s->live = 1;
    s->heard = 1;
    s->last_contact_ms = now_ms;
    if (req->current_metadata_offset > s->metadata_offset)
        s->metadata_offset = req->current_metadata_offset;
    b = lr_md_broker_get(ctl->img, id);
    if (!b->fenced && b->in_controlled_shutdown && !leads_any(ctl->img, id) &&
        s->cs_offset <= lowest_active_offset(ctl)) {
        err = fence_broker(ctl, id);
        if (err)
            return err;
        shutdown_now = 1;
    }
    if (shutdown_now)
        s->live = 0; /* a new incarnation may register at once */
    b = lr_md_broker_get(ctl->img, id);
    resp->is_caught_up = req->current_metadata_offset >= b->register_offset;
    resp->is_fenced = b->fenced;
    resp->in_controlled_shutdown = b->in_controlled_shutdown;
    resp->should_shutdown = (uint8_t)shutdown_now;
    return 0;
}

int lr_ctl_tick(lr_ctl *ctl, int64_t now_ms)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    int err = sessions_adopt(ctl, now_ms);
    for (size_t i = 0; !err && i < ctl->n_sessions; i++) {
        ctl_session *s = &ctl->sessions[i];
        const lr_md_broker *b = lr_md_broker_get(ctl->img, s->id);
        if (!s->live || !b || b->fenced || now_ms - s->last_contact_ms <= ctl->session_timeout_ms)
            continue;
        LR_LOG(&ctl->log, 5, "controller", "broker %d session expired, fencing", (int)s->id);
        err = fence_broker(ctl, s->id);
        if (!err) {
            s->live = 0;
            ctl->stats.session_timeouts++;
        }
    }
    /* Leaderless partitions of topics that allow unclean election. */
    for (size_t i = 0; !err && i < lr_md_topic_count(ctl->img); i++) {
        const lr_md_topic *t = lr_md_topic_at(ctl->img, i);
        if (!lr_md_topic_unclean(ctl->img, t))
            continue;
        change_opts o;
        opts_init(&o);
        for (int32_t j = 0; !err && j < t->n_parts; j++)
            if (t->parts[j].leader < 0)
                err = partition_change(ctl, t, j, &o, NULL);
    }
    return err;
}

int64_t lr_ctl_deadline(const lr_ctl *ctl, int64_t now_ms)
{
    if (ctl->failed)
        return INT64_MAX;
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < lr_md_broker_count(ctl->img); i++) {
        const lr_md_broker *b = lr_md_broker_at(ctl->img, i);
        const ctl_session *s = NULL;
        for (size_t k = 0; k < ctl->n_sessions && !s; k++)
            if (ctl->sessions[k].id == b->id)
                s = &ctl->sessions[k];
        if (b->fenced || (s && !s->live))
            continue;
        if (!s || s->last_contact_ms < 0)
            return now_ms; /* the session starts at the next tick */
        int64_t at = s->last_contact_ms + ctl->session_timeout_ms + 1;
        if (at < next)
            next = at;
    }
    return next < now_ms ? now_ms : next;
}

/* ------------------------------------------------------------------------
 * Topics
 * ---------------------------------------------------------------------- */

/* Kafka's Topic.hasCollision: equal once '.' is read as '_'. */
/* value NULL: a delete, always fine for a known name. */
static int config_value_ok(const char *name, const char *value)
{
    if (!value)
        return lr_topic_config_find(name) != NULL;
    return str_len_ok(value, 1) && lr_topic_config_check(name, value, NULL, 0) == 0;
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

int lr_ctl_check_topic(const lr_ctl *ctl, const lr_ctl_create_topic_req *req, int32_t *np_out,
                       int32_t *rf_out, char *why, size_t cap)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (cap && why)
        why[0] = 0;
    if (!ctl || !req || !req->name || (req->n_configs && !req->configs) ||
        (req->n_assignments && !req->assignments))
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_image *img = ctl->img;
    size_t nlen = strlen(req->name);
    if (nlen == 0)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it can't be empty");
    if (strcmp(req->name, ".") == 0 || strcmp(req->name, "..") == 0)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name cannot be \".\" or \"..\"");
    if (nlen > LR_MD_MAX_TOPIC_NAME)
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it can't be longer than 249 characters");
    if (!lr_md_topic_name_legal(mkstr(req->name)))
        return why_set(why, cap, LOGREP_ERR_INVALID_TOPIC_EXCEPTION,
                       "Topic name is illegal, it contains a character other than ASCII "
                       "alphanumerics, '.', '_' and '-'");
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
        if (!name || !str_len_ok(name, 0) || (value && !str_len_ok(value, 1)) ||
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
    if (ctl->failed)
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
    err = ids_reserve(ctl, (size_t)rf); /* 6 * rf ids: replicas, then ISR */
    const char **used = err ? NULL : lr_calloc(&ctl->alloc, (size_t)rf, sizeof *used);
    if (!used) {
        placer_free(ctl, &pl, nb);
        return LOGREP_ERR__NOMEM;
    }

    lr_md_record rec;
    uint8_t id[16];
    new_topic_id(ctl, id);
    lr_md_record_init(&rec, LR_MD_TOPIC, 0);
    rec.u.topic.name = mkstr(req->name);
    memcpy(rec.u.topic.topic_id, id, 16);
    err = emit(ctl, &rec);
    for (size_t i = 0; !err && i < req->n_configs; i++) {
        lr_md_record_init(&rec, LR_MD_CONFIG, 0);
        rec.u.config.resource_type = LR_MD_RESOURCE_TOPIC;
        rec.u.config.resource_name = mkstr(req->name);
        rec.u.config.name = mkstr(req->configs[i].name);
        rec.u.config.value = mkstr(req->configs[i].value);
        err = emit(ctl, &rec);
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
        err = emit(ctl, &rec);
    }
    lr_free(&ctl->alloc, used, (size_t)rf * sizeof *used);
    placer_free(ctl, &pl, nb);
    if (!err && topic_id)
        memcpy(topic_id, id, 16);
    return err;
}

int lr_ctl_delete_topic(lr_ctl *ctl, const char *name)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !name)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, name);
    if (!t)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_REMOVE_TOPIC, 0);
    memcpy(rec.u.remove_topic.topic_id, t->id, 16);
    return emit(ctl, &rec);
}

int lr_ctl_set_topic_config(lr_ctl *ctl, const char *topic, const char *name, const char *value)
{
    if (ctl->failed)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !topic || !name)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_topic *t = lr_md_topic_by_name(ctl->img, topic);
    if (!t)
        return LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (!str_len_ok(name, 0) || !config_value_ok(name, value))
        return LOGREP_ERR_INVALID_CONFIG;
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_CONFIG, 0);
    rec.u.config.resource_type = LR_MD_RESOURCE_TOPIC;
    rec.u.config.resource_name = mkstr(topic);
    rec.u.config.name = mkstr(name);
    rec.u.config.value = mkstr(value);
    int err = emit(ctl, &rec);
    change_opts o;
    opts_init(&o);
    int is_min_isr = strcmp(name, "min.insync.replicas") == 0;
    int is_unclean = strcmp(name, "unclean.leader.election.enable") == 0;
    o.clear_elr = (uint8_t)is_min_isr;
    t = lr_md_topic_by_name(ctl->img, topic);
    for (int32_t j = 0; !err && (is_min_isr || is_unclean) && j < t->n_parts; j++) {
        const lr_md_partition *p = &t->parts[j];
        if ((is_min_isr && (p->n_elr || p->n_lke)) || (is_unclean && p->leader < 0))
            err = partition_change(ctl, t, j, &o, NULL);
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
    if (ctl->failed)
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
        err = ids_reserve(ctl, p->n_replicas);
    if (err) {
        fill_state(p, out);
        return err;
    }
    /* The target ISR lives in the 4th builder list (the builder uses 0-2). */
    int32_t *target = ctl->ids + 3 * ctl->slot;
    for (size_t i = 0; i < req->n_new_isr; i++)
        target[i] = req->new_isr[i].broker_id;
    change_opts o;
    opts_init(&o);
    o.target_isr = target;
    o.n_target_isr = (int32_t)req->n_new_isr;
    o.target_lrs = req->leader_recovery_state;
    int32_t old_leader = p->leader;
    err = partition_change(ctl, t, req->partition, &o, NULL);
    t = lr_md_topic_by_id(ctl->img, req->topic_id);
    p = lr_md_partition_get(t, req->partition);
    fill_state(p, out);
    if (!err && p->leader != old_leader && p->leader != req->broker_id)
        err = LOGREP_ERR_NEW_LEADER_ELECTED;
    return err;
}

int lr_ctl_elect_leader(lr_ctl *ctl, const char *topic, int32_t partition, int type)
{
    if (ctl->failed)
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
    opts_init(&o);
    o.mode = type == LR_CTL_ELECT_PREFERRED ? MODE_PREFERRED : MODE_UNCLEAN;
    int changed;
    int err = partition_change(ctl, t, partition, &o, &changed);
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
    if (ctl->failed)
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
    int err = emit(ctl, &rec);
    if (!err) {
        *first = start;
        *count = LR_MD_PRODUCER_ID_BLOCK;
    }
    return err;
}
