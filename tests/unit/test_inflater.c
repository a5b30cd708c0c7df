/* Inflater unit tests (loader/inflater.h), run on both builds: test_inflater
 * uses the build's inflater (ISA-L when found), test_inflater_zlib the zlib
 * fallback.  zlib's own deflate/inflate/crc32 are the reference: every
 * stream is compressed by zlib, decompressed through the interface in odd
 * input and output chunk sizes, and compared byte for byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "loader/inflater.h"
#include "t.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Data that compresses like layout files: small integers as float32 with
 * runs, plus a stretch of noise so that stored and fixed blocks show up. */
static void make_data(uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4) {
		float v = (i / 4) % 18 < (next_rand() % 7) ? (float)(next_rand() % 6) : -1.0f;
		memcpy(p + i, &v, 4);
	}
	for (size_t i = n - n % 4; i < n; i++)
		p[i] = (uint8_t)next_rand();
	for (size_t i = n / 3; i < n / 3 + n / 20 && i < n; i++)
		p[i] = (uint8_t)next_rand();
}

/* zlib's raw deflate of src at `level` / `strategy`; *out_n bytes, caller frees
 * (INFLATER_IN_PAD bytes of slack after them). */
static uint8_t *deflate_raw(const uint8_t *src, size_t n, int level, int strategy, size_t *out_n)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, strategy) != Z_OK)
		return NULL;
	size_t bound = deflateBound(&zs, (uLong)n);
	uint8_t *out = calloc(1, bound + INFLATER_IN_PAD);
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	int ret = deflate(&zs, Z_FINISH);
	*out_n = zs.total_out;
	deflateEnd(&zs);
	if (ret != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

/* Inflates comp[0..comp_n) feeding at most `in_step` bytes and asking for at
 * most `out_step` at a time into out[0..cap); returns the final status and
 * sets *got. */
static inflater_status inflate_steps(const uint8_t *comp, size_t comp_n, size_t in_step,
				     size_t out_step, uint8_t *out, size_t cap, size_t *got,
				     const char **why)
{
	inflater *f = inflater_new();
	size_t fed = 0;
	inflater_status st = INFLATER_OK;
	*got = 0;
	if (!f)
		return INFLATER_ERROR;
	while (*got < cap) {
		if (inflater_avail_in(f) == 0 && fed < comp_n) {
			size_t k = comp_n - fed < in_step ? comp_n - fed : in_step;
			inflater_feed(f, comp + fed, k);
			fed += k;
		}
		size_t want = cap - *got < out_step ? cap - *got : out_step, made;
		st = inflater_run(f, out + *got, want, &made, why);
		*got += made;
		if (st != INFLATER_OK)
			break;
		if (made < want && inflater_avail_in(f) != 0) {
			st = INFLATER_ERROR; /* the contract: all input used when not full */
			*why = "stopped with input left";
			break;
		}
		if (made < want && fed == comp_n)
			break; /* needs input, and there is no more */
	}
	inflater_free(f);
	return st;
}

static void test_round_trips(void)
{
	/* over two 64 KiB windows and several deflate blocks; byte-at-a-time
	 * steps make each mode ~2n inflate calls, so no larger */
	size_t n = 140000 + 7;
	uint8_t *src = malloc(n), *out = malloc(n + 1);
	make_data(src, n);
	static const struct {
		int level, strategy;
	} modes[] = {{0, Z_DEFAULT_STRATEGY}, {1, Z_DEFAULT_STRATEGY}, {6, Z_DEFAULT_STRATEGY},
		     {9, Z_FILTERED}, {6, Z_HUFFMAN_ONLY}, {6, Z_RLE}, {6, Z_FIXED}};
	static const size_t steps[][2] = {{1u << 20, 1u << 20}, {1, 1 << 16}, {7, 13},
					  {65536, 1}, {4093, 1u << 20}};
	int all_same = 1, all_end = 1;
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		size_t comp_n;
		uint8_t *comp = deflate_raw(src, n, modes[m].level, modes[m].strategy, &comp_n);
		if (!comp) {
			CHECK("zlib deflates the test data", 0);
			continue;
		}
		for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
			size_t in_step = steps[s][0], out_step = steps[s][1], got;
			if (in_step == 1 && out_step == 1)
				continue;
			const char *why = NULL;
			/* One byte more room than the data: the stream must end first. */
			inflater_status st = inflate_steps(comp, comp_n, in_step, out_step, out, n + 1,
							   &got, &why);
			if (st != INFLATER_END)
				all_end = 0;
			if (got != n || memcmp(out, src, n) != 0)
				all_same = 0;
		}
		free(comp);
	}
	CHECK("every mode and chunking gives zlib's bytes", all_same);
	CHECK("every stream reports its end", all_end);
	free(src);
	free(out);
}

