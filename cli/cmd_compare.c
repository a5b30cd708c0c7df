/* hloscope compare FILE A B [--json] [--all] [--model MODEL] [--file2 FILE2]
 *                  [--sort contribution|id] [--no-predict]
 *
 * Two configs of one graph side by side (model/compare.h does the work and
 * the printing, shared with the REPL).  A and B are config indices, best,
 * worst or default.  With --file2, B is a config of FILE2, which must hold
 * the same graph (e.g. the xla default and random files of one program).
 * --no-predict leaves the model out (no predicted runtimes, ranks or
 * per-node contributions): faster on large graphs. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/graph.h"
#include "model/compare.h"
#include "model/model.h"

/* --sort WORD (model/compare.h: its aliases too) into a compare_sort. */
static int sort_opt(void *dst, const char *opt, const char *v)
{
	int s = compare_sort_parse(v);

	if (s < 0)
		return cli_usage_error("compare", "--sort takes contribution or id, not '%s'", v);
	*(compare_sort *)dst = (compare_sort)s;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	const char *model_path = NULL, *file2 = NULL;
	int json = 0, no_predict = 0, rc;
	compare_opts o;

	compare_opts_init(&o);
	const cli_opt opts[] = {
		{"--json", NULL, CLI_FLAG, &json, .help = "one JSON object"},
		{"--all", NULL, CLI_FLAG, &o.all, .help = "every configurable node, not only differing ones"},
		CLI_MODEL_OPT(&model_path),
		CLI_MACHINE_OPT,
		{"--file2", "F", CLI_STR, &file2, .help = "B is a config of F, which holds the same graph"},
		{"--sort", "contribution|id", CLI_CALL, &o.sort, .help = "row order (default id)", .call = sort_opt},
		{"--no-predict", NULL, CLI_FLAG, &no_predict, .help = "no predicted runtimes (faster on large graphs)"},
		{0}};
	const cli_spec spec = {"compare", "Two configs of FILE side by side: the configurable nodes whose layouts\n"
			       "differ and what that costs.  A and B are config indices, best, worst or\n"
			       "default.", opts, .max_args = 3};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc < 0 ? 0 : rc;
	if (args.n < 3)
		return cli_usage_error("compare", "needs a FILE and two configs A and B (index, best, worst or default)");
	if (no_predict)
		o.predict = 0;
	if (model_path && !o.predict)
		return cli_usage_error("compare", "--model and --no-predict exclude each other");

	hs_error err = {0};
	hs_graph *ga = graph_open(args.v[0], &err), *gb = NULL;
	hs_model *m = NULL;
	if (!ga)
		return cli_report(&err);
	if (file2 && !(gb = graph_open(file2, &err))) {
		rc = cli_report(&err);
		goto out;
	}
	if ((rc = cli_model_load(model_path, &m)) != 0)
		goto out;
	o.model = m;
	if (compare_write(stdout, ga, gb, args.v[1], args.v[2], &o, json ? COMPARE_JSON : COMPARE_TEXT, &err))
		rc = cli_report(&err);
out:
	model_free(m);
	graph_free(gb);
	graph_free(ga);
	return rc;
}
