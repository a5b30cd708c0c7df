/* table_rows.c - which rows a table shows and in what order: filter terms,
 * sorting on any column, and search; every change of the rows goes through
 * tui_table_refresh.
 *
 * Sorting computes the key of every shown row once and sorts an index
 * array (see struct skey). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"
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

/* Filters read a column's cells as the column prints them: `~` is a POSIX
 * extended regular expression (the query language's `~`), ignoring case as
 * plain text and search do; numbers may carry the column's unit. */

void tui_term_free(tui_term *t)
{
	if (t->re) {
		regfree(t->re);
		free(t->re);
	}
	t->re = NULL;
	free(t->text);
	t->text = NULL;
}

static void free_terms(tui_term *t, int n)
{
	for (int i = 0; i < n; i++)
		tui_term_free(&t[i]);
}

static int compare_op(const char *op, int cmp)
{
	if (!strcmp(op, "=") || !strcmp(op, "=="))
		return cmp == 0;
	if (!strcmp(op, "!="))
		return cmp != 0;
	if (!strcmp(op, "<"))
		return cmp < 0;
	if (!strcmp(op, "<="))
		return cmp <= 0;
	if (!strcmp(op, ">"))
		return cmp > 0;
	return cmp >= 0;
}

/* Whether source row `row` passes term t; buf[cap] takes the cell's text
 * (whole with cap TUI_CELL_FULL). */
static int term_match(const tui_table *tb, const tui_term *t, int64_t row, char *buf, size_t cap)
{
	const tui_col *c = &tb->cols[t->col];

	if (c->numeric && t->is_num && strcmp(t->op, "~") && strcmp(t->op, "==")) {
		double v;
		if (t->by_value) { /* "= 12.3 us": the cell as printed, read back */
			tui_table_cell(tb, row, t->col, buf);
			if (tui_unit_parse(buf, c->unit, &v) < 0)
				v = NAN;
		} else
			v = tui_table_value(tb, row, t->col);
		if (isnan(v))
			return !strcmp(t->op, "!=");
		return compare_op(t->op, (v > t->num) - (v < t->num));
	}
	tui_table_cell_cap(tb, row, t->col, buf, cap);
	if (!strcmp(t->op, "~"))
		return t->re && regexec(t->re, buf, 0, NULL, 0) == 0;
	/* "==" (a frequency table's value) is the exact text */
	if (!strcmp(t->op, "=="))
		return strcmp(buf, t->text) == 0;
	return compare_op(t->op, strcasecmp(buf, t->text));
}

/* Compiles t->text for `~`; -1 + err when it is no regular expression. */
static int compile_term(tui_term *t, hs_error *err)
{
	regex_t *re = calloc(1, sizeof *re);

	if (!re)
		return hs_fail(err, HS_ENOMEM, "out of memory compiling a filter");
	int rc = regcomp(re, t->text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc != 0) {
		char msg[128];
		regerror(rc, re, msg, sizeof msg);
		free(re);
		return hs_fail(err, HS_EUSAGE, "bad regular expression '%s': %s", t->text, msg);
	}
	t->re = re;
	return 0;
}

/* Plain text as a regular expression that matches it literally
 * (malloc'd), or NULL when out of memory. */
