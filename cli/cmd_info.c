/* hloscope info PATH [--json]: a graph's summary, or one row per graph of a
 * dataset folder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/jsonw.h"
#include "base/plural.h"
#include "cli/commands.h"
#include "loader/dataset.h"
#include "loader/graph.h"
#include "loader/hlo.h"

/* min, median, max: of config_runtime as stored (ns); norm_*: of runtime /
 * normalizer (tile files; equal to the stored values for layout). */
struct rt_summary {
	double min, median, max;
	double norm_min, norm_median, norm_max;
	int64_t best;
};

/* numpy's median: the mean of the two middle values for an even count.
 * Sorts v. */
static void min_median_max(double *v, size_t n, double *min, double *median, double *max)
{
	qsort(v, n, sizeof *v, hs_cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int runtime_summary(const hs_graph *g, struct rt_summary *s)
{
	if (!g->labeled || g->n_configs == 0)
		return -1;
	size_t n = (size_t)g->n_configs;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = (double)g->runtime_raw[i];
	min_median_max(v, n, &s->min, &s->median, &s->max);
	memcpy(v, g->runtime, n * sizeof *v);
	min_median_max(v, n, &s->norm_min, &s->norm_median, &s->norm_max);
	s->best = graph_best_config(g);
	free(v);
	return 0;
}

static void opcode_counts(const hs_graph *g, int64_t counts[256])
{
	memset(counts, 0, 256 * sizeof *counts);
	for (int64_t i = 0; i < g->n_nodes; i++)
		counts[g->opcode[i]]++;
}

/* A runtime in ns: an integer, or a half for the median of an even count. */
static void ns_json(jsonw *w, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		jsonw_int(w, (int64_t)v);
	else
		jsonw_num(w, v);
}

static int info_file_json(const hs_graph *g)
{
	jsonw w;
	int64_t counts[256];
	struct rt_summary rs;

	jsonw_init(&w, stdout, 1);
	jsonw_obj_begin(&w);
	char entry[64];
	jsonw_key(&w, "file"), jsonw_str(&w, g->path);
	jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(g->kind));
	jsonw_key(&w, "module"), jsonw_str(&w, graph_module_name(g));
	jsonw_key(&w, "entry"), jsonw_str(&w, graph_hcomp_name(g, g->entry, entry, sizeof entry));
	jsonw_key(&w, "nodes"), jsonw_int(&w, g->n_nodes);
	jsonw_key(&w, "edges"), jsonw_int(&w, g->n_edges);
	jsonw_key(&w, "configs"), jsonw_int(&w, g->n_configs);
	jsonw_key(&w, "configurable_nodes"), jsonw_int(&w, g->n_cfg_nodes);
	jsonw_key(&w, "computations"), jsonw_int(&w, g->n_hcomps);
	jsonw_key(&w, "splits"), jsonw_int(&w, g->n_comps);
	jsonw_key(&w, "fusions"), jsonw_int(&w, graph_n_fusions(g));
	jsonw_key(&w, "names"), jsonw_str(&w, g->module ? "real" : "derived");
	if (g->warning)
		jsonw_key(&w, "warning"), jsonw_str(&w, g->warning);
	jsonw_key(&w, "node_feature_width"), jsonw_int(&w, g->feat_width);
	jsonw_key(&w, "config_feature_width");
	jsonw_int(&w, g->kind == HS_KIND_TILE ? g->config_width : g->ncf_width);
	jsonw_key(&w, "opcodes");
	jsonw_obj_begin(&w);
	opcode_counts(g, counts);
	for (int op = 0; op < 256; op++)
		if (counts[op]) {
			jsonw_key(&w, hlo_opcode_name(op));
			jsonw_int(&w, counts[op]);
		}
	jsonw_obj_end(&w);
	jsonw_key(&w, "runtime");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "labeled"), jsonw_bool(&w, g->labeled);
	if (runtime_summary(g, &rs) == 0) {
		jsonw_key(&w, "min"), ns_json(&w, rs.min);
		jsonw_key(&w, "median"), ns_json(&w, rs.median);
		jsonw_key(&w, "max"), ns_json(&w, rs.max);
		if (g->kind == HS_KIND_TILE) {
			jsonw_key(&w, "normalized_min"), jsonw_num(&w, rs.norm_min);
			jsonw_key(&w, "normalized_median"), jsonw_num(&w, rs.norm_median);
			jsonw_key(&w, "normalized_max"), jsonw_num(&w, rs.norm_max);
		}
		jsonw_key(&w, "best_config"), jsonw_int(&w, rs.best);
	}
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	hs_error err;
	hs_error_clear(&err);
	return jsonw_finish(&w, &err) < 0 ? cli_report(&err) : 0;
}

