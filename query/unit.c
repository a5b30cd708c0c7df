/* unit.c - numbers with a unit: what the explorer's columns print ("23.271
 * s", "2.1 GB", "24.6%") and what the query language reads back ("cost <
 * 12 us", "bytes > 2 GB", "share > 5%").  One table of suffixes per kind
 * serves both ways: the formatter picks the largest step a value reaches,
 * the parser accepts every suffix of the kind (and the lexer any suffix of
 * any kind, query_unit_suffix, so that "12us" is one number). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query/query_impl.h"

/* One step of a unit: its suffix, how many base units it holds and how it
 * prints (digits, fixed or significant).  Steps go largest first; `alias`
 * steps are only read, never written. */
struct step {
	const char *suffix;
	double scale;
	int digits, fixed, alias;
};

static const struct step ns_steps[] = {
	{"s", 1e9, 3, 1, 0}, {"ms", 1e6, 3, 1, 0}, {"us", 1e3, 3, 1, 0}, {"ns", 1, 0, 1, 0},
	{"\u00b5s", 1e3, 0, 0, 1}, {"sec", 1e9, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step second_steps[] = {
	{"s", 1, 3, 0, 0}, {"ms", 1e-3, 3, 0, 0}, {"us", 1e-6, 3, 0, 0}, {"ns", 1e-9, 3, 0, 0},
	{"\u00b5s", 1e-6, 0, 0, 1}, {"sec", 1, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step byte_steps[] = {
	{"TB", 1e12, 3, 0, 0}, {"GB", 1e9, 3, 0, 0}, {"MB", 1e6, 3, 0, 0}, {"kB", 1e3, 3, 0, 0},
	{"B", 1, 0, 1, 0}, {"bytes", 1, 0, 0, 1}, {"KiB", 1024.0, 0, 0, 1},
	{"MiB", 1048576.0, 0, 0, 1}, {"GiB", 1073741824.0, 0, 0, 1},
	{"TiB", 1099511627776.0, 0, 0, 1}, {NULL, 0, 0, 0, 0},
};
static const struct step flop_steps[] = {
	{"PFLOP", 1e15, 3, 0, 0}, {"TFLOP", 1e12, 3, 0, 0}, {"GFLOP", 1e9, 3, 0, 0},
	{"MFLOP", 1e6, 3, 0, 0}, {"kFLOP", 1e3, 3, 0, 0}, {"FLOP", 1, 0, 1, 0}, {NULL, 0, 0, 0, 0},
};
static const struct step percent_steps[] = {
	{"%", 1, 1, 1, 0}, {NULL, 0, 0, 0, 0},
};

static const struct {
	const struct step *steps;
	const char *what, *example;
} units[QUERY_NUNITS] = {
	[QUERY_U_NONE] = {NULL, "a number", "12.5"},
	[QUERY_U_NS] = {ns_steps, "a duration", "12 us, 1.5 ms"},
	[QUERY_U_SECONDS] = {second_steps, "a duration", "12 us, 1.5 ms"},
	[QUERY_U_BYTES] = {byte_steps, "a size", "512 B, 2.1 GB"},
	[QUERY_U_FLOP] = {flop_steps, "a FLOP count", "1.5 GFLOP"},
	[QUERY_U_PERCENT] = {percent_steps, "a percentage", "5%"},
};

const char *query_unit_what(int unit)
{
	return unit > 0 && unit < QUERY_NUNITS ? units[unit].what : units[0].what;
}

const char *query_unit_example(int unit)
{
	return unit > 0 && unit < QUERY_NUNITS ? units[unit].example : units[0].example;
}

void query_unit_format(char *buf, size_t cap, int unit, double v)
{
	const struct step *s = unit > 0 && unit < QUERY_NUNITS ? units[unit].steps : NULL, *pick = NULL;

	if (isnan(v)) {
		snprintf(buf, cap, "-");
		return;
	}
	if (!s) {
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, cap, "%.0f", v);
		else
			snprintf(buf, cap, "%.4g", v);
		return;
	}
	if (unit == QUERY_U_SECONDS && v == 0) {
		snprintf(buf, cap, "0");
		return;
	}
	for (; s->suffix; s++) {
		if (s->alias)
			continue;
		pick = s; /* the smallest step when none is reached */
		if (fabs(v) >= s->scale)
			break;
	}
	const char *space = unit == QUERY_U_PERCENT ? "" : " ";
	if (pick->fixed)
		snprintf(buf, cap, "%.*f%s%s", pick->digits, v / pick->scale, space, pick->suffix);
	else
		snprintf(buf, cap, "%.*g%s%s", pick->digits, v / pick->scale, space, pick->suffix);
}

/* The step of `unit` whose suffix is s[0, n) (case-insensitive; "GFLOPs":
 * a FLOP count takes a plural s), or NULL. */
static const struct step *find_step(int unit, const char *s, size_t n)
{
	const struct step *st = unit > 0 && unit < QUERY_NUNITS ? units[unit].steps : NULL;

	if (unit == QUERY_U_FLOP && n > 4 && (s[n - 1] == 's' || s[n - 1] == 'S'))
		n--;
	for (; st && st->suffix; st++)
		if (strlen(st->suffix) == n && !strncasecmp(st->suffix, s, n))
			return st;
	return NULL;
}

int query_unit_parse(const char *s, int unit, double *out)
{
	const struct step *st;
	char *end;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	for (s = end; *s == ' ' || *s == '\t'; s++)
		;
	const char *suffix = s;
	while (s[n] && s[n] != ' ' && s[n] != '\t')
		n++;
	for (s += n; *s == ' ' || *s == '\t'; s++)
		;
	if (*s)
		return -1; /* more words */
	if (!n) {
		*out = v;
		return 0;
	}
	if (!(st = find_step(unit, suffix, n)))
		return -1;
	*out = v * st->scale;
	return 0;
}

size_t query_unit_suffix(const char *s, size_t n)
{
	size_t k = 0;

	if (n && s[0] == '%')
		return 1;
	/* letters and the micro sign (U+00B5, two bytes) */
	while (k < n && (((s[k] | 32) >= 'a' && (s[k] | 32) <= 'z') ||
			 ((unsigned char)s[k] == 0xc2 && k + 1 < n && (unsigned char)s[k + 1] == 0xb5)))
		k += (unsigned char)s[k] == 0xc2 ? 2 : 1;
	if (k == 0 || (k < n && (s[k] == '_' || (s[k] >= '0' && s[k] <= '9'))))
		return 0; /* a word goes on: not a unit */
	for (int u = 1; u < QUERY_NUNITS; u++)
		if (find_step(u, s, k))
			return k;
	return 0;
}
