/* Base layer: errors, configuration, version. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include <logrep.h>

Test(errors, names_and_strings)
{
    cr_assert_str_eq(logrep_err_name(LOGREP_OK), "NONE");
    cr_assert_str_eq(logrep_err_name(6), "NOT_LEADER_OR_FOLLOWER");
    cr_assert_str_eq(logrep_err_name(74), "FENCED_LEADER_EPOCH");
    cr_assert_str_eq(logrep_err_name(-1), "UNKNOWN_SERVER_ERROR");
    cr_assert_str_eq(logrep_err_name(LOGREP_ERR__CORRUPT), "_CORRUPT");
    cr_assert_str_eq(logrep_err_name(12345), "UNKNOWN");
    cr_assert_str_eq(logrep_err_str(19),
                     "Messages are rejected since there are fewer in-sync replicas than required.");
    cr_assert(logrep_err_is_retriable(LOGREP_ERR_NOT_LEADER_OR_FOLLOWER));
    cr_assert(!logrep_err_is_retriable(LOGREP_ERR_INVALID_RECORD));
    cr_assert(!logrep_err_is_retriable(LOGREP_ERR__IO));
    /* Wire codes are Kafka's, numerically. */
    cr_assert_eq(LOGREP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, 45);
    cr_assert_eq(LOGREP_ERR_INVALID_RECORD, 87);
    cr_assert_eq(LOGREP_ERR_PRODUCER_FENCED, 90);
    /* Every code from -1 to 127 has a name: the table is complete. */
    for (int e = -1; e <= 127; e++)
        cr_assert_str_neq(logrep_err_name(e), "UNKNOWN", "code %d", e);
}

Test(conf, set_get_validate)
{
    logrep_conf *c = logrep_conf_new();
    char err[128], buf[64];
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "2", err, sizeof err), LOGREP_OK);
    int64_t v;
    cr_assert_eq(logrep_conf_get_int64(c, "min.insync.replicas", &v), LOGREP_OK);
    cr_assert_eq(v, 2);
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "0", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "outside") != NULL, "%s", err);
    cr_assert_eq(logrep_conf_set(c, "min.insync.replicas", "2x", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_get_int64(c, "min.insync.replicas", &v), LOGREP_OK);
    cr_assert_eq(v, 2, "failed set keeps the old value");
    cr_assert_eq(logrep_conf_set(c, "no.such.thing", "1", err, sizeof err), LOGREP_ERR__UNKNOWN_CONF);
    cr_assert_eq(logrep_conf_set(c, "unclean.leader.election.enable", "yes", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "unclean.leader.election.enable", "true", err, sizeof err),
                 LOGREP_OK);
    cr_assert_eq(logrep_conf_get(c, "unclean.leader.election.enable", buf, sizeof buf, NULL),
                 LOGREP_OK);
    cr_assert_str_eq(buf, "true");
    cr_assert_eq(logrep_conf_set(c, "compression.type", "brotli", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "compression.type", "zstd", err, sizeof err), LOGREP_OK);
    /* Kafka's broker refuses the producer-side "none" and gzip level 0. */
    cr_assert_eq(logrep_conf_set(c, "compression.type", "none", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert(strstr(err, "none") != NULL, "%s", err);
    cr_assert_eq(logrep_conf_set(c, "compression.type", "uncompressed", err, sizeof err), LOGREP_OK);
    static const char *const gz_bad[] = {"0", "10", "-2"}, *const gz_ok[] = {"-1", "1", "9"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(logrep_conf_set(c, "compression.gzip.level", gz_bad[k], err, sizeof err),
                     LOGREP_ERR__INVALID_CONF, "gzip level %s", gz_bad[k]);
        cr_assert_eq(logrep_conf_set(c, "compression.gzip.level", gz_ok[k], err, sizeof err),
                     LOGREP_OK, "gzip level %s", gz_ok[k]);
        cr_assert_eq(logrep_conf_get_int64(c, "compression.gzip.level", &v), LOGREP_OK);
        cr_assert_eq(v, atoi(gz_ok[k]));
    }
    cr_assert_eq(logrep_conf_set(c, "compression.lz4.level", "18", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "compression.lz4.level", "0", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "compression.zstd.level", "23", err, sizeof err),
                 LOGREP_ERR__INVALID_CONF);
    cr_assert_eq(logrep_conf_set(c, "compression.zstd.level", "-131072", err, sizeof err),
                 LOGREP_OK);
    cr_assert_eq(logrep_conf_set(c, "compression.type", "zstd", err, sizeof err), LOGREP_OK);
    size_t need;
    cr_assert_eq(logrep_conf_get(c, "compression.type", buf, 3, &need), LOGREP_OK);
    cr_assert_str_eq(buf, "zs");
    cr_assert_eq(need, 5u);
    cr_assert_eq(logrep_conf_get(c, "segment.bytes", buf, sizeof buf, NULL), LOGREP_OK);
    cr_assert_str_eq(buf, "1073741824");
    logrep_conf *d = logrep_conf_dup(c);
    logrep_conf_free(c);
    cr_assert_eq(logrep_conf_get(d, "compression.type", buf, sizeof buf, NULL), LOGREP_OK);
    cr_assert_str_eq(buf, "zstd");
    logrep_conf_free(d);
    logrep_conf_free(NULL);
}

Test(conf, property_listing)
{
    size_t n = logrep_conf_property_count();
    cr_assert_gt(n, 20u);
    for (size_t i = 0; i < n; i++) {
        const char *name, *doc;
        cr_assert_eq(logrep_conf_property(i, &name, &doc), LOGREP_OK);
        cr_assert_gt(strlen(name), 0u);
        cr_assert_gt(strlen(doc), 0u);
        for (size_t j = 0; j < i; j++) {
            const char *other;
            logrep_conf_property(j, &other, NULL);
            cr_assert_str_neq(name, other, "duplicate property %s", name);
        }
    }
    cr_assert_eq(logrep_conf_property(n, NULL, NULL), LOGREP_ERR__INVALID_ARG);
}

Test(version, consistent)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", LOGREP_VERSION_MAJOR, LOGREP_VERSION_MINOR,
             LOGREP_VERSION_PATCH);
    cr_assert_str_eq(logrep_version_string(), want);
    cr_assert_eq(logrep_version_number(), (uint32_t)LOGREP_VERSION_NUMBER);
}

