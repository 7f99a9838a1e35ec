/*
 * Golden vectors captured from real clients (librdkafka 2.0.2 and kafkajs
 * 2.2.4 against librdkafka's mock cluster; see test/vectors/README.md):
 * the batch codec must verify, decode and (where the client's encoding is
 * deterministic) re-encode them byte for byte, reject every truncation and
 * survive corruption, and place keys where the clients' murmur2
 * partitioners did.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>

#define VEC_DIR LOGREP_SRCDIR "/test/vectors"

/* ------------------------------------------------------------------ files */

typedef struct {
    uint8_t *data;
    size_t len;
} blob;

static blob read_file(const char *path) {
    blob b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert(n >= 0);
    b.data = malloc(n > 0 ? (size_t)n : 1);
    cr_assert_not_null(b.data);
    b.len = fread(b.data, 1, (size_t)n, f);
    cr_assert_eq(b.len, (size_t)n, "short read on %s", path);
    fclose(f);
    return b;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir ending with suffix; returns count, *out malloc'd. */
static size_t list_dir(const char *dir, const char *suffix, char ***out) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < sl || strcmp(e->d_name + l - sl, suffix) != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = realloc(names, cap * sizeof *names);
            cr_assert_not_null(names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    *out = names;
    return n;
}

static void free_list(char **names, size_t n) {
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* ---------------------------------------------------------------- sidecar */

typedef struct {
    uint8_t *p; /* NULL = null */
    int32_t len;
} field;

#define MAX_HDRS 8

typedef struct {
    int64_t offset;
    int64_t timestamp;
    field key, value;
    int32_t nh;
    field hk[MAX_HDRS], hv[MAX_HDRS];
} exp_record;

typedef struct {
    char name[256];
    int32_t partition, partition_count;
    int has_partitioner;
    int batches;
    size_t n;
    exp_record rec[64];
} expect;

static field parse_field(const char *tok) {
    field f = { NULL, -1 };
    if (strcmp(tok, "null") == 0) return f;
    cr_assert(strncmp(tok, "hex:", 4) == 0, "bad sidecar field %s", tok);
    const char *h = tok + 4;
    size_t l = strlen(h);
    cr_assert(l % 2 == 0);
    f.p = malloc(l / 2 + 1);
    cr_assert_not_null(f.p);
    for (size_t i = 0; i < l / 2; i++) {
        unsigned v;
        cr_assert(sscanf(h + 2 * i, "%2x", &v) == 1);
        f.p[i] = (uint8_t)v;
    }
    f.len = (int32_t)(l / 2);
    return f;
}

static void load_expect(const char *base, expect *x) {
    char path[512];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", base);
    x->partition_count = 1;
    snprintf(path, sizeof path, VEC_DIR "/batches/%s.txt", base);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "missing sidecar %s", path);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *save = NULL;
        char *tok = strtok_r(line, " ", &save);
        if (!tok || tok[0] == '#') continue;
        if (!strcmp(tok, "partition")) {
            x->partition = atoi(strtok_r(NULL, " ", &save));
        } else if (!strcmp(tok, "partition_count")) {
            x->partition_count = atoi(strtok_r(NULL, " ", &save));
        } else if (!strcmp(tok, "partitioner")) {
            x->has_partitioner = 1;
        } else if (!strcmp(tok, "batches")) {
            x->batches = atoi(strtok_r(NULL, " ", &save));
        } else if (!strcmp(tok, "record")) {
            cr_assert(x->n < sizeof x->rec / sizeof x->rec[0]);
            exp_record *r = &x->rec[x->n++];
            r->offset = strtoll(strtok_r(NULL, " ", &save), NULL, 10);
            r->timestamp = strtoll(strtok_r(NULL, " ", &save), NULL, 10);
            r->key = parse_field(strtok_r(NULL, " ", &save));
            r->value = parse_field(strtok_r(NULL, " ", &save));
            r->nh = atoi(strtok_r(NULL, " ", &save));
            cr_assert(r->nh <= MAX_HDRS);
            for (int32_t i = 0; i < r->nh; i++) {
                r->hk[i] = parse_field(strtok_r(NULL, " ", &save));
                r->hv[i] = parse_field(strtok_r(NULL, " ", &save));
            }
        }
    }
    fclose(f);
}

static void free_expect(expect *x) {
    for (size_t i = 0; i < x->n; i++) {
        free(x->rec[i].key.p);
        free(x->rec[i].value.p);
        for (int32_t h = 0; h < x->rec[i].nh; h++) {
            free(x->rec[i].hk[h].p);
            free(x->rec[i].hv[h].p);
        }
    }
}

static int field_eq(const uint8_t *p, int32_t len, field f) {
    if (f.len < 0) return len == -1 && p == NULL;
    if (len != f.len) return 0;
    return len == 0 || memcmp(p, f.p, (size_t)len) == 0;
}

/* --------------------------------------------------------------- iterator */

