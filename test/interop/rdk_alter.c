/* rdk_alter BOOTSTRAP TOPIC [--validate] NAME=VALUE...   AlterConfigs
 * rdk_alter BOOTSTRAP TOPIC --get NAME                   DescribeConfigs
 *
 * librdkafka's admin API against the cluster: the first form replaces the
 * topic's configs with those given (rd_kafka_AlterConfigs: AlterConfigs,
 * every config not named is reset), printing "ok" or "error CODE MESSAGE"
 * (exit 2) for the resource; the second prints the config's value and
 * source ("VALUE SOURCE"). Exit 1 on a client failure. */
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
        fprintf(stderr, "rdk_alter: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        fprintf(stderr, "rdk_alter: %s\n", err);
    return rk;
}

/* Runs the admin call queued on q and returns its result event (NULL on
 * a request-level failure, printed). */
static rd_kafka_event_t *wait_result(rd_kafka_queue_t *q)
{
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, TIMEOUT_MS + 5000);
    if (!ev) {
        fprintf(stderr, "rdk_alter: no answer\n");
        return NULL;
    }
    if (rd_kafka_event_error(ev)) {
        fprintf(stderr, "rdk_alter: %s\n", rd_kafka_event_error_string(ev));
        rd_kafka_event_destroy(ev);
        return NULL;
    }
    return ev;
}

static int alter(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *topic, int validate,
                 char **kv, int n)
{
    rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(kv[i], '=');
        if (!eq) {
            fprintf(stderr, "rdk_alter: %s: NAME=VALUE expected\n", kv[i]);
            rd_kafka_ConfigResource_destroy(res);
            return 1;
        }
        *eq = 0;
        rd_kafka_ConfigResource_set_config(res, kv[i], eq + 1);
    }
    rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ALTERCONFIGS);
    char err[256];
    rd_kafka_AdminOptions_set_request_timeout(o, TIMEOUT_MS, err, sizeof err);
    rd_kafka_AdminOptions_set_validate_only(o, validate, err, sizeof err);
    rd_kafka_AlterConfigs(rk, &res, 1, o, q);
    rd_kafka_AdminOptions_destroy(o);
    rd_kafka_ConfigResource_destroy(res);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    size_t nr;
    const rd_kafka_ConfigResource_t **rs =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev), &nr);
    int rc = 1;
    if (nr == 1 && rd_kafka_ConfigResource_error(rs[0])) {
        printf("error %d %s\n", rd_kafka_ConfigResource_error(rs[0]),
               rd_kafka_ConfigResource_error_string(rs[0]));
        rc = 2;
    } else if (nr == 1) {
        printf("ok\n");
        rc = 0;
    }
    rd_kafka_event_destroy(ev);
    return rc;
}

static int get(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *topic, const char *name)
{
    rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic);
    rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
    char err[256];
    rd_kafka_AdminOptions_set_request_timeout(o, TIMEOUT_MS, err, sizeof err);
    rd_kafka_DescribeConfigs(rk, &res, 1, o, q);
    rd_kafka_AdminOptions_destroy(o);
    rd_kafka_ConfigResource_destroy(res);
    rd_kafka_event_t *ev = wait_result(q);
    if (!ev)
        return 1;
    size_t nr, nc;
    const rd_kafka_ConfigResource_t **rs =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &nr);
    int rc = 2;
    const rd_kafka_ConfigEntry_t **cs = nr == 1 ? rd_kafka_ConfigResource_configs(rs[0], &nc) : NULL;
    for (size_t i = 0; cs && i < nc; i++)
        if (strcmp(rd_kafka_ConfigEntry_name(cs[i]), name) == 0) {
            const char *v = rd_kafka_ConfigEntry_value(cs[i]);
            printf("%s %s\n", v ? v : "(null)",
                   rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(cs[i])));
            rc = 0;
        }
    rd_kafka_event_destroy(ev);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rdk_alter BOOTSTRAP TOPIC [--validate] NAME=VALUE...\n"
                        "       rdk_alter BOOTSTRAP TOPIC --get NAME\n");
        return 1;
    }
    rd_kafka_t *rk = client(argv[1]);
    if (!rk)
        return 1;
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    int rc;
    if (strcmp(argv[3], "--get") == 0 && argc == 5)
        rc = get(rk, q, argv[2], argv[4]);
    else if (strcmp(argv[3], "--validate") == 0)
        rc = alter(rk, q, argv[2], 1, argv + 4, argc - 4);
    else
        rc = alter(rk, q, argv[2], 0, argv + 3, argc - 3);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}
