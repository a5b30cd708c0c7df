/* synth.c - the synthetic demo dataset (`hloscope synth DIR [--seed N]`).
 *
 * WHAT IS WRITTEN
 *
 * Graphs are built node by node like XLA HLO programs, then encoded exactly
 * as the real TpuGraphs files are (same array names, dtypes and shapes):
 *
 *   layout  whole programs, pre-fusion, as in npz/layout/xla: small reducer
 *           computations (parameter, parameter, add|maximum root) followed by
 *           the entry computation; node_splits delimits every computation.
 *           - resnet_*: a conv-net (an image transposed into the net's
 *             layout, a 7x7 stem convolution, batch norm from batch
 *             statistics, relu as maximum(x, 0), a 3x3 max reduce-window,
 *             bottleneck blocks of 1x1/3x3/1x1 convolutions with projection
 *             shortcuts, a global average pool through a reshape, a dense
 *             layer and a softmax).  NHWC variants have good default layouts;
 *             the NCHW variant puts the feature dimension major, so its
 *             default layouts are slow and search pays off.
 *           - transformer_*: pre-norm transformer layers (layer norm, Q/K/V
 *             dots, reshapes and transposes into heads, scaled masked
 *             softmax, context dot, output projection, residual adds, a tanh
 *             gelu feed-forward).
 *           Configurable nodes: every convolution, dot, reshape, transpose
 *           and copy of the entry computation.
 *   tile    fused kernels of those programs (20-60 nodes): reducer
 *           computations, the fused computation ending in its root, and the
 *           kernel computation (parameters and the fusion, whose operands
 *           include the fused root, as in the real files).
 *
 * Node features follow the dataset README (names looked up with
 * hlo_node_feature_index()): element type one-hot, dims with sum and product,
 * tuple size, parameter number, the "dimensions" attribute (broadcast,
 * reduce, transpose), windows of convolutions and reduce-windows, convolution
 * dimension numbers and group counts, products of empty lists = 1 as in the
 * real files, and the default layout (minor_to_major, descending).
 * Edges [u, v]: u consumes v; sorted by (u, v), duplicates dropped; a node
 * calling a computation (reduce, reduce-window, fusion) also has an edge to
 * that computation's root.  Nodes are in topological order.
 *
 * LAYOUT RUNTIME FORMULA (nanoseconds, written to DIR/README too)
 *
 *   runtime(c) = round((F + sum_k T_k(c) + X(c)) * exp(0.03 * z_c)),
 *   z_c ~ N(0, 1) drawn per config from the file's seeded stream.
 *
 *   A layout is reduced to its two minor-most dimensions (m0, m1) (-1 when
 *   the rank is too small).  For configurable node k, config row c gives
 *   out (features 0-5), in (6-11: operand 0) and kernel (12-17: operand 1).
 *   "-1" means the compiler's choice: out -> the node's default layout
 *   (node_feat minor_to_major); in/kernel -> whatever the operand produces.
 *   actual(v) = v's resolved out if v is configurable, else its default.
 *
 *   F   = FUSE * sum over other nodes (not parameter/constant/tuple) of
 *         OVH + out bytes / BW (elementwise work mostly vanishes into fusions)
 *   T_k = convolution, dot: (OVH + max(flops / MXU, bytes / BW)) * P_k
 *         reshape, transpose, copy: OVH + 2 * out bytes / BW * (bitcast ? 0.05 : 1)
 *   P_k convolution = 1 + 4.0[in.m0 != input feature dim]
 *                       + 3.0[out.m0 != output feature dim]
 *                       + 2.0[kernel.m0 != kernel output feature dim]
 *                       + 1.0[kernel.m1 != kernel input feature dim]
 *   P_k dot (contracting lhs's last dim with rhs's second-to-last)
 *                     = 1 + 3.0[lhs.m0 != lhs rank-1] + 2.0[rhs.m0 != rhs rank-1]
 *                       + 1.5[out.m0 != out rank-1] + 0.5[rhs.m1 != rhs rank-2]
 *   bitcast: transpose (out dim i = in dim perm[i]): perm[out.m_j] == in.m_j
 *            for j = 0, 1; reshape: in and out both row-major in (m0, m1)
 *            (m0 = rank-1, m1 = rank-2); copy: in == out.
 *   X   = sum of copies, 2 * bytes(v) / BW each: for an explicit in/kernel
 *         layout of k that differs from actual(operand); and for each
 *         non-configurable user of a configurable v whose actual layout is
 *         not its default.
 *   OVH = 250 ns, BW = 819 bytes/ns, MXU = 123000 flop/ns, FUSE = 0.25.
 *
 * TILE RUNTIME FORMULA
 *
 *   The kernel's output (the root, or its largest element if a tuple) has dims
 *   D_0..D_{r-1}; config output_bounds t_i.  steps = prod ceil(D_i / t_i),
 *   tile = prod t_i, lane = ceil(t_{r-1}/128)*128/t_{r-1},
 *   sublane = ceil(t_{r-2}/8)*8/t_{r-2} (1 when r < 2).
 *   W = sum over arithmetic nodes of the fused computation (all but
 *       parameters, constants, broadcasts, reshapes, transposes, converts,
 *       tuples and the convolution or dot) of (elements of its largest
 *       operand or of itself) / output elements;
 *   B = (bytes of the fused parameters + bytes of the output) / output elements.
 *   Kernels with a convolution or dot: contraction length K (input features
 *   times window, or the dot's contracting dim); kernel_bounds tile the
 *   kernel operand, k = product of its contracted entries, ksteps = ceil(K/k),
 *   mxu = ceil(k/128)*128/k; otherwise ksteps = 1 and the MXU term is 0.
 *     step = STEP * ksteps + max(tile * W * lane * sublane / VPU
 *                                + ksteps * tile * 2k * mxu * lane / MXU,
 *                                (tile * B + ksteps * k * t_feat * esize) / BW)
 *     ws   = 2 * tile * B + k * t_feat * esize;  step *= 1 + ws / VMEM when
 *            ws > VMEM (spilling)
 *     runtime = round((LAUNCH + steps * step) * exp(0.03 * z_c))
 *   STEP = 120 ns, LAUNCH = 1500 ns, VPU = 4096 flop/ns, VMEM = 16 MiB.
 *   Configs come from tile sizes per dim (powers of two, multiples of 128
 *   for the lane dim, the whole dim) with 64 KiB <= 2 * tile * B <= 64 MiB,
 *   and contracted kernel tiles of at least 16 (or the whole dim).
 *   Config 0 is the compiler's default tiling (from the minor dim up, whole
 *   dims while 2 * tile * B <= 2 MiB, then the largest size that fits, then
 *   1; contracted kernel dim up to 128) and every normalizer is its runtime
 *   (config_runtime_normalizers[j] = config_runtime[0]).
 *
 * Test splits hide labels as the real ones do: runtimes 0, normalizers 1.
 * Everything derives from the seed through per-file xoshiro256** streams,
 * and the zip writer uses a fixed timestamp: same seed, same bytes.
 */
#include "synth/synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/hlo.h"
#include "loader/npz.h"

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64 seeding a xoshiro256** stream.           */

