/* `logrep dump`: kafka-dump-log style output and exit status on good,
 * truncated and corrupt files. Runs the ASan build of the tool. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <logrep.h>

static char *run(const char *args, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/asan/logrep %s 2>&1", LOGREP_BUILDDIR, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t cap = 1 << 16, len = 0, n;
    char *out = malloc(cap);
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    out[len] = 0;
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return out;
}

static void write_batches(const char *path, int n, int codec, size_t truncate_by, int corrupt_at)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), LOGREP_OK);
    cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), LOGREP_OK);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    for (int i = 0; i < n; i++) {
        logrep_batch_builder_reset(b);
        logrep_batch_builder_set_base(b, i * 3, 1);
        char key[16], val[32];
        for (int k = 0; k < 3; k++) {
            int kl = snprintf(key, sizeof key, "key%d", k);
            int vl = snprintf(val, sizeof val, "value-%d-%d", i, k);
            logrep_header h = {(const uint8_t *)"hk", 2, (const uint8_t *)"hv", 2};
            cr_assert_eq(logrep_batch_builder_add(b, 1000 + k, key, kl, val, vl, &h, 1), LOGREP_OK);
        }
        const uint8_t *out;
        size_t len;
        cr_assert_eq(logrep_batch_builder_finish(b, &out, &len), LOGREP_OK);
        uint8_t *copy = malloc(len);
        memcpy(copy, out, len);
        if (i == n - 1 && corrupt_at > 0)
            copy[corrupt_at] ^= 0x40;
        if (i == n - 1)
            len -= truncate_by;
        cr_assert_eq(fwrite(copy, 1, len, f), len);
        free(copy);
    }
    fclose(f);
    logrep_batch_builder_free(b);
}

Test(tool_dump, prints_batches_and_records)
{
    char path[] = "/tmp/logrep-dump-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    write_batches(path, 3, LOGREP_COMPRESSION_LZ4, 0, 0);
    char args[256];
    snprintf(args, sizeof args, "dump --print-data-log %s", path);
    int st;
    char *out = run(args, &st);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "baseOffset: 3 lastOffset: 5 count: 3 baseSequence: -1"), "%s", out);
    cr_assert(strstr(out, "partitionLeaderEpoch: 1 isTransactional: false isControl: false"));
    cr_assert(strstr(out, "magic: 2 compresscodec: lz4 crc: "));
    cr_assert(strstr(out, "isvalid: true"));
    cr_assert(strstr(out, "| offset: 7 CreateTime: 1001 keySize: 4 valueSize: 9 sequence: -1 "
                          "headerKeys: [hk] key: key1 payload: value-2-1"), "%s", out);
    cr_assert_null(strstr(out, "isvalid: false"));
    free(out);
    unlink(path);
}

Test(tool_dump, truncated_and_corrupt_files_fail)
{
    char path[] = "/tmp/logrep-dump-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "dump %s", path);
    int st;
    for (size_t cut = 1; cut < 60; cut += 7) {
        write_batches(path, 2, LOGREP_COMPRESSION_NONE, cut, 0);
        char *out = run(args, &st);
        cr_assert_eq(st, 1, "cut %zu: %s", cut, out);
        cr_assert(strstr(out, "truncated batch"), "%s", out);
        free(out);
    }
    write_batches(path, 2, LOGREP_COMPRESSION_GZIP, 0, 70);
    char *out = run(args, &st);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "isvalid: false"), "%s", out);
    cr_assert(strstr(out, "CRC mismatch"), "%s", out);
    free(out);
    out = run("dump /nonexistent/file.log", &st);
    cr_assert_eq(st, 2);
    free(out);
    unlink(path);
}
