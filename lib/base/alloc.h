/* Per-instance allocation. Every handle copies the allocator from its conf;
 * there is no process-wide allocator. */
#ifndef LR_BASE_ALLOC_H
#define LR_BASE_ALLOC_H

#include <stddef.h>
#include <logrep.h>

typedef logrep_allocator lr_alloc;

/* The malloc-backed allocator. */
extern const lr_alloc lr_alloc_default;

/* Overflow-checked helpers; all return NULL on failure or overflow. */
void *lr_malloc(const lr_alloc *a, size_t size);
void *lr_calloc(const lr_alloc *a, size_t n, size_t size);
void *lr_realloc(const lr_alloc *a, void *p, size_t old_size, size_t new_size);
void lr_free(const lr_alloc *a, void *p, size_t size);
char *lr_strdup(const lr_alloc *a, const char *s);
/* Frees a string from lr_strdup (its size is strlen + 1). */
void lr_strfree(const lr_alloc *a, char *s);

/* For libraries whose free callback passes no size (zlib, zstd, lz4): the
 * size is kept in a header before the block, which stays max_align_t
 * aligned. lr_malloc_unsized returns NULL on failure; lr_free_unsized(NULL)
 * does nothing. */
void *lr_malloc_unsized(const lr_alloc *a, size_t size);
void lr_free_unsized(const lr_alloc *a, void *p);

/* n * size, or 0 with *overflow set. */
static inline int lr_mul_overflows(size_t n, size_t size, size_t *out)
{
    return __builtin_mul_overflow(n, size, out);
}

#endif
