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
	const char *pos[2] = {NULL, NULL};
	int npos = 0, json = 0, text = 0, flagged = 0;
	unsigned flags = 0;
	long long limit = 20;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--text")) {
			text = 1;
		} else if (!strcmp(a, "--names-only")) {
			flags |= HD_NAMES_ONLY;
			flagged = 1;
		} else if (!strcmp(a, "--limit")) {
			if (i + 1 >= argc || (limit = cli_parse_count(argv[++i])) < 0)
				return cli_usage_error("diff", "--limit needs a count (0 for every row)");
			flagged = 1;
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_usage_error("diff", "unknown option '%s'", a);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return cli_usage_error("diff", "unexpected argument '%s'", a);
		}
	}
	if (npos < 2)
		return cli_usage_error("diff", "needs two HLO modules A and B");
	if (json && text)
		return cli_usage_error("diff", "--json and --text: give one of them");
	const char *script = getenv("HLOSCOPE_SCRIPT");
	if (!json && !text && !flagged && (isatty(STDOUT_FILENO) || (script && *script)))
		return diff_explore(pos[0], pos[1]);

	hs_error err = {0};
	hs_graph *a = graph_open(pos[0], &err), *b = NULL;
	if (!a)
		return cli_report(&err);
	if (!(b = graph_open(pos[1], &err))) {
		graph_free(a);
		return cli_report(&err);
	}
	module_diff d;
	int rc = 0;
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
