/* layout.c - run Graphviz dot on a region and read the geometry back;
 * a small LRU cache of layouts.  See layout.h. */
#include "render/layout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "base/clock.h"
#include "base/plural.h"
#include "loader/hlo.h"

void layout_free(hs_layout *L)
{
	if (!L)
		return;
	for (int32_t i = 0; i < L->n_edges; i++)
		free(L->edges[i].pts);
	free(L->nodes);
	free(L->edges);
	free(L->clusters);
	free(L);
}

int32_t layout_find(const hs_layout *L, int64_t id)
{
	/* Region nodes come first, ascending by id. */
	int32_t lo = 0, hi = L->n_nodes;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		const lay_node *n = &L->nodes[mid];
		if ((n->flags & LAY_PLACEHOLDER) || n->id >= id)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < L->n_nodes && !(L->nodes[lo].flags & LAY_PLACEHOLDER) &&
	    L->nodes[lo].id == id)
		return lo;
	return -1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void make_key(const region *r, const dot_opts *o, char *out, size_t cap)
{
	uint64_t h = 1469598103934665603ULL;

	if (o->heat) {
		for (int64_t i = 0; i < r->n_nodes; i++)
			h = fnv(h, &o->heat[r->nodes[i]], sizeof(double));
		h = fnv(h, &o->heat_log, sizeof o->heat_log);
	}
	if (o->highlight && o->n_highlight)
		h = fnv(h, o->highlight, o->n_highlight * sizeof *o->highlight);
	h = fnv(h, &o->clusters, sizeof o->clusters);
	snprintf(out, cap, "%s|%s|%016" PRIx64, r->g->path ? r->g->path : r->g->name,
		 r->key, h);
}

static int out_of_memory(const region *r, hs_error *err)
{
	return hs_fail(err, HS_ENOMEM, "out of memory laying out %s", r->title);
}

/* One region node's drawing attributes (no geometry yet); writes its dot
 * name to name[64].  hl: the highlight mask (may be NULL). */
static void region_node(const region *r, const dot_opts *o, const hs_layout *L, const uint8_t *hl,
			int64_t id, lay_node *ln, char *name)
{
	const hs_graph *g = r->g;

	ln->id = id;
	snprintf(name, 64, "n%" PRId64, id);
	dot_node_lines(g, id, LAYOUT_LABEL_MAX, ln->label[0], ln->label[1], sizeof ln->label[0]);
	ln->category = (uint8_t)hlo_opcode_category(g->opcode[id]);
	if (id == r->focus || id == r->focus2)
		ln->flags |= LAY_FOCUS;
	if (hl && hl[id])
		ln->flags |= LAY_HIGHLIGHT;
	if (g->kind == HS_KIND_LAYOUT && g->cfg_index && g->cfg_index[id] >= 0)
		ln->flags |= LAY_CONFIGURABLE;
	ln->heat = (int8_t)(o->heat ? dot_heat_bin(&L->scale, o->heat[id]) : -1);
}

/* A "N more users" placeholder; writes its dot name to name[64]. */
static void placeholder_node(const region_more *m, lay_node *ln, char *name)
{
	ln->id = m->owner;
	ln->hidden = m->hidden;
	snprintf(name, 64, "more%" PRId64, m->owner);
	snprintf(ln->label[0], sizeof ln->label[0], "%" PRId64 " more user%s", m->hidden,
		 hs_s(m->hidden));
	ln->flags = LAY_PLACEHOLDER;
	ln->heat = -1;
	ln->category = HLO_CAT_OTHER;
}

/* L->nodes: region nodes, then placeholders, placed where dot put them
 * (x from the left edge ox, y down from the top).  0, or -1 with err set. */
