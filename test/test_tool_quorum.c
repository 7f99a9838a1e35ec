/* `logrep quorum`, its pure parts linked in (tools/logrep/quorum_fmt.c):
 * DescribeQuorum answers crafted at v0, v1 and v2 (through the codec's
 * bytes) read and printed as kafka-metadata-quorum describe prints them,
 * the refusals (errors, a foreign partition, a leader outside the
 * voters), and the answers of three in-process voters: the leader's
 * description, a follower's NOT_LEADER_OR_FOLLOWER naming the leader,
 * and a broker listener that does not offer the API; and the tool itself
 * (the ASan build) on bad arguments and addresses nobody listens on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/net_testutil.h"
#include "quorum_fmt.h"

/* ------------------------------------------------------------ crafted */

typedef struct rep {
    int32_t id;
    int64_t end, fetch, caught;
} rep;

typedef struct answer {
    int16_t top_error, part_error;
    const char *topic;
    int32_t partition, leader, epoch;
    int64_t hw;
    const rep *voters;
    int nv;
    const rep *observers;
    int no;
} answer;

typedef struct decoded {
    logrep_msg *req, *tx, *rx;
    uint8_t *frame;
} decoded;

static void set_i(logrep_struct *s, const char *f, int64_t v)
{
    cr_assert_eq(logrep_struct_set_int(s, logrep_struct_field(s, f), v), 0, "%s", f);
}

static void put_reps(logrep_struct *p, const char *f, const rep *r, int n)
{
    int fid = logrep_struct_field(p, f);
    cr_assert_eq(logrep_struct_set_count(p, fid, n), 0);
    for (int i = 0; i < n; i++) {
        logrep_struct *e = logrep_struct_elem(p, fid, i);
        set_i(e, "ReplicaId", r[i].id);
        set_i(e, "LogEndOffset", r[i].end);
        /* The times are set where the version has them (v1 on). */
        int ff = logrep_struct_field(e, "LastFetchTimestamp");
        int fc = logrep_struct_field(e, "LastCaughtUpTimestamp");
        if (ff >= 0)
            logrep_struct_set_int(e, ff, r[i].fetch);
        if (fc >= 0)
            logrep_struct_set_int(e, fc, r[i].caught);
    }
}

/* The answer at version v, encoded and decoded again: d->rx holds it. */
static logrep_struct *craft(decoded *d, int v, const answer *a)
{
    memset(d, 0, sizeof *d);
    cr_assert_eq(logrep_msg_new(NULL, &d->req), 0);
    cr_assert_eq(logrep_msg_new(NULL, &d->tx), 0);
    cr_assert_eq(logrep_msg_new(NULL, &d->rx), 0);
    cr_assert_eq(logrep_msg_init_request(d->req, LOGREP_API_DESCRIBE_QUORUM, v, 9, "t"), 0);
    cr_assert_eq(logrep_msg_init_response_to(d->tx, d->req), 0);
    logrep_struct *r = logrep_msg_root(d->tx);
    set_i(r, "ErrorCode", a->top_error);
    int ft = logrep_struct_field(r, "Topics");
    cr_assert_eq(logrep_struct_set_count(r, ft, 1), 0);
    logrep_struct *t = logrep_struct_elem(r, ft, 0);
    const char *topic = a->topic ? a->topic : QRM_TOPIC;
    logrep_struct_set_bytes(t, logrep_struct_field(t, "TopicName"), topic, (int32_t)strlen(topic));
    int fp = logrep_struct_field(t, "Partitions");
    cr_assert_eq(logrep_struct_set_count(t, fp, 1), 0);
    logrep_struct *p = logrep_struct_elem(t, fp, 0);
    set_i(p, "PartitionIndex", a->partition);
    set_i(p, "ErrorCode", a->part_error);
    set_i(p, "LeaderId", a->leader);
    set_i(p, "LeaderEpoch", a->epoch);
    set_i(p, "HighWatermark", a->hw);
    put_reps(p, "CurrentVoters", a->voters, a->nv);
    put_reps(p, "Observers", a->observers, a->no);
    const uint8_t *buf;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(d->tx, &buf, &len), 0, "%s", logrep_msg_errmsg(d->tx));
    d->frame = malloc(len);
    memcpy(d->frame, buf, len);
    cr_assert_eq(logrep_msg_decode_response(d->rx, LOGREP_API_DESCRIBE_QUORUM, v, d->frame, len),
                 0, "%s", logrep_msg_errmsg(d->rx));
    return logrep_msg_root(d->rx);
}

