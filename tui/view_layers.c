/* view_layers.c - the model's own structure (`:layers`, `y`): the
 * namespaces of op_name (model/layers.h) as a tree with the numbers of the
 * instructions at or under each rolled up (query_layer_sums_make), the
 * sums of the data laid over the graph among them.  Enter or Right opens a
 * namespace, Left closes it (or goes to its parent), `*` opens everything;
 * a run of repeated sibling blocks is one row, "layer_0 ... layer_23: 24
 * repeats of one block", which Enter opens into its blocks.  Enter on a
 * namespace without children lists its nodes.  `[` / `]` sort siblings
 * among themselves: the tree stays.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/vec.h"
#include "tui/tui.h"

enum { LC_LAYER, LC_NODES, LC_COST, LC_FLOPS, LC_BYTES, LC_CFG, LC_OPCODES, LC_GROUP, LC_DATA = 100 };

typedef struct lrow {
	int64_t k, len;  /* a namespace, or a run of len repeats starting at k */
} lrow;

struct layers_view {
	tui_doc *doc;
	tui_table tab;
	const hs_layers *l;
	query_layer_sums sums;
	int64_t *run_len;      /* layers_runs */
	uint8_t *open;         /* [n] namespaces shown open */
	uint8_t *run_open;     /* [n] runs (by their first block) shown as blocks */
	HS_VEC(lrow) rows;
	int sort_key, sort_desc; /* siblings ordered by a column (-1: as first seen) */
};

/* ---- numbers -------------------------------------------------------------- */

static double row_num(const struct layers_view *o, const lrow *r, int key)
{
	const query_layer_sums *s = &o->sums;
	double sum = 0;
	int any = 0;
	int64_t k = r->k;
	if (key == LC_GROUP)
		return (double)o->l->v[k].repeat_group;
	for (int64_t i = 0; i < r->len && k >= 0; i++, k = layers_next_sibling(o->l, k)) {
		double x;
		switch (key) {
		case LC_NODES: x = (double)s->nodes[k]; break;
		case LC_COST: x = s->cost[k]; break;
		case LC_FLOPS: x = s->flops[k]; break;
		case LC_BYTES: x = s->bytes[k]; break;
		case LC_CFG: x = (double)s->configurable[k]; break;
		default:
			if (key < LC_DATA || key - LC_DATA >= s->n_data)
				return NAN;
			x = s->data[(size_t)k * (size_t)s->n_data + (size_t)(key - LC_DATA)];
		}
		if (!isnan(x)) {
			sum += x;
			any = 1;
		}
	}
	return any ? sum : NAN;
}

static double layer_value(void *ctx, int64_t row, const tui_col *c)
{
	struct layers_view *o = ctx;
	return row < (int64_t)o->rows.n ? row_num(o, &o->rows.v[row], c->key) : NAN;
}

static int has_children(const struct layers_view *o, const lrow *r)
{
	return r->len > 1 || o->l->v[r->k].first_child >= 0;
}

static int layer_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct layers_view *o = ctx;
	const lrow *r = &o->rows.v[row];
	const hs_layer *L = &o->l->v[r->k];

	switch (c->key) {
	case LC_LAYER: {
		char label[512];
		int utf = tui_utf8(), opened = r->len > 1 ? 0 : o->open[r->k];
		const char *mark = !has_children(o, r) ? "  " : opened ? (utf ? "\u25be " : "- ") : (utf ? "\u25b8 " : "+ ");
		if (r->len > 1)
			layers_run_label(o->l, r->k, r->len, label, sizeof label);
		else
			snprintf(label, sizeof label, "%s", L->name);
		snprintf(buf, cap, "%*s%s%s", 2 * (L->depth - 1), "", mark, label);
		return r->len > 1 ? TUI_C_MARK : L->first_child >= 0 ? TUI_C_HEADER : TUI_C_DEFAULT;
	}
	case LC_OPCODES:
		snprintf(buf, cap, "%s", query_layer_sums_mix(o->doc->qs, &o->sums, r->k));
		return TUI_C_DIM;
	case LC_GROUP:
		if (L->repeat_group)
			snprintf(buf, cap, "%lld", (long long)L->repeat_group);
		return TUI_C_DIM;
	case LC_COST:
	case LC_FLOPS:
	case LC_BYTES:
		if (tui_model_hidden(buf, cap))
			break;
		/* fall through */
	default: {
		double v = layer_value(o, row, c);
		if (c->unit != HS_U_NONE)
			hs_unit_format(buf, cap, c->unit, v, -1);
		else if (isnan(v))
			snprintf(buf, cap, "-");
		else
			snprintf(buf, cap, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.6g", v);
	}
	}
	return TUI_C_DEFAULT;
}

