/* view_nodes.c - the node table: all nodes, those of one opcode, one HLO
 * computation or one node_splits segment, or a list from a query.  Names,
 * opcodes and shapes are as written in the HLO (derived on a bare .npz);
 * operands are the instruction's, in its order with repeats (on a bare
 * .npz the dataset's edges: graph.h, hlo_operand_off).  Any of the node
 * features and HLO fields can be added as a column.  Enter goes into the
 * computation a node calls (fusion, call, while, ...), or opens the node
 * detail of any other node; `i` opens the detail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/units.h"
#include "loader/hlo.h"
#include "loader/hlo_module.h"
#include "model/profile.h"
#include "tui/tui.h"

struct nodes {
	tui_doc *doc;
	tui_table tab;
	int64_t *ids; /* row -> node id */
	int64_t n;
	const cost_estimate *ce;
	const double *meas; /* a measured profile's time column (model/profile.h), or NULL */
	double meas_unit;   /* ... its unit in seconds */
};

enum { NC_ID, NC_NAME, NC_OPCODE, NC_SHAPE, NC_SPLIT, NC_OPS, NC_USERS, NC_CFG, NC_COST, NC_FLOPS,
       NC_BYTES, NC_SHARE, NC_CATEGORY, NC_OPERAND_NAMES, NC_USER_NAMES, NC_ROLE, NC_LAYER, NC_MEASURED, NC_MISS, NC_HFIELD = 500, NC_FEAT = 1000,
       NC_DATA = 100000 };

