/* cost.c - the analytic cost model.
 *
 * Per node (documented 140-wide features only; shapes decoded by
 * hlo_decode_shape, E(x) = elements of x's output, B(x) = its bytes):
 *
 *   FLOPs
 *     convolution      2 * E(out) * window_size_product * C_in / feature_group_count
 *                      (C_in = operand 0's size along the input feature
 *                      dimension named by convolution_dim_numbers_input_feature_dim)
 *     dot              2 * E(out) * Kc, with the contracted size
 *                      Kc = sqrt(E(lhs) * E(rhs) / (E(out) * Bt)): for
 *                      lhs [Bt, M, K], rhs [Bt, K, N], out [Bt, M, N] the
 *                      ratio is Bt * K^2.  Bt is the product of the leading
 *                      dimensions equal in lhs, rhs and out (batch
 *                      dimensions; none for rank 2).
 *     reduce           E(operand 0)            one add per input element
 *     reduce-window    E(out) * window_size_product
 *     select-and-scatter  E(operand 0) * window_size_product
 *     batch-norm-*     5 * E(operand 0)         mean, variance, normalize
 *     fft              5 * E(out) * log2(E(out))
 *     all-reduce, reduce-scatter   E(operand 0)
 *     elementwise      E(out)                   one op per output element
 *     anything else    0
 *   bytes            sum of B(operand) + B(out), except for ops that move
 *                    nothing themselves: parameter, constant, tuple,
 *                    get-tuple-element, bitcast, after-all, add-dependency,
 *                    domain, opt-barrier, while, call, conditional (their
 *                    bodies are nodes of the graph and counted there).
 *   seconds          max(FLOPs / COST_PEAK_FLOPS, bytes / COST_HBM_BYTES_PER_S)
 *
 * Config scores (cost_predict_configs), in nanoseconds:
 *
 *   layout   sum of every node's seconds, plus per configurable node k:
 *            for each of its output, input (operand 0) and kernel (operand 1)
 *            tensors with a set layout L, B(tensor) * (pad(L) - pad(rec)) /
 *            bandwidth, where pad(L) = ceil(d0/128)*128/d0 * ceil(d1/8)*8/d1
 *            for the sizes d0, d1 of L's two most minor dimensions (TPU
 *            memory tiles are 8 x 128) and rec is the layout the graph
 *            records for that tensor; plus, for each configurable node j
 *            feeding k (prep's N_op links) whose output layout is set and
 *            differs from k's set input layout, a transpose copy of k's
 *            input, 2 * B(operand 0) / bandwidth.  Unset (-1) layouts
 *            are the compiler's choice and cost nothing extra.
 *   tile     T * pad + n_tiles * COST_TILE_STEP_SECONDS, where T is the
 *            sum of every node's seconds, the output tile t_i =
 *            output_bounds_i (config features 8..13; 0 = untiled) over the
 *            root's output dims d_i, n_tiles = prod ceil(d_i / t_i) and
 *            pad = prod(ceil(d_i / t_i) * t_i) / prod(d_i).
 */
#include "model/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "model/prep.h"

#define LINK_HOPS 3

struct ops {
	int conv, dot, reduce, reduce_window, select_scatter, bn_grad, bn_inf, bn_train, fft,
		all_reduce, reduce_scatter;
	int free_ops[16];
	int n_free;
};

static void resolve_ops(struct ops *o)
{
	static const char *const free_names[] = {
		"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "after-all",
		"add-dependency", "domain", "opt-barrier", "while", "call", "conditional",
	};

	o->conv = hlo_opcode_id("convolution");
	o->dot = hlo_opcode_id("dot");
	o->reduce = hlo_opcode_id("reduce");
	o->reduce_window = hlo_opcode_id("reduce-window");
	o->select_scatter = hlo_opcode_id("select-and-scatter");
	o->bn_grad = hlo_opcode_id("batch-norm-grad");
	o->bn_inf = hlo_opcode_id("batch-norm-inference");
	o->bn_train = hlo_opcode_id("batch-norm-training");
	o->fft = hlo_opcode_id("fft");
	o->all_reduce = hlo_opcode_id("all-reduce");
	o->reduce_scatter = hlo_opcode_id("reduce-scatter");
	o->n_free = 0;
	for (size_t i = 0; i < sizeof free_names / sizeof free_names[0]; i++)
		o->free_ops[o->n_free++] = hlo_opcode_id(free_names[i]);
}

