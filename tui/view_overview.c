/* view_overview.c - a graph at a glance: module, sizes and runtimes, an
 * opcode table (opcodes as written) and the real HLO computations with
 * their roles and callers (view_comps.c).  Enter lists the nodes of an
 * opcode or of a computation; `:splits` shows the node_splits segments.
 * A plain HLO module (no configs: tui_doc_is_module) is described as a
 * module: instructions, computations, fusions, collectives, no runtimes,
 * splits or configurable nodes.  Costs and their shares count each
 * executed op once: the nodes of executed computations only
 * (cost_executed_total), a fusion body's or reducer's nodes being part of
 * their caller's cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/plural.h"
#include "loader/hlo.h"
#include "base/units.h"
#include "model/machine.h"
#include "tui/tui.h"

/* One opcode as written; `id` is its learned id (its colour). */
struct opstat {
	const char *name;
	int id;
	int64_t count, cfg;
	double cost;
};

struct overview {
	tui_doc *doc;
	tui_table ops, comps;
	tui_hcomps hc;
	struct opstat *op; /* opcodes present, natural order: count descending */
	int nopcodes;
	int64_t n_fusions, n_collectives;
	double cost_total, cost_max;
	cost_estimate executed; /* cost_executed_total */
	double rt_min, rt_med, rt_max;
	int64_t best;
	const cost_estimate *ce;
};

enum { OC_OPCODE, OC_CATEGORY, OC_COUNT, OC_SHARE, OC_COUNT_BAR, OC_CFG, OC_COST, OC_COST_BAR };

static double op_value(void *ctx, int64_t row, const tui_col *c);

/* Count and cost bars: each opcode's share of the largest one. */
static int op_bar(const struct overview *o, const struct opstat *op, const tui_col *c, char *buf, size_t cap)
{
	int count = c->key == OC_COUNT_BAR;
	double top = count ? (double)o->op[0].count : o->cost_max;

	if (!count && tui_model_hidden(buf, cap))
		return TUI_C_DIM;
	if (!count && !o->ce)
		snprintf(buf, cap, "-");
	else
		tui_bar(buf, cap, (count ? (double)op->count : op->cost) / (top > 0 ? top : 1), c->width);
	return TUI_C_CAT + (int)hlo_opcode_category(op->id);
}

static int op_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct overview *o = ctx;
	const struct opstat *op = &o->op[row];

	switch (c->key) {
	case OC_OPCODE:
		snprintf(buf, cap, "%s", op->name);
		return TUI_C_CAT + (int)hlo_opcode_category(op->id);
	case OC_CATEGORY:
		snprintf(buf, cap, "%s", hlo_category_name(hlo_opcode_category(op->id)));
		return TUI_C_DIM;
	case OC_COUNT:
		snprintf(buf, cap, "%lld", (long long)op->count);
		break;
	case OC_SHARE:
		hs_unit_format(buf, cap, c->unit, op_value(o, row, c), -1);
		break;
	case OC_CFG:
		snprintf(buf, cap, "%lld", (long long)op->cfg);
		return op->cfg ? TUI_C_MARK : TUI_C_DIM;
	case OC_COST:
		if (!tui_model_hidden(buf, cap))
			hs_unit_format(buf, cap, c->unit, op_value(o, row, c), -1);
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
	const struct opstat *op = &o->op[row];
	double n = (double)o->doc->g->n_nodes;

	switch (c->key) {
	case OC_COUNT:
	case OC_COUNT_BAR:
		return (double)op->count;
	case OC_SHARE:
		return 100.0 * (double)op->count / (n > 0 ? n : 1);
	case OC_CFG:
		return (double)op->cfg;
	case OC_COST:
	case OC_COST_BAR:
		return o->ce && o->cost_total > 0 ? 100.0 * op->cost / o->cost_total : NAN;
	}
	return NAN;
}

static const tui_table_ops op_table_ops = {op_cell, op_value};

