/* query_impl.h - internals shared by the query language's files (query/lex.c,
 * parse.c, nodes.c, eval.c, table.c, print.c and the commands, commands.c and
 * cmd_*.c, which also share commands.h).  Not for other modules: use
 * query/query.h.
 *
 * Pipeline: commands.c looks up the command word in its command table, the
 * command's parser (cmd_*.c) pulls tokens from lex.c, expressions from
 * parse.c (which resolves field names against the session's field tables
 * and type checks) and nodes by id or name from nodes.c; eval.c evaluates
 * expressions per row with the session's lazily built caches (decoded
 * shapes, costs, predictions, texts), and table.c builds the result tables.
 *
 * Ownership: everything a command's parse makes (tokens' strings, the
 * expression tree, compiled regexes) lives in the parser's arena and dies
 * with it (query_parser_done).  Result text lives in the result.
 */
#ifndef HS_QUERY_IMPL_H
#define HS_QUERY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/index.h"
#include "base/regex.h"
#include "base/units.h"
#include "loader/dataset.h"
#include "loader/hlo.h"
#include "model/cost.h"
#include "query/query.h"

/* ---- fields --------------------------------------------------------- */

/* QS_AUTO: the first field named decides (stats and count work on nodes
 * or on configs); the parser then locks p->scope to it.  QS_GRAPH: one row
 * per graph (`graphs`), whose expressions reach nodes and configs through
 * aggregates: count(...), sum(...), min, max, mean. */
enum query_scope { QS_NODE, QS_CONFIG, QS_AUTO, QS_GRAPH };

enum query_field_kind {
	/* node scope */
	QF_FEATURE,      /* node_feat column `index` */
	QF_ID,
	QF_OPCODE,       /* text */
	QF_OPCODE_ID,
	QF_CATEGORY,     /* text */
	QF_SPLIT,        /* the node_splits segment */
	QF_ROLE,         /* text: the role of the node's HLO computation */
	QF_OPERANDS,     /* HLO operands, repeats counted (query_n_operands) */
	QF_OPERAND_NAMES, /* text: "a, b, a" */
	QF_USERS,
	QF_ELEM,         /* text */
	QF_SHAPE,        /* text */
	QF_RANK,
	QF_ELEMENTS,
	QF_CONFIGURABLE,
	QF_COST,
	QF_KERNEL_SHARE,
	QF_FLOPS,
	QF_BYTES,
	QF_HTEXT,        /* text: graph_node_text field `index` (hs_hfield) */
	QF_SOURCE_LINE,  /* metadata source_line; null when absent */
	QF_HLO,          /* text: the instruction's HLO line */
	QF_LAYER,        /* text: the node's namespace (query_session_layers) */
	QF_OVERLAY,      /* a column of data laid over the nodes: overlay
	                  * index >> 16, column index & 0xffff (type as the column's) */
	QF_COLUMN,       /* a table's filter (query_filter): column `index`, read
	                  * through the session's query_rows */
	/* config scope */
	QF_CONFIG,
	QF_RUNTIME,
	QF_RUNTIME_NS,
	QF_NORMALIZER,
	QF_PREDICTED,
	QF_SCORE,
	QF_RUNTIME_RANK,
	QF_PREDICTED_RANK,
	QF_CONFIG_FEATURE, /* tile config_feat column `index` */
	/* graph scope (cmd_graphs.c) */
	QF_G_FILE,       /* text: the path in the folder */
	QF_G_NAME,       /* text */
	QF_G_COLLECTION, /* text */
	QF_G_SEARCH,     /* text */
	QF_G_SPLIT,      /* text */
	QF_G_KIND,       /* text */
	QF_G_NODES,
	QF_G_EDGES,
	QF_G_CONFIGS,
	QF_G_CONFIGURABLE,
	QF_G_COMPUTATIONS, /* HLO computations (also hlo_computations) */
	QF_G_SPLITS,     /* node_splits segments */
	QF_G_LABELED,
	QF_G_RUNTIME_MIN,
	QF_G_RUNTIME_MEDIAN,
	QF_G_RUNTIME_MAX,
	QF_G_MODULE,     /* text: the HLO module's name */
	QF_G_HCOMPS,     /* real HLO computations */
	QF_G_FUSIONS,    /* fusion nodes */
	QF_G_COST,       /* analytic seconds over the executed computations */
	QF_G_FLOPS,
	QF_G_BYTES,
};

