/* view_compare.c - two configs side by side (model/compare.h).
 *
 * Opened from the configs view with C: the two marked configs (m), or the
 * marked / cursor config and one named at a prompt (best, worst, default,
 * an index, optionally followed by another file of the same graph).  `:compare
 * A B [FILE]` does the same without the prompt.
 *
 * Header: measured runtime, rank and predicted runtime and rank of A and B,
 * the ratios, then the summary line.  Body, layout: one row per
 * configurable node that differs (a toggles every node), output / input /
 * kernel layouts of A and B with changed entries starred and coloured, the
 * model's part of the predicted difference; the lower pane lists the
 * configurable neighbours of the node under the cursor with their layouts
 * and whether they disagree (a copy or transpose).  Body, tile: the 24
 * values of A and B, and the kernel's nodes below.  Enter opens the graph
 * drawing at the node with every changed node highlighted; `:sort
 * contribution` and `:sort id` order the rows ([ and ] sort any column).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "base/units.h"
#include "tui/tui.h"

struct cmpview {
	tui_doc *doc_b;        /* B's document when it is another file (own reference) */
	compare_result *res;   /* every configurable node (all = 1) */
	int show_all;
	tui_table tab;         /* layout: rows of res; tile: the values */
	tui_table side;        /* layout: neighbours of the cursor's row; tile: kernel nodes */
	int64_t *rowmap, nrowmap; /* table row -> index in res->rows */
	int64_t *changed, nchanged;
	int64_t side_of;       /* res row whose neighbours `side` shows, -1 */
	int side_rows;         /* rows the lower pane needs at most (its size does not follow the cursor) */
};

enum {
	CC_MARK, CC_NODE, CC_OPCODE, CC_SHAPE, CC_GROUP, /* + 2 * group + side (0 A, 1 B) */
	CC_CONTRIB = CC_GROUP + 6, CC_COPIES, CC_COMP, CC_SPLIT, CC_INAME, CC_OPNAME,
	CC_NAME = 100, CC_TA, CC_TB,
	CN_SIDE = 200, CN_NODE, CN_OPCODE, CN_HOPS, CN_LAYOUT, CN_A, CN_B, CN_STATUS_A, CN_STATUS_B,
	CK_NODE = 300, CK_OPCODE, CK_SHAPE,
};

static const compare_row *row_at(const struct cmpview *cv, int64_t row)
{
	return row >= 0 && row < cv->nrowmap ? &cv->res->rows[cv->rowmap[row]] : NULL;
}

static int copies(const compare_row *rw, int b)
{
	int n = 0;
	for (int i = 0; i < rw->n_nb; i++)
		n += (b ? rw->nb[i].mismatch_b : rw->nb[i].mismatch_a) == 1;
	return n;
}

/* The neighbour's layout group facing the row's node (as compare.c prints). */
static int facing(const hs_graph *g, const compare_neighbor *nb)
{
	if (nb->side == COMPARE_OPERAND)
		return 0;
	if (nb->slot == 1 && (g->opcode[nb->node] == hlo_opcode_id("convolution") ||
			      g->opcode[nb->node] == hlo_opcode_id("dot")))
		return 2;
	return 1;
}

/* ---- main table ------------------------------------------------------ */

