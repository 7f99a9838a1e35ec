/* Codec benchmarks: CRC-32C, batch build/validate per codec, murmur2.
 * Baselines measured in the same run: a direct ISA-L call and memcpy. */
#include <isa-l/crc.h>

#include "bench.h"
#include <logrep.h>

#define MIN_S 0.15
#define ROUNDS 5

/* ------------------------------------------------------------ CRC */

typedef struct crc_ctx {
    uint8_t *src, *dst;
    size_t len;
    uint32_t out;
} crc_ctx;

static void run_logrep_crc(void *p)
{
    crc_ctx *c = p;
    c->out = logrep_crc32c(0, c->src, c->len);
    bench_sink(&c->out);
}

static void run_isal_crc(void *p)
{
    crc_ctx *c = p;
    c->out = ~crc32_iscsi(c->src, (int)c->len, 0xffffffffu);
    bench_sink(&c->out);
}

static void run_memcpy(void *p)
{
    crc_ctx *c = p;
    memcpy(c->dst, c->src, c->len);
    bench_sink(c->dst);
}

static void bench_crc(void)
{
    size_t sizes[] = {1024, 16384, 1 << 20};
    const char *names[] = {"1 KiB", "16 KiB", "1 MiB"};
    crc_ctx c;
    c.src = malloc(1 << 20);
    c.dst = malloc(1 << 20);
    for (size_t i = 0; i < 1 << 20; i++)
        c.src[i] = (uint8_t)(i * 131 + 7);
    printf("-- CRC-32C\n");
    for (int i = 0; i < 3; i++) {
        c.len = sizes[i];
        double tl = bench_time(run_logrep_crc, &c, MIN_S, ROUNDS);
        double ti = bench_time(run_isal_crc, &c, MIN_S, ROUNDS);
        double tm = bench_time(run_memcpy, &c, MIN_S, ROUNDS);
        double gl = (double)c.len / tl / 1e9, gi = (double)c.len / ti / 1e9,
               gm = (double)c.len / tm / 1e9;
        char name[64];
        snprintf(name, sizeof name, "crc32c %s logrep", names[i]);
        bench_report(name, gl, "GB/s", gl / gi, "of ISA-L direct", 0.9, 1);
        snprintf(name, sizeof name, "crc32c %s ISA-L direct", names[i]);
        bench_report(name, gi, "GB/s", gi / gm, "of memcpy", 0, 1);
        snprintf(name, sizeof name, "memcpy %s", names[i]);
        bench_report(name, gm, "GB/s", 1.0, "", 0, 1);
    }
    free(c.src);
    free(c.dst);
}

/* ------------------------------------------------------------ batches */

typedef struct batch_ctx {
    logrep_batch_builder *b;
    logrep_batch_reader *r;
    int n;
    int value_size;
    uint8_t *value;
    const uint8_t *out;
    size_t len;
    uint8_t *copy;
    char keys[160][8];
    int32_t key_len[160];
    int target; /* run_recompress's codec */
} batch_ctx;

static void build_batch(batch_ctx *c)
{
    logrep_batch_builder_reset(c->b);
    for (int i = 0; i < c->n; i++)
        logrep_batch_builder_add(c->b, 1700000000000LL + i, c->keys[i], c->key_len[i], c->value,
                                 c->value_size, NULL, 0);
    logrep_batch_builder_finish(c->b, &c->out, &c->len);
}

static void validate_batch(batch_ctx *c, const uint8_t *buf, size_t len)
{
    if (logrep_batch_reader_open(c->r, buf, len, NULL) != LOGREP_OK)
        abort();
    logrep_record rec;
    int k = 0;
    while (logrep_batch_reader_next(c->r, &rec) == LOGREP_OK)
        k++;
    if (k != c->n)
        abort();
}

static void run_build(void *p) { build_batch(p); }
static void run_validate(void *p)
{
    batch_ctx *c = p;
    validate_batch(c, c->out, c->len);
}
static void run_build_validate(void *p)
{
    batch_ctx *c = p;
    build_batch(c);
    validate_batch(c, c->out, c->len);
}
/* What a leader does to a produced batch: header + CRC, then every record
 * (logrep_batch_reader_check). */
