/* escape.c - the terminal escaper: see escape.h. */
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { CH_OK, CH_BAD, CH_CUT };

/* The UTF-8 character at u[0, n) (n >= 1): CH_OK with *len its length,
 * CH_BAD (u[0] is to be escaped) or CH_CUT (a valid start that n ends
 * before its last byte).  C1 controls (0xc2 0x80..0x9f) are CH_BAD. */
static int decode(const unsigned char *u, size_t n, int mode, size_t *len)
{
	unsigned c = u[0], lo = 0x80, hi = 0xbf;
	size_t k;

	*len = 1;
	if (c < 0x80) {
		if ((c >= 0x20 && c != 0x7f) || (mode == HS_ESC_TEXT && (c == '\n' || c == '\t')))
			return CH_OK;
		return CH_BAD;
	}
	if (c < 0xc2 || c > 0xf4)
		return CH_BAD;  /* a continuation byte, an overlong start, past U+10FFFF */
	if (c < 0xe0) {
		k = 2;
		lo = c == 0xc2 ? 0xa0 : 0x80; /* U+0080..U+009F are the C1 controls */
	} else if (c < 0xf0) {
		k = 3;
		if (c == 0xe0)
			lo = 0xa0;      /* overlong */
		else if (c == 0xed)
			hi = 0x9f;      /* surrogates */
	} else {
		k = 4;
		if (c == 0xf0)
			lo = 0x90;      /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;      /* past U+10FFFF */
	}
	for (size_t i = 1; i < k; i++) {
		if (i >= n)
			return CH_CUT;
		unsigned b = u[i];
		if (i == 1 ? b < lo || b > hi : (b & 0xc0) != 0x80)
			return CH_BAD;
	}
	*len = k;
	return CH_OK;
}

size_t hs_esc_char(const char *s, size_t n, int mode, int *bad)
{
	size_t len;

	*bad = decode((const unsigned char *)s, n, mode, &len) != CH_OK;
	return *bad ? 1 : len;
}

size_t hs_esc_span(const char *s, size_t n, int mode)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			i++;
			continue;
		}
		if (decode(u + i, n - i, mode, &len) != CH_OK)
			break;
		i += len;
	}
	return i;
}

void hs_esc_byte(unsigned char c, char out[5])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	out[4] = '\0';
}

/* Walks s[0, n): clean runs and escapes, each given to emit (text, length,
 * ctx).  Stops early when emit returns nonzero, and returns that. */
typedef int (*emit_fn)(const char *text, size_t len, void *ctx);

static int walk(const char *s, size_t n, int mode, emit_fn emit, void *ctx)
{
	size_t i = 0;

	while (i < n) {
		size_t run = hs_esc_span(s + i, n - i, mode);
		int rc;
		if (run && (rc = emit(s + i, run, ctx)) != 0)
			return rc;
		i += run;
		if (i == n)
			break;
		char e[5];
		hs_esc_byte((unsigned char)s[i++], e);
		if ((rc = emit(e, 4, ctx)) != 0)
			return rc;
	}
	return 0;
}

static int count(const char *text, size_t len, void *ctx)
{
	(void)text;
	*(size_t *)ctx += len;
	return 0;
}

size_t hs_esc_len(const char *s, size_t n, int mode)
{
	size_t total = 0;

	walk(s, n, mode, count, &total);
	return total;
}

static int to_strbuf(const char *text, size_t len, void *ctx)
{
	hs_strbuf_putn(ctx, text, len);
	return 0;
}

void hs_strbuf_escaped(hs_strbuf *b, const char *s, size_t n, int mode)
{
	walk(s, n, mode, to_strbuf, b);
}

const char *hs_escaped(const char *s, hs_strbuf *tmp, int mode)
{
	size_t n = strlen(s);

	if (hs_esc_span(s, n, mode) == n)
		return s;
	hs_strbuf_reset(tmp);
	hs_strbuf_escaped(tmp, s, n, mode);
	return tmp->failed ? "?" : hs_strbuf_str(tmp);
}

static int to_file(const char *text, size_t len, void *ctx)
{
	return fwrite(text, 1, len, ctx) == len ? 0 : EOF;
}

int hs_fwrite_escaped(FILE *out, const char *s, size_t n, int mode)
{
	return walk(s, n, mode, to_file, out);
}

int hs_fputs_escaped(FILE *out, const char *s, int mode)
{
	return walk(s, strlen(s), mode, to_file, out);
}

/* ---- the escaping stream ------------------------------------------- */

struct esc_stream {
	FILE *under;
	int mode;
	unsigned char carry[4]; /* the start of a character cut by the last write */
	size_t ncarry;
};

/* Writes what the carry holds that is decided: characters as they are,
 * bad bytes escaped; a cut start stays unless `final`.  0 or EOF. */
static int drain(struct esc_stream *e, int final)
{
	while (e->ncarry) {
		size_t len;
		int st = decode(e->carry, e->ncarry, e->mode, &len);
		if (st == CH_CUT && !final)
			return 0;
		if (st != CH_OK)
			len = 1;
		if (hs_fwrite_escaped(e->under, (const char *)e->carry, len, e->mode) != 0)
			return EOF;
		memmove(e->carry, e->carry + len, e->ncarry - len);
		e->ncarry -= len;
	}
	return 0;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct esc_stream *e = cookie;
	size_t i = 0;

	/* a character cut by the last write: completed (or refuted) byte by byte */
	while (e->ncarry && i < n) {
		e->carry[e->ncarry++] = (unsigned char)buf[i++];
		if (drain(e, 0) != 0)
			return -1;
	}
	if (i < n) {
		/* hold back a cut character at the end: the next write completes it */
		size_t end = n, start = n > 3 ? n - 3 : i, len;
		for (size_t j = start < i ? i : start; j < n; j++)
			if (decode((const unsigned char *)buf + j, n - j, e->mode, &len) == CH_CUT) {
				end = j;
				break;
			}
		if (hs_fwrite_escaped(e->under, buf + i, end - i, e->mode) != 0)
			return -1;
		memcpy(e->carry, buf + end, n - end);
		e->ncarry = n - end;
	}
	if (fflush(e->under) != 0 || ferror(e->under))
		return -1;
	return (ssize_t)n;
}

static int stream_close(void *cookie)
{
	struct esc_stream *e = cookie;
	int rc = drain(e, 1);

	if (fflush(e->under) != 0)
		rc = EOF;
	free(e);
	return rc;
}

FILE *hs_esc_open(FILE *under, int mode)
{
	cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
	struct esc_stream *e = calloc(1, sizeof *e);
	FILE *f;

	if (!e)
		return NULL;
	e->under = under;
	e->mode = mode;
	f = fopencookie(e, "w", io);
	if (!f)
		free(e);
	return f;
}
