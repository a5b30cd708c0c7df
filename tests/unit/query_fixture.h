/* query_fixture.h - a small layout graph built in memory, for the query
 * language's unit test and fuzz target (tests/fuzz/fuzz_query.c); no file
 * needed.
 *
 *   0 parameter f32[8,16]{1,0}    computation 0
 *   1 parameter f32[16,4]{1,0}    computation 0
 *   2 dot       f32[8,4]{1,0}     computation 0, operands 0 1, configurable
 *   3 constant  f32[]             computation 1
 *   4 add       f32[8,4]{1,0}     computation 1, operands 2 3
 *   5 tuple     (tuple of 1)      computation 1, operand 4, is_root
 *
 * Three configs with runtimes 30, 10, 20 ns; node 2's 18 values per config
 * are {c, 1 - c, -1, ...}.  Freed with graph_free().
 */
#ifndef HS_QUERY_FIXTURE_H
#define HS_QUERY_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "loader/graph.h"
#include "loader/graph_impl.h"
#include "loader/hlo.h"

static void fixture_shape(float *f, int et, int rank, const int *dims)
{
	float prod = 1, sum = 0;

	f[HLO_F_ELEMENT_TYPE + et] = 1;
	for (int i = 0; i < rank; i++) {
		f[HLO_F_DIMS + i] = (float)dims[i];
		prod *= (float)dims[i];
		sum += (float)dims[i];
	}
	f[HLO_F_DIMS_SUM] = sum;
	f[HLO_F_DIMS_PRODUCT] = prod;
	for (int i = 0; i < rank; i++)
		f[HLO_F_LAYOUT + i] = (float)(rank - 1 - i);
}

static hs_graph *fixture_graph(void)
{
	static const int64_t E[5][2] = {{2, 0}, {2, 1}, {4, 2}, {4, 3}, {5, 4}};
	static const uint8_t ops[6] = {63, 63, 34, 24, 2, 100};
	const int n = 6, ne = 5, w = HLO_NODE_FEATURES, nc = 3, ncf = 18;
	hs_graph *g = calloc(1, sizeof *g);

	if (!g)
		return NULL;
	g->path = strdup("fixture.npz");
	g->name = strdup("fixture");
	g->kind = HS_KIND_LAYOUT;
	g->n_nodes = n;
	g->n_edges = ne;
	g->opcode = malloc(n);
	g->node_feat = calloc((size_t)n * w, sizeof(float));
	g->feat_width = w;
	g->edges = malloc(sizeof(int64_t[2]) * ne);
	g->operand_off = calloc(n + 1, sizeof(int64_t));
	g->operand_idx = malloc(ne * sizeof(int64_t));
	g->user_off = calloc(n + 1, sizeof(int64_t));
	g->user_idx = malloc(ne * sizeof(int64_t));
	g->n_comps = 2;
	g->comp_start = malloc(3 * sizeof(int64_t));
	g->comp_of = malloc(n * sizeof(int32_t));
	g->n_configs = nc;
	g->labeled = 1;
	g->runtime_raw = malloc(nc * sizeof(int64_t));
	g->runtime = malloc(nc * sizeof(double));
	g->n_cfg_nodes = 1;
	g->cfg_node_ids = malloc(sizeof(int64_t));
	g->cfg_index = malloc(n * sizeof(int32_t));
	g->ncf_width = ncf;
	g->ncf_loaded = 1;
	g->ncf_i8 = malloc((size_t)nc * ncf);
	if (!g->path || !g->name || !g->opcode || !g->node_feat || !g->edges || !g->operand_off ||
	    !g->operand_idx || !g->user_off || !g->user_idx || !g->comp_start || !g->comp_of ||
	    !g->runtime_raw || !g->runtime || !g->cfg_node_ids || !g->cfg_index || !g->ncf_i8) {
		graph_free(g);
		return NULL;
	}
	memcpy(g->opcode, ops, n);
	memcpy(g->edges, E, sizeof E);
	/* CSR in edge order: operands by user, users by operand. */
	for (int e = 0; e < ne; e++) {
		g->operand_off[E[e][0] + 1]++;
		g->user_off[E[e][1] + 1]++;
	}
	for (int v = 0; v < n; v++) {
		g->operand_off[v + 1] += g->operand_off[v];
		g->user_off[v + 1] += g->user_off[v];
	}
	int64_t po[6], pu[6];
	memcpy(po, g->operand_off, sizeof po);
	memcpy(pu, g->user_off, sizeof pu);
	for (int e = 0; e < ne; e++) {
		g->operand_idx[po[E[e][0]]++] = E[e][1];
		g->user_idx[pu[E[e][1]]++] = E[e][0];
	}
	g->comp_start[0] = 0;
	g->comp_start[1] = 3;
	g->comp_start[2] = n;
	for (int v = 0; v < n; v++) {
		g->comp_of[v] = v < 3 ? 0 : 1;
		g->cfg_index[v] = v == 2 ? 0 : -1;
	}
	static const int d0[] = {8, 16}, d1[] = {16, 4}, d2[] = {8, 4};
	float *f = g->node_feat;
	fixture_shape(f + 0 * w, HLO_ET_F32, 2, d0);
	fixture_shape(f + 1 * w, HLO_ET_F32, 2, d1);
	fixture_shape(f + 2 * w, HLO_ET_F32, 2, d2);
	fixture_shape(f + 3 * w, HLO_ET_F32, 0, NULL);
	fixture_shape(f + 4 * w, HLO_ET_F32, 2, d2);
	f[5 * w + HLO_F_ELEMENT_TYPE + HLO_ET_TUPLE] = 1;
	f[5 * w + HLO_F_TUPLE_SIZE] = 1;
	f[5 * w + HLO_F_IS_ROOT] = 1;
	f[0 * w + HLO_F_PARAMETER_NUMBER] = 0;
	f[1 * w + HLO_F_PARAMETER_NUMBER] = 1;
	static const int64_t rt[3] = {30, 10, 20};
	for (int c = 0; c < nc; c++) {
		g->runtime_raw[c] = rt[c];
		g->runtime[c] = (double)rt[c];
		for (int j = 0; j < ncf; j++)
			g->ncf_i8[c * ncf + j] = (int8_t)(j == 0 ? c : j == 1 ? 1 - c : -1);
	}
	g->cfg_node_ids[0] = 2;
	/* the structure every opened graph has: operands, computations, calls */
	hs_error err = {0};
	if (graph_derive_hlo(g, &err)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

#endif
