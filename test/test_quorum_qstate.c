/* The quorum-state file (docs/quorum.md, "The quorum-state file"):
 * lr_qstate. */
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


/* ---- qstate ------------------------------------------------------------- */

#define QDIR "meta/__cluster_metadata-0"
#define QPATH QDIR "/quorum-state"

static const int32_t VOTERS3[3] = {1, 2, 3};

static void qs_put(logrep_storage *st, const char *text, size_t len)
{
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, QPATH, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq(st->truncate(st->ctx, f, 0), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, text, len), 0);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    st->close(st->ctx, f);
}

static int state_eq(const lr_quorum_state *a, const lr_quorum_state *b)
{
    return a->epoch == b->epoch && a->voted_for == b->voted_for && a->leader_id == b->leader_id &&
           a->abstaining == b->abstaining && a->floor_epoch == b->floor_epoch;
}

Test(quorum_store, qstate_text_is_kafkas_with_two_fields_of_ours)
{
    lr_quorum_state s = {7, -1, 2, 0, -1};
    char buf[512];
    size_t n = lr_qstate_format(&s, VOTERS3, 3, buf, sizeof buf);
    const char *want = "{\"clusterId\":\"\",\"leaderId\":2,\"leaderEpoch\":7,\"votedId\":-1,"
                       "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},"
                       "{\"voterId\":3}],\"abstaining\":false,\"floorEpoch\":-1,"
                       "\"data_version\":0}";
    cr_assert_eq(n, strlen(want));
    cr_assert_eq(memcmp(buf, want, n), 0, "%.*s", (int)n, buf);
    cr_assert_eq(lr_qstate_format(&s, VOTERS3, 3, buf, n), 0); /* no room */
    cr_assert_eq(lr_qstate_format(&s, VOTERS3, 3, buf, n + 1), n);
}

Test(quorum_store, qstate_round_trips_through_the_storage)
{
    logrep_storage *st = qt_meta_storage(0);
    int32_t many[LR_QUORUM_MAX_VOTERS];
    for (int i = 0; i < LR_QUORUM_MAX_VOTERS; i++)
        many[i] = INT32_MAX - i;
    struct {
        lr_quorum_state s;
        const int32_t *v;
        size_t n;
    } cases[] = {
        {{0, -1, -1, 0, -1}, VOTERS3, 3}, /* the format step's */
        {{5, 2, -1, 0, -1}, VOTERS3, 3},
        {{6, 1, 1, 0, -1}, VOTERS3, 3},
        {{9, -1, 3, 1, 8}, VOTERS3, 3},
        {{INT32_MAX, INT32_MAX, INT32_MAX, 1, INT32_MAX}, many, LR_QUORUM_MAX_VOTERS},
        {{3, -1, -1, 1, -1}, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(lr_qstate_write(st, QDIR, &cases[i].s, cases[i].v, cases[i].n), 0);
        lr_qstate_file f;
        cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
        cr_assert(state_eq(&f.state, &cases[i].s), "case %zu", i);
        cr_assert_eq(f.n_voters, cases[i].n);
        for (size_t k = 0; k < f.n_voters; k++)
            cr_assert_eq(f.voters[k], cases[i].v[k]);
    }
    logrep_storage_free(st);
}

Test(quorum_store, qstate_missing_file_is_none)
{
    logrep_storage *st = qt_meta_storage(0);
    lr_qstate_file f;
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__NOENT);
    cr_assert_eq(lr_qstate_read(st, "meta/elsewhere", &f), LOGREP_ERR__NOENT);
    /* A temporary left by a crash before its rename is not the file. */
    logrep_file *t;
    cr_assert_eq(st->open(st->ctx, QPATH ".tmp", LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &t), 0);
    st->close(st->ctx, t);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__NOENT);
    logrep_storage_free(st);
}

Test(quorum_store, qstate_reader_tolerates_spacing_order_and_unknown_simple_keys)
{
    const char *text =
        " \n{ \"data_version\" : 0 ,\t\"floorEpoch\":4, \"abstaining\" : true,\r\n"
        "  \"currentVoters\" : [ { \"note\": \"a \\\"b\\\" \\u00e9\\n\", \"voterId\" : 3 } ,"
        " {\"voterId\":1,\"weight\":1.5e-3} ] , \"votedId\":-1,\"leaderEpoch\":12,"
        " \"leaderId\" : 3, \"appliedOffset\":0, \"clusterId\":\"x\", \"extra\":null,"
        " \"flag\":false, \"big\":-12345678901234567890, \"zero\":-0.0E+1 }\n\n";
    lr_qstate_file f;
    int err = lr_qstate_parse(text, strlen(text), &f);
    cr_assert_eq(err, 0);
    lr_quorum_state want = {12, -1, 3, 1, 4};
    cr_assert(state_eq(&f.state, &want));
    cr_assert_eq(f.n_voters, 2);
    cr_assert(f.voters[0] == 3 && f.voters[1] == 1);
}

