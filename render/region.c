/* region.c - region selection: radius, paths, computations, id sets,
 * configurable nodes.  See region.h. */
#include "render/region.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/plural.h"

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

const char *region_kind_name(region_kind k)
{
	switch (k) {
	case REGION_AROUND: return "around";
	case REGION_PATH: return "path";
	case REGION_COMPUTATION: return "computation";
	case REGION_NODES: return "nodes";
	case REGION_CONFIGURABLE: return "configurable";
	}
	return "?";
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

static int check_node(const hs_graph *g, int64_t id, const char *what,
		      hs_error *err)
{
	if (id < 0 || id >= g->n_nodes)
		return hs_fail(err, HS_EUSAGE,
			       "%s node %" PRId64 " is out of range: %s has %" PRId64
			       " node%s (0..%" PRId64 ")",
			       what, id, g->name, g->n_nodes, hs_s(g->n_nodes), g->n_nodes - 1);
	return 0;
}

static int64_t effective_limit(const region_spec *s)
{
	return s->force || s->limit <= 0 ? INT64_MAX : s->limit;
}

/* ---- breadth-first search for AROUND ---------------------------------- */

typedef struct bfs {
	int64_t *depth;    /* [n] -1 outside */
	uint8_t *collapsed;/* [n] 1: users skipped because there were too many;
	                    * 2: operands skipped (both: 3) */
	int64_t *order;    /* nodes in visiting order */
	int64_t n_order;
	int64_t *per_depth;/* [radius_seen + 1] counts */
	int64_t max_depth;
} bfs;

static void bfs_free(bfs *b)
{
	free(b->depth);
	free(b->collapsed);
	free(b->order);
	free(b->per_depth);
}

static int around_bfs(const hs_graph *g, const region_spec *s, bfs *b,
		      hs_error *err)
{
	int64_t n = g->n_nodes, head = 0;

	memset(b, 0, sizeof *b);
	b->depth = malloc((size_t)n * sizeof *b->depth);
	b->collapsed = calloc((size_t)n, 1);
	b->order = malloc((size_t)n * sizeof *b->order);
	b->per_depth = calloc((size_t)n + 1, sizeof *b->per_depth);
	if (!b->depth || !b->collapsed || !b->order || !b->per_depth) {
		bfs_free(b);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region",
			       g->name);
	}
	for (int64_t i = 0; i < n; i++)
		b->depth[i] = -1;
	b->depth[s->center] = 0;
	b->order[b->n_order++] = s->center;
	while (head < b->n_order) {
		int64_t v = b->order[head++], d = b->depth[v];

		b->per_depth[d]++;
		if (d > b->max_depth)
			b->max_depth = d;
		if (d >= s->radius)
			continue;
		if ((s->dir & REGION_OPERANDS) && v != s->center && s->operand_threshold > 0 &&
		    graph_n_operands(g, v) > s->operand_threshold) {
			b->collapsed[v] |= 2;
		} else if (s->dir & REGION_OPERANDS) {
			for (int64_t k = g->operand_off[v]; k < g->operand_off[v + 1]; k++) {
				int64_t w = g->operand_idx[k];
				if (b->depth[w] < 0) {
					b->depth[w] = d + 1;
					b->order[b->n_order++] = w;
				}
			}
		}
		if (s->dir & REGION_USERS) {
			if (v != s->center && s->user_threshold > 0 &&
			    graph_n_users(g, v) > s->user_threshold) {
				b->collapsed[v] |= 1;
				continue;
			}
			for (int64_t k = g->user_off[v]; k < g->user_off[v + 1]; k++) {
				int64_t w = g->user_idx[k];
				if (b->depth[w] < 0) {
					b->depth[w] = d + 1;
					b->order[b->n_order++] = w;
				}
			}
		}
	}
	return 0;
}

