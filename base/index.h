/* index.h - one hash index over the caller's own entries.
 *
 * The caller keeps its entries in arrays of its own (a vector of names, a
 * module's instructions) numbered 0, 1, 2...; the index finds an entry's
 * number from a key.  It holds per slot the key's 32-bit hash and the entry's
 * number (8 bytes; open addressing, linear probing, grown to stay at most
 * half full) and nothing of the keys themselves: a lookup passes the key's
 * hash and an equality test of the key against an entry of the caller's
 * arrays.
 *
 *     hs_index ix = {0};
 *     uint32_t h = (uint32_t)hs_fnv1a(name, HS_FNV_BASIS);
 *     int32_t e = hs_index_find(&ix, h, same_name, names, name);
 *     if (e < 0) {
 *             e = (int32_t)names->n;           // a new entry, pushed first
 *             if (push(names, name) || hs_index_add(&ix, h, e))
 *                     ... out of memory (pop what was pushed) ...
 *     }
 *     hs_index_free(&ix);
 *
 * The hash may be any 32 bits that vary with the key: the index spreads
 * them itself (Fibonacci hashing: the top bits of h * 2^32/phi), so the low
 * bits of FNV-1a or a small integer do as they are.  A 64-bit integer key
 * goes through hs_mix64 (base/hash.h) first, as its high bits would be lost.
 * Entries are 0 .. 2^30 - 1.  Nothing is removed, but everything can be
 * cleared.  Out of memory is -1 from hs_index_add, hs_index_put and
 * hs_index_reserve, with the index as it was; the caller reports it.  The
 * lookups are inline, so that an equality test given as a constant is
 * inlined into them.
 */
#ifndef HS_INDEX_H
#define HS_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define HS_INDEX_MAX (1 << 30)  /* entries: at most this many */

typedef struct hs_index_slot {
	uint32_t hash;
	int32_t entry;              /* -1: an empty slot */
} hs_index_slot;

typedef struct hs_index {
	hs_index_slot *slot;        /* NULL until the first entry */
	size_t mask;                /* slots - 1 */
	size_t n;                   /* entries */
	int shift;                  /* 32 - log2(slots) */
} hs_index;

/* Whether entry `entry` of the caller's arrays (ctx) has the key `key`. */
typedef int (*hs_index_eq)(const void *ctx, int32_t entry, const void *key);

/* Room for `n` entries in all without growing: 0, or -1 (out of memory,
 * or more than HS_INDEX_MAX). */
int hs_index_reserve(hs_index *x, size_t n);
/* No entries (the slots are kept for reuse). */
void hs_index_clear(hs_index *x);
void hs_index_free(hs_index *x);

static inline size_t hs_index_home_(const hs_index *x, uint32_t h)
{
	return (uint32_t)(h * 0x9e3779b1u) >> x->shift;
}

/* The entry with the key whose hash is h, or -1. */
static inline int32_t hs_index_find(const hs_index *x, uint32_t h, hs_index_eq eq, const void *ctx,
				    const void *key)
{
	if (!x->n)
		return -1;
	for (size_t i = hs_index_home_(x, h);; i = (i + 1) & x->mask) {
		hs_index_slot s = x->slot[i];
		if (s.entry < 0)
			return -1;
		if (s.hash == h && eq(ctx, s.entry, key))
			return s.entry;
	}
}

/* Adds `entry` under hash h, not looking for an equal key (the caller
 * knows there is none, or keeps the first of equal ones by finding it
 * first): 0, or -1 when out of memory. */
static inline int hs_index_add(hs_index *x, uint32_t h, int32_t entry)
{
	if ((x->n + 1) * 2 > (x->slot ? x->mask + 1 : 0) && hs_index_reserve(x, x->n + 1) != 0)
		return -1;
	size_t i = hs_index_home_(x, h);
	while (x->slot[i].entry >= 0)
		i = (i + 1) & x->mask;
	x->slot[i] = (hs_index_slot){h, entry};
	x->n++;
	return 0;
}

/* The entry with the key, or else `entry` added for it: the entry found,
 * `entry` when added, -1 when out of memory.  One probe either way.  For
 * an entry that exists already (row i keyed by its own content); an entry
 * the caller has yet to push goes find, push, add, so that a failed push
 * leaves no number in the index that names nothing. */
static inline int32_t hs_index_put(hs_index *x, uint32_t h, int32_t entry, hs_index_eq eq,
				   const void *ctx, const void *key)
{
	if ((x->n + 1) * 2 > (x->slot ? x->mask + 1 : 0) && hs_index_reserve(x, x->n + 1) != 0)
		return hs_index_find(x, h, eq, ctx, key);   /* found, or -1: out of memory */
	size_t i = hs_index_home_(x, h);
	for (; x->slot[i].entry >= 0; i = (i + 1) & x->mask)
		if (x->slot[i].hash == h && eq(ctx, x->slot[i].entry, key))
			return x->slot[i].entry;
	x->slot[i] = (hs_index_slot){h, entry};
	x->n++;
	return entry;
}

#endif