static const char *VALID =
    "{\"clusterId\":\"\",\"leaderId\":2,\"leaderEpoch\":7,\"votedId\":-1,\"appliedOffset\":0,"
    "\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},{\"voterId\":3}],\"abstaining\":false,"
    "\"floorEpoch\":-1,\"data_version\":0}";

/* VALID with the first `from` replaced by `to`. */
static char *edit(const char *from, const char *to)
{
    const char *at = strstr(VALID, from);
    cr_assert_not_null(at, "%s", from);
    size_t a = (size_t)(at - VALID), fl = strlen(from), tl = strlen(to);
    char *s = malloc(strlen(VALID) - fl + tl + 1);
    memcpy(s, VALID, a);
    memcpy(s + a, to, tl);
    strcpy(s + a + tl, at + fl);
    return s;
}

Test(quorum_store, qstate_refuses_every_corruption)
{
    lr_qstate_file f, keep;
    memset(&keep, 0x5a, sizeof keep);
    cr_assert_eq(lr_qstate_parse(VALID, strlen(VALID), &f), 0);
    /* Truncated anywhere. */
    for (size_t n = 0; n < strlen(VALID); n++) {
        char *c = malloc(n ? n : 1);
        memcpy(c, VALID, n);
        f = keep;
        cr_assert_eq(lr_qstate_parse(c, n, &f), LOGREP_ERR__CORRUPT, "cut at %zu", n);
        cr_assert_eq(memcmp(&f, &keep, sizeof f), 0); /* untouched */
        free(c);
    }
    /* Wrong types, out of range, duplicates, missing keys, bad syntax. */
    static const char *const edits[][2] = {
        {"\"leaderId\":2", "\"leaderId\":\"2\""},
        {"\"leaderId\":2", "\"leaderId\":2.0"},
        {"\"leaderId\":2", "\"leaderId\":2e0"},
        {"\"leaderId\":2", "\"leaderId\":true"},
        {"\"leaderId\":2", "\"leaderId\":null"},
        {"\"leaderId\":2", "\"leaderId\":-2"},
        {"\"leaderId\":2", "\"leaderId\":2147483648"},
        {"\"leaderId\":2", "\"leaderId\":02"},
        {"\"leaderId\":2", "\"leaderId\":+2"},
        {"\"leaderId\":2", "\"leaderId\":-"},
        {"\"leaderEpoch\":7", "\"leaderEpoch\":-1"},
        {"\"leaderEpoch\":7", "\"leaderEpoch\":99999999999999999999"},
        {"\"votedId\":-1", "\"votedId\":-2"},
        {"\"votedId\":-1", "\"votedId\":9223372036854775807"},
        {"\"appliedOffset\":0", "\"appliedOffset\":9223372036854775808"},
        {"\"appliedOffset\":0", "\"appliedOffset\":0.5"},
        {"\"floorEpoch\":-1", "\"floorEpoch\":-2"},
        {"\"floorEpoch\":-1", "\"floorEpoch\":\"-1\""},
        {"\"abstaining\":false", "\"abstaining\":0"},
        {"\"abstaining\":false", "\"abstaining\":\"false\""},
        {"\"abstaining\":false", "\"abstaining\":fals"},
        {"\"data_version\":0", "\"data_version\":1"},
        {"\"data_version\":0", "\"data_version\":-1"},
        {"[{\"voterId\":1},", "{\"voterId\":1},"},
        {"[{\"voterId\":1},", "[{\"voterId\":\"1\"},"},
        {"[{\"voterId\":1},", "[{\"voterId\":-1},"},
        {"[{\"voterId\":1},", "[{\"voterId\":2},"},       /* a voter twice */
        {"[{\"voterId\":1},", "[{\"voter\":1},"},         /* no voterId */
        {"[{\"voterId\":1},", "[{\"voterId\":1,\"voterId\":4},"},
        {"[{\"voterId\":1},", "[{},"},
        {"[{\"voterId\":1},", "[1,"},
        {"[{\"voterId\":1},", "[{\"voterId\":1,\"x\":[]},"},
        {"{\"voterId\":3}]", "{\"voterId\":3},]"},
        {"{\"voterId\":3}]", "{\"voterId\":3}"},
        {"\"leaderId\":2,", "\"leaderId\":2,\"leaderId\":2,"}, /* a key twice */
        {"\"leaderId\":2,", ""},
        {"\"leaderEpoch\":7,", ""},
        {"\"votedId\":-1,", ""},
        {"\"appliedOffset\":0,", ""},
        {"\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},{\"voterId\":3}],", ""},
        {"\"abstaining\":false,", ""},
        {"\"floorEpoch\":-1,", ""},
        {",\"data_version\":0", ""},
        {"\"clusterId\":\"\"", "\"clusterId\":{}"},        /* not a simple value */
        {"\"clusterId\":\"\"", "\"clusterId\":[1]"},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\\x\""},   /* bad escape */
        {"\"clusterId\":\"\"", "\"clusterId\":\"\\u12g4\""},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\t\""},    /* control character */
        {"\"clusterId\":\"\"", "\"clusterId\":\"\""},      /* (valid: the control) */
        {"\"clusterId\":\"\"", "\"clusterId\" \"\""},
        {"\"clusterId\":\"\"", "clusterId:\"\""},
        {"\"clusterId\":\"\"", "\"clusterId\":\"\",,"},
        {"\"clusterId\":\"\"", "\"clusterId\":.5"},
        {"\"clusterId\":\"\"", "\"clusterId\":1.e5"},
        {"\"clusterId\":\"\"", "\"clusterId\":1e"},
        {"\"data_version\":0}", "\"data_version\":0}}"},    /* trailing bytes */
        {"\"data_version\":0}", "\"data_version\":0}x"},
        {"\"data_version\":0}", "\"data_version\":0"},
        {"{\"clusterId\"", "[{\"clusterId\""},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *s = edit(edits[i][0], edits[i][1]);
        int want = strcmp(edits[i][1], "\"clusterId\":\"\"") == 0 ? 0 : LOGREP_ERR__CORRUPT;
        cr_assert_eq(lr_qstate_parse(s, strlen(s), &f), want, "%s", s);
        free(s);
    }
    /* A NUL inside, 17 voters, garbage, an empty file. */
    char nul[512];
    size_t n = strlen(VALID);
    memcpy(nul, VALID, n);
    nul[20] = 0;
    cr_assert_eq(lr_qstate_parse(nul, n, &f), LOGREP_ERR__CORRUPT);
    char many[1024];
    int k = snprintf(many, sizeof many, "{\"leaderId\":-1,\"leaderEpoch\":0,\"votedId\":-1,"
                                        "\"appliedOffset\":0,\"abstaining\":false,"
                                        "\"floorEpoch\":-1,\"data_version\":0,\"currentVoters\":[");
    for (int i = 0; i < 17; i++)
        k += snprintf(many + k, sizeof many - (size_t)k, "%s{\"voterId\":%d}", i ? "," : "", i);
    snprintf(many + k, sizeof many - (size_t)k, "]}");
    cr_assert_eq(lr_qstate_parse(many, strlen(many), &f), LOGREP_ERR__CORRUPT);
    strstr(many, ",{\"voterId\":16}")[0] = ']';
    strstr(many, "]{\"voterId\":16}")[1] = '}';
    strstr(many, "]}\"voterId\":16}")[2] = 0;
    cr_assert_eq(lr_qstate_parse(many, strlen(many), &f), 0, "%s", many); /* 16 is the cap */
    cr_assert_eq(f.n_voters, 16);
    uint64_t s = 7;
    for (int round = 0; round < 5000; round++) {
        char g[64];
        size_t len = qt_rng_next(&s) % sizeof g;
        for (size_t i = 0; i < len; i++)
            g[i] = "{}[]\":,0-1 aetrufl\\"[qt_rng_next(&s) % 20];
        cr_assert_eq(lr_qstate_parse(g, len, &f), LOGREP_ERR__CORRUPT);
    }
    cr_assert_eq(lr_qstate_parse("", 0, &f), LOGREP_ERR__CORRUPT);
    cr_assert_eq(lr_qstate_parse(NULL, 0, &f), LOGREP_ERR__CORRUPT);
}

