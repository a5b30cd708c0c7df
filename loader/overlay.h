/* overlay.h - your own per-instruction data laid over a graph.
 *
 * A data file gives values by instruction name (or node id); each of its
 * fields becomes a field of the graph's nodes:
 *   - CSV: a header line; the first column is `name` or `id`, every other
 *     one a field.
 *   - JSON: an object {"name": {"field": value, ...}, ...}, or an array of
 *     records [{"name": "dot.1", "field": value, ...}, ...] (a record names
 *     its instruction with "name", or its node with "id", not both).
 *     Values are numbers, strings, true or false (1, 0) or null (none).
 *   - An XLA buffer assignment (a dump's *-buffer-assignment.txt): one
 *     numeric field, buffer_bytes, the bytes of every buffer value named
 *     after the instruction (a tuple's elements add up).
 * The kind is told by the content: '{' or '[' first is JSON,
 * "BufferAssignment:" a buffer assignment, anything else CSV.  A UTF-8
 * byte-order mark first is skipped; UTF-16 is refused.
 *
 * Values, read alike in CSV and JSON (where a number, true and false are
 * read as the text they are written as):
 *   - An empty value (an empty cell, "", null, only spaces) and `nan` (any
 *     case) are none: the node has no value there.  Spaces and tabs around
 *     a number are not part of it.
 *   - A field is numeric when its first value in the file (in file order,
 *     whether or not its row names an instruction) is a number, as strtod
 *     reads decimal numbers ("3", "-0.5", "1e-3"; a number too small for a
 *     double is 0), and text otherwise.  Every later value of a numeric
 *     field must be a number: anything else is an error at its line naming
 *     the field and the value.  A text field takes any value as text.
 *   - A number too large for a double (1e400) and `inf` are errors where a
 *     number is read (a numeric field, or a field's first value).
 *   - A NUL byte in a CSV file is an error at its line naming its column.
 * Field names are letters, digits and '_', not starting with a digit,
 * each once; at most OVERLAY_MAX_FIELDS of them (a file with more is
 * refused at the line that adds one too many), and at most
 * OVERLAY_MAX_VALUES fields times nodes in all.
 *
 * Each instruction is named by one row (CSV), one key (JSON object) or one
 * record (JSON array): naming it again is an error naming both lines,
 * unless the caller chooses a merge (overlay_opts).  In a buffer
 * assignment the values of one instruction always add up.  Rows that name
 * no instruction are counted, the first five kept by name, and are no
 * error (their values are checked all the same).
 *
 * Errors (HS_EDATA): "FILE:LINE: what was expected" (CSV, buffer
 * assignment), "FILE:LINE (byte N): ..." (JSON); nothing is loaded then.
 * Names and values quoted in messages are the file's own bytes, cut.
 */
#ifndef HS_OVERLAY_H
#define HS_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/index.h"
#include "graph.h"

/* At most this many fields in one file: the query language numbers a
 * file's fields in 16 bits (query/session.c). */
#define OVERLAY_MAX_FIELDS 65536
/* At most this many fields times nodes (2 GB of values): every field is an
 * array over all the nodes. */
#define OVERLAY_MAX_VALUES ((int64_t)1 << 28)

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
	hs_index col_index;  /* the columns by name: overlay_find */
	hs_arena arena;      /* every string and array above but col_index */
} hs_overlay;

/* What an instruction named twice does (CSV and JSON). */
typedef enum overlay_merge {
	OVERLAY_MERGE_NONE,  /* an error naming both lines */
	OVERLAY_MERGE_SUM,   /* numbers add up, a text field keeps the last text */
	OVERLAY_MERGE_FIRST, /* each field keeps its first value */
	OVERLAY_MERGE_LAST,  /* each field keeps its last value */
} overlay_merge;

typedef struct overlay_opts {
	overlay_merge merge;
	/* The front end's words for choosing a merge ("--data-merge
	 * sum|first|last"), said by the error of a name given twice; or NULL. */
	const char *merge_words;
} overlay_opts;

/* "sum", "first", "last" or "none": the merge, or -1. */
int overlay_merge_of(const char *word);

/* Reads the data file at `path` for graph g into *out; opts NULL for the
 * defaults (OVERLAY_MERGE_NONE). */
int overlay_load(const hs_graph *g, const char *path, const overlay_opts *opts, hs_overlay *out,
		 hs_error *err);
/* The same from memory (`name` for messages). */
int overlay_parse(const hs_graph *g, const char *text, size_t n, const char *name, const overlay_opts *opts,
		  hs_overlay *out, hs_error *err);
/* What the graph's module gives per instruction itself, as the data a file
 * would: an HloProto's buffer assignment (hm_module.buffers) is the field
 * buffer_bytes, the same a *-buffer-assignment.txt of it gives; the
 * overlay's path is "FILE (its buffer assignment)".  0 with no column when
 * the module gives nothing; -1 with err set when out of memory. */
int overlay_from_module(const hs_graph *g, hs_overlay *out, hs_error *err);
void overlay_free(hs_overlay *o);
/* A column by name, or -1. */
int overlay_find(const hs_overlay *o, const char *name);

#endif
