/* test_compare.c - the config comparison (model/compare.h) on small graphs
 * built in memory, where every expected difference, neighbour and mismatch
 * is known by construction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/hlo_featurize.h"
#include "model/compare.h"
#include "tests/unit/t.h"

/* ---- building graphs ------------------------------------------------ */

struct spec_node {
	const char *op;
	int rank;
	long long dims[4];
	int ops[2], nops;
	int comp;
};

/* The layout test graph:
 *   0 parameter [2,8,8,4]        1 parameter [3,3,4,4]
 *   2 convolution(0, 1)  cfg     3 add(2, 0)
 *   4 convolution(3, 1)  cfg     5 reshape(4) [2,8,32]
 *   6 dot(5)             cfg
 * computations: 0..3 and 4..6. */
static const struct spec_node layout_nodes[] = {
	{"parameter", 4, {2, 8, 8, 4}, {0, 0}, 0, 0},
	{"parameter", 4, {3, 3, 4, 4}, {0, 0}, 0, 0},
	{"convolution", 4, {2, 8, 8, 4}, {0, 1}, 2, 0},
	{"add", 4, {2, 8, 8, 4}, {2, 0}, 2, 0},
	{"convolution", 4, {2, 8, 8, 4}, {3, 1}, 2, 1},
	{"reshape", 3, {2, 8, 32, 0}, {4, 0}, 1, 1},
	{"dot", 3, {2, 8, 32, 0}, {5, 0}, 1, 1},
};
#define NL (int)(sizeof layout_nodes / sizeof layout_nodes[0])

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);
	if (!p) {
		printf("FAIL out of memory\n");
		exit(1);
	}
	return p;
}

/* The arrays of nodes (f32 shapes, row-major layouts; node_splits from
 * their `comp`) of a graph of `kind` with n_configs configs. */
static void node_arrays(const struct spec_node *nodes, int n, hs_kind kind, int n_configs, hf_arrays *a)
{
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->n_nodes = n;
	a->node_opcode = xcalloc((size_t)n, 1);
	a->node_feat = xcalloc((size_t)n * HLO_NODE_FEATURES, sizeof(float));
	for (int i = 0; i < n; i++)
		a->n_edges += nodes[i].nops;
	a->edge_index = xcalloc((size_t)a->n_edges, sizeof *a->edge_index);
	int e = 0;
	for (int i = 0; i < n; i++) {
		a->node_opcode[i] = (uint8_t)hlo_opcode_id(nodes[i].op);
		float *f = a->node_feat + (size_t)i * HLO_NODE_FEATURES;
		f[HLO_F_ELEMENT_TYPE + HLO_ET_F32] = 1;
		double prod = 1, sum = 0;
		for (int d = 0; d < nodes[i].rank; d++) {
			f[HLO_F_DIMS + d] = (float)nodes[i].dims[d];
			f[HLO_F_LAYOUT + d] = (float)(nodes[i].rank - 1 - d);
			prod *= (double)nodes[i].dims[d];
			sum += (double)nodes[i].dims[d];
		}
		f[HLO_F_DIMS_SUM] = (float)sum;
		f[HLO_F_DIMS_PRODUCT] = (float)prod;
		for (int k = 0; k < nodes[i].nops; k++, e++) {
			a->edge_index[e][0] = i;
			a->edge_index[e][1] = nodes[i].ops[k];
		}
	}
	int nc = nodes[n - 1].comp + 1;
	a->n_splits = nc + 1;
	a->node_splits = xcalloc((size_t)nc + 1, sizeof(int64_t));
	for (int i = n - 1; i >= 0; i--)
		a->node_splits[nodes[i].comp] = i;
	a->node_splits[nc] = n;
	a->n_configs = n_configs;
	a->config_runtime = xcalloc((size_t)n_configs, sizeof(int64_t));
}

/* The graph of arrays a (taken), through the loader's own constructor: no
 * node is a root, so the module synthesized from it is one computation,
 * the entry. */
