/* test_render_groups.c - what a drawing does to fit: groups of nodes drawn
 * as boxes (render/region.h), regions over their limit grouped (by the
 * caller's grouper, else by computation), the work estimate with sources
 * moved down to their users, long edges cut into stubs, the heat of a box,
 * and all of it through dot_build and the terminal layout.
 *
 * The module is written here: a chain of 2 * L instructions in layers
 * net/l0 ... net/lL-1 (two each), a weight parameter used by the first and
 * the last of them, and a reduce whose reducer is a computation of its own.
 * Expected regions are counted from that construction, not from the code's
 * own structures. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/graph.h"
#include "render/render.h"
#include "tests/unit/t.h"

#define L 20 /* layers of the chain */

static char path[1024];

/* The module: p0, w, then a_k = multiply(prev, prev), b_k = add(a_k, x)
 * (x = w for the first and the last layer, else a_k), then the reduce:
 * 2L + 4 nodes and 2L + 4 edges in the entry. */
static hs_graph *make_module(void)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "HloModule chain\n\n%%add (x: f32[], y: f32[]) -> f32[] {\n  %%x = f32[] parameter(0)\n"
		"  %%y = f32[] parameter(1)\n  ROOT %%s = f32[] add(%%x, %%y)\n}\n\n"
		"ENTRY %%main (p0: f32[8], w: f32[8]) -> f32[] {\n"
		"  %%p0 = f32[8]{0} parameter(0)\n  %%w = f32[8]{0} parameter(1)\n");
	char prev[32] = "p0";
	for (int k = 0; k < L; k++) {
		fprintf(f, "  %%a%d = f32[8]{0} multiply(%%%s, %%%s), metadata={op_name=\"net/l%d/mul\"}\n", k,
			prev, prev, k);
		if (k == 0 || k == L - 1)
			fprintf(f, "  %%b%d = f32[8]{0} add(%%a%d, %%w), metadata={op_name=\"net/l%d/add\"}\n", k,
				k, k);
		else
			fprintf(f, "  %%b%d = f32[8]{0} add(%%a%d, %%a%d), metadata={op_name=\"net/l%d/add\"}\n", k,
				k, k, k);
		snprintf(prev, sizeof prev, "b%d", k);
	}
	fprintf(f, "  %%c = f32[] constant(0)\n  ROOT %%r = f32[] reduce(%%b%d, %%c), dimensions={0}, "
		"to_apply=%%add\n}\n", L - 1);
	fclose(f);
	hs_error err = {0};
	hs_graph *g = graph_open(path, &err);
	if (!g)
		printf("FAIL open the module: %s\n", err.msg);
	return g;
}

static int64_t id(const hs_graph *g, const char *name)
{
	return graph_find_node(g, name);
}

/* Groups: layer k's two instructions are group k. */
static int layer_groups(const hs_graph *g, region_groups *gr, hs_error *err)
{
	if (region_groups_init(gr, g, L, err) < 0)
		return -1;
	char name[32];
	for (int k = 0; k < L; k++) {
		snprintf(name, sizeof name, "a%d", k);
		gr->of[id(g, name)] = k;
		snprintf(name, sizeof name, "b%d", k);
		gr->of[id(g, name)] = k;
		snprintf(name, sizeof name, "l%d", k);
		gr->label[k] = region_groups_strdup(gr, name);
	}
	snprintf(gr->what, sizeof gr->what, "layer");
	return 0;
}

/* The link {user, operand} (either a node id or a box reference), or -1. */
static int64_t link_of(const region *r, int64_t u, int64_t o)
{
	for (int64_t k = 0; k < r->n_links; k++)
		if (r->links[k][0] == u && r->links[k][1] == o)
			return k;
	return -1;
}

/* The box of group k, or -1. */
static int64_t box_of_group(const region *r, int64_t k)
{
	for (int64_t b = 0; b < r->n_boxes; b++)
		if (r->boxes[b].group == k)
			return b;
	return -1;
}

