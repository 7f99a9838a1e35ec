/* The simulation's controllers: one, or a quorum of three dedicated
 * voters (their configuration, a voter's disk replaced), and the topic made
 * and deleted through them (a quorum's creation waits for its leader and
 * the brokers' registrations, and is asked again when the leader moves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"
#include "sim/sim_int.h"

#define SET(k, v) (e = lr_sim_conf_set(s, conf, k, v, e))

/* The controller settings of node id: its role and the voters (a broker
 * finds the controllers there). Skipped once e is set; returns the first
 * error, traced. */
int lr_sim_ctl_conf(logrep_sim *s, logrep_conf *conf, int32_t id, int e)
{
    char buf[64];
    SET("process.roles", id > s->nb ? "controller" : "broker");
    if (s->nc > 1) {
        /* A quorum of dedicated controllers, on the simulation's time
         * scale: elections within a few hundred ms, a leader cut off from
         * the others resigns after 1.5 fetch timeouts. */
        char voters[128];
        int k = 0;
        for (int32_t v = s->nb + 1; v <= s->nn; v++)
            k += snprintf(voters + k, sizeof voters - (size_t)k, "%s%d@ctl%d:9093",
                          v > s->nb + 1 ? "," : "", v, v);
        SET("controller.quorum.voters", voters);
        SET("controller.quorum.election.timeout.ms", "300");
        SET("controller.quorum.fetch.timeout.ms", "600");
        SET("controller.quorum.request.timeout.ms", "500");
    } else {
        snprintf(buf, sizeof buf, "%d@ctl:9093", s->ctl);
        SET("controller.quorum.voters", buf);
    }
    if (s->snapshot_bytes > 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)s->snapshot_bytes);
        SET("metadata.log.max.record.bytes.between.snapshots", buf);
    }
    return e;
}
#undef SET

/* A voter's disk is replaced as docs/quorum.md ("Disk loss") says it must
 * be: the metadata directory made again, empty, so the voter knows it lost
 * its state and abstains. A voter with no directory at all would look new
 * and format itself: unsafe. */
logrep_err lr_sim_ctl_voter_disk(logrep_sim *s, int32_t id)
{
    logrep_storage *st = s->st[id];
    if (st->mkdir(st->ctx, "data") || st->mkdir(st->ctx, "data/__cluster_metadata-0") ||
        (st->sync_dir && (st->sync_dir(st->ctx, "data") ||
                          st->sync_dir(st->ctx, "data/__cluster_metadata-0"))))
        return LOGREP_ERR__IO;
    lr_sim_trace(s, "fault: node %d's new disk holds an empty data/__cluster_metadata-0", id);
    return LOGREP_OK;
}

/* ------------------------------------------------------------ create */

/* Sends s->msg to the first running broker from a one-shot client whose
 * answer is not read: callers poll the state they wait for. */
static logrep_err send_oneshot_bytes(logrep_sim *s, const uint8_t *buf, size_t len)
{
    int32_t to = 1;
    while (to < s->nb && !s->node[to])
        to++;
    lr_sim_actor *a = lr_sim_actor_new(s, ACT_ONESHOT);
    if (!a)
        return LOGREP_ERR__NOMEM;
    a->end = lr_sim_client_connect(s, LR_SIM_ACTOR0 + a->idx, to);
    a->state = AS_DONE;
    a->done = 1;
    lr_sim_client_send(s, LR_SIM_ACTOR0 + a->idx, a->end, buf, len);
    return LOGREP_OK;
}

static logrep_err send_oneshot(logrep_sim *s)
{
    const uint8_t *buf;
    size_t len;
    if (logrep_msg_encode_flat(s->msg, &buf, &len) != LOGREP_OK)
        return LOGREP_ERR__NOMEM;
    return send_oneshot_bytes(s, buf, len);
}

/* Creates the topic through the controller's API on a broker and waits
 * until every partition has a leader with a full ISR. */
