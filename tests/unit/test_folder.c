/* test_folder.c - the pieces of folder queries: graph_open_parts (the light
 * open reads only what it is asked for, and agrees with graph_open on it),
 * dataset_list, query_parts (what each query reads of a graph), and folder
 * sessions through the API: the same results for any thread count, the
 * progress callback on the calling thread, a stop from it, skipped files.
 * Uses the real files of $DATA. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/dataset.h"
#include "loader/graph.h"
#include "query/query.h"
#include "tests/unit/query_fixture.h"
#include "tests/unit/t.h"

static const char *const files[] = {
	"npz/layout/xla/default/train/unet3d.npz",
	"npz/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz",
	"npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz",
	"npz/tile/xla/test/0a3585c3e686065389227fa374175e48.npz",
};

static int same_i64(const int64_t *a, const int64_t *b, int64_t n)
{
	return (!a && !b) || (a && b && memcmp(a, b, (size_t)n * sizeof *a) == 0);
}

static void test_light_open(const char *data)
{
	const unsigned light = GRAPH_PART_SHAPES | GRAPH_PART_SPLITS | GRAPH_PART_RUNTIMES;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[4096], name[160];
		hs_error err = {0};
		snprintf(path, sizeof path, "%s/%s", data, files[i]);
		hs_graph *full = graph_open(path, &err), *g = graph_open_parts(path, light, &err);
		hs_graph *ops = graph_open_parts(path, GRAPH_PART_OPCODES, &err);
		snprintf(name, sizeof name, "light open %s", strrchr(files[i], '/') + 1);
		CHECK(name, full && g && ops);
		if (!full || !g || !ops) {
			graph_free(full);
			graph_free(g);
			graph_free(ops);
			continue;
		}
		CHECK("light open: counts and widths as graph_open's",
		      g->n_nodes == full->n_nodes && g->n_edges == full->n_edges &&
			      g->n_configs == full->n_configs && g->n_cfg_nodes == full->n_cfg_nodes &&
			      g->feat_width == full->feat_width && g->config_width == full->config_width &&
			      g->ncf_width == full->ncf_width && g->kind == full->kind &&
			      strcmp(g->name, full->name) == 0);
		CHECK("light open: opcodes, computations, runtimes as graph_open's",
		      memcmp(g->opcode, full->opcode, (size_t)g->n_nodes) == 0 &&
			      g->n_comps == full->n_comps &&
			      same_i64(g->comp_start, full->comp_start, g->n_comps + 1) &&
			      same_i64(g->runtime_raw, full->runtime_raw, g->n_configs) &&
			      same_i64(g->normalizer, full->normalizer, g->n_configs) &&
			      g->labeled == full->labeled &&
			      memcmp(g->runtime, full->runtime, (size_t)g->n_configs * sizeof(double)) == 0);
		CHECK("light open: node features, edges and configs not read",
		      !g->node_feat && !g->edges && !g->operand_off && !g->config_feat &&
			      !g->cfg_node_ids && !g->ncf_loaded);
		CHECK("opcodes only: node count and opcodes, nothing else",
		      ops->n_nodes == full->n_nodes && !ops->runtime && !ops->comp_of &&
			      ops->n_edges == 0 && ops->n_configs == 0 &&
			      memcmp(ops->opcode, full->opcode, (size_t)ops->n_nodes) == 0);
		graph_free(g);
		graph_free(ops);
		g = graph_open_parts(path, GRAPH_PART_EDGES | GRAPH_PART_NODE_CONFIGS, &err);
		CHECK("more than the light parts: the whole graph, node configs when asked",
		      g && g->node_feat && g->operand_off &&
			      (g->kind == HS_KIND_TILE || g->ncf_loaded));
		graph_free(g);
		graph_free(full);
	}
	hs_error err = {0};
	CHECK("light open of a missing file fails with its name",
	      !graph_open_parts("/nonexistent/x.npz", GRAPH_PART_OPCODES, &err) &&
		      strstr(err.msg, "/nonexistent/x.npz"));
}

static void test_list(const char *data)
{
	hs_error err = {0};
	ds_index *scan = dataset_scan(data, &err), *list = dataset_list(data, &err);
	int same = scan && list && scan->n == list->n && scan->n > 0;

	for (size_t i = 0; same && i < list->n; i++) {
		const ds_entry *a = &scan->entries[i], *b = &list->entries[i];
		same = !strcmp(a->rel, b->rel) && !strcmp(a->path, b->path) && !b->error &&
		       b->nodes == 0 && !strcmp(a->split, b->split) && !strcmp(a->collection, b->collection);
	}
	CHECK("dataset_list: dataset_scan's files and path guesses, nothing opened", same);
	dataset_free(scan);
	dataset_free(list);
}

static unsigned parts_of(query_session *s, const char *q)
{
	unsigned p = 0;
	hs_error err = {0};

	if (query_parts(s, q, &p, &err) < 0)
		return 0xdead;
	return p;
}

static void test_parts(query_session *gs, query_session *fs)
{
	const unsigned O = GRAPH_PART_OPCODES;
	struct {
		const char *q;
		unsigned want;
	} cases[] = {
		{"count by opcode", O},
		{"count by opcode_id limit 3", O},
		{"count by category where id > 3", O},
		{"count by opcode where users > 1", O | GRAPH_PART_EDGES},
		{"stats shape_dimensions_product", O | GRAPH_PART_FEATURES},
		{"stats cost", O | GRAPH_PART_FEATURES | GRAPH_PART_EDGES},
		{"stats runtime where runtime_rank < 4", O | GRAPH_PART_RUNTIMES},
		{"count by split", O | GRAPH_PART_SPLITS},
		/* an HLO computation is the module's structure: the whole graph */
		{"count by computation", O | GRAPH_PART_FEATURES | GRAPH_PART_EDGES},
		{"configs show config, runtime", O | GRAPH_PART_RUNTIMES},
		{"configs show config, predicted", GRAPH_PART_ALL},
		{"nodes where opcode = dot show id", O},
		{"graphs show file, kind, nodes", O},
		{"graphs", O | GRAPH_PART_SHAPES},
		{"graphs show runtime_median, splits", O | GRAPH_PART_RUNTIMES | GRAPH_PART_SPLITS},
		{"graphs show runtime_median, computations", O | GRAPH_PART_RUNTIMES | GRAPH_PART_FEATURES | GRAPH_PART_EDGES},
		{"graphs show file where count(rank = 5) > 0", O | GRAPH_PART_FEATURES},
		{"graphs show file where count(runtime > 1) > 0", O | GRAPH_PART_RUNTIMES},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char name[160];
		snprintf(name, sizeof name, "query_parts: %s", cases[i].q);
		CHECK(name, parts_of(gs, cases[i].q) == cases[i].want &&
				    parts_of(fs, cases[i].q) == cases[i].want);
	}
	/* default columns: id, opcode, shape, operands, users (and computation
	 * on a graph with several) */
	CHECK("query_parts: nodes, default columns",
	      parts_of(fs, "nodes where opcode = dot") == (O | GRAPH_PART_FEATURES | GRAPH_PART_EDGES));
	CHECK("query_parts: a command about one node reads it all",
	      parts_of(gs, "show 3") == GRAPH_PART_ALL);
	CHECK("query_parts: ... and fails on a folder", parts_of(fs, "show 3") == 0xdead);
	CHECK("query_parts: a usage error fails", parts_of(fs, "count by shap") == 0xdead);
}

