/* overlay.c - data files laid over a graph's nodes (overlay.h): CSV, JSON
 * and XLA buffer assignments into columns of per-node values. */
#include "overlay.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "base/inputs.h"
#include "base/jsonr.h"
#include "base/parse.h"
#include "base/hash.h"
#include "base/strbuf.h"
#include "base/vec.h"

/* ---- node names ---------------------------------------------------------- */

typedef struct name_index {
	int64_t *slot;       /* node + 1, 0 for empty */
	size_t cap;
	const hs_graph *g;
} name_index;

static const char *name_of(const hs_graph *g, int64_t v, char *buf, size_t cap)
{
	return graph_node_name(g, v, buf, cap);
}

static int index_build(name_index *ix, const hs_graph *g)
{
	char buf[160];
	size_t cap = 64;
	while (cap < (size_t)g->n_nodes * 2 + 2)
		cap *= 2;
	ix->slot = calloc(cap, sizeof *ix->slot);
	ix->cap = cap;
	ix->g = g;
	if (!ix->slot)
		return -1;
	char other[160];
	for (int64_t v = 0; v < g->n_nodes; v++) {
		const char *nm = name_of(g, v, buf, sizeof buf);
		size_t i = (size_t)hs_fnv1a(nm, HS_FNV_BASIS) & (cap - 1);
		int dup = 0;
		while (ix->slot[i] && !(dup = strcmp(name_of(g, ix->slot[i] - 1, other, sizeof other), nm) == 0))
			i = (i + 1) & (cap - 1);
		if (!dup)       /* the first node of a name, as graph_find_node */
			ix->slot[i] = v + 1;
	}
	return 0;
}

static int64_t index_find(const name_index *ix, const char *name)
{
	char buf[160];
	size_t i = (size_t)hs_fnv1a(name, HS_FNV_BASIS) & (ix->cap - 1);
	while (ix->slot[i]) {
		if (strcmp(name_of(ix->g, ix->slot[i] - 1, buf, sizeof buf), name) == 0)
			return ix->slot[i] - 1;
		i = (i + 1) & (ix->cap - 1);
	}
	return -1;
}

/* ---- the table being built --------------------------------------------- */

/* Values are gathered as text per (row, column), then each column becomes
 * numeric or text once every value is known. */
typedef struct cell {
	int64_t node;
	int col;
	const char *text;     /* in the overlay's arena; NULL for null */
} cell;

typedef struct builder {
	hs_overlay *o;
	name_index ix;
	HS_VEC(cell) cells;
	HS_VEC(const char *) names;   /* column names */
	const char *file;
	hs_error *err;
} builder;

