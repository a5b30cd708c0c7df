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
	const char *name = graph_hcomp_name(g, c);
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

/* Every name of the list must be a computation: a typo says so. */
static int check_expand(const hs_graph *g, const char *list, hs_error *err)
{
	char word[160];

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		snprintf(word, sizeof word, "%.*s", (int)(len < 159 ? len : 159), p);
		if (graph_find_hcomp(g, word) < 0)
			return hs_fail(err, HS_EUSAGE, "%s has no computation named '%s' to expand "
				       "(the query `count by computation_name` lists them)", g->name, word);
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* comp_box[c]: the box of computation c, or -1 when c is drawn in full.
 * Nodes in a group (group_of >= 0) are the group's: they neither keep a
 * computation's box nor count in it. */
static int64_t choose_boxes(const region *r, const region_spec *s, const int32_t *group_of,
			    int64_t *comp_box, uint8_t *home, uint8_t *called, int64_t *inside)
{
	const hs_graph *g = r->g;
	int64_t nb = 0;

	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t v = r->nodes[i];
		if (group_of && group_of[v] >= 0)
			continue;
		inside[g->hcomp_of[v]]++;
		if (v == r->focus || v == r->focus2 ||
		    (r->kind == REGION_CONFIGURABLE && g->cfg_index && g->cfg_index[v] >= 0))
			home[g->hcomp_of[v]] = 1;
		for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++)
			if (g->called_idx[k] != g->hcomp_of[v])
				called[g->called_idx[k]] = 1;
	}
	for (int64_t i = 0; group_of && i < r->n_nodes; i++) {
		int64_t v = r->nodes[i];
		if (group_of[v] < 0)
			continue;
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

/* Where node v is drawn: the box of its group or of its computation
 * (group_box: the group's box, -1 when the group draws nothing), or itself. */
typedef struct refs {
	const hs_graph *g;
	const int32_t *group_of;  /* NULL: no groups */
	const int64_t *group_box; /* [groups] */
	const int64_t *comp_box;  /* [n_hcomps], NULL: no computation boxes */
} refs;

static int64_t ref_of(const refs *x, int64_t v)
{
	if (x->group_of && x->group_of[v] >= 0)
		return REGION_BOX_REF(x->group_box[x->group_of[v]]);
	if (x->comp_box) {
		int64_t b = x->comp_box[x->g->hcomp_of[v]];
		if (b >= 0)
			return REGION_BOX_REF(b);
	}
	return v;
}

/* Keeps the placeholders whose owner is still drawn. */
static void keep_placeholders(const refs *x, region_more *m, int64_t *n)
{
	int64_t k = 0;

	for (int64_t i = 0; i < *n; i++)
		if (!REGION_IS_BOX(ref_of(x, m[i].owner)))
			m[k++] = m[i];
	*n = k;
}

/* A link before sorting: the pair, what it carries, whether a call. */
typedef struct raw_link {
	int64_t u, o, value;
	int call;
} raw_link;

static int cmp_raw_link(const void *a, const void *b)
{
	const raw_link *x = a, *y = b;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	if (x->o != y->o)
		return x->o < y->o ? -1 : 1;
	if (x->call != y->call)
		return x->call - y->call; /* an operand before a call */
	return (x->value > y->value) - (x->value < y->value);
}

/* Appends {u, o} to the links when one end is a box (and they differ), or
 * returns 1 when both are nodes. */
static int add_link(raw_link *l, int64_t *nl, int64_t u, int64_t o, int64_t value, int call)
{
	if (!REGION_IS_BOX(u) && !REGION_IS_BOX(o))
		return 1;
	if (u != o)
		l[(*nl)++] = (raw_link){u, o, value, call};
	return 0;
}

/* On a module, the calls of the region's nodes whose callee is a box: a
 * link from the box to the caller (or the caller's box). */
static void call_links(const region *r, const refs *x, raw_link *l, int64_t *nl)
{
	const hs_graph *g = r->g;

	if (!(g->knows & HM_KNOWS_OPERAND_ORDER) || !x->comp_box)
		return;
	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t v = r->nodes[i];
		for (int64_t k = g->called_off[v]; k < g->called_off[v + 1]; k++) {
			int64_t c = g->called_idx[k], b = x->comp_box[c];
			if (b >= 0)
				add_link(l, nl, ref_of(x, v), REGION_BOX_REF(b), g->hcomps[c].root, 1);
		}
	}
}

/* The links sorted, each pair once (an operand edge before a call). */
static int sort_links(region *r, raw_link *l, int64_t nl)
{
	qsort(l, (size_t)nl, sizeof *l, cmp_raw_link);
	r->links = malloc(((size_t)nl + 1) * sizeof *r->links);
	r->link_info = malloc(((size_t)nl + 1) * sizeof *r->link_info);
	if (!r->links || !r->link_info)
		return -1;
	r->n_links = 0;
	for (int64_t k = 0; k < nl; k++) {
		if (k > 0 && l[k].u == l[k - 1].u && l[k].o == l[k - 1].o)
			continue;
		r->links[r->n_links][0] = l[k].u;
		r->links[r->n_links][1] = l[k].o;
		r->link_info[r->n_links] = (region_link){l[k].value, l[k].call};
		r->n_links++;
	}
	return 0;
}

