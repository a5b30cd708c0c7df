/* test_render.c - regions, the cgraph graph and its DOT round trip, the
 * in-process layout, the cell canvas and the layout cache, on real files.
 *
 * Oracles: regions are checked against the raw edge list (not the CSR the
 * code uses), DOT output is parsed back with agmemread, the canvas against
 * the layout's own boxes. */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo.h"
#include "render/palette.h"
#include "render/render.h"
#include "tests/unit/t.h"

static char data_root[1024];
static char scratch[1024];

static hs_graph *open_real(const char *rel)
{
	char path[2048];
	hs_error err = {0};
	hs_graph *g;

	snprintf(path, sizeof path, "%s/npz/%s", data_root, rel);
	g = graph_open(path, &err);
	if (!g)
		printf("FAIL open %s: %s\n", rel, err.msg);
	return g;
}

#define UNET "layout/xla/default/train/unet3d.npz"
#define RNN "layout/xla/random/train/openai_v0_rnn_optimized.npz"
#define TILE "tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz"

/* ---- oracles on the raw edge list ------------------------------------- */

/* Undirected / directed BFS depth over g->edges only. */
static int64_t *oracle_depths(const hs_graph *g, int64_t center, int dir, int64_t radius)
{
	int64_t *d = malloc((size_t)g->n_nodes * sizeof *d);
	for (int64_t i = 0; i < g->n_nodes; i++)
		d[i] = -1;
	d[center] = 0;
	for (int64_t step = 0; step < radius; step++) {
		int changed = 0;
		for (int64_t e = 0; e < g->n_edges; e++) {
			int64_t u = g->edges[e][0], v = g->edges[e][1];
			/* operands: from u go to v; users: from v go to u */
			if ((dir & REGION_OPERANDS) && d[u] == step && d[v] < 0) {
				d[v] = step + 1;
				changed = 1;
			}
			if ((dir & REGION_USERS) && d[v] == step && d[u] < 0) {
				d[u] = step + 1;
				changed = 1;
			}
		}
		if (!changed)
			break;
	}
	return d;
}

static int64_t oracle_induced_edges(const hs_graph *g, const region *r)
{
	int64_t n = 0;
	for (int64_t e = 0; e < g->n_edges; e++)
		n += region_index_of(r, g->edges[e][0]) >= 0 &&
		     region_index_of(r, g->edges[e][1]) >= 0;
	return n;
}

static int edges_valid(const hs_graph *g, const region *r)
{
	for (int64_t k = 0; k < r->n_edges; k++) {
		int64_t u = r->edges[k][0], v = r->edges[k][1], found = 0;
		if (region_index_of(r, u) < 0 || region_index_of(r, v) < 0)
			return 0;
		if (k && (r->edges[k - 1][0] > u ||
			  (r->edges[k - 1][0] == u && r->edges[k - 1][1] > v)))
			return 0;
		for (int64_t e = 0; e < g->n_edges && !found; e++)
			found = g->edges[e][0] == u && g->edges[e][1] == v;
		if (!found)
			return 0;
	}
	return 1;
}

static int sorted_unique(const region *r)
{
	for (int64_t i = 1; i < r->n_nodes; i++)
		if (r->nodes[i - 1] >= r->nodes[i])
			return 0;
	return 1;
}

/* ---- a synthetic graph built in memory -------------------------------- */

/* A tile graph of n nodes (opcode 0, zero features) and these edges, made
 * by the loader's own constructor (its module synthesized: one
 * computation, the edges as operands). */
static hs_graph *synth_graph(int64_t n, const int64_t (*e)[2], int64_t ne)
{
	hf_arrays a = {.kind = HS_KIND_TILE, .n_nodes = n, .n_edges = ne};
	hs_error err = {0};

	a.node_opcode = calloc((size_t)n, 1);
	a.node_feat = calloc((size_t)n * 140, sizeof(float));
	a.edge_index = malloc((size_t)ne * sizeof *a.edge_index);
	if (a.edge_index)
		memcpy(a.edge_index, e, (size_t)ne * sizeof *a.edge_index);
	hs_graph *g = graph_from_arrays(&a, "synthetic.npz", "synthetic", &err);
	hf_arrays_free(&a);
	if (!g)
		printf("FAIL synthetic graph: %s\n", err.msg);
	return g;
}

static void test_synthetic(void)
{
	/* 9 consumes ... 0 along three routes of 2, 3 and 4 steps; 1 and 2
	 * hang off the routes without being on a path. */
	static const int64_t pe[][2] = {{9, 8}, {8, 0}, {8, 1}, {9, 7}, {7, 6}, {6, 0},
					{9, 5}, {5, 4}, {4, 3}, {3, 0}, {2, 0}};
	hs_graph *g = synth_graph(10, pe, 11);
	region_spec s;
	hs_error err = {0};
	region *r;

	region_spec_init(&s);
	s.kind = REGION_PATH;
	s.from = 9;
	s.to = 0;
	r = region_select(g, &s, &err);
	CHECK("synthetic: every path, 8 nodes", r && r->n_nodes == 8 && !r->truncated &&
	      region_index_of(r, 1) < 0 && region_index_of(r, 2) < 0);
	region_free(r);
	static const struct { int64_t cap, want, omitted; } caps[] = {
		{3, 3, 5}, {4, 3, 5}, {5, 5, 3}, {7, 5, 3}, {8, 8, 0}};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		char name[96];
		s.max_nodes = caps[i].cap;
		r = region_select(g, &s, &err);
		snprintf(name, sizeof name, "synthetic: cap %" PRId64 " keeps %" PRId64
			 " nodes (whole path-length layers)", caps[i].cap, caps[i].want);
		CHECK(name, r && r->n_nodes == caps[i].want && r->omitted == caps[i].omitted &&
		      r->truncated == (caps[i].omitted > 0));
		region_free(r);
	}
	s.max_nodes = 2;
	hs_error_clear(&err);
	CHECK("synthetic: cap 2 < shortest path of 3", !region_select(g, &s, &err) &&
	      strstr(err.msg, "has 3 nodes"));
	graph_free(g);

	/* 10 has 20 users (11..30); 31 uses 11. */
	int64_t ce[21][2];
	for (int i = 0; i < 20; i++) {
		ce[i][0] = 11 + i;
		ce[i][1] = 10;
	}
	ce[20][0] = 31;
	ce[20][1] = 11;
	g = synth_graph(32, (const int64_t (*)[2])ce, 21);
	region_spec_init(&s);
	s.center = 31;
	s.radius = 3;
	r = region_select(g, &s, &err);
	CHECK("synthetic: 20 users collapse to one placeholder of 19",
	      r && r->n_nodes == 3 && r->n_more == 1 && r->more[0].owner == 10 &&
	      r->more[0].hidden == 19);
	region_free(r);
	s.user_threshold = 20;
	r = region_select(g, &s, &err);
	CHECK("synthetic: threshold 20 keeps all 20 users", r && r->n_nodes == 22 && r->n_more == 0);
	region_free(r);
	s.user_threshold = 16;
	s.dir = REGION_OPERANDS;
	r = region_select(g, &s, &err);
	CHECK("synthetic: operands only never reaches users", r && r->n_nodes == 3 &&
	      r->n_more == 0);
	region_free(r);
	s.dir = REGION_USERS;
	s.center = 10;
	s.radius = 1;
	r = region_select(g, &s, &err);
	CHECK("synthetic: users of the center", r && r->n_nodes == 21);
	region_free(r);
	s.radius = 2;
	s.limit = 21;
	/* Over the limit, the center's crowd of users is collapsed: its first
	 * 16 users (11..26) and 31, which uses 11; 27..30 in a placeholder. */
	r = region_select(g, &s, &err);
	CHECK("synthetic: over the limit, the center's users collapse",
	      r && r->n_nodes == 18 && r->center_collapsed == REGION_USERS && r->n_more == 1 &&
	      r->more[0].owner == 10 && r->more[0].hidden == 4 && region_index_of(r, 26) >= 0 &&
	      region_index_of(r, 27) < 0 && region_index_of(r, 31) >= 0);
	region_free(r);
	CHECK("synthetic: fit radius with the center collapsed", region_fit_radius(g, &s) == 2);
	s.limit = 22;
	r = region_select(g, &s, &err);
	CHECK("synthetic: within the limit the center keeps every user",
	      r && r->n_nodes == 22 && !r->center_collapsed && r->n_more == 0);
	region_free(r);
	s.collapse_center = REGION_USERS;
	r = region_select(g, &s, &err);
	CHECK("synthetic: collapse_center collapses it anyway", r && r->n_nodes == 18 &&
	      r->center_collapsed == REGION_USERS);
	region_free(r);
	s.collapse_center = REGION_OPERANDS;
	r = region_select(g, &s, &err);
	CHECK("synthetic: collapse_center of operands leaves the users", r && r->n_nodes == 22);
	region_free(r);
	s.collapse_center = 0;
	s.user_threshold = 0; /* never collapse: the limit refuses */
	s.limit = 21;
	static const region_words dot_like = {.radius = "--radius", .limit = "--limit", .force = "--force"};
	s.words = &dot_like; /* the ways out in the words dot gives (cli/cmd_dot.c) */
	hs_error_clear(&err);
	CHECK("synthetic: one over the limit", !region_select(g, &s, &err) &&
	      strstr(err.msg, "has 22 nodes") && strstr(err.msg, "--radius 1 (21 nodes)"));
	CHECK("synthetic: fit radius", region_fit_radius(g, &s) == 1);
	s.limit = 22;
	CHECK("synthetic: fit radius at the limit", region_fit_radius(g, &s) == 2);
	s.radius = 50;
	CHECK("synthetic: fit radius past the deepest level is the asked radius",
	      region_fit_radius(g, &s) == 50);
	graph_free(g);
}

