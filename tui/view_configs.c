/* view_configs.c - one row per config: measured runtime (normalized for
 * tile), rank, predicted runtime and rank, marks A and B; a histogram of
 * the runtimes; Enter shows a config's values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/parse.h"
#include "loader/hlo.h"
#include "tui/tui.h"

#define MAX_BINS 64

struct configs {
	tui_doc *doc;
	tui_table tab;
	const double *pred;
	const int64_t *rank;
	int64_t mark_a, mark_b;
	int64_t deflt;
};

enum { GC_CONFIG, GC_RUNTIME, GC_RANK, GC_PRED, GC_PRANK, GC_MARK, GC_RAW, GC_NORM, GC_FEAT = 1000 };

static int cfg_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct configs *cv = ctx;
	const hs_graph *g = cv->doc->g;

	switch (c->key) {
	case GC_CONFIG:
		snprintf(buf, cap, "%lld", (long long)row);
		return row == cv->deflt ? TUI_C_HEADER : TUI_C_DEFAULT;
	case GC_RUNTIME:
		tui_fmt_runtime(buf, cap, g, g->labeled ? g->runtime[row] : NAN);
		return cv->rank && cv->rank[row] == 1 ? TUI_C_GOOD : TUI_C_DEFAULT;
	case GC_RANK:
		if (cv->rank)
			snprintf(buf, cap, "%lld", (long long)cv->rank[row]);
		else
			snprintf(buf, cap, "-");
		break;
	case GC_PRED:
		if (!cv->pred)
			snprintf(buf, cap, "-");
		else if (!tui_model_hidden(buf, cap))
			snprintf(buf, cap, "%.5g", cv->pred[row]);
		return TUI_C_DIM;
	case GC_PRANK:
		if (cv->pred && tui_model_hidden(buf, cap))
			break;
		if (cv->pred && cv->doc->pred_rank)
			snprintf(buf, cap, "%lld", (long long)cv->doc->pred_rank[row]);
		else
			snprintf(buf, cap, "-");
		break;
	case GC_MARK:
		snprintf(buf, cap, "%s%s", row == cv->mark_a ? "A" : row == cv->mark_b ? "B" : "",
			 row == cv->deflt ? (row == cv->mark_a || row == cv->mark_b ? " default" : "default")
					  : "");
		return buf[0] ? TUI_C_MARK : TUI_C_DEFAULT;
	case GC_RAW:
		snprintf(buf, cap, "%lld", (long long)g->runtime_raw[row]);
		break;
	case GC_NORM:
		snprintf(buf, cap, "%lld", (long long)(g->normalizer ? g->normalizer[row] : 0));
		break;
	default:
		snprintf(buf, cap, "%.6g",
			 (double)g->config_feat[(size_t)row * (size_t)g->config_width + (size_t)(c->key - GC_FEAT)]);
		break;
	}
	return TUI_C_DEFAULT;
}

static double cfg_value(void *ctx, int64_t row, const tui_col *c)
{
	struct configs *cv = ctx;
	const hs_graph *g = cv->doc->g;

	switch (c->key) {
	case GC_CONFIG:
		return (double)row;
	case GC_RUNTIME:
		return g->labeled ? g->runtime[row] : NAN;
	case GC_RANK:
		return cv->rank ? (double)cv->rank[row] : NAN;
	case GC_PRED:
		return cv->pred ? cv->pred[row] : NAN;
	case GC_PRANK:
		return cv->pred && cv->doc->pred_rank ? (double)cv->doc->pred_rank[row] : NAN;
	case GC_MARK:
		return row == cv->mark_a ? 1 : row == cv->mark_b ? 2 : NAN;
	case GC_RAW:
		return (double)g->runtime_raw[row];
	case GC_NORM:
		return g->normalizer ? (double)g->normalizer[row] : NAN;
	default:
		return g->config_feat[(size_t)row * (size_t)g->config_width + (size_t)(c->key - GC_FEAT)];
	}
}

static const tui_table_ops cfg_table_ops = {cfg_cell, cfg_value};

static const tui_col cfg_cols[] = {
	{.name = "config", .key = GC_CONFIG, .width = 6, .numeric = 1},
	{.name = "runtime", .key = GC_RUNTIME, .width = 13, .numeric = 1}, /* runtime(norm) for tile */
	{.name = "rank", .key = GC_RANK, .width = 5, .numeric = 1},
	{.name = "predicted", .key = GC_PRED, .width = 10, .numeric = 1},
	{.name = "prank", .key = GC_PRANK, .width = 5, .numeric = 1},
	{.name = "mark", .key = GC_MARK, .width = 9},
};

