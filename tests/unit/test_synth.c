/* test_synth.c - the synthetic demo dataset (synth/): the graphs it builds,
 * what their features say, the runtime formulas on hand-computed configs,
 * the drawn configs, and the written tree (determinism, failures).
 *
 * Expected numbers are worked out by hand from the formulas at the top of
 * synth/layout.c and synth/tile.c (the arithmetic is in the comments).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "loader/hlo.h"
#include "loader/hlo_synth.h"
#include "synth/configs.h"
#include "synth/builder.h"
#include "synth/plan.h"
#include "synth/synth.h"
#include "tests/unit/t.h"

static int feat_index(const char *name)
{
	int i = hlo_node_feature_index(name);
	if (i < 0) {
		printf("FAIL feature '%s' is unknown\n", name);
		t_failed = 1;
		return 0;
	}
	return i;
}

static const hm_shape *shape_of(const synth_arrays *a, int64_t i, hm_decoded *d)
{
	return hm_decode(a->feat + (size_t)i * HLO_NODE_FEATURES, HLO_NODE_FEATURES, d);
}

static const char *shape_text(const synth_arrays *a, int64_t i, char *buf, size_t cap)
{
	hm_decoded d;
	hm_shape_text(shape_of(a, i, &d), buf, cap);
	return buf;
}

static float feat(const synth_arrays *a, int64_t i, const char *name)
{
	return a->feat[(size_t)i * HLO_NODE_FEATURES + (size_t)feat_index(name)];
}

/* Builds and encodes program or kernel `i`; 0 on success. */
static int build_program(int i, synth_graph *g, synth_arrays *a)
{
	hs_error err;
	hs_error_clear(&err);
	if (synth_graph_init(g) < 0)
		return -1;
	synth_build_program(g, &synth_programs[i]);
	if (synth_graph_check(g, synth_programs[i].name, &err) < 0 ||
	    synth_encode(g, a, &err) < 0) {
		printf("FAIL build %s: %s\n", synth_programs[i].name, err.msg);
		t_failed = 1;
		synth_graph_done(g);
		return -1;
	}
	return 0;
}

static int build_kernel(int i, synth_graph *g, synth_arrays *a, synth_kernel_info *ki)
{
	hs_error err;
	char desc[128];
	hs_error_clear(&err);
	synth_kernel_desc(&synth_kernels[i], desc, sizeof desc);
	if (synth_graph_init(g) < 0)
		return -1;
	synth_build_kernel(g, &synth_kernels[i], ki);
	if (synth_graph_check(g, desc, &err) < 0 || synth_encode(g, a, &err) < 0) {
		printf("FAIL build %s: %s\n", desc, err.msg);
		t_failed = 1;
		synth_graph_done(g);
		return -1;
	}
	return 0;
}

static int count_op(const synth_arrays *a, const char *opcode)
{
	int id = hlo_opcode_id(opcode), n = 0;
	for (int64_t i = 0; i < a->n; i++)
		n += a->opcode[i] == id;
	return n;
}

/* ---- graphs ------------------------------------------------------------- */

/* Edges: [u, v] with u > v >= 0, u < n, sorted by (u, v), no duplicates;
 * splits rise from 0 to n; every node is in topological order. */
static void check_structure(const char *what, const synth_graph *g, const synth_arrays *a)
{
	char name[160];
	int ok = a->n == g->n && a->m > 0;
	for (int64_t e = 0; ok && e < a->m; e++) {
		int64_t u = a->edges[2 * e], v = a->edges[2 * e + 1];
		ok = u > v && v >= 0 && u < a->n;
		if (ok && e > 0) {
			int64_t pu = a->edges[2 * e - 2], pv = a->edges[2 * e - 1];
			ok = pu < u || (pu == u && pv < v);
		}
	}
	snprintf(name, sizeof name, "synth %s: edges u > v, in range, sorted, distinct", what);
	CHECK(name, ok);
	ok = a->nsplits == g->ncomp + 1 && a->splits[0] == 0 && a->splits[a->nsplits - 1] == a->n;
	for (int64_t c = 1; ok && c < a->nsplits; c++)
		ok = a->splits[c] > a->splits[c - 1];
	/* Each computation's last node is its root, and only that one. */
	int roots = 0;
	for (int64_t i = 0; i < a->n; i++)
		roots += feat(a, i, "is_root") == 1;
	for (int64_t c = 1; ok && c < a->nsplits; c++)
		ok = feat(a, a->splits[c] - 1, "is_root") == 1;
	snprintf(name, sizeof name, "synth %s: node_splits delimit computations ending in roots",
		 what);
	CHECK(name, ok && roots == g->ncomp);
	/* Features agree with the builder's shapes, element types and layouts. */
	ok = 1;
	for (int i = 0; ok && i < g->n; i++) {
		const synth_node *x = &g->v[i];
		hm_decoded sd;
		const hm_shape *s = shape_of(a, i, &sd);
		if (x->et == HLO_ET_TUPLE) {
			ok = s->element_type == HM_TUPLE && s->n_tuple == x->tuple_n;
			continue;
		}
		ok = hm_element_type_onehot(s->element_type) == x->et && s->rank == x->rank &&
		     (x->rank == 0 || s->has_layout);
		for (int d = 0; ok && d < x->rank; d++)
			ok = s->dims[d] == x->dim[d] && s->minor_to_major[d] == x->m2m[d];
		if (!ok)
			printf("  node %d: opcode %s\n", i, hlo_opcode_name(a->opcode[i]));
	}
	snprintf(name, sizeof name, "synth %s: decoded shapes are the built shapes", what);
	CHECK(name, ok);
}

