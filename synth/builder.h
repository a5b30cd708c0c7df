/* graph.h - HLO graphs under construction, and their encoding as the
 * TpuGraphs files hold them.  Internal to synth/ (and its unit test).
 *
 * A synth_graph is a list of nodes in topological order, grouped into
 * computations: synth_comp_begin, the computation's nodes, then
 * synth_comp_end(root) where the root is the computation's last node.
 * Builders (one per HLO op, graph.c; composite layers, layers.c) compute each
 * node's shape from its operands and return the new node's id.  They never
 * fail: a shape mismatch or a full graph is a bug in a builder, recorded once
 * in g->bug and reported by synth_graph_check.
 *
 * encode.c turns a graph into the arrays of a .npz file:
 *   node_feat    <f4 (n,140): features as the dataset README names them
 *                (looked up with hlo_node_feature_index): element type
 *                one-hot, dims with sum and product, tuple size, parameter
 *                number, the "dimensions" attribute (broadcast, reduce,
 *                transpose), windows of convolutions and reduce-windows,
 *                convolution dimension numbers and group counts, products of
 *                empty lists = 1 as in the real files, the default layout
 *                (minor_to_major, descending);
 *   node_opcode  |u1 (n,): ids of the opcode table (loader/hlo.h);
 *   edge_index   <i8 (m,2): [u, v] = u consumes v; sorted by (u, v),
 *                duplicates dropped; a node calling a computation (reduce,
 *                reduce-window, fusion) also has an edge to its root;
 *   node_splits  the first node of every computation, then n.
 *
 * Ownership: synth_graph_init allocates g->v, synth_graph_done frees it.
 * synth_encode fills a synth_arrays whose arrays synth_arrays_free frees.
 */
#ifndef HS_SYNTH_GRAPH_H
#define HS_SYNTH_GRAPH_H

#include <stdint.h>

#include "base/error.h"

#define SYNTH_MAX_RANK 6
#define SYNTH_MAX_OPERANDS 8
#define SYNTH_MAX_NODES 4096
#define SYNTH_MAX_COMPS 16

/* The opcodes synth uses: enum name, HLO opcode name. */
#define SYNTH_OPS(X)                                                           \
	X(PARAM, "parameter") X(CONST, "constant") X(ADD, "add")               \
	X(SUB, "subtract") X(MUL, "multiply") X(DIV, "divide")                 \
	X(MAX, "maximum") X(EXP, "exponential") X(RSQRT, "rsqrt")              \
	X(TANH, "tanh") X(CONVERT, "convert") X(BCAST, "broadcast")            \
	X(RESHAPE, "reshape") X(TRANSPOSE, "transpose") X(COPY, "copy")        \
	X(REDUCE, "reduce") X(RWIN, "reduce-window") X(CONV, "convolution")    \
	X(DOT, "dot") X(TUPLE, "tuple") X(FUSION, "fusion")

enum synth_op {
#define SYNTH_ENUM(e, name) SY_##e,
	SYNTH_OPS(SYNTH_ENUM)
#undef SYNTH_ENUM
	SY_NOPS
};

/* HLO opcode names, indexed by enum synth_op. */
extern const char *const synth_op_names[SY_NOPS];

/* Layout-configurable kinds (the layout collection's configurable nodes). */
enum { SY_CFG_NONE, SY_CFG_CONV, SY_CFG_DOT, SY_CFG_RESHAPE, SY_CFG_TRANSPOSE, SY_CFG_COPY };

typedef struct synth_node {
	int op;               /* SY_* */
	int et;               /* hlo_element_type */
	int rank;
	int64_t dim[SYNTH_MAX_RANK];
	int m2m[SYNTH_MAX_RANK]; /* default layout, minor to major */
	int is_root;
	int param_no;
	int tuple_n;
	int ndimattr, dimattr[SYNTH_MAX_RANK];
	int nwin;             /* window rank (0: no window) */
	int64_t win[4][SYNTH_MAX_RANK]; /* size, stride, padding low, padding high */
	int conv;             /* 1 when cd[] holds dimension numbers */
	int cd[14];           /* input batch, feature, spatial 0-3; kernel input
			       * feature, output feature, spatial 0-3; output
			       * batch, feature (the feature table's order) */
	int nops, ops[SYNTH_MAX_OPERANDS];
	int called;           /* root of a called computation, or -1 */
	int cfg;              /* SY_CFG_*: layout-configurable kind */
	double flops;
} synth_node;

typedef struct synth_graph {
	synth_node *v;        /* [SYNTH_MAX_NODES], n used */
	int n;
	int comp[SYNTH_MAX_COMPS + 1]; /* first node of each computation */
	int ncomp;
	int open;             /* start of the open computation, -1 if none */
	int nparam;
	char bug[160];        /* first construction error: a bug in a builder */
} synth_graph;

