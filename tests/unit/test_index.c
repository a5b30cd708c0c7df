/* test_index.c - the hash index (base/index.h) over entries of the test's
 * own: texts, integers, keys that collide, growth, clearing, refusals; and
 * hs_mix64 (base/hash.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/rng.h"
#include "t.h"

#define N 100000

static char names[N][16];

static int same_name(const void *ctx, int32_t e, const void *key)
{
	return strcmp(((const char (*)[16])ctx)[e], key) == 0;
}

static uint32_t name_hash(const char *s)
{
	return (uint32_t)hs_fnv1a(s, HS_FNV_BASIS);
}

static void test_texts(void)
{
	hs_index ix = {0};
	int ok = hs_index_find(&ix, name_hash("x"), same_name, names, "x") == -1;
	CHECK("index: an empty index finds nothing", ok);

	int added = 1;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "add.%d", i);
		added &= hs_index_put(&ix, name_hash(names[i]), i, same_name, names, names[i]) == i;
	}
	CHECK("index: put adds each new key as the entry given", added && ix.n == N);
	int found = 1;
	for (int i = 0; i < N; i++)
		found &= hs_index_find(&ix, name_hash(names[i]), same_name, names, names[i]) == i;
	CHECK("index: every key finds its entry", found);
	CHECK("index: put of a key already in gives its entry, adds nothing",
	      hs_index_put(&ix, name_hash("add.77"), N, same_name, names, "add.77") == 77 && ix.n == N);
	CHECK("index: a key not in is not found",
	      hs_index_find(&ix, name_hash("add.-1"), same_name, names, "add.-1") == -1);
	CHECK("index: at most half full", (ix.mask + 1) >= 2 * ix.n && (ix.mask + 1) / 2 < 2 * ix.n);

	size_t cap = ix.mask + 1;
	hs_index_clear(&ix);
	CHECK("index: cleared, nothing is found and the slots stay",
	      ix.n == 0 && ix.mask + 1 == cap &&
		      hs_index_find(&ix, name_hash("add.5"), same_name, names, "add.5") == -1);
	CHECK("index: refilled after a clear",
	      hs_index_add(&ix, name_hash("add.5"), 5) == 0 &&
		      hs_index_find(&ix, name_hash("add.5"), same_name, names, "add.5") == 5);
	hs_index_free(&ix);
	CHECK("index: freed, empty again", !ix.slot && !ix.n &&
	      hs_index_find(&ix, name_hash("add.5"), same_name, names, "add.5") == -1);
}

/* Every key hashes alike: the equality test tells them apart. */
static void test_collisions(void)
{
	hs_index ix = {0};
	int ok = 1;
	for (int i = 0; i < 1000; i++)
		ok &= hs_index_put(&ix, 42, i, same_name, names, names[i]) == i;
	for (int i = 0; i < 1000; i++)
		ok &= hs_index_find(&ix, 42, same_name, names, names[i]) == i;
	CHECK("index: keys of one hash are told apart by the test", ok);
	hs_index_free(&ix);
}

static int same_i64(const void *ctx, int32_t e, const void *key)
{
	return ((const int64_t *)ctx)[e] == *(const int64_t *)key;
}

/* 64-bit keys that differ only in their high bits (XLA's 64-bit ids put
 * the computation there). */
static void test_integers(void)
{
	static int64_t keys[N];
	hs_index ix = {0};
	int ok = hs_index_reserve(&ix, N) == 0;
	size_t cap = ix.mask + 1;
	for (int i = 0; i < N; i++) {
		keys[i] = (int64_t)i << 32;
		ok &= hs_index_add(&ix, (uint32_t)hs_mix64((uint64_t)keys[i]), i) == 0;
	}
	CHECK("index: reserved, it does not grow", ok && ix.mask + 1 == cap);
	ok = 1;
	for (int i = 0; i < N; i++)
		ok &= hs_index_find(&ix, (uint32_t)hs_mix64((uint64_t)keys[i]), same_i64, keys, &keys[i]) == i;
	int64_t none = 7;
	CHECK("index: 64-bit keys through hs_mix64",
	      ok && hs_index_find(&ix, (uint32_t)hs_mix64(7), same_i64, keys, &none) == -1);
	hs_index_free(&ix);
}

static void test_limits(void)
{
	hs_index ix = {0};
	CHECK("index: more than HS_INDEX_MAX entries refused, the index as it was",
	      hs_index_reserve(&ix, (size_t)HS_INDEX_MAX + 1) == -1 && !ix.slot);
	CHECK("index: reserve of 0 is 16 slots", hs_index_reserve(&ix, 0) == 0 && ix.mask == 15);
	hs_index_free(&ix);
}

static void test_mix(void)
{
	uint64_t s = 5;
	uint64_t a = hs_splitmix64(&s);
	CHECK("mix64: splitmix64's finalizer (the stream is unchanged)",
	      a == hs_mix64(5 + 0x9e3779b97f4a7c15ULL) && hs_mix64(0) == 0);
	int spread = 1;
	for (uint64_t i = 1; i < 64; i++)
		spread &= hs_mix64(i) != hs_mix64(i + 1) && (hs_mix64(i) >> 32) != 0;
	CHECK("mix64: small integers reach the high bits", spread);
}

int main(void)
{
	test_texts();
	test_collisions();
	test_integers();
	test_limits();
	test_mix();
	T_DONE();
}
