/* region_around.c - the AROUND region: a breadth-first search from the
 * center along operands, users and calls (region_impl.h), busy nodes
 * collapsed into placeholders, named computations drawn whole.  See
 * region.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "render/region.h"
#include "render/region_impl.h"

typedef struct bfs {
	int64_t *depth;    /* [n] -1 outside */
	uint8_t *collapsed;/* [n] 1: users skipped because there were too many;
	                    * 2: operands skipped (both: 3) */
	int64_t *order;    /* nodes in visiting order */
	int64_t n_order;
	int64_t *per_depth;/* [n + 1]: nodes at each depth 0..max_depth */
	int64_t max_depth;
} bfs;

static void bfs_free(bfs *b)
{
	free(b->depth);
	free(b->collapsed);
	free(b->order);
	free(b->per_depth);
}

static void visit(bfs *b, int64_t w, int64_t d)
{
	if (b->depth[w] < 0) {
		b->depth[w] = d;
		b->order[b->n_order++] = w;
	}
}

/* Follows v's steps one way (users = 0: operands).  A node other than the
 * center with more than `threshold` operands (users) of its own is
 * collapsed instead, and so is the center when `center_cap` has the
 * direction (REGION_USERS, REGION_OPERANDS), past its first `threshold`
 * ones; calls are followed all the same. */
static void follow(const hs_graph *g, const region_spec *s, bfs *b, int64_t v, int users,
		   int center_cap)
{
	int64_t threshold = users ? s->user_threshold : s->operand_threshold;
	int64_t plain = region_n_plain_steps(g, v, users), keep = plain;
	int64_t n = region_n_steps(g, v, users), d = b->depth[v] + 1;

	if (threshold > 0 && plain > threshold &&
	    (v != s->center || (center_cap & (users ? REGION_USERS : REGION_OPERANDS)))) {
		b->collapsed[v] |= users ? 1 : 2;
		keep = v == s->center ? threshold : 0;
	}
	for (int64_t k = 0; k < keep; k++)
		visit(b, region_step(g, v, users, k), d);
	for (int64_t k = plain; k < n; k++)
		visit(b, region_step(g, v, users, k), d);
}

static int around_bfs(const hs_graph *g, const region_spec *s, int center_cap, bfs *b,
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
		memset(b, 0, sizeof *b);
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
		if (s->dir & REGION_OPERANDS)
			follow(g, s, b, v, 0, center_cap);
		if (s->dir & REGION_USERS)
			follow(g, s, b, v, 1, center_cap);
	}
	return 0;
}

