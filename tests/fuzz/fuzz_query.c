/* fuzz_query.c - libFuzzer target for the query language.
 *
 * Each input is split into lines; every line runs through query_exec() on
 * the in-memory fixture graph, its result is written in all three formats
 * and completion is asked at a few positions.  Lines mentioning `export`
 * are skipped: they would write files.
 *
 *   make fuzz && build/fuzz/fuzz_query -max_total_time=60 tests/fuzz/corpus/query
 * tests/fuzz/replay.c runs the same function on saved inputs (make units).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query/query.h"
#include "tests/unit/query_fixture.h"

static int fuzz_query_line(query_session *s, FILE *sink, const char *line)
{
	query_result r;
	hs_error err;
	char buf[256];
	size_t n = strlen(line);

	if (strcasestr(line, "export"))
		return 0;
	if (query_exec(s, line, &r, &err) == 0) {
		for (int f = 0; f < 3; f++)
			query_write(sink, &r, (query_format)f, &err);
	} else {
		query_error_caret(err.msg, line, query_error_column(s), buf, sizeof buf);
	}
	query_result_free(&r);
	int pos[3] = {0, (int)(n / 2), (int)n};
	for (int i = 0; i < 3; i++) {
		int files;
		int start = pos[i];
		while (start > 0 && line[start - 1] != ' ')
			start--;
		query_strv_free(query_complete(s, line, start, pos[i], &files));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hs_graph *g;
	static query_session *s;
	static FILE *sink;

	if (!g) {
		hs_error err;
		g = fixture_graph();
		s = g ? query_session_new(g, &err) : NULL;
		sink = fopen("/dev/null", "w");
		if (!g || !s || !sink)
			abort();
	}
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		fuzz_query_line(s, sink, line);
	}
	free(text);
	return 0;
}
