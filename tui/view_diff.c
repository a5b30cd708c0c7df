/* view_diff.c - two HLO modules side by side (model/module_diff.h).
 *
 * Opened by `hloscope diff A B` on a terminal, `:diff FILE` from a module,
 * or `d` on a stage of a dump folder (that stage and the one before).
 *
 * Header: both files and their modules, the matching (how many pairs by
 * name, structure, neighbours; changed, only in A, only in B), the totals
 * of A and B side by side (instructions, fusions, FLOPs, bytes, analytic
 * time).  Upper pane: the computations, A's with the one of B it
 * corresponds to, and what changed in each, the most changes first; Enter
 * keeps the lower pane to that computation (again: all of them).  Lower
 * pane: the instructions, a matched pair on one row (A's name, opcode,
 * shape and cost on the left, B's on the right), the cells that differ
 * marked; changed pairs first (the largest cost change first), then what
 * is only in A, only in B, and (`a`) the unchanged pairs.  Enter opens the
 * pair's details side by side (view_diff_pair.c); `i` the node detail and
 * `v` the drawing of the side the cursor's column is on, with the changed
 * and unmatched nodes of that side highlighted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
#include "doc/diff.h"
#include "tui/view_diff.h"

enum {
	PC_CHANGE, PC_A_NAME, PC_A_OPCODE, PC_A_SHAPE, PC_A_COST, PC_A_COMP,
	PC_B_NAME = 20, PC_B_OPCODE, PC_B_SHAPE, PC_B_COST, PC_B_COMP, PC_DELTA, PC_HOW,
	CC_A = 40, CC_B, CC_NA, CC_NB, CC_CHANGED, CC_ONLY_A, CC_ONLY_B, CC_COST_A, CC_COST_B,
};

typedef struct comp_row {
	int64_t ca, cb;          /* A's computation and B's, -1 for none */
	int64_t na, nb, changed, only_a, only_b;
	double cost_a, cost_b;
} comp_row;

struct diffview {
	tui_diff_docs s;         /* both documents and the diff */
	int show_all;
	pair_row *rows;          /* every row, in the order shown */
	int64_t nrows;
	int64_t *shown, nshown;  /* rows of the lower pane */
	comp_row *comps;
	int64_t ncomps, sel;     /* sel: the computation row the pairs keep to, -1 */
	tui_table ctab, ptab;
	char head[3][640];
};

static int pair_in_comp(const struct diffview *dv, const pair_row *r, const comp_row *c)
{
	const module_diff *d = &dv->s.d;
	return (r->a >= 0 && c->ca >= 0 && d->a->hcomp_of[r->a] == c->ca) ||
	       (r->b >= 0 && c->cb >= 0 && d->b->hcomp_of[r->b] == c->cb);
}

static void build_shown(struct diffview *dv)
{
	const comp_row *c = dv->sel >= 0 ? &dv->comps[dv->sel] : NULL;
	dv->nshown = 0;
	for (int64_t i = 0; i < dv->nrows; i++) {
		const pair_row *r = &dv->rows[i];
		if (!dv->show_all && r->a >= 0 && r->b >= 0 && !dv->s.d.changes[r->a])
			continue;
		if (c && !pair_in_comp(dv, r, c))
			continue;
		dv->shown[dv->nshown++] = i;
	}
	tui_table_set_rows(&dv->ptab, dv->nshown);
	tui_table_refresh(&dv->ptab);
	if (c) {
		snprintf(dv->ptab.title, sizeof dv->ptab.title, "Instructions of %s | %s",
			 c->ca >= 0 ? graph_hcomp_name(dv->s.d.a, c->ca) : "-",
			 c->cb >= 0 ? graph_hcomp_name(dv->s.d.b, c->cb) : "-");
	} else {
		snprintf(dv->ptab.title, sizeof dv->ptab.title, "Instructions, %s",
			 dv->show_all ? "every one (a: only what differs)" : "what differs (a: every one)");
	}
}

/* ---- the lower pane: instructions --------------------------------------- */

static const pair_row *pair_at(const struct diffview *dv, int64_t row)
{
	return row >= 0 && row < dv->nshown ? &dv->rows[dv->shown[row]] : NULL;
}

