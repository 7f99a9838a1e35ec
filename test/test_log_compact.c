/* Log compaction (docs/storage.md, Compaction): what a pass keeps, the
 * directory it leaves, passes over many calls and several maps, aborts,
 * producer state, every codec, the configuration, followers, and power
 * loss at every write and sync of a pass. */
#include "log_testutil.h"

#include "base/endian.h"

#define CT_DIR "d/kv-0"
#define CT_KEYS 40

static logrep_storage *ct_st;
static logrep_conf *ct_conf;

static void ct_setup(void)
{
    cr_assert_eq(logrep_storage_memory_new(NULL, &ct_st), 0);
    cr_assert_eq(ct_st->mkdir(ct_st->ctx, "d"), 0);
    ct_conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(ct_conf, "cleanup.policy", "compact", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(ct_conf, "segment.bytes", "1200", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(ct_conf, "index.interval.bytes", "100", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(ct_conf, "min.cleanable.dirty.ratio", "0", NULL, 0), 0);
}

static void ct_teardown(void)
{
    logrep_storage_free(ct_st);
    logrep_conf_free(ct_conf);
}

static void ct_set(const char *k, const char *v)
{
    cr_assert_eq(logrep_conf_set(ct_conf, k, v, NULL, 0), 0);
}

static logrep_log *ct_open(void)
{
    logrep_log *log;
    logrep_err err = logrep_log_open(ct_conf, ct_st, CT_DIR, 0, &log);
    cr_assert_eq(err, 0, "open: %s", logrep_err_name(err));
    return log;
}

/* ---- batches of keyed records ---- */

typedef struct ct_rec {
    int64_t offset;
    int key;      /* -1: no key */
    int value;    /* -1: tombstone */
} ct_rec;

/* A batch of n records (key k[i], value v[i]: "v<value>", -1 a
 * tombstone) at timestamps ts..; malloc'd. */
static uint8_t *ct_batch(const int *k, const int *v, int n, int64_t ts, int codec, int64_t pid,
                         int32_t seq, size_t *len)
{
    logrep_batch_builder *b;
    cr_assert_eq(logrep_batch_builder_new(NULL, &b), 0);
    if (codec)
        cr_assert_eq(logrep_batch_builder_set_compression(b, codec, 0), 0);
    if (pid >= 0)
        cr_assert_eq(logrep_batch_builder_set_producer(b, pid, 0, seq), 0);
    for (int i = 0; i < n; i++) {
        char key[16], val[48];
        int kl = snprintf(key, sizeof key, "key-%d", k[i]);
        int vl = snprintf(val, sizeof val, "value-%d-padding-padding", v[i]);
        logrep_header hd = {(const uint8_t *)"h", 1, (const uint8_t *)"x", 1};
        cr_assert_eq(logrep_batch_builder_add(b, ts + i, k[i] < 0 ? NULL : key, k[i] < 0 ? -1 : kl,
                                              v[i] < 0 ? NULL : val, v[i] < 0 ? -1 : vl, &hd, 1),
                     0);
    }
    const uint8_t *out;
    cr_assert_eq(logrep_batch_builder_finish(b, &out, len), 0);
    uint8_t *copy = malloc(*len);
    memcpy(copy, out, *len);
    logrep_batch_builder_free(b);
    return copy;
}

static int64_t ct_append(logrep_log *log, const int *k, const int *v, int n, int64_t ts)
{
    size_t len;
    uint8_t *b = ct_batch(k, v, n, ts, 0, -1, -1, &len);
    logrep_log_append_info info;
    logrep_err err = logrep_log_append_leader(log, b, len, 0, ts, &info);
    free(b);
    cr_assert_eq(err, 0, "append: %s", logrep_err_name(err));
    return info.first_offset;
}

static int ct_parse_int(const uint8_t *p, int32_t len, const char *prefix)
{
    size_t pl = strlen(prefix);
    char buf[64];
    cr_assert(len >= (int32_t)pl && len < (int32_t)sizeof buf);
    memcpy(buf, p, (size_t)len);
    buf[len] = 0;
    return atoi(buf + pl);
}

/* Every record of the log, in offset order, into out (cap); checks that
 * every batch verifies and offsets increase. Returns the count. */
static int ct_read_all(logrep_log *log, const logrep_storage *st, ct_rec *out, int cap,
                       int *empty_batches)
{
    int64_t off = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    int n = 0;
    if (empty_batches)
        *empty_batches = 0;
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), 0);
    int64_t prev = -1;
    while (off < end) {
        logrep_log_slice sl;
        logrep_err err = logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &sl);
        cr_assert_eq(err, 0, "read at %lld: %s", (long long)off, logrep_err_name(err));
        if (!sl.length)
            break;
        uint8_t *buf = malloc(sl.length);
        size_t got;
        cr_assert_eq(st->read(st->ctx, sl.file, sl.position, buf, sl.length, &got), 0);
        cr_assert_eq(got, sl.length);
        for (size_t pos = 0; pos < got;) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_reader_open(r, buf + pos, got - pos, &h), 0);
            if (!h.record_count && empty_batches)
                (*empty_batches)++;
            logrep_record rec;
            while ((err = logrep_batch_reader_next(r, &rec)) == 0) {
                if (rec.offset < logrep_log_start_offset(log))
                    continue; /* a batch straddling the log start */
                cr_assert_gt(rec.offset, prev);
                prev = rec.offset;
                cr_assert_lt(n, cap);
                out[n].offset = rec.offset;
                out[n].key = rec.key ? ct_parse_int(rec.key, rec.key_len, "key-") : -1;
                out[n].value = rec.value ? ct_parse_int(rec.value, rec.value_len, "value-") : -1;
                n++;
            }
            cr_assert_eq(err, LOGREP_ERR__END);
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        off = sl.next_offset;
        free(buf);
    }
    logrep_batch_reader_free(r);
    return n;
}

