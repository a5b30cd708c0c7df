/* hloscope predict FILE... [--model MODEL] [--csv|--json] [--top N]: a
 * score per config and the predicted ranking; --csv writes the Kaggle
 * submission format (ID,TopConfigs: top 5 for tile, every config for
 * layout); --json one object per file with every score. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "base/jsonw.h"
#include "base/plural.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/metrics.h"
#include "model/model.h"
#include "model/predictor.h"
#include "base/units.h"

#define TILE_SUBMIT 5

/* A time in the runtime's unit: ns/us/ms/s for layout, normalized for tile. */
static int print_table(const char *path, const hs_graph *g, const predictor *p, const int64_t *ord, long long top)
{
	int64_t n = g->n_configs, shown = top >= 0 && top < n ? top : n;
	int64_t *mr = NULL;
	double *shownv = malloc((size_t)(2 * shown + 1) * sizeof *shownv);
	int dec = 3, pred_ns = predictor_time_ns(p, g);
	int64_t m = 0;
	char rec[256], a[48], b[48];

	if (!shownv || (g->labeled && (!(mr = malloc((size_t)(n ? n : 1) * sizeof *mr)) ||
				       metrics_ranks(g->runtime, (size_t)n, mr, NULL) < 0))) {
		free(mr);
		free(shownv);
		return -1;
	}
	/* enough decimals to tell the times shown apart (ns-valued ones) */
	for (int64_t i = 0; i < shown; i++) {
		if (p->time && pred_ns)
			shownv[m++] = p->time[ord[i]];
		if (g->labeled && g->kind == HS_KIND_LAYOUT)
			shownv[m++] = g->runtime[ord[i]];
	}
	if ((dec = hs_unit_decimals(HS_U_NS, shownv, (size_t)m, 3, 9)) < 0) {
		free(mr);
		free(shownv);
		return -1;
	}
	predictor_record_text(p, rec, sizeof rec);
	printf("%s: %s, %lld config%s\n", path, graph_kind_name(g->kind), (long long)n, hs_s(n));

	if (p->time_kind == PRED_TIME_NS)
		printf("predictor: %s (times: estimate, its own, uncalibrated: no measured runtimes here to scale them by; "
		       "docs/model.md says how far they are from measured ones on real files)\n", p->label);
	else if (!isnan(p->calib_factor))
		printf("predictor: %s (times: calibrated on the %lld measured config%s: the estimate x %.3g, "
		       "the median ratio of measured to estimated)\n", p->label, (long long)p->calib_configs,
		       hs_s(p->calib_configs), p->calib_factor);
	else
		printf("predictor: %s (%s)\n", p->label,
		       p->time_kind == PRED_TIME_CALIBRATED ? "times: learned, its scores mapped to times on the measured configs"
							    : "unitless scores, lower is faster");
	printf("track record on this file: %s\n", rec);
	if (p->n_tied)
		printf("ties: %lld configs share their rank with another (marked =)\n", (long long)p->n_tied);
	printf("%6s %8s %16s", "rank", "config", p->time_kind == PRED_TIME_SCORE ? "score" : "predicted");
	if (g->labeled)
		printf(" %16s %8s", g->kind == HS_KIND_TILE ? "measured(norm)" : "measured", "measured_rank");
	printf("\n");
	for (int64_t i = 0; i < shown; i++) {
		int64_t c = ord[i];

		if (p->time)
			hs_unit_format(a, sizeof a, pred_ns ? HS_U_NS : HS_U_NONE, p->time[c], pred_ns ? dec : 4);
		else
			snprintf(a, sizeof a, "%.6g", p->score[c]);
		printf("%5lld%s %8lld %16s", (long long)p->rank[c], p->tied[c] ? "=" : " ", (long long)c, a);
		if (g->labeled) {
			hs_unit_format(b, sizeof b, g->kind == HS_KIND_LAYOUT ? HS_U_NS : HS_U_NONE, g->runtime[c],
				       g->kind == HS_KIND_LAYOUT ? dec : 4);
			printf(" %16s %8lld", b, (long long)mr[c]);
		}
		printf("\n");
	}
	if (shown < n)
		printf("... %lld more (--top N shows N)\n", (long long)(n - shown));
	free(mr);
	free(shownv);
	return 0;
}

