/* commands.h - the query language's commands and what they share; internal
 * to query/ (other modules use query/query.h).
 *
 * Where things are:
 *   commands.c     the command table (name, syntax, help, function, keywords),
 *                  query_exec's dispatch through it, `help`, tab completion,
 *                  and the front-end commands (open, format, quit)
 *   cmd_common.c   helpers every command uses: errors, clauses (where, sort
 *                  by, limit, show), filtering and sorting rows, result columns
 *   cmd_nodes.c    nodes
 *   cmd_count.c    count by
 *   cmd_stats.c    stats
 *   cmd_graphs.c   graphs, and the graph fields and aggregates
 *   folder.c       query_fold: a command over one graph or every graph of a
 *                  folder (threads, path order, progress, skipped files)
 *   rows.c         rows gathered from many graphs, sorted, bounded by a limit
 *   cmd_graph.c    operands, users, neighbors, path, opcodes, fields
 *   cmd_show.c     show
 *   cmd_comps.c    computations, splits, collectives
 *   cmd_layers.c   layers (namespaces of op_name, rolled up; data.c holds
 *                  the session's layers, data files and sums)
 *   cmd_configs.c  configs, config, compare
 *   cmd_export.c   export (a region of the graph through Graphviz into a file)
 *
 * A command function is called with the parser on the token after the
 * command's name.  It parses its arguments, runs, fills `out` and returns 0,
 * or returns -1 with the parser's error set (query_fail_* for a usage error
 * with its column, query_data_fail for a data error, query_oom).
 *
 * Ownership: what a command parses lives in the parser's arena (see
 * query_impl.h); whatever it puts in `out` is owned by the result.
 */
#ifndef HS_QUERY_COMMANDS_H
#define HS_QUERY_COMMANDS_H

#include <stdint.h>

#include "base/index.h"
#include "base/vec.h"
#include "query/query_impl.h"

/* ---- the commands --------------------------------------------------- */

typedef int (*query_cmd_fn)(query_parser *p, query_result *out);

int query_cmd_nodes(query_parser *p, query_result *out);
int query_cmd_count(query_parser *p, query_result *out);
int query_cmd_stats(query_parser *p, query_result *out);
int query_cmd_show(query_parser *p, query_result *out);
int query_cmd_operands(query_parser *p, query_result *out);
int query_cmd_users(query_parser *p, query_result *out);
int query_cmd_neighbors(query_parser *p, query_result *out);
int query_cmd_path(query_parser *p, query_result *out);
int query_cmd_computations(query_parser *p, query_result *out);
int query_cmd_splits(query_parser *p, query_result *out);
int query_cmd_layers(query_parser *p, query_result *out);
int query_cmd_collectives(query_parser *p, query_result *out);
int query_cmd_opcodes(query_parser *p, query_result *out);
int query_cmd_fields(query_parser *p, query_result *out);
int query_cmd_configs(query_parser *p, query_result *out);
int query_cmd_config(query_parser *p, query_result *out);
int query_cmd_compare(query_parser *p, query_result *out);
int query_cmd_export(query_parser *p, query_result *out);
int query_cmd_graphs(query_parser *p, query_result *out);

/* ---- errors --------------------------------------------------------- */

/* "out of memory" (HS_EDATA); returns -1. */
int query_oom(query_parser *p);
/* Fails with a data problem found while running (no column): copies `e`
 * into the parser's error unless it is that error already; returns -1. */
int query_data_fail(query_parser *p, const hs_error *e);
/* 0 at the end of the line, else "unexpected ... (expected WHAT)". */
int query_expect_end(query_parser *p, const char *what);
/* "'KW' given twice at column N"; returns -1. */
int query_dup_clause(query_parser *p, size_t pos, const char *kw);
/* 0 when e is a number (a condition), else an error naming `clause`. */
int query_need_bool(query_parser *p, const query_expr *e, const char *clause);
/* 0 when e is a number, else an error naming `what`. */
int query_need_number(query_parser *p, const query_expr *e, const char *what);

/* ---- distinct values with their counts (count by, stats) ----------- */

typedef struct query_tally_item {
	double num;
	const char *text;          /* a text tally's: in its arena */
	int64_t count;
} query_tally_item;

