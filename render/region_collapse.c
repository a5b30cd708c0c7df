/* region_collapse.c - called computations of a region drawn as one box
 * each (see region.h).
 *
 * A computation C is collapsed when a node of the region outside C calls it
 * (fusion, while, reduce's to_apply, ...), some of C's nodes are in the
 * region, none of them is what the region is about, and `expand` does not
 * name C.  What a region is about: the center of an AROUND region, the
 * configurable nodes of a CONFIGURABLE one, every node of a PATH or NODES
 * region (so these collapse nothing: each of their nodes was asked for);
 * a COMPUTATION region (a real computation or a node_splits segment) keeps
 * its top computations and collapses the ones they call.  Its
 * nodes leave r->nodes; the edges between a node and a collapsed node become
 * links to the box (each pair once), edges inside a box vanish, and the
 * placeholders of collapsed nodes go too.
 */
#include "render/region.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/hash.h"

/* 1 when the comma-separated list names computation c. */
static int listed(const hs_graph *g, const char *list, int64_t c)
{
	char buf[160];
	const char *name = graph_hcomp_name(g, c, buf, sizeof buf);
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int region_expands(const hs_graph *g, const char *expand, int64_t c)
{
	if (!expand)
		return 0;
	return strcmp(expand, "all") == 0 || listed(g, expand, c);
}

int64_t region_find_hcomp(const hs_graph *g, const char *name)
{
	return graph_find_hcomp(g, name);
}

/* Every name of the list must be a computation: a typo says so. */
static int check_expand(const hs_graph *g, const char *list, hs_error *err)
{
	char word[160];

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		snprintf(word, sizeof word, "%.*s", (int)(len < 159 ? len : 159), p);
		if (region_find_hcomp(g, word) < 0)
			return hs_fail(err, HS_EUSAGE, "%s has no computation named '%s' to expand "
				       "(the query `count by computation_name` lists them)", g->name, word);
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* comp_box[c]: the box of computation c, or -1 when c is drawn in full. */
static int64_t choose_boxes(const region *r, const region_spec *s, int64_t *comp_box,
			    uint8_t *home, uint8_t *called, int64_t *inside)
{
	const hs_graph *g = r->g;
	int64_t nb = 0;

	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t v = r->nodes[i];
		inside[g->hcomp_of[v]]++;
		if (v == r->focus || v == r->focus2 ||
		    (r->kind == REGION_CONFIGURABLE && g->cfg_index && g->cfg_index[v] >= 0))
			home[g->hcomp_of[v]] = 1;
		for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++)
			if (g->called_idx[k] != g->hcomp_of[v])
				called[g->called_idx[k]] = 1;
	}
	for (int64_t c = 0; c < g->n_hcomps; c++) {
		int box = called[c] && !home[c] && inside[c] > 0 &&
			  !(s->expand && listed(g, s->expand, c));
		comp_box[c] = box ? nb++ : -1;
	}
	return nb;
}

/* The region's node or box for node v. */
static int64_t ref_of(const hs_graph *g, const int64_t *comp_box, int64_t v)
{
	int64_t b = comp_box[g->hcomp_of[v]];
	return b >= 0 ? REGION_BOX_REF(b) : v;
}

/* Keeps the placeholders whose owner is still drawn. */
static void keep_placeholders(const hs_graph *g, const int64_t *comp_box, region_more *m,
			      int64_t *n)
{
	int64_t k = 0;

	for (int64_t i = 0; i < *n; i++)
		if (comp_box[g->hcomp_of[m[i].owner]] < 0)
			m[k++] = m[i];
	*n = k;
}

/* Appends {u, o} to the links when one end is a box (and they differ), or
 * returns 1 when both are nodes. */
static int add_link(region *r, int64_t u, int64_t o, int64_t *nl)
{
	if (!REGION_IS_BOX(u) && !REGION_IS_BOX(o))
		return 1;
	if (u != o) {
		r->links[*nl][0] = u;
		r->links[*nl][1] = o;
		(*nl)++;
	}
	return 0;
}

/* On a module, the calls of the region's nodes whose callee is a box: a
 * link from the box to the caller (or the caller's box). */
static void call_links(region *r, const int64_t *comp_box, int64_t *nl)
{
	const hs_graph *g = r->g;

	if (!g->operands_exact)
		return;
	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t v = r->nodes[i];
		for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++) {
			int64_t b = comp_box[g->called_idx[k]];
			if (b >= 0)
				add_link(r, ref_of(g, comp_box, v), REGION_BOX_REF(b), nl);
		}
	}
}

