/* The example broker's storage wrapper (examples/broker/storage.c): with a
 * page-cache window far smaller than what is written, every byte still
 * reads back as written, through truncation, rewrites and a log's
 * recovery, on the same files the POSIX backend sees. */
#include "log_testutil.h"

#include <unistd.h>

#include "broker.h"

#define MIB (1u << 20)

static uint8_t pat(uint64_t pos, unsigned gen)
{
    return (uint8_t)((pos * 2654435761u) >> 13) ^ (uint8_t)gen;
}

static void fill(uint8_t *b, uint64_t pos, size_t n, unsigned gen)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(pos + i, gen);
}

/* Bytes [from, to) read back as generation `gen` wrote them. */
static void check(logrep_storage *st, logrep_file *f, uint64_t from, uint64_t to, unsigned gen)
{
    static uint8_t got[MIB], want[MIB];
    for (uint64_t pos = from; pos < to;) {
        size_t n = to - pos < MIB ? (size_t)(to - pos) : MIB, r;
        cr_assert_eq(st->read(st->ctx, f, pos, got, n, &r), 0);
        cr_assert_eq(r, n);
        fill(want, pos, n, gen);
        cr_assert(memcmp(got, want, n) == 0, "bytes differ in [%llu, +%zu)",
                  (unsigned long long)pos, n);
        pos += n;
    }
}

Test(broker_storage, window_keeps_every_byte)
{
    char dir[] = "/tmp/logrep-bstore-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    logrep_storage *st;
    cr_assert_eq(broker_storage_new(NULL, 8 * MIB, &st), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/00000000000000000000.log", dir);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    /* 40 MiB in odd-sized appends: five windows' worth, so ranges are
     * written back and dropped many times over. */
    static uint8_t buf[300007];
    uint64_t end = 0;
    while (end < 40 * MIB) {
        fill(buf, end, sizeof buf, 1);
        cr_assert_eq(st->write(st->ctx, f, end, buf, sizeof buf), 0);
        end += sizeof buf;
    }
    check(st, f, 0, end, 1);
    /* A follower's truncation, then new bytes over the old ones. */
    cr_assert_eq(st->truncate(st->ctx, f, 13 * MIB + 5), 0);
    uint64_t size;
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    cr_assert_eq(size, 13 * MIB + 5);
    uint64_t at = 13 * MIB + 5;
    while (at < 30 * MIB) {
        fill(buf, at, sizeof buf, 2);
        cr_assert_eq(st->write(st->ctx, f, at, buf, sizeof buf), 0);
        at += sizeof buf;
    }
    check(st, f, 0, 13 * MIB + 5, 1);
    check(st, f, 13 * MIB + 5, at, 2);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    cr_assert_eq(st->close(st->ctx, f), 0);
    /* The plain backend sees the same bytes. */
    logrep_storage *plain;
    cr_assert_eq(logrep_storage_posix_new(NULL, &plain), 0);
    cr_assert_eq(plain->open(plain->ctx, path, LOGREP_OPEN_READ, &f), 0);
    check(plain, f, 13 * MIB + 5, at, 2);
    plain->close(plain->ctx, f);
    plain->remove(plain->ctx, path);
    logrep_storage_free(plain);
    logrep_storage_free(st);
    rmdir(dir);
}

Test(broker_storage, log_batches_read_back_through_the_window)
{
    char dir[] = "/tmp/logrep-bstore-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ldir[600], seg[700];
    snprintf(ldir, sizeof ldir, "%s/t-0", dir);
    snprintf(seg, sizeof seg, "%s/00000000000000000000.log", ldir);
    logrep_storage *st;
    cr_assert_eq(broker_storage_new(NULL, 8 * MIB, &st), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(NULL, st, ldir, 0, &log), 0);
    size_t len;
    uint8_t *b = lt_batch(60, 1000, 1700000000000LL, -1, 0, &len);
    uint8_t *copy = malloc(len);
    int n = 500; /* about 30 MiB, one segment */
    for (int i = 0; i < n; i++) {
        memcpy(copy, b, len);
        cr_assert_eq(logrep_log_append_leader(log, copy, len, 0, 0, NULL), 0);
    }
    cr_assert_eq(logrep_log_end_offset(log), 60 * n);
    /* Every batch, dropped from the cache or not, reads back whole with
     * its CRC and its assigned offset. */
    uint8_t *got = malloc(len);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, seg, LOGREP_OPEN_READ, &f), 0);
    for (int i = 0; i < n; i++) {
        size_t r, size;
        cr_assert_eq(st->read(st->ctx, f, (uint64_t)i * len, got, len, &r), 0);
        cr_assert_eq(r, len);
        cr_assert_eq(logrep_batch_verify(got, len, &size), 0, "batch %d", i);
        cr_assert_eq(size, len);
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_header_parse(got, len, &h), 0);
        cr_assert_eq(h.base_offset, 60 * i);
    }
    st->close(st->ctx, f);
    logrep_log_close(log);
    free(got);
    free(copy);
    free(b);
    logrep_storage_free(st);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
