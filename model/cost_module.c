/* cost_module.c - the analytic model on an HLO module: fusion-aware, each
 * executed instruction counted once.
 *
 * On a bare .npz (a module without attributes) cost_analytic() is the
 * dataset's view (cost.c): every node alone, from its features, as the
 * config scores and the learned models see it.  With a read module (HLO
 * text, an HloModuleProto, a raw TpuGraphs protobuf) the per-node costs
 * follow how XLA runs it.  The
 * machine, the roofline and the terms are cost.c's: time = max(compute,
 * memory + padding) + overhead, compute = FLOPs / COST_PEAK_FLOPS (times
 * the (8, 128) tile factor of the output for the matrix unit), memory =
 * bytes / COST_HBM_BYTES_PER_S, padding of tiled ops' tensors, and
 * COST_OP_SECONDS per kernel on layout graphs and plain modules (kind
 * "module": no tile configs).  What the module adds:
 *
 * Where an instruction runs.  The entry, while bodies and conditions,
 * branches, called and async computations run their instructions, each a
 * kernel of its own (cost_role_executed); a fusion body and a reducer (the
 * to_apply of reduce, scatter, sort, all-reduce, select-and-scatter, ...)
 * run inside the instruction that calls them.
 *
 * An instruction on its own reads each distinct operand once and writes its
 * output: a slice, dynamic-slice or gather reads only the elements it
 * takes (its output's bytes) of operand 0; a dynamic-update-slice (and a
 * scatter of one operand) updates operand 0 in place: it reads the update
 * and writes the update, not the buffer.  FLOPs as cost.c counts them, from
 * the instruction itself:
 *     convolution   2 E(out) E(kernel) / C_out, C_out the kernel's output
 *                   feature dimension (dim_labels): each output element is
 *                   a dot of the kernel's window over C_in / groups (feature
 *                   and batch groups included)
 *     dot           2 E(out) times the product of operand 0's
 *                   lhs_contracting_dims (cost.c's estimate from the sizes
 *                   when a protobuf does not keep them)
 *     the rest      as cost.c, with the instruction's real operand 0;
 *                   unlearned opcodes by what they are (erf elementwise,
 *                   all-to-all-start a collective, topk as sort)
 * Waiting halves (*-done, async-start and -update, whose wrapped
 * computation does the work) move nothing, nor does a reshape that only
 * adds or drops dims of size 1 (XLA makes it a bitcast), nor what cost.c
 * lists (parameter, constant, tuple, get-tuple-element, bitcast, while,
 * call, conditional, ...).
 *
 * A fusion is one kernel: its FLOPs and compute are its body's (nested
 * fusions as their kernels; a reduce counts its reducer's work, so
 * reducers are not added again), its bytes what it moves in memory: every
 * parameter of the body once (only what slices take when those are all its
 * users; nothing for a buffer the root updates in place) and the root's
 * output (the update only, for an in-place root).  Padding counts on those
 * tensors when the body holds a convolution, dot, reduction, copy or
 * transpose.  It pays one kernel's overhead.
 *
 * A node inside a fusion body or a reducer costs its share of the kernel
 * that runs it, summed over its callers (a caller that runs several such
 * computations splits its cost evenly among them):
 *     FLOPs, compute        in proportion to its own FLOPs, compute
 *     bytes, memory,        in proportion to what it moves in memory (a
 *     padding               parameter its reads, the root its writes; a
 *                           reducer moves nothing: by compute)
 *     overhead              to the root
 *     time                  overhead, plus the kernel's time without it in
 *                           proportion to the term that bounds it (compute
 *                           or memory)
 * A weight that is zero over the whole body falls back to the next (bytes,
 * compute, FLOPs, then everything to the root).  So a body's shares sum to
 * its fusion's cost, field by field, and cost_executed_total() over the
 * executed computations counts every instruction once.
 *
 * Custom-calls of known libraries get FLOPs from their attributes, and run
 * on the matrix unit:
 *     __cublas$gemm, __cublas$lt$matmul[$f8]  2 E(result) K, K the product
 *                   of operand 0's lhs_contracting_dimensions in
 *                   backend_config's dot_dimension_numbers (the estimate
 *                   from the sizes when it has none)
 *     __cudnn$convForward, ...BackwardInput, ...BackwardFilter,
 *     ...BiasActivationForward, ...ForwardGraph
 *                   2 E(y) E(w) / C_out of the forward convolution: its
 *                   output y and filter w are, in XLA's operand order,
 *                   forward (x, w) -> y, backward input (y, w) -> x,
 *                   backward filter (x, y) -> w; C_out from dim_labels
 *     tpu_custom_call (Pallas / Mosaic kernels) the cost_estimate their
 *                   author gave (backend_config custom_call_config:
 *                   flops, bytes_accessed), not on the matrix unit
 *     Sharding, SPMDFullToShardShape, SPMDShardToFullShape  nothing (SPMD
 *                   annotations)
 * A result that is a tuple (result, workspace) counts its first element.
 * Any other target, an opcode nobody knows, and a fusion whose body holds
 * one are unknown (cost_estimate.unknown, every number 0).
 *
 * Each instruction's estimate is for one run; how often it runs (a while
 * body known_trip_count times) is cost_runs' (cost_gpu.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonr.h"
#include "base/progress.h"
#include "loader/hlo_lex.h"
#include "loader/hlo_module.h"
#include "model/cost.h"
#include "model/machine.h"

/* Per computation: its nodes' sums. */
typedef struct msum {
	double flops, compute;
	double hbm;      /* bytes its fusion moves in memory (fusion bodies) */
	double pad;      /* those bytes times (tile factor - 1) */
	int64_t unknown; /* nodes of unknown cost (a fusion of one is one) */
	int tiled;       /* holds a conv, dot, reduction, copy or transpose */
	int ops;         /* instructions that are not free (nested fusions' included) */
	int transposes;  /* holds a transpose */
	int column;      /* holds a reduction of dims that are not the most minor */
} msum;

