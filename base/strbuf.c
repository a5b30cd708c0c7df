#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hs_strbuf hs_strbuf_fixed(char *buf, size_t cap)
{
	if (buf && cap)
		buf[0] = '\0';
	return (hs_strbuf){.s = buf && cap ? buf : NULL, .cap = buf ? cap : 0, .fixed = 1};
}

/* Room for `more` bytes and the terminator. */
static int reserve(hs_strbuf *b, size_t more)
{
	if (b->failed || b->fixed)
		return -1;
	if (more >= (size_t)-1 - b->len - 1) {
		b->failed = 1;
		return -1;
	}
	size_t need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->failed = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void hs_strbuf_vprintf(hs_strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	size_t room = b->failed || !b->s || b->len >= b->cap ? 0 : b->cap - b->len;
	int k = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
	if (k < 0) {
		b->failed = !b->fixed;
	} else if (b->fixed) {
		b->len += (size_t)k;      /* vsnprintf cut it and kept it terminated */
	} else if ((size_t)k < room) {
		b->len += (size_t)k;
	} else if (reserve(b, (size_t)k) == 0) {
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
		b->len += (size_t)k;
	}
	va_end(again);
}

void hs_strbuf_printf(hs_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hs_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* The bytes of a fixed one that fit; counted whole. */
static void putn_fixed(hs_strbuf *b, const char *s, size_t n)
{
	if (b->len < b->cap) {
		size_t k = b->cap - b->len - 1 < n ? b->cap - b->len - 1 : n;
		if (k)
			memcpy(b->s + b->len, s, k);
		b->s[b->len + k] = '\0';
	}
	b->len = n > (size_t)-1 - b->len ? (size_t)-1 : b->len + n;
}

void hs_strbuf_putn(hs_strbuf *b, const char *s, size_t n)
{
	if (b->fixed) {
		putn_fixed(b, s, n);
		return;
	}
	if (reserve(b, n) != 0)
		return;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void hs_strbuf_puts(hs_strbuf *b, const char *s)
{
	hs_strbuf_putn(b, s, strlen(s));
}

void hs_strbuf_putc(hs_strbuf *b, char c)
{
	hs_strbuf_putn(b, &c, 1);
}

/* A write that fails returns 0, never -1: glibc takes a cookie's -1 for a
 * count when fwrite hands a large block straight to it, and then copies
 * past the caller's buffer (fopencookie(3): "must not return a negative
 * value"). */
static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	hs_strbuf *b = cookie;

	hs_strbuf_putn(b, buf, n);
	return b->failed ? 0 : (ssize_t)n;
}

FILE *hs_strbuf_open(hs_strbuf *b)
{
	cookie_io_functions_t io = {.write = stream_write};
	FILE *f = b->failed ? NULL : fopencookie(b, "w", io);

	if (!f)
		b->failed = 1;
	return f;
}

void hs_strbuf_reset(hs_strbuf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->s)
		b->s[0] = '\0';
}

const char *hs_strbuf_str(const hs_strbuf *b)
{
	return b->s ? b->s : "";
}

char *hs_strbuf_take(hs_strbuf *b)
{
	if (b->fixed) {
		char *copy = strdup(hs_strbuf_str(b));
		*b = (hs_strbuf){0};
		return copy;
	}
	char *s = b->failed ? NULL : b->s ? b->s : strdup("");
	if (b->failed)
		free(b->s);
	*b = (hs_strbuf){0};
	return s;
}

void hs_strbuf_free(hs_strbuf *b)
{
	if (!b->fixed)
		free(b->s);
	*b = (hs_strbuf){0};
}