/* Every golden batch file: name without ".bin", bytes, and sidecar. */
typedef struct {
    char **names;
    size_t n;
} batch_files;

static batch_files golden_batches(void) {
    batch_files bf;
    bf.n = list_dir(VEC_DIR "/batches", ".bin", &bf.names);
    cr_assert(bf.n >= 10, "expected golden batch files, found %zu", bf.n);
    for (size_t i = 0; i < bf.n; i++) bf.names[i][strlen(bf.names[i]) - 4] = '\0';
    return bf;
}

static blob load_batch(const char *base) {
    char path[512];
    snprintf(path, sizeof path, VEC_DIR "/batches/%s.bin", base);
    return read_file(path);
}

static int codec_of(const logrep_batch_header *h) {
    return h->attributes & LOGREP_ATTR_COMPRESSION_MASK;
}

/* Decodes every batch of `b` and compares with the sidecar; returns the
 * number of batches. Control batches are parsed and skipped (consumers do
 * not report them). */
static int decode_and_compare(const char *name, blob b, const expect *x) {
    logrep_batch_reader *r = NULL;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    size_t pos = 0, ri = 0;
    int batches = 0;
    while (pos < b.len) {
        logrep_batch_header h;
        logrep_err err = logrep_batch_reader_open(r, b.data + pos, b.len - pos, &h);
        cr_assert_eq(err, LOGREP_OK, "%s@%zu: open: %d %s", name, pos, err,
                     logrep_batch_reader_errmsg(r));
        cr_assert_eq(logrep_batch_reader_validate(r), LOGREP_OK, "%s@%zu: validate: %s", name,
                     pos, logrep_batch_reader_errmsg(r));
        logrep_record rec;
        int32_t seen = 0;
        while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
            seen++;
            cr_assert_eq(rec.offset, h.base_offset + rec.offset_delta);
            if (h.base_sequence >= 0)
                cr_assert_eq(rec.sequence, logrep_seq_increment(h.base_sequence, rec.offset_delta));
            else
                cr_assert_eq(rec.sequence, -1);
            if (h.attributes & LOGREP_ATTR_CONTROL) {
                logrep_control c;
                cr_assert_eq(logrep_control_parse(&rec, &c), LOGREP_OK, "%s: control", name);
                cr_assert(c.type == LOGREP_CONTROL_ABORT || c.type == LOGREP_CONTROL_COMMIT,
                          "%s: control type %d", name, c.type);
                continue;
            }
            cr_assert(ri < x->n, "%s: more records than the client reported", name);
            const exp_record *e = &x->rec[ri++];
            cr_assert_eq(rec.offset, e->offset, "%s: offset %lld vs %lld", name,
                         (long long)rec.offset, (long long)e->offset);
            cr_assert_eq(rec.timestamp, e->timestamp, "%s@%lld: timestamp %lld vs %lld", name,
                         (long long)rec.offset, (long long)rec.timestamp,
                         (long long)e->timestamp);
            cr_assert(field_eq(rec.key, rec.key_len, e->key), "%s@%lld: key", name,
                      (long long)rec.offset);
            cr_assert(field_eq(rec.value, rec.value_len, e->value), "%s@%lld: value", name,
                      (long long)rec.offset);
            cr_assert_eq(rec.header_count, e->nh, "%s@%lld: header count %d vs %d", name,
                         (long long)rec.offset, rec.header_count, e->nh);
            size_t cur = 0;
            logrep_header hd;
            for (int32_t i = 0; i < e->nh; i++) {
                cr_assert_eq(logrep_record_header_next(&rec, &cur, &hd), LOGREP_OK);
                cr_assert(field_eq(hd.key, hd.key_len, e->hk[i]), "%s@%lld: header %d key", name,
                          (long long)rec.offset, i);
                cr_assert(field_eq(hd.value, hd.value_len, e->hv[i]),
                          "%s@%lld: header %d value", name, (long long)rec.offset, i);
            }
            cr_assert_eq(logrep_record_header_next(&rec, &cur, &hd), LOGREP_ERR__END);
        }
        cr_assert_eq(err, LOGREP_ERR__END, "%s@%zu: next: %d %s", name, pos, err,
                     logrep_batch_reader_errmsg(r));
        cr_assert_eq(seen, h.record_count);
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        batches++;
    }
    cr_assert_eq(ri, x->n, "%s: decoded %zu records, client reported %zu", name, ri, x->n);
    logrep_batch_reader_free(r);
    return batches;
}

/* ------------------------------------------------------------------ tests */