/* Columns `+` adds: raw_ns, and for tile files the normalizer (then every
 * config feature too). */
static const tui_col cfg_extra_cols[] = {
	{.name = "raw_ns", .key = GC_RAW, .width = 12, .numeric = 1},
	{.name = "normalizer", .key = GC_NORM, .width = 12, .numeric = 1},
};

static const tui_table_spec cfg_table = {
	.ops = &cfg_table_ops, .title = "Configs", .cols = cfg_cols, .ncols = TUI_N(cfg_cols),
	.avail = cfg_extra_cols, .navail = 1,
};

/* A histogram of measured runtimes (predicted ones when unlabeled), one
 * bin per row; the cursor's bin is highlighted. */
static void draw_histogram(struct configs *cv, WINDOW *win, int y, int x, int h, int w)
{
	const hs_graph *g = cv->doc->g;
	const double *val = g->labeled ? g->runtime : cv->pred;
	int64_t cnt[MAX_BINS] = {0}, maxc = 1, cur = tui_table_row(&cv->tab);
	double lo = INFINITY, hi = -INFINITY;
	int nb = h - 2, curbin = -1, logscale;
	char line[256], a[32];

	snprintf(line, sizeof line, "%s", g->labeled ? "Runtime distribution" : "Predicted distribution");
	tui_put(win, y, x, w, line, tui_attr(TUI_C_SECTION), 1);
	if (!val || g->n_configs == 0) {
		tui_put(win, y + 1, x, w, g->labeled ? "no configs" : "no runtimes (test split)",
			tui_attr(TUI_C_DIM), 0);
		return;
	}
	if (!g->labeled && tui_model_masked()) {
		tui_put(win, y + 1, x, w, "# (model numbers masked)", tui_attr(TUI_C_DIM), 0);
		return;
	}
	if (nb > MAX_BINS)
		nb = MAX_BINS;
	if (nb < 2)
		return;
	for (int64_t i = 0; i < g->n_configs; i++) {
		if (!isfinite(val[i]))
			continue;
		lo = val[i] < lo ? val[i] : lo;
		hi = val[i] > hi ? val[i] : hi;
	}
	if (!(hi >= lo))
		return;
	/* a few far outliers would squeeze everything into one bin: then the
	 * range ends at the 99th percentile and the last bin holds the rest */
	int clipped = 0;
	{
		double *v = malloc((size_t)g->n_configs * sizeof *v);
		int64_t m = 0;
		for (int64_t i = 0; v && i < g->n_configs; i++)
			if (isfinite(val[i]))
				v[m++] = val[i];
		if (v && m >= 100) {
			qsort(v, (size_t)m, sizeof *v, hs_cmp_double);
			double q99 = v[m * 99 / 100];
			if (hi - q99 > q99 - lo && q99 > lo) {
				hi = q99;
				clipped = 1;
			}
		}
		free(v);
	}
	logscale = lo > 0 && hi / lo > 20;
	double l0 = logscale ? log(lo) : lo, l1 = logscale ? log(hi) : hi;
	double span = l1 > l0 ? l1 - l0 : 1;
	for (int64_t i = 0; i < g->n_configs; i++) {
		if (!isfinite(val[i]))
			continue;
		double vi = val[i] > hi ? hi : val[i];
		double p = ((logscale ? log(vi) : vi) - l0) / span;
		int b = (int)(p * nb);
		if (b >= nb)
			b = nb - 1;
		if (b < 0)
			b = 0;
		cnt[b]++;
		if (i == cur)
			curbin = b;
	}
	for (int b = 0; b < nb; b++)
		if (cnt[b] > maxc)
			maxc = cnt[b];
	int labw = 11, cntw = 6, barw = w - labw - cntw - 2;
	for (int b = 0; b < nb; b++) {
		double edge = l0 + span * b / nb;
		if (logscale)
			edge = exp(edge);
		if (g->labeled)
			tui_fmt_runtime(a, sizeof a, g, edge);
		else
			snprintf(a, sizeof a, "%.4g", edge);
		attr_t at = b == curbin ? A_REVERSE : 0;
		tui_put_right(win, y + 1 + b, x, labw, a, tui_attr(TUI_C_DIM) | at);
		tui_bar(line, sizeof line, (double)cnt[b] / (double)maxc, barw);
		tui_put(win, y + 1 + b, x + labw + 1, barw, line, tui_attr(TUI_C_BAR), 1);
		snprintf(a, sizeof a, "%lld", (long long)cnt[b]);
		tui_put_right(win, y + 1 + b, x + labw + 1 + barw, cntw, a, at);
	}
	snprintf(line, sizeof line, "%s bins%s%s", logscale ? "log" : "linear",
		 clipped ? ", last holds the top 1%" : "",
		 curbin >= 0 ? "; cursor's bin lit" : "");
	tui_put(win, y + 1 + nb, x, w, line, tui_attr(TUI_C_DIM), 1);
}