/* Every convolution's features fit its operands: feature dims match, the
 * window is the kernel's spatial size and the output spatial dims are
 * (in + low + high - window) / stride + 1. */
static void check_convolutions(const char *what, const synth_graph *g, const synth_arrays *a)
{
	char name[160];
	int conv = hlo_opcode_id("convolution"), ok = 1;
	for (int64_t i = 0; ok && i < a->n; i++) {
		if (a->opcode[i] != conv)
			continue;
		hm_decoded od, ind, wd;
		const hm_shape o = *shape_of(a, i, &od), in = *shape_of(a, g->v[i].ops[0], &ind),
			       w = *shape_of(a, g->v[i].ops[1], &wd);
		int fi = (int)feat(a, i, "convolution_dim_numbers_input_feature_dim");
		int fo = (int)feat(a, i, "convolution_dim_numbers_output_feature_dim");
		int ki = (int)feat(a, i, "convolution_dim_numbers_kernel_input_feature_dim");
		int ko = (int)feat(a, i, "convolution_dim_numbers_kernel_output_feature_dim");
		ok = in.dims[fi] == w.dims[ki] && o.dims[fo] == w.dims[ko] &&
		     feat(a, i, "feature_group_count") == 1;
		for (int j = 0; ok && j < 2; j++) {
			char f[96];
			snprintf(f, sizeof f, "convolution_dim_numbers_input_spatial_dims_%d", j);
			int sp = (int)feat(a, i, f);
			snprintf(f, sizeof f, "convolution_dim_numbers_kernel_spatial_dims_%d", j);
			int ks = (int)feat(a, i, f);
			snprintf(f, sizeof f, "window_size_%d", j);
			long long size = (long long)feat(a, i, f);
			snprintf(f, sizeof f, "window_stride_%d", j);
			long long stride = (long long)feat(a, i, f);
			snprintf(f, sizeof f, "window_padding_low_%d", j);
			long long lo = (long long)feat(a, i, f);
			snprintf(f, sizeof f, "window_padding_high_%d", j);
			long long hi = (long long)feat(a, i, f);
			ok = size == w.dims[ks] && stride > 0 &&
			     o.dims[sp] == (in.dims[sp] + lo + hi - size) / stride + 1;
		}
		if (!ok)
			printf("  convolution node %lld does not fit its operands\n", (long long)i);
	}
	snprintf(name, sizeof name, "synth %s: convolution features fit the operand shapes",
		 what);
	CHECK(name, ok);
}

