/* rdk_groups_admin BOOTSTRAP list
 * rdk_groups_admin BOOTSTRAP describe GROUP
 * rdk_groups_admin BOOTSTRAP offsets GROUP [TOPIC:P...]
 * rdk_groups_admin BOOTSTRAP alter GROUP TOPIC:P=OFFSET...
 * rdk_groups_admin BOOTSTRAP delete-offsets GROUP TOPIC:P...
 * rdk_groups_admin BOOTSTRAP delete GROUP...
 *
 * librdkafka's consumer group admin calls against the cluster, one a run:
 * ListConsumerGroups ("GROUP STATE simple|consumer" per group),
 * DescribeConsumerGroups ("group GROUP STATE ASSIGNOR coordinator N
 * members K", then "member CLIENT_ID TOPIC:P,..." per member, or "error
 * GROUP ERROR"), ListConsumerGroupOffsets ("TOPIC P OFFSET" per
 * partition), AlterConsumerGroupOffsets and DeleteConsumerGroupOffsets
 * ("TOPIC P ERROR" per partition), DeleteGroups ("GROUP ERROR" per group).
 * ERROR is librdkafka's error name (NO_ERROR on success); an error for a
 * whole group prints "error ERROR". Exit 0 when the call was answered,
 * 1 on a client failure. */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_MS 20000

static rd_kafka_t *client(const char *bootstrap)
{
    char err[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "rdk_groups_admin: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        fprintf(stderr, "rdk_groups_admin: %s\n", err);
    return rk;
}

static rd_kafka_AdminOptions_t *options(rd_kafka_t *rk, rd_kafka_admin_op_t op)
{
    char err[256];
    rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, op);
    rd_kafka_AdminOptions_set_request_timeout(o, TIMEOUT_MS, err, sizeof err);
    return o;
}

/* The result event of the call queued on q (NULL on a request-level
 * failure, printed). */
static rd_kafka_event_t *wait_result(rd_kafka_queue_t *q)
{
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, TIMEOUT_MS + 5000);
    if (!ev) {
        fprintf(stderr, "rdk_groups_admin: no answer\n");
        return NULL;
    }
    if (rd_kafka_event_error(ev)) {
        printf("error %s\n", rd_kafka_err2name(rd_kafka_event_error(ev)));
        fprintf(stderr, "rdk_groups_admin: %s\n", rd_kafka_event_error_string(ev));
        rd_kafka_event_destroy(ev);
        return NULL;
    }
    return ev;
}

/* "TOPIC:P" or "TOPIC:P=OFFSET" arguments as a partition list. */
static rd_kafka_topic_partition_list_t *parse_parts(char **args, int n, int with_offset)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        char *colon = strrchr(args[i], ':');
        char *eq = colon ? strchr(colon, '=') : NULL;
        if (!colon || (with_offset && !eq)) {
            fprintf(stderr, "rdk_groups_admin: %s: TOPIC:P%s expected\n", args[i],
                    with_offset ? "=OFFSET" : "");
            rd_kafka_topic_partition_list_destroy(l);
            return NULL;
        }
        *colon = 0;
        rd_kafka_topic_partition_t *tp =
            rd_kafka_topic_partition_list_add(l, args[i], atoi(colon + 1));
        if (eq)
            tp->offset = strtoll(eq + 1, NULL, 10);
    }
    return l;
}

/* Per-partition lines of one group result; offsets or error names. */
static void print_group_result(const rd_kafka_group_result_t *g, int offsets)
{
    const rd_kafka_error_t *ge = rd_kafka_group_result_error(g);
    if (ge) {
        printf("error %s\n", rd_kafka_err2name(rd_kafka_error_code(ge)));
        return;
    }
    const rd_kafka_topic_partition_list_t *l = rd_kafka_group_result_partitions(g);
    for (int i = 0; l && i < l->cnt; i++) {
        const rd_kafka_topic_partition_t *tp = &l->elems[i];
        if (offsets && !tp->err)
            printf("%s %d %lld\n", tp->topic, (int)tp->partition, (long long)tp->offset);
        else
            printf("%s %d %s\n", tp->topic, (int)tp->partition, rd_kafka_err2name(tp->err));
    }
}