Test(vectors, batches_verify) {
    batch_files bf = golden_batches();
    for (size_t i = 0; i < bf.n; i++) {
        blob b = load_batch(bf.names[i]);
        size_t pos = 0;
        while (pos < b.len) {
            size_t size = 0;
            logrep_err err = logrep_batch_verify(b.data + pos, b.len - pos, &size);
            cr_assert_eq(err, LOGREP_OK, "%s@%zu: verify %d", bf.names[i], pos, err);
            cr_assert(size >= LOGREP_BATCH_HEADER_SIZE && size <= b.len - pos);
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_header_parse(b.data + pos, b.len - pos, &h), LOGREP_OK);
            cr_assert_eq(h.magic, 2);
            cr_assert_eq((size_t)h.batch_length + LOGREP_LOG_OVERHEAD, size);
            pos += size;
        }
        free(b.data);
    }
    free_list(bf.names, bf.n);
}

Test(vectors, batches_decode_match_client) {
    batch_files bf = golden_batches();
    for (size_t i = 0; i < bf.n; i++) {
        blob b = load_batch(bf.names[i]);
        expect x;
        load_expect(bf.names[i], &x);
        int count = decode_and_compare(bf.names[i], b, &x);
        cr_assert_eq(count, x.batches, "%s: %d batches, sidecar says %d", bf.names[i], count,
                     x.batches);
        free_expect(&x);
        free(b.data);
    }
    free_list(bf.names, bf.n);
}

/* Checks on what the clients put in the headers, so the vectors keep
 * covering what the README says they cover. */
Test(vectors, batch_headers_as_documented) {
    struct {
        const char *name;
        int codec;
        int idempotent;
        int transactional;
    } want[] = {
        { "librdkafka-none", 0, 0, 0 },        { "librdkafka-gzip", 1, 0, 0 },
        { "librdkafka-snappy", 2, 0, 0 },      { "librdkafka-lz4", 3, 0, 0 },
        { "librdkafka-zstd", 4, 0, 0 },        { "librdkafka-idempotent", 0, 1, 0 },
        { "librdkafka-transactional", 0, 1, 1 }, { "kafkajs-none", 0, 0, 0 },
        { "kafkajs-gzip", 1, 0, 0 },           { "kafkajs-idempotent", 0, 1, 0 },
        { "kafkajs-transactional", 0, 1, 1 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        blob b = load_batch(want[i].name);
        size_t pos = 0;
        int32_t next_seq = 0;
        while (pos < b.len) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_header_parse(b.data + pos, b.len - pos, &h), LOGREP_OK);
            cr_assert_eq(codec_of(&h), want[i].codec, "%s: codec %d", want[i].name, codec_of(&h));
            cr_assert_eq(!!(h.attributes & LOGREP_ATTR_TRANSACTIONAL), want[i].transactional,
                         "%s: transactional bit", want[i].name);
            cr_assert_eq(h.attributes & LOGREP_ATTR_LOG_APPEND_TIME, 0);
            if (want[i].idempotent) {
                cr_assert(h.producer_id >= 0, "%s: producerId %lld", want[i].name,
                          (long long)h.producer_id);
                cr_assert_eq(h.base_sequence, next_seq, "%s: baseSequence %d, expected %d",
                             want[i].name, h.base_sequence, next_seq);
                next_seq = h.base_sequence + h.last_offset_delta + 1;
            } else {
                cr_assert_eq(h.producer_id, -1, "%s", want[i].name);
            }
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        free(b.data);
    }
}

/* Rebuilds every batch from its decoded records with logrep_batch_builder
 * (same producer id/epoch/sequence, flags, base offset/epoch, timestamps).
 *
 * Exact bytes are required where the client's encoding is deterministic and
 * follows the rule the builder implements (Java's and librdkafka's:
 * baseTimestamp = the first record's timestamp): every uncompressed
 * librdkafka batch, and uncompressed kafkajs batches whose first record
 * carries the smallest timestamp. kafkajs 2.2.4 takes the *minimum*
 * timestamp of the batch as baseTimestamp instead, so a batch whose
 * timestamps go backwards (kafkajs-none, kafkajs-idempotent) gets different
 * but equally valid deltas; compressed payloads depend on the compressor's
 * version and settings. For those the rebuilt batch (our own compression
 * for compressed ones) must decode to the same records and header fields. */
