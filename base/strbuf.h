/* strbuf.h - a growable, always terminated string.
 *
 *     hs_strbuf b = {0};
 *     hs_strbuf_printf(&b, "%s=%d", name, v);
 *     hs_strbuf_putn(&b, text, n);
 *     if (b.failed) ... out of memory ...
 *     use(hs_strbuf_str(&b));  // "" while empty
 *     hs_strbuf_free(&b);
 *
 * A failed allocation sets `failed` and makes every later call a no-op, so
 * a sequence of appends is checked once at its end.  The text is always
 * NUL-terminated once anything was appended.
 *
 * Over a buffer of the caller's (a fixed one: nothing is allocated):
 *
 *     char buf[64];
 *     hs_strbuf b = hs_strbuf_fixed(buf, sizeof buf);
 *     hs_strbuf_printf(&b, "%s[%d]", type, n);
 *     return b.len;        // as snprintf counts: b.len >= sizeof buf when cut
 *
 * What does not fit is cut (buf stays terminated when its size is not 0);
 * `len` counts the whole text, as snprintf does, and `failed` stays 0.
 */
#ifndef HS_STRBUF_H
#define HS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef struct hs_strbuf {
	char *s;        /* NULL until the first append */
	size_t len, cap;
	int failed;     /* an allocation failed: the text is incomplete */
	int fixed;      /* the caller's buffer of cap bytes: never grown, never freed */
} hs_strbuf;

/* A builder over buf[0, cap) (buf may be NULL when cap is 0: it only counts). */
hs_strbuf hs_strbuf_fixed(char *buf, size_t cap);

void hs_strbuf_printf(hs_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hs_strbuf_vprintf(hs_strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void hs_strbuf_putn(hs_strbuf *b, const char *s, size_t n);
void hs_strbuf_puts(hs_strbuf *b, const char *s);
void hs_strbuf_putc(hs_strbuf *b, char c);
/* A stdio stream that appends what is written to b: fclose it, then read
 * b.  Unlike open_memstream, whose text is silently cut when memory runs
 * out, a write that cannot be kept fails: ferror is set, fclose returns
 * EOF and b->failed is set.  NULL (b->failed set) when the stream cannot
 * be made.  For a library that writes to a FILE * (Graphviz, jsonw). */
FILE *hs_strbuf_open(hs_strbuf *b);
/* Empties it, keeping the memory (and clearing `failed`). */
void hs_strbuf_reset(hs_strbuf *b);
/* The text; "" when nothing was appended. */
const char *hs_strbuf_str(const hs_strbuf *b);
/* Hands the text over (malloc'd; the caller frees it) and empties b; NULL
 * when an allocation failed.  Of a fixed one, a malloc'd copy of what fits. */
char *hs_strbuf_take(hs_strbuf *b);
void hs_strbuf_free(hs_strbuf *b);

#endif