typedef struct mctx {
	const hs_graph *g;
	const hm_module *mod;
	cost_machine mc;     /* the machine (machine.h) */
	uint8_t cls[256];
	int overhead;        /* kernels pay COST_OP_SECONDS */
	cost_estimate *own;  /* [n] each node as a kernel of its own; a fusion: its body as one
	                      * (the caller's output array: an executed node's own
	                      * estimate is its final one) */
	cost_estimate *body; /* [largest computation] scratch: a body's own estimates
	                      * while its nodes get their shares */
	double *hbm;         /* [n] fusion bodies: bytes a node moves in memory */
	int64_t *order;      /* [n_hcomps] computations, callers first */
	msum *sum;           /* [n_hcomps] */
	int64_t *mark;       /* [n] scratch: distinct operands */
	int id_tanh, id_sort, id_all_to_all, id_done;
} mctx;

enum cc_kind { CC_UNKNOWN, CC_FREE, CC_GEMM, CC_CONV_FWD, CC_CONV_BWD_INPUT, CC_CONV_BWD_FILTER, CC_TPU };

static const struct cc_target {
	const char *name;
	int kind;
} cc_targets[] = {
	{"__cublas$gemm", CC_GEMM},
	{"__cublas$lt$matmul", CC_GEMM},
	{"__cublas$lt$matmul$f8", CC_GEMM},
	{"__cudnn$convForward", CC_CONV_FWD},
	{"__cudnn$convBiasActivationForward", CC_CONV_FWD},
	{"__cudnn$convForwardGraph", CC_CONV_FWD},
	{"__cudnn$convBackwardInput", CC_CONV_BWD_INPUT},
	{"__cudnn$convBackwardFilter", CC_CONV_BWD_FILTER},
	{"tpu_custom_call", CC_TPU},
	{"Sharding", CC_FREE},
	{"SPMDFullToShardShape", CC_FREE},
	{"SPMDShardToFullShape", CC_FREE},
};

/* ---- shapes ------------------------------------------------------------ */

static inline int is_op(const hm_instr *in, const char *op)
{
	/* most opcodes differ in their first letter: no call for them */
	return in->opcode[0] == op[0] && strcmp(in->opcode, op) == 0;
}

int cost_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

static int no_elements(const hm_shape *s)
{
	return s->element_type == HM_TUPLE || s->element_type == HM_TOKEN || s->element_type == HM_OPAQUE ||
	       s->element_type == HM_INVALID;
}

/* Elements of an array shape; 0 for tuples, tokens and unknown shapes. */
static double elems(const hm_shape *s)
{
	double e = 1;

	if (!s || no_elements(s))
		return 0;
	for (int i = 0; i < s->rank; i++)
		e *= (double)s->dims[i];
	return e;
}

static double bytes_of(const hm_shape *s)
{
	return s ? hm_shape_bytes(s) : 0;
}

/* A result (result, workspace...) counts by its first element. */
static const hm_shape *result_of(const hm_shape *s)
{
	return s->element_type == HM_TUPLE && s->n_tuple > 0 ? &s->tuple[0] : s;
}

/* The (8, 128) tile factor of s under its own layout (1 when it has no
 * array layout cost.c can read, or on a GPU), rows of 32-bit elements
 * whatever its type. */
