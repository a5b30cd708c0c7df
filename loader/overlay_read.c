/* overlay_read.c - the formats of data files laid over a graph (overlay.h):
 * CSV, JSON (an object by name or an array of records) and XLA buffer
 * assignments, read into the table of overlay.c (overlay_impl.h). */
#include "overlay_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "base/jsonr.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "hlo_module.h"

int ov_fail(ov_builder *b, ov_at at, const char *fmt, ...)
{
	char where[700];
	va_list ap;
	va_start(ap, fmt);
	hs_vfail(b->err, HS_EDATA, fmt, ap);
	va_end(ap);
	hs_error_prefix(b->err, "%s", ov_where(b, at, where, sizeof where));
	return -1;
}

/* ---- CSV ----------------------------------------------------------------- */

typedef struct csv_reader {
	csv_fields f;
	hs_strbuf buf;
	size_t pos;
	int line;
} csv_reader;

/* The next record into r->f: 1, 0 at the end, -1 with the error set (a
 * malformed record, a NUL byte); *at is the line it starts at. */
static int csv_next(ov_builder *b, csv_reader *r, ov_at *at, const char *header)
{
	const char *what;
	size_t start = r->pos;
	*at = (ov_at)r->line;
	int k = csv_read_record(b->text, b->n, &r->pos, &r->f, &r->buf, &r->line, &what);
	if (k < 0)
		return strcmp(what, "out of memory") ? ov_fail(b, *at, "%s", what) : ov_oom(b);
	const char *nul = k > 0 ? memchr(b->text + start, '\0', r->pos - start) : NULL;
	if (!nul)
		return k;
	/* The field whose bytes run past its first NUL: each field ends at
	 * the NUL csv_read_record puts before the next one's start. */
	size_t col = 0;
	for (size_t i = 0; i < r->f.n; i++) {
		const char *end = i + 1 < r->f.n ? r->f.v[i + 1] - 1 : r->buf.s + r->buf.len - 1;
		if (strlen(r->f.v[i]) != (size_t)(end - r->f.v[i])) {
			col = i;
			break;
		}
	}
	ov_at line = *at;
	for (const char *p = b->text + start; (p = memchr(p, '\n', (size_t)(nul - p))) != NULL; p++)
		line++;
	char cut[48];
	if (!header)
		return ov_fail(b, line, "a NUL byte in column %zu of the header", col + 1);
	if (col > b->cols.n)                      /* a field past the header's */
		return ov_fail(b, line, "a NUL byte in column %zu", col + 1);
	return ov_fail(b, line, "column '%s': a NUL byte in the value '%s'", col ? b->cols.v[col - 1].name : header,
		       ov_clip(r->f.v[col], cut, sizeof cut));
}

/* The header: a column per field, in order.  1 for `id` first, 0 for
 * `name`, -1 with the error set. */
static int csv_header(ov_builder *b, csv_reader *r)
{
	ov_at at;
	char cut[48];
	int k = csv_next(b, r, &at, NULL);
	if (k <= 0)
		return k < 0 ? -1 : hs_fail(b->err, HS_EDATA, "%s: empty: a header line 'name,FIELD,...' was "
					    "expected", b->file);
	const csv_fields *f = &r->f;
	if (f->n < 2 || (strcmp(f->v[0], "name") != 0 && strcmp(f->v[0], "id") != 0))
		return ov_fail(b, at, "the header must start with 'name' or 'id' and name at least one field, not "
			       "'%s'", ov_clip(f->v[0], cut, sizeof cut));
	if (f->n - 1 > OVERLAY_MAX_FIELDS)
		return ov_fail(b, at, "%zu fields, more than the %d hloscope reads", f->n - 1, OVERLAY_MAX_FIELDS);
	for (size_t i = 1; i < f->n; i++) {
		int added, c = ov_column(b, f->v[i], at, &added);
		if (c < 0)
			return -1;
		if (!added)
			return ov_fail(b, at, "column '%s' is given twice", f->v[i]);
	}
	return strcmp(f->v[0], "id") == 0;
}

int ov_read_csv(ov_builder *b)
{
	csv_reader r = {.line = 1};
	ov_at at;
	char cut[48];
	int by_id = csv_header(b, &r), k, rc = -1;
	const char *key = by_id ? "id" : "name";
	if (by_id < 0)
		goto done;
	while ((k = csv_next(b, &r, &at, key)) > 0) {
		const csv_fields *f = &r.f;
		if (f->n == 1 && !*f->v[0])
			continue;                         /* an empty line */
		if (f->n != b->cols.n + 1) {
			ov_fail(b, at, "%zu fields where the header has %zu", f->n, b->cols.n + 1);
			goto done;
		}
		int64_t node = -1;
		if (by_id && hs_parse_i64(f->v[0], &node) != 0) {
			ov_fail(b, at, "id '%s' is not a node id", ov_clip(f->v[0], cut, sizeof cut));
			goto done;
		}
		if (!by_id)
			node = ov_node(b, f->v[0]);
		else if (node >= b->o->n_nodes)
			node = -1;
		if (ov_row(b, node < 0 ? -1 : node, f->v[0], at) != 0)
			goto done;
		for (size_t i = 1; i < f->n; i++)
			if (ov_value(b, node < 0 ? -1 : node, (int)i - 1, f->v[i], at) != 0)
				goto done;
	}
	rc = k;
done:
	csv_fields_free(&r.f);
	hs_strbuf_free(&r.buf);
	return rc;
}

