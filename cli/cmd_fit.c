/* hloscope fit FILE (--train-fraction F | --measured LIST|CSV) [--seed S]
 * [--top K] [--json]: the autotuning case.  Fits on some of one graph's
 * measured configs (a random fraction, or the ones named) and ranks the
 * rest, and lists the configs to try next (--top K, default 10; see
 * model/fit.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/parse.h"
#include "base/plural.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/calibrate.h"
#include "model/cost.h"
#include "model/fit.h"
#include "model/metrics.h"
#include "base/units.h"

typedef struct fit_args {
	const char *file, *measured;
	double frac;
	long long seed, top;
	int json;
} fit_args;

/* 0, -1 after --help, or the exit status after printing what is wrong. */
static int parse_args(int argc, char **argv, fit_args *a)
{
	const cli_opt opts[] = {
		{"--train-fraction", "F", CLI_NUMBER, &a->frac, .help = "fit on a random fraction, between 0 and 1"},
		{"--measured", "LIST|CSV", CLI_STR, &a->measured, .help = "fit on these configs: indices and ranges (0,5,10-19),\n"
		 "or a file of config,runtime_ns lines for a graph\n"
		 "whose other runtimes are unknown"},
		{"--seed", "S", CLI_INT64, &a->seed, .help = "which configs are drawn (default 1)"},
		{"--top", "K", CLI_INT64, &a->top, .help = "list the K best-ranked configs not measured yet\n(default 10; 0: none)"},
		{"--json", NULL, CLI_FLAG, &a->json, .help = "one JSON object, with every held-out config"},
		{0}};
	const cli_spec spec = {"fit",
			       "The autotuning case: fits on some of FILE's measured configs and reports\n"
			       "how well it ranks the rest: the analytic estimate plus a kernel ridge\n"
			       "residual, or the estimate alone when the measurements do not clearly\n"
			       "improve on it (cross-validated).  One of --train-fraction or --measured.",
			       opts, 1, .extra = "one FILE only"};
	cli_args args;
	int rc;

	memset(a, 0, sizeof *a);
	a->frac = NAN;
	a->seed = 1;
	a->top = 10; /* the configs to try next: a screenful */
	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc;
	if (!args.n)
		return cli_usage_error("fit", "a FILE is required");
	a->file = args.v[0];
	if (isnan(a->frac) == !a->measured)
		return cli_usage_error("fit", "one of --train-fraction F or --measured LIST|CSV is required");
	if (!a->measured && !(a->frac > 0 && a->frac < 1))
		return cli_usage_error("fit", "--train-fraction must be between 0 and 1 (exclusive), got %g", a->frac);
	return 0;
}

/* What fit produced, for the printers. */
typedef struct fit_out {
	hs_graph *g;
	fit_result r;
	double *pred, *rt; /* scores; runtimes trained on */
	uint8_t *is_train, *measured;
	int64_t *order;    /* configs by score, best first */
	int64_t *rank;
	uint8_t *tied;
	calib cal;         /* scores -> time, fitted on the training configs */
	int csv;           /* runtimes came from a file: only the measured ones are known */
	int decimals;      /* for times: enough to tell the shown ones apart */
} fit_out;

/* The runtime of c is known (for display and checking). */
static int known(const fit_out *o, int64_t c)
{
	return o->csv ? o->measured[c] : o->g->labeled;
}

/* A config to try next: not measured (--measured), or not trained on. */
static int candidate(const fit_out *o, int64_t c)
{
	return o->measured ? !o->measured[c] : !o->is_train[c];
}

static void fmt_time(const fit_out *o, double v, char *buf, size_t cap)
{
	hs_unit_format(buf, cap, o->g->kind != HS_KIND_TILE ? HS_U_NS : HS_U_NONE, v, o->decimals);
}

/* Enough decimals to tell apart the times print_next shows; -1 when out
 * of memory. */
