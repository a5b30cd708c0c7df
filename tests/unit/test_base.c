/* Unit tests of base/: the basics every layer shares. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/caret.h"
#include "base/clock.h"
#include "base/cmp.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/jsonr.h"
#include "base/jsonw.h"
#include "base/parse.h"
#include "base/progress.h"
#include "base/regex.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "t.h"

/* ---- jsonw ---------------------------------------------------------------- */

/* A writer on a memory stream; json_done() finishes it and returns the text
 * (static, overwritten by the next call) and the verdict in *rc. */
static char *json_buf;
static size_t json_len;
static FILE *json_mem;
static hs_error json_err;

static void json_start(jsonw *w, int pretty)
{
	json_mem = open_memstream(&json_buf, &json_len);
	jsonw_init(w, json_mem, pretty);
	hs_error_clear(&json_err);
}

static const char *json_done(jsonw *w, int *rc)
{
	static char text[4096];

	*rc = jsonw_finish(w, &json_err);
	fclose(json_mem);
	snprintf(text, sizeof text, "%s", json_buf ? json_buf : "");
	free(json_buf);
	json_buf = NULL;
	return text;
}

static void test_jsonw_documents(void)
{
	jsonw w;
	int rc;

	json_start(&w, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "a"), jsonw_int(&w, -3);
	jsonw_key(&w, "b"), jsonw_arr_begin(&w);
	jsonw_num(&w, 0.1), jsonw_num(&w, 1.0 / 0.0), jsonw_bool(&w, 1), jsonw_null(&w);
	jsonw_str(&w, "q\"\\\n\t\b\f\x01\x7f");
	jsonw_arr_end(&w);
	jsonw_key(&w, "e"), jsonw_obj_begin(&w), jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	const char *s = json_done(&w, &rc);
	CHECK("jsonw: a compact document", rc == 0 &&
	      !strcmp(s, "{\"a\":-3,\"b\":[0.1,null,true,null,"
			 "\"q\\\"\\\\\\n\\t\\b\\f\\u0001\\u007f\"],\"e\":{}}\n"));

	json_start(&w, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "k"), jsonw_arr_begin(&w), jsonw_int(&w, 1), jsonw_int(&w, 2), jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	s = json_done(&w, &rc);
	CHECK("jsonw: a pretty document", rc == 0 && !strcmp(s, "{\n  \"k\": [\n    1,\n    2\n  ]\n}\n"));

	json_start(&w, 0);
	jsonw_str(&w, "alone");
	s = json_done(&w, &rc);
	CHECK("jsonw: a document of one string", rc == 0 && !strcmp(s, "\"alone\"\n"));
}

/* Opens `levels` arrays, closes them; returns jsonw_finish's verdict. */
static int nest(int levels, const char **text)
{
	jsonw w;
	int rc;

	json_start(&w, 0);
	for (int i = 0; i < levels; i++)
		jsonw_arr_begin(&w);
	for (int i = 0; i < levels; i++)
		jsonw_arr_end(&w);
	*text = json_done(&w, &rc);
	return rc;
}

static void test_jsonw_depth(void)
{
	const char *s;
	char want[200];
	int n = 0;

	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		want[n++] = '[';
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		want[n++] = ']';
	want[n++] = '\n';
	want[n] = '\0';
	CHECK("jsonw: 63 levels of nesting are written", nest(JSONW_MAX_DEPTH, &s) == 0 && !strcmp(s, want));
	CHECK("jsonw: a 64th level is an error", nest(JSONW_MAX_DEPTH + 1, &s) == -1 &&
	      json_err.status == HS_EUSAGE && strstr(json_err.msg, "nesting deeper than 63 levels"));
	CHECK("jsonw: ... and no closing newline passes it off as whole", s[0] && s[strlen(s) - 1] != '\n');
}

enum misuse { KEY_AT_TOP, KEY_IN_ARRAY, VALUE_FOR_KEY, TWO_KEYS, END_AFTER_KEY, WRONG_END, EXTRA_END,
	      OPEN_AT_FINISH, TWO_VALUES, EMPTY, N_MISUSE };

static void misuse(jsonw *w, enum misuse m)
{
	switch (m) {
	case KEY_AT_TOP: jsonw_key(w, "k"); jsonw_int(w, 1); break;
	case KEY_IN_ARRAY: jsonw_arr_begin(w); jsonw_key(w, "k"); jsonw_arr_end(w); break;
	case VALUE_FOR_KEY: jsonw_obj_begin(w); jsonw_int(w, 1); jsonw_obj_end(w); break;
	case TWO_KEYS: jsonw_obj_begin(w); jsonw_key(w, "a"); jsonw_key(w, "b"); break;
	case END_AFTER_KEY: jsonw_obj_begin(w); jsonw_key(w, "a"); jsonw_obj_end(w); break;
	case WRONG_END: jsonw_obj_begin(w); jsonw_arr_end(w); break;
	case EXTRA_END: jsonw_arr_begin(w); jsonw_arr_end(w); jsonw_arr_end(w); break;
	case OPEN_AT_FINISH: jsonw_obj_begin(w); jsonw_key(w, "a"); jsonw_arr_begin(w); break;
	case TWO_VALUES: jsonw_int(w, 1); jsonw_int(w, 2); break;
	case EMPTY: case N_MISUSE: break;
	}
}

