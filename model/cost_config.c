/* cost_config.c - the analytic estimate of each config (nanoseconds).
 *
 *   layout   the sum of every node's seconds (cost.c) with the layouts the
 *            config sets.  Unset (-1) layouts are the compiler's choice: the
 *            layout the graph records.  A config changes:
 *            - a configurable node's output layout, and the layouts of its
 *              input (operand 0) and kernel (operand 1) as it reads them:
 *              its MXU tile factor and padding change;
 *            - what a non-configurable conv, dot, reduction, copy or
 *              transpose reads from a configurable producer: its padding;
 *            - copies (COST_T_COPY): a configurable node asking for an
 *              input or kernel layout its producer does not write, when the
 *              producer cannot write any layout (a parameter, a
 *              get-tuple-element, a kernel of its own, a configurable node
 *              whose output layout is set; elementwise and fusible data
 *              movement ops write whatever their consumer reads), costs a
 *              copy: B * (f_from + f_to) / bandwidth (read and write, each
 *              in its tiles) plus COST_OP_SECONDS when overheads count.
 *   tile     T * pad + n_tiles * COST_TILE_STEP_SECONDS, where T is the
 *            sum of every node's seconds, the output tile t_i =
 *            output_bounds_i (config features 8..13; 0 = untiled) over the
 *            root's output dims d_i (a tuple root: its largest array
 *            operand), n_tiles = prod ceil(d_i / t_i) and
 *            pad = prod(ceil(d_i / t_i) * t_i) / prod(d_i).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo_synth.h"
#include "model/cost.h"
#include "model/prep.h"

/* ---- layout --------------------------------------------------------------------- */

typedef struct lctx {
	cost_graph cg;
	prep *p;
	unsigned terms;
	int64_t *kof;       /* [n_nodes] configurable index, or -1 */
	int64_t *dep;       /* nodes whose time depends on the config */
	int64_t n_dep;
	cost_lay *rec;      /* [n_nodes] recorded layouts */
	cost_lay *elay;     /* [n_entries * 3] output, input, kernel layout of each entry */
	uint8_t *eset;      /* [n_entries * 3] the slot is set */
	cost_lay *opbuf;    /* operand layouts of one node */
	double base_other;  /* seconds of every node not in dep */
} lctx;

static void lctx_free(lctx *x)
{
	cost_graph_free(&x->cg);
	prep_free(x->p);
	free(x->kof);
	free(x->dep);
	free(x->rec);
	free(x->elay);
	free(x->eset);
	free(x->opbuf);
}

/* Entry layouts, from the 18 values (3 slots of 6) when the width is the
 * documented one; otherwise no slot is set. */
static void entry_layouts(lctx *x, const hs_graph *g)
{
	const prep *p = x->p;

	if (p->ncf_width != HLO_LAYOUT_CONFIG_FEATURES)
		return;
	for (int64_t k = 0; k < p->K; k++) {
		int64_t v = p->cfg_node[k];
		const hm_shape *sh[3] = {x->cg.shape[v], NULL, NULL};

		for (int s = 1; s < 3; s++)
			if (graph_n_operands(g, v) >= s)
				sh[s] = x->cg.shape[g->operand_idx[g->operand_off[v] + s - 1]];
		for (int64_t e = p->entry_base[k]; e < p->entry_base[k + 1]; e++) {
			const float *val = p->entry_val + (size_t)e * (size_t)p->ncf_width;

			for (int s = 0; s < 3; s++) {
				int l[6], set = 0;

				for (int i = 0; i < 6; i++) {
					l[i] = (int)val[6 * s + i];
					set |= val[6 * s + i] >= 0;
				}
				if (!sh[s] || !set)
					continue;
				x->eset[e * 3 + s] = 1;
				x->elay[e * 3 + s] = cost_lay_of(l, 6, sh[s]);
			}
		}
	}
}