static const tui_table_ops layer_table_ops = {layer_cell, layer_value};

static const tui_col layer_cols[] = {
	{.name = "layer", .key = LC_LAYER, .width = 40},
	{.name = "nodes", .key = LC_NODES, .width = 7, .numeric = 1},
	{.name = "cost", .key = LC_COST, .width = 9, .numeric = 1, .unit = HS_U_SECONDS},
	{.name = "flops", .key = LC_FLOPS, .width = 11, .numeric = 1, .unit = HS_U_FLOP},
	{.name = "bytes", .key = LC_BYTES, .width = 10, .numeric = 1, .unit = HS_U_BYTES},
	{.name = "cfg", .key = LC_CFG, .width = 4, .numeric = 1},
	{.name = "opcodes", .key = LC_OPCODES, .width = 30},
	{.name = "repeat", .key = LC_GROUP, .width = 6, .numeric = 1},
};

static const tui_table_spec layer_table = {
	.ops = &layer_table_ops, .cols = layer_cols, .ncols = TUI_N(layer_cols), .frozen = 1,
};

/* ---- the rows shown ------------------------------------------------------------ */

static const struct layers_view *sort_view;

static int cmp_lrow(const void *a, const void *b)
{
	const lrow *x = a, *y = b;
	const struct layers_view *o = sort_view;
	int r;
	if (o->sort_key == LC_LAYER || o->sort_key == LC_OPCODES) {
		const char *p = o->sort_key == LC_LAYER ? o->l->v[x->k].name
							  : query_layer_sums_mix(o->doc->qs, (query_layer_sums *)&o->sums, x->k);
		const char *q = o->sort_key == LC_LAYER ? o->l->v[y->k].name
							  : query_layer_sums_mix(o->doc->qs, (query_layer_sums *)&o->sums, y->k);
		r = strcmp(p, q);
	} else {
		double u = row_num(o, x, o->sort_key), v = row_num(o, y, o->sort_key);
		if (isnan(u) || isnan(v))
			return isnan(u) != isnan(v) ? (isnan(u) ? 1 : -1) : (x->k > y->k) - (x->k < y->k);
		r = (u > v) - (u < v);
	}
	if (o->sort_desc)
		r = -r;
	return r ? r : (x->k > y->k) - (x->k < y->k);
}

/* The rows of the siblings from `first` (the top level when top) and,
 * under each open one, its children's. */
static int add_level(struct layers_view *o, int64_t first, int top)
{
	const hs_layers *l = o->l;
	HS_VEC(lrow) sib = {0};
	for (int64_t k = first; k >= 0; k = top ? layers_next_sibling(l, k) : l->v[k].next_sibling) {
		int64_t len = o->run_len[k];
		if (len == 0)
			continue;          /* a later block of a run */
		if (len > 1 && o->run_open[k]) {
			int64_t b = k;
			for (int64_t i = 0; i < len && b >= 0; i++, b = layers_next_sibling(l, b))
				if (hs_vec_push(&sib, ((lrow){b, 1})) != 0)
					goto oom;
		} else if (hs_vec_push(&sib, ((lrow){k, len})) != 0) {
			goto oom;
		}
	}
	if (o->sort_key >= 0) {
		sort_view = o;
		qsort(sib.v, sib.n, sizeof *sib.v, cmp_lrow);
	}
	for (size_t i = 0; i < sib.n; i++) {
		if (hs_vec_push(&o->rows, sib.v[i]) != 0)
			goto oom;
		int64_t k = sib.v[i].k;
		if (sib.v[i].len == 1 && o->open[k] && l->v[k].first_child >= 0 &&
		    add_level(o, l->v[k].first_child, 0) != 0)
			goto oom;
	}
	hs_vec_free(&sib);
	return 0;
oom:
	hs_vec_free(&sib);
	return -1;
}

/* Lays the rows out again, the cursor kept on namespace `keep` (or the row
 * of the run holding it). */