/* "a, b, c" of the names of n nodes list[0..n). */
static void names_text(const hs_graph *g, const int64_t *list, int64_t n, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int64_t k = 0; k < n && len + 1 < cap; k++) {
		int w = snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", graph_node_name(g, list[k]));
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Cell of an HLO field (graph_node_text). */
static void hfield_cell(const hs_graph *g, int64_t v, hs_hfield f, char *buf, size_t cap)
{
	const char *s = graph_node_text(g, v, f, buf, cap);
	if (s != buf)
		snprintf(buf, cap, "%s", s);
}

static double node_value(void *ctx, int64_t row, const tui_col *c);

/* Column i of the data laid over the graph (query_session_data), in file
 * order, or NULL. */
static const hs_overlay_col *data_col(const struct nodes *nd, int i)
{
	for (int k = 0; k < query_session_data_count(nd->doc->qs); k++) {
		const hs_overlay *o = query_session_data(nd->doc->qs, k);
		if (i < o->n_cols)
			return &o->cols[i];
		i -= o->n_cols;
	}
	return NULL;
}

/* Node v's layer (model/layers.h), "" when it cannot be had. */
static const char *layer_text(const struct nodes *nd, int64_t v)
{
	const hs_layers *l = query_session_layers(nd->doc->qs, NULL);
	return l ? layers_node_path(l, v) : "";
}

/* The texts the graph holds, as the cells show them whole (filters). */
static const char *node_text(void *ctx, int64_t row, const tui_col *c)
{
	struct nodes *nd = ctx;
	const hs_graph *g = nd->doc->g;
	int64_t v = nd->ids[row];

	switch (c->key) {
	case NC_OPCODE:
		return graph_node_opcode_name(g, v);
	case NC_CATEGORY:
		return hlo_category_name((hlo_category)(tui_node_class(g, v) - TUI_C_CAT));
	case NC_NAME:
		return graph_node_name(g, v);
	case NC_LAYER:
		return layer_text(nd, v);
	default:
		return NULL;
	}
}

static int node_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodes *nd = ctx;
	const hs_graph *g = nd->doc->g;
	int64_t v = nd->ids[row];

	switch (c->key) {
	case NC_ID:
		snprintf(buf, cap, "%lld", (long long)v);
		break;
	case NC_NAME:
		hfield_cell(g, v, HS_HF_NAME, buf, cap);
		return graph_n_called(g, v) ? TUI_C_HEADER : TUI_C_DEFAULT;
	case NC_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, v));
		return tui_node_class(g, v);
	case NC_CATEGORY:
		snprintf(buf, cap, "%s", hlo_category_name((hlo_category)(tui_node_class(g, v) - TUI_C_CAT)));
		return TUI_C_DIM;
	case NC_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape(nd->doc->qs, v));
		break;
	case NC_SPLIT:
		snprintf(buf, cap, "%d", g->comp_of[v]);
		break;
	case NC_OPERAND_NAMES:
		names_text(g, graph_hlo_operands(g, v), graph_hlo_n_operands(g, v), buf, cap);
		break;
	case NC_USER_NAMES:
		names_text(g, graph_hlo_users(g, v), graph_hlo_n_users(g, v), buf, cap);
		break;
	case NC_OPS:
		snprintf(buf, cap, "%lld", (long long)graph_hlo_n_operands(g, v));
		break;
	case NC_USERS:
		snprintf(buf, cap, "%lld", (long long)graph_hlo_n_users(g, v));
		break;
	case NC_ROLE:
		snprintf(buf, cap, "%s", graph_role_name(graph_node_role(g, v)));
		return TUI_C_DIM;
	case NC_CFG:
		if (g->cfg_index && g->cfg_index[v] >= 0) {
			snprintf(buf, cap, "%s", tui_utf8() ? "\u25c6" : "*");
			return TUI_C_MARK;
		}
		break;
	case NC_COST:
	case NC_FLOPS:
	case NC_BYTES:
	case NC_SHARE:
		if (tui_model_hidden(buf, cap))
			break;
		if (nd->ce && nd->ce[v].unknown) { /* a custom-call the model cannot cost */
			snprintf(buf, cap, "unknown");
			return TUI_C_DIM;
		}
		hs_unit_format(buf, cap, c->unit, node_value(nd, row, c), -1);
		break;
	case NC_LAYER:
		snprintf(buf, cap, "%s", layer_text(nd, v));
		break;
	case NC_MEASURED:
		hs_unit_format(buf, cap, HS_U_SECONDS, node_value(nd, row, c), -1);
		break;
	case NC_MISS: /* the ratio; it sorts by |log2| of it */
		if (!isnan(node_value(nd, row, c)) && !tui_model_hidden(buf, cap)) {
			double r = nd->ce[v].seconds / (nd->meas[v] * nd->meas_unit);
			snprintf(buf, cap, r >= 0.01 && r < 1000 ? "%.2fx" : "%.2gx", r);
		}
		break;
	default:
		if (c->key >= NC_DATA) {
			const hs_overlay_col *dc = data_col(nd, c->key - NC_DATA);
			if (dc && dc->numeric)
				hs_unit_format(buf, cap, HS_U_NONE, dc->num[v], -1);
			else if (dc && dc->text && dc->text[v])
				snprintf(buf, cap, "%s", dc->text[v]);
		} else if (c->key >= NC_FEAT)
			hs_unit_format(buf, cap, HS_U_NONE, graph_feat(g, v)[c->key - NC_FEAT], -1);
		else
			hfield_cell(g, v, (hs_hfield)(c->key - NC_HFIELD), buf, cap);
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
	case NC_SPLIT:
		return (double)g->comp_of[v];
	case NC_OPS:
		return (double)graph_hlo_n_operands(g, v);
	case NC_USERS:
		return (double)graph_hlo_n_users(g, v);
	case NC_CFG:
		return g->cfg_index && g->cfg_index[v] >= 0 ? 1 : 0;
	case NC_COST:   /* what it adds to the module's totals, as the query's fields */
	case NC_FLOPS:
	case NC_BYTES:
	case NC_SHARE: {
		if (!nd->ce || nd->ce[v].unknown)
			return NAN;
		int own = cost_role_executed(graph_node_role(g, v));
		if (c->key == NC_SHARE)
			return own ? NAN : nd->ce[v].seconds;
		if (!own)
			return 0;
		return c->key == NC_COST ? nd->ce[v].seconds : c->key == NC_FLOPS ? nd->ce[v].flops : nd->ce[v].bytes;
	}
	case NC_MEASURED:
		return nd->meas[v] * nd->meas_unit;
	case NC_MISS: { /* predicted / measured of what runs on its own, as |log2| */
		double m = nd->meas[v] * nd->meas_unit;
		if (nd->ce[v].unknown || !cost_role_executed(graph_node_role(g, v)) || !(m > 0) ||
		    !(nd->ce[v].seconds > 0))
			return NAN;
		return fabs(log2(nd->ce[v].seconds / m));
	}
	case NC_HFIELD + HS_HF_SOURCE_LINE: {
		char b[32];
		const char *txt = graph_node_text(g, v, HS_HF_SOURCE_LINE, b, sizeof b);
		return txt[0] ? strtod(txt, NULL) : NAN;
	}
	default:
		if (c->key >= NC_DATA) {
			const hs_overlay_col *dc = data_col(nd, c->key - NC_DATA);
			return dc && dc->numeric ? dc->num[v] : NAN;
		}
		return c->key >= NC_FEAT ? graph_feat(g, v)[c->key - NC_FEAT] : NAN;
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
	const hs_graph *g = nd->doc->g;
	int64_t v = nd->ids[row];

	if (!ranks_ready)
		make_ranks();
	/* opcodes as written (some outside the learned list) sort by their
	 * text; a bare .npz's are the learned names, in their order */
	if (c->key == NC_OPCODE)
		return g->knows & HM_KNOWS_NAMES ? NAN : opcode_rank[g->opcode[v]];
	if (c->key == NC_CATEGORY)
		return category_rank[tui_node_class(g, v) - TUI_C_CAT];
	return NAN;
}