static void decoded_free(decoded *d)
{
    logrep_msg_free(d->req);
    logrep_msg_free(d->tx);
    logrep_msg_free(d->rx);
    free(d->frame);
}

/* qrm_print_status or _replication of d into a string (freed by caller). */
static char *capture(const qrm_desc *d, const char *cid, int replication)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert(f);
    char err[200];
    if (replication)
        cr_assert_eq(qrm_print_replication(f, d, -1, err, sizeof err), 0, "%s", err);
    else
        qrm_print_status(f, cid, d);
    fclose(f);
    return out;
}

/* Leader 2 of epoch 7; voter 3 behind by 5 and caught up 1500 ms before
 * the leader; observer 4. */
static const rep VOTERS[] = {{1, 120, 1700000000950, 1700000000950},
                             {2, 120, 1700000001000, 1700000001000},
                             {3, 115, 1700000000990, 1699999999500}};
static const rep OBSERVERS[] = {{4, 118, 1700000000980, 1700000000700}};

static answer good(void)
{
    return (answer){0, 0, NULL, 0, 2, 7, 118, VOTERS, 3, OBSERVERS, 1};
}

Test(tool_quorum, status_v2)
{
    answer a = good();
    decoded x;
    qrm_desc d;
    char err[256];
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_OK, "%s", err);
    char *out = capture(&d, "MkU3OEVBNTcwNTJENDM2Qk", 0);
    cr_assert_str_eq(out, "ClusterId:              MkU3OEVBNTcwNTJENDM2Qk\n"
                          "LeaderId:               2\n"
                          "LeaderEpoch:            7\n"
                          "HighWatermark:          118\n"
                          "MaxFollowerLag:         5\n"
                          "MaxFollowerLagTimeMs:   1500\n"
                          "CurrentVoters:          [1,2,3]\n"
                          "CurrentObservers:       [4]\n");
    free(out);
    /* Unknown cluster id (a listener without Metadata). */
    out = capture(&d, NULL, 0);
    cr_assert(strncmp(out, "ClusterId:              -\n", 26) == 0, "%s", out);
    free(out);
    qrm_free(&d);
    decoded_free(&x);
}

Test(tool_quorum, replication_v1)
{
    answer a = good();
    decoded x;
    qrm_desc d;
    char err[256];
    cr_assert_eq(qrm_parse(craft(&x, 1, &a), &d, err, sizeof err), QRM_OK, "%s", err);
    char *out = capture(&d, NULL, 1);
    cr_assert_str_eq(out,
                     "NodeId\tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
                     "2     \t120         \t0  \t1700000001000     \t1700000001000        \tLeader  \t\n"
                     "1     \t120         \t0  \t1700000000950     \t1700000000950        \tFollower\t\n"
                     "3     \t115         \t5  \t1700000000990     \t1699999999500        \tFollower\t\n"
                     "4     \t118         \t2  \t1700000000980     \t1700000000700        \tObserver\t\n");
    free(out);
    qrm_free(&d);
    decoded_free(&x);
}

/* v0 carries no times: -1 in the table, and MaxFollowerLagTimeMs -1
 * unless the voter furthest behind is the leader. */