static int relayout(tui *t, struct layers_view *o, int64_t keep)
{
	o->rows.n = 0;
	if (o->l->n && add_level(o, 0, 1) != 0) {
		tui_message(t, 1, "out of memory laying out the layers");
		return -1;
	}
	tui_table_set_rows(&o->tab, (int64_t)o->rows.n);
	for (size_t i = 0; keep >= 0 && i < o->rows.n; i++) {
		const lrow *r = &o->rows.v[i];
		int64_t k = r->k;
		for (int64_t j = 0; j < r->len && k >= 0; j++, k = layers_next_sibling(o->l, k))
			if (k == keep) {
				tui_table_goto(&o->tab, (int64_t)i);
				return 0;
			}
	}
	return 0;
}

static const lrow *cursor_row(const struct layers_view *o)
{
	int64_t r = tui_table_row(&o->tab);
	return r >= 0 && r < (int64_t)o->rows.n ? &o->rows.v[r] : NULL;
}

/* ---- keys ------------------------------------------------------------------------ */

/* The nodes at or under namespace k, in node order. */
static void list_nodes(tui *t, struct layers_view *o, int64_t k)
{
	const hs_layers *l = o->l;
	const hs_graph *g = o->doc->g;
	HS_VEC(int64_t) ids = {0};
	for (int64_t v = 0; v < g->n_nodes; v++) {
		int64_t a = l->layer_of[v];
		while (a >= 0 && a != k)
			a = l->v[a].parent;
		if (a == k && hs_vec_push(&ids, v) != 0) {
			hs_vec_free(&ids);
			tui_message(t, 1, "out of memory listing the nodes of %s", l->v[k].path);
			return;
		}
	}
	char title[160];
	snprintf(title, sizeof title, "Layer %s", l->v[k].path);
	tui_open_node_list(t, o->doc, title, ids.v, (int64_t)ids.n);
	hs_vec_free(&ids);
}

static void open_all(struct layers_view *o)
{
	memset(o->open, 1, (size_t)o->l->n);
	memset(o->run_open, 1, (size_t)o->l->n);
}

static int layers_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct layers_view *o = v->data;
	const lrow *r = cursor_row(o);
	int64_t k = r ? r->k : -1;

	switch (req) {
	case TUI_REQ_ENTER:
	case TUI_REQ_RIGHT:
		if (!r)
			return 1;
		if (r->len > 1)
			o->run_open[k] = 1;
		else if (o->l->v[k].first_child >= 0)
			o->open[k] = req == TUI_REQ_RIGHT ? 1 : !o->open[k];
		else if (req == TUI_REQ_ENTER)
			list_nodes(t, o, k);
		else
			return 1;
		relayout(t, o, k);
		return 1;
	case TUI_REQ_LEFT:
		if (!r)
			return 1;
		if (r->len == 1 && o->open[k] && o->l->v[k].first_child >= 0) {
			o->open[k] = 0;
			relayout(t, o, k);
		} else if (o->l->v[k].parent >= 0) {
			int64_t p = o->l->v[k].parent; /* a run opened into blocks closes again */
			int64_t f = p >= 0 ? o->l->v[p].first_child : -1;
			for (; f >= 0; f = o->l->v[f].next_sibling)
				if (o->run_len[f] > 1 && o->run_open[f]) {
					int64_t b = f;
					for (int64_t i = 0; i < o->run_len[f] && b >= 0; i++, b = o->l->v[b].next_sibling)
						if (b == k) {
							o->run_open[f] = 0;
							relayout(t, o, f);
							return 1;
						}
				}
			relayout(t, o, p);
		}
		return 1;
	case TUI_REQ_EXPAND_ALL:
		open_all(o);
		relayout(t, o, k);
		return 1;
	case TUI_REQ_SORT_ASC:
	case TUI_REQ_SORT_DESC: {
		const tui_col *c = o->tab.ccol >= 0 && o->tab.ccol < o->tab.ncols ? &o->tab.cols[o->tab.ccol] : NULL;
		if (!c)
			return 1;
		o->sort_key = c->key;
		o->sort_desc = req == TUI_REQ_SORT_DESC;
		relayout(t, o, k);
		tui_message(t, 0, "siblings sorted by %s%s", c->name, o->sort_desc ? ", largest first" : "");
		return 1;
	}
	case TUI_REQ_DRAW:
		if (r && o->l->v[k].first_node >= 0)
			tui_open_drawing(t, o->doc, o->l->v[k].first_node);
		return 1;
	default:
		return 0;
	}
}

