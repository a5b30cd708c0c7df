/* hloscope query FILE ['QUERY'...] [-f SCRIPT]... [--csv|--json] [--model M]
 *                [--time]
 *
 * Batch use of the query language (query/query.h): the queries given as
 * arguments and the lines of the scripts run in command-line order; with
 * neither, the lines of stdin run.  Blank lines and # comments are skipped.
 * One result per command: tables are separated by a blank line, JSON
 * results are one document each (a stream jq reads).  `open`, `format` and
 * `quit` work as in the REPL.
 *
 * Exit status: 0 when every command ran, 1 at the first query error (the
 * message, the line and a caret on stderr), 2 when a file cannot be read,
 * 3 when out of memory.
 * --time prints each command's execution time (parse and run, not output)
 * to stderr: "time: 1.234 ms: QUERY".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "cli/commands.h"
#include "loader/graph.h"
#include "model/model.h"
#include "query/query.h"

struct batch {
	query_session *s;
	hs_graph *g;
	query_format fmt;
	int timing;
	int results;  /* results written so far (for separators) */
	int quit;
};

struct item {
	int script;      /* 1: -f SCRIPT; 0: a query */
	const char *text;
};

/* Runs one line; returns the exit status so far (0, 1, 2 or 3). */
static int run_line(struct batch *b, const char *line, const char *src, long lineno)
{
	query_result r;
	hs_error err;
	double t0 = hs_now_seconds() * 1e3;

	hs_error_clear(&err);
	int rc = query_exec(b->s, line, &r, &err);
	double t1 = hs_now_seconds() * 1e3;
	if (b->timing && rc == 0 && r.kind != QUERY_NONE)
		fprintf(stderr, "time: %.3f ms: %s\n", t1 - t0, line);
	if (rc < 0) {
		char buf[4096];
		query_error_caret(err.msg, line, query_error_column(b->s), buf, sizeof buf);
		if (src)
			fprintf(stderr, "hloscope query: %s:%ld: %s", src, lineno, buf);
		else
			fprintf(stderr, "hloscope query: %s", buf);
		return err.status == HS_EDATA || err.status == HS_ENOMEM ? err.status : 1;
	}
	if (r.kind == QUERY_ACTION) {
		if (r.action == QUERY_ACT_QUIT) {
			b->quit = 1;
		} else if (r.action == QUERY_ACT_FORMAT) {
			b->fmt = r.format;
		} else if (r.action == QUERY_ACT_OPEN) {
			hs_graph *ng = graph_open(r.arg, &err);
			if (!ng) {
				query_result_free(&r);
				return cli_report(&err);
			}
			query_session_set_graph(b->s, ng);
			graph_free(b->g);
			b->g = ng;
		}
		query_result_free(&r);
		return 0;
	}
	if (r.kind == QUERY_NONE) {
		query_result_free(&r);
		return 0;
	}
	if (b->results++ && b->fmt != QUERY_FMT_JSON)
		putchar('\n');
	rc = query_write(stdout, &r, b->fmt, &err);
	query_result_free(&r);
	if (rc < 0)
		return cli_report(&err);
	return 0;
}

static int run_stream(struct batch *b, FILE *f, const char *src)
{
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int rc = 0;

	while (!b->quit && getline(&line, &cap, f) >= 0) {
		size_t n = strlen(line);
		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		rc = run_line(b, line, src, lineno);
		if (rc)
			break;
	}
	if (!rc && ferror(f)) {
		fprintf(stderr, "hloscope query: reading %s: %s\n", src, strerror(errno));
		rc = 2;
	}
	free(line);
	return rc;
}

static int run_script(struct batch *b, const char *path)
{
	if (!strcmp(path, "-"))
		return run_stream(b, stdin, "<stdin>");
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "hloscope query: cannot open script %s: %s\n", path, strerror(errno));
		return 1;
	}
	int rc = run_stream(b, f, path);
	fclose(f);
	return rc;
}

int cmd_query(int argc, char **argv)
{
	const char *file = NULL, *model_path = NULL;
	struct item *items = calloc((size_t)argc + 1, sizeof *items);
	int nitems = 0, opts_done = 0, rc = 0;
	struct batch b = {0};
	hs_model *m = NULL;
	hs_error err;

	if (!items)
		return cli_oom("reading the arguments");
	b.fmt = QUERY_FMT_TABLE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--")) {
				opts_done = 1;
			} else if (!strcmp(a, "--csv")) {
				b.fmt = QUERY_FMT_CSV;
			} else if (!strcmp(a, "--json")) {
				b.fmt = QUERY_FMT_JSON;
			} else if (!strcmp(a, "--table")) {
				b.fmt = QUERY_FMT_TABLE;
			} else if (!strcmp(a, "--time")) {
				b.timing = 1;
			} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				printf("usage: hloscope query FILE ['QUERY'...] [-f SCRIPT] [--csv|--json] "
				       "[--model M] [--time]\n"
				       "Runs queries (or the lines of SCRIPT, or of stdin) on FILE.\n"
				       "Try: hloscope query FILE help\n");
				free(items);
				return 0;
			} else if (!strcmp(a, "-f") || !strcmp(a, "--model")) {
				if (i + 1 >= argc) {
					free(items);
					return cli_usage_error("query", "%s needs a value", a);
				}
				if (!strcmp(a, "-f")) {
					items[nitems].script = 1;
					items[nitems++].text = argv[++i];
				} else {
					model_path = argv[++i];
				}
			} else {
				free(items);
				return cli_usage_error("query", "unknown option '%s'", a);
			}
		} else if (!file) {
			file = a;
		} else {
			items[nitems++].text = a;
		}
	}
	if (!file) {
		free(items);
		return cli_usage_error("query", "needs a FILE");
	}
	hs_error_clear(&err);
	b.g = graph_open(file, &err);
	if (!b.g) {
		free(items);
		return cli_report(&err);
	}
	if (model_path) {
		m = model_load(model_path, &err);
		if (!m) {
			rc = cli_report(&err);
			goto done;
		}
	}
	b.s = query_session_new(b.g, &err);
	if (!b.s) {
		rc = cli_report(&err);
		goto done;
	}
	query_session_set_model(b.s, m);
	if (nitems == 0)
		rc = run_stream(&b, stdin, "<stdin>");
	for (int i = 0; i < nitems && !rc && !b.quit; i++)
		rc = items[i].script ? run_script(&b, items[i].text)
				     : run_line(&b, items[i].text, NULL, 0);
	if (fflush(stdout) != 0 && !rc) {
		fprintf(stderr, "hloscope query: writing the output: %s\n", strerror(errno));
		rc = 2;
	}
done:
	query_session_free(b.s);
	model_free(m);
	graph_free(b.g);
	free(items);
	return rc;
}