static void run_leader_check(void *p)
{
    batch_ctx *c = p;
    int64_t max_ts;
    if (logrep_batch_verify(c->out, c->len, NULL) != LOGREP_OK ||
        logrep_batch_reader_check(c->r, c->out, c->len, &max_ts) != LOGREP_OK)
        abort();
    bench_sink(&max_ts);
}
/* compression.type on the leader: the batch rewritten into c->target
 * (the log's record check of the result is run_leader_check). */
static void run_recompress(void *p)
{
    batch_ctx *c = p;
    const void *out;
    size_t olen;
    if (logrep_batch_reader_recompress(c->r, c->out, c->len, c->target, 0, &out, &olen) !=
        LOGREP_OK)
        abort();
    bench_sink(&olen);
}
static void run_copy_values(void *p)
{
    batch_ctx *c = p;
    uint8_t *d = c->copy;
    for (int i = 0; i < c->n; i++, d += c->value_size)
        memcpy(d, c->value, (size_t)c->value_size);
    bench_sink(c->copy);
}

static void bench_batches(void)
{
    printf("-- record batches (16 KiB-ish batches; baseline: memcpy of the values)\n");
    int sizes[] = {100, 1024};
    for (int s = 0; s < 2; s++) {
        for (int codec = 0; codec <= 4; codec++) {
            batch_ctx c;
            memset(&c, 0, sizeof c);
            c.value_size = sizes[s];
            c.n = sizes[s] == 100 ? 160 : 16;
            c.value = malloc((size_t)c.value_size);
            for (int i = 0; i < c.value_size; i++)
                c.value[i] = (uint8_t)("the quick brown fox jumps over the lazy dog "[i % 44]);
            c.copy = malloc((size_t)c.value_size * (size_t)c.n);
            for (int i = 0; i < c.n; i++)
                c.key_len[i] = snprintf(c.keys[i], sizeof c.keys[i], "k%d", i);
            logrep_batch_builder_new(NULL, &c.b);
            logrep_batch_reader_new(NULL, &c.r);
            logrep_batch_builder_set_compression(c.b, codec, 0);
            build_batch(&c);
            double tb = bench_time(run_build, &c, MIN_S, ROUNDS);
            double tv = bench_time(run_validate, &c, MIN_S, ROUNDS);
            double tbv = bench_time(run_build_validate, &c, MIN_S, ROUNDS);
            double tm = bench_time(run_copy_values, &c, MIN_S, ROUNDS);
            double tc = bench_time(run_leader_check, &c, MIN_S, ROUNDS);
            char name[80];
            const char *cn = logrep_compression_name(codec);
            snprintf(name, sizeof name, "build %4d B %-6s", c.value_size, cn);
            bench_report(name, c.n / tb / 1e6, "M rec/s", tm / tb, "of memcpy speed", 0, 1);
            snprintf(name, sizeof name, "validate %4d B %-6s", c.value_size, cn);
            bench_report(name, c.n / tv / 1e6, "M rec/s", tm / tv, "of memcpy speed", 0, 1);
            /* The produce-path cost: records checked per second against
             * records built per second (> 1: checking is cheaper). */
            snprintf(name, sizeof name, "leader check %4d B %-6s", c.value_size, cn);
            bench_report(name, c.n / tc / 1e6, "M rec/s", tb / tc, "of build speed", 0, 1);
            /* Recompression (compression.type) beside the check: into
             * zstd, or lz4 for a zstd batch. */
            c.target = codec == LOGREP_COMPRESSION_ZSTD ? LOGREP_COMPRESSION_LZ4
                                                        : LOGREP_COMPRESSION_ZSTD;
            double tr = bench_time(run_recompress, &c, MIN_S, ROUNDS);
            snprintf(name, sizeof name, "recompress %4d B %s->%s", c.value_size, cn,
                     logrep_compression_name(c.target));
            bench_report(name, c.n / tr / 1e6, "M rec/s", tc / tr, "of leader check speed", 0, 1);
            snprintf(name, sizeof name, "build+validate %4d B %-6s", c.value_size, cn);
            if (codec == 0 && c.value_size == 100)
                printf("%-46s %12.3f %-10s target >= 20 M rec/s: %s\n", name, c.n / tbv / 1e6,
                       "M rec/s", c.n / tbv / 1e6 >= 20 ? "ok" : "MISSED");
            else
                bench_report(name, c.n / tbv / 1e6, "M rec/s", tm / tbv, "of memcpy speed", 0, 1);
            logrep_batch_builder_free(c.b);
            logrep_batch_reader_free(c.r);
            free(c.value);
            free(c.copy);
        }
    }
}