static int main_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct cmpview *cv = ctx;
	const compare_result *r = cv->res;
	const hs_graph *g = r->ga;

	if (r->kind == HS_KIND_TILE) {
		const float *v = c->key == CC_TA ? r->tile_a : r->tile_b;
		switch (c->key) {
		case CC_MARK:
			snprintf(buf, cap, "%s", r->tile_changed[row] ? "*" : "");
			return TUI_C_MARK;
		case CC_NAME:
			snprintf(buf, cap, "%s", hlo_tile_config_name((int)row, r->width));
			return TUI_C_DEFAULT;
		default:
			snprintf(buf, cap, "%g", (double)v[row]);
			if (r->tile_changed[row])
				return c->key == CC_TB ? TUI_C_MARK : TUI_C_DEFAULT;
			return v[row] == 0 ? TUI_C_DIM : TUI_C_DEFAULT;
		}
	}
	const compare_row *rw = row_at(cv, row);
	if (!rw) {
		snprintf(buf, cap, "?");
		return TUI_C_ERROR;
	}
	switch (c->key) {
	case CC_MARK:
		snprintf(buf, cap, "%s", rw->differs ? "*" : "");
		return TUI_C_MARK;
	case CC_NODE:
		snprintf(buf, cap, "%lld", (long long)rw->node);
		return TUI_C_DEFAULT;
	case CC_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, rw->node));
		return tui_node_class(g, rw->node);
	case CC_SHAPE: {
		/* as written on HLO input (a tuple whole), decoded on a bare .npz */
		const char *txt = graph_node_text(g, rw->node, HS_HF_SHAPE, buf, cap);
		if (txt != buf)
			snprintf(buf, cap, "%s", txt);
		return TUI_C_DEFAULT;
	}
	case CC_CONTRIB:
		if (isnan(rw->contribution)) {
			snprintf(buf, cap, "-");
			return TUI_C_DIM;
		}
		if (tui_model_hidden(buf, cap))
			return TUI_C_DIM;
		if (!isnan(r->contrib_scale))
			hs_unit_format_signed(buf, cap, HS_U_NS, rw->contribution, 3);
		else
			snprintf(buf, cap, "%+.3g", rw->contribution);
		return rw->contribution > 0 ? TUI_C_ERROR : rw->contribution < 0 ? TUI_C_GOOD : TUI_C_DIM;
	case CC_COPIES:
		snprintf(buf, cap, "%d/%d", copies(rw, 0), copies(rw, 1));
		return copies(rw, 1) != copies(rw, 0) ? TUI_C_MARK : TUI_C_DIM;
	case CC_COMP: {
		/* the HLO computation by name */
		const char *t = graph_hcomp_name(g, rw->hcomp, buf, cap);
		if (t != buf)
			snprintf(buf, cap, "%s", t);
		return TUI_C_DEFAULT;
	}
	case CC_SPLIT:
		snprintf(buf, cap, "%d", (int)rw->comp);
		return TUI_C_DEFAULT;
	case CC_INAME:
	case CC_OPNAME: {
		const char *t = graph_node_text(g, rw->node, c->key == CC_INAME ? HS_HF_NAME : HS_HF_OP_NAME, buf, cap);
		if (t != buf)
			snprintf(buf, cap, "%s", t);
		return TUI_C_DEFAULT;
	}
	default: {
		int k = c->key - CC_GROUP, grp = k / 2, b = k % 2, any = 0;
		if (r->width != HLO_LAYOUT_CONFIG_FEATURES) {
			snprintf(buf, cap, "?");
			return TUI_C_DIM;
		}
		for (int j = 0; j < 6; j++)
			any |= rw->changed[grp * 6 + j];
		compare_layout_text(b ? rw->b : rw->a, b ? rw->a : rw->b, b ? rw->changed : NULL, grp * 6, buf,
				    cap);
		return any && b ? TUI_C_MARK : !strcmp(buf, "-") ? TUI_C_DIM : TUI_C_DEFAULT;
	}
	}
}

static double main_value(void *ctx, int64_t row, const tui_col *c)
{
	struct cmpview *cv = ctx;
	const compare_result *r = cv->res;

	if (r->kind == HS_KIND_TILE) {
		if (c->key == CC_TA)
			return r->tile_a[row];
		if (c->key == CC_TB)
			return r->tile_b[row];
		return c->key == CC_MARK ? r->tile_changed[row] : NAN;
	}
	const compare_row *rw = row_at(cv, row);
	if (!rw)
		return NAN;
	switch (c->key) {
	case CC_MARK:
		return rw->differs;
	case CC_NODE:
		return (double)rw->node;
	case CC_CONTRIB:
		return rw->contribution;
	case CC_COPIES:
		return copies(rw, 1) - copies(rw, 0);
	case CC_SPLIT:
		return rw->comp;
	default:
		return NAN;
	}
}

