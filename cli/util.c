#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/parse.h"
#include "cli/commands.h"
#include "query/query.h"

const char *cli_command_usage(const char *name);

static const char *command_name; /* the running subcommand, or NULL */

void cli_set_command(const char *name)
{
	command_name = name;
}

int cli_report(const hs_error *err)
{
	fprintf(stderr, "hloscope%s%s: %s\n", command_name ? " " : "", command_name ? command_name : "",
		err->msg[0] ? err->msg : "unknown error");
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
