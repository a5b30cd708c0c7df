/* jsonw.h - a small streaming JSON writer (used by every --json output).
 *
 * It tracks nesting so commas come out right; keys and strings are escaped.
 * Non-finite numbers are written as null, since JSON has no NaN.
 */
#ifndef HS_JSONW_H
#define HS_JSONW_H

#include <stdint.h>
#include <stdio.h>

typedef struct jsonw {
	FILE *out;
	int depth;
	int pretty;
	unsigned char first[64]; /* per level: nothing written yet */
	int after_key;
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
/* Ends the document with a newline. */
void jsonw_finish(jsonw *w);

/* Writes s as a JSON string literal (with quotes) to out. */
void json_write_string(FILE *out, const char *s);

#endif
