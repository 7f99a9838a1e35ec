/* Data-driven simulator scenarios: each file in test/sim/ is a fault
 * schedule with the outcome that must follow written beside it, so a
 * reader sees both in one place (the format is in docs/simulator.md,
 * "Scenarios as data"). A command is one line; what it prints follows a
 * "----" line, up to a blank line. The checker verifies every invariant
 * after every step of every command, as in the other scenario tests.
 *
 * LOGREP_SIM_REWRITE=1 writes the outputs actually printed back into the
 * files (review the diff before committing it). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep/sim.h>
#include "sim_testutil.h"

#define MAX_ARGS 12
#define MAX_SYMS 16
#define OUT_CAP 4096

typedef struct arg {
    char key[32];
    char val[64];
} arg;

typedef struct script {
    const char *path;
    int line;
    logrep_sim *s;
    struct {
        char name[16];
        int32_t id;
    } sym[MAX_SYMS];
    int n_sym;
    int32_t actors[16];
    char out[OUT_CAP];
    size_t out_len;
} script;

static void out(script *sc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sc->out + sc->out_len, OUT_CAP - sc->out_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        sc->out_len += (size_t)n < OUT_CAP - sc->out_len ? (size_t)n : OUT_CAP - 1 - sc->out_len;
}

#define fail_at(sc, ...)                                                                       \
    cr_assert_fail("%s:%d: %s", (sc)->path, (sc)->line, (snprintf(errbuf, sizeof errbuf, __VA_ARGS__), errbuf))
static char errbuf[512];

static void bind(script *sc, const char *name, int32_t id)
{
    for (int i = 0; i < sc->n_sym; i++)
        if (!strcmp(sc->sym[i].name, name)) {
            sc->sym[i].id = id;
            return;
        }
    if (sc->n_sym == MAX_SYMS)
        fail_at(sc, "too many names");
    snprintf(sc->sym[sc->n_sym].name, sizeof sc->sym[0].name, "%s", name);
    sc->sym[sc->n_sym++].id = id;
}

/* A node as the script names it: the first name bound to it, else its id. */
static const char *name_of(script *sc, int32_t id, char *buf, size_t cap)
{
    for (int i = 0; i < sc->n_sym; i++)
        if (sc->sym[i].id == id)
            return sc->sym[i].name;
    snprintf(buf, cap, "%d", (int)id);
    return buf;
}

static void out_ids(script *sc, const int32_t *ids, int32_t n)
{
    char b[16];
    out(sc, "{");
    for (int32_t i = 0; i < n; i++)
        out(sc, "%s%s", i ? "," : "", name_of(sc, ids[i], b, sizeof b));
    out(sc, "}");
}

static const char *get(const arg *a, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(a[i].key, key))
            return a[i].val;
    return NULL;
}

static int64_t num(script *sc, const arg *a, int n, const char *key, int64_t dflt)
{
    const char *v = get(a, n, key);
    if (!v)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end)
        fail_at(sc, "%s=%s is not a number", key, v);
    return x;
}

static int32_t node(script *sc, const arg *a, int n, const char *key)
{
    const char *v = get(a, n, key);
    if (!v)
        fail_at(sc, "missing %s=", key);
    for (int i = 0; i < sc->n_sym; i++)
        if (!strcmp(sc->sym[i].name, v))
            return sc->sym[i].id;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end)
        fail_at(sc, "unknown node %s", v);
    return (int32_t)x;
}

/* Runs virtual time; a violation becomes the command's output. */
static int run(script *sc, int64_t ms)
{
    if (logrep_sim_run(sc->s, ms) == LOGREP_OK)
        return 0;
    out(sc, "violation: %s\n", logrep_sim_failure(sc->s));
    return -1;
}

