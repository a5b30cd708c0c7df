/* dotcli.h - the parts of `hloscope dot` beside its options: the terminal
 * drawing printed (in strips when wider than the terminal), --data laid
 * over the graph, and the heat of --heat.
 */
#ifndef HS_DOTCLI_H
#define HS_DOTCLI_H

#include "query/draw_groups.h"
#include "render/render.h"

/* Where the time went (--time). */
typedef struct dcli_timing {
	double start, open, region, export, layout, graphviz, draw;
	const region *r;
} dcli_timing;

/* --text: the region's header line (its sizes, what was done to fit it,
 * the heat scale) and the drawing on stdout.  0, or the exit status after
 * a message. */
int dcli_print_text(const region *r, const dot_opts *o, dcli_timing *tm);
void dcli_print_timing(const dcli_timing *t, double end);

/* --heat WHAT: a feature's index, or a number of nodes in the query
 * language (a field: a feature, cost, a --data column; or an expression
 * of them), on every node ([n_nodes] malloc'd) with its legend title in
 * name.  NULL after a message, *status the exit status. */
double *dcli_heat(query_draw *d, const hs_graph *g, const char *what, char *name, size_t cap,
		  int *status);

#endif
