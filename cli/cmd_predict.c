/* hloscope predict FILE... [--model MODEL] [--csv|--json] [--top N]: a
 * score per config and the predicted ranking; --csv writes the Kaggle
 * submission format (ID,TopConfigs: top 5 for tile, every config for
 * layout); --json one object per file with every score. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "cli/commands.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/metrics.h"
#include "model/model.h"

#define TILE_SUBMIT 5

/* measured_rank[c]: 1 + the number of configs strictly faster than c. */
static int measured_ranks(const hs_graph *g, int64_t *rank)
{
	int64_t n = g->n_configs, *ord = malloc((size_t)(n ? n : 1) * sizeof *ord);

	if (!ord || metrics_rank_order(g->runtime, (size_t)n, ord) < 0) {
		free(ord);
		return -1;
	}
	for (int64_t i = 0; i < n; i++)
		rank[ord[i]] = i > 0 && g->runtime[ord[i]] == g->runtime[ord[i - 1]] ? rank[ord[i - 1]] : i + 1;
	free(ord);
	return 0;
}

static int print_table(const char *path, const hs_graph *g, const hs_model *m, const double *pred,
		       const int64_t *ord, long long top)
{
	int64_t n = g->n_configs, shown = top >= 0 && top < n ? top : n;
	int64_t *mr = NULL;

	if (g->labeled) {
		mr = malloc((size_t)(n ? n : 1) * sizeof *mr);
		if (!mr || measured_ranks(g, mr) < 0) {
			free(mr);
			return -1;
		}
	}
	printf("%s: %s, %lld configs, scores from %s%s\n", path, graph_kind_name(g->kind), (long long)n,
	       model_describe(m), m ? "" : " (ns)");
	if (g->labeled)
		printf("%6s %8s %14s %14s %8s\n", "rank", "config", "score",
		       g->kind == HS_KIND_TILE ? "runtime_norm" : "runtime_ns", "measured");
	else
		printf("%6s %8s %14s\n", "rank", "config", "score");
	for (int64_t i = 0; i < shown; i++) {
		int64_t c = ord[i];

		printf("%6lld %8lld %14.6g", (long long)(i + 1), (long long)c, pred[c]);
		if (g->labeled)
			printf(" %14.6g %8lld", g->runtime[c], (long long)mr[c]);
		printf("\n");
	}
	if (shown < n)
		printf("... %lld more (--top N shows N)\n", (long long)(n - shown));
	free(mr);
	return 0;
}

static void print_json(jsonw *w, const char *path, const hs_graph *g, const hs_model *m, const double *pred,
		       const int64_t *ord, long long top)
{
	int64_t n = g->n_configs, shown = top >= 0 && top < n ? top : n;

	jsonw_obj_begin(w);
	jsonw_key(w, "file"), jsonw_str(w, path);
	jsonw_key(w, "kind"), jsonw_str(w, graph_kind_name(g->kind));
	jsonw_key(w, "configs"), jsonw_int(w, n);
	jsonw_key(w, "predictor"), jsonw_str(w, model_describe(m));
	jsonw_key(w, "scores");
	jsonw_arr_begin(w);
	for (int64_t c = 0; c < n; c++)
		jsonw_num(w, pred[c]);
	jsonw_arr_end(w);
	jsonw_key(w, "ranking");
	jsonw_arr_begin(w);
	for (int64_t i = 0; i < shown; i++)
		jsonw_int(w, ord[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

int cmd_predict(int argc, char **argv)
{
	mcli_files files = {0};
	const char *model_path = NULL;
	hs_model *m = NULL;
	hs_error err = {0};
	int csv = 0, json = 0, rc = 0;
	long long top = -1;
	jsonw w;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--model") || !strcmp(argv[i], "-m")) {
			if (i + 1 >= argc) {
				rc = cli_usage_error("predict", "--model needs a file");
				goto done;
			}
			model_path = argv[++i];
		} else if (!strcmp(argv[i], "--csv")) {
			csv = 1;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--top")) {
			top = i + 1 < argc ? cli_parse_count(argv[i + 1]) : -1;
			if (top < 0) {
				rc = cli_usage_error("predict", "--top wants a non-negative integer");
				goto done;
			}
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			rc = cli_usage_error("predict", "unknown option '%s'", argv[i]);
			goto done;
		} else if (mcli_collect(&files, argv[i], &err) < 0) {
			rc = cli_report(&err);
			goto done;
		}
	}
	if (files.n == 0) {
		rc = cli_usage_error("predict", "no files to score");
		goto done;
	}
	if (model_path && !(m = model_load(model_path, &err))) {
		rc = cli_report(&err);
		goto done;
	}
	if (csv && json) {
		rc = cli_usage_error("predict", "--csv and --json exclude each other");
		goto done;
	}
	if (csv)
		printf("ID,TopConfigs\n");
	if (json) {
		jsonw_init(&w, stdout, 0);
		jsonw_arr_begin(&w);
	}
	for (int i = 0; i < files.n; i++) {
		hs_graph *g = graph_open(files.path[i], &err);
		double *pred = NULL;
		int64_t *ord = NULL;

		if (!g) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
			continue;
		}
		pred = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *pred);
		ord = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *ord);
		if (!pred || !ord) {
			rc = cli_oom("predicting %s", files.path[i]);
		} else if (model_predict_configs(m, g, pred, &err) < 0) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
		} else if (metrics_rank_order(pred, (size_t)g->n_configs, ord) < 0) {
			rc = cli_oom("ranking the configs of %s", files.path[i]);
		} else if (json) {
			print_json(&w, files.path[i], g, m, pred, ord, top);
		} else if (csv) {
			char id[512];
			int guessed;
			int64_t k = g->kind == HS_KIND_TILE && g->n_configs > TILE_SUBMIT ? TILE_SUBMIT : g->n_configs;

			mcli_kaggle_id(g->path, g->kind, g->name, id, sizeof id, &guessed);
			if (guessed)
				fprintf(stderr, "hloscope predict: note: %s: the path does not name the collection "
					"(xla/nlp) or search (default/random); ID %s assumes them\n", files.path[i], id);
			printf("%s,", id);
			for (int64_t j = 0; j < k; j++)
				printf("%s%lld", j ? ";" : "", (long long)ord[j]);
			printf("\n");
		} else {
			if (i > 0)
				printf("\n");
			if (print_table(files.path[i], g, m, pred, ord, top) < 0)
				rc = cli_oom("printing the ranking of %s", files.path[i]);
		}
		free(pred);
		free(ord);
		graph_free(g);
	}
	if (json) {
		jsonw_arr_end(&w);
		if (jsonw_finish(&w, &err) < 0) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
		}
	}
done:
	model_free(m);
	mcli_files_free(&files);
	return rc;
}
