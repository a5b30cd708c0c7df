/* table.c - the table pane every list view is made of: columns drawn from a
 * source through two callbacks, a cursor, drawing, mouse selection, CSV
 * export and the requests a table answers.  Which rows show and in what
 * order (filters, sorting, search) is table_rows.c; the frequency table of
 * a column is view_freq.c.
 *
 * Only the visible rows are ever formatted for drawing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/csv.h"
#include "base/parse.h"
#include "base/plural.h"
#include "tui/tui.h"

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
	query_filter_free(tb->filter);
	free(tb->scratch);
	free(tb->rank);
	free(tb->cols);
	free(tb->idx);
	free(tb->avail);
	memset(tb, 0, sizeof *tb);
}

/* Appends a copy of column c to arr[*n]; its index, or -1 when out of memory. */
static int push_col(tui_col **arr, int *n, int *cap, const tui_col *c)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 16;
		tui_col *p = realloc(*arr, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		*arr = p;
		*cap = nc;
	}
	(*arr)[(*n)++] = *c;
	return *n - 1;
}

static tui_col make_col(const char *name, int key, int width, int numeric)
{
	tui_col c;

	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "%s", name);
	c.key = key;
	c.width = width;
	c.numeric = numeric;
	return c;
}

int tui_table_add_col(tui_table *tb, const char *name, int key, int width, int numeric)
{
	tui_col c = make_col(name, key, width, numeric);
	return push_col(&tb->cols, &tb->ncols, &tb->capcols, &c);
}

int tui_table_add_avail(tui_table *tb, const char *name, int key, int width, int numeric)
{
	tui_col c = make_col(name, key, width, numeric);
	return push_col(&tb->avail, &tb->navail, &tb->capavail, &c);
}

int tui_table_init_spec(tui_table *tb, const tui_table_spec *spec, void *ctx, int64_t nrows)
{
	int rc = 0;

	tui_table_init(tb, spec->ops, ctx, nrows);
	tb->order = spec->order;
	tb->text = spec->text;
	for (int i = 0; i < spec->ncols; i++)
		if (push_col(&tb->cols, &tb->ncols, &tb->capcols, &spec->cols[i]) < 0)
			rc = -1;
	for (int i = 0; i < spec->navail; i++)
		if (push_col(&tb->avail, &tb->navail, &tb->capavail, &spec->avail[i]) < 0)
			rc = -1;
	tb->frozen = spec->frozen;
	tb->ccol = spec->ccol < tb->ncols ? spec->ccol : 0;
	if (spec->title)
		snprintf(tb->title, sizeof tb->title, "%s", spec->title);
	return rc;
}

tui_col *tui_table_col_by_key(tui_table *tb, int key)
{
	for (int i = 0; i < tb->ncols; i++)
		if (tb->cols[i].key == key)
			return &tb->cols[i];
	for (int i = 0; i < tb->navail; i++)
		if (tb->avail[i].key == key)
			return &tb->avail[i];
	return NULL;
}

int tui_table_find_col(const tui_table *tb, const char *name)
{
	for (int i = 0; i < tb->ncols; i++)
		if (!strcasecmp(tb->cols[i].name, name))
			return i;
	return -1;
}

/* The sort column follows a removal or insertion (the filter is compiled
 * again over the new columns). */
static void shift_cols(tui_table *tb, int at, int delta)
{
	if (tb->sort_col >= at)
		tb->sort_col = (delta < 0 && tb->sort_col == at) ? -1 : tb->sort_col + delta;
}