/* Runs passes until none is due, `budget` bytes a call. */
static int ct_clean(logrep_log *log, int64_t now, int64_t limit, uint64_t budget, int flags)
{
    int more = 1, calls = 0;
    while (more) {
        logrep_err err = logrep_log_clean(log, now, limit, budget, flags, &more);
        cr_assert_eq(err, 0, "clean: %s", logrep_err_name(err));
        cr_assert_lt(++calls, 100000);
    }
    return calls;
}

/* The model's survivors: per key the latest record (of `all`, n). */
static int ct_latest(const ct_rec *all, int n, ct_rec *out, int drop_tombstones)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int later = 0;
        for (int j = i + 1; j < n && !later; j++)
            later = all[j].key == all[i].key;
        if (!later && !(drop_tombstones && all[i].value < 0))
            out[m++] = all[i];
    }
    return m;
}

static void ct_expect(const ct_rec *got, int ng, const ct_rec *want, int nw, const char *what)
{
    if (getenv("CT_DEBUG"))
        for (int i = 0; i < (ng > nw ? ng : nw); i++)
            fprintf(stderr, "%s %d: got %lld/%d/%d want %lld/%d/%d\n", what, i,
                    i < ng ? (long long)got[i].offset : -1LL, i < ng ? got[i].key : -9,
                    i < ng ? got[i].value : -9, i < nw ? (long long)want[i].offset : -1LL,
                    i < nw ? want[i].key : -9, i < nw ? want[i].value : -9);
    cr_assert_eq(ng, nw, "%s: %d records, want %d", what, ng, nw);
    for (int i = 0; i < nw; i++) {
        cr_assert_eq(got[i].offset, want[i].offset, "%s: record %d offset", what, i);
        cr_assert_eq(got[i].key, want[i].key, "%s: record %d key", what, i);
        cr_assert_eq(got[i].value, want[i].value, "%s: record %d value", what, i);
    }
}

static int ct_has_file_in(const logrep_storage *st, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, CT_DIR "/%s", name);
    return lt_file_size(st, path) >= 0;
}

static int ct_has_file(const char *name)
{
    return ct_has_file_in(ct_st, name);
}

typedef struct ct_names {
    char names[64][64];
    int n;
} ct_names;

static int ct_list_fn(void *ctx, const char *name)
{
    ct_names *l = ctx;
    if (l->n < 64)
        snprintf(l->names[l->n++], 64, "%s", name);
    return 0;
}

/* ---- golden ---- */

TestSuite(log_compact, .init = ct_setup, .fini = ct_teardown);

Test(log_compact, golden_layout_latest_values_and_tombstones)
{
    ct_set("delete.retention.ms", "1000");
    logrep_log *log = ct_open();
    ct_rec all[64];
    int n = 0;
    /* Three rounds over keys 0..5; key 2's last word is a tombstone. */
    for (int round = 0; round < 3; round++) {
        int k[6], v[6];
        for (int i = 0; i < 6; i++) {
            k[i] = i;
            v[i] = round == 2 && i == 2 ? -1 : round * 10 + i;
        }
        int64_t base = ct_append(log, k, v, 6, 100 + round);
        for (int i = 0; i < 6; i++)
            all[n++] = (ct_rec){base + i, k[i], v[i]};
        cr_assert_eq(logrep_log_roll(log, 200), 0);
    }
    int64_t leo = logrep_log_end_offset(log);
    cr_assert_eq(logrep_log_segment_count(log), 4);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.compact, 1);
    cr_assert_eq(cs.first_dirty_offset, 0);
    cr_assert_eq(cs.clean_bytes, 0);
    cr_assert_gt(cs.dirty_bytes, 0);
    cr_assert_float_eq(cs.dirty_ratio, 1.0, 1e-9);
    cr_assert_eq(cs.last_pass_start_ms, -1);

    ct_clean(log, 500, INT64_MAX, 1 << 20, 0);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.passes, 1);
    cr_assert_eq(cs.in_pass, 0);
    cr_assert_eq(cs.first_dirty_offset, leo);
    cr_assert_eq(cs.records_removed, 12);
    cr_assert_eq(cs.last_pass_start_ms, 500);
    cr_assert_eq(cs.map_bytes, 0);
    cr_assert_gt(cs.bytes_read, cs.bytes_written);
    cr_assert_eq(logrep_log_end_offset(log), leo);
    cr_assert_eq(logrep_log_start_offset(log), 0);
    /* The three closed segments became one, named by the first base. */
    cr_assert_eq(logrep_log_segment_count(log), 2);

    ct_rec got[64], want[64];
    int ng = ct_read_all(log, ct_st, got, 64, NULL);
    int nw = ct_latest(all, n, want, 0);
    ct_expect(got, ng, want, nw, "after the pass");
    cr_assert_eq(logrep_log_close(log), 0);

    /* Kafka's names only; nothing temporary left. */
    ct_names l = {0};
    cr_assert_eq(ct_st->list(ct_st->ctx, CT_DIR, ct_list_fn, &l), 0);
    for (int i = 0; i < l.n; i++)
        cr_assert(!strstr(l.names[i], ".cleaned") && !strstr(l.names[i], ".swap") &&
                      !strstr(l.names[i], ".deleted") && strcmp(l.names[i], "cleaner-swap"),
                  "%s", l.names[i]);
    cr_assert(ct_has_file("00000000000000000000.log"));
    cr_assert(ct_has_file("00000000000000000000.index"));
    cr_assert(ct_has_file("00000000000000000000.timeindex"));
    cr_assert(!ct_has_file("00000000000000000006.log"));
    cr_assert(!ct_has_file("00000000000000000012.log"));
    size_t clen;
    char *ck = (char *)lt_read(ct_st, CT_DIR "/cleaner-offset-checkpoint", &clen);
    cr_assert_not_null(ck);
    cr_assert_str_eq(ck, "0\n1\nkv 0 18\n");
    free(ck);

    /* Reopen: nothing to fix. */
    log = ct_open();
    cr_assert(logrep_log_recovery_info(log)->clean);
    cr_assert_eq(logrep_log_recovery_info(log)->segments_recovered, 0);
    ng = ct_read_all(log, ct_st, got, 64, NULL);
    ct_expect(got, ng, want, nw, "reopened");
    logrep_log_abandon(log);

    /* A full recovery rebuilds the same offset index. */
    size_t ilen, ilen2;
    uint8_t *idx = lt_read(ct_st, CT_DIR "/00000000000000000000.index", &ilen);
    ct_st->remove(ct_st->ctx, CT_DIR "/recovery-point-offset-checkpoint");
    log = ct_open();
    cr_assert_gt(logrep_log_recovery_info(log)->segments_recovered, 0);
    cr_assert_eq(logrep_log_recovery_info(log)->bytes_truncated, 0);
    uint8_t *idx2 = lt_read(ct_st, CT_DIR "/00000000000000000000.index", &ilen2);
    cr_assert_eq(ilen, ilen2);
    cr_assert_eq(memcmp(idx, idx2, ilen), 0);
    free(idx);
    free(idx2);

    /* Before the horizon a later pass keeps the tombstone... */
    int k1 = 7, v1 = 1;
    all[n++] = (ct_rec){ct_append(log, &k1, &v1, 1, 600), 7, 1};
    cr_assert_eq(logrep_log_roll(log, 600), 0);
    ct_clean(log, 1400, INT64_MAX, 1 << 20, 0);
    ng = ct_read_all(log, ct_st, got, 64, NULL);
    nw = ct_latest(all, n, want, 0);
    ct_expect(got, ng, want, nw, "before the horizon");
    /* ...and one past it (500 + 1000) drops it. */
    v1 = 2;
    all[n++] = (ct_rec){ct_append(log, &k1, &v1, 1, 1600), 7, 2};
    cr_assert_eq(logrep_log_roll(log, 1600), 0);
    ct_clean(log, 1600, INT64_MAX, 1 << 20, 0);
    ng = ct_read_all(log, ct_st, got, 64, NULL);
    nw = ct_latest(all, n, want, 1);
    ct_expect(got, ng, want, nw, "past the horizon");
    cr_assert_eq(logrep_log_close(log), 0);
}

