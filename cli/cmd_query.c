/* hloscope query PATH ['QUERY'...] [-f SCRIPT]... [--csv|--json] [--model M]
 *                [--time] [--threads N] [--skip-bad] [--progress|--no-progress]
 *
 * Batch use of the query language (query/query.h): the queries given as
 * arguments and the lines of the scripts run in command-line order; with
 * neither, the lines of stdin run.  Blank lines and # comments are skipped.
 * One result per command: tables are separated by a blank line, JSON
 * results are one document each (a stream jq reads).  `open`, `format` and
 * `quit` work as in the REPL.
 *
 * PATH may be a folder: the queries then run over every graph under it
 * (query_session_new_dataset) on --threads N threads (default: one per
 * CPU).  Files that cannot be read are listed on stderr ("skipped FILE:
 * why") and left out.  Progress shows on stderr once a query runs longer
 * than a second, when stderr is a terminal (--progress: always, a line a
 * second; --no-progress: never).  Ctrl-C stops the query in progress: its
 * result is not written, and the command exits 130.
 *
 * Exit status: 0 when every command ran, 1 at the first query error (the
 * message, the line and a caret on stderr), 2 when a file cannot be read
 * or a folder had files skipped (0 for those with --skip-bad), 3 when out
 * of memory, 130 when stopped by Ctrl-C.  --time prints each command's execution time (parse
 * and run, not output) to stderr: "time: 1.234 ms: QUERY".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/inputs.h"
#include "base/units.h"
#include "cli/cli.h"
#include "loader/graph.h"
#include "model/model.h"
#include "query/query.h"

struct batch {
	query_session *s;
	hs_graph *g;          /* the graph of a graph session */
	ds_index *ix;         /* the files of a folder session */
	const hs_model *model;
	query_format fmt;
	int timing;
	int results;          /* results written so far (for separators) */
	int quit;
	int threads;          /* 0: one per CPU */
	int skip_bad;         /* skipped files do not make the status 2 */
	int progress;         /* 1 on a terminal, 2 forced (a line each), 0 never */
	int progress_shown;   /* a progress line is on the terminal */
	double next_line;     /* forced progress: when the next line is due */
	const char **data;    /* --data FILE, in order */
	int ndata;
	int data_merge;       /* --data-merge: an overlay_merge */
	char **reported;      /* skipped files listed so far, sorted */
	size_t nreported;
	int skipped;          /* some file was skipped */
};

/* ---- folders: Ctrl-C, progress, skipped files --------------------------- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = 1;
}

static int on_progress(void *ctx, size_t done, size_t total, double seconds)
{
	struct batch *b = ctx;
	char d[32], t[32], took[32];

	if (interrupted)
		return 1;
	if (!b->progress || seconds < 1.0)
		return 0;
	hs_num_thousands(d, sizeof d, (int64_t)done);
	hs_num_thousands(t, sizeof t, (int64_t)total);
	hs_unit_format(took, sizeof took, HS_U_SECONDS, seconds, 0);
	if (b->progress == 1) {
		/* on the real stderr: the line's own \r and ESC [K */
		fprintf(cli_raw_stderr(), "\rhloscope query: %s/%s files, %s\033[K", d, t, took);
		fflush(cli_raw_stderr());
		b->progress_shown = 1;
	} else if (seconds >= b->next_line) {
		fprintf(stderr, "hloscope query: %s/%s files, %s\n", d, t, took);
		b->next_line = seconds + 1.0;
	}
	fflush(stderr);
	return 0;
}

