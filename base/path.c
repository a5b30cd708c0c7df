/* path.c - see path.h. */
#include "path.h"

#include <stdlib.h>
#include <string.h>

const char *hs_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

size_t hs_path_stem_len(const char *path)
{
	const char *b = hs_path_base(path);
	const char *dot = strrchr(b, '.');
	return dot && dot != b ? (size_t)(dot - b) : strlen(b);
}

char *hs_path_stem(const char *path)
{
	return strndup(hs_path_base(path), hs_path_stem_len(path));
}

char *hs_path_join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = malloc(na + nb + 2);

	if (s) {
		memcpy(s, a, na);
		s[na] = '/';
		memcpy(s + na + 1, b, nb + 1);
	}
	return s;
}
