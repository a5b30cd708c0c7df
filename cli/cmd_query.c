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
#include "base/cmp.h"
#include "base/inputs.h"
#include "base/units.h"
#include "cli/cli.h"
#include "cli/opts.h"
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

/* Lists the skipped files of a result that were not listed before. */
static void report_skipped(struct batch *b, const query_result *r)
{
	for (size_t i = 0; i < r->nskipped; i++) {
		const char *s = r->skipped[i];
		b->skipped = 1;
		if (b->nreported &&
		    bsearch(&s, b->reported, b->nreported, sizeof *b->reported, hs_cmp_str))
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

/* The files of a folder that are not graphs, and why: said once, on
 * stderr; they do not change the exit status. */
static void report_left_out(const ds_index *ix)
{
	for (size_t i = 0; i < ix->n_reports; i++)
		fprintf(stderr, "hloscope query: left out %s: a %s (a report)\n", ix->reports[i].rel,
			xla_dump_kind_name((xla_dump_kind)ix->reports[i].kind));
	for (size_t i = 0; i < ix->n_left_out; i++)
		fprintf(stderr, "hloscope query: left out %s: %s\n", ix->left_out[i].rel, ix->left_out[i].why);
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
		report_left_out(ix);
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

/* The operands and -f scripts, in command-line order: the PATH, then the
 * queries and scripts to run. */
struct items {
	const char *path;
	struct item *v;
	int n;
};

static int add_operand(void *ctx, const char *arg)
{
	struct items *it = ctx;

	if (!it->path)
		it->path = arg;
	else
		it->v[it->n++] = (struct item){0, arg};
	return 0;
}

static int add_script(void *ctx, const char *opt, const char *arg)
{
	struct items *it = ctx;

	it->v[it->n++] = (struct item){1, arg};
	return 0;
}

int cmd_query(int argc, char **argv)
{
	const char *model_path = NULL;
	struct items it = {NULL, calloc((size_t)argc + 1, sizeof *it.v), 0};
	struct batch b = {.fmt = QUERY_FMT_TABLE, .progress = isatty(STDERR_FILENO)};
	cli_data data = {0};
	hs_model *m = NULL;
	hs_error err = {0};
	const cli_opt opts[] = {
		{"-f", "SCRIPT", CLI_CALL, &it, .help = "run the lines of SCRIPT (- for stdin)", .call = add_script},
		CLI_FORMAT_OPTS(&b.fmt),
		CLI_MODEL_OPT(&model_path),
		CLI_DATA_OPTS(&data),
		CLI_MACHINE_OPT,
		{"--time", NULL, CLI_FLAG, &b.timing, .help = "print each query's time to stderr"},
		{"--threads", "N", CLI_INT, &b.threads, .help = "folders: graphs read at once (default: the CPUs)", .min = 1,
		 .max = 256},
		{"--skip-bad", NULL, CLI_FLAG, &b.skip_bad, .help = "folders: list unreadable files and skip them\n"
		 "without failing (otherwise exit 2)"},
		{"--progress", NULL, CLI_SET, &b.progress, .help = "folders: a progress line a second on stderr (by\n"
		 "default only on a terminal, after a second)", .val = 2},
		{"--no-progress", NULL, CLI_SET, &b.progress, .help = "folders: never a progress line", .val = 0},
		{NULL, .help = "  --                   the arguments after it are queries"},
		{0}};
	const cli_spec spec = {"query", "Runs the QUERY arguments and the lines of each SCRIPT on PATH, in order;\n"
			       "with neither, the lines of stdin.  PATH is a graph file, or a folder: then\n"
			       "every graph under it answers and the results are combined (rows carry\n"
			       "file, collection and split; `graphs` queries the graphs themselves).\n"
			       "`hloscope query FILE help` lists the language.",
			       opts, -1, .operand = add_operand, .operand_ctx = &it};
	cli_args args;
	int rc;

	if (!it.v)
		return cli_oom("reading the arguments");
	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0 ||
	    (!it.path && (rc = cli_usage_error("query", "needs a FILE or a folder")) != 0) ||
	    (rc = cli_model_load(model_path, &m)) != 0) {
		free(it.v);
		free(data.files.v);
		return rc < 0 ? 0 : rc;
	}
	b.model = m;
	if (open_target(&b, it.path, &err) < 0) {
		rc = cli_report(&err);
		goto done;
	}
	if (data.files.n && b.ix) {
		rc = cli_usage_error("query", "--data lays data over one graph, not over a folder");
		goto done;
	}
	if ((rc = cli_load_data(b.s, &data)) != 0)
		goto done;
	if (it.n == 0) {
		if (isatty(STDIN_FILENO))
			fprintf(stderr, "hloscope query: reading queries from standard input "
				"(end with Ctrl-D)\n");
		rc = run_stream(&b, stdin, "<stdin>");
	}
	for (int i = 0; i < it.n && !rc && !b.quit; i++)
		rc = it.v[i].script ? run_script(&b, it.v[i].text) : run_line(&b, it.v[i].text, NULL, 0);
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
	free(it.v);
	free(data.files.v);
	return rc;
}