static void test_groups(const hs_graph *g)
{
	hs_error err = {0};
	region_groups gr;
	region_spec s;
	int64_t all[2 * L + 8], n = 0;

	if (layer_groups(g, &gr, &err) < 0) {
		printf("FAIL groups: %s\n", err.msg);
		return;
	}
	int64_t entry = g->hcomp_of[id(g, "p0")];
	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->hcomp_of[v] == entry)
			all[n++] = v;
	region_spec_init(&s);
	s.kind = REGION_LAYER;
	s.ids = all;
	s.n_ids = (size_t)n;
	s.groups = &gr;
	s.layer = "net";
	region *r = region_select(g, &s, &err);
	CHECK("a layer region: p0, w, c and r drawn, the rest in boxes",
	      r && r->n_nodes == 4 && region_index_of(r, id(g, "p0")) >= 0 && region_index_of(r, id(g, "r")) >= 0);
	int64_t b0 = r ? box_of_group(r, 0) : -1, b1 = r ? box_of_group(r, 1) : -1;
	int64_t bl = r ? box_of_group(r, L - 1) : -1;
	int groups = 0, comps = 0;
	for (int64_t k = 0; r && k < r->n_boxes; k++) {
		groups += r->boxes[k].group >= 0 && r->boxes[k].comp == -1 && r->boxes[k].inside == 2;
		comps += r->boxes[k].group < 0 && r->boxes[k].comp >= 0;
	}
	CHECK("one box per group of two nodes; the reducer is not in the layer: no box",
	      r && groups == L && comps == 0 && r->n_boxes == L && r->grouped == 2 * L && r->collapsed == 0);
	int64_t k = r ? link_of(r, REGION_BOX_REF(b1), REGION_BOX_REF(b0)) : -1;
	CHECK("an operand edge between two groups is a link carrying the operand's value",
	      k >= 0 && !r->link_info[k].call && r->link_info[k].value == id(g, "b0"));
	k = r ? link_of(r, REGION_BOX_REF(b0), id(g, "w")) : -1;
	int64_t k2 = r ? link_of(r, REGION_BOX_REF(bl), id(g, "w")) : -1;
	CHECK("w feeds the first and the last group", k >= 0 && k2 >= 0 && r->link_info[k].value == id(g, "w"));
	k = r ? link_of(r, id(g, "r"), REGION_BOX_REF(bl)) : -1;
	CHECK("the last group feeds r", k >= 0 && !r->link_info[k].call);
	int64_t calls = 0;
	for (int64_t i = 0; r && i < r->n_links; i++)
		calls += r->link_info[i].call;
	CHECK("no call: the reducer is not drawn", calls == 0 && r && r->n_calls == 0);
	CHECK("edges within a group are gone, none to a grouped node", r && r->n_edges == 1 &&
	      r->edges[0][0] == id(g, "r") && r->edges[0][1] == id(g, "c"));
	CHECK("the title names the layer", r && strstr(r->title, "layer net (") != NULL);

	/* heat: each node's value is its id; a box sums its nodes' values, those
	 * of the mask only */
	double *heat = malloc((size_t)g->n_nodes * sizeof *heat);
	uint8_t *mask = calloc((size_t)g->n_nodes, 1);
	for (int64_t v = 0; v < g->n_nodes; v++) {
		heat[v] = (double)v;
		mask[v] = 1;
	}
	mask[id(g, "a1")] = 0;
	dot_opts o;
	dot_opts_init(&o);
	o.heat = heat;
	o.heat_sum = mask;
	double *bh = r ? dot_box_heat(r, &o) : NULL;
	CHECK("a group's heat is the sum of its nodes' values (the mask's only)",
	      bh && bh[b0] == (double)(id(g, "a0") + id(g, "b0")) && bh[b1] == (double)id(g, "b1"));
	free(bh);
	Agraph_t *G = r ? dot_build(r, &o, &err) : NULL;
	char name[32];
	snprintf(name, sizeof name, "grp%d", 1);
	Agnode_t *n1 = G ? agnode(G, name, 0) : NULL;
	const char *label = n1 ? agget(n1, "label") : NULL;
	char want[64];
	snprintf(want, sizeof want, "l1\\n2 nodes\\nheat = %" PRId64, id(g, "b1"));
	CHECK("dot: a group box 'grp1' labelled with its name, size and heat", label && !strcmp(label, want));
	CHECK("dot: drawn with a double border", n1 && !strcmp(agget(n1, "peripheries"), "2"));
	if (G)
		agclose(G);
	/* the terminal layout knows group boxes */
	hs_layout *lay = r ? layout_region(r, &o, &err) : NULL;
	int flagged = 0;
	for (int32_t i = 0; lay && i < lay->n_nodes; i++)
		flagged += (lay->nodes[i].flags & LAY_GROUP) && lay->nodes[i].comp == -1 && lay->nodes[i].heat >= 0;
	CHECK("layout: every group is a box with its heat bin", lay && flagged == L);
	layout_free(lay);
	free(heat);
	free(mask);
	region_free(r);
	region_groups_free(&gr);
}