static const tui_table_ops main_ops = {main_cell, main_value};

/* ---- lower pane -------------------------------------------------------- */

static const compare_row *side_row(const struct cmpview *cv)
{
	return cv->side_of >= 0 ? &cv->res->rows[cv->side_of] : NULL;
}

static int side_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct cmpview *cv = ctx;
	const compare_result *r = cv->res;
	const hs_graph *g = r->ga;

	if (r->kind == HS_KIND_TILE) {
		switch (c->key) {
		case CK_NODE:
			snprintf(buf, cap, "%lld", (long long)row);
			return TUI_C_DEFAULT;
		case CK_OPCODE:
			snprintf(buf, cap, "%s", graph_node_opcode_name(g, row));
			return tui_node_class(g, row);
		default: {
			const char *txt = graph_node_text(g, row, HS_HF_SHAPE, buf, cap);
			if (txt != buf)
				snprintf(buf, cap, "%s", txt);
			return TUI_C_DEFAULT;
		}
		}
	}
	const compare_row *rw = side_row(cv);
	if (!rw || row >= rw->n_nb) {
		snprintf(buf, cap, "?");
		return TUI_C_ERROR;
	}
	const compare_neighbor *nb = &rw->nb[row];
	int grp = facing(g, nb);
	switch (c->key) {
	case CN_SIDE:
		snprintf(buf, cap, "%s", nb->side == COMPARE_OPERAND ? "operand" : "user");
		return TUI_C_DEFAULT;
	case CN_NODE:
		snprintf(buf, cap, "%lld", (long long)nb->node);
		return TUI_C_DEFAULT;
	case CN_OPCODE:
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, nb->node));
		return tui_node_class(g, nb->node);
	case CN_HOPS:
		snprintf(buf, cap, "%d", nb->hops);
		return TUI_C_DEFAULT;
	case CN_LAYOUT:
		snprintf(buf, cap, "%s", compare_group_name(grp));
		return TUI_C_DIM;
	case CN_A:
	case CN_B: {
		float va[6], vb[6];
		unsigned char ch[6];
		int any = 0;
		for (int j = 0; j < 6; j++) {
			va[j] = graph_ncf(g, r->A.config, g->cfg_index[nb->node], grp * 6 + j);
			vb[j] = graph_ncf(r->gb, r->B.config, r->gb->cfg_index[nb->node], grp * 6 + j);
			ch[j] = va[j] != vb[j];
			any |= ch[j];
		}
		if (c->key == CN_A)
			compare_layout_text(va, vb, NULL, 0, buf, cap);
		else
			compare_layout_text(vb, va, ch, 0, buf, cap);
		return any && c->key == CN_B ? TUI_C_MARK : TUI_C_DEFAULT;
	}
	default: {
		int m = c->key == CN_STATUS_A ? nb->mismatch_a : nb->mismatch_b;
		if (!nb->comparable)
			snprintf(buf, cap, "? renumbered");
		else
			snprintf(buf, cap, "%s", m == 1 ? "copy" : m == 0 ? "ok" : "?");
		return m == 1 ? TUI_C_ERROR : m == 0 ? TUI_C_GOOD : TUI_C_DIM;
	}
	}
}

static double side_value(void *ctx, int64_t row, const tui_col *c)
{
	struct cmpview *cv = ctx;
	if (cv->res->kind == HS_KIND_TILE)
		return c->key == CK_NODE ? (double)row : NAN;
	const compare_row *rw = side_row(cv);
	if (!rw || row >= rw->n_nb)
		return NAN;
	const compare_neighbor *nb = &rw->nb[row];
	switch (c->key) {
	case CN_NODE:
		return (double)nb->node;
	case CN_HOPS:
		return nb->hops;
	case CN_STATUS_A:
		return nb->mismatch_a;
	case CN_STATUS_B:
		return nb->mismatch_b;
	default:
		return NAN;
	}
}

