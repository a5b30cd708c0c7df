/* fuzz_util.h - what the fuzz targets share (included by fuzz_*.c; each
 * target is one translation unit, so everything here is static).
 *
 * fuzz_input_path: the input's bytes in a memfd (one per process, rewritten
 * for each input) opened through /proc/self/fd/N, so that the path-based
 * readers see a real file without touching the disk; NULL when that fails.
 *
 * fuzz_walk_graph: reads every per-node and per-computation text of a
 * graph and its analytic cost, so that each reads what it points at, and
 * aborts on a broken promise (a computation's root outside it, a node name
 * that is not found again).
 */
#ifndef HS_FUZZ_UTIL_H
#define HS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/graph.h"
#include "model/cost.h"

__attribute__((unused)) static const char *fuzz_input_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz_input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0)
		return NULL;
	size_t done = 0;
	while (done < size) {
		ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
		if (w <= 0)
			return NULL;
		done += (size_t)w;
	}
	return path;
}

__attribute__((unused)) static void fuzz_walk_graph(const hs_graph *g)
{
	char buf[96];
	volatile size_t sink = 0;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		for (int f = 0; f < HS_NHFIELDS; f++)
			sink += strlen(graph_node_text(g, v, (hs_hfield)f, buf, sizeof buf));
		sink += (size_t)graph_n_called(g, v);
	}
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		const hs_hcomp *hc = &g->hcomps[c];
		sink += strlen(graph_hcomp_name(g, c)) + strlen(graph_role_name(hc->role));
		for (int64_t k = 0; k < hc->n_callers; k++)
			sink += (size_t)g->hcomp_callers[hc->callers_at + k];
		if (hc->root < hc->first || hc->root >= hc->first + hc->count)
			abort(); /* a computation's root lies inside it */
	}
	if (g->n_nodes && graph_find_node(g, graph_node_name(g, g->n_nodes - 1)) < 0)
		abort(); /* every name is found again */
	sink += (size_t)graph_n_fusions(g) + strlen(graph_module_name(g));
	cost_estimate *est = malloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof *est);
	if (est) {
		cost_analytic(g, est);
		cost_estimate t = cost_total(est, g->n_nodes);
		sink += t.seconds != t.seconds; /* a NaN total is a bug too */
		free(est);
	}
	(void)sink;
}

#endif