Test(log_compact, active_segment_limit_and_min_lag_are_left_alone)
{
    logrep_log *log = ct_open();
    int k[2] = {1, 1}, v[2] = {1, 2};
    ct_append(log, k, v, 2, 100);
    ct_rec got[8];
    /* Only the active segment: nothing is cleanable. */
    int more;
    cr_assert_eq(logrep_log_clean(log, 1000, INT64_MAX, 1000, 0, &more), 0);
    cr_assert_eq(more, 0);
    cr_assert_eq(ct_read_all(log, ct_st, got, 8, NULL), 2);
    cr_assert_eq(logrep_log_roll(log, 100), 0);
    /* Below the limit only. */
    cr_assert_eq(logrep_log_clean(log, 1000, 1, 1000, 0, &more), 0);
    cr_assert_eq(ct_read_all(log, ct_st, got, 8, NULL), 2);
    /* Younger than min.compaction.lag.ms. */
    ct_set("min.compaction.lag.ms", "5000");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), 0);
    cr_assert_eq(logrep_log_clean(log, 1000, INT64_MAX, 1000, 0, &more), 0);
    cr_assert_eq(ct_read_all(log, ct_st, got, 8, NULL), 2);
    cr_assert_eq(logrep_log_clean(log, 6000, INT64_MAX, 1000, 0, &more), 0);
    cr_assert_eq(ct_read_all(log, ct_st, got, 8, NULL), 1);
    cr_assert_eq(got[0].offset, 1);
    logrep_log_close(log);
}

Test(log_compact, dirty_ratio_and_max_lag_start_a_pass)
{
    ct_set("min.cleanable.dirty.ratio", "0.9");
    ct_set("max.compaction.lag.ms", "10000");
    logrep_log *log = ct_open();
    int k[3] = {1, 2, 3}, v[3] = {1, 1, 1};
    ct_append(log, k, v, 3, 100);
    cr_assert_eq(logrep_log_roll(log, 100), 0);
    ct_clean(log, 200, INT64_MAX, 1 << 20, 0);
    k[0] = 1, v[0] = 2;
    ct_append(log, k, v, 1, 300);
    cr_assert_eq(logrep_log_roll(log, 300), 0);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_lt(cs.dirty_ratio, 0.9);
    int more;
    cr_assert_eq(logrep_log_clean(log, 400, INT64_MAX, 1 << 20, 0, &more), 0);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.passes, 1, "ratio below the minimum: no pass");
    /* The dirty record is older than max.compaction.lag.ms: cleaned. */
    ct_clean(log, 300 + 10001, INT64_MAX, 1 << 20, 0);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.passes, 2);
    /* FORCE cleans whatever the ratio. */
    ct_append(log, k, v, 1, 20000);
    cr_assert_eq(logrep_log_roll(log, 20000), 0);
    ct_clean(log, 20001, INT64_MAX, 1 << 20, LOGREP_CLEAN_FORCE);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.passes, 3);
    logrep_log_close(log);
}

/* ---- random workloads against the model ---- */

typedef struct ct_model {
    ct_rec *all;
    int n, cap;
} ct_model;

static void ct_model_add(ct_model *m, ct_rec r)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->all = realloc(m->all, (size_t)m->cap * sizeof *m->all);
    }
    m->all[m->n++] = r;
}

