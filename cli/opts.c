/* opts.c - see opts.h: the command line read from a command's option
 * table, and its --help printed from the same table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "model/machine.h"

const char *const cli_merge_words[] = {"none", "sum", "first", "last", NULL};

#define HELP_COLUMN 23 /* where an option's explanation starts */

/* `text` with each line after the first indented to the explanations'
 * column. */
static void print_lines(FILE *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		if (p != text)
			fprintf(out, "%*s", HELP_COLUMN, "");
		fprintf(out, "%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* "  -m, --model MODEL   predictions ..." */
static void print_opt(FILE *out, const cli_opt *o)
{
	char label[96];
	size_t n = (size_t)snprintf(label, sizeof label, "  %s", o->sub ? "  " : "");

	for (const char *p = o->name; *p && n < sizeof label;) {
		size_t k = strcspn(p, "|");
		n += (size_t)snprintf(label + n, sizeof label - n, "%s%.*s", p == o->name ? "" : ", ", (int)k, p);
		p += k + (p[k] == '|');
	}
	if (o->arg && n < sizeof label)
		n += (size_t)snprintf(label + n, sizeof label - n, " %s", o->arg);
	if (n + 2 > HELP_COLUMN)
		fprintf(out, "%s  ", label);
	else
		fprintf(out, "%-*s", HELP_COLUMN, label);
	print_lines(out, o->help ? o->help : "");
}

static void print_help(const cli_spec *spec)
{
	const char *about = spec->about ? spec->about : "";
	size_t n = strlen(about);

	printf("usage: hloscope %s %s\n\n%s%s\n", spec->name, cli_command_usage(spec->name), about,
	       n && about[n - 1] != '\n' ? "\n" : "");
	for (const cli_opt *o = spec->opts; o && (o->name || o->help); o++)
		if (o->kind == CLI_TEXT)
			printf("%s\n", o->help);
		else
			print_opt(stdout, o);
}

/* The entry `arg` names, one of its '|'-separated names or, for a long
 * one, NAME=VALUE; *len is the length of the name in arg.  NULL when none
 * does. */
static const cli_opt *find(const cli_opt *opts, const char *arg, size_t *len)
{
	size_t whole = strlen(arg), before = strcspn(arg, "=");

	for (const cli_opt *o = opts; o && (o->name || o->help); o++) {
		if (o->kind == CLI_TEXT)
			continue;
		for (const char *p = o->name; *p;) {
			size_t k = strcspn(p, "|");
			if ((k == whole || (k == before && p[1] == '-')) && !strncmp(p, arg, k)) {
				*len = k;
				return o;
			}
			p += k + (p[k] == '|');
		}
	}
	return NULL;
}

/* "a, b or c" of a NULL-terminated list. */
static void join_words(const char *const *w, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; w[i] && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : w[i + 1] ? ", " : " or ", w[i]);
}

/* A whole number into o's integer; 0, or the exit status. */
static int store_int(const char *cmd, const cli_opt *o, const char *opt, const char *v)
{
	int64_t x;

	if (hs_parse_i64(v, &x) < 0)
		return cli_usage_error(cmd, "%s needs a number, not '%s'", opt, v);
	if (x < o->min || (o->max && x > o->max)) {
		if (o->max)
			return cli_usage_error(cmd, "%s must be %lld to %lld, not %s", opt, o->min, o->max, v);
		return cli_usage_error(cmd, "%s must be %lld or more, not %s", opt, o->min, v);
	}
	if (o->kind == CLI_INT) {
		int i = (int)x;
		memcpy(o->dst, &i, sizeof i);
	} else {
		memcpy(o->dst, &x, sizeof x); /* any 8-byte integer type */
	}
	return 0;
}

/* The value v of option o (typed as opt).  0, or the exit status. */
static int store(const cli_spec *spec, const cli_opt *o, const char *opt, const char *v, int argc)
{
	const char *cmd = spec->name;

	switch (o->kind) {
	case CLI_STR:
		*(const char **)o->dst = v;
		return 0;
	case CLI_STRS: {
		cli_strs *s = o->dst;
		if (!s->v && !(s->v = calloc((size_t)argc, sizeof *s->v)))
			return cli_oom("reading the arguments");
		s->v[s->n++] = v;
		return 0;
	}
	case CLI_INT:
	case CLI_INT64:
		return store_int(cmd, o, opt, v);
	case CLI_NUMBER:
		if (hs_parse_double(v, o->dst) < 0)
			return cli_usage_error(cmd, "%s needs a number, not '%s'", opt, v);
		return 0;
	case CLI_WORD:
		for (int i = 0; o->words[i]; i++)
			if (!strcmp(v, o->words[i])) {
				int x = o->vals ? o->vals[i] : i;
				memcpy(o->dst, &x, sizeof x);
				return 0;
			}
		char list[256];
		join_words(o->words, list, sizeof list);
		return cli_usage_error(cmd, "%s must be %s, not '%s'", opt, list, v);
	case CLI_CALL:
		return o->call(o->dst, opt, v);
	default:
		return 0;
	}
}

/* An argument that is not an option: to the operand function, or kept. */
static int operand(const cli_spec *spec, cli_args *args, char *a)
{
	if (spec->operand)
		return spec->operand(spec->operand_ctx, a);
	if (spec->max_args >= 0 && args->n >= spec->max_args) {
		if (spec->extra)
			return cli_usage_error(spec->name, "unexpected argument '%s' (%s)", a, spec->extra);
		return cli_usage_error(spec->name, "unexpected argument '%s'", a);
	}
	args->v[args->n++] = a;
	return 0;
}

/* An option: '-' and a letter ("-5" and "-" are operands). */
static int is_option(const char *a)
{
	return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9');
}

int cli_parse(const cli_spec *spec, int argc, char **argv, cli_args *args)
{
	int rc, only_operands = 0;

	args->v = argv + 1;
	args->n = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help(spec);
			return -1;
		}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], opt[64];
		size_t len;
		const cli_opt *o;

		if (only_operands || !is_option(a)) {
			if ((rc = operand(spec, args, a)) != 0)
				return rc;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_operands = 1;
			continue;
		}
		if (!(o = find(spec->opts, a, &len)))
			return cli_usage_error(spec->name, "unknown option '%s' (see hloscope %s --help)", a,
					       spec->name);
		snprintf(opt, sizeof opt, "%.*s", (int)len, a);
		const char *v = a[len] == '=' ? a + len + 1 : NULL;
		if (o->kind == CLI_FLAG || o->kind == CLI_SET) {
			if (v)
				return cli_usage_error(spec->name, "%s takes no value", opt);
			*(int *)o->dst = o->kind == CLI_FLAG ? 1 : o->val;
			continue;
		}
		if (o->kind == CLI_PAIR) {
			if (v || i + 2 >= argc)
				return cli_usage_error(spec->name, "%s needs two values", opt);
			((const char **)o->dst)[0] = argv[i + 1];
			((const char **)o->dst)[1] = argv[i + 2];
			i += 2;
			continue;
		}
		if (!v && i + 1 >= argc)
			return cli_usage_error(spec->name, "%s needs a value", opt);
		if ((rc = store(spec, o, opt, v ? v : argv[++i], argc)) != 0)
			return rc;
	}
	return 0;
}

int cli_machine_opt(void *dst, const char *opt, const char *v)
{
	const cost_machine *m = machine_find(v);
	char names[256];

	if (!m) {
		hs_error err = {0};
		machine_names(names, sizeof names);
		hs_fail(&err, HS_EUSAGE, "%s: unknown machine '%s' (machines: %s)", opt, v, names);
		return cli_report(&err);
	}
	machine_override(m);
	return 0;
}
