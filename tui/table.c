/* table.c - the table pane every list view is made of: columns drawn from a
 * source through two callbacks, a cursor, sorting, filtering, search,
 * extra columns, CSV export and the frequency-table view.
 *
 * Only the visible rows are ever formatted for drawing; sorting computes the
 * key of every shown row once and sorts an index array. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/tui.h"

#define CELL 256

static int scratch(tui_table *tb);

void tui_table_init(tui_table *tb, const tui_table_ops *ops, void *ctx, int64_t nrows)
{
	memset(tb, 0, sizeof *tb);
	tb->ops = ops;
	tb->ctx = ctx;
	tb->sort_col = -1;
	tui_table_set_rows(tb, nrows);
}

void tui_table_free(tui_table *tb)
{
	free(tb->scratch);
	free(tb->rank);
	free(tb->cols);
	free(tb->idx);
	free(tb->avail);
	memset(tb, 0, sizeof *tb);
}

static int push_col(tui_col **arr, int *n, int *cap, const char *name, int key, int width,
		    int numeric)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 16;
		tui_col *p = realloc(*arr, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		*arr = p;
		*cap = nc;
	}
	tui_col *c = &(*arr)[(*n)++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->key = key;
	c->width = width;
	c->numeric = numeric;
	return *n - 1;
}

int tui_table_add_col(tui_table *tb, const char *name, int key, int width, int numeric)
{
	return push_col(&tb->cols, &tb->ncols, &tb->capcols, name, key, width, numeric);
}

int tui_table_add_avail(tui_table *tb, const char *name, int key, int width, int numeric)
{
	return push_col(&tb->avail, &tb->navail, &tb->capavail, name, key, width, numeric);
}

int tui_table_find_col(const tui_table *tb, const char *name)
{
	for (int i = 0; i < tb->ncols; i++)
		if (!strcasecmp(tb->cols[i].name, name))
			return i;
	return -1;
}

/* Column indices stored in terms and sort follow a removal or insertion. */
static void shift_cols(tui_table *tb, int at, int delta)
{
	if (tb->sort_col >= at)
		tb->sort_col = (delta < 0 && tb->sort_col == at) ? -1 : tb->sort_col + delta;
	for (int i = 0; i < tb->nterms; i++)
		if (tb->terms[i].col > at || (delta > 0 && tb->terms[i].col == at))
			tb->terms[i].col += delta;
}

void tui_table_del_col(tui_table *tb, int i)
{
	if (i < 0 || i >= tb->ncols || tb->ncols <= 1)
		return;
	tui_col c = tb->cols[i];
	/* drop filter terms on it */
	int k = 0;
	for (int j = 0; j < tb->nterms; j++)
		if (tb->terms[j].col != i)
			tb->terms[k++] = tb->terms[j];
	tb->nterms = k;
	memmove(tb->cols + i, tb->cols + i + 1, (size_t)(tb->ncols - i - 1) * sizeof c);
	tb->ncols--;
	shift_cols(tb, i, -1);
	push_col(&tb->avail, &tb->navail, &tb->capavail, c.name, c.key, c.width, c.numeric);
	if (tb->frozen > i)
		tb->frozen--;
	if (tb->ccol >= tb->ncols)
		tb->ccol = tb->ncols - 1;
	tui_table_refresh(tb);
}

int tui_table_show_col(tui_table *tb, const char *name, hs_error *err)
{
	int at = tb->ncols ? tb->ccol + 1 : 0;

	if (tui_table_find_col(tb, name) >= 0) {
		tb->ccol = tui_table_find_col(tb, name);
		return 0;
	}
	for (int i = 0; i < tb->navail; i++) {
		if (strcasecmp(tb->avail[i].name, name))
			continue;
		tui_col c = tb->avail[i];
		if (tui_table_add_col(tb, c.name, c.key, c.width, c.numeric) < 0)
			return hs_fail(err, HS_EUSAGE, "out of memory");
		memmove(tb->cols + at + 1, tb->cols + at, (size_t)(tb->ncols - 1 - at) * sizeof c);
		tb->cols[at] = c;
		shift_cols(tb, at, 1);
		memmove(tb->avail + i, tb->avail + i + 1, (size_t)(tb->navail - i - 1) * sizeof c);
		tb->navail--;
		tb->ccol = at;
		return 0;
	}
	return hs_fail(err, HS_EUSAGE, "no column '%s' (Tab completes names)", name);
}

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

