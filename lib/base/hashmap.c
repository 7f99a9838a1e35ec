#include "base/hashmap.h"

#include <string.h>
#include <xxhash.h>

uint64_t lr_hash(const void *p, size_t len)
{
    uint64_t h = XXH3_64bits(p, len);
    return h ? h : 1;
}

uint64_t lr_hash_seeded(const void *p, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, len, seed);
}

void lr_hashmap_init(lr_hashmap *m, const lr_alloc *a, lr_hashmap_eq eq, const void *ctx)
{
    memset(m, 0, sizeof *m);
    m->alloc = *a;
    m->eq = eq;
    m->ctx = ctx;
}

void lr_hashmap_free(lr_hashmap *m)
{
    lr_free(&m->alloc, m->slots, m->cap * sizeof *m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

void lr_hashmap_clear(lr_hashmap *m)
{
    if (m->slots)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t find(const lr_hashmap *m, uint64_t h, const void *key, size_t len)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const lr_hm_slot *s = &m->slots[i];
        if (!s->hash || (s->hash == h && m->eq(m->ctx, s->val, key, len)))
            return i;
    }
}

int lr_hashmap_reserve(lr_hashmap *m, size_t n)
{
    if (n <= m->cap / 2)
        return 0;
    size_t cap = m->cap ? m->cap : 16;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 2 / sizeof *m->slots)
            return LOGREP_ERR__NOMEM;
        cap *= 2;
    }
    lr_hm_slot *s = lr_calloc(&m->alloc, cap, sizeof *s);
    if (!s)
        return LOGREP_ERR__NOMEM;
    /* Stored hashes place the entries again; keys are not needed. */
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].hash)
            continue;
        size_t j = (size_t)m->slots[i].hash & (cap - 1);
        while (s[j].hash)
            j = (j + 1) & (cap - 1);
        s[j] = m->slots[i];
    }
    lr_free(&m->alloc, m->slots, m->cap * sizeof *m->slots);
    m->slots = s;
    m->cap = cap;
    return 0;
}

int lr_hashmap_get(const lr_hashmap *m, const void *key, size_t len, uintptr_t *val)
{
    if (!m->count)
        return 0;
    const lr_hm_slot *s = &m->slots[find(m, lr_hash(key, len), key, len)];
    if (!s->hash)
        return 0;
    if (val)
        *val = s->val;
    return 1;
}

int lr_hashmap_put(lr_hashmap *m, const void *key, size_t len, uintptr_t val)
{
    uint64_t h = lr_hash(key, len);
    if (m->count) {
        lr_hm_slot *s = &m->slots[find(m, h, key, len)];
        if (s->hash) {
            s->val = val;
            return 0;
        }
    }
    if (m->count + 1 > m->cap / 2 && lr_hashmap_reserve(m, m->count + 1))
        return LOGREP_ERR__NOMEM;
    lr_hm_slot *s = &m->slots[find(m, h, key, len)];
    s->hash = h;
    s->val = val;
    m->count++;
    return 0;
}

int lr_hashmap_del(lr_hashmap *m, const void *key, size_t len, uintptr_t *val)
{
    if (!m->count)
        return 0;
    size_t mask = m->cap - 1, i = find(m, lr_hash(key, len), key, len);
    if (!m->slots[i].hash)
        return 0;
    if (val)
        *val = m->slots[i].val;
    /* Backward shift: pull later entries of the run into the hole when
     * their home slot does not lie cyclically in (hole, j]. */
    for (size_t j = (i + 1) & mask; m->slots[j].hash; j = (j + 1) & mask) {
        size_t home = (size_t)m->slots[j].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].hash = 0;
    m->slots[i].val = 0;
    m->count--;
    return 1;
}
