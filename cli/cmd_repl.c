/* hloscope repl FILE [--model M] [--csv|--json] [--no-history]
 *
 * The interactive query prompt (repl/repl.h); `help` inside lists the
 * commands.  Exit status 2 when FILE or the model cannot be read (3 when
 * out of memory). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/graph.h"
#include "model/model.h"
#include "query/query.h"
#include "repl/repl.h"

int cmd_repl(int argc, char **argv)
{
	const char *model_path = NULL;
	repl_opts o = {.format = QUERY_FMT_TABLE};
	int no_history = 0;
	const cli_opt opts[] = {
		CLI_MODEL_OPT(&model_path),
		CLI_FORMAT_OPTS(&o.format),
		CLI_MACHINE_OPT,
		{"--no-history", NULL, CLI_FLAG, &no_history, .help = "neither read nor write the history file"},
		{0}};
	const cli_spec spec = {"repl", "The query language at a readline prompt with history and completion;\n"
			       "type help inside.  History: $XDG_STATE_HOME/hloscope/history.", opts, .max_args = 1};
	cli_args args;
	hs_error err = {0};
	hs_model *m = NULL;
	int rc = cli_parse(&spec, argc, argv, &args);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (!args.n)
		return cli_usage_error("repl", "needs a FILE");
	if (no_history)
		o.history = "";
	hs_graph *g = graph_open(args.v[0], &err);
	if (!g)
		return cli_report(&err);
	if ((rc = cli_model_load(model_path, &m)) != 0) {
		graph_free(g);
		return rc;
	}
	query_session *s = query_session_new(g, &err);
	if (!s) {
		model_free(m);
		graph_free(g);
		return cli_report(&err);
	}
	query_session_set_model(s, m);
	o.out = cli_raw_stdout(); /* readline drives the terminal; the REPL escapes what it prints */
	o.err = stderr;
	rc = repl_run(s, &g, &o);
	query_session_free(s);
	model_free(m);
	graph_free(g);
	return rc;
}
