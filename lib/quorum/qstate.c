/* The quorum-state file (qstate.h): a writer of one JSON object and a
 * strict reader of the same. */
#include "quorum/qstate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "log/log_int.h"

static int state_ok(const lr_quorum_state *s)
{
    return s->epoch >= 0 && s->voted_for >= -1 && s->leader_id >= -1 && s->abstaining <= 1 &&
           s->floor_epoch >= -1;
}

static int voters_ok(const int32_t *v, size_t n)
{
    if (n > LR_QUORUM_MAX_VOTERS || (n && !v))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0)
            return 0;
        for (size_t j = 0; j < i; j++)
            if (v[j] == v[i])
                return 0;
    }
    return 1;
}

/* ---- writing ---- */

static int add(char *buf, size_t cap, size_t *o, const char *fmt, ...) LR_PRINTF(4, 5);
static int add(char *buf, size_t cap, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *o, cap - *o, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *o)
        return -1;
    *o += (size_t)k;
    return 0;
}

size_t lr_qstate_format(const lr_quorum_state *s, const int32_t *voters, size_t n_voters,
                        char *buf, size_t cap)
{
    if (!s || !buf || !cap || !state_ok(s) || !voters_ok(voters, n_voters))
        return 0;
    size_t o = 0;
    /* Kafka's fields in Kafka's order; clusterId and appliedOffset are
     * written as Kafka's own quorum-state has them and not read. */
    int bad = add(buf, cap, &o,
                  "{\"clusterId\":\"\",\"leaderId\":%d,\"leaderEpoch\":%d,\"votedId\":%d,"
                  "\"appliedOffset\":0,\"currentVoters\":[",
                  (int)s->leader_id, (int)s->epoch, (int)s->voted_for);
    for (size_t i = 0; i < n_voters && !bad; i++)
        bad = add(buf, cap, &o, "%s{\"voterId\":%d}", i ? "," : "", (int)voters[i]);
    if (!bad)
        bad = add(buf, cap, &o, "],\"abstaining\":%s,\"floorEpoch\":%d,\"data_version\":0}",
                  s->abstaining ? "true" : "false", (int)s->floor_epoch);
    return bad ? 0 : o;
}

int lr_qstate_write(const logrep_storage *st, const char *dir, const lr_quorum_state *s,
                    const int32_t *voters, size_t n_voters)
{
    char buf[LR_QSTATE_MAX_BYTES];
    if (!st || !dir)
        return LOGREP_ERR__INVALID_ARG;
    size_t len = lr_qstate_format(s, voters, n_voters, buf, sizeof buf);
    if (!len)
        return LOGREP_ERR__INVALID_ARG;
    return lr_file_replace(st, dir, LR_QSTATE_FILE, buf, len);
}

/* ---- reading: exactly the JSON above, in any order and spacing ---- */

typedef struct cur {
    const char *p, *end;
} cur;