static void show_controller(script *sc, int32_t part)
{
    logrep_sim_part v;
    if (logrep_sim_controller_view(sc->s, part, &v) != LOGREP_OK) {
        out(sc, "no partition %d\n", (int)part);
        return;
    }
    char b[16];
    out(sc, "leader %s epoch %d isr ", v.leader < 0 ? "none" : name_of(sc, v.leader, b, sizeof b),
        (int)v.leader_epoch);
    out_ids(sc, v.isr, v.n_isr);
    out(sc, " elr ");
    out_ids(sc, v.elr, v.n_elr);
    out(sc, "\n");
}

static void cmd_new(script *sc, const arg *a, int n)
{
    logrep_sim_conf k;
    memset(&k, 0, sizeof k);
    k.seed = (uint64_t)num(sc, a, n, "seed", 1);
    k.brokers = (int32_t)num(sc, a, n, "brokers", 0);
    k.partitions = (int32_t)num(sc, a, n, "partitions", 0);
    k.replication_factor = (int32_t)num(sc, a, n, "rf", 0);
    k.min_isr = (int32_t)num(sc, a, n, "min_isr", 0);
    k.unclean = (int32_t)num(sc, a, n, "unclean", 0);
    k.elr_disabled = num(sc, a, n, "elr", 1) == 0;
    k.lag_max_ms = num(sc, a, n, "lag", 0);
    k.session_timeout_ms = num(sc, a, n, "session", 0);
    logrep_err e = logrep_sim_new(&k, &sc->s);
    if (e) {
        if (sc->s)
            sim_dump(sc->s, stderr, 100);
        fail_at(sc, "new: %s", logrep_err_name(e));
    }
    logrep_sim_part v;
    cr_assert_eq(logrep_sim_controller_view(sc->s, 0, &v), LOGREP_OK);
    bind(sc, "L", v.leader);
    int f = 0;
    for (int32_t i = 0; i < v.n_isr; i++)
        if (v.isr[i] != v.leader) {
            char nm[8];
            snprintf(nm, sizeof nm, "F%d", ++f);
            bind(sc, nm, v.isr[i]);
        }
    show_controller(sc, 0);
}

static void cmd_produce(script *sc, const arg *a, int n)
{
    int32_t to = node(sc, a, n, "node");
    int16_t acks = (int16_t)num(sc, a, n, "acks", -1);
    int32_t part = (int32_t)num(sc, a, n, "partition", 0);
    int64_t count = num(sc, a, n, "count", 1), max = num(sc, a, n, "max", 3000);
    int64_t ok = 0, first = -1;
    for (int64_t i = 0; i < count; i++) {
        int64_t base = -1;
        logrep_err e = logrep_sim_produce(sc->s, to, part, acks, 1, max, &base);
        if (e == LOGREP_ERR__CORRUPT) {
            out(sc, "violation: %s\n", logrep_sim_failure(sc->s));
            return;
        }
        if (e != LOGREP_OK) {
            if (ok)
                out(sc, "%lld ok from offset %lld, then ", (long long)ok, (long long)first);
            if (e == LOGREP_ERR__TIMED_OUT)
                out(sc, "no answer within %lld ms\n", (long long)max);
            else
                out(sc, "%s\n", logrep_err_name(e));
            return;
        }
        if (!ok++)
            first = base;
    }
    out(sc, "%lld ok from offset %lld\n", (long long)ok, (long long)first);
}

static void cmd_fetch(script *sc, const arg *a, int n)
{
    int32_t records = 0;
    int64_t hw = -1;
    logrep_err e = logrep_sim_fetch(sc->s, node(sc, a, n, "node"), (int32_t)num(sc, a, n, "partition", 0),
                                    num(sc, a, n, "offset", 0), NULL, num(sc, a, n, "max", 3000),
                                    &records, &hw);
    if (e == LOGREP_ERR__CORRUPT)
        out(sc, "violation: %s\n", logrep_sim_failure(sc->s));
    else if (e)
        out(sc, "%s\n", logrep_err_name(e));
    else
        out(sc, "%d records, hw %lld\n", (int)records, (long long)hw);
}

