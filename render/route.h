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
 *     shortest path with few bends (A* over the cells) where it cannot.
 * Routes depend on the layout alone, not on the window drawn, so windows
 * and bands of rows join exactly.
 *
 * Ownership: route_layout() returns routes freed by route_free(); they do
 * not point into the layout.
 */
#ifndef HS_ROUTE_H
#define HS_ROUTE_H

#include <stdint.h>

#include "render/layout.h"

typedef struct lay_routes {
	int32_t n_edges;  /* as the layout's */
	int32_t *off;     /* [n_edges + 1]: edge e's points are pts[2*off[e] .. 2*off[e+1]) */
	int *pts;         /* x, y pairs in drawing cells: the path's first cell (below the operand),
	                   * every cell where it turns, its last cell (above the user); consecutive
	                   * points share a row or a column.  An edge with no points (a self-loop,
	                   * touching boxes) is not drawn. */
	int *bbox;        /* [4 * n_edges] x0, y0, x1, y1 of each edge's cells, inclusive */
} lay_routes;

/* Routes every edge of L; NULL when out of memory. */
lay_routes *route_layout(const hs_layout *L);
void route_free(lay_routes *R);

#endif