/* ---- regions ---------------------------------------------------------- */

static void test_around(hs_graph *g)
{
	region_spec s;
	hs_error err = {0};
	region *r;

	region_spec_init(&s);
	s.center = 1000;
	s.radius = 0;
	r = region_select(g, &s, &err);
	CHECK("around r0 is the center alone", r && r->n_nodes == 1 && r->nodes[0] == 1000 &&
	      r->n_edges == 0 && r->focus == 1000);
	region_free(r);

	/* radius 3 in each direction against the raw-edge oracle (node 1000
	 * has no busy neighbour within 3 steps: checked below). */
	static const int dirs[] = {REGION_OPERANDS, REGION_USERS, REGION_BOTH};
	for (int k = 0; k < 3; k++) {
		char name[96];
		s.radius = 3;
		s.dir = (region_dir)dirs[k];
		s.user_threshold = 0; /* never collapse: plain BFS */
		r = region_select(g, &s, &err);
		int64_t *d = oracle_depths(g, 1000, dirs[k], 3), count = 0, same = 1;
		for (int64_t i = 0; i < g->n_nodes; i++)
			if (d[i] >= 0) {
				count++;
				same &= r && region_index_of(r, i) >= 0;
			}
		snprintf(name, sizeof name, "around r3 %s matches raw-edge BFS",
			 region_dir_name(s.dir));
		CHECK(name, r && same && r->n_nodes == count && sorted_unique(r));
		snprintf(name, sizeof name, "around r3 %s edges are the induced edges",
			 region_dir_name(s.dir));
		CHECK(name, r && edges_valid(g, r) && r->n_edges == oracle_induced_edges(g, r));
		CHECK("no placeholders without a threshold", r && r->n_more == 0);
		free(d);
		region_free(r);
	}

	/* Collapsing: 1025 (a constant with 21 users) is one step from 1026. */
	region_spec_init(&s);
	s.center = 1026;
	s.radius = 2;
	r = region_select(g, &s, &err);
	CHECK("busy operand's users collapse into one placeholder",
	      r && r->n_more == 1 && r->more[0].owner == 1025);
	if (r && r->n_more == 1) {
		int64_t in = 0;
		for (int64_t k = g->user_off[1025]; k < g->user_off[1026]; k++)
			in += region_index_of(r, g->user_idx[k]) >= 0;
		CHECK("placeholder counts the users left out",
		      r->more[0].hidden == graph_n_users(g, 1025) - in && r->more[0].hidden == 20);
	}
	CHECK("collapsed users are not in the region", r && region_index_of(r, 1108) < 0);
	region_free(r);

	s.user_threshold = 0;
	r = region_select(g, &s, &err);
	CHECK("threshold 0 never collapses", r && r->n_more == 0 && region_index_of(r, 1108) >= 0);
	region_free(r);

	/* The center itself is never collapsed. */
	region_spec_init(&s);
	s.center = 1025;
	s.radius = 1;
	r = region_select(g, &s, &err);
	CHECK("center's users are all drawn", r && r->n_nodes == 22 && r->n_more == 0);
	region_free(r);

	/* Size limit, message and fit radius.  The message names the ways out
	 * in the caller's words (a front end's options), none of its own. */
	static const region_words words = {.radius = "RADIUS", .limit = "LIMIT", .force = "FORCE"};
	region_spec_init(&s);
	s.center = 1000;
	s.radius = 40;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("over the limit is refused", !r && err.status == HS_EUSAGE);
	CHECK("without words the message names no way out, and no option",
	      strstr(err.msg, "more than the limit of 500") && !strstr(err.msg, "; use") &&
	      !strstr(err.msg, "--"));
	s.words = &words;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	CHECK("limit message tells size, limit and a radius",
	      !r && strstr(err.msg, "more than the limit of 500") && strstr(err.msg, "; use RADIUS ") &&
	      strstr(err.msg, ", LIMIT ") && strstr(err.msg, " or FORCE") && !strstr(err.msg, "--"));
	int64_t fit = region_fit_radius(g, &s);
	region_spec t = s;
	t.radius = fit;
	r = region_select(g, &t, &err);
	CHECK("fit radius fits", fit >= 0 && fit < 40 && r && r->n_nodes <= 500);
	region_free(r);
	t.radius = fit + 1;
	hs_error_clear(&err);
	r = region_select(g, &t, &err);
	CHECK("fit radius + 1 does not", !r && err.status == HS_EUSAGE);
	s.force = 1;
	r = region_select(g, &s, &err);
	CHECK("force lifts the limit", r && r->n_nodes > 500);
	region_free(r);
	s.force = 0;
	s.limit = 0;
	hs_error_clear(&err);
	r = region_select(g, &s, &err);
	/* unet3d's skip connections: 2,191 nodes whose edges cross 338,132
	 * ranks, 465 s of Graphviz even bounded: the work budget refuses */
	CHECK("limit 0 lifts the node limit, not the work budget", !r && err.status == HS_EUSAGE &&
	      strstr(err.msg, "Graphviz would take long") && strstr(err.msg, "(a smaller RADIUS) or use FORCE"));
	s.max_work = INT64_MAX;
	r = region_select(g, &s, &err);
	CHECK("limit 0 means none", r && r->n_nodes > 500 && r->work.total > 20000);
	region_free(r);
	/* The fit radius keeps within the work budget too. */
	s.max_work = 0;
	fit = region_fit_radius(g, &s);
	t = s;
	t.radius = fit;
	r = region_select(g, &t, &err);
	CHECK("fit radius fits the work budget", fit >= 0 && fit < 40 && r &&
	      r->work.total <= REGION_DEFAULT_WORK);
	region_free(r);
	t.radius = fit + 1;
	hs_error_clear(&err);
	r = region_select(g, &t, &err);
	CHECK("fit radius + 1 is over the work budget", !r && strstr(err.msg, "Graphviz would take long"));
	region_free(r);

	/* Errors. */
	region_spec_init(&s);
	s.center = g->n_nodes;
	hs_error_clear(&err);
	CHECK("center out of range", !region_select(g, &s, &err) && err.status == HS_EUSAGE &&
	      strstr(err.msg, "out of range") && strstr(err.msg, "2774 nodes"));
	s.center = -1;
	CHECK("negative center", !region_select(g, &s, &err) && err.status == HS_EUSAGE);
	s.center = 5;
	s.radius = -1;
	hs_error_clear(&err);
	CHECK("negative radius", !region_select(g, &s, &err) && err.status == HS_EUSAGE &&
	      strstr(err.msg, "radius"));
	s.radius = 1;
	s.dir = (region_dir)7;
	CHECK("bad direction", !region_select(g, &s, &err) && err.status == HS_EUSAGE);
	CHECK("fit radius of a bad spec is -1", region_fit_radius(g, &s) == -1);
	CHECK("dir names round trip", region_dir_parse("users") == REGION_USERS &&
	      region_dir_parse("both") == REGION_BOTH && region_dir_parse("up") == -1 &&
	      !strcmp(region_dir_name(REGION_OPERANDS), "operands"));
}