static void cmd_replica(script *sc, const arg *a, int n)
{
    static const char *roles[] = {"none", "leader", "follower"};
    logrep_sim_replica r;
    int32_t id = node(sc, a, n, "node");
    if (logrep_sim_replica_view(sc->s, id, (int32_t)num(sc, a, n, "partition", 0), &r) != LOGREP_OK) {
        out(sc, "down\n");
        return;
    }
    out(sc, "%s epoch %d log [%lld, %lld) hw %lld\n", roles[r.role >= 0 && r.role <= 2 ? r.role : 0],
        (int)r.leader_epoch, (long long)r.log_start_offset, (long long)r.log_end_offset,
        (long long)r.high_watermark);
}

/* Runs until the controller names a leader (not `not`) that leads in the
 * controller's epoch; binds it to `as` if given. */
static void cmd_await_leader(script *sc, const arg *a, int n)
{
    int32_t not = get(a, n, "not") ? node(sc, a, n, "not") : -1;
    int64_t max = num(sc, a, n, "max", 8000);
    for (int64_t t = 0; t <= max; t += 50) {
        logrep_sim_part v;
        logrep_sim_replica r;
        cr_assert_eq(logrep_sim_controller_view(sc->s, 0, &v), LOGREP_OK);
        if (v.leader >= 0 && v.leader != not &&
            logrep_sim_replica_view(sc->s, v.leader, 0, &r) == LOGREP_OK && r.role == 1 &&
            r.leader_epoch == v.leader_epoch) {
            if (get(a, n, "as"))
                bind(sc, get(a, n, "as"), v.leader);
            show_controller(sc, 0);
            return;
        }
        if (run(sc, 50))
            return;
    }
    out(sc, "no leader within %lld ms\n", (long long)max);
}

static void cmd_await_isr(script *sc, const arg *a, int n)
{
    int32_t want = (int32_t)num(sc, a, n, "size", 3);
    int64_t max = num(sc, a, n, "max", 8000);
    for (int64_t t = 0; t <= max; t += 50) {
        logrep_sim_part v;
        cr_assert_eq(logrep_sim_controller_view(sc->s, 0, &v), LOGREP_OK);
        if (v.n_isr == want) {
            show_controller(sc, 0);
            return;
        }
        if (run(sc, 50))
            return;
    }
    out(sc, "ISR not of size %d within %lld ms: ", (int)want, (long long)max);
    show_controller(sc, 0);
}

static int crash_mode(script *sc, const char *m)
{
    static const char *names[] = {"process", "power", "power-drop", "disk"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(m, names[i]))
            return i;
    fail_at(sc, "unknown crash mode %s", m);
    return 0;
}

static void cmd_stats(script *sc)
{
    logrep_sim_stats st;
    logrep_sim_stats_get(sc->s, &st);
    out(sc, "true hw %lld, sanctioned losses %lld, unclean elections %lld\n",
        (long long)logrep_sim_true_hw(sc->s, 0), (long long)st.sanctioned,
        (long long)st.unclean_elections);
}

