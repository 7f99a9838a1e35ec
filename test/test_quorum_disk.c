/* Three voters over lr_qlog and lr_qstate on crash-simulating disks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/log.h>
#include <logrep/storage.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/endian.h"
#include "lib/quorum_testutil.h"
#include "lib/testutil.h"
#include "quorum/q_int.h"
#include "quorum/qbatch.h"
#include "quorum/qlog.h"
#include "quorum/qstate.h"


#define MDIR "meta/__cluster_metadata-0"

/* ---- the quorum over qlog and qstate ----------------------------------- */

/* Three voters, each with its own crash-simulating disk holding the
 * metadata log (qlog) and quorum-state (qstate), as a host would wire
 * them: ctx is the lr_qlog, the node is its host. A lossy network,
 * quorum-state writes and log flushes done a step later, crashes that
 * lose what was not synced (and tear what was being written), restarts
 * from what the disk holds. Election safety and state machine safety
 * are checked after every step; after the chaos a leader must commit. */

#define SN 3

typedef struct snode snode;
typedef struct scluster scluster;

struct snode {
    scluster *c;
    int32_t id;
    logrep_storage *st;
    logrep_log *log;
    lr_qlog *ql;
    lr_quorum *q;
    int up;
    int64_t down_until;
    uint64_t pending_seq; /* quorum-state to write, 0: none */
    lr_quorum_state pending;
    int64_t hw, checked; /* committed here; entries compared with the model */
};

typedef struct smsg {
    int32_t to;
    int64_t at;
    lr_qmsg m;
    lr_qentry *e; /* copies; data in `bytes` */
    uint8_t *bytes;
} smsg;

struct scluster {
    snode n[SN];
    int32_t voters[SN];
    lr_quorum_conf conf;
    logrep_conf *lconf;
    smsg *net;
    size_t n_net, cap_net;
    int64_t now;
    uint64_t rng;
    int chaos;
    int32_t leader_of[4096];
    /* The model: every entry ever committed. */
    uint8_t (*model)[64];
    size_t *model_len;
    int32_t *model_epoch;
    size_t n_model, cap_model;
    long proposed, crashes;
};

static int64_t s_rand(scluster *c, int64_t n)
{
    return n <= 1 ? 0 : (int64_t)(qt_rng_next(&c->rng) % (uint64_t)n);
}

static void s_send(void *ctx, int32_t to, const lr_qmsg *m)
{
    snode *nd = lr_qlog_host(ctx);
    scluster *c = nd->c;
    if (to < 1 || to > SN || (c->chaos && s_rand(c, 100) < 5))
        return;
    if (c->n_net == c->cap_net) {
        c->cap_net = c->cap_net ? 2 * c->cap_net : 64;
        c->net = realloc(c->net, c->cap_net * sizeof *c->net);
    }
    smsg *s = &c->net[c->n_net++];
    s->to = to;
    s->at = c->now + 1 + s_rand(c, c->chaos ? 10 : 2);
    s->m = *m;
    size_t total = 0;
    for (size_t i = 0; i < m->n_entries; i++)
        total += m->entries[i].len;
    s->e = m->n_entries ? malloc(m->n_entries * sizeof *s->e) : NULL;
    s->bytes = malloc(total ? total : 1);
    for (size_t i = 0, o = 0; i < m->n_entries; i++) {
        s->e[i] = m->entries[i];
        memcpy(s->bytes + o, m->entries[i].data, m->entries[i].len);
        s->e[i].data = s->bytes + o;
        o += m->entries[i].len;
    }
    s->m.entries = s->e;
}

static void s_persist(void *ctx, const lr_quorum_state *st, uint64_t seq)
{
    snode *nd = lr_qlog_host(ctx);
    nd->pending = *st;
    nd->pending_seq = seq;
}

static void s_commit(void *ctx, int64_t hw)
{
    snode *nd = lr_qlog_host(ctx);
    cr_assert_gt(hw, nd->hw);
    nd->hw = hw;
}

static const lr_quorum_fx s_fx = {s_send, s_persist, s_commit};