/* Rewrites nodes and edges once the boxes are chosen.  -1: out of memory. */
static int rewrite(region *r, const int64_t *comp_box, const int64_t *inside)
{
	const hs_graph *g = r->g;
	int64_t nn = 0, ne = 0, nc = 0, nl = 0, ncalled = 0;

	for (int64_t c = 0; c < g->n_hcomps; c++)
		if (comp_box[c] >= 0) {
			r->boxes[comp_box[c]].comp = c;
			r->boxes[comp_box[c]].inside = inside[c];
			r->collapsed += inside[c];
		}
	for (int64_t i = 0; i < r->n_nodes; i++)
		ncalled += graph_n_called(g, r->nodes[i]);
	r->links = malloc(((size_t)(r->n_edges + r->n_calls + ncalled) + 1) * sizeof *r->links);
	if (!r->links)
		return -1;
	call_links(r, comp_box, &nl);
	for (int64_t i = 0; i < r->n_nodes; i++)
		if (comp_box[g->hcomp_of[r->nodes[i]]] < 0)
			r->nodes[nn++] = r->nodes[i];
	for (int64_t k = 0; k < r->n_edges; k++) {
		int64_t u = ref_of(g, comp_box, r->edges[k][0]);
		int64_t o = ref_of(g, comp_box, r->edges[k][1]);
		if (add_link(r, u, o, &nl)) {
			r->edges[ne][0] = u;
			r->edges[ne][1] = o;
			ne++;
		}
	}
	for (int64_t k = 0; k < r->n_calls; k++) {
		int64_t u = ref_of(g, comp_box, r->calls[k][0]);
		int64_t o = ref_of(g, comp_box, r->calls[k][1]);
		if (add_link(r, u, o, &nl)) {
			r->calls[nc][0] = u;
			r->calls[nc][1] = o;
			nc++;
		}
	}
	r->n_nodes = nn;
	r->n_edges = ne;
	r->n_calls = nc;
	qsort(r->links, (size_t)nl, sizeof *r->links, hs_cmp_i64_pair);
	r->n_links = 0;
	for (int64_t k = 0; k < nl; k++)
		if (k == 0 || hs_cmp_i64_pair(r->links[k], r->links[k - 1]) != 0) {
			r->links[r->n_links][0] = r->links[k][0];
			r->links[r->n_links][1] = r->links[k][1];
			r->n_links++;
		}
	keep_placeholders(g, comp_box, r->more, &r->n_more);
	keep_placeholders(g, comp_box, r->fanin, &r->n_fanin);
	return 0;
}

/* Makes the cache key say what is expanded. */
static void key_expand(region *r, const char *expand)
{
	uint64_t h = hs_fnv1a(expand, HS_FNV_BASIS);
	size_t n = strlen(r->key);

	snprintf(r->key + n, sizeof r->key - n, ":x%016" PRIx64, h);
}

int region_collapse(region *r, const region_spec *s, hs_error *err)
{
	const hs_graph *g = r->g;

	if (s->expand)
		key_expand(r, s->expand);
	if (!g->hcomps || !g->hcomp_of || g->n_hcomps <= 1 ||
	    (s->expand && strcmp(s->expand, "all") == 0))
		return 0;
	if (s->expand && check_expand(g, s->expand, err) < 0)
		return -1;
	if (r->kind == REGION_PATH || r->kind == REGION_NODES)
		return 0;
	size_t nc = (size_t)g->n_hcomps;
	int64_t *comp_box = malloc(nc * sizeof *comp_box);
	int64_t *inside = calloc(nc, sizeof *inside);
	uint8_t *home = calloc(nc, 1), *called = calloc(nc, 1);
	int rc = -1;

	if (!comp_box || !inside || !home || !called)
		goto done;
	r->n_boxes = choose_boxes(r, s, comp_box, home, called, inside);
	if (r->n_boxes == 0) {
		rc = 0;
		goto done;
	}
	r->boxes = calloc((size_t)r->n_boxes, sizeof *r->boxes);
	if (!r->boxes)
		goto done;
	rc = rewrite(r, comp_box, inside);
done:
	free(comp_box);
	free(inside);
	free(home);
	free(called);
	if (rc < 0)
		hs_fail(err, HS_ENOMEM, "%s: out of memory collapsing computations", g->name);
	return rc;
}