Test(tool_quorum, v0_has_no_times)
{
    answer a = good();
    decoded x;
    qrm_desc d;
    char err[256];
    cr_assert_eq(qrm_parse(craft(&x, 0, &a), &d, err, sizeof err), QRM_OK, "%s", err);
    char *out = capture(&d, NULL, 0);
    cr_assert(strstr(out, "MaxFollowerLag:         5\nMaxFollowerLagTimeMs:   -1\n"), "%s", out);
    free(out);
    out = capture(&d, NULL, 1);
    cr_assert(strstr(out, "3     \t115         \t5  \t-1                \t-1                   \tFollower\t\n"),
              "%s", out);
    free(out);
    qrm_free(&d);
    decoded_free(&x);

    /* Every voter at the leader's end, the leader listed first: lag 0. */
    static const rep even[] = {{5, 40, -1, -1}, {6, 40, -1, -1}, {7, 40, -1, -1}};
    answer b = {0, 0, NULL, 0, 5, 1, 40, even, 3, NULL, 0};
    cr_assert_eq(qrm_parse(craft(&x, 0, &b), &d, err, sizeof err), QRM_OK, "%s", err);
    out = capture(&d, "c", 0);
    cr_assert_str_eq(out, "ClusterId:              c\n"
                          "LeaderId:               5\n"
                          "LeaderEpoch:            1\n"
                          "HighWatermark:          40\n"
                          "MaxFollowerLag:         0\n"
                          "MaxFollowerLagTimeMs:   0\n"
                          "CurrentVoters:          [5,6,7]\n"
                          "CurrentObservers:       []\n");
    free(out);
    qrm_free(&d);
    decoded_free(&x);
}

/* --human-readable: "N ms ago" against now; a time in the future, or not
 * after the epoch, refused with Kafka's message. */
Test(tool_quorum, replication_human_readable)
{
    answer a = good();
    decoded x;
    qrm_desc d;
    char err[256];
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_OK, "%s", err);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert_eq(qrm_print_replication(f, &d, 1700000002000, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_assert_str_eq(out,
                     "NodeId\tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
                     "2     \t120         \t0  \t1000 ms ago       \t1000 ms ago          \tLeader  \t\n"
                     "1     \t120         \t0  \t1050 ms ago       \t1050 ms ago          \tFollower\t\n"
                     "3     \t115         \t5  \t1010 ms ago       \t2500 ms ago          \tFollower\t\n"
                     "4     \t118         \t2  \t1020 ms ago       \t1300 ms ago          \tObserver\t\n");
    free(out);
    out = NULL;
    f = open_memstream(&out, &len);
    cr_assert_eq(qrm_print_replication(f, &d, 1700000000990, err, sizeof err), -1);
    fclose(f);
    cr_assert_str_eq(out, "");
    cr_assert(strstr(err, "possible drift in system clock"), "%s", err);
    cr_assert(strstr(err, "Current timestamp is 1700000000990, last fetch timestamp is 1700000001000"),
              "%s", err);
    free(out);
    qrm_free(&d);
    decoded_free(&x);
}

/* Wide values widen their column; the header stays left-aligned. */
Test(tool_quorum, replication_widens)
{
    static const rep v[] = {{1001, 12345678901234, 1, 2}, {7, 0, -1, -1}};
    answer a = {0, 0, NULL, 0, 1001, 3, 5, v, 2, NULL, 0};
    decoded x;
    qrm_desc d;
    char err[256];
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_OK, "%s", err);
    char *out = capture(&d, NULL, 1);
    cr_assert_str_eq(out,
                     "NodeId\tLogEndOffset  \tLag           \tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
                     "1001  \t12345678901234\t0             \t1                 \t2                    \tLeader  \t\n"
                     "7     \t0             \t12345678901234\t-1                \t-1                   \tFollower\t\n");
    free(out);
    qrm_free(&d);
    decoded_free(&x);
}

Test(tool_quorum, refusals)
{
    decoded x;
    qrm_desc d;
    char err[256];

    answer a = good();
    a.part_error = LOGREP_ERR_NOT_LEADER_OR_FOLLOWER;
    a.leader = 3;
    a.epoch = 9;
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_ERROR);
    cr_assert_eq(d.error, LOGREP_ERR_NOT_LEADER_OR_FOLLOWER);
    cr_assert_eq(d.leader_id, 3);
    cr_assert(strstr(err, "NOT_LEADER_OR_FOLLOWER"), "%s", err);
    cr_assert(strstr(err, "the leader is node 3 (epoch 9)"), "%s", err);
    qrm_free(&d);
    decoded_free(&x);

    a.leader = -1;
    cr_assert_eq(qrm_parse(craft(&x, 1, &a), &d, err, sizeof err), QRM_ERROR);
    cr_assert(strstr(err, "knows no leader (epoch 9)"), "%s", err);
    qrm_free(&d);
    decoded_free(&x);

    a = good();
    a.top_error = LOGREP_ERR_CLUSTER_AUTHORIZATION_FAILED;
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_ERROR);
    cr_assert(strstr(err, "CLUSTER_AUTHORIZATION_FAILED"), "%s", err);
    qrm_free(&d);
    decoded_free(&x);

    a = good();
    a.topic = "other";
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_BAD);
    cr_assert(strstr(err, "does not describe __cluster_metadata partition 0"), "%s", err);
    qrm_free(&d);
    decoded_free(&x);

    a = good();
    a.partition = 1;
    cr_assert_eq(qrm_parse(craft(&x, 0, &a), &d, err, sizeof err), QRM_BAD);
    qrm_free(&d);
    decoded_free(&x);

    a = good();
    a.leader = 4; /* an observer, not a voter */
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_BAD);
    cr_assert(strstr(err, "leader 4, which is not among its 3 voters"), "%s", err);
    qrm_free(&d);
    decoded_free(&x);

    a = good();
    a.nv = 0;
    cr_assert_eq(qrm_parse(craft(&x, 2, &a), &d, err, sizeof err), QRM_BAD);
    qrm_free(&d);
    decoded_free(&x);
}

