/* layout.c - run Graphviz dot on a region and read the geometry back;
 * a small LRU cache of layouts.  See layout.h. */
#include "render/gv_layout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "base/clock.h"
#include "base/hash.h"
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

static void make_key(const region *r, const dot_opts *o, char *out, size_t cap)
{
	uint64_t h = HS_FNV_BASIS;

	if (o->heat) {
		for (int64_t i = 0; i < r->n_nodes; i++)
			h = hs_fnv1a_bytes(&o->heat[r->nodes[i]], sizeof(double), h);
		h = hs_fnv1a_bytes(&o->heat_log, sizeof o->heat_log, h);
	}
	if (o->highlight && o->n_highlight)
		h = hs_fnv1a_bytes(o->highlight, o->n_highlight * sizeof *o->highlight, h);
	h = hs_fnv1a_bytes(&o->clusters, sizeof o->clusters, h);
	h = hs_fnv1a_bytes(&r->n_boxes, sizeof r->n_boxes, h);
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
	ln->category = (uint8_t)dot_node_category(g, id);
	if (id == r->focus || id == r->focus2)
		ln->flags |= LAY_FOCUS;
	if (hl && hl[id])
		ln->flags |= LAY_HIGHLIGHT;
	if (g->kind != HS_KIND_TILE && g->cfg_index && g->cfg_index[id] >= 0)
		ln->flags |= LAY_CONFIGURABLE;
	ln->heat = (int8_t)(o->heat ? dot_heat_bin(&L->scale, o->heat[id]) : -1);
}

/* A "N more users" (operands = 0) or "N more operands" placeholder; writes
 * its dot name to name[64]. */
static void placeholder_node(const region_more *m, int operands, lay_node *ln, char *name)
{
	ln->id = m->owner;
	ln->hidden = m->hidden;
	snprintf(name, 64, "%s%" PRId64, operands ? "fanin" : "more", m->owner);
	dot_more_label(m, operands, ln->label[0], sizeof ln->label[0]);
	ln->flags = LAY_PLACEHOLDER | (operands ? LAY_OPERANDS : 0);
	ln->heat = -1;
	ln->category = HLO_CAT_OTHER;
}

/* Box k of the region, a collapsed computation or a group (heat: the
 * boxes' values, dot_box_heat, or NULL). */
static void box_node(const region *r, const hs_layout *L, const double *heat, int64_t k,
		     lay_node *ln, char *name)
{
	int group = r->boxes[k].group >= 0;

	ln->id = group ? r->boxes[k].group : r->boxes[k].comp;
	ln->hidden = r->boxes[k].inside;
	snprintf(name, 64, "%s%" PRId64, group ? "grp" : "comp", ln->id);
	dot_box_lines(r, k, LAYOUT_LABEL_MAX, ln->label[0], ln->label[1], sizeof ln->label[0]);
	ln->flags = LAY_PLACEHOLDER | LAY_COLLAPSED | (group ? LAY_GROUP : 0);
	ln->heat = (int8_t)(group && heat ? dot_heat_bin(&L->scale, heat[k]) : -1);
	ln->category = HLO_CAT_CONTROL;
}

/* Stub k of the region: a long edge cut, naming its operand. */
static void stub_node(const region *r, int64_t k, lay_node *ln, char *name)
{
	ln->id = k;
	snprintf(name, 64, "stub%" PRId64, k);
	dot_stub_label(r, k, LAYOUT_LABEL_MAX, ln->label[0], sizeof ln->label[0]);
	ln->flags = LAY_PLACEHOLDER | LAY_STUB;
	ln->heat = -1;
	ln->category = HLO_CAT_OTHER;
}

/* What entry i of L->nodes is: 0 a region node, 1 a users placeholder, 2 an
 * operands placeholder, 3 a box, 4 a stub; *k is its index in that array. */
static int entry_kind(const region *r, int64_t i, int64_t *k)
{
	int64_t starts[5] = {0, r->n_nodes, r->n_nodes + r->n_more,
			     r->n_nodes + r->n_more + r->n_fanin,
			     r->n_nodes + r->n_more + r->n_fanin + r->n_boxes};
	int kind = 4;

	while (kind > 0 && i < starts[kind])
		kind--;
	*k = i - starts[kind];
	return kind;
}

