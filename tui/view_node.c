/* view_node.c - one node: its HLO name, computation, shape, called
 * computations and metadata (the fields a bare .npz lacks are left out),
 * its HLO line and attributes as the module writes them, its non-zero
 * features grouped as the dataset documents them, and a list to jump
 * through: its operands in the instruction's order (an operand used twice
 * is listed twice, each with its index), its users, the computations it
 * calls, and, inside a called computation, the nodes that call it (for a
 * parameter, with the caller's operand it stands for: graph_param_source).
 * `u` goes up to the caller; `<` and `>` walk the history of jumps.  The
 * lines above the panes are node_head.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/strbuf.h"
#include "loader/hlo.h"
#include "loader/hlo_print.h"
#include "tui/node_view.h"

enum { FC_GROUP, FC_NAME, FC_INDEX, FC_VALUE };
enum { BC_REL, BC_ID, BC_NAME, BC_OPCODE, BC_SHAPE };
enum { AC_NAME, AC_VALUE };

static int feat_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodeview *nv = ctx;
	const hs_graph *g = nv->doc->g;
	int i = nv->feat[row];
	float val = graph_feat(g, nv->node)[i];

	switch (c->key) {
	case FC_GROUP:
		snprintf(buf, cap, "%s", hlo_group_name(hlo_node_feature_group(i, g->feat_width)));
		return TUI_C_SECTION;
	case FC_NAME:
		snprintf(buf, cap, "%s", hlo_node_feature_name(i, g->feat_width));
		break;
	case FC_INDEX:
		snprintf(buf, cap, "%d", i);
		return TUI_C_DIM;
	case FC_VALUE:
		if (val == floorf(val) && fabsf(val) < 1e9f)
			snprintf(buf, cap, "%.0f", (double)val);
		else
			snprintf(buf, cap, "%.6g", (double)val);
		break;
	}
	return TUI_C_DEFAULT;
}

static double feat_value(void *ctx, int64_t row, const tui_col *c)
{
	struct nodeview *nv = ctx;
	if (c->key == FC_VALUE)
		return graph_feat(nv->doc->g, nv->node)[nv->feat[row]];
	if (c->key == FC_INDEX)
		return nv->feat[row];
	return NAN;
}

static const tui_table_ops feat_table_ops = {feat_cell, feat_value};

/* The attributes of the node's HLO line, as written. */
static int attr_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodeview *nv = ctx;
	const hm_attr *a = &nv->attr[row];

	if (c->key == AC_NAME) {
		snprintf(buf, cap, "%s", a->name);
		return TUI_C_HEADER;
	}
	snprintf(buf, cap, "%s", a->value);
	return TUI_C_DEFAULT;
}

static const tui_table_ops attr_table_ops = {attr_cell, NULL};

/* A row of the list that is a computation the node calls. */
static int call_cell(struct nodeview *nv, int64_t c, const tui_col *col, char *buf, size_t cap)
{
	const hs_graph *g = nv->doc->g;
	const char *s;

	switch (col->key) {
	case BC_REL:
		snprintf(buf, cap, "calls");
		return TUI_C_MARK;
	case BC_NAME:
		s = graph_hcomp_name(g, c);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		break;
	case BC_OPCODE:
		snprintf(buf, cap, "%s", graph_role_name(g->hcomps[c].role));
		return TUI_C_DIM;
	case BC_SHAPE:
		snprintf(buf, cap, "%lld node%s", (long long)g->hcomps[c].count, hs_s(g->hcomps[c].count));
		return TUI_C_DIM;
	}
	return TUI_C_DEFAULT;
}

/* The relation column: "operand 2", "user", "caller", "its operand 3". */
static int rel_cell(const struct nodeview *nv, const struct nbr *b, char *buf, size_t cap)
{
	switch (b->kind) {
	case NB_OPERAND:
		if ((nv->doc->g->knows & HM_KNOWS_OPERAND_ORDER))
			snprintf(buf, cap, "operand %lld", (long long)b->index);
		else
			snprintf(buf, cap, "operand");
		return TUI_C_HEADER;
	case NB_USER:
		snprintf(buf, cap, "user");
		return TUI_C_GOOD;
	case NB_CALLER:
		snprintf(buf, cap, "caller");
		return TUI_C_MARK;
	default: /* NB_SOURCE */
		snprintf(buf, cap, "%s operand %lld", tui_utf8() ? "\u21b3" : ">", (long long)b->index);
		return TUI_C_MARK;
	}
}

