/* Shared helpers for the Criterion tests. */
#ifndef LOGREP_TESTUTIL_H
#define LOGREP_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Parses hex ("00 4d ff", whitespace and newlines ignored) into a malloc'd
 * buffer; *len receives the byte count. Aborts the test on bad input. */
uint8_t *tu_hex(const char *hex, size_t *len);

/* Reads a whole file into a malloc'd buffer (NULL if missing). */
uint8_t *tu_read_file(const char *path, size_t *len);

/* The value of the record at `offset` in record batches (back to back in
 * buf), as a malloc'd NUL-terminated string; NULL when no batch holds it. */
char *tu_record_value(const uint8_t *buf, size_t len, int64_t offset);

/* A counting allocator that can fail the Nth allocation (1-based; 0 never),
 * and with `persist` every one after it too (a heap that stays full).
 * Counts live bytes so tests can assert no leak; `failed` counts the
 * allocations refused. */
typedef struct tu_heap {
    long allocs;
    long fail_at;
    long live_bytes;
    long live_blocks;
    int persist;
    long failed;
} tu_heap;
struct logrep_allocator tu_heap_allocator(tu_heap *h);

#endif
