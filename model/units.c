/* units.c - see units.h. */
#include "model/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"

static void write(char *buf, size_t cap, double ns, int decimals, int sign)
{
	double a = fabs(ns);
	const char *s = sign ? (ns > 0 ? "+" : ns < 0 ? "-" : "") : (ns < 0 ? "-" : "");

	if (isnan(ns))
		snprintf(buf, cap, "-");
	else if (a >= 1e9)
		snprintf(buf, cap, "%s%.*f s", s, decimals, a / 1e9);
	else if (a >= 1e6)
		snprintf(buf, cap, "%s%.*f ms", s, decimals, a / 1e6);
	else if (a >= 1e3)
		snprintf(buf, cap, "%s%.*f us", s, decimals, a / 1e3);
	else if (a >= 1 || a == 0)
		snprintf(buf, cap, "%s%.0f ns", s, a);
	else
		snprintf(buf, cap, "%s%.2g ns", s, a);
}

void units_ns(char *buf, size_t cap, double ns, int decimals)
{
	write(buf, cap, ns, decimals, 0);
}

void units_ns_signed(char *buf, size_t cap, double ns, int decimals)
{
	write(buf, cap, ns, decimals, 1);
}

int units_decimals(const double *v, size_t n, int lo, int hi)
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
			units_ns(a, sizeof a, s[i - 1], d);
			units_ns(b, sizeof b, s[i], d);
			clash = strcmp(a, b) == 0;
		}
		if (!clash)
			break;
	}
	if (s != few)
		free(s);
	return d;
}
