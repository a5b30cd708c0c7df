/* view_comps.c - the real HLO computations of a graph (graph.h, hcomps):
 * name, role, nodes, root and callers by name, and the share of the
 * module's cost the computation's nodes have (of the executed computations'
 * total, cost_executed_total: a fusion body shows its fusion's share).  The
 * table is a pane of the overview and a view of its own (`:computations`,
 * or the pick among the computations a node calls); Enter opens a
 * computation's nodes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "loader/hlo.h"
#include "tui/tui.h"

enum { HC_NAME, HC_ROLE, HC_NODES, HC_FIRST, HC_LAST, HC_ROOT, HC_CALLERS, HC_COST, HC_MIX, HC_INDEX };

int64_t tui_hcomps_at(const tui_hcomps *h, int64_t row)
{
	return h->idx ? h->idx[row] : row;
}

/* "fusion.3, fusion.7, +2 more" (names shortened for the screen) */
static void callers_text(const hs_graph *g, const hs_hcomp *hc, char *buf, size_t cap)
{
	size_t len = 0;
	char sb[TUI_NAME_MAX * 4 + 8];

	buf[0] = '\0';
	for (int64_t k = 0; k < hc->n_callers && len + 1 < cap; k++) {
		if (k == 3) {
			snprintf(buf + len, cap - len, ", +%lld more", (long long)(hc->n_callers - 3));
			return;
		}
		int64_t v = g->hcomp_callers[hc->callers_at + k];
		int n = snprintf(buf + len, cap - len, "%s%s", k ? ", " : "",
				 tui_name(graph_node_name(g, v), sb, sizeof sb));
		len += n > 0 ? (size_t)n : 0;
	}
}

/* "add 5, multiply 3, parameter 2" for the nodes of computation c: the
 * three most frequent opcodes (of the first 64 distinct ones). */
static void mix_text(const hs_graph *g, const hs_hcomp *hc, char *buf, size_t cap)
{
	enum { MAXD = 64 };
	const char *name[MAXD];
	int64_t cnt[MAXD];
	int nd = 0;
	size_t len = 0;

	for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
		const char *op = graph_node_opcode_name(g, v);
		int j = 0;
		while (j < nd && strcmp(name[j], op) != 0)
			j++;
		if (j == nd && nd < MAXD) {
			name[nd] = op;
			cnt[nd++] = 0;
		}
		if (j < nd)
			cnt[j]++;
	}
	buf[0] = '\0';
	for (int k = 0; k < 3 && k < nd && len < cap; k++) {
		int best = k;
		for (int j = k + 1; j < nd; j++)
			if (cnt[j] > cnt[best])
				best = j;
		const char *tn = name[k];
		int64_t tc = cnt[k];
		name[k] = name[best];
		cnt[k] = cnt[best];
		name[best] = tn;
		cnt[best] = tc;
		int n = snprintf(buf + len, cap - len, "%s%s %lld", k ? ", " : "", name[k], (long long)cnt[k]);
		len += n > 0 ? (size_t)n : 0;
	}
}

static double hc_value(void *ctx, int64_t row, const tui_col *c);

static int hc_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	tui_hcomps *h = ctx;
	const hs_graph *g = h->doc->g;
	int64_t ci = tui_hcomps_at(h, row);
	const hs_hcomp *hc = &g->hcomps[ci];
	const char *s;

	switch (c->key) {
	case HC_NAME:
		s = graph_hcomp_name(g, ci);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		return ci == g->entry ? TUI_C_GOOD : TUI_C_DEFAULT;
	case HC_ROLE:
		snprintf(buf, cap, "%s", graph_role_name(hc->role));
		return TUI_C_DIM;
	case HC_ROOT:
		if (hc->root < 0)
			return TUI_C_DIM;
		s = graph_node_name(g, hc->root);
		if (s != buf)
			snprintf(buf, cap, "%s", s);
		return tui_node_class(g, hc->root);
	case HC_CALLERS:
		callers_text(g, hc, buf, cap);
		return TUI_C_DEFAULT;
	case HC_MIX:
		mix_text(g, hc, buf, cap);
		return TUI_C_DIM;
	case HC_COST:
		if (!tui_model_hidden(buf, cap))
			hs_unit_format(buf, cap, c->unit, hc_value(h, row, c), -1);
		return TUI_C_DEFAULT;
	default:
		snprintf(buf, cap, "%.0f", hc_value(h, row, c));
		return TUI_C_DEFAULT;
	}
}

static double hc_value(void *ctx, int64_t row, const tui_col *c)
{
	tui_hcomps *h = ctx;
	const hs_graph *g = h->doc->g;
	int64_t ci = tui_hcomps_at(h, row);
	const hs_hcomp *hc = &g->hcomps[ci];

	switch (c->key) {
	case HC_INDEX:
		return (double)ci;
	case HC_NODES:
		return (double)hc->count;
	case HC_FIRST:
		return (double)hc->first;
	case HC_LAST:
		return (double)(hc->first + hc->count - 1);
	case HC_COST: {
		double s = 0;
		if (!h->ce || h->cost_total <= 0)
			return NAN;
		for (int64_t v = hc->first; v < hc->first + hc->count; v++)
			s += h->ce[v].unknown ? 0 : h->ce[v].seconds;
		return 100.0 * s / h->cost_total;
	}
	default:
		return NAN;
	}
}

