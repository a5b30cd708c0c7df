/* view_passes.c - the stages of one module of an XLA dump folder in the
 * compiler's order (before optimizations, each pass dumped, after
 * optimizations), with the instructions and fusions after each and the
 * change from the stage before, so that the pass that changed the most
 * stands out (its row is marked, and the header names it); a stage that
 * could not be read is listed with why and skipped by the changes.  Enter
 * opens a stage; `d` diffs it with the stage before (that could be read). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "tui/tui.h"

struct passview {
	const ds_index *ix;      /* borrowed from the dataset view below */
	const ds_entry **e;      /* the module's stages, in order */
	int64_t n, most;         /* most: the row whose instruction count moved most, -1 */
	tui_table tab;
	char head[400];
};

enum { PS_STAGE, PS_INSTRS, PS_DINSTRS, PS_FUSIONS, PS_DFUSIONS, PS_FILE, PS_STATUS };

/* The change of a count from the last stage before that could be read
 * (NAN for the first one, and for a stage that could not be read). */
static double delta(const struct passview *pv, int64_t row, int fusions)
{
	int64_t p = row - 1;
	while (p >= 0 && pv->e[p]->error)
		p--;
	if (p < 0 || pv->e[row]->error)
		return NAN;
	return fusions ? (double)(pv->e[row]->fusions - pv->e[p]->fusions)
		       : (double)(pv->e[row]->nodes - pv->e[p]->nodes);
}

static int pass_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct passview *pv = ctx;
	const ds_entry *e = pv->e[row];
	int mark = row == pv->most;
	switch (c->key) {
	case PS_STAGE:
		snprintf(buf, cap, "%s", e->stage ? e->stage : "?");
		return e->error ? TUI_C_ERROR : mark ? TUI_C_MARK : TUI_C_DEFAULT;
	case PS_FILE:
		snprintf(buf, cap, "%s", e->rel);
		return TUI_C_DIM;
	case PS_STATUS:
		snprintf(buf, cap, "%s", e->error ? e->error : "");
		return TUI_C_ERROR;
	case PS_INSTRS:
	case PS_FUSIONS:
		if (e->error)
			snprintf(buf, cap, "-");
		else
			snprintf(buf, cap, "%lld", (long long)(c->key == PS_INSTRS ? e->nodes : e->fusions));
		return TUI_C_DEFAULT;
	default: {
		double d = delta(pv, row, c->key == PS_DFUSIONS);
		if (isnan(d))
			snprintf(buf, cap, "%s", row ? "-" : "");
		else
			snprintf(buf, cap, "%+.0f", d);
		return d != 0 && !isnan(d) ? (mark && c->key == PS_DINSTRS ? TUI_C_MARK : TUI_C_DEFAULT) : TUI_C_DIM;
	}
	}
}

static double pass_value(void *ctx, int64_t row, const tui_col *c)
{
	struct passview *pv = ctx;
	const ds_entry *e = pv->e[row];
	switch (c->key) {
	case PS_INSTRS: return e->error ? NAN : (double)e->nodes;
	case PS_FUSIONS: return e->error ? NAN : (double)e->fusions;
	case PS_DINSTRS: return delta(pv, row, 0);
	case PS_DFUSIONS: return delta(pv, row, 1);
	}
	return NAN;
}

/* Stages keep the compiler's order: sorting by the stage's text would not. */
static double pass_order(void *ctx, int64_t row, const tui_col *c)
{
	return c->key == PS_STAGE ? (double)row : NAN;
}

static const tui_table_ops pass_ops = {pass_cell, pass_value};

static const tui_col pass_cols[] = {
	{.name = "stage", .key = PS_STAGE, .width = 40},
	{.name = "instrs", .key = PS_INSTRS, .width = 7, .numeric = 1},
	{.name = "d_instrs", .key = PS_DINSTRS, .width = 8, .numeric = 1},
	{.name = "fusions", .key = PS_FUSIONS, .width = 7, .numeric = 1},
	{.name = "d_fusions", .key = PS_DFUSIONS, .width = 9, .numeric = 1},
	{.name = "status", .key = PS_STATUS, .width = 20},
};