static int cell(const tui_table *tb, int64_t row, int col, char *buf)
{
	buf[0] = '\0';
	return tb->ops->cell(tb->ctx, row, &tb->cols[col], buf, CELL);
}

static double value(const tui_table *tb, int64_t row, int col)
{
	if (!tb->ops->value)
		return NAN;
	return tb->ops->value(tb->ctx, row, &tb->cols[col]);
}

/* ---- Filtering ---------------------------------------------------------- */

static int term_match(const tui_table *tb, const tui_term *t, int64_t row)
{
	char buf[CELL];
	const tui_col *c = &tb->cols[t->col];

	if (c->numeric && t->is_num && strcmp(t->op, "~") && strcmp(t->op, "==")) {
		double v = value(tb, row, t->col);
		if (isnan(v))
			return !strcmp(t->op, "!=");
		if (!strcmp(t->op, "="))
			return v == t->num;
		if (!strcmp(t->op, "!="))
			return v != t->num;
		if (!strcmp(t->op, "<"))
			return v < t->num;
		if (!strcmp(t->op, "<="))
			return v <= t->num;
		if (!strcmp(t->op, ">"))
			return v > t->num;
		return v >= t->num;
	}
	cell(tb, row, t->col, buf);
	if (!strcmp(t->op, "~"))
		return strcasestr(buf, t->text) != NULL;
	int cmp = strcasecmp(buf, t->text);
	if (!strcmp(t->op, "=") || !strcmp(t->op, "=="))
		return cmp == 0;
	if (!strcmp(t->op, "!="))
		return cmp != 0;
	if (!strcmp(t->op, "<"))
		return cmp < 0;
	if (!strcmp(t->op, "<="))
		return cmp <= 0;
	if (!strcmp(t->op, ">"))
		return cmp > 0;
	return cmp >= 0;
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
		char buf[CELL], *d = arena + (size_t)i * TEXT_KEY;
		uint64_t h = 1469598103934665603ULL;
		int j = 0;
		cell(tb, i, col, buf);
		for (; buf[j] && j < TEXT_KEY - 1; j++) {
			d[j] = (char)tolower((unsigned char)buf[j]);
			h = (h ^ (unsigned char)d[j]) * 1099511628211ULL;
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
		uint64_t h = 1469598103934665603ULL;
		for (const char *p = d; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		size_t b = (size_t)h & (cap - 1);
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
			double v = value(tb, tb->idx[i], col);
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

	if (!tb->idx)
		return;
	for (int64_t r = 0; r < tb->nrows; r++) {
		int ok = 1;
		for (int i = 0; i < tb->nterms && ok; i++)
			ok = term_match(tb, &tb->terms[i], r);
		if (ok)
			tb->idx[n++] = r;
	}
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

/* One term: "COL OP VALUE" with a known column, or plain text (contained in
 * the current column). */
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
			snprintf(t->text, sizeof t->text, "%s", trim(best + strlen(bop)));
			char *end;
			errno = 0;
			t->num = strtod(t->text, &end);
			t->is_num = t->text[0] && !*end && !errno;
			if (t->op[0] != '~' && t->op[0] != '=' && t->op[0] != '!' &&
			    tb->cols[col].numeric && !t->is_num)
				return hs_fail(err, HS_EUSAGE, "'%s' is not a number (column %s)",
					       t->text, tb->cols[col].name);
			return 0;
		}
		if (bop[0] != '~' && trim(name)[0] && !strchr(trim(name), ' '))
			return hs_fail(err, HS_EUSAGE, "no column '%s' in this table", trim(name));
	}
	if (!*s)
		return hs_fail(err, HS_EUSAGE, "empty filter term");
	t->col = tb->ccol;
	snprintf(t->op, sizeof t->op, "~");
	snprintf(t->text, sizeof t->text, "%s", s);
	return 0;
}

int tui_table_filter(tui_table *tb, const char *expr, hs_error *err)
{
	char buf[512], *p;
	tui_term terms[TUI_MAX_TERMS];
	int n = 0;

	snprintf(buf, sizeof buf, "%s", expr ? expr : "");
	p = trim(buf);
	if (!*p) {
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
		if (n == TUI_MAX_TERMS)
			return hs_fail(err, HS_EUSAGE, "at most %d filter terms", TUI_MAX_TERMS);
		if (parse_term(tb, p, &terms[n], err) < 0)
			return -1;
		n++;
		if (!cut)
			break;
		p = cut + skip;
	}
	memcpy(tb->terms, terms, sizeof terms);
	tb->nterms = n;
	tui_table_refresh(tb);
	return 0;
}