static void compare_rebuilt(const char *name, logrep_batch_reader *r, const uint8_t *orig,
                            size_t size, logrep_batch_reader *r2, const uint8_t *out,
                            size_t out_len, int same_base_ts) {
    logrep_batch_header h, h2;
    cr_assert_eq(logrep_batch_reader_open(r, orig, size, &h), LOGREP_OK);
    cr_assert_eq(logrep_batch_reader_open(r2, out, out_len, &h2), LOGREP_OK, "%s: own %s batch: %s",
                 name, logrep_compression_name(codec_of(&h)), logrep_batch_reader_errmsg(r2));
    cr_assert_eq(h2.attributes, h.attributes, "%s: attributes", name);
    cr_assert_eq(h2.base_offset, h.base_offset);
    cr_assert_eq(h2.partition_leader_epoch, h.partition_leader_epoch);
    cr_assert_eq(h2.record_count, h.record_count);
    cr_assert_eq(h2.last_offset_delta, h.last_offset_delta);
    cr_assert_eq(h2.max_timestamp, h.max_timestamp, "%s: maxTimestamp", name);
    cr_assert_eq(h2.producer_id, h.producer_id);
    cr_assert_eq(h2.producer_epoch, h.producer_epoch);
    cr_assert_eq(h2.base_sequence, h.base_sequence);
    if (same_base_ts)
        cr_assert_eq(h2.base_timestamp, h.base_timestamp, "%s: baseTimestamp %lld vs %lld", name,
                     (long long)h2.base_timestamp, (long long)h.base_timestamp);
    logrep_record a, c;
    logrep_err err;
    while ((err = logrep_batch_reader_next(r, &a)) == LOGREP_OK) {
        cr_assert_eq(logrep_batch_reader_next(r2, &c), LOGREP_OK);
        cr_assert_eq(a.offset, c.offset);
        cr_assert_eq(a.timestamp, c.timestamp, "%s: record timestamp", name);
        cr_assert(field_eq(c.key, c.key_len, (field){ (uint8_t *)a.key, a.key_len }));
        cr_assert(field_eq(c.value, c.value_len, (field){ (uint8_t *)a.value, a.value_len }));
        cr_assert_eq(a.header_count, c.header_count);
        cr_assert_eq(a.headers_size, c.headers_size);
        cr_assert(a.headers_size == 0 || memcmp(a.headers, c.headers, a.headers_size) == 0);
    }
    cr_assert_eq(err, LOGREP_ERR__END);
    cr_assert_eq(logrep_batch_reader_next(r2, &c), LOGREP_ERR__END);
}

Test(vectors, reencode) {
    batch_files bf = golden_batches();
    logrep_batch_reader *r = NULL, *r2 = NULL;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    cr_assert_eq(logrep_batch_reader_new(NULL, &r2), LOGREP_OK);
    int exact = 0, roundtrip = 0, kafkajs_min_ts = 0;
    for (size_t i = 0; i < bf.n; i++) {
        blob b = load_batch(bf.names[i]);
        size_t pos = 0;
        while (pos < b.len) {
            logrep_batch_header h;
            cr_assert_eq(logrep_batch_reader_open(r, b.data + pos, b.len - pos, &h), LOGREP_OK);
            size_t size = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
            if (h.attributes & LOGREP_ATTR_CONTROL) { /* none captured: see README */
                pos += size;
                continue;
            }
            logrep_batch_builder *bb = NULL;
            cr_assert_eq(logrep_batch_builder_new(NULL, &bb), LOGREP_OK);
            cr_assert_eq(logrep_batch_builder_set_compression(bb, codec_of(&h), 0), LOGREP_OK);
            cr_assert_eq(logrep_batch_builder_set_producer(bb, h.producer_id, h.producer_epoch,
                                                           h.base_sequence),
                         LOGREP_OK, "%s: set_producer(%lld, %d, %d)", bf.names[i],
                         (long long)h.producer_id, h.producer_epoch, h.base_sequence);
            cr_assert_eq(logrep_batch_builder_set_flags(bb, h.attributes & LOGREP_ATTR_TRANSACTIONAL),
                         LOGREP_OK);
            logrep_batch_builder_set_base(bb, h.base_offset, h.partition_leader_epoch);
            logrep_record rec;
            logrep_err err;
            int64_t first_ts = 0;
            int first = 1;
            while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
                if (first) first_ts = rec.timestamp;
                first = 0;
                logrep_header hs[MAX_HDRS];
                size_t cur = 0, nh = 0;
                while (nh < MAX_HDRS && logrep_record_header_next(&rec, &cur, &hs[nh]) == LOGREP_OK)
                    nh++;
                cr_assert_eq((int32_t)nh, rec.header_count);
                cr_assert_eq(logrep_batch_builder_add(bb, rec.timestamp, rec.key, rec.key_len,
                                                      rec.value, rec.value_len, hs, nh),
                             LOGREP_OK);
            }
            cr_assert_eq(err, LOGREP_ERR__END);
            const uint8_t *out;
            size_t out_len;
            cr_assert_eq(logrep_batch_builder_finish(bb, &out, &out_len), LOGREP_OK);
            int same_base_ts = h.base_timestamp == first_ts;
            if (!same_base_ts) {
                /* only kafkajs does this, and only as min(timestamps) */
                cr_assert(strncmp(bf.names[i], "kafkajs-", 8) == 0,
                          "%s: baseTimestamp %lld is not the first record's %lld", bf.names[i],
                          (long long)h.base_timestamp, (long long)first_ts);
                cr_assert(h.base_timestamp < first_ts);
                kafkajs_min_ts++;
            }
            if (codec_of(&h) == LOGREP_COMPRESSION_NONE && same_base_ts) {
                cr_assert_eq(out_len, size, "%s@%zu: rebuilt %zu bytes, client wrote %zu",
                             bf.names[i], pos, out_len, size);
                for (size_t k = 0; k < size; k++)
                    cr_assert_eq(out[k], b.data[pos + k],
                                 "%s@%zu: rebuilt batch differs at byte %zu (%02x vs %02x)",
                                 bf.names[i], pos, k, out[k], b.data[pos + k]);
                exact++;
            } else {
                compare_rebuilt(bf.names[i], r, b.data + pos, size, r2, out, out_len, same_base_ts);
                roundtrip++;
            }
            logrep_batch_builder_free(bb);
            pos += size;
        }
        free(b.data);
    }
    cr_assert(exact >= 20, "only %d batches rebuilt byte for byte", exact);
    cr_assert(roundtrip >= 7, "only %d batches round-tripped", roundtrip);
    cr_assert(kafkajs_min_ts >= 3, "kafkajs min-timestamp batches: %d", kafkajs_min_ts);
    logrep_batch_reader_free(r);
    logrep_batch_reader_free(r2);
    free_list(bf.names, bf.n);
}