/* The NHWC conv-net: counts and shapes worked out from programs.c. */
static void test_convnet(void)
{
	synth_graph g;
	synth_arrays a;
	char buf[96];
	const synth_program *p = &synth_programs[0];
	CHECK("synth program 0 is the small NHWC conv-net",
	      !strcmp(p->name, "synth_resnet_nhwc_b8_s28") && p->kind == SYNTH_CONVNET &&
		      !p->nchw && p->stages == 2 && p->depth == 3);
	if (build_program(0, &g, &a) < 0)
		return;
	/* The sizes DIR/README lists for this file. */
	CHECK("synth conv-net: 626 nodes, 762 edges", a.n == 626 && a.m == 762);
	/* Stem + per stage 3 convolutions a block and 1 projection shortcut:
	 * 1 + 2 * (3 * 3 + 1) = 21; each has a batch norm of 2 reduces, plus the
	 * average pool and softmax's max and sum: 21 * 2 + 1 + 2 = 45. */
	CHECK("synth conv-net: 21 convolutions", count_op(&a, "convolution") == 21);
	CHECK("synth conv-net: 45 reduces", count_op(&a, "reduce") == 45);
	CHECK("synth conv-net: one max pool, one dot, one reshape, one transpose",
	      count_op(&a, "reduce-window") == 1 && count_op(&a, "dot") == 1 &&
		      count_op(&a, "reshape") == 1 && count_op(&a, "transpose") == 1);
	/* Parameters: image, 3 per convolution (weight, gamma, beta), dense
	 * weight and bias = 66 in the entry, plus 2 in each of 2 reducers. */
	CHECK("synth conv-net: 70 parameters", count_op(&a, "parameter") == 70);
	CHECK("synth conv-net: reducers, then the entry computation",
	      a.nsplits == 4 && a.splits[1] == 3 && a.splits[2] == 6);
	int nk = 0;
	for (int i = 0; i < g.n; i++)
		nk += g.v[i].cfg != SY_CFG_NONE;
	CHECK("synth conv-net: 24 configurable nodes (21 conv, dot, reshape, transpose)",
	      nk == 24);

	/* Shapes: a 112x112 image in NCHW, transposed to NHWC; the 7x7/2 stem
	 * gives 56x56x32; the 3x3/2 pool 28x28; stage 0 keeps 28x28 with 4 * 32
	 * channels, stage 1 halves to 14x14 with 4 * 64. */
	int first = (int)a.splits[2], conv = hlo_opcode_id("convolution");
	CHECK("synth conv-net: the image", !strcmp(shape_text(&a, first, buf, sizeof buf),
						   "f32[8,3,112,112]{3,2,1,0}"));
	int64_t stem = -1, last = -1, pool = -1, dot = -1;
	for (int64_t i = 0; i < a.n; i++) {
		if (a.opcode[i] == conv) {
			if (stem < 0)
				stem = i;
			last = i;
		}
		if (a.opcode[i] == hlo_opcode_id("reduce-window"))
			pool = i;
		if (a.opcode[i] == hlo_opcode_id("dot"))
			dot = i;
	}
	CHECK("synth conv-net: stem output",
	      stem >= 0 && !strcmp(shape_text(&a, stem, buf, sizeof buf),
				   "bf16[8,56,56,32]{3,2,1,0}"));
	CHECK("synth conv-net: stem window 7x7, stride 2, padding 3",
	      stem >= 0 && feat(&a, stem, "window_size_0") == 7 &&
		      feat(&a, stem, "window_size_1") == 7 &&
		      feat(&a, stem, "window_stride_0") == 2 &&
		      feat(&a, stem, "window_padding_low_1") == 3 &&
		      feat(&a, stem, "convolution_dim_numbers_input_feature_dim") == 3);
	CHECK("synth conv-net: max pool output",
	      pool >= 0 && !strcmp(shape_text(&a, pool, buf, sizeof buf),
				   "bf16[8,28,28,32]{3,2,1,0}"));
	CHECK("synth conv-net: last stage output",
	      last >= 0 && !strcmp(shape_text(&a, last, buf, sizeof buf),
				   "bf16[8,14,14,256]{3,2,1,0}"));
	CHECK("synth conv-net: logits", dot >= 0 && !strcmp(shape_text(&a, dot, buf, sizeof buf),
							    "bf16[8,1000]{1,0}"));
	CHECK("synth conv-net: the root is a pair",
	      feat(&a, a.n - 1, "is_root") == 1 &&
		      feat(&a, a.n - 1, "shape_tuple_shapes_size") == 2);
	check_structure("conv-net", &g, &a);
	check_convolutions("conv-net", &g, &a);
	synth_arrays_free(&a);
	synth_graph_done(&g);

	/* The NCHW variant: the same net with the feature dim at 1. */
	if (build_program(1, &g, &a) < 0)
		return;
	CHECK("synth NCHW conv-net: same node count",
	      a.n == 626 && count_op(&a, "convolution") == 21);
	for (int64_t i = 0; i < a.n; i++)
		if (a.opcode[i] == conv) {
			int fd = (int)feat(&a, i, "convolution_dim_numbers_input_feature_dim");
			CHECK("synth NCHW conv-net: stem output in NCHW",
			      !strcmp(shape_text(&a, i, buf, sizeof buf),
				      "bf16[8,32,56,56]{3,2,1,0}") && fd == 1);
			break;
		}
	check_convolutions("NCHW conv-net", &g, &a);
	synth_arrays_free(&a);
	synth_graph_done(&g);
}

/* Every program and kernel of the plan builds, with valid structure. */
static void test_plan(void)
{
	char what[160];
	synth_graph g;
	synth_arrays a;
	synth_kernel_info ki;
	for (int i = 0; i < synth_nprograms; i++) {
		if (build_program(i, &g, &a) < 0)
			continue;
		check_structure(synth_programs[i].name, &g, &a);
		check_convolutions(synth_programs[i].name, &g, &a);
		synth_arrays_free(&a);
		synth_graph_done(&g);
	}
	for (int i = 0; i < synth_nkernels; i++) {
		if (build_kernel(i, &g, &a, &ki) < 0)
			continue;
		synth_kernel_desc(&synth_kernels[i], what, sizeof what);
		check_structure(what, &g, &a);
		check_convolutions(what, &g, &a);
		/* The fusion is the last node and calls the fused root. */
		int fu = g.n - 1, root = ki.body_end - 1, called = 0;
		for (int64_t e = 0; e < a.m; e++)
			called |= a.edges[2 * e] == fu && a.edges[2 * e + 1] == root;
		size_t len = strlen(what);
		snprintf(what + len, sizeof what - len, ": fusion calls the root");
		CHECK(what, a.opcode[fu] == hlo_opcode_id("fusion") && called &&
				    ki.out >= ki.body_start && ki.out < ki.body_end);
		synth_arrays_free(&a);
		synth_graph_done(&g);
	}
}