/* Verify (header + CRC) of a 1 MiB batch against memcpy of it. */
typedef struct verify_ctx {
    uint8_t *batch, *dst;
    size_t len;
} verify_ctx;

static void run_verify(void *p)
{
    verify_ctx *c = p;
    if (logrep_batch_verify(c->batch, c->len, NULL) != LOGREP_OK)
        abort();
}
static void run_verify_memcpy(void *p)
{
    verify_ctx *c = p;
    memcpy(c->dst, c->batch, c->len);
    bench_sink(c->dst);
}

static void bench_verify(void)
{
    logrep_batch_builder *b;
    logrep_batch_builder_new(NULL, &b);
    uint8_t value[1000];
    memset(value, 'x', sizeof value);
    while (logrep_batch_builder_size_estimate(b) < (1 << 20) - 1100)
        logrep_batch_builder_add(b, 0, NULL, -1, value, sizeof value, NULL, 0);
    verify_ctx c;
    const uint8_t *out;
    logrep_batch_builder_finish(b, &out, &c.len);
    c.batch = malloc(c.len);
    c.dst = malloc(c.len);
    memcpy(c.batch, out, c.len);
    double tv = bench_time(run_verify, &c, MIN_S, ROUNDS);
    double tm = bench_time(run_verify_memcpy, &c, MIN_S, ROUNDS);
    printf("-- batch verify\n");
    double gv = (double)c.len / tv / 1e9;
    printf("%-46s %12.3f %-10s %7.3fx %-18s target >= 10 GB/s: %s\n", "verify 1 MiB batch (header+CRC)", gv,
           "GB/s", tm / tv, "of memcpy speed", gv >= 10 ? "ok" : "MISSED");
    free(c.batch);
    free(c.dst);
    logrep_batch_builder_free(b);
}

/* ------------------------------------------------------------ murmur2 */

typedef struct mm_ctx {
    uint8_t keys[1024][64];
    size_t len;
    int32_t acc;
} mm_ctx;

static void run_murmur(void *p)
{
    mm_ctx *c = p;
    int32_t acc = 0;
    for (int i = 0; i < 1024; i++)
        acc += logrep_murmur2(c->keys[i], c->len);
    c->acc = acc;
    bench_sink(&c->acc);
}

static void run_key_copy(void *p)
{
    mm_ctx *c = p;
    static uint8_t dst[64];
    for (int i = 0; i < 1024; i++) {
        memcpy(dst, c->keys[i], c->len);
        bench_sink(dst);
    }
}

static void bench_murmur(void)
{
    static mm_ctx c;
    for (int i = 0; i < 1024; i++)
        for (int j = 0; j < 64; j++)
            c.keys[i][j] = (uint8_t)(i * 7 + j * 13);
    printf("-- murmur2\n");
    size_t lens[] = {16, 64};
    for (int i = 0; i < 2; i++) {
        c.len = lens[i];
        double t = bench_time(run_murmur, &c, MIN_S, ROUNDS) / 1024;
        double tm = bench_time(run_key_copy, &c, MIN_S, ROUNDS) / 1024;
        char name[64];
        snprintf(name, sizeof name, "murmur2 %zu B key", lens[i]);
        if (lens[i] == 16)
            printf("%-46s %12.3f %-10s %7.3fx %-18s target <= 5 ns: %s\n", name, t * 1e9, "ns", t / tm,
                   "of a key memcpy", t * 1e9 <= 5 ? "ok" : "MISSED");
        else
            bench_report(name, t * 1e9, "ns", t / tm, "of a key memcpy", 0, 0);
    }
}

int main(void)
{
    printf("liblogrep %s codec benchmarks (best of %d rounds)\n", logrep_version_string(), ROUNDS);
    bench_crc();
    bench_verify();
    bench_murmur();
    bench_batches();
    return 0;
}