static int cost_cell(char *buf, size_t cap, const cost_estimate *c)
{
	if (!tui_model_hidden(buf, cap))
		hs_unit_format(buf, cap, HS_U_SECONDS, c->seconds, -1);
	return TUI_C_DEFAULT;
}

static int pair_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct diffview *dv = ctx;
	const module_diff *d = &dv->s.d;
	const pair_row *r = pair_at(dv, row);
	buf[0] = '\0';
	if (!r)
		return TUI_C_DEFAULT;
	int b = c->key >= PC_B_NAME && c->key < PC_DELTA;
	int64_t v = b ? r->b : r->a;
	const hs_graph *g = b ? d->b : d->a;
	uint32_t ch = r->a >= 0 && r->b >= 0 ? d->changes[r->a] : 0;
	if (c->key == PC_CHANGE) {
		if (r->a < 0 || r->b < 0)
			snprintf(buf, cap, "only in %s", r->a < 0 ? "B" : "A");
		else
			module_diff_change_list(ch, buf, cap);
		return TUI_C_MARK;
	}
	if (c->key == PC_HOW) {
		static const char *const how[] = {"", "name", "structure", "neighbours"};
		snprintf(buf, cap, "%s", r->a >= 0 && d->how[r->a] < 4 ? how[d->how[r->a]] : "");
		return TUI_C_DIM;
	}
	if (c->key == PC_DELTA) {
		if (r->a < 0 || r->b < 0 || tui_model_hidden(buf, cap))
			return TUI_C_DEFAULT;
		double delta = d->cost_b[r->b].seconds - d->cost_a[r->a].seconds;
		if (delta == 0)
			snprintf(buf, cap, "0");
		else {
			hs_unit_format(buf + 1, cap - 1, HS_U_SECONDS, fabs(delta), -1);
			buf[0] = delta > 0 ? '+' : '-';
		}
		return delta > 0 ? TUI_C_ERROR : delta < 0 ? TUI_C_GOOD : TUI_C_DEFAULT;
	}
	if (v < 0)
		return TUI_C_DIM;
	int marked = (r->a < 0 || r->b < 0);
	switch (c->key) {
	case PC_A_NAME:
	case PC_B_NAME:
		snprintf(buf, cap, "%s", graph_node_name(g, v));
		return marked ? TUI_C_MARK : TUI_C_DEFAULT;
	case PC_A_OPCODE:
	case PC_B_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, v));
		return ch & HD_OPCODE ? TUI_C_MARK : tui_node_class(g, v);
	case PC_A_SHAPE:
	case PC_B_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape((b ? dv->s.db : dv->s.da)->qs, v));
		return ch & (HD_SHAPE | HD_LAYOUT) ? TUI_C_MARK : TUI_C_DEFAULT;
	case PC_A_COMP:
	case PC_B_COMP:
		snprintf(buf, cap, "%s", graph_hcomp_name(g, g->hcomp_of[v]));
		return ch & HD_COMPUTATION ? TUI_C_MARK : TUI_C_DEFAULT;
	case PC_A_COST:
	case PC_B_COST:
		return cost_cell(buf, cap, b ? &d->cost_b[v] : &d->cost_a[v]);
	}
	return TUI_C_DEFAULT;
}

static double pair_value(void *ctx, int64_t row, const tui_col *c)
{
	struct diffview *dv = ctx;
	const module_diff *d = &dv->s.d;
	const pair_row *r = pair_at(dv, row);
	if (!r)
		return NAN;
	switch (c->key) {
	case PC_A_COST:
		return r->a >= 0 ? d->cost_a[r->a].seconds : NAN;
	case PC_B_COST:
		return r->b >= 0 ? d->cost_b[r->b].seconds : NAN;
	case PC_DELTA:
		return r->a >= 0 && r->b >= 0 ? d->cost_b[r->b].seconds - d->cost_a[r->a].seconds : NAN;
	}
	return NAN;
}

static const tui_table_ops pair_ops = {pair_cell, pair_value};

