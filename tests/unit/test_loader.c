/* Loader unit tests: npz write/read round trip, header parsing edge cases,
 * hostile archives built in memory, graph validation messages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/graph.h"
#include "loader/npz.h"
#include "t.h"

static char dir[] = "/tmp/hs-test-loader.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static void test_roundtrip(void)
{
	hs_error err = {0};
	int64_t shape2[2] = {3, 4}, shape0[1] = {0};
	float f[12];
	int64_t iv[12];
	for (int i = 0; i < 12; i++) {
		f[i] = (float)i * 0.5f - 2.0f;
		iv[i] = (int64_t)i * 1000000007LL - 5;
	}
	for (int compress = 0; compress < 2; compress++) {
		const char *p = tmp_path(compress ? "rt_deflate.npz" : "rt_stored.npz");
		npz_writer *w = npz_writer_open(p, compress, &err);
		CHECK("writer opens", w != NULL);
		if (!w)
			return;
		CHECK("add f4", npz_writer_add(w, "a", NPY_F4, 2, shape2, f, &err) == 0);
		CHECK("add i8", npz_writer_add(w, "b", NPY_I8, 2, shape2, iv, &err) == 0);
		CHECK("add empty", npz_writer_add(w, "e", NPY_U1, 1, shape0, NULL, &err) == 0);
		CHECK("add 0-d", npz_writer_add(w, "z", NPY_F8, 0, NULL, &(double){3.25}, &err) == 0);
		CHECK("finish", npz_writer_finish(w, &err) == 0);

		npz *a = npz_open(p, &err);
		CHECK("reopen", a != NULL);
		if (!a)
			return;
		CHECK("four arrays", a->n_arrays == 4);
		npz_array arr;
		CHECK("read a", npz_read(a, "a", &arr, &err) == 0);
		CHECK("a shape", arr.h.ndim == 2 && arr.h.shape[0] == 3 && arr.h.shape[1] == 4);
		CHECK("a values", memcmp(arr.data, f, sizeof f) == 0);
		npz_array_free(&arr);
		CHECK("read b", npz_read(a, "b", &arr, &err) == 0);
		CHECK("b values", memcmp(arr.data, iv, sizeof iv) == 0);
		npz_array_free(&arr);
		CHECK("read empty", npz_read(a, "e", &arr, &err) == 0 && arr.h.count == 0);
		npz_array_free(&arr);
		CHECK("read 0-d", npz_read(a, "z", &arr, &err) == 0 && arr.h.ndim == 0 &&
					  ((double *)arr.data)[0] == 3.25);
		npz_array_free(&arr);
		CHECK("missing array is an error", npz_read(a, "nope", &arr, &err) == -1 &&
							   strstr(err.msg, "nope") != NULL);
		npz_close(a);
	}
}

static void test_headers(void)
{
	hs_error err = {0};
	npy_header h;
	uint8_t buf[256];
	int64_t shape[3] = {2, 3, 5};
	size_t n = npy_write_header(buf, sizeof buf, NPY_F4, 3, shape);
	CHECK("header length is a multiple of 64", n > 0 && n % 64 == 0);
	CHECK("own header parses", npy_parse_header(buf, n, &h, &err) == 0 && h.ndim == 3 &&
					   h.count == 30 && h.dtype == NPY_F4);

	const char *cases[][2] = {
		{"{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", "object arrays"},
		{"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (3,), }", "structured"},
		{"{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 2), }", "2^62"},
		{"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }", "fortran_order"},
		{"{'descr': '<f4', 'shape': (3,), }", "missing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = strlen(cases[i][0]);
		memcpy(buf, "\x93NUMPY\x01\x00", 8);
		buf[8] = (uint8_t)len;
		buf[9] = 0;
		memcpy(buf + 10, cases[i][0], len);
		hs_error_clear(&err);
		int rc = npy_parse_header(buf, 10 + len, &h, &err);
		char name[96];
		snprintf(name, sizeof name, "header refused: %s", cases[i][1]);
		CHECK(name, rc == -1 && err.status == HS_EDATA && strstr(err.msg, cases[i][1]) != NULL);
	}
	CHECK("bad magic", npy_parse_header((const uint8_t *)"NOTNUMPY..", 10, &h, &err) == -1 &&
				   strstr(err.msg, "magic") != NULL);

	/* Big-endian, Fortran-order 2x3 int16 decodes to C order, native. */
	const char *d = "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }";
	size_t len = strlen(d);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (uint8_t)len;
	buf[9] = 0;
	memcpy(buf + 10, d, len);
	CHECK("BE Fortran header", npy_parse_header(buf, 10 + len, &h, &err) == 0 && h.fortran_order &&
					   h.big_endian);
	/* Fortran storage of [[1,2,3],[4,5,6]] is 1,4,2,5,3,6. */
	uint8_t raw[12] = {0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6};
	int16_t out[6];
	npy_decode(&h, raw, out);
	CHECK("BE Fortran decode", out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4 &&
					   out[4] == 5 && out[5] == 6);
	uint16_t half[3] = {0x3c00, 0xc000, 0x7c00}; /* 1, -2, inf */
	CHECK("f2 decode", npy_get_f64(NPY_F2, half, 0) == 1.0 && npy_get_f64(NPY_F2, half, 1) == -2.0 &&
				   isinf(npy_get_f64(NPY_F2, half, 2)));
}

