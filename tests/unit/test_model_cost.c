/* test_model_cost.c - the analytic cost model on a hand-built graph whose
 * FLOPs and bytes are worked out here from the formulas in model/cost.c:
 *
 *   0 parameter   f32[8,56,56,64]                       bytes 0 (moves nothing)
 *   1 parameter   f32[3,3,64,128]
 *   2 convolution f32[8,56,56,128] (0, 1), window 3x3, input feature dim 3
 *                 FLOPs 2 * 8*56*56*128 * 9 * 64, bytes (in + kernel + out) * 4
 *   3 parameter   bf16[4,32,64]    4 parameter bf16[4,64,16]
 *   5 dot         bf16[4,32,16] (3, 4): batch 4, contracted 64
 *                 FLOPs 2 * 4*32*16 * 64, bytes (8192 + 4096 + 2048) * 2
 *   6 reduce      f32[8] (2): FLOPs = elements of operand 0
 *   7 add         f32[8,56,56,128] (2, 2): FLOPs 3211264, bytes 3 * 3211264 * 4
 *   8 tuple       (6, 7): bytes 0
 *
 * Tile configs (output_bounds over the root's dims): untiled; 8 x 64
 * (64 > 56 is clamped: 1 tile, no padding); 3 x 16 over [8, 56]: 3 * 4 =
 * 12 tiles padded to 9 x 64, a factor 9/8 * 64/56.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/inputs.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/npz.h"
#include "model/cost.h"
#include "t.h"

static void shape(float *f, int et, int rank, const long *dims)
{
	double prod = 1, sum = 0;

	f[HLO_F_ELEMENT_TYPE + et] = 1;
	for (int i = 0; i < rank; i++) {
		f[HLO_F_DIMS + i] = (float)dims[i];
		f[HLO_F_LAYOUT + i] = (float)(rank - 1 - i);
		prod *= (double)dims[i];
		sum += (double)dims[i];
	}
	f[HLO_F_DIMS_SUM] = (float)sum;
	f[HLO_F_DIMS_PRODUCT] = (float)prod;
}

int main(void)
{
	enum { N = 9 };
	float feat[N * 140];
	uint8_t op[N] = {63, 63, 26, 63, 63, 34, 70, 2, 100};
	int64_t edges[][2] = {{2, 0}, {2, 1}, {5, 3}, {5, 4}, {6, 2}, {7, 2}, {7, 2}, {8, 6}, {8, 7}};
	int64_t ne = sizeof edges / sizeof edges[0];
	float cf[3 * 24] = {0};
	int64_t rt[3] = {100, 200, 300}, nrm[3] = {100, 100, 100};
	char dir[] = "/tmp/hs-cost.XXXXXX", path[256];
	hs_error err = {0};
	npz_writer *w;
	hs_graph *g;
	cost_estimate est[N];

	memset(feat, 0, sizeof feat);
	shape(feat + 0 * 140, HLO_ET_F32, 4, (long[]){8, 56, 56, 64});
	shape(feat + 1 * 140, HLO_ET_F32, 4, (long[]){3, 3, 64, 128});
	shape(feat + 2 * 140, HLO_ET_F32, 4, (long[]){8, 56, 56, 128});
	feat[2 * 140 + HLO_F_WINDOW_SIZE] = 3;
	feat[2 * 140 + HLO_F_WINDOW_SIZE + 1] = 3;
	feat[2 * 140 + HLO_F_WINDOW_SIZE + 7] = 9;
	feat[2 * 140 + HLO_F_CONV_DIMS + 1] = 3;
	feat[2 * 140 + HLO_F_FEATURE_GROUP_COUNT] = 1;
	shape(feat + 3 * 140, HLO_ET_BF16, 3, (long[]){4, 32, 64});
	shape(feat + 4 * 140, HLO_ET_BF16, 3, (long[]){4, 64, 16});
	shape(feat + 5 * 140, HLO_ET_BF16, 3, (long[]){4, 32, 16});
	shape(feat + 6 * 140, HLO_ET_F32, 1, (long[]){8});
	shape(feat + 7 * 140, HLO_ET_F32, 4, (long[]){8, 56, 56, 128});
	feat[8 * 140 + HLO_F_ELEMENT_TYPE + HLO_ET_TUPLE] = 1;
	feat[8 * 140 + HLO_F_TUPLE_SIZE] = 2;
	feat[8 * 140 + HLO_F_IS_ROOT] = 1;
	/* Tile configs: untiled, 8 x 64 tiles, 2 x 7 tiles of the root. */
	cf[24 + 8] = 8;
	cf[24 + 9] = 64;
	cf[48 + 8] = 3;
	cf[48 + 9] = 16;

	if (!mkdtemp(dir)) {
		CHECK("scratch folder", 0);
		T_DONE();
	}
	snprintf(path, sizeof path, "%s/cost.npz", dir);
	w = npz_writer_open(path, 0, &err);
	CHECK("write the graph", w &&
		  !npz_writer_add(w, "node_feat", NPY_F4, 2, (int64_t[]){N, 140}, feat, &err) &&
		  !npz_writer_add(w, "node_opcode", NPY_U1, 1, (int64_t[]){N}, op, &err) &&
		  !npz_writer_add(w, "edge_index", NPY_I8, 2, (int64_t[]){ne, 2}, edges, &err) &&
		  !npz_writer_add(w, "config_feat", NPY_F4, 2, (int64_t[]){3, 24}, cf, &err) &&
		  !npz_writer_add(w, "config_runtime", NPY_I8, 1, (int64_t[]){3}, rt, &err) &&
		  !npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, (int64_t[]){3}, nrm, &err) &&
		  !npz_writer_finish(w, &err));
	g = graph_open(path, &err);
	CHECK("open it", g != NULL);
	if (!g) {
		fprintf(stderr, "%s\n", err.msg);
		T_DONE();
	}
	cost_analytic(g, est);

	double conv_out = 8.0 * 56 * 56 * 128, conv_in = 8.0 * 56 * 56 * 64, kern = 3.0 * 3 * 64 * 128;
	CHECK_NEAR("parameters move nothing", est[0].bytes + est[0].flops, 0, 0);
	CHECK_NEAR("convolution FLOPs: 2 * out * window * C_in", est[2].flops, 2 * conv_out * 9 * 64, 1);
	CHECK_NEAR("convolution bytes: operands + output", est[2].bytes, (conv_in + kern + conv_out) * 4, 1);
	CHECK_NEAR("convolution time is FLOP-bound on the roofline", est[2].seconds,
		   fmax(2 * conv_out * 9 * 64 / COST_PEAK_FLOPS, (conv_in + kern + conv_out) * 4 / COST_HBM_BYTES_PER_S),
		   1e-15);
	CHECK_NEAR("dot FLOPs: batch 4 and contracted size 64 recovered", est[5].flops, 2.0 * 4 * 32 * 16 * 64, 1e-6);
	CHECK_NEAR("dot bytes in bf16", est[5].bytes, (8192.0 + 4096 + 2048) * 2, 1e-9);
	CHECK_NEAR("reduce FLOPs: one per input element", est[6].flops, conv_out, 0);
	CHECK_NEAR("elementwise FLOPs: one per output element", est[7].flops, conv_out, 0);
	CHECK_NEAR("elementwise bytes: two operands and the output", est[7].bytes, 3 * conv_out * 4, 0);
	CHECK_NEAR("elementwise time is bandwidth-bound", est[7].seconds, 3 * conv_out * 4 / COST_HBM_BYTES_PER_S, 1e-15);
	CHECK_NEAR("tuples move nothing", est[8].bytes, 0, 0);
	{
		cost_estimate t = cost_total(est, N);
		double s = 0;

		for (int i = 0; i < N; i++)
			s += est[i].seconds;
		CHECK_NEAR("cost_total sums the seconds", t.seconds, s, 1e-15);
	}
	{
		double pred[3], pad[3], tiles[3], base;

		CHECK("tile terms", cost_tile_terms(g, pad, tiles, &base) == 0);
		/* The root is the tuple (no dims): nothing to tile, so every
		 * config costs the same; the test below uses node 7 instead. */
		CHECK("a tuple root gives no padding", pad[1] == 1 && tiles[1] == 1);
		CHECK("analytic tile scores", cost_predict_configs(g, pred, &err) == 0);
		CHECK_NEAR("the untiled config costs the whole graph", pred[0], (base + COST_TILE_STEP_SECONDS) * 1e9, 1e-6);
	}
	graph_free(g);

	/* Same graph with the add as root: config 1 tiles [8, 56, ...] by 8 x 64. */
	feat[8 * 140 + HLO_F_IS_ROOT] = 0;
	feat[7 * 140 + HLO_F_IS_ROOT] = 1;
	hs_inputs_clear(); /* path was read: the writer would refuse it */
	w = npz_writer_open(path, 0, &err);
	CHECK("rewrite the graph", w &&
		  !npz_writer_add(w, "node_feat", NPY_F4, 2, (int64_t[]){N, 140}, feat, &err) &&
		  !npz_writer_add(w, "node_opcode", NPY_U1, 1, (int64_t[]){N}, op, &err) &&
		  !npz_writer_add(w, "edge_index", NPY_I8, 2, (int64_t[]){ne, 2}, edges, &err) &&
		  !npz_writer_add(w, "config_feat", NPY_F4, 2, (int64_t[]){3, 24}, cf, &err) &&
		  !npz_writer_add(w, "config_runtime", NPY_I8, 1, (int64_t[]){3}, rt, &err) &&
		  !npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, (int64_t[]){3}, nrm, &err) &&
		  !npz_writer_finish(w, &err));
	g = graph_open(path, &err);
	if (g) {
		double pad[3], tiles[3], base;

		CHECK("tile terms with a real root", cost_tile_terms(g, pad, tiles, &base) == 0);
		/* dims 8, 56 tiled by 8, 64: ceil(8/8) * ceil(56/56) = 1 tile,
		 * 64 > 56 clamps to 56: no padding */
		CHECK_NEAR("tiles larger than a dim are clamped", pad[1], 1, 1e-12);
		CHECK_NEAR("one tile", tiles[1], 1, 0);
		CHECK_NEAR("3 x 16 tiles over 8 x 56: 12 tiles", tiles[2], 12, 0);
		CHECK_NEAR("3 x 16 tiles over 8 x 56: padded by 9/8 * 64/56", pad[2], 9.0 / 8 * 64 / 56, 1e-12);
		graph_free(g);
	}
	unlink(path);
	rmdir(dir);
	T_DONE();
}
