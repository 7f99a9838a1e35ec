/* The broker's life with the controller: registration (a new incarnation
 * each start, with the broker epoch of a clean shutdown when the marker
 * proves one), heartbeats that report how far the broker has caught up
 * and carry back whether it is fenced, and controlled shutdown: the
 * heartbeat asks to shut down, and once the controller has moved
 * leadership away the logs are flushed and the clean-shutdown marker
 * written (Kafka's .kafka_cleanshutdown, KIP-966). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"

lr_peer *lr_life_controller(logrep_node *n)
{
    return lr_peer_get(n, n->ctl_id, LR_CH_CONTROL);
}

static void marker_path(logrep_node *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s/.kafka_cleanshutdown", n->log_dir);
}

static void write_clean_marker(logrep_node *n)
{
    char path[1024], body[96];
    marker_path(n, path, sizeof path);
    int len = snprintf(body, sizeof body, "{\"version\":0,\"brokerEpoch\":%lld}", (long long)n->life.broker_epoch);
    logrep_file *f;
    if (n->st->open(n->st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f) != LOGREP_OK)
        return;
    n->st->truncate(n->st->ctx, f, 0);
    n->st->write(n->st->ctx, f, 0, body, (size_t)len);
    n->st->sync(n->st->ctx, f);
    n->st->close(n->st->ctx, f);
    if (n->st->sync_dir)
        n->st->sync_dir(n->st->ctx, n->log_dir);
}

/* Reads and removes the marker: its broker epoch proves a clean restart. */
static void read_clean_marker(logrep_node *n)
{
    char path[1024], body[128];
    marker_path(n, path, sizeof path);
    logrep_file *f;
    if (n->st->open(n->st->ctx, path, LOGREP_OPEN_READ, &f) != LOGREP_OK)
        return;
    size_t got = 0;
    n->st->read(n->st->ctx, f, 0, body, sizeof body - 1, &got);
    n->st->close(n->st->ctx, f);
    body[got] = 0;
    const char *e = strstr(body, "\"brokerEpoch\":");
    if (e)
        n->life.previous_clean_epoch = strtoll(e + 14, NULL, 10);
    n->st->remove(n->st->ctx, path);
}

static void register_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)o;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    n->life.registering = 0;
    logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_WARN, "node", "registration refused: %s", logrep_err_name(err));
        /* A standby voter: the next one is asked soon (peer.c moved on). */
        p->backoff_until = now_ms + (err == LOGREP_ERR_NOT_CONTROLLER ? 200 : 1000);
        return;
    }
    n->life.broker_epoch = lr_f_int(rs, LR_FN_BrokerEpoch);
    n->life.last_heartbeat = 0;
    n->life.fenced = 1; /* a new registration starts fenced */
    n->life.hb_offset = -1;
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node", "registered with broker epoch %lld",
           (long long)n->life.broker_epoch);
}

static void register_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    (void)now_ms;
    n->life.registering = 0;
}

static const lr_out_ops register_ops = {register_done, register_failed};

static void heartbeat_done(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    logrep_struct *rs = logrep_msg_root(n->peers.in);
    n->life.heartbeat_in_flight = 0;
    logrep_err err = (logrep_err)lr_f_int(rs, LR_FN_ErrorCode);
    if (err == LOGREP_ERR_STALE_BROKER_EPOCH || err == LOGREP_ERR_BROKER_ID_NOT_REGISTERED) {
        n->life.broker_epoch = -1; /* the controller lost us: register again */
        return;
    }
    if (err)
        return;
    n->life.fenced = (int)lr_f_int(rs, LR_FN_IsFenced);
    if (n->life.shutting_down && lr_f_int(rs, LR_FN_ShouldShutDown)) {
        for (size_t i = 0; i < n->parts.n; i++)
            logrep_log_flush(lr_partition_log(n->parts.v[i].rep), now_ms);
        write_clean_marker(n);
        n->life.shutdown_done = 1;
    }
}

static void heartbeat_failed(logrep_node *n, lr_peer *p, lr_outreq *o, int64_t now_ms)
{
    (void)p;
    (void)o;
    (void)now_ms;
    n->life.heartbeat_in_flight = 0;
}

static const lr_out_ops heartbeat_ops = {heartbeat_done, heartbeat_failed};

