/* print.c - writing query results as aligned tables, CSV and JSON, and the
 * "message / line / caret" text of an error.
 *
 * These write to a stream the front end chooses (stdout, a pager, a memory
 * stream for the explorer); they never pick one themselves.
 *
 *   table  header line, then rows; numbers right-aligned (integers exactly,
 *          others to 6 significant digits, "-" when missing), text
 *          left-aligned; the note follows in parentheses.  Text from input
 *          is escaped for a terminal (base/escape.h): a cell's control
 *          characters, TAB and LF among them, as \x1b..., and the
 *          columns are as wide as the escaped text; a text block keeps
 *          its lines and tabs.
 *   csv    RFC 4180; numbers written so that they read back exactly,
 *          missing values empty; no note.
 *   json   a table is an array of objects, one per row, keys in column
 *          order; missing numbers are null.  A text block is {"text": ...}.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/caret.h"
#include "base/csv.h"
#include "base/escape.h"
#include "base/jsonw.h"
#include "base/units.h"
#include "query/query_impl.h"

/* The unit of column c's numbers in row r (enum hs_unit). */
static int cell_unit(const query_table *t, int64_t r, int c)
{
	int u = t->units && t->types[c] == QUERY_NUM ? t->units[c] : HS_U_NONE;

	return u != QUERY_UNIT_ROW ? u : t->row_unit ? t->row_unit[r] : HS_U_NONE;
}

/* A cell as a terminal table shows it: a number with its unit (861 us),
 * times with dec[c] decimals (NULL: the unit's own). */
static void cell_short(const query_table *t, int64_t r, int c, const int *dec, char *buf, size_t cap,
		       const char **text)
{
	const query_cell *x = query_cell_at(t, r, c);
	int u = cell_unit(t, r, c);

	if (t->types[c] == QUERY_TEXT) {
		*text = x->text ? x->text : "";
		return;
	}
	if (isnan(x->num))
		snprintf(buf, cap, "-");
	else if (u != HS_U_NONE)
		hs_unit_format(buf, cap, u, x->num, dec && u == t->units[c] ? dec[c] : -1);
	else
		hs_num_short(buf, cap, x->num);
	*text = buf;
}

/* What --csv and --json call a column, or a stats row's field (name with
 * unit u): plain numbers, the unit in the name where the name does not say
 * it (cost_ns, runtime_ns; bytes and flops are their own unit). */
static const char *file_name(const char *name, int u, char *buf, size_t cap)
{
	size_t n = strlen(name);
	const char *suffix = u == HS_U_NS || u == HS_U_SECONDS ? "_ns" : u == HS_U_PERCENT ? "_pct" : "";

	if (!*suffix || (n >= strlen(suffix) && !strcmp(name + n - strlen(suffix), suffix)))
		return name;
	snprintf(buf, cap, "%s%s", name, suffix);
	return buf;
}

/* A number as --csv and --json write it: seconds as ns (its name says so). */
static void file_number(char *buf, size_t cap, int u, double v)
{
	hs_num_exact(buf, cap, u == HS_U_SECONDS ? v * 1e9 : v);
}

/* The length of text as a table shows it: escaped when it holds a byte
 * to escape (*clean 0), else its own. */
static size_t shown_len(const char *s, int *clean)
{
	size_t n = strlen(s);

	*clean = hs_esc_span(s, n, HS_ESC_NAME) == n;
	return *clean ? n : hs_esc_len(s, n, HS_ESC_NAME);
}

/* One cell in a column of width w: numbers right-aligned, text left-aligned
 * (the last column unpadded), escaped for a terminal. */
static void put_cell(FILE *out, const char *s, size_t w, int right, int last)
{
	int clean;
	size_t n = shown_len(s, &clean);

	if (clean) {
		if (right)
			fprintf(out, "%*s", (int)w, s);
		else if (last)
			fputs(s, out);
		else
			fprintf(out, "%-*s", (int)w, s);
		return;
	}
	if (right)
		fprintf(out, "%*s", (int)(w - n), "");
	hs_fputs_escaped(out, s, HS_ESC_NAME);
	if (!right && !last)
		fprintf(out, "%*s", (int)(w - n), "");
}