static int check_around(const hs_graph *g, const region_spec *s, hs_error *err)
{
	if (region_check_node(g, s->center, "center", err))
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

/* The directions (REGION_OPERANDS, REGION_USERS) among `dirs` the spec
 * follows in which the center has more operands (users) of its own than
 * the threshold: collapsing it there can help. */
static int center_busy(const hs_graph *g, const region_spec *s, int dirs)
{
	int busy = 0;

	if ((dirs & s->dir & REGION_OPERANDS) && s->operand_threshold > 0 &&
	    region_n_plain_steps(g, s->center, 0) > s->operand_threshold)
		busy |= REGION_OPERANDS;
	if ((dirs & s->dir & REGION_USERS) && s->user_threshold > 0 &&
	    region_n_plain_steps(g, s->center, 1) > s->user_threshold)
		busy |= REGION_USERS;
	return busy;
}

/* The largest depth whose nodes fit `limit`, and how many there are. */
static int64_t depth_in_limit(const bfs *b, int64_t limit, int64_t *count)
{
	int64_t sum = 0, best = -1;

	*count = 0;
	for (int64_t d = 0; d <= b->max_depth; d++) {
		sum += b->per_depth[d];
		if (sum > limit)
			break;
		best = d;
		*count = sum;
	}
	return best;
}

int64_t region_fit_radius(const hs_graph *g, const region_spec *s)
{
	bfs b;
	int64_t limit = region_effective_limit(s), best, count;
	int cap = 0;

	if (!g || s->kind != REGION_AROUND || check_around(g, s, NULL))
		return -1;
	cap = center_busy(g, s, s->collapse_center);
	if (around_bfs(g, s, cap, &b, NULL))
		return -1;
	if (b.n_order > limit && center_busy(g, s, REGION_BOTH) != cap) {
		bfs_free(&b);
		if (around_bfs(g, s, center_busy(g, s, REGION_BOTH), &b, NULL))
			return -1;
	}
	best = depth_in_limit(&b, limit, &count);
	int64_t deepest = b.max_depth;
	bfs_free(&b);
	/* Past the deepest level reached the region stops growing. */
	if (best == deepest)
		best = s->radius;
	/* The work budget, and bodies drawn whole, can refuse what the node
	 * count lets through: step down until the region is taken. */
	while (best >= 0) {
		region_spec t = *s;
		t.radius = best;
		region *r = region_select(g, &t, NULL);
		if (r) {
			region_free(r);
			break;
		}
		best = (best < deepest ? best : deepest) - 1;
	}
	return best;
}

int64_t region_expand_named(const hs_graph *g, const char *expand, uint8_t *in)
{
	int changed = 1;

	if (!expand || !strcmp(expand, "all") || !g->hcomps)
		return 0;
	while (changed) {
		changed = 0;
		for (int64_t c = 0; c < g->n_hcomps; c++) {
			const hs_hcomp *h = &g->hcomps[c];
			int reached = 0, whole = 1;
			for (int64_t v = h->first; v < h->first + h->count; v++) {
				reached |= in[v];
				whole &= in[v];
			}
			for (int64_t k = 0; k < h->n_callers && !reached; k++)
				reached = in[g->hcomp_callers[h->callers_at + k]];
			if (!reached || whole || !region_expands(g, expand, c))
				continue;
			memset(in + h->first, 1, (size_t)h->count);
			/* its callees come in by their roots: boxes, or whole when named */
			for (int64_t v = h->first; v < h->first + h->count; v++)
				for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++)
					in[g->hcomps[g->called_idx[k]].root] = 1;
			changed = 1;
		}
	}
	int64_t n = 0;
	for (int64_t v = 0; v < g->n_nodes; v++)
		n += in[v];
	return n;
}

/* Placeholders for the users (what = 1) or operands (what = 2) of the
 * collapsed nodes of a region (mask `in`) that did not make it in; `seen`
 * is a zeroed scratch mask, left zeroed.  -1 when out of memory. */
static int placeholders(const hs_graph *g, const bfs *b, const uint8_t *in, uint8_t *seen,
			int what, region_more **out, int64_t *n_out)
{
	int users = what == 1;
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
		int64_t hidden = 0, ns;
		if (!in[v] || !(b->collapsed[v] & what))
			continue;
		ns = region_n_plain_steps(g, v, users); /* calls are never hidden */
		for (int64_t k = 0; k < ns; k++) {
			int64_t w = region_step(g, v, users, k);
			if (!in[w] && !seen[w]) {
				seen[w] = 1;
				hidden++;
			}
		}
		for (int64_t k = 0; k < ns; k++)
			seen[region_step(g, v, users, k)] = 0;
		if (hidden > 0) {
			(*out)[*n_out].owner = v;
			(*out)[*n_out].hidden = hidden;
			(*n_out)++;
		}
	}
	return 0;
}

/* The refusal of a region over the limit, with a radius that fits. */
static void over_limit(const hs_graph *g, const region_spec *s, const bfs *b, int64_t total,
		       hs_error *err)
{
	int64_t best_n, best = depth_in_limit(b, region_effective_limit(s), &best_n);
	const region_words *x = region_words_of(s);
	region_ways w = {0};
	char ref[200], ways[800];

	region_node_ref(g, s->center, ref, sizeof ref);
	if (best >= 0) {
		region_way(&w, x->radius, " %" PRId64 " (%" PRId64 " node%s)", best, best_n, hs_s(best_n));
		region_way(&w, x->direction, "%s", "");
		region_way(&w, x->computation, " %s", graph_hcomp_name(g, g->hcomp_of[s->center]));
	}
	region_way(&w, x->limit, " %" PRId64, total);
	region_way(&w, x->force, "%s", "");
	region_ways_text(&w, "; use ", ways, sizeof ways);
	if (best >= 0)
		hs_fail(err, HS_EUSAGE,
			"the region within %" PRId64 " step%s of %s"
			" has %" PRId64 " nodes, more than the limit of %" PRId64 "%s",
			s->radius, hs_s(s->radius), ref, total, s->limit, ways);
	else
		hs_fail(err, HS_EUSAGE,
			"the region around %s has %" PRId64
			" nodes, more than the limit of %" PRId64 "%s",
			ref, total, s->limit, ways);
}