/* ---- graph.c: nodes and computations --------------------------------- */

int synth_graph_init(synth_graph *g); /* -1 when out of memory */
void synth_graph_done(synth_graph *g);
/* HS_EDATA "synth: NAME: internal error: ..." if a builder went wrong or a
 * computation was left open. */
int synth_graph_check(const synth_graph *g, const char *name, hs_error *err);

int64_t synth_elems(const synth_node *x);
int synth_et_bytes(int et);              /* 4 for types without a size */
int64_t synth_nbytes(const synth_node *x); /* 0 for tuples */

int synth_new_node(synth_graph *g, int op, int et, int rank, const int64_t *dim);
void synth_add_op(synth_graph *g, int x, int operand);
void synth_comp_begin(synth_graph *g);
void synth_comp_end(synth_graph *g, int root);

/* ---- graph.c: one builder per op --------------------------------------- */

int synth_param(synth_graph *g, int et, int rank, const int64_t *dim);
int synth_cst(synth_graph *g, int et);                 /* scalar constant */
int synth_un(synth_graph *g, int op, int a);           /* elementwise, one operand */
int synth_bin(synth_graph *g, int op, int a, int b);   /* elementwise, two operands */
int synth_cvt(synth_graph *g, int a, int et);          /* a itself if already et */
/* Operand dimension i becomes output dimension map[i]. */
int synth_bcast(synth_graph *g, int a, int rank, const int64_t *dim, const int *map);
int synth_splat(synth_graph *g, int like, int et);     /* constant in like's shape */
int synth_bcast_like(synth_graph *g, int a, int like, const int *map);
int synth_reduce(synth_graph *g, int a, int init, int nred, const int *rdims, int reducer);
int synth_reshape(synth_graph *g, int a, int rank, const int64_t *dim);
int synth_transpose(synth_graph *g, int a, const int *perm); /* out dim i = in dim perm[i] */
int synth_copy(synth_graph *g, int a);
/* 2-d convolution, NHWC/HWIO or NCHW/OIHW; window k, stride s, padding p. */
int synth_conv2d(synth_graph *g, int in, int w, int nchw, int k, int s, int p);
int synth_dot(synth_graph *g, int a, int b); /* [..., M, K] x [K, N] or [batch..., K, N] */
/* Max pooling over the spatial dims sp0, sp0 + 1. */
int synth_maxpool(synth_graph *g, int a, int sp0, int k, int s, int p, int reducer);
int synth_tuple(synth_graph *g, int n, const int *ops);
/* A reducer computation (p0, p1) -> op(p0, p1); returns its root. */
int synth_reducer(synth_graph *g, int op, int et);

/* ---- layers.c: composite layers ---------------------------------------- */

typedef struct synth_reducers {
	int add, max;         /* roots of reducer computations */
} synth_reducers;

int synth_relu(synth_graph *g, int x);
/* Batch norm with batch statistics over every dim but fd, in f32. */
int synth_batchnorm(synth_graph *g, const synth_reducers *rd, int x, int fd);
/* Layer norm over the last dim, in f32, with gamma and beta. */
int synth_layernorm(synth_graph *g, const synth_reducers *rd, int x);
/* Softmax over the last dim, in f32; the result in et. */
int synth_softmax(synth_graph *g, const synth_reducers *rd, int x, int et);
int synth_gelu(synth_graph *g, int x);   /* tanh approximation */
/* x [..., K] times a new weight [K, n] plus a new bias [n]. */
int synth_dense(synth_graph *g, int x, int64_t n);
/* A new convolution weight for input `in` (HWIO, or OIHW when nchw). */
int synth_conv_param(synth_graph *g, int in, int nchw, int64_t cout, int k);
/* Convolution (padding k/2), batch norm, relu when act. */
int synth_conv_bn(synth_graph *g, const synth_reducers *rd, int x, int nchw, int64_t cout,
		  int k, int s, int act);

/* ---- encode.c: the arrays of a .npz file ------------------------------- */

typedef struct synth_arrays {
	int64_t n, m;
	float *feat;          /* [n * HLO_NODE_FEATURES] node_feat */
	uint8_t *opcode;      /* [n] node_opcode */
	int64_t *edges;       /* [m * 2] edge_index */
	int64_t *splits;      /* [nsplits] node_splits */
	int64_t nsplits;
} synth_arrays;

/* Looks up the opcode ids and feature indices synth writes (once; later
 * calls return 0 at once).  HS_EDATA if the tables lack one. */
int synth_features_init(hs_error *err);
/* Encodes g into a (calls synth_features_init); -1 with err set on failure. */
int synth_encode(const synth_graph *g, synth_arrays *a, hs_error *err);
void synth_arrays_free(synth_arrays *a);

#endif
