/* `logrep quorum`: a DescribeQuorum answer read and printed as
 * kafka-metadata-quorum describe prints it (quorum_fmt.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include "proto/fields.h"
#include "quorum_fmt.h"

void qrm_free(qrm_desc *d)
{
    free(d->voters);
    free(d->observers);
    d->voters = d->observers = NULL;
    d->n_voters = d->n_observers = 0;
}

static int read_replicas(const logrep_struct *p, lr_fname f, qrm_replica **out, size_t *n)
{
    int32_t k = lr_f_count(p, f);
    if (k <= 0)
        return QRM_OK;
    qrm_replica *r = calloc((size_t)k, sizeof *r);
    if (!r)
        return QRM_NOMEM;
    for (int32_t i = 0; i < k; i++) {
        const logrep_struct *e = lr_f_elem(p, f, i);
        r[i].id = (int32_t)lr_f_int(e, LR_FN_ReplicaId);
        r[i].log_end = lr_f_int(e, LR_FN_LogEndOffset);
        /* v0 has neither time: the codec's default, -1 */
        r[i].last_fetch_ms = lr_f_int(e, LR_FN_LastFetchTimestamp);
        r[i].caught_up_ms = lr_f_int(e, LR_FN_LastCaughtUpTimestamp);
    }
    *out = r;
    *n = (size_t)k;
    return QRM_OK;
}

/* The answer's ErrorMessage (v2), cleaned, into buf; "" when none. */
static void message_of(const logrep_struct *s, char *buf, size_t cap)
{
    const char *p = NULL;
    int32_t len = 0;
    buf[0] = 0;
    if (lr_fid(s, LR_FN_ErrorMessage) < 0 || lr_f_str(s, LR_FN_ErrorMessage, &p, &len) != 0 ||
        !p || len <= 0)
        return;
    size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
    buf[n] = 0;
}

static const qrm_replica *find(const qrm_replica *r, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].id == id)
            return &r[i];
    return NULL;
}

int qrm_parse(const logrep_struct *rs, qrm_desc *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->leader_id = -1;
    d->epoch = -1;
    d->high_watermark = -1;
    char msg[256];
    int64_t ec = lr_f_int(rs, LR_FN_ErrorCode);
    if (ec) {
        d->error = (int16_t)ec;
        message_of(rs, msg, sizeof msg);
        snprintf(err, errlen, "%s%s%s", logrep_err_name((int)ec), msg[0] ? ": " : "", msg);
        return QRM_ERROR;
    }
    const logrep_struct *t = NULL, *p = NULL;
    int32_t nt = lr_f_count(rs, LR_FN_Topics);
    for (int32_t i = 0; i < nt && !p; i++) {
        const logrep_struct *x = lr_f_elem(rs, LR_FN_Topics, i);
        const char *name = NULL;
        int32_t len = 0;
        if (lr_f_str(x, LR_FN_TopicName, &name, &len) != 0 || !name ||
            (size_t)len != strlen(QRM_TOPIC) || memcmp(name, QRM_TOPIC, (size_t)len) != 0)
            continue;
        t = x;
        for (int32_t j = 0; j < lr_f_count(t, LR_FN_Partitions) && !p; j++) {
            const logrep_struct *y = lr_f_elem(t, LR_FN_Partitions, j);
            if (lr_f_int(y, LR_FN_PartitionIndex) == 0)
                p = y;
        }
    }
    if (!p) {
        snprintf(err, errlen, "the answer does not describe %s partition 0", QRM_TOPIC);
        return QRM_BAD;
    }
    d->leader_id = (int32_t)lr_f_int(p, LR_FN_LeaderId);
    d->epoch = (int32_t)lr_f_int(p, LR_FN_LeaderEpoch);
    d->high_watermark = lr_f_int(p, LR_FN_HighWatermark);
    ec = lr_f_int(p, LR_FN_ErrorCode);
    if (ec) {
        d->error = (int16_t)ec;
        message_of(p, msg, sizeof msg);
        int n = snprintf(err, errlen, "%s", logrep_err_name((int)ec));
        if (ec == LOGREP_ERR_NOT_LEADER_OR_FOLLOWER && n >= 0 && (size_t)n < errlen) {
            if (d->leader_id >= 0)
                snprintf(err + n, errlen - (size_t)n,
                         ": this voter does not lead the metadata quorum; the leader is "
                         "node %" PRId32 " (epoch %" PRId32 ")",
                         d->leader_id, d->epoch);
            else
                snprintf(err + n, errlen - (size_t)n,
                         ": this voter does not lead the metadata quorum and knows no leader "
                         "(epoch %" PRId32 ")",
                         d->epoch);
        } else if (msg[0] && n >= 0 && (size_t)n < errlen) {
            snprintf(err + n, errlen - (size_t)n, ": %s", msg);
        }
        return QRM_ERROR;
    }
    int rc = read_replicas(p, LR_FN_CurrentVoters, &d->voters, &d->n_voters);
    if (!rc)
        rc = read_replicas(p, LR_FN_Observers, &d->observers, &d->n_observers);
    if (rc) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    if (!find(d->voters, d->n_voters, d->leader_id)) {
        snprintf(err, errlen, "the answer names leader %" PRId32 ", which is not among its %zu voters",
                 d->leader_id, d->n_voters);
        return QRM_BAD;
    }
    return QRM_OK;
}

