/* hloscope diff A B [--json | --text] [--names-only] [--limit N]
 *
 * What changed between two HLO modules (model/module_diff.h does the
 * matching and the report).  A and B are any HLO input graph_open reads:
 * HLO text, an HloModuleProto, a module of a raw TpuGraphs .pb (FILE#N), or
 * even two .npz files (no names: matched by structure only).
 *
 * On a terminal (standard output a tty, or HLOSCOPE_SCRIPT set as for the
 * explorer) it opens the explorer's diff view (tui/view_diff.c), as `git
 * diff` opens a pager; --text (or a pipe) prints the report, --json the
 * document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "loader/graph.h"
#include "doc/diff.h"
#include "tui/tui.h"

/* The diff view in the explorer: both modules read before the terminal is
 * touched, so a bad file is a plain message. */
static int diff_explore(const char *a, const char *b)
{
	tui_options o = {.path = a, .diff_b = b};
	hs_error err = {0};
	o.script = getenv("HLOSCOPE_SCRIPT");
	if (o.script && !*o.script)
		o.script = NULL;
	const char *mask = getenv("HLOSCOPE_MASK_MODEL");
	o.mask_model = mask && *mask && strcmp(mask, "0") != 0;
	tui_clock_ms();
	cli_raw_stdout(); /* ncurses drives the terminal; the explorer escapes what it draws */
	int rc = tui_run(&o, &err);
	return rc < 0 ? cli_report(&err) : rc;
}

int cmd_diff(int argc, char **argv)
{
	int json = 0, text = 0, names_only = 0, rc;
	long long limit = -1;
	const cli_opt opts[] = {
		{"--text", NULL, CLI_FLAG, &text, .help = "the text report, even on a terminal"},
		{"--json", NULL, CLI_FLAG, &json, .help = "one JSON object: matched, unmatched_a, unmatched_b,\n"
		 "changed (a, b, changes), summary"},
		CLI_MACHINE_OPT,
		{"--names-only", NULL, CLI_FLAG, &names_only, .help = "match by names only (no structure; the report)"},
		{"--limit", "N", CLI_INT64, &limit, .help = "rows per list in the text report (default 20;\n0: all)"},
		{0}};
	const cli_spec spec = {"diff",
			       "Matches the instructions of two HLO modules (text, HloModuleProto, FILE#N\n"
			       "of a raw TpuGraphs .pb): by name, then by structure (exact subgraph\n"
			       "fingerprints from the parameters and from the roots), then through\n"
			       "matched neighbours; an instruction that moved into a fusion body is found\n"
			       "there.  Prints the totals side by side, the changed pairs (opcode, shape,\n"
			       "layout, operands, attributes, computation) largest cost change first, the\n"
			       "instructions only in A and only in B, and per-computation and per-opcode\n"
			       "summaries.  Exit 0 whether or not anything changed.  On a terminal,\n"
			       "without options, it opens the explorer's diff view instead: the summary,\n"
			       "the computations, both modules' instructions side by side with matched\n"
			       "ones on one row (piped, it prints the report).",
			       opts, .max_args = 2};
	cli_args args;

	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc < 0 ? 0 : rc;
	if (args.n < 2)
		return cli_usage_error("diff", "needs two HLO modules A and B");
	if (json && text)
		return cli_usage_error("diff", "--json and --text: give one of them");
	const char *script = getenv("HLOSCOPE_SCRIPT"), **pos = (const char **)args.v;
	if (!json && !text && !names_only && limit < 0 && (isatty(STDOUT_FILENO) || (script && *script)))
		return diff_explore(pos[0], pos[1]);
	unsigned flags = names_only ? HD_NAMES_ONLY : 0;
	limit = limit < 0 ? 20 : limit;

	hs_error err = {0};
	hs_graph *a = graph_open(pos[0], &err), *b = NULL;
	if (!a)
		return cli_report(&err);
	if (!(b = graph_open(pos[1], &err))) {
		graph_free(a);
		return cli_report(&err);
	}
	module_diff d;
	if (module_diff_run(&d, a, b, flags, &err) != 0) {
		rc = cli_report(&err);
	} else {
		if (json ? module_diff_print_json(&d, stdout, &err) : module_diff_print_text(&d, stdout, limit))
			rc = err.status ? cli_report(&err) : 2;
		module_diff_free(&d);
	}
	graph_free(a);
	graph_free(b);
	return rc;
}