static const tui_table_ops node_table_ops = {node_cell, node_value};

static const tui_col node_cols[] = {
	{.name = "id", .key = NC_ID, .width = 6, .numeric = 1},
	{.name = "name", .key = NC_NAME, .width = 18, .mid = 1},
	{.name = "opcode", .key = NC_OPCODE, .width = 14},
	{.name = "shape", .key = NC_SHAPE, .width = 24},
	{.name = "ops", .key = NC_OPS, .width = 4, .numeric = 1},
	{.name = "users", .key = NC_USERS, .width = 5, .numeric = 1},
	{.name = "cfg", .key = NC_CFG, .width = 3},
	{.name = "cost", .key = NC_COST, .width = 9, .numeric = 1, .unit = HS_U_SECONDS},
};

/* Besides these, every node feature can be added. */
static const tui_col node_extra_cols[] = {
	{.name = "computation", .key = NC_HFIELD + HS_HF_COMPUTATION, .width = 20, .mid = 1},
	{.name = "computation_role", .key = NC_ROLE, .width = 11},
	{.name = "split", .key = NC_SPLIT, .width = 5, .numeric = 1},
	{.name = "operand_names", .key = NC_OPERAND_NAMES, .width = 30},
	{.name = "user_names", .key = NC_USER_NAMES, .width = 30},
	{.name = "fusion_kind", .key = NC_HFIELD + HS_HF_FUSION_KIND, .width = 11},
	{.name = "op_type", .key = NC_HFIELD + HS_HF_OP_TYPE, .width = 16},
	{.name = "op_name", .key = NC_HFIELD + HS_HF_OP_NAME, .width = 30},
	{.name = "layer", .key = NC_LAYER, .width = 30},
	{.name = "source_file", .key = NC_HFIELD + HS_HF_SOURCE_FILE, .width = 30},
	{.name = "source_line", .key = NC_HFIELD + HS_HF_SOURCE_LINE, .width = 6, .numeric = 1},
	{.name = "custom_call_target", .key = NC_HFIELD + HS_HF_CUSTOM_CALL_TARGET, .width = 20},
	{.name = "sharding", .key = NC_HFIELD + HS_HF_SHARDING, .width = 20},
	{.name = "category", .key = NC_CATEGORY, .width = 13},
	{.name = "kernel_share", .key = NC_SHARE, .width = 9, .numeric = 1, .unit = HS_U_SECONDS},
	{.name = "flops", .key = NC_FLOPS, .width = 11, .numeric = 1, .unit = HS_U_FLOP},
	{.name = "bytes", .key = NC_BYTES, .width = 10, .numeric = 1, .unit = HS_U_BYTES},
};