/* 0, or -1 when out of memory (nothing written). */
static int write_table(FILE *out, const query_result *res)
{
	const query_table *t = &res->table;
	size_t *w = calloc((size_t)t->ncols + 1, sizeof *w);
	int *dec = calloc((size_t)t->ncols + 1, sizeof *dec);
	char buf[64];
	const char *s;
	int clean;

	if (!w || !dec) {
		free(w);
		free(dec);
		return -1;
	}
	/* a time column: enough decimals to tell its values apart (runtimes
	 * 23.2706 s and 23.2707 s), 3 at least */
	for (int c = 0; c < t->ncols; c++) {
		int u = t->units[c];
		dec[c] = -1;
		if (t->types[c] != QUERY_NUM || (u != HS_U_NS && u != HS_U_SECONDS) || !t->nrows)
			continue;
		double *v = malloc((size_t)t->nrows * sizeof *v);
		if (!v) {
			free(w);
			free(dec);
			return -1;
		}
		for (int64_t r = 0; r < t->nrows; r++)
			v[r] = query_cell_at(t, r, c)->num;
		dec[c] = hs_unit_decimals(u, v, (size_t)t->nrows, 3, 9);
		free(v);
		if (dec[c] < 0) {
			free(w);
			free(dec);
			return -1;
		}
	}
	for (int c = 0; c < t->ncols; c++)
		w[c] = shown_len(t->cols[c], &clean);
	for (int64_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			cell_short(t, r, c, dec, buf, sizeof buf, &s);
			size_t n = t->types[c] == QUERY_TEXT ? shown_len(s, &clean) : strlen(s);
			if (n > w[c])
				w[c] = n;
		}
	for (int64_t r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			if (r < 0)
				s = t->cols[c];
			else
				cell_short(t, r, c, dec, buf, sizeof buf, &s);
			if (c)
				fputs("  ", out);
			put_cell(out, s, w[c], t->types[c] == QUERY_NUM, c == t->ncols - 1);
		}
		fputc('\n', out);
	}
	if (res->note) {
		fputc('(', out);
		hs_fputs_escaped(out, res->note, HS_ESC_TEXT);
		fputs(")\n", out);
	}
	free(w);
	free(dec);
	return 0;
}

/* Cell (r, c)'s text in a file: a stats row's field named with its unit. */
static const char *file_text(const query_table *t, int64_t r, int c, char *buf, size_t cap)
{
	const char *s = query_cell_at(t, r, c)->text;

	s = s ? s : "";
	return c == 0 && t->row_unit ? file_name(s, t->row_unit[r], buf, cap) : s;
}

static void write_csv(FILE *out, const query_table *t)
{
	char buf[64], name[160];

	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', out);
		csv_write_field(out, file_name(t->cols[c], t->units ? t->units[c] : HS_U_NONE, name, sizeof name));
	}
	fputc('\n', out);
	for (int64_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const query_cell *x = query_cell_at(t, r, c);
			if (c)
				fputc(',', out);
			if (t->types[c] == QUERY_TEXT) {
				csv_write_field(out, file_text(t, r, c, name, sizeof name));
			} else if (!isnan(x->num)) {
				file_number(buf, sizeof buf, cell_unit(t, r, c), x->num);
				fputs(buf, out);
			}
		}
		fputc('\n', out);
	}
}

static void write_json(FILE *out, const query_table *t)
{
	char buf[64], name[160];

	if (t->nrows == 0) {
		fputs("[]\n", out);
		return;
	}
	fputs("[\n", out);
	for (int64_t r = 0; r < t->nrows; r++) {
		fputc('{', out);
		for (int c = 0; c < t->ncols; c++) {
			const query_cell *x = query_cell_at(t, r, c);
			if (c)
				fputs(", ", out);
			json_write_string(out, file_name(t->cols[c], t->units ? t->units[c] : HS_U_NONE, name, sizeof name));
			fputs(": ", out);
			if (t->types[c] == QUERY_TEXT) {
				json_write_string(out, file_text(t, r, c, name, sizeof name));
			} else if (isnan(x->num) || isinf(x->num)) {
				fputs("null", out);
			} else {
				file_number(buf, sizeof buf, cell_unit(t, r, c), x->num);
				fputs(buf, out);
			}
		}
		fputs(r + 1 < t->nrows ? "},\n" : "}\n", out);
	}
	fputs("]\n", out);
}

int query_write(FILE *out, const query_result *r, query_format fmt, hs_error *err)
{
	errno = 0;
	switch (r->kind) {
	case QUERY_TABLE:
		if (fmt == QUERY_FMT_CSV)
			write_csv(out, &r->table);
		else if (fmt == QUERY_FMT_JSON)
			write_json(out, &r->table);
		else if (write_table(out, r) < 0)
			return hs_fail(err, HS_ENOMEM, "out of memory writing a table of %d columns",
				       r->table.ncols);
		break;
	case QUERY_BLOCK:
		if (fmt == QUERY_FMT_JSON) {
			fputs("{\"text\": ", out);
			json_write_string(out, r->text ? r->text : "");
			fputs("}\n", out);
		} else {
			hs_fputs_escaped(out, r->text ? r->text : "", HS_ESC_TEXT);
		}
		break;
	default:
		return 0;
	}
	if (fflush(out) != 0 || ferror(out)) {
		int e = errno ? errno : EIO;
		return hs_fail(err, hs_errno_status(e), "writing the result: %s", strerror(e));
	}
	return 0;
}

int query_error_caret(const char *msg, const char *line, int column, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s\n", msg ? msg : "");
	if (n < 0)
		return n;
	size_t k = (size_t)n;
	return n + hs_caret(buf && k < cap ? buf + k : NULL, buf && k < cap ? cap - k : 0, line, column);
}
