/* overlay.c - data files laid over a graph's nodes (overlay.h): the table
 * the readers of overlay_read.c fill (overlay_impl.h), each value checked
 * against its field as it comes, then the columns. */
#include "overlay_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "hlo_module.h"
#include "xz.h"

static uint32_t name_hash(const char *s)
{
	return (uint32_t)hs_fnv1a(s, HS_FNV_BASIS);
}

int ov_oom(ov_builder *b)
{
	return hs_fail(b->err, HS_ENOMEM, "%s: out of memory", b->file);
}

/* "LINE" (JSON: "LINE (byte N)") of a place. */
static const char *place(const ov_builder *b, ov_at at, char *buf, size_t cap)
{
	if (!b->json) {
		snprintf(buf, cap, "%zu", at);
		return buf;
	}
	size_t line = 1;
	for (const char *p = b->text, *end = b->text + (at < b->n ? at : b->n);
	     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		line++;
	snprintf(buf, cap, "%zu (byte %zu)", line, at + b->bom);
	return buf;
}

const char *ov_where(const ov_builder *b, ov_at at, char *buf, size_t cap)
{
	char p[64];
	snprintf(buf, cap, "%s:%s", b->file, place(b, at, p, sizeof p));
	return buf;
}

const char *ov_clip(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s), keep = cap > 4 ? cap - 4 : 0;
	if (keep > 40)
		keep = 40;
	if (n <= keep) {
		snprintf(buf, cap, "%s", s);
		return buf;
	}
	while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;             /* not inside a UTF-8 character */
	snprintf(buf, cap, "%.*s...", (int)keep, s);
	return buf;
}

/* ---- node names ---------------------------------------------------------- */

static int node_named(const void *g, int32_t v, const void *name)
{
	return strcmp(graph_node_name(g, v), name) == 0;
}

/* Every node by name; a name of several nodes is its first node's, as
 * graph_find_node's. */
static int index_build(ov_builder *b)
{
	const hs_graph *g = b->g;
	if (g->n_nodes > HS_INDEX_MAX || hs_index_reserve(&b->names, (size_t)g->n_nodes) != 0)
		return -1;
	for (int64_t v = 0; v < g->n_nodes; v++) {
		const char *nm = graph_node_name(g, v);
		if (hs_index_put(&b->names, name_hash(nm), (int32_t)v, node_named, g, nm) < 0)
			return -1;
	}
	return 0;
}

int64_t ov_node(const ov_builder *b, const char *name)
{
	return hs_index_find(&b->names, name_hash(name), node_named, b->g, name);
}

/* ---- field names ---------------------------------------------------------- */

static int col_named(const void *cols, int32_t c, const void *name)
{
	return strcmp(((const hs_overlay_col *)cols)[c].name, name) == 0;
}

int overlay_find(const hs_overlay *o, const char *name)
{
	return hs_index_find(&o->col_index, name_hash(name), col_named, o->cols, name);
}

static int valid_field_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

int ov_column(ov_builder *b, const char *name, ov_at at, int *added)
{
	hs_overlay *o = b->o;
	char cut[48];
	uint32_t h = name_hash(name);
	*added = 0;
	int k = hs_index_find(&o->col_index, h, col_named, b->cols.v, name);
	if (k >= 0)
		return k;
	if (!valid_field_name(name))
		return ov_fail(b, at, "'%s' is not a field name (letters, digits and _, not starting with a digit)",
			       ov_clip(name, cut, sizeof cut));
	if (b->cols.n >= OVERLAY_MAX_FIELDS)
		return ov_fail(b, at, "field '%s' is one more than the %d fields hloscope reads",
			       ov_clip(name, cut, sizeof cut), OVERLAY_MAX_FIELDS);
	char *copy = hs_arena_strdup(&o->arena, name);
	if (!copy || hs_vec_push(&b->cols, ((hs_overlay_col){.name = copy})) != 0 ||
	    hs_vec_push(&b->fields, ((ov_field){.kind = OV_UNSET})) != 0 ||
	    hs_index_add(&o->col_index, h, (int32_t)b->cols.n - 1) != 0)
		return ov_oom(b);
	*added = 1;
	return (int)b->cols.n - 1;
}

/* ---- rows and values ------------------------------------------------------ */

int ov_row(ov_builder *b, int64_t node, const char *name, ov_at at)
{
	hs_overlay *o = b->o;
	char first[64], cut[48];
	o->rows++;
	if (node < 0) {
		if (o->unmatched < OVERLAY_UNMATCHED_KEPT &&
		    !(o->unmatched_names[o->unmatched] = hs_arena_strdup(&o->arena, name)))
			return ov_oom(b);
		o->unmatched++;
		return 0;
	}
	if (!b->named[node]) {
		b->named[node] = (int64_t)at + 1;
		return 0;
	}
	if (b->merge != OVERLAY_MERGE_NONE)
		return 0;
	return ov_fail(b, at, "'%s' is named again, first at line %s; name each instruction once%s%s",
		       ov_clip(name, cut, sizeof cut), place(b, (ov_at)b->named[node] - 1, first, sizeof first),
		       b->merge_words ? ", or merge its values with " : "", b->merge_words ? b->merge_words : "");
}