logrep_err lr_sim_create_topic(logrep_sim *s)
{
    logrep_msg *m = s->msg;
    logrep_msg_init_request(m, LOGREP_API_CREATE_TOPICS, 5, 1, "sim");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, lr_fid(root, LR_FN_timeoutMs), 10000);
    logrep_struct_set_count(root, lr_fid(root, LR_FN_Topics), 1);
    logrep_struct *t = logrep_struct_elem(root, lr_fid(root, LR_FN_Topics), 0);
    logrep_struct_set_bytes(t, lr_fid(t, LR_FN_Name), LR_SIM_TOPIC, 1);
    logrep_struct_set_int(t, lr_fid(t, LR_FN_NumPartitions), s->conf.partitions);
    logrep_struct_set_int(t, lr_fid(t, LR_FN_ReplicationFactor), s->conf.replication_factor);
    logrep_err err;
    if (s->nc > 1) {
        /* A quorum elects its leader first, and brokers find it by
         * trying the voters in turn: the creation waits until every
         * running broker is registered with the active controller. */
        for (int k = 0; k < 400; k++) {
            int ready = logrep_sim_active_controller(s) > 0;
            for (int32_t id = 1; id <= s->nb && ready; id++)
                if (s->node[id] && !lr_sim_registered_now(s, id))
                    ready = 0;
            if (ready)
                break;
            if ((err = logrep_sim_run(s, 25)) != 0)
                return err;
        }
    }
    const uint8_t *req;
    size_t req_len;
    if (logrep_msg_encode_flat(m, &req, &req_len) != LOGREP_OK)
        return LOGREP_ERR__NOMEM;
    uint8_t *copy = s->nc > 1 ? malloc(req_len) : NULL;
    if (copy)
        memcpy(copy, req, req_len);
    err = send_oneshot(s);
    if (err) {
        free(copy);
        return err;
    }
    for (int k = 0; k < 400; k++) {
        /* A quorum's active controller may change before it answers:
         * the creation is asked again, as an admin client retries. */
        if (copy && k % 80 == 79 && !lr_sim_ctl_part(s, 0)) {
            lr_sim_trace(s, "sim: asking again for the topic");
            if ((err = send_oneshot_bytes(s, copy, req_len)) != 0)
                break;
        }
        if ((err = logrep_sim_run(s, 25)) != 0)
            break;
        int ready = 1;
        for (int32_t p = 0; p < s->conf.partitions && ready; p++) {
            logrep_sim_part v;
            if (logrep_sim_controller_view(s, p, &v) || v.leader < 0 ||
                v.n_isr != s->conf.replication_factor)
                ready = 0;
            else {
                logrep_sim_replica r;
                if (logrep_sim_replica_view(s, v.leader, p, &r) || r.role != 1 ||
                    r.leader_epoch != v.leader_epoch)
                    ready = 0;
            }
        }
        if (ready) {
            lr_sim_trace(s, "sim: topic ready");
            free(copy);
            return LOGREP_OK;
        }
    }
    free(copy);
    if (err)
        return err;
    lr_sim_trace(s, "sim: the topic did not become ready");
    return LOGREP_ERR__TIMED_OUT;
}

LOGREP_API logrep_err logrep_sim_create_topic(logrep_sim *s)
{
    if (!s || lr_sim_ctl_part(s, 0))
        return LOGREP_ERR__INVALID_ARG;
    return lr_sim_create_topic(s);
}

LOGREP_API logrep_err logrep_sim_delete_topic(logrep_sim *s, int64_t max_ms)
{
    if (!s || !lr_sim_ctl_part(s, 0))
        return LOGREP_ERR__INVALID_ARG;
    logrep_msg *m = s->msg;
    logrep_msg_init_request(m, LOGREP_API_DELETE_TOPICS, 4, 2, "sim");
    logrep_struct *root = logrep_msg_root(m);
    logrep_struct_set_int(root, lr_fid(root, LR_FN_TimeoutMs), 10000);
    int ft = lr_fid(root, LR_FN_TopicNames);
    logrep_struct_set_count(root, ft, 1);
    logrep_struct_set_elem_bytes(root, ft, 0, LR_SIM_TOPIC, 1);
    logrep_err err = send_oneshot(s);
    for (int64_t t = 0; !err && t < max_ms; t += 25) {
        if ((err = logrep_sim_run(s, 25)) != 0)
            return err;
        int hosted = lr_sim_ctl_part(s, 0) != NULL;
        for (int32_t id = 1; id <= s->nb && !hosted; id++)
            for (int32_t p = 0; p < s->conf.partitions; p++)
                if (s->node[id] && lr_node_part(s->node[id], LR_SIM_TOPIC, p))
                    hosted = 1;
        if (!hosted) {
            lr_sim_trace(s, "sim: topic deleted");
            lr_sim_check_topic_deleted(s);
            return LOGREP_OK;
        }
    }
    return err ? err : LOGREP_ERR__TIMED_OUT;
}
