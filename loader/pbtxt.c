/* pbtxt.c - the protobuf text format read field by field (pbtxt.h). */
#include "pbtxt.h"

#include <ctype.h>
#include <string.h>

#include "base/strbuf.h"

typedef struct px {
	const char *s, *name;
	size_t n, i;
	pbtxt_fn fn;
	void *ctx;
	hs_error *err;
	hs_strbuf path, val;
} px;

static void skip(px *p)
{
	while (p->i < p->n) {
		char c = p->s[p->i];
		if (c == '#')
			while (p->i < p->n && p->s[p->i] != '\n')
				p->i++;
		else if (isspace((unsigned char)c))
			p->i++;
		else
			return;
	}
}

static int fail(px *p, const char *expected)
{
	int line = 1, col = 1;
	for (size_t k = 0; k < p->i && k < p->n; k++, col++)
		if (p->s[k] == '\n')
			line++, col = 0;
	size_t len = 0;
	while (p->i + len < p->n && len < 24 && !isspace((unsigned char)p->s[p->i + len]))
		len++;
	if (p->i >= p->n || !len)
		return hs_fail(p->err, HS_EDATA, "%s:%d:%d: %s expected, found %s", p->name, line, col, expected,
			       p->i >= p->n ? "the end" : "the line's end");
	return hs_fail(p->err, HS_EDATA, "%s:%d:%d: %s expected, found '%.*s'", p->name, line, col, expected, (int)len,
		       p->s + p->i);
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '+';
}

static int oom(px *p)
{
	return hs_fail(p->err, HS_ENOMEM, "%s: out of memory", p->name);
}

/* One escape after '\' at p->i, into p->val. */
static void unescape(px *p)
{
	static const char from[] = "ntrabfv\\'\"?", to[] = "\n\t\r\a\b\f\v\\'\"?";
	char c = p->s[p->i++];
	const char *k = strchr(from, c);
	int v = 0, d = 0;
	if (c && k) {
		hs_strbuf_putc(&p->val, to[k - from]);
	} else if (c == 'x') {
		while (d < 2 && p->i < p->n && isxdigit((unsigned char)p->s[p->i]))
			v = v * 16 + (isdigit((unsigned char)p->s[p->i]) ? p->s[p->i] - '0' : (p->s[p->i] | 32) - 'a' + 10),
			p->i++, d++;
		hs_strbuf_putc(&p->val, (char)v);
	} else if (c >= '0' && c <= '7') {
		for (v = c - '0'; d < 2 && p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '7'; d++)
			v = v * 8 + (p->s[p->i++] - '0');
		hs_strbuf_putc(&p->val, (char)v);
	} else {
		hs_strbuf_putc(&p->val, c);
	}
}

/* A scalar at p->i into p->val: strings (joined) or a word. */
static int scalar(px *p)
{
	hs_strbuf_reset(&p->val);
	if (p->i < p->n && (p->s[p->i] == '"' || p->s[p->i] == '\'')) {
		while (p->i < p->n && (p->s[p->i] == '"' || p->s[p->i] == '\'')) {
			char q = p->s[p->i++];
			while (p->i < p->n && p->s[p->i] != q && p->s[p->i] != '\n') {
				if (p->s[p->i] == '\\' && p->i + 1 < p->n)
					p->i++, unescape(p);
				else
					hs_strbuf_putc(&p->val, p->s[p->i++]);
			}
			if (p->i >= p->n || p->s[p->i] != q)
				return fail(p, "the string's closing quote");
			p->i++;
			skip(p);
		}
	} else {
		size_t at = p->i;
		while (p->i < p->n && word_char(p->s[p->i]))
			p->i++;
		if (p->i == at)
			return fail(p, "a value");
		hs_strbuf_putn(&p->val, p->s + at, p->i - at);
	}
	if (p->val.failed)
		return oom(p);
	return p->fn(p->ctx, hs_strbuf_str(&p->path), hs_strbuf_str(&p->val), p->val.len, p->err) ? -1 : 0;
}

static int message(px *p, char close, int depth);

/* A value of the field at p->path: a message, a scalar, or a list. */
static int value(px *p, int colon, int depth)
{
	char c = p->i < p->n ? p->s[p->i] : '\0';
	if (c == '{' || c == '<') {
		if (depth >= PBTXT_MAX_DEPTH)
			return fail(p, "messages nested at most 64 deep: a value");
		p->i++;
		if (p->fn(p->ctx, hs_strbuf_str(&p->path), NULL, 0, p->err))
			return -1;
		return message(p, c == '{' ? '}' : '>', depth + 1);
	}
	if (!colon)
		return fail(p, "':' or '{'");
	if (c != '[')
		return scalar(p);
	for (p->i++, skip(p); p->i < p->n && p->s[p->i] != ']';) {
		if (value(p, 1, depth))
			return -1;
		skip(p);
		if (p->i < p->n && p->s[p->i] == ',')
			p->i++, skip(p);
		else if (p->i < p->n && p->s[p->i] != ']')
			return fail(p, "',' or ']'");
	}
	if (p->i >= p->n)
		return fail(p, "']'");
	p->i++;
	return 0;
}

static int message(px *p, char close, int depth)
{
	for (;;) {
		skip(p);
		if (p->i >= p->n)
			return close ? fail(p, close == '}' ? "'}'" : "'>'") : 0;
		if (close && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		size_t at = p->i, mark = p->path.len;
		while (p->i < p->n && (isalnum((unsigned char)p->s[p->i]) || p->s[p->i] == '_'))
			p->i++;
		if (p->i == at)
			return fail(p, "a field name");
		if (mark)
			hs_strbuf_putc(&p->path, '.');
		hs_strbuf_putn(&p->path, p->s + at, p->i - at);
		if (p->path.failed)
			return oom(p);
		skip(p);
		int colon = p->i < p->n && p->s[p->i] == ':';
		if (colon)
			p->i++, skip(p);
		if (value(p, colon, depth))
			return -1;
		skip(p);
		if (p->i < p->n && (p->s[p->i] == ',' || p->s[p->i] == ';'))
			p->i++;
		p->path.len = mark; /* back to the enclosing message's path */
		p->path.s[mark] = '\0';
	}
}

int pbtxt_read(const char *text, size_t n, const char *name, pbtxt_fn fn, void *ctx, hs_error *err)
{
	px p = {.s = text, .name = name, .n = n, .fn = fn, .ctx = ctx, .err = err};
	int rc = message(&p, '\0', 0);
	hs_strbuf_free(&p.path);
	hs_strbuf_free(&p.val);
	return rc;
}