/* The region's reference (a node id, or REGION_BOX_REF) of entry i, or
 * INT64_MIN for a placeholder or a stub. */
static int64_t entry_ref(const region *r, const hs_layout *L, int32_t i)
{
	int64_t k;
	int kind = entry_kind(r, i, &k);

	return kind == 0 ? L->nodes[i].id : kind == 3 ? REGION_BOX_REF(k) : INT64_MIN;
}

/* L->nodes: region nodes, then placeholders, placed where dot put them
 * (x from the left edge ox, y down from the top).  0, or -1 with err set. */
static int read_nodes(hs_layout *L, Agraph_t *G, const region *r, const dot_opts *o, double ox,
		      double top, hs_error *err)
{
	const hs_graph *g = r->g;
	uint8_t *hl = NULL;
	char name[64];

	L->n_nodes = (int32_t)(r->n_nodes + r->n_more + r->n_fanin + r->n_boxes + r->n_stubs);
	L->nodes = calloc((size_t)L->n_nodes + 1, sizeof *L->nodes);
	if (!L->nodes)
		return out_of_memory(r, err);
	double *box_heat = o->heat ? dot_box_heat(r, o) : NULL;
	if (o->highlight && o->n_highlight) {
		hl = calloc((size_t)g->n_nodes, 1);
		if (!hl) {
			free(box_heat);
			return out_of_memory(r, err);
		}
		for (size_t i = 0; i < o->n_highlight; i++)
			if (o->highlight[i] >= 0 && o->highlight[i] < g->n_nodes)
				hl[o->highlight[i]] = 1;
	}
	if (o->heat) {
		L->heat = 1;
		dot_heat_scale_region(r, o, box_heat, &L->scale);
	}
	for (int32_t i = 0; i < L->n_nodes; i++) {
		lay_node *ln = &L->nodes[i];
		Agnode_t *n;

		int64_t k;
		switch (entry_kind(r, i, &k)) {
		case 0: region_node(r, o, L, hl, r->nodes[k], ln, name); break;
		case 1: placeholder_node(&r->more[k], 0, ln, name); break;
		case 2: placeholder_node(&r->fanin[k], 1, ln, name); break;
		case 3: box_node(r, L, box_heat, k, ln, name); break;
		default: stub_node(r, k, ln, name); break;
		}
		if (ln->flags & LAY_GROUP)
			ln->comp = -1;
		else if (ln->flags & LAY_COLLAPSED)
			ln->comp = (int32_t)ln->id;
		else if (ln->flags & LAY_STUB)
			ln->comp = REGION_IS_BOX(r->stubs[ln->id].user) ? -1 : g->hcomp_of[r->stubs[ln->id].user];
		else
			ln->comp = g->hcomp_of[ln->id];
		n = agnode(G, name, 0);
		if (!n) {
			free(hl);
			free(box_heat);
			return hs_fail(err, HS_EDATA, "layout: node %s missing from the graph", name);
		}
		ln->x = ND_coord(n).x - ox;
		ln->y = top - ND_coord(n).y;
		ln->w = ND_width(n) * 72.0;
		ln->h = ND_height(n) * 72.0;
	}
	free(hl);
	free(box_heat);
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

/* The index in L->nodes of the dot node named `name` ("n12", "more12",
 * "fanin12", "comp3"), or -1. */
static int32_t node_index(const hs_layout *L, const region *r, const char *name)
{
	static const struct {
		const char *prefix;
		int flags;
	} kinds[] = {{"more", LAY_PLACEHOLDER}, {"fanin", LAY_PLACEHOLDER | LAY_OPERANDS},
		     {"comp", LAY_PLACEHOLDER | LAY_COLLAPSED},
		     {"grp", LAY_PLACEHOLDER | LAY_COLLAPSED | LAY_GROUP},
		     {"stub", LAY_PLACEHOLDER | LAY_STUB}};

	if (name[0] == 'n')
		return layout_find(L, strtoll(name + 1, NULL, 10));
	for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
		size_t n = strlen(kinds[j].prefix);
		if (strncmp(name, kinds[j].prefix, n) != 0)
			continue;
		int64_t id = strtoll(name + n, NULL, 10);
		for (int32_t i = (int32_t)r->n_nodes; i < L->n_nodes; i++)
			if (L->nodes[i].id == id && L->nodes[i].flags == kinds[j].flags)
				return i;
	}
	return -1;
}

