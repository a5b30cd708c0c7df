/* cost.h - analytic per-node cost, no training needed.
 *
 * FLOPs and bytes moved for every node from its decoded features, and a
 * roofline time on a documented TPU-like machine (see cost.c for the
 * formulas and constants).
 */
#ifndef HS_COST_H
#define HS_COST_H

#include "loader/graph.h"

typedef struct cost_estimate {
	double flops;   /* floating-point operations */
	double bytes;   /* bytes read (operands) + written (output) */
	double seconds; /* roofline: max(flops / peak, bytes / bandwidth) */
} cost_estimate;

/* Fills out[g->n_nodes].  Never fails on a loaded graph. */
void cost_analytic(const hs_graph *g, cost_estimate *out);

#endif
