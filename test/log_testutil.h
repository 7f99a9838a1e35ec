/* Helpers for the storage and log tests: batches built with the codec's
 * builder, small file readers through a storage. Header-only (static),
 * included by test_storage.c, test_log*.c and test_crash.c. */
#ifndef LOGREP_LOG_TESTUTIL_H
#define LOGREP_LOG_TESTUTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>

/* A batch of n records with value size vsize and timestamps ts, ts+1, ...;
 * malloc'd, *len receives its size. */
static inline uint8_t *lt_batch(int n, size_t vsize, int64_t ts, int64_t pid, int32_t seq,
                                size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    if (pid >= 0)
        cr_assert_eq(logrep_batch_builder_set_producer(b, pid, 0, seq), 0);
    char *val = malloc(vsize + 1);
    for (size_t i = 0; i < vsize; i++)
        val[i] = (char)('a' + (i % 26));
    for (int i = 0; i < n; i++)
        cr_assert_eq(logrep_batch_builder_add(b, ts + i, "k", 1, val, (int32_t)vsize, NULL, 0), 0);
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), 0);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    free(val);
    logrep_batch_builder_free(b);
    return copy;
}

/* Appends one batch as leader; returns its base offset. */
static inline int64_t lt_append(logrep_log *log, int n, size_t vsize, int64_t ts, int32_t epoch)
{
    size_t len;
    uint8_t *b = lt_batch(n, vsize, ts, -1, -1, &len);
    logrep_log_append_info info;
    logrep_err err = logrep_log_append_leader(log, b, len, epoch, ts, &info);
    free(b);
    cr_assert_eq(err, 0, "append: %s", logrep_err_name(err));
    return info.first_offset;
}

/* Whole file through the storage; NULL when absent. */
static inline uint8_t *lt_read(const logrep_storage *st, const char *path, size_t *len)
{
    logrep_file *f;
    if (st->open(st->ctx, path, LOGREP_OPEN_READ, &f))
        return NULL;
    uint64_t size;
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    uint8_t *buf = malloc(size + 1);
    size_t n;
    cr_assert_eq(st->read(st->ctx, f, 0, buf, size, &n), 0);
    cr_assert_eq(n, size);
    buf[n] = 0;
    st->close(st->ctx, f);
    *len = n;
    return buf;
}

static inline void lt_write(const logrep_storage *st, const char *path, const void *data,
                            size_t len)
{
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq(st->truncate(st->ctx, f, 0), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, data, len), 0);
    st->close(st->ctx, f);
}

static inline int64_t lt_file_size(const logrep_storage *st, const char *path)
{
    size_t n;
    uint8_t *b = lt_read(st, path, &n);
    if (!b)
        return -1;
    free(b);
    return (int64_t)n;
}

/* Reads every batch of the log through logrep_log_read and checks that
 * offsets are contiguous from the log start to the end and every batch
 * verifies. Returns the number of batches. */
static inline int lt_check_log(logrep_log *log, const logrep_storage *st)
{
    int64_t off = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    int batches = 0;
    while (off < end) {
        logrep_log_slice sl;
        logrep_err err = logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &sl);
        cr_assert_eq(err, 0, "read at %lld: %s", (long long)off, logrep_err_name(err));
        cr_assert_gt(sl.length, 0, "empty read at %lld (end %lld)", (long long)off,
                     (long long)end);
        uint8_t *buf = malloc(sl.length);
        size_t n;
        cr_assert_eq(st->read(st->ctx, sl.file, sl.position, buf, sl.length, &n), 0);
        cr_assert_eq(n, sl.length);
        size_t pos = 0;
        while (pos < n) {
            size_t size;
            cr_assert_eq(logrep_batch_verify(buf + pos, n - pos, &size), 0);
            logrep_batch_header h;
            logrep_batch_header_parse(buf + pos, size, &h);
            cr_assert_leq(h.base_offset, off);
            off = logrep_batch_last_offset(&h) + 1;
            pos += size;
            batches++;
        }
        cr_assert_eq(off, sl.next_offset);
        free(buf);
    }
    cr_assert_eq(off, end);
    return batches;
}

#endif
