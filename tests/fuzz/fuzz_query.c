/* fuzz_query.c - libFuzzer target for the query language.
 *
 * Each input is split into lines; every line runs through query_exec() on
 * the in-memory fixture graph, its result is written in all three formats
 * and completion is asked at a few positions.  Lines mentioning `export`
 * are skipped: they would write files.  Every line is also a table's filter
 * (query_filter_new, the explorer's `\`) over four columns of 20 rows.
 *
 *   make fuzz && build/fuzz/fuzz_query -max_total_time=60 tests/fuzz/corpus/query
 * tests/fuzz/replay.c runs the same function on saved inputs (make units).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "query/query.h"
#include "tests/unit/query_fixture.h"

/* A table of 20 rows: id, name "n<i % 3>", t (i microseconds, shown as
 * such), "group size" (none every 4th row). */
static double cell_num(void *ctx, int64_t row, int col)
{
	return col == 0 ? (double)row : col == 2 ? (double)row * 1e-6 : col == 3 && row % 4 ? (double)row : NAN;
}

static const char *cell_text(void *ctx, int64_t row, int col, char *buf, size_t cap)
{
	if (col == 1)
		snprintf(buf, cap, "n%d", (int)(row % 3));
	else if (col == 2)
		hs_unit_format(buf, cap, HS_U_SECONDS, (double)row * 1e-6, -1);
	else
		hs_unit_format(buf, cap, HS_U_NONE, cell_num(ctx, row, col), -1);
	return buf;
}

static void fuzz_filter_line(const char *line)
{
	static const query_column cols[] = {{"id", QUERY_NUM, HS_U_NONE}, {"name", QUERY_TEXT, HS_U_NONE},
					    {"t", QUERY_NUM, HS_U_SECONDS}, {"group size", QUERY_NUM, HS_U_NONE}};
	static const query_cells src = {NULL, cell_num, cell_text, 64};
	int64_t keep[20];
	hs_error err;
	int col;
	query_filter *f = query_filter_new(line, cols, 4, 1, &err, &col);

	if (!f)
		return;
	query_filter_range(f, &src, 0, 20, keep, &err);
	for (int c = 0; c < 4; c++)
		free(query_filter_without(f, c));
	hs_strbuf term = {0}, all = {0};
	query_filter_term(cols, 4, 1, "==", line, &term);
	query_filter_join(f, hs_strbuf_str(&term), &all);
	hs_strbuf_free(&term);
	hs_strbuf_free(&all);
	query_filter_free(f);
}

static int fuzz_query_line(query_session *s, FILE *sink, const char *line)
{
	query_result r;
	hs_error err;
	char buf[256];
	size_t n = strlen(line);

	fuzz_filter_line(line);
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