/* A node is on a path from a to b (a consumes ... b) iff reachable from a
 * along operands and b is reachable from it along operands. */
static void test_path(hs_graph *tile)
{
	region_spec s;
	hs_error err = {0};
	region *r;

	region_spec_init(&s);
	s.kind = REGION_PATH;
	s.from = 64;
	s.to = 2;
	r = region_select(tile, &s, &err);
	int64_t *da = oracle_depths(tile, 64, REGION_OPERANDS, tile->n_nodes);
	int64_t *db = oracle_depths(tile, 2, REGION_USERS, tile->n_nodes);
	int64_t count = 0, ok = 1;
	for (int64_t v = 0; v < tile->n_nodes; v++) {
		int on = da[v] >= 0 && db[v] >= 0;
		count += on;
		ok &= !r || on == (region_index_of(r, v) >= 0);
	}
	CHECK("path holds exactly the nodes on paths", r && ok && r->n_nodes == count &&
	      count == 5 && !r->truncated);
	CHECK("path edges are induced", r && edges_valid(tile, r) &&
	      r->n_edges == oracle_induced_edges(tile, r));
	CHECK("path ends are focused", r && r->focus == 64 && r->focus2 == 2);
	region_free(r);

	/* Either order works. */
	s.from = 2;
	s.to = 64;
	r = region_select(tile, &s, &err);
	CHECK("path in the other order", r && r->n_nodes == count);
	region_free(r);

	/* Capped: the shortest paths 64-51-44-2 and 64-51-50-2 make 5 nodes;
	 * a cap of 4 keeps one of them (smallest id at each fork). */
	s.from = 64;
	s.to = 2;
	s.max_nodes = 4;
	r = region_select(tile, &s, &err);
	CHECK("cap under every shortest path keeps one shortest path",
	      r && r->n_nodes == 4 && r->n_edges == 3 && r->truncated && r->omitted == 1 &&
	      region_index_of(r, 44) >= 0 && region_index_of(r, 50) < 0);
	region_free(r);
	s.max_nodes = 3;
	hs_error_clear(&err);
	CHECK("cap below the shortest path is an error", !region_select(tile, &s, &err) &&
	      err.status == HS_EUSAGE && strstr(err.msg, "shortest path"));

	s.max_nodes = 0;
	s.from = s.to = 7;
	r = region_select(tile, &s, &err);
	CHECK("path from a node to itself", r && r->n_nodes == 1 && r->n_edges == 0);
	region_free(r);

	s.from = 0;
	s.to = 1; /* two operands of node 2: neither depends on the other */
	hs_error_clear(&err);
	CHECK("no path is a usage error", !region_select(tile, &s, &err) &&
	      err.status == HS_EUSAGE && strstr(err.msg, "no path"));
	s.to = 65;
	CHECK("path end out of range", !region_select(tile, &s, &err) && err.status == HS_EUSAGE);
	free(da);
	free(db);
}

static void test_other_kinds(hs_graph *unet, hs_graph *rnn, hs_graph *tile)
{
	region_spec s;
	hs_error err = {0};
	region *r;

	region_spec_init(&s);
	s.kind = REGION_COMPUTATION;
	s.comp = 1;
	s.limit = 1000;
	r = region_select(unet, &s, &err);
	CHECK("computation is its node_splits segment",
	      r && r->n_nodes == unet->comp_start[2] - unet->comp_start[1] &&
	      r->nodes[0] == unet->comp_start[1] && sorted_unique(r) &&
	      r->n_edges == oracle_induced_edges(unet, r) && edges_valid(unet, r));
	region_free(r);
	s.limit = 500;
	s.comp = 0;
	hs_error_clear(&err);
	CHECK("computation 0 (2314 nodes) over the limit", !region_select(unet, &s, &err) &&
	      strstr(err.msg, "2314 nodes"));
	s.comp = 9;
	hs_error_clear(&err);
	CHECK("unknown split", !region_select(unet, &s, &err) &&
	      err.status == HS_EUSAGE && strstr(err.msg, "unknown split 9"));
	s.comp = -1;
	CHECK("negative split", !region_select(unet, &s, &err));

	/* A real computation by name: its own nodes, its callees as boxes. */
	int64_t c62 = graph_find_hcomp(unet, "computation.62");
	int64_t entry = graph_find_hcomp(unet, "entry");
	CHECK("computations by name", c62 == 62 && entry == unet->entry &&
	      graph_find_hcomp(unet, "computation.99") < 0 && graph_find_hcomp(unet, "") < 0);
	s.hcomp = c62;
	r = region_select(unet, &s, &err);
	CHECK("computation.62: its 4 nodes, nothing called",
	      r && r->n_nodes == 4 && r->nodes[0] == unet->hcomps[62].first && r->n_boxes == 0 &&
	      r->n_edges == oracle_induced_edges(unet, r) && strstr(r->title, "computation.62 ("));
	region_free(r);
	s.hcomp = entry;
	r = region_select(unet, &s, &err);
	CHECK("entry: its nodes, the while body and condition as boxes",
	      r && r->n_nodes == unet->hcomps[entry].count && r->n_boxes == 2 &&
	      r->collapsed == unet->hcomps[61].count + unet->hcomps[62].count);
	region_free(r);
	s.expand = "computation.62";
	r = region_select(unet, &s, &err);
	CHECK("entry, condition expanded", r && r->n_boxes == 1 && r->boxes[0].comp == 61 &&
	      r->n_nodes == unet->hcomps[entry].count + 4);
	region_free(r);
	s.expand = "computation.61";
	hs_error_clear(&err);
	CHECK("entry, body expanded: its reducers come too, over the limit",
	      !region_select(unet, &s, &err) && strstr(err.msg, "draws "));
	s.expand = NULL;
	s.hcomp = unet->n_hcomps;
	CHECK("computation index out of range", !region_select(unet, &s, &err));
	s.hcomp = -1;

	static const int64_t ids[] = {30, 31, 30, 28, 32, 29};
	region_spec_init(&s);
	s.kind = REGION_NODES;
	s.ids = ids;
	s.n_ids = 6;
	r = region_select(tile, &s, &err);
	CHECK("node set dedups and sorts", r && r->n_nodes == 5 && sorted_unique(r) &&
	      r->nodes[0] == 28 && r->nodes[4] == 32);
	CHECK("node set edges are induced", r && edges_valid(tile, r) &&
	      r->n_edges == oracle_induced_edges(tile, r));
	region_free(r);
	static const int64_t bad[] = {3, 65};
	s.ids = bad;
	s.n_ids = 2;
	hs_error_clear(&err);
	CHECK("node set id out of range", !region_select(tile, &s, &err) &&
	      strstr(err.msg, "65 is out of range"));
	s.n_ids = 0;
	CHECK("empty node set", !region_select(tile, &s, &err));

	region_spec_init(&s);
	s.kind = REGION_CONFIGURABLE;
	r = region_select(rnn, &s, &err);
	int all = r != NULL;
	for (int64_t k = 0; r && k < rnn->n_cfg_nodes; k++)
		all &= region_index_of(r, rnn->cfg_node_ids[k]) >= 0;
	CHECK("configurable region holds every configurable node", all);
	int64_t expect = 0;
	uint8_t *in = calloc((size_t)rnn->n_nodes, 1);
	for (int64_t k = 0; k < rnn->n_cfg_nodes; k++)
		in[rnn->cfg_node_ids[k]] = 1;
	uint8_t *nb = calloc((size_t)rnn->n_nodes, 1);
	for (int64_t e = 0; e < rnn->n_edges; e++) {
		int64_t u = rnn->edges[e][0], v = rnn->edges[e][1];
		if (in[u] || in[v])
			nb[u] = nb[v] = 1;
	}
	for (int64_t v = 0; v < rnn->n_nodes; v++)
		expect += nb[v] || in[v];
	CHECK("configurable region adds exactly the immediate neighbours",
	      r && r->n_nodes == expect && expect == 189);
	free(in);
	free(nb);
	region_free(r);
	hs_error_clear(&err);
	CHECK("configurable on a tile graph is an error", !region_select(tile, &s, &err) &&
	      strstr(err.msg, "tile graph"));
}

