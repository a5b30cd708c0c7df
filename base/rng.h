/* rng.h - the deterministic random streams, so that the same seed gives the
 * same result on every platform (rand() differs between C libraries).
 *
 * Two generators, each kept for what depends on its exact stream:
 *
 *   hs_splitmix  splitmix64, one word of state: training (splits, shuffles,
 *                weight init), `fit`'s held-out split, the model tests.
 *                Model files are byte-identical for the same seed.
 *   hs_xoshiro   xoshiro256** seeded through splitmix64: the synthetic demo
 *                dataset (`hloscope synth`), whose every byte derives from
 *                the seed through it, so changing it changes every file.
 *
 * A seed made from a name comes from base/hash.h's hs_fnv1a.  Everything is
 * inline: the generators sit in training's inner loops.
 */
#ifndef HS_RNG_H
#define HS_RNG_H

#include <math.h>
#include <stdint.h>

#include "base/hash.h"

/* The splitmix64 step: advances *x and returns the next output. */
static inline uint64_t hs_splitmix64(uint64_t *x)
{
	return hs_mix64(*x += 0x9e3779b97f4a7c15ULL);
}

/* ---- splitmix64 ----------------------------------------------------------- */

typedef struct hs_splitmix {
	uint64_t s;
} hs_splitmix;

static inline hs_splitmix hs_splitmix_seed(uint64_t seed)
{
	hs_splitmix r = {seed ^ 0x9e3779b97f4a7c15ULL};
	return r;
}

static inline uint64_t hs_splitmix_next(hs_splitmix *r)
{
	return hs_splitmix64(&r->s);
}

/* Uniform in [0, 1). */
static inline double hs_splitmix_unit(hs_splitmix *r)
{
	return (double)(hs_splitmix_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, n) for n > 0 (the bias is below 2^-40 for n < 2^24). */
static inline uint64_t hs_splitmix_below(hs_splitmix *r, uint64_t n)
{
	return hs_splitmix_next(r) % n;
}

/* Fisher-Yates shuffle of v[n]. */
static inline void hs_splitmix_shuffle(hs_splitmix *r, int64_t *v, int64_t n)
{
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = (int64_t)hs_splitmix_below(r, (uint64_t)i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/* ---- xoshiro256** --------------------------------------------------------- */

typedef struct hs_xoshiro {
	uint64_t s[4];
} hs_xoshiro;

static inline void hs_xoshiro_seed(hs_xoshiro *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = hs_splitmix64(&seed);
}

static inline uint64_t hs_rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t hs_xoshiro_next(hs_xoshiro *r)
{
	uint64_t *s = r->s;
	uint64_t out = hs_rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = hs_rotl64(s[3], 45);
	return out;
}

/* Uniform in [0, 1). */
static inline double hs_xoshiro_unit(hs_xoshiro *r)
{
	return (double)(hs_xoshiro_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n); 0 when n <= 1. */
static inline int hs_xoshiro_below(hs_xoshiro *r, int n)
{
	return n <= 1 ? 0 : (int)(hs_xoshiro_next(r) % (uint64_t)n);
}

/* Standard normal (Box-Muller, one value per call). */
static inline double hs_xoshiro_normal(hs_xoshiro *r)
{
	double u1 = 1.0 - hs_xoshiro_unit(r), u2 = hs_xoshiro_unit(r);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