static const tui_col op_cols[] = {
	{.name = "opcode", .key = OC_OPCODE, .width = 22},
	{.name = "category", .key = OC_CATEGORY, .width = 13},
	{.name = "count", .key = OC_COUNT, .width = 7, .numeric = 1},
	{.name = "share", .key = OC_SHARE, .width = 6, .numeric = 1, .unit = HS_U_PERCENT},
	{.name = "count bar", .key = OC_COUNT_BAR, .width = 14, .numeric = TUI_LEFT},
	{.name = "cfg", .key = OC_CFG, .width = 5, .numeric = 1},
	{.name = "cost", .key = OC_COST, .width = 6, .numeric = 1, .unit = HS_U_PERCENT},
	{.name = "cost bar", .key = OC_COST_BAR, .width = 14, .numeric = TUI_LEFT},
};

static const tui_table_spec op_table = {
	.ops = &op_table_ops, .title = "Opcodes", .cols = op_cols, .ncols = TUI_N(op_cols),
};

/* Natural order: most frequent first, then by learned id and name. */
static int cmp_opstat(const void *a, const void *b)
{
	const struct opstat *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->id != y->id)
		return x->id - y->id;
	return strcmp(x->name, y->name);
}

/* Groups the nodes by opcode as written; -1 when out of memory. */
static int count_opcodes(struct overview *o)
{
	const hs_graph *g = o->doc->g;
	int slot[256], cap = 0;

	for (int i = 0; i < 256; i++)
		slot[i] = -1;
	int fusion = hlo_opcode_id("fusion");
	for (int64_t v = 0; v < g->n_nodes; v++) {
		/* a learned id names one opcode: its name is looked at only the
		 * first time, or for opcodes the dataset has no id for (0) */
		int id = g->opcode[v], k = slot[id];
		const char *name = k < 0 || id == 0 ? graph_node_opcode_name(g, v) : o->op[k].name;
		if (k < 0 || (id == 0 && strcmp(o->op[k].name, name) != 0)) {
			for (k = 0; k < o->nopcodes && strcmp(o->op[k].name, name) != 0; k++)
				;
			if (k == o->nopcodes) {
				if (k == cap) {
					cap = cap ? cap * 2 : 64;
					struct opstat *p = realloc(o->op, (size_t)cap * sizeof *p);
					if (!p)
						return -1;
					o->op = p;
				}
				o->op[k] = (struct opstat){.name = name, .id = id};
				o->nopcodes++;
			}
			slot[id] = k;
		}
		o->op[k].count++;
		if (g->cfg_index && g->cfg_index[v] >= 0)
			o->op[k].cfg++;
		if (o->ce && cost_role_executed(graph_node_role(g, v)))
			o->op[k].cost += o->ce[v].seconds;
		o->n_fusions += id ? id == fusion : strcmp(name, "fusion") == 0;
		o->n_collectives += graph_is_collective_opcode(name);
	}
	if (o->ce) {
		o->executed = cost_executed_total(g, o->ce);
		o->cost_total = o->executed.seconds;
	}
	for (int k = 0; k < o->nopcodes; k++)
		if (o->op[k].cost > o->cost_max)
			o->cost_max = o->op[k].cost;
	qsort(o->op, (size_t)o->nopcodes, sizeof *o->op, cmp_opstat);
	return 0;
}

/* The first two lines of a plain HLO module: what it is and its sizes. */
static void module_lines(const struct overview *o, WINDOW *win, int y, int x, int w)
{
	const hs_graph *g = o->doc->g;
	char line[1024];

	snprintf(line, sizeof line, " %s  HLO module %s  %s", g->name, graph_module_name(g), g->path);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	snprintf(line, sizeof line,
		 " %lld instruction%s  %lld computation%s  %lld fusion%s  %lld collective%s  %lld opcode%s",
		 (long long)g->n_nodes, hs_s(g->n_nodes), (long long)g->n_hcomps, hs_s(g->n_hcomps),
		 (long long)o->n_fusions, hs_s(o->n_fusions), (long long)o->n_collectives, hs_s(o->n_collectives),
		 (long long)o->nopcodes, hs_s(o->nopcodes));
	tui_put(win, y + 1, x, w, line, 0, 1);
}