static void clear_progress(struct batch *b)
{
	if (b->progress_shown)
		fputs("\r\033[K", cli_raw_stderr());
	b->progress_shown = 0;
	b->next_line = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the skipped files of a result that were not listed before. */
static void report_skipped(struct batch *b, const query_result *r)
{
	for (size_t i = 0; i < r->nskipped; i++) {
		const char *s = r->skipped[i];
		b->skipped = 1;
		if (b->nreported &&
		    bsearch(&s, b->reported, b->nreported, sizeof *b->reported, cmp_str))
			continue;
		fprintf(stderr, "hloscope query: skipped %s\n", s);
		char **v = realloc(b->reported, (b->nreported + 1) * sizeof *v);
		char *copy = strdup(s);
		if (!v || !copy) {
			free(copy);
			if (v)
				b->reported = v;
			continue;
		}
		b->reported = v;
		size_t at = b->nreported;
		while (at > 0 && strcmp(v[at - 1], copy) > 0) {
			v[at] = v[at - 1];
			at--;
		}
		v[at] = copy;
		b->nreported++;
	}
}

/* A session on PATH: a folder's files, or one graph. */
static int open_target(struct batch *b, const char *path, hs_error *err)
{
	struct stat st;
	query_session *s;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		ds_index *ix = dataset_list(path, err);
		if (!ix)
			return -1;
		s = query_session_new_dataset(ix, err);
		if (!s) {
			dataset_free(ix);
			return -1;
		}
		query_session_free(b->s);
		dataset_free(b->ix);
		graph_free(b->g);
		b->s = s;
		b->ix = ix;
		b->g = NULL;
		query_session_set_threads(s, b->threads);
		query_session_set_progress(s, on_progress, b);
	} else {
		hs_graph *g = graph_open(path, err);
		if (!g)
			return -1;
		if (b->s && !b->ix) {
			query_session_set_graph(b->s, g);
		} else {
			s = query_session_new(g, err);
			if (!s) {
				graph_free(g);
				return -1;
			}
			query_session_free(b->s);
			dataset_free(b->ix);
			b->s = s;
			b->ix = NULL;
		}
		graph_free(b->g);
		b->g = g;
	}
	query_session_set_model(b->s, b->model);
	return 0;
}

struct item {
	int script;      /* 1: -f SCRIPT; 0: a query */
	const char *text;
};

/* Runs one line; returns the exit status so far (0, 1, 2, 3 or 130). */
static int run_line(struct batch *b, const char *line, const char *src, long lineno)
{
	query_result r;
	hs_error err;
	double t0 = hs_now_seconds() * 1e3;

	hs_error_clear(&err);
	/* Over a folder, Ctrl-C stops the query cleanly (on_progress sees it);
	 * elsewhere it ends the program as usual. */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	if (b->ix)
		sigaction(SIGINT, &sa, &old);
	int rc = query_exec(b->s, line, &r, &err);
	if (b->ix)
		sigaction(SIGINT, &old, NULL);
	double t1 = hs_now_seconds() * 1e3;
	clear_progress(b);
	if (b->timing && rc == 0 && r.kind != QUERY_NONE) {
		char took[32];
		hs_unit_format(took, sizeof took, HS_U_SECONDS, (t1 - t0) / 1e3, 3);
		fprintf(stderr, "time: %s: %s\n", took, line);
	}
	if ((rc < 0 && query_stopped(b->s)) || (rc == 0 && interrupted)) {
		/* also when the run ended before it could see the Ctrl-C */
		fprintf(stderr, "hloscope query: %s (Ctrl-C)\n", rc < 0 ? err.msg : "stopped");
		if (rc == 0)
			query_result_free(&r);
		b->quit = 1;
		return 130;
	}
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
			if (open_target(b, r.arg, &err) < 0) {
				query_result_free(&r);
				return cli_report(&err);
			}
		}
		query_result_free(&r);
		return 0;
	}
	if (r.kind == QUERY_NONE) {
		query_result_free(&r);
		return 0;
	}
	report_skipped(b, &r);
	if (b->results++ && b->fmt != QUERY_FMT_JSON)
		putchar('\n');
	/* CSV is data: exact on a pipe or a file, escaped on a terminal */
	rc = query_write(b->fmt == QUERY_FMT_CSV ? cli_data_stdout() : stdout, &r, b->fmt, &err);
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
		fprintf(stderr, "hloscope query: %s: %s\n", path, strerror(errno));
		return 2;
	}
	hs_error err = {0};
	if (hs_input_note_fd(fileno(f), path, &err) < 0) {
		fclose(f);
		return cli_report(&err);
	}
	int rc = run_stream(b, f, path);
	fclose(f);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: hloscope query PATH ['QUERY'...] [-f SCRIPT] [--csv|--json] [--model M] "
		     "[--data FILE]... [--data-merge HOW]\n"
		     "                      [--time] [--threads N] [--skip-bad] [--progress|--no-progress]\n"
		     "Runs queries (or the lines of SCRIPT, or of stdin) on a graph file, or on every\n"
		     "graph of a folder PATH.  Try: hloscope query FILE help\n");
}

/* Options and arguments into b, items, *path and *model; 0, or the exit
 * status (-1: --help, done). */