static int choose_decimals(fit_out *o, long long top)
{
	int64_t n = o->g->n_configs, m = 0;
	double *v = malloc((size_t)(2 * n + 1) * sizeof *v);

	o->decimals = 3;
	if (!v)
		return -1;
	for (int64_t i = 0; i < n && m < 2 * top; i++) {
		int64_t c = o->order[i];

		if (!candidate(o, c))
			continue;
		if (o->cal.ok)
			v[m++] = calib_apply(&o->cal, o->pred[c]);
		if (known(o, c))
			v[m++] = o->rt[c];
	}
	o->decimals = hs_unit_decimals(o->g->kind != HS_KIND_TILE ? HS_U_NS : HS_U_NONE, v, (size_t)m,
				       o->g->kind != HS_KIND_TILE ? 3 : 4, 9);
	free(v);
	return o->decimals < 0 ? -1 : 0;
}

static const char *runtime_key(const hs_graph *g)
{
	return g->kind == HS_KIND_TILE ? "runtime_normalized" : "runtime_ns";
}

static void json_config(jsonw *w, const fit_out *o, int64_t c)
{
	const char *pk = o->g->kind == HS_KIND_TILE ? "predicted_normalized" : "predicted_ns";

	jsonw_obj_begin(w);
	jsonw_key(w, "config"), jsonw_int(w, c);
	jsonw_key(w, "score"), jsonw_num(w, o->pred[c]);
	jsonw_key(w, "rank"), jsonw_int(w, o->rank[c]);
	jsonw_key(w, "tied"), jsonw_bool(w, o->tied[c]);
	if (o->cal.ok)
		jsonw_key(w, pk), jsonw_num(w, calib_apply(&o->cal, o->pred[c]));
	jsonw_key(w, runtime_key(o->g)), jsonw_num(w, known(o, c) ? o->rt[c] : NAN);
	jsonw_obj_end(w);
}

static int print_json(const fit_args *a, const fit_out *o, hs_error *err)
{
	const hs_graph *g = o->g;
	const fit_result *r = &o->r;
	jsonw w;

	jsonw_init(&w, stdout, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "file"), jsonw_str(&w, a->file);
	jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(g->kind));
	jsonw_key(&w, "configs"), jsonw_int(&w, g->n_configs);
	if (a->measured)
		jsonw_key(&w, "measured"), jsonw_str(&w, a->measured);
	else
		jsonw_key(&w, "train_fraction"), jsonw_num(&w, a->frac);
	jsonw_key(&w, "seed"), jsonw_int(&w, a->seed);
	jsonw_key(&w, "train_configs"), jsonw_int(&w, r->n_train);
	jsonw_key(&w, "train_cap"), jsonw_int(&w, r->cap);
	jsonw_key(&w, "train_capped"), jsonw_bool(&w, r->capped);
	jsonw_key(&w, "heldout_configs"), jsonw_int(&w, r->n_heldout);
	jsonw_key(&w, "heldout_measured"), jsonw_int(&w, r->n_checked);
	jsonw_key(&w, "features"), jsonw_int(&w, r->n_features);
	jsonw_key(&w, "model"), jsonw_str(&w, fit_model_name(r));
	jsonw_key(&w, "prior"), r->prior_available ? jsonw_str(&w, "analytic estimate") : jsonw_null(&w);
	jsonw_key(&w, "prior_weight"), jsonw_num(&w, r->prior_weight);
	jsonw_key(&w, "target"), jsonw_str(&w, r->target);
	jsonw_key(&w, "lambda"), jsonw_num(&w, r->lambda);
	if (g->kind != HS_KIND_TILE) {
		jsonw_key(&w, "kernel");
		jsonw_obj_begin(&w);
		jsonw_key(&w, "node_choices"), jsonw_num(&w, r->kernel[0]);
		jsonw_key(&w, "values"), jsonw_num(&w, r->kernel[1]);
		jsonw_key(&w, "counts"), jsonw_num(&w, r->kernel[2]);
		jsonw_obj_end(&w);
	}
	jsonw_key(&w, "cv_kendall_tau"), jsonw_num(&w, r->cv_tau);
	jsonw_key(&w, "heldout_kendall_tau"), jsonw_num(&w, r->heldout_tau);
	jsonw_key(&w, "heldout_kendall_tau_tiebroken"), jsonw_num(&w, r->heldout_tau_tiebroken);
	jsonw_key(&w, "heldout_opa"), jsonw_num(&w, r->heldout_opa);
	jsonw_key(&w, "calibrated"), jsonw_bool(&w, o->cal.ok);
	jsonw_key(&w, "heldout");
	jsonw_arr_begin(&w);
	for (int64_t c = 0; c < g->n_configs; c++)
		if (!o->is_train[c])
			json_config(&w, o, c);
	jsonw_arr_end(&w);
	if (a->top > 0) {
		long long shown = 0;

		jsonw_key(&w, "next");
		jsonw_arr_begin(&w);
		for (int64_t i = 0; i < g->n_configs && shown < a->top; i++)
			if (candidate(o, o->order[i])) {
				json_config(&w, o, o->order[i]);
				shown++;
			}
		jsonw_arr_end(&w);
	}
	jsonw_obj_end(&w);
	return jsonw_finish(&w, err);
}