/* The first three lines of a dataset sample: kind and sizes, configs and
 * runtimes. */
static void sample_lines(const struct overview *o, WINDOW *win, int y, int x, int w)
{
	const hs_graph *g = o->doc->g;
	char line[1024], a[32], b[32], c[32];

	if (g->module_name)
		snprintf(line, sizeof line, " %s  %s graph, %d features  module %s  %s", g->name,
			 graph_kind_name(g->kind), g->feat_width, g->module_name, g->path);
	else
		snprintf(line, sizeof line, " %s  %s graph, %d features  %s", g->name, graph_kind_name(g->kind),
			 g->feat_width, g->path);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	snprintf(line, sizeof line,
		 " %lld node%s  %lld edge%s  %lld computation%s  %lld fusion%s  %lld opcode%s  %lld split%s"
		 "  %lld configurable node%s",
		 (long long)g->n_nodes, hs_s(g->n_nodes), (long long)g->n_edges, hs_s(g->n_edges),
		 (long long)g->n_hcomps, hs_s(g->n_hcomps), (long long)o->n_fusions, hs_s(o->n_fusions),
		 (long long)o->nopcodes, hs_s(o->nopcodes), (long long)g->n_comps, hs_s(g->n_comps),
		 (long long)g->n_cfg_nodes, hs_s(g->n_cfg_nodes));
	tui_put(win, y + 1, x, w, line, 0, 1);
	if (g->n_configs == 0)
		snprintf(line, sizeof line, " no configs");
	else if (!g->labeled)
		snprintf(line, sizeof line, " %lld config%s, runtimes hidden (test split); c shows predictions",
			 (long long)g->n_configs, hs_s(g->n_configs));
	else {
		int tile = g->kind == HS_KIND_TILE;   /* normalized: 4 decimals */
		hs_unit_format(a, sizeof a, tile ? HS_U_NONE : HS_U_NS, o->rt_min, tile ? 4 : -1);
		hs_unit_format(b, sizeof b, tile ? HS_U_NONE : HS_U_NS, o->rt_med, tile ? 4 : -1);
		hs_unit_format(c, sizeof c, tile ? HS_U_NONE : HS_U_NS, o->rt_max, tile ? 4 : -1);
		snprintf(line, sizeof line,
			 " %lld config%s  runtime%s min %s  median %s  max %s (%.2fx)  best: config %lld",
			 (long long)g->n_configs, hs_s(g->n_configs), g->kind == HS_KIND_TILE ? " (normalized)" : "", a, b, c,
			 o->rt_min > 0 ? o->rt_max / o->rt_min : 0.0, (long long)o->best);
	}
	tui_put(win, y + 2, x, w, line, g->labeled ? tui_attr(TUI_C_GOOD) : tui_attr(TUI_C_DIM), 1);
}

