/* Deterministic PRNG (xoshiro256**, seeded with splitmix64). Seeds come from
 * the host through conf, never from the environment. */
#ifndef LR_BASE_PRNG_H
#define LR_BASE_PRNG_H

#include <stdint.h>

typedef struct lr_prng {
    uint64_t s[4];
} lr_prng;

void lr_prng_seed(lr_prng *r, uint64_t seed);
uint64_t lr_prng_next(lr_prng *r);
/* A well-mixed 64-bit value of x (splitmix64's finaliser): for folding
 * state such as node ids or log offsets into seeds and draws. */
uint64_t lr_prng_mix(uint64_t x);
/* Uniform in [0, n); n > 0. */
uint64_t lr_prng_below(lr_prng *r, uint64_t n);

#endif
