/* region_work.c - what a region costs Graphviz to lay out, the longest
 * edges cut into stubs when that is too much, and the labels of its
 * edges.  See region.h.
 *
 * Graphviz's dot puts nodes on ranks and turns an edge that spans k ranks
 * into a chain of k - 1 "virtual" nodes, which then go through crossing
 * minimisation, network simplex and spline routing like any other; on a
 * region with long edges (a parameter used all the way down a path, a
 * tuple of every layer's output, the reducer every all-reduce of a
 * transformer calls) the virtual nodes outnumber the real ones a hundred
 * times and the layout takes minutes.  The estimate ranks the region by
 * its longest chains, then moves each source (a node whose edges all go
 * down) to just above its highest user, as dot's network simplex does: a
 * ranking dot's own never exceeds in total length; and counts the ranks
 * each edge crosses.
 *
 * Measured with the release build on this machine's 2 cores (dot's time
 * only, mclimit/nslimit set as dot_build sets them past DOT_BIG_WORK):
 *   work  1,100 (real module, 60-node path):            0.02 s
 *   work  6,300 (unet3d, 1,300-node forced radius):      3 s
 *   work 21,100 (mobilenet_v2 path, 485 nodes, 692 edges: 19,959 virtual):
 *         28 s unbounded, 2.9 s with nslimit
 *   the entry of llama2 (3,300 nodes and 4,216 edges, 903 of them long),
 *   its longest edges cut to fit each budget, SVG:
 *         work 9,000: 2.9 s; 12,000: 3.5 s; 15,000: 4.6 s; 20,000: 8.1 s
 * so the default budget REGION_DEFAULT_WORK = 12,000 keeps a layout within
 * seconds, and a PNG (a layout and gd's drawing) or a terminal drawing of
 * 2,500 boxes within 10 s; --force lifts it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
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
	int64_t n, m;        /* items (nodes, boxes, stubs), directed edges */
	int64_t (*e)[2];     /* {from, to}: operand (callee) -> user (caller) */
	int64_t (*src)[2];   /* [m] {list, index}: where edge i comes from
	                      * (0 edges, 1 links, 2 calls, 3 stubs) */
	int64_t *rank, *indeg, *off, *adj, *queue;
} ranked;

static void ranked_free(ranked *k)
{
	free(k->e);
	free(k->src);
	free(k->rank);
	free(k->indeg);
	free(k->off);
	free(k->adj);
	free(k->queue);
}

/* Collects the region's edges between drawn items (edges, links, calls;
 * a stub is an item of its own with one edge to its user). */
static int collect(const region *r, ranked *k)
{
	const int64_t (*lists[3])[2] = {(const int64_t(*)[2])r->edges,
					(const int64_t(*)[2])r->links,
					(const int64_t(*)[2])r->calls};
	int64_t counts[3] = {r->n_edges, r->n_links, r->n_calls};
	int64_t base = r->n_nodes + r->n_boxes;

	k->n = base + r->n_stubs;
	k->m = r->n_edges + r->n_links + r->n_calls + r->n_stubs;
	k->e = malloc(((size_t)k->m + 1) * sizeof *k->e);
	k->src = malloc(((size_t)k->m + 1) * sizeof *k->src);
	k->rank = calloc((size_t)k->n + 1, sizeof *k->rank);
	k->indeg = calloc((size_t)k->n + 1, sizeof *k->indeg);
	k->off = calloc((size_t)k->n + 2, sizeof *k->off);
	k->adj = malloc(((size_t)k->m + 1) * sizeof *k->adj);
	k->queue = malloc(((size_t)k->n + 1) * sizeof *k->queue);
	if (!k->e || !k->src || !k->rank || !k->indeg || !k->off || !k->adj || !k->queue)
		return -1;
	k->m = 0;
	for (int l = 0; l < 3; l++)
		for (int64_t i = 0; i < counts[l]; i++) {
			int64_t to = item_of(r, lists[l][i][0]), from = item_of(r, lists[l][i][1]);
			if (to < 0 || from < 0 || to == from)
				continue;
			k->e[k->m][0] = from;
			k->e[k->m][1] = to;
			k->src[k->m][0] = l;
			k->src[k->m][1] = i;
			k->m++;
		}
	for (int64_t i = 0; i < r->n_stubs; i++) {
		int64_t to = item_of(r, r->stubs[i].user);
		if (to < 0)
			continue;
		k->e[k->m][0] = base + i;
		k->e[k->m][1] = to;
		k->src[k->m][0] = 3;
		k->src[k->m][1] = i;
		k->m++;
	}
	return 0;
}

