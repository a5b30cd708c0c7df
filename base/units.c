/* units.c - see units.h.  One table of steps per unit serves both ways:
 * the formatter picks the largest step a value reaches, the parser takes
 * every suffix of the unit, aliases too. */
#include "base/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cmp.h"

/* A step of a unit, largest first: its suffix and how many base units it
 * holds.  The last written step is the smallest (whole numbers); `alias`
 * steps are only read. */
struct step {
	const char *suffix;
	double scale;
	int alias;
};

static const struct step ns_steps[] = {
	{"s", 1e9, 0}, {"ms", 1e6, 0}, {"us", 1e3, 0}, {"ns", 1, 0},
	{"\u00b5s", 1e3, 1}, {"sec", 1e9, 1}, {NULL, 0, 0},
};
static const struct step second_steps[] = {
	{"s", 1, 0}, {"ms", 1e-3, 0}, {"us", 1e-6, 0}, {"ns", 1e-9, 0},
	{"\u00b5s", 1e-6, 1}, {"sec", 1, 1}, {NULL, 0, 0},
};
static const struct step byte_steps[] = {
	{"TB", 1e12, 0}, {"GB", 1e9, 0}, {"MB", 1e6, 0}, {"kB", 1e3, 0}, {"B", 1, 0},
	{"bytes", 1, 1}, {"KiB", 1024.0, 1}, {"MiB", 1048576.0, 1}, {"GiB", 1073741824.0, 1},
	{"TiB", 1099511627776.0, 1}, {NULL, 0, 0},
};
static const struct step flop_steps[] = {
	{"PFLOP", 1e15, 0}, {"TFLOP", 1e12, 0}, {"GFLOP", 1e9, 0}, {"MFLOP", 1e6, 0},
	{"kFLOP", 1e3, 0}, {"FLOP", 1, 0}, {NULL, 0, 0},
};
static const struct step percent_steps[] = {
	{"%", 1, 0}, {NULL, 0, 0},
};

/* Each unit's steps and default: `sig` significant digits in every step,
 * or (sig 0) `fixed` decimals above the smallest step. */
static const struct unit {
	const struct step *steps;
	int sig, fixed;
	const char *what, *example;
} units[HS_NUNITS] = {
	[HS_U_NONE] = {NULL, 4, 0, "a number", "12.5"},
	[HS_U_NS] = {ns_steps, 0, 3, "a duration", "12 us, 1.5 ms"},
	[HS_U_SECONDS] = {second_steps, 3, 0, "a duration", "12 us, 1.5 ms"},
	[HS_U_BYTES] = {byte_steps, 3, 0, "a size", "512 B, 2.1 GB"},
	[HS_U_FLOP] = {flop_steps, 3, 0, "a FLOP count", "1.5 GFLOP"},
	[HS_U_PERCENT] = {percent_steps, 0, 1, "a percentage", "5%"},
};

static const struct unit *unit_of(int unit)
{
	return &units[unit > 0 && unit < HS_NUNITS ? unit : 0];
}

/* |v| >= 0 (not NaN) after the sign `sign`. */
static int write_abs(char *buf, size_t cap, const struct unit *u, double a, int decimals, const char *sign)
{
	if (!u->steps) {
		if (decimals >= 0)
			return snprintf(buf, cap, "%s%.*f", sign, decimals, a);
		if (a == floor(a) && a < 1e15)
			return snprintf(buf, cap, "%s%.0f", sign, a);
		return snprintf(buf, cap, "%s%.*g", sign, u->sig, a);
	}
	const struct step *s = u->steps, *pick = s;
	int smallest = 0;
	for (; s->suffix && !s->alias; s++) {
		pick = s;
		smallest = !s[1].suffix || s[1].alias;
		if (a >= s->scale)
			break;
	}
	double x = a / pick->scale;
	if (u->steps == percent_steps)
		return snprintf(buf, cap, "%s%.*f%%", sign, decimals < 0 ? u->fixed : decimals, x);
	if (x != 0 && x < 1)   /* below the smallest step */
		return snprintf(buf, cap, "%s%.3g %s", sign, x, pick->suffix);
	if (decimals < 0 && u->sig)
		return snprintf(buf, cap, "%s%.*g %s", sign, u->sig, x, pick->suffix);
	return snprintf(buf, cap, "%s%.*f %s", sign, smallest ? 0 : decimals < 0 ? u->fixed : decimals, x,
			pick->suffix);
}

