/* region_work.c - what a region costs Graphviz to lay out, and the labels
 * of its edges.  See region.h.
 *
 * Graphviz's dot puts nodes on ranks and turns an edge that spans k ranks
 * into a chain of k - 1 "virtual" nodes, which then go through crossing
 * minimisation, network simplex and spline routing like any other; on a
 * region with long edges (a parameter used all the way down a path, a
 * tuple of every layer's output) the virtual nodes outnumber the real ones
 * a hundred times and the layout takes minutes.  The estimate ranks the
 * region by its longest chains (the ranking dot starts from; its own one
 * is never longer in total) and counts the ranks each edge crosses.
 *
 * Measured with the release build on this machine's 2 cores (dot's time
 * only, mclimit/nslimit set as dot_build sets them past DOT_BIG_WORK):
 *   work  1,100 (real module, 60-node path):            0.02 s
 *   work  6,300 (unet3d, 1,300-node forced radius):      3 s
 *   work 21,100 (mobilenet_v2 path, 485 nodes, 692 edges: 19,959 virtual):
 *         28 s unbounded, 2.9 s with nslimit
 * so the default budget REGION_DEFAULT_WORK = 20,000 keeps a layout within
 * seconds; --force lifts it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "render/region.h"
#include "render/region_impl.h"

int64_t region_work_budget(const region_spec *s)
{
	return s->max_work > 0 ? s->max_work : REGION_DEFAULT_WORK;
}

/* The index of a region node or box reference among the ranked items. */
static int64_t item_of(const region *r, int64_t ref)
{
	return REGION_IS_BOX(ref) ? r->n_nodes + REGION_BOX_INDEX(ref) : region_index_of(r, ref);
}

typedef struct ranked {
	int64_t n, m;        /* items, directed edges */
	int64_t (*e)[2];     /* {from, to}: operand (callee) -> user (caller) */
	int64_t *rank, *indeg, *off, *adj, *queue;
} ranked;

static void ranked_free(ranked *k)
{
	free(k->e);
	free(k->rank);
	free(k->indeg);
	free(k->off);
	free(k->adj);
	free(k->queue);
}

/* Collects the region's edges between drawn items (edges, links, calls). */
static int collect(const region *r, ranked *k)
{
	const int64_t (*lists[3])[2] = {(const int64_t(*)[2])r->edges,
					(const int64_t(*)[2])r->links,
					(const int64_t(*)[2])r->calls};
	int64_t counts[3] = {r->n_edges, r->n_links, r->n_calls};

	k->n = r->n_nodes + r->n_boxes;
	k->m = r->n_edges + r->n_links + r->n_calls;
	k->e = malloc(((size_t)k->m + 1) * sizeof *k->e);
	k->rank = calloc((size_t)k->n + 1, sizeof *k->rank);
	k->indeg = calloc((size_t)k->n + 1, sizeof *k->indeg);
	k->off = calloc((size_t)k->n + 2, sizeof *k->off);
	k->adj = malloc(((size_t)k->m + 1) * sizeof *k->adj);
	k->queue = malloc(((size_t)k->n + 1) * sizeof *k->queue);
	if (!k->e || !k->rank || !k->indeg || !k->off || !k->adj || !k->queue)
		return -1;
	k->m = 0;
	for (int l = 0; l < 3; l++)
		for (int64_t i = 0; i < counts[l]; i++) {
			int64_t to = item_of(r, lists[l][i][0]), from = item_of(r, lists[l][i][1]);
			if (to < 0 || from < 0 || to == from)
				continue;
			k->e[k->m][0] = from;
			k->e[k->m][1] = to;
			k->m++;
		}
	return 0;
}