/* ---- the runtime formulas ----------------------------------------------- */

static void set_layout(int8_t *row, int a, int b)
{
	memset(row, -1, 6);
	row[0] = (int8_t)a;
	row[1] = (int8_t)b;
}

static void test_layout_formula(void)
{
	synth_graph g;
	synth_layout lp;
	hs_error err;
	int8_t rows[18];
	hs_error_clear(&err);
	/* p0 bf16[64,128], p1 bf16[128,256], d = dot -> bf16[64,256], exp(d). */
	synth_graph_init(&g);
	synth_comp_begin(&g);
	int64_t s0[2] = {64, 128}, s1[2] = {128, 256};
	int p0 = synth_param(&g, HLO_ET_BF16, 2, s0), p1 = synth_param(&g, HLO_ET_BF16, 2, s1);
	int d = synth_dot(&g, p0, p1);
	synth_comp_end(&g, synth_un(&g, SY_EXP, d));
	CHECK("synth layout formula: graph builds", synth_graph_check(&g, "dot", &err) == 0);
	CHECK("synth layout formula: setup", synth_layout_setup(&g, &lp, &err) == 0);
	CHECK("synth layout formula: the dot is the one configurable node",
	      lp.nk == 1 && lp.k[0].node == d && lp.nusers[0] == 1);
	/* F = 0.25 * (250 + 32768 / 819) for the exp = 72.502442;
	 * T = 250 + max(4194304 / 123000, (32768 + 16384 + 65536) / 819)
	 *   = 250 + 140.034188 = 390.034188 with no penalty. */
	memset(rows, -1, sizeof rows);
	CHECK_NEAR("synth layout formula: default config", synth_layout_runtime(&lp, rows),
		   462.536630037, 1e-6);
	/* Kernel layout (m0, m1) = (0, 1): a copy of p1, 2 * 65536 / 819 =
	 * 160.039072, and P = 1 + 2.0 + 0.5: 72.502442 + 160.039072 + 3.5 T. */
	set_layout(rows + 12, 0, 1);
	CHECK_NEAR("synth layout formula: transposed kernel", synth_layout_runtime(&lp, rows),
		   1597.661172161, 1e-6);
	/* Output (0, 1): P = 1 + 1.5, and exp expects the default: a copy of d,
	 * 2 * 32768 / 819 = 80.019536. */
	memset(rows, -1, sizeof rows);
	set_layout(rows, 0, 1);
	CHECK_NEAR("synth layout formula: transposed output", synth_layout_runtime(&lp, rows),
		   1127.607448107, 1e-6);
	/* Naming the layout the operand has anyway costs nothing. */
	memset(rows, -1, sizeof rows);
	set_layout(rows + 6, 1, 0);
	CHECK_NEAR("synth layout formula: explicit default input",
		   synth_layout_runtime(&lp, rows), 462.536630037, 1e-6);
	synth_layout_free(&lp);
	synth_graph_done(&g);

	/* A transpose f32[16,32] -> f32[32,16]: a bitcast when its output
	 * layout is (0, 1), 250 + 2 * 2048 / 819 * 0.05; else the full copy. */
	synth_graph_init(&g);
	synth_comp_begin(&g);
	int64_t s2[2] = {16, 32};
	int perm[2] = {1, 0};
	int t = synth_transpose(&g, synth_param(&g, HLO_ET_F32, 2, s2), perm);
	synth_comp_end(&g, t);
	synth_layout_setup(&g, &lp, &err);
	memset(rows, -1, sizeof rows);
	CHECK_NEAR("synth layout formula: transpose copies", synth_layout_runtime(&lp, rows),
		   255.001221001, 1e-6);
	set_layout(rows, 0, 1);
	CHECK_NEAR("synth layout formula: transpose as a bitcast",
		   synth_layout_runtime(&lp, rows), 250.250061050, 1e-6);
	synth_layout_free(&lp);
	synth_graph_done(&g);
}

static void tile_bounds(float *cf, int64_t t0, int64_t t1)
{
	memset(cf, 0, sizeof(float) * 24);
	cf[8] = (float)t0;
	cf[9] = (float)t1;
}

