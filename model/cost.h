/* cost.h - analytic per-node cost, no training needed.
 *
 * FLOPs and bytes moved for every node from its decoded features, and a
 * roofline time on a documented TPU-like machine (see cost.c for the
 * formulas and constants).
 *
 * The machine is one TensorCore of a TPU v3 chip (a chip has two):
 * 123 TFLOP/s bf16 and 900 GB/s HBM per chip, so half of each per core.
 */
#ifndef HS_COST_H
#define HS_COST_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"

#define COST_PEAK_FLOPS 61.5e12      /* FLOP/s, one TPU v3 core, bf16 matrix units */
#define COST_HBM_BYTES_PER_S 450e9   /* bytes/s, one TPU v3 core's share of HBM */
#define COST_TILE_STEP_SECONDS 0.35e-6 /* fixed cost of one tile (grid step) */
#define COST_TILE_MINOR 128          /* TPU memory tiles: (8, 128) elements */
#define COST_TILE_SECOND_MINOR 8

typedef struct cost_estimate {
	double flops;   /* floating-point operations */
	double bytes;   /* bytes read (operands) + written (output) */
	double seconds; /* roofline: max(flops / peak, bytes / bandwidth) */
} cost_estimate;

/* Fills out[g->n_nodes].  Never fails on a loaded graph.  Graphs whose
 * node features are not the documented 140 give all zeros. */
void cost_analytic(const hs_graph *g, cost_estimate *out);

/* Sum of out[0..n) (flops, bytes and seconds each summed). */
cost_estimate cost_total(const cost_estimate *est, int64_t n);

/* Analytic score per config in nanoseconds (out[g->n_configs]), lower =
 * predicted faster; see cost.c for the layout and tile formulas.  Loads
 * node configs as needed.  Returns 0 or -1 with err set. */
int cost_predict_configs(hs_graph *g, double *out, hs_error *err);

/* Tile graphs: the terms of the tile score, per config: pad[c] and
 * tiles[c] (arrays of g->n_configs), and the graph's total node time.
 * Returns 0, or -1 (not a tile graph, out of memory). */
int cost_tile_terms(const hs_graph *g, double *pad, double *tiles, double *base_seconds);

/* Layout graphs: per configurable node k, the analytic estimate's part of
 * score(b) - score(a) (out[g->n_cfg_nodes], ns; they sum to the
 * difference).  Returns 0 or -1 with err set. */
int cost_node_contributions(hs_graph *g, int64_t a, int64_t b, double *out, hs_error *err);

#endif