static void test_hostile_zip(void)
{
	hs_error err = {0};
	const char *p = tmp_path("rt_stored.npz");
	FILE *fp = fopen(p, "rb");
	if (!fp) {
		CHECK("fixture exists", 0);
		return;
	}
	uint8_t buf[8192];
	size_t n = fread(buf, 1, sizeof buf, fp);
	fclose(fp);

	/* Every truncation is an error, never a crash. */
	int all_fail = 1;
	for (size_t cut = 0; cut < n; cut++) {
		npz *a = npz_open_mem(buf, cut, "cut.npz", &err);
		if (a) {
			npz_array arr;
			int ok = 1;
			for (size_t i = 0; i < a->n_arrays; i++) {
				if (npz_read(a, a->names[i], &arr, &err) == 0)
					npz_array_free(&arr);
				else
					ok = 0;
			}
			if (ok)
				all_fail = 0;
			npz_close(a);
		}
	}
	CHECK("every truncation fails", all_fail);

	/* A flipped data byte in a stored member is caught by the CRC. */
	uint8_t *copy = malloc(n);
	memcpy(copy, buf, n);
	copy[200] ^= 0x55; /* inside the first member's data */
	npz *a = npz_open_mem(copy, n, "flip.npz", &err);
	int crc_caught = 0;
	if (a) {
		npz_array arr;
		for (size_t i = 0; i < a->n_arrays; i++) {
			if (npz_read(a, a->names[i], &arr, &err) == 0)
				npz_array_free(&arr);
			else if (strstr(err.msg, "CRC") || strstr(err.msg, "header"))
				crc_caught = 1;
		}
		npz_close(a);
	}
	CHECK("flipped byte is caught", crc_caught);
	free(copy);
	CHECK("not a zip", npz_open_mem("hello world, this is not a zip file", 35, "x.npz", &err) == NULL &&
				   strstr(err.msg, "x.npz") != NULL);
}

static void test_graph_validation(void)
{
	hs_error err = {0};
	int64_t n = 4;
	float feat[4 * 3] = {0};
	uint8_t op[4] = {63, 63, 2, 0};
	int64_t edges_ok[3][2] = {{2, 0}, {2, 1}, {3, 2}};
	int64_t edges_bad[3][2] = {{2, 0}, {2, 7}, {3, 2}};
	int64_t rt[2] = {100, 80}, norm[2] = {100, 100};
	float cfg[2 * 24] = {0};
	int64_t s_feat[2] = {n, 3}, s_op[1] = {n}, s_e[2] = {3, 2}, s_rt[1] = {2}, s_cfg[2] = {2, 24};

	for (int bad = 0; bad < 2; bad++) {
		const char *p = tmp_path(bad ? "g_bad.npz" : "g_ok.npz");
		npz_writer *w = npz_writer_open(p, 1, &err);
		npz_writer_add(w, "node_feat", NPY_F4, 2, s_feat, feat, &err);
		npz_writer_add(w, "node_opcode", NPY_U1, 1, s_op, op, &err);
		npz_writer_add(w, "edge_index", NPY_I8, 2, s_e, bad ? edges_bad : edges_ok, &err);
		npz_writer_add(w, "config_feat", NPY_F4, 2, s_cfg, cfg, &err);
		npz_writer_add(w, "config_runtime", NPY_I8, 1, s_rt, rt, &err);
		npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, s_rt, norm, &err);
		npz_writer_finish(w, &err);
		hs_graph *g = graph_open(p, &err);
		if (!bad) {
			CHECK("tile graph opens", g != NULL);
			if (!g)
				continue;
			CHECK("kind tile", g->kind == HS_KIND_TILE && g->feat_width == 3);
			CHECK("normalized runtime", g->runtime[1] == 0.8 && graph_best_config(g) == 1);
			CHECK("operands of 2", graph_n_operands(g, 2) == 2 && g->operand_idx[g->operand_off[2]] == 0);
			CHECK("users of 2", graph_n_users(g, 2) == 1 && g->user_idx[g->user_off[2]] == 3);
			CHECK("one computation", g->n_comps == 1 && g->comp_of[3] == 0);
			graph_free(g);
		} else {
			CHECK("out-of-range edge refused", g == NULL && strstr(err.msg, "edge_index") &&
								   strstr(err.msg, "out of range"));
		}
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	test_roundtrip();
	test_headers();
	test_hostile_zip();
	test_graph_validation();
	char cmd[300];
	if (getenv("KEEP"))
		T_DONE();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("FAIL cleanup\n");
	T_DONE();
}