static const tui_table_ops side_ops = {side_cell, side_value};

/* ---- state ------------------------------------------------------------- */

/* Rows shown: the differing ones, or all. */
static void build_rowmap(struct cmpview *cv)
{
	cv->nrowmap = 0;
	for (int64_t i = 0; i < cv->res->n_rows; i++)
		if (cv->show_all || cv->res->rows[i].differs)
			cv->rowmap[cv->nrowmap++] = i;
	tui_table_set_rows(&cv->tab, cv->nrowmap);
	tui_table_refresh(&cv->tab);
}

/* Points the lower pane at the cursor's row. */
static void sync_side(struct cmpview *cv)
{
	if (cv->res->kind != HS_KIND_LAYOUT)
		return;
	int64_t r = tui_table_row(&cv->tab);
	int64_t idx = r >= 0 && r < cv->nrowmap ? cv->rowmap[r] : -1;
	if (idx == cv->side_of)
		return;
	cv->side_of = idx;
	tui_table_set_rows(&cv->side, idx >= 0 ? cv->res->rows[idx].n_nb : 0);
	tui_table_refresh(&cv->side);
	snprintf(cv->side.title, sizeof cv->side.title, "Configurable neighbours of node %lld",
		 idx >= 0 ? (long long)cv->res->rows[idx].node : -1LL);
}

/* ---- drawing ----------------------------------------------------------- */

static void side_text(const compare_result *r, const compare_side_info *s, const hs_graph *g, char *buf,
		      size_t cap)
{
	char rt[48], pred[64] = "", sel[48] = "", idx[32];

	snprintf(idx, sizeof idx, "%lld", (long long)s->config);
	if (strcmp(idx, s->selector))
		snprintf(sel, sizeof sel, " (%s)", s->selector);
	hs_unit_format(rt, sizeof rt, g->kind == HS_KIND_TILE ? HS_U_NONE : HS_U_NS, s->labeled ? s->runtime : NAN,
		       g->kind == HS_KIND_TILE ? 4 : -1);
	if (!r->pred_error[0] && tui_model_masked())
		snprintf(pred, sizeof pred, "  predicted # (rank #)");
	else if (!r->pred_error[0] && r->time_kind) {
		char t[32];

		hs_unit_format(t, sizeof t, r->pred_ns ? HS_U_NS : HS_U_NONE, s->predicted, r->pred_ns ? 3 : 4);
		snprintf(pred, sizeof pred, "  predicted %s %s (rank %lld%s)", t, r->time_kind, (long long)s->pred_rank,
			 s->pred_tied ? ", tied" : "");
	} else if (!r->pred_error[0]) {
		snprintf(pred, sizeof pred, "  predicted score %.6g (rank %lld%s)", s->predicted, (long long)s->pred_rank,
			 s->pred_tied ? ", tied" : "");
	}
	if (s->labeled)
		snprintf(buf, cap, "config %lld%s  runtime %s  rank %lld of %lld%s", (long long)s->config, sel, rt,
			 (long long)s->rank, (long long)s->n_configs, pred);
	else
		snprintf(buf, cap, "config %lld%s  runtime hidden (unlabeled)%s", (long long)s->config, sel, pred);
}