static int oom(builder *b)
{
	return hs_fail(b->err, HS_ENOMEM, "%s: out of memory", b->file);
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

/* Column `name`, added when new. */
static int column(builder *b, const char *name, const char *where)
{
	for (size_t i = 0; i < b->names.n; i++)
		if (strcmp(b->names.v[i], name) == 0)
			return (int)i;
	if (!valid_field_name(name))
		return hs_fail(b->err, HS_EDATA, "%s: column '%s' is not a field name (letters, digits and _, "
			       "not starting with a digit)", where, name);
	const char *copy = hs_arena_strdup(&b->o->arena, name);
	if (!copy || hs_vec_push(&b->names, copy) != 0)
		return oom(b);
	return (int)b->names.n - 1;
}

static void note_unmatched(builder *b, const char *name)
{
	hs_overlay *o = b->o;
	if (o->unmatched < OVERLAY_UNMATCHED_KEPT)
		o->unmatched_names[o->unmatched] = hs_arena_strdup(&o->arena, name);
	o->unmatched++;
}

static int add_cell(builder *b, int64_t node, int col, const char *text)
{
	const char *t = text ? hs_arena_strdup(&b->o->arena, text) : NULL;
	if ((text && !t) || hs_vec_push(&b->cells, ((cell){node, col, t})) != 0)
		return oom(b);
	return 0;
}

/* Columns from the gathered cells: numeric when every value parses. */
static int finish(builder *b)
{
	hs_overlay *o = b->o;
	int64_t n = o->n_nodes;
	double x;
	o->n_cols = (int)b->names.n;
	o->cols = hs_arena_array(&o->arena, b->names.n ? b->names.n : 1, sizeof *o->cols);
	uint8_t *got = calloc((size_t)n + 1, 1);
	if (!o->cols || !got) {
		free(got);
		return oom(b);
	}
	for (int c = 0; c < o->n_cols; c++) {
		o->cols[c].name = (char *)b->names.v[c];
		o->cols[c].numeric = 1;
	}
	for (size_t i = 0; i < b->cells.n; i++)
		if (b->cells.v[i].text && hs_parse_double(b->cells.v[i].text, &x) != 0)
			o->cols[b->cells.v[i].col].numeric = 0;
	int ok = 1;
	for (int c = 0; c < o->n_cols && ok; c++) {
		hs_overlay_col *col = &o->cols[c];
		if (col->numeric) {
			ok = (col->num = hs_arena_array(&o->arena, (size_t)n + 1, sizeof *col->num)) != NULL;
			for (int64_t v = 0; ok && v < n; v++)
				col->num[v] = NAN;
		} else {
			ok = (col->text = hs_arena_array(&o->arena, (size_t)n + 1, sizeof *col->text)) != NULL;
		}
	}
	for (size_t i = 0; ok && i < b->cells.n; i++) {
		const cell *e = &b->cells.v[i];
		hs_overlay_col *col = &o->cols[e->col];
		if (!e->text)
			continue;
		got[e->node] = 1;
		if (col->numeric) {
			hs_parse_double(e->text, &x);
			col->num[e->node] = isnan(col->num[e->node]) ? x : col->num[e->node] + x;
		} else {
			col->text[e->node] = (char *)e->text;
		}
	}
	for (int64_t v = 0; v < n; v++)
		o->matched += got[v];
	free(got);
	return ok ? 0 : oom(b);
}

/* ---- CSV ----------------------------------------------------------------- */

static int parse_csv(builder *b, const char *text, size_t n)
{
	csv_fields f = {0};
	hs_strbuf buf = {0};
	HS_VEC(int) cols = {0};
	size_t pos = 0;
	int line = 1, by_id = 0, rc = -1;
	const char *what;
	char where[600];

	int k = csv_read_record(text, n, &pos, &f, &buf, &line, &what);
	snprintf(where, sizeof where, "%s:1", b->file);
	if (k <= 0) {
		if (k == 0)
			hs_fail(b->err, HS_EDATA, "%s: empty: a header line 'name,FIELD,...' was expected", b->file);
		else
			hs_fail(b->err, strcmp(what, "out of memory") ? HS_EDATA : HS_ENOMEM, "%s: %s", where, what);
		goto done;
	}
	if (f.n < 2 || (strcmp(f.v[0], "name") != 0 && strcmp(f.v[0], "id") != 0)) {
		hs_fail(b->err, HS_EDATA, "%s: the header must start with 'name' or 'id' and name at least one "
			"field, not '%.60s'", where, f.v[0]);
		goto done;
	}
	by_id = strcmp(f.v[0], "id") == 0;
	for (size_t i = 1; i < f.n; i++) {
		int c = column(b, f.v[i], where);
		for (size_t j = 0; c >= 0 && j + 1 < i; j++)
			if (cols.v[j] == c) {
				hs_fail(b->err, HS_EDATA, "%s: column '%s' is given twice", where, f.v[i]);
				c = -1;
			}
		if (c < 0 || hs_vec_push(&cols, c) != 0) {
			if (c >= 0)
				oom(b);
			goto done;
		}
	}
	for (;;) {
		int at = line;
		k = csv_read_record(text, n, &pos, &f, &buf, &line, &what);
		snprintf(where, sizeof where, "%s:%d", b->file, at);
		if (k == 0)
			break;
		if (k < 0) {
			hs_fail(b->err, strcmp(what, "out of memory") ? HS_EDATA : HS_ENOMEM, "%s: %s", where, what);
			goto done;
		}
		if (f.n == 1 && !*f.v[0])
			continue;                         /* an empty line */
		if (f.n != cols.n + 1) {
			hs_fail(b->err, HS_EDATA, "%s: %zu fields where the header has %zu", where, f.n, cols.n + 1);
			goto done;
		}
		b->o->rows++;
		int64_t node = -1;
		if (by_id) {
			if (hs_parse_i64(f.v[0], &node) != 0) {
				hs_fail(b->err, HS_EDATA, "%s: id '%.40s' is not a node id", where, f.v[0]);
				goto done;
			}
			if (node < 0 || node >= b->o->n_nodes)
				node = -1;
		} else {
			node = index_find(&b->ix, f.v[0]);
		}
		if (node < 0) {
			note_unmatched(b, f.v[0]);
			continue;
		}
		for (size_t i = 1; i < f.n; i++)
			if (*f.v[i] && add_cell(b, node, cols.v[i - 1], f.v[i]) != 0)
				goto done;
	}
	rc = 0;
done:
	csv_fields_free(&f);
	hs_strbuf_free(&buf);
	hs_vec_free(&cols);
	return rc;
}

/* ---- JSON ---------------------------------------------------------------- */

static int parse_json(builder *b, const char *text, size_t n)
{
	jsonr_doc d;
	hs_error jerr = {0};
	char num[64];
	if (jsonr_parse(text, n, &d, &jerr) != 0)
		return hs_fail(b->err, jerr.status, "%s: %s", b->file, jerr.msg);
	int rc = -1;
	const jsonr_value *root = d.root;
	if (root->type != JR_OBJECT) {
		hs_fail(b->err, HS_EDATA, "%s: byte %zu: an object {\"name\": {\"field\": value}} was expected",
			b->file, root->offset);
		goto done;
	}
	for (size_t i = 0; i < root->n; i++) {
		const jsonr_value *row = &root->items[i];
		b->o->rows++;
		if (row->type != JR_OBJECT) {
			hs_fail(b->err, HS_EDATA, "%s: byte %zu: the value of '%.60s' must be an object of fields",
				b->file, row->offset, root->keys[i]);
			goto done;
		}
		int64_t node = index_find(&b->ix, root->keys[i]);
		if (node < 0) {
			note_unmatched(b, root->keys[i]);
			continue;
		}
		for (size_t j = 0; j < row->n; j++) {
			const jsonr_value *v = &row->items[j];
			char where[600];
			snprintf(where, sizeof where, "%s: byte %zu", b->file, v->offset);
			int c = column(b, row->keys[j], where);
			if (c < 0)
				goto done;
			const char *t;
			switch (v->type) {
			case JR_NULL: continue;
			case JR_TRUE: t = "1"; break;
			case JR_FALSE: t = "0"; break;
			case JR_NUMBER: snprintf(num, sizeof num, "%.17g", v->num); t = num; break;
			case JR_STRING: t = v->str; break;
			default:
				hs_fail(b->err, HS_EDATA, "%s: field '%s' of '%.60s' is %s; values are numbers, "
					"strings, true, false or null", where, row->keys[j], root->keys[i],
					v->type == JR_ARRAY ? "an array" : "an object");
				goto done;
			}
			if (add_cell(b, node, c, t) != 0)
				goto done;
		}
	}
	rc = 0;
done:
	jsonr_free(&d);
	return rc;
}

/* ---- buffer assignment --------------------------------------------------- */

/* "value: <ID NAME @INDEX> (size=S,offset=O): SHAPE" (XLA since 2020) or
 * "value: NAME (size=S, offset=O)"; the bytes of every value go to the
 * instruction it is named after. */
static int parse_buffers(builder *b, const char *text, size_t n)
{
	int col = column(b, "buffer_bytes", b->file), line = 0;
	if (col < 0)
		return -1;
	for (size_t i = 0; i < n;) {
		const char *s = text + i, *nl = memchr(s, '\n', n - i);
		size_t len = nl ? (size_t)(nl - s) : n - i;
		i += len + 1;
		line++;
		const char *v = memmem(s, len, "value: ", 7);
		if (!v)
			continue;
		const char *p = v + 7, *end = s + len;
		char name[256];
		size_t k = 0;
		if (p < end && *p == '<') {             /* <ID NAME @INDEX> */
			while (p < end && *p != ' ')
				p++;
			if (p < end)
				p++;
		}
		while (p < end && *p != ' ' && *p != '>' && *p != '{' && k + 1 < sizeof name)
			name[k++] = *p++;
		name[k] = '\0';
		const char *sz = memmem(p, (size_t)(end - p), "size=", 5), *q = sz ? sz + 5 : end;
		long long bytes = q < end && *q >= '0' && *q <= '9' ? 0 : -1;
		for (; bytes >= 0 && q < end && *q >= '0' && *q <= '9'; q++)  /* the line is not terminated */
			bytes = bytes > (INT64_MAX - 9) / 10 ? -1 : bytes * 10 + (*q - '0');
		if (!k || bytes < 0)
			return hs_fail(b->err, HS_EDATA, "%s:%d: a buffer value 'value: <ID NAME @INDEX> "
				       "(size=S,offset=O)' was expected", b->file, line);
		b->o->rows++;
		int64_t node = index_find(&b->ix, name);
		if (node < 0) {
			note_unmatched(b, name);
			continue;
		}
		char num[32];
		snprintf(num, sizeof num, "%lld", bytes);
		if (add_cell(b, node, col, num) != 0)
			return -1;
	}
	return 0;
}

/* ---- the whole ------------------------------------------------------------- */

int overlay_parse(const hs_graph *g, const char *text, size_t n, const char *name, hs_overlay *out,
		  hs_error *err)
{
	memset(out, 0, sizeof *out);
	out->n_nodes = g->n_nodes;
	builder b = {.o = out, .file = name, .err = err};
	int rc = -1;
	if (!(out->path = hs_arena_strdup(&out->arena, name)) || index_build(&b.ix, g) != 0) {
		oom(&b);
		goto done;
	}
	size_t i = 0;
	while (i < n && isspace((unsigned char)text[i]))
		i++;
	if (i < n && (text[i] == '{' || text[i] == '['))
		rc = parse_json(&b, text, n);
	else if (n - i >= 17 && memcmp(text + i, "BufferAssignment:", 17) == 0)
		rc = parse_buffers(&b, text, n);
	else
		rc = parse_csv(&b, text, n);
	if (rc == 0)
		rc = finish(&b);
done:
	free(b.ix.slot);
	hs_vec_free(&b.cells);
	hs_vec_free(&b.names);
	if (rc != 0)
		overlay_free(out);
	return rc;
}

int overlay_load(const hs_graph *g, const char *path, hs_overlay *out, hs_error *err)
{
	FILE *f = fopen(path, "rb");
	hs_strbuf text = {0};
	char chunk[65536];
	size_t k;
	memset(out, 0, sizeof *out);
	if (!f)
		return hs_fail(err, HS_EDATA, "%s: %s", path, strerror(errno));
	if (hs_input_note_fd(fileno(f), path, err) < 0) {
		fclose(f);
		return -1;
	}
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		hs_strbuf_putn(&text, chunk, k);
	int bad = ferror(f);
	fclose(f);
	if (bad || text.failed) {
		hs_strbuf_free(&text);
		return hs_fail(err, bad ? HS_EDATA : HS_ENOMEM, "%s: %s", path, bad ? "read error" : "out of memory");
	}
	int rc = overlay_parse(g, hs_strbuf_str(&text), text.len, path, out, err);
	hs_strbuf_free(&text);
	return rc;
}

void overlay_free(hs_overlay *o)
{
	hs_arena_free(&o->arena);
	memset(o, 0, sizeof *o);
}

int overlay_find(const hs_overlay *o, const char *name)
{
	for (int c = 0; c < o->n_cols; c++)
		if (strcmp(o->cols[c].name, name) == 0)
			return c;
	return -1;
}