static const tui_col pair_cols[] = {
	{.name = "change", .key = PC_CHANGE, .width = 12},
	{.name = "a_name", .key = PC_A_NAME, .width = 20, .mid = 1},
	{.name = "a_opcode", .key = PC_A_OPCODE, .width = 10},
	{.name = "a_shape", .key = PC_A_SHAPE, .width = 16},
	{.name = "a_cost", .key = PC_A_COST, .width = 8, .numeric = 1, .unit = HS_U_SECONDS},
	{.name = "b_name", .key = PC_B_NAME, .width = 20, .mid = 1},
	{.name = "b_opcode", .key = PC_B_OPCODE, .width = 10},
	{.name = "b_shape", .key = PC_B_SHAPE, .width = 16},
	{.name = "b_cost", .key = PC_B_COST, .width = 8, .numeric = 1, .unit = HS_U_SECONDS},
	{.name = "delta", .key = PC_DELTA, .width = 8, .numeric = 1, .unit = HS_U_SECONDS},
};

static const tui_col pair_extra[] = {
	{.name = "a_computation", .key = PC_A_COMP, .width = 20, .mid = 1},
	{.name = "b_computation", .key = PC_B_COMP, .width = 20, .mid = 1},
	{.name = "matched_by", .key = PC_HOW, .width = 10},
};

static const tui_table_spec pair_table = {
	.ops = &pair_ops, .cols = pair_cols, .ncols = TUI_N(pair_cols), .avail = pair_extra,
	.navail = TUI_N(pair_extra), .frozen = 1, .ccol = 1,
};

/* ---- the upper pane: computations ----------------------------------------- */

static int comp_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct diffview *dv = ctx;
	const comp_row *r = &dv->comps[row];
	const module_diff *d = &dv->s.d;
	buf[0] = '\0';
	switch (c->key) {
	case CC_A:
	case CC_B: {
		int64_t k = c->key == CC_A ? r->ca : r->cb;
		const hs_graph *g = c->key == CC_A ? d->a : d->b;
		if (k < 0)
			return TUI_C_DIM;
		snprintf(buf, cap, "%s", graph_hcomp_name(g, k));
		return row == dv->sel ? TUI_C_MARK : TUI_C_DEFAULT;
	}
	case CC_COST_A:
	case CC_COST_B:
		if (!tui_model_hidden(buf, cap))
			hs_unit_format(buf, cap, HS_U_SECONDS, c->key == CC_COST_A ? r->cost_a : r->cost_b, -1);
		return TUI_C_DEFAULT;
	default: {
		int64_t n = c->key == CC_NA ? r->na : c->key == CC_NB ? r->nb : c->key == CC_CHANGED ? r->changed
			  : c->key == CC_ONLY_A ? r->only_a : r->only_b;
		snprintf(buf, cap, "%lld", (long long)n);
		return (c->key == CC_CHANGED || c->key == CC_ONLY_A || c->key == CC_ONLY_B) && n ? TUI_C_MARK
												: TUI_C_DEFAULT;
	}
	}
}

static double comp_value(void *ctx, int64_t row, const tui_col *c)
{
	const comp_row *r = &((struct diffview *)ctx)->comps[row];
	switch (c->key) {
	case CC_NA: return (double)r->na;
	case CC_NB: return (double)r->nb;
	case CC_CHANGED: return (double)r->changed;
	case CC_ONLY_A: return (double)r->only_a;
	case CC_ONLY_B: return (double)r->only_b;
	case CC_COST_A: return r->cost_a;
	case CC_COST_B: return r->cost_b;
	}
	return NAN;
}

static const tui_table_ops comp_ops = {comp_cell, comp_value};

static const tui_col comp_cols[] = {
	{.name = "a_computation", .key = CC_A, .width = 24, .mid = 1},
	{.name = "b_computation", .key = CC_B, .width = 24, .mid = 1},
	{.name = "a_instrs", .key = CC_NA, .width = 8, .numeric = 1},
	{.name = "b_instrs", .key = CC_NB, .width = 8, .numeric = 1},
	{.name = "changed", .key = CC_CHANGED, .width = 7, .numeric = 1},
	{.name = "only_a", .key = CC_ONLY_A, .width = 6, .numeric = 1},
	{.name = "only_b", .key = CC_ONLY_B, .width = 6, .numeric = 1},
	{.name = "a_cost", .key = CC_COST_A, .width = 8, .numeric = 1, .unit = HS_U_SECONDS},
	{.name = "b_cost", .key = CC_COST_B, .width = 8, .numeric = 1, .unit = HS_U_SECONDS},
};

