#include "jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

void jsonw_init(jsonw *w, FILE *out, int pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
	w->first[0] = 1;
}

/* Records the first broken rule; returns 0 so callers can `return fault(...)`. */
static int fault(jsonw *w, const char *why)
{
	if (!w->fault)
		w->fault = why;
	return 0;
}

static void indent(jsonw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Checks that a value may come now and writes the separator before it.
 * Returns 1 when the value is to be written, 0 after a fault. */
static int before_value(jsonw *w)
{
	if (w->fault)
		return 0;
	if (w->after_key) {
		w->after_key = 0;
		return 1;
	}
	if (w->depth == 0) {
		if (w->values)
			return fault(w, "a second value after the end of the document");
		w->values++;
		return 1;
	}
	if (w->object[w->depth])
		return fault(w, "a value in an object where a key is due");
	if (!w->first[w->depth])
		fputc(',', w->out);
	indent(w);
	w->first[w->depth] = 0;
	return 1;
}

static void open_level(jsonw *w, char c, int object)
{
	if (!before_value(w))
		return;
	if (w->depth == JSONW_MAX_DEPTH) {
		fault(w, "nesting deeper than 63 levels");
		return;
	}
	fputc(c, w->out);
	w->depth++;
	w->first[w->depth] = 1;
	w->object[w->depth] = (unsigned char)object;
}

static void close_level(jsonw *w, char c, int object)
{
	if (w->fault)
		return;
	if (w->depth == 0) {
		fault(w, object ? "an object end with nothing open" : "an array end with nothing open");
		return;
	}
	if (w->object[w->depth] != object) {
		fault(w, object ? "an object end closing an array" : "an array end closing an object");
		return;
	}
	if (w->after_key) {
		fault(w, "an object end right after a key");
		return;
	}
	int empty = w->first[w->depth];
	w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->out);
}

void jsonw_obj_begin(jsonw *w) { open_level(w, '{', 1); }
void jsonw_obj_end(jsonw *w) { close_level(w, '}', 1); }
void jsonw_arr_begin(jsonw *w) { open_level(w, '[', 0); }
void jsonw_arr_end(jsonw *w) { close_level(w, ']', 0); }

void json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	fputc('"', out);
	while (i < n) {
		size_t run = hs_esc_span(s + i, n - i, HS_ESC_NAME), k;
		for (k = i; k < i + run; k++)
			if (p[k] == '"' || p[k] == '\\')
				break;
		fwrite(s + i, 1, k - i, out);
		if ((i = k) == n)
			break;
		switch (p[i]) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (p[i] < 0x80) {
				fprintf(out, "\\u%04x", p[i]); /* the other controls, DEL */
			} else if (p[i] == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
				fprintf(out, "\\u%04x", p[++i]); /* a C1 control */
			} else {
				fputs("\\ufffd", out); /* a byte of invalid UTF-8 */
			}
		}
		i++;
	}
	fputc('"', out);
}

void jsonw_key(jsonw *w, const char *key)
{
	if (w->fault)
		return;
	if (w->depth == 0 || !w->object[w->depth]) {
		fault(w, "a key outside an object");
		return;
	}
	if (w->after_key) {
		fault(w, "a key where a value is due");
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->out);
	indent(w);
	w->first[w->depth] = 0;
	json_write_string(w->out, key ? key : "");
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = 1;
}

void jsonw_str(jsonw *w, const char *s)
{
	if (before_value(w))
		json_write_string(w->out, s ? s : "");
}

void jsonw_int(jsonw *w, int64_t v)
{
	if (before_value(w))
		fprintf(w->out, "%lld", (long long)v);
}

void jsonw_num(jsonw *w, double v)
{
	if (!before_value(w))
		return;
	if (!isfinite(v)) {
		fputs("null", w->out);
		return;
	}
	char buf[40];
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, w->out);
}

void jsonw_bool(jsonw *w, int v)
{
	if (before_value(w))
		fputs(v ? "true" : "false", w->out);
}

void jsonw_null(jsonw *w)
{
	if (before_value(w))
		fputs("null", w->out);
}

int jsonw_finish(jsonw *w, hs_error *err)
{
	if (!w->fault && w->depth > 0)
		fault(w, w->object[w->depth] ? "the document ends inside an object"
					     : "the document ends inside an array");
	if (!w->fault && w->after_key)
		fault(w, "the document ends after a key");
	if (!w->fault && !w->values)
		fault(w, "an empty document");
	if (w->fault)
		return hs_fail(err, HS_EUSAGE, "JSON writer: %s", w->fault);
	fputc('\n', w->out);
	errno = 0;
	if (fflush(w->out) != 0 || ferror(w->out)) {
		int e = errno ? errno : EIO;
		return hs_fail(err, hs_errno_status(e), "writing JSON: %s", strerror(e));
	}
	return 0;
}