static void test_crc(void)
{
	size_t n = 1 << 20;
	uint8_t *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)next_rand();
	CHECK("crc of nothing is 0", inflater_crc32(0, p, 0) == 0);
	CHECK("crc of \"123456789\" is cbf43926", inflater_crc32(0, "123456789", 9) == 0xcbf43926u);
	int same = 1;
	for (size_t k = 1; k <= n; k = k * 3 + 1) {
		if (inflater_crc32(0, p, k) != (uint32_t)crc32(0, p, (uInt)k))
			same = 0;
		/* Chained in two pieces at an odd offset. */
		size_t cut = k / 3 + 1 < k ? k / 3 + 1 : k;
		uint32_t c = inflater_crc32(inflater_crc32(0, p, cut), p + cut, k - cut);
		if (c != (uint32_t)crc32(0, p, (uInt)k))
			same = 0;
	}
	CHECK("crc equals zlib's crc32, whole and chained", same);
	free(p);
}

static void test_damage(void)
{
	size_t n = 200000, comp_n, got;
	uint8_t *src = malloc(n), *out = malloc(n + 1);
	make_data(src, n);
	uint8_t *comp = deflate_raw(src, n, 6, Z_DEFAULT_STRATEGY, &comp_n);
	const char *why = NULL;

	/* Truncated: OK with all input used, never END, never more than the data. */
	inflater_status st = inflate_steps(comp, comp_n / 2, 4096, n + 1, out, n + 1, &got, &why);
	CHECK("a truncated stream does not end", st == INFLATER_OK && got < n);
	CHECK("what a truncated stream gives is a prefix", memcmp(out, src, got) == 0);

	/* Junk after the final block is left alone: the stream still ends. */
	uint8_t *junk = calloc(1, comp_n + 64 + INFLATER_IN_PAD);
	memcpy(junk, comp, comp_n);
	memset(junk + comp_n, 0xA5, 64);
	st = inflate_steps(junk, comp_n + 64, 1u << 20, n + 1, out, n + 1, &got, &why);
	CHECK("junk after the stream: it ends at the right size",
	      st == INFLATER_END && got == n && memcmp(out, src, n) == 0);

	/* Block type 3 does not exist. */
	uint8_t bad[1 + INFLATER_IN_PAD] = {0x07}; /* BFINAL=1, BTYPE=11 */
	why = NULL;
	st = inflate_steps(bad, 1, 1, 100, out, 100, &got, &why);
	CHECK("block type 3 is an error with a reason", st == INFLATER_ERROR && why && *why);

	/* A distance reaching before the start of the output: a stream that
	 * zlib deflated against a preset dictionary, inflated without it. */
	static const char dict[] = "node_config_feat node_config_ids config_runtime";
	uint8_t far[256] = {0};
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	int ok = deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK &&
		 deflateSetDictionary(&zs, (const Bytef *)dict, sizeof dict - 1) == Z_OK;
	zs.next_in = (Bytef *)(uintptr_t)dict;
	zs.avail_in = sizeof dict - 1;
	zs.next_out = far;
	zs.avail_out = sizeof far - INFLATER_IN_PAD;
	ok = ok && deflate(&zs, Z_FINISH) == Z_STREAM_END;
	size_t far_n = zs.total_out;
	deflateEnd(&zs);
	why = NULL;
	st = inflate_steps(far, far_n, 64, 100, out, 100, &got, &why);
	CHECK("a distance past the start is an error", ok && st == INFLATER_ERROR && why && *why);

	/* Every single flipped byte: an error, an early end, or other bytes;
	 * never more output than room, never a crash (the sanitizer build). */
	int bounded = 1;
	for (size_t i = 0; i < comp_n && i < 3000; i += 7) {
		memcpy(junk, comp, comp_n);
		junk[i] ^= 0x5A;
		st = inflate_steps(junk, comp_n, 1000, 65536, out, n + 1, &got, &why);
		if (got > n + 1)
			bounded = 0;
	}
	CHECK("flipped bytes never overrun the output", bounded);
	free(junk);
	free(comp);
	free(src);
	free(out);
}

int main(void)
{
	printf("PASS inflater is %s\n", inflater_name());
	CHECK("the name says the library",
	      !strncmp(inflater_name(), "isa-l ", 6) || !strncmp(inflater_name(), "zlib ", 5));
	test_round_trips();
	test_crc();
	test_damage();
	T_DONE();
}
