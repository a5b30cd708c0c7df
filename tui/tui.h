/* tui.h - the terminal explorer: a stack of views over a dataset and its graphs.
 *
 * Every screen is a view implementing `tui_view_ops` (name, scope, draw,
 * request, select, done) and opened by its constructor (tui_open_NAME), in
 * the manner of tig.  The main loop (app.c) knows
 * nothing about any single view: it turns keys into requests through the one
 * command table TUI_REQUESTS, which also generates the `:` command names, the
 * completion list and the `?` help screen.  Most views hold one or two
 * `tui_table` panes (table.c), which give them sorting, filtering, search,
 * frequency tables, extra columns and mouse selection for free; a view's
 * tables and ops are static data (tui_table_spec, designated initializers).
 * Keys come from the terminal or from a script run without one
 * (HLOSCOPE_SCRIPT, script.c), which saves screens as text (capture.c).
 *
 * Ownership: tui_run() owns everything it opens.  A view owns its `data` and
 * tables (freed by ops->done) and holds one reference on its document
 * (tui_doc_ref / tui_doc_unref); a document owns its graph and every lazily
 * computed array in it.
 */
#ifndef HS_TUI_H
#define HS_TUI_H

#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "loader/dataset.h"
#include "loader/overlay.h"
#include "base/error.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "model/cost.h"
#include "model/model.h"
#include "model/predictor.h"
#include "query/query.h"

/* ---- Entry point ---------------------------------------------------- */

typedef struct tui_options {
	const char *path;       /* a graph file (.npz, .pb, HLO text, FILE#N) or a folder */
	const char *model_path; /* learned model for predictions; NULL = analytic */
	const char *keys;       /* scripted keys, run then quit (bench); NULL = interactive */
	const char *script;     /* script file, run without a terminal (script.c); NULL = none */
	const char *bench_log;  /* file that receives timings; NULL = none */
	int mask_model;         /* numbers from the cost model and predictions print as "#" */
	const char *const *data; /* data files laid over the graph (--data), ndata of them */
	int ndata;
	overlay_opts data_opts; /* how they and :data are read (an instruction named twice) */
	const char *diff_b;     /* path is A of `hloscope diff A B` and this B: the diff view; NULL = none */
} tui_options;

/* Loads `o->path` (before the terminal is touched: a bad file fails here
 * with err set and nothing drawn), then runs the explorer until the user
 * quits or the script ends.  Returns 0, 128 + N after signal N, or -1 with
 * err set (the terminal is restored first); a failed script says FILE:LINE. */
int tui_run(const tui_options *o, hs_error *err);

/* ---- The command table ---------------------------------------------- */

/* Scopes: which views offer a command (and list it in their help). */
enum {
	TUI_S_ALL = 1,     /* every view */
	TUI_S_TABLE = 2,   /* views made of tables */
	TUI_S_GRAPH = 4,   /* views that belong to an open graph */
	TUI_S_NODE = 8,    /* node detail */
	TUI_S_CONFIGS = 16,/* configs view */
	TUI_S_CANVAS = 32, /* graph drawing */
	TUI_S_COMPARE = 64,/* two configs side by side (view_compare.c) */
	TUI_S_OPENS = 128, /* views where Enter opens or acts on the selection (all but help) */
	TUI_S_PANES = 256, /* views of two panes (computed) */
	TUI_S_COLUMNS = 512, /* the focused table can show or hide columns (computed) */
	TUI_S_NODES = 1024,  /* node tables */
	TUI_S_TREE = 2048,   /* the layers tree (view_layers.c) */
	TUI_S_DIFF = 4096,   /* two modules side by side (view_diff.c, view_diff_pair.c) */
	TUI_S_DATASET = 8192,/* a folder's graphs, a dump module's passes (view_dataset.c, view_passes.c) */
};

#define TUI_CTRL(c) ((c) & 0x1f)

