/* The metadata image as snapshot records (controller/md_snapshot.h):
 * images built by random record streams and by the controller come back
 * identical under every query from their snapshot's records; the records
 * are the fewest that do it, in the documented order; bad records are
 * refused; allocation failures and sink errors are clean. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/prng.h"
#include "controller/md_snapshot.h"
#include "lib/ctl_testutil.h"
#include "lib/testutil.h"

/* ---- snapshot <-> record list ---- */

static int collect(void *ctx, const uint8_t *rec, size_t len)
{
    return tc_sink(ctx, 0, rec, len);
}

static void snapshot_of(const lr_md_image *img, tc_log *out)
{
    memset(out, 0, sizeof *out);
    int64_t n = -1;
    int err = lr_md_snapshot_records(img, collect, out, &n);
    cr_assert_eq(err, 0, "snapshot: %s", logrep_err_name(err));
    cr_assert_eq((size_t)n, out->n);
}

/* A fresh image (conf) with the snapshot's records applied. */
static lr_md_image *load(const tc_log *l, int64_t end, const logrep_conf *conf)
{
    lr_md_image *img = lr_md_new(conf);
    cr_assert(img);
    for (size_t i = 0; i < l->n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(l, i, &len);
        int err = lr_md_snapshot_apply(img, end, r, len);
        cr_assert_eq(err, 0, "record %zu (type %d): %s", i, r[1], logrep_err_name(err));
    }
    if (!l->n)
        lr_md_set_next_offset(img, end);
    return img;
}

/* ---- equality under every query ---- */