static void layers_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct layers_view *o = v->data;
	tui_table_draw(win, &o->tab, y, x, h, w, 1);
}

static void layers_done(tui_view *v)
{
	struct layers_view *o = v->data;
	tui_table_free(&o->tab);
	query_layer_sums_free(&o->sums);
	free(o->run_len);
	free(o->open);
	free(o->run_open);
	hs_vec_free(&o->rows);
	free(o);
}

static const tui_view_ops layers_ops = {
	.name = "layers", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS | TUI_S_TREE, .draw = layers_draw,
	.request = layers_request, .done = layers_done,
};

/* Opens the namespaces above node's layer (and the runs holding them). */
static int64_t open_down_to(struct layers_view *o, int64_t node)
{
	const hs_layers *l = o->l;
	int64_t k = l->layer_of[node];
	for (int64_t a = l->v[k].parent; a >= 0; a = l->v[a].parent)
		o->open[a] = 1;
	for (int64_t a = k; a >= 0; a = l->v[a].parent) {
		/* a block inside a folded run: open the run */
		int64_t p = l->v[a].parent, f = p >= 0 ? l->v[p].first_child : 0;
		for (; f >= 0 && f <= a; f = layers_next_sibling(l, f))
			if (o->run_len[f] > 1) {
				int64_t b = f;
				for (int64_t i = 0; i < o->run_len[f] && b >= 0; i++, b = layers_next_sibling(l, b))
					if (b == a && b != f)
						o->run_open[f] = 1;
			}
	}
	return k;
}

/* The one top-level namespace of the model's own (beside (top level) and
 * (no op_name)) opens, and so does each one below that is its parent's
 * only child. */
static void open_single(struct layers_view *o)
{
	const hs_layers *l = o->l;
	int64_t one = -1, n = 0;
	for (int64_t k = 0; k >= 0 && k < l->n; k = layers_next_sibling(l, k))
		if (strcmp(l->v[k].path, LAYER_TOP) != 0 && strcmp(l->v[k].path, LAYER_NONE) != 0) {
			one = k;
			n++;
		}
	for (int64_t k = n == 1 ? one : -1; k >= 0 && l->v[k].first_child >= 0; k = l->v[k].first_child) {
		o->open[k] = 1;
		if (l->v[l->v[k].first_child].next_sibling >= 0)
			break;
	}
}

int tui_open_layers(tui *t, tui_doc *d, int64_t node)
{
	struct layers_view *o = calloc(1, sizeof *o);
	hs_error err = {0};
	char title[200];

	if (!o) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	o->doc = d;
	o->sort_key = -1;
	if (!(o->l = query_session_layers(d->qs, &err)) || query_layer_sums_make(d->qs, NULL, &o->sums, &err) != 0) {
		free(o);
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	size_t n = (size_t)o->l->n + 1;
	o->run_len = malloc(n * sizeof *o->run_len);
	o->open = calloc(n, 1);
	o->run_open = calloc(n, 1);
	if (!o->run_len || !o->open || !o->run_open) {
		layers_done(&(tui_view){.data = o});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	layers_runs(o->l, o->run_len);
	tui_table_init_spec(&o->tab, &layer_table, o, 0);
	if ((d->g->kind == HS_KIND_MODULE) || d->g->kind == HS_KIND_TILE)
		tui_table_del_col(&o->tab, tui_table_find_col(&o->tab, "cfg"));
	for (int i = 0; i < o->sums.n_data; i++) { /* the data's numbers, summed */
		const char *name = o->sums.data_name[i];
		int w = (int)strlen(name);
		tui_table_add_col(&o->tab, name, LC_DATA + i, w < 9 ? 9 : w, 1);
	}
	snprintf(title, sizeof title, "Layers: %lld namespaces, depth %d, %lld repeat groups", (long long)o->l->n,
		 o->l->max_depth, (long long)o->l->n_groups);
	snprintf(o->tab.title, sizeof o->tab.title, "%s", title);
	int64_t at = -1;
	if (node >= 0 && node < d->g->n_nodes)
		at = open_down_to(o, node);
	else
		open_single(o);
	if (relayout(t, o, at) != 0) {
		layers_done(&(tui_view){.data = o});
		return -1;
	}
	return tui_push(t, &layers_ops, o, d, "Layers", &o->tab, NULL) ? 0 : -1;
}
