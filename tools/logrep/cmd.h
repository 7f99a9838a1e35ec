/* Subcommands of the `logrep` tool. Each returns the process exit status:
 * 0 success, 1 the data is bad (corrupt, inconsistent), 2 usage or I/O. */
#ifndef LOGREP_TOOL_CMD_H
#define LOGREP_TOOL_CMD_H

typedef struct tool_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
} tool_cmd;

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* util.c: the rest of a stream, or a whole file, in a malloc'd buffer;
 * NULL on a read error or when out of memory (or a missing file). */
uint8_t *tool_read_stream(FILE *f, size_t *len);
uint8_t *tool_read_file(const char *path, size_t *len);

/* dump.c: files of concatenated batches; directories go to cmd_dump_dir. */
int cmd_dump(int argc, char **argv);
/* Dumps a partition directory: argv[0] "dump", options, then the directory. */
int cmd_dump_dir(int argc, char **argv) __attribute__((weak));

/* partition.c: partition directories. tool_open_log opens DIR with the
 * POSIX storage (0, or an exit status after printing why);
 * tool_close_log closes and frees all three and returns rc, or 2 when the
 * close failed. */
struct logrep_log;
struct logrep_storage;
struct logrep_conf;
int tool_open_log(const char *dir, struct logrep_conf *conf, int64_t now_ms,
                  struct logrep_storage **st, struct logrep_log **log);
int tool_close_log(struct logrep_log *log, struct logrep_storage *st, struct logrep_conf *conf,
                   int rc);
int cmd_append(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_offsets(int argc, char **argv);

/* compact.c: offline compaction of a partition directory. */
int cmd_compact(int argc, char **argv);

/* groups.c: consumer groups of a running cluster, over the wire. */
int cmd_groups(int argc, char **argv);

/* quorum.c: the metadata quorum of a running cluster, over the wire. */
int cmd_quorum(int argc, char **argv);

#endif