/* ------------------------------------------------------------ hashmap */


/* Keys are "k<number>"; a stored value is the number, so equality parses
 * the key, as the library's users compare against their own records. */
static int hm_eq(const void *ctx, uintptr_t val, const void *key, size_t len)
{
    (void)ctx;
    char buf[32];
    int n = snprintf(buf, sizeof buf, "k%lu", (unsigned long)val);
    return (size_t)n == len && memcmp(buf, key, len) == 0;
}

static size_t hm_key(char *buf, size_t v)
{
    return (size_t)snprintf(buf, 32, "k%lu", (unsigned long)v);
}

/* Counts live bytes and fails every allocation once `fail` is set. */
typedef struct hm_counting {
    size_t live, allocs;
    int fail;
} hm_counting;

static void *hm_alloc(void *ctx, size_t n)
{
    hm_counting *c = ctx;
    if (c->fail)
        return NULL;
    c->live += n;
    c->allocs++;
    return malloc(n ? n : 1);
}
static void *hm_realloc(void *ctx, void *p, size_t o, size_t n)
{
    (void)ctx; (void)p; (void)o; (void)n;
    cr_assert_fail("the table never reallocates");
    return NULL;
}
static void hm_free(void *ctx, void *p, size_t n)
{
    hm_counting *c = ctx;
    if (p)
        c->live -= n;
    free(p);
}

