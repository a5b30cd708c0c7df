/* hloscope eval PATH... [--model MODEL] [--json]: the paper's metrics of a
 * model (or of the analytic estimate) on every labeled file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "loader/jsonw.h"
#include "model/metrics.h"
#include "model/model.h"

typedef struct row {
	char *file;
	int kind;
	int64_t configs;
	double tau, opa, top[3];
} row;

static const int topk[3] = {1, 5, 10};

static void print_num(double v, int width)
{
	if (isnan(v))
		printf(" %*s", width, "n/a");
	else
		printf(" %*.4f", width, v);
}

int cmd_eval(int argc, char **argv)
{
	mcli_files files = {0};
	const char *model_path = NULL;
	hs_model *m = NULL;
	hs_error err = {0};
	row *rows = NULL;
	int nrows = 0, json = 0, rc = 0;
	double tau_sum = 0, top5_sum = 0;
	int tau_n = 0, top5_n = 0, layout_n = 0, tile_n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--model") || !strcmp(argv[i], "-m")) {
			if (i + 1 >= argc)
				return cli_usage_error("eval", "--model needs a file");
			model_path = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			mcli_files_free(&files);
			return cli_usage_error("eval", "unknown option '%s'", argv[i]);
		} else if (mcli_collect(&files, argv[i], &err) < 0) {
			mcli_files_free(&files);
			return cli_report(&err);
		}
	}
	if (files.n == 0)
		return cli_usage_error("eval", "no files to evaluate");
	if (model_path && !(m = model_load(model_path, &err))) {
		mcli_files_free(&files);
		return cli_report(&err);
	}
	rows = calloc((size_t)files.n, sizeof *rows);
	if (!rows) {
		fprintf(stderr, "hloscope: out of memory\n");
		rc = 2;
		goto done;
	}
	for (int i = 0; i < files.n; i++) {
		hs_graph *g = graph_open(files.path[i], &err);
		double *pred;
		row *r;

		if (!g) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
			continue;
		}
		if (!g->labeled) {
			fprintf(stderr, "hloscope eval: note: %s: unlabeled (test split), skipped\n", files.path[i]);
			graph_free(g);
			continue;
		}
		if (!model_has_head(m, g->kind)) {
			fprintf(stderr, "hloscope eval: note: %s: the model has no %s head, skipped\n",
				files.path[i], graph_kind_name(g->kind));
			graph_free(g);
			continue;
		}
		pred = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *pred);
		if (!pred || model_predict_configs(m, g, pred, &err) < 0) {
			int st = pred ? cli_report(&err) : 2;

			if (!pred)
				fprintf(stderr, "hloscope: out of memory\n");
			rc = st > rc ? st : rc;
			free(pred);
			graph_free(g);
			continue;
		}
		r = &rows[nrows++];
		r->file = strdup(files.path[i]);
		r->kind = g->kind;
		r->configs = g->n_configs;
		r->tau = r->opa = NAN;
		for (int k = 0; k < 3; k++)
			r->top[k] = NAN;
		if (g->kind == HS_KIND_LAYOUT) {
			r->tau = metrics_kendall_tau(pred, g->runtime, (size_t)g->n_configs);
			r->opa = metrics_opa(pred, g->runtime, (size_t)g->n_configs);
			layout_n++;
			if (!isnan(r->tau)) {
				tau_sum += r->tau;
				tau_n++;
			}
		} else {
			for (int k = 0; k < 3; k++)
				r->top[k] = metrics_topk_error(pred, g->runtime, (size_t)g->n_configs, (size_t)topk[k]);
			tile_n++;
			if (!isnan(r->top[1])) {
				top5_sum += r->top[1];
				top5_n++;
			}
		}
		free(pred);
		graph_free(g);
	}
	if (json) {
		jsonw w;

		jsonw_init(&w, stdout, 1);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "graphs");
		jsonw_arr_begin(&w);
		for (int i = 0; i < nrows; i++) {
			const row *r = &rows[i];

			jsonw_obj_begin(&w);
			jsonw_key(&w, "file"), jsonw_str(&w, r->file ? r->file : "");
			jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(r->kind));
			jsonw_key(&w, "configs"), jsonw_int(&w, r->configs);
			if (r->kind == HS_KIND_LAYOUT) {
				jsonw_key(&w, "kendall_tau"), jsonw_num(&w, r->tau);
				jsonw_key(&w, "opa"), jsonw_num(&w, r->opa);
			} else {
				jsonw_key(&w, "top1_error"), jsonw_num(&w, r->top[0]);
				jsonw_key(&w, "top5_error"), jsonw_num(&w, r->top[1]);
				jsonw_key(&w, "top10_error"), jsonw_num(&w, r->top[2]);
			}
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		if (layout_n)
			jsonw_key(&w, "mean_kendall_tau"), jsonw_num(&w, tau_n ? tau_sum / tau_n : NAN);
		if (tile_n)
			jsonw_key(&w, "mean_top5_error"), jsonw_num(&w, top5_n ? top5_sum / top5_n : NAN);
		jsonw_obj_end(&w);
		jsonw_finish(&w);
	} else {
		int wf = 4;

		for (int i = 0; i < nrows; i++)
			if (rows[i].file && (int)strlen(rows[i].file) > wf)
				wf = (int)strlen(rows[i].file);
		printf("predictions: %s\n", model_describe(m));
		printf("%-*s  %-6s %8s %11s %7s %10s %10s %10s\n", wf, "file", "kind", "configs",
		       "kendall_tau", "opa", "top1_err", "top5_err", "top10_err");
		for (int i = 0; i < nrows; i++) {
			const row *r = &rows[i];

			printf("%-*s  %-6s %8lld", wf, r->file ? r->file : "", graph_kind_name(r->kind),
			       (long long)r->configs);
			if (r->kind == HS_KIND_LAYOUT) {
				print_num(r->tau, 11);
				print_num(r->opa, 7);
				printf(" %10s %10s %10s\n", "-", "-", "-");
			} else {
				printf(" %11s %7s", "-", "-");
				for (int k = 0; k < 3; k++)
					print_num(r->top[k], 10);
				printf("\n");
			}
		}
		if (layout_n) {
			printf("mean kendall_tau");
			print_num(tau_n ? tau_sum / tau_n : NAN, 0);
			printf(" over %d layout graph%s", tau_n, tau_n == 1 ? "" : "s");
			if (tau_n < layout_n)
				printf(" (%d with tau undefined: constant scores or runtimes)", layout_n - tau_n);
			printf("\n");
		}
		if (tile_n) {
			printf("mean top5_error");
			print_num(top5_n ? top5_sum / top5_n : NAN, 0);
			printf(" over %d tile graph%s\n", top5_n, top5_n == 1 ? "" : "s");
		}
	}
	if (nrows == 0 && rc == 0) {
		fprintf(stderr, "hloscope eval: nothing to evaluate (no labeled file the model can score)\n");
		rc = 1;
	}
done:
	for (int i = 0; i < nrows; i++)
		free(rows[i].file);
	free(rows);
	model_free(m);
	mcli_files_free(&files);
	return rc;
}