static int check_around(const hs_graph *g, const region_spec *s, hs_error *err)
{
	if (check_node(g, s->center, "center", err))
		return -1;
	if (s->radius < 0)
		return hs_fail(err, HS_EUSAGE, "radius must be 0 or more, not %" PRId64,
			       s->radius);
	if (s->dir != REGION_OPERANDS && s->dir != REGION_USERS && s->dir != REGION_BOTH)
		return hs_fail(err, HS_EUSAGE, "direction must be operands, users or both");
	if (s->user_threshold < 0 || s->operand_threshold < 0)
		return hs_fail(err, HS_EUSAGE, "thresholds must be 0 or more, not %" PRId64,
			       s->user_threshold < 0 ? s->user_threshold : s->operand_threshold);
	return 0;
}

int64_t region_fit_radius(const hs_graph *g, const region_spec *s)
{
	bfs b;
	int64_t limit = effective_limit(s), sum = 0, best = -1;

	if (!g || s->kind != REGION_AROUND || check_around(g, s, NULL) ||
	    around_bfs(g, s, &b, NULL))
		return -1;
	for (int64_t d = 0; d <= b.max_depth; d++) {
		sum += b.per_depth[d];
		if (sum > limit)
			break;
		best = d;
	}
	/* Past the deepest level reached the region stops growing. */
	if (best == b.max_depth)
		best = s->radius;
	bfs_free(&b);
	return best;
}

/* ---- building the region from a membership mask ----------------------- */

static region *region_from_mask(const hs_graph *g, const uint8_t *in,
				hs_error *err)
{
	region *r = calloc(1, sizeof *r);
	int64_t n = 0, ne = 0;

	if (!r)
		goto oom;
	r->g = g;
	r->focus = r->focus2 = -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!in[v])
			continue;
		n++;
		for (int64_t k = g->operand_off[v]; k < g->operand_off[v + 1]; k++)
			ne += in[g->operand_idx[k]] != 0;
	}
	r->nodes = malloc(((size_t)n + 1) * sizeof *r->nodes);
	r->edges = malloc(((size_t)ne + 1) * sizeof *r->edges);
	if (!r->nodes || !r->edges)
		goto oom;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (!in[v])
			continue;
		r->nodes[r->n_nodes++] = v;
		for (int64_t k = g->operand_off[v]; k < g->operand_off[v + 1]; k++) {
			int64_t w = g->operand_idx[k];
			if (in[w]) {
				r->edges[r->n_edges][0] = v;
				r->edges[r->n_edges][1] = w;
				r->n_edges++;
			}
		}
	}
	qsort(r->edges, (size_t)r->n_edges, sizeof *r->edges, hs_cmp_i64_pair);
	return r;
oom:
	region_free(r);
	hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
	return NULL;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* ---- the five kinds --------------------------------------------------- */

/* Placeholders for the users (what = 1) or operands (what = 2) of the
 * collapsed nodes of a region (mask `in`) that did not make it in; `seen`
 * is a zeroed scratch mask, left zeroed.  -1 when out of memory. */
static int placeholders(const hs_graph *g, const bfs *b, const uint8_t *in, uint8_t *seen,
			int what, region_more **out, int64_t *n_out)
{
	const int64_t *off = what == 1 ? g->user_off : g->operand_off;
	const int64_t *idx = what == 1 ? g->user_idx : g->operand_idx;
	int64_t n = 0;

	for (int64_t v = 0; v < g->n_nodes; v++)
		n += in[v] && (b->collapsed[v] & what);
	*n_out = 0;
	if (!n)
		return 0;
	*out = calloc((size_t)n, sizeof **out);
	if (!*out)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		int64_t hidden = 0;
		if (!in[v] || !(b->collapsed[v] & what))
			continue;
		for (int64_t k = off[v]; k < off[v + 1]; k++) {
			int64_t w = idx[k];
			if (!in[w] && !seen[w]) {
				seen[w] = 1;
				hidden++;
			}
		}
		for (int64_t k = off[v]; k < off[v + 1]; k++)
			seen[idx[k]] = 0;
		if (hidden > 0) {
			(*out)[*n_out].owner = v;
			(*out)[*n_out].hidden = hidden;
			(*n_out)++;
		}
	}
	return 0;
}