/* ---- DOT round trip --------------------------------------------------- */

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	fclose(f);
	if (n)
		*n = (size_t)len;
	return buf;
}

static void roundtrip(const char *name, const region *r, const dot_opts *o, int extra_nodes)
{
	hs_error err = {0};
	char path[1200], label[160];
	Agraph_t *G = dot_build(r, o, &err), *back;
	char *text;

	snprintf(path, sizeof path, "%s/%s.dot", scratch, name);
	snprintf(label, sizeof label, "%s: builds", name);
	CHECK(label, G != NULL);
	if (!G)
		return;
	snprintf(label, sizeof label, "%s: graph has the region's nodes and edges", name);
	CHECK(label, agnnodes(G) == r->n_nodes + r->n_more + r->n_fanin + r->n_boxes + extra_nodes &&
	      agnedges(G) == r->n_edges + r->n_more + r->n_fanin + r->n_links);
	snprintf(label, sizeof label, "%s: written", name);
	CHECK(label, dot_write(G, path, "dot", NULL, &err) == 0);
	text = slurp(path, NULL);
	back = text ? agmemread(text) : NULL;
	snprintf(label, sizeof label, "%s: agmemread gives the same counts", name);
	CHECK(label, back && agnnodes(back) == agnnodes(G) && agnedges(back) == agnedges(G));
	if (back) {
		int ok = 1;
		/* every edge goes operand -> user */
		for (int64_t k = 0; k < r->n_edges && ok; k++) {
			char t[32], h[32];
			snprintf(t, sizeof t, "n%" PRId64, r->edges[k][1]);
			snprintf(h, sizeof h, "n%" PRId64, r->edges[k][0]);
			Agnode_t *tn = agnode(back, t, 0), *hn = agnode(back, h, 0);
			ok = tn && hn && agedge(back, tn, hn, NULL, 0) != NULL;
		}
		snprintf(label, sizeof label, "%s: edges run operand -> user", name);
		CHECK(label, ok);
		agclose(back);
	}
	free(text);
	agclose(G);
}

