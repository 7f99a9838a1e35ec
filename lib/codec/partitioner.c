/* The built-in producer partitioner of Kafka 3.3+ (KIP-794): murmur2 for
 * keys, sticky with adaptive switching for keyless records. */
#include "base/alloc.h"
#include "base/conf.h"
#include "base/prng.h"
#include <logrep.h>

struct logrep_partitioner {
    lr_alloc alloc;
    lr_prng rng;
    int32_t n;
    int32_t current;
    int64_t produced;      /* bytes sent to current since it was chosen */
    int64_t batch_size;
    int adaptive;
    int ignore_keys;
    int64_t *queued;       /* per partition, from set_load */
    uint8_t *available;
    int64_t *cumulative;   /* scratch for weighted choice */
    int32_t *candidates;
};

LOGREP_API logrep_err logrep_partitioner_new(const logrep_conf *conf, int32_t num_partitions,
                                             logrep_partitioner **out)
{
    if (!out || num_partitions < 1 || num_partitions > 1000000)
        return LOGREP_ERR__INVALID_ARG;
    const lr_alloc *a = lr_conf_alloc(conf);
    logrep_partitioner *p = lr_calloc(a, 1, sizeof *p);
    if (!p)
        return LOGREP_ERR__NOMEM;
    p->alloc = *a;
    size_t n = (size_t)num_partitions;
    p->queued = lr_calloc(a, n, sizeof *p->queued);
    p->available = lr_calloc(a, n, 1);
    p->cumulative = lr_calloc(a, n, sizeof *p->cumulative);
    p->candidates = lr_calloc(a, n, sizeof *p->candidates);
    if (!p->queued || !p->available || !p->cumulative || !p->candidates) {
        logrep_partitioner_free(p);
        return LOGREP_ERR__NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        p->available[i] = 1;
    p->n = num_partitions;
    p->current = -1;
    p->batch_size = lr_conf_int(conf, LR_CONF_BATCH_SIZE);
    p->adaptive = (int)lr_conf_int(conf, LR_CONF_PARTITIONER_ADAPTIVE);
    p->ignore_keys = (int)lr_conf_int(conf, LR_CONF_PARTITIONER_IGNORE_KEYS);
    lr_prng_seed(&p->rng, (uint64_t)lr_conf_int(conf, LR_CONF_RANDOM_SEED));
    *out = p;
    return LOGREP_OK;
}

LOGREP_API void logrep_partitioner_free(logrep_partitioner *p)
{
    if (!p)
        return;
    size_t n = (size_t)p->n;
    lr_alloc a = p->alloc;
    lr_free(&a, p->queued, n * sizeof *p->queued);
    lr_free(&a, p->available, n);
    lr_free(&a, p->cumulative, n * sizeof *p->cumulative);
    lr_free(&a, p->candidates, n * sizeof *p->candidates);
    lr_free(&a, p, sizeof *p);
}

LOGREP_API logrep_err logrep_partitioner_set_load(logrep_partitioner *p, int32_t partition,
                                                  int64_t queued_bytes, int available)
{
    if (!p || partition < 0 || partition >= p->n || queued_bytes < 0)
        return LOGREP_ERR__INVALID_ARG;
    p->queued[partition] = queued_bytes;
    p->available[partition] = available ? 1 : 0;
    return LOGREP_OK;
}

/* Next sticky partition: uniform, or weighted toward short queues the way
 * Kafka's BuiltInPartitioner does (weight = max queue + 1 - queue), among
 * available partitions (all of them when none is). */
static int32_t next_partition(logrep_partitioner *p)
{
    int32_t nc = 0;
    for (int32_t i = 0; i < p->n; i++)
        if (p->available[i])
            p->candidates[nc++] = i;
    if (nc == 0) {
        for (int32_t i = 0; i < p->n; i++)
            p->candidates[i] = i;
        nc = p->n;
    }
    if (!p->adaptive || nc == 1)
        return p->candidates[lr_prng_below(&p->rng, (uint64_t)nc)];
    int64_t maxq = 0;
    for (int32_t i = 0; i < nc; i++)
        if (p->queued[p->candidates[i]] > maxq)
            maxq = p->queued[p->candidates[i]];
    int64_t total = 0;
    for (int32_t i = 0; i < nc; i++) {
        total += maxq + 1 - p->queued[p->candidates[i]];
        p->cumulative[i] = total;
    }
    int64_t r = (int64_t)lr_prng_below(&p->rng, (uint64_t)total);
    int32_t lo = 0, hi = nc - 1;
    while (lo < hi) { /* first cumulative > r */
        int32_t mid = lo + (hi - lo) / 2;
        if (p->cumulative[mid] > r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return p->candidates[lo];
}

LOGREP_API int32_t logrep_partitioner_choose(logrep_partitioner *p, const void *key,
                                             size_t key_len, size_t record_bytes)
{
    if (!p)
        return -1;
    if (key && !p->ignore_keys)
        return logrep_murmur2_partition(key, key_len, p->n);
    if (p->current < 0 || p->produced >= p->batch_size ||
        (!p->available[p->current] && p->produced > 0)) {
        p->current = next_partition(p);
        p->produced = 0;
    }
    p->produced += (int64_t)record_bytes;
    return p->current;
}
