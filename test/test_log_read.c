/* logrep_log_read against a model: for random start offsets, byte limits
 * and upper offset bounds, the slice must be exactly the whole batches a
 * header-by-header scan would return (the read may jump with the offset
 * index; this checks the jump never changes the answer). */
#include "log_testutil.h"

typedef struct model_batch {
    int64_t base, last;
    uint64_t pos, size;
    int64_t seg;
} model_batch;

Test(log_read, slices_match_a_scan_model)
{
    logrep_storage *st;
    cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "segment.bytes", "400000", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(conf, "index.interval.bytes", "3000", NULL, 0), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(conf, st, "p-0", 0, &log), 0);
    model_batch m[600];
    int nb = 0;
    uint64_t x = 12345;
    int64_t seg_base = 0;
    uint64_t seg_pos = 0;
    for (int i = 0; i < 600; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int n = 1 + (int)((x >> 33) % 20);
        size_t vsize = 10 + (size_t)((x >> 40) % 2000);
        int32_t before = logrep_log_segment_count(log);
        int64_t base = lt_append(log, n, vsize, 1000 + i, 0);
        if (logrep_log_segment_count(log) != before) {
            seg_base = base;
            seg_pos = 0;
        }
        size_t len;
        uint8_t *b = lt_batch(n, vsize, 0, -1, -1, &len);
        free(b);
        m[nb++] = (model_batch){base, base + n - 1, seg_pos, len, seg_base};
        seg_pos += len;
    }
    int64_t leo = logrep_log_end_offset(log);
    for (int t = 0; t < 3000; t++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t off = (int64_t)((x >> 20) % (uint64_t)leo);
        uint64_t max_bytes = (x >> 7) % 4 == 0 ? (x >> 30) % 4096 : (x >> 30) % (600 * 1024);
        int64_t max_off = (x >> 5) % 3 == 0 ? INT64_MAX : off + (int64_t)((x >> 45) % 3000);
        int min_one = (int)((x >> 3) & 1);
        logrep_log_slice s;
        cr_assert_eq(logrep_log_read(log, off, max_bytes, max_off, min_one, &s), 0);
        /* Model: the batch holding off, then whole batches of its segment. */
        int k = 0;
        while (m[k].last < off)
            k++;
        uint64_t len = 0;
        int64_t next = off;
        int first = k;
        for (int j = k; j < nb && m[j].seg == m[first].seg; j++) {
            if (m[j].last >= max_off)
                break;
            if (len + m[j].size > max_bytes && !(min_one && j == first))
                break;
            len += m[j].size;
            next = m[j].last + 1;
        }
        cr_assert_eq(s.length, len, "off %lld max_bytes %llu max_off %lld: length %llu want %llu",
                     (long long)off, (unsigned long long)max_bytes, (long long)max_off,
                     (unsigned long long)s.length, (unsigned long long)len);
        if (len) {
            cr_assert_eq(s.position, m[first].pos);
            cr_assert_eq(s.first_offset, m[first].base);
            cr_assert_eq(s.next_offset, next);
            cr_assert_eq(s.segment_base, m[first].seg);
        }
    }
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_conf_free(conf);
    logrep_storage_free(st);
}

/* A storage that counts reads, over the memory backend. */
static const logrep_storage *counted_inner;
static int counted_reads;

static logrep_err counted_read(void *ctx, logrep_file *f, uint64_t pos, void *buf, size_t len,
                               size_t *got)
{
    counted_reads++;
    return counted_inner->read(ctx, f, pos, buf, len, got);
}

/* A fetch inside the batch just appended (a follower or a caught-up
 * consumer at the tail) is answered from what the append saw, without
 * reading the batch header back; after a truncation removes that batch,
 * reads find the batches from storage again and give the same answers. */
Test(log_read, tail_batch_is_found_without_reading_storage)
{
    logrep_storage *mem;
    cr_assert_eq(logrep_storage_memory_new(NULL, &mem), 0);
    logrep_storage st = *mem;
    st.read = counted_read;
    counted_inner = mem;
    logrep_log *log;
    cr_assert_eq(logrep_log_open(NULL, &st, "p-0", 0, &log), 0);
    uint64_t pos[8], size[8];
    for (int i = 0; i < 8; i++) {
        size_t len;
        free(lt_batch(3, 50, 0, -1, -1, &len));
        size[i] = len;
        pos[i] = i ? pos[i - 1] + size[i - 1] : 0;
        cr_assert_eq(lt_append(log, 3, 50, 1000 + i, 0), 3 * i);
        /* Every offset of the new batch, from its start. */
        for (int64_t off = 3 * i; off < 3 * i + 3; off++) {
            logrep_log_slice s;
            counted_reads = 0;
            cr_assert_eq(logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &s), 0);
            cr_assert_eq(counted_reads, 0, "offset %lld read storage", (long long)off);
            cr_assert_eq(s.position, pos[i]);
            cr_assert_eq(s.length, size[i]);
            cr_assert_eq(s.first_offset, 3 * i);
            cr_assert_eq(s.next_offset, 3 * i + 3);
        }
    }
    /* Below the tail: the batches are found in storage. */
    logrep_log_slice s;
    cr_assert_eq(logrep_log_read(log, 7, 1 << 20, INT64_MAX, 1, &s), 0);
    cr_assert_eq(s.position, pos[2]);
    cr_assert_eq(s.length, pos[7] + size[7] - pos[2]);
    /* Truncated at batch 5's start: batch 4 ends the log, and reads of it are
     * right whether or not they read storage. */
    cr_assert_eq(logrep_log_truncate(log, 15), 0);
    cr_assert_eq(logrep_log_end_offset(log), 15);
    cr_assert_eq(logrep_log_read(log, 13, 1 << 20, INT64_MAX, 1, &s), 0);
    cr_assert_eq(s.position, pos[4]);
    cr_assert_eq(s.length, size[4]);
    cr_assert_eq(s.next_offset, 15);
    cr_assert_eq(logrep_log_read(log, 15, 1 << 20, INT64_MAX, 1, &s), 0);
    cr_assert_eq(s.length, 0);
    /* A new batch where the removed ones were becomes the tail. */
    cr_assert_eq(lt_append(log, 3, 50, 2000, 1), 15);
    counted_reads = 0;
    cr_assert_eq(logrep_log_read(log, 16, 1 << 20, INT64_MAX, 1, &s), 0);
    cr_assert_eq(counted_reads, 0);
    cr_assert_eq(s.position, pos[5]);
    cr_assert_eq(s.first_offset, 15);
    cr_assert_eq(s.next_offset, 18);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_storage_free(mem);
}