static const tui_table_spec node_table = {
	.ops = &node_table_ops, .order = node_order, .text = node_text,
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
		if (node >= 0 && tui_open_called(t, nd->doc, node) == 0)
			tui_open_node(t, nd->doc, node);
		return 1;
	case TUI_REQ_DETAIL:
		if (node >= 0)
			tui_open_node(t, nd->doc, node);
		return 1;
	case TUI_REQ_DRAW:
		if (node >= 0)
			tui_open_drawing(t, nd->doc, node);
		return 1;
	case TUI_REQ_GOTO: {
		int64_t id = tui_doc_node_arg(t, nd->doc, "goto", arg);
		if (id < 0)
			return 1;
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
	.name = "nodes", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS | TUI_S_NODES, .draw = nodes_draw,
	.request = nodes_request, .done = nodes_done,
};

/* Takes ids. */
static int open_ids(tui *t, tui_doc *d, const char *title, int64_t *ids, int64_t n)
{
	struct nodes *nd = calloc(1, sizeof *nd);
	const hs_graph *g = d->g;
	hs_error err = {0};

	if (!nd) {
		free(ids);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	nd->doc = d;
	nd->ids = ids;
	nd->n = n;
	if (!(nd->ce = query_session_cost(d->qs, &err))) {
		free(ids);
		free(nd);
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	tui_table_init_spec(&nd->tab, &node_table, nd, n);
	if ((d->g->kind == HS_KIND_MODULE)) /* no configs: no configurable nodes to mark */
		tui_table_del_col(&nd->tab, tui_table_find_col(&nd->tab, "cfg"));
	for (int i = 0; i < g->feat_width; i++) {
		const char *name = hlo_node_feature_name(i, g->feat_width);
		int w = (int)strlen(name);
		tui_table_add_avail(&nd->tab, name, NC_FEAT + i, w < 8 ? 8 : w > 24 ? 24 : w, 1);
	}
	for (int k = 0; k < query_session_data_count(d->qs) && !nd->meas; k++) { /* a measured profile */
		const hs_overlay *o = query_session_data(d->qs, k);
		int col = profile_time_column(o, &nd->meas_unit);
		if (col >= 0 && tui_table_add_col(&nd->tab, "measured", NC_MEASURED, 9, 1) >= 0) {
			nd->meas = o->cols[col].num;
			nd->tab.cols[nd->tab.ncols - 1].unit = HS_U_SECONDS;
			tui_table_add_col(&nd->tab, "miss", NC_MISS, 7, 1);
		}
	}
	for (int i = 0; data_col(nd, i); i++) { /* the data laid over the graph: shown at once */
		const hs_overlay_col *dc = data_col(nd, i);
		int w = (int)strlen(dc->name);
		tui_table_add_col(&nd->tab, dc->name, NC_DATA + i, w < 9 ? 9 : w > 24 ? 24 : w, dc->numeric);
	}
	snprintf(nd->tab.title, sizeof nd->tab.title, "%s", title);
	return tui_push(t, &nodes_ops, nd, d, title, &nd->tab, NULL) ? 0 : -1;
}

int tui_open_nodes(tui *t, tui_doc *d, const char *opcode, int64_t split)
{
	const hs_graph *g = d->g;
	int64_t *ids = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *ids), n = 0;
	char title[160];

	if (!ids) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	if (split >= 0 && split < g->n_comps) {
		for (int64_t v = g->comp_start[split]; v < g->comp_start[split + 1]; v++)
			ids[n++] = v;
		snprintf(title, sizeof title, "Nodes of split %lld", (long long)split);
	} else if (opcode) {
		for (int64_t v = 0; v < g->n_nodes; v++)
			if (strcmp(graph_node_opcode_name(g, v), opcode) == 0)
				ids[n++] = v;
		snprintf(title, sizeof title, "Nodes: %s", opcode);
	} else {
		for (int64_t v = 0; v < g->n_nodes; v++)
			ids[n++] = v;
		snprintf(title, sizeof title, "Nodes");
	}
	return open_ids(t, d, title, ids, n);
}

int tui_open_hcomp(tui *t, tui_doc *d, int64_t c)
{
	const hs_graph *g = d->g;
	char title[160];

	if (c < 0 || c >= g->n_hcomps) {
		tui_message(t, 1, "no computation %lld", (long long)c);
		return -1;
	}
	const hs_hcomp *hc = &g->hcomps[c];
	int64_t *ids = malloc((size_t)(hc->count ? hc->count : 1) * sizeof *ids);
	if (!ids) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (int64_t k = 0; k < hc->count; k++)
		ids[k] = hc->first + k;
	tui_hcomp_label(g, c, title, sizeof title);
	return open_ids(t, d, title, ids, hc->count);
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