static void print_metric(const char *name, double v, const char *why)
{
	if (isnan(v))
		printf("held-out %s: n/a (%s)\n", name, why);
	else
		printf("held-out %s: %.4f\n", name, v);
}

/* The K best-scored configs not trained on (with --measured: not measured). */
static void print_next(const fit_args *a, const fit_out *o)
{
	long long shown = 0, n = 0;
	char t[48], m[48];

	for (int64_t c = 0; c < o->g->n_configs && n < a->top; c++)
		n += candidate(o, c) != 0;
	printf("\nnext to try: the %lld best-ranked config%s that %s %s%s\n", n, hs_s(n), hs_plural(n, "was", "were"),
	       o->measured ? "not measured" : "not trained on",
	       o->cal.ok ? " (predicted time calibrated on the configs trained on)" : " (scores: lower is faster)");
	printf("%6s %8s %16s %16s\n", "rank", "config", o->cal.ok ? "predicted" : "score", "measured");
	for (int64_t i = 0; i < o->g->n_configs && shown < a->top; i++) {
		int64_t c = o->order[i];

		if (!candidate(o, c))
			continue;
		if (o->cal.ok)
			fmt_time(o, calib_apply(&o->cal, o->pred[c]), t, sizeof t);
		else
			snprintf(t, sizeof t, "%.6g", o->pred[c]);
		fmt_time(o, known(o, c) ? o->rt[c] : NAN, m, sizeof m);
		printf("%5lld%s %8lld %16s %16s\n", (long long)o->rank[c], o->tied[c] ? "=" : " ", (long long)c, t,
		       m);
		shown++;
	}
}

