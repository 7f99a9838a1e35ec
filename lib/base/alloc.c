#include "base/alloc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *std_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size ? size : 1);
}

static void *std_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(p, new_size ? new_size : 1);
}

static void std_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

const lr_alloc lr_alloc_default = {NULL, std_alloc, std_realloc, std_free};

void *lr_malloc(const lr_alloc *a, size_t size)
{
    return a->alloc(a->ctx, size);
}

void *lr_calloc(const lr_alloc *a, size_t n, size_t size)
{
    size_t total;
    if (lr_mul_overflows(n, size, &total))
        return NULL;
    void *p = a->alloc(a->ctx, total);
    if (p)
        memset(p, 0, total);
    return p;
}

void *lr_realloc(const lr_alloc *a, void *p, size_t old_size, size_t new_size)
{
    if (!p)
        return a->alloc(a->ctx, new_size);
    return a->realloc(a->ctx, p, old_size, new_size);
}

void lr_free(const lr_alloc *a, void *p, size_t size)
{
    if (p)
        a->free(a->ctx, p, size);
}

char *lr_strdup(const lr_alloc *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = lr_malloc(a, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void lr_strfree(const lr_alloc *a, char *s)
{
    if (s)
        lr_free(a, s, strlen(s) + 1);
}

#define LR_UNSIZED_HDR _Alignof(max_align_t)

void *lr_malloc_unsized(const lr_alloc *a, size_t size)
{
    if (size > SIZE_MAX - LR_UNSIZED_HDR)
        return NULL;
    unsigned char *p = lr_malloc(a, size + LR_UNSIZED_HDR);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    return p + LR_UNSIZED_HDR;
}

void lr_free_unsized(const lr_alloc *a, void *p)
{
    if (!p)
        return;
    unsigned char *base = (unsigned char *)p - LR_UNSIZED_HDR;
    size_t size;
    memcpy(&size, base, sizeof size);
    lr_free(a, base, size + LR_UNSIZED_HDR);
}
