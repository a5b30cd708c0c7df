/* hloscope diff A B [--json] [--names-only] [--limit N]
 *
 * What changed between two HLO modules (model/hlo_diff.h does the
 * matching and the report).  A and B are any HLO input graph_open reads:
 * HLO text, an HloModuleProto, a module of a raw TpuGraphs .pb (FILE#N), or
 * even two .npz files (no names: matched by structure only). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "loader/graph.h"
#include "model/hlo_diff.h"

int cmd_diff(int argc, char **argv)
{
	const char *pos[2] = {NULL, NULL};
	int npos = 0, json = 0;
	unsigned flags = 0;
	long long limit = 20;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--names-only")) {
			flags |= HD_NAMES_ONLY;
		} else if (!strcmp(a, "--limit")) {
			if (i + 1 >= argc || (limit = cli_parse_count(argv[++i])) < 0)
				return cli_usage_error("diff", "--limit needs a count (0 for every row)");
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

	hs_error err = {0};
	hs_graph *a = graph_open(pos[0], &err), *b = NULL;
	if (!a)
		return cli_report(&err);
	if (!(b = graph_open(pos[1], &err))) {
		graph_free(a);
		return cli_report(&err);
	}
	hlo_diff d;
	int rc = 0;
	if (hlo_diff_run(&d, a, b, flags, &err) != 0) {
		rc = cli_report(&err);
	} else {
		if (json ? hlo_diff_print_json(&d, stdout, &err) : hlo_diff_print_text(&d, stdout, limit))
			rc = err.status ? cli_report(&err) : 2;
		hlo_diff_free(&d);
	}
	graph_free(a);
	graph_free(b);
	return rc;
}