#define DIFF(cond, ...)                                                                          \
    do {                                                                                         \
        if (cond) {                                                                              \
            snprintf(why, cap, __VA_ARGS__);                                                     \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static int sdiff(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

static int ids_diff(const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
    return na != nb || (na && memcmp(a, b, na * sizeof *a) != 0);
}

static int text_diff(const lr_md_image *a, const lr_md_image *b, int filter)
{
    lr_buf x, y;
    lr_buf_init(&x, &lr_alloc_default);
    lr_buf_init(&y, &lr_alloc_default);
    cr_assert_eq(lr_md_describe(a, NULL, filter, &x), 0);
    cr_assert_eq(lr_md_describe(b, NULL, filter, &y), 0);
    int d = x.len != y.len || (x.len && memcmp(x.data, y.data, x.len) != 0);
    lr_buf_free(&x);
    lr_buf_free(&y);
    return d;
}

/* The topic each image names as colliding with `name`, by name. */
static int coll_diff(const lr_md_image *a, const lr_md_image *b, const char *name)
{
    const lr_md_topic *x = lr_md_topic_collision(a, name), *y = lr_md_topic_collision(b, name);
    return sdiff(x ? x->name : NULL, y ? y->name : NULL);
}

/* 0 when b (loaded from a's snapshot) answers every query as a does.
 * register_offset: b's is the snapshot's last offset, a's at most that. */
static int image_diff(const lr_md_image *a, const lr_md_image *b, char *why, size_t cap)
{
    int64_t end = lr_md_next_offset(a);
    DIFF(lr_md_next_offset(b) != end, "next offset");
    DIFF(lr_md_next_producer_id(a) != lr_md_next_producer_id(b), "producer id");
    DIFF(lr_md_broker_count(a) != lr_md_broker_count(b), "broker count");
    for (size_t i = 0; i < lr_md_broker_count(a); i++) {
        const lr_md_broker *x = lr_md_broker_at(a, i), *y = lr_md_broker_at(b, i);
        DIFF(x->id != y->id || x->epoch != y->epoch || x->fenced != y->fenced ||
                 x->in_controlled_shutdown != y->in_controlled_shutdown ||
                 memcmp(x->incarnation, y->incarnation, 16) || sdiff(x->rack, y->rack) ||
                 x->n_endpoints != y->n_endpoints || lr_md_broker_get(b, x->id) != y,
             "broker %d", (int)x->id);
        DIFF(y->register_offset != end - 1 || x->register_offset > end - 1,
             "broker %d register offset %lld / %lld", (int)x->id, (long long)x->register_offset,
             (long long)y->register_offset);
        for (uint32_t k = 0; k < x->n_endpoints; k++) {
            const lr_md_endpoint *p = &x->endpoints[k], *q = &y->endpoints[k];
            DIFF(sdiff(p->name, q->name) || sdiff(p->host, q->host) || p->port != q->port ||
                     p->security_protocol != q->security_protocol,
                 "broker %d endpoint %u", (int)x->id, k);
        }
    }
    DIFF(lr_md_resource_config_count(a) != lr_md_resource_config_count(b), "config count");
    for (size_t i = 0; i < lr_md_resource_config_count(a); i++) {
        lr_md_resource_config x, y;
        cr_assert_eq(lr_md_resource_config_at(a, i, &x), 0);
        cr_assert_eq(lr_md_resource_config_at(b, i, &y), 0);
        DIFF(x.resource_type != y.resource_type || sdiff(x.resource, y.resource) ||
                 sdiff(x.name, y.name) || sdiff(x.value, y.value) ||
                 sdiff(lr_md_cluster_config(a, x.name), lr_md_cluster_config(b, x.name)),
             "config %zu", i);
    }
    DIFF(lr_md_topic_count(a) != lr_md_topic_count(b), "topic count");
    for (size_t i = 0; i < lr_md_topic_count(a); i++) {
        const lr_md_topic *x = lr_md_topic_at(a, i), *y = lr_md_topic_at(b, i);
        DIFF(strcmp(x->name, y->name) || memcmp(x->id, y->id, 16) || x->n_parts != y->n_parts ||
                 x->n_configs != y->n_configs || lr_md_topic_by_name(b, x->name) != y ||
                 lr_md_topic_by_id(b, x->id) != y ||
                 lr_md_topic_min_isr(a, x) != lr_md_topic_min_isr(b, y) ||
                 lr_md_topic_unclean(a, x) != lr_md_topic_unclean(b, y) ||
                 coll_diff(a, b, x->name),
             "topic %s", x->name);
        for (uint32_t k = 0; k < x->n_configs; k++)
            DIFF(sdiff(x->configs[k].name, y->configs[k].name) ||
                     sdiff(x->configs[k].value, y->configs[k].value) ||
                     sdiff(lr_md_topic_config(x, x->configs[k].name),
                           lr_md_topic_config(y, x->configs[k].name)),
                 "topic %s config %u", x->name, k);
        for (int32_t j = 0; j < x->n_parts; j++) {
            const lr_md_partition *p = lr_md_partition_get(x, j), *q = lr_md_partition_get(y, j);
            DIFF(p->leader != q->leader || p->leader_epoch != q->leader_epoch ||
                     p->partition_epoch != q->partition_epoch || p->lrs != q->lrs ||
                     ids_diff(p->replicas, p->n_replicas, q->replicas, q->n_replicas) ||
                     ids_diff(p->isr, p->n_isr, q->isr, q->n_isr) ||
                     ids_diff(p->elr, p->n_elr, q->elr, q->n_elr) ||
                     ids_diff(p->lke, p->n_lke, q->lke, q->n_lke) ||
                     lr_md_partition_status(a, x, p) != lr_md_partition_status(b, y, q),
                 "partition %s-%d", x->name, (int)j);
        }
    }
    lr_md_summary sa, sb;
    lr_md_summarize(a, &sa);
    lr_md_summarize(b, &sb);
    DIFF(memcmp(&sa, &sb, sizeof sa) != 0, "summary");
    for (int f = LR_MD_DESCRIBE_ALL; f <= LR_MD_DESCRIBE_UNAVAILABLE; f++)
        DIFF(text_diff(a, b, f), "describe filter %d", f);
    char wa[100], wb[100];
    DIFF(lr_md_check_invariants(a, wa, sizeof wa) != lr_md_check_invariants(b, wb, sizeof wb) ||
             strcmp(wa, wb),
         "invariants: %s / %s", wa, wb);
    return 0;
}

/* The snapshot has one record per broker, non-topic config, topic,
 * partition and topic config, plus one for producer ids when any. */
static size_t expected_records(const lr_md_image *img)
{
    size_t n = lr_md_broker_count(img) + lr_md_resource_config_count(img) +
               (lr_md_next_producer_id(img) > 0);
    for (size_t i = 0; i < lr_md_topic_count(img); i++) {
        const lr_md_topic *t = lr_md_topic_at(img, i);
        n += 1 + (size_t)t->n_parts + t->n_configs;
    }
    return n;
}

/* The whole property for one image: load equals it, the record count is
 * the minimum, and the loaded image's snapshot is the same bytes. */
static void check_round_trip(const lr_md_image *img, const logrep_conf *conf, const char *what)
{
    tc_log s, s2;
    snapshot_of(img, &s);
    cr_assert_eq(s.n, expected_records(img), "%s: %zu records, want %zu", what, s.n,
                 expected_records(img));
    lr_md_image *back = load(&s, lr_md_next_offset(img), conf);
    char why[256];
    cr_assert_eq(image_diff(img, back, why, sizeof why), 0, "%s: %s", what, why);
    snapshot_of(back, &s2);
    cr_assert(s.len == s2.len && s.n == s2.n && (!s.len || memcmp(s.data, s2.data, s.len) == 0),
              "%s: the loaded image's snapshot differs", what);
    lr_md_free(back);
    tc_log_free(&s);
    tc_log_free(&s2);
}

/* What the images held, so the tests can say they covered it. */
enum { F_FENCED, F_SHUTDOWN, F_RACK, F_ENDPOINTS, F_ELR, F_LKE, F_RECOVERING, F_NO_LEADER,
       F_TOPIC_CFG, F_CLUSTER_CFG, F_OTHER_CFG, F_PIDS, F_EMPTY_TOPIC, F_N };

static void tally(const lr_md_image *img, long *f)
{
    for (size_t i = 0; i < lr_md_broker_count(img); i++) {
        const lr_md_broker *b = lr_md_broker_at(img, i);
        f[F_FENCED] += b->fenced;
        f[F_SHUTDOWN] += b->in_controlled_shutdown;
        f[F_RACK] += b->rack != NULL;
        f[F_ENDPOINTS] += b->n_endpoints > 1;
    }
    for (size_t i = 0; i < lr_md_resource_config_count(img); i++) {
        lr_md_resource_config c;
        lr_md_resource_config_at(img, i, &c);
        f[c.resource_type == LR_MD_RESOURCE_BROKER && !c.resource[0] ? F_CLUSTER_CFG : F_OTHER_CFG]++;
    }
    for (size_t i = 0; i < lr_md_topic_count(img); i++) {
        const lr_md_topic *t = lr_md_topic_at(img, i);
        f[F_TOPIC_CFG] += t->n_configs;
        f[F_EMPTY_TOPIC] += t->n_parts == 0;
        for (int32_t j = 0; j < t->n_parts; j++) {
            const lr_md_partition *p = lr_md_partition_get(t, j);
            f[F_ELR] += p->n_elr > 0;
            f[F_LKE] += p->n_lke > 0;
            f[F_RECOVERING] += p->lrs == LR_MD_RECOVERING;
            f[F_NO_LEADER] += p->leader < 0;
        }
    }
    f[F_PIDS] += lr_md_next_producer_id(img) > 0;
}

static void assert_covered(const long *f, int skip_mask)
{
    static const char *const what[F_N] = {"fenced", "shutdown", "rack", "endpoints", "ELR",
                                          "LastKnownElr", "recovering", "no leader",
                                          "topic config", "cluster config", "other config",
                                          "producer ids", "topic without partitions"};
    for (int k = 0; k < F_N; k++)
        cr_assert(f[k] > 0 || (skip_mask >> k & 1), "no image had: %s", what[k]);
}

/* ---- random record streams ---- */

typedef struct gen {
    lr_prng rng;
    lr_md_image *img;
    long applied, refused;
} gen;

static uint64_t pick(gen *g, uint64_t n) { return lr_prng_below(&g->rng, n); }

static const char *const names[] = {"a", "b", "a.b", "a_b", "x-1", "topic", "t.t", "t_t", "__c"};
static const char *const hosts[] = {"h1", "h2", "host.example", ""};
static const char *const cfg_names[] = {"min.insync.replicas", "unclean.leader.election.enable",
                                        "retention.ms", "cleanup.policy"};
static const char *const cfg_values[] = {"1", "2", "3", "true", "false", "x", ""};

static lr_md_str S(const char *s) { return (lr_md_str){s, (int32_t)strlen(s)}; }

/* A random duplicate-free list drawn from ids 0..7, of 0..max entries. */
static int32_t rand_ids(gen *g, int32_t *out, int32_t max, const int32_t *from, int32_t n_from)
{
    int32_t n = 0, want = (int32_t)pick(g, (uint64_t)max + 1);
    for (int tries = 0; tries < 16 && n < want; tries++) {
        int32_t id = from ? from[pick(g, (uint64_t)n_from)] : (int32_t)pick(g, 8);
        if (n_from == 0 && from)
            break;
        if (!lr_md_ids_contains(out, (size_t)n, id))
            out[n++] = id;
    }
    return n;
}

static const lr_md_topic *some_topic(gen *g)
{
    size_t n = lr_md_topic_count(g->img);
    return n ? lr_md_topic_at(g->img, pick(g, n)) : NULL;
}

static const lr_md_broker *some_broker(gen *g)
{
    size_t n = lr_md_broker_count(g->img);
    return n ? lr_md_broker_at(g->img, pick(g, n)) : NULL;
}

static void rand_partition(gen *g, lr_md_record *r, const lr_md_topic *t, int change,
                           int32_t ids[4][8])
{
    struct lr_md_part_rec *p = &r->u.part;
    memcpy(p->topic_id, t->id, 16);
    const lr_md_partition *cur = NULL;
    if (change || (t->n_parts && pick(g, 3) == 0)) {
        if (!t->n_parts)
            return;
        p->partition_id = (int32_t)pick(g, (uint64_t)t->n_parts);
        cur = lr_md_partition_get(t, p->partition_id);
    } else {
        p->partition_id = t->n_parts;
    }
    int32_t nr = cur ? cur->n_replicas : 0;
    const int32_t *rep = cur ? cur->replicas : NULL;
    if (!change || pick(g, 2)) {
        nr = rand_ids(g, ids[0], 3, NULL, 0);
        if (nr == 0)
            ids[0][nr++] = (int32_t)pick(g, 8);
        rep = ids[0];
        p->replicas = (lr_md_ids){rep, nr};
    }
    lr_md_ids *lists[3] = {&p->isr, &p->elr, &p->lke};
    for (int k = 0; k < 3; k++)
        if (!change || pick(g, 2))
            *lists[k] = (lr_md_ids){ids[k + 1], rand_ids(g, ids[k + 1], 3, rep, nr)};
    if (!change || pick(g, 2))
        p->leader = pick(g, 4) == 0 ? LR_MD_NO_LEADER : rep[pick(g, (uint64_t)nr)];
    if (!change || pick(g, 3) == 0)
        p->lrs = (int8_t)pick(g, 2);
    if (!change) {
        p->leader_epoch = (int32_t)pick(g, 50);
        p->partition_epoch = (int32_t)pick(g, 50);
    }
}

/* One random record, mostly one that fits the image; encoded, applied. */
static void gen_step(gen *g)
{
    lr_md_record r;
    lr_md_endpoint_rec eps[3];
    int32_t ids[4][8];
    const lr_md_broker *b = some_broker(g);
    const lr_md_topic *t = some_topic(g);
    uint64_t op = pick(g, 100);
    if (op < 15 || !b) {
        lr_md_record_init(&r, LR_MD_REGISTER_BROKER, (int16_t)pick(g, 4));
        r.u.reg.broker_id = (int32_t)pick(g, 8);
        r.u.reg.epoch = pick(g, 2) ? lr_md_next_offset(g->img) : (int64_t)pick(g, 1000);
        r.u.reg.incarnation[pick(g, 16)] = (uint8_t)pick(g, 256);
        r.u.reg.n_endpoints = (int32_t)pick(g, 4);
        for (int32_t i = 0; i < r.u.reg.n_endpoints; i++)
            eps[i] = (lr_md_endpoint_rec){S(i ? "SSL" : "PLAINTEXT"), S(hosts[pick(g, 4)]),
                                          (uint16_t)pick(g, 65536), (int16_t)pick(g, 4)};
        r.u.reg.endpoints = eps;
        if (pick(g, 2))
            r.u.reg.rack = S(names[pick(g, 3)]);
        r.u.reg.fenced = (uint8_t)pick(g, 2);
        r.u.reg.in_controlled_shutdown = (uint8_t)(r.version >= 1 && pick(g, 4) == 0);
    } else if (op < 20) {
        lr_md_record_init(&r, pick(g, 3) == 0 ? LR_MD_UNREGISTER_BROKER
                                : pick(g, 2) ? LR_MD_FENCE_BROKER : LR_MD_UNFENCE_BROKER, 0);
        r.u.broker.broker_id = b->id;
        r.u.broker.epoch = b->epoch;
    } else if (op < 30) {
        lr_md_record_init(&r, LR_MD_BROKER_REGISTRATION_CHANGE, (int16_t)pick(g, 2));
        r.u.change.broker_id = b->id;
        r.u.change.broker_epoch = b->epoch;
        r.u.change.fenced = (int8_t)((int)pick(g, 3) - 1);
        r.u.change.in_controlled_shutdown = (int8_t)(r.version && pick(g, 3) == 0);
    } else if (op < 38 || !t) {
        lr_md_record_init(&r, LR_MD_TOPIC, 0);
        r.u.topic.name = S(names[pick(g, sizeof names / sizeof *names)]);
        for (int i = 0; i < 16; i++)
            r.u.topic.topic_id[i] = (uint8_t)pick(g, 4);
    } else if (op < 41) {
        lr_md_record_init(&r, LR_MD_REMOVE_TOPIC, 0);
        memcpy(r.u.remove_topic.topic_id, t->id, 16);
    } else if (op < 60) {
        lr_md_record_init(&r, LR_MD_PARTITION, 2);
        rand_partition(g, &r, t, 0, ids);
    } else if (op < 80) {
        lr_md_record_init(&r, LR_MD_PARTITION_CHANGE, 2);
        rand_partition(g, &r, t, 1, ids);
    } else if (op < 96) {
        static const int8_t types[] = {LR_MD_RESOURCE_TOPIC, LR_MD_RESOURCE_BROKER,
                                       LR_MD_RESOURCE_BROKER, 8};
        static const char *const brokers[] = {"", "", "1", "2"};
        lr_md_record_init(&r, LR_MD_CONFIG, 0);
        int k = (int)pick(g, 4);
        r.u.config.resource_type = types[k];
        r.u.config.resource_name = S(k == 0 ? t->name : k == 3 ? "client-metrics" : brokers[pick(g, 4)]);
        r.u.config.name = S(cfg_names[pick(g, 4)]);
        if (pick(g, 4))
            r.u.config.value = S(cfg_values[pick(g, 7)]);
    } else {
        lr_md_record_init(&r, LR_MD_PRODUCER_IDS, 0);
        r.u.pids.broker_id = b->id;
        r.u.pids.broker_epoch = b->epoch;
        r.u.pids.next_producer_id = lr_md_next_producer_id(g->img) + 1000 * (int64_t)pick(g, 3);
    }
    lr_buf enc;
    lr_buf_init(&enc, &lr_alloc_default);
    cr_assert_eq(lr_md_encode(&r, &enc), 0, "encode %s", lr_md_rtype_name(r.type));
    if (lr_md_apply_bytes(g->img, enc.data, enc.len) == 0)
        g->applied++;
    else
        g->refused++;
    lr_buf_free(&enc);
}

static logrep_conf *conf_of(int variant)
{
    logrep_conf *c = logrep_conf_new();
    char err[128];
    cr_assert(c);
    if (variant & 1)
        cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "2", err, sizeof err), 0);
    if (variant & 2)
        cr_assert_eq(logrep_conf_set(c, "eligible.leader.replicas.enable", "false", err, sizeof err), 0);
    return c;
}

Test(md_snapshot, round_trip_random_streams)
{
    long seeds = 400, applied = 0, refused = 0, seen[F_N] = {0};
    const char *env = getenv("LOGREP_MDSNAP_SEEDS");
    if (env)
        seeds = atol(env);
    for (long s = 0; s < seeds; s++) {
        logrep_conf *conf = conf_of((int)(s % 4));
        gen g = {.img = lr_md_new(conf)};
        lr_prng_seed(&g.rng, 0x5a70000u + (uint64_t)s);
        long steps = (long)pick(&g, 600);
        for (long i = 0; i < steps; i++)
            gen_step(&g);
        if (s % 7 == 0) /* a base offset from an earlier snapshot */
            lr_md_set_next_offset(g.img, lr_md_next_offset(g.img) + (int64_t)pick(&g, 100000));
        char what[64];
        snprintf(what, sizeof what, "seed %ld, %ld records", s, g.applied);
        check_round_trip(g.img, conf, what);
        tally(g.img, seen);
        applied += g.applied;
        refused += g.refused;
        lr_md_free(g.img);
        logrep_conf_free(conf);
    }
    cr_log_info("records applied %ld, refused %ld", applied, refused);
    cr_assert_gt(applied, refused / 4, "the generator must mostly build images");
    assert_covered(seen, 0);
}

/* ---- images the controller built ---- */

static void ctl_run(tc_cluster *c, lr_prng *rng, int steps)
{
    int alive[6] = {0};
    for (int32_t b = 1; b <= 5; b++) {
        cr_assert_eq(tc_join(c, b, b % 2 ? "r1" : "r2", -1), 0);
        alive[b] = 1;
    }
    const char *const cfg[] = {"min.insync.replicas=2", NULL};
    cr_assert_eq(tc_topic(c, "a", 6, 3, cfg), 0);
    cr_assert_eq(tc_topic(c, "b", 3, 2, NULL), 0);
    for (int i = 0; i < steps; i++) {
        uint64_t op = lr_prng_below(rng, 100);
        int32_t b = 1 + (int32_t)lr_prng_below(rng, 5);
        const lr_md_image *img = lr_ctl_image(c->ctl);
        if (op < 25) {
            c->now += 500 + (int64_t)lr_prng_below(rng, 4000);
            for (int32_t k = 1; k <= 5; k++)
                if (alive[k])
                    tc_beat(c, k);
            lr_ctl_tick(c->ctl, c->now);
        } else if (op < 35) {
            alive[b] = 0; /* crashed: its session runs out */
        } else if (op < 45 && !alive[b]) {
            alive[b] = tc_join(c, b, b % 2 ? "r1" : "r2", -1) == 0;
        } else if (op < 50 && alive[b] && lr_md_broker_get(img, b)) {
            lr_ctl_heartbeat_req hb = {b, c->epochs[b], lr_md_next_offset(img), 0, 1};
            lr_ctl_heartbeat_resp hr;
            lr_ctl_heartbeat(c->ctl, &hb, c->now, &hr);
        } else if (op < 75) {
            const char *t = lr_prng_below(rng, 2) ? "a" : "b";
            int32_t p = (int32_t)lr_prng_below(rng, 3);
            const lr_md_partition *part = tc_part(c, t, p);
            if (part->leader >= 0) {
                int32_t isr[4] = {part->leader};
                size_t n = 1;
                for (uint16_t k = 0; k < part->n_replicas; k++)
                    if (part->replicas[k] != part->leader && lr_prng_below(rng, 2))
                        isr[n++] = part->replicas[k];
                tc_alter(c, t, p, isr, n);
            }
        } else if (op < 85) {
            lr_ctl_elect_leader(c->ctl, "a", (int32_t)lr_prng_below(rng, 6),
                                lr_prng_below(rng, 3) == 0);
        } else if (op < 90) {
            char v[2] = {(char)('1' + lr_prng_below(rng, 3)), 0};
            lr_ctl_set_topic_config(c->ctl, "a", "min.insync.replicas", v);
        } else if (op < 95 && lr_md_broker_get(img, b)) {
            int64_t first;
            int32_t n;
            lr_ctl_allocate_producer_ids(c->ctl, b, c->epochs[b], &first, &n);
        } else if (op < 97) {
            char name[16];
            snprintf(name, sizeof name, "t%d", i);
            tc_topic(c, name, 1 + (int32_t)lr_prng_below(rng, 3), 2, NULL);
        } else if (lr_md_topic_count(img) > 2) {
            lr_ctl_delete_topic(c->ctl, lr_md_topic_at(img, 2)->name);
        }
    }
}

Test(md_snapshot, round_trip_controller_images)
{
    long seen[F_N] = {0};
    for (uint64_t s = 0; s < 24; s++) {
        tc_cluster c;
        const char *const conf_elr[] = {"min.insync.replicas=2", NULL};
        const char *const conf_noelr[] = {"eligible.leader.replicas.enable=false", NULL};
        tc_start(&c, s % 3 == 2 ? conf_noelr : conf_elr);
        lr_prng rng;
        lr_prng_seed(&rng, 0xc0de00 + s);
        ctl_run(&c, &rng, 300);
        tc_check(&c);
        tally(lr_ctl_image(c.ctl), seen);
        char what[32];
        snprintf(what, sizeof what, "controller seed %d", (int)s);
        check_round_trip(lr_ctl_image(c.ctl), c.conf, what);
        tc_stop(&c);
    }
    /* Here the controller writes no non-topic configs, one endpoint per
     * broker, and no topic without partitions. */
    assert_covered(seen, 1 << F_CLUSTER_CFG | 1 << F_OTHER_CFG | 1 << F_EMPTY_TOPIC |
                             1 << F_ENDPOINTS);
}

Test(md_snapshot, empty_image)
{
    lr_md_image *img = lr_md_new(NULL);
    tc_log s;
    snapshot_of(img, &s);
    cr_assert_eq(s.n, 0);
    check_round_trip(img, NULL, "empty");
    lr_md_set_next_offset(img, 42);
    check_round_trip(img, NULL, "empty at 42");
    lr_md_free(img);
    tc_log_free(&s);
}

/* The order of the records, and what each carries. */
Test(md_snapshot, records_in_order)
{
    tc_cluster c;
    tc_start(&c, NULL);
    cr_assert_eq(tc_join(&c, 2, "r", -1), 0);
    cr_assert_eq(tc_join(&c, 1, NULL, -1), 0);
    const char *const cfg[] = {"retention.ms=5", NULL};
    cr_assert_eq(tc_topic(&c, "t", 2, 1, cfg), 0);
    cr_assert_eq(lr_ctl_set_topic_config(c.ctl, "t", "cleanup.policy", "compact"), 0);
    int64_t first;
    int32_t n;
    cr_assert_eq(lr_ctl_allocate_producer_ids(c.ctl, 1, c.epochs[1], &first, &n), 0);
    const lr_md_image *img = lr_ctl_image(c.ctl);
    tc_log s;
    snapshot_of(img, &s);
    static const int want[] = {LR_MD_REGISTER_BROKER, LR_MD_REGISTER_BROKER, LR_MD_TOPIC,
                               LR_MD_PARTITION, LR_MD_PARTITION, LR_MD_CONFIG, LR_MD_CONFIG,
                               LR_MD_PRODUCER_IDS};
    cr_assert_eq(s.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < s.n; i++) {
        size_t len;
        const uint8_t *b = tc_log_rec(&s, i, &len);
        lr_md_record r;
        cr_assert_eq(lr_md_decode(&lr_alloc_default, b, len, &r), 0);
        cr_assert_eq((int)r.type, want[i], "record %zu: %s", i, lr_md_rtype_name(r.type));
        if (i < 2) /* ascending broker ids, every field of the broker */
            cr_assert(r.version == 3 && r.u.reg.broker_id == (int32_t)i + 1 && !r.u.reg.fenced &&
                      r.u.reg.n_endpoints == 1 && r.u.reg.epoch == c.epochs[i + 1]);
        if (i == 1)
            cr_assert(r.u.reg.rack.len == 1 && r.u.reg.rack.p[0] == 'r');
        if (i == 3 || i == 4)
            cr_assert(r.version == 2 && r.u.part.partition_id == (int32_t)i - 3);
        if (i == 5)
            cr_assert(r.u.config.name.len == 12 && !memcmp(r.u.config.name.p, "retention.ms", 12));
        if (i == 7)
            cr_assert(r.u.pids.next_producer_id == lr_md_next_producer_id(img) &&
                      r.u.pids.broker_id == -1);
        lr_md_record_clear(&r);
    }
    check_round_trip(img, c.conf, "small");
    tc_log_free(&s);
    tc_stop(&c);
}

/* A record that does not apply, bytes that are no record, a bad end: the
 * image is unchanged (next offset too). */
Test(md_snapshot, refused_records)
{
    lr_md_image *img = lr_md_new(NULL);
    lr_md_record r;
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    lr_md_record_init(&r, LR_MD_TOPIC, 0);
    r.u.topic.name = S("t");
    r.u.topic.topic_id[0] = 1;
    cr_assert_eq(lr_md_encode(&r, &b), 0);
    cr_assert_eq(lr_md_snapshot_apply(img, 0, b.data, b.len), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_md_snapshot_apply(img, -5, b.data, b.len), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_md_topic_count(img), 0);
    cr_assert_eq(lr_md_snapshot_apply(img, 10, b.data, b.len), 0);
    cr_assert_eq(lr_md_next_offset(img), 10);
    /* The same topic again does not apply. */
    cr_assert_eq(lr_md_snapshot_apply(img, 10, b.data, b.len), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_md_next_offset(img), 10);
    cr_assert_eq(lr_md_topic_count(img), 1);
    /* A partition of an unknown topic. */
    int32_t one[] = {1};
    lr_md_record_init(&r, LR_MD_PARTITION, 2);
    r.u.part.topic_id[0] = 9;
    r.u.part.replicas = (lr_md_ids){one, 1};
    r.u.part.isr = (lr_md_ids){one, 1};
    lr_buf_clear(&b);
    cr_assert_eq(lr_md_encode(&r, &b), 0);
    cr_assert_eq(lr_md_snapshot_apply(img, 10, b.data, b.len), LOGREP_ERR__CORRUPT);
    /* Bytes that are not a record: truncated, and an unknown type. */
    cr_assert_eq(lr_md_snapshot_apply(img, 10, b.data, b.len - 1), LOGREP_ERR__CORRUPT);
    static const uint8_t unknown[] = {1, 99, 0};
    cr_assert_eq(lr_md_snapshot_apply(img, 10, unknown, sizeof unknown), LOGREP_ERR__UNSUPPORTED);
    cr_assert_eq(lr_md_next_offset(img), 10);
    lr_buf_free(&b);
    lr_md_free(img);
}

static int stop_at_3(void *ctx, const uint8_t *rec, size_t len)
{
    (void)rec;
    (void)len;
    return ++*(int *)ctx == 3 ? LOGREP_ERR__IO : 0;
}

/* Every allocation failure is a clean NOMEM; a sink error stops the walk. */
Test(md_snapshot, nomem_and_sink_errors)
{
    logrep_conf *conf = conf_of(0);
    gen g = {.img = lr_md_new(conf)};
    lr_prng_seed(&g.rng, 7);
    for (int i = 0; i < 300; i++)
        gen_step(&g);
    int calls = 0;
    int64_t n;
    cr_assert_eq(lr_md_snapshot_records(g.img, stop_at_3, &calls, &n), LOGREP_ERR__IO);
    cr_assert_eq(calls, 3);
    cr_assert_eq(n, 2);
    for (long fail = 1;; fail++) {
        tu_heap heap = {0, fail, 0, 0, 0, 0};
        logrep_allocator a = tu_heap_allocator(&heap);
        logrep_conf *hc = conf_of(0);
        cr_assert_eq(logrep_conf_set_allocator(hc, &a), LOGREP_OK);
        lr_md_image *img = lr_md_new(hc);
        if (!img) {
            logrep_conf_free(hc);
            continue;
        }
        /* Build with a working heap, then fail inside the snapshot. */
        heap.fail_at = 0;
        tc_log s;
        snapshot_of(g.img, &s);
        lr_md_set_next_offset(img, 0);
        for (size_t i = 0; i < s.n; i++) {
            size_t len;
            const uint8_t *r = tc_log_rec(&s, i, &len);
            cr_assert_eq(lr_md_snapshot_apply(img, lr_md_next_offset(g.img), r, len), 0);
        }
        heap.fail_at = heap.allocs + fail;
        tc_log out = {0};
        int err = lr_md_snapshot_records(img, collect, &out, NULL);
        tc_log_free(&out);
        tc_log_free(&s);
        lr_md_free(img);
        logrep_conf_free(hc);
        cr_assert_eq(heap.live_blocks, 0, "leak after failure %ld", fail);
        if (!err)
            break;
        cr_assert_eq(err, LOGREP_ERR__NOMEM);
    }
    lr_md_free(g.img);
    logrep_conf_free(conf);
}
