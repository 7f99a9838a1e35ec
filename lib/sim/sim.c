/* The simulator's core: virtual clock, event queue, nodes over
 * crash-simulating storage, their faults and the trace (the network is
 * sim_net.c, the controllers and the topic made through them sim_ctl.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"
#include "sim/sim_int.h"

/* ------------------------------------------------------------ trace */

#define TRACE_W 200

static void trace_line(logrep_sim *s, const char *line)
{
    if (!s->trace)
        return;
    char *slot = s->trace + (size_t)s->trace_next * TRACE_W;
    snprintf(slot, TRACE_W, "%s", line);
    s->trace_next = (s->trace_next + 1) % s->trace_cap;
    if (s->trace_count < s->trace_cap)
        s->trace_count++;
    if (s->conf.trace_stderr)
        fprintf(stderr, "%s\n", line);
}

static void vtrace(logrep_sim *s, const char *fmt, va_list ap)
{
    char line[TRACE_W];
    int k = snprintf(line, sizeof line, "%7lld.%03lld ", (long long)(s->now / 1000),
                     (long long)(s->now % 1000));
    vsnprintf(line + k, sizeof line - (size_t)k, fmt, ap);
    trace_line(s, line);
}

void lr_sim_trace(logrep_sim *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vtrace(s, fmt, ap);
    va_end(ap);
}

LOGREP_API void logrep_sim_note(logrep_sim *s, const char *text)
{
    if (s && text)
        lr_sim_trace(s, "%s", text);
}

void lr_sim_fail(logrep_sim *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->failure, sizeof s->failure, fmt, ap);
    va_end(ap);
    lr_sim_trace(s, "VIOLATION %s", s->failure);
}

LOGREP_API const char *logrep_sim_failure(const logrep_sim *s)
{
    return s && s->failed ? s->failure : NULL;
}

LOGREP_API void logrep_sim_trace_dump(const logrep_sim *s, int lines, logrep_sim_line_fn fn,
                                      void *ctx)
{
    if (!s || !fn || !s->trace)
        return;
    int32_t n = s->trace_count;
    if (lines > 0 && lines < n)
        n = lines;
    int32_t first = (s->trace_next - n + s->trace_cap) % s->trace_cap;
    for (int32_t i = 0; i < n; i++) {
        const char *line = s->trace + (size_t)((first + i) % s->trace_cap) * TRACE_W;
        fn(ctx, line, strlen(line));
    }
}

LOGREP_API int64_t logrep_sim_now(const logrep_sim *s)
{
    return s ? s->now : 0;
}

uint64_t lr_sim_rand(logrep_sim *s, uint64_t n)
{
    return n ? lr_prng_below(&s->rng, n) : 0;
}

/* ------------------------------------------------------------ events */

static int ev_less(const lr_sim_ev *a, const lr_sim_ev *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_insert(logrep_sim *s, lr_sim_ev e)
{
    if (s->nq == s->capq) {
        size_t ncap = s->capq ? s->capq * 2 : 1024;
        lr_sim_ev *nq = realloc(s->q, ncap * sizeof *nq);
        if (!nq)
            return LOGREP_ERR__NOMEM;
        s->q = nq;
        s->capq = ncap;
    }
    size_t i = s->nq++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&e, &s->q[p]))
            break;
        s->q[i] = s->q[p];
        i = p;
    }
    s->q[i] = e;
    return 0;
}

static int push_ev(logrep_sim *s, int64_t t, int kind, int32_t who, lr_memnet_msg *m)
{
    lr_sim_ev e = {t, s->seq++, kind, who, 0, m};
    if (who >= 1 && who <= s->nn)
        e.inc = s->inc[who];
    return heap_insert(s, e);
}

int lr_sim_push(logrep_sim *s, int64_t t, int kind, int32_t who)
{
    return push_ev(s, t, kind, who, NULL);
}

int lr_sim_push_msg(logrep_sim *s, int64_t t, lr_memnet_msg *m)
{
    return push_ev(s, t, EV_NET, m->to, m);
}