static void test_dot(hs_graph *unet, hs_graph *rnn, hs_graph *tile)
{
	region_spec s;
	dot_opts o;
	hs_error err = {0};
	region *r;

	dot_opts_init(&o);
	region_spec_init(&s);
	s.center = 1026;
	s.radius = 2;
	r = region_select(unet, &s, &err);
	roundtrip("around", r, &o, 0);

	/* Determinism: two builds give the same bytes. */
	char p1[1200], p2[1200];
	snprintf(p1, sizeof p1, "%s/det1.dot", scratch);
	snprintf(p2, sizeof p2, "%s/det2.dot", scratch);
	dot_export(r, &o, p1, "dot", NULL, &err);
	dot_export(r, &o, p2, "dot", NULL, &err);
	char *a = slurp(p1, NULL), *b = slurp(p2, NULL);
	CHECK("DOT output is deterministic", a && b && !strcmp(a, b));
	CHECK("DOT has rankdir TB, clusters, placeholder and focus",
	      a && strstr(a, "rankdir=TB") && strstr(a, "subgraph cluster_61") &&
	      strstr(a, "computation.61 (while-body)") &&
	      strstr(a, "20 more users") && strstr(a, "#d62728") &&
	      strstr(a, "f32[3,3,3,1,32]{4,3,2,1,0}"));
	free(a);
	free(b);

	/* Heat adds a legend node; highlight marks nodes. */
	double *heat = malloc((size_t)unet->n_nodes * sizeof *heat);
	for (int64_t i = 0; i < unet->n_nodes; i++)
		heat[i] = (double)i;
	heat[1027] = NAN;
	int64_t hl[] = {1024};
	o.heat = heat;
	o.heat_name = "node id";
	o.highlight = hl;
	o.n_highlight = 1;
	roundtrip("heat", r, &o, 1);
	snprintf(p1, sizeof p1, "%s/heat.dot", scratch);
	a = slurp(p1, NULL);
	CHECK("heat DOT has a legend and the highlight color",
	      a && strstr(a, "legend") && strstr(a, "<TABLE") && strstr(a, "#1f77b4") &&
	      strstr(a, "node id = n/a"));
	free(a);
	free(heat);
	region_free(r);

	dot_opts_init(&o);
	region_spec_init(&s);
	s.kind = REGION_PATH;
	s.from = 64;
	s.to = 2;
	r = region_select(tile, &s, &err);
	roundtrip("path", r, &o, 0);
	snprintf(p1, sizeof p1, "%s/path.dot", scratch);
	a = slurp(p1, NULL);
	CHECK("a path collapses nothing and clusters by computation",
	      r && r->n_boxes == 0 && a && strstr(a, "computation.3 (fusion)") &&
	      strstr(a, "computation.0 (reducer)") && strstr(a, "entry (entry)"));
	free(a);
	region_free(r);

	region_spec_init(&s);
	s.kind = REGION_CONFIGURABLE;
	r = region_select(rnn, &s, &err);
	roundtrip("configurable", r, &o, 0);
	snprintf(p1, sizeof p1, "%s/configurable.dot", scratch);
	a = slurp(p1, NULL);
	CHECK("configurable nodes are marked", a && strstr(a, "[cfg]") && strstr(a, "peripheries=2"));
	free(a);
	o.terminal = 1;
	roundtrip("cells", r, &o, 0);
	region_free(r);

	region_spec_init(&s);
	s.kind = REGION_COMPUTATION;
	s.comp = 1;
	r = region_select(rnn, &s, &err);
	dot_opts_init(&o);
	roundtrip("computation", r, &o, 0);
	region_free(r);

	/* Called computations collapse into boxes; large fan-in into one
	 * placeholder.  Around unet3d's get-tuple-element 2772: the while 2546
	 * calls its body (computation.61, 2127 nodes) and condition
	 * (computation.62), whose roots the region reaches; the entry's root,
	 * the tuple 2773, has 224 operands, one of them 2772. */
	region_spec_init(&s);
	s.center = 2772;
	s.radius = 2;
	r = region_select(unet, &s, &err);
	CHECK("called computations are boxes", r && r->n_boxes == 2 && r->boxes[0].comp == 61 &&
	      r->boxes[1].comp == 62 && r->collapsed == 2 && r->n_links == 2 &&
	      region_index_of(r, 2546) >= 0 && r->links[0][0] == 2546 &&
	      REGION_IS_BOX(r->links[0][1]));
	CHECK("fan-in is one placeholder", r && r->n_fanin == 1 && r->fanin[0].owner == 2773 &&
	      r->fanin[0].hidden == 223);
	roundtrip("boxes", r, &o, 0);
	snprintf(p1, sizeof p1, "%s/boxes.dot", scratch);
	a = slurp(p1, NULL);
	CHECK("boxes carry name, role and size", a && strstr(a, "computation.61\\nwhile-body, 2127 nodes") &&
	      strstr(a, "223 more operands"));
	free(a);
	region_free(r);
	s.expand = "all";
	r = region_select(unet, &s, &err);
	CHECK("--expand all collapses nothing", r && r->n_boxes == 0 && r->n_links == 0 &&
	      region_index_of(r, 2313) >= 0);
	region_free(r);
	s.expand = "computation.62";
	r = region_select(unet, &s, &err);
	CHECK("--expand NAME draws that one", r && r->n_boxes == 1 && r->boxes[0].comp == 61);
	region_free(r);
	s.expand = "computation.99,nope";
	hs_error_clear(&err);
	r = region_select(unet, &s, &err);
	CHECK("--expand of an unknown name fails", !r && err.status == HS_EUSAGE &&
	      strstr(err.msg, "no computation named 'computation.99'"));

	/* Formats and paths. */
	CHECK("format from extension", !strcmp(dot_format_for_path("a/b.svg"), "svg") &&
	      !strcmp(dot_format_for_path("x.PNG"), "png") &&
	      !strcmp(dot_format_for_path("x.gv"), "dot") && !dot_format_for_path("x.pdf") &&
	      !dot_format_for_path("dir.svg/x") && !dot_format_for_path("noext"));
	CHECK("known formats", dot_format_known("png") && !dot_format_known("pdf") &&
	      !dot_format_known(NULL));

	region_spec_init(&s);
	s.center = 30;
	s.radius = 1;
	r = region_select(tile, &s, &err);
	Agraph_t *G = dot_build(r, NULL, &err);
	char bad[1200];
	snprintf(bad, sizeof bad, "%s/no/such/dir/x.svg", scratch);
	hs_error_clear(&err);
	CHECK("unwritable folder is bad data, as every file that cannot be written (base/afile.h)",
	      dot_write(G, bad, "svg", NULL, &err) == -1 && err.status == HS_EDATA &&
	      strstr(err.msg, "No such file"));
	snprintf(bad, sizeof bad, "%s/adir", scratch);
	mkdir(bad, 0755);
	hs_error_clear(&err);
	CHECK("a folder as output is an error", dot_write(G, bad, "dot", NULL, &err) == -1 &&
	      err.msg[0]);
	hs_error_clear(&err);
	snprintf(p1, sizeof p1, "%s/x.pdf", scratch);
	CHECK("unknown format is refused", dot_write(G, p1, "pdf", NULL, &err) == -1 &&
	      err.status == HS_EUSAGE && access(p1, F_OK) != 0);
	/* SVG and PNG render in process. */
	snprintf(p1, sizeof p1, "%s/x.svg", scratch);
	CHECK("svg export", dot_write(G, p1, "svg", NULL, &err) == 0);
	a = slurp(p1, NULL);
	CHECK("svg has the nodes", a && strstr(a, "<svg") && strstr(a, ">30: parameter<"));
	free(a);
	snprintf(p1, sizeof p1, "%s/x.png", scratch);
	size_t n = 0;
	CHECK("png export", dot_write(G, p1, "png", NULL, &err) == 0);
	a = slurp(p1, &n);
	CHECK("png signature", a && n > 24 && !memcmp(a, "\x89PNG\r\n\x1a\n", 8));
	free(a);
	/* the graph survives rendering: DOT after PNG is still font Helvetica */
	snprintf(p1, sizeof p1, "%s/after.dot", scratch);
	dot_write(G, p1, "dot", NULL, &err);
	a = slurp(p1, NULL);
	CHECK("png export leaves the graph as it was", a && strstr(a, "Helvetica") &&
	      !strstr(a, "DejaVu") && !strstr(a, "pos="));
	free(a);
	agclose(G);
	region_free(r);

	/* No temporary files left behind by failures or successes. */
	DIR *d = opendir(scratch);
	int tmp = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		tmp += strstr(de->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	CHECK("no temporary files left", tmp == 0);
}

/* ---- heat scale ------------------------------------------------------- */

static void test_heat(void)
{
	double v[] = {1e-6, 1e-5, 1e-3, 1e-1, NAN, 0.0};
	dot_heat_scale s;

	dot_heat_scale_of(v, NULL, 4, -1, &s);
	CHECK("auto picks log for 5 decades", s.any && s.log && s.lo == 1e-6 && s.hi == 1e-1);
	CHECK("log bins span the range", dot_heat_bin(&s, 1e-6) == 0 &&
	      dot_heat_bin(&s, 1e-1) == DOT_HEAT_BINS - 1);
	int mono = 1;
	for (double x = 1e-6; x < 0.1; x *= 1.7)
		mono &= dot_heat_bin(&s, x) <= dot_heat_bin(&s, x * 1.7);
	CHECK("bins are monotone", mono);
	CHECK("NaN has no bin", dot_heat_bin(&s, NAN) == -1);
	CHECK("bin edges", fabs(dot_heat_edge(&s, 0) - 1e-6) < 1e-12 &&
	      dot_heat_edge(&s, DOT_HEAT_BINS) == 1e-1);
	dot_heat_scale_of(v, NULL, 6, 0, &s);
	CHECK("linear when asked; zero is the low end", !s.log && s.lo == 0.0 &&
	      dot_heat_bin(&s, 0.0) == 0 && dot_heat_bin(&s, 0.05) == 4);
	dot_heat_scale_of(v + 4, NULL, 1, -1, &s);
	CHECK("all NaN: no scale", !s.any && dot_heat_bin(&s, 1.0) == -1);
	double c[] = {3, 3, 3};
	dot_heat_scale_of(c, NULL, 3, -1, &s);
	CHECK("constant values share bin 0", dot_heat_bin(&s, 3) == 0);
	CHECK("heat fills", !strcmp(dot_heat_fill(0), "#ffffcc") &&
	      !strcmp(dot_heat_fill(-1), "#d9d9d9"));
}

/* ---- layout and canvas ------------------------------------------------ */

static int boxes_overlap(const hs_layout *L)
{
	for (int32_t i = 0; i < L->n_nodes; i++)
		for (int32_t j = i + 1; j < L->n_nodes; j++) {
			int a[4], b[4];
			canvas_node_box(L, i, &a[0], &a[1], &a[2], &a[3]);
			canvas_node_box(L, j, &b[0], &b[1], &b[2], &b[3]);
			if (a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] &&
			    b[1] < a[1] + a[3])
				return 1;
		}
	return 0;
}