/* What the log holds now is a subsequence of what was written, holding
 * every key's latest record. */
static void ct_check_partial(logrep_log *log, const ct_model *m, const char *what)
{
    ct_rec *got = malloc((size_t)(m->n + 1) * sizeof *got);
    ct_rec *want = malloc((size_t)(m->n + 1) * sizeof *want);
    int ng = ct_read_all(log, ct_st, got, m->n + 1, NULL);
    int j = 0;
    for (int i = 0; i < ng; i++) {
        while (j < m->n && m->all[j].offset < got[i].offset)
            j++;
        cr_assert(j < m->n && m->all[j].offset == got[i].offset && m->all[j].key == got[i].key &&
                      m->all[j].value == got[i].value,
                  "%s: record at %lld was never written so", what, (long long)got[i].offset);
    }
    int nw = ct_latest(m->all, m->n, want, 0);
    for (int i = 0, g = 0; i < nw; i++) {
        while (g < ng && got[g].offset < want[i].offset)
            g++;
        cr_assert(g < ng && got[g].offset == want[i].offset, "%s: latest of key %d lost", what,
                  want[i].key);
    }
    free(got);
    free(want);
}

static void ct_random(uint32_t seed, const char *dedupe, uint64_t budget)
{
    ct_set("log.cleaner.dedupe.buffer.size", dedupe);
    srand(seed);
    logrep_log *log = ct_open();
    ct_model m = {0};
    int64_t now = 1000, hw = 0;
    int aborts = 0;
    for (int step = 0; step < 260; step++) {
        int op = rand() % 20;
        now += 10;
        if (op < 12) {
            int k[6], v[6], n = 1 + rand() % 6;
            for (int i = 0; i < n; i++) {
                k[i] = rand() % CT_KEYS;
                v[i] = rand() % 10 == 0 ? -1 : step * 10 + i;
            }
            int64_t base = ct_append(log, k, v, n, now);
            for (int i = 0; i < n; i++)
                ct_model_add(&m, (ct_rec){base + i, k[i], v[i]});
        } else if (op < 14) {
            cr_assert_eq(logrep_log_roll(log, now), 0);
        } else if (op < 18) {
            int more;
            cr_assert_eq(logrep_log_clean(log, now, hw, budget, 0, &more), 0);
        } else if (op == 18) {
            ct_check_partial(log, &m, "mid-run");
            cr_assert_eq(logrep_log_close(log), 0);
            log = ct_open();
            cr_assert(logrep_log_recovery_info(log)->clean);
        } else if (rand() % 2) {
            /* A follower's truncation, never below the high watermark
             * the cleaner is held under. */
            int64_t leo = logrep_log_end_offset(log);
            int64_t cut = hw + rand() % (leo - hw + 1);
            cr_assert_eq(logrep_log_truncate(log, cut), 0);
            /* The batch holding the cut goes whole. */
            while (m.n && m.all[m.n - 1].offset >= logrep_log_end_offset(log))
                m.n--;
            if (hw > logrep_log_end_offset(log))
                hw = logrep_log_end_offset(log);
        } else if (m.n) {
            /* DeleteRecords: the log start moves, aborting a pass under it. */
            int64_t start = m.all[rand() % (m.n / 4 + 1)].offset;
            if (start > hw)
                start = hw;
            logrep_log_cleaner_stats cs;
            logrep_log_cleaner_info(log, &cs);
            int32_t segs = logrep_log_segment_count(log);
            cr_assert_eq(logrep_log_advance_start(log, start), 0);
            int kept = 0;
            for (int i = 0; i < m.n; i++)
                if (m.all[i].offset >= logrep_log_start_offset(log))
                    m.all[kept++] = m.all[i];
            m.n = kept;
            logrep_log_cleaner_stats after;
            logrep_log_cleaner_info(log, &after);
            if (cs.in_pass && logrep_log_segment_count(log) < segs) {
                cr_assert_eq(after.in_pass, 0);
                cr_assert_eq(after.passes_aborted, cs.passes_aborted + 1);
                aborts++;
            }
        }
        if (logrep_log_end_offset(log) - 4 > hw)
            hw = logrep_log_end_offset(log) - 4;
        if (getenv("CT_DEBUG"))
            fprintf(stderr, "step %d op %d start %lld end %lld hw %lld model %d segs %d\n", step,
                    op, (long long)logrep_log_start_offset(log),
                    (long long)logrep_log_end_offset(log), (long long)hw, m.n,
                    logrep_log_segment_count(log));
        ct_check_partial(log, &m, "step");
    }
    if (getenv("CT_DEBUG"))
        fprintf(stderr, "seed %u: %d aborts\n", seed, aborts);
    /* Everything cleanable, cleaned: exactly the latest record per key. */
    cr_assert_eq(logrep_log_roll(log, now), 0);
    ct_clean(log, now, INT64_MAX, budget, LOGREP_CLEAN_FORCE);
    ct_rec *got = malloc((size_t)(m.n + 1) * sizeof *got);
    ct_rec *want = malloc((size_t)(m.n + 1) * sizeof *want);
    int ng = ct_read_all(log, ct_st, got, m.n + 1, NULL);
    int nw = ct_latest(m.all, m.n, want, 0);
    ct_expect(got, ng, want, nw, "final");
    cr_assert_eq(logrep_log_close(log), 0);
    log = ct_open();
    ng = ct_read_all(log, ct_st, got, m.n + 1, NULL);
    ct_expect(got, ng, want, nw, "final reopened");
    logrep_log_close(log);
    free(got);
    free(want);
    free(m.all);
}

Test(log_compact, random_against_model)
{
    for (uint32_t seed = 1; seed <= 3; seed++) {
        ct_teardown();
        ct_setup();
        ct_random(seed, "134217728", 1 << 20);
    }
}