enum { V_NONE, V_NUMBER, V_RANGE, V_TEXT };

/* What a value is (overlay.h): none, a number (*x), a number out of a
 * double's range (1e400, inf) or text.  Spaces and tabs around it are not
 * part of it ("1, 2"). */
static int classify(const char *s, double *x)
{
	char buf[128];
	size_t lead = strspn(s, " \t"), n = strlen(s + lead);
	while (n && (s[lead + n - 1] == ' ' || s[lead + n - 1] == '\t'))
		n--;
	if ((lead || s[lead + n]) && n < sizeof buf) {
		memcpy(buf, s + lead, n);
		buf[n] = '\0';
		s = buf;
	}
	const char *u = s + (*s == '-' || *s == '+');
	if (!*s || !strcasecmp(u, "nan"))
		return V_NONE;
	if (hs_parse_double(s, x) == 0)
		return V_NUMBER;
	if (!strcasecmp(u, "inf") || !strcasecmp(u, "infinity"))
		return V_RANGE;
	/* hs_parse_double refuses what strtod reads out of range. */
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (strspn(s, "+-0123456789.eE") != strlen(s) || end == s || *end)
		return V_TEXT;
	if (isinf(v))
		return V_RANGE;
	*x = v;             /* under a double's range: 0 or subnormal */
	return V_NUMBER;
}

/* The error of a value that is not what its field wants. */
static int bad_value(ov_builder *b, int col, const char *text, int kind, ov_at at)
{
	const ov_field *f = &b->fields.v[col];
	char first[64], cut[48];
	const char *name = b->cols.v[col].name;
	ov_clip(text, cut, sizeof cut);
	if (kind == V_RANGE)
		return ov_fail(b, at, "field '%s': '%s' is not a finite number", name, cut);
	return ov_fail(b, at, "field '%s': '%s' is not a number, and the field is numeric (its first value, "
		       "line %s, is one)", name, cut, place(b, f->first, first, sizeof first));
}

int ov_value(ov_builder *b, int64_t node, int col, const char *text, ov_at at)
{
	ov_field *f = &b->fields.v[col];
	double x = 0;
	if (f->row == b->o->rows)
		return ov_fail(b, at, "field '%s' is given twice in one record", b->cols.v[col].name);
	f->row = b->o->rows;
	int kind = classify(text, &x);
	if (kind == V_NONE)
		return 0;
	if (f->kind == OV_UNSET && kind != V_RANGE) {
		f->kind = kind == V_NUMBER ? OV_NUMBER : OV_TEXT;
		f->first = at;
	}
	if (f->kind != OV_TEXT && kind != V_NUMBER)
		return bad_value(b, col, text, kind, at);
	if (node < 0)
		return 0;
	ov_cell c = {.node = node, .col = col};
	if (f->kind == OV_NUMBER)
		c.num = x;
	else if (!(c.text = hs_arena_strdup(&b->o->arena, text)))
		return ov_oom(b);
	return hs_vec_push(&b->cells, c) != 0 ? ov_oom(b) : 0;
}

/* ---- the columns ---------------------------------------------------------- */

/* The cells into columns, merged as the caller chose (each (node, field)
 * has one cell when no merge is chosen): 0, or -1 when a sum leaves a
 * double's range. */
static int fill(ov_builder *b)
{
	hs_overlay *o = b->o;
	char cut[48];
	for (size_t i = 0; i < b->cells.n; i++) {
		const ov_cell *e = &b->cells.v[i];
		hs_overlay_col *col = &o->cols[e->col];
		if (col->numeric) {
			double *p = &col->num[e->node];
			if (isnan(*p) || b->merge == OVERLAY_MERGE_LAST)
				*p = e->num;
			else if (b->merge == OVERLAY_MERGE_SUM && !isfinite(*p += e->num))
				return hs_fail(b->err, HS_EDATA, "%s: field '%s' of '%s': its values add up past a "
					       "double's range", b->file, col->name,
					       ov_clip(graph_node_name(b->g, e->node), cut, sizeof cut));
		} else if (!col->text[e->node] || b->merge != OVERLAY_MERGE_FIRST) {
			col->text[e->node] = (char *)e->text;
		}
	}
	return 0;
}

