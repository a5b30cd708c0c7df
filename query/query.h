/* query.h - hloscope's query language: one command line in, one result out.
 *
 * One language serves `hloscope repl`, `hloscope query` (batch) and the
 * explorer's `:` line.  A session is bound to an open graph; query_exec()
 * parses and runs one command line and returns a value: a table, a text
 * block, or an action the front end must perform itself (open, quit,
 * format).  `help` lists the commands and fields; one command table in
 * commands.c drives the parser, the help text and tab completion.
 *
 *   nodes where opcode = convolution and rank >= 4 sort by cost desc limit 5
 *   count by opcode where users > 1
 *   stats shape_dimensions_product where configurable
 *
 * Errors: query_exec() returns -1 with `err` set to a one-line message that
 * names the column ("unknown field 'shap' at column 12 (did you mean
 * 'shape'?)", status HS_EUSAGE), or status HS_EDATA when the graph's data
 * is at fault (e.g. a node config array that fails to load).  The column is
 * also available alone (query_error_column) so a front end can draw a caret
 * under its own input line; query_error_caret() builds the usual
 * "message / line / caret" text.
 *
 * A session may also stand for a folder of graphs (query_session_new_dataset):
 * then nodes, count by, stats, configs and graphs run over every graph in
 * it, on several threads, loading each graph with only the arrays the query
 * reads (query_parts) and merging the results in path order, so the output
 * does not depend on the thread count.  Row results lead with the file,
 * collection and split of each row's graph (query_table.path holds the
 * graph's path); unreadable files are skipped and listed in
 * query_result.skipped.  The commands about one node or config need a
 * graph session.
 *
 * Ownership: query_session_new() returns a session freed by
 * query_session_free().  The session borrows the graph and the model: the
 * caller keeps them alive while the session uses them and frees them itself
 * (after query_session_set_graph() to a new graph, or after freeing the
 * session).  query_exec() fills a query_result that owns everything in it
 * and is released by query_result_free().  query_complete() returns a
 * NULL-terminated array of malloc'd strings freed by query_strv_free().
 */
#ifndef HS_QUERY_H
#define HS_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "loader/dataset.h"
#include "loader/graph.h"
#include "loader/overlay.h"
#include "doc/layers.h"
#include "model/cost.h"
#include "model/model.h"
#include "model/predictor.h"

typedef struct query_session query_session;

typedef enum query_type {
	QUERY_NUM,  /* cells use .num; NaN means "no value" (null in JSON) */
	QUERY_TEXT, /* cells use .text; never NULL */
} query_type;

typedef struct query_cell {
	double num;
	const char *text; /* owned by the result */
} query_cell;

typedef struct query_table {
	int ncols;
	char **cols;       /* [ncols] column names */
	query_type *types; /* [ncols] */
	int64_t nrows;
	query_cell *cells; /* [nrows * ncols], row-major */
	int64_t *node;     /* [nrows] the node id a row stands for, or -1 */
	int64_t *config;   /* [nrows] the config index a row stands for, or -1 */
	const char **path; /* [nrows] the graph file a row stands for (folder
	                    * results and `graphs`), or NULL for none at all */
	unsigned char *units;    /* [ncols] enum hs_unit of a number column
	                          * (HS_U_NONE: plain), or QUERY_UNIT_ROW */
	unsigned char *row_unit; /* [nrows] the unit of a QUERY_UNIT_ROW column
	                          * in each row (stats: one field a row), or NULL */
} query_table;

/* A column whose unit is its row's (query_table.row_unit). */
#define QUERY_UNIT_ROW 255

static inline const query_cell *query_cell_at(const query_table *t, int64_t row,
					      int col)
{
	return &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
}

typedef enum query_kind {
	QUERY_NONE,   /* nothing to show: a blank line or a comment */
	QUERY_TABLE,  /* .table */
	QUERY_BLOCK,  /* .text: lines each ending in '\n' (show ID, help) */
	QUERY_ACTION, /* .action: the front end must act */
} query_kind;