/* Rewrites nodes and edges once the boxes are chosen.  -1: out of memory. */
static int rewrite(region *r, const refs *x)
{
	const hs_graph *g = r->g;
	int64_t nn = 0, ne = 0, nc = 0, nl = 0, ncalled = 0;

	for (int64_t i = 0; i < r->n_nodes; i++)
		ncalled += graph_n_called(g, r->nodes[i]);
	raw_link *l = malloc(((size_t)(r->n_edges + r->n_calls + ncalled) + 1) * sizeof *l);
	if (!l)
		return -1;
	call_links(r, x, l, &nl);
	for (int64_t i = 0; i < r->n_nodes; i++) {
		int64_t v = r->nodes[i], ref = ref_of(x, v);
		if (!REGION_IS_BOX(ref))
			r->nodes[nn++] = v;
		else
			r->boxes[REGION_BOX_INDEX(ref)].inside++;
	}
	for (int64_t k = 0; k < r->n_edges; k++) {
		int64_t u = ref_of(x, r->edges[k][0]), o = ref_of(x, r->edges[k][1]);
		if (add_link(l, &nl, u, o, r->edges[k][1], 0)) {
			r->edges[ne][0] = u;
			r->edges[ne][1] = o;
			ne++;
		}
	}
	for (int64_t k = 0; k < r->n_calls; k++) {
		int64_t u = ref_of(x, r->calls[k][0]), o = ref_of(x, r->calls[k][1]);
		if (add_link(l, &nl, u, o, r->calls[k][1], 1)) {
			r->calls[nc][0] = u;
			r->calls[nc][1] = o;
			nc++;
		}
	}
	r->n_nodes = nn;
	r->n_edges = ne;
	r->n_calls = nc;
	for (int64_t k = 0; k < r->n_boxes; k++) {
		if (r->boxes[k].group >= 0)
			r->grouped += r->boxes[k].inside;
		else
			r->collapsed += r->boxes[k].inside;
	}
	int rc = sort_links(r, l, nl);
	free(l);
	keep_placeholders(x, r->more, &r->n_more);
	keep_placeholders(x, r->fanin, &r->n_fanin);
	return rc;
}

/* Makes the cache key say what is expanded. */
static void key_expand(region *r, const char *expand)
{
	uint64_t h = hs_fnv1a(expand, HS_FNV_BASIS);
	size_t n = strlen(r->key);

	snprintf(r->key + n, sizeof r->key - n, ":x%016" PRIx64, h);
}

/* Makes the cache key say how the nodes are grouped. */
static void key_groups(region *r, const region_groups *gr)
{
	uint64_t h = HS_FNV_BASIS;
	size_t n = strlen(r->key);

	for (int64_t i = 0; i < r->n_nodes; i++)
		h = hs_fnv1a_bytes(&gr->of[r->nodes[i]], sizeof *gr->of, h);
	snprintf(r->key + n, sizeof r->key - n, ":g%016" PRIx64, h);
}

/* The boxes of the groups that hold region nodes, after the nb
 * computations' (group_box[k] = -1 for the others); returns how many. */
static int64_t group_boxes(const region *r, const region_groups *gr, int64_t nb, int64_t *group_box)
{
	int64_t n = 0;

	for (int64_t k = 0; k < gr->n; k++)
		group_box[k] = -1;
	for (int64_t i = 0; i < r->n_nodes; i++) {
		int32_t k = gr->of[r->nodes[i]];
		if (k >= 0 && group_box[k] < 0)
			group_box[k] = 0, n++;
	}
	int64_t b = nb;
	for (int64_t k = 0; k < gr->n; k++)
		if (group_box[k] == 0)
			group_box[k] = b++;
	return n;
}

int region_collapse(region *r, const region_spec *s, hs_error *err)
{
	const hs_graph *g = r->g;
	const region_groups *gr = r->groups;
	int comps = g->n_hcomps > 1 && !(s->expand && strcmp(s->expand, "all") == 0);

	if (s->expand)
		key_expand(r, s->expand);
	if (gr)
		key_groups(r, gr);
	if (comps && s->expand && check_expand(g, s->expand, err) < 0)
		return -1;
	if (r->kind == REGION_PATH || r->kind == REGION_NODES)
		comps = 0;
	if (!comps && !gr)
		return 0;
	size_t nc = g->n_hcomps > 0 ? (size_t)g->n_hcomps : 1;
	int64_t *comp_box = malloc(nc * sizeof *comp_box);
	int64_t *inside = calloc(nc, sizeof *inside);
	int64_t *group_box = malloc(((size_t)(gr ? gr->n : 0) + 1) * sizeof *group_box);
	uint8_t *home = calloc(nc, 1), *called = calloc(nc, 1);
	int rc = -1;

	if (!comp_box || !inside || !home || !called || !group_box)
		goto done;
	int64_t nb = comps ? choose_boxes(r, s, gr ? gr->of : NULL, comp_box, home, called, inside) : 0;
	int64_t ng = gr ? group_boxes(r, gr, nb, group_box) : 0;
	r->n_boxes = nb + ng;
	if (r->n_boxes == 0) {
		rc = 0;
		goto done;
	}
	r->boxes = calloc((size_t)r->n_boxes, sizeof *r->boxes);
	if (!r->boxes)
		goto done;
	for (int64_t c = 0; comps && c < g->n_hcomps; c++)
		if (comp_box[c] >= 0)
			r->boxes[comp_box[c]] = (region_box){c, 0, -1};
	for (int64_t k = 0; gr && k < gr->n; k++)
		if (group_box[k] >= 0)
			r->boxes[group_box[k]] = (region_box){-1, 0, k};
	refs x = {g, gr ? gr->of : NULL, group_box, comps ? comp_box : NULL};
	rc = rewrite(r, &x);
done:
	free(comp_box);
	free(inside);
	free(group_box);
	free(home);
	free(called);
	if (rc < 0)
		hs_fail(err, HS_ENOMEM, "%s: out of memory collapsing computations", g->name);
	return rc;
}