/* X(ID, ":name", key, alternate key, scope, help).  Key 0: `:` only. */
#define TUI_REQUESTS(X)                                                                          \
	X(UP, "up", 'k', KEY_UP, TUI_S_ALL, "move up")                                             \
	X(DOWN, "down", 'j', KEY_DOWN, TUI_S_ALL, "move down")                                     \
	X(LEFT, "left", 'h', KEY_LEFT, TUI_S_ALL, "previous column (a drawing: the node to the left)") \
	X(RIGHT, "right", 'l', KEY_RIGHT, TUI_S_ALL, "next column (a drawing: the node to the right)") \
	X(PAGE_UP, "page-up", KEY_PPAGE, TUI_CTRL('b'), TUI_S_ALL, "one page up")                  \
	X(PAGE_DOWN, "page-down", KEY_NPAGE, ' ', TUI_S_ALL, "one page down")                      \
	X(HALF_UP, "half-up", TUI_CTRL('u'), 0, TUI_S_ALL, "half a page up")                       \
	X(HALF_DOWN, "half-down", TUI_CTRL('d'), 0, TUI_S_ALL, "half a page down")                 \
	X(TOP, "top", 'g', KEY_HOME, TUI_S_ALL, "first row")                                       \
	X(BOTTOM, "bottom", 'G', KEY_END, TUI_S_ALL, "last row")                                   \
	X(ENTER, "enter", '\n', KEY_ENTER, TUI_S_OPENS, "open the selected row")                   \
	X(NEXT_PANE, "next-pane", '\t', KEY_BTAB, TUI_S_PANES, "switch between panes")             \
	X(BACK, "back", 'q', KEY_BACKSPACE, TUI_S_ALL, "close this view (quit on the last one)")    \
	X(QUIT, "quit", 'Q', 0, TUI_S_ALL, "quit hloscope")                                        \
	X(HELP, "help", '?', KEY_F(1), TUI_S_ALL, "keys and commands of this view")               \
	X(PROMPT, "prompt", ':', 0, TUI_S_ALL, "command line: view commands or a query")           \
	X(REDRAW, "redraw", TUI_CTRL('l'), 0, TUI_S_ALL, "redraw the screen")                      \
	X(SEARCH, "search", '/', 0, TUI_S_TABLE, "search the current column")                      \
	X(NEXT, "next", 'n', 0, TUI_S_TABLE, "next match")                                         \
	X(PREV, "prev", 'N', 0, TUI_S_TABLE, "previous match")                                     \
	X(FILTER, "filter", '\\', 0, TUI_S_TABLE, "filter rows: TEXT, or COL=V, COL<12 us, COL~RE joined by and/or/not") \
	X(SORT_ASC, "sort", '[', 0, TUI_S_TABLE, "sort ascending on the current column")           \
	X(SORT_DESC, "sort-desc", ']', 0, TUI_S_TABLE, "sort descending on the current column")    \
	X(FREQ, "freq", 'F', 0, TUI_S_TABLE, "frequency table of the current column")              \
	X(ADD_COLUMN, "column", '+', 0, TUI_S_COLUMNS, "add a column (any node feature, cost)")    \
	X(DEL_COLUMN, "hide-column", '-', 0, TUI_S_COLUMNS, "remove the current column")           \
	X(WRITE, "write", 0, 0, TUI_S_TABLE, "write the table as CSV: write FILE")                 \
	X(GOTO, "goto", 0, 0, TUI_S_ALL, "go to a node by id or name (or row): goto N|NAME")     \
	X(OPEN, "open", 0, 0, TUI_S_ALL, "open a file or folder: open PATH")                       \
	X(SAVE_DISPLAY, "save-display", 0, 0, TUI_S_ALL, "write the screen as text: save-display [--attrs] FILE") \
	X(OVERVIEW, "overview", 'o', 0, TUI_S_GRAPH, "graph overview")                             \
	X(NODES, "nodes", 't', 0, TUI_S_GRAPH, "table of all nodes")                               \
	X(CONFIGS, "configs", 'c', 0, TUI_S_GRAPH, "configs, runtimes and predictions")            \
	X(DRAW, "draw", 'v', 0, TUI_S_GRAPH | TUI_S_DIFF, "draw the graph around the selected node, or: draw ID") \
	X(HIST_BACK, "jump-back", '<', 0, TUI_S_NODE, "back in the jump history")                  \
	X(HIST_FWD, "jump-forward", '>', 0, TUI_S_NODE, "forward in the jump history")             \
	X(CALLER, "caller", 'u', 0, TUI_S_NODE, "up to the caller: from a parameter to the operand it stands for, else to the node that calls this computation") \
	X(MARK, "mark", 'm', 0, TUI_S_CONFIGS, "mark a config (two marks: A and B)")               \
	X(COMPARE, "compare", 'C', 0, TUI_S_GRAPH, "compare two configs: compare A B [FILE] (configs view: the marks)") \
	X(FIT, "fit", 'f', 0, TUI_S_CONFIGS, "fit on a share of the measured configs, rank the rest: fit [FRACTION|off]") \
	X(COMPARE_ALL, "all", 'a', 0, TUI_S_COMPARE | TUI_S_DIFF, "show every row / only the differing ones") \
	X(PAN_LEFT, "pan-left", 'H', KEY_SLEFT, TUI_S_CANVAS, "pan the drawing left")              \
	X(PAN_RIGHT, "pan-right", 'L', KEY_SRIGHT, TUI_S_CANVAS, "pan the drawing right")          \
	X(PAN_UP, "pan-up", 'K', KEY_SR, TUI_S_CANVAS, "pan the drawing up")                       \
	X(PAN_DOWN, "pan-down", 'J', KEY_SF, TUI_S_CANVAS, "pan the drawing down")                 \
	X(GROW, "grow", '+', 0, TUI_S_CANVAS, "one more step around the centre")                   \
	X(SHRINK, "shrink", '-', 0, TUI_S_CANVAS, "one step less around the centre")               \
	X(DETAIL, "detail", 'i', 0, TUI_S_CANVAS | TUI_S_NODES | TUI_S_DIFF, "node detail of the selected node (a drawing: under the cursor)") \
	X(SPLITS, "splits", 0, 0, TUI_S_GRAPH, "the node_splits segments of the graph")          \
	X(COMPUTATIONS, "computations", 0, 0, TUI_S_GRAPH, "the HLO computations of the graph")  \
	X(COLLECTIVES, "collectives", 'r', 0, TUI_S_GRAPH, "the collectives: replica groups, group size, channel id, bytes per device") \
	X(EXPORT, "export", 'e', 0, TUI_S_CANVAS, "export the drawing: export FILE.dot|svg|png")   \
	X(EXPAND, "expand", 'x', 0, TUI_S_CANVAS, "draw called computations in full / collapsed into boxes") \
	X(LAYERS, "layers", 'y', 0, TUI_S_GRAPH, "the model's layers: namespaces of op_name as a tree (a node: its layer)") \
	X(EXPAND_ALL, "expand-all", '*', 0, TUI_S_TREE, "expand every layer and every run of repeated blocks") \
	X(DATA, "data", 0, 0, TUI_S_GRAPH, "lay your data over the nodes: data FILE (CSV or JSON by instruction name)") \
	X(DIFF, "diff", 'd', 0, TUI_S_GRAPH | TUI_S_DATASET, "diff this module with another: diff FILE (a dump: the stage with the one before)") \
	X(PASSES, "passes", 0, 0, TUI_S_DATASET, "the stages of a dump module in pass order, instructions and fusions after each")

