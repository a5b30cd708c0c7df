/* cost.h - analytic per-node cost, no training needed.
 *
 * FLOPs and bytes moved for every node, and a time on a documented
 * TPU-like machine: a roofline of compute and memory that also counts what
 * layouts change (the (8, 128) memory tiles, the copies a layout forces)
 * and a fixed cost per kernel.  Two views of one model:
 *   - the dataset's (cost.c, cost_features): every node alone, from its
 *     decoded features; the config scores (cost_config.c), the learned
 *     models and everything on a bare .npz use it, unchanged;
 *   - the module's (cost_module.c): on an HLO module, a fusion is one
 *     kernel computed from its body, a node inside a fusion body or a
 *     reducer costs its share of that kernel, custom-calls of known
 *     libraries get their FLOPs from their attributes, and a module's
 *     total counts each executed instruction once (cost_executed_total).
 * cost_analytic() gives the module's view when the graph has a module.
 * docs/model.md gives each term's reasoning and what it does to Kendall's
 * tau on real files.
 *
 * The machine is one TensorCore of a TPU v3 chip (a chip has two):
 * 123 TFLOP/s bf16 and 900 GB/s HBM per chip, so half of each per core.
 */
#ifndef HS_COST_H
#define HS_COST_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/hlo_module.h"

#define COST_PEAK_FLOPS 61.5e12      /* FLOP/s, one TPU v3 core, bf16 matrix units */
#define COST_HBM_BYTES_PER_S 450e9   /* bytes/s, one TPU v3 core's share of HBM */
#define COST_TILE_STEP_SECONDS 0.35e-6 /* fixed cost of one tile (grid step) */
#define COST_OP_SECONDS 1e-6         /* fixed cost of an op run as a kernel of its own */
#define COST_TILE_MINOR 128          /* TPU memory tiles: (8, 128) elements */
#define COST_TILE_SECOND_MINOR 8

/* The terms beyond the plain roofline, as bits (for measuring each one:
 * `hloscope eval --analytic-terms`).  COST_T_ALL is what every command uses. */
enum {
	COST_T_MXU = 1,      /* conv/dot compute padded to whole (8, 128) output tiles */
	COST_T_PADDING = 2,  /* memory traffic of tile padding */
	COST_T_COPY = 4,     /* copies a layout forces between producer and consumer */
	COST_T_OVERHEAD = 8, /* fixed cost per kernel */
	COST_T_RELAYOUT = 32, /* a reshape whose layouts make it a copy, not a bitcast */
	COST_T_ALL = COST_T_MXU | COST_T_PADDING | COST_T_COPY | COST_T_OVERHEAD | COST_T_RELAYOUT,
	/* Not in COST_T_ALL (docs/model.md says why): the padding of conv and
	 * dot operands, on top of COST_T_PADDING. */
	COST_T_MXU_OPERANDS = 16
};

/* One node's estimate; times in seconds. */
typedef struct cost_estimate {
	double flops;    /* floating-point operations */
	double bytes;    /* bytes read (operands) + written (output), unpadded */
	double compute;  /* flops / peak (times the MXU tile padding of a conv's or dot's output) */
	double memory;   /* bytes / bandwidth */
	double padding;  /* tile padding of a conv's, dot's, reduction's, copy's or transpose's
			  * operands and output / bandwidth */
	double copy;     /* copies forced into the node's operands by a layout change */
	double overhead; /* fixed cost (layout graphs: ops run as kernels of their own) */
	double network;  /* a collective's time on the interconnect (machine.h; 0 on tpu-v3) */
	double seconds;  /* max(compute, memory + padding) + copy + overhead */
	int unknown;     /* 1: nothing is known of what it computes (a custom-call
			  * to a target the model does not know): show "unknown",
			  * not its numbers */
} cost_estimate;

/* 1 when the analytic estimate can read the graph: node features are the
 * documented 140.  Otherwise every estimate is 0 and callers say "n/a"
 * with cost_unavailable_reason(). */
int cost_available(const hs_graph *g);
const char *cost_unavailable_reason(const hs_graph *g);

/* 1 when cost_analytic follows the module's rules (below), 0 for the
 * dataset's: the one place the choice is made. */
static inline int cost_module_rules(const hs_graph *g)
{
	/* the module's rules need its attributes (windows, convolution
	 * numbers, custom-call targets) and operand order, which a bare .npz
	 * does not keep; its numbers stay the dataset's */
	return (g->knows & HM_KNOWS_ATTRS) != 0;
}

/* Fills out[g->n_nodes] under the layouts the graph records: the module's
 * view (cost_module) when the module knows its attributes (an HLO input),
 * else the dataset's (cost_features: a bare .npz, whose numbers are the
 * dataset's).  Graphs whose node features are not the documented 140
 * give all zeros.  0, or -1 when memory runs out or the work is stopped
 * (base/progress.h: hs_progress_stopped() says which; out is then all
 * zeros, never a part: the caller reports HS_ENOMEM or HS_ESTOPPED). */
int cost_analytic(const hs_graph *g, cost_estimate *out);
/* The dataset's view: every node alone, from its features and the
 * dataset's edges, as the config scores and the learned models see it
 * (identical on an .npz and on the module it was converted from).  0, or
 * -1 when memory runs out (out all zeros). */