static void cfg_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct configs *cv = v->data;
	const hs_graph *g = cv->doc->g;
	char line[512], ma[32] = "-", mb[32] = "-";

	if (cv->mark_a >= 0)
		snprintf(ma, sizeof ma, "%lld", (long long)cv->mark_a);
	if (cv->mark_b >= 0)
		snprintf(mb, sizeof mb, "%lld", (long long)cv->mark_b);
	snprintf(line, sizeof line, " %lld configs, %s  predicted: %s%s%s", (long long)g->n_configs,
		 g->labeled ? (g->kind == HS_KIND_TILE ? "runtimes normalized" : "runtimes measured")
			    : "runtimes hidden (test split)",
		 cv->doc->pred_label[0] ? cv->doc->pred_label : "-",
		 cv->pred ? "" : ": ", cv->pred ? "" : cv->doc->pred_error);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	if (cv->deflt >= 0)
		snprintf(line, sizeof line, " marks: A=%s B=%s (m marks)  default config: %lld  Enter shows values",
			 ma, mb, (long long)cv->deflt);
	else
		snprintf(line, sizeof line, " marks: A=%s B=%s (m marks)  Enter shows the config's values", ma, mb);
	tui_put(win, y + 1, x, w, line, tui_attr(TUI_C_DIM), 1);
	y += 2;
	h -= 2;
	if (w >= 90) {
		int hw = w >= 130 ? 50 : 36;
		tui_table_draw(win, &cv->tab, y, x, h, w - hw - 1, 1);
		draw_histogram(cv, win, y, x + w - hw, h, hw);
	} else {
		int th = h * 3 / 5;
		tui_table_draw(win, &cv->tab, y, x, th, w, 1);
		draw_histogram(cv, win, y + th, x, h - th, w);
	}
}