static void s_start(scluster *c, snode *nd)
{
    logrep_err err = logrep_log_open(c->lconf, nd->st, MDIR, c->now, &nd->log);
    cr_assert_eq(err, 0, "node %d: log open: %s", nd->id, logrep_err_name(err));
    cr_assert_eq(lr_qlog_new(NULL, nd->log, nd, &nd->ql), 0);
    lr_qlog_set_now(nd->ql, c->now);
    cr_assert_eq(lr_qlog_flush(nd->ql, c->now, NULL), 0);
    lr_qstate_file f;
    err = lr_qstate_read(nd->st, MDIR, &f);
    cr_assert(err == 0 || err == LOGREP_ERR__NOENT, "node %d: quorum-state: %s", nd->id,
              logrep_err_name(err));
    lr_quorum_conf conf = c->conf;
    conf.node_id = nd->id;
    conf.seed = qt_rng_next(&c->rng);
    lr_quorum_boot boot = {err ? NULL : &f.state, 0};
    nd->q = lr_quorum_new(&conf, &boot, lr_qlog_ops(), &s_fx, nd->ql, c->now);
    cr_assert_not_null(nd->q);
    nd->up = 1;
    nd->pending_seq = 0;
    nd->hw = -1;
    nd->checked = 0;
}

static void s_crash(scluster *c, snode *nd)
{
    lr_quorum_free(nd->q);
    lr_qlog_free(nd->ql);
    logrep_log_abandon(nd->log);
    nd->q = NULL;
    nd->ql = NULL;
    nd->log = NULL;
    nd->up = 0;
    nd->down_until = c->now + 50 + s_rand(c, 400);
    cr_assert_eq(logrep_storage_crash_simulate(nd->st, qt_rng_next(&c->rng), LOGREP_CRASH_RANDOM), 0);
    c->crashes++;
}

/* Committed entries of a node against the model, extending it. */
static void s_check_commits(scluster *c, snode *nd)
{
    while (nd->checked < nd->hw) {
        lr_qentry e[8];
        size_t n = lr_qlog_ops()->read(nd->ql, nd->checked, e, 8);
        cr_assert_gt(n, 0, "node %d: committed offset %lld unreadable", nd->id,
                     (long long)nd->checked);
        for (size_t i = 0; i < n && nd->checked < nd->hw; i++, nd->checked++) {
            size_t o = (size_t)nd->checked;
            cr_assert_leq(e[i].len, 64);
            if (o < c->n_model) {
                cr_assert(c->model_len[o] == e[i].len && c->model_epoch[o] == e[i].epoch &&
                              memcmp(c->model[o], e[i].data, e[i].len) == 0,
                          "node %d commits offset %zu other than the committed entry", nd->id, o);
                continue;
            }
            if (c->n_model == c->cap_model) {
                c->cap_model = c->cap_model ? 2 * c->cap_model : 256;
                c->model = realloc(c->model, c->cap_model * sizeof *c->model);
                c->model_len = realloc(c->model_len, c->cap_model * sizeof *c->model_len);
                c->model_epoch = realloc(c->model_epoch, c->cap_model * sizeof *c->model_epoch);
            }
            memcpy(c->model[o], e[i].data, e[i].len);
            c->model_len[o] = e[i].len;
            c->model_epoch[o] = e[i].epoch;
            c->n_model++;
        }
    }
}