typedef enum query_action {
	QUERY_ACT_NONE,
	QUERY_ACT_OPEN,   /* open .arg (a path); rebind with query_session_set_graph */
	QUERY_ACT_QUIT,   /* quit / exit */
	QUERY_ACT_FORMAT, /* switch the output format to .format */
} query_action;

typedef enum query_format {
	QUERY_FMT_TABLE, /* aligned columns, header line, note line after */
	QUERY_FMT_CSV,   /* RFC 4180, header line, numbers round-trip exactly */
	QUERY_FMT_JSON,  /* one document per result: tables are arrays of objects */
} query_format;

typedef struct query_result {
	query_kind kind;
	const char *command; /* the command's name ("nodes", "count", ...); static */
	query_table table;   /* QUERY_TABLE */
	char *text;          /* QUERY_BLOCK */
	char *note;          /* QUERY_TABLE: a one-line summary ("3 of 2774 nodes"), or NULL */
	query_action action; /* QUERY_ACTION */
	char *arg;           /* QUERY_ACT_OPEN: the path */
	query_format format; /* QUERY_ACT_FORMAT: the new format */
	/* Folder queries: the graphs read, and the files skipped because they
	 * could not be read or queried, "REL: why" each. */
	int64_t graphs;
	char **skipped;      /* [nskipped] */
	size_t nskipped;
} query_result;

/* Sessions. */
query_session *query_session_new(hs_graph *g, hs_error *err);
void query_session_free(query_session *s);
/* Rebinds to another graph (dropping every cache of the old one). */
void query_session_set_graph(query_session *s, hs_graph *g);
hs_graph *query_session_graph(const query_session *s);
/* The model behind `predicted` (NULL, the default: the analytic estimate).
 * A fit (query_session_fit) stays the active predictor until it is
 * dropped. */
void query_session_set_model(query_session *s, const hs_model *m);

/* What a session knows about its graph.  A session on one graph owns every
 * number derived from it: made on first use, kept until the session is
 * rebound, and shared by whoever holds the session (the explorer holds one
 * per open graph: its views and its `:` line read the same costs, ranks
 * and predictions, so a fit reaches them all).  Each fails with err set:
 * HS_ENOMEM when out of memory, HS_EDATA when the graph is at fault; never
 * NULL without an error. */

/* The analytic cost of every node (model/cost.h), [n_nodes]. */
const cost_estimate *query_session_cost(query_session *s, hs_error *err);
/* The measured runtimes' competition ranks (1 = fastest, ties share;
 * metrics_ranks), [n_configs], into *rank: NULL when the graph has no
 * measured runtimes (a test file).  0, or -1 with err set. */
int query_session_ranks(query_session *s, const int64_t **rank, hs_error *err);
/* Node v's shape as HLO writes it: the module's text (a tuple in full), or
 * decoded from the features on a bare .npz; "" when the graph has neither,
 * "?" when out of memory.  Stable until the session is rebound. */
const char *query_session_shape(query_session *s, int64_t v);
/* The measured runtimes' minimum, median (as numpy.median) and maximum into
 * out[3] (the graphs command's runtime_min, _median, _max); NaN when the
 * graph has none measured.  0, or -1 with err set. */
int query_session_runtime_summary(query_session *s, double out[3], hs_error *err);
/* The root of node_splits segment k: its last node marked is_root (the
 * 140 documented features), else its last node; -1 with err set when out
 * of memory or k is out of range. */
int64_t query_session_split_root(query_session *s, int64_t k, hs_error *err);

/* The active predictor (model/predictor.h), what `predicted` and
 * `predicted_rank` read: the fit when one is set, else the model's (the
 * analytic estimate without a model).  NULL with err set when it cannot
 * predict (err says why, without the model's name: model_describe). */
const predictor *query_session_predictor(query_session *s, hs_error *err);
/* Fits on a random `fraction` of the measured configs (predictor_from_fit
 * with `seed`) and makes the fit the active predictor.  0, or -1 with err
 * set (the previous predictor stays). */