static const tui_table_spec comp_table = {
	.ops = &comp_ops, .cols = comp_cols, .ncols = TUI_N(comp_cols), .frozen = 1,
	.title = "Computations, the most changes first (Enter: keep the instructions below to one)",
};

/* ---- building --------------------------------------------------------------- */

static int cmp_comp(const void *x, const void *y)
{
	const comp_row *a = x, *b = y;
	int64_t da = a->changed + a->only_a + a->only_b, db = b->changed + b->only_a + b->only_b;
	if (da != db)
		return da < db ? 1 : -1;
	int64_t ka = a->ca >= 0 ? a->ca : INT64_MAX / 2 + a->cb, kb = b->ca >= 0 ? b->ca : INT64_MAX / 2 + b->cb;
	return (ka > kb) - (ka < kb);
}

/* One row per computation of A (with the B one it corresponds to) and per
 * computation of B that none of A corresponds to. */
static int build_comps(struct diffview *dv)
{
	const module_diff *d = &dv->s.d;
	const hs_graph *a = d->a, *b = d->b;
	int64_t *row_of_b = malloc(((size_t)b->n_hcomps + 1) * sizeof *row_of_b);
	int64_t *row_of_a = malloc(((size_t)a->n_hcomps + 1) * sizeof *row_of_a);
	dv->comps = calloc((size_t)(a->n_hcomps + b->n_hcomps) + 1, sizeof *dv->comps);
	if (!row_of_b || !row_of_a || !dv->comps) {
		free(row_of_b);
		free(row_of_a);
		return -1;
	}
	int64_t n = 0;
	for (int64_t c = 0; c < b->n_hcomps; c++)
		row_of_b[c] = -1;
	for (int64_t c = 0; c < a->n_hcomps; c++) {
		int64_t cb = d->comp_a2b[c];
		dv->comps[n] = (comp_row){.ca = c, .cb = cb};
		if (cb >= 0 && row_of_b[cb] < 0)
			row_of_b[cb] = n;
		row_of_a[c] = n++;
	}
	for (int64_t c = 0; c < b->n_hcomps; c++)
		if (row_of_b[c] < 0) {
			dv->comps[n] = (comp_row){.ca = -1, .cb = c};
			row_of_b[c] = n++;
		}
	for (int64_t v = 0; v < a->n_nodes; v++) {
		comp_row *r = &dv->comps[row_of_a[a->hcomp_of[v]]];
		r->na++;
		r->cost_a += d->cost_a[v].seconds;
		if (d->a2b[v] < 0)
			r->only_a++;
		else if (d->changes[v])
			r->changed++;
	}
	for (int64_t v = 0; v < b->n_nodes; v++) {
		int64_t cb = b->hcomp_of[v], k = row_of_b[cb];
		/* B's nodes count where B's computation is shown: the row of an
		 * A computation that corresponds to it, or its own */
		comp_row *r = &dv->comps[k];
		r->nb++;
		r->cost_b += d->cost_b[v].seconds;
		if (d->b2a[v] < 0)
			r->only_b++;
	}
	free(row_of_a);
	free(row_of_b);
	dv->ncomps = n;
	qsort(dv->comps, (size_t)n, sizeof *dv->comps, cmp_comp);
	return 0;
}

