/* logrep-broker server.properties [--override key=value]...
 *
 * An example Kafka-compatible broker built on liblogrep: it reads Kafka's
 * property names, opens the listeners and serves unmodified Kafka clients
 * (kcat, librdkafka, kafkajs) until SIGTERM, which runs a controlled
 * shutdown. See docs/broker.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: logrep-broker server.properties [--override key=value]...\n"
            "       logrep-broker --version\n");
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("logrep-broker (liblogrep %s)\n", logrep_version_string());
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        usage();
        return 2;
    }
    char **ov = calloc((size_t)argc, sizeof *ov);
    int nov = 0;
    if (!ov)
        return 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--override") == 0 && i + 1 < argc) {
            ov[nov++] = argv[++i];
        } else if (strncmp(argv[i], "--override=", 11) == 0) {
            ov[nov++] = argv[i] + 11;
        } else {
            fprintf(stderr, "logrep-broker: unexpected argument '%s'\n", argv[i]);
            usage();
            free(ov);
            return 2;
        }
    }
    broker_conf bc;
    int rc = broker_conf_load(&bc, argv[1], ov, nov);
    free(ov);
    if (rc != 0) {
        broker_conf_free(&bc);
        return 2;
    }
    rc = broker_run(&bc);
    broker_conf_free(&bc);
    return rc;
}
