/* The simulator's trace written to a stdio stream, for failing tests and
 * the soak runner (the public API hands lines to a callback). */
#ifndef LOGREP_TEST_SIM_TESTUTIL_H
#define LOGREP_TEST_SIM_TESTUTIL_H

#include <stdio.h>

#include <logrep/sim.h>

static inline void sim_line_to_file(void *ctx, const char *line, size_t len)
{
    fwrite(line, 1, len, (FILE *)ctx);
    fputc('\n', (FILE *)ctx);
}

static inline void sim_dump(const logrep_sim *s, FILE *f, int lines)
{
    logrep_sim_trace_dump(s, lines, sim_line_to_file, f);
}

#endif