static void cmp_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct cmpview *cv = v->data;
	const compare_result *r = cv->res;
	char line[1024], a[256];

	side_text(r, &r->A, r->ga, a, sizeof a);
	snprintf(line, sizeof line, " A  %s", a);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	side_text(r, &r->B, r->gb, a, sizeof a);
	snprintf(line, sizeof line, " B  %s%s%s", a, r->gb != r->ga ? "  file " : "",
		 r->gb != r->ga ? r->gb->name : "");
	tui_put(win, y + 1, x, w, line, A_BOLD, 1);

	size_t pos = (size_t)snprintf(line, sizeof line, " B/A");
	if (isfinite(r->runtime_ratio))
		pos += (size_t)snprintf(line + pos, sizeof line - pos, "  measured %.6f (%+.3g%%)", r->runtime_ratio,
					100 * (r->runtime_ratio - 1));
	else
		pos += (size_t)snprintf(line + pos, sizeof line - pos, "  measured: hidden (unlabeled file)");
	if (pos < sizeof line && tui_model_masked() && (isfinite(r->predicted_ratio) || isfinite(r->predicted_diff)))
		pos += (size_t)snprintf(line + pos, sizeof line - pos, "  predicted #");
	else if (pos < sizeof line && isfinite(r->predicted_ratio))
		pos += (size_t)snprintf(line + pos, sizeof line - pos, "  predicted %.6f (%+.3g%%)",
					r->predicted_ratio, 100 * (r->predicted_ratio - 1));
	else if (pos < sizeof line && isfinite(r->predicted_diff))
		pos += (size_t)snprintf(line + pos, sizeof line - pos, "  predicted B-A %+.6g", r->predicted_diff);
	if (pos < sizeof line)
		snprintf(line + pos, sizeof line - pos, "  [%s%s%s]", r->pred_label, r->pred_error[0] ? ": " : "",
			 r->pred_error);
	tui_put(win, y + 2, x, w, line, tui_attr(TUI_C_DIM), 1);
	compare_summary(r, a, sizeof a);
	snprintf(line, sizeof line, " %s", a);
	tui_put(win, y + 3, x, w, line, tui_attr(TUI_C_SECTION), 1);
	if (r->kind == HS_KIND_LAYOUT)
		snprintf(line, sizeof line, " copies/transposes with neighbours A %d, B %d   %s rows   a: %s",
			 r->A.mismatches, r->B.mismatches, cv->show_all ? "all" : "differing",
			 cv->show_all ? "only differing" : "all nodes");
	else
		snprintf(line, sizeof line, " Tab: the kernel's nodes   Enter on a node: drawing with the kernel highlighted");
	if (r->kind == HS_KIND_LAYOUT && !r->has_contribution) {
		size_t n = strlen(line);
		snprintf(line + n, sizeof line - n, "   contribution %s", r->contrib_note);
	}
	tui_put(win, y + 4, x, w, line, tui_attr(TUI_C_DIM), 1);

	y += 5;
	h -= 5;
	if (h < 4)
		return;
	int side = cv->side_rows;
	if (r->kind == HS_KIND_TILE)
		side = tui_table_rows_needed(&cv->side);
	int th = tui_split_rows(h, tui_table_rows_needed(&cv->tab), side);
	tui_table_draw(win, &cv->tab, y, x, th, w, v->focus == 0);
	if (h - th >= 3)
		tui_table_draw(win, &cv->side, y + th, x, h - th, w, v->focus == 1);
}

/* ---- requests ---------------------------------------------------------- */

static void open_graph(tui *t, tui_view *v, struct cmpview *cv, int64_t node)
{
	if (tui_open_drawing_compare(t, v->doc, node, cv->res) == 0 && cv->nchanged)
		tui_message(t, 0, "node %lld; %lld changed node%s highlighted", (long long)node,
			    (long long)cv->nchanged, hs_s(cv->nchanged));
}

