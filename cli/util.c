#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/afile.h"
#include "base/inputs.h"
#include <unistd.h>

#include "base/escape.h"
#include "base/parse.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "model/model.h"
#include "query/query.h"

static const char *command_name; /* the running subcommand, or NULL */

void cli_set_command(const char *name)
{
	command_name = name;
}

/* ---- output: what reaches the terminal is escaped ------------------- */

static FILE *raw_stdout, *raw_stderr; /* the streams the escaping ones write to */

/* At exit: the escaping streams written out and closed, the real ones back. */
static void close_escaping(void)
{
	cli_raw_stdout();
	if (raw_stderr) {
		FILE *e = stderr;
		stderr = raw_stderr;
		raw_stderr = NULL;
		fclose(e);
	}
}

int cli_escape_output(void)
{
	FILE *err = hs_esc_open(stderr, HS_ESC_TEXT), *out;

	if (!err)
		return -1;
	setvbuf(err, NULL, _IONBF, 0);
	raw_stderr = stderr;
	stderr = err;
	atexit(close_escaping);
	out = hs_esc_open(stdout, HS_ESC_TEXT);
	if (!out)
		return -1;
	if (isatty(fileno(stdout)))
		setvbuf(out, NULL, _IOLBF, 0);
	raw_stdout = stdout;
	stdout = out;
	return 0;
}

FILE *cli_raw_stdout(void)
{
	if (raw_stdout) {
		FILE *o = stdout;
		stdout = raw_stdout;
		raw_stdout = NULL;
		fclose(o);
	}
	return stdout;
}

FILE *cli_raw_stderr(void)
{
	return raw_stderr ? raw_stderr : stderr;
}

FILE *cli_data_stdout(void)
{
	return isatty(fileno(raw_stdout ? raw_stdout : stdout)) ? stdout : cli_raw_stdout();
}

int cli_report(const hs_error *err)
{
	fprintf(stderr, "hloscope%s%s: ", command_name ? " " : "", command_name ? command_name : "");
	hs_fputs_escaped(stderr, err->msg[0] ? err->msg : "unknown error", HS_ESC_TEXT);
	fputc('\n', stderr);
	return err->status ? err->status : 2;
}

int cli_oom(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hloscope%s%s: out of memory ", command_name ? " " : "",
		command_name ? command_name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return HS_ENOMEM;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	const char *u = cli_command_usage(cmd);

	fprintf(stderr, "hloscope %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (u)
		fprintf(stderr, "usage: hloscope %s %s\n", cmd, u);
	return 1;
}

int cli_load_data(query_session *s, const cli_data *d)
{
	hs_error err = {0};
	overlay_opts opts = {.merge = (overlay_merge)d->merge, .merge_words = CLI_DATA_MERGE_WORDS};

	for (int i = 0; i < d->files.n; i++) {
		if (query_session_load_data(s, d->files.v[i], &opts, &err) != 0)
			return cli_report(&err);
		int k = query_session_data_count(s) - 1;
		if (query_session_data(s, k)->unmatched) {
			char *note = query_session_data_note(s, k);
			if (!note)
				return cli_oom("describing %s", d->files.v[i]);
			fprintf(stderr, "hloscope%s%s: %s\n", command_name ? " " : "", command_name ? command_name : "",
				note);
			free(note);
		}
	}
	return 0;
}

int cli_model_load(const char *path, hs_model **m)
{
	hs_error err = {0};

	*m = NULL;
	if (path && !(*m = model_load(path, &err)))
		return cli_report(&err);
	return 0;
}

int cli_id_list(const char *s, int (*fn)(void *ctx, int64_t a, int64_t b), void *ctx, const char **at,
		size_t *len)
{
	for (int item = 1;; item++) {
		size_t n = strcspn(s, ",");
		const char *dash = n > 1 ? memchr(s + 1, '-', n - 1) : NULL;
		int64_t a, b;

		*at = s;
		*len = n;
		if (dash ? hs_parse_i64n(s, (size_t)(dash - s), &a) < 0 ||
			   hs_parse_i64n(dash + 1, n - (size_t)(dash - s) - 1, &b) < 0
			 : hs_parse_i64n(s, n, &a) < 0)
			return item;
		if (!dash)
			b = a;
		if (a < 0 || b < a || b - a > 100000000)
			return item;
		if (fn(ctx, a, b) < 0)
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

int cli_module_file(const char *path, char *file, size_t cap)
{
	const char *hash = strrchr(path, '#');
	struct stat st;

	if (!hash || (size_t)(hash - path) >= cap || stat(path, &st) == 0)
		return 0;
	memcpy(file, path, (size_t)(hash - path));
	file[hash - path] = '\0';
	return stat(file, &st) == 0 && S_ISREG(st.st_mode);
}

int cli_note_input(const char *path)
{
	hs_error err = {0};
	char file[PATH_MAX];

	if (hs_input_note_path(cli_module_file(path, file, sizeof file) ? file : path, &err) < 0)
		return cli_report(&err);
	return 0;
}

int cli_check_output(const char *cmd, const char *opt, const char *out)
{
	hs_error err = {0};

	if (!*out)
		return cli_usage_error(cmd, "%s needs a file name", opt);
	return hs_afile_check(out, &err) < 0 ? cli_report(&err) : 0;
}
