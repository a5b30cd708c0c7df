/* hash.h - the byte hash: FNV-1a, 64-bit and 32-bit; and hs_mix64, which
 * spreads a 64-bit value's bits over all 64.
 *
 * One definition for every hash table keyed by a name or a byte string, for
 * cache keys, and for the seeds that are made from names (base/rng.h's
 * streams take them).  FNV-1a (Fowler, Noll, Vo): for each byte, h ^= byte,
 * then h *= prime.  The values are the published ones (FNV-1a 64 of "a" is
 * 0xaf63dc4c8601ec8c, FNV-1a 32 of "a" is 0xe40c292c), so a hash stored or
 * printed anywhere (a seed, a cache key) stays what it was.
 *
 * Every function takes the running hash last: start from HS_FNV_BASIS (or
 * HS_FNV32_BASIS), or from the result of a previous call to hash several
 * pieces as one, or from another basis for a second, independent hash.
 *
 *   uint64_t h = hs_fnv1a_bytes(&x, sizeof x, HS_FNV_BASIS);
 *   h = hs_fnv1a(name, h);                      // then a NUL-terminated text
 *
 * FNV-1a's low bits mix poorly for keys that differ only in their last byte;
 * a table that masks the hash with a power of two may fold the high bits in
 * first (h ^ h >> 29).  Not a cryptographic hash: an
 * adversary can make keys collide.  Everything is inline: the hashes sit in
 * inner loops (the featurizer's opcode lookup, the explorer's filters).
 */
#ifndef HS_HASH_H
#define HS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HS_FNV_BASIS 0xcbf29ce484222325ULL
#define HS_FNV_PRIME 0x100000001b3ULL
#define HS_FNV32_BASIS 2166136261u
#define HS_FNV32_PRIME 16777619u

/* One byte into a 64-bit hash: for a loop that transforms the bytes as it
 * hashes them (lower-cases them, say). */
static inline uint64_t hs_fnv1a_byte(unsigned char c, uint64_t h)
{
	return (h ^ c) * HS_FNV_PRIME;
}

/* The n bytes at p. */
static inline uint64_t hs_fnv1a_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HS_FNV_PRIME;
	return h;
}

/* The bytes of the NUL-terminated text s (without the NUL). */
static inline uint64_t hs_fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HS_FNV_PRIME;
	return h;
}

/* The 32-bit variant: the n bytes at p. */
static inline uint32_t hs_fnv1a32_bytes(const void *p, size_t n, uint32_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HS_FNV32_PRIME;
	return h;
}

/* The 32-bit variant: the NUL-terminated text s. */
static inline uint32_t hs_fnv1a32(const char *s, uint32_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HS_FNV32_PRIME;
	return h;
}

/* A 64-bit value with every bit depending on every bit of x (splitmix64's
 * finalizer; a bijection, so distinct values stay distinct): an integer key
 * made into a hash, or hashes combined. */
static inline uint64_t hs_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