static int nbr_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodeview *nv = ctx;
	const hs_graph *g = nv->doc->g;
	const struct nbr *b = &nv->nbr[row];
	const char *s;

	if (b->kind == NB_CALL)
		return call_cell(nv, b->node, c, buf, cap);
	switch (c->key) {
	case BC_REL:
		return rel_cell(nv, b, buf, cap);
	case BC_ID:
		snprintf(buf, cap, "%lld", (long long)b->node);
		break;
	case BC_NAME:
		s = graph_node_name(g, b->node);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		break;
	case BC_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, b->node));
		return tui_node_class(g, b->node);
	case BC_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape(nv->doc->qs, b->node));
		break;
	}
	return TUI_C_DEFAULT;
}

static double nbr_value(void *ctx, int64_t row, const tui_col *c)
{
	struct nodeview *nv = ctx;
	if (c->key == BC_ID && nv->nbr[row].kind != NB_CALL)
		return (double)nv->nbr[row].node;
	return NAN;
}

static const tui_table_ops nbr_table_ops = {nbr_cell, nbr_value};

static const tui_col feat_cols[] = {
	{.name = "group", .key = FC_GROUP, .width = 9},
	{.name = "feature", .key = FC_NAME, .width = 33},
	{.name = "value", .key = FC_VALUE, .width = 9, .numeric = 1},
};

static const tui_col feat_extra_cols[] = {
	{.name = "index", .key = FC_INDEX, .width = 5, .numeric = 1},
};

static const tui_table_spec feat_table = {
	.ops = &feat_table_ops, .title = "Non-zero features",
	.cols = feat_cols, .ncols = TUI_N(feat_cols),
	.avail = feat_extra_cols, .navail = TUI_N(feat_extra_cols), .ccol = 1,
};

static const tui_col attr_cols[] = {
	{.name = "attribute", .key = AC_NAME, .width = 14},
	{.name = "value", .key = AC_VALUE, .width = 40},
};

static const tui_table_spec attr_table = {
	.ops = &attr_table_ops, .title = "Attributes (as written)",
	.cols = attr_cols, .ncols = TUI_N(attr_cols), .ccol = 1,
};

static const tui_col nbr_cols[] = {
	{.name = "", .key = BC_REL, .width = 10},
	{.name = "id", .key = BC_ID, .width = 6, .numeric = 1},
	{.name = "name", .key = BC_NAME, .width = 18, .mid = 1},
	{.name = "opcode", .key = BC_OPCODE, .width = 12},
	{.name = "shape", .key = BC_SHAPE, .width = 20},
};

static const tui_table_spec nbr_table = {
	.ops = &nbr_table_ops, .title = "Operands and users",
	.cols = nbr_cols, .ncols = TUI_N(nbr_cols), .ccol = 2, /* / searches the names */
};

static int cmp_feat_group(const void *a, const void *b, void *ctx)
{
	int w = *(const int *)ctx, x = *(const int *)a, y = *(const int *)b;
	int gx = (int)hlo_node_feature_group(x, w), gy = (int)hlo_node_feature_group(y, w);
	if (gx != gy)
		return gx - gy;
	return x - y;
}

