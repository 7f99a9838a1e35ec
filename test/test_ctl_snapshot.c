/* A controller rebuilt from a snapshot (lr_ctl_load_snapshot): after
 * loading the snapshot of another controller's image it holds the same
 * image at the same next offset, follows the same further records to the
 * same image, and answers the same requests with the same records; active
 * or standby. A snapshot that does not load whole changes nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/md_snapshot.h"
#include "lib/ctl_testutil.h"
#include "lib/testutil.h"

static int collect(void *ctx, const uint8_t *rec, size_t len)
{
    return tc_sink(ctx, 0, rec, len);
}

/* The snapshot records of img into *out. */
static void snapshot_of(const lr_md_image *img, tc_log *out)
{
    memset(out, 0, sizeof *out);
    cr_assert_eq(lr_md_snapshot_records(img, collect, out, NULL), 0);
}

/* A source handing out a tc_log's records; `stop_at` (>= 0) fails there
 * with its own error. */
typedef struct src {
    const tc_log *l;
    long stop_at;
    size_t given;
} src;

static int from_log(void *ctx, lr_ctl_snap_put_fn put, void *put_ctx)
{
    src *s = ctx;
    for (size_t i = 0; i < s->l->n; i++) {
        if (s->stop_at >= 0 && (long)i == s->stop_at)
            return LOGREP_ERR__IO;
        size_t len;
        const uint8_t *r = tc_log_rec(s->l, i, &len);
        int err = put(put_ctx, r, len);
        if (err)
            return err;
        s->given++;
    }
    return 0;
}

static int load(lr_ctl *ctl, const logrep_conf *conf, int64_t end, const tc_log *l)
{
    src s = {l, -1, 0};
    return lr_ctl_load_snapshot(ctl, conf, end, from_log, &s);
}

/* 1 when the two images have the same snapshot bytes and next offset. */
static int same_image(const lr_md_image *a, const lr_md_image *b)
{
    tc_log x, y;
    snapshot_of(a, &x);
    snapshot_of(b, &y);
    int same = x.n == y.n && x.len == y.len && memcmp(x.data, y.data, x.len) == 0 &&
               lr_md_next_offset(a) == lr_md_next_offset(b);
    tc_log_free(&x);
    tc_log_free(&y);
    return same;
}

/* Brokers, topics, ISR changes, elections, configs, producer ids. */
static void drive(tc_cluster *c)
{
    for (int32_t b = 1; b <= 4; b++)
        cr_assert_eq(tc_join(c, b, b % 2 ? "r1" : "r2", -1), 0);
    const char *const cfg[] = {"min.insync.replicas=2", NULL};
    cr_assert_eq(tc_topic(c, "a", 4, 3, cfg), 0);
    cr_assert_eq(tc_topic(c, "b", 2, 2, NULL), 0);
    cr_assert_eq(tc_topic(c, "gone", 1, 1, NULL), 0);
    cr_assert_eq(lr_ctl_delete_topic(c->ctl, "gone"), 0);
    for (int32_t p = 0; p < 4; p++) {
        const lr_md_partition *part = tc_part(c, "a", p);
        int32_t isr[2] = {part->leader, part->replicas[0] == part->leader ? part->replicas[1]
                                                                          : part->replicas[0]};
        cr_assert_eq(tc_alter(c, "a", p, isr, 2), 0);
    }
    cr_assert_eq(lr_ctl_set_topic_config(c->ctl, "b", "unclean.leader.election.enable", "true"),
                 0);
    int64_t first;
    int32_t n;
    cr_assert_eq(lr_ctl_allocate_producer_ids(c->ctl, 1, c->epochs[1], &first, &n), 0);
    /* Broker 4 goes away: fenced, out of every ISR. */
    c->now += 60000;
    for (int32_t b = 1; b <= 3; b++)
        tc_beat(c, b);
    cr_assert_eq(lr_ctl_tick(c->ctl, c->now), 0);
    cr_assert(lr_md_broker_get(lr_ctl_image(c->ctl), 4)->fenced);
}

