/* overlay_impl.h - the table a data file is read into (overlay.c), filled
 * by the readers of its formats (overlay_read.c: CSV, JSON, XLA buffer
 * assignments).  Private to loader/.
 *
 * A reader calls ov_row once per row (record, value line) with the node
 * it names (-1 for none), then ov_value for each of its values, then
 * overlay.c makes the columns.  Places are lines (CSV, buffer
 * assignments) or byte offsets into the text (JSON); ov_where says them.
 */
#ifndef HS_OVERLAY_IMPL_H
#define HS_OVERLAY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"
#include "overlay.h"

typedef size_t ov_at;     /* a line, or in JSON a byte offset */

enum { OV_UNSET, OV_NUMBER, OV_TEXT };    /* a field's kind, from its first value */

typedef struct ov_field {
	int kind;
	ov_at first;           /* where its first value is */
	int64_t row;           /* the last row that gave it a value */
} ov_field;

typedef struct ov_cell {
	int64_t node;
	int col;
	union {
		double num;         /* a numeric field's value */
		const char *text;   /* a text field's, in the overlay's arena */
	};
} ov_cell;

typedef struct ov_builder {
	hs_overlay *o;
	const char *file;
	const char *text;      /* the file after a byte-order mark */
	size_t n, bom;         /* its length; the mark's */
	int json;              /* places are byte offsets */
	overlay_merge merge;
	const char *merge_words;
	const hs_graph *g;
	hs_index names;        /* node names: the nodes */
	int64_t *named;        /* [n_nodes]: where the node was named + 1, 0 when not yet */
	HS_VEC(hs_overlay_col) cols;
	HS_VEC(ov_field) fields;
	HS_VEC(ov_cell) cells;
	hs_error *err;
} ov_builder;

int ov_oom(ov_builder *b);
/* An HS_EDATA error "WHERE: MSG" at a place: -1. */
int ov_fail(ov_builder *b, ov_at at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "FILE:LINE" (JSON: "FILE:LINE (byte N)") into buf. */
const char *ov_where(const ov_builder *b, ov_at at, char *buf, size_t cap);
/* s cut to a few dozen bytes for a message ("..." where cut), into buf. */
const char *ov_clip(const char *s, char *buf, size_t cap);
/* The node named `name`, or -1. */
int64_t ov_node(const ov_builder *b, const char *name);
/* The column of field `name`, made when new (*added set then); -1 with
 * the error set (not a field name, one field too many, out of memory). */
int ov_column(ov_builder *b, const char *name, ov_at at, int *added);
/* A row naming `node` (-1: none; `name` is what the row said) at `at`:
 * counted; 0, or -1 when the node was named before and no merge is chosen. */
int ov_row(ov_builder *b, int64_t node, const char *name, ov_at at);
/* A value of the current row for field `col` (text as written; "" for
 * none): 0, or -1 when it does not fit the field (overlay.h). */
int ov_value(ov_builder *b, int64_t node, int col, const char *text, ov_at at);

int ov_read_csv(ov_builder *b);
int ov_read_json(ov_builder *b);
int ov_read_buffers(ov_builder *b);
int ov_read_module_buffers(ov_builder *b);

#endif
