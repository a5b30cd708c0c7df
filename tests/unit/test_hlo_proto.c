/* HLO protobuf reader and featurizer: the 15 real tile kernels of
 * op_tuning_data.pb against the reference arrays beside it, the bare
 * HloModuleProto of kernel 02, and hostile inputs built in memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/hlo_featurize.h"
#include "loader/hlo_proto.h"
#include "loader/npz.h"
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

int main(void)
{
	test_reference();
	T_DONE();
}
