/* view_node.c - one node: its HLO name, computation, shape, called
 * computations and metadata (the fields a bare .npz lacks are left out),
 * its non-zero features grouped as the dataset documents them, its
 * operands, users and called computations as a list to jump through, and
 * a back/forward history of jumps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/plural.h"
#include "loader/hlo.h"
#include "tui/tui.h"

struct nodeview {
	tui_doc *doc;
	int64_t node;
	tui_table feats, nbrs;
	int *feat;       /* feature indices shown */
	int nfeat;
	int64_t *nbr;    /* operand ids, user ids, then called computations */
	int64_t nops, nusers, nnbr;
	int64_t *hist;   /* jump history */
	int nhist, hpos, caphist;
};

enum { FC_GROUP, FC_NAME, FC_INDEX, FC_VALUE };
enum { BC_REL, BC_ID, BC_NAME, BC_OPCODE, BC_SHAPE };

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

/* A row of the calls (after operands and users): a computation. */
static int call_cell(struct nodeview *nv, int64_t c, const tui_col *col, char *buf, size_t cap)
{
	const hs_graph *g = nv->doc->g;
	const char *s;

	switch (col->key) {
	case BC_REL:
		snprintf(buf, cap, "calls");
		return TUI_C_MARK;
	case BC_NAME:
		s = graph_hcomp_name(g, c, buf, cap);
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

static int nbr_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct nodeview *nv = ctx;
	const hs_graph *g = nv->doc->g;
	int64_t v = nv->nbr[row];
	const char *s;

	if (row >= nv->nops + nv->nusers)
		return call_cell(nv, v, c, buf, cap);
	switch (c->key) {
	case BC_REL:
		if (row < nv->nops)
			snprintf(buf, cap, "operand %lld", (long long)row);
		else
			snprintf(buf, cap, "user");
		return row < nv->nops ? TUI_C_HEADER : TUI_C_GOOD;
	case BC_ID:
		snprintf(buf, cap, "%lld", (long long)v);
		break;
	case BC_NAME:
		s = graph_node_name(g, v, buf, cap);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		break;
	case BC_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, v));
		return tui_node_class(g, v);
	case BC_SHAPE:
		snprintf(buf, cap, "%s", tui_doc_shape(nv->doc, v));
		break;
	}
	return TUI_C_DEFAULT;
}

static double nbr_value(void *ctx, int64_t row, const tui_col *c)
{
	struct nodeview *nv = ctx;
	if (c->key == BC_ID && row < nv->nops + nv->nusers)
		return (double)nv->nbr[row];
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

static const tui_col nbr_cols[] = {
	{.name = "", .key = BC_REL, .width = 10},
	{.name = "id", .key = BC_ID, .width = 6, .numeric = 1},
	{.name = "name", .key = BC_NAME, .width = 18},
	{.name = "opcode", .key = BC_OPCODE, .width = 12},
	{.name = "shape", .key = BC_SHAPE, .width = 20},
};

static const tui_table_spec nbr_table = {
	.ops = &nbr_table_ops, .title = "Operands and users",
	.cols = nbr_cols, .ncols = TUI_N(nbr_cols), .ccol = 1,
};

static int cmp_feat_group(const void *a, const void *b, void *ctx)
{
	int w = *(const int *)ctx, x = *(const int *)a, y = *(const int *)b;
	int gx = (int)hlo_node_feature_group(x, w), gy = (int)hlo_node_feature_group(y, w);
	if (gx != gy)
		return gx - gy;
	return x - y;
}

/* Rebuilds both panes for nv->node. */
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
	nv->nops = graph_n_operands(g, v);
	nv->nusers = graph_n_users(g, v);
	nv->nnbr = nv->nops + nv->nusers + graph_n_called(g, v);
	free(nv->nbr);
	nv->nbr = malloc((size_t)(nv->nnbr ? nv->nnbr : 1) * sizeof *nv->nbr);
	if (!nv->nbr)
		return -1;
	for (int64_t k = 0; k < nv->nops; k++)
		nv->nbr[k] = g->operand_idx[g->operand_off[v] + k];
	for (int64_t k = 0; k < nv->nusers; k++)
		nv->nbr[nv->nops + k] = g->user_idx[g->user_off[v] + k];
	for (int64_t k = nv->nops + nv->nusers; k < nv->nnbr; k++)
		nv->nbr[k] = g->called_idx[g->called_off[v] + k - nv->nops - nv->nusers];
	tui_table_set_rows(&nv->feats, nv->nfeat);
	tui_table_refresh(&nv->feats);
	nv->feats.cur = 0;
	snprintf(nv->nbrs.title, sizeof nv->nbrs.title, "%s",
		 nv->nnbr > nv->nops + nv->nusers ? "Operands, users and calls" : "Operands and users");
	tui_table_set_rows(&nv->nbrs, nv->nnbr);
	tui_table_refresh(&nv->nbrs);
	nv->nbrs.cur = 0;
	return 0;
}