int query_session_fit(query_session *s, double fraction, uint64_t seed, hs_error *err);
/* Drops the fit: the model's predictor is active again. */
void query_session_fit_off(query_session *s);

/* Lays data over the graph's nodes (loader/overlay.h): the session takes
 * *o (left empty) and each of its columns becomes a node field under its
 * own name (numeric or text as the column), missing where the data gives
 * none.  -1 with err set when a column's name is a field already
 * (HS_EUSAGE), the data was read for a graph of another size (HS_EUSAGE),
 * or out of memory; *o is then left to the caller.  Rebinding the session
 * drops them. */
int query_session_add_overlay(query_session *s, hs_overlay *o, hs_error *err);

/* Reads the data file at `path` (loader/overlay.h: CSV, JSON, an XLA
 * buffer assignment) for the session's graph and lays it over the nodes
 * (query_session_add_overlay): its columns are node fields at once.  opts
 * (NULL for the defaults) says what an instruction named twice does.  -1
 * with err set and nothing laid over when the file is bad (HS_EDATA,
 * "FILE:LINE: what was expected"), a column is named as a field already
 * (HS_EUSAGE), the session is a folder's (HS_EUSAGE) or out of memory. */
int query_session_load_data(query_session *s, const char *path, const overlay_opts *opts, hs_error *err);
/* The data laid over the graph: how many files, and one line about file k,
 * malloc'd (NULL when out of memory): "FILE: 812 rows, 800 instructions
 * matched, fields time_us (number), kind (text)" (the first
 * QUERY_DATA_NOTE_FIELDS fields, then "and 65528 more"); then, when some
 * rows named no instruction, "; 12 rows name no instruction: a, b, c, d, e, ...". */
#define QUERY_DATA_NOTE_FIELDS 8
int query_session_data_count(const query_session *s);
const hs_overlay *query_session_data(const query_session *s, int k);
char *query_session_data_note(const query_session *s, int k);
/* The numeric data fields, in field order: how many, and field i's name and
 * values ([n_nodes], NaN where the data gives none). */
int query_session_data_nums(const query_session *s);
const char *query_session_data_num(const query_session *s, int i, const double **values);

/* The namespaces of op_name (model/layers.h), with the analytic costs: made
 * on first use, kept until the session is rebound.  NULL with err set when
 * out of memory or the cost cannot be computed. */
const hs_layers *query_session_layers(query_session *s, hs_error *err);

/* Numbers rolled up per namespace of query_session_layers, over the nodes
 * of `keep` (NULL: every node; else keep[v] != 0), each node counted in its
 * own namespace and every one above it: nodes, configurable nodes, the
 * analytic cost, flops and bytes of the executed instructions (as
 * model/layers.h sums them) and the sum of each numeric data field (NaN when
 * none of the nodes has a value).  Linear in nodes and namespaces.  The
 * opcode mix of a namespace, its three commonest opcodes with their share
 * ("dot 50%, add 25%, fusion 25%"), is made when first asked for
 * (query_layer_sums_mix: linear in the nodes under it; "" when out of
 * memory). */
typedef struct query_layer_sums {
	int64_t n;                  /* namespaces */
	int64_t *nodes, *configurable; /* [n] */
	double *cost, *flops, *bytes;  /* [n], seconds, FLOP, bytes */
	int n_data;                 /* numeric data fields */
	const char **data_name;     /* [n_data] (the session's: valid while it is bound) */
	double *data;               /* [n * n_data], row-major */
	int64_t *own_off, *own_idx; /* the kept nodes of each namespace's own: CSR */
	char **mix;                 /* [n], NULL until asked for */
} query_layer_sums;
int query_layer_sums_make(query_session *s, const uint8_t *keep, query_layer_sums *out, hs_error *err);
void query_layer_sums_free(query_layer_sums *sums);
const char *query_layer_sums_mix(query_session *s, query_layer_sums *sums, int64_t k);
/* A session over every graph file of a folder index (borrowed: the caller
 * keeps it alive and frees it after the session).  Entries with an error
 * are skipped with it; the others are opened as queries need them, so
 * dataset_list() is enough.  Field names are those of the dataset's
 * 140-feature graphs; a field a graph lacks (normalizer on a layout graph)
 * is a missing value there. */