/* The analytic cost of the executed computations, and the keys. */
static void cost_line(const struct overview *o, char *line, size_t cap)
{
	const hs_graph *g = o->doc->g;
	const char *keys = tui_doc_is_module(o->doc) ? "Enter lists nodes  Tab: pane  r: collectives"
						     : "Enter lists nodes, Tab switches pane";
	char unk[64] = "";

	if (o->ce && o->executed.unknown > 0)
		snprintf(unk, sizeof unk, " (%d op%s of unknown cost)", o->executed.unknown, hs_s(o->executed.unknown));
	if (!cost_available(g))
		snprintf(line, cap, " analytic cost: n/a (%s)   %s", cost_unavailable_reason(g), keys);
	else if (o->ce && tui_model_masked())
		snprintf(line, cap, " analytic cost: # FLOP  # bytes  #%s   %s", unk, keys);
	else if (o->ce) {
		char time[32], fl[32], by[32];
		hs_unit_format(time, sizeof time, HS_U_SECONDS, o->cost_total, 3);   /* "181.940 s", "983 ns" */
		hs_unit_format(fl, sizeof fl, HS_U_FLOP, o->executed.flops, -1);
		hs_unit_format(by, sizeof by, HS_U_BYTES, o->executed.bytes, -1);
		cost_machine m;
		char on[32] = "";
		if (g->module && (machine_of(g, &m)->gpu || m.link > 0)) /* not the dataset's tpu-v3 */
			snprintf(on, sizeof on, " on %s", m.name);
		snprintf(line, cap, " analytic cost: %s  %s  %s%s%s   %s", fl, by, time, on, unk, keys);
	}
	else
		snprintf(line, cap, " Enter lists nodes, Tab switches pane, t all nodes, c configs");
}

static void ov_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct overview *o = v->data;
	char line[1024];
	int module = tui_doc_is_module(o->doc);

	if (module) {
		module_lines(o, win, y, x, w);
		tui_put(win, y + 2, x, w, " no configs (a plain HLO module: no compiler configs or measured runtimes)",
			tui_attr(TUI_C_DIM), 1);
	} else
		sample_lines(o, win, y, x, w);
	cost_line(o, line, sizeof line);
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
				tui_open_nodes(t, o->doc, o->op[r].name, -1);
		} else {
			int64_t r = tui_table_row(&o->comps);
			if (r >= 0)
				tui_open_hcomp(t, o->doc, tui_hcomps_at(&o->hc, r));
		}
		return 1;
	}
	if (req == TUI_REQ_OVERVIEW) {
		tui_message(t, 0, "this is the overview");
		return 1;
	}
	if (req == TUI_REQ_DRAW) {
		int64_t r = tui_table_row(&o->comps), node = -1;
		hs_error err = {0};
		if (v->focus == 1 && r >= 0)
			node = o->doc->g->hcomps[tui_hcomps_at(&o->hc, r)].root;
		else if (o->doc->g->n_nodes > 0)
			node = query_session_split_root(o->doc->qs, o->doc->g->n_comps - 1, &err);
		if (node >= 0)
			tui_open_drawing(t, o->doc, node);
		else if (err.status)
			tui_message(t, 1, "%s", err.msg);
		return 1;
	}
	if (req == TUI_REQ_GOTO) {
		int64_t n = tui_doc_node_arg(t, o->doc, "goto", arg);
		if (n >= 0)
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
	free(o->op);
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
	if (count_opcodes(o) < 0) {
		ov_done(&(tui_view){.data = o});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	double rt[3];
	if (query_session_runtime_summary(d->qs, rt, &err) < 0) {
		ov_done(&(tui_view){.data = o});
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	o->rt_min = rt[0];
	o->rt_med = rt[1];
	o->rt_max = rt[2];
	o->best = g->labeled && g->n_configs > 0 ? graph_best_config(g) : -1;
	tui_table_init_spec(&o->ops, &op_table, o, o->nopcodes);
	if (tui_doc_is_module(d)) /* no configurable nodes to count */
		tui_table_del_col(&o->ops, tui_table_find_col(&o->ops, "cfg"));
	o->hc.doc = d;
	tui_hcomps_table_init(&o->comps, &o->hc, NULL);
	/* the big ones first: the entry and loop bodies before the reducers */
	tui_table_sort(&o->comps, tui_table_find_col(&o->comps, "nodes"), 1);
	o->comps.cur = o->comps.top = 0;
	snprintf(title, sizeof title, "%s", g->name);
	if (!tui_push(t, &ov_ops, o, d, title, &o->ops, &o->comps))
		return -1;
	if (g->warning) /* e.g. an unknown opcode id or a self-loop: opened, but damaged */
		tui_message(t, 0, "note: %s", g->warning);
	return 0;
}
