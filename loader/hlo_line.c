#include "hlo_line.h"

#include <string.h>

/* The byte after a string opening at s[i] == '"', or n. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return n;
}

/* The byte after the bracket group opening at s[i], or n. */
static size_t skip_group(const char *s, size_t n, size_t i)
{
	int depth = 0;
	while (i < n) {
		char c = s[i];
		if (c == '"') {
			i = skip_string(s, n, i);
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {   /* comment: skip it whole */
			const char *e = memmem(s + i + 2, n - i - 2, "*/", 2);
			i = e ? (size_t)(e - s) + 2 : n;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return i + 1;
		i++;
	}
	return n;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Where the attributes start: past the operand list; n when there is
 * none to find. */
static size_t after_operands(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	if (!eq)
		return n;
	size_t i = (size_t)(eq - s) + 1;
	while (i < n && blank(s[i]))
		i++;
	if (i < n && s[i] == '(') {            /* a tuple shape */
		i = skip_group(s, n, i);
	} else {                               /* an array shape: no blank in it */
		while (i < n && !blank(s[i])) {
			if (s[i] == '[' || s[i] == '{' || s[i] == '(')
				i = skip_group(s, n, i);
			else
				i++;
		}
	}
	while (i < n && s[i] != '(')           /* the opcode */
		i++;
	return i < n ? skip_group(s, n, i) : n;
}

/* The attribute at or after line[i] (a comma at depth 0 starts it) into
 * *at; returns the position after it, or n when there is none. */
static size_t next_attr(const char *line, size_t n, size_t i, hlo_line_attr *at)
{
	while (i < n) {
		if (line[i] != ',') {
			i++;
			continue;
		}
		size_t a = i + 1;
		while (a < n && blank(line[a]))
			a++;
		size_t e = a;
		while (e < n && line[e] != '=' && line[e] != ',')
			e++;
		size_t v = e + 1, end = v;
		while (end < n && line[end] != ',') {
			if (line[end] == '"')
				end = skip_string(line, n, end);
			else if (line[end] == '{' || line[end] == '[' || line[end] == '(')
				end = skip_group(line, n, end);
			else
				end++;
		}
		if (e < n && line[e] == '=') {
			size_t ne = e, vb = v, ve = end;
			while (ne > a && blank(line[ne - 1]))
				ne--;
			while (vb < ve && blank(line[vb]))
				vb++;
			while (ve > vb && blank(line[ve - 1]))
				ve--;
			*at = (hlo_line_attr){line + a, line + vb, ne - a, ve - vb};
			return end;
		}
		i = end;
	}
	return n;
}

int hlo_line_attrs(const char *line, size_t n, hlo_line_attr *out, int max)
{
	int k = 0;
	for (size_t i = after_operands(line, n); i < n;) {
		hlo_line_attr at = {0};
		i = next_attr(line, n, i, &at);
		if (!at.name)
			break;
		if (out && k < max)
			out[k] = at;
		k++;
	}
	return k;
}

int hlo_line_find_attr(const char *line, size_t n, const char *name, const char **value,
		       size_t *len)
{
	size_t want = strlen(name);
	hlo_line_attr at = {0};
	for (size_t i = after_operands(line, n); i < n;) {
		at.name = NULL;
		i = next_attr(line, n, i, &at);
		if (at.name && at.name_len == want && memcmp(at.name, name, want) == 0) {
			*value = at.value;
			*len = at.value_len;
			return 1;
		}
	}
	return 0;
}
