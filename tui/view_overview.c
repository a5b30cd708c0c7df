/* view_overview.c - a graph at a glance: sizes and runtimes, an opcode table
 * and the computations from node_splits.  Enter lists the nodes of an
 * opcode or of a computation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/parse.h"
#include "loader/hlo.h"
#include "tui/tui.h"

struct overview {
	tui_doc *doc;
	tui_table ops, comps;
	int opcodes[256];  /* opcode ids present, natural order: count descending */
	int nopcodes;
	int64_t count[256], cfg[256];
	double cost[256], cost_total, cost_max;
	double rt_min, rt_med, rt_max;
	int64_t best;
	const cost_estimate *ce;
};

enum { OC_OPCODE, OC_CATEGORY, OC_COUNT, OC_SHARE, OC_COUNT_BAR, OC_CFG, OC_COST, OC_COST_BAR };
enum { CC_COMP, CC_NODES, CC_FIRST, CC_LAST, CC_ROOT, CC_CFG, CC_COST, CC_MIX };

static double op_value(void *ctx, int64_t row, const tui_col *c);

/* Count and cost bars: each opcode's share of the largest one. */
static int op_bar(const struct overview *o, int op, const tui_col *c, char *buf, size_t cap)
{
	int count = c->key == OC_COUNT_BAR;
	double top = count ? (double)o->count[o->opcodes[0]] : o->cost_max;

	if (!count && tui_model_hidden(buf, cap))
		return TUI_C_DIM;
	if (!count && !o->ce)
		snprintf(buf, cap, "-");
	else
		tui_bar(buf, cap, (count ? (double)o->count[op] : o->cost[op]) / (top > 0 ? top : 1), c->width);
	return TUI_C_CAT + (int)hlo_opcode_category(op);
}

static int op_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct overview *o = ctx;
	int op = o->opcodes[row];

	switch (c->key) {
	case OC_OPCODE:
		snprintf(buf, cap, "%s", hlo_opcode_name(op));
		return TUI_C_CAT + (int)hlo_opcode_category(op);
	case OC_CATEGORY:
		snprintf(buf, cap, "%s", hlo_category_name(hlo_opcode_category(op)));
		return TUI_C_DIM;
	case OC_COUNT:
		snprintf(buf, cap, "%lld", (long long)o->count[op]);
		break;
	case OC_SHARE:
		tui_unit_format(buf, cap, c->unit, op_value(o, row, c));
		break;
	case OC_CFG:
		snprintf(buf, cap, "%lld", (long long)o->cfg[op]);
		return o->cfg[op] ? TUI_C_MARK : TUI_C_DIM;
	case OC_COST:
		if (!tui_model_hidden(buf, cap))
			tui_unit_format(buf, cap, c->unit, op_value(o, row, c));
		break;
	case OC_COUNT_BAR:
	case OC_COST_BAR:
		return op_bar(o, op, c, buf, cap);
	}
	return TUI_C_DEFAULT;
}

static double op_value(void *ctx, int64_t row, const tui_col *c)
{
	struct overview *o = ctx;
	int op = o->opcodes[row];

	double n = (double)o->doc->g->n_nodes;

	switch (c->key) {
	case OC_COUNT:
	case OC_COUNT_BAR:
		return (double)o->count[op];
	case OC_SHARE:
		return 100.0 * (double)o->count[op] / (n > 0 ? n : 1);
	case OC_CFG:
		return (double)o->cfg[op];
	case OC_COST:
	case OC_COST_BAR:
		return o->ce && o->cost_total > 0 ? 100.0 * o->cost[op] / o->cost_total : NAN;
	}
	return NAN;
}

static const tui_table_ops op_table_ops = {op_cell, op_value};

/* "fusion 12, add 5, copy 3" for the nodes of computation c. */
static void comp_mix(const struct overview *o, int64_t c, char *buf, size_t cap)
{
	const hs_graph *g = o->doc->g;
	int64_t cnt[256] = {0};
	int top[3] = {-1, -1, -1};
	size_t len = 0;

	for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
		cnt[g->opcode[v]]++;
	for (int k = 0; k < 3; k++)
		for (int op = 0; op < 256; op++) {
			if (!cnt[op] || op == top[0] || op == top[1])
				continue;
			if (top[k] < 0 || cnt[op] > cnt[top[k]])
				top[k] = op;
		}
	buf[0] = '\0';
	for (int k = 0; k < 3 && top[k] >= 0 && len < cap; k++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s %lld", k ? ", " : "",
					hlo_opcode_name(top[k]), (long long)cnt[top[k]]);
}