static double pad_factor(const struct mctx *m, const hm_shape *s)
{
	if (m->mc.gpu || !s || no_elements(s) || s->rank > 6)
		return 1;
	hm_shape h = {.element_type = HM_INVALID, .rank = s->rank, .dims = s->dims,
		      .has_layout = s->has_layout && s->layout_rank == s->rank, .minor_to_major = s->minor_to_major};
	for (int i = 0; h.has_layout && i < s->rank; i++)
		h.has_layout = s->minor_to_major[i] >= 0 && s->minor_to_major[i] < s->rank;
	h.layout_rank = h.has_layout ? h.rank : 0;
	return cost_pad_factor(&h, cost_lay_recorded(&h));
}

static const hm_instr *node(const mctx *m, int64_t v)
{
	return hm_instr_at(m->mod, v);
}

static int64_t operand_node(const mctx *m, int64_t v, int i)
{
	return i < graph_hlo_n_operands(m->g, v) ? graph_hlo_operands(m->g, v)[i] : -1;
}

/* Node v's operand i's shape, or NULL. */
static const hm_shape *operand_shape(const mctx *m, int64_t v, int i)
{
	int64_t o = operand_node(m, v, i);
	const hm_instr *in = o >= 0 ? node(m, o) : NULL;

	return in ? in->shape : NULL;
}

/* ---- reading attributes as written --------------------------------------- */

static const char *attr_of(const hm_instr *in, const char *name)
{
	for (int i = 0; i < in->n_attrs; i++)
		if (strcmp(in->attrs[i].name, name) == 0)
			return in->attrs[i].value;
	return NULL;
}

/* The backend_config as JSON (an object as written, or a string holding
 * one: backend_config="{\"k\":1}"): 0 and *d parsed, or -1 when it is
 * none (binary bytes, or out of memory: nothing is then known of it). */
int cost_backend_json(const hm_instr *in, jsonr_doc *d)
{
	const char *t = HM_X(in)->backend_config;
	size_t n = t ? strlen(t) : 0, len, bad;
	hs_error err;
	if (!n)
		return -1;
	if (t[0] != '"' || n < 2)
		return jsonr_parse(t, n, d, &err);
	char *s = malloc(n);
	int rc = !s || hlo_unescape(t + 1, n - 2, s, &len, &bad) != 0 ? -1 : jsonr_parse(s, len, d, &err);
	free(s);
	return rc;
}

/* Member `key` anywhere in v (depth first), or NULL. */
const jsonr_value *cost_json_find(const jsonr_value *v, const char *key, int depth)
{
	const jsonr_value *hit = v->type == JR_OBJECT ? jsonr_get(v, key) : NULL;
	for (size_t i = 0; !hit && depth < JSONR_MAX_DEPTH && i < v->n; i++)
		hit = cost_json_find(&v->items[i], key, depth + 1);
	return hit;
}

/* A number or a number in a string ("15000000", as protobuf's JSON writes
 * 64-bit integers). */
int cost_json_number(const jsonr_value *v, double *out)
{
	char *end;
	if (!v || (v->type != JR_NUMBER && v->type != JR_STRING))
		return 0;
	*out = v->type == JR_NUMBER ? v->num : strtod(v->str, &end);
	return (v->type == JR_NUMBER || (end != v->str && !*end)) && isfinite(*out);
}

/* The product of s's dimensions listed in the first bracketed list at or
 * after `list` ("{1,2}", "[\"1\"]", a backend_config's
 * "lhs_contracting_dimensions":["1"]); 0 when it lists none or one out of
 * range. */
static int dims_product(const char *list, const hm_shape *s, double *out)
{
	const char *p = list ? strpbrk(list, "{[") : NULL;
	int any = 0;

	*out = 1;
	if (!p || !s)
		return 0;
	for (p++; *p && *p != '}' && *p != ']'; p++) {
		if (*p < '0' || *p > '9')
			continue;
		char *end;
		long d = strtol(p, &end, 10);

		if (d < 0 || d >= s->rank)
			return 0;
		*out *= (double)s->dims[d];
		any = 1;
		p = end - 1;
	}
	return any;
}

/* ---- FLOPs ------------------------------------------------------------- */

/* cost.c's estimate of a dot's contracted size from the sizes alone. */
static double contracted_guess(const hm_shape *l, const hm_shape *r, const hm_shape *o)
{
	double el = elems(l), er = elems(r), eo = elems(o), bt = 1;
	int lim;

	if (eo <= 0 || el <= 0 || er <= 0)
		return 0;
	lim = l->rank < r->rank ? l->rank : r->rank;
	lim = o->rank < lim ? o->rank : lim;
	for (int i = 0; i < lim - 2; i++) {
		if (l->dims[i] != r->dims[i] || l->dims[i] != o->dims[i])
			break;
		bt *= (double)l->dims[i];
	}
	return sqrt(el * er / (eo * bt));
}