/* Appends a row to the list; -1 when out of memory. */
static int add_nbr(struct nodeview *nv, int kind, int64_t node, int64_t index, int64_t via)
{
	if (nv->nnbr == nv->capnbr) {
		int64_t nc = nv->capnbr ? nv->capnbr * 2 : 16;
		struct nbr *p = realloc(nv->nbr, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		nv->nbr = p;
		nv->capnbr = nc;
	}
	nv->nbr[nv->nnbr++] = (struct nbr){.kind = kind, .node = node, .index = index, .via = via};
	return 0;
}

/* The list: operands in order, users, calls; inside a called computation
 * its callers (a parameter's with the operand each passes it), for a
 * parameter or the computation's root. */
static int load_nbrs(struct nodeview *nv)
{
	const hs_graph *g = nv->doc->g;
	int64_t v = nv->node, np = graph_hlo_n_operands(g, v), nu = graph_hlo_n_users(g, v);
	const hs_hcomp *hc = &g->hcomps[g->hcomp_of[v]];
	int rc = 0;

	nv->nnbr = 0;
	for (int64_t k = 0; k < np && rc == 0; k++)
		rc = add_nbr(nv, NB_OPERAND, graph_hlo_operands(g, v)[k], k, -1);
	for (int64_t k = 0; k < nu && rc == 0; k++)
		rc = add_nbr(nv, NB_USER, graph_hlo_users(g, v)[k], -1, -1);
	for (int64_t k = 0; k < graph_n_called(g, v) && rc == 0; k++)
		rc = add_nbr(nv, NB_CALL, g->called_idx[g->called_off[v] + k], -1, -1);
	if (graph_param_number(g, v) < 0 && hc->root != v)
		return rc;
	for (int64_t k = 0; k < hc->n_callers && rc == 0; k++) {
		int64_t caller = g->hcomp_callers[hc->callers_at + k];
		rc = add_nbr(nv, NB_CALLER, caller, -1, -1);
		int64_t src = (g->knows & HM_KNOWS_OPERAND_ORDER) && graph_param_number(g, v) >= 0 ? graph_param_source(g, v, caller) : -1;
		if (rc == 0 && src >= 0)
			rc = add_nbr(nv, NB_SOURCE, src, graph_param_operand(g, v, caller), caller);
	}
	return rc;
}

/* The HLO line and its attributes (none on a bare .npz). */
static int load_attrs(struct nodeview *nv)
{
	const hs_graph *g = nv->doc->g;
	const hm_instr *in = graph_node_instr(g, nv->node);
	hs_strbuf_reset(&nv->hline);
	free(nv->attr);
	nv->attr = NULL;
	nv->nattr = 0;
	if (graph_node_hlo(g, nv->node, &nv->hline) < 0)
		return -1;
	if (in && (nv->nattr = hm_instr_attr_list(g->module, in, &nv->attr)) < 0) {
		nv->nattr = 0;
		return -1;
	}
	return 0;
}

/* Rebuilds the panes for nv->node. */
static int load_node(struct nodeview *nv)
{
	const hs_graph *g = nv->doc->g;
	int64_t v = nv->node;
	const float *f = graph_feat(g, v);
	int w = g->feat_width;

	nv->nfeat = 0;
	for (int i = 0; i < w; i++)
		if (f[i] != 0)
			nv->feat[nv->nfeat++] = i;
	qsort_r(nv->feat, (size_t)nv->nfeat, sizeof *nv->feat, cmp_feat_group, &w);
	if (load_nbrs(nv) < 0 || load_attrs(nv) < 0)
		return -1;
	tui_table_set_rows(&nv->feats, nv->nfeat);
	tui_table_refresh(&nv->feats);
	tui_table_set_rows(&nv->attrs, nv->nattr);
	tui_table_refresh(&nv->attrs);
	int calls = graph_n_called(g, v) > 0, callers = nv->nnbr > 0 && nv->nbr[nv->nnbr - 1].kind >= NB_CALLER;
	snprintf(nv->nbrs.title, sizeof nv->nbrs.title, "%s%s%s", calls || callers ? "Operands, users" : "Operands and users",
		 calls ? (callers ? ", calls" : " and calls") : "", callers ? " and callers" : "");
	tui_table_set_rows(&nv->nbrs, nv->nnbr);
	tui_table_refresh(&nv->nbrs);
	return 0;
}

static void set_title(tui_view *v, struct nodeview *nv)
{
	snprintf(v->title, sizeof v->title, "Node %lld", (long long)nv->node);
}

/* Shows node `to`, recorded in the history. */
static void show_node(tui *t, tui_view *v, struct nodeview *nv, int64_t to)
{
	if (nv->hpos + 2 > nv->caphist) {
		int nc = nv->caphist * 2 + 16;
		int64_t *p = realloc(nv->hist, (size_t)nc * sizeof *p);
		if (!p) {
			tui_message(t, 1, "out of memory");
			return;
		}
		nv->hist = p;
		nv->caphist = nc;
	}
	nv->hist[++nv->hpos] = to;
	nv->nhist = nv->hpos + 1;
	nv->node = to;
	if (load_node(nv) < 0)
		tui_message(t, 1, "out of memory");
	if (tui_focused_table(v) == &nv->attrs && nv->nattr == 0)
		v->focus = 0;
	set_title(v, nv);
}

static void jump(tui *t, tui_view *v, struct nodeview *nv, int64_t to)
{
	if (to != nv->node)
		show_node(t, v, nv, to);
}

static void node_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct nodeview *nv = v->data;
	int used = node_head_draw(nv, win, y, x, w, h, 8);

	y += used;
	h -= used;
	/* the panes share the width as their columns need it: features and
	 * attributes on the left, the list on the right */
	int nl = tui_table_cols_needed(&nv->feats, h - 2), nr = tui_table_cols_needed(&nv->nbrs, h - 2), lw;
	int na = nv->has_attrs ? tui_table_cols_needed(&nv->attrs, h - 2) : 0;
	nl = na > nl ? (na < 64 ? na : nl > 64 ? nl : 64) : nl;
	if (nl + 1 + nr <= w)
		lw = nl + 1 + (w - nl - 1 - nr) / 2;
	else
		lw = (int)((long)w * nl / (nl + nr > 0 ? nl + nr : 1));
	if (lw < w * 3 / 10)
		lw = w * 3 / 10;
	if (lw > w * 7 / 10)
		lw = w * 7 / 10;
	tui_table *focused = tui_focused_table(v);
	if (nv->has_attrs && nv->nattr > 0) {
		int top = tui_split_rows(h, tui_table_rows_needed(&nv->attrs), tui_table_rows_needed(&nv->feats));
		tui_table_draw(win, &nv->attrs, y, x, top, lw - 1, focused == &nv->attrs);
		tui_table_draw(win, &nv->feats, y + top, x, h - top, lw - 1, focused == &nv->feats);
	} else {
		tui_table_draw(win, &nv->feats, y, x, h, lw - 1, focused == &nv->feats);
		nv->attrs.h = nv->attrs.w = 0; /* not drawn: no mouse click lands in it */
	}
	tui_table_draw(win, &nv->nbrs, y, x + lw, h, w - lw, focused == &nv->nbrs);
}