static const tui_col pass_extra[] = {
	{.name = "file", .key = PS_FILE, .width = 48},
};

static const tui_table_spec pass_table = {
	.ops = &pass_ops, .order = pass_order, .cols = pass_cols, .ncols = TUI_N(pass_cols),
	.avail = pass_extra, .navail = TUI_N(pass_extra), .frozen = 1,
};

static void pass_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct passview *pv = v->data;
	tui_put(win, y, x, w, pv->head, A_BOLD, 1);
	tui_put(win, y + 1, x, w, " Enter opens a stage; d diffs it with the stage before; [ ] sort a column",
		tui_attr(TUI_C_DIM), 1);
	tui_table_draw(win, &pv->tab, y + 2, x, h - 2, w, 1);
}

static int pass_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct passview *pv = v->data;
	int64_t r = tui_table_row(&pv->tab);
	if (r < 0)
		return req == TUI_REQ_ENTER || req == TUI_REQ_DIFF;
	switch (req) {
	case TUI_REQ_ENTER:
		tui_open_entry(t, pv->ix, pv->e[r]);
		return 1;
	case TUI_REQ_DIFF: {
		const ds_entry *e = pv->e[r], *p = tui_stage_before(pv->ix, e);
		if (!p)
			tui_message(t, 1, "diff: %s is the first stage", e->stage);
		else if (e->error || p->error)
			tui_message(t, 1, "diff: %s: %s", e->error ? e->rel : p->rel, e->error ? e->error : p->error);
		else
			tui_open_diff(t, NULL, NULL, p->path, e->path);
		return 1;
	}
	case TUI_REQ_PASSES:
		return 1;
	default:
		return 0;
	}
}

static void pass_done(tui_view *v)
{
	struct passview *pv = v->data;
	tui_table_free(&pv->tab);
	free(pv->e);
	free(pv);
}

static const tui_view_ops pass_view_ops = {
	.name = "passes", .scope = TUI_S_TABLE | TUI_S_OPENS | TUI_S_DATASET, .draw = pass_draw,
	.request = pass_request, .done = pass_done,
};

int tui_open_passes(tui *t, const ds_index *ix, const char *module)
{
	struct passview *pv = calloc(1, sizeof *pv);
	if (!pv || !(pv->e = malloc((ix->n + 1) * sizeof *pv->e))) {
		free(pv);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	pv->ix = ix;
	pv->most = -1;
	for (size_t i = 0; i < ix->n; i++)
		if (ix->entries[i].dump_module && !strcmp(ix->entries[i].dump_module, module))
			pv->e[pv->n++] = &ix->entries[i];
	if (!pv->n) {
		tui_message(t, 1, "passes: no module '%s' in this dump folder", module);
		pass_done(&(tui_view){.data = pv});
		return -1;
	}
	double best = 0;
	for (int64_t r = 1; r < pv->n; r++) {
		double d = delta(pv, r, 0);
		if (!isnan(d) && fabs(d) > best) {
			best = fabs(d);
			pv->most = r;
		}
	}
	if (pv->most >= 0)
		snprintf(pv->head, sizeof pv->head, " %s: %lld stage%s; the most instructions changed at %s (%+.0f)",
			 module, (long long)pv->n, hs_s(pv->n), pv->e[pv->most]->stage, delta(pv, pv->most, 0));
	else
		snprintf(pv->head, sizeof pv->head, " %s: %lld stage%s; no stage changed the instruction count", module,
			 (long long)pv->n, hs_s(pv->n));
	tui_table_init_spec(&pv->tab, &pass_table, pv, pv->n);
	char title[200];
	snprintf(title, sizeof title, "Passes of %s", module);
	return tui_push(t, &pass_view_ops, pv, NULL, title, &pv->tab, NULL) ? 0 : -1;
}