/* 2 E(y) E(w) / C_out; -1 when the dimension numbers are not known. */
static double conv_flops(const hm_instr *in, const hm_shape *y, const hm_shape *w)
{
	int64_t k = HM_X(in)->conv.kernel_output_feature;

	if (!HM_X(in)->conv.present || !y || !w || no_elements(w) || k < 0 || k >= w->rank)
		return -1;
	if (w->dims[k] <= 0)
		return 0;
	return 2 * elems(y) * elems(w) / (double)w->dims[k];
}

static double window_product(const hm_instr *in)
{
	double p = 1;

	for (int i = 0; i < HM_X(in)->n_window; i++)
		p *= HM_X(in)->window[i].size > 0 ? (double)HM_X(in)->window[i].size : 1;
	return p;
}

/* FLOPs of an instruction other than a fusion or a custom-call, whose
 * (stand-in) learned opcode is op. */
static double plain_flops(const mctx *m, int64_t v, const hm_instr *in, int op)
{
	const hm_shape *out = in->shape, *in0 = operand_shape(m, v, 0);
	const char *name = hlo_opcode_name(op);
	double eo = elems(out), e0 = elems(in0), k;

	if (!strcmp(name, "convolution")) {
		double f = conv_flops(in, out, operand_shape(m, v, 1));
		return f >= 0 ? f : 2 * eo * window_product(in);
	}
	if (!strcmp(name, "dot")) {
		if (dims_product(attr_of(in, "lhs_contracting_dims"), in0, &k))
			return 2 * eo * k;
		return in0 && operand_shape(m, v, 1) ? 2 * eo * contracted_guess(in0, operand_shape(m, v, 1), out) : 0;
	}
	if (!strcmp(name, "reduce") || !strcmp(name, "all-reduce") || !strcmp(name, "all-reduce-start") ||
	    !strcmp(name, "reduce-scatter"))
		return e0;
	if (!strcmp(name, "reduce-window"))
		return eo * window_product(in);
	if (!strcmp(name, "select-and-scatter"))
		return e0 * window_product(in);
	if (!strncmp(name, "batch-norm-", 11))
		return 5 * e0;
	if (!strcmp(name, "fft"))
		return eo > 1 ? 5 * eo * log2(eo) : 0;
	if (hlo_opcode_category(op) == HLO_CAT_ELEMENTWISE)
		return eo;
	return 0;
}

static int cc_kind_of(const hm_instr *in)
{
	for (size_t i = 0; HM_X(in)->custom_call_target && i < sizeof cc_targets / sizeof *cc_targets; i++)
		if (strcmp(HM_X(in)->custom_call_target, cc_targets[i].name) == 0)
			return cc_targets[i].kind;
	return CC_UNKNOWN;
}

/* A custom-call's FLOPs (and, for a TPU kernel's own estimate, its bytes
 * in *bytes, else -1); CC_UNKNOWN when nothing is known of it. */
static int cc_flops(const mctx *m, int64_t v, const hm_instr *in, double *flops, double *bytes)
{
	const hm_shape *res = result_of(in->shape), *op0 = operand_shape(m, v, 0), *op1 = operand_shape(m, v, 1);
	int kind = cc_kind_of(in);
	double k, f = -1;
	const jsonr_value *est;
	jsonr_doc d = {0};
	int json = kind == CC_TPU && cost_backend_json(in, &d) == 0;
	const char *bc = HM_X(in)->backend_config;

	*flops = 0;
	*bytes = -1;
	switch (kind) {
	case CC_GEMM:
		if (bc && dims_product(strstr(bc, "lhs_contracting_dimensions"), op0, &k))
			f = 2 * elems(res) * k;
		else if (op0 && op1)
			f = 2 * elems(res) * contracted_guess(op0, op1, res);
		break;
	case CC_CONV_FWD:
		f = conv_flops(in, res, op1);
		break;
	case CC_CONV_BWD_INPUT:
		f = conv_flops(in, op0, op1);
		break;
	case CC_CONV_BWD_FILTER:
		f = conv_flops(in, op1, res);
		break;
	case CC_TPU:
		est = json ? cost_json_find(d.root, "cost_estimate", 0) : NULL;
		if (est && est->type == JR_OBJECT && cost_json_number(jsonr_get(est, "flops"), &f) &&
		    cost_json_number(jsonr_get(est, "bytes_accessed"), &k))
			*bytes = k;
		else
			f = -1;
		break;
	case CC_FREE:
		return kind;
	default:
		return CC_UNKNOWN;
	}
	if (json)
		jsonr_free(&d);
	if (f < 0)
		return CC_UNKNOWN;
	*flops = f;
	return kind;
}

