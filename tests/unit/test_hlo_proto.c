/* HLO protobuf reader and featurizer: the 15 real tile kernels of
 * op_tuning_data.pb against the reference arrays beside it, the bare
 * HloModuleProto of kernel 02, and hostile inputs built in memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/hlo_featurize.h"
#include "loader/hlo_proto.h"
#include "loader/npz.h"
#include "loader/proto/hlo.pb-c.h"
#include "t.h"

/* tests/data first (the bundled copy), then ../shared/data. */
static const char *data_file(const char *rel)
{
	static char buf[4][512];
	static int k;
	const char *roots[] = {"tests/data", "../shared/data"};
	char *b = buf[k++ % 4];
	for (int i = 0; i < 2; i++) {
		snprintf(b, 512, "%s/%s", roots[i], rel);
		if (access(b, R_OK) == 0)
			return b;
	}
	return NULL;
}

static int same_i64(npz *a, const char *name, const int64_t *v, int64_t n)
{
	npz_array arr;
	hs_error err = {0};
	if (npz_read(a, name, &arr, &err))
		return 0;
	int ok = (int64_t)arr.h.count == n;
	for (int64_t i = 0; ok && i < n; i++)
		ok = npy_get_i64(arr.h.dtype, arr.data, (uint64_t)i) == v[i];
	npz_array_free(&arr);
	return ok;
}

static int same_f32(npz *a, const char *name, const float *v, int64_t n)
{
	npz_array arr;
	hs_error err = {0};
	if (npz_read(a, name, &arr, &err))
		return 0;
	int ok = (int64_t)arr.h.count == n && arr.h.dtype == NPY_F4;
	if (ok && n)
		ok = memcmp(arr.data, v, (size_t)n * 4) == 0;
	npz_array_free(&arr);
	return ok;
}

static int same_u8(npz *a, const char *name, const uint8_t *v, int64_t n)
{
	npz_array arr;
	hs_error err = {0};
	if (npz_read(a, name, &arr, &err))
		return 0;
	int ok = (int64_t)arr.h.count == n && arr.h.dtype == NPY_U1 && (!n || memcmp(arr.data, v, (size_t)n) == 0);
	npz_array_free(&arr);
	return ok;
}

static void test_reference(void)
{
	const char *pb = data_file("raw/op_tuning_data.pb");
	hs_error err = {0};
	CHECK("op_tuning_data.pb found", pb != NULL);
	if (!pb)
		return;
	hm_file *f = hlo_proto_read(pb, 0, &err);
	CHECK("op_tuning_data.pb reads", f != NULL);
	if (!f) {
		printf("  %s\n", err.msg);
		return;
	}
	CHECK("15 modules, TuningData", f->n_modules == 15 && f->source == HM_SRC_TUNING);
	for (int i = 0; i < f->n_modules; i++) {
		char rel[256], name[64];
		snprintf(rel, sizeof rel, "raw/op_tuning_data.reference/op_tuning_data.%02d.%s.npz", i,
			 f->modules[i].name);
		const char *ref = data_file(rel);
		snprintf(name, sizeof name, "kernel %02d %s", i, f->modules[i].name);
		hf_arrays a;
		int rc = hf_featurize(&f->modules[i], f->tuning[i], hf_kind(f, i), 0, &a, &err);
		npz *z = ref ? npz_open(ref, &err) : NULL;
		char t[128];
		snprintf(t, sizeof t, "%s: featurizes, reference opens", name);
		CHECK(t, rc == 0 && z != NULL && a.kind == HS_KIND_TILE);
		if (rc || !z) {
			if (!rc)
				hf_arrays_free(&a);
			npz_close(z);
			continue;
		}
		snprintf(t, sizeof t, "%s: node_opcode", name);
		CHECK(t, same_u8(z, "node_opcode", a.node_opcode, a.n_nodes));
		snprintf(t, sizeof t, "%s: node_feat", name);
		CHECK(t, same_f32(z, "node_feat", a.node_feat, a.n_nodes * 140));
		snprintf(t, sizeof t, "%s: edge_index", name);
		CHECK(t, same_i64(z, "edge_index", &a.edge_index[0][0], a.n_edges * 2));
		snprintf(t, sizeof t, "%s: config_feat", name);
		CHECK(t, same_f32(z, "config_feat", a.config_feat, a.n_configs * 24));
		snprintf(t, sizeof t, "%s: config_runtime", name);
		CHECK(t, same_i64(z, "config_runtime", a.config_runtime, a.n_configs));
		snprintf(t, sizeof t, "%s: config_runtime_normalizers", name);
		CHECK(t, same_i64(z, "config_runtime_normalizers", a.config_runtime_normalizers, a.n_configs));
		npz_close(z);
		hf_arrays_free(&a);
	}
	hm_file_free(f);
}