static void test_tile_formula(void)
{
	synth_graph g;
	synth_tile tp;
	synth_kernel_info ki;
	float cf[24];

	/* exp of f32[256,1024]: W = 1, B = (1 MiB + 1 MiB) / 262144 = 8. */
	synth_graph_init(&g);
	synth_comp_begin(&g);
	int64_t s[2] = {256, 1024};
	int e = synth_un(&g, SY_EXP, synth_param(&g, HLO_ET_F32, 2, s));
	synth_comp_end(&g, e);
	memset(&ki, 0, sizeof ki);
	ki.out = e;
	ki.contract = -1;
	ki.body_start = 0;
	ki.body_end = g.n;
	synth_tile_setup(&g, &ki, &tp);
	CHECK("synth tile formula: W and B", tp.W == 1 && tp.B == 8 && tp.esize == 4);
	/* 8x128 tiles: 32 * 8 = 256 steps of 120 + max(1024 / 4096,
	 * 1024 * 8 / 819) = 130.002442; 1500 + 256 * that. */
	tile_bounds(cf, 8, 128);
	CHECK_NEAR("synth tile formula: 8x128", synth_tile_runtime(&tp, cf), 34780.625152625,
		   1e-6);
	/* 8x100: 32 * 11 = 352 steps, lanes padded to 128 (1.28), memory-bound:
	 * 120 + 800 * 8 / 819. */
	tile_bounds(cf, 8, 100);
	CHECK_NEAR("synth tile formula: 8x100 pads the lanes", synth_tile_runtime(&tp, cf),
		   46490.671550672, 1e-6);
	synth_graph_done(&g);

	/* The whole f32[2048,4096] in one tile spills: ws = 2 * 8M * 8 = 128 MiB,
	 * step = (120 + 8M * 8 / 819) * (1 + 128 / 16). */
	synth_graph_init(&g);
	synth_comp_begin(&g);
	int64_t big[2] = {2048, 4096};
	e = synth_un(&g, SY_EXP, synth_param(&g, HLO_ET_F32, 2, big));
	synth_comp_end(&g, e);
	ki.out = e;
	ki.body_end = g.n;
	synth_tile_setup(&g, &ki, &tp);
	tile_bounds(cf, 2048, 4096);
	CHECK_NEAR("synth tile formula: spilling", synth_tile_runtime(&tp, cf),
		   740040.043956044, 1e-6);
	synth_graph_done(&g);

	/* dot bf16[256,512] x bf16[512,1024]: W = 0, B = (256K + 1M + 512K) /
	 * 256K = 7; K = 512.  Output tiles 128x256, kernel bounds (128, 256):
	 * k = 128, ksteps = 4, 8 steps of 4 * 120 + max(4 * 32768 * 256 /
	 * 123000, (32768 * 7 + 4 * 128 * 256 * 2) / 819) = 480 + 600.146520. */
	synth_graph_init(&g);
	synth_comp_begin(&g);
	int64_t a0[2] = {256, 512}, a1[2] = {512, 1024};
	int d = synth_dot(&g, synth_param(&g, HLO_ET_BF16, 2, a0),
			  synth_param(&g, HLO_ET_BF16, 2, a1));
	synth_comp_end(&g, d);
	memset(&ki, 0, sizeof ki);
	ki.out = ki.contract = d;
	ki.krank = 2;
	ki.kdim[0] = 512;
	ki.kdim[1] = 1024;
	ki.kout = 1;
	ki.out_feat = 1;
	ki.K = 512;
	ki.body_end = g.n;
	synth_tile_setup(&g, &ki, &tp);
	CHECK("synth tile formula: dot W, B and contracted dim",
	      tp.W == 0 && tp.B == 7 && tp.kin == 0 && tp.esize == 2);
	tile_bounds(cf, 128, 256);
	cf[0] = 128;
	cf[1] = 256;
	CHECK_NEAR("synth tile formula: dot", synth_tile_runtime(&tp, cf), 10141.172161172, 1e-6);
	synth_graph_done(&g);
}

/* ---- drawn configs ------------------------------------------------------ */

