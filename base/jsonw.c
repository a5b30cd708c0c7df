#include "jsonw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(jsonw *w, FILE *out, int pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
	w->first[0] = 1;
}

static void indent(jsonw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Separator before a value (or a key). */
static void before(jsonw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputc(',', w->out);
		indent(w);
	}
	w->first[w->depth] = 0;
}

static void open_level(jsonw *w, char c)
{
	before(w);
	fputc(c, w->out);
	if (w->depth + 1 < (int)sizeof w->first)
		w->depth++;
	w->first[w->depth] = 1;
}

static void close_level(jsonw *w, char c)
{
	int empty = w->first[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->out);
}

void jsonw_obj_begin(jsonw *w) { open_level(w, '{'); }
void jsonw_obj_end(jsonw *w) { close_level(w, '}'); }
void jsonw_arr_begin(jsonw *w) { open_level(w, '['); }
void jsonw_arr_end(jsonw *w) { close_level(w, ']'); }

void json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void jsonw_key(jsonw *w, const char *key)
{
	before(w);
	json_write_string(w->out, key);
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = 1;
}

void jsonw_str(jsonw *w, const char *s)
{
	before(w);
	json_write_string(w->out, s ? s : "");
}

void jsonw_int(jsonw *w, int64_t v)
{
	before(w);
	fprintf(w->out, "%lld", (long long)v);
}

void jsonw_num(jsonw *w, double v)
{
	before(w);
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
	before(w);
	fputs(v ? "true" : "false", w->out);
}

void jsonw_null(jsonw *w)
{
	before(w);
	fputs("null", w->out);
}

void jsonw_finish(jsonw *w) { fputc('\n', w->out); }
