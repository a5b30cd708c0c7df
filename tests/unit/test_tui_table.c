/* test_tui_table.c - the explorer's table engine without a terminal:
 * sorting (numbers, text, ties, missing values), filter expressions and
 * their errors, search with wrap-around, columns shown and hidden, CSV,
 * whole values past TUI_CELL, names shortened in the middle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "tests/unit/t.h"
#include "tui/tui.h"

/* rows: i -> name "n<i % 7>" (or "n<6 - i % 7>" once `flipped`), value
 * (i * 37) % 101, NaN every 10th */
static int flipped;

static int cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	(void)ctx;
	if (c->key == 0)
		snprintf(buf, cap, "%lld", (long long)row);
	else if (c->key == 1)
		snprintf(buf, cap, "N%lld", (long long)(flipped ? 6 - row % 7 : row % 7));
	else if (row % 10 == 9)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%lld", (long long)((row * 37) % 101));
	return TUI_C_DEFAULT;
}

static double value(void *ctx, int64_t row, const tui_col *c)
{
	(void)ctx;
	if (c->key == 0)
		return (double)row;
	if (c->key == 1)
		return NAN;
	return row % 10 == 9 ? NAN : (double)((row * 37) % 101);
}

static const tui_table_ops ops = {cell, value};

static void make(tui_table *tb, int64_t n)
{
	tui_table_init(tb, &ops, NULL, n);
	tui_table_add_col(tb, "id", 0, 6, 1);
	tui_table_add_col(tb, "name", 1, 6, 0);
	tui_table_add_col(tb, "value", 2, 6, 1);
	tui_table_add_avail(tb, "extra", 2, 6, 1);
}

/* A column of durations: row i took i microseconds, printed as the
 * explorer prints seconds ("12 us", "1.5 ms"). */
static int time_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	(void)ctx;
	(void)c;
	hs_unit_format(buf, cap, HS_U_SECONDS, (double)row * 1e-6, -1);
	return TUI_C_DEFAULT;
}

static double time_value(void *ctx, int64_t row, const tui_col *c)
{
	(void)ctx;
	(void)c;
	return (double)row * 1e-6;
}

static const tui_table_ops time_ops = {time_cell, time_value};

/* A column with a unit: its filters read numbers in the unit. */
static void units(void)
{
	char buf[64];

	tui_table tb;
	hs_error err = {0};
	tui_table_init(&tb, &time_ops, NULL, 2000);
	tui_table_add_col(&tb, "t", 0, 8, 1);
	tb.cols[0].unit = HS_U_SECONDS;
	CHECK("filter t < 12 us", tui_table_filter(&tb, "t < 12 us", &err) == 0 && tb.nidx == 12);
	CHECK("filter t >= 1ms", tui_table_filter(&tb, "t>=1ms", &err) == 0 && tb.nidx == 1000);
	int64_t want = 0;
	for (int64_t r = 0; r < 2000; r++) {
		time_cell(NULL, r, NULL, buf, sizeof buf);
		want += !strcmp(buf, "1.23 ms");
	}
	CHECK("filter t = 1.23 ms keeps the rows that show 1.23 ms",
	      tui_table_filter(&tb, "t = 1.23ms", &err) == 0 && tb.nidx == want && want >= 9 &&
		      tui_table_goto(&tb, 1230));
	CHECK("filter with a unit of another kind fails",
	      tui_table_filter(&tb, "t < 12 GB", &err) < 0 && strstr(err.msg, "not a duration") &&
		      strstr(err.msg, "12 us"));
	tui_table_free(&tb);
}

/* Names long enough for a pattern that backtracks exponentially. */
static int gte_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	(void)ctx;
	(void)c;
	snprintf(buf, cap, "get-tuple-element.%lld", (long long)row);
	return TUI_C_DEFAULT;
}

static const tui_table_ops gte_ops = {gte_cell, value};

/* A pattern over its limits (base/regex.h) is an error naming the limit and
 * the text, and the filter in force stays. */