/* ---- memory traffic ---------------------------------------------------- */

static int reads_part(const hm_instr *in)
{
	return is_op(in, "slice") || is_op(in, "dynamic-slice") || is_op(in, "gather");
}

/* Updates operand 0 in place, when it can (its output is its own buffer). */
static int updates_in_place(const hm_instr *in)
{
	return is_op(in, "dynamic-update-slice") || (is_op(in, "scatter") && in->n_operands == 3);
}

/* Bytes instruction v reads of its operand at position pos. */
static double read_bytes(const mctx *m, int64_t v, const hm_instr *in, int pos, int in_place)
{
	double full = bytes_of(operand_shape(m, v, pos));

	if (pos == 0 && reads_part(in))
		return fmin(full, bytes_of(in->shape));
	if (pos == 0 && in_place && updates_in_place(in))
		return 0;
	return full;
}

static double write_bytes(const mctx *m, int64_t v, const hm_instr *in, int in_place)
{
	if (in_place && updates_in_place(in))
		return bytes_of(operand_shape(m, v, is_op(in, "scatter") ? 2 : 1));
	return bytes_of(in->shape);
}

/* ---- one instruction ----------------------------------------------------- */

/* The learned opcode an instruction counts as: its own, or for an opcode
 * outside the learned list the one it is like; -1 when nothing is. */
static int stand_in(const mctx *m, int64_t v, const hm_instr *in)
{
	int id = m->g->opcode[v];
	char base[64];
	size_t n;

	if (id > 0)
		return id;
	if (!strcmp(in->opcode, "erf"))
		return m->id_tanh;
	if (!strcmp(in->opcode, "topk"))
		return m->id_sort;
	if (!strcmp(in->opcode, "collective-broadcast") || !strcmp(in->opcode, "ragged-all-to-all"))
		return m->id_all_to_all;
	if (cost_ends_with(in->opcode, "-done") || cost_ends_with(in->opcode, "-update"))
		return m->id_done;
	n = strlen(in->opcode);
	if (cost_ends_with(in->opcode, "-start") && n - 6 < sizeof base) {
		memcpy(base, in->opcode, n - 6);
		base[n - 6] = 0;
		id = hlo_opcode_id(base);
		return id > 0 ? id : -1;
	}
	return -1;
}