static void exec(script *sc, const char *cmd, const arg *a, int n)
{
    if (!strcmp(cmd, "new")) {
        cmd_new(sc, a, n);
        return;
    }
    if (!sc->s)
        fail_at(sc, "%s before new", cmd);
    if (!strcmp(cmd, "run")) {
        run(sc, num(sc, a, n, "ms", 0));
    } else if (!strcmp(cmd, "produce")) {
        cmd_produce(sc, a, n);
    } else if (!strcmp(cmd, "fetch")) {
        cmd_fetch(sc, a, n);
    } else if (!strcmp(cmd, "controller")) {
        show_controller(sc, (int32_t)num(sc, a, n, "partition", 0));
    } else if (!strcmp(cmd, "replica")) {
        cmd_replica(sc, a, n);
    } else if (!strcmp(cmd, "await-leader")) {
        cmd_await_leader(sc, a, n);
    } else if (!strcmp(cmd, "await-isr")) {
        cmd_await_isr(sc, a, n);
    } else if (!strcmp(cmd, "kill")) {
        const char *m = get(a, n, "mode");
        logrep_err e = logrep_sim_kill(sc->s, node(sc, a, n, "node"), crash_mode(sc, m ? m : "process"));
        if (e)
            out(sc, "%s\n", logrep_err_name(e));
    } else if (!strcmp(cmd, "restart")) {
        logrep_err e = logrep_sim_restart(sc->s, node(sc, a, n, "node"));
        if (e)
            out(sc, "%s\n", logrep_err_name(e));
    } else if (!strcmp(cmd, "shutdown")) {
        logrep_err e = logrep_sim_shutdown(sc->s, node(sc, a, n, "node"), num(sc, a, n, "max", 5000));
        out(sc, "%s\n", e ? logrep_err_name(e) : "clean");
    } else if (!strcmp(cmd, "isolate") || !strcmp(cmd, "rejoin")) {
        logrep_sim_isolate(sc->s, node(sc, a, n, "node"), cmd[0] == 'i');
    } else if (!strcmp(cmd, "block") || !strcmp(cmd, "unblock")) {
        logrep_sim_block(sc->s, node(sc, a, n, "from"), node(sc, a, n, "to"), cmd[0] == 'b');
    } else if (!strcmp(cmd, "partition") || !strcmp(cmd, "unpartition")) {
        logrep_sim_partition(sc->s, node(sc, a, n, "a"), node(sc, a, n, "b"), cmd[0] == 'p');
    } else if (!strcmp(cmd, "heal-network")) {
        logrep_sim_heal_network(sc->s);
    } else if (!strcmp(cmd, "disk-fault")) {
        const char *err = get(a, n, "err");
        logrep_err e = err && !strcmp(err, "ENOSPC") ? LOGREP_ERR__NOSPACE : LOGREP_ERR__IO;
        logrep_sim_disk_fault(sc->s, node(sc, a, n, "node"), e, (uint64_t)num(sc, a, n, "after", 1),
                              (int)num(sc, a, n, "persistent", 0));
    } else if (!strcmp(cmd, "clock-jump")) {
        logrep_sim_clock_jump(sc->s, node(sc, a, n, "node"), num(sc, a, n, "ms", 0));
    } else if (!strcmp(cmd, "pause")) {
        logrep_sim_pause(sc->s, node(sc, a, n, "node"), num(sc, a, n, "ms", 0));
    } else if (!strcmp(cmd, "producer")) {
        int32_t id = logrep_sim_producer(sc->s, (int32_t)num(sc, a, n, "partition", 0),
                                         (int16_t)num(sc, a, n, "acks", -1),
                                         (int)num(sc, a, n, "idempotent", 1),
                                         num(sc, a, n, "every", 20), (int32_t)num(sc, a, n, "records", 3));
        out(sc, "actor %d\n", (int)id);
    } else if (!strcmp(cmd, "consumer")) {
        int32_t id = logrep_sim_consumer(sc->s, (int32_t)num(sc, a, n, "partition", 0),
                                         num(sc, a, n, "every", 20));
        out(sc, "actor %d\n", (int)id);
    } else if (!strcmp(cmd, "stop")) {
        logrep_sim_actor_stop(sc->s, (int32_t)num(sc, a, n, "actor", -1));
    } else if (!strcmp(cmd, "stats")) {
        cmd_stats(sc);
    } else if (!strcmp(cmd, "heal")) {
        if (logrep_sim_heal(sc->s, num(sc, a, n, "max", 20000)) == LOGREP_OK)
            out(sc, "converged\n");
        else
            out(sc, "not healed: %s\n", logrep_sim_failure(sc->s));
    } else {
        fail_at(sc, "unknown command %s", cmd);
    }
}

