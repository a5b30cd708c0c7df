/* escape.h - text read from a file, made safe to show on a terminal.
 *
 * A name, a message or a label read from input may hold bytes a terminal
 * acts on: ESC starts a sequence that can retitle or clear it, BEL rings,
 * CR goes back over the line, and so on.  Every output meant for a
 * terminal (tables, reports, messages, the explorer, the terminal drawing)
 * shows each such byte as `\xNN`, a backslash, x and two lowercase hex
 * digits, as `ls` and `git` make them visible:
 *
 *   - C0 controls 0x00-0x1f (TAB and LF too, unless HS_ESC_TEXT) and DEL;
 *   - C1 controls U+0080..U+009F, in UTF-8 0xc2 0x80..0x9f: both bytes;
 *   - every byte of invalid UTF-8 (a stray continuation byte, a cut or
 *     overlong sequence, a surrogate, a code point past U+10FFFF).
 *
 * Everything else is left as it is: printable ASCII, a backslash, and valid
 * UTF-8 of any width.  So "conv\x1b[2J" stands for the bytes
 * c o n v ESC [ 2 J, while a name that already reads "\x1b" (four
 * characters) is shown the same: the form is for the eye, not a round
 * trip (JSON and CSV keep the exact text; see base/jsonw.h, base/csv.h).
 *
 * The common case costs one scan: a text that needs nothing is used as it
 * is (hs_escaped returns its argument, hs_fputs_escaped writes it at once).
 */
#ifndef HS_ESCAPE_H
#define HS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include "base/strbuf.h"

enum hs_esc_mode {
	HS_ESC_NAME = 0, /* a name, a cell, a label: every control escaped */
	HS_ESC_TEXT = 1, /* lines of text (a message, a report): LF and TAB kept */
};

/* The length of the UTF-8 character at s[0, n) (n >= 1): 1-4; 1 with *bad
 * set when s[0] is a byte to escape (a control, or not the start of a
 * valid character). */
size_t hs_esc_char(const char *s, size_t n, int mode, int *bad);

/* The escaped form of one byte, "\x1b" for ESC, into out (terminated). */
void hs_esc_byte(unsigned char c, char out[5]);

/* The length of the longest start of s[0, n) that needs no escaping: n
 * when none of it does. */
size_t hs_esc_span(const char *s, size_t n, int mode);

/* The length of s[0, n) escaped. */
size_t hs_esc_len(const char *s, size_t n, int mode);

/* Appends s[0, n) escaped to b (a fixed one cuts it, see base/strbuf.h). */
void hs_strbuf_escaped(hs_strbuf *b, const char *s, size_t n, int mode);

/* s itself when it needs no escaping (no copy); else its escaped form in
 * tmp (emptied first), valid until tmp changes; when memory runs out for
 * that, "?" (never the raw text). */
const char *hs_escaped(const char *s, hs_strbuf *tmp, int mode);

/* Writes s[0, n) escaped to out, allocating nothing.  0, or EOF when a
 * write failed. */
int hs_fwrite_escaped(FILE *out, const char *s, size_t n, int mode);
int hs_fputs_escaped(FILE *out, const char *s, int mode);

/* A stream that writes what it is given to `under`, escaped as mode says
 * (a character cut between two writes is joined first), flushing `under`
 * after each of its own writes so nothing waits in two buffers.  Closing
 * it writes what it holds and leaves `under` open.  A write error of
 * `under` is the stream's (ferror, fclose returns EOF).  NULL when it
 * cannot be made (out of memory): the caller says so. */
FILE *hs_esc_open(FILE *under, int mode);

#endif