/* Walks a (possibly damaged) single batch through every entry point and
 * returns the first error, or LOGREP_OK when everything decoded. */
static logrep_err full_decode(logrep_batch_reader *r, const uint8_t *p, size_t len) {
    size_t size = 0;
    logrep_err ev = logrep_batch_verify(p, len, &size);
    logrep_batch_header h;
    logrep_err eh = logrep_batch_header_parse(p, len, &h);
    logrep_err err = logrep_batch_reader_open(r, p, len, &h);
    if (err != LOGREP_OK) return err;
    cr_assert_eq(ev, LOGREP_OK, "reader opened a batch that verify rejects (%d)", ev);
    cr_assert_eq(eh, LOGREP_OK);
    logrep_record rec;
    int32_t n = 0;
    while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
        n++;
        size_t cur = 0;
        logrep_header hd;
        while (logrep_record_header_next(&rec, &cur, &hd) == LOGREP_OK) {
        }
        logrep_control c;
        if (h.attributes & LOGREP_ATTR_CONTROL) (void)logrep_control_parse(&rec, &c);
    }
    if (err != LOGREP_ERR__END) return err;
    cr_assert_eq(n, h.record_count);
    return LOGREP_OK;
}

static int is_decode_error(logrep_err e) {
    return e == LOGREP_ERR__AGAIN || e == LOGREP_ERR__CORRUPT || e == LOGREP_ERR__UNSUPPORTED ||
           e == LOGREP_ERR__COMPRESSION || e == LOGREP_ERR__LIMIT;
}

/* Each single batch of the golden files, copied to its own exact-size heap
 * buffer so ASan sees any read past the end. */
typedef void (*batch_fn)(const char *name, const uint8_t *batch, size_t size,
                         logrep_batch_reader *r);

static void for_each_batch(batch_fn fn) {
    batch_files bf = golden_batches();
    logrep_batch_reader *r = NULL;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    for (size_t i = 0; i < bf.n; i++) {
        blob b = load_batch(bf.names[i]);
        size_t pos = 0;
        while (pos < b.len) {
            size_t size = 0;
            cr_assert_eq(logrep_batch_verify(b.data + pos, b.len - pos, &size), LOGREP_OK);
            fn(bf.names[i], b.data + pos, size, r);
            pos += size;
        }
        free(b.data);
    }
    logrep_batch_reader_free(r);
    free_list(bf.names, bf.n);
}

static void truncations(const char *name, const uint8_t *batch, size_t size,
                        logrep_batch_reader *r) {
    for (size_t len = 0; len < size; len++) {
        uint8_t *p = malloc(len ? len : 1);
        cr_assert_not_null(p);
        memcpy(p, batch, len);
        size_t sz = 0;
        logrep_err ev = logrep_batch_verify(p, len, &sz);
        cr_assert_eq(ev, LOGREP_ERR__AGAIN, "%s: verify of %zu/%zu bytes: %d", name, len, size, ev);
        logrep_err eo = logrep_batch_reader_open(r, p, len, NULL);
        cr_assert_eq(eo, LOGREP_ERR__AGAIN, "%s: open of %zu/%zu bytes: %d", name, len, size, eo);
        logrep_record rec;
        cr_assert_eq(logrep_batch_reader_next(r, &rec), LOGREP_ERR__MISUSE,
                     "%s: next after a failed open", name);
        free(p);
    }
}

Test(vectors, every_truncation_is_incomplete) {
    for_each_batch(truncations);
}

/* Byte flips: outside the CRC only baseOffset and partitionLeaderEpoch may
 * change without an error; batchLength and magic are checked; anything in
 * [17, end) breaks the CRC. */
