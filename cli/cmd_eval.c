/* hloscope eval PATH... [--model MODEL] [--analytic-terms LIST] [--json]:
 * the paper's metrics of a model (or of the analytic estimate, with some of
 * its terms) on every labeled file, and tau with ties broken at random. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/plural.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/cost.h"
#include "model/metrics.h"
#include "model/model.h"

typedef struct row {
	char *file;
	int kind;
	int64_t configs;
	double tau, tau_tb, opa, top[3];
} row;

static const int topk[3] = {1, 5, 10};

static void print_num(double v, int width)
{
	if (isnan(v))
		printf(" %*s", width, "n/a");
	else
		printf(" %*.4f", width, v);
}

/* What the command line asks for. */
typedef struct eval_args {
	mcli_files files;
	const char *model_path;  /* NULL: the analytic estimate */
	unsigned terms;          /* the analytic estimate's COST_T_* terms */
	int json;
} eval_args;

/* One row per evaluated file, and the sums behind the means. */
typedef struct eval_result {
	row *rows;               /* [files.n], nrows used */
	int nrows;
	double tau_sum, tau_tb_sum, top5_sum;
	int tau_n, top5_n;       /* graphs with a defined tau / top-5 error */
	int layout_n, tile_n;    /* graphs of each kind */
} eval_result;

static const struct {
	const char *name;
	unsigned bit;
} term_names[] = {
	{"mxu", COST_T_MXU}, {"padding", COST_T_PADDING}, {"copy", COST_T_COPY},
	{"overhead", COST_T_OVERHEAD}, {"relayout", COST_T_RELAYOUT}, {"mxu-operands", COST_T_MXU_OPERANDS},
};

/* "all", "none" or names joined by commas (one comma between names). */
static int parse_terms(const char *s, unsigned *out)
{
	char buf[256], *tok, *save = NULL;
	size_t n = strlen(s);

	if (!strcmp(s, "all")) {
		*out = COST_T_ALL;
		return 0;
	}
	*out = 0;
	if (!strcmp(s, "none"))
		return 0;
	if (!n || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
		return cli_usage_error("eval", "--analytic-terms needs names joined by single commas "
				       "(e.g. mxu,copy), not '%s': an empty item", s);
	if (n >= sizeof buf)
		return cli_usage_error("eval", "--analytic-terms: '%.40s...' is too long", s);
	snprintf(buf, sizeof buf, "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strcmp(tok, "all")) {
			*out |= COST_T_ALL;
			continue;
		}
		for (i = 0; i < sizeof term_names / sizeof term_names[0]; i++)
			if (!strcmp(tok, term_names[i].name))
				break;
		if (i == sizeof term_names / sizeof term_names[0])
			return cli_usage_error("eval", "unknown analytic term '%s' (terms: mxu, padding, copy, overhead, "
					       "relayout, mxu-operands; or all, none)", tok);
		*out |= term_names[i].bit;
	}
	return 0;
}

/* Parses the command line into a.  0, -1 after --help, or the exit
 * status after printing what is wrong. */
static int parse_args(int argc, char **argv, eval_args *a)
{
	const char *terms = NULL;
	const cli_opt opts[] = {
		CLI_MODEL_OPT(&a->model_path),
		{"--analytic-terms", "LIST", CLI_STR, &terms, .help = "the analytic estimate with only these terms:\n"
		 "mxu, padding, copy, overhead, relayout,\n"
		 "mxu-operands (comma separated), all (the default)\n"
		 "or none"},
		{"--json", NULL, CLI_FLAG, &a->json, .help = "one JSON object"},
		{0}};
	const cli_spec spec = {"eval",
			       "Kendall's tau (also with ties broken at random) and ordered-pair accuracy\n"
			       "(layout files), top-1/5/10 slowdown errors (tile files) on every labeled\n"
			       ".npz in PATH... (files, folders, FILE#N)",
			       opts, -1, .operand = mcli_add, .operand_ctx = &a->files};
	cli_args args;
	int rc;

	memset(a, 0, sizeof *a);
	a->terms = COST_T_ALL;
	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc;
	if (a->files.n == 0)
		return cli_usage_error("eval", "no files to evaluate");
	if (terms && a->model_path)
		return cli_usage_error("eval", "--analytic-terms is for the analytic estimate, not --model");
	return terms ? parse_terms(terms, &a->terms) : 0;
}