static lr_sim_ev pop(logrep_sim *s)
{
    lr_sim_ev top = s->q[0];
    lr_sim_ev last = s->q[--s->nq];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const lr_sim_ev *best = &last;
        if (l < s->nq && ev_less(&s->q[l], best)) {
            m = l;
            best = &s->q[l];
        }
        if (r < s->nq && ev_less(&s->q[r], best))
            m = r;
        if (m == i)
            break;
        s->q[i] = s->q[m];
        i = m;
    }
    if (s->nq)
        s->q[i] = last;
    return top;
}

/* ------------------------------------------------------------ nodes */

int lr_sim_conf_set(logrep_sim *s, logrep_conf *conf, const char *k, const char *v, int e)
{
    char err[200];
    if (!e && (e = logrep_conf_set(conf, k, v, err, sizeof err)) != 0)
        lr_sim_trace(s, "harness: conf %s=%s: %s", k, v, err);
    return e;
}

static int64_t node_now(logrep_sim *s, int32_t id)
{
    int64_t t = s->now + s->skew[id];
    if (t < s->last_node_now[id])
        t = s->last_node_now[id];
    s->last_node_now[id] = t;
    return t;
}

static void node_log(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    lr_sim_nodectx *x = ctx;
    if (level <= LOGREP_LEVEL_INFO)
        lr_sim_trace(x->sim, "n%d %s: %.*s", x->id, subsys, (int)len, msg);
}

static int start_node(logrep_sim *s, int32_t id)
{
    logrep_conf *conf = logrep_conf_new();
    if (!conf)
        return LOGREP_ERR__NOMEM;
    char buf[64], err[200];
    int e = 0;
#define SET(k, v) (e = lr_sim_conf_set(s, conf, k, v, e))
    snprintf(buf, sizeof buf, "%d", id);
    SET("node.id", buf);
    e = lr_sim_ctl_conf(s, conf, id, e);
    snprintf(buf, sizeof buf, "PLAINTEXT://n%d:9092", id);
    SET("advertised.listeners", buf);
    snprintf(buf, sizeof buf, "%d", s->conf.min_isr);
    SET("min.insync.replicas", buf);
    SET("unclean.leader.election.enable", s->conf.unclean ? "true" : "false");
    SET("eligible.leader.replicas.enable", s->conf.elr_disabled ? "false" : "true");
    SET("log.dirs", "data");
    SET("replica.fetch.wait.max.ms", "50");
    SET("replica.fetch.backoff.ms", "100");
    snprintf(buf, sizeof buf, "%lld", (long long)s->conf.lag_max_ms);
    SET("replica.lag.time.max.ms", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)s->conf.session_timeout_ms);
    SET("broker.session.timeout.ms", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)(s->conf.session_timeout_ms / 5 + 1));
    SET("broker.heartbeat.interval.ms", buf);
    /* A new seed per start: the incarnation id comes from it. */
    snprintf(buf, sizeof buf, "%llu",
             (unsigned long long)(s->conf.seed * 1000003u + (uint64_t)id * 131u + s->inc[id]));
    SET("logrep.random.seed", buf);
    snprintf(buf, sizeof buf, "rack%d", id);
    SET("broker.rack", buf);
    SET("segment.bytes", "65536");
    SET("file.delete.delay.ms", "3000"); /* retired directories go within a scenario */
    /* Groups: few offsets partitions, rebalances and sessions on the
     * simulation's time scale, retention checks that run within a run. */
    snprintf(buf, sizeof buf, "%d", LR_SIM_OFFSETS_PARTS);
    SET("offsets.topic.num.partitions", buf);
    SET("group.initial.rebalance.delay.ms", "100");
    SET("group.min.session.timeout.ms", "500");
    SET("offsets.retention.check.interval.ms", "1000");
    if (s->conf.offsets_retention_minutes > 0) {
        snprintf(buf, sizeof buf, "%d", s->conf.offsets_retention_minutes);
        SET("offsets.retention.minutes", buf);
    }
    if (s->conf.bug && *s->conf.bug) {
#ifdef LOGREP_TEST
        SET("logrep.sim.bug", s->conf.bug);
#else
        e = LOGREP_ERR__UNSUPPORTED; /* the bugs exist in test builds only */
        lr_sim_trace(s, "harness: bug %s needs a test build (LOGREP_TEST)", s->conf.bug);
#endif
    }