static void flips(const char *name, const uint8_t *batch, size_t size, logrep_batch_reader *r) {
    static const uint8_t masks[] = { 0x01, 0x80, 0xff, 0x10 };
    uint8_t *p = malloc(size);
    cr_assert_not_null(p);
    for (size_t i = 0; i < size; i++) {
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(p, batch, size);
            p[i] ^= masks[m];
            logrep_err err = full_decode(r, p, size);
            int free_field = i < 8 || (i >= 12 && i < 16);
            if (free_field)
                cr_assert_eq(err, LOGREP_OK, "%s: flip %02x at %zu (not CRC-covered): %d", name,
                             masks[m], i, err);
            else
                cr_assert(is_decode_error(err), "%s: flip %02x at %zu accepted (%d)", name,
                          masks[m], i, err);
        }
    }
    free(p);
}

Test(vectors, byte_flips_are_rejected) {
    for_each_batch(flips);
}

/* Same flips inside [21, end) but with the CRC recomputed, so the header
 * checks, decompressors and record parser see the damage. Any outcome but a
 * crash is acceptable, and errors must be decode errors. */
static void fix_crc(uint8_t *p, size_t size) {
    uint32_t crc = logrep_crc32c(0, p + LOGREP_BATCH_CRC_START, size - LOGREP_BATCH_CRC_START);
    p[17] = (uint8_t)(crc >> 24);
    p[18] = (uint8_t)(crc >> 16);
    p[19] = (uint8_t)(crc >> 8);
    p[20] = (uint8_t)crc;
}

static void flips_fixed_crc(const char *name, const uint8_t *batch, size_t size,
                            logrep_batch_reader *r) {
    /* every single-bit flip, plus bytes forced to values that stress
     * varints and lengths (0x00, 0x7f, 0x80, 0xff) */
    static const int edits[] = { 1, 2, 4, 8, 16, 32, 64, 128, -0x00, -0x7f, -0x80, -0xff };
    uint8_t *p = malloc(size);
    cr_assert_not_null(p);
    for (size_t i = LOGREP_BATCH_CRC_START; i < size; i++) {
        for (size_t m = 0; m < sizeof edits / sizeof edits[0]; m++) {
            memcpy(p, batch, size);
            if (edits[m] > 0)
                p[i] ^= (uint8_t)edits[m];
            else
                p[i] = (uint8_t)-edits[m];
            if (p[i] == batch[i] && m >= 8) continue; /* no change */
            fix_crc(p, size);
            logrep_err err = full_decode(r, p, size);
            cr_assert(err == LOGREP_OK || is_decode_error(err),
                      "%s: edit %d at %zu (CRC fixed): unexpected %d", name, edits[m], i, err);
            /* the codec bits 5-7 are invalid; a changed recordCount breaks the count */
            if (i == 22 && (p[22] & 0x07) > 4)
                cr_assert_neq(err, LOGREP_OK, "%s: codec %d accepted", name, p[22] & 7);
            if (i >= 57 && i < 61)
                cr_assert_neq(err, LOGREP_OK, "%s: recordCount edit at %zu accepted", name, i);
        }
    }
    free(p);
}

Test(vectors, byte_flips_with_fixed_crc_never_crash) {
    for_each_batch(flips_fixed_crc);
}

/* Keyed records: the partition each client's murmur2 partitioner chose
 * (librdkafka partitioner=murmur2_random; kafkajs' default partitioner) is
 * logrep_murmur2_partition(key, partition_count). */
Test(vectors, murmur2_partition_matches_clients) {
    batch_files bf = golden_batches();
    int checked = 0;
    for (size_t i = 0; i < bf.n; i++) {
        expect x;
        load_expect(bf.names[i], &x);
        if (x.has_partitioner) {
            cr_assert(x.partition_count > 1);
            for (size_t k = 0; k < x.n; k++) {
                cr_assert(x.rec[k].key.len >= 0);
                int32_t p = logrep_murmur2_partition(x.rec[k].key.p, (size_t)x.rec[k].key.len,
                                                     x.partition_count);
                cr_assert_eq(p, x.partition, "%s: key %.*s -> %d, client chose %d", bf.names[i],
                             x.rec[k].key.len, (const char *)x.rec[k].key.p, p, x.partition);
                checked++;
            }
        }
        free_expect(&x);
    }
    cr_assert(checked >= 32, "only %d keyed records checked", checked);
    free_list(bf.names, bf.n);
}