int hs_unit_format(char *buf, size_t cap, int unit, double v, int decimals)
{
	if (isnan(v))
		return snprintf(buf, cap, "-");
	return write_abs(buf, cap, unit_of(unit), fabs(v), decimals, v < 0 ? "-" : "");
}

int hs_unit_format_signed(char *buf, size_t cap, int unit, double v, int decimals)
{
	if (isnan(v))
		return snprintf(buf, cap, "-");
	return write_abs(buf, cap, unit_of(unit), fabs(v), decimals, v > 0 ? "+" : v < 0 ? "-" : "");
}

int hs_unit_decimals(int unit, const double *v, size_t n, int lo, int hi)
{
	double few[64], *s = n <= 64 ? few : malloc(n * sizeof *s);
	size_t m = 0;
	int d;

	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = v[i];
	qsort(s, m, sizeof *s, hs_cmp_double);
	for (d = lo; d < hi; d++) {
		int clash = 0;
		char a[64], b[64];

		for (size_t i = 1; i < m && !clash; i++) {
			if (s[i] == s[i - 1])
				continue;
			hs_unit_format(a, sizeof a, unit, s[i - 1], d);
			hs_unit_format(b, sizeof b, unit, s[i], d);
			clash = strcmp(a, b) == 0;
		}
		if (!clash)
			break;
	}
	if (s != few)
		free(s);
	return d;
}

/* ---- reading ---------------------------------------------------------------- */

const char *hs_unit_what(int unit)
{
	return unit_of(unit)->what;
}

const char *hs_unit_example(int unit)
{
	return unit_of(unit)->example;
}

/* The step of `unit` whose suffix is s[0, n) (case-insensitive; "GFLOPs":
 * a FLOP count takes a plural s), or NULL. */
static const struct step *find_step(int unit, const char *s, size_t n)
{
	const struct step *st = unit_of(unit)->steps;

	if (unit == HS_U_FLOP && n > 4 && (s[n - 1] == 's' || s[n - 1] == 'S'))
		n--;
	for (; st && st->suffix; st++)
		if (strlen(st->suffix) == n && !strncasecmp(st->suffix, s, n))
			return st;
	return NULL;
}

int hs_unit_parse(const char *s, int unit, double *out)
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

size_t hs_unit_suffix(const char *s, size_t n)
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
	for (int u = 1; u < HS_NUNITS; u++)
		if (find_step(u, s, k))
			return k;
	return 0;
}

/* ---- plain numbers -------------------------------------------------------------- */

int hs_num_thousands(char *buf, size_t cap, int64_t v)
{
	char d[32], out[48];
	int n = snprintf(d, sizeof d, "%" PRId64, v), o = 0;

	for (int i = 0; i < n; i++) {
		if (i > 0 && d[i - 1] != '-' && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = d[i];
	}
	out[o] = '\0';
	return snprintf(buf, cap, "%s", out);
}

/* NaN, the infinities and integers: their text; else -1. */
static int special(char *buf, size_t cap, double v)
{
	if (isnan(v))
		return snprintf(buf, cap, "nan");
	if (isinf(v))
		return snprintf(buf, cap, v < 0 ? "-inf" : "inf");
	if (v == floor(v) && fabs(v) < 1e15)
		return snprintf(buf, cap, "%.0f", v == 0 ? 0.0 : v);
	return -1;
}

int hs_num_exact(char *buf, size_t cap, double v)
{
	char t[32];
	int n = special(t, sizeof t, v);

	for (int prec = 15; n < 0 && prec <= 17; prec++) {
		snprintf(t, sizeof t, "%.*g", prec, v);
		if (strtod(t, NULL) == v || prec == 17)
			n = 0;
	}
	return snprintf(buf, cap, "%s", t);
}

int hs_num_short(char *buf, size_t cap, double v)
{
	int n = special(buf, cap, v);

	return n >= 0 ? n : snprintf(buf, cap, "%.6g", v);
}