static void header_lines(struct diffview *dv)
{
	const module_diff *d = &dv->s.d;
	char ta[48], tb[48], fa[32], fb[32], ba[32], bb[32];
	cost_estimate ca = cost_executed_total(d->a, d->cost_a), cb = cost_executed_total(d->b, d->cost_b);
	snprintf(dv->head[0], sizeof dv->head[0], " A %s (%lld)   B %s (%lld)", d->a->path, (long long)d->a->n_nodes,
		 d->b->path, (long long)d->b->n_nodes);
	snprintf(dv->head[1], sizeof dv->head[1],
		 " matched %lld (%lld by structure, %lld by neighbours, %lld by name): %lld unchanged, %lld changed, "
		 "%lld renamed; only in A %lld, only in B %lld",
		 (long long)d->matched, (long long)d->by_how[HD_BY_STRUCTURE], (long long)d->by_how[HD_BY_NEIGHBOURS],
		 (long long)d->by_how[HD_BY_NAME], (long long)(d->matched - d->changed), (long long)d->changed,
		 (long long)d->renamed, (long long)d->only_a, (long long)d->only_b);
	if (tui_model_masked()) {
		snprintf(ta, sizeof ta, "#");
		snprintf(tb, sizeof tb, "#");
	} else {
		hs_unit_format(ta, sizeof ta, HS_U_SECONDS, ca.seconds, -1);
		hs_unit_format(tb, sizeof tb, HS_U_SECONDS, cb.seconds, -1);
	}
	hs_unit_format(fa, sizeof fa, HS_U_FLOP, ca.flops, -1);
	hs_unit_format(fb, sizeof fb, HS_U_FLOP, cb.flops, -1);
	hs_unit_format(ba, sizeof ba, HS_U_BYTES, ca.bytes, -1);
	hs_unit_format(bb, sizeof bb, HS_U_BYTES, cb.bytes, -1);
	snprintf(dv->head[2], sizeof dv->head[2],
		 " A -> B  instructions %lld -> %lld  fusions %lld -> %lld  flops %s -> %s  bytes %s -> %s  "
		 "analytic time %s -> %s",
		 (long long)d->a->n_nodes, (long long)d->b->n_nodes, (long long)graph_n_fusions(d->a),
		 (long long)graph_n_fusions(d->b), fa, fb, ba, bb, ta, tb);
}

/* ---- the view -------------------------------------------------------------- */

static void diff_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct diffview *dv = v->data;
	tui_put(win, y, x, w, dv->head[0], A_BOLD, 1);
	tui_put(win, y + 1, x, w, dv->head[1], tui_attr(TUI_C_SECTION), 1);
	tui_put(win, y + 2, x, w, dv->head[2], 0, 1);
	y += 3;
	h -= 3;
	if (h < 6)
		return;
	int th = tui_split_rows(h, tui_table_rows_needed(&dv->ctab), tui_table_rows_needed(&dv->ptab));
	tui_table_draw(win, &dv->ctab, y, x, th, w, v->focus == 0);
	tui_table_draw(win, &dv->ptab, y + th, x, h - th, w, v->focus == 1);
}

/* The side of the cursor's column in the lower pane: 1 for B. */
static int cursor_side(const struct diffview *dv)
{
	const tui_table *tb = &dv->ptab;
	if (tb->ccol < 0 || tb->ccol >= tb->ncols)
		return 0;
	int k = tb->cols[tb->ccol].key;
	return k >= PC_B_NAME && k < PC_DELTA;
}

/* The node of the pair under the cursor on `side`, else on the other; *side
 * is set to the side it is on.  -1 when there is no row. */
static int64_t cursor_node(const struct diffview *dv, int *side)
{
	const pair_row *r = pair_at(dv, tui_table_row(&dv->ptab));
	if (!r)
		return -1;
	if (*side ? r->b < 0 : r->a < 0)
		*side = !*side;
	return *side ? r->b : r->a;
}

int tui_diff_draw_side(tui *t, const tui_diff_docs *s, int side, int64_t node)
{
	const module_diff *d = &s->d;
	const hs_graph *g = side ? d->b : d->a;
	int64_t *ids = malloc(((size_t)g->n_nodes + 1) * sizeof *ids), n = 0;
	if (!ids) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (int64_t v = 0; v < g->n_nodes; v++) {
		int64_t w = side ? d->b2a[v] : d->a2b[v];
		if (w < 0 || d->changes[side ? w : v])
			ids[n++] = v;
	}
	char legend[600];
	snprintf(legend, sizeof legend, "%s side (%s): %lld changed or only-in-%s node%s highlighted; the other side: %s",
		 side ? "B" : "A", g->path, (long long)n, side ? "B" : "A", hs_s(n), side ? d->a->path : d->b->path);
	int rc = tui_open_drawing_legend(t, side ? s->db : s->da, node, ids, (size_t)n, legend);
	free(ids);
	return rc;
}

