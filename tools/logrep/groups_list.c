/* logrep groups --list: ListGroups on every broker, the groups merged,
 * filtered by --state and printed (groups_fmt.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "groups.h"
#include <logrep.h>

static int listed_cmp(const void *a, const void *b)
{
    return strcmp(((const grp_listed *)a)->group, ((const grp_listed *)b)->group);
}

/* ListGroups on every broker; the groups sorted by id, each once.
 * 0, or 2 when some broker did not answer (the rest are listed). */
int list_all(ctx *g, listing *out)
{
    int rc = 0;
    out->g = NULL;
    out->n = 0;
    for (size_t i = 0; i < g->nbrokers; i++) {
        broker *k = &g->brokers[i];
        int64_t deadline = mono_ms() + g->timeout_ms;
        for (;;) {
            wire_conn *c = broker_conn(g, k);
            if (!c) {
                rc = 2;
                break;
            }
            int v = wire_version(c, LOGREP_API_LIST_GROUPS, 0, 5);
            logrep_struct *rs = NULL;
            if (v < 0)
                snprintf(c->err, sizeof c->err, "%s does not support ListGroups", c->addr);
            else if (wire_begin(c, LOGREP_API_LIST_GROUPS, v))
                rs = wire_call(c);
            if (!rs) {
                fprintf(stderr, "Error: broker %" PRId32 ": %s\n", k->id, c->err);
                rc = 2;
                break;
            }
            int64_t ec = lr_f_int(rs, LR_FN_ErrorCode);
            if (ec == LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS && mono_ms() < deadline) {
                sleep_ms(RETRY_MS);
                continue;
            }
            if (ec) {
                fprintf(stderr, "Error: broker %" PRId32 ": ListGroups: %s\n", k->id,
                        logrep_err_name((int)ec));
                rc = 2;
                break;
            }
            int32_t n = lr_f_count(rs, LR_FN_Groups);
            for (int32_t j = 0; j < n; j++) {
                logrep_struct *e = lr_f_elem(rs, LR_FN_Groups, j);
                grp_listed l = {keep_field(g, e, LR_FN_GroupId),
                                keep_field(g, e, LR_FN_ProtocolType),
                                v >= 4 ? keep_field(g, e, LR_FN_GroupState) : NULL};
                grp_listed *ng = realloc(out->g, (out->n + 1) * sizeof *ng);
                if (ng)
                    out->g = ng;
                if (!l.group || !l.protocol_type || (v >= 4 && !l.state) || !ng) {
                    oom();
                    return 2; /* the caller frees out->g */
                }
                out->g[out->n++] = l;
            }
            break;
        }
    }
    if (out->n > 1) {
        qsort(out->g, out->n, sizeof *out->g, listed_cmp);
        size_t w = 1;
        for (size_t r = 1; r < out->n; r++)
            if (strcmp(out->g[r].group, out->g[w - 1].group) != 0)
                out->g[w++] = out->g[r];
        out->n = w;
    }
    return rc;
}

/* "Stable,Empty": case-insensitive; an empty filter takes every state. */
static int state_matches(const char *filter, const char *state)
{
    if (!filter || !*filter)
        return 1;
    if (!state)
        return 0;
    size_t sl = strlen(state);
    for (const char *p = filter; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == sl && strncasecmp(p, state, l) == 0)
            return 1;
        p += l + (e != NULL);
    }
    return 0;
}

int do_list(ctx *g, int with_type, int with_state, const char *filter)
{
    listing l;
    int rc = list_all(g, &l);
    size_t w = 0;
    for (size_t i = 0; i < l.n; i++)
        if (state_matches(filter, l.g[i].state))
            l.g[w++] = l.g[i];
    if (!rc || w) /* no header when no broker answered */
        grp_print_list(stdout, l.g, w, with_type, with_state);
    free(l.g);
    return rc;
}
