/* The controller: broker registration, heartbeats, sessions, the tick. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/conf.h"
#include "controller/ctl_int.h"
#include "controller/topic_config.h"

/* ------------------------------------------------------------------------
 * Broker registration and heartbeats
 * ---------------------------------------------------------------------- */

int lr_ctl_register_broker(lr_ctl *ctl, const lr_ctl_register_req *req, int64_t now_ms,
                           lr_ctl_register_resp *resp)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !req || !resp || (req->n_endpoints && !req->endpoints))
        return LOGREP_ERR__INVALID_ARG;
    if (req->broker_id < 0 || (req->rack && !lr_ctli_str_len_ok(req->rack, 1)) ||
        req->n_endpoints > INT16_MAX)
        return LOGREP_ERR_INVALID_REGISTRATION;
    for (size_t i = 0; i < req->n_endpoints; i++)
        if (!lr_ctli_str_len_ok(req->endpoints[i].name, 0) ||
            !lr_ctli_str_len_ok(req->endpoints[i].host, 0))
            return LOGREP_ERR_INVALID_REGISTRATION;
    int err = lr_ctli_sessions_adopt(ctl, now_ms);
    if (err)
        return err;
    const lr_md_broker *old = lr_md_broker_get(ctl->img, req->broker_id);
    ctl_session *s = lr_ctli_session_get(ctl, req->broker_id, 0);
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
    if (!(s = lr_ctli_session_get(ctl, req->broker_id, 1)))
        return LOGREP_ERR__NOMEM;

    lr_md_endpoint_rec eps[16];
    lr_md_endpoint_rec *ep = eps;
    if (req->n_endpoints > 16) {
        ep = lr_calloc(&ctl->alloc, req->n_endpoints, sizeof *ep);
        if (!ep)
            return LOGREP_ERR__NOMEM;
    }
    for (size_t i = 0; i < req->n_endpoints; i++) {
        ep[i].name = lr_ctli_mkstr(req->endpoints[i].name);
        ep[i].host = lr_ctli_mkstr(req->endpoints[i].host);
        ep[i].port = req->endpoints[i].port;
        ep[i].security_protocol = req->endpoints[i].security_protocol;
    }

    int clean = 0;
    if (!same_incarnation && old) {
        clean = old_ended;
        /* The old incarnation is gone: fence it if the controller had not
         * noticed yet, then forget what an unclean stop may have lost. */
        if (!old->fenced)
            err = lr_ctli_fence_broker(ctl, req->broker_id);
        if (!err && !clean && lr_md_get_defaults(ctl->img)->elr_enabled) {
            change_opts o;
            lr_ctli_opts_init(&o);
            o.unclean = req->broker_id;
            err = lr_ctli_sweep(ctl, req->broker_id, IN_ISR | IN_ELR | IN_LKE, &o);
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
        g->rack = lr_ctli_mkstr(req->rack);
        if (same_incarnation) {
            g->epoch = old->epoch;
            g->fenced = old->fenced;
            g->in_controlled_shutdown = old->in_controlled_shutdown;
        } else {
            g->epoch = lr_md_next_offset(ctl->img);
            g->fenced = 1;
        }
        err = lr_ctli_emit(ctl, &rec);
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
        if (s->live && lr_ctli_broker_active(ctl->img, s->id) && s->metadata_offset < lo)
            lo = s->metadata_offset;
    }
    return lo;
}

int lr_ctl_heartbeat(lr_ctl *ctl, const lr_ctl_heartbeat_req *req, int64_t now_ms,
                     lr_ctl_heartbeat_resp *resp)
{
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    if (!ctl || !req || !resp)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_broker *b = lr_md_broker_get(ctl->img, req->broker_id);
    if (!b)
        return LOGREP_ERR_BROKER_ID_NOT_REGISTERED;
    if (b->epoch != req->broker_epoch)
        return LOGREP_ERR_STALE_BROKER_EPOCH;
    int err = lr_ctli_sessions_adopt(ctl, now_ms);
    ctl_session *s = err ? NULL : lr_ctli_session_get(ctl, req->broker_id, 1);
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
            err = lr_ctli_unfence_broker(ctl, id); /* after a shutdown: only a new registration */
    } else if (!b->in_controlled_shutdown) {
        if (req->want_fence) {
            err = lr_ctli_fence_broker(ctl, id);
            shutdown_now = req->want_shutdown;
        } else if (req->want_shutdown) {
            err = lr_ctli_emit_registration_change(ctl, b, 0, 1);
            if (!err) {
                change_opts o;
                lr_ctli_opts_init(&o);
                o.remove = id;
                err = lr_ctli_sweep(ctl, id, IN_ISR, &o);
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
    if (!b->fenced && b->in_controlled_shutdown && !lr_ctli_leads_any(ctl->img, id) &&
        s->cs_offset <= lowest_active_offset(ctl)) {
        err = lr_ctli_fence_broker(ctl, id);
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
    if (ctl->failed || ctl->standby)
        return LOGREP_ERR_NOT_CONTROLLER;
    int err = lr_ctli_sessions_adopt(ctl, now_ms);
    for (size_t i = 0; !err && i < ctl->n_sessions; i++) {
        ctl_session *s = &ctl->sessions[i];
        const lr_md_broker *b = lr_md_broker_get(ctl->img, s->id);
        if (!s->live || !b || b->fenced || now_ms - s->last_contact_ms <= ctl->session_timeout_ms)
            continue;
        LR_LOG(&ctl->log, 5, "controller", "broker %d session expired, fencing", (int)s->id);
        err = lr_ctli_fence_broker(ctl, s->id);
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
        lr_ctli_opts_init(&o);
        for (int32_t j = 0; !err && j < t->n_parts; j++)
            if (t->parts[j].leader < 0)
                err = lr_ctli_partition_change(ctl, t, j, &o, NULL);
    }
    return err;
}

int64_t lr_ctl_deadline(const lr_ctl *ctl, int64_t now_ms)
{
    if (ctl->failed || ctl->standby)
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