Test(log_compact, random_tiny_map_and_budget)
{
    for (uint32_t seed = 11; seed <= 13; seed++) {
        ct_teardown();
        ct_setup();
        /* 1024 bytes: 42 slots, 37 keys a pass, fewer than CT_KEYS. */
        ct_random(seed, "1024", 150);
    }
}

Test(log_compact, retention_and_advance_start_abort_a_pass)
{
    logrep_log *log = ct_open();
    for (int i = 0; i < 12; i++) {
        int k[4] = {0, 1, 2, 3}, v[4] = {i, i, i, i};
        ct_append(log, k, v, 4, 100 + i);
        cr_assert_eq(logrep_log_roll(log, 100 + i), 0);
    }
    int more;
    cr_assert_eq(logrep_log_clean(log, 500, INT64_MAX, 1, 0, &more), 0);
    cr_assert_eq(more, 1);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.in_pass, 1);
    cr_assert_gt(cs.map_bytes, 0);
    /* Run into the rewrite, so temporary files exist. */
    for (int i = 0; i < 100 && !ct_has_file("00000000000000000000.log.cleaned"); i++)
        cr_assert_eq(logrep_log_clean(log, 500, INT64_MAX, 1, 0, &more), 0);
    cr_assert(ct_has_file("00000000000000000000.log.cleaned"));
    cr_assert_eq(logrep_log_advance_start(log, 5), 0);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.in_pass, 0);
    cr_assert_eq(cs.passes_aborted, 1);
    cr_assert(!ct_has_file("00000000000000000000.log.cleaned"));
    ct_clean(log, 600, INT64_MAX, 64, 0);
    ct_rec got[64];
    int ng = ct_read_all(log, ct_st, got, 64, NULL);
    cr_assert_eq(ng, 4);
    cr_assert_eq(got[0].value, 11);
    logrep_log_close(log);
}

Test(log_compact, truncation_under_a_pass_aborts_it)
{
    logrep_log *log = ct_open();
    for (int i = 0; i < 6; i++) {
        int k[4] = {0, 1, 2, 3}, v[4] = {i, i, i, i};
        ct_append(log, k, v, 4, 100 + i);
        cr_assert_eq(logrep_log_roll(log, 100 + i), 0);
    }
    int more;
    for (int i = 0; i < 100 && !ct_has_file("00000000000000000000.log.cleaned"); i++)
        cr_assert_eq(logrep_log_clean(log, 500, INT64_MAX, 1, 0, &more), 0);
    cr_assert(ct_has_file("00000000000000000000.log.cleaned"));
    cr_assert_eq(logrep_log_truncate(log, 10), 0);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.in_pass, 0);
    cr_assert_eq(cs.passes_aborted, 1);
    cr_assert_eq(cs.passes, 0);
    cr_assert(!ct_has_file("00000000000000000000.log.cleaned"));
    cr_assert(!ct_has_file("00000000000000000000.index.cleaned"));
    ct_rec got[32];
    cr_assert_eq(ct_read_all(log, ct_st, got, 32, NULL), 8, "the batch holding 10 went whole");
    cr_assert_eq(logrep_log_roll(log, 600), 0);
    ct_clean(log, 600, INT64_MAX, 1 << 20, LOGREP_CLEAN_FORCE);
    cr_assert_eq(ct_read_all(log, ct_st, got, 32, NULL), 4);
    cr_assert_eq(got[0].offset, 4);
    logrep_log_close(log);
}

/* ---- producer state ---- */

Test(log_compact, producer_last_batch_survives_empty)
{
    logrep_log *log = ct_open();
    size_t len;
    int k[2] = {1, 2}, v[2] = {1, 1};
    uint8_t *b = ct_batch(k, v, 2, 100, 0, 7, 0, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, NULL), 0);
    free(b);
    v[0] = v[1] = 2;
    b = ct_batch(k, v, 2, 101, 0, 7, 2, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 101, NULL), 0);
    free(b);
    v[0] = v[1] = 3;
    ct_append(log, k, v, 2, 102); /* no producer: supersedes both */
    cr_assert_eq(logrep_log_roll(log, 103), 0);
    ct_clean(log, 200, INT64_MAX, 1 << 20, 0);
    int empty;
    ct_rec got[8];
    cr_assert_eq(ct_read_all(log, ct_st, got, 8, &empty), 2);
    cr_assert_eq(empty, 1, "the producer's last batch stays, empty");
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(log, 0, 1 << 20, INT64_MAX, 1, &sl), 0);
    cr_assert_eq(sl.first_offset, 2);
    uint8_t h61[61];
    size_t n;
    cr_assert_eq(ct_st->read(ct_st->ctx, sl.file, sl.position, h61, 61, &n), 0);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_header_parse(h61, 61, &h), 0);
    cr_assert_eq(h.record_count, 0);
    cr_assert_eq(h.last_offset_delta, 1);
    cr_assert_eq(h.base_sequence, 2);
    cr_assert_eq(h.producer_id, 7);
    cr_assert_eq(h.batch_length + 12, 61);
    cr_assert_eq(logrep_batch_verify(h61, 61, NULL), 0);
    cr_assert_eq(logrep_log_close(log), 0);
    /* Without snapshots the state comes back from the batches. */
    ct_names l = {0};
    cr_assert_eq(ct_st->list(ct_st->ctx, CT_DIR, ct_list_fn, &l), 0);
    for (int i = 0; i < l.n; i++)
        if (strstr(l.names[i], ".snapshot")) {
            char path[128];
            snprintf(path, sizeof path, CT_DIR "/%s", l.names[i]);
            ct_st->remove(ct_st->ctx, path);
        }
    log = ct_open();
    logrep_producer_entry pe;
    cr_assert_eq(logrep_log_producer(log, 7, &pe), 0);
    cr_assert_eq(pe.last_sequence, 3);
    cr_assert_eq(pe.last_offset, 3);
    b = ct_batch(k, v, 2, 300, 0, 7, 4, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 300, NULL), 0);
    free(b);
    cr_assert_eq(logrep_log_producer(log, 7, &pe), 0);
    cr_assert_eq(pe.last_sequence, 5);
    logrep_log_close(log);
}