typedef enum tui_req {
	TUI_REQ_NONE,
#define TUI_REQ_ENUM(id, name, k1, k2, scope, help) TUI_REQ_##id,
	TUI_REQUESTS(TUI_REQ_ENUM)
#undef TUI_REQ_ENUM
	TUI_REQ_MOUSE, /* t->mouse holds the event */
	TUI_NREQS
} tui_req;

/* ---- Colours and drawing (draw.c) ------------------------------------ */

/* Cell classes: what a cell is, mapped to a colour pair (or attributes only
 * under NO_COLOR). */
enum tui_class {
	TUI_C_DEFAULT,
	TUI_C_CAT,                         /* + hlo_category */
	TUI_C_TITLE = TUI_C_CAT + 16,
	TUI_C_STATUS,
	TUI_C_ERROR,
	TUI_C_DIM,
	TUI_C_HEADER,
	TUI_C_CURSOR,
	TUI_C_BAR,
	TUI_C_MARK,
	TUI_C_GOOD,
	TUI_C_SECTION,
	TUI_NCLASSES
};

void tui_colors_init(int no_color);
attr_t tui_attr(int cls);
/* A category's colour on an 8/16-colour terminal (COLOR_*, or -1 for the
 * terminal's default); *bold is set when it is drawn bold, which tells
 * apart two categories of one colour (parameter and collective: red). */
int tui_category_color8(hlo_category c, int *bold);
/* UTF-8 text at (y, x), at most w cells, truncated with an ellipsis; pads
 * with spaces to w cells when `pad`.  Returns the cells written. */
int tui_put(WINDOW *win, int y, int x, int w, const char *s, attr_t a, int pad);
/* Right-aligned variant. */
void tui_put_right(WINDOW *win, int y, int x, int w, const char *s, attr_t a);
/* Display width of a UTF-8 string. */
int tui_width(const char *s);
/* Names on screen: an HLO name wider than TUI_NAME_MAX cells is shortened
 * in the middle, keeping its start and its end (where the numbers that
 * tell names apart are).  Only what is drawn: queries, filters, frequency
 * tables and `:write` see whole names. */