static char *escape_regex(const char *s)
{
	char *out = malloc(strlen(s) * 2 + 1);
	size_t n = 0;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (strchr("\\.[]()*+?{}|^$", *s))
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
	return out;
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

/* The rank of every source row's lower-cased text among the distinct
 * texts of the column, into out[nrows]. */
static int text_ranks(tui_table *tb, int col, uint64_t *out)
{
	int64_t n = tb->nrows;
	size_t cap = 16;
	while (cap < (size_t)n * 2)
		cap *= 2;
	char *arena = malloc((size_t)n * TEXT_KEY);
	int64_t *slot = malloc(cap * sizeof *slot);   /* hash: arena index or -1 */
	int64_t *id = malloc((size_t)n * sizeof *id); /* row -> distinct slot */
	char **distinct = malloc((size_t)n * sizeof *distinct);
	uint64_t *rank = malloc(cap * sizeof *rank);
	int64_t nd = 0;
	int rc = -1;

	if (!arena || !slot || !id || !distinct || !rank)
		goto out;
	memset(slot, 0xff, cap * sizeof *slot);
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
		size_t b = (size_t)h & (cap - 1);
		while (slot[b] >= 0 && strcmp(arena + (size_t)slot[b] * TEXT_KEY, d))
			b = (b + 1) & (cap - 1);
		if (slot[b] < 0) {
			slot[b] = i;
			distinct[nd++] = d;
		}
		id[i] = (int64_t)b;
	}
	qsort(distinct, (size_t)nd, sizeof *distinct, cmp_lowered);
	for (int64_t r = 0; r < nd; r++) {
		/* find the bucket of this distinct string again */
		const char *d = distinct[r];
		size_t b = (size_t)hs_fnv1a(d, HS_FNV_BASIS) & (cap - 1);
		while (strcmp(arena + (size_t)slot[b] * TEXT_KEY, d))
			b = (b + 1) & (cap - 1);
		rank[b] = (uint64_t)r;
	}
	for (int64_t i = 0; i < n; i++)
		out[i] = rank[id[i]];
	rc = 0;
out:
	free(arena);
	free(slot);
	free(id);
	free(distinct);
	free(rank);
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

void tui_table_refresh(tui_table *tb)
{
	int64_t keep = tui_table_row(tb), n = 0;
	char small[TUI_CELL], *full = NULL;

	if (!tb->idx)
		return;
	/* whole texts: a value of a frequency table is matched whole */
	if (tb->nterms && !(full = malloc(TUI_CELL_FULL)))
		full = NULL;
	for (int64_t r = 0; r < tb->nrows; r++) {
		int ok = 1;
		for (int i = 0; i < tb->nterms && ok; i++)
			ok = term_match(tb, &tb->terms[i], r, full ? full : small, full ? TUI_CELL_FULL : sizeof small);
		if (ok)
			tb->idx[n++] = r;
	}
	free(full);
	tb->nidx = n;
	apply_sort(tb);
	tb->cur = 0;
	if (keep >= 0)
		tui_table_goto(tb, keep);
	if (tb->cur >= tb->nidx)
		tb->cur = tb->nidx ? tb->nidx - 1 : 0;
}

void tui_table_sort(tui_table *tb, int col, int desc)
{
	tb->sort_col = col;
	tb->sort_desc = desc;
	if (col < 0) {
		tui_table_refresh(tb); /* natural order */
		return;
	}
	int64_t keep = tui_table_row(tb);
	apply_sort(tb);
	if (keep >= 0)
		tui_table_goto(tb, keep);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = '\0';
		s++;
	}
	return s;
}

/* The value of "COL OP VALUE" on a known column: a regular expression for
 * `~`, a number (with the column's unit) for a numeric column, else text. */
static int term_value(const tui_table *tb, tui_term *t, hs_error *err)
{
	const tui_col *c = &tb->cols[t->col];
	char *end;

	if (!strcmp(t->op, "~"))
		return compile_term(t, err);
	if (!c->numeric || !t->text[0])
		return 0;
	errno = 0;
	t->num = strtod(t->text, &end);
	t->is_num = !*end && !errno;
	if (!t->is_num && c->unit && tui_unit_parse(t->text, c->unit, &t->num) == 0) {
		t->is_num = 1;
		t->by_value = !strcmp(t->op, "=") || !strcmp(t->op, "!=");
	}
	/* = and != also take text ("-" for no value) */
	if (!t->is_num && t->op[0] != '=' && t->op[0] != '!')
		return hs_fail(err, HS_EUSAGE, "'%s' is not %s (column %s; e.g. %s)", t->text,
			       tui_unit_what(c->unit), c->name, tui_unit_example(c->unit));
	return 0;
}

/* One term: "COL OP VALUE" with a known column, or plain text (contained in
 * the current column, as a regular expression that matches it literally). */