Test(quorum_store, qstate_read_refuses_corrupt_files)
{
    logrep_storage *st = qt_meta_storage(0);
    lr_qstate_file f;
    qs_put(st, "", 0);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, VALID, strlen(VALID) - 1);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, "\x01\x02garbage", 9);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    /* Larger than any file we write, even when it would parse. */
    char *big = malloc(LR_QSTATE_MAX_BYTES + 10);
    memset(big, ' ', LR_QSTATE_MAX_BYTES + 10);
    memcpy(big, VALID, strlen(VALID));
    qs_put(st, big, LR_QSTATE_MAX_BYTES + 10);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), LOGREP_ERR__CORRUPT);
    qs_put(st, big, LR_QSTATE_MAX_BYTES);
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
    free(big);
    logrep_storage_free(st);
}

Test(quorum_store, qstate_write_refuses_what_it_could_not_read_back)
{
    logrep_storage *st = qt_meta_storage(0);
    lr_quorum_state ok = {1, -1, -1, 0, -1};
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, VOTERS3, 3), 0);
    lr_quorum_state bad[] = {
        {-1, -1, -1, 0, -1}, {1, -2, -1, 0, -1}, {1, -1, -2, 0, -1},
        {1, -1, -1, 2, -1},  {1, -1, -1, 0, -2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(lr_qstate_write(st, QDIR, &bad[i], VOTERS3, 3), LOGREP_ERR__INVALID_ARG);
    int32_t dup[2] = {4, 4}, neg[1] = {-1}, many[LR_QUORUM_MAX_VOTERS + 1] = {0};
    for (int i = 0; i <= LR_QUORUM_MAX_VOTERS; i++)
        many[i] = i;
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, dup, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, neg, 1), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, many, LR_QUORUM_MAX_VOTERS + 1),
                 LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, &ok, NULL, 2), LOGREP_ERR__INVALID_ARG);
    cr_assert_eq(lr_qstate_write(st, QDIR, NULL, VOTERS3, 3), LOGREP_ERR__INVALID_ARG);
    lr_qstate_file f;
    cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
    cr_assert(state_eq(&f.state, &ok));
    logrep_storage_free(st);
}