int tui_table_add_term(tui_table *tb, int col, const char *op, const char *text)
{
	if (tb->nterms == TUI_MAX_TERMS || col < 0 || col >= tb->ncols)
		return -1;
	tui_term *t = &tb->terms[tb->nterms++];
	memset(t, 0, sizeof *t);
	t->col = col;
	snprintf(t->op, sizeof t->op, "%s", op);
	snprintf(t->text, sizeof t->text, "%s", text);
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

/* ---- Cursor ------------------------------------------------------------- */

int64_t tui_table_row(const tui_table *tb)
{
	if (!tb->idx || tb->cur < 0 || tb->cur >= tb->nidx)
		return -1;
	return tb->idx[tb->cur];
}

int tui_table_goto(tui_table *tb, int64_t row)
{
	for (int64_t i = 0; i < tb->nidx; i++)
		if (tb->idx[i] == row) {
			tb->cur = i;
			return 1;
		}
	return 0;
}

void tui_table_move(tui_table *tb, int64_t delta)
{
	int64_t c = tb->cur + delta;
	if (c >= tb->nidx)
		c = tb->nidx - 1;
	if (c < 0)
		c = 0;
	tb->cur = c;
}

int tui_table_search(tui_table *tb, const char *s, int dir)
{
	char buf[CELL];

	if (!s || !*s || tb->nidx == 0 || tb->ncols == 0)
		return 0;
	if (s != tb->search)
		snprintf(tb->search, sizeof tb->search, "%s", s);
	for (int64_t k = 1; k <= tb->nidx; k++) {
		int64_t i = ((tb->cur + dir * k) % tb->nidx + tb->nidx) % tb->nidx;
		cell(tb, tb->idx[i], tb->ccol, buf);
		if (strcasestr(buf, tb->search)) {
			tb->cur = i;
			return 1;
		}
	}
	return 0;
}

/* ---- Drawing -------------------------------------------------------------- */

/* Columns drawn, in order, fitting w cells; keeps the current one visible. */
static int layout_cols(tui_table *tb, int w, int *out, int cap)
{
	int n, used;

	if (tb->lcol < tb->frozen)
		tb->lcol = tb->frozen;
	if (tb->ccol >= tb->frozen && tb->ccol < tb->lcol)
		tb->lcol = tb->ccol;
	for (;;) {
		n = 0;
		used = 0;
		for (int i = 0; i < tb->frozen && i < tb->ncols && n < cap; i++) {
			out[n++] = i;
			used += tb->cols[i].width + 1;
		}
		int saw_cur = tb->ccol < tb->frozen;
		for (int i = tb->lcol; i < tb->ncols && n < cap; i++) {
			if (used >= w)
				break;
			out[n++] = i;
			if (i == tb->ccol && used + tb->cols[i].width <= w)
				saw_cur = 1;
			used += tb->cols[i].width + 1;
		}
		if (saw_cur || tb->lcol >= tb->ccol)
			return n;
		tb->lcol++;
	}
}

void tui_table_draw(WINDOW *win, tui_table *tb, int y, int x, int h, int w, int focused)
{
	int cols[128], n, rows, cx;
	char buf[CELL + 8];

	tb->y = y;
	tb->x = x;
	tb->h = h;
	tb->w = w;
	if (h <= 0 || w <= 0)
		return;
	if (tb->title[0]) {
		char right[64];
		snprintf(right, sizeof right, " %lld/%lld ", (long long)tb->nidx,
			 (long long)tb->nrows);
		tui_put(win, y, x, w, tb->title,
			tui_attr(TUI_C_SECTION) | (focused ? A_BOLD : 0), 1);
		tui_put_right(win, y, x + w - (int)strlen(right), (int)strlen(right), right,
			      tui_attr(TUI_C_DIM));
		y++;
		h--;
	}
	if (h <= 0)
		return;
	n = layout_cols(tb, w, cols, 128);
	/* header */
	cx = x;
	mvwhline(win, y, x, ' ', w);
	for (int i = 0; i < n && cx < x + w; i++) {
		const tui_col *c = &tb->cols[cols[i]];
		int cw = c->width < x + w - cx ? c->width : x + w - cx;
		attr_t a = tui_attr(TUI_C_HEADER);
		const char *arrow = "";
		if (cols[i] == tb->sort_col)
			arrow = tui_utf8() ? (tb->sort_desc ? "\u25bc" : "\u25b2")
					   : (tb->sort_desc ? "v" : "^");
		/* the arrow stays visible when the name is cut */
		if (*arrow && tui_width(c->name) + 1 > cw) {
			char cut[64];
			int keep = cw - 1 > 0 ? cw - 1 : 0;
			snprintf(cut, sizeof cut, "%.*s", keep, c->name);
			snprintf(buf, sizeof buf, "%s%s", cut, arrow);
		} else
			snprintf(buf, sizeof buf, "%s%s", c->name, arrow);
		if (cols[i] == tb->ccol && focused)
			a |= A_REVERSE;
		if (c->numeric == 1)
			tui_put_right(win, y, cx, cw, buf, a);
		else
			tui_put(win, y, cx, cw, buf, a, 1);
		cx += c->width + 1;
	}
	y++;
	rows = h - 1;
	tb->hint_rows = rows > 0 ? rows : 1;
	if (rows <= 0)
		return;
	if (tb->cur >= tb->nidx)
		tb->cur = tb->nidx ? tb->nidx - 1 : 0;
	if (tb->cur < tb->top)
		tb->top = tb->cur;
	if (tb->cur >= tb->top + rows)
		tb->top = tb->cur - rows + 1;
	if (tb->top > 0 && tb->top + rows > tb->nidx)
		tb->top = tb->nidx - rows > 0 ? tb->nidx - rows : 0;
	for (int r = 0; r < rows; r++) {
		int64_t i = tb->top + r;
		mvwhline(win, y + r, x, ' ', w);
		if (i >= tb->nidx) {
			if (i == 0 && r == 0)
				tui_put(win, y, x, w, tb->nterms ? "(no row matches the filter)" : "(empty)",
					tui_attr(TUI_C_DIM), 0);
			continue;
		}
		int is_cur = i == tb->cur;
		attr_t rowattr = is_cur ? (focused ? A_REVERSE : A_BOLD | A_UNDERLINE) : 0;
		if (is_cur) {
			wattrset(win, rowattr);
			mvwhline(win, y + r, x, ' ', w);
		}
		cx = x;
		for (int k = 0; k < n && cx < x + w; k++) {
			const tui_col *c = &tb->cols[cols[k]];
			int cw = c->width < x + w - cx ? c->width : x + w - cx;
			int cls = cell(tb, tb->idx[i], cols[k], buf);
			attr_t a = tui_attr(cls) | rowattr;
			if (is_cur && focused && cols[k] == tb->ccol)
				a |= A_BOLD;
			if (c->numeric == 1)
				tui_put_right(win, y + r, cx, cw, buf, a);
			else
				tui_put(win, y + r, cx, cw, buf, a, 1);
			cx += c->width + 1;
		}
	}
}

int tui_table_contains(const tui_table *tb, int y, int x)
{
	return y >= tb->y && y < tb->y + tb->h && x >= tb->x && x < tb->x + tb->w;
}

int tui_table_click(tui_table *tb, int y, int x)
{
	int first = tb->y + (tb->title[0] ? 1 : 0) + 1;

	if (!tui_table_contains(tb, y, x))
		return 0;
	if (y >= first) {
		int64_t i = tb->top + (y - first);
		if (i < tb->nidx)
			tb->cur = i;
	}
	/* the column under the pointer becomes current */
	int cols[128], n = layout_cols(tb, tb->w, cols, 128), cx = tb->x;
	for (int k = 0; k < n; k++) {
		if (x >= cx && x < cx + tb->cols[cols[k]].width + 1) {
			tb->ccol = cols[k];
			break;
		}
		cx += tb->cols[cols[k]].width + 1;
	}
	return 1;
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int tui_table_write_csv(const tui_table *tb, const char *path, hs_error *err)
{
	char tmp[4096], buf[CELL];
	FILE *f;
	int fd;

	if (!path || !*path)
		return hs_fail(err, HS_EUSAGE, "write: give a file name");
	if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
		return hs_fail(err, HS_EUSAGE, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return hs_fail(err, HS_EUSAGE, "%s: cannot create: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return hs_fail(err, HS_EUSAGE, "%s: %s", path, strerror(errno));
	}
	for (int c = 0; c < tb->ncols; c++) {
		if (c)
			fputc(',', f);
		csv_field(f, tb->cols[c].name);
	}
	fputc('\n', f);
	for (int64_t i = 0; i < tb->nidx; i++) {
		for (int c = 0; c < tb->ncols; c++) {
			if (c)
				fputc(',', f);
			double v = tb->cols[c].numeric ? value(tb, tb->idx[i], c) : NAN;
			if (!isnan(v))
				fprintf(f, "%.17g", v);
			else {
				cell(tb, tb->idx[i], c, buf);
				csv_field(f, buf);
			}
		}
		fputc('\n', f);
	}
	if (ferror(f) | (fclose(f) != 0)) {
		unlink(tmp);
		return hs_fail(err, HS_EUSAGE, "%s: write failed", path);
	}
	if (rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return hs_fail(err, HS_EUSAGE, "%s: %s", path, strerror(e));
	}
	return 0;
}

/* ---- Requests ------------------------------------------------------------- */

int tui_table_request(tui *t, tui_table *tb, tui_req req, const char *arg)
{
	int page = tb->hint_rows > 1 ? tb->hint_rows : 10;
	hs_error err = {0};

	switch (req) {
	case TUI_REQ_UP:
		tui_table_move(tb, -1);
		return 1;
	case TUI_REQ_DOWN:
		tui_table_move(tb, 1);
		return 1;
	case TUI_REQ_PAGE_UP:
		tui_table_move(tb, -page);
		tb->top -= page;
		if (tb->top < 0)
			tb->top = 0;
		return 1;
	case TUI_REQ_PAGE_DOWN:
		tui_table_move(tb, page);
		tb->top += page;
		return 1;
	case TUI_REQ_HALF_UP:
		tui_table_move(tb, -page / 2);
		return 1;
	case TUI_REQ_HALF_DOWN:
		tui_table_move(tb, page / 2);
		return 1;
	case TUI_REQ_TOP:
		tb->cur = 0;
		return 1;
	case TUI_REQ_BOTTOM:
		tb->cur = tb->nidx ? tb->nidx - 1 : 0;
		return 1;
	case TUI_REQ_LEFT:
		if (tb->ccol > 0)
			tb->ccol--;
		return 1;
	case TUI_REQ_RIGHT:
		if (tb->ccol + 1 < tb->ncols)
			tb->ccol++;
		return 1;
	case TUI_REQ_SORT_ASC:
	case TUI_REQ_SORT_DESC: {
		int desc = req == TUI_REQ_SORT_DESC, col = tb->ccol;
		if (arg && *arg) {
			char name[64] = "", dir[16] = "";
			sscanf(arg, "%63s %15s", name, dir);
			if (!strcmp(name, "none") || !strcmp(name, "-")) {
				tui_table_sort(tb, -1, 0);
				tui_message(t, 0, "natural order");
				return 1;
			}
			col = tui_table_find_col(tb, name);
			if (col < 0) {
				tui_message(t, 1, "sort: no column '%s'", name);
				return 1;
			}
			if (!strcmp(dir, "desc"))
				desc = 1;
			else if (!strcmp(dir, "asc"))
				desc = 0;
			tb->ccol = col;
		}
		tui_table_sort(tb, col, desc);
		tui_message(t, 0, "sorted by %s, %s", tb->cols[col].name,
			    desc ? "descending" : "ascending");
		return 1;
	}
	case TUI_REQ_SEARCH: {
		const char *s = arg;
		if (!s)
			s = tui_prompt(t, "/", TUI_P_SEARCH, NULL);
		if (!s || !*s)
			return 1;
		snprintf(tb->search, sizeof tb->search, "%s", s);
		if (!tui_table_search(tb, tb->search, 1))
			tui_message(t, 1, "'%s' not found in column %s", tb->search,
				    tb->cols[tb->ccol].name);
		return 1;
	}
	case TUI_REQ_NEXT:
	case TUI_REQ_PREV:
		if (!tb->search[0])
			tui_message(t, 1, "no search yet: press / first");
		else if (!tui_table_search(tb, tb->search, req == TUI_REQ_NEXT ? 1 : -1))
			tui_message(t, 1, "'%s' not found in column %s", tb->search,
				    tb->cols[tb->ccol].name);
		return 1;
	case TUI_REQ_FILTER: {
		char cur[512];
		const char *s = arg;
		if (!s) {
			tui_table_filter_text(tb, cur, sizeof cur);
			s = tui_prompt(t, "\\", TUI_P_FILTER, cur);
			if (!s)
				return 1;
		}
		if (tui_table_filter(tb, s, &err) < 0)
			tui_message(t, 1, "filter: %s", err.msg);
		else if (tb->nterms) {
			tui_table_filter_text(tb, cur, sizeof cur);
			tui_message(t, 0, "%lld of %lld rows: %s", (long long)tb->nidx,
				    (long long)tb->nrows, cur);
		} else
			tui_message(t, 0, "filter cleared");
		return 1;
	}
	case TUI_REQ_FREQ:
		if (tb->ncols)
			tui_open_freq(t, tb, tb->ccol);
		return 1;
	case TUI_REQ_DEL_COLUMN:
		if (tb->ncols <= 1)
			tui_message(t, 1, "the last column stays");
		else {
			char name[48];
			snprintf(name, sizeof name, "%s", tb->cols[tb->ccol].name);
			tui_table_del_col(tb, tb->ccol);
			tui_message(t, 0, "column %s hidden (+ brings it back)", name);
		}
		return 1;
	case TUI_REQ_ADD_COLUMN: {
		const char *s = arg;
		if (tb->navail == 0) {
			tui_message(t, 1, "no more columns for this table");
			return 1;
		}
		if (!s)
			s = tui_prompt(t, "add column: ", TUI_P_COLUMN, NULL);
		if (!s || !*s)
			return 1;
		if (tui_table_show_col(tb, s, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	case TUI_REQ_WRITE:
		if (!arg || !*arg)
			arg = tui_prompt(t, "write CSV to: ", TUI_P_COMMAND, NULL);
		if (!arg || !*arg)
			return 1;
		if (tui_table_write_csv(tb, arg, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		else
			tui_message(t, 0, "wrote %lld rows to %s", (long long)tb->nidx, arg);
		return 1;
	case TUI_REQ_GOTO: {
		char *end;
		long long n = arg ? strtoll(arg, &end, 10) : -1;
		if (!arg || *end || n < 1 || n > tb->nidx) {
			tui_message(t, 1, "goto: give a row number 1..%lld", (long long)tb->nidx);
			return 1;
		}
		tb->cur = n - 1;
		return 1;
	}
	case TUI_REQ_MOUSE: {
		MEVENT *m = tui_mouse(t);
		if (!tui_table_contains(tb, m->y, m->x))
			return 0;
		if (m->bstate & BUTTON4_PRESSED) {
			tui_table_move(tb, -3);
			tb->top = tb->top > 3 ? tb->top - 3 : 0;
			return 1;
		}
#ifdef BUTTON5_PRESSED
		if (m->bstate & BUTTON5_PRESSED) {
			tui_table_move(tb, 3);
			tb->top += 3;
			return 1;
		}
#endif
		if (m->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED |
				 BUTTON1_DOUBLE_CLICKED))
			return tui_table_click(tb, m->y, m->x);
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- Frequency table view --------------------------------------------------- */

struct freq_row {
	char *text;
	int64_t count;
	double num;
};

struct freq {
	tui_table tab;
	tui_table *parent;
	int col;
	char colname[48];
	struct freq_row *rows;
	int64_t n, total, maxcount;
};

enum { FQ_VALUE, FQ_COUNT, FQ_SHARE, FQ_BAR };

static int freq_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct freq *f = ctx;
	const struct freq_row *r = &f->rows[row];

	switch (c->key) {
	case FQ_VALUE:
		snprintf(buf, cap, "%s", r->text);
		break;
	case FQ_COUNT:
		snprintf(buf, cap, "%lld", (long long)r->count);
		break;
	case FQ_SHARE:
		snprintf(buf, cap, "%.1f%%", 100.0 * (double)r->count / (double)(f->total ? f->total : 1));
		break;
	case FQ_BAR:
		tui_bar(buf, cap, (double)r->count / (double)(f->maxcount ? f->maxcount : 1), c->width);
		return TUI_C_BAR;
	}
	return TUI_C_DEFAULT;
}

static double freq_value(void *ctx, int64_t row, const tui_col *c)
{
	struct freq *f = ctx;
	const struct freq_row *r = &f->rows[row];

	switch (c->key) {
	case FQ_VALUE:
		return r->num;
	case FQ_COUNT:
	case FQ_BAR:
		return (double)r->count;
	case FQ_SHARE:
		return 100.0 * (double)r->count / (double)(f->total ? f->total : 1);
	}
	return NAN;
}

static const tui_table_ops freq_table_ops = {freq_cell, freq_value};

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void freq_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct freq *f = v->data;
	tui_table_draw(win, &f->tab, y, x, h, w, 1);
}

static int freq_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct freq *f = v->data;

	if (req != TUI_REQ_ENTER)
		return 0;
	int64_t r = tui_table_row(&f->tab);
	if (r < 0)
		return 1;
	/* filter the parent to this value, then go back to it */
	tui_table *p = f->parent;
	char text[CELL];
	snprintf(text, sizeof text, "%s", f->rows[r].text);
	int col = f->col;
	tui_pop_later(t);
	if (tui_table_add_term(p, col, "==", text) < 0)
		tui_message(t, 1, "too many filter terms (\\ with an empty line clears them)");
	else
		tui_message(t, 0, "%lld rows with %s = %s", (long long)p->nidx, p->cols[col].name, text);
	return 1;
}

static void freq_done(tui_view *v)
{
	struct freq *f = v->data;
	for (int64_t i = 0; i < f->n; i++)
		free(f->rows[i].text);
	free(f->rows);
	tui_table_free(&f->tab);
	free(f);
}

static const tui_view_ops freq_ops = {
	"frequency", TUI_S_TABLE, freq_draw, freq_request, NULL, NULL, freq_done,
};

int tui_open_freq(tui *t, tui_table *parent, int col)
{
	struct freq *f = calloc(1, sizeof *f);
	char **texts = NULL, *arena = NULL;
	int64_t n = parent->nidx;

	if (!f)
		goto oom;
	f->parent = parent;
	f->col = col;
	snprintf(f->colname, sizeof f->colname, "%s", parent->cols[col].name);
	texts = malloc((size_t)(n ? n : 1) * sizeof *texts);
	arena = malloc((size_t)(n ? n : 1) * 96);
	f->rows = malloc((size_t)(n ? n : 1) * sizeof *f->rows);
	if (!texts || !arena || !f->rows)
		goto oom;
	for (int64_t i = 0; i < n; i++) {
		char buf[CELL];
		cell(parent, parent->idx[i], col, buf);
		snprintf(arena + i * 96, 96, "%s", buf);
		texts[i] = arena + i * 96;
	}
	qsort(texts, (size_t)n, sizeof *texts, cmp_text);
	for (int64_t i = 0; i < n;) {
		int64_t j = i;
		while (j < n && !strcmp(texts[j], texts[i]))
			j++;
		struct freq_row *r = &f->rows[f->n++];
		r->text = strdup(texts[i]);
		r->count = j - i;
		char *end;
		r->num = strtod(texts[i], &end);
		if (end == texts[i] || *end)
			r->num = NAN;
		if (!r->text)
			goto oom;
		if (r->count > f->maxcount)
			f->maxcount = r->count;
		i = j;
	}
	f->total = n;
	free(texts);
	free(arena);
	texts = NULL;
	arena = NULL;
	tui_table_init(&f->tab, &freq_table_ops, f, f->n);
	int vw = parent->cols[col].width < 12 ? 12 : parent->cols[col].width;
	tui_table_add_col(&f->tab, f->colname, FQ_VALUE, vw > 40 ? 40 : vw,
			  parent->cols[col].numeric);
	tui_table_add_col(&f->tab, "count", FQ_COUNT, 8, 1);
	tui_table_add_col(&f->tab, "share", FQ_SHARE, 7, 1);
	tui_table_add_col(&f->tab, "bar", FQ_BAR, 30, TUI_LEFT);
	tui_table_sort(&f->tab, 1, 1);
	f->tab.cur = 0;
	snprintf(f->tab.title, sizeof f->tab.title, "Frequency of %s over %lld rows: %lld values",
		 f->colname, (long long)n, (long long)f->n);
	char title[160];
	snprintf(title, sizeof title, "Frequency: %s", f->colname);
	tui_view *v = tui_push(t, &freq_ops, f, NULL, title);
	if (!v) {
		freq_done(&(tui_view){.data = f});
		return -1;
	}
	v->pane[0] = &f->tab;
	v->npanes = 1;
	return 0;
oom:
	free(texts);
	free(arena);
	if (f) {
		for (int64_t i = 0; i < f->n; i++)
			free(f->rows[i].text);
		free(f->rows);
		free(f);
	}
	tui_message(t, 1, "out of memory");
	return -1;
}