/* Numbers (-0 counted as 0, every NaN as one value) or texts, each with its
 * count, in the order first added; all zero is empty. */
typedef struct query_tally {
	HS_VEC(query_tally_item) v;
	hs_index ix;
	int text;
	hs_arena keys;
} query_tally;

/* Adds n to the count of a value, new ones counted from 0: 0, or -1 when
 * out of memory. */
int query_tally_add(query_tally *t, double num, const char *text, int64_t n);
/* Sorts the items (the last use: nothing may be added after). */
void query_tally_sort(query_tally *t, int (*cmp)(const void *, const void *, void *), void *arg);
void query_tally_free(query_tally *t);

/* ---- text ----------------------------------------------------------- */

/* A malloc'd formatted string, or NULL when out of memory. */
char *query_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "12 nodes", "3 of 2774 nodes match", "..., first 10 shown", then
 * `extra`; malloc'd, NULL when out of memory. */
char *query_count_note(int64_t n, int64_t total, int64_t shown, const char *what,
		       int filtered, const char *extra);

/* ---- columns -------------------------------------------------------- */

/* One result column: its header and the expression that fills it. */
typedef struct query_colspec {
	const char *name;
	query_expr *e;
} query_colspec;

#define QUERY_MAX_COLS 512

/* An expression standing for one field by name (node or config scope), or
 * NULL (unknown name, out of memory). */
query_expr *query_field_expr(query_parser *p, int scope, const char *name);
/* The source text of an expression, for column headers (arena). */
const char *query_expr_source(query_parser *p, const query_expr *e);
/* The default columns of a node table (id, [name,] opcode, shape, [split,]
 * operands, users) into cols (room for 7); their count or -1. */
int query_default_node_cols(query_parser *p, query_colspec *cols);
/* Every field of a scope as columns (`show *`), at most max; count or -1. */
int query_all_cols(query_parser *p, int scope, query_colspec *cols, int max);
/* Builds the caches the columns need; -1 with a data error. */
int query_prepare_cols(query_parser *p, const query_colspec *cols, int n);
/* 1 when one of cols[0..n) is the same field as e. */
int query_has_col(const query_colspec *cols, int n, const query_expr *e);
/* A table of rows[0..n) (node ids or config indexes, by scope), one column
 * per colspec, after a leading number column `lead_name` when lead is not
 * NULL (lead[0..n)). */
int query_emit_rows(query_parser *p, query_result *out, int scope, const query_colspec *cols,
		    int ncols, const int64_t *rows, int64_t n, const char *lead_name,
		    const double *lead);

/* ---- rows ----------------------------------------------------------- */

/* The ids of rows 0..n-1 for which `where` holds (all when NULL), malloc'd,
 * their count in *count; NULL with the parser's error set. */
int64_t *query_filter_rows(query_parser *p, const query_expr *where, int64_t n,
			   int64_t *count);
/* Sorts ids[0..n) by e evaluated on each id: stable, missing values last
 * in either direction. */
int query_sort_ids(query_parser *p, int64_t *ids, int64_t n, const query_expr *e, int desc);

/* ---- clauses -------------------------------------------------------- */

/* The clauses of nodes and configs, in any order. */
typedef struct query_clauses {
	query_expr *where;
	query_expr *sort;
	int desc;
	long long limit; /* -1: none */
	query_colspec show[QUERY_MAX_COLS];
	int nshow;       /* -1: not given */
	int star;        /* show * */
} query_clauses;

/* Parses clauses up to the end of the line into c (zeroed by the caller);
 * `show` only when allow_show; `expected` names what may come for the
 * error message. */
int query_parse_clauses(query_parser *p, query_clauses *c, int allow_show,
			const char *expected);

/* ---- folds: one graph or a whole folder (folder.c) ------------------------ */

/* How a command runs over many graphs: a part per graph, folded into one
 * accumulator in path order.  A part and the accumulator are `part_size`
 * bytes, zeroed before use. */
