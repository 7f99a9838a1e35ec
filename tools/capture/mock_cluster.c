/*
 * mock_cluster: runs librdkafka's in-process mock Kafka cluster
 * (rdkafka_mock.h, librdkafka 2.0.2) for capturing golden vectors.
 *
 *   mock_cluster BROKERS SECONDS [TOPIC:PARTITIONS ...]
 *
 * Prints the bootstrap list ("127.0.0.1:P1,127.0.0.1:P2,...") on the first
 * line of stdout, then keeps the cluster up until SECONDS have passed or
 * it gets SIGTERM/SIGINT. Loopback only.
 *
 * Build: cc -O1 -o mock_cluster mock_cluster.c -lrdkafka
 * Maintainer tool; not part of the library build.
 */
#define _POSIX_C_SOURCE 200809L
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv) {
    char errstr[512];
    if (argc < 3) {
        fprintf(stderr, "usage: %s BROKERS SECONDS [TOPIC:PARTITIONS ...]\n", argv[0]);
        return 2;
    }
    int brokers = atoi(argv[1]);
    int seconds = atoi(argv[2]);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The mock needs a handle for bookkeeping only; keep it quiet. */
    rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        fprintf(stderr, "rd_kafka_new: %s\n", errstr);
        return 1;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
        return 1;
    }
    for (int i = 3; i < argc; i++) {
        char name[256];
        const char *colon = strrchr(argv[i], ':');
        int parts = colon ? atoi(colon + 1) : 1;
        size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, argv[i], n);
        name[n] = '\0';
        rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mc, name, parts, brokers < 3 ? brokers : 3);
        if (err) {
            fprintf(stderr, "topic %s: %s\n", name, rd_kafka_err2str(err));
            return 1;
        }
    }
    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
    fflush(stdout);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    time_t end = time(NULL) + seconds;
    while (!stop && time(NULL) < end) {
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
