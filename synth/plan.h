/* plan.h - what the demo dataset holds: the whole programs of the layout
 * collection (programs.c) and the fused kernels of the tile collection
 * (kernels.c), each a table entry and a builder.  Internal to synth/ (and its
 * unit test).
 *
 * Graphs are built node by node like XLA HLO programs (synth/graph.h):
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
 * Ownership: the tables are static; builders add nodes to a graph the caller
 * owns.
 */
#ifndef HS_SYNTH_PLAN_H
#define HS_SYNTH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "synth/builder.h"

/* ---- programs.c: whole programs (layout collection) -------------------- */

enum { SYNTH_CONVNET, SYNTH_TRANSFORMER };

typedef struct synth_program {
	const char *name;
	int kind;             /* SYNTH_CONVNET or SYNTH_TRANSFORMER */
	int64_t batch;
	int64_t size;         /* conv-net: feature map side; transformer: sequence */
	int64_t width;        /* conv-net: base channels; transformer: model dim */
	int depth;            /* conv-net: blocks per stage; transformer: layers */
	int stages;           /* conv-net stages; transformer: heads */
	int nchw;
	int et;
	const char *split;
	int cfg_default, cfg_random; /* configs per file in each search */
} synth_program;

extern const synth_program synth_programs[];
extern const int synth_nprograms;

/* Builds p's reducers and entry computation into g (empty on entry). */
void synth_build_program(synth_graph *g, const synth_program *p);

/* ---- kernels.c: fused kernels (tile collection) ------------------------ */

enum { SYNTH_K_CONV_BN_RELU, SYNTH_K_BN_STATS, SYNTH_K_SOFTMAX, SYNTH_K_LAYERNORM,
       SYNTH_K_DENSE_GELU, SYNTH_K_RELU_POOL, SYNTH_K_ATTN_OUT, SYNTH_K_POOL_FC };

typedef struct synth_kernel {
	const char *program;  /* "resnet" or "transformer" */
	int kind;             /* SYNTH_K_* */
	int64_t a, b, c, d;   /* sizes, meaning per kind (see kernels.c) */
	int k;                /* convolution window */
	const char *split;
	int configs;
} synth_kernel;

/* What the tile formula needs beyond the graph. */
typedef struct synth_kernel_info {
	int out;              /* node whose shape is the kernel output */
	int contract;         /* the convolution or dot, or -1 */
	int krank;            /* kernel operand rank */
	int64_t kdim[SYNTH_MAX_RANK];
	int kout;             /* kernel dim that is the output feature dim */
	int out_feat;         /* output dim matching kout */
	int64_t K;            /* contraction length */
	int body_start, body_end; /* the fused computation [start, end) */
} synth_kernel_info;

extern const synth_kernel synth_kernels[];
extern const int synth_nkernels;

/* Builds the kernel's reducers, fused computation and kernel computation
 * into g (empty on entry) and fills ki. */
void synth_build_kernel(synth_graph *g, const synth_kernel *ks, synth_kernel_info *ki);

/* The kernel's descriptive name, e.g. "synth_resnet_conv_bn_relu_8x28x32x32_3x3". */
void synth_kernel_desc(const synth_kernel *ks, char *buf, size_t cap);

#endif