/* ------------------------------------------------------------ in-process voters */

#define VOTERS3 "1@sim:9093,2@sim:9093,3@sim:9093"

static int active_controller(net *w)
{
    for (int id = 1; id <= w->n; id++)
        if (w->node[id] && logrep_node_is_controller(w->node[id]))
            return id;
    return -1;
}

/* DescribeQuorum v`ver` to node `to` on its controller listener, the
 * answer parsed into *d; returns qrm_parse's code. */
static int describe_node(net *w, int to, int ver, qrm_desc *d, char *err, size_t errlen)
{
    logrep_msg *m, *r;
    cr_assert_eq(logrep_msg_new(NULL, &m), 0);
    cr_assert_eq(logrep_msg_new(NULL, &r), 0);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_DESCRIBE_QUORUM, ver, 5, "logrep"), 0);
    logrep_struct *root = logrep_msg_root(m);
    int ft = logrep_struct_field(root, "Topics");
    logrep_struct_set_count(root, ft, 1);
    logrep_struct *t = logrep_struct_elem(root, ft, 0);
    logrep_struct_set_bytes(t, logrep_struct_field(t, "TopicName"), QRM_TOPIC,
                            (int32_t)strlen(QRM_TOPIC));
    int fp = logrep_struct_field(t, "Partitions");
    logrep_struct_set_count(t, fp, 1);
    set_i(logrep_struct_elem(t, fp, 0), "PartitionIndex", 0);
    uint64_t c = client_send_on(w, to, "CONTROLLER", m);
    client_wait(w, c, LOGREP_API_DESCRIBE_QUORUM, ver, r, 2000);
    int rc = qrm_parse(logrep_msg_root(r), d, err, errlen);
    logrep_msg_free(m);
    logrep_msg_free(r);
    return rc;
}

/* Whether node `to` lists `api` in ApiVersions on `listener`. */
static int offers(net *w, int to, const char *listener, int api)
{
    logrep_msg *m, *r;
    cr_assert_eq(logrep_msg_new(NULL, &m), 0);
    cr_assert_eq(logrep_msg_new(NULL, &r), 0);
    cr_assert_eq(logrep_msg_init_request(m, LOGREP_API_API_VERSIONS, 3, 1, "logrep"), 0);
    uint64_t c = client_send_on(w, to, listener, m);
    client_wait(w, c, LOGREP_API_API_VERSIONS, 3, r, 2000);
    logrep_struct *root = logrep_msg_root(r);
    int found = 0;
    for (int32_t i = 0; i < logrep_struct_count(root, logrep_struct_field(root, "ApiKeys")); i++)
        found |= fint(elem(root, "ApiKeys", i), "ApiKey") == api;
    logrep_msg_free(m);
    logrep_msg_free(r);
    return found;
}

