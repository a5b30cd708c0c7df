/* cost.c - the analytic cost model, per node: the dataset's view
 * (cost_features), every node alone from its features and the dataset's
 * edges, which the config scores (cost_config.c) and the learned models use.
 * On an HLO module cost_analytic() gives the module's view instead
 * (cost_module.c: fusions as kernels, shares, custom-call FLOPs), built on
 * the same machine and terms.
 *
 * Per node (documented 140-wide features only; shapes decoded by
 * hm_shape_decode, E(x) = elements of x's output, B(x) = its bytes):
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
 *                    bodies are nodes of the graph and counted there), and
 *                    reshapes that only add or drop dims of size 1 (bitcasts).
 *
 *   compute   FLOPs / COST_PEAK_FLOPS; for convolution and dot times the
 *             tile factor of the output (COST_T_MXU): the matrix unit
 *             writes whole (8, 128) tiles, so a minor dim of 32 runs at a
 *             quarter of the peak.
 *   memory    bytes / COST_HBM_BYTES_PER_S
 *   padding   (COST_T_PADDING) for convolution, dot, the reductions, copy
 *             and transpose: sum over the output and every operand of
 *             B * (tile factor - 1) / bandwidth, each tensor under its
 *             layout (the recorded one here; cost_config.c passes a
 *             config's).  Other ops are fused into their neighbours and
 *             read what those hold.
 *   overhead  (COST_T_OVERHEAD, layout graphs) COST_OP_SECONDS for ops that
 *             run as kernels of their own: convolutions and dots, the
 *             reductions, collectives, copy, transpose, sort, gather,
 *             custom-call.  Elementwise and data-movement ops fuse.
 *   seconds   max(compute, memory + padding) + copy + overhead
 *
 * Tile factor of a tensor under a layout (cost_pad_factor): the minor dim
 * rounded up to a multiple of 128 over its size, times the second minor
 * rounded up to a multiple of 8; dims of size 1 are skipped (they take no
 * space), dims a partial layout leaves to the compiler count as unpadded.
 */
#include "model/cost.h"

#include "loader/hlo_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"

struct ops {
	int conv, dot, reduce, reduce_window, select_scatter, bn_grad, bn_inf, bn_train, fft,
		all_reduce, reduce_scatter, copy, transpose, sort, gather, custom_call, reshape;
};

static void resolve_ops(struct ops *o)
{
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
	o->copy = hlo_opcode_id("copy");
	o->transpose = hlo_opcode_id("transpose");
	o->sort = hlo_opcode_id("sort");
	o->gather = hlo_opcode_id("gather");
	o->custom_call = hlo_opcode_id("custom-call");
	o->reshape = hlo_opcode_id("reshape");
}

static int is_named(int op, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hlo_opcode_id(names[i]) == op)
			return 1;
	return 0;
}

/* COST_C_* bits of an opcode. */
static uint8_t op_class(const struct ops *o, int op)
{
	static const char *const free_names[] = {
		"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "after-all",
		"add-dependency", "domain", "opt-barrier", "while", "call", "conditional",
	};
	/* Outputs whose layout is fixed: set by the caller, or by a library
	 * kernel rather than a fusion. */
	static const char *const fixed_names[] = {
		"parameter", "get-tuple-element", "custom-call", "sort", "while", "call", "conditional", "infeed",
	};
	hlo_category cat = hlo_opcode_category(op);
	uint8_t c = 0;

	if (is_named(op, free_names, sizeof free_names / sizeof free_names[0]))
		c |= COST_C_FREE;
	if (op == o->conv || op == o->dot)
		c |= COST_C_MXU;
	if (op == o->reshape)
		c |= COST_C_RESHAPE;
	if (op == o->conv || op == o->dot || cat == HLO_CAT_REDUCTION || op == o->copy || op == o->transpose)
		c |= COST_C_TILED;
	if (cat == HLO_CAT_CONVOLUTION || cat == HLO_CAT_REDUCTION || cat == HLO_CAT_COLLECTIVE ||
	    op == o->copy || op == o->transpose || op == o->sort || op == o->gather || op == o->custom_call)
		c |= COST_C_KERNEL;
	if (!(cat == HLO_CAT_CONVOLUTION || cat == HLO_CAT_COLLECTIVE ||
	      is_named(op, fixed_names, sizeof fixed_names / sizeof fixed_names[0])))
		c |= COST_C_ADOPTS;
	return c;
}

static double elems(const hm_shape *s)
{
	return hm_shape_elements(s);
}

static const hm_shape *operand(const cost_graph *cg, int64_t v, int i)
{
	static const hm_shape none = {.element_type = -1, .rank = -1};
	const hs_graph *g = cg->g;

	if (graph_n_operands(g, v) > i)
		return cg->shape[g->operand_idx[g->operand_off[v] + i]];
	return &none;
}