int cost_features(const hs_graph *g, cost_estimate *out);
/* The module's view (cost_module.c; its header comment is the model): 0;
 * 1 when its rules do not apply (cost_module_rules) or the features are not
 * the documented 140; -1 when memory runs out (out is then all zeros). */
int cost_module(const hs_graph *g, cost_estimate *out);

/* Sum of out[0..n) (every field summed; unknown counts the unknown ones). */
cost_estimate cost_total(const cost_estimate *est, int64_t n);

/* 1 for the computations that run on their own, once per call: the entry,
 * while bodies and conditions, called computations, branches, async
 * computations (and those of unknown role); 0 for fusion bodies and
 * reducers, which run inside their caller and are counted there. */
int cost_role_executed(hs_role r);
/* The module's cost: est[] summed over the nodes of executed computations
 * only (cost_role_executed), each executed op once. */
cost_estimate cost_executed_total(const hs_graph *g, const cost_estimate *est);

/* Analytic score per config in nanoseconds (out[g->n_configs]), lower =
 * predicted faster, with every term.  Loads node configs as needed.
 * Errors: features are not the documented 140 (HS_EUSAGE), out of memory.
 * Returns 0 or -1 with err set. */
int cost_predict_configs(hs_graph *g, double *out, hs_error *err);

/* The same with only the terms in `terms` (COST_T_* bits). */
int cost_predict_configs_terms(hs_graph *g, unsigned terms, double *out, hs_error *err);

/* Tile graphs: the terms of the tile score, per config: pad[c] and
 * tiles[c] (arrays of g->n_configs), and the graph's total node time.
 * Returns 0, or -1 (not a tile graph, out of memory). */
int cost_tile_terms(const hs_graph *g, double *pad, double *tiles, double *base_seconds);

/* Layout graphs: per configurable node k, the analytic estimate's part of
 * score(b) - score(a) (out[g->n_cfg_nodes], ns; they sum to the
 * difference).  A non-configurable node whose time depends on the config
 * (it reads a configurable node's output) is shared equally among its
 * configurable producers.  Returns 0 or -1 with err set. */
int cost_node_contributions(hs_graph *g, int64_t a, int64_t b, double *out, hs_error *err);

/* ---- for cost_config.c ---------------------------------------------------- */

/* The two most minor dimensions of a tensor that are laid out: dims of size
 * 1 take no space and are skipped (-1: not known). */
typedef struct cost_lay {
	int m0, m1;
} cost_lay;

/* Layout of shape s from minor-to-major entries l[0..n) (-1 and dims out
 * of range end the list: the compiler picks the rest). */
cost_lay cost_lay_of(const int *l, int n, const hm_shape *s);
/* The recorded layout of s (row-major when the graph records none). */
cost_lay cost_lay_recorded(const hm_shape *s);
/* Rows of a TPU memory tile for s's element type: 8 of 32 bits, and the
 * narrower types packed into them (16 for 16-bit types such as bf16, 32
 * for 8-bit ones); 8 when the type is not known. */
int cost_tile_rows(const hm_shape *s);
/* Size factor of s stored in (rows, 128) tiles under l: the minor dim
 * padded to a multiple of 128, the second minor to a multiple of
 * cost_tile_rows(s). */
double cost_pad_factor(const hm_shape *s, cost_lay l);
int cost_lay_equal(cost_lay a, cost_lay b);
/* 1 when l orders s's dims of size > 1 as the row-major layout does (in
 * its two minor dims). */
int cost_lay_row_major(const hm_shape *s, cost_lay l);

/* Per-node facts computed once per graph. */
typedef struct cost_graph {
	const hs_graph *g;
	const hm_shape **shape;  /* [n_nodes] output shapes decoded from the features */
	hm_shape *own;           /* [n_nodes] those decoded here (HLO input), or NULL */
	int64_t *store;          /* their dims and layouts (HM_DECODE_STORE a node) */
	double *flops;           /* [n_nodes] */
	double *bytes_out;       /* [n_nodes] B(output) */
	uint8_t *cls;            /* [n_nodes] COST_C_* bits */
	int layout_overhead;     /* per-op overhead applies (layout graphs) */
} cost_graph;

enum {
	COST_C_FREE = 1,     /* moves nothing itself */
	COST_C_MXU = 2,      /* convolution, dot */
	COST_C_TILED = 4,    /* padding counts: conv, dot, reductions, copy, transpose */
	COST_C_KERNEL = 8,   /* runs as a kernel of its own: pays COST_OP_SECONDS */
	COST_C_ADOPTS = 16,  /* can write any layout its consumer asks for (fused) */
	COST_C_RESHAPE = 32  /* a reshape: a bitcast only when both layouts are row-major */
};

/* COST_C_* bits of every opcode id (cls[256]). */
void cost_opcode_classes(uint8_t cls[256]);

/* Returns 0, or -1 (out of memory).  cost_graph_free() releases it. */
int cost_graph_init(cost_graph *cg, const hs_graph *g);
void cost_graph_free(cost_graph *cg);
/* Node v's estimate with its output laid out as `out` and its operands as
 * ops[graph_n_operands(g, v)] (NULL: the recorded layouts).  copy is 0. */
void cost_node(const cost_graph *cg, int64_t v, cost_lay out, const cost_lay *ops, unsigned terms,
	       cost_estimate *c);

#endif