static void set_title(tui_view *v, struct nodeview *nv)
{
	snprintf(v->title, sizeof v->title, "Node %lld", (long long)nv->node);
}

static void jump(tui *t, tui_view *v, struct nodeview *nv, int64_t to)
{
	if (to == nv->node)
		return;
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
	load_node(nv);
	set_title(v, nv);
}

/* " analytic time 2.41 ms = max(compute ..., memory ... + padding ...) +
 * copy ... + overhead ...; FLOP, bytes" under the recorded layouts. */
static void analytic_line(const hs_graph *g, const cost_estimate *c, char *buf, size_t cap)
{
	char t[6][32];
	const double v[6] = {c ? c->seconds : NAN, c ? c->compute : NAN, c ? c->memory : NAN,
			     c ? c->padding : NAN, c ? c->copy : NAN, c ? c->overhead : NAN};

	if (!cost_available(g)) {
		snprintf(buf, cap, " analytic time: n/a (%s)", cost_unavailable_reason(g));
		return;
	}
	for (int i = 0; i < 6; i++)
		if (!tui_model_hidden(t[i], sizeof t[i]))
			tui_fmt_seconds(t[i], sizeof t[i], v[i]);
	if (tui_model_masked())
		snprintf(buf, cap, " analytic time %s = max(compute %s, memory %s + padding %s) + copy %s + overhead %s;"
			 " # FLOP, # bytes", t[0], t[1], t[2], t[3], t[4], t[5]);
	else
		snprintf(buf, cap, " analytic time %s = max(compute %s, memory %s + padding %s) + copy %s + overhead %s;"
			 " %.3g FLOP, %.3g bytes", t[0], t[1], t[2], t[3], t[4], t[5], c ? c->flops : NAN,
			 c ? c->bytes : NAN);
}

/* Appends " LABEL VALUE" to line when the value is not empty. */
static void add_field(char *line, size_t cap, const char *label, const char *value)
{
	size_t len = strlen(line);
	if (value[0] && len < cap)
		snprintf(line + len, cap - len, "%s%s %s", len ? "  " : " ", label, value);
}

/* The HLO lines under the first two: fusion kind and calls; op_type and
 * op_name; source file and line; custom-call target and sharding.  Only lines with something to say are
 * drawn; returns the rows used. */