static int is_free(const struct ops *o, int op)
{
	for (int i = 0; i < o->n_free; i++)
		if (o->free_ops[i] == op)
			return 1;
	return 0;
}

static double elems(const hlo_shape *s)
{
	return s->valid && !s->is_tuple ? (double)s->element_count : 0;
}

static void operand_shape(const hs_graph *g, int64_t v, int i, hlo_shape *s)
{
	if (graph_n_operands(g, v) > i)
		hlo_decode_shape(graph_feat(g, g->operand_idx[g->operand_off[v] + i]), g->feat_width, s);
	else
		memset(s, 0, sizeof *s);
}

static double dot_contracted(const hlo_shape *l, const hlo_shape *r, const hlo_shape *o)
{
	double el = elems(l), er = elems(r), eo = elems(o), bt = 1;
	int lim = l->rank;

	if (eo <= 0 || el <= 0 || er <= 0)
		return 0;
	if (r->rank < lim)
		lim = r->rank;
	if (o->rank < lim)
		lim = o->rank;
	for (int i = 0; i < lim - 2; i++) {
		if (l->dims[i] != r->dims[i] || l->dims[i] != o->dims[i])
			break;
		bt *= (double)l->dims[i];
	}
	return sqrt(el * er / (eo * bt));
}

static void node_cost(const hs_graph *g, const struct ops *ops, int64_t v, cost_estimate *c)
{
	const float *f = graph_feat(g, v);
	int op = g->opcode[v];
	hlo_shape out, in0, in1;
	double eo, flops = 0, bytes = 0, win;

	hlo_decode_shape(f, g->feat_width, &out);
	operand_shape(g, v, 0, &in0);
	eo = elems(&out);
	win = f[HLO_F_WINDOW_SIZE + 7] > 0 ? f[HLO_F_WINDOW_SIZE + 7] : 1;
	if (op == ops->conv) {
		int fd = (int)f[HLO_F_CONV_DIMS + 1];
		double cin = 1, groups = f[HLO_F_FEATURE_GROUP_COUNT] >= 1 ? f[HLO_F_FEATURE_GROUP_COUNT] : 1;

		if (in0.valid && fd >= 0 && fd < in0.rank && in0.dims[fd] > 0)
			cin = (double)in0.dims[fd];
		flops = 2 * eo * win * cin / groups;
	} else if (op == ops->dot) {
		operand_shape(g, v, 1, &in1);
		flops = 2 * eo * dot_contracted(&in0, &in1, &out);
	} else if (op == ops->reduce || op == ops->all_reduce || op == ops->reduce_scatter) {
		flops = elems(&in0);
	} else if (op == ops->reduce_window) {
		flops = eo * win;
	} else if (op == ops->select_scatter) {
		flops = elems(&in0) * win;
	} else if (op == ops->bn_grad || op == ops->bn_inf || op == ops->bn_train) {
		flops = 5 * elems(&in0);
	} else if (op == ops->fft) {
		flops = eo > 1 ? 5 * eo * log2(eo) : 0;
	} else if (hlo_opcode_category(op) == HLO_CAT_ELEMENTWISE) {
		flops = eo;
	}
	if (!is_free(ops, op)) {
		bytes = (double)hlo_shape_bytes(&out);
		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++) {
			hlo_shape s;

			hlo_decode_shape(graph_feat(g, g->operand_idx[e]), g->feat_width, &s);
			bytes += (double)hlo_shape_bytes(&s);
		}
	}
	c->flops = flops;
	c->bytes = bytes;
	c->seconds = fmax(flops / COST_PEAK_FLOPS, bytes / COST_HBM_BYTES_PER_S);
}