#define TUI_NAME_MAX 40
/* s when it fits in w cells, else (in buf) its first and last characters
 * around an ellipsis, w cells in all. */
const char *tui_mid(const char *s, int w, char *buf, size_t cap);
/* tui_mid(s, TUI_NAME_MAX, ...). */
const char *tui_name(const char *s, char *buf, size_t cap);
/* Bytes of the longest start of s that fits in w cells (to wrap text). */
size_t tui_prefix_bytes(const char *s, int w);
/* A horizontal bar of `frac` (0..1) of w cells, with eighth blocks when the
 * terminal speaks UTF-8, '#' otherwise, written into buf. */
void tui_bar(char *buf, size_t cap, double frac, int w);
int tui_utf8(void);

/* ---- Tables (table.c, table_rows.c) ---------------------------------- */

#define TUI_LEFT 2 /* numeric value, drawn left-aligned (bars) */
/* Views declare their columns as static tables:
 *   static const tui_col cols[] = {{.name = "id", .key = NC_ID, .width = 6, .numeric = 1}, ...}; */
/* Widths follow the data on screen: a column is as wide as the widest of
 * its header and the cells drawn since its view opened (so widths only
 * grow: no jitter while scrolling).  When the columns do not all fit, a
 * text column is cut to `width` (never below its header) and the cells
 * left over go to the cut text columns; numbers are never cut.  A bar
 * (TUI_LEFT) is always `width` cells. */
typedef struct tui_col {
	char name[48];
	int key;     /* the view's column id */
	int width;   /* cells: a bar's width; a text column's width when space is short */
	int numeric; /* sorted and compared as numbers; right-aligned unless TUI_LEFT */
	int unit;    /* enum hs_unit: what its numbers print with, and filters accept */
	int mid;     /* names: drawn shortened in the middle (tui_mid) over TUI_NAME_MAX
		      * cells or the column's width, never cut at the end */
	int seen;    /* widest cell drawn so far */
	int shown;   /* cells it took when last drawn */
} tui_col;
#define TUI_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct tui_table_ops {
	/* Text of a cell; returns a cell class (TUI_C_*). */
	int (*cell)(void *ctx, int64_t row, const tui_col *c, char *buf, size_t cap);
	/* Number of a numeric cell (sorting, filters, frequency).  NAN = none. */
	double (*value)(void *ctx, int64_t row, const tui_col *c);
} tui_table_ops;

/* Optional, per table: for a text column, a number that sorts like its
 * text (e.g. an opcode's rank by name), saving the formatting of every row;
 * NAN where it has none. */
typedef double (*tui_order_fn)(void *ctx, int64_t row, const tui_col *c);

/* Optional, per table: a cell's whole text when it lies in memory that
 * outlives the call (a name the graph holds), saving the filter its
 * formatting; NULL for a cell that must be formatted (cell). */
typedef const char *(*tui_text_fn)(void *ctx, int64_t row, const tui_col *c);

typedef struct tui_table {
	const tui_table_ops *ops;
	void *ctx;
	tui_col *cols;
	int ncols, capcols;
	int64_t nrows;          /* rows of the source */
	int64_t *idx, nidx;     /* rows shown, in order */
	int64_t cur, top;       /* cursor and first shown, indices into idx */
	int ccol, lcol;         /* current column, first column drawn after the frozen ones */
	int frozen;             /* leftmost columns always drawn */
	int sort_col, sort_desc;
	struct query_filter *filter; /* the `\` filter in force over the columns, or NULL */
	int nterms;             /* its conditions joined by a top-level `and`; 0: none */
	int filter_col;         /* the column of the filter text the last error names, 0: none */
	char search[128];
	char title[96];         /* drawn above the header when set */
	tui_col *avail;         /* columns that `+` can add */
	int navail, capavail;
	tui_order_fn order;     /* NULL: text columns sort by their text */
	tui_text_fn text;       /* NULL: every cell is formatted */
	uint64_t *rank;         /* text sort: rank of each source row's text, cached */
	struct skey *scratch;   /* sort buffers for nrows rows */
	int rank_key;           /* ... for the column with this key and name */
	char rank_name[48];
	int y, x, h, w;         /* where it was last drawn (mouse) */
	int hint_rows;          /* rows of data last drawn */
	int paired;             /* one of two panes: the title shows which has the focus */
} tui_table;