/* ---- folder sessions --------------------------------------------------- */

static char *csv_of(query_session *s, const char *q)
{
	query_result r;
	hs_error err = {0};
	char *text = NULL;
	size_t n = 0;

	if (query_exec(s, q, &r, &err) < 0)
		return NULL;
	FILE *m = open_memstream(&text, &n);
	if (m) {
		query_write(m, &r, QUERY_FMT_CSV, &err);
		fclose(m);
	}
	query_result_free(&r);
	return text;
}

struct probe {
	pthread_t caller;
	int calls, other_thread, stop_at;
};

static int probe_progress(void *ctx, size_t done, size_t total, double seconds)
{
	struct probe *p = ctx;

	p->calls++;
	if (!pthread_equal(p->caller, pthread_self()))
		p->other_thread = 1;
	return p->stop_at && p->calls >= p->stop_at;
}

static void test_folder_session(query_session *fs)
{
	static const char *const qs[] = {
		"count by opcode", "stats users, rank where opcode != parameter",
		"nodes where users > 3 sort by elements desc limit 17", "configs sort by runtime limit 9",
		"graphs where count(opcode = convolution) >= 0 sort by nodes desc",
	};

	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		char *one, *many;
		char name[160];
		query_session_set_threads(fs, 1);
		one = csv_of(fs, qs[i]);
		query_session_set_threads(fs, 5);
		many = csv_of(fs, qs[i]);
		snprintf(name, sizeof name, "folder: 1 and 5 threads agree: %s", qs[i]);
		CHECK(name, one && many && strcmp(one, many) == 0);
		free(one);
		free(many);
	}

	query_result r;
	hs_error err = {0};
	CHECK("folder: graphs has a row and a path per graph",
	      query_exec(fs, "graphs", &r, &err) == 0 && r.table.nrows == 4 && r.table.path &&
		      strstr(r.table.path[0], "npz") && r.graphs == 4 && r.nskipped == 0);
	query_result_free(&r);
	CHECK("folder: node rows carry node ids and paths",
	      query_exec(fs, "nodes where opcode = convolution limit 2", &r, &err) == 0 &&
		      r.table.nrows == 2 && r.table.node[0] >= 0 && r.table.path[1]);
	query_result_free(&r);

	/* Progress comes on the calling thread; a non-zero return stops. */
	struct probe p = {.caller = pthread_self()};
	query_session_set_threads(fs, 2);
	query_session_set_progress(fs, probe_progress, &p);
	int rc = query_exec(fs, "stats cost", &r, &err);
	CHECK("folder: a run with progress completes", rc == 0 && !query_stopped(fs));
	query_result_free(&r);
	CHECK("folder: progress is called on the calling thread only", !p.other_thread);
	p = (struct probe){.caller = pthread_self(), .stop_at = 1};
	rc = query_exec(fs, "stats cost", &r, &err);
	int stopped_here = rc < 0 && query_stopped(fs) && strstr(err.msg, "stopped") &&
			   r.kind == QUERY_NONE;
	/* The first call may come after the last file on a fast machine. */
	CHECK("folder: the callback stops the query (or it ended first)",
	      stopped_here || (rc == 0 && p.calls == 0));
	query_result_free(&r);
	query_session_set_progress(fs, NULL, NULL);
	CHECK("folder: the next query clears the stopped flag",
	      query_exec(fs, "count by kind", &r, &err) < 0 && !query_stopped(fs));
	query_result_free(&r);
}