void cost_analytic(const hs_graph *g, cost_estimate *out)
{
	struct ops ops;

	if (g->feat_width != HLO_NODE_FEATURES) {
		memset(out, 0, (size_t)g->n_nodes * sizeof *out);
		return;
	}
	resolve_ops(&ops);
	for (int64_t v = 0; v < g->n_nodes; v++)
		node_cost(g, &ops, v, &out[v]);
}

cost_estimate cost_total(const cost_estimate *est, int64_t n)
{
	cost_estimate t = {0, 0, 0};

	for (int64_t i = 0; i < n; i++) {
		t.flops += est[i].flops;
		t.bytes += est[i].bytes;
		t.seconds += est[i].seconds;
	}
	return t;
}

static double graph_seconds(const hs_graph *g)
{
	cost_estimate *est = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *est);
	double s;

	if (!est)
		return NAN;
	cost_analytic(g, est);
	s = cost_total(est, g->n_nodes).seconds;
	free(est);
	return s;
}

/* ---- layout ------------------------------------------------------------------- */

/* Padding factor of a layout (minor-to-major dims l[0..]) over shape s. */
static double pad_factor(const int *l, int r, const hlo_shape *s)
{
	double f = 1;

	if (r >= 1 && l[0] >= 0 && l[0] < s->rank && s->dims[l[0]] > 0) {
		double d = (double)s->dims[l[0]];

		f *= ceil(d / COST_TILE_MINOR) * COST_TILE_MINOR / d;
	}
	if (r >= 2 && l[1] >= 0 && l[1] < s->rank && s->dims[l[1]] > 0) {
		double d = (double)s->dims[l[1]];

		f *= ceil(d / COST_TILE_SECOND_MINOR) * COST_TILE_SECOND_MINOR / d;
	}
	return f;
}

/* Seconds of padding traffic for one tensor under a 6-value layout. */
static double layout_penalty(const float *l6, const hlo_shape *s)
{
	int l[6], r = 0;

	if (!s->valid || s->is_tuple || s->rank < 1)
		return 0;
	for (int i = 0; i < 6; i++) {
		l[i] = (int)l6[i];
		if (l6[i] >= 0)
			r = i + 1;
	}
	if (r == 0 || !s->has_layout)
		return 0;
	return (double)hlo_shape_bytes(s) *
	       (pad_factor(l, r, s) - pad_factor(s->minor_to_major, s->rank, s)) / COST_HBM_BYTES_PER_S;
}

typedef struct layout_terms {
	prep *p;
	double *entry_pen;  /* [n_entries] seconds */
	double *copy;       /* [K] seconds of a transpose of k's input */
} layout_terms;

static void terms_free(layout_terms *t)
{
	prep_free(t->p);
	free(t->entry_pen);
	free(t->copy);
}

static int layout_prepare(hs_graph *g, layout_terms *t, hs_error *err)
{
	prep_opts po = {.radius = 0, .cfg_hops = LINK_HOPS};
	int width_ok = g->feat_width == HLO_NODE_FEATURES && g->ncf_width == HLO_LAYOUT_CONFIG_FEATURES;

	memset(t, 0, sizeof *t);
	t->p = prep_layout(g, &po, err);
	if (!t->p)
		return -1;
	t->entry_pen = calloc((size_t)(t->p->n_entries ? t->p->n_entries : 1), sizeof *t->entry_pen);
	t->copy = calloc((size_t)(t->p->K ? t->p->K : 1), sizeof *t->copy);
	if (!t->entry_pen || !t->copy) {
		terms_free(t);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory costing the layout configs", g->name);
	}
	if (!width_ok)
		return 0; /* no shapes to reason about: only the base time */
	for (int64_t k = 0; k < t->p->K; k++) {
		int64_t v = t->p->cfg_node[k];
		hlo_shape sh[3];

		hlo_decode_shape(graph_feat(g, v), g->feat_width, &sh[0]);
		operand_shape(g, v, 0, &sh[1]);
		operand_shape(g, v, 1, &sh[2]);
		t->copy[k] = 2.0 * (double)hlo_shape_bytes(&sh[1]) / COST_HBM_BYTES_PER_S;
		for (int64_t e = t->p->entry_base[k]; e < t->p->entry_base[k + 1]; e++) {
			const float *val = t->p->entry_val + (size_t)e * (size_t)t->p->ncf_width;

			for (int s = 0; s < 3; s++)
				t->entry_pen[e] += layout_penalty(val + 6 * s, &sh[s]);
		}
	}
	return 0;
}