query_session *query_session_new_dataset(const ds_index *ix, hs_error *err);
/* The folder index of a folder session, NULL for a graph session. */
const ds_index *query_session_dataset(const query_session *s);
/* Worker threads of folder queries; 0 (the default): one per CPU. */
void query_session_set_threads(query_session *s, int n);
/* Called from query_exec's thread about every 100 ms while a folder query
 * runs, with the files answered so far, their total and the seconds
 * elapsed; a non-zero return stops the query (query_exec then fails with
 * "stopped ..." and query_stopped() says so).  NULL: none. */
typedef int (*query_progress_fn)(void *ctx, size_t done, size_t total, double seconds);
void query_session_set_progress(query_session *s, query_progress_fn fn, void *ctx);
/* 1 when the last query_exec was stopped by its progress callback. */
int query_stopped(const query_session *s);
/* What a command line would read of each graph, as GRAPH_PART_* bits of
 * loader/graph.h (node_opcode is always read), without running it: 0 with
 * *parts set, or -1 with err set as query_exec would (a command about one
 * graph's node or config reads it all: GRAPH_PART_ALL). */
int query_parts(query_session *s, const char *line, unsigned *parts, hs_error *err);

/* Parses and runs one command line.  Returns 0 with `out` filled, or -1 with
 * `err` set and `out` left empty (query_result_free() is safe on it either
 * way). */
int query_exec(query_session *s, const char *line, query_result *out,
	       hs_error *err);
/* The 1-based column of the last error of query_exec, 0 when it has none. */
int query_error_column(const query_session *s);
/* "MSG\n  LINE\n  ^\n" (the caret under `column`; just "MSG\n" when column
 * is 0) into buf; returns the length it needed, like snprintf. */
int query_error_caret(const char *msg, const char *line, int column,
		      char *buf, size_t cap);
void query_result_free(query_result *r);

/* Writes a result to `out` in the given format (actions and QUERY_NONE
 * write nothing).  Returns 0, or -1 with `err` set when writing fails. */
int query_write(FILE *out, const query_result *r, query_format fmt,
		hs_error *err);
/* "table", "csv", "json" -> format, or -1. */
int query_format_parse(const char *name);

/* ---- Filters over a table the caller holds (the explorer's `\`) ------
 *
 * A condition over the columns of a table, in the query language: the
 * column names are its fields (a name of several words, "group size", is
 * one field), and expressions are the language's: comparisons, `in`, `~`,
 * `and` / `or` / `not`, parentheses, quotes, numbers with the column's unit
 * ("cost < 12 us", "share > 5%").  As the table shows its cells:
 *   - text compares ignoring case (`=`, `<`, `in`, `~`), but `==` is the
 *     exact text;
 *   - a numeric column compares its value; compared with a string or a word
 *     that is no column (`=`, `!=`) or matched with `~`, its text as shown;
 *     `= 1.23 ms` (a unit, `=` or `!=`) reads back the number the cell shows;
 *   - `-` is no value: `value = -`, `value != -`;
 *   - an unquoted regular expression runs to the next space (or a `)` or
 *     `,` it does not open): `name ~ ^N[0-2]$`.
 * Text with none of = < > ~ or `in (` is plain text: the rows whose column
 * `plain_col` contains it, ignoring case (COL~TEXT with TEXT escaped). */
typedef struct query_column {
	const char *name;
	query_type type; /* QUERY_NUM: the column has numbers (and their text) */
	int unit;        /* enum hs_unit of its numbers */
} query_column;