static double comp_cost(const struct overview *o, int64_t c)
{
	const hs_graph *g = o->doc->g;
	double s = 0;

	if (!o->ce)
		return NAN;
	for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
		s += o->ce[v].seconds;
	return s;
}

static int64_t comp_cfg(const struct overview *o, int64_t c)
{
	const hs_graph *g = o->doc->g;
	int64_t n = 0;

	if (!g->cfg_index)
		return 0;
	for (int64_t v = g->comp_start[c]; v < g->comp_start[c + 1]; v++)
		n += g->cfg_index[v] >= 0;
	return n;
}

static double comp_value(void *ctx, int64_t row, const tui_col *c);

static int comp_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct overview *o = ctx;
	const hs_graph *g = o->doc->g;

	switch (c->key) {
	case CC_COMP:
		snprintf(buf, cap, "%lld", (long long)row);
		break;
	case CC_NODES:
		snprintf(buf, cap, "%lld", (long long)(g->comp_start[row + 1] - g->comp_start[row]));
		break;
	case CC_FIRST:
		snprintf(buf, cap, "%lld", (long long)g->comp_start[row]);
		break;
	case CC_LAST:
		snprintf(buf, cap, "%lld", (long long)(g->comp_start[row + 1] - 1));
		break;
	case CC_ROOT: {
		int64_t r = tui_doc_comp_root(o->doc, row);
		if (r < 0) {
			snprintf(buf, cap, "-");
			break;
		}
		snprintf(buf, cap, "%lld %s", (long long)r, hlo_opcode_name(g->opcode[r]));
		return TUI_C_CAT + (int)hlo_opcode_category(g->opcode[r]);
	}
	case CC_CFG: {
		int64_t n = comp_cfg(o, row);
		snprintf(buf, cap, "%lld", (long long)n);
		return n ? TUI_C_MARK : TUI_C_DIM;
	}
	case CC_COST:
		if (!tui_model_hidden(buf, cap))
			tui_unit_format(buf, cap, c->unit, comp_value(o, row, c));
		break;
	case CC_MIX:
		comp_mix(o, row, buf, cap);
		return TUI_C_DIM;
	}
	return TUI_C_DEFAULT;
}

static double comp_value(void *ctx, int64_t row, const tui_col *c)
{
	struct overview *o = ctx;
	const hs_graph *g = o->doc->g;

	switch (c->key) {
	case CC_COMP:
		return (double)row;
	case CC_NODES:
		return (double)(g->comp_start[row + 1] - g->comp_start[row]);
	case CC_FIRST:
		return (double)g->comp_start[row];
	case CC_LAST:
		return (double)(g->comp_start[row + 1] - 1);
	case CC_CFG:
		return (double)comp_cfg(o, row);
	case CC_COST: {
		double s = comp_cost(o, row);
		return o->cost_total > 0 ? 100.0 * s / o->cost_total : NAN;
	}
	}
	return NAN;
}

static const tui_table_ops comp_table_ops = {comp_cell, comp_value};

static const tui_col op_cols[] = {
	{.name = "opcode", .key = OC_OPCODE, .width = 22},
	{.name = "category", .key = OC_CATEGORY, .width = 13},
	{.name = "count", .key = OC_COUNT, .width = 7, .numeric = 1},
	{.name = "share", .key = OC_SHARE, .width = 6, .numeric = 1, .unit = TUI_U_PERCENT},
	{.name = "count bar", .key = OC_COUNT_BAR, .width = 14, .numeric = TUI_LEFT},
	{.name = "cfg", .key = OC_CFG, .width = 5, .numeric = 1},
	{.name = "cost", .key = OC_COST, .width = 6, .numeric = 1, .unit = TUI_U_PERCENT},
	{.name = "cost bar", .key = OC_COST_BAR, .width = 14, .numeric = TUI_LEFT},
};

static const tui_table_spec op_table = {
	.ops = &op_table_ops, .title = "Opcodes", .cols = op_cols, .ncols = TUI_N(op_cols),
};