/* A reshape that only adds or drops dims of size 1 (a bitcast to XLA). */
static int unit_reshape(const hm_shape *a, const hm_shape *b)
{
	int i = 0, j = 0;

	if (!a || !b || no_elements(a) || no_elements(b))
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

/* Moves nothing itself: waits for another half, or is a bitcast. */
static int moves_nothing(const mctx *m, int64_t v, const hm_instr *in)
{
	return cost_ends_with(in->opcode, "-done") || is_op(in, "async-start") || is_op(in, "async-update") ||
	       (is_op(in, "reshape") && unit_reshape(in->shape, operand_shape(m, v, 0)));
}

/* Bytes v moves on its own: each distinct operand once, and its output;
 * *pad gets those bytes times (tile factor - 1). */
static double own_bytes(mctx *m, int64_t v, const hm_instr *in, int mxu, double *pad)
{
	double bytes = write_bytes(m, v, in, 1), b;

	*pad = bytes * (pad_factor(m, in->shape) - 1);
	for (int i = 0; i < graph_hlo_n_operands(m->g, v); i++) {
		int64_t o = operand_node(m, v, i);

		if (m->mark[o] == v)
			continue;
		m->mark[o] = v;
		b = read_bytes(m, v, in, i, 1);
		bytes += b;
		if (!mxu)
			*pad += b * (pad_factor(m, operand_shape(m, v, i)) - 1);
	}
	return bytes;
}

static void finish(const mctx *m, int64_t v, cost_estimate *c, int matrix, int kernel)
{
	if (m->mc.gpu) {
		cost_gpu_node(&m->mc, m->g, v, matrix, kernel, c);
		return;
	}
	c->compute = c->flops * (matrix ? pad_factor(m, result_of(node(m, v)->shape)) : 1) / m->mc.matrix[MP_BF16];
	c->memory = c->bytes / m->mc.hbm;
	c->padding /= m->mc.hbm;
	c->network = cost_network(&m->mc, m->g, v);
	c->overhead = m->overhead && kernel ? m->mc.launch : 0;
	c->seconds = fmax(c->compute, c->memory + c->padding) + c->network + c->overhead;
}

/* Node v (not a fusion) as a kernel of its own. */
static void own_node(mctx *m, int64_t v)
{
	const hm_instr *in = node(m, v);
	cost_estimate *c = &m->own[v];
	int op = in ? stand_in(m, v, in) : -1, matrix;
	double given = -1, pad = 0;
	uint8_t cls;

	memset(c, 0, sizeof *c);
	if (op < 0) {
		c->unknown = 1;
		return;
	}
	cls = m->cls[op];
	matrix = (cls & COST_C_MXU) != 0;
	if (is_op(in, "custom-call")) {
		int kind = cc_flops(m, v, in, &c->flops, &given);

		if (kind == CC_UNKNOWN)
			c->unknown = 1;
		if (kind == CC_UNKNOWN || kind == CC_FREE)
			return;
		matrix = kind != CC_TPU;
	} else {
		c->flops = plain_flops(m, v, in, op);
	}
	if (moves_nothing(m, v, in))
		cls |= COST_C_FREE;
	if (!(cls & COST_C_FREE)) {
		c->bytes = own_bytes(m, v, in, matrix, &pad);
		if (given >= 0)
			c->bytes = given;
		c->padding = cls & COST_C_TILED ? pad : 0;
	}
	finish(m, v, c, matrix, (m->mc.gpu || (cls & COST_C_KERNEL)) && !(cls & COST_C_FREE));
}

/* Fusion v: its body as one kernel. */
static void own_fusion(mctx *m, int64_t v)
{
	const hs_graph *g = m->g;
	cost_estimate *c = &m->own[v];
	double pad = 0;
	int ops = 0, trans = 0, column = 0;

	memset(c, 0, sizeof *c);
	for (int64_t i = g->called_off[v]; i < g->called_off[v + 1]; i++) {
		const msum *s = &m->sum[g->called_idx[i]];

		c->flops += s->flops;
		c->compute += s->compute;
		c->bytes += s->hbm;
		pad += s->tiled ? s->pad : 0;
		c->unknown += s->unknown > 0;
		ops += s->ops, trans |= s->transposes, column |= s->column;
	}
	if (c->unknown) {
		memset(c, 0, sizeof *c);
		c->unknown = 1;
		return;
	}
	if (m->mc.gpu) {
		const char *kind = node(m, v)->fusion_kind;
		cost_gpu_kernel(&m->mc, c, ops > 1 ? ops : 1, column || (trans && kind && !strcmp(kind, "kLoop")));
		return;
	}
	c->memory = c->bytes / m->mc.hbm;
	c->padding = pad / m->mc.hbm;
	c->overhead = m->overhead ? m->mc.launch : 0;
	c->seconds = fmax(c->compute, c->memory + c->padding) + c->overhead;
}

/* ---- fusion bodies ----------------------------------------------------- */

/* 1 when u writes (part of) the output of its computation, whose root is
 * `root`: it is the root, or an element of a root tuple. */
static int writes_output(const mctx *m, int64_t u, int64_t root)
{
	if (u == root)
		return 1;
	if (!is_op(node(m, root), "tuple"))
		return 0;
	for (int64_t i = 0; i < graph_hlo_n_operands(m->g, root); i++)
		if (graph_hlo_operands(m->g, root)[i] == u)
			return 1;
	return 0;
}

/* Bytes a fusion reads of the operand parameter p stands for. */
static double param_reads(const mctx *m, int64_t p, int64_t root)
{
	const hs_graph *g = m->g;
	double full = bytes_of(node(m, p)->shape), total = 0;

	for (int64_t k = 0; k < graph_hlo_n_users(g, p); k++) {
		int64_t u = graph_hlo_users(g, p)[k];
		const hm_instr *in = node(m, u);
		int in_place = writes_output(m, u, root);

		for (int i = 0; i < graph_hlo_n_operands(g, u); i++)
			if (graph_hlo_operands(g, u)[i] == p)
				total += read_bytes(m, u, in, i, in_place);
		if (total >= full)
			return full;
	}
	return total;
}

/* What fusion body k moves in memory, node by node, into m->hbm. */
static void body_traffic(mctx *m, int64_t k)
{
	const hs_hcomp *hc = &m->g->hcomps[k];
	int64_t root = hc->root;
	const hm_instr *r = node(m, root);

	for (int64_t v = hc->first; v < hc->first + hc->count; v++)
		m->hbm[v] = is_op(node(m, v), "parameter") ? param_reads(m, v, root) : 0;
	if (!is_op(r, "tuple")) {
		m->hbm[root] += write_bytes(m, root, r, 1);
		return;
	}
	for (int64_t i = 0; i < graph_hlo_n_operands(m->g, root); i++) {
		int64_t o = graph_hlo_operands(m->g, root)[i];

		m->hbm[root] += write_bytes(m, o, node(m, o), 1);
	}
}

/* A reduce of dims that are not the most minor of its operand's layout (a
 * column reduction: its reads stride across the kept dims). */
static int column_reduce(const mctx *m, int64_t v, const hm_instr *in)
{
	const hm_shape *s = operand_shape(m, v, 0);
	int n = in->n_dimensions, minor = 0;

	if (!is_op(in, "reduce") || !s || n >= s->rank || !s->has_layout || s->layout_rank != s->rank)
		return 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			minor += in->dimensions[j] == s->minor_to_major[i];
	return minor < n;
}

static void sum_comp(mctx *m, int64_t k)
{
	const hs_graph *g = m->g;
	const hs_hcomp *hc = &g->hcomps[k];
	msum *s = &m->sum[k];

	memset(s, 0, sizeof *s);
	for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
		const hm_instr *in = node(m, v);
		int op = in ? stand_in(m, v, in) : -1;

		s->flops += m->own[v].flops;
		s->compute += m->own[v].compute;
		s->unknown += m->own[v].unknown;
		s->tiled |= op >= 0 && (m->cls[op] & COST_C_TILED);
		s->ops += op >= 0 && !(m->cls[op] & COST_C_FREE) && !is_op(in, "fusion");
		s->transposes |= in && is_op(in, "transpose");
		s->column |= in && column_reduce(m, v, in);
		for (int64_t i = g->called_off[v]; in && is_op(in, "fusion") && i < g->called_off[v + 1]; i++) {
			const msum *c = &m->sum[g->called_idx[i]];
			s->tiled |= c->tiled, s->transposes |= c->transposes, s->column |= c->column, s->ops += c->ops;
		}
		if (hc->role == HS_ROLE_FUSION) {
			s->hbm += m->hbm[v];
			s->pad += m->hbm[v] * (pad_factor(m, in ? in->shape : NULL) - 1);
		}
	}
}