/* Longest-chain ranks (Kahn's order; items on a cycle keep what they had),
 * then each source moved down to just above its highest user, as Graphviz's
 * network simplex places a node whose only edges go down (a parameter, a
 * reducer's box): the ranks Graphviz's own never exceed in total length. */
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
	int64_t sources = tail;
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
	for (int64_t i = 0; i < sources; i++) {
		int64_t v = k->queue[i], low = -1;
		for (int64_t j = k->off[v]; j < k->off[v + 1]; j++)
			if (low < 0 || k->rank[k->adj[j]] < low)
				low = k->rank[k->adj[j]];
		if (low > 0)
			k->rank[v] = low - 1;
	}
}

/* The work of the ranked items into r->work. */
static void tally(region *r, const ranked *k)
{
	region_work *w = &r->work;

	memset(w, 0, sizeof *w);
	w->nodes = k->n + r->n_more + r->n_fanin;
	w->edges = k->m + r->n_more + r->n_fanin;
	int64_t lo = INT64_MAX, hi = -1;
	for (int64_t v = 0; v < k->n; v++) {
		lo = k->rank[v] < lo ? k->rank[v] : lo;
		hi = k->rank[v] > hi ? k->rank[v] : hi;
	}
	w->ranks = hi >= 0 ? hi - lo + 1 : 0;
	for (int64_t i = 0; i < k->m; i++) {
		int64_t span = k->rank[k->e[i][1]] - k->rank[k->e[i][0]];
		if (span > 1)
			w->crossed += span - 1;
	}
	w->total = w->nodes + w->edges + w->crossed;
}

int region_measure(region *r)
{
	ranked k = {0};

	if (collect(r, &k) < 0) {
		ranked_free(&k);
		return -1;
	}
	rank_items(&k);
	tally(r, &k);
	ranked_free(&k);
	return 0;
}

/* ---- long edges cut into stubs -------------------------------------------- */

/* An edge shorter than this is never cut: a stub saves it nothing much. */
#define STUB_MIN_SPAN 4

typedef struct cut {
	int64_t span, list, index;
} cut;

