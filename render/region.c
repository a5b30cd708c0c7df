/* region.c - region selection: radius, paths, computations, id sets,
 * configurable nodes.  See region.h. */
#include "render/region.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/hash.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "render/region_impl.h"

void region_spec_init(region_spec *s)
{
	memset(s, 0, sizeof *s);
	s->kind = REGION_AROUND;
	s->center = 0;
	s->radius = 1;
	s->dir = REGION_BOTH;
	s->user_threshold = REGION_DEFAULT_USER_THRESHOLD;
	s->operand_threshold = REGION_DEFAULT_OPERAND_THRESHOLD;
	s->from = -1;
	s->to = -1;
	s->comp = -1;
	s->hcomp = -1;
	s->limit = REGION_DEFAULT_LIMIT;
}

/* ---- the ways out of a refusal ---------------------------------------- */

const region_words *region_words_of(const region_spec *s)
{
	static const region_words none;
	return s->words ? s->words : &none;
}

void region_way(region_ways *w, const char *word, const char *tail, ...)
{
	va_list ap;

	if (!word || w->n >= REGION_MAX_WAYS)
		return;
	hs_strbuf b = hs_strbuf_fixed(w->item[w->n++], sizeof w->item[0]);
	hs_strbuf_puts(&b, word);
	va_start(ap, tail);
	hs_strbuf_vprintf(&b, tail, ap);
	va_end(ap);
}

void region_ways_text(const region_ways *w, const char *prefix, char *buf, size_t cap)
{
	hs_strbuf b = hs_strbuf_fixed(buf, cap);

	for (int i = 0; i < w->n; i++) {
		hs_strbuf_puts(&b, i == 0 ? prefix : i == w->n - 1 ? " or " : ", ");
		hs_strbuf_puts(&b, w->item[i]);
	}
}

const char *region_dir_name(region_dir d)
{
	switch (d) {
	case REGION_OPERANDS: return "operands";
	case REGION_USERS: return "users";
	case REGION_BOTH: return "both";
	}
	return "?";
}

int region_dir_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "operands"))
		return REGION_OPERANDS;
	if (!strcmp(s, "users"))
		return REGION_USERS;
	if (!strcmp(s, "both"))
		return REGION_BOTH;
	return -1;
}

void region_free(region *r)
{
	if (!r)
		return;
	free(r->nodes);
	free(r->edges);
	free(r->more);
	free(r->fanin);
	free(r->boxes);
	free(r->links);
	free(r->link_info);
	free(r->stubs);
	free(r->calls);
	if (r->own_groups) {
		region_groups_free(r->own_groups);
		free(r->own_groups);
	}
	free(r);
}

int64_t region_index_of(const region *r, int64_t id)
{
	int64_t lo = 0, hi = r->n_nodes;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (r->nodes[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n_nodes && r->nodes[lo] == id ? lo : -1;
}

int region_check_node(const hs_graph *g, int64_t id, const char *what, hs_error *err)
{
	if (id < 0 || id >= g->n_nodes)
		return hs_fail(err, HS_EUSAGE,
			       "%s node %" PRId64 " is out of range: %s has %" PRId64
			       " node%s (0..%" PRId64 ")",
			       what, id, g->name, g->n_nodes, hs_s(g->n_nodes), g->n_nodes - 1);
	return 0;
}

int64_t region_effective_limit(const region_spec *s)
{
	return s->force || s->limit <= 0 ? INT64_MAX : s->limit;
}

/* ---- building the region from a membership mask ----------------------- */

/* Sorts n pairs and, when `unique`, drops repeats; returns the count. */
static int64_t sort_pairs(int64_t (*p)[2], int64_t n, int unique)
{
	int64_t k = 0;

	qsort(p, (size_t)n, sizeof *p, hs_cmp_i64_pair);
	if (!unique)
		return n;
	for (int64_t i = 0; i < n; i++)
		if (k == 0 || hs_cmp_i64_pair(p[i], p[k - 1]) != 0) {
			p[k][0] = p[i][0];
			p[k][1] = p[i][1];
			k++;
		}
	return k;
}

/* The call edges among the marked nodes: {caller, callee's root}. */
static int64_t mask_calls(const hs_graph *g, const uint8_t *in, int64_t (*out)[2])
{
	int64_t n = 0;

	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!in[v])
			continue;
		for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++) {
			int64_t root = g->hcomps[g->called_idx[k]].root;
			if (in[root] && root != v) {
				if (out) {
					out[n][0] = v;
					out[n][1] = root;
				}
				n++;
			}
		}
	}
	return n;
}