static void print_ids(FILE *f, const qrm_replica *r, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId32, i ? "," : "", r[i].id);
    fputc(']', f);
}

void qrm_print_status(FILE *f, const char *cluster_id, const qrm_desc *d)
{
    const qrm_replica *leader = find(d->voters, d->n_voters, d->leader_id);
    if (!leader)
        return;
    /* The voter furthest behind: the first with the smallest log end. */
    const qrm_replica *lag = &d->voters[0];
    for (size_t i = 1; i < d->n_voters; i++)
        if (d->voters[i].log_end < lag->log_end)
            lag = &d->voters[i];
    int64_t lag_ms;
    if (lag == leader)
        lag_ms = 0;
    else if (leader->caught_up_ms >= 0 && lag->caught_up_ms >= 0)
        lag_ms = leader->caught_up_ms - lag->caught_up_ms;
    else
        lag_ms = -1;
    fprintf(f, "%-24s%s\n", "ClusterId:", cluster_id ? cluster_id : "-");
    fprintf(f, "%-24s%" PRId32 "\n", "LeaderId:", d->leader_id);
    fprintf(f, "%-24s%" PRId32 "\n", "LeaderEpoch:", d->epoch);
    fprintf(f, "%-24s%" PRId64 "\n", "HighWatermark:", d->high_watermark);
    fprintf(f, "%-24s%" PRId64 "\n", "MaxFollowerLag:", leader->log_end - lag->log_end);
    fprintf(f, "%-24s%" PRId64 "\n", "MaxFollowerLagTimeMs:", lag_ms);
    fprintf(f, "%-24s", "CurrentVoters:");
    print_ids(f, d->voters, d->n_voters);
    fprintf(f, "\n%-24s", "CurrentObservers:");
    print_ids(f, d->observers, d->n_observers);
    fputc('\n', f);
}

#define NCOL 6

typedef struct qrm_row {
    char cell[NCOL][32];
} qrm_row;

/* A time cell: -1 when unknown, the time, or "N ms ago". */
static int time_cell(char *cell, size_t cap, int64_t t, int64_t now, const char *what, char *err,
                     size_t errlen)
{
    if (t < 0)
        snprintf(cell, cap, "-1");
    else if (now < 0)
        snprintf(cell, cap, "%" PRId64, t);
    else if (t > 0 && t <= now)
        snprintf(cell, cap, "%" PRId64 " ms ago", now - t);
    else {
        snprintf(err, errlen,
                 "Error while computing relative time, possible drift in system clock.\n"
                 "Current timestamp is %" PRId64 ", %s timestamp is %" PRId64,
                 now, what, t);
        return -1;
    }
    return 0;
}

static int fill_row(qrm_row *row, const qrm_replica *r, const qrm_replica *leader,
                    const char *status, int64_t now, char *err, size_t errlen)
{
    snprintf(row->cell[0], sizeof row->cell[0], "%" PRId32, r->id);
    snprintf(row->cell[1], sizeof row->cell[1], "%" PRId64, r->log_end);
    snprintf(row->cell[2], sizeof row->cell[2], "%" PRId64, leader->log_end - r->log_end);
    snprintf(row->cell[5], sizeof row->cell[5], "%s", status);
    if (time_cell(row->cell[3], sizeof row->cell[3], r->last_fetch_ms, now, "last fetch", err,
                  errlen))
        return -1;
    return time_cell(row->cell[4], sizeof row->cell[4], r->caught_up_ms, now, "last caught up",
                     err, errlen);
}

static void print_row(FILE *f, const size_t *width, const qrm_row *row)
{
    for (int c = 0; c < NCOL; c++)
        fprintf(f, "%-*s\t", (int)width[c], row->cell[c]);
    fputc('\n', f);
}

int qrm_print_replication(FILE *f, const qrm_desc *d, int64_t human_now_ms, char *err,
                          size_t errlen)
{
    const qrm_replica *leader = find(d->voters, d->n_voters, d->leader_id);
    if (!leader) {
        snprintf(err, errlen, "no leader among the voters");
        return -1;
    }
    size_t n = 1 + d->n_voters + d->n_observers, k = 0;
    qrm_row *rows = calloc(n, sizeof *rows);
    if (!rows) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    static const char *const head[NCOL] = {"NodeId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                                            "LastCaughtUpTimestamp", "Status"};
    for (int c = 0; c < NCOL; c++)
        snprintf(rows[k].cell[c], sizeof rows[k].cell[c], "%s", head[c]);
    k++;
    int bad = fill_row(&rows[k++], leader, leader, "Leader", human_now_ms, err, errlen);
    for (size_t i = 0; !bad && i < d->n_voters; i++)
        if (d->voters[i].id != d->leader_id)
            bad = fill_row(&rows[k++], &d->voters[i], leader, "Follower", human_now_ms, err, errlen);
    for (size_t i = 0; !bad && i < d->n_observers; i++)
        bad = fill_row(&rows[k++], &d->observers[i], leader, "Observer", human_now_ms, err, errlen);
    if (bad) {
        free(rows);
        return -1;
    }
    size_t width[NCOL] = {0};
    for (size_t r = 0; r < k; r++)
        for (int c = 0; c < NCOL; c++)
            if (strlen(rows[r].cell[c]) > width[c])
                width[c] = strlen(rows[r].cell[c]);
    for (size_t r = 0; r < k; r++)
        print_row(f, width, &rows[r]);
    free(rows);
    return 0;
}