void tui_table_init(tui_table *tb, const tui_table_ops *ops, void *ctx, int64_t nrows);

/* A table as data: its source, its columns, those `+` can add. */
typedef struct tui_table_spec {
	const tui_table_ops *ops;
	tui_order_fn order;   /* may be NULL */
	tui_text_fn text;     /* may be NULL */
	const char *title;    /* may be NULL */
	const tui_col *cols;  /* shown, in order */
	int ncols;
	const tui_col *avail; /* can be added */
	int navail;
	int frozen;           /* leftmost columns always drawn */
	int ccol;             /* current column at the start */
} tui_table_spec;

/* tui_table_init, then the spec's columns, title and settings; -1 when out
 * of memory (the table is still valid, to free). */
int tui_table_init_spec(tui_table *tb, const tui_table_spec *spec, void *ctx, int64_t nrows);
/* The shown or available column with this key (to adjust a width), or NULL. */
tui_col *tui_table_col_by_key(tui_table *tb, int key);
void tui_table_free(tui_table *tb);
int tui_table_add_col(tui_table *tb, const char *name, int key, int width, int numeric);
void tui_table_del_col(tui_table *tb, int i); /* moves it to the available ones */
/* Registers a column that `+` (or `:column NAME`) can add later. */
int tui_table_add_avail(tui_table *tb, const char *name, int key, int width, int numeric);
/* Shows an available column after the current one; -1 + err if unknown. */
int tui_table_show_col(tui_table *tb, const char *name, hs_error *err);
int tui_table_find_col(const tui_table *tb, const char *name);
/* Re-applies filter and sort.  A source whose text changes under the same
 * rows must call tui_table_set_rows (which also drops cached sort keys). */
void tui_table_refresh(tui_table *tb);
void tui_table_set_rows(tui_table *tb, int64_t nrows);
/* The source's texts changed under the same rows: drops cached sort keys. */
void tui_table_changed(tui_table *tb);
/* Draws the title (when set), the header and the rows that fit in h rows.
 * A paired table's title says whether it has the focus: reversed with a
 * marker when focused, dim when not. */
void tui_table_draw(WINDOW *win, tui_table *tb, int y, int x, int h, int w, int focused);
/* Rows the table would take to show every row: title, header, rows (one
 * for "(empty)"). */
int tui_table_rows_needed(const tui_table *tb);
/* Cells the table would take to show its columns uncut, for the rows that
 * fit in h rows from its first shown (panes side by side share a width). */
int tui_table_cols_needed(tui_table *tb, int h);
/* Two panes stacked in h rows: the rows for the first.  Each gets what it
 * needs when both fit (the leftover below the second); else a pane that
 * needs at most half keeps its size and the other takes the rest; else the
 * first gets three fifths.  Each keeps at least three rows. */
int tui_split_rows(int h, int need_a, int need_b);
/* Text (into buf[TUI_CELL], returning the cell class) and number (NAN =
 * none) of column `col` of source row `row`. */
#define TUI_CELL 256
int tui_table_cell(const tui_table *tb, int64_t row, int col, char *buf);
/* The same into buf[cap]: with cap TUI_CELL_FULL, a cell's whole text (an
 * op_name of 700 characters, a list of 500 operand names), for what must
 * see whole values: frequency tables, filters, search, `:write`. */
#define TUI_CELL_FULL 65536
int tui_table_cell_cap(const tui_table *tb, int64_t row, int col, char *buf, size_t cap);
double tui_table_value(const tui_table *tb, int64_t row, int col);
/* Movement, sort, search, filter...; returns 1 when handled. */
struct tui;
int tui_table_request(struct tui *t, tui_table *tb, tui_req req, const char *arg);
/* Sorts on col (-1: the natural order) and moves to the first row. */
void tui_table_sort(tui_table *tb, int col, int desc);
/* The `\` filter: a condition over the columns in the query language
 * (query_filter_new: "opcode = dot or users > 1", "cost < 12 us", "name ~
 * ^fusion"), or plain text the current column contains; empty clears.  -1
 * with err set (and tb->filter_col the column of expr it names) when it is
 * none: the filter in force stays. */
int tui_table_filter(tui_table *tb, const char *expr, hs_error *err);
/* Adds "COL OP TEXT" to the filter with `and` (a frequency table's
 * drill-down: "==", the exact text); -1 when it cannot (out of memory). */