/* ---- codecs ---- */

Test(log_compact, compressed_batches_rebuilt_with_their_codec)
{
    static const int codecs[] = {LOGREP_COMPRESSION_GZIP, LOGREP_COMPRESSION_SNAPPY,
                                 LOGREP_COMPRESSION_LZ4, LOGREP_COMPRESSION_ZSTD};
    for (int c = 0; c < 4; c++) {
        ct_teardown();
        ct_setup();
        logrep_log *log = ct_open();
        ct_rec all[32];
        int n = 0;
        for (int round = 0; round < 3; round++) {
            int k[5] = {0, 1, 2, 3, round + 4}, v[5];
            for (int i = 0; i < 5; i++)
                v[i] = i == 3 && round == 1 ? -1 : round * 10 + i;
            size_t len;
            uint8_t *b = ct_batch(k, v, 5, 100 + round, codecs[c], -1, -1, &len);
            logrep_log_append_info info;
            cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, &info), 0);
            free(b);
            for (int i = 0; i < 5; i++)
                all[n++] = (ct_rec){info.first_offset + i, k[i], v[i]};
        }
        cr_assert_eq(logrep_log_roll(log, 200), 0);
        ct_clean(log, 300, INT64_MAX, 1 << 20, 0);
        ct_rec got[32], want[32];
        int ng = ct_read_all(log, ct_st, got, 32, NULL);
        ct_expect(got, ng, want, ct_latest(all, n, want, 0), logrep_compression_name(codecs[c]));
        /* Every batch kept its codec. */
        logrep_log_slice sl;
        cr_assert_eq(logrep_log_read(log, 0, 1 << 20, INT64_MAX, 1, &sl), 0);
        uint8_t *buf = malloc(sl.length);
        size_t got_len;
        cr_assert_eq(ct_st->read(ct_st->ctx, sl.file, sl.position, buf, sl.length, &got_len), 0);
        for (size_t pos = 0; pos < got_len;) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_header_parse(buf + pos, got_len - pos, &h), 0);
            cr_assert_eq(h.attributes & LOGREP_ATTR_COMPRESSION_MASK, codecs[c]);
            pos += (size_t)h.batch_length + 12;
        }
        free(buf);
        logrep_log_close(log);
    }
}

/* ---- configuration, validation, followers ---- */

Test(log_compact, config_policy_words)
{
    logrep_log *log;
    ct_set("cleanup.policy", "compact,shred");
    cr_assert_eq(logrep_log_open(ct_conf, ct_st, CT_DIR, 0, &log), LOGREP_ERR__INVALID_ARG);
    ct_set("cleanup.policy", " compact , delete ");
    log = ct_open();
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.compact, 1);
    ct_set("cleanup.policy", "delete,,compact");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), LOGREP_ERR__INVALID_ARG);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.compact, 1, "a refused change changes nothing");
    ct_set("cleanup.policy", "delete");
    ct_set("min.cleanable.dirty.ratio", "1.5");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), LOGREP_ERR__INVALID_ARG);
    ct_set("min.cleanable.dirty.ratio", "0.25");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), 0);
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.compact, 0);
    logrep_log_close(log);
}

Test(log_compact, compact_policy_keeps_what_retention_would_delete)
{
    ct_set("retention.ms", "10");
    ct_set("retention.bytes", "10");
    logrep_log *log = ct_open();
    int k = 1, v = 1;
    for (int i = 0; i < 3; i++) {
        ct_append(log, &k, &v, 1, 100);
        cr_assert_eq(logrep_log_roll(log, 100), 0);
    }
    int32_t deleted;
    cr_assert_eq(logrep_log_retention(log, 100000, &deleted), 0);
    cr_assert_eq(deleted, 0);
    ct_set("cleanup.policy", "compact,delete");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), 0);
    cr_assert_eq(logrep_log_retention(log, 100000, &deleted), 0);
    cr_assert_eq(deleted, 3);
    logrep_log_close(log);
}

Test(log_compact, segment_rolls_at_max_compaction_lag)
{
    ct_set("segment.bytes", "1000000");
    ct_set("max.compaction.lag.ms", "50");
    logrep_log *log = ct_open();
    int k = 1, v = 1;
    ct_append(log, &k, &v, 1, 100);
    ct_append(log, &k, &v, 1, 140);
    cr_assert_eq(logrep_log_segment_count(log), 1);
    ct_append(log, &k, &v, 1, 160);
    cr_assert_eq(logrep_log_segment_count(log), 2);
    logrep_log_close(log);
}

Test(log_compact, null_key_refused_on_compact)
{
    logrep_log *log = ct_open();
    int k[2] = {1, -1}, v[2] = {1, 2};
    size_t len;
    uint8_t *b = ct_batch(k, v, 2, 100, 0, -1, -1, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, NULL), LOGREP_ERR_INVALID_RECORD);
    cr_assert_eq(logrep_log_end_offset(log), 0);
    ct_set("cleanup.policy", "delete");
    cr_assert_eq(logrep_log_reconfigure(log, ct_conf), 0);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, NULL), 0);
    free(b);
    logrep_log_close(log);
}