static region *select_around(const hs_graph *g, const region_spec *s,
			     hs_error *err)
{
	bfs b;
	uint8_t *in = NULL, *seen = NULL;
	region *r = NULL;
	int64_t limit = effective_limit(s), total;

	if (check_around(g, s, err) || around_bfs(g, s, &b, err))
		return NULL;
	total = b.n_order;
	if (total > limit) {
		int64_t sum = 0, best = -1, best_n = 0;
		for (int64_t d = 0; d <= b.max_depth; d++) {
			sum += b.per_depth[d];
			if (sum > limit)
				break;
			best = d;
			best_n = sum;
		}
		if (best >= 0)
			hs_fail(err, HS_EUSAGE,
				"the region within %" PRId64 " step%s of node %" PRId64
				" has %" PRId64 " nodes, more than the limit of %" PRId64
				"; use --radius %" PRId64 " (%" PRId64 " node%s), --direction"
				" operands or users, --computation %d, --limit %" PRId64
				" or --force",
				s->radius, hs_s(s->radius), s->center, total, s->limit, best, best_n, hs_s(best_n),

				g->comp_of ? g->comp_of[s->center] : 0, total);
		else
			hs_fail(err, HS_EUSAGE,
				"the region around node %" PRId64 " has %" PRId64
				" nodes, more than the limit of %" PRId64
				"; use --limit %" PRId64 " or --force",
				s->center, total, s->limit, total);
		bfs_free(&b);
		return NULL;
	}
	in = calloc((size_t)g->n_nodes, 1);
	seen = calloc((size_t)g->n_nodes, 1);
	if (!in || !seen) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		goto out;
	}
	for (int64_t i = 0; i < b.n_order; i++)
		in[b.order[i]] = 1;
	r = region_from_mask(g, in, err);
	if (!r)
		goto out;
	r->kind = REGION_AROUND;
	r->focus = s->center;

	if (placeholders(g, &b, in, seen, 1, &r->more, &r->n_more) < 0 ||
	    placeholders(g, &b, in, seen, 2, &r->fanin, &r->n_fanin) < 0) {
		region_free(r);
		r = NULL;
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		goto out;
	}
	snprintf(r->key, sizeof r->key, "around:%" PRId64 ":r%" PRId64 ":%s:u%" PRId64 ":o%" PRId64,
		 s->center, s->radius, region_dir_name(s->dir), s->user_threshold,
		 s->operand_threshold);
	snprintf(r->title, sizeof r->title, "%s: %" PRId64 " step%s around node %" PRId64
		 " (%s)", g->name, s->radius, hs_s(s->radius), s->center,
		 region_dir_name(s->dir));
out:
	free(in);
	free(seen);
	bfs_free(&b);
	return r;
}

/* Distances along operand edges (forward = v is an operand of the node
 * before) or user edges from `start`; -1 when unreachable. */
static void distances(const hs_graph *g, int64_t start, int users, int64_t *dist,
		      int64_t *queue)
{
	int64_t head = 0, tail = 0;
	const int64_t *off = users ? g->user_off : g->operand_off;
	const int64_t *idx = users ? g->user_idx : g->operand_idx;

	for (int64_t i = 0; i < g->n_nodes; i++)
		dist[i] = -1;
	dist[start] = 0;
	queue[tail++] = start;
	while (head < tail) {
		int64_t v = queue[head++];
		for (int64_t k = off[v]; k < off[v + 1]; k++) {
			int64_t w = idx[k];
			if (dist[w] < 0) {
				dist[w] = dist[v] + 1;
				queue[tail++] = w;
			}
		}
	}
}