typedef struct query_field {
	const char *name;
	int kind;          /* enum query_field_kind */
	int index;         /* QF_FEATURE, QF_CONFIG_FEATURE, QF_OVERLAY, QF_COLUMN */
	query_type type;
	const char *help;
	int unit;          /* enum hs_unit of its numbers: "cost < 12 us" */
} query_field;

/* Parentheses, unary operators and `not` nest at most this deep. */
#define QUERY_MAX_DEPTH 200
/* Expression nodes in one command (evaluation recurses over them). */
#define QUERY_MAX_TERMS 4096

/* ---- tokens --------------------------------------------------------- */

enum query_tok {
	TK_END,
	TK_NUM,
	TK_STR,
	TK_WORD,
	TK_LP, TK_RP, TK_COMMA, TK_STAR,
	TK_PLUS, TK_MINUS, TK_SLASH, TK_PCT,
	TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
	TK_MATCH, TK_NMATCH,
	TK_AND, TK_OR, TK_NOT, /* && || ! */
};

typedef struct query_token {
	int kind;
	size_t pos, len;  /* span in the line (bytes) */
	double num;       /* TK_NUM: the number as written, before its unit */
	int unit;         /* TK_NUM: a unit suffix ends the token ("12 us", "5%") */
	const char *str;  /* TK_STR: unescaped text; TK_WORD: the word (arena) */
} query_token;

/* ---- expressions ---------------------------------------------------- */

enum query_expr_kind {
	QE_NUM, QE_STR, QE_FIELD,
	QE_NEG, QE_NOT,
	QE_ARITH,    /* op: TK_PLUS .. TK_PCT */
	QE_CMP,      /* op: TK_EQ .. TK_GE */
	QE_AND, QE_OR,
	QE_IN,       /* a in list (negate: not in; op TK_OR: written as a = x or a = y) */
	QE_MATCH,    /* a ~ regex (negate: !~) */
	QE_OPSET,    /* opcode in a set of ids (negate: not in) */
	QE_WORD,     /* a bare word not yet resolved: only inside the parser */
	QE_ATTR,     /* text: attr('NAME'), the attribute `str` of the node's
	              * instruction as written ("" when it has none) */
	QE_AGG,      /* graph scope: op (enum query_agg) of a over the rows where b
	              * holds (b may be NULL); scope says nodes or configs; the
	              * value of the current graph is s->agg[slot] */
	QE_MISSING,  /* a = - (no value): a is NaN (negate: a != -) */
};

enum query_agg { QA_COUNT, QA_SUM, QA_MIN, QA_MAX, QA_MEAN };

typedef struct query_expr {
	int kind;
	int op;
	int negate;
	size_t pos, len;          /* source span */
	query_type type;
	double num;               /* QE_NUM */
	const char *str;          /* QE_STR, QE_WORD */
	const query_field *field; /* QE_FIELD (also a QE_WORD that names a field) */
	hs_regex *re;             /* QE_MATCH */
	const uint8_t *opset;     /* QE_OPSET: [256] 0/1 */
	struct query_expr *a, *b;
	struct query_expr **list; /* QE_IN */
	int nlist;
	int scope;                /* QE_AGG: QS_NODE or QS_CONFIG */
	int slot;                 /* QE_AGG: index into the session's agg[] */
	uint8_t unit_lit;         /* QE_NUM written with a unit, until a comparison
	                           * converts it to the other side's unit */
	uint8_t missing;          /* QE_NUM: `-`, no value, until a comparison takes it */
	uint8_t icase;            /* QE_CMP, QE_IN of text: ignore case (a table's filter) */
	uint8_t shown;            /* QE_FIELD of a table column: the number its cell
	                           * shows, read back in its unit ("t = 1.23 ms") */
} query_expr;

/* ---- session -------------------------------------------------------- */

/* Texts of any length a session caches per node (query_dtext). */
enum query_dtext_kind {
	QUERY_DT_SHAPE,         /* the module's shape text (tuples in full) */
	QUERY_DT_HLO,           /* the instruction's HLO line */
	QUERY_DT_OPERAND_NAMES, /* "a, b, a" */
	QUERY_NDTEXT
};