static void s_step(scluster *c)
{
    c->now++;
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (!nd->up) {
            if (c->now >= nd->down_until)
                s_start(c, nd);
            continue;
        }
        lr_qlog_set_now(nd->ql, c->now);
        /* The host's I/O, a step late: quorum-state, then a flush. */
        if (nd->pending_seq && s_rand(c, 3)) {
            uint64_t seq = nd->pending_seq;
            cr_assert_eq(lr_qstate_write(nd->st, MDIR, &nd->pending, c->voters, SN), 0);
            nd->pending_seq = 0;
            lr_quorum_state_durable(nd->q, seq, c->now);
        }
        if (s_rand(c, 4) == 0) {
            int64_t durable;
            cr_assert_eq(lr_qlog_flush(nd->ql, c->now, &durable), 0);
            lr_quorum_log_flushed(nd->q, durable, c->now);
        }
        lr_quorum_tick(nd->q, c->now);
        if (lr_quorum_role_of(nd->q) == LR_QR_LEADER && s_rand(c, 5) == 0) {
            char v[32];
            int k = snprintf(v, sizeof v, "p%ld", c->proposed);
            lr_qentry e = {0, 0, (const uint8_t *)v, (size_t)k};
            if (lr_quorum_propose(nd->q, &e, 1, NULL) == 0)
                c->proposed++;
        }
    }
    /* Deliver what is due, oldest first. */
    for (size_t i = 0; i < c->n_net;) {
        if (c->net[i].at > c->now) {
            i++;
            continue;
        }
        smsg m = c->net[i];
        memmove(&c->net[i], &c->net[i + 1], (c->n_net - i - 1) * sizeof *c->net);
        c->n_net--;
        snode *to = &c->n[m.to - 1];
        if (to->up) {
            lr_qlog_set_now(to->ql, c->now);
            lr_quorum_receive(to->q, &m.m, c->now);
        }
        free(m.e);
        free(m.bytes);
    }
    if (c->chaos && s_rand(c, 200) == 0) {
        snode *nd = &c->n[s_rand(c, SN)];
        if (nd->up)
            s_crash(c, nd);
    }
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (!nd->up)
            continue;
        int32_t ep = lr_quorum_epoch(nd->q);
        cr_assert_lt(ep, 4096);
        if (lr_quorum_role_of(nd->q) == LR_QR_LEADER) {
            cr_assert(c->leader_of[ep] == 0 || c->leader_of[ep] == nd->id,
                      "two leaders in epoch %d", ep);
            c->leader_of[ep] = nd->id;
        }
        s_check_commits(c, nd);
    }
}

static void s_run(uint64_t seed, long steps)
{
    scluster *c = calloc(1, sizeof *c);
    c->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < SN; i++)
        c->voters[i] = i + 1;
    c->conf = (lr_quorum_conf){.voters = c->voters, .n_voters = SN, .election_timeout_ms = 100,
                               .fetch_timeout_ms = 200, .request_timeout_ms = 50,
                               .max_fetch_entries = 8};
    c->lconf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(c->lconf, "segment.bytes", "4000", NULL, 0), 0);
    c->now = 1000;
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        nd->c = c;
        nd->id = i + 1;
        cr_assert_eq(logrep_storage_crash_new(NULL, 512, &nd->st), 0);
        cr_assert_eq(nd->st->mkdir(nd->st->ctx, "meta"), 0);
        cr_assert_eq(nd->st->mkdir(nd->st->ctx, MDIR), 0);
        lr_quorum_state fmt = {0, -1, -1, 0, -1}; /* the format step */
        cr_assert_eq(lr_qstate_write(nd->st, MDIR, &fmt, c->voters, SN), 0);
        s_start(c, nd);
    }
    c->chaos = 1;
    for (long i = 0; i < steps; i++)
        s_step(c);
    /* Heal: no drops, no crashes; a leader must commit something new. */
    c->chaos = 0;
    size_t before = c->n_model;
    long proposed = c->proposed;
    for (int i = 0; i < 20000 && (c->n_model <= before || c->proposed == proposed); i++)
        s_step(c);
    cr_assert(c->n_model > before && c->proposed > proposed, "seed %llu: no commit after healing",
              (unsigned long long)seed);
    cr_assert_gt(c->crashes, 0);
    for (int i = 0; i < SN; i++) {
        snode *nd = &c->n[i];
        if (nd->up) {
            lr_quorum_free(nd->q);
            lr_qlog_free(nd->ql);
            cr_assert_eq(logrep_log_close(nd->log), 0);
        }
        logrep_storage_free(nd->st);
    }
    for (size_t i = 0; i < c->n_net; i++) {
        free(c->net[i].e);
        free(c->net[i].bytes);
    }
    free(c->net);
    free(c->model);
    free(c->model_len);
    free(c->model_epoch);
    logrep_conf_free(c->lconf);
    free(c);
}

Test(quorum_store, quorum_runs_on_qlog_and_qstate_through_crashes, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 8; seed++)
        s_run(seed, 5000);
}
