/* One hash table for the library: open addressing, linear probing,
 * deletion by backward shift (no tombstones), hashed with XXH3.
 *
 * The table stores values (a uintptr_t: an index or a pointer), never keys:
 * the caller's equality callback tells whether a stored value has the key
 * looked for. So a put that replaces and every delete never allocate; only
 * a put of a new key may grow the table (load kept at most one half, the
 * size computed with overflow checks). Memory comes from the allocator given
 * to init; one table is used by one thread at a time. */
#ifndef LR_BASE_HASHMAP_H
#define LR_BASE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>
#include "base/alloc.h"

/* Nonzero when the stored value `val` has the key (key, len). */
typedef int (*lr_hashmap_eq)(const void *ctx, uintptr_t val, const void *key, size_t len);

typedef struct lr_hm_slot {
    uint64_t hash; /* 0: empty */
    uintptr_t val;
} lr_hm_slot;

typedef struct lr_hashmap {
    lr_alloc alloc;
    lr_hashmap_eq eq;
    const void *ctx;
    lr_hm_slot *slots;
    size_t cap; /* 0 or a power of two */
    size_t count;
} lr_hashmap;

/* XXH3 of the bytes, never 0. */
uint64_t lr_hash(const void *p, size_t len);
/* XXH3 of the bytes with a seed: chain it to hash several pieces. */
uint64_t lr_hash_seeded(const void *p, size_t len, uint64_t seed);

/* No memory is taken until the first put. */
void lr_hashmap_init(lr_hashmap *m, const lr_alloc *a, lr_hashmap_eq eq, const void *ctx);
void lr_hashmap_free(lr_hashmap *m);
/* Room for n entries without growing: 0 or LOGREP_ERR__NOMEM. */
int lr_hashmap_reserve(lr_hashmap *m, size_t n);
/* Inserts, or replaces the value of an existing key (without allocating).
 * 0 or LOGREP_ERR__NOMEM (the table is then unchanged). */
int lr_hashmap_put(lr_hashmap *m, const void *key, size_t len, uintptr_t val);
/* 1 and *val (when val is not NULL) if the key is there, else 0. */
int lr_hashmap_get(const lr_hashmap *m, const void *key, size_t len, uintptr_t *val);
/* Removes the key: 1 if it was there (its value in *val), else 0. */
int lr_hashmap_del(lr_hashmap *m, const void *key, size_t len, uintptr_t *val);
/* Empties the table, keeping its memory. */
void lr_hashmap_clear(lr_hashmap *m);
static inline size_t lr_hashmap_count(const lr_hashmap *m) { return m->count; }

#endif