Test(log_compact, follower_takes_compacted_batches)
{
    ct_set("delete.retention.ms", "100000");
    logrep_log *log = ct_open();
    size_t len;
    int k[3] = {1, 2, 3}, v[3] = {1, -1, 1};
    uint8_t *b = ct_batch(k, v, 3, 100, 0, 9, 0, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100, NULL), 0);
    free(b);
    int k2[3] = {1, 3, 4}, v2[3] = {2, 2, 2};
    ct_append(log, k2, v2, 3, 101);
    int k3[1] = {4}, v3[1] = {3};
    b = ct_batch(k3, v3, 1, 102, 0, -1, -1, &len);
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 102, NULL), 0);
    free(b);
    v3[0] = 4;
    ct_append(log, k3, v3, 1, 103);
    cr_assert_eq(logrep_log_roll(log, 104), 0);
    ct_clean(log, 200, INT64_MAX, 1 << 20, 0);
    /* The leader's log now has a batch with fewer records than offsets
     * (delete horizon set: its tombstone), and a gap (offset 6 went). */
    logrep_log_slice sl;
    cr_assert_eq(logrep_log_read(log, 0, 1 << 20, INT64_MAX, 1, &sl), 0);
    uint8_t *buf = malloc(sl.length);
    size_t n;
    cr_assert_eq(ct_st->read(ct_st->ctx, sl.file, sl.position, buf, sl.length, &n), 0);
    logrep_batch_header h;
    cr_assert_eq(logrep_batch_header_parse(buf, n, &h), 0);
    cr_assert_eq(h.record_count, 1);
    cr_assert_eq(h.last_offset_delta, 2);
    cr_assert(h.attributes & LOGREP_ATTR_DELETE_HORIZON);
    cr_assert_eq(h.base_timestamp, 200 + 100000);
    logrep_log *f;
    cr_assert_eq(logrep_log_open(ct_conf, ct_st, "d/kv-1", 0, &f), 0);
    cr_assert_eq(logrep_log_append_follower(f, buf, n, 300, NULL), 0);
    cr_assert_eq(logrep_log_end_offset(f), 8);
    ct_rec a[16], c[16];
    int na = ct_read_all(log, ct_st, a, 16, NULL);
    int nc = ct_read_all(f, ct_st, c, 16, NULL);
    ct_expect(c, nc, a, na, "follower");
    /* The record keeps its timestamp under the horizon. */
    cr_assert_eq(logrep_log_close(f), 0);
    cr_assert_eq(logrep_log_open(ct_conf, ct_st, "d/kv-1", 0, &f), 0);
    nc = ct_read_all(f, ct_st, c, 16, NULL);
    ct_expect(c, nc, a, na, "follower reopened");
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), 0);
    cr_assert_eq(logrep_batch_reader_open(r, buf, n, NULL), 0);
    logrep_record rec;
    cr_assert_eq(logrep_batch_reader_next(r, &rec), 0);
    cr_assert_eq(rec.offset, 1);
    cr_assert_eq(rec.timestamp, 101);
    cr_assert_null(rec.value);
    logrep_batch_reader_free(r);
    /* An empty batch too. */
    uint8_t e[61];
    memcpy(e, buf, 61);
    lr_put_be64(e, 8);
    lr_put_be32(e + 8, 49);
    lr_put_be32(e + 57, 0);
    lr_put_be32(e + 17, logrep_crc32c(0, e + 21, 40));
    cr_assert_eq(logrep_log_append_follower(f, e, 61, 300, NULL), 0);
    cr_assert_eq(logrep_log_end_offset(f), 11);
    free(buf);
    logrep_log_close(f);
    logrep_log_close(log);
}

/* ---- power loss during a pass ---- */

/* A log read back after a pass was cut short: each group as before or
 * after, so every record is one written before and every record kept by
 * the whole pass is there. Returns 1 when it is exactly as after. */
static int ct_check_between(const ct_rec *got, int ng, const ct_rec *before, int nb,
                            const ct_rec *after, int na, const char *what)
{
    int is_after = ng == na;
    for (int i = 0; i < ng && is_after; i++)
        is_after = !memcmp(&got[i], &after[i], sizeof got[i]);
    for (int i = 0, j = 0; i < ng; i++) {
        while (j < nb && before[j].offset < got[i].offset)
            j++;
        cr_assert(j < nb && !memcmp(&got[i], &before[j], sizeof got[i]), "%s: record %d", what, i);
    }
    for (int i = 0, g = 0; i < na; i++) {
        while (g < ng && got[g].offset < after[i].offset)
            g++;
        cr_assert(g < ng && got[g].offset == after[i].offset, "%s: lost %lld", what,
                  (long long)after[i].offset);
    }
    return is_after;
}

static void ct_crash_setup(logrep_storage **st)
{
    cr_assert_eq(logrep_storage_crash_new(NULL, 512, st), 0);
    cr_assert_eq((*st)->mkdir((*st)->ctx, "d"), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(ct_conf, *st, CT_DIR, 0, &log), 0);
    for (int i = 0; i < 9; i++) {
        int k[4] = {i % 3, 3, 4 + i, 5}, v[4] = {i, i, i, i == 8 ? -1 : i};
        size_t len;
        uint8_t *b = ct_batch(k, v, 4, 100 + i, i % 3 ? LOGREP_COMPRESSION_LZ4 : 0, -1, -1, &len);
        cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 100 + i, NULL), 0);
        free(b);
        if (i % 2)
            cr_assert_eq(logrep_log_roll(log, 100 + i), 0);
    }
    cr_assert_eq(logrep_log_roll(log, 200), 0);
    cr_assert_eq(logrep_log_close(log), 0);
}

/* One pass without faults: the records before and after it, and the
 * storage calls of the classes in `ops` it makes. */