static int no_tmp(void *ctx, const char *name)
{
    (void)ctx;
    cr_assert(strstr(name, ".tmp") == NULL, "%s left behind", name);
    return 0;
}

Test(quorum_store, qstate_failed_write_keeps_the_old_file)
{
    logrep_storage *st = qt_meta_storage(1);
    lr_quorum_state a = {4, 2, -1, 0, -1}, b = {5, 3, -1, 0, -1};
    cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
    /* The n-th storage call of a class fails: the temporary's open, write,
     * truncate, sync, the rename, the directory sync. */
    struct {
        uint32_t ops;
        uint64_t countdown;
        logrep_err err;
        int renamed; /* the failure comes after the commit point */
    } faults[] = {
        {LOGREP_STORAGE_OP_META, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_TRUNCATE, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__NOSPACE, 0},
        {LOGREP_STORAGE_OP_WRITE, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_SYNC, 1, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_META, 2, LOGREP_ERR__IO, 0},
        {LOGREP_STORAGE_OP_SYNC, 2, LOGREP_ERR__IO, 1},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
        cr_assert_eq(logrep_storage_crash_inject(st, faults[i].ops, faults[i].countdown,
                                                 faults[i].err, 0),
                     0);
        cr_assert_eq(lr_qstate_write(st, QDIR, &b, VOTERS3, 3), faults[i].err, "fault %zu", i);
        cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_ALL, 0, 0, 0), 0);
        lr_qstate_file f;
        cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0);
        /* Before the rename the old state stands; a failed directory sync
         * after it may leave either, never a torn one. */
        cr_assert(state_eq(&f.state, faults[i].renamed ? &b : &a), "fault %zu", i);
        cr_assert_eq(st->list(st->ctx, QDIR, no_tmp, NULL), 0);
    }
    logrep_storage_free(st);
}

Test(quorum_store, qstate_power_loss_during_a_write_leaves_old_or_new)
{
    lr_quorum_state a = {4, 2, -1, 0, -1}, b = {5, 3, -1, 1, 5};
    int saw_new = 0, saw_old = 0;
    for (uint64_t n = 1; n <= 8; n++) {
        for (int mode = 0; mode < 3; mode++) {
            logrep_storage *st = qt_meta_storage(1);
            cr_assert_eq(lr_qstate_write(st, QDIR, &a, VOTERS3, 3), 0);
            cr_assert_eq(logrep_storage_crash_after(st, n), 0);
            lr_qstate_write(st, QDIR, &b, VOTERS3, 3); /* may fail when the power goes */
            cr_assert_eq(logrep_storage_crash_simulate(st, n * 3 + (uint64_t)mode, mode), 0);
            lr_qstate_file f;
            cr_assert_eq(lr_qstate_read(st, QDIR, &f), 0, "after %llu calls, mode %d",
                         (unsigned long long)n, mode);
            cr_assert(state_eq(&f.state, &a) || state_eq(&f.state, &b));
            saw_new += state_eq(&f.state, &b);
            saw_old += state_eq(&f.state, &a);
            logrep_storage_free(st);
        }
    }
    cr_assert(saw_new && saw_old);
}