typedef struct query_cells {
	void *ctx;
	/* The number of a cell of a QUERY_NUM column; NAN for none. */
	double (*num)(void *ctx, int64_t row, int col);
	/* The text of a cell as the table shows it, whole, into buf (cap
	 * bytes); returns buf or a text that stays valid as long. */
	const char *(*text)(void *ctx, int64_t row, int col, char *buf, size_t cap);
	size_t cap;      /* bytes of the buffer the filter gives text() */
} query_cells;

typedef struct query_filter query_filter;

/* Compiles `text` over the columns.  NULL with err set (and *err_col the
 * 1-based column of `text` it names, 0 for none) when it is no condition
 * over them (HS_EUSAGE) or out of memory. */
query_filter *query_filter_new(const char *text, const query_column *cols, int ncols, int plain_col,
			       hs_error *err, int *err_col);
void query_filter_free(query_filter *f);
/* The condition as it reads back: spaces around comparisons dropped and
 * others single (`cost<12 us and users>1`), plain text as COL~REGEX. */
const char *query_filter_text(const query_filter *f);
/* The conditions joined by a top-level `and` (1 for any other). */
int query_filter_terms(const query_filter *f);
/* Appends to `out` f's text and `term` joined by `and` (f's in parentheses
 * when its top level is an `or`): the filter with one more condition. */
void query_filter_join(const query_filter *f, const char *term, hs_strbuf *out);
/* The rows of first .. first + n - 1 that pass, in order, into keep[n]:
 * their count; -1 with err set when a row could not be evaluated (a
 * regular expression over its limits, HS_EUSAGE, naming the row's text;
 * out of memory, HS_ENOMEM), keep[] then undefined. */
int64_t query_filter_range(query_filter *f, const query_cells *src, int64_t first, int64_t n,
			   int64_t *keep, hs_error *err);
/* The filter's text without the top-level terms that read column `col`
 * (all of it when there is one term; "" then), malloc'd: the filter to
 * compile once the column is gone.  NULL when out of memory. */
char *query_filter_without(const query_filter *f, int col);
/* Appends to `out` the condition COL OP VALUE ready to join a filter's
 * text, VALUE as text: a bare word, or quoted as the language reads it back
 * ("==": the exact text, COL=="jit(run)/add").  -1 when out of memory. */
int query_filter_term(const query_column *cols, int ncols, int col, const char *op, const char *value,
		      hs_strbuf *out);

/* Tab completion of the word at line[start, end): command names, then what
 * the position takes (field names, opcode names, keywords).  Sets *files to
 * 1 when the position takes a file path (open FILE, export ... -o FILE); the
 * front end completes paths itself then.  Never NULL except when out of
 * memory. */
char **query_complete(const query_session *s, const char *line, int start,
		      int end, int *files);
void query_strv_free(char **v);

/* The fields a session knows, in help order (derived fields first, then the
 * node features); names are valid while the session is bound to the graph. */
size_t query_field_count(const query_session *s);
const char *query_field_name(const query_session *s, size_t i);

/* The command names, in help order; NULL past the end. */
const char *query_command_name(size_t i);

/* The closest of `names` to `word` (edit distance, case-insensitive; else
 * the first name that starts with a word of 3 or more letters), or NULL:
 * the "did you mean" of every front end.  Borrows; returns one of names. */
const char *query_suggest(const char *word, const char *const *names,
			  size_t n);

/* The name of g's node closest to `name` (query_suggest over every
 * instruction name; on a bare .npz, for a derived "opcode.N", the name node
 * N has), copied into buf (cap bytes); NULL when none is close. */
const char *query_suggest_node(const hs_graph *g, const char *name, char *buf, size_t cap);

/* The name of g's HLO computation closest to `word` (query_suggest over
 * every computation's name), copied into buf (cap bytes); NULL when none is
 * close or memory runs out. */
const char *query_suggest_computation(const hs_graph *g, const char *word, char *buf,
				      size_t cap);

#endif