static void test_layout(hs_graph *unet, hs_graph *tile)
{
	region_spec s;
	hs_error err = {0};
	region *r;
	hs_layout *L;

	region_spec_init(&s);
	s.center = 1026;
	s.radius = 2;
	r = region_select(unet, &s, &err);
	L = layout_region(r, NULL, &err);
	CHECK("layout runs", L != NULL);
	if (!L)
		return;
	CHECK("layout has region nodes then placeholders",
	      L->n_nodes == r->n_nodes + r->n_more && L->n_edges == r->n_edges + r->n_more &&
	      (L->nodes[L->n_nodes - 1].flags & LAY_PLACEHOLDER) &&
	      L->nodes[L->n_nodes - 1].hidden == 20);
	CHECK("layout_find", layout_find(L, 1026) >= 0 &&
	      L->nodes[layout_find(L, 1026)].id == 1026 && layout_find(L, 5) == -1 &&
	      (L->nodes[layout_find(L, 1026)].flags & LAY_FOCUS));
	int sizes = 1, inside = 1, splines = 1;
	for (int32_t i = 0; i < L->n_nodes; i++) {
		const lay_node *n = &L->nodes[i];
		double cols = n->w / LAYOUT_CELL_W, rows = n->h / LAYOUT_CELL_H;
		sizes &= fabs(cols - round(cols)) < 0.05 && fabs(rows - LAYOUT_NODE_ROWS) < 0.05;
		inside &= n->x - n->w / 2 >= -0.5 && n->x + n->w / 2 <= L->width + 0.5 &&
			  n->y - n->h / 2 >= -0.5 && n->y + n->h / 2 <= L->height + 0.5;
	}
	for (int32_t i = 0; i < L->n_edges; i++) {
		const lay_edge *e = &L->edges[i];
		splines &= e->n_pts >= 4 && (e->n_pts - 1) % 3 == 0;
		/* operands are drawn above their users (rankdir TB) */
		splines &= L->nodes[e->tail].y < L->nodes[e->head].y;
	}
	CHECK("boxes are whole cells", sizes);
	CHECK("boxes lie inside the drawing", inside);
	CHECK("edges are B-splines going down", splines);
	CHECK("boxes do not overlap", !boxes_overlap(L));
	CHECK("one cluster per computation touched", L->n_clusters == 1 &&
	      L->clusters[0].comp == 61 && !strcmp(L->clusters[0].label, "computation.61 (while-body)"));

	/* Canvas. */
	int W, H;
	canvas_extent(L, &W, &H);
	canvas *cv = canvas_new(W, H);
	canvas_draw(cv, L, 0, 0, layout_find(L, 1027));
	char *text = canvas_text(cv);
	CHECK("drawing shows every label", text && strstr(text, "1026 broadcast") &&
	      strstr(text, "1027 multiply") && strstr(text, "20 more users") &&
	      strstr(text, "f32[3,3,3,1,32]{4,3,2,1,0}") && strstr(text, "computation.61"));
	int arrows = 0;
	for (int i = 0; i < W * H; i++)
		arrows += cv->cells[i].ch == L'▼';
	CHECK("one arrowhead per edge here", arrows == L->n_edges);
	int32_t cur = layout_find(L, 1027);
	int bx, by, bw, bh;
	canvas_node_box(L, cur, &bx, &by, &bw, &bh);
	canvas_cell *k = canvas_at(cv, bx + 2, by + 1);
	CHECK("cursor node is reversed and filled", k && (k->attr & CANVAS_A_REVERSE) &&
	      (k->attr & CANVAS_A_FILL) && k->color == CANVAS_C_CATEGORY + HLO_CAT_ELEMENTWISE);
	int32_t f = layout_find(L, 1026);
	canvas_node_box(L, f, &bx, &by, &bw, &bh);
	CHECK("focus node has a heavy frame", canvas_at(cv, bx, by)->ch == L'┏' &&
	      canvas_at(cv, bx, by)->color == CANVAS_C_FOCUS);
	CHECK("canvas_node_at finds boxes", canvas_node_at(L, bx + 1, by + 1) == f &&
	      canvas_node_at(L, -5, -5) == -1);
	CHECK("canvas_at outside is NULL", !canvas_at(cv, W, 0) && !canvas_at(cv, -1, 0));
	free(text);

	/* Panning: a window at (x0, y0) equals the same part of the full drawing. */
	canvas *win = canvas_new(20, 8);
	canvas_draw(win, L, 10, 12, layout_find(L, 1027));
	int same = 1;
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 20; x++) {
			canvas_cell *full = canvas_at(cv, x + 10, y + 12);
			canvas_cell *part = canvas_at(win, x, y);
			same &= full ? full->ch == part->ch && full->color == part->color
				     : part->ch == L' ';
		}
	CHECK("a panned window matches the full drawing", same);
	canvas_free(win);
	/* Bands of 5 rows written one after the other give the full text. */
	char *full = canvas_text(cv);
	char *joined = calloc(strlen(full) + 1, 1);
	canvas *band = canvas_new(W, 5);
	for (int y0 = 0; y0 < H; y0 += 5) {
		if (H - y0 < 5) {
			canvas_free(band);
			band = canvas_new(W, H - y0);
		}
		canvas_draw(band, L, 0, y0, layout_find(L, 1027));
		char *part = canvas_text(band);
		if (strlen(joined) + strlen(part) <= strlen(full))
			strcat(joined, part);
		free(part);
	}
	CHECK("bands of rows join into the full drawing", !strcmp(full, joined));
	FILE *mem = tmpfile();
	canvas_write(cv, mem);
	long wrote = ftell(mem);
	CHECK("canvas_write writes canvas_text's bytes", wrote == (long)strlen(full));
	fclose(mem);
	free(full);
	free(joined);
	canvas_free(band);
	canvas_free(cv);

	/* Navigation. */
	int32_t m = layout_find(L, 1027), down = canvas_nearest(L, m, CANVAS_DOWN);
	CHECK("down from 1027 is 1028", down == layout_find(L, 1028));
	CHECK("up from 1027 is one of its operands", canvas_nearest(L, m, CANVAS_UP) >= 0 &&
	      L->nodes[canvas_nearest(L, m, CANVAS_UP)].y < L->nodes[m].y);
	CHECK("nothing below the bottom node", canvas_nearest(L, down, CANVAS_DOWN) == -1);
	int32_t left = canvas_nearest(L, layout_find(L, 1024), CANVAS_LEFT);
	CHECK("left moves left", left >= 0 && L->nodes[left].x < L->nodes[layout_find(L, 1024)].x);
	CHECK("bad start has no neighbour", canvas_nearest(L, -1, CANVAS_UP) == -1 &&
	      canvas_nearest(L, L->n_nodes, CANVAS_UP) == -1);
	int x0 = 0, y0 = 0;
	canvas_view_show(L, down, 30, 6, 0, &x0, &y0);
	canvas_node_box(L, down, &bx, &by, &bw, &bh);
	CHECK("view scrolls a node into view", by >= y0 && by + bh <= y0 + 6 && bx >= x0);
	canvas_view_show(L, down, 10, 6, 1, &x0, &y0);
	CHECK("centering keeps the view over the drawing", x0 >= 0 && y0 >= 0 && y0 <= H - 6);
	x0 = -50;
	y0 = 100000;
	canvas_view_clamp(L, 10, 6, &x0, &y0);
	CHECK("clamp", x0 == 0 && y0 == H - 6);
	x0 = 3;
	canvas_view_clamp(L, W + 50, 6, &x0, &y0);
	CHECK("clamp when the view is wider than the drawing", x0 == 0);
	layout_free(L);
	region_free(r);

	/* Heat reaches the layout; the canvas shows levels. */
	region_spec_init(&s);
	s.kind = REGION_PATH;
	s.from = 64;
	s.to = 2;
	r = region_select(tile, &s, &err);
	double *heat = malloc((size_t)tile->n_nodes * sizeof *heat);
	for (int64_t i = 0; i < tile->n_nodes; i++)
		heat[i] = (double)i;
	dot_opts o;
	dot_opts_init(&o);
	o.heat = heat;
	L = layout_region(r, &o, &err);
	CHECK("heat bins in the layout", L && L->heat &&
	      L->nodes[layout_find(L, 2)].heat == 0 &&
	      L->nodes[layout_find(L, 64)].heat == DOT_HEAT_BINS - 1);
	if (L) {
		canvas_extent(L, &W, &H);
		cv = canvas_new(W, H);
		canvas_draw(cv, L, 0, 0, -1);
		text = canvas_text(cv);
		CHECK("heat levels in the top border", text && strstr(text, "▁") && strstr(text, "█"));
		free(text);
		canvas_free(cv);
	}
	layout_free(L);
	free(heat);
	region_free(r);
	CHECK("canvas_new refuses silly sizes", !canvas_new(0, 5) && !canvas_new(5, -1));
	CHECK("colors", !strcmp(canvas_color_rgb(CANVAS_C_CATEGORY + HLO_CAT_PARAMETER),
				palette_fill(HLO_CAT_PARAMETER)) &&
	      !strcmp(canvas_color_rgb(CANVAS_C_HEAT + 7), dot_heat_fill(7)));
}