static void regex_limits(void)
{
	tui_table tb;
	hs_error err = {0};

	tui_table_init(&tb, &gte_ops, NULL, 100);
	tui_table_add_col(&tb, "name", 1, 6, 0);
	CHECK("~ over long names", tui_table_filter(&tb, "name~\\.1\\d$", &err) == 0 && tb.nidx == 10);
	CHECK("~ past the match limit is an error",
	      tui_table_filter(&tb, "name~^(.|.)+\\.$", &err) < 0 && err.status == HS_EUSAGE &&
		      strstr(err.msg, "needs more than the match limit (1,000,000 steps) on 'get-tuple-element.0'"));
	CHECK("... that keeps the old filter", tb.nterms == 1 && tb.nidx == 10);
	CHECK("... also after `and`", tui_table_add_term(&tb, 0, "~", "^(.|.)+\\.$") < 0 && tb.nidx == 10);
	CHECK("every pattern is compiled once (issue 28's ran for minutes)",
	      tui_table_filter(&tb, "name~'(((a{1,100}){1,100}){1,100}){1,100}'", &err) < 0 &&
		      strstr(err.msg, "too large") && tb.nidx == 10);
	tui_table_free(&tb);
}

/* `~` is a regular expression; plain text is matched literally. */
static void regexes(void)
{
	tui_table tb;
	hs_error err = {0};

	make(&tb, 1000);
	CHECK("~ anchors at the start", tui_table_filter(&tb, "name~^N[0-2]$", &err) == 0 &&
						tb.nidx == 143 + 143 + 143);
	CHECK("~ ignores case as plain text does", tui_table_filter(&tb, "name~^n6", &err) == 0 &&
							 tb.nidx == 142);
	CHECK("~ alternatives", tui_table_filter(&tb, "name~N1|N2", &err) == 0 && tb.nidx == 286);
	CHECK("~ on a numeric column reads its text", tui_table_filter(&tb, "value~^-$", &err) == 0 &&
							       tb.nidx == 100);
	CHECK("a bad regular expression is an error",
	      tui_table_filter(&tb, "name~(N1", &err) < 0 && strstr(err.msg, "bad regular expression '(N1'"));
	CHECK("... that keeps the old filter", tb.nterms == 1 && tb.nidx == 100);
	tb.ccol = 1;
	CHECK("plain text is literal", tui_table_filter(&tb, "N.", &err) == 0 && tb.nidx == 0);
	CHECK("plain text matches inside", tui_table_filter(&tb, "6", &err) == 0 && tb.nidx == 142);
	char text[256];
	tui_table_filter_text(&tb, text, sizeof text);
	CHECK("plain text shows as an escaped ~", tui_table_filter(&tb, "N(", &err) == 0 &&
						      (tui_table_filter_text(&tb, text, sizeof text), 1) &&
						      !strcmp(text, "name~N\\("));
	CHECK("... which filters the same when typed again", tui_table_filter(&tb, text, &err) == 0 &&
								 tb.nidx == 0);
	/* every PCRE2 metacharacter of plain text is escaped (and the string quoted for the #) */
	CHECK("plain text with every metacharacter is literal",
	      tui_table_filter(&tb, "\\^$.[]|()?*+{}#", &err) == 0 && tb.nidx == 0 &&
		      (tui_table_filter_text(&tb, text, sizeof text), 1) &&
		      !strcmp(text, "name~\"\\\\\\\\\\\\^\\\\$\\\\.\\\\[\\\\]\\\\|\\\\(\\\\)\\\\?\\\\*\\\\+\\\\{\\\\}#\""));
	CHECK("... and reads back", tui_table_filter(&tb, text, &err) == 0 && tb.nidx == 0);
	tb.ccol = 0;
	CHECK("plain text matches literally", tui_table_filter(&tb, "99", &err) == 0 && tb.nidx == 19);
	tui_table_free(&tb);
}

static int sorted_by_value(const tui_table *tb, int desc)
{
	int seen_nan = 0;
	for (int64_t i = 0; i < tb->nidx; i++) {
		double v = value(NULL, tb->idx[i], &tb->cols[2]);
		if (isnan(v)) {
			seen_nan = 1;
			if (i > 0 && isnan(value(NULL, tb->idx[i - 1], &tb->cols[2])) &&
			    tb->idx[i - 1] > tb->idx[i])
				return 0;
			continue;
		}
		if (seen_nan)
			return 0; /* missing values go last */
		if (i > 0) {
			double p = value(NULL, tb->idx[i - 1], &tb->cols[2]);
			if (desc ? p < v : p > v)
				return 0;
			if (p == v && tb->idx[i - 1] > tb->idx[i])
				return 0; /* ties in row order */
		}
	}
	return 1;
}

/* Long values: row i's text is 600 'a's then "/<i % 3>", so every value
 * shares its first 600 characters with the others. */
static int long_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	(void)ctx;
	(void)c;
	snprintf(buf, cap, "%0600d/%lld", 0, (long long)(row % 3));
	return TUI_C_DEFAULT;
}