/* ---- JSON ---------------------------------------------------------------- */

/* A value as the text it is written as ("" for null); NULL for an array
 * or an object. */
static const char *json_text(const jsonr_value *v)
{
	switch (v->type) {
	case JR_NULL: return "";
	case JR_TRUE: return "1";
	case JR_FALSE: return "0";
	case JR_NUMBER:
	case JR_STRING: return v->str;
	default: return NULL;
	}
}

/* Field `key`, value v, of the row naming `node` (`row`: what it said). */
static int json_field(ov_builder *b, int64_t node, const char *key, const jsonr_value *v, const char *row)
{
	int added, c = ov_column(b, key, v->offset, &added);
	const char *t = json_text(v);
	char cut[48];
	if (c < 0)
		return -1;
	if (!t)
		return ov_fail(b, v->offset, "field '%s' of '%s' is %s; values are numbers, strings, true, false or "
			       "null", key, ov_clip(row, cut, sizeof cut), v->type == JR_ARRAY ? "an array" : "an object");
	return ov_value(b, node, c, t, v->offset);
}

/* {"NAME": {"FIELD": value, ...}, ...} */
static int json_object(ov_builder *b, const jsonr_value *root)
{
	char cut[48];
	for (size_t i = 0; i < root->n; i++) {
		const jsonr_value *row = &root->items[i];
		const char *name = root->keys[i];
		if (row->type != JR_OBJECT)
			return ov_fail(b, row->offset, "the value of '%s' must be an object of fields",
				       ov_clip(name, cut, sizeof cut));
		int64_t node = ov_node(b, name);
		if (ov_row(b, node, name, row->offset) != 0)
			return -1;
		for (size_t j = 0; j < row->n; j++)
			if (json_field(b, node, row->keys[j], &row->items[j], name) != 0)
				return -1;
	}
	return 0;
}

/* Which member of a record names its node ("name" or "id"): its index,
 * or -1 with the error set. */
static int record_key(ov_builder *b, const jsonr_value *rec)
{
	int key = -1;
	if (rec->type != JR_OBJECT)
		return ov_fail(b, rec->offset, "a record {\"name\": \"INSTRUCTION\", \"FIELD\": value, ...} was "
			       "expected");
	for (size_t j = 0; j < rec->n; j++) {
		if (strcmp(rec->keys[j], "name") != 0 && strcmp(rec->keys[j], "id") != 0)
			continue;
		if (key >= 0)
			return ov_fail(b, rec->items[j].offset, "the record gives \"%s\" after \"%s\"; a record "
				       "names its instruction once", rec->keys[j], rec->keys[key]);
		key = (int)j;
	}
	if (key < 0)
		return ov_fail(b, rec->offset, "the record has no \"name\" (an instruction's) or \"id\" (a node's)");
	return key;
}

/* [{"name": "NAME", "FIELD": value, ...}, ...] or with "id": N. */
static int json_records(ov_builder *b, const jsonr_value *root)
{
	char cut[48];
	for (size_t i = 0; i < root->n; i++) {
		const jsonr_value *rec = &root->items[i];
		int key = record_key(b, rec);
		if (key < 0)
			return -1;
		const jsonr_value *nv = &rec->items[key];
		int64_t node = -1;
		if (rec->keys[key][0] == 'n') {
			if (nv->type != JR_STRING)
				return ov_fail(b, nv->offset, "\"name\" must be a string, an instruction's name");
			node = ov_node(b, nv->str);
		} else if ((nv->type != JR_NUMBER && nv->type != JR_STRING) || hs_parse_i64(nv->str, &node) != 0) {
			return ov_fail(b, nv->offset, "id '%s' is not a node id",
				       nv->str ? ov_clip(nv->str, cut, sizeof cut) : "");
		} else if (node >= b->o->n_nodes) {
			node = -1;
		}
		if (ov_row(b, node < 0 ? -1 : node, nv->str, rec->offset) != 0)
			return -1;
		for (size_t j = 0; j < rec->n; j++)
			if ((int)j != key && json_field(b, node < 0 ? -1 : node, rec->keys[j], &rec->items[j], nv->str))
				return -1;
	}
	return 0;
}