static int list(rd_kafka_t *rk, rd_kafka_queue_t *q)
{
    rd_kafka_AdminOptions_t *o = options(rk, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS);
    rd_kafka_ListConsumerGroups(rk, o, q);
    rd_kafka_AdminOptions_destroy(o);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    const rd_kafka_ListConsumerGroups_result_t *r = rd_kafka_event_ListConsumerGroups_result(ev);
    size_t n, ne;
    const rd_kafka_ConsumerGroupListing_t **gs = rd_kafka_ListConsumerGroups_result_valid(r, &n);
    for (size_t i = 0; i < n; i++)
        printf("%s %s %s\n", rd_kafka_ConsumerGroupListing_group_id(gs[i]),
               rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(gs[i])),
               rd_kafka_ConsumerGroupListing_is_simple_consumer_group(gs[i]) ? "simple" : "consumer");
    const rd_kafka_error_t **es = rd_kafka_ListConsumerGroups_result_errors(r, &ne);
    for (size_t i = 0; i < ne; i++)
        printf("error %s\n", rd_kafka_err2name(rd_kafka_error_code(es[i])));
    rd_kafka_event_destroy(ev);
    return 0;
}

static int describe(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *group)
{
    rd_kafka_AdminOptions_t *o = options(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS);
    rd_kafka_DescribeConsumerGroups(rk, &group, 1, o, q);
    rd_kafka_AdminOptions_destroy(o);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    size_t n;
    const rd_kafka_ConsumerGroupDescription_t **gs = rd_kafka_DescribeConsumerGroups_result_groups(
        rd_kafka_event_DescribeConsumerGroups_result(ev), &n);
    for (size_t i = 0; i < n; i++) {
        const rd_kafka_ConsumerGroupDescription_t *g = gs[i];
        const rd_kafka_error_t *e = rd_kafka_ConsumerGroupDescription_error(g);
        if (e) {
            printf("error %s %s\n", rd_kafka_ConsumerGroupDescription_group_id(g),
                   rd_kafka_err2name(rd_kafka_error_code(e)));
            continue;
        }
        const rd_kafka_Node_t *c = rd_kafka_ConsumerGroupDescription_coordinator(g);
        const char *a = rd_kafka_ConsumerGroupDescription_partition_assignor(g);
        size_t nm = rd_kafka_ConsumerGroupDescription_member_count(g);
        printf("group %s %s %s coordinator %d members %zu\n",
               rd_kafka_ConsumerGroupDescription_group_id(g),
               rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(g)),
               a && *a ? a : "-", c ? rd_kafka_Node_id(c) : -1, nm);
        for (size_t m = 0; m < nm; m++) {
            const rd_kafka_MemberDescription_t *md = rd_kafka_ConsumerGroupDescription_member(g, m);
            const rd_kafka_topic_partition_list_t *l =
                rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(md));
            printf("member %s", rd_kafka_MemberDescription_client_id(md));
            for (int k = 0; l && k < l->cnt; k++)
                printf("%s%s:%d", k ? "," : " ", l->elems[k].topic, (int)l->elems[k].partition);
            printf("\n");
        }
    }
    rd_kafka_event_destroy(ev);
    return 0;
}

enum offsets_op { LIST, ALTER, DELETE };

/* ListConsumerGroupOffsets (no partitions: all of the group's),
 * AlterConsumerGroupOffsets or DeleteConsumerGroupOffsets of one group. */