static int read_nodes(hs_layout *L, Agraph_t *G, const region *r, const dot_opts *o, double ox,
		      double top, hs_error *err)
{
	const hs_graph *g = r->g;
	uint8_t *hl = NULL;
	char name[64];

	L->n_nodes = (int32_t)(r->n_nodes + r->n_more);
	L->nodes = calloc((size_t)L->n_nodes + 1, sizeof *L->nodes);
	if (!L->nodes)
		return out_of_memory(r, err);
	if (o->highlight && o->n_highlight) {
		hl = calloc((size_t)g->n_nodes, 1);
		if (!hl)
			return out_of_memory(r, err);
		for (size_t i = 0; i < o->n_highlight; i++)
			if (o->highlight[i] >= 0 && o->highlight[i] < g->n_nodes)
				hl[o->highlight[i]] = 1;
	}
	if (o->heat) {
		L->heat = 1;
		dot_heat_scale_of(o->heat, r->nodes, r->n_nodes, o->heat_log, &L->scale);
	}
	for (int32_t i = 0; i < L->n_nodes; i++) {
		lay_node *ln = &L->nodes[i];
		Agnode_t *n;

		if (i < r->n_nodes)
			region_node(r, o, L, hl, r->nodes[i], ln, name);
		else
			placeholder_node(&r->more[i - r->n_nodes], ln, name);
		ln->comp = g->comp_of ? g->comp_of[ln->id] : 0;
		n = agnode(G, name, 0);
		if (!n) {
			free(hl);
			return hs_fail(err, HS_EDATA, "layout: node %s missing from the graph", name);
		}
		ln->x = ND_coord(n).x - ox;
		ln->y = top - ND_coord(n).y;
		ln->w = ND_width(n) * 72.0;
		ln->h = ND_height(n) * 72.0;
	}
	free(hl);
	return 0;
}

/* The edge's spline as one polyline of bezier control points.  -1 when out
 * of memory. */
static int edge_points(lay_edge *le, const splines *sp, double ox, double top)
{
	int32_t npts = 0;

	if (sp)
		for (int b = 0; b < sp->size; b++)
			npts += sp->list[b].size;
	if (npts <= 0)
		return 0;
	le->pts = malloc((size_t)npts * 2 * sizeof *le->pts);
	if (!le->pts)
		return -1;
	for (int b = 0; b < sp->size; b++) {
		bezier *bz = &sp->list[b];
		for (int k = 0; k < bz->size; k++) {
			/* consecutive beziers share their joint */
			if (b > 0 && k == 0 && le->n_pts > 0)
				continue;
			le->pts[2 * le->n_pts] = bz->list[k].x - ox;
			le->pts[2 * le->n_pts + 1] = top - bz->list[k].y;
			le->n_pts++;
		}
	}
	return 0;
}

/* L->edges in graph order (the tail is the operand), after read_nodes().
 * 0, or -1 with err set. */
static int read_edges(hs_layout *L, Agraph_t *G, const region *r, double ox, double top,
		      hs_error *err)
{
	const hs_graph *g = r->g;
	int32_t ne = 0;

	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n))
		for (Agedge_t *e = agfstout(G, n); e; e = agnxtout(G, e))
			ne++;
	L->edges = calloc((size_t)ne + 1, sizeof *L->edges);
	if (!L->edges)
		return out_of_memory(r, err);
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n)) {
		for (Agedge_t *e = agfstout(G, n); e; e = agnxtout(G, e)) {
			lay_edge *le = &L->edges[L->n_edges];
			const char *tn = agnameof(agtail(e)), *hn = agnameof(aghead(e));
			int64_t tid = strtoll(tn + (tn[0] == 'n' ? 1 : 4), NULL, 10);
			int64_t hid = strtoll(hn + (hn[0] == 'n' ? 1 : 4), NULL, 10);

			le->tail = layout_find(L, tid);
			if (hn[0] == 'm') {
				int64_t k;
				for (k = 0; k < r->n_more && r->more[k].owner != hid; k++)
					;
				le->head = (int32_t)(r->n_nodes + k);
				le->dashed = 1;
			} else {
				le->head = layout_find(L, hid);
				hlo_shape sh;
				hlo_decode_shape(graph_feat(g, tid), g->feat_width, &sh);
				le->bytes = (double)hlo_shape_bytes(&sh);
			}
			if (le->tail < 0 || le->head < 0 || le->head >= L->n_nodes)
				return hs_fail(err, HS_EDATA, "layout: edge %s -> %s not in the region",
					       tn, hn);
			if (edge_points(le, ED_spl(e), ox, top) < 0)
				return out_of_memory(r, err);
			L->n_edges++;
		}
	}
	return 0;
}