static void test_measure_and_stubs(const hs_graph *g)
{
	hs_error err = {0};
	region_spec s;
	int64_t all[2 * L + 8], n = 0;
	int64_t entry = g->hcomp_of[id(g, "p0")];

	for (int64_t v = 0; v < g->n_nodes; v++)
		if (g->hcomp_of[v] == entry)
			all[n++] = v;
	region_spec_init(&s);
	s.kind = REGION_NODES;
	s.ids = all;
	s.n_ids = (size_t)n;
	region *r = region_select(g, &s, &err);
	/* ranks: p0 0, a_k 2k+1, b_k 2k+2, r 2L+1; w moves down to just above
	 * b0 (rank 1) and c to just above r: only w -> b_{L-1} is long, it
	 * crosses 2L - 2 ranks */
	CHECK("work: sources move down to their users; one long edge crosses 2L-2 ranks",
	      r && r->work.ranks == 2 * L + 2 && r->work.crossed == 2 * L - 2 &&
	      r->work.nodes == 2 * L + 4 && r->work.edges == 2 * L + 4);
	int64_t before = r ? r->work.total : 0;
	region_free(r);
	s.max_work = before - 10;
	r = region_select(g, &s, &err);
	CHECK("over the budget without cut_long_edges: refused with its size", !r &&
	      strstr(err.msg, "Graphviz would take long to lay that out") && strstr(err.msg, "ranks more"));
	s.cut_long_edges = 1;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("with cut_long_edges: the long edge is a stub, the work within the budget",
	      r && r->n_stubs == 1 && r->stubs[0].user == id(g, "b19") && r->stubs[0].operand == id(g, "w") &&
	      r->stubs[0].value == id(g, "w") && !r->stubs[0].call && !strcmp(r->stubs[0].label, "1") &&
	      r->work.total <= s.max_work && r->work.crossed == 0);
	int edge_gone = 1;
	for (int64_t k = 0; r && k < r->n_edges; k++)
		if (r->edges[k][0] == id(g, "b19") && r->edges[k][1] == id(g, "w"))
			edge_gone = 0;
	CHECK("the cut edge is no edge any more, the note says so",
	      r && edge_gone && r->n_edges == 2 * L + 3 && strstr(r->note, "1 long edge cut"));
	char lab[64];
	CHECK("a stub names its operand", r && dot_stub_label(r, 0, 40, lab, sizeof lab) == 3 &&
	      !strcmp(lab, "\xe2\x86\x91 w"));
	Agraph_t *G = r ? dot_build(r, NULL, &err) : NULL;
	Agnode_t *st = G ? agnode(G, "stub0", 0) : NULL, *u = NULL;
	Agedge_t *e = st ? agfstout(G, st) : NULL;
	if (e)
		u = aghead(e);
	char un[32];
	snprintf(un, sizeof un, "n%" PRId64, id(g, "b19"));
	CHECK("dot: the stub is a dashed box with an edge to its user, labelled 1",
	      st && !strcmp(agget(st, "style"), "dashed,rounded") && u && !strcmp(agnameof(u), un) &&
	      !strcmp(agget(e, "headlabel"), "1"));
	CHECK("dot: the note is a legend", G && agnode(G, "note", 0) != NULL);
	if (G)
		agclose(G);
	hs_layout *lay = r ? layout_region(r, NULL, &err) : NULL;
	int stubs = 0, stub_edges = 0;
	for (int32_t i = 0; lay && i < lay->n_nodes; i++)
		stubs += (lay->nodes[i].flags & LAY_STUB) != 0;
	for (int32_t i = 0; lay && i < lay->n_edges; i++)
		stub_edges += (lay->nodes[lay->edges[i].tail].flags & LAY_STUB) && lay->edges[i].dashed &&
			      !strcmp(lay->edges[i].label, "1") && lay->edges[i].bytes == 32;
	CHECK("layout: the stub and its edge (dashed, labelled, the operand's 32 bytes)",
	      stubs == 1 && stub_edges == 1);
	layout_free(lay);
	region_free(r);
}