static region *select_path(const hs_graph *g, const region_spec *s, hs_error *err)
{
	int64_t n = g->n_nodes, a = s->from, z = s->to;
	int64_t *da = NULL, *dz = NULL, *queue = NULL, *hist = NULL;
	uint8_t *in = NULL;
	region *r = NULL;

	if (check_node(g, a, "path start", err) || check_node(g, z, "path end", err))
		return NULL;
	if (s->max_nodes < 0) {
		hs_fail(err, HS_EUSAGE, "--max-nodes must be 1 or more, not %" PRId64,
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
	/* start consumes ... consumes end: follow operands from start and users
	 * from end; try both orientations. */
	int64_t start = a, end = z;
	distances(g, start, 0, da, queue);
	if (da[end] < 0) {
		start = z;
		end = a;
		distances(g, start, 0, da, queue);
		if (da[end] < 0) {
			hs_fail(err, HS_EUSAGE,
				"no path between node %" PRId64 " and node %" PRId64
				": neither depends on the other", a, z);
			goto out;
		}
	}
	distances(g, end, 1, dz, queue);

	int64_t dist = da[end], on_path = 0, max_slack = 0;
	for (int64_t v = 0; v < n; v++) {
		if (da[v] < 0 || dz[v] < 0)
			continue;
		int64_t slack = da[v] + dz[v] - dist;
		hist[slack]++;
		on_path++;
		if (slack > max_slack)
			max_slack = slack;
	}
	int64_t cap = s->max_nodes > 0 ? s->max_nodes : effective_limit(s);
	int64_t sum = 0, keep_slack = -1, kept = 0;
	for (int64_t sl = 0; sl <= max_slack; sl++) {
		if (sum + hist[sl] > cap)
			break;
		sum += hist[sl];
		keep_slack = sl;
	}
	if (keep_slack >= 0) {
		for (int64_t v = 0; v < n; v++)
			if (da[v] >= 0 && dz[v] >= 0 && da[v] + dz[v] - dist <= keep_slack)
				in[v] = 1;
		kept = sum;
	} else {
		/* Not even every shortest path fits: one shortest path, taking the
		 * smallest id at every fork. */
		if (dist + 1 > cap) {
			hs_fail(err, HS_EUSAGE,
				"the shortest path between node %" PRId64 " and node %" PRId64
				" has %" PRId64 " nodes, more than the cap of %" PRId64
				"; raise --max-nodes (or --limit) or use --force",
				a, z, dist + 1, cap);
			goto out;
		}
		int64_t v = start;
		in[v] = 1;
		kept = 1;
		while (v != end) {
			int64_t next = -1;
			for (int64_t k = g->operand_off[v]; k < g->operand_off[v + 1]; k++) {
				int64_t w = g->operand_idx[k];
				if (da[w] == da[v] + 1 && dz[w] == dz[v] - 1 &&
				    (next < 0 || w < next))
					next = w;
			}
			if (next < 0)
				break; /* cannot happen: dz[v] > 0 has such an operand */
			v = next;
			in[v] = 1;
			kept++;
		}
	}
	if (kept > effective_limit(s)) {
		hs_fail(err, HS_EUSAGE,
			"the paths between node %" PRId64 " and node %" PRId64 " have %"
			PRId64 " nodes, more than the limit of %" PRId64
			"; use --max-nodes %" PRId64 ", --limit %" PRId64 " or --force",
			a, z, kept, s->limit, s->limit, kept);
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
	snprintf(r->key, sizeof r->key, "path:%" PRId64 ":%" PRId64 ":m%" PRId64,
		 a, z, cap == INT64_MAX ? 0 : cap);
	if (r->truncated)
		snprintf(r->title, sizeof r->title,
			 "%s: paths from node %" PRId64 " to node %" PRId64
			 " (%" PRId64 " of %" PRId64 " nodes; longer paths left out)",
			 g->name, a, z, kept, on_path);
	else
		snprintf(r->title, sizeof r->title,
			 "%s: every path from node %" PRId64 " to node %" PRId64,
			 g->name, a, z);
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

static region *select_hcomp(const hs_graph *g, const region_spec *s, hs_error *err)
{
	char buf[160];
	int64_t drawn;

	if (!g->hcomps || s->hcomp < 0 || s->hcomp >= g->n_hcomps) {
		hs_fail(err, HS_EUSAGE, "unknown computation %" PRId64 ": %s has %" PRId64
			" HLO computation%s", s->hcomp, g->name, g->n_hcomps, hs_s(g->n_hcomps));
		return NULL;
	}
	const hs_hcomp *h = &g->hcomps[s->hcomp];
	const char *name = graph_hcomp_name(g, s->hcomp, buf, sizeof buf);
	uint8_t *in = hcomp_mask(g, s, &drawn);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		return NULL;
	}
	if (drawn > effective_limit(s)) {
		hs_fail(err, HS_EUSAGE,
			"computation %s draws %" PRId64 " nodes and boxes, more than the limit of %"
			PRId64 "; draw part of it with --around ID --radius K, or use --limit %"
			PRId64 " or --force", name, drawn, s->limit, drawn);
		free(in);
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

static region *select_computation(const hs_graph *g, const region_spec *s,
				  hs_error *err)
{
	uint8_t *in;
	region *r;

	if (s->hcomp >= 0)
		return select_hcomp(g, s, err);
	if (s->comp < 0 || s->comp >= g->n_comps) {
		hs_fail(err, HS_EUSAGE,
			"unknown split %" PRId64 ": %s has %" PRId64
			" node_splits segment%s (0..%" PRId64 ")",
			s->comp, g->name, g->n_comps, hs_s(g->n_comps),
			g->n_comps - 1);
		return NULL;
	}
	int64_t lo = g->comp_start[s->comp], hi = g->comp_start[s->comp + 1];
	if (hi - lo > effective_limit(s)) {
		hs_fail(err, HS_EUSAGE,
			"split %" PRId64 " has %" PRId64 " nodes, more than the limit of %"
			PRId64 "; draw part of it with --around ID --radius K, or use --limit %"
			PRId64 " or --force", s->comp, hi - lo, s->limit, hi - lo);
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

static region *select_nodes(const hs_graph *g, const region_spec *s, hs_error *err)
{
	uint8_t *in;
	region *r;
	int64_t count = 0;
	uint64_t h = 1469598103934665603ULL;

	if (s->n_ids == 0 || !s->ids) {
		hs_fail(err, HS_EUSAGE, "no nodes to draw: the set is empty");
		return NULL;
	}
	for (size_t i = 0; i < s->n_ids; i++)
		if (check_node(g, s->ids[i], "selected", err))
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
	if (count > effective_limit(s)) {
		free(in);
		hs_fail(err, HS_EUSAGE,
			"the %" PRId64 " selected nodes are more than the limit of %" PRId64
			"; narrow the selection, or use --limit %" PRId64 " or --force",
			count, s->limit, count);
		return NULL;
	}
	r = region_from_mask(g, in, err);
	free(in);
	if (!r)
		return NULL;
	r->kind = REGION_NODES;
	if (r->n_nodes == 1)
		r->focus = r->nodes[0];
	h = fnv1a(h, r->nodes, (size_t)r->n_nodes * sizeof *r->nodes);
	snprintf(r->key, sizeof r->key, "nodes:%" PRId64 ":%016" PRIx64, r->n_nodes, h);
	snprintf(r->title, sizeof r->title, "%s: %" PRId64 " selected node%s", g->name,
		 r->n_nodes, hs_s(r->n_nodes));
	return r;
}

static region *select_configurable(const hs_graph *g, const region_spec *s,
				   hs_error *err)
{
	uint8_t *in;
	region *r;
	int64_t count = 0;

	if (g->kind != HS_KIND_LAYOUT) {
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
		for (int64_t j = g->operand_off[v]; j < g->operand_off[v + 1]; j++)
			in[g->operand_idx[j]] = 1;
		for (int64_t j = g->user_off[v]; j < g->user_off[v + 1]; j++)
			in[g->user_idx[j]] = 1;
	}
	for (int64_t v = 0; v < g->n_nodes; v++)
		count += in[v];
	if (count > effective_limit(s)) {
		free(in);
		hs_fail(err, HS_EUSAGE,
			"the %" PRId64 " configurable nodes and their neighbours make %" PRId64
			" nodes, more than the limit of %" PRId64 "; use --limit %" PRId64
			" or --force", g->n_cfg_nodes, count, s->limit, count);
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
	region *r = NULL;
	switch (s->kind) {
	case REGION_AROUND: r = select_around(g, s, err); break;
	case REGION_PATH: r = select_path(g, s, err); break;
	case REGION_COMPUTATION: r = select_computation(g, s, err); break;
	case REGION_NODES: r = select_nodes(g, s, err); break;
	case REGION_CONFIGURABLE: r = select_configurable(g, s, err); break;
	default:
		hs_fail(err, HS_EUSAGE, "unknown region kind %d", (int)s->kind);
		return NULL;
	}
	if (r && region_collapse(r, s, err) < 0) {
		region_free(r);
		return NULL;
	}
	return r;
}
