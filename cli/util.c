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
#include "query/query.h"

const char *cli_command_usage(const char *name);

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

long long cli_parse_count(const char *s)
{
	int64_t v;

	if (hs_parse_i64(s, &v) < 0 || v < 0)
		return -1;
	return v;
}

int cli_data_merge(const char *cmd, const char *word, int *merge)
{
	int m = overlay_merge_of(word);
	if (m < 0)
		return cli_usage_error(cmd, "--data-merge is sum, first, last or none, not '%s'", word);
	*merge = m;
	return 0;
}

int cli_load_data(query_session *s, const char *path, int merge)
{
	hs_error err = {0};
	overlay_opts opts = {.merge = (overlay_merge)merge, .merge_words = CLI_DATA_MERGE_WORDS};
	if (query_session_load_data(s, path, &opts, &err) != 0)
		return cli_report(&err);
	int k = query_session_data_count(s) - 1;
	if (query_session_data(s, k)->unmatched) {
		char *note = query_session_data_note(s, k);
		if (!note)
			return cli_oom("describing %s", path);
		fprintf(stderr, "hloscope%s%s: %s\n", command_name ? " " : "", command_name ? command_name : "", note);
		free(note);
	}
	return 0;
}

int cli_note_input(const char *path)
{
	hs_error err = {0};
	struct stat st;
	const char *hash = strrchr(path, '#');
	int rc;

	if (stat(path, &st) != 0 && hash) {
		char *file = strndup(path, (size_t)(hash - path));
		if (!file)
			return cli_oom("noting the input %s", path);
		rc = hs_input_note_path(file, &err);
		free(file);
	} else {
		rc = hs_input_note_path(path, &err);
	}
	return rc < 0 ? cli_report(&err) : 0;
}

int cli_check_output(const char *cmd, const char *opt, const char *out)
{
	hs_error err = {0};

	if (!*out)
		return cli_usage_error(cmd, "%s needs a file name", opt);
	return hs_afile_check(out, &err) < 0 ? cli_report(&err) : 0;
}