int tui_table_add_term(tui_table *tb, int col, const char *op, const char *text);
/* The filter in force as it reads back (query_filter_text), "" for none. */
void tui_table_filter_text(const tui_table *tb, char *buf, size_t cap);
/* Before column `col` is hidden: the filter's text without the terms that
 * read it (malloc'd; NULL when there is no filter), for tui_table_refilter. */
char *tui_table_filter_without(const tui_table *tb, int col);
/* After the columns changed: the filter `text` (NULL: the one in force)
 * compiled over them; cleared when it no longer compiles. */
void tui_table_refilter(tui_table *tb, const char *text);
/* Moves to the next row (dir 1 / -1) whose current column contains s;
 * returns 1 when found. */
int tui_table_search(tui_table *tb, const char *s, int dir);
int64_t tui_table_row(const tui_table *tb);      /* source row under the cursor, or -1 */
int tui_table_goto(tui_table *tb, int64_t row);  /* 1 if the row is shown */
void tui_table_move(tui_table *tb, int64_t delta);
int tui_table_write_csv(const tui_table *tb, const char *path, hs_error *err);
int tui_table_click(tui_table *tb, int y, int x); /* 1 if inside */
int tui_table_contains(const tui_table *tb, int y, int x);

/* ---- Documents: an open graph and its session (doc.c) -------------- */

/* Everything derived about the graph (costs, shapes, runtime ranks, the
 * active predictor, data laid over it) is the query session's (query/query.h:
 * query_session_cost, query_session_predictor, query_session_fit, ...), one
 * per document: the views and the `:` line share it, so a `:fit` reaches
 * every view and every query. */
typedef struct tui_doc {
	hs_graph *g;
	int refs;
	const hs_model *model;        /* borrowed */
	struct query_session *qs;     /* the graph's session, made with the document */
	struct layout_cache *layouts; /* lazily, for drawings */
} tui_doc;

tui_doc *tui_doc_open(const char *path, const hs_model *m, hs_error *err);
tui_doc *tui_doc_ref(tui_doc *d);
void tui_doc_unref(tui_doc *d);
/* The node `arg` names: an id, or an instruction name (graph_find_node:
 * "dot.42", derived "convolution.603").  -1 with a message on the status
 * line ("WHAT: no node ...", with the closest name: query_suggest_node)
 * when there is none. */
int64_t tui_doc_node_arg(struct tui *t, const tui_doc *d, const char *what, const char *arg);
/* Cell class of node v's opcode as written: its category's colour (an
 * opcode the learned list lacks takes the category of its id). */
int tui_node_class(const hs_graph *g, int64_t v);
/* "name (role)" of HLO computation c into buf, for the screen (a long
 * name shortened in the middle: tui_name). */
const char *tui_hcomp_label(const hs_graph *g, int64_t c, char *buf, size_t cap);
/* ---- Views ------------------------------------------------------------ */

typedef struct tui tui;
typedef struct tui_view tui_view;

typedef struct tui_view_ops {
	const char *name;  /* shown in the title and help */
	int scope;         /* TUI_S_* mask beyond TUI_S_ALL */
	void (*draw)(tui *t, tui_view *v, WINDOW *win, int y, int x, int h, int w);
	/* Returns 1 when handled; unhandled requests fall to the focused table. */
	int (*request)(tui *t, tui_view *v, tui_req req, const char *arg);
	/* Called after the cursor moved. */
	void (*select)(tui *t, tui_view *v);
	void (*done)(tui_view *v);
} tui_view_ops;

#define TUI_MAX_PANES 3
struct tui_view {
	const tui_view_ops *ops;
	void *data;
	tui_doc *doc;                  /* one reference, or NULL */
	tui_table *pane[TUI_MAX_PANES];/* tables of the view, focus order */
	int npanes, focus;
	char title[160];
};

/* Pushes a new view made of data, taking a reference on doc (may be NULL),
 * with up to two table panes in focus order (NULL for none).  Takes data:
 * when out of memory, ops->done frees it, a message is set, NULL returned. */
tui_view *tui_push(tui *t, const tui_view_ops *ops, void *data, tui_doc *doc, const char *title,
		   tui_table *pane0, tui_table *pane1);
/* Adds a table pane to v (after tui_push), last in focus order; panes
 * beyond TUI_MAX_PANES are ignored. */