static hs_graph *build(hf_arrays *a, const char *path)
{
	hs_error err = {0};
	hs_graph *g = graph_from_arrays(a, path, path, &err);
	hf_arrays_free(a);
	if (!g) {
		printf("FAIL building %s: %s\n", path, err.msg);
		exit(1);
	}
	return g;
}

static void set_runtimes(hf_arrays *a, const int64_t *rt, int n)
{
	for (int c = 0; c < n; c++)
		a->config_runtime[c] = rt[c];
}

/* Layout values per config: [config][cfg node][18]. */
static const int8_t LV[4][3][18] = {
	/* c0: the compiler's default */
	{{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
	 {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
	 {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}},
	/* c1 */
	{{3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1},
	 {3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1},
	 {2, 1, 0, -1, -1, -1, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1}},
	/* c2: node 4's input transposed, node 6's output reversed */
	{{3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1},
	 {3, 2, 1, 0, -1, -1, 0, 1, 2, 3, -1, -1, 3, 2, 1, 0, -1, -1},
	 {0, 1, 2, -1, -1, -1, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1}},
	/* c3: the same values as c1 */
	{{3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1},
	 {3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1, 3, 2, 1, 0, -1, -1},
	 {2, 1, 0, -1, -1, -1, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1}},
};

static hs_graph *layout_graph(const char *path, int with_default, int labeled)
{
	hf_arrays a;
	static const int64_t cfg[3] = {2, 4, 6};
	int64_t rt[4] = {100, 50, 80, 50};
	if (!labeled)
		memset(rt, 0, sizeof rt);
	node_arrays(layout_nodes, NL, HS_KIND_LAYOUT, 4, &a);
	set_runtimes(&a, rt, 4);
	a.n_cfg_nodes = 3;
	a.node_config_ids = xcalloc(3, sizeof(int64_t));
	memcpy(a.node_config_ids, cfg, sizeof cfg);
	a.node_config_feat = xcalloc(4 * 3 * 18, sizeof(float));
	for (int i = 0; i < 4 * 3 * 18; i++)
		a.node_config_feat[i] = (&LV[0][0][0])[i];
	if (!with_default) /* c0 gets one value set: no config is all -1 */
		a.node_config_feat[0] = 0;
	return build(&a, path);
}

static hs_graph *tile_graph(const char *path, int labeled)
{
	static const struct spec_node nodes[] = {
		{"parameter", 2, {16, 16}, {0, 0}, 0, 0},
		{"exponential", 2, {16, 16}, {0, 0}, 1, 0},
	};
	hf_arrays a;
	int64_t rt[3] = {300, 200, 250};
	if (!labeled)
		memset(rt, 0, sizeof rt);
	node_arrays(nodes, 2, HS_KIND_TILE, 3, &a);
	set_runtimes(&a, rt, 3);
	a.config_runtime_normalizers = xcalloc(3, sizeof(int64_t));
	for (int c = 0; c < 3; c++)
		a.config_runtime_normalizers[c] = labeled ? 100 : 1;
	a.config_feat = xcalloc(3 * 24, sizeof(float));
	for (int c = 0; c < 3; c++) {
		a.config_feat[c * 24 + 8] = 4;
		a.config_feat[c * 24 + 9] = 16;
		a.config_feat[c * 24 + 15] = 64;
	}
	a.config_feat[1 * 24 + 8] = 8;   /* c1: output_bounds_0 */
	a.config_feat[1 * 24 + 15] = 128; /* and the product */
	return build(&a, path);
}

/* ---- helpers -------------------------------------------------------- */

static const compare_row *row_of(const compare_result *r, int64_t node)
{
	for (int64_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].node == node)
			return &r->rows[i];
	return NULL;
}

static const compare_neighbor *nb_of(const compare_row *rw, int64_t node, int side)
{
	for (int i = 0; rw && i < rw->n_nb; i++)
		if (rw->nb[i].node == node && rw->nb[i].side == side)
			return &rw->nb[i];
	return NULL;
}

static int changed_exactly(const compare_row *rw, const int *idx, int n)
{
	int count = 0;
	for (int j = 0; j < 18; j++)
		count += rw->changed[j];
	if (count != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (!rw->changed[idx[i]])
			return 0;
	return 1;
}

/* Prints a result into a string (freed by the caller). */
static char *printed(const compare_result *r, int fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hs_error err = {0};
	if (!f)
		return NULL;
	int rc = compare_print(f, r, fmt, &err);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int resolve_fails(hs_graph *g, const char *sel, const char *want)
{
	hs_error err = {0};
	int64_t c = compare_resolve(g, sel, "A", &err);
	if (c != -1 || err.status != HS_EUSAGE || !strstr(err.msg, want)) {
		printf("  (resolve '%s' gave %lld, status %d, '%s')\n", sel, (long long)c, err.status, err.msg);
		return 0;
	}
	return 1;
}

/* ---- tests ---------------------------------------------------------- */

static void test_selectors(void)
{
	hs_graph *g = layout_graph("lay.npz", 1, 1), *nd = layout_graph("nodef.npz", 0, 1);
	hs_graph *u = layout_graph("unlab.npz", 1, 0), *t = tile_graph("tile.npz", 1);
	hs_error err = {0};

	CHECK("resolve index", compare_resolve(g, "2", "A", &err) == 2);
	CHECK("resolve best (first of equal runtimes)", compare_resolve(g, "best", "A", &err) == 1);
	CHECK("resolve worst", compare_resolve(g, "worst", "A", &err) == 0);
	CHECK("resolve default", compare_resolve(g, "default", "A", &err) == 0);
	CHECK("index past the end", resolve_fails(g, "4", "config 4 out of range: lay.npz has 4 configs (0..3)"));
	CHECK("negative index", resolve_fails(g, "-1", "out of range"));
	CHECK("huge index", resolve_fails(g, "99999999999999999999999", "out of range"));
	CHECK("not a selector", resolve_fails(g, "fastest", "give an index, best, worst or default"));
	CHECK("trailing junk", resolve_fails(g, "2x", "not a config"));
	CHECK("empty selector", resolve_fails(g, "", "empty"));
	CHECK("best on unlabeled", resolve_fails(u, "best", "unlabeled"));
	CHECK("worst on unlabeled", resolve_fails(u, "worst", "unlabeled"));
	CHECK("index on unlabeled", compare_resolve(u, "3", "A", &err) == 3);
	CHECK("no default config", resolve_fails(nd, "default", "no default config"));
	CHECK("default on tile", resolve_fails(t, "default", "tile file"));
	CHECK("tile best", compare_resolve(t, "best", "A", &err) == 1);
	CHECK("sort parse", compare_sort_parse("id") == COMPARE_SORT_ID &&
				    compare_sort_parse("contribution") == COMPARE_SORT_CONTRIBUTION &&
				    compare_sort_parse("runtime") == -1 && compare_sort_parse(NULL) == -1);
	graph_free(g);
	graph_free(nd);
	graph_free(u);
	graph_free(t);
}

static void test_layout_diff(void)
{
	hs_graph *g = layout_graph("lay.npz", 1, 1);
	hs_error err = {0};
	compare_opts o;
	compare_opts_init(&o);
	compare_result *r = compare_run(g, NULL, "1", "2", &o, &err);

	CHECK("layout run", r != NULL);
	if (!r) {
		printf("  (%s)\n", err.msg);
		graph_free(g);
		return;
	}
	CHECK("differing count", r->n_differ == 2 && r->n_rows == 2 && r->n_cfg == 3);
	CHECK("rows by id", r->rows[0].node == 4 && r->rows[1].node == 6);
	const compare_row *r4 = row_of(r, 4), *r6 = row_of(r, 6);
	static const int ch4[] = {6, 7, 8, 9}, ch6[] = {0, 2};
	CHECK("node 4 changed input positions", r4 && changed_exactly(r4, ch4, 4));
	CHECK("node 6 changed output positions", r6 && changed_exactly(r6, ch6, 2));
	CHECK("values of A and B", r4 && r4->a[6] == 3 && r4->b[6] == 0 && r4->a[0] == 3 && r4->b[0] == 3);
	CHECK("row facts", r4 && r4->opcode == hlo_opcode_id("convolution") && r4->comp == 1 && r4->k_a == 1 &&
				   r4->differs);
	CHECK("runtime ratio", fabs(r->runtime_ratio - 80.0 / 50.0) < 1e-12);
	CHECK("ranks (ties share)", r->A.rank == 1 && r->B.rank == 3);
	CHECK("runtimes", r->A.runtime == 50 && r->B.runtime == 80 && r->A.runtime_raw == 50);
	CHECK("opcode summary", r->n_opcodes == 2 && r->opcodes[0].count == 1 && r->opcodes[1].count == 1);
	CHECK("computation summary", r->n_comps == 1 && r->comps[0].key == 1 && r->comps[0].count == 2);

	/* Neighbours: 2 feeds 4 through an add (same rank): comparable. */
	const compare_neighbor *n42 = nb_of(r4, 2, COMPARE_OPERAND);
	CHECK("operand through add", n42 && n42->hops == 2 && n42->slot == 0 && n42->comparable);
	CHECK("mismatch only in B", n42 && n42->mismatch_a == 0 && n42->mismatch_b == 1);
	CHECK("mismatch counts", r->A.mismatches == 0 && r->B.mismatches == 1);
	const compare_neighbor *n46 = nb_of(r4, 6, COMPARE_USER);
	CHECK("user through reshape is not comparable", n46 && n46->hops == 2 && !n46->comparable &&
							       n46->mismatch_a == -1 && n46->mismatch_b == -1);
	const compare_neighbor *n64 = nb_of(r6, 4, COMPARE_OPERAND);
	CHECK("operand through reshape", n64 && !n64->comparable && n64->hops == 2);
	CHECK("parameters are no neighbours", r4 && r4->n_nb == 2 && r6 && r6->n_nb == 1);

	int64_t *ids;
	int64_t n = compare_changed_nodes(r, &ids);
	CHECK("changed nodes", n == 2 && ids[0] == 4 && ids[1] == 6);
	free(ids);

	char sum[512];
	compare_summary(r, sum, sizeof sum);
	CHECK("summary line", strstr(sum, "2 of 3 configurable nodes differ") && strstr(sum, "convolution 1") &&
				      strstr(sum, "dot 1") && strstr(sum, "computation: entry (2)"));
	CHECK("rows keep their split and HLO computation", r4 && r4->comp == 1 && r4->hcomp == 0 && r->n_comps == 1 &&
								   r->comps[0].key == 1 && r->n_hcomps == 1 &&
								   r->hcomps[0].key == 0 && r->hcomps[0].count == 2);

	/* The analytic estimate (no model) predicts and splits the difference. */
	CHECK("predictor named", !strcmp(r->pred_label, "analytic estimate"));
	CHECK("predictions", !r->pred_error[0] && isfinite(r->A.predicted) && isfinite(r->B.predicted) &&
				     r->A.pred_rank >= 1 && r->A.pred_rank <= 4);
	CHECK("predicted difference", r->predicted_diff == r->B.predicted - r->A.predicted &&
					      (!(r->A.predicted > 0 && r->B.predicted > 0) ||
					       fabs(r->predicted_ratio - r->B.predicted / r->A.predicted) < 1e-12));
	CHECK("contributions present", r->has_contribution && !isnan(r4->contribution) && !isnan(r6->contribution));
	CHECK("contributions sum to the predicted difference",
	      fabs(r->contrib_total - (r->B.predicted - r->A.predicted)) <=
		      1e-9 * (1 + fabs(r->B.predicted - r->A.predicted)));
	CHECK("differing contributions sum", fabs(r->contrib_differ - r4->contribution - r6->contribution) <=
						    1e-9 * (1 + fabs(r->contrib_differ)));

	char *text = printed(r, COMPARE_TEXT);
	CHECK("text header", text && strstr(text, "config         1") && strstr(text, "50 ns") &&
				     strstr(text, "1.600000"));
	CHECK("text marks changes", text && strstr(text, "{0*,1,2*}") && strstr(text, "{0*,1*,2*,3*}"));
	CHECK("text neighbours",
	      text && strstr(text, "operand 2 convolution.2, 2 hops, output {3,2,1,0} -> {3,2,1,0}: A ok, B copy"));
	CHECK("text rows name their nodes", text && strstr(text, "node  name           opcode") &&
						    strstr(text, "   4  convolution.4  convolution") &&
						    !strstr(text, "op_name"));
	free(text);
	char *json = printed(r, COMPARE_JSON);
	CHECK("json keys", json && strstr(json, "\"runtime_a\": 50") && strstr(json, "\"runtime_b\": 80") &&
				   strstr(json, "\"runtime_ratio\": 1.6") && strstr(json, "\"predicted_a\"") &&
				   strstr(json, "\"differing_nodes\"") && strstr(json, "\"id\": 4"));
	CHECK("json values", json && strstr(json, "\"b\": [3,2,1,0,-1,-1,0,1,2,3,-1,-1,3,2,1,0,-1,-1]") &&
				     strstr(json, "\"changed\": [6,7,8,9]"));
	CHECK("json no unchanged list without --all", json && !strstr(json, "unchanged_nodes"));
	CHECK("json rows: name, op_name, computation by name, split",
	      json && strstr(json, "\"name\": \"convolution.4\"") && strstr(json, "\"op_name\": null") &&
		      strstr(json, "\"computation\": \"entry\",") && strstr(json, "\"split\": 1,") &&
		      strstr(json, "\"differing_computations\": [{\"computation\":\"entry\",\"count\":2}") &&
		      strstr(json, "\"differing_splits\": [{\"split\":1,\"count\":2}"));
	free(json);

	hs_error werr = {0};
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		CHECK("write error reported", compare_print(full, r, COMPARE_TEXT, &werr) == -1 &&
						      werr.status == HS_EDATA);
		fclose(full);
	}
	compare_free(r);

	/* The same values: nothing differs. */
	r = compare_run(g, NULL, "1", "3", &o, &err);
	CHECK("equal configs", r && r->n_differ == 0 && r->n_rows == 0);
	if (r) {
		compare_summary(r, sum, sizeof sum);
		CHECK("equal summary", strstr(sum, "no configurable node differs") != NULL);
		CHECK("equal: no changed nodes", compare_changed_nodes(r, &ids) == 0 && ids == NULL);
	}
	compare_free(r);

	/* --all keeps every configurable node, marks the unchanged. */
	o.all = 1;
	r = compare_run(g, NULL, "default", "best", &o, &err);
	CHECK("all rows", r && r->n_rows == 3 && r->n_differ == 3 && r->A.config == 0 && r->B.config == 1);
	compare_free(r);
	r = compare_run(g, NULL, "1", "2", &o, &err);
	CHECK("all rows with unchanged", r && r->n_rows == 3 && r->n_differ == 2 && !row_of(r, 2)->differs);
	if (r) {
		json = printed(r, COMPARE_JSON);
		CHECK("json unchanged list", json && strstr(json, "\"unchanged_nodes\""));
		free(json);
		text = printed(r, COMPARE_TEXT);
		CHECK("text marks differing rows", text && strstr(text, "*    4") && strstr(text, "     2"));
		free(text);
		compare_sort_rows(r, COMPARE_SORT_CONTRIBUTION);
		int desc = 1;
		for (int64_t i = 0; i + 1 < r->n_rows; i++)
			desc &= fabs(r->rows[i].contribution) >= fabs(r->rows[i + 1].contribution);
		CHECK("contribution sort: largest part first", desc && r->sort == COMPARE_SORT_CONTRIBUTION);
		for (int64_t i = 0; i < r->n_rows; i++)
			r->rows[i].contribution = r->rows[i].node == 2 ? NAN : r->rows[i].node == 4 ? -5 : 3;
		compare_sort_rows(r, COMPARE_SORT_CONTRIBUTION);
		CHECK("contribution sort: by magnitude, absent last",
		      r->rows[0].node == 4 && r->rows[1].node == 6 && r->rows[2].node == 2);
		compare_sort_rows(r, COMPARE_SORT_ID);
		CHECK("id sort", r->rows[0].node == 2 && r->rows[1].node == 4 && r->rows[2].node == 6);
	}
	compare_free(r);

	/* Errors from compare_run. */
	r = compare_run(g, NULL, "0", "9", &o, &err);
	CHECK("B out of range", !r && err.status == HS_EUSAGE && strstr(err.msg, "B: config 9 out of range"));
	graph_free(g);
}

static void test_unlabeled(void)
{
	hs_graph *u = layout_graph("unlab.npz", 1, 0);
	hs_error err = {0};
	compare_result *r = compare_run(u, NULL, "1", "2", NULL, &err);

	CHECK("unlabeled compares values", r && r->n_differ == 2);
	if (r) {
		CHECK("unlabeled runtimes hidden", isnan(r->A.runtime) && isnan(r->runtime_ratio) && r->A.rank == 0 &&
							   !r->A.labeled);
		char *json = printed(r, COMPARE_JSON);
		CHECK("unlabeled json nulls", json && strstr(json, "\"runtime_a\": null") &&
						      strstr(json, "\"runtime_ratio\": null") &&
						      strstr(json, "\"runtime_note\": \"runtimes hidden: unlab.npz is unlabeled"));
		free(json);
		char *text = printed(r, COMPARE_TEXT);
		CHECK("unlabeled text says why", text && strstr(text, "hidden") && strstr(text, "unlabeled") &&
							  !strstr(text, "\nrank "));
		free(text);
	}
	compare_free(r);
	r = compare_run(u, NULL, "best", "0", NULL, &err);
	CHECK("best on unlabeled fails", !r && strstr(err.msg, "unlabeled"));
	graph_free(u);
}

static void test_tile(void)
{
	hs_graph *t = tile_graph("tile.npz", 1);
	hs_error err = {0};
	compare_result *r = compare_run(t, NULL, "0", "best", NULL, &err);

	CHECK("tile run", r != NULL);
	if (!r) {
		graph_free(t);
		return;
	}
	CHECK("tile diff", r->tile_n_differ == 2 && r->tile_changed[8] && r->tile_changed[15] &&
				   !r->tile_changed[9] && r->tile_a[8] == 4 && r->tile_b[8] == 8);
	CHECK("tile normalized runtimes", r->A.runtime == 3 && r->B.runtime == 2 &&
						  fabs(r->runtime_ratio - 2.0 / 3.0) < 1e-12);
	int64_t *ids;
	CHECK("tile changed = the kernel", compare_changed_nodes(r, &ids) == 2 && ids[1] == 1);
	free(ids);
	char sum[256];
	compare_summary(r, sum, sizeof sum);
	CHECK("tile summary", !strcmp(sum, "2 of 24 values differ: output_bounds_0, output_bounds_product"));
	char *json = printed(r, COMPARE_JSON);
	CHECK("tile json", json && strstr(json, "\"differing_values\"") && strstr(json, "\"name\": \"output_bounds_0\"") &&
				   strstr(json, "\"kernel_nodes\"") && strstr(json, "\"opcode\": \"exponential\""));
	free(json);
	char *text = printed(r, COMPARE_TEXT);
	CHECK("tile text", text && strstr(text, "* output_bounds_0") && strstr(text, "kernel nodes (2)") &&
				   strstr(text, "(normalized by the default config's runtime)"));
	free(text);
	compare_free(r);
	graph_free(t);
}

static void test_two_files(void)
{
	hs_graph *a = layout_graph("a.npz", 1, 1), *b = layout_graph("b.npz", 1, 0);
	hs_error err = {0};

	CHECK("equal graphs", compare_graphs_equal(a, b, &err) == 0);
	/* Edges in another order are the same graph. */
	int64_t tmp[2] = {b->edges[0][0], b->edges[0][1]};
	b->edges[0][0] = b->edges[1][0], b->edges[0][1] = b->edges[1][1];
	b->edges[1][0] = tmp[0], b->edges[1][1] = tmp[1];
	CHECK("edge order does not matter", compare_graphs_equal(a, b, &err) == 0);

	compare_result *r = compare_run(a, b, "1", "2", NULL, &err);
	CHECK("two files compare", r && r->n_differ == 2 && r->gb == b);
	if (r) {
		CHECK("two files: B unlabeled", !isnan(r->A.runtime) && isnan(r->B.runtime) && isnan(r->runtime_ratio));
		CHECK("two files: no contributions", !r->has_contribution &&
							     strstr(r->contrib_note, "need A and B in one file"));
		char *text = printed(r, COMPARE_TEXT);
		CHECK("two files text", text && strstr(text, "file A         a.npz") && strstr(text, "file B         b.npz") &&
						strstr(text, "b.npz is unlabeled"));
		free(text);
	}
	compare_free(r);

	b->opcode[3] = (uint8_t)hlo_opcode_id("multiply");
	CHECK("opcode differs", compare_graphs_equal(a, b, &err) == -1 &&
					strstr(err.msg, "node 3 is add in a.npz but multiply in b.npz"));
	r = compare_run(a, b, "1", "2", NULL, &err);
	CHECK("run refuses unequal graphs", !r && err.status == HS_EUSAGE && strstr(err.msg, "not the same graph"));
	b->opcode[3] = a->opcode[3];

	b->edges[0][1] = 5; /* 2 <- 1 becomes 2 <- 5 */
	CHECK("edge differs", compare_graphs_equal(a, b, &err) == -1 &&
				      strstr(err.msg, "edge 2 -> 1 (user -> operand) is in a.npz but not in b.npz"));
	graph_free(b);

	b = layout_graph("b.npz", 1, 1);
	b->cfg_index[6] = -1;
	b->cfg_index[5] = 2;
	b->cfg_node_ids[2] = 5;
	CHECK("configurable nodes differ", compare_graphs_equal(a, b, &err) == -1 &&
						   strstr(err.msg, "node 6 is configurable in a.npz but not in b.npz"));
	graph_free(b);

	hs_graph *t = tile_graph("t.npz", 1);
	CHECK("kind differs", compare_graphs_equal(a, t, &err) == -1 && strstr(err.msg, "layout file"));
	graph_free(t);

	static const struct spec_node small[] = {{"parameter", 1, {4}, {0, 0}, 0, 0}};
	hf_arrays sa;
	node_arrays(small, 1, HS_KIND_LAYOUT, 0, &sa);
	hs_graph *s = build(&sa, "s.npz");
	CHECK("node count differs", compare_graphs_equal(a, s, &err) == -1 &&
					    strstr(err.msg, "a.npz has 7 nodes, s.npz has 1"));
	graph_free(s);
	graph_free(a);
}

static void test_text_helpers(void)
{
	float v[18], w[18];
	unsigned char ch[18] = {0};
	char buf[64];
	for (int j = 0; j < 18; j++)
		v[j] = w[j] = -1;
	compare_layout_text(v, w, NULL, 0, buf, sizeof buf);
	CHECK("all unset is '-'", !strcmp(buf, "-"));
	v[0] = 1, v[1] = 0, w[0] = 0, w[1] = 1, w[2] = 2;
	ch[0] = ch[1] = ch[2] = 1;
	compare_layout_text(v, w, ch, 0, buf, sizeof buf);
	CHECK("pads to the other side's length", !strcmp(buf, "{1*,0*,-*}"));
	compare_layout_text(w, v, NULL, 0, buf, sizeof buf);
	CHECK("plain layout", !strcmp(buf, "{0,1,2}"));
	compare_layout_text(v, w, ch, 6, buf, sizeof buf);
	CHECK("unset group", !strcmp(buf, "-"));
	ch[6] = 1;
	compare_layout_text(v, w, ch, 6, buf, sizeof buf);
	CHECK("unset group that differs", !strcmp(buf, "-*"));
	v[13] = 3;
	compare_layout_text(v, NULL, NULL, 12, buf, sizeof buf);
	CHECK("group offset", !strcmp(buf, "{-,3}"));
	int n = compare_layout_text(w, v, NULL, 0, buf, 4);
	CHECK("truncates like snprintf", n == 7 && strlen(buf) == 3);
	CHECK("group names", !strcmp(compare_group_name(0), "output") && !strcmp(compare_group_name(2), "kernel") &&
				     !strcmp(compare_group_name(3), "?"));
}

static void test_highlight(void)
{
	hs_graph *g = layout_graph("lay.npz", 1, 1);
	hs_error err = {0};
	int64_t *ids = malloc(sizeof *ids);
	size_t n = 1;
	ids[0] = 99;
	CHECK("highlight appends", compare_highlight(g, "1", "2", &ids, &n, &err) == 0 && n == 3 && ids[0] == 99 &&
					   ids[1] == 4 && ids[2] == 6);
	CHECK("highlight bad selector", compare_highlight(g, "1", "nope", &ids, &n, &err) == -1 && n == 3 &&
						err.status == HS_EUSAGE);
	free(ids);
	ids = NULL;
	n = 0;
	CHECK("highlight of equal configs", compare_highlight(g, "1", "3", &ids, &n, &err) == 0 && n == 0);
	free(ids);
	graph_free(g);
}

static void test_write(void)
{
	hs_graph *g = layout_graph("lay.npz", 1, 1);
	hs_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = compare_write(f, g, NULL, "best", "2", NULL, COMPARE_JSON, &err);
	fclose(f);
	CHECK("compare_write", rc == 0 && buf && strstr(buf, "\"selector_a\": \"best\"") &&
				       strstr(buf, "\"config_a\": 1"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	rc = compare_write(f, g, NULL, "0", "17", NULL, COMPARE_TEXT, &err);
	fclose(f);
	CHECK("compare_write error writes nothing", rc == -1 && len == 0 && strstr(err.msg, "out of range"));
	free(buf);
	graph_free(g);
}

/* A node config width other than the documented 18: plain value lists. */
static void test_generic_width(void)
{
	hs_graph *g = layout_graph("w6.npz", 1, 1);
	hs_error err = {0};
	int8_t *v = xcalloc(4 * 3 * 6, 1);
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < 6; j++)
				v[(c * 3 + k) * 6 + j] = LV[c][k][j];
	free(g->ncf_i8);
	g->ncf_i8 = v;
	g->ncf_width = 6;
	compare_opts o;
	compare_opts_init(&o);
	o.predict = 0;
	compare_result *r = compare_run(g, NULL, "1", "2", &o, &err);
	CHECK("generic width runs", r && r->width == 6 && r->n_differ == 1 && r->rows[0].node == 6);
	if (r) {
		char *text = printed(r, COMPARE_TEXT);
		CHECK("generic width text", text && strstr(text, "2,1,0,-,-,-") && strstr(text, "0*,1,2*,-,-,-") &&
						    !strstr(text, "operand 4"));
		free(text);
		char *json = printed(r, COMPARE_JSON);
		CHECK("generic width json", json && strstr(json, "\"value_names\": [\"c0\"") &&
						    strstr(json, "\"b\": [0,1,2,-1,-1,-1]") && !strstr(json, "\"operands\""));
		free(json);
		CHECK("no predictions when not asked", isnan(r->A.predicted) && r->pred_error[0] && !r->has_contribution);
	}
	compare_free(r);
	graph_free(g);
}

int main(void)
{
	test_selectors();
	test_layout_diff();
	test_unlabeled();
	test_tile();
	test_two_files();
	test_text_helpers();
	test_highlight();
	test_write();
	test_generic_width();
	T_DONE();
}