static int parse_args(int argc, char **argv, struct batch *b, struct item *items, int *nitems,
		      const char **path, const char **model)
{
	int opts_done = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts_done || a[0] != '-' || !a[1]) {
			if (!*path)
				*path = a;
			else
				items[(*nitems)++].text = a;
		} else if (!strcmp(a, "--")) {
			opts_done = 1;
		} else if (!strcmp(a, "--csv") || !strcmp(a, "--json") || !strcmp(a, "--table")) {
			b->fmt = query_format_parse(a + 2);
		} else if (!strcmp(a, "--time")) {
			b->timing = 1;
		} else if (!strcmp(a, "--skip-bad")) {
			b->skip_bad = 1;
		} else if (!strcmp(a, "--progress") || !strcmp(a, "--no-progress")) {
			b->progress = a[2] == 'p' ? 2 : 0;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--model") || !strcmp(a, "--threads") ||
			   !strcmp(a, "--data") || !strcmp(a, "--data-merge")) {
			if (i + 1 >= argc)
				return cli_usage_error("query", "%s needs a value", a);
			const char *v = argv[++i];
			if (!strcmp(a, "-f")) {
				items[*nitems].script = 1;
				items[(*nitems)++].text = v;
			} else if (!strcmp(a, "--model")) {
				*model = v;
			} else if (!strcmp(a, "--data")) {
				b->data[b->ndata++] = v;
			} else if (!strcmp(a, "--data-merge")) {
				if (cli_data_merge("query", v, &b->data_merge) != 0)
					return 1;
			} else {
				long long n = cli_parse_count(v);
				if (n < 1 || n > 256)
					return cli_usage_error("query", "--threads needs a count 1..256, not '%s'", v);
				b->threads = (int)n;
			}
		} else {
			return cli_usage_error("query", "unknown option '%s'", a);
		}
	}
	if (!*path)
		return cli_usage_error("query", "needs a FILE or a folder");
	return 0;
}

int cmd_query(int argc, char **argv)
{
	const char *path = NULL, *model_path = NULL;
	struct item *items = calloc((size_t)argc + 1, sizeof *items);
	int nitems = 0, rc;
	struct batch b = {0};
	hs_model *m = NULL;
	hs_error err;

	if (!items)
		return cli_oom("reading the arguments");
	b.fmt = QUERY_FMT_TABLE;
	b.progress = isatty(STDERR_FILENO);
	b.data = calloc((size_t)argc + 1, sizeof *b.data);
	if (!b.data) {
		free(items);
		free(b.data);
		return cli_oom("reading the arguments");
	}
	rc = parse_args(argc, argv, &b, items, &nitems, &path, &model_path);
	if (rc) {
		free(items);
		free(b.data);
		return rc < 0 ? 0 : rc;
	}
	hs_error_clear(&err);
	if (model_path && !(m = model_load(model_path, &err))) {
		free(items);
		free(b.data);
		return cli_report(&err);
	}
	b.model = m;
	if (open_target(&b, path, &err) < 0) {
		rc = cli_report(&err);
		goto done;
	}
	if (b.ndata && b.ix) {
		rc = cli_usage_error("query", "--data lays data over one graph, not over a folder");
		goto done;
	}
	for (int i = 0; i < b.ndata && !rc; i++)
		rc = cli_load_data(b.s, b.data[i], b.data_merge);
	if (rc)
		goto done;
	if (nitems == 0) {
		if (isatty(STDIN_FILENO))
			fprintf(stderr, "hloscope query: reading queries from standard input "
				"(end with Ctrl-D)\n");
		rc = run_stream(&b, stdin, "<stdin>");
	}
	for (int i = 0; i < nitems && !rc && !b.quit; i++)
		rc = items[i].script ? run_script(&b, items[i].text)
				     : run_line(&b, items[i].text, NULL, 0);
	if (fflush(stdout) != 0 && !rc) {
		fprintf(stderr, "hloscope query: writing the output: %s\n", strerror(errno));
		rc = 2;
	}
	if (!rc && b.skipped && !b.skip_bad)
		rc = 2;
done:
	query_session_free(b.s);
	dataset_free(b.ix);
	graph_free(b.g);
	model_free(m);
	for (size_t i = 0; i < b.nreported; i++)
		free(b.reported[i]);
	free(b.reported);
	free(items);
		free(b.data);
	return rc;
}