typedef struct query_shape_info {
	double elements;
	int16_t rank;
	int16_t elem;      /* hlo element type, -1 when none */
	uint8_t valid;
	uint8_t done;      /* decoded */
} query_shape_info;

/* The file of the graph a session is bound to, as a folder names it. */
typedef struct query_graph_ref {
	int64_t index;           /* in the folder's path order (0 for one graph) */
	const char *path;        /* as opened */
	const char *rel;         /* relative to the folder; the path for one graph */
	const char *collection;  /* "" when the path does not say */
	const char *search;
	const char *split;
} query_graph_ref;

struct query_session {
	hs_graph *g;
	const hs_model *model;
	int err_col;

	/* A folder session (query_session_new_dataset): the files, and a stub
	 * graph that only gives the field tables their shape.  NULL / 0 for a
	 * session on one graph. */
	const ds_index *ix;
	hs_graph *stub;
	int threads;                /* 0: the number of CPUs */
	query_progress_fn progress;
	void *progress_ctx;
	int stopped;                /* the last query_exec was stopped */

	/* The bound graph's file, and its single-graph copy of the names. */
	const query_graph_ref *ref;
	query_graph_ref own_ref;
	char own_coll[16], own_search[16], own_split[16];

	/* graphs: the aggregates of the bound graph (set while it runs) and
	 * runtime min, median, max (computed once per graph). */
	const double *agg;
	double rt_summary[3];
	int rt_done;

	query_field *node_fields;   /* derived, then features */
	size_t n_node_fields;
	query_field *config_fields;
	size_t n_config_fields;
	hs_index node_index, config_index; /* the fields by name */
	char **feature_names;       /* owned copies (generic names rotate) */
	char **config_names;

	char *opcode_names[256];    /* owned copies, by opcode id */

	/* Lazy caches of the bound graph (NULL until first used). */
	/* Decoded shapes, dense but filled on first use per node (rank, elem
	 * and elements read them), and shape texts in a hash by node id, so
	 * that showing 200 shapes of 40,000 nodes touches little memory. */
	struct query_shape_info *shapes;  /* [n_nodes] */
	struct query_text_map *shape_text;
	struct query_text_map *htext[HS_NHFIELDS]; /* HLO text written into a
	                                             * buffer: derived names, shapes */
	struct query_text_map *dtext[QUERY_NDTEXT]; /* texts of any length: module
	                                             * shapes, HLO lines, operand names */
	struct query_attr_map *attrs; /* attr('NAME') texts, one map per name */
	size_t n_attrs;
	cost_estimate *cost;        /* [n_nodes] */
	int64_t *rank;              /* [n_configs] 1 = fastest measured (labeled graphs) */
	int64_t *split_root;        /* [n_comps] the root of each node_splits segment */
	/* The active predictor: `fit` when one is set, else the model's (or
	 * the analytic estimate's) `pred`, made on first use; when that
	 * failed, why (pred_error, pred_status) instead. */
	predictor *pred;
	predictor *fit;
	const predictor *active;    /* set by query_need_predicted */
	char *pred_error;
	int pred_status;
	/* Data laid over the graph's nodes: their columns are node fields. */
	hs_overlay *overlays;
	int n_overlays;
	/* The namespaces of op_name (query_session_layers). */
	hs_layers *layers;

	/* A table's filter (query_filter_new): no graph; the node fields are
	 * the table's columns, read through `rows` into a buffer per column. */
	int table;
	const query_cells *cells;
	char **colbuf;              /* [n_node_fields] */

	/* Evaluation has no error return: a row whose text cannot be made
	 * (out of memory) or matched (a regular expression over its limits)
	 * reads as not matching, and the first such failure waits here for
	 * the command to report it (query_eval_failed).  rx: what matching
	 * needs, made on first use. */
	hs_error eval_err;
	hs_regex_scratch *rx;
};

/* A session for a worker of a folder query: no field tables (the plan was
 * resolved against the parent's), the parent's model and opcode names of
 * its own.  NULL when out of memory. */
