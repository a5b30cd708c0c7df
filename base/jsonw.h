/* jsonw.h - a small streaming JSON writer (used by every --json output).
 *
 * It tracks nesting so commas come out right; keys and strings are escaped.
 * Non-finite numbers are written as null, since JSON has no NaN.
 *
 * The contract: a document is one value; inside an object a key comes before
 * each value, inside an array values come alone; every begin has its end;
 * nesting goes at most JSONW_MAX_DEPTH levels deep.  The first call that
 * breaks it sets a sticky error and the writer writes nothing more, so a
 * broken document is never passed off as a whole one: jsonw_finish reports
 * it, and reports a write error of the stream as well.  The writer does not
 * own the stream.
 */
#ifndef HS_JSONW_H
#define HS_JSONW_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

#define JSONW_MAX_DEPTH 63

typedef struct jsonw {
	FILE *out;
	int depth;
	int pretty;
	unsigned char first[JSONW_MAX_DEPTH + 1];  /* per level: nothing written yet */
	unsigned char object[JSONW_MAX_DEPTH + 1]; /* per level: 1 object, 0 array */
	int after_key;
	int values;        /* values written at depth 0 (a document has one) */
	const char *fault; /* the first broken rule (a static string), or NULL */
} jsonw;

void jsonw_init(jsonw *w, FILE *out, int pretty);
void jsonw_obj_begin(jsonw *w);
void jsonw_obj_end(jsonw *w);
void jsonw_arr_begin(jsonw *w);
void jsonw_arr_end(jsonw *w);
void jsonw_key(jsonw *w, const char *key);
void jsonw_str(jsonw *w, const char *s);
void jsonw_int(jsonw *w, int64_t v);
void jsonw_num(jsonw *w, double v);   /* %.17g, shortest that reads back when possible */
void jsonw_bool(jsonw *w, int v);
void jsonw_null(jsonw *w);
/* Ends the document with a newline and flushes the stream.  0 when the
 * document is whole and written; -1 when a call broke the contract
 * (HS_EUSAGE, naming the rule) or the stream failed (HS_EDATA, with
 * strerror). */
int jsonw_finish(jsonw *w, hs_error *err);

/* Writes s as a JSON string literal (with quotes) to out: ", \ and the
 * control characters (C0, DEL and the C1 controls U+0080..U+009F) escaped
 * (\n, \t, ... or \u001b), valid UTF-8 as it is, and each byte of invalid
 * UTF-8 as \ufffd, the replacement character: the document is valid JSON
 * (and safe on a terminal) whatever the bytes, and a valid UTF-8 string
 * reads back exactly. */
void json_write_string(FILE *out, const char *s);

#endif