Test(hashmap, matches_a_reference_through_growth_and_deletion)
{
    enum { N = 5000 };
    static unsigned char present[N];
    memset(present, 0, sizeof present);
    hm_counting cnt = {0};
    logrep_allocator a = {&cnt, hm_alloc, hm_realloc, hm_free};
    lr_hashmap m;
    lr_hashmap_init(&m, &a, hm_eq, NULL);
    char k[32];
    uintptr_t v;
    cr_assert_eq(lr_hashmap_get(&m, "k1", 2, &v), 0);
    cr_assert_eq(lr_hashmap_del(&m, "k1", 2, &v), 0);
    cr_assert_eq(cnt.allocs, 0, "an empty table takes no memory");
    uint64_t x = 88172645463325252ull;
    size_t live = 0;
    for (int step = 0; step < 60000; step++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t key = (size_t)(x % N);
        size_t len = hm_key(k, key);
        if ((x >> 32) % 3 == 0) {
            int had = lr_hashmap_del(&m, k, len, &v);
            cr_assert_eq(had, present[key], "del of k%zu", key);
            if (had) {
                cr_assert_eq(v, key);
                present[key] = 0;
                live--;
            }
        } else {
            cr_assert_eq(lr_hashmap_put(&m, k, len, key), 0);
            live += !present[key];
            present[key] = 1;
        }
        cr_assert_eq(lr_hashmap_count(&m), live);
        if (step % 997 == 0) {
            for (size_t i = 0; i < N; i++) {
                size_t l = hm_key(k, i);
                int got = lr_hashmap_get(&m, k, l, &v);
                cr_assert_eq(got, present[i], "step %d key %zu", step, i);
                if (got)
                    cr_assert_eq(v, i);
            }
        }
    }
    cr_assert_leq(m.count * 2, m.cap, "load stays at most one half");
    lr_hashmap_clear(&m);
    cr_assert_eq(lr_hashmap_count(&m), 0);
    cr_assert_eq(lr_hashmap_get(&m, "k3", 2, NULL), 0);
    lr_hashmap_free(&m);
    cr_assert_eq(cnt.live, 0, "every byte returned");
}

Test(hashmap, replace_and_delete_never_allocate_and_nomem_leaves_it_unchanged)
{
    hm_counting cnt = {0};
    logrep_allocator a = {&cnt, hm_alloc, hm_realloc, hm_free};
    lr_hashmap m;
    lr_hashmap_init(&m, &a, hm_eq, NULL);
    char k[32];
    size_t n = 0;
    /* Fill up to the last entry before the table must grow. */
    do {
        size_t len = hm_key(k, n);
        cr_assert_eq(lr_hashmap_put(&m, k, len, n), 0);
        n++;
    } while (lr_hashmap_count(&m) + 1 <= m.cap / 2);
    size_t cap = m.cap;
    cnt.fail = 1;
    /* A replaced value: hm_eq compares against the key, so keep it. */
    size_t len = hm_key(k, 0);
    cr_assert_eq(lr_hashmap_put(&m, k, len, 0), 0, "replace needs no memory");
    len = hm_key(k, n);
    cr_assert_eq(lr_hashmap_put(&m, k, len, n), LOGREP_ERR__NOMEM);
    cr_assert_eq(lr_hashmap_count(&m), n);
    cr_assert_eq(m.cap, cap);
    cr_assert_eq(lr_hashmap_get(&m, k, len, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        uintptr_t v;
        size_t l = hm_key(k, i);
        cr_assert_eq(lr_hashmap_get(&m, k, l, &v), 1);
        cr_assert_eq(v, i);
    }
    /* Delete then insert another key: no growth, so no allocation. */
    len = hm_key(k, 1);
    cr_assert_eq(lr_hashmap_del(&m, k, len, NULL), 1);
    len = hm_key(k, n);
    cr_assert_eq(lr_hashmap_put(&m, k, len, n), 0);
    cnt.fail = 0;
    cr_assert_eq(lr_hashmap_reserve(&m, 10 * n), 0);
    cr_assert_geq(m.cap, 20 * n);
    cr_assert_eq(lr_hashmap_reserve(&m, SIZE_MAX / 4), LOGREP_ERR__NOMEM, "growth is bounded");
    for (size_t i = 0; i <= n; i++) {
        size_t l = hm_key(k, i);
        cr_assert_eq(lr_hashmap_get(&m, k, l, NULL), i != 1);
    }
    lr_hashmap_free(&m);
    cr_assert_eq(cnt.live, 0);
}

Test(hashmap, hash_is_xxh3_and_never_zero)
{
    /* XXH3_64bits of the empty input (xxHash's published value). */
    cr_assert_eq(lr_hash("", 0), 0x2D06800538D394C2ull);
    cr_assert_eq(lr_hash("abc", 3), lr_hash("abc", 3));
    cr_assert_neq(lr_hash("abc", 3), lr_hash("abd", 3));
}