static void test_cache(hs_graph *tile)
{
	region_spec s;
	hs_error err = {0};
	layout_cache *c = layout_cache_new(2);
	region *r1, *r2, *r3;
	long hits, misses;

	region_spec_init(&s);
	s.center = 30;
	r1 = region_select(tile, &s, &err);
	s.center = 40;
	r2 = region_select(tile, &s, &err);
	s.center = 50;
	r3 = region_select(tile, &s, &err);
	const hs_layout *a = layout_cache_get(c, r1, NULL, &err);
	const hs_layout *b = layout_cache_get(c, r1, NULL, &err);
	layout_cache_stats(c, &hits, &misses);
	CHECK("second get is a hit", a && a == b && hits == 1 && misses == 1);
	layout_cache_get(c, r2, NULL, &err);
	layout_cache_get(c, r1, NULL, &err); /* r1 most recent */
	layout_cache_get(c, r3, NULL, &err); /* evicts r2 */
	layout_cache_stats(c, &hits, &misses);
	CHECK("lru keeps the recent", hits == 2 && misses == 3);
	layout_cache_get(c, r1, NULL, &err);
	layout_cache_get(c, r2, NULL, &err);
	layout_cache_stats(c, &hits, &misses);
	CHECK("evicted layout is recomputed", hits == 3 && misses == 4);
	double *heat = calloc((size_t)tile->n_nodes, sizeof *heat);
	dot_opts o;
	dot_opts_init(&o);
	o.heat = heat;
	layout_cache_get(c, r2, &o, &err);
	layout_cache_stats(c, &hits, &misses);
	CHECK("options are part of the key", misses == 5);
	free(heat);
	layout_cache_free(c);
	layout_cache_stats(NULL, &hits, &misses);
	CHECK("stats of no cache", hits == 0 && misses == 0);
	region_free(r1);
	region_free(r2);
	region_free(r3);
}

/* `test_render --count FILE...` prints "FILE NODES EDGES" for each DOT file
 * as agmemread reads it (used by tests/suites/render_dot.sh). */
static int count_mode(int argc, char **argv)
{
	int rc = 0;

	for (int i = 2; i < argc; i++) {
		char *text = slurp(argv[i], NULL);
		Agraph_t *g = text ? agmemread(text) : NULL;
		if (!g) {
			printf("%s unreadable\n", argv[i]);
			rc = 1;
		} else {
			printf("%s %d %d\n", argv[i], agnnodes(g), agnedges(g));
			agclose(g);
		}
		free(text);
	}
	return rc;
}

/* Width and height of a PNG from its IHDR chunk; 0 when it is not one. */
static int png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t n = 0;
	unsigned char *a = (unsigned char *)slurp(path, &n);
	int ok = a && n >= 24 && !memcmp(a, "\x89PNG\r\n\x1a\n", 8) && !memcmp(a + 12, "IHDR", 4);

	if (ok) {
		*w = (unsigned)a[16] << 24 | (unsigned)a[17] << 16 | (unsigned)a[18] << 8 | a[19];
		*h = (unsigned)a[20] << 24 | (unsigned)a[21] << 16 | (unsigned)a[22] << 8 | a[23];
	}
	free(a);
	return ok;
}

/* A made-up graph: a star of `fan` users under one node, or a chain of
 * `chain` nodes, labelled like region nodes. */
static Agraph_t *made_up(int fan, int chain)
{
	Agraph_t *G = agopen("made_up", Agdirected, NULL);
	char name[32], label[96];

	agattr(G, AGNODE, "shape", "box");
	agattr(G, AGNODE, "label", "\\N");
	agattr(G, AGRAPH, "rankdir", "TB");
	Agnode_t *root = agnode(G, "root", 1), *prev = root;
	for (int i = 0; i < fan + chain; i++) {
		snprintf(name, sizeof name, "n%d", i);
		Agnode_t *n = agnode(G, name, 1);
		snprintf(label, sizeof label, "%d: get-tuple-element\\nbf16[2,128,128,128,64]{4,3,2,1,0}", i);
		agset(n, "label", label);
		agedge(G, i < fan ? root : prev, n, NULL, 1);
		if (i >= fan)
			prev = n;
	}
	return G;
}

/* PNG sides stay within DOT_PNG_MAX_PX: a wide star is drawn left to right
 * at full size, a long chain scaled; SVG keeps the full size. */
