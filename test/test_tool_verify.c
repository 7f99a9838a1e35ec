/* `logrep verify` on a partition directory whose leader-epoch checkpoint
 * ends with an epoch that starts at the log end offset: a replica that
 * became leader and has not appended yet (Kafka assigns the epoch at the
 * LEO on election). That is consistent; only a start past the end is not.
 * Found by the interop suite after a controlled shutdown moved leadership. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "logrep.h"

static int tool(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/asan/logrep %s >/dev/null 2>&1", LOGREP_BUILDDIR, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void write_checkpoint(const char *dir, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

Test(tool_verify, epoch_starting_at_the_log_end_is_consistent)
{
    char root[] = "/tmp/logrep-verify.XXXXXX";
    cr_assert(mkdtemp(root));
    char dir[512], batch[512], args[1200];
    snprintf(dir, sizeof dir, "%s/t-0", root);
    snprintf(batch, sizeof batch, "%s/batch.bin", root);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(logrep_batch_builder_add(b, 1000 + i, "k", 1, "v", 1, NULL, 0), LOGREP_OK);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    FILE *f = fopen(batch, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(out, 1, len, f), len);
    fclose(f);
    logrep_batch_builder_free(b);

    snprintf(args, sizeof args, "append --epoch 0 %s %s", dir, batch);
    cr_assert_eq(tool(args), 0);
    snprintf(args, sizeof args, "verify %s", dir);
    cr_assert_eq(tool(args), 0);
    write_checkpoint(dir, "0\n2\n0 0\n1 5\n"); /* epoch 1 starts at LEO 5 */
    cr_assert_eq(tool(args), 0, "an epoch starting at the log end is consistent");
    write_checkpoint(dir, "0\n2\n0 0\n1 6\n"); /* past the end */
    cr_assert_eq(tool(args), 1, "an epoch starting past the log end is not");
    snprintf(args, sizeof args, "rm -rf %s", root);
    cr_assert_eq(system(args), 0);
}