/* Seconds node k adds in config c. */
static double node_term(const layout_terms *t, int64_t c, int64_t k)
{
	const prep *p = t->p;
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	int32_t in = p->entry_in[row[k]];
	double s = t->entry_pen[row[k]];

	if (in == -1)
		return s;
	for (int64_t i = p->nop_off[k]; i < p->nop_off[k + 1]; i++) {
		int32_t out = p->entry_out[row[p->nop_idx[i]]];

		if (out != -1 && out != in)
			s += t->copy[k];
	}
	return s;
}

/* ---- tile --------------------------------------------------------------------- */

static double tile_factor(const hs_graph *g, int64_t c, const hlo_shape *root, double *tiles)
{
	double pad = 1, n = 1;
	const float *cf = g->config_feat + (size_t)c * (size_t)g->config_width;

	*tiles = 1;
	if (g->config_width != HLO_TILE_CONFIG_FEATURES || !root->valid)
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

/* The root's output shape: the last node marked is_root, else the last. */
static void root_shape(const hs_graph *g, hlo_shape *root)
{
	int64_t r = g->n_nodes - 1;

	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->feat_width > HLO_F_IS_ROOT && graph_feat(g, v)[HLO_F_IS_ROOT] > 0.5f)
			r = v;
	if (r >= 0)
		hlo_decode_shape(graph_feat(g, r), g->feat_width, root);
	else
		memset(root, 0, sizeof *root);
}

int cost_tile_terms(const hs_graph *g, double *pad, double *tiles, double *base_seconds)
{
	hlo_shape root;

	if (g->kind != HS_KIND_TILE)
		return -1;
	*base_seconds = graph_seconds(g);
	if (isnan(*base_seconds))
		return -1;
	root_shape(g, &root);
	for (int64_t c = 0; c < g->n_configs; c++)
		pad[c] = tile_factor(g, c, &root, &tiles[c]);
	return 0;
}

int cost_predict_configs(hs_graph *g, double *out, hs_error *err)
{
	double base = graph_seconds(g);

	if (isnan(base))
		return hs_fail(err, HS_ENOMEM, "%s: out of memory costing the configs", g->name);
	if (g->kind == HS_KIND_TILE) {
		hlo_shape root;

		root_shape(g, &root);
		for (int64_t c = 0; c < g->n_configs; c++) {
			double tiles, pad = tile_factor(g, c, &root, &tiles);

			out[c] = (base * pad + tiles * COST_TILE_STEP_SECONDS) * 1e9;
		}
		return 0;
	}
	layout_terms t;

	if (layout_prepare(g, &t, err) < 0)
		return -1;
	for (int64_t c = 0; c < g->n_configs; c++) {
		double s = base;

		for (int64_t k = 0; k < t.p->K; k++)
			s += node_term(&t, c, k);
		out[c] = s * 1e9;
	}
	terms_free(&t);
	return 0;
}

int cost_node_contributions(hs_graph *g, int64_t a, int64_t b, double *out, hs_error *err)
{
	layout_terms t;

	if (g->kind != HS_KIND_LAYOUT)
		return hs_fail(err, HS_EUSAGE, "%s: per-node contributions need a layout graph", g->name);
	if (a < 0 || b < 0 || a >= g->n_configs || b >= g->n_configs)
		return hs_fail(err, HS_EUSAGE, "%s: config index out of range (0..%lld)", g->name,
			       (long long)g->n_configs - 1);
	if (layout_prepare(g, &t, err) < 0)
		return -1;
	for (int64_t k = 0; k < t.p->K; k++)
		out[k] = (node_term(&t, b, k) - node_term(&t, a, k)) * 1e9;
	terms_free(&t);
	return 0;
}
