/* route.h - the edges of a layout routed in character cells around the
 * boxes, for the terminal drawing (canvas.h).
 *
 * Graphviz routes splines between boxes in points; rounded to cells, a
 * spline may graze a box, run along its border or meet it on a side.  Here
 * each edge becomes a path of cells that
 *   - starts right below the operand's box (an edge leaves through the
 *     bottom border, where the canvas draws a tee) and ends right above
 *     the user's box (entering through the top border, under an arrow);
 *   - never enters a box nor the column beside one, so no line runs over a
 *     box or points into its side;
 *   - follows the Graphviz spline where it can, and goes around boxes by a
 *     shortest path with few bends (A* over the cells) where it cannot;
 * and the operand indices of the edges at each arrow get a place in the
 * user's top border (route_label.c).
 * Routes depend on the layout alone, not on the window drawn, so windows
 * and bands of rows join exactly.
 *
 * Ownership: route_layout() returns routes freed by route_free(); they do
 * not point into the layout.
 */
#ifndef HS_ROUTE_H
#define HS_ROUTE_H

#include <stdint.h>

#include "render/gv_layout.h"

#define ROUTE_LABEL_MAX 40 /* bytes of a label, "…" included */

typedef struct lay_routes {
	int32_t n_edges;  /* as the layout's */
	int32_t *off;     /* [n_edges + 1]: edge e's points are pts[2*off[e] .. 2*off[e+1]) */
	int *pts;         /* x, y pairs in drawing cells: the path's first cell (below the operand),
	                   * every cell where it turns, its last cell (above the user); consecutive
	                   * points share a row or a column.  An edge with no points (a self-loop,
	                   * touching boxes) is not drawn. */
	int *bbox;        /* [4 * n_edges] x0, y0, x1, y1 of each edge's cells, inclusive */
	/* The operand indices in the users' top borders (route_label.c): edge e
	 * writes label[e] from column label_at[e] of the row under its last
	 * point, or label_at[e] is -1 (no label, or another edge arriving at
	 * the same arrow writes the joint one, or there was no room). */
	int32_t *label_at;
	char (*label)[ROUTE_LABEL_MAX];
} lay_routes;

/* Routes every edge of L and places their labels; NULL when out of memory. */
lay_routes *route_layout(const hs_layout *L);
/* The label placement of route_layout (route_label.c).  -1: out of memory. */
int route_place_labels(lay_routes *R, const hs_layout *L);
void route_free(lay_routes *R);

#endif
