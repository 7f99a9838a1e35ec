/* The cleaner's key map: a 128-bit XXH3 hash of each key and the latest
 * offset seen for it, in one fixed block sized before the pass (Kafka's
 * SkimpyOffsetMap, with XXH3-128 in place of MD5). Two keys with the same
 * 128-bit hash would share a slot, so the older key's latest value could
 * be dropped; at 2^-128 per pair that risk is accepted, as Kafka accepts
 * MD5's. Slot: hash high 64 bits, low 64 bits, offset + 1 (0: empty, so a
 * zeroed block is an empty map). */
#include <string.h>
#include <xxhash.h>

#include "log/log_int.h"

_Static_assert(sizeof(uint64_t) * 3 == LR_KEYMAP_SLOT, "slot size");

size_t lr_keymap_slots_for(uint64_t keys, uint64_t max_bytes)
{
    uint64_t want = (uint64_t)((double)keys / LR_KEYMAP_LOAD) + 2;
    uint64_t cap = max_bytes / LR_KEYMAP_SLOT;
    if (want > cap)
        want = cap;
    if (want > SIZE_MAX / LR_KEYMAP_SLOT)
        want = SIZE_MAX / LR_KEYMAP_SLOT;
    return want < 2 ? 2 : (size_t)want;
}

logrep_err lr_keymap_init(lr_keymap *m, const lr_alloc *a, size_t nslots)
{
    memset(m, 0, sizeof *m);
    m->slots = lr_calloc(a, nslots, LR_KEYMAP_SLOT);
    if (!m->slots)
        return LOGREP_ERR__NOMEM;
    m->nslots = nslots;
    m->max_used = (size_t)((double)nslots * LR_KEYMAP_LOAD);
    if (m->max_used < 1)
        m->max_used = 1;
    m->last_offset = -1;
    return LOGREP_OK;
}

void lr_keymap_free(lr_keymap *m, const lr_alloc *a)
{
    if (m->slots)
        lr_free(a, m->slots, m->nslots * LR_KEYMAP_SLOT);
    memset(m, 0, sizeof *m);
    m->last_offset = -1;
}

typedef struct slot {
    uint64_t hi, lo, off1;
} slot;

void lr_keymap_hash(const lr_keymap *m, const void *key, size_t len, lr_keyhash *out)
{
    XXH128_hash_t h = XXH3_128bits(key, len);
    out->hi = h.high64;
    out->lo = h.low64;
    out->home = (size_t)(h.low64 % m->nslots);
    /* A map larger than the caches costs a miss a key: the caller hashes a
     * run of keys first, so their slots load while it hashes the next. */
    __builtin_prefetch((const slot *)(const void *)m->slots + out->home);
}

/* The slot of the hash, or the empty slot where it would go. */
static slot *find(const lr_keymap *m, const lr_keyhash *h)
{
    slot *v = (slot *)(void *)m->slots;
    size_t i = h->home;
    while (v[i].off1 && (v[i].hi != h->hi || v[i].lo != h->lo))
        if (++i == m->nslots)
            i = 0;
    return &v[i];
}

int lr_keymap_put_hashed(lr_keymap *m, const lr_keyhash *h, int64_t offset)
{
    slot *s = find(m, h);
    if (!s->off1) {
        if (m->used >= m->max_used)
            return 1;
        m->used++;
        s->hi = h->hi;
        s->lo = h->lo;
    }
    s->off1 = (uint64_t)offset + 1;
    m->last_offset = offset;
    return 0;
}

int64_t lr_keymap_get_hashed(const lr_keymap *m, const lr_keyhash *h)
{
    return (int64_t)find(m, h)->off1 - 1;
}

int lr_keymap_put(lr_keymap *m, const void *key, size_t len, int64_t offset)
{
    lr_keyhash h;
    lr_keymap_hash(m, key, len, &h);
    return lr_keymap_put_hashed(m, &h, offset);
}

int64_t lr_keymap_get(const lr_keymap *m, const void *key, size_t len)
{
    lr_keyhash h;
    lr_keymap_hash(m, key, len, &h);
    return lr_keymap_get_hashed(m, &h);
}