/* ---- shares --------------------------------------------------------------- */

static double weight(double a, double sa, double b, double sb, double c, double sc, int is_root)
{
	if (sa > 0)
		return a / sa;
	if (sb > 0)
		return b / sb;
	if (sc > 0)
		return c / sc;
	return is_root;
}

/* Adds frac of the caller's estimate s to the nodes of computation k,
 * whose own estimates are own[0, count). */
static void share(const mctx *m, const cost_estimate *s, double frac, int64_t k, const cost_estimate *own,
		  cost_estimate *est)
{
	const hs_hcomp *hc = &m->g->hcomps[k];
	int64_t end = hc->first + hc->count;
	double sf = 0, sc = 0, sb = 0;
	int by_compute = s->compute >= s->memory + s->padding;
	double run = s->seconds - s->overhead - s->copy;

	for (int64_t v = hc->first; v < end; v++) {
		sf += own[v - hc->first].flops;
		sc += own[v - hc->first].compute;
		sb += hc->role == HS_ROLE_FUSION ? m->hbm[v] : 0;
	}
	for (int64_t v = hc->first; v < end; v++) {
		const cost_estimate *o = &own[v - hc->first];
		cost_estimate *e = &est[v];
		double h = hc->role == HS_ROLE_FUSION ? m->hbm[v] : 0;
		int root = v == hc->root;
		double wf = weight(o->flops, sf, o->compute, sc, h, sb, root);
		double wc = weight(o->compute, sc, o->flops, sf, h, sb, root);
		double wb = weight(h, sb, o->compute, sc, o->flops, sf, root);

		if (s->unknown) {
			e->unknown = 1;
			continue;
		}
		e->flops += frac * s->flops * wf;
		e->compute += frac * s->compute * wc;
		e->bytes += frac * s->bytes * wb;
		e->memory += frac * s->memory * wb;
		e->padding += frac * s->padding * wb;
		e->copy += frac * s->copy * wb;
		e->overhead += root ? frac * s->overhead : 0;
		e->seconds += frac * (run * (by_compute ? wc : wb) + s->copy * wb + (root ? s->overhead : 0));
	}
}

/* How many computations node c runs inside itself (fusion bodies,
 * reducers). */
static int inner_callees(const hs_graph *g, int64_t c)
{
	int n = 0;

	for (int64_t i = g->called_off[c]; i < g->called_off[c + 1]; i++)
		n += !cost_role_executed(g->hcomps[g->called_idx[i]].role);
	return n;
}

/* ---- the module -------------------------------------------------------- */

