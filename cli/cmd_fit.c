/* hloscope fit FILE --train-fraction F [--seed S] [--json]: the autotuning
 * case.  Fits on a random fraction of one graph's measured configs and
 * reports how well it ranks the rest (see model/fit.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/parse.h"
#include "cli/commands.h"
#include "cli/modelcli.h"
#include "loader/graph.h"
#include "model/fit.h"

int cmd_fit(int argc, char **argv)
{
	const char *file = NULL;
	double frac = NAN;
	long long seed = 1;
	int json = 0, rc = 0;
	hs_error err = {0};
	hs_graph *g;
	fit_result r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--train-fraction")) {
			if (i + 1 >= argc || hs_parse_double(argv[i + 1], &frac) < 0)
				return cli_usage_error("fit", "--train-fraction wants a number between 0 and 1");
			i++;
		} else if (!strcmp(argv[i], "--seed")) {
			seed = i + 1 < argc ? cli_parse_count(argv[i + 1]) : -1;
			if (seed < 0)
				return cli_usage_error("fit", "--seed wants a non-negative integer");
			i++;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("fit", "unknown option '%s'", argv[i]);
		} else if (!file) {
			file = argv[i];
		} else {
			return cli_usage_error("fit", "one FILE only (got '%s' too)", argv[i]);
		}
	}
	if (!file)
		return cli_usage_error("fit", "a FILE is required");
	if (isnan(frac))
		return cli_usage_error("fit", "--train-fraction F is required");
	if (!(frac > 0 && frac < 1))
		return cli_usage_error("fit", "--train-fraction must be between 0 and 1 (exclusive), got %g", frac);
	if (!(g = graph_open(file, &err)))
		return cli_report(&err);
	if (fit_heldout(g, frac, (uint64_t)seed, &r, NULL, NULL, &err) < 0) {
		rc = cli_report(&err);
		graph_free(g);
		return rc;
	}
	if (json) {
		jsonw w;

		jsonw_init(&w, stdout, 1);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "file"), jsonw_str(&w, file);
		jsonw_key(&w, "kind"), jsonw_str(&w, graph_kind_name(g->kind));
		jsonw_key(&w, "configs"), jsonw_int(&w, g->n_configs);
		jsonw_key(&w, "train_fraction"), jsonw_num(&w, frac);
		jsonw_key(&w, "seed"), jsonw_int(&w, seed);
		jsonw_key(&w, "train_configs"), jsonw_int(&w, r.n_train);
		jsonw_key(&w, "heldout_configs"), jsonw_int(&w, r.n_heldout);
		jsonw_key(&w, "features"), jsonw_int(&w, r.n_features);
		jsonw_key(&w, "target"), jsonw_str(&w, r.target);
		jsonw_key(&w, "lambda"), jsonw_num(&w, r.lambda);
		if (g->kind == HS_KIND_LAYOUT) {
			jsonw_key(&w, "kernel");
			jsonw_obj_begin(&w);
			jsonw_key(&w, "node_choices"), jsonw_num(&w, r.kernel[0]);
			jsonw_key(&w, "values"), jsonw_num(&w, r.kernel[1]);
			jsonw_key(&w, "counts"), jsonw_num(&w, r.kernel[2]);
			jsonw_obj_end(&w);
		}
		jsonw_key(&w, "cv_kendall_tau"), jsonw_num(&w, r.cv_tau);
		jsonw_key(&w, "heldout_kendall_tau"), jsonw_num(&w, r.heldout_tau);
		jsonw_key(&w, "heldout_opa"), jsonw_num(&w, r.heldout_opa);
		jsonw_obj_end(&w);
		if (jsonw_finish(&w, &err) < 0)
			rc = cli_report(&err);
	} else {
		printf("%s: %s, %lld configs\n", file, graph_kind_name(g->kind), (long long)g->n_configs);
		printf("fit on %lld configs (seed %lld), ranked the other %lld\n", (long long)r.n_train, seed,
		       (long long)r.n_heldout);
		if (g->kind == HS_KIND_LAYOUT)
			printf("model: kernel ridge on %lld layout features (kernel weights: node choices %.3g, "
			       "values %.3g, counts %.3g), %s target, lambda %g", (long long)r.n_features, r.kernel[0],
			       r.kernel[1], r.kernel[2], r.target, r.lambda);
		else
			printf("model: kernel ridge on %lld tile config features, %s target, lambda %g",
			       (long long)r.n_features, r.target, r.lambda);
		if (!isnan(r.cv_tau))
			printf(" (3-fold CV tau %.4f)", r.cv_tau);
		printf("\n");
		if (isnan(r.heldout_tau))
			printf("held-out Kendall tau: n/a (the held-out runtimes or scores are all equal)\n");
		else
			printf("held-out Kendall tau: %.4f\n", r.heldout_tau);
		if (!isnan(r.heldout_opa))
			printf("held-out ordered-pair accuracy: %.4f\n", r.heldout_opa);
	}
	graph_free(g);
	return rc;
}
