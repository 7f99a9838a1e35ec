/* logrep groups: consumer groups of a running cluster, listed and
 * described as kafka-consumer-groups does, over the wire (wire.c).
 * This file holds the argument parsing, the command, and the session the
 * others share: the bootstrap connection, Metadata for the brokers (and
 * the partitions of given topics), and a connection per broker. --list
 * is in groups_list.c, --describe in groups_describe.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "groups.h"
#include <logrep.h>
#include "wire.h"

int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A cleaned copy kept until ctx_free; NULL out of memory. */
char *keep(ctx *g, const char *p, int32_t len)
{
    if (g->nstrs == g->capstrs) {
        size_t n = g->capstrs ? g->capstrs * 2 : 64;
        char **s = realloc(g->strs, n * sizeof *s);
        if (!s)
            return NULL;
        g->strs = s;
        g->capstrs = n;
    }
    char *s = grp_strdup_clean(p, len);
    if (s)
        g->strs[g->nstrs++] = s;
    return s;
}

char *keep_field(ctx *g, const logrep_struct *s, lr_fname f)
{
    int32_t len;
    const char *p = wire_str(s, f, &len);
    return keep(g, p, len);
}

/* A host name from the wire into buf, cleaned as grp_strdup_clean does. */
void copy_host(char *buf, size_t cap, const logrep_struct *s, lr_fname f)
{
    int32_t len;
    const char *p = wire_str(s, f, &len);
    size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
    buf[n] = 0;
}

/* Says so; returns the exit status. */
int oom(void)
{
    fprintf(stderr, "logrep groups: out of memory\n");
    return 2;
}

static void ctx_free(ctx *g)
{
    if (g->boot_opened)
        wire_close(&g->boot);
    for (size_t i = 0; i < g->nbrokers; i++)
        if (g->brokers[i].opened)
            wire_close(&g->brokers[i].c);
    free(g->brokers);
    free(g->parts);
    for (size_t i = 0; i < g->nstrs; i++)
        free(g->strs[i]);
    free(g->strs);
}

/* The first bootstrap address that connects; 0, or 2 after saying why. */
static int ctx_bootstrap(ctx *g)
{
    char *list = strdup(g->bootstrap), *save = NULL;
    if (!list)
        return oom();
    char why[600] = "no address given";
    for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        char host[256];
        int port;
        if (wire_parse_addr(a, host, sizeof host, &port)) {
            snprintf(why, sizeof why, "bad address \"%s\" (HOST:PORT)", a);
            continue;
        }
        if (g->boot_opened)
            wire_close(&g->boot);
        g->boot_opened = 1;
        if (wire_open(&g->boot, host, port, g->timeout_ms) == 0) {
            free(list);
            return 0;
        }
        snprintf(why, sizeof why, "%s", g->boot.err);
    }
    free(list);
    fprintf(stderr, "Error: %s\n", why);
    return 2;
}

/* The bootstrap connection, reconnected when a failed call closed it. */
wire_conn *boot_conn(ctx *g)
{
    if (g->boot.fd < 0 && ctx_bootstrap(g))
        return NULL;
    return &g->boot;
}

broker *broker_by_id(ctx *g, int32_t id)
{
    for (size_t i = 0; i < g->nbrokers; i++)
        if (g->brokers[i].id == id)
            return &g->brokers[i];
    return NULL;
}