static void send_registration(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = lr_life_controller(n);
    logrep_struct *r =
        lr_peer_ready(c, now_ms) ? lr_peer_start(n, LOGREP_API_BROKER_REGISTRATION, 3) : NULL;
    if (!r)
        return;
    char cid[128];
    logrep_conf_get(n->conf, "logrep.cluster.id", cid, sizeof cid, NULL);
    lr_f_set_int(r, LR_FN_BrokerId, n->id);
    lr_f_set_str(r, LR_FN_ClusterId, cid, (int32_t)strlen(cid));
    uint8_t inc[16];
    uint64_t a = lr_prng_next(&n->rng), b = lr_prng_next(&n->rng);
    memcpy(inc, &a, 8);
    memcpy(inc + 8, &b, 8);
    logrep_struct_set_uuid(r, lr_fid(r, LR_FN_IncarnationId), inc);
    if (n->adv_host) {
        lr_f_set_count(r, LR_FN_Listeners, 1);
        logrep_struct *l = lr_f_elem(r, LR_FN_Listeners, 0);
        lr_f_set_str(l, LR_FN_Name, "PLAINTEXT", 9);
        lr_f_set_str(l, LR_FN_Host, n->adv_host, (int32_t)strlen(n->adv_host));
        lr_f_set_int(l, LR_FN_Port, n->adv_port);
        lr_f_set_int(l, LR_FN_SecurityProtocol, 0);
    }
    if (n->rack[0])
        lr_f_set_str(r, LR_FN_Rack, n->rack, (int32_t)strlen(n->rack));
    else
        logrep_struct_set_null(r, lr_fid(r, LR_FN_Rack));
    lr_f_set_int(r, LR_FN_PreviousBrokerEpoch, n->life.previous_clean_epoch);
    if (lr_peer_send(n, c, &register_ops, NULL, now_ms) == 0)
        n->life.registering = 1;
}

static void send_heartbeat(logrep_node *n, int64_t now_ms)
{
    lr_peer *c = lr_life_controller(n);
    logrep_struct *r =
        lr_peer_ready(c, now_ms) ? lr_peer_start(n, LOGREP_API_BROKER_HEARTBEAT, 1) : NULL;
    if (!r)
        return;
    lr_f_set_int(r, LR_FN_BrokerId, n->id);
    lr_f_set_int(r, LR_FN_BrokerEpoch, n->life.broker_epoch);
    int64_t offset = lr_md_next_offset(n->md.img) - 1;
    lr_f_set_int(r, LR_FN_CurrentMetadataOffset, offset);
    lr_f_set_int(r, LR_FN_WantFence, 0);
    lr_f_set_int(r, LR_FN_WantShutDown, n->life.shutting_down);
    if (lr_peer_send(n, c, &heartbeat_ops, NULL, now_ms) == 0) {
        n->life.heartbeat_in_flight = 1;
        n->life.last_heartbeat = now_ms;
        n->life.hb_offset = offset;
        n->life.hb_redirect = 0;
        n->life.shutdown_asked |= n->life.shutting_down;
    }
}

/* While the controller moves leadership away, a shutting-down broker asks
 * again this often instead of back to back. */
#define LR_SHUTDOWN_HEARTBEAT_MS 50
/* After a voter refused (a standby), the next one is asked this long
 * after, so a cluster without an active controller is not asked back to
 * back. */
#define LR_REDIRECT_HEARTBEAT_MS 50

/* When the next heartbeat is due earlier than the interval: a fenced
 * broker reports each metadata step at once (it is unfenced, and its
 * partitions get leaders, as soon as it has caught up, not a heartbeat
 * interval later); a broker starting its controlled shutdown asks at once
 * and then every LR_SHUTDOWN_HEARTBEAT_MS; a broker whose active
 * controller changed asks the new one at once: the new controller
 * started every session when it took over, and a heartbeat an interval
 * later can come after the session timeout. INT64_MAX: at the interval. */
static int64_t heartbeat_due_early(const logrep_node *n, int64_t now_ms)
{
    if (n->life.hb_redirect == 1)
        return now_ms;
    if (n->life.hb_redirect == 2)
        return n->life.last_heartbeat + LR_REDIRECT_HEARTBEAT_MS;
    if (n->life.shutting_down)
        return n->life.shutdown_asked ? n->life.last_heartbeat + LR_SHUTDOWN_HEARTBEAT_MS : now_ms;
    if (n->life.fenced && lr_md_next_offset(n->md.img) - 1 > n->life.hb_offset)
        return now_ms;
    return INT64_MAX;
}

int lr_life_tick(logrep_node *n, int64_t now_ms)
{
    if (n->life.broker_epoch < 0 && !n->life.registering) {
        if (n->life.previous_clean_epoch < 0)
            read_clean_marker(n);
        send_registration(n, now_ms);
        return 0;
    }
    if (n->life.broker_epoch < 0)
        return 0;
    int64_t hb = lr_conf_int(n->conf, LR_CONF_BROKER_HEARTBEAT_INTERVAL_MS);
    if (!n->life.heartbeat_in_flight &&
        (now_ms - n->life.last_heartbeat >= hb || heartbeat_due_early(n, now_ms) <= now_ms))
        send_heartbeat(n, now_ms);
    return 1;
}

int64_t lr_life_deadline(const logrep_node *n, int64_t now_ms)
{
    const lr_peer *ctl = lr_peer_find(n, n->ctl_id, LR_CH_CONTROL);
    if (n->life.broker_epoch < 0)
        return n->life.registering ? INT64_MAX : lr_peer_after_backoff(ctl, now_ms);
    if (n->life.heartbeat_in_flight)
        return INT64_MAX;
    int64_t hb = n->life.last_heartbeat + lr_conf_int(n->conf, LR_CONF_BROKER_HEARTBEAT_INTERVAL_MS);
    int64_t early = heartbeat_due_early(n, now_ms);
    return lr_peer_after_backoff(ctl, early < hb ? early : hb);
}
