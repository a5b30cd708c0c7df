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
#include "loader/hlo_print.h"
#include "loader/hlo_text.h"
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
	if (!pb) {
		printf("PASS op_tuning_data.pb tests skipped: neither tests/data nor ../shared/data has it\n");
		return;
	}
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
	if (!pb || !ref)
		return; /* no data: reported by test_reference */
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
		int same = d && (g->knows & HM_KNOWS_NAMES) && !(d->knows & HM_KNOWS_NAMES) && d->n_hcomps == g->n_hcomps &&
			   d->entry == g->entry;
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
	CHECK("name of node 0", strcmp(graph_node_name(g, 0), "param_0.355") == 0);
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

/* ---- hostile modules, built with protobuf-c ---------------------------- */

typedef struct tmod {
	Xla__HloModuleProto m;
	Xla__HloComputationProto c[2], *cp[2];
	Xla__HloInstructionProto in[6], *ip[6];
	Xla__ShapeProto shape;
	int64_t ops_add[2], ops_reduce[2], called_reduce[1], called_add[1];
} tmod;

static void instr(Xla__HloInstructionProto *p, const char *name, const char *op, int64_t id,
		  Xla__ShapeProto *shape)
{
	xla__hlo_instruction_proto__init(p);
	p->name = (char *)name;
	p->opcode = (char *)op;
	p->has_id = 1;
	p->id = id;
	p->shape = shape;
}

/* add(p0, p1) in computation "add" (id 1); reduce(x, init) calling it in
 * "main" (id 2), the entry. */
static void tmod_init(tmod *t)
{
	memset(t, 0, sizeof *t);
	xla__shape_proto__init(&t->shape);
	t->shape.has_element_type = 1;
	t->shape.element_type = 11;
	instr(&t->in[0], "p0", "parameter", 10, &t->shape);
	instr(&t->in[1], "p1", "parameter", 11, &t->shape);
	instr(&t->in[2], "add.12", "add", 12, &t->shape);
	t->ops_add[0] = 10, t->ops_add[1] = 11;
	t->in[2].n_operand_ids = 2, t->in[2].operand_ids = t->ops_add;
	instr(&t->in[3], "x", "parameter", 20, &t->shape);
	instr(&t->in[4], "init", "constant", 21, &t->shape);
	instr(&t->in[5], "reduce.22", "reduce", 22, &t->shape);
	t->ops_reduce[0] = 20, t->ops_reduce[1] = 21;
	t->in[5].n_operand_ids = 2, t->in[5].operand_ids = t->ops_reduce;
	t->called_reduce[0] = 1;
	t->in[5].n_called_computation_ids = 1, t->in[5].called_computation_ids = t->called_reduce;
	for (int i = 0; i < 6; i++)
		t->ip[i] = &t->in[i];
	for (int c = 0; c < 2; c++) {
		xla__hlo_computation_proto__init(&t->c[c]);
		t->c[c].name = c ? "main" : "add";
		t->c[c].has_id = t->c[c].has_root_id = 1;
		t->c[c].id = c + 1;
		t->c[c].root_id = c ? 22 : 12;
		t->c[c].n_instructions = 3;
		t->c[c].instructions = &t->ip[3 * c];
		t->cp[c] = &t->c[c];
	}
	xla__hlo_module_proto__init(&t->m);
	t->m.name = "tiny";
	t->m.n_computations = 2;
	t->m.computations = t->cp;
	t->m.has_entry_computation_id = 1;
	t->m.entry_computation_id = 2;
}

/* Reads the packed module; returns 1 when it fails with a message holding
 * `want` (NULL: when it reads). */
static int reads(const tmod *t, const char *want, hs_error *err)
{
	size_t n = xla__hlo_module_proto__get_packed_size(&t->m);
	uint8_t *buf = malloc(n);
	xla__hlo_module_proto__pack(&t->m, buf);
	hm_file *f = hlo_proto_read_mem(buf, n, "t.pb", 0, err);
	free(buf);
	int ok = want ? !f && err->status == HS_EDATA && strstr(err->msg, want) && strstr(err->msg, "t.pb")
		      : f != NULL;
	if (!ok)
		printf("  got: %s\n", f ? "(read)" : err->msg);
	hm_file_free(f);
	return ok;
}