static int offsets(rd_kafka_t *rk, rd_kafka_queue_t *q, enum offsets_op op, const char *group,
                   char **args, int n)
{
    rd_kafka_topic_partition_list_t *l = n || op != LIST ? parse_parts(args, n, op == ALTER) : NULL;
    if ((n || op != LIST) && !l)
        return 1;
    static const rd_kafka_admin_op_t ops[] = {RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS,
                                              RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS,
                                              RD_KAFKA_ADMIN_OP_DELETECONSUMERGROUPOFFSETS};
    rd_kafka_AdminOptions_t *o = options(rk, ops[op]);
    if (op == LIST) {
        rd_kafka_ListConsumerGroupOffsets_t *req = rd_kafka_ListConsumerGroupOffsets_new(group, l);
        rd_kafka_ListConsumerGroupOffsets(rk, &req, 1, o, q);
        rd_kafka_ListConsumerGroupOffsets_destroy(req);
    } else if (op == ALTER) {
        rd_kafka_AlterConsumerGroupOffsets_t *req = rd_kafka_AlterConsumerGroupOffsets_new(group, l);
        rd_kafka_AlterConsumerGroupOffsets(rk, &req, 1, o, q);
        rd_kafka_AlterConsumerGroupOffsets_destroy(req);
    } else {
        rd_kafka_DeleteConsumerGroupOffsets_t *req = rd_kafka_DeleteConsumerGroupOffsets_new(group, l);
        rd_kafka_DeleteConsumerGroupOffsets(rk, &req, 1, o, q);
        rd_kafka_DeleteConsumerGroupOffsets_destroy(req);
    }
    rd_kafka_AdminOptions_destroy(o);
    if (l)
        rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    size_t ng = 0;
    const rd_kafka_group_result_t **gs =
        op == LIST ? rd_kafka_ListConsumerGroupOffsets_result_groups(
                         rd_kafka_event_ListConsumerGroupOffsets_result(ev), &ng)
        : op == ALTER ? rd_kafka_AlterConsumerGroupOffsets_result_groups(
                            rd_kafka_event_AlterConsumerGroupOffsets_result(ev), &ng)
                      : rd_kafka_DeleteConsumerGroupOffsets_result_groups(
                            rd_kafka_event_DeleteConsumerGroupOffsets_result(ev), &ng);
    for (size_t i = 0; i < ng; i++)
        print_group_result(gs[i], op == LIST);
    rd_kafka_event_destroy(ev);
    return 0;
}

static int delete_groups(rd_kafka_t *rk, rd_kafka_queue_t *q, char **args, int n)
{
    rd_kafka_DeleteGroup_t **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return 1;
    for (int i = 0; i < n; i++)
        reqs[i] = rd_kafka_DeleteGroup_new(args[i]);
    rd_kafka_AdminOptions_t *o = options(rk, RD_KAFKA_ADMIN_OP_DELETEGROUPS);
    rd_kafka_DeleteGroups(rk, reqs, (size_t)n, o, q);
    rd_kafka_AdminOptions_destroy(o);
    rd_kafka_DeleteGroup_destroy_array(reqs, (size_t)n);
    free(reqs);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    size_t ng;
    const rd_kafka_group_result_t **gs =
        rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev), &ng);
    for (size_t i = 0; i < ng; i++) {
        const rd_kafka_error_t *e = rd_kafka_group_result_error(gs[i]);
        printf("%s %s\n", rd_kafka_group_result_name(gs[i]),
               rd_kafka_err2name(e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR));
    }
    rd_kafka_event_destroy(ev);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rdk_groups_admin BOOTSTRAP list|describe|offsets|alter|"
                        "delete-offsets|delete ...\n");
        return 1;
    }
    const char *cmd = argv[2];
    int needs_group = strcmp(cmd, "list") != 0;
    if (needs_group && argc < 4) {
        fprintf(stderr, "rdk_groups_admin: %s: GROUP expected\n", cmd);
        return 1;
    }
    rd_kafka_t *rk = client(argv[1]);
    if (!rk)
        return 1;
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    int rc = 1;
    if (strcmp(cmd, "list") == 0)
        rc = list(rk, q);
    else if (strcmp(cmd, "describe") == 0 && argc == 4)
        rc = describe(rk, q, argv[3]);
    else if (strcmp(cmd, "offsets") == 0)
        rc = offsets(rk, q, LIST, argv[3], argv + 4, argc - 4);
    else if (strcmp(cmd, "alter") == 0 && argc > 4)
        rc = offsets(rk, q, ALTER, argv[3], argv + 4, argc - 4);
    else if (strcmp(cmd, "delete-offsets") == 0 && argc > 4)
        rc = offsets(rk, q, DELETE, argv[3], argv + 4, argc - 4);
    else if (strcmp(cmd, "delete") == 0)
        rc = delete_groups(rk, q, argv + 3, argc - 3);
    else
        fprintf(stderr, "rdk_groups_admin: bad arguments for %s\n", cmd);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}
