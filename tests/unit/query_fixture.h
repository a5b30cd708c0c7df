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
#include "loader/hlo.h"
#include "loader/hlo_featurize.h"

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
	static const int64_t splits[3] = {0, 3, 6}, rt[3] = {30, 10, 20}, cfg_ids[1] = {2};
	const int n = 6, ne = 5, w = HLO_NODE_FEATURES, nc = 3, ncf = HLO_LAYOUT_CONFIG_FEATURES;
	hf_arrays a = {.kind = HS_KIND_LAYOUT, .n_nodes = n, .n_edges = ne, .n_splits = 3, .n_configs = nc,
		       .n_cfg_nodes = 1};

	a.node_opcode = malloc(n);
	a.node_feat = calloc((size_t)n * w, sizeof(float));
	a.edge_index = malloc(sizeof E);
	a.node_splits = malloc(sizeof splits);
	a.config_runtime = malloc(sizeof rt);
	a.node_config_ids = malloc(sizeof cfg_ids);
	a.node_config_feat = malloc((size_t)nc * ncf * sizeof(float));
	if (!a.node_opcode || !a.node_feat || !a.edge_index || !a.node_splits || !a.config_runtime ||
	    !a.node_config_ids || !a.node_config_feat) {
		hf_arrays_free(&a);
		return NULL;
	}
	memcpy(a.node_opcode, ops, sizeof ops);
	memcpy(a.edge_index, E, sizeof E);
	memcpy(a.node_splits, splits, sizeof splits);
	memcpy(a.config_runtime, rt, sizeof rt);
	memcpy(a.node_config_ids, cfg_ids, sizeof cfg_ids);
	static const int d0[] = {8, 16}, d1[] = {16, 4}, d2[] = {8, 4};
	float *f = a.node_feat;
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
	for (int c = 0; c < nc; c++)
		for (int j = 0; j < ncf; j++)
			a.node_config_feat[c * ncf + j] = (float)(j == 0 ? c : j == 1 ? 1 - c : -1);
	/* validated as an .npz's arrays, its module synthesized as a bare .npz's */
	hs_error err = {0};
	hs_graph *g = graph_from_arrays(&a, "fixture.npz", "fixture", &err);
	hf_arrays_free(&a);
	return g;
}

#endif