static const tui_table_ops long_ops = {long_cell, NULL};

/* Whole values where they count (filters, search, :write), names cut in
 * the middle only on screen. */
static void whole_values(void)
{
	tui_table tb;
	hs_error err = {0};
	char *buf = malloc(TUI_CELL_FULL), small[TUI_CELL];

	tui_table_init(&tb, &long_ops, NULL, 30);
	tui_table_add_col(&tb, "op_name", 0, 30, 0);
	tui_table_cell(&tb, 2, 0, small);
	CHECK("a drawn cell is cut to TUI_CELL", strlen(small) == TUI_CELL - 1);
	CHECK("a whole cell is whole", buf && tui_table_cell_cap(&tb, 2, 0, buf, TUI_CELL_FULL) >= 0 &&
					       strlen(buf) == 602 && !strcmp(buf + 600, "/2"));
	CHECK("an exact term matches the whole text",
	      buf && tui_table_add_term(&tb, 0, "==", buf) == 0 && tb.nidx == 10 && tb.idx[0] == 2);
	tui_table_filter(&tb, "", &err);
	tb.cur = 0;
	CHECK("search sees past the first 255 characters", tui_table_search(&tb, "/1", 1) && tb.cur == 1);
	tui_table_free(&tb);
	free(buf);

	char out[64];
	const char *name = "ragged_latency_optimized_reduce_scatter_out_feature_matmul.1", *m = tui_name(name, out, sizeof out);
	CHECK("a name over 40 cells is cut in the middle to 40",
	      m == out && tui_width(m) == TUI_NAME_MAX && !strncmp(m, "ragged_latency_optim", 20) &&
	      !strcmp(m + strlen(m) - 19, "ut_feature_matmul.1"));
	CHECK("a name of 40 stays whole", tui_name("0123456789012345678901234567890123456789", out, sizeof out)[39] == '9' &&
	      strlen(tui_name("0123456789012345678901234567890123456789", out, sizeof out)) == 40);
	m = tui_mid("get-tuple-element.2547", 15, out, sizeof out);
	CHECK("a squeezed name keeps its start and its number", tui_width(m) == 15 && !strncmp(m, "get-tup", 7) &&
	      !strcmp(m + strlen(m) - 7, "ent.2547" + 1));
}

/* The filter is the query language over the columns (issue 23: `or`,
 * `not`, parentheses, `in` and quotes; the old filter kept 0 rows of `a or
 * b`).  Row i: id i, name "N<i % 7>", value (i * 37) % 101, none every 10th. */
static int64_t want_rows(int (*keep)(int64_t))
{
	int64_t n = 0;
	for (int64_t i = 0; i < 1000; i++)
		n += keep(i);
	return n;
}
static int k_or(int64_t i) { return i % 7 == 1 || i % 7 == 2; }
static int k_paren(int64_t i) { return (i % 7 == 1 || i % 7 == 2) && i % 10 != 9 && (i * 37) % 101 > 50; }
static int k_not(int64_t i) { return i % 7 != 1; }
static int k_missing_or(int64_t i) { return i % 10 == 9 || i < 3; }

static const char *stable_name(void *ctx, int64_t row, const tui_col *c)
{
	static const char *const names[7] = {"N0", "N1", "N2", "N3", "N4", "N5", "N6"};
	(void)ctx;
	return c->key == 1 ? names[row % 7] : NULL;
}