/* The row of the list under the cursor, or NULL. */
static const struct nbr *cursor_nbr(struct nodeview *nv)
{
	int64_t r = tui_table_row(&nv->nbrs);
	return r >= 0 && r < nv->nnbr ? &nv->nbr[r] : NULL;
}

/* `u`: from a parameter to the operand it stands for in its caller (the
 * caller under the cursor, else the first), else to the caller. */
static void go_up(tui *t, tui_view *v, struct nodeview *nv)
{
	const hs_graph *g = nv->doc->g;
	const hs_hcomp *hc = &g->hcomps[g->hcomp_of[nv->node]];
	const struct nbr *cur = v->focus >= 0 && tui_focused_table(v) == &nv->nbrs ? cursor_nbr(nv) : NULL;
	int64_t caller = -1;

	if (cur && cur->kind == NB_SOURCE)
		caller = cur->via;
	else if (cur && cur->kind == NB_CALLER)
		caller = cur->node;
	else if (hc->n_callers > 0)
		caller = g->hcomp_callers[hc->callers_at];
	if (caller < 0) {
		tui_message(t, 1, "%s is in the %s computation: nothing calls it",
			    graph_node_name(g, nv->node), graph_role_name(hc->role));
		return;
	}
	int64_t src = (g->knows & HM_KNOWS_OPERAND_ORDER) && graph_param_number(g, nv->node) >= 0
			      ? graph_param_source(g, nv->node, caller) : -1;
	if (src >= 0) {
		tui_message(t, 0, "parameter %lld stands for operand %lld of %s", (long long)graph_param_number(g, nv->node),
			    (long long)graph_param_operand(g, nv->node, caller), graph_node_name(g, caller));
		jump(t, v, nv, src);
	} else {
		tui_message(t, 0, "%s calls %s", graph_node_name(g, caller),
			    graph_hcomp_name(g, g->hcomp_of[nv->node]));
		jump(t, v, nv, caller);
	}
}

