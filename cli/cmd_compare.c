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
#include "loader/graph.h"
#include "model/compare.h"
#include "model/model.h"

int cmd_compare(int argc, char **argv)
{
	const char *pos[3] = {NULL, NULL, NULL};
	const char *model_path = NULL, *file2 = NULL;
	int npos = 0, json = 0;
	compare_opts o;

	compare_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--all")) {
			o.all = 1;
		} else if (!strcmp(a, "--no-predict")) {
			o.predict = 0;
		} else if (!strcmp(a, "--model") || !strcmp(a, "--file2") || !strcmp(a, "--sort")) {
			if (i + 1 >= argc)
				return cli_usage_error("compare", "%s needs a value", a);
			const char *v = argv[++i];
			if (!strcmp(a, "--model")) {
				model_path = v;
			} else if (!strcmp(a, "--file2")) {
				file2 = v;
			} else {
				int s = compare_sort_parse(v);
				if (s < 0)
					return cli_usage_error("compare", "--sort takes contribution or id, not '%s'", v);
				o.sort = (compare_sort)s;
			}
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_usage_error("compare", "unknown option '%s'", a);
		} else if (npos < 3) {
			pos[npos++] = a;
		} else {
			return cli_usage_error("compare", "unexpected argument '%s'", a);
		}
	}
	if (npos < 3)
		return cli_usage_error("compare", "needs a FILE and two configs A and B (index, best, worst or default)");

	hs_error err = {0};
	hs_graph *ga = graph_open(pos[0], &err), *gb = NULL;
	hs_model *m = NULL;
	int rc = 0;
	if (!ga)
		return cli_report(&err);
	if (file2 && !(gb = graph_open(file2, &err))) {
		rc = cli_report(&err);
		goto out;
	}
	if (model_path && !o.predict) {
		rc = cli_usage_error("compare", "--model and --no-predict exclude each other");
		goto out;
	}
	if (model_path && !(m = model_load(model_path, &err))) {
		rc = cli_report(&err);
		goto out;
	}
	o.model = m;
	if (compare_write(stdout, ga, gb, pos[1], pos[2], &o, json ? COMPARE_JSON : COMPARE_TEXT, &err))
		rc = cli_report(&err);
out:
	model_free(m);
	graph_free(gb);
	graph_free(ga);
	return rc;
}
