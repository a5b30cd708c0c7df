/* test_dataset.c - indexing folders of .npz graphs: the real TpuGraphs
 * sample tree (counts as numpy reads them) and a scratch folder holding bad
 * files, links and a symlink loop. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/walk.h"
#include "loader/dataset.h"
#include "loader/dump.h"
#include "loader/graph.h"
#include "loader/npz.h"
#include "loader/pbtxt.h"
#include "loader/target.h"
#include "t.h"

static char dir[] = "/tmp/hs-test-dataset.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char bufs[4][512];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
	return b;
}

static const char *data_dir(void)
{
	const char *d = getenv("DATA");
	return d && *d ? d : "tests/data/tpugraphs";
}

static const ds_entry *find(const ds_index *ix, const char *rel)
{
	for (size_t i = 0; ix && i < ix->n; i++)
		if (strcmp(ix->entries[i].rel, rel) == 0)
			return &ix->entries[i];
	return NULL;
}

static int write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(p, 1, n, f);
	return fclose(f) == 0 && w == n ? 0 : -1;
}

static int copy_prefix(const char *from, const char *to, long n)
{
	FILE *f = fopen(from, "rb");
	char *buf = malloc((size_t)n);
	int rc = -1;
	if (f && buf && fread(buf, 1, (size_t)n, f) == (size_t)n)
		rc = write_bytes(to, buf, (size_t)n);
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

static int mkdirs(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* A small sample.  `kind` 't' tile, 'l' layout; `flaw` breaks one thing:
 *   0 none, 'n' a zero normalizer, 's' node_config_feat of the wrong shape,
 *   'm' no node_opcode, 'r' a negative runtime, 'u' unlabeled. */
static int write_sample(const char *path, char kind, int flaw, int stored)
{
	hs_error err = {0};
	npz_writer *w = npz_writer_open(path, !stored, &err);
	float feat[3 * 140] = {0};
	uint8_t ops[3] = {63, 63, 2};
	int64_t edges[2][2] = {{2, 0}, {2, 1}};
	int64_t rt[4] = {400, 100, 300, 200}, norm[4] = {100, 100, 100, 100};
	int64_t ids[2] = {0, 2};
	float ncf[4 * 2 * 18], cfg[4 * 24] = {0};
	int64_t s_feat[2] = {3, 140}, s_ops[1] = {3}, s_edges[2] = {2, 2}, s_rt[1] = {4};
	int64_t s_ids[1] = {2}, s_ncf[3] = {4, 2, 18}, s_cfg[2] = {4, 24};
	int rc = 0;

	if (!w)
		return -1;
	for (size_t i = 0; i < sizeof ncf / sizeof ncf[0]; i++)
		ncf[i] = 1234.5f; /* a pattern the tests look for in stored files */
	if (flaw == 'n')
		norm[2] = 0;
	if (flaw == 'r')
		rt[1] = -5;
	if (flaw == 'u')
		memset(rt, 0, sizeof rt);
	if (flaw == 's')
		s_ncf[1] = 3;
	rc |= npz_writer_add(w, "node_feat", NPY_F4, 2, s_feat, feat, &err);
	if (flaw != 'm')
		rc |= npz_writer_add(w, "node_opcode", NPY_U1, 1, s_ops, ops, &err);
	rc |= npz_writer_add(w, "edge_index", NPY_I8, 2, s_edges, edges, &err);
	rc |= npz_writer_add(w, "config_runtime", NPY_I8, 1, s_rt, rt, &err);
	if (kind == 't') {
		rc |= npz_writer_add(w, "config_feat", NPY_F4, 2, s_cfg, cfg, &err);
		rc |= npz_writer_add(w, "config_runtime_normalizers", NPY_I8, 1, s_rt, norm, &err);
	} else {
		float big[4 * 3 * 18] = {0};
		rc |= npz_writer_add(w, "node_config_ids", NPY_I8, 1, s_ids, ids, &err);
		rc |= npz_writer_add(w, "node_config_feat", NPY_F4, 3, s_ncf,
				     flaw == 's' ? big : ncf, &err);
	}
	if (rc) {
		npz_writer_abort(w);
		return -1;
	}
	return npz_writer_finish(w, &err);
}

/* Overwrites the first float 1234.5 found in a file (node_config_feat data
 * in a stored archive), which breaks that member's CRC. */
