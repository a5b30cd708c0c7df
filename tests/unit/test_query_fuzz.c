/* test_query_fuzz.c - replays the query fuzz corpus (tests/fuzz/corpus/query)
 * and a few thousand generated inputs through the fuzz target's body, so
 * the normal and ASan builds run what the fuzzer found; a crash or a
 * sanitizer report fails the suite.  Also checks the parser's limits on
 * nesting and length. */
#define FUZZ_QUERY_NO_ENTRY
#include "tests/fuzz/query/fuzz_query.c"

#include <dirent.h>

#include "tests/unit/t.h"

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[1024];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		uint8_t buf[65536];
		size_t k = fread(buf, 1, sizeof buf, f);
		fclose(f);
		fuzz_query_one(buf, k);
		n++;
	}
	closedir(d);
	return n;
}

/* Inputs made of query words, operators and noise, from a fixed seed. */
static void generated(int count)
{
	static const char *const parts[] = {
		"nodes", "where", "count", "by", "stats", "show", "sort", "desc", "limit", "configs",
		"config", "neighbors", "depth", "up", "down", "path", "operands", "users", "opcode",
		"shape", "rank", "elem", "cost", "flops", "id", "runtime", "predicted", "in", "not",
		"and", "or", "=", "!=", "<", ">=", "~", "!~", "(", ")", ",", "+", "-", "*", "/", "%",
		"1", "0", "2.5", "1e9", "-3", "\"f32\"", "'x", "dot", "get-tuple-element", "#",
		"help", "compare", "best", "all", "fields", "opcodes", "computations", "\\", "@",
		"\xff", "f3", "c0", "is_root", "shape_dimensions_product", "&&", "||", "!", "*",
	};
	const size_t np = sizeof parts / sizeof parts[0];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char line[512];

	for (int i = 0; i < count; i++) {
		size_t n = 0;
		int words = 1 + (int)(x % 12);
		for (int w = 0; w < words && n < sizeof line - 64; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			const char *p = parts[x % np];
			n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", w ? " " : "", p);
		}
		fuzz_query_one((const uint8_t *)line, n);
	}
}

int main(void)
{
	int n = replay_dir("tests/fuzz/corpus/query");
	CHECK("query fuzz: corpus replayed", n >= 30);
	generated(3000);
	CHECK("query fuzz: 3000 generated inputs ran", 1);

	/* Limits: deep nesting and very long expressions are errors, not
	 * stack overflows. */
	hs_graph *g = fixture_graph();
	hs_error err;
	query_session *s = query_session_new(g, &err);
	query_result r;
	size_t big = 200000;
	char *q = malloc(big + 64);
	strcpy(q, "nodes where ");
	size_t k = strlen(q);
	for (size_t i = 0; i < 100000; i++)
		q[k++] = '(';
	q[k] = '\0';
	CHECK("query fuzz: 100000 parentheses fail cleanly",
	      query_exec(s, q, &r, &err) < 0 && strstr(err.msg, "nested too deeply"));
	k = strlen("nodes where ");
	for (size_t i = 0; i < 50000; i++) {
		memcpy(q + k, "id+", 3);
		k += 3;
	}
	strcpy(q + k, "1 > 0");
	CHECK("query fuzz: 50000 terms fail cleanly",
	      query_exec(s, q, &r, &err) < 0 && strstr(err.msg, "too long"));
	k = strlen("nodes where ");
	for (size_t i = 0; i < 100000; i++)
		q[k++] = 'n', q[k++] = ' ';
	strcpy(q + k, "id");
	memcpy(q + strlen("nodes where "), "not", 3);
	CHECK("query fuzz: a long chain of words fails cleanly", query_exec(s, q, &r, &err) < 0);
	memset(q, 'a', big);
	q[big] = '\0';
	CHECK("query fuzz: a 200000-byte word is an unknown command",
	      query_exec(s, q, &r, &err) < 0 && strstr(err.msg, "unknown command"));
	free(q);
	query_session_free(s);
	graph_free(g);
	T_DONE();
}
