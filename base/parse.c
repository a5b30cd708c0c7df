#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int hs_parse_i64n(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0, limit;

	if (!s)
		return -1;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i == n)
		return -1;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9 || v > (limit - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int hs_parse_i64(const char *s, int64_t *out)
{
	return s ? hs_parse_i64n(s, strlen(s), out) : -1;
}

int hs_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	/* strtod also takes leading spaces, inf, nan and hex floats: only
	 * a sign, digits, a point and an exponent are numbers here. */
	if (strspn(s, "+-0123456789.eE") != strlen(s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