static void test_semantic(void)
{
	hs_error err = {0};
	tmod t;
	tmod_init(&t);
	CHECK("tiny module reads", reads(&t, NULL, &err));
	tmod_init(&t);
	t.in[4].name = "x";
	CHECK("a name used twice in a computation", reads(&t, "instruction name 'x' is used twice in computation 'main'", &err));
	tmod_init(&t);
	t.in[4].name = "p0";
	CHECK("the same name in two computations is fine (XLA scopes names so)", reads(&t, NULL, &err));
	tmod_init(&t);
	t.ops_reduce[1] = 99;
	CHECK("an operand naming nothing", reads(&t, "'reduce.22': operand id 99 names no instruction", &err));
	tmod_init(&t);
	t.in[2].n_called_computation_ids = 1, t.in[2].called_computation_ids = t.called_add;
	t.called_add[0] = 1;
	CHECK("a computation calling itself", reads(&t, "computation 'add' calls itself", &err));
	tmod_init(&t);
	t.in[2].n_called_computation_ids = 1, t.in[2].called_computation_ids = t.called_add;
	t.called_add[0] = 2;
	CHECK("a call cycle", reads(&t, "cycle", &err));
	tmod_init(&t);
	t.c[1].root_id = 12;
	CHECK("a root in another computation", reads(&t, "computation 'main': root id 12 is not one of its instructions (it is 'add.12')", &err));
	tmod_init(&t);
	t.c[1].has_root_id = 0;
	CHECK("no root id", reads(&t, "root id 0", &err));
	tmod_init(&t);
	t.in[4].id = 20;
	CHECK("an id used twice", reads(&t, "instruction id 20 is used twice", &err));
	tmod_init(&t);
	t.m.entry_computation_id = 7;
	CHECK("an entry naming nothing", reads(&t, "entry computation id 7", &err));
	tmod_init(&t);
	t.called_reduce[0] = 9;
	CHECK("a called computation naming nothing", reads(&t, "called computation id 9 names no computation", &err));
	tmod_init(&t);
	t.ops_add[0] = 12;
	CHECK("an operand naming itself", reads(&t, "'add.12' names itself", &err));
	tmod_init(&t);
	t.c[0].n_instructions = 0;
	CHECK("an empty computation", reads(&t, "computation 'add' has no instructions", &err));
	tmod_init(&t);
	t.c[1].name = "add";
	CHECK("a computation name used twice", reads(&t, "computation name 'add' is used twice", &err));

	/* Huge dimensions are recorded, never allocated by. */
	tmod_init(&t);
	int64_t huge[1] = {17179869184LL};
	t.shape.n_dimensions = 1, t.shape.dimensions = huge;
	t.shape.element_type = 2;
	size_t n = xla__hlo_module_proto__get_packed_size(&t.m);
	uint8_t *buf = malloc(n);
	xla__hlo_module_proto__pack(&t.m, buf);
	hm_file *f = hlo_proto_read_mem(buf, n, "huge.pb", 0, &err);
	free(buf);
	hf_arrays a;
	int rc = f ? hf_featurize(&f->modules[0], NULL, HS_KIND_LAYOUT, 0, &a, &err) : -1;
	CHECK("s8[17179869184] reads and featurizes", rc == 0 && a.node_feat[21] == 17179869184.0f &&
							  a.node_feat[27] == 17179869184.0f);
	char text[64];
	if (f)
		hm_shape_text(f->modules[0].comps[0].instrs[0].shape, text, sizeof text);
	CHECK("s8[17179869184] shape text", f && strcmp(text, "s8[17179869184]") == 0);
	if (rc == 0)
		hf_arrays_free(&a);
	hm_file_free(f);
}