/* A controller driven by drive(), and its snapshot; returns the end. */
static int64_t driven(tc_cluster *a, const char *const *conf, tc_log *snap)
{
    tc_start(a, conf);
    drive(a);
    tc_check(a);
    snapshot_of(lr_ctl_image(a->ctl), snap);
    return lr_md_next_offset(lr_ctl_image(a->ctl));
}

/* The records of l from index i, as bytes back to back. */
static size_t tail_bytes(const tc_log *l, size_t i, const uint8_t **p)
{
    size_t start = i ? l->ends[i - 1] : 0;
    *p = l->data + start;
    return l->len - start;
}

Test(ctl_snapshot, loaded_controller_follows_and_answers_as_the_original)
{
    tc_cluster a;
    tc_log snap;
    const char *const conf[] = {"min.insync.replicas=2", NULL};
    int64_t end = driven(&a, conf, &snap);
    const lr_md_image *ia = lr_ctl_image(a.ctl);

    tc_log lb = {0};
    lr_ctl *b = lr_ctl_new(a.conf, tc_sink, &lb);
    cr_assert(b);
    cr_assert_eq(load(b, a.conf, end, &snap), 0);
    cr_assert_eq(lr_md_next_offset(lr_ctl_image(b)), end);
    cr_assert(same_image(ia, lr_ctl_image(b)));
    char why[256];
    cr_assert_eq(lr_md_check_invariants(lr_ctl_image(b), why, sizeof why), 0, "%s", why);

    /* A goes on; B replays what A wrote, as a standby would. */
    size_t mark = a.log.n;
    cr_assert_eq(tc_join(&a, 4, "r2", a.epochs[4]), 0);
    cr_assert_eq(tc_topic(&a, "c", 3, 3, NULL), 0);
    int el = lr_ctl_elect_leader(a.ctl, "a", 0, LR_CTL_ELECT_PREFERRED);
    cr_assert(el == 0 || el == LOGREP_ERR_ELECTION_NOT_NEEDED ||
              el == LOGREP_ERR_PREFERRED_LEADER_NOT_AVAILABLE, "%d", el);
    cr_assert_gt(a.log.n, mark);
    for (size_t i = mark; i < a.log.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&a.log, i, &len);
        cr_assert_eq(lr_md_next_offset(lr_ctl_image(b)), a.log.offsets[i]);
        cr_assert_eq(lr_ctl_replay(b, r, len), 0, "record %zu", i);
    }
    cr_assert(same_image(lr_ctl_image(a.ctl), lr_ctl_image(b)));

    /* The same requests to both: the same answers and the same records. */
    int64_t now = a.now + 100;
    mark = a.log.n;
    size_t mark_b = lb.n;
    for (int32_t id = 1; id <= 4; id++) {
        lr_ctl_heartbeat_req hb = {id, a.epochs[id], lr_md_next_offset(lr_ctl_image(a.ctl)), 0,
                                   id == 3};
        lr_ctl_heartbeat_resp ra, rb;
        int ea = lr_ctl_heartbeat(a.ctl, &hb, now, &ra);
        int eb = lr_ctl_heartbeat(b, &hb, now, &rb);
        cr_assert_eq(ea, eb, "heartbeat %d", (int)id);
        cr_assert_eq(memcmp(&ra, &rb, sizeof ra), 0, "heartbeat %d answer", (int)id);
    }
    const lr_md_topic *t = lr_md_topic_by_name(lr_ctl_image(a.ctl), "b");
    const lr_md_partition *p = lr_md_partition_get(t, 1);
    lr_ctl_isr_member m[1] = {{p->leader, a.epochs[p->leader]}};
    lr_ctl_alter_partition_req ar = {.broker_id = p->leader,
                                     .broker_epoch = a.epochs[p->leader],
                                     .partition = 1,
                                     .leader_epoch = p->leader_epoch,
                                     .partition_epoch = p->partition_epoch,
                                     .new_isr = m,
                                     .n_new_isr = 1,
                                     .leader_recovery_state = LR_MD_RECOVERED};
    memcpy(ar.topic_id, t->id, 16);
    cr_assert_eq(lr_ctl_alter_partition(a.ctl, &ar, NULL), lr_ctl_alter_partition(b, &ar, NULL));
    cr_assert_eq(lr_ctl_set_topic_config(a.ctl, "a", "min.insync.replicas", "3"),
                 lr_ctl_set_topic_config(b, "a", "min.insync.replicas", "3"));
    int64_t fa, fb;
    int32_t na, nb;
    cr_assert_eq(lr_ctl_allocate_producer_ids(a.ctl, 2, a.epochs[2], &fa, &na), 0);
    cr_assert_eq(lr_ctl_allocate_producer_ids(b, 2, a.epochs[2], &fb, &nb), 0);
    cr_assert_eq(fa, fb, "no producer id handed out twice");
    cr_assert_eq(lr_ctl_delete_topic(a.ctl, "b"), lr_ctl_delete_topic(b, "b"));
    cr_assert_eq(lr_ctl_delete_topic(b, "nope"), LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    cr_assert_gt(a.log.n, mark);
    const uint8_t *pa, *pb;
    size_t la = tail_bytes(&a.log, mark, &pa), lbn = tail_bytes(&lb, mark_b, &pb);
    cr_assert_eq(la, lbn, "the same records");
    cr_assert_eq(memcmp(pa, pb, la), 0, "the same records");
    cr_assert(same_image(lr_ctl_image(a.ctl), lr_ctl_image(b)));
    cr_assert_eq(lr_md_check_invariants(lr_ctl_image(b), why, sizeof why), 0, "%s", why);

    lr_ctl_free(b);
    tc_log_free(&lb);
    tc_log_free(&snap);
    tc_stop(&a);
}