#undef SET
    if (e) {
        logrep_conf_free(conf);
        return e;
    }
    s->nctx[id] = (lr_sim_nodectx){s, id};
    logrep_conf_set_logger(conf, node_log, &s->nctx[id], LOGREP_LEVEL_INFO);
    s->inc[id]++;
    e = logrep_node_new(conf, s->st[id], lr_memnet_transport(s->net, id), node_now(s, id), err,
                        sizeof err, &s->node[id]);
    logrep_conf_free(conf);
    if (e) {
        lr_sim_trace(s, "harness: node %d does not start: %s %s", id, logrep_err_name(e), err);
        s->node[id] = NULL;
        return e;
    }
    lr_memnet_set_node(s->net, id, s->node[id]);
    lr_sim_trace(s, "node %d up (incarnation %u)", id, s->inc[id]);
    lr_sim_push(s, s->now + 1 + (int64_t)lr_sim_rand(s, 10), EV_TICK, id);
    return 0;
}

static void stop_node(logrep_sim *s, int32_t id, int abandon)
{
    logrep_node_free(s->node[id], abandon);
    s->node[id] = NULL;
    lr_memnet_set_node(s->net, id, NULL); /* its connections close */
}

LOGREP_API int logrep_sim_is_up(const logrep_sim *s, int32_t id)
{
    return s && lr_sim_is_node(s, id) && s->node[id] != NULL;
}