/* The BFS marked in `in` (zeroed first), named computations drawn whole;
 * returns the node count. */
static int64_t around_mask(const hs_graph *g, const region_spec *s, const bfs *b, uint8_t *in)
{
	memset(in, 0, (size_t)g->n_nodes);
	for (int64_t i = 0; i < b->n_order; i++)
		in[b->order[i]] = 1;
	if (s->expand)
		return region_expand_named(g, s->expand, in);
	return b->n_order;
}

/* The AROUND region of a search and its mask. */
static region *around_region(const hs_graph *g, const region_spec *s, const bfs *b,
			     const uint8_t *in, int center_cap, hs_error *err)
{
	uint8_t *seen = calloc((size_t)g->n_nodes, 1);
	region *r = seen ? region_from_mask(g, in, err) : NULL;

	if (!seen)
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
	if (!r)
		goto out;
	r->kind = REGION_AROUND;
	r->focus = s->center;
	r->center_collapsed = center_cap;
	if (placeholders(g, b, in, seen, 1, &r->more, &r->n_more) < 0 ||
	    placeholders(g, b, in, seen, 2, &r->fanin, &r->n_fanin) < 0) {
		region_free(r);
		r = NULL;
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		goto out;
	}
	snprintf(r->key, sizeof r->key, "around:%" PRId64 ":r%" PRId64 ":%s:u%" PRId64 ":o%" PRId64 "%s",
		 s->center, s->radius, region_dir_name(s->dir), s->user_threshold,
		 s->operand_threshold, center_cap ? (center_cap == REGION_BOTH ? ":cb" :
		 center_cap == REGION_USERS ? ":cu" : ":co") : "");
	if (g->knows & HM_KNOWS_NAMES)   /* a derived name says no more than the id */
		snprintf(r->title, sizeof r->title, "%s: %" PRId64 " step%s around %s (node %" PRId64
			 ", %s)", g->name, s->radius, hs_s(s->radius),
			 graph_node_name(g, s->center), s->center, region_dir_name(s->dir));
	else
		snprintf(r->title, sizeof r->title, "%s: %" PRId64 " step%s around node %" PRId64
			 " (%s)", g->name, s->radius, hs_s(s->radius), s->center,
			 region_dir_name(s->dir));
out:
	free(seen);
	return r;
}

region *region_select_around(const hs_graph *g, const region_spec *s, int64_t *over, hs_error *err)
{
	bfs b;
	uint8_t *in = NULL;
	region *r = NULL;
	int64_t limit = region_effective_limit(s), total;
	int center_cap;

	if (check_around(g, s, err))
		return NULL;
	center_cap = center_busy(g, s, s->collapse_center);
	if (around_bfs(g, s, center_cap, &b, err))
		return NULL;
	in = malloc((size_t)g->n_nodes);
	if (!in) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory selecting a region", g->name);
		goto out;
	}
	total = around_mask(g, s, &b, in);
	/* A center with a crowd of operands (users) keeps its first ones and
	 * one placeholder for the rest rather than being refused. */
	if (total > limit && center_busy(g, s, REGION_BOTH) != center_cap) {
		bfs_free(&b);
		center_cap = center_busy(g, s, REGION_BOTH);
		if (around_bfs(g, s, center_cap, &b, err))
			goto out;
		total = around_mask(g, s, &b, in);
	}
	if (total > limit) {
		over_limit(g, s, &b, total, err);
		if (over)
			*over = total;
		goto out;
	}
	r = around_region(g, s, &b, in, center_cap, err);
out:
	free(in);
	bfs_free(&b);
	return r;
}
