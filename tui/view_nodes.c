/* view_nodes.c - the node table: all nodes, those of one opcode or
 * computation, or a list from a query.  Any of the node features can be
 * added as a column; Enter opens the node detail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "loader/hlo.h"
#include "tui/tui.h"

struct nodes {
	tui_doc *doc;
	tui_table tab;
	int64_t *ids; /* row -> node id */
	int64_t n;
	const cost_estimate *ce;
};

enum { NC_ID, NC_OPCODE, NC_SHAPE, NC_COMP, NC_OPS, NC_USERS, NC_CFG, NC_COST, NC_FLOPS, NC_BYTES,
       NC_CATEGORY, NC_FEAT = 1000 };

static void fmt_num(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%.4g", v);
}

static double node_value(void *ctx, int64_t row, const tui_col *c);

static int node_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodes *nd = ctx;
	const hs_graph *g = nd->doc->g;
	int64_t v = nd->ids[row];
	int op = g->opcode[v];

	switch (c->key) {
	case NC_ID:
		snprintf(buf, cap, "%lld", (long long)v);
		break;
	case NC_OPCODE:
		snprintf(buf, cap, "%s", hlo_opcode_name(op));
		return TUI_C_CAT + (int)hlo_opcode_category(op);
	case NC_CATEGORY:
		snprintf(buf, cap, "%s", hlo_category_name(hlo_opcode_category(op)));
		return TUI_C_DIM;
	case NC_SHAPE:
		snprintf(buf, cap, "%s", tui_doc_shape(nd->doc, v));
		break;
	case NC_COMP:
		snprintf(buf, cap, "%d", g->comp_of[v]);
		break;
	case NC_OPS:
		snprintf(buf, cap, "%lld", (long long)graph_n_operands(g, v));
		break;
	case NC_USERS:
		snprintf(buf, cap, "%lld", (long long)graph_n_users(g, v));
		break;
	case NC_CFG:
		if (g->cfg_index && g->cfg_index[v] >= 0) {
			snprintf(buf, cap, "%s", tui_utf8() ? "\u25c6" : "*");
			return TUI_C_MARK;
		}
		break;
	case NC_COST:
	case NC_FLOPS:
	case NC_BYTES:
		if (!tui_model_hidden(buf, cap))
			tui_unit_format(buf, cap, c->unit, node_value(nd, row, c));
		break;
	default:
		fmt_num(buf, cap, graph_feat(g, v)[c->key - NC_FEAT]);
		break;
	}
	return TUI_C_DEFAULT;
}

static double node_value(void *ctx, int64_t row, const tui_col *c)
{
	struct nodes *nd = ctx;
	const hs_graph *g = nd->doc->g;
	int64_t v = nd->ids[row];

	switch (c->key) {
	case NC_ID:
		return (double)v;
	case NC_COMP:
		return (double)g->comp_of[v];
	case NC_OPS:
		return (double)graph_n_operands(g, v);
	case NC_USERS:
		return (double)graph_n_users(g, v);
	case NC_CFG:
		return g->cfg_index && g->cfg_index[v] >= 0 ? 1 : 0;
	case NC_COST:
		return nd->ce ? nd->ce[v].seconds : NAN;
	case NC_FLOPS:
		return nd->ce ? nd->ce[v].flops : NAN;
	case NC_BYTES:
		return nd->ce ? nd->ce[v].bytes : NAN;
	case NC_OPCODE:
	case NC_SHAPE:
	case NC_CATEGORY:
		return NAN;
	default:
		return graph_feat(g, v)[c->key - NC_FEAT];
	}
}

/* Opcode and category names sort by their rank among the names. */
static int opcode_rank[256], category_rank[HLO_NCATEGORIES], ranks_ready;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(hlo_opcode_name(*(const int *)a), hlo_opcode_name(*(const int *)b));
}

static int cmp_cat(const void *a, const void *b)
{
	return strcmp(hlo_category_name((hlo_category) * (const int *)a),
		      hlo_category_name((hlo_category) * (const int *)b));
}

static void make_ranks(void)
{
	int ids[256], cats[HLO_NCATEGORIES];

	for (int i = 0; i < 256; i++)
		ids[i] = i;
	qsort(ids, 256, sizeof *ids, cmp_name);
	for (int i = 0; i < 256; i++)
		opcode_rank[ids[i]] = i;
	for (int i = 0; i < HLO_NCATEGORIES; i++)
		cats[i] = i;
	qsort(cats, HLO_NCATEGORIES, sizeof *cats, cmp_cat);
	for (int i = 0; i < HLO_NCATEGORIES; i++)
		category_rank[cats[i]] = i;
	ranks_ready = 1;
}

static double node_order(void *ctx, int64_t row, const tui_col *c)
{
	struct nodes *nd = ctx;
	int op = nd->doc->g->opcode[nd->ids[row]];

	if (!ranks_ready)
		make_ranks();
	if (c->key == NC_OPCODE)
		return opcode_rank[op];
	if (c->key == NC_CATEGORY)
		return category_rank[hlo_opcode_category(op)];
	return NAN;
}

static const tui_table_ops node_table_ops = {node_cell, node_value};