Test(ctl_snapshot, a_standby_loads_and_follows)
{
    tc_cluster a;
    tc_log snap;
    int64_t end = driven(&a, NULL, &snap);

    tc_log lb = {0};
    lr_ctl *b = lr_ctl_new(a.conf, tc_sink, &lb);
    lr_ctl_set_standby(b, 1);
    cr_assert_eq(load(b, a.conf, end, &snap), 0);
    cr_assert(lr_ctl_standby(b), "the mode is kept");
    cr_assert(same_image(lr_ctl_image(a.ctl), lr_ctl_image(b)));
    cr_assert_eq(lr_ctl_delete_topic(b, "a"), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert_eq(lb.n, 0);
    /* A control record's offset, then a record: the standby follows. */
    lr_ctl_skip_to(b, end + 1);
    lr_ctl_skip_to(a.ctl, end + 1);
    cr_assert_eq(tc_topic(&a, "late", 1, 1, NULL), 0);
    size_t len;
    for (size_t i = a.log.n - 2; i < a.log.n; i++) {
        const uint8_t *r = tc_log_rec(&a.log, i, &len);
        if (a.log.offsets[i] >= end + 1)
            cr_assert_eq(lr_ctl_replay(b, r, len), 0);
    }
    cr_assert(same_image(lr_ctl_image(a.ctl), lr_ctl_image(b)));
    /* Made active: it acts on the loaded image. */
    lr_ctl_set_standby(b, 0);
    cr_assert_eq(lr_ctl_delete_topic(b, "late"), 0);
    cr_assert_eq(lb.n, 1);
    lr_ctl_free(b);
    tc_log_free(&lb);
    tc_log_free(&snap);
    tc_stop(&a);
}

Test(ctl_snapshot, a_snapshot_that_does_not_load_whole_changes_nothing)
{
    tc_cluster a;
    tc_log snap;
    int64_t end = driven(&a, NULL, &snap);

    /* b already holds an image of its own. */
    tc_cluster b;
    tc_start(&b, NULL);
    cr_assert_eq(tc_join(&b, 7, NULL, -1), 0);
    cr_assert_eq(tc_topic(&b, "mine", 1, 1, NULL), 0);
    tc_log before;
    snapshot_of(lr_ctl_image(b.ctl), &before);
    int64_t before_end = lr_md_next_offset(lr_ctl_image(b.ctl));
#define UNCHANGED()                                                                              \
    do {                                                                                         \
        tc_log now_;                                                                             \
        snapshot_of(lr_ctl_image(b.ctl), &now_);                                                 \
        cr_assert(now_.len == before.len && memcmp(now_.data, before.data, now_.len) == 0);      \
        cr_assert_eq(lr_md_next_offset(lr_ctl_image(b.ctl)), before_end);                        \
        tc_log_free(&now_);                                                                      \
    } while (0)

    /* The records without the first topic's TopicRecord: its partitions
     * do not apply. */
    tc_log bad = {0};
    int dropped = 0;
    for (size_t i = 0; i < snap.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&snap, i, &len);
        if (!dropped && r[1] == LR_MD_TOPIC) {
            dropped = 1;
            continue;
        }
        tc_sink(&bad, 0, r, len);
    }
    cr_assert(dropped);
    cr_assert_eq(load(b.ctl, b.conf, end, &bad), LOGREP_ERR__CORRUPT);
    UNCHANGED();

    /* A record cut short. */
    tc_log cut = {0};
    for (size_t i = 0; i < snap.n; i++) {
        size_t len;
        const uint8_t *r = tc_log_rec(&snap, i, &len);
        tc_sink(&cut, 0, r, i == snap.n / 2 ? len / 2 : len);
    }
    cr_assert_neq(load(b.ctl, b.conf, end, &cut), 0);
    UNCHANGED();

    /* The source fails half-way with its own error. */
    src s = {&snap, (long)snap.n / 2, 0};
    cr_assert_eq(lr_ctl_load_snapshot(b.ctl, b.conf, end, from_log, &s), LOGREP_ERR__IO);
    cr_assert_eq(s.given, snap.n / 2);
    UNCHANGED();

    /* Records in a snapshot ending at 0; a negative end; no source. */
    cr_assert_eq(load(b.ctl, b.conf, 0, &snap), LOGREP_ERR__CORRUPT);
    cr_assert_eq(load(b.ctl, b.conf, -1, &snap), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_ctl_load_snapshot(b.ctl, b.conf, end, NULL, NULL), LOGREP_ERR__INVALID_ARG);
    UNCHANGED();
    cr_assert_eq(tc_topic(&b, "still", 1, 1, NULL), 0, "b still acts");

    /* An empty snapshot: an empty image at its end offset. */
    tc_log none = {0};
    cr_assert_eq(load(b.ctl, b.conf, 17, &none), 0);
    cr_assert_eq(lr_md_next_offset(lr_ctl_image(b.ctl)), 17);
    cr_assert_eq(lr_md_topic_count(lr_ctl_image(b.ctl)), 0);
    cr_assert_eq(lr_md_broker_count(lr_ctl_image(b.ctl)), 0);

    /* A stopped controller loads nothing. */
    b.log.fail = LOGREP_ERR__IO;
    cr_assert_eq(tc_join(&b, 8, NULL, -1), LOGREP_ERR_NOT_CONTROLLER);
    cr_assert(lr_ctl_failed(b.ctl));
    cr_assert_eq(load(b.ctl, b.conf, end, &snap), LOGREP_ERR_NOT_CONTROLLER);
#undef UNCHANGED
    tc_log_free(&none);
    tc_log_free(&cut);
    tc_log_free(&bad);
    tc_log_free(&before);
    tc_log_free(&snap);
    tc_stop(&b);
    tc_stop(&a);
}