static void test_jsonw_misuse(void)
{
	static const char *const why[N_MISUSE] = {
		"a key outside an object", "a key outside an object",
		"a value in an object where a key is due", "a key where a value is due",
		"an object end right after a key", "an array end closing an object",
		"an array end with nothing open", "the document ends inside an array",
		"a second value after the end of the document", "an empty document",
	};
	for (int m = 0; m < N_MISUSE; m++) {
		jsonw w;
		int rc;
		char name[160];

		json_start(&w, m % 2);
		misuse(&w, (enum misuse)m);
		json_done(&w, &rc);
		snprintf(name, sizeof name, "jsonw: misuse %d (%s) is an error", m, why[m]);
		CHECK(name, rc == -1 && json_err.status == HS_EUSAGE && strstr(json_err.msg, why[m]) &&
		      !strncmp(json_err.msg, "JSON writer: ", 13));
	}
}

static void test_jsonw_write_error(void)
{
	FILE *f = fopen("/dev/full", "w");
	jsonw w;
	hs_error err;

	if (!f) {
		CHECK("jsonw: /dev/full opens", 0);
		return;
	}
	hs_error_clear(&err);
	jsonw_init(&w, f, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "a"), jsonw_str(&w, "b");
	jsonw_obj_end(&w);
	CHECK("jsonw: a whole document that cannot be written is an error",
	      jsonw_finish(&w, &err) == -1 && err.status == HS_EDATA &&
	      strstr(err.msg, "writing JSON: ") && strstr(err.msg, "No space left on device"));
	fclose(f);
}

/* ---- clock ---------------------------------------------------------------- */

static void test_clock(void)
{
	double t0 = hs_now_seconds(), prev = t0, c0 = hs_cpu_seconds(), c1 = c0;
	int monotonic = 1;
	volatile double sink = 0;

	for (int i = 0; i < 1000; i++) {
		double t = hs_now_seconds();
		monotonic &= t >= prev;
		prev = t;
	}
	CHECK("clock: the monotonic clock never goes back", monotonic && t0 > 0);
	/* Busy work until the CPU clock moves (it ticks at least every 10 ms). */
	for (long i = 0; i < 2000000000L && c1 == c0; i++) {
		sink += (double)i * 1e-9;
		if (i % 4096 == 0)
			c1 = hs_cpu_seconds();
	}
	double t1 = hs_now_seconds();
	CHECK("clock: CPU time grows with work, and not faster than wall time for one thread",
	      c1 > c0 && c1 - c0 <= (t1 - t0) + 0.02 && sink >= 0);
	struct timespec a, b;
	time_t before = time(NULL);
	hs_deadline_after(&a, 0.25);
	hs_deadline_after(&b, 1.9);
	time_t after = time(NULL);
	double gap = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	CHECK("clock: a deadline is that far on the real-time clock, nanoseconds under a second",
	      a.tv_sec >= before && a.tv_sec <= after + 1 && gap > 1.6 && gap < 1.7 &&
	      a.tv_nsec >= 0 && a.tv_nsec < 1000000000L && b.tv_nsec >= 0 && b.tv_nsec < 1000000000L);
}

/* ---- cmp ------------------------------------------------------------------ */

