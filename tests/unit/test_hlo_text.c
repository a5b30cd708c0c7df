/* test_hlo_text.c - the HLO text reader's API (loader/hlo_text.h): parsing a
 * buffer that is not terminated, the error place and caret, sniffing,
 * reading files, and, once the protobuf reader is in the build, that a
 * module read from an HloModuleProto, printed as HLO text and read back
 * featurizes to the same arrays.  The grammar itself is tested by
 * the .test files in tests/hlo (tests/suites/hlo_text.sh). */
#include <stdlib.h>
#include <unistd.h>

#include "loader/hlo_print.h"
#include "base/progress.h"
#include "loader/hlo_text.h"
#include "t.h"
#include "t_files.h"

#include "loader/hlo_featurize.h"
#include "loader/hlo_proto.h"

/* A malloc'd copy of exactly n bytes, so ASan sees any read past them. */
static char *exact(const char *s, size_t n)
{
	char *p = malloc(n ? n : 1);
	if (p && n)
		memcpy(p, s, n);
	return p;
}

static void test_buffer_not_terminated(void)
{
	const char *text = "HloModule m\nENTRY e {\n  ROOT a = s8[17179869184]{0} parameter(0)\n}\n"
			   "this tail is not part of the input";
	size_t n = strlen(text) - strlen("this tail is not part of the input");
	char *buf = exact(text, n);
	hs_error err = {0};
	hm_file *f = hlo_text_parse(buf, n, "mem.hlo", &err);
	CHECK("parse: n bytes, no terminator needed", f != NULL);
	if (f) {
		const hm_instr *a = &f->modules[0].comps[0].instrs[0];
		CHECK("parse: one module, one computation", f->n_modules == 1 &&
		      f->modules[0].n_comps == 1 && f->source == HM_SRC_TEXT);
		CHECK("parse: a huge dimension is recorded", a->shape->rank == 1 &&
		      a->shape->dims[0] == 17179869184LL);
		CHECK("parse: the path is the name given", strcmp(f->path, "mem.hlo") == 0);
		CHECK("parse: tuning entries exist and are NULL", f->tuning && !f->tuning[0]);
		hm_file_free(f);
	}
	free(buf);
}

static void test_error_place(void)
{
	const char *text = "HloModule m\nENTRY e {\n\ta = f32[] parameter(0)\n\tROOT b = f32[] add(a a)\n}\n";
	char *buf = exact(text, strlen(text));
	hs_error err = {0};
	hlo_text_where w;
	char caret[256];
	hm_file *f = hlo_text_parse_where(buf, strlen(text), "x.hlo", &w, &err);
	CHECK("error: refused", f == NULL && err.status == HS_EDATA);
	CHECK("error: message names file, line and column",
	      strcmp(err.msg, "x.hlo:4:23: expected ')' after the operands, found 'a'") == 0);
	CHECK("error: place filled", w.line == 4 && w.col == 23);
	int n = hlo_text_caret(&w, caret, sizeof caret);
	CHECK("error: caret under the column, tabs as spaces",
	      n > 0 && strcmp(caret, "   ROOT b = f32[] add(a a)\n                        ^\n") == 0);
	hm_file_free(f);
	free(buf);

	/* an error without a place leaves the place empty */
	f = hlo_text_read_where("/nonexistent/dir/x.hlo", &w, &err);
	CHECK("read: a missing file is refused with its path", f == NULL &&
	      err.status == HS_EDATA && strncmp(err.msg, "/nonexistent/dir/x.hlo: ", 24) == 0);
	CHECK("read: no place, no caret", w.line == 0 && hlo_text_caret(&w, caret, sizeof caret) == 0);
}

static void test_sniff(void)
{
	CHECK("sniff: plain", hlo_text_sniff("HloModule m", 11));
	CHECK("sniff: after blanks and comments",
	      hlo_text_sniff("\n// x\n/* y */ HloModule m, is_scheduled=true", 44));
	CHECK("sniff: BOM", hlo_text_sniff("\xef\xbb\xbfHloModule m", 14));
	CHECK("sniff: not a longer word", !hlo_text_sniff("HloModules m", 12));
	CHECK("sniff: cut short", !hlo_text_sniff("HloMod", 6));
	CHECK("sniff: an npz", !hlo_text_sniff("PK\x03\x04", 4));
	CHECK("sniff: empty", !hlo_text_sniff("", 0));
}