region *region_from_mask(const hs_graph *g, const uint8_t *in, hs_error *err)
{
	region *r = calloc(1, sizeof *r);
	/* a bare .npz has its calls among its operands: no call links of their own */
	int64_t n = 0, ne = 0, nc = g->knows & HM_KNOWS_OPERAND_ORDER ? mask_calls(g, in, NULL) : 0;

	if (!r)
		goto oom;
	r->g = g;
	r->focus = r->focus2 = -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!in[v])
			continue;
		n++;
		for (int64_t k = 0; k < graph_hlo_n_operands(g, v); k++)
			ne += in[graph_hlo_operands(g, v)[k]] != 0;
	}
	r->nodes = malloc(((size_t)n + 1) * sizeof *r->nodes);
	r->edges = malloc(((size_t)ne + 1) * sizeof *r->edges);
	r->calls = malloc(((size_t)nc + 1) * sizeof *r->calls);
	if (!r->nodes || !r->edges || !r->calls)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!in[v])
			continue;
		r->nodes[r->n_nodes++] = v;
		for (int64_t k = 0; k < graph_hlo_n_operands(g, v); k++) {
			int64_t w = graph_hlo_operands(g, v)[k];
			if (in[w]) {
				r->edges[r->n_edges][0] = v;
				r->edges[r->n_edges][1] = w;
				r->n_edges++;
			}
		}
	}
	/* On a module a repeated operand is one edge (labelled "0,1"); a bare
	 * .npz keeps its edges as the file has them. */
	r->n_edges = sort_pairs(r->edges, r->n_edges, g->knows & HM_KNOWS_OPERAND_ORDER);
	if (nc)
		r->n_calls = sort_pairs(r->calls, mask_calls(g, in, r->calls), 1);
	return r;
oom:
	region_free(r);
	hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
	return NULL;
}

/* ---- the kinds (AROUND in region_around.c) ---------------------------- */

/* Distances from `start` along the steps towards operands (users = 0:
 * each node depends on the one before) or towards users; -1 when
 * unreachable. */
static void distances(const hs_graph *g, int64_t start, int users, int64_t *dist,
		      int64_t *queue)
{
	int64_t head = 0, tail = 0;

	for (int64_t i = 0; i < g->n_nodes; i++)
		dist[i] = -1;
	dist[start] = 0;
	queue[tail++] = start;
	while (head < tail) {
		int64_t v = queue[head++], n = region_n_steps(g, v, users);
		for (int64_t k = 0; k < n; k++) {
			int64_t w = region_step(g, v, users, k);
			if (dist[w] < 0) {
				dist[w] = dist[v] + 1;
				queue[tail++] = w;
			}
		}
	}
}

/* What select_path knows once the distances are in. */
typedef struct path_sel {
	const hs_graph *g;
	const int64_t *da, *dz; /* from the start along operands, from the end along users */
	int64_t start, end, dist;
} path_sel;

/* Marks the nodes on the paths of length <= shortest + slack; returns how
 * many. */
static int64_t mark_slack(const path_sel *p, int64_t slack, uint8_t *in)
{
	int64_t kept = 0;

	for (int64_t v = 0; v < p->g->n_nodes; v++) {
		in[v] = p->da[v] >= 0 && p->dz[v] >= 0 && p->da[v] + p->dz[v] - p->dist <= slack;
		kept += in[v];
	}
	return kept;
}