static const tui_col comp_cols[] = {
	{.name = "comp", .key = CC_COMP, .width = 5, .numeric = 1},
	{.name = "nodes", .key = CC_NODES, .width = 6, .numeric = 1},
	{.name = "first", .key = CC_FIRST, .width = 6, .numeric = 1},
	{.name = "last", .key = CC_LAST, .width = 6, .numeric = 1},
	{.name = "root", .key = CC_ROOT, .width = 22},
	{.name = "cfg", .key = CC_CFG, .width = 4, .numeric = 1},
	{.name = "cost", .key = CC_COST, .width = 6, .numeric = 1, .unit = TUI_U_PERCENT},
	{.name = "opcode mix", .key = CC_MIX, .width = 44},
};

static const tui_table_spec comp_table = {
	.ops = &comp_table_ops, .title = "Computations (node_splits)",
	.cols = comp_cols, .ncols = TUI_N(comp_cols),
};

static void ov_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct overview *o = v->data;
	const hs_graph *g = o->doc->g;
	char line[1024], a[32], b[32], c[32];

	snprintf(line, sizeof line, " %s  %s graph  %s", g->name, graph_kind_name(g->kind), g->path);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	snprintf(line, sizeof line,
		 " %lld nodes  %lld edges  %lld computation%s  %lld opcodes  %lld configurable nodes  %d features",
		 (long long)g->n_nodes, (long long)g->n_edges, (long long)g->n_comps,
		 g->n_comps == 1 ? "" : "s", (long long)o->nopcodes, (long long)g->n_cfg_nodes,
		 g->feat_width);
	tui_put(win, y + 1, x, w, line, 0, 1);
	if (g->n_configs == 0)
		snprintf(line, sizeof line, " no configs");
	else if (!g->labeled)
		snprintf(line, sizeof line, " %lld configs, runtimes hidden (test split); c shows predictions",
			 (long long)g->n_configs);
	else {
		tui_fmt_runtime(a, sizeof a, g, o->rt_min);
		tui_fmt_runtime(b, sizeof b, g, o->rt_med);
		tui_fmt_runtime(c, sizeof c, g, o->rt_max);
		snprintf(line, sizeof line,
			 " %lld configs  runtime%s min %s  median %s  max %s (%.2fx)  best: config %lld",
			 (long long)g->n_configs, g->kind == HS_KIND_TILE ? " (normalized)" : "", a, b, c,
			 o->rt_min > 0 ? o->rt_max / o->rt_min : 0.0, (long long)o->best);
	}
	tui_put(win, y + 2, x, w, line, g->labeled ? tui_attr(TUI_C_GOOD) : tui_attr(TUI_C_DIM), 1);
	{
		double fl = 0, by = 0;
		for (int64_t i = 0; o->ce && i < g->n_nodes; i++) {
			fl += o->ce[i].flops;
			by += o->ce[i].bytes;
		}
		if (!cost_available(g))
			snprintf(line, sizeof line, " analytic cost: n/a (%s)   Enter lists nodes, Tab switches pane",
				 cost_unavailable_reason(g));
		else if (o->ce && tui_model_masked())
			snprintf(line, sizeof line,
				 " analytic cost: # FLOP  # bytes  # ms   Enter lists nodes, Tab switches pane");
		else if (o->ce)
			snprintf(line, sizeof line,
				 " analytic cost: %.3g FLOP  %.3g bytes  %.4g ms   Enter lists nodes, Tab switches pane",
				 fl, by, o->cost_total * 1e3);
		else
			snprintf(line, sizeof line, " Enter lists nodes, Tab switches pane, t all nodes, c configs");
	}
	tui_put(win, y + 3, x, w, line, tui_attr(TUI_C_DIM), 1);
	y += 4;
	h -= 4;
	if (w >= 170) {
		int lw = w / 2;
		tui_table_draw(win, &o->ops, y, x, h, lw - 1, v->focus == 0);
		tui_table_draw(win, &o->comps, y, x + lw, h, w - lw, v->focus == 1);
	} else {
		/* the computations take the rows they need, the opcodes the rest */
		int top = tui_split_rows(h, tui_table_rows_needed(&o->ops), tui_table_rows_needed(&o->comps));
		tui_table_draw(win, &o->ops, y, x, top, w, v->focus == 0);
		tui_table_draw(win, &o->comps, y + top, x, h - top, w, v->focus == 1);
	}
}