static int cmp_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct cmpview *cv = v->data;
	const compare_result *r = cv->res;

	switch (req) {
	case TUI_REQ_COMPARE_ALL:
		if (r->kind != HS_KIND_LAYOUT) {
			tui_message(t, 0, "a tile config has no per-node rows: all 24 values are shown");
			return 1;
		}
		cv->show_all = !cv->show_all;
		build_rowmap(cv);
		cv->side_of = -2;
		sync_side(cv);
		tui_message(t, 0, "%s (%lld row%s)", cv->show_all ? "every configurable node" : "differing nodes only",
			    (long long)cv->nrowmap, hs_s(cv->nrowmap));
		return 1;
	case TUI_REQ_SORT_ASC:
		if (!arg || r->kind != HS_KIND_LAYOUT)
			return 0;
		if (!strcmp(arg, "contribution") || !strcmp(arg, "contrib")) {
			tui_table_sort(&cv->tab, tui_table_find_col(&cv->tab, "contrib"), 1);
			tui_message(t, 0, "sorted by contribution, largest first%s",
				    r->has_contribution ? "" : " (no contributions: see the header)");
			return 1;
		}
		if (!strcmp(arg, "id") || !strcmp(arg, "node")) {
			tui_table_sort(&cv->tab, tui_table_find_col(&cv->tab, "node"), 0);
			return 1;
		}
		return 0;
	case TUI_REQ_DRAW: { /* the node of the row, its changes highlighted */
		int64_t node = -1;
		if (r->kind == HS_KIND_TILE)
			node = v->focus == 1 ? tui_table_row(&cv->side) : -1;
		else if (v->focus == 1) {
			const compare_row *rw = side_row(cv);
			int64_t s = tui_table_row(&cv->side);
			node = rw && s >= 0 && s < rw->n_nb ? rw->nb[s].node : -1;
		} else {
			const compare_row *rw = row_at(cv, tui_table_row(&cv->tab));
			node = rw ? rw->node : -1;
		}
		if (node < 0)
			return 0; /* the graph's root */
		open_graph(t, v, cv, node);
		return 1;
	}
	case TUI_REQ_ENTER: {
		if (v->focus == 1 && r->kind == HS_KIND_LAYOUT) {
			const compare_row *rw = side_row(cv);
			int64_t s = tui_table_row(&cv->side);
			if (!rw || s < 0 || s >= rw->n_nb)
				return 1;
			int64_t node = rw->nb[s].node;
			/* the neighbour's own row when it is shown, else its drawing */
			for (int64_t i = 0; i < cv->nrowmap; i++)
				if (cv->res->rows[cv->rowmap[i]].node == node && tui_table_goto(&cv->tab, i)) {
					v->focus = 0;
					sync_side(cv);
					return 1;
				}
			open_graph(t, v, cv, node);
			return 1;
		}
		if (r->kind == HS_KIND_TILE) {
			int64_t node = v->focus == 1 ? tui_table_row(&cv->side) : -1;
			if (node < 0)
				tui_message(t, 0, "a tile config applies to the whole kernel: Tab to its nodes");
			else
				open_graph(t, v, cv, node);
			return 1;
		}
		const compare_row *rw = row_at(cv, tui_table_row(&cv->tab));
		if (rw)
			open_graph(t, v, cv, rw->node);
		return 1;
	}
	default:
		return 0;
	}
}

static void cmp_select(tui *t, tui_view *v)
{
	sync_side(v->data);
}

static void cmp_done(tui_view *v)
{
	struct cmpview *cv = v->data;
	tui_table_free(&cv->tab);
	tui_table_free(&cv->side);
	compare_free(cv->res);
	if (cv->doc_b)
		tui_doc_unref(cv->doc_b);
	free(cv->rowmap);
	free(cv->changed);
	free(cv);
}

static const tui_view_ops cmp_ops = {
	.name = "compare", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_COMPARE | TUI_S_OPENS, .draw = cmp_draw,
	.request = cmp_request, .select = cmp_select, .done = cmp_done,
};

/* ---- opening ----------------------------------------------------------- */

static const tui_col layout_cols[] = {
	{.name = "", .key = CC_MARK, .width = 1},
	{.name = "node", .key = CC_NODE, .width = 5, .numeric = 1},
	{.name = "name", .key = CC_INAME, .width = 20, .mid = 1},
	{.name = "opcode", .key = CC_OPCODE, .width = 11},
	{.name = "contrib", .key = CC_CONTRIB, .width = 9, .numeric = 1},
	{.name = "out A", .key = CC_GROUP + 0, .width = 10},
	{.name = "out B", .key = CC_GROUP + 1, .width = 10},
	{.name = "in A", .key = CC_GROUP + 2, .width = 10},
	{.name = "in B", .key = CC_GROUP + 3, .width = 10},
	{.name = "kern A", .key = CC_GROUP + 4, .width = 10},
	{.name = "kern B", .key = CC_GROUP + 5, .width = 10},
	{.name = "copies", .key = CC_COPIES, .width = 6},
	{.name = "shape", .key = CC_SHAPE, .width = 30},
};