static uint64_t ct_baseline(uint32_t ops, ct_rec *before, int *nb, ct_rec *after, int *na)
{
    logrep_storage *st;
    ct_crash_setup(&st);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(ct_conf, st, CT_DIR, 0, &log), 0);
    *nb = ct_read_all(log, st, before, 64, NULL);
    uint64_t c0 = logrep_storage_op_count(st, ops);
    cr_assert_eq(logrep_log_clean(log, 300, INT64_MAX, UINT64_MAX, 0, NULL), 0);
    uint64_t total = logrep_storage_op_count(st, ops) - c0;
    *na = ct_read_all(log, st, after, 64, NULL);
    cr_assert_lt(*na, *nb);
    logrep_log_cleaner_stats cs;
    logrep_log_cleaner_info(log, &cs);
    cr_assert_eq(cs.passes, 1);
    cr_assert_gt(logrep_log_segment_count(log), 2, "several groups");
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_storage_free(st);
    cr_assert_gt(total, 10);
    return total;
}

Test(log_compact, power_loss_at_every_write_and_sync_of_a_pass)
{
    ct_set("segment.bytes", "700");
    const uint32_t ops = LOGREP_STORAGE_OP_WRITE | LOGREP_STORAGE_OP_SYNC |
                         LOGREP_STORAGE_OP_TRUNCATE;
    ct_rec before[64], after[64];
    int nb, na;
    uint64_t total = ct_baseline(ops, before, &nb, after, &na);
    cr_assert_gt(total, 10);
    int saw_after = 0;
    for (uint64_t k = 1; k <= total; k++) {
        for (int mode = 0; mode < 3; mode++) {
            logrep_storage *st;
            ct_crash_setup(&st);
            logrep_log *log;
            cr_assert_eq(logrep_log_open(ct_conf, st, CT_DIR, 0, &log), 0);
            logrep_storage_crash_after(st, k);
            int more;
            logrep_log_clean(log, 300, INT64_MAX, UINT64_MAX, 0, &more);
            logrep_log_abandon(log);
            cr_assert_eq(logrep_storage_crash_simulate(st, k * 3 + (uint64_t)mode, mode), 0);
            logrep_err err = logrep_log_open(ct_conf, st, CT_DIR, 0, &log);
            cr_assert_eq(err, 0, "op %llu mode %d: reopen: %s", (unsigned long long)k, mode,
                         logrep_err_name(err));
            ct_rec got[64];
            int ng = ct_read_all(log, st, got, 64, NULL);
            char what[64];
            snprintf(what, sizeof what, "crash at op %llu mode %d", (unsigned long long)k, mode);
            saw_after |= ct_check_between(got, ng, before, nb, after, na, what);
            /* The log takes appends, and a later pass gets to the end. */
            int kk = 1, vv = 99;
            size_t len;
            uint8_t *b = ct_batch(&kk, &vv, 1, 400, 0, -1, -1, &len);
            cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 400, NULL), 0, "%s", what);
            free(b);
            cr_assert_eq(logrep_log_roll(log, 400), 0);
            ct_clean(log, 400, INT64_MAX, UINT64_MAX, LOGREP_CLEAN_FORCE);
            cr_assert_eq(logrep_log_close(log), 0);
            logrep_storage_free(st);
        }
    }
    cr_assert(saw_after);
}

Test(log_compact, storage_errors_abort_the_pass)
{
    ct_set("segment.bytes", "700");
    const uint32_t ops = LOGREP_STORAGE_OP_WRITE | LOGREP_STORAGE_OP_SYNC |
                         LOGREP_STORAGE_OP_TRUNCATE | LOGREP_STORAGE_OP_META;
    ct_rec before[64], after[64];
    int nb, na;
    uint64_t total = ct_baseline(ops, before, &nb, after, &na);
    for (uint64_t k = 1; k <= total; k++) {
        logrep_storage *st;
        ct_crash_setup(&st);
        logrep_log *log;
        cr_assert_eq(logrep_log_open(ct_conf, st, CT_DIR, 0, &log), 0);
        cr_assert_eq(logrep_storage_crash_inject(st, ops, k, LOGREP_ERR__IO, 0), 0);
        logrep_err err = logrep_log_clean(log, 300, INT64_MAX, UINT64_MAX, 0, NULL);
        cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_OK, 0), 0);
        char what[48];
        snprintf(what, sizeof what, "EIO at op %llu", (unsigned long long)k);
        logrep_log_cleaner_stats cs;
        logrep_log_cleaner_info(log, &cs);
        cr_assert_eq(cs.in_pass, 0, "%s", what);
        if (err) {
            cr_assert(err == LOGREP_ERR__IO || err == LOGREP_ERR_KAFKA_STORAGE_ERROR, "%s: %s",
                      what, logrep_err_name(err));
            /* Else the pass completed and only its checkpoint failed. */
            cr_assert_eq(cs.passes_aborted + cs.passes, 1, "%s", what);
        }
        ct_rec got[64];
        int ng;
        int failed = logrep_log_roll(log, 300) == LOGREP_ERR_KAFKA_STORAGE_ERROR;
        if (!failed) {
            ng = ct_read_all(log, st, got, 64, NULL);
            ct_check_between(got, ng, before, nb, after, na, what);
            cr_assert(!ct_has_file_in(st, "00000000000000000000.log.cleaned"), "%s", what);
        }
        logrep_log_close(log);
        /* Reopened (which completes a committed swap): as before or after. */
        cr_assert_eq(logrep_log_open(ct_conf, st, CT_DIR, 0, &log), 0, "%s", what);
        ng = ct_read_all(log, st, got, 64, NULL);
        ct_check_between(got, ng, before, nb, after, na, what);
        ct_clean(log, 400, INT64_MAX, UINT64_MAX, LOGREP_CLEAN_FORCE);
        ng = ct_read_all(log, st, got, 64, NULL);
        ct_check_between(got, ng, before, nb, after, na, what);
        logrep_log_close(log);
        logrep_storage_free(st);
    }
}