static int ov_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct overview *o = v->data;

	if (req == TUI_REQ_ENTER) {
		if (v->focus == 0) {
			int64_t r = tui_table_row(&o->ops);
			if (r >= 0)
				tui_open_nodes(t, o->doc, o->opcodes[r], -1);
		} else {
			int64_t r = tui_table_row(&o->comps);
			if (r >= 0)
				tui_open_nodes(t, o->doc, -1, r);
		}
		return 1;
	}
	if (req == TUI_REQ_OVERVIEW) {
		tui_message(t, 0, "this is the overview");
		return 1;
	}
	if (req == TUI_REQ_DRAW) {
		int64_t r = tui_table_row(&o->comps), node = -1;
		if (v->focus == 1 && r >= 0)
			node = tui_doc_comp_root(o->doc, r);
		else if (o->doc->g->n_nodes > 0)
			node = tui_doc_comp_root(o->doc, o->doc->g->n_comps - 1);
		if (node >= 0)
			tui_open_drawing(t, o->doc, node);
		return 1;
	}
	if (req == TUI_REQ_GOTO) {
		int64_t n;
		if (hs_parse_i64(arg, &n) < 0 || n < 0 || n >= o->doc->g->n_nodes)
			tui_message(t, 1, "goto: node ids are 0..%lld", (long long)o->doc->g->n_nodes - 1);
		else
			tui_open_node(t, o->doc, n);
		return 1;
	}
	return 0;
}

static void ov_done(tui_view *v)
{
	struct overview *o = v->data;
	tui_table_free(&o->ops);
	tui_table_free(&o->comps);
	free(o);
}

static const tui_view_ops ov_ops = {
	.name = "overview", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = ov_draw,
	.request = ov_request, .done = ov_done,
};

int tui_open_overview(tui *t, tui_doc *d)
{
	struct overview *o = calloc(1, sizeof *o);
	const hs_graph *g = d->g;
	char title[160];

	if (!o) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	o->doc = d;
	o->ce = tui_doc_cost(d);
	for (int64_t v = 0; v < g->n_nodes; v++) {
		int op = g->opcode[v];
		o->count[op]++;
		if (g->cfg_index && g->cfg_index[v] >= 0)
			o->cfg[op]++;
		if (o->ce) {
			o->cost[op] += o->ce[v].seconds;
			o->cost_total += o->ce[v].seconds;
		}
	}
	for (int op = 0; op < 256; op++) {
		if (o->count[op])
			o->opcodes[o->nopcodes++] = op;
		if (o->cost[op] > o->cost_max)
			o->cost_max = o->cost[op];
	}
	/* natural order: most frequent first */
	for (int i = 1; i < o->nopcodes; i++)
		for (int j = i; j > 0 && o->count[o->opcodes[j]] > o->count[o->opcodes[j - 1]]; j--) {
			int tmp = o->opcodes[j];
			o->opcodes[j] = o->opcodes[j - 1];
			o->opcodes[j - 1] = tmp;
		}
	o->rt_min = o->rt_med = o->rt_max = NAN;
	o->best = -1;
	if (g->labeled && g->n_configs > 0) {
		double *s = malloc((size_t)g->n_configs * sizeof *s);
		if (s) {
			memcpy(s, g->runtime, (size_t)g->n_configs * sizeof *s);
			qsort(s, (size_t)g->n_configs, sizeof *s, hs_cmp_double);
			o->rt_min = s[0];
			o->rt_max = s[g->n_configs - 1];
			o->rt_med = g->n_configs % 2 ? s[g->n_configs / 2]
						     : (s[g->n_configs / 2 - 1] + s[g->n_configs / 2]) / 2;
			free(s);
		}
		o->best = graph_best_config(g);
	}
	tui_table_init_spec(&o->ops, &op_table, o, o->nopcodes);
	tui_table_init_spec(&o->comps, &comp_table, o, g->n_comps);
	snprintf(title, sizeof title, "%s", g->name);
	return tui_push(t, &ov_ops, o, d, title, &o->ops, &o->comps) ? 0 : -1;
}