static void expressions(void)
{
	tui_table tb;
	hs_error err = {0};
	char text[256];

	make(&tb, 1000);
	CHECK("a or b keeps the rows of both", tui_table_filter(&tb, "name = n1 or name = N2", &err) == 0 &&
						    tb.nidx == want_rows(k_or) && tb.nterms == 1);
	CHECK("parentheses group", tui_table_filter(&tb, "(name = n1 or name = n2) and value > 50", &err) == 0 &&
				       tb.nidx == want_rows(k_paren) && tb.nterms == 2);
	CHECK("in takes a list, quoted or not", tui_table_filter(&tb, "name in (n1, 'N2')", &err) == 0 &&
						    tb.nidx == want_rows(k_or));
	CHECK("not negates", tui_table_filter(&tb, "not name = \"n1\"", &err) == 0 && tb.nidx == want_rows(k_not));
	CHECK("- is no value, in any term", tui_table_filter(&tb, "value = - or id < 3", &err) == 0 &&
						     tb.nidx == want_rows(k_missing_or));
	CHECK("a condition needs a whole expression", tui_table_filter(&tb, "name = n1 or", &err) < 0 &&
							  strstr(err.msg, "expected a value") && tb.filter_col == 13 &&
							  tb.nidx == want_rows(k_missing_or));
	tui_table_filter(&tb, "name=n1 or name=n2", &err);
	tui_table_add_term(&tb, 1, "==", "N1");
	tui_table_filter_text(&tb, text, sizeof text);
	CHECK("a term added to an or is and-ed with all of it", !strcmp(text, "(name=n1 or name=n2) and name==N1") &&
								    tb.nidx == 143);
	tui_table_filter(&tb, "value > 50 and name = n3 and id >= 10", &err);
	tui_table_del_col(&tb, 1);
	tui_table_filter_text(&tb, text, sizeof text);
	int64_t want = 0;
	for (int64_t i = 10; i < 1000; i++)
		want += i % 10 != 9 && (i * 37) % 101 > 50;
	CHECK("hiding a column drops the terms that read it", !strcmp(text, "value>50 and id>=10") &&
								  tb.nterms == 2 && tb.nidx == want);
	tui_table_show_col(&tb, "name", &err);
	CHECK("showing it back keeps the filter on the right columns",
	      tui_table_filter(&tb, "name = n3", &err) == 0 && tb.nidx == 143);
	tui_table_free(&tb);

	/* cells a table holds as stable text (tui_table.text) filter and are
	 * searched as their formatted twins */
	tui_table plain;
	make(&plain, 1000);
	make(&tb, 1000);
	tb.text = stable_name;
	int same = 1;
	const char *conds[] = {"name = n1 or name = N2", "name ~ ^n[3-5]$", "n6", "name in (n0, n4) and value > 20"};
	for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++) {
		tb.ccol = plain.ccol = 1;
		tui_table_filter(&tb, conds[i], &err);
		tui_table_filter(&plain, conds[i], &err);
		same &= tb.nidx == plain.nidx && !memcmp(tb.idx, plain.idx, (size_t)tb.nidx * sizeof *tb.idx);
	}
	CHECK("stable texts filter as the formatted cells", same && tb.nidx > 0);
	tui_table_filter(&tb, "", &err);
	tb.cur = 0;
	CHECK("... and are searched alike", tui_table_search(&tb, "n5", 1) && tb.cur == 5 &&
	      tui_table_search(&tb, "n5", -1) && tb.cur == 999 - (999 - 5) % 7);
	tui_table_free(&plain);
	tui_table_free(&tb);

	/* a column named with a space or a sign is one name */
	tui_table_init(&tb, &ops, NULL, 1000);
	tui_table_add_col(&tb, "row id", 0, 6, 1);
	tui_table_add_col(&tb, "bytes/device", 2, 6, 1);
	CHECK("column names of several words", tui_table_filter(&tb, "row id < 10 and bytes/device >= 0", &err) == 0 &&
						   tb.nidx == 9);
	tui_table_free(&tb);
}

