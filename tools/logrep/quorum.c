/* logrep quorum: the metadata quorum of a running cluster described as
 * kafka-metadata-quorum describe does, over the wire (wire.c): ApiVersions,
 * DescribeQuorum at the highest version both sides speak (0-2), and the
 * cluster id from Metadata where the listener serves it. Each bootstrap
 * address is asked in turn until one describes the quorum (only its
 * leader does). Parsing and printing are in quorum_fmt.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "groups_fmt.h"
#include <logrep.h>
#include "quorum_fmt.h"
#include "wire.h"

static int usage(void)
{
    fprintf(stderr, "usage: logrep quorum --bootstrap-server HOST:PORT[,...] [--timeout MS]\n"
                    "         --describe [--status | --replication [--human-readable]]\n");
    return 2;
}

/* The cluster id from Metadata v2 or later on c, when it serves it;
 * malloc'd and cleaned, or NULL. */
static char *cluster_id(wire_conn *c)
{
    int v = wire_version(c, LOGREP_API_METADATA, 2, 12);
    if (v < 0)
        return NULL;
    logrep_struct *rq = wire_begin(c, LOGREP_API_METADATA, v);
    if (!rq || lr_f_set_count(rq, LR_FN_Topics, 0) != LOGREP_OK)
        return NULL;
    lr_f_set_int(rq, LR_FN_AllowAutoTopicCreation, 0);
    logrep_struct *rs = wire_call(c);
    if (!rs)
        return NULL;
    const char *p = NULL;
    int32_t len = 0;
    if (lr_f_str(rs, LR_FN_ClusterId, &p, &len) != 0 || !p || len < 0)
        return NULL;
    return grp_strdup_clean(p, len);
}

/* Asks one address. 0 with *d filled (and *cid when known), or the exit
 * status with the reason in why. */
static int ask(const char *addr, int timeout_ms, qrm_desc *d, char **cid, char *why, size_t cap)
{
    char host[256];
    int port;
    if (wire_parse_addr(addr, host, sizeof host, &port)) {
        snprintf(why, cap, "bad address \"%s\" (HOST:PORT)", addr);
        return 2;
    }
    wire_conn c;
    int rc = 2;
    if (wire_open(&c, host, port, timeout_ms) != 0) {
        snprintf(why, cap, "%s", c.err);
        goto out;
    }
    int v = wire_version(&c, LOGREP_API_DESCRIBE_QUORUM, 0, 2);
    if (v < 0) {
        snprintf(why, cap,
                 "%s does not serve DescribeQuorum (API %d): it is not a voter of a metadata "
                 "quorum, or not its controller listener",
                 c.addr, LOGREP_API_DESCRIBE_QUORUM);
        goto out;
    }
    logrep_struct *rq = wire_begin(&c, LOGREP_API_DESCRIBE_QUORUM, v);
    logrep_struct *t = NULL;
    if (rq && lr_f_set_count(rq, LR_FN_Topics, 1) == LOGREP_OK) {
        t = lr_f_elem(rq, LR_FN_Topics, 0);
        if (lr_f_set_str(t, LR_FN_TopicName, QRM_TOPIC, (int32_t)strlen(QRM_TOPIC)) != LOGREP_OK ||
            lr_f_set_count(t, LR_FN_Partitions, 1) != LOGREP_OK)
            t = NULL;
    }
    if (!t) {
        snprintf(why, cap, "DescribeQuorum v%d: cannot build the request", v);
        goto out;
    }
    lr_f_set_int(lr_f_elem(t, LR_FN_Partitions, 0), LR_FN_PartitionIndex, 0);
    logrep_struct *rs = wire_call(&c);
    if (!rs) {
        snprintf(why, cap, "DescribeQuorum: %s", c.err);
        goto out;
    }
    char err[400];
    int pr = qrm_parse(rs, d, err, sizeof err);
    if (pr == QRM_NOMEM) {
        snprintf(why, cap, "out of memory");
        goto out;
    }
    if (pr != QRM_OK) {
        snprintf(why, cap, "%s: DescribeQuorum v%d: %s", c.addr, v, err);
        rc = pr == QRM_ERROR ? 1 : 2;
        goto out;
    }
    *cid = cluster_id(&c);
    rc = 0;
out:
    wire_close(&c);
    return rc;
}

int cmd_quorum(int argc, char **argv)
{
    const char *bootstrap = NULL;
    int describe = 0, status = 0, replication = 0, human = 0, timeout_ms = 5000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bootstrap-server") == 0 && val) {
            bootstrap = val;
            i++;
        } else if (strcmp(a, "--timeout") == 0 && val) {
            char *end;
            long t = strtol(val, &end, 10);
            if (*end || t <= 0 || t > 3600000)
                return usage();
            timeout_ms = (int)t;
            i++;
        } else if (strcmp(a, "--describe") == 0) {
            describe = 1;
        } else if (strcmp(a, "--status") == 0) {
            status = 1;
        } else if (strcmp(a, "--replication") == 0) {
            replication = 1;
        } else if (strcmp(a, "--human-readable") == 0) {
            human = 1;
        } else {
            return usage();
        }
    }
    if (!bootstrap || !describe)
        return usage();
    if (status && replication) {
        fprintf(stderr, "Only one of --status or --replication should be specified with --describe\n");
        return 2;
    }
    if (human && !replication) {
        fprintf(stderr, "The option --human-readable is only supported along with --replication\n");
        return 2;
    }
    char *list = strdup(bootstrap), *save = NULL;
    if (!list) {
        fprintf(stderr, "logrep quorum: out of memory\n");
        return 2;
    }
    /* Every address's reason, said only when none answered. */
    char whys[4096] = "";
    size_t used = 0;
    int rc = 2;
    for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        qrm_desc d;
        char *cid = NULL, why[1100];
        memset(&d, 0, sizeof d);
        int r = ask(a, timeout_ms, &d, &cid, why, sizeof why);
        if (r == 0) {
            int out = 0;
            if (replication) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                int64_t now = human ? (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 : -1;
                if (qrm_print_replication(stdout, &d, now, why, sizeof why)) {
                    fprintf(stderr, "%s\n", why);
                    out = 1;
                }
            } else {
                qrm_print_status(stdout, cid, &d);
            }
            free(cid);
            qrm_free(&d);
            free(list);
            return fflush(stdout) == 0 ? out : 2;
        }
        qrm_free(&d);
        /* A voter that names another leader is the most telling answer. */
        if (r == 1 || rc != 1)
            rc = r;
        int n = snprintf(whys + used, sizeof whys - used, "Error: %s\n", why);
        if (n > 0 && used + (size_t)n < sizeof whys)
            used += (size_t)n;
    }
    free(list);
    fputs(used ? whys : "Error: no address given\n", stderr);
    return rc;
}