/* ------------------------------------------------------ request frames */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint16_t be16(const uint8_t *p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

static const struct {
    int key;
    const char *name;
} api_names[] = {
    { 0, "Produce" },        { 1, "Fetch" },           { 2, "ListOffsets" },
    { 3, "Metadata" },       { 8, "OffsetCommit" },    { 9, "OffsetFetch" },
    { 10, "FindCoordinator" }, { 11, "JoinGroup" },    { 12, "Heartbeat" },
    { 13, "LeaveGroup" },    { 14, "SyncGroup" },      { 18, "ApiVersions" },
    { 22, "InitProducerId" }, { 24, "AddPartitionsToTxn" }, { 25, "AddOffsetsToTxn" },
    { 26, "EndTxn" },        { 28, "TxnOffsetCommit" },
};

/* <client>-<ApiName>-v<N>[-variant].bin: size prefix = file length - 4,
 * header api key/version as named. */
Test(vectors, request_frames_well_formed) {
    char **names;
    size_t n = list_dir(VEC_DIR "/requests", ".bin", &names);
    cr_assert(n >= 30, "only %zu request frames", n);
    for (size_t i = 0; i < n; i++) {
        char path[512], api[64];
        int ver = -1;
        snprintf(path, sizeof path, VEC_DIR "/requests/%s", names[i]);
        const char *dash = strchr(names[i], '-');
        cr_assert_not_null(dash);
        cr_assert_eq(sscanf(dash + 1, "%63[A-Za-z]-v%d", api, &ver), 2, "%s", names[i]);
        blob b = read_file(path);
        cr_assert(b.len >= 14);
        cr_assert_eq(be32(b.data), b.len - 4, "%s: size prefix", names[i]);
        int key = -1;
        for (size_t k = 0; k < sizeof api_names / sizeof api_names[0]; k++)
            if (!strcmp(api_names[k].name, api)) key = api_names[k].key;
        cr_assert_neq(key, -1, "%s: unknown api", names[i]);
        cr_assert_eq(be16(b.data + 4), key, "%s", names[i]);
        cr_assert_eq(be16(b.data + 6), ver, "%s", names[i]);
        free(b.data);
    }
    free_list(names, n);
    n = list_dir(VEC_DIR "/responses", ".bin", &names);
    cr_assert(n >= 15, "only %zu response frames", n);
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, VEC_DIR "/responses/%s", names[i]);
        blob b = read_file(path);
        cr_assert(b.len >= 8);
        cr_assert_eq(be32(b.data), b.len - 4, "%s: size prefix", names[i]);
        free(b.data);
    }
    free_list(names, n);
}

/* Produce v7 request: header v1, TransactionalId, Acks, Timeout, then one
 * topic with one partition whose records hold the client's batch as it
 * left the client (baseOffset 0). It must verify, and equal the batch the
 * consumer later fetched except for baseOffset (stamped by the broker). */
static size_t skip_string(const uint8_t *p, size_t pos) {
    int16_t l = (int16_t)be16(p + pos);
    return pos + 2 + (l > 0 ? (size_t)l : 0);
}

Test(vectors, produce_requests_carry_the_golden_batches) {
    static const struct {
        const char *req, *batch;
    } pairs[] = {
        { "librdkafka-Produce-v7.bin", "librdkafka-none" },
        { "librdkafka-Produce-v7-gzip.bin", "librdkafka-gzip" },
        { "librdkafka-Produce-v7-snappy.bin", "librdkafka-snappy" },
        { "librdkafka-Produce-v7-lz4.bin", "librdkafka-lz4" },
        { "librdkafka-Produce-v7-zstd.bin", "librdkafka-zstd" },
        { "librdkafka-Produce-v7-idempotent.bin", "librdkafka-idempotent" },
        { "librdkafka-Produce-v7-transactional.bin", "librdkafka-transactional" },
        { "kafkajs-Produce-v7.bin", "kafkajs-none" },
        { "kafkajs-Produce-v7-gzip.bin", "kafkajs-gzip" },
        { "kafkajs-Produce-v7-idempotent.bin", "kafkajs-idempotent" },
        { "kafkajs-Produce-v7-transactional.bin", "kafkajs-transactional" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, VEC_DIR "/requests/%s", pairs[i].req);
        blob q = read_file(path);
        size_t pos = 12;                 /* size, key, version, correlation id */
        pos = skip_string(q.data, pos);  /* client id */
        pos = skip_string(q.data, pos);  /* transactional id */
        pos += 2 + 4;                    /* acks, timeout */
        cr_assert_eq(be32(q.data + pos), 1u, "%s: one topic", pairs[i].req);
        pos = skip_string(q.data, pos + 4);
        cr_assert_eq(be32(q.data + pos), 1u, "%s: one partition", pairs[i].req);
        pos += 4 + 4;                    /* count, partition */
        uint32_t rlen = be32(q.data + pos);
        pos += 4;
        cr_assert_eq(pos + rlen, q.len, "%s: records field", pairs[i].req);
        size_t size = 0;
        cr_assert_eq(logrep_batch_verify(q.data + pos, rlen, &size), LOGREP_OK, "%s", pairs[i].req);
        cr_assert_eq(size, rlen, "%s: one batch per partition", pairs[i].req);
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_header_parse(q.data + pos, rlen, &h), LOGREP_OK);
        cr_assert_eq(h.base_offset, 0);
        blob b = load_batch(pairs[i].batch);
        cr_assert(b.len >= size);
        /* the first batch fetched back: same bytes from batchLength on */
        cr_assert(memcmp(q.data + pos + 8, b.data + 8, size - 8) == 0,
                  "%s: produced batch differs from %s.bin beyond baseOffset", pairs[i].req,
                  pairs[i].batch);
        /* stamping the produced batch with the fetched one's baseOffset and
         * epoch gives the fetched bytes, and the CRC stays valid */
        logrep_batch_header fh;
        cr_assert_eq(logrep_batch_header_parse(b.data, b.len, &fh), LOGREP_OK);
        uint8_t *st = malloc(size);
        cr_assert_not_null(st);
        memcpy(st, q.data + pos, size);
        cr_assert_eq(logrep_batch_stamp(st, size, fh.base_offset, fh.partition_leader_epoch),
                     LOGREP_OK);
        cr_assert(memcmp(st, b.data, size) == 0, "%s: stamped batch differs", pairs[i].req);
        cr_assert_eq(logrep_batch_verify(st, size, NULL), LOGREP_OK);
        free(st);
        free(b.data);
        free(q.data);
    }
}

