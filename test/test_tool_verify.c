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

#include "base/uuid.h"
#include "controller/metadata.h"
#include <logrep.h>

static int tool(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/asan/logrep %s >/dev/null 2>&1", LOGREP_BUILDDIR, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Appends one batch holding `value` (or five small records) to dir. */
static void append_batch(const char *root, const char *dir, const void *value, int32_t vlen)
{
    char batch[512], args[1200];
    snprintf(batch, sizeof batch, "%s/batch.bin", root);
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    for (int i = 0; i < (value ? 1 : 5); i++)
        cr_assert_eq(logrep_batch_builder_add(b, 1000 + i, value ? NULL : "k", value ? -1 : 1,
                                              value ? value : "v", value ? vlen : 1, NULL, 0),
                     LOGREP_OK);
    const uint8_t *out;
    size_t len;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
    FILE *f = fopen(batch, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(out, 1, len, f), len);
    fclose(f);
    logrep_batch_builder_free(b);
    snprintf(args, sizeof args, "append --epoch 0 %s %s", dir, batch);
    cr_assert_eq(tool(args), 0, "%s", args);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void write_checkpoint(const char *dir, const char *text)
{
    write_file(dir, "leader-epoch-checkpoint", text);
}

Test(tool_verify, epoch_starting_at_the_log_end_is_consistent)
{
    char root[] = "/tmp/logrep-verify.XXXXXX";
    cr_assert(mkdtemp(root));
    char dir[512], args[1200];
    snprintf(dir, sizeof dir, "%s/t-0", root);
    append_batch(root, dir, NULL, 0);
    snprintf(args, sizeof args, "verify %s", dir);
    cr_assert_eq(tool(args), 0);
    write_checkpoint(dir, "0\n2\n0 0\n1 5\n"); /* epoch 1 starts at LEO 5 */
    cr_assert_eq(tool(args), 0, "an epoch starting at the log end is consistent");
    write_checkpoint(dir, "0\n2\n0 0\n1 6\n"); /* past the end */
    cr_assert_eq(tool(args), 1, "an epoch starting past the log end is not");
    snprintf(args, sizeof args, "rm -rf %s", root);
    cr_assert_eq(system(args), 0);
}

/* A partition directory whose partition.metadata names another topic id
 * than the metadata log does, or whose topic the log no longer has, is
 * reported (KIP-516 strays); the matching one verifies. */
Test(tool_verify, topic_id_checked_against_the_metadata_log)
{
    char root[] = "/tmp/logrep-verify.XXXXXX";
    cr_assert(mkdtemp(root));
    char md[512], good[512], stale[512], gone[512], args[1800];
    snprintf(md, sizeof md, "%s/__cluster_metadata-0", root);
    snprintf(good, sizeof good, "%s/t-0", root);
    snprintf(stale, sizeof stale, "%s/t-1", root);
    snprintf(gone, sizeof gone, "%s/gone-0", root);
    static const uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t other[16] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    lr_md_record rec;
    lr_md_record_init(&rec, LR_MD_TOPIC, 0);
    rec.u.topic.name = (lr_md_str){"t", 1};
    memcpy(rec.u.topic.topic_id, id, 16);
    lr_buf b;
    lr_buf_init(&b, &lr_alloc_default);
    cr_assert_eq(lr_md_encode(&rec, &b), 0);
    append_batch(root, md, b.data, (int32_t)b.len);
    lr_buf_free(&b);
    char sid[23], soth[23], text[80];
    lr_uuid_to_str(id, sid);
    lr_uuid_to_str(other, soth);
    const char *dirs[] = {good, stale, gone};
    for (int i = 0; i < 3; i++) {
        append_batch(root, dirs[i], NULL, 0);
        snprintf(text, sizeof text, "version: 0\ntopic_id: %s\n", i == 1 ? soth : sid);
        write_file(dirs[i], "partition.metadata", text);
    }
    snprintf(args, sizeof args, "verify %s", good);
    cr_assert_eq(tool(args), 0);
    snprintf(args, sizeof args, "verify %s", stale);
    cr_assert_eq(tool(args), 1, "a directory with another topic id verifies");
    snprintf(args, sizeof args, "verify %s", gone);
    cr_assert_eq(tool(args), 1, "a directory of a topic not in the metadata verifies");
    snprintf(args, sizeof args, "verify --metadata %s %s", md, stale);
    cr_assert_eq(tool(args), 1);
    snprintf(args, sizeof args, "verify --metadata %s/nothing %s", root, good);
    cr_assert_eq(tool(args), 2, "an unreadable metadata log is an error");
    snprintf(args, sizeof args, "rm -rf %s", root);
    cr_assert_eq(system(args), 0);
}

/* The tool's stdout for args (cap bytes, NUL-terminated); its exit status. */
static int tool_out(const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/asan/logrep %s 2>/dev/null", LOGREP_BUILDDIR, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* `logrep compact --roll DIR` keeps the last record of key "k" of fifteen,
 * and `logrep verify` then reports the cleaner's progress. */
Test(tool_verify, compact_offline_then_verify)
{
    char root[] = "/tmp/logrep-compact.XXXXXX";
    cr_assert(mkdtemp(root));
    char dir[512], args[1200], out[4096];
    snprintf(dir, sizeof dir, "%s/t-0", root);
    for (int i = 0; i < 3; i++)
        append_batch(root, dir, NULL, 0);
    snprintf(args, sizeof args, "verify %s", dir);
    cr_assert_eq(tool_out(args, out, sizeof out), 0);
    cr_assert(strstr(out, "cleaner: never ran here"), "%s", out);
    snprintf(args, sizeof args, "compact --roll --dedupe-buffer-size 4096 %s", dir);
    cr_assert_eq(tool_out(args, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "removed 14 records"), "%s", out);
    cr_assert(strstr(out, "log end offset 15"), "%s", out);
    snprintf(args, sizeof args, "verify %s", dir);
    cr_assert_eq(tool_out(args, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "cleaner: first dirty offset 15"), "%s", out);
    snprintf(args, sizeof args, "compact --no-such-option %s", dir);
    cr_assert_eq(tool(args), 2);
    snprintf(args, sizeof args, "rm -rf %s", root);
    cr_assert_eq(system(args), 0);
}
