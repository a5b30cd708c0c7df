/* view_splits.c - the node_splits segments of a graph (`:splits`): the
 * ranges of node ids the dataset records.  They are not HLO computations
 * (view_comps.c has those); Enter lists a segment's nodes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "loader/hlo.h"
#include "tui/tui.h"

struct splits {
	tui_doc *doc;
	tui_table tab;
	const cost_estimate *ce;
	double cost_total;
};

enum { SC_SPLIT, SC_NODES, SC_FIRST, SC_LAST, SC_ROOT, SC_CFG, SC_COST };

static double split_cost(const struct splits *o, int64_t c)
{
	const hs_graph *g = o->doc->g;
	double s = 0;

	if (!o->ce)
		return NAN;
	for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
		s += o->ce[v].seconds;
	return s;
}

static int64_t split_cfg(const struct splits *o, int64_t c)
{
	const hs_graph *g = o->doc->g;
	int64_t n = 0;

	if (!g->cfg_index)
		return 0;
	for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
		n += g->cfg_index[v] >= 0;
	return n;
}

static double split_value(void *ctx, int64_t row, const tui_col *c);

static int split_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct splits *o = ctx;
	const hs_graph *g = o->doc->g;

	switch (c->key) {
	case SC_ROOT: {
		int64_t r = query_session_split_root(o->doc->qs, row, NULL);
		if (r < 0) {
			snprintf(buf, cap, "-");
			break;
		}
		snprintf(buf, cap, "%lld %s", (long long)r, graph_node_name(g, r));
		return tui_node_class(g, r);
	}
	case SC_CFG: {
		int64_t n = split_cfg(o, row);
		snprintf(buf, cap, "%lld", (long long)n);
		return n ? TUI_C_MARK : TUI_C_DIM;
	}
	case SC_COST:
		if (!tui_model_hidden(buf, cap))
			hs_unit_format(buf, cap, c->unit, split_value(o, row, c), -1);
		break;
	default:
		snprintf(buf, cap, "%.0f", split_value(o, row, c));
		break;
	}
	return TUI_C_DEFAULT;
}

static double split_value(void *ctx, int64_t row, const tui_col *c)
{
	struct splits *o = ctx;
	const hs_graph *g = o->doc->g;

	switch (c->key) {
	case SC_SPLIT:
		return (double)row;
	case SC_NODES:
		return (double)(g->comp_start[row + 1] - g->comp_start[row]);
	case SC_FIRST:
		return (double)g->comp_start[row];
	case SC_LAST:
		return (double)(g->comp_start[row + 1] - 1);
	case SC_CFG:
		return (double)split_cfg(o, row);
	case SC_COST:
		return o->cost_total > 0 ? 100.0 * split_cost(o, row) / o->cost_total : NAN;
	}
	return NAN;
}

static const tui_table_ops split_table_ops = {split_cell, split_value};

static const tui_col split_cols[] = {
	{.name = "split", .key = SC_SPLIT, .width = 5, .numeric = 1},
	{.name = "nodes", .key = SC_NODES, .width = 6, .numeric = 1},
	{.name = "first", .key = SC_FIRST, .width = 6, .numeric = 1},
	{.name = "last", .key = SC_LAST, .width = 6, .numeric = 1},
	{.name = "root", .key = SC_ROOT, .width = 22},
	{.name = "cfg", .key = SC_CFG, .width = 4, .numeric = 1},
	{.name = "cost", .key = SC_COST, .width = 6, .numeric = 1, .unit = HS_U_PERCENT},
};

static const tui_table_spec split_table = {
	.ops = &split_table_ops, .title = "Splits (node_splits)",
	.cols = split_cols, .ncols = TUI_N(split_cols),
};

static void splits_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct splits *o = v->data;
	tui_table_draw(win, &o->tab, y, x, h, w, 1);
}

static int splits_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct splits *o = v->data;
	int64_t r = tui_table_row(&o->tab);

	switch (req) {
	case TUI_REQ_ENTER:
		if (r >= 0)
			tui_open_nodes(t, o->doc, NULL, r);
		return 1;
	case TUI_REQ_DRAW: {
		hs_error err = {0};
		int64_t root = r >= 0 ? query_session_split_root(o->doc->qs, r, &err) : -1;
		if (root >= 0)
			tui_open_drawing(t, o->doc, root);
		else if (err.status)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	default:
		return 0;
	}
}

static void splits_done(tui_view *v)
{
	struct splits *o = v->data;
	tui_table_free(&o->tab);
	free(o);
}

static const tui_view_ops splits_ops = {
	.name = "splits", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = splits_draw,
	.request = splits_request, .done = splits_done,
};

int tui_open_splits(tui *t, tui_doc *d)
{
	struct splits *o = calloc(1, sizeof *o);
	hs_error err = {0};

	if (!o) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	o->doc = d;
	if (!(o->ce = query_session_cost(d->qs, &err))) {
		free(o);
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	for (int64_t v = 0; o->ce && v < d->g->n_nodes; v++)
		o->cost_total += o->ce[v].seconds;
	tui_table_init_spec(&o->tab, &split_table, o, d->g->n_comps);
	return tui_push(t, &splits_ops, o, d, "Splits", &o->tab, NULL) ? 0 : -1;
}