static void history(tui *t, tui_view *v, struct nodeview *nv, tui_req req)
{
	int np = nv->hpos + (req == TUI_REQ_HIST_BACK ? -1 : 1);
	if (np < 0 || np >= nv->nhist) {
		tui_message(t, 1, "no %s in the jump history", req == TUI_REQ_HIST_BACK ? "earlier node" : "later node");
		return;
	}
	int64_t from = nv->node;
	nv->hpos = np;
	nv->node = nv->hist[np];
	if (load_node(nv) < 0)
		tui_message(t, 1, "out of memory");
	if (tui_focused_table(v) == &nv->attrs && nv->nattr == 0)
		v->focus = 0;
	set_title(v, nv);
	/* keep the cursor on where we came from when going back */
	for (int64_t i = 0; i < nv->nbrs.nidx; i++)
		if (nv->nbr[nv->nbrs.idx[i]].kind != NB_CALL && nv->nbr[nv->nbrs.idx[i]].node == from) {
			nv->nbrs.cur = i;
			break;
		}
}

static int node_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct nodeview *nv = v->data;

	switch (req) {
	case TUI_REQ_ENTER: {
		if (tui_focused_table(v) != &nv->nbrs) {
			v->focus = 0;
			tui_message(t, 0, "pick an operand, user, call or caller, then Enter");
			return 1;
		}
		const struct nbr *b = cursor_nbr(nv);
		if (b && b->kind == NB_CALL)
			tui_open_hcomp(t, nv->doc, b->node);
		else if (b)
			jump(t, v, nv, b->node);
		return 1;
	}
	case TUI_REQ_HIST_BACK:
	case TUI_REQ_HIST_FWD:
		history(t, v, nv, req);
		return 1;
	case TUI_REQ_NEXT_PANE: /* the attributes pane only when the node has some */
		v->focus = (v->focus + 1) % v->npanes;
		if (v->pane[v->focus] == &nv->attrs && nv->nattr == 0)
			v->focus = (v->focus + 1) % v->npanes;
		return 1;
	case TUI_REQ_CALLER:
		go_up(t, v, nv);
		return 1;
	case TUI_REQ_LAYERS: /* the layers tree, down to this node's layer */
		tui_open_layers(t, nv->doc, nv->node);
		return 1;
	case TUI_REQ_DRAW:
		tui_open_drawing(t, nv->doc, nv->node);
		return 1;
	case TUI_REQ_GOTO: {
		int64_t id = tui_doc_node_arg(t, nv->doc, "goto", arg);
		if (id >= 0)
			jump(t, v, nv, id);
		return 1;
	}
	default:
		return 0;
	}
}

static void node_done(tui_view *v)
{
	struct nodeview *nv = v->data;
	tui_table_free(&nv->feats);
	tui_table_free(&nv->nbrs);
	tui_table_free(&nv->attrs);
	hs_strbuf_free(&nv->hline);
	free(nv->attr);
	free(nv->feat);
	free(nv->nbr);
	free(nv->hist);
	free(nv);
}

static const tui_view_ops node_ops = {
	.name = "node", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_NODE | TUI_S_OPENS, .draw = node_draw,
	.request = node_request, .done = node_done,
};

int tui_open_node(tui *t, tui_doc *d, int64_t node)
{
	struct nodeview *nv;
	hs_error err = {0};

	if (node < 0 || node >= d->g->n_nodes) {
		tui_message(t, 1, "no node %lld (ids are 0..%lld)", (long long)node,
			    (long long)d->g->n_nodes - 1);
		return -1;
	}
	if (!query_session_cost(d->qs, &err)) { /* the analytic time in the head */
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	nv = calloc(1, sizeof *nv);
	if (!nv || !(nv->feat = malloc((size_t)(d->g->feat_width + 1) * sizeof *nv->feat)) ||
	    !(nv->hist = malloc(16 * sizeof *nv->hist))) {
		if (nv)
			free(nv->feat);
		free(nv);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	nv->caphist = 16;
	nv->doc = d;
	nv->node = node;
	nv->hist[0] = node;
	nv->nhist = 1;
	nv->has_attrs = (d->g->knows & HM_KNOWS_ATTRS) != 0;   /* a bare .npz keeps none */
	tui_table_init_spec(&nv->feats, &feat_table, nv, 0);
	tui_table_init_spec(&nv->nbrs, &nbr_table, nv, 0);
	tui_table_init_spec(&nv->attrs, &attr_table, nv, 0);
	if (load_node(nv) < 0) {
		node_done(&(tui_view){.data = nv});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	tui_view *v = tui_push(t, &node_ops, nv, d, "Node", &nv->nbrs, &nv->feats);
	if (!v)
		return -1;
	if (nv->has_attrs)
		tui_view_add_pane(v, &nv->attrs);
	set_title(v, nv);
	return 0;
}
