/* graph.h - one TpuGraphs sample: an HLO graph, its configs and runtimes.
 *
 * graph_open() reads the small arrays (opcodes, node features, edges,
 * splits, config ids, runtimes, tile config_feat) and validates them.  The
 * large layout array node_config_feat is read on demand by
 * graph_load_node_configs() and kept compactly (one byte per value when all
 * values fit in int8, which they do in every real file).
 *
 * Edges: edge_index[e] = {u, v} means u consumes the output of v; so v is an
 * operand of u and u is a user of v.
 *
 * Ownership: the graph owns every array in it; graph_free() releases all.
 */
#ifndef HS_GRAPH_H
#define HS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef enum hs_kind { HS_KIND_TILE, HS_KIND_LAYOUT } hs_kind;

typedef struct hs_graph {
	char *path;
	char *name;              /* file name without directory and ".npz" */
	hs_kind kind;

	int64_t n_nodes;
	int64_t n_edges;
	uint8_t *opcode;         /* [n_nodes] */
	float *node_feat;        /* [n_nodes * feat_width] */
	int feat_width;
	int64_t (*edges)[2];     /* [n_edges] {user, operand} in file order */

	/* CSR both ways; neighbour lists in edge order. */
	int64_t *operand_off;    /* [n_nodes + 1] */
	int64_t *operand_idx;    /* [n_edges] */
	int64_t *user_off;       /* [n_nodes + 1] */
	int64_t *user_idx;       /* [n_edges] */

	/* Computations from node_splits: computation c holds nodes
	 * comp_start[c] .. comp_start[c + 1] - 1.  Tile graphs have one. */
	int64_t n_comps;
	int64_t *comp_start;     /* [n_comps + 1], comp_start[n_comps] == n_nodes */
	int32_t *comp_of;        /* [n_nodes] */

	/* Configs. */
	int64_t n_configs;
	int labeled;             /* 0 when every runtime is 0 (test split) */
	int64_t *runtime_raw;    /* [n_configs] config_runtime as stored (ns) */
	int64_t *normalizer;     /* tile: [n_configs]; NULL for layout */
	double *runtime;         /* [n_configs] tile: raw / normalizer; layout: raw */

	/* Tile. */
	float *config_feat;      /* [n_configs * config_width] */
	int config_width;

	/* Layout. */
	int64_t n_cfg_nodes;
	int64_t *cfg_node_ids;   /* [n_cfg_nodes] node ids, as stored */
	int32_t *cfg_index;      /* [n_nodes]: k with cfg_node_ids[k] == node, or -1 */
	int ncf_width;           /* 18 in real files; known before loading */
	int ncf_loaded;
	int8_t *ncf_i8;          /* [n_configs * n_cfg_nodes * ncf_width] when compact */
	float *ncf_f32;          /* same, when some value does not fit in int8 */
} hs_graph;

/* Opens and validates a .npz sample (not node_config_feat's values). */
hs_graph *graph_open(const char *path, hs_error *err);
void graph_free(hs_graph *g);

/* Loads node_config_feat (layout only; no-op when loaded or tile). */
int graph_load_node_configs(hs_graph *g, hs_error *err);

/* node_config_feat[c, k, j]; the graph must have its node configs loaded. */
static inline float graph_ncf(const hs_graph *g, int64_t c, int64_t k, int j)
{
	size_t i = ((size_t)c * (size_t)g->n_cfg_nodes + (size_t)k) *
		   (size_t)g->ncf_width + (size_t)j;
	return g->ncf_i8 ? (float)g->ncf_i8[i] : g->ncf_f32[i];
}

static inline const float *graph_feat(const hs_graph *g, int64_t node)
{
	return g->node_feat + (size_t)node * (size_t)g->feat_width;
}

static inline int64_t graph_n_operands(const hs_graph *g, int64_t v)
{
	return g->operand_off[v + 1] - g->operand_off[v];
}

static inline int64_t graph_n_users(const hs_graph *g, int64_t v)
{
	return g->user_off[v + 1] - g->user_off[v];
}

/* Index of the config with the smallest runtime (-1 if unlabeled). */
int64_t graph_best_config(const hs_graph *g);
/* Index of the layout config whose values are all -1 (the compiler's
 * default), or -1 when there is none.  Loads node configs if needed. */
int64_t graph_default_config(hs_graph *g, hs_error *err);

const char *graph_kind_name(hs_kind k); /* "tile" / "layout" */

/* Full validation beyond what graph_open checks: every value of
 * node_config_feat, CRCs of every member (graph_open checks the ones it
 * reads).  Used by `hloscope check`; streams, so memory stays small. */
int graph_check_file(const char *path, hs_error *err);

/* ---- Opening only some arrays (graph_parts.c) ---- */

/* The parts of a sample a reader needs (a mask); graph_open reads them all
 * but node_config_feat's values, which graph_load_node_configs adds. */
enum {
	GRAPH_PART_OPCODES = 1u << 0,      /* node_opcode: n_nodes, opcode (always read) */
	GRAPH_PART_SHAPES = 1u << 1,       /* the other arrays' shapes: n_edges, n_configs,
					    * n_cfg_nodes, feat_width, config_width, ncf_width */
	GRAPH_PART_SPLITS = 1u << 2,       /* node_splits: n_comps, comp_start, comp_of */
	GRAPH_PART_RUNTIMES = 1u << 3,     /* config_runtime (+ tile normalizers): n_configs,
					    * runtime_raw, normalizer, runtime, labeled */
	GRAPH_PART_FEATURES = 1u << 4,     /* node_feat */
	GRAPH_PART_EDGES = 1u << 5,        /* edge_index and the CSR */
	GRAPH_PART_CONFIGS = 1u << 6,      /* config_feat (tile), node_config_ids (layout) */
	GRAPH_PART_NODE_CONFIGS = 1u << 7, /* node_config_feat's values */
	GRAPH_PART_ALL = 0xffu,
};

/* Opens a sample reading what `parts` asks for, and node_opcode.  A .npz
 * file asked for no more than OPCODES, SHAPES, SPLITS and RUNTIMES has only
 * those members read and checked (the others are not looked at); arrays not
 * read are NULL and their counts 0 (SHAPES fills the counts and widths from
 * the .npy headers alone).  Any other part, or another kind of file, opens
 * it whole with graph_open (and loads the node configs for NODE_CONFIGS).
 * Errors and ownership as graph_open. */
hs_graph *graph_open_parts(const char *path, unsigned parts, hs_error *err);

#endif