static const tui_table_ops hc_table_ops = {hc_cell, hc_value};

static const tui_col hc_cols[] = {
	{.name = "computation", .key = HC_NAME, .width = 28, .mid = 1},
	{.name = "role", .key = HC_ROLE, .width = 8},
	{.name = "nodes", .key = HC_NODES, .width = 6, .numeric = 1},
	{.name = "root", .key = HC_ROOT, .width = 20, .mid = 1},
	{.name = "callers", .key = HC_CALLERS, .width = 24},
	{.name = "cost", .key = HC_COST, .width = 6, .numeric = 1, .unit = HS_U_PERCENT},
};

static const tui_col hc_extra_cols[] = {
	{.name = "opcode mix", .key = HC_MIX, .width = 36},
	{.name = "index", .key = HC_INDEX, .width = 5, .numeric = 1},
	{.name = "first", .key = HC_FIRST, .width = 6, .numeric = 1},
	{.name = "last", .key = HC_LAST, .width = 6, .numeric = 1},
};

static const tui_table_spec hc_table = {
	.ops = &hc_table_ops, .title = "Computations",
	.cols = hc_cols, .ncols = TUI_N(hc_cols),
	.avail = hc_extra_cols, .navail = TUI_N(hc_extra_cols),
	.frozen = 1,
};

int tui_hcomps_table_init(tui_table *tb, tui_hcomps *h, const char *title)
{
	const hs_graph *g = h->doc->g;

	if (!h->idx)
		h->n = g->n_hcomps;
	h->ce = query_session_cost(h->doc->qs, NULL); /* NULL: out of memory, below */
	if (!h->ce)
		return -1;
	h->cost_total = h->ce ? cost_executed_total(g, h->ce).seconds : 0;
	int rc = tui_table_init_spec(tb, &hc_table, h, h->n);
	if (title)
		snprintf(tb->title, sizeof tb->title, "%s", title);
	return rc;
}

/* ---- the view ----------------------------------------------------------- */

struct comps {
	tui_hcomps h;
	int64_t *idx;
	tui_table tab;
};

static void comps_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct comps *cs = v->data;
	tui_table_draw(win, &cs->tab, y, x, h, w, 1);
}

static int comps_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct comps *cs = v->data;
	int64_t r = tui_table_row(&cs->tab);

	switch (req) {
	case TUI_REQ_ENTER:
		if (r >= 0)
			tui_open_hcomp(t, cs->h.doc, tui_hcomps_at(&cs->h, r));
		return 1;
	case TUI_REQ_DRAW:
		if (r >= 0 && cs->h.doc->g->hcomps[tui_hcomps_at(&cs->h, r)].root >= 0)
			tui_open_drawing(t, cs->h.doc, cs->h.doc->g->hcomps[tui_hcomps_at(&cs->h, r)].root);
		return 1;
	default:
		return 0;
	}
}

static void comps_done(tui_view *v)
{
	struct comps *cs = v->data;
	tui_table_free(&cs->tab);
	free(cs->idx);
	free(cs);
}

static const tui_view_ops comps_ops = {
	.name = "computations", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = comps_draw,
	.request = comps_request, .done = comps_done,
};

int tui_open_hcomps(tui *t, tui_doc *d, const char *title, const int64_t *idx, int64_t n)
{
	struct comps *cs = calloc(1, sizeof *cs);
	hs_error err = {0};

	if (!query_session_cost(d->qs, &err)) { /* the table's cost column */
		free(cs);
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	if (!cs || (idx && !(cs->idx = malloc((size_t)(n ? n : 1) * sizeof *cs->idx)))) {
		free(cs);
		tui_message(t, 1, "out of memory");
		return -1;
	}
	cs->h.doc = d;
	if (idx) {
		memcpy(cs->idx, idx, (size_t)n * sizeof *idx);
		cs->h.idx = cs->idx;
		cs->h.n = n;
	}
	tui_hcomps_table_init(&cs->tab, &cs->h, title);
	return tui_push(t, &comps_ops, cs, d, title, &cs->tab, NULL) ? 0 : -1;
}

int tui_open_called(tui *t, tui_doc *d, int64_t v)
{
	const hs_graph *g = d->g;
	int64_t n = v >= 0 && v < g->n_nodes ? graph_n_called(g, v) : 0;
	char sb[TUI_NAME_MAX * 4 + 8], title[160];

	if (n == 0)
		return 0;
	if (n == 1)
		return tui_open_hcomp(t, d, g->called_idx[g->called_off[v]]) < 0 ? -1 : 1;
	int64_t *ids = malloc((size_t)n * sizeof *ids);
	if (!ids) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	for (int64_t k = 0; k < n; k++)
		ids[k] = g->called_idx[g->called_off[v] + k];
	snprintf(title, sizeof title, "Called by %s", tui_name(graph_node_name(g, v), sb, sizeof sb));
	int rc = tui_open_hcomps(t, d, title, ids, n);
	free(ids);
	if (rc == 0)
		tui_message(t, 0, "%lld computations: pick one, then Enter", (long long)n);
	return rc < 0 ? -1 : 1;
}