static void ws(cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int eat(cur *c, char ch)
{
    ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

static int word(cur *c, const char *w)
{
    size_t n = strlen(w);
    ws(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_hex(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A string: *s and *n get its raw content (escapes as written). */
static int string(cur *c, const char **s, size_t *n)
{
    if (!eat(c, '"'))
        return -1;
    const char *b = c->p;
    for (; c->p < c->end && *c->p != '"'; c->p++) {
        if ((unsigned char)*c->p < 0x20)
            return -1;
        if (*c->p != '\\')
            continue;
        if (++c->p == c->end)
            return -1;
        if (*c->p == 'u') {
            if (c->end - c->p < 5 || !is_hex(c->p[1]) || !is_hex(c->p[2]) || !is_hex(c->p[3]) ||
                !is_hex(c->p[4]))
                return -1;
            c->p += 4;
        } else if (!*c->p || !memchr("\"\\/bfnrt", *c->p, 8)) {
            return -1;
        }
    }
    if (c->p == c->end)
        return -1;
    *s = b;
    *n = (size_t)(c->p - b);
    c->p++;
    return 0;
}

static const char *digits(const char *p, const char *end)
{
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* An integer in [lo, hi], JSON's syntax (no leading zeros, no fraction
 * or exponent: those are another type here). */
static int integer(cur *c, int64_t lo, int64_t hi, int64_t *out)
{
    ws(c);
    const char *p = c->p;
    int neg = p < c->end && *p == '-';
    p += neg;
    const char *d = p, *e = digits(p, c->end);
    if (e == d || (*d == '0' && e - d > 1) ||
        (e < c->end && (*e == '.' || *e == 'e' || *e == 'E')))
        return -1;
    uint64_t v = 0, max = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; p < e; p++) {
        uint64_t k = (uint64_t)(*p - '0');
        if (v > (max - k) / 10)
            return -1;
        v = v * 10 + k;
    }
    int64_t x = !neg ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
    if (x < lo || x > hi)
        return -1;
    c->p = e;
    *out = x;
    return 0;
}

static int number(cur *c)
{
    ws(c);
    const char *p = c->p + (c->p < c->end && *c->p == '-');
    const char *e = digits(p, c->end);
    if (e == p || (*p == '0' && e - p > 1))
        return -1;
    if (e < c->end && *e == '.') {
        p = e + 1;
        if ((e = digits(p, c->end)) == p)
            return -1;
    }
    if (e < c->end && (*e == 'e' || *e == 'E')) {
        p = e + 1 + (e + 1 < c->end && (e[1] == '+' || e[1] == '-'));
        if ((e = digits(p, c->end)) == p)
            return -1;
    }
    c->p = e;
    return 0;
}

/* The value of a key we do not know: simple values only. */
static int skip_simple(cur *c)
{
    const char *s;
    size_t n;
    ws(c);
    if (c->p < c->end && *c->p == '"')
        return string(c, &s, &n);
    if (word(c, "true") || word(c, "false") || word(c, "null"))
        return 0;
    return number(c);
}

static int key_is(const char *k, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(k, name, n) == 0;
}

/* {"k": v, ...} with member() reading each value. */
typedef int (*member_fn)(cur *c, const char *k, size_t n, void *ctx);

static int object(cur *c, member_fn member, void *ctx)
{
    if (!eat(c, '{'))
        return -1;
    do {
        const char *k;
        size_t n;
        if (string(c, &k, &n) || !eat(c, ':') || member(c, k, n, ctx))
            return -1;
    } while (eat(c, ','));
    return eat(c, '}') ? 0 : -1;
}

typedef struct voter_ctx {
    int64_t id; /* -1 until read */
} voter_ctx;

static int voter_member(cur *c, const char *k, size_t n, void *x)
{
    voter_ctx *v = x;
    if (!key_is(k, n, "voterId"))
        return skip_simple(c);
    return v->id >= 0 ? -1 : integer(c, 0, INT32_MAX, &v->id);
}

static int voter_list(cur *c, lr_qstate_file *f)
{
    if (!eat(c, '['))
        return -1;
    if (eat(c, ']'))
        return 0;
    do {
        voter_ctx v = {-1};
        if (f->n_voters == LR_QUORUM_MAX_VOTERS || object(c, voter_member, &v) || v.id < 0)
            return -1;
        for (size_t i = 0; i < f->n_voters; i++)
            if (f->voters[i] == v.id)
                return -1;
        f->voters[f->n_voters++] = (int32_t)v.id;
    } while (eat(c, ','));
    return eat(c, ']') ? 0 : -1;
}

enum { K_LEADER, K_EPOCH, K_VOTED, K_APPLIED, K_VOTERS, K_ABSTAINING, K_FLOOR, K_VERSION, K_N };

static const char *const key_names[K_N] = {"leaderId",      "leaderEpoch", "votedId",
                                           "appliedOffset", "currentVoters", "abstaining",
                                           "floorEpoch",    "data_version"};

typedef struct state_ctx {
    lr_qstate_file f;
    unsigned seen;
} state_ctx;

static int state_member(cur *c, const char *k, size_t n, void *x)
{
    state_ctx *s = x;
    int id = 0;
    while (id < K_N && !key_is(k, n, key_names[id]))
        id++;
    if (id == K_N)
        return skip_simple(c);
    if (s->seen & (1u << id))
        return -1; /* a key twice */
    s->seen |= 1u << id;
    int64_t v = 0;
    int bad = 0;
    switch (id) {
    case K_LEADER:
        bad = integer(c, -1, INT32_MAX, &v);
        s->f.state.leader_id = (int32_t)v;
        break;
    case K_EPOCH:
        bad = integer(c, 0, INT32_MAX, &v);
        s->f.state.epoch = (int32_t)v;
        break;
    case K_VOTED:
        bad = integer(c, -1, INT32_MAX, &v);
        s->f.state.voted_for = (int32_t)v;
        break;
    case K_APPLIED: /* not used; an integer as Kafka writes it */
        bad = integer(c, INT64_MIN, INT64_MAX, &v);
        break;
    case K_VOTERS:
        bad = voter_list(c, &s->f);
        break;
    case K_ABSTAINING:
        s->f.state.abstaining = word(c, "true");
        bad = !s->f.state.abstaining && !word(c, "false");
        break;
    case K_FLOOR:
        bad = integer(c, -1, INT32_MAX, &v);
        s->f.state.floor_epoch = (int32_t)v;
        break;
    default: /* K_VERSION */
        bad = integer(c, 0, 0, &v);
        break;
    }
    return bad ? -1 : 0;
}

int lr_qstate_parse(const char *text, size_t len, lr_qstate_file *out)
{
    if (!text || !out)
        return LOGREP_ERR__CORRUPT;
    state_ctx s;
    memset(&s, 0, sizeof s);
    cur c = {text, text + len};
    if (object(&c, state_member, &s))
        return LOGREP_ERR__CORRUPT;
    ws(&c);
    if (c.p != c.end || s.seen != (1u << K_N) - 1)
        return LOGREP_ERR__CORRUPT; /* trailing bytes, or a key missing */
    *out = s.f;
    return 0;
}

int lr_qstate_read(const logrep_storage *st, const char *dir, lr_qstate_file *out)
{
    char path[LR_PATH_MAX], buf[LR_QSTATE_MAX_BYTES];
    if (!st || !dir || !out)
        return LOGREP_ERR__INVALID_ARG;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, LR_QSTATE_FILE) >= sizeof path)
        return LOGREP_ERR__INVALID_ARG;
    logrep_file *f;
    int err = st->open(st->ctx, path, LOGREP_OPEN_READ, &f);
    if (err)
        return err;
    uint64_t size = 0;
    size_t n = 0;
    err = st->size(st->ctx, f, &size);
    if (!err && size > sizeof buf)
        err = LOGREP_ERR__CORRUPT;
    if (!err)
        err = st->read(st->ctx, f, 0, buf, (size_t)size, &n);
    st->close(st->ctx, f);
    if (!err && n != size)
        err = LOGREP_ERR__CORRUPT; /* shorter than its size: changed under us */
    return err ? err : lr_qstate_parse(buf, n, out);
}
