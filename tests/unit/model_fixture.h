/* model_fixture.h - small random layout and tile graphs written as .npz
 * files with the loader's writer, for the model unit tests.
 *
 * Layout graphs: a random DAG (each node has 1-2 earlier operands) whose
 * nodes are parameters, adds, convolutions, dots and reshapes; every
 * convolution, dot and reshape is configurable.  Node features follow the
 * documented 140-wide layout: f32 one-hot, 4 dims, layout {3,2,1,0},
 * convolution dimension numbers.  Configs pick for each configurable node
 * an output/input/kernel layout (a permutation of 0..3, or -1s).  Runtimes
 * follow a simple formula of those choices (see fixture_runtime).
 */
#ifndef HS_MODEL_FIXTURE_H
#define HS_MODEL_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "loader/hlo.h"
#include "loader/npz.h"
#include <math.h>

#include "base/rng.h"

static void fixture_perm(hs_splitmix *g, float *out)
{
	int p[4] = {0, 1, 2, 3};

	for (int i = 3; i > 0; i--) {
		int j = (int)hs_splitmix_below(g, (uint64_t)i + 1), t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
	for (int i = 0; i < 6; i++)
		out[i] = i < 4 ? (float)p[i] : -1;
}

/* Writes a layout fixture; returns 0 or -1. */
static int fixture_layout(const char *path, uint64_t seed, int n, int configs, int shuffle_labels)
{
	hs_splitmix g = hs_splitmix_seed(seed);
	float *feat = calloc((size_t)n * 140, sizeof *feat);
	uint8_t *op = calloc((size_t)n, 1);
	int64_t (*edges)[2] = calloc((size_t)n * 2, sizeof *edges);
	int64_t *cfg = calloc((size_t)n, sizeof *cfg), ne = 0, nc = 0;
	float *ncf = NULL;
	int64_t *rt = calloc((size_t)configs, sizeof *rt), splits[2] = {0, n};
	hs_error err = {0};
	npz_writer *w;
	int rc = -1;
	static const int kinds[5] = {63, 2, 26, 34, 75};

	if (!feat || !op || !edges || !cfg || !rt)
		goto out;
	for (int v = 0; v < n; v++) {
		float *f = feat + (size_t)v * 140;
		static const float sizes[4] = {8, 16, 32, 128};

		op[v] = (uint8_t)(v < 2 ? 63 : kinds[1 + hs_splitmix_below(&g, 4)]);
		f[HLO_F_ELEMENT_TYPE + HLO_ET_F32] = 1;
		f[HLO_F_DIMS_PRODUCT] = 1;
		for (int d = 0; d < 4; d++) {
			f[HLO_F_DIMS + d] = sizes[hs_splitmix_below(&g, 4)];
			f[HLO_F_DIMS_PRODUCT] *= f[HLO_F_DIMS + d];
			f[HLO_F_DIMS_SUM] += f[HLO_F_DIMS + d];
			f[HLO_F_LAYOUT + d] = (float)(3 - d);
		}
		f[HLO_F_WINDOW_SIZE + 7] = op[v] == 26 ? 9 : 0;
		f[HLO_F_CONV_DIMS + 1] = 3;  /* input feature dim */
		f[HLO_F_CONV_DIMS + 6] = 2;  /* kernel input feature */
		f[HLO_F_CONV_DIMS + 7] = 3;  /* kernel output feature */
		f[HLO_F_CONV_DIMS + 13] = 3; /* output feature */
		for (int j = 100; j < 133; j++)
			if (j != HLO_F_CONV_DIMS + 13 && j != HLO_F_FEATURE_GROUP_COUNT)
				f[j] = (float)hs_splitmix_below(&g, 3);
		f[HLO_F_FEATURE_GROUP_COUNT] = 1;
		if (v >= 2) {
			int k = 1 + (int)hs_splitmix_below(&g, 2);

			for (int i = 0; i < k; i++) {
				edges[ne][0] = v;
				edges[ne][1] = (int64_t)hs_splitmix_below(&g, (uint64_t)v);
				ne++;
			}
		}
		if (op[v] == 26 || op[v] == 34 || op[v] == 75)
			cfg[nc++] = v;
	}
	ncf = calloc((size_t)configs * (size_t)nc * 18, sizeof *ncf);
	if (!ncf)
		goto out;
	for (int c = 0; c < configs; c++) {
		double t = 1000;

		for (int64_t k = 0; k < nc; k++) {
			float *row = ncf + ((size_t)c * (size_t)nc + (size_t)k) * 18;

			for (int s = 0; s < 3; s++) {
				if (hs_splitmix_below(&g, 4) == 0)
					for (int i = 0; i < 6; i++)
						row[6 * s + i] = -1;
				else
					fixture_perm(&g, row + 6 * s);
			}
			/* Cost: minor dim 3 is cheap; a node whose output minor
			 * dim differs from its input's pays more. */
			t += row[0] == 3 ? 10 : 40 + 5.0 * (double)(k % 3);
			t += row[6] == row[0] ? 0 : 15;
			t += row[12] == 3 ? 0 : 8;
		}
		rt[c] = (int64_t)t * 1000 + (int64_t)hs_splitmix_below(&g, 50);
	}
	if (shuffle_labels)
		for (int c = configs - 1; c > 0; c--) {
			int j = (int)hs_splitmix_below(&g, (uint64_t)c + 1);
			int64_t x = rt[c];

			rt[c] = rt[j];
			rt[j] = x;
		}
	w = npz_writer_open(path, 0, &err);
	if (!w)
		goto out;
	{
		int64_t s_feat[2] = {n, 140}, s_op[1] = {n}, s_e[2] = {ne, 2}, s_cfg[1] = {nc};
		int64_t s_ncf[3] = {configs, nc, 18}, s_rt[1] = {configs}, s_sp[2] = {1, 2};

		if (npz_writer_add(w, "node_feat", NPY_F4, 2, s_feat, feat, &err) ||
		    npz_writer_add(w, "node_opcode", NPY_U1, 1, s_op, op, &err) ||
		    npz_writer_add(w, "edge_index", NPY_I8, 2, s_e, edges, &err) ||
		    npz_writer_add(w, "node_config_feat", NPY_F4, 3, s_ncf, ncf, &err) ||
		    npz_writer_add(w, "node_config_ids", NPY_I8, 1, s_cfg, cfg, &err) ||
		    npz_writer_add(w, "config_runtime", NPY_I8, 1, s_rt, rt, &err) ||
		    npz_writer_add(w, "node_splits", NPY_I8, 2, s_sp, splits, &err)) {
			npz_writer_abort(w);
			goto out;
		}
	}
	rc = npz_writer_finish(w, &err);
out:
	if (rc < 0 && err.msg[0])
		fprintf(stderr, "fixture: %s\n", err.msg);
	free(feat);
	free(op);
	free(edges);
	free(cfg);
	free(ncf);
	free(rt);
	return rc;
}

/* A tile fixture: a short chain ending in a root; configs tile the root's
 * output; runtime favours tiles whose minor size is a multiple of 128. */
static int fixture_tile(const char *path, uint64_t seed, int n, int configs)
{
	hs_splitmix g = hs_splitmix_seed(seed);
	float *feat = calloc((size_t)n * 140, sizeof *feat), *cf = calloc((size_t)configs * 24, sizeof *cf);
	uint8_t *op = calloc((size_t)n, 1);
	int64_t (*edges)[2] = calloc((size_t)n, sizeof *edges), ne = 0;
	int64_t *rt = calloc((size_t)configs, sizeof *rt), *nrm = calloc((size_t)configs, sizeof *nrm);
	hs_error err = {0};
	npz_writer *w;
	int rc = -1;

	if (!feat || !cf || !op || !edges || !rt || !nrm)
		goto out;
	for (int v = 0; v < n; v++) {
		float *f = feat + (size_t)v * 140;

		op[v] = (uint8_t)(v == 0 ? 63 : v % 3 == 0 ? 34 : 2);
		f[HLO_F_ELEMENT_TYPE + HLO_ET_F32] = 1;
		f[HLO_F_DIMS] = 64;
		f[HLO_F_DIMS + 1] = 512;
		f[HLO_F_DIMS_PRODUCT] = 64 * 512;
		f[HLO_F_LAYOUT] = 1;
		f[HLO_F_IS_ROOT] = v == n - 1;
		if (v > 0) {
			edges[ne][0] = v;
			edges[ne][1] = v - 1;
			ne++;
		}
	}
	for (int c = 0; c < configs; c++) {
		float *x = cf + (size_t)c * 24;
		double a = (double)(8 << hs_splitmix_below(&g, 4)), b = (double)(32 << hs_splitmix_below(&g, 5));

		x[8] = (float)a;
		x[9] = (float)b;
		x[14] = (float)(a + b);
		x[15] = (float)(a * b);
		rt[c] = (int64_t)(1000 + (64 / a) * (512 / b) * 50 + (fmod(b, 128) != 0 ? 3000 : 0)) +
			(int64_t)hs_splitmix_below(&g, 20);
		nrm[c] = 2000;
	}
	w = npz_writer_open(path, 0, &err);
	if (!w)
		goto out;
	{
		int64_t s_feat[2] = {n, 140}, s_op[1] = {n}, s_e[2] = {ne, 2}, s_cf[2] = {configs, 24},
			s_rt[1] = {configs};

		if (npz_writer_add(w, "node_feat", NPY_F4, 2, s_feat, feat, &err) ||
		    npz_writer_add(w, "node_opcode", NPY_U1, 1, s_op, op, &err) ||
		    npz_writer_add(w, "edge_index", NPY_I8, 2, s_e, edges, &err) ||
		    npz_writer_add(w, "config_feat", NPY_F4, 2, s_cf, cf, &err) ||
		    npz_writer_add(w, "config_runtime", NPY_I8, 1, s_rt, rt, &err) ||
		    npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, s_rt, nrm, &err)) {
			npz_writer_abort(w);
			goto out;
		}
	}
	rc = npz_writer_finish(w, &err);
out:
	if (rc < 0 && err.msg[0])
		fprintf(stderr, "fixture: %s\n", err.msg);
	free(feat);
	free(cf);
	free(op);
	free(edges);
	free(rt);
	free(nrm);
	return rc;
}

#endif