static int draw_hlo_lines(const hs_graph *g, int64_t n, WINDOW *win, int y, int x, int w)
{
	char line[1024], b[256], calls[512] = "";
	int rows = 0;
	size_t len = 0;

	for (int64_t k = 0; k < graph_n_called(g, n) && len < sizeof calls; k++) {
		int wr = snprintf(calls + len, sizeof calls - len, "%s%s", k ? ", " : "",
				  tui_hcomp_label(g, g->called_idx[g->called_off[n] + k], b, sizeof b));
		len += wr > 0 ? (size_t)wr : 0;
	}
	line[0] = '\0';
	add_field(line, sizeof line, "fusion kind", graph_node_text(g, n, HS_HF_FUSION_KIND, b, sizeof b));
	add_field(line, sizeof line, "calls", calls);
	if (line[0])
		tui_put(win, y + rows++, x, w, line, 0, 1);
	line[0] = '\0';
	add_field(line, sizeof line, "op_type", graph_node_text(g, n, HS_HF_OP_TYPE, b, sizeof b));
	add_field(line, sizeof line, "op_name", graph_node_text(g, n, HS_HF_OP_NAME, b, sizeof b));
	if (line[0])
		tui_put(win, y + rows++, x, w, line, tui_attr(TUI_C_SECTION), 1);
	line[0] = '\0';
	const char *file = graph_node_text(g, n, HS_HF_SOURCE_FILE, b, sizeof b);
	if (file[0]) {
		char src[512], lb[32];
		const char *ln = graph_node_text(g, n, HS_HF_SOURCE_LINE, lb, sizeof lb);
		snprintf(src, sizeof src, "%s%s%s", file, ln[0] ? ":" : "", ln);
		add_field(line, sizeof line, "source", src);
	}
	if (line[0])
		tui_put(win, y + rows++, x, w, line, tui_attr(TUI_C_SECTION), 1);
	line[0] = '\0';
	add_field(line, sizeof line, "custom-call target", graph_node_text(g, n, HS_HF_CUSTOM_CALL_TARGET, b, sizeof b));
	add_field(line, sizeof line, "sharding", graph_node_text(g, n, HS_HF_SHARDING, b, sizeof b));
	if (line[0])
		tui_put(win, y + rows++, x, w, line, 0, 1);
	return rows;
}

/* The first two lines: name, opcode, shape; computation and split. */
static void draw_head(struct nodeview *nv, WINDOW *win, int y, int x, int w)
{
	const hs_graph *g = nv->doc->g;
	int64_t n = nv->node, hc = g->hcomp_of[n], sp = g->comp_of[n];
	const hs_hcomp *c = &g->hcomps[hc];
	char line[1024], b[256];

	snprintf(line, sizeof line, " node %lld  ", (long long)n);
	int used = tui_put(win, y, x, w, line, 0, 0);
	snprintf(line, sizeof line, "%s  ", graph_node_name(g, n, b, sizeof b));
	used += tui_put(win, y, x + used, w - used, line, A_BOLD, 0);
	used += tui_put(win, y, x + used, w - used, graph_node_opcode_name(g, n),
			tui_attr(tui_node_class(g, n)) | A_BOLD, 0);
	snprintf(line, sizeof line, "  %s", tui_doc_shape(nv->doc, n));
	tui_put(win, y, x + used, w - used, line, 0, 1);
	snprintf(line, sizeof line, " computation %s (%s, nodes %lld..%lld)%s", graph_hcomp_name(g, hc, b, sizeof b),
		 graph_role_name(c->role), (long long)c->first, (long long)(c->first + c->count - 1),
		 c->root == n ? ", its root" : "");
	if (g->n_comps > 1) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "   split %lld (nodes %lld..%lld)%s", (long long)sp,
			 (long long)g->comp_start[sp], (long long)g->comp_start[sp + 1] - 1,
			 tui_doc_comp_root(nv->doc, sp) == n ? ", its root" : "");
	}
	tui_put(win, y + 1, x, w, line, 0, 1);
}

