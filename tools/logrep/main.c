/* logrep: inspect and operate on Kafka-format data with liblogrep. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include <logrep.h>

static const tool_cmd commands[] = {
    {"append", cmd_append, "append [--segment-bytes N] [--epoch E] DIR FILE...   append batches as a leader"},
    {"verify", cmd_verify, "verify [--metadata MDDIR] DIR   check every segment, index and checkpoint, and the topic id against the metadata log (MDDIR, or __cluster_metadata-0 beside DIR) (exit 1 if inconsistent)"},
    {"recover", cmd_recover, "recover DIR   run crash recovery and report what was cut and rebuilt"},
    {"offsets", cmd_offsets, "offsets DIR [--time MS]   log start and end offsets, or the offset for a time"},
    {"compact", cmd_compact, "compact [--roll] [--delete-retention-ms MS] [--min-compaction-lag-ms MS] [--dedupe-buffer-size BYTES] [--segment-bytes BYTES] DIR   compact a partition directory offline: the latest record of every key (the active segment too with --roll)"},
    {"dump", cmd_dump, "dump [--print-data-log] FILE|DIR...   print record batches like kafka-dump-log"},
    {"groups", cmd_groups, "groups --bootstrap-server HOST:PORT[,...] [--timeout MS] (--list [--state [STATE,...]] [--protocol-type] | --describe (--group G... | --all-groups))   list consumer groups, or their members, committed offsets and lag, like kafka-consumer-groups"},
    {"quorum", cmd_quorum, "quorum --bootstrap-server HOST:PORT[,...] [--timeout MS] --describe [--status | --replication [--human-readable]]   the metadata quorum's leader, epoch, high watermark and replicas (ask a voter's controller listener), like kafka-metadata-quorum describe"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: logrep COMMAND [ARGS]   (liblogrep %s)\n", logrep_version_string());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  logrep %s\n", commands[i].usage);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("logrep %s\n", logrep_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "logrep: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}