static double dot_contracted(const hm_shape *l, const hm_shape *r, const hm_shape *o)
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

static double node_flops(const cost_graph *cg, const struct ops *ops, int64_t v)
{
	const float *f = graph_feat(cg->g, v);
	int op = cg->g->opcode[v];
	const hm_shape *out = cg->shape[v], *in0 = operand(cg, v, 0);
	double eo = elems(out), win = f[HLO_F_WINDOW_SIZE + 7] > 0 ? f[HLO_F_WINDOW_SIZE + 7] : 1;

	if (op == ops->conv) {
		int fd = (int)f[HLO_F_CONV_DIMS + 1];
		double cin = 1, groups = f[HLO_F_FEATURE_GROUP_COUNT] >= 1 ? f[HLO_F_FEATURE_GROUP_COUNT] : 1;

		if (fd >= 0 && fd < in0->rank && in0->dims[fd] > 0)
			cin = (double)in0->dims[fd];
		return 2 * eo * win * cin / groups;
	}
	if (op == ops->dot)
		return 2 * eo * dot_contracted(in0, operand(cg, v, 1), out);
	if (op == ops->reduce || op == ops->all_reduce || op == ops->reduce_scatter)
		return elems(in0);
	if (op == ops->reduce_window)
		return eo * win;
	if (op == ops->select_scatter)
		return elems(in0) * win;
	if (op == ops->bn_grad || op == ops->bn_inf || op == ops->bn_train)
		return 5 * elems(in0);
	if (op == ops->fft)
		return eo > 1 ? 5 * eo * log2(eo) : 0;
	if (hlo_opcode_category(op) == HLO_CAT_ELEMENTWISE)
		return eo;
	return 0;
}

int cost_available(const hs_graph *g)
{
	return g->feat_width == HLO_NODE_FEATURES;
}

const char *cost_unavailable_reason(const hs_graph *g)
{
	return cost_available(g) ? "" : "features are not the documented 140";
}

/* ---- layouts and tiles ---------------------------------------------------------- */

cost_lay cost_lay_of(const int *l, int n, const hm_shape *s)
{
	cost_lay r = {-1, -1};

	for (int i = 0; i < n; i++) {
		int d = l[i];

		if (d < 0 || d >= s->rank)
			break;
		if (s->dims[d] == 1)
			continue;
		if (r.m0 < 0) {
			r.m0 = d;
		} else if (d != r.m0) {
			r.m1 = d;
			break;
		}
	}
	return r;
}

/* s's dims from most minor to most major as ints: its layout, or
 * row-major; the number of entries. */
static int minor_to_major(const hm_shape *s, int l[6])
{
	int n = s->rank < 6 ? s->rank : 6;
	for (int i = 0; i < n; i++)
		l[i] = s->has_layout ? (int)s->minor_to_major[i] : s->rank - 1 - i;
	return n < 0 ? 0 : n;
}

cost_lay cost_lay_recorded(const hm_shape *s)
{
	int l[6], n = minor_to_major(s, l);

	return cost_lay_of(l, n, s);
}

int cost_lay_equal(cost_lay a, cost_lay b)
{
	return a.m0 == b.m0 && a.m1 == b.m1;
}

int cost_lay_row_major(const hm_shape *s, cost_lay l)
{
	int d[6], n = s->rank < 6 ? s->rank : 6;

	for (int i = 0; i < n; i++)
		d[i] = s->rank - 1 - i;
	return cost_lay_equal(l, cost_lay_of(d, n, s));
}

static double round_up(double d, double t)
{
	return ceil(d / t) * t / d;
}

int cost_tile_rows(const hm_shape *s)
{
	int b = hm_element_type_bytes(s->element_type);

	return b == 1 || b == 2 ? COST_TILE_SECOND_MINOR * 4 / b : COST_TILE_SECOND_MINOR;
}

double cost_pad_factor(const hm_shape *s, cost_lay l)
{
	double f = 1;

	if (l.m0 >= 0 && l.m0 < s->rank && s->dims[l.m0] > 0)
		f *= round_up((double)s->dims[l.m0], COST_TILE_MINOR);
	if (l.m1 >= 0 && l.m1 < s->rank && s->dims[l.m1] > 0)
		f *= round_up((double)s->dims[l.m1], cost_tile_rows(s));
	return f;
}

/* ---- per node ----------------------------------------------------------------- */

/* A reshape that only adds or drops dims of size 1 keeps every element
 * where it was: XLA turns it into a bitcast, which moves nothing. */
