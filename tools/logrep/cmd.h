/* Subcommands of the `logrep` tool. Each returns the process exit status:
 * 0 success, 1 the data is bad (corrupt, inconsistent), 2 usage or I/O. */
#ifndef LOGREP_TOOL_CMD_H
#define LOGREP_TOOL_CMD_H

typedef struct tool_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
} tool_cmd;

/* dump.c */
int cmd_dump(int argc, char **argv);

#endif