/* Marks one shortest path, taking the smallest id at every fork. */
static int64_t mark_one_path(const path_sel *p, uint8_t *in)
{
	const hs_graph *g = p->g;
	int64_t v = p->start, kept = 1;

	memset(in, 0, (size_t)g->n_nodes);
	in[v] = 1;
	while (v != p->end) {
		int64_t next = -1, n = region_n_steps(g, v, 0);
		for (int64_t k = 0; k < n; k++) {
			int64_t w = region_step(g, v, 0, k);
			if (p->da[w] == p->da[v] + 1 && p->dz[w] == p->dz[v] - 1 && (next < 0 || w < next))
				next = w;
		}
		if (next < 0)
			break; /* cannot happen: dz[v] > 0 has such an operand */
		v = next;
		in[v] = 1;
		kept++;
	}
	return kept;
}

/* The layout work of the marked nodes, or -1 when out of memory. */
static int64_t mask_work(const hs_graph *g, const uint8_t *in)
{
	region *r = region_from_mask(g, in, NULL);
	int64_t w = r && region_measure(r) == 0 ? r->work.total : -1;

	region_free(r);
	return w;
}

/* The largest slack <= hi whose paths fit the work budget (binary search:
 * more paths, more work), or -1 when not even the shortest ones do. */
static int64_t slack_in_budget(const path_sel *p, int64_t hi, int64_t budget, uint8_t *in)
{
	int64_t lo = -1;

	mark_slack(p, hi, in);
	int64_t w = mask_work(p->g, in);
	if (w >= 0 && w <= budget)
		return hi;
	while (lo < hi - 1) { /* lo fits (or is -1), hi does not */
		int64_t mid = lo + (hi - lo) / 2;
		mark_slack(p, mid, in);
		w = mask_work(p->g, in);
		if (w >= 0 && w <= budget)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Both orientations: start consumes ... consumes end.  0, or -1 with err
 * set when neither node depends on the other. */
static int path_ends(const hs_graph *g, const region_spec *s, path_sel *p, int64_t *da,
		     int64_t *dz, int64_t *queue, hs_error *err)
{
	p->g = g;
	p->da = da;
	p->dz = dz;
	p->start = s->from;
	p->end = s->to;
	distances(g, p->start, 0, da, queue);
	if (da[p->end] < 0) {
		p->start = s->to;
		p->end = s->from;
		distances(g, p->start, 0, da, queue);
		if (da[p->end] < 0) {
			char ra[200], rz[200];
			return hs_fail(err, HS_EUSAGE, "no path between %s and %s: neither depends on "
				       "the other", region_node_ref(g, s->from, ra, sizeof ra),
				       region_node_ref(g, s->to, rz, sizeof rz));
		}
	}
	distances(g, p->end, 1, dz, queue);
	p->dist = da[p->end];
	return 0;
}

/* Marks what the path region draws: the paths up to the largest slack
 * that fits the node cap and the work budget, else one shortest path.
 * Returns the nodes kept, or -1 with err set. */
static int64_t path_mask(const path_sel *p, const region_spec *s, int64_t *hist, uint8_t *in,
			 int64_t *on_path, hs_error *err)
{
	int64_t max_slack = 0, sum = 0, keep = -1;
	int64_t cap = s->max_nodes > 0 ? s->max_nodes : region_effective_limit(s);

	*on_path = 0;
	for (int64_t v = 0; v < p->g->n_nodes; v++) {
		if (p->da[v] < 0 || p->dz[v] < 0)
			continue;
		int64_t slack = p->da[v] + p->dz[v] - p->dist;
		hist[slack]++;
		(*on_path)++;
		if (slack > max_slack)
			max_slack = slack;
	}
	for (int64_t sl = 0; sl <= max_slack && sum + hist[sl] <= cap; sl++) {
		sum += hist[sl];
		keep = sl;
	}
	if (keep >= 0 && !s->force)
		keep = slack_in_budget(p, keep, region_work_budget(s), in);
	if (keep >= 0)
		return mark_slack(p, keep, in);
	if (p->dist + 1 > cap) {
		const region_words *x = region_words_of(s);
		region_ways w = {0};
		char ways[400];
		if (x->max_nodes && x->limit)
			region_way(&w, "raise ", "%s (or %s)", x->max_nodes, x->limit);
		else
			region_way(&w, x->max_nodes ? "raise " : NULL, "%s", x->max_nodes);
		region_way(&w, x->force ? "use " : NULL, "%s", x->force);
		region_ways_text(&w, "; ", ways, sizeof ways);
		return hs_fail(err, HS_EUSAGE,
			       "the shortest path between node %" PRId64 " and node %" PRId64
			       " has %" PRId64 " nodes, more than the cap of %" PRId64 "%s",
			       s->from, s->to, p->dist + 1, cap, ways);
	}
	return mark_one_path(p, in);
}

static region *select_path(const hs_graph *g, const region_spec *s, hs_error *err)
{
	int64_t n = g->n_nodes, a = s->from, z = s->to, kept, on_path;
	int64_t *da = NULL, *dz = NULL, *queue = NULL, *hist = NULL;
	uint8_t *in = NULL;
	region *r = NULL;
	path_sel p;

	if (region_check_node(g, a, "path start", err) || region_check_node(g, z, "path end", err))
		return NULL;
	if (s->max_nodes < 0) {
		hs_fail(err, HS_EUSAGE, "a path's node cap must be 1 or more, not %" PRId64,
			s->max_nodes);
		return NULL;
	}
	da = malloc((size_t)n * sizeof *da);
	dz = malloc((size_t)n * sizeof *dz);
	queue = malloc((size_t)n * sizeof *queue);
	hist = calloc((size_t)n + 1, sizeof *hist);
	in = calloc((size_t)n, 1);
	if (!da || !dz || !queue || !hist || !in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		goto out;
	}
	if (path_ends(g, s, &p, da, dz, queue, err) < 0 ||
	    (kept = path_mask(&p, s, hist, in, &on_path, err)) < 0)
		goto out;
	if (kept > region_effective_limit(s)) {
		const region_words *x = region_words_of(s);
		region_ways w = {0};
		char ways[400];
		region_way(&w, x->max_nodes, " %" PRId64, s->limit);
		region_way(&w, x->limit, " %" PRId64, kept);
		region_way(&w, x->force, "%s", "");
		region_ways_text(&w, "; use ", ways, sizeof ways);
		hs_fail(err, HS_EUSAGE,
			"the paths between node %" PRId64 " and node %" PRId64 " have %"
			PRId64 " nodes, more than the limit of %" PRId64 "%s",
			a, z, kept, s->limit, ways);
		goto out;
	}
	r = region_from_mask(g, in, err);
	if (!r)
		goto out;
	r->kind = REGION_PATH;
	r->focus = a;
	r->focus2 = z;
	r->truncated = kept < on_path;
	r->omitted = on_path - kept;
	int64_t cap = s->max_nodes > 0 ? s->max_nodes : region_effective_limit(s);
	snprintf(r->key, sizeof r->key, "path:%" PRId64 ":%" PRId64 ":m%" PRId64 ":w%" PRId64,
		 a, z, cap == INT64_MAX ? 0 : cap, s->force ? 0 : region_work_budget(s));
	char ra[200], rz[200];
	region_node_ref(g, a, ra, sizeof ra);
	region_node_ref(g, z, rz, sizeof rz);
	if (r->truncated)
		snprintf(r->title, sizeof r->title,
			 "%s: paths from %s to %s (%" PRId64 " of %" PRId64
			 " nodes; longer paths left out)", g->name, ra, rz, kept, on_path);
	else
		snprintf(r->title, sizeof r->title, "%s: every path from %s to %s", g->name, ra, rz);
out:
	free(da);
	free(dz);
	free(queue);
	free(hist);
	free(in);
	return r;
}

/* A real computation: its nodes, and those of the computations it calls;
 * a callee drawn in full (expanded) brings its own callees, a collapsed one
 * does not (region_collapse makes it one box).  `drawn` counts what the
 * picture will hold: nodes drawn in full plus one per box. */
static uint8_t *hcomp_mask(const hs_graph *g, const region_spec *s, int64_t *drawn)
{
	size_t nc = (size_t)g->n_hcomps;
	uint8_t *in = calloc((size_t)g->n_nodes, 1), *seen = calloc(nc, 1);
	int64_t *todo = malloc(nc * sizeof *todo), n = 0;

	*drawn = 0;
	if (!in || !seen || !todo) {
		free(in);
		in = NULL;
		goto done;
	}
	seen[s->hcomp] = 1;
	todo[n++] = s->hcomp;
	while (n > 0) {
		int64_t c = todo[--n];
		const hs_hcomp *h = &g->hcomps[c];
		int full = c == s->hcomp || region_expands(g, s->expand, c);
		memset(in + h->first, 1, (size_t)h->count);
		*drawn += full ? h->count : 1;
		if (!full)
			continue;
		for (int64_t v = h->first; v < h->first + h->count; v++)
			for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++) {
				int32_t d = g->called_idx[k];
				if (!seen[d]) {
					seen[d] = 1;
					todo[n++] = d;
				}
			}
	}
done:
	free(seen);
	free(todo);
	return in;
}

/* The ways out of a computation or split over the limit: "; draw part of
 * it with AROUND RADIUS K, or use LIMIT N or FORCE", in the front end's
 * words. */
static void limit_ways(const region_spec *s, int64_t n, char *buf, size_t cap)
{
	const region_words *x = region_words_of(s);
	region_ways w = {0};
	char list[400];

	region_way(&w, x->limit, " %" PRId64, n);
	region_way(&w, x->force, "%s", "");
	hs_strbuf b = hs_strbuf_fixed(buf, cap);
	if (x->around && x->radius) {
		hs_strbuf_printf(&b, "; draw part of it with %s %s K", x->around, x->radius);
		region_ways_text(&w, ", or use ", list, sizeof list);
	} else {
		region_ways_text(&w, "; use ", list, sizeof list);
	}
	hs_strbuf_puts(&b, list);
}

static region *select_hcomp(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err)
{
	int64_t drawn;

	if (!g->hcomps || s->hcomp < 0 || s->hcomp >= g->n_hcomps) {
		hs_fail(err, HS_EUSAGE, "unknown computation %" PRId64 ": %s has %" PRId64
			" HLO computation%s", s->hcomp, g->name, g->n_hcomps, hs_s(g->n_hcomps));
		return NULL;
	}
	const hs_hcomp *h = &g->hcomps[s->hcomp];
	const char *name = graph_hcomp_name(g, s->hcomp);
	uint8_t *in = hcomp_mask(g, s, &drawn);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	if (drawn > region_effective_limit(s)) {
		char ways[600];
		limit_ways(s, drawn, ways, sizeof ways);
		hs_fail(err, HS_EUSAGE,
			"computation %s draws %" PRId64 " nodes and boxes, more than the limit of %"
			PRId64 "%s", name, drawn, s->limit, ways);
		free(in);
		*over = drawn;
		return NULL;
	}
	region *r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_COMPUTATION;
	snprintf(r->key, sizeof r->key, "hcomp:%" PRId64, s->hcomp);
	snprintf(r->title, sizeof r->title, "%s: %s (%s computation, nodes %" PRId64
		 "..%" PRId64 ")", g->name, name, graph_role_name(h->role), h->first,
		 h->first + h->count - 1);
	return r;
}

static region *select_computation(const hs_graph *g, const region_spec *s, int64_t *over,
				  hs_error *err)
{
	uint8_t *in;
	region *r;

	if (s->hcomp >= 0)
		return select_hcomp(g, s, over, err);
	if (s->comp < 0 || s->comp >= g->n_comps) {
		hs_fail(err, HS_EUSAGE,
			"unknown split %" PRId64 ": %s has %" PRId64
			" node_splits segment%s (0..%" PRId64 ")",
			s->comp, g->name, g->n_comps, hs_s(g->n_comps),
			g->n_comps - 1);
		return NULL;
	}
	int64_t lo = g->comp_start[s->comp], hi = g->comp_start[s->comp + 1];
	if (hi - lo > region_effective_limit(s)) {
		char ways[600];
		limit_ways(s, hi - lo, ways, sizeof ways);
		hs_fail(err, HS_EUSAGE,
			"split %" PRId64 " has %" PRId64 " nodes, more than the limit of %"
			PRId64 "%s", s->comp, hi - lo, s->limit, ways);
		*over = hi - lo;
		return NULL;
	}
	in = calloc((size_t)g->n_nodes, 1);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	memset(in + lo, 1, (size_t)(hi - lo));
	r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_COMPUTATION;
	snprintf(r->key, sizeof r->key, "comp:%" PRId64, s->comp);
	snprintf(r->title, sizeof r->title, "%s: split %" PRId64 " (nodes %" PRId64
		 "..%" PRId64 ")", g->name, s->comp, lo, hi - 1);
	return r;
}

static region *select_nodes(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err)
{
	uint8_t *in;
	region *r;
	int64_t count = 0;
	uint64_t h = HS_FNV_BASIS;

	if (s->n_ids == 0 || !s->ids) {
		hs_fail(err, HS_EUSAGE, "no nodes to draw: the set is empty");
		return NULL;
	}
	for (size_t i = 0; i < s->n_ids; i++)
		if (region_check_node(g, s->ids[i], "selected", err))
			return NULL;
	in = calloc((size_t)g->n_nodes, 1);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	for (size_t i = 0; i < s->n_ids; i++) {
		count += !in[s->ids[i]];
		in[s->ids[i]] = 1;
	}
	if (count > region_effective_limit(s)) {
		free(in);
		const region_words *x = region_words_of(s);
		region_ways w = {0};
		char ways[400];
		region_way(&w, x->limit, " %" PRId64, count);
		region_way(&w, x->force, "%s", "");
		region_ways_text(&w, ", or use ", ways, sizeof ways);
		hs_fail(err, HS_EUSAGE,
			"the %" PRId64 " selected nodes are more than the limit of %" PRId64
			"; narrow the selection%s", count, s->limit, ways);
		*over = count;
		return NULL;
	}
	r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_NODES;
	if (r->n_nodes == 1)
		r->focus = r->nodes[0];
	h = hs_fnv1a_bytes(r->nodes, (size_t)r->n_nodes * sizeof *r->nodes, h);
	snprintf(r->key, sizeof r->key, "nodes:%" PRId64 ":%016" PRIx64, r->n_nodes, h);
	snprintf(r->title, sizeof r->title, "%s: %" PRId64 " selected node%s", g->name,
		 r->n_nodes, hs_s(r->n_nodes));
	return r;
}

static region *select_configurable(const hs_graph *g, const region_spec *s, int64_t *over,
				   hs_error *err)
{
	uint8_t *in;
	region *r;
	int64_t count = 0;

	if (g->kind == HS_KIND_TILE) {
		hs_fail(err, HS_EUSAGE,
			"%s is a tile graph: only layout graphs have configurable nodes",
			g->name);
		return NULL;
	}
	if (g->n_cfg_nodes == 0) {
		hs_fail(err, HS_EUSAGE, "%s has no configurable nodes", g->name);
		return NULL;
	}
	in = calloc((size_t)g->n_nodes, 1);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	for (int64_t k = 0; k < g->n_cfg_nodes; k++) {
		int64_t v = g->cfg_node_ids[k];
		if (v < 0 || v >= g->n_nodes)
			continue; /* the loader validates; be safe anyway */
		in[v] = 1;
		for (int64_t j = 0; j < graph_hlo_n_operands(g, v); j++)
			in[graph_hlo_operands(g, v)[j]] = 1;
		for (int64_t j = 0; j < graph_hlo_n_users(g, v); j++)
			in[graph_hlo_users(g, v)[j]] = 1;
	}
	if (s->expand)
		region_expand_named(g, s->expand, in);
	for (int64_t v = 0; v < g->n_nodes; v++)
		count += in[v];
	if (count > region_effective_limit(s)) {
		free(in);
		const region_words *x = region_words_of(s);
		region_ways w = {0};
		char ways[400];
		region_way(&w, x->limit, " %" PRId64, count);
		region_way(&w, x->force, "%s", "");
		region_ways_text(&w, "; use ", ways, sizeof ways);
		hs_fail(err, HS_EUSAGE,
			"the %" PRId64 " configurable nodes and their neighbours make %" PRId64
			" nodes, more than the limit of %" PRId64 "%s", g->n_cfg_nodes, count,
			s->limit, ways);
		*over = count;
		return NULL;
	}
	r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_CONFIGURABLE;
	snprintf(r->key, sizeof r->key, "configurable");
	snprintf(r->title, sizeof r->title,
		 "%s: %" PRId64 " configurable node%s and %s neighbours", g->name,
		 g->n_cfg_nodes, hs_s(g->n_cfg_nodes), hs_plural(g->n_cfg_nodes, "its", "their"));
	return r;
}

/* How to draw less of a region whose layout is over the work budget:
 * " (A, B) or use FORCE", in the front end's words. */
static void less_ways(const region *r, const region_spec *s, char *buf, size_t cap)
{
	const region_words *x = region_words_of(s);
	region_ways w = {0};
	char list[500];

	if (r->kind == REGION_AROUND) {
		region_way(&w, x->radius ? "a smaller " : NULL, "%s", x->radius);
		region_way(&w, x->direction, "%s", "");
		region_way(&w, x->max_users, "%s", "");
		region_way(&w, x->max_operands, "%s", "");
	} else if (r->kind == REGION_PATH) {
		region_way(&w, x->max_nodes, "%s", "");
	} else if (x->around && x->radius) {
		region_way(&w, x->around, " %s K", x->radius);
	}
	if (r->kind != REGION_PATH && !r->groups)
		region_way(&w, x->collapse, "%s", "");
	/* the alternatives in parentheses are joined by commas only */
	hs_strbuf b = hs_strbuf_fixed(buf, cap);
	for (int i = 0; i < w.n; i++)
		hs_strbuf_printf(&b, "%s%s", i ? ", " : " (", w.item[i]);
	if (w.n)
		hs_strbuf_putc(&b, ')');
	region_ways f = {0};
	region_way(&f, x->force ? "use " : NULL, "%s", x->force);
	region_ways_text(&f, " or ", list, sizeof list);
	hs_strbuf_puts(&b, list);
}

/* A namespace of op_name: the nodes the caller listed (those at or under
 * it), grouped by the caller's groups when collapsed (region_collapse). */
static region *select_layer(const hs_graph *g, const region_spec *s, hs_error *err)
{
	if (!s->layer || s->n_ids == 0 || !s->ids) {
		hs_fail(err, HS_EUSAGE, "the layer %s has no nodes to draw", s->layer ? s->layer : "(none)");
		return NULL;
	}
	uint8_t *in = calloc((size_t)g->n_nodes, 1);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	for (size_t i = 0; i < s->n_ids; i++)
		if (s->ids[i] >= 0 && s->ids[i] < g->n_nodes)
			in[s->ids[i]] = 1;
	region *r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_LAYER;
	char n[32];
	hs_num_thousands(n, sizeof n, r->n_nodes);
	snprintf(r->key, sizeof r->key, "layer:%016" PRIx64, hs_fnv1a(s->layer, HS_FNV_BASIS));
	snprintf(r->title, sizeof r->title, "%s: layer %s (%s node%s)", g->name, s->layer, n,
		 hs_s(r->n_nodes));
	return r;
}

region *region_select_kind(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err)
{
	int64_t ignored = 0;

	if (!over)
		over = &ignored;
	*over = 0;
	switch (s->kind) {
	case REGION_AROUND: return region_select_around(g, s, over, err);
	case REGION_PATH: return select_path(g, s, err);
	case REGION_COMPUTATION: return select_computation(g, s, over, err);
	case REGION_NODES: return select_nodes(g, s, over, err);
	case REGION_CONFIGURABLE: return select_configurable(g, s, over, err);
	case REGION_LAYER: return select_layer(g, s, err);
	}
	hs_fail(err, HS_EUSAGE, "unknown region kind %d", (int)s->kind);
	return NULL;
}

void region_note_add(region *r, const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(r->note);
	hs_strbuf b = hs_strbuf_fixed(r->note + n, sizeof r->note - n);

	if (n)
		hs_strbuf_puts(&b, "; ");
	va_start(ap, fmt);
	hs_strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
}

/* The boxes a collapsed region draws. */
static int64_t drawn(const region *r)
{
	return r->n_nodes + r->n_boxes;
}

/* A layer region over its limit, refused: its size and the ways out. */
static void layer_over(const region *r, const region_spec *s, hs_error *err)
{
	const region_words *x = region_words_of(s);
	region_ways w = {0};
	char ways[400];

	region_way(&w, x->limit, " %" PRId64, drawn(r));
	region_way(&w, x->collapse, "%s", "");
	region_way(&w, x->force, "%s", "");
	region_ways_text(&w, "; use ", ways, sizeof ways);
	hs_fail(err, HS_EUSAGE, "%s draws %" PRId64 " nodes and boxes, more than the limit of %" PRId64
		"%s", r->title, drawn(r), s->limit, ways);
}

/* The region as asked for, collapsed; NULL with *over set when it is over
 * the limit and may be grouped instead. */
static region *select_plain(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err)
{
	region *r = region_select_kind(g, s, over, err);

	if (!r)
		return NULL;
	r->groups = s->groups;
	if (region_collapse(r, s, err) < 0) {
		region_free(r);
		return NULL;
	}
	if (r->kind == REGION_LAYER && drawn(r) > region_effective_limit(s)) {
		*over = drawn(r);
		layer_over(r, s, err);
		region_free(r);
		return NULL;
	}
	return r;
}

/* Over the work budget: the longest edges cut into stubs, or refused with
 * the region's size and what to do. */
static region *within_budget(region *r, const region_spec *s, hs_error *err)
{
	int64_t budget = region_work_budget(s);
	char what[240], before[240], n[32], how[600];

	if (s->force || r->work.total <= budget)
		return r;
	region_work_text(&r->work, before, sizeof before);
	int cut = s->cut_long_edges ? region_cut_long_edges(r, budget) : 1;
	if (cut < 0) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", r->g->name);
		region_free(r);
		return NULL;
	}
	if (cut == 0)
		return r;
	region_work_text(&r->work, what, sizeof what);
	hs_num_thousands(n, sizeof n, budget);
	less_ways(r, s, how, sizeof how);
	if (r->n_stubs)
		hs_fail(err, HS_EUSAGE, "%s: %s; with its %" PRId64 " longest edges cut it is still %s; "
			"Graphviz would take long to lay that out (the budget is %s): draw less of it%s",
			r->title, before, r->n_stubs, what, n, how);
	else
		hs_fail(err, HS_EUSAGE, "%s: %s; Graphviz would take long to lay that out (the budget "
			"is %s): draw less of it%s", r->title, before, n, how);
	region_free(r);
	return NULL;
}

region *region_select(const hs_graph *g, const region_spec *s, hs_error *err)
{
	if (!g || !s) {
		hs_fail(err, HS_EUSAGE, "region_select: no graph or no spec");
		return NULL;
	}
	if (g->n_nodes <= 0) {
		hs_fail(err, HS_EUSAGE, "%s has no nodes to draw", g->name);
		return NULL;
	}
	int64_t over = 0;
	region *r = NULL;
	int asked = s->collapse == REGION_COLLAPSE_LAYER || s->collapse == REGION_COLLAPSE_COMPUTATION;
	int groupable = s->kind != REGION_PATH && !s->force;

	if (asked && s->kind != REGION_PATH) {
		r = region_select_grouped(g, s, 0, NULL, err);
	} else {
		r = select_plain(g, s, &over, err);
		if (!r && over > 0 && groupable && s->collapse == REGION_COLLAPSE_AUTO) {
			char why[sizeof err->msg];
			snprintf(why, sizeof why, "%s", err->msg);
			hs_error_clear(err);
			r = region_select_grouped(g, s, over, why, err);
		}
	}
	if (r && region_measure(r) < 0) {
		region_free(r);
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	return r ? within_budget(r, s, err) : NULL;
}
