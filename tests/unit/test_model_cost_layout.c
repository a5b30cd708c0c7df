/* test_model_cost_layout.c - the layout terms of the analytic estimate on a
 * hand-built layout graph, each expected value worked out here from the
 * formulas in model/cost.c and model/cost_config.c:
 *
 *   0 parameter    bf16[2,64,64,32]{3,2,1,0}    fixed layout (the caller's)
 *   1 parameter    bf16[3,3,32,64]{3,2,1,0}
 *   2 convolution  bf16[2,64,64,64]{3,2,1,0} (0, 1)   configurable k = 0
 *   3 reduce       f32[64] (2)                  reads k = 0's output
 *   4 add          bf16[2,64,64,64] (2, 2)       elementwise: writes any layout
 *   5 convolution  bf16[2,64,64,64] (1, 4)       configurable k = 1 (operands by id: 1, then 4)
 *   6 tuple        (3, 5)
 *
 * Configs (output / input / kernel minor-to-major, -1 unset):
 *   c0  all unset: the recorded layouts
 *   c1  k0 output {0,3}: dim 0 (2) minor, dim 3 (64) second: MXU tile factor 64
 *   c2  k0 input {0,3}: the parameter cannot change layout: a copy
 *   c3  k1 input {0,3}: operand 0 of k1 is node 1 (a parameter): a copy too
 *   c4  k0 output {3,0,2,1} written out in full: same two minor dims as c1 but
 *       with dim 3 first: 64 lanes of 128 (factor 2) and 2 rows of a bf16
 *       tile's 16 (factor 8)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/inputs.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "loader/npz.h"
#include "loader/hlo_synth.h"
#include "model/cost.h"
#include "t.h"

enum { N = 7, C = 5, K = 2 };

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

static void conv(float *f)
{
	f[HLO_F_WINDOW_SIZE] = 3;
	f[HLO_F_WINDOW_SIZE + 1] = 3;
	f[HLO_F_WINDOW_SIZE + 7] = 9;
	f[HLO_F_CONV_DIMS + 1] = 3;
	f[HLO_F_FEATURE_GROUP_COUNT] = 1;
}

static void set(float *ncf, int c, int k, int slot, int a, int b)
{
	float *r = ncf + ((size_t)c * K + (size_t)k) * 18 + (size_t)slot * 6;

	r[0] = (float)a;
	r[1] = (float)b;
}

static hs_graph *write_graph(const char *path, int width)
{
	float *feat = calloc((size_t)N * (size_t)width, sizeof *feat), ncf[C * K * 18];
	float full[N * 140];
	uint8_t op[N] = {63, 63, 26, 70, 2, 26, 100};
	int64_t edges[][2] = {{2, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 1}, {5, 4}, {6, 3}, {6, 5}};
	int64_t ne = sizeof edges / sizeof edges[0], ids[K] = {2, 5}, rt[C] = {100, 200, 300, 400, 500};
	hs_error err = {0};
	npz_writer *w;

	memset(full, 0, sizeof full);
	shape(full + 0 * 140, HLO_ET_BF16, 4, (long[]){2, 64, 64, 32});
	shape(full + 1 * 140, HLO_ET_BF16, 4, (long[]){3, 3, 32, 64});
	shape(full + 2 * 140, HLO_ET_BF16, 4, (long[]){2, 64, 64, 64});
	conv(full + 2 * 140);
	shape(full + 3 * 140, HLO_ET_F32, 1, (long[]){64});
	shape(full + 4 * 140, HLO_ET_BF16, 4, (long[]){2, 64, 64, 64});
	shape(full + 5 * 140, HLO_ET_BF16, 4, (long[]){2, 64, 64, 64});
	conv(full + 5 * 140);
	full[6 * 140 + HLO_F_ELEMENT_TYPE + HLO_ET_TUPLE] = 1;
	full[6 * 140 + HLO_F_TUPLE_SIZE] = 2;
	full[6 * 140 + HLO_F_IS_ROOT] = 1;
	for (int v = 0; v < N; v++)
		for (int j = 0; j < width; j++)
			feat[v * width + j] = full[v * 140 + j];
	for (size_t i = 0; i < sizeof ncf / sizeof ncf[0]; i++)
		ncf[i] = -1;
	set(ncf, 1, 0, 0, 0, 3);
	set(ncf, 2, 0, 1, 0, 3);
	set(ncf, 3, 1, 1, 0, 3);
	set(ncf, 4, 0, 0, 3, 0);
	ncf[(4 * K + 0) * 18 + 2] = 2;
	ncf[(4 * K + 0) * 18 + 3] = 1;
	hs_inputs_clear(); /* path was read: the writer would refuse it */
	w = npz_writer_open(path, 0, &err);
	if (!w || npz_writer_add(w, "node_feat", NPY_F4, 2, (int64_t[]){N, width}, feat, &err) ||
	    npz_writer_add(w, "node_opcode", NPY_U1, 1, (int64_t[]){N}, op, &err) ||
	    npz_writer_add(w, "edge_index", NPY_I8, 2, (int64_t[]){ne, 2}, edges, &err) ||
	    npz_writer_add(w, "node_config_feat", NPY_F4, 3, (int64_t[]){C, K, 18}, ncf, &err) ||
	    npz_writer_add(w, "node_config_ids", NPY_I8, 1, (int64_t[]){K}, ids, &err) ||
	    npz_writer_add(w, "config_runtime", NPY_I8, 1, (int64_t[]){C}, rt, &err) ||
	    npz_writer_finish(w, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		free(feat);
		return NULL;
	}
	free(feat);
	return graph_open(path, &err);
}

