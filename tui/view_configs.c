/* view_configs.c - one row per config: measured runtime (normalized for
 * tile), rank, the active predictor's time (or score) and rank with ties
 * marked, marks A and B and the configs a fit trained on; a histogram of
 * the runtimes; the header names the predictor and its track record on
 * this file.  `f` / `:fit F` fits on a share of the measured configs;
 * Enter shows a config's values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/parse.h"
#include "base/plural.h"
#include "loader/hlo.h"
#include "base/units.h"
#include "tui/tui.h"

#define MAX_BINS 64
#define FIT_DEFAULT 0.2

struct configs {
	tui_doc *doc;
	tui_table tab;
	const int64_t *rank;
	int64_t mark_a, mark_b;
	int64_t deflt;
	int rt_dec;              /* decimals that tell any two runtimes apart */
	const predictor *shown;  /* the predictor the columns were set up for */
	int pred_dec;
	double fit_fraction;     /* `f` fits on this share */
};

enum { GC_CONFIG, GC_RUNTIME, GC_RANK, GC_PRED, GC_PRANK, GC_MARK, GC_RAW, GC_NORM, GC_FEAT = 1000 };

/* Fewest decimals in [lo, hi] that write every two different values of
 * v[0..n) differently: ns-valued ones with their unit, others plain. */
static int decimals_for(const double *v, int64_t n, int ns, int lo, int hi)
{
	int d = hs_unit_decimals(ns ? HS_U_NS : HS_U_NONE, v, (size_t)n, lo, hi);
	return d < 0 ? hi : d; /* out of memory: enough decimals anyway */
}

/* The predictor's times are ns (the analytic estimate, or calibrated on a
 * layout file); else normalized runtimes (calibrated, tile) or scores. */
static int pred_ns(const struct configs *cv, const predictor *p)
{
	return p->time_kind == PRED_TIME_NS || (p->time_kind == PRED_TIME_CALIBRATED && cv->doc->g->kind != HS_KIND_TILE);
}

static void fmt_predicted(const struct configs *cv, const predictor *p, int64_t row, char *buf, size_t cap);
static void fmt_runtime(const struct configs *cv, double v, char *buf, size_t cap);

/* The width the predicted column needs (p) or the runtime column (p NULL),
 * at least `min`. */
static int widest(const struct configs *cv, const predictor *p, int min)
{
	const hs_graph *g = cv->doc->g;
	int w = min;
	char buf[64];

	for (int64_t i = 0; i < g->n_configs; i++) {
		if (p)
			fmt_predicted(cv, p, i, buf, sizeof buf);
		else
			fmt_runtime(cv, g->labeled ? g->runtime[i] : NAN, buf, sizeof buf);
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	return w;
}

/* Sets the predicted column's name and decimals for predictor p. */
static void setup_predictor(struct configs *cv, const predictor *p)
{
	tui_col *c = tui_table_col_by_key(&cv->tab, GC_PRED);

	cv->shown = p;
	if (!p)
		return;
	if (c)
		snprintf(c->name, sizeof c->name, "%s", p->time_kind == PRED_TIME_NS ? "predicted"
						       : p->time_kind == PRED_TIME_CALIBRATED ? "pred(cal)"
											  : "score");
	cv->pred_dec = p->time ? decimals_for(p->time, p->n, pred_ns(cv, p), pred_ns(cv, p) ? 3 : 4, 9) : 4;
	if (c) {
		c->width = widest(cv, p, c->width);
		c->unit = p->time && pred_ns(cv, p) ? HS_U_NS : HS_U_NONE; /* filters: "predicted < 2.6 s" */
	}
	tui_table_changed(&cv->tab);
}

static const predictor *active(struct configs *cv)
{
	const predictor *p = query_session_predictor(cv->doc->qs, NULL);

	if (p != cv->shown)
		setup_predictor(cv, p);
	return p;
}

static void fmt_runtime(const struct configs *cv, double v, char *buf, size_t cap)
{
	hs_unit_format(buf, cap, cv->doc->g->kind == HS_KIND_TILE ? HS_U_NONE : HS_U_NS, v, cv->rt_dec);
}

static void fmt_predicted(const struct configs *cv, const predictor *p, int64_t row, char *buf, size_t cap)
{
	if (!p)
		snprintf(buf, cap, "-");
	else if (!p->time)
		snprintf(buf, cap, "%.5g", p->score[row]);
	else
		hs_unit_format(buf, cap, pred_ns(cv, p) ? HS_U_NS : HS_U_NONE, p->time[row], cv->pred_dec);
}

static void mark_text(const struct configs *cv, const predictor *p, int64_t row, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", row == cv->mark_a ? "A" : row == cv->mark_b ? "B" : "",
		 (row == cv->mark_a || row == cv->mark_b) && row == cv->deflt ? " " : "",
		 row == cv->deflt ? "default" : "",
		 p && p->trained && p->trained[row] && (row == cv->mark_a || row == cv->mark_b || row == cv->deflt) ? " "
														       : "",
		 p && p->trained && p->trained[row] ? "trained" : "");
}