/* L->clusters: one box per computation cluster.  0, or -1 with err set. */
static int read_clusters(hs_layout *L, Agraph_t *G, const region *r, double ox, double top,
			 hs_error *err)
{
	if (GD_n_cluster(G) <= 0)
		return 0;
	L->clusters = calloc((size_t)GD_n_cluster(G), sizeof *L->clusters);
	if (!L->clusters)
		return out_of_memory(r, err);
	for (int i = 1; i <= GD_n_cluster(G); i++) {
		Agraph_t *sub = GD_clust(G)[i];
		lay_cluster *c = &L->clusters[L->n_clusters++];
		boxf cb = GD_bb(sub);
		c->comp = (int32_t)strtol(agnameof(sub) + 8, NULL, 10);
		c->x0 = cb.LL.x - ox;
		c->x1 = cb.UR.x - ox;
		c->y0 = top - cb.UR.y;
		c->y1 = top - cb.LL.y;
		snprintf(c->label, sizeof c->label, "computation %d", c->comp);
	}
	return 0;
}

hs_layout *layout_region(const region *r, const dot_opts *opts, hs_error *err)
{
	dot_opts o;
	Agraph_t *G = NULL;
	GVC_t *gvc;
	hs_layout *L = NULL;
	int laid = 0;
	double t0 = hs_now_seconds(), t1;

	if (opts)
		o = *opts;
	else
		dot_opts_init(&o);
	o.terminal = 1;
	gvc = dot_context(err);
	if (!gvc)
		return NULL;
	G = dot_build(r, &o, err);
	if (!G)
		return NULL;
	L = calloc(1, sizeof *L);
	if (!L) {
		out_of_memory(r, err);
		goto fail;
	}
	make_key(r, &o, L->key, sizeof L->key);
	t1 = hs_now_seconds();
	if (gvLayout(gvc, G, "dot") != 0) {
		hs_fail(err, HS_EDATA, "Graphviz dot layout of %s failed", r->title);
		goto fail;
	}
	laid = 1;
	L->seconds_graphviz = hs_now_seconds() - t1;

	boxf bb = GD_bb(G);
	double ox = bb.LL.x, top = bb.UR.y;
	L->width = bb.UR.x - bb.LL.x;
	L->height = bb.UR.y - bb.LL.y;
	if (read_nodes(L, G, r, &o, ox, top, err) < 0 || read_edges(L, G, r, ox, top, err) < 0 ||
	    read_clusters(L, G, r, ox, top, err) < 0)
		goto fail;
	gvFreeLayout(gvc, G);
	agclose(G);
	L->seconds_total = hs_now_seconds() - t0;
	return L;
fail:
	if (laid)
		gvFreeLayout(gvc, G);
	agclose(G);
	layout_free(L);
	return NULL;
}

/* ---- cache ------------------------------------------------------------ */

struct layout_cache {
	int cap, n;
	hs_layout **items;   /* most recently used last */
	long hits, misses;
};

layout_cache *layout_cache_new(int capacity)
{
	layout_cache *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->cap = capacity < 1 ? 1 : capacity;
	c->items = calloc((size_t)c->cap, sizeof *c->items);
	if (!c->items) {
		free(c);
		return NULL;
	}
	return c;
}

void layout_cache_free(layout_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		layout_free(c->items[i]);
	free(c->items);
	free(c);
}

void layout_cache_stats(const layout_cache *c, long *hits, long *misses)
{
	if (hits)
		*hits = c ? c->hits : 0;
	if (misses)
		*misses = c ? c->misses : 0;
}

const hs_layout *layout_cache_get(layout_cache *c, const region *r,
				  const dot_opts *opts, hs_error *err)
{
	char key[sizeof ((hs_layout *)0)->key];
	dot_opts o;
	hs_layout *L;

	if (opts)
		o = *opts;
	else
		dot_opts_init(&o);
	o.terminal = 1;
	make_key(r, &o, key, sizeof key);
	for (int i = 0; i < c->n; i++) {
		if (strcmp(c->items[i]->key, key) == 0) {
			L = c->items[i];
			memmove(&c->items[i], &c->items[i + 1],
				(size_t)(c->n - i - 1) * sizeof *c->items);
			c->items[c->n - 1] = L;
			c->hits++;
			return L;
		}
	}
	L = layout_region(r, &o, err);
	if (!L)
		return NULL;
	c->misses++;
	if (c->n == c->cap) {
		layout_free(c->items[0]);
		memmove(&c->items[0], &c->items[1], (size_t)(c->n - 1) * sizeof *c->items);
		c->n--;
	}
	c->items[c->n++] = L;
	return L;
}