static void json_array(jsonw *w, const char *key, const double *v, int64_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (int64_t c = 0; c < n; c++)
		jsonw_num(w, v[c]);
	jsonw_arr_end(w);
}

static void print_json(jsonw *w, const char *path, const hs_graph *g, const predictor *p, const int64_t *ord,
		       long long top)
{
	int64_t n = g->n_configs, shown = top >= 0 && top < n ? top : n;

	jsonw_obj_begin(w);
	jsonw_key(w, "file"), jsonw_str(w, path);
	jsonw_key(w, "kind"), jsonw_str(w, graph_kind_name(g->kind));
	jsonw_key(w, "configs"), jsonw_int(w, n);
	jsonw_key(w, "predictor"), jsonw_str(w, p->label);
	/* one predicted time per config, the number every command shows */
	jsonw_key(w, "time_kind");
	if (predictor_time_kind(p))
		jsonw_str(w, predictor_time_kind(p));
	else
		jsonw_null(w);
	if (p->time)
		json_array(w, predictor_time_ns(p, g) ? "predicted_ns" : "predicted_normalized", p->time, n);
	json_array(w, "scores", p->score, n);
	if (p->time_kind == PRED_TIME_CALIBRATED) {
		jsonw_key(w, "calibration");
		jsonw_obj_begin(w);
		jsonw_key(w, "method"), jsonw_str(w, isnan(p->calib_factor) ? "isotonic" : "scale");
		if (!isnan(p->calib_factor))
			jsonw_key(w, "factor"), jsonw_num(w, p->calib_factor);
		jsonw_key(w, "configs"), jsonw_int(w, p->calib_configs);
		jsonw_obj_end(w);
	}
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (int64_t c = 0; c < n; c++)
		jsonw_int(w, p->rank[c]);
	jsonw_arr_end(w);
	jsonw_key(w, "tied_configs"), jsonw_int(w, p->n_tied);
	jsonw_key(w, "ranking");
	jsonw_arr_begin(w);
	for (int64_t i = 0; i < shown; i++)
		jsonw_int(w, ord[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "track_record");
	if (p->record.n < 2) {
		jsonw_null(w);
	} else {
		jsonw_obj_begin(w);
		jsonw_key(w, "configs"), jsonw_int(w, p->record.n);
		jsonw_key(w, "kendall_tau"), jsonw_num(w, p->record.tau);
		jsonw_key(w, "kendall_tau_tiebroken"), jsonw_num(w, p->record.tau_tiebroken);
		jsonw_key(w, "opa"), jsonw_num(w, p->record.opa);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

/* A plain HLO module has nothing to rank: say so, not an empty table. */
static int no_configs(const char *path, const hs_graph *g)
{
	hs_error err;

	hs_error_clear(&err);
	if (g->module)
		hs_fail(&err, HS_EUSAGE, "%s: no configs to rank: a plain HLO module has no compiler "
			"configurations or runtimes (`hloscope info %s` gives its analytic cost)", path, path);
	else
		hs_fail(&err, HS_EUSAGE, "%s: no configs to rank", path);
	return cli_report(&err);
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
	FILE *out = NULL;   /* --csv / --json: the document, kept in memory */
	hs_strbuf doc = {0};
	const cli_opt opts[] = {
		CLI_MODEL_OPT(&model_path),
		CLI_MACHINE_OPT,
		{"--csv", NULL, CLI_FLAG, &csv, .help = "the Kaggle submission format (ID,TopConfigs)"},
		{"--json", NULL, CLI_FLAG, &json, .help = "one object per file with every score"},
		{"--top", "N", CLI_INT64, &top, .help = "list only the N best configs"},
		{0}};
	const cli_spec spec = {"predict",
			       "Scores and ranks every config of each FILE (or of every .npz in a folder;\n"
			       "FILE#N: one module of a file of several): the predictor, its track record\n"
			       "on the file, predicted times with their unit, ties marked =.  On a file\n"
			       "with measured runtimes the times are calibrated on them (the analytic\n"
			       "estimate times the median ratio of measured to estimated; a learned\n"
			       "ranker's scores through a monotone map); elsewhere the analytic\n"
			       "estimate's own, uncalibrated (--json: time_kind).",
			       opts, -1, .operand = mcli_add, .operand_ctx = &files};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0) {
		rc = rc < 0 ? 0 : rc;
		goto done;
	}
	if (files.n == 0) {
		rc = cli_usage_error("predict", "no files to score");
		goto done;
	}
	if (csv && json) {
		rc = cli_usage_error("predict", "--csv and --json exclude each other");
		goto done;
	}
	if ((rc = cli_model_load(model_path, &m)) != 0)
		goto done;
	/* --csv and --json are all or nothing: the whole document is built in
	 * memory and written only when every file was scored, so that a bad
	 * file leaves no partial submission behind. */
	if ((csv || json) && !(out = hs_strbuf_open(&doc))) {
		rc = cli_oom("building the --%s document", csv ? "csv" : "json");
		goto done;
	}
	if (csv)
		fprintf(out, "ID,TopConfigs\n");
	if (json) {
		jsonw_init(&w, out, 0);
		jsonw_arr_begin(&w);
	}
	for (int i = 0; i < files.n; i++) {
		hs_graph *g = graph_open(files.path[i], &err);
		predictor p;
		int64_t *ord = NULL;

		if (!g) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
			continue;
		}
		memset(&p, 0, sizeof p);
		if (g->n_configs == 0) {
			int st = no_configs(files.path[i], g);

			rc = st > rc ? st : rc;
			graph_free(g);
			continue;
		}
		mcli_warn_seen("predict", m, g, files.path[i], "its track record");
		ord = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *ord);
		if (!ord) {
			rc = cli_oom("predicting %s", files.path[i]);
		} else if (predictor_from_model(&p, m, g, &err) < 0) {
			int st = cli_report(&err);

			rc = st > rc ? st : rc;
		} else if (metrics_rank_order(p.score, (size_t)g->n_configs, ord) < 0) {
			rc = cli_oom("ranking the configs of %s", files.path[i]);
		} else if (json) {
			print_json(&w, files.path[i], g, &p, ord, top);
		} else if (csv) {
			char id[512];
			int guessed;
			int64_t k = g->kind == HS_KIND_TILE && g->n_configs > TILE_SUBMIT ? TILE_SUBMIT : g->n_configs;

			mcli_kaggle_id(g->path, g->kind, g->name, id, sizeof id, &guessed);
			if (guessed)
				fprintf(stderr, "hloscope predict: note: %s: the path does not name the collection "
					"(xla/nlp) or search (default/random); ID %s assumes them\n", files.path[i], id);
			csv_write_field(out, id);
			fputc(',', out);
			for (int64_t j = 0; j < k; j++)
				fprintf(out, "%s%lld", j ? ";" : "", (long long)ord[j]);
			fprintf(out, "\n");
		} else {
			if (i > 0)
				printf("\n");
			if (print_table(files.path[i], g, &p, ord, top) < 0)
				rc = cli_oom("printing the ranking of %s", files.path[i]);
		}
		predictor_free(&p);
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
	if (out) {
		/* the document lives in memory: a write that failed ran out of it */
		int lost = ferror(out) | (fclose(out) != 0);
		errno = 0;
		if (lost && rc == 0) {
			rc = cli_oom("building the --%s document", csv ? "csv" : "json");
		} else if (rc == 0 && (fwrite(hs_strbuf_str(&doc), 1, doc.len, csv ? cli_data_stdout() : stdout) != doc.len ||
				       fflush(stdout) != 0)) {
			fprintf(stderr, "hloscope predict: writing standard output: %s\n",
				strerror(errno ? errno : EIO));
			rc = 2;
		} else if (rc != 0) {
			fprintf(stderr, "hloscope predict: nothing written: every file must score for --%s\n",
				csv ? "csv" : "json");
		}
	}
done:
	hs_strbuf_free(&doc);
	model_free(m);
	mcli_files_free(&files);
	return rc;
}