query_session *query_session_worker(const query_session *parent);
/* Binds a session to a graph and its file (both borrowed), dropping the
 * caches of the previous one but keeping the field tables. */
void query_session_bind(query_session *s, hs_graph *g, const query_graph_ref *ref);
/* A session for a table's filter: no graph, the columns as its node fields
 * (names copied).  NULL with err set when out of memory. */
query_session *query_session_new_table(const query_column *cols, int ncols, hs_error *err);

/* ---- parser --------------------------------------------------------- */

typedef struct query_parser {
	const char *src;
	size_t n;
	size_t pos;            /* next byte to lex */
	query_token tok;       /* the current token */
	int have;              /* tok is valid */
	int failed;            /* an error is set; later errors do not replace it */
	int depth;             /* expression nesting, bounded by QUERY_MAX_DEPTH */
	int nexpr;             /* expression nodes made, bounded by QUERY_MAX_TERMS */
	query_session *s;
	int scope;             /* enum query_scope for field lookups */
	hs_error *err;
	hs_arena arena;
	hs_regex **regexes;    /* to hs_regex_free */
	size_t n_regexes, cap_regexes;
	query_expr **aggs;     /* the aggregates parsed, by slot (arena) */
	int naggs;
	int plan_only;         /* query_parts: parse, say what would be read, do not run */
	unsigned parts;        /* plan_only: GRAPH_PART_* of the command */
} query_parser;

void query_parser_init(query_parser *p, query_session *s, const char *line,
		       hs_error *err);
void query_parser_done(query_parser *p);

/* The current token (lexing it when needed); after a lexing error, an end
 * token (with p->failed set). */
const query_token *query_peek(query_parser *p);
void query_advance(query_parser *p);
/* 1 when the current token is the word `kw` (case-insensitive). */
int query_at_kw(query_parser *p, const char *kw);
/* Consumes the keyword if it is there. */
int query_accept_kw(query_parser *p, const char *kw);
int query_accept(query_parser *p, int kind);
/* The rest of the line from the current token on (trimmed; quotes removed
 * when the whole rest is one quoted string); consumes it.  For paths. */
char *query_rest(query_parser *p);
/* The next whitespace-delimited chunk (quoted strings allowed); for paths. */
char *query_raw_word(query_parser *p, size_t *pos);
/* The regular expression right of `~` into *t (a TK_STR, consumed): a
 * string, or unquoted up to a space (or a ')' or ',' it does not open). */
int query_regex_token(query_parser *p, query_token *t);
/* The length of the word s[0, n) starts with as the lexer reads it (0: no
 * word starts there). */
size_t query_word_len(const char *s, size_t n);
/* 1 for a word that ends an operand (and, or, sort, limit, show, where, by,
 * asc, desc). */
int query_clause_word(const char *w, size_t n);