static int lctx_init(lctx *x, hs_graph *g, unsigned terms, hs_error *err)
{
	prep_opts po = {.radius = 0, .cfg_hops = 0};
	size_t n = (size_t)(g->n_nodes ? g->n_nodes : 1);
	int64_t max_ops = 1;
	uint8_t *mark = NULL;

	memset(x, 0, sizeof *x);
	x->terms = terms;
	if (!cost_available(g))
		return hs_fail(err, HS_EUSAGE, "%s: analytic estimate n/a: %s", g->name, cost_unavailable_reason(g));
	if (!(x->p = prep_layout(g, &po, err)))
		return -1;
	size_t ne = (size_t)(x->p->n_entries ? x->p->n_entries : 1) * 3;
	x->kof = malloc(n * sizeof *x->kof);
	x->dep = malloc(n * sizeof *x->dep);
	x->rec = malloc(n * sizeof *x->rec);
	x->elay = calloc(ne, sizeof *x->elay);
	x->eset = calloc(ne, 1);
	mark = calloc(n, 1);
	if (cost_graph_init(&x->cg, g) < 0 || !x->kof || !x->dep || !x->rec || !x->elay || !x->eset || !mark)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		x->kof[v] = -1;
		x->rec[v] = cost_lay_recorded(x->cg.shape[v]);
	}
	for (int64_t k = 0; k < x->p->K; k++) {
		x->kof[x->p->cfg_node[k]] = k;
		mark[x->p->cfg_node[k]] = 1;
	}
	/* Readers of configurable outputs whose padding counts. */
	for (int64_t k = 0; k < x->p->K; k++) {
		int64_t v = x->p->cfg_node[k];

		for (int64_t e = g->user_off[v]; e < g->user_off[v + 1]; e++) {
			int64_t u = g->user_idx[e];

			if (x->cg.cls[u] & COST_C_TILED)
				mark[u] = 1;
		}
	}
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (mark[v]) {
			x->dep[x->n_dep++] = v;
			if (graph_n_operands(g, v) > max_ops)
				max_ops = graph_n_operands(g, v);
		} else {
			cost_estimate c;

			cost_node(&x->cg, v, x->rec[v], NULL, terms, &c);
			x->base_other += c.seconds;
		}
	}
	if (!(x->opbuf = malloc((size_t)max_ops * sizeof *x->opbuf)))
		goto oom;
	entry_layouts(x, g);
	free(mark);
	return 0;
oom:
	free(mark);
	lctx_free(x);
	return hs_fail(err, HS_ENOMEM, "%s: out of memory costing the configs", g->name);
}

/* Node v's estimate in the config whose entries are row[0..K). */
static void dep_node(lctx *x, const int32_t *row, int64_t v, cost_estimate *est)
{
	const hs_graph *g = x->cg.g;
	int64_t k = x->kof[v], e = k >= 0 ? row[k] : -1, off = g->operand_off[v];
	cost_lay out = e >= 0 && x->eset[e * 3] ? x->elay[e * 3] : x->rec[v];
	double copy = 0;

	for (int64_t j = off; j < g->operand_off[v + 1]; j++) {
		int64_t o = g->operand_idx[j], ko = x->kof[o], slot = j - off;
		cost_lay have = x->rec[o];
		int fixed = !(x->cg.cls[o] & COST_C_ADOPTS);

		if (ko >= 0) {
			int32_t eo = row[ko];

			fixed = x->eset[eo * 3];
			if (fixed)
				have = x->elay[eo * 3];
		}
		x->opbuf[slot] = have;
		if (e >= 0 && slot < 2 && x->eset[e * 3 + 1 + slot]) {
			cost_lay want = x->elay[e * 3 + 1 + slot];

			if (fixed && !cost_lay_equal(want, have) && (x->terms & COST_T_COPY)) {
				const hm_shape *s = x->cg.shape[o];

				copy += x->cg.bytes_out[o] * (cost_pad_factor(s, have) + cost_pad_factor(s, want)) /
					COST_HBM_BYTES_PER_S;
				if (x->terms & COST_T_OVERHEAD)
					copy += COST_OP_SECONDS;
			}
			x->opbuf[slot] = want;
		}
	}
	cost_node(&x->cg, v, out, x->opbuf, x->terms, est);
	est->copy += copy;
	est->seconds += copy;
}

static double config_seconds(lctx *x, int64_t c)
{
	const int32_t *row = x->p->rows + (size_t)c * (size_t)x->p->K;
	double s = x->base_other;

	for (int64_t i = 0; i < x->n_dep; i++) {
		cost_estimate est;

		dep_node(x, row, x->dep[i], &est);
		s += est.seconds;
	}
	return s;
}

/* ---- tile --------------------------------------------------------------------- */

static double graph_seconds(const hs_graph *g)
{
	cost_estimate *est = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *est);
	double s;

	if (!est || cost_features(g, est) < 0) {
		free(est);
		return NAN;
	}
	s = cost_total(est, g->n_nodes).seconds;
	free(est);
	return s;
}

static double tile_factor(const hs_graph *g, int64_t c, const hm_shape *root, double *tiles)
{
	double pad = 1, n = 1;
	const float *cf = g->config_feat + (size_t)c * (size_t)g->config_width;

	*tiles = 1;
	if (g->config_width != HLO_TILE_CONFIG_FEATURES || root->rank < 0)
		return 1;
	for (int i = 0; i < root->rank && i < 6; i++) {
		double d = (double)root->dims[i], t = cf[8 + i];

		if (d <= 0)
			continue;
		if (t <= 0 || t > d)
			t = d;
		n *= ceil(d / t);
		pad *= ceil(d / t) * t / d;
	}
	*tiles = n;
	return pad;
}

