#include "lib/testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>

uint8_t *tu_hex(const char *hex, size_t *len)
{
    size_t cap = strlen(hex) / 2 + 1, n = 0;
    uint8_t *out = malloc(cap);
    cr_assert(out);
    int hi = -1;
    for (const char *p = hex; *p; p++) {
        int v;
        if (*p >= '0' && *p <= '9')
            v = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            v = *p - 'A' + 10;
        else if (*p == ' ' || *p == '\n' || *p == '\t')
            continue;
        else
            cr_assert_fail("bad hex character '%c'", *p);
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    cr_assert(hi < 0, "odd number of hex digits");
    *len = n;
    return out;
}

uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return buf;
}

static int tu_heap_refuses(tu_heap *h)
{
    h->allocs++;
    if (h->fail_at && (h->allocs == h->fail_at || (h->persist && h->allocs > h->fail_at))) {
        h->failed++;
        return 1;
    }
    return 0;
}

static void *heap_alloc(void *ctx, size_t size)
{
    tu_heap *h = ctx;
    if (tu_heap_refuses(h))
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p) {
        h->live_bytes += (long)size;
        h->live_blocks++;
    }
    return p;
}

static void *heap_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    tu_heap *h = ctx;
    if (tu_heap_refuses(h))
        return NULL;
    void *q = realloc(p, new_size ? new_size : 1);
    if (q)
        h->live_bytes += (long)new_size - (long)old_size;
    return q;
}

static void heap_free(void *ctx, void *p, size_t size)
{
    tu_heap *h = ctx;
    if (!p)
        return;
    h->live_bytes -= (long)size;
    h->live_blocks--;
    free(p);
}

struct logrep_allocator tu_heap_allocator(tu_heap *h)
{
    struct logrep_allocator a = {h, heap_alloc, heap_realloc, heap_free};
    return a;
}

char *tu_record_value(const uint8_t *buf, size_t len, int64_t offset)
{
    logrep_batch_reader *r;
    cr_assert_eq(logrep_batch_reader_new(NULL, &r), LOGREP_OK);
    char *out = NULL;
    for (size_t pos = 0; pos < len && !out;) {
        logrep_batch_header h;
        cr_assert_eq(logrep_batch_reader_open(r, buf + pos, len - pos, &h), LOGREP_OK);
        logrep_record rec;
        while (logrep_batch_reader_next(r, &rec) == LOGREP_OK)
            if (rec.offset == offset && !out) {
                out = calloc(1, (size_t)rec.value_len + 1);
                cr_assert(out);
                if (rec.value_len > 0)
                    memcpy(out, rec.value, (size_t)rec.value_len);
            }
        pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
    }
    logrep_batch_reader_free(r);
    return out;
}