/* Position of {a, b} in n sorted pairs, or -1. */
static int64_t find_pair(const int64_t (*p)[2], int64_t n, int64_t a, int64_t b)
{
	int64_t lo = 0, hi = n;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (p[mid][0] < a || (p[mid][0] == a && p[mid][1] < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && p[lo][0] == a && p[lo][1] == b ? lo : -1;
}

/* Whether the edge from entry ti to entry hi is a call, its operand label
 * and the node whose value it carries (-1: none, a placeholder's). */
static int64_t edge_kind(const region *r, const hs_layout *L, int32_t ti, int32_t hi, lay_edge *le)
{
	const lay_node *t = &L->nodes[ti], *h = &L->nodes[hi];

	if (t->flags & LAY_STUB) {
		const region_stub *st = &r->stubs[t->id];
		le->call = st->call;
		snprintf(le->label, sizeof le->label, "%s", st->label);
		return st->value;
	}
	if ((t->flags | h->flags) & LAY_COLLAPSED) {
		int64_t k = find_pair((const int64_t(*)[2])r->links, r->n_links, entry_ref(r, L, hi),
				      entry_ref(r, L, ti));
		if (k < 0)
			return -1;
		le->call = r->link_info[k].call;
		return r->link_info[k].value;
	}
	if ((t->flags | h->flags) & LAY_PLACEHOLDER)
		return -1;
	if (find_pair((const int64_t(*)[2])r->calls, r->n_calls, h->id, t->id) >= 0) {
		le->call = 1;
		return t->id;
	}
	int64_t k = find_pair((const int64_t(*)[2])r->edges, r->n_edges, h->id, t->id);
	if (k >= 0)
		region_edge_label(r, k, le->label, sizeof le->label);
	return t->id;
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

			le->tail = node_index(L, r, tn);
			le->head = node_index(L, r, hn);
			if (le->tail < 0 || le->head < 0)
				return hs_fail(err, HS_EDATA, "layout: edge %s -> %s not in the region",
					       tn, hn);
			const lay_node *t = &L->nodes[le->tail], *h = &L->nodes[le->head];
			le->dashed = ((t->flags | h->flags) & LAY_PLACEHOLDER) &&
				     !((t->flags | h->flags) & LAY_COLLAPSED);
			/* the tensor of the operand, or of what a box gives */
			int64_t v = edge_kind(r, L, le->tail, le->head, le);
			if (v >= 0 && (!le->dashed || (t->flags & LAY_STUB)))
				le->bytes = layout_edge_bytes(g, v);
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
		const char *name = r->g->n_hcomps > c->comp ? graph_hcomp_name(r->g, c->comp) : "";
		c->x0 = cb.LL.x - ox;
		c->x1 = cb.UR.x - ox;
		c->y0 = top - cb.UR.y;
		c->y1 = top - cb.LL.y;
		char full[700], esc[640];
		snprintf(full, sizeof full, "%s (%s)", dot_esc_name(name, esc, sizeof esc),
			 r->g->hcomps && c->comp < r->g->n_hcomps ? graph_role_name(r->g->hcomps[c->comp].role) : "");
		dot_cut_text(c->label, sizeof c->label, full, 40);
	}
	return 0;
}

double layout_edge_bytes(const hs_graph *g, int64_t operand)
{
	const hm_shape *s = hm_instr_at(g->module, operand)->shape;
	return s->element_type == HM_TUPLE ? 0 : hm_shape_bytes(s);
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
	if (dot_gv_layout(gvc, G) != 0) {
		if (dot_gv_out_of_memory())
			hs_fail(err, HS_ENOMEM, "out of memory in Graphviz's dot layout of %s", r->title);
		else
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
	dot_close(G);
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