void tui_table_del_col(tui_table *tb, int i)
{
	if (i < 0 || i >= tb->ncols || tb->ncols <= 1)
		return;
	tui_col c = tb->cols[i];
	char *kept = tui_table_filter_without(tb, i); /* the terms that do not read it */
	memmove(tb->cols + i, tb->cols + i + 1, (size_t)(tb->ncols - i - 1) * sizeof c);
	tb->ncols--;
	shift_cols(tb, i, -1);
	push_col(&tb->avail, &tb->navail, &tb->capavail, &c);
	if (tb->frozen > i)
		tb->frozen--;
	if (tb->ccol >= tb->ncols)
		tb->ccol = tb->ncols - 1;
	if (tb->filter)
		tui_table_refilter(tb, kept ? kept : "");
	else
		tui_table_refresh(tb);
	free(kept);
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
		if (push_col(&tb->cols, &tb->ncols, &tb->capcols, &c) < 0)
			return hs_fail(err, HS_ENOMEM, "out of memory showing column %s", name);
		memmove(tb->cols + at + 1, tb->cols + at, (size_t)(tb->ncols - 1 - at) * sizeof c);
		tb->cols[at] = c;
		shift_cols(tb, at, 1);
		memmove(tb->avail + i, tb->avail + i + 1, (size_t)(tb->navail - i - 1) * sizeof c);
		tb->navail--;
		tb->ccol = at;
		if (tb->filter) /* its columns moved */
			tui_table_refilter(tb, NULL);
		return 0;
	}
	return hs_fail(err, HS_EUSAGE, "no column '%s' (Tab completes names)", name);
}
int tui_table_cell(const tui_table *tb, int64_t row, int col, char *buf)
{
	return tui_table_cell_cap(tb, row, col, buf, TUI_CELL);
}

int tui_table_cell_cap(const tui_table *tb, int64_t row, int col, char *buf, size_t cap)
{
	buf[0] = '\0';
	return tb->ops->cell(tb->ctx, row, &tb->cols[col], buf, cap);
}

double tui_table_value(const tui_table *tb, int64_t row, int col)
{
	if (!tb->ops->value)
		return NAN;
	return tb->ops->value(tb->ctx, row, &tb->cols[col]);
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
/* ---- Drawing -------------------------------------------------------------- */

/* Widths of column i: `natural` fits its header and every cell seen,
 * `roomy` is that or its declared width, whichever is wider. */
static void col_widths(const tui_table *tb, int i, int *natural, int *roomy)
{
	const tui_col *c = &tb->cols[i];
	int hw = tui_width(c->name) + (i == tb->sort_col);

	*natural = c->seen > hw ? c->seen : hw;
	*roomy = c->width > *natural ? c->width : *natural;
}

/* Hands out `spare` cells one at a time, round the columns (those of
 * only[], when not NULL), to those below their natural (phase 0, text
 * only) or roomy (phase 1) width; returns what is left. */
static int share_out(tui_table *tb, int spare, int phase, const int *only, int nonly)
{
	int more = 1, n = only ? nonly : tb->ncols;

	while (more && spare > 0) {
		more = 0;
		for (int k = 0; k < n && spare > 0; k++) {
			int i = only ? only[k] : k;
			tui_col *c = &tb->cols[i];
			int natural, roomy;
			col_widths(tb, i, &natural, &roomy);
			if (c->numeric == TUI_LEFT || (phase == 0 && c->numeric) ||
			    c->shown >= (phase == 0 ? natural : roomy))
				continue;
			c->shown++;
			spare--;
			more = 1;
		}
	}
	return spare;
}

#define SQUEEZE_MIN 16 /* a text column squeezed keeps this much (or its header) */

/* The fewest cells text column i may be squeezed to: its header, and up to
 * SQUEEZE_MIN cells of its text. */
static int squeeze_floor(const tui_table *tb, int i)
{
	int natural, roomy, hw = tui_width(tb->cols[i].name) + (i == tb->sort_col);

	col_widths(tb, i, &natural, &roomy);
	int keep = natural < SQUEEZE_MIN ? natural : SQUEEZE_MIN;
	return hw > keep ? hw : keep > 1 ? keep : 1;
}

/* When the columns need more than w cells but would fit with text columns
 * cut to their squeeze floor, cuts the widest text columns first, one cell
 * at a time, until they fit; else (a table meant to scroll sideways) leaves
 * them.  Returns the new sum. */
static int squeeze(tui_table *tb, int sum, int w)
{
	int least = 0;

	for (int i = 0; i < tb->ncols; i++) {
		const tui_col *c = &tb->cols[i];
		int f = c->numeric ? c->shown : squeeze_floor(tb, i);
		least += (f < c->shown ? f : c->shown) + (i ? 1 : 0);
	}
	if (least > w)
		return sum;
	while (sum > w) {
		int widest = -1, spare = 0;
		for (int i = 0; i < tb->ncols; i++) {
			const tui_col *c = &tb->cols[i];
			if (!c->numeric && c->shown - squeeze_floor(tb, i) > spare) {
				spare = c->shown - squeeze_floor(tb, i);
				widest = i;
			}
		}
		if (widest < 0)
			break;
		tb->cols[widest].shown--;
		sum--;
	}
	return sum;
}

/* Sets every column's `shown` width for rows first..first+rows-1 of idx
 * and w cells (see tui_col): first what the cells on screen need, text cut
 * to the declared width; then, when that is too wide but would fit, text
 * cut further (the widest first, never below its header); else the cells
 * left over to the cut text, then to every column up to its declared
 * width. */
static void fit_widths(tui_table *tb, int64_t first, int rows, int w)
{
	char buf[TUI_CELL];
	int sum = 0;

	for (int i = 0; i < tb->ncols; i++) {
		tui_col *c = &tb->cols[i];
		int hw = tui_width(c->name) + (i == tb->sort_col), natural, roomy;
		if (c->numeric == TUI_LEFT) {
			c->shown = c->width > hw ? c->width : hw;
		} else {
			for (int64_t r = first; r < first + rows && r < tb->nidx; r++) {
				tui_table_cell(tb, tb->idx[r], i, buf);
				int cw = tui_width(buf);
				if (c->mid && cw > TUI_NAME_MAX)
					cw = TUI_NAME_MAX;
				if (cw > c->seen)
					c->seen = cw;
			}
			col_widths(tb, i, &natural, &roomy);
			int cap = c->width > hw ? c->width : hw;
			c->shown = c->numeric || natural <= cap ? natural : cap;
		}
		if (c->shown < 1)
			c->shown = 1;
		sum += c->shown + (i ? 1 : 0);
	}
	if (sum > w)
		squeeze(tb, sum, w);
	else if (sum < w)
		share_out(tb, share_out(tb, w - sum, 0, NULL, 0), 1, NULL, 0);
}

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
			used += tb->cols[i].shown + 1;
		}
		int saw_cur = tb->ccol < tb->frozen;
		for (int i = tb->lcol; i < tb->ncols && n < cap; i++) {
			if (used >= w)
				break;
			out[n++] = i;
			if (i == tb->ccol && used + tb->cols[i].shown <= w)
				saw_cur = 1;
			used += tb->cols[i].shown + 1;
		}
		if (saw_cur || tb->lcol >= tb->ccol)
			break;
		tb->lcol++;
	}
	/* A last column cut by the edge: a number cut says nothing, a text
	 * narrower than 10 cells little; their cells go to the cut text
	 * columns before them, when there are some. */
	if (n > 1 && used - 1 > w) {
		const tui_col *last = &tb->cols[out[n - 1]];
		int natural, roomy, left = w - (used - last->shown - 1) + 1; /* its cells and the space before */
		col_widths(tb, out[n - 1], &natural, &roomy);
		if ((last->numeric || left - 1 < (natural < 10 ? natural : 10)) &&
		    share_out(tb, left, 0, out, n - 1) < left)
			n--;
	}
	return n;
}

static void draw_title(WINDOW *win, const tui_table *tb, int y, int x, int w, int focused)
{
	char right[64], title[160];
	const char *mark = "";
	attr_t a = tui_attr(TUI_C_SECTION);

	if (tb->paired) {
		mark = focused ? (tui_utf8() ? "\u25b6 " : "> ") : "  ";
		a = focused ? tui_attr(TUI_C_SECTION) | A_REVERSE | A_BOLD : tui_attr(TUI_C_DIM);
	}
	snprintf(title, sizeof title, "%s%s", mark, tb->title);
	snprintf(right, sizeof right, " %lld/%lld ", (long long)tb->nidx, (long long)tb->nrows);
	tui_put(win, y, x, w, title, a, 1);
	tui_put_right(win, y, x + w - (int)strlen(right), (int)strlen(right), right,
		      tb->paired && focused ? a : tui_attr(TUI_C_DIM));
}

static void draw_header(WINDOW *win, const tui_table *tb, const int *cols, int n, int y, int x, int w,
			int focused)
{
	char buf[TUI_CELL + 8];
	int cx = x;

	mvwhline(win, y, x, ' ', w);
	for (int i = 0; i < n && cx < x + w; i++) {
		const tui_col *c = &tb->cols[cols[i]];
		int cw = c->shown < x + w - cx ? c->shown : x + w - cx;
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
		cx += c->shown + 1;
	}
}

/* Keeps the cursor's row among the `rows` shown. */
static void scroll_to_cursor(tui_table *tb, int rows)
{
	if (tb->cur >= tb->nidx)
		tb->cur = tb->nidx ? tb->nidx - 1 : 0;
	if (tb->cur < tb->top)
		tb->top = tb->cur;
	if (tb->cur >= tb->top + rows)
		tb->top = tb->cur - rows + 1;
	if (tb->top > 0 && tb->top + rows > tb->nidx)
		tb->top = tb->nidx - rows > 0 ? tb->nidx - rows : 0;
}

void tui_table_draw(WINDOW *win, tui_table *tb, int y, int x, int h, int w, int focused)
{
	int cols[128], n, rows, cx;
	char buf[TUI_CELL + 8], mid[TUI_CELL + 8];

	tb->y = y;
	tb->x = x;
	tb->h = h;
	tb->w = w;
	if (h <= 0 || w <= 0)
		return;
	if (tb->title[0]) {
		draw_title(win, tb, y, x, w, focused);
		y++;
		h--;
	}
	if (h <= 0)
		return;
	rows = h - 1;
	tb->hint_rows = rows > 0 ? rows : 1;
	if (rows > 0)
		scroll_to_cursor(tb, rows);
	fit_widths(tb, tb->top, rows, w);
	n = layout_cols(tb, w, cols, 128);
	draw_header(win, tb, cols, n, y, x, w, focused);
	y++;
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
			int cw = c->shown < x + w - cx ? c->shown : x + w - cx;
			int cls = tui_table_cell(tb, tb->idx[i], cols[k], buf);
			attr_t a = tui_attr(cls) | rowattr;
			if (is_cur && focused && cols[k] == tb->ccol)
				a |= A_BOLD;
			if (c->numeric == 1)
				tui_put_right(win, y + r, cx, cw, buf, a);
			else if (c->mid)
				tui_put(win, y + r, cx, cw,
					tui_mid(buf, cw < TUI_NAME_MAX ? cw : TUI_NAME_MAX, mid, sizeof mid), a, 1);
			else
				tui_put(win, y + r, cx, cw, buf, a, 1);
			cx += c->shown + 1;
		}
	}
}

int tui_table_cols_needed(tui_table *tb, int h)
{
	int sum = 0, natural, roomy;

	fit_widths(tb, tb->top, h, 1 << 20); /* measures the cells; no space is short */
	for (int i = 0; i < tb->ncols; i++) {
		col_widths(tb, i, &natural, &roomy);
		sum += (tb->cols[i].numeric == TUI_LEFT ? tb->cols[i].shown : natural) + (i ? 1 : 0);
	}
	return sum;
}

int tui_table_rows_needed(const tui_table *tb)
{
	return (tb->title[0] ? 1 : 0) + 1 + (tb->nidx > 0 ? (int)(tb->nidx < 100000 ? tb->nidx : 100000) : 1);
}

int tui_split_rows(int h, int need_a, int need_b)
{
	int a;

	if (need_a + need_b <= h)
		a = need_a;
	else if (need_b <= h / 2)
		a = h - need_b;
	else if (need_a <= h / 2)
		a = need_a;
	else
		a = h - h * 2 / 5;
	if (a > h - 3)
		a = h - 3;
	if (a < 3)
		a = 3;
	return a < h ? a : h;
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
		if (x >= cx && x < cx + tb->cols[cols[k]].shown + 1) {
			tb->ccol = cols[k];
			break;
		}
		cx += tb->cols[cols[k]].shown + 1;
	}
	return 1;
}

/* ---- CSV ------------------------------------------------------------------ */

int tui_table_write_csv(const tui_table *tb, const char *path, hs_error *err)
{
	char *buf;
	hs_afile *af;
	FILE *f;

	if (!path || !*path)
		return hs_fail(err, HS_EUSAGE, "write: give a file name");
	if (!(buf = malloc(TUI_CELL_FULL)))
		return hs_fail(err, HS_ENOMEM, "%s: out of memory writing it", path);
	if (!(af = hs_afile_open(path, err))) {
		free(buf);
		return -1;
	}
	f = hs_afile_stream(af);
	for (int c = 0; c < tb->ncols; c++) {
		if (c)
			fputc(',', f);
		csv_write_field(f, tb->cols[c].name);
	}
	fputc('\n', f);
	for (int64_t i = 0; i < tb->nidx; i++) {
		for (int c = 0; c < tb->ncols; c++) {
			if (c)
				fputc(',', f);
			double v = tb->cols[c].numeric ? tui_table_value(tb, tb->idx[i], c) : NAN;
			if (!isnan(v))
				fprintf(f, "%.17g", v);
			else {
				tui_table_cell_cap(tb, tb->idx[i], c, buf, TUI_CELL_FULL);
				csv_write_field(f, buf);
			}
		}
		fputc('\n', f);
	}
	free(buf);
	return hs_afile_commit(af, err);
}

/* ---- Requests ------------------------------------------------------------- */

/* Moves of the cursor and the current column. */
static int move_request(tui_table *tb, tui_req req)
{
	int page = tb->hint_rows > 1 ? tb->hint_rows : 10;

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
	default:
		return 0;
	}
}

/* [ and ] on the current column, or `:sort COL [asc|desc]`, `:sort none`. */
static int sort_request(tui *t, tui_table *tb, tui_req req, const char *arg)
{
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
	tui_message(t, 0, "sorted by %s, %s", tb->cols[col].name, desc ? "descending" : "ascending");
	return 1;
}

/* / and n, N. */
static int search_request(tui *t, tui_table *tb, tui_req req, const char *arg)
{
	if (req == TUI_REQ_SEARCH) {
		const char *s = arg ? arg : tui_prompt(t, "/", TUI_P_SEARCH, NULL);
		if (!s || !*s)
			return 1;
		snprintf(tb->search, sizeof tb->search, "%s", s);
	} else if (!tb->search[0]) {
		tui_message(t, 1, "no search yet: press / first");
		return 1;
	}
	if (!tui_table_search(tb, tb->search, req == TUI_REQ_PREV ? -1 : 1))
		tui_message(t, 1, "'%s' not found in column %s", tb->search, tb->cols[tb->ccol].name);
	return 1;
}

static int filter_request(tui *t, tui_table *tb, const char *arg)
{
	hs_error err = {0};
	char cur[512];
	const char *s = arg;

	if (!s) {
		tui_table_filter_text(tb, cur, sizeof cur);
		s = tui_prompt(t, "\\", TUI_P_FILTER, cur);
		if (!s)
			return 1;
	}
	if (tui_table_filter(tb, s, &err) < 0)
		tui_error_at(t, "filter: ", err.msg, s, tb->filter_col);
	else if (tb->nterms) {
		tui_table_filter_text(tb, cur, sizeof cur);
		tui_message(t, 0, "%lld of %lld row%s: %s", (long long)tb->nidx, (long long)tb->nrows,
			    hs_s(tb->nrows), cur);
	} else
		tui_message(t, 0, "filter cleared");
	return 1;
}

/* + and -: show an available column, hide the current one. */
static int column_request(tui *t, tui_table *tb, tui_req req, const char *arg)
{
	hs_error err = {0};

	if (req == TUI_REQ_DEL_COLUMN) {
		if (tb->ncols <= 1) {
			tui_message(t, 1, "the last column stays");
			return 1;
		}
		char name[48];
		snprintf(name, sizeof name, "%s", tb->cols[tb->ccol].name);
		tui_table_del_col(tb, tb->ccol);
		tui_message(t, 0, "column %s hidden (+ brings it back)", name);
		return 1;
	}
	if (tb->navail == 0) {
		tui_message(t, 1, "no more columns for this table");
		return 1;
	}
	if (!arg)
		arg = tui_prompt(t, "add column: ", TUI_P_COLUMN, NULL);
	if (arg && *arg) {
		if (tui_table_show_col(tb, arg, &err) < 0)
			tui_message(t, 1, "%s", err.msg);
		else
			tui_message(t, 0, "column %s shown (- hides it)", tb->cols[tb->ccol].name);
	}
	return 1;
}

static int write_request(tui *t, tui_table *tb, const char *arg)
{
	hs_error err = {0};

	if (!arg || !*arg)
		arg = tui_prompt(t, "write CSV to: ", TUI_P_PATH, NULL);
	if (!arg || !*arg)
		return 1;
	if (tui_table_write_csv(tb, arg, &err) < 0)
		tui_message(t, 1, "%s", err.msg);
	else
		tui_message(t, 0, "wrote %lld row%s to %s", (long long)tb->nidx, hs_s(tb->nidx), arg);
	return 1;
}

static int goto_request(tui *t, tui_table *tb, const char *arg)
{
	int64_t n;

	if (hs_parse_i64(arg, &n) < 0 || n < 1 || n > tb->nidx)
		tui_message(t, 1, "goto: give a row number 1..%lld", (long long)tb->nidx);
	else
		tb->cur = n - 1;
	return 1;
}

/* A click selects, the wheel scrolls; 0 when the pointer is elsewhere. */
static int mouse_request(tui *t, tui_table *tb)
{
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
	if (m->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED | BUTTON1_DOUBLE_CLICKED))
		return tui_table_click(tb, m->y, m->x);
	return 0;
}

int tui_table_request(tui *t, tui_table *tb, tui_req req, const char *arg)
{
	switch (req) {
	case TUI_REQ_SORT_ASC:
	case TUI_REQ_SORT_DESC:
		return sort_request(t, tb, req, arg);
	case TUI_REQ_SEARCH:
	case TUI_REQ_NEXT:
	case TUI_REQ_PREV:
		return search_request(t, tb, req, arg);
	case TUI_REQ_FILTER:
		return filter_request(t, tb, arg);
	case TUI_REQ_FREQ:
		if (tb->ncols)
			tui_open_freq(t, tb, tb->ccol);
		return 1;
	case TUI_REQ_ADD_COLUMN:
	case TUI_REQ_DEL_COLUMN:
		return column_request(t, tb, req, arg);
	case TUI_REQ_WRITE:
		return write_request(t, tb, arg);
	case TUI_REQ_GOTO:
		return goto_request(t, tb, arg);
	case TUI_REQ_MOUSE:
		return mouse_request(t, tb);
	default:
		return move_request(tb, req);
	}
}