/* The bare HloModuleProto of kernel 02 featurizes to kernel 02's node arrays. */
static void test_bare_module(void)
{
	const char *pb = data_file("hlo/tpu_op_fusion.261.HloModuleProto.pb");
	const char *ref = data_file("raw/op_tuning_data.reference/op_tuning_data.02.fusion.261.npz");
	hs_error err = {0};
	CHECK("bare module and reference found", pb && ref);
	if (!pb || !ref)
		return;
	hm_file *f = hlo_proto_read(pb, 0, &err);
	CHECK("bare HloModuleProto reads", f && f->source == HM_SRC_HLO_PROTO && f->n_modules == 1);
	if (!f)
		return;
	hf_arrays a;
	int rc = hf_featurize(&f->modules[0], NULL, hf_kind(f, 0), 0, &a, &err);
	npz *z = npz_open(ref, &err);
	CHECK("bare module featurizes as layout, no configs",
	      rc == 0 && z && a.kind == HS_KIND_LAYOUT && a.n_configs == 0 && a.n_splits >= 2);
	if (rc == 0 && z) {
		CHECK("bare module: node_opcode = kernel 02's", same_u8(z, "node_opcode", a.node_opcode, a.n_nodes));
		CHECK("bare module: node_feat = kernel 02's", same_f32(z, "node_feat", a.node_feat, a.n_nodes * 140));
		CHECK("bare module: edge_index = kernel 02's",
		      same_i64(z, "edge_index", &a.edge_index[0][0], a.n_edges * 2));
	}
	if (rc == 0)
		hf_arrays_free(&a);
	npz_close(z);
	hm_file_free(f);
}

/* Computations derived from is_root (what a bare .npz gets) equal the real
 * ones of every kernel: ranges, roots, calls and roles. */
static void test_derived_structure(void)
{
	const char *pb = data_file("raw/op_tuning_data.pb");
	hs_error err = {0};
	if (!pb)
		return;
	char path[600];
	int all_same = 1, n_checked = 0;
	for (int i = 0; i < 15; i++) {
		snprintf(path, sizeof path, "%s#%d", pb, i);
		hs_graph *g = graph_open(path, &err);
		if (!g) {
			printf("FAIL open %s: %s\n", path, err.msg);
			t_failed = 1;
			continue;
		}
		hf_arrays a = {0};
		hm_file *f = hlo_proto_read(pb, 0, &err);
		hs_graph *d = NULL;
		if (f && hf_featurize(&f->modules[i], f->tuning[i], hf_kind(f, i), 0, &a, &err) == 0)
			d = graph_from_arrays(&a, "derived", "derived", &err);
		hf_arrays_free(&a);
		hm_file_free(f);
		int same = d && g->module && !d->module && d->n_hcomps == g->n_hcomps && d->entry == g->entry;
		for (int64_t c = 0; same && c < g->n_hcomps; c++) {
			const hs_hcomp *x = &g->hcomps[c], *y = &d->hcomps[c];
			same = x->first == y->first && x->count == y->count && x->root == y->root &&
			       x->role == y->role && x->n_callers == y->n_callers;
			for (int64_t k = 0; same && k < x->n_callers; k++)
				same = g->hcomp_callers[x->callers_at + k] == d->hcomp_callers[y->callers_at + k];
		}
		for (int64_t v = 0; same && v < g->n_nodes; v++)
			same = graph_n_called(g, v) == graph_n_called(d, v);
		if (!same)
			printf("  kernel %d: derived structure differs\n", i);
		all_same &= same;
		n_checked++;
		graph_free(d);
		graph_free(g);
	}
	CHECK("derived computations, calls and roles = real ones (15 kernels)", all_same && n_checked == 15);
}

static void test_graph_names(void)
{
	const char *pb = data_file("raw/op_tuning_data.pb");
	hs_error err = {0};
	char path[600], buf[256];
	if (!pb)
		return;
	snprintf(path, sizeof path, "%s#fusion.261", pb);
	hs_graph *g = graph_open(path, &err);
	CHECK("open FILE#NAME", g != NULL);
	if (!g)
		return;
	CHECK("module name", strcmp(graph_module_name(g), "fusion.261") == 0 && strcmp(g->name, "fusion.261") == 0);
	CHECK("entry is the last computation", g->entry == g->n_hcomps - 1 &&
						       g->hcomps[g->entry].role == HS_ROLE_ENTRY);
	int64_t v = graph_find_node(g, "param_0.355");
	CHECK("find node by name", v == 0);
	CHECK("name of node 0", strcmp(graph_node_name(g, 0, buf, sizeof buf), "param_0.355") == 0);
	CHECK("shape text with layout", strcmp(graph_node_text(g, 0, HS_HF_SHAPE, buf, sizeof buf), "pred[32,4096]{1,0:T(8,128)(4,1)}") == 0 ||
					    printf("  shape: %s\n", buf) < 0);
	int fusions = 0, has_meta = 0;
	for (v = 0; v < g->n_nodes; v++) {
		if (strcmp(graph_node_opcode_name(g, v), "fusion") == 0) {
			fusions++;
			CHECK("a fusion has a kind and calls one computation",
			      *graph_node_text(g, v, HS_HF_FUSION_KIND, buf, sizeof buf) && graph_n_called(g, v) == 1);
		}
		has_meta |= *graph_node_text(g, v, HS_HF_OP_NAME, buf, sizeof buf) != 0;
	}
	CHECK("fusions counted", fusions == graph_n_fusions(g) && fusions > 0);
	CHECK("metadata op_name present", has_meta);
	for (int64_t c = 0; c < g->n_hcomps; c++)
		if (c != g->entry)
			CHECK("non-entry computations are fusions here", g->hcomps[c].role == HS_ROLE_FUSION);
	graph_free(g);

	g = graph_open(pb, &err);
	CHECK("bare multi-module file is refused", !g && err.status == HS_EUSAGE && strstr(err.msg, "#N") &&
							 strstr(err.msg, "15 modules"));
	snprintf(path, sizeof path, "%s#15", pb);
	g = graph_open(path, &err);
	CHECK("module index out of range is refused", !g && strstr(err.msg, "no module '15'"));
}

int main(void)
{
	test_reference();
	test_bare_module();
	test_derived_structure();
	test_graph_names();
	T_DONE();
}