static int cfg_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct configs *cv = v->data;
	int64_t r = tui_table_row(&cv->tab);

	switch (req) {
	case TUI_REQ_ENTER:
		if (r >= 0)
			tui_open_config_values(t, cv->doc, r);
		return 1;
	case TUI_REQ_MARK:
		if (r < 0)
			return 1;
		if (r == cv->mark_a) {
			cv->mark_a = cv->mark_b;
			cv->mark_b = -1;
		} else if (r == cv->mark_b) {
			cv->mark_b = -1;
		} else if (cv->mark_a < 0) {
			cv->mark_a = r;
		} else if (cv->mark_b < 0) {
			cv->mark_b = r;
		} else {
			cv->mark_a = cv->mark_b;
			cv->mark_b = r;
		}
		tui_table_changed(&cv->tab); /* the mark column's text changed */
		if (cv->mark_a >= 0 && cv->mark_b >= 0 && cv->doc->g->labeled) {
			const hs_graph *g = cv->doc->g;
			double ra = g->runtime[cv->mark_a], rb = g->runtime[cv->mark_b];
			tui_message(t, 0, "A=%lld B=%lld: B/A runtime %.4f", (long long)cv->mark_a,
				    (long long)cv->mark_b, ra > 0 ? rb / ra : NAN);
		} else
			tui_message(t, 0, "marks: A=%lld B=%lld", (long long)cv->mark_a,
				    (long long)cv->mark_b);
		return 1;
	case TUI_REQ_GOTO: {
		int64_t n;
		if (hs_parse_i64(arg, &n) < 0 || n < 0 || n >= cv->doc->g->n_configs) {
			tui_message(t, 1, "goto: config indices are 0..%lld", (long long)cv->doc->g->n_configs - 1);
			return 1;
		}
		if (!tui_table_goto(&cv->tab, n))
			tui_message(t, 1, "config %lld is filtered out", (long long)n);
		return 1;
	}
	case TUI_REQ_CONFIGS:
		tui_message(t, 0, "this is the configs view");
		return 1;
	case TUI_REQ_COMPARE:
		tui_compare_request(t, v, arg);
		return 1;
	default:
		return 0;
	}
}

static void cfg_done(tui_view *v)
{
	struct configs *cv = v->data;
	tui_table_free(&cv->tab);
	free(cv);
}

static const tui_view_ops cfg_ops = {
	.name = "configs", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_CONFIGS | TUI_S_OPENS, .draw = cfg_draw,
	.request = cfg_request, .done = cfg_done,
};

int tui_configs_marks(const tui_view *v, int64_t *a, int64_t *b)
{
	*a = *b = -1;
	if (!v || v->ops != &cfg_ops)
		return 0;
	const struct configs *cv = v->data;
	*a = cv->mark_a;
	*b = cv->mark_b;
	return 1;
}

