/* draw.h - what the drawings (`hloscope dot`, the query command `export`)
 * take from a graph beyond its nodes: numbers of any node field as heat
 * (a feature, `cost`, a column of --data), op_name's layers as the groups
 * render/region.h draws as boxes, and the nodes whose values a box sums.
 *
 * Layers (model/layers.h) are built once per query_draw from the session's
 * analytic costs.  A layer drawing (`dot --layer PATH`) is the namespace's
 * own nodes and one box per child namespace; a run of repeated sibling
 * blocks (the same repeat_group, one after the other) is one box,
 * "layer_0..23 x24".  The grouper (query_draw_grouper) collapses a region
 * over its limit by layer: from the top-level namespaces down, the largest
 * box is opened first (its own nodes drawn, its children boxes, runs
 * folded) while the drawing stays within the limit.
 *
 * Ownership: query_draw_new() returns a helper freed by query_draw_free();
 * it borrows the session (and its graph), which must outlive it.
 */
#ifndef HS_QUERY_DRAW_H
#define HS_QUERY_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "query/query.h"
#include "render/region.h"

typedef struct query_draw query_draw;

query_draw *query_draw_new(query_session *s, hs_error *err);
void query_draw_free(query_draw *d);

/* The number EXPR (the query language's: a field, `cost`, a data field,
 * `flops / bytes`) on every node: [n_nodes] malloc'd, NaN where missing.
 * NULL with err set: HS_EUSAGE for an expression that is not a number
 * (the query language's message; *column, when not NULL, its 1-based
 * column or 0), HS_ENOMEM. */
double *query_draw_numbers(query_draw *d, const char *expr, int *column, hs_error *err);

/* [n_nodes]: 1 for the nodes of executed computations (cost_role_executed:
 * a fusion counts, not its body again), what a box's heat sums.  Owned by
 * d; NULL when out of memory. */
const uint8_t *query_draw_executed(query_draw *d);

/* A layer drawing: the nodes at or under namespace `path` ("" or "/": the
 * whole module by its top-level namespaces) and their groups, the child
 * namespaces, runs folded.  `expand` (NULL, "all" or comma-separated
 * words) opens namespaces: a word is a namespace's name (`mlp`: every one
 * of that name under the layer), its path, or the end of its path
 * (`layer_3/mlp`); their ancestors open with them and a run they are in
 * splits around them.  A word that names no namespace must name a
 * computation: those are left in *expand_comps (for region_spec.expand).
 * Fills spec->kind, ids, n_ids, groups and layer (borrowed from *out). */
typedef struct query_layer_draw {
	int64_t *ids;          /* [n_ids] ascending */
	size_t n_ids;
	region_groups groups;
	char *path;            /* the namespace as the tree writes it ("" the root) */
	char *expand_comps;    /* computations to expand, or NULL */
} query_layer_draw;
/* 0, or -1 with err set: HS_EUSAGE for a path that is no namespace, or a
 * word of `expand` that names neither (each with the closest name). */
int query_draw_layer(query_draw *d, const char *path, const char *expand, query_layer_draw *out,
		     hs_error *err);
void query_draw_layer_free(query_layer_draw *out);

/* region_grouper over the layers of d (ctx): the region's nodes grouped by
 * layer within `limit` boxes.  In REGION_COLLAPSE_AUTO, no grouping (n = 0:
 * region.h then groups by computation) when nine in ten of the nodes have
 * no op_name. */
int query_draw_grouper(void *ctx, const hs_graph *g, const int64_t *nodes, int64_t n,
		       int64_t limit, region_collapse_mode mode, region_groups *out, hs_error *err);

#endif