static void test_cmp(void)
{
	int64_t v[] = {5, INT64_MIN, -1, INT64_MAX, 0, -1, INT64_MIN + 1};
	const int64_t vs[] = {INT64_MIN, INT64_MIN + 1, -1, -1, 0, 5, INT64_MAX};
	double d[] = {2.5, -1.0 / 0.0, 0.0, -3.0, 1.0 / 0.0, 1e-300, -0.0};
	char *s[] = {"b", "a", "ab", "", "B"};

	qsort(v, 7, sizeof *v, hs_cmp_i64);
	CHECK("cmp: int64 sorts, extremes included (no overflowing subtraction)",
	      !memcmp(v, vs, sizeof vs));
	qsort(d, 7, sizeof *d, hs_cmp_double);
	int sorted = 1;
	for (int i = 1; i < 7; i++)
		sorted &= d[i - 1] <= d[i];
	CHECK("cmp: doubles sort, infinities at the ends", sorted && d[0] < -1e308 && d[6] > 1e308);
	double odd[] = {3, -1, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
	CHECK("cmp: the median of an odd count is the middle value, sorted", hs_median(odd, 3) == 2 &&
	      odd[0] == -1 && odd[2] == 3);
	CHECK("cmp: the median of an even count is the mean of the middle two, as numpy's",
	      hs_median(even, 4) == 2.5 && hs_median(one, 1) == 7);
	qsort(s, 5, sizeof *s, hs_cmp_str);
	CHECK("cmp: strings sort bytewise", !strcmp(s[0], "") && !strcmp(s[1], "B") &&
	      !strcmp(s[2], "a") && !strcmp(s[3], "ab") && !strcmp(s[4], "b"));
	int64_t e[][2] = {{3, 1}, {INT64_MIN, 5}, {3, INT64_MIN}, {-1, 2}, {3, 1}, {INT64_MAX, -7}};
	const int64_t es[][2] = {{INT64_MIN, 5}, {-1, 2}, {3, INT64_MIN}, {3, 1}, {3, 1}, {INT64_MAX, -7}};
	qsort(e, 6, sizeof *e, hs_cmp_i64_pair);
	CHECK("cmp: int64 pairs sort by the first, then the second, extremes included",
	      !memcmp(e, es, sizeof es) && hs_cmp_i64_pair(e[3], e[4]) == 0);
}

/* ---- parse ---------------------------------------------------------------- */

static void test_parse(void)
{
	static const struct {
		const char *s;
		int ok;
		int64_t v;
	} ints[] = {
		{"0", 1, 0}, {"42", 1, 42}, {"-7", 1, -7}, {"+7", 1, 7}, {"007", 1, 7},
		{"9223372036854775807", 1, INT64_MAX}, {"-9223372036854775808", 1, INT64_MIN},
		{"9223372036854775808", 0, 0}, {"-9223372036854775809", 0, 0},
		{"99999999999999999999", 0, 0}, {"", 0, 0}, {"-", 0, 0}, {"+", 0, 0},
		{"12abc", 0, 0}, {" 5", 0, 0}, {"5 ", 0, 0}, {"1e3", 0, 0}, {"0x10", 0, 0},
		{"1.0", 0, 0}, {"--1", 0, 0}, {"1,2", 0, 0},
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		int64_t v = 12345;
		char name[96];
		int rc = hs_parse_i64(ints[i].s, &v);

		snprintf(name, sizeof name, "parse: '%s' is %s", ints[i].s,
			 ints[i].ok ? "an integer" : "refused, the output untouched");
		CHECK(name, ints[i].ok ? rc == 0 && v == ints[i].v : rc == -1 && v == 12345);
	}
	int64_t v = 0;
	CHECK("parse: NULL is refused", hs_parse_i64(NULL, &v) == -1);
	CHECK("parse: the first 2 bytes of '12,5' are 12", hs_parse_i64n("12,5", 2, &v) == 0 && v == 12);
	CHECK("parse: 0 bytes are no integer", hs_parse_i64n("12", 0, &v) == -1);

	double d = 7;
	CHECK("parse: '0.25' is a double", hs_parse_double("0.25", &d) == 0 && d == 0.25);
	CHECK("parse: '-1e-4' is a double", hs_parse_double("-1e-4", &d) == 0 && d == -1e-4);
	CHECK("parse: '3' is a double", hs_parse_double("3", &d) == 0 && d == 3);
	d = 7;
	const char *bad[] = {"", " 1", "1 ", "1x", "inf", "nan", "0x1p3", "1e999", ".", "e5"};
	int refused = 1;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused &= hs_parse_double(bad[i], &d) == -1 && d == 7;
	CHECK("parse: spaces, trailing text, inf, nan, hex floats and overflow are no doubles", refused);
}

/* ---- rng ------------------------------------------------------------------ */

/* Published reference outputs, so that neither stream can drift: model files
 * and the demo dataset are byte-identical for a seed only while they hold. */
static void test_rng(void)
{
	static const uint64_t sm[5] = {6457827717110365317u, 3203168211198807973u,
				       9817491932198370423u, 4593380528125082431u,
				       16408922859458223821u};
	uint64_t x = 1234567;
	int same = 1;

	for (int i = 0; i < 5; i++)
		same &= hs_splitmix64(&x) == sm[i];
	CHECK("rng: splitmix64 from 1234567 gives the reference outputs", same);
	hs_splitmix r = hs_splitmix_seed(0x9e3779b97f4a7c15u ^ 1234567); /* the same stream */
	CHECK("rng: hs_splitmix_seed xors the seed with the golden gamma",
	      hs_splitmix_next(&r) == sm[0] && hs_splitmix_next(&r) == sm[1]);

	static const uint64_t xo[4] = {11520, 0, 1509978240, 1215971899390074240u};
	hs_xoshiro g = {{1, 2, 3, 4}};
	same = 1;
	for (int i = 0; i < 4; i++)
		same &= hs_xoshiro_next(&g) == xo[i];
	CHECK("rng: xoshiro256** from {1, 2, 3, 4} gives the reference outputs", same);

	int64_t v[50], seen[50] = {0};
	for (int i = 0; i < 50; i++)
		v[i] = i;
	r = hs_splitmix_seed(5);
	hs_splitmix_shuffle(&r, v, 50);
	int perm = 1, moved = 0;
	for (int i = 0; i < 50; i++) {
		perm &= v[i] >= 0 && v[i] < 50 && !seen[v[i]]++;
		moved += v[i] != i;
	}
	CHECK("rng: a shuffle is a permutation that moves most of it", perm && moved > 40);
	double lo = 1, hi = 0;
	hs_xoshiro_seed(&g, 20230813);
	for (int i = 0; i < 10000; i++) {
		double u = hs_xoshiro_unit(&g);
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	CHECK("rng: units fall in [0, 1)", lo >= 0 && lo < 0.01 && hi < 1 && hi > 0.99);
}

static void test_caret(void)
{
	char buf[64], small[8];
	int n = hs_caret(buf, sizeof buf, "nodes where shap = 1\nnext line", 13);
	CHECK("caret: the line, then ^ under the column", strcmp(buf, "  nodes where shap = 1\n"
							      "              ^\n") == 0 && n == (int)strlen(buf));
	CHECK("caret: tabs before the column stay tabs",
	      hs_caret(buf, sizeof buf, "\tab", 3) > 0 && strcmp(buf, "  \tab\n  \t ^\n") == 0);
	CHECK("caret: a column past the end points after the last byte",
	      hs_caret(buf, sizeof buf, "ab", 3) > 0 && strcmp(buf, "  ab\n    ^\n") == 0);
	CHECK("caret: nothing without a column or a line",
	      hs_caret(buf, sizeof buf, "ab", 0) == 0 && buf[0] == '\0' && hs_caret(buf, sizeof buf, NULL, 2) == 0);
	int m = hs_caret(small, sizeof small, "nodes where shap = 1", 13);
	CHECK("caret: cut like snprintf, the whole length returned", m == n && strlen(small) == sizeof small - 1);
	CHECK("caret: counts without a buffer", hs_caret(NULL, 0, "nodes where shap = 1", 13) == n);
}

static void test_hash(void)
{
	CHECK("hash: FNV-1a of 'a' is the published value", hs_fnv1a("a", HS_FNV_BASIS) == 0xaf63dc4c8601ec8cu);
	CHECK("hash: FNV-1a 32 of 'a' is the published value", hs_fnv1a32("a", HS_FNV32_BASIS) == 0xe40c292cu);
	CHECK("hash: FNV-1a of nothing is the basis",
	      hs_fnv1a("", HS_FNV_BASIS) == HS_FNV_BASIS && hs_fnv1a_bytes("x", 0, HS_FNV_BASIS) == HS_FNV_BASIS);
	CHECK("hash: bytes, text and byte steps agree",
	      hs_fnv1a_bytes("foobar", 6, HS_FNV_BASIS) == hs_fnv1a("foobar", HS_FNV_BASIS) &&
	      hs_fnv1a_byte('r', hs_fnv1a("fooba", HS_FNV_BASIS)) == hs_fnv1a("foobar", HS_FNV_BASIS) &&
	      hs_fnv1a32_bytes("foobar", 6, HS_FNV32_BASIS) == hs_fnv1a32("foobar", HS_FNV32_BASIS));
	/* published test vectors of FNV-1a for "foobar" */
	CHECK("hash: FNV-1a of 'foobar', 64 and 32 bits",
	      hs_fnv1a("foobar", HS_FNV_BASIS) == 0x85944171f73967e8u &&
	      hs_fnv1a32("foobar", HS_FNV32_BASIS) == 0xbf9cf968u);
	CHECK("hash: pieces chain into the hash of the whole",
	      hs_fnv1a("bar", hs_fnv1a("foo", HS_FNV_BASIS)) == hs_fnv1a("foobar", HS_FNV_BASIS));
}

/* ---- vec, strbuf ------------------------------------------------------ */

struct triple { int64_t a, b, c; };

static void test_vec(void)
{
	HS_VEC(int64_t) ints = {0};
	HS_VEC(struct triple) triples = {0};
	int ok = 1;
	for (int64_t i = 0; i < 1000; i++)
		ok &= hs_vec_push(&ints, i * 3) == 0;
	for (int64_t i = 0; i < 1000; i++)
		ok &= ints.v[i] == i * 3;
	CHECK("vec: 1000 pushes keep every value", ok && ints.n == 1000 && ints.cap >= 1000);
	/* each vector sizes its own elements: 24-byte triples after 8-byte
	 * integers in another vector never share a capacity count */
	for (int64_t i = 0; i < 40; i++)
		ok &= hs_vec_push(&triples, ((struct triple){i, -i, 2 * i})) == 0;
	int same = 1;
	for (int64_t i = 0; i < 40; i++)
		same &= triples.v[i].a == i && triples.v[i].b == -i && triples.v[i].c == 2 * i;
	CHECK("vec: a vector of 24-byte elements holds 40 of them", ok && same && hs_vec_bytes(&triples) == 40 * 24);
	HS_VEC(int64_t) more = {0};
	int64_t tail[3] = {7, 8, 9};
	ok = hs_vec_append(&more, ints.v, 1000) == 0 && hs_vec_append(&more, tail, 3) == 0 &&
	     hs_vec_append(&more, tail, 0) == 0;
	CHECK("vec: append copies a run of elements after the ones there",
	      ok && more.n == 1003 && more.v[999] == 999 * 3 && more.v[1000] == 7 && more.v[1002] == 9);
	hs_vec_free(&more);
	struct hs_vec_raw huge = {0};
	CHECK("vec: a size that overflows is refused, nothing changed",
	      hs_vec_grow_raw(&huge, 1u << 20, (size_t)-1 / 1024) == -1 && huge.v == NULL && huge.cap == 0);
	hs_vec_free(&ints);
	hs_vec_free(&triples);
	CHECK("vec: free empties it", ints.v == NULL && ints.n == 0 && ints.cap == 0);
}

static void test_arena(void)
{
	hs_arena a = {0};
	int ok = 1;
	/* aligned blocks between packed strings stay aligned */
	for (int i = 0; i < 5000; i++) {
		char *s = hs_arena_strdup(&a, i % 3 ? "ab" : "abcdefg");
		int64_t *v = hs_arena_array(&a, 3, sizeof *v);
		ok &= s && v && ((uintptr_t)v % 16) == 0 && strcmp(s, i % 3 ? "ab" : "abcdefg") == 0;
		ok &= v[0] == 0 && v[1] == 0 && v[2] == 0;   /* zeroed */
		v[2] = i;
	}
	CHECK("arena: arrays 16-byte aligned and zeroed between unaligned strings", ok);
	char *p1 = hs_arena_bytes(&a, 3), *p2 = hs_arena_bytes(&a, 5);
	CHECK("arena: bytes are packed one after another", p1 && p2 && p2 == p1 + 3);
	size_t before = a.used_total;
	char *big = hs_arena_alloc(&a, 1 << 20);
	CHECK("arena: a large request gets its own block, counted", big && a.used_total == before + (1 << 20));
	char *q = hs_arena_bytes(&a, 1);
	CHECK("arena: the current block goes on after a large one", q == p2 + 5);
	/* adopted memory is freed with the arena (ASan reports a leak if not) */
	int ad = 1;
	for (int i = 0; i < 100; i++)
		ad &= hs_arena_adopt(&a, malloc(1000 + (size_t)i)) == 0;
	CHECK("arena: adopt takes malloc'd blocks; NULL is nothing", ad && hs_arena_adopt(&a, NULL) == 0);
	CHECK("arena: a size that overflows is refused",
	      hs_arena_array(&a, SIZE_MAX / 2, 4) == NULL && hs_arena_alloc(&a, SIZE_MAX - 8) == NULL &&
	      hs_arena_strndup(&a, "x", SIZE_MAX) == NULL);
	hs_arena_free(&a);
	CHECK("arena: free empties it", a.head == NULL && a.adopted == NULL && a.used_total == 0);
}

static int hook_calls, hook_cleared, hook_stop_at;

static int hook(void *ctx, const char *what, double done, double total)
{
	(void)ctx;
	(void)done;
	(void)total;
	if (!what) {
		hook_cleared++;
		return 0;
	}
	return ++hook_calls >= hook_stop_at;
}

static void test_progress(void)
{
	CHECK("progress: no hook, no stop", hs_progress_tick("x", 1, 2) == 0 && !hs_progress_stopped());
	hs_progress outer = {.fn = hook, .after = 0}, inner = {.fn = hook, .after = 3600};
	hook_stop_at = 2;
	hs_progress_push(&outer);
	int first = hs_progress_tick("reading", 1, 10);
	int again = hs_progress_tick("reading", 2, 10);   /* within 0.1 s: not called */
	CHECK("progress: the hook is called, then not again within a tenth of a second",
	      first == 0 && again == 0 && hook_calls == 1);
	hs_progress_push(&inner);
	CHECK("progress: the innermost hook, not before its `after`",
	      hs_progress_tick("costing", 1, 2) == 0 && hook_calls == 1);
	hs_progress_end();
	CHECK("progress: end clears only a hook that showed something", hook_cleared == 0);
	hs_progress_pop(&inner);
	outer.last = -1;   /* as if a tenth of a second went by */
	CHECK("progress: a hook that says stop stops the work, and keeps saying it",
	      hs_progress_tick("reading", 3, 10) == 1 && hook_calls == 2 && hs_progress_stopped() &&
	      hs_progress_tick("reading", 4, 10) == 1 && hook_calls == 2);
	hs_progress_end();
	CHECK("progress: end clears the line it showed", hook_cleared == 1);
	hs_progress_pop(&outer);
	CHECK("progress: popped, none again", hs_progress_tick("x", 1, 2) == 0 && !hs_progress_stopped());
}

static void test_strbuf(void)
{
	hs_strbuf b = {0};
	CHECK("strbuf: empty reads as \"\"", strcmp(hs_strbuf_str(&b), "") == 0);
	hs_strbuf_printf(&b, "%s=%d", "x", 42);
	hs_strbuf_putc(&b, ',');
	hs_strbuf_puts(&b, "abc");
	hs_strbuf_putn(&b, "defgh", 2);
	CHECK("strbuf: printf, putc, puts, putn append", strcmp(hs_strbuf_str(&b), "x=42,abcde") == 0 && b.len == 10);
	for (int i = 0; i < 500; i++)
		hs_strbuf_printf(&b, "%04d", i);
	CHECK("strbuf: grows past many doublings", b.len == 10 + 2000 && !b.failed && b.s[b.len] == '\0');
	hs_strbuf_reset(&b);
	CHECK("strbuf: reset empties it", b.len == 0 && strcmp(hs_strbuf_str(&b), "") == 0);
	hs_strbuf_puts(&b, "kept");
	char *s = hs_strbuf_take(&b);
	CHECK("strbuf: take hands the text over and empties it", s && strcmp(s, "kept") == 0 && b.s == NULL);
	free(s);
	s = hs_strbuf_take(&b);
	CHECK("strbuf: take of an empty one is \"\"", s && *s == '\0');
	free(s);
	b.failed = 1;
	hs_strbuf_puts(&b, "lost");
	CHECK("strbuf: after a failure appends are no-ops", b.len == 0 && b.s == NULL);
	CHECK("strbuf: take after a failure is NULL", hs_strbuf_take(&b) == NULL);

	char buf[8];
	hs_strbuf f = hs_strbuf_fixed(buf, sizeof buf);
	hs_strbuf_printf(&f, "%s", "abc");
	hs_strbuf_putc(&f, 'd');
	CHECK("strbuf fixed: appends into the caller's buffer", f.s == buf && strcmp(buf, "abcd") == 0 && f.len == 4);
	hs_strbuf_printf(&f, "%d", 12345);
	hs_strbuf_puts(&f, "xyz");
	CHECK("strbuf fixed: cut to the buffer, terminated, counted whole as snprintf counts",
	      strcmp(buf, "abcd123") == 0 && f.len == 4 + 5 + 3 && !f.failed);
	s = hs_strbuf_take(&f);
	CHECK("strbuf fixed: take copies what fits", s && strcmp(s, "abcd123") == 0);
	free(s);
	f = hs_strbuf_fixed(NULL, 0);
	hs_strbuf_printf(&f, "%s-%d", "ab", 7);
	hs_strbuf_putn(&f, "cd", 2);
	CHECK("strbuf fixed: without a buffer it only counts", f.len == 6 && strcmp(hs_strbuf_str(&f), "") == 0);
	f = hs_strbuf_fixed(buf, 1);
	hs_strbuf_puts(&f, "abc");
	CHECK("strbuf fixed: a buffer of one byte holds the terminator", buf[0] == '\0' && f.len == 3);
	hs_strbuf_free(&f); /* never frees the caller's buffer */

	hs_strbuf m = {0};
	FILE *st = hs_strbuf_open(&m);
	for (int i = 0; st && i < 3000; i++)
		fprintf(st, "%d,", i);
	CHECK("strbuf stream: what is written is appended, whole",
	      st && fclose(st) == 0 && !m.failed && m.len == 13890 && !strncmp(hs_strbuf_str(&m), "0,1,2,", 6));
	hs_strbuf_reset(&m);
	st = hs_strbuf_open(&m);
	fputs("kept", st);
	fflush(st);
	m.failed = 1; /* as when an allocation fails: the next write cannot be kept */
	fputs("lost", st);
	CHECK("strbuf stream: a write that cannot be kept fails, not in silence",
	      st && fclose(st) == EOF && m.failed);
	hs_strbuf_free(&m);
	CHECK("errno status: ENOMEM is out of memory, anything else bad data",
	      hs_errno_status(ENOMEM) == HS_ENOMEM && hs_errno_status(EIO) == HS_EDATA &&
	      hs_errno_status(ENOSPC) == HS_EDATA);
}

/* ---- jsonr ----------------------------------------------------------------- */

static void test_jsonr(void)
{
	static const char doc[] = " {\"a\": [1, -2.5e3, true, false, null], \"b\": {\"s\": \"x\\u00e9\\n\\ud83d\\ude00\"},"
				  " \"a\": 3} ";
	jsonr_doc d;
	hs_error err = {0};
	CHECK("jsonr: a document", jsonr_parse(doc, sizeof doc - 1, &d, &err) == 0);
	const jsonr_value *r = d.root, *a = jsonr_get(r, "a"), *s = jsonr_get(jsonr_get(r, "b"), "s");
	CHECK("jsonr: object of three (a duplicate key kept, the first found)", r && r->type == JR_OBJECT &&
	      r->n == 3 && a && a->type == JR_ARRAY && a->n == 5);
	CHECK("jsonr: numbers, words", a && a->items[0].num == 1 && a->items[1].num == -2500 &&
	      strcmp(a->items[1].str, "-2.5e3") == 0 && a->items[2].type == JR_TRUE &&
	      a->items[3].type == JR_FALSE && a->items[4].type == JR_NULL);
	CHECK("jsonr: escapes and surrogate pairs to UTF-8", s && s->type == JR_STRING &&
	      strcmp(s->str, "x\xc3\xa9\n\xf0\x9f\x98\x80") == 0);
	jsonr_free(&d);
	static const struct { const char *text, *msg; } bad[] = {
		{"{\"a\" 1}", "byte 5: expected ':'"},
		{"[1, 2", "byte 5: expected ',' or ']'"},
		{"\"abc", "byte 0: a string is not closed"},
		{"[01]", "byte 2: expected ',' or ']'"},
		{"[1.]", "byte 3: a digit after the decimal point"},
		{"\"\\u0000\"", "\\u0000"},
		{"\"\\ud800\"", "lone surrogate"},
		{"{} x", "byte 3: text after the value"},
		{"", "byte 0: expected a value, found the end"},
		{"[tru]", "byte 1: expected a value"},
	};
	int all = 1;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hs_error_clear(&err);
		int rc = jsonr_parse(bad[i].text, strlen(bad[i].text), &d, &err);
		if (rc == 0 || err.status != HS_EDATA || !strstr(err.msg, bad[i].msg)) {
			printf("# jsonr '%s': %d %s\n", bad[i].text, rc, err.msg);
			all = 0;
		}
	}
	CHECK("jsonr: bad documents refused with the byte and what was expected", all);
	char deep[JSONR_MAX_DEPTH * 2 + 8];
	memset(deep, '[', JSONR_MAX_DEPTH + 1);
	memset(deep + JSONR_MAX_DEPTH + 1, ']', JSONR_MAX_DEPTH + 1);
	hs_error_clear(&err);
	CHECK("jsonr: nesting past the limit refused", jsonr_parse(deep, 2 * JSONR_MAX_DEPTH + 2, &d, &err) != 0 &&
	      strstr(err.msg, "nested too deep"));
}

/* ---- regex ------------------------------------------------------------------ */

/* hs_regex_match of pattern (flags) over text: 1, 0, or -1 with *err. */
static int rx(const char *pattern, int flags, const char *text, hs_error *err)
{
	hs_regex *re = hs_regex_new(pattern, flags, NULL, err);
	hs_regex_scratch *sc = re ? hs_regex_scratch_new(err) : NULL;
	int rc = sc ? hs_regex_match(re, text, strlen(text), sc, err) : -2;

	hs_regex_scratch_free(sc);
	hs_regex_free(re);
	return rc;
}

/* n copies of c, then `end` (static, overwritten by the next call). */
static const char *run_of(char c, size_t n, const char *end)
{
	static char buf[200064];

	memset(buf, c, n);
	snprintf(buf + n, sizeof buf - n, "%s", end);
	return buf;
}

static void test_regex(void)
{
	hs_error err = {0};
	size_t where = 99;
	char pat[5000];

	CHECK("regex: a match anywhere", rx("tuple", 0, "get-tuple-element.3", &err) == 1);
	CHECK("regex: anchors", rx("^tuple", 0, "get-tuple-element.3", &err) == 0);
	CHECK("regex: ERE syntax", rx("^(convert|copy)[.][0-9]{2,}$", 0, "copy.12", &err) == 1);
	CHECK("regex: POSIX classes", rx("^[[:alpha:]-]+\\.[[:digit:]]+$", 0, "get-tuple-element.3", &err) == 1);
	CHECK("regex: Perl's \\d and \\b", rx("\\bel\\w+\\.\\d$", 0, "get-tuple-element.3", &err) == 1);
	CHECK("regex: back-references", rx("^([^,]+), \\1$", 0, "a.1, a.1", &err) == 1 &&
					     rx("^([^,]+), \\1$", 0, "a.1, a.2", &err) == 0);
	CHECK("regex: case", rx("^FUSION", 0, "fusion.2", &err) == 0 &&
			       rx("^FUSION", HS_REGEX_ICASE, "fusion.2", &err) == 1);
	CHECK("regex: bytes, not C strings", rx("b$", 0, "ab", &err) == 1);

	hs_error_clear(&err);
	CHECK("regex: a bad pattern is a usage error",
	      !hs_regex_new("ab(c", 0, &where, &err) && err.status == HS_EUSAGE && where == 4 &&
		      strstr(err.msg, "missing closing parenthesis"));
	memset(pat, 'a', HS_REGEX_MAX_LENGTH + 1);
	pat[HS_REGEX_MAX_LENGTH + 1] = '\0';
	CHECK("regex: the length limit", !hs_regex_new(pat, 0, &where, &err) && err.status == HS_EUSAGE &&
		      where == 0 && !strcmp(err.msg, "longer than the limit of 4,096 bytes"));
	snprintf(pat, sizeof pat, "%.*sa%.*s", HS_REGEX_MAX_NEST + 1, run_of('(', 100, ""),
		 HS_REGEX_MAX_NEST + 1, run_of(')', 100, ""));
	CHECK("regex: the nesting limit", !hs_regex_new(pat, 0, NULL, &err) && err.status == HS_EUSAGE &&
		      !strcmp(err.msg, "parentheses nested deeper than the limit of 64"));
	CHECK("regex: repeats of repeats (issue 28)",
	      !hs_regex_new("(((a{1,100}){1,100}){1,100}){1,100}", 0, &where, &err) &&
		      err.status == HS_EUSAGE && where == 0 && strstr(err.msg, "too large"));

	hs_error_clear(&err);
	CHECK("regex: the match limit", rx("^(.|.)+\\.$", 0, "get-tuple-element.184", &err) == -1 &&
		      err.status == HS_EUSAGE &&
		      !strcmp(err.msg, "needs more than the match limit (1,000,000 steps)"));
	hs_error_clear(&err);
	CHECK("regex: the depth limit", rx("^(a|ab)*$", 0, run_of('a', 150000, "x"), &err) == -1 &&
		      err.status == HS_EUSAGE && strstr(err.msg, "depth limit (100,000 "));
	/* 40 captures make each backtracking point big: the heap runs out first */
	snprintf(pat, sizeof pat, "^(?:(a)|b");
	for (int i = 0; i < 40; i++)
		strcat(pat, "()");
	strcat(pat, ")*$");
	hs_error_clear(&err);
	CHECK("regex: the heap limit", rx(pat, 0, run_of('a', 100000, "x"), &err) == -1 &&
		      err.status == HS_EUSAGE && !strcmp(err.msg, "needs more than the heap limit (20,480 KB)"));
	hs_error_clear(&err);
	CHECK("regex: a long text within the limits", rx("^a+x$", 0, run_of('a', 200000, "x"), &err) == 1 &&
		      !err.status);

	/* one compiled pattern, two scratches (as two threads hold them) */
	hs_regex *re = hs_regex_new("^fusion\\.\\d+$", 0, NULL, &err);
	hs_regex_scratch *a = hs_regex_scratch_new(&err), *b = hs_regex_scratch_new(&err);
	CHECK("regex: shared", re && a && b && hs_regex_match(re, "fusion.12", 9, a, &err) == 1 &&
		      hs_regex_match(re, "fusion.12", 9, b, &err) == 1 &&
		      hs_regex_match(re, "fusion.12x", 10, a, &err) == 0);
	hs_regex_scratch_free(a);
	hs_regex_scratch_free(b);
	hs_regex_free(re);
	char v[32];
	hs_regex_version(v, sizeof v);
	CHECK("regex: version", v[0] >= '1' && v[0] <= '9' && strchr(v, '.') && !strchr(v, ' '));
}

int main(void)
{
	test_jsonr();
	test_vec();
	test_arena();
	test_progress();
	test_strbuf();
	test_jsonw_documents();
	test_jsonw_depth();
	test_jsonw_misuse();
	test_jsonw_write_error();
	test_clock();
	test_cmp();
	test_parse();
	test_rng();
	test_hash();
	test_caret();
	test_regex();
	T_DONE();
}