int tui_open_configs(tui *t, tui_doc *d)
{
	struct configs *cv;
	const hs_graph *g = d->g;
	hs_error err = {0};

	if (g->n_configs <= 0) {
		tui_message(t, 1, "%s has no configs", g->name);
		return -1;
	}
	if (tui_doc_configs_loaded(d, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	cv = calloc(1, sizeof *cv);
	if (!cv) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	cv->doc = d;
	cv->mark_a = cv->mark_b = -1;
	cv->rank = tui_doc_ranks(d);
	cv->pred = tui_doc_predicted(d);
	cv->deflt = g->kind == HS_KIND_LAYOUT ? graph_default_config(d->g, &err) : -1;
	tui_table_spec spec = cfg_table;
	if (g->kind == HS_KIND_TILE)
		spec.navail = TUI_N(cfg_extra_cols);
	tui_table_init_spec(&cv->tab, &spec, cv, g->n_configs);
	tui_col *rt = tui_table_col_by_key(&cv->tab, GC_RUNTIME);
	if (rt && g->kind == HS_KIND_LAYOUT)
		rt->unit = TUI_U_NS; /* "23.271 s": filters take "runtime < 23.3 s" */
	if (g->kind == HS_KIND_TILE) {
		if (rt)
			snprintf(rt->name, sizeof rt->name, "runtime(norm)");
		for (int i = 0; i < g->config_width; i++) {
			const char *name = hlo_tile_config_name(i, g->config_width);
			int w = (int)strlen(name);
			tui_table_add_avail(&cv->tab, name, GC_FEAT + i, w < 6 ? 6 : w > 22 ? 22 : w, 1);
		}
	}
	return tui_push(t, &cfg_ops, cv, d, "Configs", &cv->tab, NULL) ? 0 : -1;
}

/* ---- One config's values ------------------------------------------------ */

struct cfgvals {
	tui_doc *doc;
	int64_t config;
	tui_table tab;
	int groups; /* layout: 3 groups of width/3 values (output, input, kernel) */
};

enum { VC_NODE, VC_OPCODE, VC_SHAPE, VC_SET, VC_GROUP = 100, VC_VALUE = 1000, VC_NAME, VC_TVALUE };

static int vals_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct cfgvals *cv = ctx;
	const hs_graph *g = cv->doc->g;

	if (g->kind == HS_KIND_TILE) {
		if (c->key == VC_NAME) {
			snprintf(buf, cap, "%s", hlo_tile_config_name((int)row, g->config_width));
			return TUI_C_DEFAULT;
		}
		float f = g->config_feat[(size_t)cv->config * (size_t)g->config_width + (size_t)row];
		snprintf(buf, cap, "%.6g", (double)f);
		return f == 0 ? TUI_C_DIM : TUI_C_DEFAULT;
	}
	int64_t node = g->cfg_node_ids[row];
	switch (c->key) {
	case VC_NODE:
		snprintf(buf, cap, "%lld", (long long)node);
		return TUI_C_DEFAULT;
	case VC_OPCODE:
		if (node < 0 || node >= g->n_nodes)
			return snprintf(buf, cap, "?"), TUI_C_ERROR;
		snprintf(buf, cap, "%s", hlo_opcode_name(g->opcode[node]));
		return TUI_C_CAT + (int)hlo_opcode_category(g->opcode[node]);
	case VC_SHAPE:
		snprintf(buf, cap, "%s", tui_doc_shape(cv->doc, node));
		return TUI_C_DEFAULT;
	case VC_SET: {
		int n = 0;
		for (int j = 0; j < g->ncf_width; j++)
			n += graph_ncf(g, cv->config, row, j) != -1;
		snprintf(buf, cap, "%d", n);
		return n ? TUI_C_DEFAULT : TUI_C_DIM;
	}
	default:
		if (c->key >= VC_VALUE) {
			snprintf(buf, cap, "%g", (double)graph_ncf(g, cv->config, row, c->key - VC_VALUE - 2));
			return TUI_C_DEFAULT;
		}
		{
			int gi = c->key - VC_GROUP, per = g->ncf_width / 3, all_unset = 1;
			size_t len = 0;
			buf[0] = '\0';
			for (int j = 0; j < per; j++) {
				float f = graph_ncf(g, cv->config, row, gi * per + j);
				if (f != -1)
					all_unset = 0;
			}
			if (all_unset) {
				snprintf(buf, cap, "default");
				return TUI_C_DIM;
			}
			for (int j = 0; j < per && len < cap; j++) {
				float f = graph_ncf(g, cv->config, row, gi * per + j);
				if (f == -1)
					continue;
				len += (size_t)snprintf(buf + len, cap - len, "%s%g", len ? "," : "{", (double)f);
			}
			if (len < cap)
				snprintf(buf + len, cap - len, "}");
		}
		return TUI_C_DEFAULT;
	}
}

static double vals_value(void *ctx, int64_t row, const tui_col *c)
{
	struct cfgvals *cv = ctx;
	const hs_graph *g = cv->doc->g;

	if (g->kind == HS_KIND_TILE)
		return c->key == VC_TVALUE
			       ? g->config_feat[(size_t)cv->config * (size_t)g->config_width + (size_t)row]
			       : NAN;
	if (c->key == VC_NODE)
		return (double)g->cfg_node_ids[row];
	if (c->key == VC_SET) {
		int n = 0;
		for (int j = 0; j < g->ncf_width; j++)
			n += graph_ncf(g, cv->config, row, j) != -1;
		return n;
	}
	if (c->key >= VC_VALUE + 2)
		return graph_ncf(g, cv->config, row, c->key - VC_VALUE - 2);
	return NAN;
}

static const tui_table_ops vals_table_ops = {vals_cell, vals_value};

static const tui_col tile_vals_cols[] = {
	{.name = "feature", .key = VC_NAME, .width = 28},
	{.name = "value", .key = VC_TVALUE, .width = 12, .numeric = 1},
};

static const tui_table_spec tile_vals_table = {
	.ops = &vals_table_ops, .title = "Tile config values",
	.cols = tile_vals_cols, .ncols = TUI_N(tile_vals_cols),
};

/* Then, when the values split in three groups, one column per group; and
 * every value can be added. */
static const tui_col layout_vals_cols[] = {
	{.name = "node", .key = VC_NODE, .width = 6, .numeric = 1},
	{.name = "opcode", .key = VC_OPCODE, .width = 16},
	{.name = "shape", .key = VC_SHAPE, .width = 28},
	{.name = "set", .key = VC_SET, .width = 3, .numeric = 1},
	{.name = "output", .key = VC_GROUP + 0, .width = 13},
	{.name = "input", .key = VC_GROUP + 1, .width = 13},
	{.name = "kernel", .key = VC_GROUP + 2, .width = 13},
};

static const tui_table_spec layout_vals_table = {
	.ops = &vals_table_ops, .title = "Layout per configurable node (minor-to-major)",
	.cols = layout_vals_cols, .ncols = TUI_N(layout_vals_cols),
};

static void vals_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct cfgvals *cv = v->data;
	const hs_graph *g = cv->doc->g;
	char line[256], rt[32];

	tui_fmt_runtime(rt, sizeof rt, g, g->labeled ? g->runtime[cv->config] : NAN);
	const int64_t *rank = tui_doc_ranks(cv->doc);
	if (rank)
		snprintf(line, sizeof line, " config %lld  runtime %s  rank %lld of %lld", (long long)cv->config, rt,
			 (long long)rank[cv->config], (long long)g->n_configs);
	else
		snprintf(line, sizeof line, " config %lld  runtime %s", (long long)cv->config, rt);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	tui_table_draw(win, &cv->tab, y + 1, x, h - 1, w, 1);
}