/* Sets an error at byte offset `pos` of the line (column pos + 1). */
int query_fail_at(query_parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An allocation failed while reading the line: "out of memory WHAT"
 * (HS_ENOMEM), no column. */
int query_fail_oom(query_parser *p, const char *what);
/* "unexpected 'x' at column N (expected WHAT)" for the current token. */
int query_fail_expected(query_parser *p, const char *what);
/* A short description of the current token for messages: "'foo'",
 * "end of line". */
const char *query_tok_desc(query_parser *p, char *buf, size_t cap);

/* A whole expression in p->scope; type checked, words resolved. */
query_expr *query_parse_expr(query_parser *p);
/* For parse.c, from resolve.c: "unknown field" (a table's filter: "no
 * column") with a suggestion; an expression's source for messages
 * ('opcode_id + 1'); fails unless e is a number; 1 when every literal is a
 * learned opcode; a bare word turned into a text literal; the two sides of
 * a comparison with operator op resolved against each other (words,
 * vocabularies, units, types). */
int query_fail_unknown_field(query_parser *p, const query_expr *w);
const char *query_expr_desc(query_parser *p, const query_expr *e, char *buf, size_t cap);
int query_need_num(query_parser *p, const query_expr *e, const char *what);
int query_all_learned(query_expr *const *lits, int n);
void query_make_literal(query_expr *e);
int query_resolve_pair(query_parser *p, query_expr *a, query_expr *b, int op);
/* A non-negative integer (node ids, limits); -1 on error. */
long long query_parse_count(query_parser *p, const char *what);
/* A node id in range; -1 on error. */
long long query_parse_node(query_parser *p);

/* The field named `name` in a scope, or NULL (also accepts f<i> / c<i>). */
const query_field *query_find_field(query_session *s, int scope,
				    const char *name);
/* Suggestion among the fields of a scope. */
const char *query_suggest_field(query_session *s, int scope, const char *word);

/* ---- evaluation ----------------------------------------------------- */

/* What evaluating `e` (or the field) reads of a graph: GRAPH_PART_* of
 * loader/graph.h, node_opcode aside (always read). */
unsigned query_expr_parts(const query_expr *e);
unsigned query_field_parts(const query_field *f);

/* Builds whatever caches `e` needs (shapes, costs, predictions); -1 with err
 * set when a cache cannot be built (e.g. predictions fail). */
int query_prepare(query_session *s, const query_expr *e, hs_error *err);
int query_prepare_field(query_session *s, const query_field *f, hs_error *err);
double query_eval_num(query_session *s, const query_expr *e, int64_t row);
/* -1 with err set to the first failure of the evaluations since the last
 * query_eval_reset (see query_session.eval_err), else 0. */
int query_eval_failed(const query_session *s, hs_error *err);
void query_eval_reset(query_session *s);
/* Records that memory ran out making a text for a row (doing `what`);
 * returns "?", what the row then reads. */
const char *query_eval_oom(query_session *s, const char *what);
const char *query_eval_text(query_session *s, const query_expr *e, int64_t row);
double query_field_num(query_session *s, const query_field *f, int64_t row);
const char *query_field_text(query_session *s, const query_field *f, int64_t row);
/* Evaluates a number expression for rows[0..n) into out[0..n): by blocks of
 * rows (one tree walk per block, tight loops per operator) when the tree is
 * shallow, else one row at a time. */
void query_eval_rows(query_session *s, const query_expr *e, const int64_t *rows, int64_t n,
		     double *out);
/* The rows of rows[0..n) (n <= QUERY_ROWS) for which the condition e
 * holds, in order, into keep[] (which may be rows); returns the count. */
int query_select_rows(query_session *s, const query_expr *e, const int64_t *rows, int n,
		      int64_t *keep);
/* Rows per block of query_eval_rows (and of its callers' buffers). */
#define QUERY_ROWS 256
/* Truth of a number: non-zero and not NaN. */
static inline int query_truthy(double v)
{
	return v != 0 && v == v;
}

/* Graph scope (cmd_graphs.c): the graph fields, in help order; a graph
 * field's value for the bound graph; runtime min, median and max. */
const query_field *query_graph_fields(size_t *n);
double query_graph_num(query_session *s, const query_field *f);
const char *query_graph_text(query_session *s, const query_field *f);
int query_need_runtime_summary(query_session *s, hs_error *err);

/* Session caches (derived.c).  query_drop_caches drops everything derived
 * from the bound graph (the fit and the overlays too); query_drop_prediction
 * the model's predictor only (a new model). */
void query_drop_caches(query_session *s);
/* What the graph's module gives per instruction itself (an HloProto's
 * buffer assignment: buffer_bytes, loader/overlay.h overlay_from_module),
 * laid over the graph as data when a session is bound (data.c). */
int query_session_module_data(query_session *s, hs_error *err);
void query_drop_prediction(query_session *s);
int query_need_shapes(query_session *s, hs_error *err);
int query_need_cost(query_session *s, hs_error *err);
/* The active predictor into s->active ("predicted: why" when it fails). */
int query_need_predicted(query_session *s, hs_error *err);
/* A node's shape as HLO text (cached; needs no query_need_shapes). */
const char *query_shape_text(query_session *s, int64_t node);
/* A node's opcode as the `opcode` field reads it: the learned name, or the
 * name as written when the opcode is not a learned one (id 0). */
static inline const char *query_opcode_text(const query_session *s, int64_t v)
{
	return s->g->opcode[v] == 0 && s->g->module ? graph_node_opcode_name(s->g, v)
						    : s->opcode_names[s->g->opcode[v]];
}
/* HLO field f of a node (graph_node_text), stable until the session is
 * rebound; "" for fields of a graph opened without its structure. */
const char *query_htext(query_session *s, int f, int64_t node);
/* Node v's operands: the HLO operands in order, repeats kept
 * (graph_hlo_operands; the dataset's edges on a bare .npz), or the
 * dataset's edges of a graph built without the HLO structure; its users
 * likewise (each once).  NULL / 0 for a graph opened without edges. */
static inline int64_t query_n_operands(const hs_graph *g, int64_t v)
{
	if (g->hlo_operand_off)
		return graph_hlo_n_operands(g, v);
	return g->operand_off ? graph_n_operands(g, v) : 0;
}
static inline const int64_t *query_operands(const hs_graph *g, int64_t v)
{
	if (g->hlo_operand_off)
		return graph_hlo_operands(g, v);
	return g->operand_off ? g->operand_idx + g->operand_off[v] : NULL;
}
static inline int64_t query_n_users(const hs_graph *g, int64_t v)
{
	if (g->hlo_user_off)
		return graph_hlo_n_users(g, v);
	return g->user_off ? graph_n_users(g, v) : 0;
}
static inline const int64_t *query_users(const hs_graph *g, int64_t v)
{
	if (g->hlo_user_off)
		return graph_hlo_users(g, v);
	return g->user_off ? g->user_idx + g->user_off[v] : NULL;
}
/* 1 when the operands above are the module's own (0: the dataset's edges,
 * sorted, de-duplicated, call edges included: say so where they are shown). */
static inline int query_operands_exact(const hs_graph *g)
{
	return g->hlo_operand_off && g->operands_exact;
}
/* A text of node v of kind `kind` (enum query_dtext_kind), whole however
 * long, stable until the session is rebound; "" when the graph has no such
 * text (a bare .npz has no HLO line), "?" when out of memory. */
const char *query_dtext(query_session *s, int kind, int64_t v);
/* Attribute `name` of node v's instruction as written (graph_node_attr),
 * "" when it has none; stable as query_dtext. */
const char *query_attr_text(query_session *s, const char *name, int64_t v);
/* The role of node v's HLO computation (graph_role_name), "" when the
 * graph was opened without its structure. */
const char *query_role_text(const query_session *s, int64_t v);
/* A node's rank, element type and count (after query_need_shapes). */
const query_shape_info *query_shape(query_session *s, int64_t node);

/* ---- tables --------------------------------------------------------- */

typedef struct query_tb {
	query_result *r;
	size_t cap;
	/* string interning for text cells */
	struct query_strpool *pool;
} query_tb;

/* Starts a table result with these columns (names copied). */
int query_tb_init(query_tb *b, query_result *r, int ncols,
		  const char *const *names, const query_type *types,
		  hs_error *err);
/* Appends a row (cells zero/""); returns its index or -1 (out of memory). */
int64_t query_tb_row(query_tb *b, int64_t node, int64_t config, hs_error *err);
int query_tb_num(query_tb *b, int64_t row, int col, double v);
int query_tb_text(query_tb *b, int64_t row, int col, const char *text,
		  hs_error *err);
/* Column col's numbers are in `unit` (enum hs_unit, or QUERY_UNIT_ROW). */
void query_tb_unit(query_tb *b, int col, int unit);
/* Row row's QUERY_UNIT_ROW columns are in `unit`; -1 out of memory. */
int query_tb_row_unit(query_tb *b, int64_t row, int unit, hs_error *err);
/* The unit of field f's numbers on the session's graph: its own, or for
 * a runtime or a predicted time the runtime's (layout ns, tile none). */
int query_field_unit(const query_session *s, const query_field *f);
/* The unit of a column's numbers: a field's (query_field_unit), else none. */
int query_expr_unit(const query_session *s, const query_expr *e);
/* Frees the builder's interning table (the result keeps the strings). */
void query_tb_done(query_tb *b);
/* Reserves room for n rows in total. */
int query_tb_reserve(query_tb *b, size_t n, hs_error *err);
/* A string owned by the result (for notes and text blocks, use malloc). */
const char *query_tb_str(query_tb *b, const char *text, hs_error *err);

/* Frees a table's storage (names, types, cells, strings). */
void query_table_free(query_table *t);

#endif