static int part_cmp(const void *a, const void *b)
{
    const part *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

part *part_find(ctx *g, const char *topic, int32_t partition)
{
    part key = {(char *)topic, partition, 0, 0};
    return g->nparts ? bsearch(&key, g->parts, g->nparts, sizeof key, part_cmp) : NULL;
}

/* Metadata from the bootstrap broker: every broker, and the partitions of
 * the given topics (none when ntopics is 0; from v4 on, never created). */
int ctx_metadata(ctx *g, char **topics, size_t ntopics)
{
    wire_conn *c = boot_conn(g);
    if (!c)
        return 2;
    int v = wire_version(c, LOGREP_API_METADATA, 1, 12);
    if (v < 0) {
        fprintf(stderr, "Error: %s does not support Metadata v1 or later\n", c->addr);
        return 2;
    }
    logrep_struct *rq = wire_begin(c, LOGREP_API_METADATA, v);
    if (!rq || lr_f_set_count(rq, LR_FN_Topics, (int32_t)ntopics) != LOGREP_OK) {
        fprintf(stderr, "Error: Metadata: %s\n", rq ? "too many topics" : c->err);
        return 2;
    }
    for (size_t i = 0; i < ntopics; i++) {
        logrep_struct *t = lr_f_elem(rq, LR_FN_Topics, (int32_t)i);
        logrep_struct_set_bytes(t, lr_fid(t, LR_FN_Name), topics[i], (int32_t)strlen(topics[i]));
    }
    lr_f_set_int(rq, LR_FN_AllowAutoTopicCreation, 0);
    logrep_struct *rs = wire_call(c);
    if (!rs) {
        fprintf(stderr, "Error: Metadata: %s\n", c->err);
        return 2;
    }
    int32_t nb = lr_f_count(rs, LR_FN_Brokers);
    for (int32_t i = 0; i < nb; i++) {
        logrep_struct *b = lr_f_elem(rs, LR_FN_Brokers, i);
        int32_t id = (int32_t)lr_f_int(b, LR_FN_NodeId);
        if (broker_by_id(g, id))
            continue;
        broker *nbk = realloc(g->brokers, (g->nbrokers + 1) * sizeof *nbk);
        if (!nbk)
            return oom();
        g->brokers = nbk;
        broker *k = &g->brokers[g->nbrokers++];
        memset(k, 0, sizeof *k);
        k->id = id;
        copy_host(k->host, sizeof k->host, b, LR_FN_Host);
        k->port = (int)lr_f_int(b, LR_FN_Port);
    }
    g->nparts = 0;
    int32_t nt = lr_f_count(rs, LR_FN_Topics);
    for (int32_t i = 0; i < nt; i++) {
        logrep_struct *t = lr_f_elem(rs, LR_FN_Topics, i);
        if (lr_f_int(t, LR_FN_ErrorCode))
            continue;
        char *name = keep_field(g, t, LR_FN_Name);
        int32_t np = lr_f_count(t, LR_FN_Partitions);
        if (!name)
            return oom();
        for (int32_t j = 0; j < np; j++) {
            logrep_struct *p = lr_f_elem(t, LR_FN_Partitions, j);
            part *n = realloc(g->parts, (g->nparts + 1) * sizeof *n);
            if (!n)
                return oom();
            g->parts = n;
            g->parts[g->nparts++] = (part){name, (int32_t)lr_f_int(p, LR_FN_PartitionIndex),
                                           (int32_t)lr_f_int(p, LR_FN_LeaderId), -1};
        }
    }
    if (g->nparts > 1)
        qsort(g->parts, g->nparts, sizeof *g->parts, part_cmp);
    return 0;
}

/* The connection to a broker, opened on first use; NULL after saying why. */
wire_conn *broker_conn(ctx *g, broker *k)
{
    if (!k->opened) {
        k->opened = 1;
        k->ok = wire_open(&k->c, k->host, k->port, g->timeout_ms) == 0;
    } else if (k->ok && k->c.fd < 0) { /* broken by a failed call: reconnect once */
        wire_close(&k->c);
        k->ok = wire_open(&k->c, k->host, k->port, g->timeout_ms) == 0;
    }
    if (!k->ok) {
        fprintf(stderr, "Error: broker %" PRId32 ": %s\n", k->id, k->c.err);
        return NULL;
    }
    return &k->c;
}

/* ------------------------------------------------------------ command */

static int usage(void)
{
    fprintf(stderr,
            "usage: logrep groups --bootstrap-server HOST:PORT[,...] [--timeout MS]\n"
            "         --list [--state [STATE,...]] [--protocol-type]\n"
            "       | --describe (--group G [--group G]... | --all-groups)\n");
    return 2;
}

int cmd_groups(int argc, char **argv)
{
    ctx g = {0};
    g.timeout_ms = 5000;
    int list = 0, describe = 0, all = 0, with_state = 0, with_type = 0;
    const char *filter = NULL;
    const char **groups = calloc((size_t)argc, sizeof *groups);
    size_t ngroups = 0;
    if (!groups)
        return oom();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bootstrap-server") == 0 && val) {
            g.bootstrap = val;
            i++;
        } else if (strcmp(a, "--group") == 0 && val) {
            groups[ngroups++] = val;
            i++;
        } else if (strcmp(a, "--timeout") == 0 && val) {
            char *end;
            long t = strtol(val, &end, 10);
            if (*end || t <= 0 || t > 3600000)
                return free(groups), usage();
            g.timeout_ms = (int)t;
            i++;
        } else if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "--describe") == 0) {
            describe = 1;
        } else if (strcmp(a, "--all-groups") == 0) {
            all = 1;
        } else if (strcmp(a, "--protocol-type") == 0) {
            with_type = 1;
        } else if (strcmp(a, "--state") == 0) {
            with_state = 1;
            if (val && val[0] != '-') { /* optional list of states */
                filter = val;
                i++;
            }
        } else {
            return free(groups), usage();
        }
    }
    if (!g.bootstrap || list == describe || (list && (ngroups || all)) ||
        (describe && (!ngroups == !all || with_state || with_type)))
        return free(groups), usage();
    int rc = ctx_bootstrap(&g);
    if (!rc)
        rc = ctx_metadata(&g, NULL, 0);
    if (!rc && list) {
        rc = do_list(&g, with_type, with_state, filter);
    } else if (!rc) {
        listing l = {NULL, 0};
        if (all)
            rc = list_all(&g, &l);
        for (size_t i = 0; i < (all ? l.n : ngroups); i++) {
            const char *id = all ? l.g[i].group : groups[i];
            /* --all-groups: consumer groups only, as Kafka's admin lists them */
            if (all && l.g[i].protocol_type[0] && strcmp(l.g[i].protocol_type, "consumer") != 0)
                continue;
            int r = describe_one(&g, id);
            if (r > rc)
                rc = r;
        }
        free(l.g);
    }
    free(groups);
    ctx_free(&g);
    return rc;
}