static int finish(ov_builder *b)
{
	hs_overlay *o = b->o;
	int64_t n = o->n_nodes;
	if (b->cols.n && (int64_t)b->cols.n > OVERLAY_MAX_VALUES / (n + 1))
		return hs_fail(b->err, HS_EDATA, "%s: %zu fields over %lld nodes are more than the %lld values "
			       "hloscope lays over a graph", b->file, b->cols.n, (long long)n,
			       (long long)OVERLAY_MAX_VALUES);
	o->n_cols = (int)b->cols.n;
	o->cols = b->cols.v;
	b->cols.v = NULL;
	b->cols.n = b->cols.cap = 0;
	if (o->cols && hs_arena_adopt(&o->arena, o->cols) != 0) {
		o->cols = NULL;
		o->n_cols = 0;
		return ov_oom(b);
	}
	for (int c = 0; c < o->n_cols; c++) {
		hs_overlay_col *col = &o->cols[c];
		col->numeric = b->fields.v[c].kind != OV_TEXT;
		if (col->numeric) {
			if (!(col->num = hs_arena_array(&o->arena, (size_t)n + 1, sizeof *col->num)))
				return ov_oom(b);
			for (int64_t v = 0; v < n; v++)
				col->num[v] = NAN;
		} else if (!(col->text = hs_arena_array(&o->arena, (size_t)n + 1, sizeof *col->text))) {
			return ov_oom(b);
		}
	}
	if (fill(b) != 0)
		return -1;
	uint8_t *got = calloc((size_t)n + 1, 1);
	if (!got)
		return ov_oom(b);
	for (size_t i = 0; i < b->cells.n; i++)
		got[b->cells.v[i].node] = 1;
	for (int64_t v = 0; v < n; v++)
		o->matched += got[v];
	free(got);
	return 0;
}

/* ---- the whole ------------------------------------------------------------- */

int overlay_merge_of(const char *word)
{
	static const char *const words[] = {"none", "sum", "first", "last"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(word, words[i]))
			return i;
	return -1;
}

/* The kind of file by its first bytes; the reader's status. */
static int read_kind(ov_builder *b)
{
	const char *t = b->text;
	size_t n = b->n, i = 0;
	if (n >= 2 && (((unsigned char)t[0] == 0xff && (unsigned char)t[1] == 0xfe) ||
		       ((unsigned char)t[0] == 0xfe && (unsigned char)t[1] == 0xff)))
		return hs_fail(b->err, HS_EDATA, "%s: UTF-16 text (it starts with the byte-order mark %s); "
			       "hloscope reads UTF-8", b->file, (unsigned char)t[0] == 0xff ? "FF FE" : "FE FF");
	while (i < n && isspace((unsigned char)t[i]))
		i++;
	if (i < n && (t[i] == '{' || t[i] == '['))
		return ov_read_json(b);
	if (n - i >= 17 && memcmp(t + i, "BufferAssignment:", 17) == 0)
		return ov_read_buffers(b);
	return ov_read_csv(b);
}

/* A builder over text[0, n) for g, running `read`, the overlay in *out. */
static int build(const hs_graph *g, const char *text, size_t n, const char *name, const overlay_opts *opts,
		 int (*read)(ov_builder *), hs_overlay *out, hs_error *err)
{
	memset(out, 0, sizeof *out);
	out->n_nodes = g->n_nodes;
	ov_builder b = {.o = out, .file = name, .text = text, .n = n, .g = g, .err = err};
	if (opts) {
		b.merge = opts->merge;
		b.merge_words = opts->merge_words;
	}
	if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		b.text += 3;
		b.n -= 3;
		b.bom = 3;
	}
	int rc = -1;
	if (!(out->path = hs_arena_strdup(&out->arena, name)) || index_build(&b) != 0 ||
	    !(b.named = calloc((size_t)g->n_nodes + 1, sizeof *b.named)))
		ov_oom(&b);
	else if ((rc = read(&b)) == 0)
		rc = finish(&b);
	hs_index_free(&b.names);
	free(b.named);
	hs_vec_free(&b.cols);
	hs_vec_free(&b.fields);
	hs_vec_free(&b.cells);
	if (rc != 0)
		overlay_free(out);
	return rc;
}

int overlay_parse(const hs_graph *g, const char *text, size_t n, const char *name, const overlay_opts *opts,
		  hs_overlay *out, hs_error *err)
{
	return build(g, text, n, name, opts, read_kind, out, err);
}

int overlay_from_module(const hs_graph *g, hs_overlay *out, hs_error *err)
{
	char name[600];
	memset(out, 0, sizeof *out);
	if (!g->module || !g->module->buffers)
		return 0;
	snprintf(name, sizeof name, "%s (its buffer assignment)", g->hlo ? g->hlo->path : g->path);
	return build(g, "", 0, name, NULL, ov_read_module_buffers, out, err);
}

int overlay_load(const hs_graph *g, const char *path, const overlay_opts *opts, hs_overlay *out,
		 hs_error *err)
{
	size_t n;
	memset(out, 0, sizeof *out);
	char *text = xz_read_file(path, xz_max_bytes, &n, err); /* an .xz decompressed */
	if (!text)
		return -1;
	int rc = overlay_parse(g, text, n, path, opts, out, err);
	free(text);
	return rc;
}

void overlay_free(hs_overlay *o)
{
	hs_arena_free(&o->arena);
	hs_index_free(&o->col_index);
	memset(o, 0, sizeof *o);
}