void tui_view_add_pane(tui_view *v, tui_table *tb);
/* Closes the top view once the current request returns. */
void tui_pop_later(tui *t);
/* A message on the status line until the next key. */
void tui_message(tui *t, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* During a long operation: the message on the status line, the screen
 * redrawn at once. */
void tui_status_now(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when Ctrl-C was pressed since the last call (and it no longer quits):
 * long operations poll it to stop. */
int tui_take_interrupt(tui *t);
/* Reads a line on the bottom row; returns NULL when cancelled.  The text is
 * valid until the next prompt, without spaces around it (but a search's).
 * `kind` picks a history and what Tab completes.  `initial` (may be NULL) is
 * a default shown selected: typing replaces it, Right or End keep it to
 * edit, Enter takes it (lineedit.h). */
enum {
	TUI_P_COMMAND, /* `:` lines: commands, queries, their arguments */
	TUI_P_SEARCH,  /* no completion; spaces kept */
	TUI_P_FILTER,  /* column names */
	TUI_P_COLUMN,  /* one name of a column to add */
	TUI_P_PATH,    /* one file name */
	TUI_P_CONFIGS, /* config selectors (best, worst, default), then a file */
	TUI_P_NKINDS
};
const char *tui_prompt(tui *t, const char *label, int kind, const char *initial);
tui_view *tui_top(tui *t);
tui_table *tui_focused_table(tui_view *v);
const hs_model *tui_model(tui *t);
WINDOW *tui_screen(tui *t);
/* Mouse event of the last TUI_REQ_MOUSE. */
MEVENT *tui_mouse(tui *t);

/* View constructors: each pushes its view, or returns -1 with a message set. */
int tui_open_dataset(tui *t, ds_index *ix);                 /* takes ix */
int tui_open_overview(tui *t, tui_doc *d);
/* Node table of all nodes, of one opcode as written (non-NULL) or of one
 * node_splits segment (>= 0). */
int tui_open_nodes(tui *t, tui_doc *d, const char *opcode, int64_t split);
/* Node table of the real HLO computation c (view_nodes.c). */
int tui_open_hcomp(tui *t, tui_doc *d, int64_t c);
/* Into the computation node v calls: its node table, or a list to pick from
 * when it calls several (view_comps.c).  0 when it calls none (nothing
 * opened), 1 when it opened a view, -1 with a message set. */
int tui_open_called(tui *t, tui_doc *d, int64_t v);
/* A table of real HLO computations (view_comps.c): ids in idx[0..n)
 * (copied), or all of them when idx is NULL. */
int tui_open_hcomps(tui *t, tui_doc *d, const char *title, const int64_t *idx, int64_t n);
/* The model's layers as a tree (view_layers.c); node >= 0: opened down to
 * that node's layer, the cursor on it. */
int tui_open_layers(tui *t, tui_doc *d, int64_t node);
/* The node_splits segments (view_splits.c). */
int tui_open_splits(tui *t, tui_doc *d);
/* Every collective of the graph (view_collectives.c). */
int tui_open_collectives(tui *t, tui_doc *d);
int tui_open_node(tui *t, tui_doc *d, int64_t node);
int tui_open_configs(tui *t, tui_doc *d);
int tui_open_config_values(tui *t, tui_doc *d, int64_t config);
int tui_open_freq(tui *t, tui_table *parent, int col);
int tui_open_help(tui *t, const tui_view *of);
/* A table of node ids (query results and such). */
int tui_open_node_list(tui *t, tui_doc *d, const char *title, const int64_t *ids, int64_t n);

/* Two HLO modules side by side (view_diff.c): the diff's summary, its
 * computations, and the instructions of both with matched ones on one
 * row.  a and b are open documents (a reference is taken on each), or
 * NULL: path_a, path_b are opened.  -1 with a message set. */
int tui_open_diff(tui *t, tui_doc *a, tui_doc *b, const char *path_a, const char *path_b);
/* The stages of XLA dump module `module` of ix (borrowed: the view that
 * owns ix must outlive this one), view_passes.c. */
int tui_open_passes(tui *t, const ds_index *ix, const char *module);
/* A text file as lines (view_text.c): reports of a dump folder. */
int tui_open_text(tui *t, const char *path, const char *title);
/* Opens dataset entry e: its module's overview, with the buffer
 * assignment of its dump (when e is after optimizations and one is in ix)
 * laid over its nodes as buffer_bytes (view_dataset.c). */
int tui_open_entry(tui *t, const ds_index *ix, const ds_entry *e);
/* The stage of e's dump module before e in ix (in e's folder, one that
 * could be read), or NULL (view_dataset.c). */
const ds_entry *tui_stage_before(const ds_index *ix, const ds_entry *e);

/* Graph drawing around a node (render/render.h), view_draw.c. */
int tui_open_drawing(tui *t, tui_doc *d, int64_t node);
void tui_drawing_cache_free(tui_doc *d);

/* ---- Computations as a table pane (view_comps.c) ------------------------ */

/* The source of a computation table: the rows are computations idx[0..n)
 * of doc (idx NULL: all, n = n_hcomps); idx is owned by whoever set it.
 * The overview shows one as a pane. */
typedef struct tui_hcomps {
	tui_doc *doc;
	const int64_t *idx;
	int64_t n;
	const cost_estimate *ce;
	double cost_total;
} tui_hcomps;
/* Initializes tb over h (which must outlive it); -1 when out of memory. */
int tui_hcomps_table_init(tui_table *tb, tui_hcomps *h, const char *title);
/* The computation of a row. */
int64_t tui_hcomps_at(const tui_hcomps *h, int64_t row);

/* ---- Model numbers masked (format.c; numbers as text: base/units.h) ------ */

/* Numbers from the models (analytic costs, predictions, contributions):
 * under tui_options.mask_model (HLOSCOPE_MASK_MODEL=1, for screen goldens
 * that must not change with a model constant) they print as "#".
 * tui_model_hidden writes "#" and returns 1 when masked, else returns 0 and
 * leaves buf alone. */
void tui_set_mask_model(int on);
int tui_model_masked(void);
int tui_model_hidden(char *buf, size_t cap);

/* Configs view: the marked configs (-1 when unmarked), for comparison views;
 * returns 1 when v is a configs view (else 0, both -1). */
int tui_configs_marks(const tui_view *v, int64_t *a, int64_t *b);

/* Two configs side by side (view_compare.c).  Selectors as in
 * model/compare.h (index, best, worst, default); file_b (may be NULL)
 * names another file of the same graph for B. */
int tui_open_compare(tui *t, tui_doc *d, const char *sel_a, const char *sel_b, const char *file_b);
/* The `compare` request of any graph view: "A B [FILE]" in arg; in the
 * configs view also "B" (A the mark or the cursor), or no arg: the marks A
 * and B, else the mark (or cursor) and a prompt for B.  Elsewhere no arg
 * prompts for "A B". */
int tui_compare_request(tui *t, tui_view *v, const char *arg);
/* The drawing around `node` with `ids` highlighted (copied). */
int tui_open_drawing_highlight(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n);
/* The drawing around `node` with `ids` highlighted (copied) and `legend`
 * (copied; may be NULL) saying what the highlight means. */
int tui_open_drawing_legend(tui *t, tui_doc *d, int64_t node, const int64_t *ids, size_t n, const char *legend);
/* The drawing around `node` with the nodes that differ in `r` highlighted;
 * its exports show their values A -> B and a legend (model/compare.h). */
int tui_open_drawing_compare(tui *t, tui_doc *d, int64_t node, const compare_result *r);

/* The `:` line's fallback: text that is no view command goes to the query
 * language of query/query.h, its result shown as a table view (query.c). */
void tui_run_query(tui *t, tui_view *v, const char *text);
/* Completion of the query language at line[start..]: calls add() per
 * candidate; returns 1 when the position takes a file path. */
typedef void (*tui_word_fn)(void *ctx, const char *word, const char *prefix);
int tui_query_complete(tui *t, const char *line, int start, tui_word_fn add, void *ctx);
/* An error of the query language on the status line: "WHAT MSG  [li>>ne]",
 * the mark before the 1-based column `col` of `line` (none when col is 0). */
void tui_error_at(tui *t, const char *what, const char *msg, const char *line, int col);
/* 1 when `name` is a command of the query language. */
int tui_query_knows(const char *name);
/* The folder session of a dataset view, for `:` queries over all its graphs
 * (made on first use, owned by the view), or NULL when v is no dataset
 * view or out of memory (message set). */
struct query_session *tui_dataset_session(tui *t, tui_view *v);
/* Opens a graph file (FILE#N too) or a folder as a new view; -1 with err
 * set. */
int tui_open_path(tui *t, const char *path, hs_error *err);
/* Asks the main loop to end. */
void tui_quit(tui *t);

/* Bench timing: milliseconds since tui_run started. */
double tui_clock_ms(void);

#endif
