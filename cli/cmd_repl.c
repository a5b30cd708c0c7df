/* hloscope repl FILE [--model M] [--csv|--json] [--no-history]
 *
 * The interactive query prompt (repl/repl.h); `help` inside lists the
 * commands.  Exit status 2 when FILE or the model cannot be read (3 when
 * out of memory). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "loader/graph.h"
#include "model/model.h"
#include "query/query.h"
#include "repl/repl.h"

int cmd_repl(int argc, char **argv)
{
	const char *file = NULL, *model_path = NULL;
	repl_opts o = {QUERY_FMT_TABLE, NULL};
	hs_error err;
	hs_model *m = NULL;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--csv")) {
			o.format = QUERY_FMT_CSV;
		} else if (!strcmp(a, "--json")) {
			o.format = QUERY_FMT_JSON;
		} else if (!strcmp(a, "--no-history")) {
			o.history = "";
		} else if (!strcmp(a, "--model")) {
			if (i + 1 >= argc)
				return cli_usage_error("repl", "--model needs a value");
			model_path = argv[++i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: hloscope repl FILE [--model M] [--csv|--json] [--no-history]\n"
			       "An interactive prompt for the query language; type help inside.\n");
			return 0;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("repl", "unknown option '%s'", a);
		} else if (!file) {
			file = a;
		} else {
			return cli_usage_error("repl", "unexpected argument '%s'", a);
		}
	}
	if (!file)
		return cli_usage_error("repl", "needs a FILE");
	hs_error_clear(&err);
	hs_graph *g = graph_open(file, &err);
	if (!g)
		return cli_report(&err);
	if (model_path && !(m = model_load(model_path, &err))) {
		graph_free(g);
		return cli_report(&err);
	}
	query_session *s = query_session_new(g, &err);
	if (!s) {
		model_free(m);
		graph_free(g);
		return cli_report(&err);
	}
	query_session_set_model(s, m);
	cli_raw_stdout(); /* readline drives the terminal; the REPL escapes what it prints */
	rc = repl_run(s, &g, &o);
	query_session_free(s);
	model_free(m);
	graph_free(g);
	return rc;
}