static void test_layout_draw(void)
{
	synth_graph g;
	synth_arrays a;
	synth_layout lp;
	synth_layout_configs lc, lc2;
	hs_error err;
	hs_error_clear(&err);
	if (build_program(0, &g, &a) < 0)
		return;
	synth_layout_setup(&g, &lp, &err);
	int rc = synth_layout_draw(&lp, "conv", 42, 60, 0, 0, &lc, &err);
	CHECK("synth layout draw: 60 default-search configs", rc == 0 && lc.c == 60 && lc.nk == 24);
	if (rc < 0)
		goto out;
	int ndefault = 0, distinct = 1, near = 1, ids = 1;
	size_t row = (size_t)lc.nk * 18;
	int8_t *rows = malloc(row);
	for (int i = 0; i < lc.c; i++) {
		int all = 1;
		for (size_t j = 0; j < row; j++) {
			rows[j] = (int8_t)lc.feat[i * row + j];
			all &= rows[j] == -1;
		}
		ndefault += all;
		for (int k = 0; k < i && distinct; k++)
			distinct = memcmp(lc.feat + i * row, lc.feat + k * row,
					  row * sizeof(float)) != 0;
		/* Noise exp(0.03 z): within 5 sigma of the formula. */
		double f = synth_layout_runtime(&lp, rows);
		near &= lc.runtime[i] > 0 && fabs(log((double)lc.runtime[i] / f)) < 0.15;
	}
	for (int k = 0; k < lc.nk; k++)
		ids &= g.v[lc.ids[k]].cfg != SY_CFG_NONE && (k == 0 || lc.ids[k] > lc.ids[k - 1]);
	free(rows);
	CHECK("synth layout draw: the default config exactly once", ndefault == 1);
	CHECK("synth layout draw: configs are distinct", distinct);
	CHECK("synth layout draw: runtimes are the formula within the noise", near);
	CHECK("synth layout draw: node_config_ids are the configurable nodes", ids);
	rc = synth_layout_draw(&lp, "conv", 42, 60, 0, 0, &lc2, &err);
	CHECK("synth layout draw: same seed, same configs",
	      rc == 0 && lc2.c == lc.c &&
		      !memcmp(lc.feat, lc2.feat, sizeof(float) * row * (size_t)lc.c) &&
		      !memcmp(lc.runtime, lc2.runtime, sizeof(int64_t) * (size_t)lc.c));
	synth_layout_configs_free(&lc2);
	rc = synth_layout_draw(&lp, "conv", 42, 60, 0, 1, &lc2, &err);
	int hidden = rc == 0;
	for (int i = 0; hidden && i < lc2.c; i++)
		hidden = lc2.runtime[i] == 0;
	CHECK("synth layout draw: test labels are hidden", hidden);
	synth_layout_configs_free(&lc2);
	synth_layout_configs_free(&lc);
out:
	synth_layout_free(&lp);
	synth_arrays_free(&a);
	synth_graph_done(&g);
}

static void test_tile_draw(void)
{
	synth_graph g;
	synth_arrays a;
	synth_kernel_info ki;
	synth_tile tp;
	synth_tile_configs tc;
	hs_error err;
	hs_error_clear(&err);
	/* Kernel 0: a 3x3 conv_bn_relu with a contraction. */
	if (build_kernel(0, &g, &a, &ki) < 0)
		return;
	synth_tile_setup(&g, &ki, &tp);
	int rc = synth_tile_draw(&tp, 7, 80, 0, &tc, &err);
	CHECK("synth tile draw: 80 configs", rc == 0 && tc.c == 80);
	if (rc == 0) {
		int norm = 1, near = 1, bounds = 1;
		for (int i = 0; i < tc.c; i++) {
			const float *cf = tc.feat + (size_t)i * 24;
			double f = synth_tile_runtime(&tp, cf);
			norm &= tc.normalizers[i] == tc.runtime[0];
			near &= fabs(log((double)tc.runtime[i] / f)) < 0.15;
			for (int d = 0; d < tp.r; d++)
				bounds &= cf[8 + d] >= 1 && cf[8 + d] <= tp.D[d];
		}
		/* Config 0, the default: from the minor dim up whole dims while
		 * 2 * tile * B <= 2 MiB. */
		const float *c0 = tc.feat;
		double tile = 1;
		for (int d = 0; d < tp.r; d++)
			tile *= c0[8 + d];
		CHECK("synth tile draw: normalizers are config 0's runtime", norm);
		CHECK("synth tile draw: runtimes are the formula within the noise", near);
		CHECK("synth tile draw: output bounds within the output dims", bounds);
		CHECK("synth tile draw: config 0 fits the default working set",
		      2.0 * tile * tp.B <= 2.0 * 1024 * 1024 && c0[8 + tp.r - 1] == tp.D[tp.r - 1]);
		synth_tile_configs_free(&tc);
	}
	rc = synth_tile_draw(&tp, 7, 80, 1, &tc, &err);
	int hidden = rc == 0;
	for (int i = 0; hidden && i < tc.c; i++)
		hidden = tc.runtime[i] == 0 && tc.normalizers[i] == 1;
	CHECK("synth tile draw: test labels are hidden", hidden);
	synth_tile_configs_free(&tc);
	synth_arrays_free(&a);
	synth_graph_done(&g);
}

/* ---- the written tree --------------------------------------------------- */