/* The root's output shape: the last node marked is_root, else the last.
 * A root that is a tuple (a kernel with several outputs) stands for its
 * largest array operand, found through nested tuples (at most 4 deep). */
static const hm_shape *root_shape(const hs_graph *g, hm_decoded *root)
{
	int64_t r = g->n_nodes - 1;
	const hm_shape *rs;

	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->feat_width > HLO_F_IS_ROOT && graph_feat(g, v)[HLO_F_IS_ROOT] > 0.5f)
			r = v;
	rs = hm_decode(r >= 0 ? graph_feat(g, r) : NULL, g->feat_width, root);
	for (int depth = 0; depth < 4 && rs->element_type == HM_TUPLE; depth++) {
		int64_t best = -1, tup = -1;
		double most = -1;

		for (int64_t e = g->operand_off[r]; e < g->operand_off[r + 1]; e++) {
			int64_t o = g->operand_idx[e];
			hm_decoded d;
			const hm_shape *s = hm_decode(graph_feat(g, o), g->feat_width, &d);

			if (s->element_type == HM_TUPLE && tup < 0)
				tup = o;
			else if (s->rank >= 0 && s->element_type != HM_TUPLE && hm_shape_elements(s) > most) {
				most = hm_shape_elements(s);
				best = o;
			}
		}
		r = tup >= 0 ? tup : best;
		rs = hm_decode(r >= 0 ? graph_feat(g, r) : NULL, r >= 0 ? g->feat_width : 0, root);
	}
	return rs;
}

int cost_tile_terms(const hs_graph *g, double *pad, double *tiles, double *base_seconds)
{
	hm_decoded d;

	if (g->kind != HS_KIND_TILE)
		return -1;
	*base_seconds = graph_seconds(g);
	if (isnan(*base_seconds))
		return -1;
	const hm_shape *root = root_shape(g, &d);
	for (int64_t c = 0; c < g->n_configs; c++)
		pad[c] = tile_factor(g, c, root, &tiles[c]);
	return 0;
}

/* ---- scores ------------------------------------------------------------------- */

int cost_predict_configs_terms(hs_graph *g, unsigned terms, double *out, hs_error *err)
{
	if (!cost_available(g))
		return hs_fail(err, HS_EUSAGE, "%s: analytic estimate n/a: %s", g->name, cost_unavailable_reason(g));
	if (g->kind == HS_KIND_TILE) {
		double base = graph_seconds(g);
		hm_decoded d;

		if (isnan(base))
			return hs_fail(err, HS_ENOMEM, "%s: out of memory costing the configs", g->name);
		const hm_shape *root = root_shape(g, &d);
		for (int64_t c = 0; c < g->n_configs; c++) {
			double tiles, pad = tile_factor(g, c, root, &tiles);

			out[c] = (base * pad + tiles * COST_TILE_STEP_SECONDS) * 1e9;
		}
		return 0;
	}
	lctx x;

	if (lctx_init(&x, g, terms, err) < 0)
		return -1;
	for (int64_t c = 0; c < g->n_configs; c++)
		out[c] = config_seconds(&x, c) * 1e9;
	lctx_free(&x);
	return 0;
}

int cost_predict_configs(hs_graph *g, double *out, hs_error *err)
{
	return cost_predict_configs_terms(g, COST_T_ALL, out, err);
}

int cost_node_contributions(hs_graph *g, int64_t a, int64_t b, double *out, hs_error *err)
{
	lctx x;

	if (g->kind == HS_KIND_TILE)
		return hs_fail(err, HS_EUSAGE, "%s: per-node contributions need a layout graph", g->name);
	if (a < 0 || b < 0 || a >= g->n_configs || b >= g->n_configs)
		return hs_fail(err, HS_EUSAGE, "%s: config index out of range (0..%lld)", g->name,
			       (long long)g->n_configs - 1);
	if (lctx_init(&x, g, COST_T_ALL, err) < 0)
		return -1;
	const int32_t *ra = x.p->rows + (size_t)a * (size_t)x.p->K;
	const int32_t *rb = x.p->rows + (size_t)b * (size_t)x.p->K;

	memset(out, 0, (size_t)x.p->K * sizeof *out);
	for (int64_t i = 0; i < x.n_dep; i++) {
		int64_t v = x.dep[i], nk = 0;
		cost_estimate ea, eb;
		double d;

		dep_node(&x, ra, v, &ea);
		dep_node(&x, rb, v, &eb);
		d = (eb.seconds - ea.seconds) * 1e9;
		if (x.kof[v] >= 0) {
			out[x.kof[v]] += d;
			continue;
		}
		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++)
			nk += x.kof[g->operand_idx[e]] >= 0;
		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++)
			if (x.kof[g->operand_idx[e]] >= 0)
				out[x.kof[g->operand_idx[e]]] += d / (double)nk;
	}
	lctx_free(&x);
	return 0;
}