/* A grouper that groups every node of net/l* by its layer (as
 * query_draw_grouper would), or finds nothing when ctx says so. */
static int fake_grouper(void *ctx, const hs_graph *g, const int64_t *nodes, int64_t n, int64_t limit,
			region_collapse_mode mode, region_groups *out, hs_error *err)
{
	int *calls = ctx;
	calls[0]++;
	calls[1] = (int)limit;
	calls[2] = mode;
	memset(out, 0, sizeof *out);
	if (calls[3])
		return 0;
	(void)nodes;
	(void)n;
	return layer_groups(g, out, err);
}

static void test_collapse(const hs_graph *g)
{
	hs_error err = {0};
	region_spec s;
	int calls[4] = {0};
	const region_words w = {.limit = "--limit", .force = "--force", .collapse = "--collapse layer"};

	region_spec_init(&s);
	s.kind = REGION_COMPUTATION;
	s.hcomp = g->hcomp_of[id(g, "p0")];
	s.limit = 10;
	s.words = &w;
	region *r = region_select(g, &s, &err);
	CHECK("over the limit, no collapse asked: refused as before", !r &&
	      strstr(err.msg, "more than the limit of 10"));
	s.collapse = REGION_COLLAPSE_AUTO;
	s.grouper = fake_grouper;
	s.grouper_ctx = calls;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("AUTO: the grouper is asked with the limit", calls[0] == 1 && calls[1] == 10 &&
	      calls[2] == REGION_COLLAPSE_AUTO);
	CHECK("AUTO: the region is drawn by its groups (still over 10: refused, saying so)",
	      !r && strstr(err.msg, "collapsed by layer it would still draw"));
	s.limit = 30;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("AUTO within the groups: L boxes, p0, w, c, r and the reducer's box",
	      r && r->n_nodes == 4 && r->n_boxes == L + 1 && r->own_groups && r->groups == r->own_groups);
	CHECK("the note says why and how", r && strstr(r->note, "the region draws ") &&
	      strstr(r->note, "more than the limit of 30: collapsed by layer into 25 boxes for its 47 nodes"));
	region_free(r);
	calls[3] = 1; /* the grouper finds nothing: by computation */
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("no layers: grouped by computation (the entry one box, the reducer another)",
	      r && r->n_nodes == 0 && r->n_boxes == 2 && strstr(r->note, "collapsed by computation"));
	region_free(r);
	s.collapse = REGION_COLLAPSE_COMPUTATION;
	s.limit = 100;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("COMPUTATION asked within the limit: grouped all the same, the note without a why",
	      r && r->n_boxes == 2 && !strstr(r->note, "more than") && strstr(r->note, "collapsed by computation"));
	region_free(r);
	s.force = 1;
	s.collapse = REGION_COLLAPSE_AUTO;
	s.limit = 10;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("force: nothing grouped", r && r->n_boxes == 1 && r->n_nodes == 2 * L + 4 && !r->groups);
	region_free(r);

	region_groups gr;
	int rc = region_groups_by_computation(g, NULL, 0, &gr, &err);
	CHECK("by computation over the whole graph: one group each, labelled and counted",
	      rc == 0 && gr.n == g->n_hcomps && gr.of[id(g, "x")] != gr.of[id(g, "p0")] &&
	      strstr(gr.detail[gr.of[id(g, "p0")]], "entry, ") && strstr(gr.detail[gr.of[id(g, "x")]], "3 nodes"));
	region_groups_free(&gr);
}

int main(void)
{
	const char *w = getenv("WORK");

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof path, "%s/test_render_groups.%d.hlo", w ? w : "/tmp", (int)getpid());
	hs_graph *g = make_module();
	if (!g)
		return 1;
	test_groups(g);
	test_measure_and_stubs(g);
	test_collapse(g);
	graph_free(g);
	unlink(path);
	dot_shutdown();
	T_DONE();
}