static int cmp_count_desc(const void *a, const void *b)
{
	const int64_t *x = a, *y = b; /* {count, opcode} */
	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static int info_file_text(const hs_graph *g)
{
	int64_t counts[256], order[256][2];
	struct rt_summary rs;
	int n = 0;

	char entry[64];
	printf("file            %s\n", g->path);
	printf("kind            %s\n", graph_kind_name(g->kind));
	printf("module          %s%s\n", graph_module_name(g), g->module ? "" : " (names derived from the arrays)");
	printf("nodes           %lld\n", (long long)g->n_nodes);
	printf("edges           %lld\n", (long long)g->n_edges);
	printf("computations    %lld (entry %s), %lld fusion%s\n", (long long)g->n_hcomps,
	       graph_hcomp_name(g, g->entry, entry, sizeof entry), (long long)graph_n_fusions(g),
	       hs_s(graph_n_fusions(g)));

	printf("splits          %lld\n", (long long)g->n_comps);
	printf("configs         %lld\n", (long long)g->n_configs);
	if (g->kind == HS_KIND_LAYOUT)
		printf("configurable    %lld node%s x %d value%s\n", (long long)g->n_cfg_nodes,
		       hs_s(g->n_cfg_nodes), g->ncf_width, hs_s(g->ncf_width));
	else
		printf("config features %d\n", g->config_width);
	printf("node features   %d%s\n", g->feat_width,
	       g->feat_width == HLO_NODE_FEATURES ? "" : " (not the documented 140: generic names)");
	if (runtime_summary(g, &rs) == 0) {
		printf("runtime         min %.0f  median %.*f  max %.0f ns\n", rs.min,
		       rs.median == floor(rs.median) ? 0 : 1, rs.median, rs.max);
		if (g->kind == HS_KIND_TILE)
			printf("normalized      min %.6g  median %.6g  max %.6g (runtime / normalizer)\n",
			       rs.norm_min, rs.norm_median, rs.norm_max);
		printf("best config     %lld\n", (long long)rs.best);
	} else {
		printf("runtime         unlabeled (every runtime is 0: a test-split file)\n");
	}
	opcode_counts(g, counts);
	for (int op = 0; op < 256; op++)
		if (counts[op]) {
			order[n][0] = counts[op];
			order[n][1] = op;
			n++;
		}
	qsort(order, (size_t)n, sizeof order[0], cmp_count_desc);
	printf("opcodes         %d distinct\n", n);
	for (int i = 0; i < n; i++)
		printf("  %-24s %7lld  %5.1f%%\n", hlo_opcode_name((int)order[i][1]), (long long)order[i][0],
		       g->n_nodes ? 100.0 * (double)order[i][0] / (double)g->n_nodes : 0.0);
	return 0;
}

static void fmt_range(const ds_entry *e, char *buf, size_t cap)
{
	if (e->error)
		snprintf(buf, cap, "-");
	else if (!e->labeled)
		snprintf(buf, cap, "unlabeled");
	else
		snprintf(buf, cap, "%.0f..%.0f", e->ns_min, e->ns_max);
}

static int info_folder(const char *dir, int json)
{
	hs_error err = {0};
	ds_index *ix = dataset_scan(dir, &err);
	if (!ix)
		return cli_report(&err);
	int bad = 0;
	if (json) {
		jsonw w;
		jsonw_init(&w, stdout, 1);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "folder"), jsonw_str(&w, dir);
		jsonw_key(&w, "graphs");
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < ix->n; i++) {
			const ds_entry *e = &ix->entries[i];
			jsonw_obj_begin(&w);
			jsonw_key(&w, "file"), jsonw_str(&w, e->rel);
			if (e->error) {
				jsonw_key(&w, "error"), jsonw_str(&w, e->error);
				bad++;
			} else {
				jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(e->kind));
				jsonw_key(&w, "collection"), jsonw_str(&w, e->collection);
				jsonw_key(&w, "search"), jsonw_str(&w, e->search);
				jsonw_key(&w, "split"), jsonw_str(&w, e->split);
				jsonw_key(&w, "nodes"), jsonw_int(&w, e->nodes);
				jsonw_key(&w, "edges"), jsonw_int(&w, e->edges);
				jsonw_key(&w, "configs"), jsonw_int(&w, e->configs);
				jsonw_key(&w, "configurable_nodes"), jsonw_int(&w, e->cfg_nodes);
				jsonw_key(&w, "labeled"), jsonw_bool(&w, e->labeled);
				if (e->labeled) { /* ns as stored, as for one file */
					jsonw_key(&w, "runtime_min"), jsonw_num(&w, e->ns_min);
					jsonw_key(&w, "runtime_max"), jsonw_num(&w, e->ns_max);
				}
				if (e->labeled && e->kind == HS_KIND_TILE) {
					jsonw_key(&w, "normalized_min"), jsonw_num(&w, e->runtime_min);
					jsonw_key(&w, "normalized_max"), jsonw_num(&w, e->runtime_max);
				}
			}
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_obj_end(&w);
		if (jsonw_finish(&w, &err) < 0) {
			dataset_free(ix);
			return cli_report(&err);
		}
	} else {
		printf("%-6s %-4s %-7s %-5s %8s %8s %7s %6s  %-24s %s\n", "kind", "coll", "search",
		       "split", "nodes", "edges", "configs", "cfgn", "runtime", "file");
		for (size_t i = 0; i < ix->n; i++) {
			const ds_entry *e = &ix->entries[i];
			char range[64];
			if (e->error) {
				printf("%-6s %s: %s\n", "error", e->rel, e->error);
				bad++;
				continue;
			}
			fmt_range(e, range, sizeof range);
			printf("%-6s %-4s %-7s %-5s %8lld %8lld %7lld %6lld  %-24s %s\n",
			       graph_kind_name(e->kind), e->collection[0] ? e->collection : "-",
			       e->search[0] ? e->search : "-", e->split[0] ? e->split : "-",
			       (long long)e->nodes, (long long)e->edges, (long long)e->configs,
			       (long long)e->cfg_nodes, range, e->rel);
		}
		printf("%zu graph%s%s\n", ix->n, hs_s((long long)ix->n), bad ? ", some could not be read" : "");
	}
	dataset_free(ix);
	return bad ? 2 : 0;
}

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("info", "unknown option '%s'", argv[i]);
		else if (!path)
			path = argv[i];
		else
			return cli_usage_error("info", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cli_usage_error("info", "needs a PATH (a .npz file or a folder)");
	if (dataset_is_collection(path))
		return info_folder(path, json);
	hs_error err = {0};
	hs_graph *g = graph_open(path, &err);
	if (!g)
		return cli_report(&err);
	if (g->warning && !json)
		fprintf(stderr, "hloscope: note: %s\n", g->warning);
	int rc = json ? info_file_json(g) : info_file_text(g);
	graph_free(g);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "hloscope info: write error on standard output\n");
		return 2;
	}
	return rc;
}