static int vals_request(tui *t, tui_view *v, tui_req req, const char *arg)
{
	struct cfgvals *cv = v->data;
	const hs_graph *g = cv->doc->g;

	if (req == TUI_REQ_ENTER || req == TUI_REQ_DRAW) {
		int64_t r = tui_table_row(&cv->tab);
		if (g->kind != HS_KIND_LAYOUT || r < 0)
			return req == TUI_REQ_ENTER ? (tui_message(t, 0, "tile configs apply to the whole kernel"), 1) : 0;
		int64_t node = g->cfg_node_ids[r];
		if (req == TUI_REQ_ENTER)
			tui_open_node(t, cv->doc, node);
		else
			tui_open_drawing(t, cv->doc, node);
		return 1;
	}
	return 0;
}

static void vals_done(tui_view *v)
{
	struct cfgvals *cv = v->data;
	tui_table_free(&cv->tab);
	free(cv);
}

static const tui_view_ops vals_ops = {
	.name = "config", .scope = TUI_S_TABLE | TUI_S_GRAPH | TUI_S_OPENS, .draw = vals_draw,
	.request = vals_request, .done = vals_done,
};

int tui_open_config_values(tui *t, tui_doc *d, int64_t config)
{
	const hs_graph *g = d->g;
	struct cfgvals *cv;
	hs_error err = {0};
	char title[160];

	if (config < 0 || config >= g->n_configs) {
		tui_message(t, 1, "no config %lld", (long long)config);
		return -1;
	}
	if (tui_doc_configs_loaded(d, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
		return -1;
	}
	cv = calloc(1, sizeof *cv);
	if (!cv) {
		tui_message(t, 1, "out of memory");
		return -1;
	}
	cv->doc = d;
	cv->config = config;
	if (g->kind == HS_KIND_TILE) {
		tui_table_init_spec(&cv->tab, &tile_vals_table, cv, g->config_width);
	} else {
		tui_table_spec spec = layout_vals_table;
		if (g->ncf_width % 3 != 0 || g->ncf_width < 3)
			spec.ncols -= 3; /* no groups */
		tui_table_init_spec(&cv->tab, &spec, cv, g->n_cfg_nodes);
		for (int j = 0; j < g->ncf_width; j++) {
			const char *name = hlo_layout_config_name(j, g->ncf_width);
			int w = (int)strlen(name);
			tui_table_add_avail(&cv->tab, name, VC_VALUE + 2 + j, w < 4 ? 4 : w > 20 ? 20 : w, 1);
		}
	}
	snprintf(title, sizeof title, "Config %lld", (long long)config);
	return tui_push(t, &vals_ops, cv, d, title, &cv->tab, NULL) ? 0 : -1;
}