typedef struct query_fold_ops {
	size_t part_size;
	/* Runs on the graph ctx->s is bound to (its file: ctx->s->ref) and fills
	 * part.  ctx is a parser over the same line (for its arena and error),
	 * ctx->s a session of its own: runs of several graphs may go on at once
	 * and must only read `plan`.  -1 with the error set (the file is then
	 * skipped in a folder). */
	int (*run)(query_parser *ctx, const void *plan, void *part);
	/* Folds part (the next graph in path order) into acc, taking what it
	 * keeps; part is freed with free_part after.  1 when acc needs no more
	 * graphs, 0 to go on, -1 with err set (out of memory). */
	int (*merge)(const void *plan, void *acc, void *part, hs_error *err);
	void (*free_part)(void *part);
} query_fold_ops;

typedef struct query_fold_info {
	int folder;       /* over a folder's graphs (else the session's one) */
	int64_t graphs;   /* graphs folded */
	int64_t files;    /* files in the folder (1 for one graph) */
	int cut;          /* merge asked for no more: files left unread */
} query_fold_info;

/* Runs `ops` on the session's graph, or on every file of its folder (with
 * graph_open_parts(parts), on worker threads, merging in path order) into
 * acc.  Files that cannot be read or fail to run are listed in
 * out->skipped and out->graphs counts the others.  Returns 0; 1 when the
 * parser only plans (query_parts: nothing ran); -1 with the parser's error
 * set: stopped by the progress callback, out of memory, or a data error on
 * a single graph. */
int query_fold(query_parser *p, const query_fold_ops *ops, const void *plan, unsigned parts,
	       void *acc, query_result *out, query_fold_info *info);

/* nodes and configs over a folder, or planned (cmd_nodes.c): the rows of
 * every graph by the clauses c with the columns cols[0..ncols); `what` is
 * "node" or "config" for the note. */
int query_fold_rows(query_parser *p, query_result *out, const query_clauses *c,
		    const query_colspec *cols, int ncols, int scope, const char *what);

/* ---- rows of many graphs (rows.c) ------------------------------------------ */

/* Rows of result tables gathered from one graph or many, each with its own
 * copy of its cells: sorted by a key (ties in path order, then in each
 * graph's own order) and kept to `limit` (a bounded heap), or in path order
 * up to `limit`.  For nodes, configs and graphs. */
typedef struct query_row query_row;
typedef struct query_rows {
	int ncols;              /* the command's columns */
	int sorted, text_key, desc;
	long long limit;        /* -1: none */
	query_row **v;          /* a heap, worst first, when sorted and limited */
	size_t n, cap;
	int64_t matched, total; /* rows that matched / rows looked at, summed */
	int64_t graphs_matched; /* graphs with at least one match */
	int units_set;          /* units[] holds the first graph's units */
	unsigned char units[QUERY_MAX_COLS]; /* each column's unit, HS_U_NONE
	                        * where the graphs disagree (a runtime of layout
	                        * and tile files) */
} query_rows;

/* Adds a row of the graph ctx->s is bound to: id (node, config or -1),
 * cells[0..rs->ncols) (text copied) and its sort key (knum, or ktext when
 * text_key); seq orders rows of one graph.  -1 when out of memory. */
int query_rows_add(query_rows *rs, const query_session *s, int scope, int64_t id,
		   const query_cell *cells, const query_type *types, double knum,
		   const char *ktext, int64_t seq, hs_error *err);
/* Folds the rows of `part` (the next graph) into acc, leaving part empty;
 * 1 when acc is full (a limit without sort), 0, -1 out of memory. */
int query_rows_merge(query_rows *acc, query_rows *part, hs_error *err);
void query_rows_free(query_rows *rs);
/* The table: the columns `names` / `types`, after file, collection and
 * split when `lead` (rows from a folder), rows in order; row paths set. */
/* The units of the columns `cols` on the graph ctx->s is bound to, folded
 * into rs->units. */
void query_rows_units(query_rows *rs, const query_session *s, const query_colspec *cols, int ncols);
int query_rows_table(query_rows *rs, int lead, const char *const *names, const query_type *types,
		     query_result *out, hs_error *err);

/* A table result of the rows ids[0..n) of the bound graph (as
 * query_emit_rows) turned into rows of rs, with sort keys from `sort`
 * (NULL: none); used by the runs of nodes and configs. */
int query_rows_from_ids(query_parser *ctx, query_rows *rs, int scope, const query_colspec *cols,
			int ncols, const int64_t *ids, int64_t n, const query_expr *sort);

#endif