/* Longest-chain ranks (Kahn's order; items on a cycle keep what they had). */
static void rank_items(ranked *k)
{
	int64_t head = 0, tail = 0;

	for (int64_t i = 0; i < k->m; i++) {
		k->off[k->e[i][0] + 1]++;
		k->indeg[k->e[i][1]]++;
	}
	for (int64_t v = 0; v < k->n; v++)
		k->off[v + 1] += k->off[v];
	for (int64_t i = 0; i < k->m; i++)
		k->adj[k->off[k->e[i][0]]++] = k->e[i][1];
	for (int64_t v = k->n; v > 0; v--)
		k->off[v] = k->off[v - 1];
	k->off[0] = 0;
	for (int64_t v = 0; v < k->n; v++)
		if (k->indeg[v] == 0)
			k->queue[tail++] = v;
	while (head < tail) {
		int64_t v = k->queue[head++];
		for (int64_t j = k->off[v]; j < k->off[v + 1]; j++) {
			int64_t w = k->adj[j];
			if (k->rank[w] < k->rank[v] + 1)
				k->rank[w] = k->rank[v] + 1;
			if (--k->indeg[w] == 0)
				k->queue[tail++] = w;
		}
	}
}

int region_measure(region *r)
{
	ranked k = {0};
	region_work *w = &r->work;

	memset(w, 0, sizeof *w);
	if (collect(r, &k) < 0) {
		ranked_free(&k);
		return -1;
	}
	rank_items(&k);
	w->nodes = k.n + r->n_more + r->n_fanin;
	w->edges = k.m + r->n_more + r->n_fanin;
	for (int64_t v = 0; v < k.n; v++)
		if (k.rank[v] + 1 > w->ranks)
			w->ranks = k.rank[v] + 1;
	for (int64_t i = 0; i < k.m; i++) {
		int64_t span = k.rank[k.e[i][1]] - k.rank[k.e[i][0]];
		if (span > 1)
			w->crossed += span - 1;
	}
	w->total = w->nodes + w->edges + w->crossed;
	ranked_free(&k);
	return 0;
}

void region_thousands(int64_t v, char *buf, size_t cap)
{
	char d[32];
	int n = snprintf(d, sizeof d, "%" PRId64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
		if (i > 0 && d[i - 1] != '-' && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

int region_work_text(const region_work *w, char *buf, size_t cap)
{
	char n[32], e[32], k[32], c[32], t[32];

	region_thousands(w->nodes, n, sizeof n);
	region_thousands(w->edges, e, sizeof e);
	region_thousands(w->ranks, k, sizeof k);
	region_thousands(w->crossed, c, sizeof c);
	region_thousands(w->total, t, sizeof t);
	return snprintf(buf, cap, "%s node%s and %s edge%s on %s rank%s, whose edges cross %s "
			"rank%s more (layout work %s)", n, hs_s(w->nodes), e, hs_s(w->edges), k,
			hs_s(w->ranks), c, hs_s(w->crossed), t);
}

const char *region_edge_label(const region *r, int64_t k, char *buf, size_t cap)
{
	const hs_graph *g = r->g;
	int64_t user = r->edges[k][0], operand = r->edges[k][1];
	int64_t n = g->operands_exact ? graph_hlo_n_operands(g, user) : 0;
	const int64_t *ops = n ? graph_hlo_operands(g, user) : NULL;
	size_t o = 0;

	if (cap == 0)
		return buf;
	buf[0] = '\0';
	if (n < 2)
		return buf;
	for (int64_t i = 0; i < n; i++) {
		char num[24];
		if (ops[i] != operand)
			continue;
		int len = snprintf(num, sizeof num, "%s%" PRId64, o ? "," : "", i);
		if (o + (size_t)len + 5 > cap) { /* keeps room for ",…" */
			if (o + 5 <= cap)
				memcpy(buf + o, ",\xe2\x80\xa6", 5);
			return buf;
		}
		memcpy(buf + o, num, (size_t)len + 1);
		o += (size_t)len;
	}
	return buf;
}

const char *region_node_ref(const hs_graph *g, int64_t id, char *buf, size_t cap)
{
	char name[160];

	if (g->module)
		snprintf(buf, cap, "%s (node %" PRId64 ")", graph_node_name(g, id, name, sizeof name), id);
	else
		snprintf(buf, cap, "node %" PRId64, id);
	return buf;
}