static void test_fit(void)
{
	hs_error err = {0};
	char p[1200], text[600];
	unsigned w = 0, h = 0;
	dot_fit fit;

	Agraph_t *G = made_up(300, 0);
	snprintf(p, sizeof p, "%s/star.png", scratch);
	CHECK("fit: wide star written", dot_write(G, p, "png", &fit, &err) == 0);
	CHECK("fit: the star is over the limit top to bottom", fit.tried &&
	      fit.full_w > DOT_PNG_MAX_PX);
	CHECK("fit: the star is drawn left to right at full size", fit.left_right && fit.scale == 1);
	CHECK("fit: the star's PNG fits (IHDR)", png_size(p, &w, &h) && w <= DOT_PNG_MAX_PX &&
	      h <= DOT_PNG_MAX_PX && w == (unsigned)fit.w && h == (unsigned)fit.h);
	dot_fit_text(&fit, "star.png", text, sizeof text);
	CHECK("fit: the star's account", strstr(text, "star.png: ") && strstr(text, "over the 16000 px limit") &&
	      strstr(text, "drawn left to right") && strstr(text, ".svg"));
	snprintf(p, sizeof p, "%s/star.svg", scratch);
	CHECK("fit: SVG is never changed", dot_write(G, p, "svg", &fit, &err) == 0 && !fit.tried &&
	      fit.scale == 1);
	char *svg = slurp(p, NULL);
	CHECK("fit: SVG keeps the top-to-bottom full size", svg && strstr(svg, "<svg width=\"") &&
	      atof(strstr(svg, "<svg width=\"") + 12) * DOT_PNG_DPI / 72 > DOT_PNG_MAX_PX);
	free(svg);
	/* the graph is as it was: top to bottom, no viewport */
	snprintf(p, sizeof p, "%s/star.dot", scratch);
	dot_write(G, p, "dot", NULL, &err);
	svg = slurp(p, NULL);
	CHECK("fit: the graph keeps its attributes", svg && strstr(svg, "rankdir=TB") &&
	      !strstr(svg, "rankdir=LR") && !strstr(svg, "viewport=\"0") && !strstr(svg, "pos="));
	free(svg);
	agclose(G);

	G = made_up(0, 400);
	snprintf(p, sizeof p, "%s/chain.png", scratch);
	CHECK("fit: long chain written", dot_write(G, p, "png", &fit, &err) == 0);
	CHECK("fit: the chain is scaled down", fit.tried && fit.scale < 1 && fit.scale > 0.2);
	CHECK("fit: the chain's PNG fits, no smaller than it must (IHDR)", png_size(p, &w, &h) &&
	      w <= DOT_PNG_MAX_PX && h <= DOT_PNG_MAX_PX && (w > DOT_PNG_MAX_PX * 0.99 ||
							     h > DOT_PNG_MAX_PX * 0.99) &&
	      w == (unsigned)fit.w && h == (unsigned)fit.h);
	dot_fit_text(&fit, NULL, text, sizeof text);
	CHECK("fit: the chain's account (no path)", !strncmp(text, "scaled to ", 10) && strstr(text, "scaled to ") &&
	      strstr(text, "over the 16000 px limit") && strstr(text, "an .svg keeps the full size"));
	agclose(G);

	G = made_up(3, 3);
	snprintf(p, sizeof p, "%s/small.png", scratch);
	CHECK("fit: a small graph is left alone", dot_write(G, p, "png", &fit, &err) == 0 &&
	      !fit.tried && fit.scale == 1 && !fit.left_right &&
	      dot_fit_text(&fit, "small.png", text, sizeof text) == 0 && !text[0]);
	agclose(G);
}

/* ---- HLO operands and calls on a real module --------------------------- */

static int64_t edge_index(const region *r, int64_t user, int64_t operand, int *count)
{
	int64_t at = -1;

	*count = 0;
	for (int64_t k = 0; k < r->n_edges; k++)
		if (r->edges[k][0] == user && r->edges[k][1] == operand) {
			at = k;
			(*count)++;
		}
	return at;
}

static void test_hlo_edges(void)
{
	char path[2048], label[48], small[6];
	hs_error err = {0};
	region_spec s;
	int count;

	snprintf(path, sizeof path, "%s/../hlo/graphsage_tf_cpu_benchmark.hlo", data_root);
	hs_graph *g = graph_open(path, &err);
	if (!g) {
		printf("FAIL open graphsage: %s\n", err.msg);
		return;
	}
	/* %Square.1 = multiply(%concat.5, %concat.5): one edge, labelled "0,1". */
	region_spec_init(&s);
	s.center = graph_find_node(g, "Square.1");
	region *r = region_select(g, &s, &err);
	int64_t k = r ? edge_index(r, s.center, graph_find_node(g, "concat.5"), &count) : -1;
	CHECK("a repeated operand is one edge", k >= 0 && count == 1);
	CHECK("labelled with both positions", k >= 0 && !strcmp(region_edge_label(r, k, label, sizeof label), "0,1"));
	CHECK("a label cut to its buffer ends in an ellipsis",
	      k >= 0 && !strcmp(region_edge_label(r, k, small, sizeof small), "0,\xe2\x80\xa6"));
	int64_t u = graph_find_node(g, "Sum.6");
	k = r ? edge_index(r, u, s.center, &count) : -1;
	CHECK("a single operand has no label", k >= 0 && !*region_edge_label(r, k, label, sizeof label));
	region_free(r);
	/* %Sum.9 = reduce(%Sum.6, %Sum.8), to_apply=...: operands 0 and 1, and
	 * the reducer as a box joined by a link, or with --expand all its root
	 * joined by a call edge. */
	s.center = graph_find_node(g, "Sum.9");
	r = region_select(g, &s, &err);
	k = r ? edge_index(r, s.center, graph_find_node(g, "Sum.8"), &count) : -1;
	CHECK("the second operand is labelled 1", k >= 0 && !strcmp(region_edge_label(r, k, label, sizeof label), "1"));
	CHECK("the reducer is a box joined to its caller", r && r->n_boxes == 1 && r->n_links == 1 &&
	      r->links[0][0] == s.center && REGION_IS_BOX(r->links[0][1]) && r->n_calls == 0);
	region_free(r);
	s.expand = "all";
	r = region_select(g, &s, &err);
	int64_t root = g->hcomps[g->called_idx[g->called_off[s.center]]].root;
	CHECK("expanded, the reducer's root is joined by a call edge", r && r->n_boxes == 0 &&
	      r->n_calls == 1 && r->calls[0][0] == s.center && r->calls[0][1] == root);
	CHECK("a call is no operand edge", r && edge_index(r, s.center, root, &count) < 0);
	region_free(r);
	graph_free(g);
}

static int is_hex_color(const char *s)
{
	if (!s || strlen(s) != 7 || s[0] != '#')
		return 0;
	for (int i = 1; i < 7; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The drawing's colours of the opcode categories (render/palette.h). */
static void test_palette(void)
{
	int colors_ok = 1;
	for (int c = 0; c < HLO_NCATEGORIES; c++)
		if (!is_hex_color(palette_fill(c)) || !is_hex_color(palette_font(c)) ||
		    !is_hex_color(palette_stroke(c)))
			colors_ok = 0;
	CHECK("category colors are #rrggbb", colors_ok);
	CHECK("dumper dark blue for convolution",
	      strcmp(palette_fill(HLO_CAT_CONVOLUTION), "#1565c0") == 0 &&
		      strcmp(palette_font(HLO_CAT_CONVOLUTION), "#ffffff") == 0);
	CHECK("dumper yellow for elementwise", strcmp(palette_fill(HLO_CAT_ELEMENTWISE), "#fff9c4") == 0);
	CHECK("dark fills get white text",
	      strcmp(palette_font(HLO_CAT_CONTROL), "#ffffff") == 0 &&
		      strcmp(palette_font(HLO_CAT_ELEMENTWISE), "#000000") == 0);
	CHECK("a category out of range is painted as other",
	      strcmp(palette_fill((hlo_category)99), palette_fill(HLO_CAT_OTHER)) == 0);
}

int main(int argc, char **argv)
{
	const char *d = getenv("DATA");

	if (argc > 1 && !strcmp(argv[1], "--count"))
		return count_mode(argc, argv);
	const char *w = getenv("WORK");

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(data_root, sizeof data_root, "%s", d ? d : "tests/data/tpugraphs");
	snprintf(scratch, sizeof scratch, "%s/test_render.XXXXXX", w ? w : "/tmp");
	if (!mkdtemp(scratch)) {
		printf("FAIL scratch folder: %s\n", scratch);
		return 1;
	}
	hs_graph *unet = open_real(UNET), *rnn = open_real(RNN), *tile = open_real(TILE);
	if (!unet || !rnn || !tile)
		return 1;
	test_palette();
	test_synthetic();
	test_hlo_edges();
	test_around(unet);
	test_path(tile);
	test_other_kinds(unet, rnn, tile);
	test_dot(unet, rnn, tile);
	test_fit();
	test_heat();
	test_layout(unet, tile);
	test_cache(tile);
	graph_free(unet);
	graph_free(rnn);
	graph_free(tile);
	dot_shutdown();
	T_DONE();
}