static int cfg_cell(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap)
{
	struct configs *cv = ctx;
	const hs_graph *g = cv->doc->g;
	const predictor *p = active(cv);

	switch (c->key) {
	case GC_CONFIG:
		snprintf(buf, cap, "%lld", (long long)row);
		return row == cv->deflt ? TUI_C_HEADER : TUI_C_DEFAULT;
	case GC_RUNTIME:
		fmt_runtime(cv, g->labeled ? g->runtime[row] : NAN, buf, cap);
		return cv->rank && cv->rank[row] == 1 ? TUI_C_GOOD : TUI_C_DEFAULT;
	case GC_RANK:
		if (cv->rank)
			snprintf(buf, cap, "%lld", (long long)cv->rank[row]);
		else
			snprintf(buf, cap, "-");
		break;
	case GC_PRED:
		if (p && tui_model_hidden(buf, cap))
			return TUI_C_DIM;
		fmt_predicted(cv, p, row, buf, cap);
		return p && p->trained && p->trained[row] ? TUI_C_DIM : TUI_C_DEFAULT;
	case GC_PRANK:
		if (p && tui_model_hidden(buf, cap))
			break;
		if (p)
			snprintf(buf, cap, "%lld%s", (long long)p->rank[row], p->tied[row] ? "=" : "");
		else
			snprintf(buf, cap, "-");
		break;
	case GC_MARK:
		mark_text(cv, p, row, buf, cap);
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
	const predictor *p = active(cv);

	switch (c->key) {
	case GC_CONFIG:
		return (double)row;
	case GC_RUNTIME:
		return g->labeled ? g->runtime[row] : NAN;
	case GC_RANK:
		return cv->rank ? (double)cv->rank[row] : NAN;
	case GC_PRED: /* a time is a monotone map of the score: the same order */
		return !p ? NAN : p->time ? p->time[row] : p->score[row];
	case GC_PRANK:
		return p ? (double)p->rank[row] : NAN;
	case GC_MARK:
		return row == cv->mark_a ? 1 : row == cv->mark_b ? 2 : p && p->trained && p->trained[row] ? 3 : NAN;
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
	{.name = "predicted", .key = GC_PRED, .width = 13, .numeric = 1},
	{.name = "prank", .key = GC_PRANK, .width = 6, .numeric = 1},
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

/* ---- The histogram -------------------------------------------------------------- */

enum { BINS_LINEAR, BINS_LOG, BINS_QUANTILE };

typedef struct bins {
	int n, mode;
	double edge[MAX_BINS + 1];  /* bin b holds [edge[b], edge[b+1]) (the last one closed) */
	int64_t count[MAX_BINS];
} bins;

static int bin_of(const bins *b, double v)
{
	int lo = 0, hi = b->n - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (v >= b->edge[mid])
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Edges by mode over the sorted finite values s[0..m). */
static void make_edges(bins *b, const double *s, int64_t m, int nb, int mode)
{
	double lo = s[0], hi = s[m - 1];

	b->mode = mode;
	b->n = nb;
	if (mode == BINS_QUANTILE) {
		int k = 0;

		b->edge[k++] = lo;
		for (int i = 1; i < nb; i++) {
			double e = s[(int64_t)((double)m * i / nb)];

			if (e > b->edge[k - 1])
				b->edge[k++] = e;
		}
		b->n = k;
		b->edge[k] = hi;
		return;
	}
	for (int i = 0; i <= nb; i++) {
		double f = (double)i / nb;

		b->edge[i] = mode == BINS_LOG ? exp(log(lo) + f * (log(hi) - log(lo))) : lo + f * (hi - lo);
	}
}

static void count_bins(bins *b, const double *s, int64_t m)
{
	memset(b->count, 0, sizeof b->count);
	for (int64_t i = 0; i < m; i++)
		b->count[bin_of(b, s[i])]++;
}

/* Linear bins when the values span a few x at most and spread over them;
 * log-spaced when they span more; quantile bins (equal counts, bars show
 * the density) when one bin would hold more than half of them. */
static void choose_bins(bins *b, const double *s, int64_t m, int nb)
{
	int64_t maxc = 0;
	int mode = s[0] > 0 && s[m - 1] / s[0] > 4 ? BINS_LOG : BINS_LINEAR;

	if (s[m - 1] == s[0]) {
		b->mode = BINS_LINEAR;
		b->n = 1;
		b->edge[0] = b->edge[1] = s[0];
		b->count[0] = m;
		return;
	}
	make_edges(b, s, m, nb, mode);
	count_bins(b, s, m);
	for (int i = 0; i < b->n; i++)
		maxc = b->count[i] > maxc ? b->count[i] : maxc;
	if (maxc * 2 > m) {
		make_edges(b, s, m, nb, BINS_QUANTILE);
		count_bins(b, s, m);
	}
}

/* A histogram of measured runtimes (predicted ones when unlabeled), one
 * bin per row; the cursor's bin is highlighted. */
static void draw_histogram(struct configs *cv, WINDOW *win, int y, int x, int h, int w)
{
	const hs_graph *g = cv->doc->g;
	const predictor *p = active(cv);
	const double *val = g->labeled ? g->runtime : p && p->time ? p->time : p ? p->score : NULL;
	int ns = g->labeled ? g->kind != HS_KIND_TILE : p && p->time && pred_ns(cv, p);
	int64_t maxc = 1, cur = tui_table_row(&cv->tab), m = 0;
	int nb = h - 2, curbin = -1, labw = 13, cntw = 6, barw = w - labw - cntw - 2;
	double *s, maxd = 0;
	char line[256], a[48];
	bins b;

	snprintf(line, sizeof line, "%s", g->labeled ? "Runtime distribution" : "Predicted distribution");
	tui_put(win, y, x, w, line, tui_attr(TUI_C_SECTION), 1);
	if (!val || g->n_configs == 0) {
		tui_put(win, y + 1, x, w, g->labeled ? "no configs" : "no runtimes (test split)", tui_attr(TUI_C_DIM), 0);
		return;
	}
	if (!g->labeled && tui_model_masked()) {
		tui_put(win, y + 1, x, w, "# (model numbers masked)", tui_attr(TUI_C_DIM), 0);
		return;
	}
	nb = nb > MAX_BINS ? MAX_BINS : nb;
	if (nb < 2 || !(s = malloc((size_t)g->n_configs * sizeof *s)))
		return;
	for (int64_t i = 0; i < g->n_configs; i++)
		if (isfinite(val[i]))
			s[m++] = val[i];
	if (m == 0) {
		free(s);
		return;
	}
	qsort(s, (size_t)m, sizeof *s, hs_cmp_double);
	choose_bins(&b, s, m, nb);
	free(s);
	if (cur >= 0 && isfinite(val[cur]))
		curbin = bin_of(&b, val[cur]);
	/* labels: enough decimals to tell the edges apart, within the width */
	int dec = decimals_for(b.edge, b.n, ns, ns ? 3 : 2, 6);
	for (int i = 0; i < b.n; i++) {
		double wdt = b.edge[i + 1] - b.edge[i];

		maxc = b.count[i] > maxc ? b.count[i] : maxc;
		if (b.mode == BINS_QUANTILE && wdt > 0 && b.count[i] / wdt > maxd)
			maxd = b.count[i] / wdt;
	}
	for (int i = 0; i < b.n; i++) {
		attr_t at = i == curbin ? A_REVERSE : 0;
		double wdt = b.edge[i + 1] - b.edge[i];
		double frac = b.mode != BINS_QUANTILE ? (double)b.count[i] / (double)maxc
				: wdt > 0 && maxd > 0 ? b.count[i] / wdt / maxd : 1;

		hs_unit_format(a, sizeof a, ns ? HS_U_NS : HS_U_NONE, b.edge[i], dec);
		tui_put_right(win, y + 1 + i, x, labw, a, tui_attr(TUI_C_DIM) | at);
		tui_bar(line, sizeof line, frac, barw);
		tui_put(win, y + 1 + i, x + labw + 1, barw, line, tui_attr(TUI_C_BAR), 1);
		snprintf(a, sizeof a, "%lld", (long long)b.count[i]);
		tui_put_right(win, y + 1 + i, x + labw + 1 + barw, cntw, a, at);
	}
	snprintf(line, sizeof line, "%s",
		 b.mode == BINS_QUANTILE ? "quantile bins, bar = density" : b.mode == BINS_LOG ? "log-spaced bins"
											  : "linear bins");
	if (curbin >= 0 && (int)strlen(line) + 18 <= w)
		snprintf(line + strlen(line), sizeof line - strlen(line), "; cursor's bin lit");
	tui_put(win, y + 1 + b.n, x, w, line, tui_attr(TUI_C_DIM), 1);
}

/* ---- The view ------------------------------------------------------------------- */

/* "tau 0.757 (...)", with '#' for the numbers under the test switch. */
static void record_text(const predictor *p, char *buf, size_t cap)
{
	if (p->record.n >= 2 && tui_model_masked())
		snprintf(buf, cap, "tau # (ties broken at random #), OPA # on %lld %sconfigs", (long long)p->record.n,
			 p->trained ? "held-out " : "measured ");
	else
		predictor_record_text(p, buf, cap);
}

static void cfg_draw(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w)
{
	struct configs *cv = v->data;
	const hs_graph *g = cv->doc->g;
	const predictor *p = active(cv);
	char line[512], ma[32] = "-", mb[32] = "-", rec[256], what[384];

	if (cv->mark_a >= 0)
		snprintf(ma, sizeof ma, "%lld", (long long)cv->mark_a);
	if (cv->mark_b >= 0)
		snprintf(mb, sizeof mb, "%lld", (long long)cv->mark_b);
	if (p)
		snprintf(what, sizeof what, "%s: %s", p->label,
			 p->time_kind == PRED_TIME_NS ? "predicted times"
			 : p->time_kind == PRED_TIME_CALIBRATED ? "calibrated times" : "scores, lower is faster");
	else if (!cv->doc->model && !cost_available(g))
		snprintf(what, sizeof what, "analytic estimate: n/a (%s)", cost_unavailable_reason(g));
	else {
		hs_error err = {0};
		query_session_predictor(cv->doc->qs, &err);
		snprintf(what, sizeof what, "%s: %s", model_describe(cv->doc->model), err.msg);
	}
	snprintf(line, sizeof line, " predictor: %s", what);
	tui_put(win, y, x, w, line, A_BOLD, 1);
	if (p) {
		record_text(p, rec, sizeof rec);
		snprintf(line, sizeof line, " track record: %s%s", rec,
			 p->n_tied || tui_model_masked() ? "   = tied rank" : "");
	} else {
		snprintf(line, sizeof line, " track record: none (no predictions)");
	}
	tui_put(win, y + 1, x, w, line, 0, 1);
	snprintf(line, sizeof line, " %lld config%s, %s  marks: A=%s B=%s (m)", (long long)g->n_configs,
		 hs_s(g->n_configs),
		 g->labeled ? (g->kind == HS_KIND_TILE ? "runtimes normalized" : "runtimes measured")
			    : "runtimes hidden (test split)", ma, mb);
	if (cv->deflt >= 0)
		snprintf(line + strlen(line), sizeof line - strlen(line), "  default config: %lld", (long long)cv->deflt);
	snprintf(line + strlen(line), sizeof line - strlen(line), "  Enter: values  f: fit");
	tui_put(win, y + 2, x, w, line, tui_attr(TUI_C_DIM), 1);
	y += 3;
	h -= 3;
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

/* `f` or `:fit [FRACTION|off]`. */
static void fit_request(tui *t, struct configs *cv, const char *arg)
{
	hs_error err = {0};
	double f = cv->fit_fraction;
	char *end;
	const predictor *p;

	cv->shown = NULL; /* a new predictor may reuse the old one's address */
	if (arg && !strcmp(arg, "off")) {
		query_session_fit_off(cv->doc->qs);
		tui_message(t, 0, "fit off: predictions from the %s again", model_describe(cv->doc->model));
		active(cv);
		return;
	}
	if (arg) {
		f = strtod(arg, &end);
		if (*end || !(f > 0 && f < 1)) {
			tui_message(t, 1, "fit: FRACTION is a share of the measured configs, between 0 and 1 (or off)");
			return;
		}
	}
	if (query_session_fit(cv->doc->qs, f, 1, &err) < 0) {
		tui_message(t, 1, "fit: %s", err.msg);
		return;
	}
	cv->fit_fraction = f;
	p = active(cv);
	if (tui_model_masked())
		tui_message(t, 0, "fit on %lld config%s (%g%%): held-out tau #; :fit off goes back",
			    (long long)p->n_trained, hs_s(p->n_trained), f * 100);
	else
		tui_message(t, 0, "fit on %lld config%s (%g%%): held-out tau %.3f; :fit off goes back",
			    (long long)p->n_trained, hs_s(p->n_trained), f * 100, p->record.tau);

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
	case TUI_REQ_FIT:
		fit_request(t, cv, arg);
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
		if ((d->g->kind == HS_KIND_MODULE))
			tui_message(t, 0, "no configs: %s is a plain HLO module (no compiler configs or measured runtimes)",
				    g->name);
		else
			tui_message(t, 1, "%s has no configs", g->name);
		return -1;
	}
	const int64_t *rank;
	if (graph_load_node_configs(d->g, &err) < 0 || query_session_ranks(d->qs, &rank, &err) < 0) {
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
	cv->fit_fraction = FIT_DEFAULT;
	cv->rank = rank;
	cv->deflt = g->kind != HS_KIND_TILE ? graph_default_config(d->g, &err) : -1;
	cv->rt_dec = g->labeled ? decimals_for(g->runtime, g->n_configs, g->kind != HS_KIND_TILE,
					       g->kind != HS_KIND_TILE ? 3 : 4, 9)
				: 3;
	tui_table_spec spec = cfg_table;
	if (g->kind == HS_KIND_TILE)
		spec.navail = TUI_N(cfg_extra_cols);
	tui_table_init_spec(&cv->tab, &spec, cv, g->n_configs);
	tui_col *rt = tui_table_col_by_key(&cv->tab, GC_RUNTIME);
	if (rt && g->kind != HS_KIND_TILE)
		rt->unit = HS_U_NS; /* "23.271 s": filters take "runtime < 23.3 s" */
	if (g->kind == HS_KIND_TILE) {
		if (rt)
			snprintf(rt->name, sizeof rt->name, "runtime(norm)");
		for (int i = 0; i < g->config_width; i++) {
			const char *name = hlo_tile_config_name(i, g->config_width);
			int w = (int)strlen(name);
			tui_table_add_avail(&cv->tab, name, GC_FEAT + i, w < 6 ? 6 : w > 22 ? 22 : w, 1);
		}
	}
	if (rt)
		rt->width = widest(cv, NULL, rt->width);
	active(cv);
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
		snprintf(buf, cap, "%s", graph_node_opcode_name(g, node));
		return tui_node_class(g, node);
	case VC_SHAPE:
		snprintf(buf, cap, "%s", query_session_shape(cv->doc->qs, node));
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

	hs_unit_format(rt, sizeof rt, g->kind == HS_KIND_TILE ? HS_U_NONE : HS_U_NS,
		       g->labeled ? g->runtime[cv->config] : NAN, g->kind == HS_KIND_TILE ? 4 : -1);
	const int64_t *rank;
	query_session_ranks(cv->doc->qs, &rank, NULL); /* made by tui_open_config_values */
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
		if (g->kind == HS_KIND_TILE || r < 0)
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
	const int64_t *rank;
	if (graph_load_node_configs(d->g, &err) < 0 || query_session_ranks(d->qs, &rank, &err) < 0) {
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