/* Appends tag, varint length and payload to b at *n. */
static void wrap(uint8_t *b, size_t *n, uint8_t tag, const uint8_t *payload, size_t len)
{
	b[(*n)++] = tag;
	size_t v = len;
	do {
		b[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	memmove(b + *n, payload, len);
	*n += len;
}

static int fails_with(const uint8_t *b, size_t n, const char *want)
{
	hs_error err = {0};
	hm_file *f = hlo_proto_read_mem(b, n, "w.pb", 0, &err);
	int ok = !f && strstr(err.msg, want) != NULL && strstr(err.msg, "w.pb") != NULL;
	if (!ok)
		printf("  got: %s\n", f ? "(read)" : err.msg);
	hm_file_free(f);
	return ok;
}

static void test_wire(void)
{
	static const uint8_t past_end[] = {0x0a, 0x05, 'a', 'b'};
	CHECK("a length prefix past the end", fails_with(past_end, sizeof past_end, "byte 0: field 1 (xla.HloModuleProto.name) claims 5 bytes"));
	static const uint8_t wrong_wire[] = {0x1a, 0x02, 0x08, 0x01};
	CHECK("a wrong wire type, with its field name",
	      fails_with(wrong_wire, sizeof wrong_wire, "byte 2: field 1 (xla.HloComputationProto.name) has wire type 0"));
	static const uint8_t group[] = {0x0a, 0x01, 'm', 0x1b};
	CHECK("a group", fails_with(group, sizeof group, "byte 3: field 3 (xla.HloModuleProto.computations) uses wire type 3"));
	static const uint8_t long_varint[] = {0x0a, 0x01, 'm', 0x28, 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	CHECK("a varint longer than 10 bytes", fails_with(long_varint, sizeof long_varint, "longer than 10 bytes"));
	static const uint8_t cut_tag[] = {0x0a, 0x01, 'm', 0x80};
	CHECK("a tag cut short", fails_with(cut_tag, sizeof cut_tag, "byte 3: a field tag"));

	/* Shapes nested 150 deep: refused where the limit is crossed. */
	enum { DEPTH = 150 };
	uint8_t *shape = malloc(16 * DEPTH + 64), *tmp = malloc(16 * DEPTH + 64);
	size_t ns = 0;
	shape[ns++] = 0x10, shape[ns++] = 11;                       /* element_type F32 */
	for (int d = 0; d < DEPTH; d++) {                           /* (that,) */
		size_t k = 0;
		tmp[k++] = 0x10, tmp[k++] = 13;                     /* element_type TUPLE */
		wrap(tmp, &k, 0x22, shape, ns);                     /* tuple_shapes */
		memcpy(shape, tmp, k);
		ns = k;
	}
	uint8_t *ins = malloc(ns + 16), *comp = malloc(ns + 32), *mod = malloc(ns + 64);
	size_t ni = 0, nc = 0, nm = 0;
	wrap(ins, &ni, 0x1a, shape, ns);                            /* instruction.shape */
	wrap(comp, &nc, 0x12, ins, ni);                             /* computation.instructions */
	mod[nm++] = 0x0a, mod[nm++] = 0x01, mod[nm++] = 'm';        /* module.name */
	wrap(mod, &nm, 0x1a, comp, nc);                             /* module.computations */
	CHECK("shapes nested 150 deep", fails_with(mod, nm, "nested more than 100 deep"));
	free(shape);
	free(tmp);
	free(ins);
	free(comp);
	free(mod);
}

/* One module of a TuningData is read (and validated) alone. */
static void test_select(void)
{
	const char *pb = data_file("hlo/tpu_op_fusion.261.HloModuleProto.pb");
	hs_error err = {0};
	if (!pb)
		return;
	FILE *in = fopen(pb, "rb");
	static uint8_t mod[1 << 16];
	size_t n = in ? fread(mod, 1, sizeof mod, in) : 0;
	if (in)
		fclose(in);
	/* TuningData { modules { module <mod> }, modules { <damaged> } } */
	static uint8_t mtd[1 << 16], td[1 << 17];
	size_t nm = 0, nt = 0;
	wrap(mtd, &nm, 0x0a, mod, n);
	wrap(td, &nt, 0x0a, mtd, nm);
	static const uint8_t damaged[] = {0x0a, 0x05, 'a'};
	wrap(td, &nt, 0x0a, damaged, sizeof damaged);
	char path[] = "/tmp/hs-test-select.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, td, nt) != (ssize_t)nt) {
		CHECK("temp file for select", 0);
		return;
	}
	close(fd);
	hm_file *f = hlo_proto_read_sel(path, "0", 0, &err);
	CHECK("select #0 of a TuningData whose #1 is damaged",
	      f && f->n_modules == 1 && f->total == 2 && f->selected == 0 &&
	      strcmp(f->modules[0].name, "fusion.261") == 0);
	hm_file_free(f);
	f = hlo_proto_read_sel(path, "fusion.261", 0, &err);
	CHECK("select by name", f && f->selected == 0);
	hm_file_free(f);
	f = hlo_proto_read_sel(path, "1", 0, &err);
	CHECK("select the damaged module: refused with its byte offset", !f && strstr(err.msg, "byte ") &&
									      strstr(err.msg, "claims 5 bytes"));
	f = hlo_proto_read(path, 0, &err);
	CHECK("the whole file: refused", !f && strstr(err.msg, "byte "));
	f = hlo_proto_read_sel(path, "nope", 0, &err);
	CHECK("select a name that is not there", !f && err.status == HS_EUSAGE && strstr(err.msg, "no module 'nope'"));
	unlink(path);
}

/* Every module of the real .pb files
 * printed as HLO text (hlo_print.h) and read back featurizes to the same
 * arrays; and on every real .hlo file the structure derived from the
 * featurized arrays equals the real one. */

static int same_structure(const hs_graph *g, const hs_graph *d)
{
	int same = d->n_hcomps == g->n_hcomps && d->entry == g->entry;
	for (int64_t c = 0; same && c < g->n_hcomps; c++) {
		const hs_hcomp *x = &g->hcomps[c], *y = &d->hcomps[c];
		same = x->first == y->first && x->count == y->count && x->root == y->root &&
		       x->role == y->role && x->n_callers == y->n_callers;
	}
	return same;
}

static void test_text(void)
{
	const char *pbs[] = {data_file("raw/op_tuning_data.pb"), data_file("hlo/tpu_op_fusion.261.HloModuleProto.pb")};
	const char *hlos[] = {"bert_dp_graph_3_SyncTensorsGraph.hlo", "graphsage_tf_cpu_benchmark.hlo",
			      "hlo_text_mini_cluster_0.hlo", "i3d_tf_xla_cluster_1.hlo",
			      "jit_f_softmax_allreduce_gpu_before_fusion.hlo",
			      "llama2_dp1_tp1_pp1_SyncTensorsGraph.hlo", "sharding_megatron_lm_spmd.hlo"};
	char tmp[] = "/tmp/hs-test-text.XXXXXX";
	hs_error err = {0};
	int fd = mkstemp(tmp), agree = 1, n = 0;
	if (fd >= 0)
		close(fd);
	for (int k = 0; k < 2; k++) {
		hm_file *f = pbs[k] ? hlo_proto_read(pbs[k], 0, &err) : NULL;
		for (int i = 0; f && i < f->n_modules; i++) {
			FILE *o = fopen(tmp, "w");
			hm_module_print(o, &f->modules[i]);
			fclose(o);
			int mod;
			hm_file *t = graph_read_hlo(tmp, &mod, &err);
			hf_arrays a, b;
			int ok = t && hf_featurize(&f->modules[i], NULL, HS_KIND_LAYOUT, 0, &a, &err) == 0;
			if (ok && hf_featurize(&t->modules[0], NULL, HS_KIND_LAYOUT, 0, &b, &err) == 0) {
				ok = a.n_nodes == b.n_nodes && a.n_edges == b.n_edges &&
				     !memcmp(a.node_opcode, b.node_opcode, (size_t)a.n_nodes) &&
				     !memcmp(a.edge_index, b.edge_index, (size_t)a.n_edges * sizeof *a.edge_index) &&
				     !memcmp(a.node_feat, b.node_feat, (size_t)a.n_nodes * 140 * sizeof(float));
				hf_arrays_free(&b);
			} else if (ok) {
				ok = 0;
			}
			if (t)
				hf_arrays_free(&a);
			if (!ok)
				printf("  %s #%d: text and proto differ (%s)\n", pbs[k], i, err.msg);
			agree &= ok;
			n++;
			hm_file_free(t);
		}
		hm_file_free(f);
	}
	unlink(tmp);
	CHECK("proto printed as HLO text featurizes the same (every module)", agree && n >= 16);
	for (size_t i = 0; i < sizeof hlos / sizeof *hlos; i++) {
		char rel[128], name[160];
		snprintf(rel, sizeof rel, "hlo/%s", hlos[i]);
		const char *path = data_file(rel);
		if (!path)
			continue;
		hs_graph *g = graph_open(path, &err), *d = NULL;
		int mod;
		hm_file *f = graph_read_hlo(path, &mod, &err);
		hf_arrays a;
		if (f && mod >= 0 && hf_featurize(&f->modules[mod], NULL, HS_KIND_LAYOUT, 0, &a, &err) == 0) {
			d = graph_from_arrays(&a, "derived", "derived", &err);
			hf_arrays_free(&a);
		}
		snprintf(name, sizeof name, "%s: derived computations, roles and callers = real ones", hlos[i]);
		CHECK(name, g && d && same_structure(g, d));
		graph_free(g);
		graph_free(d);
		hm_file_free(f);
	}
}

int main(void)
{
	test_reference();
	test_bare_module();
	test_derived_structure();
	test_graph_names();
	test_semantic();
	test_wire();
	test_select();
	test_text();
	T_DONE();
}