/* m->order: computations, each after every computation that calls it. */
static int comp_order(mctx *m)
{
	const hs_graph *g = m->g;
	int64_t n = g->n_hcomps, head = 0, tail = 0;
	int64_t *indeg = calloc((size_t)n, sizeof *indeg);
	unsigned char *done = calloc((size_t)n, 1);

	if (!indeg || !done) {
		free(indeg);
		free(done);
		return -1;
	}
	for (int64_t i = 0; i < g->called_off[g->n_nodes]; i++)
		indeg[g->called_idx[i]]++;
	for (int64_t c = 0; c < n; c++)
		if (!indeg[c])
			m->order[tail++] = c, done[c] = 1;
	while (head < tail) {
		const hs_hcomp *hc = &g->hcomps[m->order[head++]];

		for (int64_t i = g->called_off[hc->first]; i < g->called_off[hc->first + hc->count]; i++) {
			int64_t k = g->called_idx[i];

			if (--indeg[k] == 0 && !done[k])
				m->order[tail++] = k, done[k] = 1;
		}
	}
	for (int64_t c = 0; c < n && tail < n; c++) /* a cycle: hm_module_check refuses them */
		if (!done[c])
			m->order[tail++] = c;
	free(indeg);
	free(done);
	return 0;
}

static void mctx_free(mctx *m)
{
	free(m->body);
	free(m->hbm);
	free(m->order);
	free(m->sum);
	free(m->mark);
}

static int mctx_init(mctx *m, const hs_graph *g, cost_estimate *out)
{
	size_t n = (size_t)(g->n_nodes ? g->n_nodes : 1), nc = (size_t)(g->n_hcomps ? g->n_hcomps : 1);

	memset(m, 0, sizeof *m);
	m->g = g;
	m->mod = g->module;
	m->overhead = g->kind != HS_KIND_TILE;
	machine_of(g, &m->mc);
	cost_opcode_classes(m->cls);
	m->id_tanh = hlo_opcode_id("tanh");
	m->id_sort = hlo_opcode_id("sort");
	m->id_all_to_all = hlo_opcode_id("all-to-all");
	m->id_done = hlo_opcode_id("all-reduce-done");
	int64_t largest = 1;
	for (int64_t k = 0; k < g->n_hcomps; k++)
		largest = g->hcomps[k].count > largest ? g->hcomps[k].count : largest;
	m->own = out;
	m->body = calloc((size_t)largest, sizeof *m->body);
	m->hbm = calloc(n, sizeof *m->hbm);
	m->order = calloc(nc, sizeof *m->order);
	m->sum = calloc(nc, sizeof *m->sum);
	m->mark = malloc(n * sizeof *m->mark);
	if (!m->body || !m->hbm || !m->order || !m->sum || !m->mark || comp_order(m) < 0) {
		mctx_free(m);
		return -1;
	}
	for (size_t v = 0; v < n; v++)
		m->mark[v] = -1;
	return 0;
}

int cost_module(const hs_graph *g, cost_estimate *out)
{
	mctx m;

	memset(out, 0, (size_t)g->n_nodes * sizeof *out);
	if (!cost_module_rules(g) || !cost_available(g) || g->module->n_instrs != g->n_nodes)
		return 1;
	if (mctx_init(&m, g, out) < 0)
		return -1;
	/* Callees first: a fusion's kernel needs its body's sums. */
	int64_t done = 0;
	for (int64_t i = g->n_hcomps - 1; i >= 0; i--) {
		int64_t k = m.order[i];
		const hs_hcomp *hc = &g->hcomps[k];

		if (hs_progress_tick("costing the module", (double)done, (double)g->n_nodes)) {
			mctx_free(&m);
			memset(out, 0, (size_t)g->n_nodes * sizeof *out);
			return -1;
		}
		done += hc->count;

		for (int64_t v = hc->first; v < hc->first + hc->count; v++) {
			const hm_instr *in = node(&m, v);

			if (in && is_op(in, "fusion"))
				own_fusion(&m, v);
			else
				own_node(&m, v);
		}
		if (hc->role == HS_ROLE_FUSION)
			body_traffic(&m, k);
		sum_comp(&m, k);
	}
	/* Callers first: a body's shares need its callers' final costs. */
	for (int64_t i = 0; i < g->n_hcomps; i++) {
		const hs_hcomp *hc = &g->hcomps[m.order[i]];

		if (cost_role_executed(hc->role))
			continue;   /* its own estimates are the final ones, in place */
		/* a body: its own estimates aside, then its shares in their place
		 * (its callers come before it: theirs are final) */
		memcpy(m.body, out + hc->first, (size_t)hc->count * sizeof *out);
		memset(out + hc->first, 0, (size_t)hc->count * sizeof *out);
		for (int64_t j = 0; j < hc->n_callers; j++) {
			int64_t c = g->hcomp_callers[hc->callers_at + j];
			int n = inner_callees(g, c);

			share(&m, &out[c], n > 0 ? 1.0 / n : 1, m.order[i], m.body, out);
		}
	}
	mctx_free(&m);
	return 0;
}