static int cmp_cut(const void *a, const void *b)
{
	const cut *x = a, *y = b;
	if (x->span != y->span)
		return x->span > y->span ? -1 : 1;
	if (x->list != y->list)
		return x->list < y->list ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The longest edges whose cutting brings the work within budget, marked
 * in drop[list][index]; how many (0 when no edge is long enough). */
static int64_t choose_cuts(const region *r, const ranked *k, int64_t budget, uint8_t *drop[3])
{
	cut *c = malloc(((size_t)k->m + 1) * sizeof *c);
	int64_t n = 0, total = r->work.total, chosen = 0;

	if (!c)
		return -1;
	for (int64_t i = 0; i < k->m; i++) {
		int64_t span = k->rank[k->e[i][1]] - k->rank[k->e[i][0]];
		if (k->src[i][0] < 3 && span >= STUB_MIN_SPAN)
			c[n++] = (cut){span, k->src[i][0], k->src[i][1]};
	}
	qsort(c, (size_t)n, sizeof *c, cmp_cut);
	/* a stub: one node more, and the ranks the edge crossed fewer */
	for (int64_t i = 0; i < n && total > budget; i++) {
		drop[c[i].list][c[i].index] = 1;
		total -= c[i].span - 2;
		chosen++;
	}
	free(c);
	(void)r;
	return chosen;
}

/* Edge k of list l as a stub. */
static region_stub stub_of(const region *r, int l, int64_t k)
{
	region_stub st = {0};

	if (l == 0) {
		st.user = r->edges[k][0];
		st.operand = st.value = r->edges[k][1];
		region_edge_label(r, k, st.label, sizeof st.label);
	} else if (l == 1) {
		st.user = r->links[k][0];
		st.operand = r->links[k][1];
		st.value = r->link_info[k].value;
		st.call = r->link_info[k].call;
	} else {
		st.user = r->calls[k][0];
		st.operand = st.value = r->calls[k][1];
		st.call = 1;
	}
	return st;
}

/* Moves the marked edges of the three lists to r->stubs.  -1: out of memory. */
static int make_stubs(region *r, uint8_t *drop[3], int64_t n)
{
	region_stub *st = realloc(r->stubs, ((size_t)(r->n_stubs + n) + 1) * sizeof *st);
	int64_t (*lists[3])[2] = {r->edges, r->links, r->calls};
	int64_t *counts[3] = {&r->n_edges, &r->n_links, &r->n_calls};

	if (!st)
		return -1;
	r->stubs = st;
	for (int l = 0; l < 3; l++) {
		int64_t kept = 0;
		for (int64_t i = 0; i < *counts[l]; i++) {
			if (drop[l][i]) {
				r->stubs[r->n_stubs++] = stub_of(r, l, i);
				continue;
			}
			lists[l][kept][0] = lists[l][i][0];
			lists[l][kept][1] = lists[l][i][1];
			if (l == 1)
				r->link_info[kept] = r->link_info[i];
			kept++;
		}
		*counts[l] = kept;
	}
	return 0;
}

int region_cut_long_edges(region *r, int64_t budget)
{
	int64_t before = r->n_stubs;

	/* Cutting edges moves ranks (an edge that held its user down is gone),
	 * so measure again and cut again, a few times at most. */
	for (int round = 0; round < 4 && r->work.total > budget; round++) {
		ranked k = {0};
		uint8_t *drop[3] = {calloc((size_t)r->n_edges + 1, 1), calloc((size_t)r->n_links + 1, 1),
				    calloc((size_t)r->n_calls + 1, 1)};
		int rc = drop[0] && drop[1] && drop[2] ? collect(r, &k) : -1;
		int64_t n = 0;
		if (rc == 0) {
			rank_items(&k);
			n = choose_cuts(r, &k, budget, drop);
			rc = n < 0 ? -1 : n > 0 ? make_stubs(r, drop, n) : 0;
		}
		ranked_free(&k);
		free(drop[0]);
		free(drop[1]);
		free(drop[2]);
		if (rc < 0 || (n > 0 && region_measure(r) < 0))
			return -1;
		if (n == 0)
			break;
	}
	if (r->n_stubs > before) {
		char n[32];
		hs_num_thousands(n, sizeof n, r->n_stubs);
		region_note_add(r, "%s long edge%s cut: each drawn as a stub beside its user, naming the "
				"operand", n, hs_s(r->n_stubs));
	}
	return r->work.total > budget;
}

int region_work_text(const region_work *w, char *buf, size_t cap)
{
	char n[32], e[32], k[32], c[32], t[32];

	hs_num_thousands(n, sizeof n, w->nodes);
	hs_num_thousands(e, sizeof e, w->edges);
	hs_num_thousands(k, sizeof k, w->ranks);
	hs_num_thousands(c, sizeof c, w->crossed);
	hs_num_thousands(t, sizeof t, w->total);
	return snprintf(buf, cap, "%s node%s and %s edge%s on %s rank%s, whose edges cross %s "
			"rank%s more (layout work %s)", n, hs_s(w->nodes), e, hs_s(w->edges), k,
			hs_s(w->ranks), c, hs_s(w->crossed), t);
}

const char *region_edge_label(const region *r, int64_t k, char *buf, size_t cap)
{
	const hs_graph *g = r->g;
	int64_t user = r->edges[k][0], operand = r->edges[k][1];
	int64_t n = g->knows & HM_KNOWS_OPERAND_ORDER ? graph_hlo_n_operands(g, user) : 0;
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

	if (g->knows & HM_KNOWS_NAMES)   /* a derived name says no more than the id */
		snprintf(buf, cap, "%s (node %" PRId64 ")", graph_node_name(g, id), id);
	else
		snprintf(buf, cap, "node %" PRId64, id);
	return buf;
}