/* The metrics of one graph's predictions into a new row of res; -1 when
 * out of memory (no row). */
static int add_row(eval_result *res, const char *path, const hs_graph *g, const double *pred)
{
	row *r = &res->rows[res->nrows];
	metrics_record rec;

	r->file = strdup(path);
	r->kind = g->kind;
	r->configs = g->n_configs;
	r->tau = r->tau_tb = r->opa = NAN;
	for (int k = 0; k < 3; k++)
		r->top[k] = NAN;
	int bad = !r->file;
	if (!bad && g->kind == HS_KIND_LAYOUT)
		bad = metrics_track_record(pred, g->runtime, NULL, (size_t)g->n_configs, &rec) < 0;
	for (int k = 0; !bad && g->kind != HS_KIND_LAYOUT && k < 3; k++)
		bad = metrics_topk(pred, g->runtime, (size_t)g->n_configs, (size_t)topk[k], &r->top[k]) < 0;
	if (bad) {
		free(r->file);
		return -1;
	}
	res->nrows++;
	if (g->kind == HS_KIND_LAYOUT) {
		r->tau = rec.tau;
		r->tau_tb = rec.tau_tiebroken;
		r->opa = rec.opa;
		res->layout_n++;
		if (!isnan(r->tau)) {
			res->tau_sum += r->tau;
			res->tau_tb_sum += r->tau_tb;
			res->tau_n++;
		}
	} else {
		res->tile_n++;
		if (!isnan(r->top[1])) {
			res->top5_sum += r->top[1];
			res->top5_n++;
		}
	}
	return 0;
}

/* Evaluates one file: a row, or a note when it is skipped.  Returns 0, or
 * the exit status of an error it printed. */
static int eval_file(const char *path, const hs_model *m, unsigned terms, eval_result *res)
{
	hs_error err = {0};
	hs_graph *g = graph_open(path, &err);
	double *pred;

	if (!g)
		return cli_report(&err);
	if (!g->labeled) {
		fprintf(stderr, "hloscope eval: note: %s: unlabeled (test split), skipped\n", path);
		graph_free(g);
		return 0;
	}
	if (!model_has_head(m, g->kind)) {
		fprintf(stderr, "hloscope eval: note: %s: the model has no %s head, skipped\n", path,
			graph_kind_name(g->kind));
		graph_free(g);
		return 0;
	}
	mcli_warn_seen("eval", m, g, path, "its tau");
	pred = malloc((size_t)(g->n_configs ? g->n_configs : 1) * sizeof *pred);
	if (!pred || (m || terms == COST_T_ALL ? model_predict_configs(m, g, pred, &err)
					       : cost_predict_configs_terms(g, terms, pred, &err)) < 0) {
		int st = pred ? cli_report(&err) : cli_oom("predicting %s", path);

		free(pred);
		graph_free(g);
		return st;
	}
	int rc = add_row(res, path, g, pred) < 0 ? cli_oom("measuring the predictions of %s", path) : 0;
	free(pred);
	graph_free(g);
	return rc;
}

/* 0, or the exit status of a write error it printed. */
static int print_json(const eval_result *res)
{
	hs_error err;
	jsonw w;

	jsonw_init(&w, stdout, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "graphs");
	jsonw_arr_begin(&w);
	for (int i = 0; i < res->nrows; i++) {
		const row *r = &res->rows[i];

		jsonw_obj_begin(&w);
		jsonw_key(&w, "file"), jsonw_str(&w, r->file ? r->file : "");
		jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(r->kind));
		jsonw_key(&w, "configs"), jsonw_int(&w, r->configs);
		if (r->kind == HS_KIND_LAYOUT) {
			jsonw_key(&w, "kendall_tau"), jsonw_num(&w, r->tau);
			jsonw_key(&w, "kendall_tau_tiebroken"), jsonw_num(&w, r->tau_tb);
			jsonw_key(&w, "opa"), jsonw_num(&w, r->opa);
		} else {
			jsonw_key(&w, "top1_error"), jsonw_num(&w, r->top[0]);
			jsonw_key(&w, "top5_error"), jsonw_num(&w, r->top[1]);
			jsonw_key(&w, "top10_error"), jsonw_num(&w, r->top[2]);
		}
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	if (res->layout_n) {
		jsonw_key(&w, "mean_kendall_tau");
		jsonw_num(&w, res->tau_n ? res->tau_sum / res->tau_n : NAN);
		jsonw_key(&w, "mean_kendall_tau_tiebroken");
		jsonw_num(&w, res->tau_n ? res->tau_tb_sum / res->tau_n : NAN);
	}
	if (res->tile_n) {
		jsonw_key(&w, "mean_top5_error");
		jsonw_num(&w, res->top5_n ? res->top5_sum / res->top5_n : NAN);
	}
	jsonw_obj_end(&w);
	hs_error_clear(&err);
	return jsonw_finish(&w, &err) < 0 ? cli_report(&err) : 0;
}