static const tui_col layout_extra_cols[] = {
	{.name = "computation", .key = CC_COMP, .width = 20, .mid = 1},
	{.name = "op_name", .key = CC_OPNAME, .width = 40, .mid = 1},
	{.name = "split", .key = CC_SPLIT, .width = 5, .numeric = 1},
};

static const tui_table_spec layout_table = {
	.ops = &main_ops, .title = "Configurable nodes: A and B (* changed)",
	.cols = layout_cols, .ncols = TUI_N(layout_cols),
	.avail = layout_extra_cols, .navail = TUI_N(layout_extra_cols), .frozen = 2,
};

static const tui_col neighbour_cols[] = {
	{.name = "side", .key = CN_SIDE, .width = 7},
	{.name = "node", .key = CN_NODE, .width = 6, .numeric = 1},
	{.name = "opcode", .key = CN_OPCODE, .width = 12},
	{.name = "hops", .key = CN_HOPS, .width = 4, .numeric = 1},
	{.name = "layout", .key = CN_LAYOUT, .width = 6},
	{.name = "A", .key = CN_A, .width = 12},
	{.name = "B", .key = CN_B, .width = 12},
	{.name = "A vs node", .key = CN_STATUS_A, .width = 12},
	{.name = "B vs node", .key = CN_STATUS_B, .width = 12},
};

static const tui_table_spec neighbour_table = {
	.ops = &side_ops, .cols = neighbour_cols, .ncols = TUI_N(neighbour_cols),
};

static const tui_col tile_cols[] = {
	{.name = "", .key = CC_MARK, .width = 1},
	{.name = "value", .key = CC_NAME, .width = 24},
	{.name = "A", .key = CC_TA, .width = 10, .numeric = 1},
	{.name = "B", .key = CC_TB, .width = 10, .numeric = 1},
};

static const tui_table_spec tile_table = {
	.ops = &main_ops, .title = "Tile config values (* changed)",
	.cols = tile_cols, .ncols = TUI_N(tile_cols),
};

static const tui_col kernel_cols[] = {
	{.name = "node", .key = CK_NODE, .width = 6, .numeric = 1},
	{.name = "opcode", .key = CK_OPCODE, .width = 16},
	{.name = "shape", .key = CK_SHAPE, .width = 36},
};

static const tui_table_spec kernel_table = {
	.ops = &side_ops, .title = "The kernel's nodes", .cols = kernel_cols, .ncols = TUI_N(kernel_cols),
};

