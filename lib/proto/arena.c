#include "proto/arena.h"

#include <string.h>

struct lr_arena_chunk {
    lr_arena_chunk *next;
    size_t cap, used;
    uint64_t data[];
};

enum { ARENA_MIN = 8192 };

void lr_arena_init(lr_arena *a, const lr_alloc *alloc)
{
    memset(a, 0, sizeof *a);
    a->alloc = alloc;
}

static void free_chain(lr_arena *a, lr_arena_chunk *c)
{
    while (c) {
        lr_arena_chunk *next = c->next;
        lr_free(a->alloc, c, sizeof *c + c->cap);
        c = next;
    }
}

static lr_arena_chunk *new_chunk(lr_arena *a, size_t cap)
{
    lr_arena_chunk *c = lr_malloc(a->alloc, sizeof *c + cap);
    if (!c)
        return NULL;
    c->cap = cap;
    c->used = 0;
    c->next = NULL;
    a->total += cap;
    return c;
}

void lr_arena_reset(lr_arena *a, size_t keep)
{
    if (!a->head)
        return;
    if (!a->head->next && a->head->cap <= keep) {
        a->head->used = 0;
        return;
    }
    size_t want = a->total;
    free_chain(a, a->head);
    a->head = NULL;
    a->total = 0;
    if (want <= keep)
        a->head = new_chunk(a, want); /* NULL is fine: allocated on demand */
}

void lr_arena_free(lr_arena *a)
{
    free_chain(a, a->head);
    a->head = NULL;
    a->total = 0;
}

void *lr_arena_alloc(lr_arena *a, size_t n)
{
    if (n > SIZE_MAX - 7)
        return NULL;
    n = (n + 7) & ~(size_t)7;
    lr_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = a->total > ARENA_MIN ? a->total : ARENA_MIN;
        if (cap < n)
            cap = n;
        if (cap > SIZE_MAX / 2 - sizeof *c)
            return NULL;
        c = new_chunk(a, cap);
        if (!c)
            return NULL;
        c->next = a->head;
        a->head = c;
    }
    void *p = (uint8_t *)c->data + c->used;
    c->used += n;
    return p;
}
