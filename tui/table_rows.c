/* table_rows.c - which rows a table shows and in what order: the filter (a
 * condition of the query language over the columns), sorting on any
 * column, and search; every change of the rows goes through
 * tui_table_refresh.
 *
 * Sorting computes the key of every shown row once and sorts an index
 * array (see struct skey). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"
#include "base/index.h"
#include "tui/tui.h"

static int scratch(tui_table *tb);

void tui_table_changed(tui_table *tb)
{
	free(tb->rank);
	tb->rank = NULL;
}

void tui_table_set_rows(tui_table *tb, int64_t nrows)
{
	free(tb->rank);
	tb->rank = NULL;
	free(tb->scratch);
	tb->scratch = NULL;
	tb->nrows = nrows;
	free(tb->idx);
	tb->idx = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *tb->idx);
	tb->nidx = 0;
	tb->cur = tb->top = 0;
	if (!tb->idx)
		return;
	for (int64_t i = 0; i < nrows; i++)
		tb->idx[i] = i;
	tb->nidx = nrows;
	if (nrows > 4096)
		scratch(tb);
}

/* ---- Filtering ------------------------------------------------------------ */

/* The filter is the query language's (query_filter_new): the columns are
 * its fields, read as the table shows them, whole (TUI_CELL_FULL), numbers
 * by their value and with the column's unit. */

static double cell_num(void *ctx, int64_t row, int col)
{
	return tui_table_value(ctx, row, col);
}

static const char *cell_text(void *ctx, int64_t row, int col, char *buf, size_t cap)
{
	const tui_table *tb = ctx;
	const char *s = tb->text ? tb->text(tb->ctx, row, &tb->cols[col]) : NULL;

	if (s)
		return s;
	tui_table_cell_cap(tb, row, col, buf, cap);
	return buf;
}

/* text compiled over the columns; NULL with err (and tb->filter_col) set. */
static query_filter *compile(tui_table *tb, const char *text, hs_error *err)
{
	query_column *qc = malloc((size_t)(tb->ncols > 0 ? tb->ncols : 1) * sizeof *qc);
	query_filter *f;

	tb->filter_col = 0;
	if (!qc) {
		hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
		return NULL;
	}
	for (int i = 0; i < tb->ncols; i++)
		qc[i] = (query_column){tb->cols[i].name, tb->cols[i].numeric ? QUERY_NUM : QUERY_TEXT,
				       tb->cols[i].unit};
	f = query_filter_new(text, qc, tb->ncols, tb->ccol, err, &tb->filter_col);
	free(qc);
	return f;
}

static int refresh_rows(tui_table *tb, hs_error *err);

/* f (taken) in force, or when it cannot run on every row (a regular
 * expression over its limits, out of memory), -1 with err set and the
 * filter in force kept. */
static int set_filter(tui_table *tb, query_filter *f, hs_error *err)
{
	query_filter *old = tb->filter;

	tb->filter = f;
	if (refresh_rows(tb, err) < 0) { /* which dropped f */
		hs_error again;
		tb->filter = old;
		refresh_rows(tb, &again);
		return -1;
	}
	query_filter_free(old);
	tb->nterms = f ? query_filter_terms(f) : 0;
	return 0;
}

/* Sorting computes every shown row's key once into 16-byte items and runs
 * a merge sort with inline comparisons (no qsort callbacks).  Numbers
 * become order-preserving 64-bit integers.  Text is lower-cased and each
 * distinct string gets its rank among the distinct strings (a hash table,
 * then a sort of the few distinct values), so rows compare as integers too;
 * descending order inverts the integer.  Ties keep row order; rows without
 * a value go last either way. */
struct skey {
	uint64_t k;
	int64_t row;
};

static inline int key_before(const struct skey *a, const struct skey *b)
{
	return a->k < b->k || (a->k == b->k && a->row < b->row);
}