int main(void)
{
	const char *data = getenv("DATA");
	char dir[] = "/tmp/hloscope-test-folder.XXXXXX";
	hs_error err = {0};

	if (!data || !*data) {
		printf("FAIL test_folder: DATA is not set\n");
		return 1;
	}
	test_light_open(data);
	test_list(data);
	if (!mkdtemp(dir))
		return 1;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char src[4096], dst[4096];
		snprintf(src, sizeof src, "%s/%s", data, files[i]);
		snprintf(dst, sizeof dst, "%s/g%zu.npz", dir, i);
		if (symlink(src, dst) != 0)
			printf("FAIL symlink %s\n", dst);
	}
	ds_index *ix = dataset_list(dir, &err);
	hs_graph *g = fixture_graph();
	query_session *fs = ix ? query_session_new_dataset(ix, &err) : NULL;
	query_session *gs = g ? query_session_new(g, &err) : NULL;
	CHECK("sessions on a folder and on a graph", fs && gs && query_session_dataset(fs) == ix &&
							     !query_session_dataset(gs));
	if (fs && gs) {
		test_parts(gs, fs);
		test_folder_session(fs);
	}
	query_session_free(fs);
	query_session_free(gs);
	graph_free(g);
	dataset_free(ix);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char dst[4096];
		snprintf(dst, sizeof dst, "%s/g%zu.npz", dir, i);
		unlink(dst);
	}
	rmdir(dir);
	T_DONE();
}
