/* Arbitrary bytes as a partition directory's files (.log, .index,
 * .timeindex, leader-epoch-checkpoint, recovery-point-offset-checkpoint,
 * a .snapshot), in the memory storage: opening and recovering never
 * crashes, and when it succeeds the log reads back as a valid sequence of
 * batches and accepts an append.
 *
 * Input framing: up to 6 chunks, each a 2-byte big-endian length and that
 * many bytes (a short final chunk takes what is left). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>

static const char *const fz_names[] = {
    "p/t-0/00000000000000000000.log",       "p/t-0/00000000000000000000.index",
    "p/t-0/00000000000000000000.timeindex", "p/t-0/leader-epoch-checkpoint",
    "p/t-0/recovery-point-offset-checkpoint", "p/t-0/00000000000000000000.snapshot",
};

static void fz_put(logrep_storage *st, const char *path, const uint8_t *d, size_t n)
{
    logrep_file *f;
    if (st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f))
        return;
    st->write(st->ctx, f, 0, d, n);
    st->close(st->ctx, f);
}

/* Every batch must be framed (header, length, increasing offsets); with
 * `crc`, verified too. Below a recovery point that matches the data the
 * log trusts the files, as Kafka does, so the CRC is checked only when the
 * whole log was recovered. */
static void fz_check(logrep_log *log, logrep_storage *st, int crc)
{
    int64_t off = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    while (off < end) {
        logrep_log_slice sl;
        if (logrep_log_read(log, off, 1 << 16, INT64_MAX, 1, &sl) || !sl.length)
            abort();
        uint8_t *buf = malloc(sl.length);
        size_t n, pos = 0;
        if (!buf || st->read(st->ctx, sl.file, sl.position, buf, sl.length, &n) || n != sl.length)
            abort();
        while (pos < n) {
            logrep_batch_header h;
            logrep_err err = logrep_batch_header_parse(buf + pos, n - pos, &h);
            if (err || (crc && logrep_batch_verify(buf + pos, n - pos, NULL)))
                abort(); /* recovery let an invalid batch through */
            pos += (size_t)h.batch_length + 12;
        }
        free(buf);
        if (sl.next_offset <= off)
            abort();
        off = sl.next_offset;
    }
    if (off != end)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    logrep_storage *st;
    if (logrep_storage_memory_new(NULL, &st))
        return 0;
    st->mkdir(st->ctx, "p");
    st->mkdir(st->ctx, "p/t-0");
    size_t pos = 0;
    for (int i = 0; i < 6 && pos + 2 <= size; i++) {
        size_t n = (size_t)data[pos] << 8 | data[pos + 1];
        pos += 2;
        if (n > size - pos)
            n = size - pos;
        fz_put(st, fz_names[i], data + pos, n);
        pos += n;
    }
    logrep_conf *conf = logrep_conf_new();
    logrep_conf_set(conf, "index.interval.bytes", "64", NULL, 0);
    logrep_log *log;
    if (logrep_log_open(conf, st, "p/t-0", 0, &log) == LOGREP_OK) {
        int crc = logrep_log_recovery_info(log)->recovery_point == 0;
        fz_check(log, st, crc);
        int64_t off;
        logrep_log_offset_for_time(log, 0, &off, NULL);
        logrep_log_truncate(log, logrep_log_end_offset(log) / 2);
        fz_check(log, st, crc);
        logrep_log_close(log);
        /* A second open finds what the first left: it must be clean. */
        if (logrep_log_open(conf, st, "p/t-0", 0, &log) == LOGREP_OK) {
            fz_check(log, st, crc);
            logrep_log_close(log);
        } else {
            abort();
        }
    }
    logrep_conf_free(conf);
    logrep_storage_free(st);
    return 0;
}