static uint64_t num_key(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	if (v == 0)
		u = 0; /* -0 and 0 are equal */
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static struct skey *merge_sort(struct skey *a, struct skey *b, int64_t n)
{
	const int64_t run = 16;

	for (int64_t lo = 0; lo < n; lo += run) { /* short runs by insertion */
		int64_t hi = lo + run < n ? lo + run : n;
		for (int64_t i = lo + 1; i < hi; i++) {
			struct skey t = a[i];
			int64_t j = i;
			while (j > lo && key_before(&t, &a[j - 1])) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = t;
		}
	}
	for (int64_t w = run; w < n; w *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * w) {
			int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				b[k++] = key_before(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		struct skey *t = a;
		a = b;
		b = t;
	}
	return a;
}

#define TEXT_KEY 48 /* bytes of a cell's text that take part in sorting */

static int cmp_lowered(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int same_key(const void *arena, int32_t row, const void *key)
{
	return strcmp((const char *)arena + (size_t)row * TEXT_KEY, key) == 0;
}

/* The rank of every source row's lower-cased text among the distinct
 * texts of the column, into out[nrows]. */
static int text_ranks(tui_table *tb, int col, uint64_t *out)
{
	int64_t n = tb->nrows;
	char *arena = malloc((size_t)n * TEXT_KEY);
	int64_t *first = malloc((size_t)n * sizeof *first); /* row -> the first row of its text */
	char **distinct = malloc((size_t)n * sizeof *distinct);
	uint64_t *rank = malloc((size_t)n * sizeof *rank);  /* by first row */
	hs_index ix = {0};
	int64_t nd = 0;
	int rc = -1;

	if (!arena || !first || !distinct || !rank || n > HS_INDEX_MAX || hs_index_reserve(&ix, (size_t)n))
		goto out;
	for (int64_t i = 0; i < n; i++) {
		char buf[TUI_CELL], *d = arena + (size_t)i * TEXT_KEY;
		uint64_t h = HS_FNV_BASIS;
		int j = 0;
		tui_table_cell(tb, i, col, buf);
		for (; buf[j] && j < TEXT_KEY - 1; j++) {
			d[j] = (char)tolower((unsigned char)buf[j]);
			h = hs_fnv1a_byte((unsigned char)d[j], h);
		}
		d[j] = '\0';
		first[i] = hs_index_put(&ix, (uint32_t)h, (int32_t)i, same_key, arena, d);
		if (first[i] == i)
			distinct[nd++] = d;
	}
	qsort(distinct, (size_t)nd, sizeof *distinct, cmp_lowered);
	for (int64_t r = 0; r < nd; r++)
		rank[(distinct[r] - arena) / TEXT_KEY] = (uint64_t)r;
	for (int64_t i = 0; i < n; i++)
		out[i] = rank[first[i]];
	rc = 0;
out:
	free(arena);
	free(first);
	free(distinct);
	free(rank);
	hs_index_free(&ix);
	return rc;
}

/* Sort buffers live as long as the table's rows: allocated (and touched,
 * so no page faults land on a keystroke) when the rows are set. */
static int scratch(tui_table *tb)
{
	if (tb->scratch)
		return 0;
	size_t n = (size_t)(tb->nrows > 0 ? tb->nrows : 1);
	tb->scratch = calloc(n, 2 * sizeof(struct skey) + sizeof(int64_t));
	if (!tb->scratch)
		return -1;
	memset(tb->scratch, 0, n * (2 * sizeof(struct skey) + sizeof(int64_t)));
	return 0;
}

static void apply_sort(tui_table *tb)
{
	int col = tb->sort_col;
	int64_t n = tb->nidx, nv = 0, nn = 0;
	struct skey *a, *b, *sorted;
	int64_t *missing;

	if (col < 0 || col >= tb->ncols || n < 2)
		return;
	if (scratch(tb) < 0)
		return;
	a = tb->scratch;
	b = a + tb->nrows;
	missing = (int64_t *)(b + tb->nrows);
	int by_order = !tb->cols[col].numeric && tb->order &&
		       !isnan(tb->order(tb->ctx, tb->idx[0], &tb->cols[col]));
	if (by_order) {
		for (int64_t i = 0; i < n; i++) {
			a[i].row = tb->idx[i];
			a[i].k = num_key(tb->order(tb->ctx, tb->idx[i], &tb->cols[col]));
		}
		nv = n;
	} else if (!tb->cols[col].numeric) {
		/* ranks of a text column stay valid until the rows change */
		if (!tb->rank || tb->rank_key != tb->cols[col].key ||
		    strcmp(tb->rank_name, tb->cols[col].name)) {
			free(tb->rank);
			tb->rank = malloc((size_t)tb->nrows * sizeof *tb->rank);
			if (!tb->rank || text_ranks(tb, col, tb->rank) < 0) {
				free(tb->rank);
				tb->rank = NULL;
				goto out;
			}
			tb->rank_key = tb->cols[col].key;
			snprintf(tb->rank_name, sizeof tb->rank_name, "%s", tb->cols[col].name);
		}
		for (int64_t i = 0; i < n; i++) {
			a[i].row = tb->idx[i];
			a[i].k = tb->rank[tb->idx[i]];
		}
		nv = n;
	} else {
		for (int64_t i = 0; i < n; i++) {
			double v = tui_table_value(tb, tb->idx[i], col);
			if (isnan(v)) {
				missing[nn++] = tb->idx[i];
				continue;
			}
			a[nv].k = num_key(v);
			a[nv++].row = tb->idx[i];
		}
	}
	if (tb->sort_desc)
		for (int64_t i = 0; i < nv; i++)
			a[i].k = ~a[i].k;
	sorted = merge_sort(a, b, nv);
	for (int64_t i = 1; i < nn; i++) /* usually few: insertion sort */
		for (int64_t j = i; j > 0 && missing[j] < missing[j - 1]; j--) {
			int64_t t = missing[j];
			missing[j] = missing[j - 1];
			missing[j - 1] = t;
		}
	for (int64_t i = 0; i < nv; i++)
		tb->idx[i] = sorted[i].row;
	memcpy(tb->idx + nv, missing, (size_t)nn * sizeof *missing);
out:;
}

/* The rows the filter keeps, sorted; when the filter cannot run on every
 * row, -1 with err set, the filter dropped and every row shown. */
static int refresh_rows(tui_table *tb, hs_error *err)
{
	int64_t keep = tui_table_row(tb), n = 0;
	int rc = 0;

	if (!tb->idx)
		return 0;
	if (tb->filter) {
		query_cells src = {(void *)tb, cell_num, cell_text, TUI_CELL_FULL};
		n = query_filter_range(tb->filter, &src, 0, tb->nrows, tb->idx, err);
		if (n < 0) {
			query_filter_free(tb->filter);
			tb->filter = NULL;
			rc = -1;
		}
	}
	if (!tb->filter) {
		n = 0;
		for (int64_t r = 0; r < tb->nrows; r++)
			tb->idx[n++] = r;
	}
	tb->nidx = n;
	apply_sort(tb);
	tb->cur = 0;
	if (keep >= 0)
		tui_table_goto(tb, keep);
	if (tb->cur >= tb->nidx)
		tb->cur = tb->nidx ? tb->nidx - 1 : 0;
	return rc;
}

void tui_table_refresh(tui_table *tb)
{
	hs_error err;

	if (refresh_rows(tb, &err) < 0)
		tb->nterms = 0;
}

void tui_table_sort(tui_table *tb, int col, int desc)
{
	tb->sort_col = col;
	tb->sort_desc = desc;
	if (col < 0)
		tui_table_refresh(tb); /* natural order */
	else
		apply_sort(tb);
	tb->cur = tb->top = 0; /* the first of the new order is what one sorts to see */
}

int tui_table_filter(tui_table *tb, const char *expr, hs_error *err)
{
	const char *p = expr ? expr : "";
	query_filter *f;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		tb->filter_col = 0;
		return set_filter(tb, NULL, err);
	}
	if (!(f = compile(tb, expr, err)))
		return -1;
	return set_filter(tb, f, err);
}

int tui_table_add_term(tui_table *tb, int col, const char *op, const char *text)
{
	hs_error err = {0};
	hs_strbuf term = {0}, all = {0};
	query_column *qc = malloc((size_t)(tb->ncols > 0 ? tb->ncols : 1) * sizeof *qc);
	query_filter *f = NULL;

	if (qc && col >= 0 && col < tb->ncols) {
		for (int i = 0; i < tb->ncols; i++)
			qc[i] = (query_column){tb->cols[i].name, QUERY_TEXT, 0};
		query_filter_term(qc, tb->ncols, col, op, text, &term);
		if (tb->filter)
			query_filter_join(tb->filter, hs_strbuf_str(&term), &all);
		else
			hs_strbuf_puts(&all, hs_strbuf_str(&term));
		if (!term.failed && !all.failed)
			f = compile(tb, hs_strbuf_str(&all), &err);
	}
	free(qc);
	hs_strbuf_free(&term);
	hs_strbuf_free(&all);
	if (!f)
		return -1;
	return set_filter(tb, f, &err);
}

void tui_table_filter_text(const tui_table *tb, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", tb->filter ? query_filter_text(tb->filter) : "");
}

char *tui_table_filter_without(const tui_table *tb, int col)
{
	return tb->filter ? query_filter_without(tb->filter, col) : NULL;
}

void tui_table_refilter(tui_table *tb, const char *text)
{
	hs_error err = {0};
	char *again = !text && tb->filter ? strdup(query_filter_text(tb->filter)) : NULL;
	const char *t = text ? text : again;

	set_filter(tb, t && *t ? compile(tb, t, &err) : NULL, &err);
	free(again);
}

/* ---- Search ---------------------------------------------------------------- */

int tui_table_search(tui_table *tb, const char *s, int dir)
{
	char small[TUI_CELL], *full;
	int found = 0;

	if (!s || !*s || tb->nidx == 0 || tb->ncols == 0)
		return 0;
	if (s != tb->search)
		snprintf(tb->search, sizeof tb->search, "%s", s);
	full = malloc(TUI_CELL_FULL); /* a match anywhere in the whole text */
	int64_t i = tb->cur;
	for (int64_t k = 1; k <= tb->nidx && !found; k++) {
		i += dir; /* the next row, round the end */
		if (i >= tb->nidx)
			i = 0;
		else if (i < 0)
			i = tb->nidx - 1;
		const char *text = cell_text(tb, tb->idx[i], tb->ccol, full ? full : small,
					     full ? TUI_CELL_FULL : sizeof small);
		if (strcasestr(text, tb->search)) {
			tb->cur = i;
			found = 1;
		}
	}
	free(full);
	return found;
}
