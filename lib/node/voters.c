/* controller.quorum.voters: the controllers, as id@host:port[,...], and
 * which of them this node takes for the active one. With one voter that
 * is always it; with a quorum it is the leader last heard of, and a
 * controller that answers NOT_CONTROLLER, or cannot be reached, hands
 * the role of "the one to ask" to the next voter in turn. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_int.h"

static int parse_one(logrep_node *n, const char *v, size_t len, lr_voter *out, char *err,
                     size_t esz)
{
    char tmp[300];
    if (len >= sizeof tmp) {
        snprintf(err, esz, "controller.quorum.voters: entry too long");
        return LOGREP_ERR__INVALID_CONF;
    }
    memcpy(tmp, v, len);
    tmp[len] = 0;
    const char *at = strchr(tmp, '@');
    const char *colon = at ? strrchr(at, ':') : NULL;
    char *id_end = NULL, *end = NULL;
    long id = at ? strtol(tmp, &id_end, 10) : -1;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!at || !colon || colon == at + 1 || !isdigit((unsigned char)tmp[0]) || id_end != at ||
        id > INT32_MAX || port < 1 || port > 65535 || *end) {
        snprintf(err, esz, "controller.quorum.voters: expected id@host:port, got \"%s\"", tmp);
        return LOGREP_ERR__INVALID_CONF;
    }
    size_t hl = (size_t)(colon - at - 1);
    out->id = (int32_t)id;
    out->port = (int32_t)port;
    if (!(out->host = lr_malloc(&n->alloc, hl + 1)))
        return LOGREP_ERR__NOMEM;
    memcpy(out->host, at + 1, hl);
    out->host[hl] = 0;
    return 0;
}

int lr_voters_parse(logrep_node *n, const char *v, char *err, size_t esz)
{
    size_t count = 1;
    for (const char *p = v; *p; p++)
        count += *p == ',';
    if (count > LR_MAX_VOTERS) {
        snprintf(err, esz, "controller.quorum.voters: at most %d voters", LR_MAX_VOTERS);
        return LOGREP_ERR__INVALID_CONF;
    }
    if (!(n->voters = lr_calloc(&n->alloc, count, sizeof *n->voters)))
        return LOGREP_ERR__NOMEM;
    const char *p = v;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = parse_one(n, p, len, &n->voters[i], err, esz);
        if (rc)
            return rc;
        n->n_voters = i + 1;
        for (size_t j = 0; j < i; j++)
            if (n->voters[j].id == n->voters[i].id) {
                snprintf(err, esz, "controller.quorum.voters: voter %d named twice",
                         (int)n->voters[i].id);
                return LOGREP_ERR__INVALID_CONF;
            }
        p = comma ? comma + 1 : p + len;
    }
    n->ctl_id = n->voters[0].id;
    return 0;
}

void lr_voters_free(logrep_node *n)
{
    for (size_t i = 0; i < n->n_voters; i++)
        lr_strfree(&n->alloc, n->voters[i].host);
    if (n->voters)
        lr_free(&n->alloc, n->voters, n->n_voters * sizeof *n->voters);
    n->voters = NULL;
    n->n_voters = 0;
}

const lr_voter *lr_voter_get(const logrep_node *n, int32_t id)
{
    for (size_t i = 0; i < n->n_voters; i++)
        if (n->voters[i].id == id)
            return &n->voters[i];
    return NULL;
}

int lr_voters_is_self(const logrep_node *n)
{
    return lr_voter_get(n, n->id) != NULL;
}

void lr_voters_learn(logrep_node *n, int32_t leader)
{
    if (leader >= 0 && leader != n->ctl_id && lr_voter_get(n, leader)) {
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node", "the active controller is now %d (was %d)",
               (int)leader, (int)n->ctl_id);
        n->ctl_id = leader;
        n->life.hb_redirect = 1;
    }
}

void lr_voters_next(logrep_node *n, int32_t failed)
{
    if (n->n_voters < 2 || failed != n->ctl_id)
        return;
    size_t i = 0;
    while (i < n->n_voters && n->voters[i].id != failed)
        i++;
    n->ctl_id = n->voters[(i + 1) % n->n_voters].id;
    if (!n->life.hb_redirect)
        n->life.hb_redirect = 2;
}