static void node_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct nodeview *nv = v->data;
	const hs_graph *g = nv->doc->g;
	int64_t n = nv->node;
	char line[1024];
	const cost_estimate *ce = tui_doc_cost(nv->doc);

	draw_head(nv, win, y, x, w);
	y += 2;
	h -= 2;
	int extra = draw_hlo_lines(g, n, win, y, x, w);
	y += extra;
	h -= extra;
	if (g->cfg_index && g->cfg_index[n] >= 0)
		snprintf(line, sizeof line, " %lld operand%s  %lld user%s  configurable #%d of %lld",
			 (long long)graph_n_operands(g, n), hs_s(graph_n_operands(g, n)),
			 (long long)graph_n_users(g, n), hs_s(graph_n_users(g, n)), g->cfg_index[n],
			 (long long)g->n_cfg_nodes);
	else
		snprintf(line, sizeof line, " %lld operand%s  %lld user%s", (long long)graph_n_operands(g, n),
			 hs_s(graph_n_operands(g, n)), (long long)graph_n_users(g, n),
			 hs_s(graph_n_users(g, n)));
	tui_put(win, y, x, w, line, 0, 1);
	analytic_line(g, ce ? &ce[n] : NULL, line, sizeof line);
	tui_put(win, y + 1, x, w, line, 0, 1);
	snprintf(line, sizeof line,
		 " jump %d/%d  < back  > forward  Enter jumps to an operand or user, or into a call  Tab: pane  v draws",
		 nv->hpos + 1, nv->nhist);
	tui_put(win, y + 2, x, w, line, tui_attr(TUI_C_DIM), 1);
	y += 3;
	h -= 3;
	/* the panes share the width as their columns need it */
	int nl = tui_table_cols_needed(&nv->feats, h - 2), nr = tui_table_cols_needed(&nv->nbrs, h - 2), lw;
	if (nl + 1 + nr <= w)
		lw = nl + 1 + (w - nl - 1 - nr) / 2;
	else
		lw = (int)((long)w * nl / (nl + nr > 0 ? nl + nr : 1));
	if (lw < w * 3 / 10)
		lw = w * 3 / 10;
	if (lw > w * 7 / 10)
		lw = w * 7 / 10;
	tui_table_draw(win, &nv->feats, y, x, h, lw - 1, v->focus == 0);
	tui_table_draw(win, &nv->nbrs, y, x + lw, h, w - lw, v->focus == 1);
}

static int node_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct nodeview *nv = v->data;

	switch (req) {
	case TUI_REQ_ENTER: {
		if (v->focus != 1) {
			v->focus = 1;
			tui_message(t, 0, "pick an operand or user, then Enter");
			return 1;
		}
		int64_t r = tui_table_row(&nv->nbrs);
		if (r >= nv->nops + nv->nusers)
			tui_open_hcomp(t, nv->doc, nv->nbr[r]);
		else if (r >= 0)
			jump(t, v, nv, nv->nbr[r]);
		return 1;
	}
	case TUI_REQ_HIST_BACK:
	case TUI_REQ_HIST_FWD: {
		int np = nv->hpos + (req == TUI_REQ_HIST_BACK ? -1 : 1);
		if (np < 0 || np >= nv->nhist) {
			tui_message(t, 1, "no %s in the jump history",
				    req == TUI_REQ_HIST_BACK ? "earlier node" : "later node");
			return 1;
		}
		int64_t from = nv->node;
		nv->hpos = np;
		nv->node = nv->hist[np];
		load_node(nv);
		set_title(v, nv);
		/* keep the cursor on where we came from when going back */
		for (int64_t i = 0; i < nv->nbrs.nidx; i++)
			if (nv->nbrs.idx[i] < nv->nops + nv->nusers && nv->nbr[nv->nbrs.idx[i]] == from) {
				nv->nbrs.cur = i;
				break;
			}
		return 1;
	}
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

	if (node < 0 || node >= d->g->n_nodes) {
		tui_message(t, 1, "no node %lld (ids are 0..%lld)", (long long)node,
			    (long long)d->g->n_nodes - 1);
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
	tui_table_init_spec(&nv->feats, &feat_table, nv, 0);
	tui_table_init_spec(&nv->nbrs, &nbr_table, nv, 0);
	if (load_node(nv) < 0) {
		node_done(&(tui_view){.data = nv});
		tui_message(t, 1, "out of memory");
		return -1;
	}
	tui_view *v = tui_push(t, &node_ops, nv, d, "Node", &nv->feats, &nv->nbrs);
	if (!v)
		return -1;
	set_title(v, nv);
	v->focus = nv->nnbr ? 1 : 0;
	return 0;
}