static void print_text(const eval_result *res, const hs_model *m, unsigned terms)
{
	int wf = 4;

	for (int i = 0; i < res->nrows; i++)
		if (res->rows[i].file && (int)strlen(res->rows[i].file) > wf)
			wf = (int)strlen(res->rows[i].file);
	printf("predictions: %s", model_describe(m));
	if (!m && terms != COST_T_ALL) {
		printf(" with terms:");
		for (size_t i = 0; i < sizeof term_names / sizeof term_names[0]; i++)
			if (terms & term_names[i].bit)
				printf(" %s", term_names[i].name);
		if (!(terms & COST_T_ALL))
			printf(" none (the plain roofline)");
	}
	printf("\n");
	printf("%-*s  %-6s %8s %11s %11s %7s %10s %10s %10s\n", wf, "file", "kind", "configs",
	       "kendall_tau", "tiebroken", "opa", "top1_err", "top5_err", "top10_err");
	for (int i = 0; i < res->nrows; i++) {
		const row *r = &res->rows[i];

		printf("%-*s  %-6s %8lld", wf, r->file ? r->file : "", graph_kind_name(r->kind),
		       (long long)r->configs);
		if (r->kind == HS_KIND_LAYOUT) {
			print_num(r->tau, 11);
			print_num(r->tau_tb, 11);
			print_num(r->opa, 7);
			printf(" %10s %10s %10s\n", "-", "-", "-");
		} else {
			printf(" %11s %11s %7s", "-", "-", "-");
			for (int k = 0; k < 3; k++)
				print_num(r->top[k], 10);
			printf("\n");
		}
	}
	if (res->layout_n) {
		printf("mean kendall_tau");
		print_num(res->tau_n ? res->tau_sum / res->tau_n : NAN, 0);
		printf(" (ties broken at random");
		print_num(res->tau_n ? res->tau_tb_sum / res->tau_n : NAN, 0);
		printf(") over %d layout graph%s", res->tau_n, hs_s(res->tau_n));
		if (res->tau_n < res->layout_n)
			printf(" (%d with tau undefined: constant scores or runtimes)",
			       res->layout_n - res->tau_n);
		printf("\n");
	}
	if (res->tile_n) {
		printf("mean top5_error");
		print_num(res->top5_n ? res->top5_sum / res->top5_n : NAN, 0);
		printf(" over %d tile graph%s\n", res->top5_n, hs_s(res->top5_n));
	}
}

int cmd_eval(int argc, char **argv)
{
	eval_args a;
	eval_result res = {0};
	hs_model *m = NULL;
	int rc = parse_args(argc, argv, &a);

	if (rc || (rc = cli_model_load(a.model_path, &m)) != 0) {
		rc = rc < 0 ? 0 : rc;
		goto done;
	}
	res.rows = calloc((size_t)a.files.n, sizeof *res.rows);
	if (!res.rows) {
		rc = cli_oom("evaluating %d files", a.files.n);
		goto done;
	}
	for (int i = 0; i < a.files.n; i++) {
		int st = eval_file(a.files.path[i], m, a.terms, &res);

		rc = st > rc ? st : rc;
	}
	if (a.json) {
		int st = print_json(&res);

		rc = st > rc ? st : rc;
	} else {
		print_text(&res, m, a.terms);
	}
	if (res.nrows == 0 && rc == 0) {
		fprintf(stderr, "hloscope eval: nothing to evaluate (no labeled file the model can score)\n");
		rc = 1;
	}
done:
	for (int i = 0; i < res.nrows; i++)
		free(res.rows[i].file);
	free(res.rows);
	model_free(m);
	mcli_files_free(&a.files);
	return rc;
}