static int parse_term(const tui_table *tb, char *s, tui_term *t, hs_error *err)
{
	static const char *ops[] = {"==", "!=", "<=", ">=", "=", "<", ">", "~"};
	char *best = NULL;
	const char *bop = NULL;

	memset(t, 0, sizeof *t);
	s = trim(s);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		char *p = strstr(s, ops[i]);
		if (p && (!best || p < best)) {
			best = p;
			bop = ops[i];
		}
	}
	if (best) {
		char name[64];
		size_t n = (size_t)(best - s);
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, s, n);
		name[n] = '\0';
		int col = tui_table_find_col(tb, trim(name));
		if (col >= 0) {
			t->col = col;
			snprintf(t->op, sizeof t->op, "%s", bop);
			if (!(t->text = strdup(trim(best + strlen(bop)))))
				return hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
			return term_value(tb, t, err);
		}
		if (bop[0] != '~' && trim(name)[0] && !strchr(trim(name), ' '))
			return hs_fail(err, HS_EUSAGE, "no column '%s' in this table", trim(name));
	}
	if (!*s)
		return hs_fail(err, HS_EUSAGE, "empty filter term");
	t->col = tb->ccol;
	snprintf(t->op, sizeof t->op, "~");
	if (!(t->text = escape_regex(s)))
		return hs_fail(err, HS_ENOMEM, "out of memory reading a filter");
	return compile_term(t, err);
}

int tui_table_filter(tui_table *tb, const char *expr, hs_error *err)
{
	char buf[512], *p;
	tui_term terms[TUI_MAX_TERMS];
	int n = 0;

	snprintf(buf, sizeof buf, "%s", expr ? expr : "");
	p = trim(buf);
	if (!*p) {
		free_terms(tb->terms, tb->nterms);
		tb->nterms = 0;
		tui_table_refresh(tb);
		return 0;
	}
	for (;;) {
		char *amp = strchr(p, '&'), *and = strstr(p, " and "), *cut = NULL;
		size_t skip = 0;
		if (and && (!amp || and < amp)) {
			cut = and;
			skip = 5;
		} else if (amp) {
			cut = amp;
			skip = 1;
		}
		if (cut)
			*cut = '\0';
		if (n == TUI_MAX_TERMS) {
			free_terms(terms, n);
			return hs_fail(err, HS_EUSAGE, "at most %d filter terms", TUI_MAX_TERMS);
		}
		if (parse_term(tb, p, &terms[n], err) < 0) {
			free_terms(terms, n + 1);
			return -1;
		}
		n++;
		if (!cut)
			break;
		p = cut + skip;
	}
	free_terms(tb->terms, tb->nterms);
	memcpy(tb->terms, terms, (size_t)n * sizeof terms[0]);
	tb->nterms = n;
	tui_table_refresh(tb);
	return 0;
}

int tui_table_add_term(tui_table *tb, int col, const char *op, const char *text)
{
	hs_error err = {0};

	if (tb->nterms == TUI_MAX_TERMS || col < 0 || col >= tb->ncols)
		return -1;
	tui_term *t = &tb->terms[tb->nterms];
	memset(t, 0, sizeof *t);
	t->col = col;
	snprintf(t->op, sizeof t->op, "%s", op);
	if (!(t->text = strdup(text)))
		return -1;
	if (strcmp(op, "==") && term_value(tb, t, &err) < 0) {
		tui_term_free(t);
		return -1;
	}
	tb->nterms++;
	tui_table_refresh(tb);
	return 0;
}

void tui_table_filter_text(const tui_table *tb, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < tb->nterms && len < cap; i++) {
		const tui_term *t = &tb->terms[i];
		int n = snprintf(buf + len, cap - len, "%s%s%s%s", i ? " and " : "",
				 tb->cols[t->col].name, t->op, t->text);
		if (n < 0)
			break;
		len += (size_t)n;
	}
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
	for (int64_t k = 1; k <= tb->nidx && !found; k++) {
		int64_t i = ((tb->cur + dir * k) % tb->nidx + tb->nidx) % tb->nidx;
		char *buf = full ? full : small;
		tui_table_cell_cap(tb, tb->idx[i], tb->ccol, buf, full ? TUI_CELL_FULL : sizeof small);
		if (strcasestr(buf, tb->search)) {
			tb->cur = i;
			found = 1;
		}
	}
	free(full);
	return found;
}
