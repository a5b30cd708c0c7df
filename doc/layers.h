/* layers.h - the model's own structure, from op_name: namespaces, their
 * rolled-up numbers, and the sibling namespaces that repeat one block.
 *
 * An instruction's layer is its op_name without the last '/' component
 * ("jit(train_step)/transformer/layer_3/mlp/dot_general" is in
 * "jit(train_step)/transformer/layer_3/mlp"); a '/' inside brackets
 * ("dot_general[dimension_numbers=...]") does not split.  A one-component
 * op_name (XLA_Args) puts the instruction at the top level, in the
 * namespace "(top level)"; no op_name, in "(no op_name)".  Every prefix of
 * a layer is a namespace: the tree's nodes, parents before children.
 *
 * Per namespace, for the instructions at or under it: how many; their
 * analytic cost, flops and bytes, summed over the instructions of executed
 * computations only (cost_role_executed: a fusion counts its kernel once,
 * never its body again), each attributed to its own layer; configurable
 * nodes; the opcode mix.
 *
 * Repeated blocks: each namespace's structure is hashed from the
 * instructions at or under it: per instruction its opcode and, for each
 * operand in order, that operand's hash when it lies inside the namespace
 * or "outside" when not (so names and shapes do not count, edges and
 * opcodes do); the namespace's hash is the sorted multiset of those.
 * Siblings with the same hash and size share a repeat_group number (1, 2,
 * ...; 0 when a namespace's block occurs once among its siblings).  The
 * work is linear in instructions times the depth of the tree, plus a sort
 * per depth.
 */
#ifndef HS_LAYERS_H
#define HS_LAYERS_H

#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "loader/graph.h"
#include "model/cost.h"

typedef struct hs_layer {
	const char *path;        /* "jit(train_step)/transformer/layer_3" */
	const char *name;        /* its last component: "layer_3" */
	int64_t parent;          /* -1 at the top */
	int depth;               /* 1 at the top */
	int64_t first_child, next_sibling; /* -1 when none; children in first-seen order */
	int64_t nodes_own;       /* instructions whose layer it is */
	int64_t nodes;           /* at or under it */
	double cost, flops, bytes; /* seconds, as cost_analytic; executed instructions only */
	int64_t configurable;    /* configurable nodes at or under it */
	int64_t repeat_group;    /* 0, or the group of siblings with the same block */
	int64_t first_node;      /* the first instruction at or under it (node order) */
	uint64_t shape;          /* the structure hash */
} hs_layer;

typedef struct hs_layers {
	hs_layer *v;             /* [n] parents before children, children in first-seen order */
	int64_t n;
	int32_t *layer_of;       /* [g->n_nodes]: the namespace of each instruction */
	int max_depth;
	int64_t n_groups;        /* repeat groups */
	hs_arena arena;          /* paths, names, arrays */
} hs_layers;

#define LAYER_TOP "(top level)"
#define LAYER_NONE "(no op_name)"

/* The tree of g; est[g->n_nodes] per-node costs (cost_analytic), or NULL
 * for no cost columns.  -1 and err on out of memory, or HS_ESTOPPED when
 * the work is stopped (base/progress.h). */
int layers_build(const hs_graph *g, const cost_estimate *est, hs_layers *out, hs_error *err);
void layers_free(hs_layers *l);

/* A namespace by path, or -1. */
int64_t layers_find(const hs_layers *l, const char *path);

/* Node v's layer as text: its namespace's path ("(top level)" when the
 * op_name had one component; "(no op_name)" without one). */
const char *layers_node_path(const hs_layers *l, int64_t v);

/* The length of op_name's layer: the bytes before its last '/' outside
 * brackets; 0 for a one-component op_name (the top level). */
size_t layers_op_name_layer(const char *op_name);

/* Every run of repeats at once, linear in namespaces: len[k] (l->n of
 * them) is the length of the run namespace k starts (2 or more), 0 for a
 * later member of a run, 1 for a namespace in none.  Runs are consecutive
 * siblings (top-level namespaces are siblings too) of one repeat group. */
void layers_runs(const hs_layers *l, int64_t *len);
/* The label of a run of `len` repeats starting at k: "layer_0 ... layer_23:
 * 24 repeats of one block" into buf. */
void layers_run_label(const hs_layers *l, int64_t k, int64_t len, char *buf, size_t cap);
/* The next sibling of k (the next top-level namespace for a top-level one),
 * or -1. */
int64_t layers_next_sibling(const hs_layers *l, int64_t k);

#endif