typedef struct sy_rng {
	uint64_t s[4];
} sy_rng;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rng_seed(sy_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(sy_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static double rng_unit(sy_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static int rng_below(sy_rng *r, int n)
{
	return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n);
}

static double rng_normal(sy_rng *r)
{
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ------------------------------------------------------------------ */
/* Opcode ids and feature indices, looked up once by name.             */

#define SY_OPS(X)                                                              \
	X(PARAM, "parameter") X(CONST, "constant") X(ADD, "add")               \
	X(SUB, "subtract") X(MUL, "multiply") X(DIV, "divide")                 \
	X(MAX, "maximum") X(EXP, "exponential") X(RSQRT, "rsqrt")              \
	X(TANH, "tanh") X(CONVERT, "convert") X(BCAST, "broadcast")            \
	X(RESHAPE, "reshape") X(TRANSPOSE, "transpose") X(COPY, "copy")        \
	X(REDUCE, "reduce") X(RWIN, "reduce-window") X(CONV, "convolution")    \
	X(DOT, "dot") X(TUPLE, "tuple") X(FUSION, "fusion")

enum {
#define SY_ENUM(e, name) OP_##e,
	SY_OPS(SY_ENUM)
#undef SY_ENUM
	OP_N
};

static const char *const op_names[OP_N] = {
#define SY_NAME(e, name) name,
	SY_OPS(SY_NAME)
#undef SY_NAME
};

static int op_id[OP_N];

/* Feature families with six entries, a sum and a product. */
enum { W_SIZE, W_STRIDE, W_LO, W_HI, W_WDIL, W_BDIL, W_N };
static const char *const win_prefix[W_N] = {
	"window_size", "window_stride", "window_padding_low",
	"window_padding_high", "window_window_dilation", "window_base_dilation",
};

static const char *const conv_names[14] = {
	"convolution_dim_numbers_input_batch_dim",
	"convolution_dim_numbers_input_feature_dim",
	"convolution_dim_numbers_input_spatial_dims_0",
	"convolution_dim_numbers_input_spatial_dims_1",
	"convolution_dim_numbers_input_spatial_dims_2",
	"convolution_dim_numbers_input_spatial_dims_3",
	"convolution_dim_numbers_kernel_input_feature_dim",
	"convolution_dim_numbers_kernel_output_feature_dim",
	"convolution_dim_numbers_kernel_spatial_dims_0",
	"convolution_dim_numbers_kernel_spatial_dims_1",
	"convolution_dim_numbers_kernel_spatial_dims_2",
	"convolution_dim_numbers_kernel_spatial_dims_3",
	"convolution_dim_numbers_output_batch_dim",
	"convolution_dim_numbers_output_feature_dim",
};

/* Products of empty lists are 1 in the real files. */
static const char *const one_names[6] = {
	"slice_dims_start_product", "slice_dims_stride_product",
	"slice_dims_limit_product", "dynamic_slice_sizes_product",
	"padding_config_edge_padding_low_product",
	"padding_config_edge_padding_high_product",
};

static const int used_types[] = {HLO_ET_PRED, HLO_ET_S32, HLO_ET_F32, HLO_ET_BF16,
				 HLO_ET_TUPLE};

static struct {
	int is_root, tuple_size, param_no;
	int et[HLO_NELEMENT_TYPES];
	int dims[6], dims_sum, dims_prod;
	int dimattr[6];
	int win[W_N][8]; /* _0.._5, _sum, _product */
	int rev[6], rev_true, rev_false;
	int conv[14], fgc, bgc;
	int ones[6];
	int m2m[6];
} fx;

static int fx_ready;
static char fx_missing[160];

static int fx_find(int *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fx_find(int *dst, const char *fmt, ...)
{
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	*dst = hlo_node_feature_index(name);
	if (*dst < 0 || *dst >= HLO_NODE_FEATURES) {
		if (!fx_missing[0])
			snprintf(fx_missing, sizeof fx_missing, "node feature '%s'", name);
		return -1;
	}
	return 0;
}

static int tables_init(hs_error *err)
{
	if (fx_ready)
		return 0;
	for (int i = 0; i < OP_N; i++) {
		op_id[i] = hlo_opcode_id(op_names[i]);
		if (op_id[i] <= 0 || op_id[i] > 255)
			return hs_fail(err, HS_EDATA, "synth: opcode '%s' has no id in the opcode table",
				       op_names[i]);
	}
	int bad = 0;
	bad |= fx_find(&fx.is_root, "is_root");
	bad |= fx_find(&fx.tuple_size, "shape_tuple_shapes_size");
	bad |= fx_find(&fx.param_no, "parameter_number");
	for (int i = 0; i < HLO_NELEMENT_TYPES; i++)
		fx.et[i] = -1;
	for (size_t i = 0; i < sizeof used_types / sizeof used_types[0]; i++)
		bad |= fx_find(&fx.et[used_types[i]], "shape_element_type_is_%s",
			       hlo_element_type_name(used_types[i]));
	for (int i = 0; i < 6; i++) {
		bad |= fx_find(&fx.dims[i], "shape_dimensions_%d", i);
		bad |= fx_find(&fx.dimattr[i], "dimensions_%d", i);
		bad |= fx_find(&fx.rev[i], "window_window_reversal_%d", i);
		bad |= fx_find(&fx.m2m[i], "layout_minor_to_major_%d", i);
		bad |= fx_find(&fx.ones[i], "%s", one_names[i]);
	}
	bad |= fx_find(&fx.dims_sum, "shape_dimensions_sum");
	bad |= fx_find(&fx.dims_prod, "shape_dimensions_product");
	for (int w = 0; w < W_N; w++) {
		for (int i = 0; i < 6; i++)
			bad |= fx_find(&fx.win[w][i], "%s_%d", win_prefix[w], i);
		bad |= fx_find(&fx.win[w][6], "%s_sum", win_prefix[w]);
		bad |= fx_find(&fx.win[w][7], "%s_product", win_prefix[w]);
	}
	bad |= fx_find(&fx.rev_true, "window_window_reversal_true_count");
	bad |= fx_find(&fx.rev_false, "window_window_reversal_false_count");
	for (int i = 0; i < 14; i++)
		bad |= fx_find(&fx.conv[i], "%s", conv_names[i]);
	bad |= fx_find(&fx.fgc, "feature_group_count");
	bad |= fx_find(&fx.bgc, "batch_group_count");
	if (bad)
		return hs_fail(err, HS_EDATA, "synth: %s is unknown to the feature table",
			       fx_missing);
	fx_ready = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* HLO graphs under construction.                                      */

#define R6 6
#define SY_MAX_OPS 8
#define SY_MAX_NODES 4096
#define SY_MAX_COMPS 16

enum { CK_NONE, CK_CONV, CK_DOT, CK_RESHAPE, CK_TRANSPOSE, CK_COPY };

typedef struct sy_node {
	int op;               /* OP_* */
	int et;               /* hlo_element_type */
	int rank;
	int64_t dim[R6];
	int m2m[R6];          /* default layout, minor to major */
	int is_root;
	int param_no;
	int tuple_n;
	int ndimattr, dimattr[R6];
	int nwin;             /* window rank (0: no window) */
	int64_t win[4][R6];   /* size, stride, padding low, padding high */
	int conv;             /* 1 when cd[] holds dimension numbers */
	int cd[14];           /* in the order of conv_names */
	int nops, ops[SY_MAX_OPS];
	int called;           /* root of a called computation, or -1 */
	int cfg;              /* CK_*: layout-configurable kind */
	double flops;
} sy_node;

typedef struct sy_graph {
	sy_node *v;
	int n;
	int comp[SY_MAX_COMPS + 1];
	int ncomp;
	int open;             /* start of the open computation, -1 if none */
	int nparam;
	char bug[160];        /* first construction error: a bug in a builder */
} sy_graph;

static int graph_init(sy_graph *g)
{
	memset(g, 0, sizeof *g);
	g->v = calloc(SY_MAX_NODES, sizeof *g->v);
	g->open = -1;
	return g->v ? 0 : -1;
}

static void graph_done(sy_graph *g)
{
	free(g->v);
	g->v = NULL;
}

static void sy_bug(sy_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sy_bug(sy_graph *g, const char *fmt, ...)
{
	if (g->bug[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->bug, sizeof g->bug, fmt, ap);
	va_end(ap);
}

static int64_t elems(const sy_node *x)
{
	int64_t e = 1;
	for (int i = 0; i < x->rank; i++)
		e *= x->dim[i];
	return e;
}

static int et_bytes(int et)
{
	int b = hlo_element_type_bytes(et);
	return b > 0 ? b : 4;
}

static int64_t nbytes(const sy_node *x)
{
	return x->et == HLO_ET_TUPLE ? 0 : elems(x) * et_bytes(x->et);
}

static int new_node(sy_graph *g, int op, int et, int rank, const int64_t *dim)
{
	if (g->n >= SY_MAX_NODES) {
		sy_bug(g, "more than %d nodes", SY_MAX_NODES);
		return g->n - 1;
	}
	if (g->open < 0)
		sy_bug(g, "node outside a computation");
	int id = g->n++;
	sy_node *x = &g->v[id];
	memset(x, 0, sizeof *x);
	x->op = op;
	x->et = et;
	x->rank = rank;
	x->called = -1;
	for (int i = 0; i < rank; i++) {
		x->dim[i] = dim[i];
		x->m2m[i] = rank - 1 - i;
	}
	return id;
}

static void add_op(sy_graph *g, int x, int operand)
{
	sy_node *v = &g->v[x];
	if (operand < 0 || operand >= x)
		sy_bug(g, "node %d: operand %d is not earlier", x, operand);
	else if (v->nops == SY_MAX_OPS)
		sy_bug(g, "node %d: too many operands", x);
	else
		v->ops[v->nops++] = operand;
}

static void comp_begin(sy_graph *g)
{
	if (g->open >= 0 || g->ncomp == SY_MAX_COMPS)
		sy_bug(g, "computation not closed or too many");
	g->open = g->n;
	g->nparam = 0;
}

static void comp_end(sy_graph *g, int root)
{
	if (root != g->n - 1 || g->open < 0 || g->open >= g->n)
		sy_bug(g, "computation root %d is not its last node", root);
	else
		g->v[root].is_root = 1;
	if (g->ncomp < SY_MAX_COMPS)
		g->comp[g->ncomp++] = g->open;
	g->open = -1;
}

static int same_dims(const sy_node *a, const sy_node *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/* Node builders.  Shapes are computed from operands; mismatches are bugs. */

static int param(sy_graph *g, int et, int rank, const int64_t *dim)
{
	int x = new_node(g, OP_PARAM, et, rank, dim);
	g->v[x].param_no = g->nparam++;
	return x;
}

static int cst(sy_graph *g, int et)
{
	return new_node(g, OP_CONST, et, 0, NULL);
}

static int un(sy_graph *g, int op, int a)
{
	sy_node *A = &g->v[a];
	int x = new_node(g, op, A->et, A->rank, A->dim);
	add_op(g, x, a);
	g->v[x].flops = (double)elems(&g->v[x]);
	return x;
}

static int bin(sy_graph *g, int op, int a, int b)
{
	if (!same_dims(&g->v[a], &g->v[b]))
		sy_bug(g, "%s of nodes %d and %d: shapes differ", op_names[op], a, b);
	int x = un(g, op, a);
	add_op(g, x, b);
	return x;
}

static int cvt(sy_graph *g, int a, int et)
{
	if (g->v[a].et == et)
		return a;
	int x = un(g, OP_CONVERT, a);
	g->v[x].et = et;
	return x;
}

/* Broadcast a into dims; operand dimension i becomes output dimension map[i]. */
static int bcast(sy_graph *g, int a, int rank, const int64_t *dim, const int *map)
{
	sy_node *A = &g->v[a];
	int x = new_node(g, OP_BCAST, A->et, rank, dim);
	sy_node *X = &g->v[x];
	X->ndimattr = A->rank;
	for (int i = 0; i < A->rank; i++) {
		X->dimattr[i] = map[i];
		if (map[i] >= rank || dim[map[i]] != A->dim[i])
			sy_bug(g, "broadcast of node %d: bad dimension map", a);
	}
	add_op(g, x, a);
	return x;
}

/* A scalar constant broadcast to node `like`'s shape. */
static int splat(sy_graph *g, int like, int et)
{
	int64_t d[R6];
	int r = g->v[like].rank;
	memcpy(d, g->v[like].dim, sizeof d);
	return bcast(g, cst(g, et), r, d, NULL);
}

/* Broadcast a into like's shape with operand dims mapped to map[]. */
static int bcast_like(sy_graph *g, int a, int like, const int *map)
{
	int64_t d[R6];
	int r = g->v[like].rank;
	memcpy(d, g->v[like].dim, sizeof d);
	return bcast(g, a, r, d, map);
}

static int reduce(sy_graph *g, int a, int init, int nred, const int *rdims, int reducer)
{
	sy_node *A = &g->v[a];
	int64_t d[R6];
	int r = 0;
	for (int i = 0; i < A->rank; i++) {
		int skip = 0;
		for (int j = 0; j < nred; j++)
			skip |= rdims[j] == i;
		if (!skip)
			d[r++] = A->dim[i];
	}
	int x = new_node(g, OP_REDUCE, A->et, r, d);
	sy_node *X = &g->v[x];
	X->ndimattr = nred;
	for (int j = 0; j < nred; j++)
		X->dimattr[j] = rdims[j];
	X->flops = (double)elems(A);
	X->called = reducer;
	add_op(g, x, a);
	add_op(g, x, init);
	return x;
}

static int reshape(sy_graph *g, int a, int rank, const int64_t *dim)
{
	int x = new_node(g, OP_RESHAPE, g->v[a].et, rank, dim);
	if (elems(&g->v[x]) != elems(&g->v[a]))
		sy_bug(g, "reshape of node %d changes the element count", a);
	g->v[x].cfg = CK_RESHAPE;
	add_op(g, x, a);
	return x;
}

/* Output dimension i is operand dimension perm[i]. */
static int transpose(sy_graph *g, int a, const int *perm)
{
	sy_node *A = &g->v[a];
	int64_t d[R6];
	for (int i = 0; i < A->rank; i++)
		d[i] = A->dim[perm[i]];
	int x = new_node(g, OP_TRANSPOSE, A->et, A->rank, d);
	sy_node *X = &g->v[x];
	X->ndimattr = A->rank;
	memcpy(X->dimattr, perm, sizeof(int) * (size_t)A->rank);
	X->cfg = CK_TRANSPOSE;
	add_op(g, x, a);
	return x;
}

static int copy_of(sy_graph *g, int a)
{
	int x = un(g, OP_COPY, a);
	g->v[x].cfg = CK_COPY;
	g->v[x].flops = 0;
	return x;
}

/* 2-d convolution, NHWC/HWIO or NCHW/OIHW; window k, stride s, padding p. */
static int conv2d(sy_graph *g, int in, int w, int nchw, int k, int s, int p)
{
	sy_node *I = &g->v[in], *W = &g->v[w];
	int fi = nchw ? 1 : 3, sp0 = nchw ? 2 : 1;
	int ko = nchw ? 0 : 3, ki = nchw ? 1 : 2, ks0 = nchw ? 2 : 0;
	int64_t cin = I->dim[fi], cout = W->dim[ko], d[4];
	if (W->dim[ki] != cin || W->dim[ks0] != k || W->dim[ks0 + 1] != k)
		sy_bug(g, "convolution of node %d: kernel %d does not fit", in, w);
	d[0] = I->dim[0];
	d[fi] = cout;
	for (int i = 0; i < 2; i++)
		d[sp0 + i] = (I->dim[sp0 + i] + 2 * p - k) / s + 1;
	int x = new_node(g, OP_CONV, I->et, 4, d);
	sy_node *X = &g->v[x];
	X->nwin = 2;
	for (int i = 0; i < 2; i++) {
		X->win[0][i] = k;
		X->win[1][i] = s;
		X->win[2][i] = p;
		X->win[3][i] = p;
	}
	int cd[14] = {0, fi, sp0, sp0 + 1, 0, 0, ki, ko, ks0, ks0 + 1, 0, 0, 0, fi};
	memcpy(X->cd, cd, sizeof cd);
	X->conv = 1;
	X->cfg = CK_CONV;
	X->flops = 2.0 * (double)elems(X) * (double)(k * k) * (double)cin;
	add_op(g, x, in);
	add_op(g, x, w);
	return x;
}

/* dot: a [..., M, K] times b [K, N] or [batch..., K, N]. */
static int dot(sy_graph *g, int a, int b)
{
	sy_node *A = &g->v[a], *B = &g->v[b];
	int64_t d[R6], kk = A->dim[A->rank - 1];
	int r = 0;
	if (B->dim[B->rank - 2] != kk || (B->rank != 2 && B->rank != A->rank))
		sy_bug(g, "dot of nodes %d and %d: contracting dims differ", a, b);
	for (int i = 0; i < A->rank - 1; i++)
		d[r++] = A->dim[i];
	d[r++] = B->dim[B->rank - 1];
	int x = new_node(g, OP_DOT, A->et, r, d);
	sy_node *X = &g->v[x];
	X->cfg = CK_DOT;
	X->flops = 2.0 * (double)elems(X) * (double)kk;
	add_op(g, x, a);
	add_op(g, x, b);
	return x;
}

/* Max pooling over the spatial dims sp0, sp0+1 (window k, stride s, pad p). */
static int maxpool(sy_graph *g, int a, int sp0, int k, int s, int p, int reducer)
{
	sy_node *A = &g->v[a];
	int64_t d[R6];
	memcpy(d, A->dim, sizeof d);
	for (int i = 0; i < 2; i++)
		d[sp0 + i] = (A->dim[sp0 + i] + 2 * p - k) / s + 1;
	int init = cst(g, A->et);
	int x = new_node(g, OP_RWIN, g->v[a].et, g->v[a].rank, d);
	sy_node *X = &g->v[x];
	X->nwin = X->rank;
	for (int i = 0; i < X->rank; i++) {
		int sp = i == sp0 || i == sp0 + 1;
		X->win[0][i] = sp ? k : 1;
		X->win[1][i] = sp ? s : 1;
		X->win[2][i] = sp ? p : 0;
		X->win[3][i] = sp ? p : 0;
	}
	X->flops = (double)elems(X) * k * k;
	X->called = reducer;
	add_op(g, x, a);
	add_op(g, x, init);
	return x;
}

static int tuple(sy_graph *g, int n, const int *ops)
{
	int x = new_node(g, OP_TUPLE, HLO_ET_TUPLE, 0, NULL);
	g->v[x].tuple_n = n;
	for (int i = 0; i < n; i++)
		add_op(g, x, ops[i]);
	return x;
}

/* A reducer computation: (p0, p1) -> op(p0, p1). */
static int reducer(sy_graph *g, int op, int et)
{
	comp_begin(g);
	int a = param(g, et, 0, NULL), b = param(g, et, 0, NULL);
	int r = bin(g, op, a, b);
	comp_end(g, r);
	return r;
}

/* ------------------------------------------------------------------ */
/* Building blocks shared by programs and kernels.                     */

typedef struct sy_red {
	int add, max; /* f32 reducer roots */
} sy_red;

static int relu(sy_graph *g, int x)
{
	return bin(g, OP_MAX, x, splat(g, x, g->v[x].et));
}

/* Batch norm with batch statistics over every dim but fd, in f32. */
static int batchnorm(sy_graph *g, const sy_red *rd, int x, int fd)
{
	int et = g->v[x].et, r = g->v[x].rank, nred = 0, rdims[R6], map[1] = {fd};
	int64_t c = g->v[x].dim[fd];
	for (int i = 0; i < r; i++)
		if (i != fd)
			rdims[nred++] = i;
	int xf = cvt(g, x, HLO_ET_F32);
	int zero = cst(g, HLO_ET_F32);
	int s = reduce(g, xf, zero, nred, rdims, rd->add);
	int cnt = splat(g, s, HLO_ET_F32);
	int mean = bin(g, OP_DIV, s, cnt);
	int xc = bin(g, OP_SUB, xf, bcast_like(g, mean, xf, map));
	int sq = bin(g, OP_MUL, xc, xc);
	int var = bin(g, OP_DIV, reduce(g, sq, zero, nred, rdims, rd->add), cnt);
	int inv = un(g, OP_RSQRT, bin(g, OP_ADD, var, splat(g, var, HLO_ET_F32)));
	int gamma = param(g, HLO_ET_F32, 1, &c);
	int scale = bin(g, OP_MUL, inv, gamma);
	int y = bin(g, OP_MUL, xc, bcast_like(g, scale, xc, map));
	int beta = param(g, HLO_ET_F32, 1, &c);
	y = bin(g, OP_ADD, y, bcast_like(g, beta, y, map));
	return cvt(g, y, et);
}

/* Layer norm over the last dim, in f32, with gamma and beta. */
static int layernorm(sy_graph *g, const sy_red *rd, int x)
{
	int et = g->v[x].et, r = g->v[x].rank, last = r - 1, keep[R6], map[1] = {last};
	int64_t dm = g->v[x].dim[last];
	for (int i = 0; i < last; i++)
		keep[i] = i;
	int xf = cvt(g, x, HLO_ET_F32);
	int zero = cst(g, HLO_ET_F32);
	int s = reduce(g, xf, zero, 1, &last, rd->add);
	int mean = bin(g, OP_DIV, s, splat(g, s, HLO_ET_F32));
	int xc = bin(g, OP_SUB, xf, bcast_like(g, mean, xf, keep));
	int v = reduce(g, bin(g, OP_MUL, xc, xc), zero, 1, &last, rd->add);
	v = bin(g, OP_DIV, v, splat(g, v, HLO_ET_F32));
	int inv = un(g, OP_RSQRT, bin(g, OP_ADD, v, splat(g, v, HLO_ET_F32)));
	int y = bin(g, OP_MUL, xc, bcast_like(g, inv, xc, keep));
	int gamma = param(g, HLO_ET_F32, 1, &dm), beta = param(g, HLO_ET_F32, 1, &dm);
	y = bin(g, OP_MUL, y, bcast_like(g, gamma, y, map));
	y = bin(g, OP_ADD, y, bcast_like(g, beta, y, map));
	return cvt(g, y, et);
}

/* Softmax over the last dim, in f32; returns the result in et. */
static int softmax(sy_graph *g, const sy_red *rd, int x, int et)
{
	int r = g->v[x].rank, last = r - 1, keep[R6];
	for (int i = 0; i < last; i++)
		keep[i] = i;
	int xf = cvt(g, x, HLO_ET_F32);
	int m = reduce(g, xf, cst(g, HLO_ET_F32), 1, &last, rd->max);
	int e = un(g, OP_EXP, bin(g, OP_SUB, xf, bcast_like(g, m, xf, keep)));
	int s = reduce(g, e, cst(g, HLO_ET_F32), 1, &last, rd->add);
	int p = bin(g, OP_DIV, e, bcast_like(g, s, e, keep));
	return cvt(g, p, et);
}

/* tanh gelu: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in x's type. */
static int gelu(sy_graph *g, int x)
{
	int et = g->v[x].et;
	int x3 = bin(g, OP_MUL, bin(g, OP_MUL, x, x), x);
	int in = bin(g, OP_ADD, x, bin(g, OP_MUL, x3, splat(g, x, et)));
	int t = un(g, OP_TANH, bin(g, OP_MUL, in, splat(g, x, et)));
	int h = bin(g, OP_MUL, x, splat(g, x, et));
	return bin(g, OP_MUL, h, bin(g, OP_ADD, t, splat(g, x, et)));
}

/* x [..., K] times a new weight [K, N] plus a new bias [N]. */
static int dense(sy_graph *g, int x, int64_t n)
{
	int et = g->v[x].et, r = g->v[x].rank;
	int64_t w[2] = {g->v[x].dim[r - 1], n};
	int y = dot(g, x, param(g, et, 2, w));
	int map[1] = {r - 1};
	return bin(g, OP_ADD, y, bcast_like(g, param(g, et, 1, &n), y, map));
}

static int conv_param(sy_graph *g, int in, int nchw, int64_t cout, int k)
{
	int64_t cin = g->v[in].dim[nchw ? 1 : 3];
	int64_t w[4];
	if (nchw) {
		w[0] = cout; w[1] = cin; w[2] = k; w[3] = k;
	} else {
		w[0] = k; w[1] = k; w[2] = cin; w[3] = cout;
	}
	return param(g, g->v[in].et, 4, w);
}

static int conv_bn(sy_graph *g, const sy_red *rd, int x, int nchw, int64_t cout, int k, int s,
		   int act)
{
	int w = conv_param(g, x, nchw, cout, k);
	int y = batchnorm(g, rd, conv2d(g, x, w, nchw, k, s, k / 2), nchw ? 1 : 3);
	return act ? relu(g, y) : y;
}

/* ------------------------------------------------------------------ */
/* Whole programs (layout collection).                                 */

typedef struct prog_spec {
	const char *name;
	int kind;             /* 0 conv-net, 1 transformer */
	int64_t batch;
	int64_t size;         /* conv-net: feature map side; transformer: sequence */
	int64_t width;        /* conv-net: base channels; transformer: model dim */
	int depth;            /* conv-net: blocks per stage; transformer: layers */
	int stages;           /* conv-net stages; transformer: heads */
	int nchw;
	int et;
	const char *split;
	int cfg_default, cfg_random; /* configs per file in each search */
} prog_spec;

static void build_resnet(sy_graph *g, const prog_spec *p)
{
	sy_red rd;
	rd.add = reducer(g, OP_ADD, HLO_ET_F32);
	rd.max = reducer(g, OP_MAX, p->et);
	comp_begin(g);
	int nchw = p->nchw, fd = nchw ? 1 : 3, sp0 = nchw ? 2 : 1;
	int64_t side = p->size * 4;
	/* The image arrives in the other layout and is transposed into the net's. */
	int64_t img[4] = {p->batch, 3, side, side};
	int to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
	if (nchw) {
		img[1] = side;
		img[3] = 3;
	}
	int x = param(g, HLO_ET_F32, 4, img);
	x = cvt(g, transpose(g, x, nchw ? to_nchw : to_nhwc), p->et);
	x = conv_bn(g, &rd, x, nchw, p->width, 7, 2, 1);
	x = maxpool(g, relu(g, x), sp0, 3, 2, 1, rd.max);
	for (int s = 0; s < p->stages; s++) {
		int64_t mid = p->width << s, out = mid * 4;
		for (int b = 0; b < p->depth; b++) {
			int stride = (s > 0 && b == 0) ? 2 : 1;
			int y = conv_bn(g, &rd, x, nchw, mid, 1, 1, 1);
			y = conv_bn(g, &rd, y, nchw, mid, 3, stride, 1);
			y = conv_bn(g, &rd, y, nchw, out, 1, 1, 0);
			int sc = b == 0 ? conv_bn(g, &rd, x, nchw, out, 1, stride, 0) : x;
			x = relu(g, bin(g, OP_ADD, y, sc));
		}
	}
	/* Global average pool through a reshape, dense layer, softmax. */
	sy_node *X = &g->v[x];
	int64_t c = X->dim[fd], hw = X->dim[sp0] * X->dim[sp0 + 1], flat[3];
	flat[0] = X->dim[0];
	flat[1] = nchw ? c : hw;
	flat[2] = nchw ? hw : c;
	int f = cvt(g, reshape(g, x, 3, flat), HLO_ET_F32);
	int pooled_dim = nchw ? 2 : 1;
	int pool = reduce(g, f, cst(g, HLO_ET_F32), 1, &pooled_dim, rd.add);
	pool = bin(g, OP_DIV, pool, splat(g, pool, HLO_ET_F32));
	int logits = dense(g, cvt(g, pool, p->et), 1000);
	int probs = softmax(g, &rd, logits, HLO_ET_F32);
	int outs[2] = {probs, logits};
	comp_end(g, tuple(g, 2, outs));
}

static void build_transformer(sy_graph *g, const prog_spec *p)
{
	sy_red rd;
	rd.add = reducer(g, OP_ADD, HLO_ET_F32);
	rd.max = reducer(g, OP_MAX, HLO_ET_F32);
	comp_begin(g);
	int64_t B = p->batch, S = p->size, D = p->width, H = p->stages, Dh = D / H;
	int64_t xs[3] = {B, S, D}, ms[2] = {S, S}, heads[4] = {B, S, H, Dh};
	int to_bhsd[4] = {0, 2, 1, 3}, to_bhds[4] = {0, 2, 3, 1}, mask_map[2] = {2, 3};
	int x = cvt(g, param(g, HLO_ET_F32, 3, xs), p->et);
	int mask = param(g, HLO_ET_F32, 2, ms);
	for (int l = 0; l < p->depth; l++) {
		int res = copy_of(g, x);
		int h = layernorm(g, &rd, x);
		int q = transpose(g, reshape(g, dense(g, h, D), 4, heads), to_bhsd);
		int k = transpose(g, reshape(g, dense(g, h, D), 4, heads), to_bhds);
		int v = transpose(g, reshape(g, dense(g, h, D), 4, heads), to_bhsd);
		int s = dot(g, q, k);
		s = bin(g, OP_MUL, s, splat(g, s, p->et));
		int sf = cvt(g, s, HLO_ET_F32);
		s = bin(g, OP_ADD, sf, bcast_like(g, mask, sf, mask_map));
		int pr = softmax(g, &rd, s, p->et);
		int ctx = transpose(g, dot(g, pr, v), to_bhsd);
		ctx = reshape(g, ctx, 3, xs);
		x = bin(g, OP_ADD, res, dense(g, ctx, D));
		int f = gelu(g, dense(g, layernorm(g, &rd, x), D * 4));
		x = bin(g, OP_ADD, x, dense(g, f, D));
	}
	int out = layernorm(g, &rd, x);
	int outs[2] = {cvt(g, out, HLO_ET_F32), x};
	comp_end(g, tuple(g, 2, outs));
}

/* ------------------------------------------------------------------ */
/* Fused kernels (tile collection).                                    */

enum { K_CONV_BN_RELU, K_BN_STATS, K_SOFTMAX, K_LAYERNORM, K_DENSE_GELU, K_RELU_POOL,
       K_ATTN_OUT, K_POOL_FC };

typedef struct kern_spec {
	const char *program;
	int kind;
	int64_t a, b, c, d;   /* sizes, meaning per kind */
	int k;                /* convolution window */
	const char *split;
	int configs;
} kern_spec;

/* What the tile formula needs beyond the graph. */
typedef struct kern_info {
	int out;              /* node whose shape is the kernel output */
	int contract;         /* the convolution or dot, or -1 */
	int krank;            /* kernel operand rank */
	int64_t kdim[R6];
	int kout;             /* kernel dim that is the output feature dim */
	int out_feat;         /* output dim matching kout */
	int64_t K;            /* contraction length */
	int body_start, body_end; /* the fused computation [start, end) */
} kern_info;

static const char *kern_name(int kind)
{
	switch (kind) {
	case K_CONV_BN_RELU: return "conv_bn_relu";
	case K_BN_STATS: return "bn_stats";
	case K_SOFTMAX: return "masked_softmax";
	case K_LAYERNORM: return "residual_layernorm";
	case K_DENSE_GELU: return "dense_gelu";
	case K_RELU_POOL: return "bn_relu_maxpool";
	case K_ATTN_OUT: return "attention_out";
	default: return "pool_dense";
	}
}

static void build_kernel(sy_graph *g, const kern_spec *ks, kern_info *ki)
{
	sy_red rd;
	int bf = HLO_ET_BF16, f32 = HLO_ET_F32, root, map3[1] = {3};
	int k = ks->kind;
	rd.add = rd.max = -1;
	if (k == K_BN_STATS || k == K_SOFTMAX || k == K_LAYERNORM || k == K_POOL_FC)
		rd.add = reducer(g, OP_ADD, f32);
	if (k == K_SOFTMAX || k == K_RELU_POOL)
		rd.max = reducer(g, OP_MAX, f32);
	comp_begin(g);
	ki->body_start = g->n;
	ki->contract = -1;
	switch (ks->kind) {
	case K_CONV_BN_RELU: { /* a=N b=HW c=Cin d=Cout: conv, scale, bias, residual, relu */
		int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
		int x = param(g, bf, 4, in);
		int w = conv_param(g, x, 0, ks->d, ks->k);
		int y = conv2d(g, x, w, 0, ks->k, 1, ks->k / 2);
		ki->contract = y;
		y = cvt(g, y, f32);
		y = bin(g, OP_MUL, y, bcast_like(g, param(g, f32, 1, &ks->d), y, map3));
		y = bin(g, OP_ADD, y, bcast_like(g, param(g, f32, 1, &ks->d), y, map3));
		int res = cvt(g, param(g, bf, 4, g->v[y].dim), f32);
		y = relu(g, bin(g, OP_ADD, y, res));
		root = cvt(g, y, bf);
		break;
	}
	case K_BN_STATS: { /* a=N b=HW c=C: batch statistics and the normalized x */
		int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
		int rdims[3] = {0, 1, 2};
		int x = cvt(g, param(g, bf, 4, in), f32);
		int zero = cst(g, f32);
		int s = reduce(g, x, zero, 3, rdims, rd.add);
		int mean = bin(g, OP_DIV, s, splat(g, s, f32));
		int xc = bin(g, OP_SUB, x, bcast_like(g, mean, x, map3));
		int ss = reduce(g, bin(g, OP_MUL, xc, xc), zero, 3, rdims, rd.add);
		int var = bin(g, OP_DIV, ss, splat(g, ss, f32));
		int inv = un(g, OP_RSQRT, bin(g, OP_ADD, var, splat(g, var, f32)));
		int y = cvt(g, bin(g, OP_MUL, xc, bcast_like(g, inv, xc, map3)), bf);
		int outs[3] = {y, mean, var};
		root = tuple(g, 3, outs);
		ki->out = y;
		break;
	}
	case K_SOFTMAX: { /* a=B b=heads c=S: scale, mask, softmax */
		int64_t in[4] = {ks->a, ks->b, ks->c, ks->c}, ms[2] = {ks->c, ks->c};
		int map[2] = {2, 3};
		int s = cvt(g, param(g, bf, 4, in), f32);
		s = bin(g, OP_MUL, s, splat(g, s, f32));
		s = bin(g, OP_ADD, s, bcast_like(g, param(g, f32, 2, ms), s, map));
		root = softmax(g, &rd, s, bf);
		break;
	}
	case K_LAYERNORM: { /* a=B b=S c=D: residual add then layer norm */
		int64_t in[3] = {ks->a, ks->b, ks->c};
		int x = param(g, bf, 3, in), r = param(g, bf, 3, in);
		int sum = bin(g, OP_ADD, cvt(g, x, f32), cvt(g, r, f32));
		root = layernorm(g, &rd, cvt(g, sum, bf));
		break;
	}
	case K_DENSE_GELU: { /* a=M b=K c=N: dot, bias, gelu */
		int64_t in[2] = {ks->a, ks->b};
		int y = dense(g, param(g, bf, 2, in), ks->c);
		ki->contract = g->v[y].ops[0];
		root = cvt(g, gelu(g, cvt(g, y, f32)), bf);
		break;
	}
	case K_RELU_POOL: { /* a=N b=HW c=C: scale, bias, relu, 3x3/2 max pool */
		int64_t in[4] = {ks->a, ks->b, ks->b, ks->c};
		int x = cvt(g, param(g, bf, 4, in), f32);
		x = bin(g, OP_MUL, x, bcast_like(g, param(g, f32, 1, &ks->c), x, map3));
		x = bin(g, OP_ADD, x, bcast_like(g, param(g, f32, 1, &ks->c), x, map3));
		x = relu(g, x);
		root = cvt(g, maxpool(g, x, 1, 3, 2, 1, rd.max), bf);
		break;
	}
	case K_ATTN_OUT: { /* a=B b=S c=heads d=Dh: heads back to rows, dense, residual */
		int64_t in[4] = {ks->a, ks->c, ks->b, ks->d}, rows[2] = {ks->a * ks->b, ks->c * ks->d};
		int perm[4] = {0, 2, 1, 3};
		int x = reshape(g, transpose(g, param(g, bf, 4, in), perm), 2, rows);
		int y = dense(g, x, rows[1]);
		ki->contract = g->v[y].ops[0];
		int map[1] = {1};
		y = cvt(g, y, f32);
		y = bin(g, OP_MUL, y, bcast_like(g, param(g, f32, 1, &rows[1]), y, map));
		int res = param(g, bf, 2, rows);
		root = cvt(g, bin(g, OP_ADD, y, cvt(g, res, f32)), bf);
		break;
	}
	default: { /* K_POOL_FC a=N b=HW c=C d=classes: mean over HW, dense, bias */
		int64_t in[3] = {ks->a, ks->b, ks->c};
		int one = 1;
		int x = cvt(g, param(g, bf, 3, in), f32);
		int p = reduce(g, x, cst(g, f32), 1, &one, rd.add);
		p = cvt(g, bin(g, OP_DIV, p, splat(g, p, f32)), bf);
		int y = dense(g, p, ks->d);
		ki->contract = g->v[y].ops[0];
		root = cvt(g, un(g, OP_EXP, cvt(g, y, f32)), bf);
		break;
	}
	}
	if (ks->kind != K_BN_STATS)
		ki->out = root;
	comp_end(g, root);
	ki->body_end = g->n;

	/* The kernel computation: parameters like the fused ones, then the fusion. */
	comp_begin(g);
	int ops[SY_MAX_OPS], nops = 0;
	for (int i = ki->body_start; i < ki->body_end && nops < SY_MAX_OPS - 1; i++) {
		sy_node *P = &g->v[i];
		if (P->op == OP_PARAM) {
			int64_t d[R6];
			memcpy(d, P->dim, sizeof d);
			ops[nops++] = param(g, P->et, P->rank, d);
		}
	}
	sy_node *R = &g->v[root];
	int64_t d[R6];
	memcpy(d, R->dim, sizeof d);
	int fu = new_node(g, OP_FUSION, R->et, R->rank, d);
	g->v[fu].tuple_n = R->tuple_n;
	g->v[fu].called = root;
	for (int i = 0; i < nops; i++)
		add_op(g, fu, ops[i]);
	comp_end(g, fu);

	/* Contraction facts for the formula. */
	ki->krank = 0;
	ki->K = 1;
	if (ki->contract >= 0) {
		sy_node *C = &g->v[ki->contract], *Kn = &g->v[C->ops[1]];
		ki->krank = Kn->rank;
		memcpy(ki->kdim, Kn->dim, sizeof ki->kdim);
		if (C->op == OP_CONV) {
			ki->kout = C->cd[7];
			ki->out_feat = C->cd[13];
			ki->K = Kn->dim[C->cd[6]] * Kn->dim[C->cd[8]] * Kn->dim[C->cd[9]];
		} else {
			ki->kout = Kn->rank - 1;
			ki->out_feat = C->rank - 1;
			ki->K = Kn->dim[Kn->rank - 2];
		}
	}
}

/* ------------------------------------------------------------------ */
/* Encoding: node features, opcodes, edges, splits.                    */

static void encode_node(const sy_node *x, float *row)
{
	memset(row, 0, sizeof(float) * HLO_NODE_FEATURES);
	row[fx.is_root] = (float)x->is_root;
	if (fx.et[x->et] >= 0)
		row[fx.et[x->et]] = 1;
	double sum = 0, prod = 1;
	for (int i = 0; i < x->rank; i++) {
		row[fx.dims[i]] = (float)x->dim[i];
		sum += (double)x->dim[i];
		prod *= (double)x->dim[i];
	}
	row[fx.dims_sum] = (float)sum;
	row[fx.dims_prod] = (float)prod;
	if (x->et == HLO_ET_TUPLE)
		row[fx.tuple_size] = (float)x->tuple_n;
	if (x->op == OP_PARAM)
		row[fx.param_no] = (float)x->param_no;
	for (int i = 0; i < x->ndimattr; i++)
		row[fx.dimattr[i]] = (float)x->dimattr[i];
	for (int w = 0; w < W_N; w++) {
		double s = 0, p = 1;
		for (int i = 0; i < x->nwin; i++) {
			double v = w < 4 ? (double)x->win[w][i] : 1.0; /* dilations are 1 */
			row[fx.win[w][i]] = (float)v;
			s += v;
			p *= v;
		}
		row[fx.win[w][6]] = (float)s;
		row[fx.win[w][7]] = (float)p;
	}
	row[fx.rev_false] = (float)x->nwin;
	if (x->conv) {
		for (int i = 0; i < 14; i++)
			row[fx.conv[i]] = (float)x->cd[i];
		row[fx.fgc] = 1;
		row[fx.bgc] = 1;
	}
	for (int i = 0; i < 6; i++)
		row[fx.ones[i]] = 1;
	for (int i = 0; i < x->rank; i++)
		row[fx.m2m[i]] = (float)x->m2m[i];
}

typedef struct sy_arrays {
	int64_t n, m;
	float *feat;          /* [n * 140] */
	uint8_t *opcode;      /* [n] */
	int64_t *edges;       /* [m * 2] */
	int64_t *splits;      /* [ncomp + 1] */
	int64_t nsplits;
} sy_arrays;

static void arrays_free(sy_arrays *a)
{
	free(a->feat);
	free(a->opcode);
	free(a->edges);
	free(a->splits);
	memset(a, 0, sizeof *a);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int encode_graph(const sy_graph *g, sy_arrays *a, hs_error *err)
{
	memset(a, 0, sizeof *a);
	a->n = g->n;
	int64_t cap = 0;
	for (int i = 0; i < g->n; i++)
		cap += g->v[i].nops + 1;
	size_t nn = g->n > 0 ? (size_t)g->n : 1;
	a->feat = malloc(sizeof(float) * HLO_NODE_FEATURES * nn);
	a->opcode = malloc(nn);
	a->edges = malloc(sizeof(int64_t) * 2 * (size_t)(cap ? cap : 1));
	a->splits = malloc(sizeof(int64_t) * (size_t)(g->ncomp + 1));
	if (!a->feat || !a->opcode || !a->edges || !a->splits) {
		arrays_free(a);
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	}
	for (int i = 0; i < g->n; i++) {
		const sy_node *x = &g->v[i];
		encode_node(x, a->feat + (size_t)i * HLO_NODE_FEATURES);
		a->opcode[i] = (uint8_t)op_id[x->op];
		int nb[SY_MAX_OPS + 1], k = 0;
		for (int j = 0; j < x->nops; j++)
			nb[k++] = x->ops[j];
		if (x->called >= 0)
			nb[k++] = x->called;
		qsort(nb, (size_t)k, sizeof nb[0], cmp_int);
		for (int j = 0; j < k; j++) {
			if (j > 0 && nb[j] == nb[j - 1])
				continue;
			a->edges[2 * a->m] = i;
			a->edges[2 * a->m + 1] = nb[j];
			a->m++;
		}
	}
	for (int c = 0; c < g->ncomp; c++)
		a->splits[c] = g->comp[c];
	a->splits[g->ncomp] = g->n;
	a->nsplits = g->ncomp + 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Layout configs and their runtimes.                                  */

#define OVH_NS 250.0
#define BW_BPNS 819.0
#define MXU_FPNS 123000.0
#define NOISE_SIGMA 0.03
#define FUSE 0.25
/* Layout penalty weights; keep in step with the README text below (the
 * test suite reads the formula's constants from DIR/README). */
#define CONV_IN 4.0
#define CONV_OUT 3.0
#define CONV_K0 2.0
#define CONV_K1 1.0
#define DOT_LHS 3.0
#define DOT_RHS0 2.0
#define DOT_OUT 1.5
#define DOT_RHS1 0.5
#define BITCAST 0.05

typedef int8_t lrow[18];

typedef struct lay_node {
	int node;
	int nc;               /* candidate rows */
	lrow *cand;
	int8_t def[2];        /* default (m0, m1) of the output */
} lay_node;

typedef struct lay_prob {
	const sy_graph *g;
	int nk;
	lay_node *k;
	int *kof;             /* [n]: index into k, or -1 */
	int **users;          /* per configurable node: non-configurable users */
	int *nusers;
	double fixed;
} lay_prob;

static void lay_free(lay_prob *p)
{
	if (p->k)
		for (int i = 0; i < p->nk; i++)
			free(p->k[i].cand);
	if (p->users)
		for (int i = 0; i < p->nk; i++)
			free(p->users[i]);
	free(p->users);
	free(p->nusers);
	free(p->k);
	free(p->kof);
	memset(p, 0, sizeof *p);
}

/* Writes a full layout (minor to major) of `rank` dims into dst[0..5]. */
static void put_layout(int8_t *dst, const int *m2m, int rank, int keep)
{
	for (int i = 0; i < 6; i++)
		dst[i] = (int8_t)(i < rank && i < keep ? m2m[i] : -1);
}

/* Layout whose two minor-most dims are a, b (rest descending). */
static void layout_ab(int *m2m, int rank, int a, int b)
{
	int n = 0;
	if (rank > 0)
		m2m[n++] = a;
	if (rank > 1)
		m2m[n++] = b;
	for (int d = rank - 1; d >= 0; d--)
		if (d != a && (rank < 2 || d != b))
			m2m[n++] = d;
}

static void descending(int *m2m, int rank)
{
	for (int i = 0; i < rank; i++)
		m2m[i] = rank - 1 - i;
}

/* Candidate rows for one configurable node. */
static int lay_candidates(const sy_graph *g, int id, lay_node *ln)
{
	const sy_node *x = &g->v[id];
	int outs[4][R6], ins[3][R6], kers[3][R6], no = 0, ni = 0, nk = 0, keep = 6;
	const sy_node *op0 = &g->v[x->ops[0]];
	const sy_node *op1 = x->nops > 1 ? &g->v[x->ops[1]] : NULL;
	int ro = x->rank, ri = op0->rank, rk = op1 ? op1->rank : 0;
	if (x->cfg == CK_CONV) {
		/* Two minor-most dims only, as the real convolution rows. */
		int of = x->cd[13], ob = x->cd[12], osp = x->cd[3];
		int inf = x->cd[1], ib = x->cd[0], isp = x->cd[3];
		int kof = x->cd[7], kif = x->cd[6], ksp = x->cd[9];
		layout_ab(outs[no++], ro, of, ob);
		layout_ab(outs[no++], ro, osp, of);
		layout_ab(outs[no++], ro, of, osp);
		layout_ab(ins[ni++], ri, inf, ib);
		layout_ab(ins[ni++], ri, isp, inf);
		layout_ab(kers[nk++], rk, kof, kif);
		layout_ab(kers[nk++], rk, kif, kof);
		layout_ab(kers[nk++], rk, ksp, kof);
		keep = 2;
	} else if (x->cfg == CK_DOT) {
		layout_ab(outs[no++], ro, ro - 1, ro - 2);
		layout_ab(outs[no++], ro, ro - 2, ro - 1);
		layout_ab(ins[ni++], ri, ri - 1, ri - 2);
		layout_ab(ins[ni++], ri, ri - 2, ri - 1);
		layout_ab(kers[nk++], rk, rk - 1, rk - 2);
		layout_ab(kers[nk++], rk, rk - 2, rk - 1);
		keep = 2;
	} else {
		descending(outs[no++], ro);
		if (ro >= 2)
			layout_ab(outs[no++], ro, ro - 2, ro - 1);
		if (x->cfg == CK_TRANSPOSE) {
			/* The layout that makes the transpose a bitcast of a
			 * descending operand: out dim j holds operand dim dimattr[j]. */
			int inv[R6];
			for (int j = 0; j < ro; j++)
				inv[x->dimattr[j]] = j;
			for (int i = 0; i < ro; i++)
				outs[no][i] = inv[ri - 1 - i];
			no++;
		} else if (ro >= 3) {
			layout_ab(outs[no++], ro, 0, ro - 1);
		}
		descending(ins[ni++], ri);
		if (ri >= 2)
			layout_ab(ins[ni++], ri, ri - 2, ri - 1);
		nk = 0;
	}
	int total = no * ni * (nk ? nk : 1);
	ln->cand = calloc((size_t)total, sizeof(lrow));
	if (!ln->cand)
		return -1;
	ln->nc = 0;
	for (int a = 0; a < no; a++)
		for (int b = 0; b < ni; b++)
			for (int c = 0; c < (nk ? nk : 1); c++) {
				int8_t *r = ln->cand[ln->nc++];
				put_layout(r, outs[a], ro, keep);
				put_layout(r + 6, ins[b], ri, keep);
				put_layout(r + 12, nk ? kers[c] : NULL, nk ? rk : 0, keep);
			}
	ln->node = id;
	ln->def[0] = (int8_t)(ro > 0 ? x->m2m[0] : -1);
	ln->def[1] = (int8_t)(ro > 1 ? x->m2m[1] : -1);
	return 0;
}

static double node_io_bytes(const sy_graph *g, const sy_node *x)
{
	double b = (double)nbytes(x);
	for (int j = 0; j < x->nops; j++)
		b += (double)nbytes(&g->v[x->ops[j]]);
	return b;
}

static int lay_setup(const sy_graph *g, lay_prob *p, hs_error *err)
{
	memset(p, 0, sizeof *p);
	p->g = g;
	int entry = g->comp[g->ncomp - 1];
	p->kof = malloc(sizeof(int) * (size_t)g->n);
	p->k = calloc((size_t)g->n, sizeof *p->k);
	if (!p->kof || !p->k)
		goto oom;
	for (int i = 0; i < g->n; i++) {
		const sy_node *x = &g->v[i];
		p->kof[i] = -1;
		if (x->cfg != CK_NONE && i >= entry) {
			p->kof[i] = p->nk;
			if (lay_candidates(g, i, &p->k[p->nk++]) < 0)
				goto oom;
		}
	}
	p->users = calloc((size_t)p->nk, sizeof *p->users);
	p->nusers = calloc((size_t)p->nk, sizeof *p->nusers);
	if (!p->users || !p->nusers)
		goto oom;
	for (int i = 0; i < g->n; i++) {
		const sy_node *x = &g->v[i];
		if (p->kof[i] >= 0)
			continue;
		int o = x->op;
		if (o != OP_PARAM && o != OP_CONST && o != OP_TUPLE)
			p->fixed += FUSE * (OVH_NS + (double)nbytes(x) / BW_BPNS);
		for (int j = 0; j < x->nops; j++) {
			int k = p->kof[x->ops[j]];
			if (k < 0 || (j > 0 && x->ops[j] == x->ops[j - 1]))
				continue;
			int *u = realloc(p->users[k], sizeof(int) * (size_t)(p->nusers[k] + 1));
			if (!u)
				goto oom;
			p->users[k] = u;
			u[p->nusers[k]++] = i;
		}
	}
	return 0;
oom:
	lay_free(p);
	return hs_fail(err, HS_EDATA, "synth: out of memory");
}

typedef struct pair {
	int a, b;
} pair;

static int pair_eq(pair x, pair y)
{
	return x.a == y.a && x.b == y.b;
}

/* The (m0, m1) a node actually produces under config rows `rows`. */
static pair actual_out(const lay_prob *p, const int8_t *rows, int node)
{
	const sy_node *x = &p->g->v[node];
	int k = p->kof[node];
	if (k >= 0 && rows[(size_t)k * 18] >= 0)
		return (pair){rows[(size_t)k * 18], rows[(size_t)k * 18 + 1]};
	return (pair){x->rank > 0 ? x->m2m[0] : -1, x->rank > 1 ? x->m2m[1] : -1};
}

static double lay_runtime(const lay_prob *p, const int8_t *rows)
{
	const sy_graph *g = p->g;
	double t = p->fixed;
	for (int k = 0; k < p->nk; k++) {
		const sy_node *x = &g->v[p->k[k].node];
		const int8_t *r = rows + (size_t)k * 18;
		pair out = actual_out(p, rows, p->k[k].node), in[2] = {{-1, -1}, {-1, -1}};
		for (int j = 0; j < 2 && j < x->nops; j++) {
			int v = x->ops[j];
			pair have = actual_out(p, rows, v);
			const int8_t *e = r + 6 + 6 * j;
			if (e[0] >= 0) {
				in[j] = (pair){e[0], e[1]};
				if (!pair_eq(in[j], have))
					t += 2.0 * (double)nbytes(&g->v[v]) / BW_BPNS;
			} else {
				in[j] = have;
			}
		}
		double bytes = node_io_bytes(g, x);
		if (x->cfg == CK_CONV || x->cfg == CK_DOT) {
			double pen = 1.0;
			if (x->cfg == CK_CONV) {
				pen += CONV_IN * (in[0].a != x->cd[1]) + CONV_OUT * (out.a != x->cd[13]) +
				       CONV_K0 * (in[1].a != x->cd[7]) + CONV_K1 * (in[1].b != x->cd[6]);
			} else {
				int rl = g->v[x->ops[0]].rank, rr = g->v[x->ops[1]].rank;
				pen += DOT_LHS * (in[0].a != rl - 1) + DOT_RHS0 * (in[1].a != rr - 1) +
				       DOT_OUT * (out.a != x->rank - 1) + DOT_RHS1 * (in[1].b != rr - 2);
			}
			t += (OVH_NS + fmax(x->flops / MXU_FPNS, bytes / BW_BPNS)) * pen;
		} else {
			int ri = g->v[x->ops[0]].rank, ro = x->rank, bitcast;
			if (x->cfg == CK_TRANSPOSE)
				bitcast = x->dimattr[out.a] == in[0].a &&
					  (ro < 2 || x->dimattr[out.b] == in[0].b);
			else if (x->cfg == CK_RESHAPE)
				bitcast = in[0].a == ri - 1 && (ri < 2 || in[0].b == ri - 2) &&
					  out.a == ro - 1 && (ro < 2 || out.b == ro - 2);
			else
				bitcast = pair_eq(in[0], out);
			t += OVH_NS + 2.0 * (double)nbytes(x) / BW_BPNS * (bitcast ? BITCAST : 1.0);
		}
		/* Users that expect the default layout get a copy. */
		if (out.a != p->k[k].def[0] || out.b != p->k[k].def[1])
			t += p->nusers[k] * 2.0 * (double)nbytes(x) / BW_BPNS;
	}
	return t;
}

/* Config choices: per configurable node a candidate index, or -1. */
static uint64_t choice_hash(const int16_t *c, int n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < n; i++) {
		h ^= (uint16_t)c[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

typedef struct hset {
	uint64_t *h;
	int *idx;
	size_t cap;
} hset;

/* Inserts config `i` (choices row) unless an equal one exists; 1 if new. */
static int hset_add(hset *s, const int16_t *all, int n, int i)
{
	const int16_t *c = all + (size_t)i * (size_t)n;
	uint64_t h = choice_hash(c, n);
	size_t j = h & (s->cap - 1);
	while (s->h[j]) {
		if (s->h[j] == h &&
		    !memcmp(all + (size_t)s->idx[j] * (size_t)n, c, sizeof(int16_t) * (size_t)n))
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->h[j] = h;
	s->idx[j] = i;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Writing files.                                                      */

typedef struct sy_ctx {
	const char *root;     /* the temporary folder */
	uint64_t seed;
	synth_report rep;
	char *readme;         /* the file table for the README */
	size_t readme_n, readme_cap;
} sy_ctx;

static int ctx_note(sy_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctx_note(sy_ctx *cx, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof line)
		n = (int)sizeof line - 1;
	if (cx->readme_n + (size_t)n + 1 > cx->readme_cap) {
		size_t cap = cx->readme_cap ? cx->readme_cap * 2 : 4096;
		while (cap < cx->readme_n + (size_t)n + 1)
			cap *= 2;
		char *r = realloc(cx->readme, cap);
		if (!r)
			return -1;
		cx->readme = r;
		cx->readme_cap = cap;
	}
	memcpy(cx->readme + cx->readme_n, line, (size_t)n + 1);
	cx->readme_n += (size_t)n;
	return 0;
}

static int file_size(const char *path, int64_t *out)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	*out = st.st_size;
	return 0;
}

/* A test file's name: 32 hex digits derived from the descriptive name. */
static void test_name(const char *name, char *buf, size_t cap)
{
	uint64_t a = fnv1a(name, 0xcbf29ce484222325ull), b = fnv1a(name, 0x84222325cbf29ce4ull);
	snprintf(buf, cap, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

static int write_common(npz_writer *w, const sy_arrays *a, hs_error *err)
{
	int64_t fs[2] = {a->n, HLO_NODE_FEATURES}, os[1] = {a->n}, es[2] = {a->m, 2};
	if (npz_writer_add(w, "node_feat", NPY_F4, 2, fs, a->feat, err) < 0 ||
	    npz_writer_add(w, "node_opcode", NPY_U1, 1, os, a->opcode, err) < 0 ||
	    npz_writer_add(w, "edge_index", NPY_I8, 2, es, a->edges, err) < 0)
		return -1;
	return 0;
}

static int make_dirs(const char *root, const char *rel, hs_error *err)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof path)
		return hs_fail(err, HS_EDATA, "%s: path too long", root);
	for (char *s = path + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return hs_fail(err, HS_EDATA, "%s: cannot create folder: %s", path,
				       strerror(errno));
		*s = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return hs_fail(err, HS_EDATA, "%s: cannot create folder: %s", path, strerror(errno));
	return 0;
}

static int sy_check_graph(const sy_graph *g, const char *name, hs_error *err)
{
	if (g->bug[0])
		return hs_fail(err, HS_EDATA, "synth: %s: internal error: %s", name, g->bug);
	if (g->open >= 0 || g->ncomp == 0)
		return hs_fail(err, HS_EDATA, "synth: %s: internal error: computation left open",
			       name);
	return 0;
}

/* One layout program, written for one search ("default" or "random"). */
static int write_layout(sy_ctx *cx, const prog_spec *ps, const sy_graph *g, const sy_arrays *a,
			const lay_prob *lp, int random_search, hs_error *err)
{
	const char *search = random_search ? "random" : "default";
	int test = !strcmp(ps->split, "test");
	char rel[256], name[128], path[4096];
	if (test)
		test_name(ps->name, name, sizeof name);
	else
		snprintf(name, sizeof name, "%s", ps->name);
	snprintf(rel, sizeof rel, "npz/layout/xla/%s/%s", search, ps->split);
	if (make_dirs(cx->root, rel, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s/%s.npz", cx->root, rel, name);

	sy_rng rng;
	rng_seed(&rng, cx->seed ^ fnv1a(search, fnv1a(ps->name, 0xcbf29ce484222325ull)));
	int nk = lp->nk, want = random_search ? ps->cfg_random : ps->cfg_default;
	int16_t *ch = malloc(sizeof(int16_t) * (size_t)want * (size_t)(nk ? nk : 1));
	hset hs = {0};
	hs.cap = 1;
	while (hs.cap < (size_t)want * 2)
		hs.cap *= 2;
	hs.h = calloc(hs.cap, sizeof *hs.h);
	hs.idx = calloc(hs.cap, sizeof *hs.idx);
	float *ncf = malloc(sizeof(float) * 18 * (size_t)want * (size_t)(nk ? nk : 1));
	int8_t *rows = malloc(18 * (size_t)(nk ? nk : 1));
	int64_t *rt = malloc(sizeof(int64_t) * (size_t)want);
	int64_t *ids = malloc(sizeof(int64_t) * (size_t)(nk ? nk : 1));
	int rc = -1, c = 0;
	if (!ch || !hs.h || !hs.idx || !ncf || !rows || !rt || !ids) {
		hs_fail(err, HS_EDATA, "synth: out of memory");
		goto out;
	}
	/* Default search: the default config once, at a random place; the
	 * others change a few nodes from it.  Random search: every node is
	 * set with probability 0.85. */
	int with_default = !random_search;
	for (int tries = 0; c < want && tries < want * 50; tries++) {
		int16_t *cc = ch + (size_t)c * (size_t)nk;
		for (int k = 0; k < nk; k++)
			cc[k] = -1;
		if (!(with_default && c == 0)) {
			if (random_search) {
				for (int k = 0; k < nk; k++)
					if (rng_unit(&rng) < 0.85)
						cc[k] = (int16_t)rng_below(&rng, lp->k[k].nc);
			} else {
				int m = 1;
				while (m < nk && m < 12 && rng_unit(&rng) < 0.75)
					m++;
				for (int i = 0; i < m; i++) {
					int k = rng_below(&rng, nk);
					cc[k] = (int16_t)rng_below(&rng, lp->k[k].nc);
				}
			}
			int all_default = 1;
			for (int k = 0; k < nk; k++)
				all_default &= cc[k] < 0;
			if (all_default)
				continue;
		}
		if (!hset_add(&hs, ch, nk, c))
			continue;
		c++;
	}
	if (c == 0) {
		hs_fail(err, HS_EDATA, "synth: %s: could not draw distinct configs", ps->name);
		goto out;
	}
	if (with_default) {
		/* Move the default config from 0 to a random place. */
		int at = rng_below(&rng, c);
		for (int k = 0; k < nk; k++) {
			int16_t tmp = ch[k];
			ch[k] = ch[(size_t)at * (size_t)nk + (size_t)k];
			ch[(size_t)at * (size_t)nk + (size_t)k] = tmp;
		}
	}
	for (int i = 0; i < c; i++) {
		const int16_t *cc = ch + (size_t)i * (size_t)nk;
		for (int k = 0; k < nk; k++) {
			if (cc[k] < 0)
				memset(rows + 18 * k, -1, 18);
			else
				memcpy(rows + 18 * k, lp->k[k].cand[cc[k]], 18);
		}
		for (size_t j = 0; j < 18 * (size_t)nk; j++)
			ncf[(size_t)i * 18 * (size_t)nk + j] = rows[j];
		double t = lay_runtime(lp, rows) * exp(NOISE_SIGMA * rng_normal(&rng));
		rt[i] = test ? 0 : llround(t);
	}
	for (int k = 0; k < nk; k++)
		ids[k] = lp->k[k].node;

	npz_writer *w = npz_writer_open(path, 1, err);
	if (!w)
		goto out;
	int64_t cs[3] = {c, nk, 18}, is[1] = {nk}, rs[1] = {c}, ss[2] = {1, a->nsplits};
	if (write_common(w, a, err) < 0 ||
	    npz_writer_add(w, "node_config_feat", NPY_F4, 3, cs, ncf, err) < 0 ||
	    npz_writer_add(w, "node_config_ids", NPY_I8, 1, is, ids, err) < 0 ||
	    npz_writer_add(w, "config_runtime", NPY_I8, 1, rs, rt, err) < 0 ||
	    npz_writer_add(w, "node_splits", NPY_I8, 2, ss, a->splits, err) < 0) {
		npz_writer_abort(w);
		goto out;
	}
	if (npz_writer_finish(w, err) < 0)
		goto out;
	int64_t sz = 0;
	file_size(path, &sz);
	cx->rep.layout_files++;
	cx->rep.nodes += g->n;
	cx->rep.configs += c;
	cx->rep.bytes += sz;
	if (ctx_note(cx, "  %-44s %-32s %5d %6lld %3d %5d\n", rel + 4, name, g->n,
		     (long long)a->m, nk, c) < 0) {
		hs_fail(err, HS_EDATA, "synth: out of memory");
		goto out;
	}
	rc = 0;
out:
	free(ch);
	free(hs.h);
	free(hs.idx);
	free(ncf);
	free(rows);
	free(rt);
	free(ids);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Tile configs and their runtimes.                                    */

#define STEP_NS 120.0
#define LAUNCH_NS 1500.0
#define VPU_FPNS 4096.0
#define VMEM_BYTES (16.0 * 1024 * 1024)
#define DEFAULT_WS (2.0 * 1024 * 1024)
#define MIN_WS (64.0 * 1024)

typedef struct tile_prob {
	int r;
	int64_t D[R6];
	double W, B;          /* work and bytes per output element */
	int esize;
	const kern_info *ki;
} tile_prob;

static int is_arith(int op)
{
	return op != OP_PARAM && op != OP_CONST && op != OP_BCAST && op != OP_RESHAPE &&
	       op != OP_TRANSPOSE && op != OP_TUPLE && op != OP_CONVERT && op != OP_CONV &&
	       op != OP_DOT;
}

static void tile_setup(const sy_graph *g, const kern_info *ki, tile_prob *tp)
{
	const sy_node *o = &g->v[ki->out];
	double oe = (double)elems(o), w = 0, b = (double)nbytes(o);
	tp->r = o->rank;
	memcpy(tp->D, o->dim, sizeof tp->D);
	tp->esize = et_bytes(o->et);
	for (int i = ki->body_start; i < ki->body_end; i++) {
		const sy_node *x = &g->v[i];
		if (x->op == OP_PARAM)
			b += (double)nbytes(x);
		if (!is_arith(x->op))
			continue;
		double e = (double)elems(x);
		for (int j = 0; j < x->nops; j++)
			e = fmax(e, (double)elems(&g->v[x->ops[j]]));
		w += e;
	}
	tp->W = w / oe;
	tp->B = b / oe;
	tp->ki = ki;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* cf: 24 config features. */
static double tile_runtime(const tile_prob *tp, const float *cf)
{
	const kern_info *ki = tp->ki;
	double steps = 1, tile = 1;
	for (int i = 0; i < tp->r; i++) {
		int64_t t = (int64_t)cf[8 + i];
		steps *= (double)ceil_div(tp->D[i], t);
		tile *= (double)t;
	}
	int64_t tl = (int64_t)cf[8 + tp->r - 1];
	double lane = (double)(ceil_div(tl, 128) * 128) / (double)tl, sub = 1;
	if (tp->r >= 2) {
		int64_t ts = (int64_t)cf[8 + tp->r - 2];
		sub = (double)(ceil_div(ts, 8) * 8) / (double)ts;
	}
	double ksteps = 1, k = 0, mxu = 1, tfeat = 0;
	if (ki->contract >= 0) {
		k = 1;
		for (int i = 0; i < ki->krank; i++)
			if (i != ki->kout)
				k *= cf[i];
		ksteps = (double)ceil_div(ki->K, (int64_t)k);
		mxu = (double)(ceil_div((int64_t)k, 128) * 128) / k;
		tfeat = cf[8 + ki->out_feat];
	}
	double compute = tile * tp->W * lane * sub / VPU_FPNS +
			 ksteps * tile * 2.0 * k * mxu * lane / MXU_FPNS;
	double mem = (tile * tp->B + ksteps * k * tfeat * tp->esize) / BW_BPNS;
	double step = STEP_NS * ksteps + fmax(compute, mem);
	double ws = 2.0 * tile * tp->B + k * tfeat * tp->esize;
	if (ws > VMEM_BYTES)
		step *= 1.0 + ws / VMEM_BYTES;
	return LAUNCH_NS + steps * step;
}

/* Tile size candidates for a dim: powers of two below it, the dim itself,
 * and for the lane dim some multiples of 128. */
static int tile_cands(int64_t d, int lane, int64_t *out)
{
	int n = 0;
	for (int64_t t = 1; t < d && n < 24; t *= 2)
		out[n++] = t;
	if (lane)
		for (int64_t t = 384; t < d && n < 30; t += 256)
			out[n++] = t;
	out[n++] = d;
	for (int i = 1; i < n; i++) /* ascending */
		for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int64_t x = out[j];
			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return n;
}

static void tile_fill(float *cf, const tile_prob *tp, const int64_t *t, const int64_t *kb)
{
	const kern_info *ki = tp->ki;
	memset(cf, 0, sizeof(float) * 24);
	double s = 0, p = 1;
	for (int i = 0; i < tp->r; i++) {
		cf[8 + i] = (float)t[i];
		s += (double)t[i];
		p *= (double)t[i];
	}
	cf[14] = (float)s;
	cf[15] = (float)p;
	if (ki->contract >= 0) {
		s = 0;
		p = 1;
		for (int i = 0; i < ki->krank; i++) {
			cf[i] = (float)kb[i];
			s += (double)kb[i];
			p *= (double)kb[i];
		}
		cf[6] = (float)s;
		cf[7] = (float)p;
	}
}

static int write_tile(sy_ctx *cx, const kern_spec *ks, const char *desc, const sy_graph *g,
		      const sy_arrays *a, const kern_info *ki, hs_error *err)
{
	int test = !strcmp(ks->split, "test");
	char rel[128], name[160], path[4096];
	uint64_t h = fnv1a(desc, 0xcbf29ce484222325ull);
	if (test)
		test_name(desc, name, sizeof name);
	else
		snprintf(name, sizeof name, "%s_%016llx", desc, (unsigned long long)h);
	snprintf(rel, sizeof rel, "npz/tile/xla/%s", ks->split);
	if (make_dirs(cx->root, rel, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s/%s.npz", cx->root, rel, name);

	tile_prob tp;
	tile_setup(g, ki, &tp);
	sy_rng rng;
	rng_seed(&rng, cx->seed ^ fnv1a(desc, 0x84222325cbf29ce4ull));
	int want = ks->configs, c = 0, rc = -1;
	float *cf = malloc(sizeof(float) * 24 * (size_t)want);
	int64_t *rt = malloc(sizeof(int64_t) * (size_t)want);
	int64_t *nz = malloc(sizeof(int64_t) * (size_t)want);
	int16_t *ch = malloc(sizeof(int16_t) * 12 * (size_t)want);
	hset hs = {0};
	hs.cap = 1;
	while (hs.cap < (size_t)want * 2)
		hs.cap *= 2;
	hs.h = calloc(hs.cap, sizeof *hs.h);
	hs.idx = calloc(hs.cap, sizeof *hs.idx);
	if (!cf || !rt || !nz || !ch || !hs.h || !hs.idx) {
		hs_fail(err, HS_EDATA, "synth: out of memory");
		goto out;
	}
	int64_t cand[R6][32], kcand[32];
	int ncand[R6], nkc = 0, kin = -1;
	for (int i = 0; i < tp.r; i++)
		ncand[i] = tile_cands(tp.D[i], i == tp.r - 1, cand[i]);
	if (ki->contract >= 0) {
		/* The tiled contracted kernel dim: input features (conv) or K (dot). */
		const sy_node *C = &g->v[ki->contract];
		kin = C->op == OP_CONV ? C->cd[6] : ki->krank - 2;
		nkc = tile_cands(ki->kdim[kin], 0, kcand);
		/* Contraction tiles below 16 are not searched. */
		int lo = 0;
		while (lo < nkc - 1 && kcand[lo] < 16)
			lo++;
		memmove(kcand, kcand + lo, sizeof(int64_t) * (size_t)(nkc - lo));
		nkc -= lo;
	}
	double full = 1;
	for (int i = 0; i < tp.r; i++)
		full *= (double)tp.D[i];
	double min_ws = fmin(MIN_WS, 2.0 * full * tp.B);
	for (int tries = 0; c < want && tries < want * 40; tries++) {
		int16_t *cc = ch + (size_t)c * 12;
		int64_t t[R6], kb[R6] = {0};
		double tile = 1;
		int whole = 1;
		memset(cc, 0, sizeof(int16_t) * 12);
		for (int i = tp.r - 1; i >= 0; i--) {
			int j = 0;
			if (c == 0) {
				/* The compiler's default: from the minor dim up, whole
				 * dims while the working set stays within 2 MiB, then
				 * the largest size that fits, then 1. */
				for (int q = 0; whole && q < ncand[i]; q++)
					if (2.0 * tile * (double)cand[i][q] * tp.B <= DEFAULT_WS)
						j = q;
				whole &= cand[i][j] == tp.D[i];
			} else {
				j = rng_below(&rng, ncand[i]);
			}
			cc[i] = (int16_t)j;
			t[i] = cand[i][j];
			tile *= (double)t[i];
		}
		if (ki->contract >= 0) {
			int j = c == 0 ? nkc - 1 : rng_below(&rng, nkc);
			if (c == 0)
				while (j > 0 && kcand[j] > 128)
					j--;
			cc[6] = (int16_t)j;
			for (int i = 0; i < ki->krank; i++)
				kb[i] = ki->kdim[i];
			kb[kin] = kcand[j];
			kb[ki->kout] = t[ki->out_feat];
		}
		double ws = 2.0 * tile * tp.B;
		if (c > 0 && (ws > 4 * VMEM_BYTES || ws < min_ws))
			continue; /* outside the compiler's search space */
		if (!hset_add(&hs, ch, 12, c))
			continue;
		tile_fill(cf + (size_t)c * 24, &tp, t, kb);
		c++;
	}
	for (int i = 0; i < c; i++) {
		double t = tile_runtime(&tp, cf + (size_t)i * 24) * exp(NOISE_SIGMA * rng_normal(&rng));
		rt[i] = test ? 0 : llround(t);
	}
	for (int i = 0; i < c; i++)
		nz[i] = test ? 1 : rt[0];

	npz_writer *w = npz_writer_open(path, 1, err);
	if (!w)
		goto out;
	int64_t cs[2] = {c, 24}, rs[1] = {c};
	if (write_common(w, a, err) < 0 ||
	    npz_writer_add(w, "config_feat", NPY_F4, 2, cs, cf, err) < 0 ||
	    npz_writer_add(w, "config_runtime", NPY_I8, 1, rs, rt, err) < 0 ||
	    npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, rs, nz, err) < 0) {
		npz_writer_abort(w);
		goto out;
	}
	if (npz_writer_finish(w, err) < 0)
		goto out;
	int64_t sz = 0;
	file_size(path, &sz);
	cx->rep.tile_files++;
	cx->rep.nodes += g->n;
	cx->rep.configs += c;
	cx->rep.bytes += sz;
	if (ctx_note(cx, "  %-44s %-48s %3d %4lld %5d\n", rel + 4, name, g->n, (long long)a->m,
		     c) < 0) {
		hs_fail(err, HS_EDATA, "synth: out of memory");
		goto out;
	}
	rc = 0;
out:
	free(cf);
	free(rt);
	free(nz);
	free(ch);
	free(hs.h);
	free(hs.idx);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The dataset plan.                                                   */

static const prog_spec programs[] = {
	/* name, kind, batch, size, width, depth, stages|heads, nchw, et, split, configs default/random */
	{"synth_resnet_nhwc_b8_s28", 0, 8, 28, 32, 3, 2, 0, HLO_ET_BF16, "train", 500, 400},
	{"synth_resnet_nchw_b8_s28", 0, 8, 28, 32, 3, 2, 1, HLO_ET_BF16, "train", 600, 300},
	{"synth_transformer_b8_s128_d512_l2", 1, 8, 128, 512, 2, 8, 0, HLO_ET_BF16, "train", 400,
	 250},
	{"synth_transformer_b4_s256_d768_l3", 1, 4, 256, 768, 3, 12, 0, HLO_ET_BF16, "valid",
	 300, 200},
	{"synth_resnet_nhwc_b16_s56_3stages", 0, 16, 56, 64, 4, 3, 0, HLO_ET_BF16, "test", 300,
	 200},
};

static const kern_spec kernels[] = {
	/* program, kind, a, b, c, d, k, split, configs */
	{"resnet", K_CONV_BN_RELU, 8, 28, 32, 32, 3, "train", 240},
	{"resnet", K_CONV_BN_RELU, 8, 28, 32, 128, 1, "train", 200},
	{"resnet", K_BN_STATS, 8, 28, 28, 128, 0, "train", 60},
	{"resnet", K_RELU_POOL, 8, 56, 32, 0, 0, "train", 160},
	{"resnet", K_POOL_FC, 8, 784, 128, 1000, 0, "train", 150},
	{"transformer", K_SOFTMAX, 8, 8, 128, 0, 0, "train", 300},
	{"transformer", K_LAYERNORM, 8, 128, 512, 0, 0, "train", 200},
	{"transformer", K_DENSE_GELU, 1024, 512, 2048, 0, 0, "train", 300},
	{"transformer", K_ATTN_OUT, 8, 128, 8, 64, 0, "train", 250},
	{"resnet", K_CONV_BN_RELU, 16, 14, 128, 128, 3, "train", 220},
	{"transformer", K_SOFTMAX, 4, 12, 256, 0, 0, "valid", 250},
	{"resnet", K_CONV_BN_RELU, 16, 28, 64, 256, 1, "valid", 200},
	{"transformer", K_LAYERNORM, 4, 256, 768, 0, 0, "valid", 180},
	{"transformer", K_DENSE_GELU, 1024, 768, 3072, 0, 0, "test", 300},
	{"resnet", K_BN_STATS, 16, 56, 56, 256, 0, "test", 60},
	{"resnet", K_RELU_POOL, 16, 112, 64, 0, 0, "test", 160},
};

#define NPROGRAMS (sizeof programs / sizeof programs[0])
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static int write_program(sy_ctx *cx, const prog_spec *ps, hs_error *err)
{
	sy_graph g;
	sy_arrays a;
	lay_prob lp;
	if (graph_init(&g) < 0)
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	if (ps->kind == 0)
		build_resnet(&g, ps);
	else
		build_transformer(&g, ps);
	int rc = sy_check_graph(&g, ps->name, err);
	if (!rc && (rc = encode_graph(&g, &a, err)) == 0) {
		if ((rc = lay_setup(&g, &lp, err)) == 0) {
			rc = write_layout(cx, ps, &g, &a, &lp, 0, err);
			if (!rc)
				rc = write_layout(cx, ps, &g, &a, &lp, 1, err);
			lay_free(&lp);
		}
		arrays_free(&a);
	}
	graph_done(&g);
	return rc;
}

static int write_kernel(sy_ctx *cx, const kern_spec *ks, hs_error *err)
{
	sy_graph g;
	sy_arrays a;
	kern_info ki;
	char desc[128];
	memset(&ki, 0, sizeof ki);
	int n = snprintf(desc, sizeof desc, "synth_%s_%s_%lldx%lldx%lld", ks->program,
			 kern_name(ks->kind), (long long)ks->a, (long long)ks->b, (long long)ks->c);
	if (ks->d && n > 0 && (size_t)n < sizeof desc)
		n += snprintf(desc + n, sizeof desc - (size_t)n, "x%lld", (long long)ks->d);
	if (ks->k == 3 && n > 0 && (size_t)n < sizeof desc)
		snprintf(desc + n, sizeof desc - (size_t)n, "_3x3");
	if (graph_init(&g) < 0)
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	build_kernel(&g, ks, &ki);
	int rc = sy_check_graph(&g, desc, err);
	if (!rc && (rc = encode_graph(&g, &a, err)) == 0) {
		rc = write_tile(cx, ks, desc, &g, &a, &ki, err);
		arrays_free(&a);
	}
	graph_done(&g);
	return rc;
}

/* ------------------------------------------------------------------ */
/* README and marker.                                                  */

static const char readme_fmt[] =
	"SYNTHETIC DATA - written by `hloscope synth`, not measured on any TPU.\n"
	"\n"
	"This folder mimics the TpuGraphs dataset (Google, NeurIPS 2023) so that\n"
	"hloscope can be tried, tested and trained on without downloading it.  Every\n"
	".npz file has exactly the arrays, dtypes and shapes of the real files:\n"
	"\n"
	"  tile:   node_feat <f4 (n,140), node_opcode |u1 (n,), edge_index <i8 (m,2),\n"
	"          config_feat <f4 (c,24), config_runtime <i8 (c,),\n"
	"          config_runtime_normalizers <i8 (c,)\n"
	"  layout: node_feat, node_opcode, edge_index as above, node_config_feat <f4\n"
	"          (c,nc,18), node_config_ids <i8 (nc,), config_runtime <i8 (c,),\n"
	"          node_splits <i8 (1,k)\n"
	"\n"
	"Edges [u, v] mean u consumes v's output.  Nodes are in topological order.\n"
	"Test splits hide their labels as the real ones do (runtimes 0, normalizers 1).\n"
	"The same seed always gives the same bytes.\n"
	"\n"
	"GRAPHS\n"
	"\n"
	"Layout files are whole programs before fusion: reducer computations, then the\n"
	"entry computation (node_splits delimits each computation).  resnet_* are\n"
	"conv-nets (image transpose, 7x7 stem, batch norm from batch statistics, relu,\n"
	"3x3 max pool, bottleneck blocks, global average pool through a reshape, dense\n"
	"layer, softmax); the nchw variant has slow default layouts.  transformer_* are\n"
	"pre-norm transformer layers (layer norm, Q/K/V dots, head reshapes and\n"
	"transposes, masked softmax, output projection, gelu feed-forward).\n"
	"Configurable nodes: every convolution, dot, reshape, transpose and copy of the\n"
	"entry computation.  Convolution and dot rows give the two minor-most dims of\n"
	"each layout (as the real files do), the others full layouts; -1 = the\n"
	"compiler's choice.  Default-search files hold the all -1 config exactly once.\n"
	"Tile files are fused kernels of those programs (reducers, the fused\n"
	"computation, the kernel computation with its fusion node).\n"
	"\n"
	"LAYOUT RUNTIME (ns)\n"
	"\n"
	"  runtime(c) = round((F + sum_k T_k(c) + X(c)) * exp(%g z)),  z ~ N(0,1)\n"
	"\n"
	"  Layouts are compared by their two minor-most dims (m0, m1).  For node k:\n"
	"  out = features 0-5, in = 6-11 (operand 0), kernel = 12-17 (operand 1).\n"
	"  -1: out = the node's default layout (node_feat minor_to_major), in/kernel =\n"
	"  whatever the operand produces.\n"
	"  F   = FUSE * sum over other nodes (not parameter/constant/tuple) of\n"
	"        OVH + output bytes / BW\n"
	"  T_k = convolution, dot: (OVH + max(flops / MXU, bytes / BW)) * P_k\n"
	"        reshape, transpose, copy: OVH + 2 * bytes / BW * (bitcast ? %g : 1)\n"
	"  P_k convolution = 1 + %g[in.m0 != input feature dim]\n"
	"                      + %g[out.m0 != output feature dim]\n"
	"                      + %g[kernel.m0 != kernel output feature dim]\n"
	"                      + %g[kernel.m1 != kernel input feature dim]\n"
	"  P_k dot (lhs's last dim contracted with rhs's second-to-last)\n"
	"          = 1 + %g[lhs.m0 != lhs rank-1] + %g[rhs.m0 != rhs rank-1]\n"
	"              + %g[out.m0 != out rank-1] + %g[rhs.m1 != rhs rank-2]\n"
	"  bitcast: transpose when perm maps out (m0, m1) onto in (m0, m1); reshape when\n"
	"  in and out are both row-major (m0 = rank-1, m1 = rank-2); copy when in == out.\n"
	"  X   = 2 * bytes(v) / BW for every copy: an explicit in/kernel layout that\n"
	"        differs from what the operand produces, and each non-configurable user\n"
	"        of a configurable node whose output is not its default layout.\n"
	"  OVH = %g ns, BW = %g bytes/ns, MXU = %g flop/ns, FUSE = %g.\n"
	"\n"
	"TILE RUNTIME (ns)\n"
	"\n"
	"  Output dims D_i (the fused root, or its largest tuple element), output_bounds t_i:\n"
	"  steps = prod ceil(D_i/t_i), tile = prod t_i,\n"
	"  lane = ceil(t_last/128)*128/t_last, sublane = ceil(t_2nd_last/8)*8/t_2nd_last.\n"
	"  W = sum over the fused computation's arithmetic nodes (all but parameters,\n"
	"  constants, broadcasts, reshapes, transposes, converts, tuples and the\n"
	"  convolution or dot) of max(own, largest operand) elements / output elements;\n"
	"  B = (fused parameter bytes + output bytes) / output elements.  With a convolution or\n"
	"  dot: K = contraction length, k = product of the contracted kernel_bounds,\n"
	"  ksteps = ceil(K/k), mxu = ceil(k/128)*128/k (else ksteps = 1, k = 0).\n"
	"  step = STEP*ksteps + max(tile*W*lane*sublane/VPU + ksteps*tile*2k*mxu*lane/MXU,\n"
	"                          (tile*B + ksteps*k*t_feat*esize)/BW)\n"
	"  ws = 2*tile*B + k*t_feat*esize; step *= 1 + ws/VMEM when ws > VMEM\n"
	"  runtime = round((LAUNCH + steps*step) * exp(%g z))\n"
	"  STEP = %g ns, LAUNCH = %g ns, VPU = %g flop/ns, VMEM = %g MiB.\n"
	"  Config 0 is the default tiling (whole minor dims while 2*tile*B <= %g MiB);\n"
	"  every normalizer is config 0's runtime.\n"
	"\n";

/* Writes the README (readme: the formulas, then `b`) or else plain `a`. */
static int write_text(const char *path, int readme, const char *a, const char *b, hs_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return hs_fail(err, HS_EDATA, "%s: cannot create: %s", path, strerror(errno));
	int ok = readme ? fprintf(f, readme_fmt, NOISE_SIGMA, BITCAST, CONV_IN, CONV_OUT, CONV_K0,
				  CONV_K1, DOT_LHS, DOT_RHS0, DOT_OUT, DOT_RHS1, OVH_NS, BW_BPNS,
				  MXU_FPNS, FUSE, NOISE_SIGMA, STEP_NS, LAUNCH_NS, VPU_FPNS,
				  VMEM_BYTES / (1024 * 1024), DEFAULT_WS / (1024 * 1024)) >= 0
			: fputs(a, f) >= 0;
	ok = ok && (!b || fputs(b, f) >= 0);
	ok &= fflush(f) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok)
		return hs_fail(err, HS_EDATA, "%s: write failed: %s", path, strerror(errno));
	return 0;
}

static int write_all(sy_ctx *cx, hs_error *err)
{
	if (ctx_note(cx, "FILES (folder, name, nodes, edges, configurable nodes, configs)\n\n") < 0)
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	for (size_t i = 0; i < NPROGRAMS; i++)
		if (write_program(cx, &programs[i], err) < 0)
			return -1;
	if (ctx_note(cx, "\n  (tile: folder, name, nodes, edges, configs)\n") < 0)
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	for (size_t i = 0; i < NKERNELS; i++)
		if (write_kernel(cx, &kernels[i], err) < 0)
			return -1;
	char path[4096], seedline[160];
	snprintf(seedline, sizeof seedline, "\nSeed %llu.  Regenerate with: hloscope synth DIR --seed %llu\n",
		 (unsigned long long)cx->seed, (unsigned long long)cx->seed);
	if (ctx_note(cx, "%s", seedline) < 0)
		return hs_fail(err, HS_EDATA, "synth: out of memory");
	snprintf(path, sizeof path, "%s/README", cx->root);
	if (write_text(path, 1, NULL, cx->readme, err) < 0)
		return -1;
	char marker[128];
	snprintf(marker, sizeof marker, "hloscope synth output, seed %llu\n",
		 (unsigned long long)cx->seed);
	snprintf(path, sizeof path, "%s/%s", cx->root, SYNTH_MARKER);
	return write_text(path, 0, marker, NULL, err);
}

/* ------------------------------------------------------------------ */
/* The destination folder.                                             */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *fw)
{
	(void)st;
	(void)flag;
	(void)fw;
	remove(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 if dir is empty or a previous synth output, 0 if not, -1 on error. */
static int replaceable(const char *dir, hs_error *err)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, SYNTH_MARKER);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		return 1;
	DIR *d = opendir(dir);
	if (!d)
		return hs_fail(err, HS_EDATA, "%s: cannot read: %s", dir, strerror(errno));
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

int synth_write(const char *dir_in, uint64_t seed, synth_report *rep, hs_error *err)
{
	char dir[4096], tmp[4096 + 32];
	size_t n = strlen(dir_in);
	if (n == 0 || n >= sizeof dir)
		return hs_fail(err, HS_EUSAGE, "synth: bad folder name '%s'", dir_in);
	memcpy(dir, dir_in, n + 1);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	if (tables_init(err) < 0)
		return -1;

	struct stat st;
	int exists = lstat(dir, &st) == 0;
	if (exists) {
		if (!S_ISDIR(st.st_mode))
			return hs_fail(err, HS_EUSAGE,
				       "%s: exists and is not a folder; not overwriting it", dir);
		int r = replaceable(dir, err);
		if (r < 0)
			return -1;
		if (!r)
			return hs_fail(err, HS_EUSAGE,
				       "%s: exists, is not empty and is not a previous synth output "
				       "(no %s); not overwriting it",
				       dir, SYNTH_MARKER);
		if (access(dir, W_OK) != 0)
			return hs_fail(err, HS_EDATA, "%s: not writable: %s", dir, strerror(errno));
	} else if (errno != ENOENT) {
		return hs_fail(err, HS_EDATA, "%s: cannot create: %s", dir, strerror(errno));
	}

	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", dir);
	if (!mkdtemp(tmp))
		return hs_fail(err, HS_EDATA, "%s: cannot create a folder next to it: %s", dir,
			       strerror(errno));
	chmod(tmp, 0755);
	sy_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.root = tmp;
	cx.seed = seed;
	int rc = write_all(&cx, err);
	free(cx.readme);
	if (rc < 0) {
		remove_tree(tmp);
		return -1;
	}
	if (exists) {
		/* Swap the new tree in, then delete the old one (now at tmp). */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0) {
			char old[4096 + 32];
			snprintf(old, sizeof old, "%s.old.XXXXXX", dir);
			if (!mkdtemp(old) || rmdir(old) != 0 || rename(dir, old) != 0) {
				hs_fail(err, HS_EDATA, "%s: cannot replace: %s", dir, strerror(errno));
				remove_tree(tmp);
				return -1;
			}
			if (rename(tmp, dir) != 0) {
				hs_fail(err, HS_EDATA, "%s: cannot replace: %s", dir, strerror(errno));
				rename(old, dir);
				remove_tree(tmp);
				return -1;
			}
			snprintf(tmp, sizeof tmp, "%s", old);
		}
		remove_tree(tmp);
	} else if (rename(tmp, dir) != 0) {
		hs_fail(err, HS_EDATA, "%s: cannot create: %s", dir, strerror(errno));
		remove_tree(tmp);
		return -1;
	}
	if (rep)
		*rep = cx.rep;
	return 0;
}