/* The mock's Fetch v11 response: every partition's records field holds
 * complete v2 batches that verify and decode. */
Test(vectors, mock_fetch_response_batches_decode) {
    blob f = read_file(VEC_DIR "/responses/mock-Fetch-v11.bin");
    logrep_batch_reader *r = NULL;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    size_t pos = 8 + 4 + 2 + 4; /* size, correlation id, throttle, error, session */
    uint32_t ntopics = be32(f.data + pos);
    pos += 4;
    int batches = 0;
    for (uint32_t t = 0; t < ntopics; t++) {
        pos = skip_string(f.data, pos);
        uint32_t nparts = be32(f.data + pos);
        pos += 4;
        for (uint32_t k = 0; k < nparts; k++) {
            pos += 4 + 2 + 8 + 8 + 8; /* partition, error, HW, LSO, log start */
            uint32_t naborted = be32(f.data + pos);
            pos += 4 + (naborted == 0xffffffffu ? 0 : 16 * (size_t)naborted);
            pos += 4; /* preferred read replica */
            uint32_t rlen = be32(f.data + pos);
            pos += 4;
            if (rlen == 0xffffffffu) continue;
            cr_assert(pos + rlen <= f.len);
            size_t off = 0;
            while (off < rlen) {
                size_t size = 0;
                logrep_err err = logrep_batch_verify(f.data + pos + off, rlen - off, &size);
                if (err == LOGREP_ERR__AGAIN) break; /* a partial batch may end the field */
                cr_assert_eq(err, LOGREP_OK);
                cr_assert_eq(full_decode(r, f.data + pos + off, size), LOGREP_OK);
                off += size;
                batches++;
            }
            pos += rlen;
        }
    }
    cr_assert_eq(pos, f.len, "Fetch v11 response fully parsed");
    cr_assert(batches >= 1, "no batch in the Fetch response");
    logrep_batch_reader_free(r);
    free(f.data);
}

/* Records area cut short or followed by extra bytes, with batchLength and
 * the CRC adjusted so only the payload is wrong: Kafka rejects a batch whose
 * records end early or leave bytes over (DefaultRecordBatch: "records still
 * remaining"), compressed or not. */
static logrep_err resized(logrep_batch_reader *r, const uint8_t *batch, size_t size,
                          size_t new_size, uint8_t fill) {
    uint8_t *p = malloc(new_size);
    cr_assert_not_null(p);
    memcpy(p, batch, new_size < size ? new_size : size);
    if (new_size > size) memset(p + size, fill, new_size - size);
    uint32_t bl = (uint32_t)(new_size - LOGREP_LOG_OVERHEAD);
    p[8] = (uint8_t)(bl >> 24);
    p[9] = (uint8_t)(bl >> 16);
    p[10] = (uint8_t)(bl >> 8);
    p[11] = (uint8_t)bl;
    fix_crc(p, new_size);
    logrep_err err = full_decode(r, p, new_size);
    free(p);
    return err;
}

static void resizes(const char *name, const uint8_t *batch, size_t size, logrep_batch_reader *r) {
    for (size_t cut = 1; size - cut >= LOGREP_BATCH_HEADER_SIZE; cut++) {
        logrep_err err = resized(r, batch, size, size - cut, 0);
        cr_assert(is_decode_error(err), "%s: records area cut by %zu bytes accepted (%d)", name,
                  cut, err);
    }
    static const uint8_t fills[] = { 0x00, 0x01, 0xff };
    for (size_t extra = 1; extra <= 8; extra++)
        for (size_t k = 0; k < sizeof fills; k++) {
            logrep_err err = resized(r, batch, size, size + extra, fills[k]);
            cr_assert(is_decode_error(err), "%s: %zu trailing %02x bytes accepted (%d)", name,
                      extra, fills[k], err);
        }
}

Test(vectors, resized_records_area_is_rejected) {
    for_each_batch(resizes);
}