static void test_read_file(void)
{
	char path[] = "/tmp/test_hlo_text.XXXXXX";
	int fd = mkstemp(path);
	const char *text = "HloModule a\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n"
			   "HloModule b\nENTRY e {\n  ROOT y = s32[] parameter(0)\n}\n";
	hs_error err = {0};
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		CHECK("read: temporary file", 0);
		return;
	}
	close(fd);
	hm_file *f = hlo_text_read(path, &err);
	CHECK("read: two modules", f && f->n_modules == 2 &&
	      strcmp(f->modules[0].name, "a") == 0 && strcmp(f->modules[1].name, "b") == 0);
	CHECK("read: ids restart per module", f && f->modules[1].comps[0].instrs[0].id == 0);
	hm_file_free(f);
	unlink(path);
}

/* Modules counted without a parse agree with the parser. */
static void test_count_modules(void)
{
	static const struct {
		const char *what, *text;
		int64_t n;
	} cases[] = {
		{"one", "HloModule a\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n", 1},
		{"two", "HloModule a\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n"
			"HloModule b, is_scheduled=true\nENTRY e {\n  ROOT y = s32[] parameter(0)\n}\n", 2},
		{"indented, CRLF, no last newline",
		 "  HloModule a\r\nENTRY e {\r\n  ROOT x = f32[] parameter(0)\r\n}\r\n\tHloModule b\r\n}", 2},
		{"not at a line start, or a longer word",
		 "HloModule a\n x = f32[] custom-call(), backend_config=\"HloModule b\"\nHloModules c\n", 1},
		{"a bare last word", "HloModule a\nHloModule", 2},
		{"none", "", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char path[64], what[96];
		int ok = t_temp_file(path, cases[i].text, strlen(cases[i].text)) == 0;
		snprintf(what, sizeof what, "count modules: %s", cases[i].what);
		CHECK(what, ok && hlo_text_count_modules(path) == cases[i].n);
		unlink(path);
	}
	/* lines across the 1 MB reads: a 3 MB line, module lines at every
	 * offset around a read's end */
	size_t n = 3u << 20;
	char *big = malloc(n + 4096);
	int64_t want = 0;
	size_t at = 0;
	if (!big) {
		CHECK("count modules: memory", 0);
		return;
	}
	at += (size_t)sprintf(big, "HloModule m0\n");
	want++;
	memset(big + at, 'x', (1u << 20) + 5);
	at += (1u << 20) + 5;
	big[at++] = '\n';
	while (at < n) {
		at += (size_t)sprintf(big + at, "HloModule m%lld\n", (long long)want);
		want++;
		size_t pad = (size_t)(want * 7919 % 300);
		memset(big + at, ' ', pad);
		at += pad;
		big[at++] = '\n';
	}
	char path[64];
	int ok = t_temp_file(path, big, at) == 0;
	CHECK("count modules: lines across reads", ok && hlo_text_count_modules(path) == want);
	unlink(path);
	free(big);
	CHECK("count modules: a missing file has none", hlo_text_count_modules("/nonexistent/x.hlo") == 0);
}

/* A regular file is mapped, not copied; a line is read from it while the
 * file has it, and not once the file has shrunk (a SIGBUS otherwise). */
static void test_mapped(void)
{
	const char *text = "HloModule m\nENTRY e {\n  ROOT x = f32[8]{0} parameter(0)\n}\n";
	char path[64];
	hs_error err = {0};
	int ok = t_temp_file(path, text, strlen(text)) == 0;
	hm_file *f = ok ? hlo_text_read(path, &err) : NULL;
	const hm_instr *in = f ? &f->modules[0].comps[0].instrs[0] : NULL;
	CHECK("mapped: a regular file's text is a mapping", f && f->text_mapped == strlen(text));
	const char *line = in ? hm_file_text_at(f, in->src_off, in->src_len) : NULL;
	CHECK("mapped: the instruction's line from it",
	      line && in->src_len == 31 && memcmp(line, "ROOT x = f32[8]{0} parameter(0)", 31) == 0);
	CHECK("mapped: out of range is none", f && !hm_file_text_at(f, 0, (int64_t)strlen(text) + 1) &&
	      !hm_file_text_at(f, -1, 1));
	ok &= truncate(path, 10) == 0;
	usleep(60 * 1000);   /* the size is looked at again after 50 ms */
	CHECK("mapped: once the file has shrunk, none (not a SIGBUS)",
	      ok && in && !hm_file_text_at(f, in->src_off, in->src_len));
	hm_file_free(f);
	unlink(path);
	/* a size that fills its last page leaves no room for the terminator:
	 * the text is read instead */
	char page[4096];
	memset(page, ' ', sizeof page);
	memcpy(page, text, strlen(text));
	page[sizeof page - 1] = '\n';
	ok = t_temp_file(path, page, sizeof page) == 0;
	f = ok ? hlo_text_read(path, &err) : NULL;
	CHECK("mapped: a file of whole pages is read, not mapped", f && f->text_mapped == 0 &&
	      f->text_len == sizeof page && f->modules[0].n_instrs == 1);
	hm_file_free(f);
	unlink(path);
}

static int stop_now(void *ctx, const char *what, double done, double total)
{
	(void)what;
	(void)done;
	(void)total;
	return ++*(int *)ctx >= 1;
}

/* A read asked to stop stops, with HS_ESTOPPED and nothing left behind
 * (ASan), in one piece and in two halves. */
static void test_stop(void)
{
	size_t cap = 4u << 20, n = 0;
	char *text = malloc(cap);
	if (!text) {
		CHECK("stop: memory", 0);
		return;
	}
	n += (size_t)snprintf(text, cap, "HloModule big\n");
	for (int c = 0; c < 200; c++) {
		n += (size_t)snprintf(text + n, cap - n, "c%d {\n  p = f32[] parameter(0)\n", c);
		n += (size_t)snprintf(text + n, cap - n, "  n0 = f32[] negate(p)\n");
		for (int i = 1; i < 600; i++)
			n += (size_t)snprintf(text + n, cap - n, "  n%d = f32[] negate(n%d)\n", i, i - 1);
		n += (size_t)snprintf(text + n, cap - n, "  ROOT r = f32[] copy(n599)\n}\n");
	}
	for (int split = 0; split < 2; split++) {
		int calls = 0;
		hs_progress p = {.fn = stop_now, .ctx = &calls, .after = 0};
		hs_error err = {0};
		hlo_text_set_split_min(split ? 1 : 0);
		hs_progress_push(&p);
		hm_file *f = hlo_text_parse(text, n, "big.hlo", &err);
		hs_progress_pop(&p);
		char what[80];
		snprintf(what, sizeof what, "stop: a read asked to stop says so (%s)", split ? "two halves" : "one piece");
		CHECK(what, !f && err.status == HS_ESTOPPED && strstr(err.msg, "big.hlo: stopped while reading"));
		hm_file_free(f);
	}
	hlo_text_set_split_min(8u << 20);
	hs_error err = {0};
	hm_file *f = hlo_text_parse(text, n, "big.hlo", &err);
	CHECK("stop: without a hook it reads", f && f->modules[0].n_comps == 200 && f->modules[0].n_instrs == 200 * 602);
	hm_file_free(f);
	free(text);
}

/* The same module from the proto and from its printed text featurizes to
 * the same arrays. */
static void test_proto_agrees(void)
{
	const char *paths[] = {"tests/data/hlo/tpu_op_fusion.261.HloModuleProto.pb",
			       "../shared/data/hlo/tpu_op_fusion.261.HloModuleProto.pb"};
	const char *path = NULL;
	for (size_t i = 0; i < 2 && !path; i++)
		if (access(paths[i], R_OK) == 0)
			path = paths[i];
	if (!path) {
		printf("SKIP proto agreement: no tpu_op_fusion.261.HloModuleProto.pb\n");
		return;
	}
	hs_error err = {0};
	hm_file *f = hlo_proto_read(path, 0, &err), *g = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = f ? open_memstream(&buf, &len) : NULL;
	if (out) {
		hm_file_print(out, f);
		fclose(out);
		g = hlo_text_parse(buf, len, "printed.hlo", &err);
	}
	CHECK("proto: read, printed as HLO text, read back", f && g && f->n_modules == g->n_modules);
	for (int i = 0; f && g && i < f->n_modules; i++) {
		hf_arrays a = {0}, b = {0};
		int ok = hf_featurize(&f->modules[i], NULL, HS_KIND_LAYOUT, HF_NO_CONFIGS, &a, &err) == 0 &&
			 hf_featurize(&g->modules[i], NULL, HS_KIND_LAYOUT, HF_NO_CONFIGS, &b, &err) == 0;
		ok = ok && a.n_nodes == b.n_nodes && a.n_edges == b.n_edges && a.n_nodes > 0 &&
		     memcmp(a.node_opcode, b.node_opcode, (size_t)a.n_nodes) == 0 &&
		     memcmp(a.edge_index, b.edge_index, (size_t)a.n_edges * sizeof *a.edge_index) == 0 &&
		     memcmp(a.node_feat, b.node_feat, (size_t)a.n_nodes * 140 * sizeof(float)) == 0;
		CHECK("proto: text and proto of one module featurize alike", ok);
		hf_arrays_free(&a);
		hf_arrays_free(&b);
	}
	free(buf);
	hm_file_free(f);
	hm_file_free(g);
}

int main(void)
{
	test_buffer_not_terminated();
	test_error_place();
	test_sniff();
	test_read_file();
	test_count_modules();
	test_mapped();
	test_stop();
	test_proto_agrees();
	T_DONE();
}