static int corrupt_pattern(const char *path)
{
	FILE *f = fopen(path, "r+b");
	float want = 1234.5f;
	unsigned char buf[8192];
	size_t n;
	int rc = -1;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof buf, f);
	for (size_t i = 0; i + 4 <= n; i++)
		if (memcmp(buf + i, &want, 4) == 0) {
			float bad = -7.0f;
			if (fseek(f, (long)i, SEEK_SET) == 0 && fwrite(&bad, 4, 1, f) == 1)
				rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

static void test_real_tree(void)
{
	static const struct {
		const char *rel;
		hs_kind kind;
		const char *coll, *search, *split;
		long long nodes, edges, configs, cfg_nodes;
		int labeled;
		double rmin, rmax;
	} want[] = {
		{"npz/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz", HS_KIND_LAYOUT,
		 "nlp", "random", "test", 1096, 1688, 1000, 56, 0, 0, 0},
		{"npz/layout/xla/default/train/unet3d.npz", HS_KIND_LAYOUT, "xla", "default", "train",
		 2774, 4730, 1159, 56, 1, 23270598358.0, 70950843334.0},
		{"npz/layout/xla/random/train/openai_v0_rnn_optimized.npz", HS_KIND_LAYOUT, "xla",
		 "random", "train", 1277, 2063, 20, 62, 1, 461340764.0, 461436372.0},
		{"npz/tile/xla/test/0a3585c3e686065389227fa374175e48.npz", HS_KIND_TILE, "xla", "",
		 "test", 52, 55, 1282, 0, 0, 0, 0},
		{"npz/tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz", HS_KIND_TILE, "xla", "",
		 "test", 65, 70, 2951, 0, 0, 0, 0},
		{"npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz", HS_KIND_TILE, "xla", "",
		 "train", 2, 1, 2, 0, 1, 0.8217442545668827, 1.0},
		{"npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz", HS_KIND_TILE,
		 "xla", "", "valid", 2, 1, 9, 0, 1, 0.9562338682527214, 3.5908427785882617},
	};
	hs_error err = {0};
	ds_index *ix = dataset_scan(data_dir(), &err);
	char name[160];

	CHECK("scan the real sample tree", ix != NULL);
	if (!ix) {
		printf("# %s\n", err.msg);
		return;
	}
	CHECK("seven graphs", ix->n == 7);
	for (size_t k = 0; k < sizeof want / sizeof want[0] && k < ix->n; k++) {
		const ds_entry *e = &ix->entries[k];
		const char *base = strrchr(want[k].rel, '/') + 1;
		snprintf(name, sizeof name, "real %zu sorted by rel", k);
		CHECK(name, strcmp(e->rel, want[k].rel) == 0);
		snprintf(name, sizeof name, "real %s indexed", base);
		CHECK(name, e->error == NULL);
		if (e->error)
			printf("# %s\n", e->error);
		snprintf(name, sizeof name, "real %s classified", base);
		CHECK(name, e->kind == want[k].kind && strcmp(e->collection, want[k].coll) == 0 &&
				    strcmp(e->search, want[k].search) == 0 &&
				    strcmp(e->split, want[k].split) == 0);
		snprintf(name, sizeof name, "real %s counts", base);
		CHECK(name, e->nodes == want[k].nodes && e->edges == want[k].edges &&
				    e->configs == want[k].configs && e->cfg_nodes == want[k].cfg_nodes);
		snprintf(name, sizeof name, "real %s runtimes", base);
		CHECK(name, e->labeled == want[k].labeled &&
				    fabs(e->runtime_min - want[k].rmin) <= 1e-9 * (1 + want[k].rmin) &&
				    fabs(e->runtime_max - want[k].rmax) <= 1e-9 * (1 + want[k].rmax));
		snprintf(name, sizeof name, "real %s paths", base);
		CHECK(name, strncmp(e->name, base, strlen(base) - 4) == 0 &&
				    strlen(e->name) == strlen(base) - 4 &&
				    strlen(e->path) == strlen(ix->root) + 1 + strlen(e->rel) &&
				    strcmp(e->path + strlen(ix->root) + 1, e->rel) == 0);
	}
	/* The index agrees with the full loader on every file. */
	int agree = 1;
	for (size_t k = 0; k < ix->n; k++) {
		const ds_entry *e = &ix->entries[k];
		hs_graph *g = graph_open(e->path, &err);
		if (!g) {
			agree = 0;
			continue;
		}
		if (g->kind != e->kind || g->n_nodes != e->nodes || g->n_edges != e->edges ||
		    g->n_configs != e->configs || g->n_cfg_nodes != e->cfg_nodes ||
		    g->labeled != e->labeled)
			agree = 0;
		if (g->labeled) {
			double lo = g->runtime[0], hi = g->runtime[0];
			for (int64_t c = 1; c < g->n_configs; c++) {
				lo = g->runtime[c] < lo ? g->runtime[c] : lo;
				hi = g->runtime[c] > hi ? g->runtime[c] : hi;
			}
			if (lo != e->runtime_min || hi != e->runtime_max)
				agree = 0;
		}
		graph_free(g);
	}
	CHECK("index agrees with graph_open on every real file", agree);
	dataset_free(ix);

	/* Scanning a leaf folder still classifies from the real path. */
	char sub[512];
	snprintf(sub, sizeof sub, "%s/npz/tile/xla/train/", data_dir());
	ix = dataset_scan(sub, &err);
	CHECK("scan a leaf folder (trailing slash)", ix && ix->n == 1);
	if (ix && ix->n == 1) {
		const ds_entry *e = &ix->entries[0];
		CHECK("leaf rel is the file name",
		      strcmp(e->rel, "retinanet.2x2.fp32_-342c949e14733d96.npz") == 0);
		CHECK("leaf classified from the real path",
		      e->kind == HS_KIND_TILE && strcmp(e->collection, "xla") == 0 &&
			      strcmp(e->split, "train") == 0 && e->search[0] == '\0');
		CHECK("leaf path has one slash", strstr(e->path, "//") == NULL);
	}
	dataset_free(ix);
}

static void test_scratch(void)
{
	hs_error err = {0};
	char real[512];
	const ds_entry *e;
	ds_index *ix;

	snprintf(real, sizeof real, "%s/npz/layout/xla/default/train/unet3d.npz", data_dir());
	CHECK("scratch folders", mkdirs("a/tile/xla/valid") == 0 && mkdirs("b/layout/nlp/default/test") == 0 &&
					 mkdirs("c") == 0 && mkdirs(".hidden") == 0 && mkdirs("d/deeper") == 0 &&
					 mkdirs("e/layout/xla/random/train") == 0);
	CHECK("good tile", write_sample(tmp_path("a/tile/xla/valid/good.npz"), 't', 0, 0) == 0);
	CHECK("good layout", write_sample(tmp_path("b/layout/nlp/default/test/lay.npz"), 'l', 'u', 0) == 0);
	CHECK("zero normalizer", write_sample(tmp_path("c/zero_norm.npz"), 't', 'n', 0) == 0);
	CHECK("bad ncf shape", write_sample(tmp_path("c/ncf_shape.npz"), 'l', 's', 0) == 0);
	CHECK("missing opcode", write_sample(tmp_path("c/no_opcode.npz"), 't', 'm', 0) == 0);
	CHECK("negative runtime", write_sample(tmp_path("c/neg.npz"), 'l', 'r', 0) == 0);
	CHECK("stored layout", write_sample(tmp_path("c/stored.npz"), 'l', 0, 1) == 0);
	CHECK("corrupt its node_config_feat data", corrupt_pattern(tmp_path("c/stored.npz")) == 0);
	CHECK("garbage file", write_bytes(tmp_path("c/garbage.npz"), "not a zip at all", 16) == 0);
	CHECK("empty file", write_bytes(tmp_path("c/empty.npz"), "", 0) == 0);
	CHECK("truncated real file", copy_prefix(real, tmp_path("e/layout/xla/random/train/cut.npz"), 5000) == 0);
	CHECK("hidden file", write_sample(tmp_path(".hidden/h.npz"), 't', 0, 0) == 0 &&
				     write_sample(tmp_path("c/.dot.npz"), 't', 0, 0) == 0);
	CHECK("upper-case suffix", write_sample(tmp_path("d/deeper/UP.NPZ"), 't', 0, 0) == 0);
	CHECK("other files", write_bytes(tmp_path("c/readme.txt"), "hi", 2) == 0 &&
				     write_bytes(tmp_path("c/npz"), "hi", 2) == 0);
	CHECK("symlink loop", symlink("..", tmp_path("d/deeper/loop")) == 0 &&
				      symlink(tmp_path("d"), tmp_path("d/back")) == 0);
	CHECK("symlink to a file", symlink(real, tmp_path("d/link.npz")) == 0);
	CHECK("dangling symlink", symlink(tmp_path("nowhere.npz"), tmp_path("d/dangling.npz")) == 0);

	ix = dataset_scan(dir, &err);
	CHECK("scratch scan succeeds despite bad files", ix != NULL);
	if (!ix) {
		printf("# %s\n", err.msg);
		return;
	}
	static const char *const order[] = {
		"a/tile/xla/valid/good.npz", "b/layout/nlp/default/test/lay.npz",
		"c/empty.npz", "c/garbage.npz", "c/ncf_shape.npz", "c/neg.npz",
		"c/no_opcode.npz", "c/stored.npz", "c/zero_norm.npz", "d/dangling.npz",
		"d/deeper/UP.NPZ", "d/link.npz", "e/layout/xla/random/train/cut.npz"};
	int same = ix->n == sizeof order / sizeof order[0];
	for (size_t i = 0; same && i < ix->n; i++)
		same = strcmp(ix->entries[i].rel, order[i]) == 0;
	CHECK("scratch: every file once, sorted, no hidden, loop ended", same);
	if (!same)
		for (size_t i = 0; i < ix->n; i++)
			printf("# %s\n", ix->entries[i].rel);

	e = find(ix, "a/tile/xla/valid/good.npz");
	CHECK("good tile indexed", e && !e->error && e->kind == HS_KIND_TILE && e->nodes == 3 &&
					   e->edges == 2 && e->configs == 4 && e->cfg_nodes == 0 &&
					   strcmp(e->split, "valid") == 0 && strcmp(e->name, "good") == 0);
	CHECK("good tile runtimes normalized", e && e->labeled && e->runtime_min == 1.0 &&
						       e->runtime_max == 4.0);
	e = find(ix, "b/layout/nlp/default/test/lay.npz");
	CHECK("unlabeled layout", e && !e->error && e->kind == HS_KIND_LAYOUT && !e->labeled &&
					  e->cfg_nodes == 2 && e->configs == 4 &&
					  e->runtime_min == 0 && e->runtime_max == 0 &&
					  strcmp(e->collection, "nlp") == 0 &&
					  strcmp(e->search, "default") == 0);
	e = find(ix, "c/stored.npz");
	CHECK("node_config_feat data is never read", e && !e->error && e->labeled &&
							     e->runtime_min == 100 && e->runtime_max == 400);
	{
		hs_graph *g = graph_open(tmp_path("c/stored.npz"), &err);
		int broken = g && graph_load_node_configs(g, &err) != 0;
		CHECK("...while loading it notices the damage", broken);
		graph_free(g);
	}
	e = find(ix, "c/zero_norm.npz");
	CHECK("zero normalizer is an error", e && e->error &&
						     strstr(e->error, "config_runtime_normalizers.npy") &&
						     strstr(e->error, "config 2"));
	e = find(ix, "c/ncf_shape.npz");
	CHECK("wrong node_config_feat shape is an error",
	      e && e->error && strstr(e->error, "node_config_feat.npy") && strstr(e->error, "(4, 3, 18)"));
	e = find(ix, "c/no_opcode.npz");
	CHECK("missing array is an error", e && e->error && strstr(e->error, "node_opcode"));
	e = find(ix, "c/neg.npz");
	CHECK("negative runtime is an error", e && e->error && strstr(e->error, "config 1"));
	e = find(ix, "c/garbage.npz");
	CHECK("garbage file is an error", e && e->error && *e->error);
	e = find(ix, "c/empty.npz");
	CHECK("empty file is an error", e && e->error && *e->error);
	e = find(ix, "e/layout/xla/random/train/cut.npz");
	CHECK("truncated file is an error", e && e->error && *e->error);
	CHECK("truncated file keeps its path guesses", e && e->kind == HS_KIND_LAYOUT &&
							       e->nodes == 0 && !strcmp(e->split, "train") &&
							       !strcmp(e->search, "random"));
	e = find(ix, "d/dangling.npz");
	CHECK("dangling link is an error", e && e->error && *e->error);
	e = find(ix, "d/link.npz");
	CHECK("linked real file indexed", e && !e->error && e->nodes == 2774 && e->cfg_nodes == 56);
	e = find(ix, "d/deeper/UP.NPZ");
	CHECK("upper-case suffix indexed", e && !e->error && strcmp(e->name, "UP") == 0);
	{
		int named = 1;
		for (size_t i = 0; i < ix->n; i++)
			if (ix->entries[i].error && strstr(ix->entries[i].error, ix->entries[i].path))
				named = 0;
		CHECK("error messages do not repeat the file path", named);
	}
	dataset_free(ix);

	/* An unreadable subfolder is not entered, and is an entry with its
	 * error (root ignores permissions). */
	if (geteuid() != 0) {
		CHECK("lock a folder", chmod(tmp_path("c"), 0) == 0);
		ix = dataset_scan(dir, &err);
		CHECK("unreadable subfolder skipped", ix && !find(ix, "c/garbage.npz") &&
							      find(ix, "a/tile/xla/valid/good.npz"));
		e = ix ? find(ix, "c") : NULL;
		CHECK("unreadable subfolder listed with its error",
		      e && e->error && strstr(e->error, "cannot read folder: Permission denied"));
		dataset_free(ix);
		chmod(tmp_path("c"), 0755);
	}
}

static void test_errors(void)
{
	hs_error err = {0};

	CHECK("missing folder fails", dataset_scan(tmp_path("no/such/folder"), &err) == NULL &&
					      err.status == HS_EDATA &&
					      strstr(err.msg, "no/such/folder") != NULL);
	hs_error_clear(&err);
	CHECK("a file is not a folder", dataset_scan(tmp_path("c/garbage.npz"), &err) == NULL &&
						err.status == HS_EUSAGE &&
						strstr(err.msg, "not a folder") != NULL);
	hs_error_clear(&err);
	CHECK("empty name fails", dataset_scan("", &err) == NULL && err.status == HS_EUSAGE);
	CHECK("NULL error pointer is fine", dataset_scan(tmp_path("nope"), NULL) == NULL);
	dataset_free(NULL);
	CHECK("dataset_free(NULL)", 1);

	ds_index *ix = dataset_scan(tmp_path(".hidden"), &err);
	CHECK("a hidden root itself is scanned", ix && ix->n == 1);
	dataset_free(ix);
	CHECK("empty folder", mkdirs("empty") == 0 && (ix = dataset_scan(tmp_path("empty"), &err)) &&
				      ix->n == 0 && ix->entries == NULL);
	dataset_free(ix);

	/* A folder nested past the walk's limit is not entered and is an
	 * entry that says so (base/walk.h), not left out in silence. */
	char deep[300] = "deep";
	for (int i = 0; i < HS_WALK_MAX_DEPTH + 1; i++)
		strcat(deep, "/d");
	char rel[320];
	snprintf(rel, sizeof rel, "%s/g.npz", deep);
	CHECK("a tree deeper than the limit", mkdirs(deep) == 0 && write_sample(tmp_path(rel), 't', 0, 0) == 0);
	ix = dataset_scan(tmp_path("deep"), &err);
	const ds_entry *e = ix && ix->n == 1 ? &ix->entries[0] : NULL;
	CHECK("the folder past the limit is an entry with its error",
	      e && e->error && strstr(e->error, "nested more than 64 deep: not entered") &&
	      strlen(e->rel) == 2 * HS_WALK_MAX_DEPTH - 1);
	dataset_free(ix);
}

static void test_classify(void)
{
	ds_entry e;

	memset(&e, 0, sizeof e);
	e.kind = HS_KIND_TILE;
	dataset_classify_path("/data/npz/layout/nlp/random/valid/x.npz", &e);
	CHECK("classify layout", e.kind == HS_KIND_LAYOUT && !strcmp(e.collection, "nlp") &&
					 !strcmp(e.search, "random") && !strcmp(e.split, "valid"));
	dataset_classify_path("npz/tile/xla/train/y.npz", &e);
	CHECK("classify tile clears search", e.kind == HS_KIND_TILE && !strcmp(e.collection, "xla") &&
						     e.search[0] == '\0' && !strcmp(e.split, "train"));
	e.kind = HS_KIND_LAYOUT;
	dataset_classify_path("somewhere/else/test.npz", &e);
	CHECK("file name does not count, kind kept", e.kind == HS_KIND_LAYOUT && e.split[0] == '\0' &&
							     e.collection[0] == '\0');
	dataset_classify_path("Layout/XLA/Default/TEST/z.npz", &e);
	CHECK("case ignored", e.kind == HS_KIND_LAYOUT && !strcmp(e.collection, "xla") &&
				      !strcmp(e.search, "default") && !strcmp(e.split, "test"));
	dataset_classify_path("train/x/valid/z.npz", &e);
	CHECK("nearest component wins", !strcmp(e.split, "valid"));
	dataset_classify_path("training/xla2/z.npz", &e);
	CHECK("whole components only", e.split[0] == '\0' && e.collection[0] == '\0');
	dataset_classify_path("z.npz", &e);
	CHECK("bare file name", e.split[0] == '\0');
	dataset_classify_path(NULL, &e);
	CHECK("NULL path", e.split[0] == '\0');
}

/* XLA dump file names (dump.h). */
static void test_dump_names(void)
{
	xla_dump_name d;
	CHECK("dump: before optimizations", xla_dump_parse("module_0042.jit_step.before_optimizations.txt", &d) &&
	      d.kind == XD_HLO_TEXT && strcmp(d.module, "module_0042.jit_step") == 0 && d.order == 0 &&
	      strcmp(d.stage, "before optimizations") == 0);
	CHECK("dump: after optimizations, a platform with a dot, a protobuf",
	      xla_dump_parse("module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb", &d) &&
	      d.kind == XD_HLO_PROTO && strcmp(d.module, "module_0001.jit__psum") == 0 &&
	      d.order == XD_AFTER_OPTIMIZATIONS && strcmp(d.stage, "after optimizations (sm_8.0_gpu)") == 0);
	CHECK("dump: a pass, after it", xla_dump_parse("module_0042.jit_step.0007.fusion.after_priority-fusion.txt", &d) &&
	      d.kind == XD_HLO_TEXT && d.order == 1 + 2 * 7 + 1 &&
	      strcmp(d.stage, "pass 0007 fusion: after priority-fusion") == 0);
	CHECK("dump: a pass, before it", xla_dump_parse("module_0042.jit_step.0007.fusion.before_priority-fusion.txt", &d) &&
	      d.order == 1 + 2 * 7);
	CHECK("dump: buffer assignment", xla_dump_parse("module_0003.f.cpu_after_optimizations-buffer-assignment.txt", &d) &&
	      d.kind == XD_BUFFER_ASSIGNMENT && strcmp(d.module, "module_0003.f") == 0);
	CHECK("dump: memory usage report", xla_dump_parse("module_0003.f.cpu_after_optimizations-memory-usage-report.txt", &d) &&
	      d.kind == XD_MEMORY_REPORT);
	CHECK("dump: compressed", xla_dump_parse("module_0038.jit__psum.before_optimizations.hlo.pb.xz", &d) &&
	      d.compressed && d.kind == XD_HLO_PROTO);
	CHECK("dump: autotune results", xla_dump_parse("module_0040.pjit__wrapped_step_fn.autotune_results.pbtxt", &d) &&
	      d.kind == XD_AUTOTUNE && strcmp(d.module, "module_0040.pjit__wrapped_step_fn") == 0 && !d.stage[0]);
	CHECK("dump: a target config, compressed",
	      xla_dump_parse("module_0040.pjit__wrapped_step_fn.gpu_target_config.pbtxt.xz", &d) &&
	      d.kind == XD_TARGET_CONFIG && d.compressed && strcmp(d.module, "module_0040.pjit__wrapped_step_fn") == 0);
	CHECK("dump: a target config named after its module only", xla_dump_parse("jit_f.gpu_target_config.pbtxt", &d) &&
	      d.kind == XD_TARGET_CONFIG && strcmp(d.module, "jit_f") == 0 && !xla_dump_parse("gpu_target_config.pbtxt", &d));
	CHECK("dump: other files of a module", xla_dump_parse("module_0040.pjit__wrapped_step_fn.ir-no-opt.ll", &d) &&
	      d.kind == XD_OTHER && strcmp(d.module, "module_0040.pjit__wrapped_step_fn") == 0);
	CHECK("dump: no module name (module_NNNN.STAGE.txt)", xla_dump_parse("module_0108.after_optimizations.txt", &d) &&
	      d.kind == XD_HLO_TEXT && strcmp(d.module, "module_0108") == 0 && d.order == XD_AFTER_OPTIMIZATIONS &&
	      strcmp(d.stage, "after optimizations") == 0);
	CHECK("dump: no module name, a platform with a dot",
	      xla_dump_parse("module_0001.sm_8.0_gpu_after_optimizations.txt", &d) && strcmp(d.module, "module_0001") == 0 &&
	      strcmp(d.stage, "after optimizations (sm_8.0_gpu)") == 0);
	CHECK("dump: no module name, a pass", xla_dump_parse("module_0001.0007.fusion.after_priority-fusion.txt", &d) &&
	      strcmp(d.module, "module_0001") == 0 && d.order == 1 + 2 * 7 + 1);
	CHECK("dump: .pb without .hlo", xla_dump_parse("module_0001.f.before_optimizations.pb", &d) &&
	      d.kind == XD_HLO_PROTO && strcmp(d.module, "module_0001.f") == 0);
	CHECK("dump: not dump names", !xla_dump_parse("unet3d.npz", &d) && !xla_dump_parse("module_12.x.txt", &d) &&
	      !xla_dump_parse("module_0001", &d));
}

/* A dump folder: stages in the compiler's order, a text twin read for its
 * protobuf (which is left out, with why), a file named .xz read by its
 * content, reports apart, a note that is not HLO left out with why. */
static void test_dump_folder(void)
{
	static const char text[] = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n";
	static const char *const files[] = {
		"dump/module_0001.m.sm_8.0_gpu_after_optimizations.txt",
		"dump/module_0001.m.before_optimizations.txt",
		"dump/module_0001.m.before_optimizations.hlo.pb",      /* the text's twin: not read */
		"dump/module_0001.m.0012.fusion.after_priority-fusion.txt",
		"dump/module_0001.m.0003.simp.after_algsimp.txt",
		"dump/module_0002.g.before_optimizations.hlo.pb.xz",
		"dump/module_0001.m.sm_8.0_gpu_after_optimizations-buffer-assignment.txt",
		"dump/module_0001.m.autotune_results.pbtxt",
		"dump/notes.txt",
	};
	mkdir(tmp_path("dump"), 0755);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f = fopen(tmp_path(files[i]), "w");
		if (f) {
			fputs(strstr(files[i], ".hlo.pb") && !strstr(files[i], ".xz") ? "garbage"
			      : strstr(files[i], "notes") ? "my notes\n" : strstr(files[i], "autotune") ? "version: 3\n" : text,
			      f);
			fclose(f);
		}
	}
	hs_error err = {0};
	ds_index *ix = dataset_scan(tmp_path("dump"), &err);
	CHECK("dump folder: scanned", ix != NULL);
	if (!ix)
		return;
	static const char *const want[] = {
		"module_0001.m.before_optimizations.txt", "module_0001.m.0003.simp.after_algsimp.txt",
		"module_0001.m.0012.fusion.after_priority-fusion.txt",
		"module_0001.m.sm_8.0_gpu_after_optimizations.txt", "module_0002.g.before_optimizations.hlo.pb.xz"};
	int order = ix->n == 5;
	for (size_t i = 0; order && i < 5; i++)
		order = strcmp(ix->entries[i].rel, want[i]) == 0;
	CHECK("dump folder: one entry per stage, in the compiler's order, the twin not read", order);
	CHECK("dump folder: module and stage", ix->n == 5 && strcmp(ix->entries[2].dump_module, "module_0001.m") == 0 &&
	      strcmp(ix->entries[2].stage, "pass 0012 fusion: after priority-fusion") == 0 && !ix->entries[2].error &&
	      ix->entries[2].nodes == 1);
	CHECK("dump folder: fusions and the file's size", ix->n == 5 && ix->entries[2].fusions == 0 &&
	      ix->entries[2].file_bytes == (int64_t)strlen(text));
	CHECK("dump folder: the buffer assignment beside a stage", ix->n == 5 &&
	      dataset_dump_report(ix, &ix->entries[3], XD_BUFFER_ASSIGNMENT) == &ix->reports[1] &&
	      !dataset_dump_report(ix, &ix->entries[3], XD_MEMORY_REPORT) &&
	      !dataset_dump_report(ix, &ix->entries[4], XD_BUFFER_ASSIGNMENT));
	CHECK("dump folder: a file named .xz is read by its content", ix->n == 5 && !ix->entries[4].error &&
	      ix->entries[4].nodes == 1);
	CHECK("dump folder: the buffer assignment and autotune results are reports", ix->n_reports == 2 &&
	      ix->reports[1].kind == XD_BUFFER_ASSIGNMENT && strcmp(ix->reports[1].dump_module, "module_0001.m") == 0 &&
	      ix->reports[0].kind == XD_AUTOTUNE && ix->reports[0].note && !strcmp(ix->reports[0].note, "0 results"));
	CHECK("dump folder: the twin and the notes are left out, with why", ix->n_left_out == 2 &&
	      !strcmp(ix->left_out[0].rel, "module_0001.m.before_optimizations.hlo.pb") &&
	      strstr(ix->left_out[0].why, "the same stage as module_0001.m.before_optimizations.txt") &&
	      !strcmp(ix->left_out[1].rel, "notes.txt") && strstr(ix->left_out[1].why, "not HLO text"));
	dataset_free(ix);
}

