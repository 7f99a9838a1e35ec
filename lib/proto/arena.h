/* Bump allocator behind a message: one reset frees every node of the
 * previous message and keeps the memory for the next one. */
#ifndef LR_PROTO_ARENA_H
#define LR_PROTO_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include "base/alloc.h"

typedef struct lr_arena_chunk lr_arena_chunk;

typedef struct lr_arena {
    const lr_alloc *alloc;
    lr_arena_chunk *head;   /* current chunk; older ones follow */
    size_t total;           /* bytes in all chunks */
} lr_arena;

void lr_arena_init(lr_arena *a, const lr_alloc *alloc);
/* Frees everything but keeps up to one chunk of at most `keep` bytes;
 * several chunks are merged into one so reuse settles on one block. */
void lr_arena_reset(lr_arena *a, size_t keep);
void lr_arena_free(lr_arena *a);
/* 8-byte aligned, uninitialised; NULL when out of memory. */
void *lr_arena_alloc(lr_arena *a, size_t n);

#endif
