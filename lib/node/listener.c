/* Which APIs a connection is served, by the listener it arrived on: the
 * controller's APIs only on a controller listener (controller.listener.names),
 * the broker's only on the others, as Kafka separates them. ApiVersions
 * advertises exactly that set. A connection whose listener the host never
 * named is served both, as one in-process listener. */
#include <string.h>

#include "node/node_int.h"

/* What the node implements, and for which role. */
static const struct {
    int16_t api;
    int8_t roles;
} served[] = {
    {LOGREP_API_PRODUCE, LR_ROLE_BROKER},
    {LOGREP_API_FETCH, LR_ROLE_BROKER | LR_ROLE_CONTROLLER},
    {LOGREP_API_LIST_OFFSETS, LR_ROLE_BROKER},
    {LOGREP_API_METADATA, LR_ROLE_BROKER},
    {LOGREP_API_FIND_COORDINATOR, LR_ROLE_BROKER},
    {LOGREP_API_API_VERSIONS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER},
    {LOGREP_API_CREATE_TOPICS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER},
    {LOGREP_API_DELETE_TOPICS, LR_ROLE_BROKER | LR_ROLE_CONTROLLER},
    {LOGREP_API_INIT_PRODUCER_ID, LR_ROLE_BROKER},
    {LOGREP_API_OFFSET_FOR_LEADER_EPOCH, LR_ROLE_BROKER},
    {LOGREP_API_DESCRIBE_CONFIGS, LR_ROLE_BROKER},
    {LOGREP_API_ALTER_PARTITION, LR_ROLE_CONTROLLER},
    {LOGREP_API_BROKER_REGISTRATION, LR_ROLE_CONTROLLER},
    {LOGREP_API_BROKER_HEARTBEAT, LR_ROLE_CONTROLLER},
    {LOGREP_API_ALLOCATE_PRODUCER_IDS, LR_ROLE_CONTROLLER},
};

#define NSERVED (sizeof served / sizeof served[0])

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
    lr_conn *c = lr_node_conn(n, conn, 1);
    if (!c)
        return LOGREP_ERR__NOMEM;
    c->listener = in_list(lr_conf_str(n->conf, LR_CONF_CONTROLLER_LISTENER_NAMES), listener)
                      ? LR_LISTENER_CONTROLLER
                      : LR_LISTENER_CLIENT;
    return LOGREP_OK;
}

int lr_node_conn_roles(const logrep_node *n, const lr_conn *c)
{
    int roles = (n->is_broker ? LR_ROLE_BROKER : 0) | (n->ctl ? LR_ROLE_CONTROLLER : 0);
    if (c->listener == LR_LISTENER_CLIENT)
        roles &= LR_ROLE_BROKER;
    else if (c->listener == LR_LISTENER_CONTROLLER)
        roles &= LR_ROLE_CONTROLLER;
    return roles;
}

int lr_node_serves(const logrep_node *n, const lr_conn *c, int api)
{
    int roles = lr_node_conn_roles(n, c);
    for (size_t i = 0; i < NSERVED; i++)
        if (served[i].api == api)
            return (served[i].roles & roles) != 0;
    return 0;
}

int lr_node_fill_api_versions(logrep_node *n, const lr_conn *c)
{
    logrep_struct *root = logrep_msg_root(n->resp);
    int keys = lr_fid(root, LR_FN_ApiKeys);
    int32_t k = 0;
    for (size_t i = 0; i < NSERVED; i++)
        k += lr_node_serves(n, c, served[i].api) && logrep_proto_api(served[i].api);
    int err = logrep_struct_set_count(root, keys, k);
    k = 0;
    for (size_t i = 0; !err && i < NSERVED; i++) {
        const logrep_api_range *r = logrep_proto_api(served[i].api);
        if (!r || !lr_node_serves(n, c, served[i].api))
            continue;
        logrep_struct *e = logrep_struct_elem(root, keys, k++);
        lr_f_set_int(e, LR_FN_ApiKey, r->api_key);
        lr_f_set_int(e, LR_FN_MinVersion, r->min_version);
        lr_f_set_int(e, LR_FN_MaxVersion, r->max_version);
    }
    return err;
}

int lr_node_cluster_id_ok(const logrep_node *n, const char *p, int32_t len)
{
    if (!p || len < 0)
        return 1; /* not sent: older peers */
    const char *mine = lr_conf_str(n->conf, LR_CONF_CLUSTER_ID);
    return (size_t)len == strlen(mine) && memcmp(p, mine, (size_t)len) == 0;
}
