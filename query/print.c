/* print.c - writing query results as aligned tables, CSV and JSON, and the
 * "message / line / caret" text of an error.
 *
 * These write to a stream the front end chooses (stdout, a pager, a memory
 * stream for the explorer); they never pick one themselves.
 *
 *   table  header line, then rows; numbers right-aligned (integers exactly,
 *          others to 6 significant digits, "-" when missing), text
 *          left-aligned; the note follows in parentheses.
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
#include "base/jsonw.h"
#include "query/query_impl.h"

static void cell_short(const query_table *t, int64_t r, int c, char *buf, size_t cap,
		       const char **text)
{
	const query_cell *x = query_cell_at(t, r, c);

	if (t->types[c] == QUERY_TEXT) {
		*text = x->text ? x->text : "";
		return;
	}
	if (isnan(x->num))
		snprintf(buf, cap, "-");
	else
		query_fmt_short(x->num, buf, cap);
	*text = buf;
}

/* 0, or -1 when out of memory (nothing written). */
static int write_table(FILE *out, const query_result *res)
{
	const query_table *t = &res->table;
	size_t *w = calloc((size_t)t->ncols + 1, sizeof *w);
	char buf[64];
	const char *s;

	if (!w)
		return -1;
	for (int c = 0; c < t->ncols; c++)
		w[c] = strlen(t->cols[c]);
	for (int64_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			cell_short(t, r, c, buf, sizeof buf, &s);
			size_t n = strlen(s);
			if (n > w[c])
				w[c] = n;
		}
	for (int64_t r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			int last = c == t->ncols - 1;
			if (r < 0)
				s = t->cols[c];
			else
				cell_short(t, r, c, buf, sizeof buf, &s);
			if (c)
				fputs("  ", out);
			if (t->types[c] == QUERY_NUM)
				fprintf(out, "%*s", (int)w[c], s);
			else if (last)
				fputs(s, out);
			else
				fprintf(out, "%-*s", (int)w[c], s);
		}
		fputc('\n', out);
	}
	if (res->note)
		fprintf(out, "(%s)\n", res->note);
	free(w);
	return 0;
}

static void write_csv(FILE *out, const query_table *t)
{
	char buf[64];

	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', out);
		csv_write_field(out, t->cols[c]);
	}
	fputc('\n', out);
	for (int64_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const query_cell *x = query_cell_at(t, r, c);
			if (c)
				fputc(',', out);
			if (t->types[c] == QUERY_TEXT) {
				csv_write_field(out, x->text ? x->text : "");
			} else if (!isnan(x->num)) {
				query_fmt_exact(x->num, buf, sizeof buf);
				fputs(buf, out);
			}
		}
		fputc('\n', out);
	}
}

static void write_json(FILE *out, const query_table *t)
{
	char buf[64];

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
			json_write_string(out, t->cols[c]);
			fputs(": ", out);
			if (t->types[c] == QUERY_TEXT) {
				json_write_string(out, x->text ? x->text : "");
			} else if (isnan(x->num) || isinf(x->num)) {
				fputs("null", out);
			} else {
				query_fmt_exact(x->num, buf, sizeof buf);
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
			fputs(r->text ? r->text : "", out);
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