static void print_text(const fit_args *a, const fit_out *o)
{
	const hs_graph *g = o->g;
	const fit_result *r = &o->r;
	const char *why = o->r.n_checked < 2 ? "no measured runtimes to check against"
					     : "the held-out runtimes or scores are all equal";

	printf("%s: %s, %lld config%s\n", a->file, graph_kind_name(g->kind), (long long)g->n_configs,
	       hs_s(g->n_configs));
	printf("fit on %lld %sconfig%s (seed %lld), ranked the other %lld\n", (long long)r->n_train,
	       a->measured ? "measured " : "", hs_s(r->n_train), a->seed, (long long)r->n_heldout);
	if (r->capped)
		printf("note: %lld configs asked for; this graph trains on at most %lld (the training-set cap)\n",
		       (long long)r->n_wanted, (long long)r->cap);
	printf("model: %s", fit_model_name(r));
	if (r->prior_used)
		printf(" (weight %.3g)", r->prior_weight);
	if (r->residual && g->kind != HS_KIND_TILE)
		printf(", kernel ridge on %lld layout features (kernel weights: node choices %.3g, "
		       "values %.3g, counts %.3g), lambda %g", (long long)r->n_features, r->kernel[0],
		       r->kernel[1], r->kernel[2], r->lambda);
	else if (r->residual)
		printf(", kernel ridge on %lld tile config features, lambda %g", (long long)r->n_features, r->lambda);
	printf(", %s target", r->target);
	if (!isnan(r->cv_tau))
		printf(" (cross-validated tau %.4f, ties broken at random)", r->cv_tau);
	printf("\n");
	if (!r->prior_available)
		printf("note: no analytic estimate to build on (%s)\n",
		       cost_available(g) ? "it gives every config the same score" : cost_unavailable_reason(g));
	if (r->n_checked >= 2 && r->n_checked < r->n_heldout)
		printf("checked on the %lld held-out config%s with a measured runtime\n", (long long)r->n_checked,
		       hs_s(r->n_checked));

	print_metric("Kendall tau", r->heldout_tau, why);
	print_metric("Kendall tau, ties broken at random", r->heldout_tau_tiebroken, why);
	print_metric("ordered-pair accuracy", r->heldout_opa, why);
	if (a->top > 0)
		print_next(a, o);
}

static void fit_out_free(fit_out *o)
{
	free(o->pred);
	free(o->is_train);
	free(o->measured);
	free(o->order);
	free(o->rank);
	free(o->tied);
	calib_free(&o->cal);
	graph_free(o->g);
}

int cmd_fit(int argc, char **argv)
{
	fit_args a;
	fit_out o;
	fit_opts fo;
	hs_error err = {0};
	double *csv_rt = NULL;
	int rc;
	size_t n;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc < 0 ? 0 : rc;
	memset(&o, 0, sizeof o);
	if (!(o.g = graph_open(a.file, &err)))
		return cli_report(&err);
	n = (size_t)(o.g->n_configs ? o.g->n_configs : 1);
	o.pred = malloc(n * sizeof *o.pred);
	o.is_train = malloc(n);
	o.order = malloc(n * sizeof *o.order);
	o.rank = malloc(n * sizeof *o.rank);
	o.tied = malloc(n);
	if (a.measured)
		o.measured = malloc(n);
	if (!o.pred || !o.is_train || !o.order || !o.rank || !o.tied || (a.measured && !o.measured)) {
		hs_fail(&err, HS_ENOMEM, "%s: out of memory fitting it", a.file);
		goto fail;
	}
	if (a.measured && mcli_measured(a.measured, o.g->n_configs, o.measured, &csv_rt, &err) < 0)
		goto fail;
	fo = (fit_opts){.fraction = a.frac, .seed = (uint64_t)a.seed, .measured = o.measured, .runtime = csv_rt};
	o.rt = csv_rt ? csv_rt : o.g->runtime;
	if (fit_run(o.g, &fo, &o.r, o.pred, o.is_train, &err) < 0)
		goto fail;
	if (metrics_rank_order(o.pred, n, o.order) < 0 || metrics_ranks(o.pred, n, o.rank, o.tied) < 0) {
		hs_fail(&err, HS_ENOMEM, "%s: out of memory ranking the configs", a.file);
		goto fail;
	}
	if (calib_fit(o.pred, o.rt, o.is_train, o.g->n_configs, &o.cal, &err) < 0)
		goto fail;
	o.csv = csv_rt != NULL;
	if (choose_decimals(&o, a.top > 0 ? a.top : 0) < 0) {
		hs_fail(&err, HS_ENOMEM, "%s: out of memory choosing the decimals", a.file);
		goto fail;
	}
	if (a.json) {
		if (print_json(&a, &o, &err) < 0)
			goto fail;
	} else {
		print_text(&a, &o);
	}
	free(csv_rt);
	fit_out_free(&o);
	return 0;
fail:
	rc = cli_report(&err);
	free(csv_rt);
	fit_out_free(&o);
	return rc;
}