int main(void)
{
	char dir[] = "/tmp/hs-costl.XXXXXX", path[256];
	hs_error err = {0};
	hs_graph *g;
	double p[C], contrib[K];
	const double bw = COST_HBM_BYTES_PER_S, op = COST_OP_SECONDS;
	const double act = 2.0 * 64 * 64 * 64 * 2, in = 2.0 * 64 * 64 * 32 * 2, kern = 3.0 * 3 * 32 * 64 * 2;

	if (!mkdtemp(dir)) {
		CHECK("scratch folder", 0);
		T_DONE();
	}
	snprintf(path, sizeof path, "%s/layout.npz", dir);

	/* Layouts: dims of size 1 take no space; partial layouts stop at -1. */
	{
		hm_decoded sd;
		float f[140] = {0};
		int l1[6] = {1, 0, 3, 2, -1, -1}, l2[6] = {3, -1, -1, -1, -1, -1};

		shape(f, HLO_ET_BF16, 4, (long[]){3, 1, 5, 300});
		const hm_shape *s = hm_decode(f, 140, &sd);
		cost_lay a = cost_lay_of(l1, 6, s), b = cost_lay_of(l2, 6, s), r = cost_lay_recorded(s);

		CHECK("a size-1 minor dim is skipped", a.m0 == 0 && a.m1 == 3);
		CHECK("a partial layout leaves the second minor unknown", b.m0 == 3 && b.m1 == -1);
		CHECK("the recorded layout is {3,2,1,0}", r.m0 == 3 && r.m1 == 2);
		CHECK_NEAR("tile factor: 3 lanes of 128, 300 rows of 8", cost_pad_factor(s, a), 128.0 / 3 * 304 / 300,
			   1e-12);
		CHECK_NEAR("tile factor with an unknown second minor", cost_pad_factor(s, b), 384.0 / 300, 1e-12);
	}

	g = write_graph(path, 140);
	CHECK("open the layout graph", g != NULL);
	if (!g)
		T_DONE();
	CHECK("analytic estimate available at width 140", cost_available(g));
	CHECK("scores", cost_predict_configs(g, p, &err) == 0);
	{
		/* c1: conv 2's compute is 64 times its FLOPs' time (MXU tiles),
		 * and the reduce reads its output padded 64 times instead of 2
		 * (recorded {3,2}: 64 lanes of 128). */
		double flops = 2.0 * 2 * 64 * 64 * 64 * 9 * 32, comp0 = flops / COST_PEAK_FLOPS;
		double mem2 = (in + kern + act) / bw, pad_rec = act * (2 - 1) / bw;
		double t0 = fmax(comp0 * 2, mem2 + pad_rec), t1 = fmax(comp0 * 64, mem2 + act * (64 - 1) / bw);
		double red0 = fmax(act / 2 / COST_PEAK_FLOPS, (act + 64 * 4) / bw + pad_rec);
		double red1 = fmax(act / 2 / COST_PEAK_FLOPS, (act + 64 * 4) / bw + act * 63 / bw);

		CHECK_NEAR("c1: MXU tile factor and the reader's padding", (p[1] - p[0]) * 1e-9,
			   (t1 - t0) + (red1 - red0), 1e-15);
	}
	/* c2: copy of the parameter from {3,2} (32 lanes: 4, 64 rows: 1) to
	 * {0,3} (2 lanes: 64, 32 rows: 1), read and written, plus one op. */
	CHECK_NEAR("c2: a copy the parameter's fixed layout forces", (p[2] - p[0]) * 1e-9, in * (4 + 64) / bw + op,
		   1e-15);
	/* c3: k1's operand 0 is node 1 (operands go by id), bf16[3,3,32,64]:
	 * from {3,2} (64 lanes: 2, 32 rows: 1) to {0,3} (3 lanes: 128/3, 64
	 * rows: 1). */
	CHECK_NEAR("c3: a copy of k1's input (node 1, a parameter)", (p[3] - p[0]) * 1e-9,
		   kern * (2 + 128.0 / 3) / bw + op, 1e-15);
	{
		/* c4: {3,0,2,1}: 64 lanes (factor 2), 2 rows of bf16's 16 (factor 8):
		 * 16 in all. */
		double flops = 2.0 * 2 * 64 * 64 * 64 * 9 * 32, comp0 = flops / COST_PEAK_FLOPS;
		double mem2 = (in + kern + act) / bw;
		double t0 = fmax(comp0 * 2, mem2 + act / bw), t4 = fmax(comp0 * 16, mem2 + act * 15 / bw);
		double red0 = (act + 64 * 4) / bw + act / bw, red4 = (act + 64 * 4) / bw + act * 15 / bw;

		CHECK_NEAR("c4: a full layout uses its two most minor dims", (p[4] - p[0]) * 1e-9, (t4 - t0) + (red4 - red0),
			   1e-15);
	}
	CHECK("contributions", cost_node_contributions(g, 0, 1, contrib, &err) == 0);
	CHECK_NEAR("contributions sum to the difference", contrib[0] + contrib[1], p[1] - p[0], 1e-6);
	CHECK_NEAR("k1 did not change", contrib[1], 0, 0);
	{
		double q[C];

		CHECK("scores without the copy term",
		      cost_predict_configs_terms(g, COST_T_ALL & ~COST_T_COPY, q, &err) == 0);
		CHECK_NEAR("without COST_T_COPY, c2 costs what c0 does", q[2], q[0], 1e-6);
		CHECK("scores without the MXU term", cost_predict_configs_terms(g, COST_T_ALL & ~COST_T_MXU, q, &err) == 0);
		CHECK("without COST_T_MXU, c1 costs less than with it", q[1] - q[0] < p[1] - p[0]);
	}
	{
		cost_estimate est[N];

		cost_analytic(g, est);
		CHECK_NEAR("a convolution pays the per-op overhead", est[2].overhead, op, 0);
		CHECK_NEAR("an elementwise op fuses: no overhead", est[4].overhead, 0, 0);
		CHECK_NEAR("seconds = max(compute, memory + padding) + copy + overhead", est[2].seconds,
			   fmax(est[2].compute, est[2].memory + est[2].padding) + est[2].copy + est[2].overhead, 1e-18);
	}
	graph_free(g);

	/* 70-wide features: no shapes to reason about. */
	g = write_graph(path, 70);
	CHECK("open the 70-wide graph", g != NULL);
	if (g) {
		CHECK("analytic estimate n/a at width 70", !cost_available(g) &&
			  strstr(cost_unavailable_reason(g), "not the documented 140"));
		CHECK("scoring a 70-wide graph fails with the reason",
		      cost_predict_configs(g, p, &err) < 0 && strstr(err.msg, "not the documented 140"));
		graph_free(g);
	}
	unlink(path);
	rmdir(dir);
	T_DONE();
}