static int only_unit_dims_differ(const hm_shape *a, const hm_shape *b)
{
	int i = 0, j = 0;

	if (a->rank < 0 || b->rank < 0 || a->element_type == HM_TUPLE || b->element_type == HM_TUPLE)
		return 0;
	for (;;) {
		while (i < a->rank && a->dims[i] == 1)
			i++;
		while (j < b->rank && b->dims[j] == 1)
			j++;
		if (i == a->rank || j == b->rank)
			return i == a->rank && j == b->rank;
		if (a->dims[i++] != b->dims[j++])
			return 0;
	}
}

void cost_opcode_classes(uint8_t cls[256])
{
	struct ops ops;

	resolve_ops(&ops);
	for (int op = 0; op < 256; op++)
		cls[op] = op_class(&ops, op);
}

/* The shapes the node features decode to: a bare .npz's module has them
 * already (synthesized from these features); else decoded into own[]. */
static int cost_graph_shapes(cost_graph *cg)
{
	const hs_graph *g = cg->g;
	size_t n = (size_t)(g->n_nodes ? g->n_nodes : 1);

	if (g->hlo && g->hlo->source == HM_SRC_NPZ) {
		for (int64_t v = 0; v < g->n_nodes; v++)
			cg->shape[v] = hm_instr_at(g->module, v)->shape;
		return 0;
	}
	cg->own = malloc(n * sizeof *cg->own);
	cg->store = malloc(n * HM_DECODE_STORE * sizeof *cg->store);
	if (!cg->own || !cg->store)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		hm_shape_decode(cost_available(g) ? graph_feat(g, v) : NULL, g->feat_width, &cg->own[v],
				cg->store + (size_t)v * HM_DECODE_STORE);
		cg->shape[v] = &cg->own[v];
	}
	return 0;
}

int cost_graph_init(cost_graph *cg, const hs_graph *g)
{
	size_t n = (size_t)(g->n_nodes ? g->n_nodes : 1);
	struct ops ops;

	memset(cg, 0, sizeof *cg);
	cg->g = g;
	cg->shape = calloc(n, sizeof *cg->shape);
	cg->flops = calloc(n, sizeof *cg->flops);
	cg->bytes_out = calloc(n, sizeof *cg->bytes_out);
	cg->cls = calloc(n, sizeof *cg->cls);
	if (!cg->shape || !cg->flops || !cg->bytes_out || !cg->cls || cost_graph_shapes(cg) < 0) {
		cost_graph_free(cg);
		return -1;
	}
	if (!cost_available(g))
		return 0;
	cg->layout_overhead = g->kind != HS_KIND_TILE;
	resolve_ops(&ops);
	/* The class depends on the opcode alone: one per opcode id, not one
	 * name lookup per node. */
	uint8_t cls[256];
	cost_opcode_classes(cls);
	for (int64_t v = 0; v < g->n_nodes; v++) {
		cg->bytes_out[v] = hm_shape_bytes(cg->shape[v]);
		cg->cls[v] = cls[g->opcode[v]];
	}
	for (int64_t v = 0; v < g->n_nodes; v++) {
		cg->flops[v] = node_flops(cg, &ops, v);
		if (g->opcode[v] == ops.reshape && graph_n_operands(g, v) == 1 &&
		    only_unit_dims_differ(cg->shape[v], operand(cg, v, 0)))
			cg->cls[v] |= COST_C_FREE;
	}
	return 0;
}

void cost_graph_free(cost_graph *cg)
{
	free(cg->shape);
	free(cg->own);
	free(cg->store);
	free(cg->flops);
	free(cg->bytes_out);
	free(cg->cls);
	memset(cg, 0, sizeof *cg);
}

/* Position of dim d among the dims of s larger than 1 (-1 for none). */
static int nonunit_pos(const hm_shape *s, int d)
{
	int p = 0;

	if (d < 0 || d >= s->rank)
		return -1;
	for (int i = 0; i < d; i++)
		p += s->dims[i] != 1;
	return p;
}

/* A reshape is a bitcast when it keeps every element where it was: its
 * operand and its output both laid out row-major, or, when it only adds or
 * drops dims of size 1, the same dims minor in both.  Otherwise XLA runs it
 * as a copy: its operand read and its output written, each in its own
 * tiles, plus a kernel's overhead. */
static double reshape_copy(const cost_graph *cg, int64_t v, cost_lay out, const cost_lay *ops)
{
	const hs_graph *g = cg->g;
	const hm_shape *s = cg->shape[v], *in;
	cost_lay l;

	if (graph_n_operands(g, v) < 1)
		return 0;
	in = operand(cg, v, 0);
	l = ops ? ops[0] : cost_lay_recorded(in);
	if (cost_lay_row_major(s, out) && cost_lay_row_major(in, l))
		return 0;
	if ((cg->cls[v] & COST_C_FREE) && nonunit_pos(in, l.m0) == nonunit_pos(s, out.m0) &&
	    nonunit_pos(in, l.m1) == nonunit_pos(s, out.m1))
		return 0;
	return (cg->bytes_out[g->operand_idx[g->operand_off[v]]] * cost_pad_factor(in, l) +
		cg->bytes_out[v] * cost_pad_factor(s, out)) / COST_HBM_BYTES_PER_S +
	       (cg->layout_overhead ? COST_OP_SECONDS : 0);
}