int ov_read_json(ov_builder *b)
{
	jsonr_doc d;
	hs_error jerr = {0};
	size_t at;
	int k = 0, rc;
	b->json = 1;
	if (jsonr_parse(b->text, b->n, &d, &jerr) != 0) {
		if (jerr.status == HS_EDATA && sscanf(jerr.msg, "byte %zu: %n", &at, &k) == 1 && k > 0)
			return ov_fail(b, at, "%s", jerr.msg + k);
		return hs_fail(b->err, jerr.status, "%s: %s", b->file, jerr.msg);
	}
	if (d.root->type == JR_OBJECT)
		rc = json_object(b, d.root);
	else if (d.root->type == JR_ARRAY)
		rc = json_records(b, d.root);
	else
		rc = ov_fail(b, d.root->offset, "an object {\"NAME\": {\"FIELD\": value, ...}, ...} or an array "
			     "[{\"name\": \"NAME\", \"FIELD\": value, ...}, ...] was expected");
	jsonr_free(&d);
	return rc;
}

/* ---- buffer assignment --------------------------------------------------- */

/* The bytes of a line's "size=S", or -1. */
static long long size_of(const char *p, const char *end)
{
	const char *sz = memmem(p, (size_t)(end - p), "size=", 5), *q = sz ? sz + 5 : end;
	long long bytes = q < end && *q >= '0' && *q <= '9' ? 0 : -1;
	for (; bytes >= 0 && q < end && *q >= '0' && *q <= '9'; q++)  /* the line is not terminated */
		bytes = bytes > (INT64_MAX - 9) / 10 ? -1 : bytes * 10 + (*q - '0');
	return bytes;
}

/* "value: <ID NAME @INDEX> (size=S,offset=O): SHAPE" (XLA since 2020) or
 * "value: NAME (size=S, offset=O)"; the bytes of every value go to the
 * instruction it is named after, and add up there (a tuple's elements). */
int ov_read_buffers(ov_builder *b)
{
	hs_strbuf name = {0};
	char num[32];
	int added, col = ov_column(b, "buffer_bytes", 1, &added), rc = -1;
	ov_at line = 0;
	b->merge = OVERLAY_MERGE_SUM;
	for (size_t i = 0; col >= 0 && i < b->n;) {
		const char *s = b->text + i, *nl = memchr(s, '\n', b->n - i);
		size_t len = nl ? (size_t)(nl - s) : b->n - i;
		i += len + 1;
		line++;
		if (memchr(s, '\0', len)) {
			ov_fail(b, line, "a NUL byte");
			goto done;
		}
		const char *v = memmem(s, len, "value: ", 7);
		if (!v)
			continue;
		const char *p = v + 7, *end = s + len, *q;
		if (p < end && *p == '<') {             /* <ID NAME @INDEX> */
			while (p < end && *p != ' ')
				p++;
			if (p < end)
				p++;
		}
		for (q = p; q < end && *q != ' ' && *q != '>' && *q != '{';)
			q++;
		long long bytes = size_of(q, end);
		if (q == p || bytes < 0) {
			ov_fail(b, line, "a buffer value 'value: <ID NAME @INDEX> (size=S,offset=O)' was expected");
			goto done;
		}
		hs_strbuf_reset(&name);
		hs_strbuf_putn(&name, p, (size_t)(q - p));
		if (name.failed) {
			ov_oom(b);
			goto done;
		}
		int64_t node = ov_node(b, hs_strbuf_str(&name));
		snprintf(num, sizeof num, "%lld", bytes);
		if (ov_row(b, node, hs_strbuf_str(&name), line) != 0 || ov_value(b, node, col, num, line) != 0)
			goto done;
	}
	rc = col < 0 ? -1 : 0;
done:
	hs_strbuf_free(&name);
	return rc;
}

/* The buffer assignment an HloProto carried (hm_module.buffers): one value
 * per instruction that defines a buffer, as ov_read_buffers reads the text
 * of the same assignment; places are node ids + 1. */
int ov_read_module_buffers(ov_builder *b)
{
	const hm_buffers *bu = b->g->module->buffers;
	char num[32];
	int added, col = ov_column(b, "buffer_bytes", 1, &added);
	if (col < 0)
		return -1;
	for (int64_t v = 0; v < b->g->n_nodes && v < b->g->module->n_instrs; v++) {
		if (bu->node_bytes[v] < 0)
			continue;
		snprintf(num, sizeof num, "%lld", (long long)bu->node_bytes[v]);
		if (ov_row(b, v, graph_node_name(b->g, v), (ov_at)v + 1) != 0 ||
		    ov_value(b, v, col, num, (ov_at)v + 1) != 0)
			return -1;
	}
	return 0;
}
