/* The listener a connection arrived on (controller.listener.names tells
 * the controller's apart; dispatch.c serves each its APIs), and the
 * cluster id peers must share. */
#include <stdio.h>
#include <string.h>

#include "node/node_int.h"

/* 1 when name is one of the comma-separated names in list. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t k = strcspn(p, ", ");
        if (k == n && k && strncmp(p, name, n) == 0)
            return 1;
        p += k;
    }
    return 0;
}

LOGREP_API logrep_err logrep_node_accepted(logrep_node *n, uint64_t conn, const char *listener)
{
    if (!n || !listener || !*listener)
        return LOGREP_ERR__INVALID_ARG;
    lr_conn *c = lr_node_conn_for(n, conn, 1);
    if (!c)
        return LOGREP_ERR__NOMEM;
    c->listener = in_list(lr_conf_str(n->conf, LR_CONF_CONTROLLER_LISTENER_NAMES), listener)
                      ? LR_LISTENER_CONTROLLER
                      : LR_LISTENER_CLIENT;
    return LOGREP_OK;
}

LOGREP_API logrep_err logrep_node_peer(logrep_node *n, uint64_t conn, const char *address)
{
    if (!n || !address)
        return LOGREP_ERR__INVALID_ARG;
    lr_conn *c = lr_node_conn_for(n, conn, 1);
    if (!c)
        return LOGREP_ERR__NOMEM;
    snprintf(c->peer, sizeof c->peer, "%s", address);
    return LOGREP_OK;
}

int lr_node_cluster_id_ok(const logrep_node *n, const char *p, int32_t len)
{
    if (!p || len < 0)
        return 1; /* not sent: older peers */
    const char *mine = lr_conf_str(n->conf, LR_CONF_CLUSTER_ID);
    return (size_t)len == strlen(mine) && memcmp(p, mine, (size_t)len) == 0;
}
