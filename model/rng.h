/* rng.h - a small deterministic random number generator (splitmix64), so
 * that training and `fit` give the same result for the same --seed on every
 * platform (rand() differs between C libraries). */
#ifndef HS_RNG_H
#define HS_RNG_H

#include <stdint.h>

typedef struct rng {
	uint64_t s;
} rng;

static inline rng rng_seed(uint64_t seed)
{
	rng r = {seed ^ 0x9e3779b97f4a7c15ULL};
	return r;
}

static inline uint64_t rng_next(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_unit(rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, n) for n > 0 (the bias is below 2^-40 for n < 2^24). */
static inline uint64_t rng_below(rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* Fisher-Yates shuffle of v[n]. */
static inline void rng_shuffle(rng *r, int64_t *v, int64_t n)
{
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)rng_below(r, (uint64_t)i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

#endif