static char tmp_root[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *fw)
{
	(void)st;
	(void)flag;
	(void)fw;
	remove(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Reads a whole file; NULL if it cannot. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, len = 0, got;
	do {
		if (len + 65536 > cap) {
			cap = cap * 2 + 65536;
			char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	*n = len;
	return buf;
}

/* The files of a tree (relative paths), collected by nftw. */
static char files[64][512];
static int nfiles;
static size_t files_prefix;

static int add_file(const char *path, const struct stat *st, int flag, struct FTW *fw)
{
	(void)st;
	(void)fw;
	if (flag == FTW_F && nfiles < 64)
		snprintf(files[nfiles++], sizeof files[0], "%s", path + files_prefix);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int list_files(const char *dir)
{
	nfiles = 0;
	files_prefix = strlen(dir);
	nftw(dir, add_file, 16, FTW_PHYS);
	qsort(files, (size_t)nfiles, sizeof files[0], cmp_str);
	return nfiles;
}

/* Counts the files of a and b (same names) whose bytes differ; -1 when the
 * names differ or a file cannot be read. */
static int count_differing(const char *a, const char *b)
{
	static char names[64][512];
	int n = list_files(a);
	memcpy(names, files, sizeof names);
	if (list_files(b) != n)
		return -1;
	int differ = 0;
	for (int i = 0; i < n; i++) {
		char pa[4700], pb[4700];
		size_t na, nb;
		if (strcmp(names[i], files[i]))
			return -1;
		snprintf(pa, sizeof pa, "%s%s", a, names[i]);
		snprintf(pb, sizeof pb, "%s%s", b, files[i]);
		char *x = slurp(pa, &na), *y = slurp(pb, &nb);
		if (!x || !y) {
			free(x);
			free(y);
			return -1;
		}
		differ += na != nb || memcmp(x, y, na) != 0;
		free(x);
		free(y);
	}
	return differ;
}

/* The README's file table agrees with the graphs: per layout program its
 * nodes, edges and configurable nodes; per kernel its nodes and edges. */
static void check_readme_table(const char *dir)
{
	char path[4200];
	size_t n;
	snprintf(path, sizeof path, "%s/README", dir);
	char *text = slurp(path, &n);
	int ok = text != NULL, rows = 0;
	if (text)
		text[n ? n - 1 : 0] = '\0';
	for (int i = 0; ok && i < synth_nprograms; i++) {
		synth_graph g;
		synth_arrays a;
		char want[160];
		if (build_program(i, &g, &a) < 0) {
			ok = 0;
			break;
		}
		int nk = 0;
		for (int j = 0; j < g.n; j++)
			nk += g.v[j].cfg != SY_CFG_NONE && j >= g.comp[g.ncomp - 1];
		if (strcmp(synth_programs[i].split, "test")) {
			snprintf(want, sizeof want, "%-32s %5d %6lld %3d ", synth_programs[i].name,
				 g.n, (long long)a.m, nk);
			ok = strstr(text, want) != NULL;
			rows += ok;
		}
		synth_arrays_free(&a);
		synth_graph_done(&g);
	}
	for (int i = 0; ok && i < synth_nkernels; i++) {
		synth_graph g;
		synth_arrays a;
		synth_kernel_info ki;
		char desc[128], want[300];
		if (build_kernel(i, &g, &a, &ki) < 0) {
			ok = 0;
			break;
		}
		synth_kernel_desc(&synth_kernels[i], desc, sizeof desc);
		if (strcmp(synth_kernels[i].split, "test")) {
			/* name = desc + "_" + 16 hex digits, padded to 48 */
			char *at = strstr(text, desc);
			ok = at != NULL;
			if (ok) {
				size_t w = strlen(desc) + 17 > 48 ? strlen(desc) + 17 : 48;
				snprintf(want, sizeof want, " %3d %4lld ", g.n, (long long)a.m);
				ok = !strncmp(at + w, want, strlen(want));
			}
			rows += ok;
		}
		synth_arrays_free(&a);
		synth_graph_done(&g);
	}
	free(text);
	CHECK("synth README: the file table gives each graph's sizes", ok && rows == 17);
}

static void test_write(void)
{
	char d1[4200], d2[4200], d3[4200];
	hs_error err;
	synth_report rep;
	snprintf(d1, sizeof d1, "%s/one", tmp_root);
	snprintf(d2, sizeof d2, "%s/two/", tmp_root); /* a trailing slash is fine */
	snprintf(d3, sizeof d3, "%s/three", tmp_root);
	hs_error_clear(&err);
	int rc = synth_write(d1, SYNTH_DEFAULT_SEED, &rep, &err);
	CHECK("synth write: default seed", rc == 0);
	if (rc < 0) {
		printf("  %s\n", err.msg);
		return;
	}
	CHECK("synth write: report counts 16 tile and 10 layout files",
	      rep.tile_files == 16 && rep.layout_files == 10 && rep.nodes > 0 &&
		      rep.configs > 0 && rep.bytes > 0);
	CHECK("synth write: 28 files (26 .npz, README, marker)", list_files(d1) == 28);
	check_readme_table(d1);
	rc = synth_write(d2, SYNTH_DEFAULT_SEED, NULL, &err);
	d2[strlen(d2) - 1] = '\0';
	CHECK("synth write: same seed, byte-identical files",
	      rc == 0 && count_differing(d1, d2) == 0);
	rc = synth_write(d3, 7, NULL, &err);
	int differ = rc == 0 ? count_differing(d1, d3) : -1;
	/* Every labeled file differs; test files of the layout collection only
	 * hide runtimes, so their drawn configs still differ. */
	CHECK("synth write: another seed, same names, different files", differ >= 26);
	/* Writing over a previous output replaces it. */
	rc = synth_write(d3, SYNTH_DEFAULT_SEED, NULL, &err);
	CHECK("synth write: replaces its own output", rc == 0 && count_differing(d1, d3) == 0);
}

/* Nothing but `keep` (a name, or NULL) in tmp_root/sub: no DIR, no
 * DIR.tmp.* or DIR.old.* folder, empty or not. */
static int only(const char *sub, const char *keep)
{
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/%s", tmp_root, sub);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int n = 0, kept = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		kept += keep && !strcmp(e->d_name, keep);
		if (!keep || strcmp(e->d_name, keep))
			printf("  left in %s: %s\n", sub, e->d_name);
	}
	closedir(d);
	return keep ? n == 1 && kept == 1 : n == 0;
}

static void test_write_failures(void)
{
	hs_error err;
	char dir[4200], sub[4200];

	/* An unwritable place: the message names the folder. */
	hs_error_clear(&err);
	const char *proc = "/proc/hloscope-synth-test/demo";
	int rc = synth_write(proc, 1, NULL, &err);
	CHECK("synth write: unwritable place fails with the path",
	      rc < 0 && err.status == HS_EDATA && strstr(err.msg, proc) != NULL);
	if (geteuid() != 0) {
		snprintf(sub, sizeof sub, "%s/ro", tmp_root);
		mkdir(sub, 0555);
		snprintf(dir, sizeof dir, "%s/demo", sub);
		hs_error_clear(&err);
		rc = synth_write(dir, 1, NULL, &err);
		CHECK("synth write: read-only folder fails with the path",
		      rc < 0 && strstr(err.msg, dir) != NULL && only("ro", NULL));
		chmod(sub, 0755);
	}

	/* A foreign folder is left alone. */
	snprintf(sub, sizeof sub, "%s/mine", tmp_root);
	mkdir(sub, 0755);
	snprintf(dir, sizeof dir, "%s/notes.txt", sub);
	FILE *f = fopen(dir, "w");
	if (f) {
		fputs("keep\n", f);
		fclose(f);
	}
	hs_error_clear(&err);
	rc = synth_write(sub, 1, NULL, &err);
	CHECK("synth write: refuses a foreign folder",
	      rc < 0 && err.status == HS_EUSAGE && strstr(err.msg, sub) &&
		      only("mine", "notes.txt"));

	/* A write failing part-way (files limited to 20 KB): the message names
	 * the file and nothing is left behind.  In a child, so the limit does
	 * not reach this process's output. */
	snprintf(sub, sizeof sub, "%s/small", tmp_root);
	mkdir(sub, 0755);
	snprintf(dir, sizeof dir, "%s/demo", sub);
	int fd[2];
	char msg[1100] = "";
	if (pipe(fd) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			struct rlimit rl = {20 * 1024, 20 * 1024};
			close(fd[0]);
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
			hs_error_clear(&err);
			int r = synth_write(dir, 1, NULL, &err);
			if (write(fd[1], err.msg, strlen(err.msg)) < 0)
				r = 0;
			_exit(r < 0 ? (err.status == HS_EDATA ? 2 : 3) : 0);
		}
		close(fd[1]);
		ssize_t got = read(fd[0], msg, sizeof msg - 1);
		msg[got > 0 ? got : 0] = '\0';
		close(fd[0]);
		int status = 0;
		waitpid(pid, &status, 0);
		CHECK("synth write: a failed write is HS_EDATA",
		      WIFEXITED(status) && WEXITSTATUS(status) == 2);
		CHECK("synth write: a failed write names the file",
		      strstr(msg, sub) != NULL && strstr(msg, ".npz") != NULL);
		CHECK("synth write: a failed write leaves nothing behind", only("small", NULL));
	}
}

int main(void)
{
	const char *base = getenv("WORK");
	snprintf(tmp_root, sizeof tmp_root, "%s/test_synth.XXXXXX",
		 base && *base ? base : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"));
	if (!mkdtemp(tmp_root)) {
		printf("FAIL synth: cannot create %s: %s\n", tmp_root, strerror(errno));
		return 1;
	}
	test_convnet();
	test_plan();
	test_layout_formula();
	test_tile_formula();
	test_layout_draw();
	test_tile_draw();
	test_write();
	test_write_failures();
	rm_tree(tmp_root);
	T_DONE();
}