static int diff_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct diffview *dv = v->data;
	int side = cursor_side(dv);
	switch (req) {
	case TUI_REQ_ENTER:
		if (v->focus == 0) {
			int64_t r = tui_table_row(&dv->ctab);
			dv->sel = r == dv->sel ? -1 : r;
			build_shown(dv);
			if (dv->sel >= 0)
				v->focus = 1;
			return 1;
		} else {
			const pair_row *r = pair_at(dv, tui_table_row(&dv->ptab));
			if (r)
				tui_open_diff_pair(t, &dv->s, r->a, r->b);
			return 1;
		}
	case TUI_REQ_COMPARE_ALL:
		dv->show_all = !dv->show_all;
		build_shown(dv);
		tui_message(t, 0, "%s (%lld row%s)", dv->show_all ? "every instruction" : "what differs only",
			    (long long)dv->nshown, hs_s(dv->nshown));
		return 1;
	case TUI_REQ_DETAIL: {
		int64_t node = cursor_node(dv, &side);
		if (node >= 0)
			tui_open_node(t, side ? dv->s.db : dv->s.da, node);
		return 1;
	}
	case TUI_REQ_DRAW: {
		int64_t node = cursor_node(dv, &side);
		if (arg) {
			node = tui_doc_node_arg(t, side ? dv->s.db : dv->s.da, "draw", arg);
			if (node < 0)
				return 1;
		}
		if (node >= 0)
			tui_diff_draw_side(t, &dv->s, side, node);
		else
			tui_message(t, 1, "draw: no instruction under the cursor");
		return 1;
	}
	default:
		return 0;
	}
}

static void diff_done(tui_view *v)
{
	struct diffview *dv = v->data;
	tui_table_free(&dv->ctab);
	tui_table_free(&dv->ptab);
	free(dv->rows);
	free(dv->shown);
	free(dv->comps);
	tui_diff_docs_free(&dv->s);
	free(dv);
}

static const tui_view_ops diff_ops = {
	.name = "diff", .scope = TUI_S_TABLE | TUI_S_OPENS | TUI_S_DIFF, .draw = diff_draw,
	.request = diff_request, .done = diff_done,
};

int tui_open_diff(tui *t, tui_doc *a, tui_doc *b, const char *path_a, const char *path_b)
{
	struct diffview *dv = calloc(1, sizeof *dv);
	hs_error err = {0};
	if (!dv) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	if (tui_diff_docs_open(t, &dv->s, a, b, path_a, path_b, &err) != 0 ||
	    tui_diff_rows(&dv->s.d, &dv->rows, &dv->nrows) != 0 ||
	    !(dv->shown = malloc(((size_t)dv->nrows + 1) * sizeof *dv->shown)) || build_comps(dv) != 0) {
		tui_message(t, 1, "%s", err.status ? err.msg : "diff: out of memory");
		free(dv->rows);
		free(dv->shown);
		free(dv->comps);
		tui_diff_docs_free(&dv->s);
		free(dv);
		return -1;
	}
	dv->sel = -1;
	header_lines(dv);
	tui_table_init_spec(&dv->ctab, &comp_table, dv, dv->ncomps);
	tui_table_init_spec(&dv->ptab, &pair_table, dv, 0);
	dv->ctab.paired = dv->ptab.paired = 1;
	build_shown(dv);
	char title[160];
	snprintf(title, sizeof title, "Diff %s | %s", dv->s.d.a->name, dv->s.d.b->name);
	tui_view *v = tui_push(t, &diff_ops, dv, NULL, title, &dv->ctab, &dv->ptab);
	if (!v)
		return -1;
	v->focus = 1;
	if (!dv->s.d.changed && !dv->s.d.only_a && !dv->s.d.only_b)
		tui_message(t, 0, "no change: every instruction matched, none differs (%lld matched)",
			    (long long)dv->s.d.matched);
	else
		tui_message(t, 0, "%lld changed, %lld only in A, %lld only in B; Enter: a pair side by side, v: draw",
			    (long long)dv->s.d.changed, (long long)dv->s.d.only_a, (long long)dv->s.d.only_b);
	return 0;
}
