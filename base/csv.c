#include "csv.h"

#include <string.h>

void csv_write_field(FILE *out, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n)
		return;
	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && s[n - 1] != ' ') {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