static const tui_col node_cols[] = {
	{.name = "id", .key = NC_ID, .width = 6, .numeric = 1},
	{.name = "opcode", .key = NC_OPCODE, .width = 20},
	{.name = "shape", .key = NC_SHAPE, .width = 30},
	{.name = "comp", .key = NC_COMP, .width = 4, .numeric = 1},
	{.name = "ops", .key = NC_OPS, .width = 4, .numeric = 1},
	{.name = "users", .key = NC_USERS, .width = 5, .numeric = 1},
	{.name = "cfg", .key = NC_CFG, .width = 3},
	{.name = "cost", .key = NC_COST, .width = 9, .numeric = 1, .unit = TUI_U_SECONDS},
};

/* Besides these, every node feature can be added. */
static const tui_col node_extra_cols[] = {
	{.name = "category", .key = NC_CATEGORY, .width = 13},
	{.name = "flops", .key = NC_FLOPS, .width = 11, .numeric = 1, .unit = TUI_U_FLOP},
	{.name = "bytes", .key = NC_BYTES, .width = 10, .numeric = 1, .unit = TUI_U_BYTES},
};

static const tui_table_spec node_table = {
	.ops = &node_table_ops, .order = node_order,
	.cols = node_cols, .ncols = TUI_N(node_cols),
	.avail = node_extra_cols, .navail = TUI_N(node_extra_cols),
	.frozen = 1,
};

static void nodes_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct nodes *nd = v->data;
	tui_table_draw(win, &nd->tab, y, x, h, w, 1);
}

static int64_t current_node(struct nodes *nd)
{
	int64_t r = tui_table_row(&nd->tab);
	return r < 0 ? -1 : nd->ids[r];
}

static int nodes_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct nodes *nd = v->data;
	int64_t node = current_node(nd);

	switch (req) {
	case TUI_REQ_ENTER:
		if (node >= 0)
			tui_open_node(t, nd->doc, node);
		return 1;
	case TUI_REQ_DRAW:
		if (node >= 0)
			tui_open_drawing(t, nd->doc, node);
		return 1;
	case TUI_REQ_GOTO: {
		int64_t id;
		if (hs_parse_i64(arg, &id) < 0 || id < 0 || id >= nd->doc->g->n_nodes) {
			tui_message(t, 1, "goto: node ids are 0..%lld", (long long)nd->doc->g->n_nodes - 1);
			return 1;
		}
		for (int64_t i = 0; i < nd->tab.nidx; i++)
			if (nd->ids[nd->tab.idx[i]] == id) {
				nd->tab.cur = i;
				return 1;
			}
		tui_open_node(t, nd->doc, id);
		return 1;
	}
	default:
		return 0;
	}
}

static void nodes_done(tui_view *v)
{
	struct nodes *nd = v->data;
	tui_table_free(&nd->tab);
	free(nd->ids);
	free(nd);
}

static const tui_view_ops nodes_ops = {
	.name = "nodes", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = nodes_draw,
	.request = nodes_request, .done = nodes_done,
};

/* Takes ids. */
static int open_ids(tui *t, tui_doc *d, const char *title, int64_t *ids, int64_t n)
{
	struct nodes *nd = calloc(1, sizeof *nd);
	const hs_graph *g = d->g;

	if (!nd) {
		free(ids);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	nd->doc = d;
	nd->ids = ids;
	nd->n = n;
	nd->ce = tui_doc_cost(d);
	tui_table_init_spec(&nd->tab, &node_table, nd, n);
	for (int i = 0; i < g->feat_width; i++) {
		const char *name = hlo_node_feature_name(i, g->feat_width);
		int w = (int)strlen(name);
		tui_table_add_avail(&nd->tab, name, NC_FEAT + i, w < 8 ? 8 : w > 24 ? 24 : w, 1);
	}
	snprintf(nd->tab.title, sizeof nd->tab.title, "%s", title);
	return tui_push(t, &nodes_ops, nd, d, title, &nd->tab, NULL) ? 0 : -1;
}

int tui_open_nodes(tui *t, tui_doc *d, int opcode, int64_t comp)
{
	const hs_graph *g = d->g;
	int64_t *ids = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *ids), n = 0;
	char title[160];

	if (!ids) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	if (comp >= 0 && comp < g->n_comps) {
		for (int64_t v = g->comp_start[comp]; v < g->comp_start[comp + 1]; v++)
			ids[n++] = v;
		snprintf(title, sizeof title, "Nodes of computation %lld", (long long)comp);
	} else if (opcode >= 0) {
		for (int64_t v = 0; v < g->n_nodes; v++)
			if (g->opcode[v] == opcode)
				ids[n++] = v;
		snprintf(title, sizeof title, "Nodes: %s", hlo_opcode_name(opcode));
	} else {
		for (int64_t v = 0; v < g->n_nodes; v++)
			ids[n++] = v;
		snprintf(title, sizeof title, "Nodes");
	}
	return open_ids(t, d, title, ids, n);
}

int tui_open_node_list(tui *t, tui_doc *d, const char *title, const int64_t *ids, int64_t n)
{
	int64_t *copy = malloc((size_t)(n ? n : 1) * sizeof *copy), k = 0;

	if (!copy) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (int64_t i = 0; i < n; i++)
		if (ids[i] >= 0 && ids[i] < d->g->n_nodes)
			copy[k++] = ids[i];
	return open_ids(t, d, title, copy, k);
}