int tui_open_compare(tui *t, tui_doc *d, const char *sel_a, const char *sel_b, const char *file_b)
{
	hs_error err = {0};
	tui_doc *db = NULL;
	compare_opts o;
	compare_result *r;
	struct cmpview *cv;
	char title[160];

	if (file_b && *file_b) {
		db = tui_doc_open(file_b, tui_model(t), &err);
		if (!db) {
			tui_message(t, 1, "%s", err.msg);
			return -1;
		}
	}
	compare_opts_init(&o);
	o.all = 1;
	o.model = tui_model(t);
	/* the graphs' active predictors: a :fit's too */
	o.pred_a = d->g->n_configs > 0 ? query_session_predictor(d->qs, NULL) : NULL;
	o.pred_b = db && db->g->n_configs > 0 ? query_session_predictor(db->qs, NULL) : o.pred_a;
	r = compare_run(d->g, db ? db->g : NULL, sel_a, sel_b, &o, &err);
	if (!r) {
		tui_message(t, 1, "compare: %s", err.msg);
		if (db)
			tui_doc_unref(db);
		return -1;
	}
	cv = calloc(1, sizeof *cv);
	if (!cv || !(cv->rowmap = malloc((size_t)(r->n_rows ? r->n_rows : 1) * sizeof *cv->rowmap))) {
		free(cv);
		compare_free(r);
		if (db)
			tui_doc_unref(db);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	cv->res = r;
	cv->doc_b = db;
	cv->side_of = -1;
	cv->nchanged = compare_changed_nodes(r, &cv->changed);
	if (cv->nchanged < 0)
		cv->nchanged = 0;
	if (r->kind == HS_KIND_LAYOUT) {
		int most = 0;
		for (int64_t i = 0; i < r->n_rows; i++)
			if (r->rows[i].n_nb > most)
				most = r->rows[i].n_nb;
		cv->side_rows = 2 + (most ? most : 1); /* title, header, rows */
		tui_table_init_spec(&cv->tab, &layout_table, cv, 0);
		tui_table_init_spec(&cv->side, &neighbour_table, cv, 0);
		build_rowmap(cv);
		sync_side(cv);
	} else {
		tui_table_init_spec(&cv->tab, &tile_table, cv, r->width);
		tui_table_init_spec(&cv->side, &kernel_table, cv, r->ga->n_nodes);
	}
	snprintf(title, sizeof title, "Compare %lld vs %lld%s%s", (long long)r->A.config, (long long)r->B.config,
		 db ? " of " : "", db ? db->g->name : "");
	return tui_push(t, &cmp_ops, cv, d, title, &cv->tab, &cv->side) ? 0 : -1;
}

/* Splits "A B [FILE]" into words (in place); returns how many. */
static int split_words(char *s, char **w, int max)
{
	int n = 0;
	for (char *p = strtok(s, " \t"); p && n < max; p = strtok(NULL, " \t"))
		w[n++] = p;
	return n;
}

int tui_compare_request(tui *t, tui_view *v, const char *arg)
{
	int64_t ma, mb, cur = -1;
	char buf[1024], num[32], prompt[128], *w[4];
	int n = 0;

	if (!v || !v->doc)
		return -1;
	int in_configs = tui_configs_marks(v, &ma, &mb);
	if (in_configs && v->npanes > 0)
		cur = tui_table_row(v->pane[0]);
	snprintf(num, sizeof num, "%lld", (long long)(ma >= 0 ? ma : cur));
	if (!in_configs && !(arg && *arg)) {
		/* no config to start from: ask for both */
		const hs_graph *g = v->doc->g;
		const char *ans = tui_prompt(t, "compare configs (A B [FILE]; best, worst, default, N): ",
					     TUI_P_CONFIGS, g->labeled ? "best worst" : "0 1");
		if (!ans || !*ans)
			return -1;
		snprintf(buf, sizeof buf, "%s", ans);
		n = split_words(buf, w, 4);
	} else if (arg && *arg) {
		snprintf(buf, sizeof buf, "%s", arg);
		n = split_words(buf, w, 4);
		if (n == 1 && in_configs) { /* B alone: A is the mark or the cursor */
			w[1] = w[0];
			w[0] = num;
			n = 2;
		}
	} else if (ma >= 0 && mb >= 0) {
		char a[32], b[32];
		snprintf(a, sizeof a, "%lld", (long long)ma);
		snprintf(b, sizeof b, "%lld", (long long)mb);
		return tui_open_compare(t, v->doc, a, b, NULL);
	} else {
		if (ma < 0 && cur < 0) {
			tui_message(t, 1, "compare: no config under the cursor");
			return -1;
		}
		hs_graph *g = v->doc->g;
		snprintf(prompt, sizeof prompt, "compare config %s with (best, worst, default, N [FILE]): ", num);
		const char *ans = tui_prompt(t, prompt, TUI_P_CONFIGS, g->labeled ? "best" : "0");
		if (!ans || !*ans)
			return -1;
		snprintf(buf, sizeof buf, "%s %s", num, ans);
		n = split_words(buf, w, 4);
	}
	if (n < 2 || n > 3) {
		tui_message(t, 1, "compare: give A B [FILE] (index, best, worst or default)");
		return -1;
	}
	return tui_open_compare(t, v->doc, w[0], w[1], n == 3 ? w[2] : NULL);
}