static int parse(script *sc, char *line, char **cmd, arg *a)
{
    int n = 0;
    *cmd = strtok(line, " \t");
    for (char *w; (w = strtok(NULL, " \t"));) {
        char *eq = strchr(w, '=');
        if (!eq || n == MAX_ARGS)
            fail_at(sc, "bad argument %s", w);
        *eq = 0;
        snprintf(a[n].key, sizeof a[n].key, "%s", w);
        snprintf(a[n].val, sizeof a[n].val, "%s", eq + 1);
        n++;
    }
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    return buf;
}

static void run_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/test/sim/%s.txt", LOGREP_SRCDIR, name);
    char *text = slurp(path);
    int rewrite = getenv("LOGREP_SIM_REWRITE") != NULL;
    size_t cap = strlen(text) * 2 + OUT_CAP * 8, wlen = 0;
    char *rewritten = rewrite ? malloc(cap) : NULL;
    script sc;
    memset(&sc, 0, sizeof sc);
    sc.path = path;
    char *p = text;
    int mismatch = 0;
    while (*p) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        sc.line++;
        p += len + (nl ? 1 : 0);
        if (rewrite)
            wlen += (size_t)snprintf(rewritten + wlen, cap - wlen, "%s\n", line);
        if (!line[0] || line[0] == '#')
            continue;
        /* Expected output: after "----", up to a blank line. */
        const char *want = "";
        size_t want_len = 0;
        int has_block = !strncmp(p, "----\n", 5);
        if (has_block) {
            p += 5;
            sc.line++;
            want = p;
            while (*p && *p != '\n') {
                char *e = strchr(p, '\n');
                p = e ? e + 1 : p + strlen(p);
                sc.line++;
            }
            want_len = (size_t)(p - want);
        }
        char *cmd, shown[256];
        arg a[MAX_ARGS];
        memcpy(shown, line, sizeof shown);
        int n = parse(&sc, line, &cmd, a);
        sc.out_len = 0;
        sc.out[0] = 0;
        exec(&sc, cmd, a, n);
        if (rewrite) {
            if (sc.out_len)
                wlen += (size_t)snprintf(rewritten + wlen, cap - wlen, "----\n%s", sc.out);
        } else if (sc.out_len != want_len || memcmp(sc.out, want, want_len)) {
            fprintf(stderr, "%s:%d: %s\n--- want\n%.*s--- got\n%s", path, sc.line, shown, (int)want_len,
                    want, sc.out);
            mismatch = 1;
            break;
        }
        if (sc.s && logrep_sim_failure(sc.s)) {
            if (rewrite)
                break;
            fprintf(stderr, "%s:%d: violation: %s\n", path, sc.line, logrep_sim_failure(sc.s));
            mismatch = 1;
            break;
        }
    }
    if (mismatch && sc.s)
        sim_dump(sc.s, stderr, 120);
    if (rewrite && !mismatch) {
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        fwrite(rewritten, 1, wlen, f);
        fclose(f);
    }
    free(rewritten);
    free(text);
    if (sc.s)
        logrep_sim_free(sc.s);
    cr_assert_eq(mismatch, 0, "%s: output differs (see above)", name);
}

/* One test per file; the last test proves none is left out. */
static const char *const scenarios[] = {
#define SCENARIO(x) #x,
#include "sim/scenarios.h"
#undef SCENARIO
};

#define SCENARIO(x)                                                                            \
    Test(sim_data, x, .timeout = 120) { run_file(#x); }
#include "sim/scenarios.h"
#undef SCENARIO

Test(sim_data, every_file_is_listed)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/test/sim", LOGREP_SRCDIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt"))
            continue;
        files++;
        int found = 0;
        for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
            found |= strlen(scenarios[i]) == l - 4 && !strncmp(scenarios[i], e->d_name, l - 4);
        cr_expect(found, "test/sim/%s is not in test/sim/scenarios.h", e->d_name);
    }
    closedir(d);
    cr_assert_eq((size_t)files, sizeof scenarios / sizeof scenarios[0]);
}
