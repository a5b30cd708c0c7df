/* plural.c - see plural.h. */
#include "base/plural.h"

const char *hs_s(long long n)
{
	return hs_plural(n, "", "s");
}

const char *hs_plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
