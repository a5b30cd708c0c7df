/* overlay.h - your own per-instruction data laid over a graph.
 *
 * A data file gives values by instruction name (or node id); each of its
 * columns becomes a field of the graph's nodes:
 *   - CSV: a header line; the first column is `name` or `id`, every other
 *     one a field.  A column is numeric when every value it gives parses as
 *     a number (an empty cell gives none), text otherwise.
 *   - JSON: an object {"name": {"field": value, ...}, ...}; values are
 *     numbers, strings (numeric when every one of the field parses), true
 *     or false (1, 0) or null (none).
 *   - An XLA buffer assignment (a dump's *-buffer-assignment.txt): one
 *     numeric field, buffer_bytes, the bytes of every buffer value named
 *     after the instruction (a tuple's elements add up).
 * The kind is told by the content: '{' (or '[') first is JSON, "BufferAssignment:"
 * a buffer assignment, anything else CSV.  A node named twice adds its
 * numbers up and keeps its last text.  Rows that name no instruction are
 * counted, the first five kept by name, and are no error.  Field names are
 * letters, digits and '_', not starting with a digit, each once.
 *
 * Errors (HS_EDATA): "FILE:LINE: what was expected" (CSV, buffer
 * assignment), "FILE: byte N: ..." (JSON); nothing is loaded then.
 */
#ifndef HS_OVERLAY_H
#define HS_OVERLAY_H

#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "graph.h"

typedef struct hs_overlay_col {
	char *name;
	int numeric;
	double *num;        /* numeric: [n_nodes], NAN where none is given */
	char **text;        /* text: [n_nodes], NULL where none is given */
} hs_overlay_col;

#define OVERLAY_UNMATCHED_KEPT 5

typedef struct hs_overlay {
	char *path;
	int64_t n_nodes;
	int n_cols;
	hs_overlay_col *cols;
	int64_t rows;        /* records (or values) the file gave */
	int64_t matched;     /* nodes that got a value */
	int64_t unmatched;   /* records that named no node */
	char *unmatched_names[OVERLAY_UNMATCHED_KEPT];
	hs_arena arena;      /* every string and array above */
} hs_overlay;

/* Reads the data file at `path` for graph g into *out. */
int overlay_load(const hs_graph *g, const char *path, hs_overlay *out, hs_error *err);
/* The same from memory (`name` for messages). */
int overlay_parse(const hs_graph *g, const char *text, size_t n, const char *name, hs_overlay *out,
		  hs_error *err);
void overlay_free(hs_overlay *o);
/* A column by name, or -1. */
int overlay_find(const hs_overlay *o, const char *name);

#endif