static void cleanup(const char *rel)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s%s'", dir, rel);
	if (system(cmd) != 0)
		printf("# cleanup of %s failed\n", dir);
}

/* The text protobuf reader: every scalar by its path, strings unescaped and
 * joined, lists, '<>' messages, comments; errors at their line and column. */
struct pbtxt_seen {
	char all[512];
	int n;
};

static int seen_field(void *ctx, const char *path, const char *value, size_t len, hs_error *err)
{
	struct pbtxt_seen *s = ctx;
	size_t at = strlen(s->all);
	snprintf(s->all + at, sizeof s->all - at, "%s=%.*s;", path, value ? (int)len : 1, value ? value : "{");
	s->n++;
	return 0;
}

static int pbtxt(const char *text, struct pbtxt_seen *s, hs_error *err)
{
	memset(s, 0, sizeof *s);
	hs_error_clear(err);
	return pbtxt_read(text, strlen(text), "t.pbtxt", seen_field, s, err);
}

static void test_pbtxt(void)
{
	struct pbtxt_seen s;
	hs_error err;
	CHECK("pbtxt: nested fields by their path",
	      pbtxt("a { b: 1 c { d: -2.5e3 } }\n# a comment\ne: \"x\\ty\" 'z' f: [1, 2] g < h: ENUM_V >", &s, &err) == 0 &&
	      !strcmp(s.all, "a={;a.b=1;a.c={;a.c.d=-2.5e3;e=x\tyz;f=1;f=2;g={;g.h=ENUM_V;"));
	CHECK("pbtxt: an unclosed message, at its end", pbtxt("a {\n  b: 1\n", &s, &err) < 0 &&
	      !strcmp(err.msg, "t.pbtxt:3:1: '}' expected, found the end"));
	CHECK("pbtxt: a value missing, with its place", pbtxt("a: 1\nb c", &s, &err) < 0 &&
	      !strcmp(err.msg, "t.pbtxt:2:3: ':' or '{' expected, found 'c'"));
	CHECK("pbtxt: an open string", pbtxt("a: \"x\n", &s, &err) < 0 && !strcmp(err.msg, "t.pbtxt:1:6: the string's closing quote expected, found the line's end"));
	char deep[400] = "";
	for (int i = 0; i < 70; i++)
		strcat(deep, "a{");
	CHECK("pbtxt: nesting is bounded", pbtxt(deep, &s, &err) < 0 && strstr(err.msg, "nested at most 64 deep"));

	/* run from the source folder, as tests/run.sh does */
	const char *path = "tests/data/xla_dump/pax_fsdp4/dump/module_0001.jit__psum.gpu_target_config.pbtxt.xz";
	hs_target t;
	hs_error_clear(&err);
	CHECK("target: the real A100 config", target_read(path, &t, &err) == 0 && !strcmp(t.device, "NVIDIA A100-SXM4-40GB") &&
	      !strcmp(t.platform, "CUDA") && t.has_cc && t.cc_major == 8 && t.cc_minor == 0 && t.sm_count == 108 &&
	      t.clock_ghz == 1.41 && t.memory_bandwidth == 1555200000000 && t.l2_cache_size == 41943040);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_classify();
	test_real_tree();
	test_scratch();
	test_errors();
	test_dump_names();
	test_dump_folder();
	test_pbtxt();
	cleanup("");
	T_DONE();
}
