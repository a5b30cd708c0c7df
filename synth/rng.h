/* rng.h - the random stream of the demo dataset: splitmix64 seeding a
 * xoshiro256** generator, and the FNV-1a hash that turns names into per-file
 * seeds and test file names.  Every number synth writes derives from the
 * seed through these, so changing them changes every byte of the output.
 *
 * This is not model/rng.h (a one-word splitmix64 stream for training); the
 * two are kept apart on purpose until the shared basics are unified.
 */
#ifndef HS_SYNTH_RNG_H
#define HS_SYNTH_RNG_H

#include <math.h>
#include <stdint.h>

#define SYNTH_FNV_BASIS 0xcbf29ce484222325ull
#define SYNTH_FNV_ALT 0x84222325cbf29ce4ull /* a second basis: a second, independent hash */

typedef struct synth_rng {
	uint64_t s[4];
} synth_rng;

static inline uint64_t synth_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void synth_rng_seed(synth_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = synth_splitmix(&seed);
}

static inline uint64_t synth_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t synth_rng_next(synth_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = synth_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = synth_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, 1). */
static inline double synth_rng_unit(synth_rng *r)
{
	return (double)(synth_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n); 0 when n <= 1. */
static inline int synth_rng_below(synth_rng *r, int n)
{
	return n <= 1 ? 0 : (int)(synth_rng_next(r) % (uint64_t)n);
}

/* Standard normal (Box-Muller, one value per call). */
static inline double synth_rng_normal(synth_rng *r)
{
	double u1 = 1.0 - synth_rng_unit(r), u2 = synth_rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline uint64_t synth_fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif
