/* view_freq.c - F on a column: each distinct value of the column over the
 * rows shown, its count, share and a bar (visidata's frequency table);
 * Enter filters the table it came from to that value.  Values are the
 * cells' whole texts (tui_table_cell_cap), however long: two op_names that
 * differ after their 100th character are two values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/plural.h"
#include "base/units.h"
#include "tui/tui.h"

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
		hs_unit_format(buf, cap, c->unit, 100.0 * (double)r->count / (double)(f->total ? f->total : 1), -1);
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

static const tui_col freq_cols[] = {
	{.name = "value", .key = FQ_VALUE, .width = 12},
	{.name = "count", .key = FQ_COUNT, .width = 8, .numeric = 1},
	{.name = "share", .key = FQ_SHARE, .width = 7, .numeric = 1, .unit = HS_U_PERCENT},
	{.name = "bar", .key = FQ_BAR, .width = 30, .numeric = TUI_LEFT},
};

static const tui_table_spec freq_table = {
	.ops = &freq_table_ops, .cols = freq_cols, .ncols = TUI_N(freq_cols),
};

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
	const char *text = f->rows[r].text;
	int col = f->col;
	tui_pop_later(t);
	if (tui_table_add_term(p, col, "==", text) < 0)
		tui_message(t, 1, "out of memory filtering on %s = %s", p->cols[col].name, text);
	else
		tui_message(t, 0, "%lld row%s with %s = %s", (long long)p->nidx, hs_s(p->nidx),
			    p->cols[col].name, text);
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
	.name = "frequency", .scope = TUI_S_TABLE | TUI_S_OPENS, .draw = freq_draw, .request = freq_request,
	.done = freq_done,
};

/* The whole text of each of the parent's n shown rows in column col, into
 * texts[] (each malloc'd); -1 when out of memory (texts[] freed). */
static int whole_texts(const tui_table *parent, int col, int64_t n, char **texts)
{
	char *buf = malloc(TUI_CELL_FULL);

	for (int64_t i = 0; i < n; i++)
		texts[i] = NULL;
	for (int64_t i = 0; buf && i < n; i++) {
		tui_table_cell_cap(parent, parent->idx[i], col, buf, TUI_CELL_FULL);
		if (!(texts[i] = strdup(buf)))
			break;
	}
	if (buf && (n == 0 || texts[n - 1])) {
		free(buf);
		return 0;
	}
	free(buf);
	for (int64_t i = 0; i < n; i++)
		free(texts[i]);
	return -1;
}

int tui_open_freq(tui *t, tui_table *parent, int col)
{
	struct freq *f = calloc(1, sizeof *f);
	char **texts = NULL;
	int64_t n = parent->nidx;

	if (!f)
		goto oom;
	f->parent = parent;
	f->col = col;
	snprintf(f->colname, sizeof f->colname, "%s", parent->cols[col].name);
	texts = malloc((size_t)(n ? n : 1) * sizeof *texts);
	f->rows = malloc((size_t)(n ? n : 1) * sizeof *f->rows);
	if (!texts || !f->rows)
		goto oom;
	if (whole_texts(parent, col, n, texts) < 0) {
		free(texts);
		texts = NULL;
		goto oom;
	}
	qsort(texts, (size_t)n, sizeof *texts, hs_cmp_str);
	for (int64_t i = 0; i < n;) {
		int64_t j = i;
		while (j < n && !strcmp(texts[j], texts[i]))
			j++;
		struct freq_row *r = &f->rows[f->n++];
		r->text = texts[i]; /* taken; the repeats are freed */
		texts[i] = NULL;
		for (int64_t k = i + 1; k < j; k++) {
			free(texts[k]);
			texts[k] = NULL;
		}
		r->count = j - i;
		char *end;
		r->num = strtod(r->text, &end);
		if (end == r->text || *end)
			r->num = NAN;
		if (r->count > f->maxcount)
			f->maxcount = r->count;
		i = j;
	}
	f->total = n;
	free(texts);
	texts = NULL;
	tui_table_init_spec(&f->tab, &freq_table, f, f->n);
	/* the value column takes the parent's column's name, width and kind */
	int vw = parent->cols[col].width < 12 ? 12 : parent->cols[col].width;
	tui_col *vc = tui_table_col_by_key(&f->tab, FQ_VALUE);
	if (vc) {
		snprintf(vc->name, sizeof vc->name, "%s", f->colname);
		vc->width = vw > 40 ? 40 : vw;
		vc->numeric = parent->cols[col].numeric;
		vc->mid = parent->cols[col].mid;
	}
	tui_table_sort(&f->tab, 1, 1);
	f->tab.cur = 0;
	snprintf(f->tab.title, sizeof f->tab.title, "Frequency of %s over %lld row%s: %lld value%s",
		 f->colname, (long long)n, hs_s(n), (long long)f->n, hs_s(f->n));
	char title[160];
	snprintf(title, sizeof title, "Frequency: %s", f->colname);
	return tui_push(t, &freq_ops, f, NULL, title, &f->tab, NULL) ? 0 : -1;
oom:
	free(texts);
	if (f) {
		for (int64_t i = 0; i < f->n; i++)
			free(f->rows[i].text);
		free(f->rows);
		free(f);
	}
	tui_message(t, 1, "out of memory");
	return -1;
}