void cost_node(const cost_graph *cg, int64_t v, cost_lay out, const cost_lay *ops, unsigned terms,
	       cost_estimate *c)
{
	const hs_graph *g = cg->g;
	uint8_t cls = cg->cls[v];
	double bytes = 0, pad = 0, mxu = 1, relayout = 0;

	memset(c, 0, sizeof *c);
	if (!cost_available(g))
		return;
	if (!(cls & COST_C_FREE)) {
		bytes = cg->bytes_out[v];
		if (cls & COST_C_TILED)
			pad += cg->bytes_out[v] * (cost_pad_factor(cg->shape[v], out) - 1);
		for (int64_t e = g->operand_off[v]; e < g->operand_off[v + 1]; e++) {
			int64_t o = g->operand_idx[e];

			bytes += cg->bytes_out[o];
			if ((cls & COST_C_TILED) && (!(cls & COST_C_MXU) || (terms & COST_T_MXU_OPERANDS))) {
				cost_lay l = ops ? ops[e - g->operand_off[v]] : cost_lay_recorded(cg->shape[o]);

				pad += cg->bytes_out[o] * (cost_pad_factor(cg->shape[o], l) - 1);
			}
		}
	}
	if ((cls & COST_C_MXU) && (terms & COST_T_MXU))
		mxu = cost_pad_factor(cg->shape[v], out);
	if ((cls & COST_C_RESHAPE) && (terms & COST_T_RELAYOUT))
		relayout = reshape_copy(cg, v, out, ops);
	c->flops = cg->flops[v];
	c->bytes = bytes;
	c->compute = c->flops * mxu / COST_PEAK_FLOPS;
	c->memory = bytes / COST_HBM_BYTES_PER_S;
	c->padding = terms & COST_T_PADDING ? pad / COST_HBM_BYTES_PER_S : 0;
	c->overhead = cg->layout_overhead && (cls & COST_C_KERNEL) && (terms & COST_T_OVERHEAD) ? COST_OP_SECONDS : 0;
	c->copy = relayout;
	c->seconds = fmax(c->compute, c->memory + c->padding) + c->copy + c->overhead;
}

int cost_analytic(const hs_graph *g, cost_estimate *out)
{
	int rc = cost_module_rules(g) ? cost_module(g, out) : 1;
	return rc <= 0 ? rc : cost_features(g, out);
}

int cost_features(const hs_graph *g, cost_estimate *out)
{
	cost_graph cg;

	memset(out, 0, (size_t)g->n_nodes * sizeof *out);
	if (!cost_available(g))
		return 0;
	if (cost_graph_init(&cg, g) < 0)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!(v & 4095) && hs_progress_tick("costing the nodes", (double)v, (double)g->n_nodes)) {
			cost_graph_free(&cg);
			memset(out, 0, (size_t)g->n_nodes * sizeof *out);
			return -1;
		}
		cost_node(&cg, v, cost_lay_recorded(cg.shape[v]), NULL, COST_T_ALL, &out[v]);
	}
	cost_graph_free(&cg);
	return 0;
}

static void add_estimate(cost_estimate *t, const cost_estimate *e)
{
	t->flops += e->flops;
	t->bytes += e->bytes;
	t->compute += e->compute;
	t->memory += e->memory;
	t->padding += e->padding;
	t->copy += e->copy;
	t->overhead += e->overhead;
	t->network += e->network;
	t->seconds += e->seconds;
	t->unknown += e->unknown;
}

cost_estimate cost_total(const cost_estimate *est, int64_t n)
{
	cost_estimate t;

	memset(&t, 0, sizeof t);
	for (int64_t i = 0; i < n; i++)
		add_estimate(&t, &est[i]);
	return t;
}

int cost_role_executed(hs_role r)
{
	return r != HS_ROLE_FUSION && r != HS_ROLE_REDUCER;
}

cost_estimate cost_executed_total(const hs_graph *g, const cost_estimate *est)
{
	cost_estimate t;

	memset(&t, 0, sizeof t);
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		const hs_hcomp *hc = &g->hcomps[c];
		if (cost_role_executed(hc->role)) {
			cost_estimate s = cost_total(est + hc->first, hc->count);
			add_estimate(&t, &s);
		}
	}
	return t;
}