Test(tool_quorum, three_voters)
{
    static const char *const conf[] = {"broker.session.timeout.ms", "3000", NULL};
    net w;
    net_voters = VOTERS3;
    net_controllers = 3;
    extra_conf = conf;
    setup(&w, 4); /* voters 1-3, broker 4 */
    int a = -1;
    for (int i = 0; i < 200 && a < 0; i++) {
        run(&w, 50);
        a = active_controller(&w);
    }
    cr_assert_geq(a, 1, "no active controller within 10 s");
    /* Once the brokers have registered. */
    int rc = -1;
    for (int i = 0; i < 100 && rc != 0; i++) {
        run(&w, 100);
        rc = create_topic_full(&w, 4, "q", 2, 3, NULL, NULL, 0, NULL);
    }
    cr_assert_eq(rc, 0, "topic q not created: %s", logrep_err_name(rc));
    run(&w, 1000);

    qrm_desc d;
    char err[256];
    for (int ver = 0; ver <= 2; ver++) {
        cr_assert_eq(describe_node(&w, a, ver, &d, err, sizeof err), QRM_OK, "v%d: %s", ver, err);
        cr_assert_eq(d.leader_id, a);
        cr_assert_eq(d.n_voters, 3);
        cr_assert_geq(d.high_watermark, 1);
        char *out = capture(&d, "cid", 0);
        char want[64];
        snprintf(want, sizeof want, "LeaderId:               %d\n", a);
        cr_assert(strstr(out, want), "%s", out);
        cr_assert(strstr(out, "MaxFollowerLag:         0\n"), "%s", out);
        cr_assert(strstr(out, "CurrentVoters:          [1,2,3]\n"), "%s", out);
        free(out);
        out = capture(&d, NULL, 1);
        snprintf(want, sizeof want, "\n%d ", a);
        char *leader_row = strstr(out, want);
        cr_assert(leader_row && strstr(leader_row, "\tLeader"), "%s", out);
        int followers = 0;
        for (char *s = out; (s = strstr(s, "\tFollower")); s++)
            followers++;
        cr_assert_eq(followers, 2, "%s", out);
        free(out);
        qrm_free(&d);
    }

    /* A follower answers NOT_LEADER_OR_FOLLOWER naming the leader. */
    int f = a % 3 + 1;
    cr_assert_eq(describe_node(&w, f, 2, &d, err, sizeof err), QRM_ERROR);
    char want[64];
    snprintf(want, sizeof want, "the leader is node %d", a);
    cr_assert(strstr(err, want), "%s", err);
    qrm_free(&d);

    /* Offered on a voter's controller listener, and on every broker
     * listener (forwarded to the active controller). */
    cr_assert(offers(&w, a, "CONTROLLER", LOGREP_API_DESCRIBE_QUORUM));
    cr_assert(offers(&w, a, "PLAINTEXT", LOGREP_API_DESCRIBE_QUORUM));
    cr_assert(offers(&w, 4, "PLAINTEXT", LOGREP_API_DESCRIBE_QUORUM));

    teardown(&w);
    net_voters = NULL;
    net_controllers = 1;
    extra_conf = NULL;
}

/* ------------------------------------------------------------ the binary */

static char *run_tool(const char *args, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/asan/logrep quorum %s 2>&1", LOGREP_BUILDDIR, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t cap = 1 << 14, len = 0, n;
    char *out = malloc(cap);
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    out[len] = 0;
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return out;
}

Test(tool_quorum, binary_refusals)
{
    int st;
    char *out = run_tool("--bootstrap-server 127.0.0.1:9", &st); /* no --describe */
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "usage: logrep quorum"), "%s", out);
    free(out);

    out = run_tool("--bootstrap-server 127.0.0.1:9 --describe --status --replication", &st);
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "Only one of --status or --replication"), "%s", out);
    free(out);

    out = run_tool("--bootstrap-server 127.0.0.1:9 --describe --status --human-readable", &st);
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "only supported along with --replication"), "%s", out);
    free(out);

    out = run_tool("--bootstrap-server nonsense --describe", &st);
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "Error: bad address \"nonsense\""), "%s", out);
    free(out);

    /* Port 1 on loopback: nobody listens; each address says why. */
    out = run_tool("--bootstrap-server 127.0.0.1:1,127.0.0.1:2 --describe --timeout 2000", &st);
    cr_assert_eq(st, 2, "%s", out);
    cr_assert(strstr(out, "Error: cannot connect to 127.0.0.1:1: Connection refused\n"), "%s", out);
    cr_assert(strstr(out, "Error: cannot connect to 127.0.0.1:2: Connection refused\n"), "%s", out);
    free(out);
}