int main(void)
{
	tui_table tb;
	hs_error err = {0};

	whole_values();
	make(&tb, 1000);
	CHECK("all rows shown", tb.nidx == 1000 && tb.idx[999] == 999);

	tui_table_sort(&tb, 2, 0);
	CHECK("numeric sort ascending, ties by row, missing last", sorted_by_value(&tb, 0));
	tui_table_sort(&tb, 2, 1);
	CHECK("numeric sort descending, ties by row, missing last", sorted_by_value(&tb, 1));
	CHECK("no row lost by sorting", tb.nidx == 1000);
	tui_table_sort(&tb, 1, 0);
	int ok = 1;
	for (int64_t i = 1; i < tb.nidx; i++) {
		long a = tb.idx[i - 1] % 7, b = tb.idx[i] % 7;
		if (a > b || (a == b && tb.idx[i - 1] > tb.idx[i]))
			ok = 0;
	}
	CHECK("text sort, case-insensitive, ties by row", ok);
	CHECK("text sort descending", (tui_table_sort(&tb, 1, 1), tb.idx[0] == 6 && tb.idx[999] == 994));
	flipped = 1;
	tui_table_changed(&tb);
	tui_table_sort(&tb, 1, 0);
	CHECK("changed texts are sorted anew", tb.idx[0] == 6 && tb.idx[1] == 13);
	flipped = 0;
	tui_table_changed(&tb);
	tui_table_sort(&tb, -1, 0);
	CHECK("sort none restores the natural order", tb.idx[0] == 0 && tb.idx[999] == 999);

	/* a sort moves the cursor to the first row: the largest is on screen */
	tb.cur = 500;
	tui_table_sort(&tb, 2, 1);
	CHECK("a sort moves the cursor to the first row", tb.cur == 0 && tui_table_row(&tb) == tb.idx[0]);
	tui_table_sort(&tb, -1, 0);

	CHECK("filter value>90", tui_table_filter(&tb, "value>90", &err) == 0);
	int64_t want = 0;
	for (int64_t r = 0; r < 1000; r++)
		want += r % 10 != 9 && (r * 37) % 101 > 90;
	CHECK("filter value>90 keeps the right rows", tb.nidx == want);
	CHECK("filter with and", tui_table_filter(&tb, "value>=50 and name=n3", &err) == 0);
	ok = 1;
	for (int64_t i = 0; i < tb.nidx; i++)
		if (tb.idx[i] % 7 != 3 || (tb.idx[i] * 37) % 101 < 50 || tb.idx[i] % 10 == 9)
			ok = 0;
	CHECK("filter with and keeps only matching rows", ok && tb.nidx > 0);
	char text[256];
	tui_table_filter_text(&tb, text, sizeof text);
	CHECK("filter text round-trips", !strcmp(text, "value>=50 and name=n3"));
	CHECK("filter on an unknown column fails", tui_table_filter(&tb, "nope>3", &err) < 0 &&
						     strstr(err.msg, "no column 'nope'"));
	CHECK("a failed filter keeps the old one", tb.nterms == 2);
	CHECK("a number is needed for <", tui_table_filter(&tb, "value<abc", &err) < 0 &&
						  strstr(err.msg, "not a number"));
	CHECK("value!=- keeps rows with a value", tui_table_filter(&tb, "value!=-", &err) == 0 &&
							tb.nidx == 900);
	tb.ccol = 1;
	CHECK("plain text filters the current column", tui_table_filter(&tb, "N6", &err) == 0 &&
							   tb.nidx == 142);
	CHECK("an empty filter clears", tui_table_filter(&tb, "  ", &err) == 0 && tb.nidx == 1000);
	CHECK("exact term from a frequency table", tui_table_add_term(&tb, 1, "==", "N2") == 0 &&
						       tb.nidx == 143);
	tui_table_filter(&tb, "", &err);
	/* a frequency table tells "N2" from "n2": its drill-down does too */
	CHECK("an exact term is the exact text, case included",
	      tui_table_add_term(&tb, 1, "==", "n2") == 0 && tb.nidx == 0);
	tui_table_filter(&tb, "", &err);

	tb.ccol = 1;
	tb.cur = 0;
	CHECK("search finds the next match", tui_table_search(&tb, "n5", 1) && tb.cur == 5);
	CHECK("search again", tui_table_search(&tb, "n5", 1) && tb.cur == 12);
	CHECK("search backwards", tui_table_search(&tb, "n5", -1) && tb.cur == 5);
	CHECK("search backwards wraps", tui_table_search(&tb, "n5", -1) && tb.cur == 999 - (999 - 5) % 7);
	CHECK("search for nothing fails", !tui_table_search(&tb, "zz", 1));

	CHECK("show an available column", tui_table_show_col(&tb, "extra", &err) == 0 && tb.ncols == 4 &&
						  tb.ccol == 2 && !strcmp(tb.cols[2].name, "extra"));
	CHECK("unknown column", tui_table_show_col(&tb, "nothing", &err) < 0);
	tui_table_sort(&tb, 3, 0);
	tui_table_del_col(&tb, 2);
	CHECK("hiding a column keeps the sort on the right one", tb.sort_col == 2 &&
								 !strcmp(tb.cols[2].name, "value"));
	CHECK("hidden columns become available", tb.navail == 1);

	char path[] = "/tmp/hloscope-test-csv-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	tui_table_filter(&tb, "id<3", &err);
	tui_table_sort(&tb, 0, 0);
	CHECK("write CSV", tui_table_write_csv(&tb, path, &err) == 0);
	FILE *f = fopen(path, "r");
	char buf[512] = "";
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	CHECK("CSV content", !strcmp(buf, "id,name,value\n0,N0,0\n1,N1,37\n2,N2,74\n"));
	unlink(path);
	CHECK("CSV into a missing folder fails", tui_table_write_csv(&tb, "/nonexistent/x.csv", &err) < 0);

	tui_table_free(&tb);
	units();
	regexes();
	regex_limits();
	expressions();
	T_DONE();
}
