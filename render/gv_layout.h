/* layout.h - Graphviz dot layout of a region, read back as plain numbers.
 *
 * layout_region() builds the region's graph in terminal geometry (dot.h,
 * dot_opts.terminal): every node is a fixed-size box whose width and height
 * are whole character cells of LAYOUT_CELL_W x LAYOUT_CELL_H points, so that
 * dividing Graphviz coordinates by the cell size gives terminal cells.  It
 * runs gvLayout "dot" in this process and reads node centers and sizes and
 * the edges' B-spline control points back from cgraph.
 *
 * Coordinates are points with the origin at the top-left corner of the
 * drawing and y growing downward (Graphviz's y is flipped).
 *
 * Ownership: layout_region() returns a layout freed by layout_free().  A
 * layout_cache owns the layouts it hands out; the pointer returned by
 * layout_cache_get() stays valid until the next layout_cache_get() or
 * layout_cache_free() on that cache.
 */
#ifndef HS_LAYOUT_H
#define HS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "render/dot.h"
#include "render/region.h"

#define LAYOUT_CELL_W 7.0   /* points per terminal column (Graphviz rounds sizes to points) */
#define LAYOUT_CELL_H 14.0  /* points per terminal row */
#define LAYOUT_NODE_ROWS 4  /* box height in rows: border, 2 lines, border */
#define LAYOUT_LABEL_MAX 40 /* label line length cap in columns (UTF-8 "…" counts 1) */

enum lay_flag {
	LAY_FOCUS = 1,        /* the region's center / path ends */
	LAY_HIGHLIGHT = 2,    /* in dot_opts.highlight */
	LAY_CONFIGURABLE = 4, /* a configurable node of a layout graph */
	LAY_PLACEHOLDER = 8,  /* not a node: an "N more users" / "N more operands"
	                       * box, or a collapsed computation */
	LAY_OPERANDS = 16,    /* placeholder: "N more operands" */
	LAY_COLLAPSED = 32,   /* placeholder: a collapsed computation (id: its index)
	                       * or, with LAY_GROUP, a group (id: its index) */
	LAY_GROUP = 64,       /* with LAY_COLLAPSED: a group of the region (region.h) */
	LAY_STUB = 128,       /* placeholder: a long edge cut (id: the stub's index) */
};

typedef struct lay_node {
	int64_t id;           /* graph node id; a placeholder's owner; a collapsed
	                       * computation's index in g->hcomps */
	int64_t hidden;       /* placeholder: users (operands) left out; a collapsed
	                       * computation: its region nodes; else 0 */
	double x, y;          /* center, points */
	double w, h;          /* size, points (whole cells) */
	char label[2][3 * LAYOUT_LABEL_MAX + 1]; /* UTF-8 lines: "1234 convolution",
	                                           * "f32[8,56,56,64]{3,2,1,0}" */
	uint8_t category;     /* hlo_category */
	uint8_t flags;        /* enum lay_flag */
	int8_t heat;          /* 0..DOT_HEAT_BINS-1, or -1 without heat */
	int32_t comp;         /* real HLO computation (g->hcomp_of); -1 for a group */
} lay_node;

typedef struct lay_edge {
	int32_t tail, head;   /* node indices: operand (tail) -> user (head) */
	int32_t n_pts;        /* 1 + 3k B-spline control points */
	double *pts;          /* [2 * n_pts] x, y pairs, tail end first */
	double bytes;         /* tensor bytes carried (0 if unknown) */
	int dashed;           /* edge to or from a users / operands placeholder */
	int call;             /* a call edge: callee's root or box to the caller */
	char label[16];       /* the operand indices in the user ("0,1"), or "" */
} lay_edge;

typedef struct lay_cluster {
	int32_t comp;
	double x0, y0, x1, y1; /* bounding box, points */
	char label[64];        /* "fused_computation.3 (fusion)", cut with "…" */
} lay_cluster;

typedef struct hs_layout {
	double width, height;  /* drawing size, points */
	int32_t n_nodes;
	lay_node *nodes;       /* region nodes in r->nodes order, then the "more
	                        * users" placeholders, the "more operands" ones,
	                        * the boxes (collapsed computations and groups)
	                        * and the stubs of long edges, each in region order */
	int32_t n_edges;
	lay_edge *edges;
	int32_t n_clusters;
	lay_cluster *clusters;
	int heat;              /* 1 when nodes carry heat bins */
	dot_heat_scale scale;  /* the heat scale, when heat */
	char key[256];         /* graph path + region key + options digest */
	double seconds_graphviz; /* wall time inside gvLayout */
	double seconds_total;    /* wall time of layout_region: build, layout, read back */
} hs_layout;

/* The bytes an edge from node `operand` carries: its output's (0 for a
 * tuple, whose elements live elsewhere). */
double layout_edge_bytes(const hs_graph *g, int64_t operand);
hs_layout *layout_region(const region *r, const dot_opts *o, hs_error *err);
void layout_free(hs_layout *L);

/* Index in L->nodes of graph node `id` (not placeholders), or -1. */
int32_t layout_find(const hs_layout *L, int64_t id);

typedef struct layout_cache layout_cache;
/* Keeps up to `capacity` layouts (at least 1), least recently used first out. */
layout_cache *layout_cache_new(int capacity);
void layout_cache_free(layout_cache *c);
/* The layout of (r, o), computed on a miss. */
const hs_layout *layout_cache_get(layout_cache *c, const region *r,
				  const dot_opts *o, hs_error *err);
/* Hits and misses so far (for tests and the status line). */
void layout_cache_stats(const layout_cache *c, long *hits, long *misses);

#endif