LOGREP_API logrep_err logrep_sim_kill(logrep_sim *s, int32_t id, int mode)
{
    if (!s || !lr_sim_is_node(s, id) || !s->node[id] || mode < 0 || mode > LOGREP_SIM_CRASH_DISK)
        return LOGREP_ERR__INVALID_ARG;
    static const char *names[] = {"process crash", "power loss", "power loss (drop all)",
                                  "power loss + disk replaced"};
    lr_sim_trace(s, "fault: kill node %d (%s)", id, names[mode]);
    stop_node(s, id, 1);
    if (mode == LOGREP_SIM_CRASH_PROCESS) {
        logrep_storage_crash_simulate(s->st[id], 0, LOGREP_CRASH_KEEP_ALL);
    } else if (mode == LOGREP_SIM_CRASH_DISK) {
        logrep_storage_free(s->st[id]);
        s->st[id] = NULL;
        if (logrep_storage_crash_new(NULL, 512, &s->st[id]) != LOGREP_OK)
            return LOGREP_ERR__NOMEM;
        if (lr_sim_is_voter(s, id) && lr_sim_ctl_voter_disk(s, id) != LOGREP_OK)
            return LOGREP_ERR__IO;
        lr_sim_mark_lossy(s, id);
    } else {
        uint64_t cs = lr_prng_next(&s->rng);
        logrep_storage_crash_simulate(s->st[id], cs,
                                      mode == LOGREP_SIM_CRASH_POWER ? LOGREP_CRASH_RANDOM
                                                                     : LOGREP_CRASH_DROP_ALL);
        lr_sim_mark_lossy(s, id);
    }
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_sim_restart(logrep_sim *s, int32_t id)
{
    if (!s || !lr_sim_is_node(s, id) || s->node[id])
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_trace(s, "fault: restart node %d", id);
    return start_node(s, id);
}

LOGREP_API logrep_err logrep_sim_shutdown(logrep_sim *s, int32_t id, int64_t max_ms)
{
    if (!s || !lr_sim_is_node(s, id) || !s->node[id])
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_trace(s, "fault: controlled shutdown of node %d", id);
    logrep_node_shutdown(s->node[id], node_now(s, id));
    for (int64_t t = 0; t < max_ms && s->node[id] && !logrep_node_shutdown_done(s->node[id]); t += 10)
        if (logrep_sim_run(s, 10) != LOGREP_OK)
            return LOGREP_ERR__CORRUPT;
    int done = s->node[id] && logrep_node_shutdown_done(s->node[id]);
    lr_sim_trace(s, "node %d stops (%s)", id, done ? "clean" : "shutdown incomplete");
    if (s->node[id])
        stop_node(s, id, 0);
    logrep_storage_crash_simulate(s->st[id], 0, LOGREP_CRASH_KEEP_ALL);
    return done ? LOGREP_OK : LOGREP_ERR__TIMED_OUT;
}

LOGREP_API logrep_err logrep_sim_disk_fault(logrep_sim *s, int32_t id, logrep_err err,
                                            uint64_t countdown, int persistent)
{
    if (!s || !lr_sim_is_node(s, id) || !s->st[id])
        return LOGREP_ERR__INVALID_ARG;
    lr_sim_trace(s, "fault: node %d disk %s after %llu ops%s", id, logrep_err_name(err),
                 (unsigned long long)countdown, persistent ? ", persistent" : "");
    s->disk_faulted[id] = 1;
    return logrep_storage_crash_inject(s->st[id], LOGREP_STORAGE_OP_WRITE | LOGREP_STORAGE_OP_SYNC,
                                       countdown, err, persistent);
}

LOGREP_API void logrep_sim_clock_jump(logrep_sim *s, int32_t id, int64_t ms)
{
    if (!s || !lr_sim_is_node(s, id) || ms <= 0)
        return;
    s->skew[id] += ms;
    lr_sim_trace(s, "fault: node %d clock jumps +%lld ms", id, (long long)ms);
}

LOGREP_API void logrep_sim_pause(logrep_sim *s, int32_t id, int64_t ms)
{
    if (!s || !lr_sim_is_node(s, id) || ms <= 0)
        return;
    s->paused_until[id] = s->now + ms;
    lr_sim_trace(s, "fault: node %d paused for %lld ms", id, (long long)ms);
}

int32_t lr_sim_random_up_broker(logrep_sim *s)
{
    int32_t up[LR_SIM_MAXN], n = 0;
    for (int32_t i = 1; i <= s->nb; i++)
        if (s->node[i] && !s->client_block[i])
            up[n++] = i;
    return n ? up[lr_sim_rand(s, (uint64_t)n)] : -1;
}

/* ------------------------------------------------------------ the loop */

static const char *api_of(const uint8_t *d, size_t len, int accepted)
{
    if (!accepted || len < 8)
        return "response";
    return logrep_proto_api_name((d[4] << 8) | d[5]);
}

static void deliver(logrep_sim *s, lr_sim_ev *e)
{
    switch (e->kind) {
    case EV_TICK:
        if (!s->node[e->who] || e->inc != s->inc[e->who])
            return;
        logrep_node_tick(s->node[e->who], node_now(s, e->who));
        lr_sim_push(s, s->now + 8 + (int64_t)lr_sim_rand(s, 5), EV_TICK, e->who);
        return;
    case EV_NET: {
        lr_memnet_msg *m = e->msg;
        e->msg = NULL;
        int to_node = lr_sim_is_node(s, m->to);
        lr_memnet_end_info in;
        if (to_node && m->kind == LR_MEMNET_FRAME && s->node[m->to] &&
            lr_memnet_end(s->net, m->end, &in) && (m->from < LR_SIM_ACTOR0 || in.accepted))
            lr_sim_trace(s, "deliver %d->%d %s %zu B", m->from, m->to,
                         api_of(m->data, m->len, in.accepted), m->len);
        lr_memnet_deliver(s->net, m, to_node ? node_now(s, m->to) : s->now);
        return;
    }
    case EV_ACTOR:
        if ((size_t)(e->who - LR_SIM_ACTOR0) < s->nactors)
            lr_sim_actor_timer(s, &s->actors[e->who - LR_SIM_ACTOR0]);
        return;
    }
}

/* The node an event is for, when the event must wait for a paused node. */
static int32_t target_node(logrep_sim *s, const lr_sim_ev *e)
{
    if (e->kind == EV_TICK)
        return lr_sim_is_node(s, e->who) ? e->who : 0;
    if (e->kind != EV_NET || !lr_sim_is_node(s, e->msg->to))
        return 0;
    if (e->msg->kind == LR_MEMNET_FRAME && !lr_memnet_end(s->net, e->msg->end, NULL))
        return 0;
    return e->msg->to;
}

LOGREP_API logrep_err logrep_sim_run(logrep_sim *s, int64_t ms)
{
    if (!s)
        return LOGREP_ERR__INVALID_ARG;
    int64_t until = s->now + ms;
    while (!s->failed && s->nq && s->q[0].t <= until) {
        lr_sim_ev e = pop(s);
        if (e.t > s->now)
            s->now = e.t;
        int32_t tn = target_node(s, &e);
        if (tn && s->paused_until[tn] > s->now) {
            /* The node is frozen: the event waits, in order. */
            e.t = s->paused_until[tn];
            e.seq = s->seq++;
            if (heap_insert(s, e) != 0)
                lr_memnet_msg_free(s->net, e.msg);
            continue;
        }
        deliver(s, &e);
        s->stats.steps++;
        lr_sim_check(s);
    }
    if (!s->failed && s->now < until)
        s->now = until;
    return s->failed ? LOGREP_ERR__CORRUPT : LOGREP_OK;
}

LOGREP_API const logrep_storage *logrep_sim_storage(const logrep_sim *s, int32_t id)
{
    return s && id >= 1 && id <= s->nn ? s->st[id] : NULL;
}

LOGREP_API logrep_err logrep_sim_new(const logrep_sim_conf *conf, logrep_sim **out)
{
    return logrep_sim_new_ex(conf, 1, out);
}

LOGREP_API logrep_err logrep_sim_new_ex(const logrep_sim_conf *conf, int32_t controllers,
                                        logrep_sim **out)
{
    return lr_sim_new(conf, controllers, 0, out);
}

logrep_err lr_sim_new(const logrep_sim_conf *conf, int32_t controllers, int64_t snapshot_bytes,
                      logrep_sim **out)
{
    if (!out)
        return LOGREP_ERR__INVALID_ARG;
    *out = NULL;
    logrep_sim_conf c = conf ? *conf : (logrep_sim_conf){0};
    if (!c.brokers)
        c.brokers = 3;
    if (controllers != 1 && controllers != 3)
        return LOGREP_ERR__INVALID_ARG;
    if (c.brokers < 1 || c.brokers > LR_SIM_MAXN - controllers)
        return LOGREP_ERR__INVALID_ARG;
    if (!c.partitions)
        c.partitions = 1;
    if (c.partitions < 1 || c.partitions > LR_SIM_MAXP)
        return LOGREP_ERR__INVALID_ARG;
    if (!c.replication_factor)
        c.replication_factor = c.brokers < 3 ? c.brokers : 3;
    if (c.replication_factor < 1 || c.replication_factor > c.brokers)
        return LOGREP_ERR__INVALID_ARG;
    if (!c.min_isr)
        c.min_isr = 2;
    if (c.min_isr > c.replication_factor)
        c.min_isr = c.replication_factor;
    if (!c.lag_max_ms)
        c.lag_max_ms = 1000;
    if (!c.session_timeout_ms)
        c.session_timeout_ms = 1500;
    if (c.trace_lines <= 0)
        c.trace_lines = 8192;
    logrep_sim *s = calloc(1, sizeof *s);
    if (!s)
        return LOGREP_ERR__NOMEM;
    s->conf = c;
    s->snapshot_bytes = snapshot_bytes;
    lr_prng_seed(&s->rng, c.seed);
    s->now = 1000;
    s->nb = c.brokers;
    s->ctl = c.brokers + 1;
    s->nc = controllers;
    s->nn = c.brokers + controllers;
    s->trace_cap = c.trace_lines;
    s->trace = calloc((size_t)s->trace_cap, TRACE_W);
    for (int32_t p = 0; p < LR_SIM_MAXP; p++)
        lr_sim_check_part_init(&s->cp[p]);
    int err = 0;
    if (!s->trace || logrep_msg_new(NULL, &s->msg) || logrep_msg_new(NULL, &s->rmsg) ||
        logrep_batch_builder_new(NULL, &s->bb) || logrep_batch_reader_new(NULL, &s->rd))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = lr_sim_net_new(s);
    if (!err && s->nc > 1 && lr_sim_qck_init(s) != 0)
        err = LOGREP_ERR__NOMEM;
    for (int32_t f = 0; f <= s->nn; f++)
        for (int32_t t = 0; t <= s->nn; t++)
            s->link[f][t] = (lr_sim_link){1, 3, 0};
    char ctls[48];
    if (s->nc > 1)
        snprintf(ctls, sizeof ctls, "a quorum of controllers %d..%d", s->ctl, s->nn);
    else
        snprintf(ctls, sizeof ctls, "controller %d", s->ctl);
    lr_sim_trace(s, "sim: seed %llu, %d brokers + %s, %d partitions, RF %d, min ISR %d%s%s%s",
                 (unsigned long long)c.seed, s->nb, ctls, c.partitions, c.replication_factor,
                 c.min_isr, c.unclean ? ", unclean election on" : "",
                 c.bug && *c.bug ? ", bug " : "", c.bug && *c.bug ? c.bug : "");
    for (int32_t id = 1; !err && id <= s->nn; id++) {
        err = logrep_storage_crash_new(NULL, 512, &s->st[id]);
        if (!err)
            err = start_node(s, id);
    }
    *out = s;
    if (err)
        return err;
    /* Brokers register and unfence. */
    if ((err = logrep_sim_run(s, 1500)) != 0)
        return err;
    return lr_sim_create_topic(s);
}

LOGREP_API void logrep_sim_free(logrep_sim *s)
{
    if (!s)
        return;
    for (int32_t id = 1; id <= s->nn; id++) {
        if (s->node[id])
            logrep_node_free(s->node[id], 1);
        logrep_storage_free(s->st[id]);
    }
    for (size_t i = 0; i < s->nq; i++)
        lr_memnet_msg_free(s->net, s->q[i].msg);
    free(s->q);
    lr_memnet_free(s->net);
    lr_sim_gm_free_all(s);
    free(s->actors);
    lr_sim_check_free(s);
    lr_sim_qck_free(s);
    logrep_msg_free(s->msg);
    logrep_msg_free(s->rmsg);
    logrep_batch_builder_free(s->bb);
    logrep_batch_reader_free(s->rd);
    free(s->rbuf);
    free(s->trace);
    free(s);
}

/* ------------------------------------------------------------ views */

LOGREP_API logrep_err logrep_sim_controller_view(const logrep_sim *s, int32_t part,
                                                 logrep_sim_part *out)
{
    if (!s || !out)
        return LOGREP_ERR__INVALID_ARG;
    const lr_md_partition *mp = lr_sim_ctl_part((logrep_sim *)s, part);
    if (!mp)
        return LOGREP_ERR__NOENT;
    memset(out, 0, sizeof *out);
    out->leader = mp->leader;
    out->leader_epoch = mp->leader_epoch;
    out->partition_epoch = mp->partition_epoch;
    out->n_isr = mp->n_isr > 8 ? 8 : mp->n_isr;
    memcpy(out->isr, mp->isr, (size_t)out->n_isr * sizeof *out->isr);
    out->n_elr = mp->n_elr > 8 ? 8 : mp->n_elr;
    memcpy(out->elr, mp->elr, (size_t)out->n_elr * sizeof *out->elr);
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_sim_replica_view(const logrep_sim *s, int32_t id, int32_t part,
                                              logrep_sim_replica *out)
{
    if (!s || !out || !lr_sim_is_node(s, id))
        return LOGREP_ERR__INVALID_ARG;
    if (!s->node[id])
        return LOGREP_ERR__NOENT;
    lr_npart *np = lr_node_part(s->node[id], LR_SIM_TOPIC, part);
    if (!np)
        return LOGREP_ERR__NOENT;
    lr_part_status st;
    lr_partition_status(np->rep, &st);
    out->role = st.role;
    out->leader_epoch = st.leader_epoch;
    out->log_start_offset = st.log_start_offset;
    out->log_end_offset = st.log_end_offset;
    out->high_watermark = st.high_watermark;
    out->leader_epoch_start_offset = st.leader_epoch_start_offset;
    return LOGREP_OK;
}

LOGREP_API void logrep_sim_stats_get(const logrep_sim *s, logrep_sim_stats *out)
{
    if (!s || !out)
        return;
    *out = s->stats;
    out->committed = 0;
    for (int32_t p = 0; p < s->conf.partitions; p++)
        out->committed += s->cp[p].true_hw;
}

LOGREP_API uint64_t logrep_sim_committed(const logrep_sim *s, int32_t part, int64_t offset)
{
    if (!s || part < 0 || part >= s->conf.partitions || offset < 0 || offset >= s->cp[part].true_hw)
        return 0;
    return s->cp[part].c[offset];
}

LOGREP_API int64_t logrep_sim_true_hw(const logrep_sim *s, int32_t part)
{
    if (!s || part < 0 || part >= s->conf.partitions)
        return -1;
    return s->cp[part].true_hw;
}
